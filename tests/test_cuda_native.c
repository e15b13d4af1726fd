/*
 * Native CUDA C through the public API, on the CUDA backend: the PyCUDA
 * tutorial's kernels and its usual companions (shared memory, atomics,
 * reductions), each checked against the CPU on random inputs; finding
 * kernels with and without extern "C"; what the driver says of their
 * parameters; dynamic shared memory past the default 48 KiB; and a kernel
 * fault, reported at the next synchronisation and by every call after it.
 *
 * Every test skips when no CUDA context can be created (no driver, no GPU)
 * unless KILN_TEST_REQUIRE names cuda.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the context under test ------------------------------------------------- */

static int cuda_required(void)
{
    const char *required = getenv("KILN_TEST_REQUIRE");
    return required != NULL && strstr(required, "cuda") != NULL;
}

static kiln_context *cuda_context(void)
{
    kiln_context *context = NULL;
    kiln_status status = kiln_context_create("cuda", -1, &context);
    if (status == KILN_OK)
        return context;
    if (cuda_required())
        fail_msg("cuda is required (KILN_TEST_REQUIRE) but unavailable: %s: "
                 "%s",
                 kiln_status_name(status), kiln_last_error());
    char reason[400];
    snprintf(reason, sizeof reason, "%s", kiln_last_error());
    for (char *p = reason; *p; ++p)
        if (*p == '\n')
            *p = ' ';
    printf("# cuda unavailable: %s: %s\n", kiln_status_name(status), reason);
    skip();
    return NULL;
}

static float *random_floats(size_t count, float low, float high)
{
    float *values = test_alloc(count * sizeof *values);
    test_random_floats(values, count, low, high);
    return values;
}

/* ---- the PyCUDA tutorial ----------------------------------------------------------- */

static const char doublify_source[] =
    "__global__ void doublify(float *a)\n"
    "{\n"
    "    int idx = threadIdx.x + threadIdx.y * 4;\n"
    "    a[idx] *= 2;\n"
    "}\n";

/* Runs doublify on a 4x4 matrix in `context` and checks it. */
static void check_doublify(kiln_context *context)
{
    float a[16], expected[16];
    test_random_floats(a, 16, -10.0f, 10.0f);
    for (int i = 0; i < 16; ++i)
        expected[i] = 2 * a[i];
    kiln_buffer *buffer = test_buffer_from(context, a, sizeof a);
    kiln_program *program = test_build_cuda(context, doublify_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "doublify");
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM2(4, 4)};
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
    TEST_OK(kiln_launch(kernel, &config, 1, args));
    float result[16];
    TEST_OK(kiln_buffer_read(buffer, 0, result, sizeof result));
    test_assert_floats_near(result, expected, 16, 0);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_buffer_release(buffer);
}

static void test_doublify(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    check_doublify(context);
    kiln_context_release(context);
}

static void test_multiply_them(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    enum { N = 400 };
    float *a = random_floats(N, -1, 1), *b = random_floats(N, -1, 1);
    float dest[N], expected[N];
    for (int i = 0; i < N; ++i)
        expected[i] = a[i] * b[i];
    kiln_program *program = test_build_cuda(
        context,
        "__global__ void multiply_them(float *dest, float *a, float *b)\n"
        "{\n"
        "    const int i = threadIdx.x;\n"
        "    dest[i] = a[i] * b[i];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "multiply_them");
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM1(N)};
    /* PyCUDA's drv.Out(dest), drv.In(a), drv.In(b). */
    kiln_arg args[] = {KILN_ARG_OUT(dest, sizeof dest),
                       KILN_ARG_IN(a, N * sizeof *a),
                       KILN_ARG_IN(b, N * sizeof *b)};
    TEST_OK(kiln_launch(kernel, &config, 3, args));
    test_assert_floats_near(dest, expected, N, 0);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(a);
    free(b);
    kiln_context_release(context);
}

