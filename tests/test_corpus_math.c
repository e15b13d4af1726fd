/*
 * Conformance corpus, math: the single-precision built-ins against a
 * double-precision reference within OpenCL 1.2's ulp bounds (full
 * profile), native_* and half_* within loose relative bounds, the integer
 * built-ins exactly, explicit conversions with saturation and every
 * rounding mode exactly, and as_* reinterpretation.
 */
#include "test_corpus_common.h"

#include <fenv.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- float built-ins -------------------------------------------------------------- */

typedef enum bound_kind {
    BOUND_ULPS,     /* ulps of the reference                          */
    BOUND_ABSOLUTE, /* an absolute error                              */
    BOUND_SCALED    /* `amount` times the magnitude computed per case */
} bound_kind;

typedef struct math_case {
    const char *name;
    bound_kind kind;
    double amount;
} math_case;

/* The order of math_functions's results (math_float.cl).  Bounds: the ulp
 * limits of OpenCL 1.2 (sqrt 3, rsqrt 2, exp/log/exp2/log2 3, pow 16, fma
 * correctly rounded, hypot 4, sin/cos 4, tan 5, atan2 6, cbrt 2, the exact
 * functions 0); mad, mix and the composite results have
 * implementation-defined rounding: bounded by a few roundings of their
 * terms; smoothstep by an absolute 4e-6. */
static const math_case math_cases[] = {
    {"sqrt", BOUND_ULPS, 3},        {"rsqrt", BOUND_ULPS, 2},
    {"exp", BOUND_ULPS, 3},         {"log", BOUND_ULPS, 3},
    {"pow", BOUND_ULPS, 16},        {"fma", BOUND_ULPS, 0},
    {"mad", BOUND_SCALED, 0x1p-22}, {"hypot", BOUND_ULPS, 4},
    {"sin", BOUND_ULPS, 4},         {"cos", BOUND_ULPS, 4},
    {"clamp", BOUND_ULPS, 0},       {"mix", BOUND_SCALED, 0x1p-21},
    {"step", BOUND_ULPS, 0},        {"smoothstep", BOUND_ABSOLUTE, 4e-6},
    {"sign", BOUND_ULPS, 0},        {"fmin", BOUND_ULPS, 0},
    {"fmax", BOUND_ULPS, 0},        {"floor", BOUND_ULPS, 0},
    {"ceil", BOUND_ULPS, 0},        {"round", BOUND_ULPS, 0},
    {"trunc", BOUND_ULPS, 0},       {"fmod", BOUND_ULPS, 0},
    {"copysign", BOUND_ULPS, 0},    {"fabs", BOUND_ULPS, 0},
    {"exp2", BOUND_ULPS, 3},        {"log2", BOUND_ULPS, 3},
    {"tan", BOUND_ULPS, 5},         {"atan2", BOUND_ULPS, 6},
    {"cbrt", BOUND_ULPS, 2},        {"fmin + fmax", BOUND_ULPS, 1},
    {"sin * cos", BOUND_ULPS, 10},
};
#define MATH_RESULTS (sizeof math_cases / sizeof math_cases[0])

static double smoothstep_reference(double edge0, double edge1, double x)
{
    double t = (x - edge0) / (edge1 - edge0);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3 - 2 * t);
}

static double sign_reference(double x)
{
    return x > 0 ? 1 : x < 0 ? -1 : x; /* keeps the zero's sign */
}

static void check_math_result(const math_case *c, size_t index, float actual,
                              double expected, double magnitude)
{
    switch (c->kind) {
    case BOUND_ULPS:
        corpus_expect_f32_ulps(c->name, &actual, &expected, 1, c->amount);
        break;
    case BOUND_ABSOLUTE:
        corpus_expect_f32_bound(c->name, index, actual, expected, c->amount);
        break;
    case BOUND_SCALED:
        corpus_expect_f32_bound(c->name, index, actual, expected,
                                c->amount * magnitude);
        break;
    }
}

