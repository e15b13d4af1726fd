/* CUDA C twin of tests/kernels/corpus/sgemm_tiled.cl (bench_compile). */
#ifndef TILE
#define TILE 16
#endif
extern "C" __global__ void sgemm_tiled(const int M, const int N, const int K,
                          const float alpha, const float *A,
                          const float *B, const float beta, float *C)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    const int col = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int row = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    const int tx = (int)threadIdx.x;
    const int ty = (int)threadIdx.y;
    float acc = 0.0f;
    for (int base = 0; base < K; base += TILE) {
        int a_col = base + tx;
        int b_row = base + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc = fmaf(a_tile[ty][k], b_tile[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
