/*
 * The C++ phase's constant expressions (see cxx_internal.h): template
 * arguments, array bounds, enumerators, static_assert and if constexpr
 * conditions, constexpr variables and static members, and calls of
 * constexpr functions, which are interpreted: returns, if, blocks, local
 * variables, loops and assignments to them, as C++14 allows.  What it
 * cannot evaluate is "not known"; the caller decides whether that is a
 * refusal.
 */
#include "cxx_internal.h"

#include <string.h>

#define CX_EVAL_DEPTH 64
#define CX_EVAL_STEPS 100000

static cx_value cx_unknown(void)
{
    cx_value v;
    memset(&v, 0, sizeof v);
    return v;
}

static cx_value cx_int_value(cx_state *st, long long i, const cx_type *type)
{
    cx_value v = {.known = 1, .i = i, .type = type};
    return cx_convert_value(st, v, type);
}

cx_value cx_convert_value(cx_state *st, cx_value v, const cx_type *to)
{
    if (!v.known)
        return v;
    to = cx_unqualified(st, cx_strip_ref(to));
    if (to == NULL)
        return v;
    if (to->kind == CXT_ENUM)
        to = to->decl->type ? to->decl->type : cx_scalar(st, CXT_INT);
    if (cx_is_floating(to)) {
        if (!v.is_float)
            v.f = cx_is_unsigned(v.type) ? (double)(unsigned long long)v.i
                                         : (double)v.i;
        if (to->kind == CXT_FLOAT)
            v.f = (double)(float)v.f;
        v.is_float = 1;
        v.type = to;
        return v;
    }
    if (!cx_is_integral(to)) {
        v.type = to;
        return v;
    }
    if (v.is_float) {
        v.i = (long long)v.f; /* truncation, as C++ converts */
        v.is_float = 0;
    }
    size_t bytes = cx_sizeof(st, to);
    if (to->kind == CXT_BOOL) {
        v.i = v.i != 0;
    } else if (bytes < 8) {
        unsigned long long mask = (1ull << (bytes * 8)) - 1;
        unsigned long long bits = (unsigned long long)v.i & mask;
        if (!cx_is_unsigned(to) && (bits >> (bytes * 8 - 1)) & 1)
            bits |= ~mask;
        v.i = (long long)bits;
    }
    v.type = to;
    return v;
}

int cx_value_truth(cx_value v)
{
    return v.is_float ? v.f != 0 : v.i != 0;
}

