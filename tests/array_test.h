/*
 * What the array tests share: arrays from random host data, reading them
 * back, and NumPy's broadcasting done the slow way on the CPU (the
 * reference the generated kernels are checked against).
 */
#ifndef KILN_ARRAY_TEST_H
#define KILN_ARRAY_TEST_H

#include "harness.h"
#include "kiln_array.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An array of random values in [low, high) (integers: their floor; bool:
 * whether they are in the upper half), with its host copy in double
 * (*values, malloc'ed). */
static inline kiln_array *array_test_random(kiln_context *context,
                                            kiln_dtype dtype, size_t ndim,
                                            const size_t *shape, double low,
                                            double high, double **values)
{
    size_t n = 1;
    for (size_t d = 0; d < ndim; ++d)
        n *= shape[d];
    double *v = test_alloc((n ? n : 1) * sizeof *v);
    size_t bytes = n * kiln_dtype_size(dtype);
    void *host = test_alloc(bytes ? bytes : 1);
    for (size_t i = 0; i < n; ++i) {
        double x = low + (high - low) * (double)(test_random_u64() >> 11) *
                             0x1.0p-53;
        switch (dtype) {
        case KILN_DTYPE_FLOAT32:
            ((float *)host)[i] = (float)x;
            v[i] = (float)x;
            break;
        case KILN_DTYPE_FLOAT64:
            ((double *)host)[i] = x;
            v[i] = x;
            break;
        case KILN_DTYPE_INT8:
            v[i] = ((int8_t *)host)[i] = (int8_t)floor(x);
            break;
        case KILN_DTYPE_UINT8:
            v[i] = ((uint8_t *)host)[i] = (uint8_t)floor(x);
            break;
        case KILN_DTYPE_INT16:
            v[i] = ((int16_t *)host)[i] = (int16_t)floor(x);
            break;
        case KILN_DTYPE_UINT16:
            v[i] = ((uint16_t *)host)[i] = (uint16_t)floor(x);
            break;
        case KILN_DTYPE_INT32:
            v[i] = ((int32_t *)host)[i] = (int32_t)floor(x);
            break;
        case KILN_DTYPE_UINT32:
            v[i] = ((uint32_t *)host)[i] = (uint32_t)floor(x);
            break;
        case KILN_DTYPE_INT64:
            v[i] = (double)(((int64_t *)host)[i] = (int64_t)floor(x));
            break;
        case KILN_DTYPE_UINT64:
            v[i] = (double)(((uint64_t *)host)[i] = (uint64_t)floor(x));
            break;
        case KILN_DTYPE_BOOL: /* true where x is at least the middle */
            v[i] = ((uint8_t *)host)[i] = x >= (low + high) / 2;
            break;
        }
    }
    kiln_array *array = NULL;
    TEST_OK(kiln_array_from_host(context, dtype, ndim, shape, host, bytes,
                                 NULL, &array));
    free(host);
    *values = v;
    return array;
}

/* The array's elements as doubles (malloc'ed); checks its dtype. */
static inline double *array_test_read(const kiln_array *array,
                                      kiln_dtype expected_dtype)
{
    kiln_dtype dtype;
    size_t n;
    TEST_OK(kiln_array_get_dtype(array, &dtype));
    if (dtype != expected_dtype)
        fail_msg("dtype %s, expected %s", kiln_dtype_name(dtype),
                 kiln_dtype_name(expected_dtype));
    TEST_OK(kiln_array_get_size(array, &n));
    size_t bytes = n * kiln_dtype_size(dtype);
    void *host = test_alloc(bytes ? bytes : 1);
    TEST_OK(kiln_array_to_host(array, host, bytes, NULL));
    double *v = test_alloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; ++i)
        switch (dtype) {
        case KILN_DTYPE_INT8: v[i] = ((int8_t *)host)[i]; break;
        case KILN_DTYPE_UINT8: v[i] = ((uint8_t *)host)[i]; break;
        case KILN_DTYPE_INT16: v[i] = ((int16_t *)host)[i]; break;
        case KILN_DTYPE_UINT16: v[i] = ((uint16_t *)host)[i]; break;
        case KILN_DTYPE_INT32: v[i] = ((int32_t *)host)[i]; break;
        case KILN_DTYPE_UINT32: v[i] = ((uint32_t *)host)[i]; break;
        case KILN_DTYPE_INT64: v[i] = (double)((int64_t *)host)[i]; break;
        case KILN_DTYPE_UINT64: v[i] = (double)((uint64_t *)host)[i]; break;
        case KILN_DTYPE_FLOAT32: v[i] = ((float *)host)[i]; break;
        case KILN_DTYPE_FLOAT64: v[i] = ((double *)host)[i]; break;
        case KILN_DTYPE_BOOL: v[i] = ((uint8_t *)host)[i]; break;
        }
    free(host);
    return v;
}

/* Asserts the array's shape. */
static inline void array_test_shape(const kiln_array *array, size_t ndim,
                                    const size_t *shape)
{
    size_t got_ndim = 99, got[KILN_ARRAY_MAX_DIMS];
    TEST_OK(kiln_array_get_shape(array, &got_ndim, got));
    assert_int_equal(got_ndim, ndim);
    for (size_t d = 0; d < ndim; ++d)
        if (got[d] != shape[d])
            fail_msg("axis %zu has size %zu, expected %zu", d, got[d],
                     shape[d]);
}

/* Compares with |a - e| <= tolerance * max(1, |e|); NaN equals NaN. */
static inline void array_test_near(const double *actual,
                                   const double *expected, size_t n,
                                   double tolerance, const char *what)
{
    for (size_t i = 0; i < n; ++i) {
        if (isnan(actual[i]) && isnan(expected[i]))
            continue;
        double scale = fabs(expected[i]) > 1 ? fabs(expected[i]) : 1;
        if (!(fabs(actual[i] - expected[i]) <= tolerance * scale))
            fail_msg("%s: element %zu is %.17g, expected %.17g", what, i,
                     actual[i], expected[i]);
    }
}

/* For output index `flat` of a broadcast of an operand of `ndim` axes
 * (sizes `shape`) against the result shape (rank `out_ndim`): the
 * operand's flat index. */
static inline size_t array_test_broadcast_index(size_t flat, size_t out_ndim,
                                                const size_t *out_shape,
                                                size_t ndim,
                                                const size_t *shape)
{
    size_t coordinates[KILN_ARRAY_MAX_DIMS];
    for (size_t d = out_ndim; d-- > 0;) {
        coordinates[d] = flat % out_shape[d];
        flat /= out_shape[d];
    }
    size_t index = 0;
    for (size_t d = 0; d < ndim; ++d) {
        size_t c = coordinates[out_ndim - ndim + d];
        index = index * shape[d] + (shape[d] == 1 ? 0 : c);
    }
    return index;
}

#endif
