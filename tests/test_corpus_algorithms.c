/*
 * Conformance corpus, algorithms built on local memory and barriers:
 * reductions (static and dynamic __local), a tiled SGEMM, a kernel with
 * three __local arguments, a prefix sum, a bitonic sort, a 2-D stencil
 * with a halo, a transpose through a padded tile, and barriers with both
 * fences.  Integer results are exact; float tolerances are stated per test
 * as error bounds of the summation involved.
 */
#include "test_corpus_common.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reductions ---------------------------------------------------------------------- */

/* Partial sums per group of a grid-stride sum then a tree: each partial
 * is a sum of at most (n / global + 1) sequential terms then log2(block)
 * tree levels, so |error| <= 2^-24 (n / global + 10) sum |x|. */
static void check_partials(const char *what, const float *partials, const float *in,
                           size_t n, size_t groups, size_t block)
{
    size_t global = groups * block;
    double *exact = test_alloc(groups * sizeof *exact);
    double *magnitude = test_alloc(groups * sizeof *magnitude);
    for (size_t g = 0; g < groups; ++g)
        exact[g] = magnitude[g] = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t group = (i % global) / block;
        exact[group] += in[i];
        magnitude[group] += fabs(in[i]);
    }
    for (size_t g = 0; g < groups; ++g)
        corpus_expect_f32_bound(what, g, partials[g], exact[g],
                                0x1p-24 * (double)(n / global + 10) * magnitude[g]);
    free(exact);
    free(magnitude);
}

static void reductions(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 100003 };
    kiln_program *program = corpus_build(context, "reductions", NULL);
    kiln_kernel *static_kernel = test_kernel(program, "reduce_static");
    kiln_kernel *dynamic_kernel = test_kernel(program, "reduce_dynamic");
    float *in = CORPUS_ARRAY(float, N);
    test_random_floats(in, N, -1, 1);
    kiln_buffer *in_buffer = test_buffer_from(context, in, N * 4);

    enum { STATIC_BLOCK = 256, STATIC_GROUPS = 40 };
    float partials[STATIC_GROUPS];
    kiln_buffer *partial_buffer = corpus_poisoned_buffer(context, sizeof partials);
    CORPUS_LAUNCH(static_kernel, KILN_DIM1(STATIC_GROUPS), KILN_DIM1(STATIC_BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(partial_buffer),
                  KILN_ARG_UINT(N));
    corpus_read(partial_buffer, partials, sizeof partials);
    check_partials("reduce_static (static __local)", partials, in, N, STATIC_GROUPS,
                   STATIC_BLOCK);

    /* A different block size: the dynamic buffer is sized to it. */
    enum { DYNAMIC_BLOCK = 128, DYNAMIC_GROUPS = 37 };
    CORPUS_LAUNCH(dynamic_kernel, KILN_DIM1(DYNAMIC_GROUPS), KILN_DIM1(DYNAMIC_BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(partial_buffer),
                  KILN_ARG_UINT(N), KILN_ARG_LOCAL(DYNAMIC_BLOCK * sizeof(float)));
    corpus_read(partial_buffer, partials, DYNAMIC_GROUPS * sizeof(float));
    check_partials("reduce_dynamic (__local argument)", partials, in, N, DYNAMIC_GROUPS,
                   DYNAMIC_BLOCK);

    kiln_buffer *buffers[] = {in_buffer, partial_buffer};
    corpus_release_buffers(buffers, 2);
    kiln_kernel_release(static_kernel);
    kiln_kernel_release(dynamic_kernel);
    kiln_program_release(program);
    free(in);
}

/* ---- SGEMM ------------------------------------------------------------------------------ */

/* C = alpha A B + beta C: |error| <= 2^-24 (K + 3) (|alpha| sum_k |a b| +
 * |beta c|), the bound of a sequential dot product of K terms. */
static void run_sgemm(kiln_context *context, kiln_kernel *kernel, int m, int n, int k)
{
    enum { TILE = 16 };
    float *a = CORPUS_ARRAY(float, (size_t)m * k), *b = CORPUS_ARRAY(float, (size_t)k * n);
    float *c = CORPUS_ARRAY(float, (size_t)m * n), *result = CORPUS_ARRAY(float, (size_t)m * n);
    test_random_floats(a, (size_t)m * k, -1, 1);
    test_random_floats(b, (size_t)k * n, -1, 1);
    test_random_floats(c, (size_t)m * n, -1, 1);
    float alpha = test_random_float(0.5f, 2), beta = test_random_float(-1, 1);
    kiln_buffer *a_buffer = test_buffer_from(context, a, (size_t)m * k * 4);
    kiln_buffer *b_buffer = test_buffer_from(context, b, (size_t)k * n * 4);
    kiln_buffer *c_buffer = test_buffer_from(context, c, (size_t)m * n * 4);
    CORPUS_LAUNCH(kernel, KILN_DIM2(corpus_blocks((size_t)n, TILE), corpus_blocks((size_t)m, TILE)),
                  KILN_DIM2(TILE, TILE), KILN_ARG_INT(m), KILN_ARG_INT(n), KILN_ARG_INT(k),
                  KILN_ARG_FLOAT(alpha), KILN_ARG_BUFFER(a_buffer), KILN_ARG_BUFFER(b_buffer),
                  KILN_ARG_FLOAT(beta), KILN_ARG_BUFFER(c_buffer));
    corpus_read(c_buffer, result, (size_t)m * n * 4);
    char what[64];
    snprintf(what, sizeof what, "sgemm %dx%dx%d", m, n, k);
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < n; ++col) {
            double dot = 0, magnitude = 0;
            for (int p = 0; p < k; ++p) {
                double term = (double)a[(size_t)row * k + p] * b[(size_t)p * n + col];
                dot += term;
                magnitude += fabs(term);
            }
            double old = c[(size_t)row * n + col];
            double expected = alpha * dot + beta * old;
            double bound = 0x1p-24 * (k + 3) * (fabs(alpha) * magnitude + fabs(beta * old));
            corpus_expect_f32_bound(what, (size_t)row * n + col,
                                    result[(size_t)row * n + col], expected, bound);
        }
    kiln_buffer *buffers[] = {a_buffer, b_buffer, c_buffer};
    corpus_release_buffers(buffers, 3);
    free(a), free(b), free(c), free(result);
}