static void test_vector_add(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    const size_t n = 1000000;
    float *a = random_floats(n, -100, 100), *b = random_floats(n, -100, 100);
    float *c = test_alloc(n * sizeof *c);
    kiln_buffer *da = test_buffer_from(context, a, n * sizeof *a);
    kiln_buffer *db = test_buffer_from(context, b, n * sizeof *b);
    kiln_buffer *dc = test_buffer(context, n * sizeof *c);
    kiln_program *program = test_build_cuda(
        context,
        "__global__ void vector_add(const float *a, const float *b,\n"
        "                           float *c, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n)\n"
        "        c[i] = a[i] + b[i];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "vector_add");
    /* 1e6 is not a multiple of 256: the last block is partly idle. */
    kiln_launch_config config = test_config_1d(n, 256);
    assert_int_equal(config.grid.x, (n + 255) / 256);
    TEST_OK(kiln_launch_prepared(kernel, &config, "PPPi", da, db, dc,
                                 (int32_t)n));
    TEST_OK(kiln_buffer_read(dc, 0, c, n * sizeof *c));
    for (size_t i = 0; i < n; ++i)
        if (c[i] != a[i] + b[i])
            fail_msg("c[%zu] = %g, expected %g", i, (double)c[i],
                     (double)(a[i] + b[i]));
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_buffer_release(da);
    kiln_buffer_release(db);
    kiln_buffer_release(dc);
    free(a);
    free(b);
    free(c);
    kiln_context_release(context);
}

static void test_matrix_add(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    enum { N = 1024 };
    const size_t bytes = (size_t)N * N * sizeof(float);
    float *a = random_floats((size_t)N * N, -1, 1);
    float *b = random_floats((size_t)N * N, -1, 1);
    float *c = test_alloc(bytes);
    kiln_buffer *da = test_buffer_from(context, a, bytes);
    kiln_buffer *db = test_buffer_from(context, b, bytes);
    kiln_buffer *dc = test_buffer(context, bytes);
    kiln_program *program = test_build_cuda(
        context,
        "__global__ void matrix_add(const float *a, const float *b,\n"
        "                           float *c, int width, int height)\n"
        "{\n"
        "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (x < width && y < height)\n"
        "        c[y * width + x] = a[y * width + x] + b[y * width + x];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "matrix_add");
    kiln_launch_config config = {.grid = KILN_DIM2(N / 16, N / 16),
                                 .block = KILN_DIM2(16, 16)};
    kiln_arg args[] = {KILN_ARG_BUFFER(da), KILN_ARG_BUFFER(db),
                       KILN_ARG_BUFFER(dc), KILN_ARG_INT(N), KILN_ARG_INT(N)};
    TEST_OK(kiln_launch(kernel, &config, 5, args));
    TEST_OK(kiln_buffer_read(dc, 0, c, bytes));
    for (size_t i = 0; i < (size_t)N * N; ++i)
        if (c[i] != a[i] + b[i])
            fail_msg("c[%zu] = %g, expected %g", i, (double)c[i],
                     (double)(a[i] + b[i]));
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_buffer_release(da);
    kiln_buffer_release(db);
    kiln_buffer_release(dc);
    free(a);
    free(b);
    free(c);
    kiln_context_release(context);
}

static void test_shared_doublify(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    enum { BLOCK = 256, N = BLOCK * 64 };
    float *a = random_floats(N, -10, 10);
    float result[N], expected[N];
    /* Each block doubles its slice and reverses it through shared memory,
     * so a missing __syncthreads or a wrong tile shows. */
    for (int i = 0; i < N; ++i) {
        int block = i / BLOCK, lane = i % BLOCK;
        expected[i] = 2 * a[block * BLOCK + (BLOCK - 1 - lane)];
    }
    kiln_buffer *buffer = test_buffer_from(context, a, sizeof result);
    kiln_program *program = test_build_cuda(
        context,
        "#define BLOCK 256\n"
        "__global__ void doublify_shared(float *a)\n"
        "{\n"
        "    __shared__ float tile[BLOCK];\n"
        "    int i = blockIdx.x * BLOCK + threadIdx.x;\n"
        "    tile[threadIdx.x] = 2 * a[i];\n"
        "    __syncthreads();\n"
        "    a[i] = tile[BLOCK - 1 - threadIdx.x];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "doublify_shared");
    kiln_launch_config config = {.grid = KILN_DIM1(N / BLOCK),
                                 .block = KILN_DIM1(BLOCK)};
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
    TEST_OK(kiln_launch(kernel, &config, 1, args));
    TEST_OK(kiln_buffer_read(buffer, 0, result, sizeof result));
    test_assert_floats_near(result, expected, N, 0);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_buffer_release(buffer);
    free(a);
    kiln_context_release(context);
}

static double sum_of_squares(const float *x, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += (double)x[i] * x[i];
    return sum;
}

static void test_sum_squares_atomic(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    const size_t n = 1 << 20;
    float *x = random_floats(n, -1, 1);
    kiln_buffer *dx = test_buffer_from(context, x, n * sizeof *x);
    kiln_buffer *sum = test_buffer(context, sizeof(float));
    const float zero = 0;
    TEST_OK(kiln_buffer_fill(sum, 0, sizeof zero, &zero, sizeof zero));
    kiln_program *program = test_build_cuda(
        context,
        "__global__ void sum_squares(const float *x, float *sum, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n)\n"
        "        atomicAdd(sum, x[i] * x[i]);\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "sum_squares");
    kiln_launch_config config = test_config_1d(n, 256);
    kiln_arg args[] = {KILN_ARG_BUFFER(dx), KILN_ARG_BUFFER(sum),
                       KILN_ARG_INT((int32_t)n)};
    TEST_OK(kiln_launch(kernel, &config, 3, args));
    float result = 0;
    TEST_OK(kiln_buffer_read(sum, 0, &result, sizeof result));
    /* Float atomics add in any order: a relative error of 1e-3 is far
     * beyond rounding and far below any missed element (1/n ~ 1e-6 each
     * would not show, so also check that the sum is not the sum of a
     * part: every element is needed for 1e-3 once n > 1000). */
    double expected = sum_of_squares(x, n);
    if (fabs(result - expected) > 1e-3 * expected)
        fail_msg("sum of squares %.9g, expected %.9g", (double)result,
                 expected);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_buffer_release(dx);
    kiln_buffer_release(sum);
    free(x);
    kiln_context_release(context);
}

static void test_sum_squares_reduction(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    const size_t n = (1 << 20) + 12345; /* not a multiple of the block */
    enum { BLOCK = 256 };
    float *x = random_floats(n, -1, 1);
    size_t blocks = (n + BLOCK - 1) / BLOCK;
    kiln_buffer *dx = test_buffer_from(context, x, n * sizeof *x);
    kiln_buffer *partial = test_buffer(context, blocks * sizeof(float));
    kiln_buffer *total = test_buffer(context, sizeof(float));
    /* One tree reduction in shared memory per block; run once over the
     * squares, then once more (one block, striding) over the partial
     * sums. */
    kiln_program *program = test_build_cuda(
        context,
        "#define BLOCK 256\n"
        "__global__ void reduce(const float *x, float *out, int n,\n"
        "                       int square)\n"
        "{\n"
        "    __shared__ float cache[BLOCK];\n"
        "    float sum = 0;\n"
        "    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n;\n"
        "         i += gridDim.x * BLOCK)\n"
        "        sum += square ? x[i] * x[i] : x[i];\n"
        "    cache[threadIdx.x] = sum;\n"
        "    __syncthreads();\n"
        "    for (int step = BLOCK / 2; step > 0; step /= 2) {\n"
        "        if (threadIdx.x < step)\n"
        "            cache[threadIdx.x] += cache[threadIdx.x + step];\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (threadIdx.x == 0)\n"
        "        out[blockIdx.x] = cache[0];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "reduce");
    kiln_launch_config first = {.grid = KILN_DIM1(blocks),
                                .block = KILN_DIM1(BLOCK)};
    TEST_OK(kiln_launch_prepared(kernel, &first, "PPii", dx, partial,
                                 (int32_t)n, 1));
    kiln_launch_config second = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM1(BLOCK)};
    TEST_OK(kiln_launch_prepared(kernel, &second, "PPii", partial, total,
                                 (int32_t)blocks, 0));
    float result = 0;
    TEST_OK(kiln_buffer_read(total, 0, &result, sizeof result));
    double expected = sum_of_squares(x, n);
    if (fabs(result - expected) > 1e-4 * expected)
        fail_msg("sum of squares %.9g, expected %.9g", (double)result,
                 expected);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_buffer_release(dx);
    kiln_buffer_release(partial);
    kiln_buffer_release(total);
    free(x);
    kiln_context_release(context);
}

/* ---- kernels, parameters, shared memory --------------------------------------------- */

static void test_kernel_lookup(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    kiln_program *program = test_build_cuda(
        context,
        "extern \"C\" __global__ void with_c_linkage(int *out)\n"
        "{ out[0] = 1; }\n"
        "__global__ void with_cpp_linkage(int *out, int value)\n"
        "{ out[1] = value; }\n"
        "__global__ void overloaded(int *out) { out[2] = 3; }\n"
        "__global__ void overloaded(int *out, int value) { out[2] = value; }\n"
        "template <typename T> __global__ void fill(T *out) { out[0] = 4; }\n"
        "template __global__ void fill<int>(int *);\n"
        "namespace inner { __global__ void hidden(int *out) { out[3] = 5; } }\n",
        NULL);
    kiln_buffer *buffer = test_buffer(context, 4 * sizeof(int32_t));
    const int32_t zero = 0;
    TEST_OK(kiln_buffer_fill(buffer, 0, 4 * sizeof zero, &zero, sizeof zero));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};

    kiln_kernel *plain = test_kernel(program, "with_c_linkage");
    kiln_kernel *mangled = test_kernel(program, "with_cpp_linkage");
    TEST_OK(kiln_launch_prepared(plain, &config, "P", buffer));
    TEST_OK(kiln_launch_prepared(mangled, &config, "Pi", buffer, 42));
    /* The mangled name itself is a name too. */
    kiln_kernel *by_symbol = test_kernel(program, "_Z16with_cpp_linkagePii");
    kiln_kernel_release(by_symbol);
    /* A template's instance is found by its name expression (or its
     * symbol), never by the template's plain name: the translation for
     * OpenCL devices answers the same, and CuPy's get_function too. */
    kiln_kernel *fill = test_kernel(program, "fill<int>");
    kiln_kernel_release(fill);
    fill = test_kernel(program, "_Z4fillIiEvPT_");
    kiln_kernel_release(fill);
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "fill", &fill));
    TEST_ERROR_MENTIONS("fill");

    int32_t result[4];
    TEST_OK(kiln_buffer_read(buffer, 0, result, sizeof result));
    assert_int_equal(result[0], 1);
    assert_int_equal(result[1], 42);

    kiln_kernel *missing = NULL;
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "no_such_kernel", &missing));
    TEST_ERROR_MENTIONS("no_such_kernel");
    /* Overloads are ambiguous: the message lists their symbols. */
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "overloaded", &missing));
    TEST_ERROR_MENTIONS("_Z10overloadedPi");
    /* Not at global scope: only by its symbol. */
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "hidden", &missing));
    kiln_kernel *hidden = test_kernel(program, "_ZN5inner6hiddenEPi");
    kiln_kernel_release(hidden);

    kiln_kernel_release(plain);
    kiln_kernel_release(mangled);
    kiln_program_release(program);
    kiln_buffer_release(buffer);
    kiln_context_release(context);
}

