/*
 * as_<type>: reinterpreting bits without conversion, between types of the
 * same size (both host and devices are little-endian, so byte views are
 * predictable): float <-> uint, float4 <-> int4, uint -> uchar4,
 * int -> short2, float2 -> ulong, and bit tricks built on them.
 */

__kernel void reinterpret_bits(__global const float *in, __global uint *bits,
                               __global float *floats, __global uchar4 *bytes,
                               __global short2 *halves, __global ulong *pairs,
                               __global int4 *ints4, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float f = in[i];
    uint u = as_uint(f);
    bits[i] = u;
    /* |f| and -f by bit manipulation, and back */
    floats[2 * i] = as_float(u & 0x7FFFFFFFu);
    floats[2 * i + 1] = as_float(u ^ 0x80000000u);
    bytes[i] = as_uchar4(u);
    halves[i] = as_short2((int)u);
    pairs[i] = as_ulong((float2)(f, -f));
    ints4[i] = as_int4(vload4(i / 4, in));
}
