/*
 * The C++ that CUDA code is written in (tests/kernels/cuda/cxx_*.cu):
 * templates, kernel templates named by the host, class templates and
 * traits, constexpr, static_assert, if constexpr; namespaces, overloads,
 * references, structs with constructors, members and operators, default
 * arguments, auto, enum class, function objects, range-for.  Each kernel
 * runs on every backend against a CPU reference on random inputs:
 * natively on CUDA, lowered to C and translated to OpenCL C on OpenCL.
 * Also: constructs of public code the translation got wrong before
 * (public_constructs.cu), and what it still refuses, with the construct
 * and the line.
 */
#include "harness.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kiln_program *cxx_program(kiln_context *context, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/kernels/cuda/%s.cu", name);
    return test_temp_program_file(context, path, KILN_LANGUAGE_CUDA_C);
}

#define ARRAY(type, count) \
    ((type *)test_temp_alloc((size_t)(count) * sizeof(type)))

static void expect_floats(const char *what, const float *actual,
                          const float *expected, size_t count, double relative)
{
    for (size_t i = 0; i < count; ++i) {
        double bound = 1e-6 + relative * fabs((double)expected[i]);
        if (!(fabs((double)actual[i] - expected[i]) <= bound))
            fail_msg("%s[%zu] = %.9g, expected %.9g", what, i,
                     (double)actual[i], (double)expected[i]);
    }
}

static void expect_ints(const char *what, const int *actual, const int *expected,
                        size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (actual[i] != expected[i])
            fail_msg("%s[%zu] = %d, expected %d", what, i, actual[i], expected[i]);
}

/* ---- templates ---------------------------------------------------------------- */

static float clampf_(float x, float lo, float hi)
{
    return fminf(fmaxf(x, lo), hi);
}

static void test_templates(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cxx_program(context, "cxx_templates");
    kiln_kernel *kernel = test_temp_kernel(program, "templates_basic");
    enum { N = 333 };
    float *in = ARRAY(float, N), *out = ARRAY(float, 4 * N),
          *expected = ARRAY(float, 4 * N);
    int *ints = ARRAY(int, N), *iout = ARRAY(int, 4 * N),
        *iexpected = ARRAY(int, 4 * N);
    test_random_floats(in, N, -2.0f, 2.0f);
    test_random_ints(ints, N, -300, 300);
    for (int i = 0; i < N; ++i) {
        float x = in[i];
        expected[4 * i + 0] = x * x + 4.0f;
        int m = N - 3 > 0 ? N - 3 : 1;
        int o = (i / 4) * 4 % m, s = 0;
        for (int k = 0; k < 4; ++k)
            s += ints[o + k];
        iexpected[4 * i + 0] = ints[i] * ints[i] + s;
        float sum = 0.0f;
        for (int k = 0; k < 4; ++k)
            sum += x * (float)(k + 1);
        expected[4 * i + 1] = sum;
        iexpected[4 * i + 1] = 2 * ints[i] + 2 * ints[i];
        expected[4 * i + 2] = x + (x > 1.0f ? x : 1.0f);
        iexpected[4 * i + 2] = ints[i];
        expected[4 * i + 3] = clampf_(x, -0.5f, 0.5f);
        int c = ints[i] < -100 ? -100 : ints[i] > 100 ? 100 : ints[i];
        /* sizeof(Pair<int>) + sizeof(Pair<int *>): 8 + 16 */
        iexpected[4 * i + 3] = c + 24;
    }
    kiln_buffer *in_b = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *ints_b = test_temp_buffer_from(context, ints, N * sizeof *ints);
    kiln_buffer *out_b = test_temp_buffer(context, 4 * N * sizeof *out);
    kiln_buffer *iout_b = test_temp_buffer(context, 4 * N * sizeof *iout);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(in_b), KILN_ARG_BUFFER(ints_b),
                KILN_ARG_BUFFER(out_b), KILN_ARG_BUFFER(iout_b), KILN_ARG_INT(N));
    test_read(out_b, out, 4 * N * sizeof *out);
    test_read(iout_b, iout, 4 * N * sizeof *iout);
    expect_floats("templates_basic", out, expected, 4 * N, 1e-6);
    expect_ints("templates_basic (ints)", iout, iexpected, 4 * N);
}

/* ---- classes, operators, references ---------------------------------------------- */

