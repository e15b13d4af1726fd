/*
 * Three dynamic __local arguments of different element types (float, int,
 * float4), so their slices of local memory have different sizes and
 * alignments.  Each work-group reduces them together and writes
 * (sum of a, sum of b, max of a, sum of the float4 a * (1, 2, 3, 4) as
 * one number) for the host.
 */

__kernel void three_locals(__global const float *a, __global const int *b,
                           __global float4 *out, __local float *sums,
                           __local int *counts, __local float4 *vectors)
{
    size_t lid = get_local_id(0);
    size_t gid = get_global_id(0);
    float value = a[gid];
    sums[lid] = value;
    counts[lid] = b[gid];
    vectors[lid] = (float4)(value, value, value, value) *
                   (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    /* the running maximum rides in the w component: w of vectors is
     * replaced by the value itself */
    vectors[lid].w = value;
    for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < stride) {
            sums[lid] += sums[lid + stride];
            counts[lid] += counts[lid + stride];
            float4 mine = vectors[lid], other = vectors[lid + stride];
            mine.xyz += other.xyz;
            mine.w = fmax(mine.w, other.w);
            vectors[lid] = mine;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        float4 v = vectors[0];
        out[get_group_id(0)] =
            (float4)(sums[0], (float)counts[0], v.w, v.x + v.y + v.z);
    }
}
