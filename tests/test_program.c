/*
 * Programs and kernels: building, compile errors carrying the compiler's
 * log, -D options changing results, kernels by name (and the error for a
 * name that is not a kernel), what Kiln reports of a kernel's parameters
 * (kinds, sizes, names and OpenCL type names), the list of a program's
 * kernels, the largest block a kernel allows, and native CUDA C on each
 * backend.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char scale_source[] =
    "/* SCALE and OFFSET come from -D options. */\n"
    "int helper_offset(void) { return OFFSET; }\n"
    "__kernel void scale(__global const int *in, __global int *out, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n) {\n"
    "#ifdef NEGATE\n"
    "        out[i] = -(in[i] * SCALE + helper_offset());\n"
    "#else\n"
    "        out[i] = in[i] * SCALE + helper_offset();\n"
    "#endif\n"
    "    }\n"
    "}\n"
    "__kernel void copy_ints(__global const int *in, __global int *out)\n"
    "{\n"
    "    out[get_global_id(0)] = in[get_global_id(0)];\n"
    "}\n";

/* Runs `scale` from a build with `options` on random data and checks it
 * against the CPU. */
static void check_scale_with(kiln_context *context,
                             const kiln_build_options *options, int scale,
                             int offset, int negate)
{
    enum { COUNT = 1000 };
    int32_t in[COUNT], out[COUNT], expected[COUNT];
    test_random_ints(in, COUNT, -10000, 10000);
    for (int i = 0; i < COUNT; ++i) {
        expected[i] = in[i] * scale + offset;
        if (negate)
            expected[i] = -expected[i];
    }
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, scale_source, 0, options,
                                    &program));
    kiln_kernel *kernel = test_kernel(program, "scale");
    kiln_buffer *in_buffer = test_buffer_from(context, in, sizeof in);
    kiln_buffer *out_buffer = test_buffer(context, sizeof out);
    kiln_launch_config config = test_config_1d(COUNT, 64);
    kiln_arg args[] = {KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer),
                       KILN_ARG_INT(COUNT)};
    TEST_OK(kiln_launch(kernel, &config, 3, args));
    TEST_OK(kiln_buffer_read(out_buffer, 0, out, sizeof out));
    for (int i = 0; i < COUNT; ++i)
        if (out[i] != expected[i])
            fail_msg("options '%s': element %d: got %d, expected %d",
                     options->options, i, out[i], expected[i]);
    TEST_OK(kiln_buffer_release(in_buffer));
    TEST_OK(kiln_buffer_release(out_buffer));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void check_scale(kiln_context *context, const char *options, int scale,
                        int offset, int negate)
{
    kiln_build_options with_options = {.options = options};
    check_scale_with(context, &with_options, scale, offset, negate);
}

static void defines_in_options_change_results(void **state)
{
    kiln_context *context = test_context(state);
    check_scale(context, "-DSCALE=3 -DOFFSET=7", 3, 7, 0);
    check_scale(context, "-DSCALE=-5 -DOFFSET=11", -5, 11, 0);
    check_scale(context, "-D SCALE=2 -D OFFSET=0 -DNEGATE", 2, 0, 1);
}

/* The options are split once, by the core, and every backend's compiler
 * sees each word as it was meant: values with spaces however they are
 * quoted (the OpenCL backend quotes them again for the driver), -D without
 * a value, and a repeated -D whose last value wins. */
