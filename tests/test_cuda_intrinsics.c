/*
 * Every CUDA intrinsic and math function that Kiln's CUDA C -> OpenCL C
 * translation maps, checked against a CPU model of CUDA's documented
 * meaning (issue 29): the saturation and NaN of float -> integer
 * conversions (PTX cvt), every rounding of the conversions, 24-bit
 * multiplies that ignore the high 8 bits, CUDA's integer min/max/abs
 * types, functions that evaluate their arguments once (sincosf(in[k++],
 * ...)), and the math library within the error bounds of the CUDA C
 * Programming Guide's tables (ulps).  The same kernels run natively on the
 * CUDA backend and translated on every OpenCL device (PoCL in CI,
 * NVIDIA's OpenCL on the GPU machine).
 */
#include "builtin_table.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- models ---------------------------------------------------------------- */

typedef builtin_value V;

/* Rounding of an exact value (long double holds every float, double and
 * 64-bit integer) to float or double in a direction: 'n' nearest even,
 * 'z' toward zero, 'u' up, 'd' down. */
static float round_to_float(long double x, char mode)
{
    float f = (float)x; /* one rounding: to nearest even */
    if (isnan(x) || (long double)f == x || mode == 'n')
        return f;
    if (mode == 'z' && fabsl((long double)f) > fabsl(x))
        return nextafterf(f, 0.0f);
    if (mode == 'u' && (long double)f < x)
        return nextafterf(f, INFINITY);
    if (mode == 'd' && (long double)f > x)
        return nextafterf(f, -INFINITY);
    return f;
}

static double round_to_double(long double x, char mode)
{
    double d = (double)x;
    if (isnan(x) || (long double)d == x || mode == 'n')
        return d;
    if (mode == 'z' && fabsl((long double)d) > fabsl(x))
        return nextafter(d, 0.0);
    if (mode == 'u' && (long double)d < x)
        return nextafter(d, INFINITY);
    if (mode == 'd' && (long double)d > x)
        return nextafter(d, -INFINITY);
    return d;
}

static long double round_integral(long double x, char mode)
{
    switch (mode) {
    case 'n': return nearbyintl(x); /* the default mode: ties to even */
    case 'z': return truncl(x);
    case 'u': return ceill(x);
    default: return floorl(x);
    }
}

/* PTX cvt to an integer: out-of-range values saturate (NaN apart). */
static long double saturate(long double x, char mode, long double low,
                            long double high)
{
    long double r = round_integral(x, mode);
    return r < low ? low : r > high ? high : r;
}

/* NaN, as an H200 converts it natively (CUDA 13, driver 580): 0 from a
 * float to a 32-bit integer; the sign bit alone (0x80000000, or
 * 0x8000000000000000) from a double, and from a float to a 64-bit one. */
#define F2I(NAME, FIELD, IN, MODE, TYPE, LOW, HIGH, NAN_BITS)                  \
    static void NAME(const V *in, V *out)                                      \
    {                                                                          \
        if (isnan(in[0].IN)) {                                                 \
            out->FIELD = (TYPE)(NAN_BITS);                                     \
            return;                                                            \
        }                                                                      \
        out->FIELD = (TYPE)saturate((long double)in[0].IN, MODE, LOW, HIGH);  \
    }
