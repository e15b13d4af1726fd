/*
 * cuda_fp16.h and cuda_bf16.h for the OpenCL translation, written in the
 * C++ this phase lowers (structs with constructors, conversion functions
 * and operators; overloads), read before the program like the
 * cooperative groups of cxx_builtins.c.  On the CUDA backend NVRTC
 * includes the toolkit's own headers; this text is never seen there.
 *
 * Storage is CUDA's: a __half or __nv_bfloat16 is a struct of one
 * unsigned short (`__x`, as in CUDA), a pair two of them, so buffers of
 * them are 2 and 4 bytes an element and take numpy's float16 and
 * bfloat16 bit patterns.  Arithmetic is done in float and rounded once to
 * the 16-bit type with integer operations (round to nearest even, NaN,
 * infinities and subnormals as CUDA gives them), which needs no
 * cl_khr_fp16.  Why each result is CUDA's:
 *  - +, -, *, / and sqrt of two values of p bits computed in a format of
 *    at least 2p + 2 bits and rounded again give the correctly rounded
 *    result (float's 24 bits: half's p is 11, bfloat16's 8), which is what
 *    CUDA's add.f16, mul.f16, fma.rn.bf16-based operations give.  Division
 *    is float's correctly rounded division (the translation builds with
 *    -cl-fp32-correctly-rounded-divide-sqrt).
 *  - fma: the product of two halves is exact in float, and the sum is
 *    rounded to odd (TwoSum's exact error decides the last bit), so the
 *    second rounding to half is the single rounding of a*b+c; bfloat16's
 *    product can leave float's range, so its sum goes through double
 *    (a program that uses it needs cl_khr_fp64).
 *  - conversions from double and from integers that float cannot hold
 *    exactly are rounded to odd first for the same reason.
 * Math (hexp, hsqrt, h2log...): CUDA 13 gives the correctly rounded
 * result of each for every one of the 65536 inputs of either type
 * (measured on an H200: gpu-requests' half-math-probe), so each is that:
 *  - hsqrt and hrcp are one correctly rounded float operation (sqrt,
 *    1 / x), rounded again: exact by the 2p + 2 rule above;
 *    hfloor, hceil, htrunc and hrint are exact in float and their result
 *    is a value of the type.
 *  - hexp, hexp2, hexp10, hlog, hlog2, hlog10, hsin, hcos, htanh and
 *    hrsqrt are computed in double (OpenCL's bounds: 4 ulp at most, sin
 *    and cos, 5 tanh) and rounded once from double to 16 bits
 *    (__kiln_double2bits16).  That gives the correctly rounded result
 *    unless the exact value lies within those few double ulps of a
 *    midpoint between two 16-bit values.  Over all 65536 inputs of each
 *    type and function, computed with 160-bit arithmetic (mpmath), the
 *    nearest lies 1.5e7 double ulps away (half's hexp10(-0.003727),
 *    about 2^-29 of the value); the results within 160 bits of a 16-bit
 *    value are that value (exp2, log2 of powers of two...) or lie as far
 *    from a midpoint as it does; the only results that are midpoints
 *    exactly are hexp2(-25) for half and hexp2(-134) for bfloat16 (half
 *    the least subnormal: rounds to 0), which hexp2 makes exactly with
 *    ldexp.  test_cuda_half checks every input.  A device without
 *    cl_khr_fp64 is refused these names (cx_refuse_half): float's few
 *    ulps round some inputs the other way (on PoCL 15 of half's 1048576
 *    results and 1 of bfloat16's, in test_cuda_half).
 * The approximations CUDA names so (htanh_approx) are refused.
 */
#include "cxx_internal.h"

#include <string.h>

/* Bit conversions shared by both types; no float arithmetic, so no
 * device's flushing of subnormals reaches them. */
