// Atomics with CUDA's return values, a compare-and-swap loop, and the
// math library's names and intrinsics.

// Every thread adds its value and keeps what atomicAdd returned (the old
// value): the host checks that the old values form one serial order.
__global__ void atomic_returns(float *fsum, float *fold, const float *fv,
                               int *isum, int *iold, const int *iv,
                               unsigned long long *usum,
                               unsigned long long *uold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fold[i] = atomicAdd(fsum, fv[i]);
    iold[i] = atomicAdd(isum, iv[i]);
    uold[i] = atomicAdd(usum, (unsigned long long)iv[i] << 33);
}

// atomicInc wraps at its bound, atomicDec too; atomicExch hands out
// tickets; atomicMin/Max find the extremes; atomicAnd/Or/Xor on bits.
__global__ void atomic_family(unsigned int *wrap, unsigned int *tickets,
                              unsigned int *down, int *extremes,
                              unsigned int *bits, const int *values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    tickets[i] = atomicInc(wrap, 9u);
    atomicDec(down, 4u);
    atomicMin(&extremes[0], values[i]);
    atomicMax(&extremes[1], values[i]);
    atomicOr(&bits[0], 1u << (i % 32));
    atomicAnd(&bits[1], ~(1u << (i % 32)));
    atomicXor(&bits[2], 1u << (i % 32));
    atomicSub((int *)&extremes[2], 1);
    atomicExch(&bits[3], 7u);
}

// A float maximum through atomicCAS, as CUDA programmers write one.
__device__ float atomicMaxFloat(float *address, float val)
{
    int *address_as_int = (int *)address;
    int old = *address_as_int, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_int, assumed,
                        __float_as_int(fmaxf(val, __int_as_float(assumed))));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void cas_max(const float *values, float *result, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicMaxFloat(result, values[i]);
}

// Shared-memory atomics: a per-block count, then one global add.
__global__ void count_positive(const float *values, unsigned int *count, int n)
{
    __shared__ unsigned int block_count;
    if (threadIdx.x == 0)
        block_count = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && values[i] > 0.0f)
        atomicAdd(&block_count, 1);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(count, block_count);
}

// The float math library and its fast intrinsics.
__global__ void math_float(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i];
    float *o = out + i * 12;
    o[0] = sinf(a) + cosf(b);
    o[1] = expf(a * 0.5f) - logf(fabsf(b) + 1.0f);
    o[2] = sqrtf(fabsf(a)) * rsqrtf(fabsf(b) + 1.0f);
    o[3] = fmaf(a, b, 1.5f);
    o[4] = __expf(a * 0.25f);
    o[5] = __fdividef(a, b + 8.0f);
    o[6] = powf(fabsf(a) + 0.5f, 1.5f) + pow(a, 2);
    o[7] = fminf(a, b) + fmaxf(a, b);
    o[8] = floorf(a) + ceilf(b) + truncf(a * 3.0f) + roundf(b * 3.0f);
    o[9] = atan2f(a, b) + tanhf(a * 0.1f);
    o[10] = __sinf(a) + __logf(fabsf(b) + 2.0f);
    o[11] = exp2f(a * 0.1f) + log2f(fabsf(b) + 1.0f) + __saturatef(a);
}

// Integer intrinsics, and min/max on integers.
__global__ void math_integer(const unsigned int *u, const int *s, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int a = u[i];
    int b = s[i];
    int *o = out + i * 10;
    o[0] = __popc(a);
    o[1] = __clz(a);
    o[2] = __ffs(b);
    o[3] = (int)__brev(a);
    o[4] = __mul24(b, 1000);
    o[5] = (int)__umulhi(a, 2654435761u);
    o[6] = min(b, 5) + max(b, -5);
    o[7] = abs(b) - 100;
    o[8] = __popcll((unsigned long long)a << 20 | a);
    o[9] = (int)(umin(a, 1000u) + umax(a, 1000u) % 7u);
}

// double, where the device has it.
__global__ void double_sum(const double *x, double *total, double *fma_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(total, x[i]);
    fma_out[i] = fma(x[i], 3.0, 0.25) + sqrt(fabs(x[i]));
}

// float and double atomicAdd on shared memory: the old values of a
// block's adds form one serial order; an add whose value is dropped (red)
// lands too.
__global__ void shared_sums(const float *x, const double *d, float *fold,
                            float *sums, double *dsums, int n)
{
    __shared__ float fsum, fred;
    __shared__ double dsum;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        fsum = 0.5f;
        fred = 0.25f;
        dsum = 0.125;
    }
    __syncthreads();
    if (i < n) {
        fold[i] = atomicAdd(&fsum, x[i]);
        atomicAdd(&fred, x[i]);
        atomicAdd(&dsum, d[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        sums[2 * blockIdx.x] = fsum;
        sums[2 * blockIdx.x + 1] = fred;
        dsums[blockIdx.x] = dsum;
    }
}
