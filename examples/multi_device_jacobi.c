/*
 * multi_device_jacobi: the Jacobi stencil of examples/mpi_jacobi in one
 * process, its grid split in bands of rows over the devices of Kiln's
 * default backend (examples/jacobi.h has the stencil and each band's two
 * streams).  Every iteration each band updates its two edge rows first;
 * then its edge stream waits for its neighbours' edge rows
 * (kiln_stream_wait_event with another context's event: on the device for
 * two CUDA contexts) and copies them into its halo rows
 * (kiln_buffer_copy_async between two contexts: GPU to GPU over NVLink or
 * PCIe on CUDA, staged through page-locked host memory between OpenCL
 * contexts), while the interior rows are computed on the other stream.
 *
 * A host thread drives each device, and the threads do not meet every
 * iteration: each band keeps its events in a ring, one per iteration for
 * the last few, and a thread waits for a neighbour's only until that one
 * has recorded the event it needs.  So one thread's launches and copies
 * overlap the others', and a thread that falls behind for a moment (the
 * host is shared) delays no one while the devices still have work queued.
 *
 * Which devices: part i of N runs on device kiln_device_for_rank(NULL, i),
 * that is i modulo the default backend's device count, in the backend's
 * order (CUDA's: fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, which
 * gives nvidia-smi's).  Neighbouring bands go to neighbouring devices, so
 * on a machine whose GPUs are linked in a ring or chain the halos take the
 * direct links.  By default N is every device of the backend, each once;
 * --devices N takes N parts (more parts than devices share them, as MPI
 * ranks do).
 *
 * The result is checked against the CPU.  The time per iteration leaves
 * out the first iterations (a tenth, at most 10).
 *
 *   multi_device_jacobi [--devices N] [--normal-priority]
 *                       [SEED [NX NY ITERATIONS]]
 * --normal-priority: the edge rows on an ordinary stream (examples/jacobi.h
 * says why they get a high-priority one).
 */
#include "example.h"

#include "jacobi.h"

#define MAX_PARTS 64

/* How many iterations a band's events are kept for: a band's host thread
 * may run that many iterations ahead of its neighbours' before it waits
 * for them. */
#define RING 4

/* How far the host threads have come, for their neighbours: one lock and
 * one condition for all of them. */
typedef struct jacobi_progress {
    pthread_mutex_t lock;
    pthread_cond_t moved;
} jacobi_progress;

/* What a band's thread tells its neighbours, each as a count of
 * iterations: those whose edge_ready (pulled) it has recorded, and those
 * for which it has queued its waits for the neighbours' edge_ready
 * (pulled). */
enum { EDGE_RECORDED, PULLED_RECORDED, EDGE_WAITED, PULLED_WAITED, STAGES };

typedef struct worker {
    jacobi_part part;
    int index;
    struct worker *above, *below;  /* neighbouring bands, NULL at the edges */
    /* Slot k % RING: after iteration k's edge rows, and after its halo
     * copies. */
    kiln_event *edge_ready[RING], *pulled[RING];
    int done[STAGES];              /* guarded by progress->lock            */
    kiln_device_info device;
    /* shared by all workers: */
    int iterations, warmup;
    jacobi_progress *progress;
    pthread_barrier_t *barrier;
    double *start_ms, *end_ms;
} worker;

static void progress_tell(worker *w, int stage, int iterations)
{
    pthread_mutex_lock(&w->progress->lock);
    w->done[stage] = iterations;
    pthread_cond_broadcast(&w->progress->moved);
    pthread_mutex_unlock(&w->progress->lock);
}

/* Waits until both neighbours (those there are) have told `stage` for
 * `iterations` iterations. */
static void progress_await(worker *w, int stage, int iterations)
{
    pthread_mutex_lock(&w->progress->lock);
    while ((w->above != NULL && w->above->done[stage] < iterations) ||
           (w->below != NULL && w->below->done[stage] < iterations))
        pthread_cond_wait(&w->progress->moved, &w->progress->lock);
    pthread_mutex_unlock(&w->progress->lock);
}

/* One band's host thread: queues every iteration.  It waits for its
 * neighbours' threads only where it needs an event of theirs recorded for
 * the right iteration, or is about to record one of its own events again
 * and a neighbour has not yet queued its wait for the earlier record;
 * otherwise the threads run freely, at most RING iterations apart.  (A
 * wait for an event is queued at once, so recording it again afterwards
 * does not change what the wait waits for.) */
