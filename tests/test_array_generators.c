/*
 * The kernel generators of kiln_array.h: elementwise, reduction and scan
 * kernels made from an argument list and expressions, checked against the
 * CPU on random inputs on every backend; and what they answer to bad
 * input (an expression that does not compile, wrong arguments, a result
 * that does not fit).
 */
#include "config.h"

#include "harness.h"
#include "array_test.h"
#include "kiln_array.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PyCUDA's ElementwiseKernel example: y = a x + y. */
static void elementwise_saxpy(void **state)
{
    kiln_context *context = test_context(state);
    const size_t n = 10007;
    float *x = test_alloc(n * sizeof *x), *y = test_alloc(n * sizeof *y),
          *expected = test_alloc(n * sizeof *expected);
    test_random_floats(x, n, -4, 4);
    test_random_floats(y, n, -4, 4);
    const float a = test_random_float(0.5f, 3.0f);
    for (size_t i = 0; i < n; ++i)
        expected[i] = a * x[i] + y[i];
    kiln_buffer *xb = test_buffer_from(context, x, n * sizeof *x);
    kiln_buffer *yb = test_buffer_from(context, y, n * sizeof *y);
    kiln_elementwise *saxpy = NULL;
    TEST_OK(kiln_elementwise_create(
        context, "float a, global const float *x, global float *y",
        "y[i] = a * x[i] + y[i]", "saxpy", NULL, &saxpy));
    const kiln_arg args[] = {KILN_ARG_FLOAT(a), KILN_ARG_BUFFER(xb),
                             KILN_ARG_BUFFER(yb)};
    TEST_OK(kiln_elementwise_launch(saxpy, n, 3, args, NULL));
    TEST_OK(kiln_buffer_read(yb, 0, y, n * sizeof *y));
    test_assert_floats_near(y, expected, n, 1e-6);

    /* n == 0 touches nothing */
    TEST_OK(kiln_elementwise_launch(saxpy, 0, 3, args, NULL));
    TEST_OK(kiln_buffer_read(yb, 0, x, n * sizeof *x));
    assert_memory_equal(x, y, n * sizeof *x);
    TEST_OK(kiln_elementwise_release(saxpy));
    kiln_buffer_release(xb);
    kiln_buffer_release(yb);
    free(x);
    free(y);
    free(expected);
}

/* Integer arguments, the index itself, a preamble, a stream. */
static void elementwise_integers_preamble_and_stream(void **state)
{
    kiln_context *context = test_context(state);
    const size_t n = 3000;
    int32_t *in = test_alloc(n * sizeof *in), *out = test_alloc(n * sizeof *out);
    test_random_ints(in, n, -100000, 100000);
    const int32_t k = (int32_t)(test_random_u64() % 1000) + 1;
    kiln_buffer *ib = test_buffer_from(context, in, n * sizeof *in);
    kiln_buffer *ob = test_buffer(context, n * sizeof *out);
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    kiln_elementwise *kernel = NULL;
    TEST_OK(kiln_elementwise_create(
        context, "global const int *a, global int *out, int k",
        "out[i] = twice(a[i]) * k - (int)i", NULL,
        "int twice(int v) { return 2 * v; }", &kernel));
    const kiln_arg args[] = {KILN_ARG_BUFFER(ib), KILN_ARG_BUFFER(ob),
                             KILN_ARG_INT(k)};
    TEST_OK(kiln_elementwise_launch(kernel, n, 3, args, stream));
    TEST_OK(kiln_buffer_read_async(ob, 0, out, n * sizeof *out, stream));
    TEST_OK(kiln_stream_synchronize(stream));
    for (size_t i = 0; i < n; ++i)
        if (out[i] != 2 * in[i] * k - (int32_t)i)
            fail_msg("out[%zu] = %d, expected %d", i, out[i],
                     2 * in[i] * k - (int32_t)i);
    TEST_OK(kiln_elementwise_release(kernel));
    kiln_stream_release(stream);
    kiln_buffer_release(ib);
    kiln_buffer_release(ob);
    free(in);
    free(out);
}

/* PyCUDA's ReductionKernel example: the sum of squares, map and reduce
 * fused, at sizes of one launch and of two. */
