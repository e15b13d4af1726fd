/*
 * sum_of_squares: the sum of x*x over a 4000x4000 matrix (16 million
 * floats), first the naive way (every thread adds its square into one
 * global total with an atomic), then the way that scales (each work-group
 * adds up its part in local memory; the host adds the few partial sums),
 * then the way CuPy and PyCUDA users write it: a reduction generator
 * (kiln_array.h) given the map x[i] * x[i] and the reduction a + b, which
 * makes a kernel like the second, fused (the partial sums added by a
 * second launch).
 * Inputs: all ones (the answer must be exactly 16,000,000), then random.
 */
#include "example.h"

#include "kiln_array.h"

#define ROWS 4000
#define COLS 4000
#define GROUP_SIZE 256   /* threads per work-group (block) */
#define MAX_GROUPS 1024  /* work-groups of the reduction (see below) */

/*
 * The naive kernel needs an atomic add, and OpenCL 1.2 has none for float.
 * The two usual ways around that:
 *  - a compare-and-swap loop on the float's bits (atomic_cmpxchg on
 *    as_uint(sum)): when millions of threads hit one address most swaps
 *    fail and are retried, which is very slow on a GPU; and the float total
 *    loses precision as it grows (at 5 million, a float's step is 0.5) and
 *    changes with the order the threads happen to run in;
 *  - fixed point: scale each square by 2^32 to an integer and add it with
 *    one 64-bit integer atom_add.  No retries; integer addition is exact,
 *    so the total does not depend on the order.  The price is a range fixed
 *    in advance: the 64-bit total has 32 bits after the binary point, so
 *    each square loses less than 2^-32 and the total must stay below 2^32
 *    (here every x*x <= 1 and n = 16e6).
 * This example takes fixed point.  64-bit atomics are the extension
 * cl_khr_int64_base_atomics in OpenCL 1.2 (CUDA GPUs and PoCL have it).
 *
 * The reduction: each thread first adds up many elements on its own
 * (a grid-stride loop: consecutive threads read consecutive floats, so the
 * loads coalesce), then the work-group adds its GROUP_SIZE sums in local
 * memory as a tree: half the threads add the other half's values, then a
 * quarter, ... one barrier per level, log2(GROUP_SIZE) levels.
 * reqd_work_group_size tells the compiler (and Kiln's launch check) the
 * block size the local array was sized for.
 */
static const char sum_of_squares_source[] =
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "\n"
    "#define FIXED_POINT_ONE 4294967296.0f /* 2^32 */\n"
    "\n"
    "__kernel void sum_of_squares_atomic(__global const float *x, int n,\n"
    "                                    volatile __global ulong *total)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        atom_add(total, (ulong)(x[i] * x[i] * FIXED_POINT_ONE));\n"
    "}\n"
    "\n"
    "__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))\n"
    "void sum_of_squares_reduce(__global const float *x, int n,\n"
    "                           __global float *partials)\n"
    "{\n"
    "    __local float sums[GROUP_SIZE];\n"
    "    int lid = get_local_id(0);\n"
    "\n"
    "    float sum = 0.0f;\n"
    "    for (int i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "        sum += x[i] * x[i];\n"
    "    sums[lid] = sum;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "\n"
    "    for (int active = GROUP_SIZE / 2; active > 0; active /= 2) {\n"
    "        if (lid < active)\n"
    "            sums[lid] += sums[lid + active];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (lid == 0)\n"
    "        partials[get_group_id(0)] = sums[0];\n"
    "}\n";

/* What one round needs: the kernels, the data on the device and on the
 * host, and the buffers the kernels write. */
typedef struct sum_job {
    kiln_kernel *atomic, *reduce;
    kiln_reduction *generated; /* PyCUDA's ReductionKernel, in C */
    kiln_buffer *x_gpu, *total_gpu, *partials_gpu;
    const float *x;
    int n;
    size_t groups;
    float *partials; /* groups floats */
} sum_job;

/* Prints one result with its time and its error relative to the CPU's;
 * returns whether it is within `tolerance`. */
