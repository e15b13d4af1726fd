/*
 * mpi_sum_of_squares: the sum of x*x over a global array split across MPI
 * ranks, one rank per device.  Each rank makes its own slice of the input
 * (element i is the same number whichever rank makes it), sums the squares
 * of its slice on its device, and MPI_Allreduce adds the ranks' sums.
 * Rank 0 then checks the total against a single-process CPU sum of the
 * whole array.
 *
 *   mpirun -np 2 examples/mpi_sum_of_squares [SEED [MILLIONS_OF_FLOATS]]
 *   srun --ntasks-per-node=4 --gpus-per-task=1 examples/mpi_sum_of_squares
 */
#include "mpi_example.h"

#define GROUP_SIZE 256
#define MAX_GROUPS 1024

static const char reduce_source[] =
    "__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))\n"
    "void sum_of_squares(__global const float *x, int n,\n"
    "                    __global float *partials)\n"
    "{\n"
    "    __local float sums[GROUP_SIZE];\n"
    "    int lid = get_local_id(0);\n"
    "    float sum = 0.0f;\n"
    "    for (int i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "        sum += x[i] * x[i];\n"
    "    sums[lid] = sum;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int active = GROUP_SIZE / 2; active > 0; active /= 2) {\n"
    "        if (lid < active)\n"
    "            sums[lid] += sums[lid + active];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (lid == 0)\n"
    "        partials[get_group_id(0)] = sums[0];\n"
    "}\n";

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    /* Every rank must use rank 0's seed (their clocks may differ). */
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    uint64_t millions = argc > 2 ? strtoull(argv[2], NULL, 10) : 16;
    if (millions == 0 || millions > 2000) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [SEED [MILLIONS_OF_FLOATS (1..2000)]]\n",
                    argv[0]);
        MPI_Finalize();
        return EXIT_FAILURE;
    }
    const uint64_t n = millions << 20;

    int local_rank = 0;
    kiln_context *context = mpi_example_context(&local_rank);
    kiln_device_info device;
    const char *backend = NULL;
    MPI_EXAMPLE_CHECK(kiln_context_get_device_info(context, &device));
    MPI_EXAMPLE_CHECK(kiln_context_get_backend(context, &backend));
    uint64_t first = 0, count = 0;
    mpi_example_share(n, rank, size, &first, &count);
    if (rank == 0)
        printf("seed %" PRIu64 "; %" PRIu64 " M floats over %d rank%s\n", seed,
               millions, size, size == 1 ? "" : "s");
    /* One line per rank, in rank order. */
    for (int r = 0; r < size; ++r) {
        if (r == rank)
            printf("rank %d (node rank %d): backend %s, device %d: %s; "
                   "elements [%" PRIu64 ", %" PRIu64 ")\n",
                   rank, local_rank, backend, device.index, device.name, first,
                   first + count);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    float *x = malloc((count ? count : 1) * sizeof(float));
    if (x == NULL) {
        fprintf(stderr, "rank %d: out of host memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
    for (uint64_t i = 0; i < count; ++i)
        x[i] = mpi_example_element(seed, first + i, -1.0f, 1.0f);

    char options[64];
    snprintf(options, sizeof options, "-DGROUP_SIZE=%d", GROUP_SIZE);
    kiln_program *program = NULL;
    kiln_kernel *kernel = NULL;
    MPI_EXAMPLE_CHECK(
        kiln_program_build(context, reduce_source, options, &program));
    MPI_EXAMPLE_CHECK(kiln_kernel_create(program, "sum_of_squares", &kernel));
    kiln_buffer *x_gpu = NULL, *partials_gpu = NULL;
    MPI_EXAMPLE_CHECK(kiln_buffer_create(
        context, (count ? count : 1) * sizeof(float), &x_gpu));
    MPI_EXAMPLE_CHECK(
        kiln_buffer_create(context, MAX_GROUPS * sizeof(float), &partials_gpu));
    float partials[MAX_GROUPS];
    size_t groups = (size_t)((count + GROUP_SIZE - 1) / GROUP_SIZE);
    if (groups > MAX_GROUPS)
        groups = MAX_GROUPS;

    /* Twice: the first run pays for first launches; the second is timed. */
    double total = 0, seconds = 0;
    for (int run = 0; run < 2; ++run) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        double mine = 0;
        if (count > 0) {
            MPI_EXAMPLE_CHECK(
                kiln_buffer_write(x_gpu, 0, x, count * sizeof(float)));
            kiln_launch_config config = {.grid = KILN_DIM1(groups),
                                         .block = KILN_DIM1(GROUP_SIZE)};
            kiln_arg args[] = {KILN_ARG_BUFFER(x_gpu),
                               KILN_ARG_INT((int)count),
                               KILN_ARG_BUFFER(partials_gpu)};
            MPI_EXAMPLE_CHECK(kiln_launch(kernel, &config, 3, args));
            /* A blocking read: the partial sums are on the host, and the
             * device is done, before MPI sees anything. */
            MPI_EXAMPLE_CHECK(kiln_buffer_read(partials_gpu, 0, partials,
                                               groups * sizeof(float)));
            for (size_t g = 0; g < groups; ++g)
                mine += partials[g];
        }
        MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        seconds = MPI_Wtime() - start;
    }

    int wrong = 0;
    if (rank == 0) {
        /* The single-process reference: the whole array on the CPU. */
        double cpu_start = MPI_Wtime();
        double expected = 0;
        for (uint64_t i = 0; i < n; ++i) {
            double value = mpi_example_element(seed, i, -1.0f, 1.0f);
            expected += value * value;
        }
        double cpu_seconds = MPI_Wtime() - cpu_start;
        double error = fabs(total - expected) / expected;
        wrong = !(error <= 1e-5);
        printf("sum over %d rank%s: %.6f in %.3f ms (upload, reduce, "
               "MPI_Allreduce)\n",
               size, size == 1 ? "" : "s", total, seconds * 1e3);
        printf("CPU, one process: %.6f in %.3f ms (making the inputs "
               "included); relative error %.1e: %s\n",
               expected, cpu_seconds * 1e3, error, wrong ? "WRONG" : "ok");
    }
    MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);

    MPI_EXAMPLE_CHECK(kiln_buffer_release(x_gpu));
    MPI_EXAMPLE_CHECK(kiln_buffer_release(partials_gpu));
    MPI_EXAMPLE_CHECK(kiln_kernel_release(kernel));
    MPI_EXAMPLE_CHECK(kiln_program_release(program));
    MPI_EXAMPLE_CHECK(kiln_context_release(context));
    free(x);
    MPI_Finalize();
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
