/*
 * CUDA's barriers on every backend: threads that return (or fall off the
 * end) before a __syncthreads() that the others reach count as arrived,
 * as on an NVIDIA GPU.  The kernels of tests/kernels/cuda/early_exit.cu
 * run natively on the CUDA backend and translated on OpenCL (where
 * translate/cuda_barriers.c lowers them), each checked exactly against a
 * CPU model of the same steps on random inputs, with the bounds checks on
 * (KILN_CHECK=bounds: a write past a buffer is KILN_ERR_KERNEL_FAULT).
 * Block votes (__syncthreads_count/and/or) the same way.  Also what the
 * translation refuses, with the construct and the line.
 */
#include "config.h" /* _GNU_SOURCE: setenv under -std=c11 */

#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY(type, count) \
    ((type *)test_temp_alloc((size_t)(count) * sizeof(type)))

static kiln_program *early_exit_program(kiln_context *context)
{
    return test_temp_program_file(context, "tests/kernels/cuda/early_exit.cu",
                                  KILN_LANGUAGE_CUDA_C);
}

static void expect_floats(const char *what, const float *actual,
                          const float *expected, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (memcmp(&actual[i], &expected[i], sizeof(float)) != 0)
            fail_msg("%s[%zu] = %.9g, expected %.9g", what, i,
                     (double)actual[i], (double)expected[i]);
}

/* The kernel: 1024 threads, 16 of which load, meet at the
 * barrier and store; the other 1008 return first. */
static void test_doublify_32x32(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *doublify = test_temp_kernel(early_exit_program(context),
                                             "doublify");
    float a[16], result[16], expected[16];
    for (int run = 0; run < 5; ++run) {
        test_random_floats(a, 16, -10.0f, 10.0f);
        for (int i = 0; i < 16; ++i)
            expected[i] = 2 * a[i];
        kiln_buffer *in = test_temp_buffer_from(context, a, sizeof a);
        kiln_buffer *out = test_temp_buffer(context, sizeof result);
        TEST_LAUNCH(doublify, KILN_DIM1(1), KILN_DIM3(32, 32, 1), 0,
                    KILN_ARG_BUFFER(in), KILN_ARG_BUFFER(out));
        test_read(out, result, sizeof result);
        expect_floats("doublify", result, expected, 16);
    }
}

static void test_block_sum_partial(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(early_exit_program(context),
                                           "block_sum");
    enum { N = 1000, B = 256, BLOCKS = (N + B - 1) / B };
    float *x = ARRAY(float, N), *s = ARRAY(float, B);
    float partial[BLOCKS], expected[BLOCKS];
    test_random_floats(x, N, -1.0f, 1.0f);
    /* the kernel's tree, in its order */
    for (int b = 0; b < BLOCKS; ++b) {
        for (int t = 0; t < B && b * B + t < N; ++t)
            s[t] = x[b * B + t];
        for (int stride = B / 2; stride > 0; stride >>= 1)
            for (int t = 0; t < stride; ++t)
                if (b * B + t + stride < N)
                    s[t] += s[t + stride];
        expected[b] = s[0];
    }
    kiln_buffer *bx = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *bp = test_temp_buffer(context, sizeof partial);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bp), KILN_ARG_INT(N));
    test_read(bp, partial, sizeof partial);
    expect_floats("block_sum", partial, expected, BLOCKS);
}

static void test_block_scan_partial(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(early_exit_program(context),
                                           "block_scan");
    enum { N = 1000, B = 128, BLOCKS = (N + B - 1) / B };
    int *in = ARRAY(int, N), *out = ARRAY(int, N), *expected = ARRAY(int, N);
    test_random_ints(in, N, -1000, 1000);
    for (int i = 0; i < N; ++i)
        expected[i] = in[i] + (i % B ? expected[i - 1] : 0);
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bout = test_temp_buffer(context, N * sizeof *out);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), B * sizeof(int),
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout), KILN_ARG_INT(N));
    test_read(bout, out, N * sizeof *out);
    for (int i = 0; i < N; ++i)
        if (out[i] != expected[i])
            fail_msg("block_scan[%d] = %d, expected %d", i, out[i], expected[i]);
}

