/*
 * Declarations and scopes (private to Kiln: the translation passes and
 * their tests).
 *
 * One pass over a program's preprocessed tokens declares every name it
 * can parse in the scope where C puts it (file scope, a function's
 * parameters, each block, a for statement's clause) with its type, and
 * records for every identifier token the declaration it names there, so
 * a rewrite asks "what is this name here" and shadowing is what C says.
 * The declaration parser knows what kernel code writes: declaration
 * specifiers (types, typedef names, struct/union/enum, qualifiers,
 * address spaces, OpenCL's and CUDA's function and variable qualifiers,
 * attributes), declarators with pointers, arrays, parameter lists and
 * parentheses, comma lists, typedefs and struct bodies.  What it cannot
 * parse is left undeclared: a name it does not know resolves to NULL and
 * a rewrite must treat it as unknown, never as "not a vector".
 */
#ifndef KILN_CLC_SYMBOLS_H
#define KILN_CLC_SYMBOLS_H

#include "lexer.h"
#include "types.h"

#include <stddef.h>
#include <stdint.h>

typedef enum clc_language {
    CLC_LANGUAGE_OPENCL_C = 1,
    CLC_LANGUAGE_CUDA_C
} clc_language;

typedef enum clc_symbol_kind {
    CLC_SYMBOL_OBJECT = 1,   /* a variable or parameter                   */
    CLC_SYMBOL_FUNCTION,
    CLC_SYMBOL_TYPEDEF,      /* in CUDA C a struct's tag is one too       */
    CLC_SYMBOL_ENUMERATOR
} clc_symbol_kind;

typedef struct clc_symbol clc_symbol;
struct clc_symbol {
    int32_t name;
    clc_symbol_kind kind;
    const clc_type *type;
    clc_space space;         /* where an object lives: __local float a[4]
                                is LOCAL; a parameter or an unqualified
                                local is DEFAULT                         */
    size_t token;            /* the name's token in its declaration       */
    unsigned depth;          /* 0 file scope, 1 parameters, 2+ blocks     */
    size_t index;            /* 0, 1, ... in declaration order: a key for
                                a pass's own data about each symbol       */
    int is_parameter;
    const clc_symbol *hidden; /* the declaration of its name it shadows   */
};

typedef struct clc_symbols {
    clc_arena *arena;
    clc_interner *interner;
    clc_language language;
    const clc_token *tokens;
    size_t count;            /* tokens, without the EOF token             */
    const size_t *match;     /* per bracket token: its partner            */

    const clc_symbol **visible; /* by identifier id: innermost declaration */
    clc_type **tags;         /* by identifier id: struct/union tag         */
    uint8_t *member_names;   /* by identifier id: SY_MEMBER_* of structs'  */
    size_t ident_capacity;
    clc_symbol **declared;   /* the scopes' declarations, innermost last   */
    size_t declared_count, declared_capacity;
    size_t *scope_begin;     /* per open scope: its first in `declared`    */
    size_t scope_count, scope_capacity;
    const clc_symbol **use;  /* per token: the declaration it names        */
    size_t symbol_count;
    unsigned nesting;        /* declarators and struct bodies being read */
    int scanning;            /* inside clc_symbols_scan: a name means what
                                the open scopes say, after it what `use`
                                recorded                                  */

    /* CUDA C's words, interned by clc_symbols_init */
    int32_t w_device_, w_global_, w_host_, w_shared_, w_constant_,
        w_forceinline_, w_noinline_, w_managed_, w_align_, w_launch_bounds_,
        w_constexpr;
    /* CUDA C's type names beyond OpenCL C's (uint32_t, longlong2, dim3):
     * by identifier id, scalar + 1 and width */
    uint8_t *cuda_scalar, *cuda_width;
} clc_symbols;

/* Prepares an empty table (file scope open) for a program of `count`
 * tokens whose brackets `match` pairs (every bracket balanced). */
void clc_symbols_init(clc_symbols *symbols, clc_arena *arena,
                      clc_interner *interner, clc_language language,
                      const clc_token *tokens, size_t count,
                      const size_t *match);

/* Declares the whole program (clc_symbols_init's tokens), filling the
 * per-token answers of clc_symbol_at. */
void clc_symbols_scan(clc_symbols *symbols);

/* The declaration identifier token `token` names where it stands; NULL
 * for a member name after '.' or '->', a keyword, or a name the table
 * does not know (a built-in function, or a declaration it cannot parse). */
const clc_symbol *clc_symbol_at(const clc_symbols *symbols, size_t token);

/* ---- the pieces clc_symbols_scan is made of (the tests call them) ---- */

void clc_scope_push(clc_symbols *symbols);
void clc_scope_pop(clc_symbols *symbols);
/* Declares `name` in the innermost scope, hiding outer ones. */
clc_symbol *clc_symbol_declare(clc_symbols *symbols, int32_t name,
                               clc_symbol_kind kind, const clc_type *type,
                               clc_space space, size_t token);
/* The innermost visible declaration of `name`, NULL when none. */
const clc_symbol *clc_symbol_lookup(const clc_symbols *symbols, int32_t name);
/* The struct or union declared with tag `tag`, NULL when none. */
const clc_type *clc_symbol_tag(const clc_symbols *symbols, int32_t tag);
/* Whether some struct or union of the program has a member `name`: what a
 * rewrite falls back on when an object's type is unknown. */
int clc_symbols_member_name(const clc_symbols *symbols, int32_t name);
/* Whether some struct or union has a member `name` of a vector type (or
 * an array of or a pointer to them). */
int clc_symbols_vector_member_name(const clc_symbols *symbols, int32_t name);

typedef struct clc_specifiers {
    const clc_type *type;    /* NULL when no type was named               */
    clc_space space;
    int is_typedef, is_extern, is_static, is_kernel, is_const;
} clc_specifiers;

/* Parses declaration specifiers at `at` (before `end`): returns the index
 * after them, `at` when there are none.  A struct, union or enum body is
 * declared on the way. */
size_t clc_parse_specifiers(clc_symbols *symbols, size_t at, size_t end,
                            clc_specifiers *specifiers);

typedef struct clc_declarator {
    size_t name;             /* its name's token, SIZE_MAX when abstract   */
    const clc_type *type;
    clc_space space;         /* a qualifier after the last '*'            */
    size_t params_open;      /* a function's '(' , SIZE_MAX otherwise     */
} clc_declarator;

/* A type name at `at` as a cast or sizeof writes it (specifiers and an
 * abstract declarator of '*'s), read after clc_symbols_scan: returns the
 * index after it with *type set, `at` when there is none. */
size_t clc_type_name_at(const clc_symbols *symbols, size_t at, size_t end,
                        const clc_type **type);

/* Parses one declarator of base type `base` at `at`: returns the index
 * after it, `at` when there is none. */
size_t clc_parse_declarator(clc_symbols *symbols, size_t at, size_t end,
                            const clc_specifiers *specifiers,
                            clc_declarator *declarator);

#endif
