/*
 * Kernel templates named by the host (tests/kernels/cuda/templates_by_name.cu),
 * as NVRTC's name expressions and CuPy's name_expressions name them:
 * kiln_kernel_create(program, "sgemm<16, 4>") on a program built without
 * that name (built again with it), names given at build time
 * (kiln_build_options.kernel_names), the spellings NVRTC takes as one
 * kernel, names that are no instance refused, and the disk cache keyed by
 * the names.  Each instance runs against a CPU reference on random inputs,
 * on every backend: NVRTC's name expressions on CUDA, the translator's
 * instances on OpenCL.
 */
#include "config.h" /* _GNU_SOURCE: setenv under -std=c11 */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kernel_file[] = "tests/kernels/cuda/templates_by_name.cu";

/* The file built with `names` (none: NULL, 0). */
static kiln_program *build_names(kiln_context *context,
                                 const char *const *names, size_t count)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", test_srcdir(), kernel_file);
    kiln_build_options options = {.struct_size = sizeof options,
                                  .language = KILN_LANGUAGE_CUDA_C,
                                  .kernel_names = names,
                                  .kernel_name_count = count};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_file(context, path, &options, &program));
    return program;
}

/* sgemm<block, tile> as `name` against the CPU on a random M x K x N
 * product that no tile divides. */
static void check_sgemm(kiln_context *context, kiln_program *program,
                        const char *name, int block, int tile)
{
    enum { M = 70, N = 45, K = 53 };
    float *a = test_alloc(M * K * sizeof *a), *b = test_alloc(K * N * sizeof *b);
    float *c = test_alloc(M * N * sizeof *c), *want = test_alloc(M * N * sizeof *c);
    test_random_floats(a, M * K, -1.0f, 1.0f);
    test_random_floats(b, K * N, -1.0f, 1.0f);
    test_random_floats(c, M * N, -1.0f, 1.0f);
    float alpha = test_random_float(0.5f, 2.0f);
    float beta = test_random_float(-1.0f, 1.0f);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double sum = 0;
            for (int k = 0; k < K; ++k)
                sum += (double)a[i * K + k] * b[k * N + j];
            want[i * N + j] = (float)(alpha * sum + beta * c[i * N + j]);
        }
    kiln_kernel *kernel = NULL;
    TEST_OK(kiln_kernel_create(program, name, &kernel));
    kiln_buffer *ba = test_buffer_from(context, a, M * K * sizeof *a);
    kiln_buffer *bb = test_buffer_from(context, b, K * N * sizeof *b);
    kiln_buffer *bc = test_buffer_from(context, c, M * N * sizeof *c);
    size_t rows = (size_t)(block * tile);
    TEST_LAUNCH(kernel, KILN_DIM3((N + block - 1) / block, (M + rows - 1) / rows, 1),
                KILN_DIM3(block, block, 1), 0, KILN_ARG_INT(M),
                KILN_ARG_INT(N), KILN_ARG_INT(K), KILN_ARG_FLOAT(alpha),
                KILN_ARG_BUFFER(ba), KILN_ARG_BUFFER(bb),
                KILN_ARG_FLOAT(beta), KILN_ARG_BUFFER(bc));
    test_read(bc, c, M * N * sizeof *c);
    test_assert_floats_near(c, want, M * N, 1e-4);
    TEST_OK(kiln_buffer_release(ba));
    TEST_OK(kiln_buffer_release(bb));
    TEST_OK(kiln_buffer_release(bc));
    TEST_OK(kiln_kernel_release(kernel));
    free(a);
    free(b);
    free(c);
    free(want);
}

/* axpby<float> as `name`. */
static void check_axpby_float(kiln_context *context, kiln_program *program,
                              const char *name)
{
    enum { N = 1000 };
    float x[N], y[N], want[N];
    test_random_floats(x, N, -4.0f, 4.0f);
    test_random_floats(y, N, -4.0f, 4.0f);
    float a = test_random_float(-2.0f, 2.0f), b = test_random_float(-2.0f, 2.0f);
    for (int i = 0; i < N; ++i)
        want[i] = a * x[i] + b * y[i];
    kiln_kernel *kernel = NULL;
    TEST_OK(kiln_kernel_create(program, name, &kernel));
    kiln_buffer *bx = test_buffer_from(context, x, sizeof x);
    kiln_buffer *by = test_buffer_from(context, y, sizeof y);
    TEST_LAUNCH(kernel, KILN_DIM3(3, 1, 1), KILN_DIM3(128, 1, 1), 0,
                KILN_ARG_INT(N), KILN_ARG_FLOAT(a), KILN_ARG_BUFFER(bx),
                KILN_ARG_FLOAT(b), KILN_ARG_BUFFER(by));
    test_read(by, y, sizeof y);
    test_assert_floats_near(y, want, N, 1e-5);
    TEST_OK(kiln_buffer_release(bx));
    TEST_OK(kiln_buffer_release(by));
    TEST_OK(kiln_kernel_release(kernel));
}

