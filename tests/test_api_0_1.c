/*
 * Programs written against Kiln 0.1 still build and run: every name that
 * 1.0 renamed, and the (context, stream) forms, through the deprecated
 * aliases of kiln.h.  Built with -Wno-deprecated-declarations (tests.mk);
 * everything else of the tree builds without them under -Werror.
 */
#include "config.h" /* _GNU_SOURCE: POSIX functions under -std=c11 */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 512

static const char source[] =
    "kernel void scale(global float *x, float factor, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) x[i] *= factor;\n"
    "}\n";

static void zero_one_program_still_runs(void **state)
{
    kiln_context *context = test_context(state);

    size_t backends = 0;
    TEST_OK(kiln_backend_count(&backends));
    assert_true(backends >= 1);
    const char *chosen = NULL;
    TEST_OK(kiln_backend_default(&chosen));
    assert_non_null(chosen);
    int devices = 0;
    TEST_OK(kiln_device_count(test_backend(state), &devices));
    assert_true(devices >= 1);
    const char *backend = NULL;
    TEST_OK(kiln_context_backend(context, &backend));
    assert_string_equal(backend, test_backend(state));
    kiln_device_info device;
    TEST_OK(kiln_context_device_info(context, &device));
    assert_true(device.max_threads_per_block >= 64);

    float data[N], expected[N];
    test_random_floats(data, N, -8.0f, 8.0f);
    float factor = test_random_float(0.5f, 2.5f);
    for (int i = 0; i < N; ++i)
        expected[i] = data[i] * factor;
    kiln_buffer *x = test_buffer_from(context, data, sizeof data);
    size_t size = 0;
    TEST_OK(kiln_buffer_size(x, &size));
    assert_int_equal(size, sizeof data);
    kiln_context *owner = NULL;
    TEST_OK(kiln_buffer_context(x, &owner));
    assert_ptr_equal(owner, context);

    kiln_program *program = test_build(context, source, NULL);
    const char *log = NULL;
    TEST_OK(kiln_program_build_log(program, &log));
    assert_non_null(log);
    kiln_program_origin origin;
    TEST_OK(kiln_program_origin_get(program, &origin));
    size_t kernels = 0;
    TEST_OK(kiln_program_kernel_count(program, &kernels));
    assert_int_equal(kernels, 1);
    const char *listed = NULL;
    TEST_OK(kiln_program_kernel_name(program, 0, &listed));
    assert_string_equal(listed, "scale");

    kiln_kernel *scale = test_kernel(program, "scale");
    const char *name = NULL;
    TEST_OK(kiln_kernel_name(scale, &name));
    assert_string_equal(name, "scale");
    size_t params = 0;
    TEST_OK(kiln_kernel_param_count(scale, &params));
    assert_int_equal(params, 3);
    kiln_param_info param;
    TEST_OK(kiln_kernel_param_info(scale, 1, &param));
    assert_string_equal(param.name, "factor");
    size_t threads = 0;
    TEST_OK(kiln_kernel_max_block_size(scale, &threads));
    assert_true(threads >= 64);

    /* 0.1's launch: the struct without struct_size, compound-literal
     * arguments, kiln_args. */
    kiln_launch_config config = {.grid = KILN_DIM1(N / 64),
                                 .block = KILN_DIM1(64)};
    kiln_arg args[] = {KILN_ARG_BUFFER(x), KILN_ARG_FLOAT(factor),
                       KILN_ARG_INT(N)};
    TEST_OK(kiln_launch(scale, &config, 3, args));
    kiln_args *list = NULL;
    TEST_OK(kiln_args_create(&list));
    TEST_OK(kiln_args_add_buffer(list, x));
    TEST_OK(kiln_args_add_float(list, 1.0f));
    TEST_OK(kiln_args_add_int(list, N));
    size_t count = 0;
    TEST_OK(kiln_args_count(list, &count));
    assert_int_equal(count, 3);
    TEST_OK(kiln_launch_args(scale, &config, list));
    TEST_OK(kiln_args_release(list));
    /* (context, NULL): the default stream; (NULL, stream): that stream. */
    TEST_OK(kiln_stream_synchronize(context, NULL));
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    TEST_OK(kiln_stream_synchronize(stream));
    float back[N];
    TEST_OK(kiln_buffer_read(x, 0, back, sizeof back));
    test_assert_floats_near(back, expected, N, 1e-6);

    unsigned char native[sizeof(void *)];
    TEST_OK(kiln_context_native(context, native, sizeof native));
    TEST_OK(kiln_buffer_native(x, native, sizeof native));
    TEST_OK(kiln_kernel_native(scale, native, sizeof native));
    TEST_OK(kiln_stream_native(NULL, stream, native, sizeof native));
    TEST_OK(kiln_stream_native(context, NULL, native, sizeof native));
    kiln_event *event = NULL;
    TEST_OK(kiln_event_create(context, &event));
    TEST_OK(kiln_event_record(event, stream));
    TEST_OK(kiln_event_native(event, native, sizeof native));
    TEST_OK(kiln_event_synchronize(event));
    if (strcmp(test_backend(state), "cuda") == 0) {
        int cu_device = -1;
        TEST_OK(kiln_device_native(context, &cu_device, sizeof cu_device));
    } else {
        TEST_OK(kiln_device_native(context, native, sizeof native));
    }

    TEST_OK(kiln_event_release(event));
    TEST_OK(kiln_stream_release(stream));
    TEST_OK(kiln_kernel_release(scale));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_buffer_release(x));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(zero_one_program_still_runs),
    };
    return kiln_test_main("api_0_1", tests, sizeof tests / sizeof tests[0]);
}