static void sgemm_tiled(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = corpus_build_with(context, "sgemm_tiled", "-DTILE=16");
    kiln_kernel *kernel = test_kernel(program, "sgemm_tiled");
    run_sgemm(context, kernel, 256, 192, 320); /* multiples of the tile */
    run_sgemm(context, kernel, 100, 75, 53);   /* ragged edges everywhere */
    kiln_kernel_release(kernel);
    kiln_program_release(program);
}

/* ---- three __local arguments ------------------------------------------------------------ */

/* Exact: the floats are multiples of 1/8 below 64, so every sum of a
 * group is exact in any order. */
static void three_local_args(void **state)
{
    kiln_context *context = test_context(state);
    enum { BLOCK = 128, GROUPS = 20, N = BLOCK * GROUPS };
    kiln_program *program = corpus_build(context, "three_local_args", NULL);
    kiln_kernel *kernel = test_kernel(program, "three_locals");
    float *a = CORPUS_ARRAY(float, N);
    int32_t *b = CORPUS_ARRAY(int32_t, N);
    for (size_t i = 0; i < N; ++i)
        a[i] = (float)((int)(test_random_u64() % 1025) - 512) / 8;
    corpus_random_i32(b, N, -1000, 1000);
    kiln_buffer *a_buffer = test_buffer_from(context, a, N * 4);
    kiln_buffer *b_buffer = test_buffer_from(context, b, N * 4);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, GROUPS * 16);
    CORPUS_LAUNCH(kernel, KILN_DIM1(GROUPS), KILN_DIM1(BLOCK), KILN_ARG_BUFFER(a_buffer),
                  KILN_ARG_BUFFER(b_buffer), KILN_ARG_BUFFER(out_buffer),
                  KILN_ARG_LOCAL(BLOCK * sizeof(float)),
                  KILN_ARG_LOCAL(BLOCK * sizeof(int32_t)),
                  KILN_ARG_LOCAL(BLOCK * 4 * sizeof(float)));
    float out[4 * GROUPS], expected[4 * GROUPS];
    corpus_read(out_buffer, out, sizeof out);
    for (size_t g = 0; g < GROUPS; ++g) {
        float sum = 0, maximum = -INFINITY;
        int32_t count = 0;
        for (size_t i = g * BLOCK; i < (g + 1) * BLOCK; ++i) {
            sum += a[i];
            count += b[i];
            maximum = a[i] > maximum ? a[i] : maximum;
        }
        expected[4 * g] = sum;
        expected[4 * g + 1] = (float)count;
        expected[4 * g + 2] = maximum;
        expected[4 * g + 3] = 6 * sum;
    }
    corpus_expect_f32_bits("three_locals (sum a, sum b, max a, sum 6a) per group", out,
                           expected, 4 * GROUPS);
    kiln_buffer *buffers[] = {a_buffer, b_buffer, out_buffer};
    corpus_release_buffers(buffers, 3);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(a), free(b);
}

