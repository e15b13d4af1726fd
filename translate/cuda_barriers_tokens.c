/*
 * CUDA's barriers on OpenCL (cuda_barriers.h): what a token is to the
 * phase, failures, and which values are the same in every thread of a
 * block ("uniform").
 */
#include "cuda_barriers_pass.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- failure ----------------------------------------------------------------- */

void bx_refuse(bx_state *st, size_t at, const char *format, ...)
{
    char message[768];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    const clc_token *t = &st->tokens[at < st->count ? at : st->count];
    *st->unsupported = 1;
    clc_fail(st->failure, t->file, t->line, "%s", message);
}

char *bx_printf(bx_state *st, const char *format, ...)
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

void *bx_grow(bx_state *st, void *items, size_t count, size_t size)
{
    /* capacities are powers of two: grow when count reaches one */
    if (count != 0 && (count & (count - 1)) != 0)
        return items;
    void *grown = clc_arena_alloc(st->arena, (count ? count * 2 : 4) * size);
    if (count)
        memcpy(grown, items, count * size);
    return grown;
}

/* ---- tokens ------------------------------------------------------------------- */

int bx_punct(const bx_state *st, size_t i, clc_punct punct)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_PUNCT &&
           st->tokens[i].punct == punct;
}

int bx_ident(const bx_state *st, size_t i)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_IDENT;
}

int bx_is(const bx_state *st, size_t i, int32_t word)
{
    return bx_ident(st, i) && st->tokens[i].ident == word;
}

int bx_word(const bx_state *st, size_t i)
{
    if (!bx_ident(st, i) || st->tokens[i].ident < 0 ||
        (size_t)st->tokens[i].ident >= st->ident_count)
        return BX_W_NONE;
    return st->word[st->tokens[i].ident];
}

const char *bx_name(const bx_state *st, size_t i)
{
    return clc_ident_get(st->interner, st->tokens[i].ident)->name;
}

int bx_is_open(const bx_state *st, size_t i)
{
    return bx_punct(st, i, P_LPAREN) || bx_punct(st, i, P_LBRACKET) ||
           bx_punct(st, i, P_LBRACE);
}

int bx_is_member(const bx_state *st, size_t i)
{
    return i > 0 && (bx_punct(st, i - 1, P_DOT) || bx_punct(st, i - 1, P_ARROW));
}

int bx_is_assign(const bx_state *st, size_t i)
{
    if (i >= st->count || st->tokens[i].kind != CLC_TOK_PUNCT)
        return 0;
    switch ((clc_punct)st->tokens[i].punct) {
    case P_ASSIGN: case P_MUL_ASSIGN: case P_DIV_ASSIGN: case P_MOD_ASSIGN:
    case P_ADD_ASSIGN: case P_SUB_ASSIGN: case P_SHL_ASSIGN: case P_SHR_ASSIGN:
    case P_AND_ASSIGN: case P_XOR_ASSIGN: case P_OR_ASSIGN:
        return 1;
    default:
        return 0;
    }
}

/* Whether the token before i ends an operand (so a '*' or '&' at i is
 * binary). */
int bx_after_operand(const bx_state *st, size_t i, size_t begin)
{
    if (i <= begin)
        return 0;
    const clc_token *t = &st->tokens[i - 1];
    if (t->kind == CLC_TOK_NUMBER || t->kind == CLC_TOK_CHAR ||
        t->kind == CLC_TOK_STRING)
        return 1;
    if (t->kind == CLC_TOK_IDENT)
        return !bx_is(st, i - 1, W_return) && !bx_is(st, i - 1, W_sizeof);
    return bx_punct(st, i - 1, P_RPAREN) || bx_punct(st, i - 1, P_RBRACKET) ||
           bx_punct(st, i - 1, P_INC) || bx_punct(st, i - 1, P_DEC);
}

/* A call of a barrier or a vote at i: its kind, else 0. */
int bx_sync_word_call(const bx_state *st, size_t i)
{
    int w = bx_word(st, i);
    if ((w == BX_W_BARRIER || w == BX_W_VOTE_COUNT || w == BX_W_VOTE_AND ||
         w == BX_W_VOTE_OR) &&
        bx_punct(st, i + 1, P_LPAREN) && !bx_is_member(st, i))
        return w;
    return 0;
}

