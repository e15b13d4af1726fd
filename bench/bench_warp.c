/*
 * bench_warp — a shuffle-based block reduction (issue 26, point 8): the
 * NVIDIA blog's deviceReduceKernel (warpReduceSum with __shfl_down_sync,
 * the warps' sums reduced again by warp 0 under `if (wid == 0)`) as CUDA C
 * through Kiln.  Budgets: on OpenCL (PoCL), translated — the warp
 * primitives emulated through shared memory and barriers — within 1.1x of
 * the same reduction hand-written in OpenCL C (a local-memory tree, the
 * way OpenCL C 1.2 without sub-groups writes it); on NVIDIA's OpenCL
 * within 1.1x of the same CUDA C native on the CUDA backend.
 *
 * Each side times `reps` launches back to back between two Kiln events;
 * the sides alternate (bench_measure).  The partial sums are checked
 * against the CPU first (whole numbers: exact in any order).  Contexts:
 * "opencl" (KILN_OPENCL_PLATFORM picks the platform) and
 * KILN_BENCH_WARP_CUDA (default "cuda"); a side that cannot be opened is
 * reported and left out.
 */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char cuda_source[] =
    "__inline__ __device__ float warpReduceSum(float val) {\n"
    "  for (int offset = warpSize/2; offset > 0; offset /= 2)\n"
    "    val += __shfl_down_sync(0xffffffff, val, offset);\n"
    "  return val;\n"
    "}\n"
    "__inline__ __device__ float blockReduceSum(float val) {\n"
    "  __shared__ float shared[32];\n"
    "  int lane = threadIdx.x % warpSize;\n"
    "  int wid = threadIdx.x / warpSize;\n"
    "  val = warpReduceSum(val);\n"
    "  if (lane==0) shared[wid]=val;\n"
    "  __syncthreads();\n"
    "  val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;\n"
    "  if (wid==0) val = warpReduceSum(val);\n"
    "  return val;\n"
    "}\n"
    "__global__ void deviceReduceKernel(const float *in, float* out, int N) {\n"
    "  float sum = 0;\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N;\n"
    "       i += blockDim.x * gridDim.x)\n"
    "    sum += in[i];\n"
    "  sum = blockReduceSum(sum);\n"
    "  if (threadIdx.x==0) out[blockIdx.x]=sum;\n"
    "}\n";

/* The same work in OpenCL C as it is written without sub-groups. */
static const char opencl_source[] =
    "__kernel void reduce_local(__global const float *in,\n"
    "                           __global float *out, int n) {\n"
    "  __local float s[256];\n"
    "  uint t = get_local_id(0), size = get_local_size(0);\n"
    "  float sum = 0;\n"
    "  for (int i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "    sum += in[i];\n"
    "  s[t] = sum;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint stride = size / 2; stride > 0; stride >>= 1) {\n"
    "    if (t < stride) s[t] += s[t + stride];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (t == 0) out[get_group_id(0)] = s[0];\n"
    "}\n";

#define BLOCK 256

typedef struct warp_side {
    const char *name;
    const char *backend;
    int opencl_c;            /* the hand-written OpenCL C                  */
    char why[512];           /* why it is left out, "" while it works       */
    kiln_context *context;
    kiln_device_info device;
    kiln_kernel *kernel;
    kiln_buffer *x, *partial;
    bench_event_side timed;  /* launch(): one reduction                  */
    unsigned blocks;
    int n;
} warp_side;

static void side_fail(warp_side *s, const char *what)
{
    if (s->why[0] == '\0')
        snprintf(s->why, sizeof s->why, "%s: %s", what, kiln_last_error());
}

static kiln_status launch(void *state)
{
    warp_side *s = state;
    kiln_launch_config config = {.grid = KILN_DIM1(s->blocks),
                                 .block = KILN_DIM1(BLOCK)};
    kiln_arg args[] = {KILN_ARG_BUFFER(s->x), KILN_ARG_BUFFER(s->partial),
                       KILN_ARG_INT(s->n)};
    return kiln_launch(s->kernel, &config, 3, args);
}