static cx_value cx_binary_value(cx_state *st, int op, cx_value a, cx_value b)
{
    if (!a.known || !b.known)
        return cx_unknown();
    if (op == P_ANDAND || op == P_OROR) {
        int r = op == P_ANDAND ? cx_value_truth(a) && cx_value_truth(b)
                               : cx_value_truth(a) || cx_value_truth(b);
        return cx_int_value(st, r, cx_scalar(st, CXT_BOOL));
    }
    if (op == P_SHL || op == P_SHR) {
        if (a.is_float || b.is_float || b.i < 0 || b.i >= 64)
            return cx_unknown();
        const cx_type *t = cx_promote(st, a.type ? a.type : cx_scalar(st, CXT_INT));
        a = cx_convert_value(st, a, t);
        long long r;
        if (op == P_SHL)
            r = (long long)((unsigned long long)a.i << b.i);
        else if (cx_is_unsigned(t))
            r = (long long)((unsigned long long)a.i >> b.i);
        else
            r = a.i >> b.i;
        return cx_int_value(st, r, t);
    }
    const cx_type *t = cx_arith_common(st, a.type ? a.type : cx_scalar(st, CXT_INT),
                                       b.type ? b.type : cx_scalar(st, CXT_INT));
    if (t == NULL)
        return cx_unknown();
    a = cx_convert_value(st, a, t);
    b = cx_convert_value(st, b, t);
    const cx_type *boolean = cx_scalar(st, CXT_BOOL);
    if (cx_is_floating(t)) {
        double x = a.f, y = b.f;
        cx_value r = {.known = 1, .is_float = 1, .type = t};
        switch (op) {
        case P_PLUS: r.f = x + y; break;
        case P_MINUS: r.f = x - y; break;
        case P_STAR: r.f = x * y; break;
        case P_SLASH: r.f = x / y; break;
        case P_LT: return cx_int_value(st, x < y, boolean);
        case P_GT: return cx_int_value(st, x > y, boolean);
        case P_LE: return cx_int_value(st, x <= y, boolean);
        case P_GE: return cx_int_value(st, x >= y, boolean);
        case P_EQ: return cx_int_value(st, x == y, boolean);
        case P_NE: return cx_int_value(st, x != y, boolean);
        default: return cx_unknown();
        }
        return cx_convert_value(st, r, t);
    }
    int u = cx_is_unsigned(t);
    unsigned long long x = (unsigned long long)a.i, y = (unsigned long long)b.i;
    long long r;
    switch (op) {
    case P_PLUS: r = (long long)(x + y); break;
    case P_MINUS: r = (long long)(x - y); break;
    case P_STAR: r = (long long)(x * y); break;
    case P_SLASH:
        if (y == 0)
            return cx_unknown();
        r = u ? (long long)(x / y) : a.i / b.i;
        break;
    case P_PERCENT:
        if (y == 0)
            return cx_unknown();
        r = u ? (long long)(x % y) : a.i % b.i;
        break;
    case P_AMP: r = (long long)(x & y); break;
    case P_PIPE: r = (long long)(x | y); break;
    case P_CARET: r = (long long)(x ^ y); break;
    case P_LT: return cx_int_value(st, u ? x < y : a.i < b.i, boolean);
    case P_GT: return cx_int_value(st, u ? x > y : a.i > b.i, boolean);
    case P_LE: return cx_int_value(st, u ? x <= y : a.i <= b.i, boolean);
    case P_GE: return cx_int_value(st, u ? x >= y : a.i >= b.i, boolean);
    case P_EQ: return cx_int_value(st, x == y, boolean);
    case P_NE: return cx_int_value(st, x != y, boolean);
    default: return cx_unknown();
    }
    return cx_int_value(st, r, t);
}

static int cx_assign_op(int op)
{
    switch (op) {
    case P_ADD_ASSIGN: return P_PLUS;
    case P_SUB_ASSIGN: return P_MINUS;
    case P_MUL_ASSIGN: return P_STAR;
    case P_DIV_ASSIGN: return P_SLASH;
    case P_MOD_ASSIGN: return P_PERCENT;
    case P_SHL_ASSIGN: return P_SHL;
    case P_SHR_ASSIGN: return P_SHR;
    case P_AND_ASSIGN: return P_AMP;
    case P_OR_ASSIGN: return P_PIPE;
    case P_XOR_ASSIGN: return P_CARET;
    default: return 0;
    }
}

/* ---- constexpr functions ------------------------------------------------------ */

typedef struct cx_interp {
    cx_state *st;
    unsigned steps;
    int returned;
    cx_value result;
    int failed;
} cx_interp;

static cx_value cx_eval_in(cx_state *st, cx_body *body, const cx_expr *e,
                           cx_interp *in);

/* Runs the statement at `i` in `scope`; the index after it. */
static size_t cx_interp_statement(cx_interp *in, cx_scope *scope, size_t i,
                                  size_t end);

static cx_value cx_interp_expr(cx_interp *in, cx_scope *scope, size_t at,
                               size_t end, size_t *after)
{
    cx_body ctx = {0};
    ctx.scope = scope;
    cx_expr *e = cx_parse_expr(in->st, &ctx, at, end, 1, after);
    return cx_eval_in(in->st, &ctx, e, in);
}

static size_t cx_interp_block(cx_interp *in, cx_scope *parent, size_t open)
{
    cx_state *st = in->st;
    size_t close = st->match[open];
    cx_scope *scope = cx_scope_new(st, CXS_BLOCK, parent, NULL);
    size_t i = open + 1;
    while (i < close && !in->returned && !in->failed)
        i = cx_interp_statement(in, scope, i, close);
    return close + 1;
}