static void option_words_reach_every_compiler_whole(void **state)
{
    kiln_context *context = test_context(state);
    int scale = 2 + (int)(test_random_u64() % 7);
    int offset = (int)(test_random_u64() % 100);
    char options[256];
    snprintf(options, sizeof options, "-D'SCALE=%d * 3' -D \"OFFSET=%d - 1\"",
             scale, offset);
    check_scale(context, options, scale * 3, offset - 1, 0);
    snprintf(options, sizeof options,
             "-DSCALE=\"(%d + 1)\" -DOFFSET=%d\\ +\\ 2 -D NEGATE", scale,
             offset);
    check_scale(context, options, scale + 1, offset + 2, 1);
    snprintf(options, sizeof options,
             "-DSCALE=1 -DOFFSET=0 -DSCALE=%d -D OFFSET=%d", scale, offset);
    check_scale(context, options, scale, offset, 0);
    /* The defines array appends after the string: its -D is the last. */
    const char *defines[] = {"NEGATE", "OFFSET=5"};
    snprintf(options, sizeof options, "-D 'SCALE=%d' -D'OFFSET=1 + 1'",
             scale);
    kiln_build_options with_defines = {.options = options,
                                       .defines = defines,
                                       .define_count = 2};
    check_scale_with(context, &with_defines, scale, 5, 1);

    /* Malformed options, the same message on every backend. */
    static const struct {
        const char *options;
        kiln_status status;
        const char *message;
    } bad[] = {
        {"-DSCALE=1 -D", KILN_ERR_BUILD, "build options: -D needs a value"},
        {"-D=1", KILN_ERR_BUILD, "build options: -D needs a macro name"},
        {"-I", KILN_ERR_BUILD, "build options: -I needs a value"},
        {"-D'SCALE=1 -DOFFSET=0", KILN_ERR_INVALID_ARGUMENT,
         "build options: unterminated quote in '-D'SCALE=1 -DOFFSET=0'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        kiln_program *program = NULL;
        TEST_FAILS(bad[i].status, kiln_program_build(context, scale_source,
                                                     bad[i].options,
                                                     &program));
        assert_null(program);
        TEST_ERROR_MENTIONS(bad[i].message);
    }
}

static void build_log_and_origin_of_a_good_build(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program =
        test_build(context, scale_source, "-DSCALE=1 -DOFFSET=1");
    assert_string_equal(kiln_last_error(), "");
    const char *log = NULL;
    TEST_OK(kiln_program_get_build_log(program, &log));
    assert_non_null(log);
    assert_true(strlen(log) < 1000000);
    kiln_program_origin origin;
    TEST_OK(kiln_program_get_origin(program, &origin));
    assert_true(origin == KILN_PROGRAM_COMPILED ||
                origin == KILN_PROGRAM_FROM_MEMORY_CACHE ||
                origin == KILN_PROGRAM_FROM_DISK_CACHE);

    /* A second build of the same text in the same context is served from
     * memory. */
    kiln_program *again = test_build(context, scale_source,
                                     "-DSCALE=1 -DOFFSET=1");
    TEST_OK(kiln_program_get_origin(again, &origin));
    assert_int_equal(origin, KILN_PROGRAM_FROM_MEMORY_CACHE);
    assert_ptr_not_equal(again, program);

    /* A retained program outlives one release. */
    TEST_OK(kiln_program_retain(program));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_program_get_build_log(program, &log));
    kiln_kernel *kernel = test_kernel(program, "copy_ints");
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_program_release(again));
}

/* Valid OpenCL C that the CUDA backend cannot run: a translation error
 * naming the construct and its line, never a crash or a wrong program.
 * OpenCL builds images natively, so there the check does not apply. */
static void untranslatable_construct_is_named(void **state)
{
    kiln_context *context = test_context(state);
    if (strcmp(test_backend(state), "cuda") != 0) {
        printf("# %s: builds images natively; the CUDA translation's "
               "refusal is what is tested\n", test_backend(state));
        skip();
    }
    static const char images[] =
        "__kernel void copy(__global float *out)\n"
        "{\n"
        "    out[0] = 1.0f;\n"
        "}\n"
        "__kernel void sample(read_only image2d_t picture,\n"
        "                     __global float4 *out)\n"
        "{\n"
        "    out[0] = (float4)(0.0f);\n"
        "}\n";
    kiln_build_options options = {.source_name = "images.cl"};
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_TRANSLATION,
               kiln_program_build_with(context, images, 0, &options,
                                       &program));
    TEST_ERROR_MENTIONS("image2d_t");
    TEST_ERROR_MENTIONS("images.cl:5");
    assert_null(program);
}

