/*
 * CUDA's barriers on OpenCL (see cuda_barriers.h for what and why).
 *
 * The phase reads the program's __global__ and __device__ functions,
 * parses the bodies of those that synchronise into statements, and finds
 * which values are the same in every thread of a block ("uniform"):
 * literals, blockIdx/blockDim/gridDim, kernel parameters, file-scope
 * constants, and local variables whose every assignment is uniform and
 * runs in every thread.  That decides, for each statement of a function
 * that synchronises, whether every thread runs it (the structure: blocks,
 * `if`s and loops on uniform conditions, barriers, uniform assignments)
 * or only active threads do (the rest, guarded).  A function is rewritten
 * only when a thread may leave it early before a barrier, or when a
 * kernel ends in an `if` that only some threads enter and that
 * synchronises; everything else is copied as it is.
 *
 * The output is CUDA C tokens again: the pass that follows sees ordinary
 * declarations, `goto`s and calls, so address spaces, helper instances
 * and hidden parameters work as for code the user wrote.
 */
#include "cuda_barriers.h"

#include "expr_type.h"
#include "symbols.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- statements ---------------------------------------------------------- */

typedef enum bx_kind {
    BX_EXPR, BX_DECL, BX_EMPTY, BX_BLOCK, BX_IF, BX_FOR, BX_WHILE, BX_DO,
    BX_SWITCH, BX_RETURN, BX_BREAK, BX_CONTINUE, BX_GOTO, BX_LABEL
} bx_kind;

/* What a statement is in a function that synchronises, given what is
 * uniform; decided again at every round of the analysis. */
typedef enum bx_class {
    BX_GUARDED = 0,  /* only active threads run it                         */
    BX_UNGUARDED,    /* every thread runs it: uniform, no side effects but
                        on a local of its own                              */
    BX_BARRIER,      /* __syncthreads();                                  */
    BX_SYNC_CALL,    /* calls of synchronising functions or votes, hoisted */
    BX_STRUCTURE,    /* a block, or an if/loop on uniform conditions       */
    BX_END_IF,       /* a kernel's last if, entered by some threads, that
                        synchronises                                       */
    BX_DIVERGENT,    /* synchronises where only some threads may get      */
    BX_LOCKSTEP,     /* a store of warp-synchronous code: lanes read, meet,
                        write, meet                                        */
    BX_WARP_BARRIER, /* __syncwarp(): a barrier of every thread           */
    BX_LOCKSTEP_IF   /* an if that some threads enter, holding only
                        warp-synchronous code: every thread runs it, with
                        the flag of whether it entered                     */
} bx_class;

typedef struct bx_stmt bx_stmt;
struct bx_stmt {
    bx_kind kind;
    bx_class cls;
    size_t begin;        /* first token, #pragma unroll included          */
    size_t head;         /* the keyword or the first token of the statement */
    size_t end;          /* one past the last token                        */
    size_t open, close;  /* if/while/do/switch/for: the '(' and ')'        */
    size_t semi1, semi2; /* for: the header's two ';'                      */
    bx_stmt *body;       /* if: then; loops and switch: the body          */
    bx_stmt *other;      /* if: else                                       */
    bx_stmt **items;     /* block                                          */
    size_t item_count;
    int sync;            /* holds a barrier, a vote or a synchronising call,
                            or warp-synchronous code                         */
    int hard;            /* ... a barrier, a vote or a call of one          */
    int lockstep;        /* ... warp-synchronous code                        */
    int after_sync;      /* a barrier may run after it in this function     */
    int at_end;          /* a kernel's statement with nothing after it     */
    int divergent_jump;  /* loop: a break/continue that only some threads
                            take leaves or restarts it                      */
};

/* ---- functions ------------------------------------------------------------- */

typedef struct bx_call {
    size_t token;        /* the callee's name                              */
    size_t callee;
} bx_call;

typedef struct bx_function {
    int32_t name;
    size_t begin, name_token, open, close;
    size_t body_open, body_close;
    int defined, is_kernel, translated, is_void;
    int sync, uses_votes, analysed;
    int hard;            /* barriers or votes, here or in what it calls     */
    int lockstep;        /* warp-synchronous code, here or in what it calls */
    int lowered, takes_active;
    bx_stmt *body;
    bx_call *calls;
    size_t call_count;
    size_t *param_names; /* the name token of each parameter, 0 unnamed    */
    size_t param_count;
    size_t trigger;      /* the return (or if) that made it lowered        */
} bx_function;

typedef struct bx_prototype {
    size_t fn, open, close;
} bx_prototype;

/* ---- the state ------------------------------------------------------------- */

enum {
    BX_SYM_KNOWN = 1,     /* flags below computed                          */
    BX_SYM_TRACKED = 2,   /* a local or parameter held in a register       */
    BX_SYM_ARRAY = 4,
    BX_SYM_CONSTANT = 8,  /* file scope, never written by device code      */
    BX_SYM_VARYING = 16,  /* tracked, and not uniform                      */
    BX_SYM_LOCKSTEP = 32, /* declared volatile: warp-synchronous memory (a
                             kernel's pointer parameters are global: not) */
    BX_SYM_KERNEL_PARAMETER = 64
};

typedef struct bx_state {
    clc_arena *arena;
    clc_interner *interner;
    clc_failure *failure;
    volatile int *unsupported;
    const clc_token *tokens;
    size_t count;
    size_t *match;
    clc_symbols symbols;
    uint8_t *symbol_flags;  /* by symbol index */
    int32_t *function_of;   /* by identifier id: function index + 1 */
    uint8_t *word;          /* by identifier id: BX_W_* */
    size_t ident_count;
    bx_function *functions;
    size_t function_count;
    bx_prototype *prototypes;
    size_t prototype_count;
    int changed;

    /* per-token edits of the output */
    const char **before, **replace, **after;

    int asserts;             /* assert(c) reports (NDEBUG not defined)   */
    int32_t w_assert;

    /* the output */
    clc_token *out;
    size_t out_count, out_capacity;
    unsigned labels;
} bx_state;

/* What an identifier is to this phase. */
enum {
    BX_W_NONE = 0,
    BX_W_BARRIER,        /* __syncthreads                                 */
    BX_W_WARP_BARRIER,   /* __syncwarp                                    */
    BX_W_VOTE_COUNT, BX_W_VOTE_AND, BX_W_VOTE_OR,
    BX_W_THREAD,         /* threadIdx                                      */
    BX_W_BLOCK,          /* blockIdx, blockDim, gridDim                    */
    BX_W_UNIFORM,        /* warpSize, true, false, nullptr                 */
    BX_W_PURE,           /* a built-in function of its arguments alone     */
    BX_W_CAST,           /* static_cast & co.                              */
    BX_W_TYPE,           /* a type or qualifier word                       */
    BX_W_KERNEL,         /* __global__                                     */
    BX_W_DEVICE,         /* __device__                                     */
    BX_W_FUNCTION_QUALIFIER, /* __host__, __forceinline__, static, inline ... */
    BX_W_ATTRIBUTE,      /* __launch_bounds__, __align__, __attribute__   */
    BX_W_SHARED,         /* __shared__                                     */
    BX_W_CONSTANT,       /* __constant__, const, constexpr                 */
    BX_W_MUTABLE         /* __device__ (as a variable), __managed__        */
};

static const char *const bx_pure_functions[] = {
    "min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax", "abs",
    "labs", "llabs", "fabs", "fabsf", "fmin", "fmax", "fminf", "fmaxf",
    "sqrt", "sqrtf", "rsqrtf", "cbrtf", "ceil", "ceilf", "floor", "floorf",
    "round", "roundf", "trunc", "truncf", "log", "logf", "log2", "log2f",
    "log10f", "exp", "expf", "exp2f", "pow", "powf", "__powf", "__popc",
    "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__mul24",
    "__umul24", "__float2int_rn", "__float2int_rz", "__float2int_ru",
    "__float2int_rd", "__int2float_rn", "__log2f", "__expf", "__fdividef",
    "make_int2", "make_uint2", "make_float2", "make_int4", "make_uint4",
    "make_float4", "dim3",
};

static const char *const bx_type_words[] = {
    "const", "volatile", "signed", "unsigned", "char", "short", "int", "long",
    "float", "double", "void", "bool", "_Bool", "size_t", "ptrdiff_t",
    "uint", "uchar", "ushort", "ulong", "int8_t", "uint8_t", "int16_t",
    "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "intptr_t",
    "uintptr_t", "struct", "union", "enum", "__restrict__", "restrict",
};

/* ---- failure ----------------------------------------------------------------- */

static CLC_NORETURN void bx_refuse(bx_state *st, size_t at, const char *format,
                                   ...) CLC_PRINTF(3, 4);
static void bx_refuse(bx_state *st, size_t at, const char *format, ...)
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

static char *bx_printf(bx_state *st, const char *format, ...) CLC_PRINTF(2, 3);
static char *bx_printf(bx_state *st, const char *format, ...)
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

static void *bx_grow(bx_state *st, void *items, size_t count, size_t size)
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

static int bx_punct(const bx_state *st, size_t i, clc_punct punct)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_PUNCT &&
           st->tokens[i].punct == punct;
}

static int bx_ident(const bx_state *st, size_t i)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_IDENT;
}

static int bx_is(const bx_state *st, size_t i, int32_t word)
{
    return bx_ident(st, i) && st->tokens[i].ident == word;
}

static int bx_word(const bx_state *st, size_t i)
{
    if (!bx_ident(st, i) || st->tokens[i].ident < 0 ||
        (size_t)st->tokens[i].ident >= st->ident_count)
        return BX_W_NONE;
    return st->word[st->tokens[i].ident];
}

static const char *bx_name(const bx_state *st, size_t i)
{
    return clc_ident_get(st->interner, st->tokens[i].ident)->name;
}

static int bx_is_open(const bx_state *st, size_t i)
{
    return bx_punct(st, i, P_LPAREN) || bx_punct(st, i, P_LBRACKET) ||
           bx_punct(st, i, P_LBRACE);
}

static int bx_is_member(const bx_state *st, size_t i)
{
    return i > 0 && (bx_punct(st, i - 1, P_DOT) || bx_punct(st, i - 1, P_ARROW));
}

static int bx_is_assign(const bx_state *st, size_t i)
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
static int bx_after_operand(const bx_state *st, size_t i, size_t begin)
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
static int bx_sync_word_call(const bx_state *st, size_t i)
{
    int w = bx_word(st, i);
    if ((w == BX_W_BARRIER || w == BX_W_VOTE_COUNT || w == BX_W_VOTE_AND ||
         w == BX_W_VOTE_OR) &&
        bx_punct(st, i + 1, P_LPAREN) && !bx_is_member(st, i))
        return w;
    return 0;
}

