/*
 * Conformance corpus, atomics: every 32-bit atomic function on global and
 * local memory, unsigned min/max, float addition by compare-exchange, the
 * 64-bit atom_* functions, and a histogram with local atomics.
 *
 * OpenCL atomics return the OLD value.  Every work-item stores what its
 * atomic returned, and the host checks that the returned values describe
 * exactly one serial order of the operations: for additions the old values
 * sorted form a chain init, init+v1, init+v1+v2, ... ending at the final
 * value; tickets from atomic_inc are a permutation; one compare-exchange
 * winner; for bit operations each work-item owns one bit, so its old value
 * tells exactly which work-items came before.  All checks are exact.
 */
#include "test_corpus_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- checks of returned values ------------------------------------------------------ */

typedef struct chain_link {
    int64_t offset; /* the old value, as a distance from the initial value */
    int64_t step;   /* what this work-item added                          */
} chain_link;

static int compare_links(const void *a, const void *b)
{
    const chain_link *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* offsets[i] (the old value seen by work-item i, minus the initial value)
 * and positive steps[i] must form the chain 0, s_a, s_a + s_b, ... of some
 * order, ending at final_offset. */
static void expect_chain(const char *what, const int64_t *offsets,
                         const int64_t *steps, size_t count, int64_t final_offset)
{
    chain_link *links = test_alloc(count * sizeof *links);
    for (size_t i = 0; i < count; ++i)
        links[i] = (chain_link){offsets[i], steps[i]};
    qsort(links, count, sizeof *links, compare_links);
    int64_t expected = 0;
    for (size_t k = 0; k < count; ++k) {
        if (links[k].offset != expected)
            fail_msg("%s: the returned (old) values do not form one serial "
                     "order: the %zu-th smallest is initial%+" PRId64
                     ", expected initial%+" PRId64,
                     what, k, links[k].offset, expected);
        expected += links[k].step;
    }
    if (final_offset != expected)
        fail_msg("%s: the final value is initial%+" PRId64 ", expected initial%+" PRId64,
                 what, final_offset, expected);
    free(links);
}

/* atomic_min / atomic_max: every old value is the initial value or one of
 * the operands, never past the final extreme nor the initial value, and
 * the first operation saw the initial value. */
static void expect_running_extreme(const char *what, const int64_t *olds,
                                   const int64_t *operands, size_t count,
                                   int64_t initial, int64_t final, bool minimum)
{
    int64_t extreme = initial;
    for (size_t i = 0; i < count; ++i)
        extreme = minimum ? (operands[i] < extreme ? operands[i] : extreme)
                          : (operands[i] > extreme ? operands[i] : extreme);
    if (final != extreme)
        fail_msg("%s: final %" PRId64 ", expected %" PRId64, what, final, extreme);
    bool saw_initial = false;
    for (size_t i = 0; i < count; ++i) {
        int64_t old = olds[i];
        saw_initial |= old == initial;
        bool between = minimum ? (old >= final && old <= initial)
                               : (old <= final && old >= initial);
        bool known = old == initial;
        for (size_t j = 0; j < count && !known; ++j)
            known = operands[j] == old;
        if (!between || !known)
            fail_msg("%s: work-item %zu got %" PRId64 ", which is not a value "
                     "the counter held (initial %" PRId64 ", final %" PRId64 ")",
                     what, i, old, initial, final);
    }
    if (!saw_initial)
        fail_msg("%s: no work-item saw the initial value %" PRId64, what, initial);
}

static int compare_u32_popcount(const void *a, const void *b)
{
    int x = __builtin_popcount(*(const uint32_t *)a);
    int y = __builtin_popcount(*(const uint32_t *)b);
    return (x > y) - (x < y);
}

/* Bit operations on one word by 32 work-items, item k owning bit k:
 * applied[k] is the set of bits applied before item k (derived from its
 * old value).  The sets must be nested, one more bit each time, never
 * holding the item's own bit. */
static void expect_bit_order(const char *what, const uint32_t *applied)
{
    uint32_t sorted[32];
    for (int k = 0; k < 32; ++k) {
        if (applied[k] & (1u << k))
            fail_msg("%s: work-item %d saw its own bit already applied "
                     "(old value implies 0x%08" PRIx32 ")",
                     what, k, applied[k]);
        sorted[k] = applied[k];
    }
    qsort(sorted, 32, sizeof sorted[0], compare_u32_popcount);
    for (int k = 0; k < 32; ++k) {
        if (__builtin_popcount(sorted[k]) != k)
            fail_msg("%s: the old values are not one serial order (%d bits "
                     "where %d were expected)",
                     what, __builtin_popcount(sorted[k]), k);
        if (k > 0 && (sorted[k] & sorted[k - 1]) != sorted[k - 1])
            fail_msg("%s: old values 0x%08" PRIx32 " and 0x%08" PRIx32
                     " cannot both be seen in one order",
                     what, sorted[k - 1], sorted[k]);
    }
}

/* Checks the nine counters' returned values of `count` work-items whose
 * own returned values sit at returned[i * stride + k]; ids are 1..count
 * for xchg and cmpxchg (the kernels store index + 1). */
static void expect_int_counters(const char *where, const int32_t *returned,
                                size_t stride, size_t count,
                                const int32_t *values, const int32_t *initial,
                                const int32_t *final)
{
    int64_t *a = test_alloc(count * sizeof *a), *b = test_alloc(count * sizeof *b);
    int64_t *ids = test_alloc((count + 1) * sizeof *ids);
    char what[128];
#define RETURNED(i, k) ((int64_t)returned[(i) * stride + (k)])

    for (size_t i = 0; i < count; ++i)
        a[i] = RETURNED(i, 0) - initial[0], b[i] = values[i];
    snprintf(what, sizeof what, "%s atomic_add", where);
    expect_chain(what, a, b, count, (int64_t)final[0] - initial[0]);

    for (size_t i = 0; i < count; ++i)
        a[i] = initial[1] - RETURNED(i, 1);
    snprintf(what, sizeof what, "%s atomic_sub", where);
    expect_chain(what, a, b, count, (int64_t)initial[1] - final[1]);

    for (size_t i = 0; i < count; ++i)
        a[i] = RETURNED(i, 2);
    snprintf(what, sizeof what, "%s atomic_inc tickets", where);
    corpus_expect_permutation(what, a, count, initial[2]);
    if (final[2] != initial[2] + (int64_t)count)
        fail_msg("%s: final %" PRId32 ", expected %" PRId64, what, final[2],
                 initial[2] + (int64_t)count);

    for (size_t i = 0; i < count; ++i)
        a[i] = RETURNED(i, 3);
    snprintf(what, sizeof what, "%s atomic_dec tickets", where);
    corpus_expect_permutation(what, a, count, initial[3] - (int64_t)count + 1);
    if (final[3] != initial[3] - (int64_t)count)
        fail_msg("%s: final %" PRId32 ", expected %" PRId64, what, final[3],
                 initial[3] - (int64_t)count);

    /* xchg from 0: the old values and the final value are 0..count, each
     * exactly once. */
    for (size_t i = 0; i < count; ++i)
        ids[i] = RETURNED(i, 4);
    ids[count] = final[4];
    snprintf(what, sizeof what, "%s atomic_xchg (old values + final)", where);
    corpus_expect_permutation(what, ids, count + 1, 0);

    /* cmpxchg(p, 0, id): one winner saw 0; everyone else saw the winner's id. */
    size_t winners = 0;
    for (size_t i = 0; i < count; ++i) {
        int64_t old = RETURNED(i, 5);
        if (old == 0) {
            ++winners;
            if (final[5] != (int64_t)i + 1)
                fail_msg("%s atomic_cmpxchg: work-item %zu saw 0 but the "
                         "final value is %" PRId32,
                         where, i, final[5]);
        } else if (old != final[5]) {
            fail_msg("%s atomic_cmpxchg: work-item %zu saw %" PRId64 ", "
                     "neither 0 nor the winner's %" PRId32,
                     where, i, old, final[5]);
        }
    }
    if (winners != 1)
        fail_msg("%s atomic_cmpxchg: %zu work-items saw 0, expected exactly one",
                 where, winners);

    for (size_t i = 0; i < count; ++i)
        a[i] = RETURNED(i, 6);
    snprintf(what, sizeof what, "%s atomic_cmpxchg increment loop", where);
    corpus_expect_permutation(what, a, count, 0);
    if (final[6] != (int64_t)count)
        fail_msg("%s: final %" PRId32 ", expected %zu", what, final[6], count);

    for (size_t i = 0; i < count; ++i)
        a[i] = RETURNED(i, 7), b[i] = (int64_t)values[i] * 1001 - 500000;
    snprintf(what, sizeof what, "%s atomic_min", where);
    expect_running_extreme(what, a, b, count, initial[7], final[7], true);

    for (size_t i = 0; i < count; ++i)
        a[i] = RETURNED(i, 8), b[i] = 500000 - (int64_t)values[i] * 999;
    snprintf(what, sizeof what, "%s atomic_max", where);
    expect_running_extreme(what, a, b, count, initial[8], final[8], false);
#undef RETURNED
    free(a), free(b), free(ids);
}

/* The and / or / xor results of `count` work-items (a multiple of 32)
 * whose old values are at returned[i * stride + first + {0, 1, 2}]. */
static void expect_bit_counters(const char *where, const int32_t *returned,
                                size_t stride, size_t first, size_t count,
                                uint32_t xor_initial, const uint32_t *and_final,
                                const uint32_t *or_final, const uint32_t *xor_final)
{
    char what[128];
    for (size_t word = 0; word < count / 32; ++word) {
        uint32_t and_applied[32], or_applied[32], xor_applied[32];
        for (int k = 0; k < 32; ++k) {
            const int32_t *r = returned + (word * 32 + k) * stride + first;
            and_applied[k] = ~(uint32_t)r[0]; /* started all ones */
            or_applied[k] = (uint32_t)r[1];   /* started at zero */
            xor_applied[k] = (uint32_t)r[2] ^ xor_initial;
        }
        snprintf(what, sizeof what, "%s atomic_and word %zu", where, word);
        expect_bit_order(what, and_applied);
        snprintf(what, sizeof what, "%s atomic_or word %zu", where, word);
        expect_bit_order(what, or_applied);
        snprintf(what, sizeof what, "%s atomic_xor word %zu", where, word);
        expect_bit_order(what, xor_applied);
        if (and_final[word] != 0 || or_final[word] != UINT32_MAX ||
            xor_final[word] != ~xor_initial)
            fail_msg("%s word %zu: final and 0x%08" PRIx32 " or 0x%08" PRIx32
                     " xor 0x%08" PRIx32 ", expected 0, 0xffffffff, 0x%08" PRIx32,
                     where, word, and_final[word], or_final[word], xor_final[word],
                     ~xor_initial);
    }
}

/* ---- global int atomics ---------------------------------------------------------------- */

static void atomics_global(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 1024, BLOCK = 64, COUNTERS = 9, WORDS = N / 32 };
    kiln_program *program = corpus_build(context, "atomics_global", NULL);
    kiln_kernel *int_kernel = test_kernel(program, "int_atomics");
    kiln_kernel *uint_kernel = test_kernel(program, "uint_atomics");
    kiln_kernel *bit_kernel = test_kernel(program, "bit_atomics");

    int32_t *values = CORPUS_ARRAY(int32_t, N);
    corpus_random_i32(values, N, 1, 1000);
    int32_t initial[COUNTERS], final[COUNTERS];
    corpus_random_i32(initial, COUNTERS, -100000, 100000);
    initial[4] = initial[5] = initial[6] = 0;
    kiln_buffer *counters = test_buffer_from(context, initial, sizeof initial);
    kiln_buffer *value_buffer = test_buffer_from(context, values, N * 4);
    kiln_buffer *returned_buffer = corpus_poisoned_buffer(context, N * 9 * 4);
    CORPUS_LAUNCH(int_kernel, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(counters), KILN_ARG_BUFFER(value_buffer),
                  KILN_ARG_BUFFER(returned_buffer), KILN_ARG_INT(N));
    int32_t *returned = CORPUS_ARRAY(int32_t, N * 9);
    corpus_read(returned_buffer, returned, N * 9 * 4);
    corpus_read(counters, final, sizeof final);
    expect_int_counters("global", returned, 9, N, values, initial, final);

    /* Unsigned: operands above 2^31 must compare as unsigned; the sum
     * wraps past 2^32 once (steps < 2^22, so the chain is unambiguous). */
    uint32_t *uvalues = CORPUS_ARRAY(uint32_t, N);
    corpus_random_u32(uvalues, N);
    uint32_t uinitial[3] = {(uint32_t)test_random_u64() | 0x80000000u,
                            (uint32_t)test_random_u64() >> 1,
                            0xFFFF0000u + (uint32_t)(test_random_u64() % 0xFFFF)};
    uint32_t ufinal[3];
    kiln_buffer *ucounters = test_buffer_from(context, uinitial, sizeof uinitial);
    kiln_buffer *uvalue_buffer = test_buffer_from(context, uvalues, N * 4);
    uint32_t *ureturned = CORPUS_ARRAY(uint32_t, N * 3);
    CORPUS_LAUNCH(uint_kernel, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(ucounters), KILN_ARG_BUFFER(uvalue_buffer),
                  KILN_ARG_BUFFER(returned_buffer), KILN_ARG_INT(N));
    corpus_read(returned_buffer, ureturned, N * 3 * 4);
    corpus_read(ucounters, ufinal, sizeof ufinal);
    int64_t *a = CORPUS_ARRAY(int64_t, N), *b = CORPUS_ARRAY(int64_t, N);
    for (size_t i = 0; i < N; ++i)
        a[i] = ureturned[3 * i], b[i] = uvalues[i];
    expect_running_extreme("global atomic_min (uint)", a, b, N, uinitial[0], ufinal[0], true);
    for (size_t i = 0; i < N; ++i)
        a[i] = ureturned[3 * i + 1];
    expect_running_extreme("global atomic_max (uint)", a, b, N, uinitial[1], ufinal[1], false);
    /* The add of full 32-bit values wraps any number of times; the chain is
     * checked with a second run whose steps are below 2^22. */
    uint32_t *steps = CORPUS_ARRAY(uint32_t, N);
    for (size_t i = 0; i < N; ++i)
        steps[i] = 1 + (uint32_t)(test_random_u64() % ((1u << 22) - 1));
    TEST_OK(kiln_buffer_write(uvalue_buffer, 0, steps, N * 4));
    TEST_OK(kiln_buffer_write(ucounters, 0, uinitial, sizeof uinitial));
    CORPUS_LAUNCH(uint_kernel, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(ucounters), KILN_ARG_BUFFER(uvalue_buffer),
                  KILN_ARG_BUFFER(returned_buffer), KILN_ARG_INT(N));
    corpus_read(returned_buffer, ureturned, N * 3 * 4);
    corpus_read(ucounters, ufinal, sizeof ufinal);
    for (size_t i = 0; i < N; ++i)
        a[i] = (uint32_t)(ureturned[3 * i + 2] - uinitial[2]), b[i] = steps[i];
    expect_chain("global atomic_add (uint, wrapping)", a, b, N,
                 (uint32_t)(ufinal[2] - uinitial[2]));

    /* Bit operations: and from all ones, or from zero, xor from a random word. */
    uint32_t xor_initial = (uint32_t)test_random_u64();
    uint32_t and_words[WORDS], or_words[WORDS], xor_words[WORDS];
    for (int w = 0; w < WORDS; ++w)
        and_words[w] = UINT32_MAX, or_words[w] = 0, xor_words[w] = xor_initial;
    kiln_buffer *and_buffer = test_buffer_from(context, and_words, sizeof and_words);
    kiln_buffer *or_buffer = test_buffer_from(context, or_words, sizeof or_words);
    kiln_buffer *xor_buffer = test_buffer_from(context, xor_words, sizeof xor_words);
    CORPUS_LAUNCH(bit_kernel, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(and_buffer), KILN_ARG_BUFFER(or_buffer),
                  KILN_ARG_BUFFER(xor_buffer), KILN_ARG_BUFFER(returned_buffer),
                  KILN_ARG_INT(N));
    corpus_read(returned_buffer, returned, N * 3 * 4);
    corpus_read(and_buffer, and_words, sizeof and_words);
    corpus_read(or_buffer, or_words, sizeof or_words);
    corpus_read(xor_buffer, xor_words, sizeof xor_words);
    expect_bit_counters("global", returned, 3, 0, N, xor_initial, and_words, or_words,
                        xor_words);

    kiln_buffer *buffers[] = {counters, value_buffer, returned_buffer, ucounters,
                              uvalue_buffer, and_buffer, or_buffer, xor_buffer};
    corpus_release_buffers(buffers, 8);
    kiln_kernel_release(int_kernel);
    kiln_kernel_release(uint_kernel);
    kiln_kernel_release(bit_kernel);
    kiln_program_release(program);
    free(values), free(returned), free(uvalues), free(ureturned), free(a), free(b);
    free(steps);
}