static void compile_error_carries_the_log(void **state)
{
    kiln_context *context = test_context(state);
    static const char broken[] =
        "__kernel void broken(__global float *a)\n"
        "{\n"
        "    a[get_global_id(0)] = undeclared_widget_count * 2.0f;\n"
        "}\n";
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build(context, broken, NULL, &program));
    TEST_ERROR_MENTIONS("undeclared_widget_count");
    assert_null(program);

    /* A syntax error, with a source name given for the messages. */
    static const char syntax[] =
        "__kernel void syntax(__global float *a)\n"
        "{\n"
        "    a[0] = 1.0f +;\n"
        "}\n";
    kiln_build_options options = {.source_name = "syntax_error_case.cl"};
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_with(context, syntax, 0, &options,
                                       &program));
    TEST_ERROR_MENTIONS("error");
    assert_null(program);

    /* The failure is not cached: the good source still builds after it. */
    kiln_program *good = test_build(context, scale_source,
                                    "-DSCALE=1 -DOFFSET=0");
    TEST_OK(kiln_program_release(good));
}

static void source_length_bounds_the_text(void **state)
{
    kiln_context *context = test_context(state);
    /* Everything after the length is garbage that must not be compiled. */
    static const char text[] =
        "__kernel void add_one(__global int *a)\n"
        "{ a[get_global_id(0)] += 1; }\n"
        "this is not OpenCL C at all )(";
    size_t length = strstr(text, "this is not") - text;
    kiln_build_options options = {0};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, text, length, &options, &program));
    kiln_kernel *kernel = test_kernel(program, "add_one");
    int32_t data[32], back[32];
    test_random_ints(data, 32, -1000, 1000);
    kiln_buffer *buffer = test_buffer_from(context, data, sizeof data);
    kiln_launch_config config = test_config_1d(32, 32);
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
    TEST_OK(kiln_launch(kernel, &config, 1, args));
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    for (int i = 0; i < 32; ++i)
        assert_int_equal(back[i], data[i] + 1);
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));

    /* The whole text is an error. */
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_with(context, text, 0, &options, &program));
    /* A NUL inside the given length, an empty source, an unknown language. */
    static const char with_nul[] = "__kernel void f(void) {}\0 more";
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_with(context, with_nul, sizeof with_nul - 1,
                                       &options, &program));
    TEST_ERROR_MENTIONS("NUL");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build(context, "", NULL, &program));
    kiln_build_options martian = {.language = (kiln_language)42};
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_with(context, text, length, &martian,
                                       &program));
    TEST_ERROR_MENTIONS("42");
}

static void kernels_are_found_by_name_only(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program =
        test_build(context, scale_source, "-DSCALE=2 -DOFFSET=3");
    kiln_kernel *scale = test_kernel(program, "scale");
    kiln_kernel *copy = test_kernel(program, "copy_ints");
    const char *name = NULL;
    TEST_OK(kiln_kernel_get_name(scale, &name));
    assert_string_equal(name, "scale");
    TEST_OK(kiln_kernel_get_name(copy, &name));
    assert_string_equal(name, "copy_ints");

    /* Two kernels of one name are separate objects. */
    kiln_kernel *scale_again = test_kernel(program, "scale");
    assert_ptr_not_equal(scale_again, scale);
    TEST_OK(kiln_kernel_release(scale_again));

    kiln_kernel *kernel = NULL;
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "no_such_kernel", &kernel));
    TEST_ERROR_MENTIONS("no_such_kernel");
    assert_null(kernel);
    /* A helper function is not a kernel; names are case sensitive. */
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "helper_offset", &kernel));
    TEST_ERROR_MENTIONS("helper_offset");
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "Scale", &kernel));
    TEST_FAILS(KILN_ERR_KERNEL_NOT_FOUND,
               kiln_kernel_create(program, "scal", &kernel));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_kernel_create(program, "", &kernel));
    assert_null(kernel);

    /* A retained kernel outlives one release. */
    TEST_OK(kiln_kernel_retain(copy));
    TEST_OK(kiln_kernel_release(copy));
    TEST_OK(kiln_kernel_get_name(copy, &name));
    assert_string_equal(name, "copy_ints");

    TEST_OK(kiln_kernel_release(scale));
    TEST_OK(kiln_kernel_release(copy));
    TEST_OK(kiln_program_release(program));
}

