/*
 * The saved-program format, the one the disk cache keeps for every
 * backend.  All integers little-endian, whatever the host:
 *
 *   offset  size  field
 *   0       8     magic "KILNPROG"
 *   8       4     format version (KILN_SAVED_PROGRAM_VERSION)
 *   12      4     language: 0 OpenCL C, 1 CUDA C
 *   16      4     kernel count
 *   20      4     variable count
 *   24      8     image size
 *   32      ...   the kernels, each:
 *                   str   name (not empty)
 *                   u32   flags: 1 the parameters are known
 *                   u32x3 required block (reqd_work_group_size), 0 0 0: none
 *                   u32   parameter count, then each parameter:
 *                           u32 kind (kiln_param_kind), u64 size,
 *                           str name, str type name
 *                   u32   hidden parameter count, then each:
 *                           u32 kind (kiln_backend_hidden_kind),
 *                           u32 variable (< variable count; for a
 *                               pointer offset, < parameter count; 0 for
 *                               shared)
 *                 the variables, each:
 *                   str   name (not empty)
 *                   u32   flags: 1 __constant__, 2 has an initializer
 *                 the vendor image, to the last byte
 *   str = u32 length counting a terminating NUL (at least 1), the bytes,
 *         the NUL; no NUL inside.
 *
 * The cache's checksum over the whole entry keeps damaged images away
 * from the vendor's loader.  The reader still trusts nothing: a first
 * pass checks every field against the bytes that remain and counts what
 * to allocate; the second fills exactly that.  Strings are terminated in
 * the bytes themselves, so the result points into them.
 */
#include "internal.h"
#include "saved_program.h"

#include <stdlib.h>
#include <string.h>

#define SAVED_MAGIC "KILNPROG"
#define SAVED_HEADER_BYTES 32u
#define FLAG_PARAMS_KNOWN 1u
#define VARIABLE_CONSTANT 1u
#define VARIABLE_INITIALIZED 2u
/* Far past any device's parameter space (CUDA's is 32 KiB). */
#define PARAM_MAX_SIZE ((uint64_t)1 << 20)
/* Smallest encodings, which bound the counts by the bytes that remain. */
#define STR_MIN_BYTES 5u
#define KERNEL_MIN_BYTES (STR_MIN_BYTES + 4u + 12u + 4u + 4u)
#define PARAM_MIN_BYTES (4u + 8u + 2u * STR_MIN_BYTES)
#define HIDDEN_BYTES 8u
#define VARIABLE_MIN_BYTES (STR_MIN_BYTES + 4u)

/* ---- writing ------------------------------------------------------------- */

typedef struct saved_writer {
    unsigned char *data;    /* NULL: only count the bytes                  */
    size_t position;
} saved_writer;

static void put_bytes(saved_writer *writer, const void *bytes, size_t size)
{
    if (writer->data != NULL && size > 0)
        memcpy(writer->data + writer->position, bytes, size);
    writer->position += size;
}

static void put_uint(saved_writer *writer, uint64_t value, size_t size)
{
    unsigned char bytes[8];
    for (size_t i = 0; i < size; ++i)
        bytes[i] = (unsigned char)(value >> (8 * i));
    put_bytes(writer, bytes, size);
}

static void put_text(saved_writer *writer, const char *text)
{
    size_t length = strlen(text) + 1;
    put_uint(writer, length, 4);
    put_bytes(writer, text, length);
}

static void put_program(saved_writer *writer, kiln_language language,
                        const kiln_backend_program_info *info,
                        const void *image, size_t image_size)
{
    put_bytes(writer, SAVED_MAGIC, 8);
    put_uint(writer, KILN_SAVED_PROGRAM_VERSION, 4);
    put_uint(writer, language == KILN_LANGUAGE_CUDA_C, 4);
    put_uint(writer, info->kernel_count, 4);
    put_uint(writer, info->variable_count, 4);
    put_uint(writer, image_size, 8);
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_signature *kernel = &info->kernels[k];
        put_text(writer, kernel->name);
        put_uint(writer, kernel->params_known ? FLAG_PARAMS_KNOWN : 0u, 4);
        for (int i = 0; i < 3; ++i)
            put_uint(writer, kernel->required_block[i], 4);
        size_t params = kernel->params_known ? kernel->param_count : 0;
        put_uint(writer, params, 4);
        for (size_t p = 0; p < params; ++p) {
            const kiln_backend_param *param = &kernel->params[p];
            put_uint(writer, (uint64_t)param->kind, 4);
            put_uint(writer, param->size, 8);
            put_text(writer, param->name != NULL ? param->name : "");
            put_text(writer, param->type_name != NULL ? param->type_name : "");
        }
        put_uint(writer, kernel->hidden_count, 4);
        for (size_t h = 0; h < kernel->hidden_count; ++h) {
            const kiln_backend_hidden_param *hidden = &kernel->hidden[h];
            put_uint(writer, (uint64_t)hidden->kind, 4);
            put_uint(writer,
                     hidden->kind != KILN_BACKEND_HIDDEN_DYNAMIC_SHARED
                         ? hidden->variable
                         : 0,
                     4);
        }
    }
    for (size_t v = 0; v < info->variable_count; ++v) {
        const kiln_backend_variable *variable = &info->variables[v];
        put_text(writer, variable->name);
        put_uint(writer,
                 (variable->is_constant ? VARIABLE_CONSTANT : 0u) |
                     (variable->has_initializer ? VARIABLE_INITIALIZED : 0u),
                 4);
    }
    put_bytes(writer, image, image_size);
}

