/*
 * native_* and half_* functions: implementation-defined (native_) or
 * reduced (half_: about 8192 ulp) precision, so the host compares with
 * loose tolerances on the domains where these are meant to be used.
 *   x in [0.1, 10], a in [-pi, pi]
 */

#define NATIVE_RESULTS 10
#define HALF_RESULTS 10

__kernel void native_functions(__global const float *xs, __global const float *as,
                               __global float *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float x = xs[i], a = as[i];
    __global float *r = out + NATIVE_RESULTS * i;
    r[0] = native_sin(a);
    r[1] = native_cos(a);
    r[2] = native_exp(a);
    r[3] = native_log(x);
    r[4] = native_sqrt(x);
    r[5] = native_rsqrt(x);
    r[6] = native_recip(x);
    r[7] = native_divide(a, x);
    r[8] = native_powr(x, a);
    r[9] = native_exp2(a);
}

__kernel void half_functions(__global const float *xs, __global const float *as,
                             __global float *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float x = xs[i], a = as[i];
    __global float *r = out + HALF_RESULTS * i;
    r[0] = half_sin(a);
    r[1] = half_cos(a);
    r[2] = half_exp(a);
    r[3] = half_log(x);
    r[4] = half_sqrt(x);
    r[5] = half_rsqrt(x);
    r[6] = half_recip(x);
    r[7] = half_divide(a, x);
    r[8] = half_powr(x, a);
    r[9] = half_log2(x);
}
