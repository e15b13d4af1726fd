/*
 * Matrix transpose through a __local tile padded by one column
 * (TILE x TILE+1): reading a tile column then touches TILE different
 * local-memory banks instead of one.  Loads and stores stay coalesced;
 * edges of sizes that are not multiples of TILE are guarded.  Built with
 * -DTILE=32 it is the 32x32 transpose (tile[32][33], blocks of 1024
 * threads) that NVIDIA's OpenCL runs although it reports a work-group
 * limit of 256 for it: Kiln must leave that launch to the driver.
 */

#ifndef TILE
#define TILE 16
#endif

__kernel void transpose_padded(__global const float *in, __global float *out,
                               const int width, const int height)
{
    __local float tile[TILE][TILE + 1];
    int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    int x = (int)get_group_id(0) * TILE + lx;
    int y = (int)get_group_id(1) * TILE + ly;
    if (x < width && y < height)
        tile[ly][lx] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the transposed block: group (gx, gy) writes block (gy, gx) */
    x = (int)get_group_id(1) * TILE + lx;
    y = (int)get_group_id(0) * TILE + ly;
    if (x < height && y < width)
        out[y * height + x] = tile[lx][ly];
}
