/*
 * Kernels for tests/compare-check: kiln-compare runs them on two sides and
 * must report a match, unless one side is built with -DBREAK=1, which
 * changes what `axpb` writes (and only that kernel).
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void axpb(__global const float *x, __global float *y, float a,
                   int n)
{
    int i = get_global_id(0);
    if (i < n) {
#ifdef BREAK
        y[i] = a * x[i] + y[i] + 0.5f;
#else
        y[i] = a * x[i] + y[i];
#endif
    }
}

/* Integer inputs in [0, 256) index the histogram safely. */
__kernel void histogram(__global const uchar *values, __global uint *bins,
                        int n)
{
    int i = get_global_id(0);
    if (i < n)
        atomic_inc(&bins[values[i]]);
}

__kernel void block_sums(__global const int4 *in, __global int *out,
                         __local int *scratch)
{
    size_t lid = get_local_id(0);
    int4 v = in[get_global_id(0)];
    scratch[lid] = v.x + v.y + v.z + v.w;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t step = get_local_size(0) / 2; step > 0; step /= 2) {
        if (lid < step)
            scratch[lid] += scratch[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}

__kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void fixed_group(__global float3 *p, __global double *d, ulong scale)
{
    size_t i = get_global_id(0);
    p[i] = p[i] * 2.0f + (float3)(1.0f, 2.0f, 3.0f);
    /* Reads a part of d that no work-item writes (d has 16 elements per
     * work-item): reading d[i + 1] would race with work-item i + 1. */
    d[i] = d[i] * (double)scale + sqrt(fabs(d[i + get_global_size(0)]));
}
