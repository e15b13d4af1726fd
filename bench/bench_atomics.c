/*
 * bench_atomics — CUDA C whose speed is its atomics, natively on the CUDA
 * backend and translated to OpenCL C on OpenCL, side by side in one
 * process on the same GPU (issue 24).  Budgets, NVIDIA's OpenCL against
 * the CUDA backend: the PyCUDA tutorial's sum of squares of 4000 x 4000
 * floats (every thread a float atomicAdd into one total) within 1.5x; a
 * histogram of bytes in shared memory with integer atomics (CUDA by
 * Example's histo_kernel) within 1.2x.
 *
 * The kernels are the same CUDA C text on both sides.  Each side times
 * `reps` launches back to back between two Kiln events (device time); the
 * two sides alternate (bench_measure).  Results are checked against the
 * CPU before anything is timed.  Contexts: KILN_BENCH_ATOMICS_CUDA (default
 * "cuda") and "opencl" (KILN_OPENCL_PLATFORM=NVIDIA picks NVIDIA's OpenCL
 * where PoCL is installed too); a side that cannot be opened is reported
 * and left out.
 */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tutorial's SourceModule, word for word but for its comments. */
static const char sum_source[] =
    "\n"
    "      const int N=4000*4000;\n"
    "      __global__ void doublify(float *a_in,float *a_out)\n"
    "      {\n"
    "        __shared__ float sdatas[256];\n"
    "        int idx = threadIdx.x + blockIdx.x*blockDim.x;\n"
    "        int tid=threadIdx.x;\n"
    "        if(idx>=N) return;\n"
    "        sdatas[tid]=a_in[idx]*a_in[idx];\n"
    "        __syncthreads();\n"
    "        atomicAdd(&a_out[0],sdatas[tid]);\n"
    "      }\n";

/* CUDA by Example, chapter 9: the histogram in shared memory. */
static const char histo_source[] =
    "__global__ void histo_kernel(unsigned char *buffer, long size,\n"
    "                             unsigned int *histo)\n"
    "{\n"
    "    __shared__ unsigned int temp[256];\n"
    "    temp[threadIdx.x] = 0;\n"
    "    __syncthreads();\n"
    "    int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "    int offset = blockDim.x * gridDim.x;\n"
    "    while (i < size) {\n"
    "        atomicAdd(&temp[buffer[i]], 1);\n"
    "        i += offset;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    atomicAdd(&(histo[threadIdx.x]), temp[threadIdx.x]);\n"
    "}\n";

#define SUM_COUNT (4000 * 4000)
#define HISTO_BYTES ((size_t)64 << 20)

typedef struct atomics_side {
    const char *backend;
    char why[512];           /* why it is left out, "" while it works */
    kiln_context *context;
    kiln_device_info device;
    kiln_kernel *sum, *histo;
    kiln_buffer *x, *total, *bytes, *bins;
    kiln_event *start, *end;
    unsigned histo_blocks;
    int reps;
} atomics_side;

typedef struct atomics_run {
    atomics_side *side;
    int which;               /* 0 sum of squares, 1 histogram */
} atomics_run;

static void side_fail(atomics_side *s, const char *what)
{
    if (s->why[0] == '\0')
        snprintf(s->why, sizeof s->why, "%s: %s", what, kiln_last_error());
}

static kiln_status launch(atomics_side *s, int which)
{
    if (which == 0) {
        kiln_launch_config config = {.grid = KILN_DIM1(SUM_COUNT / 256 + 1),
                                     .block = KILN_DIM1(256)};
        kiln_arg args[] = {KILN_ARG_BUFFER(s->x), KILN_ARG_BUFFER(s->total)};
        return kiln_launch(s->sum, &config, 2, args);
    }
    kiln_launch_config config = {.grid = KILN_DIM1(s->histo_blocks),
                                 .block = KILN_DIM1(256)};
    kiln_arg args[] = {KILN_ARG_BUFFER(s->bytes),
                       KILN_ARG_LONG((long long)HISTO_BYTES),
                       KILN_ARG_BUFFER(s->bins)};
    return kiln_launch(s->histo, &config, 3, args);
}

