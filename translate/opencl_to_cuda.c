/*
 * OpenCL C -> CUDA C++ translation: the entry and the walk (see
 * opencl_to_cuda.h for the contract, opencl_to_cuda_pass.h for its files).
 *
 * The pass works on the preprocessed token stream.  It does not build a
 * syntax tree: OpenCL C is C99 plus a few constructs that are recognisable
 * from their tokens (qualifiers, vector type names, vector literals,
 * swizzles, built-in names), and the prelude (prelude_cuda.cuh) gives the
 * rest its OpenCL meaning through C++ overloading.  Where C++ cannot be made
 * to do it (a vector condition in ?:, OpenCL's masked shift counts) the pass
 * finds the operands by operator precedence and wraps them in prelude calls.
 *
 * Every change is recorded as an edit on a token (replace it, or insert text
 * before or after it); the output is written once at the end, with #line
 * directives that keep NVRTC's diagnostics on the user's lines.
 */
#include "opencl_to_cuda_pass.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* ---- the walk ---------------------------------------------------------------------------- */

/* Where the walk is: brace depth, and whether a file-scope declaration
 * starts at the next token. */
typedef struct tr_walk_state {
    size_t depth;
    int at_declaration_start;
    int function_body;
} tr_walk_state;

/* A punctuator: depth and declaration boundaries, and the constructs a
 * punctuator starts (swizzles, shifts, ?:, pointer initialisers and
 * arguments, compound and vector literals).  Returns the last token
 * consumed. */
static size_t tr_walk_punct(tr_state *st, tr_walk_state *w, size_t i)
{
    const clc_token *t = &st->tokens[i];
    switch (t->punct) {
    case P_LBRACE:
        /* A function body follows its parameter list (or the
         * attributes after it); struct bodies and initialisers do
         * not, and the declaration goes on after their '}'. */
        if (w->depth == 0)
            w->function_body =
                i > 0 && (tr_is_punct(st, i - 1, P_RPAREN) ||
                          st->edits.replace[i - 1] != NULL);
        ++w->depth;
        break;
    case P_RBRACE:
        if (w->depth > 0)
            --w->depth;
        if (w->depth == 0 && w->function_body)
            w->at_declaration_start = 1;
        break;
    case P_SEMI:
        if (w->depth == 0)
            w->at_declaration_start = 1;
        break;
    case P_DOT:
        if (tr_is_ident(st, i + 1))
            i = tr_swizzle_chain(st, i);
        break;
    case P_SHL: case P_SHR: case P_SHL_ASSIGN: case P_SHR_ASSIGN:
        tr_shift(st, i);
        break;
    case P_QUESTION:
        if (w->depth > 0)
            tr_conditional(st, i);
        break;
    case P_ASSIGN:
        if (w->depth > 0)
            tr_pointer_initialiser(st, i);
        break;
    case P_LPAREN:
        if (w->depth > 0 && i > 0 && tr_is_ident(st, i - 1))
            tr_pointer_arguments(st, i);
        if (tr_compound_literal(st, i))
            break;
        /* (vectortype)( ... ) is a vector literal */
        if (tr_is_vector_type(st, i + 1) &&
            tr_is_punct(st, i + 2, P_RPAREN) &&
            tr_is_punct(st, i + 3, P_LPAREN)) {
            st->edits.replace[i] = "";
            st->edits.replace[i + 1] = "";
            st->edits.replace[i + 2] = "";
            st->edits.replace[i + 3] = tr_make_call(st, i + 1);
            i += 3;
        }
        break;
    default:
        break;
    }
    return i;
}

/* C's keywords and GNU spellings CUDA C++ writes otherwise, and the words
 * that start a construct of their own; 1 when token *at was one (*at is
 * then the last token consumed). */
