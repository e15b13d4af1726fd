/*
 * Launches: 1-, 2- and 3-D grids with every work-item function checked
 * against the CPU, values of every scalar type and vectors by value,
 * __local arguments (one and several), every kind of bad launch (each its
 * own status with a message naming the kernel and the argument), and object
 * lifetimes around launches (a kernel outliving its program, a context
 * released before its objects).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char launch_source[] =
    "/* 15 ints per work-item: global id, group id, local id, number of\n"
    " * groups and local size, each in x y z. */\n"
    "__kernel void indices(__global int *out)\n"
    "{\n"
    "    size_t x = get_global_id(0), y = get_global_id(1),\n"
    "           z = get_global_id(2);\n"
    "    size_t item = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "    __global int *o = out + item * 15;\n"
    "    for (uint d = 0; d < 3; ++d) {\n"
    "        o[d] = (int)get_global_id(d);\n"
    "        o[3 + d] = (int)get_group_id(d);\n"
    "        o[6 + d] = (int)get_local_id(d);\n"
    "        o[9 + d] = (int)get_num_groups(d);\n"
    "        o[12 + d] = (int)get_local_size(d);\n"
    "    }\n"
    "}\n"
    "\n"
    "__kernel void scale_values(__global float *values, int count)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < count)\n"
    "        values[i] = values[i] * 2.0f + 1.0f;\n"
    "}\n"
    "\n"
    "__kernel void scalars(__global long *ints, __global float *floats,\n"
    "                      char c, uchar uc, short s, ushort us, int i,\n"
    "                      uint ui, long l, ulong ul, float f, float4 v,\n"
    "                      float3 w)\n"
    "{\n"
    "    ints[0] = c; ints[1] = uc; ints[2] = s; ints[3] = us;\n"
    "    ints[4] = i; ints[5] = ui; ints[6] = l; ints[7] = (long)ul;\n"
    "    floats[0] = f;\n"
    "    floats[1] = v.x; floats[2] = v.y; floats[3] = v.z; floats[4] = v.w;\n"
    "    floats[5] = w.x; floats[6] = w.y; floats[7] = w.z;\n"
    "}\n"
    "\n"
    "__kernel void block_sums(__global const int *in, __global int *out,\n"
    "                         __local int *scratch)\n"
    "{\n"
    "    size_t lid = get_local_id(0), n = get_local_size(0);\n"
    "    scratch[lid] = in[get_global_id(0)];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid == 0) {\n"
    "        int sum = 0;\n"
    "        for (size_t k = 0; k < n; ++k)\n"
    "            sum += scratch[k];\n"
    "        out[get_group_id(0)] = sum;\n"
    "    }\n"
    "}\n"
    "\n"
    "/* Two local arrays: if they overlapped, the second's writes would\n"
    " * change what is read back from the first. */\n"
    "__kernel void mirror(__global const int *in, __global long *out,\n"
    "                     __local int *first, __local long *second)\n"
    "{\n"
    "    size_t lid = get_local_id(0), n = get_local_size(0);\n"
    "    first[lid] = in[get_global_id(0)];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    second[lid] = (long)first[n - 1 - lid] * 3;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = second[lid] + first[lid];\n"
    "}\n"
    "\n"
    "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
    "void fixed8(__global int *out)\n"
    "{\n"
    "    out[get_global_id(0)] = (int)(get_local_id(0) + 100 * get_group_id(0));\n"
    "}\n";

/* In a program of its own: NVIDIA's OpenCL cannot report argument info for
 * any kernel of a program that has a kernel without parameters. */
static const char no_params_source[] =
    "__kernel void no_params(void)\n"
    "{\n"
    "}\n";

static kiln_program *launch_program(kiln_context *context)
{
    return test_build(context, launch_source, NULL);
}

/* ---- geometry ----------------------------------------------------------------------- */

