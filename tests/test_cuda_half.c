/*
 * cuda_fp16.h and cuda_bf16.h (tests/kernels/cuda/half_precision.cu):
 * __half, __half2, __nv_bfloat16 and __nv_bfloat162, their conversions,
 * arithmetic, comparisons and operators, on every backend: natively on
 * CUDA (NVRTC's own headers), through translate/cxx_half.c on OpenCL.
 * Inputs are random 16-bit patterns (never zero: every exponent, so sums
 * and products overflow to infinity, fall to subnormals, and take NaN and
 * infinities in), and floats of which a quarter lie exactly half-way
 * between two halves.  The reference computes each result exactly (as
 * integers) and rounds it once to nearest even, as CUDA's hardware does;
 * a NaN result may be any NaN.  The math functions (hexp, h2exp...) over
 * every 16-bit input against the correctly rounded result.  Also: what
 * stays refused, by name and line.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY(type, count) \
    ((type *)test_temp_alloc((size_t)(count) * sizeof(type)))

/* ---- the reference: exact values rounded once ----------------------------------- */

/* A binary16-like format: significand bits with the hidden one, bias,
 * exponent field's width. */
typedef struct format {
    int precision, bias, exponent_bits;
} format;

static const format HALF = {11, 15, 5};
static const format BF16 = {8, 127, 8};

typedef unsigned __int128 u128;

/* sign * magnitude * 2^exponent, rounded to nearest even in `f`. */
static uint16_t round_exact(const format *f, int sign, u128 magnitude,
                            int exponent)
{
    uint16_t s = sign ? (uint16_t)(1u << (f->exponent_bits + f->precision - 1)) : 0;
    if (magnitude == 0)
        return s;
    int top = 127;
    while (!((magnitude >> top) & 1))
        --top;
    int e = top + exponent;                      /* value in [2^e, 2^(e+1)) */
    int quantum = e - (f->precision - 1);
    int min_quantum = 1 - f->bias - (f->precision - 1);
    if (quantum < min_quantum)
        quantum = min_quantum;
    int shift = quantum - exponent;               /* bits to drop */
    u128 n;
    if (shift <= 0) {
        n = magnitude << -shift;
    } else if (shift > 127) {
        n = 0; /* below half the smallest subnormal */
    } else {
        n = magnitude >> shift;
        u128 rest = magnitude - (n << shift), halfway = (u128)1 << (shift - 1);
        if (rest > halfway || (rest == halfway && (n & 1)))
            ++n;
    }
    u128 hidden = (u128)1 << (f->precision - 1);
    if (n >= 2 * hidden) { /* the rounding carried into the next binade */
        n >>= 1;
        ++quantum;
    }
    unsigned max_field = (1u << f->exponent_bits) - 1;
    if (n < hidden) /* subnormal (or zero) */
        return (uint16_t)(s | (uint16_t)n);
    long field = quantum + (f->precision - 1) + f->bias;
    if (field >= (long)max_field)
        return (uint16_t)(s | (max_field << (f->precision - 1)));
    return (uint16_t)(s | (uint16_t)((unsigned long)field << (f->precision - 1)) |
                      (uint16_t)(n - hidden));
}

static int is_nan_bits(const format *f, uint16_t h)
{
    unsigned exp_mask = ((1u << f->exponent_bits) - 1) << (f->precision - 1);
    return (h & exp_mask) == exp_mask && (h & ((1u << (f->precision - 1)) - 1));
}

static int is_inf_bits(const format *f, uint16_t h)
{
    unsigned exp_mask = ((1u << f->exponent_bits) - 1) << (f->precision - 1);
    return (h & 0x7fffu) == exp_mask;
}

/* A finite 16-bit value as sign, integer significand, exponent. */
static void decompose(const format *f, uint16_t h, int *sign, u128 *m, int *e)
{
    unsigned frac_bits = (unsigned)f->precision - 1;
    unsigned field = (h >> frac_bits) & ((1u << f->exponent_bits) - 1);
    *sign = (h >> 15) & 1;
    *m = h & ((1u << frac_bits) - 1);
    if (field != 0)
        *m += (u128)1 << frac_bits;
    *e = (field ? (int)field : 1) - f->bias - (int)frac_bits;
}