static void test_param_reflection(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    kiln_program *program = test_build_cuda(
        context,
        "struct triple { float x, y, z; };\n"
        "__global__ void reflect(float *a, int b, double c, char d,\n"
        "                        float4 e, triple f, unsigned short g)\n"
        "{ if (b < 0) a[0] = (float)c + d + e.x + f.z + g; }\n"
        "__global__ void nothing(void) {}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "reflect");
    /* Kiln reads CUDA C signatures itself: the pointer is a buffer, the
     * rest values of their C sizes. */
    static const size_t sizes[] = {8, 4, 8, 1, 16, 12, 2};
    size_t count = 0;
    TEST_OK(kiln_kernel_get_param_count(kernel, &count));
    assert_int_equal(count, sizeof sizes / sizeof sizes[0]);
    for (size_t i = 0; i < count; ++i) {
        kiln_param_info info;
        TEST_OK(kiln_kernel_get_param_info(kernel, i, &info));
        assert_int_equal(info.kind,
                         i == 0 ? KILN_PARAM_BUFFER : KILN_PARAM_VALUE);
        if (info.size != sizes[i])
            fail_msg("parameter %zu: %zu bytes, expected %zu", i, info.size,
                     sizes[i]);
    }
    /* The core checks launches against these. */
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_launch_prepared(kernel, &config, "i", 1));
    size_t threads = 0;
    TEST_OK(kiln_kernel_get_max_block_size(kernel, &threads));
    assert_true(threads >= 32);
    kiln_kernel *nothing = test_kernel(program, "nothing");
    TEST_OK(kiln_kernel_get_param_count(nothing, &count));
    assert_int_equal(count, 0);
    TEST_OK(kiln_launch(nothing, &config, 0, NULL));
    TEST_OK(kiln_context_synchronize(context));
    kiln_kernel_release(nothing);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_context_release(context);
}

