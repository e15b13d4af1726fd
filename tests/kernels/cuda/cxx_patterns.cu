// C++ patterns of public CUDA code, written for these tests: a reduction
// templated on its type, block size and whether n is a power of two with
// shared memory through SharedMemory<T> (the CUDA samples' way), a 128-bit
// packed type with static members and operator[] (llm.c's way), traits
// computed by recursive templates, alias templates, arrays by reference,
// nested types through typename.

template <class T>
struct SharedMemory {
    __device__ inline operator T *()
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
    __device__ inline operator const T *() const
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

// doubles need 8-byte alignment: a specialisation of their own
template <>
struct SharedMemory<double> {
    __device__ inline operator double *()
    {
        extern __shared__ double __smem_d[];
        return (double *)__smem_d;
    }
    __device__ inline operator const double *() const
    {
        extern __shared__ double __smem_d[];
        return (double *)__smem_d;
    }
};

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(const T *g_idata, T *g_odata, unsigned int n)
{
    T *sdata = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    T mySum = 0;
    while (i < n) {
        mySum += g_idata[i];
        if (nIsPow2 || i + blockSize < n)
            mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    sdata[tid] = mySum;
    __syncthreads();
    if ((blockSize >= 512) && (tid < 256))
        sdata[tid] = mySum = mySum + sdata[tid + 256];
    __syncthreads();
    if ((blockSize >= 256) && (tid < 128))
        sdata[tid] = mySum = mySum + sdata[tid + 128];
    __syncthreads();
    if ((blockSize >= 128) && (tid < 64))
        sdata[tid] = mySum = mySum + sdata[tid + 64];
    __syncthreads();
    for (unsigned int s = blockSize >= 64 ? 32 : blockSize / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        g_odata[blockIdx.x] = mySum;
}

template <class E>
struct alignas(16) Packed128 {
    static constexpr int size = sizeof(int4) / sizeof(E);
    E payload[size];
    Packed128() = default;
    __device__ static Packed128 constant(E value)
    {
        Packed128 result;
        for (int k = 0; k < size; ++k)
            result.payload[k] = value;
        return result;
    }
    __device__ static Packed128 zeros() { return constant(0); }
    __device__ E &operator[](int index) { return payload[index]; }
    __device__ const E &operator[](int index) const { return payload[index]; }
};

template <class E>
__device__ Packed128<E> load128(const E *address)
{
    return *reinterpret_cast<const Packed128<E> *>(address);
}

template <class E>
__device__ void store128(E *target, Packed128<E> value)
{
    *reinterpret_cast<Packed128<E> *>(target) = value;
}

typedef Packed128<float> f128;

template <int N> struct Pow2 { static constexpr int value = 2 * Pow2<N - 1>::value; };
template <> struct Pow2<0> { static constexpr int value = 1; };

template <typename T> using Ptr = T *;

template <typename T, int N>
struct Fixed {
    typedef T value_type;
    static constexpr int length = N;
    T data[N];
};

template <int N>
__device__ float sum_array(const float (&a)[N])
{
    float s = 0.0f;
    for (int k = 0; k < N; ++k)
        s += a[k];
    return s;
}

template <typename V>
__device__ typename V::value_type first_plus_last(const V &v)
{
    return v.data[0] + v.data[V::length - 1];
}

__global__ void packed(const float *in, const int *ints, float *out, int *iout,
                       int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    f128 x = load128(in + 4 * i);
    f128 y = f128::constant(2.0f);
    f128 z = Packed128<float>::zeros();
    for (int k = 0; k < f128::size; ++k)
        z[k] = y[k] * x[k] + (float)k;
    store128(out + 4 * i, z);
    Packed128<int> w = load128(ints + 4 * i);
    const Packed128<int> &cw = w;
    Ptr<int> dst = iout + 4 * i;
    for (int k = 0; k < Packed128<int>::size; ++k)
        dst[k] = cw[k] * Pow2<5>::value + Pow2<0>::value;
    float window[3] = {x[0], x[1], x[2]};
    Fixed<float, 4> f;
    for (int k = 0; k < Fixed<float, 4>::length; ++k)
        f.data[k] = x[k] - 1.0f;
    out[4 * n + i] = sum_array(window) + first_plus_last(f);
}