static double to_double(const format *f, uint16_t h)
{
    if (is_nan_bits(f, h))
        return NAN;
    if (is_inf_bits(f, h))
        return (h & 0x8000u) ? -INFINITY : INFINITY;
    int sign, e;
    u128 m;
    decompose(f, h, &sign, &m, &e);
    double v = ldexp((double)m, e);
    return sign ? -v : v;
}

/* A double (a float's value, or a correctly rounded quotient) rounded. */
static uint16_t from_double(const format *f, double d)
{
    if (isnan(d))
        return 0x7fff;
    if (isinf(d))
        return d < 0 ? (uint16_t)(0x8000u | (0x7fffu & ~((1u << (f->precision - 1)) - 1)))
                     : (uint16_t)(0x7fffu & ~((1u << (f->precision - 1)) - 1));
    int e;
    double m = frexp(fabs(d), &e); /* d = m * 2^e, m in [0.5, 1) */
    u128 integer = (u128)(uint64_t)ldexp(m, 53);
    return round_exact(f, signbit(d) != 0, integer, e - 53);
}

/* sign_a*|a| + sign_b*|b|, exactly, rounded; terms far apart in exponent
 * keep the smaller as a sticky bit. */
static uint16_t sum_exact(const format *f, int sa, u128 ma, int ea, int sb,
                          u128 mb, int eb)
{
    if (ma == 0 && mb == 0)
        return round_exact(f, sa && sb, 0, 0);
    if (ma == 0)
        return round_exact(f, sb, mb, eb);
    if (mb == 0)
        return round_exact(f, sa, ma, ea);
    if (ea < eb) { /* a is the one of larger exponent */
        int ts = sa; sa = sb; sb = ts;
        u128 tm = ma; ma = mb; mb = tm;
        int te = ea; ea = eb; eb = te;
    }
    if (ea - eb > 90) {
        ma <<= 30;
        ea -= 30;
        mb = 1;
        eb = ea;
    } else {
        ma <<= (ea - eb);
        ea = eb;
    }
    if (sa == sb)
        return round_exact(f, sa, ma + mb, ea);
    if (ma == mb) /* an exact zero of opposite terms is +0 */
        return round_exact(f, 0, 0, ea);
    if (ma >= mb)
        return round_exact(f, sa, ma - mb, ea);
    return round_exact(f, sb, mb - ma, ea);
}

typedef enum op { ADD, SUB, MUL, DIV, FMA } op;

/* What CUDA gives for `op` on 16-bit values: one rounding of the exact
 * result (a quotient is exact enough in double: 53 >= 2 * 11 + 2). */
static uint16_t reference(const format *f, op o, uint16_t a, uint16_t b, uint16_t c)
{
    double x = to_double(f, a), y = to_double(f, b), z = to_double(f, c);
    int special = !isfinite(x) || !isfinite(y) || (o == FMA && !isfinite(z));
    if (special || o == DIV) {
        double r = o == ADD ? x + y : o == SUB ? x - y : o == MUL ? x * y
                 : o == DIV ? x / y : x * y + z;
        return from_double(f, r);
    }
    int sa, sb, sc, ea, eb, ec;
    u128 ma, mb, mc;
    decompose(f, a, &sa, &ma, &ea);
    decompose(f, b, &sb, &mb, &eb);
    decompose(f, c, &sc, &mc, &ec);
    switch (o) {
    case ADD: return sum_exact(f, sa, ma, ea, sb, mb, eb);
    case SUB: return sum_exact(f, sa, ma, ea, !sb, mb, eb);
    case MUL: return round_exact(f, sa ^ sb, ma * mb, ea + eb);
    default:  return sum_exact(f, sa ^ sb, ma * mb, ea + eb, sc, mc, ec);
    }
}

static uint16_t neg_bits(uint16_t h) { return (uint16_t)(h ^ 0x8000u); }

/* CUDA's __hmax/__hmin: a NaN loses to a number; two NaNs give NaN. */
static uint16_t max_min(const format *f, uint16_t a, uint16_t b, int max)
{
    double x = to_double(f, a), y = to_double(f, b);
    if (isnan(x) && isnan(y))
        return 0x7fff;
    if (isnan(x))
        return b;
    if (isnan(y))
        return a;
    return (max ? x > y : x < y) ? a : b;
}

