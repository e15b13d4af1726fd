/*
 * Timed launches (kiln_launch_config.time_ms): a positive device time for
 * real work, more work takes longer (a deliberately weak check: 64 times
 * the work must take more than twice the time), the device time fits in
 * the host time the call took, a timed launch returns only when the kernel
 * is done, and a refused launch leaves time_ms alone.
 */
#include "config.h" /* _GNU_SOURCE: clock_gettime under -std=c11 */

#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ITEMS 1024
#define BLOCK 64

/* A dependent chain of multiply-adds per item: the time grows with
 * `iterations` and nothing can be folded away (the result is checked). */
static const char source[] =
    "kernel void spin(global float *x, int iterations)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    float v = x[i];\n"
    "    for (int k = 0; k < iterations; ++k)\n"
    "        v = v * 0.999f + 0.5f;\n"
    "    x[i] = v;\n"
    "}\n";

static float spin_reference(float v, int iterations)
{
    for (int k = 0; k < iterations; ++k)
        v = v * 0.999f + 0.5f;
    return v;
}

static double host_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

typedef struct timing_fixture {
    kiln_context *context;
    kiln_program *program;
    kiln_kernel *kernel;
    kiln_buffer *buffer;
    float input[ITEMS];
} timing_fixture;

static void fixture_open(void **state, timing_fixture *f)
{
    f->context = test_context(state);
    f->program = test_build(f->context, source, NULL);
    f->kernel = test_kernel(f->program, "spin");
    test_random_floats(f->input, ITEMS, 1.0f, 100.0f);
    f->buffer = test_buffer(f->context, sizeof f->input);
}

static void fixture_close(timing_fixture *f)
{
    TEST_OK(kiln_buffer_release(f->buffer));
    TEST_OK(kiln_kernel_release(f->kernel));
    TEST_OK(kiln_program_release(f->program));
}

/* One timed launch of `iterations` on `stream`; checks the result unless
 * `check` is false.  Returns the device time; `host` gets the host time
 * the call took. */
static float timed_spin(timing_fixture *f, int iterations, kiln_stream *stream,
                        double *host, bool check)
{
    TEST_OK(kiln_buffer_write(f->buffer, 0, f->input, sizeof f->input));
    float time_ms = -1.0f;
    kiln_launch_config config = test_config_1d(ITEMS, BLOCK);
    config.stream = stream;
    config.time_ms = &time_ms;
    double start = host_ms();
    TEST_OK(kiln_launch_prepared(f->kernel, &config, "Pi", f->buffer,
                                 (int32_t)iterations));
    *host = host_ms() - start;
    if (check) {
        /* Read at once, without synchronizing: the timed launch waited.
         * The read runs on the default stream; were the kernel still
         * running on `stream`, it would see the input. */
        float out[ITEMS];
        TEST_OK(kiln_buffer_read(f->buffer, 0, out, sizeof out));
        for (int i = 0; i < ITEMS; i += 37) {
            float expected = spin_reference(f->input[i], iterations);
            if (!(fabsf(out[i] - expected) <= 1e-3f * fabsf(expected)))
                fail_msg("item %d after %d iterations: %.7g, expected %.7g "
                         "(input %.7g)",
                         i, iterations, (double)out[i], (double)expected,
                         (double)f->input[i]);
        }
    }
    return time_ms;
}

static void test_positive_device_time(void **state)
{
    timing_fixture f;
    fixture_open(state, &f);
    double host;
    (void)timed_spin(&f, 10, NULL, &host, false); /* warm up */
    float time_ms = timed_spin(&f, 2000, NULL, &host, true);
    if (!(time_ms > 0.0f) || !isfinite(time_ms))
        fail_msg("a kernel of 2 million multiply-adds took %g ms",
                 (double)time_ms);
    /* The device cannot take longer than the synchronous call did (a
     * little slack for clocks read at different moments). */
    if ((double)time_ms > host * 1.1 + 1.0)
        fail_msg("device time %g ms is more than the %g ms the call took",
                 (double)time_ms, host);
    fixture_close(&f);
}

