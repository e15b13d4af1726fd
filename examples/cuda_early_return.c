/*
 * cuda_early_return: two kernels of a PyCUDA tutorial, exactly as it
 * writes them, where most threads return before __syncthreads():
 *
 *  - doublify through shared memory, launched with block=(32,32,1) for 16
 *    floats: 1008 of the 1024 threads return at `if(idx>=N) return;`;
 *  - the sum of squares of 4000 x 4000 floats with grid=(N//256+1,1,1):
 *    the last block's threads all return, the others square into shared
 *    memory, meet at the barrier and add into one total with a float
 *    atomicAdd.
 *
 * On CUDA a thread that has returned counts as arrived at the barrier.
 * OpenCL leaves a barrier that some work-items never reach undefined, so
 * Kiln's translation keeps CUDA's meaning (returned threads pass the
 * barriers doing nothing); run it with KILN_CHECK=bounds to see that no
 * thread writes outside the buffers.
 */
#include "example.h"

/* The tutorial's SourceModule texts, word for word (its comments say
 * "global memory id", "shared memory id", "write to shared memory",
 * "shared memory to global memory"). */
static const char doublify_source[] =
    "\n"
    "  const int N=16;\n"
    "  __global__ void doublify(float *a_in,float *a_out)\n"
    "  {\n"
    "    __shared__ float sdatas[N];\n"
    "    int idx = threadIdx.x + threadIdx.y*blockDim.x; // 对应全局内存id\n"
    "    int tid=threadIdx.x; // 对应共享内存id\n"
    "\tif(idx>=N) return;\n"
    "\t// 写入共享内存中\n"
    "\tsdatas[tid]=2*a_in[idx];\n"
    "\t__syncthreads();\n"
    "\t// 共享内存写入全局内存\n"
    "    // a_out[idx]=2*a_in[idx];\n"
    "    a_out[idx]=sdatas[tid];\n"
    "  }\n"
    "  ";

static const char sum_source[] =
    "\n"
    "      const int N=4000*4000;\n"
    "      __global__ void doublify(float *a_in,float *a_out)\n"
    "      {\n"
    "        __shared__ float sdatas[256];\n"
    "        int idx = threadIdx.x + blockIdx.x*blockDim.x; // 对应全局内存id\n"
    "        int tid=threadIdx.x; // 对应共享内存id\n"
    "        if(idx>=N) return;\n"
    "        // 写入共享内存\n"
    "        sdatas[tid]=a_in[idx]*a_in[idx];\n"
    "        __syncthreads();\n"
    "        // 共享内存写入全局内存\n"
    "        atomicAdd(&a_out[0],sdatas[tid]);\n"
    "        \n"
    "        // atomicAdd(&a_out[0],a_in[idx]*a_in[idx]); // 直接从全局内存中取数据\n"
    "      }\n"
    "      ";

#define SIDE 4000
#define COUNT (SIDE * SIDE)

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    size_t wrong = 0;

    /* func(a_in, a_out, grid=(1,1,1), block=(32,32,1)) on a 4 x 4 array */
    float a[16], a_doubled[16], expected[16];
    example_random_floats(&rng, a, 16, -1.0f, 1.0f);
    for (int i = 0; i < 16; ++i)
        expected[i] = 2 * a[i];
    kiln_program *mod = NULL;
    kiln_kernel *func = NULL;
    EXAMPLE_CHECK(kiln_program_build_with(context, doublify_source, 0, &options,
                                          &mod));
    EXAMPLE_CHECK(kiln_kernel_create(mod, "doublify", &func));
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM3(32, 32, 1)};
    EXAMPLE_CHECK(kiln_launch_prepared(func, &config, "<>", a, sizeof a,
                                       a_doubled, sizeof a_doubled));
    wrong += example_compare("doublify", a_doubled, expected, 16, 0.0);
    printf("doublify: 1024 threads, 16 doubled\n");
    EXAMPLE_CHECK(kiln_kernel_release(func));
    EXAMPLE_CHECK(kiln_program_release(mod));

    /* The sum of squares.  The tutorial squares ones; these are -1, 0 and
     * 1 at random, so every partial sum is a whole number below 2^24 and
     * the float total is exact whatever order the atomics land in. */
    float *x = malloc(COUNT * sizeof *x);
    if (x == NULL)
        return EXIT_FAILURE;
    double exact = 0;
    for (size_t i = 0; i < COUNT; ++i) {
        x[i] = (float)((int)(example_random_next(&rng) % 3) - 1);
        exact += x[i] * x[i];
    }
    kiln_buffer *a_in = NULL, *a_out = NULL;
    float zero = 0, total = 0, milliseconds = 0;
    EXAMPLE_CHECK(kiln_buffer_create_from(context, x, COUNT * sizeof *x, &a_in));
    EXAMPLE_CHECK(kiln_buffer_create_from(context, &zero, sizeof zero, &a_out));
    EXAMPLE_CHECK(kiln_program_build_with(context, sum_source, 0, &options,
                                          &mod));
    EXAMPLE_CHECK(kiln_kernel_create(mod, "doublify", &func));
    /* func(a_in, a_out, grid=(N//256+1,1,1), block=(256,1,1)) */
    config = (kiln_launch_config){.grid = KILN_DIM1(COUNT / 256 + 1),
                                  .block = KILN_DIM1(256),
                                  .time_ms = &milliseconds};
    const kiln_arg args[] = {KILN_ARG_BUFFER(a_in), KILN_ARG_BUFFER(a_out)};
    EXAMPLE_CHECK(kiln_launch(func, &config, 2, args));
    EXAMPLE_CHECK(kiln_buffer_read(a_out, 0, &total, sizeof total));
    printf("sum of %d squares: %.1f on the device (%.3f ms), %.1f on the CPU\n",
           COUNT, (double)total, (double)milliseconds, exact);
    if ((double)total != exact) {
        fprintf(stderr, "  the sums differ\n");
        ++wrong;
    }
    EXAMPLE_CHECK(kiln_kernel_release(func));
    EXAMPLE_CHECK(kiln_program_release(mod));
    EXAMPLE_CHECK(kiln_buffer_release(a_in));
    EXAMPLE_CHECK(kiln_buffer_release(a_out));
    EXAMPLE_CHECK(kiln_context_release(context));
    free(x);
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