/* Builds, checks once against the CPU; false (with s->why) when not. */
static bool side_open(warp_side *s, const float *x, int n)
{
    if (kiln_context_create(s->backend, -1, &s->context) != KILN_OK) {
        side_fail(s, "no context");
        return false;
    }
    BENCH_CHECK(kiln_context_get_device_info(s->context, &s->device));
    kiln_build_options options = {.language = s->opencl_c
                                                  ? KILN_LANGUAGE_OPENCL_C
                                                  : KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    if (kiln_program_build_with(s->context,
                                s->opencl_c ? opencl_source : cuda_source, 0,
                                &options, &program) != KILN_OK ||
        kiln_kernel_create(program, s->opencl_c ? "reduce_local"
                                                : "deviceReduceKernel",
                           &s->kernel) != KILN_OK) {
        side_fail(s, "build");
        return false;
    }
    kiln_program_release(program);
    s->n = n;
    unsigned units = s->device.compute_units > 0 ? (unsigned)s->device.compute_units : 1;
    s->blocks = s->device.type == KILN_DEVICE_GPU ? units * 16 : units * 4;
    BENCH_CHECK(kiln_buffer_create_from(s->context, x, (size_t)n * sizeof *x,
                                        &s->x));
    BENCH_CHECK(kiln_buffer_create(s->context, s->blocks * sizeof(float),
                                   &s->partial));
    BENCH_CHECK(kiln_event_create(s->context, &s->timed.start));
    BENCH_CHECK(kiln_event_create(s->context, &s->timed.end));
    s->timed.launch = launch;
    s->timed.state = s;
    if (launch(s) != KILN_OK) {
        side_fail(s, "launch");
        return false;
    }
    float *partial = bench_malloc(s->blocks * sizeof *partial);
    BENCH_CHECK(kiln_buffer_read(s->partial, 0, partial,
                                 s->blocks * sizeof *partial));
    size_t threads = (size_t)s->blocks * BLOCK;
    for (unsigned b = 0; b < s->blocks && s->why[0] == '\0'; ++b) {
        double expected = 0;
        for (size_t t = (size_t)b * BLOCK; t < (size_t)(b + 1) * BLOCK; ++t)
            for (size_t i = t; i < (size_t)n; i += threads)
                expected += x[i];
        if ((double)partial[b] != expected)
            snprintf(s->why, sizeof s->why, "block %u's sum %.1f, expected %.1f",
                     b, (double)partial[b], expected);
    }
    free(partial);
    s->timed.reps = s->device.type == KILN_DEVICE_GPU ? 50 : 2;
    return s->why[0] == '\0';
}

static void side_close(warp_side *s)
{
    kiln_kernel_release(s->kernel);
    kiln_buffer_release(s->x);
    kiln_buffer_release(s->partial);
    kiln_event_release(s->timed.start);
    kiln_event_release(s->timed.end);
    kiln_context_release(s->context);
}

/* One row: `a` against `b` (the table's raw column), when both opened. */
static void row(const char *what, warp_side *a, warp_side *b, bool have_a,
                bool have_b, double budget)
{
    if (!have_a || !have_b)
        return;
    char size[64];
    snprintf(size, sizeof size, "%d floats, %u x %d threads", a->n, a->blocks,
             BLOCK);
    bench_event_row(what, size, a->name, &a->timed, b->name, &b->timed, budget);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    bench_rng rng = {20261127};
    const int n = 16 << 20;
    float *x = bench_malloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; ++i)
        x[i] = (float)((int)(bench_rng_next(&rng) % 3) - 1);

    const char *cuda_name = getenv("KILN_BENCH_WARP_CUDA");
    warp_side sides[3] = {
        {.name = "CUDA C translated", .backend = "opencl"},
        {.name = "OpenCL C by hand", .backend = "opencl", .opencl_c = 1},
        {.name = "CUDA C native", .backend = cuda_name ? cuda_name : "cuda"},
    };
    printf("## bench_warp: a __shfl_down_sync block reduction\n\n");
    bool have[3];
    for (int k = 0; k < 3; ++k) {
        have[k] = side_open(&sides[k], x, n);
        printf("- %s (%s): %s%s\n", sides[k].name, sides[k].backend,
               have[k] ? sides[k].device.name : "left out: ",
               have[k] ? "" : sides[k].why);
    }
    printf("\n");
    if (!have[0] && !have[2])
        return BENCH_EXIT_SKIPPED;
    bench_table_begin("A shuffle-based reduction, CUDA C translated for OpenCL",
                      "reference");
    row("deviceReduceKernel translated vs a local-memory tree in OpenCL C "
        "(same OpenCL device)",
        &sides[0], &sides[1], have[0], have[1], 1.1);
    if (have[2])
        row("deviceReduceKernel translated on OpenCL vs native on the CUDA "
            "backend",
            &sides[0], &sides[2], have[0], have[2], 1.1);
    bench_table_end();
    bench_note("Kiln column: %s; the warp primitives are emulated through "
               "__shared__ memory and two barriers a call "
               "(translate/cuda_barriers_warp.c).",
               have[0] ? sides[0].device.name : "OpenCL");
    for (int k = 0; k < 3; ++k)
        if (have[k])
            side_close(&sides[k]);
    free(x);
    return 0;
}
