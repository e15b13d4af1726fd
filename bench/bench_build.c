/*
 * bench_build — how long does Kiln take to turn source into ready kernels:
 * compiling cold, and finding the binary in its cache (in memory, the same
 * context; on disk, a new context each time)?  Budget: a cache hit returns
 * ready kernels in under 2 ms.
 *
 * The program is bench_kernels' (bench_kernels_source.h: ~180 lines with
 * three kernels: a one-pass reduction, SAXPY and a tiled SGEMM, plus
 * helpers); every sample builds it and creates all three kernels, and only
 * that is timed.  Cold samples get a source made unique by a trailing
 * comment, so no cache (Kiln's, PoCL's) can answer.
 *
 * Raw side, CUDA: NVRTC compiling the CUDA C twin of the program to a cubin
 * + cuModuleLoadData + cuModuleGetFunction (NVRTC's time is the floor of any
 * cold build), and cuModuleLoadData of a ready cubin (the floor of a cache
 * hit).  OpenCL: clCreateProgramWithSource + clBuildProgram +
 * clCreateKernel, and clCreateProgramWithBinary + clBuildProgram +
 * clCreateKernel.  The kernel cache lives in a fresh directory
 * (KILN_CACHE_DIR) that is deleted at the end.
 */
#include "bench_util.h"

#include "bench_kernels_source.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const kernel_names[] = {"sumsq", "saxpy", "sgemm"};
#define KERNEL_COUNT (sizeof kernel_names / sizeof kernel_names[0])

typedef struct build_state {
    bench_env *env;
    kiln_language language;
    const char *source;            /* the program's text */
    bool cold;                     /* a unique source each sample */
    bool fresh_context;            /* a new Kiln context each sample */
    kiln_program_origin expected;  /* where Kiln must find the binary */
    unsigned tag;                  /* makes cold sources unique */
#ifdef KILN_BENCH_CUDA
    void *cubin;
    size_t cubin_size;
#endif
#ifdef KILN_BENCH_OPENCL
    unsigned char *cl_binary;
    size_t cl_binary_size;
#endif
} build_state;

static const char *const origin_names[] = {"compiled", "the memory cache",
                                           "the disk cache"};

/* The source with a comment that no earlier sample had. */
static char *unique_source(build_state *s)
{
    size_t length = strlen(s->source) + 64;
    char *text = bench_malloc(length);
    snprintf(text, length, "%s\n/* bench_build sample %u, process %ld */\n",
             s->source, ++s->tag, (long)getpid());
    return text;
}

/* ---- Kiln ------------------------------------------------------------------- */

static double sample_kiln(void *state)
{
    build_state *s = state;
    char *text = s->cold ? unique_source(s) : NULL;
    kiln_context *context = s->env->context;
    if (s->fresh_context)
        BENCH_CHECK(kiln_context_create(s->env->backend, s->env->device.index,
                                        &context));
    kiln_build_options options = {.language = s->language,
                                  .source_name = "bench_kernels"};
    kiln_program *program = NULL;
    kiln_kernel *kernels[KERNEL_COUNT];

    double start = bench_now();
    BENCH_CHECK(kiln_program_build_with(context, text ? text : s->source, 0,
                                        &options, &program));
    for (size_t i = 0; i < KERNEL_COUNT; ++i)
        BENCH_CHECK(kiln_kernel_create(program, kernel_names[i], &kernels[i]));
    double seconds = bench_now() - start;

    kiln_program_origin origin;
    BENCH_CHECK(kiln_program_get_origin(program, &origin));
    if (origin != s->expected)
        bench_fail("the program came from %s where %s was meant (is the "
                   "kernel cache off?)",
                   origin_names[origin], origin_names[s->expected]);
    for (size_t i = 0; i < KERNEL_COUNT; ++i)
        BENCH_CHECK(kiln_kernel_release(kernels[i]));
    BENCH_CHECK(kiln_program_release(program));
    if (s->fresh_context)
        BENCH_CHECK(kiln_context_release(context));
    free(text);
    return seconds;
}

/* ---- raw --------------------------------------------------------------------- */

