/*
 * Warp-level primitives on every backend: the kernels of
 * tests/kernels/cuda/warp.cu run natively on the CUDA backend and
 * translated on OpenCL (emulated through shared memory and barriers by
 * translate/cuda_barriers_warp.c and the prelude), each checked exactly
 * against a CPU model of CUDA's semantics on random inputs, with the
 * bounds checks on.  The model's lane arithmetic is written from the CUDA
 * programming guide's words, not from the translation's.  Also what the
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

static kiln_program *warp_program(kiln_context *context)
{
    return test_temp_program_file(context, "tests/kernels/cuda/warp.cu",
                                  KILN_LANGUAGE_CUDA_C);
}

/* ---- the model: one warp of 32 lanes, CUDA's words ----------------------- */

enum { SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR };

/* The lane whose value `lane` receives (the programming guide: the
 * width splits the warp into groups; idx takes srcLane modulo width in
 * the caller's group; up and down return the caller's own value where
 * the source is outside its group; xor may reach earlier groups, a later
 * one gives the caller's own value). */
static unsigned model_source(int mode, unsigned lane, unsigned b, unsigned width)
{
    unsigned group = lane / width * width, in_group = lane % width;
    switch (mode) {
    case SHFL_IDX:
        return group + b % width;
    case SHFL_UP:
        return in_group >= b ? lane - b : lane;
    case SHFL_DOWN:
        return in_group + b < width ? lane + b : lane;
    default: {
        unsigned j = lane ^ b;
        return j >= group + width ? lane : j;
    }
    }
}

/* One shfl_down reduction step over a warp's lanes, all reading before
 * any writes. */
static void model_reduce_warp_f(float *v)
{
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        float old[32];
        memcpy(old, v, sizeof old);
        for (unsigned l = 0; l < 32; ++l)
            v[l] = old[l] + old[model_source(SHFL_DOWN, l, offset, 32)];
    }
}

static void model_reduce_warp_i(int *v)
{
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        int old[32];
        memcpy(old, v, sizeof old);
        for (unsigned l = 0; l < 32; ++l)
            v[l] = (int)((unsigned)old[l] +
                         (unsigned)old[model_source(SHFL_DOWN, l, offset, 32)]);
    }
}

/* ---- reductions ---------------------------------------------------------- */

static void test_device_reduce(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context),
                                           "deviceReduceKernel");
    enum { N = 5000, B = 256, BLOCKS = 7, T = B * BLOCKS, WARPS = B / 32 };
    float *in = ARRAY(float, N), *sum = ARRAY(float, T);
    float out[BLOCKS], expected[BLOCKS];
    test_random_floats(in, N, -1.0f, 1.0f);
    for (int t = 0; t < T; ++t) {
        sum[t] = 0;
        for (int i = t; i < N; i += T)
            sum[t] += in[i];
    }
    for (int b = 0; b < BLOCKS; ++b) {
        float shared[32], lanes[32];
        for (int w = 0; w < WARPS; ++w) {
            memcpy(lanes, &sum[b * B + w * 32], sizeof lanes);
            model_reduce_warp_f(lanes);
            shared[w] = lanes[0];
        }
        for (int l = 0; l < 32; ++l)
            lanes[l] = l < WARPS ? shared[l] : 0;
        model_reduce_warp_f(lanes);
        expected[b] = lanes[0];
    }
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bout = test_temp_buffer(context, sizeof out);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout), KILN_ARG_INT(N));
    test_read(bout, out, sizeof out);
    for (int b = 0; b < BLOCKS; ++b)
        if (memcmp(&out[b], &expected[b], sizeof(float)) != 0)
            fail_msg("deviceReduceKernel block %d = %.9g, expected %.9g", b,
                     (double)out[b], (double)expected[b]);
}

