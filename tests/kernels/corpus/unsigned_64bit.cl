/*
 * Unsigned and 64-bit integers: wraparound on overflow (defined for
 * unsigned types), 64-bit products and shifts across the 32-bit boundary,
 * arithmetic right shift of negative longs, mixed uint/ulong promotion,
 * and the 64-bit integer built-ins.
 */

#define RESULTS 12

__kernel void ulong_ops(__global const ulong *a, __global const ulong *b,
                        __global const uint *shifts, __global ulong *out,
                        int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    ulong x = a[i], y = b[i];
    uint s = shifts[i] & 63u;
    __global ulong *r = out + RESULTS * i;
    r[0] = x + y;                 /* wraps mod 2^64 */
    r[1] = x - y;                 /* wraps below 0 */
    r[2] = x * y;                 /* low 64 bits */
    r[3] = x << s;
    r[4] = x >> s;
    r[5] = (ulong)((long)x >> s); /* arithmetic shift */
    r[6] = mul_hi(x, y);          /* high 64 bits of the 128-bit product */
    r[7] = (ulong)popcount(x);
    r[8] = (ulong)clz(x);
    r[9] = (uint)x * (uint)y;     /* 32-bit product, wraps, then widens */
    r[10] = (ulong)(uint)x * (uint)y; /* full 64-bit product */
    r[11] = rotate(x, (ulong)s);
}

__kernel void uint_wrap(__global const uint *a, __global const uint *b,
                        __global uint *out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    uint x = a[i], y = b[i];
    __global uint *r = out + 4 * i;
    r[0] = x + y;
    r[1] = x - y;
    r[2] = x * y;
    r[3] = (x > y) ? x - y : y - x;
}

/* OpenCL C (6.3) defines shifts by at least the operand's width: only the
 * low log2(width) bits of the count are used, so x << 33 on a uint is
 * x << 1.  Kept separate: it is a classic difference from C and CUDA. */
__kernel void shift_count_masked(__global const uint *a,
                                 __global const ulong *b,
                                 __global const uint *counts,
                                 __global uint *narrow_out,
                                 __global ulong *wide_out, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    uint count = counts[i];            /* 0..127 */
    narrow_out[2 * i] = a[i] << count;
    narrow_out[2 * i + 1] = a[i] >> count;
    wide_out[2 * i] = b[i] << (ulong)count;
    wide_out[2 * i + 1] = b[i] >> (ulong)count;
}
