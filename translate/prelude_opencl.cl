/*
 * Kiln's OpenCL C prelude for CUDA C translated to OpenCL C
 * (translate/cuda_to_opencl.c puts it in front of every translation).
 *
 * It gives CUDA's device-side names their CUDA meaning in OpenCL C 1.2:
 * the thread indexes (unsigned, as in CUDA), __syncthreads and the fences,
 * the math library's float names and intrinsics, atomics with CUDA's
 * argument orders and return values (the old value) on global and shared
 * memory, and CUDA's vector types with CUDA's layout: a CUDA float3 is 12
 * bytes, so the 3-component types are structs here (the pass renames
 * float3 to __kiln_float3), while the 2- and 4-component ones are OpenCL's
 * vectors, which have CUDA's size and alignment.
 */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

#define __KILN_OV __attribute__((overloadable))
#define __KILN_FN static inline __attribute__((always_inline))

/* ---- types ----------------------------------------------------------------- */

typedef char int8_t;
typedef uchar uint8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef int int32_t;
typedef uint uint32_t;
typedef long int64_t;
typedef ulong uint64_t;

#define __KILN_VEC1(T) typedef struct { T x; } T##1;
__KILN_VEC1(char) __KILN_VEC1(uchar) __KILN_VEC1(short) __KILN_VEC1(ushort)
__KILN_VEC1(int) __KILN_VEC1(uint) __KILN_VEC1(long) __KILN_VEC1(ulong)
__KILN_VEC1(float)
#define __KILN_VEC3(T) typedef struct { T x, y, z; } __kiln_##T##3;
__KILN_VEC3(char) __KILN_VEC3(uchar) __KILN_VEC3(short) __KILN_VEC3(ushort)
__KILN_VEC3(int) __KILN_VEC3(uint) __KILN_VEC3(long) __KILN_VEC3(ulong)
__KILN_VEC3(float)
#ifdef cl_khr_fp64
__KILN_VEC1(double) __KILN_VEC3(double)
#endif
typedef __kiln_uint3 dim3;

#define __KILN_MAKE1(T) \
    __KILN_FN T##1 make_##T##1(T x) { T##1 r; r.x = x; return r; }
#define __KILN_MAKE2(T) \
    __KILN_FN T##2 make_##T##2(T x, T y) { return (T##2)(x, y); }
#define __KILN_MAKE3(T) \
    __KILN_FN __kiln_##T##3 make_##T##3(T x, T y, T z) \
    { __kiln_##T##3 r; r.x = x; r.y = y; r.z = z; return r; }
#define __KILN_MAKE4(T) \
    __KILN_FN T##4 make_##T##4(T x, T y, T z, T w) { return (T##4)(x, y, z, w); }
#define __KILN_MAKE(T) __KILN_MAKE1(T) __KILN_MAKE2(T) __KILN_MAKE3(T) __KILN_MAKE4(T)
__KILN_MAKE(char) __KILN_MAKE(uchar) __KILN_MAKE(short) __KILN_MAKE(ushort)
__KILN_MAKE(int) __KILN_MAKE(uint) __KILN_MAKE(long) __KILN_MAKE(ulong)
__KILN_MAKE(float)
#ifdef cl_khr_fp64
__KILN_MAKE(double)
#endif
#define make_longlong2 make_long2
#define make_longlong4 make_long4
#define make_ulonglong2 make_ulong2
#define make_ulonglong4 make_ulong4

/* ---- the thread's place ------------------------------------------------------- */

__KILN_FN __kiln_uint3 __kiln_dim(uint a, uint b, uint c)
{
    __kiln_uint3 r; r.x = a; r.y = b; r.z = c; return r;
}
/* The pass rewrites threadIdx.x & co. itself; these serve whole uses. */
#define threadIdx __kiln_dim((uint)get_local_id(0), (uint)get_local_id(1), (uint)get_local_id(2))
#define blockIdx __kiln_dim((uint)get_group_id(0), (uint)get_group_id(1), (uint)get_group_id(2))
#define blockDim __kiln_dim((uint)get_local_size(0), (uint)get_local_size(1), (uint)get_local_size(2))
#define gridDim __kiln_dim((uint)get_num_groups(0), (uint)get_num_groups(1), (uint)get_num_groups(2))
#define warpSize 32

#define __syncthreads() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

/* __syncthreads_count/and/or (translate/cuda_barriers.c rewrites them to
 * these, with a counter in shared memory that the function declares, and
 * a returned thread's predicate false for count and or, true for and):
 * first the barrier CUDA's has, then the first work-item clears the
 * counter (every read of the last vote's result came before the barrier),
 * every work-item counts, and all read the total. */
__KILN_FN int __kiln_syncthreads_count(int predicate, volatile __local int *counter)
{
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0)
        *counter = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (predicate)
        atomic_inc(counter);
    barrier(CLK_LOCAL_MEM_FENCE);
    return *counter;
}
__KILN_FN int __kiln_syncthreads_and(int predicate, volatile __local int *counter)
{
    return __kiln_syncthreads_count(predicate, counter) ==
           (int)(get_local_size(0) * get_local_size(1) * get_local_size(2));
}
__KILN_FN int __kiln_syncthreads_or(int predicate, volatile __local int *counter)
{
    return __kiln_syncthreads_count(predicate, counter) != 0;
}
/* Warp primitives (__shfl*_sync, __ballot_sync, __any/__all_sync,
 * __activemask, __reduce_*_sync), emulated through shared memory: OpenCL
 * C 1.2 has no sub-groups, and PoCL 3.1 none of width 32.  A warp is 32
 * consecutive linear thread ids, as in CUDA.  translate/cuda_barriers*.c
 * makes every thread of the block reach each call (a thread that is not
 * running the call in CUDA passes active = 0) and gives the function a
 * __shared__ scratch of __KILN_WARP_SLOTS 64-bit slots.  Each exchange:
 * a barrier (the previous exchange's reads are done), every thread
 * writes its slot, a barrier, every thread reads its source's slot. */