/* What the reader would refuse, refused before writing: a plugin's info
 * that cannot come back is a program not worth saving. */
static const char *unsavable(const kiln_backend_program_info *info,
                             size_t image_size)
{
    if (image_size == 0)
        return "an empty image";
    if (info->kernel_count > UINT32_MAX || info->variable_count > UINT32_MAX ||
        (info->kernel_count > 0 && info->kernels == NULL) ||
        (info->variable_count > 0 && info->variables == NULL))
        return "a bad kernel or variable list";
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_signature *kernel = &info->kernels[k];
        if (kernel->name == NULL || kernel->name[0] == '\0')
            return "a kernel without a name";
        if ((kernel->params_known &&
             (kernel->param_count > UINT32_MAX ||
              (kernel->param_count > 0 && kernel->params == NULL))) ||
            kernel->hidden_count > UINT32_MAX ||
            (kernel->hidden_count > 0 && kernel->hidden == NULL))
            return "a bad parameter list";
        for (int i = 0; i < 3; ++i)
            if (kernel->required_block[i] > UINT32_MAX)
                return "a required block past 2^32";
        for (size_t p = 0; kernel->params_known && p < kernel->param_count;
             ++p) {
            kiln_param_kind kind = kernel->params[p].kind;
            if (kind < KILN_PARAM_BUFFER || kind > KILN_PARAM_POINTER_OR_VALUE)
                return "a parameter of an unknown kind";
            if (kernel->params[p].size > PARAM_MAX_SIZE)
                return "a parameter past 1 MiB";
        }
        for (size_t h = 0; h < kernel->hidden_count; ++h) {
            const kiln_backend_hidden_param *hidden = &kernel->hidden[h];
            if (hidden->kind == KILN_BACKEND_HIDDEN_VARIABLE
                    ? hidden->variable >= info->variable_count
                : hidden->kind == KILN_BACKEND_HIDDEN_POINTER_OFFSET
                    ? hidden->variable >= kernel->param_count
                    : hidden->kind != KILN_BACKEND_HIDDEN_DYNAMIC_SHARED)
                return "a hidden parameter out of range";
        }
    }
    for (size_t v = 0; v < info->variable_count; ++v)
        if (info->variables[v].name == NULL ||
            info->variables[v].name[0] == '\0')
            return "a variable without a name";
    return NULL;
}