static void test_reduce_tail(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context),
                                           "reduce_tail_shfl");
    enum { N = 3000, B = 128, BLOCKS = (N + 2 * B - 1) / (2 * B) };
    int32_t *in = ARRAY(int32_t, N);
    int32_t out[BLOCKS], expected[BLOCKS];
    test_random_ints(in, N, -1000000, 1000000);
    for (int b = 0; b < BLOCKS; ++b) {
        int s[B];
        for (int t = 0; t < B; ++t) {
            unsigned i = (unsigned)(b * 2 * B + t);
            s[t] = (i < N ? in[i] : 0) + (i + B < N ? in[i + B] : 0);
        }
        for (int stride = B / 2; stride > 32; stride >>= 1)
            for (int t = 0; t < stride; ++t)
                s[t] += s[t + stride];
        int lanes[32];
        for (int l = 0; l < 32; ++l)
            lanes[l] = s[l] + s[l + 32];
        model_reduce_warp_i(lanes);
        expected[b] = lanes[0];
    }
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bout = test_temp_buffer(context, sizeof out);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), B * sizeof(int32_t),
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout), KILN_ARG_UINT(N));
    test_read(bout, out, sizeof out);
    for (int b = 0; b < BLOCKS; ++b)
        if (out[b] != expected[b])
            fail_msg("reduce_tail_shfl block %d = %d, expected %d", b,
                     (int)out[b], (int)expected[b]);
}

/* Rows past the end return before a float division and a butterfly sum:
 * the division is CUDA's, by zero included (infinity, not x / 1). */
static void test_scaled_rows(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context),
                                           "scaled_row_sums");
    enum { ROWS = 37, B = 128, BLOCKS = (ROWS * 32 + B - 1) / B, HS = 7 };
    float *x = ARRAY(float, BLOCKS * B), out[ROWS];
    test_random_floats(x, BLOCKS * B, 0.25f, 2.0f);
    kiln_buffer *bx = test_temp_buffer_from(context, x, BLOCKS * B * sizeof *x);
    kiln_buffer *bout = test_temp_buffer(context, sizeof out);
    float scale = 1.0f / sqrtf((float)HS);
    for (int hs = HS; hs >= 0; hs -= HS) {
        TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                    KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bout),
                    KILN_ARG_INT(ROWS), KILN_ARG_INT(hs));
        test_read(bout, out, sizeof out);
        for (int r = 0; r < ROWS; ++r) {
            double sum = 0;
            for (int l = 0; l < 32; ++l)
                sum += x[r * 32 + l] * scale;
            if (hs == 0 ? !(isinf(out[r]) && out[r] > 0)
                        : !(fabs(out[r] - sum) <= 1e-5 * sum))
                fail_msg("hs %d: row %d = %.9g, expected %.9g", hs, r,
                         (double)out[r], hs == 0 ? (double)INFINITY : sum);
        }
    }
}

/* ---- scans and butterflies ----------------------------------------------- */

static void test_shfl_scan(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context), "shfl_scan");
    enum { N = 1000, B = 256, BLOCKS = (N + B - 1) / B };
    int32_t *in = ARRAY(int32_t, N), *out = ARRAY(int32_t, N);
    int32_t partial[BLOCKS];
    test_random_ints(in, N, -100, 100);
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bout = test_temp_buffer(context, N * sizeof *out);
    kiln_buffer *bpart = test_temp_buffer(context, sizeof partial);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout),
                KILN_ARG_BUFFER(bpart), KILN_ARG_INT(N));
    test_read(bout, out, N * sizeof *out);
    test_read(bpart, partial, sizeof partial);
    for (int b = 0; b < BLOCKS; ++b) {
        int running = 0;
        for (int t = 0; t < B; ++t) {
            int i = b * B + t;
            running += i < N ? in[i] : 0;
            if (i < N && out[i] != running)
                fail_msg("shfl_scan[%d] = %d, expected %d", i, (int)out[i],
                         running);
        }
        if (partial[b] != running)
            fail_msg("shfl_scan block %d's sum = %d, expected %d", b,
                     (int)partial[b], running);
    }
}

static void test_allreduce_max(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context),
                                           "warp_allreduce_max");
    enum { N = 200, B = 64, BLOCKS = (N + B - 1) / B };
    double *in = ARRAY(double, N), *out = ARRAY(double, N);
    test_random_doubles(in, N, -1e6, 1e6);
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bout = test_temp_buffer(context, N * sizeof *out);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout), KILN_ARG_INT(N));
    test_read(bout, out, N * sizeof *out);
    for (int i = 0; i < N; ++i) {
        double m = -1e300;
        for (int l = i / 32 * 32; l < i / 32 * 32 + 32; ++l)
            m = fmax(m, l < N ? in[l] : -1e300);
        if (out[i] != m)
            fail_msg("warp_allreduce_max[%d] = %.17g, expected %.17g", i,
                     out[i], m);
    }
}