/* ---- local int atomics ------------------------------------------------------------------ */

static void atomics_local(void **state)
{
    kiln_context *context = test_context(state);
    enum { BLOCK = 128, GROUPS = 6, N = BLOCK * GROUPS, COUNTERS = 9, WORDS = 4,
           RESULTS = 12, FINALS = COUNTERS + 3 * WORDS };
    kiln_program *program = corpus_build(context, "atomics_local", NULL);
    kiln_kernel *kernel = test_kernel(program, "local_atomics");

    int32_t *values = CORPUS_ARRAY(int32_t, N);
    corpus_random_i32(values, N, 1, 1000);
    int32_t initial[COUNTERS + 3];
    corpus_random_i32(initial, COUNTERS, -100000, 100000);
    initial[4] = initial[5] = initial[6] = 0;
    initial[COUNTERS] = -1;                                  /* and */
    initial[COUNTERS + 1] = 0;                               /* or  */
    initial[COUNTERS + 2] = (int32_t)(uint32_t)test_random_u64(); /* xor */
    kiln_buffer *value_buffer = test_buffer_from(context, values, N * 4);
    kiln_buffer *initial_buffer = test_buffer_from(context, initial, sizeof initial);
    kiln_buffer *returned_buffer = corpus_poisoned_buffer(context, N * RESULTS * 4);
    kiln_buffer *final_buffer = corpus_poisoned_buffer(context, GROUPS * FINALS * 4);
    CORPUS_LAUNCH(kernel, KILN_DIM1(GROUPS), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(value_buffer), KILN_ARG_BUFFER(initial_buffer),
                  KILN_ARG_BUFFER(returned_buffer), KILN_ARG_BUFFER(final_buffer));
    int32_t *returned = CORPUS_ARRAY(int32_t, N * RESULTS);
    int32_t finals[GROUPS * FINALS];
    corpus_read(returned_buffer, returned, N * RESULTS * 4);
    corpus_read(final_buffer, finals, sizeof finals);
    for (size_t g = 0; g < GROUPS; ++g) {
        char where[64];
        snprintf(where, sizeof where, "local (group %zu)", g);
        const int32_t *f = finals + g * FINALS;
        expect_int_counters(where, returned + g * BLOCK * RESULTS, RESULTS, BLOCK,
                            values + g * BLOCK, initial, f);
        uint32_t and_final[WORDS], or_final[WORDS], xor_final[WORDS];
        for (int w = 0; w < WORDS; ++w) {
            and_final[w] = (uint32_t)f[COUNTERS + w];
            or_final[w] = (uint32_t)f[COUNTERS + WORDS + w];
            xor_final[w] = (uint32_t)f[COUNTERS + 2 * WORDS + w];
        }
        expect_bit_counters(where, returned + g * BLOCK * RESULTS, RESULTS, 9, BLOCK,
                            (uint32_t)initial[COUNTERS + 2], and_final, or_final,
                            xor_final);
    }

    kiln_buffer *buffers[] = {value_buffer, initial_buffer, returned_buffer, final_buffer};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(values), free(returned);
}

