/*
 * bench_util.c — clock, statistics, tables and the raw vendor side shared by
 * the benchmarks (see bench_util.h).
 */
#include "bench_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef KILN_BENCH_CUDA
#include <dlfcn.h>
#endif

/* ---- clock, errors, options ------------------------------------------- */

double bench_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

void bench_fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fflush(stdout);
    fprintf(stderr, "bench: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    exit(EXIT_FAILURE);
}

void bench_check_kiln(kiln_status status, const char *call, const char *file,
                      int line)
{
    if (status == KILN_OK)
        return;
    /* Read the message first: it belongs to the last Kiln call. */
    const char *detail = kiln_last_error();
    bench_fail("%s:%d: %s failed with %s: %s", file, line, call,
               kiln_status_name(status), detail);
}

void bench_progress(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "  .. ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
}

bool bench_quick(void)
{
    const char *text = getenv("KILN_BENCH_QUICK");
    return text != NULL && text[0] != '\0' && strcmp(text, "0") != 0;
}

uint64_t bench_env_count(const char *name, uint64_t fallback)
{
    const char *text = getenv(name);
    if (text == NULL || text[0] == '\0')
        return fallback;
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || value == 0)
        return fallback;
    return (uint64_t)value;
}

double bench_budget(double seconds)
{
    const char *text = getenv("KILN_BENCH_SCALE");
    double scale = text != NULL ? strtod(text, NULL) : 1.0;
    if (!(scale >= 0.2))
        scale = text != NULL ? 0.2 : 1.0;
    if (scale > 20.0)
        scale = 20.0;
    return seconds * scale * (bench_quick() ? 0.25 : 1.0);
}

void *bench_malloc(size_t size)
{
    void *memory = malloc(size ? size : 1);
    if (memory == NULL)
        bench_fail("out of host memory (%zu bytes)", size);
    return memory;
}

uint64_t bench_host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return UINT64_C(4) << 30;
    return (uint64_t)pages * (uint64_t)page;
}

/* ---- random inputs ------------------------------------------------------ */