static void expect_bits(const format *f, const char *what, size_t i,
                        uint16_t actual, uint16_t expected, uint16_t a,
                        uint16_t b, uint16_t c)
{
    if (is_nan_bits(f, expected) ? is_nan_bits(f, actual) : actual == expected)
        return;
    fail_msg("%s[%zu] = 0x%04x (%g), expected 0x%04x (%g) from 0x%04x 0x%04x 0x%04x",
             what, i, actual, to_double(f, actual), expected,
             to_double(f, expected), a, b, c);
}

/* ---- inputs ------------------------------------------------------------------- */

/* Any 16-bit pattern but the zeros. */
static void random_bits(uint16_t *out, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        do
            out[i] = (uint16_t)test_random_u64();
        while ((out[i] & 0x7fffu) == 0);
    }
}

/* Floats for the conversions: a quarter half-way between two values of
 * `f`, the rest spread over its range and past it (subnormals, overflow),
 * a few NaN and infinities. */
static void random_floats_for(const format *f, float *out, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = test_random_u64();
        if (i % 4 == 0) {
            uint16_t h;
            random_bits(&h, 1);
            if (is_nan_bits(f, h) || is_inf_bits(f, h))
                h = (uint16_t)(0x1234u | (h & 0x8000u));
            uint16_t next = (uint16_t)(h + 1);
            if (is_nan_bits(f, next) || is_inf_bits(f, next)) {
                out[i] = (float)to_double(f, h);
                continue;
            }
            out[i] = (float)((to_double(f, h) + to_double(f, next)) / 2);
        } else if (i % 61 == 1) {
            out[i] = (i % 3 == 0) ? NAN : (i % 3 == 1) ? INFINITY : -INFINITY;
        } else {
            /* exponents from below the subnormals to past the largest */
            int low = f == &HALF ? 100 : 1, high = f == &HALF ? 145 : 254;
            uint32_t exponent = (uint32_t)(low + (int)(r % (uint64_t)(high - low + 1)));
            uint32_t bits = (uint32_t)((r >> 8) & 0x7fffffu) | (exponent << 23) |
                            (uint32_t)((r >> 40) & 1u) << 31;
            memcpy(&out[i], &bits, sizeof bits);
        }
    }
}

/* ---- __half ----------------------------------------------------------------------- */

static kiln_program *half_program(kiln_context *context)
{
    return test_temp_program_file(context, "tests/kernels/cuda/half_precision.cu",
                                  KILN_LANGUAGE_CUDA_C);
}

static int comparisons(double x, double y)
{
    int nan = isnan(x) || isnan(y);
    return (x == y) << 0 | (x != y) << 1 | (x < y) << 2 | (x <= y) << 3 |
           (x > y) << 4 | (x >= y) << 5 | (!nan && x != y) << 6 |
           (nan || x == y) << 7 | (nan || x < y) << 8 | (nan || x >= y) << 9 |
           (isnan(x) != 0) << 10 | (isinf(x) ? (x > 0 ? 2 : 0) : 1) << 11;
}