static void reduction_sum_of_squares(void **state)
{
    kiln_context *context = test_context(state);
    kiln_reduction *sumsq = NULL;
    TEST_OK(kiln_reduction_create(context, "float", "0", "a + b", "x[i] * x[i]",
                                  "global const float *x", "sumsq", NULL,
                                  &sumsq));
    const size_t sizes[] = {1, 255, 1000, 300001};
    float *x = test_alloc(sizes[3] * sizeof *x);
    test_random_floats(x, sizes[3], -1, 1);
    kiln_buffer *xb = test_buffer_from(context, x, sizes[3] * sizeof *x);
    kiln_buffer *result = test_buffer(context, 4 * sizeof(float));
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
        double expected = 0;
        for (size_t i = 0; i < sizes[s]; ++i)
            expected += (double)x[i] * x[i];
        const kiln_arg args[] = {KILN_ARG_BUFFER(xb)};
        float got = 0;
        TEST_OK(kiln_reduction_run_to_host(sumsq, sizes[s], 1, args, &got,
                                           sizeof got, NULL));
        if (fabs(got - expected) > 1e-5 * fabs(expected) + 1e-6)
            fail_msg("n = %zu: sum of squares %.9g, expected %.9g", sizes[s],
                     (double)got, expected);
        /* into a buffer at an offset, the values around it untouched */
        const float guard[4] = {-7, -7, -7, -7};
        TEST_OK(kiln_buffer_write(result, 0, guard, sizeof guard));
        TEST_OK(kiln_reduction_run(sumsq, sizes[s], 1, args, result,
                                   2 * sizeof(float), NULL));
        float back[4];
        TEST_OK(kiln_buffer_read(result, 0, back, sizeof back));
        assert_true(back[0] == -7 && back[1] == -7 && back[3] == -7);
        assert_true(back[2] == got);
    }
    /* on a stream of its own, with its own scratch, beside the default
     * stream's runs */
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    {
        const kiln_arg args[] = {KILN_ARG_BUFFER(xb)};
        float on_stream = 0, on_default = 0;
        TEST_OK(kiln_reduction_run(sumsq, sizes[3], 1, args, result, 0,
                                   NULL));
        TEST_OK(kiln_reduction_run_to_host(sumsq, sizes[3], 1, args,
                                           &on_stream, sizeof on_stream,
                                           stream));
        TEST_OK(kiln_buffer_read(result, 0, &on_default, sizeof on_default));
        assert_true(on_stream == on_default);
    }
    TEST_OK(kiln_stream_release(stream)); /* the reduction keeps it */

    /* n == 0 is the neutral element */
    float got = 1;
    const kiln_arg args[] = {KILN_ARG_BUFFER(xb)};
    TEST_OK(kiln_reduction_run_to_host(sumsq, 0, 1, args, &got, sizeof got,
                                       NULL));
    assert_true(got == 0);
    TEST_OK(kiln_reduction_release(sumsq));
    kiln_buffer_release(xb);
    kiln_buffer_release(result);
    free(x);
}

/* Another neutral element and reduce expression, integer arithmetic
 * (exact), a scalar argument and the default map (the first pointer). */
static void reduction_max_and_integer_sum(void **state)
{
    kiln_context *context = test_context(state);
    const size_t n = 123457;
    int32_t *v = test_alloc(n * sizeof *v);
    test_random_ints(v, n, -1000000, 1000000);
    kiln_buffer *vb = test_buffer_from(context, v, n * sizeof *v);

    kiln_reduction *largest = NULL;
    TEST_OK(kiln_reduction_create(context, "int", "(-2147483647 - 1)",
                                  "max(a, b)", NULL, "global const int *v",
                                  "largest", NULL, &largest));
    int32_t got = 0, expected = v[0];
    for (size_t i = 1; i < n; ++i)
        expected = v[i] > expected ? v[i] : expected;
    const kiln_arg one[] = {KILN_ARG_BUFFER(vb)};
    TEST_OK(kiln_reduction_run_to_host(largest, n, 1, one, &got, sizeof got,
                                       NULL));
    assert_int_equal(got, expected);

    kiln_reduction *shifted = NULL;
    TEST_OK(kiln_reduction_create(context, "long", "0", "a + b",
                                  "(long)v[i] * k + i",
                                  "global const int *v, long k", "shifted",
                                  NULL, &shifted));
    const int64_t k = (int64_t)(test_random_u64() % 100) - 50;
    int64_t sum = 0, want = 0;
    for (size_t i = 0; i < n; ++i)
        want += (int64_t)v[i] * k + (int64_t)i;
    const kiln_arg two[] = {KILN_ARG_BUFFER(vb), KILN_ARG_LONG(k)};
    TEST_OK(kiln_reduction_run_to_host(shifted, n, 2, two, &sum, sizeof sum,
                                       NULL));
    assert_true(sum == want);
    TEST_OK(kiln_reduction_release(largest));
    TEST_OK(kiln_reduction_release(shifted));
    kiln_buffer_release(vb);
    free(v);
}

