/*
 * The CUDA backend's compile step without a GPU: an OpenCL C program goes
 * through the front end as the core sends it (translate/: the translation
 * and the build options as NVRTC takes them) and then through the plugin's
 * cuda_binary_compile (NVRTC itself), all on the CPU, so what reaches
 * NVRTC is checked in the PTX it produces.  Built where the CUDA toolkit
 * was found; the driver is never touched.
 */
#include "harness.h"

#include "cuda_compile.h"
#include "fuzz/fuzz_host.h" /* a stand-in for the core's host API */
#include "translate.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The NVRTC this test links, as translate_target gives it. */
static unsigned nvrtc_version(void)
{
    int major = 0, minor = 0;
    cuda_nvrtc_version(&major, &minor);
    return (unsigned)(major * 1000 + minor * 10);
}

/* `source` (OpenCL C) translated for compute_90 as the core does it;
 * fails the test when it does not translate. */
static void translated(const char *source, const char *name,
                       const char *options, translate_program *program)
{
    translate_option_lists lists;
    if (translate_options_parse(options, &lists) != 0)
        fail_msg("options '%s': %s", options, lists.error);
    translate_target target = {.language = TRANSLATE_CUDA_C,
                               .extensions = "",
                               .vendor = "NVIDIA Corporation",
                               .compute_capability = 90,
                               .compiler_version = nvrtc_version()};
    translate_input input = {.text = source,
                             .length = strlen(source),
                             .name = name,
                             .language = TRANSLATE_OPENCL_C,
                             .options = &lists.options,
                             .target = &target};
    translate_unit *unit = NULL;
    translate_error error;
    if (translate_open(&input, &unit, &error) != 0 ||
        translate_to_target(unit, program, &error) != 0)
        fail_msg("%s does not translate: %s", name,
                 error.message ? error.message : "out of memory");
    translate_close(unit);
    translate_option_lists_free(&lists);
}

/* The plugin's source for a translated program. */
static kiln_backend_source native_source(const translate_program *program,
                                         const char *name,
                                         kiln_backend_define *defines,
                                         kiln_backend_header *header)
{
    const translate_options *options = &program->options.options;
    for (size_t i = 0; i < options->define_count; ++i)
        defines[i] = (kiln_backend_define){options->defines[i].name,
                                           options->defines[i].value};
    *header = (kiln_backend_header){program->headers[0].name,
                                    program->headers[0].text,
                                    program->headers[0].length};
    /* The whole prelude: the selection is the core's business. */
    if (program->whole_headers != NULL)
        *header = (kiln_backend_header){program->whole_headers[0].name,
                                        program->whole_headers[0].text,
                                        program->whole_headers[0].length};
    kiln_backend_source source = {
        .struct_size = sizeof source,
        .language = KILN_LANGUAGE_CUDA_C,
        .text = program->text,
        .length = program->length,
        .name = name,
        .defines = defines,
        .define_count = options->define_count,
        .include_dirs = options->include_dirs,
        .include_dir_count = options->include_dir_count,
        .flags = options->flags,
        .flag_count = options->flag_count,
        .headers = header,
        .header_count = 1,
    };
    return source;
}

/* Compiles `source` (OpenCL C) to PTX for compute_90 with `options` and
 * returns the PTX (malloc'ed); fails the test when it does not build. */
static char *ptx_of(const char *source, const char *options)
{
    cuda_target target = {.device_sm = 90, .compile_sm = 90, .is_ptx = 1};
    translate_program program;
    translated(source, "contract.cl", options, &program);
    kiln_backend_define defines[16];
    kiln_backend_header header;
    assert_true(program.options.options.define_count <= 16);
    kiln_backend_source native =
        native_source(&program, "contract.cl", defines, &header);
    cuda_binary binary;
    char *log = NULL;
    kiln_status status =
        cuda_binary_compile(&fuzz_host, &target, &native, &binary, &log, NULL);
    translate_program_free(&program);
    if (status != KILN_OK)
        fail_msg("the build failed (%d): %s", (int)status, last_error);
    free(log);
    char *ptx = malloc(binary.image_size + 1);
    assert_non_null(ptx);
    memcpy(ptx, binary.image, binary.image_size);
    ptx[binary.image_size] = '\0';
    cuda_binary_free(&binary);
    return ptx;
}

