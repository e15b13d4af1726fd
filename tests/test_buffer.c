/*
 * Buffers: sizes that cannot exist, write/read/copy/fill round trips with
 * offsets on random data (bytes outside the range untouched), every
 * out-of-bounds shape on every transfer, NULL host pointers, the
 * asynchronous versions on a created and on the default stream, page-locked
 * host memory, and the memory pool's counters (tests/test_pool.c covers
 * the pool in depth: reuse while work is in flight, several streams).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kiln_device_info device_of(kiln_context *context)
{
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    return info;
}

static void assert_mentions_number(unsigned long long number)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", number);
    TEST_ERROR_MENTIONS(text);
}

/* A buffer of `size` random bytes, with its host mirror. */
static kiln_buffer *random_buffer(kiln_context *context, size_t size,
                                  unsigned char **mirror)
{
    *mirror = test_alloc(size);
    test_random_bytes(*mirror, size);
    return test_buffer_from(context, *mirror, size);
}

static void assert_buffer_holds(kiln_buffer *buffer, const unsigned char *mirror,
                                size_t size)
{
    unsigned char *back = test_alloc(size);
    memset(back, 0, size);
    TEST_OK(kiln_buffer_read(buffer, 0, back, size));
    for (size_t i = 0; i < size; ++i)
        if (back[i] != mirror[i])
            fail_msg("byte %zu of %zu: got 0x%02x, expected 0x%02x", i, size,
                     back[i], mirror[i]);
    free(back);
}

/* ---- creation ---------------------------------------------------------------- */

static void impossible_sizes_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info info = device_of(context);
    kiln_buffer *buffer = (kiln_buffer *)&info; /* must not be written */
    kiln_buffer *const untouched = buffer;

    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_buffer_create(context, 0, &buffer));
    assert_ptr_equal(buffer, untouched);

    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_buffer_create(context, SIZE_MAX, &buffer));
    assert_mentions_number(SIZE_MAX);
    assert_ptr_equal(buffer, untouched);

    assert_true(info.max_allocation > 0);
    if (info.max_allocation < SIZE_MAX) {
        size_t too_big = (size_t)info.max_allocation + 1;
        TEST_FAILS(KILN_ERR_INVALID_SIZE,
                   kiln_buffer_create(context, too_big, &buffer));
        assert_mentions_number(too_big);
        assert_mentions_number(info.max_allocation);
        assert_ptr_equal(buffer, untouched);
    }

    unsigned char byte = 7;
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_buffer_create_from(context, &byte, 0, &buffer));
    assert_ptr_equal(buffer, untouched);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_create_from(context, NULL, 16, &buffer));
    assert_ptr_equal(buffer, untouched);

    /* A one-byte buffer is fine. */
    kiln_buffer *tiny = test_buffer_from(context, &byte, 1);
    unsigned char back = 0;
    TEST_OK(kiln_buffer_read(tiny, 0, &back, 1));
    assert_int_equal(back, 7);
    TEST_OK(kiln_buffer_release(tiny));
}

/* Allocations until the device is full: KILN_ERR_OUT_OF_DEVICE_MEMORY,
 * after the pool has given back what it cached (one block of another size
 * class is cached first), and the device works again afterwards. */