/* A call of a function of the program at i: its index, else -1. */
static long bx_call_at(const bx_state *st, size_t i)
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
static size_t bx_find(const bx_state *st, size_t i, size_t end, clc_punct punct)
{
    while (i < end && !bx_punct(st, i, punct)) {
        if (bx_is_open(st, i))
            i = st->match[i];
        ++i;
    }
    return i;
}

static int bx_match_brackets(bx_state *st)
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

static uint8_t bx_symbol_flags(bx_state *st, const clc_symbol *symbol)
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

static const clc_symbol *bx_symbol(const bx_state *st, size_t i)
{
    if (!bx_ident(st, i) || bx_is_member(st, i))
        return NULL;
    return clc_symbol_at(&st->symbols, i);
}

/* A tracked local or parameter at i, else NULL. */
static const clc_symbol *bx_tracked(bx_state *st, size_t i)
{
    const clc_symbol *symbol = bx_symbol(st, i);
    if (symbol == NULL || symbol->kind != CLC_SYMBOL_OBJECT ||
        symbol->depth == 0)
        return NULL;
    return (bx_symbol_flags(st, symbol) & BX_SYM_TRACKED) ? symbol : NULL;
}

static void bx_vary(bx_state *st, const clc_symbol *symbol)
{
    uint8_t *flags = &st->symbol_flags[symbol->index];
    if (!(*flags & BX_SYM_VARYING)) {
        *flags |= BX_SYM_VARYING;
        st->changed = 1;
    }
}

static int bx_symbol_uniform(bx_state *st, const clc_symbol *symbol)
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
static int bx_uniform(bx_state *st, size_t b, size_t e, int votes)
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
static void bx_spoil(bx_state *st, size_t b, size_t e)
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

/* ---- parsing statements ------------------------------------------------------- */

static bx_stmt *bx_new(bx_state *st, bx_kind kind, size_t begin, size_t head)
{
    bx_stmt *s = clc_arena_alloc(st->arena, sizeof *s);
    s->kind = kind;
    s->begin = begin;
    s->head = head;
    return s;
}

/* The statement at i, inside a block that ends at `end` (its '}'); NULL
 * when the tokens are not a statement this parser knows. */
static bx_stmt *bx_parse(bx_state *st, size_t i, size_t end, unsigned depth)
{
    size_t begin = i;
    while (i < end && st->tokens[i].kind == CLC_TOK_PRAGMA)
        ++i;
    if (i >= end || depth > 200)
        return NULL;
    size_t head = i;
    if (bx_punct(st, i, P_LBRACE)) {
        bx_stmt *s = bx_new(st, BX_BLOCK, begin, head);
        size_t close = st->match[i];
        size_t k = i + 1;
        while (k < close) {
            bx_stmt *item = bx_parse(st, k, close, depth + 1);
            if (item == NULL)
                return NULL;
            s->items = bx_grow(st, s->items, s->item_count, sizeof *s->items);
            s->items[s->item_count++] = item;
            k = item->end;
        }
        s->end = close + 1;
        return s;
    }
    if (bx_punct(st, i, P_SEMI)) {
        bx_stmt *s = bx_new(st, BX_EMPTY, begin, head);
        s->end = i + 1;
        return s;
    }
    if (bx_is(st, i, W_if) || bx_is(st, i, W_while) || bx_is(st, i, W_switch) ||
        bx_is(st, i, W_for)) {
        bx_kind kind = bx_is(st, i, W_if) ? BX_IF
                       : bx_is(st, i, W_while) ? BX_WHILE
                       : bx_is(st, i, W_switch) ? BX_SWITCH : BX_FOR;
        if (!bx_punct(st, i + 1, P_LPAREN))
            return NULL;
        bx_stmt *s = bx_new(st, kind, begin, head);
        s->open = i + 1;
        s->close = st->match[i + 1];
        if (kind == BX_FOR) {
            s->semi1 = bx_find(st, s->open + 1, s->close, P_SEMI);
            s->semi2 = bx_find(st, s->semi1 + 1, s->close, P_SEMI);
            if (s->semi2 >= s->close)
                return NULL;
        }
        s->body = bx_parse(st, s->close + 1, end, depth + 1);
        if (s->body == NULL)
            return NULL;
        s->end = s->body->end;
        if (kind == BX_IF && bx_is(st, s->end, W_else)) {
            s->other = bx_parse(st, s->end + 1, end, depth + 1);
            if (s->other == NULL)
                return NULL;
            s->end = s->other->end;
        }
        return s;
    }
    if (bx_is(st, i, W_do)) {
        bx_stmt *s = bx_new(st, BX_DO, begin, head);
        s->body = bx_parse(st, i + 1, end, depth + 1);
        if (s->body == NULL)
            return NULL;
        size_t w = s->body->end;
        if (!bx_is(st, w, W_while) || !bx_punct(st, w + 1, P_LPAREN))
            return NULL;
        s->open = w + 1;
        s->close = st->match[w + 1];
        if (!bx_punct(st, s->close + 1, P_SEMI))
            return NULL;
        s->end = s->close + 2;
        return s;
    }
    if ((bx_is(st, i, W_case) || bx_is(st, i, W_default) ||
         (bx_ident(st, i) && bx_punct(st, i + 1, P_COLON) &&
          !bx_punct(st, i + 2, P_COLON)))) {
        size_t colon = i + 1;
        while (colon < end && !(bx_punct(st, colon, P_COLON) &&
                                !bx_punct(st, colon + 1, P_COLON))) {
            if (bx_punct(st, colon, P_COLON))
                ++colon; /* :: */
            else if (bx_is_open(st, colon))
                colon = st->match[colon];
            ++colon;
        }
        if (colon >= end)
            return NULL;
        bx_stmt *s = bx_new(st, BX_LABEL, begin, head);
        s->end = colon + 1;
        return s;
    }
    size_t semi = bx_find(st, i, end, P_SEMI);
    if (semi >= end)
        return NULL;
    bx_kind kind = BX_EXPR;
    if (bx_is(st, i, W_return))
        kind = BX_RETURN;
    else if (bx_is(st, i, W_break))
        kind = BX_BREAK;
    else if (bx_is(st, i, W_continue))
        kind = BX_CONTINUE;
    else if (bx_is(st, i, W_goto))
        kind = BX_GOTO;
    else if (bx_is(st, i, W_typedef) || bx_is(st, i, W_static_assert) ||
             bx_is(st, i, W__Static_assert))
        kind = BX_DECL;
    else
        for (size_t k = i; k < semi; ++k) {
            if (bx_is_open(st, k) && !bx_punct(st, k, P_LBRACKET)) {
                k = st->match[k];
                continue;
            }
            const clc_symbol *symbol = bx_symbol(st, k);
            if (symbol != NULL && symbol->token == k &&
                symbol->kind != CLC_SYMBOL_FUNCTION) {
                kind = BX_DECL;
                break;
            }
            int w = bx_word(st, k);
            if (k == i && (w == BX_W_SHARED || w == BX_W_TYPE || w == BX_W_CONSTANT ||
                           bx_is(st, k, W_extern) || bx_is(st, k, W_static))) {
                kind = BX_DECL;
                break;
            }
        }
    bx_stmt *s = bx_new(st, kind, begin, head);
    s->end = semi + 1;
    return s;
}

/* ---- what synchronises --------------------------------------------------------- */

static int bx_range_syncs(const bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        if (bx_sync_word_call(st, i))
            return 1;
        long callee = bx_call_at(st, i);
        if (callee >= 0 && st->functions[callee].sync)
            return 1;
    }
    return 0;
}

/* Barriers, votes, calls of functions that have them. */
static int bx_range_hard(const bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        if (bx_sync_word_call(st, i))
            return 1;
        long callee = bx_call_at(st, i);
        if (callee >= 0 && st->functions[callee].hard)
            return 1;
    }
    return 0;
}

/* __syncwarp() and calls of functions with warp-synchronous code. */
static int bx_range_lockstep_calls(const bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        if (bx_word(st, i) == BX_W_WARP_BARRIER && bx_punct(st, i + 1, P_LPAREN))
            return 1;
        long callee = bx_call_at(st, i);
        if (callee >= 0 && st->functions[callee].lockstep)
            return 1;
    }
    return 0;
}

/* A store into warp-synchronous memory, [b, e) a statement without its
 * ';' (`sdata[tid] += sdata[tid + 16]`, `*p = v`, a volatile __shared__
 * scalar): its assignment operator's index, 0 when it is not one. */
static size_t bx_lockstep_store(bx_state *st, size_t b, size_t e)
{
    size_t op = b;
    while (op < e && !bx_is_assign(st, op)) {
        if (bx_is_open(st, op))
            op = st->match[op];
        ++op;
    }
    if (op >= e || op == b)
        return 0;
    int memory = bx_punct(st, b, P_STAR), target = 0;
    for (size_t k = b; k < op; ++k) {
        if (bx_punct(st, k, P_LBRACKET))
            memory = 1;
        const clc_symbol *symbol = bx_symbol(st, k);
        if (symbol == NULL || symbol->kind != CLC_SYMBOL_OBJECT ||
            !(bx_symbol_flags(st, symbol) & BX_SYM_LOCKSTEP))
            continue;
        target = 1;
        if (op == b + 1 && symbol->type != NULL &&
            symbol->type->kind != CLC_TYPE_POINTER &&
            symbol->type->kind != CLC_TYPE_ARRAY)
            memory = 1; /* a volatile scalar */
    }
    return target && memory ? op : 0;
}

static int bx_warp_barrier_statement(const bx_state *st, const bx_stmt *s)
{
    return s->kind == BX_EXPR && bx_word(st, s->head) == BX_W_WARP_BARRIER &&
           bx_punct(st, s->head + 1, P_LPAREN) &&
           st->match[s->head + 1] + 2 == s->end;
}

/* Whether a function's own statements are warp-synchronous code. */
static int bx_lockstep_direct(bx_state *st, const bx_stmt *s)
{
    if (s->kind == BX_EXPR &&
        (bx_lockstep_store(st, s->head, s->end - 1) ||
         bx_warp_barrier_statement(st, s)))
        return 1;
    if ((s->body && bx_lockstep_direct(st, s->body)) ||
        (s->other && bx_lockstep_direct(st, s->other)))
        return 1;
    for (size_t k = 0; k < s->item_count; ++k)
        if (bx_lockstep_direct(st, s->items[k]))
            return 1;
    return 0;
}

