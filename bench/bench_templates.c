/*
 * bench_templates — issue 26, point 8: a kernel template's speed and the
 * translation's own.
 *
 * 1. A tiled SGEMM written as a CUDA C kernel template (sgemm<BLOCK, TILE>,
 *    1-D register blocking, the style of tests/kernels/cuda/
 *    templates_by_name.cu), its instance "sgemm<16, 4>" named by the host
 *    (kiln_kernel_create, NVRTC's name expressions on CUDA, the
 *    translator's instance on OpenCL).  Budgets: on an OpenCL device the
 *    translated instance within 1.1x of the same algorithm hand-written in
 *    OpenCL C; on NVIDIA's OpenCL within 1.1x of the same CUDA C native on
 *    the CUDA backend.  Each side times launches back to back between two
 *    Kiln events, the sides alternating (bench_measure), after a check
 *    against the CPU.
 * 2. Translating a CUDA C file of 2,000 lines to OpenCL C (the front end's
 *    preprocessing, the C++ lowering, the translation: translate_open and
 *    translate_to_target, as the core runs them on a cache miss; no
 *    compiler).  Budget: under 50 ms.  The file is made here: 2,000 lines
 *    of templates, device functions, shared-memory kernels and warp
 *    shuffles in namespaces.  Files named on the command line are timed
 *    too (-IDIR adds an include directory), e.g. the survey's largest
 *    units.
 *
 * Contexts: "opencl" (KILN_OPENCL_PLATFORM picks the platform) and "cuda";
 * a side that cannot be opened is reported and left out.
 */
#include "bench_util.h"
#include "translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SGEMM_BLOCK 16
#define SGEMM_TILE 4

static const char cuda_source[] =
    "#define IDX2(row, col, ld) ((row) * (ld) + (col))\n"
    "template <int BLOCK, int TILE>\n"
    "__global__ void sgemm(int M, int N, int K, float alpha, const float *A,\n"
    "                      const float *B, float beta, float *C)\n"
    "{\n"
    "    __shared__ float As[BLOCK * TILE][BLOCK];\n"
    "    __shared__ float Bs[BLOCK][BLOCK];\n"
    "    const int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    const int row0 = blockIdx.y * (BLOCK * TILE) + ty * TILE;\n"
    "    const int col = blockIdx.x * BLOCK + tx;\n"
    "    float acc[TILE];\n"
    "#pragma unroll\n"
    "    for (int t = 0; t < TILE; ++t)\n"
    "        acc[t] = 0.0f;\n"
    "    for (int k0 = 0; k0 < K; k0 += BLOCK) {\n"
    "#pragma unroll\n"
    "        for (int t = 0; t < TILE; ++t) {\n"
    "            int r = row0 + t, c = k0 + tx;\n"
    "            As[ty * TILE + t][tx] = (r < M && c < K) ? A[IDX2(r, c, K)] : 0.0f;\n"
    "        }\n"
    "        int r = k0 + ty;\n"
    "        Bs[ty][tx] = (r < K && col < N) ? B[IDX2(r, col, N)] : 0.0f;\n"
    "        __syncthreads();\n"
    "        for (int k = 0; k < BLOCK; ++k) {\n"
    "            float b = Bs[k][tx];\n"
    "#pragma unroll\n"
    "            for (int t = 0; t < TILE; ++t)\n"
    "                acc[t] += As[ty * TILE + t][k] * b;\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "#pragma unroll\n"
    "    for (int t = 0; t < TILE; ++t) {\n"
    "        int r = row0 + t;\n"
    "        if (r < M && col < N)\n"
    "            C[IDX2(r, col, N)] = alpha * acc[t] + beta * C[IDX2(r, col, N)];\n"
    "    }\n"
    "}\n";

