/*
 * CUDA C -> OpenCL C: the pass's entry (see cuda_to_opencl.h for the
 * contract, cuda_to_opencl_pass.h for its files).
 *
 * The source goes through the front end's preprocessor, then the pass
 * reads the top level (functions, variables, types), finds what each
 * function needs that OpenCL has no name for (shared memory declared in
 * helpers, dynamic shared memory, __device__ and __constant__ variables)
 * and threads it through as hidden parameters, and writes each function
 * once per combination of address spaces its pointer parameters are
 * called with: OpenCL C 1.2 has no generic pointers, so a helper called
 * with a global pointer and with a shared one becomes two functions.
 * Inside bodies, a pointer variable takes the address space of what it is
 * initialised or assigned from, and a pointer cast that of its operand.
 *
 * Everything the prelude can name (threadIdx, __syncthreads, atomics, the
 * math library) is left to the prelude; the pass rewrites only what a
 * macro cannot: declarations, address spaces, CUDA's C++ spellings.
 */
#include "cuda_to_opencl_pass.h"
#include "cxx.h"

#include "cuda_barriers.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- entry -------------------------------------------------------------------------------------------- */

static void cu_intern_names(cu_state *st)
{
#define CU_INTERN(field, text) st->field = clc_intern(st->interner, text, strlen(text))
    CU_INTERN(w_global_, "__global__");
    CU_INTERN(w_device_, "__device__");
    CU_INTERN(w_host_, "__host__");
    CU_INTERN(w_shared_, "__shared__");
    CU_INTERN(w_constant_, "__constant__");
    CU_INTERN(w_forceinline_, "__forceinline__");
    CU_INTERN(w_noinline_, "__noinline__");
    CU_INTERN(w_launch_bounds_, "__launch_bounds__");
    CU_INTERN(w_managed_, "__managed__");
    CU_INTERN(w_align_, "__align__");
    CU_INTERN(w_grid_constant_, "__grid_constant__");
    CU_INTERN(w_threadIdx, "threadIdx");
    CU_INTERN(w_blockIdx, "blockIdx");
    CU_INTERN(w_blockDim, "blockDim");
    CU_INTERN(w_gridDim, "gridDim");
    CU_INTERN(w_x, "x");
    CU_INTERN(w_y, "y");
    CU_INTERN(w_z, "z");
    CU_INTERN(w_nullptr, "nullptr");
    CU_INTERN(w_constexpr, "constexpr");
    CU_INTERN(w_static_cast, "static_cast");
    CU_INTERN(w_reinterpret_cast, "reinterpret_cast");
    CU_INTERN(w_const_cast, "const_cast");
    CU_INTERN(w_dim3, "dim3");
    CU_INTERN(w_template, "template");
    CU_INTERN(w_typename, "typename");
    CU_INTERN(w_class, "class");
    CU_INTERN(w_namespace, "namespace");
    CU_INTERN(w_using, "using");
    CU_INTERN(w_operator, "operator");
    CU_INTERN(w_this, "this");
    CU_INTERN(w_new, "new");
    CU_INTERN(w_delete, "delete");
    CU_INTERN(w_virtual, "virtual");
    CU_INTERN(w_public, "public");
    CU_INTERN(w_private_kw, "private");
    CU_INTERN(w_protected, "protected");
    CU_INTERN(w_friend, "friend");
    CU_INTERN(w_throw, "throw");
    CU_INTERN(w_try, "try");
    CU_INTERN(w_catch, "catch");
    CU_INTERN(w_decltype, "decltype");
#undef CU_INTERN
}

static char *cu_strdup(const char *text)
{
    size_t n = strlen(text);
    char *copy = malloc(n + 1);
    if (copy != NULL)
        memcpy(copy, text, n + 1);
    return copy;
}

static void cu_copy_name(char *out, size_t size, const char *text)
{
    snprintf(out, size, "%s", text);
}

/* The kernels' signatures and hidden parameters, for the caller. */
static int cu_export_signature(cu_state *st, const cu_function *f,
                               cuda_kernel *kernel);