static void test_half(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(half_program(context), "half_ops");
    enum { N = 4099 };
    const format *f = &HALF;
    uint16_t *a = ARRAY(uint16_t, N), *b = ARRAY(uint16_t, N), *c = ARRAY(uint16_t, N);
    float *x = ARRAY(float, N), *widened = ARRAY(float, 3 * N);
    uint16_t *out = ARRAY(uint16_t, 16 * N);
    int *flags = ARRAY(int, 2 * N);
    random_bits(a, N);
    random_bits(b, N);
    random_bits(c, N);
    random_floats_for(f, x, N);
    /* an fma that float's rounding would put exactly half-way between two
     * halves: (1 + 2^-10) - (1 - 2^-10) 2^-11 * (1 + 2^-10) is just above
     * 1 + 2^-11, so it rounds up to 1 + 2^-10, not to even (1) */
    a[0] = 0x8ffe;
    b[0] = 0x3c01;
    c[0] = 0x3c01;
    /* infinities and NaNs, each side (random patterns rarely draw them) */
    a[1] = 0x7c00, a[2] = 0xfc00, a[3] = 0x7e00, a[4] = 0x7c01;
    b[5] = 0x7c00, b[6] = 0xfc00, b[7] = 0xfe00, c[8] = 0xfc00;
    a[9] = 0x7c00, b[9] = 0xfc00;
    kiln_buffer *a_b = test_temp_buffer_from(context, a, N * sizeof *a);
    kiln_buffer *b_b = test_temp_buffer_from(context, b, N * sizeof *b);
    kiln_buffer *c_b = test_temp_buffer_from(context, c, N * sizeof *c);
    kiln_buffer *x_b = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *out_b = test_temp_buffer(context, 16 * N * sizeof *out);
    kiln_buffer *flags_b = test_temp_buffer(context, 2 * N * sizeof *flags);
    kiln_buffer *wide_b = test_temp_buffer(context, 3 * N * sizeof *widened);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                KILN_ARG_BUFFER(a_b), KILN_ARG_BUFFER(b_b), KILN_ARG_BUFFER(c_b),
                KILN_ARG_BUFFER(x_b), KILN_ARG_BUFFER(out_b),
                KILN_ARG_BUFFER(flags_b), KILN_ARG_BUFFER(wide_b), KILN_ARG_INT(N));
    test_read(out_b, out, 16 * N * sizeof *out);
    test_read(flags_b, flags, 2 * N * sizeof *flags);
    test_read(wide_b, widened, 3 * N * sizeof *widened);
    for (size_t i = 0; i < N; ++i) {
        uint16_t ha = a[i], hb = b[i], hc = c[i];
        const uint16_t *o = out + 16 * i;
        uint16_t xh = from_double(f, x[i]);
        uint16_t acc = reference(f, MUL, reference(f, ADD, ha, hb, 0), hc, 0);
        uint16_t q_lo = hc, q_hi = xh;
        uint16_t expected[16] = {
            reference(f, ADD, ha, hb, 0), reference(f, SUB, ha, hb, 0),
            reference(f, MUL, ha, hb, 0), reference(f, DIV, ha, hb, 0),
            reference(f, FMA, ha, hb, hc), max_min(f, ha, hb, 1),
            max_min(f, ha, hb, 0), neg_bits(ha), (uint16_t)(hb & 0x7fffu), xh, acc,
            from_double(f, (double)(x[i] * 3.0f)),
            reference(f, FMA, ha, q_lo, hc), reference(f, FMA, hb, q_hi, hc),
            reference(f, MUL, reference(f, ADD, ha, q_lo, 0), ha, 0),
            reference(f, MUL, hb, q_lo, 0),
        };
        static const char *const names[16] = {
            "a + b", "__hsub", "a * b", "__hdiv", "__hfma", "__hmax", "__hmin",
            "-a", "__habs", "__float2half", "+= *=", "__float2half_rn",
            "__hfma2 (low)", "__hfma2 (high)", "__hadd2 * (low)",
            "__hmul2 __lowhigh2highlow (high)",
        };
        for (int k = 0; k < 16; ++k)
            expect_bits(f, names[k], i, o[k], expected[k], ha, hb, hc);
        double da = to_double(f, ha), db = to_double(f, hb);
        int mask = comparisons(da, db);
        double qlo = to_double(f, q_lo), qhi = to_double(f, q_hi);
        mask |= (da > qlo && db > qhi) << 13;
        if (flags[2 * i] != mask)
            fail_msg("comparisons[%zu] = 0x%x, expected 0x%x (0x%04x, 0x%04x)", i,
                     flags[2 * i], mask, ha, hb);
        int truncated = isnan(da) ? 0 : isinf(da) ? (da > 0 ? 2147483647 : -2147483647 - 1)
                                                  : (int)da;
        if (flags[2 * i + 1] != truncated)
            fail_msg("__half2int_rz[%zu] = %d, expected %d (0x%04x)", i,
                     flags[2 * i + 1], truncated, ha);
        double wide[3] = {da, db, qhi + da};
        for (int k = 0; k < 3; ++k)
            if (!(isnan(wide[k]) ? isnan(widened[3 * i + k])
                                 : (float)wide[k] == widened[3 * i + k]))
                fail_msg("widened[%zu][%d] = %g, expected %g", i, k,
                         (double)widened[3 * i + k], wide[k]);
    }
}

/* ---- __nv_bfloat16 -------------------------------------------------------------- */