static void filling_the_device_is_out_of_device_memory(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info info = device_of(context);
    if (info.unified_memory) {
        /* PoCL overcommits host memory and allocates on first use (and
         * aborts when that fails): filling it would exhaust the host. */
        print_message("# %s shares host memory: it cannot be filled without "
                      "exhausting the host\n",
                      info.name);
        skip();
    }
    uint64_t quarter = info.global_memory / 4 ? info.global_memory / 4 : 1;
    size_t chunk = (size_t)(info.max_allocation < quarter ? info.max_allocation
                                                          : quarter);
    size_t most = (size_t)(info.global_memory / chunk) + 2;
    kiln_buffer **held = test_alloc(most * sizeof *held);
    TEST_OK(kiln_pool_set_enabled(context, 1));
    kiln_buffer *cached = test_buffer(context, chunk / 2);
    TEST_OK(kiln_buffer_release(cached));

    size_t count = 0;
    kiln_status status = KILN_OK;
    bool failed_in_create = false;
    const unsigned char byte = 0x5c;
    while (count < most) {
        status = kiln_buffer_create(context, chunk, &held[count]);
        failed_in_create = status != KILN_OK;
        if (status != KILN_OK)
            break;
        ++count;
        /* Some drivers allocate on first use: touch the last byte. */
        status = kiln_buffer_write(held[count - 1], chunk - 1, &byte, 1);
        if (status != KILN_OK)
            break;
    }
    char message[1024];
    snprintf(message, sizeof message, "%s", kiln_last_error());
    kiln_pool_stats stats;
    TEST_OK(kiln_pool_get_stats(context, &stats));
    for (size_t i = 0; i < count; ++i)
        TEST_OK(kiln_buffer_release(held[i]));
    free(held);
    TEST_OK(kiln_pool_trim(context));
    print_message("# %zu buffers of %zu bytes, then %s: %s\n", count, chunk,
                  kiln_status_name(status), message);
    if (status == KILN_OK)
        fail_msg("%zu buffers of %zu bytes on a device of %llu bytes, and no "
                 "error", count, chunk,
                 (unsigned long long)info.global_memory);
    if (status != KILN_ERR_OUT_OF_DEVICE_MEMORY)
        fail_msg("%s (%s), expected KILN_ERR_OUT_OF_DEVICE_MEMORY",
                 kiln_status_name(status), message);
    assert_true(message[0] != '\0');
    /* The pool empties itself before an allocation gives up (a driver that
     * allocates on first use fails in the write instead, past the pool). */
    if (failed_in_create)
        assert_true(stats.bytes_cached == 0);

    /* Freed, the memory is usable again. */
    unsigned char *mirror;
    kiln_buffer *again = random_buffer(context, 4096, &mirror);
    assert_buffer_holds(again, mirror, 4096);
    TEST_OK(kiln_buffer_release(again));
    free(mirror);
}

static void huge_page_locked_allocations_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    void *host = NULL;
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_host_alloc(context, SIZE_MAX, &host));
    assert_mentions_number(SIZE_MAX);
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_host_alloc(context, SIZE_MAX / 2 + 1, &host));
    assert_null(host);
    unsigned char byte = 1;
    kiln_buffer *buffer = NULL;
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_buffer_create_from(context, &byte, SIZE_MAX, &buffer));
    assert_null(buffer);
}

static void size_and_context_queries(void **state)
{
    kiln_context *context = test_context(state);
    const size_t sizes[] = {1, 3, 511, 512, 513, 4097, 100003};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
        kiln_buffer *buffer = test_buffer(context, sizes[i]);
        size_t size = 0;
        TEST_OK(kiln_buffer_get_size(buffer, &size));
        assert_int_equal(size, sizes[i]); /* what was asked, not the pool's */
        kiln_context *owner = NULL;
        TEST_OK(kiln_buffer_get_context(buffer, &owner));
        assert_ptr_equal(owner, context);
        TEST_OK(kiln_buffer_release(buffer));
    }
}

static void retained_buffer_keeps_its_contents(void **state)
{
    kiln_context *context = test_context(state);
    unsigned char *mirror;
    kiln_buffer *buffer = random_buffer(context, 3001, &mirror);
    TEST_OK(kiln_buffer_retain(buffer));
    TEST_OK(kiln_buffer_release(buffer));
    assert_buffer_holds(buffer, mirror, 3001);
    TEST_OK(kiln_buffer_release(buffer));
    free(mirror);
}

/* ---- transfers ---------------------------------------------------------------- */