static int cu_export(cu_state *st, cuda_to_opencl_result *out)
{
    size_t kernels = 0;
    for (size_t k = 0; k < st->instance_count; ++k)
        kernels += st->functions[st->instances[k].key.fn].is_kernel;
    out->kernels = calloc(kernels ? kernels : 1, sizeof *out->kernels);
    out->variables = calloc(st->variable_count ? st->variable_count : 1,
                            sizeof *out->variables);
    if (out->kernels == NULL || out->variables == NULL)
        return -1;
    for (size_t h = 0; h < st->hidden_count; ++h) {
        const cu_hidden *item = &st->hidden[h];
        if (item->kind != CU_H_VARIABLE)
            continue;
        cuda_variable *v = &out->variables[item->variable];
        cu_copy_name(v->name, sizeof v->name, cu_ident_text(st, item->name));
        v->is_constant = item->is_constant;
        v->has_initializer = item->init_begin != 0;
    }
    out->variable_count = st->variable_count;
    for (size_t k = 0; k < st->instance_count; ++k) {
        const cu_function *f = &st->functions[st->instances[k].key.fn];
        if (!f->is_kernel)
            continue;
        cuda_kernel *kernel = &out->kernels[out->kernel_count++];
        cu_copy_name(kernel->native_name, sizeof kernel->native_name,
                     st->instances[k].name);
        kernel->hidden = calloc(st->hidden_count + f->param_count + 1,
                                sizeof *kernel->hidden);
        if (kernel->hidden == NULL || cu_export_signature(st, f, kernel) != 0)
            return -1;
        for (size_t p = 0; p < f->param_count; ++p)
            if (cu_param_takes_offset(st, &f->params[p]))
                kernel->hidden[kernel->hidden_count++] =
                    (cuda_hidden_param){CUDA_HIDDEN_POINTER_OFFSET, p};
        for (size_t h = 0; h < st->hidden_count; ++h) {
            if (!f->needs[h])
                continue;
            if (st->hidden[h].kind == CU_H_DYNAMIC)
                kernel->hidden[kernel->hidden_count++] =
                    (cuda_hidden_param){CUDA_HIDDEN_DYNAMIC_SHARED, 0};
            else if (st->hidden[h].kind == CU_H_VARIABLE)
                kernel->hidden[kernel->hidden_count++] = (cuda_hidden_param){
                    CUDA_HIDDEN_VARIABLE, st->hidden[h].variable};
        }
    }
    return 0;
}

/* A kernel's name and parameters as the user declared them. */
static int cu_export_signature(cu_state *st, const cu_function *f,
                               cuda_kernel *kernel)
{
    cu_copy_name(kernel->signature.name, sizeof kernel->signature.name,
                 cu_ident_text(st, f->name));
    kernel->signature.params = calloc(f->param_count ? f->param_count : 1,
                                      sizeof *kernel->signature.params);
    if (kernel->signature.params == NULL)
        return -1;
    kernel->signature.param_count = f->param_count;
    for (size_t p = 0; p < f->param_count; ++p) {
        const cu_param *param = &f->params[p];
        clc_param *out_param = &kernel->signature.params[p];
        char type[96] = "";
        size_t used = 0;
        for (size_t i = param->begin; i < param->end; ++i) {
            if (i == param->name || cu_is_qualifier(st, i) ||
                cu_skip_attribute(st, i) != i)
                continue;
            if (cu_punct(st, i, P_LBRACKET)) {
                used +=
                (size_t)snprintf(type + used, sizeof type - used, "*");
                i = st->match[i];
                continue;
            }
            if (used >= sizeof type - 1)
                break;
            const char *word = cu_spelling(st, i);
            int star = word[0] == '*';
            used += (size_t)snprintf(type + used, sizeof type - used, "%s%s",
                                     used && !star ? " " : "", word);
        }
        cu_copy_name(out_param->type_name, sizeof out_param->type_name, type);
        cu_copy_name(out_param->name, sizeof out_param->name,
                     param->name ? cu_spelling(st, param->name) : "");
        if (param->pointer) {
            out_param->kind = CLC_PARAM_GLOBAL;
            out_param->size = 8;
        } else {
            out_param->kind = CLC_PARAM_VALUE;
            out_param->size = cu_type_size(type);
        }
    }
    return 0;
}

