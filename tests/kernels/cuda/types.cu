// Types and declarations: vector types with CUDA's layout, structs and
// enums by value, __constant__ tables and __device__ variables, 2-D and
// 3-D grids, size_t, bool, unsigned long long, typedefs, inline helpers.

typedef unsigned char uchar;

struct __align__(4) Particle {
    float3 position;       // 12 bytes, as in CUDA
    float mass;
    int id;
};

enum Mode { MODE_ADD = 1, MODE_SCALE = 2 };

typedef struct {
    float scale;
    float offset;
    int mode;
} Params;

__constant__ float weights[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
__constant__ int lookup[8];          // filled by the host
__device__ unsigned int launches;    // counted by the kernels
__device__ float bias = 1.5f;

const int RADIUS = 2;
static const float kHalf = 0.5f;

__host__ __device__ inline float square(float v) { return v * v; }

__device__ __forceinline__ float3 add3(float3 a, float3 b)
{
    return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}

// float3 arrays keep CUDA's 12-byte stride; structs hold them too.
__global__ void particles(const float3 *pos, const float3 *vel, float3 *out,
                          Particle *ps, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pos[i];
    float3 step = make_float3(vel[i].x * dt, vel[i].y * dt, vel[i].z * dt);
    out[i] = add3(p, step);
    Particle q = ps[i];
    q.position = add3(q.position, step);
    q.mass = square(q.mass);
    q.id += 1000;
    ps[i] = q;
}

// float4, int2, uchar4 and make_*.
__global__ void vectors(const float4 *a, const int2 *b, const uchar4 *c,
                        float4 *fo, int2 *io, uchar4 *co, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = a[i];
    fo[i] = make_float4(v.x + v.w, v.y * 2.0f, v.z - v.x, v.w);
    int2 w = b[i];
    io[i] = make_int2(w.y, w.x + w.y);
    uchar4 u = c[i];
    co[i] = make_uchar4(u.w, u.z, u.y, (unsigned char)(u.x + 1));
}

// Structs and enums by value; a __constant__ table and a const radius.
__global__ void blur(const float *in, float *out, Params params, enum Mode mode, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = min(max(i + k, 0), n - 1);
        acc += weights[k + RADIUS] * in[j];
    }
    if (mode == MODE_SCALE && params.mode == MODE_SCALE)
        out[i] = acc * params.scale + params.offset * kHalf;
    else
        out[i] = acc + params.offset;
}

// A table the host writes, a counter and a value the kernels share.
__global__ void use_globals(const int *index, int *out, float *biased, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        atomicAdd(&launches, 1u);
    if (i >= n) return;
    out[i] = lookup[index[i] & 7];
    biased[i] = (float)i + bias;
}

// 2-D and 3-D grids: each thread writes its coordinates.
__global__ void grid3d(unsigned int *out, int nx, int ny, int nz)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        size_t idx = ((size_t)z * ny + y) * nx + x;
        out[idx] = x | (y << 10) | (z << 20);
    }
}

// size_t, bool, unsigned long long, int64_t, functional and C++ casts.
__global__ void scalars(unsigned long long *out, size_t count, bool negate,
                        unsigned long long base, long long step, double scale)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= count) return;
    unsigned long long v = base + static_cast<unsigned long long>(i) * step;
    if (negate)
        v = ~v;
    out[i] = v + (unsigned long long)(int(scale) + 1ULL);
}

// printf from device code (its output is not checked, only that it runs).
__global__ void hello(int *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        printf("hello from block %d of %d, %lld\n", blockIdx.x, gridDim.x,
               (long long)42);
    out[threadIdx.x] = threadIdx.x;
}

// __host__ __device__ code that tells the two apart, and __noinline__.
__host__ __device__ int where_am_i(void)
{
#ifdef __CUDA_ARCH__
    return 1;
#else
    return 0;
#endif
}

__device__ __noinline__ float poly(float x)
{
    return ((2.0f * x - 3.0f) * x + 0.5f) * x;
}

__global__ void host_device(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = poly(x[i]) + (float)where_am_i();
}
