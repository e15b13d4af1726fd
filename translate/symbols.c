/*
 * Declarations and scopes (see symbols.h).
 *
 * The scan walks the tokens once.  Where a declaration may start (after
 * '{', '}', ';', a for statement's '(' and at the start) it tries the
 * declaration parser; anywhere else an identifier is looked up in the
 * scopes open at that point.  A block's scope closes at its '}', a for
 * statement's at the end of its body, a function's parameters at the end
 * of its body.
 */
#include "symbols.h"

#include <stdlib.h>
#include <string.h>

/* ---- tokens -------------------------------------------------------------- */

static int sy_punct(const clc_symbols *s, size_t i, clc_punct punct)
{
    return i < s->count && s->tokens[i].kind == CLC_TOK_PUNCT &&
           s->tokens[i].punct == punct;
}

static int sy_ident(const clc_symbols *s, size_t i)
{
    return i < s->count && s->tokens[i].kind == CLC_TOK_IDENT;
}

static int sy_is(const clc_symbols *s, size_t i, int32_t word)
{
    return sy_ident(s, i) && s->tokens[i].ident == word;
}

static int sy_open(const clc_symbols *s, size_t i)
{
    return sy_punct(s, i, P_LPAREN) || sy_punct(s, i, P_LBRACKET) ||
           sy_punct(s, i, P_LBRACE);
}

/* The partner of bracket i (balanced: the passes checked). */
static size_t sy_match(const clc_symbols *s, size_t i)
{
    size_t m = s->match[i];
    return m < s->count ? m : s->count;
}

static int sy_opencl(const clc_symbols *s)
{
    return s->language == CLC_LANGUAGE_OPENCL_C;
}

/* ---- scopes ---------------------------------------------------------------- */

void clc_symbols_init(clc_symbols *symbols, clc_arena *arena,
                      clc_interner *interner, clc_language language,
                      const clc_token *tokens, size_t count,
                      const size_t *match)
{
    clc_symbols *s = symbols;
    memset(s, 0, sizeof *s);
    s->arena = arena;
    s->interner = interner;
    s->language = language;
    s->tokens = tokens;
    s->count = count;
    s->match = match;
#define SY_INTERN(field, text) s->field = clc_intern(interner, text, sizeof text - 1)
    SY_INTERN(w_device_, "__device__");
    SY_INTERN(w_global_, "__global__");
    SY_INTERN(w_host_, "__host__");
    SY_INTERN(w_shared_, "__shared__");
    SY_INTERN(w_constant_, "__constant__");
    SY_INTERN(w_forceinline_, "__forceinline__");
    SY_INTERN(w_noinline_, "__noinline__");
    SY_INTERN(w_managed_, "__managed__");
    SY_INTERN(w_align_, "__align__");
    SY_INTERN(w_launch_bounds_, "__launch_bounds__");
    SY_INTERN(w_constexpr, "constexpr");
#undef SY_INTERN
    static const struct {
        const char *name;
        clc_scalar scalar;
        unsigned width;
    } cuda_types[] = {
        {"int8_t", CLC_S_CHAR, 1},      {"uint8_t", CLC_S_UCHAR, 1},
        {"int16_t", CLC_S_SHORT, 1},    {"uint16_t", CLC_S_USHORT, 1},
        {"int32_t", CLC_S_INT, 1},      {"uint32_t", CLC_S_UINT, 1},
        {"int64_t", CLC_S_LONG, 1},     {"uint64_t", CLC_S_ULONG, 1},
        {"longlong2", CLC_S_LONG, 2},   {"longlong3", CLC_S_LONG, 3},
        {"longlong4", CLC_S_LONG, 4},   {"ulonglong2", CLC_S_ULONG, 2},
        {"ulonglong3", CLC_S_ULONG, 3}, {"ulonglong4", CLC_S_ULONG, 4},
        {"dim3", CLC_S_UINT, 3},
    };
    int32_t cuda_ids[sizeof cuda_types / sizeof cuda_types[0]];
    for (size_t k = 0; k < sizeof cuda_types / sizeof cuda_types[0]; ++k)
        cuda_ids[k] = language == CLC_LANGUAGE_CUDA_C
                          ? clc_intern(interner, cuda_types[k].name,
                                       strlen(cuda_types[k].name))
                          : -1;
    s->ident_capacity = interner->count + 1;
    s->cuda_scalar = clc_arena_alloc(arena, s->ident_capacity);
    s->cuda_width = clc_arena_alloc(arena, s->ident_capacity);
    for (size_t k = 0; k < sizeof cuda_types / sizeof cuda_types[0]; ++k)
        if (cuda_ids[k] >= 0) {
            s->cuda_scalar[cuda_ids[k]] = (uint8_t)(cuda_types[k].scalar + 1);
            s->cuda_width[cuda_ids[k]] = (uint8_t)cuda_types[k].width;
        }
    s->visible = clc_arena_alloc(arena, s->ident_capacity * sizeof *s->visible);
    s->tags = clc_arena_alloc(arena, s->ident_capacity * sizeof *s->tags);
    s->member_names = clc_arena_alloc(arena, s->ident_capacity);
    s->use = clc_arena_alloc(arena, (count + 1) * sizeof *s->use);
    clc_scope_push(s); /* file scope */
}

