/*
 * bench_launch — what does a kernel launch cost through Kiln, next to the
 * same launch made with the raw vendor API in the same process?
 *
 * Two kernels: an empty one (no arguments: the bare launch path) and SAXPY
 * over 4096 floats (four arguments: the argument checks and layout).
 *  - async launch: the host cost of one asynchronous launch, from batches
 *    of launches timed on the host clock (the queue is drained, untimed,
 *    after each batch): 100,000 launches each way in 20 batches
 *    (KILN_BENCH_LAUNCHES sets the number);
 *  - launch + synchronize: one launch and a wait for it, host clock;
 *  - host In/Out: SAXPY with x as an In array and y as InOut (Kiln copies
 *    them around the launch) against the raw write, write, launch, read;
 *  - the checked mode (KILN_CHECK=bounds): SAXPY launch + synchronize on
 *    guarded buffers with the checks on, against the same without.
 *    (Kiln against Kiln: the raw column holds the unchecked launch.)
 * The raw side is cuLaunchKernel / clEnqueueNDRangeKernel (with
 * clSetKernelArg for every launch, as raw code does), both on a function
 * compiled by the raw API itself and on Kiln's own CUfunction / cl_kernel
 * (kiln_kernel_get_native): the latter isolates Kiln's overhead exactly.
 */
#include "bench_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char opencl_source[] =
    "__kernel void empty(void)\n"
    "{\n"
    "}\n"
    "\n"
    "__kernel void saxpy(int n, float a, __global const float *x,\n"
    "                    __global float *y)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

#ifdef KILN_BENCH_CUDA
static const char cuda_source[] =
    "extern \"C\" __global__ void empty(void)\n"
    "{\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void saxpy(int n, float a, const float *x,\n"
    "                                   float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";
#endif

#define BLOCK 256
#define SAXPY_SMALL 4096
#define SAXPY_LARGE (1 << 20)

/* A kernel launchable through the raw API. */
typedef struct raw_kernel {
#ifdef KILN_BENCH_CUDA
    CUfunction function;
#endif
#ifdef KILN_BENCH_OPENCL
    cl_kernel kernel;
#endif
    int unused;
} raw_kernel;

typedef struct launch_case {
    bench_env *env;
    const char *name;
    bool saxpy;               /* else the empty kernel */
    int n;
    float a;
    kiln_kernel *kernel;
    kiln_buffer *x, *y;       /* device arrays of n floats */
    kiln_launch_config config;
    raw_kernel raw_own;       /* compiled by the raw API */
    raw_kernel raw_kiln;      /* Kiln's own native function */
    size_t batch;             /* launches per async sample */
    /* The buffers' native handles, looked up once: raw code has them. */
#ifdef KILN_BENCH_CUDA
    CUdeviceptr x_pointer, y_pointer;
#endif
#ifdef KILN_BENCH_OPENCL
    cl_mem x_memory, y_memory;
#endif
    /* host In/Out */
    float *x_host, *y_host;
} launch_case;

/* ---- one launch each way ------------------------------------------------ */

static inline void launch_kiln(const launch_case *c)
{
    if (c->saxpy) {
        const kiln_arg args[] = {KILN_ARG_INT(c->n), KILN_ARG_FLOAT(c->a),
                                 KILN_ARG_BUFFER(c->x), KILN_ARG_BUFFER(c->y)};
        BENCH_CHECK(kiln_launch(c->kernel, &c->config, 4, args));
    } else {
        BENCH_CHECK(kiln_launch(c->kernel, &c->config, 0, NULL));
    }
}

static inline void launch_prepared(const launch_case *c)
{
    if (c->saxpy)
        BENCH_CHECK(kiln_launch_prepared(c->kernel, &c->config, "ifPP", c->n,
                                         (double)c->a, c->x, c->y));
    else
        BENCH_CHECK(kiln_launch_prepared(c->kernel, &c->config, ""));
}