/* Launches `indices` over grid x block and checks every work-item. */
static void check_indices(kiln_context *context, kiln_kernel *kernel,
                          kiln_dim3 grid, kiln_dim3 block)
{
    const size_t gx = grid.x * block.x, gy = grid.y * block.y,
                 gz = grid.z * block.z;
    const size_t items = gx * gy * gz;
    const size_t bytes = items * 15 * sizeof(int32_t);
    kiln_buffer *buffer = test_buffer(context, bytes);
    int32_t marker = -1;
    TEST_OK(kiln_buffer_fill(buffer, 0, bytes, &marker, sizeof marker));
    kiln_launch_config config = {.grid = grid, .block = block};
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
    TEST_OK(kiln_launch(kernel, &config, 1, args));
    int32_t *out = test_alloc(bytes);
    TEST_OK(kiln_buffer_read(buffer, 0, out, bytes));

    const size_t grid_size[3] = {grid.x, grid.y, grid.z};
    const size_t block_size[3] = {block.x, block.y, block.z};
    for (size_t z = 0; z < gz; ++z)
        for (size_t y = 0; y < gy; ++y)
            for (size_t x = 0; x < gx; ++x) {
                const size_t id[3] = {x, y, z};
                const int32_t *o = out + ((z * gy + y) * gx + x) * 15;
                for (int d = 0; d < 3; ++d) {
                    int32_t expected[5] = {
                        (int32_t)id[d], (int32_t)(id[d] / block_size[d]),
                        (int32_t)(id[d] % block_size[d]),
                        (int32_t)grid_size[d], (int32_t)block_size[d]};
                    static const char *const what[5] = {
                        "global id", "group id", "local id", "groups",
                        "local size"};
                    for (int k = 0; k < 5; ++k)
                        if (o[3 * k + d] != expected[k])
                            fail_msg("grid %zux%zux%zu block %zux%zux%zu: "
                                     "item (%zu,%zu,%zu): %s[%d] = %d, "
                                     "expected %d",
                                     grid.x, grid.y, grid.z, block.x, block.y,
                                     block.z, x, y, z, what[k], d,
                                     o[3 * k + d], expected[k]);
                }
            }
    free(out);
    TEST_OK(kiln_buffer_release(buffer));
}

static void work_items_in_one_two_and_three_dimensions(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = launch_program(context);
    kiln_kernel *kernel = test_kernel(program, "indices");
    check_indices(context, kernel, KILN_DIM1(7), KILN_DIM1(13));
    check_indices(context, kernel, KILN_DIM1(1), KILN_DIM1(1));
    check_indices(context, kernel, KILN_DIM2(5, 3), KILN_DIM2(7, 5));
    check_indices(context, kernel, KILN_DIM2(1, 9), KILN_DIM2(3, 1));
    check_indices(context, kernel, KILN_DIM3(3, 2, 5), KILN_DIM3(4, 3, 2));
    check_indices(context, kernel, KILN_DIM3(1, 3, 7), KILN_DIM3(5, 1, 3));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void a_rounded_up_grid_covers_odd_sizes(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = launch_program(context);
    kiln_kernel *kernel = test_kernel(program, "scale_values");
    const size_t counts[] = {1, 255, 256, 257, 100003};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c) {
        const size_t count = counts[c];
        float *values = test_alloc(count * sizeof *values);
        float *expected = test_alloc(count * sizeof *expected);
        test_random_floats(values, count, -100, 100);
        for (size_t i = 0; i < count; ++i)
            expected[i] = values[i] * 2.0f + 1.0f;
        /* A guard float after the data must stay as it is. */
        kiln_buffer *buffer = test_buffer(context, (count + 1) * sizeof(float));
        float guard = 12345.0f;
        TEST_OK(kiln_buffer_write(buffer, 0, values, count * sizeof *values));
        TEST_OK(kiln_buffer_write(buffer, count * sizeof(float), &guard,
                                  sizeof guard));
        kiln_launch_config config = test_config_1d(count, 256);
        kiln_arg args[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT((int)count)};
        TEST_OK(kiln_launch(kernel, &config, 2, args));
        TEST_OK(kiln_buffer_read(buffer, 0, values, count * sizeof *values));
        test_assert_floats_near(values, expected, count, 1e-6);
        float back = 0;
        TEST_OK(kiln_buffer_read(buffer, count * sizeof(float), &back,
                                 sizeof back));
        assert_true(back == guard);
        TEST_OK(kiln_buffer_release(buffer));
        free(values);
        free(expected);
    }
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void required_block_size_is_honoured(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = launch_program(context);
    kiln_kernel *kernel = test_kernel(program, "fixed8");
    enum { GROUPS = 5 };
    kiln_buffer *buffer = test_buffer(context, GROUPS * 8 * sizeof(int32_t));
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
    kiln_launch_config config = {.grid = KILN_DIM1(GROUPS),
                                 .block = KILN_DIM1(8)};
    TEST_OK(kiln_launch(kernel, &config, 1, args));
    int32_t out[GROUPS * 8];
    TEST_OK(kiln_buffer_read(buffer, 0, out, sizeof out));
    for (int i = 0; i < GROUPS * 8; ++i)
        assert_int_equal(out[i], i % 8 + 100 * (i / 8));

    const kiln_dim3 wrong[] = {KILN_DIM1(4), KILN_DIM1(16), KILN_DIM2(8, 2),
                               KILN_DIM3(8, 1, 2), KILN_DIM2(4, 2)};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; ++i) {
        config.block = wrong[i];
        config.grid = KILN_DIM1(1);
        TEST_FAILS(KILN_ERR_INVALID_LAUNCH,
                   kiln_launch(kernel, &config, 1, args));
        TEST_ERROR_MENTIONS("fixed8");
        TEST_ERROR_MENTIONS("reqd_work_group_size");
    }
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void kernel_without_parameters(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, no_params_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "no_params");
    size_t count = 99;
    TEST_OK(kiln_kernel_get_param_count(kernel, &count));
    assert_int_equal(count, 0);
    kiln_launch_config config = {.grid = KILN_DIM2(3, 2),
                                 .block = KILN_DIM1(4)};
    TEST_OK(kiln_launch(kernel, &config, 0, NULL));
    kiln_arg extra[] = {KILN_ARG_INT(1)};
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT, kiln_launch(kernel, &config, 1, extra));
    TEST_ERROR_MENTIONS("no_params");
    TEST_OK(kiln_context_synchronize(context));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* ---- values ---------------------------------------------------------------------- */

