/*
 * doublify: PyCUDA's first tutorial, in C.  A 4x4 matrix of random floats is
 * copied to the device, doubled in place by one block of 4x4 threads (each
 * thread finds its element from its 2-D index), and copied back.
 */
#include "example.h"

/* OpenCL C runs on every backend.  get_local_id(0/1) is CUDA's
 * threadIdx.x/.y; `__global` marks memory in a device buffer. */
static const char doublify_source[] =
    "__kernel void doublify(__global float *a)\n"
    "{\n"
    "    int idx = get_local_id(0);\n"
    "    int idy = get_local_id(1);\n"
    "    a[idx + idy * 4] *= 2.0f;\n"
    "}\n";

/* Prints a row-major 4x4 matrix. */
static void print_matrix(const char *title, const float *m)
{
    printf("%s\n", title);
    for (int row = 0; row < 4; ++row)
        printf("  %10.6f %10.6f %10.6f %10.6f\n", (double)m[row * 4],
               (double)m[row * 4 + 1], (double)m[row * 4 + 2],
               (double)m[row * 4 + 3]);
}

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    float a[4][4];
    example_random_floats(&rng, &a[0][0], 16, -1.0f, 1.0f);

    /* NULL, -1: the backend and device named by KILN_BACKEND and
     * KILN_DEVICE, else CUDA when it has a device, else OpenCL. */
    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    /* PyCUDA's mem_alloc + memcpy_htod in one call. */
    kiln_buffer *a_gpu = NULL;
    EXAMPLE_CHECK(kiln_buffer_create_from(context, a, sizeof a, &a_gpu));

    /* PyCUDA's SourceModule + get_function.  The compiled program is cached
     * on disk, so the next run skips the compiler. */
    kiln_program *module = NULL;
    kiln_kernel *doublify = NULL;
    EXAMPLE_CHECK(kiln_program_build(context, doublify_source, NULL, &module));
    EXAMPLE_CHECK(kiln_kernel_create(module, "doublify", &doublify));

    /* doublify(a_gpu, block=(4,4,1)): one block of 4x4 threads. */
    const kiln_launch_config config = {.grid = KILN_DIM2(1, 1),
                                       .block = KILN_DIM2(4, 4)};
    const kiln_arg args[] = {KILN_ARG_BUFFER(a_gpu)};
    EXAMPLE_CHECK(kiln_launch(doublify, &config, 1, args));

    /* memcpy_dtoh: the read waits for the launch queued before it. */
    float a_doubled[4][4];
    EXAMPLE_CHECK(kiln_buffer_read(a_gpu, 0, a_doubled, sizeof a_doubled));

    print_matrix("original:", &a[0][0]);
    print_matrix("doubled on the device:", &a_doubled[0][0]);

    /* Doubling is exact in binary floating point: expect equality. */
    float expected[4][4];
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col)
            expected[row][col] = 2.0f * a[row][col];
    size_t wrong = example_compare("doublify", &a_doubled[0][0],
                                   &expected[0][0], 16, 0.0);

    /* Release in any order: each object keeps what it needs alive. */
    EXAMPLE_CHECK(kiln_kernel_release(doublify));
    EXAMPLE_CHECK(kiln_program_release(module));
    EXAMPLE_CHECK(kiln_buffer_release(a_gpu));
    EXAMPLE_CHECK(kiln_context_release(context));
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