static int tr_walk_keyword(tr_state *st, size_t depth, size_t *at)
{
    size_t i = *at;
    const clc_token *t = &st->tokens[i];
    switch (t->ident) {
    case W_half:
        st->edits.replace[i] = "kl_half";
        return 1;
    case W_event_t:
        st->edits.replace[i] = "kl_event_t";
        return 1;
    case W_restrict: case W___restrict:
        st->edits.replace[i] = "__restrict__";
        return 1;
    /* GNU spellings clang accepts in OpenCL C (OpenCV writes __const) */
    case W___const:
        st->edits.replace[i] = "const";
        return 1;
    case W___volatile: case W___volatile__:
        st->edits.replace[i] = "volatile";
        return 1;
    case W___signed: case W___signed__:
        st->edits.replace[i] = "signed";
        return 1;
    case W___inline: case W___inline__:
        st->edits.replace[i] = "inline";
        return 1;
    case W__Bool:
        st->edits.replace[i] = "bool";
        return 1;
    case W___alignof: case W___alignof__: case W__Alignof:
        st->edits.replace[i] = "alignof";
        return 1;
    case W__Static_assert:
        st->edits.replace[i] = "static_assert";
        return 1;
    case W_enum:
        tr_enum(st, i);
        return 1;
    case W_struct: case W_union:
        if (depth == 0)
            tr_struct_return(st, i);
        return 1;
    case W___builtin_astype:
        tr_builtin_astype(st, i);
        return 1;
    case W_printf:
        st->uses_printf = 1;
        return 1;
    case W_double:
        st->uses_double = 1;
        return 1;
    case W___attribute__: case W___attribute:
        if (tr_is_punct(st, i + 1, P_LPAREN))
            *at = tr_attribute(st, i, NULL);
        return 1;
    case W_vec_step:
        /* vec_step(type) is a constant; vec_step(expr) a prelude call */
        if (tr_is_punct(st, i + 1, P_LPAREN) && tr_is_ident(st, i + 2) &&
            tr_is_punct(st, i + 3, P_RPAREN) &&
            (tr_ident(st, i + 2)->info.width != 0 ||
             tr_scalar_size(st, i + 2) != 0)) {
            unsigned width = tr_ident(st, i + 2)->info.width;
            st->edits.replace[i] = tr_printf(st, "%u", width == 3 ? 4u
                                               : width ? width : 1u);
            st->edits.replace[i + 1] = st->edits.replace[i + 2] = st->edits.replace[i + 3] =
                "";
            i += 3;
        } else {
            st->edits.replace[i] = "kl_vec_step";
        }
        return 1;
    default:
        return 0;
    }
}

/* An identifier: OpenCL's qualifiers, vector types, keywords, names CUDA
 * reserves and built-ins, each spelt for CUDA.  Returns the last token
 * consumed. */
static size_t tr_walk_ident(tr_state *st, size_t depth, size_t i)
{
    const clc_token *t = &st->tokens[i];
    const clc_ident *ident = tr_ident(st, i);
    int flags = tr_flags(st, i);
    int space = 0;
    if (flags & TR_IDENT_UNSUPPORTED)
        tr_refuse(st, i, "cannot translate '%.*s': %s", (int)t->length,
                  t->text, tr_unsupported_why(st, i));
    if (tr_is_address_space(st, i, &space)) {
        if (space == CLC_PARAM_LOCAL && !tr_qualifies_pointer(st, i))
            st->edits.replace[i] = "__shared__";
        else if (space == CLC_PARAM_CONSTANT && depth == 0 &&
                 !tr_qualifies_pointer(st, i))
            st->edits.replace[i] = "__constant__";
        else
            st->edits.replace[i] = "";
        return i;
    }
    if (tr_is_access_qualifier(st, i) || tr_is_kernel_word(st, i)) {
        if (tr_is_access_qualifier(st, i))
            st->edits.replace[i] = "";
        return i;
    }
    if (ident->info.width != 0) {
        if (ident->info.scalar == CLC_S_HALF)
            tr_refuse(st, i, "cannot translate '%.*s': half vectors need "
                           "cl_khr_fp16, which the CUDA backend does not "
                           "offer; use vload_half/vstore_half",
                    (int)t->length, t->text);
        st->edits.replace[i] = tr_printf(st, "kl_%.*s", (int)t->length, t->text);
        return i;
    }
    if (tr_walk_keyword(st, depth, &i))
        return i;
    const char *gnu = tr_gnu_builtin(st, t);
    if (gnu != NULL) {
        st->edits.replace[i] = gnu;
        return i;
    }
    if (ident->info.cxx_keyword || (flags & TR_IDENT_CUDA_RESERVED)) {
        st->edits.replace[i] = tr_printf(st, "kl_kw_%.*s", (int)t->length,
                                   t->text);
        return i;
    }
    if (flags & TR_IDENT_ADDRESS_CAST) {
        st->edits.replace[i] = "";
        return i;
    }
    /* A member or a kernel name keeps its spelling. */
    if (i > 0 && (tr_is_punct(st, i - 1, P_DOT) ||
                  tr_is_punct(st, i - 1, P_ARROW)))
        return i;
    if (flags & TR_IDENT_KERNEL)
        return i;
    if (flags & TR_IDENT_BUILTIN) {
        st->edits.replace[i] = tr_printf(st, "kl_%.*s", (int)t->length, t->text);
        return i;
    }
    if (tr_is_punct(st, i + 1, P_LPAREN)) {
        const char *named = tr_named_builtin(st, i);
        if (named != NULL)
            st->edits.replace[i] = named;
    }
    return i;
}

