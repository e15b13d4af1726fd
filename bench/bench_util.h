/*
 * bench_util.h — what every Kiln benchmark shares: a monotonic clock,
 * statistics over repeated samples, alternating measurement of several
 * variants, the Markdown table every program prints, and the "raw" side:
 * the vendor API (CUDA driver + NVRTC, or OpenCL) set up on the same device
 * and context as Kiln, so that both sides do the same work in one process.
 *
 * Environment:
 *   KILN_BACKEND        the backend measured (default: Kiln's default).
 *                       KILN_BACKEND=cuda without a usable CUDA device is
 *                       "skipped: no CUDA device" and exit status 77.
 *   KILN_BENCH_QUICK=1  smaller sizes and fewer repetitions (for CI-like
 *                       machines and logic checks)
 *   KILN_BENCH_SCALE=x  multiplies every time budget by x (0.2 .. 20)
 * and, per program, KILN_BENCH_LAUNCHES (bench_launch),
 * KILN_BENCH_COPY_MAX_MB (bench_copy), KILN_BENCH_SGEMM_N (bench_kernels).
 * The defaults on a GPU are the sizes of issue 5; CPU devices (PoCL) get
 * smaller ones so that the whole suite stays within minutes.
 *
 * The raw CUDA code is compiled when the build has CUDA (KILN_BENCH_CUDA);
 * libcuda.so.1 is opened with dlopen at run time rather than linked, so the
 * programs also run (on OpenCL) on machines without the NVIDIA driver.  The
 * raw OpenCL code is compiled when the build has OpenCL (KILN_BENCH_OPENCL).
 */
#ifndef KILN_BENCH_UTIL_H
#define KILN_BENCH_UTIL_H

#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln.h"

#ifdef KILN_BENCH_CUDA
#include <cuda.h>
#include <nvrtc.h>
#endif

#ifdef KILN_BENCH_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif

#if defined(__GNUC__)
#define BENCH_NORETURN __attribute__((noreturn))
#define BENCH_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define BENCH_NORETURN
#define BENCH_PRINTF_LIKE(f, a)
#endif

/* ---- clock, errors, options ------------------------------------------- */

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

/* Prints "bench: <message>" on stderr and exits with status 1. */
BENCH_NORETURN void bench_fail(const char *format, ...) BENCH_PRINTF_LIKE(1, 2);

/* Stops the program when a Kiln call fails, with its status and message. */
#define BENCH_CHECK(call) bench_check_kiln((call), #call, __FILE__, __LINE__)
void bench_check_kiln(kiln_status status, const char *call, const char *file,
                      int line);

/* Progress lines on stderr (the tables go to stdout). */
void bench_progress(const char *format, ...) BENCH_PRINTF_LIKE(1, 2);

bool bench_quick(void);
/* A positive integer from the environment, or `fallback` when unset or
 * not a positive number. */
uint64_t bench_env_count(const char *name, uint64_t fallback);
/* A time budget in seconds, scaled by KILN_BENCH_SCALE. */
double bench_budget(double seconds);

void *bench_malloc(size_t size);
/* The host's physical memory in bytes. */
uint64_t bench_host_memory(void);

/* ---- random inputs ------------------------------------------------------ */

typedef struct bench_rng {
    uint64_t state;
} bench_rng;
uint64_t bench_rng_next(bench_rng *rng);
/* Uniform in [low, high). */
void bench_random_floats(bench_rng *rng, float *out, size_t count, float low,
                         float high);

/* ---- statistics ------------------------------------------------------------ */

typedef struct bench_samples {
    double *values;
    size_t count, capacity;
} bench_samples;

void bench_samples_add(bench_samples *samples, double value);
void bench_samples_free(bench_samples *samples);

typedef struct bench_stats {
    size_t count;
    double min, p10, median, p90, max;
    /* A distribution-free 95% confidence interval of the median (order
     * statistics n/2 -+ 0.98 sqrt(n)): honest for the two-humped timings
     * of shared or sleeping hardware too. */
    double median_low, median_high;
} bench_stats;

/* Percentiles with linear interpolation; all zero for no samples. */
bench_stats bench_stats_of(const bench_samples *samples);

/* ---- alternating measurement --------------------------------------------- */

