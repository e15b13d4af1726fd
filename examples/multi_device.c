/*
 * multi_device: one computation split across every device Kiln sees, in
 * one process — the sum of squares of 64 million floats that start in
 * host memory.  On a GPU machine that is the GPU through CUDA, the same
 * GPU through its vendor's OpenCL, and the CPU through PoCL, all at once;
 * in CI it is PoCL alone.
 *
 * Each device gets a context of its own and a host thread that uploads its
 * slice, reduces it and reads back the partial sums.  How much each device
 * gets follows a measured rate (floats per millisecond, upload included):
 * first from a small calibration slice run on each device alone, then
 * from the devices' times in the previous round, because devices that
 * share something (one GPU under two backends, one PCIe link, the host's
 * memory bandwidth) run slower together than alone.  The program then
 * times the fastest device alone on the whole array and says which is
 * faster: splitting does not always pay, and the program says so.
 *
 * usage: multi_device [SEED [MILLIONS_OF_FLOATS]]   (default 64)
 * KILN_BACKEND=cuda (or opencl) keeps that backend's devices only;
 * KILN_OPENCL_PLATFORM=Portable keeps PoCL's among the OpenCL ones.
 */
#include "example.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#define GROUP_SIZE 256
#define MAX_GROUPS 1024
#define ROUNDS 3
/* Slices are whole multiples of this many floats. */
#define GRAIN 4096

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

/* One device and its share of a round. */
typedef struct worker {
    kiln_device_info info;
    kiln_context *context;
    kiln_program *program;
    kiln_kernel *kernel;
    kiln_buffer *x_gpu, *partials_gpu;
    size_t capacity;            /* floats x_gpu can hold                */
    float partials[MAX_GROUPS];
    double rate;                /* floats per ms, last measured         */
    /* This round: */
    const float *x;
    size_t first, count;
    double sum, milliseconds;
    kiln_status status;
    char error[1024];
} worker;

/* Uploads, reduces and reads back one slice.  Runs in the worker's own
 * thread; Kiln's error message is per thread, so it is copied here. */
static void *worker_run(void *argument)
{
    worker *w = argument;
    w->sum = 0;
    w->milliseconds = 0;
    w->status = KILN_OK;
    if (w->count == 0)
        return NULL;
    double start = example_now_ms();
    size_t groups = (w->count + GROUP_SIZE - 1) / GROUP_SIZE;
    if (groups > MAX_GROUPS)
        groups = MAX_GROUPS;
    kiln_launch_config config = {.grid = KILN_DIM1(groups),
                                 .block = KILN_DIM1(GROUP_SIZE)};
    kiln_arg args[] = {KILN_ARG_BUFFER(w->x_gpu), KILN_ARG_INT((int)w->count),
                       KILN_ARG_BUFFER(w->partials_gpu)};
    kiln_status status = kiln_buffer_write(w->x_gpu, 0, w->x + w->first,
                                           w->count * sizeof(float));
    if (status == KILN_OK)
        status = kiln_launch(w->kernel, &config, 3, args);
    if (status == KILN_OK)
        status = kiln_buffer_read(w->partials_gpu, 0, w->partials,
                                  groups * sizeof(float));
    w->milliseconds = example_now_ms() - start;
    if (status != KILN_OK) {
        w->status = status;
        snprintf(w->error, sizeof w->error, "%s", kiln_last_error());
        return NULL;
    }
    for (size_t g = 0; g < groups; ++g)
        w->sum += w->partials[g];
    return NULL;
}

/* Stops on a worker's error, as EXAMPLE_CHECK does in one thread. */
static void worker_check(const worker *w)
{
    if (w->status == KILN_OK)
        return;
    fflush(stdout);
    fprintf(stderr, "%s device %d (%s) failed with %s: %s\n", w->info.backend,
            w->info.index, w->info.name, kiln_status_name(w->status),
            w->error);
    exit(EXIT_FAILURE);
}

