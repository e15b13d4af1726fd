/*
 * The checked mode for out-of-bounds writes (KILN_CHECK=bounds, or
 * kiln_context_set_checks): buffers made in it carry guard zones, and
 * after each launch a write past either end of a buffer argument is
 * KILN_ERR_KERNEL_FAULT naming the kernel, the argument, the buffer and
 * the bytes overwritten.  Kernels that overrun by one element, at the end,
 * before the start, and through host Out arrays; kernels that stay inside
 * compute the same results as without checks.  Off by default.
 *
 * On OpenCL the checked mode's kernels are instrumented (issue 29): an
 * access outside its argument is reported as it happens, through the
 * argument it went through, and is not carried out; the guard zones are
 * what CUDA has.  tests/test_bounds_reads.c tests the reads.
 */
#include "config.h" /* _GNU_SOURCE: setenv under -std=c11 */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char overrun_source[] =
    "__kernel void scale_overrun(__global float *out,\n"
    "                            __global const float *in, float a, int n,\n"
    "                            int before, int after) {\n"
    "    int i = (int)get_global_id(0);\n"
    "    if (i < n)\n"
    "        out[i] = a * in[i];\n"
    "    if (i == 0 && before)\n"
    "        out[-1] = 1.5f;\n"
    "    if (i == 0 && after)\n"
    "        out[n] = 2.5f;\n"
    "}\n";

enum { N = 1000 };

typedef struct overrun_case {
    kiln_context *context;
    kiln_program *program;
    kiln_kernel *kernel;
    kiln_buffer *out;
    kiln_buffer *in;
    float input[N];
    float expected[N];
    float a;
} overrun_case;

static void case_open(overrun_case *c, kiln_context *context)
{
    c->context = context;
    c->program = test_build(context, overrun_source, NULL);
    c->kernel = test_kernel(c->program, "scale_overrun");
    test_random_floats(c->input, N, -100, 100);
    c->a = test_random_float(0.5f, 3.0f);
    for (size_t i = 0; i < N; ++i)
        c->expected[i] = c->a * c->input[i];
    c->out = test_buffer(context, N * sizeof(float));
    c->in = test_buffer_from(context, c->input, sizeof c->input);
}

static void case_close(overrun_case *c)
{
    TEST_OK(kiln_buffer_release(c->out));
    TEST_OK(kiln_buffer_release(c->in));
    TEST_OK(kiln_kernel_release(c->kernel));
    TEST_OK(kiln_program_release(c->program));
}

static kiln_status case_launch(overrun_case *c, int before, int after)
{
    kiln_launch_config config = test_config_1d(N, 64);
    return kiln_launch_prepared(c->kernel, &config, "PPfiii", c->out, c->in,
                                (double)c->a, (int)N, before, after);
}

/* The elements inside the buffer are what the CPU computes. */
static void case_check_results(overrun_case *c)
{
    float result[N];
    TEST_OK(kiln_buffer_read(c->out, 0, result, sizeof result));
    test_assert_floats_near(result, c->expected, N, 1e-6);
}

/* Whether the backend's checked mode instruments accesses (OpenCL). */
static bool instrumented(void **state)
{
    return strcmp(test_backend(state), "opencl") == 0;
}

/* The message of a store of 4 bytes at byte `offset` of argument 0,
 * found by either check. */
static void expect_store_at(void **state, long offset)
{
    char text[64];
    if (instrumented(state))
        snprintf(text, sizeof text, "wrote 4 bytes at byte offset %ld",
                 offset);
    else
        snprintf(text, sizeof text, "[%ld, %ld)", offset, offset + 4);
    TEST_ERROR_MENTIONS(text);
    TEST_ERROR_MENTIONS(offset < 0 ? "before its start" : "past its end");
}

static kiln_context *checked_context(void **state)
{
    kiln_context *context = NULL;
    (void)test_context(state); /* skips an unavailable backend */
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    TEST_OK(kiln_context_set_checks(context, KILN_CHECK_BOUNDS));
    unsigned checks = 0;
    TEST_OK(kiln_context_get_checks(context, &checks));
    assert_int_equal(checks, KILN_CHECK_BOUNDS);
    return context;
}

static void checks_are_off_by_default(void **state)
{
    kiln_context *context = test_context(state);
    unsigned checks = 99;
    TEST_OK(kiln_context_get_checks(context, &checks));
    assert_int_equal(checks, 0);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_context_set_checks(context, 0x80u));
    TEST_ERROR_MENTIONS("kiln_context_set_checks");
}

