/*
 * Structs: passed by value as kernel arguments (int + float + float4, so the
 * float4 member forces 16-byte alignment and padding) and stored in global
 * memory.  A probe kernel reports sizes and member offsets so that the host
 * can check they agree with its own declarations.
 */

typedef struct {
    int count;
    float scale;
    float4 offset;
} transform_params;

struct particle {
    float4 position;
    float4 velocity;
    float mass;
    int id;
};

/* Offsets by address arithmetic: OpenCL C 1.2 has no offsetof. */
__kernel void struct_layout(__global int *out)
{
    transform_params p;
    struct particle q;
    out[0] = (int)sizeof(transform_params);
    out[1] = (int)((__private char *)&p.scale - (__private char *)&p);
    out[2] = (int)((__private char *)&p.offset - (__private char *)&p);
    out[3] = (int)sizeof(struct particle);
    out[4] = (int)((__private char *)&q.velocity - (__private char *)&q);
    out[5] = (int)((__private char *)&q.mass - (__private char *)&q);
    out[6] = (int)((__private char *)&q.id - (__private char *)&q);
}

/* out[i] = in[i] * scale + offset, for the first `count` vectors. */
__kernel void apply_transform(__global const float4 *in, __global float4 *out,
                              const transform_params params)
{
    int i = (int)get_global_id(0);
    if (i < params.count)
        out[i] = in[i] * params.scale + params.offset;
}

/* One explicit Euler step of each particle; the struct is read and
 * written in place in global memory. */
__kernel void particle_step(__global struct particle *particles, float dt,
                            int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    struct particle p = particles[i];
    float4 acceleration = (float4)(0.0f, -9.75f, 0.0f, 0.0f) / p.mass;
    p.velocity += acceleration * dt;
    p.position += p.velocity * dt;
    p.id = p.id * 2 + 1;
    particles[i] = p;
    particles[i].mass = p.mass + 1.0f;
}