void clc_scope_push(clc_symbols *s)
{
    s->scope_begin = clc_arena_grow(s->arena, s->scope_begin, s->scope_count,
                                    &s->scope_capacity,
                                    sizeof *s->scope_begin, 64);
    s->scope_begin[s->scope_count++] = s->declared_count;
}

void clc_scope_pop(clc_symbols *s)
{
    if (s->scope_count <= 1)
        return; /* the file scope stays */
    size_t begin = s->scope_begin[--s->scope_count];
    while (s->declared_count > begin) {
        const clc_symbol *gone = s->declared[--s->declared_count];
        s->visible[gone->name] = gone->hidden;
    }
}

clc_symbol *clc_symbol_declare(clc_symbols *s, int32_t name,
                               clc_symbol_kind kind, const clc_type *type,
                               clc_space space, size_t token)
{
    if (name < 0 || (size_t)name >= s->ident_capacity)
        return NULL;
    clc_symbol *symbol = clc_arena_alloc(s->arena, sizeof *symbol);
    symbol->name = name;
    symbol->kind = kind;
    symbol->type = type;
    symbol->space = space;
    symbol->token = token;
    symbol->depth = (unsigned)(s->scope_count - 1);
    symbol->index = s->symbol_count++;
    symbol->hidden = s->visible[name];
    s->visible[name] = symbol;
    s->declared = clc_arena_grow(s->arena, s->declared, s->declared_count,
                                 &s->declared_capacity, sizeof *s->declared,
                                 64);
    s->declared[s->declared_count++] = symbol;
    if (token < s->count)
        s->use[token] = symbol;
    return symbol;
}

const clc_symbol *clc_symbol_lookup(const clc_symbols *s, int32_t name)
{
    if (name < 0 || (size_t)name >= s->ident_capacity)
        return NULL;
    return s->visible[name];
}

const clc_type *clc_symbol_tag(const clc_symbols *s, int32_t tag)
{
    if (tag < 0 || (size_t)tag >= s->ident_capacity)
        return NULL;
    return s->tags[tag];
}

enum {
    SY_MEMBER = 1,        /* a member of some struct or union             */
    SY_MEMBER_VECTOR = 2  /* ... of a vector type, or an array of or a
                             pointer to them                              */
};

int clc_symbols_member_name(const clc_symbols *s, int32_t name)
{
    return name >= 0 && (size_t)name < s->ident_capacity &&
           s->member_names[name] != 0;
}

int clc_symbols_vector_member_name(const clc_symbols *s, int32_t name)
{
    return name >= 0 && (size_t)name < s->ident_capacity &&
           (s->member_names[name] & SY_MEMBER_VECTOR) != 0;
}

const clc_symbol *clc_symbol_at(const clc_symbols *s, size_t token)
{
    return token < s->count ? s->use[token] : NULL;
}

/* ---- declaration specifiers ---------------------------------------------------- */

/* What the type words of one declaration said. */
typedef struct sy_words {
    int is_signed, is_unsigned, shorts, longs;
    clc_scalar base;         /* char, int, float... or a named scalar     */
    int named;               /* uchar, size_t...: complete by themselves  */
} sy_words;

static const clc_type *sy_words_type(const sy_words *w)
{
    clc_scalar scalar = w->base;
    if (!w->named) {
        if (scalar == CLC_S_CHAR)
            scalar = w->is_unsigned ? CLC_S_UCHAR : CLC_S_CHAR;
        else if (scalar == CLC_S_DOUBLE || scalar == CLC_S_FLOAT ||
                 scalar == CLC_S_HALF || scalar == CLC_S_VOID ||
                 scalar == CLC_S_BOOL)
            ; /* long double is double here */
        else if (w->shorts)
            scalar = w->is_unsigned ? CLC_S_USHORT : CLC_S_SHORT;
        else if (w->longs)
            scalar = w->is_unsigned ? CLC_S_ULONG : CLC_S_LONG;
        else if (scalar == CLC_S_INT || w->is_signed || w->is_unsigned)
            scalar = w->is_unsigned ? CLC_S_UINT : CLC_S_INT;
    }
    return clc_type_scalar(scalar);
}

