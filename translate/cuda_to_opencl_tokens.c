/*
 * CUDA C -> OpenCL C, the pass's vocabulary: failing with the construct and
 * the line, what a token is (punctuator, identifier, a type or qualifier
 * name), brackets matched, and the sizes of CUDA's types.
 */
#include "cuda_to_opencl_pass.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- failure ---------------------------------------------------------------- */

static CLC_NORETURN void cu_fail_at(cu_state *st, size_t at, int unsupported,
                                    const char *format, va_list args)
    CLC_PRINTF(4, 0);
static void cu_fail_at(cu_state *st, size_t at, int unsupported,
                       const char *format, va_list args)
{
    char message[512];
    vsnprintf(message, sizeof message, format, args);
    const clc_token *t = &st->tokens[at < st->count ? at : st->count];
    *st->unsupported = unsupported;
    clc_fail(st->failure, t->file, t->line, "%s", message);
}

/* The source is wrong (KILN_ERR_BUILD). */
void cu_fail(cu_state *st, size_t at, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    cu_fail_at(st, at, 0, format, args);
}

/* Valid CUDA C the pass cannot translate (KILN_ERR_TRANSLATION). */
void cu_refuse(cu_state *st, size_t at, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    cu_fail_at(st, at, 1, format, args);
}

char *cu_printf(cu_state *st, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *text = clc_arena_alloc(st->arena, (size_t)n + 1);
    va_start(args, format);
    vsnprintf(text, (size_t)n + 1, format, args);
    va_end(args);
    return text;
}

void *cu_grow(cu_state *st, void *items, size_t count, size_t size)
{
    /* Capacities are powers of two: grow when count reaches one. */
    if (count != 0 && (count & (count - 1)) != 0)
        return items;
    void *grown = clc_arena_alloc(st->arena, (count ? count * 2 : 4) * size);
    if (count)
        memcpy(grown, items, count * size);
    return grown;
}

/* ---- tokens ------------------------------------------------------------------- */

/* The shared predicates (rewrite.h) on the pass's tokens, false past the
 * last. */
int cu_punct(const cu_state *st, size_t i, clc_punct punct)
{
    return i < st->count && clc_token_is_punct(&st->tokens[i], punct);
}

int cu_ident(const cu_state *st, size_t i)
{
    return i < st->count && clc_token_is_ident(&st->tokens[i]);
}

int cu_is(const cu_state *st, size_t i, int32_t word)
{
    return i < st->count && clc_token_is_word(&st->tokens[i], word);
}

const clc_ident *cu_name(const cu_state *st, size_t i)
{
    return clc_ident_get(st->interner, st->tokens[i].ident);
}

int cu_name_is(const cu_state *st, size_t i, const char *name)
{
    return i < st->count &&
           clc_token_name_is(st->interner, &st->tokens[i], name);
}

int cu_name_starts(const cu_state *st, size_t i, const char *prefix)
{
    return i < st->count &&
           clc_token_name_starts(st->interner, &st->tokens[i], prefix);
}

const char *cu_spelling(cu_state *st, size_t i)
{
    return clc_arena_strndup(st->arena, st->tokens[i].text,
                             st->tokens[i].length);
}

/* A member name: after '.' or '->'. */
int cu_is_member(const cu_state *st, size_t i)
{
    return i > 0 && (cu_punct(st, i - 1, P_DOT) || cu_punct(st, i - 1, P_ARROW));
}

/* Which variable the identifier at i names, as an index into the pass's
 * per-variable arrays: its declaration in the symbol table, or, for a
 * name the table does not know (a declaration it could not read), its
 * spelling. */
size_t cu_variable_key(const cu_state *st, size_t i)
{
    const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
    if (symbol != NULL && symbol->kind == CLC_SYMBOL_OBJECT)
        return symbol->index;
    return st->symbols.symbol_count + (size_t)st->tokens[i].ident;
}

/* Whether the name at i is a type where it stands (a typedef, or in C++
 * a struct's or an enumeration's tag). */
int cu_is_declared_type(const cu_state *st, size_t i)
{
    const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
    return symbol != NULL && symbol->kind == CLC_SYMBOL_TYPEDEF;
}

/* Whether a struct holds pointers, directly or in a member struct or
 * array. */
int cu_type_has_pointers(const clc_type *type, unsigned depth)
{
    while (type != NULL && type->kind == CLC_TYPE_ARRAY)
        type = type->base;
    if (type == NULL || depth > 16)
        return 0;
    if (type->kind == CLC_TYPE_POINTER)
        return 1;
    if (type->kind != CLC_TYPE_STRUCT)
        return 0;
    for (size_t k = 0; k < type->member_count; ++k)
        if (cu_type_has_pointers(type->members[k].type, depth + 1))
            return 1;
    return 0;
}

