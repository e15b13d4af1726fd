/*
 * CUDA C conformance: the kernels of tests/kernels/cuda (one program per .cu file), written as
 * tutorials and the CUDA samples write them, run through the public API
 * on every backend and checked against the CPU on random inputs.  On the
 * CUDA backend they run natively; on OpenCL (PoCL in CI, NVIDIA's OpenCL
 * on the GPU machine) translated to OpenCL C.  Also: what Kiln reads of
 * CUDA C signatures, kernel listing, __device__/__constant__ variables
 * from the host (kiln_program_get_global), and the constructs the OpenCL
 * translation refuses.
 *
 * Each .cu file is one program (built once per backend and then found in
 * the kernel cache), so that the suite stays fast on PoCL.
 */
#include "config.h" /* _GNU_SOURCE: dup, open under -std=c11 */

#include "harness.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------------- */

/* tests/kernels/cuda/NAME.cu as CUDA C, released when the test ends (as
 * everything the tests take with test_temp_*). */
static kiln_program *cuda_program(kiln_context *context, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/kernels/cuda/%s.cu", name);
    return test_temp_program_file(context, path, KILN_LANGUAGE_CUDA_C);
}

#define ARRAY(type, count) \
    ((type *)test_temp_alloc((size_t)(count) * sizeof(type)))

static void expect_ints(const char *what, const int *actual,
                        const int *expected, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (actual[i] != expected[i])
            fail_msg("%s[%zu] = %d, expected %d", what, i, actual[i],
                     expected[i]);
}

static void expect_uints(const char *what, const unsigned *actual,
                         const unsigned *expected, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (actual[i] != expected[i])
            fail_msg("%s[%zu] = %u (0x%x), expected %u (0x%x)", what, i,
                     actual[i], actual[i], expected[i], expected[i]);
}

static void expect_near(const char *what, const float *actual,
                        const double *expected, size_t count, double absolute,
                        double relative)
{
    for (size_t i = 0; i < count; ++i) {
        double bound = absolute + relative * fabs(expected[i]);
        if (!(fabs((double)actual[i] - expected[i]) <= bound))
            fail_msg("%s[%zu] = %.9g, expected %.9g (bound %.3g)", what, i,
                     (double)actual[i], expected[i], bound);
    }
}

/* ---- the PyCUDA tutorial and first kernels ----------------------------------------- */

static void test_doublify(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "tutorial");
    kiln_kernel *doublify = test_temp_kernel(program, "doublify");
    kiln_kernel *shared = test_temp_kernel(program, "doublify_shared");
    float a[16], result[16];
    test_random_floats(a, 16, -10.0f, 10.0f);
    kiln_buffer *buffer = test_temp_buffer_from(context, a, sizeof a);
    TEST_LAUNCH(doublify, KILN_DIM1(1), KILN_DIM2(4, 4), 0,
                KILN_ARG_BUFFER(buffer));
    test_read(buffer, result, sizeof result);
    for (int i = 0; i < 16; ++i)
        if (result[i] != 2 * a[i])
            fail_msg("doublify: a[%d] = %g, expected %g", i, result[i], 2 * a[i]);
    /* the shared-memory version doubles the mirror element */
    TEST_OK(kiln_buffer_write(buffer, 0, a, sizeof a));
    TEST_LAUNCH(shared, KILN_DIM1(1), KILN_DIM2(4, 4), 0,
                KILN_ARG_BUFFER(buffer));
    test_read(buffer, result, sizeof result);
    for (int i = 0; i < 16; ++i)
        if (result[i] != 2 * a[15 - i])
            fail_msg("doublify_shared: a[%d] = %g, expected %g", i, result[i],
                     2 * a[15 - i]);
}

static void test_multiply_them(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "tutorial");
    kiln_kernel *kernel = test_temp_kernel(program, "multiply_them");
    enum { N = 400 };
    float a[N], b[N], dest[N];
    test_random_floats(a, N, -1.0f, 1.0f);
    test_random_floats(b, N, -1.0f, 1.0f);
    /* PyCUDA's drv.Out / drv.In */
    TEST_LAUNCH(kernel, KILN_DIM1(1), KILN_DIM1(N), 0,
                KILN_ARG_OUT(dest, sizeof dest), KILN_ARG_IN(a, sizeof a),
                KILN_ARG_IN(b, sizeof b));
    for (int i = 0; i < N; ++i)
        if (dest[i] != a[i] * b[i])
            fail_msg("multiply_them: dest[%d] = %g, expected %g", i, dest[i],
                     a[i] * b[i]);
}

static void test_sum_of_squares(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "tutorial");
    kiln_kernel *kernel = test_temp_kernel(program, "sum_of_squares");
    enum { N = 10000 };
    float *x = ARRAY(float, N);
    test_random_floats(x, N, -1.0f, 1.0f);
    double expected = 0;
    for (int i = 0; i < N; ++i)
        expected += (double)x[i] * x[i];
    float zero = 0, total = 0;
    kiln_buffer *in = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *sum = test_temp_buffer_from(context, &zero, sizeof zero);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 256)), KILN_DIM1(256), 0,
                KILN_ARG_BUFFER(in), KILN_ARG_INT(N), KILN_ARG_BUFFER(sum));
    test_read(sum, &total, sizeof total);
    /* N float additions in any order: within N * 2^-24 of the exact sum */
    expect_near("sum_of_squares", &total, &expected, 1, 0, N * 0x1p-24);
}

static void test_saxpy_vector_add_matrices(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "tutorial");
    kiln_kernel *saxpy = test_temp_kernel(program, "saxpy");
    kiln_kernel *add = test_temp_kernel(program, "vectorAdd");
    kiln_kernel *matrices = test_temp_kernel(program, "add_matrices");
    enum { N = 100003, W = 37, H = 29 };
    float *x = ARRAY(float, N), *y = ARRAY(float, N), *out = ARRAY(float, N);
    double *expected = ARRAY(double, N);
    test_random_floats(x, N, -2.0f, 2.0f);
    test_random_floats(y, N, -2.0f, 2.0f);
    float a = test_random_float(0.5f, 2.0f);
    kiln_buffer *bx = test_temp_buffer_from(context, x, N * sizeof(float));
    kiln_buffer *by = test_temp_buffer_from(context, y, N * sizeof(float));
    kiln_buffer *bout = test_temp_buffer(context, N * sizeof(float));
    /* a grid-stride loop: fewer threads than elements */
    TEST_LAUNCH(saxpy, KILN_DIM1(40), KILN_DIM1(128), 0, KILN_ARG_FLOAT(a),
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(by), KILN_ARG_ULONG(N));
    test_read(by, out, N * sizeof(float));
    for (int i = 0; i < N; ++i)
        expected[i] = (double)a * x[i] + y[i];
    expect_near("saxpy", out, expected, N, 1e-6, 1e-6);
    TEST_LAUNCH(add, KILN_DIM1(test_blocks(N, 256)), KILN_DIM1(256), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bout),
                KILN_ARG_INT(N));
    test_read(bout, out, N * sizeof(float));
    for (int i = 0; i < N; ++i)
        expected[i] = 2.0 * x[i];
    expect_near("vectorAdd", out, expected, N, 0, 0);
    TEST_LAUNCH(matrices, KILN_DIM2(test_blocks(W, 16), test_blocks(H, 16)),
                KILN_DIM2(16, 16), 0, KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bx),
                KILN_ARG_BUFFER(bout), KILN_ARG_INT(W), KILN_ARG_INT(H));
    test_read(bout, out, W * H * sizeof(float));
    expect_near("add_matrices", out, expected, W * H, 0, 0);
}

/* ---- shared memory ------------------------------------------------------------------ */

static void test_transpose_sgemm(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "shared");
    kiln_kernel *transpose = test_temp_kernel(program, "transposeCoalesced");
    kiln_kernel *sgemm = test_temp_kernel(program, "sgemm");
    enum { W = 67, H = 45, M = 70, N = 50, K = 33 };
    float *in = ARRAY(float, W * H), *out = ARRAY(float, W * H);
    test_random_floats(in, W * H, -5.0f, 5.0f);
    kiln_buffer *bin =
        test_temp_buffer_from(context, in, W * H * sizeof(float));
    kiln_buffer *bout = test_temp_buffer(context, W * H * sizeof(float));
    TEST_LAUNCH(transpose, KILN_DIM2(test_blocks(W, 16), test_blocks(H, 16)),
                KILN_DIM2(16, 16), 0, KILN_ARG_BUFFER(bout),
                KILN_ARG_BUFFER(bin), KILN_ARG_INT(W), KILN_ARG_INT(H));
    test_read(bout, out, W * H * sizeof(float));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            if (out[x * H + y] != in[y * W + x])
                fail_msg("transpose: out[%d][%d] = %g, expected %g", x, y,
                         out[x * H + y], in[y * W + x]);

    float *a = ARRAY(float, M * K), *b = ARRAY(float, K * N),
          *c = ARRAY(float, M * N), *result = ARRAY(float, M * N);
    double *expected = ARRAY(double, M * N);
    test_random_floats(a, M * K, -1.0f, 1.0f);
    test_random_floats(b, K * N, -1.0f, 1.0f);
    test_random_floats(c, M * N, -1.0f, 1.0f);
    float alpha = test_random_float(0.5f, 1.5f), beta = test_random_float(-1.0f, 1.0f);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double acc = 0;
            for (int k = 0; k < K; ++k)
                acc += (double)a[i * K + k] * b[k * N + j];
            expected[i * N + j] = alpha * acc + (double)beta * c[i * N + j];
        }
    kiln_buffer *ba = test_temp_buffer_from(context, a, M * K * sizeof(float));
    kiln_buffer *bb = test_temp_buffer_from(context, b, K * N * sizeof(float));
    kiln_buffer *bc = test_temp_buffer_from(context, c, M * N * sizeof(float));
    TEST_LAUNCH(sgemm, KILN_DIM2(test_blocks(N, 16), test_blocks(M, 16)),
                KILN_DIM2(16, 16), 0, KILN_ARG_INT(M), KILN_ARG_INT(N),
                KILN_ARG_INT(K), KILN_ARG_FLOAT(alpha), KILN_ARG_BUFFER(ba),
                KILN_ARG_BUFFER(bb), KILN_ARG_FLOAT(beta), KILN_ARG_BUFFER(bc));
    test_read(bc, result, M * N * sizeof(float));
    expect_near("sgemm", result, expected, M * N, 1e-4, 1e-4);
}

