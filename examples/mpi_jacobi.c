/*
 * mpi_jacobi: a 2-D Jacobi stencil (each inner point becomes the mean of
 * its four neighbours) on a grid split across MPI ranks in bands of rows,
 * one rank per device (examples/jacobi.h has the stencil and the two
 * streams each rank runs it on).  Every iteration each rank updates its
 * two edge rows first, hands them to the ranks above and below as their
 * halo rows while its interior rows are computed, and the next iteration's
 * edge rows wait for the halos.
 *
 * How the halo rows travel, the first that applies:
 *  - "MPI, device pointers": the CUDA backend and an MPI that says it is
 *    CUDA-aware (MPIX_Query_cuda_support): MPI_Sendrecv is handed the
 *    rows' device addresses (kiln_buffer_get_native) and moves them;
 *  - "CUDA IPC, GPU to GPU": the CUDA backend and both neighbours on this
 *    node: each rank opens its neighbours' grids once
 *    (kiln_buffer_get_ipc_handle, sent with MPI; kiln_buffer_open_ipc_handle)
 *    and copies their edge rows into its halos itself, over NVLink or PCIe;
 *    MPI only says when the rows are ready;
 *  - "staged through page-locked host memory": otherwise (OpenCL, which
 *    has no IPC handles; ranks on other nodes; --staged): the rows are read
 *    into kiln_host_alloc memory, exchanged with MPI_Sendrecv and written.
 * Whichever path, a rank hands over its edge rows only once the event after
 * them has completed (kiln_event_synchronize): MPI and the other process
 * know nothing of Kiln's streams.
 *
 * The result is gathered on rank 0 and checked against the same iterations
 * run on the CPU.  The time per iteration (the slowest rank's) leaves out
 * the first iterations (a tenth, at most 10), which include the driver's
 * first launches.
 *
 *   mpirun -np 2 examples/mpi_jacobi [--staged|--ipc|--mpi-device]
 *                 [--normal-priority] [SEED [NX NY ITERATIONS]]
 * --staged, --ipc and --mpi-device ask for one path (refused when it
 * cannot be taken); --normal-priority puts the edge rows on an ordinary
 * stream instead of a high-priority one, to see what the priority buys.
 */
#include "mpi_example.h"

#include <stdbool.h>

#define JACOBI_CHECK MPI_EXAMPLE_CHECK
#include "jacobi.h"

typedef enum halo_path {
    HALO_AUTOMATIC,
    HALO_MPI_DEVICE,
    HALO_IPC,
    HALO_STAGED
} halo_path;

static const char *halo_path_name(halo_path path)
{
    switch (path) {
    case HALO_MPI_DEVICE:
        return "MPI, device pointers (CUDA-aware MPI)";
    case HALO_IPC:
        return "CUDA IPC, GPU to GPU (peer copies; MPI only signals)";
    case HALO_STAGED:
        return "staged through page-locked host memory";
    default:
        return "?";
    }
}

/* What one rank holds besides its part of the grid. */
typedef struct rank_state {
    jacobi_part part;
    int rank, size;
    int above, below;        /* neighbour ranks, MPI_PROC_NULL at the edges */
    int rows_above;          /* the upper neighbour's rows                  */
    halo_path path;
    float *staging;          /* staged: 4 rows, page-locked: send up, send
                                down, receive from above, from below       */
    kiln_buffer *above_grid[2], *below_grid[2]; /* IPC: the neighbours'    */
} rank_state;

/* The world rank of this node's first process: equal for ranks that share
 * a node. */
static int node_leader(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    int world = 0, leader = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    leader = world;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    return leader;
}