static const char cx_half_common_text[] =
    "__device__ unsigned short __kiln_float2half_bits(float f) {"
    "  unsigned int x = __float_as_uint(f);"
    "  unsigned int sign = (x >> 16) & 0x8000u;"
    "  unsigned int u = x & 0x7fffffffu;"
    "  unsigned int h, rest, halfway;"
    "  if (u > 0x7f800000u) return (unsigned short)0x7fffu;"
    "  if (u >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);"
    "  if (u >= 0x38800000u) {"
    "    u -= 0x38000000u; h = u >> 13; rest = u & 0x1fffu; halfway = 0x1000u;"
    "  } else if (u <= 0x33000000u) {"
    "    return (unsigned short)sign;"
    "  } else {"
    "    unsigned int shift = 126u - (u >> 23);"
    "    unsigned int m = (u & 0x7fffffu) | 0x800000u;"
    "    h = m >> shift; rest = m & ((1u << shift) - 1u);"
    "    halfway = 1u << (shift - 1u);"
    "  }"
    "  if (rest > halfway || (rest == halfway && (h & 1u) != 0u)) h += 1u;"
    "  return (unsigned short)(sign | h);"
    "}"
    "__device__ float __kiln_half2float_bits(unsigned short bits) {"
    "  unsigned int h = bits;"
    "  unsigned int sign = (h & 0x8000u) << 16;"
    "  unsigned int e = (h >> 10) & 0x1fu;"
    "  unsigned int m = h & 0x3ffu;"
    "  if (e == 31u) return __uint_as_float(sign | 0x7f800000u | (m << 13));"
    "  if (e == 0u) {"
    "    if (m == 0u) return __uint_as_float(sign);"
    "    e = 113u;"
    "    while ((m & 0x400u) == 0u) { m <<= 1; e -= 1u; }"
    "    return __uint_as_float(sign | (e << 23) | ((m & 0x3ffu) << 13));"
    "  }"
    "  return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));"
    "}"
    "__device__ unsigned short __kiln_float2bfloat16_bits(float f) {"
    "  unsigned int u = __float_as_uint(f);"
    "  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)0x7fffu;"
    "  u += 0x7fffu + ((u >> 16) & 1u);"
    "  return (unsigned short)(u >> 16);"
    "}"
    "__device__ float __kiln_bfloat162float_bits(unsigned short bits) {"
    "  return __uint_as_float((unsigned int)bits << 16);"
    "}"
    /* f, the nearest float to an exact value, made its rounding to odd:
     * `above` says the exact value is further from zero than f */
    "__device__ float __kiln_float_to_odd(float f, bool inexact, bool above) {"
    "  unsigned int u = __float_as_uint(f);"
    "  if (!inexact || (u & 1u) != 0u || (u & 0x7fffffffu) >= 0x7f800000u)"
    "    return f;"
    "  return __uint_as_float(above ? u + 1u : u - 1u);"
    "}"
    "__device__ float __kiln_ll2float_odd(long long v) {"
    "  float f = (float)v;"
    "  long long back = (long long)f;"
    "  return __kiln_float_to_odd(f, back != v, (back < v) == (v > 0));"
    "}"
    "__device__ float __kiln_double2float_odd(double d) {"
    "  float f = (float)d;"
    "  double back = (double)f;"
    "  return __kiln_float_to_odd(f, back != d && d == d,"
    "                             (back < d) == (d > 0.0));"
    "}"
    /* a*b+c rounded to odd in float: a*b exact (two 11-bit significands
     * within float's range), the sum's error exact (TwoSum) */
    "__device__ float __kiln_fma_odd_float(float a, float b, float c) {"
    "  float p = a * b;"
    "  float s = p + c;"
    "  float z = s - p;"
    "  float e = (p - (s - z)) + (c - z);"
    "  if (e != e) return s;"
    "  return __kiln_float_to_odd(s, e != 0.0f, (e > 0.0f) == (s > 0.0f));"
    "}"
    /* the same in double, rounded to odd again to float: a*b is exact in
     * double for every bfloat16 */
    "__device__ float __kiln_fma_odd_double(float a, float b, float c) {"
    "  double p = (double)a * (double)b;"
    "  double s = p + (double)c;"
    "  double z = s - p;"
    "  double e = (p - (s - z)) + ((double)c - z);"
    "  if (e != e) return (float)s;"
    "  if (e != 0.0) {"
    "    unsigned long long u = (unsigned long long)__double_as_longlong(s);"
    "    if ((u & 1ull) == 0ull)"
    "      s = __longlong_as_double((long long)(((e > 0.0) == (s > 0.0)) ? u + 1ull : u - 1ull));"
    "  }"
    "  return __kiln_double2float_odd(s);"
    "}"
    /* d rounded once, to nearest even, to a 16-bit format of `mbits`
     * fraction bits whose normal exponents run from emin to emax: with
     * integers on the double's bits, so no float rounding comes between
     * (double -> float -> half would round twice) and no device's
     * flushing of subnormals reaches it */
    "__device__ unsigned short __kiln_double2bits16(double d, int mbits,"
    "                                               int emin, int emax) {"
    "  unsigned long long x = (unsigned long long)__double_as_longlong(d);"
    "  unsigned int sign = (unsigned int)(x >> 48) & 0x8000u;"
    "  unsigned long long u = x & 0x7fffffffffffffffull;"
    "  unsigned int inf = (unsigned int)(emax - emin + 2) << mbits;"
    "  if (u > 0x7ff0000000000000ull) return (unsigned short)0x7fffu;"
    "  int e = (int)(u >> 52) - 1023;"
    "  if (e > emax) return (unsigned short)(sign | inf);"
    "  if ((u >> 52) == 0ull) return (unsigned short)sign;"
    "  unsigned long long m = (u & 0xfffffffffffffull) | 0x10000000000000ull;"
    "  int shift = 52 - mbits + (e < emin ? emin - e : 0);"
    "  if (shift > 62) return (unsigned short)sign;"
    "  unsigned long long q = m >> shift;"
    "  unsigned long long rest = m & ((1ull << shift) - 1ull);"
    "  unsigned long long halfway = 1ull << (shift - 1);"
    "  if (rest > halfway || (rest == halfway && (q & 1ull) != 0ull)) q += 1ull;"
    /* a carry out of the fraction raises the exponent field by itself */
    "  unsigned int bits = (unsigned int)q +"
    "                      (e < emin ? 0u : (unsigned int)(e - emin) << mbits);"
    "  if (bits > inf) bits = inf;"
    "  return (unsigned short)(sign | bits);"
    "}";

