/* The vendors' matrix-product libraries, opened at run time (blas.c). */
#ifndef KILN_ARRAY_BLAS_H
#define KILN_ARRAY_BLAS_H

#include "internal.h"

typedef enum blas_library {
    BLAS_GENERATED = 0,
    BLAS_CUBLAS,
    BLAS_CLBLAST
} blas_library;

/* The library matmul uses on `context`. */
ARRAY_INTERNAL blas_library blas_library_for(kiln_context *context);
ARRAY_INTERNAL const char *blas_library_name(blas_library library);
/* c = a b for row-major contiguous (m, k) and (k, n) arrays of `dtype`
 * (float32 or float64), on `stream`, through `library`. */
ARRAY_INTERNAL kiln_status blas_gemm(blas_library library,
                                     kiln_context *context, kiln_dtype dtype,
                                     size_t m, size_t n, size_t k,
                                     const kiln_array *a, const kiln_array *b,
                                     kiln_array *c, kiln_stream *stream);

#endif