static void test_reduce_scan(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "shared");
    kiln_kernel *reduce = test_temp_kernel(program, "reduce");
    kiln_kernel *scan = test_temp_kernel(program, "scan_block");
    enum { N = 100000, B = 256 };
    int *values = ARRAY(int, N);
    test_random_ints(values, N, -1000, 1000);
    size_t blocks = test_blocks(N, B);
    int *partials = ARRAY(int, blocks);
    kiln_buffer *in = test_temp_buffer_from(context, values, N * sizeof(int));
    kiln_buffer *out = test_temp_buffer(context, blocks * sizeof(int));
    /* extern __shared__ int sdata[], sized by the launch */
    TEST_LAUNCH(reduce, KILN_DIM1(blocks), KILN_DIM1(B), B * sizeof(int),
                KILN_ARG_BUFFER(in), KILN_ARG_BUFFER(out), KILN_ARG_UINT(N));
    test_read(out, partials, blocks * sizeof(int));
    for (size_t k = 0; k < blocks; ++k) {
        int expected = 0;
        for (size_t i = k * B; i < (k + 1) * B && i < N; ++i)
            expected += values[i];
        if (partials[k] != expected)
            fail_msg("reduce: block %zu = %d, expected %d", k, partials[k],
                     expected);
    }
    enum { S = 1000 };
    float *x = ARRAY(float, S), *y = ARRAY(float, S);
    double *expected = ARRAY(double, S);
    test_random_floats(x, S, 0.0f, 1.0f);
    kiln_buffer *bx = test_temp_buffer_from(context, x, S * sizeof(float));
    kiln_buffer *by = test_temp_buffer(context, S * sizeof(float));
    TEST_LAUNCH(scan, KILN_DIM1(test_blocks(S, B)), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(by), KILN_ARG_INT(S));
    test_read(by, y, S * sizeof(float));
    for (int i = 0; i < S; ++i)
        expected[i] = (i % B ? expected[i - 1] : 0.0) + x[i];
    expect_near("scan_block", y, expected, S, 1e-5, 1e-5);
}

static void test_dynamic_shared(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "shared");
    kiln_kernel *carve = test_temp_kernel(program, "dynamic_carve");
    kiln_kernel *reverse = test_temp_kernel(program, "reverse_blocks");
    enum { B = 128, G = 8, N = B * G };
    float *in = ARRAY(float, N), *out = ARRAY(float, N);
    double *expected = ARRAY(double, N);
    int counts[G], expected_counts[G];
    test_random_floats(in, N, -1.0f, 1.0f);
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof(float));
    kiln_buffer *bout = test_temp_buffer(context, N * sizeof(float));
    kiln_buffer *bcounts = test_temp_buffer(context, sizeof counts);
    /* three arrays carved from one allocation: floats, ints, bytes */
    TEST_LAUNCH(carve, KILN_DIM1(G), KILN_DIM1(B),
                B * (sizeof(float) + sizeof(int) + 1), KILN_ARG_BUFFER(bin),
                KILN_ARG_BUFFER(bout), KILN_ARG_BUFFER(bcounts));
    test_read(bout, out, N * sizeof(float));
    test_read(bcounts, counts, sizeof counts);
    for (int g = 0; g < G; ++g) {
        expected_counts[g] = 0;
        for (int t = 0; t < B; ++t) {
            int r = B - 1 - t;
            expected[g * B + t] = in[g * B + r] * 2.0 + (r & 0xff);
            expected_counts[g] += in[g * B + t] > 0.0f;
        }
    }
    expect_near("dynamic_carve", out, expected, N, 1e-6, 1e-6);
    expect_ints("dynamic_carve counts", counts, expected_counts, G);
    /* file-scope extern __shared__, used by a __device__ helper */
    TEST_LAUNCH(reverse, KILN_DIM1(G), KILN_DIM1(B), B * sizeof(float),
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout));
    test_read(bout, out, N * sizeof(float));
    for (int g = 0; g < G; ++g)
        for (int t = 0; t < B; ++t)
            expected[g * B + t] = in[g * B + B - 1 - t];
    expect_near("reverse_blocks", out, expected, N, 0, 0);
    /* an inner block's pointer hides the outer one of its name */
    kiln_kernel *shadowed = test_temp_kernel(program, "shadowed_pointers");
    TEST_LAUNCH(shadowed, KILN_DIM1(G), KILN_DIM1(B), 0, KILN_ARG_BUFFER(bin),
                KILN_ARG_BUFFER(bout));
    test_read(bout, out, N * sizeof(float));
    for (int g = 0; g < G; ++g)
        for (int t = 0; t < B; ++t)
            expected[g * B + t] = in[g * B + B - 1 - t] * 3.0f;
    expect_near("shadowed_pointers", out, expected, N, 0, 0);
}

static void test_histogram_and_helpers(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "shared");
    kiln_kernel *histogram = test_temp_kernel(program, "histogram256");
    kiln_kernel *dots = test_temp_kernel(program, "dots");
    enum { N = 100000 };
    unsigned char *data = ARRAY(unsigned char, N);
    test_random_bytes(data, N);
    unsigned hist[256], expected[256];
    memset(expected, 0, sizeof expected);
    for (int i = 0; i < N; ++i)
        expected[data[i]]++;
    kiln_buffer *bdata = test_temp_buffer_from(context, data, N);
    kiln_buffer *bhist = test_temp_buffer(context, sizeof hist);
    unsigned zero = 0;
    TEST_OK(kiln_buffer_fill(bhist, 0, sizeof hist, &zero, sizeof zero));
    TEST_LAUNCH(histogram, KILN_DIM1(32), KILN_DIM1(256), 0,
                KILN_ARG_BUFFER(bdata), KILN_ARG_BUFFER(bhist),
                KILN_ARG_INT(N));
    test_read(bhist, hist, sizeof hist);
    expect_uints("histogram256", hist, expected, 256);

    enum { B = 256, G = 4, P = B * G };
    float *a = ARRAY(float, 3 * P), *b = ARRAY(float, 3 * P), out[P], sums[G];
    double want[P], want_sums[G];
    test_random_floats(a, 3 * P, -1.0f, 1.0f);
    test_random_floats(b, 3 * P, -1.0f, 1.0f);
    for (int g = 0; g < G; ++g) {
        want_sums[g] = 0;
        for (int t = 0; t < B; ++t) {
            int i = g * B + t;
            double ab = 0, bb = 0;
            for (int c = 0; c < 3; ++c) {
                ab += (double)a[3 * i + c] * b[3 * i + c];
                bb += (double)b[3 * i + c] * b[3 * i + c];
            }
            want[i] = bb;
            want_sums[g] += ab;
        }
    }
    kiln_buffer *ba = test_temp_buffer_from(context, a, 3 * P * sizeof(float));
    kiln_buffer *bb = test_temp_buffer_from(context, b, 3 * P * sizeof(float));
    kiln_buffer *bout = test_temp_buffer(context, sizeof out);
    kiln_buffer *bsums = test_temp_buffer(context, sizeof sums);
    TEST_LAUNCH(dots, KILN_DIM1(G), KILN_DIM1(B), 0, KILN_ARG_BUFFER(ba),
                KILN_ARG_BUFFER(bb), KILN_ARG_BUFFER(bout),
                KILN_ARG_BUFFER(bsums));
    test_read(bout, out, sizeof out);
    test_read(bsums, sums, sizeof sums);
    expect_near("dots (shared and global pointers)", out, want, P, 1e-5, 1e-5);
    expect_near("dots (block_sum)", sums, want_sums, G, 1e-4, 1e-4);
}

