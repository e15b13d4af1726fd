/*
 * CUDA's barriers on OpenCL (cuda_barriers.h): a function lowered: the
 * active flag's guards between barriers, the returns that clear it,
 * synchronising calls hoisted, the lockstep order of warp-synchronous
 * code, and refusals where CUDA's meaning cannot be kept.
 */
#include "cuda_barriers_pass.h"

#include <stdio.h>

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
    /* a pointer to anything (a struct's too: a C++ method's this) */
    for (size_t k = b; k < e; ++k)
        if (bx_punct(st, k, P_STAR) || bx_punct(st, k, P_LBRACKET))
            return 1;
    for (size_t k = b; k < e; ++k) {
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
        int vote = bx_sync_word_call(st, i) || bx_warp_call(st, i);
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
        if (bx_warp_call(st, i)) {
            size_t number = ++st->labels;
            temp[i - s->head] = number;
            whole = i == s->head && st->match[i + 1] + 1 == semi;
            bx_emit_warp_call(st, i, number);
            i = st->match[i + 1];
            continue;
        }
        int vote = bx_sync_word_call(st, i);
        long callee = bx_call_at(st, i);
        if (!(vote || (callee >= 0 && st->functions[callee].sync)))
            continue;
        size_t open = i + 1, close = st->match[open];
        if (bx_range_syncs(st, open + 1, close) ||
            bx_range_warp(st, open + 1, close))
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
        /* a struct passed by value whose expression a returned thread
         * must not evaluate: into a variable of the parameter's type
         * first, zero in such a thread */
        size_t held[16] = {0};
        for (size_t p = 0, b = open + 1; g != NULL && b < close; ++p) {
            size_t e = bx_find(st, b, close, P_COMMA);
            size_t pb = 0, pe = 0;
            if (p < g->param_count)
                pb = bx_argument(st, g->open, p, &pe);
            if (!bx_harmless(st, b, e) &&
                !(pb != 0 && bx_plain_parameter(st, pb, pe, g->param_names[p]))) {
                if (pb == 0 || g->param_names[p] == 0 ||
                    p >= sizeof held / sizeof held[0])
                    bx_refuse(st, b, "cannot translate this argument of "
                                     "'%s': a value of a struct type that "
                                     "reads memory, passed by threads that "
                                     "may have returned (line %u) (read it "
                                     "into a variable first)",
                              bx_name(st, i), st->tokens[lw->f->trigger].line);
                held[p] = ++st->labels;
                for (size_t k = pb; k < pe; ++k) {
                    if (bx_is(st, k, W_const))
                        continue;
                    if (k == g->param_names[p])
                        bx_text(st, bx_printf(st, "__kiln_a%zu", held[p]), b);
                    else
                        bx_put(st, &st->tokens[k]);
                }
                bx_text(st, bx_printf(st, "= {0}; if (__kiln_active) __kiln_a%zu = (",
                                      held[p]),
                        b);
                bx_copy(st, b, e);
                bx_text(st, ");", e - 1);
            }
            b = e + 1;
        }
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
                } else if (p < sizeof held / sizeof held[0] && held[p] != 0) {
                    bx_text(st, bx_printf(st, "__kiln_a%zu", held[p]), b);
                } else {
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
    /* the condition's warp primitives run in every thread first */
    for (size_t i = s->open + 1; i < s->close; ++i) {
        if (!bx_warp_call(st, i))
            continue;
        size_t close = st->match[i + 1], temp = ++st->labels;
        bx_emit_warp_call(st, i, temp);
        st->replace[i] = bx_printf(st, "__kiln_t%zu", temp);
        for (size_t k = i + 1; k <= close; ++k)
            st->replace[k] = "";
        i = close;
    }
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

/* A loop whose trip count differs between threads, holding warp
 * primitives (BX_LOCKSTEP_LOOP): every thread iterates while some thread
 * of the block still does (a block vote on the condition), with its flag
 * cleared once its own condition fails; the step runs in the threads
 * that ran the body. */
static void bx_emit_warp_loop(bx_state *st, bx_lowering *lw, bx_stmt *s)
{
    size_t number = ++st->labels;
    bx_copy(st, s->begin, s->head); /* pragmas */
    bx_text(st, bx_printf(st, "{ int __kiln_saved_%zu = __kiln_active;", number),
            s->head);
    size_t cond_b = s->open + 1, cond_e = s->close;
    if (s->kind == BX_FOR) {
        bx_copy(st, s->open + 1, s->semi1 + 1); /* the initialiser */
        cond_b = s->semi1 + 1;
        cond_e = s->semi2;
    }
    bx_text(st, bx_printf(st, "for (;;) { int __kiln_go_%zu = __kiln_active && (",
                          number),
            s->head);
    if (cond_b < cond_e)
        bx_copy(st, cond_b, cond_e);
    else
        bx_text(st, "1", s->head);
    bx_text(st, bx_printf(st, "); if (!__kiln_syncthreads_or(__kiln_go_%zu, "
                              "__kiln_vote)) break; __kiln_active = "
                              "__kiln_go_%zu;",
                          number, number),
            s->close);
    bx_emit_nested(st, lw, s->body);
    if (s->kind == BX_FOR && s->semi2 + 1 < s->close) {
        bx_text(st, "if (__kiln_active) {", s->semi2);
        bx_copy(st, s->semi2 + 1, s->close);
        bx_text(st, "; }", s->close);
    }
    bx_text(st, bx_printf(st, "} __kiln_active = __kiln_saved_%zu; }", number),
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

size_t bx_lockstep_at(bx_state *st, const bx_function *f)
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
        size_t warp = bx_range_warp(st, s->begin, s->end);
        if (warp != 0 && (found == 0 || warp <= found))
            bx_refuse(st, warp,
                      "cannot translate '%s' %s (line %u): OpenCL has no "
                      "warps, so the translation emulates it with barriers "
                      "that every thread of the block must reach, and only "
                      "a branch (an if) that some threads skip can be made "
                      "so (every thread runs it, with a flag of whether it "
                      "entered)",
                      bx_name(st, warp),
                      s->kind == BX_SWITCH ? "inside a switch"
                      : s->kind == BX_IF
                          ? "in the condition of an if, or under a condition "
                            "inside an expression"
                      : s->divergent_jump
                          ? "in a loop that a break or continue leaves in "
                            "only some threads"
                      : s->kind == BX_DO
                          ? "in a do loop whose trip count is not the same "
                            "in every thread of the block"
                          : "in a loop whose trip count is not the same in "
                            "every thread of the block, and that a return, "
                            "break, continue or goto leaves, or with a warp "
                            "primitive in its condition",
                      st->tokens[s->head].line);
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
        s->cls == BX_LOCKSTEP_LOOP ||
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
    case BX_LOCKSTEP_LOOP:
        bx_close_guard(st, lw, s->begin);
        bx_emit_warp_loop(st, lw, s);
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

void bx_emit_function(bx_state *st, bx_function *f)
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
