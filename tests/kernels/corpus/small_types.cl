/*
 * uchar and ushort (and signed char/short) in storage: arithmetic promotes
 * them to int, so products and sums do not wrap until they are stored back
 * into the narrow type.
 */

__kernel void narrow_arithmetic(__global const uchar *a, __global const uchar *b,
                                __global const ushort *c,
                                __global ushort *products,  /* a*b, no wrap   */
                                __global uchar *sums,       /* a+b, wraps     */
                                __global int *differences,  /* a-b, negative  */
                                __global int *shifted,      /* (a<<4)>>4 == a */
                                __global uint *wide,        /* c*c as uint    */
                                __global int *wrapped_flags, /* (uchar)(a+b) < a */
                                __global short *signed_bytes, /* (char)a      */
                                __global ushort *ushort_sums, /* c + b wraps  */
                                int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    uchar x = a[i], y = b[i];
    ushort z = c[i];
    products[i] = x * y;
    sums[i] = x + y;
    differences[i] = x - y;
    shifted[i] = (x << 4) >> 4;
    wide[i] = (uint)z * z;
    uchar sum = x + y;
    wrapped_flags[i] = sum < x;
    signed_bytes[i] = (char)x;
    ushort_sums[i] = (ushort)(z + (ushort)(y * 200));
}

/* Narrow loads and stores next to each other: each work-item writes one
 * byte, so neighbouring bytes must stay intact (byte-addressable stores). */
__kernel void byte_increment(__global uchar *bytes, __global ushort *halves,
                             int n)
{
    int i = (int)get_global_id(0);
    if (i < n) {
        bytes[i] = (uchar)(bytes[i] + 1);
        halves[i] = (ushort)(halves[i] * 3);
    }
}
