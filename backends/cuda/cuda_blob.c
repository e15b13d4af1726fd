/*
 * A compiled program in memory (cuda_binary), and the blob the kernel
 * cache keeps for it: everything program_load needs to recreate a program
 * without compiling, in a layout of our own that describes itself.  All
 * numbers are little-endian, whatever the host:
 *
 *   offset  size  field
 *   0       8     magic "KILNCUBN"
 *   8       4     format version (CUDA_BLOB_VERSION)
 *   12      4     language: 0 OpenCL C, 1 CUDA C
 *   16      4     image kind: 1 CUBIN, 2 PTX (NUL-terminated)
 *   20      4     architecture the image is for (90: sm_90 / compute_90)
 *   24      8     image size in bytes
 *   32      4     kernel count (OpenCL C signatures; 0 for CUDA C)
 *   36      4     reserved, 0
 *   40      ...   the image
 *   then each kernel:
 *           2     name length (1..127), then the name (no NUL)
 *           4x3   reqd_work_group_size
 *           4     parameter count, then each parameter:
 *                   4  kind (clc_param_kind)
 *                   8  size in bytes
 *                   2  name length (0..63), then the name
 *                   2  type name length (0..95), then the type name
 *
 * The kernel cache checksums the whole entry holding the blob.  The parser
 * still trusts nothing: it checks every
 * length against the bytes that remain before reading or allocating, so
 * truncated, padded, corrupted or hostile input is refused without reading
 * past the end and without large allocations.  It calls no CUDA function,
 * so it can be fuzzed on any machine.
 */
#include "cuda_compile.h"

#include <stdlib.h>
#include <string.h>

#define CUDA_BLOB_MAGIC "KILNCUBN"
#define CUDA_BLOB_HEADER_SIZE 40
#define CUDA_BLOB_IMAGE_CUBIN 1
#define CUDA_BLOB_IMAGE_PTX 2
/* Far above any real program, far below what could exhaust memory. */
#define CUDA_BLOB_MAX_KERNELS 65536u
#define CUDA_BLOB_MAX_PARAMS 32768u
/* Smallest encodings, to bound counts by the bytes that remain. */
#define CUDA_BLOB_MIN_KERNEL_BYTES (2 + 1 + 12 + 4)
#define CUDA_BLOB_MIN_PARAM_BYTES (4 + 8 + 2 + 2)

/* ---- the binary in memory ------------------------------------------------------ */

void cuda_signatures_free(clc_kernel_signature *kernels, size_t count)
{
    if (kernels == NULL)
        return;
    for (size_t i = 0; i < count; ++i)
        free(kernels[i].params);
    free(kernels);
}

clc_kernel_signature *cuda_signatures_copy(const clc_kernel_signature *kernels,
                                           size_t count)
{
    clc_kernel_signature *copy = calloc(count ? count : 1, sizeof *copy);
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i < count; ++i) {
        copy[i] = kernels[i];
        copy[i].params = NULL;
        size_t params = kernels[i].param_count;
        copy[i].params = calloc(params ? params : 1, sizeof *copy[i].params);
        if (copy[i].params == NULL) {
            cuda_signatures_free(copy, i);
            return NULL;
        }
        if (params > 0)
            memcpy(copy[i].params, kernels[i].params,
                   params * sizeof *copy[i].params);
        /* Fixed-size strings from outside: keep them terminated. */
        copy[i].name[sizeof copy[i].name - 1] = '\0';
        for (size_t j = 0; j < params; ++j) {
            clc_param *param = &copy[i].params[j];
            param->name[sizeof param->name - 1] = '\0';
            param->type_name[sizeof param->type_name - 1] = '\0';
        }
    }
    return copy;
}

void cuda_binary_free(cuda_binary *binary)
{
    free(binary->image);
    cuda_signatures_free(binary->kernels, binary->kernel_count);
    memset(binary, 0, sizeof *binary);
}

/* ---- writing ------------------------------------------------------------------ */

typedef struct cuda_blob_writer {
    unsigned char *data;
    size_t length;
    size_t capacity;
} cuda_blob_writer;

static void cuda_blob_put_bytes(cuda_blob_writer *writer, const void *bytes,
                                size_t size)
{
    /* The capacity was computed exactly before writing. */
    memcpy(writer->data + writer->length, bytes, size);
    writer->length += size;
}

static void cuda_blob_put_uint(cuda_blob_writer *writer, uint64_t value,
                               size_t size)
{
    unsigned char bytes[8];
    for (size_t i = 0; i < size; ++i)
        bytes[i] = (unsigned char)(value >> (8 * i));
    cuda_blob_put_bytes(writer, bytes, size);
}

static void cuda_blob_put_string(cuda_blob_writer *writer, const char *text,
                                 size_t length)
{
    cuda_blob_put_uint(writer, length, 2);
    cuda_blob_put_bytes(writer, text, length);
}