static double sample_raw_compile(void *state)
{
    build_state *s = state;
    char *text = unique_source(s);
    double seconds = 0.0;
#ifdef KILN_BENCH_CUDA
    if (s->env->cuda) {
        double start = bench_now();
        size_t size = 0;
        void *cubin = bench_nvrtc_compile(s->env, text, "bench_kernels.cu",
                                          &size);
        CUmodule module;
        CU_CHECK(cu.cuModuleLoadData(&module, cubin));
        for (size_t i = 0; i < KERNEL_COUNT; ++i)
            (void)bench_cuda_function(module, kernel_names[i]);
        seconds = bench_now() - start;
        CU_CHECK(cu.cuModuleUnload(module));
        free(cubin);
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (s->env->opencl) {
        double start = bench_now();
        cl_program program = bench_cl_program(s->env, text, NULL);
        cl_kernel kernels[KERNEL_COUNT];
        for (size_t i = 0; i < KERNEL_COUNT; ++i) {
            cl_int error = CL_SUCCESS;
            kernels[i] = clCreateKernel(program, kernel_names[i], &error);
            CL_CHECK(error);
        }
        seconds = bench_now() - start;
        for (size_t i = 0; i < KERNEL_COUNT; ++i)
            CL_CHECK(clReleaseKernel(kernels[i]));
        CL_CHECK(clReleaseProgram(program));
    }
#endif
    free(text);
    return seconds;
}

static double sample_raw_load(void *state)
{
    build_state *s = state;
    double seconds = 0.0;
    (void)s;
#ifdef KILN_BENCH_CUDA
    if (s->env->cuda) {
        double start = bench_now();
        CUmodule module;
        CU_CHECK(cu.cuModuleLoadData(&module, s->cubin));
        for (size_t i = 0; i < KERNEL_COUNT; ++i)
            (void)bench_cuda_function(module, kernel_names[i]);
        seconds = bench_now() - start;
        CU_CHECK(cu.cuModuleUnload(module));
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (s->env->opencl) {
        /* As Kiln's disk hits get a new context, so may the raw load: a
         * first program in a fresh cl_context can cost more. */
        cl_context context = s->env->cl_context;
        cl_int binary_status = CL_SUCCESS, error = CL_SUCCESS;
        if (s->fresh_context) {
            context = clCreateContext(NULL, 1, &s->env->cl_device, NULL, NULL,
                                      &error);
            CL_CHECK(error);
        }
        double start = bench_now();
        const unsigned char *binary = s->cl_binary;
        cl_program program = clCreateProgramWithBinary(
            context, 1, &s->env->cl_device, &s->cl_binary_size, &binary,
            &binary_status, &error);
        CL_CHECK(error);
        CL_CHECK(binary_status);
        CL_CHECK(clBuildProgram(program, 1, &s->env->cl_device, NULL, NULL,
                                NULL));
        cl_kernel kernels[KERNEL_COUNT];
        for (size_t i = 0; i < KERNEL_COUNT; ++i) {
            kernels[i] = clCreateKernel(program, kernel_names[i], &error);
            CL_CHECK(error);
        }
        seconds = bench_now() - start;
        for (size_t i = 0; i < KERNEL_COUNT; ++i)
            CL_CHECK(clReleaseKernel(kernels[i]));
        CL_CHECK(clReleaseProgram(program));
        if (s->fresh_context)
            CL_CHECK(clReleaseContext(context));
    }
#endif
    return seconds;
}

/* The ready binary the raw "load" side starts from. */
static void raw_binary_prepare(build_state *s)
{
    if (!s->env->raw)
        return;
#ifdef KILN_BENCH_CUDA
    if (s->env->cuda)
        s->cubin = bench_nvrtc_compile(s->env, bench_cuda_source,
                                       "bench_kernels.cu", &s->cubin_size);
#endif
#ifdef KILN_BENCH_OPENCL
    if (s->env->opencl) {
        cl_program program =
            bench_cl_program(s->env, bench_opencl_source, NULL);
        CL_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES,
                                  sizeof s->cl_binary_size, &s->cl_binary_size,
                                  NULL));
        s->cl_binary = bench_malloc(s->cl_binary_size);
        unsigned char *binaries[1] = {s->cl_binary};
        CL_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARIES,
                                  sizeof binaries, binaries, NULL));
        CL_CHECK(clReleaseProgram(program));
    }