static size_t cx_statement_skip(cx_state *st, size_t i, size_t end)
{
    if (cx_punct(st, i, P_LBRACE))
        return st->match[i] + 1;
    if (cx_is(st, i, st->w.if_)) {
        size_t k = st->match[i + 1] + 1;
        k = cx_statement_skip(st, k, end);
        if (cx_is(st, k, W_else))
            k = cx_statement_skip(st, k + 1, end);
        return k;
    }
    if (cx_is(st, i, W_for) || cx_is(st, i, W_while))
        return cx_statement_skip(st, st->match[i + 1] + 1, end);
    while (i < end && !cx_punct(st, i, P_SEMI)) {
        if (cx_is_open(st, i))
            i = st->match[i];
        ++i;
    }
    return i + 1;
}

static size_t cx_interp_statement(cx_interp *in, cx_scope *scope, size_t i,
                                  size_t end)
{
    cx_state *st = in->st;
    if (++in->steps > CX_EVAL_STEPS) {
        in->failed = 1;
        return end;
    }
    if (cx_punct(st, i, P_SEMI) || st->tokens[i].kind == CLC_TOK_PRAGMA)
        return i + 1;
    if (cx_punct(st, i, P_LBRACE))
        return cx_interp_block(in, scope, i);
    if (cx_is(st, i, W_return)) {
        size_t after;
        in->result = cx_punct(st, i + 1, P_SEMI)
                         ? cx_unknown()
                         : cx_interp_expr(in, scope, i + 1, end, &after);
        in->returned = 1;
        if (!in->result.known)
            in->failed = 1;
        return end;
    }
    if (cx_is(st, i, st->w.if_)) {
        size_t k = i + 1;
        if (cx_is(st, k, st->w.constexpr_))
            ++k;
        if (!cx_punct(st, k, P_LPAREN)) {
            in->failed = 1;
            return end;
        }
        size_t close = st->match[k], after;
        cx_value c = cx_interp_expr(in, scope, k + 1, close, &after);
        if (!c.known) {
            in->failed = 1;
            return end;
        }
        size_t then_end = cx_statement_skip(st, close + 1, end);
        size_t stop = then_end;
        if (cx_is(st, then_end, W_else))
            stop = cx_statement_skip(st, then_end + 1, end);
        if (cx_value_truth(c))
            cx_interp_statement(in, scope, close + 1, then_end);
        else if (stop != then_end)
            cx_interp_statement(in, scope, then_end + 1, stop);
        return stop;
    }
    if (cx_is(st, i, W_while) || cx_is(st, i, W_for)) {
        int is_for = cx_is(st, i, W_for);
        size_t open = i + 1, close = st->match[open];
        size_t body = close + 1, stop = cx_statement_skip(st, body, end);
        cx_scope *loop = cx_scope_new(st, CXS_BLOCK, scope, NULL);
        size_t cond_begin = open + 1, cond_end = close, step_begin = 0;
        if (is_for) {
            size_t semi = cx_interp_statement(in, loop, open + 1, close);
            cond_begin = semi;
            cond_end = semi;
            while (cond_end < close && !cx_punct(st, cond_end, P_SEMI))
                ++cond_end;
            step_begin = cond_end + 1;
        }
        for (;;) {
            if (in->failed || in->returned || ++in->steps > CX_EVAL_STEPS) {
                in->failed |= !in->returned;
                return stop;
            }
            if (cond_end > cond_begin) {
                size_t after;
                cx_value c = cx_interp_expr(in, loop, cond_begin, cond_end, &after);
                if (!c.known) {
                    in->failed = 1;
                    return stop;
                }
                if (!cx_value_truth(c))
                    break;
            }
            cx_interp_statement(in, loop, body, stop);
            if (is_for && step_begin < close) {
                size_t after;
                cx_interp_expr(in, loop, step_begin, close, &after);
            }
        }
        return stop;
    }
    /* a declaration of local variables */
    cx_body ctx = {0};
    ctx.scope = scope;
    if (cx_starts_type(st, &ctx, i) || cx_is(st, i, st->w.constexpr_) ||
        cx_is(st, i, W_const) || cx_is(st, i, W_static)) {
        cx_specs specs;
        size_t k = cx_parse_specs(st, &ctx, i, end, &specs);
        for (;;) {
            cx_declarator d;
            k = cx_parse_declarator(st, &ctx, k, end, specs.type, &d);
            if (d.name == 0 || !cx_punct(st, k, P_ASSIGN)) {
                in->failed = 1;
                return end;
            }
            size_t after;
            cx_body inner = ctx;
            cx_expr *e = cx_parse_assign(st, &inner, k + 1, end, &after);
            cx_value v = cx_eval_in(st, &inner, e, in);
            const cx_type *type = d.type;
            if (type != NULL && type->kind == CXT_AUTO)
                type = v.type;
            cx_decl *var = cx_decl_new(st, CXD_VALUE, st->tokens[d.name].ident,
                                       d.name);
            var->type = cx_unqualified(st, type);
            var->value = cx_convert_value(st, v, type);
            if (!var->value.known) {
                in->failed = 1;
                return end;
            }
            cx_declare(st, scope, var);
            k = after;
            if (cx_punct(st, k, P_COMMA)) {
                ++k;
                continue;
            }
            return k + 1;
        }
    }
    if (cx_is(st, i, W_static_assert))
        return cx_statement_skip(st, i, end);
    /* an expression statement: assignments to locals */
    size_t after;
    cx_value v = cx_interp_expr(in, scope, i, end, &after);
    (void)v;
    if (!cx_punct(st, after, P_SEMI)) {
        in->failed = 1;
        return end;
    }
    return after + 1;
}

