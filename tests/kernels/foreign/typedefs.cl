// Types behind typedefs and macros, as libraries write them: a vector
// typedef used in literals, a REAL macro, enums and a struct of vectors.
#ifndef REAL
#define REAL float
#endif
typedef REAL real;
typedef float4 vec4;
typedef uint2 key_t;
#define VEC3 float3
enum axis { AXIS_X, AXIS_Y, AXIS_Z };

typedef struct {
    vec4 origin;
    VEC3 direction;
} ray;

inline real component(vec4 v, enum axis a)
{
    return a == AXIS_X ? v.x : a == AXIS_Y ? v.y : v.z;
}

inline vec4 along(const ray r, real t)
{
    return r.origin + (vec4)(r.direction * t, 0.0f);
}

__kernel void trace(__global const ray *rays, __global vec4 *hits,
                    __global key_t *keys, real t, int count)
{
    int i = get_global_id(0);
    if (i >= count)
        return;
    vec4 p = along(rays[i], t);
    vec4 q = (vec4)(1.0f);
    hits[i] = p * q + (vec4)(component(p, AXIS_Y), 0.0f, 0.0f, 1.0f);
    keys[i] = (key_t)((uint)i, as_uint(p.x));
}