static void test_classes(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cxx_program(context, "cxx_classes");
    kiln_kernel *kernel = test_temp_kernel(program, "classes");
    enum { N = 257 };
    float *in = ARRAY(float, 3 * N), *out = ARRAY(float, 8 * N),
          *expected = ARRAY(float, 8 * N);
    test_random_floats(in, 3 * N, -2.0f, 2.0f);
    for (int i = 0; i < N; ++i) {
        const float *p = in + 3 * i;
        float cx = p[0] + 1.0f + 0.5f, cy = p[1] + 2.0f + 0.5f,
              cz = p[2] + 3.0f + 0.5f;
        float dx = 2.0f * -cx, dy = 2.0f * -cy, dz = 2.0f * -cz;
        float *e = expected + 8 * i;
        e[0] = cx + cy + cz;
        e[1] = dx * dx + dy * dy + dz * dz;
        e[2] = (p[0] == 1.0f && p[1] == 2.0f && p[2] == 3.0f) ? 0.0f : 1.0f;
        e[3] = (p[0] + 0.25f * (p[1] - p[0])) + (p[2] * 2.0f + 0.5f) +
               (p[2] * 3.0f + 0.5f);
        e[4] = (p[1] + 1.0f) - p[0];
        float ux = p[0] + 1.0f * 0.5f, uy = p[1] + 1.0f * 0.5f;
        float vx = fminf(clampf_(ux + ux, -1.0f, 1.0f), 0.25f);
        float vy = fminf(clampf_(uy + uy, -1.0f, 1.0f), 0.75f);
        e[5] = vx + vy + 5.0f + clampf_(p[2], 0.0f, 0.5f);
        float wx = p[0] - 1.0f, wy = p[1] - 1.0f, wz = p[2] - 1.0f;
        float add = 0.0f, mul = 1.0f, mx = -1e30f;
        for (int k = 0; k < 3; ++k) {
            add = add + p[k];
            mul = mul * p[k];
            mx = fmaxf(mx, p[k]);
        }
        e[6] = (wx * wx + wy * wy + wz * wz) + add + mul + mx;
        int hits = 0, misses = 10;
        for (int k = 0; k < 3; ++k)
            p[k] > 0.0f ? ++hits : ++misses;
        e[7] = (float)(hits * 100 + misses) + 2.0f * p[0] + 2.0f * p[1] +
               2.0f * p[2];
    }
    kiln_buffer *in_b = test_temp_buffer_from(context, in, 3 * N * sizeof *in);
    kiln_buffer *out_b = test_temp_buffer(context, 8 * N * sizeof *out);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(in_b), KILN_ARG_BUFFER(out_b), KILN_ARG_INT(N));
    test_read(out_b, out, 8 * N * sizeof *out);
    expect_floats("classes", out, expected, 8 * N, 2e-6);
}

/* ---- patterns of public code --------------------------------------------------------- */

static void test_packed(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cxx_program(context, "cxx_patterns");
    kiln_kernel *kernel = test_temp_kernel(program, "packed");
    enum { N = 300 };
    float *in = ARRAY(float, 4 * N), *out = ARRAY(float, 5 * N),
          *expected = ARRAY(float, 5 * N);
    int *ints = ARRAY(int, 4 * N), *iout = ARRAY(int, 4 * N),
        *iexpected = ARRAY(int, 4 * N);
    test_random_floats(in, 4 * N, -3.0f, 3.0f);
    test_random_ints(ints, 4 * N, -1000, 1000);
    for (int i = 0; i < N; ++i) {
        const float *x = in + 4 * i;
        for (int k = 0; k < 4; ++k) {
            expected[4 * i + k] = 2.0f * x[k] + (float)k;
            iexpected[4 * i + k] = ints[4 * i + k] * 32 + 1;
        }
        expected[4 * N + i] = (x[0] + x[1] + x[2]) + ((x[0] - 1.0f) + (x[3] - 1.0f));
    }
    kiln_buffer *in_b = test_temp_buffer_from(context, in, 4 * N * sizeof *in);
    kiln_buffer *ints_b = test_temp_buffer_from(context, ints, 4 * N * sizeof *ints);
    kiln_buffer *out_b = test_temp_buffer(context, 5 * N * sizeof *out);
    kiln_buffer *iout_b = test_temp_buffer(context, 4 * N * sizeof *iout);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 32)), KILN_DIM1(32), 0,
                KILN_ARG_BUFFER(in_b), KILN_ARG_BUFFER(ints_b),
                KILN_ARG_BUFFER(out_b), KILN_ARG_BUFFER(iout_b), KILN_ARG_INT(N));
    test_read(out_b, out, 5 * N * sizeof *out);
    test_read(iout_b, iout, 4 * N * sizeof *iout);
    expect_floats("packed", out, expected, 5 * N, 2e-6);
    expect_ints("packed (ints)", iout, iexpected, 4 * N);
}