/* The same algorithm as OpenCL C is written by hand: sizes as macros. */
static const char opencl_source[] =
    "#define BLOCK 16\n"
    "#define TILE 4\n"
    "__kernel void sgemm_16_4(int M, int N, int K, float alpha,\n"
    "                         __global const float *A,\n"
    "                         __global const float *B, float beta,\n"
    "                         __global float *C)\n"
    "{\n"
    "    __local float As[BLOCK * TILE][BLOCK];\n"
    "    __local float Bs[BLOCK][BLOCK];\n"
    "    const int tx = get_local_id(0), ty = get_local_id(1);\n"
    "    const int row0 = get_group_id(1) * (BLOCK * TILE) + ty * TILE;\n"
    "    const int col = get_group_id(0) * BLOCK + tx;\n"
    "    float acc[TILE];\n"
    "    for (int t = 0; t < TILE; ++t)\n"
    "        acc[t] = 0.0f;\n"
    "    for (int k0 = 0; k0 < K; k0 += BLOCK) {\n"
    "        for (int t = 0; t < TILE; ++t) {\n"
    "            int r = row0 + t, c = k0 + tx;\n"
    "            As[ty * TILE + t][tx] = (r < M && c < K) ? A[r * K + c] : 0.0f;\n"
    "        }\n"
    "        int r = k0 + ty;\n"
    "        Bs[ty][tx] = (r < K && col < N) ? B[r * N + col] : 0.0f;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        for (int k = 0; k < BLOCK; ++k) {\n"
    "            float b = Bs[k][tx];\n"
    "            for (int t = 0; t < TILE; ++t)\n"
    "                acc[t] += As[ty * TILE + t][k] * b;\n"
    "        }\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    for (int t = 0; t < TILE; ++t) {\n"
    "        int r = row0 + t;\n"
    "        if (r < M && col < N)\n"
    "            C[r * N + col] = alpha * acc[t] + beta * C[r * N + col];\n"
    "    }\n"
    "}\n";

typedef struct sgemm_side {
    const char *name;
    const char *backend;
    int opencl_c;            /* the hand-written OpenCL C                  */
    char why[512];           /* why it is left out, "" while it works       */
    kiln_context *context;
    kiln_device_info device;
    kiln_kernel *kernel;
    kiln_buffer *a, *b, *c;
    bench_event_side timed;  /* launch(): one sgemm                      */
    int n;
} sgemm_side;

static void side_fail(sgemm_side *s, const char *what)
{
    if (s->why[0] == '\0')
        snprintf(s->why, sizeof s->why, "%s: %s", what, kiln_last_error());
}

static kiln_status launch(void *state)
{
    sgemm_side *s = state;
    const int rows = SGEMM_BLOCK * SGEMM_TILE;
    kiln_launch_config config = {
        .grid = KILN_DIM2((s->n + SGEMM_BLOCK - 1) / SGEMM_BLOCK,
                          (s->n + rows - 1) / rows),
        .block = KILN_DIM2(SGEMM_BLOCK, SGEMM_BLOCK)};
    /* beta 0: every run computes the same C */
    kiln_arg args[] = {KILN_ARG_INT(s->n),       KILN_ARG_INT(s->n),
                       KILN_ARG_INT(s->n),       KILN_ARG_FLOAT(1.0f),
                       KILN_ARG_BUFFER(s->a),    KILN_ARG_BUFFER(s->b),
                       KILN_ARG_FLOAT(0.0f),     KILN_ARG_BUFFER(s->c)};
    return kiln_launch(s->kernel, &config, 8, args);
}