void cu_match_brackets(cu_state *st)
{
    st->match = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *st->match);
    for (size_t i = 0; i < st->count; ++i)
        st->match[i] = i; /* not a bracket: itself */
    size_t at = 0;
    switch (clc_match_brackets(st->arena, st->tokens, st->count, st->match,
                               &at)) {
    case CLC_BRACKETS_BALANCED:
        return;
    case CLC_BRACKET_UNTERMINATED:
        cu_fail(st, at, "unterminated %s",
                st->tokens[at].text[0] == '"' ? "string literal"
                                              : "character constant");
    case CLC_BRACKET_UNBALANCED:
        cu_fail(st, at, "unbalanced '%s'",
                clc_punct_spelling((clc_punct)st->tokens[at].punct));
    case CLC_BRACKET_UNCLOSED:
        cu_fail(st, at, "'%s' is never closed",
                clc_punct_spelling((clc_punct)st->tokens[at].punct));
    }
}

int cu_is_open(const cu_state *st, size_t i)
{
    return i < st->count && clc_token_is_open(&st->tokens[i]);
}

/* ---- types ------------------------------------------------------------------------ */

/* CUDA vector and helper type names the lexer does not know (it knows
 * OpenCL's), with what OpenCL C calls them. */
static const char *const cu_extra_types[][2] = {
    {"longlong1", "long1"},       {"longlong2", "long2"},
    {"longlong3", "__kiln_long3"}, {"longlong4", "long4"},
    {"ulonglong1", "ulong1"},     {"ulonglong2", "ulong2"},
    {"ulonglong3", "__kiln_ulong3"}, {"ulonglong4", "ulong4"},
    {"char1", NULL},   {"uchar1", NULL}, {"short1", NULL}, {"ushort1", NULL},
    {"int1", NULL},    {"uint1", NULL},  {"long1", NULL},  {"ulong1", NULL},
    {"float1", NULL},  {"double1", NULL}, {"dim3", NULL},
    {"int8_t", NULL},  {"uint8_t", NULL}, {"int16_t", NULL},
    {"uint16_t", NULL}, {"int32_t", NULL}, {"uint32_t", NULL},
    {"int64_t", NULL}, {"uint64_t", NULL},
};

const char *cu_extra_type_spelling(const cu_state *st, size_t i)
{
    for (size_t k = 0; k < sizeof cu_extra_types / sizeof cu_extra_types[0];
         ++k)
        if (cu_extra_types[k][1] != NULL && cu_name_is(st, i, cu_extra_types[k][0]))
            return cu_extra_types[k][1];
    return NULL;
}

int cu_is_builtin_type(const cu_state *st, size_t i)
{
    if (!cu_ident(st, i))
        return 0;
    int32_t id = st->tokens[i].ident;
    switch (id) {
    case W_char: case W_short: case W_int: case W_long: case W_float:
    case W_double: case W_void: case W_signed: case W_unsigned: case W__Bool:
    case W_bool: case W_uchar: case W_ushort: case W_uint: case W_ulong:
    case W_size_t: case W_ptrdiff_t: case W_intptr_t: case W_uintptr_t:
    case W___signed__: case W___signed:
        return 1; /* not half: a plain name in CUDA C (cuda_fp16.h's) */
    default:
        break;
    }
    if (cu_name(st, i)->info.width != 0)
        return 1;
    for (size_t k = 0; k < sizeof cu_extra_types / sizeof cu_extra_types[0]; ++k)
        if (cu_name_is(st, i, cu_extra_types[k][0]))
            return 1;
    return 0;
}

int cu_is_type_name(const cu_state *st, size_t i)
{
    return cu_is_builtin_type(st, i) || cu_is_declared_type(st, i);
}

/* Qualifiers that may sit among a declaration's type words. */
int cu_is_qualifier(const cu_state *st, size_t i)
{
    if (!cu_ident(st, i))
        return 0;
    int32_t id = st->tokens[i].ident;
    return id == W_const || id == W_volatile || id == W_restrict ||
           id == W___restrict || id == W___restrict__ || id == W_static ||
           id == W_register || id == W_extern || id == W_inline ||
           id == W___inline || id == W___inline__ || id == W___const ||
           id == W___volatile__ || id == W___volatile ||
           id == st->w_shared_ || id == st->w_device_ ||
           id == st->w_constant_ || id == st->w_host_ ||
           id == st->w_forceinline_ || id == st->w_noinline_ ||
           id == st->w_constexpr || id == st->w_managed_ ||
           id == st->w_grid_constant_;
}

