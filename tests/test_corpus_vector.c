/*
 * Conformance corpus, vector types: literals, component-wise operators and
 * comparisons, vector conditionals, swizzles (r-value and l-value),
 * vloadN/vstoreN, sizes and strides (sizeof(float3) == 16), and the
 * relational built-ins.  Almost everything here is exact: lane shuffles
 * and single IEEE operations (compared bit for bit with the same float
 * operation on the host).
 */
#include "test_corpus_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t bits_of(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static float float_of(uint32_t bits)
{
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static void check_poison(const char *what, const void *data, size_t from,
                         size_t to)
{
    const uint8_t *bytes = data;
    for (size_t i = from; i < to; ++i)
        if (bytes[i] != 0xA5)
            fail_msg("%s: byte %zu was written (0x%02x), it must stay untouched",
                     what, i, bytes[i]);
}

/* ---- literals and operators ----------------------------------------------------- */

/* Literals and lane moves exact; + - * and x - 2y (one rounding each)
 * bit-exact; x / y within OpenCL's 2.5 ulp; integer ops exact; comparisons
 * exactly -1 / 0 per component, 1 / 0 for scalars. */
static void vector_literals(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 1000, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "vector_literals", NULL);
    kiln_kernel *literals = test_kernel(program, "literals");
    kiln_kernel *componentwise = test_kernel(program, "componentwise");
    kiln_kernel *comparisons = test_kernel(program, "comparisons");

    float *in = CORPUS_ARRAY(float, 4 * N);
    test_random_floats(in, 4 * N, -100, 100);
    kiln_buffer *in_buffer = test_buffer_from(context, in, 16 * N);
    kiln_buffer *out4 = corpus_poisoned_buffer(context, 3 * 16 * N);
    kiln_buffer *out8 = corpus_poisoned_buffer(context, 32 * N);
    kiln_buffer *outi = corpus_poisoned_buffer(context, 16 * N);
    CORPUS_LAUNCH(literals, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out4),
                  KILN_ARG_BUFFER(out8), KILN_ARG_BUFFER(outi), KILN_ARG_INT(N));
    float *f4 = CORPUS_ARRAY(float, 12 * N), *f4_expected = CORPUS_ARRAY(float, 12 * N);
    float *f8 = CORPUS_ARRAY(float, 8 * N), *f8_expected = CORPUS_ARRAY(float, 8 * N);
    int32_t *i4 = CORPUS_ARRAY(int32_t, 4 * N), *i4_expected = CORPUS_ARRAY(int32_t, 4 * N);
    corpus_read(out4, f4, 3 * 16 * N);
    corpus_read(out8, f8, 32 * N);
    corpus_read(outi, i4, 16 * N);
    for (int i = 0; i < N; ++i) {
        float a = in[4 * i], b = in[4 * i + 1], c = in[4 * i + 2], d = in[4 * i + 3];
        float e4[12] = {a, b, c, d, c, c, c, c, d + d, a + a, a, 7};
        memcpy(f4_expected + 12 * i, e4, sizeof e4);
        float e8[8] = {a, b, c, d, d, a, a, 1.5f};
        memcpy(f8_expected + 8 * i, e8, sizeof e8);
        int32_t ei[4] = {i + 1, -i + 2, i + 3, -i + 4};
        memcpy(i4_expected + 4 * i, ei, sizeof ei);
    }
    corpus_expect_f32_bits("float4 literals ((a,b,c,d), (c), (v2, s, s) + {d, a, 0, 0u})", f4,
                           f4_expected, 12 * N);
    corpus_expect_f32_bits("(float8)(v4, v2, a, 1.5f)", f8, f8_expected, 8 * N);
    corpus_expect_i32("(int4)(v2, v2) + {1, 2.0f, 3u, (char)4}", i4, i4_expected, 4 * N);

    float *x = CORPUS_ARRAY(float, 4 * N), *y = CORPUS_ARRAY(float, 4 * N);
    int32_t *p = CORPUS_ARRAY(int32_t, 4 * N), *q = CORPUS_ARRAY(int32_t, 4 * N);
    test_random_floats(x, 4 * N, -100, 100);
    test_random_floats(y, 4 * N, -100, 100);
    corpus_random_i32(p, 4 * N, -100000, 100000);
    for (size_t k = 0; k < 4 * N; ++k) {
        do
            q[k] = (int32_t)(test_random_u64() % 2001) - 1000;
        while (q[k] == 0);
        if (k % 7 == 0)
            y[k] = x[k]; /* equal components for == and >= */
    }
    kiln_buffer *x_buffer = test_buffer_from(context, x, 16 * N);
    kiln_buffer *y_buffer = test_buffer_from(context, y, 16 * N);
    kiln_buffer *p_buffer = test_buffer_from(context, p, 16 * N);
    kiln_buffer *q_buffer = test_buffer_from(context, q, 16 * N);
    kiln_buffer *fout = corpus_poisoned_buffer(context, 5 * 16 * N);
    kiln_buffer *iout = corpus_poisoned_buffer(context, 6 * 16 * N);
    CORPUS_LAUNCH(componentwise, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(y_buffer),
                  KILN_ARG_BUFFER(p_buffer), KILN_ARG_BUFFER(q_buffer),
                  KILN_ARG_BUFFER(fout), KILN_ARG_BUFFER(iout), KILN_ARG_INT(N));
    float *f = CORPUS_ARRAY(float, 20 * N), *f_expected = CORPUS_ARRAY(float, 20 * N);
    int32_t *k = CORPUS_ARRAY(int32_t, 24 * N), *k_expected = CORPUS_ARRAY(int32_t, 24 * N);
    corpus_read(fout, f, 5 * 16 * N);
    corpus_read(iout, k, 6 * 16 * N);
    for (size_t i = 0; i < N; ++i)
        for (int c = 0; c < 4; ++c) {
            size_t e = 4 * i + c;
            float *fe = f_expected + 20 * i + c;
            fe[0] = x[e] + y[e];
            fe[4] = x[e] - y[e] * 2.0f;
            fe[8] = x[e] * y[e];
            fe[12] = x[e] / y[e]; /* checked within 2.5 ulp below */
            fe[16] = -x[e] + 1.0f;
            int32_t *ke = k_expected + 24 * i + c;
            ke[0] = p[e] * q[e] + 3;
            ke[4] = p[e] / q[e];
            ke[8] = p[e] % q[e];
            ke[12] = (p[e] & q[e]) | (p[e] ^ 0x55);
            ke[16] = (int32_t)((uint32_t)p[e] << 3) >> 1;
            ke[20] = ~p[e];
        }
    for (size_t i = 0; i < N; ++i) {
        for (int c = 0; c < 4; ++c) {
            size_t at = 20 * i + 12 + c;
            double quotient = (double)x[4 * i + c] / y[4 * i + c];
            double error = corpus_ulp_error(f[at], quotient);
            if (!(error <= 2.5))
                fail_msg("float4 x / y [%zu]: got %.9g, expected %.9g (%.2f ulp)",
                         i, (double)f[at], quotient, error);
            f[at] = f_expected[at]; /* so that the exact check below passes */
        }
    }
    corpus_expect_f32_bits("float4 x+y, x-2y, x*y, x/y, -x+1", f, f_expected, 20 * N);
    corpus_expect_i32("int4 u*v+3, /, %, &|^, <<>>, ~", k, k_expected, 24 * N);

    kiln_buffer *cmp_out = corpus_poisoned_buffer(context, 6 * 16 * N);
    kiln_buffer *scalar_out = corpus_poisoned_buffer(context, 4 * N);
    CORPUS_LAUNCH(comparisons, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(y_buffer),
                  KILN_ARG_BUFFER(cmp_out), KILN_ARG_BUFFER(scalar_out),
                  KILN_ARG_INT(N));
    int32_t *scalars = CORPUS_ARRAY(int32_t, N), *scalars_expected = CORPUS_ARRAY(int32_t, N);
    corpus_read(cmp_out, k, 6 * 16 * N);
    corpus_read(scalar_out, scalars, 4 * N);
    static const int32_t bit_of_lane[4] = {1, 2, 4, 8};
    for (size_t i = 0; i < N; ++i) {
        for (int c = 0; c < 4; ++c) {
            float a = x[4 * i + c], b = y[4 * i + c];
            int32_t *ke = k_expected + 24 * i + c;
            ke[0] = a < b ? -1 : 0;
            ke[4] = a >= b ? -1 : 0;
            ke[8] = a == b ? -1 : 0;
            ke[12] = a != b ? -1 : 0;
            ke[16] = a > b ? bit_of_lane[c] : 0;
            ke[20] = a > 0.5f ? -1 : 0;
        }
        scalars_expected[i] = (x[4 * i] < y[4 * i]) + (x[4 * i + 1] < y[4 * i + 1]) * 2;
    }
    corpus_expect_i32("float4 comparisons (< >= == != masked >broadcast)", k,
                      k_expected, 24 * N);
    corpus_expect_i32("scalar comparisons", scalars, scalars_expected, N);

    kiln_buffer *buffers[] = {in_buffer, out4, out8, outi, x_buffer, y_buffer, p_buffer,
                              q_buffer, fout, iout, cmp_out, scalar_out};
    corpus_release_buffers(buffers, 12);
    kiln_kernel_release(literals);
    kiln_kernel_release(componentwise);
    kiln_kernel_release(comparisons);
    kiln_program_release(program);
    free(in), free(f4), free(f4_expected), free(f8), free(f8_expected);
    free(i4), free(i4_expected), free(x), free(y), free(p), free(q), free(f);
    free(f_expected), free(k), free(k_expected), free(scalars), free(scalars_expected);
}

