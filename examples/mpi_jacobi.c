/*
 * mpi_jacobi: a 2-D Jacobi stencil (each inner point becomes the mean of
 * its four neighbours) on a grid split across MPI ranks in blocks of rows,
 * one rank per device.  Every iteration each rank updates its rows on its
 * device, then trades its edge rows with the ranks above and below
 * (MPI_Sendrecv) into its halo rows: the rows of the neighbours it reads.
 *
 * How the halo rows travel:
 *  - CUDA backend and an MPI that says it is CUDA-aware
 *    (MPIX_Query_cuda_support): MPI is handed the device pointers
 *    (kiln_buffer_get_native) and moves the rows itself, GPU to GPU where it
 *    can;
 *  - otherwise: the rows are read into page-locked host memory
 *    (kiln_host_alloc), exchanged from there, and written back.
 * Either way kiln_context_synchronize (or a blocking read) comes first:
 * MPI must not touch a row a kernel is still writing.
 *
 * The result is gathered on rank 0 and checked against the same
 * iterations run by one process on the CPU.
 *
 *   mpirun -np 2 examples/mpi_jacobi [--staged] [SEED [NX NY ITERATIONS]]
 * --staged stages through host memory even where MPI is CUDA-aware.
 */
#include "mpi_example.h"

#define BLOCK_X 32
#define BLOCK_Y 8

/* Columns 0 and nx-1 are boundary: copied, never updated.  The sums are
 * written in one order, the CPU's, so both give the same floats. */
static const char jacobi_source[] =
    "__kernel void jacobi(__global const float *in, __global float *out,\n"
    "                     int nx, int rows)\n"
    "{\n"
    "    int x = get_global_id(0);\n"
    "    int y = get_global_id(1) + 1; /* row 0 is the upper halo */\n"
    "    if (x >= nx || y > rows)\n"
    "        return;\n"
    "    size_t i = (size_t)y * nx + x;\n"
    "    if (x == 0 || x == nx - 1) {\n"
    "        out[i] = in[i];\n"
    "        return;\n"
    "    }\n"
    "    out[i] = ((in[i - nx] + in[i + nx]) + (in[i - 1] + in[i + 1])) *\n"
    "             0.25f;\n"
    "}\n";

/* The starting grid: the top row 1, the bottom row 0, the left and right
 * columns and the inside random in (0, 1), the same in every rank. */
static float initial_value(uint64_t seed, uint64_t nx, uint64_t ny,
                           uint64_t row, uint64_t column)
{
    if (row == 0)
        return 1.0f;
    if (row == ny - 1)
        return 0.0f;
    return mpi_example_element(seed, row * nx + column, 0.0f, 1.0f);
}

/* The same iterations on the CPU, over the whole grid. */
static float *cpu_jacobi(uint64_t seed, int nx, int ny, int iterations)
{
    size_t cells = (size_t)nx * (size_t)ny;
    float *a = malloc(cells * sizeof(float));
    float *b = malloc(cells * sizeof(float));
    if (a == NULL || b == NULL) {
        fprintf(stderr, "out of host memory\n");
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x)
            a[(size_t)y * nx + x] = b[(size_t)y * nx + x] =
                initial_value(seed, (uint64_t)nx, (uint64_t)ny, (uint64_t)y,
                              (uint64_t)x);
    for (int k = 0; k < iterations; ++k) {
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                size_t i = (size_t)y * nx + x;
                b[i] = ((a[i - nx] + a[i + nx]) + (a[i - 1] + a[i + 1])) *
                       0.25f;
            }
        float *swap = a;
        a = b;
        b = swap;
    }
    free(b);
    return a;
}

/* What one rank holds: rows [first, first + rows) of the global grid's
 * inner rows, plus a halo row above and below, twice (in and out). */
typedef struct block {
    kiln_context *context;
    kiln_buffer *grid[2];
    int nx, rows;
    int above, below;        /* neighbour ranks, MPI_PROC_NULL at the edges */
    int cuda_aware;          /* hand MPI device pointers                    */
    float *staging;          /* 4 rows, page-locked: send up, send down,
                                receive from above, receive from below      */
} block;

/* Byte offset of local row `row` (0: the upper halo). */
static size_t row_offset(const block *b, int row)
{
    return (size_t)row * (size_t)b->nx * sizeof(float);
}