#define __KILN_WARP_SLOTS 1024
__KILN_FN uint __kiln_warp_self(void)
{
    return (uint)((get_local_id(2) * get_local_size(1) + get_local_id(1)) *
                  get_local_size(0) + get_local_id(0));
}
__KILN_FN uint __kiln_warp_threads(void)
{
    return (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
}
/* A block of more than 1024 threads (CUDA's limit) has no slot past the
 * scratch: such threads neither write nor read it (their results are
 * their own values); memory stays safe. */
__KILN_FN ulong __kiln_warp_exchange(ulong bits, uint source,
                                     __local ulong *scratch)
{
    uint self = __kiln_warp_self();
    barrier(CLK_LOCAL_MEM_FENCE);
    if (self < __KILN_WARP_SLOTS)
        scratch[self] = bits;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint from = (self & ~31u) | source;
    return from < __KILN_WARP_SLOTS ? scratch[from] : bits;
}
/* The source lane of a shuffle as PTX's shfl.sync computes it (mode 0
 * idx, 1 up, 2 down, 3 xor), with CUDA's c operand for `width`:
 * ((32 - width) << 8) | (up ? 0 : 31).  An out-of-range source reads the
 * thread's own value. */
__KILN_FN uint __kiln_shfl_lane(int mode, uint b, int width)
{
    uint lane = __kiln_warp_self() & 31u;
    uint segmask = (uint)(32 - width) & 31u;
    uint clamp = mode == 1 ? 0u : 31u;
    int max_lane = (int)((lane & segmask) | (clamp & ~segmask));
    int min_lane = (int)(lane & segmask);
    int bval = (int)(b & 31u), j;
    int ok;
    if (mode == 1) {
        j = (int)lane - bval;
        ok = j >= max_lane;
    } else if (mode == 2) {
        j = (int)lane + bval;
        ok = j <= max_lane;
    } else if (mode == 3) {
        j = (int)(lane ^ (uint)bval);
        ok = j <= max_lane;
    } else {
        j = min_lane | (bval & ~(int)segmask);
        ok = j <= max_lane;
    }
    return ok ? (uint)j : lane;
}
#define __KILN_SHFL(S, T, TO_BITS, FROM_BITS) \
    __KILN_FN T __kiln_shfl_##S(int mode, uint mask, T v, uint b, int width, \
                                __local ulong *scratch) \
    { \
        (void)mask; \
        ulong bits = __kiln_warp_exchange(TO_BITS, \
                                          __kiln_shfl_lane(mode, b, width), \
                                          scratch); \
        return FROM_BITS; \
    }
__KILN_SHFL(i, int, (ulong)(uint)v, (int)(uint)bits)
__KILN_SHFL(u, uint, (ulong)v, (uint)bits)
__KILN_SHFL(l, long, (ulong)v, (long)bits)
__KILN_SHFL(ul, ulong, v, bits)
__KILN_SHFL(f, float, (ulong)as_uint(v), as_float((uint)bits))
#ifdef cl_khr_fp64
__KILN_SHFL(d, double, as_ulong(v), as_double(bits))
#endif
/* The lanes of the thread's warp whose `active && predicate` holds, and
 * that exist (a block's last warp may be partial), within mask. */
__KILN_FN uint __kiln_warp_ballot(uint mask, int predicate, int active,
                                  __local ulong *scratch)
{
    uint self = __kiln_warp_self(), threads = __kiln_warp_threads();
    barrier(CLK_LOCAL_MEM_FENCE);
    if (self < __KILN_WARP_SLOTS)
        scratch[self] = active && predicate ? 1 : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint base = self & ~31u, bits = 0;
    for (uint k = 0; k < 32u; ++k)
        if (base + k < threads && base + k < __KILN_WARP_SLOTS &&
            scratch[base + k] != 0)
            bits |= 1u << k;
    return bits & mask;
}
#define __kiln_warp_any(mask, p, active, scratch) \
    (__kiln_warp_ballot((mask), (p), (active), (scratch)) != 0u)
#define __kiln_warp_all(mask, p, active, scratch) \
    (__kiln_warp_ballot((mask), !(p), (active), (scratch)) == 0u)
#define __kiln_warp_activemask(active, scratch) \
    __kiln_warp_ballot(0xffffffffu, 1, (active), (scratch))
/* __reduce_*_sync: every active lane of mask in the thread's warp. */
#define __KILN_WARP_REDUCE(NAME, T, INIT, COMBINE) \
    __KILN_FN T __kiln_reduce_##NAME(uint mask, T v, int active, \
                                     __local ulong *scratch) \
    { \
        uint self = __kiln_warp_self(), threads = __kiln_warp_threads(); \
        barrier(CLK_LOCAL_MEM_FENCE); \
        if (self < __KILN_WARP_SLOTS) \
            scratch[self] = active && (mask >> (self & 31u) & 1u) \
                                ? ((ulong)1 << 32) | (ulong)(uint)v : 0; \
        barrier(CLK_LOCAL_MEM_FENCE); \
        uint base = self & ~31u; \
        T r = INIT; \
        for (uint k = 0; k < 32u; ++k) { \
            if (base + k >= threads || base + k >= __KILN_WARP_SLOTS) \
                break; \
            ulong slot = scratch[base + k]; \
            if ((slot >> 32) == 0) \
                continue; \
            T x = (T)(uint)slot; \
            r = COMBINE; \
        } \
        return r; \
    }
__KILN_WARP_REDUCE(add_u, uint, 0u, r + x)
__KILN_WARP_REDUCE(add_i, int, 0, (int)((uint)r + (uint)x))
__KILN_WARP_REDUCE(min_u, uint, 0xffffffffu, min(r, x))
__KILN_WARP_REDUCE(min_i, int, 0x7fffffff, min(r, x))
__KILN_WARP_REDUCE(max_u, uint, 0u, max(r, x))
__KILN_WARP_REDUCE(max_i, int, (int)0x80000000, max(r, x))
__KILN_WARP_REDUCE(and_u, uint, 0xffffffffu, r & x)
__KILN_WARP_REDUCE(or_u, uint, 0u, r | x)
__KILN_WARP_REDUCE(xor_u, uint, 0u, r ^ x)
/* An integer divisor in code that threads which returned run too (a
 * loop's condition): zero, which no running thread divides by, is 1.  A
 * floating divisor the pass did not know for one (sqrtf(n)) stays as it
 * is: x / 0.0f is CUDA's infinity, and the inactive threads' result is
 * not used. */
#define __KILN_NONZERO(T) \
    __KILN_FN __KILN_OV T __kiln_nonzero(T x) { return x != (T)0 ? x : (T)1; }
#define __KILN_NONZERO_V(T) __KILN_NONZERO(T) __KILN_NONZERO(T##2) __KILN_NONZERO(T##4)
__KILN_NONZERO_V(char) __KILN_NONZERO_V(uchar) __KILN_NONZERO_V(short)
__KILN_NONZERO_V(ushort) __KILN_NONZERO_V(int) __KILN_NONZERO_V(uint)
__KILN_NONZERO_V(long) __KILN_NONZERO_V(ulong)
#define __KILN_AS_IS(T) __KILN_FN __KILN_OV T __kiln_nonzero(T x) { return x; }
__KILN_AS_IS(float) __KILN_AS_IS(float2) __KILN_AS_IS(float4)
#ifdef cl_khr_fp64
__KILN_AS_IS(double) __KILN_AS_IS(double2) __KILN_AS_IS(double4)
#endif
#define __threadfence() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define __threadfence_system() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define __threadfence_block() mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
/* assert(c): translate/cuda_barriers.c makes a failing one call this with
 * the program's __kiln_assert and the site's text; the first thread to
 * fail records the site, its block and its thread, which the core reads
 * after the launch (core/launch_assert.c).  With NDEBUG, assert is this
 * macro and compiles to nothing, as <assert.h> says. */