static void write_read_round_trips_with_offsets(void **state)
{
    kiln_context *context = test_context(state);
    const size_t size = 65536 + 13;
    unsigned char *mirror;
    kiln_buffer *buffer = random_buffer(context, size, &mirror);
    assert_buffer_holds(buffer, mirror, size);

    unsigned char *scratch = test_alloc(size);
    for (int round = 0; round < 40; ++round) {
        size_t offset = (size_t)(test_random_u64() % size);
        size_t length = 1 + (size_t)(test_random_u64() % (size - offset));
        if (round % 2 == 0) {
            test_random_bytes(scratch, length);
            TEST_OK(kiln_buffer_write(buffer, offset, scratch, length));
            memcpy(mirror + offset, scratch, length);
        } else {
            memset(scratch, 0, length);
            TEST_OK(kiln_buffer_read(buffer, offset, scratch, length));
            if (memcmp(scratch, mirror + offset, length) != 0)
                fail_msg("read of [%zu, %zu) differs", offset,
                         offset + length);
        }
    }
    /* The exact last byte, and the whole buffer again. */
    unsigned char last = 0x3c;
    TEST_OK(kiln_buffer_write(buffer, size - 1, &last, 1));
    mirror[size - 1] = last;
    assert_buffer_holds(buffer, mirror, size);
    TEST_OK(kiln_buffer_release(buffer));
    free(scratch);
    free(mirror);
}

static void copies_within_and_across_buffers(void **state)
{
    kiln_context *context = test_context(state);
    const size_t size = 20000;
    unsigned char *a_mirror, *b_mirror;
    kiln_buffer *a = random_buffer(context, size, &a_mirror);
    kiln_buffer *b = random_buffer(context, size + 77, &b_mirror);

    for (int round = 0; round < 12; ++round) {
        size_t length = 1 + (size_t)(test_random_u64() % 5000);
        size_t from = (size_t)(test_random_u64() % (size - length));
        size_t to = (size_t)(test_random_u64() % (size - length));
        TEST_OK(kiln_buffer_copy(b, to, a, from, length));
        memmove(b_mirror + to, a_mirror + from, length);
        /* Within one buffer: the two halves never overlap. */
        size_t half = size / 2;
        size_t inner = 1 + (size_t)(test_random_u64() % (half - 1));
        size_t low = (size_t)(test_random_u64() % (half - inner + 1));
        size_t high = half + (size_t)(test_random_u64() % (half - inner + 1));
        if (round % 2) {
            TEST_OK(kiln_buffer_copy(a, low, a, high, inner));
            memmove(a_mirror + low, a_mirror + high, inner);
        } else {
            TEST_OK(kiln_buffer_copy(a, high, a, low, inner));
            memmove(a_mirror + high, a_mirror + low, inner);
        }
    }
    assert_buffer_holds(a, a_mirror, size);
    assert_buffer_holds(b, b_mirror, size + 77);

    /* Ranges that touch but do not overlap are fine. */
    TEST_OK(kiln_buffer_copy(a, 100, a, 0, 100));
    memmove(a_mirror + 100, a_mirror, 100);
    TEST_OK(kiln_buffer_copy(a, 0, a, 100, 100));
    memmove(a_mirror, a_mirror + 100, 100);
    assert_buffer_holds(a, a_mirror, size);

    /* Overlap in either direction, and a copy onto itself. */
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_buffer_copy(a, 50, a, 0, 100));
    TEST_ERROR_MENTIONS("overlap");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_buffer_copy(a, 0, a, 99, 100));
    TEST_ERROR_MENTIONS("overlap");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_buffer_copy(a, 8, a, 8, 1));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_copy_async(a, 10, a, 0, 11, NULL));
    assert_buffer_holds(a, a_mirror, size);

    /* Buffers of two contexts: the same bounds checks as within one
     * (copies that succeed are tests/test_multi_device.c's). */
    kiln_context *other = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &other));
    kiln_buffer *foreign = test_buffer(other, size);
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_buffer_copy(foreign, 1, a, 0, size));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_buffer_copy_async(a, 0, foreign, size - 15, 16, NULL));
    TEST_OK(kiln_buffer_release(foreign));
    TEST_OK(kiln_context_release(other));
    assert_buffer_holds(a, a_mirror, size);

    TEST_OK(kiln_buffer_release(a));
    TEST_OK(kiln_buffer_release(b));
    free(a_mirror);
    free(b_mirror);
}

