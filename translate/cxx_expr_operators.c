/*
 * The C++ phase's primary expressions, unary and binary operators, casts,
 * the conditional and assignments, and the parser's entry points (see
 * cxx_internal.h; names, calls, members and subscripts are cxx_expr.c's).
 */
#include "cxx_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- primary ------------------------------------------------------------------------ */

static cx_expr *cx_named_cast(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    int32_t id = st->tokens[i].ident;
    if (id == st->w.dynamic_cast_)
        cx_refuse(st, i, "cannot translate 'dynamic_cast': no run-time type "
                         "information in device code");
    if (!cx_punct(st, i + 1, P_LT))
        cx_fail(st, i, "'%s' without '<'", cx_spelling(st, i));
    const cx_type *type = NULL;
    cx_body inner = *p->body;
    inner.edits = NULL;
    size_t after = cx_parse_type_id(st, &inner, i + 2, p->end, &type);
    if (type == NULL || (!cx_punct(st, after, P_GT) && !cx_punct(st, after, P_SHR)))
        cx_fail(st, i + 2, "a type was expected in '%s<...>'", cx_spelling(st, i));
    if (!cx_punct(st, after + 1, P_LPAREN))
        cx_fail(st, after, "'(' was expected after '%s<...>'", cx_spelling(st, i));
    size_t open = after + 1, close = st->match[open];
    cx_parser in = *p;
    in.end = close;
    cx_expr *operand = cx_full_expr(&in, open + 1);
    if (cx_expr_end(operand) != close)
        cx_fail(st, cx_expr_end(operand), "')' was expected");
    cx_expr *e = cx_node(p, CXE_CAST, i);
    e->a = operand;
    e->cast_type = type;
    e->op_token = i + 1;   /* '<' */
    e->name_first = after; /* '>' */
    e->last = close;
    if (type->kind == CXT_LREF || type->kind == CXT_RREF) {
        e->type = type->base;
        e->lvalue = type->kind == CXT_LREF;
    } else {
        e->type = cx_unqualified(st, type);
    }
    return e;
}