/* Builds, checks rows of C against the CPU; false (with s->why) when not. */
static bool side_open(sgemm_side *s, const float *a, const float *b, int n)
{
    if (kiln_context_create(s->backend, -1, &s->context) != KILN_OK) {
        side_fail(s, "no context");
        return false;
    }
    BENCH_CHECK(kiln_context_get_device_info(s->context, &s->device));
    /* a CPU device gets a smaller product (PoCL: seconds per run) */
    s->n = s->device.type == KILN_DEVICE_GPU ? n : n / 4;
    kiln_build_options options = {.language = s->opencl_c
                                                  ? KILN_LANGUAGE_OPENCL_C
                                                  : KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    if (kiln_program_build_with(s->context,
                                s->opencl_c ? opencl_source : cuda_source, 0,
                                &options, &program) != KILN_OK ||
        kiln_kernel_create(program, s->opencl_c ? "sgemm_16_4" : "sgemm<16, 4>",
                           &s->kernel) != KILN_OK) {
        side_fail(s, "build");
        return false;
    }
    kiln_program_release(program);
    size_t bytes = (size_t)s->n * (size_t)s->n * sizeof(float);
    /* the first s->n x s->n of the n x n inputs, row by row */
    float *pa = bench_malloc(bytes), *pb = bench_malloc(bytes);
    for (int i = 0; i < s->n; ++i) {
        memcpy(pa + (size_t)i * s->n, a + (size_t)i * n, (size_t)s->n * sizeof *a);
        memcpy(pb + (size_t)i * s->n, b + (size_t)i * n, (size_t)s->n * sizeof *b);
    }
    BENCH_CHECK(kiln_buffer_create_from(s->context, pa, bytes, &s->a));
    BENCH_CHECK(kiln_buffer_create_from(s->context, pb, bytes, &s->b));
    BENCH_CHECK(kiln_buffer_create(s->context, bytes, &s->c));
    BENCH_CHECK(kiln_event_create(s->context, &s->timed.start));
    BENCH_CHECK(kiln_event_create(s->context, &s->timed.end));
    s->timed.launch = launch;
    s->timed.state = s;
    if (launch(s) != KILN_OK) {
        side_fail(s, "launch");
        free(pa);
        free(pb);
        return false;
    }
    float *row = bench_malloc((size_t)s->n * sizeof *row);
    /* three rows: the first, the middle and the last */
    int checked[] = {0, s->n / 2, s->n - 1};
    for (int k = 0; k < 3 && s->why[0] == '\0'; ++k) {
        int i = checked[k];
        BENCH_CHECK(kiln_buffer_read(s->c, (size_t)i * s->n * sizeof *row, row,
                                     (size_t)s->n * sizeof *row));
        for (int j = 0; j < s->n; ++j) {
            double sum = 0, magnitude = 0;
            for (int q = 0; q < s->n; ++q) {
                double term = (double)pa[(size_t)i * s->n + q] * pb[(size_t)q * s->n + j];
                sum += term;
                magnitude += term < 0 ? -term : term;
            }
            double error = row[j] - sum;
            if ((error < 0 ? -error : error) > 1e-5 * magnitude + 1e-6) {
                snprintf(s->why, sizeof s->why, "C[%d][%d] = %g, expected %g",
                         i, j, (double)row[j], sum);
                break;
            }
        }
    }
    free(row);
    free(pa);
    free(pb);
    s->timed.reps = s->device.type == KILN_DEVICE_GPU ? 20 : 1;
    return s->why[0] == '\0';
}

static void side_close(sgemm_side *s)
{
    kiln_kernel_release(s->kernel);
    kiln_buffer_release(s->a);
    kiln_buffer_release(s->b);
    kiln_buffer_release(s->c);
    kiln_event_release(s->timed.start);
    kiln_event_release(s->timed.end);
    kiln_context_release(s->context);
}

/* One row: `a` against `b` (the table's raw column). */
static void row(const char *what, sgemm_side *a, sgemm_side *b, double budget)
{
    char size[64];
    snprintf(size, sizeof size, "%d x %d floats", a->n, a->n);
    bench_event_row(what, size, a->name, &a->timed, b->name, &b->timed, budget);
}

/* ---- translation time ------------------------------------------------------- */

/* One namespace of typical device code, about 50 lines; `k` names it. */
static void append_unit(char **text, size_t *length, size_t *capacity, int k)
{
    char unit[4096];
    int n = snprintf(
        unit, sizeof unit,
        "namespace part%d {\n"
        "struct pair { float lo, hi; };\n"
        "template <typename T> __device__ T clamp_to(T x, T lo, T hi)\n"
        "{ return x < lo ? lo : (x > hi ? hi : x); }\n"
        "__device__ __forceinline__ float warp_sum(float v)\n"
        "{\n"
        "    for (int offset = warpSize / 2; offset > 0; offset /= 2)\n"
        "        v += __shfl_down_sync(0xffffffff, v, offset);\n"
        "    return v;\n"
        "}\n"
        "__device__ pair bounds(const float *x, int n)\n"
        "{\n"
        "    pair p = {x[0], x[0]};\n"
        "    for (int i = 1; i < n; ++i) {\n"
        "        p.lo = fminf(p.lo, x[i]);\n"
        "        p.hi = fmaxf(p.hi, x[i]);\n"
        "    }\n"
        "    return p;\n"
        "}\n"
        "template <int RADIUS>\n"
        "__global__ void stencil(const float *in, float *out, int n)\n"
        "{\n"
        "    __shared__ float tile[256 + 2 * RADIUS];\n"
        "    int g = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int l = threadIdx.x + RADIUS;\n"
        "    tile[l] = g < n ? in[g] : 0.0f;\n"
        "    if (threadIdx.x < RADIUS) {\n"
        "        tile[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;\n"
        "        tile[l + 256] = g + 256 < n ? in[g + 256] : 0.0f;\n"
        "    }\n"
        "    __syncthreads();\n"
        "    float sum = 0.0f;\n"
        "    for (int r = -RADIUS; r <= RADIUS; ++r)\n"
        "        sum += tile[l + r];\n"
        "    if (g < n)\n"
        "        out[g] = clamp_to<float>(sum, -1e30f, 1e30f);\n"
        "}\n"
        "__global__ void reduce%d(const float *in, float *out, int n)\n"
        "{\n"
        "    float v = 0.0f;\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
        "         i += blockDim.x * gridDim.x)\n"
        "        v += in[i] * in[i];\n"
        "    v = warp_sum(v);\n"
        "    if ((threadIdx.x & 31) == 0)\n"
        "        atomicAdd(out, v);\n"
        "}\n"
        "}  // namespace part%d\n",
        k, k, k);
    if (*length + (size_t)n + 1 > *capacity) {
        *capacity = (*length + (size_t)n + 1) * 2;
        *text = realloc(*text, *capacity);
        if (*text == NULL) {
            fprintf(stderr, "bench_templates: out of memory\n");
            exit(1);
        }
    }
    memcpy(*text + *length, unit, (size_t)n + 1);
    *length += (size_t)n;
}

static size_t count_lines(const char *text, size_t length)
{
    size_t lines = 0;
    for (size_t i = 0; i < length; ++i)
        lines += text[i] == '\n';
    return lines;
}

/* Milliseconds of one translation of `text` to OpenCL C, the median of
 * `repeat`; a negative value when it is refused (its message printed). */
static double translation_ms(const char *text, size_t length, const char *name,
                             const translate_options *options, int repeat)
{
    translate_target target = {.language = TRANSLATE_OPENCL_C,
                               .opencl_c_version = 120,
                               .extensions = "",
                               .vendor = "",
                               .platform = ""};
    char *dir = translate_directory_of(name);
    translate_include_search search = {.dirs = options->include_dirs,
                                       .dir_count = options->include_dir_count,
                                       .program_dir = dir};
    translate_include_reader reader = {translate_include_search_read, &search};
    translate_input input = {.text = text,
                             .length = length,
                             .name = name,
                             .language = TRANSLATE_CUDA_C,
                             .options = options,
                             .reader = &reader,
                             .target = &target};
    bench_samples samples = {0};
    double result = 0;
    for (int r = 0; r < repeat && result >= 0; ++r) {
        translate_unit *unit = NULL;
        translate_program program;
        translate_error error;
        memset(&program, 0, sizeof program);
        double started = bench_now();
        int status = translate_open(&input, &unit, &error);
        if (status == 0)
            status = translate_to_target(unit, &program, &error);
        double elapsed = bench_now() - started;
        if (status != 0) {
            printf("- %s: not translated: %s\n", name,
                   error.message ? error.message : "out of memory");
            result = -1;
        } else {
            bench_samples_add(&samples, elapsed);
        }
        translate_error_free(&error);
        translate_program_free(&program);
        translate_close(unit);
    }
    if (result >= 0)
        result = bench_stats_of(&samples).median * 1e3;
    bench_samples_free(&samples);
    free(dir);
    return result;
}

static void translation_rows(int argc, char **argv)
{
    translate_option_lists lists;
    /* -IDIR arguments are the files' include directories */
    char joined[8192] = "";
    for (int i = 1; i < argc; ++i)
        if (strncmp(argv[i], "-I", 2) == 0 &&
            strlen(joined) + strlen(argv[i]) + 2 < sizeof joined) {
            strcat(joined, argv[i]);
            strcat(joined, " ");
        }
    if (translate_options_parse(joined, &lists) != 0) {
        fprintf(stderr, "bench_templates: bad -I arguments\n");
        exit(1);
    }
    char *text = NULL;
    size_t length = 0, capacity = 0;
    for (int k = 0; count_lines(text ? text : "", length) < 2000; ++k)
        append_unit(&text, &length, &capacity, k);
    bench_table_begin("Translating CUDA C to OpenCL C (no compiler)", "");
    char size[64], took[64];
    double ms = translation_ms(text, length, "generated.cu", &lists.options, 9);
    snprintf(size, sizeof size, "%zu lines, %zu bytes", count_lines(text, length),
             length);
    snprintf(took, sizeof took, "%.1f ms", ms);
    bench_table_row("a generated file: templates, device functions, shared "
                    "memory, warp shuffles, in namespaces",
                    size, ms >= 0 ? took : "refused", "—", "—", "< 50 ms",
                    ms >= 0 ? bench_verdict(true, ms < 50) : "—");
    free(text);
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] == '-')
            continue;
        FILE *file = fopen(argv[i], "rb");
        if (file == NULL) {
            printf("- %s: cannot be read\n", argv[i]);
            continue;
        }
        char *body = bench_malloc(1 << 24);
        size_t got = fread(body, 1, (1 << 24) - 1, file);
        fclose(file);
        body[got] = '\0';
        ms = translation_ms(body, got, argv[i], &lists.options, 5);
        snprintf(size, sizeof size, "%zu lines, %zu bytes", count_lines(body, got),
                 got);
        snprintf(took, sizeof took, "%.1f ms", ms);
        const char *base = strrchr(argv[i], '/');
        bench_table_row(base ? base + 1 : argv[i], size,
                        ms >= 0 ? took : "refused", "—", "—", "—", "—");
        free(body);
    }
    bench_table_end();
    translate_option_lists_free(&lists);
}