static void fills_repeat_every_pattern_size(void **state)
{
    kiln_context *context = test_context(state);
    const size_t size = 8192;
    unsigned char *mirror;
    kiln_buffer *buffer = random_buffer(context, size, &mirror);
    static const size_t pattern_sizes[] = {1, 2, 4, 8, 16};
    for (int round = 0; round < 3; ++round) {
        for (size_t p = 0; p < 5; ++p) {
            size_t pattern_size = pattern_sizes[p];
            unsigned char pattern[16];
            test_random_bytes(pattern, sizeof pattern);
            size_t units = size / pattern_size;
            size_t first = 1 + (size_t)(test_random_u64() % (units / 2));
            size_t count =
                1 + (size_t)(test_random_u64() % (units - first - 1));
            size_t offset = first * pattern_size;
            size_t length = count * pattern_size;
            TEST_OK(kiln_buffer_fill(buffer, offset, length, pattern,
                                     pattern_size));
            for (size_t i = 0; i < length; ++i)
                mirror[offset + i] = pattern[i % pattern_size];
            assert_buffer_holds(buffer, mirror, size);
        }
    }
    /* A whole-buffer fill. */
    uint32_t word = 0xdeadbeefu;
    TEST_OK(kiln_buffer_fill(buffer, 0, size, &word, sizeof word));
    for (size_t i = 0; i < size; i += 4)
        memcpy(mirror + i, &word, 4);
    assert_buffer_holds(buffer, mirror, size);

    /* Misaligned ranges and bad pattern sizes are refused, writing
     * nothing. */
    unsigned char pattern[32] = {1, 2, 3};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_fill(buffer, 2, 16, pattern, 4));
    TEST_ERROR_MENTIONS("multiple");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_fill(buffer, 16, 18, pattern, 8));
    TEST_ERROR_MENTIONS("multiple");
    static const size_t bad_sizes[] = {0, 3, 5, 12, 32};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof *bad_sizes; ++i) {
        TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
                   kiln_buffer_fill(buffer, 0, 96, pattern, bad_sizes[i]));
        TEST_ERROR_MENTIONS("pattern_size");
    }
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_fill(buffer, 0, 16, NULL, 4));
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_buffer_fill(buffer, 0, 0, pattern, 4));
    assert_buffer_holds(buffer, mirror, size);
    TEST_OK(kiln_buffer_release(buffer));
    free(mirror);
}

/* One refused range: OUT_OF_BOUNDS naming the buffer's size. */
#define EXPECT_OUT_OF_BOUNDS(call)                                             \
    do {                                                                       \
        TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS, call);                              \
        TEST_ERROR_MENTIONS(size_text);                                        \
    } while (0)

