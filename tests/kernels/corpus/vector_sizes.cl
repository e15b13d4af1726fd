/*
 * Sizes and strides of vector types: a 3-component vector occupies the
 * space of 4 (sizeof(float3) == 16), so arrays of float3 have a 16-byte
 * stride and a float3 member is 16-byte aligned in a struct.
 */

typedef struct {
    float a;
    float3 b;
    char c;
} with_float3;

__kernel void vector_sizeof(__global int *out)
{
    out[0] = (int)sizeof(float3);
    out[1] = (int)sizeof(float4);
    out[2] = (int)sizeof(int3);
    out[3] = (int)sizeof(uchar3);
    out[4] = (int)sizeof(short3);
    out[5] = (int)sizeof(char16);
    out[6] = (int)sizeof(float8);
    out[7] = (int)sizeof(float16);
    out[8] = (int)sizeof(ulong2);
    out[9] = (int)sizeof(with_float3);
    with_float3 s;
    out[10] = (int)((__private char *)&s.b - (__private char *)&s);
    out[11] = (int)((__private char *)&s.c - (__private char *)&s);
    out[12] = (int)sizeof(int3[3]);
    __private float3 pair[2];
    out[13] = (int)((__private char *)&pair[1] - (__private char *)&pair[0]);
}

/* Reads an array of float3 (16-byte stride: the host lays it out as 4
 * floats per element) and writes another, computing with the three
 * components only. */
__kernel void float3_array(__global const float3 *in, __global float3 *out,
                           __global float *lengths, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float3 v = in[i];
    out[i] = v.zxy * 2.0f + (float3)(1.0f, 2.0f, 3.0f);
    lengths[i] = v.x * v.x + v.y * v.y + v.z * v.z;
}