/* A word that names a scalar type: fills *w and returns 1. */
static int sy_type_word(int32_t word, sy_words *w)
{
    switch (word) {
    case W_signed: case W___signed: case W___signed__:
        w->is_signed = 1;
        return 1;
    case W_unsigned:
        w->is_unsigned = 1;
        return 1;
    case W_short:
        w->shorts++;
        return 1;
    case W_long:
        w->longs++;
        return 1;
    case W_char: w->base = CLC_S_CHAR; return 1;
    case W_int: if (w->base == CLC_S_NONE) w->base = CLC_S_INT; return 1;
    case W_float: w->base = CLC_S_FLOAT; return 1;
    case W_double: w->base = CLC_S_DOUBLE; return 1;
    case W_void: w->base = CLC_S_VOID; return 1;
    case W_bool: case W__Bool: w->base = CLC_S_BOOL; return 1;
    case W_half: w->base = CLC_S_HALF; return 1;
    default: break;
    }
    clc_scalar named = CLC_S_NONE;
    switch (word) {
    case W_uchar: named = CLC_S_UCHAR; break;
    case W_ushort: named = CLC_S_USHORT; break;
    case W_uint: named = CLC_S_UINT; break;
    case W_ulong: case W_size_t: case W_uintptr_t: named = CLC_S_ULONG; break;
    case W_ptrdiff_t: case W_intptr_t: named = CLC_S_LONG; break;
    default: return 0;
    }
    w->base = named;
    w->named = 1;
    return 1;
}

/* An address space word of the program's language, or -1. */
static int sy_space_word(const clc_symbols *s, size_t i)
{
    if (!sy_ident(s, i))
        return -1;
    int32_t word = s->tokens[i].ident;
    if (sy_opencl(s)) {
        switch (word) {
        case W___global: case W_global: return CLC_SPACE_GLOBAL;
        case W___local: case W_local: return CLC_SPACE_LOCAL;
        case W___constant: case W_constant: return CLC_SPACE_CONSTANT;
        case W___private: case W_private: return CLC_SPACE_PRIVATE;
        case W___generic: return CLC_SPACE_GENERIC;
        default: return -1;
        }
    }
    if (word == s->w_shared_)
        return CLC_SPACE_LOCAL;
    if (word == s->w_constant_)
        return CLC_SPACE_CONSTANT;
    if (word == s->w_device_ || word == s->w_managed_)
        return CLC_SPACE_GLOBAL;
    return -1;
}

/* Words that qualify without changing the type. */
static int sy_qualifier(const clc_symbols *s, size_t i)
{
    if (!sy_ident(s, i))
        return 0;
    switch (s->tokens[i].ident) {
    case W_const: case W___const: case W_volatile: case W___volatile:
    case W___volatile__: case W_restrict: case W___restrict:
    case W___restrict__:
        return 1;
    case W___read_only: case W_read_only: case W___write_only:
    case W_write_only: case W___read_write: case W_read_write:
        return sy_opencl(s);
    default:
        return 0;
    }
}

/* __attribute__((...)), __align__(n), __launch_bounds__(...): the index
 * after it, i when there is none. */
static size_t sy_attribute(const clc_symbols *s, size_t i)
{
    if ((sy_is(s, i, W___attribute__) || sy_is(s, i, W___attribute) ||
         (!sy_opencl(s) && (sy_is(s, i, s->w_align_) ||
                            sy_is(s, i, s->w_launch_bounds_)))) &&
        sy_punct(s, i + 1, P_LPAREN))
        return sy_match(s, i + 1) + 1;
    return i;
}

static void sy_add_member(clc_symbols *s, clc_type *record, int32_t name,
                          const clc_type *type, size_t *capacity)
{
    clc_member *members = (clc_member *)record->members;
    members = clc_arena_grow(s->arena, members, record->member_count,
                             capacity, sizeof *members, 64);
    members[record->member_count].name = name;
    members[record->member_count].type = type;
    record->members = members;
    record->member_count++;
    while (clc_type_is_pointer(type))
        type = type->base;
    if (name >= 0 && (size_t)name < s->ident_capacity)
        s->member_names[name] |= (uint8_t)(
            SY_MEMBER | (clc_type_is_vector(type) ? SY_MEMBER_VECTOR : 0));
}

static size_t sy_declarator(clc_symbols *s, size_t at, size_t end,
                            const clc_type *base, clc_space space,
                            clc_declarator *d);
static void sy_param_list(clc_symbols *s, size_t open, clc_type *function);