/* One way of doing the work.  `run` does one repetition and returns its
 * sample (seconds per unit of work, by the variant's own clock: host or
 * device).  Variants measured together alternate within every repetition,
 * in an order that rotates from one repetition to the next, so that drift
 * (clocks, temperature, other load) falls on all of them alike. */
typedef struct bench_variant {
    const char *name;
    double (*run)(void *state);
    void *state;
    bench_samples samples;
} bench_variant;

/* `warmup` untimed repetitions of each, then repetitions until each has
 * at least `min_reps` samples and `seconds` of wall time have passed, or
 * `max_reps` samples. */
void bench_measure(bench_variant *variants, size_t count, size_t warmup,
                   size_t min_reps, size_t max_reps, double seconds);

/* ---- two sides timed by Kiln events ------------------------------------------ */

/* A side whose sample is `reps` launches back to back between two events
 * recorded on the default stream of its context (the device's clock), in
 * seconds per launch. */
typedef struct bench_event_side {
    kiln_status (*launch)(void *state);
    void *state;
    kiln_event *start, *end;
    int reps;
} bench_event_side;

/* bench_variant's `run` for a bench_event_side. */
double bench_event_side_run(void *side);

/* Measures `a` against `b` alternately and writes the table row: `a` in
 * the Kiln column, `b` in the raw one, their ratio against `budget`. */
void bench_event_row(const char *what, const char *size, const char *a_name,
                     bench_event_side *a, const char *b_name,
                     bench_event_side *b, double budget);

/* ---- text ------------------------------------------------------------------ */

/* "4 KiB", "1 MiB", "1 GiB", or the plain number of bytes. */
void bench_format_bytes(char *out, size_t size, uint64_t bytes);
/* "3.12 µs (2.98–3.40)": median, then p10–p90, scaled to ns/µs/ms/s by the
 * median. */
void bench_format_time(char *out, size_t size, const bench_stats *stats);
/* A rate from a time sample: `units` / time, "52.1 GB/s (51.0–52.4)".
 * `unit_name` is the rate's unit ("GB/s", "GFLOP/s"), `units` the amount
 * of work in that unit's numerator (bytes / 1e9 for GB/s). */
void bench_format_rate(char *out, size_t size, const bench_stats *stats,
                       double units, const char *unit_name);

/* The Markdown table every program prints.  `title` becomes a "###"
 * heading; the columns are fixed: what | size | Kiln | raw | Kiln vs raw |
 * budget | met? */
void bench_table_begin(const char *title, const char *raw_name);
void bench_table_row(const char *what, const char *size, const char *kiln,
                     const char *raw, const char *compare, const char *budget,
                     const char *met);
void bench_table_end(void);
/* A line of text under the table ("> note"). */
void bench_note(const char *format, ...) BENCH_PRINTF_LIKE(1, 2);

/* "yes" / "**NO**" / "—" for a budget check (`known` false: no verdict). */
const char *bench_verdict(bool known, bool met);

/* The verdict on a time budget (smaller is better): Kiln's median against
 * `ratio` x raw's median + `offset` seconds (ratio 0: `offset` alone, raw
 * may be NULL).  "yes"; "**NO**"; or "no? (within noise)" when the
 * medians' confidence intervals still allow the budget to be met; "—"
 * without samples. */
const char *bench_judge(const bench_stats *kiln, const bench_stats *raw,
                        double ratio, double offset);
/* The same, with a measured noise floor in seconds (the difference between
 * two measurements of the same thing, an A/A comparison): a miss smaller
 * than it is within the noise too. */
const char *bench_judge_floor(const bench_stats *kiln, const bench_stats *raw,
                              double ratio, double offset, double floor);

/* ---- the environment under test --------------------------------------------- */

typedef struct bench_env {
    kiln_context *context;
    kiln_stream *default_stream; /* the context's, for synchronising it */
    const char *backend;      /* "cuda" or "opencl" */
    kiln_device_info device;
    bool cuda, opencl;        /* which backend */
    bool raw;                 /* the raw vendor API is usable here */
    char raw_why[512];        /* why not, when !raw */
    /* Why the CUDA-only measurements (CUDA C through Kiln, the raw driver
     * API) are not in this run, short for table cells ("skipped: no CUDA
     * device"), and the detail (Kiln's message); "" when the backend
     * measured is CUDA. */
    char cuda_skipped[128];
    char cuda_skipped_why[512];
#ifdef KILN_BENCH_CUDA
    CUdevice cu_device;
    CUcontext cu_context;     /* the device's primary context, as Kiln's */
    int sm;                   /* compute capability, 90 for sm_90 */
#endif
#ifdef KILN_BENCH_OPENCL
    cl_context cl_context;    /* Kiln's: raw code shares its objects */
    cl_device_id cl_device;
    cl_command_queue cl_queue; /* the raw side's own in-order queue */
#endif
} bench_env;

