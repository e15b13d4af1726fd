/*
 * The API's 1.0 shape: the work dimensions a kernel sees, scalar arguments
 * checked by type (constructors, prepared type characters, argument
 * lists), kiln_kernel_prepare with prepared calls and their va_list forms,
 * the default stream as a handle, and structs passed by size.
 */
#include "config.h" /* _GNU_SOURCE: POSIX functions under -std=c11 */

#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

static const char source[] =
    "kernel void dims(global uint *out)\n"
    "{\n"
    "    if (get_global_id(0) == 0 && get_global_id(1) == 0 &&\n"
    "        get_global_id(2) == 0) {\n"
    "        out[0] = get_work_dim();\n"
    "        out[1] = (uint)get_global_size(0);\n"
    "        out[2] = (uint)get_global_size(1);\n"
    "        out[3] = (uint)get_global_size(2);\n"
    "    }\n"
    "}\n"
    "\n"
    "kernel void axpb(global float *y, global const float *x, float a,\n"
    "                 float b, uint n)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + b;\n"
    "}\n";

typedef struct fixture {
    kiln_context *context;
    kiln_program *program;
    kiln_kernel *dims, *axpb;
    float x[N], y[N], expected[N];
    float a, b;
    kiln_buffer *x_gpu, *y_gpu;
} fixture;

static fixture *setup(void **state)
{
    /* The context first: a backend that is not there skips the test,
     * which must not leave the fixture behind. */
    kiln_context *context = test_context(state);
    fixture *f = test_alloc(sizeof *f);
    memset(f, 0, sizeof *f);
    f->context = context;
    f->program = test_build(f->context, source, NULL);
    f->dims = test_kernel(f->program, "dims");
    f->axpb = test_kernel(f->program, "axpb");
    test_random_floats(f->x, N, -4.0f, 4.0f);
    f->a = test_random_float(0.5f, 3.0f);
    f->b = test_random_float(-2.0f, 2.0f);
    for (int i = 0; i < N; ++i)
        f->expected[i] = f->a * f->x[i] + f->b;
    f->x_gpu = test_buffer_from(f->context, f->x, sizeof f->x);
    f->y_gpu = test_buffer(f->context, sizeof f->y);
    return f;
}

static void teardown(fixture *f)
{
    TEST_OK(kiln_buffer_release(f->x_gpu));
    TEST_OK(kiln_buffer_release(f->y_gpu));
    TEST_OK(kiln_kernel_release(f->dims));
    TEST_OK(kiln_kernel_release(f->axpb));
    TEST_OK(kiln_program_release(f->program));
    free(f);
}

static void check_y(fixture *f)
{
    memset(f->y, 0, sizeof f->y);
    TEST_OK(kiln_buffer_read(f->y_gpu, 0, f->y, sizeof f->y));
    test_assert_floats_near(f->y, f->expected, N, 1e-5);
}

/* What get_work_dim() and get_global_size() return for a launch. */
static void run_dims(fixture *f, kiln_dim3 grid, kiln_dim3 block,
                     unsigned dimensions, uint32_t seen[4])
{
    kiln_launch_config config = {.grid = grid, .block = block,
                                 .dimensions = dimensions};
    kiln_buffer *out = test_buffer(f->context, 4 * sizeof(uint32_t));
    kiln_arg args[] = {KILN_ARG_BUFFER(out)};
    TEST_OK(kiln_launch(f->dims, &config, 1, args));
    TEST_OK(kiln_buffer_read(out, 0, seen, 4 * sizeof(uint32_t)));
    TEST_OK(kiln_buffer_release(out));
}

static void work_dimensions_follow_the_config(void **state)
{
    fixture *f = setup(state);
    size_t groups = 2 + test_random_u64() % 7;
    uint32_t seen[4];
    /* 0: the fewest that hold the launch. */
    run_dims(f, KILN_DIM1(groups), KILN_DIM1(32), 0, seen);
    assert_int_equal(seen[0], 1);
    assert_int_equal(seen[1], groups * 32);
    run_dims(f, KILN_DIM2(groups, 3), KILN_DIM2(8, 2), 0, seen);
    assert_int_equal(seen[0], 2);
    assert_int_equal(seen[2], 6);
    /* A 2-D launch of N x 1 is 2-D when the config says so. */
    run_dims(f, KILN_DIM1(groups), KILN_DIM1(16), 2, seen);
    assert_int_equal(seen[0], 2);
    assert_int_equal(seen[1], groups * 16);
    assert_int_equal(seen[2], 1);
    run_dims(f, KILN_DIM1(groups), KILN_DIM1(16), 3, seen);
    assert_int_equal(seen[0], 3);
    assert_int_equal(seen[3], 1);

    kiln_buffer *out = test_buffer(f->context, 16);
    kiln_arg args[] = {KILN_ARG_BUFFER(out)};
    kiln_launch_config too_few = {.grid = KILN_DIM2(2, 2),
                                  .block = KILN_DIM1(8), .dimensions = 1};
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH, kiln_launch(f->dims, &too_few, 1, args));
    TEST_ERROR_MENTIONS("config.dimensions is 1 but grid.y = 2");
    kiln_launch_config four = {.grid = KILN_DIM1(2), .block = KILN_DIM1(8),
                               .dimensions = 4};
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH, kiln_launch(f->dims, &four, 1, args));
    TEST_ERROR_MENTIONS("config.dimensions is 4");
    TEST_OK(kiln_buffer_release(out));
    teardown(f);
}