/* Exact. */
static void vector_conditional(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 800, BLOCK = 32 };
    kiln_program *program = corpus_build(context, "vector_conditional", NULL);
    kiln_kernel *kernel = test_kernel(program, "vector_ternary");
    int32_t *a = CORPUS_ARRAY(int32_t, 4 * N), *b = CORPUS_ARRAY(int32_t, 4 * N);
    int32_t *out = CORPUS_ARRAY(int32_t, 16 * N), *expected = CORPUS_ARRAY(int32_t, 16 * N);
    corpus_random_i32(a, 4 * N, -3, 3); /* zeros, ties and both signs */
    corpus_random_i32(b, 4 * N, -3, 3);
    kiln_buffer *a_buffer = test_buffer_from(context, a, 16 * N);
    kiln_buffer *b_buffer = test_buffer_from(context, b, 16 * N);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, 64 * N);
    CORPUS_LAUNCH(kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(a_buffer), KILN_ARG_BUFFER(b_buffer),
                  KILN_ARG_BUFFER(out_buffer), KILN_ARG_INT(N));
    corpus_read(out_buffer, out, 64 * N);
    for (size_t i = 0; i < N; ++i)
        for (int c = 0; c < 4; ++c) {
            int32_t x = a[4 * i + c], y = b[4 * i + c];
            int32_t *e = expected + 16 * i + c;
            e[0] = x > y ? x : y;
            e[4] = x == 0 ? -1 : 0;
            e[8] = x > 0 && y > 0 ? -1 : 0;
            e[12] = x < 0 || y == 0 ? 5 : -5;
        }
    corpus_expect_i32("int4 ?: ! && ||", out, expected, 16 * N);
    kiln_buffer *buffers[] = {a_buffer, b_buffer, out_buffer};
    corpus_release_buffers(buffers, 3);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(a), free(b), free(out), free(expected);
}