static void every_out_of_bounds_range_is_refused(void **state)
{
    kiln_context *context = test_context(state);
    const size_t size = 4000;
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", size);
    unsigned char *mirror;
    kiln_buffer *buffer = random_buffer(context, size, &mirror);
    unsigned char *other_mirror;
    kiln_buffer *other = random_buffer(context, size, &other_mirror);
    unsigned char *host = test_alloc(2 * size);
    test_random_bytes(host, 2 * size);
    unsigned char pattern[16] = {9, 9, 9, 9};
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));

    /* {offset, size} pairs, each past the end in its own way. */
    const size_t ranges[][2] = {
        {size + 1, 1},            /* offset past the end           */
        {size, 16},               /* offset at the end             */
        {size - 15, 16 + 16},     /* runs over the end             */
        {0, size + 16},           /* longer than the buffer        */
        {16, SIZE_MAX - 15},      /* offset + size wraps around     */
        {SIZE_MAX - 15, 32},      /* offset near SIZE_MAX           */
        {SIZE_MAX, SIZE_MAX},     /* both at the top                */
    };
    for (size_t r = 0; r < sizeof ranges / sizeof *ranges; ++r) {
        size_t offset = ranges[r][0], length = ranges[r][1];
        EXPECT_OUT_OF_BOUNDS(kiln_buffer_write(buffer, offset, host, length));
        EXPECT_OUT_OF_BOUNDS(kiln_buffer_read(buffer, offset, host, length));
        EXPECT_OUT_OF_BOUNDS(
            kiln_buffer_fill(buffer, offset, length, pattern, 1));
        EXPECT_OUT_OF_BOUNDS(
            kiln_buffer_copy(buffer, offset, other, 0, length));
        EXPECT_OUT_OF_BOUNDS(
            kiln_buffer_copy(other, 0, buffer, offset, length));
        EXPECT_OUT_OF_BOUNDS(
            kiln_buffer_write_async(buffer, offset, host, length, stream));
        EXPECT_OUT_OF_BOUNDS(
            kiln_buffer_read_async(buffer, offset, host, length, NULL));
        EXPECT_OUT_OF_BOUNDS(
            kiln_buffer_fill_async(buffer, offset, length, pattern, 1, stream));
        EXPECT_OUT_OF_BOUNDS(kiln_buffer_copy_async(buffer, offset, other, 0,
                                                    length, stream));
        EXPECT_OUT_OF_BOUNDS(kiln_buffer_copy_async(other, 0, buffer, offset,
                                                    length, NULL));
    }
    /* The message gives the range that was asked for. */
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_buffer_write(buffer, 3990, host, 20));
    TEST_ERROR_MENTIONS("3990");
    TEST_ERROR_MENTIONS("4010");
    TEST_ERROR_MENTIONS("kiln_buffer_write");

    /* Size 0 is its own error, even at a valid offset. */
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_buffer_write(buffer, 0, host, 0));
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_buffer_read(buffer, 10, host, 0));
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_buffer_copy(buffer, 0, other, 0, 0));
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_buffer_write_async(buffer, 0, host, 0, stream));

    /* Nothing was written by any refused call. */
    TEST_OK(kiln_stream_synchronize(stream));
    assert_buffer_holds(buffer, mirror, size);
    assert_buffer_holds(other, other_mirror, size);

    /* Exactly up to the end is in bounds. */
    TEST_OK(kiln_buffer_write(buffer, size - 16, host, 16));
    memcpy(mirror + size - 16, host, 16);
    TEST_OK(kiln_buffer_copy(other, size - 100, buffer, 0, 100));
    memcpy(other_mirror + size - 100, mirror, 100);
    assert_buffer_holds(buffer, mirror, size);
    assert_buffer_holds(other, other_mirror, size);

    TEST_OK(kiln_stream_release(stream));
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_buffer_release(other));
    free(mirror);
    free(other_mirror);
    free(host);
}

static void null_host_pointers_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    unsigned char *mirror;
    kiln_buffer *buffer = random_buffer(context, 256, &mirror);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_buffer_write(buffer, 0, NULL, 4));
    TEST_ERROR_MENTIONS("NULL");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_buffer_read(buffer, 0, NULL, 4));
    TEST_ERROR_MENTIONS("NULL");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_write_async(buffer, 0, NULL, 4, NULL));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_read_async(buffer, 0, NULL, 4, NULL));
    assert_buffer_holds(buffer, mirror, 256);
    TEST_OK(kiln_buffer_release(buffer));
    free(mirror);
}

/* Write, copy, fill and read back asynchronously on `stream` (NULL: the
 * default stream), then check. */