static cx_expr *cx_primary(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    if (i >= p->end)
        cx_fail(st, i < st->count ? i : (st->count ? st->count - 1 : 0),
                "an expression was expected");
    const clc_token *t = &st->tokens[i];
    switch (t->kind) {
    case CLC_TOK_NUMBER:
        return cx_number(p, i);
    case CLC_TOK_CHAR: {
        cx_expr *e = cx_node(p, CXE_LITERAL, i);
        e->type = cx_scalar(st, CXT_CHAR);
        e->value.known = 1;
        e->value.i = cx_char_value(t->text, t->length);
        e->value = cx_convert_value(st, e->value, e->type);
        return e;
    }
    case CLC_TOK_STRING: {
        cx_expr *e = cx_node(p, CXE_STRING, i);
        size_t n = 0, k = i;
        while (k < p->end && st->tokens[k].kind == CLC_TOK_STRING) {
            n += st->tokens[k].length;
            ++k;
        }
        e->last = k - 1;
        e->type = cx_array(st, cx_qualified(st, cx_scalar(st, CXT_CHAR), CXQ_CONST),
                           (long long)n);
        e->lvalue = 1;
        return e;
    }
    case CLC_TOK_PUNCT:
        if (t->punct == P_LPAREN) {
            size_t close = st->match[i];
            cx_parser inner = *p;
            inner.end = close;
            cx_body in = *p->body;
            in.in_template_args = 0;
            inner.body = &in;
            cx_expr *a = cx_full_expr(&inner, i + 1);
            if (cx_expr_end(a) != close)
                cx_fail(st, cx_expr_end(a), "')' was expected");
            cx_expr *e = cx_node(p, CXE_PAREN, i);
            e->a = a;
            e->last = close;
            e->type = a->type;
            e->lvalue = a->lvalue;
            e->value = a->value;
            return e;
        }
        if (t->punct == P_LBRACKET)
            cx_refuse(st, i, "cannot translate a lambda: lambdas are not "
                             "supported by the OpenCL translation");
        if (t->punct == P_COLON && cx_scope_op(st, i))
            return cx_name_expr(p, i);
        if (t->punct == P_LBRACE)
            return cx_parse_init_list(st, p->body, i);
        cx_fail(st, i, "an expression was expected, not '%s'", t->text);
    case CLC_TOK_IDENT:
        break;
    default:
        cx_fail(st, i, "an expression was expected");
    }
    int32_t id = t->ident;
    if (id == W_true || id == W_false) {
        cx_expr *e = cx_node(p, CXE_LITERAL, i);
        e->type = cx_scalar(st, CXT_BOOL);
        e->value.known = 1;
        e->value.i = id == W_true;
        e->value.type = e->type;
        return e;
    }
    if (id == st->w.nullptr_) {
        cx_expr *e = cx_node(p, CXE_LITERAL, i);
        e->type = cx_scalar(st, CXT_NULLPTR);
        e->value.known = 1;
        e->value.type = e->type;
        return e;
    }
    if (id == st->w.this_) {
        cx_expr *e = cx_node(p, CXE_THIS, i);
        if (p->body->record == NULL)
            cx_fail(st, i, "'this' outside a member function");
        const cx_type *r = cx_record_type(st, p->body->record);
        if (p->body->is_const)
            r = cx_qualified(st, r, CXQ_CONST);
        e->type = cx_pointer(st, r);
        return e;
    }
    if (id == st->w.static_cast_ || id == st->w.reinterpret_cast_ ||
        id == st->w.const_cast_ || id == st->w.dynamic_cast_)
        return cx_named_cast(p, i);
    if (id == st->w.new_ || id == st->w.delete_)
        cx_refuse(st, i, "cannot translate '%s': dynamic memory is not "
                         "supported in device code",
                  cx_spelling(st, i));
    if (id == st->w.throw_)
        cx_refuse(st, i, "cannot translate 'throw': exceptions are not "
                         "supported in device code");
    if (id == st->w.typeid_)
        cx_refuse(st, i, "cannot translate 'typeid': no run-time type "
                         "information in device code");
    if (id == W_asm || id == W___asm__ || id == W___asm)
        cx_refuse(st, i, "cannot translate '%s': inline PTX assembly is not "
                         "supported by OpenCL C",
                  cx_spelling(st, i));
    /* a builtin type's functional cast: float(x), unsigned int(x) is not C++ */
    cx_body in = *p->body;
    in.edits = NULL;
    if (cx_starts_type(st, &in, i) && !cx_ident(st, i + 1) &&
        (id == W_void || id == W_char || id == W_short || id == W_int ||
         id == W_long || id == W_float || id == W_double || id == W_bool ||
         id == W_signed || id == W_unsigned || id == st->w.decltype_ ||
         id == st->w.typename_)) {
        cx_specs specs;
        size_t after = cx_parse_specs(st, &in, i, p->end, &specs);
        cx_expr *e = cx_node(p, CXE_TYPE, i);
        e->cast_type = specs.type;
        e->last = after - 1;
        return e;
    }
    return cx_name_expr(p, i);
}

/* ---- unary and casts -------------------------------------------------------------- */

