/*
 * Host In/Out/InOut arguments (PyCUDA's drv.In, drv.Out, drv.InOut): host
 * arrays copied to staging device memory before the launch and back after
 * it, through kiln_launch (KILN_ARG_IN/OUT/INOUT), kiln_launch_prepared
 * ('<' '>' '=') and kiln_args_add_host; mixed with device buffers; on a
 * created stream; staging memory comes from the pool and goes back to it;
 * bad host arrays are refused.
 */
#include "config.h" /* _GNU_SOURCE: POSIX functions under -std=c11 */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 400

static const char source[] =
    /* PyCUDA's tutorial kernel, one block of 400 threads there. */
    "kernel void multiply_them(global float *dest, global const float *a,\n"
    "                          global const float *b)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    dest[i] = a[i] * b[i];\n"
    "}\n"
    "\n"
    "kernel void increment(global int *x, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        x[i] += 1;\n"
    "}\n"
    "\n"
    "/* Writes into its input: an In array must not be copied back. */\n"
    "kernel void scribble(global float *x, global float *copy, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) {\n"
    "        copy[i] = x[i];\n"
    "        x[i] = -1.0f;\n"
    "    }\n"
    "}\n"
    "\n"
    "kernel void axpy_mixed(global float *y, global const float *x,\n"
    "                       global const float *z, float a, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + z[i];\n"
    "}\n"
    "\n"
    "kernel void takes_value(global float *x, int n, local float *scratch)\n"
    "{\n"
    "    x[0] = (float)n;\n"
    "}\n";

typedef struct fixture {
    kiln_context *context;
    kiln_program *program;
} fixture;

static fixture setup(void **state)
{
    fixture f;
    f.context = test_context(state);
    f.program = test_build(f.context, source, NULL);
    return f;
}

/* 400 threads: one block where the kernel allows it, as in PyCUDA. */
static kiln_launch_config config_for(kiln_kernel *kernel, size_t count)
{
    size_t max_block = 0;
    TEST_OK(kiln_kernel_get_max_block_size(kernel, &max_block));
    size_t block = count <= max_block ? count : 100;
    if (count % block != 0)
        fail_msg("cannot split %zu threads into blocks of at most %zu", count,
                 max_block);
    kiln_launch_config config = {.grid = KILN_DIM1(count / block),
                                 .block = KILN_DIM1(block)};
    return config;
}

static void expected_products(const float *a, const float *b, float *out,
                              size_t n)
{
    for (size_t i = 0; i < n; ++i)
        out[i] = a[i] * b[i];
}

static void test_multiply_them(void **state)
{
    fixture f = setup(state);
    kiln_kernel *kernel = test_kernel(f.program, "multiply_them");
    kiln_launch_config config = config_for(kernel, COUNT);
    float a[COUNT], b[COUNT], dest[COUNT], expected[COUNT];
    test_random_floats(a, COUNT, -100.0f, 100.0f);
    test_random_floats(b, COUNT, -100.0f, 100.0f);
    expected_products(a, b, expected, COUNT);

    /* kiln_launch: dest is Out (its old content does not matter). */
    memset(dest, 0xff, sizeof dest);
    kiln_arg args[] = {KILN_ARG_OUT(dest, sizeof dest),
                       KILN_ARG_IN(a, sizeof a), KILN_ARG_IN(b, sizeof b)};
    TEST_OK(kiln_launch(kernel, &config, 3, args));
    test_assert_floats_near(dest, expected, COUNT, 0);

    /* kiln_launch_prepared, new inputs. */
    test_random_floats(a, COUNT, -1.0f, 1.0f);
    expected_products(a, b, expected, COUNT);
    memset(dest, 0, sizeof dest);
    TEST_OK(kiln_launch_prepared(kernel, &config, "><<", dest, sizeof dest,
                                 (const void *)a, sizeof a, (const void *)b,
                                 sizeof b));
    test_assert_floats_near(dest, expected, COUNT, 0);

    /* kiln_args_add_host. */
    test_random_floats(b, COUNT, -1.0f, 1.0f);
    expected_products(a, b, expected, COUNT);
    kiln_args *list;
    TEST_OK(kiln_args_create(&list));
    TEST_OK(kiln_args_add_host(list, KILN_ARG_KIND_OUT, dest, sizeof dest));
    TEST_OK(kiln_args_add_host(list, KILN_ARG_KIND_IN, a, sizeof a));
    TEST_OK(kiln_args_add_host(list, KILN_ARG_KIND_IN, b, sizeof b));
    TEST_OK(kiln_launch_args(kernel, &config, list));
    test_assert_floats_near(dest, expected, COUNT, 0);
    TEST_OK(kiln_args_release(list));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(f.program));
}

