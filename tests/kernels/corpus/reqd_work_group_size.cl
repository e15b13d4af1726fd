/*
 * reqd_work_group_size: the kernel declares it needs blocks of exactly
 * 64x1x1 (and sizes its local array by it); a launch with another block
 * must be refused before it runs.
 */

#define BLOCK 64

__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void block_reverse(__global const float *in, __global float *out)
{
    __local float tile[BLOCK];
    size_t lid = get_local_id(0);
    size_t base = get_group_id(0) * BLOCK;
    tile[lid] = in[base + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + lid] = tile[BLOCK - 1 - lid];
}

/* 2-D form: 8x4x1. */
__kernel __attribute__((reqd_work_group_size(8, 4, 1)))
void block_ids_2d(__global int *out)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    out[y * get_global_size(0) + x] =
        (int)(get_local_id(1) * get_local_size(0) + get_local_id(0));
}
