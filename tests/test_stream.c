/*
 * Streams and events: in-order work on created streams (of either
 * priority), events recorded, waited for, queried and timed around real
 * kernels, the errors for events never recorded, one stream waiting for
 * another's event (a producer and a consumer on two streams; timed and
 * untimed events), streams released with work in flight, and streams and
 * events of two contexts mixed (KILN_ERR_CONTEXT_MISMATCH).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char stream_source[] =
    "__kernel void add_constant(__global int *a, int value)\n"
    "{\n"
    "    a[get_global_id(0)] += value;\n"
    "}\n"
    "\n"
    "/* Slow on purpose: a long dependent chain per item, so that a consumer\n"
    " * that did not wait would see the old contents. */\n"
    "__kernel void produce(__global const uint *in, __global uint *out,\n"
    "                      int rounds)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    uint x = in[i];\n"
    "    for (int r = 0; r < rounds; ++r)\n"
    "        x = x * 1664525u + 1013904223u;\n"
    "    out[i] = x;\n"
    "}\n"
    "\n"
    "__kernel void consume(__global const uint *in, __global uint *out)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = in[i] ^ 0x5a5a5a5au;\n"
    "}\n";

static uint32_t lcg_rounds(uint32_t x, int rounds)
{
    for (int r = 0; r < rounds; ++r)
        x = x * 1664525u + 1013904223u;
    return x;
}

static void add_constant_on(kiln_kernel *kernel, kiln_buffer *buffer,
                            size_t count, int32_t value, kiln_stream *stream)
{
    kiln_launch_config config = test_config_1d(count, 64);
    config.stream = stream;
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT(value)};
    TEST_OK(kiln_launch(kernel, &config, 2, args));
}