/* Every mode, for sources and widths across their ranges. */
static void test_shuffle_modes(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context),
                                           "shuffle_modes");
    enum { B = 96, BLOCKS = 2, T = B * BLOCKS };
    float *in = ARRAY(float, T), *out = ARRAY(float, 4 * T);
    static const int widths[] = {32, 16, 8, 4, 2, 1};
    for (int run = 0; run < 12; ++run) {
        int width = widths[run % 6];
        int src = (int)(test_random_u64() % 32u);
        if (run == 0)
            src = 31;
        test_random_floats(in, T, -100.0f, 100.0f);
        kiln_buffer *bin = test_temp_buffer_from(context, in, T * sizeof *in);
        kiln_buffer *bout = test_temp_buffer(context, 4 * T * sizeof *out);
        TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                    KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout),
                    KILN_ARG_INT(src), KILN_ARG_INT(width));
        test_read(bout, out, 4 * T * sizeof *out);
        for (int i = 0; i < T; ++i)
            for (int mode = 0; mode < 4; ++mode) {
                unsigned lane = (unsigned)i % 32u;
                unsigned from = model_source(mode, lane, (unsigned)src,
                                             (unsigned)width);
                float expected = in[i - (int)lane + (int)from];
                if (memcmp(&out[4 * i + mode], &expected, sizeof expected))
                    fail_msg("shuffle mode %d, src %d, width %d, thread %d: "
                             "%g, expected %g (lane %u)",
                             mode, src, width, i, (double)out[4 * i + mode],
                             (double)expected, from);
            }
    }
}

static void test_shuffle_wide(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context),
                                           "shuffle_wide");
    enum { B = 64, T = B * 2 };
    int64_t *in = ARRAY(int64_t, T), *out = ARRAY(int64_t, T);
    uint64_t *uout = ARRAY(uint64_t, T);
    test_random_bytes(in, T * sizeof *in);
    int k = (int)(test_random_u64() % 100u);
    kiln_buffer *bin = test_temp_buffer_from(context, in, T * sizeof *in);
    kiln_buffer *bout = test_temp_buffer(context, T * sizeof *out);
    kiln_buffer *buout = test_temp_buffer(context, T * sizeof *uout);
    TEST_LAUNCH(kernel, KILN_DIM1(2), KILN_DIM1(B), 0, KILN_ARG_BUFFER(bin),
                KILN_ARG_BUFFER(bout), KILN_ARG_BUFFER(buout), KILN_ARG_INT(k));
    test_read(bout, out, T * sizeof *out);
    test_read(buout, uout, T * sizeof *uout);
    for (int i = 0; i < T; ++i) {
        int base = i / 32 * 32, lane = i % 32;
        int64_t e = in[base + (lane * 7 + k) % 32];
        uint64_t u = (uint64_t)in[base + (lane ^ (k & 31))];
        if (out[i] != e || uout[i] != u)
            fail_msg("shuffle_wide[%d] = %lld, %llu; expected %lld, %llu", i,
                     (long long)out[i], (unsigned long long)uout[i],
                     (long long)e, (unsigned long long)u);
    }
}

/* ---- votes and reductions ------------------------------------------------ */