/* Exit status of a program that had nothing to measure (automake's SKIP). */
#define BENCH_EXIT_SKIPPED 77

/* Creates the context on the backend KILN_BACKEND names (or the default),
 * prints the program's heading and the device, and sets the raw side up.
 * `argc`/`argv`: "--print-backend" prints the backend's name and exits.
 * KILN_BACKEND=cuda on a machine without a usable CUDA device prints
 * "skipped: no CUDA device (why)" and exits with BENCH_EXIT_SKIPPED. */
void bench_open(bench_env *env, const char *title, int argc, char **argv);
void bench_close(bench_env *env);

/* ---- raw CUDA ------------------------------------------------------------------ */

#ifdef KILN_BENCH_CUDA
/* The driver API, opened from libcuda.so.1 at run time.  Members carry the
 * names cuda.h gives the functions (cuMemAlloc is cuMemAlloc_v2), so calls
 * read as usual: cu.cuLaunchKernel(...). */
#define BENCH_CUDA_FUNCTIONS(X)                                               \
    X(cuInit) X(cuGetErrorName) X(cuDeviceGetAttribute)                        \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                   \
    X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData)                 \
    X(cuModuleGetFunction) X(cuModuleUnload) X(cuLaunchKernel)                 \
    X(cuStreamSynchronize) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD)         \
    X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyDtoDAsync) X(cuMemHostAlloc)   \
    X(cuMemFreeHost)                                                           \
    X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize)                    \
    X(cuEventElapsedTime) X(cuEventDestroy) X(cuMemsetD32) X(cuMemcpyPeer)

#define BENCH_CUDA_MEMBER(name) __typeof__(&name) name;
typedef struct bench_cuda_api {
    BENCH_CUDA_FUNCTIONS(BENCH_CUDA_MEMBER)
} bench_cuda_api;
#undef BENCH_CUDA_MEMBER

extern bench_cuda_api cu;
/* Opens the driver API into `cu` (bench_open does it for a CUDA
 * environment; programs without one call this).  False, with the reason,
 * when libcuda.so.1 is missing or lacks a function. */
bool bench_cuda_api_open(char *why, size_t size);

#define CU_CHECK(call) bench_check_cu((call), #call, __FILE__, __LINE__)
void bench_check_cu(CUresult result, const char *call, const char *file,
                    int line);
#define NVRTC_CHECK(call) bench_check_nvrtc((call), #call, __FILE__, __LINE__)
void bench_check_nvrtc(nvrtcResult result, const char *call, const char *file,
                       int line);

/* Compiles CUDA C with NVRTC for the device (as Kiln does:
 * --gpu-architecture=sm_XY, a cubin).  Returns the malloc'ed cubin. */
void *bench_nvrtc_compile(const bench_env *env, const char *source,
                          const char *name, size_t *size);
/* NVRTC + cuModuleLoadData; the module's functions by name. */
CUmodule bench_cuda_module(const bench_env *env, const char *source,
                           const char *name);
CUfunction bench_cuda_function(CUmodule module, const char *name);
CUdeviceptr bench_cuda_pointer(const kiln_buffer *buffer);
#endif

/* ---- raw OpenCL ---------------------------------------------------------------- */

#ifdef KILN_BENCH_OPENCL
#define CL_CHECK(call) bench_check_cl((call), #call, __FILE__, __LINE__)
void bench_check_cl(cl_int error, const char *call, const char *file,
                    int line);
const char *bench_cl_error_name(cl_int error);
/* clCreateProgramWithSource + clBuildProgram on Kiln's context (the log is
 * printed on failure). */
cl_program bench_cl_program(const bench_env *env, const char *source,
                            const char *options);
cl_mem bench_cl_mem(const kiln_buffer *buffer);
#endif

#endif