static void math_float(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 4096, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "math_float", NULL);
    kiln_kernel *scalar = test_kernel(program, "math_functions");
    kiln_kernel *vector = test_kernel(program, "math_vector");

    float *xs = CORPUS_ARRAY(float, N), *ys = CORPUS_ARRAY(float, N);
    float *zs = CORPUS_ARRAY(float, N), *ts = CORPUS_ARRAY(float, N);
    test_random_floats(xs, N, 0.01f, 100);
    test_random_floats(ys, N, -4, 4);
    test_random_floats(zs, N, -100, 100);
    test_random_floats(ts, N, 0, 1);
    for (size_t i = 0; i < N; i += 16) /* exact halves for round() */
        zs[i] = (float)((int)zs[i]) + (zs[i] < 0 ? -0.5f : 0.5f);
    for (size_t i = 0; i < N; ++i)
        if (ys[i] == 0)
            ys[i] = 1;
    kiln_buffer *in[4] = {test_buffer_from(context, xs, N * 4),
                          test_buffer_from(context, ys, N * 4),
                          test_buffer_from(context, zs, N * 4),
                          test_buffer_from(context, ts, N * 4)};
    kiln_buffer *out = corpus_poisoned_buffer(context, N * MATH_RESULTS * 4);
    CORPUS_LAUNCH(scalar, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in[0]), KILN_ARG_BUFFER(in[1]),
                  KILN_ARG_BUFFER(in[2]), KILN_ARG_BUFFER(in[3]),
                  KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    float *results = CORPUS_ARRAY(float, N * MATH_RESULTS);
    corpus_read(out, results, N * MATH_RESULTS * 4);
    for (size_t i = 0; i < N; ++i) {
        double x = xs[i], y = ys[i], z = zs[i], t = ts[i];
        double e[MATH_RESULTS] = {
            sqrt(x), 1 / sqrt(x), exp(y), log(x), pow(x, y),
            (double)fmaf(zs[i], ys[i], xs[i]), z * y + x, hypot(z, y), sin(z),
            cos(z), z < -10 ? -10 : z > 25 ? 25 : z, z + (y - z) * t,
            z < y ? 0 : 1, smoothstep_reference(-50, 50, z), sign_reference(z),
            fmin(z, y), fmax(z, y), floor(z), ceil(z), round(z), trunc(z),
            fmod(z, y), copysign(x, z), fabs(z), exp2(y), log2(x),
            tan((double)(ys[i] / 4.0f)), atan2(z, y), cbrt(z),
            (double)(fminf(xs[i], zs[i]) + fmaxf(ts[i], 0.5f)), sin(x) * cos(x)};
        double magnitude[MATH_RESULTS] = {0};
        magnitude[6] = fabs(z * y) + fabs(x);           /* mad */
        magnitude[11] = fabs(z) + fabs(y);              /* mix */
        for (size_t k = 0; k < MATH_RESULTS; ++k)
            check_math_result(&math_cases[k], i, results[i * MATH_RESULTS + k],
                              e[k], magnitude[k]);
    }

    float *x4 = CORPUS_ARRAY(float, 4 * N), *z4 = CORPUS_ARRAY(float, 4 * N);
    test_random_floats(x4, 4 * N, 0.01f, 100);
    test_random_floats(z4, 4 * N, -100, 100);
    kiln_buffer *x4_buffer = test_buffer_from(context, x4, 16 * N);
    kiln_buffer *z4_buffer = test_buffer_from(context, z4, 16 * N);
    kiln_buffer *out4 = corpus_poisoned_buffer(context, 6 * 16 * N);
    CORPUS_LAUNCH(vector, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x4_buffer), KILN_ARG_BUFFER(z4_buffer),
                  KILN_ARG_BUFFER(out4), KILN_ARG_INT(N));
    float *r4 = CORPUS_ARRAY(float, 24 * N);
    corpus_read(out4, r4, 6 * 16 * N);
    for (size_t i = 0; i < N; ++i)
        for (int c = 0; c < 4; ++c) {
            double x = x4[4 * i + c], z = z4[4 * i + c];
            const float *r = r4 + 24 * i + c;
            double e;
            corpus_expect_f32_ulps("float4 sqrt", &r[0], (e = sqrt(x), &e), 1, 3);
            corpus_expect_f32_ulps("float4 exp", &r[4], (e = exp(z / 32), &e), 1, 3);
            corpus_expect_f32_ulps("float4 clamp", &r[8],
                                   (e = z < -10 ? -10 : z > 25 ? 25 : z, &e), 1, 0);
            corpus_expect_f32_bound("float4 mix", i, r[12], x + (z - x) * 0.25,
                                    0x1p-21 * (fabs(x) + fabs(z)));
            corpus_expect_f32_ulps("float4 fmax", &r[16], (e = fmax(x, z), &e), 1, 0);
            corpus_expect_f32_ulps("float4 sin", &r[20], (e = sin(z), &e), 1, 4);
        }

    corpus_release_buffers(in, 4);
    kiln_buffer *buffers[] = {out, x4_buffer, z4_buffer, out4};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(scalar);
    kiln_kernel_release(vector);
    kiln_program_release(program);
    free(xs), free(ys), free(zs), free(ts), free(results), free(x4), free(z4), free(r4);
}

/* ---- native_* and half_* ----------------------------------------------------------- */

/* native_*: implementation-defined precision: within 5e-4 * max(1, |ref|)
 * on these domains (a wrong function is far off).  half_*: OpenCL allows
 * 8192 ulp (about 5e-4 relative): within 2e-3 * max(1, |ref|). */
