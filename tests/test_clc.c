/*
 * The OpenCL C -> CUDA translation, without a GPU: what it accepts, what it
 * refuses (and that the message names the construct and the line), the
 * kernel signatures it reports, and, where the CUDA toolkit was found at
 * configure time, that NVRTC compiles every corpus kernel and every kernel
 * in tests/kernels/foreign/ after translation (NVRTC runs on the CPU; only
 * running the code needs a GPU, which the corpus tests do on the CUDA
 * backend).
 */
#include "config.h" /* _GNU_SOURCE: strdup, popen under -std=c11 */

#include "harness.h"

#include "cuda_to_opencl.h"
#include "translate.h"
#include "cuda_to_opencl.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef KILN_TEST_NVRTC
#include <nvrtc.h>
#endif

/* opencl_to_cuda_translate with an option string (NULL: none), split as the core
 * splits it. */
static int translate_with(const char *source, size_t length, const char *name,
                          const char *options, opencl_to_cuda_result *out)
{
    translate_option_lists lists;
    if (translate_options_parse(options, &lists) != 0)
        fail_msg("options '%s': %s", options, lists.error);
    int result = opencl_to_cuda_translate(source, length, name,
                               options ? &lists.options : NULL, out);
    translate_option_lists_free(&lists);
    return result;
}

/* Translates `source`; fails the test with the translator's message when
 * it refuses. */
static void translate_ok(const char *source, const char *options,
                         opencl_to_cuda_result *out)
{
    int result = translate_with(source, strlen(source), "test.cl", options,
                                out);
    if (result != 0)
        fail_msg("translation refused: %s", out->error ? out->error : "?");
    assert_non_null(out->source);
}

/* Translation must fail with a message containing each of `needles`. */
static void translate_refused(const char *source, const char *needle,
                              int line, int unsupported)
{
    opencl_to_cuda_result out;
    int result = opencl_to_cuda_translate(source, strlen(source), "bad.cl", NULL, &out);
    if (result != -1)
        fail_msg("accepted what it should refuse (%s):\n%s", needle, source);
    assert_non_null(out.error);
    if (out.unsupported != unsupported)
        fail_msg("'%s' should be reported as %s", out.error,
                 unsupported ? "unsupported" : "invalid source");
    if (strstr(out.error, needle) == NULL)
        fail_msg("message '%s' does not mention '%s'", out.error, needle);
    if (line > 0) {
        char where[32];
        snprintf(where, sizeof where, "bad.cl:%d:", line);
        if (strstr(out.error, where) == NULL)
            fail_msg("message '%s' does not point at line %d", out.error,
                     line);
        assert_int_equal(out.error_line, line);
    }
    opencl_to_cuda_result_free(&out);
}

static int contains(const char *text, const char *needle)
{
    return strstr(text, needle) != NULL;
}

/* ---- signatures ------------------------------------------------------------ */

static void signatures(void **state)
{
    (void)state;
    static const char source[] =
        "typedef struct { int a; float b; } pair;\n"
        "__kernel __attribute__((reqd_work_group_size(8, 4, 1)))\n"
        "void k(__global const float4 *in, __constant int *table,\n"
        "       __local float *scratch, uint n, float3 v, double d,\n"
        "       pair p, unsigned char c, __global struct node *nodes)\n"
        "{ }\n"
        "kernel void empty(void) {}\n"
        "void helper(__global int *x) { x[0] = 1; }\n";
    opencl_to_cuda_result out;
    translate_ok(source, NULL, &out);
    assert_int_equal(out.kernel_count, 2);
    const clc_kernel_signature *k = &out.kernels[0];
    assert_string_equal(k->name, "k");
    assert_int_equal(k->param_count, 9);
    assert_int_equal(k->reqd_work_group[0], 8);
    assert_int_equal(k->reqd_work_group[1], 4);
    assert_int_equal(k->reqd_work_group[2], 1);
    const struct {
        clc_param_kind kind;
        const char *name, *type;
        size_t size;
    } expected[] = {
        {CLC_PARAM_GLOBAL, "in", "float4*", 8},
        {CLC_PARAM_CONSTANT, "table", "int*", 8},
        {CLC_PARAM_LOCAL, "scratch", "float*", 8},
        {CLC_PARAM_VALUE, "n", "uint", 4},
        {CLC_PARAM_VALUE, "v", "float3", 16},
        {CLC_PARAM_VALUE, "d", "double", 8},
        {CLC_PARAM_VALUE, "p", "pair", 0}, /* a typedef: the driver knows */
        {CLC_PARAM_VALUE, "c", "unsigned char", 1},
        {CLC_PARAM_GLOBAL, "nodes", "struct node*", 8},
    };
    for (size_t i = 0; i < 9; ++i) {
        assert_int_equal(k->params[i].kind, expected[i].kind);
        assert_string_equal(k->params[i].name, expected[i].name);
        assert_string_equal(k->params[i].type_name, expected[i].type);
        assert_int_equal(k->params[i].size, expected[i].size);
    }
    assert_string_equal(out.kernels[1].name, "empty");
    assert_int_equal(out.kernels[1].param_count, 0);
    /* The kernel is a C-named __global__ function with launch bounds; the
     * __local parameter became an offset into dynamic shared memory. */
    assert_true(contains(out.source, "extern \"C\" __global__"));
    assert_true(contains(out.source, "__launch_bounds__(32)"));
    assert_true(contains(out.source, "unsigned int kl_local_offset_scratch"));
    assert_true(contains(out.source, "kl_dynamic_smem + kl_local_offset_scratch"));
    assert_false(contains(out.source, "__global const"));
    opencl_to_cuda_result_free(&out);
}

/* ---- rewrites -------------------------------------------------------------- */

