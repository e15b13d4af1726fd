/* Mandelbrot with colour output, 2-D range, uchar4 pixels. */
#define MAX_ITER 256

uchar4 palette(int iterations)
{
    if (iterations >= MAX_ITER)
        return (uchar4)(0, 0, 0, 255);
    float t = (float)iterations / MAX_ITER;
    float3 c = (float3)(9.0f * (1 - t) * t * t * t,
                        15.0f * (1 - t) * (1 - t) * t * t,
                        8.5f * (1 - t) * (1 - t) * (1 - t) * t);
    return convert_uchar4_sat((float4)(c * 255.0f, 255.0f));
}

__kernel void mandelbrot(__global uchar4 *out, int width, int height,
                         float x0, float y0, float scale)
{
    int px = get_global_id(0), py = get_global_id(1);
    if (px >= width || py >= height) return;
    float2 c = (float2)(x0 + px * scale, y0 + py * scale);
    float2 z = 0.0f;
    int i = 0;
    while (i < MAX_ITER && dot(z, z) < 4.0f) {
        z = (float2)(z.x * z.x - z.y * z.y, 2.0f * z.x * z.y) + c;
        ++i;
    }
    out[py * width + px] = palette(i);
}