/* axpby<int> as `name`. */
static void check_axpby_int(kiln_context *context, kiln_program *program,
                            const char *name)
{
    enum { N = 777 };
    int32_t x[N], y[N], want[N];
    test_random_ints(x, N, -1000, 1000);
    test_random_ints(y, N, -1000, 1000);
    int a = (int)(test_random_u64() % 7) + 2, b = -3;
    for (int i = 0; i < N; ++i)
        want[i] = a * x[i] + b * y[i];
    kiln_kernel *kernel = NULL;
    TEST_OK(kiln_kernel_create(program, name, &kernel));
    kiln_buffer *bx = test_buffer_from(context, x, sizeof x);
    kiln_buffer *by = test_buffer_from(context, y, sizeof y);
    TEST_LAUNCH(kernel, KILN_DIM3(2, 1, 1), KILN_DIM3(64, 1, 1), 0,
                KILN_ARG_INT(N), KILN_ARG_INT(a), KILN_ARG_BUFFER(bx),
                KILN_ARG_INT(b), KILN_ARG_BUFFER(by));
    test_read(by, y, sizeof y);
    for (int i = 0; i < N; ++i)
        if (y[i] != want[i])
            fail_msg("%s: y[%d] = %d, expected %d", name, i, y[i], want[i]);
    TEST_OK(kiln_buffer_release(bx));
    TEST_OK(kiln_buffer_release(by));
    TEST_OK(kiln_kernel_release(kernel));
}

/* blas::scale and the plain fill beside the templates. */
static void check_namespace_and_plain(kiln_context *context,
                                      kiln_program *program)
{
    enum { N = 300 };
    float x[N];
    float value = test_random_float(1.0f, 3.0f), s = test_random_float(-2.0f, 2.0f);
    kiln_buffer *bx = test_buffer(context, sizeof x);
    kiln_kernel *fill = NULL, *scale = NULL;
    TEST_OK(kiln_kernel_create(program, "fill", &fill));
    TEST_OK(kiln_kernel_create(program, "blas::scale", &scale));
    TEST_LAUNCH(fill, KILN_DIM3(3, 1, 1), KILN_DIM3(128, 1, 1), 0,
                KILN_ARG_INT(N), KILN_ARG_FLOAT(value), KILN_ARG_BUFFER(bx));
    TEST_LAUNCH(scale, KILN_DIM3(3, 1, 1), KILN_DIM3(128, 1, 1), 0,
                KILN_ARG_INT(N), KILN_ARG_FLOAT(s), KILN_ARG_BUFFER(bx));
    test_read(bx, x, sizeof x);
    for (int i = 0; i < N; ++i)
        if (x[i] != value * s)
            fail_msg("x[%d] = %g, expected %g", i, (double)x[i],
                     (double)(value * s));
    TEST_OK(kiln_kernel_release(fill));
    TEST_OK(kiln_kernel_release(scale));
    TEST_OK(kiln_buffer_release(bx));
}

/* ---- instances named after the build -------------------------------------- */

static void test_named_after_build(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = build_names(context, NULL, 0);
    /* each new instance builds the program again, with the ones before */
    check_sgemm(context, program, "sgemm<16, 4>", 16, 4);
    check_sgemm(context, program, "sgemm<8,2>", 8, 2);
    check_sgemm(context, program, "sgemm< 16 , 1 >", 16, 1);
    check_axpby_float(context, program, "axpby<float>");
    check_axpby_int(context, program, "axpby<int>");
    check_namespace_and_plain(context, program);
    /* the first instances still run from the program's newest build */
    check_sgemm(context, program, "sgemm<16, 4>", 16, 4);
    size_t count = 0;
    TEST_OK(kiln_program_get_kernel_count(program, &count));
    bool listed = false;
    for (size_t k = 0; k < count; ++k) {
        const char *name = NULL;
        TEST_OK(kiln_program_get_kernel_name(program, k, &name));
        listed |= strcmp(name, "sgemm<8, 2>") == 0;
    }
    if (!listed)
        fail_msg("the program does not list sgemm<8, 2> after it was built");
    TEST_OK(kiln_program_release(program));
}