static void bx_mark_sync(bx_state *st, bx_stmt *s)
{
    s->hard = bx_range_hard(st, s->begin, s->end);
    s->lockstep = bx_range_lockstep_calls(st, s->begin, s->end) ||
                  (s->kind == BX_EXPR &&
                   bx_lockstep_store(st, s->head, s->end - 1));
    bx_stmt *parts[2] = {s->body, s->other};
    for (int k = 0; k < 2; ++k)
        if (parts[k] != NULL) {
            bx_mark_sync(st, parts[k]);
            s->lockstep |= parts[k]->lockstep;
        }
    for (size_t k = 0; k < s->item_count; ++k) {
        bx_mark_sync(st, s->items[k]);
        s->lockstep |= s->items[k]->lockstep;
    }
    s->sync = s->hard || s->lockstep;
}


/* after_sync and at_end, from the statement's place. */
static void bx_mark_place(bx_state *st, bx_stmt *s, int after_sync, int at_end)
{
    s->after_sync = after_sync;
    s->at_end = at_end;
    switch (s->kind) {
    case BX_BLOCK: {
        int later_sync = 0, later_code = 0;
        for (size_t k = s->item_count; k-- > 0;) {
            bx_mark_place(st, s->items[k], after_sync || later_sync,
                          at_end && !later_code);
            later_sync |= s->items[k]->sync;
            later_code |= s->items[k]->kind != BX_EMPTY;
        }
        break;
    }
    case BX_IF:
        bx_mark_place(st, s->body, after_sync, at_end);
        if (s->other)
            bx_mark_place(st, s->other, after_sync, at_end);
        break;
    case BX_FOR: case BX_WHILE: case BX_DO:
        bx_mark_place(st, s->body, after_sync || s->sync, 0);
        break;
    case BX_SWITCH:
        bx_mark_place(st, s->body, after_sync || s->sync, 0);
        break;
    default:
        break;
    }
}

/* ---- the analysis -------------------------------------------------------------- */

/* The initializers of a declaration statement are uniform (or absent). */
static int bx_uniform_declaration(bx_state *st, const bx_stmt *s)
{
    size_t semi = s->end - 1;
    if (bx_is(st, s->head, W_static))
        return 0;
    for (size_t i = s->head; i < semi; ++i) {
        if (bx_is_open(st, i) && !bx_punct(st, i, P_LBRACKET)) {
            i = st->match[i];
            continue;
        }
        if (bx_punct(st, i, P_LBRACKET)) {
            size_t close = st->match[i];
            if (!bx_uniform(st, i + 1, close, 0))
                return 0;
            i = close;
            continue;
        }
        if (!bx_punct(st, i, P_ASSIGN))
            continue;
        size_t init_end = bx_find(st, i + 1, semi, P_COMMA);
        if (!bx_uniform(st, i + 1, init_end, 1))
            return 0;
        i = init_end;
    }
    return 1;
}

/* `v op= uniform;`, `v++;`: the target of such an expression, else NULL.
 * [b, e) without the ';'. */
static const clc_symbol *bx_uniform_assignment(bx_state *st, size_t b, size_t e)
{
    const clc_symbol *target = NULL;
    if (e == b + 2 && (bx_punct(st, b, P_INC) || bx_punct(st, b, P_DEC)))
        target = bx_tracked(st, b + 1);
    else if (e == b + 2 && (bx_punct(st, b + 1, P_INC) || bx_punct(st, b + 1, P_DEC)))
        target = bx_tracked(st, b);
    else if (e > b + 2 && bx_is_assign(st, b + 1) && bx_uniform(st, b + 2, e, 1) &&
             bx_find(st, b + 2, e, P_COMMA) == e)
        target = bx_tracked(st, b);
    if (target == NULL || !bx_symbol_uniform(st, target))
        return NULL;
    return target;
}

/* A comma list of uniform assignments (a for's clause), or nothing. */
static int bx_uniform_clause(bx_state *st, size_t b, size_t e)
{
    while (b < e) {
        size_t comma = bx_find(st, b, e, P_COMMA);
        if (bx_uniform_assignment(st, b, comma) == NULL)
            return 0;
        b = comma + 1;
    }
    return 1;
}

static int bx_loop_header_uniform(bx_state *st, const bx_stmt *s)
{
    if (s->kind == BX_FOR) {
        size_t init = s->open + 1;
        int init_ok;
        const clc_symbol *declared = NULL;
        for (size_t k = init; k < s->semi1 && declared == NULL; ++k) {
            const clc_symbol *symbol = bx_symbol(st, k);
            if (symbol != NULL && symbol->token == k &&
                symbol->kind == CLC_SYMBOL_OBJECT)
                declared = symbol;
        }
        if (declared != NULL) {
            bx_stmt decl = {.kind = BX_DECL, .begin = init, .head = init,
                            .end = s->semi1 + 1};
            init_ok = bx_uniform_declaration(st, &decl);
            for (size_t k = init; k < s->semi1 && init_ok; ++k) {
                const clc_symbol *symbol = bx_tracked(st, k);
                if (symbol != NULL && symbol->token == k &&
                    !bx_symbol_uniform(st, symbol))
                    init_ok = 0;
            }
        } else {
            init_ok = bx_uniform_clause(st, init, s->semi1);
        }
        return init_ok && bx_uniform(st, s->semi1 + 1, s->semi2, 1) &&
               bx_uniform_clause(st, s->semi2 + 1, s->close);
    }
    return bx_uniform(st, s->open + 1, s->close, 1);
}

static void bx_classify(bx_state *st, bx_function *f, bx_stmt *s);