#define F2I_ALL(PREFIX, IN, NAN32)                                              \
    F2I(PREFIX##2int_rn, i, IN, 'n', int32_t, INT32_MIN, INT32_MAX,            \
        (NAN32) ? 0x80000000u : 0)                                             \
    F2I(PREFIX##2int_rz, i, IN, 'z', int32_t, INT32_MIN, INT32_MAX,            \
        (NAN32) ? 0x80000000u : 0)                                             \
    F2I(PREFIX##2int_ru, i, IN, 'u', int32_t, INT32_MIN, INT32_MAX,            \
        (NAN32) ? 0x80000000u : 0)                                             \
    F2I(PREFIX##2int_rd, i, IN, 'd', int32_t, INT32_MIN, INT32_MAX,            \
        (NAN32) ? 0x80000000u : 0)                                             \
    F2I(PREFIX##2uint_rn, u, IN, 'n', uint32_t, 0, UINT32_MAX,                 \
        (NAN32) ? 0x80000000u : 0)                                             \
    F2I(PREFIX##2uint_rz, u, IN, 'z', uint32_t, 0, UINT32_MAX,                 \
        (NAN32) ? 0x80000000u : 0)                                             \
    F2I(PREFIX##2uint_ru, u, IN, 'u', uint32_t, 0, UINT32_MAX,                 \
        (NAN32) ? 0x80000000u : 0)                                             \
    F2I(PREFIX##2uint_rd, u, IN, 'd', uint32_t, 0, UINT32_MAX,                 \
        (NAN32) ? 0x80000000u : 0)                                             \
    F2I(PREFIX##2ll_rn, l, IN, 'n', int64_t, INT64_MIN, INT64_MAX, INT64_MIN)  \
    F2I(PREFIX##2ll_rz, l, IN, 'z', int64_t, INT64_MIN, INT64_MAX, INT64_MIN)  \
    F2I(PREFIX##2ll_ru, l, IN, 'u', int64_t, INT64_MIN, INT64_MAX, INT64_MIN)  \
    F2I(PREFIX##2ll_rd, l, IN, 'd', int64_t, INT64_MIN, INT64_MAX, INT64_MIN)  \
    F2I(PREFIX##2ull_rn, ul, IN, 'n', uint64_t, 0, UINT64_MAX,                 \
        UINT64_C(0x8000000000000000))                                          \
    F2I(PREFIX##2ull_rz, ul, IN, 'z', uint64_t, 0, UINT64_MAX,                 \
        UINT64_C(0x8000000000000000))                                          \
    F2I(PREFIX##2ull_ru, ul, IN, 'u', uint64_t, 0, UINT64_MAX,                 \
        UINT64_C(0x8000000000000000))                                          \
    F2I(PREFIX##2ull_rd, ul, IN, 'd', uint64_t, 0, UINT64_MAX,                 \
        UINT64_C(0x8000000000000000))
F2I_ALL(float, f, 0)
F2I_ALL(double, d, 1)

#define TO_FLOAT(NAME, IN, MODE)                                               \
    static void NAME(const V *in, V *out)                                      \
    {                                                                          \
        out->f = round_to_float((long double)in[0].IN, MODE);                 \
    }
#define TO_FLOAT_ALL(PREFIX, IN)                                                \
    TO_FLOAT(PREFIX##2float_rn, IN, 'n') TO_FLOAT(PREFIX##2float_rz, IN, 'z')  \
    TO_FLOAT(PREFIX##2float_ru, IN, 'u') TO_FLOAT(PREFIX##2float_rd, IN, 'd')
TO_FLOAT_ALL(int, i)
TO_FLOAT_ALL(uint, u)
TO_FLOAT_ALL(ll, l)
TO_FLOAT_ALL(ull, ul)
TO_FLOAT_ALL(double, d)

#define TO_DOUBLE(NAME, IN, MODE)                                              \
    static void NAME(const V *in, V *out)                                      \
    {                                                                          \
        out->d = round_to_double((long double)in[0].IN, MODE);                \
    }
TO_DOUBLE(int2double_rn, i, 'n')
TO_DOUBLE(uint2double_rn, u, 'n')
TO_DOUBLE(ll2double_rn, l, 'n')
TO_DOUBLE(ll2double_rz, l, 'z')
TO_DOUBLE(ll2double_ru, l, 'u')
TO_DOUBLE(ll2double_rd, l, 'd')
TO_DOUBLE(ull2double_rn, ul, 'n')
TO_DOUBLE(ull2double_rz, ul, 'z')
TO_DOUBLE(ull2double_ru, ul, 'u')
TO_DOUBLE(ull2double_rd, ul, 'd')

/* reinterpretation: the bits, unchanged */
static void same_bits32(const V *in, V *out) { out->u = in[0].u; }
static void same_bits64(const V *in, V *out) { out->ul = in[0].ul; }
static void double2hiint(const V *in, V *out) { out->i = (int32_t)(in[0].ul >> 32); }
static void double2loint(const V *in, V *out) { out->i = (int32_t)(uint32_t)in[0].ul; }
static void hiloint2double(const V *in, V *out)
{
    out->ul = ((uint64_t)in[0].u << 32) | in[1].u;
}

/* the float -> int conversions with a constant argument: the answers are
 * PTX's whatever the optimiser does */
static void constant_conversions(const V *in, V *out) { out->i = in[0].i; }

/* ---- integer intrinsics ---------------------------------------------------- */

static int popcount64(uint64_t x)
{
    int n = 0;
    for (; x != 0; x &= x - 1)
        ++n;
    return n;
}
static void popc(const V *in, V *out) { out->i = popcount64(in[0].u); }
static void popcll(const V *in, V *out) { out->i = popcount64(in[0].ul); }
static int leading_zeros(uint64_t x, int bits)
{
    int n = 0;
    for (int b = bits - 1; b >= 0 && !((x >> b) & 1); --b)
        ++n;
    return n;
}
static void clz(const V *in, V *out) { out->i = leading_zeros(in[0].u, 32); }
static void clzll(const V *in, V *out) { out->i = leading_zeros(in[0].ul, 64); }
static int first_set(uint64_t x)
{
    for (int b = 0; b < 64; ++b)
        if ((x >> b) & 1)
            return b + 1;
    return 0;
}
static void ffs32(const V *in, V *out) { out->i = first_set(in[0].u); }
static void ffsll(const V *in, V *out) { out->i = first_set(in[0].ul); }
static uint64_t reverse_bits(uint64_t x, int bits)
{
    uint64_t r = 0;
    for (int b = 0; b < bits; ++b)
        if ((x >> b) & 1)
            r |= (uint64_t)1 << (bits - 1 - b);
    return r;
}
static void brev(const V *in, V *out) { out->u = (uint32_t)reverse_bits(in[0].u, 32); }
static void brevll(const V *in, V *out) { out->ul = reverse_bits(in[0].ul, 64); }
static void byte_perm(const V *in, V *out)
{
    uint64_t bytes = ((uint64_t)in[1].u << 32) | in[0].u;
    uint32_t r = 0;
    for (int k = 0; k < 4; ++k) {
        unsigned select = (in[2].u >> (4 * k)) & 7;
        r |= (uint32_t)((bytes >> (8 * select)) & 0xff) << (8 * k);
    }
    out->u = r;
}
/* CUDA: the shift is taken modulo 32 (_l, _r) or clamped to 32 (_lc, _rc) */
static void funnelshift(const V *in, V *out, int left, int clamp)
{
    uint64_t both = ((uint64_t)in[1].u << 32) | in[0].u;
    uint32_t shift = clamp ? (in[2].u > 32 ? 32 : in[2].u) : in[2].u & 31;
    out->u = left ? (uint32_t)((both << shift) >> 32) : (uint32_t)(both >> shift);
}
static void funnelshift_l(const V *in, V *out) { funnelshift(in, out, 1, 0); }
static void funnelshift_r(const V *in, V *out) { funnelshift(in, out, 0, 0); }
static void funnelshift_lc(const V *in, V *out) { funnelshift(in, out, 1, 1); }
static void funnelshift_rc(const V *in, V *out) { funnelshift(in, out, 0, 1); }
static void mulhi(const V *in, V *out)
{
    out->i = (int32_t)(((int64_t)in[0].i * in[1].i) >> 32);
}
static void umulhi(const V *in, V *out)
{
    out->u = (uint32_t)(((uint64_t)in[0].u * in[1].u) >> 32);
}
static void mul64hi(const V *in, V *out)
{
    out->l = (int64_t)(((__int128)in[0].l * in[1].l) >> 64);
}
static void umul64hi(const V *in, V *out)
{
    out->ul = (uint64_t)(((unsigned __int128)in[0].ul * in[1].ul) >> 64);
}
/* the low 24 bits, sign-extended from bit 23 for the signed form */
static int32_t low24_signed(int32_t x)
{
    uint32_t bits = (uint32_t)x & 0xffffffu;
    return bits & 0x800000u ? (int32_t)bits - 0x1000000 : (int32_t)bits;
}
static void mul24(const V *in, V *out)
{
    out->i = (int32_t)(uint32_t)((int64_t)low24_signed(in[0].i) *
                                 low24_signed(in[1].i));
}
static void mul24_square(const V *in, V *out)
{
    V both[3] = {in[0], in[0], in[0]};
    mul24(both, out);
}
static void umul24(const V *in, V *out)
{
    out->u = (uint32_t)((uint64_t)(in[0].u & 0xffffffu) * (in[1].u & 0xffffffu));
}
static void hadd(const V *in, V *out) { out->i = (int32_t)(((int64_t)in[0].i + in[1].i) >> 1); }
static void rhadd(const V *in, V *out) { out->i = (int32_t)(((int64_t)in[0].i + in[1].i + 1) >> 1); }
static void uhadd(const V *in, V *out) { out->u = (uint32_t)(((uint64_t)in[0].u + in[1].u) >> 1); }
static void urhadd(const V *in, V *out) { out->u = (uint32_t)(((uint64_t)in[0].u + in[1].u + 1) >> 1); }
static void sad(const V *in, V *out)
{
    int64_t d = (int64_t)in[0].i - in[1].i;
    out->u = (uint32_t)(d < 0 ? -d : d) + in[2].u;
}
static void usad(const V *in, V *out)
{
    uint32_t a = in[0].u, b = in[1].u;
    out->u = (a > b ? a - b : b - a) + in[2].u;
}
/* CUDA's abs keeps the type: abs(INT_MIN) is INT_MIN */
static void abs32(const V *in, V *out)
{
    out->u = in[0].i < 0 ? 0u - in[0].u : in[0].u;
}
static void abs64(const V *in, V *out)
{
    out->ul = in[0].l < 0 ? 0u - in[0].ul : in[0].ul;
}
/* min and max as C++'s usual arithmetic conversions meet the operands */
static void min_ii(const V *in, V *out) { out->i = in[0].i < in[1].i ? in[0].i : in[1].i; }
static void max_ii(const V *in, V *out) { out->i = in[0].i > in[1].i ? in[0].i : in[1].i; }
static void min_uu(const V *in, V *out) { out->u = in[0].u < in[1].u ? in[0].u : in[1].u; }
static void max_uu(const V *in, V *out) { out->u = in[0].u > in[1].u ? in[0].u : in[1].u; }
static void min_ll(const V *in, V *out) { out->l = in[0].l < in[1].l ? in[0].l : in[1].l; }
static void max_ll(const V *in, V *out) { out->l = in[0].l > in[1].l ? in[0].l : in[1].l; }
static void min_ull(const V *in, V *out) { out->ul = in[0].ul < in[1].ul ? in[0].ul : in[1].ul; }
static void max_ull(const V *in, V *out) { out->ul = in[0].ul > in[1].ul ? in[0].ul : in[1].ul; }
/* int with unsigned: both unsigned */
static void min_iu(const V *in, V *out)
{
    uint32_t a = (uint32_t)in[0].i, b = in[1].u;
    out->u = a < b ? a : b;
}
static void max_iu(const V *in, V *out)
{
    uint32_t a = (uint32_t)in[0].i, b = in[1].u;
    out->u = a > b ? a : b;
}
/* unsigned long long with long long: unsigned long long */
static void min_ul(const V *in, V *out)
{
    uint64_t a = in[0].ul, b = (uint64_t)in[1].l;
    out->ul = a < b ? a : b;
}
static void max_ul(const V *in, V *out)
{
    uint64_t a = in[0].ul, b = (uint64_t)in[1].l;
    out->ul = a > b ? a : b;
}
static void fmin_ff(const V *in, V *out) { out->f = fminf(in[0].f, in[1].f); }
static void fmax_ff(const V *in, V *out) { out->f = fmaxf(in[0].f, in[1].f); }

/* ---- float arithmetic --------------------------------------------------------- */

static void saturatef(const V *in, V *out)
{
    float x = in[0].f;
    out->f = isnan(x) ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x;
}
static void fadd(const V *in, V *out) { out->f = in[0].f + in[1].f; }
static void fsub(const V *in, V *out) { out->f = in[0].f - in[1].f; }
static void fmul(const V *in, V *out) { out->f = in[0].f * in[1].f; }
static void fdiv(const V *in, V *out) { out->f = in[0].f / in[1].f; }
static void frcp(const V *in, V *out) { out->f = 1.0f / in[0].f; }
static void ffma(const V *in, V *out) { out->f = fmaf(in[0].f, in[1].f, in[2].f); }
/* a*b+c with the product rounded first: what __fmul_rn promises */
static void mul_then_add(const V *in, V *out)
{
    volatile float product = in[0].f * in[1].f;
    out->f = product + in[2].f;
}
static void dadd(const V *in, V *out) { out->d = in[0].d + in[1].d; }
static void dmul(const V *in, V *out) { out->d = in[0].d * in[1].d; }
static void ddiv(const V *in, V *out) { out->d = in[0].d / in[1].d; }
static void dfma(const V *in, V *out) { out->d = fma(in[0].d, in[1].d, in[2].d); }

/* ---- math: the long double result rounded once ------------------------------ */

#define MATH1F(NAME, EXPR)                                                     \
    static void NAME(const V *in, V *out)                                      \
    {                                                                          \
        long double x = in[0].f;                                               \
        out->f = (float)(EXPR);                                                \
    }
#define MATH2F(NAME, EXPR)                                                     \
    static void NAME(const V *in, V *out)                                      \
    {                                                                          \
        long double x = in[0].f, y = in[1].f;                                  \
        out->f = (float)(EXPR);                                                \
    }
#define MATH1D(NAME, EXPR)                                                     \
    static void NAME(const V *in, V *out)                                      \
    {                                                                          \
        long double x = in[0].d;                                               \
        out->d = (double)(EXPR);                                               \
    }
#define MATH2D(NAME, EXPR)                                                     \
    static void NAME(const V *in, V *out)                                      \
    {                                                                          \
        long double x = in[0].d, y = in[1].d;                                  \
        out->d = (double)(EXPR);                                               \
    }

static const long double pi = 3.141592653589793238462643383279502884L;

static long double sinpil(long double x)
{
    /* exact at integers and halves, as CUDA's */
    if (isinf(x) || isnan(x))
        return NAN;
    long double r = fmodl(x, 2.0L);
    if (r == 0 || r == 1 || r == -1)
        return copysignl(0.0L, x);
    if (r == 0.5L || r == -1.5L)
        return 1;
    if (r == -0.5L || r == 1.5L)
        return -1;
    return sinl(pi * r);
}
static long double cospil(long double x)
{
    if (isinf(x) || isnan(x))
        return NAN;
    long double r = fmodl(fabsl(x), 2.0L);
    if (r == 0.5L || r == 1.5L)
        return 0;
    if (r == 0)
        return 1;
    if (r == 1)
        return -1;
    return cosl(pi * r);
}

MATH1F(m_sinf, sinl(x))
MATH1F(m_cosf, cosl(x))
MATH1F(m_tanf, tanl(x))
MATH1F(m_asinf, asinl(x))
MATH1F(m_acosf, acosl(x))
MATH1F(m_atanf, atanl(x))
MATH2F(m_atan2f, atan2l(x, y))
MATH1F(m_sinhf, sinhl(x))
MATH1F(m_coshf, coshl(x))
MATH1F(m_tanhf, tanhl(x))
MATH1F(m_asinhf, asinhl(x))
MATH1F(m_acoshf, acoshl(x))
MATH1F(m_atanhf, atanhl(x))
MATH1F(m_sinpif, sinpil(x))
MATH1F(m_cospif, cospil(x))
MATH1F(m_expf, expl(x))
MATH1F(m_exp2f, exp2l(x))
MATH1F(m_exp10f, powl(10.0L, x))
MATH1F(m_expm1f, expm1l(x))
MATH1F(m_logf, logl(x))
MATH1F(m_log2f, log2l(x))
MATH1F(m_log10f, log10l(x))
MATH1F(m_log1pf, log1pl(x))
MATH1F(m_logbf, logbl(x))
MATH2F(m_powf, powl(x, y))
MATH1F(m_sqrtf, sqrtl(x))
MATH1F(m_rsqrtf, 1.0L / sqrtl(x))
MATH1F(m_cbrtf, cbrtl(x))
MATH1F(m_rcbrtf, 1.0L / cbrtl(x))
MATH2F(m_hypotf, hypotl(x, y))
MATH1F(m_fabsf, fabsl(x))
MATH1F(m_floorf, floorl(x))
MATH1F(m_ceilf, ceill(x))
MATH1F(m_truncf, truncl(x))
MATH1F(m_roundf, roundl(x))
MATH1F(m_rintf, nearbyintl(x))
MATH2F(m_fmodf, fmodl(x, y))
MATH2F(m_remainderf, remainderl(x, y))
MATH2F(m_fdimf, fdiml(x, y))
MATH2F(m_copysignf, copysignl(x, y))
MATH1F(m_erff, erfl(x))
MATH1F(m_erfcf, erfcl(x))
MATH1F(m_tgammaf, tgammal(x))
MATH1F(m_lgammaf, lgammal(x))
MATH1F(m_sin_from_sincos, sinl(x))
MATH1F(m_cos_from_sincos, cosl(x))
MATH1F(m_sinpi_from_sincos, sinpil(x))
MATH1F(m_cospi_from_sincos, cospil(x))
static void m_nextafterf(const V *in, V *out) { out->f = nextafterf(in[0].f, in[1].f); }
static void m_ldexpf(const V *in, V *out)
{
    out->f = (float)ldexpl(in[0].f, in[1].i);
}
/* CUDA: ilogbf(0) and ilogbf(NaN) are INT_MIN, ilogbf(inf) INT_MAX */
static void m_ilogbf(const V *in, V *out)
{
    float x = in[0].f;
    out->i = x == 0 || isnan(x) ? INT32_MIN : isinf(x) ? INT32_MAX : ilogbf(x);
}
static void m_lrintf(const V *in, V *out) { out->l = (int64_t)nearbyintl(in[0].f); }
static void m_lroundf(const V *in, V *out) { out->l = (int64_t)roundl(in[0].f); }

MATH1D(m_sin, sinl(x))
MATH1D(m_cos, cosl(x))
MATH1D(m_tan, tanl(x))
MATH1D(m_exp, expl(x))
MATH1D(m_log, logl(x))
/* glibc's sqrt is correctly rounded; long double would round twice */
static void m_sqrt(const V *in, V *out) { out->d = sqrt(in[0].d); }
MATH1D(m_cbrt, cbrtl(x))
MATH2D(m_pow, powl(x, y))
MATH2D(m_atan2, atan2l(x, y))
MATH1D(m_floor, floorl(x))
MATH1D(m_fabs, fabsl(x))
MATH1D(m_sin_d_from_sincos, sinl(x))
MATH1D(m_cos_d_from_sincos, cosl(x))

/* ---- the table ------------------------------------------------------------------ */

#define F32 BT_F32
#define F64 BT_F64
#define I32 BT_I32
#define U32 BT_U32
#define I64 BT_I64
#define U64 BT_U64
#define NONE {BT_NONE, BT_NONE, BT_NONE}
#define IN1(T) {T, BT_NONE, BT_NONE}
#define IN2(T, U) {T, U, BT_NONE}
#define IN3(T, U, W) {T, U, W}
#define ANY {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}
#define D1(LOW, HIGH) {{LOW, HIGH, 0}, {0, 0, 0}, {0, 0, 0}}
#define D1LOG(LOW, HIGH) {{LOW, HIGH, 1}, {0, 0, 0}, {0, 0, 0}}
#define D2(LA, HA, LB, HB) {{LA, HA, 0}, {LB, HB, 0}, {0, 0, 0}}
#define D2LOG(LA, HA, LB, HB) {{LA, HA, 1}, {LB, HB, 1}, {0, 0, 0}}

/* a row converting a[i] with intrinsic NAME from type IN to OUT */
#define CONVERT(NAME, OUT, IN, MODEL)                                          \
    {#NAME, "r = " #NAME "(a[i]);", OUT, IN1(IN), D1LOG(-1e20, 1e20), MODEL, \
     0, 0, 0, 0}
#define CONVERT_ALL_F2I(PREFIX, IN)                                             \
    CONVERT(__##PREFIX##2int_rn, I32, IN, PREFIX##2int_rn),                   \
    CONVERT(__##PREFIX##2int_rz, I32, IN, PREFIX##2int_rz),                   \
    CONVERT(__##PREFIX##2int_ru, I32, IN, PREFIX##2int_ru),                   \
    CONVERT(__##PREFIX##2int_rd, I32, IN, PREFIX##2int_rd),                   \
    CONVERT(__##PREFIX##2uint_rn, U32, IN, PREFIX##2uint_rn),                 \
    CONVERT(__##PREFIX##2uint_rz, U32, IN, PREFIX##2uint_rz),                 \
    CONVERT(__##PREFIX##2uint_ru, U32, IN, PREFIX##2uint_ru),                 \
    CONVERT(__##PREFIX##2uint_rd, U32, IN, PREFIX##2uint_rd),                 \
    CONVERT(__##PREFIX##2ll_rn, I64, IN, PREFIX##2ll_rn),                     \
    CONVERT(__##PREFIX##2ll_rz, I64, IN, PREFIX##2ll_rz),                     \
    CONVERT(__##PREFIX##2ll_ru, I64, IN, PREFIX##2ll_ru),                     \
    CONVERT(__##PREFIX##2ll_rd, I64, IN, PREFIX##2ll_rd),                     \
    CONVERT(__##PREFIX##2ull_rn, U64, IN, PREFIX##2ull_rn),                   \
    CONVERT(__##PREFIX##2ull_rz, U64, IN, PREFIX##2ull_rz),                   \
    CONVERT(__##PREFIX##2ull_ru, U64, IN, PREFIX##2ull_ru),                   \
    CONVERT(__##PREFIX##2ull_rd, U64, IN, PREFIX##2ull_rd)
#define CONVERT_ALL_TO_FLOAT(PREFIX, IN)                                        \
    CONVERT(__##PREFIX##2float_rn, F32, IN, PREFIX##2float_rn),               \
    CONVERT(__##PREFIX##2float_rz, F32, IN, PREFIX##2float_rz),               \
    CONVERT(__##PREFIX##2float_ru, F32, IN, PREFIX##2float_ru),               \
    CONVERT(__##PREFIX##2float_rd, F32, IN, PREFIX##2float_rd)

/* a math row: NAME applied to the inputs, an error bound in ulps */
#define MATH1(NAME, OUT, DOMAIN, MODEL, ULPS)                                  \
    {#NAME, "r = " #NAME "(a[i]);", OUT, IN1(OUT), DOMAIN, MODEL, ULPS, 0, 0, 0}
#define MATH2(NAME, OUT, DOMAIN, MODEL, ULPS)                                  \
    {#NAME, "r = " #NAME "(a[i], b[i]);", OUT, IN2(OUT, OUT), DOMAIN, MODEL,  \
     ULPS, 0, 0, 0}
#define EXACT2(NAME, OUT, A, B, MODEL)                                         \
    {#NAME, "r = " #NAME "(a[i], b[i]);", OUT, IN2(A, B), ANY, MODEL, 0, 0, 0, 0}
#define EXACT3(NAME, OUT, A, B, C, MODEL)                                      \
    {#NAME, "r = " #NAME "(a[i], b[i], c[i]);", OUT, IN3(A, B, C), ANY, MODEL, \
     0, 0, 0, 0}

/* the argument expression in[k++] once: r is the result, plus 1000 for
 * every extra evaluation */
#define ONCE(NAME, OUT, IN, CALL, MODEL, ULPS)                                 \
    {NAME " evaluates its argument once",                                      \
     "int k = i; r = " CALL "; r += (" #OUT ")(1000 * (k - i - 1));",         \
     OUT##_TYPE, IN1(IN), D1(-3, 3), MODEL, ULPS, 0, 0, 0}
#define float_TYPE F32
#define double_TYPE F64
#define int_TYPE I32
#define unsigned_TYPE U32

static const builtin_case cases[] = {
    /* C4: PTX cvt saturates, and NaN gives what the hardware gives, in every
     * rounding */
    CONVERT_ALL_F2I(float, F32),
    CONVERT_ALL_F2I(double, F64),
    {"__float2int_rz/__float2uint_rn/__float2ll_rd of constants",
     "r = (__float2int_rz(3.0e9f) == 2147483647 && "
     "__float2int_rn(-3.0e9f) == (-2147483647 - 1) && "
     "__float2uint_rn(-5.0f) == 0u && __float2uint_rz(1.0e10f) == 4294967295u && "
     "__float2int_rn(__int_as_float(0x7fc00000)) == 0 && "
     "__float2ll_rd(1.0e30f) == 9223372036854775807LL && "
     "__float2ull_rz(-1.0f) == 0ull) ? a[i] : -7;",
     I32, IN1(I32), ANY, constant_conversions, 0, 0, 0, 0},
    CONVERT_ALL_TO_FLOAT(int, I32),
    CONVERT_ALL_TO_FLOAT(uint, U32),
    CONVERT_ALL_TO_FLOAT(ll, I64),
    CONVERT_ALL_TO_FLOAT(ull, U64),
    CONVERT_ALL_TO_FLOAT(double, F64),
    CONVERT(__int2double_rn, F64, I32, int2double_rn),
    CONVERT(__uint2double_rn, F64, U32, uint2double_rn),
    CONVERT(__ll2double_rn, F64, I64, ll2double_rn),
    CONVERT(__ll2double_rz, F64, I64, ll2double_rz),
    CONVERT(__ll2double_ru, F64, I64, ll2double_ru),
    CONVERT(__ll2double_rd, F64, I64, ll2double_rd),
    CONVERT(__ull2double_rn, F64, U64, ull2double_rn),
    CONVERT(__ull2double_rz, F64, U64, ull2double_rz),
    CONVERT(__ull2double_ru, F64, U64, ull2double_ru),
    CONVERT(__ull2double_rd, F64, U64, ull2double_rd),
    CONVERT(__float_as_int, I32, F32, same_bits32),
    CONVERT(__float_as_uint, U32, F32, same_bits32),
    CONVERT(__int_as_float, F32, I32, same_bits32),
    CONVERT(__uint_as_float, F32, U32, same_bits32),
    CONVERT(__double_as_longlong, I64, F64, same_bits64),
    CONVERT(__longlong_as_double, F64, I64, same_bits64),
    CONVERT(__double2hiint, I32, F64, double2hiint),
    CONVERT(__double2loint, I32, F64, double2loint),
    EXACT2(__hiloint2double, F64, I32, I32, hiloint2double),

    /* integer intrinsics, C6 among them: 24-bit multiplies */
    CONVERT(__popc, I32, U32, popc),
    CONVERT(__popcll, I32, U64, popcll),
    CONVERT(__clz, I32, I32, clz),
    CONVERT(__clzll, I32, I64, clzll),
    CONVERT(__ffs, I32, I32, ffs32),
    CONVERT(__ffsll, I32, I64, ffsll),
    CONVERT(__brev, U32, U32, brev),
    CONVERT(__brevll, U64, U64, brevll),
    EXACT3(__byte_perm, U32, U32, U32, U32, byte_perm),
    EXACT3(__funnelshift_l, U32, U32, U32, U32, funnelshift_l),
    EXACT3(__funnelshift_r, U32, U32, U32, U32, funnelshift_r),
    EXACT3(__funnelshift_lc, U32, U32, U32, U32, funnelshift_lc),
    EXACT3(__funnelshift_rc, U32, U32, U32, U32, funnelshift_rc),
    EXACT2(__mulhi, I32, I32, I32, mulhi),
    EXACT2(__umulhi, U32, U32, U32, umulhi),
    EXACT2(__mul64hi, I64, I64, I64, mul64hi),
    EXACT2(__umul64hi, U64, U64, U64, umul64hi),
    EXACT2(__mul24, I32, I32, I32, mul24),
    EXACT2(__umul24, U32, U32, U32, umul24),
    EXACT2(__hadd, I32, I32, I32, hadd),
    EXACT2(__rhadd, I32, I32, I32, rhadd),
    EXACT2(__uhadd, U32, U32, U32, uhadd),
    EXACT2(__urhadd, U32, U32, U32, urhadd),
    EXACT3(__sad, U32, I32, I32, U32, sad),
    EXACT3(__usad, U32, U32, U32, U32, usad),
    CONVERT(abs, I32, I32, abs32),
    CONVERT(llabs, I64, I64, abs64),
    /* CUDA's min and max: C++ overloads, the usual conversions */
    EXACT2(min, I32, I32, I32, min_ii),
    EXACT2(max, I32, I32, I32, max_ii),
    EXACT2(min, U32, U32, U32, min_uu),
    EXACT2(max, U32, U32, U32, max_uu),
    EXACT2(min, I64, I64, I64, min_ll),
    EXACT2(max, I64, I64, I64, max_ll),
    EXACT2(min, U64, U64, U64, min_ull),
    EXACT2(max, U64, U64, U64, max_ull),
    EXACT2(min, U32, I32, U32, min_iu),
    EXACT2(max, U32, I32, U32, max_iu),
    EXACT2(min, U64, U64, I64, min_ul),
    EXACT2(max, U64, U64, I64, max_ul),
    EXACT2(umin, U32, U32, U32, min_uu),
    EXACT2(umax, U32, U32, U32, max_uu),
    EXACT2(llmin, I64, I64, I64, min_ll),
    EXACT2(llmax, I64, I64, I64, max_ll),
    EXACT2(ullmin, U64, U64, U64, min_ull),
    EXACT2(ullmax, U64, U64, U64, max_ull),
    EXACT2(min, F32, F32, F32, fmin_ff),
    EXACT2(max, F32, F32, F32, fmax_ff),

    /* C5: each argument evaluated once */
    ONCE("sincosf", float, F32,
         "0; { float s, c; sincosf(a[k++], &s, &c); r = s; }",
         m_sin_from_sincos, 2),
    ONCE("sincosf (cosine)", float, F32,
         "0; { float s, c; sincosf(a[k++], &s, &c); r = c; }",
         m_cos_from_sincos, 2),
    ONCE("sincospif", float, F32,
         "0; { float s, c; sincospif(a[k++], &s, &c); r = s; }",
         m_sinpi_from_sincos, 1),
    ONCE("sincospif (cosine)", float, F32,
         "0; { float s, c; sincospif(a[k++], &s, &c); r = c; }",
         m_cospi_from_sincos, 1),
    ONCE("sincos", double, F64,
         "0; { double s, c; sincos(a[k++], &s, &c); r = s; }",
         m_sin_d_from_sincos, 2),
    ONCE("sincos (cosine)", double, F64,
         "0; { double s, c; sincos(a[k++], &s, &c); r = c; }",
         m_cos_d_from_sincos, 2),
    {"__brevll evaluates its argument once",
     "int k = i; r = __brevll(a[k++]); r += (unsigned long long)(1000 * (k - i - 1));",
     U64, IN1(U64), ANY, brevll, 0, 0, 0, 0},
    {"min evaluates its arguments once",
     "int k = i, j = i; r = min(a[k++], b[j++]); r += 1000 * (k - i - 1) + 1000 * (j - i - 1);",
     I32, IN2(I32, I32), D2(-1000, 1000, -1000, 1000), min_ii, 0, 0, 0, 0},
    {"abs evaluates its argument once",
     "int k = i; r = abs(a[k++]); r += 1000 * (k - i - 1);",
     I32, IN1(I32), D1(-1000, 1000), abs32, 0, 0, 0, 0},
    {"__float2int_rn evaluates its argument once",
     "int k = i; r = __float2int_rn(a[k++]); r += 1000 * (k - i - 1);",
     I32, IN1(F32), D1(-1000, 1000), float2int_rn, 0, 0, 0, 0},
    {"__saturatef evaluates its argument once",
     "int k = i; r = __saturatef(a[k++]); r += (float)(1000 * (k - i - 1));",
     F32, IN1(F32), D1(-2, 2), saturatef, 0, 0, 0, 0},
    {"__mul24 evaluates its arguments once",
     "int k = i, j = i; r = __mul24(a[k++], a[j++]); r += 1000 * (k + j - 2 * i - 2);",
     I32, IN1(I32), D1(-1000, 1000), mul24_square, 0, 0, 0, 0},

    /* float arithmetic with round-to-nearest: exact, never contracted */
    CONVERT(__saturatef, F32, F32, saturatef),
    {"__fadd_rn", "r = __fadd_rn(a[i], b[i]);", F32, IN2(F32, F32), ANY, fadd, 0, 0, 0, 0},
    {"__fsub_rn", "r = __fsub_rn(a[i], b[i]);", F32, IN2(F32, F32), ANY, fsub, 0, 0, 0, 0},
    {"__fmul_rn", "r = __fmul_rn(a[i], b[i]);", F32, IN2(F32, F32), ANY, fmul, 0, 0, 0, 0},
    {"__fdiv_rn", "r = __fdiv_rn(a[i], b[i]);", F32, IN2(F32, F32), ANY, fdiv, 0, 0, 0, 0},
    {"__frcp_rn", "r = __frcp_rn(a[i]);", F32, IN1(F32), ANY, frcp, 0, 0, 0, 0},
    {"__fmaf_rn", "r = __fmaf_rn(a[i], b[i], c[i]);", F32, IN3(F32, F32, F32), ANY, ffma, 0, 0, 0, 0},
    {"fmaf", "r = fmaf(a[i], b[i], c[i]);", F32, IN3(F32, F32, F32), ANY, ffma, 0, 0, 0, 0},
    {"__fmul_rn then + (not contracted)", "r = __fmul_rn(a[i], b[i]) + c[i];",
     F32, IN3(F32, F32, F32), ANY, mul_then_add, 0, 0, 0, 0},
    {"__fsqrt_rn", "r = __fsqrt_rn(a[i]);", F32, IN1(F32), D1LOG(0, 1e30), m_sqrtf, 0, 0, 0, 0},
    {"__dadd_rn", "r = __dadd_rn(a[i], b[i]);", F64, IN2(F64, F64), ANY, dadd, 0, 0, 0, 0},
    {"__dmul_rn", "r = __dmul_rn(a[i], b[i]);", F64, IN2(F64, F64), ANY, dmul, 0, 0, 0, 0},
    {"__ddiv_rn", "r = __ddiv_rn(a[i], b[i]);", F64, IN2(F64, F64), ANY, ddiv, 0, 0, 0, 0},
    {"__fma_rn", "r = __fma_rn(a[i], b[i], c[i]);", F64, IN3(F64, F64, F64), ANY, dfma, 0, 0, 0, 0},

    /* the single-precision math library: the Programming Guide's bounds */
    MATH1(sinf, F32, D1(-100, 100), m_sinf, 2),
    MATH1(cosf, F32, D1(-100, 100), m_cosf, 2),
    MATH1(tanf, F32, D1(-100, 100), m_tanf, 4),
    MATH1(asinf, F32, D1(-1, 1), m_asinf, 2),
    MATH1(acosf, F32, D1(-1, 1), m_acosf, 2),
    MATH1(atanf, F32, D1LOG(-1e6, 1e6), m_atanf, 2),
    MATH2(atan2f, F32, D2(-10, 10, -10, 10), m_atan2f, 3),
    MATH1(sinhf, F32, D1(-80, 80), m_sinhf, 3),
    MATH1(coshf, F32, D1(-80, 80), m_coshf, 2),
    MATH1(tanhf, F32, D1(-10, 10), m_tanhf, 2),
    MATH1(asinhf, F32, D1LOG(-1e6, 1e6), m_asinhf, 3),
    MATH1(acoshf, F32, D1LOG(1, 1e6), m_acoshf, 4),
    MATH1(atanhf, F32, D1(-1, 1), m_atanhf, 3),
    MATH1(sinpif, F32, D1(-100, 100), m_sinpif, 1),
    MATH1(cospif, F32, D1(-100, 100), m_cospif, 1),
    MATH1(expf, F32, D1(-87, 88), m_expf, 2),
    MATH1(exp2f, F32, D1(-126, 127), m_exp2f, 2),
    MATH1(exp10f, F32, D1(-37, 38), m_exp10f, 2),
    MATH1(expm1f, F32, D1(-20, 88), m_expm1f, 1),
    MATH1(logf, F32, D1LOG(0, 1e30), m_logf, 1),
    MATH1(log2f, F32, D1LOG(0, 1e30), m_log2f, 1),
    MATH1(log10f, F32, D1LOG(0, 1e30), m_log10f, 2),
    MATH1(log1pf, F32, D1LOG(-1, 1e30), m_log1pf, 1),
    MATH1(logbf, F32, D1LOG(-1e30, 1e30), m_logbf, 0),
    {"ilogbf", "r = ilogbf(a[i]);", I32, IN1(F32), D1LOG(-1e30, 1e30), m_ilogbf, 0, 0, 0, 0},
    MATH2(powf, F32, D2(0, 10, -10, 10), m_powf, 4),
    MATH1(sqrtf, F32, D1LOG(0, 1e30), m_sqrtf, 0),
    MATH1(rsqrtf, F32, D1LOG(0, 1e30), m_rsqrtf, 2),
    MATH1(cbrtf, F32, D1LOG(-1e30, 1e30), m_cbrtf, 1),
    MATH1(rcbrtf, F32, D1LOG(-1e30, 1e30), m_rcbrtf, 1),
    MATH2(hypotf, F32, D2LOG(-1e15, 1e15, -1e15, 1e15), m_hypotf, 3),
    MATH1(fabsf, F32, D1(-100, 100), m_fabsf, 0),
    MATH1(floorf, F32, D1(-100, 100), m_floorf, 0),
    MATH1(ceilf, F32, D1(-100, 100), m_ceilf, 0),
    MATH1(truncf, F32, D1(-100, 100), m_truncf, 0),
    MATH1(roundf, F32, D1(-100, 100), m_roundf, 0),
    MATH1(rintf, F32, D1(-100, 100), m_rintf, 0),
    MATH1(nearbyintf, F32, D1(-100, 100), m_rintf, 0),
    {"lrintf", "r = lrintf(a[i]);", I64, IN1(F32), D1(-1e6, 1e6), m_lrintf, 0, 0, -9e18, 9e18},
    {"llrintf", "r = llrintf(a[i]);", I64, IN1(F32), D1(-1e6, 1e6), m_lrintf, 0, 0, -9e18, 9e18},
    {"lroundf", "r = lroundf(a[i]);", I64, IN1(F32), D1(-1e6, 1e6), m_lroundf, 0, 0, -9e18, 9e18},
    {"llroundf", "r = llroundf(a[i]);", I64, IN1(F32), D1(-1e6, 1e6), m_lroundf, 0, 0, -9e18, 9e18},
    MATH2(fmodf, F32, D2(-100, 100, -10, 10), m_fmodf, 0),
    MATH2(remainderf, F32, D2(-100, 100, -10, 10), m_remainderf, 0),
    MATH2(fminf, F32, D2(-100, 100, -100, 100), fmin_ff, 0),
    MATH2(fmaxf, F32, D2(-100, 100, -100, 100), fmax_ff, 0),
    MATH2(fdimf, F32, D2(-100, 100, -100, 100), m_fdimf, 0),
    MATH2(copysignf, F32, D2(-100, 100, -100, 100), m_copysignf, 0),
    MATH2(nextafterf, F32, D2(-100, 100, -100, 100), m_nextafterf, 0),
    {"ldexpf", "r = ldexpf(a[i], b[i]);", F32, IN2(F32, I32), D2(-100, 100, -300, 300), m_ldexpf, 0, 0, 0, 0},
    {"scalbnf", "r = scalbnf(a[i], b[i]);", F32, IN2(F32, I32), D2(-100, 100, -300, 300), m_ldexpf, 0, 0, 0, 0},
    MATH1(erff, F32, D1(-5, 5), m_erff, 2),
    MATH1(erfcf, F32, D1(-5, 10), m_erfcf, 4),
    MATH1(tgammaf, F32, D1(-10, 35), m_tgammaf, 5),
    {"lgammaf", "r = lgammaf(a[i]);", F32, IN1(F32), D1(0.01, 1e10), m_lgammaf, 6, 0, -2.26, 3.4e38},

    /* the fast intrinsics: CUDA's bounds where it gives them */
    {"__sinf", "r = __sinf(a[i]);", F32, IN1(F32), D1(-3.14159, 3.14159), m_sinf, 0, 0x1p-21, -3.14159, 3.14159},
    {"__cosf", "r = __cosf(a[i]);", F32, IN1(F32), D1(-3.14159, 3.14159), m_cosf, 0, 0x1p-21, -3.14159, 3.14159},
    {"__expf", "r = __expf(a[i]);", F32, IN1(F32), D1(-1, 1), m_expf, 4, 0, -1, 1},
    {"__logf", "r = __logf(a[i]);", F32, IN1(F32), D1(0.5, 2), m_logf, 0, 0x1p-21, 0.5, 2},
    {"__log2f", "r = __log2f(a[i]);", F32, IN1(F32), D1(0.5, 2), m_log2f, 0, 0x1p-21, 0.5, 2},
    {"__log10f", "r = __log10f(a[i]);", F32, IN1(F32), D1(0.5, 2), m_log10f, 0, 0x1p-21, 0.5, 2},
    {"__fdividef", "r = __fdividef(a[i], b[i]);", F32, IN2(F32, F32), D2(-100, 100, 0.01, 100), fdiv, 2, 0, 0.01, 1e30},

    /* double precision, through OpenCL's overloads */
    MATH1(sin, F64, D1(-100, 100), m_sin, 2),
    MATH1(cos, F64, D1(-100, 100), m_cos, 2),
    /* CUDA documents 2 ulps; the translation calls OpenCL's tan, which
     * OpenCL C 1.2 allows 5 (PoCL 3.1: 3 at -76.178777141491793) */
    MATH1(tan, F64, D1(-100, 100), m_tan, 5),
    MATH1(exp, F64, D1(-700, 700), m_exp, 1),
    MATH1(log, F64, D1LOG(0, 1e300), m_log, 1),
    MATH1(sqrt, F64, D1LOG(0, 1e300), m_sqrt, 0),
    MATH1(cbrt, F64, D1LOG(-1e300, 1e300), m_cbrt, 1),
    MATH2(pow, F64, D2(0, 10, -30, 30), m_pow, 2),
    MATH2(atan2, F64, D2(-10, 10, -10, 10), m_atan2, 2),
    MATH1(floor, F64, D1(-100, 100), m_floor, 0),
    MATH1(fabs, F64, D1(-100, 100), m_fabs, 0),
};

static void cuda_intrinsics_match_cuda(void **state)
{
    builtin_table_run(state, BUILTIN_CUDA_C, NULL, cases,
                      sizeof cases / sizeof cases[0]);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(cuda_intrinsics_match_cuda),
    };
    return kiln_test_main("cuda_intrinsics", tests,
                          sizeof tests / sizeof tests[0]);
}