/* Reverses each block's slice through `extern __shared__` memory of
 * `block` floats, for a block of `block` threads. */
static void check_dynamic_shared(kiln_context *context, kiln_kernel *kernel,
                                 size_t block, size_t repeat)
{
    const size_t n = block * 8;
    float *a = random_floats(n, -1, 1);
    float *result = test_alloc(n * sizeof *result);
    kiln_buffer *buffer = test_buffer_from(context, a, n * sizeof *a);
    kiln_launch_config config = {.grid = KILN_DIM1(n / block),
                                 .block = KILN_DIM1(block),
                                 .local_memory = block * repeat * sizeof(float)};
    TEST_OK(kiln_launch_prepared(kernel, &config, "Pi", buffer,
                                 (int32_t)repeat));
    TEST_OK(kiln_buffer_read(buffer, 0, result, n * sizeof *result));
    for (size_t i = 0; i < n; ++i) {
        size_t first = i / block * block, lane = i % block;
        float expected = a[first + block - 1 - lane];
        if (result[i] != expected)
            fail_msg("block %zu, %zu bytes of shared memory: a[%zu] = %g, "
                     "expected %g",
                     block, config.local_memory, i, (double)result[i],
                     (double)expected);
    }
    kiln_buffer_release(buffer);
    free(a);
    free(result);
}

