/*
 * 64-bit atomics on global memory (cl_khr_int64_base_atomics: atom_add,
 * atom_sub, atom_inc, atom_xchg, atom_cmpxchg on long) and the OpenCL 1.0
 * spellings of the 32-bit ones (atom_add, atom_inc on int), all returning
 * the old value.  The extensions are optional: the probe kernel reports
 * which this device has, and the rest compiles only where they exist.
 */

__kernel void atomics_probe(__global int *supported)
{
#ifdef cl_khr_int64_base_atomics
    supported[0] = 1;
#else
    supported[0] = 0;
#endif
#ifdef cl_khr_global_int32_base_atomics
    supported[1] = 1;
#else
    supported[1] = 0;
#endif
}

#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

/* counters: 0 add, 1 sub, 2 inc, 3 xchg, 4 cmpxchg (one winner) */
__kernel void long_atomics(volatile __global long *counters,
                           __global const long *values,
                           __global long *returned, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    long v = values[i];
    __global long *r = returned + 5 * i;
    r[0] = atom_add(&counters[0], v);
    r[1] = atom_sub(&counters[1], v);
    r[2] = atom_inc(&counters[2]);
    r[3] = atom_xchg(&counters[3], (long)i + 0x100000000L);
    r[4] = atom_cmpxchg(&counters[4], 0L, (long)i + 0x700000000L);
}
#endif

#ifdef cl_khr_global_int32_base_atomics
#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable

__kernel void int_atom_legacy(volatile __global int *counters,
                              __global const int *values,
                              __global int *returned, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    returned[2 * i] = atom_add(&counters[0], values[i]);
    returned[2 * i + 1] = atom_inc(&counters[1]);
}
#endif