static cx_value cx_call_constexpr(cx_state *st, cx_decl *decl,
                                  const cx_value *args, size_t argc)
{
    cx_function *fn = decl->fn;
    if (!(decl->flags & CXF_CONSTEXPR) || fn->body_open == 0 ||
        st->eval_depth >= CX_EVAL_DEPTH || argc > fn->param_count)
        return cx_unknown();
    cx_scope *scope = cx_scope_new(st, CXS_FUNCTION, fn->scope, decl);
    for (size_t k = 0; k < fn->param_count; ++k) {
        cx_value v;
        if (k < argc) {
            v = args[k];
        } else if (fn->params[k].default_begin != 0) {
            v = cx_eval_tokens(st, fn->scope, fn->params[k].default_begin,
                               fn->params[k].default_end);
        } else {
            return cx_unknown();
        }
        if (!v.known)
            return cx_unknown();
        cx_decl *p = cx_decl_new(st, CXD_VALUE, fn->params[k].name,
                                 fn->params[k].name_token);
        p->type = cx_unqualified(st, cx_strip_ref(fn->params[k].type));
        p->value = cx_convert_value(st, v, p->type);
        cx_declare(st, scope, p);
    }
    cx_interp in = {st, 0, 0, {0}, 0};
    st->eval_depth++;
    cx_interp_block(&in, scope, fn->body_open);
    st->eval_depth--;
    if (in.failed || !in.returned)
        return cx_unknown();
    return cx_convert_value(st, in.result, fn->result);
}

/* ---- expressions ----------------------------------------------------------------- */

