/*
 * vector_add: c = a + b for a million floats, the "hello world" of GPU
 * computing.  Shows explicit device buffers, a 1-D grid rounded up to cover
 * the data with blocks of 256 threads, and the bounds check that makes the
 * rounding safe.
 */
#include "example.h"

#define COUNT 1000000
#define THREADS_PER_BLOCK 256

/* get_global_id(0) is CUDA's blockIdx.x * blockDim.x + threadIdx.x.  The
 * last block runs past the end of the data (1,000,000 is not a multiple of
 * 256), so threads check their index before touching memory. */
static const char vector_add_source[] =
    "__kernel void vector_add(__global const float *a,\n"
    "                         __global const float *b,\n"
    "                         __global float *c, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n";

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    const size_t bytes = COUNT * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    float *expected = malloc(bytes);
    if (a == NULL || b == NULL || c == NULL || expected == NULL) {
        fprintf(stderr, "out of host memory\n");
        return EXIT_FAILURE;
    }
    example_random_floats(&rng, a, COUNT, -1.0f, 1.0f);
    example_random_floats(&rng, b, COUNT, -1.0f, 1.0f);

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    /* Inputs are created from host data (PyCUDA's to_device); the output
     * needs only space, its contents are written by the kernel. */
    kiln_buffer *a_gpu = NULL, *b_gpu = NULL, *c_gpu = NULL;
    EXAMPLE_CHECK(kiln_buffer_create_from(context, a, bytes, &a_gpu));
    EXAMPLE_CHECK(kiln_buffer_create_from(context, b, bytes, &b_gpu));
    EXAMPLE_CHECK(kiln_buffer_create(context, bytes, &c_gpu));

    kiln_program *program = NULL;
    kiln_kernel *vector_add = NULL;
    EXAMPLE_CHECK(
        kiln_program_build(context, vector_add_source, NULL, &program));
    EXAMPLE_CHECK(kiln_kernel_create(program, "vector_add", &vector_add));

    /* Enough blocks to cover every element: 3907 blocks of 256 threads,
     * 192 threads more than elements. */
    const size_t blocks = (COUNT + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    float kernel_ms = 0;
    const kiln_launch_config config = {
        .grid = KILN_DIM1(blocks),
        .block = KILN_DIM1(THREADS_PER_BLOCK),
        .time_ms = &kernel_ms, /* device time; also waits for the kernel */
    };
    const kiln_arg args[] = {
        KILN_ARG_BUFFER(a_gpu),
        KILN_ARG_BUFFER(b_gpu),
        KILN_ARG_BUFFER(c_gpu),
        KILN_ARG_INT(COUNT),
    };
    EXAMPLE_CHECK(kiln_launch(vector_add, &config, 4, args));
    EXAMPLE_CHECK(kiln_buffer_read(c_gpu, 0, c, bytes));

    double cpu_start = example_now_ms();
    for (size_t i = 0; i < COUNT; ++i)
        expected[i] = a[i] + b[i];
    double cpu_ms = example_now_ms() - cpu_start;

    printf("added %d floats: %zu blocks of %d threads\n", COUNT, blocks,
           THREADS_PER_BLOCK);
    /* Three arrays of 4 MB cross the memory bus: this kernel measures
     * memory bandwidth, not arithmetic. */
    printf("kernel %.3f ms (%.1f GB/s), CPU %.3f ms\n", (double)kernel_ms,
           3.0 * (double)bytes / ((double)kernel_ms * 1e6), cpu_ms);
    /* One IEEE addition, correctly rounded everywhere: expect equality. */
    size_t wrong = example_compare("c", c, expected, COUNT, 0.0);

    EXAMPLE_CHECK(kiln_kernel_release(vector_add));
    EXAMPLE_CHECK(kiln_program_release(program));
    EXAMPLE_CHECK(kiln_buffer_release(a_gpu));
    EXAMPLE_CHECK(kiln_buffer_release(b_gpu));
    EXAMPLE_CHECK(kiln_buffer_release(c_gpu));
    EXAMPLE_CHECK(kiln_context_release(context));
    free(a);
    free(b);
    free(c);
    free(expected);
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