/* ---- constructs of public code ------------------------------------------------------ */

static void test_public_constructs(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cxx_program(context, "public_constructs");
    kiln_kernel *kernel = test_temp_kernel(program, "public_constructs");
    enum { N = 301, OFFSET = 17 };
    static const short weights[] = {3, -1, 4, -1, 5, -9, 2, 6};
    static const float bias[] = {0.5f, -0.25f};
    float *in = ARRAY(float, N), *out = ARRAY(float, 2 * N),
          *expected = ARRAY(float, 2 * N);
    int *ints = ARRAY(int, N), *iout = ARRAY(int, N + 5);
    test_random_floats(in, N, -4.0f, 4.0f);
    test_random_ints(ints, N, -1000, 1000);
    int largest = INT_MIN;
    for (int i = 0; i < N; ++i) {
        expected[2 * i] = 0.5f * in[i] * 2.0f + bias[i % 2];
        expected[2 * i + 1] = (float)weights[i % 8] * in[i];
        largest = ints[i] > largest ? ints[i] : largest;
    }
    kiln_buffer *in_b = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *ints_b = test_temp_buffer_from(context, ints, N * sizeof *ints);
    kiln_buffer *out_b = test_temp_buffer(context, 2 * N * sizeof *out);
    int *start = ARRAY(int, N + 5);
    for (int k = 0; k < N + 5; ++k)
        start[k] = k == N + 3 ? INT_MIN : 0;
    kiln_buffer *iout_b = test_temp_buffer_from(context, start,
                                                (N + 5) * sizeof *start);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(in_b), KILN_ARG_BUFFER(ints_b),
                KILN_ARG_BUFFER(out_b), KILN_ARG_BUFFER(iout_b),
                KILN_ARG_INT(N), KILN_ARG_INT(OFFSET));
    test_read(out_b, out, 2 * N * sizeof *out);
    test_read(iout_b, iout, (N + 5) * sizeof *iout);
    expect_floats("public_constructs", out, expected, 2 * N, 1e-6);
    for (int i = 0; i < N; ++i)
        if (iout[i] != OFFSET + ints[i])
            fail_msg("linked[%d] = %d, expected %d", i, iout[i], OFFSET + ints[i]);
    if (iout[N] != N || iout[N + 1] != 7 || iout[N + 2] < 0 ||
        iout[N + 2] >= N || iout[N + 3] != largest ||
        iout[N + 4] != 30 + OFFSET)
        fail_msg("atomics and variables: %d %d %d %d %d, expected %d 7 [0, %d) "
                 "%d %d",
                 iout[N], iout[N + 1], iout[N + 2], iout[N + 3], iout[N + 4], N,
                 N, largest, 30 + OFFSET);
}

/* ---- cooperative groups within a block ---------------------------------------------- */