/* One 16-bit type: $T the type, $P its pair, $N and $Q their names in
 * CUDA's function names (half/half2, bfloat16/bfloat162), $F and $R the
 * conversions to float and back, $I an int's conversion to float (rounded
 * to odd where float's 24 bits are not enough), $B and $C the bit
 * conversions, $D the fma rounded to odd, $E infinity's bits. */
static const char cx_half_type_text[] =
    "struct $T_raw { unsigned short x; };"
    "struct $T {"
    "  unsigned short __x;"
    "  __device__ $T() {}"
    "  __device__ $T(const $T_raw &r) : __x(r.x) {}"
    "  __device__ $T(float f) : __x($B(f)) {}"
    "  __device__ $T(double d) : __x($B(__kiln_double2float_odd(d))) {}"
    "  __device__ $T(int v) : __x($B($I((long long)v))) {}"
    "  __device__ $T(unsigned int v) : __x($B($I((long long)v))) {}"
    "  __device__ $T(short v) : __x($B((float)v)) {}"
    "  __device__ $T(unsigned short v) : __x($B((float)v)) {}"
    "  __device__ operator float() const { return $C(__x); }"
    "};"
    "struct $P {"
    "  $T x, y;"
    "  __device__ $P() {}"
    "  __device__ $P($T a, $T b) : x(a), y(b) {}"
    "};"
    "__device__ $T __kiln_bits_$N(unsigned int bits)"
    "{ $T r; r.__x = (unsigned short)bits; return r; }"
    "__device__ float $F($T h) { return $C(h.__x); }"
    "__device__ $T $R(float f) { return __kiln_bits_$N($B(f)); }"
    "__device__ $T __float2$N(float f) { return __kiln_bits_$N($B(f)); }"
    "__device__ $T __double2$N(double d)"
    "{ return __kiln_bits_$N($B(__kiln_double2float_odd(d))); }"
    "__device__ $P __float2$Q_rn(float f) { return $P($R(f), $R(f)); }"
    "__device__ $P __floats2$Q_rn(float a, float b) { return $P($R(a), $R(b)); }"
    "__device__ $P __float22$Q_rn(float2 v) { return $P($R(v.x), $R(v.y)); }"
    "__device__ float2 __$Q2float2($P v) { return make_float2($F(v.x), $F(v.y)); }"
    "__device__ $P __halves2$Q($T a, $T b) { return $P(a, b); }"
    "__device__ $P __$N2$Q($T a) { return $P(a, a); }"
    "__device__ $T __low2$N($P v) { return v.x; }"
    "__device__ $T __high2$N($P v) { return v.y; }"
    "__device__ float __low2float($P v) { return $F(v.x); }"
    "__device__ float __high2float($P v) { return $F(v.y); }"
    "__device__ $P __lows2$Q($P a, $P b) { return $P(a.x, b.x); }"
    "__device__ $P __highs2$Q($P a, $P b) { return $P(a.y, b.y); }"
    "__device__ $P __low2$Q($P a) { return $P(a.x, a.x); }"
    "__device__ $P __high2$Q($P a) { return $P(a.y, a.y); }"
    "__device__ $P __lowhigh2highlow($P a) { return $P(a.y, a.x); }"
    "__device__ short __$N_as_short($T h) { return (short)h.__x; }"
    "__device__ unsigned short __$N_as_ushort($T h) { return h.__x; }"
    "__device__ $T __short_as_$N(short v) { return __kiln_bits_$N((unsigned short)v); }"
    "__device__ $T __ushort_as_$N(unsigned short v) { return __kiln_bits_$N(v); }"
    "__device__ int __$N2int_rn($T h) { return __float2int_rn($F(h)); }"
    "__device__ int __$N2int_rz($T h) { return __float2int_rz($F(h)); }"
    "__device__ int __$N2int_rd($T h) { return __float2int_rd($F(h)); }"
    "__device__ int __$N2int_ru($T h) { return __float2int_ru($F(h)); }"
    "__device__ unsigned int __$N2uint_rn($T h) { return __float2uint_rn($F(h)); }"
    "__device__ unsigned int __$N2uint_rz($T h) { return __float2uint_rz($F(h)); }"
    "__device__ $T __int2$N_rn(int v) { return $R($I((long long)v)); }"
    "__device__ $T __uint2$N_rn(unsigned int v) { return $R($I((long long)v)); }"
    "__device__ $T __short2$N_rn(short v) { return $R((float)v); }"
    "__device__ $T __ushort2$N_rn(unsigned short v) { return $R((float)v); }"
    /* arithmetic */
    "__device__ $T __hadd($T a, $T b) { return $R($F(a) + $F(b)); }"
    "__device__ $T __hsub($T a, $T b) { return $R($F(a) - $F(b)); }"
    "__device__ $T __hmul($T a, $T b) { return $R($F(a) * $F(b)); }"
    "__device__ $T __hdiv($T a, $T b) { return $R($F(a) / $F(b)); }"
    "__device__ $T __hadd_rn($T a, $T b) { return $R($F(a) + $F(b)); }"
    "__device__ $T __hsub_rn($T a, $T b) { return $R($F(a) - $F(b)); }"
    "__device__ $T __hmul_rn($T a, $T b) { return $R($F(a) * $F(b)); }"
    "__device__ $T __hfma($T a, $T b, $T c) { return $R($D($F(a), $F(b), $F(c))); }"
    "__device__ $T __hneg($T a) { return __kiln_bits_$N(a.__x ^ 0x8000u); }"
    "__device__ $T __habs($T a) { return __kiln_bits_$N(a.__x & 0x7fffu); }"
    "__device__ bool __hisnan($T a) { return (a.__x & 0x7fffu) > $Eu; }"
    "__device__ int __hisinf($T a) {"
    "  return (a.__x & 0x7fffu) == $Eu ? ((a.__x & 0x8000u) != 0u ? -1 : 1) : 0; }"
    "__device__ $T __hmax($T a, $T b) {"
    "  float x = $F(a), y = $F(b);"
    "  if (__hisnan(a) && __hisnan(b)) return __kiln_bits_$N(0x7fffu);"
    "  if (__hisnan(a)) return b;"
    "  if (__hisnan(b)) return a;"
    "  if (x == y) return (a.__x & 0x8000u) != 0u ? b : a;"
    "  return x > y ? a : b; }"
    "__device__ $T __hmin($T a, $T b) {"
    "  float x = $F(a), y = $F(b);"
    "  if (__hisnan(a) && __hisnan(b)) return __kiln_bits_$N(0x7fffu);"
    "  if (__hisnan(a)) return b;"
    "  if (__hisnan(b)) return a;"
    "  if (x == y) return (a.__x & 0x8000u) != 0u ? a : b;"
    "  return x < y ? a : b; }"
    "__device__ bool __heq($T a, $T b) { return $F(a) == $F(b); }"
    "__device__ bool __hne($T a, $T b) { float x = $F(a), y = $F(b); return x < y || x > y; }"
    "__device__ bool __hlt($T a, $T b) { return $F(a) < $F(b); }"
    "__device__ bool __hle($T a, $T b) { return $F(a) <= $F(b); }"
    "__device__ bool __hgt($T a, $T b) { return $F(a) > $F(b); }"
    "__device__ bool __hge($T a, $T b) { return $F(a) >= $F(b); }"
    "__device__ bool __hequ($T a, $T b) { float x = $F(a), y = $F(b); return !(x < y || x > y); }"
    "__device__ bool __hneu($T a, $T b) { return $F(a) != $F(b); }"
    "__device__ bool __hltu($T a, $T b) { return !($F(a) >= $F(b)); }"
    "__device__ bool __hleu($T a, $T b) { return !($F(a) > $F(b)); }"
    "__device__ bool __hgtu($T a, $T b) { return !($F(a) <= $F(b)); }"
    "__device__ bool __hgeu($T a, $T b) { return !($F(a) < $F(b)); }"
    /* pairs, lane by lane */
    "__device__ $P __hadd2($P a, $P b) { return $P(__hadd(a.x, b.x), __hadd(a.y, b.y)); }"
    "__device__ $P __hsub2($P a, $P b) { return $P(__hsub(a.x, b.x), __hsub(a.y, b.y)); }"
    "__device__ $P __hmul2($P a, $P b) { return $P(__hmul(a.x, b.x), __hmul(a.y, b.y)); }"
    "__device__ $P __h2div($P a, $P b) { return $P(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }"
    "__device__ $P __hfma2($P a, $P b, $P c)"
    "{ return $P(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }"
    "__device__ $P __hneg2($P a) { return $P(__hneg(a.x), __hneg(a.y)); }"
    "__device__ $P __habs2($P a) { return $P(__habs(a.x), __habs(a.y)); }"
    "__device__ $P __hmax2($P a, $P b) { return $P(__hmax(a.x, b.x), __hmax(a.y, b.y)); }"
    "__device__ $P __hmin2($P a, $P b) { return $P(__hmin(a.x, b.x), __hmin(a.y, b.y)); }"
    "__device__ bool __hbeq2($P a, $P b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }"
    "__device__ bool __hbne2($P a, $P b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }"
    "__device__ bool __hblt2($P a, $P b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }"
    "__device__ bool __hble2($P a, $P b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }"
    "__device__ bool __hbgt2($P a, $P b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }"
    "__device__ bool __hbge2($P a, $P b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }"
    /* C++'s operators, as cuda_fp16.hpp and cuda_bf16.hpp define them */
    "__device__ $T operator+($T a, $T b) { return __hadd(a, b); }"
    "__device__ $T operator-($T a, $T b) { return __hsub(a, b); }"
    "__device__ $T operator*($T a, $T b) { return __hmul(a, b); }"
    "__device__ $T operator/($T a, $T b) { return __hdiv(a, b); }"
    "__device__ $T operator-($T a) { return __hneg(a); }"
    "__device__ $T operator+($T a) { return a; }"
    "__device__ $T &operator+=($T &a, $T b) { a = __hadd(a, b); return a; }"
    "__device__ $T &operator-=($T &a, $T b) { a = __hsub(a, b); return a; }"
    "__device__ $T &operator*=($T &a, $T b) { a = __hmul(a, b); return a; }"
    "__device__ $T &operator/=($T &a, $T b) { a = __hdiv(a, b); return a; }"
    "__device__ bool operator==($T a, $T b) { return __heq(a, b); }"
    "__device__ bool operator!=($T a, $T b) { return __hneu(a, b); }"
    "__device__ bool operator<($T a, $T b) { return __hlt(a, b); }"
    "__device__ bool operator<=($T a, $T b) { return __hle(a, b); }"
    "__device__ bool operator>($T a, $T b) { return __hgt(a, b); }"
    "__device__ bool operator>=($T a, $T b) { return __hge(a, b); }"
    "__device__ $P operator+($P a, $P b) { return __hadd2(a, b); }"
    "__device__ $P operator-($P a, $P b) { return __hsub2(a, b); }"
    "__device__ $P operator*($P a, $P b) { return __hmul2(a, b); }"
    "__device__ $P operator/($P a, $P b) { return __h2div(a, b); }"
    "__device__ $P operator-($P a) { return __hneg2(a); }"
    "__device__ $P &operator+=($P &a, $P b) { a = __hadd2(a, b); return a; }"
    "__device__ $P &operator-=($P &a, $P b) { a = __hsub2(a, b); return a; }"
    "__device__ $P &operator*=($P &a, $P b) { a = __hmul2(a, b); return a; }"
    "__device__ $P &operator/=($P &a, $P b) { a = __h2div(a, b); return a; }"
    "__device__ bool operator==($P a, $P b) { return __hbeq2(a, b); }"
    /* math (cx_half_math_why says why each result is CUDA's): exact in
     * float, or in double rounded once */
    "__device__ $T __kiln_round_$N(double d)"
    "{ return __kiln_bits_$N(__kiln_double2bits16(d, $M)); }"
    "__device__ $T hsqrt($T a) { return $R(sqrtf($F(a))); }"
    "__device__ $T hrcp($T a) { return $R(1.0f / $F(a)); }"
    "__device__ $T hfloor($T a) { return $R(floorf($F(a))); }"
    "__device__ $T hceil($T a) { return $R(ceilf($F(a))); }"
    "__device__ $T htrunc($T a) { return $R(truncf($F(a))); }"
    "__device__ $T hrint($T a) { return $R(rintf($F(a))); }"
    "__device__ $T hrsqrt($T a) { return __kiln_round_$N(1.0 / sqrt((double)$F(a))); }"
    "__device__ $T hexp($T a) { return __kiln_round_$N(exp((double)$F(a))); }"
    /* 2^-25 and 2^-134 are midpoints (between 0 and the least
     * subnormal): an integer's power of two is made exactly */
    "__device__ $T hexp2($T a) {"
    "  double x = (double)$F(a);"
    "  return __kiln_round_$N(x == floor(x) && fabs(x) < 1100.0 ? ldexp(1.0, (int)x)"
    "                                                          : exp2(x)); }"
    "__device__ $T hexp10($T a) { return __kiln_round_$N(exp10((double)$F(a))); }"
    "__device__ $T hlog($T a) { return __kiln_round_$N(log((double)$F(a))); }"
    "__device__ $T hlog2($T a) { return __kiln_round_$N(log2((double)$F(a))); }"
    "__device__ $T hlog10($T a) { return __kiln_round_$N(log10((double)$F(a))); }"
    "__device__ $T hsin($T a) { return __kiln_round_$N(sin((double)$F(a))); }"
    "__device__ $T hcos($T a) { return __kiln_round_$N(cos((double)$F(a))); }"
    "__device__ $T htanh($T a) { return __kiln_round_$N(tanh((double)$F(a))); }"
    "__device__ $P h2sqrt($P a) { return $P(hsqrt(a.x), hsqrt(a.y)); }"
    "__device__ $P h2rcp($P a) { return $P(hrcp(a.x), hrcp(a.y)); }"
    "__device__ $P h2floor($P a) { return $P(hfloor(a.x), hfloor(a.y)); }"
    "__device__ $P h2ceil($P a) { return $P(hceil(a.x), hceil(a.y)); }"
    "__device__ $P h2trunc($P a) { return $P(htrunc(a.x), htrunc(a.y)); }"
    "__device__ $P h2rint($P a) { return $P(hrint(a.x), hrint(a.y)); }"
    "__device__ $P h2rsqrt($P a) { return $P(hrsqrt(a.x), hrsqrt(a.y)); }"
    "__device__ $P h2exp($P a) { return $P(hexp(a.x), hexp(a.y)); }"
    "__device__ $P h2exp2($P a) { return $P(hexp2(a.x), hexp2(a.y)); }"
    "__device__ $P h2exp10($P a) { return $P(hexp10(a.x), hexp10(a.y)); }"
    "__device__ $P h2log($P a) { return $P(hlog(a.x), hlog(a.y)); }"
    "__device__ $P h2log2($P a) { return $P(hlog2(a.x), hlog2(a.y)); }"
    "__device__ $P h2log10($P a) { return $P(hlog10(a.x), hlog10(a.y)); }"
    "__device__ $P h2sin($P a) { return $P(hsin(a.x), hsin(a.y)); }"
    "__device__ $P h2cos($P a) { return $P(hcos(a.x), hcos(a.y)); }"
    "__device__ $P h2tanh($P a) { return $P(htanh(a.x), htanh(a.y)); }";