/* struct/union [tag] [{ members }] at the keyword `at`: the index after. */
static size_t sy_record(clc_symbols *s, size_t at, size_t end, int declare,
                        const clc_type **type)
{
    int is_union = sy_is(s, at, W_union);
    size_t k = at + 1;
    while (sy_attribute(s, k) != k)
        k = sy_attribute(s, k);
    int32_t tag = -1;
    if (sy_ident(s, k)) {
        tag = s->tokens[k].ident;
        if (declare && !sy_opencl(s) && s->use[k] == NULL)
            s->use[k] = clc_symbol_lookup(s, tag); /* C++: the type's name */
        ++k;
    }
    while (sy_attribute(s, k) != k)
        k = sy_attribute(s, k);
    clc_type *record = NULL;
    if (tag >= 0 && (size_t)tag < s->ident_capacity)
        record = s->tags[tag];
    int body = sy_punct(s, k, P_LBRACE) && k < end;
    if (record == NULL || (body && record->defined && declare)) {
        if (!declare) {
            *type = record;
            return body ? sy_match(s, k) + 1 : k;
        }
        record = clc_type_struct(s->arena, tag, is_union);
        if (tag >= 0 && (size_t)tag < s->ident_capacity) {
            s->tags[tag] = record;
            if (!sy_opencl(s)) /* C++: the tag names the type */
                clc_symbol_declare(s, tag, CLC_SYMBOL_TYPEDEF, record,
                                   CLC_SPACE_DEFAULT, k - 1);
        }
    }
    *type = record;
    if (!body)
        return k;
    size_t close = sy_match(s, k);
    if (!declare)
        return close + 1;
    record->defined = 1;
    size_t capacity = 0;
    for (size_t i = k + 1; i < close;) {
        clc_specifiers spec;
        size_t j = clc_parse_specifiers(s, i, close, &spec);
        if (j == i || spec.type == NULL) {
            /* not a member declaration: skip to the next ';' */
            while (i < close && !sy_punct(s, i, P_SEMI))
                i = sy_open(s, i) ? sy_match(s, i) + 1 : i + 1;
            ++i;
            continue;
        }
        if (sy_punct(s, j, P_SEMI)) { /* an anonymous struct or union */
            sy_add_member(s, record, -1, spec.type, &capacity);
            i = j + 1;
            continue;
        }
        for (;;) {
            clc_declarator d;
            size_t after = sy_declarator(s, j, close, spec.type, spec.space,
                                         &d);
            if (after == j)
                break;
            if (d.name != SIZE_MAX)
                sy_add_member(s, record, s->tokens[d.name].ident, d.type,
                              &capacity);
            j = after;
            if (sy_punct(s, j, P_COLON)) /* a bit-field's width */
                while (j < close && !sy_punct(s, j, P_COMMA) &&
                       !sy_punct(s, j, P_SEMI))
                    j = sy_open(s, j) ? sy_match(s, j) + 1 : j + 1;
            if (!sy_punct(s, j, P_COMMA))
                break;
            ++j;
        }
        while (j < close && !sy_punct(s, j, P_SEMI))
            j = sy_open(s, j) ? sy_match(s, j) + 1 : j + 1;
        i = j + 1;
    }
    return close + 1;
}

/* enum [tag] [{ A = 1, B }]: the enumerators are ints of the scope. */
static size_t sy_enum(clc_symbols *s, size_t at, size_t end, int declare)
{
    size_t k = at + 1;
    if (sy_ident(s, k)) {
        /* C++: an enumeration's tag names its type */
        if (declare && !sy_opencl(s) && sy_punct(s, k + 1, P_LBRACE))
            clc_symbol_declare(s, s->tokens[k].ident, CLC_SYMBOL_TYPEDEF,
                               clc_type_scalar(CLC_S_INT), CLC_SPACE_DEFAULT,
                               k);
        else if (declare && !sy_opencl(s) && s->use[k] == NULL)
            s->use[k] = clc_symbol_lookup(s, s->tokens[k].ident);
        ++k;
    }
    if (!sy_punct(s, k, P_LBRACE) || k >= end)
        return k;
    size_t close = sy_match(s, k);
    if (!declare)
        return close + 1;
    for (size_t i = k + 1; i < close; ++i) {
        if (sy_ident(s, i) &&
            (sy_punct(s, i - 1, P_LBRACE) || sy_punct(s, i - 1, P_COMMA)) &&
            i - 1 >= k)
            clc_symbol_declare(s, s->tokens[i].ident, CLC_SYMBOL_ENUMERATOR,
                               clc_type_scalar(CLC_S_INT), CLC_SPACE_DEFAULT,
                               i);
        else if (sy_open(s, i))
            i = sy_match(s, i);
        else if (sy_ident(s, i) && s->use[i] == NULL)
            s->use[i] = clc_symbol_lookup(s, s->tokens[i].ident);
    }
    return close + 1;
}

