/*
 * C that C++ rejects, written the way real OpenCL C code writes it:
 * implicit pointer conversions (int * to uint *, float4 * to float *,
 * void * to float *), an int stored in an enumeration, a struct defined in
 * a function's return type, array-syntax parameters, `void __kernel`,
 * clang's built-in spellings (__builtin_astype, __builtin_inff), and names
 * that are CUDA's (make_float2, atomicAdd) or C++'s (static_assert).
 */
typedef enum { OP_ADD, OP_SUB = 5, OP_XOR } op_t;

struct pair { int lo; int hi; } split(int v)
{
    struct pair p = {v & 0xffff, v >> 16};
    return p;
}

/* counts the bits of int data through a uint pointer */
uint bit_count(const uint *p) { return popcount(*p); }

void scale_lanes(float *lanes, float s)
{
    for (int k = 0; k < 4; ++k)
        lanes[k] *= s;
}

int apply_op(op_t op, int a, int b)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    default: return a ^ b;
    }
}

float2 make_float2(float a, float b) { return (float2)(a, b); }
int atomicAdd(__global int *p, int v) { return atomic_add(p, v); }

void __kernel c_idioms(__global const int in[], __global int *out,
                       __global float4 vectors[], int op_code,
                       __global int *odd_count, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int v = in[i];
    op_t op = op_code;
    struct pair p = split(v);
    uint bits = bit_count(&v);
    float4 lane = vectors[i];
    scale_lanes(&lane, 2.0f);
    void *raw = &lane;
    float *first = raw;
    float2 ends = make_float2(first[0], first[3]);
    int static_assert = apply_op(op, p.lo, p.hi);
    out[2 * i] = static_assert;
    out[2 * i + 1] = (int)bits;
    uint end_bits = __builtin_astype(ends.y, uint);
    vectors[i] = (float4)(ends.x, as_float(end_bits), lane.y,
                          ends.x == __builtin_inff() ? -1.0f : lane.z);
    atomicAdd(odd_count, v & 1);
}