/* Whether every rank can say yes. */
static int all_ranks(int yes)
{
    int all = 0;
    MPI_Allreduce(&yes, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Sends this rank's grids' handles to both neighbours and opens theirs.
 * Returns whether every rank could; on no, nothing stays open. */
static int open_neighbours(rank_state *s)
{
    kiln_ipc_handle mine[2], from_above[2], from_below[2];
    int ok = 1;
    for (int i = 0; i < 2; ++i)
        if (kiln_buffer_get_ipc_handle(s->part.grid[i], &mine[i]) != KILN_OK)
            ok = 0;
    if (!all_ranks(ok))
        return 0;
    MPI_Sendrecv(mine, (int)sizeof mine, MPI_BYTE, s->above, 10, from_below,
                 (int)sizeof from_below, MPI_BYTE, s->below, 10,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(mine, (int)sizeof mine, MPI_BYTE, s->below, 11, from_above,
                 (int)sizeof from_above, MPI_BYTE, s->above, 11,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char reason[512] = "";
    for (int i = 0; i < 2 && ok; ++i) {
        kiln_status status = KILN_OK;
        if (s->above != MPI_PROC_NULL)
            status = kiln_buffer_open_ipc_handle(
                s->part.context, &from_above[i], &s->above_grid[i]);
        if (status == KILN_OK && s->below != MPI_PROC_NULL)
            status = kiln_buffer_open_ipc_handle(
                s->part.context, &from_below[i], &s->below_grid[i]);
        if (status != KILN_OK) {
            snprintf(reason, sizeof reason, "%s", kiln_last_error());
            ok = 0;
        }
    }
    if (!ok)
        fprintf(stderr, "rank %d: cannot open a neighbour's grid: %s\n",
                s->rank, reason);
    if (all_ranks(ok))
        return 1;
    for (int i = 0; i < 2; ++i) {
        if (s->above_grid[i] != NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_release(s->above_grid[i]));
        if (s->below_grid[i] != NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_release(s->below_grid[i]));
        s->above_grid[i] = s->below_grid[i] = NULL;
    }
    return 0;
}

/* Picks the halo path (the same on every rank) and prepares it. */
static void choose_path(rank_state *s, halo_path wanted, int cuda_aware,
                        const char *backend)
{
    int cuda = strcmp(backend, "cuda") == 0;
    /* Both neighbours on this node? */
    int leader = node_leader(), above_leader = -1, below_leader = -1;
    MPI_Sendrecv(&leader, 1, MPI_INT, s->above, 20, &below_leader, 1,
                 MPI_INT, s->below, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&leader, 1, MPI_INT, s->below, 21, &above_leader, 1,
                 MPI_INT, s->above, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int same_node = (s->above == MPI_PROC_NULL || above_leader == leader) &&
                    (s->below == MPI_PROC_NULL || below_leader == leader);

    s->path = HALO_STAGED;
    if ((wanted == HALO_AUTOMATIC || wanted == HALO_MPI_DEVICE) &&
        all_ranks(cuda && cuda_aware))
        s->path = HALO_MPI_DEVICE;
    else if ((wanted == HALO_AUTOMATIC || wanted == HALO_IPC) &&
             all_ranks(cuda && same_node) && open_neighbours(s))
        s->path = HALO_IPC;
    if (wanted != HALO_AUTOMATIC && s->path != wanted) {
        if (s->rank == 0)
            fprintf(stderr,
                    "the halo path asked for (%s) cannot be taken here: "
                    "backend %s, MPI %s CUDA-aware\n",
                    halo_path_name(wanted), backend,
                    cuda_aware ? "is" : "is not");
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
    if (s->path == HALO_STAGED)
        MPI_EXAMPLE_CHECK(kiln_host_alloc(
            s->part.context, 4 * (size_t)s->part.nx * sizeof(float),
            (void **)&s->staging));
}

/* The ranks above and below have finished iteration k's edge rows (and
 * every copy they queued before them). */
static void handshake(const rank_state *s, int k)
{
    int from_above = -1, from_below = -1;
    MPI_Sendrecv(&k, 1, MPI_INT, s->above, 30, &from_below, 1, MPI_INT,
                 s->below, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&k, 1, MPI_INT, s->below, 31, &from_above, 1, MPI_INT,
                 s->above, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Iteration k has been queued, writing grid[out]: brings the neighbours'
 * new edge rows into its halo rows before the edge rows of k+1 run. */
static void exchange_halos(rank_state *s, int out, int k)
{
    jacobi_part *p = &s->part;
    const int nx = p->nx;
    const size_t row_bytes = (size_t)nx * sizeof(float);
    kiln_buffer *grid = p->grid[out];
    if (s->above == MPI_PROC_NULL && s->below == MPI_PROC_NULL)
        return;
    switch (s->path) {
    case HALO_MPI_DEVICE: {
        MPI_EXAMPLE_CHECK(kiln_event_synchronize(p->edge_done));
        unsigned long long base = 0; /* CUdeviceptr: Kiln checks the size */
        MPI_EXAMPLE_CHECK(kiln_buffer_get_native(grid, &base, sizeof base));
        char *device = (char *)(uintptr_t)base;
        MPI_Sendrecv(device + jacobi_row_offset(p, 1), nx, MPI_FLOAT,
                     s->above, 0, device + jacobi_row_offset(p, p->rows + 1),
                     nx, MPI_FLOAT, s->below, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(device + jacobi_row_offset(p, p->rows), nx, MPI_FLOAT,
                     s->below, 1, device + jacobi_row_offset(p, 0), nx,
                     MPI_FLOAT, s->above, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        return;
    }
    case HALO_IPC:
        /* The neighbours' edge rows of k are done, and so are their
         * copies of k-1 from this rank's rows: then pull. */
        MPI_EXAMPLE_CHECK(kiln_event_synchronize(p->edge_done));
        handshake(s, k);
        if (s->above != MPI_PROC_NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_copy_async(
                grid, jacobi_row_offset(p, 0), s->above_grid[out],
                (size_t)s->rows_above * row_bytes, row_bytes, p->edge));
        if (s->below != MPI_PROC_NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_copy_async(
                grid, jacobi_row_offset(p, p->rows + 1), s->below_grid[out],
                row_bytes, row_bytes, p->edge));
        return;
    default: {
        float *send_up = s->staging, *send_down = s->staging + nx;
        float *from_above = s->staging + 2 * nx,
              *from_below = s->staging + 3 * nx;
        if (s->above != MPI_PROC_NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_read_async(
                grid, jacobi_row_offset(p, 1), send_up, row_bytes, p->edge));
        if (s->below != MPI_PROC_NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_read_async(
                grid, jacobi_row_offset(p, p->rows), send_down, row_bytes,
                p->edge));
        MPI_EXAMPLE_CHECK(kiln_stream_synchronize(p->edge));
        MPI_Sendrecv(send_up, nx, MPI_FLOAT, s->above, 0, from_below, nx,
                     MPI_FLOAT, s->below, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(send_down, nx, MPI_FLOAT, s->below, 1, from_above, nx,
                     MPI_FLOAT, s->above, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        /* From page-locked memory: queued, the host goes on.  The next
         * iteration's receive into these rows comes after the next
         * synchronize of this stream. */
        if (s->above != MPI_PROC_NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_write_async(
                grid, jacobi_row_offset(p, 0), from_above, row_bytes,
                p->edge));
        if (s->below != MPI_PROC_NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_write_async(
                grid, jacobi_row_offset(p, p->rows + 1), from_below,
                row_bytes, p->edge));
        return;
    }
    }
}

/* Takes the leading flags off the arguments. */
static halo_path parse_flags(int *argc, char ***argv,
                             kiln_stream_priority *edge_priority)
{
    static const struct {
        const char *flag;
        halo_path path;
    } flags[] = {{"--staged", HALO_STAGED},
                 {"--ipc", HALO_IPC},
                 {"--mpi-device", HALO_MPI_DEVICE}};
    halo_path path = HALO_AUTOMATIC;
    *edge_priority = KILN_STREAM_PRIORITY_HIGH;
    while (*argc > 1 && (*argv)[1][0] == '-') {
        const char *flag = (*argv)[1];
        bool known = false;
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; ++i)
            if (strcmp(flag, flags[i].flag) == 0) {
                path = flags[i].path;
                known = true;
            }
        if (strcmp(flag, "--normal-priority") == 0) {
            *edge_priority = KILN_STREAM_PRIORITY_NORMAL;
            known = true;
        }
        if (!known)
            break;
        --*argc;
        ++*argv;
    }
    return path;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rank_state s = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    kiln_stream_priority edge_priority;
    halo_path wanted = parse_flags(&argc, &argv, &edge_priority);
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int nx = argc > 2 ? atoi(argv[2]) : 512;
    int ny = argc > 3 ? atoi(argv[3]) : 512;
    int iterations = argc > 4 ? atoi(argv[4]) : 100;
    if (nx < 3 || ny - 2 < s.size || iterations < 1 || nx > 65536 ||
        ny > 65536 || (argc > 1 && argv[1][0] == '-')) {
        if (s.rank == 0)
            fprintf(stderr,
                    "usage: %s [--staged|--ipc|--mpi-device] "
                    "[--normal-priority] [SEED [NX NY ITERATIONS]]: NX >= 3, "
                    "NY - 2 >= the number of ranks, at most 65536 each\n",
                    argv[0]);
        MPI_Finalize();
        return EXIT_FAILURE;
    }

    int local_rank = 0;
    kiln_context *context = mpi_example_context(&local_rank);
    const char *backend = NULL;
    kiln_device_info device;
    MPI_EXAMPLE_CHECK(kiln_context_get_backend(context, &backend));
    MPI_EXAMPLE_CHECK(kiln_context_get_device_info(context, &device));
    int cuda_aware = mpi_example_cuda_aware();

    /* Rows 1 .. ny-2 are inner rows; this rank owns [first, first+rows). */
    int first = 0, rows = 0, first_above = 0;
    jacobi_share(ny - 2, s.rank, s.size, &first, &rows);
    if (s.rank > 0)
        jacobi_share(ny - 2, s.rank - 1, s.size, &first_above, &s.rows_above);
    s.above = s.rank > 0 ? s.rank - 1 : MPI_PROC_NULL;
    s.below = s.rank < s.size - 1 ? s.rank + 1 : MPI_PROC_NULL;
    jacobi_part_open(&s.part, context, seed, nx, ny, first + 1, rows,
                     edge_priority);
    kiln_stream_priority edge_got = KILN_STREAM_PRIORITY_NORMAL;
    MPI_EXAMPLE_CHECK(kiln_stream_get_priority(s.part.edge, &edge_got));
    choose_path(&s, wanted, cuda_aware, backend);

    if (s.rank == 0)
        printf("seed %" PRIu64 "; %d x %d grid, %d iterations, %d rank%s; "
               "MPI %s CUDA-aware; halos: %s; edge rows on a %s stream\n",
               seed, nx, ny, iterations, s.size, s.size == 1 ? "" : "s",
               cuda_aware ? "is" : "is not",
               s.size == 1 ? "none (one rank)" : halo_path_name(s.path),
               edge_got == KILN_STREAM_PRIORITY_HIGH ? "high-priority"
                                                     : "normal-priority");
    for (int r = 0; r < s.size; ++r) {
        if (r == s.rank)
            printf("rank %d (node rank %d): backend %s, device %d: %s; rows "
                   "%d..%d\n",
                   s.rank, local_rank, backend, device.index, device.name,
                   first + 1, first + rows);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    int warmup = iterations / 10 < 10 ? iterations / 10 : 10;
    double start = 0;
    int current = 0;
    for (int k = 0; k < iterations; ++k) {
        if (k == warmup) {
            MPI_EXAMPLE_CHECK(kiln_context_synchronize(context));
            MPI_Barrier(MPI_COMM_WORLD);
            start = MPI_Wtime();
        }
        jacobi_step(&s.part, current, k);
        exchange_halos(&s, 1 - current, k);
        current = 1 - current;
    }
    MPI_EXAMPLE_CHECK(kiln_context_synchronize(context));
    double seconds = MPI_Wtime() - start, slowest = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    /* The neighbours' grids are closed before theirs go. */
    for (int i = 0; i < 2; ++i) {
        if (s.above_grid[i] != NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_release(s.above_grid[i]));
        if (s.below_grid[i] != NULL)
            MPI_EXAMPLE_CHECK(kiln_buffer_release(s.below_grid[i]));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Gather the inner rows on rank 0. */
    float *band = malloc((size_t)rows * nx * sizeof(float));
    if (band == NULL) {
        fprintf(stderr, "rank %d: out of host memory\n", s.rank);
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
    MPI_EXAMPLE_CHECK(kiln_buffer_read(s.part.grid[current],
                                       jacobi_row_offset(&s.part, 1), band,
                                       (size_t)rows * nx * sizeof(float)));
    int *counts = NULL, *displacements = NULL;
    float *inner = NULL;
    if (s.rank == 0) {
        counts = malloc((size_t)s.size * sizeof *counts);
        displacements = malloc((size_t)s.size * sizeof *displacements);
        inner = malloc((size_t)(ny - 2) * nx * sizeof(float));
        if (counts == NULL || displacements == NULL || inner == NULL) {
            fprintf(stderr, "out of host memory\n");
            MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
        }
        for (int r = 0; r < s.size; ++r) {
            int r_first = 0, r_rows = 0;
            jacobi_share(ny - 2, r, s.size, &r_first, &r_rows);
            counts[r] = r_rows * nx;
            displacements[r] = r_first * nx;
        }
    }
    MPI_Gatherv(band, rows * nx, MPI_FLOAT, inner, counts, displacements,
                MPI_FLOAT, 0, MPI_COMM_WORLD);

    int wrong = 0;
    if (s.rank == 0) {
        int timed = iterations - warmup;
        printf("%d iterations in %.3f ms: %.4f ms per iteration (the slowest "
               "rank, after %d warm-up iteration%s)\n",
               timed, slowest * 1e3, slowest * 1e3 / timed, warmup,
               warmup == 1 ? "" : "s");
        double cpu_start = MPI_Wtime();
        float *expected = jacobi_cpu(seed, nx, ny, iterations);
        double cpu_seconds = MPI_Wtime() - cpu_start, worst = 0;
        wrong = jacobi_compare(inner, expected, nx, ny, &worst) != 0;
        printf("CPU, one process: %.3f ms; largest difference %.1e: %s\n",
               cpu_seconds * 1e3, worst,
               wrong ? "WRONG" : "all points match");
        free(expected);
        free(inner);
        free(counts);
        free(displacements);
    }
    MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);

    if (s.staging != NULL)
        MPI_EXAMPLE_CHECK(kiln_host_free(context, s.staging));
    jacobi_part_close(&s.part);
    MPI_EXAMPLE_CHECK(kiln_context_release(context));
    free(band);
    MPI_Finalize();
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