/* The typedef a name at i stands for: the scopes' answer while the scan
 * runs, the recorded one after it. */
static const clc_symbol *sy_typedef_at(const clc_symbols *s, size_t i)
{
    const clc_symbol *symbol =
        s->scanning ? clc_symbol_lookup(s, s->tokens[i].ident) : s->use[i];
    return symbol != NULL && symbol->kind == CLC_SYMBOL_TYPEDEF ? symbol
                                                                : NULL;
}

/* Nesting the parser follows (struct in struct, declarator in
 * parentheses): deeper, hostile input is left undeclared instead of
 * exhausting the stack. */
#define SY_MAX_NESTING 64

static size_t sy_specifiers_at(clc_symbols *s, size_t at, size_t end,
                               int declare, clc_specifiers *spec);

static size_t sy_specifiers(clc_symbols *s, size_t at, size_t end,
                            int declare, clc_specifiers *spec)
{
    memset(spec, 0, sizeof *spec);
    if (s->nesting >= SY_MAX_NESTING)
        return at;
    s->nesting++;
    size_t after = sy_specifiers_at(s, at, end, declare, spec);
    s->nesting--;
    return after;
}

static size_t sy_specifiers_at(clc_symbols *s, size_t at, size_t end,
                               int declare, clc_specifiers *spec)
{
    sy_words words;
    memset(&words, 0, sizeof words);
    int any_word = 0;
    size_t k = at;
    while (k < end) {
        size_t after = sy_attribute(s, k);
        if (after != k) {
            k = after;
            continue;
        }
        if (!sy_ident(s, k))
            break;
        int32_t word = s->tokens[k].ident;
        int space = sy_space_word(s, k);
        if (space >= 0) {
            spec->space = (clc_space)space;
        } else if (sy_qualifier(s, k) ||
                   (!sy_opencl(s) && word == s->w_constexpr)) {
            if (word == W_const || word == W___const || word == s->w_constexpr)
                spec->is_const = 1;
        } else if (word == W_typedef) {
            spec->is_typedef = 1;
        } else if (word == W_extern) {
            spec->is_extern = 1;
            if (k + 1 < end && s->tokens[k + 1].kind == CLC_TOK_STRING)
                ++k; /* extern "C" */
        } else if (word == W_static) {
            spec->is_static = 1;
        } else if (word == W_inline || word == W___inline ||
                   word == W___inline__ || word == W_register ||
                   word == W_auto || word == W__Noreturn ||
                   word == W___extension__ ||
                   (!sy_opencl(s) &&
                    (word == s->w_host_ || word == s->w_forceinline_ ||
                     word == s->w_noinline_))) {
            /* nothing the types need */
        } else if ((sy_opencl(s) && (word == W___kernel || word == W_kernel)) ||
                   (!sy_opencl(s) && word == s->w_global_)) {
            spec->is_kernel = 1;
        } else if (spec->type == NULL && !any_word &&
                   (word == W_struct || word == W_union)) {
            k = sy_record(s, k, end, declare, &spec->type);
            if (spec->type == NULL) /* struct X never defined, after scan */
                spec->type = clc_type_struct(s->arena, -1, word == W_union);
            continue;
        } else if (spec->type == NULL && !any_word && word == W_enum) {
            k = sy_enum(s, k, end, declare);
            spec->type = clc_type_scalar(CLC_S_INT);
            continue;
        } else if (spec->type == NULL && word == W_event_t) {
            spec->type = clc_type_struct(s->arena, W_event_t, 0);
        } else if (!(word == W_half && !sy_opencl(s)) &&
                   sy_type_word(word, &words)) {
            /* CUDA C's half is a name (cuda_fp16.h's typedef) */
            any_word = 1;
        } else if (spec->type == NULL && !any_word &&
                   (size_t)word < s->ident_capacity && s->cuda_scalar[word]) {
            spec->type = clc_type_vector(
                s->arena, (clc_scalar)(s->cuda_scalar[word] - 1),
                s->cuda_width[word]);
        } else if (spec->type == NULL && !any_word &&
                   clc_ident_get(s->interner, word)->info.width != 0) {
            const clc_ident *ident = clc_ident_get(s->interner, word);
            spec->type = clc_type_vector(s->arena, ident->info.scalar,
                                         ident->info.width);
        } else if (spec->type == NULL && !any_word &&
                   sy_typedef_at(s, k) != NULL) {
            const clc_symbol *symbol = sy_typedef_at(s, k);
            spec->type = symbol->type;
            if (s->scanning)
                s->use[k] = symbol;
        } else {
            break;
        }
        ++k;
    }
    if (any_word && spec->type == NULL)
        spec->type = sy_words_type(&words);
    return k;
}

