// Separable convolution, row pass, with a __constant filter argument and
// a halo in local memory; int2 coordinates and clamp-to-edge reads.
#define RADIUS 8
#define BLOCK_W 16
#define BLOCK_H 4

__kernel void convolve_rows(__global float *dst, __global const float *src,
                            __constant float *filter, int width, int height)
{
    __local float tile[BLOCK_H][BLOCK_W * 3];
    const int2 lid = (int2)(get_local_id(0), get_local_id(1));
    const int2 base = (int2)(get_group_id(0) * BLOCK_W - BLOCK_W,
                             get_group_id(1) * BLOCK_H);
    const int y = min(base.y + lid.y, height - 1);
    for (int k = 0; k < 3; ++k) {
        int x = clamp(base.x + lid.x + k * BLOCK_W, 0, width - 1);
        tile[lid.y][lid.x + k * BLOCK_W] = src[y * width + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (int j = -RADIUS; j <= RADIUS; ++j)
        sum = mad(filter[RADIUS + j], tile[lid.y][lid.x + BLOCK_W + j], sum);
    int2 out = base + lid + (int2)(BLOCK_W, 0);
    if (out.x < width && out.y < height)
        dst[out.y * width + out.x] = sum;
}

__kernel void rgba_to_gray(__global const uchar *rgba, __global float *gray,
                           int pixels)
{
    int i = get_global_id(0);
    if (i >= pixels) return;
    float4 p = convert_float4(vload4(i, rgba)) / 255.0f;
    gray[i] = dot(p.xyz, (float3)(0.299f, 0.587f, 0.114f));
}