#define MULTIPLY_ADD                                                       \
    "kernel void multiply_add(global const float *a, global float *out)\n" \
    "{\n"                                                                  \
    "    int i = get_global_id(0);\n"                                      \
    "    out[i] = a[i] * a[i + 1] + a[i + 2];\n"                           \
    "}\n"

/* fma.rn.f32, fma.rn.ftz.f32 (fast math flushes denormals) */
static int fused(const char *ptx)
{
    return strstr(ptx, "fma.rn.") != NULL;
}

/* mul.f32, mul.rn.f32, mul.ftz.f32, mul.rn.ftz.f32 */
static int has_float_multiply(const char *ptx)
{
    for (const char *p = strstr(ptx, "mul."); p != NULL;
         p = strstr(p + 1, "mul.")) {
        const char *end = strpbrk(p, " \t");
        if (end != NULL && end - p >= 4 && memcmp(end - 4, ".f32", 4) == 0)
            return 1;
    }
    return 0;
}

/* #pragma OPENCL FP_CONTRACT OFF: a*b+c stays a multiply and an add, also
 * where the options allow contraction; without it NVRTC fuses them. */
static void fp_contract_off(void **state)
{
    (void)state;
    static const char *const option_sets[] = {
        "", "-cl-mad-enable", "-cl-fast-relaxed-math",
        "-cl-unsafe-math-optimizations"};
    for (size_t i = 0; i < sizeof option_sets / sizeof option_sets[0]; ++i) {
        char *plain = ptx_of(MULTIPLY_ADD, option_sets[i]);
        if (!fused(plain))
            fail_msg("without the pragma (options '%s') NVRTC did not fuse "
                     "a*b+c: the test cannot tell", option_sets[i]);
        free(plain);
        char *off = ptx_of("#pragma OPENCL FP_CONTRACT OFF\n" MULTIPLY_ADD,
                           option_sets[i]);
        if (fused(off))
            fail_msg("FP_CONTRACT OFF with options '%s': NVRTC fused a*b+c",
                     option_sets[i]);
        if (!has_float_multiply(off))
            fail_msg("FP_CONTRACT OFF: no multiply left in the PTX:\n%s", off);
        free(off);
    }
    /* ON (or the pragma inside a function that turns it back on) leaves
     * the default. */
    char *on = ptx_of("#pragma OPENCL FP_CONTRACT ON\n" MULTIPLY_ADD, "");
    assert_true(fused(on));
    free(on);
}

/* NVRTC's errors name what the user wrote: an OpenCL C variable called
 * threadIdx (a CUDA name, which the translator renames) and a __local
 * pointer parameter (passed as an offset) appear under their own names. */
static void errors_use_the_users_names(void **state)
{
    (void)state;
    static const char source[] =
        "kernel void k(global int *x, local int *scratch)\n"
        "{\n"
        "    int threadIdx = 1;\n"
        "    x[0] = threadIdx.y + scratch.z;\n"
        "}\n";
    cuda_target target = {.device_sm = 90, .compile_sm = 90, .is_ptx = 1};
    translate_program program;
    translated(source, "names.cl", "", &program);
    kiln_backend_define defines[1];
    kiln_backend_header header;
    kiln_backend_source native =
        native_source(&program, "names.cl", defines, &header);
    cuda_binary binary;
    char *nvrtc_log = NULL;
    kiln_status status = cuda_binary_compile(&fuzz_host, &target, &native,
                                             &binary, &nvrtc_log, NULL);
    translate_program_free(&program);
    if (status == KILN_OK)
        cuda_binary_free(&binary);
    assert_int_equal(status, KILN_ERR_BUILD);
    assert_non_null(nvrtc_log);
    /* The core's step after a failed build of a translation. */
    char *log = translate_user_names(nvrtc_log);
    free(nvrtc_log);
    assert_non_null(log);
    if (strstr(log, "kl_kw_") != NULL || strstr(log, "kl_local_offset_"))
        fail_msg("NVRTC's log shows the translator's names:\n%s", log);
    if (strstr(log, "threadIdx") == NULL || strstr(log, "names.cl") == NULL)
        fail_msg("NVRTC's log does not name the variable and file:\n%s", log);
    print_message("# %s\n", log);
    free(log);
}

/* What reaches NVRTC: one argument per option word as the core split it
 * (a value with spaces stays whole), -D/-U/-I for CUDA C only (the
 * translator applied them to OpenCL C), OpenCL options mapped (the front
 * end's translate_native_options, or a translation's options), -Werror
 * taken out, unknown flags passed on in order. */
