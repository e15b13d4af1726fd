/*
 * cuda_multiply_them: PyCUDA's "hello GPU" with its CUDA C kernel as
 * written there, and its host arrays passed as In/Out arguments (PyCUDA's
 * drv.In and drv.Out): Kiln copies them in before the launch and out
 * after it.
 */
#include "example.h"

#define COUNT 400

static const char multiply_source[] =
    "__global__ void multiply_them(float *dest, float *a, float *b)\n"
    "{\n"
    "  const int i = threadIdx.x;\n"
    "  dest[i] = a[i] * b[i];\n"
    "}\n";

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    float a[COUNT], b[COUNT], dest[COUNT];
    example_random_floats(&rng, a, COUNT, -1.0f, 1.0f);
    example_random_floats(&rng, b, COUNT, -1.0f, 1.0f);
    for (size_t i = 0; i < COUNT; ++i)
        dest[i] = NAN;

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *mod = NULL;
    kiln_kernel *multiply_them = NULL;
    EXAMPLE_CHECK(kiln_program_build_with(context, multiply_source, 0,
                                          &options, &mod));
    EXAMPLE_CHECK(kiln_kernel_create(mod, "multiply_them", &multiply_them));

    /* The kernel indexes by threadIdx.x alone: one block of 400 threads,
     * as in the tutorial.  The launch itself says if a device cannot run
     * that (kiln_kernel_get_max_block_size is only the driver's advice:
     * NVIDIA's OpenCL reports 256 and runs 400). */

    /* multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400,1,1)) */
    const kiln_launch_config config = {.grid = KILN_DIM1(1),
                                       .block = KILN_DIM1(COUNT)};
    const kiln_arg args[] = {KILN_ARG_OUT(dest, sizeof dest),
                             KILN_ARG_IN(a, sizeof a),
                             KILN_ARG_IN(b, sizeof b)};
    EXAMPLE_CHECK(kiln_launch(multiply_them, &config, 3, args));

    float expected[COUNT];
    for (size_t i = 0; i < COUNT; ++i)
        expected[i] = a[i] * b[i];
    printf("dest[0..3] = %.6f %.6f %.6f %.6f\n", (double)dest[0],
           (double)dest[1], (double)dest[2], (double)dest[3]);
    size_t wrong = example_compare("dest", dest, expected, COUNT, 0.0);

    EXAMPLE_CHECK(kiln_kernel_release(multiply_them));
    EXAMPLE_CHECK(kiln_program_release(mod));
    EXAMPLE_CHECK(kiln_context_release(context));
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