/* ---- listing a program's kernels ------------------------------------------------- */

/* Four kernels (one with reqd_work_group_size), a helper function and a
 * __constant table, which are not kernels. */
static const char listing_source[] =
    "__constant int listing_table[3] = {1, 2, 3};\n"
    "int listing_helper(int x) { return x + listing_table[x % 3]; }\n"
    "__kernel void first_kernel(__global int *a) {\n"
    "    a[get_global_id(0)] = listing_helper((int)get_global_id(0));\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
    "void second_kernel(__global float *x, float s) {\n"
    "    x[get_global_id(0)] *= s;\n"
    "}\n"
    "kernel void third(__global int *a, __local int *scratch) {\n"
    "    scratch[get_local_id(0)] = a[get_global_id(0)];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    a[get_global_id(0)] = scratch[0];\n"
    "}\n"
    "__kernel void fourth_k(__global uint *u, uint n) {\n"
    "    if (get_global_id(0) < n) u[get_global_id(0)] = n;\n"
    "}\n";

/* Asserts that `program` lists exactly the kernels `expected` (in any
 * order, each once) and that each listed name makes a kernel. */
static void check_kernel_names(kiln_program *program,
                               const char *const *expected, size_t count)
{
    size_t listed = 0;
    TEST_OK(kiln_program_get_kernel_count(program, &listed));
    if (listed != count)
        fail_msg("the program lists %zu kernels, expected %zu", listed, count);
    bool seen[8] = {false};
    assert_true(count <= 8);
    for (size_t i = 0; i < listed; ++i) {
        const char *name = NULL;
        TEST_OK(kiln_program_get_kernel_name(program, i, &name));
        assert_non_null(name);
        size_t k = 0;
        while (k < count && strcmp(expected[k], name) != 0)
            ++k;
        if (k == count)
            fail_msg("kernel %zu is '%s', which is not expected", i, name);
        if (seen[k])
            fail_msg("kernel '%s' is listed twice", name);
        seen[k] = true;
        kiln_kernel *kernel = test_kernel(program, name);
        const char *kernel_name = NULL;
        TEST_OK(kiln_kernel_get_name(kernel, &kernel_name));
        assert_string_equal(kernel_name, name);
        TEST_OK(kiln_kernel_release(kernel));
    }
}

static void program_lists_its_kernels(void **state)
{
    static const char *const expected[] = {"first_kernel", "second_kernel",
                                           "third", "fourth_k"};
    const size_t count = sizeof expected / sizeof *expected;
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, listing_source, NULL);
    check_kernel_names(program, expected, count);
    /* Asked again: the same list, the same strings. */
    const char *first = NULL, *again = NULL;
    TEST_OK(kiln_program_get_kernel_name(program, 0, &first));
    TEST_OK(kiln_program_get_kernel_name(program, 0, &again));
    assert_ptr_equal(first, again);

    /* A build served from the memory cache lists the same kernels, and
     * the names outlive the program handle they were read from as long as
     * another handle of it lives. */
    kiln_program *cached = test_build(context, listing_source, NULL);
    kiln_program_origin origin;
    TEST_OK(kiln_program_get_origin(cached, &origin));
    assert_int_equal(origin, KILN_PROGRAM_FROM_MEMORY_CACHE);
    check_kernel_names(cached, expected, count);
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_program_get_kernel_name(cached, 0, &again));
    assert_string_equal(again, first);
    TEST_OK(kiln_program_release(cached));

    /* From the disk cache (a new context has an empty memory cache): the
     * list comes from what the cache entry kept. */
    kiln_cache_info cache;
    TEST_OK(kiln_cache_get_info(&cache));
    kiln_context *fresh = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &fresh));
    kiln_program *loaded = test_build(fresh, listing_source, NULL);
    TEST_OK(kiln_program_get_origin(loaded, &origin));
    if (cache.enabled)
        assert_int_equal(origin, KILN_PROGRAM_FROM_DISK_CACHE);
    check_kernel_names(loaded, expected, count);
    TEST_OK(kiln_program_release(loaded));
    TEST_OK(kiln_context_release(fresh));
}