/* Trades edge rows with the neighbours, into the halo rows of `grid`. */
static void exchange_halos(block *b, kiln_buffer *grid)
{
    const int nx = b->nx;
    const size_t row_bytes = (size_t)nx * sizeof(float);
    /* MPI must not read rows the kernel is still writing. */
    MPI_EXAMPLE_CHECK(kiln_context_synchronize(b->context));
    if (b->cuda_aware) {
        /* CUdeviceptr: 8 bytes; Kiln checks the size. */
        unsigned long long base = 0;
        MPI_EXAMPLE_CHECK(kiln_buffer_get_native(grid, &base, sizeof base));
        char *device = (char *)(uintptr_t)base;
        MPI_Sendrecv(device + row_offset(b, 1), nx, MPI_FLOAT, b->above, 0,
                     device + row_offset(b, b->rows + 1), nx, MPI_FLOAT,
                     b->below, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(device + row_offset(b, b->rows), nx, MPI_FLOAT, b->below,
                     1, device + row_offset(b, 0), nx, MPI_FLOAT, b->above, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    float *send_up = b->staging, *send_down = b->staging + nx;
    float *from_above = b->staging + 2 * nx, *from_below = b->staging + 3 * nx;
    if (b->above != MPI_PROC_NULL)
        MPI_EXAMPLE_CHECK(
            kiln_buffer_read(grid, row_offset(b, 1), send_up, row_bytes));
    if (b->below != MPI_PROC_NULL)
        MPI_EXAMPLE_CHECK(kiln_buffer_read(grid, row_offset(b, b->rows),
                                           send_down, row_bytes));
    MPI_Sendrecv(send_up, nx, MPI_FLOAT, b->above, 0, from_below, nx,
                 MPI_FLOAT, b->below, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(send_down, nx, MPI_FLOAT, b->below, 1, from_above, nx,
                 MPI_FLOAT, b->above, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (b->above != MPI_PROC_NULL)
        MPI_EXAMPLE_CHECK(
            kiln_buffer_write(grid, row_offset(b, 0), from_above, row_bytes));
    if (b->below != MPI_PROC_NULL)
        MPI_EXAMPLE_CHECK(kiln_buffer_write(grid, row_offset(b, b->rows + 1),
                                            from_below, row_bytes));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int force_staging = argc > 1 && strcmp(argv[1], "--staged") == 0;
    if (force_staging) {
        --argc;
        ++argv;
    }
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int nx = argc > 2 ? atoi(argv[2]) : 512;
    int ny = argc > 3 ? atoi(argv[3]) : 512;
    int iterations = argc > 4 ? atoi(argv[4]) : 100;
    if (nx < 3 || ny - 2 < size || iterations < 1 || nx > 65536 ||
        ny > 65536) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [--staged] [SEED [NX NY ITERATIONS]]: NX >= 3, "
                    "NY - 2 >= the number of ranks, at most 65536 each\n",
                    argv[0]);
        MPI_Finalize();
        return EXIT_FAILURE;
    }

    block b = {.nx = nx};
    int local_rank = 0;
    b.context = mpi_example_context(&local_rank);
    const char *backend = NULL;
    kiln_device_info device;
    MPI_EXAMPLE_CHECK(kiln_context_get_backend(b.context, &backend));
    MPI_EXAMPLE_CHECK(kiln_context_get_device_info(b.context, &device));
    int mpi_cuda_aware = mpi_example_cuda_aware();
    b.cuda_aware =
        !force_staging && mpi_cuda_aware && strcmp(backend, "cuda") == 0;

    /* Rows 1 .. ny-2 are inner rows; this rank owns [first, first+rows). */
    uint64_t first64 = 0, rows64 = 0;
    mpi_example_share((uint64_t)ny - 2, rank, size, &first64, &rows64);
    int first = (int)first64 + 1;
    b.rows = (int)rows64;
    b.above = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    b.below = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    if (rank == 0)
        printf("seed %" PRIu64 "; %d x %d grid, %d iterations, %d rank%s; "
               "MPI %s CUDA-aware\n",
               seed, nx, ny, iterations, size, size == 1 ? "" : "s",
               mpi_cuda_aware ? "is" : "is not");
    for (int r = 0; r < size; ++r) {
        if (r == rank)
            printf("rank %d (node rank %d): backend %s, device %d: %s; rows "
                   "%d..%d; halos %s\n",
                   rank, local_rank, backend, device.index, device.name, first,
                   first + b.rows - 1,
                   b.cuda_aware ? "device to device through MPI"
                                : "staged through page-locked host memory");
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* The local grid with its halo rows, from the same starting values the
     * CPU uses. */
    size_t local_cells = (size_t)(b.rows + 2) * (size_t)nx;
    float *local = malloc(local_cells * sizeof(float));
    if (local == NULL) {
        fprintf(stderr, "rank %d: out of host memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
    for (int y = 0; y < b.rows + 2; ++y)
        for (int x = 0; x < nx; ++x)
            local[(size_t)y * nx + x] =
                initial_value(seed, (uint64_t)nx, (uint64_t)ny,
                              (uint64_t)(first - 1 + y), (uint64_t)x);
    for (int i = 0; i < 2; ++i)
        MPI_EXAMPLE_CHECK(kiln_buffer_create_from(
            b.context, local, local_cells * sizeof(float), &b.grid[i]));
    MPI_EXAMPLE_CHECK(kiln_host_alloc(b.context, 4 * (size_t)nx * sizeof(float),
                                      (void **)&b.staging));

    kiln_program *program = NULL;
    kiln_kernel *kernel = NULL;
    MPI_EXAMPLE_CHECK(kiln_program_build(b.context, jacobi_source, NULL, &program));
    MPI_EXAMPLE_CHECK(kiln_kernel_create(program, "jacobi", &kernel));
    kiln_launch_config config = {
        .grid = KILN_DIM2(((size_t)nx + BLOCK_X - 1) / BLOCK_X,
                          ((size_t)b.rows + BLOCK_Y - 1) / BLOCK_Y),
        .block = KILN_DIM2(BLOCK_X, BLOCK_Y),
    };

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    int current = 0;
    for (int k = 0; k < iterations; ++k) {
        kiln_arg args[] = {KILN_ARG_BUFFER(b.grid[current]),
                           KILN_ARG_BUFFER(b.grid[1 - current]),
                           KILN_ARG_INT(nx), KILN_ARG_INT(b.rows)};
        MPI_EXAMPLE_CHECK(kiln_launch(kernel, &config, 4, args));
        exchange_halos(&b, b.grid[1 - current]);
        current = 1 - current;
    }
    MPI_EXAMPLE_CHECK(kiln_context_synchronize(b.context));
    double seconds = MPI_Wtime() - start, slowest = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* Gather the inner rows on rank 0. */
    MPI_EXAMPLE_CHECK(kiln_buffer_read(b.grid[current], row_offset(&b, 1),
                                       local + nx,
                                       (size_t)b.rows * nx * sizeof(float)));
    int *counts = NULL, *displacements = NULL;
    float *inner = NULL;
    if (rank == 0) {
        counts = malloc((size_t)size * sizeof *counts);
        displacements = malloc((size_t)size * sizeof *displacements);
        inner = malloc((size_t)(ny - 2) * nx * sizeof(float));
        if (counts == NULL || displacements == NULL || inner == NULL) {
            fprintf(stderr, "out of host memory\n");
            MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
        }
        for (int r = 0; r < size; ++r) {
            uint64_t r_first = 0, r_rows = 0;
            mpi_example_share((uint64_t)ny - 2, r, size, &r_first, &r_rows);
            counts[r] = (int)r_rows * nx;
            displacements[r] = (int)r_first * nx;
        }
    }
    MPI_Gatherv(local + nx, b.rows * nx, MPI_FLOAT, inner, counts,
                displacements, MPI_FLOAT, 0, MPI_COMM_WORLD);

    int wrong = 0;
    if (rank == 0) {
        printf("%d iterations in %.3f ms: %.3f ms per iteration (the slowest "
               "rank; kernel and halo exchange)\n",
               iterations, slowest * 1e3, slowest * 1e3 / iterations);
        double cpu_start = MPI_Wtime();
        float *expected = cpu_jacobi(seed, nx, ny, iterations);
        double cpu_seconds = MPI_Wtime() - cpu_start;
        size_t differ = 0;
        double worst = 0;
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 0; x < nx; ++x) {
                double got = inner[(size_t)(y - 1) * nx + x];
                double want = expected[(size_t)y * nx + x];
                double difference = fabs(got - want);
                /* The kernel adds in the CPU's order; a compiler that fuses
                 * or reorders may still differ in the last bit. */
                if (!(difference <= 1e-6)) {
                    if (differ < 5)
                        fprintf(stderr, "  (%d, %d): %.9g, expected %.9g\n", x,
                                y, got, want);
                    ++differ;
                }
                if (difference > worst)
                    worst = difference;
            }
        wrong = differ != 0;
        printf("CPU, one process: %.3f ms; largest difference %.1e: %s\n",
               cpu_seconds * 1e3, worst,
               wrong ? "WRONG" : "all points match");
        free(expected);
        free(inner);
        free(counts);
        free(displacements);
    }
    MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);

    MPI_EXAMPLE_CHECK(kiln_host_free(b.context, b.staging));
    MPI_EXAMPLE_CHECK(kiln_kernel_release(kernel));
    MPI_EXAMPLE_CHECK(kiln_program_release(program));
    MPI_EXAMPLE_CHECK(kiln_buffer_release(b.grid[0]));
    MPI_EXAMPLE_CHECK(kiln_buffer_release(b.grid[1]));
    MPI_EXAMPLE_CHECK(kiln_context_release(b.context));
    free(local);
    MPI_Finalize();
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
