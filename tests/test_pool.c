/*
 * The device memory pool: on by default (KILN_POOL=0 turns it off),
 * released buffers are cached by size class and reused, kiln_pool_trim
 * and a disabled pool return memory to the driver, and a block that a
 * stream may still be using is not handed out again before that work is
 * done.
 */
#include "config.h" /* _GNU_SOURCE: setenv under -std=c11 */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kiln_pool_stats stats_of(kiln_context *context)
{
    kiln_pool_stats stats;
    TEST_OK(kiln_pool_get_stats(context, &stats));
    return stats;
}

/* A context made with KILN_POOL set to `value` (NULL: unset); the
 * variable is restored. */
static kiln_context *context_with_pool_env(void **state, const char *value)
{
    const char *old = getenv("KILN_POOL");
    char *saved = old ? strdup(old) : NULL;
    if (value)
        setenv("KILN_POOL", value, 1);
    else
        unsetenv("KILN_POOL");
    kiln_context *context = NULL;
    kiln_status status =
        kiln_context_create(test_backend(state), -1, &context);
    if (saved) {
        setenv("KILN_POOL", saved, 1);
        free(saved);
    } else {
        unsetenv("KILN_POOL");
    }
    if (status != KILN_OK)
        fail_msg("kiln_context_create: %s: %s", kiln_status_name(status),
                 kiln_last_error());
    return context;
}

/* Writes random bytes, reads them back. */
static void check_round_trip(kiln_buffer *buffer, size_t size)
{
    unsigned char *data = test_alloc(size), *back = test_alloc(size);
    test_random_bytes(data, size);
    TEST_OK(kiln_buffer_write(buffer, 0, data, size));
    TEST_OK(kiln_buffer_read(buffer, 0, back, size));
    if (memcmp(data, back, size) != 0)
        fail_msg("a buffer of %zu bytes did not keep its data", size);
    free(data);
    free(back);
}

#define assert_stat(stats, field, expected)                                   \
    do {                                                                      \
        if ((stats).field != (uint64_t)(expected))                            \
            fail_msg("pool " #field " is %llu, expected %llu",                \
                     (unsigned long long)(stats).field,                       \
                     (unsigned long long)(expected));                         \
    } while (0)

static void test_on_by_default_and_reuses(void **state)
{
    (void)test_context(state);
    kiln_context *context = context_with_pool_env(state, NULL);
    kiln_pool_stats start = stats_of(context);
    assert_stat(start, bytes_in_use, 0);
    assert_stat(start, bytes_cached, 0);

    kiln_buffer *a = test_buffer(context, 1000);
    kiln_pool_stats s = stats_of(context);
    assert_stat(s, allocations, start.allocations + 1);
    assert_stat(s, reuses, start.reuses);
    if (s.bytes_in_use < 1000)
        fail_msg("a buffer of 1000 bytes counts %llu in use",
                 (unsigned long long)s.bytes_in_use);
    uint64_t block = s.bytes_in_use;
    check_round_trip(a, 1000);
    TEST_OK(kiln_buffer_release(a));
    s = stats_of(context);
    assert_stat(s, bytes_in_use, 0);
    assert_stat(s, bytes_cached, block);

    /* A similar size takes the cached block back... */
    kiln_buffer *b = test_buffer(context, 900);
    s = stats_of(context);
    assert_stat(s, reuses, start.reuses + 1);
    assert_stat(s, bytes_cached, 0);
    assert_stat(s, bytes_in_use, block);
    check_round_trip(b, 900);
    /* ...a very different one does not. */
    kiln_buffer *c = test_buffer(context, 100000);
    s = stats_of(context);
    assert_stat(s, reuses, start.reuses + 1);
    TEST_OK(kiln_buffer_release(b));
    TEST_OK(kiln_buffer_release(c));
    s = stats_of(context);
    assert_stat(s, bytes_in_use, 0);
    if (s.bytes_cached < block + 100000)
        fail_msg("%llu bytes cached after releasing 100900",
                 (unsigned long long)s.bytes_cached);

    /* Above 1 MiB, sizes within an eighth of a power of two share. */
    kiln_buffer *big = test_buffer(context, (size_t)1500 << 10);
    TEST_OK(kiln_buffer_release(big));
    uint64_t reuses = stats_of(context).reuses;
    big = test_buffer(context, (size_t)1450 << 10);
    assert_stat(stats_of(context), reuses, reuses + 1);
    check_round_trip(big, (size_t)1450 << 10);
    TEST_OK(kiln_buffer_release(big));

    /* A retained buffer is not returned until its last release. */
    kiln_buffer *held = test_buffer(context, 4096);
    uint64_t cached = stats_of(context).bytes_cached;
    TEST_OK(kiln_buffer_retain(held));
    TEST_OK(kiln_buffer_release(held));
    assert_stat(stats_of(context), bytes_cached, cached);
    TEST_OK(kiln_buffer_release(held));
    if (stats_of(context).bytes_cached <= cached)
        fail_msg("the last release did not return the block");
    TEST_OK(kiln_context_release(context));
}

