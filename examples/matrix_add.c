/*
 * matrix_add: C = A + B for 1024x1024 matrices, each thread one element.
 * Shows a 2-D launch: a grid of 16x16-thread blocks laid over the matrix,
 * each thread finding its row and column from its 2-D global index.
 */
#include "example.h"

#define WIDTH 1024  /* columns */
#define HEIGHT 1024 /* rows */
#define BLOCK 16    /* threads per block along x and along y: 256 in all */

/* Row-major matrices: element (row, col) is at row * width + col.  x runs
 * along a row, so neighbouring threads read neighbouring addresses (the
 * loads coalesce).  The bounds check keeps the kernel correct for sizes
 * that are not multiples of the block. */
static const char matrix_add_source[] =
    "__kernel void matrix_add(__global const float *a,\n"
    "                         __global const float *b,\n"
    "                         __global float *c, int width, int height)\n"
    "{\n"
    "    int col = get_global_id(0);\n"
    "    int row = get_global_id(1);\n"
    "    if (col < width && row < height) {\n"
    "        int i = row * width + col;\n"
    "        c[i] = a[i] + b[i];\n"
    "    }\n"
    "}\n";

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    const size_t count = (size_t)WIDTH * HEIGHT;
    const size_t bytes = count * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    float *expected = malloc(bytes);
    if (a == NULL || b == NULL || c == NULL || expected == NULL) {
        fprintf(stderr, "out of host memory\n");
        return EXIT_FAILURE;
    }
    example_random_floats(&rng, a, count, -100.0f, 100.0f);
    example_random_floats(&rng, b, count, -100.0f, 100.0f);

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    kiln_buffer *a_gpu = NULL, *b_gpu = NULL, *c_gpu = NULL;
    EXAMPLE_CHECK(kiln_buffer_create_from(context, a, bytes, &a_gpu));
    EXAMPLE_CHECK(kiln_buffer_create_from(context, b, bytes, &b_gpu));
    EXAMPLE_CHECK(kiln_buffer_create(context, bytes, &c_gpu));

    kiln_program *program = NULL;
    kiln_kernel *matrix_add = NULL;
    EXAMPLE_CHECK(
        kiln_program_build(context, matrix_add_source, NULL, &program));
    EXAMPLE_CHECK(kiln_kernel_create(program, "matrix_add", &matrix_add));

    /* grid.x blocks across the columns, grid.y down the rows: 64x64 blocks
     * of 16x16 threads, one thread per element. */
    const kiln_dim3 grid = KILN_DIM2((WIDTH + BLOCK - 1) / BLOCK,
                                     (HEIGHT + BLOCK - 1) / BLOCK);
    float kernel_ms = 0;
    const kiln_launch_config config = {
        .grid = grid,
        .block = KILN_DIM2(BLOCK, BLOCK),
        .time_ms = &kernel_ms,
    };
    const kiln_arg args[] = {
        KILN_ARG_BUFFER(a_gpu), KILN_ARG_BUFFER(b_gpu), KILN_ARG_BUFFER(c_gpu),
        KILN_ARG_INT(WIDTH),    KILN_ARG_INT(HEIGHT),
    };
    EXAMPLE_CHECK(kiln_launch(matrix_add, &config, 5, args));
    EXAMPLE_CHECK(kiln_buffer_read(c_gpu, 0, c, bytes));

    double cpu_start = example_now_ms();
    for (size_t row = 0; row < HEIGHT; ++row)
        for (size_t col = 0; col < WIDTH; ++col)
            expected[row * WIDTH + col] =
                a[row * WIDTH + col] + b[row * WIDTH + col];
    double cpu_ms = example_now_ms() - cpu_start;

    printf("added two %dx%d matrices: grid %zux%zu blocks of %dx%d threads\n",
           WIDTH, HEIGHT, grid.x, grid.y, BLOCK, BLOCK);
    printf("kernel %.3f ms (%.1f GB/s), CPU %.3f ms\n", (double)kernel_ms,
           3.0 * (double)bytes / ((double)kernel_ms * 1e6), cpu_ms);
    printf("C[0][0] = %.4f + %.4f = %.4f\n", (double)a[0], (double)b[0],
           (double)c[0]);
    size_t wrong = example_compare("C", c, expected, count, 0.0);

    EXAMPLE_CHECK(kiln_kernel_release(matrix_add));
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
