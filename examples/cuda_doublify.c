/*
 * cuda_doublify: PyCUDA's first tutorial with its kernel in CUDA C, exactly
 * as the tutorial writes it.  Kiln runs it natively on the CUDA backend and
 * translated to OpenCL C on any OpenCL device (PoCL on a plain CPU too).
 */
#include "example.h"

/* The tutorial's SourceModule, word for word. */
static const char doublify_source[] =
    "__global__ void doublify(float *a)\n"
    "{\n"
    "  int idx = threadIdx.x + threadIdx.y*4;\n"
    "  a[idx] *= 2;\n"
    "}\n";

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    float a[4][4];
    example_random_floats(&rng, &a[0][0], 16, -1.0f, 1.0f);

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    /* a_gpu = cuda.mem_alloc(a.nbytes); cuda.memcpy_htod(a_gpu, a) */
    kiln_buffer *a_gpu = NULL;
    EXAMPLE_CHECK(kiln_buffer_create_from(context, a, sizeof a, &a_gpu));

    /* mod = SourceModule(...): the language says CUDA C. */
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *mod = NULL;
    kiln_kernel *func = NULL;
    EXAMPLE_CHECK(kiln_program_build_with(context, doublify_source, 0,
                                          &options, &mod));
    EXAMPLE_CHECK(kiln_kernel_create(mod, "doublify", &func));

    /* func(a_gpu, block=(4,4,1)) */
    const kiln_launch_config config = {.grid = KILN_DIM1(1),
                                       .block = KILN_DIM2(4, 4)};
    const kiln_arg args[] = {KILN_ARG_BUFFER(a_gpu)};
    EXAMPLE_CHECK(kiln_launch(func, &config, 1, args));

    /* a_doubled = numpy.empty_like(a); cuda.memcpy_dtoh(a_doubled, a_gpu) */
    float a_doubled[4][4];
    EXAMPLE_CHECK(kiln_buffer_read(a_gpu, 0, a_doubled, sizeof a_doubled));
    for (int row = 0; row < 4; ++row)
        printf("  %10.6f %10.6f %10.6f %10.6f  ->  %10.6f %10.6f %10.6f "
               "%10.6f\n",
               (double)a[row][0], (double)a[row][1], (double)a[row][2],
               (double)a[row][3], (double)a_doubled[row][0],
               (double)a_doubled[row][1], (double)a_doubled[row][2],
               (double)a_doubled[row][3]);

    float expected[4][4];
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col)
            expected[row][col] = 2.0f * a[row][col];
    size_t wrong = example_compare("doublify", &a_doubled[0][0],
                                   &expected[0][0], 16, 0.0);

    EXAMPLE_CHECK(kiln_kernel_release(func));
    EXAMPLE_CHECK(kiln_program_release(mod));
    EXAMPLE_CHECK(kiln_buffer_release(a_gpu));
    EXAMPLE_CHECK(kiln_context_release(context));
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