int main(int argc, char **argv)
{
    bench_rng rng = {20261128};
    const int n = 2048;
    float *a = bench_malloc((size_t)n * n * sizeof *a);
    float *b = bench_malloc((size_t)n * n * sizeof *b);
    bench_random_floats(&rng, a, (size_t)n * n, -1.0f, 1.0f);
    bench_random_floats(&rng, b, (size_t)n * n, -1.0f, 1.0f);

    sgemm_side sides[3] = {
        {.name = "CUDA C template, translated", .backend = "opencl"},
        {.name = "OpenCL C by hand", .backend = "opencl", .opencl_c = 1},
        {.name = "CUDA C template, native", .backend = "cuda"},
    };
    printf("## bench_templates: a kernel template, and the translation's "
           "speed\n\n");
    bool have[3];
    for (int k = 0; k < 3; ++k) {
        have[k] = side_open(&sides[k], a, b, n);
        printf("- %s (%s): %s%s\n", sides[k].name, sides[k].backend,
               have[k] ? sides[k].device.name : "left out: ",
               have[k] ? "" : sides[k].why);
    }
    printf("\n");
    if (have[0] && (have[1] || have[2])) {
        bench_table_begin("sgemm<16, 4> named by the host, CUDA C translated "
                          "for OpenCL",
                          "reference");
        if (have[1])
            row("the template's instance translated vs the same algorithm in "
                "OpenCL C (same OpenCL device)",
                &sides[0], &sides[1], 1.1);
        if (have[2])
            row("the template's instance translated on OpenCL vs native on "
                "the CUDA backend",
                &sides[0], &sides[2], 1.1);
        bench_table_end();
        bench_note("Kiln column: %s; C = A B, square, beta 0.",
                   sides[0].device.name);
    }
    for (int k = 0; k < 3; ++k)
        if (have[k] || sides[k].context != NULL)
            side_close(&sides[k]);
    free(a);
    free(b);
    translation_rows(argc, argv);
    return 0;
}
