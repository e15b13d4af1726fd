/*
 * multiply_them: dest = a * b for 400 random floats, with no buffers in
 * sight.  Host arrays are passed as In/Out arguments (PyCUDA's drv.In and
 * drv.Out): Kiln copies them to the device before the launch and back after.
 */
#include "example.h"

#define COUNT 400

/* `n` lets the grid be larger than the data (see the block size below);
 * threads past the end do nothing. */
static const char multiply_source[] =
    "__kernel void multiply_them(__global float *dest,\n"
    "                            __global const float *a,\n"
    "                            __global const float *b, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        dest[i] = a[i] * b[i];\n"
    "}\n";

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    float a[COUNT], b[COUNT], dest[COUNT];
    example_random_floats(&rng, a, COUNT, -1.0f, 1.0f);
    example_random_floats(&rng, b, COUNT, -1.0f, 1.0f);
    /* NaN until the device's answer is copied over it. */
    for (size_t i = 0; i < COUNT; ++i)
        dest[i] = NAN;

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    kiln_program *module = NULL;
    kiln_kernel *multiply_them = NULL;
    EXAMPLE_CHECK(kiln_program_build(context, multiply_source, NULL, &module));
    EXAMPLE_CHECK(kiln_kernel_create(module, "multiply_them", &multiply_them));

    /* PyCUDA's tutorial runs one block of 400 threads.  That fits on every
     * current GPU and on PoCL, but the limit is the device's (and the
     * kernel's: registers count), so ask, and cover the data with more
     * blocks if one is not enough. */
    size_t block = COUNT, kernel_limit = 0;
    kiln_device_info device;
    EXAMPLE_CHECK(kiln_kernel_get_max_block_size(multiply_them, &kernel_limit));
    EXAMPLE_CHECK(kiln_context_get_device_info(context, &device));
    if (kernel_limit != 0 && block > kernel_limit)
        block = kernel_limit;
    if (device.max_block[0] != 0 && block > device.max_block[0])
        block = device.max_block[0];
    const size_t grid = (COUNT + block - 1) / block;

    /* multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400,1,1)):
     * In arrays are copied to the device before the kernel runs, Out arrays
     * back to the host after it, so the launch returns with `dest` filled. */
    const kiln_launch_config config = {.grid = KILN_DIM1(grid),
                                       .block = KILN_DIM1(block)};
    const kiln_arg args[] = {
        KILN_ARG_OUT(dest, sizeof dest),
        KILN_ARG_IN(a, sizeof a),
        KILN_ARG_IN(b, sizeof b),
        KILN_ARG_INT(COUNT),
    };
    EXAMPLE_CHECK(kiln_launch(multiply_them, &config, 4, args));
    printf("multiplied %d floats with %zu block(s) of %zu threads\n", COUNT,
           grid, block);

    /* One IEEE multiplication, correctly rounded everywhere: expect
     * equality. */
    float expected[COUNT];
    for (size_t i = 0; i < COUNT; ++i)
        expected[i] = a[i] * b[i];
    printf("dest[0..3] = %.6f %.6f %.6f %.6f\n", (double)dest[0],
           (double)dest[1], (double)dest[2], (double)dest[3]);
    size_t wrong = example_compare("dest", dest, expected, COUNT, 0.0);

    EXAMPLE_CHECK(kiln_kernel_release(multiply_them));
    EXAMPLE_CHECK(kiln_program_release(module));
    EXAMPLE_CHECK(kiln_context_release(context));
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