static void test_bf16(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(half_program(context), "bf16_ops");
    enum { N = 4099 };
    const format *f = &BF16;
    uint16_t *a = ARRAY(uint16_t, N), *b = ARRAY(uint16_t, N), *c = ARRAY(uint16_t, N);
    float *x = ARRAY(float, N);
    int *ints = ARRAY(int, N), *flags = ARRAY(int, N);
    uint16_t *out = ARRAY(uint16_t, 12 * N);
    random_bits(a, N);
    random_bits(b, N);
    random_bits(c, N);
    random_floats_for(f, x, N);
    /* integers that float cannot hold, some near bfloat16's ties */
    test_random_ints(ints, N, -2000000000, 2000000000);
    for (size_t i = 0; i < N; i += 3)
        ints[i] = (int)((1u << 24) + (1u << 16) + (unsigned)(i % 5)) * (i % 2 ? -1 : 1);
    /* an fma whose product leaves float's range and comes back:
     * 1.5 2^127 * 1.5 - 1.75 2^127 = 2^126 */
    a[0] = 0x7f40;
    b[0] = 0x3fc0;
    c[0] = 0xff60;
    a[1] = 0x7f80, a[2] = 0xff80, a[3] = 0x7fc0, b[4] = 0x7f81;
    b[5] = 0x7f80, c[6] = 0xff80, c[7] = 0x7fc0, a[8] = 0x7f80, c[8] = 0xff80;
    kiln_buffer *a_b = test_temp_buffer_from(context, a, N * sizeof *a);
    kiln_buffer *b_b = test_temp_buffer_from(context, b, N * sizeof *b);
    kiln_buffer *c_b = test_temp_buffer_from(context, c, N * sizeof *c);
    kiln_buffer *x_b = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *flags_b = test_temp_buffer_from(context, ints, N * sizeof *ints);
    kiln_buffer *out_b = test_temp_buffer(context, 12 * N * sizeof *out);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 128)), KILN_DIM1(128), 0,
                KILN_ARG_BUFFER(out_b), KILN_ARG_BUFFER(a_b), KILN_ARG_BUFFER(b_b),
                KILN_ARG_BUFFER(c_b), KILN_ARG_BUFFER(x_b), KILN_ARG_BUFFER(flags_b),
                KILN_ARG_INT(N));
    test_read(out_b, out, 12 * N * sizeof *out);
    test_read(flags_b, flags, N * sizeof *flags);
    for (size_t i = 0; i < N; ++i) {
        uint16_t ha = a[i], hb = b[i], hc = c[i];
        const uint16_t *o = out + 12 * i;
        double da = to_double(f, ha), db = to_double(f, hb), dc = to_double(f, hc);
        uint16_t xb = from_double(f, x[i]);
        uint16_t p_lo = from_double(f, (float)da), p_hi = xb;
        uint16_t expected[12] = {
            from_double(f, (double)((float)da + (float)db)),
            reference(f, ADD, ha, hb, 0), reference(f, MUL, ha, hb, 0),
            reference(f, FMA, ha, hb, hc), xb, reference(f, DIV, ha, hb, 0),
            max_min(f, ha, hc, 1), reference(f, FMA, p_lo, hb, hb),
            reference(f, FMA, p_hi, hc, hc),
            from_double(f, (double)((float)to_double(f, p_lo) * (float)dc)),
            reference(f, SUB, ha, hc, 0), from_double(f, (double)ints[i]),
        };
        static const char *const names[12] = {
            "(floatX)((float)a + (float)b)", "__hadd", "a * b", "__hfma",
            "__float2bfloat16", "__hdiv", "__hmax", "__hfma2 (low)",
            "__hfma2 (high)", "__low2float * __high2float", "-=",
            "__int2bfloat16_rn",
        };
        for (int k = 0; k < 12; ++k)
            expect_bits(f, names[k], i, o[k], expected[k], ha, hb, hc);
        int mask = (da < db) | (isnan(dc) != 0) << 1 | (db == dc) << 2 | (da > dc) << 3;
        if (flags[i] != mask)
            fail_msg("bf16 comparisons[%zu] = 0x%x, expected 0x%x", i, flags[i], mask);
    }
}