/* SplitMix64: small, and the same on every platform. */
uint64_t bench_rng_next(bench_rng *rng)
{
    uint64_t z = (rng->state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void bench_random_floats(bench_rng *rng, float *out, size_t count, float low,
                         float high)
{
    for (size_t i = 0; i < count; ++i) {
        float unit = (float)(bench_rng_next(rng) >> 40) * 0x1.0p-24f;
        out[i] = low + (high - low) * unit;
    }
}

/* ---- statistics ------------------------------------------------------------ */

void bench_samples_add(bench_samples *samples, double value)
{
    if (samples->count == samples->capacity) {
        size_t capacity = samples->capacity ? samples->capacity * 2 : 64;
        double *grown = realloc(samples->values, capacity * sizeof *grown);
        if (grown == NULL)
            bench_fail("out of host memory");
        samples->values = grown;
        samples->capacity = capacity;
    }
    samples->values[samples->count++] = value;
}

void bench_samples_free(bench_samples *samples)
{
    free(samples->values);
    memset(samples, 0, sizeof *samples);
}

static int double_compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(const double *sorted, size_t count, double p)
{
    double position = p * (double)(count - 1);
    size_t low = (size_t)position;
    if (low + 1 >= count)
        return sorted[count - 1];
    double fraction = position - (double)low;
    return sorted[low] + fraction * (sorted[low + 1] - sorted[low]);
}

bench_stats bench_stats_of(const bench_samples *samples)
{
    bench_stats stats = {0};
    if (samples->count == 0)
        return stats;
    double *sorted = bench_malloc(samples->count * sizeof *sorted);
    memcpy(sorted, samples->values, samples->count * sizeof *sorted);
    qsort(sorted, samples->count, sizeof *sorted, double_compare);
    stats.count = samples->count;
    stats.min = sorted[0];
    stats.max = sorted[samples->count - 1];
    stats.p10 = percentile(sorted, samples->count, 0.10);
    stats.median = percentile(sorted, samples->count, 0.50);
    stats.p90 = percentile(sorted, samples->count, 0.90);
    double middle = 0.5 * (double)(samples->count - 1);
    double half_width = 0.98 * sqrt((double)samples->count);
    double low = floor(middle - half_width), high = ceil(middle + half_width);
    stats.median_low = sorted[low < 0 ? 0 : (size_t)low];
    stats.median_high = sorted[high > (double)(samples->count - 1)
                                   ? samples->count - 1
                                   : (size_t)high];
    free(sorted);
    return stats;
}

/* ---- alternating measurement --------------------------------------------- */

void bench_measure(bench_variant *variants, size_t count, size_t warmup,
                   size_t min_reps, size_t max_reps, double seconds)
{
    if (count == 0)
        return;
    for (size_t round = 0; round < warmup; ++round)
        for (size_t i = 0; i < count; ++i)
            (void)variants[i].run(variants[i].state);
    double start = bench_now();
    for (size_t rep = 0; rep < max_reps; ++rep) {
        if (rep >= min_reps && bench_now() - start >= seconds)
            break;
        for (size_t j = 0; j < count; ++j) {
            bench_variant *variant = &variants[(rep + j) % count];
            bench_samples_add(&variant->samples, variant->run(variant->state));
        }
    }
}

/* ---- text ------------------------------------------------------------------ */

void bench_format_bytes(char *out, size_t size, uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    uint64_t value = bytes;
    while (unit < 4 && value >= 1024 && value % 1024 == 0) {
        value /= 1024;
        ++unit;
    }
    snprintf(out, size, "%llu %s", (unsigned long long)value, units[unit]);
}

/* Two or three significant digits, never an exponent. */
static void format_number(char *out, size_t size, double value)
{
    double magnitude = fabs(value);
    if (magnitude >= 100.0 || magnitude == 0.0)
        snprintf(out, size, "%.0f", value);
    else if (magnitude >= 10.0)
        snprintf(out, size, "%.1f", value);
    else if (magnitude >= 1.0)
        snprintf(out, size, "%.2f", value);
    else
        snprintf(out, size, "%.3f", value);
}

void bench_format_time(char *out, size_t size, const bench_stats *stats)
{
    if (stats->count == 0) {
        snprintf(out, size, "—");
        return;
    }
    double scale = 1.0;
    const char *unit = "s";
    if (stats->median < 1e-6) {
        scale = 1e9;
        unit = "ns";
    } else if (stats->median < 1e-3) {
        scale = 1e6;
        unit = "µs";
    } else if (stats->median < 1.0) {
        scale = 1e3;
        unit = "ms";
    }
    char median[32], low[32], high[32];
    format_number(median, sizeof median, stats->median * scale);
    format_number(low, sizeof low, stats->p10 * scale);
    format_number(high, sizeof high, stats->p90 * scale);
    snprintf(out, size, "%s %s (%s–%s)", median, unit, low, high);
}

void bench_format_rate(char *out, size_t size, const bench_stats *stats,
                       double units, const char *unit_name)
{
    if (stats->count == 0 || stats->median <= 0.0) {
        snprintf(out, size, "—");
        return;
    }
    char median[32], low[32], high[32];
    format_number(median, sizeof median, units / stats->median);
    format_number(low, sizeof low, units / stats->p90);
    format_number(high, sizeof high, units / stats->p10);
    snprintf(out, size, "%s %s (%s–%s)", median, unit_name, low, high);
}

void bench_table_begin(const char *title, const char *raw_name)
{
    printf("\n### %s\n\n", title);
    printf("| what | size | Kiln | raw (%s) | Kiln vs raw | budget | met? |\n",
           raw_name);
    printf("| --- | --- | ---: | ---: | ---: | --- | --- |\n");
    fflush(stdout);
}

void bench_table_row(const char *what, const char *size, const char *kiln,
                     const char *raw, const char *compare, const char *budget,
                     const char *met)
{
    printf("| %s | %s | %s | %s | %s | %s | %s |\n", what, size, kiln, raw,
           compare, budget, met);
    fflush(stdout);
}

void bench_table_end(void)
{
    printf("\n");
    fflush(stdout);
}

void bench_note(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    printf("> ");
    vprintf(format, args);
    printf("\n");
    va_end(args);
    fflush(stdout);
}

const char *bench_verdict(bool known, bool met)
{
    return !known ? "—" : met ? "yes" : "**NO**";
}

const char *bench_judge(const bench_stats *kiln, const bench_stats *raw,
                        double ratio, double offset)
{
    return bench_judge_floor(kiln, raw, ratio, offset, 0.0);
}

const char *bench_judge_floor(const bench_stats *kiln, const bench_stats *raw,
                              double ratio, double offset, double floor)
{
    if (kiln == NULL || kiln->count == 0)
        return "—";
    if (ratio > 0 && (raw == NULL || raw->count == 0))
        return "—";
    double allowed = offset + (ratio > 0 ? ratio * raw->median : 0.0);
    if (kiln->median <= allowed)
        return "yes";
    /* The most favourable ends of the two intervals. */
    double kindest = offset + (ratio > 0 ? ratio * raw->median_high : 0.0);
    bool noise = kiln->median_low <= kindest ||
                 kiln->median - allowed <= floor;
    return noise ? "no? (within noise)" : "**NO**";
}

/* ---- raw CUDA ------------------------------------------------------------------ */

#ifdef KILN_BENCH_CUDA
bench_cuda_api cu;

/* Stringify after macro expansion: cuMemAlloc names cuMemAlloc_v2. */
#define BENCH_STRING_EXPANDED(name) BENCH_STRING(name)
#define BENCH_STRING(name) #name

static bool cuda_api_load(char *why, size_t size)
{
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) {
        snprintf(why, size, "dlopen(libcuda.so.1): %s", dlerror());
        return false;
    }
#define BENCH_CUDA_LOAD(name)                                                 \
    cu.name = (__typeof__(cu.name))dlsym(library,                            \
                                         BENCH_STRING_EXPANDED(name));         \
    if (cu.name == NULL) {                                                     \
        snprintf(why, size, "libcuda.so.1 lacks %s",                          \
                 BENCH_STRING_EXPANDED(name));                                 \
        return false;                                                          \
    }
    BENCH_CUDA_FUNCTIONS(BENCH_CUDA_LOAD)
#undef BENCH_CUDA_LOAD
    return true;
}

bool bench_cuda_api_open(char *why, size_t size)
{
    return cuda_api_load(why, size);
}

void bench_check_cu(CUresult result, const char *call, const char *file,
                    int line)
{
    if (result == CUDA_SUCCESS)
        return;
    const char *name = "?";
    if (cu.cuGetErrorName == NULL ||
        cu.cuGetErrorName(result, &name) != CUDA_SUCCESS)
        name = "unknown CUresult";
    bench_fail("%s:%d: %s failed: %s (%d)", file, line, call, name,
               (int)result);
}

void bench_check_nvrtc(nvrtcResult result, const char *call, const char *file,
                       int line)
{
    if (result == NVRTC_SUCCESS)
        return;
    bench_fail("%s:%d: %s failed: %s", file, line, call,
               nvrtcGetErrorString(result));
}

/* Kiln's choice of target: the device's own architecture when NVRTC knows
 * it, else the newest older one it knows. */
static int nvrtc_target_sm(int device_sm)
{
    int count = 0;
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0)
        return device_sm;
    int *archs = bench_malloc((size_t)count * sizeof *archs);
    int best = 0;
    if (nvrtcGetSupportedArchs(archs) == NVRTC_SUCCESS)
        for (int i = 0; i < count; ++i)
            if (archs[i] <= device_sm && archs[i] > best)
                best = archs[i];
    free(archs);
    if (best == 0)
        bench_fail("NVRTC knows no architecture at or below sm_%d",
                   device_sm);
    return best;
}

