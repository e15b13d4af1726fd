/*
 * Vector literals and operators: (float4)(a, b, c, d), the broadcast
 * (float4)(x), literals assembled from smaller vectors ((int4)(v2, v2),
 * (float8)(f4, f2, x, y)), C brace initialisers (one scalar per
 * component, each converted), component-wise arithmetic, scalar-vector mixing,
 * and comparisons, which yield -1 (all bits set) for true in each
 * component and 0 for false.
 */

__kernel void literals(__global const float *in, __global float4 *out4,
                       __global float8 *out8, __global int4 *outi, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float a = in[4 * i], b = in[4 * i + 1], c = in[4 * i + 2], d = in[4 * i + 3];
    float4 v = (float4)(a, b, c, d);
    float4 splat = (float4)(c);
    float2 half_vector = (float2)(d, a);
    int2 pair = (int2)(i, -i);
    float4 braced = {d, a, 0, 0u};
    int4 steps = {1, 2.0f, 3u, (char)4};
    out4[3 * i] = v;
    out4[3 * i + 1] = splat;
    out4[3 * i + 2] = (float4)(half_vector, half_vector.y, 7.0f) + braced;
    out8[i] = (float8)(v, half_vector, a, 1.5f);
    outi[i] = (int4)(pair, pair) + steps;
}

__kernel void componentwise(__global const float4 *a, __global const float4 *b,
                            __global const int4 *p, __global const int4 *q,
                            __global float4 *fout, __global int4 *iout, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float4 x = a[i], y = b[i];
    int4 u = p[i], v = q[i];
    __global float4 *f = fout + 5 * i;
    f[0] = x + y;
    f[1] = x - y * 2.0f;          /* scalar broadcast */
    f[2] = x * y;
    f[3] = x / y;
    f[4] = -x + 1.0f;
    __global int4 *k = iout + 6 * i;
    k[0] = u * v + 3;
    k[1] = u / v;                 /* truncates toward zero per component */
    k[2] = u % v;
    k[3] = (u & v) | (u ^ 0x55);
    k[4] = u << 3 >> 1;
    k[5] = ~u;
}

/* Vector comparisons give int4 of -1/0; scalar comparisons give 1/0. */
__kernel void comparisons(__global const float4 *a, __global const float4 *b,
                          __global int4 *out, __global int *scalar_out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float4 x = a[i], y = b[i];
    __global int4 *r = out + 6 * i;
    r[0] = x < y;
    r[1] = x >= y;
    r[2] = x == y;
    r[3] = x != y;
    r[4] = (x > y) & (int4)(1, 2, 4, 8);   /* -1 masks select the constants */
    r[5] = x > 0.5f;                        /* compared with a broadcast */
    scalar_out[i] = (x.x < y.x) + (x.y < y.y) * 2;
}