__KILN_FN void __kiln_assert_failed(volatile __global uint *state,
                                    __constant char *site)
{
    if (atomic_cmpxchg(&state[0], 0u, 1u) != 0u)
        return;
    state[1] = (uint)get_group_id(0);
    state[2] = (uint)get_group_id(1);
    state[3] = (uint)get_group_id(2);
    state[4] = (uint)get_local_id(0);
    state[5] = (uint)get_local_id(1);
    state[6] = (uint)get_local_id(2);
    volatile __global uchar *text = (volatile __global uchar *)(state + 8);
    int k = 0;
    for (; k < 223 && site[k] != 0; ++k)
        text[k] = (uchar)site[k];
    text[k] = 0;
}
#define assert(condition) ((void)0)
#define __ldg(pointer) (*(pointer))
#define __ldcg(pointer) (*(pointer))
#define __ldca(pointer) (*(pointer))
#define __ldcs(pointer) (*(pointer))
#define __ldlu(pointer) (*(pointer))
#define __ldcv(pointer) (*(pointer))
/* The cache-hinted stores: a store (the hint is the device's business). */
#define __stwb(pointer, value) ((void)(*(pointer) = (value)))
#define __stcg(pointer, value) ((void)(*(pointer) = (value)))
#define __stcs(pointer, value) ((void)(*(pointer) = (value)))
#define __stwt(pointer, value) ((void)(*(pointer) = (value)))

/* memcpy and memset in device code (bytes, as CUDA's): one overload per
 * pair of address spaces, since OpenCL C 1.2 has no generic pointer. */
#define __KILN_MEMCPY(TO, FROM) \
    __KILN_FN __KILN_OV TO void *__kiln_memcpy(TO void *to, FROM const void *from, size_t n) \
    { \
        TO uchar *t = (TO uchar *)to; \
        FROM const uchar *f = (FROM const uchar *)from; \
        for (size_t i = 0; i < n; ++i) \
            t[i] = f[i]; \
        return to; \
    }
#define __KILN_MEMCPY_TO(TO) __KILN_MEMCPY(TO, __private) __KILN_MEMCPY(TO, __local) \
    __KILN_MEMCPY(TO, __global) __KILN_MEMCPY(TO, __constant)
__KILN_MEMCPY_TO(__private) __KILN_MEMCPY_TO(__local) __KILN_MEMCPY_TO(__global)
#define __KILN_MEMSET(TO) \
    __KILN_FN __KILN_OV TO void *__kiln_memset(TO void *to, int value, size_t n) \
    { \
        TO uchar *t = (TO uchar *)to; \
        for (size_t i = 0; i < n; ++i) \
            t[i] = (uchar)value; \
        return to; \
    }
__KILN_MEMSET(__private) __KILN_MEMSET(__local) __KILN_MEMSET(__global)
#define memcpy __kiln_memcpy
#define memset __kiln_memset

/* ---- math ------------------------------------------------------------------------ */

#define __kiln_huge_valf HUGE_VALF
#define __kiln_huge_val HUGE_VAL
#define __kiln_nanf NAN

#define sinf(x) sin((float)(x))
#define cosf(x) cos((float)(x))
#define tanf(x) tan((float)(x))
#define asinf(x) asin((float)(x))
#define acosf(x) acos((float)(x))
#define atanf(x) atan((float)(x))
#define atan2f(y, x) atan2((float)(y), (float)(x))
#define sinhf(x) sinh((float)(x))
#define coshf(x) cosh((float)(x))
#define tanhf(x) tanh((float)(x))
#define asinhf(x) asinh((float)(x))
#define acoshf(x) acosh((float)(x))
#define atanhf(x) atanh((float)(x))
/* CUDA's sinpif and cospif are within 1 ulp, OpenCL's within 4 (PoCL's
 * 2): through double where the device has it, rounded once. */
#ifdef cl_khr_fp64
#define __kiln_sinpif(x) ((float)sinpi((double)(x)))
#define __kiln_cospif(x) ((float)cospi((double)(x)))
#else
#define __kiln_sinpif(x) sinpi(x)
#define __kiln_cospif(x) cospi(x)
#endif
#define sinpif(x) __kiln_sinpif((float)(x))
#define cospif(x) __kiln_cospif((float)(x))
#define expf(x) exp((float)(x))
#define exp2f(x) exp2((float)(x))
#define exp10f(x) exp10((float)(x))
#define expm1f(x) expm1((float)(x))
#define logf(x) log((float)(x))
#define log2f(x) log2((float)(x))
#define log10f(x) log10((float)(x))
#define log1pf(x) log1p((float)(x))
#define logbf(x) logb((float)(x))
/* CUDA: ilogbf(0) and ilogbf(NaN) are INT_MIN, ilogbf(+-inf) INT_MAX;
 * OpenCL leaves FP_ILOGB0 and FP_ILOGBNAN to the implementation */
__KILN_FN int __kiln_ilogbf(float x)
{
    return isnan(x) || x == 0.0f ? INT_MIN : isinf(x) ? INT_MAX : ilogb(x);
}
#define ilogbf(x) __kiln_ilogbf((float)(x))
#define powf(x, y) pow((float)(x), (float)(y))
#define sqrtf(x) sqrt((float)(x))
#define rsqrtf(x) rsqrt((float)(x))
#define cbrtf(x) cbrt((float)(x))
#ifdef cl_khr_fp64
/* rcbrtf, erfcf and tgammaf in double, rounded once: OpenCL allows these
 * (and NVIDIA's OpenCL takes) 2 to 16 ulps, more than CUDA's bounds (1, 4
 * and 5 ulps); the double result rounds to within one. */
#define rcbrtf(x) ((float)(1.0 / cbrt((double)(float)(x))))
#else
#define rcbrtf(x) (1.0f / cbrt((float)(x)))
#endif
#define hypotf(x, y) hypot((float)(x), (float)(y))
#define fabsf(x) fabs((float)(x))
#define floorf(x) floor((float)(x))
#define ceilf(x) ceil((float)(x))
#define truncf(x) trunc((float)(x))
#define roundf(x) round((float)(x))
/* PoCL 3.1's rint crashes the kernel when its argument is a constant of
 * 2^31 or more, infinite or NaN; a float that large is whole already. */