static void nvrtc_options_from_the_lists(void **state)
{
    (void)state;
    cuda_target target = {.device_sm = 90, .compile_sm = 90, .is_ptx = 0};
    translate_option_lists lists;
    assert_int_equal(translate_options_parse("-D'V=1 + 2' -DW -UX -I 'a b' "
                                             "-cl-mad-enable -w -Werror "
                                             "--fmad=false -bogus "
                                             "-cl-std=CL1.2",
                                             &lists),
                     0);
    /* The user's part comes last, after what every program gets. */
    static const char *const cuda_c[] = {"-DV=1 + 2", "-DW=1", "-UX", "-Ia b",
                                         "--fmad=true", "-w", "--fmad=false",
                                         "-bogus"};
    static const char *const opencl_c[] = {"--fmad=true", "-w",
                                           "--fmad=false", "-bogus"};
    translate_target cuda = {.language = TRANSLATE_CUDA_C,
                             .extensions = "",
                             .vendor = "",
                             .compute_capability = 90,
                             .compiler_version = nvrtc_version()};
    for (int language = 0; language < 2; ++language) {
        const char *const *expected = language ? cuda_c : opencl_c;
        size_t expected_count = language ? sizeof cuda_c / sizeof *cuda_c
                                         : sizeof opencl_c / sizeof *opencl_c;
        static const char kernel[] = "kernel void k(global int *x) {}\n";
        translate_input input = {.text = kernel,
                                 .length = sizeof kernel - 1,
                                 .language = language ? TRANSLATE_CUDA_C
                                                      : TRANSLATE_OPENCL_C,
                                 .options = &lists.options,
                                 .target = &cuda};
        translate_option_lists native;
        translate_program program;
        memset(&program, 0, sizeof program);
        if (language) {
            assert_int_equal(translate_native_options(&input, &native), 1);
        } else {
            translated(kernel, "k.cl",
                       "-cl-mad-enable -w -Werror --fmad=false -bogus "
                       "-cl-std=CL1.2",
                       &program);
            native = program.options;
            memset(&program.options, 0, sizeof program.options);
        }
        kiln_backend_define defines[8];
        const translate_options *lists_native = &native.options;
        assert_true(lists_native->define_count <= 8);
        for (size_t i = 0; i < lists_native->define_count; ++i)
            defines[i] = (kiln_backend_define){
                lists_native->defines[i].name, lists_native->defines[i].value};
        kiln_backend_source source = {
            .struct_size = sizeof source,
            .language = KILN_LANGUAGE_CUDA_C,
            .defines = defines,
            .define_count = lists_native->define_count,
            .include_dirs = lists_native->include_dirs,
            .include_dir_count = lists_native->include_dir_count,
            .flags = lists_native->flags,
            .flag_count = lists_native->flag_count,
        };
        char **options = NULL;
        size_t count = 0;
        int werror = 0;
        assert_int_equal(cuda_options_map(&fuzz_host, &source, &target,
                                          &options, &count, &werror),
                         KILN_OK);
        /* the toolkit's include directories (include, and CUDA 13's
         * include/cccl), searched after the user's */
        size_t total = count;
        while (count > 0 && strncmp(options[count - 1], "-I", 2) == 0 &&
               strstr(options[count - 1], "/include") != NULL &&
               strstr(options[count - 1], "/usr/include") == NULL)
            --count;
        assert_int_equal(werror, 1);
        assert_true(count > expected_count);
        assert_string_equal(options[0], "--gpu-architecture=sm_90");
        size_t first = count - expected_count;
        for (size_t i = 0; i < count; ++i) {
            if (i >= first && strcmp(options[i], expected[i - first]) != 0)
                fail_msg("NVRTC option %zu: '%s', expected '%s'", i,
                         options[i], expected[i - first]);
            if (i < first && (strncmp(options[i], "-D", 2) == 0 ||
                              strncmp(options[i], "-I", 2) == 0 ||
                              strncmp(options[i], "-U", 2) == 0 ||
                              strcmp(options[i], "-Werror") == 0))
                fail_msg("NVRTC option %zu: '%s' is the user's", i,
                         options[i]);
        }
        assert_null(options[total]);
        cuda_options_free(options, total);
        translate_option_lists_free(&native);
        translate_program_free(&program);
    }
    translate_option_lists_free(&lists);
}