static void scalars_are_checked_by_type(void **state)
{
    fixture *f = setup(state);
    kiln_launch_config config = test_config_1d(N, 64);
    /* The case: an int for a float parameter used to compute with
     * 2.8e-45. */
    kiln_arg int_for_float[] = {KILN_ARG_BUFFER(f->y_gpu),
                                KILN_ARG_BUFFER(f->x_gpu), KILN_ARG_INT(2),
                                KILN_ARG_FLOAT(f->b), KILN_ARG_UINT(N)};
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch(f->axpb, &config, 5, int_for_float));
    TEST_ERROR_MENTIONS("argument 2 (float a)");
    TEST_ERROR_MENTIONS("an int");
    TEST_ERROR_MENTIONS("parameter of type float");
    kiln_arg double_for_float[] = {
        KILN_ARG_BUFFER(f->y_gpu), KILN_ARG_BUFFER(f->x_gpu),
        KILN_ARG_FLOAT(f->a), KILN_ARG_DOUBLE(f->b), KILN_ARG_UINT(N)};
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch(f->axpb, &config, 5, double_for_float));
    TEST_ERROR_MENTIONS("float b");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(f->axpb, &config, "PPifI", f->y_gpu,
                                    f->x_gpu, 2, (double)f->b, (uint32_t)N));
    TEST_ERROR_MENTIONS("'i'");

    /* Signedness is not compared: an int for a uint count is fine. */
    kiln_arg right[] = {KILN_ARG_BUFFER(f->y_gpu), KILN_ARG_BUFFER(f->x_gpu),
                        KILN_ARG_FLOAT(f->a), KILN_ARG_FLOAT(f->b),
                        KILN_ARG_INT(N)};
    TEST_OK(kiln_launch(f->axpb, &config, 5, right));
    check_y(f);

    /* Raw bytes are checked by size only. */
    kiln_arg raw[] = {KILN_ARG_BUFFER(f->y_gpu), KILN_ARG_BUFFER(f->x_gpu),
                      KILN_ARG_VALUE(&f->a, sizeof f->a),
                      KILN_ARG_VALUE(&f->b, sizeof f->b), KILN_ARG_UINT(N)};
    TEST_OK(kiln_launch(f->axpb, &config, 5, raw));
    check_y(f);

    /* kiln_args keeps the type of what it is given. */
    kiln_args *list = NULL;
    TEST_OK(kiln_args_create(&list));
    TEST_OK(kiln_args_add(list, KILN_ARG_BUFFER(f->y_gpu)));
    TEST_OK(kiln_args_add(list, KILN_ARG_BUFFER(f->x_gpu)));
    TEST_OK(kiln_args_add(list, KILN_ARG_FLOAT(f->a)));
    TEST_OK(kiln_args_add_int(list, 1));
    TEST_OK(kiln_args_add(list, KILN_ARG_UINT(N)));
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE, kiln_launch_args(f->axpb, &config, list));
    TEST_ERROR_MENTIONS("float b");
    TEST_OK(kiln_args_clear(list));
    TEST_OK(kiln_args_add(list, KILN_ARG_BUFFER(f->y_gpu)));
    TEST_OK(kiln_args_add(list, KILN_ARG_BUFFER(f->x_gpu)));
    TEST_OK(kiln_args_add(list, KILN_ARG_FLOAT(f->a)));
    TEST_OK(kiln_args_add_float(list, f->b));
    TEST_OK(kiln_args_add(list, KILN_ARG_UINT(N)));
    TEST_OK(kiln_launch_args(f->axpb, &config, list));
    check_y(f);
    kiln_arg bad = KILN_ARG_INT(1);
    bad.type = (kiln_scalar_type)99;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_args_add(list, bad));
    TEST_OK(kiln_args_release(list));
    teardown(f);
}

/* A wrapper of the kind the va_list forms exist for. */
static kiln_status launch_logged(kiln_kernel *kernel,
                                 const kiln_launch_config *config,
                                 const char *types, ...)
{
    va_list values;
    va_start(values, types);
    kiln_status status =
        types ? kiln_launch_prepared_v(kernel, config, types, values)
              : kiln_launch_prepared_call_v(kernel, config, values);
    va_end(values);
    return status;
}

