/* Host-side semantic checks of the OpenCL C prelude (its KL_FN functions are
 * __host__ __device__); not wired into the build.  From the repository root:
 *   nvcc -std=c++17 -x cu -diag-suppress 20011,20013,20014,20015 \
 *        -I translate tests/clc_prelude_host_test.cu -o /tmp/t && /tmp/t
 * (the suppressed warnings are about host lambdas given to kl_tern). */
#include "prelude_cuda.cuh"
#include <stdio.h>
#include <string.h>
#include <math.h>

static int checks, failures;
#define CHECK(c) do { ++checks; if (!(c)) { ++failures; printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)
template <class A, class B> static void check_eq(int line, const char *text, A a, B b) {
    ++checks;
    if (!(a == b)) {
        ++failures;
        printf("FAIL line %d: %s (%.17g vs %.17g)\n", line, text, (double)a, (double)b);
    }
}
#define CHECK_EQ(...) check_eq(__LINE__, #__VA_ARGS__, __VA_ARGS__)
template <class V, class... E> bool veq_(const V &v, E... e) {
    typedef kl_elem_t<V> T;
    T want[] = {(T)e...};
    static_assert(sizeof...(E) == kl_width<V>::value, "width");
    for (int i = 0; i < kl_width<V>::value; ++i)
        if (!(kl_at(const_cast<V &>(v), i) == want[i])) {
            printf("   component %d: %.17g, want %.17g\n", i, (double)kl_at(const_cast<V &>(v), i), (double)want[i]);
            return false;
        }
    return true;
}
/* the components of a vector (or of a swizzle proxy's value) */
template <class P, class... E> bool veq(const P &p, E... e) { return veq_(kl_val_t<P>(kl_val(p)), e...); }
template <class T> bool same_type(T, T) { return true; }
static unsigned fbits(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static unsigned long long dbits(double f) { unsigned long long u; memcpy(&u, &f, 8); return u; }

constexpr kl_float4 ctab[2] = {kl_make<kl_float4>(1.0f, 2.0f, 3.0f, 4.0f),
                               kl_make<kl_float4>(kl_make<kl_float2>(5, 6), 7, 8.0)};
static_assert(ctab[1].z == 7.0f, "constexpr kl_make");
static_assert(kl_make<kl_int4>(3).w == 3, "constexpr splat");
static_assert(sizeof(kl_float3) == 16 && alignof(kl_float3) == 16, "float3");
static_assert(sizeof(kl_char3) == 4 && alignof(kl_char3) == 4, "char3");
static_assert(sizeof(kl_double16) == 128 && alignof(kl_double16) == 128, "double16");
static_assert(sizeof(kl_half) == 2, "half");
static_assert(kl_is_same<kl_vec<char, 4>::type, kl_char4>::value, "char maps to kl_char");
static_assert(kl_is_same<kl_elem_t<kl_ulong2>, unsigned long>::value && kl_width<kl_ulong2>::value == 2 && kl_width<float>::value == 1, "traits");
static_assert((kl_int4(1) << kl_shift_count(33)).x == 2, "constexpr shifts");
static_assert((5 << kl_shift_count(33)) == 10, "constexpr scalar shift");

int main()
{
    /* ---- construction, literals */
    kl_float4 v = kl_make<kl_float4>(1, 2, 3, 4);
    CHECK(veq(v, 1, 2, 3, 4));
    kl_float4 z = 0;
    CHECK(veq(z, 0, 0, 0, 0));
    CHECK(veq((kl_int4)7, 7, 7, 7, 7));
    kl_float3 f3 = kl_make<kl_float3>(kl_make<kl_float2>(1, 2), 3);
    CHECK(veq(kl_make<kl_float4>(f3, 9), 1, 2, 3, 9));
    CHECK(veq(kl_make<kl_int8>(kl_make<kl_int2>(1, 2), 3, kl_make<kl_int3>(4, 5, 6), 7, 8), 1, 2, 3, 4, 5, 6, 7, 8));
    CHECK(veq(kl_make<kl_uchar4>(300, -1, 2.7, 1), 44, 255, 2, 1));

    /* ---- swizzles */
    CHECK(veq(v.kl_swc<104, 3, 2, 1, 0>(), 4, 3, 2, 1));
    CHECK(veq(v.kl_swc<-1>(), 1, 2));
    CHECK(veq(v.kl_swc<-2>(), 3, 4));
    CHECK(veq(v.kl_swc<-3>(), 1, 3));
    CHECK(veq(v.kl_swc<-4>(), 2, 4));
    CHECK_EQ(v.kl_swc<-2, 101, 0>(), 3.0f);
    kl_float3 w3 = kl_make<kl_float3>(10, 20, 30);
    CHECK(veq(w3.kl_swc<-1>(), 10, 20));
    CHECK_EQ(w3.kl_swc<-2, 101, 0>(), 30.0f);     /* hi of a 3-vector: (z, undefined) */
    CHECK(veq(w3.kl_swc<-3>(), 10, 30));
    CHECK_EQ(w3.kl_swc<-4, 101, 0>(), 20.0f);
    w3.kl_swc<-2>() = kl_make<kl_float2>(7, 8);
    CHECK(veq(w3, 10, 20, 7));
    kl_int8 i8 = kl_make<kl_int8>(0, 1, 2, 3, 4, 5, 6, 7);
    CHECK(veq(i8.kl_swc<-2>(), 4, 5, 6, 7));
    CHECK(veq(i8.kl_swc<-3>(), 0, 2, 4, 6));
    CHECK(veq(i8.kl_swc<-4>(), 1, 3, 5, 7));
    CHECK_EQ(i8.kl_swc<-1, -2, -1>(), 2);
    CHECK(veq(i8.kl_swc<-4, -2>(), 5, 7));
    CHECK(veq(i8.kl_swc<-2, 103, 2, 1, 0>(), 6, 5, 4));
    CHECK_EQ(i8.kl_swc<-2, 103, 2, 1, 0, -2>().kl_swc<101, 0>(), 4);
    kl_int16 i16 = kl_make<kl_int16>(i8, i8 + 8);
    CHECK(veq(i16.kl_swc<-2>(), 8, 9, 10, 11, 12, 13, 14, 15));
    CHECK(veq(i16.kl_swc<-3>(), 0, 2, 4, 6, 8, 10, 12, 14));
    CHECK(veq(i16.kl_swc<-4, -1>(), 1, 3, 5, 7));
    CHECK(veq(i16.kl_swc<-1, -4, -2>(), 5, 7));
    CHECK_EQ(i16.sf, 15);
    i16.kl_swc<-4>() = 0;            /* odd components */
    CHECK(veq(i16.kl_swc<-1>(), 0, 0, 2, 0, 4, 0, 6, 0));
    i16.kl_swc<-2>().kl_swc<-3>() += 100;   /* a proxy's own swizzle */
    CHECK(veq(i16.kl_swc<-2>(), 108, 0, 110, 0, 112, 0, 114, 0));
    i16.kl_swc<-1, -2, -1>() = kl_make<kl_int2>(-5, -6);
    CHECK(veq(i16.kl_swc<-1, -2>(), -5, -6, 6, 0));
    /* lvalue swizzles: =, compound, element references */
    kl_float4 u = v;
    u.kl_swc<102, 0, 1>() = u.kl_swc<102, 3, 2>();
    CHECK(veq(u, 4, 3, 3, 4));
    u.kl_swc<104, 3, 2, 1, 0>() -= v;   /* u.wzyx -= v */
    CHECK(veq(u, 0, 0, 1, 3));
    u.kl_swc<-2>() *= 2.0f;
    CHECK(veq(u, 0, 0, 2, 6));
    u.kl_swc<-3>() += kl_make<kl_float2>(10, 20);
    CHECK(veq(u, 10, 0, 22, 6));
    u.kl_swc<-4, 101, 1>() = 99;
    CHECK(veq(u, 10, 0, 22, 99));
    float &r = u.kl_swc<-1, 101, 0>();
    r = -1;
    CHECK_EQ(u.x, -1.0f);
    CHECK(veq(u.kl_swc<102, 0, 1>() + 1.0f, 0, 1));
    CHECK(veq(2.0f * u.kl_swc<102, 0, 1>(), -2, 0));
    CHECK(veq(u.kl_swc<102, 0, 1>() + u.kl_swc<102, 2, 3>(), 21, 99));
    kl_int4 iv = kl_make<kl_int4>(1, 2, 3, 4);
    iv.kl_swc<102, 1, 3>() <<= kl_shift_count(33);
    CHECK(veq(iv, 1, 4, 3, 8));
    iv.kl_swc<102, 0, 2>() %= 2;
    CHECK(veq(iv, 1, 4, 1, 8));
    iv.kl_swc<102, 0, 2>() ^= kl_make<kl_int2>(3, 5);
    CHECK(veq(iv, 2, 4, 4, 8));

    /* ---- operators */
    CHECK(veq(v + v * 2 - 1, 2, 5, 8, 11));
    CHECK(veq(10 / v, 10, 5, 10.0f / 3, 2.5));
    kl_int4 c = v < 2.5f;
    CHECK(veq(c, -1, -1, 0, 0));
    CHECK(veq(v == kl_make<kl_float4>(1, 0, 3, 0), -1, 0, -1, 0));
    CHECK(veq(!kl_make<kl_float4>(0, 1, -0.0, 2), -1, 0, -1, 0));
    CHECK(veq(kl_make<kl_int4>(0, 1, 2, 0) && kl_make<kl_int4>(1, 1, 0, 0), 0, -1, 0, 0));
    CHECK(veq(kl_make<kl_int4>(0, 1, 2, 0) || 0, 0, -1, -1, 0));
    kl_double2 d2 = kl_make<kl_double2>(1, 2);
    kl_long2 dc = d2 >= 2.0;
    CHECK(veq(dc, 0, -1));
    kl_uchar4 uc4 = kl_make<kl_uchar4>(1, 200, 3, 4);
    kl_char4 ucc = uc4 > (uchar)100;
    CHECK(veq(ucc, 0, -1, 0, 0));
    CHECK(same_type(kl_make<kl_uint2>(1) != 1u, kl_int2(0)));
    CHECK(same_type(kl_make<kl_ushort8>(1) != 1, kl_short8(0)));
    CHECK(veq(uc4 + (uchar)100, 101, 44, 103, 104));  /* wraps in uchar */
    CHECK(veq(-kl_make<kl_int2>(1, -2), -1, 2));
    CHECK(veq(~kl_make<kl_uchar2>(0, 255), 255, 0));
    kl_int4 pp = 5;
    pp++; ++pp; pp--;
    CHECK(veq(pp, 6, 6, 6, 6));
    CHECK(veq(kl_make<kl_int4>(7, -7, 7, -7) % 3, 1, -1, 1, -1));
    CHECK(veq((kl_make<kl_int4>(12, 10, 6, 5) & 6) | kl_make<kl_int4>(1), 5, 3, 7, 5));

    /* ---- shifts: counts masked to the element width */
    CHECK(veq(kl_make<kl_char4>(1) << 9, 2, 2, 2, 2));
    CHECK(veq(kl_make<kl_char4>(1) << kl_shift_count(kl_make<kl_int4>(7, 8, 9, -1)), -128, 1, 2, -128));
    CHECK(veq(kl_make<kl_uint2>(0x80000000u) >> kl_shift_count(-1), 1, 1));
    CHECK(veq(kl_make<kl_int2>(-16, 16) >> kl_shift_count(34), -4, 4));
    CHECK(veq(kl_make<kl_long2>(1) << kl_shift_count(65), 2, 2));
    CHECK(veq(kl_make<kl_ushort2>(1, 3) << kl_make<kl_ushort2>(17, 15), 2, 0x8000));
    CHECK_EQ(1 << kl_shift_count(33), 2);
    CHECK_EQ(1u << kl_shift_count(32), 1u);
    CHECK_EQ(-8 >> kl_shift_count(33), -4);
    CHECK_EQ(1l << kl_shift_count(64 + 40), 1l << 40);
    CHECK_EQ((uchar)1 << kl_shift_count(9), 512);   /* promoted to int: mask 31 */
    int sh = 1;
    sh <<= kl_shift_count(35);
    CHECK_EQ(sh, 8);
    ulong ush = 1;
    ush <<= kl_shift_count(70);
    CHECK_EQ(ush, 64ul);
    kl_int4 vsh = 1;
    vsh <<= kl_shift_count(33);
    CHECK(veq(vsh, 2, 2, 2, 2));
    vsh >>= kl_shift_count(kl_make<kl_uint4>(0, 1, 32, 33));
    CHECK(veq(vsh, 2, 1, 2, 1));

    /* ---- conversions */
    CHECK_EQ((kl_convert<int, 0, 0>(2.7f)), 2);
    CHECK_EQ((kl_convert<int, 0, 0>(-2.7f)), -2);
    CHECK_EQ((kl_convert<int, 0, 1>(2.5f)), 2);
    CHECK_EQ((kl_convert<int, 0, 1>(3.5f)), 4);
    CHECK_EQ((kl_convert<int, 0, 3>(2.1f)), 3);
    CHECK_EQ((kl_convert<int, 0, 4>(-2.1f)), -3);
    CHECK_EQ((kl_convert<int, 1, 0>(3e9f)), 2147483647);
    CHECK_EQ((kl_convert<int, 1, 0>(-3e9f)), (int)-2147483648LL);
    CHECK_EQ((kl_convert<int, 1, 0>(__kiln_nanf)), 0);
    CHECK_EQ((kl_convert<uint, 1, 0>(-5.0f)), 0u);
    CHECK_EQ((kl_convert<uint, 1, 0>(5e9)), 4294967295u);
    CHECK_EQ((kl_convert<uchar, 1, 0>(300.0f)), 255);
    CHECK_EQ((kl_convert<uchar, 1, 1>(254.5f)), 254);
    CHECK_EQ((kl_convert<uchar, 1, 3>(254.1f)), 255);
    CHECK_EQ((kl_convert<char, 1, 0>(-1000.0)), -128);
    CHECK_EQ((kl_convert<long, 1, 0>(1e30f)), 9223372036854775807L);
    CHECK_EQ((kl_convert<ulong, 1, 0>(1e30)), 18446744073709551615UL);
    CHECK_EQ((kl_convert<ulong, 1, 0>(-1e30)), 0UL);
    CHECK_EQ((kl_convert<long, 1, 2>(-__kiln_huge_val)), (long)(-9223372036854775807L - 1));
    CHECK_EQ((kl_convert<short, 1, 0>(70000)), 32767);
    CHECK_EQ((kl_convert<short, 0, 0>(70000)), (short)70000);
    CHECK_EQ((kl_convert<uchar, 1, 0>(-5)), 0);
    CHECK_EQ((kl_convert<uint, 1, 0>(-5)), 0u);
    CHECK_EQ((kl_convert<int, 1, 0>(4294967295u)), 2147483647);
    CHECK_EQ((kl_convert<int, 1, 0>(-9223372036854775807L)), (int)-2147483648LL);
    CHECK_EQ((kl_convert<ulong, 1, 0>(-1)), 0ul);
    CHECK_EQ((kl_convert<long, 1, 0>(18446744073709551615ul)), 9223372036854775807L);
    CHECK_EQ((kl_convert<char, 1, 0>((uchar)200)), 127);
    CHECK_EQ((kl_convert<uchar, 0, 0>(300)), 44);
    CHECK_EQ((kl_convert<float, 0, 0>(16777217)), 16777216.0f);
    CHECK_EQ((kl_convert<float, 0, 3>(16777217)), 16777218.0f);
    CHECK_EQ((kl_convert<float, 0, 2>(16777219)), 16777218.0f);
    CHECK_EQ((kl_convert<float, 0, 1>(16777219)), 16777220.0f);
    CHECK_EQ((kl_convert<float, 0, 4>(-16777217)), -16777218.0f);
    CHECK_EQ((kl_convert<float, 0, 2>(-16777217)), -16777216.0f);
    CHECK_EQ((kl_convert<float, 0, 2>(18446744073709551615ul)), 18446742974197923840.0f);
    CHECK_EQ((kl_convert<float, 0, 3>(18446744073709551615ul)), 18446744073709551616.0f);
    CHECK_EQ((kl_convert<double, 0, 2>(9007199254740993L)), 9007199254740992.0);
    CHECK_EQ((kl_convert<double, 0, 3>(9007199254740993L)), 9007199254740994.0);
    CHECK_EQ((kl_convert<float, 0, 2>(0.1)), 0.099999994f);
    CHECK_EQ((kl_convert<float, 0, 3>(0.1)), 0.1f);
    CHECK_EQ((kl_convert<float, 0, 4>(-0.1)), -0.1f);
    CHECK_EQ((kl_convert<float, 0, 2>(-0.1)), -0.099999994f);
    CHECK_EQ((kl_convert<double, 0, 0>(0.1f)), (double)0.1f);
    CHECK(veq(kl_convert<kl_uchar4, 1, 0>(kl_make<kl_float4>(-1, 300, 1.5, __kiln_nanf)), 0, 255, 1, 0));
    CHECK(veq(kl_convert<kl_int4, 0, 1>(kl_make<kl_float4>(0.5, 1.5, -0.5, -1.5)), 0, 2, 0, -2));
    CHECK(veq(kl_convert<kl_char2, 1, 0>(kl_make<kl_int4>(1, 200, -300, 0).kl_swc<102, 1, 2>()), 127, -128));
    CHECK(veq(kl_convert<kl_float2, 0, 0>(kl_make<kl_uint2>(1, 4294967295u)), 1, 4294967296.0f));
    CHECK_EQ(kl_as<uint>(1.0f), 0x3f800000u);
    CHECK(veq(kl_as<kl_uchar4>(0x04030201u), 1, 2, 3, 4));
    CHECK(veq(kl_as<kl_int4>(kl_make<kl_float3>(1, -2, 0)).kl_swc<103, 0, 1, 2>(), 0x3f800000, (int)0xc0000000, 0));
    CHECK_EQ(kl_as<float>(kl_make<kl_short2>(0, 0x3f80)), 1.0f);

    /* ---- loads, stores, half */
    float buf[40];
    for (int i = 0; i < 40; ++i) buf[i] = (float)i;
    CHECK(veq(kl_vload<4>(1, buf), 4, 5, 6, 7));
    CHECK(veq(kl_vload<3>(2, (const float *)buf), 6, 7, 8));
    CHECK(veq(kl_vload<2>(3, (volatile float *)buf), 6, 7));
    CHECK(veq(kl_vload<8>(1, buf), 8, 9, 10, 11, 12, 13, 14, 15));
    CHECK_EQ(kl_vload<16>(1, buf).sf, 31.0f);
    kl_vstore<3>(kl_make<kl_float3>(-1, -2, -3), 1, buf);
    CHECK(buf[2] == 2 && buf[3] == -1 && buf[5] == -3 && buf[6] == 6);
    kl_vstore<2>(v.kl_swc<102, 3, 0>(), 0, buf);
    CHECK(buf[0] == 4 && buf[1] == 1);
    kl_vstore<16>(kl_make<kl_float16>(1), 1, buf);
    CHECK(buf[15] == 15 && buf[16] == 1 && buf[31] == 1 && buf[32] == 32);
    kl_half hb[16];
    kl_vstore_half<1, 0>(1.0f, 0, hb);
    CHECK_EQ(hb[0].bits, 0x3c00);
    kl_vstore_half<1, 0>(1.0f / 3, 1, hb);
    CHECK_EQ(hb[1].bits, 0x3555);
    kl_vstore_half<1, 3>(1.0f / 3, 1, hb);
    CHECK_EQ(hb[1].bits, 0x3556);
    kl_vstore_half<1, 2>(-1.0f / 3, 1, hb);
    CHECK_EQ(hb[1].bits, 0xb555);
    kl_vstore_half<1, 4>(-1.0f / 3, 1, hb);
    CHECK_EQ(hb[1].bits, 0xb556);
    kl_vstore_half<1, 0>(65520.0f, 2, hb);
    CHECK_EQ(hb[2].bits, 0x7c00);   /* rounds to inf */
    kl_vstore_half<1, 2>(65520.0f, 2, hb);
    CHECK_EQ(hb[2].bits, 0x7bff);
    kl_vstore_half<1, 4>(1e9f, 2, hb);
    CHECK_EQ(hb[2].bits, 0x7bff);
    kl_vstore_half<1, 3>(1e9, 2, hb);
    CHECK_EQ(hb[2].bits, 0x7c00);
    kl_vstore_half<1, 0>(5.9604645e-8f, 3, hb);  /* smallest subnormal */
    CHECK_EQ(hb[3].bits, 0x0001);
    kl_vstore_half<1, 0>(2.9802322e-8f, 3, hb);   /* half of it: ties to even -> 0 */
    CHECK_EQ(hb[3].bits, 0x0000);
    kl_vstore_half<1, 3>(1e-30f, 3, hb);
    CHECK_EQ(hb[3].bits, 0x0001);
    kl_vstore_half<1, 0>(__kiln_nanf, 3, hb);
    CHECK((hb[3].bits & 0x7c00) == 0x7c00 && (hb[3].bits & 0x3ff));
    kl_vstore_half<1, 0>(6.1035156e-05f - 2.0e-9f, 3, hb); /* just below the min normal: rounds up to it */
    CHECK_EQ(hb[3].bits, 0x0400);
    kl_vstore_half<4, 0>(kl_make<kl_float4>(1, 2, -0.5, 0), 1, hb);
    CHECK(hb[4].bits == 0x3c00 && hb[5].bits == 0x4000 && hb[6].bits == 0xb800 && hb[7].bits == 0);
    CHECK(veq(kl_vload_half<4>(1, hb), 1, 2, -0.5, 0));
    CHECK_EQ(kl_vload_half<1>(1, hb), -0.33349609375f);
    kl_vstorea_half<3, 0>(kl_make<kl_float3>(3, 4, 5), 1, hb);   /* stride 4 */
    CHECK(hb[4].bits == 0x4200 && hb[6].bits == 0x4500 && hb[7].bits == 0);
    CHECK(veq(kl_vloada_half<3>(1, hb), 3, 4, 5));
    kl_vstore_half<2, 0>(kl_make<kl_double2>(65504.0, 0.1), 6, hb);
    CHECK(hb[12].bits == 0x7bff && hb[13].bits == 0x2e66);
    CHECK_EQ(kl_vload_half<1>(12, hb), 65504.0f);
    hb[0].bits = 0x7c00; CHECK(kl_vload_half<1>(0, hb) == __kiln_huge_valf);
    hb[0].bits = 0x8001; CHECK_EQ(kl_vload_half<1>(0, hb), -5.9604645e-8f);

    /* ---- ?: with vector and scalar conditions */
    kl_int4 m = kl_make<kl_int4>(-1, 0, 0x80000000, 1);
    kl_float4 a = 1, b = 2;
    CHECK(veq(kl_tern(m, [&]() { return (a); }, [&]() { return (b); }), 1, 2, 1, 2));
    CHECK(veq(kl_tern(m, [&]() { return (a); }, [&]() { return (5.0f); }), 1, 5, 1, 5));
    CHECK(veq(kl_tern(m, [&]() { return (7); }, [&]() { return (8); }), 7, 8, 7, 8));
    int evaluated = 0;
    CHECK_EQ(kl_tern(1, [&]() { return (1.0f); }, [&]() { ++evaluated; return (2.0f); }), 1.0f);
    CHECK_EQ(evaluated, 0);
    CHECK(veq(kl_tern(0, [&]() { return (a); }, [&]() { return (b); }), 2, 2, 2, 2));
    CHECK(veq(kl_tern(m.kl_swc<102, 0, 1>(), [&]() { return (u.kl_swc<102, 0, 1>()); }, [&]() { return (b.kl_swc<102, 0, 1>()); }), -1, 2));

    /* ---- relational */
    kl_float4 sp = kl_make<kl_float4>(__kiln_nanf, -__kiln_huge_valf, -0.0f, 1e-40f);
    CHECK(veq(kl_isnan(sp), -1, 0, 0, 0));
    CHECK(veq(kl_isinf(sp), 0, -1, 0, 0));
    CHECK(veq(kl_isfinite(sp), 0, 0, -1, -1));
    CHECK(veq(kl_isnormal(sp), 0, 0, 0, 0));
    CHECK(veq(kl_signbit(sp), 0, -1, -1, 0));
    CHECK_EQ(kl_isnan(__kiln_nanf), 1);
    CHECK_EQ(kl_signbit(-0.0), 1);
    CHECK_EQ(kl_isnormal(1.0f), 1);
    CHECK(veq(kl_isnan(kl_make<kl_double2>(0, __kiln_nanf)), 0, -1));
    CHECK(same_type(kl_isnan(kl_make<kl_double2>(0)), kl_long2(0)));
    CHECK(veq(kl_isless(v, 2.5f), -1, -1, 0, 0));
    CHECK(veq(kl_isunordered(sp, v), -1, 0, 0, 0));
    CHECK(veq(kl_islessgreater(sp, 0.0f), 0, -1, 0, -1));
    CHECK_EQ(kl_isgreater(2.0f, 1), 1);
    CHECK_EQ(kl_any(kl_make<kl_int4>(0, 1, 2, 3)), 0);
    CHECK_EQ(kl_any(kl_make<kl_int4>(0, 1, -2, 3)), 1);
    CHECK_EQ(kl_all(kl_make<kl_char4>(-1, -2, -128, -4)), 1);
    CHECK_EQ(kl_all(kl_make<kl_char4>(-1, -2, 127, -4)), 0);
    CHECK_EQ(kl_any(-5), 1);
    CHECK_EQ(kl_all(5), 0);
    CHECK_EQ(kl_any(kl_make<kl_uint2>(0x80000000u, 0)), 1);
    CHECK(veq(kl_select(kl_make<kl_int4>(1), kl_make<kl_int4>(2), kl_make<kl_int4>(-1, 1, 0x80000000, 0)), 2, 1, 2, 1));
    CHECK(veq(kl_select(a, b, kl_make<kl_uint4>(0x80000000u, 1, 0xffffffffu, 0)), 2, 1, 2, 1));
    CHECK_EQ(kl_select(1, 2, 5), 2);      /* scalar: c != 0 */
    CHECK_EQ(kl_select(1.0f, 2.0f, 0), 1.0f);
    CHECK_EQ(kl_bitselect(0xf0f0u, 0x0ff0u, 0xff00u), 0x0ff0u);
    CHECK_EQ(kl_bitselect(1.0f, -1.0f, kl_as<float>(0x80000000u)), -1.0f);
    CHECK(veq(kl_bitselect(kl_make<kl_uint2>(0xffu), kl_make<kl_uint2>(0xf00u), kl_make<kl_uint2>(0xf0fu, 0)), 0xff0, 0xff));

    /* ---- integer built-ins */
    CHECK_EQ(kl_abs(-5), 5u);
    CHECK_EQ(kl_abs((int)0x80000000), 0x80000000u);
    CHECK(same_type(kl_abs((char)-128), (uchar)0));
    CHECK_EQ(kl_abs((char)-128), 128);
    CHECK_EQ(kl_abs(-9223372036854775807L - 1), 9223372036854775808UL);
    CHECK(veq(kl_abs(kl_make<kl_int2>(-3, 3)), 3u, 3u));
    CHECK(same_type(kl_abs(kl_make<kl_short2>(1)), kl_ushort2(0)));
    CHECK_EQ(kl_abs_diff((int)0x80000000, 0x7fffffff), 0xffffffffu);
    CHECK_EQ(kl_abs_diff(3u, 5u), 2u);
    CHECK_EQ(kl_add_sat(0x7fffffff, 1), 0x7fffffff);
    CHECK_EQ(kl_add_sat((int)0x80000000, -1), (int)0x80000000);
    CHECK_EQ(kl_add_sat((char)100, (char)100), 127);
    CHECK_EQ(kl_add_sat((uchar)200, (uchar)100), 255);
    CHECK_EQ(kl_add_sat(0xfffffff0u, 0x20u), 0xffffffffu);
    CHECK_EQ(kl_add_sat(9223372036854775807L, 1L), 9223372036854775807L);
    CHECK_EQ(kl_add_sat(-9223372036854775807L, -5L), -9223372036854775807L - 1);
    CHECK_EQ(kl_add_sat(18446744073709551615UL, 1UL), 18446744073709551615UL);
    CHECK_EQ(kl_sub_sat(1u, 2u), 0u);
    CHECK_EQ(kl_sub_sat((int)0x80000000, 1), (int)0x80000000);
    CHECK_EQ(kl_sub_sat(0x7fffffff, -1), 0x7fffffff);
    CHECK_EQ(kl_sub_sat((short)-32768, (short)1), -32768);
    CHECK_EQ(kl_sub_sat(-9223372036854775807L - 1, 1L), -9223372036854775807L - 1);
    CHECK_EQ(kl_sub_sat(5L, -9223372036854775807L), 9223372036854775807L);
    CHECK(veq(kl_add_sat(kl_make<kl_char16>(100), (char)100), 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127));
    CHECK_EQ(kl_hadd(0x7fffffff, 0x7fffffff), 0x7fffffff);
    CHECK_EQ(kl_hadd(-1, -2), -2);
    CHECK_EQ(kl_rhadd(-1, -2), -1);
    CHECK_EQ(kl_rhadd(1, 2), 2);
    CHECK_EQ(kl_hadd(0xffffffffu, 0xfffffffdu), 0xfffffffeu);
    CHECK_EQ(kl_rhadd(0xffffffffu, 0xfffffffeu), 0xffffffffu);
    CHECK_EQ(kl_hadd((uchar)255, (uchar)253), 254);
    CHECK_EQ(kl_rhadd(18446744073709551615UL, 18446744073709551614UL), 18446744073709551615UL);
    CHECK_EQ(kl_mul_hi(0x80000000u, 4u), 2u);
    CHECK_EQ(kl_mul_hi(-1, 1), -1);
    CHECK_EQ(kl_mul_hi((int)0x80000000, (int)0x80000000), 0x40000000);
    CHECK_EQ(kl_mul_hi((char)-128, (char)-128), 64);
    CHECK_EQ(kl_mul_hi((uchar)255, (uchar)255), 254);
    CHECK_EQ(kl_mul_hi(-1L, -1L), 0L);
    CHECK_EQ(kl_mul_hi(0x8000000000000000UL, 0x10UL), 8UL);
    CHECK_EQ(kl_mul_hi(-9223372036854775807L - 1, 2L), -1L);
    CHECK_EQ(kl_mad_hi(0x80000000u, 4u, 5u), 7u);
    CHECK_EQ(kl_mad_sat(0x10000, 0x10000, 0), 0x7fffffff);
    CHECK_EQ(kl_mad_sat(-0x10000, 0x10000, 5), (int)0x80000000);
    CHECK_EQ(kl_mad_sat(0x10000, 0x7fff, 0x7fff), 0x7fff7fff);
    CHECK_EQ(kl_mad_sat(0x10000u, 0x10000u, 0u), 0xffffffffu);
    CHECK_EQ(kl_mad_sat((short)200, (short)200, (short)-7000), 32767);
    CHECK_EQ(kl_mad_sat((uchar)16, (uchar)15, (uchar)15), 255);
    CHECK_EQ(kl_mad_sat((uchar)16, (uchar)15, (uchar)14), 254);
    CHECK_EQ(kl_mad_sat(4294967296L, 4294967296L, 0L), 9223372036854775807L);
    CHECK_EQ(kl_mad_sat(-4294967296L, 4294967296L, 0L), -9223372036854775807L - 1);
    CHECK_EQ(kl_mad_sat(3037000499L, 3037000499L, 1000L), 3037000499L * 3037000499L + 1000L);
    CHECK_EQ(kl_mad_sat(-9223372036854775807L - 1, 1L, -1L), -9223372036854775807L - 1);
    CHECK_EQ(kl_mad_sat(-9223372036854775807L - 1, -1L, -1L), 9223372036854775807L);  /* 2^63 - 1 fits */
    CHECK_EQ(kl_mad_sat(-9223372036854775807L - 1, -1L, 0L), 9223372036854775807L);
    CHECK_EQ(kl_mad_sat(4294967296UL, 4294967296UL, 0UL), 18446744073709551615UL);
    CHECK_EQ(kl_mad_sat(4294967295UL, 4294967297UL, 0UL), 18446744073709551615UL);
    CHECK_EQ(kl_mad_sat(4294967295UL, 4294967297UL, 1UL), 18446744073709551615UL);
    CHECK_EQ(kl_mad_sat(4294967295UL, 4294967296UL, 4294967295UL), 18446744073709551615UL);
    CHECK_EQ(kl_rotate(0x80000001u, 1u), 3u);
    CHECK_EQ(kl_rotate(0x80000001u, 33u), 3u);
    CHECK_EQ(kl_rotate(1, -1), (int)0x80000000);
    CHECK_EQ(kl_rotate((uchar)0x81, (uchar)9), 0x03);
    CHECK_EQ(kl_rotate((char)1, (char)7), -128);
    CHECK_EQ(kl_rotate((ushort)0x8001, (ushort)4), 0x0018);
    CHECK_EQ(kl_rotate(0x8000000000000001UL, 65UL), 3UL);
    CHECK_EQ(kl_rotate(1L, 63L), -9223372036854775807L - 1);
    CHECK(veq(kl_rotate(kl_make<kl_uint2>(1, 2), kl_make<kl_uint2>(31, 32)), 0x80000000u, 2));
    CHECK_EQ(kl_clz(0), 32);
    CHECK_EQ(kl_clz(1u), 31u);
    CHECK_EQ(kl_clz(-1), 0);
    CHECK_EQ(kl_clz((uchar)1), 7);
    CHECK_EQ(kl_clz((char)0), 8);
    CHECK_EQ(kl_clz((short)-1), 0);
    CHECK_EQ(kl_clz((ushort)0x00ff), 8);
    CHECK_EQ(kl_clz(1L), 63L);
    CHECK_EQ(kl_clz(0UL), 64UL);
    CHECK(veq(kl_clz(kl_make<kl_uchar4>(0, 1, 128, 15)), 8, 7, 0, 4));
    CHECK_EQ(kl_popcount(-1), 32);
    CHECK_EQ(kl_popcount((char)-1), 8);
    CHECK_EQ(kl_popcount((short)-1), 16);
    CHECK_EQ(kl_popcount(0xf0f0f0f0f0f0f0f0UL), 32UL);
    CHECK(veq(kl_popcount(kl_make<kl_int2>(7, -1)), 3, 32));
    CHECK(same_type(kl_popcount((uchar)3), (uchar)0));
    CHECK_EQ(kl_mul24(1000, -1000), -1000000);
    CHECK_EQ(kl_mad24(1000u, 1000u, 5u), 1000005u);
    CHECK(same_type(kl_upsample((char)-1, (uchar)0xff), (short)0));
    CHECK_EQ(kl_upsample((char)-1, (uchar)0xff), -1);
    CHECK_EQ(kl_upsample((uchar)1, (uchar)2), 0x0102);
    CHECK_EQ(kl_upsample((short)-2, (ushort)1), (int)0xfffe0001);
    CHECK_EQ(kl_upsample(1u, 2u), 0x100000002UL);
    CHECK_EQ(kl_upsample(-1, 0u), (long)0xffffffff00000000UL);
    CHECK(veq(kl_upsample(kl_make<kl_char2>(1, -1), kl_make<kl_uchar2>(2, 3)), 0x0102, (short)0xff03));
    CHECK(same_type(kl_upsample(kl_make<kl_uint2>(1), kl_make<kl_uint2>(2)), kl_ulong2(0)));
    CHECK(veq(kl_max(kl_make<kl_uint2>(1, 5), 3), 3, 5));
    CHECK(veq(kl_clamp(kl_make<kl_int4>(-5, 0, 5, 50), 0, 10), 0, 0, 5, 10));
    CHECK_EQ(kl_max(-1, 2), 2);
    CHECK_EQ(kl_min(3u, 7u), 3u);

    /* ---- math and common */
    float ip;
    CHECK_EQ(kl_fract(-1.25f, &ip), 0.75f);
    CHECK_EQ(ip, -2.0f);
    CHECK_EQ(kl_fract(-1e-10f, &ip), 0x1.fffffep-1f);
    CHECK_EQ(kl_fract(__kiln_huge_valf, &ip), 0.0f);
    CHECK(kl_isnan(kl_fract(__kiln_nanf, &ip)));
    kl_float4 ipv;
    CHECK(veq(kl_fract(kl_make<kl_float4>(1.5, -0.25, 2, 3.75), &ipv), 0.5, 0.75, 0, 0.75));
    CHECK(veq(ipv, 1, -1, 2, 3));
    kl_int2 ex2;
    CHECK(veq(kl_frexp(kl_make<kl_float2>(8, 0.75), &ex2), 0.5, 0.75));
    CHECK(veq(ex2, 4, 0));
    kl_float2 c2;
    CHECK(veq(kl_sincos(kl_make<kl_float2>(0, 0), &c2), 0, 0));
    CHECK(veq(c2, 1, 1));
    int q;
    CHECK_EQ(kl_remquo(7.0f, 2.0f, &q), -1.0f);
    CHECK_EQ(q & 7, 4);
    int sg;
    CHECK_EQ(kl_lgamma_r(-0.5f, &sg), lgammaf(-0.5f));
    CHECK_EQ(sg, -1);
    kl_lgamma_r(-1.5f, &sg);
    CHECK_EQ(sg, 1);
    kl_lgamma_r(3.0, &sg);
    CHECK_EQ(sg, 1);
    CHECK_EQ(kl_pown(-2.0f, 3), -8.0f);
    CHECK_EQ(kl_pown(-2.0f, -2), 0.25f);
    CHECK_EQ(kl_pown(-1.0f, 16777217), -1.0f);   /* odd n beyond float's integers */
    CHECK_EQ(kl_rootn(-8.0f, 3), -2.0f);
    CHECK(kl_isnan(kl_rootn(-8.0f, 2)));
    CHECK(kl_isnan(kl_rootn(8.0f, 0)));
    CHECK_EQ(kl_rootn(16.0, 4), 2.0);
    CHECK(veq(kl_pown(kl_make<kl_float2>(2, 3), kl_make<kl_int2>(2, 3)), 4, 27));
    CHECK(veq(kl_ldexp(kl_make<kl_float2>(1, 3), 2), 4, 12));
    CHECK(kl_isnan(kl_powr(-1.0f, 2.0f)));
    CHECK(kl_isnan(kl_powr(0.0f, 0.0f)));
    CHECK(kl_isnan(kl_powr(1.0f, __kiln_huge_valf)));
    CHECK_EQ(kl_powr(2.0f, 10.0f), 1024.0f);
    CHECK_EQ(kl_pow(2.0f, 3), 8.0f);
    CHECK(same_type(kl_pow(2.0f, 3), 0.0f));
    CHECK_EQ(fbits(kl_nan(5u)), 0x7fc00005u);
    CHECK_EQ(dbits(kl_nan(5ul)), 0x7ff8000000000005ull);
    CHECK(same_type(kl_nan(kl_make<kl_uint2>(1)), kl_float2(0)));
    CHECK_EQ(kl_maxmag(-3.0f, 2.0f), -3.0f);
    CHECK_EQ(kl_minmag(-3.0f, 2.0f), 2.0f);
    CHECK_EQ(kl_maxmag(-2.0f, 2.0f), 2.0f);
    CHECK_EQ(kl_fmax(__kiln_nanf, 1.0f), 1.0f);
    CHECK(veq(kl_fmax(kl_make<kl_float2>(-1, 5), 0), 0, 5));
    CHECK_EQ(fbits(kl_sign(-0.0f)), 0x80000000u);
    CHECK_EQ(kl_sign(__kiln_nanf), 0.0f);
    CHECK(veq(kl_sign(kl_make<kl_float4>(-3, 0, 2, -0.0)), -1, 0, 1, 0));
    CHECK(veq(kl_step(2.0f, kl_make<kl_float4>(1, 2, 3, -1)), 0, 1, 1, 0));
    CHECK(veq(kl_clamp(kl_make<kl_float4>(-1, 0.5, 2, 1), 0.0f, 1.0f), 0, 0.5, 1, 1));
    CHECK(veq(kl_mix(kl_make<kl_float2>(0, 10), kl_make<kl_float2>(10, 20), 0.5f), 5, 15));
    CHECK(veq(kl_smoothstep(0.0f, 1.0f, kl_make<kl_float4>(-1, 0.5, 2, 0.25)), 0, 0.5, 1, 0.15625));
    CHECK_EQ(kl_degrees(KL_PI_F), 180.0f);
    CHECK_EQ(kl_radians(180.0), KL_PI);
    CHECK_EQ(kl_mad(2.0f, 3.0f, 1.0f), 7.0f);
    CHECK_EQ(kl_cospi(0.5f), 0.0f);
    CHECK_EQ(kl_tanpi(0.25f), 1.0f);
    CHECK(kl_fabs(kl_acospi(-1.0f) - 1.0f) < 1e-6f);
    CHECK(kl_fabs(kl_atan2pi(1.0f, 1.0f) - 0.25f) < 1e-6f);
    CHECK(veq(kl_floor(kl_make<kl_double2>(-1.5, 1.5)), -2, 1));
    CHECK(veq(kl_ilogb(kl_make<kl_float2>(8, 0.5)), 3, -1));
    CHECK(kl_fabs(kl_native_divide(1.0f, 3.0f) - 1.0f / 3) < 1e-6f);
    CHECK(kl_fabs(kl_half_sqrt(4.0f) - 2.0f) < 1e-5f);

    /* ---- geometric */
    CHECK_EQ(kl_dot(v, v), 30.0f);
    CHECK_EQ(kl_dot(2.0f, 3.0f), 6.0f);
    CHECK_EQ(kl_length(kl_make<kl_float2>(3, 4)), 5.0f);
    CHECK_EQ(kl_distance(kl_make<kl_float3>(1, 1, 1), kl_make<kl_float3>(4, 5, 1)), 5.0f);
    CHECK(veq(kl_cross(kl_make<kl_float3>(1, 0, 0), kl_make<kl_float3>(0, 1, 0)), 0, 0, 1));
    CHECK(veq(kl_cross(kl_make<kl_float4>(0, 1, 0, 7), kl_make<kl_float4>(0, 0, 1, 9)), 1, 0, 0, 0));
    CHECK(veq(kl_normalize(kl_make<kl_float2>(0, 0)), 0, 0));
    CHECK(kl_fabs(kl_length(kl_normalize(kl_make<kl_float4>(1, 2, 3, 4))) - 1.0f) < 1e-6f);
    CHECK(kl_fabs(kl_fast_length(kl_make<kl_float2>(3, 4)) - 5.0f) < 1e-5f);
    CHECK_EQ(kl_dot(v.kl_swc<102, 0, 1>(), v.kl_swc<102, 2, 3>()), 11.0f);
    CHECK_EQ(kl_length(kl_make<kl_double3>(2, 3, 6)), 7.0);

    /* ---- misc vector */
    CHECK_EQ(kl_vec_step(f3), 4);
    CHECK_EQ(kl_vec_step(v), 4);
    CHECK_EQ(kl_vec_step(1.0f), 1);
    CHECK_EQ(kl_vec_step(i16), 16);
    CHECK(veq(kl_shuffle(v, kl_make<kl_uint4>(3, 2, 1, 0)), 4, 3, 2, 1));
    CHECK(veq(kl_shuffle(v, kl_make<kl_uint2>(5, 0xff)), 2, 4));   /* mask bits beyond the width ignored */
    CHECK(veq(kl_shuffle(kl_make<kl_int8>(0, 1, 2, 3, 4, 5, 6, 7), kl_make<kl_uchar4>(7, 6, 9, 0)), 7, 6, 1, 0));
    CHECK(veq(kl_shuffle2(kl_make<kl_int4>(0, 1, 2, 3), kl_make<kl_int4>(4, 5, 6, 7), kl_make<kl_uint4>(7, 0, 4, 9)), 7, 0, 4, 1));

    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
