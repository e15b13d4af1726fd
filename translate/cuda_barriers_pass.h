/*
 * The phase of cuda_barriers.h, its files' shared view (private to
 * cuda_barriers*.c): the statements of a function that synchronises, the
 * functions of the program, the phase's state, and the functions each
 * file gives the others.  cuda_barriers.c describes the phase.
 */
#ifndef KILN_CUDA_BARRIERS_PASS_H
#define KILN_CUDA_BARRIERS_PASS_H

#include "cuda_barriers.h"

#include "expr_type.h"
#include "symbols.h"

#include <stddef.h>
#include <stdint.h>

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
    BX_LOCKSTEP_IF,  /* an if that some threads enter, holding only
                        warp-synchronous code: every thread runs it, with
                        the flag of whether it entered                     */
    BX_LOCKSTEP_LOOP /* a for or while whose trip count is not the same in
                        every thread, holding only warp primitives (no
                        barrier, return, break or continue of its own):
                        every thread iterates while some thread of the
                        block does, with the flag of whether it still runs */
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
    int uses_warp;       /* calls warp primitives itself: has the scratch  */
    int lockstep_memory; /* volatile stores or __syncwarp, here or in what
                            it calls                                       */
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
    BX_W_MUTABLE,        /* __device__ (as a variable), __managed__        */
    BX_W_WARP            /* a warp primitive: __shfl*_sync, __ballot_sync,
                            __any/__all_sync, __activemask, __reduce_*_sync */
};

/* ---- cuda_barriers_tokens.c ------------------------------------------------ */

/* Refuses the program at token `at` (KILN_ERR_TRANSLATION, its line). */
CLC_NORETURN void bx_refuse(bx_state *st, size_t at, const char *format, ...)
    CLC_PRINTF(3, 4);
char *bx_printf(bx_state *st, const char *format, ...) CLC_PRINTF(2, 3);
void *bx_grow(bx_state *st, void *items, size_t count, size_t size);
int bx_punct(const bx_state *st, size_t i, clc_punct punct);
int bx_ident(const bx_state *st, size_t i);
int bx_is(const bx_state *st, size_t i, int32_t word);
int bx_word(const bx_state *st, size_t i);
const char *bx_name(const bx_state *st, size_t i);
int bx_is_open(const bx_state *st, size_t i);
int bx_is_member(const bx_state *st, size_t i);
int bx_is_assign(const bx_state *st, size_t i);
/* Whether the token before i ends an operand (so a '*' or '&' at i is
 * binary). */
int bx_after_operand(const bx_state *st, size_t i, size_t begin);
/* A call of a barrier or a vote at i: its kind, else 0. */
int bx_sync_word_call(const bx_state *st, size_t i);
/* A call of a warp primitive at i. */
int bx_warp_call(const bx_state *st, size_t i);
/* The first call of a warp primitive in [b, e), else 0. */
size_t bx_range_warp(const bx_state *st, size_t b, size_t e);
/* A call of a function of the program at i: its index, else -1. */
long bx_call_at(const bx_state *st, size_t i);
/* The next token at depth 0 in [i, end) that is `punct`; end if none. */
size_t bx_find(const bx_state *st, size_t i, size_t end, clc_punct punct);
int bx_match_brackets(bx_state *st);
uint8_t bx_symbol_flags(bx_state *st, const clc_symbol *symbol);
const clc_symbol *bx_symbol(const bx_state *st, size_t i);
/* A tracked local or parameter at i, else NULL. */
const clc_symbol *bx_tracked(bx_state *st, size_t i);
void bx_vary(bx_state *st, const clc_symbol *symbol);
int bx_symbol_uniform(bx_state *st, const clc_symbol *symbol);
/* Whether tokens [b, e) compute the same value in every thread of a block
 * without side effects (loads from memory and calls of the program's
 * functions are taken as not uniform).  Block votes are uniform values
 * where `votes` says they may run (every thread evaluates the tokens). */