static void values_of_every_scalar_type(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = launch_program(context);
    kiln_kernel *kernel = test_kernel(program, "scalars");
    kiln_buffer *ints = test_buffer(context, 8 * sizeof(int64_t));
    kiln_buffer *floats = test_buffer(context, 8 * sizeof(float));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};

    for (int round = 0; round < 4; ++round) {
        int8_t c = (int8_t)(test_random_u64() >> 56);
        uint8_t uc = (uint8_t)(test_random_u64() >> 56);
        int16_t s = (int16_t)(test_random_u64() >> 48);
        uint16_t us = (uint16_t)(test_random_u64() >> 48);
        int32_t i = (int32_t)(test_random_u64() >> 32);
        uint32_t ui = (uint32_t)(test_random_u64() >> 32);
        int64_t l = (int64_t)test_random_u64();
        uint64_t ul = test_random_u64() | (1ull << 63); /* past LONG_MAX */
        float f = test_random_float(-1e6f, 1e6f);
        float v[4], w[4];
        test_random_floats(v, 4, -1e3f, 1e3f);
        test_random_floats(w, 4, -1e3f, 1e3f);
        if (round == 0) { /* the extremes */
            c = INT8_MIN;
            uc = UINT8_MAX;
            s = INT16_MIN;
            us = UINT16_MAX;
            i = INT32_MIN;
            ui = UINT32_MAX;
            l = INT64_MIN;
            ul = UINT64_MAX;
        }
        kiln_arg args[] = {
            KILN_ARG_BUFFER(ints),      KILN_ARG_BUFFER(floats),
            KILN_ARG_VALUE(&c, 1),      KILN_ARG_VALUE(&uc, 1),
            KILN_ARG_VALUE(&s, 2),      KILN_ARG_VALUE(&us, 2),
            KILN_ARG_INT(i),            KILN_ARG_UINT(ui),
            KILN_ARG_LONG(l),           KILN_ARG_ULONG(ul),
            KILN_ARG_FLOAT(f),          KILN_ARG_VALUE(v, sizeof v),
            KILN_ARG_VALUE(w, sizeof w), /* float3 is 16 bytes */
        };
        TEST_OK(kiln_launch(kernel, &config, sizeof args / sizeof *args, args));
        int64_t int_out[8];
        float float_out[8];
        TEST_OK(kiln_buffer_read(ints, 0, int_out, sizeof int_out));
        TEST_OK(kiln_buffer_read(floats, 0, float_out, sizeof float_out));
        const int64_t int_expected[8] = {c, uc, s, us, i, ui, l, (int64_t)ul};
        for (int k = 0; k < 8; ++k)
            if (int_out[k] != int_expected[k])
                fail_msg("integer value %d: got %lld, expected %lld", k,
                         (long long)int_out[k], (long long)int_expected[k]);
        const float float_expected[8] = {f,    v[0], v[1], v[2],
                                         v[3], w[0], w[1], w[2]};
        test_assert_floats_near(float_out, float_expected, 8, 0);
    }
    TEST_OK(kiln_buffer_release(ints));
    TEST_OK(kiln_buffer_release(floats));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void double_values(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info device;
    TEST_OK(kiln_context_get_device_info(context, &device));
    if (!device.supports_double) {
        print_message("# %s has no double support\n", device.name);
        skip();
    }
    static const char source[] =
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        "__kernel void doubles(__global double *out, __global const double *in,\n"
        "                      double d, double2 pair)\n"
        "{\n"
        "    size_t i = get_global_id(0);\n"
        "    out[i] = in[i] * d;\n"
        "    if (i == 0) {\n"
        "        out[get_global_size(0)] = pair.x;\n"
        "        out[get_global_size(0) + 1] = pair.y;\n"
        "    }\n"
        "}\n";
    kiln_program *program = test_build(context, source, NULL);
    kiln_kernel *kernel = test_kernel(program, "doubles");
    enum { COUNT = 64 };
    double in[COUNT], out[COUNT + 2], expected[COUNT + 2], pair[2];
    test_random_doubles(in, COUNT, -1e10, 1e10);
    test_random_doubles(pair, 2, -1e300, 1e300);
    double d = 0;
    test_random_doubles(&d, 1, 1.0, 2.0);
    for (int i = 0; i < COUNT; ++i)
        expected[i] = in[i] * d; /* one correctly rounded product */
    expected[COUNT] = pair[0];
    expected[COUNT + 1] = pair[1];
    kiln_buffer *in_buffer = test_buffer_from(context, in, sizeof in);
    kiln_buffer *out_buffer = test_buffer(context, sizeof out);
    kiln_launch_config config = {.grid = KILN_DIM1(4), .block = KILN_DIM1(16)};
    kiln_arg args[] = {KILN_ARG_BUFFER(out_buffer), KILN_ARG_BUFFER(in_buffer),
                       KILN_ARG_DOUBLE(d), KILN_ARG_VALUE(pair, sizeof pair)};
    TEST_OK(kiln_launch(kernel, &config, 4, args));
    TEST_OK(kiln_buffer_read(out_buffer, 0, out, sizeof out));
    test_assert_doubles_near(out, expected, COUNT + 2, 0);
    TEST_OK(kiln_buffer_release(in_buffer));
    TEST_OK(kiln_buffer_release(out_buffer));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* ---- local memory ------------------------------------------------------------------ */

static void one_local_argument(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = launch_program(context);
    kiln_kernel *kernel = test_kernel(program, "block_sums");
    const size_t blocks[] = {1, 32, 64, 128};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; ++b) {
        const size_t block = blocks[b], groups = 37;
        const size_t count = block * groups;
        int32_t *in = test_alloc(count * sizeof *in);
        int32_t *out = test_alloc(groups * sizeof *out);
        test_random_ints(in, count, -1000, 1000);
        kiln_buffer *in_buffer = test_buffer_from(context, in,
                                                  count * sizeof *in);
        kiln_buffer *out_buffer = test_buffer(context, groups * sizeof *out);
        kiln_launch_config config = {.grid = KILN_DIM1(groups),
                                     .block = KILN_DIM1(block)};
        kiln_arg args[] = {KILN_ARG_BUFFER(in_buffer),
                           KILN_ARG_BUFFER(out_buffer),
                           KILN_ARG_LOCAL(block * sizeof(int32_t))};
        TEST_OK(kiln_launch(kernel, &config, 3, args));
        TEST_OK(kiln_buffer_read(out_buffer, 0, out, groups * sizeof *out));
        for (size_t g = 0; g < groups; ++g) {
            int32_t sum = 0;
            for (size_t k = 0; k < block; ++k)
                sum += in[g * block + k];
            if (out[g] != sum)
                fail_msg("block %zu, group %zu: got %d, expected %d", block, g,
                         out[g], sum);
        }
        TEST_OK(kiln_buffer_release(in_buffer));
        TEST_OK(kiln_buffer_release(out_buffer));
        free(in);
        free(out);
    }
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void several_local_arguments_do_not_overlap(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = launch_program(context);
    kiln_kernel *kernel = test_kernel(program, "mirror");
    const size_t block = 64, groups = 9, count = block * groups;
    int32_t *in = test_alloc(count * sizeof *in);
    int64_t *out = test_alloc(count * sizeof *out);
    test_random_ints(in, count, INT32_MIN, INT32_MAX);
    kiln_buffer *in_buffer = test_buffer_from(context, in, count * sizeof *in);
    kiln_buffer *out_buffer = test_buffer(context, count * sizeof *out);
    kiln_launch_config config = {.grid = KILN_DIM1(groups),
                                 .block = KILN_DIM1(block)};
    kiln_arg args[] = {KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer),
                       KILN_ARG_LOCAL(block * sizeof(int32_t)),
                       KILN_ARG_LOCAL(block * sizeof(int64_t))};
    TEST_OK(kiln_launch(kernel, &config, 4, args));
    TEST_OK(kiln_buffer_read(out_buffer, 0, out, count * sizeof *out));
    for (size_t g = 0; g < groups; ++g)
        for (size_t l = 0; l < block; ++l) {
            int64_t expected = (int64_t)in[g * block + block - 1 - l] * 3 +
                               in[g * block + l];
            if (out[g * block + l] != expected)
                fail_msg("group %zu item %zu: got %lld, expected %lld", g, l,
                         (long long)out[g * block + l], (long long)expected);
        }
    TEST_OK(kiln_buffer_release(in_buffer));
    TEST_OK(kiln_buffer_release(out_buffer));
    free(in);
    free(out);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* ---- bad launches ---------------------------------------------------------------- */

typedef struct bad_launch_fixture {
    kiln_context *context;
    kiln_device_info device;
    kiln_program *program;
    kiln_kernel *kernel; /* scale_values(float *values, int count) */
    kiln_buffer *buffer;
    float data[64];
} bad_launch_fixture;

static void bad_launch_setup(void **state, bad_launch_fixture *f)
{
    f->context = test_context(state);
    TEST_OK(kiln_context_get_device_info(f->context, &f->device));
    f->program = launch_program(f->context);
    f->kernel = test_kernel(f->program, "scale_values");
    test_random_floats(f->data, 64, -10, 10);
    f->buffer = test_buffer_from(f->context, f->data, sizeof f->data);
}

/* The buffer is as it was (no refused launch ran), and a good launch still
 * works afterwards. */
static void bad_launch_teardown(bad_launch_fixture *f)
{
    float back[64], expected[64];
    TEST_OK(kiln_buffer_read(f->buffer, 0, back, sizeof back));
    test_assert_floats_near(back, f->data, 64, 0);
    kiln_launch_config config = test_config_1d(64, 32);
    kiln_arg args[] = {KILN_ARG_BUFFER(f->buffer), KILN_ARG_INT(64)};
    TEST_OK(kiln_launch(f->kernel, &config, 2, args));
    TEST_OK(kiln_buffer_read(f->buffer, 0, back, sizeof back));
    for (int i = 0; i < 64; ++i)
        expected[i] = f->data[i] * 2.0f + 1.0f;
    test_assert_floats_near(back, expected, 64, 1e-6);
    TEST_OK(kiln_buffer_release(f->buffer));
    TEST_OK(kiln_kernel_release(f->kernel));
    TEST_OK(kiln_program_release(f->program));
}

#define EXPECT_BAD_LAUNCH(status, config, count, args, mention)                \
    do {                                                                       \
        TEST_FAILS(status, kiln_launch(f.kernel, config, count, args));        \
        TEST_ERROR_MENTIONS("scale_values");                                   \
        TEST_ERROR_MENTIONS(mention);                                          \
    } while (0)

static void bad_geometry_is_refused(void **state)
{
    bad_launch_fixture f;
    bad_launch_setup(state, &f);
    kiln_arg args[] = {KILN_ARG_BUFFER(f.buffer), KILN_ARG_INT(64)};
    const kiln_device_info *d = &f.device;

    /* A zero in any component of the grid or the block. */
    const kiln_dim3 ones = KILN_DIM3(1, 1, 1);
    for (int axis = 0; axis < 3; ++axis) {
        for (int which = 0; which < 2; ++which) {
            kiln_launch_config config = {.grid = ones, .block = ones};
            kiln_dim3 *dims = which ? &config.block : &config.grid;
            size_t *component = axis == 0 ? &dims->x
                                : axis == 1 ? &dims->y
                                            : &dims->z;
            *component = 0;
            EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args,
                              which ? "block" : "grid");
        }
    }

    /* More threads in a block than the device allows.  (Over the kernel's
     * own figure but within the device's, the driver decides: NVIDIA's
     * OpenCL runs blocks above its CL_KERNEL_WORK_GROUP_SIZE.  The corpus
     * transpose with 32x32 tiles checks that such a launch runs.) */
    kiln_launch_config config = {.grid = ones,
                                 .block = KILN_DIM1(d->max_threads_per_block +
                                                    1)};
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args,
                      "the device allows");
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args, "block");
    config.block = KILN_DIM2(d->max_threads_per_block, 2);
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args, "block");
    config.block = KILN_DIM3(1, 1, d->max_block[2] + 1);
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args, "block");
    config.block = KILN_DIM3(SIZE_MAX, SIZE_MAX, 2); /* overflows */
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args, "block");

    /* More blocks than the device allows, and a grid whose thread count
     * overflows. */
    config.block = ones;
    for (int axis = 0; axis < 3; ++axis) {
        if (d->max_grid[axis] == SIZE_MAX)
            continue;
        config.grid = ones;
        size_t too_many = d->max_grid[axis] + 1;
        *(axis == 0 ? &config.grid.x : axis == 1 ? &config.grid.y
                                                 : &config.grid.z) = too_many;
        EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args, "grid");
    }
    config.grid = KILN_DIM1(SIZE_MAX / 2);
    config.block = KILN_DIM1(4);
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args, "grid");

    /* Huge components on every axis of the grid and of the block.  2^63 is
     * what x86-64 makes of a NaN or infinite double converted to size_t
     * (undefined in C: kiln_dim3 cannot hold a NaN, so this is the closest
     * a NaN dimension can get to Kiln). */
    const size_t huge[] = {SIZE_MAX, SIZE_MAX / 2 + 1, (size_t)UINT32_MAX + 1};
    for (size_t h = 0; h < sizeof huge / sizeof *huge; ++h) {
        for (int axis = 0; axis < 3; ++axis) {
            for (int which = 0; which < 2; ++which) {
                kiln_launch_config wild = {.grid = ones, .block = ones};
                kiln_dim3 *dims = which ? &wild.block : &wild.grid;
                *(axis == 0 ? &dims->x : axis == 1 ? &dims->y : &dims->z) =
                    huge[h];
                EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &wild, 2, args,
                                  which ? "block" : "grid");
            }
        }
    }

    /* config.local_memory is for CUDA C kernels only. */
    config = test_config_1d(64, 32);
    config.local_memory = 256;
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_LAUNCH, &config, 2, args,
                      "local_memory");
    bad_launch_teardown(&f);
}