static void rewrites(void **state)
{
    (void)state;
    static const char source[] =
        "#define N 4\n"
        "__constant float4 table[2] = {(float4)(1, 2, 3, 4), (float4)(0.5f)};\n"
        "__kernel void k(__global int *out, __global float4 *v, int s) {\n"
        "    __local int tile[N];\n"
        "    __local int *p = tile;\n"
        "    int i = get_global_id(0);\n"
        "    out[0] = out[1] << s;\n"
        "    out[1] = 1 << 4;\n"
        "    out[2] = i > 0 ? 1 : 2;\n"
        "    int4 a = (int4)(1), b = (int4)(2);\n"
        "    int4 c = a > b ? a : b;\n"
        "    v[0].xy = v[1].wz;\n"
        "    v[0].s3 = v[1].lo.y + convert_float_sat_rte(s) + as_float(s);\n"
        "    vstore4(vload4(0, (__global float *)v), 1, (__global float *)v);\n"
        "    out[3] = vec_step(float3) + clamp(i, 0, 3) + tile[0] + p[0];\n"
        "    int class = 3; out[4] = class;\n"
        "}\n";
    opencl_to_cuda_result out;
    translate_ok(source, NULL, &out);
    const char *s = out.source;
    assert_true(contains(s, "#include \"" TRANSLATE_PRELUDE_CUDA_HEADER "\""));
    assert_true(contains(s, "__constant__ kl_float4 table[2]"));
    assert_true(contains(s, "kl_make<kl_float4>(1, 2, 3, 4)"));
    assert_true(contains(s, "__shared__ int tile[4]"));
    assert_true(contains(s, "int *p = kl_cptr(tile)"));
    assert_true(contains(s, "kl_get_global_id(0)"));
    assert_true(contains(s, "<< kl_shift_count("));
    assert_true(contains(s, "1 << 4")); /* a small literal count stays */
    assert_true(contains(s, "i > 0 ? 1 : 2")); /* a scalar ?: stays */
    assert_true(contains(s, "kl_tern("));
    assert_true(contains(s, ".kl_swc<102,0,1>() = v[1].kl_swc<102,3,2>()"));
    assert_true(contains(s, ".w = v[1].kl_swc<-1,101,1>()"));
    assert_true(contains(s, "kl_convert<float, 1, 1>"));
    assert_true(contains(s, "kl_as<float>"));
    assert_true(contains(s, "kl_vstore<4>(kl_vload<4>("));
    assert_true(contains(s, "4 + kl_clamp("));
    assert_true(contains(s, "kl_kw_class"));
    opencl_to_cuda_result_free(&out);

    /* A typedef'd vector type makes a vector literal, not a cast of a
     * comma expression (which would be a splat of its last operand). */
    translate_ok("typedef float4 v4;\n"
                 "__kernel void k(__global v4 *o) { o[0] = (v4)(1, 2, 3, 4); }\n",
                 NULL, &out);
    assert_true(contains(out.source, "kl_make<v4>(1, 2, 3, 4)"));
    opencl_to_cuda_result_free(&out);

    /* C99 compound literals: T{...} in C++, kl_make for vectors; an if
     * followed by a block is not one. */
    translate_ok("typedef struct { float x, y; } P;\n"
                 "P f(float a) { if (a) { a = 1; } return (P){a, a}; }\n"
                 "__kernel void k(__global float4 *o) {\n"
                 "  o[0] = (float4){1, 2, 3, 4}; }\n",
                 NULL, &out);
    assert_true(contains(out.source, "return P{a, a}"));
    assert_true(contains(out.source, "kl_make<kl_float4>(1, 2, 3, 4)"));
    assert_true(contains(out.source, "if (a) {"));
    assert_true(contains(out.source, "#line "));
    opencl_to_cuda_result_free(&out);

    /* C that C++ rejects: pointer arguments and pointer initialisers go
     * through kl_cptr (C converts between object pointers implicitly),
     * enumerations are ints, a struct defined in a return type is declared
     * first, array parameters are pointers, GNU and clang spellings. */
    translate_ok("typedef enum { A, B } mode;\n"
                 "struct pr { int a; } mk(int v) { struct pr p = {v}; return p; }\n"
                 "uint f(__global uint *p, int n) { return p[n]; }\n"
                 "void __kernel k(__global const int in[], __constant int c[],\n"
                 "                __global __const float *x, int m) {\n"
                 "  mode md = m; enum other { Z } z = 0;\n"
                 "  __global float4 *v = x;\n"
                 "  in[0] + f(in, md) + __builtin_astype(x[0], uint4).y + c[0];\n"
                 "  __builtin_inff(); }\n",
                 NULL, &out);
    s = out.source;
    assert_true(contains(s, "enum { A, B }; typedef int mode;"));
    assert_true(contains(s, "struct pr { int a; }; struct pr mk(int v)"));
    assert_true(contains(s, "f(kl_cptr(in), md)"));
    assert_true(contains(s, "kl_float4 *v = kl_cptr(x)"));
    assert_true(contains(s, "extern \"C\" __global__ void k( const int *in, int *c,"));
    assert_true(contains(s, "const float *x"));
    assert_true(contains(s, "kl_as<kl_uint4>(x[0]"));
    assert_true(contains(s, "kl_builtin_inff()"));
    assert_string_equal(out.kernels[0].params[0].type_name, "int*");
    assert_int_equal(out.kernels[0].params[1].kind, CLC_PARAM_CONSTANT);
    opencl_to_cuda_result_free(&out);

    /* The symbol table decides: a scalar named like another function's
     * vector, and a vector's component, make a plain ?:; a vector
     * condition (by its type, or through a typedef, a member or a shadowed
     * name) a kl_tern; a struct member spelled like a swizzle stays a
     * member and a vector's .xy is one. */
    translate_ok("typedef float4 v4;\n"
                 "typedef struct { float xy; v4 w; } S;\n"
                 "float g(float4 v) { return v.x; }\n"
                 "__kernel void k(__global float *o, __global S *s, float v) {\n"
                 "  o[0] = v > 0 ? 1.0f : 2.0f;\n"
                 "  o[1] = s->w.x > 0 ? 3.0f : 4.0f;\n"
                 "  v4 t = s[0].w > 0 ? s[0].w : s[1].w;\n"
                 "  { float4 v = t; t = v > 1 ? v : t; }\n"
                 "  o[2] = s[0].xy + t.xy.y; }\n",
                 NULL, &out);
    s = out.source;
    assert_true(contains(s, "o[0] = v > 0 ? 1.0f : 2.0f"));
    assert_true(contains(s, "o[1] = s->w.x > 0 ? 3.0f : 4.0f"));
    assert_true(contains(s, "v4 t = kl_tern(s[0].w > 0 ,"));
    assert_true(contains(s, "t = kl_tern(v > 1 ,"));
    assert_true(contains(s, "s[0].xy + t.y"));
    opencl_to_cuda_result_free(&out);

    /* A shared header's file-scope sampler that no kernel uses is dropped
     * (a used one is refused: see refusals). */
    translate_ok("constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE |\n"
                 "    CLK_FILTER_NEAREST;\n"
                 "__kernel void k(__global float *p) { p[0] = 1; }\n",
                 NULL, &out);
    assert_false(contains(out.source, "sampler_t"));
    assert_false(contains(out.source, "nearest"));
    assert_int_equal(out.kernel_count, 1);
    opencl_to_cuda_result_free(&out);
}

/* A CUDA C kernel may bear an OpenCL C keyword's name (PyCUDA's
 * test_large_smem calls its kernel `kernel`): it is renamed in the OpenCL
 * C and listed by its CUDA name. */
static void cuda_kernel_named_like_a_keyword(void **state)
{
    (void)state;
    static const char source[] =
        "__global__ void kernel(int *d_data)\n"
        "{ d_data[threadIdx.x] = threadIdx.x; }\n";
    cuda_to_opencl_result out;
    if (cuda_to_opencl_translate(source, strlen(source), "kernel.cu", NULL,
                                 &out) != 0)
        fail_msg("refused: %s", out.error ? out.error : "out of memory");
    const char *s = out.source + strlen(translate_prelude_opencl());
    assert_true(contains(s, "__kernel void " CUDA_KERNEL_RENAMED_PREFIX
                            "kernel("));
    assert_int_equal(out.kernel_count, 1);
    assert_string_equal(out.kernels[0].signature.name, "kernel");
    cuda_to_opencl_result_free(&out);
}

/* CUDA C -> OpenCL C asks the symbol table what a name is where it stands:
 * an inner pointer hides an outer one of its name (each keeps its own
 * address space), a local hides a __device__ variable (the kernel takes
 * no buffer for it) and a file-scope const (its value is not put in). */
