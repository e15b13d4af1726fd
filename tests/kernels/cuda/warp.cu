// Warp-level primitives as CUDA code writes them: shuffles in block
// reductions (the warp-0 second stage under `if (wid == 0)`), scans,
// butterflies, votes, __reduce_*_sync, the width argument.  Built natively
// by NVRTC on the CUDA backend and translated (emulated through shared
// memory) on OpenCL; tests/test_cuda_warp.c checks each against a CPU
// model of CUDA's lane arithmetic.
#define FULL_MASK 0xffffffff

__inline__ __device__ float warpReduceSum(float val)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(FULL_MASK, val, offset);
    return val;
}

__inline__ __device__ float blockReduceSum(float val)
{
    __shared__ float shared[32];
    int lane = threadIdx.x % warpSize;
    int wid = threadIdx.x / warpSize;

    val = warpReduceSum(val);
    if (lane == 0)
        shared[wid] = val;
    __syncthreads();

    val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;
    if (wid == 0)
        val = warpReduceSum(val);
    return val;
}

__global__ void deviceReduceKernel(const float *in, float *out, int N)
{
    float sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N;
         i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = blockReduceSum(sum);
    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

// The last warp of a shared-memory tree, reduced with shuffles by the
// threads under `if (tid < 32)`, as the CUDA samples' reductions end.
__global__ void reduce_tail_shfl(const int *g_idata, int *g_odata, unsigned int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    int mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockDim.x < n)
        mySum += g_idata[i + blockDim.x];
    sdata[tid] = mySum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        if (blockDim.x >= 64)
            mySum += sdata[tid + 32];
        for (int offset = warpSize / 2; offset > 0; offset /= 2)
            mySum += __shfl_down_sync(0xffffffff, mySum, offset);
    }

    if (tid == 0)
        g_odata[blockIdx.x] = mySum;
}

// Inclusive scan of each warp with __shfl_up_sync, then of the block
// through the warps' sums (the shfl_scan sample's shape).
__global__ void shfl_scan(const int *data, int *out, int *partial_sums, int n)
{
    __shared__ int sums[32];
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    int lane_id = id % warpSize;
    int warp_id = threadIdx.x / warpSize;

    int value = id < n ? data[id] : 0;
#pragma unroll
    for (int i = 1; i <= 16; i *= 2) {
        int n2 = __shfl_up_sync(FULL_MASK, value, i, 32);
        if (lane_id >= i)
            value += n2;
    }
    if (threadIdx.x % warpSize == warpSize - 1)
        sums[warp_id] = value;
    __syncthreads();

    if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
        int warp_sum = sums[lane_id];
        int mask = (1 << (blockDim.x / warpSize)) - 1;
        for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
            int n2 = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));
            if (lane_id >= i)
                warp_sum += n2;
        }
        sums[lane_id] = warp_sum;
    }
    __syncthreads();

    int blockSum = 0;
    if (warp_id > 0)
        blockSum = sums[warp_id - 1];
    value += blockSum;
    if (id < n)
        out[id] = value;
    if (threadIdx.x == blockDim.x - 1)
        partial_sums[blockIdx.x] = value;
}

// Every lane gets the warp's maximum (a butterfly), in double.
__global__ void warp_allreduce_max(const double *in, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? in[i] : -1e300;
    for (int mask = 16; mask > 0; mask >>= 1)
        v = fmax(v, __shfl_xor_sync(0xffffffff, v, mask));
    if (i < n)
        out[i] = v;
}

// Each shuffle with a source and a width given by the host: CUDA's lane
// arithmetic, out-of-range sources and all.  Four results per thread.
__global__ void shuffle_modes(const float *in, float *out, int src, int width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    out[4 * i + 0] = __shfl_sync(0xffffffff, v, src, width);
    out[4 * i + 1] = __shfl_up_sync(0xffffffff, v, (unsigned)src, width);
    out[4 * i + 2] = __shfl_down_sync(0xffffffff, v, (unsigned)src, width);
    out[4 * i + 3] = __shfl_xor_sync(0xffffffff, v, src, width);
}

// 64-bit integers: each lane takes lane (lane * 7 + k) % 32's value.
__global__ void shuffle_wide(const long long *in, long long *out,
                             unsigned long long *uout, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    long long v = in[i];
    out[i] = __shfl_sync(0xffffffff, v, (lane * 7 + k) % 32);
    unsigned long long u = (unsigned long long)v;
    uout[i] = __shfl_xor_sync(0xffffffff, u, k & 31);
}

// Votes: a warp's ballot, its population count, any and all; blocks of
// 48 threads leave the second warp partial.
__global__ void warp_votes(const float *x, unsigned *ballots, int *counts,
                           int *anys, int *alls, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned ballot = __ballot_sync(FULL_MASK, i < n && x[i] > 0.0f);
    int any = __any_sync(FULL_MASK, i < n && x[i] > 0.9f);
    int all = __all_sync(FULL_MASK, i >= n || x[i] > -0.9f);
    int warp = blockIdx.x * ((blockDim.x + 31) / 32) + threadIdx.x / 32;
    if ((threadIdx.x & 31) == 0) {
        ballots[warp] = ballot;
        counts[warp] = __popc(ballot);
        anys[warp] = any;
        alls[warp] = all != 0;
    }
}

