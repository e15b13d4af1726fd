// The rest of the C++ device code is written in: namespaces and using,
// overloads, references, structs with constructors, member functions and
// operators (helper_math.h's style on CUDA's vector types), default
// arguments, auto, enum class, function objects, range-for.

namespace geom {
struct Vec3 {
    float x, y, z;
    __device__ Vec3() : x(0), y(0), z(0) {}
    __device__ Vec3(float a, float b, float c) : x(a), y(b), z(c) {}
    __device__ explicit Vec3(float s) : x(s), y(s), z(s) {}
    __device__ float dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
    __device__ float norm2() const { return dot(*this); }
    __device__ Vec3 &operator+=(const Vec3 &o)
    {
        x += o.x;
        y += o.y;
        z += o.z;
        return *this;
    }
    __device__ Vec3 operator-() const { return Vec3(-x, -y, -z); }
};

__device__ inline Vec3 operator+(Vec3 a, const Vec3 &b) { return a += b; }
__device__ inline Vec3 operator*(float s, const Vec3 &v) { return Vec3(s * v.x, s * v.y, s * v.z); }
__device__ inline bool operator==(const Vec3 &a, const Vec3 &b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

namespace detail {
__device__ inline float lerp(float a, float b, float t) { return a + t * (b - a); }
}
} // namespace geom

namespace g = geom;
using geom::Vec3;

// helper_math.h's style: operators and overloads on CUDA's own types
inline __host__ __device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
inline __host__ __device__ float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
inline __host__ __device__ void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }
inline __host__ __device__ float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
inline __host__ __device__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline __device__ float clampv(float f, float a, float b) { return fmaxf(a, fminf(f, b)); }
inline __device__ int clampv(int f, int a, int b) { return max(a, min(f, b)); }
inline __device__ float2 clampv(float2 v, float a, float b) { return make_float2(clampv(v.x, a, b), clampv(v.y, a, b)); }
inline __device__ float2 fminf(float2 a, float2 b) { return make_float2(fminf(a.x, b.x), fminf(a.y, b.y)); }

__device__ void swap_values(float &a, float &b)
{
    float t = a;
    a = b;
    b = t;
}

__device__ float scaled(float x, float scale = 2.0f, float offset = 0.5f) { return x * scale + offset; }

// overloads by the constness of a reference (llm.c's vec_at): a float4
// variable takes the one that returns a reference it can be written through
__device__ float &lane_of(float4 &v, int k) { return reinterpret_cast<float *>(&v)[k]; }
__device__ float lane_of(const float4 &v, int k) { return reinterpret_cast<const float *>(&v)[k]; }
__device__ float lane_difference(const float4 &v) { return lane_of(v, 0) - lane_of(v, 1); }

enum class Op : int { Add = 1, Mul = 2, Max = 4 };

struct Accumulate {
    Op op;
    __device__ float operator()(float a, float b) const
    {
        switch (op) {
        case Op::Add: return a + b;
        case Op::Mul: return a * b;
        default: return fmaxf(a, b);
        }
    }
};

template <typename F>
__device__ float fold(const float *p, int n, float init, F f)
{
    for (int k = 0; k < n; ++k)
        init = f(init, p[k]);
    return init;
}

struct Counter {
    int hits = 0;
    int misses = 0;
    __device__ void hit() { ++hits; }
    __device__ void miss(int n = 1) { misses += n; }
};

extern "C" __global__ void classes(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float *p = in + 3 * i;
    Vec3 a(p[0], p[1], p[2]);
    g::Vec3 b = Vec3(1.0f, 2.0f, 3.0f);
    Vec3 c = a + b;                          // a free operator
    c += Vec3(0.5f);                         // a member operator, explicit ctor
    Vec3 d = 2.0f * -c;                      // unary member, scalar * vector
    auto len = d.norm2();                    // auto, const member calling a member
    out[8 * i + 0] = c.x + c.y + c.z;
    out[8 * i + 1] = len;
    out[8 * i + 2] = (a == a && !(a == b)) ? 1.0f : 0.0f;
    out[8 * i + 3] = geom::detail::lerp(p[0], p[1], 0.25f) + scaled(p[2]) + scaled(p[2], 3.0f);
    float x = p[0], y = p[1];
    swap_values(x, y);                       // references
    float &ref = x;
    ref += 1.0f;
    float4 q = make_float4(x, y, 0.0f, 0.0f);
    lane_of(q, 2) = (float(1.0f) * lane_difference(q) - float(0.5f)); // functional casts in ( )
    out[8 * i + 4] = lane_of(q, 2) + 0.5f;
    float2 u = make_float2(p[0], p[1]);
    u += make_float2(1.0f, 1.0f) * 0.5f;
    float2 v = fminf(clampv(u + u, -1.0f, 1.0f), make_float2(0.25f, 0.75f));
    out[8 * i + 5] = v.x + v.y + (float)clampv(7, 0, 5) + clampv(p[2], 0.0f, 0.5f);
    float3 w = make_float3(p[0], p[1], p[2]) - make_float3(1.0f, 1.0f, 1.0f);
    Accumulate add{Op::Add}, mul{Op::Mul};
    Accumulate mx = {Op::Max};
    out[8 * i + 6] = dot(w, w) + fold(p, 3, 0.0f, add) + fold(p, 3, 1.0f, mul) + fold(p, 3, -1e30f, mx);
    Counter counter;
    float values[3] = {p[0], p[1], p[2]};
    for (auto &value : values) {
        if (value > 0.0f)
            counter.hit();
        else
            counter.miss();
        value *= 2.0f;
    }
    counter.miss(10);
    out[8 * i + 7] = counter.hits * 100 + counter.misses + values[0] + values[1] + values[2];
}