static void test_dynamic_shared(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    kiln_program *program = test_build_cuda(
        context,
        "__global__ void reverse(float *a, int repeat)\n"
        "{\n"
        "    extern __shared__ float tile[];\n"
        "    int lane = threadIdx.x, n = blockDim.x;\n"
        "    int i = blockIdx.x * n + lane;\n"
        "    /* Every copy of the tile must be there: the launch gave\n"
        "       repeat * n floats. */\n"
        "    for (int r = 0; r < repeat; ++r)\n"
        "        tile[r * n + lane] = a[i];\n"
        "    __syncthreads();\n"
        "    a[i] = tile[(repeat - 1) * n + n - 1 - lane];\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "reverse");
    check_dynamic_shared(context, kernel, 128, 1);
    /* 96 KiB: more than the 48 KiB a launch gets without opting in. */
    kiln_device_info device;
    TEST_OK(kiln_context_get_device_info(context, &device));
    if (device.local_memory >= 96 * 1024) {
        check_dynamic_shared(context, kernel, 256, 96);
        /* A second Kiln kernel of the same function needing less must not
         * lower the limit the first one raised. */
        kiln_kernel *twin = test_kernel(program, "reverse");
        check_dynamic_shared(context, twin, 256, 64);
        check_dynamic_shared(context, kernel, 256, 96);
        kiln_kernel_release(twin);
    } else
        printf("# %s: %llu bytes of shared memory, 96 KiB not tried\n",
               device.name, (unsigned long long)device.local_memory);
    /* More than the device has: refused before the launch. */
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM1(32),
                                 .local_memory = device.local_memory + 1};
    kiln_buffer *buffer = test_buffer(context, 32 * sizeof(float));
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH,
               kiln_launch_prepared(kernel, &config, "Pi", buffer, 1));
    kiln_buffer_release(buffer);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_context_release(context);
}