/* ---- swizzles ------------------------------------------------------------------------ */

/* Exact: lane moves, and sums of two floats computed the same way on the
 * host. */
static void swizzles(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 500, BLOCK = 32 };
    kiln_program *program = corpus_build(context, "swizzles", NULL);
    kiln_kernel *read_kernel = test_kernel(program, "swizzle_read");
    kiln_kernel *write_kernel = test_kernel(program, "swizzle_write");
    kiln_kernel *int_kernel = test_kernel(program, "swizzle_int");

    float *v4 = CORPUS_ARRAY(float, 4 * N), *w16 = CORPUS_ARRAY(float, 16 * N);
    test_random_floats(v4, 4 * N, -50, 50);
    test_random_floats(w16, 16 * N, -50, 50);
    kiln_buffer *v_buffer = test_buffer_from(context, v4, 16 * N);
    kiln_buffer *w_buffer = test_buffer_from(context, w16, 64 * N);
    kiln_buffer *out4 = corpus_poisoned_buffer(context, 6 * 16 * N);
    kiln_buffer *out8 = corpus_poisoned_buffer(context, 4 * 32 * N);
    kiln_buffer *out2 = corpus_poisoned_buffer(context, 4 * 8 * N);
    CORPUS_LAUNCH(read_kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(v_buffer), KILN_ARG_BUFFER(w_buffer),
                  KILN_ARG_BUFFER(out4), KILN_ARG_BUFFER(out8), KILN_ARG_BUFFER(out2),
                  KILN_ARG_INT(N));
    float *r4 = CORPUS_ARRAY(float, 24 * N), *e4 = CORPUS_ARRAY(float, 24 * N);
    float *r8 = CORPUS_ARRAY(float, 32 * N), *e8 = CORPUS_ARRAY(float, 32 * N);
    float *r2 = CORPUS_ARRAY(float, 8 * N), *e2 = CORPUS_ARRAY(float, 8 * N);
    corpus_read(out4, r4, 6 * 16 * N);
    corpus_read(out8, r8, 4 * 32 * N);
    corpus_read(out2, r2, 4 * 8 * N);
    for (size_t i = 0; i < N; ++i) {
        const float *v = v4 + 4 * i, *w = w16 + 16 * i;
        float a[24] = {v[3], v[2], v[1], v[0],
                       v[0], v[1], v[2], v[3],
                       v[0] + v[3], v[0] + v[2], v[1] + v[1], v[1] + v[0],
                       w[0], w[9], w[10], w[15],
                       w[4], w[5], w[10], w[14],
                       w[15] + w[0], w[14] + w[1], w[13] + w[2], w[12] + w[3]};
        memcpy(e4 + 24 * i, a, sizeof a);
        for (int c = 0; c < 8; ++c) {
            e8[32 * i + c] = w[c];
            e8[32 * i + 8 + c] = w[8 + c];
            e8[32 * i + 16 + c] = w[2 * c];
            e8[32 * i + 24 + c] = w[2 * c + 1];
        }
        float b[8] = {v[0], v[1], v[2], v[3], v[0], v[2], v[3], v[1]};
        memcpy(e2 + 8 * i, b, sizeof b);
    }
    corpus_expect_f32_bits("float4 swizzles (.wzyx, (.xy,.zw), .xxyy+.s3210, "
                           ".s0 .s9 .sA .sF, .lo.hi.lo, .sfedc+.S0123)",
                           r4, e4, 24 * N);
    corpus_expect_f32_bits("float16 .lo .hi .even .odd", r8, e8, 32 * N);
    corpus_expect_f32_bits("float4 .lo .hi .even .odd.yx", r2, e2, 8 * N);

    kiln_buffer *wout4 = corpus_poisoned_buffer(context, 4 * 16 * N);
    kiln_buffer *wout16 = corpus_poisoned_buffer(context, 64 * N);
    CORPUS_LAUNCH(write_kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(v_buffer), KILN_ARG_BUFFER(w_buffer),
                  KILN_ARG_BUFFER(wout4), KILN_ARG_BUFFER(wout16), KILN_ARG_INT(N));
    float *w_out = CORPUS_ARRAY(float, 16 * N), *w_expected = CORPUS_ARRAY(float, 16 * N);
    corpus_read(wout4, r4, 4 * 16 * N);
    corpus_read(wout16, w_out, 64 * N);
    for (size_t i = 0; i < N; ++i) {
        const float *v = v4 + 4 * i, *w = w16 + 16 * i;
        float a[16] = {v[3], v[2], v[1], v[0],             /* a.wzyx = v   */
                       v[2], v[3], v[2], -v[0],            /* b.xy, b.w    */
                       v[2], v[0] * 2.0f, 1, v[2] * 2.0f,  /* c.lo, c.odd  */
                       v[0], 20, v[2], 10};                /* d.s31        */
        memcpy(e4 + 16 * i, a, sizeof a);
        float *z = w_expected + 16 * i;
        for (int c = 0; c < 16; c += 2) {
            z[c] = w[c + 1];
            z[c + 1] = w[c];
        }
        z[15] = 100;
        z[7] += 1.0f;
        for (int c = 0; c < 4; ++c)
            z[8 + c] = w[c];
    }
    corpus_expect_f32_bits("float4 l-value swizzles (.wzyx, .xy, .w, .lo, .odd, .s31)",
                           r4, e4, 16 * N);
    corpus_expect_f32_bits("float16 l-value swizzles (.even, .odd, .sF, .s7 +=, .hi.lo)",
                           w_out, w_expected, 16 * N);

    int32_t *ints = CORPUS_ARRAY(int32_t, 8 * N), *i_out = CORPUS_ARRAY(int32_t, 8 * N);
    int32_t *i_expected = CORPUS_ARRAY(int32_t, 8 * N);
    corpus_random_i32(ints, 8 * N, -1000000, 1000000);
    kiln_buffer *int_in = test_buffer_from(context, ints, 32 * N);
    kiln_buffer *int_out = corpus_poisoned_buffer(context, 32 * N);
    CORPUS_LAUNCH(int_kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(int_in), KILN_ARG_BUFFER(int_out), KILN_ARG_INT(N));
    corpus_read(int_out, i_out, 32 * N);
    for (size_t i = 0; i < N; ++i) {
        const int32_t *v = ints + 8 * i;
        int32_t e[8] = {3 * v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0]};
        memcpy(i_expected + 8 * i, e, sizeof e);
    }
    corpus_expect_i32("int8 swizzles (.s0123 = .s7654, .s4567 = .lo.wzyx, .s0 +=)",
                      i_out, i_expected, 8 * N);

    kiln_buffer *buffers[] = {v_buffer, w_buffer, out4, out8, out2, wout4, wout16,
                              int_in, int_out};
    corpus_release_buffers(buffers, 9);
    kiln_kernel_release(read_kernel);
    kiln_kernel_release(write_kernel);
    kiln_kernel_release(int_kernel);
    kiln_program_release(program);
    free(v4), free(w16), free(r4), free(e4), free(r8), free(e8), free(r2), free(e2);
    free(w_out), free(w_expected), free(ints), free(i_out), free(i_expected);
}