static void test_dot_by_example(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "shared");
    kiln_kernel *kernel = test_temp_kernel(program, "dot");
    enum { N = 33 * 1024, B = 256, G = 32 };
    float *a = ARRAY(float, N), *b = ARRAY(float, N), partial[G];
    test_random_floats(a, N, -1.0f, 1.0f);
    test_random_floats(b, N, -1.0f, 1.0f);
    double want = 0, got = 0;
    for (int i = 0; i < N; ++i)
        want += (double)a[i] * b[i];
    kiln_buffer *ba = test_temp_buffer_from(context, a, N * sizeof(float));
    kiln_buffer *bb = test_temp_buffer_from(context, b, N * sizeof(float));
    kiln_buffer *bc = test_temp_buffer(context, sizeof partial);
    TEST_LAUNCH(kernel, KILN_DIM1(G), KILN_DIM1(B), 0, KILN_ARG_BUFFER(ba),
                KILN_ARG_BUFFER(bb), KILN_ARG_BUFFER(bc));
    test_read(bc, partial, sizeof partial);
    for (int g = 0; g < G; ++g)
        got += partial[g];
    float total = (float)got;
    expect_near("dot (CUDA by Example)", &total, &want, 1, 1e-3, 1e-4);
    /* listed by its CUDA name, though OpenCL C has a built-in dot */
    size_t count = 0;
    int listed = 0;
    TEST_OK(kiln_program_get_kernel_count(program, &count));
    for (size_t k = 0; k < count; ++k) {
        const char *name = NULL;
        TEST_OK(kiln_program_get_kernel_name(program, k, &name));
        listed |= strcmp(name, "dot") == 0;
    }
    if (!listed)
        fail_msg("kernel 'dot' is not listed by its name");
}

/* ---- atomics -------------------------------------------------------------------------- */

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The old values that atomicAdd returned, sorted, must be the running
 * sums of one order of the operands (positive steps: the order is the
 * sorted one), ending at the final value. */
static void expect_serial(const char *what, const double *olds,
                          const double *steps, size_t n, double initial,
                          double final)
{
    double *pairs = test_alloc(2 * n * sizeof *pairs);
    for (size_t i = 0; i < n; ++i) {
        pairs[2 * i] = olds[i];
        pairs[2 * i + 1] = steps[i];
    }
    qsort(pairs, n, 2 * sizeof *pairs, compare_doubles);
    double running = initial;
    for (size_t k = 0; k < n; ++k) {
        if (pairs[2 * k] != running)
            fail_msg("%s: the %zu-th old value is %.17g, expected %.17g: "
                     "not the values of one serial order",
                     what, k, pairs[2 * k], running);
        running += pairs[2 * k + 1];
    }
    if (final != running)
        fail_msg("%s: final value %.17g, expected %.17g", what, final, running);
    free(pairs);
}

static void test_atomic_returns(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "atomics_math");
    kiln_kernel *kernel = test_temp_kernel(program, "atomic_returns");
    enum { N = 2048 };
    float *fv = ARRAY(float, N), *fold = ARRAY(float, N);
    int *iv = ARRAY(int, N), *iold = ARRAY(int, N);
    unsigned long long *uold = ARRAY(unsigned long long, N);
    double *olds = ARRAY(double, N), *steps = ARRAY(double, N);
    /* small positive integers: every float sum is exact */
    test_random_ints(iv, N, 1, 16);
    for (int i = 0; i < N; ++i)
        fv[i] = (float)iv[i];
    float fsum = 3.0f;
    int isum = -5;
    unsigned long long usum = 7;
    kiln_buffer *b[8] = {
        test_temp_buffer_from(context, &fsum, sizeof fsum),
        test_temp_buffer(context, N * sizeof(float)),
        test_temp_buffer_from(context, fv, N * sizeof(float)),
        test_temp_buffer_from(context, &isum, sizeof isum),
        test_temp_buffer(context, N * sizeof(int)),
        test_temp_buffer_from(context, iv, N * sizeof(int)),
        test_temp_buffer_from(context, &usum, sizeof usum),
        test_temp_buffer(context, N * sizeof(unsigned long long))};
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                KILN_ARG_BUFFER(b[0]), KILN_ARG_BUFFER(b[1]),
                KILN_ARG_BUFFER(b[2]), KILN_ARG_BUFFER(b[3]),
                KILN_ARG_BUFFER(b[4]), KILN_ARG_BUFFER(b[5]),
                KILN_ARG_BUFFER(b[6]), KILN_ARG_BUFFER(b[7]), KILN_ARG_INT(N));
    test_read(b[0], &fsum, sizeof fsum);
    test_read(b[1], fold, N * sizeof(float));
    test_read(b[3], &isum, sizeof isum);
    test_read(b[4], iold, N * sizeof(int));
    test_read(b[6], &usum, sizeof usum);
    test_read(b[7], uold, N * sizeof(unsigned long long));
    for (int i = 0; i < N; ++i) {
        olds[i] = fold[i];
        steps[i] = fv[i];
    }
    expect_serial("float atomicAdd", olds, steps, N, 3.0, fsum);
    for (int i = 0; i < N; ++i)
        olds[i] = iold[i];
    expect_serial("int atomicAdd", olds, steps, N, -5.0, isum);
    for (int i = 0; i < N; ++i) {
        olds[i] = (double)(uold[i] - 7) / 8589934592.0;
        steps[i] = iv[i];
    }
    expect_serial("unsigned long long atomicAdd", olds, steps, N, 0.0,
                  (double)(usum - 7) / 8589934592.0);
}

static void test_atomic_family(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "atomics_math");
    kiln_kernel *family = test_temp_kernel(program, "atomic_family");
    kiln_kernel *cas = test_temp_kernel(program, "cas_max");
    kiln_kernel *count = test_temp_kernel(program, "count_positive");
    enum { N = 1000 };
    int *values = ARRAY(int, N);
    test_random_ints(values, N, -100000, 100000);
    unsigned wrap = 0, down = 2, tickets[N];
    int extremes[3] = {INT_MAX, INT_MIN, 0};
    unsigned bits[4] = {0, 0xffffffffu, 0, 0};
    kiln_buffer *b[6] = {test_temp_buffer_from(context, &wrap, sizeof wrap),
                         test_temp_buffer(context, sizeof tickets),
                         test_temp_buffer_from(context, &down, sizeof down),
                         test_temp_buffer_from(context, extremes,
                                               sizeof extremes),
                         test_temp_buffer_from(context, bits, sizeof bits),
                         test_temp_buffer_from(context, values,
                                               N * sizeof(int))};
    TEST_LAUNCH(family, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(b[0]), KILN_ARG_BUFFER(b[1]),
                KILN_ARG_BUFFER(b[2]), KILN_ARG_BUFFER(b[3]),
                KILN_ARG_BUFFER(b[4]), KILN_ARG_BUFFER(b[5]), KILN_ARG_INT(N));
    test_read(b[0], &wrap, sizeof wrap);
    test_read(b[1], tickets, sizeof tickets);
    test_read(b[2], &down, sizeof down);
    test_read(b[3], extremes, sizeof extremes);
    test_read(b[4], bits, sizeof bits);
    /* atomicInc(p, 9) counts 0..9 and wraps: each ticket 100 times */
    unsigned seen[10] = {0};
    for (int i = 0; i < N; ++i) {
        if (tickets[i] > 9)
            fail_msg("atomicInc returned %u, past its bound 9", tickets[i]);
        seen[tickets[i]]++;
    }
    for (int v = 0; v < 10; ++v)
        if (seen[v] != N / 10)
            fail_msg("atomicInc: ticket %d handed out %u times, expected %d",
                     v, seen[v], N / 10);
    int min = INT_MAX, max = INT_MIN;
    for (int i = 0; i < N; ++i) {
        min = values[i] < min ? values[i] : min;
        max = values[i] > max ? values[i] : max;
    }
    unsigned want_wrap = 0, want_down = 2;
    int want_extremes[3] = {min, max, -N};
    unsigned want_bits[4] = {0xffffffffu, 0, 0xffffff00u, 7};
    expect_uints("atomicInc final", &wrap, &want_wrap, 1);
    expect_uints("atomicDec final", &down, &want_down, 1);
    expect_ints("atomicMin/Max/Sub", extremes, want_extremes, 3);
    expect_uints("atomicOr/And/Xor/Exch", bits, want_bits, 4);

    float *f = ARRAY(float, N);
    test_random_floats(f, N, -50.0f, 50.0f);
    float result = -INFINITY, want = -INFINITY;
    unsigned positives = 0, want_positives = 0;
    for (int i = 0; i < N; ++i) {
        want = f[i] > want ? f[i] : want;
        want_positives += f[i] > 0.0f;
    }
    kiln_buffer *bf = test_temp_buffer_from(context, f, N * sizeof(float));
    kiln_buffer *bresult =
        test_temp_buffer_from(context, &result, sizeof result);
    kiln_buffer *bcount =
        test_temp_buffer_from(context, &positives, sizeof positives);
    TEST_LAUNCH(cas, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                KILN_ARG_BUFFER(bf), KILN_ARG_BUFFER(bresult), KILN_ARG_INT(N));
    TEST_LAUNCH(count, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                KILN_ARG_BUFFER(bf), KILN_ARG_BUFFER(bcount), KILN_ARG_INT(N));
    test_read(bresult, &result, sizeof result);
    test_read(bcount, &positives, sizeof positives);
    if (result != want)
        fail_msg("atomicCAS loop maximum: %g, expected %g", result, want);
    expect_uints("shared-memory atomicAdd count", &positives, &want_positives, 1);
}