/* Inclusive and exclusive prefix sums (exact in integers), across one
 * block, many, and enough blocks that the block totals need two levels. */
static void scan_inclusive_and_exclusive(void **state)
{
    kiln_context *context = test_context(state);
    const size_t sizes[] = {1, 1000, 1024, 5000, 1024 * 1024 + 77};
    const size_t most = sizes[4];
    int32_t *v = test_alloc(most * sizeof *v);
    int32_t *out = test_alloc(most * sizeof *out);
    test_random_ints(v, most, -1000, 1000);
    kiln_buffer *vb = test_buffer_from(context, v, most * sizeof *v);
    kiln_buffer *ob = test_buffer(context, (most + 3) * sizeof *out);
    kiln_scan *scans[2] = {NULL, NULL};
    TEST_OK(kiln_scan_create(context, "int", "0", "a + b", NULL,
                             "global const int *v", KILN_SCAN_INCLUSIVE,
                             "prefix", NULL, &scans[0]));
    TEST_OK(kiln_scan_create(context, "int", "0", "a + b", NULL,
                             "global const int *v", KILN_SCAN_EXCLUSIVE,
                             "prefix", NULL, &scans[1]));
    for (int exclusive = 0; exclusive < 2; ++exclusive)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
            const size_t n = sizes[s];
            const kiln_arg args[] = {KILN_ARG_BUFFER(vb)};
            /* at an offset of 3 values */
            TEST_OK(kiln_scan_run(scans[exclusive], n, 1, args, ob,
                                  3 * sizeof *out, NULL));
            TEST_OK(kiln_buffer_read(ob, 3 * sizeof *out, out,
                                     n * sizeof *out));
            int32_t running = 0;
            for (size_t i = 0; i < n; ++i) {
                int32_t expected = exclusive ? running : running + v[i];
                running += v[i];
                if (out[i] != expected)
                    fail_msg("%s scan of %zu: out[%zu] = %d, expected %d",
                             exclusive ? "exclusive" : "inclusive", n, i,
                             out[i], expected);
            }
        }
    TEST_OK(kiln_scan_release(scans[0]));
    TEST_OK(kiln_scan_release(scans[1]));
    kiln_buffer_release(vb);
    kiln_buffer_release(ob);
    free(v);
    free(out);
}

/* A scan of an input expression with a non-commutative operator: the
 * running maximum of |x| paired with nothing else would not show order
 * mistakes, so: the last nonzero value seen (b != 0 ? b : a). */
static void scan_with_input_expression(void **state)
{
    kiln_context *context = test_context(state);
    const size_t n = 7000;
    int32_t *v = test_alloc(n * sizeof *v), *out = test_alloc(n * sizeof *out);
    test_random_ints(v, n, -3, 3);
    kiln_buffer *vb = test_buffer_from(context, v, n * sizeof *v);
    kiln_buffer *ob = test_buffer(context, n * sizeof *out);
    kiln_scan *scan = NULL;
    TEST_OK(kiln_scan_create(context, "int", "0", "b != 0 ? b : a",
                             "v[i] * k", "global const int *v, int k",
                             KILN_SCAN_INCLUSIVE, "last_nonzero", NULL,
                             &scan));
    const int32_t k = 5;
    const kiln_arg args[] = {KILN_ARG_BUFFER(vb), KILN_ARG_INT(k)};
    TEST_OK(kiln_scan_run(scan, n, 2, args, ob, 0, NULL));
    TEST_OK(kiln_buffer_read(ob, 0, out, n * sizeof *out));
    int32_t last = 0;
    for (size_t i = 0; i < n; ++i) {
        if (v[i] != 0)
            last = v[i] * k;
        if (out[i] != last)
            fail_msg("out[%zu] = %d, expected %d", i, out[i], last);
    }
    TEST_OK(kiln_scan_release(scan));
    kiln_buffer_release(vb);
    kiln_buffer_release(ob);
    free(v);
    free(out);
}