/* CUDA's names for the two types. */
typedef struct cx_half_names {
    const char *T, *P, *N, *Q, *F, *R, *I, *B, *C, *D, *E, *M;
    const char *aliases;
} cx_half_names;

static const cx_half_names cx_fp16 = {
    "__half", "__half2", "half", "half2", "__half2float", "__float2half_rn",
    "(float)", "__kiln_float2half_bits", "__kiln_half2float_bits",
    "__kiln_fma_odd_float", "0x7c00", "10, -14, 15",
    "typedef __half half; typedef __half2 half2;",
};

static const cx_half_names cx_bf16 = {
    "__nv_bfloat16", "__nv_bfloat162", "bfloat16", "bfloat162",
    "__bfloat162float", "__float2bfloat16_rn", "__kiln_ll2float_odd",
    "__kiln_float2bfloat16_bits", "__kiln_bfloat162float_bits",
    "__kiln_fma_odd_double", "0x7f80", "7, -126, 127",
    "typedef __nv_bfloat16 nv_bfloat16; typedef __nv_bfloat162 nv_bfloat162;",
};

/* The type text with its names put in. */
static void cx_half_expand(clc_buffer *b, const cx_half_names *n)
{
    const char *text = cx_half_type_text;
    for (const char *p = text; *p != '\0'; ++p) {
        if (*p != '$') {
            clc_buffer_append(b, p, 1);
            continue;
        }
        const char *with = "";
        switch (*++p) {
        case 'T': with = n->T; break;
        case 'P': with = n->P; break;
        case 'N': with = n->N; break;
        case 'Q': with = n->Q; break;
        case 'F': with = n->F; break;
        case 'R': with = n->R; break;
        case 'I': with = n->I; break;
        case 'B': with = n->B; break;
        case 'C': with = n->C; break;
        case 'D': with = n->D; break;
        case 'E': with = n->E; break;
        case 'M': with = n->M; break;
        default: break;
        }
        clc_buffer_puts(b, with);
    }
    clc_buffer_puts(b, n->aliases);
}