/* ---- prefix sum --------------------------------------------------------------------------- */

/* Exact (uint, wrapping like the host's). */
static void prefix_sum(void **state)
{
    kiln_context *context = test_context(state);
    enum { BLOCK = 128, PER_BLOCK = 2 * BLOCK, N = PER_BLOCK * 60 + 77 };
    const size_t blocks = corpus_blocks(N, PER_BLOCK);
    kiln_program *program = corpus_build(context, "prefix_sum", NULL);
    kiln_kernel *scan = test_kernel(program, "scan_blocks");
    kiln_kernel *add = test_kernel(program, "add_block_offsets");
    uint32_t *in = CORPUS_ARRAY(uint32_t, N), *out = CORPUS_ARRAY(uint32_t, N);
    uint32_t *expected = CORPUS_ARRAY(uint32_t, N);
    corpus_random_u32(in, N);
    kiln_buffer *in_buffer = test_buffer_from(context, in, N * 4);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, N * 4);
    kiln_buffer *totals = corpus_poisoned_buffer(context, blocks * 4);
    kiln_buffer *offsets = corpus_poisoned_buffer(context, blocks * 4);
    kiln_buffer *grand_total = corpus_poisoned_buffer(context, 4);
    /* 1: scan each block, 2: scan the block totals (one block), 3: add. */
    CORPUS_LAUNCH(scan, KILN_DIM1(blocks), KILN_DIM1(BLOCK), KILN_ARG_BUFFER(in_buffer),
                  KILN_ARG_BUFFER(out_buffer), KILN_ARG_BUFFER(totals), KILN_ARG_UINT(N),
                  KILN_ARG_LOCAL(PER_BLOCK * sizeof(uint32_t)));
    CORPUS_LAUNCH(scan, KILN_DIM1(1), KILN_DIM1(BLOCK), KILN_ARG_BUFFER(totals),
                  KILN_ARG_BUFFER(offsets), KILN_ARG_BUFFER(grand_total),
                  KILN_ARG_UINT((uint32_t)blocks),
                  KILN_ARG_LOCAL(PER_BLOCK * sizeof(uint32_t)));
    CORPUS_LAUNCH(add, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(out_buffer), KILN_ARG_BUFFER(offsets),
                  KILN_ARG_UINT(PER_BLOCK), KILN_ARG_UINT(N));
    corpus_read(out_buffer, out, N * 4);
    uint32_t running = 0;
    for (size_t i = 0; i < N; ++i) {
        expected[i] = running;
        running += in[i];
    }
    corpus_expect_u32("exclusive prefix sum", out, expected, N);
    uint32_t total;
    corpus_read(grand_total, &total, 4);
    corpus_expect_u32("sum of all", &total, &running, 1);
    kiln_buffer *buffers[] = {in_buffer, out_buffer, totals, offsets, grand_total};
    corpus_release_buffers(buffers, 5);
    kiln_kernel_release(scan);
    kiln_kernel_release(add);
    kiln_program_release(program);
    free(in), free(out), free(expected);
}

/* ---- bitonic sort ---------------------------------------------------------------------------- */

