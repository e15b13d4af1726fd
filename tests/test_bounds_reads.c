/*
 * The checked mode for reads (issue 29, point 6): with KILN_CHECK_BOUNDS
 * the OpenCL backend's kernels are built with instrumented accesses, and a
 * read one element before or past either end of a buffer argument is
 * KILN_ERR_KERNEL_FAULT naming the kernel, the argument (index and name)
 * and the byte offset; a read that lands in a neighbouring argument's
 * guard zone is blamed on the argument it went through.  OpenCL C and CUDA
 * C (translated) kernels, reads through parameters, through local
 * pointers made from them and through a buffer view; correct kernels
 * compute what the CPU does, checks on or off.  The CUDA backend checks
 * writes only (guard zones): its cases skip, saying so.
 */
#include "config.h" /* _GNU_SOURCE */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kiln_context *checked_context(void **state)
{
    kiln_context *context = NULL;
    (void)test_context(state); /* skips an unavailable backend */
    if (strcmp(test_backend(state), "opencl") != 0)
        skip(); /* the CUDA backend's checked mode sees writes only */
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    TEST_OK(kiln_context_set_checks(context, KILN_CHECK_BOUNDS));
    return context;
}

static const char gather_opencl[] =
    "__kernel void gather(__global float *out, __global const float *in,\n"
    "                     __global const int *idx, int n) {\n"
    "    int i = (int)get_global_id(0);\n"
    "    if (i < n)\n"
    "        out[i] = in[idx[i]];\n"
    "}\n";

static const char gather_cuda[] =
    "__global__ void gather(float *out, const float *in, const int *idx,\n"
    "                       int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = in[idx[i]];\n"
    "}\n";

static size_t random_size(size_t low, size_t high)
{
    return low + (size_t)(test_random_u64() % (high - low + 1));
}

/* out[i] = in[idx[i]] with one idx entry at -1 or at the input's length:
 * the read is reported with its offset, and every other element is what
 * the CPU reads. */
static void gather_reads_outside(void **state, bool cuda)
{
    kiln_context *context = checked_context(state);
    kiln_program *program = cuda ? test_build_cuda(context, gather_cuda, NULL)
                                 : test_build(context, gather_opencl, NULL);
    kiln_kernel *kernel = test_kernel(program, "gather");
    for (int round = 0; round < 4; ++round) {
        size_t length = random_size(17, 3000), n = random_size(1, 2000);
        float *input = malloc(length * sizeof *input);
        int32_t *idx = malloc(n * sizeof *idx);
        float *result = malloc(n * sizeof *result);
        assert_non_null(input);
        assert_non_null(idx);
        assert_non_null(result);
        test_random_floats(input, length, -50, 50);
        test_random_ints(idx, n, 0, (int32_t)length - 1);
        size_t bad = random_size(0, n - 1);
        bool before = round % 2 == 0;
        idx[bad] = before ? -1 : (int32_t)length;
        kiln_buffer *out = test_buffer(context, n * sizeof *result);
        kiln_buffer *in = test_buffer_from(context, input,
                                           length * sizeof *input);
        kiln_buffer *indices = test_buffer_from(context, idx, n * sizeof *idx);
        kiln_arg args[] = {KILN_ARG_BUFFER(out), KILN_ARG_BUFFER(in),
                           KILN_ARG_BUFFER(indices), KILN_ARG_INT((int)n)};
        kiln_launch_config config = test_config_1d(n, 64);
        TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 4, args));
        TEST_ERROR_MENTIONS("'gather'");
        TEST_ERROR_MENTIONS("argument 1 (");
        TEST_ERROR_MENTIONS(" in)");
        char text[96];
        snprintf(text, sizeof text, "read 4 bytes at byte offset %lld",
                 before ? -4LL : (long long)(length * sizeof *input));
        TEST_ERROR_MENTIONS(text);
        snprintf(text, sizeof text, "of %zu bytes", length * sizeof *input);
        TEST_ERROR_MENTIONS(text);
        TEST_ERROR_MENTIONS(before ? "before its start" : "past its end");
        if (strstr(kiln_last_error(), "argument 0") != NULL ||
            strstr(kiln_last_error(), "argument 2") != NULL)
            fail_msg("blamed on another argument: %s", kiln_last_error());
        test_read(out, result, n * sizeof *result);
        for (size_t i = 0; i < n; ++i)
            if (i != bad && result[i] != input[idx[i]])
                fail_msg("element %zu: %g, expected %g", i, (double)result[i],
                         (double)input[idx[i]]);
        TEST_OK(kiln_buffer_release(out));
        TEST_OK(kiln_buffer_release(in));
        TEST_OK(kiln_buffer_release(indices));
        free(input);
        free(idx);
        free(result);
    }
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
}