static cx_expr *cx_make_unary(cx_parser *p, int op, size_t at, cx_expr *a)
{
    cx_state *st = p->st;
    cx_expr *e = cx_node(p, CXE_UNARY, at);
    e->a = a;
    e->op = (uint8_t)op;
    e->op_token = at;
    e->last = a->last;
    const cx_type *t = cx_strip_ref(a->type);
    if (op != P_AMP && t != NULL && cx_is_class(t) && t->kind != CXT_ENUM &&
        !(op == P_STAR && 0)) {
        cx_decl *fn = cx_find_operator(st, p->body, cx_op_of_punct(op, 1), a,
                                       NULL, at);
        if (fn != NULL) {
            e->decl = fn;
            e->call_kind = CXC_OPERATOR;
            cx_call_result(st, e, fn->fn->result);
            return e;
        }
    }
    switch (op) {
    case P_AMP:
        if (a->kind == CXE_NAME && a->decl != NULL &&
            (a->decl->kind == CXD_FUNCTION || a->decl->kind == CXD_TEMPLATE))
            cx_refuse(st, at, "cannot translate the address of a function: "
                              "OpenCL C has no function pointers");
        e->type = t ? cx_pointer(st, t) : NULL;
        return e;
    case P_STAR:
        if (t != NULL && (t->kind == CXT_POINTER || t->kind == CXT_ARRAY)) {
            e->type = t->base;
            e->lvalue = 1;
        }
        return e;
    case P_NOT:
        e->type = cx_scalar(st, CXT_BOOL);
        return e;
    case P_INC:
    case P_DEC:
        e->type = t;
        e->lvalue = 1;
        return e;
    default: /* + - ~ */
        e->type = t && t->kind == CXT_VECTOR ? cx_unqualified(st, t)
                                             : cx_promote(st, t);
        return e;
    }
}

static cx_expr *cx_sizeof_expr(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    int is_sizeof = cx_is(st, i, W_sizeof);
    cx_expr *e = cx_node(p, CXE_SIZEOF, i);
    e->is_sizeof = (uint8_t)is_sizeof;
    e->type = st->size_type;
    if (cx_punct(st, i + 1, P_ELLIPSIS))
        cx_refuse(st, i, "cannot translate 'sizeof...': variadic templates "
                         "are not supported");
    cx_body in = *p->body;
    in.edits = NULL;
    if (cx_punct(st, i + 1, P_LPAREN) && cx_starts_type(st, &in, i + 2)) {
        const cx_type *type = NULL;
        size_t close = st->match[i + 1];
        size_t after = cx_parse_type_id(st, &in, i + 2, close, &type);
        if (type != NULL && after == close) {
            e->cast_type = type;
            e->op_token = i + 1;
            e->last = close;
            e->value = cx_eval(st, p->body, e);
            return e;
        }
    }
    cx_expr *a = cx_unary_expr(p, i + 1);
    e->a = a;
    e->last = a->last;
    e->value = cx_eval(st, p->body, e);
    return e;
}

cx_expr *cx_unary_expr(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    if (i >= p->end)
        cx_fail(st, i < st->count ? i : 0, "an expression was expected");
    if (st->tokens[i].kind == CLC_TOK_PUNCT) {
        int op = st->tokens[i].punct;
        switch (op) {
        case P_PLUS: case P_MINUS: case P_NOT: case P_TILDE: case P_STAR:
        case P_AMP: case P_INC: case P_DEC: {
            cx_expr *a = op == P_INC || op == P_DEC ? cx_unary_expr(p, i + 1)
                                                    : cx_cast_expr(p, i + 1);
            return cx_make_unary(p, op, i, a);
        }
        case P_ANDAND:
            cx_refuse(st, i, "cannot translate '&&' as an address: labels as "
                             "values are not supported");
        default:
            break;
        }
    }
    if (cx_is(st, i, W_sizeof) || cx_is(st, i, st->w.alignof_) ||
        cx_is(st, i, W___alignof__) || cx_is(st, i, W__Alignof) ||
        cx_is(st, i, W___alignof))
        return cx_sizeof_expr(p, i);
    if (cx_is(st, i, st->w.noexcept_)) {
        cx_expr *e = cx_node(p, CXE_LITERAL, i);
        e->type = cx_scalar(st, CXT_BOOL);
        e->value.known = 1;
        e->value.i = 1;
        e->value.type = e->type;
        e->last = cx_punct(st, i + 1, P_LPAREN) ? st->match[i + 1] : i;
        return e;
    }
    return cx_postfix(p, cx_primary(p, i));
}

