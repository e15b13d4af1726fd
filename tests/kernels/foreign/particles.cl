/* Particles as an array of structs with float3/float4 members, helpers
 * taking __global struct pointers, geometric built-ins. */
typedef struct {
    float4 position;   /* w: radius */
    float3 velocity;
    float mass;
    int alive;
} Particle;

typedef struct Bounds { float3 lo, hi; } Bounds;

inline void bounce(__global Particle *p, const Bounds b)
{
    float3 pos = p->position.xyz;
    int3 below = isless(pos, b.lo), above = isgreater(pos, b.hi);
    p->velocity = select(p->velocity, -p->velocity, below | above);
    p->position.xyz = clamp(pos, b.lo, b.hi);
}

__kernel void particles_step(__global Particle *particles, int count, float dt,
                   float3 gravity, float3 lo, float3 hi)
{
    int i = get_global_id(0);
    if (i >= count || !particles[i].alive) return;
    __global Particle *p = &particles[i];
    p->velocity += gravity * dt;
    float speed = length(p->velocity);
    if (speed > 100.0f)
        p->velocity = normalize(p->velocity) * 100.0f;
    p->position.xyz += p->velocity * dt;
    Bounds b = {lo, hi};
    bounce(p, b);
    float3 spin = cross(p->velocity, (float3)(0.0f, 1.0f, 0.0f));
    p->position.w = fmax(p->position.w - 0.001f * dot(spin, spin), 0.0f);
    p->alive = p->position.w > 0.0f;
}