/* The preprocessor's view of CUDA: __CUDACC__ and __CUDA_ARCH__ as NVRTC
 * defines them for device code, none of OpenCL's; the user's -D and -U
 * come after these. */
static const translate_define cu_predefined[] = {
    {"__KILN_CUDA__", NULL},          {"__OPENCL_VERSION__", NULL},
    {"__OPENCL_C_VERSION__", NULL},   {"CL_VERSION_1_0", NULL},
    {"CL_VERSION_1_1", NULL},         {"CL_VERSION_1_2", NULL},
    {"CL_VERSION_2_0", NULL},         {"CL_VERSION_3_0", NULL},
    {"CLK_LOCAL_MEM_FENCE", NULL},    {"CLK_GLOBAL_MEM_FENCE", NULL},
    {"__CUDACC__", "1"},              {"__CUDA_ARCH__", "600"},
    {"__KILN_CUDA_TO_OPENCL__", "1"},
};

const char *cuda_to_opencl_filter(clc_run *run, const char *source,
                                  size_t length, const char *name)
{
    cu_state probe;
    memset(&probe, 0, sizeof probe);
    probe.arena = &run->arena;
    const char *refused = NULL;
    unsigned refused_line = 0;
    char *text = cu_filter_includes(&probe, source ? source : "", length,
                                    &refused_line, &refused,
                                    &run->cuda_headers);
    if (refused != NULL) {
        run->unsupported = 1;
        clc_fail(&run->failure, -1, 0,
                 "%s:%u: cannot translate '#include <%s>': CUDA library "
                 "headers are not supported by the OpenCL translation",
                 name ? name : "<kiln program>", refused_line, refused);
    }
    return text;
}

translate_options cuda_to_opencl_defines(clc_run *run,
                                         const translate_options *user)
{
    static const translate_options no_options;
    if (user == NULL)
        user = &no_options;
    size_t predefined = sizeof cu_predefined / sizeof cu_predefined[0];
    translate_define *defines = clc_arena_alloc(
        &run->arena, (predefined + user->define_count) * sizeof *defines);
    memcpy(defines, cu_predefined, sizeof cu_predefined);
    if (user->define_count > 0)
        memcpy(defines + predefined, user->defines,
               user->define_count * sizeof *defines);
    translate_options all = *user;
    all.defines = defines;
    all.define_count = predefined + user->define_count;
    return all;
}

/* The C++ phase's names for the caller (malloc'ed). */
static int cu_export_names(const cxx_lowering *lowering,
                           cuda_to_opencl_result *out)
{
    out->lowered_cxx = lowering->lowered;
    if (lowering->kernel_count == 0)
        return 0;
    out->kernel_names = calloc(lowering->kernel_count,
                               sizeof *out->kernel_names);
    if (out->kernel_names == NULL)
        return -1;
    for (size_t k = 0; k < lowering->kernel_count; ++k) {
        out->kernel_names[k].expression =
            cu_strdup(lowering->kernels[k].expression);
        out->kernel_names[k].function = cu_strdup(lowering->kernels[k].function);
        out->kernel_name_count = k + 1;
        if (out->kernel_names[k].expression == NULL ||
            out->kernel_names[k].function == NULL)
            return -1;
    }
    return 0;
}

/* Whether the space-separated list `list` has the word `word`. */
static int cu_has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p != NULL && (p = strstr(p, word)) != NULL;
         p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

/* NULL: not known, as when only the kernels' signatures are read. */
int cuda_to_opencl_lacks_fp64(const translate_target *target)
{
    return target != NULL && target->language == TRANSLATE_OPENCL_C &&
           !cu_has_word(target->extensions, "cl_khr_fp64");
}

/* The program's C++ lowered to C-like CUDA, the first phase (templates
 * instantiated, classes, overloads and references written as C: cxx.h),
 * with the kernel template instances `request` names. */
