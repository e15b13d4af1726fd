/*
 * The same atomics on __local memory: each work-group works on its own
 * local counters, every work-item keeps the returned (old) values, and the
 * first work-item copies the final counters out.  Blocks of 128.
 *
 * counters: 0 add, 1 sub, 2 inc, 3 dec, 4 xchg, 5 cmpxchg (one winner),
 *           6 cmpxchg-loop increment, 7 min, 8 max
 * words:    4 of and, 4 of or, 4 of xor (work-item i owns bit i % 32)
 */

#define COUNTERS 9
#define WORDS 4

__kernel void local_atomics(__global const int *values,
                            __global const int *initial, /* COUNTERS + 3 */
                            __global int *returned,      /* 12 per work-item */
                            __global int *finals)        /* per group */
{
    __local int counters[COUNTERS];
    __local int and_words[WORDS], or_words[WORDS];
    __local uint xor_words[WORDS];
    int lid = (int)get_local_id(0);
    int gid = (int)get_global_id(0);
    if (lid < COUNTERS)
        counters[lid] = initial[lid];
    if (lid < WORDS) {
        and_words[lid] = initial[COUNTERS];
        or_words[lid] = initial[COUNTERS + 1];
        xor_words[lid] = (uint)initial[COUNTERS + 2];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    int v = values[gid];
    __global int *r = returned + 12 * gid;
    r[0] = atomic_add(&counters[0], v);
    r[1] = atomic_sub(&counters[1], v);
    r[2] = atomic_inc(&counters[2]);
    r[3] = atomic_dec(&counters[3]);
    r[4] = atomic_xchg(&counters[4], lid + 1);
    r[5] = atomic_cmpxchg(&counters[5], 0, lid + 1);
    int expected = 0;
    for (;;) {
        int seen = atomic_cmpxchg(&counters[6], expected, expected + 1);
        if (seen == expected)
            break;
        expected = seen;
    }
    r[6] = expected;
    r[7] = atomic_min(&counters[7], v * 1001 - 500000);
    r[8] = atomic_max(&counters[8], 500000 - v * 999);
    uint bit = 1u << (lid % 32);
    r[9] = atomic_and(&and_words[lid / 32], (int)~bit);
    r[10] = atomic_or(&or_words[lid / 32], (int)bit);
    r[11] = (int)atomic_xor(&xor_words[lid / 32], bit);
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid == 0) {
        __global int *f = finals + (COUNTERS + 3 * WORDS) * get_group_id(0);
        for (int k = 0; k < COUNTERS; ++k)
            f[k] = counters[k];
        for (int w = 0; w < WORDS; ++w) {
            f[COUNTERS + w] = and_words[w];
            f[COUNTERS + WORDS + w] = or_words[w];
            f[COUNTERS + 2 * WORDS + w] = (int)xor_words[w];
        }
    }
}
