/*
 * printf from a kernel: two work-items print (as TAP comment lines, so
 * the test log stays valid TAP), every work-item writes a result so that
 * the host can tell the kernel ran.  The output itself is not captured.
 */

__kernel void print_values(__global const int *in, __global int *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    if (i < 2)
        printf("# kernel printf: item %d of %d, value %d, %u, %ld, %.2f, %s, %c, 0x%x\n",
               i, n, in[i], (uint)in[i] * 2u, (long)in[i] * 1000000000L,
               (float)in[i] / 4.0f, "text", 'k', 0xbeef);
    out[i] = in[i] + 1;
}
