/*
 * CUDA C -> OpenCL C, the rewriting every part of the pass shares (on
 * rewrite.h's edits and writer): the refusals of what OpenCL C cannot
 * express, and the rewrites that do not depend on where a token stands
 * (CUDA's C++ spellings, printf formats, 3-component vectors).
 */
#include "cuda_to_opencl_pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output ------------------------------------------------------------ */

const char *cu_render(cu_state *st, const clc_edits *e, size_t begin,
                      size_t end)
{
    return clc_render(st->arena, st->tokens, st->file_names, st->file_count,
                      e, begin, end);
}

/* ---- refusals ------------------------------------------------------------------------------ */

static const struct {
    const char *prefix;  /* an identifier that starts so               */
    int exact;           /* ... or is exactly it                       */
    const char *what;
} cu_refused[] = {
    /* the _sync forms are emulated (translate/cuda_barriers_warp.c) where
     * the translation can read the function; what reaches here is not:
     * the legacy forms (removed by CUDA 9 for sm_70 and newer) and calls
     * in functions the barrier phase cannot parse */
    {"__shfl", 0, "warp shuffles are emulated only with CUDA 9's _sync "
                  "names, in functions whose statements the translation "
                  "can read"},
    {"__ballot", 0, "warp votes are emulated only with CUDA 9's _sync "
                    "names, in functions whose statements the translation "
                    "can read"},
    {"__any", 0, "warp votes are emulated only with CUDA 9's _sync names, "
                 "in functions whose statements the translation can read"},
    {"__all", 0, "warp votes are emulated only with CUDA 9's _sync names, "
                 "in functions whose statements the translation can read"},
    {"__activemask", 1, "warp votes are emulated only in functions whose "
                        "statements the translation can read"},
    {"__syncwarp", 1, "__syncwarp is translated only in functions whose "
                      "statements the translation can read"},
    {"__match_any_sync", 1, "warp votes are not supported by OpenCL C"},
    {"__match_all_sync", 1, "warp votes are not supported by OpenCL C"},
    {"__reduce_", 0, "warp reductions are emulated only in functions "
                     "whose statements the translation can read"},
    {"__syncthreads_count", 1, "block votes are not supported by OpenCL C"},
    {"__syncthreads_and", 1, "block votes are not supported by OpenCL C"},
    {"__syncthreads_or", 1, "block votes are not supported by OpenCL C"},
    {"this_grid", 1, "grid-wide cooperative groups (a cooperative launch's "
                     "grid sync) are not supported: only a block's "
                     "(this_thread_block)"},
    {"grid_group", 1, "grid-wide cooperative groups (a cooperative launch's "
                      "grid sync) are not supported: only a block's "
                      "(this_thread_block)"},
    {"this_multi_grid", 1, "multi-device cooperative groups are not supported"},
    {"coalesced_threads", 1, "cooperative groups' coalesced groups (warp-level) "
                             "are not supported"},
    {"texture", 1, "textures are not supported"},
    {"tex1D", 0, "textures are not supported"},
    {"tex2D", 0, "textures are not supported"},
    {"tex3D", 0, "textures are not supported"},
    {"texCubemap", 0, "textures are not supported"},
    {"cudaTextureObject_t", 1, "textures are not supported"},
    {"cudaSurfaceObject_t", 1, "surfaces are not supported"},
    {"cudaGraphConditionalHandle", 1, "CUDA graphs' conditional nodes "
                                      "(cudaGraphSetConditional) are not "
                                      "supported"},
    {"cudaGraphSetConditional", 1, "CUDA graphs' conditional nodes are not "
                                   "supported"},
    {"surf1D", 0, "surfaces are not supported"},
    {"surf2D", 0, "surfaces are not supported"},
    {"surf3D", 0, "surfaces are not supported"},
    {"cudaMalloc", 0, "dynamic parallelism (CUDA runtime calls in device "
                      "code) is not supported"},
    {"cudaFree", 1, "dynamic parallelism (CUDA runtime calls in device "
                    "code) is not supported"},
    {"cudaDeviceSynchronize", 1, "dynamic parallelism (CUDA runtime calls "
                                 "in device code) is not supported"},
    {"cudaLaunch", 0, "dynamic parallelism is not supported"},
    {"cudaStream", 0, "dynamic parallelism (CUDA runtime calls in device "
                      "code) is not supported"},
    {"cudaGetParameterBuffer", 1, "dynamic parallelism is not supported"},
    {"wmma", 1, "tensor core operations are not supported"},
    {"clock64", 1, "clock64 is not supported by OpenCL C"},
    {"clock", 1, "clock is not supported by OpenCL C (no cycle counter)"},
    {"clock_t", 1, "clock is not supported by OpenCL C (no cycle counter)"},
    {"__nanosleep", 1, "__nanosleep is not supported by OpenCL C"},
    {"malloc", 1, "device-side malloc is not supported by OpenCL C"},
    {"free", 1, "device-side free is not supported by OpenCL C"},
};