static void test_cooperative_groups(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cxx_program(context, "cooperative_groups");
    enum { N = 1000, BLOCK = 128 };
    size_t blocks = test_blocks(N, BLOCK);
    float *in = ARRAY(float, N), *out = ARRAY(float, blocks),
          *expected = ARRAY(float, blocks);
    test_random_floats(in, N, -1.0f, 1.0f);
    for (size_t b = 0; b < blocks; ++b) {
        double sum = 0.0;
        for (size_t i = b * BLOCK; i < (b + 1) * BLOCK && i < N; ++i)
            sum += in[i];
        expected[b] = (float)sum;
    }
    kiln_buffer *in_b = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *out_b = test_temp_buffer(context, blocks * sizeof *out);
    kiln_kernel *sums = test_temp_kernel(program, "block_sums");
    TEST_LAUNCH(sums, KILN_DIM1(blocks), KILN_DIM1(BLOCK),
                BLOCK * sizeof(float), KILN_ARG_BUFFER(in_b),
                KILN_ARG_BUFFER(out_b), KILN_ARG_INT(N));
    test_read(out_b, out, blocks * sizeof *out);
    expect_floats("block_sums", out, expected, blocks, 1e-5);
    /* 2-D blocks of 8 x 4, a grid of 3 x 2 */
    enum { BX = 8, BY = 4, GX = 3, GY = 2, ALL = BX * BY * GX * GY };
    kiln_buffer *ranks_b = test_temp_buffer(context, ALL * sizeof(unsigned));
    kiln_kernel *ranks = test_temp_kernel(program, "ranks");
    TEST_LAUNCH(ranks, KILN_DIM2(GX, GY), KILN_DIM2(BX, BY), 0,
                KILN_ARG_BUFFER(ranks_b));
    unsigned *got = ARRAY(unsigned, ALL);
    test_read(ranks_b, got, ALL * sizeof *got);
    for (unsigned b = 0; b < GX * GY; ++b)
        for (unsigned y = 0; y < BY; ++y)
            for (unsigned x = 0; x < BX; ++x) {
                unsigned rank = y * BX + x;
                unsigned want = rank * 1000u + y * 100u + BX * 10u + BY;
                if (got[b * BX * BY + rank] != want)
                    fail_msg("ranks[%u] = %u, expected %u", b * BX * BY + rank,
                             got[b * BX * BY + rank], want);
            }
    /* thread_group: the block, tiles of 16 and 4 made at run time, a
     * tile<8>, each the mean of its threads' values */
    enum { GB = 3, M = GB * BLOCK };
    float *x = ARRAY(float, M), *means = ARRAY(float, 5 * M);
    test_random_floats(x, M, -8.0f, 8.0f);
    kiln_buffer *x_b = test_temp_buffer_from(context, x, M * sizeof *x);
    kiln_buffer *means_b = test_temp_buffer(context, 5 * M * sizeof *means);
    kiln_kernel *group_means = test_temp_kernel(program, "group_means");
    TEST_LAUNCH(group_means, KILN_DIM1(GB), KILN_DIM1(BLOCK), 0,
                KILN_ARG_BUFFER(x_b), KILN_ARG_BUFFER(means_b));
    test_read(means_b, means, 5 * M * sizeof *means);
    static const unsigned sizes[4] = {BLOCK, 16, 4, 8};
    for (unsigned i = 0; i < M; ++i) {
        for (int g = 0; g < 4; ++g) {
            unsigned first = i / sizes[g] * sizes[g];
            float sum = 0.0f;
            for (unsigned k = 0; k < sizes[g]; ++k)
                sum += x[first + k];
            float mean = sum / (float)sizes[g];
            if (!(fabsf(means[5 * i + g] - mean) <= 1e-5f * 8.0f))
                fail_msg("group_means[%u] of group %d = %.9g, expected %.9g",
                         i, g, (double)means[5 * i + g], (double)mean);
        }
        float tile_ranks = (float)((i % 16) * 1000 + 160 + i % 4);
        if (means[5 * i + 4] != tile_ranks)
            fail_msg("tile ranks[%u] = %g, expected %g", i,
                     (double)means[5 * i + 4], (double)tile_ranks);
    }
    /* reduce_sum over a thread_group (a loop on g.size() around g.sync()):
     * the block's sum and its tiles' of 16 */
    int *ints = ARRAY(int, M), *group_totals = ARRAY(int, GB * 9);
    test_random_ints(ints, M, -1000, 1000);
    kiln_buffer *ints_b = test_temp_buffer_from(context, ints, M * sizeof *ints);
    kiln_buffer *sums_b = test_temp_buffer(context, GB * 9 * sizeof *group_totals);
    kiln_kernel *group_sums = test_temp_kernel(program, "group_sums");
    TEST_LAUNCH(group_sums, KILN_DIM1(GB), KILN_DIM1(BLOCK), 0,
                KILN_ARG_BUFFER(ints_b), KILN_ARG_BUFFER(sums_b));
    test_read(sums_b, group_totals, GB * 9 * sizeof *group_totals);
    for (int b = 0; b < GB; ++b) {
        int whole = 0;
        for (int t = 0; t < BLOCK; ++t)
            whole += ints[b * BLOCK + t];
        if (group_totals[b * 9] != whole)
            fail_msg("group_sums block %d = %d, expected %d", b, group_totals[b * 9], whole);
        for (int k = 0; k < BLOCK / 16; ++k) {
            int part = 0;
            for (int t = 0; t < 16; ++t)
                part += ints[b * BLOCK + 16 * k + t];
            if (group_totals[b * 9 + 1 + k] != part)
                fail_msg("group_sums block %d tile %d = %d, expected %d", b, k,
                         group_totals[b * 9 + 1 + k], part);
        }
    }
}

