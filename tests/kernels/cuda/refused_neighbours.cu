// One file, several kernels, as public code keeps them: the ones the
// OpenCL translation refuses (a warp match in a helper, a static local)
// must not keep their neighbours from building
// (tests/test_cuda_cxx.c: test_refusals_per_kernel).

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __popc(__match_any_sync(0xffffffff, __float_as_int(v) >> offset));
    return v;
}

__device__ float scaled(float x, float by) { return x * by + 1.0f; }

__global__ void scale_rows(const float *in, float *out, int n, float by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = scaled(in[i], by);
}

__global__ void warp_sums(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0)
        out[i / 32] = v;
}

__global__ void count_calls(int *out)
{
    static int calls;
    out[0] = ++calls;
}

__global__ void negate(float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = -data[i];
}