/* Whether `name` is one of CUDA's arithmetic intrinsics with a directed
 * rounding (__fadd_rz, __dmul_ru, __fmaf_rd, __fsqrt_rz...). */
static int cu_directed_rounding(const char *name)
{
    static const char *const operations[] = {
        "__fadd_", "__fsub_", "__fmul_", "__fdiv_", "__fmaf_", "__frcp_",
        "__fsqrt_", "__dadd_", "__dsub_", "__dmul_", "__ddiv_", "__fma_",
        "__drcp_", "__dsqrt_",
    };
    for (size_t k = 0; k < sizeof operations / sizeof operations[0]; ++k) {
        size_t n = strlen(operations[k]);
        if (strncmp(name, operations[k], n) == 0 && name[n] == 'r' &&
            (name[n + 1] == 'z' || name[n + 1] == 'u' || name[n + 1] == 'd') &&
            name[n + 2] == '\0')
            return 1;
    }
    return 0;
}

void cu_check_identifier(cu_state *st, size_t i)
{
    if (!cu_ident(st, i) || cu_is_member(st, i))
        return;
    int32_t id = st->tokens[i].ident;
    const char *name = cu_name(st, i)->name;
    if (id == st->w_template || id == st->w_typename)
        cu_refuse(st, i, "cannot translate '%s': templates are not supported "
                         "(write the kernel for one type, or use the cuda "
                         "backend)", name);
    if (id == st->w_class || id == st->w_public || id == st->w_private_kw ||
        id == st->w_protected || id == st->w_virtual || id == st->w_this ||
        id == st->w_operator || id == st->w_friend || id == st->w_new ||
        id == st->w_delete)
        cu_refuse(st, i, "cannot translate '%s': classes are not supported "
                         "by OpenCL C (use a plain struct)", name);
    if (id == st->w_namespace || id == st->w_using)
        cu_refuse(st, i, "cannot translate '%s': namespaces are not "
                         "supported by OpenCL C", name);
    if (id == st->w_throw || id == st->w_try || id == st->w_catch)
        cu_refuse(st, i, "cannot translate '%s': exceptions are not "
                         "supported in device code", name);
    if (id == st->w_decltype || id == W_auto)
        cu_refuse(st, i, "cannot translate '%s': type deduction is not "
                         "supported by OpenCL C (write the type)", name);
    if (id == W_asm || id == W___asm__ || id == W___asm)
        cu_refuse(st, i, "cannot translate '%s': inline PTX assembly is not "
                         "supported by OpenCL C", name);
    if (id == st->w_managed_)
        cu_refuse(st, i, "cannot translate '__managed__': managed memory is "
                         "not supported by OpenCL");
    if (cu_directed_rounding(name))
        cu_refuse(st, i, "cannot translate '%s': OpenCL C has no directed "
                         "rounding for arithmetic (the _rn form, or the "
                         "cuda backend, computes it)", name);
    for (size_t k = 0; k < sizeof cu_refused / sizeof cu_refused[0]; ++k) {
        if (cu_refused[k].prefix[0] != name[0] ||
            cu_refused[k].prefix[1] != name[1])
            continue; /* most identifiers, cheaply */
        int hit = cu_refused[k].exact ? cu_name_is(st, i, cu_refused[k].prefix)
                                      : cu_name_starts(st, i, cu_refused[k].prefix);
        if (hit)
            cu_refuse(st, i, "cannot translate '%s': %s", name,
                      cu_refused[k].what);
    }
}