static void opencl_c_read_before_and_past_each_end(void **state)
{
    gather_reads_outside(state, false);
}

static void cuda_c_read_before_and_past_each_end(void **state)
{
    gather_reads_outside(state, true);
}

/* A read far past a that lands in b's guard zone (the addresses of both
 * buffers are flat on the backends Kiln runs) is a's fault, never b's; a
 * read just before b through b is b's. */
static void read_into_a_neighbours_zone_is_blamed_on_its_pointer(void **state)
{
    kiln_context *context = checked_context(state);
    kiln_program *program = test_build(
        context,
        "__kernel void far_read(__global const uchar *a,\n"
        "                       __global const uchar *b,\n"
        "                       __global uchar *out, long back, int via_b) {\n"
        "    if (get_global_id(0) == 0)\n"
        "        out[0] = via_b ? b[-back] : a[(b - a) - back];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "far_read");
    size_t size = random_size(64, 4096);
    kiln_buffer *a = test_buffer(context, size);
    kiln_buffer *b = test_buffer(context, size);
    kiln_buffer *out = test_buffer(context, 1);
    long long back = 1 + (long long)(test_random_u64() % 16);
    kiln_arg args[] = {KILN_ARG_BUFFER(a), KILN_ARG_BUFFER(b),
                       KILN_ARG_BUFFER(out), KILN_ARG_LONG(back),
                       KILN_ARG_INT(0)};
    kiln_launch_config config = test_config_1d(1, 1);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 5, args));
    TEST_ERROR_MENTIONS("'far_read'");
    TEST_ERROR_MENTIONS("argument 0 (");
    TEST_ERROR_MENTIONS("read 1 byte at byte offset");
    if (strstr(kiln_last_error(), "argument 1") != NULL)
        fail_msg("a read through a blamed on b: %s", kiln_last_error());
    args[4] = KILN_ARG_INT(1);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 5, args));
    TEST_ERROR_MENTIONS("argument 1 (");
    char text[64];
    snprintf(text, sizeof text, "read 1 byte at byte offset %lld ", -back);
    TEST_ERROR_MENTIONS(text);
    TEST_ERROR_MENTIONS("before its start");
    TEST_OK(kiln_buffer_release(a));
    TEST_OK(kiln_buffer_release(b));
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
}

/* Through local pointers made from a parameter (a row of a matrix), and
 * through a view, whose offsets count from the view's start. */