/* ---- refusals per kernel ----------------------------------------------------------- */

static void test_refusals_per_kernel(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = cxx_program(context, "refused_neighbours");
    enum { N = 500 };
    float *in = ARRAY(float, N), *out = ARRAY(float, N),
          *expected = ARRAY(float, N);
    test_random_floats(in, N, -3.0f, 3.0f);
    for (int i = 0; i < N; ++i)
        expected[i] = in[i] * 1.5f + 1.0f;
    kiln_buffer *in_b = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *out_b = test_temp_buffer(context, N * sizeof *out);
    kiln_kernel *scale = test_temp_kernel(program, "scale_rows");
    TEST_LAUNCH(scale, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(in_b), KILN_ARG_BUFFER(out_b), KILN_ARG_INT(N),
                KILN_ARG_FLOAT(1.5f));
    test_read(out_b, out, N * sizeof *out);
    expect_floats("scale_rows", out, expected, N, 1e-6);
    kiln_kernel *negate = test_temp_kernel(program, "negate");
    TEST_LAUNCH(negate, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(out_b), KILN_ARG_INT(N));
    test_read(out_b, out, N * sizeof *out);
    for (int i = 0; i < N; ++i)
        expected[i] = -expected[i];
    expect_floats("negate", out, expected, N, 1e-6);
    if (strcmp(test_backend(state), "opencl") != 0)
        return; /* CUDA compiles the others natively */
    /* the refused kernels: the construct and its line, whenever asked */
    static const struct {
        const char *kernel, *construct, *line;
    } refused[] = {
        {"warp_sums", "__match_any_sync", "refused_neighbours.cu:9:"},
        {"count_calls", "static local variable", "refused_neighbours.cu:33:"},
    };
    for (int round = 0; round < 2; ++round)
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
            kiln_kernel *kernel = NULL;
            TEST_FAILS(KILN_ERR_TRANSLATION,
                       kiln_kernel_create(program, refused[k].kernel, &kernel));
            TEST_ERROR_MENTIONS(refused[k].kernel);
            TEST_ERROR_MENTIONS(refused[k].construct);
            TEST_ERROR_MENTIONS(refused[k].line);
        }
    /* the same source built again (from the cache) refuses them the same */
    kiln_program *again = cxx_program(context, "refused_neighbours");
    kiln_kernel *kernel = NULL;
    TEST_FAILS(KILN_ERR_TRANSLATION,
               kiln_kernel_create(again, "warp_sums", &kernel));
    TEST_ERROR_MENTIONS("refused_neighbours.cu:9:");
}

/* Runs `name` (a kernel of `float *x, int n`) on x[N] and compares with
 * `expected`. */
static void run_in_place(kiln_context *context, kiln_program *program,
                         const char *name, const float *x, const float *y,
                         const float *expected, size_t n)
{
    kiln_kernel *kernel = NULL;
    TEST_OK(kiln_kernel_create(program, name, &kernel));
    float *out = ARRAY(float, n);
    kiln_buffer *bx = test_temp_buffer_from(context, x, n * sizeof *x);
    if (y != NULL) {
        kiln_buffer *by = test_temp_buffer_from(context, y, n * sizeof *y);
        TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(n, 64)), KILN_DIM1(64), 0,
                    KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(by),
                    KILN_ARG_INT((int)n));
    } else {
        TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(n, 64)), KILN_DIM1(64), 0,
                    KILN_ARG_BUFFER(bx), KILN_ARG_INT((int)n));
    }
    test_read(bx, out, n * sizeof *out);
    expect_floats(name, out, expected, n, 1e-6);
    TEST_OK(kiln_kernel_release(kernel));
}

/* What the C++ phase refuses in a body (a lambda, a function in a
 * variable) refuses that function and the kernels that reach it, not the
 * file (cxx_refused_neighbours.cu); kernel template instances named by the
 * host are refused the same. */
