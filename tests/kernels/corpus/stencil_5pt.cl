/*
 * A 2-D 5-point stencil, out = centre * u(x, y) + neighbour * (the four
 * neighbours), with the block's tile and its one-cell halo staged in a
 * __local array.  Cells outside the grid take the nearest edge value
 * (clamped coordinates); blocks past the edge still load and reach the
 * barrier, and only in-grid work-items store.
 */

#define TILE_X 16
#define TILE_Y 16

__kernel __attribute__((reqd_work_group_size(TILE_X, TILE_Y, 1)))
void stencil_5pt(__global const float *in, __global float *out,
                 const int width, const int height, const float centre,
                 const float neighbour)
{
    __local float tile[TILE_Y + 2][TILE_X + 2];
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int gx = (int)get_global_id(0), gy = (int)get_global_id(1);
    const int x0 = (int)get_group_id(0) * TILE_X - 1;
    const int y0 = (int)get_group_id(1) * TILE_Y - 1;
    for (int k = ly * TILE_X + lx; k < (TILE_X + 2) * (TILE_Y + 2);
         k += TILE_X * TILE_Y) {
        int tx = k % (TILE_X + 2), ty = k / (TILE_X + 2);
        int sx = clamp(x0 + tx, 0, width - 1);
        int sy = clamp(y0 + ty, 0, height - 1);
        tile[ty][tx] = in[sy * width + sx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gx < width && gy < height) {
        float sum = tile[ly][lx + 1] + tile[ly + 2][lx + 1] +
                    tile[ly + 1][lx] + tile[ly + 1][lx + 2];
        out[gy * width + gx] = centre * tile[ly + 1][lx + 1] + neighbour * sum;
    }
}
