/*
 * What the C++ phase knows of CUDA's device library: declarations (no
 * bodies) read before the program, so that calls of CUDA's functions are
 * typed and resolved among their overloads as NVRTC would, and the
 * program may overload them (helper_math.h's fminf(float2, float2)).
 * Calls that resolve here keep their names: the OpenCL C prelude
 * (prelude_opencl.cl) implements them.  A name missing here is not an
 * error: its calls stay as written, with a type this phase does not know.
 */
#include "cxx_internal.h"

#include <stdio.h>
#include <string.h>

/* Math functions of one float argument: f and double forms, and C++'s
 * float overload of the double name. */
#define CX_UNARY(n)                                                          \
    "float " #n "f(float);double " #n "(double);float " #n "(float);"
#define CX_BINARY(n)                                                         \
    "float " #n "f(float,float);double " #n "(double,double);"                \
    "float " #n "(float,float);"

static const char cx_builtin_text[] =
    "typedef unsigned long size_t; typedef long ptrdiff_t;"
    "typedef signed char int8_t; typedef unsigned char uint8_t;"
    "typedef short int16_t; typedef unsigned short uint16_t;"
    "typedef int int32_t; typedef unsigned int uint32_t;"
    "typedef long long int64_t; typedef unsigned long long uint64_t;"
    "typedef long intptr_t; typedef unsigned long uintptr_t;"
    "typedef unsigned int uint; typedef unsigned short ushort;"
    "typedef unsigned char uchar; typedef unsigned long ulong;"
    "typedef long long clock_t;"
    "extern __device__ const uint3 threadIdx; extern __device__ const uint3 blockIdx;"
    "extern __device__ const dim3 blockDim; extern __device__ const dim3 gridDim;"
    "extern __device__ const int warpSize;"
    "extern const float FLT_MAX, FLT_MIN, FLT_EPSILON, INFINITY, NAN, HUGE_VALF,"
    "  CUDART_INF_F, CUDART_NAN_F, MAXFLOAT;"
    "extern const double DBL_MAX, DBL_MIN, DBL_EPSILON, HUGE_VAL, M_PI, M_E,"
    "  M_SQRT2, M_LN2, M_LOG2E, M_PI_2, M_PI_4, M_1_PI, M_2_PI, CUDART_INF,"
    "  CUDART_NAN, CUDART_PI;"
    "extern const float CUDART_PI_F, M_PI_F, M_E_F;"
    "extern const int INT_MAX, INT_MIN, SHRT_MAX, SHRT_MIN, CHAR_BIT;"
    "extern const unsigned int UINT_MAX; extern const long LONG_MAX, LONG_MIN;"
    "extern const unsigned long ULONG_MAX;"
    "extern const long long LLONG_MAX, LLONG_MIN; extern const unsigned long long ULLONG_MAX;"
    "void __syncthreads(void); void __threadfence(void); void __threadfence_block(void);"
    "void __threadfence_system(void);"
    "void __syncwarp(unsigned int); void __syncwarp(void);"
    "template<typename T> T __shfl_sync(unsigned int,T,int,int=32);"
    "template<typename T> T __shfl_up_sync(unsigned int,T,unsigned int,int=32);"
    "template<typename T> T __shfl_down_sync(unsigned int,T,unsigned int,int=32);"
    "template<typename T> T __shfl_xor_sync(unsigned int,T,int,int=32);"
    "unsigned int __ballot_sync(unsigned int,int); int __any_sync(unsigned int,int);"
    "int __all_sync(unsigned int,int); unsigned int __activemask(void);"
    "unsigned int __reduce_add_sync(unsigned int,unsigned int);"
    "int __reduce_add_sync(unsigned int,int);"
    "unsigned int __reduce_min_sync(unsigned int,unsigned int);"
    "int __reduce_min_sync(unsigned int,int);"
    "unsigned int __reduce_max_sync(unsigned int,unsigned int);"
    "int __reduce_max_sync(unsigned int,int);"
    "unsigned int __reduce_and_sync(unsigned int,unsigned int);"
    "unsigned int __reduce_or_sync(unsigned int,unsigned int);"
    "unsigned int __reduce_xor_sync(unsigned int,unsigned int);"
    "int printf(const char *, ...);"
    CX_UNARY(sqrt) CX_UNARY(rsqrt) CX_UNARY(cbrt) CX_UNARY(rcbrt) CX_UNARY(exp)
    CX_UNARY(exp2) CX_UNARY(exp10) CX_UNARY(expm1) CX_UNARY(log) CX_UNARY(log2)
    CX_UNARY(log10) CX_UNARY(log1p) CX_UNARY(logb) CX_UNARY(sin) CX_UNARY(cos)
    CX_UNARY(tan) CX_UNARY(asin) CX_UNARY(acos) CX_UNARY(atan) CX_UNARY(sinh)
    CX_UNARY(cosh) CX_UNARY(tanh) CX_UNARY(asinh) CX_UNARY(acosh) CX_UNARY(atanh)
    CX_UNARY(sinpi) CX_UNARY(cospi) CX_UNARY(erf) CX_UNARY(erfc) CX_UNARY(erfinv)
    CX_UNARY(erfcinv) CX_UNARY(erfcx) CX_UNARY(lgamma) CX_UNARY(tgamma)
    CX_UNARY(floor) CX_UNARY(ceil) CX_UNARY(round) CX_UNARY(rint) CX_UNARY(trunc)
    CX_UNARY(nearbyint) CX_UNARY(fabs) CX_UNARY(normcdf) CX_UNARY(normcdfinv)
    CX_UNARY(j0) CX_UNARY(j1) CX_UNARY(y0) CX_UNARY(y1)
    CX_BINARY(fmod) CX_BINARY(remainder) CX_BINARY(pow) CX_BINARY(atan2)
    CX_BINARY(hypot) CX_BINARY(rhypot) CX_BINARY(fmin) CX_BINARY(fmax)
    CX_BINARY(fdim) CX_BINARY(copysign) CX_BINARY(nextafter)
    "float powf(float,int); double pow(double,int); float pow(float,int);"
    "float fmaf(float,float,float); double fma(double,double,double);"
    "float fma(float,float,float);"
    "float norm3df(float,float,float); double norm3d(double,double,double);"
    "float rnorm3df(float,float,float); double rnorm3d(double,double,double);"
    "float norm4df(float,float,float,float);"
    "float ldexpf(float,int); double ldexp(double,int); float ldexp(float,int);"
    "float scalbnf(float,int); double scalbn(double,int);"
    "float frexpf(float,int*); double frexp(double,int*);"
    "float modff(float,float*); double modf(double,double*);"
    "int ilogbf(float); int ilogb(double);"
    "void sincosf(float,float*,float*); void sincos(double,double*,double*);"
    "void sincospif(float,float*,float*); void sincospi(double,double*,double*);"
    "void __sincosf(float,float*,float*);"
    "bool isnan(float); bool isnan(double); bool isinf(float); bool isinf(double);"
    "bool isfinite(float); bool isfinite(double); bool signbit(float);"
    "bool signbit(double); int __isnanf(float); int __isinff(float);"
    "int __finitef(float); int __signbitf(float);"
    "long lroundf(float); long lround(double); long long llroundf(float);"
    "long long llround(double); long lrintf(float); long long llrintf(float);"
    "int abs(int); long labs(long); long long llabs(long long); long long abs(long long);"
    "long abs(long); float abs(float); double abs(double);"
    "int min(int,int); unsigned int min(unsigned int,unsigned int);"
    "unsigned int min(int,unsigned int); unsigned int min(unsigned int,int);"
    "long long min(long long,long long);"
    "unsigned long long min(unsigned long long,unsigned long long);"
    "unsigned long long min(long long,unsigned long long);"
    "unsigned long long min(unsigned long long,long long);"
    "long min(long,long); unsigned long min(unsigned long,unsigned long);"
    "float min(float,float); double min(double,double);"
    "double min(float,double); double min(double,float);"
    "int max(int,int); unsigned int max(unsigned int,unsigned int);"
    "unsigned int max(int,unsigned int); unsigned int max(unsigned int,int);"
    "long long max(long long,long long);"
    "unsigned long long max(unsigned long long,unsigned long long);"
    "unsigned long long max(long long,unsigned long long);"
    "unsigned long long max(unsigned long long,long long);"
    "long max(long,long); unsigned long max(unsigned long,unsigned long);"
    "float max(float,float); double max(double,double);"
    "double max(float,double); double max(double,float);"
    "int umin(unsigned int,unsigned int); int umax(unsigned int,unsigned int);"
    "long long llmin(long long,long long); long long llmax(long long,long long);"
    "unsigned long long ullmin(unsigned long long,unsigned long long);"
    "unsigned long long ullmax(unsigned long long,unsigned long long);"
    "float __fdividef(float,float); float fdividef(float,float);"
    "float __expf(float); float __exp10f(float); float __logf(float);"
    "float __log2f(float); float __log10f(float); float __sinf(float);"
    "float __cosf(float); float __tanf(float); float __powf(float,float);"
    "float __saturatef(float); float __frcp_rn(float); float __fsqrt_rn(float);"
    "float __frsqrt_rn(float);"
    "float __fadd_rn(float,float); float __fadd_rz(float,float);"
    "float __fadd_ru(float,float); float __fadd_rd(float,float);"
    "float __fsub_rn(float,float); float __fsub_rz(float,float);"
    "float __fmul_rn(float,float); float __fmul_rz(float,float);"
    "float __fmul_ru(float,float); float __fmul_rd(float,float);"
    "float __fdiv_rn(float,float); float __fdiv_rz(float,float);"
    "float __fmaf_rn(float,float,float); float __fmaf_rz(float,float,float);"
    "float __fmaf_ru(float,float,float); float __fmaf_rd(float,float,float);"
    "double __dadd_rn(double,double); double __dmul_rn(double,double);"
    "double __dsub_rn(double,double); double __ddiv_rn(double,double);"
    "double __fma_rn(double,double,double); double __drcp_rn(double);"
    "double __dsqrt_rn(double);"
    "int __float2int_rn(float); int __float2int_rz(float); int __float2int_ru(float);"
    "int __float2int_rd(float); unsigned int __float2uint_rn(float);"
    "unsigned int __float2uint_rz(float); unsigned int __float2uint_ru(float);"
    "unsigned int __float2uint_rd(float); long long __float2ll_rn(float);"
    "long long __float2ll_rz(float); long long __float2ll_ru(float);"
    "long long __float2ll_rd(float); unsigned long long __float2ull_rn(float);"
    "unsigned long long __float2ull_rz(float);"
    "int __double2int_rn(double); int __double2int_rz(double);"
    "unsigned int __double2uint_rn(double); unsigned int __double2uint_rz(double);"
    "long long __double2ll_rn(double); long long __double2ll_rz(double);"
    "float __double2float_rn(double); float __double2float_rz(double);"
    "float __int2float_rn(int); float __int2float_rz(int);"
    "float __uint2float_rn(unsigned int); float __uint2float_rz(unsigned int);"
    "float __ll2float_rn(long long); double __int2double_rn(int);"
    "double __uint2double_rn(unsigned int); double __ll2double_rn(long long);"
    "int __float_as_int(float); float __int_as_float(int);"
    "unsigned int __float_as_uint(float); float __uint_as_float(unsigned int);"
    "long long __double_as_longlong(double); double __longlong_as_double(long long);"
    "int __double2hiint(double); int __double2loint(double);"
    "double __hiloint2double(int,int);"
    "int __popc(unsigned int); int __popcll(unsigned long long);"
    "int __clz(int); int __clzll(long long); int __ffs(int); int __ffsll(long long);"
    "unsigned int __brev(unsigned int); unsigned long long __brevll(unsigned long long);"
    "int __mul24(int,int); unsigned int __umul24(unsigned int,unsigned int);"
    "int __mulhi(int,int); unsigned int __umulhi(unsigned int,unsigned int);"
    "long long __mul64hi(long long,long long);"
    "unsigned long long __umul64hi(unsigned long long,unsigned long long);"
    "unsigned int __sad(int,int,unsigned int);"
    "unsigned int __usad(unsigned int,unsigned int,unsigned int);"
    "unsigned int __byte_perm(unsigned int,unsigned int,unsigned int);"
    "unsigned int __funnelshift_l(unsigned int,unsigned int,unsigned int);"
    "unsigned int __funnelshift_r(unsigned int,unsigned int,unsigned int);"
    "unsigned int __funnelshift_lc(unsigned int,unsigned int,unsigned int);"
    "unsigned int __funnelshift_rc(unsigned int,unsigned int,unsigned int);"
    "int __hadd(int,int); int __rhadd(int,int); unsigned int __uhadd(unsigned int,unsigned int);"
    "unsigned int __urhadd(unsigned int,unsigned int);"
    "int atomicAdd(int*,int); unsigned int atomicAdd(unsigned int*,unsigned int);"
    "unsigned long long atomicAdd(unsigned long long*,unsigned long long);"
    "float atomicAdd(float*,float); double atomicAdd(double*,double);"
    "int atomicSub(int*,int); unsigned int atomicSub(unsigned int*,unsigned int);"
    "int atomicExch(int*,int); unsigned int atomicExch(unsigned int*,unsigned int);"
    "unsigned long long atomicExch(unsigned long long*,unsigned long long);"
    "float atomicExch(float*,float);"
    "int atomicMin(int*,int); unsigned int atomicMin(unsigned int*,unsigned int);"
    "long long atomicMin(long long*,long long);"
    "unsigned long long atomicMin(unsigned long long*,unsigned long long);"
    "int atomicMax(int*,int); unsigned int atomicMax(unsigned int*,unsigned int);"
    "long long atomicMax(long long*,long long);"
    "unsigned long long atomicMax(unsigned long long*,unsigned long long);"
    "unsigned int atomicInc(unsigned int*,unsigned int);"
    "unsigned int atomicDec(unsigned int*,unsigned int);"
    "int atomicCAS(int*,int,int); unsigned int atomicCAS(unsigned int*,unsigned int,unsigned int);"
    "unsigned long long atomicCAS(unsigned long long*,unsigned long long,unsigned long long);"
    "unsigned short atomicCAS(unsigned short*,unsigned short,unsigned short);"
    "int atomicAnd(int*,int); unsigned int atomicAnd(unsigned int*,unsigned int);"
    "unsigned long long atomicAnd(unsigned long long*,unsigned long long);"
    "int atomicOr(int*,int); unsigned int atomicOr(unsigned int*,unsigned int);"
    "unsigned long long atomicOr(unsigned long long*,unsigned long long);"
    "int atomicXor(int*,int); unsigned int atomicXor(unsigned int*,unsigned int);"
    "unsigned long long atomicXor(unsigned long long*,unsigned long long);"
    "template<typename T> __device__ T __ldg(const T*);"
    "template<typename T> __device__ T __ldcg(const T*);"
    "template<typename T> __device__ T __ldca(const T*);"
    "template<typename T> __device__ T __ldcs(const T*);"
    "template<typename T> __device__ T __ldlu(const T*);"
    "template<typename T> __device__ T __ldcv(const T*);"
    "template<typename T> __device__ void __stwb(T*,T);"
    "template<typename T> __device__ void __stcg(T*,T);"
    "template<typename T> __device__ void __stcs(T*,T);"
    "template<typename T> __device__ void __stwt(T*,T);"
    "long long clock64(void); clock_t clock(void);"
    "namespace std { using ::sqrt; using ::rsqrt; using ::cbrt; using ::exp;"
    " using ::exp2; using ::expm1; using ::log; using ::log2; using ::log10;"
    " using ::log1p; using ::sin; using ::cos; using ::tan; using ::asin;"
    " using ::acos; using ::atan; using ::sinh; using ::cosh; using ::tanh;"
    " using ::erf; using ::erfc; using ::lgamma; using ::tgamma; using ::floor;"
    " using ::ceil; using ::round; using ::rint; using ::trunc; using ::fabs;"
    " using ::abs; using ::fmod; using ::pow; using ::atan2; using ::hypot;"
    " using ::fmin; using ::fmax; using ::fma; using ::copysign; using ::ldexp;"
    " using ::isnan; using ::isinf; using ::isfinite; using ::signbit;"
    " using ::min; using ::max; using ::size_t; using ::ptrdiff_t;"
    " using ::int8_t; using ::uint8_t; using ::int16_t; using ::uint16_t;"
    " using ::int32_t; using ::uint32_t; using ::int64_t; using ::uint64_t; }";