/* llm.c's packed 128-bit loads of floatX. */
static void test_bf16_packed(void **state)
{
    kiln_context *context = test_context(state);
    kiln_kernel *kernel = test_temp_kernel(half_program(context), "bf16_packed_sum");
    enum { N = 8 * 257 };
    float *values = ARRAY(float, N), *sums = ARRAY(float, N / 8),
          *expected = ARRAY(float, N / 8);
    uint16_t *in = ARRAY(uint16_t, N);
    test_random_floats(values, N, -8.0f, 8.0f);
    for (size_t i = 0; i < N; ++i)
        in[i] = from_double(&BF16, values[i]);
    for (size_t i = 0; i < N / 8; ++i) {
        float sum = 0.0f;
        for (int k = 0; k < 8; ++k)
            sum += (float)to_double(&BF16, in[8 * i + k]);
        expected[i] = sum;
    }
    kiln_buffer *in_b = test_temp_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *out_b = test_temp_buffer(context, N / 8 * sizeof *sums);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N / 8, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(out_b), KILN_ARG_BUFFER(in_b), KILN_ARG_INT(N));
    test_read(out_b, sums, N / 8 * sizeof *sums);
    for (size_t i = 0; i < N / 8; ++i)
        if (sums[i] != expected[i])
            fail_msg("bf16_packed_sum[%zu] = %.9g, expected %.9g", i,
                     (double)sums[i], (double)expected[i]);
}

/* Code that names only half and half2, as most of it does (LeetCUDA's
 * style: pairs through a reinterpret_cast macro). */
static void test_half_names_only(void **state)
{
    kiln_context *context = test_context(state);
    static const char source[] =
        "#include <cuda_fp16.h>\n"
        "#define HALF2(value) (reinterpret_cast<half2 *>(&(value))[0])\n"
        "__global__ void add_f16x2(half *a, half *b, half *c, int N)\n"
        "{\n"
        "    int idx = 2 * (blockIdx.x * blockDim.x + threadIdx.x);\n"
        "    if (idx < N) {\n"
        "        half2 x = HALF2(a[idx]);\n"
        "        half2 y = HALF2(b[idx]);\n"
        "        HALF2(c[idx]) = __hadd2(x, y);\n"
        "    }\n"
        "}\n"
        "__global__ void dot_f16(half *a, half *b, half *c, int K)\n"
        "{\n"
        "    int n = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    half psum = 0.0;\n"
        "    for (int k = 0; k < K; k++)\n"
        "        psum += a[n * K + k] * b[k];\n"
        "    c[n] = psum;\n"
        "}\n";
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C,
                                  .source_name = "names_only.cu"};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &program));
    kiln_kernel *kernel = NULL;
    kiln_status status = kiln_kernel_create(program, "add_f16x2", &kernel);
    if (status != KILN_OK) {
        kiln_program_release(program);
        fail_msg("add_f16x2: %s", kiln_last_error());
    }
    enum { N = 2 * 1001 };
    uint16_t *a = ARRAY(uint16_t, N), *b = ARRAY(uint16_t, N), *c = ARRAY(uint16_t, N);
    random_bits(a, N);
    random_bits(b, N);
    kiln_buffer *a_b = test_temp_buffer_from(context, a, N * sizeof *a);
    kiln_buffer *b_b = test_temp_buffer_from(context, b, N * sizeof *b);
    kiln_buffer *c_b = test_temp_buffer(context, N * sizeof *c);
    kiln_launch_config config = test_config_1d(N / 2, 64);
    kiln_arg args[] = {KILN_ARG_BUFFER(a_b), KILN_ARG_BUFFER(b_b),
                       KILN_ARG_BUFFER(c_b), KILN_ARG_INT(N)};
    status = kiln_launch(kernel, &config, 4, args);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    if (status != KILN_OK)
        fail_msg("launch: %s", kiln_last_error());
    test_read(c_b, c, N * sizeof *c);
    for (size_t i = 0; i < N; ++i)
        expect_bits(&HALF, "__hadd2", i, c[i], reference(&HALF, ADD, a[i], b[i], 0),
                    a[i], b[i], 0);
    /* a half accumulator in private memory: psum += a * b, rounded at each
     * step (K = 2 of N / 2 rows of a, b's first 2).  CUDA's __hmul and
     * __hadd may be contracted into one fused multiply-add (only the _rn
     * forms promise not to be), and NVRTC does contract this one: the
     * second step is either rounding. */
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &program));
    status = kiln_kernel_create(program, "dot_f16", &kernel);
    if (status != KILN_OK) {
        kiln_program_release(program);
        fail_msg("dot_f16: %s", kiln_last_error());
    }
    kiln_arg dot_args[] = {KILN_ARG_BUFFER(a_b), KILN_ARG_BUFFER(b_b),
                           KILN_ARG_BUFFER(c_b), KILN_ARG_INT(2)};
    status = kiln_launch(kernel, &config, 4, dot_args);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    if (status != KILN_OK)
        fail_msg("launch: %s", kiln_last_error());
    test_read(c_b, c, N / 2 * sizeof *c);
    for (size_t n = 0; n < N / 2; ++n) {
        uint16_t first = reference(&HALF, MUL, a[n * 2], b[0], 0);
        uint16_t fused = reference(&HALF, FMA, a[n * 2 + 1], b[1], first);
        uint16_t psum = reference(&HALF, ADD, first,
                                  reference(&HALF, MUL, a[n * 2 + 1], b[1], 0), 0);
        if (c[n] == fused && !is_nan_bits(&HALF, fused))
            continue;
        expect_bits(&HALF, "psum += a * b", n, c[n], psum, a[n * 2], a[n * 2 + 1], b[1]);
    }
}

