/*
 * Relational and selection built-ins: select (scalar: by non-zero, vector:
 * by the most significant bit of each component), bitselect, any and all
 * (by the most significant bit), isnan / isinf / isfinite / signbit
 * (scalar: 1, vector: -1 for true), and the min/max of comparisons.
 */

__kernel void selections(__global const float4 *a, __global const float4 *b,
                         __global const int4 *masks, __global float4 *fout,
                         __global int4 *iout, __global int *scalar_out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float4 x = a[i], y = b[i];
    int4 m = masks[i];
    __global float4 *f = fout + 3 * i;
    f[0] = select(x, y, m);                 /* y where m's sign bit is set */
    f[1] = select(x, y, x < y);             /* component-wise maximum */
    f[2] = bitselect(x, y, as_float4(m));   /* bit by bit */
    __global int4 *k = iout + 2 * i;
    k[0] = select(m, ~m, m > 0);
    k[1] = bitselect(m, (int4)(0x0F0F0F0F), (int4)(0x00FF00FF));
    __global int *s = scalar_out + 5 * i;
    s[0] = any(m);
    s[1] = all(m);
    s[2] = any(x > y);
    s[3] = all(x < 1.0e30f);
    s[4] = select(7, -7, m.x);              /* scalar: non-zero picks -7 */
}

__kernel void classify(__global const float *in, __global int *scalar_out,
                       __global int4 *vector_out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float v = in[i];
    __global int *s = scalar_out + 4 * i;
    s[0] = isnan(v);
    s[1] = isinf(v);
    s[2] = isfinite(v);
    s[3] = signbit(v);
    float4 w = vload4(i / 4, in);
    __global int4 *r = vector_out + 3 * i;
    r[0] = isnan(w);
    r[1] = isinf(w);
    r[2] = isnotequal(w, w);
}