static void *worker_run(void *argument)
{
    worker *w = argument;
    jacobi_part *p = &w->part;
    const size_t row_bytes = (size_t)p->nx * sizeof(float);
    int current = 0;
    for (int k = 0; k < w->iterations; ++k) {
        if (k == w->warmup) {
            EXAMPLE_CHECK(kiln_context_synchronize(p->context));
            pthread_barrier_wait(w->barrier);
            if (w->index == 0)
                *w->start_ms = example_now_ms();
        }
        if (k > 1) {
            /* The neighbours have copied this band's edge rows of k-2,
             * which this iteration's overwrite (the same grid of the
             * two).  Not k-1's: waiting for those would put a round trip
             * between the devices into every iteration. */
            progress_await(w, PULLED_RECORDED, k - 1);
            if (w->above != NULL)
                EXAMPLE_CHECK(kiln_stream_wait_event(
                    p->edge, w->above->pulled[(k - 2) % RING]));
            if (w->below != NULL)
                EXAMPLE_CHECK(kiln_stream_wait_event(
                    p->edge, w->below->pulled[(k - 2) % RING]));
        }
        progress_tell(w, PULLED_WAITED, k);
        jacobi_step(p, current, k);
        /* The slot last marked iteration k - RING. */
        progress_await(w, EDGE_WAITED, k - RING + 1);
        EXAMPLE_CHECK(kiln_event_record(w->edge_ready[k % RING], p->edge));
        progress_tell(w, EDGE_RECORDED, k + 1);

        int out = 1 - current;
        kiln_buffer *grid = p->grid[out];
        progress_await(w, EDGE_RECORDED, k + 1);
        if (w->above != NULL) {
            jacobi_part *a = &w->above->part;
            EXAMPLE_CHECK(kiln_stream_wait_event(
                p->edge, w->above->edge_ready[k % RING]));
            EXAMPLE_CHECK(kiln_buffer_copy_async(
                grid, jacobi_row_offset(p, 0), a->grid[out],
                jacobi_row_offset(a, a->rows), row_bytes, p->edge));
        }
        if (w->below != NULL) {
            jacobi_part *b = &w->below->part;
            EXAMPLE_CHECK(kiln_stream_wait_event(
                p->edge, w->below->edge_ready[k % RING]));
            EXAMPLE_CHECK(kiln_buffer_copy_async(
                grid, jacobi_row_offset(p, p->rows + 1), b->grid[out],
                jacobi_row_offset(b, 1), row_bytes, p->edge));
        }
        progress_tell(w, EDGE_WAITED, k + 1);
        /* The slot last marked iteration k - RING, which the neighbours
         * wait for in their iteration k - RING + 2. */
        progress_await(w, PULLED_WAITED, k - RING + 2);
        EXAMPLE_CHECK(kiln_event_record(w->pulled[k % RING], p->edge));
        progress_tell(w, PULLED_RECORDED, k + 1);
        current = out;
    }
    EXAMPLE_CHECK(kiln_context_synchronize(p->context));
    pthread_barrier_wait(w->barrier);
    if (w->index == 0)
        *w->end_ms = example_now_ms();
    return NULL;
}