void cu_check_tokens(cu_state *st, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        cu_check_identifier(st, i);
        if (cu_punct(st, i, P_COLON) && cu_punct(st, i + 1, P_COLON))
            cu_refuse(st, i, "cannot translate '::': C++ scopes and "
                             "namespaces are not supported by OpenCL C");
        if (cu_punct(st, i, P_SHL) && cu_punct(st, i + 1, P_LT))
            cu_refuse(st, i, "cannot translate '<<<': dynamic parallelism "
                             "(kernel launches in device code) is not "
                             "supported");
        /* [=] [&] [] ( ... ): a lambda */
        if (cu_punct(st, i, P_LBRACKET) &&
            (((cu_punct(st, i + 1, P_ASSIGN) || cu_punct(st, i + 1, P_AMP)) &&
              cu_punct(st, i + 2, P_RBRACKET)) ||
             (cu_punct(st, i + 1, P_RBRACKET) && cu_punct(st, i + 2, P_LPAREN))))
            cu_refuse(st, i, "cannot translate a lambda: lambdas are not "
                             "supported by OpenCL C");
        /* (*f)(...): a pointer to a function, declared or called */
        if (cu_punct(st, i, P_LPAREN) && cu_punct(st, i + 1, P_STAR) &&
            cu_ident(st, i + 2) && cu_punct(st, i + 3, P_RPAREN) &&
            cu_punct(st, i + 4, P_LPAREN))
            cu_refuse(st, i + 2, "cannot translate '%s', a pointer to a "
                                 "function: OpenCL C has no function pointers",
                      cu_spelling(st, i + 2));
    }
}

/* ---- generic rewrites ------------------------------------------------------------------------ */

static const char *cu_vector3_name(cu_state *st, size_t i)
{
    const clc_ident *id = cu_name(st, i);
    if (id->info.width == 3 && id->length < 20)
        return cu_printf(st, "__kiln_%s", id->name);
    return NULL;
}

static const char *cu_constant_text(cu_state *st, size_t index);

/* "%lld" -> "%ld", "%zu" -> "%lu": OpenCL's printf has no ll or z. */
static const char *cu_printf_format(cu_state *st, size_t i)
{
    const clc_token *t = &st->tokens[i];
    char *text = clc_arena_alloc(st->arena, t->length + 1);
    size_t n = 0;
    for (size_t k = 0; k < t->length; ++k) {
        text[n++] = t->text[k];
        if (t->text[k] != '%')
            continue;
        if (k + 1 < t->length && t->text[k + 1] == '%') {
            text[n++] = '%';
            ++k;
            continue;
        }
        /* flags, width, precision */
        while (k + 1 < t->length && strchr("-+ #0123456789.*", t->text[k + 1]))
            text[n++] = t->text[++k];
        if (k + 2 < t->length && t->text[k + 1] == 'l' && t->text[k + 2] == 'l')
            ++k; /* keep one l */
        else if (k + 1 < t->length && (t->text[k + 1] == 'z' || t->text[k + 1] == 't' ||
                                       t->text[k + 1] == 'j')) {
            text[n++] = 'l';
            ++k;
        }
    }
    text[n] = '\0';
    return text;
}

/* Rewrites that do not depend on where the tokens are: CUDA's C++
 * spellings and names OpenCL C spells otherwise. */
/* 1ULL, 2ll: OpenCL C has no long long; long is 64 bits. */
static void cu_generic_number(cu_state *st, clc_edits *e, size_t i)
{
    const clc_token *t = &st->tokens[i];
    size_t n = t->length;
    if (n <= 2)
        return;
    char *text = clc_arena_strndup(st->arena, t->text, n);
    char *ll = NULL;
    for (size_t k = 1; k + 1 < n; ++k)
        if ((text[k] == 'l' && text[k + 1] == 'l') ||
            (text[k] == 'L' && text[k + 1] == 'L'))
            ll = text + k;
    if (ll != NULL && strpbrk(text, ".") == NULL) {
        memmove(ll, ll + 1, strlen(ll + 1) + 1);
        clc_edit_replace(e, i, text);
    }
}

/* Whether identifier `id` at `i` is an OpenCL C keyword, which is a plain
 * name in CUDA C. */
int cu_opencl_keyword(const cu_state *st, size_t i, int32_t id)
{
    return id == W_global || id == W_local || id == W_constant ||
           id == W_private || id == W_kernel || id == W_read_only ||
           id == W_write_only || id == W_read_write || id == W_half ||
           id == W_vec_step || id == W_event_t || id == W___global ||
           id == W___local || id == W___constant || id == W___private ||
           id == W___kernel || id == W___generic ||
           cu_name_is(st, i, "generic") || cu_name_is(st, i, "pipe") ||
           cu_name_is(st, i, "sampler_t") ||
           /* cuda_fp16.h's types: PoCL's clang reads them as half's */
           cu_name_is(st, i, "__half") || cu_name_is(st, i, "__half2") ||
           cu_name_is(st, i, "half2"); /* and cuda_fp16.h's half2: a vector
                                          of OpenCL's half */
}