static void reads_through_local_pointers_and_views(void **state)
{
    kiln_context *context = checked_context(state);
    kiln_program *program = test_build(
        context,
        "__kernel void row_read(__global float *out,\n"
        "                       __global const float *m, int cols,\n"
        "                       int row, int col) {\n"
        "    __global const float *r = m + row * cols;\n"
        "    if (get_global_id(0) == 0)\n"
        "        out[0] = *(r + col) + r[0];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "row_read");
    /* more than 1024 elements, for the view below */
    int rows = (int)random_size(40, 80), cols = (int)random_size(30, 60);
    size_t bytes = (size_t)rows * (size_t)cols * sizeof(float);
    float *host = malloc(bytes);
    assert_non_null(host);
    test_random_floats(host, (size_t)rows * (size_t)cols, -9, 9);
    kiln_buffer *m = test_buffer_from(context, host, bytes);
    kiln_buffer *out = test_buffer(context, sizeof(float));
    kiln_launch_config config = test_config_1d(1, 1);
    /* inside: the CPU's sum */
    int row = (int)random_size(0, (size_t)rows - 1);
    int col = (int)random_size(0, (size_t)cols - 1);
    kiln_arg args[] = {KILN_ARG_BUFFER(out), KILN_ARG_BUFFER(m),
                       KILN_ARG_INT(cols), KILN_ARG_INT(row),
                       KILN_ARG_INT(col)};
    TEST_OK(kiln_launch(kernel, &config, 5, args));
    float sum = 0;
    test_read(out, &sum, sizeof sum);
    assert_true(sum == host[row * cols + col] + host[row * cols]);
    /* the last row's element past its end: past the matrix */
    args[3] = KILN_ARG_INT(rows - 1);
    args[4] = KILN_ARG_INT(cols);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 5, args));
    TEST_ERROR_MENTIONS("argument 1 (");
    char text[96];
    snprintf(text, sizeof text, "read 4 bytes at byte offset %zu ", bytes);
    TEST_ERROR_MENTIONS(text);
    /* the first row's element before it */
    args[3] = KILN_ARG_INT(0);
    args[4] = KILN_ARG_INT(-1);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 5, args));
    TEST_ERROR_MENTIONS("read 4 bytes at byte offset -4 ");

    /* A view from element 1024 (OpenCL C takes views at the device's base
     * alignment: 128 bytes on PoCL, 512 on NVIDIA's OpenCL; 4096 is a
     * multiple of any): its element 0 is the matrix's 1024. */
    kiln_buffer *view = NULL;
    TEST_OK(kiln_buffer_create_view(m, 1024 * sizeof(float),
                                    bytes - 1024 * sizeof(float), &view));
    args[1] = KILN_ARG_BUFFER(view);
    args[3] = KILN_ARG_INT(0);
    args[4] = KILN_ARG_INT(0);
    TEST_OK(kiln_launch(kernel, &config, 5, args));
    test_read(out, &sum, sizeof sum);
    assert_true(sum == 2 * host[1024]);
    args[4] = KILN_ARG_INT(-1);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 5, args));
    TEST_ERROR_MENTIONS("read 4 bytes at byte offset -4 ");
    TEST_OK(kiln_buffer_release(view));

    TEST_OK(kiln_buffer_release(m));
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
    free(host);
}

/* A CUDA C view: translated kernels take their base and a hidden offset,
 * and the offset reported still counts from the view's start. */
static void cuda_c_view_offsets_count_from_the_view(void **state)
{
    kiln_context *context = checked_context(state);
    kiln_program *program = test_build_cuda(
        context,
        "__global__ void shift(float *out, const float *in, int by, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    const float *p = in + by;\n"
        "    if (i < n) out[i] = p[i];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "shift");
    size_t n = random_size(8, 1000), skip_elements = random_size(1, 50);
    size_t total = n + skip_elements;
    float *host = malloc(total * sizeof *host);
    float *result = malloc(n * sizeof *result);
    assert_non_null(host);
    assert_non_null(result);
    test_random_floats(host, total, -3, 3);
    kiln_buffer *whole = test_buffer_from(context, host, total * sizeof *host);
    kiln_buffer *view = NULL;
    TEST_OK(kiln_buffer_create_view(whole, skip_elements * sizeof *host,
                                    n * sizeof *host, &view));
    kiln_buffer *out = test_buffer(context, n * sizeof *result);
    kiln_launch_config config = test_config_1d(n, 32);
    kiln_arg args[] = {KILN_ARG_BUFFER(out), KILN_ARG_BUFFER(view),
                       KILN_ARG_INT(0), KILN_ARG_INT((int)n)};
    TEST_OK(kiln_launch(kernel, &config, 4, args));
    test_read(out, result, n * sizeof *result);
    test_assert_floats_near(result, host + skip_elements, n, 0);
    args[2] = KILN_ARG_INT(1); /* the last thread reads one past the view */
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 4, args));
    TEST_ERROR_MENTIONS("'shift'");
    TEST_ERROR_MENTIONS("argument 1 (");
    char text[96];
    snprintf(text, sizeof text, "read 4 bytes at byte offset %zu ",
             n * sizeof *host);
    TEST_ERROR_MENTIONS(text);
    args[2] = KILN_ARG_INT(-1); /* the first reads one before it */
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 4, args));
    TEST_ERROR_MENTIONS("read 4 bytes at byte offset -4 ");
    TEST_OK(kiln_buffer_release(view));
    TEST_OK(kiln_buffer_release(whole));
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
    free(host);
    free(result);
}

