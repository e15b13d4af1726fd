/* First pass of a radix sort: per-group digit histograms. */
#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)
#define RADIX_MASK (RADIX - 1)
#define GROUP 128

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void radix_count(__global const uint *keys, __global uint *histograms,
                 uint count, uint shift)
{
    __local uint bins[RADIX];
    uint lid = get_local_id(0);
    if (lid < RADIX)
        bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < count; i += get_global_size(0)) {
        uint digit = (keys[i] >> shift) & RADIX_MASK;
        atomic_inc(&bins[digit]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < RADIX)
        histograms[lid * get_num_groups(0) + get_group_id(0)] = bins[lid];
}

__kernel void bit_tricks(__global uint *data, __global ulong *wide, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    uint v = data[i];
    uint reversed = 0;
    for (int b = 0; b < 32; ++b)
        reversed |= ((v >> b) & 1u) << (31 - b);
    data[i] = reversed ^ rotate(v, (uint)i) ^ popcount(v) ^ clz(v);
    ulong w = upsample(v, reversed);
    wide[i] = (w << (i & 63)) | mul_hi(w, (ulong)v) | (w >> 40);
}