/* X_cast<T>(e) -> ((T)(e)); address spaces come with casts. */
static void cu_generic_cast(cu_state *st, clc_edits *e, size_t i, size_t end)
{
    size_t close_angle = i + 2;
    if (!cu_punct(st, i + 1, P_LT))
        cu_fail(st, i, "'%s' without '<'", cu_name(st, i)->name);
    while (close_angle < end && !cu_punct(st, close_angle, P_GT)) {
        if (cu_is_open(st, close_angle))
            close_angle = st->match[close_angle];
        ++close_angle;
    }
    if (!cu_punct(st, close_angle + 1, P_LPAREN))
        cu_fail(st, i, "'%s<...>' without '('", cu_name(st, i)->name);
    clc_edit_replace(e, i, "((");
    clc_edit_replace(e, i + 1, "");
    clc_edit_replace(e, close_angle, ")");
    clc_edit_after(st->arena, e, st->match[close_angle + 1], ")");
}

/* threadIdx.x and its kin as OpenCL's work-item functions (a whole
 * threadIdx is the prelude's macro).  Returns the last token used. */
static size_t cu_generic_builtin_variable(cu_state *st, clc_edits *e,
                                          size_t i, int32_t id)
{
    const char *function = id == st->w_threadIdx ? "get_local_id"
                           : id == st->w_blockIdx ? "get_group_id"
                           : id == st->w_blockDim ? "get_local_size"
                                                  : "get_num_groups";
    if (cu_punct(st, i + 1, P_DOT) &&
        (cu_is(st, i + 2, st->w_x) || cu_is(st, i + 2, st->w_y) ||
         cu_is(st, i + 2, st->w_z))) {
        int axis = cu_is(st, i + 2, st->w_x) ? 0
                   : cu_is(st, i + 2, st->w_y) ? 1 : 2;
        clc_edit_replace(e, i, cu_printf(st, "((uint)%s(%d))", function, axis));
        clc_edit_replace(e, i + 1, "");
        clc_edit_replace(e, i + 2, "");
        return i + 2;
    }
    return i;
}

/* Any other name: CUDA's 3-component vectors and extra vector types,
 * constants folded in, float(x) as a cast, doubles noted. */
static void cu_generic_name(cu_state *st, clc_edits *e, size_t i, int32_t id)
{
    const char *v3 = cu_vector3_name(st, i);
    if (v3 != NULL) {
        clc_edit_replace(e, i, v3);
        return;
    }
    const char *spelled = cu_extra_type_spelling(st, i);
    if (spelled != NULL)
        clc_edit_replace(e, i, spelled);
    if (st->constant_of[id] != 0)
        clc_edit_replace(e, i, cu_constant_text(st, (size_t)st->constant_of[id] - 1));
    /* float(x): a functional cast */
    if (cu_is_builtin_type(st, i) && cu_punct(st, i + 1, P_LPAREN) &&
        i > 0 && !cu_is_type_name(st, i - 1) && !cu_is_qualifier(st, i - 1) &&
        !cu_punct(st, i - 1, P_STAR) && !cu_ident(st, i - 1)) {
        const char *type = e->replace[i - e->begin] ? e->replace[i - e->begin]
                                                     : cu_spelling(st, i);
        clc_edit_replace(e, i, cu_printf(st, "((%s)", type));
        clc_edit_after(st->arena, e, st->match[i + 1], ")");
    }
    if (id == W_double)
        st->uses_double = 1;
}

/* A call at i whose value nothing uses: a statement of its own. */
static int cu_call_statement(const cu_state *st, size_t i)
{
    if (!cu_punct(st, i + 1, P_LPAREN) ||
        !cu_punct(st, st->match[i + 1] + 1, P_SEMI))
        return 0;
    if (cu_statement_start(st, i) ||
        (i > 0 && (cu_is(st, i - 1, W_else) || cu_is(st, i - 1, W_do))))
        return 1;
    if (i == 0 || !cu_punct(st, i - 1, P_RPAREN))
        return 0;
    size_t open = st->match[i - 1];
    return open > 0 && (cu_is(st, open - 1, W_if) ||
                        cu_is(st, open - 1, W_while) ||
                        cu_is(st, open - 1, W_for));
}

