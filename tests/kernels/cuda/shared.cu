// Shared memory: tiles, trees, scans, dynamic shared memory, atomics on
// shared counters, and helpers that take shared and global pointers.
#define TILE_DIM 16
#define BLOCK_ROWS 16

// The CUDA samples' transpose with a padded tile (no bank conflicts).
__global__ void transposeCoalesced(float *odata, const float *idata,
                                   int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    if (xIndex < width && yIndex < height)
        tile[threadIdx.y][threadIdx.x] = idata[yIndex * width + xIndex];

    __syncthreads();

    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    if (xIndex < height && yIndex < width)
        odata[yIndex * height + xIndex] = tile[threadIdx.x][threadIdx.y];
}

// C = alpha * A * B + beta * C with shared tiles (row-major, M x K by K x N).
__global__ void __launch_bounds__(TILE_DIM * TILE_DIM)
sgemm(int M, int N, int K, float alpha, const float *A, const float *B,
      float beta, float *C)
{
    __shared__ float As[TILE_DIM][TILE_DIM];
    __shared__ float Bs[TILE_DIM][TILE_DIM];
    int row = blockIdx.y * TILE_DIM + threadIdx.y;
    int col = blockIdx.x * TILE_DIM + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE_DIM - 1) / TILE_DIM; ++t) {
        int ak = t * TILE_DIM + threadIdx.x;
        int bk = t * TILE_DIM + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE_DIM; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

// Tree reduction in shared memory (the CUDA samples' reduce2), one partial
// sum per block.
__global__ void reduce(const int *g_idata, int *g_odata, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// Inclusive scan of each block's elements (Hillis-Steele, double buffered).
__global__ void scan_block(const float *in, float *out, int n)
{
    __shared__ float temp[2][256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;
    temp[pout][tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= offset)
            temp[pout][tid] = temp[pin][tid] + temp[pin][tid - offset];
        else
            temp[pout][tid] = temp[pin][tid];
        __syncthreads();
    }
    if (i < n)
        out[i] = temp[pout][tid];
}

// Several arrays carved from one dynamic allocation by casts.
__global__ void dynamic_carve(const float *in, float *out, int *counts)
{
    extern __shared__ float shared[];
    float *values = shared;                                 // blockDim.x floats
    int *flags = (int *)&values[blockDim.x];                // blockDim.x ints
    unsigned char *bytes = (unsigned char *)&flags[blockDim.x];
    unsigned t = threadIdx.x;
    values[t] = in[blockIdx.x * blockDim.x + t];
    flags[t] = values[t] > 0.0f;
    bytes[t] = (unsigned char)(t & 0xff);
    __syncthreads();
    unsigned r = blockDim.x - 1 - t;
    out[blockIdx.x * blockDim.x + t] = values[r] * 2.0f + bytes[r];
    if (t == 0) {
        int c = 0;
        for (unsigned k = 0; k < blockDim.x; ++k)
            c += flags[k];
        counts[blockIdx.x] = c;
    }
}

// A 256-bin histogram: per-block counts in shared memory, then global.
__global__ void histogram256(const unsigned char *data, unsigned int *hist, int n)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        atomicAdd(&hist[b], local[b]);
}

// A helper that takes whatever memory it is given: shared in one kernel,
// global in another.
__device__ float dot3(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// A helper with shared memory of its own, and one that sums a block.
__device__ float block_sum(float v)
{
    __shared__ float partial[256];
    partial[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    float total = partial[0];
    __syncthreads();
    return total;
}

__device__ void stage(float *dst, const float *src, int i) { dst[i] = src[i]; }

__global__ void dots(const float *a, const float *b, float *out, float *sums)
{
    __shared__ float sa[256 * 3];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    for (int c = 0; c < 3; ++c)
        stage(sa, a + blockIdx.x * blockDim.x * 3, t * 3 + c);
    __syncthreads();
    float from_shared = dot3(&sa[t * 3], b + g * 3);
    float from_global = dot3(a + g * 3, b + g * 3);
    out[g] = from_shared - from_global + dot3(b + g * 3, b + g * 3);
    float total = block_sum(from_global);
    if (t == 0)
        sums[blockIdx.x] = total;
}

// Dynamic shared memory declared at file scope and used by a helper.
extern __shared__ float file_shared[];

__device__ void reverse_through_shared(const float *in, float *out)
{
    unsigned t = threadIdx.x;
    file_shared[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = file_shared[blockDim.x - 1 - t];
}

__global__ void reverse_blocks(const float *in, float *out)
{
    reverse_through_shared(in, out);
}

// CUDA by Example's dot product: file-scope const ints, a while-loop
// reduction, and a kernel named like an OpenCL built-in.
const int N = 33 * 1024;
const int threadsPerBlock = 256;

__global__ void dot( float *a, float *b, float *c ) {
    __shared__ float cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    float   temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }

    // set the cache values
    cache[cacheIndex] = temp;

    // synchronize threads in this block
    __syncthreads();

    // for reductions, threadsPerBlock must be a power of 2
    // because of the following code
    int i = blockDim.x/2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }

    if (cacheIndex == 0)
        c[blockIdx.x] = cache[0];
}

/* A pointer declared in an inner block hides one of the same name: each
 * points where it was initialised (the global input, the shared tile),
 * and a pointer copied from the outer one points into shared memory. */
__global__ void shadowed_pointers(const float *in, float *out)
{
    __shared__ float tile[128];
    float *p = tile;
    {
        const float *p = in + blockIdx.x * blockDim.x;
        tile[threadIdx.x] = p[threadIdx.x] * 3.0f;
    }
    __syncthreads();
    float *q = p;
    out[blockIdx.x * blockDim.x + threadIdx.x] = q[blockDim.x - 1 - threadIdx.x];
}