static void write_one_past_the_end_is_caught(void **state)
{
    kiln_context *context = checked_context(state);
    overrun_case c;
    case_open(&c, context);
    TEST_OK(case_launch(&c, 0, 0));
    case_check_results(&c);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, case_launch(&c, 0, 1));
    TEST_ERROR_MENTIONS("scale_overrun");
    TEST_ERROR_MENTIONS("argument 0");
    TEST_ERROR_MENTIONS("out");
    TEST_ERROR_MENTIONS("4000 bytes");
    expect_store_at(state, 4000);
    case_check_results(&c);
    /* The guards are whole again: the next good launch is clean. */
    TEST_OK(case_launch(&c, 0, 0));
    case_check_results(&c);
    case_close(&c);
    TEST_OK(kiln_context_release(context));
}

static void write_one_before_the_start_is_caught(void **state)
{
    kiln_context *context = checked_context(state);
    overrun_case c;
    case_open(&c, context);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, case_launch(&c, 1, 0));
    TEST_ERROR_MENTIONS("scale_overrun");
    TEST_ERROR_MENTIONS("argument 0");
    expect_store_at(state, -4);
    case_check_results(&c);
    /* Both ends in one launch: both reported by the guard zones, the
     * first to happen by the instrumented accesses. */
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, case_launch(&c, 1, 1));
    if (!instrumented(state)) {
        TEST_ERROR_MENTIONS("[-4, 0)");
        TEST_ERROR_MENTIONS("[4000, 4004)");
    } else if (strstr(kiln_last_error(), "offset -4 ") == NULL) {
        expect_store_at(state, 4000);
    }
    case_check_results(&c);
    TEST_OK(case_launch(&c, 0, 0));
    case_check_results(&c);
    case_close(&c);
    TEST_OK(kiln_context_release(context));
}

/* Host Out arrays are staged through guarded device memory too. */
static void host_out_array_overrun_is_caught(void **state)
{
    kiln_context *context = checked_context(state);
    overrun_case c;
    case_open(&c, context);
    float result[N];
    kiln_launch_config config = test_config_1d(N, 64);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT,
               kiln_launch_prepared(c.kernel, &config, ">Pfiii", result,
                                    sizeof result, c.in, (double)c.a, (int)N,
                                    0, 1));
    TEST_ERROR_MENTIONS("argument 0");
    TEST_ERROR_MENTIONS("host Out array");
    expect_store_at(state, 4000);
    TEST_OK(kiln_launch_prepared(c.kernel, &config, ">Pfiii", result,
                                 sizeof result, c.in, (double)c.a, (int)N, 0,
                                 0));
    test_assert_floats_near(result, c.expected, N, 1e-6);
    case_close(&c);
    TEST_OK(kiln_context_release(context));
}

/* Everything a buffer does still works on a guarded one: ranges with
 * offsets, copies, fills, and the results of a kernel that stays inside. */