/* ---- bad input ------------------------------------------------------------ */

static void expression_that_does_not_compile(void **state)
{
    kiln_context *context = test_context(state);
    kiln_elementwise *kernel = (kiln_elementwise *)&kernel;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_elementwise_create(context, "global float *y",
                                       "y[i] = undefined_thing(i)", "broken",
                                       NULL, &kernel));
    /* the log and the generated source, with the user's expression */
    TEST_ERROR_MENTIONS("kiln_elementwise_create");
    TEST_ERROR_MENTIONS("undefined_thing");
    TEST_ERROR_MENTIONS("generated source");
    assert_ptr_equal(kernel, (kiln_elementwise *)&kernel);

    kiln_reduction *reduction = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_reduction_create(context, "float", "0", "a +* b", NULL,
                                     "global const float *x", NULL, NULL,
                                     &reduction));
    TEST_ERROR_MENTIONS("a +* b");
    assert_null(reduction);
    kiln_scan *scan = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_scan_create(context, "int", "0", "a + b", "missing[i]",
                                "global const int *v", KILN_SCAN_INCLUSIVE,
                                NULL, NULL, &scan));
    TEST_ERROR_MENTIONS("missing");
    assert_null(scan);
}

static void bad_argument_lists_and_launches(void **state)
{
    kiln_context *context = test_context(state);
    kiln_elementwise *kernel = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_elementwise_create(context, "float *y", "y[i] = 0",
                                       NULL, NULL, &kernel));
    TEST_ERROR_MENTIONS("global or constant");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_elementwise_create(context, "float, global float *y",
                                       "y[i] = 0", NULL, NULL, &kernel));
    TEST_ERROR_MENTIONS("needs a type and a name");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_elementwise_create(context, "global float *y", "y[i] = 0",
                                       "not a name", NULL, &kernel));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_elementwise_create(context, "global float *y", "", NULL,
                                       NULL, &kernel));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_elementwise_create(NULL, "global float *y", "y[i] = 0",
                                       NULL, NULL, &kernel));
    assert_null(kernel);

    TEST_OK(kiln_elementwise_create(context, "float a, global float *y",
                                    "y[i] = a", "fill", NULL, &kernel));
    kiln_buffer *y = test_buffer(context, 64 * sizeof(float));
    const float before[4] = {1, 2, 3, 4};
    TEST_OK(kiln_buffer_write(y, 0, before, sizeof before));
    const kiln_arg one[] = {KILN_ARG_BUFFER(y)};
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_elementwise_launch(kernel, 64, 1, one, NULL));
    TEST_ERROR_MENTIONS("fill");
    const kiln_arg swapped[] = {KILN_ARG_BUFFER(y), KILN_ARG_FLOAT(1)};
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_elementwise_launch(kernel, 64, 2, swapped, NULL));
    TEST_ERROR_MENTIONS("argument 0 (a)");
    const kiln_arg wrong_type[] = {KILN_ARG_DOUBLE(1), KILN_ARG_BUFFER(y)};
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_elementwise_launch(kernel, 64, 2, wrong_type, NULL));
    TEST_ERROR_MENTIONS("argument 0 (float a): a double");
    const double eight_bytes = 1;
    const kiln_arg wrong_size[] = {KILN_ARG_VALUE(&eight_bytes, 8),
                                   KILN_ARG_BUFFER(y)};
    TEST_FAILS(KILN_ERR_ARGUMENT_SIZE,
               kiln_elementwise_launch(kernel, 64, 2, wrong_size, NULL));
    float after[4];
    TEST_OK(kiln_buffer_read(y, 0, after, sizeof after));
    assert_memory_equal(after, before, sizeof before);
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_elementwise_launch(NULL, 64, 2, wrong_size, NULL));
    TEST_OK(kiln_elementwise_release(kernel));

    kiln_reduction *reduction = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_reduction_create(context, "struct thing", "0", "a + b",
                                     NULL, "global const float *x", NULL,
                                     NULL, &reduction));
    TEST_ERROR_MENTIONS("struct thing");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_reduction_create(context, "float", "0", "a + b", NULL,
                                     "float k", NULL, NULL, &reduction));
    TEST_ERROR_MENTIONS("no map expression");
    TEST_OK(kiln_reduction_create(context, "float", "0", "a + b", NULL,
                                  "global const float *x", NULL, NULL,
                                  &reduction));
    kiln_buffer *small = test_buffer(context, 2);
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_reduction_run(reduction, 64, 1, one, small, 0, NULL));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_reduction_run(reduction, 64, 1, one, y, 64 * sizeof(float),
                                  NULL));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_reduction_run(reduction, 64, 1, one, y, 2, NULL));
    double wide = 0;
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_reduction_run_to_host(reduction, 64, 1, one, &wide,
                                          sizeof wide, NULL));
    TEST_OK(kiln_reduction_release(reduction));

    kiln_scan *scan = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_scan_create(context, "int", "0", "a + b", NULL,
                                "global const int *v", (kiln_scan_kind)7,
                                NULL, NULL, &scan));
    TEST_OK(kiln_scan_create(context, "float", "0", "a + b", NULL,
                             "global const float *x", KILN_SCAN_INCLUSIVE,
                             NULL, NULL, &scan));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_scan_run(scan, 65, 1, one, y, 0, NULL));
    TEST_OK(kiln_scan_release(scan));
    kiln_buffer_release(small);
    kiln_buffer_release(y);
}

