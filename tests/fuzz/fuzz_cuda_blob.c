/*
 * Fuzz target: the CUDA backend's program blob (cuda_binary_parse), the
 * bytes the kernel cache hands back to the plugin.  cuda_blob.c calls no
 * CUDA function, so this runs without the toolkit.  The first input byte
 * chooses the mode: odd, the rest follows the magic, so that the fuzzer
 * exercises the header and kernel list parser; even, the rest is the whole
 * blob as is.  A blob that parses must serialize back to the same bytes.
 */
#include "cuda_compile.h"
#include "fuzz_host.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int wrap = data[0] & 1;
    ++data;
    --size;
    size_t blob_size = wrap ? 8 + size : size;
    /* An exact-size heap copy, so that ASan sees any read past its end. */
    unsigned char *blob = malloc(blob_size ? blob_size : 1);
    if (blob == NULL)
        return 0;
    if (wrap) {
        memcpy(blob, "KILNCUBN", 8);
        if (size > 0)
            memcpy(blob + 8, data, size);
    } else if (size > 0) {
        memcpy(blob, data, size);
    }

    cuda_binary binary;
    last_error[0] = '\0';
    kiln_status status = cuda_binary_parse(&fuzz_host, blob, blob_size,
                                           &binary);
    if (status != KILN_OK) {
        if (last_error[0] == '\0')
            abort(); /* every refusal explains itself */
        /* A refused blob leaves nothing behind. */
        if (binary.image != NULL || binary.kernels != NULL)
            abort();
        free(blob);
        return 0;
    }
    if (binary.image == NULL || binary.image_size == 0 ||
        (binary.kernel_count > 0 && binary.kernels == NULL))
        abort();
    for (size_t k = 0; k < binary.kernel_count; ++k) {
        const clc_kernel_signature *kernel = &binary.kernels[k];
        if (kernel->name[0] == '\0' ||
            memchr(kernel->name, '\0', sizeof kernel->name) == NULL)
            abort();
        for (size_t p = 0; p < kernel->param_count; ++p)
            if (memchr(kernel->params[p].name, '\0',
                       sizeof kernel->params[p].name) == NULL ||
                memchr(kernel->params[p].type_name, '\0',
                       sizeof kernel->params[p].type_name) == NULL)
                abort();
    }
    /* Round trip: what was parsed serializes back to the same bytes. */
    void *again = NULL;
    size_t again_size = 0;
    if (cuda_binary_serialize(&fuzz_host, &binary, &again, &again_size) !=
        KILN_OK)
        abort();
    if (again_size != blob_size || memcmp(again, blob, blob_size) != 0)
        abort();
    free(again);
    cuda_binary_free(&binary);
    free(blob);
    return 0;
}