static void guarded_buffers_behave_as_plain_ones(void **state)
{
    kiln_context *context = checked_context(state);
    enum { M = 777 };
    int32_t data[M], back[M];
    test_random_ints(data, M, -100000, 100000);
    kiln_buffer *a = test_buffer_from(context, data, sizeof data);
    kiln_buffer *b = test_buffer(context, sizeof data);
    TEST_OK(kiln_buffer_copy(b, 0, a, 0, sizeof data));
    const int32_t pattern = 0x1234567;
    TEST_OK(kiln_buffer_fill(b, 40, 400, &pattern, sizeof pattern));
    for (size_t i = 10; i < 110; ++i)
        data[i] = pattern;
    TEST_OK(kiln_buffer_write(b, 4 * 500, data + 500, 4 * 200));
    TEST_OK(kiln_buffer_read(b, 0, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    size_t size = 0;
    TEST_OK(kiln_buffer_get_size(b, &size));
    assert_int_equal(size, sizeof data);
    /* Out of range is still refused by the core, guards or not. */
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_buffer_read(b, sizeof data - 4, back, 8));
    TEST_OK(kiln_buffer_release(a));
    TEST_OK(kiln_buffer_release(b));
    TEST_OK(kiln_context_release(context));
}

/* A write far past one buffer that lands in another's guard zone (issue
 * 29, M5): it was reported as the other buffer's overrun.  The kernel
 * writes `back` bytes before b's start through a (the addresses of both
 * buffers are flat on every backend Kiln runs); away from b's edge it is
 * reported as a write into b's zone that is not b's overrun, next to the
 * edge (back 1) as b's underrun, which it cannot be told from.  The
 * kernel flips bits (value is never 0) rather than storing value: a store
 * of the very byte the guard pattern has there goes unseen (1 in 200 of
 * the random values did, at back 1). */
static void far_write_into_another_zone_is_not_blamed_on_it(void **state)
{
    kiln_context *context = checked_context(state);
    kiln_program *program = test_build(
        context,
        "__kernel void far_write(__global uchar *a, __global uchar *b,\n"
        "                        long back, uchar value) {\n"
        "    if (get_global_id(0) == 0)\n"
        "        a[(b - a) - back] ^= value;\n"
        "}\n",
        NULL);
    kiln_kernel *kernel = test_kernel(program, "far_write");
    enum { M = 512 };
    kiln_buffer *a = test_buffer(context, M);
    kiln_buffer *b = test_buffer(context, M);
    kiln_launch_config config = test_config_1d(1, 1);
    unsigned char value = (unsigned char)(test_random_u64() % 200 + 20);
    long long back = 100 + (long long)(test_random_u64() % 2000);
    kiln_arg args[] = {KILN_ARG_BUFFER(a), KILN_ARG_BUFFER(b),
                       KILN_ARG_LONG(back), KILN_ARG_UCHAR(value)};
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 4, args));
    if (instrumented(state)) {
        /* the access goes through a: a's, wherever it lands */
        TEST_ERROR_MENTIONS("argument 0");
        TEST_ERROR_MENTIONS("wrote 1 byte at byte offset");
        if (strstr(kiln_last_error(), "argument 1") != NULL)
            fail_msg("a write through a blamed on b: %s", kiln_last_error());
        args[2] = KILN_ARG_LONG(1);
        TEST_FAILS(KILN_ERR_KERNEL_FAULT,
                   kiln_launch(kernel, &config, 4, args));
        TEST_ERROR_MENTIONS("argument 0");
        TEST_OK(kiln_buffer_release(a));
        TEST_OK(kiln_buffer_release(b));
        TEST_OK(kiln_kernel_release(kernel));
        TEST_OK(kiln_program_release(program));
        TEST_OK(kiln_context_release(context));
        return;
    }
    TEST_ERROR_MENTIONS("argument 1");
    TEST_ERROR_MENTIONS("away from the buffer");
    TEST_ERROR_MENTIONS("Not a run over this buffer's end");
    char range[64];
    snprintf(range, sizeof range, "[%lld, %lld)", -back, -back + 1);
    TEST_ERROR_MENTIONS(range);
    if (strstr(kiln_last_error(), "the kernel wrote outside") != NULL)
        fail_msg("a far write blamed on argument 1: %s", kiln_last_error());
    /* next to b's start: b's underrun, as far as any check can tell */
    args[2] = KILN_ARG_LONG(1);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, kiln_launch(kernel, &config, 4, args));
    TEST_ERROR_MENTIONS("argument 1");
    TEST_ERROR_MENTIONS("the kernel wrote outside");
    TEST_ERROR_MENTIONS("[-1, 0)");
    TEST_OK(kiln_buffer_release(a));
    TEST_OK(kiln_buffer_release(b));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
}

/* KILN_CHECK=bounds turns checks on for contexts made afterwards. */
static void environment_turns_checks_on(void **state)
{
    (void)test_context(state);
    const char *old = getenv("KILN_CHECK");
    char *saved = old ? strdup(old) : NULL;
    setenv("KILN_CHECK", "bounds", 1);
    kiln_context *context = NULL;
    kiln_status status = kiln_context_create(test_backend(state), -1, &context);
    if (saved) {
        setenv("KILN_CHECK", saved, 1);
        free(saved);
    } else {
        unsetenv("KILN_CHECK");
    }
    TEST_OK(status);
    unsigned checks = 0;
    TEST_OK(kiln_context_get_checks(context, &checks));
    assert_int_equal(checks, KILN_CHECK_BOUNDS);
    overrun_case c;
    case_open(&c, context);
    TEST_FAILS(KILN_ERR_KERNEL_FAULT, case_launch(&c, 0, 1));
    expect_store_at(state, 4000);
    case_close(&c);
    TEST_OK(kiln_context_release(context));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(checks_are_off_by_default),
        KILN_TEST(write_one_past_the_end_is_caught),
        KILN_TEST(write_one_before_the_start_is_caught),
        KILN_TEST(host_out_array_overrun_is_caught),
        KILN_TEST(guarded_buffers_behave_as_plain_ones),
        KILN_TEST(environment_turns_checks_on),
        KILN_TEST(far_write_into_another_zone_is_not_blamed_on_it),
    };
    return kiln_test_main("bounds", tests, sizeof tests / sizeof tests[0]);
}