int bx_warp_call(const bx_state *st, size_t i)
{
    return bx_word(st, i) == BX_W_WARP && bx_punct(st, i + 1, P_LPAREN) &&
           !bx_is_member(st, i);
}

size_t bx_range_warp(const bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i)
        if (bx_warp_call(st, i))
            return i;
    return 0;
}

/* A call of a function of the program at i: its index, else -1. */
long bx_call_at(const bx_state *st, size_t i)
{
    if (!bx_ident(st, i) || !bx_punct(st, i + 1, P_LPAREN) ||
        bx_is_member(st, i))
        return -1;
    int32_t id = st->tokens[i].ident;
    if (id < 0 || (size_t)id >= st->ident_count || st->function_of[id] == 0)
        return -1;
    return st->function_of[id] - 1;
}

/* The next token at depth 0 in [i, end) that is `punct`; end if none. */
size_t bx_find(const bx_state *st, size_t i, size_t end, clc_punct punct)
{
    while (i < end && !bx_punct(st, i, punct)) {
        if (bx_is_open(st, i))
            i = st->match[i];
        ++i;
    }
    return i;
}

int bx_match_brackets(bx_state *st)
{
    st->match = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *st->match);
    size_t *stack = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *stack);
    size_t depth = 0;
    for (size_t i = 0; i < st->count; ++i) {
        st->match[i] = i;
        if (st->tokens[i].kind != CLC_TOK_PUNCT)
            continue;
        clc_punct p = (clc_punct)st->tokens[i].punct;
        if (p == P_LPAREN || p == P_LBRACKET || p == P_LBRACE) {
            stack[depth++] = i;
        } else if (p == P_RPAREN || p == P_RBRACKET || p == P_RBRACE) {
            clc_punct open = p == P_RPAREN ? P_LPAREN
                             : p == P_RBRACKET ? P_LBRACKET : P_LBRACE;
            if (depth == 0 || !bx_punct(st, stack[depth - 1], open))
                return 0;
            size_t o = stack[--depth];
            st->match[o] = i;
            st->match[i] = o;
        }
    }
    return depth == 0;
}

/* ---- symbols: what may be uniform --------------------------------------------- */

/* The first token of the declaration that declares the name at `name`. */
static size_t bx_declaration_start(const bx_state *st, size_t name, int file_scope)
{
    size_t k = name;
    while (k > 0) {
        size_t p = k - 1;
        if (bx_punct(st, p, P_SEMI) || bx_punct(st, p, P_LBRACE) ||
            st->tokens[p].kind == CLC_TOK_PRAGMA)
            break;
        if (bx_punct(st, p, P_RBRACE)) {
            if (file_scope)
                break;
            k = st->match[p];
            continue;
        }
        if (bx_punct(st, p, P_RPAREN) || bx_punct(st, p, P_RBRACKET)) {
            k = st->match[p];
            continue;
        }
        if (bx_punct(st, p, P_LPAREN) && p > 0 && bx_is(st, p - 1, W_for))
            break;
        if (bx_punct(st, p, P_COLON))
            break;
        k = p;
    }
    return k;
}

/* The first token of the parameter whose name is at `name`. */
static size_t bx_parameter_start(const bx_state *st, size_t name)
{
    size_t k = name;
    while (k > 0 && !bx_punct(st, k - 1, P_COMMA) &&
           !(bx_punct(st, k - 1, P_LPAREN) && st->match[k - 1] > name)) {
        if (bx_punct(st, k - 1, P_RPAREN) || bx_punct(st, k - 1, P_RBRACKET))
            k = st->match[k - 1];
        else
            --k;
    }
    return k;
}