/* ---- float atomic add by compare-exchange ---------------------------------------------- */

/* Values are multiples of 1/4 in [0.25, 100], so every partial sum is
 * exact in float whatever the order, and the chain check applies to the
 * old values (scaled by 4 to integers). */
static void float_atomics(void **state)
{
    kiln_context *context = test_context(state);
    enum { BLOCK = 128, GROUPS = 8, N = BLOCK * GROUPS };
    kiln_program *program = corpus_build(context, "float_atomics", NULL);
    kiln_kernel *global_kernel = test_kernel(program, "float_add_global");
    kiln_kernel *local_kernel = test_kernel(program, "float_add_local");

    float *values = CORPUS_ARRAY(float, N), *returned = CORPUS_ARRAY(float, N);
    int64_t *offsets = CORPUS_ARRAY(int64_t, N), *steps = CORPUS_ARRAY(int64_t, N);
    for (size_t i = 0; i < N; ++i) {
        steps[i] = 1 + (int64_t)(test_random_u64() % 400);
        values[i] = (float)steps[i] / 4;
    }
    float total = 0;
    kiln_buffer *total_buffer = test_buffer_from(context, &total, sizeof total);
    kiln_buffer *value_buffer = test_buffer_from(context, values, N * 4);
    kiln_buffer *returned_buffer = corpus_poisoned_buffer(context, N * 4);
    CORPUS_LAUNCH(global_kernel, KILN_DIM1(GROUPS), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(total_buffer), KILN_ARG_BUFFER(value_buffer),
                  KILN_ARG_BUFFER(returned_buffer), KILN_ARG_INT(N));
    corpus_read(returned_buffer, returned, N * 4);
    corpus_read(total_buffer, &total, sizeof total);
    for (size_t i = 0; i < N; ++i)
        offsets[i] = (int64_t)(returned[i] * 4);
    expect_chain("global float add (cmpxchg loop)", offsets, steps, N,
                 (int64_t)(total * 4));

    total = 0;
    TEST_OK(kiln_buffer_write(total_buffer, 0, &total, sizeof total));
    kiln_buffer *group_buffer = corpus_poisoned_buffer(context, GROUPS * 4);
    CORPUS_LAUNCH(local_kernel, KILN_DIM1(GROUPS), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(total_buffer), KILN_ARG_BUFFER(value_buffer),
                  KILN_ARG_BUFFER(returned_buffer), KILN_ARG_BUFFER(group_buffer));
    float group_totals[GROUPS];
    corpus_read(returned_buffer, returned, N * 4);
    corpus_read(group_buffer, group_totals, sizeof group_totals);
    corpus_read(total_buffer, &total, sizeof total);
    int64_t sum = 0;
    for (size_t g = 0; g < GROUPS; ++g) {
        for (size_t i = g * BLOCK; i < (g + 1) * BLOCK; ++i)
            offsets[i] = (int64_t)(returned[i] * 4);
        char what[64];
        snprintf(what, sizeof what, "local float add, group %zu", g);
        expect_chain(what, offsets + g * BLOCK, steps + g * BLOCK, BLOCK,
                     (int64_t)(group_totals[g] * 4));
        sum += (int64_t)(group_totals[g] * 4);
    }
    if ((int64_t)(total * 4) != sum)
        fail_msg("float add of the group totals: %.9g, expected %.9g", (double)total,
                 (double)sum / 4);

    kiln_buffer *buffers[] = {total_buffer, value_buffer, returned_buffer, group_buffer};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(global_kernel);
    kiln_kernel_release(local_kernel);
    kiln_program_release(program);
    free(values), free(returned), free(offsets), free(steps);
}