void *bench_nvrtc_compile(const bench_env *env, const char *source,
                          const char *name, size_t *size)
{
    char architecture[64];
    snprintf(architecture, sizeof architecture, "--gpu-architecture=sm_%d",
             nvrtc_target_sm(env->sm));
    const char *options[] = {architecture};
    nvrtcProgram program;
    NVRTC_CHECK(nvrtcCreateProgram(&program, source, name, 0, NULL, NULL));
    nvrtcResult result = nvrtcCompileProgram(program, 1, options);
    if (result != NVRTC_SUCCESS) {
        size_t log_size = 0;
        nvrtcGetProgramLogSize(program, &log_size);
        char *log = bench_malloc(log_size + 1);
        log[0] = '\0';
        nvrtcGetProgramLog(program, log);
        bench_fail("NVRTC could not compile %s (%s):\n%s", name,
                   nvrtcGetErrorString(result), log);
    }
    NVRTC_CHECK(nvrtcGetCUBINSize(program, size));
    void *cubin = bench_malloc(*size);
    NVRTC_CHECK(nvrtcGetCUBIN(program, cubin));
    NVRTC_CHECK(nvrtcDestroyProgram(&program));
    return cubin;
}

CUmodule bench_cuda_module(const bench_env *env, const char *source,
                           const char *name)
{
    size_t size = 0;
    void *cubin = bench_nvrtc_compile(env, source, name, &size);
    CUmodule module;
    CU_CHECK(cu.cuModuleLoadData(&module, cubin));
    free(cubin);
    return module;
}

