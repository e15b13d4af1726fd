/*
 * bench_compile — the compile-time budget: a cold build of an OpenCL C
 * program through Kiln takes at most 3x what the raw compiler takes on the
 * same kernels, measured on bench_build's program (bench_kernels_source.h)
 * and on three corpus kernels of different sizes: a small elementwise one,
 * a vector-heavy one (vload_vstore) and the tiled SGEMM.
 *
 * Raw side, CUDA: NVRTC on the kernels' CUDA C twins (bench/twins/,
 * bench_cuda_source) + cuModuleLoadData + cuModuleGetFunction, what CuPy's
 * RawKernel pays.  OpenCL: clBuildProgram of the same OpenCL C +
 * clCreateKernel.  Kiln side: kiln_program_build_with + kiln_kernel_create
 * for every kernel (on CUDA: translation, prelude, NVRTC, loading).
 *
 * Two rows per program:
 *   first build in a fresh process: every sample is a new process (this
 *     program again, with --child), which creates its context untimed and
 *     then times one build, Kiln's or the raw one: what a program pays for
 *     its first kernel, NVRTC's start-up included;
 *   later builds in the same process: Kiln and raw alternate in this one.
 * Every sample's source is unique (a trailing comment), and Kiln's kernel
 * cache is a fresh directory (KILN_CACHE_DIR), so no cache can answer.
 * Kernel files are read from the source tree (KILN_BENCH_SRCDIR, set by
 * the build to its top source directory).
 */
#include "bench_util.h"

#include "bench_kernels_source.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef KILN_BENCH_SRCDIR
#define KILN_BENCH_SRCDIR "."
#endif

#define MAX_KERNELS 4

typedef struct compile_program {
    const char *name;
    const char *opencl_path; /* under the source tree; NULL: bench_build's */
    const char *twin_path;   /* the CUDA C twin; NULL: bench_build's       */
    const char *kernels[MAX_KERNELS];
    size_t kernel_count;
    char *opencl;            /* the texts, loaded by programs_load          */
    char *cuda;
} compile_program;

static compile_program programs[] = {
    {"bench_build's program", NULL, NULL, {"sumsq", "saxpy", "sgemm"}, 3,
     NULL, NULL},
    {"elementwise.cl", "tests/kernels/corpus/elementwise.cl",
     "bench/twins/elementwise.cu", {"saxpy", "leaky_relu", "int_combine"}, 3,
     NULL, NULL},
    {"vload_vstore.cl", "tests/kernels/corpus/vload_vstore.cl",
     "bench/twins/vload_vstore.cu",
     {"float_vectors", "unaligned_vectors", "local_and_constant",
      "narrow_vectors"},
     4, NULL, NULL},
    {"sgemm_tiled.cl", "tests/kernels/corpus/sgemm_tiled.cl",
     "bench/twins/sgemm_tiled.cu", {"sgemm_tiled"}, 1, NULL, NULL},
};
#define PROGRAM_COUNT (sizeof programs / sizeof programs[0])

/* ---- sources ------------------------------------------------------------------ */

static char *text_read(const char *relative)
{
    const char *top = getenv("KILN_BENCH_SRCDIR");
    if (top == NULL || top[0] == '\0')
        top = KILN_BENCH_SRCDIR;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", top, relative);
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        bench_fail("cannot open %s: %s (set KILN_BENCH_SRCDIR to the top of "
                   "Kiln's source tree)",
                   path, strerror(errno));
    size_t capacity = 4096, length = 0;
    char *text = bench_malloc(capacity);
    size_t got;
    while ((got = fread(text + length, 1, capacity - length - 1, file)) > 0) {
        length += got;
        if (capacity - length <= 1) {
            capacity *= 2;
            char *grown = realloc(text, capacity);
            if (grown == NULL)
                bench_fail("out of memory reading %s", path);
            text = grown;
        }
    }
    fclose(file);
    text[length] = '\0';
    return text;
}

