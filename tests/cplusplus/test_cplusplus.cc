/*
 * kiln.h from C++: the argument and grid constructors compile as C++ (in C
 * they are compound literals, which C++ lacks) and carry the same types,
 * so a launch computes the right result and a mismatch is refused.
 */
#include "config.h"

extern "C" {
#include "../harness.h"
}

#include <cstdio>
#include <cstring>
#include <vector>

static const char source[] =
    "kernel void axpb(global float *y, global const float *x, float a,\n"
    "                 float b, uint n, local float *scratch)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    scratch[get_local_id(0)] = i < n ? x[i] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (i < n)\n"
    "        y[i] = a * scratch[get_local_id(0)] + b;\n"
    "}\n";

static void constructors_compile_and_launch(void **state)
{
    kiln_context *context = test_context(state);
    const unsigned n = 1000 + (unsigned)(test_random_u64() % 500);
    std::vector<float> x(n), y(n, 0.0f), expected(n);
    test_random_floats(x.data(), n, -3.0f, 3.0f);
    const float a = test_random_float(0.5f, 2.0f);
    const float b = test_random_float(-1.0f, 1.0f);
    for (unsigned i = 0; i < n; ++i)
        expected[i] = a * x[i] + b;

    kiln_program *program = test_build(context, source, NULL);
    kiln_kernel *kernel = test_kernel(program, "axpb");
    kiln_launch_config config = {};
    config.grid = KILN_DIM1((n + 63) / 64);
    config.block = KILN_DIM3(64, 1, 1);
    const size_t bytes = n * sizeof(float);
    kiln_arg args[] = {KILN_ARG_OUT(y.data(), bytes),
                       KILN_ARG_IN(x.data(), bytes),
                       KILN_ARG_FLOAT(a),
                       KILN_ARG_FLOAT(b),
                       KILN_ARG_UINT(n),
                       KILN_ARG_LOCAL(64 * sizeof(float))};
    TEST_OK(kiln_launch(kernel, &config, 6, args));
    test_assert_floats_near(y.data(), expected.data(), n, 1e-5);

    /* A buffer and raw bytes, and the type check. */
    kiln_buffer *x_gpu = test_buffer_from(context, x.data(), bytes);
    kiln_buffer *y_gpu = test_buffer(context, bytes);
    kiln_arg typed[] = {KILN_ARG_BUFFER(y_gpu), KILN_ARG_BUFFER(x_gpu),
                        KILN_ARG_VALUE(&a, sizeof a), KILN_ARG_DOUBLE(b),
                        KILN_ARG_UINT(n), KILN_ARG_LOCAL(256)};
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE, kiln_launch(kernel, &config, 6, typed));
    TEST_ERROR_MENTIONS("float b");
    typed[3] = KILN_ARG_FLOAT(b);
    TEST_OK(kiln_launch(kernel, &config, 6, typed));
    std::fill(y.begin(), y.end(), 0.0f);
    TEST_OK(kiln_buffer_read(y_gpu, 0, y.data(), bytes));
    test_assert_floats_near(y.data(), expected.data(), n, 1e-5);

    TEST_OK(kiln_buffer_release(x_gpu));
    TEST_OK(kiln_buffer_release(y_gpu));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(constructors_compile_and_launch),
    };
    return kiln_test_main("cplusplus", tests, sizeof tests / sizeof tests[0]);
}