/* Whether an identifier names one of the header's types or functions. */
static int cx_half_word(const char *name, size_t length, int *bf16)
{
    static const char *const fp16_words[] = {
        "__half", "__half2", "__half_raw", "half2",
    };
    static const char *const bf16_words[] = {
        "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16", "nv_bfloat162",
        "__nv_bfloat16_raw",
    };
    static const char *const fp16_prefixes[] = {
        "__float2half", "__floats2half", "__float22half", "__half2",
        "__halves2half2", "__double2half", "__int2half", "__uint2half", "__short2half",
        "__ushort2half", "__short_as_half", "__ushort_as_half",
    };
    static const char *const bf16_prefixes[] = {
        "__float2bfloat16", "__floats2bfloat16", "__float22bfloat16",
        "__bfloat16", "__halves2bfloat16", "__double2bfloat16", "__int2bfloat16",
        "__uint2bfloat16", "__short2bfloat16", "__ushort2bfloat16",
        "__short_as_bfloat16", "__ushort_as_bfloat16",
    };
    for (size_t k = 0; k < sizeof fp16_words / sizeof fp16_words[0]; ++k)
        if (strlen(fp16_words[k]) == length &&
            memcmp(fp16_words[k], name, length) == 0)
            return *bf16 = 0, 1;
    for (size_t k = 0; k < sizeof bf16_words / sizeof bf16_words[0]; ++k)
        if (strlen(bf16_words[k]) == length &&
            memcmp(bf16_words[k], name, length) == 0)
            return *bf16 = 1, 1;
    for (size_t k = 0; k < sizeof fp16_prefixes / sizeof fp16_prefixes[0]; ++k)
        if (length >= strlen(fp16_prefixes[k]) &&
            memcmp(fp16_prefixes[k], name, strlen(fp16_prefixes[k])) == 0)
            return *bf16 = 0, 1;
    for (size_t k = 0; k < sizeof bf16_prefixes / sizeof bf16_prefixes[0]; ++k)
        if (length >= strlen(bf16_prefixes[k]) &&
            memcmp(bf16_prefixes[k], name, strlen(bf16_prefixes[k])) == 0)
            return *bf16 = 1, 1;
    return 0;
}

