/*
 * Fuzz target: the strings a generator takes (kiln_elementwise_create,
 * kiln_reduction_create, kiln_scan_create: types, expressions, argument
 * lists, a preamble).  The input is up to six strings separated by NUL
 * bytes.  What array_generator_texts_check accepts, put together as a
 * generator puts it together, must never make the preprocessor read a
 * file or leave a directive to the compiler: the reader aborts when it is
 * asked for anything, and nothing may be left (translate_left), whether
 * the text is only expanded (OpenCL) or macro-expanded too (CUDA).  What
 * it refuses must say why.
 */
#include "../../array/internal.h"
#include "translate.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int no_file(void *context, const char *name, int quoted,
                   const char *includer, char **path, char **text,
                   size_t *length, char **error)
{
    (void)context, (void)name, (void)quoted, (void)includer, (void)path;
    (void)text, (void)length, (void)error;
    abort(); /* a generator string reached the file system */
}

/* Appends `text` (NULL: nothing) to the growing source. */
static void append(char **source, size_t *length, const char *text)
{
    if (text == NULL)
        return;
    size_t more = strlen(text);
    char *grown = realloc(*source, *length + more + 1);
    if (grown == NULL)
        abort();
    memcpy(grown + *length, text, more + 1);
    *source = grown;
    *length += more;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* type, neutral, expression, second expression, arguments, preamble */
    char *texts[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    size_t start = 0;
    for (int k = 0; k < 6 && start <= size; ++k) {
        const uint8_t *end = memchr(data + start, 0, size - start);
        size_t length = end ? (size_t)(end - (data + start)) : size - start;
        texts[k] = malloc(length + 1);
        if (texts[k] == NULL)
            abort();
        memcpy(texts[k], data + start, length);
        texts[k][length] = '\0';
        start += length + 1;
    }
    static const char *const fields[] = {"type", "neutral", "expression",
                                         "second expression", "arguments"};
    const char *const code[] = {texts[0], texts[1], texts[2], texts[3],
                                texts[4]};
    kiln_status status = array_generator_texts_check(
        "kiln_fuzz_create", fields, code, 5, texts[5]);
    if (status != KILN_OK) {
        if (status != KILN_ERR_INVALID_ARGUMENT ||
            strstr(kiln_last_error(), "generator strings") == NULL)
            abort(); /* every refusal says why */
    } else {
        /* As the generators put them together: the preamble first, the
         * strings inside a kernel. */
        char *source = NULL;
        size_t length = 0;
        append(&source, &length, texts[5]);
        append(&source, &length, "\n__kernel void g(");
        append(&source, &length, texts[4]);
        append(&source, &length, ") {\n    ");
        append(&source, &length, texts[0]);
        append(&source, &length, " a = ");
        append(&source, &length, texts[1]);
        append(&source, &length, ", b = a;\n    a = ");
        append(&source, &length, texts[2]);
        append(&source, &length, ";\n    b = ");
        append(&source, &length, texts[3]);
        append(&source, &length, ";\n}\n");
        translate_include_reader reader = {no_file, NULL};
        for (int translated = 0; translated < 2; ++translated) {
            translate_target target = {
                .language = translated ? TRANSLATE_CUDA_C : TRANSLATE_OPENCL_C,
                .opencl_c_version = 120,
                .extensions = "",
                .vendor = ""};
            translate_input input = {.text = source,
                                     .length = length,
                                     .name = "<generated>",
                                     .language = TRANSLATE_OPENCL_C,
                                     .reader = &reader,
                                     .target = &target};
            translate_unit *unit = NULL;
            translate_error error;
            if (translate_open(&input, &unit, &error) == 0) {
                if (translate_left(unit) != NULL)
                    abort(); /* a directive left to the compiler */
                translate_close(unit);
            }
            translate_error_free(&error);
        }
        free(source);
    }
    for (int k = 0; k < 6; ++k)
        free(texts[k]);
    return 0;
}