/* A kernel created before a rebuild keeps its build and still runs. */
static void test_kernel_outlives_rebuild(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = build_names(context, NULL, 0);
    kiln_kernel *first = NULL;
    TEST_OK(kiln_kernel_create(program, "axpby<float>", &first));
    check_axpby_int(context, program, "axpby<int>"); /* builds again */
    enum { N = 100 };
    float x[N], y[N], want[N];
    test_random_floats(x, N, -1.0f, 1.0f);
    test_random_floats(y, N, -1.0f, 1.0f);
    for (int i = 0; i < N; ++i)
        want[i] = 2.0f * x[i] - y[i];
    kiln_buffer *bx = test_buffer_from(context, x, sizeof x);
    kiln_buffer *by = test_buffer_from(context, y, sizeof y);
    TEST_LAUNCH(first, KILN_DIM3(1, 1, 1), KILN_DIM3(64, 1, 1), 0,
                KILN_ARG_INT(N), KILN_ARG_FLOAT(2.0f), KILN_ARG_BUFFER(bx),
                KILN_ARG_FLOAT(-1.0f), KILN_ARG_BUFFER(by));
    test_read(by, y, sizeof y);
    test_assert_floats_near(y, want, N, 1e-6);
    TEST_OK(kiln_kernel_release(first));
    TEST_OK(kiln_buffer_release(bx));
    TEST_OK(kiln_buffer_release(by));
    TEST_OK(kiln_program_release(program));
}

/* ---- names given at build time ------------------------------------------- */

static void test_named_at_build(void **state)
{
    kiln_context *context = test_context(state);
    static const char *const names[] = {"axpby<float>", "sgemm<8, 4>",
                                        "axpby<int>", "&sgemm<8,4>"};
    kiln_program *program = build_names(context, names, 4);
    size_t before = 0, after = 0;
    TEST_OK(kiln_program_get_kernel_count(program, &before));
    check_sgemm(context, program, "sgemm<8, 4>", 8, 4);
    check_axpby_float(context, program, "axpby< float >");
    check_axpby_int(context, program, "axpby<int>");
    /* all were in the build: nothing was built again */
    TEST_OK(kiln_program_get_kernel_count(program, &after));
    if (after != before)
        fail_msg("%zu kernels before, %zu after: the program was built "
                 "again for a name it was given",
                 before, after);
    TEST_OK(kiln_program_release(program));
}

/* ---- spellings -------------------------------------------------------------- */

static void test_spellings(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = build_names(context, NULL, 0);
    static const char *const spellings[] = {
        "sgemm<16, 2>", "sgemm<16,2>", " sgemm < 16 , 2 > ", "&sgemm<16, 2>",
        "sgemm<16,\t2>",
    };
    for (size_t s = 0; s < sizeof spellings / sizeof spellings[0]; ++s) {
        kiln_kernel *kernel = NULL;
        TEST_OK(kiln_kernel_create(program, spellings[s], &kernel));
        const char *name = NULL;
        TEST_OK(kiln_kernel_get_name(kernel, &name));
        if (strcmp(name, "sgemm<16, 2>") != 0)
            fail_msg("'%s' is named '%s'", spellings[s], name);
        TEST_OK(kiln_kernel_release(kernel));
    }
    check_sgemm(context, program, "sgemm<16,2>", 16, 2);
    TEST_OK(kiln_program_release(program));
}

/* ---- what is no instance ---------------------------------------------------- */