/* The last program build Kiln logged, at KILN_LOG_INFO. */
static char last_build[512];
static void remember_build(kiln_log_level level, const char *message,
                           void *user_data)
{
    (void)user_data;
    if (level == KILN_LOG_INFO && strncmp(message, "built ", 6) == 0)
        snprintf(last_build, sizeof last_build, "%s", message);
}

static bool ends_with(const char *text, const char *end)
{
    size_t length = strlen(text), end_length = strlen(end);
    return length >= end_length &&
           strcmp(text + length - end_length, end) == 0;
}

/* Array sums are instances of the reduction generator: the reduction
 * kiln_reduction_create makes from a plain sum's parameters is the same
 * program (a hit in the memory cache, the sum having built it) and gives
 * the same bits, so a fix to the generator is a fix to kiln_array_sum. */
static void reduction_is_the_array_sum(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {100003 + test_random_u64() % 1000};
    double *values = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT32, 1, shape,
                                      -1, 1, &values);
    kiln_array *sum = NULL;
    TEST_OK(kiln_array_reduce(KILN_REDUCE_SUM, a, NULL, &sum));
    float array_sum = 0;
    TEST_OK(kiln_array_to_host(sum, &array_sum, sizeof array_sum, NULL));
    double expected = 0;
    for (size_t i = 0; i < shape[0]; ++i)
        expected += values[i];
    if (fabs(array_sum - expected) > 1e-6 * (double)shape[0])
        fail_msg("kiln_array_reduce: sum %.9g, expected %.9g",
                 (double)array_sum, expected);

    kiln_log_level level = KILN_LOG_OFF;
    TEST_OK(kiln_log_get_level(&level));
    TEST_OK(kiln_log_set_callback(remember_build, NULL));
    TEST_OK(kiln_log_set_level(KILN_LOG_INFO));
    last_build[0] = '\0';
    kiln_reduction *reduction = NULL;
    kiln_status made = kiln_reduction_create(
        context, "float", "0", "a + b", NULL, "__global const float *x",
        "kiln_reduce", NULL, &reduction);
    kiln_log_set_level(level);
    kiln_log_set_callback(NULL, NULL);
    TEST_OK(made);
    if (!ends_with(last_build, ": memory cache"))
        fail_msg("kiln_reduction_create of the array sum's instance built "
                 "a program of its own: \"%s\"", last_build);

    kiln_buffer *buffer = NULL;
    size_t offset = 1;
    TEST_OK(kiln_array_get_buffer(a, &buffer, &offset));
    assert_int_equal(offset, 0);
    const kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
    float generator_sum = 0;
    TEST_OK(kiln_reduction_run_to_host(reduction, shape[0], 1, args,
                                       &generator_sum, sizeof generator_sum,
                                       NULL));
    if (memcmp(&generator_sum, &array_sum, sizeof array_sum) != 0)
        fail_msg("kiln_reduction_run %.9g, kiln_array_reduce %.9g",
                 (double)generator_sum, (double)array_sum);
    TEST_OK(kiln_reduction_release(reduction));
    kiln_array_release(sum);
    kiln_array_release(a);
    free(values);
}