static int check_sum(const char *what, double sum, double milliseconds,
                     double expected, double tolerance)
{
    double error = fabs(sum - expected) / fabs(expected);
    int ok = error <= tolerance;
    printf("  %-22s %17.6f %10.3f ms   relative error %.1e%s\n", what, sum,
           milliseconds, error, ok ? "" : "  WRONG");
    return ok;
}

/* Sums the squares of job->x three ways and compares the two kernels with
 * the CPU.  `exact`: the inputs make the float sums exact, so demand
 * exactly `exact`.  Returns the number of wrong results. */
static int run_round(const char *title, const sum_job *job, double exact)
{
    printf("%s:\n", title);

    /* The CPU's answer, in double: 16 million floats of magnitude ~1 would
     * lose digits in a float total. */
    double cpu_start = example_now_ms();
    double expected = 0;
    for (int i = 0; i < job->n; ++i)
        expected += (double)job->x[i] * (double)job->x[i];
    double cpu_ms = example_now_ms() - cpu_start;

    /* Naive: one thread per element, one atomic each.  The total starts at
     * zero on the device. */
    const uint64_t zero = 0;
    EXAMPLE_CHECK(kiln_buffer_fill(job->total_gpu, 0, sizeof zero, &zero,
                                   sizeof zero));
    float atomic_ms = 0;
    const kiln_launch_config atomic_config = {
        .grid = KILN_DIM1(((size_t)job->n + GROUP_SIZE - 1) / GROUP_SIZE),
        .block = KILN_DIM1(GROUP_SIZE),
        .time_ms = &atomic_ms,
    };
    const kiln_arg atomic_args[] = {KILN_ARG_BUFFER(job->x_gpu),
                                    KILN_ARG_INT(job->n),
                                    KILN_ARG_BUFFER(job->total_gpu)};
    EXAMPLE_CHECK(kiln_launch(job->atomic, &atomic_config, 3, atomic_args));
    uint64_t fixed_point_total = 0;
    EXAMPLE_CHECK(kiln_buffer_read(job->total_gpu, 0, &fixed_point_total,
                                   sizeof fixed_point_total));
    double atomic_sum = (double)fixed_point_total / 4294967296.0; /* 2^32 */

    /* Reduction: `groups` partial sums, added on the host in double. */
    float reduce_ms = 0;
    const kiln_launch_config reduce_config = {
        .grid = KILN_DIM1(job->groups),
        .block = KILN_DIM1(GROUP_SIZE),
        .time_ms = &reduce_ms,
    };
    const kiln_arg reduce_args[] = {KILN_ARG_BUFFER(job->x_gpu),
                                    KILN_ARG_INT(job->n),
                                    KILN_ARG_BUFFER(job->partials_gpu)};
    EXAMPLE_CHECK(kiln_launch(job->reduce, &reduce_config, 3, reduce_args));
    EXAMPLE_CHECK(kiln_buffer_read(job->partials_gpu, 0, job->partials,
                                   job->groups * sizeof(float)));
    double reduce_sum = 0;
    for (size_t g = 0; g < job->groups; ++g)
        reduce_sum += job->partials[g];

    /* The generator: four lines instead of a kernel (see main). */
    const kiln_arg generated_args[] = {KILN_ARG_BUFFER(job->x_gpu)};
    float generated_total = 0;
    double generated_start = example_now_ms();
    EXAMPLE_CHECK(kiln_reduction_run_to_host(
        job->generated, (size_t)job->n, 1, generated_args, &generated_total,
        sizeof generated_total, NULL));
    double generated_ms = example_now_ms() - generated_start;

    /* Exact inputs demand exact answers; otherwise the float sums may
     * differ from the double one in the last digits. */
    int wrong = 0;
    printf("  %-22s %17.6f %10.3f ms\n", "CPU, in double", expected, cpu_ms);
    if (exact > 0 && expected != exact) {
        printf("  the CPU's sum is not %.1f: WRONG\n", exact);
        ++wrong;
    }
    double tolerance = exact > 0 ? 0.0 : 1e-5;
    wrong += !check_sum("atomic, fixed point", atomic_sum, atomic_ms, expected,
                        tolerance);
    wrong += !check_sum("work-group reduction", reduce_sum, reduce_ms,
                        expected, tolerance);
    wrong += !check_sum("reduction generator", generated_total, generated_ms,
                        expected, tolerance);
    /* The reduction reads the data once, at the memory's bandwidth; the
     * atomics queue up at a single address. */
    printf("  the reduction read %.1f GB/s\n",
           (double)job->n * sizeof(float) / ((double)reduce_ms * 1e6));
    return wrong;
}

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    const int n = ROWS * COLS;
    float *x = malloc((size_t)n * sizeof(float));
    if (x == NULL) {
        fprintf(stderr, "out of host memory\n");
        return EXIT_FAILURE;
    }

    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    char options[64];
    snprintf(options, sizeof options, "-DGROUP_SIZE=%d", GROUP_SIZE);
    kiln_program *program = NULL;
    sum_job job = {.x = x, .n = n};
    EXAMPLE_CHECK(
        kiln_program_build(context, sum_of_squares_source, options, &program));
    EXAMPLE_CHECK(
        kiln_kernel_create(program, "sum_of_squares_atomic", &job.atomic));
    EXAMPLE_CHECK(
        kiln_kernel_create(program, "sum_of_squares_reduce", &job.reduce));
    /* PyCUDA: ReductionKernel(np.float32, neutral="0", reduce_expr="a+b",
     *                         map_expr="x[i]*x[i]", arguments="float *x") */
    EXAMPLE_CHECK(kiln_reduction_create(context, "float", "0", "a + b",
                                        "x[i] * x[i]", "global const float *x",
                                        "sum_of_squares_generated", NULL,
                                        &job.generated));

    /* Enough work-groups to fill a large GPU (an H100 runs 132 SMs x 8
     * groups of 256 at once); fewer would leave it idle, more would only
     * add partial sums. */
    job.groups = ((size_t)n + GROUP_SIZE - 1) / GROUP_SIZE;
    if (job.groups > MAX_GROUPS)
        job.groups = MAX_GROUPS;
    job.partials = malloc(job.groups * sizeof(float));
    if (job.partials == NULL) {
        fprintf(stderr, "out of host memory\n");
        return EXIT_FAILURE;
    }
    const size_t bytes = (size_t)n * sizeof(float);
    EXAMPLE_CHECK(kiln_buffer_create(context, bytes, &job.x_gpu));
    EXAMPLE_CHECK(
        kiln_buffer_create(context, sizeof(uint64_t), &job.total_gpu));
    EXAMPLE_CHECK(kiln_buffer_create(context, job.groups * sizeof(float),
                                     &job.partials_gpu));
    printf("%d x %d = %d floats; atomic: %d groups of %d; reduction: %zu "
           "groups of %d\n",
           ROWS, COLS, n, (n + GROUP_SIZE - 1) / GROUP_SIZE, GROUP_SIZE,
           job.groups, GROUP_SIZE);

    /* All ones: every partial sum is a whole number below 2^24, so even
     * float arithmetic is exact, and so must the answer be.  This round's
     * times include each kernel's first-launch costs (PoCL, for one, fits
     * a kernel to its work-group size then); the next round's do not. */
    const float one = 1.0f;
    for (int i = 0; i < n; ++i)
        x[i] = one;
    EXAMPLE_CHECK(kiln_buffer_fill(job.x_gpu, 0, bytes, &one, sizeof one));
    int wrong = run_round("all ones", &job, (double)n);

    /* Random values in (-1, 1), so every square is below 1. */
    example_random_floats(&rng, x, (size_t)n, -1.0f, 1.0f);
    EXAMPLE_CHECK(kiln_buffer_write(job.x_gpu, 0, x, bytes));
    wrong += run_round("random in (-1, 1)", &job, 0);

    EXAMPLE_CHECK(kiln_kernel_release(job.atomic));
    EXAMPLE_CHECK(kiln_kernel_release(job.reduce));
    EXAMPLE_CHECK(kiln_reduction_release(job.generated));
    EXAMPLE_CHECK(kiln_program_release(program));
    EXAMPLE_CHECK(kiln_buffer_release(job.x_gpu));
    EXAMPLE_CHECK(kiln_buffer_release(job.total_gpu));
    EXAMPLE_CHECK(kiln_buffer_release(job.partials_gpu));
    EXAMPLE_CHECK(kiln_context_release(context));
    free(job.partials);
    free(x);
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
