/*
 * Threads that return before a barrier, as tutorials write them: on CUDA
 * a thread that has exited counts as arrived at __syncthreads(); on
 * OpenCL the translation keeps that meaning (tests/test_cuda_barriers.c).
 */

/* The PyCUDA tutorial's shared-memory doublify, as the issue quotes it,
 * launched with block = (32, 32, 1) on 16 floats. */
const int N=16;
__global__ void doublify(float *a_in, float *a_out) {
    __shared__ float sdatas[N];
    int idx = threadIdx.x + threadIdx.y*blockDim.x;
    int tid = threadIdx.x;
    if (idx >= N) return;
    sdatas[tid] = 2*a_in[idx];
    __syncthreads();
    a_out[idx] = sdatas[tid];
}

/* A block's sum, the last block partial: the tree never reads the slots
 * of threads that returned. */
__global__ void block_sum(const float *x, float *partial, int n)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    s[tid] = x[i];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride && i + stride < n)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}

/* An inclusive scan of each block (Hillis and Steele), the last block
 * partial, in dynamic shared memory. */
__global__ void block_scan(const int *in, int *out, int n)
{
    extern __shared__ int temp[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    if (i >= n)
        return;
    temp[tid] = in[i];
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        int v = 0;
        if (tid >= offset)
            v = temp[tid - offset];
        __syncthreads();
        temp[tid] += v;
        __syncthreads();
    }
    out[i] = temp[tid];
}

/* A return inside a loop that synchronises: each thread adds its
 * neighbour's values tile by tile and stops at its first negative value
 * (its slot then reads 0 for the neighbour). */
__global__ void sum_until_negative(const float *x, float *out, int tiles)
{
    __shared__ float tile[64];
    int tid = threadIdx.x;
    float acc = 0;
    for (int t = 0; t < tiles; ++t) {
        float v = x[(blockIdx.x * tiles + t) * blockDim.x + tid];
        if (v < 0) {
            tile[tid] = 0;
            out[blockIdx.x * blockDim.x + tid] = acc;
            return;
        }
        tile[tid] = v;
        __syncthreads();
        acc += tile[tid ^ 1];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = acc;
}

/* A helper that synchronises, called after threads returned: the block's
 * sum of the values of the threads that are left. */
__device__ float block_sum_of(float v, float *s, int valid)
{
    int tid = threadIdx.x;
    s[tid] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < valid)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    float total = s[0];
    __syncthreads();
    return total;
}

__global__ void normalise(const float *x, float *y, int n)
{
    __shared__ float s[256];
    int valid = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float total = block_sum_of(v, s, valid);
    y[i] = v / total;
}

/* A helper whose threads return early before its own barriers: the sum
 * of the block's values from each thread's own on. */
__device__ float tail_sum(const float *x, float *s, int i, int n)
{
    int tid = threadIdx.x;
    if (i >= n)
        return 0;
    s[tid] = x[i];
    __syncthreads();
    float sum = 0;
    for (int k = tid; k < blockDim.x && blockIdx.x * blockDim.x + k < n; ++k)
        sum += s[k];
    __syncthreads();
    return sum;
}

__global__ void suffix_sums(const float *x, float *y, int n)
{
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = tail_sum(x, s, i, n);
    if (i < n)
        y[i] = v;
}

/* Numba's tutorial shape: the whole body under `if`, so the threads past
 * the end fall off it while the others meet at the barrier. */
__global__ void reverse_in_block(float *a, int n)
{
    __shared__ float s[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        s[threadIdx.x] = a[i];
        __syncthreads();
        int last = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x)) - 1;
        a[i] = s[last - threadIdx.x];
    }
}

/* Block votes, with threads that returned (they do not vote), and in a
 * helper. */
__global__ void votes(const int *x, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int positive = x[i] > 0;
    int count = __syncthreads_count(positive);
    int all = __syncthreads_and(positive);
    int any = __syncthreads_or(x[i] > 100);
    out[i] = count * 4 + (all ? 2 : 0) + (any ? 1 : 0);
}

__device__ int all_positive(int v)
{
    return __syncthreads_and(v > 0);
}

__global__ void votes_in_helper(const int *x, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __syncthreads_count(x[i] & 1) + 1000 * all_positive(x[i]);
}

/* The classic unrolled last warp (Mark Harris's reduction, kernel 6, for
 * blocks of 256): the last 32 threads add in volatile shared memory with
 * no barrier, relying on moving in lockstep, which OpenCL work-items on a
 * CPU do not. */
__device__ void warpReduce(volatile float *sdata, unsigned int tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

__global__ void reduce6(const float *g_idata, float *g_odata, unsigned int n)
{
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float mySum = 0;
    if (i < n)
        mySum = g_idata[i];
    if (i + blockDim.x < n)
        mySum += g_idata[i + blockDim.x];
    sdata[tid] = mySum;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) warpReduce(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

/* The same last warp with __syncwarp() between reading and writing, in
 * the kernel. */
__global__ void reduce_syncwarp(const float *g_idata, float *g_odata)
{
    __shared__ float sdata[64];
    unsigned int tid = threadIdx.x;
    sdata[tid] = g_idata[blockIdx.x * 64 + tid];
    __syncthreads();
    if (tid < 32) {
        float v = sdata[tid];
        for (int offset = 32; offset > 0; offset >>= 1) {
            v += sdata[tid + offset];
            __syncwarp();
            sdata[tid] = v;
            __syncwarp();
        }
        if (tid == 0)
            g_odata[blockIdx.x] = v;
    }
}