static void cuda_scopes(void **state)
{
    (void)state;
    static const char source[] =
        "const int N = 64;\n"
        "__device__ float scale;\n"
        "__global__ void k(const float *in, float *out) {\n"
        "    __shared__ float tile[128];\n"
        "    float *p = tile;\n"
        "    { const float *p = in; tile[threadIdx.x] = p[threadIdx.x]; }\n"
        "    float *q = p;\n"
        "    float scale = 2.0f;\n"
        "    { int N = 3; out[N] = q[0] * scale; }\n"
        "    out[N] = 1;\n"
        "}\n";
    cuda_to_opencl_result out;
    if (cuda_to_opencl_translate(source, strlen(source), "scopes.cu", NULL, &out) != 0)
        fail_msg("refused: %s", out.error ? out.error : "out of memory");
    const char *s = out.source + strlen(translate_prelude_opencl());
    assert_true(contains(s, "__local float *p = tile;"));
    assert_true(contains(s, "__global const float *p = in;"));
    assert_true(contains(s, "__local float *q = p;"));
    assert_true(contains(s, "int N = 3; out[N]"));
    assert_true(contains(s, "out[((int)(64))] = 1"));
    assert_int_equal(out.kernel_count, 1);
    /* no variable buffer: only the pointers' byte offsets are hidden */
    assert_int_equal(out.kernels[0].hidden_count, 2);
    for (size_t h = 0; h < 2; ++h) {
        assert_int_equal(out.kernels[0].hidden[h].kind,
                         CUDA_HIDDEN_POINTER_OFFSET);
        assert_int_equal(out.kernels[0].hidden[h].variable, h);
    }
    cuda_to_opencl_result_free(&out);
}

/* CUDA C translated for `target` through translate.h, as the core does:
 * the text and the options the OpenCL compiler gets. */
static void translated_for(const char *source, const translate_target *target,
                           translate_program *out)
{
    translate_input input = {.text = source,
                             .length = strlen(source),
                             .name = "targets.cu",
                             .language = TRANSLATE_CUDA_C,
                             .target = target};
    translate_unit *unit = NULL;
    translate_error error;
    if (translate_open(&input, &unit, &error) != 0 ||
        translate_to_target(unit, out, &error) != 0)
        fail_msg("refused: %s", error.message ? error.message : "?");
    translate_close(unit);
}

/* The device a CUDA C program is translated for decides its float
 * atomics: NVIDIA's OpenCL takes CUDA's own instructions as inline PTX,
 * cl_ext_float_atomics needs OpenCL C 3.0, anything else gets the
 * compare-and-swap loop; a call whose old value nothing reads is CUDA's
 * red.add.  What was chosen is in translate_target_choices' words (the
 * cache key's). */
static void cuda_targets(void **state)
{
    (void)state;
    translate_target nvidia = {.language = TRANSLATE_OPENCL_C,
                               .opencl_c_version = 300,
                               .extensions = "cl_khr_fp64 cl_nv_pragma_unroll "
                                             "cl_nv_device_attribute_query",
                               .platform = "NVIDIA CUDA",
                               .vendor = "NVIDIA Corporation"};
    translate_target ext = {.language = TRANSLATE_OPENCL_C,
                            .opencl_c_version = 300,
                            .extensions = "cl_khr_fp64 cl_ext_float_atomics",
                            .platform = "Portable Computing Language",
                            .vendor = "GenuineIntel"};
    translate_target ext_old = ext, plain = ext;
    ext_old.opencl_c_version = 120;
    plain.extensions = "cl_khr_fp64";
    /* PoCL's CUDA device: NVIDIA's vendor, PoCL's compiler (no PTX asm) */
    translate_target pocl_cuda = plain;
    pocl_cuda.vendor = "NVIDIA Corporation";
    const char *cl_std = "x";
    assert_int_equal(cuda_to_opencl_float_atomics(&nvidia, &cl_std),
                     CUDA_FLOAT_ATOMICS_PTX);
    assert_null(cl_std);
    assert_int_equal(cuda_to_opencl_float_atomics(&ext, &cl_std),
                     CUDA_FLOAT_ATOMICS_EXT);
    assert_string_equal(cl_std, "CL3.0");
    assert_int_equal(cuda_to_opencl_float_atomics(&ext_old, NULL),
                     CUDA_FLOAT_ATOMICS_CAS);
    assert_int_equal(cuda_to_opencl_float_atomics(&plain, NULL),
                     CUDA_FLOAT_ATOMICS_CAS);
    assert_int_equal(cuda_to_opencl_float_atomics(&pocl_cuda, NULL),
                     CUDA_FLOAT_ATOMICS_CAS);
    assert_int_equal(cuda_to_opencl_float_atomics(NULL, NULL),
                     CUDA_FLOAT_ATOMICS_CAS);
    char words[3][64];
    translate_target_choices(TRANSLATE_CUDA_C, &nvidia, words[0], 64);
    translate_target_choices(TRANSLATE_CUDA_C, &ext, words[1], 64);
    translate_target_choices(TRANSLATE_CUDA_C, &plain, words[2], 64);
    assert_true(strcmp(words[0], words[1]) != 0 &&
                strcmp(words[1], words[2]) != 0 &&
                strcmp(words[0], words[2]) != 0);
    /* OpenCL C on CUDA chooses nothing by these facts */
    translate_target_choices(TRANSLATE_OPENCL_C, &nvidia, words[0], 64);
    assert_string_equal(words[0], "");

    static const char source[] =
        "__global__ void k(const float *x, float *total, float *olds) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    atomicAdd(total, x[i]);\n"
        "    if (i == 0) atomicAdd(&total[1], 1.0f);\n"
        "    olds[i] = atomicAdd(&total[2], x[i]);\n"
        "}\n";
    const translate_target *targets[] = {&nvidia, &ext, &plain};
    const char *defines[] = {"#define __KILN_FLOAT_ATOMICS_PTX 1",
                             "#define __KILN_FLOAT_ATOMICS_EXT 1", NULL};
    for (int t = 0; t < 3; ++t) {
        translate_program out;
        translated_for(source, targets[t], &out);
        for (int d = 0; d < 2; ++d)
            assert_int_equal(strstr(out.text, defines[d]) != NULL, t == d);
        int has_std = 0;
        for (size_t f = 0; f < out.options.options.flag_count; ++f)
            has_std += strcmp(out.options.options.flags[f], "-cl-std=CL3.0") == 0;
        assert_int_equal(has_std, t == 1);
        /* the program's text, after the prelude */
        const char *body = strstr(out.text, "#line 1 \"targets.cu\"");
        assert_non_null(body);
        /* two statements whose value is dropped, one whose is kept */
        assert_true(contains(body, "__kiln_atomicAdd_discard(total"));
        assert_true(contains(body, "__kiln_atomicAdd_discard(&total[1]"));
        assert_true(contains(body, "olds[i] = atomicAdd(&total[2]"));
        translate_program_free(&out);
    }
}

/* cuda_fp16.h's math for a device without doubles: what is computed in
 * double (hexp...) is refused by name and line, what is exact in float
 * (hsqrt, hfloor...) is translated; with doubles both are. */