static void program_without_kernels_lists_none(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(
        context, "int lonely_helper(int x) { return 2 * x; }\n", NULL);
    size_t count = 99;
    TEST_OK(kiln_program_get_kernel_count(program, &count));
    assert_int_equal(count, 0);
    const char *name = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_get_kernel_name(program, 0, &name));
    TEST_ERROR_MENTIONS("has 0 kernels");
    assert_null(name);
    TEST_OK(kiln_program_release(program));
}

static void kernel_listing_refuses_bad_input(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, listing_source, NULL);
    size_t count = 0;
    const char *name = NULL;
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_program_get_kernel_count(NULL, &count));
    TEST_ERROR_MENTIONS("kiln_program_get_kernel_count: program is NULL");
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_program_get_kernel_name(NULL, 0, &name));
    TEST_ERROR_MENTIONS("kiln_program_get_kernel_name: program is NULL");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_get_kernel_count(program, NULL));
    TEST_ERROR_MENTIONS("count is NULL");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_get_kernel_name(program, 0, NULL));
    TEST_ERROR_MENTIONS("name is NULL");
    /* Past the end: one past, and far past. */
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_get_kernel_name(program, 4, &name));
    TEST_ERROR_MENTIONS("the program has 4 kernels; there is no kernel 4");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_get_kernel_name(program, (size_t)-1, &name));
    TEST_ERROR_MENTIONS("there is no kernel");
    assert_null(name);
    /* The program is still fine afterwards. */
    TEST_OK(kiln_program_get_kernel_count(program, &count));
    assert_int_equal(count, 4);
    TEST_OK(kiln_program_release(program));
}

/* ---- parameters ------------------------------------------------------------------- */

static const char params_source[] =
    "__constant float weights[2] = {0.5f, 0.25f};\n"
    "__kernel void params(__global float *a, __local int *scratch, int n,\n"
    "                     float4 v, float3 w, long l,\n"
    "                     __constant uint *table, char c, short s,\n"
    "                     uchar uc, ulong ul, uint u, __global const int4 *q)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    scratch[get_local_id(0)] = n + q[0].y;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    a[i] = scratch[0] + v.x + w.y + (float)l + table[0] + c + s + uc +\n"
    "           (float)ul + u + weights[i & 1];\n"
    "}\n";

typedef struct expected_param {
    kiln_param_kind kind;
    size_t size; /* checked for values only */
    const char *name;
    const char *type_name;
} expected_param;

/* Type names compared without blanks: "float *" and "float*" are one. */
static void strip_blanks(const char *from, char *to, size_t size)
{
    size_t n = 0;
    for (; *from != '\0' && n + 1 < size; ++from)
        if (*from != ' ' && *from != '\t')
            to[n++] = *from;
    to[n] = '\0';
}

static void check_params(void **state, kiln_kernel *kernel,
                         const expected_param *expected, size_t count)
{
    int opencl = strcmp(test_backend(state), "opencl") == 0;
    size_t actual_count = 0;
    TEST_OK(kiln_kernel_get_param_count(kernel, &actual_count));
    assert_int_equal(actual_count, count);
    for (size_t i = 0; i < count; ++i) {
        kiln_param_info info;
        TEST_OK(kiln_kernel_get_param_info(kernel, i, &info));
        assert_non_null(info.name);
        assert_non_null(info.type_name);
        if (info.kind != expected[i].kind)
            fail_msg("parameter %zu (%s): kind %d, expected %d", i,
                     expected[i].name, (int)info.kind, (int)expected[i].kind);
        if (expected[i].kind == KILN_PARAM_VALUE &&
            info.size != expected[i].size)
            fail_msg("parameter %zu (%s): size %zu, expected %zu", i,
                     expected[i].name, info.size, expected[i].size);
        /* OpenCL knows names and types from the kernel's argument info;
         * every backend that reports them must report them right. */
        if (opencl) {
            assert_true(info.name[0] != '\0');
            assert_true(info.type_name[0] != '\0');
        }
        if (info.name[0] != '\0' && strcmp(info.name, expected[i].name) != 0)
            fail_msg("parameter %zu: name '%s', expected '%s'", i, info.name,
                     expected[i].name);
        char type[128];
        strip_blanks(info.type_name, type, sizeof type);
        if (type[0] != '\0' && strcmp(type, expected[i].type_name) != 0)
            fail_msg("parameter %zu (%s): type '%s', expected '%s'", i,
                     expected[i].name, info.type_name, expected[i].type_name);
    }
    kiln_param_info info;
    memset(&info, 0x33, sizeof info);
    kiln_param_info untouched = info;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_kernel_get_param_info(kernel, count, &info));
    assert_memory_equal(&info, &untouched, sizeof info);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_kernel_get_param_info(kernel, SIZE_MAX, &info));
}

