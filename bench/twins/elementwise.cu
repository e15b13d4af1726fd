/* CUDA C twin of tests/kernels/corpus/elementwise.cl (bench_compile's
 * raw side: the same kernels as CuPy's RawKernel would get them). */
extern "C" __global__ void saxpy(const float alpha, const float *x, float *y,
                                 const unsigned n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = alpha * x[i] + y[i];
}

extern "C" __global__ void leaky_relu(const float *in, float *out,
                                      float slope, float scale, int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    float v = in[i];
    out[i] = (v > 0.0f ? v : slope * v) * scale;
}

extern "C" __global__ void int_combine(const int *a, const int *b, int *out,
                                       int n)
{
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) {
        int x = a[i], y = b[i];
        out[i] = ((x * 3 - y) ^ (x >> 2)) | (y & 0xF0);
    }
}