static void cuda_half_math_without_fp64(void **state)
{
    (void)state;
    translate_target fp64 = {.language = TRANSLATE_OPENCL_C,
                             .opencl_c_version = 120,
                             .extensions = "cl_khr_fp64 cl_khr_byte_addressable_store",
                             .platform = "Portable Computing Language",
                             .vendor = "GenuineIntel"};
    translate_target no_fp64 = fp64;
    no_fp64.extensions = "cl_khr_byte_addressable_store";
    static const char in_float[] =
        "#include <cuda_fp16.h>\n"
        "__global__ void k(__half *p) {\n"
        "    p[0] = hsqrt(p[0]) + hfloor(p[1]) + hrcp(p[2]);\n"
        "}\n";
    static const char in_double[] =
        "#include <cuda_bf16.h>\n"
        "__global__ void k(__nv_bfloat162 *p) {\n"
        "    p[1] = h2sqrt(p[1]);\n"
        "    p[0] = h2exp(p[0]);\n"
        "}\n";
    /* the cache key's words tell the two apart */
    char words[2][64];
    translate_target_choices(TRANSLATE_CUDA_C, &fp64, words[0], 64);
    translate_target_choices(TRANSLATE_CUDA_C, &no_fp64, words[1], 64);
    assert_true(strstr(words[0], "fp64") == NULL);
    assert_true(strstr(words[1], "no fp64") != NULL);
    translate_program out;
    translated_for(in_float, &no_fp64, &out);
    translate_program_free(&out);
    translated_for(in_double, &fp64, &out);
    translate_program_free(&out);
    translate_input input = {.text = in_double,
                             .length = strlen(in_double),
                             .name = "targets.cu",
                             .language = TRANSLATE_CUDA_C,
                             .target = &no_fp64};
    translate_unit *unit = NULL;
    translate_error error = {0};
    int failed = translate_open(&input, &unit, &error) != 0 ||
                 translate_to_target(unit, &out, &error) != 0;
    translate_close(unit);
    if (!failed) {
        translate_program_free(&out);
        fail_msg("h2exp was translated for a device without cl_khr_fp64");
    }
    const char *message = error.message ? error.message : "";
    if (!error.unsupported || strstr(message, "'h2exp'") == NULL ||
        strstr(message, "cl_khr_fp64") == NULL ||
        strstr(message, "targets.cu:4:") == NULL)
        fail_msg("not refused by name and line: %s", message);
    translate_error_free(&error);
}

/* ---- refusals ---------------------------------------------------------------- */

static void refusals(void **state)
{
    (void)state;
    translate_refused("__kernel void k(__global float *o) {\n"
                      "  o[0] = 1.0f;\n"
                      "}\n"
                      "__kernel void img(read_only image2d_t i) {}\n",
                      "image2d_t", 4, 1);
    translate_refused("\n__kernel void k(sampler_t s) {}\n", "sampler", 2, 1);
    translate_refused("constant sampler_t s = 0;\n"
                      "int f(void) { return (int)s; }\n"
                      "__kernel void k(__global int *o) { o[0] = f(); }\n",
                      "sampler", 1, 1);
    translate_refused("__kernel void k(__global int *o) {\n"
                      "  o[0] = 1;\n", "unbalanced", 1, 0);
    translate_refused("__kernel void k(__global int *o) { o[0] = 1; ]\n",
                      "unbalanced", 1, 0);
    /* An unterminated literal is named as such, not as the bracket its
     * rest of the line swallowed. */
    translate_refused("__kernel void k(__global int *o) {\n"
                      "  printf(\"value %d\\n, o[0]);\n}\n",
                      "unterminated string literal", 2, 0);
    translate_refused("__kernel void k(__global int *o) {\n"
                      "  o[0] = 'a;\n}\n",
                      "unterminated character constant", 2, 0);
    translate_refused("__kernel void k(__global int *o) {\n"
                      "  o[0] = L'a;\n}\n",
                      "unterminated character constant", 2, 0);
    translate_refused("#include \"missing.h\"\n__kernel void k() {}\n",
                      "missing.h", 1, 0);
    translate_refused("__kernel void k(__global int o[4][4]) {}\n",
                      "array of arrays", 1, 1);
    translate_refused("__kernel void k(bool b) {}\n", "bool", 1, 0);
    translate_refused("__kernel int k(__global int *o) { return 0; }\n",
                      "return void", 1, 0);
    translate_refused("__kernel void k(int *o) {}\n", "address space", 1, 0);
    translate_refused("__kernel void k(__local float x) {}\n",
                      "must be a pointer", 1, 0);
    translate_refused("__kernel __attribute__((reqd_work_group_size(64, 64, "
                      "1)))\nvoid k(__global int *o) {}\n",
                      "at most 1024", 1, 1);
    translate_refused("__kernel void k(__global int *o) {}\n"
                      "__kernel void k(__global int *o) {}\n",
                      "defined twice", 2, 0);
    translate_refused("__kernel void k(__global half4 *o) {}\n", "half4", 1, 1);
    translate_refused("#error stop here\n", "stop here", 1, 0);
    translate_refused("__kernel void k(__global float4 *o) {\n"
                      "  o[0].xy.z = 1.0f;\n}\n",
                      "component 2", 2, 0);
}

/* Random bytes and random token soup: refused or accepted, never a crash
 * or a leak (valgrind and ASan runs of the suite check the latter). */
/* Seconds of wall time (CLOCK_MONOTONIC). */
static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* Translates `source` (which must translate), failing past `limit`
 * seconds (not under valgrind, which is 20-50 times slower). */
static void translate_within(const char *what, const char *source,
                             double limit)
{
    double start = seconds_now();
    opencl_to_cuda_result out;
    int result = opencl_to_cuda_translate(source, strlen(source), "big.cl", NULL, &out);
    double took = seconds_now() - start;
    if (result != 0)
        fail_msg("%s: %s", what, out.error ? out.error : "refused");
    opencl_to_cuda_result_free(&out);
    print_message("# %s: %.2f s\n", what, took);
    const char *valgrind = getenv("KILN_TEST_VALGRIND");
    if (took > limit && !(valgrind && valgrind[0] == '1'))
        fail_msg("%s took %.1f s (limit %.0f s): translation time grows "
                 "faster than the source",
                 what, took, limit);
}

/* Translation time linear in ?: nesting and in the number of kernels:
 * 100,000 nested ?: (0.8 MB) took over 2 minutes, quadratic in both. */
static void large_sources_translate_in_linear_time(void **state)
{
    (void)state;
    enum { DEPTH = 100000, KERNELS = 20000 };
    size_t size = 128 + (size_t)DEPTH * 8;
    char *source = test_alloc(size);
    size_t used = (size_t)snprintf(
        source, size, "__kernel void k(__global float4 *o, int x) {\n"
                      "  o[0] = ");
    for (int i = 0; i < DEPTH; ++i)
        used += (size_t)snprintf(source + used, size - used, "x?");
    used += (size_t)snprintf(source + used, size - used, "(float4)(1)");
    for (int i = 0; i < DEPTH; ++i)
        used += (size_t)snprintf(source + used, size - used, ":o[1]");
    snprintf(source + used, size - used, ";\n}\n");
    translate_within("100,000 nested ?: on vectors", source, 20.0);
    /* The right-nested chain a ? b : c ? d : ... */
    used = (size_t)snprintf(source, size,
                            "__kernel void k(__global float4 *o, int x) {\n"
                            "  o[0] = ");
    for (int i = 0; i < DEPTH / 2; ++i)
        used += (size_t)snprintf(source + used, size - used, "x?o[1]:");
    snprintf(source + used, size - used, "o[2];\n}\n");
    translate_within("50,000 chained ?: on vectors", source, 20.0);
    free(source);

    size = (size_t)KERNELS * 64;
    source = test_alloc(size);
    used = 0;
    for (int i = 0; i < KERNELS; ++i)
        used += (size_t)snprintf(source + used, size - used,
                                 "__kernel void k%d(__global int *o) "
                                 "{ o[0] = %d; }\n",
                                 i, i);
    translate_within("20,000 kernels", source, 20.0);
    free(source);
}