static int compare_ints(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Exact. */
static void bitonic_sort(void **state)
{
    kiln_context *context = test_context(state);
    enum { BLOCK = 128, CHUNK = 2 * BLOCK, KEYS = 3000, N = 4096, STEP_BLOCK = 64 };
    kiln_program *program = corpus_build(context, "bitonic_sort", NULL);
    kiln_kernel *local_sort = test_kernel(program, "local_bitonic");
    kiln_kernel *step = test_kernel(program, "global_step");
    int32_t *keys = CORPUS_ARRAY(int32_t, N), *sorted = CORPUS_ARRAY(int32_t, N);
    corpus_random_u32((uint32_t *)keys, KEYS);
    for (size_t i = 0; i < KEYS; i += 10) /* duplicates */
        keys[i] = keys[test_random_u64() % KEYS];
    for (size_t i = KEYS; i < N; ++i)
        keys[i] = INT32_MAX; /* padding to a power of two */
    kiln_buffer *data = test_buffer_from(context, keys, N * 4);
    CORPUS_LAUNCH(local_sort, KILN_DIM1(N / CHUNK), KILN_DIM1(BLOCK), KILN_ARG_BUFFER(data),
                  KILN_ARG_LOCAL(CHUNK * sizeof(int32_t)));
    for (uint32_t size = 2 * CHUNK; size <= N; size *= 2)
        for (uint32_t stride = size / 2; stride > 0; stride /= 2)
            CORPUS_LAUNCH(step, KILN_DIM1(N / 2 / STEP_BLOCK), KILN_DIM1(STEP_BLOCK),
                          KILN_ARG_BUFFER(data), KILN_ARG_UINT(size), KILN_ARG_UINT(stride));
    corpus_read(data, sorted, N * 4);
    qsort(keys, N, sizeof *keys, compare_ints);
    corpus_expect_i32("bitonic sort", sorted, keys, N);
    TEST_OK(kiln_buffer_release(data));
    kiln_kernel_release(local_sort);
    kiln_kernel_release(step);
    kiln_program_release(program);
    free(keys), free(sorted);
}

/* ---- stencil ------------------------------------------------------------------------------- */

/* Five terms: |error| <= 2^-21 (|c u| + |n| sum |neighbours|). */
static void stencil_5pt(void **state)
{
    kiln_context *context = test_context(state);
    enum { W = 100, H = 75, TILE = 16 };
    kiln_program *program = corpus_build(context, "stencil_5pt", NULL);
    kiln_kernel *kernel = test_kernel(program, "stencil_5pt");
    float *in = CORPUS_ARRAY(float, W * H), *out = CORPUS_ARRAY(float, W * H);
    test_random_floats(in, W * H, -1, 1);
    float centre = test_random_float(-4, -2), neighbour = test_random_float(0.5f, 1);
    kiln_buffer *in_buffer = test_buffer_from(context, in, W * H * 4);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, W * H * 4);
    CORPUS_LAUNCH(kernel, KILN_DIM2(corpus_blocks(W, TILE), corpus_blocks(H, TILE)),
                  KILN_DIM2(TILE, TILE), KILN_ARG_BUFFER(in_buffer),
                  KILN_ARG_BUFFER(out_buffer), KILN_ARG_INT(W), KILN_ARG_INT(H),
                  KILN_ARG_FLOAT(centre), KILN_ARG_FLOAT(neighbour));
    corpus_read(out_buffer, out, W * H * 4);
#define AT(x, y) \
    ((double)in[((y) < 0 ? 0 : (y) >= H ? H - 1 : (y)) * W + ((x) < 0 ? 0 : (x) >= W ? W - 1 : (x))])
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            double north = AT(x, y - 1), south = AT(x, y + 1);
            double west = AT(x - 1, y), east = AT(x + 1, y);
            double expected = centre * AT(x, y) + neighbour * (north + south + west + east);
            double magnitude = fabs(centre * AT(x, y)) +
                               fabs(neighbour) * (fabs(north) + fabs(south) +
                                                  fabs(west) + fabs(east));
            corpus_expect_f32_bound("stencil_5pt", (size_t)(y * W + x), out[y * W + x],
                                    expected, 0x1p-21 * magnitude);
        }
#undef AT
    kiln_buffer *buffers[] = {in_buffer, out_buffer};
    corpus_release_buffers(buffers, 2);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(in), free(out);
}

/* ---- transpose ---------------------------------------------------------------------------- */

/* Exact, with 16x16 and 32x32 tiles (1024 threads a block: the device's
 * limit decides, not the kernel's advice). */