__KILN_OV __KILN_FN float __kiln_rint(float x)
{
    return isnan(x) || fabs(x) >= 0x1p23f ? x : rint(x);
}
#ifdef cl_khr_fp64
__KILN_OV __KILN_FN double __kiln_rint(double x)
{
    return isnan(x) || fabs(x) >= 0x1p52 ? x : rint(x);
}
#endif
#undef rint
#define rint(x) __kiln_rint(x)
#define rintf(x) __kiln_rint((float)(x))
#define nearbyintf(x) __kiln_rint((float)(x))
#define lrintf(x) ((long)__kiln_rint((float)(x)))
#define llrintf(x) ((long)__kiln_rint((float)(x)))
#define lroundf(x) ((long)round((float)(x)))
#define llroundf(x) ((long)round((float)(x)))
#define fmodf(x, y) fmod((float)(x), (float)(y))
#define remainderf(x, y) remainder((float)(x), (float)(y))
#define fminf(x, y) fmin((float)(x), (float)(y))
#define fmaxf(x, y) fmax((float)(x), (float)(y))
#define fdimf(x, y) fdim((float)(x), (float)(y))
#define fmaf(x, y, z) fma((float)(x), (float)(y), (float)(z))
#define copysignf(x, y) copysign((float)(x), (float)(y))
#define nextafterf(x, y) nextafter((float)(x), (float)(y))
#define ldexpf(x, n) ldexp((float)(x), (int)(n))
#define scalbnf(x, n) ldexp((float)(x), (int)(n))
#define erff(x) erf((float)(x))
#ifdef cl_khr_fp64
#define erfcf(x) ((float)erfc((double)(float)(x)))
#define tgammaf(x) ((float)tgamma((double)(float)(x)))
#else
#define erfcf(x) erfc((float)(x))
#define tgammaf(x) tgamma((float)(x))
#endif
#define lgammaf(x) lgamma((float)(x))
/* The sincos family as functions: CUDA evaluates each argument once
 * (sincosf(in[k++], &s, &c) advances k by one).  OpenCL's sincos stores
 * the cosine through a pointer of any address space; sincospi has no
 * OpenCL twin, so it gets one here per space. */