static clc_pp_output cu_lower_cxx(clc_run *run, const clc_pp_output *pp,
                                  const translate_target *target,
                                  const cuda_kernel_request *request,
                                  cuda_to_opencl_result *out,
                                  cxx_lowering *lowering)
{
    unsigned headers = run->cuda_headers;
    if (cuda_to_opencl_lacks_fp64(target))
        headers |= CLC_CUDA_NO_FP64;
    cxx_lower(&run->arena, &run->interner, &run->unsupported, pp->tokens,
              pp->count, request ? request->names : NULL,
              request ? request->count : 0, headers, 0, lowering);
    if (cu_export_names(lowering, out) != 0)
        clc_fail_memory(&run->failure);
    clc_pp_output lowered = *pp;
    lowered.tokens = lowering->tokens;
    lowered.count = lowering->count;
    return lowered;
}

/* The functions whose bodies the C++ phase refused: refused here, with the
 * kernels that reach them. */
static void cu_refuse_from_cxx(cu_state *st, clc_run *run,
                               const cxx_lowering *lowering)
{
    for (size_t r = 0; r < lowering->refusal_count; ++r) {
        const cxx_refusal *refusal = &lowering->refusals[r];
        int32_t id = clc_intern(&run->interner, refusal->function,
                                strlen(refusal->function));
        if (id < 0 || (size_t)id > st->ident_count ||
            st->function_of[id] == 0)
            continue;
        cu_function *f = &st->functions[st->function_of[id] - 1];
        if (f->refusal == NULL) {
            f->refusal = refusal->message;
            f->refusal_line = refusal->line;
        }
    }
}

/* NVRTC's --fmad=false (also -fmad=false, and --fmad false as two
 * words); the last --fmad given wins. */
static int cu_fmad_off(const translate_options *options)
{
    int off = 0;
    for (size_t i = 0; options != NULL && i < options->flag_count; ++i) {
        const char *flag = options->flags[i];
        while (*flag == '-')
            ++flag;
        if (strncmp(flag, "fmad", 4) != 0)
            continue;
        const char *value = flag[4] == '=' ? flag + 5
                            : flag[4] == '\0' && i + 1 < options->flag_count
                                ? options->flags[i + 1]
                                : NULL;
        if (value != NULL)
            off = strcmp(value, "false") == 0;
    }
    return off;
}

/* The source's #pragma OPENCL FP_CONTRACT OFF, through the preprocessor
 * (not in a comment or a group not taken). */
static int cu_pragma_contract_off(const char *source, size_t length,
                                  const translate_options *options)
{
    clc_run run;
    clc_run_begin(&run);
    if (setjmp(run.failure.unwind) != 0) {
        char *error = NULL;
        int line = 0, unsupported = 0;
        clc_run_failed(&run, &error, &line, &unsupported);
        free(error);
        return 0;
    }
    clc_interner_init(&run.interner, &run.arena);
    translate_options all = cuda_to_opencl_defines(&run, options);
    /* #include lines are blanked: the pragma in an included file counts
     * where the compiler sees the file inlined, as the core gives it */
    char *text = clc_arena_strndup(&run.arena, source, length);
    for (char *line = text; line != NULL && *line != '\0';) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            ++p;
        char *end = strchr(line, '\n');
        char *include = strstr(p, "include");
        if (*p == '#' && include != NULL && (end == NULL || include < end))
            memset(line, ' ', end ? (size_t)(end - line) : strlen(line));
        line = end ? end + 1 : NULL;
    }
    clc_pp_output pp;
    clc_preprocess(text, length, "<fp contract>", &all, &run.arena,
                   &run.interner, &pp);
    int off = pp.fp_contract_off;
    clc_run_end(&run);
    return off;
}

int cuda_fp_contract_pragma(const char *source, size_t length,
                            const translate_options *options)
{
    if (source == NULL ||
        !translate_text_spells(source, length, "FP_CONTRACT", 3))
        return 0;
    return cu_pragma_contract_off(source, length, options);
}