CUfunction bench_cuda_function(CUmodule module, const char *name)
{
    CUfunction function;
    CU_CHECK(cu.cuModuleGetFunction(&function, module, name));
    return function;
}

CUdeviceptr bench_cuda_pointer(const kiln_buffer *buffer)
{
    CUdeviceptr pointer = 0;
    BENCH_CHECK(kiln_buffer_get_native(buffer, &pointer, sizeof pointer));
    return pointer;
}

static void cuda_raw_open(bench_env *env)
{
    if (!cuda_api_load(env->raw_why, sizeof env->raw_why))
        return;
    CU_CHECK(cu.cuInit(0));
    BENCH_CHECK(kiln_context_get_native_device(env->context, &env->cu_device,
                                   sizeof env->cu_device));
    /* The primary context: the one Kiln uses, so both sides share memory,
     * the legacy default stream, and no context switch separates them. */
    CU_CHECK(cu.cuDevicePrimaryCtxRetain(&env->cu_context, env->cu_device));
    CU_CHECK(cu.cuCtxSetCurrent(env->cu_context));
    int major = 0, minor = 0;
    CU_CHECK(cu.cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, env->cu_device));
    CU_CHECK(cu.cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, env->cu_device));
    env->sm = major * 10 + minor;
    env->raw = true;
}
#endif

/* ---- raw OpenCL ---------------------------------------------------------------- */

#ifdef KILN_BENCH_OPENCL
const char *bench_cl_error_name(cl_int error)
{
    switch (error) {
#define NAME(code) \
    case code:     \
        return #code;
        NAME(CL_SUCCESS)
        NAME(CL_DEVICE_NOT_FOUND)
        NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE)
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES)
        NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_BUILD_PROGRAM_FAILURE)
        NAME(CL_MAP_FAILURE)
        NAME(CL_INVALID_VALUE)
        NAME(CL_INVALID_DEVICE)
        NAME(CL_INVALID_CONTEXT)
        NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE)
        NAME(CL_INVALID_HOST_PTR)
        NAME(CL_INVALID_MEM_OBJECT)
        NAME(CL_INVALID_BINARY)
        NAME(CL_INVALID_BUILD_OPTIONS)
        NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL)
        NAME(CL_INVALID_ARG_INDEX)
        NAME(CL_INVALID_ARG_VALUE)
        NAME(CL_INVALID_ARG_SIZE)
        NAME(CL_INVALID_KERNEL_ARGS)
        NAME(CL_INVALID_WORK_DIMENSION)
        NAME(CL_INVALID_WORK_GROUP_SIZE)
        NAME(CL_INVALID_WORK_ITEM_SIZE)
        NAME(CL_INVALID_GLOBAL_OFFSET)
        NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_EVENT)
        NAME(CL_INVALID_OPERATION)
        NAME(CL_INVALID_BUFFER_SIZE)
        NAME(CL_INVALID_GLOBAL_WORK_SIZE)
#undef NAME
    }
    return "an OpenCL error";
}

void bench_check_cl(cl_int error, const char *call, const char *file, int line)
{
    if (error != CL_SUCCESS)
        bench_fail("%s:%d: %s failed: %s (%d)", file, line, call,
                   bench_cl_error_name(error), (int)error);
}

cl_program bench_cl_program(const bench_env *env, const char *source,
                            const char *options)
{
    cl_int error = CL_SUCCESS;
    cl_program program =
        clCreateProgramWithSource(env->cl_context, 1, &source, NULL, &error);
    CL_CHECK(error);
    error = clBuildProgram(program, 1, &env->cl_device, options, NULL, NULL);
    if (error != CL_SUCCESS) {
        size_t size = 0;
        clGetProgramBuildInfo(program, env->cl_device, CL_PROGRAM_BUILD_LOG, 0,
                              NULL, &size);
        char *log = bench_malloc(size + 1);
        log[0] = '\0';
        clGetProgramBuildInfo(program, env->cl_device, CL_PROGRAM_BUILD_LOG,
                              size, log, NULL);
        log[size] = '\0';
        bench_fail("clBuildProgram: %s:\n%s", bench_cl_error_name(error), log);
    }
    return program;
}