kiln_status kiln_saved_program_write(kiln_language language,
                                     const kiln_backend_program_info *info,
                                     const void *image, size_t image_size,
                                     void **data, size_t *size)
{
    const char *problem = unsavable(info, image_size);
    if (problem != NULL)
        return kiln_error(KILN_ERR_BACKEND,
                          "the plugin describes its program with %s: not "
                          "saved",
                          problem);
    saved_writer counter = {NULL, 0};
    put_program(&counter, language, info, image, image_size);
    saved_writer writer = {malloc(counter.position), 0};
    if (writer.data == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "out of host memory for a %zu-byte saved program",
                          counter.position);
    put_program(&writer, language, info, image, image_size);
    *data = writer.data;
    *size = writer.position;
    return KILN_OK;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct saved_reader {
    const unsigned char *data;
    size_t remaining;
    const char *problem;     /* the first field found wrong, or NULL        */
} saved_reader;

static const unsigned char *take(saved_reader *reader, size_t size,
                                 const char *what)
{
    if (reader->problem != NULL)
        return NULL;
    if (size > reader->remaining) {
        reader->problem = what;
        return NULL;
    }
    const unsigned char *bytes = reader->data;
    reader->data += size;
    reader->remaining -= size;
    return bytes;
}

static uint64_t get_uint(saved_reader *reader, size_t size, const char *what)
{
    const unsigned char *bytes = take(reader, size, what);
    uint64_t value = 0;
    for (size_t i = 0; bytes != NULL && i < size; ++i)
        value |= (uint64_t)bytes[i] << (8 * i);
    return value;
}

/* A str field, pointing into the bytes; "" (and a problem) when bad. */
static const char *get_text(saved_reader *reader, int required,
                            const char *what)
{
    uint64_t length = get_uint(reader, 4, what);
    if (reader->problem == NULL && (length == 0 || length > reader->remaining))
        reader->problem = what;
    const unsigned char *bytes = take(reader, (size_t)length, what);
    if (bytes == NULL)
        return "";
    if (memchr(bytes, '\0', (size_t)length) != bytes + length - 1 ||
        (required && length == 1)) {
        reader->problem = what;
        return "";
    }
    return (const char *)bytes;
}

/* A count that the bytes left can hold at `unit` bytes each. */
static size_t get_count(saved_reader *reader, size_t unit, const char *what)
{
    uint64_t count = get_uint(reader, 4, what);
    if (reader->problem == NULL && count > reader->remaining / unit)
        reader->problem = what;
    return reader->problem == NULL ? (size_t)count : 0;
}

/* One pass over the body.  Without storage in `saved` (the first pass) it
 * only checks and counts parameters and hidden parameters; with it, it
 * fills.  Both passes read the same bytes the same way. */
static void read_body(saved_reader *reader, size_t kernel_count,
                      size_t variable_count, kiln_saved_program *saved,
                      size_t *param_total, size_t *hidden_total)
{
    int fill = saved->kernels != NULL;
    size_t params_used = 0, hidden_used = 0;
    for (size_t k = 0; k < kernel_count && reader->problem == NULL; ++k) {
        kiln_backend_kernel_signature kernel;
        memset(&kernel, 0, sizeof kernel);
        kernel.name = get_text(reader, 1, "kernel name");
        uint64_t flags = get_uint(reader, 4, "kernel flags");
        if (flags > FLAG_PARAMS_KNOWN)
            reader->problem = "kernel flags";
        kernel.params_known = (flags & FLAG_PARAMS_KNOWN) != 0;
        for (int i = 0; i < 3; ++i)
            kernel.required_block[i] =
                (size_t)get_uint(reader, 4, "required block");
        kernel.param_count = get_count(reader, PARAM_MIN_BYTES,
                                       "parameter count");
        if (!kernel.params_known && kernel.param_count != 0)
            reader->problem = "parameter count";
        kernel.params = fill ? saved->params + params_used : NULL;
        for (size_t p = 0; p < kernel.param_count && reader->problem == NULL;
             ++p) {
            uint64_t kind = get_uint(reader, 4, "parameter kind");
            uint64_t size = get_uint(reader, 8, "parameter size");
            const char *name = get_text(reader, 0, "parameter name");
            const char *type = get_text(reader, 0, "parameter type");
            if (kind < KILN_PARAM_BUFFER || kind > KILN_PARAM_POINTER_OR_VALUE)
                reader->problem = "parameter kind";
            if (size > PARAM_MAX_SIZE)
                reader->problem = "parameter size";
            if (fill && reader->problem == NULL) {
                kiln_backend_param *param = &saved->params[params_used + p];
                param->kind = (kiln_param_kind)kind;
                param->size = (size_t)size;
                param->name = name;
                param->type_name = type;
            }
        }
        params_used += kernel.param_count;
        kernel.hidden_count = get_count(reader, HIDDEN_BYTES,
                                        "hidden parameter count");
        kernel.hidden = fill ? saved->hidden + hidden_used : NULL;
        for (size_t h = 0; h < kernel.hidden_count && reader->problem == NULL;
             ++h) {
            uint64_t kind = get_uint(reader, 4, "hidden parameter kind");
            uint64_t variable = get_uint(reader, 4, "hidden parameter");
            if (kind == KILN_BACKEND_HIDDEN_VARIABLE
                    ? variable >= variable_count
                : kind == KILN_BACKEND_HIDDEN_POINTER_OFFSET
                    ? variable >= kernel.param_count
                    : kind != KILN_BACKEND_HIDDEN_DYNAMIC_SHARED ||
                          variable != 0)
                reader->problem = "hidden parameter";
            if (fill && reader->problem == NULL) {
                kiln_backend_hidden_param *hidden =
                    &saved->hidden[hidden_used + h];
                hidden->kind = (kiln_backend_hidden_kind)kind;
                hidden->variable = (size_t)variable;
            }
        }
        hidden_used += kernel.hidden_count;
        if (fill && reader->problem == NULL)
            saved->kernels[k] = kernel;
    }
    for (size_t v = 0; v < variable_count && reader->problem == NULL; ++v) {
        const char *name = get_text(reader, 1, "variable name");
        uint64_t flags = get_uint(reader, 4, "variable flags");
        if (flags > (VARIABLE_CONSTANT | VARIABLE_INITIALIZED))
            reader->problem = "variable flags";
        if (fill && reader->problem == NULL) {
            saved->variables[v].name = name;
            saved->variables[v].is_constant = (flags & VARIABLE_CONSTANT) != 0;
            saved->variables[v].has_initializer =
                (flags & VARIABLE_INITIALIZED) != 0;
        }
    }
    *param_total = params_used;
    *hidden_total = hidden_used;
}

void kiln_saved_program_free(kiln_saved_program *saved)
{
    free(saved->kernels);
    free(saved->params);
    free(saved->hidden);
    free(saved->variables);
    memset(saved, 0, sizeof *saved);
}

kiln_status kiln_saved_program_read(const void *data, size_t size,
                                    kiln_language language,
                                    kiln_saved_program *saved)
{
    memset(saved, 0, sizeof *saved);
    saved_reader reader = {data, data != NULL ? size : 0, NULL};
    const unsigned char *magic = take(&reader, 8, "size");
    uint64_t version = get_uint(&reader, 4, "size");
    uint64_t saved_language = get_uint(&reader, 4, "size");
    uint64_t kernel_count = get_uint(&reader, 4, "size");
    uint64_t variable_count = get_uint(&reader, 4, "size");
    uint64_t image_size = get_uint(&reader, 8, "size");
    if (reader.problem == NULL && memcmp(magic, SAVED_MAGIC, 8) != 0)
        reader.problem = "magic";
    else if (reader.problem == NULL && version != KILN_SAVED_PROGRAM_VERSION)
        reader.problem = "format version";
    else if (reader.problem == NULL &&
             saved_language != (language == KILN_LANGUAGE_CUDA_C))
        reader.problem = "language";
    else if (reader.problem == NULL &&
             (image_size == 0 || image_size > reader.remaining))
        reader.problem = "image size";
    /* The image is the tail: the body is what precedes it. */
    size_t body_size = reader.problem == NULL
                           ? reader.remaining - (size_t)image_size
                           : 0;
    if (reader.problem == NULL &&
        (kernel_count > body_size / KERNEL_MIN_BYTES ||
         variable_count > body_size / VARIABLE_MIN_BYTES))
        reader.problem = "kernel or variable count";
    if (reader.problem != NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "saved program: bad %s (%zu bytes)",
                          reader.problem, size);

    saved_reader body = {reader.data, body_size, NULL};
    size_t param_total = 0, hidden_total = 0;
    read_body(&body, (size_t)kernel_count, (size_t)variable_count, saved,
              &param_total, &hidden_total);
    if (body.problem == NULL && body.remaining != 0)
        body.problem = "length of the kernel list";
    if (body.problem != NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "saved program: bad %s (%zu bytes)", body.problem,
                          size);

    saved->kernels = calloc(kernel_count ? (size_t)kernel_count : 1,
                            sizeof *saved->kernels);
    saved->params = calloc(param_total ? param_total : 1,
                           sizeof *saved->params);
    saved->hidden = calloc(hidden_total ? hidden_total : 1,
                           sizeof *saved->hidden);
    saved->variables = calloc(variable_count ? (size_t)variable_count : 1,
                              sizeof *saved->variables);
    if (saved->kernels == NULL || saved->params == NULL ||
        saved->hidden == NULL || saved->variables == NULL) {
        kiln_saved_program_free(saved);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "out of host memory reading a %zu-byte saved "
                          "program",
                          size);
    }
    body = (saved_reader){reader.data, body_size, NULL};
    read_body(&body, (size_t)kernel_count, (size_t)variable_count, saved,
              &param_total, &hidden_total);
    saved->language = language;
    saved->info.kernel_count = (size_t)kernel_count;
    saved->info.kernels = saved->kernels;
    saved->info.variable_count = (size_t)variable_count;
    saved->info.variables = saved->variables;
    saved->image = reader.data + body_size;
    saved->image_size = (size_t)image_size;
    return KILN_OK;
}