/* A group that attaches to a declaration: __attribute__((...)),
 * __align__(n), __launch_bounds__(...).  Returns the token after it, or i. */
size_t cu_skip_attribute(const cu_state *st, size_t i)
{
    if ((cu_is(st, i, W___attribute__) || cu_is(st, i, W___attribute) ||
         cu_is(st, i, st->w_align_) || cu_is(st, i, st->w_launch_bounds_)) &&
        cu_punct(st, i + 1, P_LPAREN))
        return st->match[i + 1] + 1;
    return i;
}

/* The declaration specifiers starting at i: returns the token after them
 * (i when there is no type among them). */
size_t cu_specifiers(const cu_state *st, size_t i, size_t end)
{
    size_t k = i;
    int typed = 0;
    while (k < end) {
        size_t after = cu_skip_attribute(st, k);
        if (after != k) {
            k = after;
            continue;
        }
        if (cu_is_qualifier(st, k)) {
            ++k;
            continue;
        }
        if (cu_is(st, k, W_struct) || cu_is(st, k, W_union) ||
            cu_is(st, k, W_enum)) {
            if (typed || !cu_ident(st, k + 1))
                return i;
            k += 2;
            typed = 1;
            continue;
        }
        if (cu_is_builtin_type(st, k)) {
            /* long long, unsigned int: several words make one type */
            ++k;
            typed = 1;
            continue;
        }
        if (!typed && cu_is_declared_type(st, k)) {
            ++k;
            typed = 1;
            continue;
        }
        break;
    }
    return typed ? k : i;
}

/* Size in bytes of a kernel parameter's type as CUDA lays it out, from its
 * words ("unsigned int", "float3"); 0 when the pass cannot tell. */
size_t cu_type_size(const char *type)
{
    static const struct {
        const char *name;
        size_t size;
    } scalars[] = {
        {"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"bool", 1},
        {"uchar", 1}, {"int8_t", 1}, {"uint8_t", 1},
        {"short", 2}, {"short int", 2}, {"unsigned short", 2},
        {"unsigned short int", 2}, {"ushort", 2}, {"int16_t", 2},
        {"uint16_t", 2},
        {"int", 4}, {"signed", 4}, {"signed int", 4}, {"unsigned", 4},
        {"unsigned int", 4}, {"uint", 4}, {"float", 4}, {"int32_t", 4},
        {"uint32_t", 4},
        {"long", 8}, {"long int", 8}, {"unsigned long", 8},
        {"unsigned long int", 8}, {"long long", 8}, {"long long int", 8},
        {"unsigned long long", 8}, {"unsigned long long int", 8},
        {"ulong", 8}, {"double", 8}, {"size_t", 8}, {"ptrdiff_t", 8},
        {"intptr_t", 8}, {"uintptr_t", 8}, {"int64_t", 8}, {"uint64_t", 8},
        {"dim3", 12},
    };
    for (size_t k = 0; k < sizeof scalars / sizeof scalars[0]; ++k)
        if (strcmp(type, scalars[k].name) == 0)
            return scalars[k].size;
    if (strncmp(type, "enum ", 5) == 0)
        return 4;
    static const struct {
        const char *prefix;
        size_t size;
    } vectors[] = {
        {"uchar", 1}, {"char", 1}, {"ushort", 2}, {"short", 2}, {"uint", 4},
        {"int", 4}, {"float", 4}, {"ulonglong", 8}, {"longlong", 8},
        {"ulong", 8}, {"long", 8}, {"double", 8},
    };
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; ++k) {
        size_t n = strlen(vectors[k].prefix);
        if (strncmp(type, vectors[k].prefix, n) == 0 && type[n] >= '1' &&
            type[n] <= '4' && type[n + 1] == '\0')
            return vectors[k].size * (size_t)(type[n] - '0');
    }
    return 0;
}

/* Is token i at the start of a statement (where a declaration may be)? */
int cu_statement_start(const cu_state *st, size_t i)
{
    if (i == 0)
        return 1;
    if (cu_punct(st, i - 1, P_LBRACE) || cu_punct(st, i - 1, P_RBRACE) ||
        cu_punct(st, i - 1, P_SEMI) || st->tokens[i - 1].kind == CLC_TOK_PRAGMA)
        return 1;
    /* after a label: case 1: float *p = ... */
    if (cu_punct(st, i - 1, P_COLON) && !(i >= 2 && cu_punct(st, i - 2, P_COLON)))
        return 1;
    return cu_punct(st, i - 1, P_LPAREN) && i >= 2 && cu_is(st, i - 2, W_for);
}
