/*
 * Buffer views (kiln_buffer_create_view) through the array layer: the
 * generators' pointer arguments, results and outputs at offsets OpenCL
 * sub-buffers cannot start at (PyCUDA's a_gpu[1:] and `red(a_gpu[i],
 * out=max_gpu[i])`), elementwise launches over a range with a step
 * (ElementwiseKernel's slice=), and arrays over existing memory
 * (kiln_array_from_buffer: GPUArray(shape, dtype, gpudata=...)).  Each is
 * checked against the CPU on random inputs on every backend.
 */
#include "config.h"

#include "harness.h"
#include "kiln_array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kiln_buffer *view_of(kiln_buffer *buffer, size_t offset, size_t size)
{
    kiln_buffer *view = NULL;
    TEST_OK(kiln_buffer_create_view(buffer, offset, size, &view));
    return view;
}

/* y = a x + y with x and y views 1 and 3 floats into their buffers. */
static void elementwise_on_views_at_any_offset(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 5000 };
    float *x = test_temp_alloc(N * sizeof *x), *y = test_temp_alloc(N * sizeof *y),
          *back = test_temp_alloc(N * sizeof *back);
    test_random_floats(x, N, -4, 4);
    test_random_floats(y, N, -4, 4);
    const float a = test_random_float(0.5f, 3.0f);
    kiln_buffer *xb = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *yb = test_temp_buffer_from(context, y, N * sizeof *y);
    size_t n = N - 3;
    kiln_buffer *xv = view_of(xb, 1 * sizeof(float), n * sizeof(float));
    kiln_buffer *yv = view_of(yb, 3 * sizeof(float), n * sizeof(float));
    kiln_elementwise *saxpy = NULL;
    TEST_OK(kiln_elementwise_create(
        context, "float a, global const float *x, global float *y",
        "y[i] = a * x[i] + y[i]", "saxpy_views", NULL, &saxpy));
    const kiln_arg args[] = {KILN_ARG_FLOAT(a), KILN_ARG_BUFFER(xv),
                             KILN_ARG_BUFFER(yv)};
    TEST_OK(kiln_elementwise_launch(saxpy, n, 3, args, NULL));
    TEST_OK(kiln_buffer_read(yb, 0, back, N * sizeof *back));
    float *expected = test_temp_alloc(N * sizeof *expected);
    for (size_t i = 0; i < N; ++i)
        expected[i] = i < 3 ? y[i] : a * x[i - 2] + y[i];
    /* (the device may fuse a * x + y) */
    test_assert_floats_near(back, expected, N, 1e-6);
    TEST_OK(kiln_elementwise_release(saxpy));
    TEST_OK(kiln_buffer_release(xv));
    TEST_OK(kiln_buffer_release(yv));
}

/* z[i] = 7 for i in range(start, stop, step), forwards and backwards. */
static void elementwise_over_a_range(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 20000 };
    kiln_elementwise *set = NULL;
    TEST_OK(kiln_elementwise_create(context, "global float *z, float v",
                                    "z[i] = v", "set_range", NULL, &set));
    float *host = test_temp_alloc(N * sizeof *host),
          *back = test_temp_alloc(N * sizeof *back);
    kiln_buffer *zb = test_temp_buffer(context, N * sizeof(float));
    const struct {
        int64_t start, step;
        size_t count;
    } ranges[] = {{5, 1, 19995}, {5, 17, 1176}, {3000, -1, 2995},
                  {(int64_t)(test_random_u64() % 100), 3 + (int64_t)(test_random_u64() % 50), 100}};
    for (size_t r = 0; r < sizeof ranges / sizeof *ranges; ++r) {
        test_random_floats(host, N, -1, 1);
        TEST_OK(kiln_buffer_write(zb, 0, host, N * sizeof *host));
        float value = test_random_float(2, 9);
        const kiln_arg args[] = {KILN_ARG_BUFFER(zb), KILN_ARG_FLOAT(value)};
        TEST_OK(kiln_elementwise_launch_range(set, ranges[r].start,
                                              ranges[r].step, ranges[r].count,
                                              2, args, NULL));
        for (size_t k = 0; k < ranges[r].count; ++k)
            host[ranges[r].start + (int64_t)k * ranges[r].step] = value;
        TEST_OK(kiln_buffer_read(zb, 0, back, N * sizeof *back));
        assert_memory_equal(back, host, N * sizeof *host);
    }
    const kiln_arg args[] = {KILN_ARG_BUFFER(zb), KILN_ARG_FLOAT(1)};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_elementwise_launch_range(set, 0, 0, 5, 2, args, NULL));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_elementwise_launch_range(set, 3, -1, 5, 2, args, NULL));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_elementwise_launch_range(set, -1, 1, 5, 2, args, NULL));
    TEST_OK(kiln_elementwise_release(set));
}

/* PyCUDA's test_reduce_out: the maximum of each row of a 10 x 200 matrix,
 * each row a view, each result into a view of one float. */
