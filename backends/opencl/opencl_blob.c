/*
 * The serialized program: the device binary (CL_PROGRAM_BINARIES) and the
 * signature of every kernel, since clGetKernelArgInfo is not available for
 * a program created from a binary on every driver.
 *
 * Layout, all integers little-endian:
 *
 *   header (24 bytes)
 *     char[8]  magic "KILN-OCL"
 *     u32      format version (OPENCL_BLOB_VERSION)
 *     u32      flags, 0
 *     u64      payload size: the blob's size - 24
 *   payload
 *     u64      binary size, then the binary's bytes
 *     u32      kernel count, then for each kernel:
 *       str    name
 *       u32    parameter count, then for each parameter:
 *         u32  kind (kiln_param_kind: BUFFER, LOCAL or VALUE)
 *         u64  size
 *         str  name
 *         str  type name
 *       u32    hidden parameter count (CUDA C), then for each:
 *         u32  kind (cuda_hidden_kind), u32 variable index
 *     u32      variable count (CUDA C), then for each variable:
 *       str    name
 *       u32    flags: 1 __constant__, 2 has an initializer
 *   str = u32 length, then that many bytes (no NUL)
 *
 * The reader trusts nothing: the blob comes from a disk cache that another
 * process, a full disk or a fuzzer may have written.  The cache's checksum
 * over the whole entry keeps a damaged binary away from the driver's
 * loader, which is not written to survive garbage; here every length is
 * checked against what is left.
 */
#include "opencl_private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OPENCL_BLOB_MAGIC "KILN-OCL"
#define OPENCL_BLOB_VERSION 4u /* 3: no checksum (the cache has one);
                                  4: CUDA C's hidden parameters, variables */
#define OPENCL_BLOB_HEADER 24u

/* ---- writing ------------------------------------------------------------- */

typedef struct blob_writer {
    unsigned char *data;    /* NULL: only count the bytes                  */
    size_t position;
} blob_writer;

static void put_bytes(blob_writer *writer, const void *bytes, size_t size)
{
    if (writer->data != NULL && size > 0)
        memcpy(writer->data + writer->position, bytes, size);
    writer->position += size;
}

static void put_u32(blob_writer *writer, uint32_t value)
{
    unsigned char bytes[4];
    for (int i = 0; i < 4; ++i)
        bytes[i] = (unsigned char)(value >> (8 * i));
    put_bytes(writer, bytes, sizeof bytes);
}

static void put_u64(blob_writer *writer, uint64_t value)
{
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i)
        bytes[i] = (unsigned char)(value >> (8 * i));
    put_bytes(writer, bytes, sizeof bytes);
}

static void put_text(blob_writer *writer, const char *text)
{
    size_t length = strlen(text);
    put_u32(writer, (uint32_t)length);
    put_bytes(writer, text, length);
}

static void put_payload(blob_writer *writer, const unsigned char *binary,
                        size_t binary_size, const opencl_signature *kernels,
                        size_t kernel_count, const opencl_variable *variables,
                        size_t variable_count)
{
    put_u64(writer, binary_size);
    put_bytes(writer, binary, binary_size);
    put_u32(writer, (uint32_t)kernel_count);
    for (size_t k = 0; k < kernel_count; ++k) {
        put_text(writer, kernels[k].name);
        put_u32(writer, (uint32_t)kernels[k].param_count);
        for (size_t p = 0; p < kernels[k].param_count; ++p) {
            const kiln_backend_param *param = &kernels[k].params[p];
            put_u32(writer, (uint32_t)param->kind);
            put_u64(writer, param->size);
            put_text(writer, param->name);
            put_text(writer, param->type_name);
        }
        put_u32(writer, (uint32_t)kernels[k].hidden_count);
        for (size_t h = 0; h < kernels[k].hidden_count; ++h) {
            put_u32(writer, (uint32_t)kernels[k].hidden[h].kind);
            put_u32(writer, (uint32_t)kernels[k].hidden[h].variable);
        }
    }
    put_u32(writer, (uint32_t)variable_count);
    for (size_t v = 0; v < variable_count; ++v) {
        put_text(writer, variables[v].name);
        put_u32(writer, (uint32_t)((variables[v].is_constant ? 1u : 0u) |
                                   (variables[v].has_initializer ? 2u : 0u)));
    }
}

