/*
 * Float atomic add built from a 32-bit compare-exchange on the bits
 * (as_uint / as_float), in helper functions taking volatile __global and
 * __local pointers.  Like the built-in atomics they return the old value.
 */

float atomic_add_float_global(volatile __global float *p, float value)
{
    volatile __global uint *bits = (volatile __global uint *)p;
    uint expected = *bits;
    for (;;) {
        uint desired = as_uint(as_float(expected) + value);
        uint seen = atomic_cmpxchg(bits, expected, desired);
        if (seen == expected)
            return as_float(expected);
        expected = seen;
    }
}

float atomic_add_float_local(volatile __local float *p, float value)
{
    volatile __local uint *bits = (volatile __local uint *)p;
    uint expected = *bits;
    for (;;) {
        uint desired = as_uint(as_float(expected) + value);
        uint seen = atomic_cmpxchg(bits, expected, desired);
        if (seen == expected)
            return as_float(expected);
        expected = seen;
    }
}

/* Every work-item adds its value to one global total and keeps the old
 * value it saw. */
__kernel void float_add_global(volatile __global float *total,
                               __global const float *values,
                               __global float *returned, int n)
{
    int i = (int)get_global_id(0);
    if (i < n)
        returned[i] = atomic_add_float_global(total, values[i]);
}

/* Per-group totals in local memory (old values kept too), then each
 * group's total is added to the global one. */
__kernel void float_add_local(volatile __global float *total,
                              __global const float *values,
                              __global float *returned,
                              __global float *group_totals)
{
    __local float group_total;
    if (get_local_id(0) == 0)
        group_total = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t i = get_global_id(0);
    returned[i] = atomic_add_float_local(&group_total, values[i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        group_totals[get_group_id(0)] = group_total;
        atomic_add_float_global(total, group_total);
    }
}