static void garbage(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "__kernel", "void", "k", "(", ")", "{", "}", "[", "]", "?", ":", "<<",
        ">>=", ".", "xy", "lo", "float4", "(float4)", "__local", "*", ",",
        ";", "#define A(x) x\n", "A(", "#if 1\n", "#endif\n", "1", "0x7f",
        "\"s\"", "'c'", "__attribute__((", "reqd_work_group_size(1,1,1)",
        "))", "=", "-", "int", "__global", "get_global_id(0)", "\n", "/*",
        "*/", "//", "\\\n", "##", "#", "convert_int4_sat(", "as_float(",
    };
    char text[2048];
    for (int round = 0; round < 3000; ++round) {
        size_t length = 0;
        if (round % 3 == 0) {
            length = test_random_u64() % sizeof text;
            test_random_bytes(text, length);
        } else {
            size_t count = test_random_u64() % 80;
            for (size_t i = 0; i < count; ++i) {
                const char *piece =
                    pieces[test_random_u64() % (sizeof pieces / sizeof *pieces)];
                size_t n = strlen(piece);
                if (length + n + 1 >= sizeof text)
                    break;
                memcpy(text + length, piece, n);
                length += n;
                text[length++] = ' ';
            }
        }
        opencl_to_cuda_result out;
        int result = translate_with(text, length, "garbage.cl", "-DX=1", &out);
        assert_true(result == 0 || result == -1);
        if (result == 0)
            assert_non_null(out.source);
        else
            assert_true(out.error != NULL && out.error[0] != '\0');
        opencl_to_cuda_result_free(&out);
    }
}

/* ---- #include ------------------------------------------------------------------ */

/* Files in memory, for clc_expand_includes without a file system. */
static const char *const memory_files[][2] = {
    {"a.h", "#ifndef A_H\n#define A_H\n#include \"b.h\"\nint a_value;\n#endif\n"},
    {"b.h", "/* b */ int b_value; // #include \"missing.h\"\n"},
    {"once.h", "#pragma once\nint once_value;\n"},
    {"self.h", "#include \"self.h\"\n"},
};

static int memory_reads;

static int read_memory(void *context, const char *name, int quoted,
                       const char *includer, char **path, char **text,
                       size_t *length, char **error)
{
    (void)context, (void)quoted, (void)includer, (void)error;
    ++memory_reads;
    for (size_t i = 0; i < sizeof memory_files / sizeof memory_files[0]; ++i) {
        if (strcmp(memory_files[i][0], name) != 0)
            continue;
        *path = strdup(name);
        *text = strdup(memory_files[i][1]);
        *length = strlen(*text);
        return 1;
    }
    return 0;
}

static size_t count_of(const char *text, const char *needle)
{
    size_t count = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        ++count;
    return count;
}

/* The preprocessor the core inlines includes with: real C lexing (the
 * comment in b.h hides its #include), #include MACRO, %:include, guards and
 * #pragma once (each file's text once), files left in groups not taken,
 * and #line markers back to the includer's lines. */
static void expand_includes(void **state)
{
    (void)state;
    static const char source[] =
        "#define HEADER \"a.h\"\n"
        "#include HEADER\n"
        "%:include \"a.h\"\n"
        "#include \"once.h\"\n"
        "#include \"once.h\"\n"
        "#if 0\n#include \"missing.h\"\n#endif\n"
        "kernel void k(global int *x) { x[0] = 1; }\n";
    translate_include_reader reader = {read_memory, NULL};
    clc_expansion out;
    memory_reads = 0;
    assert_int_equal(clc_expand_includes(source, strlen(source), "main.cl",
                                         NULL, 0, &reader, &out),
                     0);
    assert_non_null(out.text);
    assert_int_equal(out.file_count, 3);
    assert_int_equal(count_of(out.text, "int a_value;"), 1);
    assert_int_equal(count_of(out.text, "int b_value;"), 1);
    assert_int_equal(count_of(out.text, "int once_value;"), 1);
    assert_int_equal(count_of(out.text, "missing.h"), 1); /* left in #if 0 */
    assert_int_equal(count_of(out.text, "#pragma once"), 0);
    assert_true(contains(out.text, "#line 1 \"a.h\""));
    assert_true(contains(out.text, "#line 3 \"main.cl\""));
    assert_true(contains(out.text, "kernel void k"));
    clc_expansion_free(&out);

    /* Nothing included: nothing to change. */
    static const translate_define x_is_1[] = {{"X", "1"}};
    static const translate_options define_x = {.defines = x_is_1, .define_count = 1};
    assert_int_equal(clc_expand_includes("int x;\n", 7, "plain.cl", &define_x,
                                         0, &reader, &out),
                     0);
    assert_null(out.text);
    clc_expansion_free(&out);

    /* A source without backslashes takes the plain search for the word:
     * an #include ending the text, with no newline, is still carried out. */
    assert_int_equal(clc_expand_includes("#include \"a.h\"", 14, "edge.cl",
                                         NULL, 0, &reader, &out),
                     0);
    assert_non_null(out.text);
    assert_int_equal(count_of(out.text, "int a_value;"), 1);
    clc_expansion_free(&out);

    /* A file that includes itself without a guard. */
    assert_int_equal(clc_expand_includes("#include \"self.h\"\n", 18, "c.cl",
                                         NULL, 0, &reader, &out),
                     -1);
    assert_non_null(out.error);
    assert_true(contains(out.error, "nested"));
    clc_expansion_free(&out);
}

/* ---- build options ------------------------------------------------------------ */

/* What one option string must split into: defines as "NAME=VALUE" or
 * "-NAME" (an -U), directories and flags, each list in order, joined by
 * '|'. */
typedef struct option_case {
    const char *text;
    const char *defines;
    const char *include_dirs;
    const char *flags;
} option_case;

static void join_list(char *out, size_t size, const char *const *items,
                      size_t count)
{
    out[0] = '\0';
    for (size_t i = 0; i < count; ++i) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s", i ? "|" : "", items[i]);
    }
}

static void check_option_case(const option_case *c)
{
    translate_option_lists lists;
    int result = translate_options_parse(c->text, &lists);
    if (result != 0)
        fail_msg("<%s>: %d %s", c->text, result, lists.error);
    const translate_options *o = &lists.options;
    char got[512] = "", item[256];
    for (size_t i = 0; i < o->define_count; ++i) {
        const translate_define *d = &o->defines[i];
        if (d->value != NULL)
            snprintf(item, sizeof item, "%s=%s", d->name, d->value);
        else
            snprintf(item, sizeof item, "-%s", d->name);
        size_t used = strlen(got);
        snprintf(got + used, sizeof got - used, "%s%s", i ? "|" : "", item);
    }
    if (strcmp(got, c->defines) != 0)
        fail_msg("<%s>: defines [%s], expected [%s]", c->text, got,
                 c->defines);
    join_list(got, sizeof got, o->include_dirs, o->include_dir_count);
    if (strcmp(got, c->include_dirs) != 0)
        fail_msg("<%s>: include dirs [%s], expected [%s]", c->text, got,
                 c->include_dirs);
    join_list(got, sizeof got, o->flags, o->flag_count);
    if (strcmp(got, c->flags) != 0)
        fail_msg("<%s>: flags [%s], expected [%s]", c->text, got, c->flags);
    translate_option_lists_free(&lists);
}

/* The one splitter: quotes and backslashes group a word however the value
 * is spelt, -D/-U/-I take the same word or the next, each list keeps the
 * order given, and every malformed option has its message. */
