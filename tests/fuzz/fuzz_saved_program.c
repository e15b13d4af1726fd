/*
 * Fuzz target: the saved-program format (core/saved_program.c), the bytes
 * the disk cache hands back before any plugin sees them.  The first input
 * byte chooses the mode: bit 0 set, the rest follows a valid magic and
 * version, so that the fuzzer works on the counts, the kernel list and the
 * image; clear, the rest is the whole saved program as is.  Bit 1 chooses
 * the language expected.  A refusal must say why and leave nothing
 * behind; what is accepted must lie inside the input (its strings inside
 * the copy the description keeps) and write back to the same bytes.
 */
#include "internal.h"
#include "saved_program.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether `text` is a terminated string inside [start, end). */
static int inside(const char *text, const unsigned char *start,
                  const unsigned char *end)
{
    const unsigned char *p = (const unsigned char *)text;
    return p >= start && p < end && memchr(p, '\0', (size_t)(end - p)) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int wrap = data[0] & 1;
    kiln_language language =
        data[0] & 2 ? KILN_LANGUAGE_CUDA_C : KILN_LANGUAGE_OPENCL_C;
    ++data;
    --size;
    size_t length = wrap ? 12 + size : size;
    /* An exact-size heap copy, so that ASan sees any read past its end. */
    unsigned char *bytes = malloc(length ? length : 1);
    if (bytes == NULL)
        return 0;
    if (wrap) {
        memcpy(bytes, "KILNPROG", 8);
        for (int i = 0; i < 4; ++i)
            bytes[8 + i] =
                (unsigned char)(KILN_SAVED_PROGRAM_VERSION >> (8 * i));
    }
    if (size > 0)
        memcpy(bytes + (wrap ? 12 : 0), data, size);

    kiln_error_clear();
    kiln_saved_program saved;
    kiln_status status =
        kiln_saved_program_read(bytes, length, language, &saved);
    if (status != KILN_OK) {
        if (kiln_last_error()[0] == '\0')
            abort(); /* every refusal explains itself */
        if (saved.kernels != NULL || saved.params != NULL ||
            saved.image != NULL || saved.description.kernels != NULL ||
            saved.description.hidden_storage != NULL)
            abort(); /* and leaves nothing behind */
        free(bytes);
        return 0;
    }
    const unsigned char *end = bytes + length;
    const unsigned char *image = saved.image;
    if (saved.image_size == 0 || image < bytes ||
        image + saved.image_size != end)
        abort();
    /* Every string points into the description's copy of the bytes
     * between the header and the image. */
    const kiln_program_description *description = &saved.description;
    const unsigned char *text =
        (const unsigned char *)description->text_storage;
    const unsigned char *text_end = text + (image - (bytes + 40)); /* header */
    const kiln_backend_program_info *info = &saved.info;
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_entry *kernel = &info->kernels[k];
        if (!inside(kernel->name, text, text_end) || kernel->name[0] == '\0' ||
            (!kernel->params_known && kernel->param_count != 0))
            abort();
        for (size_t p = 0; p < kernel->param_count; ++p)
            if (!inside(kernel->params[p].name, text, text_end) ||
                !inside(kernel->params[p].type_name, text, text_end))
                abort();
    }
    for (size_t k = 0; k < description->kernel_count; ++k) {
        const kiln_kernel_entry *kernel = &description->kernels[k];
        if (!inside(kernel->name, text, text_end) || kernel->name[0] == '\0' ||
            !inside(kernel->native_name, text, text_end))
            abort();
        for (size_t p = 0; p < kernel->param_count; ++p)
            if (!inside(kernel->params[p].name, text, text_end) ||
                !inside(kernel->params[p].type_name, text, text_end))
                abort();
        for (size_t h = 0; h < kernel->hidden_count; ++h)
            if ((kernel->hidden[h].kind == KILN_HIDDEN_VARIABLE &&
                 kernel->hidden[h].variable >= description->variable_count) ||
                (kernel->hidden[h].kind == KILN_HIDDEN_POINTER_OFFSET &&
                 kernel->hidden[h].variable >= kernel->param_count))
                abort();
    }
    for (size_t v = 0; v < description->variable_count; ++v)
        if (!inside(description->variables[v].name, text, text_end))
            abort();
    /* Round trip: what was read writes back to the same bytes. */
    void *again = NULL;
    size_t again_size = 0;
    if (kiln_saved_program_write(language, info, description, saved.image,
                                 saved.image_size, &again,
                                 &again_size) != KILN_OK ||
        again_size != length || memcmp(again, bytes, length) != 0)
        abort();
    free(again);
    kiln_saved_program_free(&saved);
    free(bytes);
    return 0;
}
