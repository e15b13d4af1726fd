/*
 * The saved-program format, the one the disk cache keeps for every
 * backend.  All integers little-endian, whatever the host:
 *
 *   offset  size  field
 *   0       8     magic "KILNPROG"
 *   8       4     format version (KILN_SAVED_PROGRAM_VERSION)
 *   12      4     language: 0 OpenCL C, 1 CUDA C
 *   16      4     the description's origin (kiln_description_origin) | 4
 *                 when LOCAL parameters are offsets
 *   20      4     the plugin's kernel count
 *   24      4     the description's kernel count
 *   28      4     variable count
 *   32      8     image size
 *   40      ...   the plugin's kernels (program_kernels), each:
 *                   str   name (not empty)
 *                   u32   flags: 1 the parameters are known
 *                   u32x3 required block (reqd_work_group_size), 0 0 0: none
 *                   u32   parameter count, then each parameter (param)
 *                 the description's kernels, each:
 *                   str   name, str native name (neither empty)
 *                   u32   flags (1 the parameters are known, 2 refused),
 *                         u32x3 required block, u32 parameter count and
 *                         the parameters, as above
 *                   u32   hidden argument count, then each:
 *                           u32 kind (kiln_hidden_kind),
 *                           u32 variable (< variable count; for a
 *                               pointer offset, < parameter count; 0 for
 *                               others)
 *                   str   the refusal (not empty), when flags say 2
 *                 the variables, each:
 *                   str   name (not empty)
 *                   u32   flags: 1 __constant__, 2 has an initializer
 *                 the vendor image, to the last byte
 *   param = u32 kind (kiln_param_kind), u32 space, u32 scalar,
 *           u32 scalar bytes, u32 vector length, u64 size, str name,
 *           str type name
 *   str = u32 length counting a terminating NUL (at least 1), the bytes,
 *         the NUL; no NUL inside.
 *
 * The cache's checksum over the whole entry keeps damaged images away
 * from the vendor's loader.  The reader still trusts nothing: a first
 * pass checks every field against the bytes that remain and counts what
 * to allocate; the second fills exactly that, from a copy of the bytes
 * that the strings point into (the description keeps it).
 */
#include "internal.h"
#include "saved_program.h"

#include <stdlib.h>
#include <string.h>

#define SAVED_MAGIC "KILNPROG"
#define SAVED_HEADER_BYTES 40u
#define FLAG_PARAMS_KNOWN 1u
#define FLAG_REFUSED 2u /* a description's kernel the translation refused */
#define ORIGIN_MASK 3u
#define ORIGIN_LOCAL_OFFSETS 4u
#define VARIABLE_CONSTANT 1u
#define VARIABLE_INITIALIZED 2u
/* Far past any device's parameter space (CUDA's is 32 KiB). */
#define PARAM_MAX_SIZE ((uint64_t)1 << 20)
/* Smallest encodings, which bound the counts by the bytes that remain. */
#define STR_MIN_BYTES 5u
#define KERNEL_MIN_BYTES (STR_MIN_BYTES + 4u + 12u + 4u)
#define PARAM_MIN_BYTES (5u * 4u + 8u + 2u * STR_MIN_BYTES)
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

static void put_params(saved_writer *writer, const kiln_backend_param *params,
                       size_t count)
{
    put_uint(writer, count, 4);
    for (size_t p = 0; p < count; ++p) {
        const kiln_backend_param *param = &params[p];
        put_uint(writer, (uint64_t)param->kind, 4);
        put_uint(writer, (uint64_t)param->space, 4);
        put_uint(writer, (uint64_t)param->scalar, 4);
        put_uint(writer, param->scalar_bytes, 4);
        put_uint(writer, param->vector_length, 4);
        put_uint(writer, param->size, 8);
        put_text(writer, param->name != NULL ? param->name : "");
        put_text(writer, param->type_name != NULL ? param->type_name : "");
    }
}

