// Kernel templates the host instantiates by name, as CuPy's
// RawModule(name_expressions=...) and NVRTC's nvrtcAddNameExpression do:
// nothing in this file instantiates them.

#define IDX2(row, col, ld) ((row) * (ld) + (col))

// C = alpha * A * B + beta * C, row-major; A is M x K, B is K x N.
// A block of BLOCK x BLOCK threads computes a (BLOCK * TILE) x BLOCK tile of
// C, each thread TILE rows of one column (1-D register blocking).
template <int BLOCK, int TILE>
__global__ void sgemm(int M, int N, int K, float alpha, const float *A,
                      const float *B, float beta, float *C)
{
    __shared__ float As[BLOCK * TILE][BLOCK];
    __shared__ float Bs[BLOCK][BLOCK];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row0 = blockIdx.y * (BLOCK * TILE) + ty * TILE;
    const int col = blockIdx.x * BLOCK + tx;

    float acc[TILE];
#pragma unroll
    for (int t = 0; t < TILE; ++t)
        acc[t] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BLOCK) {
#pragma unroll
        for (int t = 0; t < TILE; ++t) {
            int r = row0 + t, c = k0 + tx;
            As[ty * TILE + t][tx] = (r < M && c < K) ? A[IDX2(r, c, K)] : 0.0f;
        }
        int r = k0 + ty;
        Bs[ty][tx] = (r < K && col < N) ? B[IDX2(r, col, N)] : 0.0f;
        __syncthreads();

        for (int k = 0; k < BLOCK; ++k) {
            float b = Bs[k][tx];
#pragma unroll
            for (int t = 0; t < TILE; ++t)
                acc[t] += As[ty * TILE + t][k] * b;
        }
        __syncthreads();
    }

#pragma unroll
    for (int t = 0; t < TILE; ++t) {
        int r = row0 + t;
        if (r < M && col < N)
            C[IDX2(r, col, N)] = alpha * acc[t] + beta * C[IDX2(r, col, N)];
    }
}

template <typename T>
__device__ T madd(T a, T x, T b, T y)
{
    return a * x + b * y;
}

// y = a * x + b * y, grid-stride.
template <typename T>
__global__ void axpby(int n, T a, const T *__restrict__ x, T b,
                      T *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        y[i] = madd<T>(a, x[i], b, y[i]);
}

namespace blas {
// Kernels in a namespace are named as the host's C++ would: "blas::scale".
__global__ void scale(int n, float s, float *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= s;
}
} // namespace blas

// A plain kernel beside them, found by its name as always.
extern "C" __global__ void fill(int n, float value, float *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = value;
}