cx_value cx_decl_value(cx_state *st, cx_decl *decl)
{
    decl = cx_resolve(decl);
    if (decl == NULL)
        return cx_unknown();
    if (decl->kind == CXD_ENUMERATOR || decl->kind == CXD_VALUE)
        return decl->value;
    if (decl->kind != CXD_VAR || decl->value.known)
        return decl->value;
    const cx_type *type = decl->type;
    int constant = (decl->flags & CXF_CONSTEXPR) ||
                   (type != NULL && (type->quals & CXQ_CONST));
    if (!constant || decl->init_begin == 0 || (decl->flags & CXF_EVALUATING) ||
        type == NULL || !(cx_is_arithmetic(type) || type->kind == CXT_ENUM))
        return cx_unknown();
    decl->flags |= CXF_EVALUATING;
    size_t begin = decl->init_begin, end = decl->init_end;
    if ((cx_punct(st, begin, P_LBRACE) || decl->init_paren) &&
        st->match[begin] + 1 == end) {
        ++begin;
        --end;
    }
    cx_value v = cx_eval_tokens(st, decl->init_scope, begin, end);
    decl->flags &= ~(uint32_t)CXF_EVALUATING;
    if (v.known) {
        decl->value = cx_convert_value(st, v, type);
        return decl->value;
    }
    return v;
}

cx_value cx_eval_tokens(cx_state *st, cx_scope *scope, size_t begin, size_t end)
{
    if (begin >= end)
        return cx_unknown();
    cx_body ctx = {0};
    ctx.scope = scope;
    size_t after;
    cx_expr *e = cx_parse_expr(st, &ctx, begin, end, 1, &after);
    if (after != end)
        return cx_unknown();
    return cx_eval(st, &ctx, e);
}

/* An assignment to a local of a constexpr function being run. */
static cx_value cx_eval_store(cx_state *st, cx_body *body, const cx_expr *e,
                              cx_interp *in)
{
    const cx_expr *target = e->a;
    while (target->kind == CXE_PAREN)
        target = target->a;
    if (in == NULL || target->kind != CXE_NAME || target->decl == NULL ||
        target->decl->kind != CXD_VALUE)
        return cx_unknown();
    cx_decl *var = target->decl;
    cx_value v;
    if (e->kind == CXE_ASSIGN) {
        cx_value r = cx_eval_in(st, body, e->b, in);
        int op = cx_assign_op(e->op);
        v = op ? cx_binary_value(st, op, var->value, r) : r;
    } else {
        /* ++ and -- */
        cx_value one = cx_int_value(st, 1, cx_scalar(st, CXT_INT));
        cx_value old = var->value;
        v = cx_binary_value(st, e->op == P_INC ? P_PLUS : P_MINUS, old, one);
        var->value = cx_convert_value(st, v, var->type);
        return e->kind == CXE_POSTFIX ? old : var->value;
    }
    if (!v.known)
        return v;
    var->value = cx_convert_value(st, v, var->type);
    return var->value;
}