static void prepare_parses_once(void **state)
{
    fixture *f = setup(state);
    kiln_launch_config config = test_config_1d(N, 128);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared_call(f->axpb, &config, f->y_gpu));
    TEST_ERROR_MENTIONS("kiln_kernel_prepare");
    /* Checked against the parameters at prepare time. */
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT, kiln_kernel_prepare(f->axpb, "PPff"));
    TEST_ERROR_MENTIONS("takes 5 arguments");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE, kiln_kernel_prepare(f->axpb, "PPfiI"));
    TEST_ERROR_MENTIONS("float b");
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND, kiln_kernel_prepare(f->axpb, "PfffI"));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_kernel_prepare(f->axpb, "PPfxI"));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_kernel_prepare(f->axpb, NULL));

    TEST_OK(kiln_kernel_prepare(f->axpb, "P P f f I"));
    TEST_OK(kiln_launch_prepared_call(f->axpb, &config, f->y_gpu, f->x_gpu,
                                      (double)f->a, (double)f->b,
                                      (uint32_t)N));
    check_y(f);
    /* Prepared again with host arrays: In and Out around the launch. */
    TEST_OK(kiln_kernel_prepare(f->axpb, "><ffI"));
    float y[N];
    memset(y, 0, sizeof y);
    TEST_OK(launch_logged(f->axpb, &config, NULL, y, sizeof y, f->x, sizeof f->x,
                          (double)f->a, (double)f->b, (uint32_t)N));
    test_assert_floats_near(y, f->expected, N, 1e-5);
    TEST_OK(launch_logged(f->axpb, &config, "PPffI", f->y_gpu, f->x_gpu,
                          (double)f->a, (double)f->b, (uint32_t)N));
    check_y(f);
    teardown(f);
}

static void default_stream_is_a_handle(void **state)
{
    fixture *f = setup(state);
    kiln_context *context = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    kiln_stream *stream = NULL, *again = NULL;
    TEST_OK(kiln_context_get_default_stream(context, &stream));
    TEST_OK(kiln_context_get_default_stream(context, &again));
    assert_non_null(stream);
    assert_ptr_equal(stream, again);
    kiln_context *owner = NULL;
    TEST_OK(kiln_stream_get_context(stream, &owner));
    assert_ptr_equal(owner, context);

    /* Usable wherever a stream is taken. */
    kiln_program *program = test_build(context, source, NULL);
    kiln_kernel *axpb = test_kernel(program, "axpb");
    kiln_buffer *x = test_buffer(context, sizeof f->x);
    kiln_buffer *y = test_buffer(context, sizeof f->y);
    TEST_OK(kiln_buffer_write_async(x, 0, f->x, sizeof f->x, stream));
    kiln_launch_config config = test_config_1d(N, 64);
    config.stream = stream;
    TEST_OK(kiln_launch_prepared(axpb, &config, "PPffI", y, x, (double)f->a,
                                 (double)f->b, (uint32_t)N));
    float back[N];
    TEST_OK(kiln_buffer_read_async(y, 0, back, sizeof back, stream));
    TEST_OK(kiln_stream_synchronize(stream));
    test_assert_floats_near(back, f->expected, N, 1e-5);
    kiln_event *event = NULL;
    TEST_OK(kiln_event_create(context, &event));
    TEST_OK(kiln_event_record(event, stream));
    TEST_OK(kiln_event_synchronize(event));

    /* Another context's default stream is another context's. */
    kiln_stream *other = NULL;
    TEST_OK(kiln_context_get_default_stream(f->context, &other));
    assert_ptr_not_equal(other, stream);
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_buffer_read_async(y, 0, back, sizeof back, other));

    /* A retained default stream keeps its context alive. */
    TEST_OK(kiln_stream_retain(stream));
    TEST_OK(kiln_event_release(event));
    TEST_OK(kiln_buffer_release(x));
    TEST_OK(kiln_buffer_release(y));
    TEST_OK(kiln_kernel_release(axpb));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
    TEST_OK(kiln_stream_synchronize(stream));
    TEST_OK(kiln_context_synchronize(owner));
    TEST_OK(kiln_stream_release(stream)); /* the context's last reference */
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_stream_synchronize(stream));
    teardown(f);
}

