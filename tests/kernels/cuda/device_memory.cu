// memcpy and memset in device code and the cache-hinted loads and stores,
// as llm.c's Packed128 and its kernels write them: bits moved between
// vector and struct types, rows copied between private, __shared__,
// __constant__ and global memory, sizeof of a __constant__ array
// (tests/test_cuda_c.c, test_device_memory).
#include <string.h>

struct __align__(16) Packed4 {
    float payload[4];
};

__device__ Packed4 unpack(int4 bits)
{
    Packed4 p;
    memcpy(&p, &bits, sizeof(bits));
    return p;
}

__constant__ float table[4] = {0.5f, -1.5f, 2.25f, 4.0f};
__constant__ int primes[] = {2, 3, 5, 7, 11, 13};

// sizeof of a __constant__ array in a function that receives it as a
// pointer: still the array's size
__device__ int prime_sum(void)
{
    int s = 0;
    for (int k = 0; k < (int)(sizeof(primes) / sizeof(primes[0])); ++k)
        s += primes[k];
    return s + (int)sizeof table;
}

__global__ void device_memory(const float4 *in, float *out, int *flags, int n)
{
    __shared__ float tile[64 * 4];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    float row[8];
    memset(row, 0, sizeof(row));
    if (i < n) {
        int4 bits = __ldcs((const int4 *)(in + i));
        Packed4 p = unpack(bits);
        memcpy(&tile[4 * t], p.payload, 4 * sizeof(float));
        memcpy(row + 4, table, sizeof(table));
    } else {
        memset(&tile[4 * t], 0, 4 * sizeof(float));
    }
    __syncthreads();
    if (i < n) {
        memcpy(row, &tile[4 * (blockDim.x - 1 - t)], 4 * sizeof(float));
        memcpy(out + 8 * i, row, sizeof(row));
        memcpy(out + 8 * n + 4 * i, in + i, sizeof(float4));
        memset(flags + 2 * i, 0x3f, sizeof(int));
        flags[2 * i + 1] = prime_sum();
        __stcs(out + 12 * n + i, row[0] + row[4]);
    }
}