/* A break or continue under guarded code that leaves or restarts `loop`. */
static int bx_divergent_jump(const bx_stmt *s, int guarded, int in_switch)
{
    if (s->cls == BX_GUARDED || s->cls == BX_DIVERGENT ||
        s->cls == BX_LOCKSTEP_IF || s->cls == BX_END_IF)
        guarded = 1;
    switch (s->kind) {
    case BX_BREAK:
        return guarded && !in_switch;
    case BX_CONTINUE:
        return guarded;
    case BX_FOR: case BX_WHILE: case BX_DO:
        return 0; /* their own */
    case BX_SWITCH:
        return bx_divergent_jump(s->body, 1, 1);
    case BX_IF:
        return bx_divergent_jump(s->body, guarded, in_switch) ||
               (s->other && bx_divergent_jump(s->other, guarded, in_switch));
    case BX_BLOCK:
        for (size_t k = 0; k < s->item_count; ++k)
            if (bx_divergent_jump(s->items[k], guarded, in_switch))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* Only active threads run s: every local it touches varies. */
static void bx_guard(bx_state *st, bx_stmt *s, bx_class cls)
{
    s->cls = cls;
    bx_spoil(st, s->begin, s->end);
}

/* Decides what s is, at a place every thread reaches (see bx_class). */
static void bx_classify(bx_state *st, bx_function *f, bx_stmt *s)
{
    switch (s->kind) {
    case BX_EMPTY: case BX_BREAK: case BX_CONTINUE: case BX_GOTO:
    case BX_LABEL:
        s->cls = BX_UNGUARDED;
        return;
    case BX_DECL:
        if (bx_uniform_declaration(st, s))
            s->cls = BX_UNGUARDED;
        else
            bx_guard(st, s, s->sync ? BX_SYNC_CALL : BX_GUARDED);
        return;
    case BX_EXPR: {
        size_t semi = s->end - 1;
        if (bx_uniform_assignment(st, s->head, semi) != NULL) {
            s->cls = BX_UNGUARDED;
            return;
        }
        if (semi == s->head + 3 && bx_sync_word_call(st, s->head) == BX_W_BARRIER &&
            bx_punct(st, s->head + 2, P_RPAREN)) {
            s->cls = BX_BARRIER;
            return;
        }
        if (bx_warp_barrier_statement(st, s)) {
            s->cls = BX_WARP_BARRIER;
            return;
        }
        if (bx_lockstep_store(st, s->head, semi) &&
            !bx_range_hard(st, s->head, semi) &&
            !bx_range_lockstep_calls(st, s->head, semi)) {
            bx_guard(st, s, BX_LOCKSTEP);
            return;
        }
        bx_guard(st, s, s->sync ? BX_SYNC_CALL : BX_GUARDED);
        return;
    }
    case BX_RETURN:
        bx_guard(st, s, s->sync ? BX_SYNC_CALL : BX_GUARDED);
        return;
    case BX_BLOCK:
        s->cls = BX_STRUCTURE;
        for (size_t k = 0; k < s->item_count; ++k)
            bx_classify(st, f, s->items[k]);
        return;
    case BX_IF:
        if (bx_uniform(st, s->open + 1, s->close, 1)) {
            s->cls = BX_STRUCTURE;
            bx_classify(st, f, s->body);
            if (s->other)
                bx_classify(st, f, s->other);
            return;
        }
        if (s->sync && !s->hard && !bx_range_syncs(st, s->open + 1, s->close) &&
            !bx_range_lockstep_calls(st, s->open + 1, s->close)) {
            s->cls = BX_LOCKSTEP_IF;
            bx_spoil(st, s->open, s->close);
            bx_classify(st, f, s->body);
            if (s->other)
                bx_classify(st, f, s->other);
            return;
        }
        if (s->sync && f->is_kernel && s->at_end &&
            !bx_range_syncs(st, s->open + 1, s->close) &&
            !(s->body->sync && s->other != NULL && s->other->sync)) {
            s->cls = BX_END_IF;
            bx_spoil(st, s->open, s->close);
            bx_classify(st, f, s->body);
            if (s->other)
                bx_classify(st, f, s->other);
            return;
        }
        bx_guard(st, s, s->sync ? BX_DIVERGENT : BX_GUARDED);
        return;
    case BX_FOR: case BX_WHILE: case BX_DO:
        if (bx_loop_header_uniform(st, s)) {
            s->cls = BX_STRUCTURE;
            bx_classify(st, f, s->body);
            s->divergent_jump = bx_divergent_jump(s->body, 0, 0);
            if (!s->divergent_jump)
                return;
        }
        bx_guard(st, s, s->sync ? BX_DIVERGENT : BX_GUARDED);
        return;
    case BX_SWITCH:
        bx_guard(st, s, s->sync ? BX_DIVERGENT : BX_GUARDED);
        return;
    }
}

/* Calls [open, close) argument by argument: f(k, begin, end). */
static size_t bx_argument(const bx_state *st, size_t open, size_t index,
                          size_t *arg_end)
{
    size_t close = st->match[open];
    size_t b = open + 1;
    for (size_t k = 0; b < close; ++k) {
        size_t e = bx_find(st, b, close, P_COMMA);
        if (k == index) {
            *arg_end = e;
            return b;
        }
        b = e + 1;
    }
    *arg_end = 0;
    return 0;
}

/* Helpers' parameters are uniform when every call passes uniform values. */
static void bx_parameters_from_calls(bx_state *st)
{
    for (size_t k = 0; k < st->function_count; ++k) {
        const bx_function *caller = &st->functions[k];
        if (!caller->analysed)
            continue;
        for (size_t c = 0; c < caller->call_count; ++c) {
            const bx_function *callee = &st->functions[caller->calls[c].callee];
            if (!callee->analysed || callee->is_kernel)
                continue;
            size_t open = caller->calls[c].token + 1;
            for (size_t p = 0; p < callee->param_count; ++p) {
                if (callee->param_names[p] == 0)
                    continue;
                const clc_symbol *param = bx_tracked(st, callee->param_names[p]);
                if (param == NULL || !bx_symbol_uniform(st, param))
                    continue;
                size_t arg_end, arg = bx_argument(st, open, p, &arg_end);
                if (arg == 0 || !bx_uniform(st, arg, arg_end, 0))
                    bx_vary(st, param);
            }
        }
    }
}

/* The first return in s that is not at a uniform place and may come
 * before a barrier; 0 when none. */
static size_t bx_divergent_return(const bx_state *st, const bx_stmt *s,
                                  int guarded)
{
    if (s->cls == BX_GUARDED || s->cls == BX_DIVERGENT)
        guarded = 1;
    if (s->kind == BX_RETURN)
        return guarded && s->after_sync ? s->head : 0;
    const bx_stmt *parts[2] = {s->body, s->other};
    for (int k = 0; k < 2; ++k)
        if (parts[k] != NULL) {
            size_t found = bx_divergent_return(st, parts[k], guarded);
            if (found)
                return found;
        }
    for (size_t k = 0; k < s->item_count; ++k) {
        size_t found = bx_divergent_return(st, s->items[k], guarded);
        if (found)
            return found;
    }
    return 0;
}

static size_t bx_end_if(const bx_stmt *s)
{
    if (s->cls == BX_END_IF)
        return s->head;
    if (s->cls != BX_STRUCTURE)
        return 0;
    const bx_stmt *parts[2] = {s->body, s->other};
    for (int k = 0; k < 2; ++k)
        if (parts[k] != NULL && bx_end_if(parts[k]))
            return bx_end_if(parts[k]);
    for (size_t k = 0; k < s->item_count; ++k)
        if (bx_end_if(s->items[k]))
            return bx_end_if(s->items[k]);
    return 0;
}

/* ---- reading the program --------------------------------------------------------- */

static void bx_intern_words(bx_state *st)
{
    static const struct {
        const char *name;
        int word;
    } words[] = {
        {"__syncthreads", BX_W_BARRIER},
        {"__syncwarp", BX_W_WARP_BARRIER},
        {"__syncthreads_count", BX_W_VOTE_COUNT},
        {"__syncthreads_and", BX_W_VOTE_AND},
        {"__syncthreads_or", BX_W_VOTE_OR},
        {"threadIdx", BX_W_THREAD},
        {"blockIdx", BX_W_BLOCK}, {"blockDim", BX_W_BLOCK},
        {"gridDim", BX_W_BLOCK},
        {"warpSize", BX_W_UNIFORM}, {"true", BX_W_UNIFORM},
        {"false", BX_W_UNIFORM}, {"nullptr", BX_W_UNIFORM},
        {"static_cast", BX_W_CAST}, {"reinterpret_cast", BX_W_CAST},
        {"const_cast", BX_W_CAST},
        {"__global__", BX_W_KERNEL}, {"__device__", BX_W_DEVICE},
        {"__host__", BX_W_FUNCTION_QUALIFIER},
        {"__forceinline__", BX_W_FUNCTION_QUALIFIER},
        {"__noinline__", BX_W_FUNCTION_QUALIFIER},
        {"static", BX_W_FUNCTION_QUALIFIER},
        {"inline", BX_W_FUNCTION_QUALIFIER},
        {"__inline__", BX_W_FUNCTION_QUALIFIER},
        {"__inline", BX_W_FUNCTION_QUALIFIER},
        {"extern", BX_W_FUNCTION_QUALIFIER},
        {"__launch_bounds__", BX_W_ATTRIBUTE}, {"__align__", BX_W_ATTRIBUTE},
        {"__attribute__", BX_W_ATTRIBUTE}, {"__declspec", BX_W_ATTRIBUTE},
        {"__shared__", BX_W_SHARED},
        {"__constant__", BX_W_CONSTANT}, {"constexpr", BX_W_CONSTANT},
        {"__managed__", BX_W_MUTABLE},
    };
    /* first the words whose class other lists must not override */
    for (size_t k = 0; k < sizeof bx_type_words / sizeof bx_type_words[0]; ++k)
        clc_intern(st->interner, bx_type_words[k], strlen(bx_type_words[k]));
    for (size_t k = 0; k < sizeof words / sizeof words[0]; ++k)
        clc_intern(st->interner, words[k].name, strlen(words[k].name));
    for (size_t k = 0; k < sizeof bx_pure_functions / sizeof bx_pure_functions[0]; ++k)
        clc_intern(st->interner, bx_pure_functions[k], strlen(bx_pure_functions[k]));
    st->ident_count = st->interner->count;
    st->word = clc_arena_alloc(st->arena, st->ident_count + 1);
    for (size_t k = 0; k < sizeof bx_pure_functions / sizeof bx_pure_functions[0]; ++k)
        st->word[clc_intern(st->interner, bx_pure_functions[k],
                            strlen(bx_pure_functions[k]))] = BX_W_PURE;
    for (size_t k = 0; k < sizeof bx_type_words / sizeof bx_type_words[0]; ++k)
        st->word[clc_intern(st->interner, bx_type_words[k],
                            strlen(bx_type_words[k]))] = BX_W_TYPE;
    st->word[W_const] = BX_W_CONSTANT;
    for (size_t k = 0; k < sizeof words / sizeof words[0]; ++k)
        st->word[clc_intern(st->interner, words[k].name, strlen(words[k].name))] =
            (uint8_t)words[k].word;
}

/* The parameters' name tokens of f. */
static void bx_read_params(bx_state *st, bx_function *f)
{
    size_t b = f->open + 1;
    f->param_count = 0;
    if (bx_is(st, b, W_void) && bx_punct(st, b + 1, P_RPAREN))
        return;
    while (b < f->close) {
        size_t e = bx_find(st, b, f->close, P_COMMA);
        size_t name = 0;
        for (size_t k = b; k < e; ++k) {
            const clc_symbol *symbol = bx_symbol(st, k);
            if (symbol != NULL && symbol->token == k && symbol->is_parameter)
                name = k;
        }
        f->param_names = bx_grow(st, f->param_names, f->param_count,
                                 sizeof *f->param_names);
        f->param_names[f->param_count++] = name;
        const clc_symbol *symbol = name ? bx_symbol(st, name) : NULL;
        if (symbol != NULL && f->is_kernel) {
            /* a kernel's pointers point to global memory: never a warp's */
            bx_symbol_flags(st, symbol);
            st->symbol_flags[symbol->index] = (uint8_t)(
                (st->symbol_flags[symbol->index] & ~BX_SYM_LOCKSTEP) |
                BX_SYM_KERNEL_PARAMETER);
        }
        b = e + 1;
    }
}

/* The top level: every function's definition and prototypes.  Returns 0
 * when the program is not one this phase can read (it then leaves the
 * program alone: the pass says what is wrong with it). */
static int bx_read_functions(bx_state *st)
{
    size_t i = 0;
    while (i < st->count) {
        if (st->tokens[i].kind == CLC_TOK_PRAGMA || bx_punct(st, i, P_SEMI) ||
            bx_punct(st, i, P_RBRACE)) {
            ++i;
            continue;
        }
        if (bx_is(st, i, W_extern) && st->tokens[i + 1].kind == CLC_TOK_STRING) {
            i += bx_punct(st, i + 2, P_LBRACE) ? 3 : 2;
            continue;
        }
        size_t k = i, name = 0;
        while (k < st->count) {
            if (bx_punct(st, k, P_SEMI))
                break;
            if (bx_punct(st, k, P_LBRACE)) {
                if (name)
                    break;
                k = st->match[k] + 1; /* a struct's body */
                continue;
            }
            if (bx_punct(st, k, P_ASSIGN) && !name) {
                k = bx_find(st, k, st->count, P_SEMI);
                break;
            }
            if (bx_punct(st, k, P_LPAREN)) {
                if (!name && k > i && bx_ident(st, k - 1) &&
                    bx_word(st, k - 1) != BX_W_ATTRIBUTE &&
                    bx_word(st, k - 1) != BX_W_TYPE &&
                    !bx_is(st, k - 1, W___attribute__)) {
                    name = k - 1;
                    k = st->match[k] + 1;
                    continue;
                }
                k = st->match[k] + 1;
                continue;
            }
            if (bx_is_open(st, k))
                k = st->match[k];
            ++k;
        }
        if (k >= st->count)
            return 0;
        if (name == 0) {
            i = k + 1;
            continue;
        }
        int kernel = 0, device = 0;
        for (size_t q = i; q < name; ++q) {
            kernel |= bx_word(st, q) == BX_W_KERNEL;
            device |= bx_word(st, q) == BX_W_DEVICE;
        }
        int32_t id = st->tokens[name].ident;
        long index = st->function_of[id] ? st->function_of[id] - 1 : -1;
        if (index < 0) {
            st->functions = bx_grow(st, st->functions, st->function_count,
                                    sizeof *st->functions);
            index = (long)st->function_count++;
            memset(&st->functions[index], 0, sizeof st->functions[index]);
            st->function_of[id] = (int32_t)index + 1;
        }
        bx_function *f = &st->functions[index];
        f->name = id;
        f->is_kernel |= kernel;
        f->translated |= kernel || device;
        if (bx_punct(st, k, P_LBRACE)) {
            if (f->defined)
                return 0; /* overloads: the pass refuses them */
            f->defined = 1;
            f->begin = i;
            f->name_token = name;
            f->open = name + 1;
            f->close = st->match[name + 1];
            f->body_open = k;
            f->body_close = st->match[k];
            int other = 0, is_void = 0;
            for (size_t q = i; q < name; ++q) {
                int w = bx_word(st, q);
                if (w == BX_W_ATTRIBUTE && bx_punct(st, q + 1, P_LPAREN)) {
                    q = st->match[q + 1];
                    continue;
                }
                if (bx_is(st, q, W_void))
                    is_void = 1;
                else if (w != BX_W_KERNEL && w != BX_W_DEVICE &&
                         w != BX_W_FUNCTION_QUALIFIER)
                    other = 1;
            }
            f->is_void = is_void && !other;
            i = f->body_close + 1;
        } else {
            st->prototypes = bx_grow(st, st->prototypes, st->prototype_count,
                                     sizeof *st->prototypes);
            st->prototypes[st->prototype_count++] =
                (bx_prototype){(size_t)index, name + 1, st->match[name + 1]};
            i = k + 1;
        }
    }
    for (size_t f = 0; f < st->function_count; ++f) {
        bx_function *fn = &st->functions[f];
        if (!fn->defined || !fn->translated)
            continue;
        for (size_t t = fn->body_open + 1; t < fn->body_close; ++t) {
            if (bx_sync_word_call(st, t)) {
                fn->hard = 1;
                if (bx_word(st, t) != BX_W_BARRIER)
                    fn->uses_votes = 1;
            }
            long callee = bx_call_at(st, t);
            if (callee < 0 || !st->functions[callee].translated ||
                (t > 0 && (bx_word(st, t - 1) == BX_W_TYPE ||
                           bx_punct(st, t - 1, P_STAR))))
                continue;
            fn->calls = bx_grow(st, fn->calls, fn->call_count, sizeof *fn->calls);
            fn->calls[fn->call_count++] = (bx_call){t, (size_t)callee};
        }
    }
    return 1;
}

/* ---- output ---------------------------------------------------------------------- */

static void bx_put(bx_state *st, const clc_token *t)
{
    if (st->out_count == st->out_capacity) {
        size_t capacity = st->out_capacity ? st->out_capacity * 2 : 1024;
        clc_token *grown = clc_arena_alloc(st->arena, capacity * sizeof *grown);
        if (st->out_count)
            memcpy(grown, st->out, st->out_count * sizeof *grown);
        st->out = grown;
        st->out_capacity = capacity;
    }
    st->out[st->out_count++] = *t;
}

/* Text of the phase's own, as tokens on the line of token `anchor`. */
static void bx_text(bx_state *st, const char *text, size_t anchor)
{
    if (text == NULL || text[0] == '\0')
        return;
    const clc_token *at = &st->tokens[anchor < st->count ? anchor : st->count];
    clc_token_array lexed = {0};
    clc_lex(text, strlen(text), at->file, at->line, st->arena, st->interner,
            &lexed);
    for (size_t k = 0; k < lexed.count; ++k) {
        clc_token t = lexed.tokens[k];
        if (t.kind == CLC_TOK_EOF)
            break;
        t.line = at->line;
        t.flags = (uint8_t)((t.flags & ~CLC_TF_BOL) | CLC_TF_SPACE);
        bx_put(st, &t);
    }
}

static void bx_copy(bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        bx_text(st, st->before[i], i);
        if (st->replace[i] != NULL)
            bx_text(st, st->replace[i], i);
        else
            bx_put(st, &st->tokens[i]);
        bx_text(st, st->after[i], i);
    }
}

/* The vote calls of [b, e): the prelude's, with the function's counter;
 * `active` says whether a returned thread must not vote. */
static void bx_edit_votes(bx_state *st, size_t b, size_t e, int active)
{
    for (size_t i = b; i < e; ++i) {
        int w = bx_sync_word_call(st, i);
        if (w == 0 || w == BX_W_BARRIER)
            continue;
        size_t open = i + 1, close = st->match[open];
        const char *name = w == BX_W_VOTE_COUNT ? "count"
                           : w == BX_W_VOTE_AND ? "and" : "or";
        st->replace[i] = bx_printf(st, "__kiln_syncthreads_%s", name);
        st->after[open] = !active            ? "(("
                          : w == BX_W_VOTE_AND ? "((!__kiln_active || ("
                                               : "((__kiln_active && (";
        st->before[close] = active ? "))), __kiln_vote" : ")), __kiln_vote";
    }
}

/* The end of the operand that starts at i (a divisor). */
static size_t bx_operand_end(const bx_state *st, size_t i, size_t end)
{
    while (i < end && (bx_punct(st, i, P_MINUS) || bx_punct(st, i, P_PLUS) ||
                       bx_punct(st, i, P_NOT) || bx_punct(st, i, P_TILDE)))
        ++i;
    if (bx_punct(st, i, P_LPAREN)) {
        i = st->match[i] + 1;
        if (i < end && (bx_ident(st, i) || bx_punct(st, i, P_LPAREN) ||
                        st->tokens[i].kind == CLC_TOK_NUMBER))
            return bx_operand_end(st, i, end); /* a cast's operand */
        return i;
    }
    if (i < end)
        ++i;
    for (;;) {
        if (bx_punct(st, i, P_LPAREN) || bx_punct(st, i, P_LBRACKET))
            i = st->match[i] + 1;
        else if (bx_punct(st, i, P_DOT) && bx_ident(st, i + 1))
            i += 2;
        else
            break;
    }
    return i < end ? i : end;
}

/* Code that every thread runs, returned ones too: an integer division by
 * a value that may be zero divides by 1 where it is (all threads divide
 * by the same value, and one that divides by zero has no meaning in
 * CUDA either), so that threads that returned do not trap on a CPU. */
static void bx_edit_divisions(bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        int assign = bx_punct(st, i, P_DIV_ASSIGN) || bx_punct(st, i, P_MOD_ASSIGN);
        if (!assign && !((bx_punct(st, i, P_SLASH) || bx_punct(st, i, P_PERCENT))))
            continue;
        size_t d = i + 1;
        size_t d_end = assign ? bx_find(st, d, bx_find(st, d, e, P_SEMI), P_COMMA)
                              : bx_operand_end(st, d, e);
        if (d_end == d + 1 && st->tokens[d].kind == CLC_TOK_NUMBER &&
            !(st->tokens[d].length == 1 && st->tokens[d].text[0] == '0'))
            continue;
        if (bx_word(st, d) == BX_W_BLOCK && d_end == d + 3)
            continue;
        if ((bx_word(st, d) == BX_W_UNIFORM || bx_is(st, d, W_sizeof)) &&
            (d_end == d + 1 || bx_is(st, d, W_sizeof)))
            continue;
        int floating = 0;
        for (size_t k = d; k < d_end; ++k) {
            const clc_token *t = &st->tokens[k];
            if (t->kind == CLC_TOK_NUMBER &&
                (memchr(t->text, '.', t->length) != NULL ||
                 ((t->text[t->length - 1] == 'f' || t->text[t->length - 1] == 'F') &&
                  !(t->length > 1 && (t->text[1] == 'x' || t->text[1] == 'X')))))
                floating = 1;
            if (bx_is(st, k, W_float) || bx_is(st, k, W_double))
                floating = 1;
            const clc_symbol *symbol = bx_symbol(st, k);
            if (symbol != NULL && symbol->type != NULL &&
                clc_scalar_is_floating(clc_type_element(symbol->type)))
                floating = 1;
        }
        if (floating)
            continue;
        st->after[i] = "__kiln_nonzero(";
        st->before[d_end] = st->before[d_end] ? bx_printf(st, ") %s", st->before[d_end]) : ")";
    }
}