/* The vector types and their make_ functions, for every element. */
static void cx_vector_text(clc_buffer *b)
{
    static const struct {
        const char *prefix, *element;
    } elements[] = {
        {"char", "signed char"}, {"uchar", "unsigned char"},
        {"short", "short"}, {"ushort", "unsigned short"}, {"int", "int"},
        {"uint", "unsigned int"}, {"long", "long"}, {"ulong", "unsigned long"},
        {"longlong", "long long"}, {"ulonglong", "unsigned long long"},
        {"float", "float"}, {"double", "double"},
    };
    static const char *const names = "xyzw";
    for (size_t e = 0; e < sizeof elements / sizeof elements[0]; ++e)
        for (int w = 1; w <= 4; ++w) {
            clc_buffer_printf(b, "%s%d make_%s%d(", elements[e].prefix, w,
                              elements[e].prefix, w);
            for (int k = 0; k < w; ++k)
                clc_buffer_printf(b, "%s%s %c", k ? "," : "", elements[e].element,
                                  names[k]);
            clc_buffer_puts(b, ");");
        }
}

const char *cx_builtins_source(cx_state *st)
{
    clc_buffer b;
    clc_buffer_init(&b, st->arena);
    clc_buffer_puts(&b, cx_builtin_text);
    cx_vector_text(&b);
    return clc_buffer_text(&b);
}

