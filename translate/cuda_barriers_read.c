/*
 * CUDA's barriers on OpenCL (cuda_barriers.h): the program read into
 * functions (their parameters, what they call), and the output: tokens
 * copied, inserted and edited (votes, divisions).
 */
#include "cuda_barriers_pass.h"

#include <stdio.h>
#include <string.h>

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

/* ---- reading the program --------------------------------------------------------- */

void bx_intern_words(bx_state *st)
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
        {"__shfl_sync", BX_W_WARP}, {"__shfl_up_sync", BX_W_WARP},
        {"__shfl_down_sync", BX_W_WARP}, {"__shfl_xor_sync", BX_W_WARP},
        {"__ballot_sync", BX_W_WARP}, {"__any_sync", BX_W_WARP},
        {"__all_sync", BX_W_WARP}, {"__activemask", BX_W_WARP},
        {"__reduce_add_sync", BX_W_WARP}, {"__reduce_min_sync", BX_W_WARP},
        {"__reduce_max_sync", BX_W_WARP}, {"__reduce_and_sync", BX_W_WARP},
        {"__reduce_or_sync", BX_W_WARP}, {"__reduce_xor_sync", BX_W_WARP},
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
void bx_read_params(bx_state *st, bx_function *f)
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
int bx_read_functions(bx_state *st)
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
                           (bx_punct(st, t - 1, P_STAR) &&
                            !bx_after_operand(st, t - 1, fn->body_open + 1)))))
                continue;
            fn->calls = bx_grow(st, fn->calls, fn->call_count, sizeof *fn->calls);
            fn->calls[fn->call_count++] = (bx_call){t, (size_t)callee};
        }
    }
    return 1;
}

/* ---- output ---------------------------------------------------------------------- */

void bx_put(bx_state *st, const clc_token *t)
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
void bx_text(bx_state *st, const char *text, size_t anchor)
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

void bx_copy(bx_state *st, size_t b, size_t e)
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
void bx_edit_votes(bx_state *st, size_t b, size_t e, int active)
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
void bx_edit_divisions(bx_state *st, size_t b, size_t e)
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