cx_expr *cx_cast_expr(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    if (cx_punct(st, i, P_LPAREN)) {
        cx_body in = *p->body;
        in.edits = NULL;
        size_t close = st->match[i];
        if (cx_starts_type(st, &in, i + 1)) {
            const cx_type *type = NULL;
            size_t after = cx_parse_type_id(st, &in, i + 1, close, &type);
            if (type != NULL && after == close && close + 1 < p->end) {
                if (cx_punct(st, close + 1, P_LBRACE))
                    cx_refuse(st, i, "cannot translate a compound literal");
                cx_expr *a = cx_cast_expr(p, close + 1);
                cx_expr *e = cx_node(p, CXE_CAST, i);
                e->a = a;
                e->cast_type = type;
                e->op_token = i;
                e->name_first = close;
                e->last = a->last;
                if (type->kind == CXT_LREF || type->kind == CXT_RREF) {
                    e->type = type->base;
                    e->lvalue = type->kind == CXT_LREF;
                } else {
                    e->type = cx_unqualified(st, type);
                }
                return e;
            }
        }
    }
    return cx_unary_expr(p, i);
}

/* ---- binary --------------------------------------------------------------------------- */

static int cx_precedence(const cx_parser *p, size_t i)
{
    const cx_state *st = p->st;
    if (i >= p->end || st->tokens[i].kind != CLC_TOK_PUNCT)
        return 0;
    switch (st->tokens[i].punct) {
    case P_STAR: case P_SLASH: case P_PERCENT: return 10;
    case P_PLUS: case P_MINUS: return 9;
    case P_SHL: return 8;
    case P_SHR: return p->body->in_template_args ? 0 : 8;
    case P_LT: case P_LE: return 7;
    case P_GE: return p->body->in_template_args ? 0 : 7;
    case P_GT: return p->body->in_template_args ? 0 : 7;
    case P_EQ: case P_NE: return 6;
    case P_AMP: return 5;
    case P_CARET: return 4;
    case P_PIPE: return 3;
    case P_ANDAND: return 2;
    case P_OROR: return 1;
    default: return 0;
    }
}

static const cx_type *cx_builtin_binary_type(cx_state *st, int op,
                                             const cx_type *a, const cx_type *b)
{
    a = cx_strip_ref(a);
    b = cx_strip_ref(b);
    switch (op) {
    case P_LT: case P_GT: case P_LE: case P_GE: case P_EQ: case P_NE:
    case P_ANDAND: case P_OROR:
        if ((a && a->kind == CXT_VECTOR) || (b && b->kind == CXT_VECTOR))
            return NULL;
        return cx_scalar(st, CXT_BOOL);
    default:
        break;
    }
    if (a == NULL || b == NULL)
        return NULL;
    if (a->kind == CXT_VECTOR)
        return cx_unqualified(st, a);
    if (b->kind == CXT_VECTOR)
        return cx_unqualified(st, b);
    if (op == P_SHL || op == P_SHR)
        return cx_promote(st, a);
    int pa = a->kind == CXT_POINTER || a->kind == CXT_ARRAY;
    int pb = b->kind == CXT_POINTER || b->kind == CXT_ARRAY;
    if ((op == P_PLUS || op == P_MINUS) && pa && !pb)
        return cx_decay(st, a);
    if (op == P_PLUS && pb && !pa)
        return cx_decay(st, b);
    if (op == P_MINUS && pa && pb)
        return cx_scalar(st, CXT_LONG);
    return cx_arith_common(st, a, b);
}

static cx_expr *cx_make_binary(cx_parser *p, int op, size_t at, cx_expr *a,
                               cx_expr *b)
{
    cx_state *st = p->st;
    cx_expr *e = cx_node(p, CXE_BINARY, a->first);
    e->a = a;
    e->b = b;
    e->op = (uint8_t)op;
    e->op_token = at;
    e->last = b->last;
    cx_op o = cx_op_of_punct(op, 0);
    if (st->operators_declared[o] && (cx_is_class(a->type) || cx_is_class(b->type))) {
        cx_decl *fn = cx_find_operator(st, p->body, o, a, b, at);
        if (fn != NULL) {
            e->decl = fn;
            e->call_kind = CXC_OPERATOR;
            cx_call_result(st, e, fn->fn->result);
            return e;
        }
    }
    e->type = cx_builtin_binary_type(st, op, a->type, b->type);
    if (a->value.known && b->value.known)
        e->value = cx_eval(st, p->body, e);
    return e;
}

