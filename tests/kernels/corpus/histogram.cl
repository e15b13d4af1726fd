/*
 * A 256-bin histogram of bytes: each work-group counts into its own
 * __local bins with atomic_inc, then merges them into the global
 * histogram with atomic_add.  Each work-item reads several bytes
 * (grid-stride loop).
 */

#define BINS 256

__kernel void byte_histogram(__global const uchar *data, const uint n,
                             __global uint *histogram)
{
    __local uint bins[BINS];
    for (uint b = get_local_id(0); b < BINS; b += get_local_size(0))
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint b = get_local_id(0); b < BINS; b += get_local_size(0))
        if (bins[b] != 0)
            atomic_add(&histogram[b], bins[b]);
}