static void bad_arguments_are_refused(void **state)
{
    bad_launch_fixture f;
    bad_launch_setup(state, &f);
    kiln_launch_config config = test_config_1d(64, 32);
    kiln_buffer *buffer = f.buffer;
    const float one = 1.0f;

    /* Count. */
    kiln_arg too_few[] = {KILN_ARG_BUFFER(buffer)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_COUNT, &config, 1, too_few, "2");
    kiln_arg too_many[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT(64),
                           KILN_ARG_INT(1)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_COUNT, &config, 3, too_many, "3");
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_COUNT, &config, 0, NULL, "0");

    /* Kind: the message names the parameter. */
    kiln_arg value_for_buffer[] = {KILN_ARG_INT(5), KILN_ARG_INT(64)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_KIND, &config, 2, value_for_buffer,
                      "values");
    kiln_arg local_for_buffer[] = {KILN_ARG_LOCAL(64), KILN_ARG_INT(64)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_KIND, &config, 2, local_for_buffer,
                      "values");
    kiln_arg buffer_for_value[] = {KILN_ARG_BUFFER(buffer),
                                   KILN_ARG_BUFFER(buffer)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_KIND, &config, 2, buffer_for_value,
                      "count");
    kiln_arg local_for_value[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_LOCAL(4)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_KIND, &config, 2, local_for_value,
                      "count");

    /* Type: typed constructors are checked against the declared type. */
    kiln_arg long_for_int[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_LONG(64)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_TYPE, &config, 2, long_for_int,
                      "count");
    kiln_arg float_for_int[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_FLOAT(64)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_TYPE, &config, 2, float_for_int,
                      "a float (KILN_ARG_FLOAT, 'f', 4 bytes) given for a "
                      "parameter of type int");

    /* Size: raw bytes are checked by size only. */
    const int64_t eight = 64;
    kiln_arg eight_for_int[] = {KILN_ARG_BUFFER(buffer),
                                KILN_ARG_VALUE(&eight, sizeof eight)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_SIZE, &config, 2, eight_for_int,
                      "count");
    kiln_arg short_for_int[] = {KILN_ARG_BUFFER(buffer),
                                KILN_ARG_VALUE(&one, 2)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_SIZE, &config, 2, short_for_int,
                      "count");
    kiln_arg empty_value[] = {KILN_ARG_BUFFER(buffer),
                              KILN_ARG_VALUE(&one, 0)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_SIZE, &config, 2, empty_value,
                      "count");

    /* NULL pointers. */
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_ARGUMENT, &config, 2, NULL, "NULL");
    kiln_arg null_value[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_VALUE(NULL, 4)};
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_ARGUMENT, &config, 2, null_value,
                      "count");
    kiln_arg null_buffer[] = {KILN_ARG_BUFFER(NULL), KILN_ARG_INT(64)};
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_HANDLE, &config, 2, null_buffer,
                      "values");
    kiln_arg bad_kind[] = {{.kind = (kiln_arg_kind)77, .buffer = buffer},
                           KILN_ARG_INT(64)};
    EXPECT_BAD_LAUNCH(KILN_ERR_ARGUMENT_KIND, &config, 2, bad_kind, "values");

    /* A released buffer is caught while its memory is kept. */
    kiln_buffer *released = test_buffer(f.context, 64);
    TEST_OK(kiln_buffer_release(released));
    kiln_arg released_buffer[] = {KILN_ARG_BUFFER(released), KILN_ARG_INT(64)};
    EXPECT_BAD_LAUNCH(KILN_ERR_INVALID_HANDLE, &config, 2, released_buffer,
                      "values");

    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch(f.kernel, NULL, 2, too_many));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_launch(NULL, &config, 2, too_many));
    bad_launch_teardown(&f);
}

