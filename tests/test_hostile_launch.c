/*
 * What the third outside attack (issue 29) broke in launches: values of
 * the wrong size for struct and CUDA 3-component parameters, grids the
 * device cannot schedule, names the driver aborts on, and a prepared
 * launch whose value does not match its type string.  Each case is
 * answered with its own status and message; good launches of the same
 * kernels give the CPU's results.
 */
#include "config.h"

#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- C1: by-value structs and CUDA's 3-component types ------------------- */

static const char struct_source[] =
    "typedef struct { float a, b, c; } triple;\n"
    "struct pair { double x; int y; };\n"
    "kernel void weigh(global float *out, triple t, struct pair p, float3 v,\n"
    "                  int n) {\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) out[i] = t.a * i + t.b - t.c + (float)p.x * p.y + v.z;\n"
    "}\n";

typedef struct triple {
    float a, b, c;
} triple;

typedef struct pair {
    double x;
    int y;
} pair;

static void expect_param_size(kiln_kernel *kernel, size_t index,
                              size_t expected)
{
    kiln_param_info info;
    TEST_OK(kiln_kernel_get_param_info(kernel, index, &info));
    if (info.size != expected)
        fail_msg("parameter %zu (%s %s): size %zu, expected %zu", index,
                 info.type_name, info.name, info.size, expected);
}

static void struct_parameters_are_sized(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, struct_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "weigh");
    expect_param_size(kernel, 1, sizeof(triple));
    expect_param_size(kernel, 2, sizeof(pair));
    expect_param_size(kernel, 3, 16); /* OpenCL's float3 */

    enum { n = 1000 };
    kiln_buffer *out = test_buffer(context, n * sizeof(float));
    triple t = {test_random_float(0.5f, 2), test_random_float(-1, 1),
                test_random_float(-1, 1)};
    pair p = {test_random_float(0.5f, 2), (int)(test_random_u64() % 50) + 1};
    float v[4] = {test_random_float(-1, 1), test_random_float(-1, 1),
                  test_random_float(-1, 1), 0};
    int count = n;
    kiln_launch_config config = test_config_1d(n, 64);

    /* a 4-byte value for each of the 12- and 16-byte parameters */
    kiln_arg wrong_triple[] = {KILN_ARG_BUFFER(out), KILN_ARG_FLOAT(t.a),
                               KILN_ARG_VALUE(&p, sizeof p),
                               KILN_ARG_VALUE(v, sizeof v),
                               KILN_ARG_INT(count)};
    TEST_FAILS(KILN_ERR_ARGUMENT_SIZE,
               kiln_launch(kernel, &config, 5, wrong_triple));
    TEST_ERROR_MENTIONS("argument 1 (triple t)");
    kiln_arg wrong_pair[] = {KILN_ARG_BUFFER(out), KILN_ARG_VALUE(&t, sizeof t),
                             KILN_ARG_INT(7), KILN_ARG_VALUE(v, sizeof v),
                             KILN_ARG_INT(count)};
    TEST_FAILS(KILN_ERR_ARGUMENT_SIZE,
               kiln_launch(kernel, &config, 5, wrong_pair));
    TEST_ERROR_MENTIONS("the parameter takes 16");
    kiln_arg short_vector[] = {KILN_ARG_BUFFER(out),
                               KILN_ARG_VALUE(&t, sizeof t),
                               KILN_ARG_VALUE(&p, sizeof p),
                               KILN_ARG_VALUE(v, 12), KILN_ARG_INT(count)};
    TEST_FAILS(KILN_ERR_ARGUMENT_SIZE,
               kiln_launch(kernel, &config, 5, short_vector));

    kiln_arg good[] = {KILN_ARG_BUFFER(out), KILN_ARG_VALUE(&t, sizeof t),
                       KILN_ARG_VALUE(&p, sizeof p), KILN_ARG_VALUE(v, sizeof v),
                       KILN_ARG_INT(count)};
    TEST_OK(kiln_launch(kernel, &config, 5, good));
    float result[n], expected[n];
    test_read(out, result, sizeof result);
    for (int i = 0; i < n; ++i)
        expected[i] = t.a * (float)i + t.b - t.c + (float)p.x * (float)p.y +
                      v[2];
    test_assert_floats_near(result, expected, n, 1e-5);
    kiln_buffer_release(out);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
}