static void async_round_trip(kiln_context *context, kiln_stream *stream)
{
    enum { COUNT = 30000 };
    const size_t bytes = COUNT * sizeof(float);
    float *data = test_alloc(bytes);
    float *back = test_alloc(bytes);
    float *copied = test_alloc(bytes);
    float *expected = test_alloc(bytes);
    test_random_floats(data, COUNT, -1000, 1000);
    kiln_buffer *source = test_buffer(context, bytes);
    kiln_buffer *destination = test_buffer(context, bytes);
    float fill_value = test_random_float(1, 2);

    TEST_OK(kiln_buffer_write_async(source, 0, data, bytes, stream));
    TEST_OK(kiln_buffer_copy_async(destination, 0, source, 0, bytes, stream));
    /* Fill the first thousand floats of the source after the copy. */
    TEST_OK(kiln_buffer_fill_async(source, 0, 1000 * sizeof(float),
                                   &fill_value, sizeof fill_value, stream));
    TEST_OK(kiln_buffer_read_async(source, 0, back, bytes, stream));
    TEST_OK(kiln_buffer_read_async(destination, 0, copied, bytes, stream));
    kiln_stream *queue = stream;
    if (queue == NULL)
        TEST_OK(kiln_context_get_default_stream(context, &queue));
    TEST_OK(kiln_stream_synchronize(queue));

    memcpy(expected, data, bytes);
    for (int i = 0; i < 1000; ++i)
        expected[i] = fill_value;
    test_assert_floats_near(back, expected, COUNT, 0);
    test_assert_floats_near(copied, data, COUNT, 0);

    TEST_OK(kiln_buffer_release(source));
    TEST_OK(kiln_buffer_release(destination));
    free(data);
    free(back);
    free(copied);
    free(expected);
}

static void async_transfers_on_a_created_stream(void **state)
{
    kiln_context *context = test_context(state);
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    async_round_trip(context, stream);
    TEST_OK(kiln_stream_release(stream));
}

static void async_transfers_on_the_default_stream(void **state)
{
    kiln_context *context = test_context(state);
    async_round_trip(context, NULL);
}

static void sync_transfers_follow_queued_async_work(void **state)
{
    kiln_context *context = test_context(state);
    enum { COUNT = 8192 };
    int32_t *data = test_alloc(COUNT * sizeof *data);
    int32_t *back = test_alloc(COUNT * sizeof *back);
    test_random_ints(data, COUNT, INT32_MIN, INT32_MAX);
    kiln_buffer *buffer = test_buffer(context, COUNT * sizeof *data);
    /* A synchronous read runs after work already queued on the default
     * stream. */
    TEST_OK(kiln_buffer_write_async(buffer, 0, data, COUNT * sizeof *data,
                                    NULL));
    TEST_OK(kiln_buffer_read(buffer, 0, back, COUNT * sizeof *back));
    assert_memory_equal(back, data, COUNT * sizeof *data);
    TEST_OK(kiln_buffer_release(buffer));
    free(data);
    free(back);
}

/* ---- page-locked host memory ------------------------------------------------------ */

static void page_locked_memory_serves_async_copies(void **state)
{
    kiln_context *context = test_context(state);
    const size_t bytes = 1 << 20;
    unsigned char *out = NULL, *in = NULL;
    TEST_OK(kiln_host_alloc(context, bytes, (void **)&out));
    TEST_OK(kiln_host_alloc(context, bytes, (void **)&in));
    assert_non_null(out);
    assert_non_null(in);
    assert_ptr_not_equal(out, in);
    test_random_bytes(out, bytes);
    memset(in, 0, bytes);

    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    kiln_buffer *buffer = test_buffer(context, bytes);
    TEST_OK(kiln_buffer_write_async(buffer, 0, out, bytes, stream));
    TEST_OK(kiln_buffer_read_async(buffer, 4096, in, bytes - 4096, stream));
    TEST_OK(kiln_stream_synchronize(stream));
    assert_memory_equal(in, out + 4096, bytes - 4096);

    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_stream_release(stream));
    TEST_OK(kiln_host_free(context, out));
    TEST_OK(kiln_host_free(context, in));
}