/* CUDA's device headers, which NVRTC finds only through an include
 * directory: the plugin gives it the toolkit's.  tests/kernels/cuda/
 * half_precision.cu (cuda_fp16.h, cuda_bf16.h) compiled as the CUDA
 * backend compiles native CUDA C. */
static void toolkit_headers(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/kernels/cuda/half_precision.cu",
             test_srcdir());
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        fail_msg("cannot read %s", path);
    static char text[65536];
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = '\0';
    cuda_target target = {.device_sm = 90, .compile_sm = 90, .is_ptx = 1};
    kiln_backend_source source = {
        .struct_size = sizeof source,
        .language = KILN_LANGUAGE_CUDA_C,
        .text = text,
        .length = length,
        .name = "half_precision.cu",
    };
    cuda_binary binary;
    char *log = NULL;
    kiln_status status =
        cuda_binary_compile(&fuzz_host, &target, &source, &binary, &log, NULL);
    if (status != KILN_OK)
        fail_msg("half_precision.cu does not build with NVRTC (%d): %s",
                 (int)status, last_error);
    free(log);
    assert_true(binary.image_size > 0);
    cuda_binary_free(&binary);
}

/* Kernel template instances named by the core (kiln_backend_source's
 * kernel_names): each an NVRTC name expression, compiled, and lowered to
 * the symbol the image defines; a name that is no instance fails the
 * build naming it. */
static void name_expressions_are_lowered(void **state)
{
    (void)state;
    static const char source_text[] =
        "template <int B, int T>\n"
        "__global__ void tiled(float *x) { x[threadIdx.x] *= B * T; }\n"
        "template <typename T>\n"
        "__global__ void twice(T *x) { x[threadIdx.x] *= 2; }\n"
        "namespace ns { __global__ void k(int *x) { x[0] = 1; } }\n";
    static const char *const names[] = {"tiled<64, 8>", "twice<double>",
                                        "ns::k"};
    static const char *const symbols[] = {"_Z5tiledILi64ELi8EEvPf",
                                          "_Z5twiceIdEvPT_", "_ZN2ns1kEPi"};
    cuda_target target = {.device_sm = 90, .compile_sm = 90, .is_ptx = 1};
    kiln_backend_source source = {
        .struct_size = sizeof source,
        .language = KILN_LANGUAGE_CUDA_C,
        .text = source_text,
        .length = sizeof source_text - 1,
        .name = "names.cu",
        .kernel_names = names,
        .kernel_name_count = 3,
    };
    cuda_binary binary;
    char *log = NULL;
    kiln_status status =
        cuda_binary_compile(&fuzz_host, &target, &source, &binary, &log, NULL);
    if (status != KILN_OK)
        fail_msg("the build failed (%d): %s", (int)status, last_error);
    free(log);
    assert_int_equal(binary.name_count, 3);
    for (size_t i = 0; i < 3; ++i) {
        assert_string_equal(binary.names[i], names[i]);
        assert_string_equal(binary.lowered[i], symbols[i]);
        char entry[128];
        snprintf(entry, sizeof entry, ".entry %s(", symbols[i]);
        if (strstr((const char *)binary.image, entry) == NULL)
            fail_msg("the PTX has no '%s'", entry);
    }
    cuda_binary_free(&binary);

    /* an instance that does not exist is NVRTC's error, naming it */
    static const char *const wrong[] = {"tiled<float>"};
    source.kernel_names = wrong;
    source.kernel_name_count = 1;
    status =
        cuda_binary_compile(&fuzz_host, &target, &source, &binary, &log, NULL);
    assert_int_equal(status, KILN_ERR_BUILD);
    if (strstr(last_error, "tiled") == NULL)
        fail_msg("the error does not name the template: %s", last_error);
    free(log);

    /* a source struct of ABI minor 0 has no names: none are added */
    source.struct_size = offsetof(kiln_backend_source, kernel_names);
    status =
        cuda_binary_compile(&fuzz_host, &target, &source, &binary, &log, NULL);
    if (status != KILN_OK)
        fail_msg("the minor-0 build failed (%d): %s", (int)status, last_error);
    assert_int_equal(binary.name_count, 0);
    free(log);
    cuda_binary_free(&binary);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(fp_contract_off),
        KILN_TEST(errors_use_the_users_names),
        KILN_TEST(nvrtc_options_from_the_lists),
        KILN_TEST(name_expressions_are_lowered),
        KILN_TEST(toolkit_headers),
    };
    return kiln_test_main_plain("cuda compile", tests,
                                sizeof tests / sizeof tests[0]);
}