/* Kernels that stay inside compute what the CPU does with checks on:
 * subscripts, *(p + i), *p, local pointers, vectors, atomics. */
static const char correct_opencl[] =
    "__kernel void stencil(__global float *out, __global const float *in,\n"
    "                      __global const float4 *v, __global int *hist,\n"
    "                      int n) {\n"
    "    int i = (int)get_global_id(0);\n"
    "    if (i >= n) return;\n"
    "    __global const float *left = in + i;\n"
    "    float s = left[0] + *(left + 1) + *(in + i + 2);\n"
    "    float4 w = v[i];\n"
    "    out[i] = s * w.x + w.w;\n"
    "    if (i == 0) *out += *in;\n"
    "    atomic_add(&hist[i % 7], 1);\n"
    "}\n";

static const char correct_cuda[] =
    "__global__ void stencil(float *out, const float *in, const float4 *v,\n"
    "                        int *hist, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    const float *left = in + i;\n"
    "    float s = left[0] + *(left + 1) + *(in + i + 2);\n"
    "    float4 w = v[i];\n"
    "    out[i] = s * w.x + w.w;\n"
    "    if (i == 0) *out += *in;\n"
    "    atomicAdd(&hist[i % 7], 1);\n"
    "}\n";

static void correct_kernels_are_unchanged(void **state, bool cuda)
{
    kiln_context *context = checked_context(state);
    kiln_program *program = cuda ? test_build_cuda(context, correct_cuda, NULL)
                                 : test_build(context, correct_opencl, NULL);
    kiln_kernel *kernel = test_kernel(program, "stencil");
    size_t n = random_size(1, 5000);
    float *in = malloc((n + 2) * sizeof *in);
    float *v = malloc(4 * n * sizeof *v);
    float *expected = malloc(n * sizeof *expected);
    float *result = malloc(n * sizeof *result);
    assert_non_null(in);
    assert_non_null(v);
    assert_non_null(expected);
    assert_non_null(result);
    test_random_floats(in, n + 2, -10, 10);
    test_random_floats(v, 4 * n, -2, 2);
    int32_t hist_expected[7] = {0}, hist[7];
    for (size_t i = 0; i < n; ++i) {
        float s = in[i] + in[i + 1] + in[i + 2];
        expected[i] = s * v[4 * i] + v[4 * i + 3];
        hist_expected[i % 7]++;
    }
    expected[0] += in[0];
    kiln_buffer *out = test_buffer(context, n * sizeof *result);
    kiln_buffer *in_buffer = test_buffer_from(context, in, (n + 2) * sizeof *in);
    kiln_buffer *v_buffer = test_buffer_from(context, v, 4 * n * sizeof *v);
    kiln_buffer *hist_buffer = test_buffer_from(context, hist_expected,
                                                sizeof hist_expected);
    const int32_t zero = 0;
    TEST_OK(kiln_buffer_fill(hist_buffer, 0, sizeof hist, &zero, sizeof zero));
    kiln_arg args[] = {KILN_ARG_BUFFER(out), KILN_ARG_BUFFER(in_buffer),
                       KILN_ARG_BUFFER(v_buffer), KILN_ARG_BUFFER(hist_buffer),
                       KILN_ARG_INT((int)n)};
    kiln_launch_config config = test_config_1d(n, 64);
    TEST_OK(kiln_launch(kernel, &config, 5, args));
    test_read(out, result, n * sizeof *result);
    test_assert_floats_near(result, expected, n, 1e-5);
    test_read(hist_buffer, hist, sizeof hist);
    assert_memory_equal(hist, hist_expected, sizeof hist);
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_buffer_release(in_buffer));
    TEST_OK(kiln_buffer_release(v_buffer));
    TEST_OK(kiln_buffer_release(hist_buffer));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
    free(in);
    free(v);
    free(expected);
    free(result);
}

static void opencl_c_correct_kernel_is_unchanged(void **state)
{
    correct_kernels_are_unchanged(state, false);
}

static void cuda_c_correct_kernel_is_unchanged(void **state)
{
    correct_kernels_are_unchanged(state, true);
}

/* The checked build is a program of its own: the same source built in a
 * context without checks is the plain program, launched with the user's
 * arguments alone; a kernel's parameters are the user's either way. */
