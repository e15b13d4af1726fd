/* Names that are ordinary in OpenCL C but keywords or built-ins in CUDA C++. */
typedef struct { int class; float new; } Odd;
__kernel void k(__global Odd *o, __global int *x)
{
    int warpSize = 32, threadIdx = get_local_id(0);
    int this = x[0], template = 2;
    o[0].class = warpSize + threadIdx + this + template;
    o[0].new = 1.5f;
    int old = x[1], new = old + 1;
    atomic_cmpxchg(x, old, new);
}