static char *text_copy(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = bench_malloc(size);
    memcpy(copy, text, size);
    return copy;
}

static void programs_load(void)
{
    for (size_t i = 0; i < PROGRAM_COUNT; ++i) {
        compile_program *p = &programs[i];
        p->opencl = p->opencl_path ? text_read(p->opencl_path)
                                   : text_copy(bench_opencl_source);
        p->cuda = p->twin_path ? text_read(p->twin_path)
                               : text_copy(bench_cuda_source);
    }
}

static void programs_free(void)
{
    for (size_t i = 0; i < PROGRAM_COUNT; ++i) {
        free(programs[i].opencl);
        free(programs[i].cuda);
    }
}

/* The text with a comment no other sample has, so no cache can answer. */
static char *unique_source(const char *text, unsigned tag)
{
    size_t length = strlen(text) + 80;
    char *unique = bench_malloc(length);
    snprintf(unique, length,
             "%s\n/* bench_compile sample %u, process %ld */\n", text, tag,
             (long)getpid());
    return unique;
}

/* ---- one build ----------------------------------------------------------------- */

typedef struct build_side {
    bench_env *env;
    const compile_program *program;
    bool kiln;    /* Kiln's build of the OpenCL C, else the raw compiler's */
    unsigned tag; /* makes the sources unique */
} build_side;

static double build_kiln(build_side *side)
{
    const compile_program *p = side->program;
    char *text = unique_source(p->opencl, ++side->tag);
    kiln_build_options options = {.language = KILN_LANGUAGE_OPENCL_C,
                                  .source_name = p->name};
    kiln_program *program = NULL;
    kiln_kernel *kernels[MAX_KERNELS];
    double start = bench_now();
    BENCH_CHECK(kiln_program_build_with(side->env->context, text, 0, &options,
                                        &program));
    for (size_t i = 0; i < p->kernel_count; ++i)
        BENCH_CHECK(kiln_kernel_create(program, p->kernels[i], &kernels[i]));
    double seconds = bench_now() - start;
    kiln_program_origin origin;
    BENCH_CHECK(kiln_program_get_origin(program, &origin));
    if (origin != KILN_PROGRAM_COMPILED)
        bench_fail("%s came from a cache where a cold build was meant",
                   p->name);
    for (size_t i = 0; i < p->kernel_count; ++i)
        BENCH_CHECK(kiln_kernel_release(kernels[i]));
    BENCH_CHECK(kiln_program_release(program));
    free(text);
    return seconds;
}