int cx_half_used(const clc_token *tokens, size_t count, int *fp16, int *bf16)
{
    *fp16 = *bf16 = 0;
    for (size_t i = 0; i + 1 < count; ++i) {
        int is_bf16 = 0;
        if (tokens[i].kind == CLC_TOK_IDENT &&
            cx_half_word(tokens[i].text, tokens[i].length, &is_bf16))
            *(is_bf16 ? bf16 : fp16) = 1;
    }
    return *fp16 || *bf16;
}

void cx_half_source(clc_buffer *b, int fp16, int bf16)
{
    clc_buffer_puts(b, cx_half_common_text);
    if (fp16)
        cx_half_expand(b, &cx_fp16);
    if (bf16)
        cx_half_expand(b, &cx_bf16);
}

/* Functions of the headers not given here: saturating, relu and NaN-
 * propagating forms, 64-bit integer conversions, complex multiply-add. */
static int cx_half_missing(const char *name, size_t length)
{
    static const char *const suffixes[] = {"_sat", "_relu", "_nan"};
    static const char *const parts[] = {
        "ll2half", "half2ll", "half2ull", "ll2bfloat16", "bfloat162ll",
        "bfloat162ull", "__hcmadd",
    };
    for (size_t k = 0; length > 4 && memcmp(name, "__h", 3) == 0 &&
                       k < sizeof suffixes / sizeof suffixes[0]; ++k) {
        size_t n = strlen(suffixes[k]);
        if (length > n && memcmp(name + length - n, suffixes[k], n) == 0)
            return 1;
    }
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; ++k) {
        size_t n = strlen(parts[k]);
        for (size_t at = 0; at + n <= length; ++at)
            if (memcmp(name + at, parts[k], n) == 0)
                return 1;
    }
    return 0;
}