static void option_lists(void **state)
{
    (void)state;
    static const option_case cases[] = {
        {"", "", "", ""},
        {"  -DV=3\t-D W=4\n", "V=3|W=4", "", ""},
        /* a value with spaces, spelt four ways */
        {"-D'V=1 + 2'", "V=1 + 2", "", ""},
        {"-D \"V=1 + 2\"", "V=1 + 2", "", ""},
        {"-DV=\"1 + 2\"", "V=1 + 2", "", ""},
        {"-DV=1\\ +\\ 2", "V=1 + 2", "", ""},
        {"\"-DV=1 + 2\"", "V=1 + 2", "", ""},
        /* quotes inside a value: '...' keeps them, "..." takes \" */
        {"-DS='\"a b\"'", "S=\"a b\"", "", ""},
        {"-D \"S=\\\"x\\\\y\\\"\"", "S=\"x\\y\"", "", ""},
        /* no value: 1, as C compilers define it */
        {"-DV -D W", "V=1|W=1", "", ""},
        /* repeated: both, in order (the last one wins in the compiler) */
        {"-DV=2 -DV=5 -DV", "V=2|V=5|V=1", "", ""},
        {"-DV=4 -UV -U W -DW", "V=4|-V|-W|W=1", "", ""},
        {"-DF(x)=x*2 -DE=a=b", "F(x)=x*2|E=a=b", "", ""},
        /* directories with spaces */
        {"-I '/a dir' -I\"/b dir\" \"-I/c dir\" -I/d\\ dir -Ie", "",
         "/a dir|/b dir|/c dir|/d dir|e", ""},
        /* everything else is a flag, in order, whatever it is */
        {"-cl-mad-enable -DV=1 -w --fmad=false -I x -bogus 'a b' -Werror",
         "V=1", "x", "-cl-mad-enable|-w|--fmad=false|-bogus|a b|-Werror"},
        {"-cl-std=CL1.2 -O3 -g ''", "", "", "-cl-std=CL1.2|-O3|-g|"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        check_option_case(&cases[i]);

    static const struct {
        const char *text;
        int result;
        const char *message;
    } bad[] = {
        {"-D", -3, "build options: -D needs a value"},
        {"-DV -U", -3, "build options: -U needs a value"},
        {"-DV=1 -I", -3, "build options: -I needs a value"},
        {"-D=3", -3, "build options: -D needs a macro name"},
        {"-D =3", -3, "build options: -D needs a macro name"},
        {"-D ''", -3, "build options: -D needs a macro name"},
        {"-DV='1 + 2", -1,
         "build options: unterminated quote in '-DV='1 + 2'"},
        {"-I \"/a dir", -1,
         "build options: unterminated quote in '-I \"/a dir'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        translate_option_lists lists;
        int result = translate_options_parse(bad[i].text, &lists);
        if (result != bad[i].result || lists.error == NULL ||
            strcmp(lists.error, bad[i].message) != 0)
            fail_msg("<%s>: %d '%s', expected %d '%s'", bad[i].text, result,
                     lists.error ? lists.error : "(none)", bad[i].result,
                     bad[i].message);
        translate_option_lists_free(&lists);
    }

    /* A command line's words are not split again. */
    const char *words[] = {"-D", "V=a b", "-DW=c d", "-I", "x y", "-w"};
    translate_option_lists lists;
    assert_int_equal(translate_options_parse_words(words, 6, &lists), 0);
    assert_int_equal(lists.options.define_count, 2);
    assert_string_equal(lists.options.defines[0].value, "a b");
    assert_string_equal(lists.options.defines[1].name, "W");
    assert_string_equal(lists.options.defines[1].value, "c d");
    assert_string_equal(lists.options.include_dirs[0], "x y");
    assert_string_equal(lists.options.flags[0], "-w");
    translate_option_lists_free(&lists);
}

/* The translator's preprocessor reads the lists: a value with spaces is
 * one macro, the last of repeated -D wins, -U after -D undefines, -D
 * without a value is 1, and -cl-std= sets __OPENCL_C_VERSION__. */
static void options_reach_the_preprocessor(void **state)
{
    (void)state;
    static const char source[] =
        "#if V == 3 && W == 1 && R == 4 && !defined(X) && "
        "__OPENCL_C_VERSION__ == 300\n"
        "kernel void as_meant(global int *x) { x[0] = S; }\n"
        "#else\n"
        "kernel void misread(global int *x) { x[0] = 0; }\n"
        "#endif\n";
    opencl_to_cuda_result out;
    translate_ok(source,
                 "-D'V=1 + 2' -DW -DR=2 -D R=4 -DX=1 -UX -cl-std=CL3.0 "
                 "-D \"S=(7 - 2) * 3\"",
                 &out);
    assert_int_equal(out.kernel_count, 1);
    assert_string_equal(out.kernels[0].name, "as_meant");
    opencl_to_cuda_result_free(&out);

    /* The CUDA C direction reads the same lists. */
    static const char cuda_source[] =
        "#if V == 3 && defined(__CUDACC__)\n"
        "__global__ void as_meant(int *x) { x[0] = 1; }\n"
        "#else\n"
        "__global__ void misread(int *x) { x[0] = 0; }\n"
        "#endif\n";
    translate_option_lists lists;
    assert_int_equal(translate_options_parse("-D 'V=1 + 2' --use_fast_math", &lists),
                     0);
    cuda_to_opencl_result cuda;
    assert_int_equal(cuda_to_opencl_translate(cuda_source, strlen(cuda_source), "t.cu",
                                    &lists.options, &cuda),
                     0);
    assert_int_equal(cuda.kernel_count, 1);
    assert_string_equal(cuda.kernels[0].signature.name, "as_meant");
    assert_int_equal(cuda.fast_math, 1);
    cuda_to_opencl_result_free(&cuda);
    translate_option_lists_free(&lists);
}

/* ---- the translator's identity ------------------------------------------------- */

/* The translator's digest in the cache key is the build's digest of the
 * front end as it is now: it covers every file of translate/ (a file added
 * to the module but not to the digest would let stale binaries through)
 * and matches the files' contents on disk (a digest that did not follow an
 * edit would too). */
static int is_generated(const char *name)
{
    return strcmp(name, "prelude_cuda.c") == 0 ||
           strcmp(name, "prelude_opencl.c") == 0 ||
           strcmp(name, "source_digest.c") == 0;
}

static void translator_digest(void **state)
{
    (void)state;
    const char *digest = translate_digest();
    assert_int_equal(strlen(digest), 32);
    assert_int_equal(strspn(digest, "0123456789abcdef"), 32);
    const char *files = translate_digest_files();

    char dir[8192];
    int written = snprintf(dir, sizeof dir, "%s/translate", test_srcdir());
    assert_true(written > 0 && (size_t)written < sizeof dir);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *entry;
    int checked = 0;
    while ((entry = readdir(d)) != NULL) {
        const char *dot = strrchr(entry->d_name, '.');
        if (dot == NULL || is_generated(entry->d_name) ||
            (strcmp(dot, ".c") != 0 && strcmp(dot, ".h") != 0 &&
             strcmp(dot, ".cuh") != 0 && strcmp(dot, ".mk") != 0))
            continue;
        char line[512];
        snprintf(line, sizeof line, "translate/%s\n", entry->d_name);
        if (strstr(files, line) == NULL)
            fail_msg("translate/%s is not in the translator digest",
                     entry->d_name);
        ++checked;
    }
    closedir(d);
    assert_true(checked >= 5);

    /* The build's recipe, again, over the files in the source tree. */
    size_t command_size = strlen(files) + strlen(test_srcdir()) + 256;
    char *command = malloc(command_size);
    assert_non_null(command);
    char *end = command + snprintf(command, command_size, "cd '%s' && %s",
                                   test_srcdir(), KILN_TEST_SHA256SUM);
    for (const char *p = files; *p != '\0';) {
        const char *newline = strchr(p, '\n');
        assert_non_null(newline);
        end += sprintf(end, " %.*s", (int)(newline - p), p);
        p = newline + 1;
    }
    sprintf(end, " | %s", KILN_TEST_SHA256SUM);
    FILE *pipe = popen(command, "r");
    assert_non_null(pipe);
    char recomputed[65] = {0};
    size_t got = fread(recomputed, 1, 64, pipe);
    assert_int_equal(pclose(pipe), 0);
    free(command);
    assert_int_equal(got, 64);
    if (strncmp(recomputed, digest, 32) != 0)
        fail_msg("the translator digest %s is stale: its files now digest "
                 "to %.32s", digest, recomputed);
}

/* ---- prelude selection ------------------------------------------------------ */

static char *prelude_for(const char *prelude, const char *translation)
{
    size_t length = 0;
    char *text = prelude_cuda_select(prelude, translation, &length);
    assert_non_null(text);
    assert_int_equal(length, strlen(text));
    return text;
}

/* One line of each section of the real prelude, to see which were kept. */
static const char *const section_lines[] = {
    "typedef unsigned int uint;",               /* prologue: always   */
    "#endif /* KILN_CLC_PRELUDE_CUH */",        /* epilogue: always   */
    "kl_get_work_dim()",                        /* workitems          */
    "KL_CFN V kl_make(const A &...a)",          /* vecbase            */
    "typedef kl_v<float, 4> kl_float4;",        /* vec4               */
    "KL_NATIVE(kl_native_)",                    /* native             */
    "KL_ATOMICS(kl_atomic_)",                   /* atomics            */
    "KL_REL1(kl_isnan",                         /* relational         */
    "KL_FN auto kl_tern(",                      /* select             */
    "typedef kl_v<float, 2> kl_float2;",        /* vec2               */
    "typedef kl_v<float, 8> kl_float8;",        /* vec8               */
    "KL_F1(kl_acos, acosf, acos)",              /* mathstd            */
    "struct kl_ilist {",                        /* swizzles           */
    "#undef KL_VOLATILE_MEMBERS",               /* volatile           */
};

/* `expected`: one character per section_lines entry, '1' kept, '0' not. */
static void check_sections(const char *translation, const char *expected)
{
    char *text = prelude_for(translate_prelude_cuda(), translation);
    for (size_t i = 0; i < sizeof section_lines / sizeof section_lines[0]; ++i)
        if (contains(text, section_lines[i]) != (expected[i] == '1'))
            fail_msg("for '%s', '%s' should %sbe in the prelude", translation,
                     section_lines[i], expected[i] == '1' ? "" : "not ");
    free(text);
}

/* A program gets the prelude sections that own the names it uses, with
 * what those need, and nothing else; a name the prelude cannot place gets
 * all of it. */
static void prelude_selection(void **state)
{
    (void)state;
    check_sections("x[kl_get_global_id(0)] = 1.0f;", "11100000000000");
    /* a vector type brings its width only */
    check_sections("kl_float4 v = kl_make<kl_float4>(1.0f);", "11011000000000");
    /* no vector: the scalar function without its vector forms */
    check_sections("y = kl_sqrt(x);", "11000000000100");
    check_sections("kl_float2 y = kl_sqrt(x);", "11010000010100");
    check_sections("y = kl_native_cos(x);", "11000100000000"); /* pasted name */
    check_sections("kl_atomic_add(p, 1);", "11000010000000");
    /* vloadN makes vectors of types the program may never name */
    check_sections("kl_vstore<4>(kl_vload<4>(i, in) * 2.0f, i, out);",
                   "11011000000000");
    check_sections("y = kl_vload_half<8>(i, p);", "11010000001000");
    /* swizzles: the widths listed, or every width up to the widest */
    check_sections("kl_float16 v; w = v.kl_swc<102, 0, 1>();",
                   "11011000011010");
    check_sections("kl_float8 v; w = v.kl_swc<-1>();", "11011000011010");
    check_sections("kl_float2 v; w = v.kl_swc<104, 0, 1, 1, 0>();",
                   "11011000010010");
    check_sections("v = kl_tern(c, a, b);", "11010001100000");
    /* volatile vectors' members when the program says volatile and has
     * vectors; not for volatile scalars alone */
    check_sections("volatile kl_int4 *p; kl_int4 v = p[0];", "11011000000001");
    check_sections("volatile int *p; kl_atomic_add(p, 1);", "11000010000000");
    /* names the translator makes for the user's own identifiers */
    check_sections("int kl_kw_new = kl_local_offset_tile;", "11000000000000");

    const char *full = translate_prelude_cuda();
    char *text = prelude_for(full, "kl_no_such_name(1);");
    assert_string_equal(text, full);
    free(text);
    text = prelude_for(full, "y = kl_get_global_id(0);");
    assert_true(strlen(text) < strlen(full) / 4);
    free(text);

    /* the rules on a prelude of three sections: b mentions a's name and
     * pastes kl_p_ names together; text outside sections is always kept */
    const char *prelude = "head\n"
                          "/* @section a */\nint kl_a; /* kl_c */\n"
                          "/* @section b */\nint kl_b = kl_a;\n"
                          "#define KL_P(x) int kl_p_##x;\n"
                          "/* @section c */\nint kl_c;\n"
                          "/* @end */\ntail\n";
    text = prelude_for(prelude, "kl_b = 1;");
    assert_string_equal(text, "head\nint kl_a; /* kl_c */\nint kl_b = kl_a;\n"
                              "#define KL_P(x) int kl_p_##x;\n"
                              "/* @end */\ntail\n");
    free(text);
    text = prelude_for(prelude, "kl_p_q = 1;");
    assert_true(contains(text, "kl_b = kl_a") && contains(text, "int kl_a;"));
    free(text);
    text = prelude_for(prelude, "kl_c = 1; /* a comment */");
    assert_string_equal(text, "head\nint kl_c;\n/* @end */\ntail\n");
    free(text);
    text = prelude_for(prelude, "int x;");
    assert_string_equal(text, "head\n/* @end */\ntail\n");
    free(text);
    text = prelude_for(prelude, "kl_d = 1;");
    assert_string_equal(text, prelude);
    free(text);
    text = prelude_for("no sections\n", "kl_a");
    assert_string_equal(text, "no sections\n");
    free(text);
}

/* ---- NVRTC ----------------------------------------------------------------------- */

#ifdef KILN_TEST_NVRTC
static char *read_text(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, file), (size_t)size);
    text[size] = '\0';
    fclose(file);
    *length = (size_t)size;
    return text;
}

/* Compiles a translation for sm_90 and returns NVRTC's log (NULL when it
 * compiled). */
static char *nvrtc_compile(const char *translated, const char *name)
{
    nvrtcProgram program;
    /* the prelude as the CUDA backend gives it: the parts used */
    char *prelude = prelude_for(translate_prelude_cuda(), translated);
    const char *header = prelude;
    const char *header_name = TRANSLATE_PRELUDE_CUDA_HEADER;
    assert_int_equal(nvrtcCreateProgram(&program, translated, name, 1, &header,
                                        &header_name),
                     NVRTC_SUCCESS);
    const char *options[] = {"-default-device", "-std=c++17",
                             "--gpu-architecture=compute_90",
                             "--diag-suppress=2361"};
    nvrtcResult result = nvrtcCompileProgram(program, 4, options);
    char *log = NULL;
    if (result != NVRTC_SUCCESS) {
        size_t size = 0;
        nvrtcGetProgramLogSize(program, &size);
        log = calloc(1, size + 1);
        assert_non_null(log);
        nvrtcGetProgramLog(program, log);
    }
    nvrtcDestroyProgram(&program);
    free(prelude);
    return log;
}

static void compile_file(const char *dir, const char *name,
                         const char *options, int *failures)
{
    char path[8192];
    int written = snprintf(path, sizeof path, "%s/%s/%s", test_srcdir(), dir,
                           name);
    assert_true(written > 0 && (size_t)written < sizeof path);
    size_t length = 0;
    char *source = read_text(path, &length);
    opencl_to_cuda_result out;
    if (translate_with(source, length, name, options, &out) != 0) {
        print_message("# %s: refused: %s\n", name, out.error);
        ++*failures;
    } else {
        char *log = nvrtc_compile(out.source, name);
        if (log != NULL) {
            print_message("# %s: NVRTC failed:\n%.*s\n", name, 3000, log);
            ++*failures;
        }
        free(log);
    }
    opencl_to_cuda_result_free(&out);
    free(source);
}

static void compile_directory(const char *dir)
{
    char listing[8192];
    int written = snprintf(listing, sizeof listing, "%s/%s", test_srcdir(),
                           dir);
    assert_true(written > 0 && (size_t)written < sizeof listing);
    /* Every .cl file, however many: a kernel added to the directory is
     * compiled, never passed over. */
    char **names = NULL;
    size_t count = 0;
    DIR *d = opendir(listing);
    assert_non_null(d);
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        size_t n = strlen(entry->d_name);
        if (n <= 3 || strcmp(entry->d_name + n - 3, ".cl") != 0)
            continue;
        names = realloc(names, (count + 1) * sizeof *names);
        assert_non_null(names);
        names[count] = test_alloc(n + 1);
        memcpy(names[count++], entry->d_name, n + 1);
    }
    closedir(d);
    assert_true(count > 0);
    int failures = 0;
    for (size_t i = 0; i < count; ++i)
        compile_file(dir, names[i],
                     "-DTILE=16 -DFACTOR=3 -DREAL=float", &failures);
    for (size_t i = 0; i < count; ++i)
        free(names[i]);
    free(names);
    if (failures)
        fail_msg("%d of %zu kernels in %s did not translate and compile",
                 failures, count, dir);
}