static void math_native_half(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 2048, BLOCK = 64, RESULTS = 10 };
    kiln_program *program = corpus_build(context, "math_native_half", NULL);
    kiln_kernel *native = test_kernel(program, "native_functions");
    kiln_kernel *half = test_kernel(program, "half_functions");
    float *xs = CORPUS_ARRAY(float, N), *as = CORPUS_ARRAY(float, N);
    test_random_floats(xs, N, 0.1f, 10);
    test_random_floats(as, N, -3.14159f, 3.14159f);
    kiln_buffer *x_buffer = test_buffer_from(context, xs, N * 4);
    kiln_buffer *a_buffer = test_buffer_from(context, as, N * 4);
    kiln_buffer *out = corpus_poisoned_buffer(context, N * RESULTS * 4);
    float *results = CORPUS_ARRAY(float, N * RESULTS);

    static const char *const native_names[RESULTS] = {
        "native_sin", "native_cos", "native_exp", "native_log", "native_sqrt",
        "native_rsqrt", "native_recip", "native_divide", "native_powr", "native_exp2"};
    CORPUS_LAUNCH(native, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(a_buffer),
                  KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    corpus_read(out, results, N * RESULTS * 4);
    for (size_t i = 0; i < N; ++i) {
        double x = xs[i], a = as[i];
        double e[RESULTS] = {sin(a),  cos(a),  exp(a), log(x),       sqrt(x),
                             1 / sqrt(x), 1 / x, a / x, pow(x, a), exp2(a)};
        for (int k = 0; k < RESULTS; ++k)
            corpus_expect_f32_bound(native_names[k], i, results[i * RESULTS + k], e[k],
                                    5e-4 * fmax(1, fabs(e[k])));
    }

    static const char *const half_names[RESULTS] = {
        "half_sin", "half_cos", "half_exp", "half_log", "half_sqrt",
        "half_rsqrt", "half_recip", "half_divide", "half_powr", "half_log2"};
    CORPUS_LAUNCH(half, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(a_buffer),
                  KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    corpus_read(out, results, N * RESULTS * 4);
    for (size_t i = 0; i < N; ++i) {
        double x = xs[i], a = as[i];
        double e[RESULTS] = {sin(a),  cos(a),  exp(a), log(x),       sqrt(x),
                             1 / sqrt(x), 1 / x, a / x, pow(x, a), log2(x)};
        for (int k = 0; k < RESULTS; ++k)
            corpus_expect_f32_bound(half_names[k], i, results[i * RESULTS + k], e[k],
                                    2e-3 * fmax(1, fabs(e[k])));
    }

    kiln_buffer *buffers[] = {x_buffer, a_buffer, out};
    corpus_release_buffers(buffers, 3);
    kiln_kernel_release(native);
    kiln_kernel_release(half);
    kiln_program_release(program);
    free(xs), free(as), free(results);
}

/* ---- integer built-ins ------------------------------------------------------------------- */

static int32_t saturate_i32(int64_t value)
{
    return value > INT32_MAX ? INT32_MAX : value < INT32_MIN ? INT32_MIN : (int32_t)value;
}

static uint32_t rotate_left_u32(uint32_t x, uint32_t s)
{
    s &= 31;
    return s == 0 ? x : (x << s) | (x >> (32 - s));
}

static uint32_t clz_u32(uint32_t x)
{
    return x == 0 ? 32 : (uint32_t)__builtin_clz(x);
}

/* floor((a + b + round) / 2) without overflow, as hadd / rhadd define it. */
static int32_t half_sum(int32_t a, int32_t b, int round)
{
    int64_t sum = (int64_t)a + b + round;
    return (int32_t)(sum >= 0 ? sum / 2 : -((-sum + 1) / 2));
}

/* Exact. */
static void math_integer(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 4000, BLOCK = 64, INT_RESULTS = 18, UINT_RESULTS = 14 };
    kiln_program *program = corpus_build(context, "math_integer", NULL);
    kiln_kernel *int_kernel = test_kernel(program, "int_builtins");
    kiln_kernel *uint_kernel = test_kernel(program, "uint_builtins");
    kiln_kernel *int4_kernel = test_kernel(program, "int4_builtins");

    int32_t *a = CORPUS_ARRAY(int32_t, N), *b = CORPUS_ARRAY(int32_t, N);
    int32_t *c = CORPUS_ARRAY(int32_t, N), *d = CORPUS_ARRAY(int32_t, N);
    int32_t *s = CORPUS_ARRAY(int32_t, N);
    corpus_random_u32((uint32_t *)a, N);
    corpus_random_u32((uint32_t *)b, N);
    corpus_random_i32(c, N, -(1 << 23), (1 << 23) - 1);
    corpus_random_i32(d, N, -127, 127);
    corpus_random_i32(s, N, -100, 100);
    for (size_t i = 0; i < N; i += 7) /* small values: saturation edges, clz */
        a[i] >>= test_random_u64() % 31;
    a[0] = INT32_MIN, b[0] = INT32_MIN;
    a[1] = INT32_MAX, b[1] = INT32_MAX;
    a[2] = INT32_MIN, b[2] = INT32_MAX;
    a[3] = 0, b[3] = -1;

    kiln_buffer *in[5] = {test_buffer_from(context, a, N * 4),
                          test_buffer_from(context, b, N * 4),
                          test_buffer_from(context, c, N * 4),
                          test_buffer_from(context, d, N * 4),
                          test_buffer_from(context, s, N * 4)};
    kiln_buffer *out = corpus_poisoned_buffer(context, N * INT_RESULTS * 4);
    CORPUS_LAUNCH(int_kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in[0]), KILN_ARG_BUFFER(in[1]), KILN_ARG_BUFFER(in[2]),
                  KILN_ARG_BUFFER(in[3]), KILN_ARG_BUFFER(in[4]), KILN_ARG_BUFFER(out),
                  KILN_ARG_INT(N));
    int32_t *r = CORPUS_ARRAY(int32_t, N * INT_RESULTS);
    corpus_read(out, r, N * INT_RESULTS * 4);
    static const char *const int_names[INT_RESULTS] = {
        "abs", "abs_diff", "min", "max", "clamp", "mul_hi", "mad24", "mul24",
        "rotate", "popcount", "clz", "add_sat", "sub_sat", "hadd", "rhadd",
        "mad_hi", "mad_sat", "min(a,5) + max(b,-5)"};
    for (size_t i = 0; i < N; ++i) {
        int64_t x = a[i], y = b[i], z = c[i], w = d[i];
        int64_t low = z < y ? z : y, high = z < y ? y : z;
        int32_t e[INT_RESULTS] = {
            (int32_t)(uint32_t)(x < 0 ? -x : x),
            (int32_t)(uint32_t)(x > y ? x - y : y - x),
            (int32_t)(x < y ? x : y),
            (int32_t)(x > y ? x : y),
            (int32_t)(x < low ? low : x > high ? high : x),
            (int32_t)((x * y) >> 32),
            (int32_t)(z * w + (a[i] >> 2)),
            (int32_t)(z * w),
            (int32_t)rotate_left_u32((uint32_t)a[i], (uint32_t)s[i]),
            __builtin_popcount((uint32_t)a[i]),
            (int32_t)clz_u32((uint32_t)a[i]),
            saturate_i32(x + y),
            saturate_i32(x - y),
            half_sum(a[i], b[i], 0),
            half_sum(a[i], b[i], 1),
            (int32_t)(((x * y) >> 32) + z),
            saturate_i32(z * w + x),
            (int32_t)((x < 5 ? x : 5) + (y > -5 ? y : -5))};
        for (int k = 0; k < INT_RESULTS; ++k)
            if (r[i * INT_RESULTS + k] != e[k])
                fail_msg("%s(a=%" PRId32 ", b=%" PRId32 ", c=%" PRId32 ", d=%" PRId32
                         ", s=%" PRId32 "): got %" PRId32 ", expected %" PRId32,
                         int_names[k], a[i], b[i], c[i], d[i], s[i],
                         r[i * INT_RESULTS + k], e[k]);
    }

    uint32_t *ua = (uint32_t *)a, *ub = (uint32_t *)b, *uc = CORPUS_ARRAY(uint32_t, N);
    corpus_random_u32(uc, N);
    kiln_buffer *uc_buffer = test_buffer_from(context, uc, N * 4);
    CORPUS_LAUNCH(uint_kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in[0]), KILN_ARG_BUFFER(in[1]), KILN_ARG_BUFFER(uc_buffer),
                  KILN_ARG_BUFFER(in[4]), KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    uint32_t *ur = (uint32_t *)r;
    corpus_read(out, ur, N * UINT_RESULTS * 4);
    static const char *const uint_names[UINT_RESULTS] = {
        "abs", "min", "max", "mul_hi", "mad24", "mul24", "rotate", "popcount",
        "clz", "add_sat", "sub_sat", "hadd", "rhadd", "clamp"};
    for (size_t i = 0; i < N; ++i) {
        uint64_t x = ua[i], y = ub[i], z = uc[i];
        uint64_t low = z < y ? z : y, high = z < y ? y : z;
        uint32_t e[UINT_RESULTS] = {
            (uint32_t)x,
            (uint32_t)(x < y ? x : y),
            (uint32_t)(x > y ? x : y),
            (uint32_t)((x * y) >> 32),
            (uint32_t)((z & 0xFFFFFF) * (y & 0xFF) + x),
            (uint32_t)((z & 0xFFFFFF) * (x & 0xFF)),
            rotate_left_u32((uint32_t)x, (uint32_t)s[i]),
            (uint32_t)__builtin_popcount((uint32_t)x),
            clz_u32((uint32_t)x),
            (uint32_t)(x + y > UINT32_MAX ? UINT32_MAX : x + y),
            (uint32_t)(x > y ? x - y : 0),
            (uint32_t)((x + y) >> 1),
            (uint32_t)((x + y + 1) >> 1),
            (uint32_t)(x < low ? low : x > high ? high : x)};
        for (int k = 0; k < UINT_RESULTS; ++k)
            if (ur[i * UINT_RESULTS + k] != e[k])
                fail_msg("uint %s(a=%" PRIu32 ", b=%" PRIu32 ", c=%" PRIu32
                         ", s=%" PRId32 "): got %" PRIu32 ", expected %" PRIu32,
                         uint_names[k], ua[i], ub[i], uc[i], s[i],
                         ur[i * UINT_RESULTS + k], e[k]);
    }

    enum { V = N / 4 };
    CORPUS_LAUNCH(int4_kernel, KILN_DIM1(corpus_blocks(V, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in[0]), KILN_ARG_BUFFER(in[1]), KILN_ARG_BUFFER(out),
                  KILN_ARG_INT(V));
    int32_t *v_expected = CORPUS_ARRAY(int32_t, 12 * V);
    corpus_read(out, r, 12 * V * 4);
    for (size_t i = 0; i < V; ++i)
        for (int k = 0; k < 4; ++k) {
            int64_t x = a[4 * i + k], y = b[4 * i + k];
            v_expected[12 * i + k] = saturate_i32(x + y);
            v_expected[12 * i + 4 + k] = __builtin_popcount((uint32_t)x) -
                                         (int32_t)clz_u32((uint32_t)y);
            v_expected[12 * i + 8 + k] = (int32_t)(x < -1000 ? -1000 : x > 1000 ? 1000 : x);
        }
    corpus_expect_i32("int4 add_sat, popcount - clz, clamp(scalar bounds)", r,
                      v_expected, 12 * V);

    corpus_release_buffers(in, 5);
    kiln_buffer *buffers[] = {out, uc_buffer};
    corpus_release_buffers(buffers, 2);
    kiln_kernel_release(int_kernel);
    kiln_kernel_release(uint_kernel);
    kiln_kernel_release(int4_kernel);
    kiln_program_release(program);
    free(a), free(b), free(c), free(d), free(s), free(r), free(uc), free(v_expected);
}