// Threads past the end return first; the rest reduce over the lanes
// still running (__activemask), with __reduce_*_sync.
__global__ void warp_reduce_ops(const unsigned *in, unsigned *out,
                                int *sout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned mask = __activemask();
    unsigned v = in[i];
    int s = (int)v - (1 << 30);
    unsigned r_add = __reduce_add_sync(mask, v);
    unsigned r_min = __reduce_min_sync(mask, v);
    unsigned r_max = __reduce_max_sync(mask, v);
    unsigned r_and = __reduce_and_sync(mask, v);
    unsigned r_or = __reduce_or_sync(mask, v);
    unsigned r_xor = __reduce_xor_sync(mask, v);
    int s_add = __reduce_add_sync(mask, s);
    int s_min = __reduce_min_sync(mask, s);
    int s_max = __reduce_max_sync(mask, s);
    if ((threadIdx.x & 31) == 0) {
        int w = i / 32;
        out[7 * w + 0] = mask;
        out[7 * w + 1] = r_add;
        out[7 * w + 2] = r_min;
        out[7 * w + 3] = r_max;
        out[7 * w + 4] = r_and;
        out[7 * w + 5] = r_or;
        out[7 * w + 6] = r_xor;
        sout[3 * w + 0] = s_add;
        sout[3 * w + 1] = s_min;
        sout[3 * w + 2] = s_max;
    }
}

// A branch on a warp vote: the warps where some value is negative clamp
// theirs to the warp's first lane's.
__global__ void vote_branch(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] : 0.0f;
    if (__any_sync(0xffffffff, v < 0.0f)) {
        float first = __shfl_sync(0xffffffff, v, 0);
        v = fmaxf(v, first);
    }
    if (i < n)
        a[i] = v;
}

// Cooperative groups' tiles: a tile of 16 reduces with shfl_down in a
// helper that takes the tile, the tile votes, and a warp-sized tile
// exchanges with shfl, shfl_xor and shfl_up.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__device__ int tile_sum(cg::thread_block_tile<16> g, int v)
{
    for (int offset = g.size() / 2; offset > 0; offset /= 2)
        v += g.shfl_down(v, offset);
    return v;
}

__global__ void tile_reduce(const int *in, int *sums, unsigned *votes,
                            int *moved, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;

    int sum = tile_sum(tile16, v);
    unsigned ballot = tile16.ballot(v > 0);
    int any = tile16.any(v > 900);
    int all = tile16.all(v > -900);
    int tile = blockIdx.x * (blockDim.x / 16) + tile16.meta_group_rank();
    if (tile16.thread_rank() == 0) {
        sums[tile] = sum;
        votes[3 * tile + 0] = ballot;
        votes[3 * tile + 1] = any;
        votes[3 * tile + 2] = all;
    }

    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int x = warp.shfl(v, 5) + 3 * warp.shfl_xor(v, 9) + 7 * warp.shfl_up(v, 2);
    warp.sync();
    if (i < n)
        moved[i] = x * 1000 + (int)warp.thread_rank() * 10 + (int)warp.size() / 32;
}

// llm.c's dev/cuda style: a warp per row, cg::reduce for the row's
// maximum, sum and a hash; the rows past the end return first.
#include <cooperative_groups/reduce.h>

__global__ void row_stats(const float *inp, float *maxes, float *sums,
                          int *hashes, int N, int C)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (idx >= N) {
        return;
    }
    const float *x = inp + idx * C;

    float maxval = __int_as_float(0xff800000); // -INFINITY
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        maxval = fmaxf(maxval, x[i]);
    }
    maxval = cg::reduce(warp, maxval, cg::greater<float>{});

    float sumval = 0.0f;
    int hash = 0;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
        sumval += x[i] - maxval;
        hash ^= __float_as_int(x[i]);
    }
    sumval = cg::reduce(warp, sumval, cg::plus<float>{});
    hash = cg::reduce(warp, hash, cg::bit_xor<int>());

    if (warp.thread_rank() == 0) {
        maxes[idx] = maxval;
        sums[idx] = sumval;
        hashes[idx] = hash;
    }
}

// llm.c's attention_forward_fused1 shape: a warp per row t, a loop over
// t2 <= t (a trip count that differs between the block's warps) holding
// a cg::reduce.
__global__ void causal_rows(const float *in, float *out, int T, int hs)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int t = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (t >= T) return;

    float acc = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
        float val = 0.0f;
        for (int i = warp.thread_rank(); i < hs; i += warp.size()) {
            val += in[t2 * hs + i];
        }
        val = cg::reduce(warp, val, cg::plus<float>{});
        acc += val;
    }
    if (warp.thread_rank() == 0) {
        out[t] = acc;
    }
}

// cooperative_groups/scan.h: a tile's inclusive and exclusive sums.
#include <cooperative_groups/scan.h>

__global__ void tile_scans(const float *in, float *incl, float *excl, int *iincl, int n)
{
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    float a = cg::inclusive_scan(tile8, v);
    float b = cg::exclusive_scan(tile8, v);
    int c = cg::inclusive_scan(tile8, (int)(v * 100.0f), cg::greater<int>());
    if (i < n) {
        incl[i] = a;
        excl[i] = b;
        iincl[i] = c;
    }
}

// llm.c's attention kernels: rows past the end return, then a float
// divisor whose type only the call says (1.0f / sqrtf(hs)), then a warp's
// butterfly sum.  hs == 0 gives CUDA's infinity.
__global__ void scaled_row_sums(const float *x, float *out, int rows, int hs)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    float scale = 1.0f / sqrtf(hs);
    float v = x[row * 32 + lane] * scale;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffff, v, offset);
    if (lane == 0)
        out[row] = v;
}