/* Builds, checks once against the CPU; false (with s->why) when not. */
static bool side_open(atomics_side *s, const float *x, double sum,
                      const unsigned char *bytes, const unsigned *bins)
{
    if (kiln_context_create(s->backend, -1, &s->context) != KILN_OK) {
        side_fail(s, "no context");
        return false;
    }
    BENCH_CHECK(kiln_context_get_device_info(s->context, &s->device));
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    if (kiln_program_build_with(s->context, sum_source, 0, &options,
                                &program) != KILN_OK ||
        kiln_kernel_create(program, "doublify", &s->sum) != KILN_OK) {
        side_fail(s, "sum of squares");
        return false;
    }
    kiln_program_release(program);
    if (kiln_program_build_with(s->context, histo_source, 0, &options,
                                &program) != KILN_OK ||
        kiln_kernel_create(program, "histo_kernel", &s->histo) != KILN_OK) {
        side_fail(s, "histogram");
        return false;
    }
    kiln_program_release(program);
    s->histo_blocks = 2 * (unsigned)(s->device.compute_units > 0
                                         ? s->device.compute_units : 1);
    BENCH_CHECK(kiln_buffer_create_from(s->context, x, SUM_COUNT * sizeof *x,
                                        &s->x));
    BENCH_CHECK(kiln_buffer_create(s->context, 4 * sizeof(float), &s->total));
    BENCH_CHECK(kiln_buffer_create_from(s->context, bytes, HISTO_BYTES,
                                        &s->bytes));
    BENCH_CHECK(kiln_buffer_create(s->context, 256 * sizeof(unsigned),
                                   &s->bins));
    BENCH_CHECK(kiln_event_create(s->context, &s->start));
    BENCH_CHECK(kiln_event_create(s->context, &s->end));

    /* every partial sum is a whole number below 2^24: exact in any order */
    float zero = 0, total = 0;
    unsigned got[256];
    BENCH_CHECK(kiln_buffer_fill(s->total, 0, 4 * sizeof(float), &zero,
                                 sizeof zero));
    BENCH_CHECK(kiln_buffer_fill(s->bins, 0, sizeof got, &zero, sizeof zero));
    if (launch(s, 0) != KILN_OK || launch(s, 1) != KILN_OK) {
        side_fail(s, "launch");
        return false;
    }
    BENCH_CHECK(kiln_buffer_read(s->total, 0, &total, sizeof total));
    BENCH_CHECK(kiln_buffer_read(s->bins, 0, got, sizeof got));
    if ((double)total != sum) {
        snprintf(s->why, sizeof s->why, "sum of squares %.1f, expected %.1f",
                 (double)total, sum);
        return false;
    }
    for (int b = 0; b < 256; ++b)
        if (got[b] != bins[b]) {
            snprintf(s->why, sizeof s->why, "histogram bin %d: %u, expected %u",
                     b, got[b], bins[b]);
            return false;
        }
    /* about 0.2 s of launches per sample on a GPU, one on a CPU */
    s->reps = s->device.type == KILN_DEVICE_GPU ? 20 : 1;
    return true;
}

static double run_timed(void *state)
{
    atomics_run *r = state;
    atomics_side *s = r->side;
    BENCH_CHECK(kiln_event_record(s->start, NULL));
    for (int k = 0; k < s->reps; ++k)
        BENCH_CHECK(launch(s, r->which));
    BENCH_CHECK(kiln_event_record(s->end, NULL));
    float milliseconds = 0;
    BENCH_CHECK(kiln_event_elapsed(s->start, s->end, &milliseconds));
    return milliseconds * 1e-3 / s->reps;
}