/* ---- 64-bit atom_* ---------------------------------------------------------------------------- */

/* Skips where the device lacks cl_khr_int64_base_atomics, except on CUDA,
 * where every device has 64-bit atomics and the translation must say so. */
static void atomics_64bit(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 1024, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "atomics_64bit", NULL);
    kiln_kernel *probe = test_kernel(program, "atomics_probe");
    int32_t supported[2] = {-1, -1};
    CORPUS_LAUNCH(probe, KILN_DIM1(1), KILN_DIM1(1),
                  KILN_ARG_OUT(supported, sizeof supported));
    bool on_cuda = strcmp(test_backend(state), "cuda") == 0;
    if (on_cuda && (supported[0] != 1 || supported[1] != 1))
        fail_msg("on CUDA, cl_khr_int64_base_atomics and "
                 "cl_khr_global_int32_base_atomics must be defined (got %d, %d)",
                 supported[0], supported[1]);

    kiln_buffer *returned_buffer = corpus_poisoned_buffer(context, N * 5 * 8);
    int64_t *a = CORPUS_ARRAY(int64_t, N), *b = CORPUS_ARRAY(int64_t, N);
    if (supported[1] == 1) {
        kiln_kernel *legacy = test_kernel(program, "int_atom_legacy");
        int32_t values[N], counters[2] = {(int32_t)(test_random_u64() % 1000), 17};
        int32_t initial[2] = {counters[0], counters[1]}, returned[2 * N];
        corpus_random_i32(values, N, 1, 1000);
        kiln_buffer *counter_buffer = test_buffer_from(context, counters, sizeof counters);
        kiln_buffer *value_buffer = test_buffer_from(context, values, sizeof values);
        CORPUS_LAUNCH(legacy, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                      KILN_ARG_BUFFER(counter_buffer), KILN_ARG_BUFFER(value_buffer),
                      KILN_ARG_BUFFER(returned_buffer), KILN_ARG_INT(N));
        TEST_OK(kiln_buffer_read(returned_buffer, 0, returned, sizeof returned));
        corpus_read(counter_buffer, counters, sizeof counters);
        for (size_t i = 0; i < N; ++i)
            a[i] = (int64_t)returned[2 * i] - initial[0], b[i] = values[i];
        expect_chain("atom_add (int)", a, b, N, (int64_t)counters[0] - initial[0]);
        for (size_t i = 0; i < N; ++i)
            a[i] = returned[2 * i + 1];
        corpus_expect_permutation("atom_inc (int) tickets", a, N, initial[1]);
        kiln_buffer *buffers[] = {counter_buffer, value_buffer};
        corpus_release_buffers(buffers, 2);
        kiln_kernel_release(legacy);
    } else {
        printf("# %s: no cl_khr_global_int32_base_atomics: atom_* on int skipped\n",
               test_backend(state));
    }

    if (supported[0] == 1) {
        kiln_kernel *kernel = test_kernel(program, "long_atomics");
        int64_t *values = CORPUS_ARRAY(int64_t, N), *returned = CORPUS_ARRAY(int64_t, 5 * N);
        for (size_t i = 0; i < N; ++i) /* above 2^32: the high word matters */
            values[i] = (int64_t)(1ull << 33) + (int64_t)(test_random_u64() % (1ull << 34));
        int64_t initial[5] = {-(int64_t)(test_random_u64() >> 4), (int64_t)(test_random_u64() >> 4),
                              (int64_t)0xFFFFFF00ll, 0, 0};
        int64_t final[5];
        kiln_buffer *counter_buffer = test_buffer_from(context, initial, sizeof initial);
        kiln_buffer *value_buffer = test_buffer_from(context, values, N * 8);
        CORPUS_LAUNCH(kernel, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                      KILN_ARG_BUFFER(counter_buffer), KILN_ARG_BUFFER(value_buffer),
                      KILN_ARG_BUFFER(returned_buffer), KILN_ARG_INT(N));
        corpus_read(returned_buffer, returned, N * 5 * 8);
        corpus_read(counter_buffer, final, sizeof final);
        for (size_t i = 0; i < N; ++i)
            a[i] = returned[5 * i] - initial[0], b[i] = values[i];
        expect_chain("atom_add (long)", a, b, N, final[0] - initial[0]);
        for (size_t i = 0; i < N; ++i)
            a[i] = initial[1] - returned[5 * i + 1];
        expect_chain("atom_sub (long)", a, b, N, initial[1] - final[1]);
        for (size_t i = 0; i < N; ++i)
            a[i] = returned[5 * i + 2];
        corpus_expect_permutation("atom_inc (long) tickets across 2^32", a, N, initial[2]);
        if (final[2] != initial[2] + N)
            fail_msg("atom_inc (long): final %" PRId64, final[2]);
        int64_t *ids = CORPUS_ARRAY(int64_t, N + 1);
        for (size_t i = 0; i < N; ++i) {
            int64_t old = returned[5 * i + 3];
            ids[i] = old == 0 ? 0 : old - 0x100000000ll + 1;
        }
        ids[N] = final[3] - 0x100000000ll + 1;
        corpus_expect_permutation("atom_xchg (long) old values + final", ids, N + 1, 0);
        free(ids);
        size_t winners = 0;
        for (size_t i = 0; i < N; ++i) {
            int64_t old = returned[5 * i + 4];
            if (old == 0) {
                ++winners;
                if (final[4] != (int64_t)i + 0x700000000ll)
                    fail_msg("atom_cmpxchg (long): work-item %zu won but the final "
                             "value is 0x%" PRIx64, i, final[4]);
            } else if (old != final[4]) {
                fail_msg("atom_cmpxchg (long): work-item %zu saw 0x%" PRIx64, i, old);
            }
        }
        if (winners != 1)
            fail_msg("atom_cmpxchg (long): %zu winners", winners);
        kiln_buffer *buffers[] = {counter_buffer, value_buffer};
        corpus_release_buffers(buffers, 2);
        kiln_kernel_release(kernel);
        free(values), free(returned);
    }
    TEST_OK(kiln_buffer_release(returned_buffer));
    kiln_kernel_release(probe);
    kiln_program_release(program);
    free(a), free(b);
    if (supported[0] != 1) {
        printf("# %s: the device has no cl_khr_int64_base_atomics\n", test_backend(state));
        skip();
    }
}