static const char cuda_struct_source[] =
    "struct S { double x; int y; };\n"
    "__global__ void weigh(float *out, float3 t, S s, int3 i3, dim3 d,\n"
    "                      uchar3 u, double3 w, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = t.x * i + t.y - t.z + (float)s.x * s.y\n"
    "                        + i3.x - i3.z + d.y + u.x + u.z + (float)w.z;\n"
    "}\n";

static void cuda_three_component_parameters_are_sized(void **state)
{
    kiln_context *context = test_context(state);
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, cuda_struct_source, 0, &options,
                                    &program));
    kiln_kernel *kernel = test_kernel(program, "weigh");
    /* CUDA's layout: float3, int3 and dim3 are 12 bytes, uchar3 3,
     * double3 24; the struct as the host lays it out */
    expect_param_size(kernel, 1, 12);
    expect_param_size(kernel, 2, sizeof(pair));
    expect_param_size(kernel, 3, 12);
    expect_param_size(kernel, 4, 12);
    expect_param_size(kernel, 5, 3);
    expect_param_size(kernel, 6, 24);

    enum { n = 777 };
    kiln_buffer *out = test_buffer(context, n * sizeof(float));
    float t[3];
    test_random_floats(t, 3, -2, 2);
    pair s = {test_random_float(0.5f, 2), (int)(test_random_u64() % 50) + 1};
    int32_t i3[3];
    test_random_ints(i3, 3, -100, 100);
    uint32_t d[3] = {(uint32_t)(test_random_u64() % 64) + 1,
                     (uint32_t)(test_random_u64() % 64) + 1, 1};
    unsigned char u[3];
    test_random_bytes(u, 3);
    double w[3];
    test_random_doubles(w, 3, -3, 3);
    int count = n;
    kiln_launch_config config = test_config_1d(n, 64);

    /* Each 3-component parameter given a 4-byte scalar. */
    for (int wrong = 1; wrong <= 6; ++wrong) {
        kiln_arg args[] = {
            KILN_ARG_BUFFER(out),      KILN_ARG_VALUE(t, sizeof t),
            KILN_ARG_VALUE(&s, sizeof s), KILN_ARG_VALUE(i3, sizeof i3),
            KILN_ARG_VALUE(d, sizeof d), KILN_ARG_VALUE(u, sizeof u),
            KILN_ARG_VALUE(w, sizeof w), KILN_ARG_INT(count)};
        args[wrong] = KILN_ARG_FLOAT(1.5f);
        kiln_status status = kiln_launch(kernel, &config, 8, args);
        if (status != KILN_ERR_ARGUMENT_SIZE)
            fail_msg("a float for parameter %d -> %s (%s), expected "
                     "KILN_ERR_ARGUMENT_SIZE",
                     wrong, kiln_status_name(status), kiln_last_error());
    }
    kiln_arg good[] = {
        KILN_ARG_BUFFER(out),      KILN_ARG_VALUE(t, sizeof t),
        KILN_ARG_VALUE(&s, sizeof s), KILN_ARG_VALUE(i3, sizeof i3),
        KILN_ARG_VALUE(d, sizeof d), KILN_ARG_VALUE(u, sizeof u),
        KILN_ARG_VALUE(w, sizeof w), KILN_ARG_INT(count)};
    TEST_OK(kiln_launch(kernel, &config, 8, good));
    float result[n];
    test_read(out, result, sizeof result);
    /* Ten terms of up to ~1600 in magnitude that may cancel, and a device
     * that may fuse t.x * i + t.y: the error bound scales with the terms'
     * magnitudes, not the result's. */
    for (int i = 0; i < n; ++i) {
        double terms[] = {(double)t[0] * i, t[1], -(double)t[2],
                          (double)(float)s.x * s.y, i3[0], -(double)i3[2],
                          d[1], u[0], u[2], (double)(float)w[2]};
        double sum = 0, magnitude = 0;
        for (size_t k = 0; k < sizeof terms / sizeof *terms; ++k) {
            sum += terms[k];
            magnitude += fabs(terms[k]);
        }
        if (!(fabs((double)result[i] - sum) <= 1e-6 * magnitude + 1e-6))
            fail_msg("element %d: got %.9g, expected %.9g", i,
                     (double)result[i], sum);
    }
    kiln_buffer_release(out);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
}