int bx_uniform(bx_state *st, size_t b, size_t e, int votes);
/* Marks varying every tracked local that tokens [b, e) assign, declare or
 * take the address of: they run in only some threads. */
void bx_spoil(bx_state *st, size_t b, size_t e);

/* ---- cuda_barriers_analyse.c ----------------------------------------------- */
/* The statement at i, inside a block that ends at `end` (its '}'); NULL
 * when the tokens are not a statement this parser knows. */
bx_stmt *bx_parse(bx_state *st, size_t i, size_t end, unsigned depth);
int bx_range_syncs(const bx_state *st, size_t b, size_t e);
/* __syncwarp() and calls of functions with warp-synchronous code. */
int bx_range_lockstep_calls(const bx_state *st, size_t b, size_t e);
/* ... but not warp primitives. */
int bx_range_lockstep_functions(const bx_state *st, size_t b, size_t e);
/* A store into warp-synchronous memory, [b, e) a statement without its
 * ';' (`sdata[tid] += sdata[tid + 16]`, `*p = v`, a volatile __shared__
 * scalar): its assignment operator's index, 0 when it is not one. */
size_t bx_lockstep_store(bx_state *st, size_t b, size_t e);
/* Whether a function's own statements are warp-synchronous code. */
int bx_lockstep_direct(bx_state *st, const bx_stmt *s);
void bx_mark_sync(bx_state *st, bx_stmt *s);
/* A loop that BX_LOCKSTEP_LOOP can run in every thread. */
int bx_warp_loop(bx_state *st, const bx_stmt *s);
/* after_sync and at_end, from the statement's place. */
void bx_mark_place(bx_state *st, bx_stmt *s, int after_sync, int at_end);
/* Decides what s is, at a place every thread reaches (see bx_class). */
void bx_classify(bx_state *st, bx_function *f, bx_stmt *s);
/* Calls [open, close) argument by argument: f(k, begin, end). */
size_t bx_argument(const bx_state *st, size_t open, size_t index,
                   size_t *arg_end);
/* Helpers' parameters are uniform when every call passes uniform values. */
void bx_parameters_from_calls(bx_state *st);
/* The first return in s that is not at a uniform place and may come
 * before a barrier; 0 when none. */
size_t bx_divergent_return(const bx_state *st, const bx_stmt *s,
                           int guarded);
size_t bx_end_if(const bx_stmt *s);

/* ---- cuda_barriers_read.c -------------------------------------------------- */
void bx_intern_words(bx_state *st);
/* The parameters' name tokens of f. */
void bx_read_params(bx_state *st, bx_function *f);
/* The top level: every function's definition and prototypes.  Returns 0
 * when the program is not one this phase can read (it then leaves the
 * program alone: the pass says what is wrong with it). */
int bx_read_functions(bx_state *st);
void bx_put(bx_state *st, const clc_token *t);
/* Text of the phase's own, as tokens on the line of token `anchor`. */
void bx_text(bx_state *st, const char *text, size_t anchor);
void bx_copy(bx_state *st, size_t b, size_t e);
/* The vote calls of [b, e): the prelude's, with the function's counter;
 * `active` says whether a returned thread must not vote. */
void bx_edit_votes(bx_state *st, size_t b, size_t e, int active);
/* Code that every thread runs, returned ones too: an integer division by
 * a value that may be zero divides by 1 where it is (all threads divide
 * by the same value, and one that divides by zero has no meaning in
 * CUDA either), so that threads that returned do not trap on a CPU. */
void bx_edit_divisions(bx_state *st, size_t b, size_t e);

/* ---- cuda_barriers_warp.c -------------------------------------------------- */
/* The call of a warp primitive at i, emitted as `T __kiln_t<number> =
 * <the prelude's emulation>;` (the function's scratch is __kiln_warp). */
void bx_emit_warp_call(bx_state *st, size_t i, size_t number);

/* ---- cuda_barriers_lower.c ------------------------------------------------- */
size_t bx_lockstep_at(bx_state *st, const bx_function *f);
void bx_emit_function(bx_state *st, bx_function *f);

#endif