static void structs_are_passed_by_size(void **state)
{
    fixture *f = setup(state);
    /* A caller's struct from a newer header: the tail reads as zero. */
    struct {
        kiln_device_info info;
        unsigned char newer[24];
    } grown;
    memset(&grown, 0xab, sizeof grown);
    TEST_OK(kiln_context_get_device_info_sized(f->context, &grown.info,
                                               sizeof grown));
    for (size_t i = 0; i < sizeof grown.newer; ++i)
        assert_int_equal(grown.newer[i], 0);
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(f->context, &info));
    assert_string_equal(info.name, grown.info.name);
    assert_int_equal(info.max_threads_per_block,
                     grown.info.max_threads_per_block);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_context_get_device_info_sized(f->context, &info, 16));
    TEST_ERROR_MENTIONS("kiln_context_get_device_info");
    kiln_param_info param;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_kernel_get_param_info_sized(f->axpb, 0, &param, 4));
    TEST_OK(kiln_kernel_get_param_info(f->axpb, 2, &param));
    assert_string_equal(param.name, "a");
    assert_string_equal(param.type_name, "float");
    kiln_cache_info cache;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_cache_get_info_sized(&cache, 1));
    kiln_pool_stats stats;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_pool_get_stats_sized(f->context, &stats, 8));
    kiln_backend_info backend;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_backend_get_info_sized(0, &backend, 8));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_backend_find_sized("opencl", &backend, 8));

    /* Structs the caller fills: struct_size 0 or sizeof. */
    kiln_launch_config config = test_config_1d(N, 64);
    kiln_arg args[] = {KILN_ARG_BUFFER(f->y_gpu), KILN_ARG_BUFFER(f->x_gpu),
                       KILN_ARG_FLOAT(f->a), KILN_ARG_FLOAT(f->b),
                       KILN_ARG_UINT(N)};
    config.struct_size = sizeof config;
    TEST_OK(kiln_launch(f->axpb, &config, 5, args));
    check_y(f);
    config.struct_size = 8;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_launch(f->axpb, &config, 5, args));
    TEST_ERROR_MENTIONS("struct_size");
    config.struct_size = sizeof config + 8;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_launch(f->axpb, &config, 5, args));
    kiln_build_options options = {.struct_size = 3};
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_with(f->context, source, 0, &options,
                                       &program));
    TEST_ERROR_MENTIONS("kiln_build_options");
    assert_null(program);
    options.struct_size = sizeof options;
    TEST_OK(kiln_program_build_with(f->context, source, 0, &options, &program));
    TEST_OK(kiln_program_release(program));
    teardown(f);
}

/* A PyCUDA SourceModule string passed to kiln_program_build is CUDA C;
 * given explicitly as OpenCL C it is, and the failure says what it looks
 * like.  Build errors of a string name "<kiln program>", not a driver's
 * temporary file. */
static void cuda_c_is_recognised(void **state)
{
    fixture *f = setup(state);
    static const char doublify[] =
        "// PyCUDA's tutorial kernel\n"
        "__global__ void doublify(float *a)\n"
        "{\n"
        "    int idx = threadIdx.x + threadIdx.y * 4;\n"
        "    a[idx] *= 2;\n"
        "}\n";
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build(f->context, doublify, NULL, &program));
    kiln_kernel *kernel = test_kernel(program, "doublify");
    float a[16], expected[16];
    test_random_floats(a, 16, -10, 10);
    for (int i = 0; i < 16; ++i)
        expected[i] = 2 * a[i];
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM2(4, 4)};
    kiln_arg args[] = {KILN_ARG_INOUT(a, sizeof a)};
    TEST_OK(kiln_launch(kernel, &config, 1, args));
    test_assert_floats_near(a, expected, 16, 0);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));

    kiln_build_options opencl = {.language = KILN_LANGUAGE_OPENCL_C};
    program = NULL;
    TEST_FAILS(KILN_ERR_BUILD, kiln_program_build_with(f->context, doublify, 0,
                                                        &opencl, &program));
    TEST_ERROR_MENTIONS("looks like CUDA C (__global__ at line 2)");
    TEST_ERROR_MENTIONS("KILN_LANGUAGE_CUDA_C");
    assert_null(program);

    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build(f->context,
                                  "kernel void k(global int *x)\n"
                                  "{ x[0] = not_declared; }\n",
                                  NULL, &program));
    TEST_ERROR_MENTIONS("<kiln program>");
    TEST_ERROR_MENTIONS("not_declared");
    if (strstr(kiln_last_error(), "tempfile") != NULL)
        fail_msg("the message names the driver's file: %s",
                 kiln_last_error());
    teardown(f);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(work_dimensions_follow_the_config),
        KILN_TEST(scalars_are_checked_by_type),
        KILN_TEST(prepare_parses_once),
        KILN_TEST(default_stream_is_a_handle),
        KILN_TEST(structs_are_passed_by_size),
        KILN_TEST(cuda_c_is_recognised),
    };
    return kiln_test_main("api", tests, sizeof tests / sizeof tests[0]);
}
