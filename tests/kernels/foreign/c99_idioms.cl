/* C99 idioms that C++ spells differently: compound literals (struct and
 * vector), narrowing brace initialisers, sincos with a private pointer. */
typedef struct { float x, y; } Point;
typedef struct { int count; float sum; } Stat;

Point make_point(float x, float y) { return (Point){x, y}; }

inline float2 rotate2(float2 v, float a)
{
    float s, c;
    s = sincos(a, &c);
    return (float2)(c * v.x - s * v.y, s * v.x + c * v.y);
}

__kernel void k(__global Point *out, __global float2 *v, __global Stat *stats,
                __global const int *flags, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    out[i] = make_point((float)i, 2.0f * i);
    v[i] = rotate2(v[i], M_PI_F / 4);
    Stat s = {0, 0.0f};
    for (int k = 0; k < 4; ++k) {
        if (flags[k]) { s.count++; s.sum += (float)k; }
    }
    stats[i] = s;
    size_t g = get_global_size(0);
    int m = min(i, (int)g - 1);
    uint u = max((uint)i, 3u);
    float f = fmax(v[i].x, 0.0f) + (float)m + (float)u + isnan(v[i].y) + sign(-2.0f);
    out[i].x += f + MAXFLOAT * 0.0f + (isinf(INFINITY) ? 1.0f : 0.0f);
    float arr[4] = {1, 2, 3, 4};
    out[i].y += arr[i & 3] + exp10(1.0f) + pown(2.0f, 3) + rootn(8.0f, 3);
}
__kernel void narrowing(__global Point *out, int n)
{
    int i = get_global_id(0);
    Point p = {i, 2 * i};
    float arr[2] = {i, n};
    size_t g = get_global_id(0);
    int idx[2] = {g, g + 1};
    out[i] = p;
    out[i].x += arr[1] + idx[1];
}