static void host_free_refuses_foreign_pointers(void **state)
{
    kiln_context *context = test_context(state);
    void *pinned = NULL;
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_host_alloc(context, 0, &pinned));
    assert_null(pinned);
    TEST_OK(kiln_host_alloc(context, 4096, &pinned));

    void *heap = test_alloc(64);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_host_free(context, heap));
    TEST_ERROR_MENTIONS("kiln_host_alloc");
    free(heap);
    /* Inside the allocation, but not its start. */
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_host_free(context, (char *)pinned + 64));

    /* Another context's allocation. */
    kiln_context *other = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &other));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_host_free(other, pinned));
    TEST_OK(kiln_context_release(other));

    memset(pinned, 0x42, 4096); /* still ours */
    TEST_OK(kiln_host_free(context, pinned));
    /* A second free of the same pointer. */
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_host_free(context, pinned));
}

static void context_frees_forgotten_page_locked_memory(void **state)
{
    (void)test_context(state);
    kiln_context *context = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    void *forgotten = NULL;
    TEST_OK(kiln_host_alloc(context, 65536, &forgotten));
    memset(forgotten, 1, 65536);
    /* The context's last release frees it (valgrind would report it). */
    TEST_OK(kiln_context_release(context));
}

/* ---- the pool ---------------------------------------------------------------------- */

static kiln_pool_stats pool_stats(kiln_context *context)
{
    kiln_pool_stats stats;
    TEST_OK(kiln_pool_get_stats(context, &stats));
    return stats;
}

static void pool_reuses_released_blocks(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_pool_set_enabled(context, 1));
    TEST_OK(kiln_pool_trim(context));
    kiln_pool_stats start = pool_stats(context);
    assert_true(start.bytes_cached == 0);

    const size_t size = 3000;
    kiln_buffer *buffer = test_buffer(context, size);
    kiln_pool_stats held = pool_stats(context);
    assert_true(held.allocations == start.allocations + 1);
    assert_true(held.reuses == start.reuses);
    uint64_t capacity = held.bytes_in_use - start.bytes_in_use;
    assert_true(capacity >= size);
    assert_true(held.bytes_cached == 0);

    TEST_OK(kiln_buffer_release(buffer));
    kiln_pool_stats cached = pool_stats(context);
    assert_true(cached.bytes_in_use == start.bytes_in_use);
    assert_true(cached.bytes_cached == capacity);

    /* The same size again comes from the pool, and works. */
    int32_t data[750], back[750];
    test_random_ints(data, 750, INT32_MIN, INT32_MAX);
    buffer = test_buffer_from(context, data, sizeof data);
    kiln_pool_stats reused = pool_stats(context);
    assert_true(reused.allocations == start.allocations + 2);
    assert_true(reused.reuses == start.reuses + 1);
    assert_true(reused.bytes_cached == 0);
    assert_true(reused.bytes_in_use == start.bytes_in_use + capacity);
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);

    /* A very different size does not take a cached block. */
    kiln_buffer *big = test_buffer(context, 1 << 20);
    TEST_OK(kiln_buffer_release(big));
    kiln_pool_stats after_big = pool_stats(context);
    assert_true(after_big.reuses == start.reuses + 1);
    assert_true(after_big.bytes_cached >= (1u << 20));

    /* Trimming empties the cache, not the live buffers. */
    TEST_OK(kiln_pool_trim(context));
    kiln_pool_stats trimmed = pool_stats(context);
    assert_true(trimmed.bytes_cached == 0);
    assert_true(trimmed.bytes_in_use == start.bytes_in_use + capacity);
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    TEST_OK(kiln_buffer_release(buffer));

    /* After a trim, nothing is reused. */
    TEST_OK(kiln_pool_trim(context));
    buffer = test_buffer(context, size);
    kiln_pool_stats fresh = pool_stats(context);
    assert_true(fresh.reuses == start.reuses + 1);
    TEST_OK(kiln_buffer_release(buffer));
}

