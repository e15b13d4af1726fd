/* CUDA C twin of tests/kernels/corpus/vload_vstore.cl (bench_compile):
 * CUDA C has no vload/vstore, so the packed vector views are element-wise
 * loads and stores, with small helpers where the OpenCL C has a built-in. */
struct float8 { float4 lo, hi; };
struct float16 { float8 lo, hi; };

__device__ inline float2 ld2(size_t i, const float *p) { p += 2 * i; return make_float2(p[0], p[1]); }
__device__ inline float3 ld3(size_t i, const float *p) { p += 3 * i; return make_float3(p[0], p[1], p[2]); }
__device__ inline float4 ld4(size_t i, const float *p) { p += 4 * i; return make_float4(p[0], p[1], p[2], p[3]); }
__device__ inline float8 ld8(size_t i, const float *p) { return {ld4(2 * i, p), ld4(2 * i + 1, p)}; }
__device__ inline float16 ld16(size_t i, const float *p) { return {ld8(2 * i, p), ld8(2 * i + 1, p)}; }
__device__ inline void st2(float2 v, size_t i, float *p) { p += 2 * i; p[0] = v.x; p[1] = v.y; }
__device__ inline void st3(float3 v, size_t i, float *p) { p += 3 * i; p[0] = v.x; p[1] = v.y; p[2] = v.z; }
__device__ inline void st4(float4 v, size_t i, float *p) { p += 4 * i; p[0] = v.x; p[1] = v.y; p[2] = v.z; p[3] = v.w; }
__device__ inline void st8(float8 v, size_t i, float *p) { st4(v.lo, 2 * i, p); st4(v.hi, 2 * i + 1, p); }
__device__ inline void st16(float16 v, size_t i, float *p) { st8(v.lo, 2 * i, p); st8(v.hi, 2 * i + 1, p); }
__device__ inline float4 minus(float4 a, float s) { return make_float4(a.x - s, a.y - s, a.z - s, a.w - s); }
__device__ inline float4 square(float4 a) { return make_float4(a.x * a.x, a.y * a.y, a.z * a.z, a.w * a.w); }

extern "C" __global__ void float_vectors(const float *in, float *out2,
                                         float *out3, float *out4,
                                         float *out8, float *out16, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    float2 a = ld2(i, in);
    float3 b = ld3(i, in);
    float4 c = ld4(i, in);
    float8 d = ld8(i, in);
    float16 e = ld16(i, in);
    st2(make_float2(a.x * 2.0f, a.y * 2.0f), i, out2);
    st3(make_float3(b.x + 1.0f, b.y + 2.0f, b.z + 3.0f), i, out3);
    st4(make_float4(c.w, c.z, c.y, c.x), i, out4);
    st8({minus(d.lo, 1.0f), minus(d.hi, 1.0f)}, i, out8);
    st16({{square(e.lo.lo), square(e.lo.hi)}, {square(e.hi.lo), square(e.hi.hi)}}, i, out16);
}

extern "C" __global__ void unaligned_vectors(const float *in, float *out, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    float4 v = ld4(i, in + 1);
    st4(make_float4(v.x + 0.5f, v.y + 0.5f, v.z + 0.5f, v.w + 0.5f), i, out + 1);
}

extern "C" __global__ void local_and_constant(const int *in, const int *bias,
                                              int *out, unsigned scratch_offset)
{
    extern __shared__ unsigned char dynamic_smem[];
    int *scratch = (int *)(dynamic_smem + scratch_offset);
    size_t lid = threadIdx.x;
    size_t gid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    int3 v = make_int3(in[3 * gid], in[3 * gid + 1], in[3 * gid + 2]);
    scratch[3 * lid] = v.x;
    scratch[3 * lid + 1] = v.y;
    scratch[3 * lid + 2] = v.z;
    __syncthreads();
    size_t other = blockDim.x - 1 - lid;
    int3 w = make_int3(scratch[3 * other] + bias[0],
                       scratch[3 * other + 1] + bias[1],
                       scratch[3 * other + 2] + bias[2]);
    out[3 * gid] = w.x;
    out[3 * gid + 1] = w.y;
    out[3 * gid + 2] = w.z;
}

extern "C" __global__ void narrow_vectors(const unsigned char *bytes,
                                          unsigned short *halves, short *pairs,
                                          int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    const unsigned char *b = bytes + 8 * i;
    for (int k = 0; k < 4; ++k)
        halves[4 * i + k] = (unsigned short)(b[k] * (unsigned short)300 + b[4 + k]);
    pairs[2 * i] = (short)((short)b[0] - (short)b[7]);
    pairs[2 * i + 1] = (short)((short)b[3] - 128);
}