static void transpose_tiles(void **state, int tile)
{
    kiln_context *context = test_context(state);
    enum { W = 200, H = 131 };
    kiln_device_info device;
    TEST_OK(kiln_context_get_device_info(context, &device));
    if ((size_t)(tile * tile) > device.max_threads_per_block ||
        (size_t)tile > device.max_block[0] || (size_t)tile > device.max_block[1]) {
        print_message("# transpose %dx%d: over the device's block limits\n",
                      tile, tile);
        skip();
    }
    char options[32];
    snprintf(options, sizeof options, "-DTILE=%d", tile);
    kiln_program *program = corpus_build_with(context, "transpose", options);
    kiln_kernel *kernel = test_kernel(program, "transpose_padded");
    float *in = CORPUS_ARRAY(float, W * H), *out = CORPUS_ARRAY(float, W * H);
    float *expected = CORPUS_ARRAY(float, W * H);
    test_random_floats(in, W * H, -1000, 1000);
    kiln_buffer *in_buffer = test_buffer_from(context, in, W * H * 4);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, W * H * 4);
    CORPUS_LAUNCH(kernel, KILN_DIM2(corpus_blocks(W, (size_t)tile), corpus_blocks(H, (size_t)tile)),
                  KILN_DIM2((size_t)tile, (size_t)tile), KILN_ARG_BUFFER(in_buffer),
                  KILN_ARG_BUFFER(out_buffer), KILN_ARG_INT(W), KILN_ARG_INT(H));
    corpus_read(out_buffer, out, W * H * 4);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            expected[x * H + y] = in[y * W + x];
    corpus_expect_f32_bits("transpose (W x H -> H x W)", out, expected, W * H);
    kiln_buffer *buffers[] = {in_buffer, out_buffer};
    corpus_release_buffers(buffers, 2);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(in), free(out), free(expected);
}

static void transpose(void **state) { transpose_tiles(state, 16); }
static void transpose_32x32(void **state) { transpose_tiles(state, 32); }

/* ---- barriers with both fences -------------------------------------------------------------- */

/* Exact. */
static void barrier_fences(void **state)
{
    kiln_context *context = test_context(state);
    enum { BLOCK = 64, GROUPS = 16, N = BLOCK * GROUPS };
    kiln_program *program = corpus_build(context, "barrier_fences", NULL);
    kiln_kernel *kernel = test_kernel(program, "exchange");
    int32_t *in = CORPUS_ARRAY(int32_t, N), *out = CORPUS_ARRAY(int32_t, N);
    int32_t *second = CORPUS_ARRAY(int32_t, N);
    int32_t *expected = CORPUS_ARRAY(int32_t, N), *second_expected = CORPUS_ARRAY(int32_t, N);
    corpus_random_i32(in, N, -1000000, 1000000);
    kiln_buffer *in_buffer = test_buffer_from(context, in, N * 4);
    kiln_buffer *scratch = corpus_poisoned_buffer(context, N * 4);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, N * 4);
    kiln_buffer *second_buffer = corpus_poisoned_buffer(context, N * 4);
    CORPUS_LAUNCH(kernel, KILN_DIM1(GROUPS), KILN_DIM1(BLOCK), KILN_ARG_BUFFER(in_buffer),
                  KILN_ARG_BUFFER(scratch), KILN_ARG_BUFFER(out_buffer),
                  KILN_ARG_BUFFER(second_buffer), KILN_ARG_LOCAL(BLOCK * sizeof(int32_t)));
    corpus_read(out_buffer, out, N * 4);
    corpus_read(second_buffer, second, N * 4);
    for (size_t i = 0; i < N; ++i) {
        size_t base = i - i % BLOCK, lid = i % BLOCK;
        expected[i] = (in[base + BLOCK - 1 - lid] * 3 + 1) -
                      (in[base + (lid + 1) % BLOCK] ^ 0x5A5A);
    }
    for (size_t i = 0; i < N; ++i)
        second_expected[i] = expected[i - i % BLOCK + (i % BLOCK + 3) % BLOCK];
    corpus_expect_i32("exchange through global and local memory", out, expected, N);
    corpus_expect_i32("exchange through global memory", second, second_expected, N);
    kiln_buffer *buffers[] = {in_buffer, scratch, out_buffer, second_buffer};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(in), free(out), free(second), free(expected), free(second_expected);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(reductions),
        KILN_TEST(sgemm_tiled),
        KILN_TEST(three_local_args),
        KILN_TEST(prefix_sum),
        KILN_TEST(bitonic_sort),
        KILN_TEST(stencil_5pt),
        KILN_TEST(transpose),
        KILN_TEST(transpose_32x32),
        KILN_TEST(barrier_fences),
    };
    return kiln_test_main("corpus_algorithms", tests, sizeof tests / sizeof tests[0]);
}