static void test_allocate_release_loop(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_pool_set_enabled(context, 1));
    kiln_pool_stats before = stats_of(context);
    enum { ROUNDS = 50 };
    for (int round = 0; round < ROUNDS; ++round) {
        /* 4097..4608 bytes: one 512-byte size class. */
        size_t size = 4097 + (size_t)(test_random_u64() % 512);
        kiln_buffer *buffer = test_buffer(context, size);
        if (round % 10 == 0)
            check_round_trip(buffer, size);
        TEST_OK(kiln_buffer_release(buffer));
    }
    kiln_pool_stats after = stats_of(context);
    /* Only the first allocation goes to the driver. */
    if (after.reuses - before.reuses != ROUNDS - 1)
        fail_msg("%llu of %d allocations were reused",
                 (unsigned long long)(after.reuses - before.reuses), ROUNDS);
    assert_stat(after, allocations, before.allocations + ROUNDS);
}

static void test_trim(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_pool_set_enabled(context, 1));
    kiln_buffer *buffers[4];
    for (int i = 0; i < 4; ++i)
        buffers[i] = test_buffer(context, (size_t)(i + 1) << 16);
    for (int i = 0; i < 4; ++i)
        TEST_OK(kiln_buffer_release(buffers[i]));
    if (stats_of(context).bytes_cached < (1 + 2 + 3 + 4) << 16)
        fail_msg("released buffers were not cached");
    TEST_OK(kiln_pool_trim(context));
    kiln_pool_stats s = stats_of(context);
    assert_stat(s, bytes_cached, 0);
    assert_stat(s, bytes_in_use, 0);
    /* After a trim an allocation goes to the driver. */
    uint64_t reuses = s.reuses;
    kiln_buffer *again = test_buffer(context, 1 << 16);
    assert_stat(stats_of(context), reuses, reuses);
    check_round_trip(again, 1 << 16);
    TEST_OK(kiln_buffer_release(again));
    /* Trimming an empty pool, and bad handles. */
    TEST_OK(kiln_pool_trim(context));
    TEST_OK(kiln_pool_trim(context));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_pool_trim(NULL));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_pool_set_enabled(NULL, 1));
    kiln_pool_stats ignored;
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_pool_get_stats(NULL, &ignored));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_pool_get_stats(context, NULL));
}