/* ---- vload / vstore ---------------------------------------------------------------- */

/* Exact (single float operations, integer arithmetic); the bytes past the
 * last vstore3 and before the offset view stay untouched. */
static void vload_vstore(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 300, BLOCK = 32, PAD = 16 };
    kiln_program *program = corpus_build(context, "vload_vstore", NULL);
    kiln_kernel *float_vectors = test_kernel(program, "float_vectors");
    kiln_kernel *unaligned = test_kernel(program, "unaligned_vectors");
    kiln_kernel *local_constant = test_kernel(program, "local_and_constant");
    kiln_kernel *narrow = test_kernel(program, "narrow_vectors");

    float *in = CORPUS_ARRAY(float, 16 * N + PAD);
    test_random_floats(in, 16 * N + PAD, -20, 20);
    kiln_buffer *in_buffer = test_buffer_from(context, in, (16 * N + PAD) * 4);
    static const int widths[5] = {2, 3, 4, 8, 16};
    kiln_buffer *outs[5];
    for (int w = 0; w < 5; ++w)
        outs[w] = corpus_poisoned_buffer(context, ((size_t)widths[w] * N + PAD) * 4);
    CORPUS_LAUNCH(float_vectors, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(outs[0]),
                  KILN_ARG_BUFFER(outs[1]), KILN_ARG_BUFFER(outs[2]),
                  KILN_ARG_BUFFER(outs[3]), KILN_ARG_BUFFER(outs[4]), KILN_ARG_INT(N));
    float *out = CORPUS_ARRAY(float, 16 * N + PAD);
    float *expected = CORPUS_ARRAY(float, 16 * N + PAD);
    for (int w = 0; w < 5; ++w) {
        int width = widths[w];
        size_t count = (size_t)width * N;
        corpus_read(outs[w], out, (count + PAD) * 4);
        for (size_t i = 0; i < N; ++i)
            for (int c = 0; c < width; ++c) {
                float v = in[width * i + c];
                float e;
                switch (width) {
                case 2: e = v * 2.0f; break;
                case 3: e = v + (float)(c + 1); break;
                case 4: e = in[width * i + (3 - c)]; break;
                case 8: e = v - 1.0f; break;
                default: e = v * v; break;
                }
                expected[width * i + c] = e;
            }
        char what[64];
        snprintf(what, sizeof what, "vload%d / vstore%d", width, width);
        corpus_expect_f32_bits(what, out, expected, count);
        check_poison(what, out, count * 4, (count + PAD) * 4);
    }

    kiln_buffer *shifted = corpus_poisoned_buffer(context, (4 * N + PAD) * 4);
    CORPUS_LAUNCH(unaligned, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(shifted), KILN_ARG_INT(N));
    corpus_read(shifted, out, (4 * N + PAD) * 4);
    for (size_t k = 0; k < 4 * N; ++k)
        expected[k] = in[1 + k] + 0.5f;
    corpus_expect_f32_bits("vload4/vstore4 at a 4-byte offset", out + 1, expected, 4 * N);
    check_poison("vstore4 at an offset", out, 0, 4);
    check_poison("vstore4 at an offset", out, (4 * N + 1) * 4, (4 * N + PAD) * 4);

    enum { ITEMS = BLOCK * 8 };
    int32_t *ints = CORPUS_ARRAY(int32_t, 3 * ITEMS), *i_out = CORPUS_ARRAY(int32_t, 3 * ITEMS);
    int32_t *i_expected = CORPUS_ARRAY(int32_t, 3 * ITEMS);
    int32_t bias[3];
    corpus_random_i32(ints, 3 * ITEMS, -1000000, 1000000);
    corpus_random_i32(bias, 3, -1000, 1000);
    kiln_buffer *int_in = test_buffer_from(context, ints, 3 * ITEMS * 4);
    kiln_buffer *bias_buffer = test_buffer_from(context, bias, sizeof bias);
    kiln_buffer *int_out = corpus_poisoned_buffer(context, 3 * ITEMS * 4);
    CORPUS_LAUNCH(local_constant, KILN_DIM1(ITEMS / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(int_in), KILN_ARG_BUFFER(bias_buffer),
                  KILN_ARG_BUFFER(int_out), KILN_ARG_LOCAL(3 * BLOCK * sizeof(int32_t)));
    corpus_read(int_out, i_out, 3 * ITEMS * 4);
    for (size_t i = 0; i < ITEMS; ++i) {
        size_t other = i - i % BLOCK + (BLOCK - 1 - i % BLOCK);
        for (int c = 0; c < 3; ++c)
            i_expected[3 * i + c] = ints[3 * other + c] + bias[c];
    }
    corpus_expect_i32("vload3/vstore3 via __local and __constant", i_out, i_expected,
                      3 * ITEMS);

    uint8_t *bytes = CORPUS_ARRAY(uint8_t, 8 * N);
    uint16_t *halves = CORPUS_ARRAY(uint16_t, 4 * N), *h_expected = CORPUS_ARRAY(uint16_t, 4 * N);
    int16_t *pairs = CORPUS_ARRAY(int16_t, 2 * N), *p_expected = CORPUS_ARRAY(int16_t, 2 * N);
    test_random_bytes(bytes, 8 * N);
    kiln_buffer *byte_buffer = test_buffer_from(context, bytes, 8 * N);
    kiln_buffer *half_buffer = corpus_poisoned_buffer(context, 8 * N);
    kiln_buffer *pair_buffer = corpus_poisoned_buffer(context, 4 * N);
    CORPUS_LAUNCH(narrow, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(byte_buffer), KILN_ARG_BUFFER(half_buffer),
                  KILN_ARG_BUFFER(pair_buffer), KILN_ARG_INT(N));
    corpus_read(half_buffer, halves, 8 * N);
    corpus_read(pair_buffer, pairs, 4 * N);
    for (size_t i = 0; i < N; ++i) {
        const uint8_t *b = bytes + 8 * i;
        for (int c = 0; c < 4; ++c)
            h_expected[4 * i + c] = (uint16_t)(b[c] * 300 + b[4 + c]);
        p_expected[2 * i] = (int16_t)(b[0] - b[7]);
        p_expected[2 * i + 1] = (int16_t)(b[3] - 128);
    }
    corpus_expect_u16("vload8 uchar -> vstore4 ushort", halves, h_expected, 4 * N);
    corpus_expect_u16("vstore2 short", (const uint16_t *)pairs,
                      (const uint16_t *)p_expected, 2 * N);

    corpus_release_buffers(outs, 5);
    kiln_buffer *buffers[] = {in_buffer, shifted, int_in, bias_buffer, int_out,
                              byte_buffer, half_buffer, pair_buffer};
    corpus_release_buffers(buffers, 8);
    kiln_kernel_release(float_vectors);
    kiln_kernel_release(unaligned);
    kiln_kernel_release(local_constant);
    kiln_kernel_release(narrow);
    kiln_program_release(program);
    free(in), free(out), free(expected), free(ints), free(i_out), free(i_expected);
    free(bytes), free(halves), free(h_expected), free(pairs), free(p_expected);
}