static void nvrtc_corpus(void **state)
{
    (void)state;
    compile_directory("tests/kernels/corpus");
}

static void nvrtc_foreign(void **state)
{
    (void)state;
    compile_directory("tests/kernels/foreign");
}

/* NVRTC's errors point into the user's file and line, not the translation. */
/* Each section compiles with what it needs and nothing else. */
static void nvrtc_prelude_sections(void **state)
{
    (void)state;
    static const char *const names[] = {
        "kl_get_global_id", "kl_float4",   "kl_convert",    "kl_sqrt",
        "kl_native_cos",    "kl_abs",      "kl_clamp",      "kl_dot",
        "kl_isnan",         "kl_tern",     "kl_shuffle",    "kl_atomic_add",
        "kl_builtin_inff",  "kl_cptr",     "kl_dynamic_smem"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        char translation[256];
        snprintf(translation, sizeof translation,
                 "#include \"" TRANSLATE_PRELUDE_CUDA_HEADER "\"\n"
                 "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n"
                 "/* uses %s */\n",
                 names[i]);
        char *log = nvrtc_compile(translation, names[i]);
        if (log != NULL)
            fail_msg("the prelude for %s does not compile:\n%.3000s", names[i],
                     log);
    }
    /* vectors that no type name in the program brings in */
    static const char unnamed[] =
        "__kernel void k(__global const float *in, __global float *out,\n"
        "                __global int *flags) {\n"
        "    int i = get_global_id(0);\n"
        "    vstore4(vload4(i, in) * 2.0f, i, out);\n"
        "    flags[i] = any(isnan(vload2(i, in)));\n"
        "    out[i] = dot(vload3(i, in), vload3(i + 1, in)) +\n"
        "             vload_half(i, (__global const half *)in);\n"
        "}\n";
    opencl_to_cuda_result out;
    translate_ok(unnamed, NULL, &out);
    char *log = nvrtc_compile(out.source, "unnamed.cl");
    if (log != NULL)
        fail_msg("unnamed vectors do not compile:\n%.3000s", log);
    opencl_to_cuda_result_free(&out);
    /* widths only swizzles make, from one named type */
    static const char swizzled[] =
        "__kernel void k(__global float8 *in, __global float *out) {\n"
        "    int i = get_global_id(0);\n"
        "    float8 v = in[i];\n"
        "    out[i] = dot(v.lo.lo, v.hi.odd) + dot(v.s012, v.s567) +\n"
        "             v.even.hi.x + length(v.lo.xyz.lo) + v.s01234567.s7;\n"
        "}\n";
    translate_ok(swizzled, NULL, &out);
    log = nvrtc_compile(out.source, "swizzled.cl");
    if (log != NULL)
        fail_msg("widths made by swizzles do not compile:\n%.3000s", log);
    opencl_to_cuda_result_free(&out);
    /* a scalar math function gets no vector forms, and works */
    static const char scalar_math[] =
        "__kernel void k(__global float *x, __global int *n) {\n"
        "    int i = get_global_id(0);\n"
        "    x[i] = sqrt(x[i]) + fma(x[i], 2.0f, 1.0) + native_exp(x[i]) +\n"
        "           mad(x[i], x[i], 1.0f) + pown(x[i], n[i]) + min(x[i], 1.0f);\n"
        "    n[i] = abs(n[i]) + clamp(n[i], 0, 4) + isnan(x[i]);\n"
        "}\n";
    translate_ok(scalar_math, NULL, &out);
    log = nvrtc_compile(out.source, "scalar_math.cl");
    if (log != NULL)
        fail_msg("scalar math does not compile:\n%.3000s", log);
    opencl_to_cuda_result_free(&out);
}

