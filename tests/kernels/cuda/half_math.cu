// cuda_fp16.h's and cuda_bf16.h's math functions, elementwise as
// activation and normalisation kernels write them: each thread reads one
// value (or pair) and writes what each function gives for it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define FUNCTIONS 16

__global__ void half_math(const __half *x, __half *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half v = x[i];
    __half *out = y + FUNCTIONS * i;
    out[0] = hexp(v);
    out[1] = hexp2(v);
    out[2] = hexp10(v);
    out[3] = hlog(v);
    out[4] = hlog2(v);
    out[5] = hlog10(v);
    out[6] = hsqrt(v);
    out[7] = hrsqrt(v);
    out[8] = hrcp(v);
    out[9] = hsin(v);
    out[10] = hcos(v);
    out[11] = htanh(v);
    out[12] = hfloor(v);
    out[13] = hceil(v);
    out[14] = htrunc(v);
    out[15] = hrint(v);
}

__global__ void half2_math(const half2 *x, half2 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    half2 v = x[i];
    half2 *out = y + FUNCTIONS * i;
    out[0] = h2exp(v);
    out[1] = h2exp2(v);
    out[2] = h2exp10(v);
    out[3] = h2log(v);
    out[4] = h2log2(v);
    out[5] = h2log10(v);
    out[6] = h2sqrt(v);
    out[7] = h2rsqrt(v);
    out[8] = h2rcp(v);
    out[9] = h2sin(v);
    out[10] = h2cos(v);
    out[11] = h2tanh(v);
    out[12] = h2floor(v);
    out[13] = h2ceil(v);
    out[14] = h2trunc(v);
    out[15] = h2rint(v);
}

__global__ void bf16_math(const __nv_bfloat16 *x, __nv_bfloat16 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat16 v = x[i];
    __nv_bfloat16 *out = y + FUNCTIONS * i;
    out[0] = hexp(v);
    out[1] = hexp2(v);
    out[2] = hexp10(v);
    out[3] = hlog(v);
    out[4] = hlog2(v);
    out[5] = hlog10(v);
    out[6] = hsqrt(v);
    out[7] = hrsqrt(v);
    out[8] = hrcp(v);
    out[9] = hsin(v);
    out[10] = hcos(v);
    out[11] = htanh(v);
    out[12] = hfloor(v);
    out[13] = hceil(v);
    out[14] = htrunc(v);
    out[15] = hrint(v);
}

__global__ void bf162_math(const __nv_bfloat162 *x, __nv_bfloat162 *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat162 v = x[i];
    __nv_bfloat162 *out = y + FUNCTIONS * i;
    out[0] = h2exp(v);
    out[1] = h2exp2(v);
    out[2] = h2exp10(v);
    out[3] = h2log(v);
    out[4] = h2log2(v);
    out[5] = h2log10(v);
    out[6] = h2sqrt(v);
    out[7] = h2rsqrt(v);
    out[8] = h2rcp(v);
    out[9] = h2sin(v);
    out[10] = h2cos(v);
    out[11] = h2tanh(v);
    out[12] = h2floor(v);
    out[13] = h2ceil(v);
    out[14] = h2trunc(v);
    out[15] = h2rint(v);
}
