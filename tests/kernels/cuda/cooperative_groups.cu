// cooperative_groups.h within one block, as CUDA's samples and tutorials
// use it: the block as a group, its barrier, each thread's rank
// (tests/test_cuda_cxx.c: test_cooperative_groups).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// a block's sum, the tree reduction of the samples, synchronised through
// the group
__device__ float block_reduce(cg::thread_block block, float *partial, float v)
{
    unsigned int t = block.thread_rank();
    partial[t] = v;
    block.sync();
    for (unsigned int s = block.size() / 2; s > 0; s >>= 1) {
        if (t < s)
            partial[t] += partial[t + s];
        cg::sync(block);
    }
    return partial[0];
}

__global__ void block_sums(const float *in, float *out, int n)
{
    extern __shared__ float partial[];
    cg::thread_block block = cg::this_thread_block();
    unsigned int i = block.group_index().x * block.size() + block.thread_rank();
    float total = block_reduce(block, partial, i < n ? in[i] : 0.0f);
    if (block.thread_rank() == 0)
        out[blockIdx.x] = total;
}

// a 2-D block: the rank is row-major over the block's threads
__global__ void ranks(unsigned int *out)
{
    using namespace cooperative_groups;
    thread_block block = this_thread_block();
    unsigned int rank = block.thread_rank();
    unsigned int base = (blockIdx.y * gridDim.x + blockIdx.x) * block.num_threads();
    out[base + rank] = rank * 1000u + block.thread_index().y * 100u +
                       block.dim_threads().x * 10u + block.group_dim().y;
}

// a group passed as the thread_group base (cuda-samples' dxtc colorSums):
// the block, a tile made at run time and a tile of a fixed size, each as
// a thread_group; the mean of the group's values
__device__ float group_mean(cg::thread_group g, float *s, float v)
{
    s[threadIdx.x] = v;
    g.sync();
    unsigned int first = threadIdx.x - g.thread_rank();
    float sum = 0.0f;
    for (unsigned int k = 0; k < 128; ++k)
        if (k < g.size())
            sum += s[first + k];
    cg::sync(g);
    return sum / (float)g.size();
}

__global__ void group_means(const float *x, float *out)
{
    __shared__ float s[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile16 = cg::tiled_partition(block, 16);
    cg::thread_group tile4 = cg::tiled_partition(tile16, 4);
    cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(block);
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    out[5 * i + 0] = group_mean(block, s, v);
    out[5 * i + 1] = group_mean(tile16, s, v);
    out[5 * i + 2] = group_mean(tile4, s, v);
    out[5 * i + 3] = group_mean(tile8, s, v);
    cg::sync(tile8);
    out[5 * i + 4] = (float)(tile16.thread_rank() * 1000 + tile16.size() * 10 +
                             tile4.thread_rank());
}

// the cooperative groups blog's reduce_sum over a thread_group: a loop on
// g.size() around g.sync(), for the block and for tiles of 16
__device__ int reduce_sum(cg::thread_group g, int *temp, int val)
{
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        temp[lane] = val;
        g.sync();
        if (lane < i)
            val += temp[lane + i];
        g.sync();
    }
    return val;
}

__global__ void group_sums(const int *x, int *out)
{
    __shared__ int temp[128];
    cg::thread_block block = cg::this_thread_block();
    int v = x[blockIdx.x * blockDim.x + threadIdx.x];
    int whole = reduce_sum(block, temp, v);
    cg::thread_group tile = cg::tiled_partition(block, 16);
    int offset = (threadIdx.x / 16) * 16;
    int part = reduce_sum(tile, temp + offset, v);
    if (threadIdx.x == 0)
        out[blockIdx.x * 9] = whole;
    if (tile.thread_rank() == 0)
        out[blockIdx.x * 9 + 1 + threadIdx.x / 16] = part;
}