int main(int argc, char **argv)
{
    int parts = 0;
    kiln_stream_priority edge_priority = KILN_STREAM_PRIORITY_HIGH;
    for (;;) {
        if (argc > 2 && strcmp(argv[1], "--devices") == 0) {
            parts = atoi(argv[2]);
            argc -= 2;
            argv += 2;
        } else if (argc > 1 && strcmp(argv[1], "--normal-priority") == 0) {
            edge_priority = KILN_STREAM_PRIORITY_NORMAL;
            --argc;
            ++argv;
        } else {
            break;
        }
    }
    int nx = argc > 2 ? atoi(argv[2]) : 512;
    int ny = argc > 3 ? atoi(argv[3]) : 512;
    int iterations = argc > 4 ? atoi(argv[4]) : 100;
    const char *backend = NULL;
    EXAMPLE_CHECK(kiln_backend_get_default(&backend));
    int devices = 0;
    EXAMPLE_CHECK(kiln_device_get_count(backend, &devices));
    if (parts == 0)
        parts = devices;
    if (parts < 1 || parts > MAX_PARTS || nx < 3 || ny - 2 < parts ||
        iterations < 1 || nx > 65536 || ny > 65536 ||
        (argc > 1 && argv[1][0] == '-')) {
        fprintf(stderr,
                "usage: %s [--devices N] [--normal-priority] [SEED [NX NY "
                "ITERATIONS]]: 1 <= N <= %d, NX >= 3, NY - 2 >= N, at most "
                "65536 each\n",
                argv[0], MAX_PARTS);
        return EXIT_FAILURE;
    }
    uint64_t seed = example_seed(argc, argv);
    printf("%d x %d grid, %d iterations, %d part%s on %s (%d device%s)\n", nx,
           ny, iterations, parts, parts == 1 ? "" : "s", backend, devices,
           devices == 1 ? "" : "s");

    static worker workers[MAX_PARTS];
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)parts);
    jacobi_progress progress = {PTHREAD_MUTEX_INITIALIZER,
                                PTHREAD_COND_INITIALIZER};
    double start_ms = 0, end_ms = 0;
    int warmup = iterations / 10 < 10 ? iterations / 10 : 10;
    for (int i = 0; i < parts; ++i) {
        worker *w = &workers[i];
        int device = 0;
        EXAMPLE_CHECK(kiln_device_for_rank(backend, i, &device));
        kiln_context *context = NULL;
        EXAMPLE_CHECK(kiln_context_create(backend, device, &context));
        EXAMPLE_CHECK(kiln_context_get_device_info(context, &w->device));
        int first = 0, rows = 0;
        jacobi_share(ny - 2, i, parts, &first, &rows);
        jacobi_part_open(&w->part, context, seed, nx, ny, first + 1, rows,
                         edge_priority);
        for (int slot = 0; slot < RING; ++slot) {
            EXAMPLE_CHECK(
                kiln_event_create_untimed(context, &w->edge_ready[slot]));
            EXAMPLE_CHECK(kiln_event_create_untimed(context, &w->pulled[slot]));
        }
        w->index = i;
        w->above = i > 0 ? &workers[i - 1] : NULL;
        w->below = i < parts - 1 ? &workers[i + 1] : NULL;
        w->iterations = iterations;
        w->warmup = warmup;
        w->progress = &progress;
        w->barrier = &barrier;
        w->start_ms = &start_ms;
        w->end_ms = &end_ms;
        kiln_stream_priority edge_got = KILN_STREAM_PRIORITY_NORMAL;
        EXAMPLE_CHECK(kiln_stream_get_priority(w->part.edge, &edge_got));
        printf("part %d: %s device %d (%s), rows %d..%d; edge rows on a %s "
               "stream\n",
               i, backend, device, w->device.name, first + 1, first + rows,
               edge_got == KILN_STREAM_PRIORITY_HIGH ? "high-priority"
                                                     : "normal-priority");
    }
    if (parts > 1)
        printf("halos: kiln_buffer_copy_async between the contexts (CUDA: "
               "GPU to GPU; OpenCL: staged through host memory)\n");

    pthread_t threads[MAX_PARTS];
    for (int i = 0; i < parts; ++i)
        if (pthread_create(&threads[i], NULL, worker_run, &workers[i]) != 0) {
            fprintf(stderr, "cannot start a thread\n");
            return EXIT_FAILURE;
        }
    for (int i = 0; i < parts; ++i)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&barrier);
    int timed = iterations - warmup;
    printf("%d iterations in %.3f ms: %.4f ms per iteration (after %d "
           "warm-up iteration%s)\n",
           timed, end_ms - start_ms, (end_ms - start_ms) / timed, warmup,
           warmup == 1 ? "" : "s");

    /* Each band's rows into one grid, then the CPU's answer. */
    float *inner = malloc((size_t)(ny - 2) * nx * sizeof(float));
    if (inner == NULL) {
        fprintf(stderr, "out of host memory\n");
        return EXIT_FAILURE;
    }
    int current = iterations % 2;
    for (int i = 0; i < parts; ++i) {
        jacobi_part *p = &workers[i].part;
        EXAMPLE_CHECK(kiln_buffer_read(
            p->grid[current], jacobi_row_offset(p, 1),
            inner + (size_t)(p->first - 1) * nx,
            (size_t)p->rows * nx * sizeof(float)));
    }
    double cpu_start = example_now_ms(), worst = 0;
    float *expected = jacobi_cpu(seed, nx, ny, iterations);
    double cpu_ms = example_now_ms() - cpu_start;
    int wrong = jacobi_compare(inner, expected, nx, ny, &worst) != 0;
    printf("CPU: %.3f ms; largest difference %.1e: %s\n", cpu_ms, worst,
           wrong ? "WRONG" : "all points match");
    free(expected);
    free(inner);

    for (int i = 0; i < parts; ++i) {
        kiln_context *context = workers[i].part.context;
        for (int slot = 0; slot < RING; ++slot) {
            EXAMPLE_CHECK(kiln_event_release(workers[i].edge_ready[slot]));
            EXAMPLE_CHECK(kiln_event_release(workers[i].pulled[slot]));
        }
        jacobi_part_close(&workers[i].part);
        EXAMPLE_CHECK(kiln_context_release(context));
    }
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