/* ---- sizes and float3 strides ------------------------------------------------------- */

/* Sizes exact.  float3 arrays: lanes exact (2z+1 etc. round once);
 * x^2+y^2+z^2: 2^-22 of the sum.  The fourth (padding) float of each
 * element is not compared: a float3 store may write it. */
static void vector_sizes(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 700, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "vector_sizes", NULL);
    kiln_kernel *sizes_kernel = test_kernel(program, "vector_sizeof");
    kiln_kernel *array_kernel = test_kernel(program, "float3_array");

    int32_t sizes[14];
    kiln_buffer *sizes_buffer = corpus_poisoned_buffer(context, sizeof sizes);
    CORPUS_LAUNCH(sizes_kernel, KILN_DIM1(1), KILN_DIM1(1), KILN_ARG_BUFFER(sizes_buffer));
    corpus_read(sizes_buffer, sizes, sizeof sizes);
    static const int32_t expected_sizes[14] = {16, 16, 16, 4, 8, 16, 32, 64, 16,
                                               48, 16, 32, 48, 16};
    corpus_expect_i32("sizeof (float3 float4 int3 uchar3 short3 char16 float8 "
                      "float16 ulong2 struct{float,float3,char} offsets... "
                      "int3[3] float3 stride)",
                      sizes, expected_sizes, 14);

    float *in = CORPUS_ARRAY(float, 4 * N), *out = CORPUS_ARRAY(float, 4 * N);
    float *lengths = CORPUS_ARRAY(float, N);
    test_random_floats(in, 4 * N, -30, 30);
    kiln_buffer *in_buffer = test_buffer_from(context, in, 16 * N);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, 16 * N);
    kiln_buffer *length_buffer = corpus_poisoned_buffer(context, 4 * N);
    CORPUS_LAUNCH(array_kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer),
                  KILN_ARG_BUFFER(length_buffer), KILN_ARG_INT(N));
    corpus_read(out_buffer, out, 16 * N);
    corpus_read(length_buffer, lengths, 4 * N);
    for (size_t i = 0; i < N; ++i) {
        const float *v = in + 4 * i;
        float e[3] = {v[2] * 2.0f + 1.0f, v[0] * 2.0f + 2.0f, v[1] * 2.0f + 3.0f};
        corpus_expect_f32_bits("float3 array element (16-byte stride)", out + 4 * i, e, 3);
        double sum = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
        corpus_expect_f32_bound("float3 length squared", i, lengths[i], sum,
                                0x1p-22 * sum);
    }

    kiln_buffer *buffers[] = {sizes_buffer, in_buffer, out_buffer, length_buffer};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(sizes_kernel);
    kiln_kernel_release(array_kernel);
    kiln_program_release(program);
    free(in), free(out), free(lengths);
}