/* cooperative_groups.h within one block, written in the C++ this phase
 * lowers: a block's group, its barrier and its threads' ranks.  Grid-wide
 * groups and tiles are not here: their names stay as written and the CUDA
 * C -> OpenCL C pass refuses them by name. */
static const char cx_cooperative_groups_text[] =
    "namespace cooperative_groups {"
    "struct thread_block {"
    "  char unused_;"
    "  __device__ void sync() const { __syncthreads(); }"
    "  __device__ unsigned int thread_rank() const"
    "  { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }"
    "  __device__ unsigned int size() const"
    "  { return blockDim.x * blockDim.y * blockDim.z; }"
    "  __device__ unsigned int num_threads() const"
    "  { return blockDim.x * blockDim.y * blockDim.z; }"
    "  __device__ dim3 group_index() const { return blockIdx; }"
    "  __device__ dim3 thread_index() const { return threadIdx; }"
    "  __device__ dim3 group_dim() const { return blockDim; }"
    "  __device__ dim3 dim_threads() const { return blockDim; }"
    "};"
    "__device__ thread_block this_thread_block() { thread_block b = {0}; return b; }"
    "__device__ void sync(const thread_block &g) { __syncthreads(); }"
    /* a block's tiles of Size threads (a power of two up to 32): the
     * warp primitives with Size as their width, votes cut to the tile's
     * lanes (translate/cuda_barriers_warp.c emulates them) */
    "template <unsigned int Size> struct thread_block_tile {"
    "  char unused_;"
    "  __device__ unsigned int block_rank_() const"
    "  { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }"
    "  __device__ void sync() const { __syncwarp(); }"
    "  __device__ unsigned int thread_rank() const { return block_rank_() % Size; }"
    "  __device__ constexpr unsigned int size() const { return Size; }"
    "  __device__ constexpr unsigned int num_threads() const { return Size; }"
    "  __device__ unsigned int meta_group_rank() const { return block_rank_() / Size; }"
    "  __device__ unsigned int meta_group_size() const"
    "  { return (blockDim.x * blockDim.y * blockDim.z + Size - 1) / Size; }"
    "  template <typename T> __device__ T shfl(T v, int source) const"
    "  { return __shfl_sync(0xffffffffu, v, source, Size); }"
    "  template <typename T> __device__ T shfl_up(T v, unsigned int delta) const"
    "  { return __shfl_up_sync(0xffffffffu, v, delta, Size); }"
    "  template <typename T> __device__ T shfl_down(T v, unsigned int delta) const"
    "  { return __shfl_down_sync(0xffffffffu, v, delta, Size); }"
    "  template <typename T> __device__ T shfl_xor(T v, unsigned int mask) const"
    "  { return __shfl_xor_sync(0xffffffffu, v, mask, Size); }"
    "  __device__ unsigned int ballot(int predicate) const {"
    "    unsigned int bits = __ballot_sync(0xffffffffu, predicate);"
    "    return (bits >> (block_rank_() & (32u - Size))) &"
    "           (Size == 32u ? 0xffffffffu : (1u << Size) - 1u); }"
    "  __device__ int any(int predicate) const { return ballot(predicate) != 0u; }"
    "  __device__ int all(int predicate) const {"
    "    unsigned int bits = __ballot_sync(0xffffffffu, !predicate);"
    "    return ((bits >> (block_rank_() & (32u - Size))) &"
    "            (Size == 32u ? 0xffffffffu : (1u << Size) - 1u)) == 0u; }"
    "};"
    "template <unsigned int Size>"
    "__device__ thread_block_tile<Size> tiled_partition(const thread_block &g)"
    "{ thread_block_tile<Size> t = {0}; return t; }"
    "template <unsigned int Size>"
    "__device__ void sync(const thread_block_tile<Size> &g) { g.sync(); }"
    /* thread_group: a block or a tile chosen at run time (tiled_partition
     * with the size as an argument), by its tile's size (0: the block) */
    "struct thread_group {"
    "  unsigned int tile_;"
    "  __device__ thread_group(const thread_block &g) : tile_(0u) {}"
    "  __device__ thread_group(const thread_block_tile<1> &g) : tile_(1u) {}"
    "  __device__ thread_group(const thread_block_tile<2> &g) : tile_(2u) {}"
    "  __device__ thread_group(const thread_block_tile<4> &g) : tile_(4u) {}"
    "  __device__ thread_group(const thread_block_tile<8> &g) : tile_(8u) {}"
    "  __device__ thread_group(const thread_block_tile<16> &g) : tile_(16u) {}"
    "  __device__ thread_group(const thread_block_tile<32> &g) : tile_(32u) {}"
    "  __device__ thread_group(unsigned int tile, int) : tile_(tile) {}"
    "  __device__ unsigned int block_rank_() const"
    "  { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }"
    /* the block's barrier for a tile too: where every thread of the
     * block reaches it (a reduction over the group), it is the tile's
     * and more; where only some do, the barrier phase refuses it */
    "  __device__ void sync() const { __syncthreads(); }"
    "  __device__ unsigned int thread_rank() const"
    "  { return tile_ == 0u ? block_rank_() : block_rank_() % tile_; }"
    "  __device__ unsigned int size() const"
    "  { return tile_ == 0u ? blockDim.x * blockDim.y * blockDim.z : tile_; }"
    "  __device__ unsigned int num_threads() const { return size(); }"
    "};"
    "__device__ thread_group tiled_partition(const thread_group &g, unsigned int n)"
    "{ return thread_group(n, 0); }"
    "__device__ void sync(const thread_group &g) { g.sync(); }"
    /* cooperative_groups/reduce.h: a tile's reduction, CUDA's butterfly
     * (shfl_xor from Size / 2 down, op(own, other)), and its operators */
    "template <typename T> struct plus { char unused_;"
    "  __device__ T operator()(T a, T b) const { return a + b; } };"
    "template <typename T> struct less { char unused_;"
    "  __device__ T operator()(T a, T b) const { return (b < a) ? b : a; } };"
    "template <typename T> struct greater { char unused_;"
    "  __device__ T operator()(T a, T b) const { return (a < b) ? b : a; } };"
    "template <typename T> struct bit_and { char unused_;"
    "  __device__ T operator()(T a, T b) const { return a & b; } };"
    "template <typename T> struct bit_or { char unused_;"
    "  __device__ T operator()(T a, T b) const { return a | b; } };"
    "template <typename T> struct bit_xor { char unused_;"
    "  __device__ T operator()(T a, T b) const { return a ^ b; } };"
    "template <unsigned int Size, typename T, typename Op>"
    "__device__ T reduce(const thread_block_tile<Size> &g, T v, Op op) {"
    "  T out = v;"
    "  for (int mask = (int)(Size >> 1); mask > 0; mask >>= 1)"
    "    out = op(out, g.shfl_xor(out, mask));"
    "  return out; }"
    /* cooperative_groups/scan.h: CUDA's order (shfl_up from 1 up,
     * op(own, lower) where the rank reaches; exclusive: the inclusive
     * result of the rank below, 0 at rank 0, which for integers is also
     * CUDA's inclusive result less the value) */
    "template <unsigned int Size, typename T, typename Op>"
    "__device__ T inclusive_scan(const thread_block_tile<Size> &g, T v, Op op) {"
    "  T out = v;"
    "  for (int mask = 1; mask < (int)Size; mask <<= 1) {"
    "    T lower = g.shfl_up(out, mask);"
    "    if (mask <= (int)g.thread_rank()) out = op(out, lower); }"
    "  return out; }"
    "template <unsigned int Size, typename T>"
    "__device__ T inclusive_scan(const thread_block_tile<Size> &g, T v) {"
    "  T out = v;"
    "  for (int mask = 1; mask < (int)Size; mask <<= 1) {"
    "    T lower = g.shfl_up(out, mask);"
    "    if (mask <= (int)g.thread_rank()) out = out + lower; }"
    "  return out; }"
    "template <unsigned int Size, typename T>"
    "__device__ T exclusive_scan(const thread_block_tile<Size> &g, T v) {"
    "  T out = v;"
    "  for (int mask = 1; mask < (int)Size; mask <<= 1) {"
    "    T lower = g.shfl_up(out, mask);"
    "    if (mask <= (int)g.thread_rank()) out = out + lower; }"
    "  T below = g.shfl_up(out, 1);"
    "  return g.thread_rank() == 0 ? (T)0 : below; }"
    "}";

