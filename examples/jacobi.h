/*
 * jacobi.h — what the two Jacobi examples share: the stencil's kernel, the
 * starting grid, one part of the grid on one device with its two streams,
 * and the CPU reference.  examples/mpi_jacobi splits the grid over MPI
 * ranks, examples/multi_device_jacobi over the devices of one process;
 * each moves the halo rows its own way.
 *
 * The grid is NY rows of NX floats.  The top row is 1, the bottom row 0,
 * the rest random in (0, 1); rows 0 and NY-1 and columns 0 and NX-1 stay
 * as they are, every other point becomes the mean of its four neighbours
 * each iteration.  A part owns a band of the inner rows and keeps it with
 * a halo row above and below (the neighbours' edge rows): local row 0 is
 * the upper halo, rows 1..rows its own, row rows+1 the lower halo.
 *
 * Each iteration a part reads one of its two grids and writes the other,
 * on two streams, so that the halo exchange overlaps the bulk of the work:
 *   edge stream:     its edge rows (1 and rows) first, then the halos
 *                    that the next iteration reads;
 *   interior stream: rows 2..rows-1, which need no halo.
 * Two untimed events order them: the interior waits for the previous
 * iteration's edge rows (it reads them), the edge rows for the previous
 * iteration's interior (they read rows 2 and rows-1 of it).  The edge
 * stream has the high priority (where the backend has priorities): on
 * equal streams the device would start the interior's many blocks first,
 * and the edge rows, which the halo exchange waits for, would finish near
 * the end of the interior.
 *
 * Include it after example.h (or mpi_example.h, defining JACOBI_CHECK as
 * MPI_EXAMPLE_CHECK first).
 */
#ifndef KILN_JACOBI_H
#define KILN_JACOBI_H

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#ifndef JACOBI_CHECK
#define JACOBI_CHECK EXAMPLE_CHECK
#endif

/* Rows first, first + stride, ... (count of them) of a band of rows of nx
 * floats.  The sums are written in one order, the CPU's, so both give the
 * same floats. */
static const char jacobi_source[] =
    "__kernel void jacobi(__global const float *in, __global float *out,\n"
    "                     int nx, int first, int stride, int count)\n"
    "{\n"
    "    int x = get_global_id(0);\n"
    "    int k = get_global_id(1);\n"
    "    if (x >= nx || k >= count)\n"
    "        return;\n"
    "    size_t i = (size_t)(first + k * stride) * nx + x;\n"
    "    if (x == 0 || x == nx - 1) {\n"
    "        out[i] = in[i];\n"
    "        return;\n"
    "    }\n"
    "    out[i] = ((in[i - nx] + in[i + nx]) + (in[i - 1] + in[i + 1])) *\n"
    "             0.25f;\n"
    "}\n";

/* The starting value of global point (row, column), the same in every
 * process: SplitMix64 of the seed and the index. */
static inline float jacobi_initial_value(uint64_t seed, uint64_t nx,
                                         uint64_t ny, uint64_t row,
                                         uint64_t column)
{
    if (row == 0)
        return 1.0f;
    if (row == ny - 1)
        return 0.0f;
    example_rng rng = {seed + (row * nx + column) *
                                  UINT64_C(0x9E3779B97F4A7C15)};
    double unit =
        ((double)(example_random_next(&rng) >> 40) + 0.5) / 16777216.0;
    return (float)unit;
}

/* The band [first, first + count) of `total` rows that part `part` of
 * `parts` owns: as equal as whole rows allow. */
static inline void jacobi_share(int total, int part, int parts, int *first,
                                int *count)
{
    int base = total / parts, extra = total % parts;
    *count = base + (part < extra ? 1 : 0);
    *first = part * base + (part < extra ? part : extra);
}

/* One band of the grid on one device. */
typedef struct jacobi_part {
    kiln_context *context;
    kiln_program *program;
    kiln_kernel *kernel;
    kiln_buffer *grid[2];    /* (rows + 2) x nx floats each               */
    int nx, rows;
    int first;               /* the global row of local row 1            */
    kiln_stream *edge, *interior;
    kiln_event *edge_done, *interior_done;
} jacobi_part;

/* Byte offset of local row `row` (0: the upper halo). */
static inline size_t jacobi_row_offset(const jacobi_part *p, int row)
{
    return (size_t)row * (size_t)p->nx * sizeof(float);
}