kiln_status cuda_binary_serialize(const kiln_host_api *host,
                                  const cuda_binary *binary, void **data,
                                  size_t *size)
{
    if (binary->kernel_count > CUDA_BLOB_MAX_KERNELS)
        return host->error(KILN_ERR_UNSUPPORTED,
                           "a program of %zu kernels is too large to cache",
                           binary->kernel_count);
    size_t total = CUDA_BLOB_HEADER_SIZE + binary->image_size;
    for (size_t k = 0; k < binary->kernel_count; ++k) {
        const clc_kernel_signature *kernel = &binary->kernels[k];
        if (kernel->param_count > CUDA_BLOB_MAX_PARAMS)
            return host->error(KILN_ERR_UNSUPPORTED,
                               "kernel '%s' has too many parameters to cache",
                               kernel->name);
        total += 2 + strnlen(kernel->name, sizeof kernel->name - 1) + 12 + 4;
        for (size_t p = 0; p < kernel->param_count; ++p) {
            const clc_param *param = &kernel->params[p];
            total += 4 + 8 + 2 + strnlen(param->name, sizeof param->name - 1) +
                     2 + strnlen(param->type_name, sizeof param->type_name - 1);
        }
    }
    cuda_blob_writer writer = {malloc(total), 0, total};
    if (writer.data == NULL)
        return host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                           "out of host memory (a %zu-byte program blob)",
                           total);
    cuda_blob_put_bytes(&writer, CUDA_BLOB_MAGIC, 8);
    cuda_blob_put_uint(&writer, CUDA_BLOB_VERSION, 4);
    cuda_blob_put_uint(&writer, binary->language == KILN_LANGUAGE_CUDA_C, 4);
    cuda_blob_put_uint(&writer,
                       binary->is_ptx ? CUDA_BLOB_IMAGE_PTX
                                      : CUDA_BLOB_IMAGE_CUBIN,
                       4);
    cuda_blob_put_uint(&writer, (uint64_t)binary->sm, 4);
    cuda_blob_put_uint(&writer, binary->image_size, 8);
    cuda_blob_put_uint(&writer, binary->kernel_count, 4);
    cuda_blob_put_uint(&writer, 0, 4);
    cuda_blob_put_bytes(&writer, binary->image, binary->image_size);
    for (size_t k = 0; k < binary->kernel_count; ++k) {
        const clc_kernel_signature *kernel = &binary->kernels[k];
        cuda_blob_put_string(&writer, kernel->name,
                             strnlen(kernel->name, sizeof kernel->name - 1));
        for (int i = 0; i < 3; ++i)
            cuda_blob_put_uint(&writer, kernel->reqd_work_group[i], 4);
        cuda_blob_put_uint(&writer, kernel->param_count, 4);
        for (size_t p = 0; p < kernel->param_count; ++p) {
            const clc_param *param = &kernel->params[p];
            cuda_blob_put_uint(&writer, (uint64_t)param->kind, 4);
            cuda_blob_put_uint(&writer, param->size, 8);
            cuda_blob_put_string(&writer, param->name,
                                 strnlen(param->name, sizeof param->name - 1));
            cuda_blob_put_string(
                &writer, param->type_name,
                strnlen(param->type_name, sizeof param->type_name - 1));
        }
    }
    *data = writer.data;
    *size = writer.length;
    return KILN_OK;
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct cuda_blob_reader {
    const unsigned char *data;
    size_t remaining;
    int failed;
} cuda_blob_reader;

static const unsigned char *cuda_blob_take(cuda_blob_reader *reader,
                                           size_t size)
{
    if (reader->failed || size > reader->remaining) {
        reader->failed = 1;
        return NULL;
    }
    const unsigned char *bytes = reader->data;
    reader->data += size;
    reader->remaining -= size;
    return bytes;
}

static uint64_t cuda_blob_get_uint(cuda_blob_reader *reader, size_t size)
{
    const unsigned char *bytes = cuda_blob_take(reader, size);
    uint64_t value = 0;
    for (size_t i = 0; bytes != NULL && i < size; ++i)
        value |= (uint64_t)bytes[i] << (8 * i);
    return value;
}

/* Reads a length-prefixed string into `out` (capacity bytes, terminated);
 * fails on an empty one when `required`, on one that does not fit, and on
 * an embedded NUL. */
static void cuda_blob_get_string(cuda_blob_reader *reader, char *out,
                                 size_t capacity, int required)
{
    size_t length = (size_t)cuda_blob_get_uint(reader, 2);
    if (reader->failed || length >= capacity || (required && length == 0)) {
        reader->failed = 1;
        return;
    }
    const unsigned char *bytes = cuda_blob_take(reader, length);
    if (bytes == NULL || memchr(bytes, '\0', length) != NULL) {
        reader->failed = 1;
        return;
    }
    memcpy(out, bytes, length);
    out[length] = '\0';
}