static void test_disabled_pool_frees(void **state)
{
    (void)test_context(state);
    /* Off from the environment... */
    kiln_context *context = context_with_pool_env(state, "0");
    kiln_buffer *a = test_buffer(context, 8192);
    check_round_trip(a, 8192);
    TEST_OK(kiln_buffer_release(a));
    kiln_buffer *b = test_buffer(context, 8192);
    kiln_pool_stats s = stats_of(context);
    assert_stat(s, bytes_cached, 0);
    assert_stat(s, reuses, 0);
    TEST_OK(kiln_buffer_release(b));
    assert_stat(stats_of(context), bytes_cached, 0);
    assert_stat(stats_of(context), bytes_in_use, 0);
    /* ...and back on through the API. */
    TEST_OK(kiln_pool_set_enabled(context, 1));
    a = test_buffer(context, 8192);
    TEST_OK(kiln_buffer_release(a));
    if (stats_of(context).bytes_cached == 0)
        fail_msg("the pool turned on by kiln_pool_set_enabled cached nothing");
    TEST_OK(kiln_context_release(context));

    /* Turning it off through the API empties it and stops caching. */
    context = context_with_pool_env(state, NULL);
    a = test_buffer(context, 8192);
    TEST_OK(kiln_buffer_release(a));
    if (stats_of(context).bytes_cached == 0)
        fail_msg("the default pool cached nothing");
    TEST_OK(kiln_pool_set_enabled(context, 0));
    assert_stat(stats_of(context), bytes_cached, 0);
    uint64_t reuses = stats_of(context).reuses;
    a = test_buffer(context, 8192);
    check_round_trip(a, 8192);
    TEST_OK(kiln_buffer_release(a));
    assert_stat(stats_of(context), bytes_cached, 0);
    assert_stat(stats_of(context), reuses, reuses);
    TEST_OK(kiln_context_release(context));

    /* Other spellings of "off". */
    static const char *const off[] = {"off", "no", "false"};
    for (size_t i = 0; i < 3; ++i) {
        context = context_with_pool_env(state, off[i]);
        a = test_buffer(context, 512);
        TEST_OK(kiln_buffer_release(a));
        if (stats_of(context).bytes_cached != 0)
            fail_msg("KILN_POOL=%s: the pool cached a block", off[i]);
        TEST_OK(kiln_context_release(context));
    }
}

/* ---- blocks still in use by a stream ---------------------------------------------- */

#define ITEMS 64

/* One work-group of busy work, then a write of `value` everywhere: while
 * it runs the other CPU cores (PoCL) or SMs stay free for the copies. */
static const char slow_source[] =
    "kernel void slow_fill(global int *a, int iterations, int value)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    float v = (float)i;\n"
    "    for (int k = 0; k < iterations; ++k)\n"
    "        v = v * 0.9999f + 1.0f;\n"
    "    a[i] = value + (v < -1.0f ? 1 : 0);\n"
    "}\n";

typedef struct slow_kernel {
    kiln_program *program;
    kiln_kernel *kernel;
    int iterations;
} slow_kernel;

/* Chooses iterations so that the kernel runs for about `target_ms`. */
static slow_kernel slow_kernel_open(kiln_context *context, float target_ms)
{
    slow_kernel slow;
    slow.program = test_build(context, slow_source, NULL);
    slow.kernel = test_kernel(slow.program, "slow_fill");
    kiln_buffer *scratch = test_buffer(context, ITEMS * sizeof(int32_t));
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM1(ITEMS)};
    float time_ms = 0;
    config.time_ms = &time_ms;
    int iterations = 1 << 14;
    for (int tries = 0; tries < 20; ++tries) {
        TEST_OK(kiln_launch_prepared(slow.kernel, &config, "Pii", scratch,
                                     (int32_t)iterations, 0));
        if (time_ms >= target_ms / 8 || iterations >= (1 << 30) / 4)
            break;
        iterations *= 4;
    }
    double scaled = (double)iterations * (double)target_ms /
                    (double)(time_ms > 0.001f ? time_ms : 0.001f);
    slow.iterations = scaled > (double)(1 << 30) ? (1 << 30) : (int)scaled;
    if (slow.iterations < iterations)
        slow.iterations = iterations;
    TEST_OK(kiln_buffer_release(scratch));
    return slow;
}

static void slow_kernel_close(slow_kernel *slow)
{
    TEST_OK(kiln_kernel_release(slow->kernel));
    TEST_OK(kiln_program_release(slow->program));
}

/* More blocks of one size than the pool lets wait for their work before
 * it waits itself instead of allocating (POOL_PENDING_LIMIT, 4). */
#define PENDING_BEHIND 8

/* The scenario: a long kernel writes buffer A on `kernel_stream`; A is
 * released at once, then PENDING_BEHIND more buffers of its size with
 * fills queued behind the kernel, so that every cached block of the size
 * is busy and the pool must hand one out; B of the same size is allocated
 * (the pool hands out the oldest, A's block) and written with `pattern`
 * on `write_stream` (NULL: a synchronous write on the default stream).
 * Were B given the block before the kernel finished, the kernel's late
 * write would land in B. */