static cx_expr *cx_binary_expr(cx_parser *p, size_t i, int min_prec)
{
    cx_expr *left = cx_cast_expr(p, i);
    for (;;) {
        size_t at = cx_expr_end(left);
        int prec = cx_precedence(p, at);
        if (prec == 0 || prec < min_prec)
            return left;
        int op = p->st->tokens[at].punct;
        if (op == P_SHL && cx_punct(p->st, at + 1, P_LT))
            cx_refuse(p->st, at, "cannot translate '<<<': dynamic parallelism "
                                 "(kernel launches in device code) is not "
                                 "supported");
        cx_expr *right = cx_binary_expr(p, at + 1, prec + 1);
        left = cx_make_binary(p, op, at, left, right);
    }
}

static cx_expr *cx_conditional(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    cx_expr *c = cx_binary_expr(p, i, 1);
    size_t at = cx_expr_end(c);
    if (!cx_punct(st, at, P_QUESTION) || at >= p->end)
        return c;
    cx_parser inner = *p;
    cx_body in = *p->body;
    in.in_template_args = 0;
    inner.body = &in;
    cx_expr *a = cx_full_expr(&inner, at + 1);
    size_t colon = cx_expr_end(a);
    if (!cx_punct(st, colon, P_COLON))
        cx_fail(st, colon, "':' was expected in '?:'");
    cx_expr *b = cx_assign_expr(p, colon + 1);
    cx_expr *e = cx_node(p, CXE_COND, c->first);
    e->a = c;
    e->b = a;
    e->c = b;
    e->op_token = at;
    e->name_first = colon;
    e->last = b->last;
    const cx_type *ta = cx_strip_ref(a->type), *tb = cx_strip_ref(b->type);
    if (ta != NULL && tb != NULL && cx_unqualified(st, ta) == cx_unqualified(st, tb)) {
        e->type = ta;
        e->lvalue = a->lvalue && b->lvalue;
    } else if (cx_is_arithmetic(ta) && cx_is_arithmetic(tb)) {
        e->type = cx_arith_common(st, ta, tb);
    } else if (ta != NULL && (ta->kind == CXT_POINTER || ta->kind == CXT_ARRAY)) {
        e->type = cx_decay(st, ta);
    } else if (tb != NULL && (tb->kind == CXT_POINTER || tb->kind == CXT_ARRAY)) {
        e->type = cx_decay(st, tb);
    } else if (ta != NULL && ta->kind == CXT_ENUM && cx_is_arithmetic(tb)) {
        e->type = cx_arith_common(st, ta, tb);
    } else if (tb != NULL && tb->kind == CXT_ENUM && cx_is_arithmetic(ta)) {
        e->type = cx_arith_common(st, ta, tb);
    }
    if (c->value.known) {
        cx_value v = cx_eval(st, p->body, e);
        e->value = v;
    }
    return e;
}

static int cx_assign_punct(int punct)
{
    switch (punct) {
    case P_ASSIGN: case P_MUL_ASSIGN: case P_DIV_ASSIGN: case P_MOD_ASSIGN:
    case P_ADD_ASSIGN: case P_SUB_ASSIGN: case P_SHL_ASSIGN: case P_SHR_ASSIGN:
    case P_AND_ASSIGN: case P_XOR_ASSIGN: case P_OR_ASSIGN:
        return 1;
    default:
        return 0;
    }
}