/* ---- math: every input, correctly rounded ---------------------------------------- */

/* A long double (64 bits of significand at least) rounded once. */
static uint16_t from_long_double(const format *f, long double d)
{
    if (isnan(d) || isinf(d))
        return from_double(f, (double)d);
    int e;
    long double m = frexpl(fabsl(d), &e); /* d = m * 2^e, m in [0.5, 1) */
    u128 integer = (u128)(uint64_t)ldexpl(m, 64);
    return round_exact(f, signbit(d) != 0, integer, e - 64);
}

static long double rsqrt_l(long double x) { return 1.0L / sqrtl(x); }
static long double rcp_l(long double x) { return 1.0L / x; }
static long double exp10_l(long double x) { return powl(10.0L, x); }

/* CUDA 13's half and bfloat16 math is correctly rounded for every input
 * (measured on an H200, each function, all 65536 inputs of each type), so
 * the reference is the exact value rounded once: long double's 64 bits
 * are enough, no exact result lying within 2^-29 of its value from a
 * midpoint between two 16-bit values but 2^-25 and 2^-134 (exp2, exactly
 * midpoints).  Computing in float and rounding again gets some inputs
 * wrong (on PoCL: half's hexp, hexp2, hlog10, hsin, hcos; bfloat16's
 * hexp10). */
static const struct {
    const char *name;
    long double (*exact)(long double);
} math_functions[16] = {
    {"hexp", expl},    {"hexp2", exp2l},   {"hexp10", exp10_l}, {"hlog", logl},
    {"hlog2", log2l},  {"hlog10", log10l}, {"hsqrt", sqrtl},    {"hrsqrt", rsqrt_l},
    {"hrcp", rcp_l},   {"hsin", sinl},     {"hcos", cosl},      {"htanh", tanhl},
    {"hfloor", floorl}, {"hceil", ceill},  {"htrunc", truncl},  {"hrint", rintl},
};

/* One type's math over all 65536 patterns, one value a thread, then the
 * same through its pair type's h2 forms. */
