/*
 * bench_kernels — does a kernel run as fast through Kiln as the same
 * algorithm written natively?  Budget: an OpenCL C kernel through the
 * compatibility layer within 3% of the same kernel written in CUDA C; the
 * sum of squares at 85% or more of the device's copy bandwidth.
 *
 * Work (bench_kernels_source.h): the sum of squares of 16 M floats (one
 * pass; the last work-group adds the partials), SAXPY over 16 M floats and SGEMM of 2048 x 2048 matrices.  Each
 * runs as (a) OpenCL C through Kiln, (b) the same algorithm in CUDA C
 * through Kiln (natively on the CUDA backend; on OpenCL translated to
 * OpenCL C by Kiln, budget: within 5% of the hand-written OpenCL C), (c)
 * that CUDA C through the raw driver API (NVRTC + cuModuleLoadData +
 * cuLaunchKernel); on OpenCL, (c) is the hand-written OpenCL C through the
 * raw OpenCL API.  Every result is checked against the
 * CPU (double precision) before anything is timed.
 *
 * Timing: CUDA, device events around `iterations` back-to-back runs, the
 * GPU kept busy by one untimed run queued first (so the start event does
 * not wait for the host); OpenCL, the host clock from an idle queue to the
 * end of the runs.  The sum of squares rotates over three input arrays so
 * that no run finds its input in the cache.  The device's copy bandwidth
 * (read + write bytes) is measured in the same run, through Kiln and raw.
 */
#include "bench_util.h"

#include "bench_kernels_source.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum side_kind {
    SIDE_KILN_OPENCL_C,
    SIDE_KILN_CUDA_C,
    SIDE_RAW
} side_kind;

/* One way of running the kernels. */
typedef struct side {
    side_kind kind;
    const char *name;
    /* Why this side is left out ("" while it works): a build that failed, a
     * launch Kiln refused, a wrong result.  The others still run. */
    char failure[768];
    kiln_program *program;
    kiln_kernel *sumsq, *saxpy, *sgemm;
    kiln_event *start, *end;
#ifdef KILN_BENCH_CUDA
    CUmodule module;
    CUfunction cu_sumsq, cu_saxpy, cu_sgemm;
    CUevent cu_start, cu_end;
#endif
#ifdef KILN_BENCH_OPENCL
    cl_program cl_program;
    cl_kernel cl_sumsq, cl_saxpy, cl_sgemm;
#endif
} side;

#define INPUT_SETS 3

typedef struct problem {
    bench_env *env;
    size_t n;                 /* floats in the reduction and SAXPY */
    unsigned groups;          /* work-groups of the reduction */
    unsigned dim;             /* SGEMM: dim x dim matrices */
    float a;                  /* SAXPY's factor */
    /* done: the reduction's count of finished groups, zero between runs */
    kiln_buffer *x[INPUT_SETS], *partial, *done, *result, *y, *A, *B, *C;
#ifdef KILN_BENCH_CUDA
    CUdeviceptr x_pointer[INPUT_SETS], partial_pointer, done_pointer,
        result_pointer,
        y_pointer, A_pointer, B_pointer, C_pointer;
#endif
#ifdef KILN_BENCH_OPENCL
    cl_mem x_memory[INPUT_SETS], partial_memory, done_memory, result_memory,
        y_memory,
        A_memory, B_memory, C_memory;
#endif
} problem;

typedef enum work { WORK_REDUCE, WORK_SAXPY, WORK_SGEMM } work;

/* ---- one run of a piece of work on one side ------------------------------ */

static kiln_status kiln_run(const problem *p, const side *s, work w,
                            int set)
{
    kiln_status status = KILN_OK;
    switch (w) {
    case WORK_REDUCE: {
        const kiln_launch_config config = {
            .grid = KILN_DIM1(p->groups),
            .block = KILN_DIM1(BENCH_REDUCE_THREADS)};
        const kiln_arg args[] = {KILN_ARG_BUFFER(p->x[set]),
                                 KILN_ARG_UINT((uint32_t)(p->n / 4)),
                                 KILN_ARG_BUFFER(p->partial),
                                 KILN_ARG_BUFFER(p->done),
                                 KILN_ARG_BUFFER(p->result)};
        status = kiln_launch(s->sumsq, &config, 5, args);
        break;
    }
    case WORK_SAXPY: {
        const kiln_launch_config config = {
            .grid = KILN_DIM1(p->n / 256), .block = KILN_DIM1(256)};
        const kiln_arg args[] = {KILN_ARG_UINT((uint32_t)p->n),
                                 KILN_ARG_FLOAT(p->a), KILN_ARG_BUFFER(p->x[0]),
                                 KILN_ARG_BUFFER(p->y)};
        status = kiln_launch(s->saxpy, &config, 4, args);
        break;
    }
    case WORK_SGEMM: {
        size_t blocks = p->dim / BENCH_SGEMM_TILE;
        const kiln_launch_config config = {
            .grid = KILN_DIM2(blocks, blocks),
            .block = KILN_DIM2(BENCH_SGEMM_BLOCK, BENCH_SGEMM_BLOCK)};
        const kiln_arg args[] = {KILN_ARG_UINT(p->dim), KILN_ARG_UINT(p->dim),
                                 KILN_ARG_BUFFER(p->A), KILN_ARG_BUFFER(p->B),
                                 KILN_ARG_BUFFER(p->C)};
        status = kiln_launch(s->sgemm, &config, 5, args);
        break;
    }
    }
    return status;
}

