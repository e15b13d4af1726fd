/*
 * multi_device_jacobi: the Jacobi stencil of examples/mpi_jacobi in one
 * process, its grid split in bands of rows over the devices of Kiln's
 * default backend (examples/jacobi.h has the stencil and each band's two
 * streams).  A host thread drives each device.  Every iteration each band
 * updates its two edge rows first; once all are queued, each band's edge
 * stream waits for its neighbours' edge rows (kiln_stream_wait_event with
 * another context's event: on the device for two CUDA contexts) and copies
 * them into its halo rows (kiln_buffer_copy_async between two contexts:
 * GPU to GPU over NVLink or PCIe on CUDA, staged through page-locked host
 * memory between OpenCL contexts), while the interior rows are computed on
 * the other stream.
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

typedef struct worker {
    jacobi_part part;
    int index;
    struct worker *above, *below;  /* neighbouring bands, NULL at the edges */
    kiln_event *pulled;            /* after this band's halo copies        */
    kiln_device_info device;
    /* shared by all workers: */
    int iterations, warmup;
    pthread_barrier_t *barrier;
    double *start_ms, *end_ms;
} worker;

/* One band's host thread: queues every iteration, meeting the others at a
 * barrier twice an iteration so that the events it waits for are the ones
 * of this iteration. */
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
        if (k > 0) {
            /* The neighbours have copied this band's edge rows of k-1
             * (this iteration's edge rows overwrite those of k-2, in the
             * same grid: waiting for k-1's copies covers k-2's). */
            if (w->above != NULL)
                EXAMPLE_CHECK(kiln_stream_wait_event(p->edge, w->above->pulled));
            if (w->below != NULL)
                EXAMPLE_CHECK(kiln_stream_wait_event(p->edge, w->below->pulled));
        }
        jacobi_step(p, current, k);
        /* Every band's edge_done now marks iteration k. */
        pthread_barrier_wait(w->barrier);
        int out = 1 - current;
        kiln_buffer *grid = p->grid[out];
        if (w->above != NULL) {
            jacobi_part *a = &w->above->part;
            EXAMPLE_CHECK(kiln_stream_wait_event(p->edge, a->edge_done));
            EXAMPLE_CHECK(kiln_buffer_copy_async(
                grid, jacobi_row_offset(p, 0), a->grid[out],
                jacobi_row_offset(a, a->rows), row_bytes, p->edge));
        }
        if (w->below != NULL) {
            jacobi_part *b = &w->below->part;
            EXAMPLE_CHECK(kiln_stream_wait_event(p->edge, b->edge_done));
            EXAMPLE_CHECK(kiln_buffer_copy_async(
                grid, jacobi_row_offset(p, p->rows + 1), b->grid[out],
                jacobi_row_offset(b, 1), row_bytes, p->edge));
        }
        EXAMPLE_CHECK(kiln_event_record(w->pulled, p->edge));
        /* Every band's pulled marks iteration k before any waits for it. */
        pthread_barrier_wait(w->barrier);
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
        EXAMPLE_CHECK(kiln_event_create_untimed(context, &w->pulled));
        w->index = i;
        w->above = i > 0 ? &workers[i - 1] : NULL;
        w->below = i < parts - 1 ? &workers[i + 1] : NULL;
        w->iterations = iterations;
        w->warmup = warmup;
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
        EXAMPLE_CHECK(kiln_event_release(workers[i].pulled));
        jacobi_part_close(&workers[i].part);
        EXAMPLE_CHECK(kiln_context_release(context));
    }
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