static void math_all_inputs(void **state, const format *f, const char *scalar,
                            const char *pair)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_temp_program_file(
        context, "tests/kernels/cuda/half_math.cu", KILN_LANGUAGE_CUDA_C);
    enum { N = 65536, F = 16 };
    uint16_t *x = ARRAY(uint16_t, N), *y = ARRAY(uint16_t, F * N);
    uint16_t *expected = ARRAY(uint16_t, F * N);
    /* every pattern, shuffled so that a pair's lanes differ in kind */
    for (size_t i = 0; i < N; ++i)
        x[i] = (uint16_t)i;
    for (size_t i = N - 1; i > 0; --i) {
        size_t j = (size_t)(test_random_u64() % (i + 1));
        uint16_t t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
    for (size_t i = 0; i < N; ++i) {
        long double v = (long double)to_double(f, x[i]);
        for (int k = 0; k < F; ++k)
            expected[F * i + k] = from_long_double(f, math_functions[k].exact(v));
    }
    kiln_buffer *x_b = test_temp_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *y_b = test_temp_buffer(context, F * N * sizeof *y);
    for (int pairs = 0; pairs < 2; ++pairs) {
        kiln_kernel *kernel = test_temp_kernel(program, pairs ? pair : scalar);
        int n = pairs ? N / 2 : N;
        TEST_LAUNCH(kernel, KILN_DIM1(test_blocks((size_t)n, 256)), KILN_DIM1(256), 0,
                    KILN_ARG_BUFFER(x_b), KILN_ARG_BUFFER(y_b), KILN_ARG_INT(n));
        test_read(y_b, y, F * N * sizeof *y);
        size_t wrong = 0;
        for (size_t i = 0; i < N; ++i)
            for (int k = 0; k < F; ++k) {
                /* a pair's results: lane i % 2 of y[F * (i / 2) + k] */
                uint16_t got = pairs ? y[2 * (F * (i / 2) + (size_t)k) + i % 2]
                                     : y[F * i + k];
                uint16_t want = expected[F * i + k];
                if (is_nan_bits(f, want) ? is_nan_bits(f, got) : got == want)
                    continue;
                if (wrong++ < 8)
                    printf("# %s %s%s(0x%04x = %.9g) = 0x%04x (%.9g), expected 0x%04x (%.9g)\n",
                           scalar, pairs ? "h2" : "", math_functions[k].name +
                           (pairs ? 1 : 0), x[i], to_double(f, x[i]), got,
                           to_double(f, got), want, to_double(f, want));
            }
        if (wrong != 0)
            fail_msg("%s: %zu of %d results are not the correctly rounded ones",
                     pairs ? pair : scalar, wrong, F * N);
    }
}

static void test_half_math(void **state)
{
    math_all_inputs(state, &HALF, "half_math", "half2_math");
}

static void test_bf16_math(void **state)
{
    math_all_inputs(state, &BF16, "bf16_math", "bf162_math");
}

/* ---- what stays refused ----------------------------------------------------------- */

static void test_refused(void **state)
{
    kiln_context *context = test_context(state);
    if (strcmp(test_backend(state), "opencl") != 0) {
        printf("# NVRTC has these: only the translation refuses them\n");
        skip();
    }
    static const struct {
        const char *source, *mentions, *line;
    } cases[] = {
        {"#include <cuda_fp16.h>\n__global__ void k(__half *p)\n{\n"
         "    p[0] = htanh_approx(p[0]);\n}\n",
         "'htanh_approx'", "refused.cu:4:"},
        {"#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16 *p, float *x)\n"
         "{\n\n    p[0] = __float2bfloat16_rz(x[0]);\n}\n",
         "'__float2bfloat16_rz'", "refused.cu:5:"},
        {"#include <cuda_fp16.h>\n__global__ void k(__half *p, double *x)\n{\n"
         "    p[0] = __double2half_rd(x[0]);\n}\n",
         "'__double2half_rd'", "refused.cu:4:"},
        {"#include <cuda_fp16.h>\n__global__ void k(__half *p)\n{\n"
         "    p[0] = __hadd_sat(p[0], p[1]);\n}\n",
         "'__hadd_sat'", "refused.cu:4:"},
        {"#include <cuda_bf16.h>\n__global__ void k(__nv_bfloat16 *p, long long *q)\n{\n"
         "    q[0] = __bfloat162ll_rz(p[0]);\n}\n",
         "'__bfloat162ll_rz'", "refused.cu:4:"},
        {"#include <cuda_fp16.hpp>\n__global__ void k(float *p) { p[0] = 1; }\n",
         "cuda_fp16.hpp", "refused.cu:1:"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        test_expect_refused(context, cases[c].source, cases[c].mentions,
                            cases[c].line, c);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_half),
        KILN_TEST(test_bf16),
        KILN_TEST(test_bf16_packed),
        KILN_TEST(test_half_names_only),
        KILN_TEST(test_half_math),
        KILN_TEST(test_bf16_math),
        KILN_TEST(test_refused),
    };
    return kiln_test_main("cuda_half", tests, sizeof tests / sizeof tests[0]);
}