cuda_float_atomics cuda_to_opencl_float_atomics(const translate_target *target,
                                                const char **cl_std)
{
    if (cl_std != NULL)
        *cl_std = NULL;
    if (target == NULL || target->language != TRANSLATE_OPENCL_C)
        return CUDA_FLOAT_ATOMICS_CAS;
    const char *extensions = target->extensions ? target->extensions : "";
    /* NVIDIA's own OpenCL (PoCL's CUDA device names NVIDIA as its vendor,
     * not its platform, and has no inline PTX) */
    if ((target->platform != NULL &&
         strstr(target->platform, "NVIDIA") != NULL) ||
        cu_has_word(extensions, "cl_nv_device_attribute_query"))
        return CUDA_FLOAT_ATOMICS_PTX;
    /* the extension's functions are OpenCL C 3.0's */
    if (cu_has_word(extensions, "cl_ext_float_atomics") &&
        target->opencl_c_version >= 300) {
        if (cl_std != NULL)
            *cl_std = "CL3.0";
        return CUDA_FLOAT_ATOMICS_EXT;
    }
    return CUDA_FLOAT_ATOMICS_CAS;
}

int cuda_to_opencl_drops_unroll_hints(const translate_target *target)
{
    /* PoCL's CPU devices vectorise a work-group's work-items as one loop;
     * an unrolled inner loop defeats it (bench_templates' sgemm<16, 4>:
     * 1.7x slower with CUDA's three `#pragma unroll` kept, as fast as
     * the hand-written OpenCL C without them) */
    return target != NULL && target->language == TRANSLATE_OPENCL_C &&
           target->platform != NULL &&
           strstr(target->platform, "Portable Computing Language") != NULL;
}

/* Empties `#pragma unroll` without a count (the writer writes nothing for
 * an empty pragma): a hint, which changes no result. */
static void cu_drop_unroll_hints(clc_token *tokens, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (tokens[i].kind == CLC_TOK_PRAGMA && tokens[i].length == 6 &&
            memcmp(tokens[i].text, "unroll", 6) == 0)
            tokens[i].length = 0;
}

/* The pass's state over a preprocessed program, its top level read. */
static cu_state *cu_begin(clc_run *run, const clc_pp_output *pp,
                          const translate_target *target)
{
    cu_state *st = clc_arena_alloc(&run->arena, sizeof *st);
    st->target = target;
    st->arena = &run->arena;
    st->interner = &run->interner;
    st->failure = &run->failure;
    st->unsupported = (int *)&run->unsupported;
    cu_intern_names(st);
    st->tokens = pp->tokens;
    st->count = pp->count ? pp->count - 1 : 0;
    st->file_names = pp->file_names;
    st->file_count = pp->file_count;
    st->ident_count = run->interner.count;
    size_t n = st->ident_count + 1;
    st->function_of = clc_arena_alloc(&run->arena, n * sizeof *st->function_of);
    st->hidden_of = clc_arena_alloc(&run->arena, n * sizeof *st->hidden_of);
    st->constant_of = clc_arena_alloc(&run->arena, n * sizeof *st->constant_of);

    cu_match_brackets(st);
    clc_symbols_init(&st->symbols, &run->arena, &run->interner,
                     CLC_LANGUAGE_CUDA_C, st->tokens, st->count, st->match);
    clc_symbols_scan(&st->symbols);
    st->key_count = st->symbols.symbol_count + run->interner.count + 1;
    st->global_space = clc_arena_alloc(&run->arena, st->key_count);
    st->global_address = clc_arena_alloc(&run->arena, st->key_count);
    st->space_of = clc_arena_alloc(&run->arena, st->key_count);
    st->address_of = clc_arena_alloc(&run->arena, st->key_count);
    st->pointer_var = clc_arena_alloc(&run->arena, st->key_count);
    cu_top_level(st);
    return st;
}