cl_mem bench_cl_mem(const kiln_buffer *buffer)
{
    cl_mem memory = NULL;
    BENCH_CHECK(kiln_buffer_get_native(buffer, &memory, sizeof memory));
    return memory;
}

static void opencl_raw_open(bench_env *env)
{
    BENCH_CHECK(kiln_context_get_native(env->context, &env->cl_context,
                                    sizeof env->cl_context));
    BENCH_CHECK(kiln_context_get_native_device(env->context, &env->cl_device,
                                   sizeof env->cl_device));
    /* The raw side's own queue, as raw code would make it: in order, no
     * profiling. */
    cl_int error = CL_SUCCESS;
    env->cl_queue =
        clCreateCommandQueue(env->cl_context, env->cl_device, 0, &error);
    CL_CHECK(error);
    env->raw = true;
}
#endif

/* ---- the environment under test --------------------------------------------- */

/* True when KILN_BACKEND asks for CUDA and `status` says there is no
 * usable CUDA device here (no driver, no plugin, no device). */
static bool cuda_missing(kiln_status status)
{
    const char *wanted = getenv("KILN_BACKEND");
    if (wanted == NULL || strcmp(wanted, "cuda") != 0)
        return false;
    return status == KILN_ERR_BACKEND_NOT_FOUND ||
           status == KILN_ERR_BACKEND_LOAD ||
           status == KILN_ERR_BACKEND_UNAVAILABLE ||
           status == KILN_ERR_NO_DEVICE;
}

/* Prints why nothing is measured and exits with BENCH_EXIT_SKIPPED: a
 * machine without a GPU is not a failure of the benchmark. */
BENCH_NORETURN static void skip_no_cuda(const char *title, bool print_backend,
                                        const char *detail)
{
    if (print_backend) {
        fprintf(stderr, "skipped: no CUDA device (%s)\n", detail);
    } else {
        printf("\n## %s\n\nskipped: no CUDA device (%s)\n", title, detail);
        fflush(stdout);
    }
    exit(BENCH_EXIT_SKIPPED);
}

/* Why this run has no CUDA measurements (env->cuda_skipped). */
static void cuda_skip_reason(bench_env *env)
{
    if (env->cuda)
        return;
    int devices = 0;
    kiln_status status = kiln_device_get_count("cuda", &devices);
    if (status != KILN_OK || devices <= 0) {
        snprintf(env->cuda_skipped, sizeof env->cuda_skipped,
                 "skipped: no CUDA device");
        snprintf(env->cuda_skipped_why, sizeof env->cuda_skipped_why, "%s",
                 status != KILN_OK ? kiln_last_error()
                                   : "the CUDA backend lists no device");
    } else {
        snprintf(env->cuda_skipped, sizeof env->cuda_skipped,
                 "skipped: backend %s measured", env->backend);
        snprintf(env->cuda_skipped_why, sizeof env->cuda_skipped_why,
                 "KILN_BACKEND=cuda measures CUDA");
    }
    /* One line: it goes into Markdown. */
    for (char *c = env->cuda_skipped_why; *c != '\0'; ++c)
        if (*c == '\n' || *c == '|')
            *c = ' ';
}