static void tr_walk(tr_state *st)
{
    tr_walk_state w = {0, 1, 0};
    for (size_t i = 0; i < st->count; ++i) {
        const clc_token *t = &st->tokens[i];
        if (w.depth == 0 && w.at_declaration_start &&
            t->kind != CLC_TOK_PRAGMA) {
            w.at_declaration_start = 0;
            size_t kernel_word = tr_kernel_word(st, i);
            if (kernel_word != SIZE_MAX) {
                /* Rewrite the header wholesale; the walk resumes in the
                 * parameter list for renames inside it. */
                tr_kernel_declaration(st, i, kernel_word);
            }
        }
        if (t->kind == CLC_TOK_PUNCT)
            i = tr_walk_punct(st, &w, i);
        else if (t->kind == CLC_TOK_IDENT && st->edits.replace[i] == NULL)
            i = tr_walk_ident(st, w.depth, i);
    }
}

/* ---- entry ----------------------------------------------------------------------------------- */

static char *tr_strdup(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

/* Copies the kernels out of the arena into malloc'ed memory. */
static int tr_export_kernels(const tr_state *st, opencl_to_cuda_result *out)
{
    if (st->kernel_count == 0)
        return 0;
    out->kernels = calloc(st->kernel_count, sizeof *out->kernels);
    if (out->kernels == NULL)
        return -1;
    out->kernel_count = st->kernel_count;
    for (size_t k = 0; k < st->kernel_count; ++k) {
        const clc_kernel_signature *from = &st->kernels[k].signature;
        clc_kernel_signature *to = &out->kernels[k];
        *to = *from;
        to->params = calloc(from->param_count ? from->param_count : 1,
                            sizeof *to->params);
        if (to->params == NULL)
            return -1;
        if (from->param_count)
            memcpy(to->params, from->params,
                   from->param_count * sizeof *to->params);
    }
    return 0;
}

void opencl_to_cuda_run(clc_run *run, const clc_pp_output *pp,
                        opencl_to_cuda_result *out)
{
    tr_state *st = clc_arena_alloc(&run->arena, sizeof *st);
    st->arena = &run->arena;
    st->interner = &run->interner;
    st->failure = &run->failure;
    st->unsupported = (int *)&run->unsupported;
    tr_intern_names(st);
    st->tokens = pp->tokens;
    st->count = pp->count ? pp->count - 1 : 0; /* without EOF */
    st->file_names = pp->file_names;
    st->file_count = pp->file_count;
    clc_edits_init(&run->arena, &st->edits, 0, st->count);
    /* get_work_dim() anywhere: every kernel takes the launch's dimensions
     * as a hidden parameter (none can be told from the grid alone). */
    int32_t work_dim = clc_intern(st->interner, "get_work_dim", 12);
    for (size_t i = 0; i < st->count && !st->uses_work_dim; ++i)
        st->uses_work_dim = st->tokens[i].kind == CLC_TOK_IDENT &&
                            st->tokens[i].ident == work_dim;
    tr_match_brackets(st);
    clc_symbols_init(&st->symbols, &run->arena, &run->interner,
                     CLC_LANGUAGE_OPENCL_C, st->tokens, st->count, st->match);
    clc_symbols_scan(&st->symbols);
    tr_drop_unused_samplers(st);
    tr_walk(st);

    size_t text_length = 0;
    const char *text = tr_emit(st, &text_length);
    out->uses_printf = st->uses_printf;
    out->uses_double = st->uses_double;
    out->uses_work_dim = st->uses_work_dim;
    out->fp_contract_off = pp->fp_contract_off;
    out->source = tr_strdup(text, text_length);
    if (out->source == NULL || tr_export_kernels(st, out) != 0)
        clc_fail_memory(&run->failure);
}

int opencl_to_cuda_translate(const char *source, size_t length,
                             const char *source_name,
                             const translate_options *options,
                             opencl_to_cuda_result *out)
{
    memset(out, 0, sizeof *out);
    clc_run run;
    clc_run_begin(&run);
    /* Every failure below longjmps back here; the arena holds everything
     * the pass allocated, so freeing it cannot leak. */
    if (setjmp(run.failure.unwind) != 0) {
        opencl_to_cuda_result_free(out); /* whatever was exported before */
        return clc_run_failed(&run, &out->error, &out->error_line,
                              &out->unsupported);
    }
    if (source == NULL && length != 0)
        clc_fail(&run.failure, -1, 0, "no source text");
    clc_interner_init(&run.interner, &run.arena);
    clc_pp_output pp;
    clc_preprocess(source ? source : "", length, source_name, options,
                   &run.arena, &run.interner, &pp);
    opencl_to_cuda_run(&run, &pp, out);
    clc_run_end(&run);
    return 0;
}

void opencl_to_cuda_result_free(opencl_to_cuda_result *translation)
{
    if (translation == NULL)
        return;
    free(translation->source);
    if (translation->kernels != NULL) {
        for (size_t k = 0; k < translation->kernel_count; ++k)
            free(translation->kernels[k].params);
        free(translation->kernels);
    }
    free(translation->error);
    memset(translation, 0, sizeof *translation);
}