size_t clc_parse_specifiers(clc_symbols *s, size_t at, size_t end,
                            clc_specifiers *spec)
{
    return sy_specifiers(s, at, end, 1, spec);
}

/* ---- declarators ------------------------------------------------------------------ */

/* The number a '[' N ']' holds, 0 when it is not one plain number. */
static size_t sy_array_length(const clc_symbols *s, size_t open)
{
    size_t close = sy_match(s, open);
    if (close != open + 2 || s->tokens[open + 1].kind != CLC_TOK_NUMBER)
        return 0;
    char digits[32];
    size_t n = s->tokens[open + 1].length;
    if (n >= sizeof digits)
        return 0;
    memcpy(digits, s->tokens[open + 1].text, n);
    digits[n] = '\0';
    return (size_t)strtoull(digits, NULL, 0);
}

/* The parameter types of the list in parentheses at `open`. */
static void sy_param_types(clc_symbols *s, size_t open, clc_type *function)
{
    if (s->nesting >= SY_MAX_NESTING)
        return; /* unknown parameters */
    s->nesting++;
    sy_param_list(s, open, function);
    s->nesting--;
}

static void sy_param_list(clc_symbols *s, size_t open, clc_type *function)
{
    size_t close = sy_match(s, open);
    size_t count = 0;
    for (size_t i = open + 1; i < close; i = sy_open(s, i) ? sy_match(s, i) + 1 : i + 1)
        if (sy_punct(s, i, P_COMMA))
            ++count;
    count += close > open + 1;
    const clc_type **params =
        clc_arena_alloc(s->arena, (count ? count : 1) * sizeof *params);
    size_t p = 0;
    for (size_t i = open + 1; i < close && p < count; ++p) {
        clc_specifiers spec;
        size_t j = sy_specifiers(s, i, close, 0, &spec);
        if (j != i && spec.type != NULL) {
            clc_declarator d;
            if (sy_declarator(s, j, close, spec.type, spec.space, &d) != j)
                params[p] = d.type;
            else
                params[p] = spec.type;
            /* an array parameter is a pointer */
            if (params[p]->kind == CLC_TYPE_ARRAY)
                params[p] = clc_type_pointer(s->arena, params[p]->base,
                                             spec.space);
        }
        while (i < close && !sy_punct(s, i, P_COMMA))
            i = sy_open(s, i) ? sy_match(s, i) + 1 : i + 1;
        ++i;
    }
    if (count == 1 && params[0] != NULL && params[0]->kind == CLC_TYPE_SCALAR &&
        params[0]->scalar == CLC_S_VOID)
        count = 0; /* f(void) */
    function->params = params;
    function->param_count = count;
}

static size_t sy_declarator(clc_symbols *s, size_t at, size_t end,
                            const clc_type *base, clc_space space,
                            clc_declarator *d)
{
    d->name = SIZE_MAX;
    d->params_open = SIZE_MAX;
    d->space = space;
    size_t k = at;
    const clc_type *type = base;
    clc_space pointee_space = space;
    int pointers = 0;
    while (k < end && (sy_punct(s, k, P_STAR) || (pointers && sy_qualifier(s, k)) ||
                       (pointers && sy_space_word(s, k) >= 0))) {
        if (sy_punct(s, k, P_STAR)) {
            type = clc_type_pointer(s->arena, type, pointee_space);
            pointee_space = CLC_SPACE_DEFAULT;
            ++pointers;
            d->space = CLC_SPACE_DEFAULT;
        } else if (sy_space_word(s, k) >= 0) {
            pointee_space = (clc_space)sy_space_word(s, k);
            d->space = pointee_space;
        }
        ++k;
    }
    while (sy_attribute(s, k) != k)
        k = sy_attribute(s, k);
    size_t inner = SIZE_MAX;
    if (sy_ident(s, k) && k < end) {
        d->name = k++;
    } else if (sy_punct(s, k, P_LPAREN) && k < end &&
               (sy_punct(s, k + 1, P_STAR) || sy_punct(s, k + 1, P_LPAREN))) {
        inner = k;
        k = sy_match(s, k) + 1;
    }
    /* suffixes, applied right to left */
    size_t suffixes[16];
    size_t suffix_count = 0;
    while (k < end && (sy_punct(s, k, P_LBRACKET) || sy_punct(s, k, P_LPAREN))) {
        if (suffix_count < sizeof suffixes / sizeof suffixes[0])
            suffixes[suffix_count++] = k;
        if (sy_punct(s, k, P_LPAREN) && d->params_open == SIZE_MAX &&
            inner == SIZE_MAX)
            d->params_open = k;
        k = sy_match(s, k) + 1;
    }
    for (size_t n = suffix_count; n-- > 0;) {
        size_t open = suffixes[n];
        if (sy_punct(s, open, P_LBRACKET)) {
            type = clc_type_array(s->arena, type, sy_array_length(s, open));
        } else {
            clc_type *function =
                (clc_type *)clc_type_function(s->arena, type);
            sy_param_types(s, open, function);
            type = function;
        }
    }
    if (inner != SIZE_MAX) {
        clc_declarator nested;
        size_t close = sy_match(s, inner);
        if (s->nesting >= SY_MAX_NESTING)
            return at;
        s->nesting++;
        sy_declarator(s, inner + 1, close, type, CLC_SPACE_DEFAULT, &nested);
        s->nesting--;
        d->name = nested.name;
        type = nested.type;
        if (nested.params_open != SIZE_MAX)
            d->params_open = nested.params_open;
    }
    if (d->name == SIZE_MAX && k == at)
        return at;
    d->type = type;
    return k;
}