static cx_value cx_eval_in(cx_state *st, cx_body *body, const cx_expr *e,
                           cx_interp *in)
{
    if (e == NULL)
        return cx_unknown();
    switch (e->kind) {
    case CXE_LITERAL:
        return e->value;
    case CXE_PAREN:
        return cx_eval_in(st, body, e->a, in);
    case CXE_NAME:
        if (e->decl == NULL)
            return cx_unknown();
        return cx_decl_value(st, e->decl);
    case CXE_MEMBER:
        /* obj.static_member */
        if (e->decl != NULL && e->decl->kind == CXD_VAR)
            return cx_decl_value(st, e->decl);
        return cx_unknown();
    case CXE_UNARY: {
        if (e->op == P_INC || e->op == P_DEC)
            return cx_eval_store(st, body, e, in);
        if (e->decl != NULL)
            return cx_unknown(); /* an overloaded operator */
        cx_value a = cx_eval_in(st, body, e->a, in);
        if (!a.known)
            return a;
        switch (e->op) {
        case P_PLUS:
            return cx_convert_value(st, a, e->type);
        case P_MINUS:
            if (a.is_float) {
                a.f = -a.f;
                return a;
            }
            return cx_int_value(st, -a.i, e->type ? e->type : a.type);
        case P_TILDE:
            return cx_int_value(st, ~a.i, e->type ? e->type : a.type);
        case P_NOT:
            return cx_int_value(st, !cx_value_truth(a), cx_scalar(st, CXT_BOOL));
        default:
            return cx_unknown();
        }
    }
    case CXE_POSTFIX:
        return cx_eval_store(st, body, e, in);
    case CXE_ASSIGN:
        return cx_eval_store(st, body, e, in);
    case CXE_BINARY: {
        if (e->decl != NULL)
            return cx_unknown();
        if (e->op == P_COMMA) {
            cx_eval_in(st, body, e->a, in);
            return cx_eval_in(st, body, e->b, in);
        }
        cx_value a = cx_eval_in(st, body, e->a, in);
        if (e->op == P_ANDAND && a.known && !cx_value_truth(a))
            return cx_int_value(st, 0, cx_scalar(st, CXT_BOOL));
        if (e->op == P_OROR && a.known && cx_value_truth(a))
            return cx_int_value(st, 1, cx_scalar(st, CXT_BOOL));
        cx_value b = cx_eval_in(st, body, e->b, in);
        return cx_binary_value(st, e->op, a, b);
    }
    case CXE_COND: {
        cx_value c = cx_eval_in(st, body, e->a, in);
        if (!c.known)
            return c;
        cx_value v = cx_eval_in(st, body, cx_value_truth(c) ? e->b : e->c, in);
        return e->type != NULL ? cx_convert_value(st, v, e->type) : v;
    }
    case CXE_CAST:
        return cx_convert_value(st, cx_eval_in(st, body, e->a, in), e->cast_type);
    case CXE_CONSTRUCT:
        if (e->argc == 1 && e->cast_type != NULL &&
            (cx_is_arithmetic(e->cast_type) || e->cast_type->kind == CXT_ENUM))
            return cx_convert_value(st, cx_eval_in(st, body, e->args[0], in),
                                    e->cast_type);
        if (e->argc == 0 && cx_is_arithmetic(e->cast_type))
            return cx_int_value(st, 0, e->cast_type);
        return cx_unknown();
    case CXE_SIZEOF: {
        const cx_type *t = e->cast_type ? e->cast_type : (e->a ? e->a->type : NULL);
        if (t == NULL)
            return cx_unknown();
        size_t n = e->is_sizeof ? cx_sizeof(st, t) : cx_alignof(st, t);
        if (n == 0)
            return cx_unknown();
        return cx_int_value(st, (long long)n, st->size_type);
    }
    case CXE_CALL: {
        if (e->decl == NULL || e->decl->kind != CXD_FUNCTION)
            return cx_unknown();
        cx_value args[16];
        if (e->argc > 16)
            return cx_unknown();
        for (size_t k = 0; k < e->argc; ++k) {
            args[k] = cx_eval_in(st, body, e->args[k], in);
            if (!args[k].known)
                return args[k];
        }
        return cx_call_constexpr(st, e->decl, args, e->argc);
    }
    default:
        return cx_unknown();
    }
}

cx_value cx_eval(cx_state *st, cx_body *body, const cx_expr *expr)
{
    return cx_eval_in(st, body, expr, NULL);
}

void cx_static_assert(cx_state *st, cx_scope *scope, size_t at)
{
    size_t open = at + 1;
    if (!cx_punct(st, open, P_LPAREN))
        cx_fail(st, at, "'static_assert' without '('");
    size_t close = st->match[open];
    cx_body ctx = {0};
    ctx.scope = scope;
    size_t after;
    cx_expr *e = cx_parse_assign(st, &ctx, open + 1, close, &after);
    if (after != close && !cx_punct(st, after, P_COMMA))
        cx_fail(st, after, "',' or ')' was expected in static_assert");
    cx_value v = cx_eval(st, &ctx, e);
    if (!v.known)
        cx_refuse(st, at, "cannot translate this static_assert: its condition "
                          "is not a constant this translation can evaluate");
    if (!cx_value_truth(v))
        cx_fail(st, at, "static assertion failed%s%s", after < close ? ": " : "",
                after < close ? cx_spelling(st, after + 1) : "");
}