/* ---- histogram ---------------------------------------------------------------------------- */

/* Exact counts.  Half of the bytes fall in four bins, so the local atomics
 * contend. */
static void histogram(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 300007, BINS = 256, BLOCK = 128, GROUPS = 24 };
    kiln_program *program = corpus_build(context, "histogram", NULL);
    kiln_kernel *kernel = test_kernel(program, "byte_histogram");
    uint8_t *data = CORPUS_ARRAY(uint8_t, N);
    test_random_bytes(data, N);
    uint8_t hot = (uint8_t)test_random_u64();
    for (size_t i = 0; i < N; i += 2)
        data[i] = (uint8_t)(hot + (data[i] & 3));
    uint32_t counts[BINS] = {0}, expected[BINS] = {0};
    for (size_t i = 0; i < N; ++i)
        ++expected[data[i]];
    kiln_buffer *data_buffer = test_buffer_from(context, data, N);
    kiln_buffer *histogram_buffer = test_buffer_from(context, counts, sizeof counts);
    CORPUS_LAUNCH(kernel, KILN_DIM1(GROUPS), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(data_buffer), KILN_ARG_UINT(N),
                  KILN_ARG_BUFFER(histogram_buffer));
    corpus_read(histogram_buffer, counts, sizeof counts);
    corpus_expect_u32("byte histogram", counts, expected, BINS);
    kiln_buffer *buffers[] = {data_buffer, histogram_buffer};
    corpus_release_buffers(buffers, 2);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(data);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(atomics_global),
        KILN_TEST(atomics_local),
        KILN_TEST(float_atomics),
        KILN_TEST(atomics_64bit),
        KILN_TEST(histogram),
    };
    return kiln_test_main("corpus_atomics", tests, sizeof tests / sizeof tests[0]);
}