static void test_cxx_refusals_per_kernel(void **state)
{
    kiln_context *context = test_context(state);
    static const char *const names[] = {"twice<float>", "halve<float>"};
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/kernels/cuda/cxx_refused_neighbours.cu",
             test_srcdir());
    kiln_build_options options = {.struct_size = sizeof options,
                                  .language = KILN_LANGUAGE_CUDA_C,
                                  .kernel_names = names,
                                  .kernel_name_count = 2};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_file(context, path, &options, &program));
    enum { N = 300 };
    float *x = ARRAY(float, N), *y = ARRAY(float, N), *want = ARRAY(float, N);
    test_random_floats(x, N, -8.0f, 8.0f);
    test_random_floats(y, N, 1.0f, 4.0f);
    for (int i = 0; i < N; ++i)
        want[i] = x[i] * 2.0f;
    run_in_place(context, program, "twice<float>", x, NULL, want, N);
    for (int i = 0; i < N; ++i)
        want[i] = x[i] + 1.0f;
    run_in_place(context, program, "add_one", x, NULL, want, N);
    if (strcmp(test_backend(state), "opencl") != 0) {
        /* natively every kernel compiles */
        for (int i = 0; i < N; ++i)
            want[i] = x[i] / 2.0f;
        run_in_place(context, program, "halve<float>", x, NULL, want, N);
        for (int i = 0; i < N; ++i)
            want[i] = x[i] / 3.0f / y[i];
        run_in_place(context, program, "divide_thirds", x, y, want, N);
        TEST_OK(kiln_program_release(program));
        return;
    }
    static const struct {
        const char *kernel, *construct, *line;
    } refused[] = {
        {"divide_thirds", "function pointers", "cxx_refused_neighbours.cu:11:"},
        {"halve<float>", "lambda", "cxx_refused_neighbours.cu:25:"},
        /* named after the build: built again, refused the same */
        {"halve<int>", "lambda", "cxx_refused_neighbours.cu:25:"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
        kiln_kernel *kernel = NULL;
        TEST_FAILS(KILN_ERR_TRANSLATION,
                   kiln_kernel_create(program, refused[k].kernel, &kernel));
        TEST_ERROR_MENTIONS(refused[k].kernel);
        TEST_ERROR_MENTIONS(refused[k].construct);
        TEST_ERROR_MENTIONS(refused[k].line);
    }
    TEST_OK(kiln_program_release(program));
}