static void checked_and_plain_builds_are_apart(void **state)
{
    kiln_context *checked = checked_context(state);
    kiln_context *plain = test_context(state);
    kiln_program *program = test_build(checked, gather_opencl, NULL);
    kiln_kernel *kernel = test_kernel(program, "gather");
    size_t count = 0;
    TEST_OK(kiln_kernel_get_param_count(kernel, &count));
    assert_int_equal(count, 4);
    kiln_program *plain_program = test_build(plain, gather_opencl, NULL);
    kiln_kernel *plain_kernel = test_kernel(plain_program, "gather");
    TEST_OK(kiln_kernel_get_param_count(plain_kernel, &count));
    assert_int_equal(count, 4);
    float input[8];
    test_random_floats(input, 8, 1, 2);
    int32_t idx[2] = {3, 8};
    kiln_buffer *out = test_buffer(plain, sizeof(float) * 2);
    kiln_buffer *in = test_buffer_from(plain, input, sizeof input);
    kiln_buffer *indices = test_buffer_from(plain, idx, sizeof idx);
    kiln_arg args[] = {KILN_ARG_BUFFER(out), KILN_ARG_BUFFER(in),
                       KILN_ARG_BUFFER(indices), KILN_ARG_INT(1)};
    kiln_launch_config config = test_config_1d(1, 1);
    TEST_OK(kiln_launch(plain_kernel, &config, 4, args));
    float first = 0;
    test_read(out, &first, sizeof first);
    assert_true(first == input[3]);
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_buffer_release(in));
    TEST_OK(kiln_buffer_release(indices));
    TEST_OK(kiln_kernel_release(plain_kernel));
    TEST_OK(kiln_program_release(plain_program));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(checked));
}

/* A valid program the instrumentation breaks (a kernel called from another
 * as a function: its added parameter is missing in the call) is built as
 * it is, and computes what the CPU does; a wrong program still fails, with
 * the compiler's message about the user's text. */
static void programs_it_cannot_instrument_still_build(void **state)
{
    kiln_context *context = checked_context(state);
    kiln_program *program = test_build(
        context,
        "__kernel void twice(__global float *a) {\n"
        "    a[get_global_id(0)] *= 2.0f;\n"
        "}\n"
        "__kernel void four_times(__global float *a) {\n"
        "    twice(a);\n"
        "    twice(a);\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "four_times");
    size_t n = random_size(1, 999);
    float *host = malloc(n * sizeof *host), *result = malloc(n * sizeof *host);
    assert_non_null(host);
    assert_non_null(result);
    test_random_floats(host, n, -8, 8);
    kiln_buffer *a = test_buffer_from(context, host, n * sizeof *host);
    kiln_arg args[] = {KILN_ARG_BUFFER(a)};
    kiln_launch_config config = test_config_1d(n, 1);
    TEST_OK(kiln_launch(kernel, &config, 1, args));
    test_read(a, result, n * sizeof *result);
    for (size_t i = 0; i < n; ++i)
        host[i] *= 4;
    test_assert_floats_near(result, host, n, 0);
    kiln_program *wrong = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build(context,
                                  "__kernel void broken(__global float *a) {\n"
                                  "    a[0] = undeclared_name;\n"
                                  "}\n",
                                  NULL, &wrong));
    TEST_ERROR_MENTIONS("undeclared_name");
    TEST_OK(kiln_buffer_release(a));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
    free(host);
    free(result);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(opencl_c_read_before_and_past_each_end),
        KILN_TEST(cuda_c_read_before_and_past_each_end),
        KILN_TEST(read_into_a_neighbours_zone_is_blamed_on_its_pointer),
        KILN_TEST(reads_through_local_pointers_and_views),
        KILN_TEST(cuda_c_view_offsets_count_from_the_view),
        KILN_TEST(opencl_c_correct_kernel_is_unchanged),
        KILN_TEST(cuda_c_correct_kernel_is_unchanged),
        KILN_TEST(checked_and_plain_builds_are_apart),
        KILN_TEST(programs_it_cannot_instrument_still_build),
    };
    return kiln_test_main("bounds_reads", tests,
                          sizeof tests / sizeof tests[0]);
}