uint8_t bx_symbol_flags(bx_state *st, const clc_symbol *symbol)
{
    uint8_t *flags = &st->symbol_flags[symbol->index];
    if (*flags & BX_SYM_KNOWN)
        return *flags;
    uint8_t f = BX_SYM_KNOWN;
    if (symbol->kind == CLC_SYMBOL_OBJECT) {
        size_t start = symbol->is_parameter
                           ? bx_parameter_start(st, symbol->token)
                           : bx_declaration_start(st, symbol->token,
                                                  symbol->depth == 0);
        int is_volatile = 0, device = 0;
        for (size_t k = start; k < symbol->token; ++k) {
            is_volatile |= bx_is(st, k, W_volatile);
            device |= bx_word(st, k) == BX_W_DEVICE;
        }
        if (is_volatile && !(symbol->depth == 0 && device))
            f |= BX_SYM_LOCKSTEP;
    }
    int array = symbol->type != NULL && symbol->type->kind == CLC_TYPE_ARRAY;
    if (array)
        f |= BX_SYM_ARRAY;
    if (symbol->kind == CLC_SYMBOL_OBJECT && symbol->depth == 0) {
        size_t start = bx_declaration_start(st, symbol->token, 1);
        int constant = 0, mutable = 0;
        for (size_t k = start; k < symbol->token; ++k) {
            int w = bx_word(st, k);
            constant |= w == BX_W_CONSTANT;
            mutable |= w == BX_W_MUTABLE || w == BX_W_SHARED ||
                       w == BX_W_DEVICE;
        }
        if (constant && !mutable)
            f |= BX_SYM_CONSTANT;
    } else if (symbol->kind == CLC_SYMBOL_OBJECT && !array) {
        int tracked = 1;
        if (!symbol->is_parameter) {
            size_t start = bx_declaration_start(st, symbol->token, 0);
            for (size_t k = start; k < symbol->token; ++k)
                if (bx_word(st, k) == BX_W_SHARED || bx_is(st, k, W_static) ||
                    bx_is(st, k, W_extern))
                    tracked = 0;
        }
        if (symbol->space == CLC_SPACE_LOCAL)
            tracked = 0;
        if (tracked)
            f |= BX_SYM_TRACKED;
    }
    *flags = f;
    return f;
}

const clc_symbol *bx_symbol(const bx_state *st, size_t i)
{
    if (!bx_ident(st, i) || bx_is_member(st, i))
        return NULL;
    return clc_symbol_at(&st->symbols, i);
}

/* A tracked local or parameter at i, else NULL. */
const clc_symbol *bx_tracked(bx_state *st, size_t i)
{
    const clc_symbol *symbol = bx_symbol(st, i);
    if (symbol == NULL || symbol->kind != CLC_SYMBOL_OBJECT ||
        symbol->depth == 0)
        return NULL;
    return (bx_symbol_flags(st, symbol) & BX_SYM_TRACKED) ? symbol : NULL;
}

void bx_vary(bx_state *st, const clc_symbol *symbol)
{
    uint8_t *flags = &st->symbol_flags[symbol->index];
    if (!(*flags & BX_SYM_VARYING)) {
        *flags |= BX_SYM_VARYING;
        st->changed = 1;
    }
}

int bx_symbol_uniform(bx_state *st, const clc_symbol *symbol)
{
    if (symbol->kind == CLC_SYMBOL_ENUMERATOR ||
        symbol->kind == CLC_SYMBOL_TYPEDEF)
        return 1;
    if (symbol->kind != CLC_SYMBOL_OBJECT)
        return 0;
    uint8_t f = bx_symbol_flags(st, symbol);
    if (symbol->depth == 0)
        return (f & BX_SYM_CONSTANT) != 0;
    if (f & BX_SYM_TRACKED)
        return !(f & BX_SYM_VARYING);
    /* an array's address is the same everywhere; its elements are loads */
    return (f & BX_SYM_ARRAY) != 0;
}

/* Whether tokens [b, e) compute the same value in every thread of a block
 * without side effects (loads from memory and calls of the program's
 * functions are taken as not uniform).  Block votes are uniform values
 * where `votes` says they may run (every thread evaluates the tokens). */
/* A call at i of a function of the program whose body is `{ return
 * <number>; }` (a tile's size() once the C++ phase has instantiated it),
 * with arguments that neither store nor call. */
static int bx_constant_call(const bx_state *st, size_t i)
{
    long callee = bx_call_at(st, i);
    if (callee < 0)
        return 0;
    const bx_function *f = &st->functions[callee];
    if (!f->defined || f->body_close != f->body_open + 4 ||
        !bx_is(st, f->body_open + 1, W_return) ||
        st->tokens[f->body_open + 2].kind != CLC_TOK_NUMBER ||
        !bx_punct(st, f->body_open + 3, P_SEMI))
        return 0;
    for (size_t k = i + 2; k < st->match[i + 1]; ++k)
        if (bx_is_assign(st, k) || bx_punct(st, k, P_INC) ||
            bx_punct(st, k, P_DEC) || bx_punct(st, k, P_LPAREN))
            return 0;
    return 1;
}