#define __KILN_SINCOS(T, S)                                                     \
__KILN_OV __KILN_FN T __kiln_sincos(T x, S T *c) { return sincos(x, c); }      \
__KILN_OV __KILN_FN T __kiln_sincospi(T x, S T *c) { *c = __kiln_cospi##T(x); return __kiln_sinpi##T(x); }
#define __kiln_sinpidouble(x) sinpi(x)
#define __kiln_cospidouble(x) cospi(x)
#define __kiln_sinpifloat(x) __kiln_sinpif(x)
#define __kiln_cospifloat(x) __kiln_cospif(x)
__KILN_SINCOS(float, __private) __KILN_SINCOS(float, __local)
__KILN_SINCOS(float, __global)
#ifdef cl_khr_fp64
__KILN_SINCOS(double, __private) __KILN_SINCOS(double, __local)
__KILN_SINCOS(double, __global)
#endif
#define sincosf(x, s, c) ((void)(*(s) = __kiln_sincos((float)(x), (c))))
#define sincospif(x, s, c) ((void)(*(s) = __kiln_sincospi((float)(x), (c))))
#undef sincos
#define sincos(x, s, c) ((void)(*(s) = __kiln_sincos((x), (c))))
#define sincospi(x, s, c) ((void)(*(s) = __kiln_sincospi((x), (c))))
#define __sinf(x) native_sin((float)(x))
#define __cosf(x) native_cos((float)(x))
#define __tanf(x) native_tan((float)(x))
#define __expf(x) native_exp((float)(x))
#define __exp10f(x) native_exp10((float)(x))
#define __logf(x) native_log((float)(x))
#define __log2f(x) native_log2((float)(x))
#define __log10f(x) native_log10((float)(x))
#define __powf(x, y) pow((float)(x), (float)(y))
#define __fdividef(x, y) native_divide((float)(x), (float)(y))
#define __saturatef(x) clamp((float)(x), 0.0f, 1.0f)
#define __fsqrt_rn(x) sqrt((float)(x))
#define __frsqrt_rn(x) rsqrt((float)(x))
/* CUDA never contracts these into a fused multiply-add: each is a
 * function of its own, which OpenCL's FP_CONTRACT (per expression) does
 * not reach.  The directed roundings (_rz, _ru, _rd) are refused by the
 * translation: OpenCL C has no per-operation rounding mode. */
#if defined(__KILN_INLINE_PTX)
/* NVIDIA's OpenCL inlines these and then contracts x * y + z across
 * them; PTX's .rn instructions, which CUDA's intrinsics are, never fuse. */
#define __KILN_PTX_RN(name, op, T, c)                                                  \
__KILN_FN T name(T x, T y)                                                             \
{                                                                                      \
    T r;                                                                               \
    asm(op " %0, %1, %2;" : "=" c(r) : c(x), c(y));                                    \
    return r;                                                                          \
}
__KILN_PTX_RN(__kiln_fadd_rn, "add.rn.f32", float, "f")
__KILN_PTX_RN(__kiln_fsub_rn, "sub.rn.f32", float, "f")
__KILN_PTX_RN(__kiln_fmul_rn, "mul.rn.f32", float, "f")
#else
__KILN_FN float __kiln_fadd_rn(float x, float y) { return x + y; }
__KILN_FN float __kiln_fsub_rn(float x, float y) { return x - y; }
__KILN_FN float __kiln_fmul_rn(float x, float y) { return x * y; }
#endif
__KILN_FN float __kiln_fdiv_rn(float x, float y) { return x / y; }
#define __frcp_rn(x) __kiln_fdiv_rn(1.0f, (float)(x))
#define __fadd_rn(x, y) __kiln_fadd_rn((float)(x), (float)(y))
#define __fsub_rn(x, y) __kiln_fsub_rn((float)(x), (float)(y))
#define __fmul_rn(x, y) __kiln_fmul_rn((float)(x), (float)(y))
#define __fdiv_rn(x, y) __kiln_fdiv_rn((float)(x), (float)(y))
#define __fmaf_rn(x, y, z) fma((float)(x), (float)(y), (float)(z))
#ifdef cl_khr_fp64
#if defined(__KILN_INLINE_PTX)
__KILN_PTX_RN(__kiln_dadd_rn, "add.rn.f64", double, "d")
__KILN_PTX_RN(__kiln_dsub_rn, "sub.rn.f64", double, "d")
__KILN_PTX_RN(__kiln_dmul_rn, "mul.rn.f64", double, "d")
#else
__KILN_FN double __kiln_dadd_rn(double x, double y) { return x + y; }
__KILN_FN double __kiln_dsub_rn(double x, double y) { return x - y; }
__KILN_FN double __kiln_dmul_rn(double x, double y) { return x * y; }
#endif
__KILN_FN double __kiln_ddiv_rn(double x, double y) { return x / y; }
#define __dadd_rn(x, y) __kiln_dadd_rn((double)(x), (double)(y))
#define __dsub_rn(x, y) __kiln_dsub_rn((double)(x), (double)(y))
#define __dmul_rn(x, y) __kiln_dmul_rn((double)(x), (double)(y))
#define __ddiv_rn(x, y) __kiln_ddiv_rn((double)(x), (double)(y))
#define __drcp_rn(x) __kiln_ddiv_rn(1.0, (double)(x))
#define __dsqrt_rn(x) sqrt((double)(x))
#define __fma_rn(x, y, z) fma((double)(x), (double)(y), (double)(z))
#endif

/* C++'s pow overloads (CUDA C is C++): pow(x, 2) with an int exponent
 * is ambiguous among OpenCL's. */
__KILN_OV __KILN_FN float __kiln_pow(float x, float y) { return pow(x, y); }
__KILN_OV __KILN_FN float __kiln_pow(float x, int y) { return pown(x, y); }
#ifdef cl_khr_fp64
__KILN_OV __KILN_FN double __kiln_pow(double x, double y) { return pow(x, y); }
__KILN_OV __KILN_FN double __kiln_pow(double x, int y) { return pown(x, y); }
#endif

/* CUDA's abs returns the argument's type (OpenCL's an unsigned one). */
/* abs(INT_MIN) is INT_MIN, as on CUDA, without a signed overflow */
__KILN_OV __KILN_FN int __kiln_abs(int x) { return (int)(x < 0 ? 0u - (uint)x : (uint)x); }
__KILN_OV __KILN_FN long __kiln_abs(long x) { return (long)(x < 0 ? 0ul - (ulong)x : (ulong)x); }
__KILN_OV __KILN_FN float __kiln_abs(float x) { return fabs(x); }
#ifdef cl_khr_fp64
__KILN_OV __KILN_FN double __kiln_abs(double x) { return fabs(x); }
#endif
#undef abs
#define abs(x) __kiln_abs(x)
#define labs(x) __kiln_abs((long)(x))
#define llabs(x) __kiln_abs((long)(x))
/* CUDA's min and max are C++ overloads: mixed integer operands meet in
 * the usual arithmetic conversions (min(int, unsigned) is unsigned),
 * where OpenCL's min wants two operands of one type. */
#define __KILN_MINMAX2(A, B, R)                                                 \
__KILN_OV __KILN_FN R __kiln_min(A x, B y) { return min((R)x, (R)y); }         \
__KILN_OV __KILN_FN R __kiln_max(A x, B y) { return max((R)x, (R)y); }
#define __KILN_MINMAX(A, B, R) __KILN_MINMAX2(A, B, R) __KILN_MINMAX2(B, A, R)
__KILN_MINMAX2(int, int, int) __KILN_MINMAX2(uint, uint, uint)
__KILN_MINMAX2(long, long, long) __KILN_MINMAX2(ulong, ulong, ulong)
__KILN_MINMAX(int, uint, uint) __KILN_MINMAX(int, long, long)
__KILN_MINMAX(int, ulong, ulong) __KILN_MINMAX(uint, long, long)
__KILN_MINMAX(uint, ulong, ulong) __KILN_MINMAX(long, ulong, ulong)
/* floating point: CUDA's min is fminf, which ignores a NaN (OpenCL's
 * min is undefined for one) */
#define __KILN_FMINMAX2(A, B, R)                                                \
__KILN_OV __KILN_FN R __kiln_min(A x, B y) { return fmin((R)x, (R)y); }        \
__KILN_OV __KILN_FN R __kiln_max(A x, B y) { return fmax((R)x, (R)y); }
__KILN_FMINMAX2(float, float, float)
#ifdef cl_khr_fp64
__KILN_FMINMAX2(double, double, double) __KILN_FMINMAX2(float, double, double)
__KILN_FMINMAX2(double, float, double)
#endif
#undef min
#undef max
#define min(x, y) __kiln_min((x), (y))
#define max(x, y) __kiln_max((x), (y))
#define umin(x, y) min((uint)(x), (uint)(y))
#define umax(x, y) max((uint)(x), (uint)(y))
#define llmin(x, y) min((long)(x), (long)(y))
#define llmax(x, y) max((long)(x), (long)(y))
#define ullmin(x, y) min((ulong)(x), (ulong)(y))
#define ullmax(x, y) max((ulong)(x), (ulong)(y))

/* ---- integer intrinsics ------------------------------------------------------------ */

#define __popc(x) ((int)popcount((uint)(x)))
#define __popcll(x) ((int)popcount((ulong)(x)))
#define __clz(x) ((int)clz((int)(x)))
#define __clzll(x) ((int)clz((long)(x)))
__KILN_FN int __kiln_ffs(uint x) { return x == 0 ? 0 : 32 - (int)clz(x & (0u - x)); }
__KILN_FN int __kiln_ffsll(ulong x) { return x == 0 ? 0 : 64 - (int)clz(x & (0ul - x)); }
#define __ffs(x) __kiln_ffs((uint)(x))
#define __ffsll(x) __kiln_ffsll((ulong)(x))
__KILN_FN uint __kiln_brev(uint x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}
#define __brev(x) __kiln_brev((uint)(x))
__KILN_FN ulong __kiln_brevll(ulong x)
{
    return ((ulong)__kiln_brev((uint)x) << 32) | (ulong)__kiln_brev((uint)(x >> 32));
}
#define __brevll(x) __kiln_brevll((ulong)(x))
/* CUDA's 24-bit multiplies use the low 24 bits of each operand (signed:
 * sign-extended from bit 23) and return the low 32 bits of the product;
 * OpenCL's mul24 is undefined outside 24 bits. */
__KILN_FN int __kiln_mul24(int x, int y)
{
    int a = (int)((uint)x << 8) >> 8, b = (int)((uint)y << 8) >> 8;
    return (int)((uint)a * (uint)b);
}
__KILN_FN uint __kiln_umul24(uint x, uint y)
{
    return (x & 0xffffffu) * (y & 0xffffffu);
}
#define __mul24(x, y) __kiln_mul24((int)(x), (int)(y))
#define __umul24(x, y) __kiln_umul24((uint)(x), (uint)(y))
#define __mulhi(x, y) mul_hi((int)(x), (int)(y))
#define __umulhi(x, y) mul_hi((uint)(x), (uint)(y))
#define __mul64hi(x, y) mul_hi((long)(x), (long)(y))
#define __umul64hi(x, y) mul_hi((ulong)(x), (ulong)(y))
#define __hadd(x, y) hadd((int)(x), (int)(y))
#define __rhadd(x, y) rhadd((int)(x), (int)(y))
#define __uhadd(x, y) hadd((uint)(x), (uint)(y))
#define __urhadd(x, y) rhadd((uint)(x), (uint)(y))
#define __sad(x, y, z) (abs_diff((int)(x), (int)(y)) + (uint)(z))
#define __usad(x, y, z) (abs_diff((uint)(x), (uint)(y)) + (uint)(z))
__KILN_FN uint __kiln_byte_perm(uint x, uint y, uint s)
{
    ulong v = ((ulong)y << 32) | x;
    uint r = 0;
    for (int i = 0; i < 4; ++i)
        r |= (uint)((v >> (((s >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
    return r;
}
#define __byte_perm(x, y, s) __kiln_byte_perm((uint)(x), (uint)(y), (uint)(s))
#define __funnelshift_l(lo, hi, s) ((uint)(((((ulong)(uint)(hi)) << 32 | (uint)(lo)) << ((uint)(s) & 31)) >> 32))
#define __funnelshift_r(lo, hi, s) ((uint)((((ulong)(uint)(hi)) << 32 | (uint)(lo)) >> ((uint)(s) & 31)))
/* the _c forms clamp the shift to 32 instead of taking it modulo 32 */
__KILN_FN uint __kiln_funnel_clamp(uint s) { return s > 32u ? 32u : s; }
#define __funnelshift_lc(lo, hi, s) ((uint)(((((ulong)(uint)(hi)) << 32 | (uint)(lo)) << __kiln_funnel_clamp((uint)(s))) >> 32))
#define __funnelshift_rc(lo, hi, s) ((uint)((((ulong)(uint)(hi)) << 32 | (uint)(lo)) >> __kiln_funnel_clamp((uint)(s))))

/* ---- conversions and reinterpretation ---------------------------------------------------- */

#define __float_as_int(x) as_int((float)(x))
#define __float_as_uint(x) as_uint((float)(x))
#define __int_as_float(x) as_float((int)(x))
#define __uint_as_float(x) as_float((uint)(x))
#define __double_as_longlong(x) as_long((double)(x))
#define __longlong_as_double(x) as_double((long)(x))
/* Float to integer as PTX's cvt does it on the hardware: out-of-range
 * values saturate; NaN gives 0 from a float to a 32-bit integer, and the
 * sign bit alone (0x80000000, 0x8000000000000000) from a double or to a
 * 64-bit integer (as an H200 does natively).  OpenCL's plain conversions
 * are undefined out of range (compilers delete code around them), and
 * PoCL 3.1's _sat ones crash the kernel when the argument is a constant,
 * so the value is rounded in its own type (exact), clamped, and only then
 * converted. */
#define __KILN_F2I_ONE(F, T, N, MODE, ROUND, LOW, LIMIT, MIN, MAX, NANV) \
    __KILN_FN T __kiln_##N##_##MODE(F x)                                   \
    {                                                                      \
        F r = ROUND(x);                                                    \
        return isnan(x) ? (T)(NANV) : r <= (F)(LOW) ? (MIN)                \
               : r >= (F)(LIMIT) ? (MAX) : (T)r;                           \
    }
/* LOW is the type's minimum and LIMIT its maximum plus one (2^31, 2^32,
 * 2^63, 2^64), both exact in F. */
#define __KILN_F2I(F, T, N, LOW, LIMIT, MIN, MAX, NANV)                   \
    __KILN_F2I_ONE(F, T, N, rn, __kiln_rint, LOW, LIMIT, MIN, MAX, NANV)   \
    __KILN_F2I_ONE(F, T, N, rz, trunc, LOW, LIMIT, MIN, MAX, NANV)         \
    __KILN_F2I_ONE(F, T, N, ru, ceil, LOW, LIMIT, MIN, MAX, NANV)          \
    __KILN_F2I_ONE(F, T, N, rd, floor, LOW, LIMIT, MIN, MAX, NANV)
#define __KILN_F2I_ALL(F, P, NAN32)                                        \
    __KILN_F2I(F, int, P##2int, -0x1p31f, 0x1p31f, INT_MIN, INT_MAX,      \
               (NAN32) ? INT_MIN : 0)                                     \
    __KILN_F2I(F, uint, P##2uint, 0.0f, 0x1p32f, 0u, UINT_MAX,             \
               (NAN32) ? 0x80000000u : 0u)                                \
    __KILN_F2I(F, long, P##2ll, -0x1p63f, 0x1p63f, LONG_MIN, LONG_MAX,    \
               LONG_MIN)                                                  \
    __KILN_F2I(F, ulong, P##2ull, 0.0f, 0x1p64f, 0ul, ULONG_MAX,           \
               0x8000000000000000ul)
__KILN_F2I_ALL(float, float, 0)
#define __float2int_rn(x) __kiln_float2int_rn((float)(x))
#define __float2int_rz(x) __kiln_float2int_rz((float)(x))
#define __float2int_ru(x) __kiln_float2int_ru((float)(x))
#define __float2int_rd(x) __kiln_float2int_rd((float)(x))
#define __float2uint_rn(x) __kiln_float2uint_rn((float)(x))
#define __float2uint_rz(x) __kiln_float2uint_rz((float)(x))
#define __float2uint_ru(x) __kiln_float2uint_ru((float)(x))
#define __float2uint_rd(x) __kiln_float2uint_rd((float)(x))
#define __float2ll_rn(x) __kiln_float2ll_rn((float)(x))
#define __float2ll_rz(x) __kiln_float2ll_rz((float)(x))
#define __float2ll_ru(x) __kiln_float2ll_ru((float)(x))
#define __float2ll_rd(x) __kiln_float2ll_rd((float)(x))
#define __float2ull_rn(x) __kiln_float2ull_rn((float)(x))
#define __float2ull_rz(x) __kiln_float2ull_rz((float)(x))
#define __float2ull_ru(x) __kiln_float2ull_ru((float)(x))
#define __float2ull_rd(x) __kiln_float2ull_rd((float)(x))
#define __int2float_rn(x) convert_float_rte((int)(x))
#define __int2float_rz(x) convert_float_rtz((int)(x))
#define __int2float_ru(x) convert_float_rtp((int)(x))
#define __int2float_rd(x) convert_float_rtn((int)(x))
#define __uint2float_rn(x) convert_float_rte((uint)(x))
#define __uint2float_rz(x) convert_float_rtz((uint)(x))
#define __uint2float_ru(x) convert_float_rtp((uint)(x))
#define __uint2float_rd(x) convert_float_rtn((uint)(x))
#define __ll2float_rn(x) convert_float_rte((long)(x))
#define __ll2float_rz(x) convert_float_rtz((long)(x))
#define __ll2float_ru(x) convert_float_rtp((long)(x))
#define __ll2float_rd(x) convert_float_rtn((long)(x))
#define __ull2float_rn(x) convert_float_rte((ulong)(x))
#define __ull2float_rz(x) convert_float_rtz((ulong)(x))
#define __ull2float_ru(x) convert_float_rtp((ulong)(x))
#define __ull2float_rd(x) convert_float_rtn((ulong)(x))
#ifdef cl_khr_fp64
__KILN_F2I_ALL(double, double, 1)
#define __double2int_rn(x) __kiln_double2int_rn((double)(x))
#define __double2int_rz(x) __kiln_double2int_rz((double)(x))
#define __double2int_ru(x) __kiln_double2int_ru((double)(x))
#define __double2int_rd(x) __kiln_double2int_rd((double)(x))
#define __double2uint_rn(x) __kiln_double2uint_rn((double)(x))
#define __double2uint_rz(x) __kiln_double2uint_rz((double)(x))
#define __double2uint_ru(x) __kiln_double2uint_ru((double)(x))
#define __double2uint_rd(x) __kiln_double2uint_rd((double)(x))
#define __double2ll_rn(x) __kiln_double2ll_rn((double)(x))
#define __double2ll_rz(x) __kiln_double2ll_rz((double)(x))
#define __double2ll_ru(x) __kiln_double2ll_ru((double)(x))
#define __double2ll_rd(x) __kiln_double2ll_rd((double)(x))
#define __double2ull_rn(x) __kiln_double2ull_rn((double)(x))
#define __double2ull_rz(x) __kiln_double2ull_rz((double)(x))
#define __double2ull_ru(x) __kiln_double2ull_ru((double)(x))
#define __double2ull_rd(x) __kiln_double2ull_rd((double)(x))
#define __double2float_rn(x) convert_float_rte((double)(x))
#define __double2float_rz(x) convert_float_rtz((double)(x))
#define __double2float_ru(x) convert_float_rtp((double)(x))
#define __double2float_rd(x) convert_float_rtn((double)(x))
#define __int2double_rn(x) ((double)(int)(x))
#define __uint2double_rn(x) ((double)(uint)(x))
#define __ll2double_rn(x) convert_double_rte((long)(x))
#define __ll2double_rz(x) convert_double_rtz((long)(x))
#define __ll2double_ru(x) convert_double_rtp((long)(x))
#define __ll2double_rd(x) convert_double_rtn((long)(x))
#define __ull2double_rn(x) convert_double_rte((ulong)(x))
#define __ull2double_rz(x) convert_double_rtz((ulong)(x))
#define __ull2double_ru(x) convert_double_rtp((ulong)(x))
#define __ull2double_rd(x) convert_double_rtn((ulong)(x))
#define __double2hiint(x) ((int)(as_long((double)(x)) >> 32))
#define __double2loint(x) ((int)as_long((double)(x)))
#define __hiloint2double(hi, lo) as_double(((long)(int)(hi) << 32) | (long)(uint)(lo))
#endif

/* ---- atomics: the old value, on global and shared memory --------------------------------- */

#define __KILN_ATOMIC32(S)                                                              \
__KILN_OV __KILN_FN int atomicAdd(volatile S int *p, int v) { return atomic_add(p, v); }       \
__KILN_OV __KILN_FN uint atomicAdd(volatile S uint *p, uint v) { return atomic_add(p, v); }    \
__KILN_OV __KILN_FN int atomicSub(volatile S int *p, int v) { return atomic_sub(p, v); }       \
__KILN_OV __KILN_FN uint atomicSub(volatile S uint *p, uint v) { return atomic_sub(p, v); }    \
__KILN_OV __KILN_FN int atomicExch(volatile S int *p, int v) { return atomic_xchg(p, v); }     \
__KILN_OV __KILN_FN uint atomicExch(volatile S uint *p, uint v) { return atomic_xchg(p, v); }  \
__KILN_OV __KILN_FN float atomicExch(volatile S float *p, float v) { return atomic_xchg(p, v); } \
__KILN_OV __KILN_FN int atomicMin(volatile S int *p, int v) { return atomic_min(p, v); }       \
__KILN_OV __KILN_FN uint atomicMin(volatile S uint *p, uint v) { return atomic_min(p, v); }    \
__KILN_OV __KILN_FN int atomicMax(volatile S int *p, int v) { return atomic_max(p, v); }       \
__KILN_OV __KILN_FN uint atomicMax(volatile S uint *p, uint v) { return atomic_max(p, v); }    \
__KILN_OV __KILN_FN int atomicAnd(volatile S int *p, int v) { return atomic_and(p, v); }       \
__KILN_OV __KILN_FN uint atomicAnd(volatile S uint *p, uint v) { return atomic_and(p, v); }    \
__KILN_OV __KILN_FN int atomicOr(volatile S int *p, int v) { return atomic_or(p, v); }         \
__KILN_OV __KILN_FN uint atomicOr(volatile S uint *p, uint v) { return atomic_or(p, v); }      \
__KILN_OV __KILN_FN int atomicXor(volatile S int *p, int v) { return atomic_xor(p, v); }       \
__KILN_OV __KILN_FN uint atomicXor(volatile S uint *p, uint v) { return atomic_xor(p, v); }    \
__KILN_OV __KILN_FN int atomicCAS(volatile S int *p, int c, int v) { return atomic_cmpxchg(p, c, v); } \
__KILN_OV __KILN_FN uint atomicCAS(volatile S uint *p, uint c, uint v) { return atomic_cmpxchg(p, c, v); } \
/* CUDA's atomicInc/Dec wrap at a bound, unlike OpenCL's atomic_inc */                  \
__KILN_OV __KILN_FN uint atomicInc(volatile S uint *p, uint bound)                      \
{                                                                                        \
    uint old = *p, seen;                                                                 \
    do {                                                                                 \
        seen = old;                                                                      \
        old = atomic_cmpxchg(p, seen, seen >= bound ? 0u : seen + 1u);                   \
    } while (old != seen);                                                               \
    return old;                                                                          \
}                                                                                        \
__KILN_OV __KILN_FN uint atomicDec(volatile S uint *p, uint bound)                      \
{                                                                                        \
    uint old = *p, seen;                                                                 \
    do {                                                                                 \
        seen = old;                                                                      \
        old = atomic_cmpxchg(p, seen, (seen == 0u || seen > bound) ? bound : seen - 1u); \
    } while (old != seen);                                                               \
    return old;                                                                          \
}                                                                                        \
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile S int *p, int v) { atomic_add(p, v); } \
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile S uint *p, uint v) { atomic_add(p, v); }

#define __KILN_ATOMIC64(S)                                                               \
__KILN_OV __KILN_FN ulong atomicAdd(volatile S ulong *p, ulong v) { return atom_add(p, v); }    \
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile S ulong *p, ulong v) { atom_add(p, v); } \
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile S long *p, long v) { atom_add(p, v); } \
__KILN_OV __KILN_FN long atomicAdd(volatile S long *p, long v) { return atom_add(p, v); }       \
__KILN_OV __KILN_FN ulong atomicExch(volatile S ulong *p, ulong v) { return atom_xchg(p, v); }  \
__KILN_OV __KILN_FN long atomicExch(volatile S long *p, long v) { return atom_xchg(p, v); }     \
__KILN_OV __KILN_FN ulong atomicCAS(volatile S ulong *p, ulong c, ulong v) { return atom_cmpxchg(p, c, v); } \
__KILN_OV __KILN_FN long atomicCAS(volatile S long *p, long c, long v) { return atom_cmpxchg(p, c, v); } \
__KILN_OV __KILN_FN ulong atomicMin(volatile S ulong *p, ulong v) { return atom_min(p, v); }    \
__KILN_OV __KILN_FN long atomicMin(volatile S long *p, long v) { return atom_min(p, v); }       \
__KILN_OV __KILN_FN ulong atomicMax(volatile S ulong *p, ulong v) { return atom_max(p, v); }    \
__KILN_OV __KILN_FN long atomicMax(volatile S long *p, long v) { return atom_max(p, v); }       \
__KILN_OV __KILN_FN ulong atomicAnd(volatile S ulong *p, ulong v) { return atom_and(p, v); }    \
__KILN_OV __KILN_FN ulong atomicOr(volatile S ulong *p, ulong v) { return atom_or(p, v); }      \
__KILN_OV __KILN_FN ulong atomicXor(volatile S ulong *p, ulong v) { return atom_xor(p, v); }

__KILN_ATOMIC32(__global)
__KILN_ATOMIC32(__local)
__KILN_ATOMIC64(__global)
__KILN_ATOMIC64(__local)

/* Float and double atomicAdd: the device's own instruction where the
 * translation knows it (cuda_to_opencl_float_atomics, from the target the
 * core describes: __KILN_FLOAT_ATOMICS_PTX on
 * NVIDIA's OpenCL, whose compiler takes the PTX that CUDA's atomicAdd is
 * made of, for global and shared memory;
 * __KILN_FLOAT_ATOMICS_EXT where cl_ext_float_atomics gives OpenCL C 3.0
 * atomic_fetch_add), else a compare-and-swap loop.  The _discard forms
 * are for calls whose old value nothing reads (CUDA's red.add). */
#define __KILN_FLOAT_ADD_CAS(S)                                                          \
__KILN_OV __KILN_FN float atomicAdd(volatile S float *p, float v)                       \
{                                                                                        \
    volatile S uint *q = (volatile S uint *)p;                                           \
    uint old = *q, seen;                                                                 \
    do {                                                                                 \
        seen = old;                                                                      \
        old = atomic_cmpxchg(q, seen, as_uint(as_float(seen) + v));                      \
    } while (old != seen);                                                               \
    return as_float(old);                                                                \
}                                                                                        \
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile S float *p, float v) { (void)atomicAdd(p, v); }
#define __KILN_DOUBLE_ADD_CAS(S)                                                         \
__KILN_OV __KILN_FN double atomicAdd(volatile S double *p, double v)                    \
{                                                                                        \
    volatile S ulong *q = (volatile S ulong *)p;                                         \
    ulong old = *q, seen;                                                                \
    do {                                                                                 \
        seen = old;                                                                      \
        old = atom_cmpxchg(q, seen, as_ulong(as_double(seen) + v));                      \
    } while (old != seen);                                                               \
    return as_double(old);                                                               \
}                                                                                        \
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile S double *p, double v) { (void)atomicAdd(p, v); }

