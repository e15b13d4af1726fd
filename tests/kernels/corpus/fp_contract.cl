/*
 * #pragma OPENCL FP_CONTRACT OFF: no a*b+c may become one fused
 * multiply-add, so each product and each sum is rounded on its own and the
 * results equal the CPU's unfused float arithmetic bit for bit.
 */
#pragma OPENCL FP_CONTRACT OFF

kernel void unfused(global const float *a, global const float *b,
                    global const float *c, global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = a[i] * b[i] + c[i];
    out[n + i] = a[i] * b[i] - c[i] * a[i];
    /* A running sum of products, the shape compilers fuse first. */
    float sum = 0.0f;
    for (int k = 0; k < 8; ++k)
        sum = sum + a[(i + k) % n] * b[(i + 3 * k) % n];
    out[2 * n + i] = sum;
    float4 va = (float4)(a[i], b[i], c[i], a[i]);
    float4 vb = (float4)(c[i], a[i], b[i], b[i]);
    float4 v = va * vb + vb;
    out[3 * n + i] = v.x + v.y * v.w;
}
