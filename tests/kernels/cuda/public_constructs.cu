// Constructs that public CUDA code writes and that the translation to
// OpenCL C got wrong (issue 26's survey), each checked against a CPU
// reference by tests/test_cuda_cxx.c (test_public_constructs).

// a __constant__ array sized by its initializer, of a type narrower than int
__constant__ short weights[] = {3, -1, 4, -1, 5, -9, 2, 6};

// several variables in one declaration
__device__ int hits, misses;
__device__ float bias[2] = {0.5f, -0.25f}, scale = 2.0f;

// a self-referential struct as C++ writes it: its tag names it in its body
struct node {
    int value;
    node *next;
};

// a device function named as OpenCL C names its 16-bit float type
__device__ float half(float x) { return 0.5f * x; }

__global__ void public_constructs(const float *in, const int *ints, float *out,
                                  int *iout, int n,
                                  __grid_constant__ const int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    node second = {ints[i], NULL};
    node first = {offset, &second};
    int linked = 0;
    for (node *p = &first; p != NULL; p = p->next)
        linked += p->value;
    iout[i] = linked;
    out[2 * i] = half(in[i]) * scale + bias[i % 2];
    out[2 * i + 1] = (float)weights[i % 8] * in[i];
    // atomics of other scopes: the device's here
    atomicAdd_system(&iout[n], 1);
    atomicCAS_block(&iout[n + 1], 0, 7);
    atomicExch_system(&iout[n + 2], i);
    atomicMax_block(&iout[n + 3], ints[i]);
    if (i == 0) {
        hits = 3;
        misses = offset;
        iout[n + 4] = hits * 10 + misses;
    }
}
