/*
 * Fuzz target: both translation passes (OpenCL C -> CUDA, CUDA C ->
 * OpenCL C).  Any input: it may reject, it must never crash, hang or leak,
 * and a rejection must say why.
 */
#include "cuda_to_opencl.h"
#include "translate.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    cuda_to_opencl_result_free(&cuda);
    return 0;
}
