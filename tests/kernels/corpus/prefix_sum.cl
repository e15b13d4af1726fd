/*
 * Exclusive prefix sum (scan) of uints, work-efficient (up-sweep then
 * down-sweep) in a dynamic __local buffer: each work-group scans 2 * its
 * size elements and reports its block total; the totals are scanned by the
 * same kernel, and a second kernel adds each block's offset.  uint sums
 * wrap modulo 2^32 as on the host.
 */

__kernel void scan_blocks(__global const uint *in, __global uint *out,
                          __global uint *block_totals, const uint n,
                          __local uint *temp)
{
    const uint lid = (uint)get_local_id(0);
    const uint size = 2u * (uint)get_local_size(0);
    const uint base = (uint)get_group_id(0) * size;
    temp[2 * lid] = base + 2 * lid < n ? in[base + 2 * lid] : 0u;
    temp[2 * lid + 1] = base + 2 * lid + 1 < n ? in[base + 2 * lid + 1] : 0u;

    uint offset = 1;
    for (uint active = size / 2; active > 0; active /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < active) {
            uint left = offset * (2 * lid + 1) - 1;
            uint right = offset * (2 * lid + 2) - 1;
            temp[right] += temp[left];
        }
        offset *= 2;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        block_totals[get_group_id(0)] = temp[size - 1];
        temp[size - 1] = 0;
    }
    for (uint active = 1; active < size; active *= 2) {
        offset /= 2;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < active) {
            uint left = offset * (2 * lid + 1) - 1;
            uint right = offset * (2 * lid + 2) - 1;
            uint carried = temp[left];
            temp[left] = temp[right];
            temp[right] += carried;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (base + 2 * lid < n)
        out[base + 2 * lid] = temp[2 * lid];
    if (base + 2 * lid + 1 < n)
        out[base + 2 * lid + 1] = temp[2 * lid + 1];
}

/* out[i] += offsets[block of i], blocks of `block_elements`. */
__kernel void add_block_offsets(__global uint *out,
                                __global const uint *offsets,
                                const uint block_elements, const uint n)
{
    uint i = (uint)get_global_id(0);
    if (i < n)
        out[i] += offsets[i / block_elements];
}