/* ---- lowering a function ---------------------------------------------------------- */

typedef struct bx_lowering {
    bx_function *f;
    size_t label;        /* the label that ends the open run of guarded code */
    int open;            /* a run of guarded code is open                    */
    int used;            /* ... and a goto names its label                   */
    int certain;         /* no thread can have returned yet: no test needed  */
    size_t saved[32];    /* the flags of the ifs only some threads entered  */
    size_t saved_count;  /* (a return clears them: the thread stays out)   */
} bx_lowering;

static void bx_emit(bx_state *st, bx_lowering *lw, bx_stmt *s);

static void bx_open_guard(bx_state *st, bx_lowering *lw, size_t anchor)
{
    if (lw->open)
        return;
    lw->label = ++st->labels;
    lw->open = 1;
    lw->used = !lw->certain;
    if (lw->used)
        bx_text(st, bx_printf(st, "if (!__kiln_active) goto __kiln_skip_%zu;",
                              lw->label),
                anchor);
}

static void bx_close_guard(bx_state *st, bx_lowering *lw, size_t anchor)
{
    if (!lw->open)
        return;
    if (lw->used)
        bx_text(st, bx_printf(st, "__kiln_skip_%zu: ;", lw->label), anchor);
    lw->open = 0;
}

/* The returns inside s that may come before a barrier: they clear the
 * flag and leave the run of guarded code. */
static void bx_edit_returns(bx_state *st, bx_lowering *lw, const bx_stmt *s)
{
    if (s->kind == BX_RETURN && s->after_sync) {
        lw->used = 1;
        size_t semi = s->end - 1;
        const char *saved = "";
        for (size_t k = 0; k < lw->saved_count; ++k)
            saved = bx_printf(st, "%s __kiln_saved_%zu = 0;", saved, lw->saved[k]);
        const char *leave = bx_printf(st, "__kiln_active = 0;%s goto "
                                          "__kiln_skip_%zu; }",
                                      saved, lw->label);
        if (semi > s->head + 1) {
            st->replace[s->head] = "{ __kiln_ret =";
            st->after[semi] = leave;
        } else {
            st->replace[s->head] = "{";
            st->after[semi] = leave;
        }
        return;
    }
    if (s->body)
        bx_edit_returns(st, lw, s->body);
    if (s->other)
        bx_edit_returns(st, lw, s->other);
    for (size_t k = 0; k < s->item_count; ++k)
        bx_edit_returns(st, lw, s->items[k]);
}

/* A statement as a block of its own (the body of an if or a loop). */
static void bx_emit_nested(bx_state *st, bx_lowering *lw, bx_stmt *s)
{
    if (s->kind == BX_BLOCK) {
        bx_emit(st, lw, s);
        return;
    }
    bx_text(st, "{", s->begin);
    bx_emit(st, lw, s);
    bx_close_guard(st, lw, s->end - 1);
    bx_text(st, "}", s->end - 1);
}

/* Whether the argument [b, e) may be evaluated by a thread that returned:
 * no loads, stores or calls. */