void cuda_to_opencl_read(clc_run *run, const clc_pp_output *pp,
                         const cuda_kernel_request *request,
                         cuda_to_opencl_result *out)
{
    cxx_lowering lowering;
    clc_pp_output lowered = cu_lower_cxx(run, pp, NULL, request, out, &lowering);
    /* the signatures alone: a body the C++ phase refused does not matter */
    cu_state *st = cu_begin(run, &lowered, NULL);
    /* a signature the pass could not read whole is no signature */
    cu_refuse_any(st);
    size_t kernels = 0;
    for (size_t k = 0; k < st->function_count; ++k)
        kernels += st->functions[k].is_kernel && st->functions[k].defined;
    out->kernels = calloc(kernels ? kernels : 1, sizeof *out->kernels);
    if (out->kernels == NULL)
        clc_fail_memory(&run->failure);
    for (size_t k = 0; k < st->function_count; ++k) {
        const cu_function *f = &st->functions[k];
        if (!f->is_kernel || !f->defined)
            continue;
        cuda_kernel *kernel = &out->kernels[out->kernel_count++];
        if (cu_export_signature(st, f, kernel) != 0)
            clc_fail_memory(&run->failure);
        cu_copy_name(kernel->native_name, sizeof kernel->native_name,
                     kernel->signature.name);
    }
}

/* The kernels' instances, each kernel's pointers __global (its
 * __shared__ ones aside); not the refused kernels'. */
static void cu_seed_kernels(cu_state *st)
{
    st->instance_count = 0;
    for (size_t k = 0; k < st->function_count; ++k) {
        const cu_function *f = &st->functions[k];
        if (!f->is_kernel || !f->defined || f->refusal != NULL)
            continue;
        for (size_t i = f->begin; i < f->name_token; ++i)
            if (cu_ident(st, i) && !cu_is_qualifier(st, i) && !cu_is(st, i, W_void) &&
                !cu_is(st, i, st->w_global_) && cu_skip_attribute(st, i) == i &&
                !cu_is(st, i - 1, st->w_launch_bounds_))
                cu_fail(st, i, "a __global__ function must return void");
        cu_instance_key key = {.fn = k};
        memset(key.spaces, CU_GLOBAL, sizeof key.spaces);
        cu_instance_get(st, &key);
    }
}

static void cu_build_one(cu_state *st, void *arg)
{
    cu_instance_build(st, *(const size_t *)arg);
}

/* Builds every instance: 1, or 0 when one was refused (its function and
 * the kernels that reach it are then refused, and the instances made
 * again without them).  One that used the result of a call whose instance
 * was not built yet (its pointer's space unknown) is built again once it
 * is. */
static int cu_build_instances(cu_state *st)
{
    for (int round = 0; round < 8; ++round) {
        int again = 0;
        for (size_t k = 0; k < st->instance_count; ++k) {
            /* an instance first asked for in a later round (a call
             * whose result's space is known only now) is built then */
            if (round > 0 && !st->instances[k].pending && st->instances[k].built)
                continue;
            uint8_t before = st->instances[k].return_space;
            st->return_pending = 0;
            if (!cu_try(st, cu_build_one, &k, st->instances[k].key.fn))
                return 0;
            st->instances[k].pending = st->return_pending;
            st->instances[k].built = 1;
            again |= st->return_pending ||
                     (round > 0 && st->instances[k].return_space != before);
        }
        if (!again)
            break;
    }
    return 1;
}