static int cuda_blob_read_kernel(cuda_blob_reader *reader,
                                 clc_kernel_signature *kernel)
{
    cuda_blob_get_string(reader, kernel->name, sizeof kernel->name, 1);
    for (int i = 0; i < 3; ++i)
        kernel->reqd_work_group[i] = (unsigned)cuda_blob_get_uint(reader, 4);
    uint64_t count = cuda_blob_get_uint(reader, 4);
    if (reader->failed || count > CUDA_BLOB_MAX_PARAMS ||
        count > reader->remaining / CUDA_BLOB_MIN_PARAM_BYTES)
        return -1;
    kernel->params = calloc(count ? (size_t)count : 1, sizeof *kernel->params);
    if (kernel->params == NULL)
        return -2;
    kernel->param_count = (size_t)count;
    for (size_t p = 0; p < kernel->param_count; ++p) {
        clc_param *param = &kernel->params[p];
        uint64_t kind = cuda_blob_get_uint(reader, 4);
        if (kind < CLC_PARAM_GLOBAL || kind > CLC_PARAM_VALUE)
            reader->failed = 1;
        param->kind = (clc_param_kind)kind;
        uint64_t size = cuda_blob_get_uint(reader, 8);
        /* No kernel parameter is larger than the 32 KiB parameter space. */
        if (size > 32768)
            reader->failed = 1;
        param->size = (size_t)size;
        cuda_blob_get_string(reader, param->name, sizeof param->name, 0);
        cuda_blob_get_string(reader, param->type_name, sizeof param->type_name,
                             0);
        if (reader->failed)
            return -1;
    }
    return reader->failed ? -1 : 0;
}

kiln_status cuda_binary_parse(const kiln_host_api *host, const void *data,
                              size_t size, cuda_binary *binary)
{
    memset(binary, 0, sizeof *binary);
    const unsigned char *bytes = data;
    if (data == NULL ||
        size < CUDA_BLOB_HEADER_SIZE ||
        memcmp(bytes, CUDA_BLOB_MAGIC, 8) != 0)
        return host->error(KILN_ERR_INVALID_ARGUMENT,
                           "not a program blob of the CUDA backend");
    cuda_blob_reader reader = {bytes + 8, size - 8, 0};
    uint64_t version = cuda_blob_get_uint(&reader, 4);
    uint64_t language = cuda_blob_get_uint(&reader, 4);
    uint64_t kind = cuda_blob_get_uint(&reader, 4);
    uint64_t sm = cuda_blob_get_uint(&reader, 4);
    uint64_t image_size = cuda_blob_get_uint(&reader, 8);
    uint64_t kernel_count = cuda_blob_get_uint(&reader, 4);
    uint64_t reserved = cuda_blob_get_uint(&reader, 4);
    if (version != CUDA_BLOB_VERSION)
        return host->error(KILN_ERR_INVALID_ARGUMENT,
                           "CUDA program blob of format %llu; this backend "
                           "reads format %d",
                           (unsigned long long)version, CUDA_BLOB_VERSION);
    if (reader.failed || language > 1 ||
        (kind != CUDA_BLOB_IMAGE_CUBIN && kind != CUDA_BLOB_IMAGE_PTX) ||
        sm < 10 || sm > 10000 || reserved != 0 || image_size == 0 ||
        image_size > reader.remaining || kernel_count > CUDA_BLOB_MAX_KERNELS)
        return host->error(KILN_ERR_INVALID_ARGUMENT,
                           "CUDA program blob: malformed header");

    const unsigned char *image = cuda_blob_take(&reader, (size_t)image_size);
    /* Only well-formed images reach the driver: a CUBIN is an ELF file,
     * PTX is text ending in its NUL. */
    if (image == NULL ||
        (kind == CUDA_BLOB_IMAGE_CUBIN &&
         (image_size < 4 || memcmp(image, "\177ELF", 4) != 0)) ||
        (kind == CUDA_BLOB_IMAGE_PTX && image[image_size - 1] != '\0') ||
        kernel_count > reader.remaining / CUDA_BLOB_MIN_KERNEL_BYTES)
        return host->error(KILN_ERR_INVALID_ARGUMENT,
                           "CUDA program blob: malformed image");

    binary->language =
        language == 1 ? KILN_LANGUAGE_CUDA_C : KILN_LANGUAGE_OPENCL_C;
    binary->is_ptx = kind == CUDA_BLOB_IMAGE_PTX;
    binary->sm = (int)sm;
    binary->image = malloc((size_t)image_size);
    binary->kernels = calloc(kernel_count ? (size_t)kernel_count : 1,
                             sizeof *binary->kernels);
    if (binary->image == NULL || binary->kernels == NULL) {
        cuda_binary_free(binary);
        return host->error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    memcpy(binary->image, image, (size_t)image_size);
    binary->image_size = (size_t)image_size;

    int result = 0;
    for (size_t k = 0; k < (size_t)kernel_count && result == 0; ++k) {
        /* Counted before reading so that a failure frees what was read. */
        binary->kernel_count = k + 1;
        result = cuda_blob_read_kernel(&reader, &binary->kernels[k]);
    }
    if (result == 0 && reader.remaining != 0)
        result = -1; /* bytes nobody accounts for */
    if (result != 0) {
        cuda_binary_free(binary);
        return result == -2
                   ? host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                 "out of host memory")
                   : host->error(KILN_ERR_INVALID_ARGUMENT,
                                 "CUDA program blob: malformed kernel list");
    }
    return KILN_OK;
}