void cx_refuse_half(cx_state *st, size_t begin, size_t end, int no_fp64)
{
    /* computed in double (cx_half_type_text's math): on a device without
     * cl_khr_fp64 float's few ulps could round the other way */
    static const char *const in_double[] = {
        "hrsqrt", "hexp", "hexp2", "hexp10", "hlog", "hlog2", "hlog10",
        "hsin", "hcos", "htanh", "h2rsqrt", "h2exp", "h2exp2", "h2exp10",
        "h2log", "h2log2", "h2log10", "h2sin", "h2cos", "h2tanh",
    };
    /* the SFU's approximations that are not correctly rounded, the
     * directed roundings OpenCL C cannot select, and half atomics */
    static const char *const approximate[] = {"htanh_approx", "h2tanh_approx"};
    for (size_t i = begin; i < end; ++i) {
        if (!cx_ident(st, i))
            continue;
        const clc_token *t = &st->tokens[i];
        for (size_t k = 0; no_fp64 && k < sizeof in_double / sizeof in_double[0]; ++k)
            if (strlen(in_double[k]) == t->length &&
                memcmp(in_double[k], t->text, t->length) == 0)
                cx_refuse(st, i, "cannot translate '%s': the OpenCL translation "
                          "computes CUDA's half-precision math in double to "
                          "give its bits, and this device has no cl_khr_fp64; "
                          "convert to float (e.g. expf(__half2float(x)))",
                          in_double[k]);
        for (size_t k = 0; k < sizeof approximate / sizeof approximate[0]; ++k)
            if (strlen(approximate[k]) == t->length &&
                memcmp(approximate[k], t->text, t->length) == 0)
                cx_refuse(st, i, "cannot translate '%s': CUDA's approximate "
                          "half-precision math cannot be reproduced bit for "
                          "bit by the OpenCL translation; convert to float "
                          "(e.g. tanhf(__half2float(x)))", approximate[k]);
        if (cx_half_missing(t->text, t->length))
            cx_refuse(st, i, "cannot translate '%.*s': this function of "
                      "cuda_fp16.h/cuda_bf16.h is not supported by the "
                      "OpenCL translation", (int)t->length, t->text);
        static const char *const directed[] = {
            "__float2half_rz", "__float2half_rd", "__float2half_ru",
            "__float2bfloat16_rz", "__float2bfloat16_rd",
            "__float2bfloat16_ru", "__double2half_rz", "__double2half_rd",
            "__double2half_ru",
        };
        for (size_t k = 0; k < sizeof directed / sizeof directed[0]; ++k)
            if (strlen(directed[k]) == t->length &&
                memcmp(directed[k], t->text, t->length) == 0)
                cx_refuse(st, i, "cannot translate '%s': a conversion to half "
                          "or bfloat16 with a directed rounding is not "
                          "supported (OpenCL C has no per-operation rounding "
                          "mode)", directed[k]);
    }
}
