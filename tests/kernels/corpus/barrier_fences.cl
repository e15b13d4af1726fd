/*
 * Barriers with both fences, CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE:
 * work-items of a group exchange values through global and local memory
 * in the same step, then again through global memory alone.  mem_fence,
 * read_mem_fence and write_mem_fence order one work-item's accesses.
 */

__kernel void exchange(__global const int *in, __global int *scratch,
                       __global int *out, __global int *second,
                       __local int *mirror)
{
    const size_t lid = get_local_id(0);
    const size_t size = get_local_size(0);
    const size_t gid = get_global_id(0);
    const size_t base = gid - lid;
    int value = in[gid];
    scratch[gid] = value * 3 + 1;
    mirror[lid] = value ^ 0x5A5A;
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    out[gid] = scratch[base + size - 1 - lid] - mirror[(lid + 1) % size];
    mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE);
    read_mem_fence(CLK_GLOBAL_MEM_FENCE);
    second[gid] = out[base + (lid + 3) % size];
}