static void put_program(saved_writer *writer, kiln_language language,
                        const kiln_backend_program_info *info,
                        const kiln_program_description *description,
                        const void *image, size_t image_size)
{
    put_bytes(writer, SAVED_MAGIC, 8);
    put_uint(writer, KILN_SAVED_PROGRAM_VERSION, 4);
    put_uint(writer, language == KILN_LANGUAGE_CUDA_C, 4);
    put_uint(writer,
             (uint64_t)description->origin |
                 (description->local_offsets ? ORIGIN_LOCAL_OFFSETS : 0u),
             4);
    put_uint(writer, info->kernel_count, 4);
    put_uint(writer, description->kernel_count, 4);
    put_uint(writer, description->variable_count, 4);
    put_uint(writer, image_size, 8);
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_entry *kernel = &info->kernels[k];
        put_text(writer, kernel->name);
        put_uint(writer, kernel->params_known ? FLAG_PARAMS_KNOWN : 0u, 4);
        for (int i = 0; i < 3; ++i)
            put_uint(writer, kernel->required_block[i], 4);
        put_params(writer, kernel->params,
                   kernel->params_known ? kernel->param_count : 0);
    }
    for (size_t k = 0; k < description->kernel_count; ++k) {
        const kiln_kernel_entry *kernel = &description->kernels[k];
        put_text(writer, kernel->name);
        put_text(writer, kernel->native_name);
        put_uint(writer,
                 (kernel->params_known ? FLAG_PARAMS_KNOWN : 0u) |
                     (kernel->refusal != NULL ? FLAG_REFUSED : 0u),
                 4);
        for (int i = 0; i < 3; ++i)
            put_uint(writer, kernel->required_block[i], 4);
        put_params(writer, kernel->params,
                   kernel->params_known ? kernel->param_count : 0);
        put_uint(writer, kernel->hidden_count, 4);
        for (size_t h = 0; h < kernel->hidden_count; ++h) {
            put_uint(writer, (uint64_t)kernel->hidden[h].kind, 4);
            put_uint(writer,
                     kernel->hidden[h].kind == KILN_HIDDEN_VARIABLE ||
                             kernel->hidden[h].kind ==
                                 KILN_HIDDEN_POINTER_OFFSET
                         ? kernel->hidden[h].variable
                         : 0,
                     4);
        }
        if (kernel->refusal != NULL)
            put_text(writer, kernel->refusal);
    }
    for (size_t v = 0; v < description->variable_count; ++v) {
        const kiln_variable_entry *variable = &description->variables[v];
        put_text(writer, variable->name);
        put_uint(writer,
                 (variable->is_constant ? VARIABLE_CONSTANT : 0u) |
                     (variable->has_initializer ? VARIABLE_INITIALIZED : 0u),
                 4);
    }
    put_bytes(writer, image, image_size);
}

/* A parameter list the reader would refuse. */
static const char *params_unsavable(const kiln_backend_param *params,
                                    size_t count)
{
    if (count > UINT32_MAX || (count > 0 && params == NULL))
        return "a bad parameter list";
    for (size_t p = 0; p < count; ++p) {
        kiln_param_kind kind = params[p].kind;
        if (kind < KILN_PARAM_BUFFER || kind > KILN_PARAM_POINTER_OR_VALUE)
            return "a parameter of an unknown kind";
        if (params[p].size > PARAM_MAX_SIZE)
            return "a parameter past 1 MiB";
        if ((unsigned)params[p].space > KILN_BACKEND_SPACE_UNKNOWN ||
            (unsigned)params[p].scalar > KILN_BACKEND_SCALAR_BOOL)
            return "a parameter of an unknown type";
    }
    return NULL;
}

/* What the reader would refuse, refused before writing: a description
 * that cannot come back is a program not worth saving. */
