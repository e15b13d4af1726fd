/*
 * 32-bit atomics on global memory, each work-item keeping what the atomic
 * returned: OpenCL returns the OLD value, so the host can check that the
 * returned values form exactly one serial order (a chain for add/sub, a
 * permutation for the inc/dec tickets, one winner for a compare-exchange).
 *
 * counters: 0 add, 1 sub, 2 inc, 3 dec, 4 xchg, 5 cmpxchg (one winner),
 *           6 cmpxchg-loop increment, 7 min, 8 max
 * values are in [1, 1000], so add/sub chains never wrap.
 */

__kernel void int_atomics(volatile __global int *counters,
                          __global const int *values,
                          __global int *returned, /* 9 per work-item */
                          int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    int v = values[i];
    __global int *r = returned + 9 * i;
    r[0] = atomic_add(&counters[0], v);
    r[1] = atomic_sub(&counters[1], v);
    r[2] = atomic_inc(&counters[2]);
    r[3] = atomic_dec(&counters[3]);
    r[4] = atomic_xchg(&counters[4], i + 1);
    r[5] = atomic_cmpxchg(&counters[5], 0, i + 1);
    /* An increment built from compare-exchange: retry with what was seen. */
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
}

/* Unsigned min/max must compare as unsigned (values above 2^31). */
__kernel void uint_atomics(volatile __global uint *counters,
                           __global const uint *values, __global uint *returned,
                           int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    uint v = values[i];
    returned[3 * i] = atomic_min(&counters[0], v);
    returned[3 * i + 1] = atomic_max(&counters[1], v);
    returned[3 * i + 2] = atomic_add(&counters[2], v); /* wraps */
}

/* Bit operations: work-item i owns bit i % 32 of word i / 32, so every
 * returned value tells exactly which other work-items came before. */
__kernel void bit_atomics(volatile __global int *and_words,
                          volatile __global int *or_words,
                          volatile __global uint *xor_words,
                          __global int *returned, int n)
{
    int i = (int)get_global_id(0);
    if (i >= n)
        return;
    uint bit = 1u << (i % 32);
    int word = i / 32;
    returned[3 * i] = atomic_and(&and_words[word], (int)~bit);
    returned[3 * i + 1] = atomic_or(&or_words[word], (int)bit);
    returned[3 * i + 2] = (int)atomic_xor(&xor_words[word], bit);
}
