/*
 * OpenCL C -> CUDA C++, the pass's vocabulary: what a token is (a
 * punctuator, a word, an address space or qualifier, a type's size) and
 * the brackets matched.
 */
#include "opencl_to_cuda_pass.h"

#include <string.h>

/* ---- token helpers -------------------------------------------------------- */

/* The shared predicates (rewrite.h) on the pass's tokens, false past the
 * last. */
int tr_is_punct(const tr_state *st, size_t i, clc_punct punct)
{
    return i < st->count && clc_token_is_punct(&st->tokens[i], punct);
}

int tr_is_word(const tr_state *st, size_t i, clc_word word)
{
    return i < st->count && clc_token_is_word(&st->tokens[i], (int32_t)word);
}

int tr_is_ident(const tr_state *st, size_t i)
{
    return i < st->count && clc_token_is_ident(&st->tokens[i]);
}

const clc_ident *tr_ident(const tr_state *st, size_t i)
{
    return clc_ident_get(st->interner, st->tokens[i].ident);
}

int tr_ident_is(const tr_state *st, size_t i, const char *name)
{
    return i < st->count &&
           clc_token_name_is(st->interner, &st->tokens[i], name);
}

int tr_flags(const tr_state *st, size_t i)
{
    if (!tr_is_ident(st, i))
        return 0;
    size_t id = (size_t)st->tokens[i].ident;
    return id < st->ident_flag_count ? st->ident_flags[id] : 0;
}

void tr_flag_set(tr_state *st, int32_t id, int flag)
{
    if (id < 0)
        return;
    if ((size_t)id >= st->ident_flag_count) {
        size_t count = st->ident_flag_count ? st->ident_flag_count : 1024;
        while (count <= (size_t)id)
            count *= 2;
        uint16_t *grown = clc_arena_alloc(st->arena, count * sizeof *grown);
        if (st->ident_flag_count)
            memcpy(grown, st->ident_flags,
                   st->ident_flag_count * sizeof *grown);
        st->ident_flags = grown;
        st->ident_flag_count = count;
    }
    st->ident_flags[id] |= (uint16_t)flag;
}

/* A typedef of a vector type where it stands (`typedef float4 vec;`). */
static int tr_is_vector_typedef(const tr_state *st, size_t i)
{
    const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
    return symbol != NULL && symbol->kind == CLC_SYMBOL_TYPEDEF &&
           clc_type_is_vector(symbol->type);
}

/* A vector type name, built in ("float4") or typedef'd to one. */
int tr_is_vector_type(const tr_state *st, size_t i)
{
    if (!tr_is_ident(st, i))
        return 0;
    const clc_ident *ident = tr_ident(st, i);
    if (ident->info.width != 0)
        return ident->info.scalar != CLC_S_HALF;
    return tr_is_vector_typedef(st, i);
}

int tr_is_address_space(const tr_state *st, size_t i, int *space)
{
    if (!tr_is_ident(st, i))
        return 0;
    switch (st->tokens[i].ident) {
    case W___global: case W_global:
        *space = CLC_PARAM_GLOBAL;
        return 1;
    case W___constant: case W_constant:
        *space = CLC_PARAM_CONSTANT;
        return 1;
    case W___local: case W_local:
        *space = CLC_PARAM_LOCAL;
        return 1;
    case W___private: case W_private: case W___generic:
        *space = 0;
        return 1;
    default:
        return 0;
    }
}

int tr_is_access_qualifier(const tr_state *st, size_t i)
{
    if (!tr_is_ident(st, i))
        return 0;
    switch (st->tokens[i].ident) {
    case W___read_only: case W_read_only: case W___write_only:
    case W_write_only: case W___read_write: case W_read_write:
        return 1;
    default:
        return 0;
    }
}

int tr_is_kernel_word(const tr_state *st, size_t i)
{
    return tr_is_word(st, i, W___kernel) || tr_is_word(st, i, W_kernel);
}

/* Words that may stand in a declaration's type before its declarator. */
int tr_is_type_word(const tr_state *st, size_t i)
{
    if (!tr_is_ident(st, i))
        return 0;
    if (tr_ident(st, i)->info.width != 0 || tr_is_vector_typedef(st, i))
        return 1;
    switch (st->tokens[i].ident) {
    case W_char: case W_short: case W_int: case W_long: case W_float:
    case W_double: case W_void: case W_signed: case W_unsigned: case W_bool:
    case W_half: case W_uchar: case W_ushort: case W_uint: case W_ulong:
    case W_size_t: case W_ptrdiff_t: case W_intptr_t: case W_uintptr_t:
    case W_const: case W_volatile: case W_restrict: case W___restrict:
    case W___restrict__: case W_struct: case W_union: case W_enum:
    case W__Bool: case W_static: case W_inline: case W_extern:
    case W___const: case W___volatile: case W___volatile__: case W___signed:
    case W___signed__: case W___inline: case W___inline__: case W_event_t:
        return 1;
    default:
        return 0;
    }
}

/* const, volatile, restrict and their GNU spellings */
int tr_is_qualifier(const tr_state *st, size_t i)
{
    return tr_is_word(st, i, W_const) || tr_is_word(st, i, W___const) ||
           tr_is_word(st, i, W_volatile) || tr_is_word(st, i, W___volatile) ||
           tr_is_word(st, i, W___volatile__) || tr_is_word(st, i, W_restrict) ||
           tr_is_word(st, i, W___restrict) || tr_is_word(st, i, W___restrict__);
}

/* ---- brackets --------------------------------------------------------------- */

void tr_match_brackets(tr_state *st)
{
    st->match = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *st->match);
    for (size_t i = 0; i < st->count; ++i)
        st->match[i] = SIZE_MAX; /* not a bracket */
    size_t at = 0;
    switch (clc_match_brackets(st->arena, st->tokens, st->count, st->match,
                               &at)) {
    case CLC_BRACKETS_BALANCED:
        return;
    case CLC_BRACKET_UNTERMINATED:
        tr_fail(st, at, "unterminated %s",
                st->tokens[at].text[0] == '"' ? "string literal"
                                              : "character constant");
    case CLC_BRACKET_UNBALANCED:
    case CLC_BRACKET_UNCLOSED:
        tr_fail(st, at, "unbalanced '%s'",
                clc_punct_spelling((clc_punct)st->tokens[at].punct));
    }
}

int tr_is_open(const tr_state *st, size_t i)
{
    return i < st->count && clc_token_is_open(&st->tokens[i]);
}

int tr_is_close(const tr_state *st, size_t i)
{
    return i < st->count && clc_token_is_close(&st->tokens[i]);
}
