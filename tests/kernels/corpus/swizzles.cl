/*
 * Swizzles as r-values and l-values: .xy .zw .wzyx .s0 .. .sF (either case),
 * .lo .hi .even .odd, repeated components on the right-hand side, and
 * swizzles of swizzles.
 */

__kernel void swizzle_read(__global const float4 *in4, __global const float16 *in16,
                           __global float4 *out4, __global float8 *out8,
                           __global float2 *out2, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float4 v = in4[i];
    float16 w = in16[i];
    __global float4 *r4 = out4 + 6 * i;
    r4[0] = v.wzyx;
    r4[1] = (float4)(v.xy, v.zw);
    r4[2] = v.xxyy + v.s3210;
    r4[3] = (float4)(w.s0, w.s9, w.sA, w.sF);
    r4[4] = (float4)(w.lo.hi.lo, w.hi.even.odd); /* s4 s5 | sA sE */
    r4[5] = w.sfedc + w.S0123;
    __global float8 *r8 = out8 + 4 * i;
    r8[0] = w.lo;
    r8[1] = w.hi;
    r8[2] = w.even;
    r8[3] = w.odd;
    __global float2 *r2 = out2 + 4 * i;
    r2[0] = v.lo;
    r2[1] = v.hi;
    r2[2] = v.even;
    r2[3] = v.odd.yx;
}

__kernel void swizzle_write(__global const float4 *in4, __global const float16 *in16,
                            __global float4 *out4, __global float16 *out16,
                            int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float4 v = in4[i];
    float4 a = (float4)(0.0f);
    a.wzyx = v;                        /* reversed */
    float4 b = v;
    b.xy = v.zw;                       /* low half from the high half */
    b.w = -v.x;
    float4 c = (float4)(1.0f);
    c.lo = v.hi;
    c.odd = v.even * 2.0f;
    float4 d = v;
    d.s31 = (float2)(10.0f, 20.0f);
    out4[4 * i] = a;
    out4[4 * i + 1] = b;
    out4[4 * i + 2] = c;
    out4[4 * i + 3] = d;

    float16 w = in16[i];
    float16 z = (float16)(0.0f);
    z.even = w.odd;
    z.odd = w.even;
    z.sF = 100.0f;
    z.s7 += 1.0f;
    z.hi.lo = w.lo.lo;                 /* s8..sB = w.s0..s3 */
    out16[i] = z;
}

/* Integer vectors swizzle the same way. */
__kernel void swizzle_int(__global const int8 *in, __global int8 *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int8 v = in[i];
    int8 r;
    r.s0123 = v.s7654;
    r.s4567 = v.lo.wzyx;
    r.s0 += v.s7 * 2;
    out[i] = r;
}