static void objects_of_another_context_are_refused(void **state)
{
    bad_launch_fixture f;
    bad_launch_setup(state, &f);
    kiln_context *other = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &other));
    kiln_buffer *foreign = test_buffer(other, sizeof f.data);
    kiln_stream *foreign_stream = NULL;
    TEST_OK(kiln_stream_create(other, &foreign_stream));

    kiln_launch_config config = test_config_1d(64, 32);
    kiln_arg args[] = {KILN_ARG_BUFFER(foreign), KILN_ARG_INT(64)};
    EXPECT_BAD_LAUNCH(KILN_ERR_CONTEXT_MISMATCH, &config, 2, args, "values");
    kiln_arg good[] = {KILN_ARG_BUFFER(f.buffer), KILN_ARG_INT(64)};
    config.stream = foreign_stream;
    EXPECT_BAD_LAUNCH(KILN_ERR_CONTEXT_MISMATCH, &config, 2, good, "stream");

    TEST_OK(kiln_stream_release(foreign_stream));
    TEST_OK(kiln_buffer_release(foreign));
    TEST_OK(kiln_context_release(other));
    bad_launch_teardown(&f);
}

static void too_much_local_memory_is_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info device;
    TEST_OK(kiln_context_get_device_info(context, &device));
    kiln_program *program = launch_program(context);
    kiln_kernel *sums = test_kernel(program, "block_sums");
    kiln_kernel *mirror = test_kernel(program, "mirror");
    kiln_buffer *in = test_buffer(context, 4096);
    kiln_buffer *out = test_buffer(context, 4096);
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(8)};
    char limit_text[32];
    snprintf(limit_text, sizeof limit_text, "%llu",
             (unsigned long long)device.local_memory);

    kiln_arg one[] = {KILN_ARG_BUFFER(in), KILN_ARG_BUFFER(out),
                      KILN_ARG_LOCAL(device.local_memory + 1)};
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH, kiln_launch(sums, &config, 3, one));
    TEST_ERROR_MENTIONS("block_sums");
    TEST_ERROR_MENTIONS(limit_text);
    /* Each fits alone; together they do not. */
    size_t half = device.local_memory / 2 + 8;
    kiln_arg two[] = {KILN_ARG_BUFFER(in), KILN_ARG_BUFFER(out),
                      KILN_ARG_LOCAL(half), KILN_ARG_LOCAL(half)};
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH, kiln_launch(mirror, &config, 4, two));
    TEST_ERROR_MENTIONS("mirror");
    kiln_arg huge[] = {KILN_ARG_BUFFER(in), KILN_ARG_BUFFER(out),
                       KILN_ARG_LOCAL(SIZE_MAX), KILN_ARG_LOCAL(SIZE_MAX)};
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH, kiln_launch(mirror, &config, 4, huge));
    kiln_arg none[] = {KILN_ARG_BUFFER(in), KILN_ARG_BUFFER(out),
                       KILN_ARG_LOCAL(0)};
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_launch(sums, &config, 3, none));
    TEST_ERROR_MENTIONS("scratch");

    TEST_OK(kiln_buffer_release(in));
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(sums));
    TEST_OK(kiln_kernel_release(mirror));
    TEST_OK(kiln_program_release(program));
}

