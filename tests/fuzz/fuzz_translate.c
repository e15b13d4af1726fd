/*
 * Fuzz target: the OpenCL C -> CUDA translation pass.  Any input: it may
 * reject, it must never crash, hang or leak, and a rejection must say why.
 */
#include "translate.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clc_translation translation;
    int result = clc_translate((const char *)data, size, "fuzz.cl",
                               "-DN=4 -DTYPE=float", &translation);
    if (result == 0 && translation.source == NULL)
        abort();
    if (result == -1 && (translation.error == NULL || translation.error[0] == 0))
        abort();
    clc_translation_free(&translation);
    return 0;
}