static void test_inout_increment(void **state)
{
    fixture f = setup(state);
    kiln_kernel *kernel = test_kernel(f.program, "increment");
    enum { N = 1000 };
    int32_t x[N], original[N];
    test_random_ints(x, N, INT32_MIN + 10, INT32_MAX - 10);
    memcpy(original, x, sizeof x);
    kiln_launch_config config = test_config_1d(N, 64);
    TEST_OK(kiln_launch_prepared(kernel, &config, "=i", (void *)x, sizeof x,
                                 (int32_t)N));
    for (int i = 0; i < N; ++i)
        if (x[i] != original[i] + 1)
            fail_msg("after one InOut launch x[%d] = %d, expected %d", i, x[i],
                     original[i] + 1);
    kiln_arg args[] = {KILN_ARG_INOUT(x, sizeof x), KILN_ARG_INT(N)};
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    for (int i = 0; i < N; ++i)
        if (x[i] != original[i] + 3)
            fail_msg("after three InOut launches x[%d] = %d, expected %d", i,
                     x[i], original[i] + 3);
    /* Only part of the array: the rest is neither sent nor written. */
    TEST_OK(kiln_launch_prepared(kernel, &config, "=i", (void *)x,
                                 (size_t)(N / 2) * sizeof x[0],
                                 (int32_t)(N / 2)));
    for (int i = 0; i < N; ++i)
        if (x[i] != original[i] + 3 + (i < N / 2))
            fail_msg("after a half-array launch x[%d] = %d", i, x[i]);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(f.program));
}

static void test_in_is_not_copied_back(void **state)
{
    fixture f = setup(state);
    kiln_kernel *kernel = test_kernel(f.program, "scribble");
    enum { N = 300 };
    float x[N], original[N], copy[N];
    test_random_floats(x, N, 1.0f, 2.0f);
    memcpy(original, x, sizeof x);
    kiln_launch_config config = test_config_1d(N, 32);
    TEST_OK(kiln_launch_prepared(kernel, &config, "<>i", (const void *)x,
                                 sizeof x, (void *)copy, sizeof copy,
                                 (int32_t)N));
    /* The kernel saw the data, and the host array kept it. */
    test_assert_floats_near(copy, original, N, 0);
    test_assert_floats_near(x, original, N, 0);
    /* InOut, by contrast, brings the scribbles back. */
    TEST_OK(kiln_launch_prepared(kernel, &config, "=>i", (void *)x, sizeof x,
                                 (void *)copy, sizeof copy, (int32_t)N));
    test_assert_floats_near(copy, original, N, 0);
    for (int i = 0; i < N; ++i)
        if (x[i] != -1.0f)
            fail_msg("InOut x[%d] = %g, expected -1", i, (double)x[i]);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(f.program));
}

/* y (Out) = a * x (device buffer) + z (In), on `stream` (NULL: default). */
static void run_mixed(kiln_context *context, kiln_kernel *kernel,
                      kiln_stream *stream, size_t n)
{
    float *x = test_alloc(n * sizeof *x), *z = test_alloc(n * sizeof *z);
    float *y = test_alloc(n * sizeof *y), *expected = test_alloc(n * sizeof *y);
    float *x_after = test_alloc(n * sizeof *x);
    test_random_floats(x, n, -10.0f, 10.0f);
    test_random_floats(z, n, -10.0f, 10.0f);
    float a = test_random_float(0.5f, 2.0f);
    for (size_t i = 0; i < n; ++i)
        expected[i] = a * x[i] + z[i];
    kiln_buffer *x_device = test_buffer_from(context, x, n * sizeof *x);
    kiln_launch_config config = test_config_1d(n, 128);
    config.stream = stream;
    TEST_OK(kiln_launch_prepared(kernel, &config, ">P<fi", (void *)y,
                                 n * sizeof *y, x_device, (const void *)z,
                                 n * sizeof *z, (double)a, (int32_t)n));
    /* Out made the launch synchronous: y is there, on any stream. */
    test_assert_floats_near(y, expected, n, 1e-5);
    /* The device buffer is an input, left alone. */
    TEST_OK(kiln_buffer_read(x_device, 0, x_after, n * sizeof *x));
    test_assert_floats_near(x_after, x, n, 0);
    TEST_OK(kiln_buffer_release(x_device));
    free(x);
    free(z);
    free(y);
    free(expected);
    free(x_after);
}