static void work_on_a_stream_runs_in_order(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, stream_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "add_constant");
    enum { COUNT = 4096 };
    int32_t *data = test_alloc(COUNT * sizeof *data);
    int32_t *back = test_alloc(COUNT * sizeof *back);
    test_random_ints(data, COUNT, -1000000, 1000000);
    kiln_stream *streams[3];
    kiln_buffer *buffers[3];
    int32_t added[3] = {0, 0, 0};
    /* An ordinary stream, a high-priority one and one asked for at normal
     * priority: each keeps its order whatever the priority. */
    TEST_OK(kiln_stream_create(context, &streams[0]));
    TEST_OK(kiln_stream_create_with_priority(
        context, KILN_STREAM_PRIORITY_HIGH, &streams[1]));
    TEST_OK(kiln_stream_create_with_priority(
        context, KILN_STREAM_PRIORITY_NORMAL, &streams[2]));
    kiln_stream_priority priority = KILN_STREAM_PRIORITY_HIGH;
    TEST_OK(kiln_stream_get_priority(streams[0], &priority));
    assert_int_equal(priority, KILN_STREAM_PRIORITY_NORMAL);
    TEST_OK(kiln_stream_get_priority(streams[2], &priority));
    assert_int_equal(priority, KILN_STREAM_PRIORITY_NORMAL);
    /* CUDA has priorities on every device Kiln supports; OpenCL none. */
    TEST_OK(kiln_stream_get_priority(streams[1], &priority));
    assert_int_equal(priority, strcmp(test_backend(state), "cuda") == 0
                                   ? KILN_STREAM_PRIORITY_HIGH
                                   : KILN_STREAM_PRIORITY_NORMAL);
    kiln_stream *default_stream = NULL;
    TEST_OK(kiln_context_get_default_stream(context, &default_stream));
    TEST_OK(kiln_stream_get_priority(default_stream, &priority));
    assert_int_equal(priority, KILN_STREAM_PRIORITY_NORMAL);
    kiln_stream *refused = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_stream_create_with_priority(
                   context, (kiln_stream_priority)7, &refused));
    TEST_ERROR_MENTIONS("priority 7");
    assert_null(refused);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_stream_get_priority(streams[0], NULL));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_stream_get_priority(NULL, &priority));
    for (int s = 0; s < 3; ++s) {
        buffers[s] = test_buffer(context, COUNT * sizeof *data);
        TEST_OK(kiln_buffer_write_async(buffers[s], 0, data,
                                        COUNT * sizeof *data, streams[s]));
    }
    /* Interleaved launches; each stream keeps its own order. */
    for (int round = 0; round < 5; ++round)
        for (int s = 0; s < 3; ++s) {
            int32_t value = (int32_t)(test_random_u64() % 1000) - 500;
            add_constant_on(kernel, buffers[s], COUNT, value, streams[s]);
            added[s] += value;
        }
    for (int s = 0; s < 3; ++s) {
        TEST_OK(kiln_buffer_read_async(buffers[s], 0, back,
                                       COUNT * sizeof *back, streams[s]));
        TEST_OK(kiln_stream_synchronize(streams[s]));
        for (int i = 0; i < COUNT; ++i)
            if (back[i] != data[i] + added[s])
                fail_msg("stream %d element %d: got %d, expected %d", s, i,
                         back[i], data[i] + added[s]);
        TEST_OK(kiln_buffer_release(buffers[s]));
        TEST_OK(kiln_stream_release(streams[s]));
    }
    free(data);
    free(back);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void stream_released_with_work_in_flight(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, stream_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "add_constant");
    enum { COUNT = 2048 };
    int32_t data[COUNT], back[COUNT];
    test_random_ints(data, COUNT, -1000, 1000);
    kiln_buffer *buffer = test_buffer_from(context, data, sizeof data);
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    TEST_OK(kiln_stream_retain(stream));
    add_constant_on(kernel, buffer, COUNT, 3, stream);
    TEST_OK(kiln_stream_release(stream)); /* one reference left */
    add_constant_on(kernel, buffer, COUNT, 4, stream);
    TEST_OK(kiln_stream_release(stream)); /* the last: work still queued */
    TEST_OK(kiln_context_synchronize(context));
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    for (int i = 0; i < COUNT; ++i)
        assert_int_equal(back[i], data[i] + 7);
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void events_time_a_real_kernel(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, stream_source, NULL);
    kiln_kernel *produce = test_kernel(program, "produce");
    enum { COUNT = 4096, ROUNDS = 2000 };
    uint32_t *in = test_alloc(COUNT * sizeof *in);
    uint32_t *out = test_alloc(COUNT * sizeof *out);
    test_random_bytes(in, COUNT * sizeof *in);
    kiln_buffer *in_buffer = test_buffer_from(context, in, COUNT * sizeof *in);
    kiln_buffer *out_buffer = test_buffer(context, COUNT * sizeof *out);
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    kiln_event *start = NULL, *end = NULL;
    TEST_OK(kiln_event_create(context, &start));
    TEST_OK(kiln_event_create(context, &end));

    TEST_OK(kiln_event_record(start, stream));
    kiln_launch_config config = test_config_1d(COUNT, 64);
    config.stream = stream;
    kiln_arg args[] = {KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer),
                       KILN_ARG_INT(ROUNDS)};
    TEST_OK(kiln_launch(produce, &config, 3, args));
    TEST_OK(kiln_event_record(end, stream));

    /* Not done yet, or done: either way no error text for NOT_READY. */
    kiln_status status = kiln_event_query(end);
    assert_true(status == KILN_OK || status == KILN_ERR_NOT_READY);
    assert_string_equal(kiln_last_error(), "");

    float milliseconds = -1;
    TEST_OK(kiln_event_elapsed(start, end, &milliseconds)); /* waits */
    print_message("# %d items x %d rounds: %.3f ms\n", COUNT, ROUNDS,
                  (double)milliseconds);
    assert_true(milliseconds >= 0);
    assert_true(milliseconds < 60000);
    TEST_OK(kiln_event_query(end));
    TEST_OK(kiln_event_query(start));
    TEST_OK(kiln_event_synchronize(end));
    assert_string_equal(kiln_last_error(), "");

    /* The kernel is done when its end event is. */
    TEST_OK(kiln_buffer_read_async(out_buffer, 0, out, COUNT * sizeof *out,
                                   stream));
    TEST_OK(kiln_stream_synchronize(stream));
    for (int i = 0; i < COUNT; ++i)
        if (out[i] != lcg_rounds(in[i], ROUNDS))
            fail_msg("element %d: got %u, expected %u", i, out[i],
                     lcg_rounds(in[i], ROUNDS));

    /* Events can be recorded again, also on the default stream. */
    TEST_OK(kiln_event_record(start, NULL));
    TEST_OK(kiln_event_record(end, NULL));
    TEST_OK(kiln_event_elapsed(start, end, &milliseconds));
    assert_true(milliseconds >= 0);

    /* A retained event outlives one release. */
    TEST_OK(kiln_event_retain(end));
    TEST_OK(kiln_event_release(end));
    TEST_OK(kiln_event_synchronize(end));

    TEST_OK(kiln_event_release(start));
    TEST_OK(kiln_event_release(end));
    TEST_OK(kiln_stream_release(stream));
    TEST_OK(kiln_buffer_release(in_buffer));
    TEST_OK(kiln_buffer_release(out_buffer));
    TEST_OK(kiln_kernel_release(produce));
    TEST_OK(kiln_program_release(program));
    free(in);
    free(out);
}

