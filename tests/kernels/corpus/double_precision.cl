/*
 * Double precision (cl_khr_fp64): arithmetic, math built-ins, conversions
 * to and from float and long, double vectors, and a reduction in local
 * memory.  The host skips it on devices without doubles.
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void daxpy(const double alpha, __global const double *x,
                    __global double *y, int n)
{
    int i = (int)get_global_id(0);
    if (i < n)
        y[i] = alpha * x[i] + y[i];
}

#define DOUBLE_RESULTS 8

__kernel void double_math(__global const double *x, __global double *out,
                          __global float *narrowed, __global long *truncated,
                          int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    double v = x[i]; /* in [0.5, 100) */
    __global double *r = out + DOUBLE_RESULTS * i;
    r[0] = sqrt(v);
    r[1] = exp(v / 16.0);
    r[2] = log(v);
    r[3] = sin(v);
    r[4] = pow(v, 1.5);
    r[5] = fma(v, v, -1.0);
    r[6] = 1.0 / v;
    r[7] = (double)(float)v - v; /* float rounding error, exactly */
    narrowed[i] = convert_float(v * 1.0e10);
    truncated[i] = convert_long(v * 1.0e12);
}

/* Sums each block into one double through local memory. */
__kernel void double_block_sum(__global const double2 *in, __global double *sums,
                               __local double *scratch)
{
    size_t lid = get_local_id(0);
    double2 pair = in[get_global_id(0)];
    scratch[lid] = pair.x + pair.y;
    for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}