#ifdef KILN_BENCH_CUDA
static void cuda_run(const problem *p, const side *s, work w, int set)
{
    unsigned n4 = (unsigned)(p->n / 4), n = (unsigned)p->n, dim = p->dim;
    unsigned groups = p->groups;
    float a = p->a;
    switch (w) {
    case WORK_REDUCE: {
        void *args[] = {(void *)&p->x_pointer[set], &n4,
                        (void *)&p->partial_pointer, (void *)&p->done_pointer,
                        (void *)&p->result_pointer};
        CU_CHECK(cu.cuLaunchKernel(s->cu_sumsq, groups, 1, 1,
                                   BENCH_REDUCE_THREADS, 1, 1, 0, NULL, args,
                                   NULL));
        break;
    }
    case WORK_SAXPY: {
        void *args[] = {&n, &a, (void *)&p->x_pointer[0],
                        (void *)&p->y_pointer};
        CU_CHECK(cu.cuLaunchKernel(s->cu_saxpy, n / 256, 1, 1, 256, 1, 1, 0,
                                   NULL, args, NULL));
        break;
    }
    case WORK_SGEMM: {
        unsigned blocks = dim / BENCH_SGEMM_TILE;
        void *args[] = {&dim, &dim, (void *)&p->A_pointer,
                        (void *)&p->B_pointer, (void *)&p->C_pointer};
        CU_CHECK(cu.cuLaunchKernel(s->cu_sgemm, blocks, blocks, 1,
                                   BENCH_SGEMM_BLOCK, BENCH_SGEMM_BLOCK, 1, 0,
                                   NULL, args, NULL));
        break;
    }
    }
}
#endif

#ifdef KILN_BENCH_OPENCL
static void opencl_run(const problem *p, const side *s, work w, int set)
{
    cl_command_queue queue = p->env->cl_queue;
    cl_uint n4 = (cl_uint)(p->n / 4), n = (cl_uint)p->n, dim = p->dim;
    cl_uint groups = p->groups;
    switch (w) {
    case WORK_REDUCE: {
        CL_CHECK(clSetKernelArg(s->cl_sumsq, 0, sizeof(cl_mem),
                                &p->x_memory[set]));
        CL_CHECK(clSetKernelArg(s->cl_sumsq, 1, sizeof n4, &n4));
        CL_CHECK(clSetKernelArg(s->cl_sumsq, 2, sizeof(cl_mem),
                                &p->partial_memory));
        CL_CHECK(clSetKernelArg(s->cl_sumsq, 3, sizeof(cl_mem),
                                &p->done_memory));
        CL_CHECK(clSetKernelArg(s->cl_sumsq, 4, sizeof(cl_mem),
                                &p->result_memory));
        size_t local = BENCH_REDUCE_THREADS, global = groups * local;
        CL_CHECK(clEnqueueNDRangeKernel(queue, s->cl_sumsq, 1, NULL, &global,
                                        &local, 0, NULL, NULL));
        break;
    }
    case WORK_SAXPY: {
        CL_CHECK(clSetKernelArg(s->cl_saxpy, 0, sizeof n, &n));
        CL_CHECK(clSetKernelArg(s->cl_saxpy, 1, sizeof p->a, &p->a));
        CL_CHECK(clSetKernelArg(s->cl_saxpy, 2, sizeof(cl_mem),
                                &p->x_memory[0]));
        CL_CHECK(clSetKernelArg(s->cl_saxpy, 3, sizeof(cl_mem), &p->y_memory));
        size_t local = 256, global = p->n;
        CL_CHECK(clEnqueueNDRangeKernel(queue, s->cl_saxpy, 1, NULL, &global,
                                        &local, 0, NULL, NULL));
        break;
    }
    case WORK_SGEMM: {
        CL_CHECK(clSetKernelArg(s->cl_sgemm, 0, sizeof dim, &dim));
        CL_CHECK(clSetKernelArg(s->cl_sgemm, 1, sizeof dim, &dim));
        CL_CHECK(clSetKernelArg(s->cl_sgemm, 2, sizeof(cl_mem), &p->A_memory));
        CL_CHECK(clSetKernelArg(s->cl_sgemm, 3, sizeof(cl_mem), &p->B_memory));
        CL_CHECK(clSetKernelArg(s->cl_sgemm, 4, sizeof(cl_mem), &p->C_memory));
        size_t local[2] = {BENCH_SGEMM_BLOCK, BENCH_SGEMM_BLOCK};
        size_t global[2] = {
            dim / BENCH_SGEMM_TILE * BENCH_SGEMM_BLOCK,
            dim / BENCH_SGEMM_TILE * BENCH_SGEMM_BLOCK};
        CL_CHECK(clEnqueueNDRangeKernel(queue, s->cl_sgemm, 2, NULL, global,
                                        local, 0, NULL, NULL));
        break;
    }
    }
}
#endif