static void test_mixed_with_buffers(void **state)
{
    fixture f = setup(state);
    kiln_kernel *kernel = test_kernel(f.program, "axpy_mixed");
    run_mixed(f.context, kernel, NULL, 1000);
    /* Sizes with staging blocks above 1 MiB. */
    run_mixed(f.context, kernel, NULL, 600 * 1000);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(f.program));
}

static void test_on_a_created_stream(void **state)
{
    fixture f = setup(state);
    kiln_kernel *kernel = test_kernel(f.program, "axpy_mixed");
    kiln_stream *stream;
    TEST_OK(kiln_stream_create(f.context, &stream));
    for (int round = 0; round < 3; ++round)
        run_mixed(f.context, kernel, stream, 5000);
    /* With timing as well. */
    kiln_kernel *multiply = test_kernel(f.program, "multiply_them");
    kiln_launch_config config = config_for(multiply, COUNT);
    config.stream = stream;
    float time_ms = -1.0f;
    config.time_ms = &time_ms;
    float a[COUNT], b[COUNT], dest[COUNT], expected[COUNT];
    test_random_floats(a, COUNT, -3.0f, 3.0f);
    test_random_floats(b, COUNT, -3.0f, 3.0f);
    expected_products(a, b, expected, COUNT);
    TEST_OK(kiln_launch_prepared(multiply, &config, "><<", (void *)dest,
                                 sizeof dest, (const void *)a, sizeof a,
                                 (const void *)b, sizeof b));
    test_assert_floats_near(dest, expected, COUNT, 0);
    if (!(time_ms >= 0.0f))
        fail_msg("time_ms = %g", (double)time_ms);
    TEST_OK(kiln_stream_release(stream));
    TEST_OK(kiln_kernel_release(multiply));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(f.program));
}

static void test_staging_comes_from_the_pool(void **state)
{
    fixture f = setup(state);
    kiln_kernel *kernel = test_kernel(f.program, "multiply_them");
    kiln_launch_config config = config_for(kernel, COUNT);
    float a[COUNT], b[COUNT], dest[COUNT], expected[COUNT];
    /* On whatever KILN_POOL says: this test is about the pool. */
    TEST_OK(kiln_pool_set_enabled(f.context, 1));
    kiln_pool_stats before, after;
    TEST_OK(kiln_pool_get_stats(f.context, &before));
    enum { LAUNCHES = 6 };
    for (int round = 0; round < LAUNCHES; ++round) {
        test_random_floats(a, COUNT, -5.0f, 5.0f);
        test_random_floats(b, COUNT, -5.0f, 5.0f);
        expected_products(a, b, expected, COUNT);
        TEST_OK(kiln_launch_prepared(kernel, &config, "><<", (void *)dest,
                                     sizeof dest, (const void *)a, sizeof a,
                                     (const void *)b, sizeof b));
        test_assert_floats_near(dest, expected, COUNT, 0);
    }
    TEST_OK(kiln_pool_get_stats(f.context, &after));
    /* Three staging arrays per launch; after the first launch every one
     * is served from the blocks the previous launch gave back. */
    uint64_t reuses = after.reuses - before.reuses;
    uint64_t allocations = after.allocations - before.allocations;
    if (allocations != 3 * LAUNCHES)
        fail_msg("%llu staging allocations for %d launches of 3 host arrays",
                 (unsigned long long)allocations, LAUNCHES);
    if (reuses < 3 * (LAUNCHES - 1))
        fail_msg("only %llu of %llu staging allocations reused pooled blocks",
                 (unsigned long long)reuses, (unsigned long long)allocations);
    if (after.bytes_in_use != before.bytes_in_use)
        fail_msg("staging memory still in use after the launches: %llu "
                 "bytes before, %llu after",
                 (unsigned long long)before.bytes_in_use,
                 (unsigned long long)after.bytes_in_use);
    if (after.bytes_cached < 3 * sizeof a)
        fail_msg("the staging blocks were not returned to the pool (%llu "
                 "bytes cached)",
                 (unsigned long long)after.bytes_cached);

    /* Without the pool the staging memory is freed, and launches work. */
    TEST_OK(kiln_pool_set_enabled(f.context, 0));
    TEST_OK(kiln_pool_get_stats(f.context, &before));
    for (int round = 0; round < 2; ++round) {
        test_random_floats(a, COUNT, -5.0f, 5.0f);
        expected_products(a, b, expected, COUNT);
        TEST_OK(kiln_launch_prepared(kernel, &config, "><<", (void *)dest,
                                     sizeof dest, (const void *)a, sizeof a,
                                     (const void *)b, sizeof b));
        test_assert_floats_near(dest, expected, COUNT, 0);
    }
    TEST_OK(kiln_pool_get_stats(f.context, &after));
    if (after.reuses != before.reuses || after.bytes_cached != 0 ||
        after.bytes_in_use != before.bytes_in_use)
        fail_msg("with the pool off: %llu reuses, %llu bytes cached, %llu "
                 "in use (from %llu)",
                 (unsigned long long)(after.reuses - before.reuses),
                 (unsigned long long)after.bytes_cached,
                 (unsigned long long)after.bytes_in_use,
                 (unsigned long long)before.bytes_in_use);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(f.program));
}