static void test_unknown_names(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = build_names(context, NULL, 0);
    static const struct {
        const char *name, *mentions;
    } cases[] = {
        {"nosuch<1>", "nosuch<1>"},          /* no such template */
        {"sgemm<float, 2>", "sgemm<float, 2>"}, /* a type for a value */
        {"sgemm<1, 2, 3>", "sgemm<1, 2, 3>"}, /* too many arguments */
        {"axpby", "axpby"},                  /* a template is no kernel */
        {"blas::nosuch", "blas::nosuch"},
        {"sgemm<16;4>", "sgemm<16;4>"},      /* no name expression */
        {"sgemm<16, 4>{}", "sgemm<16, 4>{}"},
        {"sgemm<(16, 4>", "sgemm<(16, 4>"},
    };
    for (int round = 0; round < 2; ++round)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            kiln_kernel *kernel = NULL;
            TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
                       kiln_kernel_create(program, cases[c].name, &kernel));
            TEST_ERROR_MENTIONS(cases[c].mentions);
        }
    /* the program is as it was */
    check_sgemm(context, program, "sgemm<8, 8>", 8, 8);
    TEST_OK(kiln_program_release(program));

    /* a template's one instance is still no kernel of the template's plain
     * name (CUDA's module lists it under its mangled symbol alone) */
    static const char *const one[] = {"axpby<float>"};
    program = build_names(context, one, 1);
    kiln_kernel *plain = NULL;
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "axpby", &plain));
    TEST_ERROR_MENTIONS("axpby");
    check_axpby_float(context, program, "axpby<float>");
    TEST_OK(kiln_program_release(program));

    /* names given at build time: checked, and one that is no instance fails
     * the build naming it */
    kiln_build_options options = {.struct_size = sizeof options,
                                  .language = KILN_LANGUAGE_CUDA_C};
    static const char *const bad[] = {"sgemm<16; }"};
    options.kernel_names = bad;
    options.kernel_name_count = 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", test_srcdir(), kernel_file);
    program = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_file(context, path, &options, &program));
    TEST_ERROR_MENTIONS("sgemm<16; }");
    static const char *const absent[] = {"sgemm<16, 4>", "gemm<16, 4>"};
    options.kernel_names = absent;
    options.kernel_name_count = 2;
    kiln_status status = kiln_program_build_file(context, path, &options,
                                                 &program);
    if (status != KILN_ERR_BUILD && status != KILN_ERR_TRANSLATION)
        fail_msg("a missing template -> %s, expected a build error (%s)",
                 kiln_status_name(status), kiln_last_error());
    TEST_ERROR_MENTIONS("gemm");
    options.kernel_names = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_file(context, path, &options, &program));
    /* OpenCL C has no templates */
    options.kernel_names = absent;
    options.language = KILN_LANGUAGE_OPENCL_C;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_with(context, "kernel void k() {}", 0,
                                       &options, &program));
}

/* ---- the disk cache ---------------------------------------------------------- */

static kiln_program_origin origin_of(kiln_program *program)
{
    kiln_program_origin origin;
    TEST_OK(kiln_program_get_origin(program, &origin));
    return origin;
}

static void test_disk_cache(void **state)
{
    (void)test_context(state); /* skips a backend that is not here */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/cache-names", test_scratch_dir());
    unsetenv("KILN_CACHE");
    setenv("KILN_CACHE_DIR", dir, 1);
    static const char *const names[] = {"sgemm<16, 4>", "axpby<float>"};
    static const char *const respelt[] = {"axpby< float >", "&sgemm<16,4>"};
    static const char *const other[] = {"sgemm<16, 4>"};
    for (int round = 0; round < 3; ++round) {
        /* a context of its own: only the disk cache can have the build */
        kiln_context *context = NULL;
        TEST_OK(kiln_context_create(test_backend(state), -1, &context));
        kiln_program *program =
            build_names(context, round == 1 ? respelt : names, 2);
        kiln_program_origin want = round == 0 ? KILN_PROGRAM_COMPILED
                                              : KILN_PROGRAM_FROM_DISK_CACHE;
        if (origin_of(program) != want)
            fail_msg("round %d: origin %d, expected %d", round,
                     (int)origin_of(program), (int)want);
        check_sgemm(context, program, "sgemm<16,4>", 16, 4);
        check_axpby_float(context, program, "axpby<float>");
        TEST_OK(kiln_program_release(program));
        /* another set of names is another binary */
        program = build_names(context, other, 1);
        if (round == 0 && origin_of(program) != KILN_PROGRAM_COMPILED)
            fail_msg("other names: origin %d, expected a compile",
                     (int)origin_of(program));
        check_sgemm(context, program, "sgemm<16, 4>", 16, 4);
        TEST_OK(kiln_program_release(program));
        TEST_OK(kiln_context_release(context));
    }
    /* a name added after the build is cached under the names so far */
    for (int round = 0; round < 2; ++round) {
        kiln_context *context = NULL;
        TEST_OK(kiln_context_create(test_backend(state), -1, &context));
        kiln_program *program = build_names(context, other, 1);
        check_axpby_int(context, program, "axpby<int>");
        TEST_OK(kiln_program_release(program));
        static const char *const both[] = {"axpby<int>", "sgemm<16, 4>"};
        program = build_names(context, both, 2);
        if (origin_of(program) != KILN_PROGRAM_FROM_MEMORY_CACHE)
            fail_msg("round %d: the rebuilt program is not in the memory "
                     "cache (origin %d)",
                     round, (int)origin_of(program));
        TEST_OK(kiln_program_release(program));
        TEST_OK(kiln_context_release(context));
    }
    unsetenv("KILN_CACHE_DIR");
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_named_after_build),
        KILN_TEST(test_kernel_outlives_rebuild),
        KILN_TEST(test_named_at_build),
        KILN_TEST(test_spellings),
        KILN_TEST(test_unknown_names),
        KILN_TEST(test_disk_cache),
    };
    return kiln_test_main("cuda_names", tests, sizeof tests / sizeof tests[0]);
}