/* Elementwise array operations are instances of the elementwise
 * generator: kiln_array_arange's kernel is the program
 * kiln_elementwise_create makes of the same operation (a hit in the
 * memory cache), and launched through the generator it writes the same
 * values. */
static void elementwise_is_the_array_arange(void **state)
{
    kiln_context *context = test_context(state);
    const size_t n = 5000 + test_random_u64() % 1000;
    const double start = test_random_float(-10, 10),
                 step = test_random_float(0.25f, 2);
    kiln_array *range = NULL;
    TEST_OK(kiln_array_arange(context, KILN_DTYPE_FLOAT32, start,
                              start + step * (double)n - step / 2, step, NULL,
                              &range));
    size_t size = 0;
    TEST_OK(kiln_array_get_size(range, &size));
    assert_int_equal(size, n);
    float *from_array = test_alloc(n * sizeof *from_array),
          *from_generator = test_alloc(n * sizeof *from_generator);
    TEST_OK(kiln_array_to_host(range, from_array, n * sizeof *from_array,
                               NULL));
    for (size_t i = 0; i < n; ++i)
        if (fabs(from_array[i] - (start + (double)i * step)) >
            1e-5 * fabs(start + (double)i * step) + 1e-5)
            fail_msg("arange[%zu] = %.9g, expected %.9g", i,
                     (double)from_array[i], start + (double)i * step);

    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    kiln_log_level level = KILN_LOG_OFF;
    TEST_OK(kiln_log_get_level(&level));
    TEST_OK(kiln_log_set_callback(remember_build, NULL));
    TEST_OK(kiln_log_set_level(KILN_LOG_INFO));
    last_build[0] = '\0';
    kiln_elementwise *fill = NULL;
    kiln_status made = kiln_elementwise_create(
        context, "__global float *kiln_out, kiln_real v0, kiln_real v1",
        "kiln_out[i] = (float)(v0 + (kiln_real)i * v1)", "kiln_array_fill",
        info.supports_double ? "typedef double kiln_real;"
                             : "typedef float kiln_real;",
        &fill);
    kiln_log_set_level(level);
    kiln_log_set_callback(NULL, NULL);
    TEST_OK(made);
    if (!ends_with(last_build, ": memory cache"))
        fail_msg("kiln_elementwise_create of arange's instance built a "
                 "program of its own: \"%s\"", last_build);

    kiln_buffer *out = test_buffer(context, n * sizeof(float));
    const kiln_arg args[] = {
        KILN_ARG_BUFFER(out),
        info.supports_double ? KILN_ARG_DOUBLE(start)
                             : KILN_ARG_FLOAT((float)start),
        info.supports_double ? KILN_ARG_DOUBLE(step)
                             : KILN_ARG_FLOAT((float)step),
    };
    TEST_OK(kiln_elementwise_launch(fill, n, 3, args, NULL));
    TEST_OK(kiln_buffer_read(out, 0, from_generator, n * sizeof(float)));
    assert_memory_equal(from_generator, from_array, n * sizeof(float));
    TEST_OK(kiln_elementwise_release(fill));
    kiln_buffer_release(out);
    kiln_array_release(range);
    free(from_array);
    free(from_generator);
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(elementwise_saxpy),
        KILN_TEST(elementwise_integers_preamble_and_stream),
        KILN_TEST(elementwise_is_the_array_arange),
        KILN_TEST(reduction_sum_of_squares),
        KILN_TEST(reduction_max_and_integer_sum),
        KILN_TEST(reduction_is_the_array_sum),
        KILN_TEST(scan_inclusive_and_exclusive),
        KILN_TEST(scan_with_input_expression),
        KILN_TEST(expression_that_does_not_compile),
        KILN_TEST(bad_argument_lists_and_launches),
    };
    return kiln_test_main("array_generators", tests,
                          sizeof tests / sizeof tests[0]);
}