static void parameters_are_described(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, params_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "params");
    static const expected_param expected[] = {
        {KILN_PARAM_BUFFER, 0, "a", "float*"},
        {KILN_PARAM_LOCAL, 0, "scratch", "int*"},
        {KILN_PARAM_VALUE, 4, "n", "int"},
        {KILN_PARAM_VALUE, 16, "v", "float4"},
        {KILN_PARAM_VALUE, 16, "w", "float3"},
        {KILN_PARAM_VALUE, 8, "l", "long"},
        {KILN_PARAM_BUFFER, 0, "table", "uint*"},
        {KILN_PARAM_VALUE, 1, "c", "char"},
        {KILN_PARAM_VALUE, 2, "s", "short"},
        {KILN_PARAM_VALUE, 1, "uc", "uchar"},
        {KILN_PARAM_VALUE, 8, "ul", "ulong"},
        {KILN_PARAM_VALUE, 4, "u", "uint"},
        {KILN_PARAM_BUFFER, 0, "q", "int4*"},
    };
    check_params(state, kernel, expected, sizeof expected / sizeof *expected);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void double_parameters_are_described(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info device;
    TEST_OK(kiln_context_get_device_info(context, &device));
    if (!device.supports_double) {
        print_message("# %s has no double support\n", device.name);
        skip();
    }
    static const char source[] =
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        "__kernel void triple(__global double *out, double d, double2 pair)\n"
        "{\n"
        "    out[0] = d * 3.0;\n"
        "    out[1] = pair.x - pair.y;\n"
        "}\n";
    kiln_program *program = test_build(context, source, NULL);
    kiln_kernel *kernel = test_kernel(program, "triple");
    static const expected_param expected[] = {
        {KILN_PARAM_BUFFER, 0, "out", "double*"},
        {KILN_PARAM_VALUE, 8, "d", "double"},
        {KILN_PARAM_VALUE, 16, "pair", "double2"},
    };
    check_params(state, kernel, expected, 3);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void max_block_size_respects_the_device_and_the_kernel(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info device;
    TEST_OK(kiln_context_get_device_info(context, &device));
    static const char source[] =
        "__kernel void free_size(__global int *a) { a[get_global_id(0)] = 1; }\n"
        "__kernel __attribute__((reqd_work_group_size(16, 1, 1)))\n"
        "void fixed_size(__global int *a) { a[get_global_id(0)] = 2; }\n"
        "__kernel __attribute__((reqd_work_group_size(4, 2, 2)))\n"
        "void fixed_3d(__global int *a) { a[get_global_id(0)] = 3; }\n";
    kiln_program *program = test_build(context, source, NULL);
    kiln_kernel *free_size = test_kernel(program, "free_size");
    kiln_kernel *fixed_size = test_kernel(program, "fixed_size");
    kiln_kernel *fixed_3d = test_kernel(program, "fixed_3d");
    size_t threads = 0;
    TEST_OK(kiln_kernel_get_max_block_size(free_size, &threads));
    assert_true(threads >= 1);
    assert_true(threads <= device.max_threads_per_block);
    /* Launching with exactly that many threads is accepted and runs. */
    kiln_buffer *buffer = test_buffer(context, threads * sizeof(int32_t));
    kiln_launch_config config = {.grid = KILN_DIM1(1),
                                 .block = KILN_DIM1(threads)};
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
    TEST_OK(kiln_launch(free_size, &config, 1, args));
    int32_t *back = test_alloc(threads * sizeof *back);
    TEST_OK(kiln_buffer_read(buffer, 0, back, threads * sizeof *back));
    for (size_t i = 0; i < threads; ++i)
        assert_int_equal(back[i], 1);
    free(back);
    TEST_OK(kiln_buffer_release(buffer));

    TEST_OK(kiln_kernel_get_max_block_size(fixed_size, &threads));
    assert_int_equal(threads, 16);
    TEST_OK(kiln_kernel_get_max_block_size(fixed_3d, &threads));
    assert_int_equal(threads, 16);
    TEST_OK(kiln_kernel_release(free_size));
    TEST_OK(kiln_kernel_release(fixed_size));
    TEST_OK(kiln_kernel_release(fixed_3d));
    TEST_OK(kiln_program_release(program));
}

static void native_kernel_handle(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program =
        test_build(context, scale_source, "-DSCALE=1 -DOFFSET=2");
    kiln_kernel *scale = test_kernel(program, "scale");
    kiln_kernel *copy = test_kernel(program, "copy_ints");
    void *a = NULL, *b = NULL;
    TEST_OK(kiln_kernel_get_native(scale, &a, sizeof a));
    TEST_OK(kiln_kernel_get_native(copy, &b, sizeof b));
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    unsigned char wrong[16];
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_kernel_get_native(scale, wrong, 4));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_kernel_get_native(scale, wrong, sizeof(void *) + 1));
    TEST_OK(kiln_kernel_release(scale));
    TEST_OK(kiln_kernel_release(copy));
    TEST_OK(kiln_program_release(program));
}