cx_expr *cx_assign_expr(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    if (cx_is(st, i, st->w.throw_))
        cx_refuse(st, i, "cannot translate 'throw': exceptions are not "
                         "supported in device code");
    cx_expr *left = cx_conditional(p, i);
    size_t at = cx_expr_end(left);
    if (at >= p->end || st->tokens[at].kind != CLC_TOK_PUNCT ||
        !cx_assign_punct(st->tokens[at].punct))
        return left;
    if (p->body->in_template_args && st->tokens[at].punct == P_SHR_ASSIGN)
        return left;
    int op = st->tokens[at].punct;
    cx_expr *right = cx_punct(st, at + 1, P_LBRACE)
                         ? cx_parse_init_list(st, p->body, at + 1)
                         : cx_assign_expr(p, at + 1);
    cx_expr *e = cx_node(p, CXE_ASSIGN, left->first);
    e->a = left;
    e->b = right;
    e->op = (uint8_t)op;
    e->op_token = at;
    e->last = right->last;
    const cx_type *t = cx_strip_ref(left->type);
    cx_op o = cx_op_of_punct(op, 0);
    if (st->operators_declared[o] &&
        (cx_is_class(left->type) || (op != P_ASSIGN && cx_is_class(right->type))) &&
        !(t != NULL && t->kind == CXT_ENUM)) {
        cx_decl *fn = cx_find_operator(st, p->body, o, left, right, at);
        if (fn != NULL) {
            e->decl = fn;
            e->call_kind = CXC_OPERATOR;
            cx_call_result(st, e, fn->fn->result);
            return e;
        }
    }
    e->type = t;
    e->lvalue = 1;
    return e;
}

cx_expr *cx_full_expr(cx_parser *p, size_t i)
{
    cx_expr *left = cx_assign_expr(p, i);
    for (;;) {
        size_t at = cx_expr_end(left);
        if (at >= p->end || !cx_punct(p->st, at, P_COMMA))
            return left;
        cx_expr *right = cx_assign_expr(p, at + 1);
        cx_expr *e = cx_node(p, CXE_BINARY, left->first);
        e->a = left;
        e->b = right;
        e->op = P_COMMA;
        e->op_token = at;
        e->last = right->last;
        e->type = right->type;
        e->lvalue = right->lvalue;
        left = e;
    }
}

/* ---- entry points ----------------------------------------------------------------------- */

cx_expr *cx_parse_expr(cx_state *st, cx_body *body, size_t at, size_t end,
                       int comma, size_t *after)
{
    cx_parser p = {st, body, end};
    cx_expr *e = comma ? cx_full_expr(&p, at) : cx_assign_expr(&p, at);
    *after = cx_expr_end(e);
    return e;
}

cx_expr *cx_parse_assign(cx_state *st, cx_body *body, size_t at, size_t end,
                         size_t *after)
{
    cx_parser p = {st, body, end};
    cx_expr *e = cx_assign_expr(&p, at);
    *after = cx_expr_end(e);
    return e;
}

cx_expr *cx_parse_init_list(cx_state *st, cx_body *body, size_t open)
{
    size_t close = st->match[open];
    cx_parser p = {st, body, close};
    cx_body in = *body;
    in.in_template_args = 0;
    p.body = &in;
    cx_expr *e = cx_node(&p, CXE_INIT_LIST, open);
    e->last = close;
    size_t i = open + 1;
    while (i < close) {
        if (cx_punct(st, i, P_DOT) && cx_ident(st, i + 1))
            cx_refuse(st, i, "cannot translate a designated initializer in "
                             "C++ code");
        cx_expr *a = cx_punct(st, i, P_LBRACE) ? cx_parse_init_list(st, &in, i)
                                               : cx_assign_expr(&p, i);
        e->args = cx_grow(st, e->args, e->argc, sizeof *e->args);
        e->args[e->argc++] = a;
        i = cx_expr_end(a);
        if (cx_punct(st, i, P_COMMA)) {
            ++i;
            continue;
        }
        if (i != close)
            cx_fail(st, i, "',' or '}' was expected in the initializer");
    }
    return e;
}

const char *cx_call_args_text(cx_state *st, cx_expr **args, size_t argc)
{
    return cx_args_text(st, args, argc);
}