/* ---- math ------------------------------------------------------------------------------ */

static void test_math(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "atomics_math");
    kiln_kernel *kf = test_temp_kernel(program, "math_float");
    kiln_kernel *ki = test_temp_kernel(program, "math_integer");
    enum { N = 512 };
    float *x = ARRAY(float, N), *y = ARRAY(float, N), *out = ARRAY(float, 12 * N);
    double *want = ARRAY(double, 12 * N);
    test_random_floats(x, N, -4.0f, 4.0f);
    test_random_floats(y, N, -4.0f, 4.0f);
    for (int i = 0; i < N; ++i) {
        double a = x[i], b = y[i];
        double *w = want + 12 * i;
        w[0] = sin(a) + cos(b);
        w[1] = exp(a * 0.5) - log(fabs(b) + 1.0);
        w[2] = sqrt(fabs(a)) / sqrt(fabs(b) + 1.0);
        w[3] = a * b + 1.5;
        w[4] = exp(a * 0.25);
        w[5] = a / (b + 8.0);
        w[6] = pow(fabs(a) + 0.5, 1.5) + a * a;
        w[7] = a + b;
        w[8] = floor(a) + ceil(b) + trunc((double)(float)(x[i] * 3.0f)) +
               round((double)(float)(y[i] * 3.0f));
        w[9] = atan2(a, b) + tanh(a * 0.1);
        w[10] = sin(a) + log(fabs(b) + 2.0);
        w[11] = exp2(a * 0.1) + log2(fabs(b) + 1.0) + (a < 0 ? 0 : a > 1 ? 1 : a);
    }
    kiln_buffer *bx = test_temp_buffer_from(context, x, N * sizeof(float));
    kiln_buffer *by = test_temp_buffer_from(context, y, N * sizeof(float));
    kiln_buffer *bout = test_temp_buffer(context, 12 * N * sizeof(float));
    TEST_LAUNCH(kf, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(by), KILN_ARG_BUFFER(bout),
                KILN_ARG_INT(N));
    test_read(bout, out, 12 * N * sizeof(float));
    /* CUDA's fast intrinsics (__expf, __sinf, __logf, __fdividef) are
     * approximations: a tolerance that catches a wrong function, not
     * rounding. */
    expect_near("math_float", out, want, 12 * N, 2e-3, 2e-3);

    unsigned *u = ARRAY(unsigned, N);
    int *s = ARRAY(int, N), *iout = ARRAY(int, 10 * N), *iwant = ARRAY(int, 10 * N);
    for (int i = 0; i < N; ++i)
        u[i] = (unsigned)test_random_u64() >> (i % 32);
    u[0] = 0;
    test_random_ints(s, N, -100000, 100000);
    s[1] = 0;
    for (int i = 0; i < N; ++i) {
        unsigned a = u[i];
        int b = s[i];
        int *w = iwant + 10 * i;
        w[0] = __builtin_popcount(a);
        w[1] = a == 0 ? 32 : __builtin_clz(a);
        w[2] = __builtin_ffs(b);
        unsigned r = 0;
        for (int k = 0; k < 32; ++k)
            r |= ((a >> k) & 1u) << (31 - k);
        w[3] = (int)r;
        w[4] = b * 1000;
        w[5] = (int)(unsigned)(((unsigned long long)a * 2654435761u) >> 32);
        w[6] = (b < 5 ? b : 5) + (b > -5 ? b : -5);
        w[7] = abs(b) - 100;
        w[8] = __builtin_popcountll((unsigned long long)a << 20 | a);
        w[9] = (int)((a < 1000u ? a : 1000u) + (a > 1000u ? a : 1000u) % 7u);
    }
    kiln_buffer *bu = test_temp_buffer_from(context, u, N * sizeof(unsigned));
    kiln_buffer *bs = test_temp_buffer_from(context, s, N * sizeof(int));
    kiln_buffer *biout = test_temp_buffer(context, 10 * N * sizeof(int));
    TEST_LAUNCH(ki, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                KILN_ARG_BUFFER(bu), KILN_ARG_BUFFER(bs),
                KILN_ARG_BUFFER(biout), KILN_ARG_INT(N));
    test_read(biout, iout, 10 * N * sizeof(int));
    expect_ints("math_integer", iout, iwant, 10 * N);
}

/* Float and double atomicAdd on shared memory (NVIDIA's OpenCL: CUDA's
 * atom/red.shared.add through inline PTX). */
static void test_shared_atomics(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    if (!info.supports_double) {
        printf("# %s has no double precision\n", info.name);
        skip();
    }
    kiln_program *program = cuda_program(context, "atomics_math");
    kiln_kernel *kernel = test_temp_kernel(program, "shared_sums");
    enum { N = 1000, B = 128, BLOCKS = (N + B - 1) / B };
    float *x = ARRAY(float, N), *fold = ARRAY(float, N);
    float *sums = ARRAY(float, 2 * BLOCKS);
    double *d = ARRAY(double, N), *dsums = ARRAY(double, BLOCKS);
    double *olds = ARRAY(double, B), *steps = ARRAY(double, B);
    int *ints = ARRAY(int, N);
    /* small whole numbers: every float sum is exact */
    test_random_ints(ints, N, 1, 64);
    for (int i = 0; i < N; ++i)
        x[i] = (float)ints[i];
    test_random_doubles(d, N, -1.0, 1.0);
    kiln_buffer *bx = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *bd = test_temp_buffer_from(context, d, N * sizeof *d);
    kiln_buffer *bfold = test_temp_buffer(context, N * sizeof *fold);
    kiln_buffer *bsums = test_temp_buffer(context, 2 * BLOCKS * sizeof *sums);
    kiln_buffer *bdsums = test_temp_buffer(context, BLOCKS * sizeof *dsums);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0, KILN_ARG_BUFFER(bx),
                KILN_ARG_BUFFER(bd), KILN_ARG_BUFFER(bfold),
                KILN_ARG_BUFFER(bsums), KILN_ARG_BUFFER(bdsums),
                KILN_ARG_INT(N));
    test_read(bfold, fold, N * sizeof *fold);
    test_read(bsums, sums, 2 * BLOCKS * sizeof *sums);
    test_read(bdsums, dsums, BLOCKS * sizeof *dsums);
    for (int b = 0; b < BLOCKS; ++b) {
        size_t count = 0;
        double sum = 0.25, dsum = 0.125;
        for (int i = b * B; i < (b + 1) * B && i < N; ++i) {
            olds[count] = fold[i];
            steps[count++] = x[i];
            sum += x[i];
            dsum += d[i];
        }
        expect_serial("shared float atomicAdd", olds, steps, count, 0.5,
                      sums[2 * b]);
        if (sums[2 * b + 1] != sum)
            fail_msg("block %d: shared float atomicAdd without its value: "
                     "%.9g, expected %.9g", b, (double)sums[2 * b + 1], sum);
        if (fabs(dsums[b] - dsum) > 1e-12)
            fail_msg("block %d: shared double atomicAdd: %.17g, expected "
                     "%.17g", b, dsums[b], dsum);
    }
}

static void test_double(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    if (!info.supports_double) {
        printf("# %s has no double precision\n", info.name);
        skip();
    }
    kiln_program *program = cuda_program(context, "atomics_math");
    kiln_kernel *kernel = test_temp_kernel(program, "double_sum");
    enum { N = 1000 };
    double x[N], fma_out[N], total = 0.5, want = 0.5;
    test_random_doubles(x, N, -1.0, 1.0);
    for (int i = 0; i < N; ++i)
        want += x[i];
    kiln_buffer *bx = test_temp_buffer_from(context, x, sizeof x);
    kiln_buffer *bt = test_temp_buffer_from(context, &total, sizeof total);
    kiln_buffer *bf = test_temp_buffer(context, sizeof fma_out);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bt), KILN_ARG_BUFFER(bf),
                KILN_ARG_INT(N));
    test_read(bt, &total, sizeof total);
    test_read(bf, fma_out, sizeof fma_out);
    if (fabs(total - want) > 1e-9)
        fail_msg("double atomicAdd: %.17g, expected %.17g", total, want);
    for (int i = 0; i < N; ++i) {
        double w = fma(x[i], 3.0, 0.25) + sqrt(fabs(x[i]));
        if (fabs(fma_out[i] - w) > 1e-12)
            fail_msg("double math[%d]: %.17g, expected %.17g", i, fma_out[i], w);
    }
}

/* ---- types ---------------------------------------------------------------------------------- */

typedef struct host_float3 {
    float x, y, z;
} host_float3;

typedef struct host_particle {
    host_float3 position;
    float mass;
    int id;
} host_particle;

