/*
 * Elementwise kernels: one work-item per element, guarded against the
 * rounded-up global size.
 */

__kernel void saxpy(const float alpha, __global const float *x,
                    __global float *y, const uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = alpha * x[i] + y[i];
}

/* A branchy float kernel: leaky ReLU followed by a scale. */
__kernel void leaky_relu(__global const float *in, __global float *out,
                         float slope, float scale, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float v = in[i];
    out[i] = (v > 0.0f ? v : slope * v) * scale;
}

/* Integer elementwise arithmetic with bit operations; inputs stay within
 * +-1e6, so nothing overflows. */
__kernel void int_combine(__global const int *a, __global const int *b,
                          __global int *out, int n)
{
    int i = (int)get_global_id(0);
    if (i < n) {
        int x = a[i], y = b[i];
        out[i] = ((x * 3 - y) ^ (x >> 2)) | (y & 0xF0);
    }
}