/* ---- faults ------------------------------------------------------------------------- */

static void test_illegal_address(void **state)
{
    (void)state;
    kiln_context *context = cuda_context();
    kiln_program *program = test_build_cuda(
        context,
        "__global__ void write_anywhere(float *where, long long offset)\n"
        "{ where[offset] = 1.0f; }\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "write_anywhere");
    kiln_buffer *buffer = test_buffer(context, 64);
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    /* Pointer parameters take buffers only: fault with an index far past
     * the 64-byte buffer, where nothing is mapped. */
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer),
                       KILN_ARG_LONG((int64_t)1 << 42)};
    kiln_status status = kiln_launch(kernel, &config, 2, args);
    if (status == KILN_OK)
        TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_context_synchronize(context));
    else
        assert_int_equal(status, KILN_ERR_KERNEL_FAULT);
    /* The driver says ILLEGAL_ADDRESS; under compute-sanitizer, which
     * catches the access itself, LAUNCH_FAILED.  Either way Kiln names the
     * driver's error and says a kernel faulted. */
    assert_true(strstr(kiln_last_error(), "CUDA_ERROR_ILLEGAL_ADDRESS") ||
                strstr(kiln_last_error(), "CUDA_ERROR_LAUNCH_FAILED"));
    TEST_ERROR_MENTIONS("kernel fault");
    /* Everything on the context reports the fault from now on. */
    float value = 1;
    TEST_FAILS(KILN_ERR_KERNEL_FAULT,
               kiln_buffer_write(buffer, 0, &value, sizeof value));
    TEST_ERROR_MENTIONS("kernel fault");
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_context_synchronize(context));
    kiln_buffer_release(buffer);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_context_release(context);

    /* With every object of the faulted context gone, Kiln resets the
     * device's primary context.  Whether a new one can be had then is the
     * driver's call: drivers of CUDA 12 and 13 refuse every new context in
     * a process after a fault, and Kiln must say so (and why) rather than
     * hand out a context that fails later. */
    kiln_context *fresh = NULL;
    status = kiln_context_create("cuda", -1, &fresh);
    if (status == KILN_OK) {
        printf("# the driver gave a new context after the fault\n");
        check_doublify(fresh);
        TEST_OK(kiln_context_synchronize(fresh));
        kiln_context_release(fresh);
    } else {
        if (status != KILN_ERR_KERNEL_FAULT)
            fail_msg("a new context after the fault: %s: %s",
                     kiln_status_name(status), kiln_last_error());
        TEST_ERROR_MENTIONS("CUDA_ERROR_ILLEGAL_ADDRESS");
        TEST_ERROR_MENTIONS("restart the process");
        printf("# no new context after the fault, as the driver "
               "decides: %s\n",
               kiln_last_error());
    }
}

int main(void)
{
    static const kiln_test tests[] = {
        {"cuda: doublify", test_doublify},
        {"cuda: multiply_them", test_multiply_them},
        {"cuda: vector_add", test_vector_add},
        {"cuda: matrix_add", test_matrix_add},
        {"cuda: shared-memory doublify", test_shared_doublify},
        {"cuda: sum of squares (atomicAdd)", test_sum_squares_atomic},
        {"cuda: sum of squares (shared-memory reduction)",
         test_sum_squares_reduction},
        {"cuda: kernel lookup with and without extern \"C\"",
         test_kernel_lookup},
        {"cuda: parameter reflection", test_param_reflection},
        {"cuda: dynamic shared memory", test_dynamic_shared},
        /* Last: after a fault the driver may refuse CUDA to the process. */
        {"cuda: illegal address is a kernel fault", test_illegal_address},
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return kiln_test_main_plain("cuda-native", tests,
                                sizeof tests / sizeof tests[0]);
}
