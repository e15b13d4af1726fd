/*
 * __constant memory: program-scope tables (scalars, vectors and a 2-D
 * table, initialised at compile time) and __constant pointer arguments
 * backed by buffers the host fills.
 */

__constant float horner_coefficients[6] = {0.5f, -1.25f, 2.0f, 0.75f, -0.125f,
                                           0.0625f};

__constant float4 palette[4] = {
    (float4)(1.0f, 0.0f, 0.0f, 1.0f),
    (float4)(0.0f, 1.0f, 0.0f, 0.5f),
    (float4)(0.0f, 0.0f, 1.0f, 0.25f),
    (float4)(0.5f, 0.5f, 0.5f, 0.0f),
};

__constant int lookup[3][4] = {
    {2, 3, 5, 7},
    {11, 13, 17, 19},
    {23, 29, 31, 37},
};

/* p(x) = c0 + c1 x + ... + c5 x^5 by Horner's rule over the table. */
__kernel void polynomial(__global const float *x, __global float *y, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float v = x[i];
    float acc = horner_coefficients[5];
    for (int k = 4; k >= 0; --k)
        acc = acc * v + horner_coefficients[k];
    y[i] = acc;
}

/* Mixes palette colours and adds a prime from the 2-D table. */
__kernel void palette_lookup(__global const int *index, __global float4 *colour,
                             __global int *prime, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int k = index[i];
    colour[i] = palette[k & 3] * 0.5f + palette[(k >> 2) & 3];
    prime[i] = lookup[k % 3][(k / 3) % 4];
}

/* A 1-D convolution whose taps arrive as a __constant pointer argument. */
__kernel void convolve(__global const float *signal, __constant float *taps,
                       const int tap_count, __global float *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int t = 0; t < tap_count; ++t) {
        int j = i + t - tap_count / 2;
        if (j >= 0 && j < n)
            acc += taps[t] * signal[j];
    }
    out[i] = acc;
}