static int bx_harmless(bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        if (bx_punct(st, i, P_LBRACKET) || bx_punct(st, i, P_ARROW) ||
            bx_punct(st, i, P_INC) || bx_punct(st, i, P_DEC) || bx_is_assign(st, i))
            return 0;
        if (bx_punct(st, i, P_STAR) && !bx_after_operand(st, i, b))
            return 0;
        if (bx_ident(st, i) && bx_punct(st, i + 1, P_LPAREN) &&
            bx_word(st, i) != BX_W_PURE && bx_word(st, i) != BX_W_TYPE &&
            bx_word(st, i) != BX_W_CAST)
            return 0;
    }
    return 1;
}

/* Whether a parameter [b, e) takes a pointer or an arithmetic value
 * (for which `cond ? (value) : 0` is well formed). */
static int bx_plain_parameter(bx_state *st, size_t b, size_t e, size_t name)
{
    for (size_t k = b; k < e; ++k) {
        if (bx_punct(st, k, P_STAR) || bx_punct(st, k, P_LBRACKET))
            return 1;
        if (k == name)
            continue;
        const clc_symbol *symbol = bx_symbol(st, k);
        int w = bx_word(st, k);
        if (w == BX_W_TYPE || w == BX_W_CONSTANT)
            continue;
        if (bx_ident(st, k) && clc_ident_get(st->interner, st->tokens[k].ident)->info.width != 0 &&
            clc_ident_get(st->interner, st->tokens[k].ident)->info.width != 3)
            continue;
        if (symbol != NULL && symbol->kind == CLC_SYMBOL_TYPEDEF &&
            symbol->type != NULL &&
            (symbol->type->kind == CLC_TYPE_SCALAR ||
             (symbol->type->kind == CLC_TYPE_VECTOR && symbol->type->width != 3) ||
             symbol->type->kind == CLC_TYPE_POINTER))
            continue;
        return 0;
    }
    return 1;
}

/* The return type of f as tokens (its qualifiers left out). */
static void bx_return_type(bx_state *st, const bx_function *f)
{
    for (size_t q = f->begin; q < f->name_token; ++q) {
        int w = bx_word(st, q);
        if (w == BX_W_ATTRIBUTE && bx_punct(st, q + 1, P_LPAREN)) {
            q = st->match[q + 1];
            continue;
        }
        if (w == BX_W_KERNEL || w == BX_W_DEVICE || w == BX_W_FUNCTION_QUALIFIER ||
            st->tokens[q].kind == CLC_TOK_STRING)
            continue;
        bx_put(st, &st->tokens[q]);
    }
}

/* A statement that calls functions that synchronise, or votes, where the
 * result is not a uniform value: each call runs in every thread first,
 * into a variable of its own, and the rest of the statement is guarded. */
static void bx_emit_sync_call(bx_state *st, bx_lowering *lw, bx_stmt *s)
{
    size_t semi = s->end - 1;
    const char *outside = NULL;
    size_t first_call = 0;
    for (size_t i = s->head; i < semi; ++i) {
        int vote = bx_sync_word_call(st, i);
        long callee = bx_call_at(st, i);
        if (vote || (callee >= 0 && st->functions[callee].sync)) {
            if (first_call == 0)
                first_call = i;
            i = st->match[i + 1];
            continue;
        }
        if (bx_punct(st, i, P_QUESTION) || bx_punct(st, i, P_ANDAND) ||
            bx_punct(st, i, P_OROR))
            outside = clc_punct_spelling((clc_punct)st->tokens[i].punct);
    }
    if (outside == NULL && bx_find(st, s->head, semi, P_COMMA) < semi)
        outside = ",";
    if (outside != NULL)
        bx_refuse(st, first_call,
                  "cannot translate '%s' here: a call that synchronises "
                  "in an expression with '%s', in a function whose threads "
                  "may return early (line %u): every thread must make the "
                  "call (call it in a statement of its own)",
                  bx_name(st, first_call), outside,
                  st->tokens[lw->f->trigger].line);
    bx_close_guard(st, lw, s->begin);
    bx_copy(st, s->begin, s->head); /* pragmas */
    size_t *temp = clc_arena_alloc(st->arena, (semi - s->head + 1) * sizeof *temp);
    int whole = 0;
    for (size_t i = s->head; i < semi; ++i) {
        int vote = bx_sync_word_call(st, i);
        long callee = bx_call_at(st, i);
        if (!(vote || (callee >= 0 && st->functions[callee].sync)))
            continue;
        size_t open = i + 1, close = st->match[open];
        if (bx_range_syncs(st, open + 1, close))
            bx_refuse(st, i, "cannot translate '%s' here: calls that "
                             "synchronise inside the arguments of another, in "
                             "a function whose threads may return early "
                             "(line %u)",
                      bx_name(st, i), st->tokens[lw->f->trigger].line);
        if (vote == BX_W_BARRIER)
            bx_refuse(st, i, "cannot translate '__syncthreads' inside an "
                             "expression, in a function whose threads may "
                             "return early (line %u)",
                      st->tokens[lw->f->trigger].line);
        whole = i == s->head && close + 1 == semi;
        const bx_function *g = callee >= 0 ? &st->functions[callee] : NULL;
        if (g != NULL && g->is_void && !whole)
            bx_refuse(st, i, "cannot translate '%s' here: a void function "
                             "inside an expression", bx_name(st, i));
        size_t number = ++st->labels;
        temp[i - s->head] = number;
        if (!(whole && (vote || g->is_void))) {
            if (vote)
                bx_text(st, "int", i);
            else
                bx_return_type(st, g);
            bx_text(st, bx_printf(st, "__kiln_t%zu =", number), i);
        }
        if (vote) {
            bx_copy(st, i, close + 1);
        } else {
            /* arguments a returned thread must not evaluate are replaced
             * by zero in such a thread */
            bx_put(st, &st->tokens[i]);
            bx_put(st, &st->tokens[open]);
            size_t p = 0, b = open + 1;
            while (b < close) {
                size_t e = bx_find(st, b, close, P_COMMA);
                if (bx_harmless(st, b, e)) {
                    bx_copy(st, b, e);
                } else {
                    size_t pb = 0, pe = 0;
                    if (p < g->param_count) {
                        pb = bx_argument(st, g->open, p, &pe);
                    }
                    if (pb == 0 || !bx_plain_parameter(st, pb, pe, g->param_names[p]))
                        bx_refuse(st, b, "cannot translate this argument of "
                                         "'%s': a value of a struct type that "
                                         "reads memory, passed by threads that "
                                         "may have returned (line %u) (read it "
                                         "into a variable first)",
                                  bx_name(st, i), st->tokens[lw->f->trigger].line);
                    bx_text(st, "(__kiln_active ? (", b);
                    bx_copy(st, b, e);
                    bx_text(st, ") : 0)", e - 1);
                }
                if (e < close)
                    bx_put(st, &st->tokens[e]);
                b = e + 1;
                ++p;
            }
            bx_text(st, close == open + 1 ? "__kiln_active" : ", __kiln_active", close);
            bx_put(st, &st->tokens[close]);
        }
        bx_text(st, ";", close);
        i = close;
    }
    if (whole)
        return;
    /* the rest of the statement, with the calls' values */
    bx_open_guard(st, lw, s->head);
    bx_edit_returns(st, lw, s);
    for (size_t i = s->head; i < s->end; ++i) {
        if (i < semi && temp[i - s->head] != 0) {
            size_t close = st->match[i + 1];
            bx_text(st, bx_printf(st, "__kiln_t%zu", temp[i - s->head]), i);
            i = close;
            continue;
        }
        bx_copy(st, i, i + 1);
    }
}

static void bx_emit_end_if(bx_state *st, bx_lowering *lw, bx_stmt *s)
{
    size_t number = ++st->labels;
    bx_text(st, bx_printf(st, "{ int __kiln_saved_%zu = __kiln_active; int "
                              "__kiln_taken_%zu = __kiln_active && (",
                          number, number),
            s->head);
    bx_copy(st, s->open + 1, s->close);
    bx_text(st, ");", s->close);
    if (lw->saved_count == sizeof lw->saved / sizeof lw->saved[0])
        bx_refuse(st, s->head, "cannot translate this 'if': more than %zu "
                               "nested ifs that only some threads enter and "
                               "that synchronise",
                  lw->saved_count);
    lw->saved[lw->saved_count++] = number;
    /* the branch without barriers first: in CUDA its threads are done
     * before the others pass their first barrier */
    int then_first = s->other == NULL || s->other->sync;
    for (int pass = 0; pass < 2; ++pass) {
        int then = (pass == 0) == then_first;
        bx_stmt *branch = then ? s->body : s->other;
        if (branch == NULL)
            continue;
        bx_text(st, then ? bx_printf(st, "__kiln_active = __kiln_taken_%zu;", number)
                         : bx_printf(st, "__kiln_active = __kiln_saved_%zu && "
                                         "!__kiln_taken_%zu;", number, number),
                branch->begin);
        bx_emit_nested(st, lw, branch);
    }
    lw->saved_count--;
    bx_text(st, bx_printf(st, "__kiln_active = __kiln_saved_%zu; }", number),
            s->end - 1);
}

/* The first warp-synchronous token in (b, e): a store or __syncwarp, or
 * a call of a function that has them; 0 when none. */
static size_t bx_lockstep_in(bx_state *st, size_t b, size_t e)
{
    for (size_t i = b + 1; i < e; ++i) {
        if (bx_range_lockstep_calls(st, i, i + 1))
            return i;
        if (!bx_is_assign(st, i))
            continue;
        size_t start = i;
        while (start > b + 1 && !bx_punct(st, start - 1, P_SEMI) &&
               !bx_punct(st, start - 1, P_LBRACE) &&
               !bx_punct(st, start - 1, P_RBRACE) &&
               !bx_punct(st, start - 1, P_RPAREN))
            --start;
        if (bx_lockstep_store(st, start, i + 1) == i)
            return start;
    }
    return 0;
}

static size_t bx_lockstep_at(bx_state *st, const bx_function *f)
{
    size_t at = bx_lockstep_in(st, f->body_open, f->body_close);
    return at ? at : f->body_open;
}