static void check_no_reuse_while_busy(kiln_context *context, slow_kernel *slow,
                                      kiln_stream *kernel_stream,
                                      kiln_stream *write_stream,
                                      const char *what)
{
    const size_t size = ITEMS * sizeof(int32_t);
    int32_t pattern[ITEMS], got[ITEMS];
    test_random_ints(pattern, ITEMS, 1, 1 << 30);
    TEST_OK(kiln_pool_trim(context));
    kiln_buffer *a = test_buffer(context, size);
    kiln_event *done;
    TEST_OK(kiln_event_create(context, &done));
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM1(ITEMS),
                                 .stream = kernel_stream};
    TEST_OK(kiln_launch_prepared(slow->kernel, &config, "Pii", a,
                                 (int32_t)slow->iterations, -1));
    TEST_OK(kiln_event_record(done, kernel_stream));
    /* Only meaningful while the kernel runs. */
    kiln_buffer *behind[PENDING_BEHIND];
    for (int i = 0; i < PENDING_BEHIND; ++i) {
        behind[i] = test_buffer(context, size);
        const int32_t zero = 0;
        TEST_OK(kiln_buffer_fill_async(behind[i], 0, size, &zero, sizeof zero,
                                       kernel_stream));
    }
    bool busy = kiln_event_query(done) == KILN_ERR_NOT_READY;
    uint64_t reuses = stats_of(context).reuses;
    TEST_OK(kiln_buffer_release(a));
    for (int i = 0; i < PENDING_BEHIND; ++i)
        TEST_OK(kiln_buffer_release(behind[i]));
    kiln_buffer *b = test_buffer(context, size);
    if (stats_of(context).reuses != reuses + 1)
        fail_msg("%s: B did not get A's pooled block: nothing tested", what);
    if (write_stream == NULL) {
        TEST_OK(kiln_buffer_write(b, 0, pattern, size));
    } else {
        TEST_OK(kiln_buffer_write_async(b, 0, pattern, size, write_stream));
        TEST_OK(kiln_stream_synchronize(write_stream));
    }
    TEST_OK(kiln_context_synchronize(context));
    TEST_OK(kiln_buffer_read(b, 0, got, size));
    for (int i = 0; i < ITEMS; ++i)
        if (got[i] != pattern[i])
            fail_msg("%s: B[%d] = %d, expected %d: the released buffer's "
                     "kernel wrote into the memory handed out again",
                     what, i, got[i], pattern[i]);
    if (!busy)
        print_message("# %s: the kernel had finished before A's release; "
                      "not a real test this time\n",
                      what);
    TEST_OK(kiln_event_release(done));
    TEST_OK(kiln_buffer_release(b));
}

static void test_busy_block_not_reused_early(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_pool_set_enabled(context, 1));
    slow_kernel slow = slow_kernel_open(context, 150.0f);
    kiln_stream *kernel_stream, *write_stream;
    TEST_OK(kiln_stream_create(context, &kernel_stream));
    TEST_OK(kiln_stream_create(context, &write_stream));
    check_no_reuse_while_busy(context, &slow, kernel_stream, NULL,
                              "kernel on a stream, synchronous write");
    check_no_reuse_while_busy(context, &slow, kernel_stream, write_stream,
                              "kernel on a stream, write on another");
    check_no_reuse_while_busy(context, &slow, NULL, write_stream,
                              "kernel on the default stream, write on a "
                              "stream");
    TEST_OK(kiln_stream_release(kernel_stream));
    TEST_OK(kiln_stream_release(write_stream));
    slow_kernel_close(&slow);
}

/* A block whose work is still running is not waited for while few of its
 * size are pending: the allocation gets fresh memory at once and the host
 * goes on (an array operation allocates its result while the one before
 * still runs); once the work is done, the block is taken back. */
