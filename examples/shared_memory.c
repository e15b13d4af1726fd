/*
 * shared_memory: doublify again, staged through local memory (CUDA's
 * __shared__): each block loads its tile, waits at a barrier, then each
 * thread doubles an element that ANOTHER thread loaded.  Shows a fixed-size
 * __local array and a __local kernel argument sized at launch.
 */
#include "example.h"

/* The largest block side the fixed-size kernel allows: its local array
 * holds MAX_BLOCK * MAX_BLOCK floats.  Passed to the compiler as -D so that
 * host and kernel agree. */
#define MAX_BLOCK 16

/* Local memory is shared by the threads of one block and fast; a block
 * cannot see another's.  The barrier makes every thread of the block wait
 * until all have stored their element: without it, a thread could read its
 * neighbour's slot before the neighbour wrote it.  To make that visible,
 * thread x of a row writes the element that thread (side - 1 - x) loaded.
 *
 * There is no bounds check: every thread of a block must reach the barrier,
 * so the host launches only whole tiles (the width is a multiple of the
 * block side).
 *
 * The helper takes a `__local float *` like any other pointer; the two
 * kernels differ only in where their local memory comes from. */
static const char shared_memory_source[] =
    "void doublify_tile(__global float *a, int width, __local float *tile)\n"
    "{\n"
    "    int side = get_local_size(0);\n"
    "    int x = get_local_id(0), y = get_local_id(1);\n"
    "    /* This block's part of the thread's row of the matrix. */\n"
    "    __global float *row = a + get_global_id(1) * width\n"
    "                          + get_group_id(0) * side;\n"
    "\n"
    "    tile[y * side + x] = row[x];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "\n"
    "    int mirror = side - 1 - x;\n"
    "    row[mirror] = 2.0f * tile[y * side + mirror];\n"
    "}\n"
    "\n"
    "/* A fixed-size local array (CUDA: __shared__ float tile[...]). */\n"
    "__kernel void doublify_static(__global float *a, int width)\n"
    "{\n"
    "    __local float tile[MAX_BLOCK * MAX_BLOCK];\n"
    "    doublify_tile(a, width, tile);\n"
    "}\n"
    "\n"
    "/* Local memory sized by the launch (CUDA: extern __shared__ and the\n"
    " * launch's shared-memory bytes). */\n"
    "__kernel void doublify_dynamic(__global float *a, int width,\n"
    "                               __local float *tile)\n"
    "{\n"
    "    doublify_tile(a, width, tile);\n"
    "}\n";

/* Doubles a random width x width matrix with blocks of side x side threads
 * through `kernel` (dynamic: pass its local memory as an argument), checks
 * it against the CPU, and returns the number of wrong elements. */
static size_t run_case(kiln_context *context, kiln_kernel *kernel,
                       int dynamic, int width, int side, example_rng *rng)
{
    const size_t count = (size_t)width * (size_t)width;
    const size_t bytes = count * sizeof(float);
    float *a = malloc(bytes), *doubled = malloc(bytes);
    float *expected = malloc(bytes);
    if (a == NULL || doubled == NULL || expected == NULL) {
        fprintf(stderr, "out of host memory\n");
        exit(EXIT_FAILURE);
    }
    example_random_floats(rng, a, count, -1.0f, 1.0f);

    kiln_buffer *a_gpu = NULL;
    EXAMPLE_CHECK(kiln_buffer_create_from(context, a, bytes, &a_gpu));

    const kiln_launch_config config = {
        .grid = KILN_DIM2((size_t)(width / side), (size_t)(width / side)),
        .block = KILN_DIM2((size_t)side, (size_t)side),
    };
    /* KILN_ARG_LOCAL gives the __local parameter its size in bytes: one
     * float per thread of the block. */
    const kiln_arg args[] = {
        KILN_ARG_BUFFER(a_gpu),
        KILN_ARG_INT(width),
        KILN_ARG_LOCAL((size_t)side * (size_t)side * sizeof(float)),
    };
    EXAMPLE_CHECK(kiln_launch(kernel, &config, dynamic ? 3 : 2, args));
    EXAMPLE_CHECK(kiln_buffer_read(a_gpu, 0, doubled, bytes));

    const char *name = NULL;
    EXAMPLE_CHECK(kiln_kernel_get_name(kernel, &name));
    printf("%s: %dx%d matrix, %zux%zu blocks of %dx%d threads, "
           "%zu bytes of local memory per block\n",
           name, width, width, config.grid.x, config.grid.y, side, side,
           (size_t)side * (size_t)side * sizeof(float));
    if (width == 4)
        for (int row = 0; row < 4; ++row)
            printf("  %10.6f %10.6f %10.6f %10.6f  ->  %10.6f %10.6f %10.6f "
                   "%10.6f\n",
                   (double)a[row * 4], (double)a[row * 4 + 1],
                   (double)a[row * 4 + 2], (double)a[row * 4 + 3],
                   (double)doubled[row * 4], (double)doubled[row * 4 + 1],
                   (double)doubled[row * 4 + 2], (double)doubled[row * 4 + 3]);

    for (size_t i = 0; i < count; ++i)
        expected[i] = 2.0f * a[i];
    size_t wrong = example_compare(name, doubled, expected, count, 0.0);

    EXAMPLE_CHECK(kiln_buffer_release(a_gpu));
    free(a);
    free(doubled);
    free(expected);
    return wrong;
}

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    /* Build options: MAX_BLOCK reaches the kernel source as a macro. */
    char options[64];
    snprintf(options, sizeof options, "-DMAX_BLOCK=%d", MAX_BLOCK);
    kiln_program *program = NULL;
    kiln_kernel *doublify_static = NULL, *doublify_dynamic = NULL;
    EXAMPLE_CHECK(
        kiln_program_build(context, shared_memory_source, options, &program));
    EXAMPLE_CHECK(kiln_kernel_create(program, "doublify_static",
                                     &doublify_static));
    EXAMPLE_CHECK(kiln_kernel_create(program, "doublify_dynamic",
                                     &doublify_dynamic));

    /* PyCUDA's 4x4 matrix in one block, then a 64x64 matrix in 4x4 blocks
     * of 16x16 threads; each with both kernels.  The sides stay within
     * MAX_BLOCK and divide the widths (see the kernel). */
    static const struct {
        int width, side;
    } cases[] = {{4, 4}, {64, MAX_BLOCK}};
    size_t wrong = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        wrong += run_case(context, doublify_static, 0, cases[i].width,
                          cases[i].side, &rng);
        wrong += run_case(context, doublify_dynamic, 1, cases[i].width,
                          cases[i].side, &rng);
    }

    EXAMPLE_CHECK(kiln_kernel_release(doublify_static));
    EXAMPLE_CHECK(kiln_kernel_release(doublify_dynamic));
    EXAMPLE_CHECK(kiln_program_release(program));
    EXAMPLE_CHECK(kiln_context_release(context));
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