static void side_close(atomics_side *s)
{
    kiln_kernel_release(s->sum);
    kiln_kernel_release(s->histo);
    kiln_buffer_release(s->x);
    kiln_buffer_release(s->total);
    kiln_buffer_release(s->bytes);
    kiln_buffer_release(s->bins);
    kiln_event_release(s->start);
    kiln_event_release(s->end);
    kiln_context_release(s->context);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    bench_rng rng = {20241124};
    float *x = bench_malloc(SUM_COUNT * sizeof *x);
    unsigned char *bytes = bench_malloc(HISTO_BYTES);
    unsigned bins[256] = {0};
    double sum = 0;
    for (size_t i = 0; i < SUM_COUNT; ++i) {
        x[i] = (float)((int)(bench_rng_next(&rng) % 3) - 1);
        sum += (double)x[i] * x[i];
    }
    for (size_t i = 0; i < HISTO_BYTES; ++i) {
        bytes[i] = (unsigned char)(bench_rng_next(&rng) >> 56);
        bins[bytes[i]]++;
    }

    const char *cuda_name = getenv("KILN_BENCH_ATOMICS_CUDA");
    atomics_side sides[2] = {{.backend = "opencl"},
                             {.backend = cuda_name ? cuda_name : "cuda"}};
    printf("## bench_atomics: CUDA C atomics translated for OpenCL against "
           "native CUDA\n\n");
    for (int k = 0; k < 2; ++k) {
        bool ok = side_open(&sides[k], x, sum, bytes, bins);
        printf("- %s: %s%s\n", sides[k].backend,
               ok ? sides[k].device.name : "left out: ",
               ok ? "" : sides[k].why);
    }
    printf("\n");
    bool have[2] = {sides[0].why[0] == '\0', sides[1].why[0] == '\0'};
    if (!have[0] && !have[1])
        return BENCH_EXIT_SKIPPED;

    static const struct {
        const char *what, *size;
        double budget;
    } rows[2] = {
        {"sum of squares, a float atomicAdd per thread (PyCUDA tutorial)",
         "4000 x 4000 floats", 1.5},
        {"histogram of bytes, shared-memory atomics (CUDA by Example)",
         "64 MiB, 256 bins", 1.2},
    };
    bench_table_begin("CUDA C on NVIDIA's OpenCL (translated) and on the CUDA "
                      "backend (native)",
                      "CUDA backend");
    for (int w = 0; w < 2; ++w) {
        atomics_run runs[2] = {{&sides[0], w}, {&sides[1], w}};
        bench_variant variants[2];
        size_t count = 0;
        for (int k = 0; k < 2; ++k)
            if (have[k])
                variants[count++] = (bench_variant){sides[k].backend,
                                                    run_timed, &runs[k], {0}};
        bench_measure(variants, count, 1, 5, 30, bench_budget(3.0));
        bench_stats stats[2] = {{0}, {0}};
        for (size_t v = 0, k = 0; k < 2; ++k)
            if (have[k])
                stats[k] = bench_stats_of(&variants[v++].samples);
        char opencl[96] = "—", cuda[96] = "—", ratio[64] = "—", budget[32];
        if (have[0])
            bench_format_time(opencl, sizeof opencl, &stats[0]);
        if (have[1])
            bench_format_time(cuda, sizeof cuda, &stats[1]);
        else
            snprintf(cuda, sizeof cuda, "left out");
        if (have[0] && have[1])
            snprintf(ratio, sizeof ratio, "%.2fx",
                     stats[0].median / stats[1].median);
        snprintf(budget, sizeof budget, "<= %.1fx", rows[w].budget);
        bench_table_row(rows[w].what, rows[w].size, opencl, cuda, ratio, budget,
                        have[0] && have[1]
                            ? bench_judge(&stats[0], &stats[1], rows[w].budget, 0)
                            : "—");
        for (size_t v = 0; v < count; ++v)
            bench_samples_free(&variants[v].samples);
    }
    bench_table_end();
    bench_note("Kiln column: %s through the OpenCL backend (%s); the kernels "
               "are the same CUDA C text on both sides, timed by Kiln events "
               "over back-to-back launches.",
               have[0] ? sides[0].device.name : "OpenCL",
               have[0] ? sides[0].device.platform : "");
    for (int k = 0; k < 2; ++k)
        if (have[k])
            side_close(&sides[k]);
    free(x);
    free(bytes);
    return 0;
}