static void unrecorded_events_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_event *never = NULL, *recorded = NULL;
    TEST_OK(kiln_event_create(context, &never));
    TEST_OK(kiln_event_create(context, &recorded));
    TEST_OK(kiln_event_record(recorded, NULL));
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));

    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_event_synchronize(never));
    TEST_ERROR_MENTIONS("recorded");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_event_query(never));
    TEST_ERROR_MENTIONS("recorded");
    float milliseconds = 123.0f;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_event_elapsed(never, recorded, &milliseconds));
    TEST_ERROR_MENTIONS("recorded");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_event_elapsed(recorded, never, &milliseconds));
    assert_true(milliseconds == 123.0f);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_stream_wait_event(stream, never));
    TEST_ERROR_MENTIONS("recorded");

    TEST_OK(kiln_event_synchronize(recorded));
    TEST_OK(kiln_stream_wait_event(stream, recorded));
    TEST_OK(kiln_stream_synchronize(stream));
    TEST_OK(kiln_event_release(never));
    TEST_OK(kiln_event_release(recorded));
    TEST_OK(kiln_stream_release(stream));
}

static void consumer_stream_waits_for_the_producer(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, stream_source, NULL);
    kiln_kernel *produce = test_kernel(program, "produce");
    kiln_kernel *consume = test_kernel(program, "consume");
    enum { COUNT = 4096, ROUNDS = 2000 };
    uint32_t *in = test_alloc(COUNT * sizeof *in);
    uint32_t *out = test_alloc(COUNT * sizeof *out);
    kiln_stream *producer = NULL, *consumer = NULL;
    TEST_OK(kiln_stream_create(context, &producer));
    TEST_OK(kiln_stream_create(context, &consumer));
    /* Timed and untimed events order work alike. */
    kiln_event *timed = NULL, *untimed = NULL;
    TEST_OK(kiln_event_create(context, &timed));
    TEST_OK(kiln_event_create_untimed(context, &untimed));
    kiln_buffer *in_buffer = test_buffer(context, COUNT * sizeof *in);
    kiln_buffer *middle = test_buffer(context, COUNT * sizeof *in);
    kiln_buffer *out_buffer = test_buffer(context, COUNT * sizeof *out);

    for (int round = 0; round < 4; ++round) {
        kiln_event *produced = round % 2 ? untimed : timed;
        test_random_bytes(in, COUNT * sizeof *in);
        /* The middle buffer starts as zeros: a consumer that ran early
         * would read those. */
        uint32_t zero = 0;
        TEST_OK(kiln_buffer_fill(middle, 0, COUNT * sizeof *in, &zero,
                                 sizeof zero));
        TEST_OK(kiln_buffer_write_async(in_buffer, 0, in, COUNT * sizeof *in,
                                        producer));
        kiln_launch_config config = test_config_1d(COUNT, 64);
        config.stream = producer;
        kiln_arg produce_args[] = {KILN_ARG_BUFFER(in_buffer),
                                   KILN_ARG_BUFFER(middle),
                                   KILN_ARG_INT(ROUNDS)};
        TEST_OK(kiln_launch(produce, &config, 3, produce_args));
        TEST_OK(kiln_event_record(produced, producer));

        TEST_OK(kiln_stream_wait_event(consumer, produced));
        config.stream = consumer;
        kiln_arg consume_args[] = {KILN_ARG_BUFFER(middle),
                                   KILN_ARG_BUFFER(out_buffer)};
        TEST_OK(kiln_launch(consume, &config, 2, consume_args));
        TEST_OK(kiln_buffer_read_async(out_buffer, 0, out,
                                       COUNT * sizeof *out, consumer));
        TEST_OK(kiln_stream_synchronize(consumer));
        for (int i = 0; i < COUNT; ++i) {
            uint32_t expected = lcg_rounds(in[i], ROUNDS) ^ 0x5a5a5a5au;
            if (out[i] != expected)
                fail_msg("round %d element %d: got %u, expected %u", round, i,
                         out[i], expected);
        }
        /* The producer's event is complete once the consumer is done. */
        TEST_OK(kiln_event_query(produced));
    }
    /* An untimed event is never timed, and says so. */
    float milliseconds = 0;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_event_elapsed(timed, untimed, &milliseconds));
    TEST_ERROR_MENTIONS("untimed");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_event_elapsed(untimed, timed, &milliseconds));
    TEST_OK(kiln_event_elapsed(timed, timed, &milliseconds));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_event_create_untimed(NULL, &untimed));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_event_create_untimed(context, NULL));
    TEST_OK(kiln_buffer_release(in_buffer));
    TEST_OK(kiln_buffer_release(middle));
    TEST_OK(kiln_buffer_release(out_buffer));
    TEST_OK(kiln_event_release(timed));
    TEST_OK(kiln_event_release(untimed));
    TEST_OK(kiln_stream_release(producer));
    TEST_OK(kiln_stream_release(consumer));
    TEST_OK(kiln_kernel_release(produce));
    TEST_OK(kiln_kernel_release(consume));
    TEST_OK(kiln_program_release(program));
    free(in);
    free(out);
}