static void test_float3_and_structs(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "types");
    kiln_kernel *kernel = test_temp_kernel(program, "particles");
    enum { N = 300 };
    _Static_assert(sizeof(host_float3) == 12, "CUDA's float3 is 12 bytes");
    _Static_assert(sizeof(host_particle) == 20, "float3, float, int");
    host_float3 *pos = ARRAY(host_float3, N), *vel = ARRAY(host_float3, N),
                *out = ARRAY(host_float3, N);
    host_particle *ps = ARRAY(host_particle, N), *ps_out = ARRAY(host_particle, N);
    test_random_floats((float *)pos, 3 * N, -10.0f, 10.0f);
    test_random_floats((float *)vel, 3 * N, -1.0f, 1.0f);
    for (int i = 0; i < N; ++i) {
        ps[i].position = pos[(i * 7) % N];
        ps[i].mass = test_random_float(0.5f, 2.0f);
        ps[i].id = i;
    }
    float dt = 0.125f;
    kiln_buffer *b[4] = {test_temp_buffer_from(context, pos, N * sizeof *pos),
                         test_temp_buffer_from(context, vel, N * sizeof *vel),
                         test_temp_buffer(context, N * sizeof *out),
                         test_temp_buffer_from(context, ps, N * sizeof *ps)};
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(b[0]), KILN_ARG_BUFFER(b[1]),
                KILN_ARG_BUFFER(b[2]), KILN_ARG_BUFFER(b[3]),
                KILN_ARG_FLOAT(dt), KILN_ARG_INT(N));
    test_read(b[2], out, N * sizeof *out);
    test_read(b[3], ps_out, N * sizeof *ps_out);
    for (int i = 0; i < N; ++i) {
        host_float3 step = {vel[i].x * dt, vel[i].y * dt, vel[i].z * dt};
        host_float3 want = {pos[i].x + step.x, pos[i].y + step.y, pos[i].z + step.z};
        if (memcmp(&out[i], &want, sizeof want) != 0)
            fail_msg("float3 array: element %d = (%g %g %g), expected "
                     "(%g %g %g)",
                     i, out[i].x, out[i].y, out[i].z, want.x, want.y, want.z);
        host_particle p = ps[i];
        p.position.x += step.x;
        p.position.y += step.y;
        p.position.z += step.z;
        p.mass = p.mass * p.mass;
        p.id += 1000;
        if (memcmp(&ps_out[i], &p, sizeof p) != 0)
            fail_msg("struct with float3: particle %d = {(%g %g %g) %g %d}, "
                     "expected {(%g %g %g) %g %d}",
                     i, ps_out[i].position.x, ps_out[i].position.y,
                     ps_out[i].position.z, ps_out[i].mass, ps_out[i].id,
                     p.position.x, p.position.y, p.position.z, p.mass, p.id);
    }
}

static void test_vectors(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "types");
    kiln_kernel *kernel = test_temp_kernel(program, "vectors");
    enum { N = 200 };
    float *a = ARRAY(float, 4 * N), *fo = ARRAY(float, 4 * N);
    int *b = ARRAY(int, 2 * N), *io = ARRAY(int, 2 * N);
    unsigned char *c = ARRAY(unsigned char, 4 * N), *co = ARRAY(unsigned char, 4 * N);
    test_random_floats(a, 4 * N, -3.0f, 3.0f);
    test_random_ints(b, 2 * N, -1000, 1000);
    test_random_bytes(c, 4 * N);
    kiln_buffer *buf[6] = {test_temp_buffer_from(context, a, 16 * N),
                           test_temp_buffer_from(context, b, 8 * N),
                           test_temp_buffer_from(context, c, 4 * N),
                           test_temp_buffer(context, 16 * N),
                           test_temp_buffer(context, 8 * N),
                           test_temp_buffer(context, 4 * N)};
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(buf[0]), KILN_ARG_BUFFER(buf[1]),
                KILN_ARG_BUFFER(buf[2]), KILN_ARG_BUFFER(buf[3]),
                KILN_ARG_BUFFER(buf[4]), KILN_ARG_BUFFER(buf[5]),
                KILN_ARG_INT(N));
    test_read(buf[3], fo, 16 * N);
    test_read(buf[4], io, 8 * N);
    test_read(buf[5], co, 4 * N);
    for (int i = 0; i < N; ++i) {
        const float *v = a + 4 * i;
        float want[4] = {v[0] + v[3], v[1] * 2.0f, v[2] - v[0], v[3]};
        if (memcmp(fo + 4 * i, want, sizeof want) != 0)
            fail_msg("float4 %d: (%g %g %g %g), expected (%g %g %g %g)", i,
                     fo[4 * i], fo[4 * i + 1], fo[4 * i + 2], fo[4 * i + 3],
                     want[0], want[1], want[2], want[3]);
        int iw[2] = {b[2 * i + 1], b[2 * i] + b[2 * i + 1]};
        expect_ints("int2", io + 2 * i, iw, 2);
        unsigned char cw[4] = {c[4 * i + 3], c[4 * i + 2], c[4 * i + 1],
                               (unsigned char)(c[4 * i] + 1)};
        if (memcmp(co + 4 * i, cw, 4) != 0)
            fail_msg("uchar4 %d: %u %u %u %u, expected %u %u %u %u", i,
                     co[4 * i], co[4 * i + 1], co[4 * i + 2], co[4 * i + 3],
                     cw[0], cw[1], cw[2], cw[3]);
    }
}

typedef struct host_params {
    float scale;
    float offset;
    int mode;
} host_params;

static void test_constant_table_and_structs(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "types");
    kiln_kernel *kernel = test_temp_kernel(program, "blur");
    enum { N = 333 };
    static const double weights[5] = {0.0625, 0.25, 0.375, 0.25, 0.0625};
    float *in = ARRAY(float, N), *out = ARRAY(float, N);
    double *want = ARRAY(double, N);
    test_random_floats(in, N, -1.0f, 1.0f);
    host_params params = {test_random_float(0.5f, 2.0f),
                          test_random_float(-1.0f, 1.0f), 2};
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof(float));
    kiln_buffer *bout = test_temp_buffer(context, N * sizeof(float));
    for (int mode = 1; mode <= 2; ++mode) {
        TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                    KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout),
                    KILN_ARG_VALUE(&params, sizeof params), KILN_ARG_INT(mode),
                    KILN_ARG_INT(N));
        test_read(bout, out, N * sizeof(float));
        for (int i = 0; i < N; ++i) {
            double acc = 0;
            for (int k = -2; k <= 2; ++k) {
                int j = i + k < 0 ? 0 : i + k > N - 1 ? N - 1 : i + k;
                acc += weights[k + 2] * in[j];
            }
            want[i] = mode == 2 ? acc * params.scale + params.offset * 0.5
                                : acc + params.offset;
        }
        expect_near(mode == 2 ? "blur (scale)" : "blur (add)", out, want, N,
                    1e-5, 1e-5);
    }
}

static void test_globals(void **state)
{
    kiln_context *context = test_context(state);
    /* Not test_temp_*: the test releases the program before the buffers
     * of its variables. */
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/kernels/cuda/types.cu",
             test_srcdir());
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_file(context, path, &options, &program));
    kiln_kernel *kernel = test_kernel(program, "use_globals");
    enum { N = 500 };
    int lookup[8], *index = ARRAY(int, N), *out = ARRAY(int, N);
    float *biased = ARRAY(float, N);
    test_random_ints(lookup, 8, -1000000, 1000000);
    test_random_ints(index, N, 0, 1 << 20);
    /* __constant__ int lookup[8], written by the host */
    kiln_buffer *table = NULL, *bias = NULL, *launches = NULL, *weights = NULL;
    TEST_OK(kiln_program_get_global(program, "lookup", &table));
    size_t size = 0;
    TEST_OK(kiln_buffer_get_size(table, &size));
    if (size != sizeof lookup)
        fail_msg("lookup has %zu bytes, expected %zu", size, sizeof lookup);
    TEST_OK(kiln_buffer_write(table, 0, lookup, sizeof lookup));
    /* an initialised __constant__ table reads back its values */
    TEST_OK(kiln_program_get_global(program, "weights", &weights));
    float w[5];
    TEST_OK(kiln_buffer_read(weights, 0, w, sizeof w));
    if (w[0] != 0.0625f || w[2] != 0.375f || w[4] != 0.0625f)
        fail_msg("weights read back as %g %g %g %g %g", w[0], w[1], w[2], w[3],
                 w[4]);
    kiln_buffer *bindex =
        test_temp_buffer_from(context, index, N * sizeof(int));
    kiln_buffer *bout = test_temp_buffer(context, N * sizeof(int));
    kiln_buffer *bbiased = test_temp_buffer(context, N * sizeof(float));
    TEST_OK(kiln_program_get_global(program, "launches", &launches));
    unsigned zero = 0;
    TEST_OK(kiln_buffer_write(launches, 0, &zero, sizeof zero));
    for (int round = 0; round < 2; ++round) {
        /* round 0: bias's initial value; round 1: one the host wrote */
        float bias_value = round == 0 ? 1.5f : test_random_float(2.0f, 3.0f);
        if (round == 1) {
            TEST_OK(kiln_program_get_global(program, "bias", &bias));
            TEST_OK(kiln_buffer_write(bias, 0, &bias_value, sizeof bias_value));
        }
        TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                    KILN_ARG_BUFFER(bindex), KILN_ARG_BUFFER(bout),
                    KILN_ARG_BUFFER(bbiased), KILN_ARG_INT(N));
        test_read(bout, out, N * sizeof(int));
        test_read(bbiased, biased, N * sizeof(float));
        for (int i = 0; i < N; ++i) {
            if (out[i] != lookup[index[i] & 7])
                fail_msg("__constant__ lookup: out[%d] = %d, expected %d", i,
                         out[i], lookup[index[i] & 7]);
            if (biased[i] != (float)i + bias_value)
                fail_msg("__device__ bias (round %d): %g, expected %g", round,
                         biased[i], (float)i + bias_value);
        }
    }
    unsigned count = 0;
    TEST_OK(kiln_buffer_read(launches, 0, &count, sizeof count));
    if (count != 2)
        fail_msg("__device__ launches = %u, expected 2", count);
    kiln_buffer *missing = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_get_global(program, "no_such_variable", &missing));
    TEST_ERROR_MENTIONS("no_such_variable");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_get_global(program, NULL, &missing));
    /* the buffers keep the program alive */
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    TEST_OK(kiln_buffer_read(table, 0, lookup, sizeof lookup));
    kiln_buffer *variables[] = {table, bias, launches, weights};
    for (size_t i = 0; i < 4; ++i)
        TEST_OK(kiln_buffer_release(variables[i]));
}

