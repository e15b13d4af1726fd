/*
 * cuda_shared_memory: doublify staged through shared memory, in CUDA C.
 * Each block loads its tile into __shared__ memory, waits at
 * __syncthreads(), then each thread doubles the element its mirror image
 * loaded; a second kernel takes its tile from dynamic shared memory
 * (extern __shared__), sized at launch like CUDA's third <<<>>> argument.
 */
#include "example.h"

#define SIDE 16
#define WIDTH 64

static const char shared_source[] =
    "#define SIDE 16\n"
    "\n"
    "__global__ void doublify_static(float *a, int width)\n"
    "{\n"
    "  __shared__ float tile[SIDE][SIDE];\n"
    "  int x = threadIdx.x, y = threadIdx.y;\n"
    "  float *row = a + (blockIdx.y * SIDE + y) * width + blockIdx.x * SIDE;\n"
    "  tile[y][x] = row[x];\n"
    "  __syncthreads();\n"
    "  row[SIDE - 1 - x] = 2 * tile[y][SIDE - 1 - x];\n"
    "}\n"
    "\n"
    "__global__ void doublify_dynamic(float *a, int width)\n"
    "{\n"
    "  extern __shared__ float tile[];\n"
    "  int x = threadIdx.x, y = threadIdx.y, side = blockDim.x;\n"
    "  float *row = a + (blockIdx.y * side + y) * width + blockIdx.x * side;\n"
    "  tile[y * side + x] = row[x];\n"
    "  __syncthreads();\n"
    "  row[side - 1 - x] = 2 * tile[y * side + side - 1 - x];\n"
    "}\n";

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    static float a[WIDTH * WIDTH], result[WIDTH * WIDTH],
        expected[WIDTH * WIDTH];
    example_random_floats(&rng, a, WIDTH * WIDTH, -1.0f, 1.0f);
    for (size_t i = 0; i < WIDTH * WIDTH; ++i)
        expected[i] = 2.0f * a[i];

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *mod = NULL;
    EXAMPLE_CHECK(kiln_program_build_with(context, shared_source, 0, &options,
                                          &mod));
    const char *names[] = {"doublify_static", "doublify_dynamic"};
    size_t wrong = 0;
    for (int k = 0; k < 2; ++k) {
        kiln_kernel *kernel = NULL;
        EXAMPLE_CHECK(kiln_kernel_create(mod, names[k], &kernel));
        kiln_buffer *a_gpu = NULL;
        EXAMPLE_CHECK(kiln_buffer_create_from(context, a, sizeof a, &a_gpu));
        /* <<<dim3(4, 4), dim3(16, 16), shared bytes>>>; the static kernel
         * declares its own shared memory and asks for none. */
        kiln_launch_config config = {
            .grid = KILN_DIM2(WIDTH / SIDE, WIDTH / SIDE),
            .block = KILN_DIM2(SIDE, SIDE),
            .local_memory = k == 1 ? SIDE * SIDE * sizeof(float) : 0};
        const kiln_arg args[] = {KILN_ARG_BUFFER(a_gpu), KILN_ARG_INT(WIDTH)};
        EXAMPLE_CHECK(kiln_launch(kernel, &config, 2, args));
        EXAMPLE_CHECK(kiln_buffer_read(a_gpu, 0, result, sizeof result));
        wrong += example_compare(names[k], result, expected,
                                 WIDTH * WIDTH, 0.0);
        EXAMPLE_CHECK(kiln_buffer_release(a_gpu));
        EXAMPLE_CHECK(kiln_kernel_release(kernel));
    }
    EXAMPLE_CHECK(kiln_program_release(mod));
    EXAMPLE_CHECK(kiln_context_release(context));
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