static void test_return_inside_loop(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(early_exit_program(context),
                                           "sum_until_negative");
    enum { B = 64, BLOCKS = 3, TILES = 6, N = B * BLOCKS * TILES };
    float *x = ARRAY(float, N), *out = ARRAY(float, B * BLOCKS);
    float *expected = ARRAY(float, B * BLOCKS);
    test_random_floats(x, N, -0.15f, 1.0f); /* about one value in eight < 0 */
    for (int b = 0; b < BLOCKS; ++b) {
        float tile[B], acc[B];
        int active[B];
        for (int t = 0; t < B; ++t) {
            acc[t] = 0;
            active[t] = 1;
        }
        for (int k = 0; k < TILES; ++k) {
            for (int t = 0; t < B; ++t) {
                if (!active[t])
                    continue;
                float v = x[(b * TILES + k) * B + t];
                if (v < 0) {
                    tile[t] = 0;
                    expected[b * B + t] = acc[t];
                    active[t] = 0;
                } else {
                    tile[t] = v;
                }
            }
            for (int t = 0; t < B; ++t)
                if (active[t])
                    acc[t] += tile[t ^ 1];
        }
        for (int t = 0; t < B; ++t)
            if (active[t])
                expected[b * B + t] = acc[t];
    }
    kiln_buffer *bx = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *bout = test_temp_buffer(context, B * BLOCKS * sizeof *out);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0, KILN_ARG_BUFFER(bx),
                KILN_ARG_BUFFER(bout), KILN_ARG_INT(TILES));
    test_read(bout, out, B * BLOCKS * sizeof *out);
    expect_floats("sum_until_negative", out, expected, B * BLOCKS);
}

static void test_returns_and_helpers(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = early_exit_program(context);
    kiln_kernel *normalise = test_temp_kernel(program, "normalise");
    kiln_kernel *suffix_sums = test_temp_kernel(program, "suffix_sums");
    enum { N = 1000, B = 256, BLOCKS = (N + B - 1) / B };
    float *x = ARRAY(float, N), *y = ARRAY(float, N), *s = ARRAY(float, B);
    float *expected = ARRAY(float, N);
    test_random_floats(x, N, 0.5f, 1.5f);
    kiln_buffer *bx = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *by = test_temp_buffer(context, N * sizeof *y);

    /* a kernel that returns early, then calls a helper that synchronises */
    for (int b = 0; b < BLOCKS; ++b) {
        int valid = N - b * B < B ? N - b * B : B;
        for (int t = 0; t < valid; ++t)
            s[t] = x[b * B + t];
        for (int stride = B / 2; stride > 0; stride >>= 1)
            for (int t = 0; t < stride; ++t)
                if (t + stride < valid)
                    s[t] += s[t + stride];
        for (int t = 0; t < valid; ++t)
            expected[b * B + t] = x[b * B + t] / s[0];
    }
    TEST_LAUNCH(normalise, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(by), KILN_ARG_INT(N));
    test_read(by, y, N * sizeof *y);
    /* OpenCL lets a float division be 2.5 ulp off */
    test_assert_floats_near(y, expected, N, 1e-6);

    /* a helper whose threads return before its barriers */
    enum { B2 = 128, BLOCKS2 = (N + B2 - 1) / B2 };
    for (int i = 0; i < N; ++i) {
        int base = i / B2 * B2, end = base + B2 < N ? base + B2 : N;
        float sum = 0;
        for (int k = i; k < end; ++k)
            sum += x[k];
        expected[i] = sum;
    }
    TEST_LAUNCH(suffix_sums, KILN_DIM1(BLOCKS2), KILN_DIM1(B2), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(by), KILN_ARG_INT(N));
    test_read(by, y, N * sizeof *y);
    expect_floats("suffix_sums", y, expected, N);
}

/* Threads past the end skip an if that holds the barrier and end. */
static void test_fall_off_the_end(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(early_exit_program(context),
                                           "reverse_in_block");
    enum { N = 1000, B = 64, BLOCKS = (N + B - 1) / B };
    float *a = ARRAY(float, N), *out = ARRAY(float, N);
    float *expected = ARRAY(float, N);
    test_random_floats(a, N, -5.0f, 5.0f);
    for (int i = 0; i < N; ++i) {
        int base = i / B * B, last = (N - base < B ? N - base : B) - 1;
        expected[i] = a[base + last - (i - base)];
    }
    kiln_buffer *ba = test_temp_buffer_from(context, a, N * sizeof *a);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(ba), KILN_ARG_INT(N));
    test_read(ba, out, N * sizeof *out);
    expect_floats("reverse_in_block", out, expected, N);
}

/* __syncthreads_count/and/or, where threads returned (they do not vote)
 * and in a helper; one block all positive so that `and` is seen true. */