/* Launches `kernel` on fresh random data of `count` elements and checks
 * in * 3 + 1 (the program's -DSCALE=3 -DOFFSET=1). */
static void check_scale_3_1(kiln_context *context, kiln_kernel *kernel,
                            int count)
{
    enum { MOST = 1000 };
    int32_t in[MOST], out[MOST];
    test_random_ints(in, MOST, -10000, 10000);
    kiln_buffer *in_buffer = test_buffer_from(context, in, sizeof in);
    kiln_buffer *out_buffer = test_buffer(context, sizeof out);
    kiln_launch_config config = test_config_1d((size_t)count, 64);
    kiln_arg args[] = {KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer),
                       KILN_ARG_INT(count)};
    TEST_OK(kiln_launch(kernel, &config, 3, args));
    TEST_OK(kiln_buffer_read(out_buffer, 0, out, sizeof out));
    for (int i = 0; i < count; ++i)
        if (out[i] != in[i] * 3 + 1)
            fail_msg("element %d of %d: got %d, expected %d", i, count,
                     out[i], in[i] * 3 + 1);
    TEST_OK(kiln_buffer_release(in_buffer));
    TEST_OK(kiln_buffer_release(out_buffer));
}

/* A released kernel's backend kernel serves the next kiln_kernel_create
 * of its name (OpenCL: the same cl_kernel), while two kernels alive at
 * once never share one; either launches right after the other. */
static void kernels_made_again_reuse_and_stay_apart(void **state)
{
    kiln_context *context = test_context(state);
    bool opencl = strcmp(test_backend(state), "opencl") == 0;
    kiln_program *program =
        test_build(context, scale_source, "-DSCALE=3 -DOFFSET=1");
    void *first = NULL, *again = NULL, *beside = NULL;
    kiln_kernel *kernel = test_kernel(program, "scale");
    TEST_OK(kiln_kernel_get_native(kernel, &first, sizeof first));
    check_scale_3_1(context, kernel, 700);
    TEST_OK(kiln_kernel_release(kernel));

    kernel = test_kernel(program, "scale");
    TEST_OK(kiln_kernel_get_native(kernel, &again, sizeof again));
    kiln_kernel *other = test_kernel(program, "scale");
    TEST_OK(kiln_kernel_get_native(other, &beside, sizeof beside));
    if (opencl) {
        assert_ptr_equal(first, again);
        assert_ptr_not_equal(again, beside);
    }
    check_scale_3_1(context, other, 1000);
    check_scale_3_1(context, kernel, 333);
    check_scale_3_1(context, other, 5);
    size_t count = 0;
    TEST_OK(kiln_kernel_get_param_count(kernel, &count));
    assert_int_equal(count, 3);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_kernel_release(other));
    TEST_OK(kiln_program_release(program));
}

