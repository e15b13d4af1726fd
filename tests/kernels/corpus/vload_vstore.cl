/*
 * vloadN / vstoreN for N = 2, 3, 4, 8, 16: element i of the vector view
 * starts at p + N * i with only the scalar's alignment (vload3 reads 3
 * packed floats, not a 16-byte float3).  Also from __local and __constant
 * memory, at odd scalar offsets, and on integer types.
 */

__kernel void float_vectors(__global const float *in, __global float *out2,
                            __global float *out3, __global float *out4,
                            __global float *out8, __global float *out16,
                            int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float2 a = vload2(i, in);
    float3 b = vload3(i, in);
    float4 c = vload4(i, in);
    float8 d = vload8(i, in);
    float16 e = vload16(i, in);
    vstore2(a * 2.0f, i, out2);
    vstore3(b + (float3)(1.0f, 2.0f, 3.0f), i, out3);
    vstore4(c.wzyx, i, out4);
    vstore8(d - 1.0f, i, out8);
    vstore16(e * e, i, out16);
}

/* Unaligned views: the pointer is offset by one float, so the vectors sit
 * at 4-byte boundaries only. */
__kernel void unaligned_vectors(__global const float *in, __global float *out,
                                int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    float4 v = vload4(i, in + 1);
    vstore4(v + 0.5f, i, out + 1);
}

/* Through local memory and from a __constant argument. */
__kernel void local_and_constant(__global const int *in, __constant int *bias,
                                 __global int *out, __local int *scratch)
{
    size_t lid = get_local_id(0);
    size_t gid = get_global_id(0);
    int3 v = vload3(gid, in);
    vstore3(v, lid, scratch);
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t other = get_local_size(0) - 1 - lid;
    int3 w = vload3(other, scratch) + vload3(0, bias);
    vstore3(w, gid, out);
}

/* Narrow types: uchar8 in, ushort4 and short2 out. */
__kernel void narrow_vectors(__global const uchar *bytes, __global ushort *halves,
                             __global short *pairs, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    uchar8 b = vload8(i, bytes);
    ushort4 h = convert_ushort4(b.lo) * (ushort)300 + convert_ushort4(b.hi);
    vstore4(h, i, halves);
    short2 s = (short2)((short)b.s0 - (short)b.s7, (short)b.s3 - 128);
    vstore2(s, i, pairs);
}