static void test_grids_and_scalars(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "types");
    kiln_kernel *grid = test_temp_kernel(program, "grid3d");
    kiln_kernel *scalars = test_temp_kernel(program, "scalars");
    kiln_kernel *hello = test_temp_kernel(program, "hello");
    kiln_kernel *host_device = test_temp_kernel(program, "host_device");
    enum { NX = 19, NY = 11, NZ = 5 };
    unsigned *out = ARRAY(unsigned, NX * NY * NZ);
    kiln_buffer *bout =
        test_temp_buffer(context, NX * NY * NZ * sizeof(unsigned));
    TEST_LAUNCH(grid,
                KILN_DIM3(test_blocks(NX, 8), test_blocks(NY, 4), test_blocks(NZ, 2)),
                KILN_DIM3(8, 4, 2), 0, KILN_ARG_BUFFER(bout), KILN_ARG_INT(NX),
                KILN_ARG_INT(NY), KILN_ARG_INT(NZ));
    test_read(bout, out, NX * NY * NZ * sizeof(unsigned));
    for (unsigned z = 0; z < NZ; ++z)
        for (unsigned y = 0; y < NY; ++y)
            for (unsigned x = 0; x < NX; ++x) {
                unsigned want = x | (y << 10) | (z << 20);
                unsigned got = out[(z * NY + y) * NX + x];
                if (got != want)
                    fail_msg("grid3d (%u,%u,%u) = 0x%x, expected 0x%x", x, y, z,
                             got, want);
            }
    enum { C = 777 };
    unsigned long long *v = ARRAY(unsigned long long, C);
    unsigned long long base = test_random_u64();
    long long step = (long long)(test_random_u64() >> 20) - (1ll << 43);
    double scale = test_random_float(1.0f, 100.0f);
    kiln_buffer *bv = test_temp_buffer(context, C * sizeof *v);
    for (int negate = 0; negate < 2; ++negate) {
        unsigned char flag = (unsigned char)negate;
        TEST_LAUNCH(scalars, KILN_DIM1(test_blocks(C, 64)), KILN_DIM1(64), 0,
                    KILN_ARG_BUFFER(bv), KILN_ARG_ULONG(C),
                    KILN_ARG_VALUE(&flag, 1), KILN_ARG_ULONG(base),
                    KILN_ARG_LONG(step), KILN_ARG_DOUBLE(scale));
        test_read(bv, v, C * sizeof *v);
        for (unsigned long long i = 0; i < C; ++i) {
            unsigned long long want = base + i * (unsigned long long)step;
            if (negate)
                want = ~want;
            want += (unsigned long long)((int)scale + 1ull);
            if (v[i] != want)
                fail_msg("scalars (negate %d) [%llu] = %llu, expected %llu",
                         negate, i, v[i], want);
        }
    }
    int ids[32], want_ids[32];
    kiln_buffer *bids = test_temp_buffer(context, sizeof ids);
    TEST_LAUNCH(hello, KILN_DIM1(1), KILN_DIM1(32), 0, KILN_ARG_BUFFER(bids));
    test_read(bids, ids, sizeof ids);
    for (int i = 0; i < 32; ++i)
        want_ids[i] = i;
    expect_ints("hello (printf)", ids, want_ids, 32);
    float x[100], y[100];
    double want[100];
    test_random_floats(x, 100, -2.0f, 2.0f);
    kiln_buffer *bx = test_temp_buffer_from(context, x, sizeof x);
    kiln_buffer *by = test_temp_buffer(context, sizeof y);
    TEST_LAUNCH(host_device, KILN_DIM1(2), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(by), KILN_ARG_INT(100));
    test_read(by, y, sizeof y);
    for (int i = 0; i < 100; ++i)
        want[i] = ((2.0 * x[i] - 3.0) * x[i] + 0.5) * x[i] + 1.0;
    expect_near("__host__ __device__", y, want, 100, 1e-5, 1e-5);
}

/* ---- --fmad=false and FP_CONTRACT OFF ----------------------------------------------------------- */

/* a*b + c rounded twice, as a CPU computes it when told not to fuse: the
 * product is stored (volatile) before the sum. */
static float multiply_then_add(float a, float b, float c)
{
    volatile float product = a * b;
    return product + c;
}

static void test_fmad_false(void **state)
{
    kiln_context *context = test_context(state);
    static const char kernel[] =
        "__global__ void axpc(const float *a, const float *b, const float *c,\n"
        "                     float *out, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n)\n"
        "        out[i] = a[i] * b[i] + c[i];\n"
        "}\n";
    static const char pragma[] = "#pragma OPENCL FP_CONTRACT OFF\n";
    enum { N = 4096 };
    float *a = ARRAY(float, N), *b = ARRAY(float, N), *c = ARRAY(float, N);
    float *out = ARRAY(float, N);
    test_random_floats(a, N, -1.0f, 1.0f);
    test_random_floats(b, N, -1.0f, 1.0f);
    test_random_floats(c, N, -1.0f, 1.0f);
    size_t fused_differ = 0;
    for (int i = 0; i < N; ++i)
        fused_differ += fmaf(a[i], b[i], c[i]) != multiply_then_add(a[i], b[i], c[i]);
    if (fused_differ == 0)
        fail_msg("no input where a fused multiply-add differs: the test "
                 "could not fail");
    kiln_buffer *ba = test_temp_buffer_from(context, a, N * sizeof *a);
    kiln_buffer *bb = test_temp_buffer_from(context, b, N * sizeof *b);
    kiln_buffer *bc = test_temp_buffer_from(context, c, N * sizeof *c);
    kiln_buffer *bout = test_temp_buffer(context, N * sizeof *out);
    /* NVRTC's option, then the pragma in the source */
    char with_pragma[sizeof pragma + sizeof kernel];
    snprintf(with_pragma, sizeof with_pragma, "%s%s", pragma, kernel);
    const struct {
        const char *source, *options;
    } builds[] = {{kernel, "--fmad=false"},
                  {kernel, "-fmad=false"},
                  {with_pragma, NULL}};
    for (size_t k = 0; k < sizeof builds / sizeof builds[0]; ++k) {
        kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C,
                                      .options = builds[k].options};
        kiln_program *program = NULL;
        TEST_OK(kiln_program_build_with(context, builds[k].source, 0, &options,
                                        &program));
        kiln_kernel *axpc = test_kernel(program, "axpc");
        TEST_LAUNCH(axpc, KILN_DIM1(N / 128), KILN_DIM1(128), 0,
                    KILN_ARG_BUFFER(ba), KILN_ARG_BUFFER(bb), KILN_ARG_BUFFER(bc),
                    KILN_ARG_BUFFER(bout), KILN_ARG_INT(N));
        test_read(bout, out, N * sizeof *out);
        for (int i = 0; i < N; ++i) {
            float want = multiply_then_add(a[i], b[i], c[i]);
            if (memcmp(&out[i], &want, sizeof want) != 0)
                fail_msg("build %zu (%s): axpc[%d] = %a, a*b+c rounded twice "
                         "is %a (fused: %a)",
                         k, builds[k].options ? builds[k].options : "pragma",
                         i, (double)out[i], (double)want,
                         (double)fmaf(a[i], b[i], c[i]));
        }
        TEST_OK(kiln_kernel_release(axpc));
        TEST_OK(kiln_program_release(program));
    }
}

/* ---- assert and printf ------------------------------------------------------------------------ */

/* assert() reports as CUDA's does: the launch fails with the file, the
 * line, the condition, the block and the thread (CUDA: the driver's
 * CUDA_ERROR_ASSERT, which ends the context: checked on OpenCL only, where
 * the translation records the failure); with NDEBUG it compiles to
 * nothing. */