void bench_open(bench_env *env, const char *title, int argc, char **argv)
{
    memset(env, 0, sizeof *env);
    bool print_backend = argc > 1 && strcmp(argv[1], "--print-backend") == 0;
    if (argc > 1 && !print_backend)
        bench_fail("usage: %s [--print-backend]  (configure with KILN_BACKEND, "
                   "KILN_DEVICE, KILN_BENCH_QUICK, KILN_BENCH_SCALE)",
                   argv[0]);
    kiln_status status = kiln_context_create(NULL, -1, &env->context);
    if (status != KILN_OK && cuda_missing(status))
        skip_no_cuda(title, print_backend, kiln_last_error());
    BENCH_CHECK(status);
    BENCH_CHECK(kiln_context_get_backend(env->context, &env->backend));
    if (print_backend) {
        printf("%s\n", env->backend);
        kiln_context_release(env->context);
        exit(EXIT_SUCCESS);
    }
    BENCH_CHECK(kiln_context_get_device_info(env->context, &env->device));
    BENCH_CHECK(kiln_context_get_default_stream(env->context,
                                                &env->default_stream));
    env->cuda = strcmp(env->backend, "cuda") == 0;
    env->opencl = strcmp(env->backend, "opencl") == 0;

    if (env->cuda) {
#ifdef KILN_BENCH_CUDA
        cuda_raw_open(env);
#else
        snprintf(env->raw_why, sizeof env->raw_why,
                 "this build has no CUDA toolkit (raw CUDA not compiled)");
#endif
    } else if (env->opencl) {
#ifdef KILN_BENCH_OPENCL
        opencl_raw_open(env);
#else
        snprintf(env->raw_why, sizeof env->raw_why,
                 "this build has no OpenCL headers (raw OpenCL not compiled)");
#endif
    } else {
        snprintf(env->raw_why, sizeof env->raw_why,
                 "no raw baseline for backend %s", env->backend);
    }

    char memory[32];
    bench_format_bytes(memory, sizeof memory, env->device.global_memory);
    printf("\n## %s\n\n", title);
    printf("Kiln %s, backend **%s**, device **%s** (%s; %d compute units; "
           "%s; %s)%s%s%s\n",
           kiln_version(), env->backend, env->device.name,
           env->device.platform,
           env->device.compute_units, memory, env->device.driver_version,
           bench_quick() ? "; quick mode (KILN_BENCH_QUICK)" : "",
           env->raw ? "" : "; no raw baseline: ", env->raw ? "" : env->raw_why);
    cuda_skip_reason(env);
    if (env->cuda_skipped[0] != '\0')
        printf("\nCUDA (CUDA C through Kiln, the raw driver API): %s (%s).\n",
               env->cuda_skipped, env->cuda_skipped_why);
    printf("\nCells: median (p10–p90) over repetitions; Kiln and raw "
           "alternate within each repetition.\n");
    fflush(stdout);
}

void bench_close(bench_env *env)
{
#ifdef KILN_BENCH_CUDA
    if (env->cuda && env->raw) {
        CU_CHECK(cu.cuCtxSynchronize());
        CU_CHECK(cu.cuDevicePrimaryCtxRelease(env->cu_device));
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (env->opencl && env->raw)
        CL_CHECK(clReleaseCommandQueue(env->cl_queue));
#endif
    BENCH_CHECK(kiln_context_release(env->context));
    memset(env, 0, sizeof *env);
}

/* ---- two sides timed by Kiln events ------------------------------------------ */

double bench_event_side_run(void *state)
{
    bench_event_side *side = state;
    BENCH_CHECK(kiln_event_record(side->start, NULL));
    for (int k = 0; k < side->reps; ++k)
        BENCH_CHECK(side->launch(side->state));
    BENCH_CHECK(kiln_event_record(side->end, NULL));
    float milliseconds = 0;
    BENCH_CHECK(kiln_event_elapsed(side->start, side->end, &milliseconds));
    return milliseconds * 1e-3 / side->reps;
}

void bench_event_row(const char *what, const char *size, const char *a_name,
                     bench_event_side *a, const char *b_name,
                     bench_event_side *b, double budget)
{
    bench_variant variants[2] = {{a_name, bench_event_side_run, a, {0}},
                                 {b_name, bench_event_side_run, b, {0}}};
    bench_measure(variants, 2, 1, 5, 30, bench_budget(3.0));
    bench_stats sa = bench_stats_of(&variants[0].samples);
    bench_stats sb = bench_stats_of(&variants[1].samples);
    char ta[96], tb[96], ratio[64], limit[32];
    bench_format_time(ta, sizeof ta, &sa);
    bench_format_time(tb, sizeof tb, &sb);
    snprintf(ratio, sizeof ratio, "%.2fx", sa.median / sb.median);
    snprintf(limit, sizeof limit, "<= %.1fx", budget);
    bench_table_row(what, size, ta, tb, ratio, limit,
                    bench_judge(&sa, &sb, budget, 0));
    bench_samples_free(&variants[0].samples);
    bench_samples_free(&variants[1].samples);
}