/* ---- C2: grids the device cannot schedule -------------------------------- */

static const char fill_source[] =
    "kernel void fill(global int *out, int value, int n) {\n"
    "    size_t i = get_global_id(0) + get_global_size(0) *\n"
    "               (get_global_id(1) + get_global_size(1) * get_global_id(2));\n"
    "    if (i < (size_t)n) out[i] = value;\n"
    "}\n";

static void grids_of_too_many_groups_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, fill_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "fill");
    enum { n = 4096 };
    int32_t before[n];
    test_random_ints(before, n, -1000, 1000);
    kiln_buffer *out = test_buffer_from(context, before, sizeof before);
    int value = (int)(test_random_u64() % 1000) + 1;
    kiln_arg args[] = {KILN_ARG_BUFFER(out), KILN_ARG_INT(value),
                       KILN_ARG_INT(n)};
    /* 2^32 and more work-groups of one work-item, each axis within the
     * OpenCL device's limits (CUDA's y and z stop at 65535; the last grid,
     * within them, CUDA schedules) */
    const kiln_dim3 grids[] = {
        {65536, 65536, 1}, {4, 1024, 1u << 20}, {2147483647, 2147483647, 1},
        {65536, 256, 65536}, {1u << 30, 4, 1}};
    size_t grid_count = sizeof grids / sizeof grids[0];
    if (strcmp(test_backend(state), "opencl") != 0)
        --grid_count;
    for (size_t g = 0; g < grid_count; ++g) {
        kiln_launch_config config = {.grid = grids[g],
                                     .block = KILN_DIM1(1)};
        kiln_status status = kiln_launch(kernel, &config, 3, args);
        if (status != KILN_ERR_INVALID_LAUNCH)
            fail_msg("grid %zux%zux%zu -> %s (%s), expected "
                     "KILN_ERR_INVALID_LAUNCH",
                     grids[g].x, grids[g].y, grids[g].z,
                     kiln_status_name(status), kiln_last_error());
        if (kiln_last_error()[0] == '\0')
            fail_msg("grid %zux%zux%zu refused without a message",
                     grids[g].x, grids[g].y, grids[g].z);
    }
    TEST_OK(kiln_context_synchronize(context));
    int32_t after[n];
    test_read(out, after, sizeof after);
    if (memcmp(before, after, sizeof after) != 0)
        fail_msg("a refused launch changed the buffer");
    /* the same kernel on a grid it can run */
    kiln_launch_config config = {.grid = {16, 16, 1}, .block = {4, 4, 1}};
    TEST_OK(kiln_launch(kernel, &config, 3, args));
    test_read(out, after, sizeof after);
    for (int i = 0; i < n; ++i)
        if (after[i] != value)
            fail_msg("element %d: %d, expected %d", i, after[i], value);
    kiln_buffer_release(out);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
}

/* ---- C3: kernel names the driver aborts on ------------------------------- */

/* Runs kernel `name` of `program` (out[i] = value + i) and checks it. */
static void run_named_kernel(kiln_context *context, kiln_program *program,
                             const char *name)
{
    kiln_kernel *kernel = test_kernel(program, name);
    enum { n = 64 };
    kiln_buffer *out = test_buffer(context, n * sizeof(int32_t));
    int value = (int)(test_random_u64() % 1000) + 1;
    kiln_launch_config config = test_config_1d(n, 16);
    kiln_arg args[] = {KILN_ARG_BUFFER(out), KILN_ARG_INT(value)};
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    int32_t result[n];
    test_read(out, result, sizeof result);
    for (int i = 0; i < n; ++i)
        if (result[i] != value + i)
            fail_msg("element %d: %d, expected %d", i, result[i], value + i);
    kiln_buffer_release(out);
    kiln_kernel_release(kernel);
}

