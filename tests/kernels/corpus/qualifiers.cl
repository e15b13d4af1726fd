/*
 * Qualifiers: restrict and const on pointer parameters, const value
 * parameters, explicit __private, volatile global and local memory (of
 * scalars and of whole vectors), the unprefixed spellings (global, local,
 * constant, kernel) and the GNU spelling __const.
 */

__kernel void scale_restrict(__global const float *restrict in,
                             __global float *restrict out, const float factor,
                             const int n)
{
    const int i = (int)get_global_id(0);
    __private float value;
    if (i < n) {
        value = in[i];
        out[i] = value * factor;
    }
}

/* Each work-item writes its value through a volatile local array, and reads
 * its neighbour's after the barrier; the running total is kept in a
 * volatile private variable and written through a volatile global pointer.
 * The block is 64 work-items. */
kernel void volatile_neighbours(global const int *in, volatile global int *out,
                                local volatile int *scratch)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    const size_t gid = get_global_id(0);
    scratch[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    volatile int total = scratch[lid];
    total += scratch[(lid + 1) % size];
    total += scratch[(lid + size - 1) % size];
    out[gid] = total;
}

constant int weights[4] = {1, -2, 3, -4};

kernel void const_locals(global const int *restrict in, global int *restrict out)
{
    const size_t gid = get_global_id(0);
    const int base = in[gid];
    int acc = 0;
    for (int k = 0; k < 4; ++k)
        acc += weights[k] * (base + k);
    out[gid] = acc;
}

/* Whole vectors through a volatile pointer, both ways. */
kernel void volatile_vectors(global __const int4 *in, volatile global int4 *out)
{
    const size_t gid = get_global_id(0);
    out[gid] = in[gid];
    int4 back = out[gid];
    out[gid] = back.wzyx + (int4)(1, 2, 3, 4);
}
