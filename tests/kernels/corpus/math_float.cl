/*
 * Single-precision math built-ins against a double-precision reference on
 * the host.  Each work-item computes every function of its inputs; the
 * host knows the order below (keep the two in step).
 *   x in (0.01, 100), y in (-4, 4), z in (-100, 100), t in [0, 1]
 */

#define MATH_RESULTS 31

__kernel void math_functions(__global const float *xs, __global const float *ys,
                             __global const float *zs, __global const float *ts,
                             __global float *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float x = xs[i], y = ys[i], z = zs[i], t = ts[i];
    __global float *r = out + MATH_RESULTS * i;
    r[0] = sqrt(x);
    r[1] = rsqrt(x);
    r[2] = exp(y);
    r[3] = log(x);
    r[4] = pow(x, y);
    r[5] = fma(z, y, x);
    r[6] = mad(z, y, x);
    r[7] = hypot(z, y);
    r[8] = sin(z);
    r[9] = cos(z);
    r[10] = clamp(z, -10.0f, 25.0f);
    r[11] = mix(z, y, t);
    r[12] = step(y, z);
    r[13] = smoothstep(-50.0f, 50.0f, z);
    r[14] = sign(z);
    r[15] = fmin(z, y);
    r[16] = fmax(z, y);
    r[17] = floor(z);
    r[18] = ceil(z);
    r[19] = round(z);
    r[20] = trunc(z);
    r[21] = fmod(z, y);
    r[22] = copysign(x, z);
    r[23] = fabs(z);
    r[24] = exp2(y);
    r[25] = log2(x);
    r[26] = tan(y / 4.0f);
    r[27] = atan2(z, y);
    r[28] = cbrt(z);
    r[29] = fmin(x, z) + fmax(t, 0.5f); /* mixed arguments */
    r[30] = sin(x) * cos(x);
}

/* The same functions on float4: each component must match the scalar. */
__kernel void math_vector(__global const float4 *xs, __global const float4 *zs,
                          __global float4 *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float4 x = xs[i], z = zs[i];
    __global float4 *r = out + 6 * i;
    r[0] = sqrt(x);
    r[1] = exp(z / 32.0f);
    r[2] = clamp(z, -10.0f, 25.0f);
    r[3] = mix(x, z, 0.25f);
    r[4] = fmax(x, z);
    r[5] = sin(z);
}