static void test_assert(void **state)
{
    kiln_context *context = test_context(state);
    static const char source[] =
        "#include <assert.h>\n"
        "__device__ void check_positive(float v)\n"
        "{\n"
        "    assert(v >= 0.0f);\n"
        "}\n"
        "__global__ void scale(float *a, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) {\n"
        "        check_positive(a[i]);\n"
        "        a[i] *= 2;\n"
        "    }\n"
        "}\n";
    enum { N = 1000, B = 128 };
    float *a = ARRAY(float, N), *out = ARRAY(float, N);
    test_random_floats(a, N, 0.5f, 2.0f);
    kiln_buffer *ba = test_temp_buffer_from(context, a, N * sizeof *a);
    const char *const ndebug[] = {NULL, "-DNDEBUG"};
    for (int k = 0; k < 2; ++k) {
        kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C,
                                      .options = ndebug[k],
                                      .source_name = "asserts.cu"};
        kiln_program *program = NULL;
        kiln_status built =
            kiln_program_build_with(context, source, 0, &options, &program);
        if (built == KILN_ERR_BUILD &&
            strcmp(test_backend(state), "cuda") == 0) {
            /* NVRTC's own headers: not Kiln's to provide */
            printf("# NVRTC does not build it: %.200s\n", kiln_last_error());
            skip();
        }
        TEST_OK(built);
        kiln_kernel *scale = test_kernel(program, "scale");
        a[437] = 1.25f;
        TEST_OK(kiln_buffer_write(ba, 0, a, N * sizeof *a));
        TEST_LAUNCH(scale, KILN_DIM1(test_blocks(N, B)), KILN_DIM1(B), 0,
                    KILN_ARG_BUFFER(ba), KILN_ARG_INT(N));
        test_read(ba, out, N * sizeof *out);
        for (int i = 0; i < N; ++i)
            if (out[i] != 2 * a[i])
                fail_msg("scale[%d] = %g, expected %g", i, out[i], 2 * a[i]);
        if (strcmp(test_backend(state), "cuda") == 0) {
            printf("# a failed assert ends a CUDA context: not provoked\n");
            TEST_OK(kiln_kernel_release(scale));
            TEST_OK(kiln_program_release(program));
            continue;
        }
        a[437] = -1.0f;
        TEST_OK(kiln_buffer_write(ba, 0, a, N * sizeof *a));
        kiln_launch_config config = {.grid = KILN_DIM1(test_blocks(N, B)),
                                     .block = KILN_DIM1(B)};
        kiln_arg args[] = {KILN_ARG_BUFFER(ba), KILN_ARG_INT(N)};
        kiln_status status = kiln_launch(scale, &config, 2, args);
        if (ndebug[k] != NULL) {
            TEST_OK(status);
        } else {
            if (status != KILN_ERR_KERNEL_FAULT)
                fail_msg("a failed assert: %s, expected KILN_ERR_KERNEL_FAULT "
                         "(%s)", kiln_status_name(status), kiln_last_error());
            TEST_ERROR_MENTIONS("asserts.cu:4");
            TEST_ERROR_MENTIONS("v >= 0.0f");
            TEST_ERROR_MENTIONS("block [3,0,0], thread [53,0,0]");
            TEST_ERROR_MENTIONS("'scale'");
            /* the record is cleared: a good launch after it passes */
            a[437] = 1.5f;
            TEST_OK(kiln_buffer_write(ba, 0, a, N * sizeof *a));
            TEST_OK(kiln_launch(scale, &config, 2, args));
        }
        TEST_OK(kiln_kernel_release(scale));
        TEST_OK(kiln_program_release(program));
    }
}

/* printf from thousands of threads: every line arrives once and whole. */
static void test_printf_many_threads(void **state)
{
    kiln_context *context = test_context(state);
    static const char source[] =
        "__global__ void say(int n, int tag)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n)\n"
        "        printf(\"kiln-line %d tag %d block %d thread %d\\n\", i, tag,\n"
        "               blockIdx.x, threadIdx.x);\n"
        "}\n";
    enum { N = 3000, B = 128 };
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &program));
    kiln_kernel *say = test_kernel(program, "say");
    int tag = (int)(test_random_u64() % 1000000);
    char path[4096];
    snprintf(path, sizeof path, "%s/printf-%d.txt", test_scratch_dir(), tag);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (saved < 0 || file < 0)
        fail_msg("cannot redirect stdout to %s", path);
    dup2(file, STDOUT_FILENO);
    kiln_launch_config config = {.grid = KILN_DIM1(test_blocks(N, B)),
                                 .block = KILN_DIM1(B)};
    kiln_arg args[] = {KILN_ARG_INT(N), KILN_ARG_INT(tag)};
    kiln_status launched = kiln_launch(say, &config, 2, args);
    kiln_status synchronized = kiln_context_synchronize(context);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    close(file);
    TEST_OK(launched);
    TEST_OK(synchronized);
    FILE *in = fopen(path, "r");
    if (in == NULL)
        fail_msg("cannot read %s", path);
    unsigned char *seen = test_temp_alloc(N);
    memset(seen, 0, N);
    char line[256];
    int lines = 0;
    while (fgets(line, sizeof line, in) != NULL) {
        int i, t, b, th;
        if (sscanf(line, "kiln-line %d tag %d block %d thread %d", &i, &t, &b,
                   &th) != 4)
            continue; /* not ours: a driver's message */
        ++lines;
        if (t != tag || i < 0 || i >= N || b != i / B || th != i % B)
            fail_msg("a broken or foreign line: %s", line);
        if (seen[i]++)
            fail_msg("line %d printed twice", i);
    }
    fclose(in);
    remove(path);
    if (lines != N)
        fail_msg("%d of %d printf lines arrived", lines, N);
    TEST_OK(kiln_kernel_release(say));
    TEST_OK(kiln_program_release(program));
}

/* ---- what Kiln reads of CUDA C --------------------------------------------------------------- */

static void expect_param(kiln_kernel *kernel, size_t index, kiln_param_kind kind,
                         size_t size, const char *name, const char *type)
{
    kiln_param_info info;
    TEST_OK(kiln_kernel_get_param_info(kernel, index, &info));
    if (info.kind != kind || info.size != size || strcmp(info.name, name) != 0 ||
        strcmp(info.type_name, type) != 0)
        fail_msg("parameter %zu: kind %d, %zu bytes, '%s' of '%s'; expected "
                 "kind %d, %zu bytes, '%s' of '%s'",
                 index, (int)info.kind, info.size, info.name, info.type_name,
                 (int)kind, size, name, type);
}

static void test_signatures(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "tutorial");
    kiln_kernel *saxpy = test_temp_kernel(program, "saxpy");
    size_t count = 0;
    TEST_OK(kiln_kernel_get_param_count(saxpy, &count));
    if (count != 4)
        fail_msg("saxpy has %zu parameters, expected 4", count);
    expect_param(saxpy, 0, KILN_PARAM_VALUE, 4, "a", "float");
    expect_param(saxpy, 1, KILN_PARAM_BUFFER, 8, "x", "float*");
    expect_param(saxpy, 2, KILN_PARAM_BUFFER, 8, "y", "float*");
    expect_param(saxpy, 3, KILN_PARAM_VALUE, 8, "n", "size_t");
    kiln_buffer *buffer = test_temp_buffer(context, 64);
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(4)};
    /* a buffer is no size_t, a double no float */
    kiln_arg wrong_kind[] = {KILN_ARG_FLOAT(1.0f), KILN_ARG_BUFFER(buffer),
                             KILN_ARG_BUFFER(buffer), KILN_ARG_BUFFER(buffer)};
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND, kiln_launch(saxpy, &config, 4, wrong_kind));
    kiln_arg wrong_type[] = {KILN_ARG_DOUBLE(1.0), KILN_ARG_BUFFER(buffer),
                             KILN_ARG_BUFFER(buffer), KILN_ARG_ULONG(4)};
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE, kiln_launch(saxpy, &config, 4, wrong_type));
    double eight_bytes = 1.0;
    kiln_arg wrong_size[] = {KILN_ARG_VALUE(&eight_bytes, sizeof eight_bytes),
                             KILN_ARG_BUFFER(buffer), KILN_ARG_BUFFER(buffer),
                             KILN_ARG_ULONG(4)};
    TEST_FAILS(KILN_ERR_ARGUMENT_SIZE, kiln_launch(saxpy, &config, 4, wrong_size));
    kiln_arg wrong_buffer[] = {KILN_ARG_FLOAT(1.0f), KILN_ARG_ULONG(0),
                               KILN_ARG_BUFFER(buffer), KILN_ARG_ULONG(4)};
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND, kiln_launch(saxpy, &config, 4, wrong_buffer));

    /* every kernel listed, by its C name, extern "C" or not */
    static const char *const expected[] = {"doublify", "multiply_them",
                                           "doublify_shared", "sum_of_squares",
                                           "saxpy", "vectorAdd", "add_matrices"};
    size_t kernels = 0;
    TEST_OK(kiln_program_get_kernel_count(program, &kernels));
    if (kernels != sizeof expected / sizeof expected[0])
        fail_msg("tutorial.cu lists %zu kernels, expected %zu", kernels,
                 sizeof expected / sizeof expected[0]);
    for (size_t e = 0; e < kernels; ++e) {
        int found = 0;
        for (size_t k = 0; k < kernels; ++k) {
            const char *name = NULL;
            TEST_OK(kiln_program_get_kernel_name(program, k, &name));
            found |= strcmp(name, expected[e]) == 0;
        }
        if (!found)
            fail_msg("kernel '%s' is not listed", expected[e]);
    }

    /* a program with variables lists only the user's kernels */
    program = cuda_program(context, "types");
    TEST_OK(kiln_program_get_kernel_count(program, &kernels));
    for (size_t k = 0; k < kernels; ++k) {
        const char *name = NULL;
        TEST_OK(kiln_program_get_kernel_name(program, k, &name));
        if (strncmp(name, "__kiln", 6) == 0)
            fail_msg("an internal kernel is listed: %s", name);
    }
    if (kernels != 8)
        fail_msg("types.cu lists %zu kernels, expected 8", kernels);
    kiln_kernel *particles = test_temp_kernel(program, "particles");
    expect_param(particles, 0, KILN_PARAM_BUFFER, 8, "pos", "float3*");
    expect_param(particles, 4, KILN_PARAM_VALUE, 4, "dt", "float");
}

