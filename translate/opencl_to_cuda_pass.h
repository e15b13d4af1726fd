/*
 * OpenCL C -> CUDA C++: what the pass's files share (private to
 * translate/).  The pass, in the order its files run: opencl_to_cuda.c
 * (the entry, and the walk over the program that calls each rewrite),
 * opencl_to_cuda_tokens.c (what a token is, brackets), opencl_to_cuda_
 * declare.c (kernels and address spaces), opencl_to_cuda_names.c (built-in
 * and reserved names), opencl_to_cuda_expressions.c (pointer conversions,
 * swizzles, operand extents, shifts and ?:), opencl_to_cuda_rewrite.c (the
 * inserts every phase records, in nesting order, onto rewrite.h's edit
 * list, which rewrite.h's writer applies once).  opencl_to_cuda.h is the
 * pass's interface to the rest of translate/.
 */
#ifndef KILN_OPENCL_TO_CUDA_PASS_H
#define KILN_OPENCL_TO_CUDA_PASS_H

#include "opencl_to_cuda.h"

#include "expr_type.h"
#include "lexer.h"
#include "preprocess.h"
#include "rewrite.h"
#include "symbols.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the state ------------------------------------------------------------
 */

typedef struct tr_insert {
    size_t token;
    size_t span_begin, span_end; /* the construct it belongs to: orders   */
    size_t sequence;             /* inserts that share a token            */
    int after;                   /* 0: before the token, 1: after it      */
    const char *text;
} tr_insert;

typedef struct tr_kernel {
    clc_kernel_signature signature;
    size_t body_open; /* token index of the body's '{', or SIZE_MAX */
} tr_kernel;

typedef struct tr_state {
    clc_arena *arena;
    clc_interner *interner;
    clc_failure *failure;
    clc_token *tokens;
    size_t count; /* without the EOF token */
    const char **file_names;
    size_t file_count;

    /* What replaces each token (NULL keeps it, "" deletes it), and, once
     * the walk is done, the inserts below in their order (rewrite.h). */
    clc_edits edits;
    size_t *match;        /* per bracket token: its partner, else SIZE_MAX */
    /* Per '?': its ':' (else SIZE_MAX); per such ':': the last token of the
     * third operand.  Found for all ?: in one pass (tr_conditionals_find),
     * so nested and chained ?: cost linear time. */
    size_t *conditional;
    tr_insert *inserts;
    size_t insert_count, insert_capacity;

    uint16_t *ident_flags; /* per interned id: TR_IDENT_*              */
    size_t ident_flag_count;
    /* What each name is where it stands, and the types of expressions. */
    clc_symbols symbols;

    tr_kernel *kernels;
    size_t kernel_count, kernel_capacity;
    int uses_work_dim; /* kernels take the hidden kl_work_dim       */
    int uses_printf;
    int uses_double;
    int *unsupported; /* set before refusing a valid construct */
} tr_state;

enum {
    TR_IDENT_BUILTIN = 1,        /* an OpenCL built-in function: kl_ prefix   */
    TR_IDENT_UNSUPPORTED = 8,    /* images, pipes, device-side enqueue        */
    TR_IDENT_ADDRESS_CAST = 16,  /* to_global/to_local/to_private          */
    TR_IDENT_CUDA_RESERVED = 64, /* a CUDA built-in variable's name       */
    TR_IDENT_KERNEL = 256        /* a kernel's name: keeps its spelling       */
};

/* ---- functions the pass's files share ---------------------------------------
 */

CLC_NORETURN void tr_fail(tr_state *st, size_t at, const char *format, ...)
    CLC_PRINTF(3, 4);
CLC_NORETURN void tr_refuse(tr_state *st, size_t at, const char *format, ...)
    CLC_PRINTF(3, 4);
void tr_insert_add(tr_state *st, size_t token, int after, size_t span_begin,
                   size_t span_end, const char *text);
void tr_wrap(tr_state *st, size_t begin, size_t end, const char *open,
             const char *close);
char *tr_printf(tr_state *st, const char *format, ...) CLC_PRINTF(2, 3);
int tr_is_punct(const tr_state *st, size_t i, clc_punct punct);
int tr_is_word(const tr_state *st, size_t i, clc_word word);
int tr_is_ident(const tr_state *st, size_t i);
const clc_ident *tr_ident(const tr_state *st, size_t i);
int tr_ident_is(const tr_state *st, size_t i, const char *name);
int tr_flags(const tr_state *st, size_t i);
void tr_flag_set(tr_state *st, int32_t id, int flag);
int tr_is_vector_type(const tr_state *st, size_t i);
int tr_is_address_space(const tr_state *st, size_t i, int *space);
int tr_is_access_qualifier(const tr_state *st, size_t i);
int tr_is_kernel_word(const tr_state *st, size_t i);
int tr_is_type_word(const tr_state *st, size_t i);
int tr_is_qualifier(const tr_state *st, size_t i);
void tr_match_brackets(tr_state *st);
int tr_is_open(const tr_state *st, size_t i);
int tr_is_close(const tr_state *st, size_t i);
void tr_intern_names(tr_state *st);
const char *tr_unsupported_why(const tr_state *st, size_t i);
void tr_drop_unused_samplers(tr_state *st);
void tr_pointer_arguments(tr_state *st, size_t open);
void tr_pointer_initialiser(tr_state *st, size_t assign);
size_t tr_swizzle_chain(tr_state *st, size_t dot);
const char *tr_named_builtin(tr_state *st, size_t i);
void tr_conditionals_find(tr_state *st);
void tr_shift(tr_state *st, size_t op);
void tr_conditional(tr_state *st, size_t question);
size_t tr_scalar_size(const tr_state *st, size_t i);
void tr_builtin_astype(tr_state *st, size_t at);
const char *tr_gnu_builtin(tr_state *st, const clc_token *t);
void tr_enum(tr_state *st, size_t at);
void tr_struct_return(tr_state *st, size_t at);
size_t tr_attribute(tr_state *st, size_t at, unsigned *reqd);
size_t tr_kernel_declaration(tr_state *st, size_t begin, size_t kernel_word);
size_t tr_kernel_word(const tr_state *st, size_t begin);
int tr_qualifies_pointer(const tr_state *st, size_t at);
const char *tr_make_call(tr_state *st, size_t name);
int tr_compound_literal(tr_state *st, size_t open);
const char *tr_emit(tr_state *st, size_t *length);

#endif /* KILN_OPENCL_TO_CUDA_PASS_H */
