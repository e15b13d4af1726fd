/*
 * Bitonic sort of 2^p ints (the host pads with INT_MAX).  The kernel
 * local_bitonic sorts chunks of 2 * block keys in __local memory through
 * every stage up to the chunk size, alternating direction by the global
 * position so that neighbouring chunks form bitonic sequences; the larger
 * stages run one launch per step with global_step.
 */

void compare_exchange(__local int *keys, uint i, uint j, bool ascending)
{
    int a = keys[i], b = keys[j];
    if ((a > b) == ascending) {
        keys[i] = b;
        keys[j] = a;
    }
}

__kernel void local_bitonic(__global int *data, __local int *keys)
{
    const uint lid = (uint)get_local_id(0);
    const uint chunk = 2u * (uint)get_local_size(0);
    const uint base = (uint)get_group_id(0) * chunk;
    keys[lid] = data[base + lid];
    keys[lid + chunk / 2] = data[base + lid + chunk / 2];
    for (uint size = 2; size <= chunk; size *= 2) {
        for (uint stride = size / 2; stride > 0; stride /= 2) {
            barrier(CLK_LOCAL_MEM_FENCE);
            uint i = 2 * stride * (lid / stride) + lid % stride;
            bool ascending = ((base + i) & size) == 0;
            compare_exchange(keys, i, i + stride, ascending);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    data[base + lid] = keys[lid];
    data[base + lid + chunk / 2] = keys[lid + chunk / 2];
}

/* One step (size, stride) of the network over the whole array: one
 * work-item per compared pair. */
__kernel void global_step(__global int *data, const uint size, const uint stride)
{
    uint pair = (uint)get_global_id(0);
    uint i = 2 * stride * (pair / stride) + pair % stride;
    uint j = i + stride;
    bool ascending = (i & size) == 0;
    int a = data[i], b = data[j];
    if ((a > b) == ascending) {
        data[i] = b;
        data[j] = a;
    }
}