static void reductions_of_views_into_views(void **state)
{
    kiln_context *context = test_context(state);
    enum { ROWS = 10, COLUMNS = 200 };
    float *matrix = test_temp_alloc(ROWS * COLUMNS * sizeof *matrix);
    test_random_floats(matrix, ROWS * COLUMNS, -100, 100);
    kiln_buffer *mb =
        test_temp_buffer_from(context, matrix, ROWS * COLUMNS * sizeof *matrix);
    kiln_buffer *out = test_temp_buffer(context, ROWS * sizeof(float));
    kiln_reduction *max = NULL;
    TEST_OK(kiln_reduction_create(context, "float", "-INFINITY", "max(a, b)",
                                  NULL, "global const float *in", "row_max",
                                  NULL, &max));
    for (size_t r = 0; r < ROWS; ++r) {
        kiln_buffer *row = view_of(mb, r * COLUMNS * sizeof(float),
                                   COLUMNS * sizeof(float));
        kiln_buffer *cell = view_of(out, r * sizeof(float), sizeof(float));
        const kiln_arg args[] = {KILN_ARG_BUFFER(row)};
        TEST_OK(kiln_reduction_run(max, COLUMNS, 1, args, cell, 0, NULL));
        TEST_OK(kiln_buffer_release(row));
        TEST_OK(kiln_buffer_release(cell));
    }
    float back[ROWS];
    TEST_OK(kiln_buffer_read(out, 0, back, sizeof back));
    for (size_t r = 0; r < ROWS; ++r) {
        float expected = matrix[r * COLUMNS];
        for (size_t c = 1; c < COLUMNS; ++c)
            if (matrix[r * COLUMNS + c] > expected)
                expected = matrix[r * COLUMNS + c];
        if (back[r] != expected)
            fail_msg("row %zu: max %g, expected %g", r, back[r], expected);
    }
    /* a result that starts inside a float is refused */
    kiln_buffer *odd = view_of(out, 2, 2 * sizeof(float));
    const kiln_arg args[] = {KILN_ARG_BUFFER(mb)};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_reduction_run(max, COLUMNS, 1, args, odd, 0, NULL));
    TEST_OK(kiln_buffer_release(odd));
    TEST_OK(kiln_reduction_release(max));
}

/* An inclusive scan in place over a view 5 ints into its buffer (more than
 * one block of the scan, so its carries go through the view too). */
static void scans_in_place_on_a_view(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 5000, SKIP = 5 };
    int32_t *data = test_temp_alloc(N * sizeof *data),
            *back = test_temp_alloc(N * sizeof *back);
    test_random_ints(data, N, -50, 50);
    kiln_buffer *buffer = test_temp_buffer_from(context, data, N * sizeof *data);
    kiln_buffer *view = view_of(buffer, SKIP * sizeof(int32_t),
                                (N - SKIP) * sizeof(int32_t));
    kiln_scan *scan = NULL;
    TEST_OK(kiln_scan_create(context, "int", "0", "a + b", NULL,
                             "global const int *x", KILN_SCAN_INCLUSIVE,
                             "cumsum_view", NULL, &scan));
    const kiln_arg args[] = {KILN_ARG_BUFFER(view)};
    TEST_OK(kiln_scan_run(scan, N - SKIP, 1, args, view, 0, NULL));
    TEST_OK(kiln_buffer_read(buffer, 0, back, N * sizeof *back));
    int32_t sum = 0;
    for (size_t i = 0; i < N; ++i) {
        int32_t expected = data[i];
        if (i >= SKIP)
            expected = sum += data[i];
        if (back[i] != expected)
            fail_msg("element %zu: %d, expected %d", i, back[i], expected);
    }
    TEST_OK(kiln_scan_release(scan));
    TEST_OK(kiln_buffer_release(view));
}

/* An array over a view's memory: its elements, an operation on it, and
 * what does not fit. */
static void arrays_over_existing_memory(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 1003 };
    double *data = test_temp_alloc(N * sizeof *data);
    test_random_doubles(data, N, -10, 10);
    kiln_buffer *buffer = test_temp_buffer_from(context, data, N * sizeof *data);
    kiln_buffer *view = view_of(buffer, 3 * sizeof(double), 1000 * sizeof(double));
    kiln_array *matrix = NULL, *sum = NULL;
    TEST_OK(kiln_array_from_buffer(view, 0, KILN_DTYPE_FLOAT64, 2,
                                   (size_t[]){20, 50}, &matrix));
    TEST_OK(kiln_buffer_release(view)); /* the array holds the memory */
    TEST_OK(kiln_array_binary(KILN_OP_ADD, matrix, matrix, NULL, &sum));
    double back[1000];
    TEST_OK(kiln_array_to_host(sum, back, sizeof back, NULL));
    for (size_t i = 0; i < 1000; ++i)
        if (back[i] != 2 * data[i + 3])
            fail_msg("element %zu: %g, expected %g", i, back[i], 2 * data[i + 3]);
    size_t ndim = 0, shape[KILN_ARRAY_MAX_DIMS];
    TEST_OK(kiln_array_get_shape(matrix, &ndim, shape));
    assert_int_equal(ndim, 2);
    assert_int_equal(shape[1], 50);
    kiln_buffer *base = NULL;
    size_t offset = 0;
    TEST_OK(kiln_array_get_buffer(matrix, &base, &offset));
    assert_ptr_equal(base, buffer);
    assert_int_equal(offset, 3 * sizeof(double));
    TEST_OK(kiln_array_release(sum));
    TEST_OK(kiln_array_release(matrix));

    kiln_array *refused = NULL;
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_array_from_buffer(buffer, 8, KILN_DTYPE_FLOAT64, 1,
                                      (size_t[]){N}, &refused));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_from_buffer(buffer, 4, KILN_DTYPE_FLOAT64, 1,
                                      (size_t[]){2}, &refused));
    assert_null(refused);
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(elementwise_on_views_at_any_offset),
        KILN_TEST(elementwise_over_a_range),
        KILN_TEST(reductions_of_views_into_views),
        KILN_TEST(scans_in_place_on_a_view),
        KILN_TEST(arrays_over_existing_memory),
    };
    return kiln_test_main("array_views", tests, sizeof tests / sizeof tests[0]);
}