static void disabled_pool_caches_nothing(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_pool_set_enabled(context, 1));
    kiln_buffer *buffer = test_buffer(context, 5000);
    TEST_OK(kiln_buffer_release(buffer));
    assert_true(pool_stats(context).bytes_cached > 0);

    /* Disabling empties the cache at once. */
    TEST_OK(kiln_pool_set_enabled(context, 0));
    kiln_pool_stats start = pool_stats(context);
    assert_true(start.bytes_cached == 0);
    for (int i = 0; i < 3; ++i) {
        buffer = test_buffer(context, 5000);
        assert_true(pool_stats(context).bytes_in_use >=
                    start.bytes_in_use + 5000);
        TEST_OK(kiln_buffer_release(buffer));
        kiln_pool_stats now = pool_stats(context);
        assert_true(now.bytes_cached == 0);
        assert_true(now.bytes_in_use == start.bytes_in_use);
    }
    kiln_pool_stats end = pool_stats(context);
    assert_true(end.allocations == start.allocations + 3);
    assert_true(end.reuses == start.reuses);

    /* Enabled again, it caches again. */
    TEST_OK(kiln_pool_set_enabled(context, 1));
    buffer = test_buffer(context, 5000);
    TEST_OK(kiln_buffer_release(buffer));
    assert_true(pool_stats(context).bytes_cached > 0);
}

static void native_buffer_handles(void **state)
{
    kiln_context *context = test_context(state);
    kiln_buffer *a = test_buffer(context, 1024);
    kiln_buffer *b = test_buffer(context, 1024);
    /* cl_mem is a pointer; CUdeviceptr a 64-bit integer. */
    const size_t size = strcmp(test_backend(state), "cuda") == 0
                            ? sizeof(unsigned long long)
                            : sizeof(void *);
    uint64_t handle_a = 0, handle_b = 0;
    TEST_OK(kiln_buffer_get_native(a, &handle_a, size));
    TEST_OK(kiln_buffer_get_native(b, &handle_b, size));
    assert_true(handle_a != 0);
    assert_true(handle_b != 0);
    assert_true(handle_a != handle_b);
    unsigned char wrong[16];
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_buffer_get_native(a, wrong, 4));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_get_native(a, wrong, size + 1));
    TEST_OK(kiln_buffer_release(a));
    TEST_OK(kiln_buffer_release(b));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(impossible_sizes_are_refused),
        KILN_TEST(filling_the_device_is_out_of_device_memory),
        KILN_TEST(huge_page_locked_allocations_are_refused),
        KILN_TEST(size_and_context_queries),
        KILN_TEST(retained_buffer_keeps_its_contents),
        KILN_TEST(write_read_round_trips_with_offsets),
        KILN_TEST(copies_within_and_across_buffers),
        KILN_TEST(fills_repeat_every_pattern_size),
        KILN_TEST(every_out_of_bounds_range_is_refused),
        KILN_TEST(null_host_pointers_are_refused),
        KILN_TEST(async_transfers_on_a_created_stream),
        KILN_TEST(async_transfers_on_the_default_stream),
        KILN_TEST(sync_transfers_follow_queued_async_work),
        KILN_TEST(page_locked_memory_serves_async_copies),
        KILN_TEST(host_free_refuses_foreign_pointers),
        KILN_TEST(context_frees_forgotten_page_locked_memory),
        KILN_TEST(pool_reuses_released_blocks),
        KILN_TEST(disabled_pool_caches_nothing),
        KILN_TEST(native_buffer_handles),
    };
    return kiln_test_main("buffer", tests, sizeof tests / sizeof *tests);
}