/* Kiln's status for Kiln's sides; the raw API's errors stop the program. */
static kiln_status run_checked(const problem *p, const side *s, work w,
                               int set)
{
    if (s->kind != SIDE_RAW)
        return kiln_run(p, s, w, set);
#ifdef KILN_BENCH_CUDA
    if (p->env->cuda) {
        cuda_run(p, s, w, set);
        return KILN_OK;
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (p->env->opencl) {
        opencl_run(p, s, w, set);
        return KILN_OK;
    }
#endif
    bench_fail("no raw side for backend %s", p->env->backend);
}

static void run_once(const problem *p, const side *s, work w, int set)
{
    BENCH_CHECK(run_checked(p, s, w, set));
}

static void side_synchronize(const problem *p, const side *s)
{
    if (s->kind != SIDE_RAW) {
        BENCH_CHECK(kiln_stream_synchronize(p->env->default_stream));
        return;
    }
#ifdef KILN_BENCH_CUDA
    if (p->env->cuda)
        CU_CHECK(cu.cuStreamSynchronize(NULL));
#endif
#ifdef KILN_BENCH_OPENCL
    if (p->env->opencl)
        CL_CHECK(clFinish(p->env->cl_queue));
#endif
}

/* ---- timing ---------------------------------------------------------------- */

typedef struct timed {
    problem *p;
    side *s;
    work w;
    size_t iterations;
    unsigned next_set;
} timed;

static bool device_events(const problem *p)
{
    return p->env->cuda;
}

static void event_record(const problem *p, const side *s, bool start)
{
    (void)p;
    if (s->kind != SIDE_RAW) {
        BENCH_CHECK(kiln_event_record(start ? s->start : s->end, NULL));
        return;
    }
#ifdef KILN_BENCH_CUDA
    CU_CHECK(cu.cuEventRecord(start ? s->cu_start : s->cu_end, NULL));
#endif
}

static double event_seconds(const problem *p, const side *s)
{
    (void)p;
    float milliseconds = 0.0f;
    if (s->kind != SIDE_RAW) {
        BENCH_CHECK(kiln_event_elapsed(s->start, s->end, &milliseconds));
        return 1e-3 * milliseconds;
    }
#ifdef KILN_BENCH_CUDA
    CU_CHECK(cu.cuEventSynchronize(s->cu_end));
    CU_CHECK(cu.cuEventElapsedTime(&milliseconds, s->cu_start, s->cu_end));
#endif
    return 1e-3 * milliseconds;
}

/* Seconds per run. */
static double sample_work(void *state)
{
    timed *t = state;
    if (device_events(t->p)) {
        run_once(t->p, t->s, t->w, (int)(t->next_set++ % INPUT_SETS));
        event_record(t->p, t->s, true);
        for (size_t i = 0; i < t->iterations; ++i)
            run_once(t->p, t->s, t->w, (int)(t->next_set++ % INPUT_SETS));
        event_record(t->p, t->s, false);
        return event_seconds(t->p, t->s) / (double)t->iterations;
    }
    side_synchronize(t->p, t->s);
    double start = bench_now();
    for (size_t i = 0; i < t->iterations; ++i)
        run_once(t->p, t->s, t->w, (int)(t->next_set++ % INPUT_SETS));
    side_synchronize(t->p, t->s);
    return (bench_now() - start) / (double)t->iterations;
}

/* Device-to-device copies of `bytes`, Kiln or raw: seconds per copy. */
typedef struct copy_timed {
    problem *p;
    side *s;
    kiln_buffer *from, *to;
    size_t bytes;
    size_t iterations;
#ifdef KILN_BENCH_CUDA
    CUdeviceptr from_pointer, to_pointer;
#endif
#ifdef KILN_BENCH_OPENCL
    cl_mem from_memory, to_memory;
#endif
} copy_timed;

static void copy_once(const copy_timed *c)
{
    if (c->s->kind != SIDE_RAW) {
        BENCH_CHECK(kiln_buffer_copy_async(c->to, 0, c->from, 0, c->bytes,
                                           NULL));
        return;
    }
#ifdef KILN_BENCH_CUDA
    if (c->p->env->cuda) {
        CU_CHECK(cu.cuMemcpyDtoDAsync(c->to_pointer, c->from_pointer,
                                      c->bytes, NULL));
        return;
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (c->p->env->opencl) {
        CL_CHECK(clEnqueueCopyBuffer(c->p->env->cl_queue, c->from_memory,
                                     c->to_memory, 0, 0, c->bytes, 0, NULL,
                                     NULL));
        return;
    }
#endif
}

static double sample_copy(void *state)
{
    copy_timed *c = state;
    if (device_events(c->p)) {
        copy_once(c);
        event_record(c->p, c->s, true);
        for (size_t i = 0; i < c->iterations; ++i)
            copy_once(c);
        event_record(c->p, c->s, false);
        return event_seconds(c->p, c->s) / (double)c->iterations;
    }
    side_synchronize(c->p, c->s);
    double start = bench_now();
    for (size_t i = 0; i < c->iterations; ++i)
        copy_once(c);
    side_synchronize(c->p, c->s);
    return (bench_now() - start) / (double)c->iterations;
}

/* ---- correctness --------------------------------------------------------------- */

static double relative_error(const double *got, const double *expected,
                             size_t count)
{
    double error = 0.0, norm = 0.0;
    for (size_t i = 0; i < count; ++i) {
        if (isnan(got[i]))
            return INFINITY;
        double difference = got[i] - expected[i];
        error += difference * difference;
        norm += expected[i] * expected[i];
    }
    return sqrt(error / norm);
}

typedef struct reference {
    double sum_squares[INPUT_SETS];
    float *x0, *y0;           /* SAXPY's inputs (x0 is input set 0) */
    float *A, *B;
    size_t samples;           /* SGEMM entries checked */
    unsigned *rows, *cols;
    double *c_expected;
} reference;

/* Records why the side is left out; false. */
static bool side_failed(side *s, const char *format, ...)
    BENCH_PRINTF_LIKE(2, 3);
static bool side_failed(side *s, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(s->failure, sizeof s->failure, format, args);
    va_end(args);
    /* Table cells are one line: no newlines or pipes from build logs. */
    for (char *c = s->failure; *c != '\0'; ++c)
        if (*c == '\n' || *c == '|')
            *c = ' ';
    bench_progress("%s left out: %s", s->name, s->failure);
    return false;
}

/* One checked run: Kiln's refusal is the side's failure. */
static bool check_run(problem *p, side *s, work w, int set)
{
    side_synchronize(p, s);
    kiln_status status = run_checked(p, s, w, set);
    if (status != KILN_OK)
        return side_failed(s, "launch failed with %s: %s",
                           kiln_status_name(status), kiln_last_error());
    status = s->kind != SIDE_RAW
                 ? kiln_stream_synchronize(p->env->default_stream)
                 : KILN_OK;
    if (status != KILN_OK)
        return side_failed(s, "the kernel failed with %s: %s",
                           kiln_status_name(status), kiln_last_error());
    side_synchronize(p, s);
    return true;
}

static bool check_side(problem *p, side *s, const reference *ref)
{
    const float nan_value = NAN;
    const uint32_t zero = 0;
    /* Sum of squares over every input set; the kernel must leave its count
     * of finished groups at zero for the next run. */
    for (int set = 0; set < INPUT_SETS; ++set) {
        BENCH_CHECK(kiln_buffer_fill(p->result, 0, sizeof(float), &nan_value,
                                     sizeof nan_value));
        BENCH_CHECK(kiln_buffer_fill(p->done, 0, sizeof zero, &zero,
                                     sizeof zero));
        if (!check_run(p, s, WORK_REDUCE, set))
            return false;
        float sum = 0.0f;
        uint32_t done = 1;
        BENCH_CHECK(kiln_buffer_read(p->result, 0, &sum, sizeof sum));
        BENCH_CHECK(kiln_buffer_read(p->done, 0, &done, sizeof done));
        if (done != 0)
            return side_failed(s,
                               "WRONG RESULT: the sum of squares left its "
                               "count of finished groups at %u, not 0",
                               (unsigned)done);
        double got = sum;
        double error = relative_error(&got, &ref->sum_squares[set], 1);
        if (!(error < 1e-4))
            return side_failed(s,
                               "WRONG RESULT: sum of squares of input %d is "
                               "%.9g, the CPU's %.9g (relative error %.3g)",
                               set, got, ref->sum_squares[set], error);
    }
    /* SAXPY from fresh y: every element. */
    size_t bytes = p->n * sizeof(float);
    BENCH_CHECK(kiln_buffer_write(p->y, 0, ref->y0, bytes));
    if (!check_run(p, s, WORK_SAXPY, 0))
        return false;
    float *y = bench_malloc(bytes);
    BENCH_CHECK(kiln_buffer_read(p->y, 0, y, bytes));
    double error = 0.0, norm = 0.0;
    size_t nans = 0;
    for (size_t i = 0; i < p->n; ++i) {
        double expected = (double)p->a * ref->x0[i] + ref->y0[i];
        double difference = (double)y[i] - expected;
        nans += isnan(y[i]) != 0;
        error += difference * difference;
        norm += expected * expected;
    }
    free(y);
    if (nans > 0 || !(sqrt(error / norm) < 1e-6))
        return side_failed(s,
                           "WRONG RESULT: SAXPY relative error %.3g (%zu NaN)",
                           sqrt(error / norm), nans);
    /* SGEMM into a poisoned C: every entry written, sampled entries right. */
    size_t c_count = (size_t)p->dim * p->dim;
    BENCH_CHECK(kiln_buffer_fill(p->C, 0, c_count * sizeof(float), &nan_value,
                                 sizeof nan_value));
    if (!check_run(p, s, WORK_SGEMM, 0))
        return false;
    float *c = bench_malloc(c_count * sizeof(float));
    BENCH_CHECK(kiln_buffer_read(p->C, 0, c, c_count * sizeof(float)));
    size_t unwritten = 0;
    for (size_t i = 0; i < c_count; ++i)
        unwritten += isnan(c[i]) != 0;
    double *got = bench_malloc(ref->samples * sizeof(double));
    for (size_t i = 0; i < ref->samples; ++i)
        got[i] = c[(size_t)ref->rows[i] * p->dim + ref->cols[i]];
    error = relative_error(got, ref->c_expected, ref->samples);
    free(got);
    free(c);
    if (unwritten > 0)
        return side_failed(s, "WRONG RESULT: SGEMM left %zu entries of C "
                              "unwritten (NaN)",
                           unwritten);
    if (!(error < 1e-4))
        return side_failed(s,
                           "WRONG RESULT: SGEMM relative error %.3g on %zu "
                           "sampled entries",
                           error, ref->samples);
    return true;
}

/* ---- sides ----------------------------------------------------------------------- */

/* False (with s->failure) when Kiln cannot build the program or find its
 * kernels. */
static bool side_open(problem *p, side *s)
{
    bench_env *env = p->env;
    if (s->kind != SIDE_RAW) {
        BENCH_CHECK(kiln_event_create(env->context, &s->start));
        BENCH_CHECK(kiln_event_create(env->context, &s->end));
        kiln_build_options options = {
            .language = s->kind == SIDE_KILN_CUDA_C ? KILN_LANGUAGE_CUDA_C
                                                    : KILN_LANGUAGE_OPENCL_C,
            .source_name = "bench_kernels"};
        kiln_status status = kiln_program_build_with(
            env->context,
            s->kind == SIDE_KILN_CUDA_C ? bench_cuda_source
                                        : bench_opencl_source,
            0, &options, &s->program);
        if (status != KILN_OK)
            return side_failed(s, "the build failed with %s: %.600s",
                               kiln_status_name(status), kiln_last_error());
        static const char *const names[] = {"sumsq", "saxpy", "sgemm"};
        kiln_kernel **kernels[] = {&s->sumsq, &s->saxpy, &s->sgemm};
        for (size_t i = 0; i < 3; ++i) {
            status = kiln_kernel_create(s->program, names[i], kernels[i]);
            if (status != KILN_OK)
                return side_failed(s, "kiln_kernel_create(%s) failed with "
                                      "%s: %s",
                                   names[i], kiln_status_name(status),
                                   kiln_last_error());
        }
        return true;
    }
#ifdef KILN_BENCH_CUDA
    if (env->cuda) {
        s->module = bench_cuda_module(env, bench_cuda_source,
                                      "bench_kernels.cu");
        s->cu_sumsq = bench_cuda_function(s->module, "sumsq");
        s->cu_saxpy = bench_cuda_function(s->module, "saxpy");
        s->cu_sgemm = bench_cuda_function(s->module, "sgemm");
        CU_CHECK(cu.cuEventCreate(&s->cu_start, CU_EVENT_DEFAULT));
        CU_CHECK(cu.cuEventCreate(&s->cu_end, CU_EVENT_DEFAULT));
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (env->opencl) {
        s->cl_program = bench_cl_program(env, bench_opencl_source, NULL);
        cl_int error = CL_SUCCESS;
        s->cl_sumsq = clCreateKernel(s->cl_program, "sumsq", &error);
        CL_CHECK(error);
        s->cl_saxpy = clCreateKernel(s->cl_program, "saxpy", &error);
        CL_CHECK(error);
        s->cl_sgemm = clCreateKernel(s->cl_program, "sgemm", &error);
        CL_CHECK(error);
    }
#endif
    return true;
}

static void side_close(problem *p, side *s)
{
    (void)p;
    if (s->kind != SIDE_RAW) {
        kiln_kernel *kernels[] = {s->sumsq, s->saxpy, s->sgemm};
        for (size_t i = 0; i < 3; ++i)
            if (kernels[i] != NULL)
                BENCH_CHECK(kiln_kernel_release(kernels[i]));
        if (s->program != NULL)
            BENCH_CHECK(kiln_program_release(s->program));
        BENCH_CHECK(kiln_event_release(s->start));
        BENCH_CHECK(kiln_event_release(s->end));
        return;
    }
#ifdef KILN_BENCH_CUDA
    if (p->env->cuda) {
        CU_CHECK(cu.cuEventDestroy(s->cu_start));
        CU_CHECK(cu.cuEventDestroy(s->cu_end));
        CU_CHECK(cu.cuModuleUnload(s->module));
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (p->env->opencl) {
        CL_CHECK(clReleaseKernel(s->cl_sumsq));
        CL_CHECK(clReleaseKernel(s->cl_saxpy));
        CL_CHECK(clReleaseKernel(s->cl_sgemm));
        CL_CHECK(clReleaseProgram(s->cl_program));
    }
#endif
}

static void problem_natives(problem *p)
{
    if (!p->env->raw)
        return;
#ifdef KILN_BENCH_CUDA
    if (p->env->cuda) {
        for (int i = 0; i < INPUT_SETS; ++i)
            p->x_pointer[i] = bench_cuda_pointer(p->x[i]);
        p->partial_pointer = bench_cuda_pointer(p->partial);
        p->done_pointer = bench_cuda_pointer(p->done);
        p->result_pointer = bench_cuda_pointer(p->result);
        p->y_pointer = bench_cuda_pointer(p->y);
        p->A_pointer = bench_cuda_pointer(p->A);
        p->B_pointer = bench_cuda_pointer(p->B);
        p->C_pointer = bench_cuda_pointer(p->C);
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (p->env->opencl) {
        for (int i = 0; i < INPUT_SETS; ++i)
            p->x_memory[i] = bench_cl_mem(p->x[i]);
        p->partial_memory = bench_cl_mem(p->partial);
        p->done_memory = bench_cl_mem(p->done);
        p->result_memory = bench_cl_mem(p->result);
        p->y_memory = bench_cl_mem(p->y);
        p->A_memory = bench_cl_mem(p->A);
        p->B_memory = bench_cl_mem(p->B);
        p->C_memory = bench_cl_mem(p->C);
    }
#endif
}

/* ---- rows -------------------------------------------------------------------------- */

static void row_time(const char *what, const char *size, const bench_stats *k,
                     const bench_stats *r, double budget_ratio)
{
    char kiln_text[96], raw_text[96], compare[32] = "—", budget[48] = "—";
    bench_format_time(kiln_text, sizeof kiln_text, k);
    bench_format_time(raw_text, sizeof raw_text, r);
    bool known = k->count > 0 && r->count > 0 && r->median > 0;
    double ratio = known ? k->median / r->median : 0.0;
    if (known)
        snprintf(compare, sizeof compare, "%.3f×", ratio);
    if (budget_ratio > 0)
        snprintf(budget, sizeof budget, "≤ %.2f× raw", budget_ratio);
    bench_table_row(what, size, kiln_text, raw_text, compare, budget,
                    known && budget_ratio > 0
                        ? bench_judge(k, r, budget_ratio, 0.0)
                        : "—");
}

/* Rates: `units` of work per run (GB, GFLOP), optionally as a fraction of
 * the copy bandwidth. */
static void row_rate(const char *what, const char *size, const bench_stats *k,
                     const bench_stats *r, double units, const char *unit_name,
                     double copy_bandwidth, double budget_fraction,
                     const char *budget_text)
{
    char kiln_text[128], raw_text[128], compare[96] = "—";
    bench_format_rate(kiln_text, sizeof kiln_text, k, units, unit_name);
    bench_format_rate(raw_text, sizeof raw_text, r, units, unit_name);
    double kiln_fraction = 0.0;
    if (copy_bandwidth > 0 && k->count > 0) {
        kiln_fraction = units * 1e9 / k->median / copy_bandwidth;
        if (r->count > 0)
            snprintf(compare, sizeof compare,
                     "%.0f%% / %.0f%% of copy", 100.0 * kiln_fraction,
                     100.0 * units * 1e9 / r->median / copy_bandwidth);
        else
            snprintf(compare, sizeof compare, "%.0f%% of copy",
                     100.0 * kiln_fraction);
    }
    /* At least `budget_fraction` of the copy bandwidth: a time limit. */
    bench_table_row(
        what, size, kiln_text, raw_text, compare,
        budget_text ? budget_text : "—",
        budget_fraction > 0 && copy_bandwidth > 0
            ? bench_judge(k, NULL, 0.0,
                          units * 1e9 / (budget_fraction * copy_bandwidth))
            : "—");
}

int main(int argc, char **argv)
{
    bench_env env;
    bench_open(&env, "bench_kernels: kernels through Kiln against native",
               argc, argv);
    bool quick = bench_quick();
    bool cpu = env.device.type == KILN_DEVICE_CPU;

    problem p = {.env = &env, .a = 0.75f};
    p.n = quick ? (size_t)1 << 20 : (size_t)16 << 20;
    /* 2048 is 17 GFLOP a run: seconds on a CPU device, so 1024 there. */
    p.dim = quick ? 512 : cpu ? 1024 : 2048;
    const char *dim_text = getenv("KILN_BENCH_SGEMM_N");
    if (dim_text != NULL && atoi(dim_text) >= BENCH_SGEMM_TILE)
        p.dim = (unsigned)atoi(dim_text) / BENCH_SGEMM_TILE * BENCH_SGEMM_TILE;
    /* Groups for the reduction: 4 of 256 per compute unit, all resident at
     * once on NVIDIA GPUs (1024 threads of a multiprocessor, each with 16
     * float4 loads in flight), so that the last group's final sum follows
     * the others closely and has few partials to add. */
    p.groups = (unsigned)(env.device.compute_units > 0
                              ? env.device.compute_units * 4
                              : 64);
    if (p.groups > 65535)
        p.groups = 65535;

    /* Inputs, random and never zero, and the CPU's answers in double. */
    bench_progress("preparing inputs (%zu floats x %d, %u x %u matrices)",
                   p.n, INPUT_SETS, p.dim, p.dim);
    bench_rng rng = {UINT64_C(0x5eed)};
    reference ref = {0};
    float *x = bench_malloc(p.n * sizeof(float));
    size_t bytes = p.n * sizeof(float);
    for (int set = 0; set < INPUT_SETS; ++set) {
        bench_random_floats(&rng, x, p.n, -1.0f, 1.0f);
        double sum = 0.0;
        for (size_t i = 0; i < p.n; ++i)
            sum += (double)x[i] * (double)x[i];
        ref.sum_squares[set] = sum;
        BENCH_CHECK(kiln_buffer_create_from(env.context, x, bytes, &p.x[set]));
        if (set == 0) {
            ref.x0 = x;
            x = bench_malloc(bytes);
        }
    }
    free(x);
    ref.y0 = bench_malloc(bytes);
    bench_random_floats(&rng, ref.y0, p.n, -1.0f, 1.0f);
    BENCH_CHECK(kiln_buffer_create(env.context, bytes, &p.y));
    BENCH_CHECK(kiln_buffer_create(env.context, p.groups * sizeof(float),
                                   &p.partial));
    const uint32_t zero = 0;
    BENCH_CHECK(kiln_buffer_create_from(env.context, &zero, sizeof zero,
                                        &p.done));
    BENCH_CHECK(kiln_buffer_create(env.context, sizeof(float), &p.result));
    size_t matrix = (size_t)p.dim * p.dim;
    ref.A = bench_malloc(matrix * sizeof(float));
    ref.B = bench_malloc(matrix * sizeof(float));
    bench_random_floats(&rng, ref.A, matrix, -1.0f, 1.0f);
    bench_random_floats(&rng, ref.B, matrix, -1.0f, 1.0f);
    BENCH_CHECK(kiln_buffer_create_from(env.context, ref.A,
                                        matrix * sizeof(float), &p.A));
    BENCH_CHECK(kiln_buffer_create_from(env.context, ref.B,
                                        matrix * sizeof(float), &p.B));
    BENCH_CHECK(kiln_buffer_create(env.context, matrix * sizeof(float), &p.C));
    ref.samples = 512;
    ref.rows = bench_malloc(ref.samples * sizeof(unsigned));
    ref.cols = bench_malloc(ref.samples * sizeof(unsigned));
    ref.c_expected = bench_malloc(ref.samples * sizeof(double));
    for (size_t i = 0; i < ref.samples; ++i) {
        unsigned row = (unsigned)(bench_rng_next(&rng) % p.dim);
        unsigned col = (unsigned)(bench_rng_next(&rng) % p.dim);
        double dot = 0.0;
        for (unsigned k = 0; k < p.dim; ++k)
            dot += (double)ref.A[(size_t)row * p.dim + k] *
                   (double)ref.B[(size_t)k * p.dim + col];
        ref.rows[i] = row;
        ref.cols[i] = col;
        ref.c_expected[i] = dot;
    }
    problem_natives(&p);

    side sides[3];
    size_t side_count = 0;
    sides[side_count++] = (side){.kind = SIDE_KILN_OPENCL_C,
                                 .name = "OpenCL C through Kiln"};
    size_t cuda_side = 0, raw_side = 0;
    /* CUDA C: natively on CUDA, translated to OpenCL C on OpenCL. */
    cuda_side = side_count;
    sides[side_count++] = (side){
        .kind = SIDE_KILN_CUDA_C,
        .name = env.cuda ? "CUDA C through Kiln"
                         : "CUDA C translated to OpenCL C through Kiln"};
    if (env.raw) {
        raw_side = side_count;
        sides[side_count++] =
            (side){.kind = SIDE_RAW,
                   .name = env.cuda ? "CUDA C through the raw driver API"
                                    : "OpenCL C through the raw OpenCL API"};
    }
    size_t failures = 0;
    for (size_t i = 0; i < side_count; ++i) {
        bench_progress("building and checking: %s", sides[i].name);
        if (!side_open(&p, &sides[i]) || !check_side(&p, &sides[i], &ref))
            ++failures;
    }
    if (failures == 0)
        bench_progress("every result matches the CPU");

    /* The device's copy bandwidth, Kiln and raw, in the same run. */
    size_t copy_bytes = quick ? (size_t)32 << 20
                        : cpu ? (size_t)64 << 20
                              : (size_t)256 << 20;
    while (copy_bytes > ((size_t)1 << 20) &&
           2 * copy_bytes > env.device.global_memory / 4)
        copy_bytes /= 2;
    kiln_buffer *copy_from = NULL, *copy_to = NULL;
    BENCH_CHECK(kiln_buffer_create(env.context, copy_bytes, &copy_from));
    BENCH_CHECK(kiln_buffer_create(env.context, copy_bytes, &copy_to));
    const uint32_t pattern = 0x3F800001u;
    BENCH_CHECK(kiln_buffer_fill(copy_from, 0, copy_bytes, &pattern,
                                 sizeof pattern));
    copy_timed copies[2] = {
        {.p = &p, .s = &sides[0], .from = copy_from, .to = copy_to,
         .bytes = copy_bytes, .iterations = cpu ? 2 : 10},
        {.p = &p, .s = &sides[raw_side], .from = copy_from, .to = copy_to,
         .bytes = copy_bytes, .iterations = cpu ? 2 : 10},
    };
    if (env.raw) {
#ifdef KILN_BENCH_CUDA
        if (env.cuda) {
            copies[1].from_pointer = bench_cuda_pointer(copy_from);
            copies[1].to_pointer = bench_cuda_pointer(copy_to);
        }
#endif
#ifdef KILN_BENCH_OPENCL
        if (env.opencl) {
            copies[1].from_memory = bench_cl_mem(copy_from);
            copies[1].to_memory = bench_cl_mem(copy_to);
        }
#endif
    }
    bench_variant copy_variants[2] = {
        {.name = "kiln copy", .run = sample_copy, .state = &copies[0]},
        {.name = "raw copy", .run = sample_copy, .state = &copies[1]},
    };
    bench_progress("device copy bandwidth");
    bench_measure(copy_variants, env.raw ? 2 : 1, 2, quick ? 5 : 20, 200,
                  bench_budget(1.5));
    bench_stats copy_kiln = bench_stats_of(&copy_variants[0].samples);
    bench_stats copy_raw = bench_stats_of(&copy_variants[1].samples);
    bench_samples_free(&copy_variants[0].samples);
    bench_samples_free(&copy_variants[1].samples);
    /* Bytes read plus bytes written, per second: the reference for the
     * kernels' fractions is the raw copy (Kiln's without a raw side). */
    double copy_bandwidth =
        2.0 * (double)copy_bytes /
        (copy_raw.count ? copy_raw.median : copy_kiln.median);
    BENCH_CHECK(kiln_buffer_release(copy_from));
    BENCH_CHECK(kiln_buffer_release(copy_to));

    /* The kernels: every side alternates within each repetition. */
    static const struct {
        work w;
        const char *name;
        size_t gpu_iterations, cpu_iterations;
        double seconds;
    } works[] = {
        {WORK_REDUCE, "sum of squares", 20, 2, 2.0},
        {WORK_SAXPY, "SAXPY", 10, 2, 2.0},
        {WORK_SGEMM, "SGEMM", 3, 1, 3.0},
    };
    bench_stats results[3][3] = {{{0}}};
    for (size_t wi = 0; wi < 3; ++wi) {
        timed states[3];
        bench_variant variants[3];
        size_t which[3], count = 0;
        for (size_t i = 0; i < side_count; ++i) {
            if (sides[i].failure[0] != '\0')
                continue;
            states[count] = (timed){
                .p = &p, .s = &sides[i], .w = works[wi].w,
                .iterations = cpu ? works[wi].cpu_iterations
                                  : works[wi].gpu_iterations};
            variants[count] = (bench_variant){.name = sides[i].name,
                                              .run = sample_work,
                                              .state = &states[count]};
            which[count++] = i;
        }
        bench_progress("timing %s", works[wi].name);
        bench_measure(variants, count, 2, quick ? 3 : cpu ? 5 : 20,
                      cpu ? 30 : 300,
                      bench_budget(cpu ? 2.0 * works[wi].seconds
                                       : works[wi].seconds));
        for (size_t i = 0; i < count; ++i) {
            results[wi][which[i]] = bench_stats_of(&variants[i].samples);
            bench_samples_free(&variants[i].samples);
        }
    }

    char raw_name[96];
    snprintf(raw_name, sizeof raw_name, "%s",
             !env.raw   ? "unavailable"
             : env.cuda ? "CUDA C, NVRTC + cuLaunchKernel"
                        : "OpenCL C, clEnqueueNDRangeKernel");
    bench_table_begin("Kernels", raw_name);
    char size[64];
    bench_format_bytes(size, sizeof size, copy_bytes);
    static const bench_stats none = {0};
    const bench_stats *raw_copy = env.raw ? &copy_raw : &none;
    {
        char kiln_text[96], raw_text[96], compare[32] = "—";
        double units = 2.0 * (double)copy_bytes / 1e9;
        bench_format_rate(kiln_text, sizeof kiln_text, &copy_kiln, units,
                          "GB/s");
        bench_format_rate(raw_text, sizeof raw_text, raw_copy, units, "GB/s");
        if (raw_copy->count > 0)
            snprintf(compare, sizeof compare, "%.3f×",
                     raw_copy->median / copy_kiln.median);
        bench_table_row("device copy (bytes read + written)", size, kiln_text,
                        raw_text, compare, "—", "—");
    }
    const bench_stats *raw_stats[3];
    for (size_t wi = 0; wi < 3; ++wi)
        raw_stats[wi] = env.raw ? &results[wi][raw_side] : &none;

    bool h100 = strstr(env.device.name, "H100") != NULL;
    const char *names[3] = {"sum of squares", "SAXPY", "SGEMM"};
    char sizes[3][64];
    snprintf(sizes[0], sizeof sizes[0], "%zu M floats", p.n >> 20);
    snprintf(sizes[1], sizeof sizes[1], "%zu M floats", p.n >> 20);
    snprintf(sizes[2], sizeof sizes[2], "%u × %u", p.dim, p.dim);
    double gigabytes[2] = {4.0 * (double)p.n / 1e9, 12.0 * (double)p.n / 1e9};
    double gigaflops = 2.0 * (double)p.dim * p.dim * p.dim / 1e9;
    for (size_t wi = 0; wi < 3; ++wi) {
        char what[160];
        snprintf(what, sizeof what, "%s, OpenCL C through Kiln", names[wi]);
        row_time(what, sizes[wi], &results[wi][0], raw_stats[wi], 1.03);
        if (env.cuda) {
            snprintf(what, sizeof what, "%s, CUDA C through Kiln", names[wi]);
            row_time(what, sizes[wi], &results[wi][cuda_side], raw_stats[wi],
                     1.03);
        } else {
            /* The same CUDA C as the CUDA backend runs, translated: against
             * the hand-written OpenCL C through the raw API. */
            snprintf(what, sizeof what,
                     "%s, CUDA C translated to OpenCL C through Kiln",
                     names[wi]);
            row_time(what, sizes[wi], &results[wi][cuda_side], raw_stats[wi],
                     1.05);
            /* Say what this run could not measure rather than drop it. */
            snprintf(what, sizeof what,
                     "%s, CUDA C through Kiln and through the raw driver API",
                     names[wi]);
            bench_table_row(what, sizes[wi], env.cuda_skipped,
                            env.cuda_skipped, "—", "≤ 1.03× raw CUDA C", "—");
        }
        if (wi < 2) {
            snprintf(what, sizeof what,
                     "%s: bandwidth, OpenCL C through Kiln (vs raw)",
                     names[wi]);
            row_rate(what, sizes[wi], &results[wi][0], raw_stats[wi],
                     gigabytes[wi], "GB/s", copy_bandwidth,
                     wi == 0 && !cpu ? 0.85 : 0.0,
                     wi != 0 ? NULL
                     : cpu   ? "— (a GPU budget: ≥ 85% of copy)"
                     : h100  ? "≥ 85% of copy (≤ 25 µs on H100)"
                             : "≥ 85% of copy");
        } else {
            snprintf(what, sizeof what,
                     "%s: rate, OpenCL C through Kiln (vs raw)", names[wi]);
            row_rate(what, sizes[wi], &results[wi][0], raw_stats[wi],
                     gigaflops, "GFLOP/s", 0.0, 0.0, NULL);
        }
    }
    bench_table_end();
    bench_note("%s. Sum of squares moves %.0f MB per run (read once), SAXPY "
               "%.0f MB (x, y read, y written); their fractions compare with "
               "the device copy's read + write bandwidth, %.0f GB/s. Budgets: "
               "OpenCL C ≤ 1.03× the raw native kernel; CUDA C translated to "
               "OpenCL C ≤ 1.05× the hand-written OpenCL C; sum of squares "
               "≥ 85%% of the copy bandwidth.",
               device_events(&p)
                   ? "Device time from events around back-to-back runs "
                     "(median per run)"
                   : "Host time from an idle queue to the end of "
                     "back-to-back runs (median per run)",
               gigabytes[0] * 1e3, gigabytes[1] * 1e3, copy_bandwidth / 1e9);

    for (size_t i = 0; i < side_count; ++i)
        if (sides[i].failure[0] != '\0')
            bench_note("**%s was left out: %s**", sides[i].name,
                       sides[i].failure);

    for (size_t i = 0; i < side_count; ++i)
        side_close(&p, &sides[i]);
    for (int set = 0; set < INPUT_SETS; ++set)
        BENCH_CHECK(kiln_buffer_release(p.x[set]));
    BENCH_CHECK(kiln_buffer_release(p.y));
    BENCH_CHECK(kiln_buffer_release(p.partial));
    BENCH_CHECK(kiln_buffer_release(p.done));
    BENCH_CHECK(kiln_buffer_release(p.result));
    BENCH_CHECK(kiln_buffer_release(p.A));
    BENCH_CHECK(kiln_buffer_release(p.B));
    BENCH_CHECK(kiln_buffer_release(p.C));
    free(ref.x0);
    free(ref.y0);
    free(ref.A);
    free(ref.B);
    free(ref.rows);
    free(ref.cols);
    free(ref.c_expected);
    bench_close(&env);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