void cuda_to_opencl_run(clc_run *run, const clc_pp_output *pp,
                        const translate_options *options,
                        const translate_target *target,
                        const cuda_kernel_request *request,
                        cuda_to_opencl_result *out)
{
    for (size_t i = 0; options != NULL && i < options->flag_count; ++i)
        if (strstr(options->flags[i], "use_fast_math") != NULL)
            out->fast_math = 1;
    int fmad_off = cu_fmad_off(options);
    /* the C++ lowered first (cxx.h), then CUDA's execution model
     * (cuda_barriers.h): threads that return before a barrier, block
     * votes */
    cxx_lowering lowering;
    clc_pp_output lowered = cu_lower_cxx(run, pp, target, request, out, &lowering);
    cuda_lower_barriers(&run->arena, &run->interner, &run->failure,
                        &run->unsupported, !pp->ndebug, &lowered.tokens,
                        &lowered.count);
    if (cuda_to_opencl_drops_unroll_hints(target))
        cu_drop_unroll_hints(lowered.tokens, lowered.count);
    cu_state *st = cu_begin(run, &lowered, target);
    cu_refuse_from_cxx(st, run, &lowering);
    cu_scan_functions(st);
    /* each round that fails refuses one more function */
    for (size_t round = 0;; ++round) {
        if (round > st->function_count)
            cu_refuse_any(st);
        cu_refuse_kernels(st);
        cu_seed_kernels(st);
        if (cu_build_instances(st))
            break;
    }

    clc_buffer output;
    clc_buffer_init(&output, &run->arena);
    /* --fmad=false, FP_CONTRACT OFF: for the prelude and the program */
    out->fp_contract_off = fmad_off || pp->fp_contract_off;
    if (out->fp_contract_off)
        clc_buffer_puts(&output, "#pragma OPENCL FP_CONTRACT OFF\n");
    /* the device's float atomics (the prelude chooses by these) */
    cuda_float_atomics atomics =
        cuda_to_opencl_float_atomics(target, &out->cl_std);
    if (atomics == CUDA_FLOAT_ATOMICS_PTX)
        clc_buffer_puts(&output, "#define __KILN_FLOAT_ATOMICS_PTX 1\n"
                                 "#define __KILN_INLINE_PTX 1\n");
    if (atomics == CUDA_FLOAT_ATOMICS_EXT)
        clc_buffer_puts(&output, "#define __KILN_FLOAT_ATOMICS_EXT 1\n");
    clc_buffer_puts(&output, translate_prelude_opencl());
    clc_writer w;
    clc_writer_init(&w, &output, st->tokens, st->file_names, st->file_count,
                    '\n');
    for (size_t k = 0; k < st->item_count; ++k)
        cu_write_item(st, &w, &st->items[k]);
    clc_buffer_puts(&output, "\n");
    cu_write_variable_kernels(st, &output);

    out->uses_double = st->uses_double;
    out->source = cu_strdup(clc_buffer_text(&output));
    if (out->source == NULL || cu_export(st, out) != 0 ||
        cu_export_refusals(st, out) != 0)
        clc_fail_memory(&run->failure);
}

int cuda_to_opencl_translate(const char *source, size_t length,
                             const char *source_name,
                             const translate_options *options,
                             cuda_to_opencl_result *out)
{
    return cuda_to_opencl_translate_names(source, length, source_name,
                                          options, NULL, out);
}

int cuda_to_opencl_translate_names(const char *source, size_t length,
                                   const char *source_name,
                                   const translate_options *options,
                                   const cuda_kernel_request *request,
                                   cuda_to_opencl_result *out)
{
    memset(out, 0, sizeof *out);
    clc_run run;
    clc_run_begin(&run);
    if (setjmp(run.failure.unwind) != 0) {
        cuda_to_opencl_result_free(out);
        return clc_run_failed(&run, &out->error, &out->error_line,
                              &out->unsupported);
    }
    if (source == NULL && length != 0)
        clc_fail(&run.failure, -1, 0, "no source text");
    clc_interner_init(&run.interner, &run.arena);
    const char *name = source_name ? source_name : "<kiln program>";
    const char *text = cuda_to_opencl_filter(&run, source, length, name);
    translate_options all = cuda_to_opencl_defines(&run, options);
    clc_pp_output pp;
    clc_preprocess(text, length, name, &all, &run.arena, &run.interner, &pp);
    cuda_to_opencl_run(&run, &pp, options, NULL, request, out);
    clc_run_end(&run);
    return 0;
}

void cuda_to_opencl_result_free(cuda_to_opencl_result *translation)
{
    if (translation == NULL)
        return;
    free(translation->source);
    for (size_t k = 0; k < translation->kernel_count; ++k) {
        free(translation->kernels[k].signature.params);
        free(translation->kernels[k].hidden);
    }
    free(translation->kernels);
    free(translation->variables);
    for (size_t k = 0; k < translation->kernel_name_count; ++k) {
        free(translation->kernel_names[k].expression);
        free(translation->kernel_names[k].function);
    }
    free(translation->kernel_names);
    for (size_t k = 0; k < translation->refused_count; ++k)
        free(translation->refused[k].message);
    free(translation->refused);
    free(translation->error);
    memset(translation, 0, sizeof *translation);
}
