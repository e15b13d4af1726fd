/*
 * Sum reductions in local memory, two ways: a static __local array
 * declared in the kernel, and a dynamic __local buffer passed as a kernel
 * argument (sized at launch).  Both share helper functions that take
 * __global and __local pointers; the tree reduction's barriers live in the
 * helper (every work-item of the group calls it).
 *
 * Each work-item first sums a grid-stride slice of the input; the result
 * is one partial sum per work-group.  Blocks must be a power of two, at
 * most STATIC_BLOCK for the static version.
 */

#define STATIC_BLOCK 256

float strided_sum(__global const float *in, size_t start, size_t stride,
                  size_t n)
{
    float acc = 0.0f;
    for (size_t i = start; i < n; i += stride)
        acc += in[i];
    return acc;
}

/* Leaves the sum of scratch[0 .. size) in scratch[0]. */
void tree_reduce(__local float *scratch, size_t lid, size_t size)
{
    for (size_t stride = size / 2; stride > 0; stride /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

void store_group_result(__global float *partials, __local const float *scratch)
{
    if (get_local_id(0) == 0)
        partials[get_group_id(0)] = scratch[0];
}

__kernel void reduce_static(__global const float *in, __global float *partials,
                            const uint n)
{
    __local float scratch[STATIC_BLOCK];
    size_t lid = get_local_id(0);
    scratch[lid] = strided_sum(in, get_global_id(0), get_global_size(0), n);
    tree_reduce(scratch, lid, get_local_size(0));
    store_group_result(partials, scratch);
}

__kernel void reduce_dynamic(__global const float *in, __global float *partials,
                             const uint n, __local float *scratch)
{
    size_t lid = get_local_id(0);
    scratch[lid] = strided_sum(in, get_global_id(0), get_global_size(0), n);
    tree_reduce(scratch, lid, get_local_size(0));
    store_group_result(partials, scratch);
}