static void test_bad_host_arrays(void **state)
{
    fixture f = setup(state);
    kiln_kernel *multiply = test_kernel(f.program, "multiply_them");
    kiln_kernel *takes_value = test_kernel(f.program, "takes_value");
    kiln_launch_config config = config_for(multiply, COUNT);
    float a[COUNT], b[COUNT], dest[COUNT];
    test_random_floats(a, COUNT, 1.0f, 2.0f);
    test_random_floats(b, COUNT, 1.0f, 2.0f);
    for (int i = 0; i < COUNT; ++i)
        dest[i] = 12345.0f;
    kiln_pool_stats before, after;
    TEST_OK(kiln_pool_get_stats(f.context, &before));

    kiln_arg null_in[] = {KILN_ARG_OUT(dest, sizeof dest),
                          KILN_ARG_IN(NULL, sizeof a), KILN_ARG_IN(b, sizeof b)};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_launch(multiply, &config, 3, null_in));
    TEST_ERROR_MENTIONS("argument 1");
    TEST_ERROR_MENTIONS("NULL");
    kiln_arg null_out[] = {KILN_ARG_OUT(NULL, sizeof dest),
                           KILN_ARG_IN(a, sizeof a), KILN_ARG_IN(b, sizeof b)};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_launch(multiply, &config, 3, null_out));
    TEST_ERROR_MENTIONS("argument 0");
    kiln_arg empty[] = {KILN_ARG_OUT(dest, sizeof dest), KILN_ARG_IN(a, sizeof a),
                        KILN_ARG_INOUT(b, 0)};
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_launch(multiply, &config, 3, empty));
    TEST_ERROR_MENTIONS("argument 2");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared(multiply, &config, "><<", (void *)dest,
                                    sizeof dest, (const void *)NULL, sizeof a,
                                    (const void *)b, sizeof b));
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_launch_prepared(multiply, &config, "><<", (void *)dest,
                                    (size_t)0, (const void *)a, sizeof a,
                                    (const void *)b, sizeof b));
    /* A host array where a value or local memory is expected. */
    kiln_launch_config one = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_launch_prepared(takes_value, &one, "><S", (void *)dest,
                                    sizeof dest, (const void *)a, sizeof a,
                                    (size_t)16));
    TEST_ERROR_MENTIONS("argument 1");
    TEST_ERROR_MENTIONS("host In array");
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_launch_prepared(takes_value, &one, ">i=", (void *)dest,
                                    sizeof dest, 1, (void *)a, sizeof a));
    TEST_ERROR_MENTIONS("argument 2");

    /* Nothing was staged, nothing copied back. */
    TEST_OK(kiln_pool_get_stats(f.context, &after));
    if (after.allocations != before.allocations ||
        after.bytes_in_use != before.bytes_in_use)
        fail_msg("refused launches allocated staging memory");
    for (int i = 0; i < COUNT; ++i)
        if (dest[i] != 12345.0f)
            fail_msg("a refused launch wrote the Out array (element %d)", i);
    TEST_OK(kiln_kernel_release(multiply));
    TEST_OK(kiln_kernel_release(takes_value));
    TEST_OK(kiln_program_release(f.program));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_multiply_them),
        KILN_TEST(test_inout_increment),
        KILN_TEST(test_in_is_not_copied_back),
        KILN_TEST(test_mixed_with_buffers),
        KILN_TEST(test_on_a_created_stream),
        KILN_TEST(test_staging_comes_from_the_pool),
        KILN_TEST(test_bad_host_arrays),
    };
    return kiln_test_main("host arguments", tests,
                          sizeof tests / sizeof tests[0]);
}