#endif
}

static void raw_binary_free(build_state *s)
{
    (void)s;
#ifdef KILN_BENCH_CUDA
    free(s->cubin);
#endif
#ifdef KILN_BENCH_OPENCL
    free(s->cl_binary);
#endif
}

/* Builds the program and its kernels once; false with the reason when Kiln
 * cannot. */
static bool first_build(bench_env *env, kiln_language language,
                        const char *source, char *failure, size_t size)
{
    kiln_build_options options = {.language = language,
                                  .source_name = "bench_kernels"};
    kiln_program *program = NULL;
    kiln_status status = kiln_program_build_with(env->context, source, 0,
                                                 &options, &program);
    for (size_t i = 0; status == KILN_OK && i < KERNEL_COUNT; ++i) {
        kiln_kernel *kernel = NULL;
        status = kiln_kernel_create(program, kernel_names[i], &kernel);
        if (status == KILN_OK)
            BENCH_CHECK(kiln_kernel_release(kernel));
    }
    if (status != KILN_OK) {
        snprintf(failure, size, "%s: %.600s", kiln_status_name(status),
                 kiln_last_error());
        /* One line for the table. */
        for (char *c = failure; *c != '\0'; ++c)
            if (*c == '\n' || *c == '|')
                *c = ' ';
        bench_progress("%s left out: %s",
                       language == KILN_LANGUAGE_CUDA_C ? "CUDA C" : "OpenCL C",
                       failure);
    }
    if (program != NULL)
        BENCH_CHECK(kiln_program_release(program));
    return status == KILN_OK;
}

/* ---- the cache directory -------------------------------------------------------- */

static int remove_entry(const char *path, const struct stat *info, int flag,
                        struct FTW *walk)
{
    (void)info;
    (void)flag;
    (void)walk;
    if (remove(path) != 0)
        fprintf(stderr, "bench_build: could not remove %s\n", path);
    return 0;
}

