/*
 * Integer division and remainder round toward zero in OpenCL C as in C99:
 * -7 / 2 == -3 and -7 % 2 == -1, also for negative divisors, for long, and
 * for divisors known at compile time (which compilers strength-reduce).
 */

__kernel void divide_int(__global const int *a, __global const int *b,
                         __global int *quotients, __global int *remainders,
                         __global int *by_constants, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int x = a[i], y = b[i];
    quotients[i] = x / y;
    remainders[i] = x % y;
    __global int *c = by_constants + 6 * i;
    c[0] = x / -7;
    c[1] = x % -7;
    c[2] = x / 8;
    c[3] = x % 8;
    c[4] = x >> 3;
    c[5] = x / 1000000;
}

__kernel void divide_long(__global const long *a, __global const long *b,
                          __global long *quotients, __global long *remainders,
                          int n)
{
    int i = (int)get_global_id(0);
    if (i < n) {
        quotients[i] = a[i] / b[i];
        remainders[i] = a[i] % b[i];
    }
}

__kernel void divide_uint(__global const uint *a, __global const uint *b,
                          __global uint *quotients, __global uint *remainders,
                          int n)
{
    int i = (int)get_global_id(0);
    if (i < n) {
        quotients[i] = a[i] / b[i];
        remainders[i] = a[i] % b[i];
    }
}