static void test_block_votes(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = early_exit_program(context);
    kiln_kernel *votes = test_temp_kernel(program, "votes");
    kiln_kernel *in_helper = test_temp_kernel(program, "votes_in_helper");
    enum { N = 1000, B = 128, BLOCKS = (N + B - 1) / B };
    int *x = ARRAY(int, BLOCKS * B), *out = ARRAY(int, BLOCKS * B);
    int *expected = ARRAY(int, BLOCKS * B);
    test_random_ints(x, BLOCKS * B, -50, 150);
    for (int t = 0; t < B; ++t)
        x[2 * B + t] = 1 + abs(x[2 * B + t]);
    kiln_buffer *bx = test_temp_buffer_from(context, x, BLOCKS * B * sizeof *x);
    kiln_buffer *bout = test_temp_buffer(context, BLOCKS * B * sizeof *out);
    for (int b = 0; b < BLOCKS; ++b) {
        int count = 0, all = 1, any = 0;
        for (int i = b * B; i < (b + 1) * B && i < N; ++i) {
            count += x[i] > 0;
            all &= x[i] > 0;
            any |= x[i] > 100;
        }
        for (int i = b * B; i < (b + 1) * B && i < N; ++i)
            expected[i] = count * 4 + (all ? 2 : 0) + (any ? 1 : 0);
    }
    TEST_LAUNCH(votes, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0, KILN_ARG_BUFFER(bx),
                KILN_ARG_BUFFER(bout), KILN_ARG_INT(N));
    test_read(bout, out, N * sizeof *out);
    for (int i = 0; i < N; ++i)
        if (out[i] != expected[i])
            fail_msg("votes[%d] = %d, expected %d", i, out[i], expected[i]);
    for (int b = 0; b < BLOCKS; ++b) {
        int odd = 0, all = 1;
        for (int i = b * B; i < (b + 1) * B; ++i) {
            odd += x[i] & 1;
            all &= x[i] > 0;
        }
        for (int i = b * B; i < (b + 1) * B; ++i)
            expected[i] = odd + 1000 * all;
    }
    TEST_LAUNCH(in_helper, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bout));
    test_read(bout, out, BLOCKS * B * sizeof *out);
    for (int i = 0; i < BLOCKS * B; ++i)
        if (out[i] != expected[i])
            fail_msg("votes_in_helper[%d] = %d, expected %d", i, out[i],
                     expected[i]);
}

/* Warp-synchronous code: the unrolled last warp of a reduction in
 * volatile shared memory (no barrier: the 32 lanes of a warp move in
 * lockstep on a GPU, not on a CPU), and with __syncwarp().  The CPU
 * models each step as a warp runs it: every lane reads, then writes. */
static void test_warp_synchronous(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = early_exit_program(context);
    kiln_kernel *reduce6 = test_temp_kernel(program, "reduce6");
    kiln_kernel *syncwarp = test_temp_kernel(program, "reduce_syncwarp");
    enum { N = 3000, B = 256, BLOCKS = (N + 2 * B - 1) / (2 * B) };
    float *x = ARRAY(float, N), *out = ARRAY(float, BLOCKS * 8);
    float *expected = ARRAY(float, BLOCKS * 8);
    test_random_floats(x, N, -1.0f, 1.0f);
    for (int b = 0; b < BLOCKS; ++b) {
        float sdata[B], sum[B], step[32];
        for (int t = 0; t < B; ++t) {
            int i = b * 2 * B + t;
            sum[t] = i < N ? x[i] : 0;
            if (i + B < N)
                sum[t] += x[i + B];
            sdata[t] = sum[t];
        }
        for (int stride = B / 2; stride > 32; stride >>= 1)
            for (int t = 0; t < stride; ++t)
                sdata[t] = sum[t] = sum[t] + sdata[t + stride];
        for (int offset = 32; offset > 0; offset >>= 1) {
            for (int t = 0; t < 32; ++t)
                step[t] = sdata[t] + sdata[t + offset];
            memcpy(sdata, step, sizeof step);
        }
        expected[b] = sdata[0];
    }
    kiln_buffer *bx = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *bout = test_temp_buffer(context, BLOCKS * 8 * sizeof *out);
    TEST_LAUNCH(reduce6, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0, KILN_ARG_BUFFER(bx),
                KILN_ARG_BUFFER(bout), KILN_ARG_UINT(N));
    test_read(bout, out, BLOCKS * sizeof *out);
    expect_floats("reduce6", out, expected, BLOCKS);

    enum { B2 = 64, BLOCKS2 = N / B2 };
    for (int b = 0; b < BLOCKS2; ++b) {
        float sdata[B2], v[32];
        memcpy(sdata, &x[b * B2], sizeof sdata);
        for (int t = 0; t < 32; ++t)
            v[t] = sdata[t];
        for (int offset = 32; offset > 0; offset >>= 1) {
            for (int t = 0; t < 32; ++t)
                v[t] += sdata[t + offset];
            memcpy(sdata, v, sizeof v);
        }
        expected[b] = v[0];
    }
    kiln_buffer *bout2 = test_temp_buffer(context, BLOCKS2 * sizeof *out);
    float *out2 = ARRAY(float, BLOCKS2);
    TEST_LAUNCH(syncwarp, KILN_DIM1(BLOCKS2), KILN_DIM1(B2), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bout2));
    test_read(bout2, out2, BLOCKS2 * sizeof *out2);
    expect_floats("reduce_syncwarp", out2, expected, BLOCKS2);
}