static void long_kernel_names_are_refused_or_run(void **state)
{
    kiln_context *context = test_context(state);
    const bool opencl = strcmp(test_backend(state), "opencl") == 0;
    /* OpenCL C: up to 150 characters run on the OpenCL backend, past it
     * they are refused before the driver sees them (PoCL 3.1 aborted the
     * process from 253 on, NVIDIA's OpenCL corrupted memory); the
     * CUDA backend's translation takes names of up to 127.  CUDA C on
     * OpenCL (translated): up to 127, longer ones refused (they were cut
     * and then not found by their own name). */
    const size_t lengths[] = {100, 127, 128, 150, 151, 200, 253, 300, 1000};
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; ++l) {
        size_t length = lengths[l];
        char *name = test_alloc(length + 1);
        for (size_t i = 0; i < length; ++i)
            name[i] = (char)('a' + (i * 7 + length) % 26);
        name[length] = '\0';
        char *source = test_alloc(length + 256);
        for (int cuda_c = 0; cuda_c < 2; ++cuda_c) {
            snprintf(source, length + 256,
                     cuda_c ? "extern \"C\" __global__ void %s(int *out, "
                              "int value) {\n"
                              "    int i = blockIdx.x * blockDim.x + "
                              "threadIdx.x;\n"
                              "    out[i] = value + i;\n"
                              "}\n"
                            : "kernel void %s(global int *out, int value) "
                              "{\n"
                              "    out[get_global_id(0)] = value + "
                              "(int)get_global_id(0);\n"
                              "}\n",
                     name);
            kiln_program *program = NULL;
            kiln_status status =
                kiln_program_build(context, source, NULL, &program);
            size_t longest = opencl ? (cuda_c ? 127 : 150) : 127;
            bool native_cuda = cuda_c && !opencl;
            if (status == KILN_OK && (length <= longest || native_cuda)) {
                run_named_kernel(context, program, name);
                kiln_program_release(program);
                continue;
            }
            if (status == KILN_OK)
                fail_msg("%s kernel name of %zu characters built on %s: "
                         "expected a refusal past %zu",
                         cuda_c ? "a CUDA C" : "an OpenCL C", length,
                         test_backend(state), longest);
            if (length <= longest && !native_cuda)
                fail_msg("%s kernel name of %zu characters -> %s (%s)",
                         cuda_c ? "a CUDA C" : "an OpenCL C", length,
                         kiln_status_name(status), kiln_last_error());
            if (opencl && !cuda_c) {
                if (status != KILN_ERR_UNSUPPORTED)
                    fail_msg("a kernel name of %zu characters -> %s (%s), "
                             "expected KILN_ERR_UNSUPPORTED",
                             length, kiln_status_name(status),
                             kiln_last_error());
                TEST_ERROR_MENTIONS("has a name of");
            } else {
                if (status != KILN_ERR_BUILD &&
                    status != KILN_ERR_TRANSLATION)
                    fail_msg("%s kernel name of %zu characters on %s -> %s "
                             "(%s)",
                             cuda_c ? "a CUDA C" : "an OpenCL C", length,
                             test_backend(state), kiln_status_name(status),
                             kiln_last_error());
                TEST_ERROR_MENTIONS("kernel name too long");
            }
        }
        free(source);
        free(name);
    }
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(struct_parameters_are_sized),
        KILN_TEST(cuda_three_component_parameters_are_sized),
        KILN_TEST(grids_of_too_many_groups_are_refused),
        KILN_TEST(long_kernel_names_are_refused_or_run),
    };
    return kiln_test_main("hostile_launch", tests,
                          sizeof tests / sizeof tests[0]);
}
