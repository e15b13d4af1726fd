/*
 * Fuzz target: the OpenCL backend's program blob (opencl_blob_read), the
 * bytes the kernel cache hands back to the plugin.  The first input byte
 * chooses the mode: odd, the rest is the payload and a valid header (magic,
 * version, size) is put in front of it, so that the fuzzer gets past the
 * header and exercises the field parser; even, the rest is the
 * whole blob as is.  A blob that is read must lie within the input, and
 * writing it back (opencl_blob_write) must give the same bytes.  The type
 * names it carries also go through opencl_type_size.
 */
#include "opencl_private.h"
#include "fuzz_host.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const kiln_host_api *opencl_host = &fuzz_host;

static void put_le(unsigned char *out, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out[i] = (unsigned char)(value >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int wrap = data[0] & 1;
    ++data;
    --size;
    size_t blob_size = wrap ? size + 24 : size;
    /* An exact-size heap copy, so that ASan sees any read past its end. */
    unsigned char *blob = malloc(blob_size ? blob_size : 1);
    if (blob == NULL)
        return 0;
    if (wrap) {
        memcpy(blob, "KILN-OCL", 8);
        put_le(blob + 8, 3, 4);
        put_le(blob + 12, 0, 4);
        put_le(blob + 16, size, 8);
        if (size > 0)
            memcpy(blob + 24, data, size);
    } else if (size > 0) {
        memcpy(blob, data, size);
    }

    const unsigned char *binary = NULL;
    size_t binary_size = 0;
    opencl_signature *kernels = NULL;
    size_t kernel_count = 0;
    opencl_variable *variables = NULL;
    size_t variable_count = 0;
    last_error[0] = '\0';
    kiln_status status = opencl_blob_read(blob, blob_size, &binary,
                                          &binary_size, &kernels,
                                          &kernel_count, &variables,
                                          &variable_count);
    if (status != KILN_OK) {
        if (last_error[0] == '\0')
            abort(); /* every refusal explains itself */
        free(blob);
        return 0;
    }
    if (binary == NULL || binary_size == 0 || binary < blob ||
        binary_size > blob_size || binary > blob + (blob_size - binary_size))
        abort();
    if (kernel_count > 0 && kernels == NULL)
        abort();
    for (size_t k = 0; k < kernel_count; ++k) {
        if (kernels[k].name == NULL || kernels[k].name[0] == '\0')
            abort();
        for (size_t p = 0; p < kernels[k].param_count; ++p) {
            const kiln_backend_param *param = &kernels[k].params[p];
            if (param->name == NULL || param->type_name == NULL)
                abort();
            (void)opencl_type_size(param->type_name, 64);
            (void)opencl_type_size(param->type_name, 32);
        }
    }
    /* Round trip: what was read writes back to the same bytes. */
    void *again = NULL;
    size_t again_size = 0;
    if (opencl_blob_write(binary, binary_size, kernels, kernel_count,
                          variables, variable_count, &again,
                          &again_size) != KILN_OK)
        abort();
    if (again_size != blob_size || memcmp(again, blob, blob_size) != 0)
        abort();
    free(again);
    for (size_t k = 0; k < kernel_count; ++k)
        opencl_signature_free(&kernels[k]);
    free(kernels);
    for (size_t v = 0; v < variable_count; ++v)
        free(variables[v].name);
    free(variables);
    free(blob);
    return 0;
}