static void test_votes(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context), "warp_votes");
    /* blocks of 48: every other warp has 16 lanes */
    enum { B = 48, BLOCKS = 5, N = B * BLOCKS - 7, WARPS = BLOCKS * 2 };
    float *x = ARRAY(float, N);
    uint32_t ballots[WARPS * 2];
    int32_t counts[WARPS * 2], anys[WARPS * 2], alls[WARPS * 2];
    for (int run = 0; run < 4; ++run) {
        test_random_floats(x, N, -1.0f, 1.0f);
        if (run == 1) /* all above -0.9 */
            for (int i = 0; i < N; ++i)
                x[i] = fabsf(x[i]) * 0.5f;
        memset(ballots, 0xab, sizeof ballots);
        kiln_buffer *bx = test_temp_buffer_from(context, x, N * sizeof *x);
        kiln_buffer *bb = test_temp_buffer_from(context, ballots, sizeof ballots);
        kiln_buffer *bc = test_temp_buffer(context, sizeof counts);
        kiln_buffer *ba = test_temp_buffer(context, sizeof anys);
        kiln_buffer *bl = test_temp_buffer(context, sizeof alls);
        TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                    KILN_ARG_BUFFER(bx), KILN_ARG_BUFFER(bb), KILN_ARG_BUFFER(bc),
                    KILN_ARG_BUFFER(ba), KILN_ARG_BUFFER(bl), KILN_ARG_INT(N));
        test_read(bb, ballots, sizeof ballots);
        test_read(bc, counts, sizeof counts);
        test_read(ba, anys, sizeof anys);
        test_read(bl, alls, sizeof alls);
        for (int b = 0; b < BLOCKS; ++b)
            for (int w = 0; w < 2; ++w) {
                int first = b * B + w * 32, lanes = w == 0 ? 32 : 16;
                uint32_t ballot = 0;
                int any = 0, all = 1;
                for (int l = 0; l < lanes; ++l) {
                    int i = first + l;
                    if (i < N && x[i] > 0.0f)
                        ballot |= 1u << l;
                    any |= i < N && x[i] > 0.9f;
                    all &= i >= N || x[i] > -0.9f;
                }
                int slot = b * 2 + w;
                if (ballots[slot] != ballot || counts[slot] != __builtin_popcount(ballot) ||
                    anys[slot] != any || alls[slot] != all)
                    fail_msg("run %d, warp at thread %d: ballot %08x count %d "
                             "any %d all %d; expected %08x %d %d %d",
                             run, first, (unsigned)ballots[slot], (int)counts[slot],
                             (int)anys[slot], (int)alls[slot], (unsigned)ballot,
                             __builtin_popcount(ballot), any, all);
            }
    }
}

static void test_reduce_ops(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context),
                                           "warp_reduce_ops");
    enum { B = 64, BLOCKS = 3, N = B * BLOCKS - 21, WARPS = B * BLOCKS / 32 };
    uint32_t *in = ARRAY(uint32_t, N);
    uint32_t out[7 * WARPS];
    int32_t sout[3 * WARPS];
    test_random_bytes(in, N * sizeof *in);
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bout = test_temp_buffer(context, sizeof out);
    kiln_buffer *bsout = test_temp_buffer(context, sizeof sout);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout),
                KILN_ARG_BUFFER(bsout), KILN_ARG_INT(N));
    test_read(bout, out, sizeof out);
    test_read(bsout, sout, sizeof sout);
    for (int w = 0; w < WARPS && w * 32 < N; ++w) {
        uint32_t mask = 0, add = 0, mn = 0xffffffffu, mx = 0, and_ = 0xffffffffu,
                 or_ = 0, xor_ = 0;
        int32_t sadd = 0, smin = INT32_MAX, smax = INT32_MIN;
        for (int l = 0; l < 32 && w * 32 + l < N; ++l) {
            uint32_t v = in[w * 32 + l];
            int32_t s = (int32_t)(v - (1u << 30));
            mask |= 1u << l;
            add += v;
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
            and_ &= v;
            or_ |= v;
            xor_ ^= v;
            sadd = (int32_t)((uint32_t)sadd + (uint32_t)s);
            smin = s < smin ? s : smin;
            smax = s > smax ? s : smax;
        }
        uint32_t expected[7] = {mask, add, mn, mx, and_, or_, xor_};
        int32_t sexpected[3] = {sadd, smin, smax};
        for (int k = 0; k < 7; ++k)
            if (out[7 * w + k] != expected[k])
                fail_msg("warp %d: unsigned result %d = %08x, expected %08x", w,
                         k, (unsigned)out[7 * w + k], (unsigned)expected[k]);
        for (int k = 0; k < 3; ++k)
            if (sout[3 * w + k] != sexpected[k])
                fail_msg("warp %d: int result %d = %d, expected %d", w, k,
                         (int)sout[3 * w + k], (int)sexpected[k]);
    }
}

/* ---- a branch on a vote; cooperative groups' tiles ------------------------ */

static void test_vote_branch(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context), "vote_branch");
    enum { B = 64, BLOCKS = 4, N = B * BLOCKS - 13 };
    float *a = ARRAY(float, N), *out = ARRAY(float, N);
    test_random_floats(a, N, -0.05f, 1.0f); /* some warps without negatives */
    kiln_buffer *ba = test_temp_buffer_from(context, a, N * sizeof *a);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(ba), KILN_ARG_INT(N));
    test_read(ba, out, N * sizeof *out);
    for (int w = 0; w * 32 < N; ++w) {
        int negative = 0;
        for (int l = 0; l < 32 && w * 32 + l < N; ++l)
            negative |= a[w * 32 + l] < 0.0f;
        for (int l = 0; l < 32 && w * 32 + l < N; ++l) {
            float v = a[w * 32 + l];
            float e = negative ? fmaxf(v, a[w * 32]) : v;
            if (memcmp(&out[w * 32 + l], &e, sizeof e) != 0)
                fail_msg("vote_branch[%d] = %g, expected %g", w * 32 + l,
                         (double)out[w * 32 + l], (double)e);
        }
    }
}