#if defined(__KILN_FLOAT_ATOMICS_PTX)
__KILN_OV __KILN_FN float atomicAdd(volatile __global float *p, float v)
{
    float old;
    asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=f"(old) : "l"(p), "f"(v) : "memory");
    return old;
}
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile __global float *p, float v)
{
    asm volatile("red.global.add.f32 [%0], %1;" : : "l"(p), "f"(v) : "memory");
}
#elif defined(__KILN_FLOAT_ATOMICS_EXT) && defined(__opencl_c_ext_fp32_global_atomic_add)
__KILN_OV __KILN_FN float atomicAdd(volatile __global float *p, float v)
{
    return atomic_fetch_add_explicit((volatile __global atomic_float *)p, v,
                                     memory_order_relaxed, memory_scope_device);
}
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile __global float *p, float v) { (void)atomicAdd(p, v); }
#else
__KILN_FLOAT_ADD_CAS(__global)
#endif
#if defined(__KILN_FLOAT_ATOMICS_PTX)
__KILN_OV __KILN_FN float atomicAdd(volatile __local float *p, float v)
{
    float old;
    asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=f"(old) : "l"(p), "f"(v) : "memory");
    return old;
}
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile __local float *p, float v)
{
    asm volatile("red.shared.add.f32 [%0], %1;" : : "l"(p), "f"(v) : "memory");
}
#elif defined(__KILN_FLOAT_ATOMICS_EXT) && defined(__opencl_c_ext_fp32_local_atomic_add)
__KILN_OV __KILN_FN float atomicAdd(volatile __local float *p, float v)
{
    return atomic_fetch_add_explicit((volatile __local atomic_float *)p, v,
                                     memory_order_relaxed, memory_scope_work_group);
}
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile __local float *p, float v) { (void)atomicAdd(p, v); }
#else
__KILN_FLOAT_ADD_CAS(__local)
#endif
__KILN_OV __KILN_FN float atomicSub(volatile __global float *p, float v) { return atomicAdd(p, -v); }
__KILN_OV __KILN_FN float atomicSub(volatile __local float *p, float v) { return atomicAdd(p, -v); }