size_t clc_parse_declarator(clc_symbols *s, size_t at, size_t end,
                            const clc_specifiers *spec, clc_declarator *d)
{
    return sy_declarator(s, at, end, spec->type, spec->space, d);
}

size_t clc_type_name_at(const clc_symbols *symbols, size_t at, size_t end,
                        const clc_type **type)
{
    /* Reading only: sy_specifiers declares nothing when `declare` is 0,
     * it may only allocate types in the arena. */
    clc_symbols *s = (clc_symbols *)symbols;
    clc_specifiers spec;
    size_t k = sy_specifiers(s, at, end, 0, &spec);
    if (k == at || spec.type == NULL)
        return at;
    clc_declarator d;
    size_t after = sy_declarator(s, k, end, spec.type, spec.space, &d);
    if (after != k) {
        if (d.name != SIZE_MAX)
            return at; /* a declaration, not a type name */
        *type = d.type;
        return after;
    }
    *type = spec.type;
    return k;
}

/* ---- the scan ------------------------------------------------------------------------ */

typedef struct sy_scan {
    size_t *closes;          /* per open scope of the walk: its last token */
    size_t close_count, close_capacity;
} sy_scan;

static void sy_scope_until(clc_symbols *s, sy_scan *scan, size_t last)
{
    clc_scope_push(s);
    scan->closes = clc_arena_grow(s->arena, scan->closes, scan->close_count,
                                  &scan->close_capacity, sizeof *scan->closes,
                                  64);
    scan->closes[scan->close_count++] = last;
}

/* Closes the scopes that end at token i. */
static void sy_scope_close(clc_symbols *s, sy_scan *scan, size_t i)
{
    while (scan->close_count > 0 && scan->closes[scan->close_count - 1] == i) {
        --scan->close_count;
        clc_scope_pop(s);
    }
}

/* Resolves the names in [begin, end) (an initializer, an array size). */
static void sy_resolve(clc_symbols *s, size_t begin, size_t end)
{
    for (size_t i = begin; i < end && i < s->count; ++i)
        if (sy_ident(s, i) && s->use[i] == NULL &&
            !(i > 0 && (sy_punct(s, i - 1, P_DOT) || sy_punct(s, i - 1, P_ARROW))))
            s->use[i] = clc_symbol_lookup(s, s->tokens[i].ident);
}

/* Declares the parameters of the list at `open`. */
static void sy_declare_params(clc_symbols *s, size_t open)
{
    size_t close = sy_match(s, open);
    for (size_t i = open + 1; i < close;) {
        clc_specifiers spec;
        size_t j = clc_parse_specifiers(s, i, close, &spec);
        if (j != i && spec.type != NULL) {
            clc_declarator d;
            size_t after = clc_parse_declarator(s, j, close, &spec, &d);
            sy_resolve(s, j, after);
            if (after != j && d.name != SIZE_MAX) {
                const clc_type *type = d.type;
                if (type->kind == CLC_TYPE_ARRAY) /* an array parameter */
                    type = clc_type_pointer(s->arena, type->base, spec.space);
                clc_symbol *param = clc_symbol_declare(
                    s, s->tokens[d.name].ident, CLC_SYMBOL_OBJECT, type,
                    d.space, d.name);
                if (param != NULL)
                    param->is_parameter = 1;
            }
        }
        while (i < close && !sy_punct(s, i, P_COMMA))
            i = sy_open(s, i) ? sy_match(s, i) + 1 : i + 1;
        ++i;
    }
}

/* The end of an initializer at i: the ',' or ';' at its depth. */
static size_t sy_initializer_end(const clc_symbols *s, size_t i)
{
    while (i < s->count && !sy_punct(s, i, P_COMMA) && !sy_punct(s, i, P_SEMI) &&
           !sy_punct(s, i, P_RPAREN) && !sy_punct(s, i, P_RBRACE))
        i = sy_open(s, i) ? sy_match(s, i) + 1 : i + 1;
    return i;
}