kiln_status opencl_blob_write(const unsigned char *binary, size_t binary_size,
                              const opencl_signature *kernels,
                              size_t kernel_count,
                              const opencl_variable *variables,
                              size_t variable_count, void **data, size_t *size)
{
    /* Counts above 2^32 cannot come from a driver; refusing them keeps
     * the u32 fields honest. */
    if (kernel_count > UINT32_MAX || variable_count > UINT32_MAX)
        return opencl_host->error(KILN_ERR_BACKEND,
                                  "opencl: too many kernels to serialize");
    for (size_t k = 0; k < kernel_count; ++k)
        if (kernels[k].param_count > UINT32_MAX)
            return opencl_host->error(KILN_ERR_BACKEND,
                                      "opencl: too many parameters to "
                                      "serialize");
    blob_writer counter = {NULL, 0};
    put_payload(&counter, binary, binary_size, kernels, kernel_count,
                variables, variable_count);
    size_t payload = counter.position;
    unsigned char *bytes = malloc(OPENCL_BLOB_HEADER + payload);
    if (bytes == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory for a %zu-byte "
                                  "program blob",
                                  OPENCL_BLOB_HEADER + payload);
    blob_writer writer = {bytes + OPENCL_BLOB_HEADER, 0};
    put_payload(&writer, binary, binary_size, kernels, kernel_count,
                variables, variable_count);
    blob_writer header = {bytes, 0};
    put_bytes(&header, OPENCL_BLOB_MAGIC, 8);
    put_u32(&header, OPENCL_BLOB_VERSION);
    put_u32(&header, 0);
    put_u64(&header, payload);
    *data = bytes;
    *size = OPENCL_BLOB_HEADER + payload;
    return KILN_OK;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct blob_reader {
    const unsigned char *data;
    size_t size;
    size_t position;
    const char *problem;     /* the first thing found wrong, or NULL        */
} blob_reader;

static size_t left(const blob_reader *reader)
{
    return reader->size - reader->position;
}

static const unsigned char *get_bytes(blob_reader *reader, size_t size,
                                      const char *what)
{
    if (reader->problem != NULL)
        return NULL;
    if (size > left(reader)) {
        reader->problem = what;
        return NULL;
    }
    const unsigned char *bytes = reader->data + reader->position;
    reader->position += size;
    return bytes;
}

static uint64_t get_u64(blob_reader *reader, const char *what)
{
    const unsigned char *bytes = get_bytes(reader, 8, what);
    uint64_t value = 0;
    for (int i = 7; bytes != NULL && i >= 0; --i)
        value = value << 8 | bytes[i];
    return value;
}

static uint32_t get_u32(blob_reader *reader, const char *what)
{
    const unsigned char *bytes = get_bytes(reader, 4, what);
    uint32_t value = 0;
    for (int i = 3; bytes != NULL && i >= 0; --i)
        value = value << 8 | bytes[i];
    return value;
}

/* A malloc'ed copy of a str field; NULL (and a problem) when it is cut
 * short, holds a NUL, or memory runs out. */
static char *get_text(blob_reader *reader, const char *what)
{
    uint32_t length = get_u32(reader, what);
    const unsigned char *bytes = get_bytes(reader, length, what);
    if (bytes == NULL)
        return NULL;
    if (memchr(bytes, '\0', length) != NULL) {
        reader->problem = what;
        return NULL;
    }
    char *text = malloc((size_t)length + 1);
    if (text == NULL) {
        reader->problem = "out of host memory";
        return NULL;
    }
    memcpy(text, bytes, length);
    text[length] = '\0';
    return text;
}

static void kernels_free(opencl_signature *kernels, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        opencl_signature_free(&kernels[i]);
    free(kernels);
}

/* The smallest encodings, to bound counts by the bytes left before
 * allocating for them. */
#define KERNEL_MIN_BYTES 8u  /* empty name, no parameters                 */
#define PARAM_MIN_BYTES 20u  /* kind, size, two empty strings             */

static void get_signature(blob_reader *reader, opencl_signature *signature)
{
    signature->name = get_text(reader, "kernel name");
    if (signature->name != NULL && signature->name[0] == '\0')
        reader->problem = "empty kernel name";
    uint32_t count = get_u32(reader, "parameter count");
    if (reader->problem != NULL)
        return;
    if (count > left(reader) / PARAM_MIN_BYTES) {
        reader->problem = "parameter count";
        return;
    }
    signature->params = calloc(count ? count : 1, sizeof *signature->params);
    if (signature->params == NULL) {
        reader->problem = "out of host memory";
        return;
    }
    for (uint32_t p = 0; p < count && reader->problem == NULL; ++p) {
        kiln_backend_param *param = &signature->params[p];
        signature->param_count = p + 1;
        uint32_t kind = get_u32(reader, "parameter kind");
        uint64_t size = get_u64(reader, "parameter size");
        param->name = get_text(reader, "parameter name");
        param->type_name = get_text(reader, "parameter type");
        if (reader->problem != NULL)
            break;
        if (kind != KILN_PARAM_BUFFER && kind != KILN_PARAM_LOCAL &&
            kind != KILN_PARAM_VALUE)
            reader->problem = "parameter kind";
        else if ((uint64_t)(size_t)size != size)
            reader->problem = "parameter size";
        param->kind = (kiln_param_kind)kind;
        param->size = (size_t)size;
    }
    uint32_t hidden = get_u32(reader, "hidden parameter count");
    if (reader->problem != NULL)
        return;
    if (hidden > left(reader) / 8u) {
        reader->problem = "hidden parameter count";
        return;
    }
    signature->hidden = calloc(hidden ? hidden : 1, sizeof *signature->hidden);
    if (signature->hidden == NULL) {
        reader->problem = "out of host memory";
        return;
    }
    signature->hidden_count = hidden;
    for (uint32_t h = 0; h < hidden && reader->problem == NULL; ++h) {
        uint32_t kind = get_u32(reader, "hidden parameter kind");
        signature->hidden[h].variable = get_u32(reader, "hidden parameter");
        if (kind != CUDA_HIDDEN_DYNAMIC_SHARED && kind != CUDA_HIDDEN_VARIABLE)
            reader->problem = "hidden parameter kind";
        signature->hidden[h].kind = (cuda_hidden_kind)kind;
    }
}

static void variables_free(opencl_variable *variables, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        free(variables[i].name);
    free(variables);
}

kiln_status opencl_blob_read(const void *data, size_t size,
                             const unsigned char **binary, size_t *binary_size,
                             opencl_signature **kernels, size_t *kernel_count,
                             opencl_variable **variables,
                             size_t *variable_count)
{
    blob_reader reader = {data, size, 0, NULL};
    const unsigned char *magic = get_bytes(&reader, 8, "size");
    uint32_t version = get_u32(&reader, "size");
    uint32_t flags = get_u32(&reader, "size");
    uint64_t payload = get_u64(&reader, "size");
    if (reader.problem == NULL && memcmp(magic, OPENCL_BLOB_MAGIC, 8) != 0)
        reader.problem = "magic";
    else if (reader.problem == NULL && version != OPENCL_BLOB_VERSION)
        reader.problem = "format version";
    else if (reader.problem == NULL && flags != 0)
        reader.problem = "flags";
    else if (reader.problem == NULL && payload != left(&reader))
        reader.problem = "payload size";

    uint64_t length = get_u64(&reader, "binary size");
    if (reader.problem == NULL && (length == 0 || length > left(&reader)))
        reader.problem = "binary size";
    const unsigned char *bytes = get_bytes(&reader, (size_t)length, "binary");
    uint32_t count = get_u32(&reader, "kernel count");
    if (reader.problem == NULL && count > left(&reader) / KERNEL_MIN_BYTES)
        reader.problem = "kernel count";
    opencl_signature *list = NULL;
    if (reader.problem == NULL) {
        list = calloc(count ? count : 1, sizeof *list);
        if (list == NULL)
            reader.problem = "out of host memory";
    }
    uint32_t read = 0;
    for (; read < count && reader.problem == NULL; ++read)
        get_signature(&reader, &list[read]);
    uint32_t vcount = get_u32(&reader, "variable count");
    if (reader.problem == NULL && vcount > left(&reader) / 8u)
        reader.problem = "variable count";
    opencl_variable *vlist = NULL;
    if (reader.problem == NULL) {
        vlist = calloc(vcount ? vcount : 1, sizeof *vlist);
        if (vlist == NULL)
            reader.problem = "out of host memory";
    }
    uint32_t vread = 0;
    for (; vread < vcount && reader.problem == NULL; ++vread) {
        vlist[vread].name = get_text(&reader, "variable name");
        uint32_t vflags = get_u32(&reader, "variable flags");
        if (vflags > 3)
            reader.problem = "variable flags";
        vlist[vread].is_constant = (vflags & 1u) != 0;
        vlist[vread].has_initializer = (vflags & 2u) != 0;
    }
    for (uint32_t k = 0; k < read && reader.problem == NULL; ++k)
        for (size_t h = 0; h < list[k].hidden_count; ++h)
            if (list[k].hidden[h].kind == CUDA_HIDDEN_VARIABLE &&
                list[k].hidden[h].variable >= vcount)
                reader.problem = "hidden parameter";
    if (reader.problem == NULL && left(&reader) != 0)
        reader.problem = "trailing bytes";
    if (reader.problem != NULL) {
        kernels_free(list, read);
        variables_free(vlist, vread);
        if (strcmp(reader.problem, "out of host memory") == 0)
            return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                      "opencl: out of host memory reading a "
                                      "%zu-byte program blob",
                                      size);
        return opencl_host->error(KILN_ERR_INVALID_ARGUMENT,
                                  "opencl: not a program blob of this plugin "
                                  "(bad %s, %zu bytes)",
                                  reader.problem, size);
    }
    *binary = bytes;
    *binary_size = (size_t)length;
    *kernels = list;
    *kernel_count = count;
    *variables = vlist;
    *variable_count = vcount;
    return KILN_OK;
}