/* Runs every worker with a share at once; returns the wall time in ms. */
static double run_round(worker *workers, size_t count)
{
    pthread_t threads[64];
    double start = example_now_ms();
    for (size_t i = 0; i < count; ++i)
        if (pthread_create(&threads[i], NULL, worker_run, &workers[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(EXIT_FAILURE);
        }
    for (size_t i = 0; i < count; ++i)
        pthread_join(threads[i], NULL);
    double wall = example_now_ms() - start;
    for (size_t i = 0; i < count; ++i)
        worker_check(&workers[i]);
    return wall;
}

/* Shares proportional to the rates, each at most its device's capacity
 * (what a full device cannot take goes to the others), in whole grains
 * except the last slice.  A device whose share would be under 1% gets
 * none: its fixed costs would outweigh what it adds. */
static void split(worker *workers, size_t count, size_t n)
{
    double total_rate = 0;
    for (size_t i = 0; i < count; ++i)
        total_rate += workers[i].rate;
    bool *used = calloc(count, sizeof *used);
    for (size_t i = 0; i < count; ++i)
        used[i] = workers[i].rate >= 0.01 * total_rate;
    size_t left = n;
    for (;;) {
        double rate = 0;
        for (size_t i = 0; i < count; ++i)
            if (used[i] && workers[i].count == 0)
                rate += workers[i].rate;
        bool capped = false;
        for (size_t i = 0; i < count && rate > 0; ++i) {
            if (!used[i] || workers[i].count != 0)
                continue;
            double share = (double)left * workers[i].rate / rate;
            if (share > (double)workers[i].capacity) {
                workers[i].count = workers[i].capacity;
                left -= workers[i].capacity;
                capped = true;
            }
        }
        if (!capped)
            break;
    }
    size_t last = count;
    for (size_t i = 0; i < count; ++i)
        if (used[i] && workers[i].count == 0)
            last = i;
    double rate = 0;
    for (size_t i = 0; i < count; ++i)
        if (used[i] && workers[i].count == 0)
            rate += workers[i].rate;
    size_t first = 0, given = 0, remaining = left;
    for (size_t i = 0; i < count; ++i) {
        workers[i].first = first;
        if (used[i] && workers[i].count == 0) {
            size_t share =
                i == last ? remaining - given
                          : (size_t)((double)remaining * workers[i].rate /
                                     rate) / GRAIN * GRAIN;
            if (share > remaining - given)
                share = remaining - given;
            workers[i].count = share;
            given += share;
        }
        first += workers[i].count;
    }
    free(used);
    if (first != n || last == count) {
        fprintf(stderr, "the devices cannot hold %zu floats together\n", n);
        exit(EXIT_FAILURE);
    }
}

static double result_of(const worker *workers, size_t count)
{
    double sum = 0;
    for (size_t i = 0; i < count; ++i)
        sum += workers[i].sum;
    return sum;
}

static int check(const char *what, double sum, double expected)
{
    double error = fabs(sum - expected) / expected;
    int ok = error <= 1e-5;
    printf("  %s: %.6f, relative error %.1e%s\n", what, sum, error,
           ok ? "" : "  WRONG");
    return ok;
}

int main(int argc, char **argv)
{
    example_rng rng = {example_seed(argc, argv)};
    size_t millions = argc > 2 ? strtoul(argv[2], NULL, 10) : 64;
    if (millions == 0 || millions > 2000) {
        fprintf(stderr, "usage: %s [SEED [MILLIONS_OF_FLOATS (1..2000)]]\n",
                argv[0]);
        return EXIT_FAILURE;
    }
    const size_t n = millions << 20;
    float *x = malloc(n * sizeof(float));
    if (x == NULL) {
        fprintf(stderr, "out of host memory\n");
        return EXIT_FAILURE;
    }
    example_random_floats(&rng, x, n, -1.0f, 1.0f);
    double cpu_start = example_now_ms();
    double expected = 0;
    for (size_t i = 0; i < n; ++i)
        expected += (double)x[i] * (double)x[i];
    printf("%zu M floats; the CPU's sum, one thread, in double: %.6f "
           "(%.1f ms)\n",
           millions, expected, example_now_ms() - cpu_start);

    /* Every device of every backend, one context each. */
    size_t listed = 0;
    EXAMPLE_CHECK(kiln_device_list(NULL, 0, &listed));
    kiln_device_info *devices = calloc(listed ? listed : 1, sizeof *devices);
    EXAMPLE_CHECK(kiln_device_list(devices, listed, &listed));
    worker *workers = calloc(listed ? listed : 1, sizeof *workers);
    size_t count = 0;
    char options[64];
    snprintf(options, sizeof options, "-DGROUP_SIZE=%d", GROUP_SIZE);
    /* KILN_BACKEND, as for the other examples, keeps one backend's. */
    const char *only = getenv("KILN_BACKEND");
    for (size_t d = 0; d < listed && count < 64; ++d) {
        if (only != NULL && only[0] != '\0' &&
            strcmp(only, devices[d].backend) != 0)
            continue;
        worker *w = &workers[count];
        w->info = devices[d];
        kiln_status status = kiln_context_create(
            devices[d].backend, devices[d].index, &w->context);
        if (status != KILN_OK) {
            printf("skipping %s device %d (%s): %s\n", devices[d].backend,
                   devices[d].index, devices[d].name, kiln_last_error());
            continue;
        }
        example_print_device(w->context);
        EXAMPLE_CHECK(kiln_program_build(w->context, reduce_source, options,
                                         &w->program));
        EXAMPLE_CHECK(
            kiln_kernel_create(w->program, "sum_of_squares", &w->kernel));
        /* Room for the whole array where the device has it, else for what
         * its largest allocation holds (the split respects that). */
        w->capacity = n;
        uint64_t limit = w->info.max_allocation / sizeof(float);
        if (limit != 0 && limit < w->capacity)
            w->capacity = (size_t)limit / GRAIN * GRAIN;
        EXAMPLE_CHECK(kiln_buffer_create(w->context,
                                         w->capacity * sizeof(float),
                                         &w->x_gpu));
        EXAMPLE_CHECK(kiln_buffer_create(w->context,
                                         MAX_GROUPS * sizeof(float),
                                         &w->partials_gpu));
        w->x = x;
        ++count;
    }
    if (count == 0) {
        fflush(stdout);
        fprintf(stderr, "no device could be opened%s%s%s (kiln-info lists "
                "them)\n", only ? " of backend " : "", only ? only : "",
                only ? " (KILN_BACKEND)" : "");
        return EXIT_FAILURE;
    }

    /* Calibration: each device alone on the first few million floats,
     * twice (the first run pays for first launches and page faults). */
    size_t sample = n < ((size_t)4 << 20) ? n : ((size_t)4 << 20);
    printf("calibration, %zu M floats on each device alone:\n", sample >> 20);
    for (size_t i = 0; i < count; ++i) {
        worker *w = &workers[i];
        w->first = 0;
        w->count = sample < w->capacity ? sample : w->capacity;
        for (int run = 0; run < 2; ++run) {
            worker_run(w);
            worker_check(w);
        }
        w->rate = (double)w->count / w->milliseconds;
        printf("  %-8s %d  %-48.48s %8.2f ms  %7.2f G floats/s\n",
               w->info.backend, w->info.index, w->info.name, w->milliseconds,
               w->rate / 1e6);
    }

    int wrong = 0;
    double best_split = INFINITY;
    /* One device: nothing to split or to compare with. */
    int rounds = count == 1 ? 1 : ROUNDS;
    for (int round = 1; round <= rounds; ++round) {
        for (size_t i = 0; i < count; ++i)
            workers[i].count = 0;
        split(workers, count, n);
        double wall = run_round(workers, count);
        printf("round %d (shares by %s): %.2f ms\n", round,
               round == 1 ? "calibration" : "the last round's rates", wall);
        for (size_t i = 0; i < count; ++i) {
            worker *w = &workers[i];
            printf("  %-8s %d  %5.1f%%  %8.2f ms\n", w->info.backend,
                   w->info.index, 100.0 * (double)w->count / (double)n,
                   w->milliseconds);
            if (w->count > 0)
                w->rate = (double)w->count / w->milliseconds;
        }
        wrong += !check("sum", result_of(workers, count), expected);
        if (wall < best_split)
            best_split = wall;
    }

    /* The fastest device alone, on as much as it holds (all of it unless
     * its largest allocation is smaller). */
    size_t fastest = 0;
    for (size_t i = 1; i < count; ++i)
        if (workers[i].rate > workers[fastest].rate)
            fastest = i;
    worker *alone = &workers[fastest];
    double alone_ms = INFINITY;
    if (count > 1 && alone->capacity >= n) {
        for (size_t i = 0; i < count; ++i)
            workers[i].count = 0;
        alone->first = 0;
        alone->count = n;
        for (int run = 0; run < 2; ++run) {
            double wall = run_round(workers, count);
            if (wall < alone_ms)
                alone_ms = wall;
        }
        printf("the fastest device alone (%s %d, %s): %.2f ms\n",
               alone->info.backend, alone->info.index, alone->info.name,
               alone_ms);
        wrong += !check("sum", result_of(workers, count), expected);
        printf("split over %zu device%s: %.2f ms, %.2fx the fastest device "
               "alone: %s\n",
               count, count == 1 ? "" : "s", best_split, alone_ms / best_split,
               best_split < alone_ms ? "splitting pays"
                                     : "splitting does not pay here: use "
                                       "the fastest device alone");
    } else if (count == 1) {
        printf("one device: nothing to split\n");
    }

    for (size_t i = 0; i < count; ++i) {
        EXAMPLE_CHECK(kiln_buffer_release(workers[i].x_gpu));
        EXAMPLE_CHECK(kiln_buffer_release(workers[i].partials_gpu));
        EXAMPLE_CHECK(kiln_kernel_release(workers[i].kernel));
        EXAMPLE_CHECK(kiln_program_release(workers[i].program));
        EXAMPLE_CHECK(kiln_context_release(workers[i].context));
    }
    free(workers);
    free(devices);
    free(x);
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
