/*
 * SGEMM with square __local tiles: C = alpha * A * B + beta * C for
 * row-major A (M x K), B (K x N), C (M x N).  Blocks are TILE x TILE; the
 * edges of matrices whose sizes are not multiples of TILE are padded with
 * zeros in the tiles and skipped on the store.
 */

#ifndef TILE
#define TILE 16
#endif

__kernel void sgemm_tiled(const int M, const int N, const int K,
                          const float alpha, __global const float *A,
                          __global const float *B, const float beta,
                          __global float *C)
{
    __local float a_tile[TILE][TILE];
    __local float b_tile[TILE][TILE];
    const int col = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);

    float acc = 0.0f;
    for (int base = 0; base < K; base += TILE) {
        int a_col = base + tx;
        int b_row = base + ty;
        a_tile[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc = mad(a_tile[ty][k], b_tile[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N)
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