void cx_refuse_library(cx_state *st, size_t begin, size_t end)
{
    static const struct {
        const char *name, *why;
    } refused[] = {
        {"this_grid", "grid-wide cooperative groups (a cooperative launch's "
                      "grid sync) are not supported: only a block's "
                      "(this_thread_block)"},
        {"grid_group", "grid-wide cooperative groups (a cooperative "
                       "launch's grid sync) are not supported: only a "
                       "block's (this_thread_block)"},
        {"this_multi_grid", "multi-device cooperative groups are not "
                            "supported"},
        {"multi_grid_group", "multi-device cooperative groups are not "
                             "supported"},
        {"coalesced_threads", "cooperative groups' coalesced groups "
                              "(warp-level) are not supported"},
    };
    int32_t ids[sizeof refused / sizeof refused[0]];
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k)
        ids[k] = clc_intern(st->interner, refused[k].name,
                            strlen(refused[k].name));
    for (size_t i = begin; i < end; ++i)
        for (size_t k = 0; cx_ident(st, i) && k < sizeof ids / sizeof ids[0];
             ++k)
            if (st->tokens[i].ident == ids[k])
                cx_refuse(st, i, "cannot translate '%s': %s", refused[k].name,
                          refused[k].why);
}

void cx_refuse_runtime_type(cx_state *st, size_t begin, size_t end)
{
    /* the CUDA runtime's types that only its texture, surface and graph
     * APIs give meaning to: a declaration that names one is refused by
     * it, not reported as an unknown type */
    static const struct {
        const char *name, *why;
    } refused[] = {
        {"cudaTextureObject_t", "textures are not supported"},
        {"texture", "textures are not supported"},
        {"cudaTextureReadMode", "textures are not supported"},
        {"cudaTextureFilterMode", "textures are not supported"},
        {"cudaTextureAddressMode", "textures are not supported"},
        {"cudaTextureDesc", "textures are not supported"},
        {"cudaChannelFormatDesc", "textures are not supported"},
        {"cudaArray", "CUDA arrays (textures' storage) are not supported"},
        {"cudaArray_t", "CUDA arrays (textures' storage) are not supported"},
        {"cudaMipmappedArray_t", "CUDA arrays (textures' storage) are not "
                                 "supported"},
        {"cudaExtent", "the CUDA runtime's 3-D copy types (textures' and "
                       "surfaces' storage) are not supported"},
        {"cudaPitchedPtr", "the CUDA runtime's 3-D copy types (textures' and "
                           "surfaces' storage) are not supported"},
        {"cudaSurfaceObject_t", "surfaces are not supported"},
        {"surface", "surfaces are not supported"},
        {"cudaSurfaceBoundaryMode", "surfaces are not supported"},
        {"cudaGraphConditionalHandle", "CUDA graphs' conditional nodes "
                                       "(cudaGraphSetConditional) are not "
                                       "supported"},
    };
    for (size_t i = begin; i < end && i < st->count; ++i) {
        if (!cx_ident(st, i))
            continue;
        const char *name = cx_spelling(st, i);
        /* std::bool_constant, std::array...: only <cmath>'s functions */
        if (strcmp(name, "std") == 0 && cx_punct(st, i + 1, P_COLON) &&
            cx_punct(st, i + 2, P_COLON) && cx_ident(st, i + 3))
            cx_refuse(st, i, "cannot translate 'std::%s': the C++ standard "
                             "library's types are not supported in device "
                             "code (its math functions are)",
                      cx_spelling(st, i + 3));
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k)
            if (strcmp(name, refused[k].name) == 0)
                cx_refuse(st, i, "cannot translate '%s': %s", name,
                          refused[k].why);
    }
}