static double build_raw(build_side *side)
{
    const compile_program *p = side->program;
    double seconds = 0.0;
#ifdef KILN_BENCH_CUDA
    if (side->env->cuda) {
        char *text = unique_source(p->cuda, ++side->tag);
        double start = bench_now();
        size_t size = 0;
        void *cubin = bench_nvrtc_compile(side->env, text, p->name, &size);
        CUmodule module;
        CU_CHECK(cu.cuModuleLoadData(&module, cubin));
        for (size_t i = 0; i < p->kernel_count; ++i)
            (void)bench_cuda_function(module, p->kernels[i]);
        seconds = bench_now() - start;
        CU_CHECK(cu.cuModuleUnload(module));
        free(cubin);
        free(text);
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (side->env->opencl) {
        char *text = unique_source(p->opencl, ++side->tag);
        double start = bench_now();
        cl_program program = bench_cl_program(side->env, text, NULL);
        cl_kernel kernels[MAX_KERNELS];
        for (size_t i = 0; i < p->kernel_count; ++i) {
            cl_int error = CL_SUCCESS;
            kernels[i] = clCreateKernel(program, p->kernels[i], &error);
            CL_CHECK(error);
        }
        seconds = bench_now() - start;
        for (size_t i = 0; i < p->kernel_count; ++i)
            CL_CHECK(clReleaseKernel(kernels[i]));
        CL_CHECK(clReleaseProgram(program));
        free(text);
    }
#endif
    (void)p;
    return seconds;
}

static double sample_build(void *state)
{
    build_side *side = state;
    return side->kiln ? build_kiln(side) : build_raw(side);
}

/* ---- fresh processes --------------------------------------------------------------- */

#define CHILD_MARK "bench_compile child seconds: "

/* Runs this program again as `--child kiln|raw INDEX`; its last line says
 * how long its one build took. */
static double sample_fresh_process(void *state)
{
    build_side *side = state;
    char self[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0)
        bench_fail("readlink(/proc/self/exe): %s", strerror(errno));
    self[length] = '\0';
    char index[32];
    snprintf(index, sizeof index, "%zu", (size_t)(side->program - programs));
    char *child_argv[] = {self, "--child", side->kiln ? "kiln" : "raw", index,
                          NULL};
    int channel[2];
    if (pipe(channel) != 0)
        bench_fail("pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child < 0)
        bench_fail("fork: %s", strerror(errno));
    if (child == 0) {
        dup2(channel[1], STDOUT_FILENO);
        dup2(channel[1], STDERR_FILENO);
        close(channel[0]);
        close(channel[1]);
        execv(self, child_argv);
        _exit(127);
    }
    close(channel[1]);
    size_t capacity = 4096, used = 0;
    char *output = bench_malloc(capacity);
    ssize_t got;
    while ((got = read(channel[0], output + used, capacity - used - 1)) > 0) {
        used += (size_t)got;
        if (capacity - used <= 1) {
            capacity *= 2;
            char *grown = realloc(output, capacity);
            if (grown == NULL)
                bench_fail("out of memory");
            output = grown;
        }
    }
    close(channel[0]);
    output[used] = '\0';
    int status = 0;
    if (waitpid(child, &status, 0) < 0)
        bench_fail("waitpid: %s", strerror(errno));
    const char *mark = strstr(output, CHILD_MARK);
    double seconds = -1.0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || mark == NULL ||
        sscanf(mark + strlen(CHILD_MARK), "%lf", &seconds) != 1 ||
        seconds < 0.0)
        bench_fail("the child process (%s build of %s) failed:\n%s",
                   side->kiln ? "Kiln's" : "the raw", side->program->name,
                   output);
    free(output);
    return seconds;
}

static int child_main(const char *which, const char *index)
{
    char *end = NULL;
    unsigned long i = strtoul(index, &end, 10);
    if (end == index || *end != '\0' || i >= PROGRAM_COUNT)
        bench_fail("--child: no program %s", index);
    programs_load();
    bench_env env;
    char *argv0[] = {"bench_compile", NULL};
    bench_open(&env, "bench_compile child", 1, argv0);
    build_side side = {.env = &env, .program = &programs[i],
                       .kiln = strcmp(which, "kiln") == 0};
    double seconds = sample_build(&side);
    printf("\n" CHILD_MARK "%.9f\n", seconds);
    bench_close(&env);
    programs_free();
    return EXIT_SUCCESS;
}

/* ---- the cache directory ---------------------------------------------------------------- */

static int remove_entry(const char *path, const struct stat *info, int flag,
                        struct FTW *walk)
{
    (void)info;
    (void)flag;
    (void)walk;
    if (remove(path) != 0)
        fprintf(stderr, "bench_compile: could not remove %s\n", path);
    return 0;
}

/* ---- rows -------------------------------------------------------------------------------- */

static void row(const compile_program *p, const char *when,
                const bench_variant *kiln, const bench_variant *raw)
{
    size_t lines = 0;
    for (const char *c = p->opencl; *c != '\0'; ++c)
        lines += *c == '\n';
    char what[160], size[64];
    snprintf(what, sizeof what, "%s, %s", p->name, when);
    snprintf(size, sizeof size, "%zu kernel%s, %zu lines", p->kernel_count,
             p->kernel_count == 1 ? "" : "s", lines);
    bench_stats k = bench_stats_of(&kiln->samples);
    bench_stats r = bench_stats_of(&raw->samples);
    char kiln_text[96], raw_text[96], compare[64] = "—";
    bench_format_time(kiln_text, sizeof kiln_text, &k);
    bench_format_time(raw_text, sizeof raw_text, &r);
    if (k.count > 0 && r.count > 0 && r.median > 0)
        snprintf(compare, sizeof compare, "%.2f× (%+.1f ms)",
                 k.median / r.median, (k.median - r.median) * 1e3);
    bench_table_row(what, size, kiln_text, raw_text, compare, "Kiln ≤ 3× raw",
                    bench_judge(&k, &r, 3.0, 0.0));
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], argv[3]);
    bench_env env;
    bench_open(&env, "bench_compile: cold builds against the raw compiler",
               argc, argv);
    if (!env.raw) {
        printf("\nNo raw compiler to compare with: %s.\n", env.raw_why);
        bench_close(&env);
        return EXIT_SUCCESS;
    }
    bool quick = bench_quick();
    programs_load();

    /* A cache of our own, empty at the start; the children inherit it. */
    char cache_dir[] = "/tmp/kiln-bench-compile-XXXXXX";
    if (mkdtemp(cache_dir) == NULL)
        bench_fail("mkdtemp(%s) failed", cache_dir);
    setenv("KILN_CACHE_DIR", cache_dir, 1);
    unsetenv("KILN_CACHE");

    bench_variant fresh[PROGRAM_COUNT][2], later[PROGRAM_COUNT][2];
    build_side sides[PROGRAM_COUNT][2];
    for (size_t i = 0; i < PROGRAM_COUNT; ++i) {
        for (int s = 0; s < 2; ++s) {
            sides[i][s] = (build_side){.env = &env, .program = &programs[i],
                                       .kiln = s == 0};
            fresh[i][s] = (bench_variant){
                .name = s == 0 ? "kiln, fresh process" : "raw, fresh process",
                .run = sample_fresh_process, .state = &sides[i][s]};
            later[i][s] = (bench_variant){
                .name = s == 0 ? "kiln" : "raw", .run = sample_build,
                .state = &sides[i][s]};
        }
        /* A CPU device's first build in a process takes seconds (PoCL
         * starts its compiler): fewer samples there. */
        bench_progress("%s: first builds in fresh processes", programs[i].name);
        bench_measure(fresh[i], 2, 0, quick || !env.cuda ? 2 : 5,
                      env.cuda ? 12 : 2, bench_budget(4.0));
        bench_progress("%s: later builds in this process", programs[i].name);
        bench_measure(later[i], 2, 1, quick ? 3 : 7, 40, bench_budget(3.0));
    }

    bench_table_begin(
        "Cold build of an OpenCL C program, then kiln_kernel_create for each "
        "kernel",
        env.cuda ? "NVRTC of the CUDA C twin + cuModuleLoadData + "
                   "cuModuleGetFunction"
                 : "clBuildProgram of the same OpenCL C + clCreateKernel");
    for (size_t i = 0; i < PROGRAM_COUNT; ++i) {
        row(&programs[i], "first build in a fresh process", &fresh[i][0],
            &fresh[i][1]);
        row(&programs[i], "later builds in the same process", &later[i][0],
            &later[i][1]);
    }
    bench_table_end();
    bench_note("Host clock around the build and the kernel creations only; "
               "every source unique, Kiln's kernel cache empty for it. A "
               "fresh-process sample is a new process that creates its "
               "context untimed, then times its one build%s.",
               env.cuda ? " (NVRTC's start-up in that process included, on "
                          "both sides). Raw: the kernels written in CUDA C "
                          "(bench/twins), compiled with "
                          "--gpu-architecture alone"
                        : "");

    for (size_t i = 0; i < PROGRAM_COUNT; ++i)
        for (int s = 0; s < 2; ++s) {
            bench_samples_free(&fresh[i][s].samples);
            bench_samples_free(&later[i][s].samples);
        }
    programs_free();
    bench_close(&env);
    nftw(cache_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return EXIT_SUCCESS;
}