static inline void launch_raw(const launch_case *c, const raw_kernel *raw)
{
    const bench_env *env = c->env;
    (void)env;
    (void)raw;
#ifdef KILN_BENCH_CUDA
    if (env->cuda) {
        void *params[4] = {(void *)&c->n, (void *)&c->a,
                           (void *)&c->x_pointer, (void *)&c->y_pointer};
        CU_CHECK(cu.cuLaunchKernel(
            raw->function, (unsigned)c->config.grid.x, 1, 1,
            (unsigned)c->config.block.x, 1, 1, 0, NULL,
            c->saxpy ? params : NULL, NULL));
        return;
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (env->opencl) {
        if (c->saxpy) {
            CL_CHECK(clSetKernelArg(raw->kernel, 0, sizeof c->n, &c->n));
            CL_CHECK(clSetKernelArg(raw->kernel, 1, sizeof c->a, &c->a));
            CL_CHECK(clSetKernelArg(raw->kernel, 2, sizeof c->x_memory,
                                    &c->x_memory));
            CL_CHECK(clSetKernelArg(raw->kernel, 3, sizeof c->y_memory,
                                    &c->y_memory));
        }
        size_t global = c->config.grid.x * c->config.block.x;
        size_t local = c->config.block.x;
        CL_CHECK(clEnqueueNDRangeKernel(env->cl_queue, raw->kernel, 1, NULL,
                                        &global, &local, 0, NULL, NULL));
        return;
    }
#endif
    bench_fail("no raw launch for backend %s", env->backend);
}

static inline void sync_kiln(const launch_case *c)
{
    BENCH_CHECK(kiln_stream_synchronize(c->env->default_stream));
}

static inline void sync_raw(const launch_case *c)
{
    (void)c;
#ifdef KILN_BENCH_CUDA
    if (c->env->cuda) {
        CU_CHECK(cu.cuStreamSynchronize(NULL));
        return;
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (c->env->opencl) {
        CL_CHECK(clFinish(c->env->cl_queue));
        return;
    }
#endif
}

/* ---- samples -------------------------------------------------------------- */

/* Async: seconds of host time per launch over one batch. */
static double async_kiln(void *state)
{
    launch_case *c = state;
    double start = bench_now();
    for (size_t i = 0; i < c->batch; ++i)
        launch_kiln(c);
    double seconds = bench_now() - start;
    sync_kiln(c);
    return seconds / (double)c->batch;
}

static double async_prepared(void *state)
{
    launch_case *c = state;
    double start = bench_now();
    for (size_t i = 0; i < c->batch; ++i)
        launch_prepared(c);
    double seconds = bench_now() - start;
    sync_kiln(c);
    return seconds / (double)c->batch;
}

static double async_raw_own(void *state)
{
    launch_case *c = state;
    double start = bench_now();
    for (size_t i = 0; i < c->batch; ++i)
        launch_raw(c, &c->raw_own);
    double seconds = bench_now() - start;
    sync_raw(c);
    return seconds / (double)c->batch;
}

static double async_raw_kiln(void *state)
{
    launch_case *c = state;
    double start = bench_now();
    for (size_t i = 0; i < c->batch; ++i)
        launch_raw(c, &c->raw_kiln);
    double seconds = bench_now() - start;
    sync_raw(c);
    return seconds / (double)c->batch;
}

/* Round trip: one launch and the wait for it. */
static double round_kiln(void *state)
{
    launch_case *c = state;
    double start = bench_now();
    launch_kiln(c);
    sync_kiln(c);
    return bench_now() - start;
}

static double round_prepared(void *state)
{
    launch_case *c = state;
    double start = bench_now();
    launch_prepared(c);
    sync_kiln(c);
    return bench_now() - start;
}

static double round_raw_own(void *state)
{
    launch_case *c = state;
    double start = bench_now();
    launch_raw(c, &c->raw_own);
    sync_raw(c);
    return bench_now() - start;
}

static double round_raw_kiln(void *state)
{
    launch_case *c = state;
    double start = bench_now();
    launch_raw(c, &c->raw_kiln);
    sync_raw(c);
    return bench_now() - start;
}

/* Host In/Out: x in, y in and out, around one SAXPY launch. */
static void inout_kiln_once(const launch_case *c)
{
    size_t bytes = (size_t)c->n * sizeof(float);
    const kiln_arg args[] = {KILN_ARG_INT(c->n), KILN_ARG_FLOAT(c->a),
                             KILN_ARG_IN(c->x_host, bytes),
                             KILN_ARG_INOUT(c->y_host, bytes)};
    BENCH_CHECK(kiln_launch(c->kernel, &c->config, 4, args));
}

static void inout_prepared_once(const launch_case *c)
{
    size_t bytes = (size_t)c->n * sizeof(float);
    BENCH_CHECK(kiln_launch_prepared(c->kernel, &c->config, "if<=", c->n,
                                     (double)c->a, c->x_host, bytes,
                                     c->y_host, bytes));
}

static void inout_raw_once(const launch_case *c)
{
    size_t bytes = (size_t)c->n * sizeof(float);
    const bench_env *env = c->env;
    (void)env;
    (void)bytes;
#ifdef KILN_BENCH_CUDA
    if (env->cuda) {
        CU_CHECK(cu.cuMemcpyHtoD(c->x_pointer, c->x_host, bytes));
        CU_CHECK(cu.cuMemcpyHtoD(c->y_pointer, c->y_host, bytes));
        launch_raw(c, &c->raw_own);
        CU_CHECK(cu.cuMemcpyDtoH(c->y_host, c->y_pointer, bytes));
        return;
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (env->opencl) {
        CL_CHECK(clEnqueueWriteBuffer(env->cl_queue, c->x_memory, CL_TRUE, 0,
                                      bytes, c->x_host, 0, NULL, NULL));
        CL_CHECK(clEnqueueWriteBuffer(env->cl_queue, c->y_memory, CL_TRUE, 0,
                                      bytes, c->y_host, 0, NULL, NULL));
        launch_raw(c, &c->raw_own);
        CL_CHECK(clEnqueueReadBuffer(env->cl_queue, c->y_memory, CL_TRUE, 0,
                                     bytes, c->y_host, 0, NULL, NULL));
        return;
    }
#endif
    bench_fail("no raw In/Out launch for backend %s", env->backend);
}

static double inout_kiln(void *state)
{
    double start = bench_now();
    inout_kiln_once(state);
    return bench_now() - start;
}

static double inout_prepared(void *state)
{
    double start = bench_now();
    inout_prepared_once(state);
    return bench_now() - start;
}

static double inout_raw(void *state)
{
    double start = bench_now();
    inout_raw_once(state);
    return bench_now() - start;
}

/* ---- correctness ------------------------------------------------------------ */

/* y = a*x + y0 within float rounding (a fused multiply-add or not). */
static void check_saxpy(const char *what, const float *x, const float *y0,
                        const float *y, int n, float a)
{
    double error = 0.0, norm = 0.0;
    for (int i = 0; i < n; ++i) {
        double expected = (double)a * (double)x[i] + (double)y0[i];
        double difference = (double)y[i] - expected;
        if (isnan(y[i]))
            bench_fail("%s: y[%d] is NaN", what, i);
        error += difference * difference;
        norm += expected * expected;
    }
    double relative = sqrt(error / norm);
    if (!(relative < 1e-6))
        bench_fail("%s: relative error %.3g against the CPU", what, relative);
}

typedef enum launch_way { WAY_KILN, WAY_PREPARED, WAY_RAW_OWN, WAY_RAW_KILN } launch_way;

static void check_way(launch_case *c, launch_way way, const char *what,
                      const float *x, const float *y0, float *y)
{
    size_t bytes = (size_t)c->n * sizeof(float);
    BENCH_CHECK(kiln_buffer_write(c->x, 0, x, bytes));
    BENCH_CHECK(kiln_buffer_write(c->y, 0, y0, bytes));
    switch (way) {
    case WAY_KILN:
        launch_kiln(c);
        sync_kiln(c);
        break;
    case WAY_PREPARED:
        launch_prepared(c);
        sync_kiln(c);
        break;
    case WAY_RAW_OWN:
        launch_raw(c, &c->raw_own);
        sync_raw(c);
        break;
    case WAY_RAW_KILN:
        launch_raw(c, &c->raw_kiln);
        sync_raw(c);
        break;
    }
    BENCH_CHECK(kiln_buffer_read(c->y, 0, y, bytes));
    check_saxpy(what, x, y0, y, c->n, c->a);
}

/* ---- rows ------------------------------------------------------------------ */

/* The A/A difference of the group being reported: the noise floor. */
static double noise_floor;

static void row_difference(const char *what, const char *size,
                           const bench_variant *kiln, const bench_variant *raw,
                           double budget_seconds)
{
    bench_stats k = bench_stats_of(&kiln->samples);
    bench_stats r = bench_stats_of(&raw->samples);
    char kiln_text[96], raw_text[96], compare[64] = "—", budget[64] = "—";
    bench_format_time(kiln_text, sizeof kiln_text, &k);
    bench_format_time(raw_text, sizeof raw_text, &r);
    bool known = r.count > 0 && k.count > 0;
    if (known)
        snprintf(compare, sizeof compare, "%+.2f µs",
                 (k.median - r.median) * 1e6);
    if (budget_seconds > 0)
        snprintf(budget, sizeof budget, "≤ +%.2f µs", budget_seconds * 1e6);
    bench_table_row(what, size, kiln_text, raw_text, compare, budget,
                    known && budget_seconds > 0
                        ? bench_judge_floor(&k, &r, 1.0, budget_seconds,
                                            noise_floor)
                        : "—");
}

static void row_ratio(const char *what, const char *size,
                      const bench_variant *kiln, const bench_variant *raw,
                      double budget_ratio)
{
    bench_stats k = bench_stats_of(&kiln->samples);
    bench_stats r = bench_stats_of(&raw->samples);
    char kiln_text[96], raw_text[96], compare[64] = "—", budget[64] = "—";
    bench_format_time(kiln_text, sizeof kiln_text, &k);
    bench_format_time(raw_text, sizeof raw_text, &r);
    bool known = r.count > 0 && k.count > 0 && r.median > 0;
    double ratio = known ? k.median / r.median : 0.0;
    if (known)
        snprintf(compare, sizeof compare, "%.3f×", ratio);
    if (budget_ratio > 0)
        snprintf(budget, sizeof budget, "≤ %.2f× raw", budget_ratio);
    bench_table_row(what, size, kiln_text, raw_text, compare, budget,
                    known && budget_ratio > 0
                        ? bench_judge_floor(&k, &r, budget_ratio, 0.0,
                                            noise_floor)
                        : "—");
}

static const char *raw_launch_name(const bench_env *env)
{
    return env->cuda ? "cuLaunchKernel" : "clSetKernelArg + clEnqueueNDRangeKernel";
}

/* |median(a) - median(b)| of two raw measurements of the same work. */
static double a_a_difference(const bench_variant *a, const bench_variant *b)
{
    bench_stats x = bench_stats_of(&a->samples);
    bench_stats y = bench_stats_of(&b->samples);
    if (x.count == 0 || y.count == 0)
        return 0.0;
    return fabs(x.median - y.median);
}

/* Launches per second, printed under the table. */
static char throughput_notes[1024];

static void measure_async_and_round(launch_case *c, const char *size)
{
    bench_env *env = c->env;
    bool quick = bench_quick();
    /* 100,000 async launches each way (issue 5): seconds even on PoCL. */
    uint64_t launches =
        bench_env_count("KILN_BENCH_LAUNCHES", quick ? 5000 : 100000);
    size_t batches = quick ? 5 : 20;
    if (launches < batches)
        launches = batches;
    c->batch = (size_t)(launches / batches);

    bench_variant async[] = {
        {.name = "kiln", .run = async_kiln, .state = c},
        {.name = "prepared", .run = async_prepared, .state = c},
        {.name = "raw own", .run = async_raw_own, .state = c},
        {.name = "raw kiln fn", .run = async_raw_kiln, .state = c},
    };
    size_t count = env->raw ? 4 : 2;
    bench_progress("%s: async launches, %zu batches of %zu", c->name, batches,
                   c->batch);
    bench_measure(async, count, 2, batches, batches, 0.0);

    bench_variant round[] = {
        {.name = "kiln", .run = round_kiln, .state = c},
        {.name = "prepared", .run = round_prepared, .state = c},
        {.name = "raw own", .run = round_raw_own, .state = c},
        {.name = "raw kiln fn", .run = round_raw_kiln, .state = c},
    };
    bench_progress("%s: launch + synchronize", c->name);
    bench_measure(round, count, 50, quick ? 100 : 1000, 20000,
                  bench_budget(2.0));

    char what[160];
    const char *raw_name = env->cuda ? "cuLaunchKernel" : "clEnqueueNDRangeKernel";
    noise_floor = a_a_difference(&async[3], &async[2]);
    snprintf(what, sizeof what, "%s: async launch, kiln_launch", c->name);
    row_difference(what, size, &async[0], &async[2], 0.3e-6);
    snprintf(what, sizeof what,
             "%s: async launch, kiln_launch vs %s on Kiln's own %s", c->name,
             raw_name, env->cuda ? "CUfunction" : "cl_kernel");
    row_difference(what, size, &async[0], &async[3], 0.3e-6);
    snprintf(what, sizeof what, "%s: async launch, kiln_launch_prepared",
             c->name);
    row_difference(what, size, &async[1], &async[2], 0.3e-6);
    snprintf(what, sizeof what,
             "%s: async launch, noise: raw on Kiln's function vs raw on its "
             "own (A/A)",
             c->name);
    row_difference(what, size, &async[3], &async[2], 0.0);
    noise_floor = a_a_difference(&round[3], &round[2]);
    snprintf(what, sizeof what, "%s: launch + synchronize, kiln_launch",
             c->name);
    row_ratio(what, size, &round[0], &round[2], 1.05);
    snprintf(what, sizeof what,
             "%s: launch + synchronize, kiln_launch_prepared", c->name);
    row_ratio(what, size, &round[1], &round[2], 1.05);
    snprintf(what, sizeof what,
             "%s: launch + synchronize, noise: raw on Kiln's function vs raw "
             "on its own (A/A)",
             c->name);
    row_ratio(what, size, &round[3], &round[2], 0.0);

    bench_stats k = bench_stats_of(&async[0].samples);
    bench_stats r = bench_stats_of(&async[2].samples);
    if (k.median > 0) {
        size_t used = strlen(throughput_notes);
        snprintf(throughput_notes + used, sizeof throughput_notes - used,
                 "%s%s: %.0f launches/s through kiln_launch%s%.0f%s (%zu "
                 "launches each way)",
                 used ? "; " : "", c->name, 1.0 / k.median, r.count ? ", " : "",
                 r.count ? 1.0 / r.median : 0.0, r.count ? " raw" : "",
                 c->batch * async[0].samples.count);
    }
    for (size_t i = 0; i < 4; ++i) {
        bench_samples_free(&async[i].samples);
        bench_samples_free(&round[i].samples);
    }
}

/* Launch + synchronize with the checks on, on buffers made with them on
 * (the switch is per context: on around each timed call, off for the rest
 * of the program). */
static double round_checked(void *state)
{
    launch_case *c = state;
    BENCH_CHECK(kiln_context_set_checks(c->env->context, KILN_CHECK_BOUNDS));
    double start = bench_now();
    launch_kiln(c);
    sync_kiln(c);
    double seconds = bench_now() - start;
    BENCH_CHECK(kiln_context_set_checks(c->env->context, 0));
    return seconds;
}

static void measure_checked(launch_case *c, const char *size)
{
    launch_case checked = *c;
    size_t bytes = (size_t)c->n * sizeof(float);
    BENCH_CHECK(kiln_context_set_checks(c->env->context, KILN_CHECK_BOUNDS));
    BENCH_CHECK(kiln_buffer_create(c->env->context, bytes, &checked.x));
    BENCH_CHECK(kiln_buffer_create(c->env->context, bytes, &checked.y));
    BENCH_CHECK(kiln_context_set_checks(c->env->context, 0));
    BENCH_CHECK(kiln_buffer_copy(checked.x, 0, c->x, 0, bytes));
    BENCH_CHECK(kiln_buffer_copy(checked.y, 0, c->y, 0, bytes));
    bench_variant round[] = {
        {.name = "checked", .run = round_checked, .state = &checked},
        {.name = "unchecked", .run = round_kiln, .state = c},
    };
    bench_progress("%s: launch + synchronize, checked mode", c->name);
    bench_measure(round, 2, 20, bench_quick() ? 100 : 500, 5000,
                  bench_budget(2.0));
    char what[160];
    noise_floor = 0.0;
    snprintf(what, sizeof what,
             "%s: launch + synchronize, checked mode (KILN_CHECK=bounds) vs "
             "unchecked",
             c->name);
    row_ratio(what, size, &round[0], &round[1], 0.0);
    for (size_t i = 0; i < 2; ++i)
        bench_samples_free(&round[i].samples);
    BENCH_CHECK(kiln_buffer_release(checked.x));
    BENCH_CHECK(kiln_buffer_release(checked.y));
}

static void measure_inout(launch_case *c, const char *size)
{
    bench_env *env = c->env;
    bench_variant inout[] = {
        {.name = "kiln", .run = inout_kiln, .state = c},
        {.name = "prepared", .run = inout_prepared, .state = c},
        {.name = "raw", .run = inout_raw, .state = c},
    };
    size_t count = env->raw ? 3 : 2;
    bench_progress("saxpy %s: host In/Out launches", size);
    bench_measure(inout, count, 5, bench_quick() ? 20 : 100, 20000,
                  bench_budget(1.5));
    char what[160];
    noise_floor = 0.0;
    snprintf(what, sizeof what,
             "saxpy: In/Out launch (x In, y InOut), kiln_launch vs write + "
             "write + launch + read");
    row_ratio(what, size, &inout[0], &inout[2], 0.0);
    snprintf(what, sizeof what,
             "saxpy: In/Out launch, kiln_launch_prepared \"if<=\"");
    row_ratio(what, size, &inout[1], &inout[2], 0.0);
    for (size_t i = 0; i < 3; ++i)
        bench_samples_free(&inout[i].samples);
}

/* ---- set-up ------------------------------------------------------------------ */

static void raw_kernels(bench_env *env, launch_case *c, const char *name,
                        void *raw_program)
{
    (void)raw_program;
    (void)name;
    (void)c;
    if (!env->raw)
        return;
#ifdef KILN_BENCH_CUDA
    if (env->cuda) {
        if (c->saxpy) {
            c->x_pointer = bench_cuda_pointer(c->x);
            c->y_pointer = bench_cuda_pointer(c->y);
        }
        c->raw_own.function = bench_cuda_function(*(CUmodule *)raw_program, name);
        BENCH_CHECK(kiln_kernel_get_native(c->kernel, &c->raw_kiln.function,
                                       sizeof c->raw_kiln.function));
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (env->opencl) {
        if (c->saxpy) {
            c->x_memory = bench_cl_mem(c->x);
            c->y_memory = bench_cl_mem(c->y);
        }
        cl_int error = CL_SUCCESS;
        c->raw_own.kernel =
            clCreateKernel(*(cl_program *)raw_program, name, &error);
        CL_CHECK(error);
        BENCH_CHECK(kiln_kernel_get_native(c->kernel, &c->raw_kiln.kernel,
                                       sizeof c->raw_kiln.kernel));
    }
#endif
}

int main(int argc, char **argv)
{
    bench_env env;
    bench_open(&env, "bench_launch: the cost of a kernel launch", argc, argv);

    kiln_program *program = NULL;
    BENCH_CHECK(kiln_program_build(env.context, opencl_source, NULL, &program));
    kiln_kernel *empty = NULL, *saxpy = NULL;
    BENCH_CHECK(kiln_kernel_create(program, "empty", &empty));
    BENCH_CHECK(kiln_kernel_create(program, "saxpy", &saxpy));

    /* The raw side compiles its own program: CUDA C through NVRTC (the same
     * kernels written natively), OpenCL C as it is. */
    void *raw_program = NULL;
#ifdef KILN_BENCH_CUDA
    CUmodule module = NULL;
    if (env.raw && env.cuda) {
        module = bench_cuda_module(&env, cuda_source, "bench_launch.cu");
        raw_program = &module;
    }
#endif
#ifdef KILN_BENCH_OPENCL
    cl_program cl_raw_program = NULL;
    if (env.raw && env.opencl) {
        cl_raw_program = bench_cl_program(&env, opencl_source, NULL);
        raw_program = &cl_raw_program;
    }
#endif

    /* Inputs: random, never zeros. */
    bench_rng rng = {UINT64_C(0x6B696C6E)};
    int large = bench_quick() ? 1 << 16 : SAXPY_LARGE;
    float *x = bench_malloc((size_t)large * sizeof(float));
    float *y0 = bench_malloc((size_t)large * sizeof(float));
    float *y = bench_malloc((size_t)large * sizeof(float));
    bench_random_floats(&rng, x, (size_t)large, -1.0f, 1.0f);
    bench_random_floats(&rng, y0, (size_t)large, -1.0f, 1.0f);
    kiln_buffer *x_device = NULL, *y_device = NULL;
    BENCH_CHECK(kiln_buffer_create(env.context, (size_t)large * sizeof(float),
                                   &x_device));
    BENCH_CHECK(kiln_buffer_create(env.context, (size_t)large * sizeof(float),
                                   &y_device));

    launch_case empty_case = {
        .env = &env,
        .name = "empty kernel",
        .kernel = empty,
        .config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)},
    };
    raw_kernels(&env, &empty_case, "empty", raw_program);
    launch_case saxpy_case = {
        .env = &env,
        .name = "saxpy",
        .saxpy = true,
        .n = SAXPY_SMALL,
        .a = 0.5f,
        .kernel = saxpy,
        .x = x_device,
        .y = y_device,
        .config = {.grid = KILN_DIM1(SAXPY_SMALL / BLOCK),
                   .block = KILN_DIM1(BLOCK)},
    };
    raw_kernels(&env, &saxpy_case, "saxpy", raw_program);

    /* Every way of launching computes the right thing before it is timed. */
    check_way(&saxpy_case, WAY_KILN, "kiln_launch", x, y0, y);
    check_way(&saxpy_case, WAY_PREPARED, "kiln_launch_prepared", x, y0, y);
    if (env.raw) {
        check_way(&saxpy_case, WAY_RAW_OWN, "raw launch", x, y0, y);
        check_way(&saxpy_case, WAY_RAW_KILN, "raw launch of Kiln's kernel", x,
                  y0, y);
    }

    bench_table_begin("Launch overhead",
                      env.raw ? raw_launch_name(&env) : "unavailable");
    measure_async_and_round(&empty_case, "grid 1 × block 1");
    char size[64];
    snprintf(size, sizeof size, "%d floats", SAXPY_SMALL);
    measure_async_and_round(&saxpy_case, size);

    /* Host In/Out, small (overhead) and large (copies). */
    int sizes[2] = {SAXPY_SMALL, large};
    for (int s = 0; s < 2; ++s) {
        launch_case c = saxpy_case;
        c.n = sizes[s];
        c.config.grid = KILN_DIM1((size_t)(c.n + BLOCK - 1) / BLOCK);
        c.x_host = x;
        c.y_host = y;
        size_t bytes = (size_t)c.n * sizeof(float);
        /* Check each way once on fresh inputs. */
        memcpy(y, y0, bytes);
        inout_kiln_once(&c);
        check_saxpy("In/Out kiln_launch", x, y0, y, c.n, c.a);
        memcpy(y, y0, bytes);
        inout_prepared_once(&c);
        check_saxpy("In/Out kiln_launch_prepared", x, y0, y, c.n, c.a);
        if (env.raw) {
            memcpy(y, y0, bytes);
            inout_raw_once(&c);
            check_saxpy("raw write + launch + read", x, y0, y, c.n, c.a);
        }
        /* y changes with every repetition (y += a*x): harmless. */
        snprintf(size, sizeof size, "%d floats", c.n);
        measure_inout(&c, size);
        measure_checked(&c, size);
    }
    bench_table_end();
    bench_note("async launch = host time per launch in batches (queue "
               "drained untimed after each); launch + synchronize and "
               "In/Out = host time per call. Budgets: async ≤ raw + 0.3 µs, "
               "round trip ≤ 1.05× raw. A/A rows compare the raw API with "
               "itself: their difference is the noise floor (a miss smaller "
               "than it, or than two standard errors, is marked \"within "
               "noise\").");
    bench_note("Throughput: %s.", throughput_notes);

#ifdef KILN_BENCH_OPENCL
    if (env.raw && env.opencl) {
        CL_CHECK(clReleaseKernel(empty_case.raw_own.kernel));
        CL_CHECK(clReleaseKernel(saxpy_case.raw_own.kernel));
        CL_CHECK(clReleaseProgram(cl_raw_program));
    }
#endif
#ifdef KILN_BENCH_CUDA
    if (env.raw && env.cuda)
        CU_CHECK(cu.cuModuleUnload(module));
#endif
    BENCH_CHECK(kiln_buffer_release(x_device));
    BENCH_CHECK(kiln_buffer_release(y_device));
    BENCH_CHECK(kiln_kernel_release(empty));
    BENCH_CHECK(kiln_kernel_release(saxpy));
    BENCH_CHECK(kiln_program_release(program));
    free(x);
    free(y0);
    free(y);
    bench_close(&env);
    return EXIT_SUCCESS;
}
