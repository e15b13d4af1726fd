/*
 * Fuzz target: both translation passes (OpenCL C -> CUDA, CUDA C ->
 * OpenCL C), and the checked mode's instrumentation of the OpenCL C an
 * OpenCL device compiles (the bytes as they are, and the translation).  Any input: it may reject, it must never crash, hang or leak,
 * and a rejection must say why.
 */
#include "cuda_to_opencl.h"
#include "translate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* KILN_CHECK=bounds: 0 with a text, 1 (left as it is) or -2, never a
 * crash. */
static void instrument(const char *text, size_t length)
{
    char *out = NULL;
    size_t out_length = 0;
    int result = translate_bounds_instrument(text, length, &out, &out_length);
    if (result == 0 && (out == NULL || out_length == 0))
        abort();
    if (result != 0 && result != 1 && result != -2)
        abort();
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const translate_define defines[] = {{"N", "4"},
                                                  {"TYPE", "float"}};
    static const translate_options options = {.defines = defines, .define_count = 2};
    opencl_to_cuda_result translation;
    int result = opencl_to_cuda_translate((const char *)data, size, "fuzz.cl", &options,
                               &translation);
    if (result == 0 && translation.source == NULL)
        abort();
    if (result == -1 && (translation.error == NULL || translation.error[0] == 0))
        abort();
    opencl_to_cuda_result_free(&translation);
    /* the other direction, CUDA C -> OpenCL C, on the same bytes */
    cuda_to_opencl_result cuda;
    result = cuda_to_opencl_translate((const char *)data, size, "fuzz.cu", &options,
                            &cuda);
    if (result == 0 && cuda.source == NULL)
        abort();
    if (result == -1 && (cuda.error == NULL || cuda.error[0] == 0))
        abort();
    instrument((const char *)data, size);
    if (result == 0)
        instrument(cuda.source, strlen(cuda.source));
    cuda_to_opencl_result_free(&cuda);
    return 0;
}
