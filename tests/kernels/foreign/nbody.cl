// N-body step in the style of vendor SDK samples: float4 positions with
// mass in .w, a local tile of bodies, rsqrt, unrolled inner loop.
#define SOFTENING 0.01f
#ifndef TILE
#define TILE 64
#endif

inline float4 body_interaction(float4 bi, float4 bj, float4 acc)
{
    float4 r;
    r.xyz = bj.xyz - bi.xyz;
    float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING;
    float inv = rsqrt(dist2);
    float inv3 = inv * inv * inv;
    float s = bj.w * inv3;
    acc.xyz += r.xyz * s;
    return acc;
}

__kernel void integrate(__global float4 *restrict pos_new,
                        __global float4 *restrict vel,
                        __global const float4 *restrict pos_old,
                        const int n, const float dt,
                        __local float4 *shared_pos)
{
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);
    const int lsize = get_local_size(0);
    float4 my = gid < n ? pos_old[gid] : (float4)(0.0f);
    float4 acc = (float4)(0.0f, 0.0f, 0.0f, 0.0f);
    for (int tile = 0; tile < n; tile += lsize) {
        int j = tile + lid;
        shared_pos[lid] = j < n ? pos_old[j] : (float4)(0.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 4
        for (int k = 0; k < lsize; ++k)
            acc = body_interaction(my, shared_pos[k], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (gid < n) {
        float4 v = vel[gid];
        v.xyz += acc.xyz * dt;
        my.xyz += v.xyz * dt;
        pos_new[gid] = my;
        vel[gid] = v;
    }
}