/* ---- what the OpenCL translation refuses ------------------------------------------------------ */

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
        /* a program whose other kernels build: the refused one */
        const char *refused_kernel;
    } cases[] = {
        {"__global__ void k(float *a) {\n"
         "  auto f = [=](float x) { return x; };\n  a[0] = f(1);\n}\n",
         "lambda", NULL},
        {"__global__ void k(float *a) {\n"
         "  float v = a[threadIdx.x];\n"
         "  switch ((int)v) {\n"
         "  case 1: v += __shfl_down_sync(0xffffffff, v, 1);\n"
         "  }\n  a[0] = v;\n}\n",
         "inside a switch", NULL},
        {"__global__ void k(int *a) {\n  a[0] = __match_any_sync(~0u, a[1]);\n}\n",
         "warp votes", NULL},
        {"#include <cub/cub.cuh>\n__global__ void k(int *a) {}\n",
         "CUDA library headers", NULL},
        {"__global__ void k(float *a, cudaTextureObject_t t) {\n"
         "  a[0] = tex1Dfetch<float>(t, 0);\n}\n",
         "textures", NULL},
        {"__global__ void child(float *a) { a[0] = 1; }\n"
         "__global__ void parent(float *a) {\n  child<<<1, 1>>>(a);\n}\n",
         "dynamic parallelism", "parent"},
        {"__global__ void k(unsigned *a) {\n"
         "  unsigned lane;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
         "  a[0] = lane;\n}\n",
         "inline PTX", NULL},
        /* a helper defined in another file (SHOC's QTC): refused with the
         * kernel that calls it, its neighbour builds */
        {"__device__ int elsewhere(int x);\n"
         "__global__ void calls(int *a) { a[0] = elsewhere(a[1]); }\n"
         "__global__ void alone(int *a) { a[0] = a[1]; }\n",
         "declared but not defined", "calls"},
        /* device addresses in device memory (Rodinia's leukocyte and
         * heartwall) */
        {"__global__ void rows(float **r, int n) { r[0][0] = n; }\n"
         "__global__ void flat(float *r, int n) { r[0] = n; }\n",
         "pointer to pointers", "rows"},
        {"struct frame { float *pixels; int number; };\n"
         "__constant__ frame current;\n"
         "__global__ void k(float *a) { a[0] = current.number; }\n",
         "struct with pointer members in a __constant__ variable", NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C,
                                      .source_name = "refused.cu"};
        kiln_program *program = NULL;
        kiln_status status = kiln_program_build_with(context, cases[c].source, 0,
                                                     &options, &program);
        kiln_kernel *kernel = NULL;
        if (cases[c].refused_kernel != NULL && status == KILN_OK)
            status = kiln_kernel_create(program, cases[c].refused_kernel, &kernel);
        if (status != KILN_ERR_TRANSLATION)
            fail_msg("case %zu: %s, expected KILN_ERR_TRANSLATION (%s)", c,
                     kiln_status_name(status), kiln_last_error());
        if (strstr(kiln_last_error(), cases[c].mentions) == NULL ||
            strstr(kiln_last_error(), "refused.cu:") == NULL)
            fail_msg("case %zu: the error does not name '%s' and the line: %s",
                     c, cases[c].mentions, kiln_last_error());
        if (cases[c].refused_kernel != NULL)
            TEST_OK(kiln_program_release(program));
    }
    /* headers whose device side the translation provides are accepted */
    static const char accepted[] =
        "#include <cuda_runtime.h>\n#include <stdio.h>\n#include <math.h>\n"
        "__global__ void k(float *a) { a[threadIdx.x] = sqrtf(2.0f); }\n";
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, accepted, 0, &options, &program));
    TEST_OK(kiln_program_release(program));
}

/* ---- memcpy and memset in device code (llm.c's Packed128) ---------------------------- */

static void test_device_memory(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cuda_program(context, "device_memory");
    kiln_kernel *kernel = test_temp_kernel(program, "device_memory");
    enum { N = 150, BLOCK = 64 };
    static const float table[4] = {0.5f, -1.5f, 2.25f, 4.0f};
    float *in = ARRAY(float, 4 * N), *out = ARRAY(float, 13 * N);
    int *flags = ARRAY(int, 2 * N);
    test_random_floats(in, 4 * N, -100.0f, 100.0f);
    kiln_buffer *in_b = test_temp_buffer_from(context, in, 4 * N * sizeof *in);
    kiln_buffer *out_b = test_temp_buffer(context, 13 * N * sizeof *out);
    kiln_buffer *flags_b = test_temp_buffer(context, 2 * N * sizeof *flags);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, BLOCK)), KILN_DIM1(BLOCK), 0,
                KILN_ARG_BUFFER(in_b), KILN_ARG_BUFFER(out_b),
                KILN_ARG_BUFFER(flags_b), KILN_ARG_INT(N));
    test_read(out_b, out, 13 * N * sizeof *out);
    test_read(flags_b, flags, 2 * N * sizeof *flags);
    for (int i = 0; i < N; ++i) {
        /* the row the mirrored thread of the block left in __shared__ */
        int mirror = i / BLOCK * BLOCK + (BLOCK - 1 - i % BLOCK);
        float expected[8];
        for (int k = 0; k < 4; ++k) {
            expected[k] = mirror < N ? in[4 * mirror + k] : 0.0f;
            expected[4 + k] = table[k];
        }
        if (memcmp(out + 8 * i, expected, sizeof expected) != 0)
            fail_msg("row %d: (%g %g %g %g | %g %g %g %g), expected (%g %g %g "
                     "%g | %g %g %g %g)",
                     i, out[8 * i], out[8 * i + 1], out[8 * i + 2],
                     out[8 * i + 3], out[8 * i + 4], out[8 * i + 5],
                     out[8 * i + 6], out[8 * i + 7], expected[0], expected[1],
                     expected[2], expected[3], expected[4], expected[5],
                     expected[6], expected[7]);
        if (memcmp(out + 8 * N + 4 * i, in + 4 * i, 4 * sizeof *in) != 0)
            fail_msg("global to global copy %d differs", i);
        if (out[12 * N + i] != expected[0] + expected[4])
            fail_msg("__stcs[%d] = %g, expected %g", i, out[12 * N + i],
                     expected[0] + expected[4]);
        /* 2+3+5+7+11+13 and sizeof(float[4]) */
        if (flags[2 * i] != 0x3f3f3f3f || flags[2 * i + 1] != 41 + 16)
            fail_msg("memset %d: 0x%x, sizeof %d, expected 0x3f3f3f3f, 57", i,
                     (unsigned)flags[2 * i], flags[2 * i + 1]);
    }
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_doublify),
        KILN_TEST(test_multiply_them),
        KILN_TEST(test_sum_of_squares),
        KILN_TEST(test_saxpy_vector_add_matrices),
        KILN_TEST(test_transpose_sgemm),
        KILN_TEST(test_reduce_scan),
        KILN_TEST(test_dynamic_shared),
        KILN_TEST(test_histogram_and_helpers),
        KILN_TEST(test_dot_by_example),
        KILN_TEST(test_atomic_returns),
        KILN_TEST(test_atomic_family),
        KILN_TEST(test_math),
        KILN_TEST(test_double),
        KILN_TEST(test_shared_atomics),
        KILN_TEST(test_float3_and_structs),
        KILN_TEST(test_vectors),
        KILN_TEST(test_constant_table_and_structs),
        KILN_TEST(test_globals),
        KILN_TEST(test_grids_and_scalars),
        KILN_TEST(test_fmad_false),
        KILN_TEST(test_assert),
        KILN_TEST(test_printf_many_threads),
        KILN_TEST(test_device_memory),
        KILN_TEST(test_signatures),
        KILN_TEST(test_refusals),
    };
    return kiln_test_main("cuda_c", tests, sizeof tests / sizeof tests[0]);
}