/* An identifier outside a member access.  Returns the last token used. */
static size_t cu_generic_word(cu_state *st, clc_edits *e, size_t i,
                              size_t end)
{
    int32_t id = st->tokens[i].ident;
    if (id == W___restrict__ || id == W___restrict) {
        clc_edit_replace(e, i, "restrict");
    } else if (id == W_long && cu_is(st, i + 1, W_long)) {
        clc_edit_replace(e, i, "");
    } else if (id == W_register || id == st->w_launch_bounds_) {
        if (id == st->w_launch_bounds_ && cu_punct(st, i + 1, P_LPAREN))
            clc_edit_drop(e, i, st->match[i + 1] + 1);
        else
            clc_edit_replace(e, i, "");
    } else if (id == st->w_align_ && cu_punct(st, i + 1, P_LPAREN)) {
        clc_edit_replace(e, i, "__attribute__((aligned");
        clc_edit_after(st->arena, e, st->match[i + 1], ")) ");
    } else if (cu_name_is(st, i, "atomicAdd") && cu_call_statement(st, i)) {
        /* CUDA's red.add where the old value is not used */
        clc_edit_replace(e, i, "__kiln_atomicAdd_discard");
    } else if (cu_name_is(st, i, "pow") && cu_punct(st, i + 1, P_LPAREN)) {
        /* C++'s pow(float, int) and friends: OpenCL's pow is ambiguous */
        clc_edit_replace(e, i, "__kiln_pow");
    } else if (id == st->w_nullptr) {
        clc_edit_replace(e, i, "0");
    } else if (id == st->w_constexpr) {
        clc_edit_replace(e, i, "const");
    } else if (id == st->w_static_cast || id == st->w_reinterpret_cast ||
               id == st->w_const_cast) {
        cu_generic_cast(st, e, i, end);
    } else if (cu_is(st, i, st->w_threadIdx) || cu_is(st, i, st->w_blockIdx) ||
               cu_is(st, i, st->w_blockDim) || cu_is(st, i, st->w_gridDim)) {
        return cu_generic_builtin_variable(st, e, i, id);
    } else if (id >= 0) {
        cu_generic_name(st, e, i, id);
    }
    return i;
}

void cu_generic(cu_state *st, clc_edits *e, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        const clc_token *t = &st->tokens[i];
        if (t->kind == CLC_TOK_NUMBER) {
            cu_generic_number(st, e, i);
            continue;
        }
        if (t->kind == CLC_TOK_STRING && i >= 2 && cu_punct(st, i - 1, P_LPAREN) &&
            cu_is(st, i - 2, W_printf)) {
            for (size_t k = i; k < end && st->tokens[k].kind == CLC_TOK_STRING; ++k)
                clc_edit_replace(e, k, cu_printf_format(st, k));
            continue;
        }
        if (t->kind != CLC_TOK_IDENT)
            continue;
        if (cu_opencl_keyword(st, i, t->ident)) {
            /* OpenCL C keywords are plain names in CUDA C */
            clc_edit_replace(e, i, cu_printf(st, "__kiln_id_%s", cu_name(st, i)->name));
            continue;
        }
        if (cu_is_member(st, i))
            continue;
        i = cu_generic_word(st, e, i, end);
    }
}

static const char *cu_constant_text(cu_state *st, size_t index)
{
    cu_constant *c = &st->constants[index];
    if (c->text != NULL)
        return c->text;
    if (c->rendering)
        cu_fail(st, c->init_begin, "constant '%s' is defined by itself",
                clc_ident_get(st->interner, c->name)->name);
    c->rendering = 1;
    clc_edits e;
    clc_edits_init(st->arena, &e, c->type_begin, c->init_end);
    cu_generic(st, &e, c->type_begin, c->type_end);
    cu_generic(st, &e, c->init_begin, c->init_end);
    for (size_t i = c->type_begin; i < c->type_end; ++i)
        if (cu_is_qualifier(st, i))
            clc_edit_replace(&e, i, "");
    const char *type = cu_render(st, &e, c->type_begin, c->type_end);
    const char *value = cu_render(st, &e, c->init_begin, c->init_end);
    c->text = cu_printf(st, "((%s)(%s))", type, value);
    c->rendering = 0;
    return c->text;
}