const char *cx_library_source(clc_arena *arena, const clc_token *tokens,
                              size_t count, clc_interner *interner,
                              unsigned headers)
{
    int32_t cg = clc_intern(interner, "cooperative_groups", 18);
    int groups = 0, fp16 = 0, bf16 = 0;
    for (size_t i = 0; i + 1 < count && !groups; ++i)
        if (tokens[i].kind == CLC_TOK_IDENT && tokens[i].ident == cg)
            groups = 1;
    cx_half_used(tokens, count, &fp16, &bf16);
    fp16 |= (headers & CLC_CUDA_FP16) != 0; /* half, half2 alone */
    bf16 |= (headers & CLC_CUDA_BF16) != 0;
    if (!groups && !fp16 && !bf16)
        return NULL;
    clc_buffer b;
    clc_buffer_init(&b, arena);
    if (fp16 || bf16)
        cx_half_source(&b, fp16, bf16);
    if (groups)
        clc_buffer_puts(&b, cx_cooperative_groups_text);
    return clc_buffer_text(&b);
}

/* The vector types, as typedefs of the global namespace. */
void cx_declare_vectors(cx_state *st)
{
    static const struct {
        const char *prefix;
        cx_type_kind elem;
    } elements[] = {
        {"char", CXT_SCHAR}, {"uchar", CXT_UCHAR}, {"short", CXT_SHORT},
        {"ushort", CXT_USHORT}, {"int", CXT_INT}, {"uint", CXT_UINT},
        {"long", CXT_LONG}, {"ulong", CXT_ULONG}, {"longlong", CXT_LLONG},
        {"ulonglong", CXT_ULLONG}, {"float", CXT_FLOAT}, {"double", CXT_DOUBLE},
    };
    for (size_t e = 0; e < sizeof elements / sizeof elements[0]; ++e)
        for (unsigned w = 1; w <= 4; ++w) {
            char name[32];
            int n = snprintf(name, sizeof name, "%s%u", elements[e].prefix, w);
            cx_decl *d = cx_decl_new(st, CXD_TYPEDEF,
                                     clc_intern(st->interner, name, (size_t)n), 0);
            d->type = cx_vector(st, elements[e].elem, w);
            d->flags = CXF_BUILTIN;
            cx_declare(st, st->global, d);
        }
    cx_decl *dim3 = cx_decl_new(st, CXD_TYPEDEF,
                                clc_intern(st->interner, "dim3", 4), 0);
    dim3->type = cx_vector(st, CXT_UINT, 3);
    dim3->flags = CXF_BUILTIN;
    cx_declare(st, st->global, dim3);
}