/* ---- conversions ------------------------------------------------------------------------- */

typedef enum rounding { ROUND_RTE, ROUND_RTZ, ROUND_RTP, ROUND_RTN } rounding;

/* An integer-valued double: `value` rounded by `mode` (the host's default
 * rounding is to nearest, ties to even, for rint). */
static double round_by(double value, rounding mode)
{
    switch (mode) {
    case ROUND_RTE: return rint(value);
    case ROUND_RTZ: return trunc(value);
    case ROUND_RTP: return ceil(value);
    case ROUND_RTN: return floor(value);
    }
    return value;
}

/* convert_<int type>_sat_<mode>(float): NaN -> 0, else round and clamp. */
static int64_t convert_sat(float value, rounding mode, int64_t low, int64_t high)
{
    if (isnan(value))
        return 0;
    double rounded = round_by(value, mode);
    if (rounded <= (double)low)
        return low;
    if (rounded >= (double)high)
        return high;
    return (int64_t)rounded;
}

/* An int64 to float with a rounding mode: via the nearest float, stepped by
 * one ulp when it lies on the wrong side. */
static float int_to_float(int64_t value, rounding mode)
{
    float nearest = (float)value;
    double exact = (double)value; /* exact: |value| < 2^53 here */
    switch (mode) {
    case ROUND_RTE:
        return nearest;
    case ROUND_RTZ:
        if (fabs((double)nearest) > fabs(exact))
            return nextafterf(nearest, 0);
        return nearest;
    case ROUND_RTP:
        return (double)nearest < exact ? nextafterf(nearest, INFINITY) : nearest;
    case ROUND_RTN:
        return (double)nearest > exact ? nextafterf(nearest, -INFINITY) : nearest;
    }
    return nearest;
}