static void test_busy_block_not_waited_for(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_pool_set_enabled(context, 1));
    slow_kernel slow = slow_kernel_open(context, 150.0f);
    const size_t size = ITEMS * sizeof(int32_t);
    TEST_OK(kiln_pool_trim(context));
    kiln_buffer *a = test_buffer(context, size);
    kiln_event *done;
    TEST_OK(kiln_event_create(context, &done));
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM1(ITEMS)};
    TEST_OK(kiln_launch_prepared(slow.kernel, &config, "Pii", a,
                                 (int32_t)slow.iterations, -1));
    TEST_OK(kiln_event_record(done, NULL));
    uint64_t reuses = stats_of(context).reuses;
    TEST_OK(kiln_buffer_release(a));
    /* Only meaningful while the kernel runs (it has ~150 ms to go). */
    bool busy = kiln_event_query(done) == KILN_ERR_NOT_READY;
    kiln_buffer *b = test_buffer(context, size);
    if (busy && stats_of(context).reuses != reuses)
        fail_msg("B was given A's block while A's kernel still ran: the "
                 "allocation waited for the device");
    if (!busy)
        print_message("# the kernel had finished before B was made; not a "
                      "real test this time\n");
    TEST_OK(kiln_context_synchronize(context));
    TEST_OK(kiln_buffer_release(b));
    /* Both blocks are idle now: the next allocation takes one back. */
    reuses = stats_of(context).reuses;
    kiln_buffer *c = test_buffer(context, size);
    if (stats_of(context).reuses != reuses + 1)
        fail_msg("an idle cached block was not reused");
    TEST_OK(kiln_buffer_release(c));
    TEST_OK(kiln_event_release(done));
    slow_kernel_close(&slow);
}

/* A buffer last used on one stream while a kernel on another stream still
 * writes it: the pool must wait for both. */
static void test_busy_on_two_streams(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_pool_set_enabled(context, 1));
    slow_kernel slow = slow_kernel_open(context, 150.0f);
    kiln_stream *first, *second;
    TEST_OK(kiln_stream_create(context, &first));
    TEST_OK(kiln_stream_create(context, &second));
    const size_t size = ITEMS * sizeof(int32_t);
    int32_t pattern[ITEMS], got[ITEMS];
    test_random_ints(pattern, ITEMS, 1, 1 << 30);
    TEST_OK(kiln_pool_trim(context));
    kiln_buffer *a = test_buffer(context, size);
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM1(ITEMS),
                                 .stream = first};
    TEST_OK(kiln_launch_prepared(slow.kernel, &config, "Pii", a,
                                 (int32_t)slow.iterations, -1));
    /* A quick use of A on the second stream, after which the first
     * stream's kernel is still running. */
    int32_t zero = 0;
    TEST_OK(kiln_buffer_fill_async(a, 0, sizeof zero, &zero, sizeof zero,
                                   second));
    TEST_OK(kiln_stream_synchronize(second));
    TEST_OK(kiln_buffer_release(a));
    kiln_buffer *b = test_buffer(context, size);
    TEST_OK(kiln_buffer_write(b, 0, pattern, size));
    TEST_OK(kiln_context_synchronize(context));
    TEST_OK(kiln_buffer_read(b, 0, got, size));
    for (int i = 0; i < ITEMS; ++i)
        if (got[i] != pattern[i])
            fail_msg("B[%d] = %d, expected %d: a kernel still running on "
                     "the first stream wrote into A's block after it was "
                     "handed out again (the pool waited for the second "
                     "stream only)",
                     i, got[i], pattern[i]);
    TEST_OK(kiln_buffer_release(b));
    TEST_OK(kiln_stream_release(first));
    TEST_OK(kiln_stream_release(second));
    slow_kernel_close(&slow);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_on_by_default_and_reuses),
        KILN_TEST(test_allocate_release_loop),
        KILN_TEST(test_trim),
        KILN_TEST(test_disabled_pool_frees),
        KILN_TEST(test_busy_block_not_reused_early),
        KILN_TEST(test_busy_block_not_waited_for),
        KILN_TEST(test_busy_on_two_streams),
    };
    return kiln_test_main("pool", tests, sizeof tests / sizeof tests[0]);
}
