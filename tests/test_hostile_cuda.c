/*
 * What the third outside attack (issue 29) broke in the CUDA C -> OpenCL
 * C translation, beyond the intrinsics (tests/test_cuda_intrinsics.c):
 * kernels named like OpenCL built-ins, valid CUDA C that the translation
 * turned into OpenCL C the driver rejected, and arithmetic with directed
 * rounding, which OpenCL C cannot express and which is refused instead of
 * rounded to nearest.  Every kernel runs on both backends (natively on
 * CUDA) against a CPU reference.
 */
#include "config.h"

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kiln_program *build_cuda(kiln_context *context, const char *source)
{
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &program));
    return program;
}

/* ---- M3: kernels named like OpenCL C built-ins -------------------------- */

/* Each kernel writes its own number plus the input; the names are OpenCL
 * C built-ins (or prelude names) outside any fixed list. */
static const char *const builtin_names[] = {
    "fdim",        "isequal",   "vload8",      "native_sin", "get_global_id",
    "convert_int", "atomic_add", "async_work_group_copy", "half_exp",
    "isordered",   "bitselect", "upsample",
};
#define NAME_COUNT (sizeof builtin_names / sizeof builtin_names[0])

static void kernels_named_like_builtins_are_found(void **state)
{
    kiln_context *context = test_context(state);
    char source[8192] = "";
    size_t used = 0;
    for (size_t k = 0; k < NAME_COUNT; ++k)
        used += (size_t)snprintf(source + used, sizeof source - used,
                                 "__global__ void %s(int *out, const int *in)"
                                 " { int i = threadIdx.x; out[i] = in[i] + "
                                 "%zu; }\n",
                                 builtin_names[k], 1000 * (k + 1));
    kiln_program *program = build_cuda(context, source);
    size_t count = 0;
    TEST_OK(kiln_program_get_kernel_count(program, &count));
    assert_int_equal(count, NAME_COUNT);
    enum { n = 64 };
    int32_t in[n], out[n];
    test_random_ints(in, n, -100000, 100000);
    kiln_buffer *input = test_buffer_from(context, in, sizeof in);
    kiln_buffer *output = test_buffer(context, sizeof out);
    for (size_t k = 0; k < NAME_COUNT; ++k) {
        kiln_kernel *kernel = NULL;
        kiln_status status = kiln_kernel_create(program, builtin_names[k],
                                                &kernel);
        if (status != KILN_OK)
            fail_msg("kernel '%s' -> %s: %s", builtin_names[k],
                     kiln_status_name(status), kiln_last_error());
        TEST_LAUNCH(kernel, KILN_DIM1(1), KILN_DIM1(n), 0,
                    KILN_ARG_BUFFER(output), KILN_ARG_BUFFER(input));
        test_read(output, out, sizeof out);
        for (int i = 0; i < n; ++i)
            if (out[i] != in[i] + (int32_t)(1000 * (k + 1)))
                fail_msg("kernel '%s', element %d: %d, expected %d",
                         builtin_names[k], i, out[i],
                         in[i] + (int32_t)(1000 * (k + 1)));
        kiln_kernel_release(kernel);
    }
    kiln_buffer_release(input);
    kiln_buffer_release(output);
    kiln_program_release(program);
}

/* ---- directed rounding: refused on OpenCL, computed on CUDA -------------- */

static void directed_rounding_is_refused_not_rounded_to_nearest(void **state)
{
    kiln_context *context = test_context(state);
    static const char *const calls[] = {
        "__fadd_rz(a[0], a[1])", "__fmul_ru(a[0], a[1])",
        "__fdiv_rd(a[0], a[1])", "__fsqrt_rz(a[0])",
        "__fmaf_ru(a[0], a[1], a[2])", "__frcp_rd(a[0])",
    };
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; ++c) {
        char source[512];
        snprintf(source, sizeof source,
                 "__global__ void k(float *a) {\n  a[3] = %s;\n}\n", calls[c]);
        kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
        kiln_program *program = NULL;
        kiln_status status = kiln_program_build_with(context, source, 0,
                                                     &options, &program);
        if (strcmp(test_backend(state), "opencl") == 0) {
            if (status != KILN_ERR_TRANSLATION)
                fail_msg("%s -> %s (%s), expected KILN_ERR_TRANSLATION",
                         calls[c], kiln_status_name(status),
                         kiln_last_error());
            TEST_ERROR_MENTIONS("directed rounding");
            TEST_ERROR_MENTIONS(":2:");
            continue;
        }
        TEST_OK(status);
        kiln_program_release(program);
    }
    if (strcmp(test_backend(state), "opencl") == 0)
        return;
    /* On CUDA the rounding is CUDA's: 1 + 2^-30 toward zero is 1, up is
     * the next float. */
    kiln_program *program = build_cuda(
        context, "__global__ void k(float *a) {\n"
                 "  a[2] = __fadd_rz(a[0], a[1]);\n"
                 "  a[3] = __fadd_ru(a[0], a[1]);\n}\n");
    kiln_kernel *kernel = test_kernel(program, "k");
    float values[4] = {1.0f, 0x1p-30f, 0, 0};
    kiln_buffer *buffer = test_buffer_from(context, values, sizeof values);
    TEST_LAUNCH(kernel, KILN_DIM1(1), KILN_DIM1(1), 0,
                KILN_ARG_BUFFER(buffer));
    test_read(buffer, values, sizeof values);
    assert_true(values[2] == 1.0f);
    assert_true(values[3] == 1.0f + 0x1p-23f);
    kiln_buffer_release(buffer);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(kernels_named_like_builtins_are_found),
        KILN_TEST(directed_rounding_is_refused_not_rounded_to_nearest),
    };
    return kiln_test_main("hostile_cuda", tests,
                          sizeof tests / sizeof tests[0]);
}