static void nvrtc_lines(void **state)
{
    (void)state;
    static const char source[] =
        "// line 1\n"
        "#define SCALE 2.0f\n"
        "\n"
        "__kernel void k(__global float *out)\n"
        "{\n"
        "    float4 v = (float4)(SCALE);\n"
        "    out[0] = v.x + undeclared_name;\n"
        "}\n";
    opencl_to_cuda_result out;
    assert_int_equal(opencl_to_cuda_translate(source, strlen(source), "user.cl", NULL,
                                   &out), 0);
    char *log = nvrtc_compile(out.source, "user.cl");
    assert_non_null(log);
    if (strstr(log, "user.cl(7)") == NULL)
        fail_msg("NVRTC's log does not point at user.cl line 7:\n%s", log);
    free(log);
    opencl_to_cuda_result_free(&out);
}
#endif

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(signatures),
        KILN_TEST(rewrites),
        KILN_TEST(refusals),
        KILN_TEST(cuda_scopes),
        KILN_TEST(cuda_kernel_named_like_a_keyword),
        KILN_TEST(cuda_targets),
        KILN_TEST(cuda_half_math_without_fp64),
        KILN_TEST(garbage),
        KILN_TEST(large_sources_translate_in_linear_time),
        KILN_TEST(translator_digest),
        KILN_TEST(prelude_selection),
        KILN_TEST(expand_includes),
        KILN_TEST(option_lists),
        KILN_TEST(options_reach_the_preprocessor),
#ifdef KILN_TEST_NVRTC
        KILN_TEST(nvrtc_prelude_sections),
        KILN_TEST(nvrtc_corpus),
        KILN_TEST(nvrtc_foreign),
        KILN_TEST(nvrtc_lines),
#endif
    };
    return kiln_test_main_plain("clc", tests, sizeof tests / sizeof tests[0]);
}