static void test_tiles(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context), "tile_reduce");
    enum { B = 64, BLOCKS = 3, N = B * BLOCKS - 10, T = B * BLOCKS,
           TILES = T / 16 };
    int32_t *in = ARRAY(int32_t, N), *moved = ARRAY(int32_t, T);
    int32_t sums[TILES];
    uint32_t votes[3 * TILES];
    test_random_ints(in, N, -1000, 1000);
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bsums = test_temp_buffer(context, sizeof sums);
    kiln_buffer *bvotes = test_temp_buffer(context, sizeof votes);
    kiln_buffer *bmoved = test_temp_buffer(context, T * sizeof *moved);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bsums),
                KILN_ARG_BUFFER(bvotes), KILN_ARG_BUFFER(bmoved),
                KILN_ARG_INT(N));
    test_read(bsums, sums, sizeof sums);
    test_read(bvotes, votes, sizeof votes);
    test_read(bmoved, moved, T * sizeof *moved);
#define V(i) ((i) < N ? in[i] : 0)
    for (int t = 0; t < TILES; ++t) {
        int sum = 0, any = 0, all = 1;
        uint32_t ballot = 0;
        for (int r = 0; r < 16; ++r) {
            int v = V(t * 16 + r);
            sum += v;
            ballot |= (uint32_t)(v > 0) << r;
            any |= v > 900;
            all &= v > -900;
        }
        if (sums[t] != sum || votes[3 * t] != ballot ||
            votes[3 * t + 1] != (uint32_t)any || votes[3 * t + 2] != (uint32_t)all)
            fail_msg("tile %d: sum %d ballot %04x any %u all %u; expected "
                     "%d %04x %d %d",
                     t, (int)sums[t], (unsigned)votes[3 * t],
                     (unsigned)votes[3 * t + 1], (unsigned)votes[3 * t + 2],
                     sum, (unsigned)ballot, any, all);
    }
    for (int i = 0; i < N; ++i) {
        int base = i / 32 * 32, lane = i % 32;
        int x = V(base + 5) + 3 * V(base + (lane ^ 9)) +
                7 * V(lane >= 2 ? i - 2 : i);
        int e = x * 1000 + lane * 10 + 1;
        if (moved[i] != e)
            fail_msg("tile_reduce moved[%d] = %d, expected %d", i,
                     (int)moved[i], e);
    }
#undef V
}

/* cg::reduce as llm.c uses it; the model is CUDA's butterfly (shfl_xor
 * from 16 down, op(own, other)). */
static void test_cg_reduce(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context), "row_stats");
    enum { B = 128, BLOCKS = 3, N = BLOCKS * (B / 32) - 3, C = 75 };
    float *in = ARRAY(float, N * C), maxes[N], sums[N];
    int32_t hashes[N];
    test_random_floats(in, N * C, -10.0f, 10.0f);
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * C * sizeof *in);
    kiln_buffer *bmax = test_temp_buffer(context, sizeof maxes);
    kiln_buffer *bsum = test_temp_buffer(context, sizeof sums);
    kiln_buffer *bhash = test_temp_buffer(context, sizeof hashes);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bmax),
                KILN_ARG_BUFFER(bsum), KILN_ARG_BUFFER(bhash), KILN_ARG_INT(N),
                KILN_ARG_INT(C));
    test_read(bmax, maxes, sizeof maxes);
    test_read(bsum, sums, sizeof sums);
    test_read(bhash, hashes, sizeof hashes);
    for (int row = 0; row < N; ++row) {
        const float *x = in + row * C;
        float m[32], s[32], tmp[32];
        int32_t h[32], htmp[32];
        for (int l = 0; l < 32; ++l) {
            m[l] = -INFINITY;
            for (int i = l; i < C; i += 32)
                m[l] = fmaxf(m[l], x[i]);
        }
        for (int mask = 16; mask > 0; mask >>= 1) {
            memcpy(tmp, m, sizeof tmp);
            for (int l = 0; l < 32; ++l)
                m[l] = tmp[l] < tmp[l ^ mask] ? tmp[l ^ mask] : tmp[l];
        }
        for (int l = 0; l < 32; ++l) {
            s[l] = 0.0f;
            h[l] = 0;
            for (int i = l; i < C; i += 32) {
                s[l] += x[i] - m[l];
                int32_t bits;
                memcpy(&bits, &x[i], sizeof bits);
                h[l] ^= bits;
            }
        }
        for (int mask = 16; mask > 0; mask >>= 1) {
            memcpy(tmp, s, sizeof tmp);
            memcpy(htmp, h, sizeof htmp);
            for (int l = 0; l < 32; ++l) {
                s[l] = tmp[l] + tmp[l ^ mask];
                h[l] = htmp[l] ^ htmp[l ^ mask];
            }
        }
        if (memcmp(&maxes[row], &m[0], sizeof(float)) != 0 ||
            memcmp(&sums[row], &s[0], sizeof(float)) != 0 || hashes[row] != h[0])
            fail_msg("row_stats row %d: %.9g %.9g %d, expected %.9g %.9g %d",
                     row, (double)maxes[row], (double)sums[row], (int)hashes[row],
                     (double)m[0], (double)s[0], (int)h[0]);
    }
}