/* A declaration at i: declares it and returns the index after it (after
 * its ';', or at a function body's '{' with the parameters' scope open),
 * i when none starts there. */
static size_t sy_declaration(clc_symbols *s, sy_scan *scan, size_t i,
                             int *body)
{
    clc_specifiers spec;
    size_t k = clc_parse_specifiers(s, i, s->count, &spec);
    if (k == i || spec.type == NULL)
        return i;
    if (sy_punct(s, k, P_SEMI))
        return k + 1;
    for (;;) {
        clc_declarator d;
        size_t j = clc_parse_declarator(s, k, s->count, &spec, &d);
        if (j == k || d.name == SIZE_MAX)
            return k;
        clc_symbol_kind kind = spec.is_typedef ? CLC_SYMBOL_TYPEDEF
                               : d.type->kind == CLC_TYPE_FUNCTION
                                   ? CLC_SYMBOL_FUNCTION
                                   : CLC_SYMBOL_OBJECT;
        /* the names in array sizes, before the name is declared */
        for (size_t a = k; a < j; ++a)
            if (sy_punct(s, a, P_LBRACKET)) {
                sy_resolve(s, a, sy_match(s, a));
                a = sy_match(s, a);
            }
        clc_symbol_declare(s, s->tokens[d.name].ident, kind, d.type, d.space,
                           d.name);
        if (kind == CLC_SYMBOL_FUNCTION && d.params_open != SIZE_MAX) {
            while (sy_attribute(s, j) != j)
                j = sy_attribute(s, j);
            while (sy_qualifier(s, j)) /* a C++ method's const */
                ++j;
            if (sy_punct(s, j, P_LBRACE) && s->scope_count == 1) {
                sy_scope_until(s, scan, sy_match(s, j));
                sy_declare_params(s, d.params_open);
                *body = 1;
                return j + 1;
            }
            clc_scope_push(s); /* a prototype's names end with it */
            sy_declare_params(s, d.params_open);
            clc_scope_pop(s);
        }
        if (sy_punct(s, j, P_ASSIGN)) {
            size_t init_end = sy_initializer_end(s, j + 1);
            sy_resolve(s, j + 1, init_end);
            j = init_end;
        }
        if (sy_punct(s, j, P_COMMA)) {
            k = j + 1;
            continue;
        }
        return sy_punct(s, j, P_SEMI) ? j + 1 : j;
    }
}

/* The last token of the for statement whose '(' is at open. */
static size_t sy_for_end(const clc_symbols *s, size_t open)
{
    size_t i = sy_match(s, open) + 1;
    if (sy_punct(s, i, P_LBRACE))
        return sy_match(s, i);
    while (i < s->count && !sy_punct(s, i, P_SEMI))
        i = sy_open(s, i) ? sy_match(s, i) + 1 : i + 1;
    return i;
}

void clc_symbols_scan(clc_symbols *s)
{
    sy_scan scan;
    memset(&scan, 0, sizeof scan);
    s->scanning = 1;
    int statement_start = 1;
    for (size_t i = 0; i < s->count;) {
        if (statement_start) {
            int body = 0;
            size_t next = sy_declaration(s, &scan, i, &body);
            if (next != i) {
                statement_start = body || sy_punct(s, next - 1, P_SEMI);
                for (size_t j = i; j < next; ++j)
                    if (sy_punct(s, j, P_SEMI))
                        sy_scope_close(s, &scan, j);
                i = next;
                continue;
            }
        }
        statement_start = 0;
        if (sy_punct(s, i, P_LBRACE)) {
            int linkage = i >= 2 && s->tokens[i - 1].kind == CLC_TOK_STRING &&
                          sy_is(s, i - 2, W_extern); /* extern "C" { */
            if (!linkage)
                sy_scope_until(s, &scan, sy_match(s, i));
            statement_start = 1;
        } else if (sy_punct(s, i, P_RBRACE) || sy_punct(s, i, P_SEMI)) {
            sy_scope_close(s, &scan, i);
            statement_start = 1;
        } else if (sy_is(s, i, W_for) && sy_punct(s, i + 1, P_LPAREN)) {
            sy_scope_until(s, &scan, sy_for_end(s, i + 1));
            i += 2;
            statement_start = 1;
            continue;
        } else if (sy_ident(s, i)) {
            sy_resolve(s, i, i + 1);
        }
        ++i;
    }
    while (s->scope_count > 1)
        clc_scope_pop(s);
    s->scanning = 0;
}