/* CUDA's spelling of a scalar or vector type, NULL for others. */
static const char *bx_type_spelling(bx_state *st, const clc_type *type)
{
    static const char *const scalars[] = {
        [CLC_S_BOOL] = "bool", [CLC_S_CHAR] = "char",
        [CLC_S_UCHAR] = "unsigned char", [CLC_S_SHORT] = "short",
        [CLC_S_USHORT] = "unsigned short", [CLC_S_INT] = "int",
        [CLC_S_UINT] = "unsigned int", [CLC_S_LONG] = "long long",
        [CLC_S_ULONG] = "unsigned long long", [CLC_S_FLOAT] = "float",
        [CLC_S_DOUBLE] = "double"};
    static const char *const elements[] = {
        [CLC_S_CHAR] = "char", [CLC_S_UCHAR] = "uchar",
        [CLC_S_SHORT] = "short", [CLC_S_USHORT] = "ushort",
        [CLC_S_INT] = "int", [CLC_S_UINT] = "uint", [CLC_S_LONG] = "longlong",
        [CLC_S_ULONG] = "ulonglong", [CLC_S_FLOAT] = "float",
        [CLC_S_DOUBLE] = "double"};
    if (type == NULL || (size_t)type->scalar >= sizeof scalars / sizeof scalars[0])
        return NULL;
    if (type->kind == CLC_TYPE_SCALAR)
        return scalars[type->scalar];
    if (type->kind == CLC_TYPE_VECTOR && type->width <= 4 &&
        elements[type->scalar] != NULL)
        return bx_printf(st, "%s%u", elements[type->scalar], type->width);
    return NULL;
}

/* A store of warp-synchronous code (bx_class BX_LOCKSTEP): on a GPU the 32
 * lanes of a warp run it as one instruction, every lane reading before
 * any writes; on a CPU device they run one after the other.  So every
 * thread computes the value (active ones), all meet, the active ones
 * store, all meet. */
static void bx_emit_lockstep(bx_state *st, bx_lowering *lw, bx_stmt *s)
{
    size_t semi = s->end - 1;
    size_t op = bx_lockstep_store(st, s->head, semi);
    for (size_t k = s->head; k < op; ++k)
        if (bx_punct(st, k, P_INC) || bx_punct(st, k, P_DEC) ||
            bx_is_assign(st, k) ||
            (bx_ident(st, k) && bx_punct(st, k + 1, P_LPAREN) &&
             bx_word(st, k) != BX_W_PURE))
            bx_refuse(st, k, "cannot translate this store of warp-synchronous "
                             "code (volatile shared memory): its target "
                             "has side effects");
    const char *type = bx_type_spelling(st, clc_expr_type(&st->symbols, s->head, op));
    if (type == NULL)
        bx_refuse(st, s->head, "cannot translate this store of "
                               "warp-synchronous code (volatile shared "
                               "memory): the type of its target is not "
                               "known here");
    static const char *const operators[P__COUNT] = {
        [P_MUL_ASSIGN] = "*", [P_DIV_ASSIGN] = "/", [P_MOD_ASSIGN] = "%",
        [P_ADD_ASSIGN] = "+", [P_SUB_ASSIGN] = "-", [P_SHL_ASSIGN] = "<<",
        [P_SHR_ASSIGN] = ">>", [P_AND_ASSIGN] = "&", [P_XOR_ASSIGN] = "^",
        [P_OR_ASSIGN] = "|"};
    const char *operator = operators[st->tokens[op].punct];
    bx_close_guard(st, lw, s->begin);
    bx_copy(st, s->begin, s->head); /* pragmas */
    size_t number = ++st->labels;
    bx_text(st, bx_printf(st, "%s __kiln_t%zu; if (__kiln_active) __kiln_t%zu =",
                          type, number, number),
            s->head);
    if (operator != NULL) {
        bx_copy(st, s->head, op);
        bx_text(st, operator, op);
    }
    bx_text(st, "(", op);
    bx_copy(st, op + 1, semi);
    bx_text(st, "); __syncthreads(); if (__kiln_active)", semi);
    bx_copy(st, s->head, op);
    bx_text(st, bx_printf(st, "= __kiln_t%zu; __syncthreads();", number), semi);
}

static void bx_refuse_divergent(bx_state *st, bx_lowering *lw, const bx_stmt *s)
{
    size_t at = s->head;
    for (size_t i = s->begin; i < s->end; ++i)
        if (bx_sync_word_call(st, i) ||
            (bx_call_at(st, i) >= 0 && st->functions[bx_call_at(st, i)].sync)) {
            at = i;
            break;
        }
    if (!s->hard) {
        size_t found = bx_lockstep_in(st, s->begin, s->end);
        at = found ? found : at;
        bx_refuse(st, at,
                  "cannot translate warp-synchronous code (stores through "
                  "volatile shared memory, __syncwarp) %s (line %u): the "
                  "translation runs it in every thread of the block with "
                  "barriers between the lanes' steps, which needs control "
                  "flow that is the same in every thread (OpenCL work-items "
                  "do not move in lockstep)",
                  s->kind == BX_SWITCH ? "inside a switch"
                  : s->kind == BX_IF   ? "under a condition inside an "
                                         "expression or another branch"
                                       : "in a loop whose trip count is not "
                                         "the same in every thread",
                  st->tokens[s->head].line);
    }
    const char *why = s->kind == BX_SWITCH
                          ? "inside a switch"
                      : s->kind == BX_IF
                          ? "under a condition that is not the same in every "
                            "thread of the block"
                      : s->divergent_jump
                          ? "in a loop that a break or continue leaves in only "
                            "some threads"
                          : "in a loop whose trip count is not the same in "
                            "every thread of the block";
    bx_refuse(st, at,
              "cannot translate '%s' %s (line %u), after threads may have "
              "returned early (line %u): OpenCL needs every work-item of a "
              "work-group to reach each barrier, and only a condition on "
              "blockIdx, blockDim, gridDim, parameters and constants is known "
              "to be the same in every thread",
              bx_name(st, at), why, st->tokens[s->head].line,
              st->tokens[lw->f->trigger].line);
}

/* Whether a return in s clears the flag. */
static int bx_lowered_return(const bx_stmt *s)
{
    if (s->kind == BX_RETURN)
        return s->after_sync;
    if ((s->body && bx_lowered_return(s->body)) ||
        (s->other && bx_lowered_return(s->other)))
        return 1;
    for (size_t k = 0; k < s->item_count; ++k)
        if (bx_lowered_return(s->items[k]))
            return 1;
    return 0;
}

static void bx_emit_statement(bx_state *st, bx_lowering *lw, bx_stmt *s);

static void bx_emit(bx_state *st, bx_lowering *lw, bx_stmt *s)
{
    /* a loop runs again after a return in it, and an if that only some
     * threads enter changes the flag */
    if (s->cls == BX_END_IF || s->cls == BX_LOCKSTEP_IF ||
        ((s->kind == BX_FOR || s->kind == BX_WHILE || s->kind == BX_DO) &&
         bx_lowered_return(s)))
        lw->certain = 0;
    bx_emit_statement(st, lw, s);
    if (bx_lowered_return(s))
        lw->certain = 0;
}

static void bx_emit_statement(bx_state *st, bx_lowering *lw, bx_stmt *s)
{
    switch (s->cls) {
    case BX_GUARDED:
        bx_open_guard(st, lw, s->begin);
        bx_edit_returns(st, lw, s);
        bx_copy(st, s->begin, s->end);
        return;
    case BX_DIVERGENT:
        bx_refuse_divergent(st, lw, s);
        return;
    case BX_UNGUARDED:
        if (s->kind == BX_LABEL && !bx_is(st, s->head, W_case) &&
            !bx_is(st, s->head, W_default))
            bx_refuse(st, s->head,
                      "cannot translate the label '%s' in a function whose "
                      "threads may return early before a barrier (line %u): "
                      "its lowering needs structured control flow",
                      bx_name(st, s->head), st->tokens[lw->f->trigger].line);
        bx_close_guard(st, lw, s->begin);
        bx_edit_votes(st, s->begin, s->end, 1);
        bx_edit_divisions(st, s->begin, s->end);
        bx_copy(st, s->begin, s->end);
        return;
    case BX_BARRIER:
        bx_close_guard(st, lw, s->begin);
        bx_copy(st, s->begin, s->end);
        return;
    case BX_SYNC_CALL:
        bx_edit_votes(st, s->begin, s->end, 1);
        bx_emit_sync_call(st, lw, s);
        return;
    case BX_END_IF:
    case BX_LOCKSTEP_IF:
        bx_close_guard(st, lw, s->begin);
        bx_emit_end_if(st, lw, s);
        return;
    case BX_LOCKSTEP:
        bx_emit_lockstep(st, lw, s);
        return;
    case BX_WARP_BARRIER:
        bx_close_guard(st, lw, s->begin);
        bx_copy(st, s->begin, s->head); /* pragmas */
        bx_text(st, "__syncthreads();", s->head);
        return;
    case BX_STRUCTURE:
        break;
    }
    bx_close_guard(st, lw, s->begin);
    switch (s->kind) {
    case BX_BLOCK:
        bx_copy(st, s->begin, s->head + 1);
        for (size_t k = 0; k < s->item_count; ++k)
            bx_emit(st, lw, s->items[k]);
        bx_close_guard(st, lw, s->end - 1);
        bx_copy(st, s->end - 1, s->end);
        return;
    case BX_IF:
        bx_edit_votes(st, s->open, s->close, 1);
        bx_edit_divisions(st, s->open, s->close);
        bx_copy(st, s->begin, s->close + 1);
        bx_emit_nested(st, lw, s->body);
        if (s->other) {
            bx_copy(st, s->body->end, s->body->end + 1); /* else */
            bx_emit_nested(st, lw, s->other);
        }
        return;
    case BX_FOR: case BX_WHILE:
        bx_edit_votes(st, s->open, s->close, 1);
        bx_edit_divisions(st, s->open, s->close);
        bx_copy(st, s->begin, s->close + 1);
        bx_emit_nested(st, lw, s->body);
        return;
    case BX_DO:
        bx_copy(st, s->begin, s->head + 1);
        bx_emit_nested(st, lw, s->body);
        bx_edit_votes(st, s->open, s->close, 1);
        bx_edit_divisions(st, s->open, s->close);
        bx_copy(st, s->body->end, s->end);
        return;
    default:
        bx_copy(st, s->begin, s->end);
        return;
    }
}