static void native_event_handle(void **state)
{
    kiln_context *context = test_context(state);
    kiln_event *event = NULL;
    TEST_OK(kiln_event_create(context, &event));
    void *handle = NULL;
    /* Before recording: allowed (NULL on OpenCL). */
    TEST_OK(kiln_event_get_native(event, &handle, sizeof handle));
    TEST_OK(kiln_event_record(event, NULL));
    TEST_OK(kiln_event_synchronize(event));
    TEST_OK(kiln_event_get_native(event, &handle, sizeof handle));
    assert_non_null(handle);
    unsigned char wrong[16];
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_event_get_native(event, wrong, 4));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_event_get_native(event, wrong, sizeof(void *) + 1));
    TEST_OK(kiln_event_release(event));
}

static void streams_and_events_of_two_contexts_do_not_mix(void **state)
{
    kiln_context *context = test_context(state);
    kiln_context *other = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &other));
    kiln_stream *stream = NULL, *foreign_stream = NULL;
    kiln_event *event = NULL, *foreign_event = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    TEST_OK(kiln_stream_create(other, &foreign_stream));
    TEST_OK(kiln_event_create(context, &event));
    TEST_OK(kiln_event_create(other, &foreign_event));
    TEST_OK(kiln_event_record(event, stream));
    TEST_OK(kiln_event_record(foreign_event, foreign_stream));
    int32_t data[64];
    test_random_ints(data, 64, 0, 100);
    kiln_buffer *buffer = test_buffer_from(context, data, sizeof data);
    kiln_buffer *foreign_buffer = test_buffer(other, sizeof data);
    int32_t back[64];
    const int32_t pattern = 5;

    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_event_record(event, foreign_stream));
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_event_record(foreign_event, stream));
    float milliseconds;
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_event_elapsed(event, foreign_event, &milliseconds));
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_buffer_write_async(buffer, 0, data, sizeof data,
                                       foreign_stream));
    TEST_ERROR_MENTIONS("kiln_buffer_write_async");
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_buffer_read_async(buffer, 0, back, sizeof back,
                                      foreign_stream));
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_buffer_fill_async(buffer, 0, sizeof data, &pattern,
                                      sizeof pattern, foreign_stream));
    /* A copy between two contexts goes on a stream of either, not of a
     * third. */
    kiln_context *third = NULL;
    kiln_stream *third_stream = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &third));
    TEST_OK(kiln_stream_create(third, &third_stream));
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_buffer_copy_async(foreign_buffer, 0, buffer, 0,
                                      sizeof data, third_stream));
    TEST_ERROR_MENTIONS("third");
    TEST_OK(kiln_stream_release(third_stream));
    TEST_OK(kiln_context_release(third));
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_buffer_copy_async(buffer, 0, buffer, 128, 64,
                                      foreign_stream));

    /* Nothing above changed the buffer. */
    TEST_OK(kiln_stream_synchronize(stream));
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);

    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_buffer_release(foreign_buffer));
    TEST_OK(kiln_event_release(event));
    TEST_OK(kiln_event_release(foreign_event));
    TEST_OK(kiln_stream_release(stream));
    TEST_OK(kiln_stream_release(foreign_stream));
    TEST_OK(kiln_context_release(other));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(work_on_a_stream_runs_in_order),
        KILN_TEST(stream_released_with_work_in_flight),
        KILN_TEST(events_time_a_real_kernel),
        KILN_TEST(unrecorded_events_are_refused),
        KILN_TEST(consumer_stream_waits_for_the_producer),
        KILN_TEST(native_event_handle),
        KILN_TEST(streams_and_events_of_two_contexts_do_not_mix),
    };
    return kiln_test_main("stream", tests, sizeof tests / sizeof *tests);
}