/* A loop whose trip count differs between warps, holding a cg::reduce:
 * every thread iterates while one of the block does. */
static void test_divergent_loop(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context), "causal_rows");
    enum { B = 128, BLOCKS = 3, T = BLOCKS * (B / 32) - 2, HS = 40 };
    float *in = ARRAY(float, T * HS), out[T];
    test_random_floats(in, T * HS, -1.0f, 1.0f);
    kiln_buffer *bin = test_temp_buffer_from(context, in, T * HS * sizeof *in);
    kiln_buffer *bout = test_temp_buffer(context, sizeof out);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout), KILN_ARG_INT(T),
                KILN_ARG_INT(HS));
    test_read(bout, out, sizeof out);
    for (int t = 0; t < T; ++t) {
        float acc = 0.0f;
        for (int t2 = 0; t2 <= t; ++t2) {
            float v[32], tmp[32];
            for (int l = 0; l < 32; ++l) {
                v[l] = 0.0f;
                for (int i = l; i < HS; i += 32)
                    v[l] += in[t2 * HS + i];
            }
            for (int mask = 16; mask > 0; mask >>= 1) {
                memcpy(tmp, v, sizeof tmp);
                for (int l = 0; l < 32; ++l)
                    v[l] = tmp[l] + tmp[l ^ mask];
            }
            acc += v[0];
        }
        if (memcmp(&out[t], &acc, sizeof acc) != 0)
            fail_msg("causal_rows[%d] = %.9g, expected %.9g", t, (double)out[t],
                     (double)acc);
    }
}

/* cg::inclusive_scan / exclusive_scan on tiles of 8, in CUDA's order
 * (shfl_up from 1 up; exclusive of a float: the inclusive result of the
 * rank below, 0 at rank 0). */
