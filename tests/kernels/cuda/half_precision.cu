// cuda_fp16.h and cuda_bf16.h as real code uses them, written for these
// tests: the intrinsics of both headers on every kind of value (ties,
// overflow to infinity, subnormals, NaN), C++'s operators and conversions
// on __half, and llm.c's style for bfloat16 (a floatX typedef, casts to
// float and back, a packed 128-bit type of floatX, __nv_bfloat162 pairs).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// One thread per element; 16 __half results, 14 comparisons in a mask.
__global__ void half_ops(const __half *a, const __half *b, const __half *c,
                         const float *x, __half *out, int *flags, float *widened,
                         int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half ha = a[i], hb = b[i], hc = c[i];
    __half *o = out + 16 * i;
    o[0] = ha + hb;
    o[1] = __hsub(ha, hb);
    o[2] = ha * hb;
    o[3] = __hdiv(ha, hb);
    o[4] = __hfma(ha, hb, hc);
    o[5] = __hmax(ha, hb);
    o[6] = __hmin(ha, hb);
    o[7] = -ha;
    o[8] = __habs(hb);
    o[9] = __float2half(x[i]);
    __half acc = ha;
    acc += hb;
    acc *= hc;
    o[10] = acc;
    o[11] = __float2half_rn(x[i] * 3.0f);
    __half2 p = __halves2half2(ha, hb);
    __half2 q = __floats2half2_rn(__half2float(hc), x[i]);
    __half2 r = __hfma2(p, q, __half2half2(hc));
    o[12] = __low2half(r);
    o[13] = __high2half(r);
    __half2 s = __hadd2(p, q) * p;
    o[14] = s.x;
    o[15] = __high2half(__hmul2(p, __lowhigh2highlow(q)));
    int m = 0;
    m |= (ha == hb) << 0;
    m |= (ha != hb) << 1;
    m |= (ha < hb) << 2;
    m |= (ha <= hb) << 3;
    m |= (ha > hb) << 4;
    m |= (ha >= hb) << 5;
    m |= __hne(ha, hb) << 6;
    m |= __hequ(ha, hb) << 7;
    m |= __hltu(ha, hb) << 8;
    m |= __hgeu(ha, hb) << 9;
    m |= __hisnan(ha) << 10;
    m |= (__hisinf(ha) + 1) << 11;
    m |= __hbgt2(p, q) << 13;
    flags[2 * i] = m;
    flags[2 * i + 1] = __half2int_rz(ha);
    float2 w = __half22float2(p);
    float f = hb;  // the conversion to float
    widened[3 * i] = w.x;
    widened[3 * i + 1] = f;
    widened[3 * i + 2] = __high2float(q) + __low2float(p);
}

// llm.c's way: a floatX typedef, (floatX) and (float) casts, a packed type,
// streaming loads (__ldcs).
typedef __nv_bfloat16 floatX;

template <class ElementType>
struct alignas(16) Packed128 {
    static constexpr const int size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
    __device__ ElementType &operator[](int index) { return payload[index]; }
    __device__ const ElementType &operator[](int index) const { return payload[index]; }
};
typedef Packed128<floatX> x128;

__device__ x128 load128(const floatX *address)
{
    x128 v;
    for (int k = 0; k < x128::size; ++k)
        v[k] = address[k];
    return v;
}

// residual_forward and a GELU-free scale as llm.c writes them, then the
// intrinsics: 12 floatX results per element.
__global__ void bf16_ops(floatX *out, const floatX *inp1, const floatX *inp2,
                         const floatX *inp3, const float *x, int *flags, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n)
        return;
    floatX *o = out + 12 * idx;
    o[0] = (floatX)((float)inp1[idx] + (float)inp2[idx]);
    o[1] = __hadd(__ldcs(inp1 + idx), __ldg(&inp2[idx]));
    o[2] = inp1[idx] * inp2[idx];
    o[3] = __hfma(inp1[idx], inp2[idx], inp3[idx]);
    o[4] = __float2bfloat16(x[idx]);
    o[5] = __hdiv(inp1[idx], inp2[idx]);
    o[6] = __hmax(inp1[idx], inp3[idx]);
    __nv_bfloat162 p = __floats2bfloat162_rn((float)inp1[idx], x[idx]);
    __nv_bfloat162 q = __halves2bfloat162(inp2[idx], inp3[idx]);
    __nv_bfloat162 r = __hfma2(p, q, q);
    o[7] = __low2bfloat16(r);
    o[8] = __high2bfloat16(r);
    o[9] = (floatX)(__low2float(p) * __high2float(q));
    floatX acc = inp1[idx];
    acc -= inp3[idx];
    o[10] = acc;
    o[11] = __int2bfloat16_rn(flags[idx]);
    flags[idx] = (inp1[idx] < inp2[idx]) | (__hisnan(inp3[idx]) << 1) |
                 ((inp2[idx] == inp3[idx]) << 2) | (__hgt(inp1[idx], inp3[idx]) << 3);
}

// Packed 128-bit loads of floatX summed in float, as llm.c's kernels do.
__global__ void bf16_packed_sum(float *out, const floatX *inp, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx * x128::size >= n)
        return;
    x128 v = load128(inp + idx * x128::size);
    float sum = 0.0f;
    for (int k = 0; k < x128::size; ++k)
        sum += (float)v[k];
    out[idx] = sum;
}