static void bx_emit_function(bx_state *st, bx_function *f)
{
    for (size_t i = f->body_open; i < f->body_close; ++i)
        if (bx_is(st, i, W_goto))
            bx_refuse(st, i, "cannot translate 'goto' in a function whose "
                             "threads may return early before a barrier "
                             "(line %u): its lowering needs structured "
                             "control flow",
                      st->tokens[f->trigger].line);
    /* the header, with the caller's flag for a helper */
    bx_copy(st, f->begin, f->close);
    if (f->takes_active) {
        int none = f->close == f->open + 1 ||
                   (bx_is(st, f->open + 1, W_void) && f->close == f->open + 2);
        if (none && f->close == f->open + 2)
            st->out_count--; /* (void) */
        bx_text(st, none ? "int __kiln_active" : ", int __kiln_active", f->close);
    }
    bx_copy(st, f->close, f->body_open + 1);
    if (!f->takes_active)
        bx_text(st, "int __kiln_active = 1;", f->body_open);
    if (f->uses_votes)
        bx_text(st, "__shared__ int __kiln_vote[1];", f->body_open);
    if (!f->is_void && !f->is_kernel) {
        bx_return_type(st, f);
        bx_text(st, "__kiln_ret;", f->body_open);
    }
    bx_lowering lw = {.f = f, .certain = !f->takes_active};
    for (size_t k = 0; k < f->body->item_count; ++k)
        bx_emit(st, &lw, f->body->items[k]);
    bx_close_guard(st, &lw, f->body_close);
    if (!f->is_void && !f->is_kernel)
        bx_text(st, "return __kiln_ret;", f->body_close);
    bx_copy(st, f->body_close, f->body_close + 1);
}

/* ---- the phase --------------------------------------------------------------------- */

static int bx_analyse(bx_state *st)
{
    int any_sync = 0;
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated)
            continue;
        bx_read_params(st, f);
    }
    /* warp-synchronous code of the functions' own */
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated)
            continue;
        f->body = bx_parse(st, f->body_open, f->body_close + 1, 0);
        if (f->body != NULL && bx_lockstep_direct(st, f->body))
            f->lockstep = 1;
    }
    /* what synchronises, through calls */
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = 0; k < st->function_count; ++k) {
            bx_function *f = &st->functions[k];
            for (size_t c = 0; c < f->call_count; ++c) {
                const bx_function *g = &st->functions[f->calls[c].callee];
                if ((g->hard && !f->hard) || (g->lockstep && !f->lockstep)) {
                    f->hard |= g->hard;
                    f->lockstep |= g->lockstep;
                    changed = 1;
                }
            }
        }
    }
    for (size_t k = 0; k < st->function_count; ++k)
        st->functions[k].sync = st->functions[k].hard || st->functions[k].lockstep;
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated || !f->sync)
            continue;
        if (f->body == NULL)
            continue; /* not a body this phase can read: left as it is */
        f->analysed = 1;

        any_sync = 1;
        bx_mark_sync(st, f->body);
        bx_mark_place(st, f->body, 0, f->is_kernel);
    }
    if (!any_sync)
        return 0;
    /* what is uniform, to a fixed point: values only ever become varying */
    do {
        st->changed = 0;
        for (size_t k = 0; k < st->function_count; ++k)
            if (st->functions[k].analysed)
                bx_classify(st, &st->functions[k], st->functions[k].body);
        bx_parameters_from_calls(st);
    } while (st->changed);
    int lowered = 0;
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->analysed)
            continue;
        size_t trigger = bx_divergent_return(st, f->body, 0);
        if (trigger == 0 && f->is_kernel)
            trigger = bx_end_if(f->body);
        if (trigger == 0 && f->lockstep)
            trigger = bx_lockstep_at(st, f);
        if (trigger) {
            f->lowered = 1;
            f->trigger = trigger;
            lowered = 1;
        }
    }
    /* a function that synchronises, called where threads may have
     * returned, takes the caller's flag */
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = 0; k < st->function_count; ++k) {
            bx_function *f = &st->functions[k];
            if (!f->lowered)
                continue;
            for (size_t c = 0; c < f->call_count; ++c) {
                bx_function *g = &st->functions[f->calls[c].callee];
                if (!g->sync || g->is_kernel || g->takes_active)
                    continue;
                if (!g->analysed)
                    bx_refuse(st, f->calls[c].token,
                              "cannot translate the call of '%s': a function "
                              "that synchronises, called after threads may "
                              "have returned early (line %u), whose body the "
                              "translation cannot read",
                              bx_name(st, f->calls[c].token),
                              st->tokens[f->trigger].line);
                g->takes_active = 1;
                g->lowered = 1;
                if (g->trigger == 0)
                    g->trigger = f->trigger;
                changed = 1;
            }
        }
    }
    return lowered;
}

/* assert(c) -> ((c) ? (void)0 : __kiln_assert_failed(__kiln_assert,
 * "file:line: c")); returns how many. */
static size_t bx_edit_asserts(bx_state *st)
{
    size_t found = 0;
    for (size_t k = 0; k < st->function_count; ++k) {
        const bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated)
            continue;
        for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
            if (!bx_is(st, i, st->w_assert) || !bx_punct(st, i + 1, P_LPAREN) ||
                bx_is_member(st, i))
                continue;
            size_t open = i + 1, close = st->match[open];
            clc_buffer site;
            clc_buffer_init(&site, st->arena);
            const clc_token *t = &st->tokens[i];
            const char *file = st->failure->file_names != NULL &&
                                       st->failure->file_count != NULL &&
                                       t->file < *st->failure->file_count
                                   ? st->failure->file_names[t->file]
                                   : "<kiln program>";
            clc_buffer_printf(&site, "%s:%u: ", file, (unsigned)t->line);
            for (size_t k2 = open + 1; k2 < close && site.length < 200; ++k2) {
                const clc_token *c = &st->tokens[k2];
                if (k2 > open + 1 && (c->flags & CLC_TF_SPACE))
                    clc_buffer_append(&site, " ", 1);
                for (uint32_t q = 0; q < c->length; ++q) {
                    char ch = c->text[q];
                    if (ch == '"' || ch == '\\')
                        clc_buffer_append(&site, "\\", 1);
                    if (ch == '\n' || ch == '\r' || ch == '\t')
                        ch = ' ';
                    clc_buffer_append(&site, &ch, 1);
                }
            }
            st->replace[i] = "(";
            st->after[close] = bx_printf(st, "? (void)0 : __kiln_assert_failed("
                                             TRANSLATE_ASSERT_VARIABLE ", \"%s\"))",
                                         clc_buffer_text(&site));
            ++found;
            i = close;
        }
    }
    return found;
}

void cuda_lower_barriers(clc_arena *arena, clc_interner *interner,
                         clc_failure *failure, volatile int *unsupported,
                         int asserts, clc_token **tokens, size_t *count)
{
    size_t n = *count ? *count - 1 : 0;
    /* quick: most programs never synchronise */
    int syncs = 0;
    for (size_t i = 0; i < n && !syncs; ++i)
        syncs = (*tokens)[i].kind == CLC_TOK_IDENT &&
                ((asserts && (*tokens)[i].length == 6 &&
                  memcmp((*tokens)[i].text, "assert", 6) == 0) ||
                (((*tokens)[i].length == 10 &&
                  memcmp((*tokens)[i].text, "__syncwarp", 10) == 0) ||
                 ((*tokens)[i].length == 8 &&
                  memcmp((*tokens)[i].text, "volatile", 8) == 0) ||
                 ((*tokens)[i].length >= 13 &&
                  memcmp((*tokens)[i].text, "__syncthreads", 13) == 0)));
    if (!syncs)
        return;
    bx_state *st = clc_arena_alloc(arena, sizeof *st);
    st->arena = arena;
    st->interner = interner;
    st->failure = failure;
    st->unsupported = unsupported;
    st->tokens = *tokens;
    st->count = n;
    st->asserts = asserts;
    if (!bx_match_brackets(st))
        return; /* the pass reports it */
    bx_intern_words(st);
    st->w_assert = clc_intern(interner, "assert", 6);
    st->function_of = clc_arena_alloc(arena, (st->ident_count + 1) *
                                                 sizeof *st->function_of);
    clc_symbols_init(&st->symbols, arena, interner, CLC_LANGUAGE_CUDA_C,
                     st->tokens, st->count, st->match);
    clc_symbols_scan(&st->symbols);
    /* the interner grew while scanning: words are looked up by id below
     * only for ids the phase interned, the rest read as BX_W_NONE */
    st->symbol_flags = clc_arena_alloc(arena, st->symbols.symbol_count + 1);
    if (!bx_read_functions(st))
        return;
    int lowered = bx_analyse(st);
    int votes = 0;
    for (size_t k = 0; k < st->function_count; ++k)
        votes |= st->functions[k].uses_votes && st->functions[k].translated;
    st->before = clc_arena_alloc(arena, (n + 1) * sizeof *st->before);
    st->replace = clc_arena_alloc(arena, (n + 1) * sizeof *st->replace);
    st->after = clc_arena_alloc(arena, (n + 1) * sizeof *st->after);
    /* a user's own function named assert is theirs */
    size_t asserts_found =
        st->asserts && st->function_of[st->w_assert] == 0 ? bx_edit_asserts(st) : 0;
    if (!lowered && !votes && !asserts_found)
        return;
    if (asserts_found)
        st->before[0] = "__device__ unsigned int " TRANSLATE_ASSERT_VARIABLE
                        "[" "64" "];";
    /* prototypes and calls of functions that take the caller's flag, and
     * the votes of functions that are not lowered */
    for (size_t p = 0; p < st->prototype_count; ++p) {
        const bx_prototype *proto = &st->prototypes[p];
        if (!st->functions[proto->fn].takes_active)
            continue;
        int none = proto->close == proto->open + 1;
        if (bx_is(st, proto->open + 1, W_void) && proto->close == proto->open + 2) {
            st->replace[proto->open + 1] = "int __kiln_active";
            continue;
        }
        st->before[proto->close] = none ? "int __kiln_active" : ", int __kiln_active";
    }
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated || f->lowered)
            continue;
        if (f->uses_votes) {
            bx_edit_votes(st, f->body_open, f->body_close, 0);
            st->after[f->body_open] = "__shared__ int __kiln_vote[1];";
        }
        for (size_t c = 0; c < f->call_count; ++c) {
            if (!st->functions[f->calls[c].callee].takes_active)
                continue;
            size_t open = f->calls[c].token + 1, close = st->match[open];
            st->before[close] = close == open + 1 ? "1" : ", 1";
        }
    }
    size_t *lowered_at = clc_arena_alloc(arena, (n + 1) * sizeof *lowered_at);
    for (size_t k = 0; k < st->function_count; ++k)
        if (st->functions[k].lowered)
            lowered_at[st->functions[k].begin] = k + 1;
    for (size_t i = 0; i < n;) {
        bx_function *f = lowered_at[i] ? &st->functions[lowered_at[i] - 1] : NULL;
        if (f != NULL) {
            bx_emit_function(st, f);
            i = f->body_close + 1;
            continue;
        }
        bx_copy(st, i, i + 1);
        ++i;
    }
    bx_put(st, &(*tokens)[n]); /* EOF */
    *tokens = st->out;
    *count = st->out_count;
}