/* ---- relational built-ins -------------------------------------------------------------- */

/* Exact. */
static void vector_relational(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 1000, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "vector_relational", NULL);
    kiln_kernel *selections = test_kernel(program, "selections");
    kiln_kernel *classify = test_kernel(program, "classify");

    float *x = CORPUS_ARRAY(float, 4 * N), *y = CORPUS_ARRAY(float, 4 * N);
    int32_t *m = CORPUS_ARRAY(int32_t, 4 * N);
    test_random_floats(x, 4 * N, -10, 10);
    test_random_floats(y, 4 * N, -10, 10);
    corpus_random_u32((uint32_t *)m, 4 * N);
    for (size_t k = 0; k < 4 * N; k += 13)
        x[k] = 2e30f; /* makes all(x < 1e30f) false now and then */
    for (size_t i = 0; i < N; i += 3) /* all lanes negative: all() true */
        for (int c = 0; c < 4; ++c)
            m[4 * i + c] |= INT32_MIN;
    for (size_t i = 1; i < N; i += 5) /* all lanes non-negative: any() false */
        for (int c = 0; c < 4; ++c)
            m[4 * i + c] &= INT32_MAX;
    kiln_buffer *x_buffer = test_buffer_from(context, x, 16 * N);
    kiln_buffer *y_buffer = test_buffer_from(context, y, 16 * N);
    kiln_buffer *m_buffer = test_buffer_from(context, m, 16 * N);
    kiln_buffer *fout = corpus_poisoned_buffer(context, 3 * 16 * N);
    kiln_buffer *iout = corpus_poisoned_buffer(context, 2 * 16 * N);
    kiln_buffer *sout = corpus_poisoned_buffer(context, 5 * 4 * N);
    CORPUS_LAUNCH(selections, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(y_buffer),
                  KILN_ARG_BUFFER(m_buffer), KILN_ARG_BUFFER(fout),
                  KILN_ARG_BUFFER(iout), KILN_ARG_BUFFER(sout), KILN_ARG_INT(N));
    float *f = CORPUS_ARRAY(float, 12 * N), *f_expected = CORPUS_ARRAY(float, 12 * N);
    int32_t *k = CORPUS_ARRAY(int32_t, 8 * N), *k_expected = CORPUS_ARRAY(int32_t, 8 * N);
    int32_t *s = CORPUS_ARRAY(int32_t, 5 * N), *s_expected = CORPUS_ARRAY(int32_t, 5 * N);
    corpus_read(fout, f, 3 * 16 * N);
    corpus_read(iout, k, 2 * 16 * N);
    corpus_read(sout, s, 5 * 4 * N);
    for (size_t i = 0; i < N; ++i) {
        int any_m = 0, all_m = 1, any_greater = 0, all_small = 1;
        for (int c = 0; c < 4; ++c) {
            size_t e = 4 * i + c;
            uint32_t mask = (uint32_t)m[e];
            f_expected[12 * i + c] = m[e] < 0 ? y[e] : x[e];
            f_expected[12 * i + 4 + c] = x[e] < y[e] ? y[e] : x[e];
            f_expected[12 * i + 8 + c] =
                float_of((bits_of(x[e]) & ~mask) | (bits_of(y[e]) & mask));
            k_expected[8 * i + c] = m[e] > 0 ? ~m[e] : m[e];
            k_expected[8 * i + 4 + c] =
                (int32_t)(((uint32_t)m[e] & ~0x00FF00FFu) | (0x0F0F0F0Fu & 0x00FF00FFu));
            any_m |= m[e] < 0;
            all_m &= m[e] < 0;
            any_greater |= x[e] > y[e];
            all_small &= x[e] < 1.0e30f;
        }
        int32_t e5[5] = {any_m, all_m, any_greater, all_small, m[4 * i] ? -7 : 7};
        memcpy(s_expected + 5 * i, e5, sizeof e5);
    }
    corpus_expect_f32_bits("float4 select(m) select(x<y) bitselect", f, f_expected, 12 * N);
    corpus_expect_i32("int4 select bitselect", k, k_expected, 8 * N);
    corpus_expect_i32("any(m) all(m) any(x>y) all(x<1e30) select(scalar)", s,
                      s_expected, 5 * N);

    /* Classification of special values. */
    float *values = CORPUS_ARRAY(float, N);
    test_random_floats(values, N, -1e6f, 1e6f);
    const float specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f,
                              1e-40f, -1e-40f, 3.4e38f, -1.0f};
    for (size_t i = 0; i < N; i += 3)
        values[i] = specials[test_random_u64() % (sizeof specials / sizeof specials[0])];
    kiln_buffer *v_buffer = test_buffer_from(context, values, 4 * N);
    kiln_buffer *cs = corpus_poisoned_buffer(context, 4 * 4 * N);
    kiln_buffer *cv = corpus_poisoned_buffer(context, 3 * 16 * N);
    CORPUS_LAUNCH(classify, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(v_buffer), KILN_ARG_BUFFER(cs), KILN_ARG_BUFFER(cv),
                  KILN_ARG_INT(N));
    int32_t *c_scalar = CORPUS_ARRAY(int32_t, 4 * N), *c_scalar_expected = CORPUS_ARRAY(int32_t, 4 * N);
    int32_t *c_vector = CORPUS_ARRAY(int32_t, 12 * N), *c_vector_expected = CORPUS_ARRAY(int32_t, 12 * N);
    corpus_read(cs, c_scalar, 4 * 4 * N);
    corpus_read(cv, c_vector, 3 * 16 * N);
    for (size_t i = 0; i < N; ++i) {
        float v = values[i];
        int32_t e[4] = {isnan(v) ? 1 : 0, isinf(v) ? 1 : 0, isfinite(v) ? 1 : 0,
                        signbit(v) ? 1 : 0};
        memcpy(c_scalar_expected + 4 * i, e, sizeof e);
        for (int c = 0; c < 4; ++c) {
            float w = values[4 * (i / 4) + c];
            c_vector_expected[12 * i + c] = isnan(w) ? -1 : 0;
            c_vector_expected[12 * i + 4 + c] = isinf(w) ? -1 : 0;
            c_vector_expected[12 * i + 8 + c] = w != w ? -1 : 0;
        }
    }
    corpus_expect_i32("isnan isinf isfinite signbit (scalar: 1/0)", c_scalar,
                      c_scalar_expected, 4 * N);
    corpus_expect_i32("isnan isinf isnotequal (float4: -1/0)", c_vector,
                      c_vector_expected, 12 * N);

    kiln_buffer *buffers[] = {x_buffer, y_buffer, m_buffer, fout, iout, sout,
                              v_buffer, cs, cv};
    corpus_release_buffers(buffers, 9);
    kiln_kernel_release(selections);
    kiln_kernel_release(classify);
    kiln_program_release(program);
    free(x), free(y), free(m), free(f), free(f_expected), free(k), free(k_expected);
    free(s), free(s_expected), free(values), free(c_scalar), free(c_scalar_expected);
    free(c_vector), free(c_vector_expected);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(vector_literals),
        KILN_TEST(vector_conditional),
        KILN_TEST(swizzles),
        KILN_TEST(vload_vstore),
        KILN_TEST(vector_sizes),
        KILN_TEST(vector_relational),
    };
    return kiln_test_main("corpus_vector", tests, sizeof tests / sizeof tests[0]);
}
