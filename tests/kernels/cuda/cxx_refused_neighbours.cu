// Kernels whose bodies use C++ that OpenCL C cannot express (a lambda, a
// function held in a variable) beside kernels that translate: the program
// builds on OpenCL with the others, and asking for a refused one gives the
// construct and its line.  Natively on CUDA every kernel compiles and runs.

__device__ float third(float v) { return v / 3.0f; }

template <typename T>
__device__ T apply_then_divide(T a, T b)
{
    auto op = third;
    return op(a) / b;
}

__global__ void divide_thirds(float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = apply_then_divide(x[i], y[i]);
}

template <typename T>
__global__ void halve(T *x, int n)
{
    auto half = [](T v) { return v / T(2); };
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = half(x[i]);
}

template <typename T>
__global__ void twice(T *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * T(2);
}

__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}