static void cache_dir_remove(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- rows ---------------------------------------------------------------------- */

static void row(const char *what, const bench_variant *kiln,
                const bench_variant *raw, double budget_seconds)
{
    size_t lines = 0;
    for (const char *c = bench_opencl_source; *c != '\0'; ++c)
        lines += *c == '\n';
    char size[64];
    snprintf(size, sizeof size, "%zu kernels, %zu lines", KERNEL_COUNT, lines);
    bench_stats k = bench_stats_of(&kiln->samples);
    bench_stats r = bench_stats_of(&raw->samples);
    char kiln_text[96], raw_text[96], compare[64] = "—", budget[64] = "—";
    bench_format_time(kiln_text, sizeof kiln_text, &k);
    bench_format_time(raw_text, sizeof raw_text, &r);
    if (k.count > 0 && r.count > 0 && r.median > 0)
        snprintf(compare, sizeof compare, "%.2f× (%+.2f ms)",
                 k.median / r.median, (k.median - r.median) * 1e3);
    if (budget_seconds > 0)
        snprintf(budget, sizeof budget, "Kiln < %.0f ms",
                 budget_seconds * 1e3);
    bench_table_row(what, size, kiln_text, raw_text, compare,
                    budget,
                    budget_seconds > 0
                        ? bench_judge(&k, NULL, 0.0, budget_seconds)
                        : "—");
}

int main(int argc, char **argv)
{
    bench_env env;
    bench_open(&env, "bench_build: from source to ready kernels", argc, argv);
    bool quick = bench_quick();

    /* A cache of our own (Kiln reads these variables at every build): cold
     * means cold, and the user's cache is left alone. */
    char cache_dir[] = "/tmp/kiln-bench-cache-XXXXXX";
    if (mkdtemp(cache_dir) == NULL)
        bench_fail("mkdtemp(%s) failed", cache_dir);
    setenv("KILN_CACHE_DIR", cache_dir, 1);
    unsetenv("KILN_CACHE");

    /* Kiln's memory and disk caches get the two programs once.  A language
     * Kiln cannot build is left out (and said so), the rest measured. */
    char opencl_failure[768] = "", cuda_failure[768] = "";
    bool opencl_ok = first_build(&env, KILN_LANGUAGE_OPENCL_C,
                                 bench_opencl_source, opencl_failure,
                                 sizeof opencl_failure);
    bool cuda_ok = env.cuda &&
                   first_build(&env, KILN_LANGUAGE_CUDA_C, bench_cuda_source,
                               cuda_failure, sizeof cuda_failure);

    build_state cold_opencl = {.env = &env, .source = bench_opencl_source,
                               .cold = true,
                               .expected = KILN_PROGRAM_COMPILED};
    build_state cold_cuda = {.env = &env, .language = KILN_LANGUAGE_CUDA_C,
                             .source = bench_cuda_source, .cold = true,
                             .expected = KILN_PROGRAM_COMPILED};
    build_state raw_cold = {
        .env = &env,
        .source = env.cuda ? bench_cuda_source : bench_opencl_source,
        .cold = true};
    build_state memory_opencl = {.env = &env, .source = bench_opencl_source,
                                 .expected = KILN_PROGRAM_FROM_MEMORY_CACHE};
    build_state memory_cuda = {.env = &env,
                               .language = KILN_LANGUAGE_CUDA_C,
                               .source = bench_cuda_source,
                               .expected = KILN_PROGRAM_FROM_MEMORY_CACHE};
    build_state disk_opencl = {.env = &env, .source = bench_opencl_source,
                               .fresh_context = true,
                               .expected = KILN_PROGRAM_FROM_DISK_CACHE};
    build_state disk_cuda = {.env = &env, .language = KILN_LANGUAGE_CUDA_C,
                             .source = bench_cuda_source,
                             .fresh_context = true,
                             .expected = KILN_PROGRAM_FROM_DISK_CACHE};
    build_state raw_load = {.env = &env};
    raw_binary_prepare(&raw_load);
    /* OpenCL: the raw load in a new context too (CUDA contexts of one
     * device share the primary context, so there it is the same). */
    build_state raw_load_fresh = raw_load;
    raw_load_fresh.fresh_context = true;

    /* Cold builds: Kiln OpenCL C, Kiln CUDA C (CUDA only), raw. */
    static const bench_variant none = {0};
    bench_variant cold[3];
    size_t cold_count = 0;
    size_t cold_opencl_index = 0, cold_cuda_index = 0;
    if (opencl_ok) {
        cold_opencl_index = cold_count;
        cold[cold_count++] = (bench_variant){
            .name = "kiln opencl c", .run = sample_kiln, .state = &cold_opencl};
    }
    if (cuda_ok) {
        cold_cuda_index = cold_count;
        cold[cold_count++] = (bench_variant){
            .name = "kiln cuda c", .run = sample_kiln, .state = &cold_cuda};
    }
    size_t cold_raw = cold_count;
    if (env.raw)
        cold[cold_count++] = (bench_variant){
            .name = "raw", .run = sample_raw_compile, .state = &raw_cold};
    bench_progress("cold builds");
    bench_measure(cold, cold_count, 1, quick ? 2 : 5, 30, bench_budget(8.0));

    /* Cache hits against loading a ready binary. */
    bench_variant hits[6];
    size_t hit_count = 0;
    size_t hit_opencl = hit_count;
    if (opencl_ok) {
        hits[hit_count++] = (bench_variant){
            .name = "memory opencl c", .run = sample_kiln,
            .state = &memory_opencl};
        hits[hit_count++] = (bench_variant){
            .name = "disk opencl c", .run = sample_kiln, .state = &disk_opencl};
    }
    size_t hit_cuda = hit_count;
    if (cuda_ok) {
        hits[hit_count++] = (bench_variant){
            .name = "memory cuda c", .run = sample_kiln, .state = &memory_cuda};
        hits[hit_count++] = (bench_variant){
            .name = "disk cuda c", .run = sample_kiln, .state = &disk_cuda};
    }
    size_t hit_raw = hit_count, hit_raw_fresh = hit_count;
    if (env.raw)
        hits[hit_count++] = (bench_variant){
            .name = "raw load", .run = sample_raw_load, .state = &raw_load};
    if (env.raw && env.opencl) {
        hit_raw_fresh = hit_count;
        hits[hit_count++] = (bench_variant){.name = "raw load, new context",
                                            .run = sample_raw_load,
                                            .state = &raw_load_fresh};
    }
    bench_progress("cache hits");
    bench_measure(hits, hit_count, 3, quick ? 10 : 30, 1000, bench_budget(4.0));

    const bench_variant *raw_cold_variant = env.raw ? &cold[cold_raw] : &none;
    const bench_variant *raw_load_variant = env.raw ? &hits[hit_raw] : &none;
    const bench_variant *raw_fresh_variant =
        env.raw ? &hits[hit_raw_fresh] : &none;
    char raw_name[128];
    snprintf(raw_name, sizeof raw_name, "%s",
             !env.raw ? "unavailable"
             : env.cuda
                 ? "NVRTC of the CUDA C twin + cuModuleLoadData; load: "
                   "cuModuleLoadData of the cubin"
                 : "clCreateProgramWithSource + clBuildProgram; load: "
                   "clCreateProgramWithBinary + clBuildProgram");
    bench_table_begin("Program build, then kiln_kernel_create for each kernel",
                      raw_name);
    const bench_variant *opencl_cold =
        opencl_ok ? &cold[cold_opencl_index] : &none;
    const bench_variant *cuda_cold = cuda_ok ? &cold[cold_cuda_index] : &none;
    const bench_variant *opencl_memory =
        opencl_ok ? &hits[hit_opencl] : &none;
    const bench_variant *opencl_disk =
        opencl_ok ? &hits[hit_opencl + 1] : &none;
    const bench_variant *cuda_memory = cuda_ok ? &hits[hit_cuda] : &none;
    const bench_variant *cuda_disk = cuda_ok ? &hits[hit_cuda + 1] : &none;
    row("cold compile, OpenCL C", opencl_cold, raw_cold_variant, 0.0);
    if (env.cuda)
        row("cold compile, CUDA C", cuda_cold, raw_cold_variant, 0.0);
    row("memory-cache hit (same context), OpenCL C", opencl_memory,
        raw_load_variant, 2e-3);
    if (env.cuda)
        row("memory-cache hit (same context), CUDA C", cuda_memory,
            raw_load_variant, 2e-3);
    row("disk-cache hit (new context), OpenCL C", opencl_disk,
        raw_fresh_variant, 2e-3);
    if (env.cuda)
        row("disk-cache hit (new context), CUDA C", cuda_disk,
            raw_load_variant, 2e-3);
    else
        bench_table_row("cold compile and cache hits, CUDA C; NVRTC + "
                        "cuModuleLoadData",
                        "—", env.cuda_skipped, env.cuda_skipped, "—",
                        "Kiln < 2 ms (hits)", "—");
    bench_table_end();
    bench_note("Host clock around the build call and the three kernel "
               "creations only (context creation and releases untimed). Cold "
               "rows compare with the raw compiler, which is their floor%s; "
               "cache rows with loading a ready binary, the floor of a hit%s. "
               "Budget: a cache hit under 2 ms.",
               env.cuda ? " (OpenCL C rows also pay for the translation and "
                          "its prelude)"
                        : "",
               env.opencl ? " (for disk hits, in a new cl_context as well)"
                          : "");

    if (!opencl_ok)
        bench_note("**OpenCL C left out: Kiln could not build it: %s**",
                   opencl_failure);
    if (env.cuda && !cuda_ok)
        bench_note("**CUDA C left out: Kiln could not build it: %s**",
                   cuda_failure);

    for (size_t i = 0; i < cold_count; ++i)
        bench_samples_free(&cold[i].samples);
    for (size_t i = 0; i < hit_count; ++i)
        bench_samples_free(&hits[i].samples);
    raw_binary_free(&raw_load);
    bench_close(&env);
    cache_dir_remove(cache_dir);
    return opencl_ok && (cuda_ok || !env.cuda) ? EXIT_SUCCESS : EXIT_FAILURE;
}