static void test_cg_scan(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(warp_program(context), "tile_scans");
    enum { B = 64, BLOCKS = 2, N = B * BLOCKS - 5, T = B * BLOCKS };
    float *in = ARRAY(float, N), *incl = ARRAY(float, N), *excl = ARRAY(float, N);
    int32_t *iincl = ARRAY(int32_t, N);
    test_random_floats(in, N, -10.0f, 10.0f);
    kiln_buffer *bin = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bincl = test_temp_buffer(context, N * sizeof *incl);
    kiln_buffer *bexcl = test_temp_buffer(context, N * sizeof *excl);
    kiln_buffer *biincl = test_temp_buffer(context, N * sizeof *iincl);
    TEST_LAUNCH(kernel, KILN_DIM1(BLOCKS), KILN_DIM1(B), 0,
                KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bincl),
                KILN_ARG_BUFFER(bexcl), KILN_ARG_BUFFER(biincl), KILN_ARG_INT(N));
    test_read(bincl, incl, N * sizeof *incl);
    test_read(bexcl, excl, N * sizeof *excl);
    test_read(biincl, iincl, N * sizeof *iincl);
    for (int tile = 0; tile < T / 8; ++tile) {
        float out[8], tmp[8];
        int32_t iout[8], itmp[8];
        for (int r = 0; r < 8; ++r) {
            int i = tile * 8 + r;
            out[r] = i < N ? in[i] : 0.0f;
            iout[r] = (int32_t)(out[r] * 100.0f);
        }
        for (int mask = 1; mask < 8; mask <<= 1) {
            memcpy(tmp, out, sizeof tmp);
            memcpy(itmp, iout, sizeof itmp);
            for (int r = mask; r < 8; ++r) {
                out[r] = tmp[r] + tmp[r - mask];
                iout[r] = itmp[r] < itmp[r - mask] ? itmp[r - mask] : itmp[r];
            }
        }
        for (int r = 0; r < 8 && tile * 8 + r < N; ++r) {
            int i = tile * 8 + r;
            float e = r == 0 ? 0.0f : out[r - 1];
            if (memcmp(&incl[i], &out[r], sizeof(float)) != 0 ||
                memcmp(&excl[i], &e, sizeof(float)) != 0 || iincl[i] != iout[r])
                fail_msg("tile_scans[%d] = %.9g %.9g %d, expected %.9g %.9g %d",
                         i, (double)incl[i], (double)excl[i], (int)iincl[i],
                         (double)out[r], (double)e, (int)iout[r]);
        }
    }
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
        /* a shuffle in a loop whose trip count is the thread's, that a
         * return leaves */
        {"__global__ void k(float *a, const int *n) {\n"
         "  int i = threadIdx.x;\n"
         "  float v = a[i];\n"
         "  for (int j = 0; j < n[i]; ++j) {\n"
         "    v += __shfl_down_sync(0xffffffff, v, 1);\n"
         "    if (v > 100) return;\n"
         "  }\n"
         "  a[i] = v;\n"
         "}\n",
         "'__shfl_down_sync' in a loop whose trip count", "refused.cu:5:"},
        /* a loop that a data-dependent break leaves */
        {"__global__ void k(float *a) {\n"
         "  int i = threadIdx.x;\n"
         "  float v = a[i];\n"
         "  for (int j = 0; j < 5; ++j) {\n"
         "    if (v > 3) break;\n"
         "    v += __shfl_xor_sync(0xffffffff, v, 1);\n"
         "  }\n"
         "  a[i] = v;\n"
         "}\n",
         "'__shfl_xor_sync' in a loop that a break", "refused.cu:6:"},
        /* a vote in the condition of a loop */
        {"__global__ void k(float *a) {\n"
         "  int i = threadIdx.x;\n"
         "  float v = a[i];\n"
         "  while (__any_sync(0xffffffff, v > 1)) {\n"
         "    v = __shfl_down_sync(0xffffffff, v, 1) / 2;\n"
         "  }\n"
         "  a[i] = v;\n"
         "}\n",
         "'__any_sync' in a loop whose trip count", "refused.cu:4:"},
        /* a value of a type CUDA shuffles in halves, not here */
        {"__global__ void k(float2 *a) {\n"
         "  int i = threadIdx.x;\n"
         "  float2 v = a[i];\n"
         "  a[i] = __shfl_sync(0xffffffff, v, 0);\n"
         "}\n",
         "'__shfl_sync' of this value", "refused.cu:4:"},
        /* a shuffle under ?: */
        {"__global__ void k(float *a) {\n"
         "  int i = threadIdx.x;\n"
         "  float v = a[i];\n"
         "  a[i] = v > 0 ? __shfl_down_sync(0xffffffff, v, 1) : v;\n"
         "}\n",
         "'?'", "refused.cu:4:"},
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
        KILN_TEST(test_device_reduce),
        KILN_TEST(test_reduce_tail),
        KILN_TEST(test_shfl_scan),
        KILN_TEST(test_allreduce_max),
        KILN_TEST(test_shuffle_modes),
        KILN_TEST(test_shuffle_wide),
        KILN_TEST(test_votes),
        KILN_TEST(test_reduce_ops),
        KILN_TEST(test_vote_branch),
        KILN_TEST(test_tiles),
        KILN_TEST(test_cg_reduce),
        KILN_TEST(test_divergent_loop),
        KILN_TEST(test_cg_scan),
        KILN_TEST(test_scaled_rows),
        KILN_TEST(test_refusals),
    };
    return kiln_test_main("cuda_warp", tests, sizeof tests / sizeof tests[0]);
}
