/*
 * CUDA's barriers on OpenCL (cuda_barriers.h): a synchronising function's
 * body parsed into statements, what synchronises, and each statement's
 * class (which threads run it) given what is uniform.
 */
#include "cuda_barriers_pass.h"
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
bx_stmt *bx_parse(bx_state *st, size_t i, size_t end, unsigned depth)
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

int bx_range_syncs(const bx_state *st, size_t b, size_t e)
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
int bx_range_lockstep_calls(const bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        if (bx_word(st, i) == BX_W_WARP_BARRIER && bx_punct(st, i + 1, P_LPAREN))
            return 1;
        if (bx_warp_call(st, i))
            return 1;
        long callee = bx_call_at(st, i);
        if (callee >= 0 && st->functions[callee].lockstep)
            return 1;
    }
    return 0;
}

/* __syncwarp() and calls of functions with warp-synchronous code, but
 * not warp primitives (a condition's are hoisted before it). */
int bx_range_lockstep_functions(const bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i)
        if (!bx_warp_call(st, i) && bx_range_lockstep_calls(st, i, i + 1))
            return 1;
    return 0;
}

/* A store into warp-synchronous memory, [b, e) a statement without its
 * ';' (`sdata[tid] += sdata[tid + 16]`, `*p = v`, a volatile __shared__
 * scalar): its assignment operator's index, 0 when it is not one. */
size_t bx_lockstep_store(bx_state *st, size_t b, size_t e)
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
int bx_lockstep_direct(bx_state *st, const bx_stmt *s)
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

void bx_mark_sync(bx_state *st, bx_stmt *s)
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
void bx_mark_place(bx_state *st, bx_stmt *s, int after_sync, int at_end)
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


/* A break or continue under guarded code that leaves or restarts `loop`. */
static int bx_divergent_jump(const bx_stmt *s, int guarded, int in_switch)
{
    if (s->cls == BX_GUARDED || s->cls == BX_DIVERGENT ||
        s->cls == BX_LOCKSTEP_IF || s->cls == BX_END_IF ||
        s->cls == BX_LOCKSTEP_LOOP)
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

/* A return, or a break or continue of s's own loop, inside s. */
static int bx_jumps(const bx_stmt *s, int in_loop)
{
    switch (s->kind) {
    case BX_RETURN: case BX_GOTO:
        return 1;
    case BX_BREAK: case BX_CONTINUE:
        return !in_loop;
    case BX_FOR: case BX_WHILE: case BX_DO: case BX_SWITCH:
        return bx_jumps(s->body, 1);
    default:
        break;
    }
    if ((s->body && bx_jumps(s->body, in_loop)) ||
        (s->other && bx_jumps(s->other, in_loop)))
        return 1;
    for (size_t k = 0; k < s->item_count; ++k)
        if (bx_jumps(s->items[k], in_loop))
            return 1;
    return 0;
}

/* A for or while whose trip count is not uniform, that holds warp
 * primitives and no barrier (BX_LOCKSTEP_LOOP): no jumps of its own, no
 * synchronising calls in its header, an initialiser every thread may
 * evaluate. */
int bx_warp_loop(bx_state *st, const bx_stmt *s)
{
    if ((s->kind != BX_FOR && s->kind != BX_WHILE) || !s->sync || s->hard ||
        bx_range_lockstep_calls(st, s->open + 1, s->close) ||
        bx_range_syncs(st, s->open + 1, s->close) || bx_jumps(s->body, 0) ||
        bx_lockstep_direct(st, s->body))
        return 0;
    /* warp primitives only: volatile warp-synchronous code stays refused */
    for (size_t k = s->body->begin; k < s->body->end; ++k) {
        long callee = bx_call_at(st, k);
        if (callee >= 0 && st->functions[callee].lockstep_memory)
            return 0;
    }
    if (s->kind == BX_FOR) {
        for (size_t k = s->open + 1; k < s->semi1; ++k)
            if (bx_punct(st, k, P_LBRACKET) || bx_punct(st, k, P_ARROW) ||
                (bx_punct(st, k, P_STAR) && !bx_after_operand(st, k, s->open + 1)) ||
                (bx_ident(st, k) && bx_punct(st, k + 1, P_LPAREN) &&
                 bx_word(st, k) != BX_W_PURE && bx_word(st, k) != BX_W_TYPE &&
                 bx_word(st, k) != BX_W_CAST))
                return 0;
    }
    return 1;
}

/* Only active threads run s: every local it touches varies. */
static void bx_guard(bx_state *st, bx_stmt *s, bx_class cls)
{
    s->cls = cls;
    bx_spoil(st, s->begin, s->end);
}

/* Decides what s is, at a place every thread reaches (see bx_class). */
void bx_classify(bx_state *st, bx_function *f, bx_stmt *s)
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
            !bx_range_lockstep_functions(st, s->open + 1, s->close)) {
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
        if (bx_warp_loop(st, s)) {
            /* every local it touches varies: threads leave it at
             * different iterations */
            s->cls = BX_LOCKSTEP_LOOP;
            bx_spoil(st, s->begin, s->end);
            f->uses_votes = 1;
            bx_classify(st, f, s->body);
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
size_t bx_argument(const bx_state *st, size_t open, size_t index,
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
void bx_parameters_from_calls(bx_state *st)
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
size_t bx_divergent_return(const bx_state *st, const bx_stmt *s,
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

size_t bx_end_if(const bx_stmt *s)
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