/* ---- lifetimes ---------------------------------------------------------------------- */

static void kernel_keeps_its_program_alive(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = launch_program(context);
    kiln_kernel *kernel = test_kernel(program, "scale_values");
    TEST_OK(kiln_program_release(program));

    float values[100], expected[100];
    test_random_floats(values, 100, -3, 3);
    for (int i = 0; i < 100; ++i)
        expected[i] = values[i] * 2.0f + 1.0f;
    kiln_buffer *buffer = test_buffer_from(context, values, sizeof values);
    kiln_launch_config config = test_config_1d(100, 32);
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT(100)};
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    TEST_OK(kiln_buffer_read(buffer, 0, values, sizeof values));
    test_assert_floats_near(values, expected, 100, 1e-6);
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_kernel_release(kernel));
}

static void context_released_before_its_objects(void **state)
{
    (void)test_context(state);
    kiln_context *context = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    kiln_program *program = launch_program(context);
    kiln_kernel *kernel = test_kernel(program, "scale_values");
    float values[300], expected[300];
    test_random_floats(values, 300, -3, 3);
    kiln_buffer *buffer = test_buffer_from(context, values, sizeof values);
    kiln_stream *stream = NULL;
    kiln_event *event = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    TEST_OK(kiln_event_create(context, &event));
    void *pinned = NULL;
    TEST_OK(kiln_host_alloc(context, sizeof values, &pinned));

    /* Every child keeps the context alive. */
    TEST_OK(kiln_context_release(context));
    TEST_OK(kiln_program_release(program));

    for (int i = 0; i < 300; ++i)
        expected[i] = (values[i] * 2.0f + 1.0f) * 2.0f + 1.0f;
    kiln_launch_config config = test_config_1d(300, 64);
    config.stream = stream;
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT(300)};
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    TEST_OK(kiln_event_record(event, stream));
    TEST_OK(kiln_buffer_read_async(buffer, 0, pinned, sizeof values, stream));
    TEST_OK(kiln_stream_synchronize(stream));
    TEST_OK(kiln_event_synchronize(event));
    test_assert_floats_near(pinned, expected, 300, 1e-6);

    kiln_context *owner = NULL;
    TEST_OK(kiln_buffer_get_context(buffer, &owner));
    const char *name = NULL;
    TEST_OK(kiln_context_get_backend(owner, &name));
    assert_string_equal(name, test_backend(state));
    TEST_OK(kiln_host_free(owner, pinned));

    /* Released in an unusual order; the last release frees the context
     * (valgrind checks nothing leaks). */
    TEST_OK(kiln_stream_release(stream));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_event_release(event));
    TEST_OK(kiln_buffer_release(buffer));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(work_items_in_one_two_and_three_dimensions),
        KILN_TEST(a_rounded_up_grid_covers_odd_sizes),
        KILN_TEST(required_block_size_is_honoured),
        KILN_TEST(kernel_without_parameters),
        KILN_TEST(values_of_every_scalar_type),
        KILN_TEST(double_values),
        KILN_TEST(one_local_argument),
        KILN_TEST(several_local_arguments_do_not_overlap),
        KILN_TEST(bad_geometry_is_refused),
        KILN_TEST(bad_arguments_are_refused),
        KILN_TEST(objects_of_another_context_are_refused),
        KILN_TEST(too_much_local_memory_is_refused),
        KILN_TEST(kernel_keeps_its_program_alive),
        KILN_TEST(context_released_before_its_objects),
    };
    return kiln_test_main("launch", tests, sizeof tests / sizeof *tests);
}