#ifdef cl_khr_fp64
#if defined(__KILN_FLOAT_ATOMICS_PTX)
__KILN_OV __KILN_FN double atomicAdd(volatile __global double *p, double v)
{
    double old;
    asm volatile("atom.global.add.f64 %0, [%1], %2;" : "=d"(old) : "l"(p), "d"(v) : "memory");
    return old;
}
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile __global double *p, double v)
{
    asm volatile("red.global.add.f64 [%0], %1;" : : "l"(p), "d"(v) : "memory");
}
#elif defined(__KILN_FLOAT_ATOMICS_EXT) && defined(__opencl_c_ext_fp64_global_atomic_add)
__KILN_OV __KILN_FN double atomicAdd(volatile __global double *p, double v)
{
    return atomic_fetch_add_explicit((volatile __global atomic_double *)p, v,
                                     memory_order_relaxed, memory_scope_device);
}
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile __global double *p, double v) { (void)atomicAdd(p, v); }
#else
__KILN_DOUBLE_ADD_CAS(__global)
#endif
#if defined(__KILN_FLOAT_ATOMICS_PTX)
__KILN_OV __KILN_FN double atomicAdd(volatile __local double *p, double v)
{
    double old;
    asm volatile("atom.shared.add.f64 %0, [%1], %2;" : "=d"(old) : "l"(p), "d"(v) : "memory");
    return old;
}
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile __local double *p, double v)
{
    asm volatile("red.shared.add.f64 [%0], %1;" : : "l"(p), "d"(v) : "memory");
}
#elif defined(__KILN_FLOAT_ATOMICS_EXT) && defined(__opencl_c_ext_fp64_local_atomic_add)
__KILN_OV __KILN_FN double atomicAdd(volatile __local double *p, double v)
{
    return atomic_fetch_add_explicit((volatile __local atomic_double *)p, v,
                                     memory_order_relaxed, memory_scope_work_group);
}
__KILN_OV __KILN_FN void __kiln_atomicAdd_discard(volatile __local double *p, double v) { (void)atomicAdd(p, v); }
#else
__KILN_DOUBLE_ADD_CAS(__local)
#endif
#define __KILN_ATOMIC_DOUBLE(S)                                                          \
__KILN_OV __KILN_FN double atomicExch(volatile S double *p, double v)                   \
{                                                                                        \
    return as_double(atom_xchg((volatile S ulong *)p, as_ulong(v)));                     \
}
__KILN_ATOMIC_DOUBLE(__global)
__KILN_ATOMIC_DOUBLE(__local)
#endif

/* A block's scope is narrower than the device's and the system's wider
 * only toward the host and peer devices, which a kernel here does not
 * share memory with while it runs: both are the device's atomics. */
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor
/* A kernel's parameters are constant in OpenCL C already. */
#define __grid_constant__