/* ---- what stays refused ------------------------------------------------------------ */

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
        {"struct Shape { __device__ virtual float area() const { return 0; } };\n"
         "__global__ void k(Shape *s, float *a) { a[0] = s->area(); }\n",
         "virtual", "refused.cu:1:"},
        {"__global__ void k(float *a) {\n  float *p = new float[4];\n"
         "  a[0] = p[0];\n}\n",
         "dynamic memory", "refused.cu:2:"},
        {"__global__ void k(float *a) {\n  if (a[0] < 0) throw 1;\n}\n",
         "exceptions", "refused.cu:2:"},
        {"template <typename... T> __device__ int count(T... t) "
         "{ return sizeof...(T); }\n"
         "__global__ void k(int *a) {\n  a[0] = count(1, 2.0f, 3u);\n}\n",
         "variadic templates", "refused.cu:3:"},
        {"__device__ float twice(float x) { return 2 * x; }\n"
         "__global__ void k(float *a) {\n  auto f = twice;\n"
         "  a[0] = f(a[1]);\n}\n",
         "function pointers", "refused.cu:3:"},
        {"__device__ float twice(float x) { return 2 * x; }\n"
         "__global__ void k(float *a) {\n  using real = float;\n"
         "  real (*f)(real) = twice;\n  a[0] = f(a[1]);\n}\n",
         "function pointers", "refused.cu:4:"},
        {"struct Box {\n  float v;\n"
         "  __device__ Box(const Box &o) : v(o.v + 1) {}\n"
         "  __device__ Box(float x) : v(x) {}\n};\n"
         "__global__ void k(float *a) { Box b(a[0]); Box c = b; a[0] = c.v; }\n",
         "copy constructor", "refused.cu:3:"},
        {"struct Base { float x; };\nstruct Derived : Base { float y; };\n"
         "__global__ void k(Derived *d, float *a) { a[0] = d->y; }\n",
         "base class", "refused.cu:2:"},
        {"__global__ void k(float *a) {\n  float b = 1;\n"
         "  auto f = [&](float x) { return x * b; };\n  a[0] = f(a[1]);\n}\n",
         "lambda", "refused.cu:3:"},
        {"struct Node { int v; };\n__global__ void k(int *a) {\n"
         "  Node *n = dynamic_cast<Node *>((Node *)a);\n  a[0] = n->v;\n}\n",
         "dynamic_cast", "refused.cu:3:"},
        {"__global__ void k(long long *a) {\n  a[1] = 0;\n"
         "  clock_t t = clock();\n  a[0] = t;\n}\n",
         "clock", "refused.cu:3:"},
        {"__device__ float twice(float x) { return 2 * x; }\n"
         "typedef float (*unary)(float);\n"
         "__global__ void k(float *a) { unary f = twice; a[0] = f(a[1]); }\n",
         "function pointers", "refused.cu:2:"},
        /* texture objects in C++ code (cuda-samples' bicubicTexture):
         * refused by name, not an unknown type */
        {"template <class T> __device__ T fetch(const cudaTextureObject_t tex,\n"
         "                                    float x) { return tex1D<T>(tex, x); }\n"
         "__global__ void k(float *a, cudaTextureObject_t t) { a[0] = fetch<float>(t, 0.5f); }\n",
         "'cudaTextureObject_t': textures", "refused.cu:1:"},
        {"__host__ __device__ inline cudaSurfaceObject_t decode(uint2 o)\n"
         "{ return ((cudaSurfaceObject_t)o.x) | ((cudaSurfaceObject_t)o.y << 32); }\n"
         "template <typename T> __device__ T twice(T x) { return 2 * x; }\n"
         "__global__ void k(float *a) { a[0] = twice(a[1]); }\n",
         "'cudaSurfaceObject_t': surfaces", "refused.cu:1:"},
        /* an anonymous struct in a union (cuda-samples' dct8x8): the C
         * written had dropped it, and the union's size with it */
        {"union Packed {\n  struct { short lo; short hi; };\n  unsigned int all;\n};\n"
         "template <typename T> __device__ T twice(T x) { return 2 * x; }\n"
         "__global__ void k(unsigned int *a) { Packed p; p.all = a[0]; a[1] = twice(p.all); }\n",
         "anonymous struct member", "refused.cu:2:"},
        /* tag dispatch through the standard library (llm.c) */
        {"template <bool Atomic>\n"
         "__global__ void k(float *a, std::bool_constant<Atomic>) { a[0] = Atomic; }\n",
         "'std::bool_constant': the C++ standard library", "refused.cu:2:"},
        {"const float lo = 1, hi = 2;\n"
         "__global__ void k(float *a) { a[0] = lo + hi; }\n",
         "several const variables", "refused.cu:1:"},
        {"struct list { float v; list *next; };\n"
         "__global__ void k(list *head, float *a)\n"
         "{\n  a[0] = head->next->v;\n}\n",
         "pointer members in device memory", "refused.cu:2:"},
        {"#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
         "__global__ void k(float *a)\n{\n"
         "  cg::grid_group grid = cg::this_grid();\n  a[0] = 1;\n"
         "  grid.sync();\n}\n",
         "grid-wide cooperative groups", "refused.cu:5:"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        test_expect_refused(context, cases[c].source, cases[c].mentions,
                            cases[c].line, c);
    /* a static_assert that fails is the program's error, as nvcc says */
    static const char asserted[] =
        "template <typename T> __device__ T one()\n"
        "{\n  static_assert(sizeof(T) == 4, \"four bytes only\");\n"
        "  return T(1);\n}\n"
        "__global__ void k(double *a) { a[0] = one<double>(); }\n";
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C,
                                  .source_name = "asserted.cu"};
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_BUILD, kiln_program_build_with(context, asserted, 0,
                                                       &options, &program));
    TEST_ERROR_MENTIONS("static assertion failed");
    TEST_ERROR_MENTIONS("four bytes only");
    TEST_ERROR_MENTIONS("asserted.cu:3:");
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_templates),
        KILN_TEST(test_classes),
        KILN_TEST(test_packed),
        KILN_TEST(test_public_constructs),
        KILN_TEST(test_refusals_per_kernel),
        KILN_TEST(test_cxx_refusals_per_kernel),
        KILN_TEST(test_cooperative_groups),
        KILN_TEST(test_refusals),
    };
    return kiln_test_main("cuda_cxx", tests, sizeof tests / sizeof tests[0]);
}