/* ---- refused on OpenCL, with the construct and the line ------------------ */

static void test_refusals(void **state)
{
    kiln_context *context = test_context(state);
    if (strcmp(test_backend(state), "opencl") != 0) {
        printf("# the CUDA backend compiles these natively\n");
        skip();
    }
    static const struct {
        const char *source;
        const char *mentions;
        const char *line;
    } cases[] = {
        /* a barrier in a loop whose trip count depends on the thread */
        {"__global__ void k(float *a, int n) {\n"
         "  __shared__ float s[64];\n"
         "  int i = threadIdx.x;\n"
         "  if (i >= n) return;\n"
         "  for (int j = 0; j < i; ++j) {\n"
         "    s[i] = j;\n"
         "    __syncthreads();\n"
         "  }\n"
         "  a[i] = s[i];\n"
         "}\n",
         "trip count", "refused.cu:7:"},
        /* a barrier under a condition on the thread, code after it */
        {"__global__ void k(float *a, int n) {\n"
         "  __shared__ float s[64];\n"
         "  int i = threadIdx.x;\n"
         "  if (i >= n) return;\n"
         "  if (i % 2) {\n"
         "    s[i] = 1;\n"
         "    __syncthreads();\n"
         "  }\n"
         "  a[i] = s[i];\n"
         "}\n",
         "condition", "refused.cu:7:"},
        /* a break only some threads take, out of a loop that synchronises */
        {"__global__ void k(float *a, int n) {\n"
         "  __shared__ float s[64];\n"
         "  int i = threadIdx.x;\n"
         "  if (i >= n) return;\n"
         "  for (int j = 0; j < 8; ++j) {\n"
         "    if (a[i] > j) break;\n"
         "    __syncthreads();\n"
         "  }\n"
         "}\n",
         "break", "refused.cu:7:"},
        /* goto in a kernel that must be lowered */
        {"__global__ void k(float *a, int n) {\n"
         "  int i = threadIdx.x;\n"
         "  if (i >= n) return;\n"
         "  if (a[i] < 0) goto done;\n"
         "  a[i] = 1;\n"
         "done:\n"
         "  __syncthreads();\n"
         "}\n",
         "goto", "refused.cu:4:"},
        /* a call that synchronises that only some threads would make */
        {"__device__ float total(float v, float *s) {\n"
         "  s[threadIdx.x] = v;\n"
         "  __syncthreads();\n"
         "  return s[0];\n"
         "}\n"
         "__global__ void k(float *a, int n) {\n"
         "  __shared__ float s[64];\n"
         "  int i = threadIdx.x;\n"
         "  if (i >= n) return;\n"
         "  a[i] = a[i] > 0 ? total(a[i], s) : 0;\n"
         "}\n",
         "'?'", "refused.cu:10:"},
        /* warp-synchronous code in a loop whose trip count is the thread's */
        {"__global__ void k(float *a) {\n"
         "  __shared__ float s[65];\n"
         "  volatile float *v = s;\n"
         "  int t = threadIdx.x;\n"
         "  s[t] = a[t];\n"
         "  __syncthreads();\n"
         "  for (int j = 0; j < t; ++j)\n"
         "    v[t] += v[t + 1];\n"
         "  a[t] = s[t];\n"
         "}\n",
         "warp-synchronous", "refused.cu:8:"},
        /* a barrier inside a switch */
        {"__global__ void k(float *a, int n, int m) {\n"
         "  int i = threadIdx.x;\n"
         "  if (i >= n) return;\n"
         "  switch (m) {\n"
         "  case 1: __syncthreads(); break;\n"
         "  default: break;\n"
         "  }\n"
         "  a[i] = 0;\n"
         "}\n",
         "switch", "refused.cu:5:"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        test_expect_refused(context, cases[c].source, cases[c].mentions,
                            cases[c].line, c);
}

int main(void)
{
    /* every context of this program checks for writes past buffers */
    setenv("KILN_CHECK", "bounds", 1);
    static const kiln_test tests[] = {
        KILN_TEST(test_doublify_32x32),
        KILN_TEST(test_block_sum_partial),
        KILN_TEST(test_block_scan_partial),
        KILN_TEST(test_return_inside_loop),
        KILN_TEST(test_returns_and_helpers),
        KILN_TEST(test_fall_off_the_end),
        KILN_TEST(test_block_votes),
        KILN_TEST(test_warp_synchronous),
        KILN_TEST(test_refusals),
    };
    return kiln_test_main("cuda_barriers", tests,
                          sizeof tests / sizeof tests[0]);
}