static const char *unsavable(const kiln_backend_program_info *info,
                             const kiln_program_description *description,
                             size_t image_size)
{
    if (image_size == 0)
        return "an empty image";
    if (info->kernel_count > UINT32_MAX ||
        description->kernel_count > UINT32_MAX ||
        description->variable_count > UINT32_MAX ||
        (info->kernel_count > 0 && info->kernels == NULL))
        return "a bad kernel or variable list";
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_entry *kernel = &info->kernels[k];
        if (kernel->name == NULL || kernel->name[0] == '\0')
            return "a kernel without a name";
        for (int i = 0; i < 3; ++i)
            if (kernel->required_block[i] > UINT32_MAX)
                return "a required block past 2^32";
        const char *problem =
            kernel->params_known
                ? params_unsavable(kernel->params, kernel->param_count)
                : NULL;
        if (problem != NULL)
            return problem;
    }
    for (size_t k = 0; k < description->kernel_count; ++k) {
        const kiln_kernel_entry *kernel = &description->kernels[k];
        if (kernel->hidden_count > UINT32_MAX)
            return "a bad hidden argument list";
        for (int i = 0; i < 3; ++i)
            if (kernel->required_block[i] > UINT32_MAX)
                return "a required block past 2^32";
        const char *problem = params_unsavable(kernel->params,
                                               kernel->param_count);
        if (problem != NULL)
            return problem;
    }
    return NULL;
}

