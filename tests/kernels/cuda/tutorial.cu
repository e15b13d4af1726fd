// The PyCUDA tutorial's kernels, as the tutorial writes them, and the
// first kernels of CuPy's and the CUDA samples' introductions.

__global__ void doublify(float *a)
{
  int idx = threadIdx.x + threadIdx.y*4;
  a[idx] *= 2;
}

__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}

// doublify through shared memory: each thread doubles the element its
// mirror image loaded, so the barrier matters.
__global__ void doublify_shared(float *a)
{
  __shared__ float tile[16];
  int idx = threadIdx.x + threadIdx.y*4;
  tile[idx] = a[idx];
  __syncthreads();
  a[idx] = 2 * tile[15 - idx];
}

// The naive sum of squares: one float atomicAdd per element.
__global__ void sum_of_squares(const float *x, int n, float *total)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(total, x[i] * x[i]);
}

// CuPy's RawKernel introduction: extern "C", a grid-stride loop.
extern "C" __global__
void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, size_t n)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

extern "C" {
// The CUDA samples' vectorAdd.
__global__ void vectorAdd(const float *A, const float *B, float *C,
                          int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;

    if (i < numElements) {
        C[i] = A[i] + B[i] + 0.0f;
    }
}
}

// A 2-D grid over a matrix, row-major.
__global__ void add_matrices(const float *a, const float *b, float *c,
                             int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height)
        c[row * width + col] = a[row * width + col] + b[row * width + col];
}