/* ---- native CUDA C ----------------------------------------------------------------- */

static const char cuda_source[] =
    "extern \"C\" __global__ void add_index(int *a, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) a[i] += i;\n"
    "}\n";

/* Native CUDA C: an extern "C" kernel by its name, a C++ kernel by its C
 * name (the only kernel of that name), and two overloads by their mangled
 * names, since their C name would be ambiguous. */
static const char cuda_listing_source[] =
    "extern \"C\" __global__ void by_c_name(int *a) { a[threadIdx.x] = 1; }\n"
    "__global__ void cpp_kernel(float *x) { x[threadIdx.x] = 2.0f; }\n"
    "__global__ void overloaded(int *a) { a[threadIdx.x] = 3; }\n"
    "__global__ void overloaded(float *x) { x[threadIdx.x] = 4.0f; }\n"
    "__device__ int not_a_kernel(int x) { return x + 1; }\n";

static void cuda_c_program_lists_its_kernels(void **state)
{
    kiln_context *context = test_context(state);
    if (strcmp(test_backend(state), "cuda") != 0)
        skip(); /* native CUDA C builds on the CUDA backend only */
    static const char *const expected[] = {"by_c_name", "cpp_kernel",
                                           "_Z10overloadedPi",
                                           "_Z10overloadedPf"};
    kiln_program *program = test_build_cuda(context, cuda_listing_source,
                                            NULL);
    check_kernel_names(program, expected, sizeof expected / sizeof *expected);
    TEST_OK(kiln_program_release(program));
    /* From the disk cache: listed from the loaded module. */
    kiln_context *fresh = NULL;
    TEST_OK(kiln_context_create("cuda", -1, &fresh));
    kiln_program *loaded = test_build_cuda(fresh, cuda_listing_source, NULL);
    check_kernel_names(loaded, expected, sizeof expected / sizeof *expected);
    TEST_OK(kiln_program_release(loaded));
    TEST_OK(kiln_context_release(fresh));
}

/* Natively on CUDA, translated to OpenCL C on OpenCL (more in
 * test_cuda_c). */
static void cuda_c_builds_on_every_backend(void **state)
{
    kiln_context *context = test_context(state);
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, cuda_source, 0, &options,
                                    &program));
    kiln_kernel *kernel = test_kernel(program, "add_index");
    enum { COUNT = 300 };
    int32_t data[COUNT], back[COUNT];
    test_random_ints(data, COUNT, -100000, 100000);
    kiln_buffer *buffer = test_buffer_from(context, data, sizeof data);
    kiln_launch_config config = test_config_1d(COUNT, 128);
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT(COUNT)};
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    for (int i = 0; i < COUNT; ++i)
        assert_int_equal(back[i], data[i] + i);
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(defines_in_options_change_results),
        KILN_TEST(option_words_reach_every_compiler_whole),
        KILN_TEST(build_log_and_origin_of_a_good_build),
        KILN_TEST(compile_error_carries_the_log),
        KILN_TEST(untranslatable_construct_is_named),
        KILN_TEST(source_length_bounds_the_text),
        KILN_TEST(kernels_are_found_by_name_only),
        KILN_TEST(program_lists_its_kernels),
        KILN_TEST(program_without_kernels_lists_none),
        KILN_TEST(kernel_listing_refuses_bad_input),
        KILN_TEST(parameters_are_described),
        KILN_TEST(double_parameters_are_described),
        KILN_TEST(max_block_size_respects_the_device_and_the_kernel),
        KILN_TEST(native_kernel_handle),
        KILN_TEST(kernels_made_again_reuse_and_stay_apart),
        KILN_TEST(cuda_c_builds_on_every_backend),
        KILN_TEST(cuda_c_program_lists_its_kernels),
    };
    return kiln_test_main("program", tests, sizeof tests / sizeof *tests);
}