/* Exact: every conversion is defined to the bit. */
static void conversions(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 3000, BLOCK = 64 };
    assert_int_equal(fegetround(), FE_TONEAREST);
    kiln_program *program = corpus_build(context, "conversions", NULL);
    kiln_kernel *to_int_sat = test_kernel(program, "float_to_int_sat");
    kiln_kernel *to_int = test_kernel(program, "float_to_int_rounding");
    kiln_kernel *to_float = test_kernel(program, "int_to_float");
    kiln_kernel *to_narrow = test_kernel(program, "int_to_narrow");
    kiln_kernel *vectors = test_kernel(program, "vector_conversions");
    int nvidia_opencl = test_on_nvidia_opencl(state);
    int nvidia_nan_reported = 0;

    /* Any float: random magnitudes, ties, limits, NaN and infinities. */
    float *f = CORPUS_ARRAY(float, N);
    static const float specials[] = {
        NAN, INFINITY, -INFINITY, 2147483520.0f, 2147483648.0f, -2147483648.0f,
        -2147483904.0f, 4294967040.0f, 4294967296.0f, 255.5f, 254.5f, 256.0f,
        -0.5f, 0.5f, 1.5f, 2.5f, -1.5f, -2.5f, -128.5f, 127.5f, -32768.5f,
        9.3e18f, -9.3e18f, 0.0f, -0.0f, 1e-30f};
    for (size_t i = 0; i < N; ++i) {
        switch (i % 4) {
        case 0:
            f[i] = specials[test_random_u64() % (sizeof specials / sizeof specials[0])];
            break;
        case 1: /* exact halves */
            f[i] = (float)((int64_t)(test_random_u64() % 2001) - 1000) + 0.5f;
            break;
        case 2: /* any magnitude */
            f[i] = ldexpf(test_random_float(-1, 1), (int)(test_random_u64() % 70));
            break;
        default:
            f[i] = test_random_float(-300, 300);
            break;
        }
    }
    enum { SAT = 12 };
    kiln_buffer *f_buffer = test_buffer_from(context, f, N * 4);
    kiln_buffer *out = corpus_poisoned_buffer(context, N * SAT * 4);
    CORPUS_LAUNCH(to_int_sat, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(f_buffer), KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    int32_t *r = CORPUS_ARRAY(int32_t, N * SAT);
    corpus_read(out, r, N * SAT * 4);
    static const char *const sat_names[SAT] = {
        "convert_int_sat_rte", "convert_int_sat_rtz", "convert_int_sat_rtp",
        "convert_int_sat_rtn", "convert_int_sat", "convert_uint_sat_rte",
        "convert_uint_sat", "convert_uchar_sat", "convert_uchar_sat_rte",
        "convert_short_sat_rtn", "convert_char_sat",
        "convert_long_sat_rte (low word ^ high word)"};
    for (size_t i = 0; i < N; ++i) {
        float v = f[i];
        int64_t as_long = convert_sat(v, ROUND_RTE, INT64_MIN, INT64_MAX);
        int32_t e[SAT] = {
            (int32_t)convert_sat(v, ROUND_RTE, INT32_MIN, INT32_MAX),
            (int32_t)convert_sat(v, ROUND_RTZ, INT32_MIN, INT32_MAX),
            (int32_t)convert_sat(v, ROUND_RTP, INT32_MIN, INT32_MAX),
            (int32_t)convert_sat(v, ROUND_RTN, INT32_MIN, INT32_MAX),
            (int32_t)convert_sat(v, ROUND_RTZ, INT32_MIN, INT32_MAX),
            (int32_t)(uint32_t)convert_sat(v, ROUND_RTE, 0, UINT32_MAX),
            (int32_t)(uint32_t)convert_sat(v, ROUND_RTZ, 0, UINT32_MAX),
            (int32_t)convert_sat(v, ROUND_RTZ, 0, UINT8_MAX),
            (int32_t)convert_sat(v, ROUND_RTE, 0, UINT8_MAX),
            (int32_t)convert_sat(v, ROUND_RTN, INT16_MIN, INT16_MAX),
            (int32_t)convert_sat(v, ROUND_RTZ, INT8_MIN, INT8_MAX),
            (int32_t)as_long ^ (int32_t)(as_long >> 32)};
        for (int k = 0; k < SAT; ++k) {
            /* NVIDIA's OpenCL compiler (driver 580) turns NaN into
             * LONG_MIN in convert_long_sat_rte; CUDA's translation is
             * right.  Reported, not hidden: the line below says so. */
            if (r[i * SAT + k] != e[k] && k == SAT - 1 && isnan(v) &&
                nvidia_opencl) {
                if (!nvidia_nan_reported)
                    print_message("# known NVIDIA OpenCL driver bug: "
                                  "convert_long_sat_rte(NaN) gave %" PRId32
                                  " (low^high word), OpenCL wants 0\n",
                                  r[i * SAT + k]);
                nvidia_nan_reported = 1;
                continue;
            }
            if (r[i * SAT + k] != e[k])
                fail_msg("%s(%.9g): got %" PRId32 ", expected %" PRId32 "%s",
                         sat_names[k], (double)v, r[i * SAT + k], e[k],
                         isnan(v) ? " (OpenCL C 6.2.3.3: a saturated conversion "
                                    "turns NaN into 0)"
                                  : "");
        }
    }

    /* In range, no saturation: |f| < 2^30. */
    enum { ROUND = 5 };
    float *g = CORPUS_ARRAY(float, N);
    for (size_t i = 0; i < N; ++i)
        g[i] = i % 2 ? (float)((int64_t)(test_random_u64() % 20001) - 10000) / 2
                     : ldexpf(test_random_float(-1, 1), (int)(test_random_u64() % 30));
    kiln_buffer *g_buffer = test_buffer_from(context, g, N * 4);
    CORPUS_LAUNCH(to_int, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(g_buffer), KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    corpus_read(out, r, N * ROUND * 4);
    static const char *const round_names[ROUND] = {"convert_int_rte", "convert_int_rtz",
                                                   "convert_int_rtp", "convert_int_rtn",
                                                   "convert_int"};
    static const rounding round_modes[ROUND] = {ROUND_RTE, ROUND_RTZ, ROUND_RTP,
                                                ROUND_RTN, ROUND_RTZ};
    for (size_t i = 0; i < N; ++i)
        for (int k = 0; k < ROUND; ++k) {
            int32_t e = (int32_t)round_by(g[i], round_modes[k]);
            if (r[i * ROUND + k] != e)
                fail_msg("%s(%.9g): got %" PRId32 ", expected %" PRId32, round_names[k],
                         (double)g[i], r[i * ROUND + k], e);
        }

    /* Integers to float: large magnitudes need rounding. */
    enum { TO_FLOAT = 6 };
    int32_t *k_in = CORPUS_ARRAY(int32_t, N);
    uint32_t *u_in = CORPUS_ARRAY(uint32_t, N);
    corpus_random_u32((uint32_t *)k_in, N);
    corpus_random_u32(u_in, N);
    for (size_t i = 0; i < N; i += 3)
        k_in[i] >>= test_random_u64() % 31;
    k_in[0] = INT32_MIN, k_in[1] = INT32_MAX, u_in[0] = UINT32_MAX;
    k_in[2] = 16777217, k_in[3] = -16777219; /* 2^24 + 1: ties and non-ties */
    kiln_buffer *k_buffer = test_buffer_from(context, k_in, N * 4);
    kiln_buffer *u_buffer = test_buffer_from(context, u_in, N * 4);
    CORPUS_LAUNCH(to_float, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(k_buffer), KILN_ARG_BUFFER(u_buffer),
                  KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    float *fr = CORPUS_ARRAY(float, N * TO_FLOAT), *fe = CORPUS_ARRAY(float, N * TO_FLOAT);
    corpus_read(out, fr, N * TO_FLOAT * 4);
    for (size_t i = 0; i < N; ++i) {
        float e[TO_FLOAT] = {int_to_float(k_in[i], ROUND_RTE), int_to_float(k_in[i], ROUND_RTZ),
                             int_to_float(k_in[i], ROUND_RTP), int_to_float(k_in[i], ROUND_RTN),
                             int_to_float(u_in[i], ROUND_RTE), int_to_float(u_in[i], ROUND_RTZ)};
        memcpy(fe + i * TO_FLOAT, e, sizeof e);
    }
    corpus_expect_f32_bits("convert_float{,_rtz,_rtp,_rtn}(int), convert_float{,_rtz}(uint)",
                           fr, fe, N * TO_FLOAT);

    /* Integers to narrower integers. */
    enum { NARROW = 10 };
    int64_t *l_in = CORPUS_ARRAY(int64_t, N);
    for (size_t i = 0; i < N; ++i)
        l_in[i] = (int64_t)test_random_u64() >> (test_random_u64() % 64);
    for (size_t i = 0; i < N; i += 2)
        k_in[i] = (int32_t)(test_random_u64() % 140000) - 70000;
    TEST_OK(kiln_buffer_write(k_buffer, 0, k_in, N * 4));
    kiln_buffer *l_buffer = test_buffer_from(context, l_in, N * 8);
    CORPUS_LAUNCH(to_narrow, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(k_buffer), KILN_ARG_BUFFER(u_buffer),
                  KILN_ARG_BUFFER(l_buffer), KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    corpus_read(out, r, N * NARROW * 4);
    static const char *const narrow_names[NARROW] = {
        "convert_uchar_sat(int)", "convert_char_sat(int)", "convert_ushort_sat(int)",
        "convert_short_sat(int)", "convert_uint_sat(int)", "convert_int_sat(uint)",
        "convert_uchar(int)", "convert_char(int)", "convert_int_sat(long)",
        "convert_int(long)"};
    for (size_t i = 0; i < N; ++i) {
        int64_t k = k_in[i], u = u_in[i], l = l_in[i];
        int32_t e[NARROW] = {
            (int32_t)(k < 0 ? 0 : k > 255 ? 255 : k),
            (int32_t)(k < -128 ? -128 : k > 127 ? 127 : k),
            (int32_t)(k < 0 ? 0 : k > 65535 ? 65535 : k),
            (int32_t)(k < -32768 ? -32768 : k > 32767 ? 32767 : k),
            (int32_t)(uint32_t)(k < 0 ? 0 : k),
            (int32_t)(u > INT32_MAX ? INT32_MAX : u),
            (int32_t)(uint8_t)k,
            (int32_t)(int8_t)(uint8_t)k,
            saturate_i32(l),
            (int32_t)(uint32_t)(uint64_t)l};
        for (int j = 0; j < NARROW; ++j)
            if (r[i * NARROW + j] != e[j])
                fail_msg("%s(%" PRId64 " / %" PRId64 " / %" PRId64 "): got %" PRId32
                         ", expected %" PRId32,
                         narrow_names[j], k, u, l, r[i * NARROW + j], e[j]);
    }

    /* Vectors. */
    enum { V = N / 4 };
    kiln_buffer *iout = corpus_poisoned_buffer(context, V * 2 * 16);
    kiln_buffer *bout = corpus_poisoned_buffer(context, V * 2 * 4);
    kiln_buffer *fout = corpus_poisoned_buffer(context, V * 16);
    CORPUS_LAUNCH(vectors, KILN_DIM1(corpus_blocks(V, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(f_buffer), KILN_ARG_BUFFER(k_buffer),
                  KILN_ARG_BUFFER(iout), KILN_ARG_BUFFER(bout), KILN_ARG_BUFFER(fout),
                  KILN_ARG_INT(V));
    int32_t *vi = CORPUS_ARRAY(int32_t, 8 * V), *vi_expected = CORPUS_ARRAY(int32_t, 8 * V);
    uint8_t *vb = CORPUS_ARRAY(uint8_t, 8 * V), *vb_expected = CORPUS_ARRAY(uint8_t, 8 * V);
    corpus_read(iout, vi, V * 2 * 16);
    corpus_read(bout, vb, V * 2 * 4);
    corpus_read(fout, fr, V * 16);
    for (size_t i = 0; i < V; ++i)
        for (int c = 0; c < 4; ++c) {
            float v = f[4 * i + c];
            int64_t k = k_in[4 * i + c];
            vi_expected[8 * i + c] = (int32_t)convert_sat(v, ROUND_RTE, INT32_MIN, INT32_MAX);
            float clamped = isnan(v) ? v : v < -1e9f ? -1e9f : v > 1e9f ? 1e9f : v;
            vi_expected[8 * i + 4 + c] =
                isnan(clamped) ? vi[8 * i + 4 + c] /* undefined: not compared */
                               : (int32_t)floor(clamped);
            vb_expected[8 * i + c] = (uint8_t)(k < 0 ? 0 : k > 255 ? 255 : k);
            vb_expected[8 * i + 4 + c] = (uint8_t)convert_sat(v, ROUND_RTP, 0, 255);
            fe[4 * i + c] = (float)k;
        }
    corpus_expect_i32("convert_int4_sat_rte, convert_int4_rtn", vi, vi_expected, 8 * V);
    corpus_expect_u8("convert_uchar4_sat(int4), convert_uchar4_sat_rtp(float4)", vb,
                     vb_expected, 8 * V);
    corpus_expect_f32_bits("convert_float4(int4)", fr, fe, 4 * V);

    kiln_buffer *buffers[] = {f_buffer, out, g_buffer, k_buffer, u_buffer, l_buffer,
                              iout, bout, fout};
    corpus_release_buffers(buffers, 9);
    kiln_kernel_release(to_int_sat);
    kiln_kernel_release(to_int);
    kiln_kernel_release(to_float);
    kiln_kernel_release(to_narrow);
    kiln_kernel_release(vectors);
    kiln_program_release(program);
    free(f), free(r), free(g), free(k_in), free(u_in), free(fr), free(fe), free(l_in);
    free(vi), free(vi_expected), free(vb), free(vb_expected);
}

/* ---- as_* ------------------------------------------------------------------------------- */

/* Exact (bit patterns; NaN payloads compared as bits too). */
static void reinterpret(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 1024, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "reinterpret", NULL);
    kiln_kernel *kernel = test_kernel(program, "reinterpret_bits");
    float *in = CORPUS_ARRAY(float, N);
    test_random_floats(in, N, -1e4f, 1e4f);
    in[0] = -0.0f, in[1] = INFINITY, in[2] = 3.0e38f;
    kiln_buffer *in_buffer = test_buffer_from(context, in, N * 4);
    kiln_buffer *bits = corpus_poisoned_buffer(context, N * 4);
    kiln_buffer *floats = corpus_poisoned_buffer(context, N * 8);
    kiln_buffer *bytes = corpus_poisoned_buffer(context, N * 4);
    kiln_buffer *halves = corpus_poisoned_buffer(context, N * 4);
    kiln_buffer *pairs = corpus_poisoned_buffer(context, N * 8);
    kiln_buffer *ints4 = corpus_poisoned_buffer(context, N * 16);
    CORPUS_LAUNCH(kernel, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(bits),
                  KILN_ARG_BUFFER(floats), KILN_ARG_BUFFER(bytes),
                  KILN_ARG_BUFFER(halves), KILN_ARG_BUFFER(pairs),
                  KILN_ARG_BUFFER(ints4), KILN_ARG_INT(N));
    uint32_t *words = CORPUS_ARRAY(uint32_t, 4 * N), *expected = CORPUS_ARRAY(uint32_t, 4 * N);
    uint64_t *longs = CORPUS_ARRAY(uint64_t, N), *longs_expected = CORPUS_ARRAY(uint64_t, N);

    uint32_t *in_bits = (uint32_t *)in;
    corpus_read(bits, words, N * 4);
    corpus_expect_u32("as_uint(float)", words, in_bits, N);
    corpus_read(floats, words, N * 8);
    for (size_t i = 0; i < N; ++i) {
        expected[2 * i] = in_bits[i] & 0x7FFFFFFFu;
        expected[2 * i + 1] = in_bits[i] ^ 0x80000000u;
    }
    corpus_expect_u32("as_float(bits & 0x7fffffff), as_float(bits ^ sign)", words,
                      expected, 2 * N);
    /* uchar4, short2: the same four bytes in memory order (little-endian) */
    corpus_read(bytes, words, N * 4);
    corpus_expect_u32("as_uchar4(uint)", words, in_bits, N);
    corpus_read(halves, words, N * 4);
    corpus_expect_u32("as_short2(int)", words, in_bits, N);
    corpus_read(pairs, longs, N * 8);
    for (size_t i = 0; i < N; ++i)
        longs_expected[i] = (uint64_t)in_bits[i] |
                            (uint64_t)(in_bits[i] ^ 0x80000000u) << 32;
    corpus_expect_u64("as_ulong((float2)(f, -f))", longs, longs_expected, N);
    corpus_read(ints4, words, N * 16);
    for (size_t i = 0; i < N; ++i)
        for (int c = 0; c < 4; ++c)
            expected[4 * i + c] = in_bits[4 * (i / 4) + c];
    corpus_expect_u32("as_int4(float4)", words, expected, 4 * N);

    kiln_buffer *buffers[] = {in_buffer, bits, floats, bytes, halves, pairs, ints4};
    corpus_release_buffers(buffers, 7);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(in), free(words), free(expected), free(longs), free(longs_expected);
}

/* ---- #pragma OPENCL FP_CONTRACT OFF ---------------------------------------------- */

/* The CPU's unfused float arithmetic: every product and sum rounded to
 * float on its own (volatile keeps the compiler from fusing them). */
static float product(float x, float y)
{
    volatile float p = x * y;
    return p;
}

/* Exact: the pragma forbids contraction, so there is one right answer.
 * With contraction the random inputs differ in many low bits. */
static void fp_contract_off(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 4096, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "fp_contract", NULL);
    kiln_kernel *kernel = test_kernel(program, "unfused");
    float *a = CORPUS_ARRAY(float, N), *b = CORPUS_ARRAY(float, N);
    float *c = CORPUS_ARRAY(float, N);
    test_random_floats(a, N, -100, 100);
    test_random_floats(b, N, -100, 100);
    test_random_floats(c, N, -100, 100);
    kiln_buffer *in[3] = {test_buffer_from(context, a, N * 4),
                          test_buffer_from(context, b, N * 4),
                          test_buffer_from(context, c, N * 4)};
    kiln_buffer *out = corpus_poisoned_buffer(context, 4 * N * 4);
    CORPUS_LAUNCH(kernel, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in[0]), KILN_ARG_BUFFER(in[1]),
                  KILN_ARG_BUFFER(in[2]), KILN_ARG_BUFFER(out),
                  KILN_ARG_INT(N));
    float *results = CORPUS_ARRAY(float, 4 * N);
    float *expected = CORPUS_ARRAY(float, 4 * N);
    corpus_read(out, results, 4 * N * 4);
    for (size_t i = 0; i < N; ++i) {
        volatile float v;
        v = product(a[i], b[i]) + c[i];
        expected[i] = v;
        v = product(a[i], b[i]) - product(c[i], a[i]);
        expected[N + i] = v;
        float sum = 0.0f;
        for (size_t k = 0; k < 8; ++k) {
            v = sum + product(a[(i + k) % N], b[(i + 3 * k) % N]);
            sum = v;
        }
        expected[2 * N + i] = sum;
        float x = product(a[i], c[i]) + c[i];
        float y = product(b[i], a[i]) + a[i];
        float w = product(a[i], b[i]) + b[i];
        v = x + product(y, w);
        expected[3 * N + i] = v;
    }
    corpus_expect_f32_bits("a*b+c, a*b-c*a", results, expected, 2 * N);
    corpus_expect_f32_bits("sum of a*b", results + 2 * N, expected + 2 * N, N);
    corpus_expect_f32_bits("float4 a*b+b", results + 3 * N, expected + 3 * N,
                           N);
    kiln_buffer *buffers[] = {in[0], in[1], in[2], out};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(a), free(b), free(c), free(results), free(expected);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(math_float),
        KILN_TEST(math_native_half),
        KILN_TEST(math_integer),
        KILN_TEST(conversions),
        KILN_TEST(reinterpret),
        KILN_TEST(fp_contract_off),
    };
    return kiln_test_main("corpus_math", tests, sizeof tests / sizeof tests[0]);
}