static void test_more_work_takes_longer(void **state)
{
    timing_fixture f;
    fixture_open(state, &f);
    enum { SMALL = 1000, FACTOR = 64 };
    double host;
    (void)timed_spin(&f, 10, NULL, &host, false); /* warm up */
    /* The fastest of a few runs of each: noise only ever adds time. */
    float small = INFINITY, large = INFINITY;
    for (int run = 0; run < 3; ++run) {
        float t = timed_spin(&f, SMALL, NULL, &host, run == 0);
        small = t < small ? t : small;
    }
    for (int run = 0; run < 2; ++run) {
        float t = timed_spin(&f, SMALL * FACTOR, NULL, &host, run == 0);
        large = t < large ? t : large;
    }
    print_message("# %d iterations: %.4f ms, %d: %.4f ms\n", SMALL,
                  (double)small, SMALL * FACTOR, (double)large);
    if (!(small > 0.0f))
        fail_msg("%d iterations took %g ms", SMALL, (double)small);
    if (!(large > 2.0f * small))
        fail_msg("%dx the work took %.4f ms against %.4f ms: not even twice "
                 "as long",
                 FACTOR, (double)large, (double)small);
    fixture_close(&f);
}

static void test_timed_launch_is_synchronous(void **state)
{
    timing_fixture f;
    fixture_open(state, &f);
    kiln_stream *stream;
    TEST_OK(kiln_stream_create(f.context, &stream));
    double host;
    /* Long enough that an asynchronous launch would still be running when
     * the read (on another stream) happens; timed_spin checks the data. */
    float time_ms = timed_spin(&f, 40000, stream, &host, true);
    if (!(time_ms > 0.0f))
        fail_msg("time_ms = %g", (double)time_ms);
    /* The stream has nothing left to do. */
    kiln_event *event;
    TEST_OK(kiln_event_create(f.context, &event));
    TEST_OK(kiln_event_record(event, stream));
    TEST_OK(kiln_event_synchronize(event));
    TEST_OK(kiln_event_query(event));
    TEST_OK(kiln_event_release(event));
    /* The default stream too. */
    time_ms = timed_spin(&f, 40000, NULL, &host, true);
    if (!(time_ms > 0.0f))
        fail_msg("time_ms = %g on the default stream", (double)time_ms);
    TEST_OK(kiln_stream_release(stream));
    fixture_close(&f);
}

static void test_refused_launch_leaves_time_alone(void **state)
{
    timing_fixture f;
    fixture_open(state, &f);
    float time_ms = -7.0f;
    kiln_launch_config config = test_config_1d(ITEMS, BLOCK);
    config.time_ms = &time_ms;
    config.grid.x = 0;
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH,
               kiln_launch_prepared(f.kernel, &config, "Pi", f.buffer, 1));
    config.grid.x = ITEMS / BLOCK;
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(f.kernel, &config, "Pl", f.buffer,
                                    (int64_t)1));
    if (time_ms != -7.0f)
        fail_msg("a refused timed launch wrote time_ms = %g", (double)time_ms);
    /* And an untimed launch never touches a time. */
    config.time_ms = NULL;
    TEST_OK(kiln_launch_prepared(f.kernel, &config, "Pi", f.buffer, 1));
    TEST_OK(kiln_context_synchronize(f.context));
    if (time_ms != -7.0f)
        fail_msg("time_ms changed by an untimed launch");
    fixture_close(&f);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_positive_device_time),
        KILN_TEST(test_more_work_takes_longer),
        KILN_TEST(test_timed_launch_is_synchronous),
        KILN_TEST(test_refused_launch_leaves_time_alone),
    };
    return kiln_test_main("timing", tests, sizeof tests / sizeof tests[0]);
}