/* Opens global rows [first, first + rows) of an nx x ny grid on `context`,
 * from the starting values, halos included; the edge stream of
 * `edge_priority`. */
static inline void jacobi_part_open(jacobi_part *p, kiln_context *context,
                                    uint64_t seed, int nx, int ny, int first,
                                    int rows,
                                    kiln_stream_priority edge_priority)
{
    memset(p, 0, sizeof *p);
    p->context = context;
    p->nx = nx;
    p->rows = rows;
    p->first = first;
    size_t cells = (size_t)(rows + 2) * (size_t)nx;
    float *local = malloc(cells * sizeof(float));
    if (local == NULL) {
        fprintf(stderr, "out of host memory\n");
        exit(EXIT_FAILURE);
    }
    for (int y = 0; y < rows + 2; ++y)
        for (int x = 0; x < nx; ++x)
            local[(size_t)y * nx + x] = jacobi_initial_value(
                seed, (uint64_t)nx, (uint64_t)ny, (uint64_t)(first - 1 + y),
                (uint64_t)x);
    for (int i = 0; i < 2; ++i)
        JACOBI_CHECK(kiln_buffer_create_from(context, local,
                                             cells * sizeof(float),
                                             &p->grid[i]));
    free(local);
    JACOBI_CHECK(kiln_program_build(context, jacobi_source, NULL,
                                    &p->program));
    JACOBI_CHECK(kiln_kernel_create(p->program, "jacobi", &p->kernel));
    JACOBI_CHECK(
        kiln_stream_create_with_priority(context, edge_priority, &p->edge));
    JACOBI_CHECK(kiln_stream_create(context, &p->interior));
    JACOBI_CHECK(kiln_event_create_untimed(context, &p->edge_done));
    JACOBI_CHECK(kiln_event_create_untimed(context, &p->interior_done));
}

static inline void jacobi_part_close(jacobi_part *p)
{
    JACOBI_CHECK(kiln_context_synchronize(p->context));
    JACOBI_CHECK(kiln_event_release(p->edge_done));
    JACOBI_CHECK(kiln_event_release(p->interior_done));
    JACOBI_CHECK(kiln_stream_release(p->edge));
    JACOBI_CHECK(kiln_stream_release(p->interior));
    JACOBI_CHECK(kiln_kernel_release(p->kernel));
    JACOBI_CHECK(kiln_program_release(p->program));
    JACOBI_CHECK(kiln_buffer_release(p->grid[0]));
    JACOBI_CHECK(kiln_buffer_release(p->grid[1]));
}

/* Updates local rows first, first + stride, ... (count) of grid[1 - in]
 * from grid[in], on `stream`. */
static inline void jacobi_launch(jacobi_part *p, int in, int first,
                                 int stride, int count, kiln_stream *stream)
{
    if (count <= 0)
        return;
    /* Bands of rows in 32 x 8 blocks; one or two edge rows in rows of
     * 256 threads. */
    size_t width = count >= 8 ? 32 : 256, height = count >= 8 ? 8 : 1;
    kiln_launch_config config = {
        .grid = KILN_DIM2(((size_t)p->nx + width - 1) / width,
                          ((size_t)count + height - 1) / height),
        .block = KILN_DIM2(width, height),
        .stream = stream,
    };
    kiln_arg args[] = {KILN_ARG_BUFFER(p->grid[in]),
                       KILN_ARG_BUFFER(p->grid[1 - in]), KILN_ARG_INT(p->nx),
                       KILN_ARG_INT(first), KILN_ARG_INT(stride),
                       KILN_ARG_INT(count)};
    JACOBI_CHECK(kiln_launch(p->kernel, &config, 6, args));
}

/* Queues iteration k (reading grid[in]): the interior on its stream, the
 * edge rows on theirs.  The caller queues the halo exchange on p->edge
 * after this; edge_done marks the edge rows (and every exchange queued
 * before them). */
