// Templates as CUDA code writes them: function templates deduced and
// explicit, non-type parameters, class templates with members and
// specialisations, traits, constexpr, static_assert, if constexpr, and
// kernel templates the host names ("reduce_sum<256, float>").

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

template <typename T>
__device__ T square(T x) { return x * x; }

template <const int N = 4, typename T = int> // defaults, as LeetCUDA writes them
__device__ T sum_n(const T *p)
{
    T s = 0;
#pragma unroll
    for (int k = 0; k < N; ++k)
        s += p[k];
    return s;
}

template <typename T, int N = 4>
struct Vec {
    T v[N];
    __device__ T sum() const
    {
        T s = T(0);
        for (int k = 0; k < N; ++k)
            s += v[k];
        return s;
    }
    __device__ T &operator[](int k) { return v[k]; }
    __device__ const T &operator[](int k) const { return v[k]; }
    static constexpr int size = N;
};

template <typename T> struct Limits;
template <> struct Limits<float> {
    static constexpr float lowest = -3.402823466e+38f;
    static constexpr bool is_integer = false;
};
template <> struct Limits<int> {
    static constexpr int lowest = -2147483647 - 1;
    static constexpr bool is_integer = true;
};

template <typename T> struct Pair { T first, second; };
template <typename T> struct Pair<T *> { T *first; int count; };

// the cuda-samples idiom: dynamic shared memory of the kernel's type
template <class T>
struct SharedMemory {
    __device__ inline operator T *()
    {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <typename T>
__device__ T max_of(T a, T b) { return a > b ? a : b; }

template <typename T>
__device__ T clamp_to(T x, T lo, T hi)
{
    if constexpr (Limits<T>::is_integer)
        return x < lo ? lo : (x > hi ? hi : x);
    else
        return fminf(fmaxf(x, lo), hi);
}

// a default template argument whose list closes with the head's: '>>'
// (boost's interval: template <class T, class Rounding = rounding_control<T>>)
template <typename T> struct Twice {
    static __device__ T of(T x) { return x + x; }
};
template <typename T, typename Op = Twice<T>> __device__ T apply_op(T x) { return Op::of(x); }

extern "C" __global__ void templates_basic(const float *in, const int *ints,
                                           float *out, int *iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    static_assert(ceil_div(10, 4) == 3, "constexpr");
    static_assert(Vec<float>::size == 4 && Vec<int, 3>::size == 3, "defaults");
    float x = in[i];
    out[4 * i + 0] = square(x) + square(2.0f);
    iout[4 * i + 0] = square(ints[i]) + sum_n<ceil_div(7, 2)>(ints + (i / 4) * 4 % (n - 3 > 0 ? n - 3 : 1));
    Vec<float> a;
    for (int k = 0; k < Vec<float>::size; ++k)
        a[k] = x * (k + 1);
    out[4 * i + 1] = apply_op(a.sum()) * 0.5f;
    Vec<int, 3> b;
    b[0] = ints[i];
    b[1] = 2 * ints[i];
    b[2] = -ints[i];
    const Vec<int, 3> &c = b;
    iout[4 * i + 1] = c.sum() + c[1];
    out[4 * i + 2] = max_of(x, Limits<float>::lowest) + max_of<float>(x, 1);
    iout[4 * i + 2] = max_of(ints[i], Limits<int>::lowest + 5);
    out[4 * i + 3] = clamp_to(x, -0.5f, 0.5f);
    iout[4 * i + 3] = clamp_to(ints[i], -100, 100);
    Pair<float *> p;
    p.count = sizeof(Pair<int>) + sizeof(Pair<int *>);
    iout[4 * i + 3] += p.count;
}

// A kernel template: the host creates "block_sum<128, float>" and
// "block_sum<64, int>".
template <int BLOCK, typename T>
__global__ void block_sum(const T *in, T *out, int n)
{
    static_assert(BLOCK % 32 == 0, "BLOCK is a multiple of 32");
    T *partial = SharedMemory<T>();
    int i = blockIdx.x * BLOCK + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = partial[0];
}
