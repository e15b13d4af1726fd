/*
 * cuda_sum_of_squares: the naive reduction PyCUDA users write first, in
 * CUDA C: every thread squares one element and adds it to a single total
 * with a float atomicAdd (which returns the old value, as in CUDA, on
 * every backend).
 */
#include "example.h"

#define COUNT (1 << 16)
#define BLOCK 256

static const char sum_source[] =
    "__global__ void sum_of_squares(const float *x, int n, float *total)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    atomicAdd(total, x[i] * x[i]);\n"
    "}\n";

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    float *x = malloc(COUNT * sizeof *x);
    if (x == NULL)
        return EXIT_FAILURE;
    example_random_floats(&rng, x, COUNT, -1.0f, 1.0f);
    double expected = 0;
    for (size_t i = 0; i < COUNT; ++i)
        expected += (double)x[i] * x[i];

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *mod = NULL;
    kiln_kernel *kernel = NULL;
    EXAMPLE_CHECK(kiln_program_build_with(context, sum_source, 0, &options,
                                          &mod));
    EXAMPLE_CHECK(kiln_kernel_create(mod, "sum_of_squares", &kernel));

    kiln_buffer *x_gpu = NULL, *total_gpu = NULL;
    float zero = 0.0f, total = 0.0f;
    EXAMPLE_CHECK(kiln_buffer_create_from(context, x, COUNT * sizeof *x,
                                          &x_gpu));
    EXAMPLE_CHECK(kiln_buffer_create_from(context, &zero, sizeof zero,
                                          &total_gpu));
    float milliseconds = 0.0f;
    const kiln_launch_config config = {
        .grid = KILN_DIM1((COUNT + BLOCK - 1) / BLOCK),
        .block = KILN_DIM1(BLOCK),
        .time_ms = &milliseconds};
    const kiln_arg args[] = {KILN_ARG_BUFFER(x_gpu), KILN_ARG_INT(COUNT),
                             KILN_ARG_BUFFER(total_gpu)};
    EXAMPLE_CHECK(kiln_launch(kernel, &config, 3, args));
    EXAMPLE_CHECK(kiln_buffer_read(total_gpu, 0, &total, sizeof total));
    printf("sum of %d squares: %.6f on the device (%.3f ms), %.6f on the "
           "CPU\n", COUNT, (double)total, (double)milliseconds, expected);

    /* COUNT float additions in whatever order the atomics land, each
     * rounding by at most 2^-24 of the running total: the float total is
     * within a relative COUNT * 2^-24 of the exact one (the naive kernel's
     * price; sum_of_squares.c shows a reduction that does better). */
    double error = fabs(total - expected) / expected;
    double bound = COUNT * 0x1p-24;
    int ok = error <= bound;
    printf("relative error %.3g (bound %.3g)\n", error, bound);

    EXAMPLE_CHECK(kiln_buffer_release(x_gpu));
    EXAMPLE_CHECK(kiln_buffer_release(total_gpu));
    EXAMPLE_CHECK(kiln_kernel_release(kernel));
    EXAMPLE_CHECK(kiln_program_release(mod));
    EXAMPLE_CHECK(kiln_context_release(context));
    free(x);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