static inline void jacobi_step(jacobi_part *p, int in, int k)
{
    if (k > 0) {
        /* The interior reads the edge rows of iteration k-1 and writes
         * rows the edge kernel of k-1 read; the edge rows read the
         * interior's rows 2 and rows-1 of k-1. */
        JACOBI_CHECK(kiln_stream_wait_event(p->interior, p->edge_done));
        JACOBI_CHECK(kiln_stream_wait_event(p->edge, p->interior_done));
    }
    jacobi_launch(p, in, 2, 1, p->rows - 2, p->interior);
    JACOBI_CHECK(kiln_event_record(p->interior_done, p->interior));
    jacobi_launch(p, in, 1, p->rows > 1 ? p->rows - 1 : 1,
                  p->rows > 1 ? 2 : 1, p->edge);
    JACOBI_CHECK(kiln_event_record(p->edge_done, p->edge));
}

/* The CPU reference: the same iterations over the whole grid, by threads
 * that each own a band of rows and meet at a barrier every iteration. */
typedef struct jacobi_cpu_band {
    float *a, *b;
    int nx, first, last, iterations;
    pthread_barrier_t *barrier;
} jacobi_cpu_band;

static inline void *jacobi_cpu_rows(void *argument)
{
    jacobi_cpu_band *band = argument;
    float *a = band->a, *b = band->b;
    const int nx = band->nx;
    for (int k = 0; k < band->iterations; ++k) {
        for (int y = band->first; y < band->last; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                size_t i = (size_t)y * nx + x;
                b[i] = ((a[i - nx] + a[i + nx]) + (a[i - 1] + a[i + 1])) *
                       0.25f;
            }
        pthread_barrier_wait(band->barrier);
        float *swap = a;
        a = b;
        b = swap;
    }
    return NULL;
}

/* The grid after `iterations` (malloc'ed; the caller frees it). */
static inline float *jacobi_cpu(uint64_t seed, int nx, int ny,
                                int iterations)
{
    size_t cells = (size_t)nx * (size_t)ny;
    float *a = malloc(cells * sizeof(float));
    float *b = malloc(cells * sizeof(float));
    if (a == NULL || b == NULL) {
        fprintf(stderr, "out of host memory\n");
        exit(EXIT_FAILURE);
    }
    for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x)
            a[(size_t)y * nx + x] = b[(size_t)y * nx + x] =
                jacobi_initial_value(seed, (uint64_t)nx, (uint64_t)ny,
                                     (uint64_t)y, (uint64_t)x);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
    if (threads > ny - 2)
        threads = ny - 2;
    pthread_t ids[64];
    jacobi_cpu_band bands[64];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)threads);
    for (int t = 0; t < threads; ++t) {
        int first = 0, count = 0;
        jacobi_share(ny - 2, t, threads, &first, &count);
        bands[t] = (jacobi_cpu_band){.a = a, .b = b, .nx = nx,
                                     .first = first + 1,
                                     .last = first + 1 + count,
                                     .iterations = iterations,
                                     .barrier = &barrier};
        if (pthread_create(&ids[t], NULL, jacobi_cpu_rows, &bands[t]) != 0) {
            fprintf(stderr, "cannot start a thread\n");
            exit(EXIT_FAILURE);
        }
    }
    for (int t = 0; t < threads; ++t)
        pthread_join(ids[t], NULL);
    pthread_barrier_destroy(&barrier);
    if (iterations % 2 != 0) {
        float *swap = a;
        a = b;
        b = swap;
    }
    free(b);
    return a;
}

/* Compares the inner rows (ny - 2 of them, `inner`) with the CPU's grid;
 * prints the first differences.  Returns how many points differ. */
static inline size_t jacobi_compare(const float *inner, const float *expected,
                                    int nx, int ny, double *worst)
{
    size_t differ = 0;
    *worst = 0;
    for (int y = 1; y < ny - 1; ++y)
        for (int x = 0; x < nx; ++x) {
            double got = inner[(size_t)(y - 1) * nx + x];
            double want = expected[(size_t)y * nx + x];
            double difference = fabs(got - want);
            /* The kernel adds in the CPU's order; a compiler that fuses
             * or reorders may still differ in the last bit. */
            if (!(difference <= 1e-6)) {
                if (differ < 5)
                    fprintf(stderr, "  (%d, %d): %.9g, expected %.9g\n", x, y,
                            got, want);
                ++differ;
            }
            if (difference > *worst)
                *worst = difference;
        }
    return differ;
}

#endif /* KILN_JACOBI_H */