kiln_status kiln_saved_program_write(kiln_language language,
                                     const kiln_backend_program_info *info,
                                     const kiln_program_description *description,
                                     const void *image, size_t image_size,
                                     void **data, size_t *size)
{
    static const kiln_backend_program_info no_info = {.struct_size =
                                                          sizeof no_info};
    if (info == NULL)
        info = &no_info;
    const char *problem = unsavable(info, description, image_size);
    if (problem != NULL)
        return kiln_error(KILN_ERR_BACKEND,
                          "the program is described with %s: not saved",
                          problem);
    saved_writer counter = {NULL, 0};
    put_program(&counter, language, info, description, image, image_size);
    saved_writer writer = {malloc(counter.position), 0};
    if (writer.data == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "out of host memory for a %zu-byte saved program",
                          counter.position);
    put_program(&writer, language, info, description, image, image_size);
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

/* A parameter list into `out` (NULL: only checked and counted). */
static size_t get_params(saved_reader *reader, int known,
                         kiln_backend_param *out)
{
    size_t count = get_count(reader, PARAM_MIN_BYTES, "parameter count");
    if (!known && count != 0)
        reader->problem = "parameter count";
    for (size_t p = 0; p < count && reader->problem == NULL; ++p) {
        uint64_t kind = get_uint(reader, 4, "parameter kind");
        uint64_t space = get_uint(reader, 4, "parameter space");
        uint64_t scalar = get_uint(reader, 4, "parameter scalar");
        uint64_t bytes = get_uint(reader, 4, "parameter scalar bytes");
        uint64_t lanes = get_uint(reader, 4, "parameter vector length");
        uint64_t size = get_uint(reader, 8, "parameter size");
        const char *name = get_text(reader, 0, "parameter name");
        const char *type = get_text(reader, 0, "parameter type");
        if (kind < KILN_PARAM_BUFFER || kind > KILN_PARAM_POINTER_OR_VALUE)
            reader->problem = "parameter kind";
        if (space > KILN_BACKEND_SPACE_UNKNOWN ||
            scalar > KILN_BACKEND_SCALAR_BOOL || bytes > 8 || lanes > 16)
            reader->problem = "parameter type";
        if (size > PARAM_MAX_SIZE)
            reader->problem = "parameter size";
        if (out != NULL && reader->problem == NULL)
            out[p] = (kiln_backend_param){
                (kiln_param_kind)kind,   (kiln_backend_space)space,
                (kiln_backend_scalar)scalar, (uint32_t)bytes,
                (uint32_t)lanes,         (size_t)size,
                name,                    type};
    }
    return count;
}

static void get_required(saved_reader *reader, size_t *required)
{
    for (int i = 0; i < 3; ++i)
        required[i] = (size_t)get_uint(reader, 4, "required block");
}

/* Counts the first pass makes, and the storage the second fills. */
typedef struct saved_counts {
    size_t backend_kernels, kernels, variables;
    size_t backend_params, params, hidden;
} saved_counts;

/* One pass over the body.  Without storage (`saved` NULL: the first pass)
 * it only checks and counts; with it, it fills.  Both passes read the same
 * bytes the same way. */
static void read_body(saved_reader *reader, saved_counts *counts,
                      kiln_saved_program *saved)
{
    kiln_program_description *description =
        saved != NULL ? &saved->description : NULL;
    size_t backend_params = 0, params = 0, hidden = 0;
    for (size_t k = 0;
         k < counts->backend_kernels && reader->problem == NULL; ++k) {
        kiln_backend_kernel_entry kernel;
        memset(&kernel, 0, sizeof kernel);
        kernel.name = get_text(reader, 1, "kernel name");
        uint64_t flags = get_uint(reader, 4, "kernel flags");
        if (flags > FLAG_PARAMS_KNOWN)
            reader->problem = "kernel flags";
        kernel.params_known = (flags & FLAG_PARAMS_KNOWN) != 0;
        get_required(reader, kernel.required_block);
        kernel.params = saved ? saved->params + backend_params : NULL;
        kernel.param_count =
            get_params(reader, kernel.params_known,
                       saved ? saved->params + backend_params : NULL);
        backend_params += kernel.param_count;
        if (saved != NULL && reader->problem == NULL)
            saved->kernels[k] = kernel;
    }
    for (size_t k = 0; k < counts->kernels && reader->problem == NULL; ++k) {
        kiln_kernel_entry kernel;
        memset(&kernel, 0, sizeof kernel);
        kernel.name = get_text(reader, 1, "kernel name");
        kernel.native_name = get_text(reader, 1, "kernel native name");
        uint64_t flags = get_uint(reader, 4, "kernel flags");
        if (flags > (FLAG_PARAMS_KNOWN | FLAG_REFUSED))
            reader->problem = "kernel flags";
        kernel.params_known = (flags & FLAG_PARAMS_KNOWN) != 0;
        get_required(reader, kernel.required_block);
        kiln_backend_param *to =
            description ? description->param_storage + params : NULL;
        kernel.params = to;
        kernel.param_count = get_params(reader, kernel.params_known, to);
        params += kernel.param_count;
        kernel.hidden_count = get_count(reader, HIDDEN_BYTES,
                                        "hidden argument count");
        kernel.hidden = description ? description->hidden_storage + hidden
                                    : NULL;
        for (size_t h = 0; h < kernel.hidden_count && reader->problem == NULL;
             ++h) {
            uint64_t kind = get_uint(reader, 4, "hidden argument kind");
            uint64_t variable = get_uint(reader, 4, "hidden argument");
            if (kind == KILN_HIDDEN_VARIABLE
                    ? variable >= counts->variables
                : kind == KILN_HIDDEN_POINTER_OFFSET
                    ? variable >= kernel.param_count
                    : (kind != KILN_HIDDEN_DYNAMIC_LOCAL &&
                       kind != KILN_HIDDEN_WORK_DIM) ||
                          variable != 0)
                reader->problem = "hidden argument";
            if (description != NULL && reader->problem == NULL)
                kernel.hidden[h] = (kiln_hidden_arg){(kiln_hidden_kind)kind,
                                                     (size_t)variable};
        }
        hidden += kernel.hidden_count;
        if (flags & FLAG_REFUSED)
            kernel.refusal = get_text(reader, 1, "kernel refusal");
        if (description != NULL && reader->problem == NULL)
            description->kernels[k] = kernel;
    }
    for (size_t v = 0; v < counts->variables && reader->problem == NULL; ++v) {
        const char *name = get_text(reader, 1, "variable name");
        uint64_t flags = get_uint(reader, 4, "variable flags");
        if (flags > (VARIABLE_CONSTANT | VARIABLE_INITIALIZED))
            reader->problem = "variable flags";
        if (description != NULL && reader->problem == NULL)
            description->variables[v] = (kiln_variable_entry){
                name, (flags & VARIABLE_CONSTANT) != 0,
                (flags & VARIABLE_INITIALIZED) != 0};
    }
    counts->backend_params = backend_params;
    counts->params = params;
    counts->hidden = hidden;
}

void kiln_saved_program_free(kiln_saved_program *saved)
{
    free(saved->kernels);
    free(saved->params);
    kiln_description_free(&saved->description);
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
    uint64_t origin = get_uint(&reader, 4, "size");
    saved_counts counts = {0};
    counts.backend_kernels = (size_t)get_uint(&reader, 4, "size");
    counts.kernels = (size_t)get_uint(&reader, 4, "size");
    counts.variables = (size_t)get_uint(&reader, 4, "size");
    uint64_t image_size = get_uint(&reader, 8, "size");
    if (reader.problem == NULL && memcmp(magic, SAVED_MAGIC, 8) != 0)
        reader.problem = "magic";
    else if (reader.problem == NULL && version != KILN_SAVED_PROGRAM_VERSION)
        reader.problem = "format version";
    else if (reader.problem == NULL &&
             saved_language != (language == KILN_LANGUAGE_CUDA_C))
        reader.problem = "language";
    else if (reader.problem == NULL &&
             ((origin & ORIGIN_MASK) > KILN_DESCRIBED_BY_READING ||
              origin > (ORIGIN_MASK | ORIGIN_LOCAL_OFFSETS)))
        reader.problem = "origin";
    else if (reader.problem == NULL &&
             (image_size == 0 || image_size > reader.remaining))
        reader.problem = "image size";
    /* The image is the tail: the body is what precedes it. */
    size_t body_size = reader.problem == NULL
                           ? reader.remaining - (size_t)image_size
                           : 0;
    if (reader.problem == NULL &&
        (counts.backend_kernels > body_size / KERNEL_MIN_BYTES ||
         counts.kernels > body_size / KERNEL_MIN_BYTES ||
         counts.variables > body_size / VARIABLE_MIN_BYTES))
        reader.problem = "kernel or variable count";
    if (reader.problem != NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "saved program: bad %s (%zu bytes)",
                          reader.problem, size);

    saved_reader body = {reader.data, body_size, NULL};
    read_body(&body, &counts, NULL);
    if (body.problem == NULL && body.remaining != 0)
        body.problem = "length of the kernel list";
    if (body.problem != NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "saved program: bad %s (%zu bytes)", body.problem,
                          size);

    kiln_program_description *description = &saved->description;
    saved->kernels = calloc(counts.backend_kernels ? counts.backend_kernels
                                                   : 1,
                            sizeof *saved->kernels);
    saved->params = calloc(counts.backend_params ? counts.backend_params : 1,
                           sizeof *saved->params);
    description->kernels = calloc(counts.kernels ? counts.kernels : 1,
                                  sizeof *description->kernels);
    description->variables = calloc(counts.variables ? counts.variables : 1,
                                    sizeof *description->variables);
    description->param_storage = calloc(counts.params ? counts.params : 1,
                                        sizeof *description->param_storage);
    description->hidden_storage = calloc(counts.hidden ? counts.hidden : 1,
                                         sizeof *description->hidden_storage);
    /* The strings point into this copy, which the description keeps. */
    description->text_storage = malloc(body_size ? body_size : 1);
    if (saved->kernels == NULL || saved->params == NULL ||
        description->kernels == NULL || description->variables == NULL ||
        description->param_storage == NULL ||
        description->hidden_storage == NULL ||
        description->text_storage == NULL) {
        kiln_saved_program_free(saved);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "out of host memory reading a %zu-byte saved "
                          "program",
                          size);
    }
    memcpy(description->text_storage, reader.data, body_size);
    body = (saved_reader){(const unsigned char *)description->text_storage,
                          body_size, NULL};
    read_body(&body, &counts, saved);
    description->origin = (kiln_description_origin)(origin & ORIGIN_MASK);
    description->local_offsets = (origin & ORIGIN_LOCAL_OFFSETS) != 0;
    description->kernel_count = counts.kernels;
    description->variable_count = counts.variables;
    saved->language = language;
    saved->info.struct_size = sizeof saved->info;
    saved->info.kernel_count = counts.backend_kernels;
    saved->info.kernels = saved->kernels;
    saved->image = reader.data + body_size;
    saved->image_size = (size_t)image_size;
    return KILN_OK;
}