int bx_uniform(bx_state *st, size_t b, size_t e, int votes)
{
    for (size_t i = b; i < e; ++i) {
        const clc_token *t = &st->tokens[i];
        if (t->kind == CLC_TOK_NUMBER || t->kind == CLC_TOK_CHAR)
            continue;
        if (t->kind == CLC_TOK_PUNCT) {
            clc_punct p = (clc_punct)t->punct;
            if (p == P_LBRACKET) {
                /* constant tables indexed by uniform values */
                const clc_symbol *base = bx_symbol(st, i - 1);
                if (i > b && base != NULL && base->kind == CLC_SYMBOL_OBJECT &&
                    base->depth == 0 &&
                    (bx_symbol_flags(st, base) & BX_SYM_CONSTANT))
                    continue;
                return 0;
            }
            if (p == P_INC || p == P_DEC) {
                /* ++k on a uniform local: every thread that evaluates
                 * this (a condition, a loop's header) steps it alike */
                const clc_symbol *next = bx_tracked(st, i + 1);
                const clc_symbol *previous = i > b ? bx_tracked(st, i - 1) : NULL;
                const clc_symbol *target = next != NULL ? next : previous;
                if (target == NULL || !bx_symbol_uniform(st, target))
                    return 0;
                continue;
            }
            if (p == P_ARROW || bx_is_assign(st, i))
                return 0;
            if ((p == P_STAR || p == P_AMP) && !bx_after_operand(st, i, b))
                return 0;
            if (p == P_DOT) {
                ++i; /* a member of a uniform struct */
                continue;
            }
            continue;
        }
        if (t->kind != CLC_TOK_IDENT)
            return 0;
        if (bx_is(st, i, W_sizeof) || bx_is(st, i, W__Alignof) ||
            bx_is(st, i, W___alignof__)) {
            if (bx_punct(st, i + 1, P_LPAREN))
                i = st->match[i + 1];
            continue;
        }
        int w = bx_word(st, i);
        if (w == BX_W_THREAD)
            return 0;
        if (w == BX_W_BLOCK) {
            if (bx_punct(st, i + 1, P_DOT))
                i += 2;
            continue;
        }
        if (w == BX_W_UNIFORM || w == BX_W_TYPE || w == BX_W_CAST ||
            w == BX_W_CONSTANT)
            continue;
        if (bx_punct(st, i + 1, P_LPAREN)) {
            if (w == BX_W_VOTE_COUNT || w == BX_W_VOTE_AND || w == BX_W_VOTE_OR) {
                if (!votes)
                    return 0;
                i = st->match[i + 1];
                continue;
            }
            if (w == BX_W_PURE)
                continue;
            if (bx_constant_call(st, i)) {
                i = st->match[i + 1];
                continue;
            }
            const clc_symbol *symbol = bx_symbol(st, i);
            if (symbol != NULL && symbol->kind == CLC_SYMBOL_TYPEDEF)
                continue;
            if (t->ident >= 0 && (size_t)t->ident < st->ident_count &&
                clc_ident_get(st->interner, t->ident)->info.width != 0)
                continue; /* a vector type's name */
            return 0;
        }
        if (t->ident >= 0 && (size_t)t->ident < st->ident_count &&
            clc_ident_get(st->interner, t->ident)->info.width != 0)
            continue;
        const clc_symbol *symbol = bx_symbol(st, i);
        if (symbol == NULL || !bx_symbol_uniform(st, symbol))
            return 0;
    }
    return 1;
}

/* Marks varying every tracked local that tokens [b, e) assign, declare or
 * take the address of: they run in only some threads. */
void bx_spoil(bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        const clc_symbol *symbol = bx_tracked(st, i);
        if (symbol == NULL)
            continue;
        if (symbol->token == i || bx_is_assign(st, i + 1) ||
            bx_punct(st, i + 1, P_INC) || bx_punct(st, i + 1, P_DEC) ||
            (i > b && (bx_punct(st, i - 1, P_INC) || bx_punct(st, i - 1, P_DEC))) ||
            (i > 0 && bx_punct(st, i - 1, P_AMP) && !bx_after_operand(st, i - 1, 0)))
            bx_vary(st, symbol);
    }
}
