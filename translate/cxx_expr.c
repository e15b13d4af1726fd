/*
 * The C++ phase's expressions (see cxx_internal.h): C++'s grammar with its
 * precedence, each node typed as it is made (type and value category),
 * names resolved where they stand, calls and operators resolved among
 * their overloads.  Lowering the tree is cxx_body.c's.
 */
#include "cxx_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


cx_expr *cx_node(cx_parser *p, cx_expr_kind kind, size_t first)
{
    cx_expr *e = clc_arena_alloc(p->st->arena, sizeof *e);
    e->kind = (uint8_t)kind;
    e->first = first;
    e->last = first;
    return e;
}

size_t cx_expr_end(const cx_expr *e)
{
    return e->last + 1;
}

/* ---- literals ---------------------------------------------------------------- */

cx_expr *cx_number(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    const clc_token *t = &st->tokens[i];
    cx_expr *e = cx_node(p, CXE_LITERAL, i);
    char text[128];
    size_t n = t->length < sizeof text - 1 ? t->length : sizeof text - 1;
    size_t w = 0;
    for (size_t k = 0; k < n; ++k)
        if (t->text[k] != '\'') /* C++14 digit separators */
            text[w++] = t->text[k];
    text[w] = '\0';
    n = w;
    int hex = n > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    int binary = n > 1 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B');
    int is_float = 0;
    for (size_t k = 0; k < n; ++k) {
        char c = text[k];
        if (c == '.' || (!hex && (c == 'e' || c == 'E')) ||
            (hex && (c == 'p' || c == 'P')))
            is_float = 1;
    }
    if (is_float) {
        size_t end = n;
        int single = 0;
        while (end > 0 && strchr("fFlL", text[end - 1]) != NULL) {
            if (text[end - 1] == 'f' || text[end - 1] == 'F')
                single = 1;
            --end;
        }
        text[end] = '\0';
        e->value.known = 1;
        e->value.is_float = 1;
        e->value.f = strtod(text, NULL);
        e->type = cx_scalar(st, single ? CXT_FLOAT : CXT_DOUBLE);
        if (single)
            e->value.f = (double)(float)e->value.f;
        e->value.type = e->type;
        return e;
    }
    size_t end = n;
    int longs = 0, is_unsigned = 0;
    while (end > 0 && strchr("uUlL", text[end - 1]) != NULL) {
        if (text[end - 1] == 'u' || text[end - 1] == 'U')
            is_unsigned = 1;
        else
            longs++;
        --end;
    }
    text[end] = '\0';
    unsigned long long value;
    errno = 0;
    if (binary)
        value = strtoull(text + 2, NULL, 2);
    else
        value = strtoull(text, NULL, 0);
    int decimal = !hex && !binary && !(text[0] == '0' && end > 1);
    /* the first of C++'s candidate types that holds the value */
    static const cx_type_kind signed_list[] = {CXT_INT, CXT_LONG, CXT_LLONG};
    static const cx_type_kind unsigned_list[] = {CXT_UINT, CXT_ULONG, CXT_ULLONG};
    cx_type_kind kind = CXT_ULLONG;
    int start = longs >= 2 ? 2 : longs;
    for (int k = start; k < 3; ++k) {
        unsigned long long smax = k == 0 ? 0x7fffffffull : 0x7fffffffffffffffull;
        unsigned long long umax = k == 0 ? 0xffffffffull : ~0ull;
        if (!is_unsigned && value <= smax) {
            kind = signed_list[k];
            break;
        }
        if ((is_unsigned || !decimal) && value <= umax) {
            kind = unsigned_list[k];
            break;
        }
    }
    e->type = cx_scalar(st, kind);
    e->value.known = 1;
    e->value.i = (long long)value;
    e->value.type = e->type;
    return e;
}

long long cx_char_value(const char *text, size_t length)
{
    /* 'x' with C's escapes */
    if (length < 3)
        return 0;
    const char *s = text + 1;
    if (s[0] != '\\')
        return (unsigned char)s[0];
    switch (s[1]) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case '0': case '1': case '2': case '3': case '4': case '5': case '6':
    case '7':
        return strtol(s + 1, NULL, 8);
    case 'x': return strtol(s + 2, NULL, 16);
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'v': return '\v';
    default: return (unsigned char)s[1];
    }
}

/* ---- names ----------------------------------------------------------------------- */

static cx_decl *cx_enclosing_record(cx_body *body)
{
    return body->record;
}

/* A name where an expression stands. */
cx_expr *cx_name_expr(cx_parser *p, size_t i)
{
    cx_state *st = p->st;
    cx_name name;
    if (!cx_parse_name(st, p->body, i, p->end, &name))
        cx_fail(st, i, "an expression was expected");
    cx_expr *e = cx_node(p, CXE_NAME, i);
    e->last = name.last;
    e->name_first = name.first;
    e->op_token = name.name_token;
    if (name.dependent) {
        if (!p->body->pattern)
            cx_fail(st, i, "'%s' is not known here",
                    cx_spelling(st, name.name_token));
        return e;
    }
    cx_decl *d = cx_resolve(name.decl);
    e->decl = d;
    if (name.has_targs) {
        e->targs = name.targs;
        e->targ_count = name.targ_count;
        e->has_targs = 1;
    }
    if (d == NULL)
        return e; /* a name this phase does not know */
    const cx_type *type = NULL;
    switch (d->kind) {
    case CXD_TYPEDEF:
    case CXD_RECORD:
    case CXD_ENUM:
        type = cx_name_type(st, p->body, &name);
        e->kind = CXE_TYPE;
        e->cast_type = type;
        return e;
    case CXD_TEMPLATE:
        if (d->tmpl->kind == CXTM_RECORD || d->tmpl->kind == CXTM_ALIAS) {
            e->kind = CXE_TYPE;
            e->cast_type = cx_name_type(st, p->body, &name);
            if (e->cast_type == NULL)
                cx_fail(st, i, "'%s' needs its template arguments",
                        cx_spelling(st, name.name_token));
            return e;
        }
        return e; /* a function template: the call resolves it */
    case CXD_TPARAM:
        if (d->type == NULL && !d->value.known) {
            e->kind = CXE_TYPE;
            e->cast_type = cx_name_type(st, p->body, &name);
            return e;
        }
        e->type = d->type;
        return e;
    case CXD_VALUE:
        e->type = d->type;
        e->value = d->value;
        return e;
    case CXD_ENUMERATOR:
        e->type = d->type;
        e->value = d->value;
        return e;
    case CXD_VAR:
        e->type = cx_strip_ref(d->type);
        e->lvalue = 1;
        return e;
    case CXD_FIELD: {
        e->type = cx_strip_ref(d->type);
        e->lvalue = 1;
        cx_decl *record = cx_enclosing_record(p->body);
        if (record == NULL) {
            /* sizeof(S::x) and the like: no object */
            return e;
        }
        e->implicit_this = 1;
        if (p->body->is_const && !(d->flags & CXF_MUTABLE) && e->type != NULL)
            e->type = cx_qualified(st, e->type, CXQ_CONST);
        return e;
    }
    case CXD_FUNCTION:
        return e;
    case CXD_NAMESPACE:
        cx_fail(st, i, "'%s' is a namespace, not a value",
                cx_spelling(st, name.name_token));
    default:
        return e;
    }
}

/* ---- calls ------------------------------------------------------------------------- */

static size_t cx_call_args(cx_parser *p, size_t open, cx_expr ***args)
{
    cx_state *st = p->st;
    size_t close = st->match[open];
    size_t i = open + 1;
    size_t n = 0;
    cx_expr **list = NULL;
    cx_parser inner = *p;
    inner.end = close;
    while (i < close) {
        cx_expr *a;
        if (cx_punct(st, i, P_LBRACE))
            a = cx_parse_init_list(st, p->body, i);
        else
            a = cx_assign_expr(&inner, i);
        list = cx_grow(st, list, n, sizeof *list);
        list[n++] = a;
        i = cx_expr_end(a);
        if (cx_punct(st, i, P_COMMA)) {
            ++i;
            continue;
        }
        if (i != close)
            cx_fail(st, i, "',' or ')' was expected in the arguments");
    }
    *args = list;
    return n;
}

/* The type and value category of a call's result. */
void cx_call_result(cx_state *st, cx_expr *e, const cx_type *result)
{
    if (result != NULL && (result->kind == CXT_LREF || result->kind == CXT_RREF)) {
        e->type = result->base;
        e->lvalue = result->kind == CXT_LREF;
    } else {
        e->type = result ? cx_unqualified(st, result) : NULL;
        e->lvalue = 0;
    }
}

const char *cx_args_text(cx_state *st, cx_expr **args, size_t argc)
{
    clc_buffer b;
    clc_buffer_init(&b, st->arena);
    for (size_t k = 0; k < argc; ++k)
        clc_buffer_printf(&b, "%s%s", k ? ", " : "",
                          args[k]->type ? cx_describe(st, args[k]->type) : "?");
    return clc_buffer_text(&b);
}

/* Whether every candidate of an overload set is a builtin. */
static int cx_all_builtin(cx_decl *set)
{
    for (cx_decl *d = set; d != NULL; d = d->same) {
        cx_decl *r = cx_resolve(d);
        if (r != NULL && (r->kind == CXD_FUNCTION || r->kind == CXD_TEMPLATE) &&
            !(r->flags & CXF_BUILTIN))
            return 0;
    }
    return 1;
}

static cx_expr *cx_make_call(cx_parser *p, cx_expr *callee, size_t open)
{
    cx_state *st = p->st;
    cx_expr *e = cx_node(p, CXE_CALL, callee->first);
    e->a = callee;
    e->op_token = open;
    e->argc = cx_call_args(p, open, &e->args);
    e->last = st->match[open];
    if (callee->kind == CXE_TYPE) {
        /* T(args): a functional cast or a constructor */
        e->kind = CXE_CONSTRUCT;
        e->cast_type = callee->cast_type;
        e->a = NULL;
        e->b = callee;
        const cx_type *t = callee->cast_type;
        e->type = t ? cx_unqualified(st, t) : NULL;
        if (t != NULL && t->kind == CXT_RECORD) {
            cx_decl *ctors = cx_lookup_in(st, t->decl->scope, st->ctor_name);
            if (ctors != NULL) {
                cx_decl *fn = cx_resolve_call(st, p->body, ctors, NULL, 0, 0,
                                              e->args, e->argc, NULL, open, 1);
                e->decl = fn;
                e->call_kind = CXC_CONSTRUCT;
            } else {
                e->call_kind = CXC_AGGREGATE;
            }
            cx_use_record(st, t);
        }
        if (t != NULL && t->kind != CXT_RECORD && e->argc > 1)
            cx_fail(st, open, "'%s' takes one value", cx_describe(st, t));
        return e;
    }
    if (callee->kind == CXE_MEMBER && callee->decl != NULL &&
        (callee->decl->kind == CXD_FUNCTION || callee->decl->kind == CXD_TEMPLATE)) {
        /* obj.f(args) */
        cx_decl *fn = cx_resolve_call(st, p->body, callee->decl,
                                      callee->targs, callee->targ_count,
                                      callee->has_targs, e->args,
                                      e->argc, callee->a, open, 1);
        e->decl = fn;
        e->call_kind = (uint8_t)(fn->fn->is_method ? CXC_METHOD : CXC_PLAIN);
        cx_call_result(st, e, fn->fn->result);
        return e;
    }
    if (callee->kind == CXE_NAME && callee->decl != NULL &&
        (callee->decl->kind == CXD_FUNCTION || callee->decl->kind == CXD_TEMPLATE)) {
        cx_decl *set = callee->decl;
        /* an unqualified member function inside a member: this->f() */
        cx_expr *object = NULL;
        cx_decl *first = cx_resolve(set);
        cx_scope *in = first->kind == CXD_FUNCTION ? first->parent
                       : first->tmpl->scope;
        if (in != NULL && in->kind == CXS_RECORD && p->body->record != NULL) {
            object = cx_node(p, CXE_THIS, callee->first);
            object->type = cx_record_type(st, p->body->record);
            if (p->body->is_const)
                object->type = cx_qualified(st, object->type, CXQ_CONST);
            object->lvalue = 1;
            object->implicit_this = 1;
        }
        int builtin = cx_all_builtin(set);
        cx_decl *fn = cx_resolve_call(st, p->body, set,
                                      callee->targs, callee->targ_count,
                                      callee->has_targs, e->args,
                                      e->argc, object, open, !builtin);
        if (fn == NULL) {
            /* a builtin with arguments its declarations do not cover */
            e->call_kind = CXC_BUILTIN;
            return e;
        }
        e->decl = fn;
        if (fn->flags & CXF_BUILTIN)
            e->call_kind = CXC_BUILTIN;
        else if (fn->fn->is_method && object != NULL)
            e->call_kind = CXC_METHOD;
        else
            e->call_kind = CXC_PLAIN;
        if (e->call_kind == CXC_METHOD)
            callee->implicit_this = 1;
        cx_call_result(st, e, fn->fn->result);
        return e;
    }
    const cx_type *t = callee->type;
    if (t != NULL && t->kind == CXT_RECORD) {
        /* a function object: f(args) is f.operator()(args) */
        cx_decl *set = cx_lookup_qualified(st, t->decl->scope,
                                           clc_intern(st->interner, "operator()", 10));
        if (set == NULL)
            cx_fail(st, open, "'%s' cannot be called: it has no operator()",
                    cx_describe(st, t));
        cx_decl *fn = cx_resolve_call(st, p->body, set, NULL, 0, 0, e->args,
                                      e->argc, callee, open, 1);
        e->decl = fn;
        e->call_kind = CXC_OPERATOR;
        cx_call_result(st, e, fn->fn->result);
        return e;
    }
    if (t != NULL && (t->kind == CXT_POINTER || t->kind == CXT_FUNCTION))
        cx_refuse(st, open, "cannot translate a call through a function "
                            "pointer: OpenCL C has no function pointers");
    e->call_kind = CXC_UNKNOWN;
    return e;
}

/* ---- postfix ------------------------------------------------------------------------ */

static cx_expr *cx_member(cx_parser *p, cx_expr *object, size_t op)
{
    cx_state *st = p->st;
    int arrow = cx_punct(st, op, P_ARROW);
    size_t i = op + 1;
    if (cx_is(st, i, st->w.template_))
        ++i;
    cx_expr *e = cx_node(p, CXE_MEMBER, object->first);
    e->a = object;
    e->op = (uint8_t)(arrow ? P_ARROW : P_DOT);
    e->op_token = op;
    if (cx_punct(st, i, P_TILDE))
        cx_refuse(st, i, "cannot translate an explicit destructor call");
    if (cx_is(st, i, st->w.operator_))
        cx_refuse(st, i, "cannot translate an operator called by its name");
    int32_t name;
    size_t after;
    if (!cx_ident(st, i))
        cx_fail(st, i, "a member's name was expected after '%s'",
                arrow ? "->" : ".");
    name = st->tokens[i].ident;
    after = i + 1;
    e->name_first = i;
    e->op_token = op;
    const cx_type *t = cx_strip_ref(object->type);
    if (arrow && t != NULL) {
        if (t->kind == CXT_POINTER)
            t = t->base;
        else if (t->kind == CXT_ARRAY)
            t = t->base;
        else if (t->kind == CXT_RECORD)
            cx_refuse(st, op, "cannot translate an overloaded '->'");
    }
    e->last = i;
    if (t == NULL) {
        /* explicit template arguments of an unknown member */
        if (cx_punct(st, after, P_LT) && cx_is(st, op + 1, st->w.template_))
            cx_fail(st, after, "cannot read these template arguments");
        return e;
    }
    unsigned quals = t->quals;
    if (t->kind == CXT_VECTOR) {
        int32_t w = name;
        unsigned index = w == st->w.x_ ? 0 : w == st->w.y_ ? 1
                         : w == st->w.z_ ? 2 : w == st->w.w_ ? 3 : 4;
        if (index >= t->width)
            cx_fail(st, i, "'%s' has no member '%s'", cx_describe(st, t),
                    cx_spelling(st, i));
        e->type = cx_qualified(st, cx_scalar(st, (cx_type_kind)t->elem), quals);
        e->lvalue = arrow || object->lvalue;
        return e;
    }
    if (t->kind != CXT_RECORD) {
        if (t->kind == CXT_NAMED)
            return e; /* a type this phase does not model */
        cx_fail(st, op, "'%s' is not a class: it has no members",
                cx_describe(st, t));
    }
    cx_use_record(st, t);
    if (t->decl->rec->unreadable != NULL)
        cx_refuse(st, op, "cannot translate '%s': %s", cx_describe(st, t),
                  t->decl->rec->unreadable);
    cx_decl *m = cx_lookup_qualified(st, t->decl->scope, name);
    if (m == NULL)
        cx_fail(st, i, "'%s' has no member '%s'", cx_describe(st, t),
                cx_spelling(st, i));
    m = cx_resolve(m);
    e->decl = m;
    if (cx_punct(st, after, P_LT) &&
        (m->kind == CXD_TEMPLATE || cx_is(st, op + 1, st->w.template_))) {
        const cx_type **targs;
        size_t n;
        cx_body inner = *p->body;
        inner.edits = NULL;
        after = cx_parse_template_args(st, &inner, after, p->end, &targs, &n);
        e->targs = targs;
        e->targ_count = n;
        e->has_targs = 1;
        e->last = after - 1;
    }
    switch (m->kind) {
    case CXD_FIELD:
        e->type = m->type;
        if ((quals & CXQ_CONST) && !(m->flags & CXF_MUTABLE))
            e->type = cx_qualified(st, e->type, CXQ_CONST);
        e->lvalue = arrow || object->lvalue;
        return e;
    case CXD_VAR:
        e->type = cx_strip_ref(m->type);
        e->lvalue = 1;
        return e;
    case CXD_ENUMERATOR:
        e->type = m->type;
        e->value = m->value;
        return e;
    case CXD_FUNCTION:
    case CXD_TEMPLATE:
        return e;
    default:
        cx_fail(st, i, "'%s' is not a member that has a value",
                cx_spelling(st, i));
    }
}

int cx_is_class(const cx_type *t)
{
    t = cx_strip_ref(t);
    return t != NULL && (t->kind == CXT_RECORD || t->kind == CXT_ENUM ||
                         t->kind == CXT_VECTOR);
}

static cx_expr *cx_index(cx_parser *p, cx_expr *a, size_t open)
{
    cx_state *st = p->st;
    size_t close = st->match[open];
    cx_parser inner = *p;
    inner.end = close;
    cx_expr *index = cx_full_expr(&inner, open + 1);
    if (cx_expr_end(index) != close)
        cx_fail(st, cx_expr_end(index), "']' was expected");
    cx_expr *e = cx_node(p, CXE_INDEX, a->first);
    e->a = a;
    e->b = index;
    e->op_token = open;
    e->last = close;
    const cx_type *t = cx_strip_ref(a->type);
    if (t != NULL && t->kind == CXT_RECORD) {
        cx_decl *fn = cx_find_operator(st, p->body, CXO_INDEX, a, index, open);
        if (fn == NULL)
            cx_fail(st, open, "'%s' has no operator[]", cx_describe(st, t));
        e->decl = fn;
        e->call_kind = CXC_OPERATOR;
        cx_call_result(st, e, fn->fn->result);
        return e;
    }
    if (t != NULL && (t->kind == CXT_POINTER || t->kind == CXT_ARRAY)) {
        e->type = t->base;
        e->lvalue = 1;
        return e;
    }
    const cx_type *u = cx_strip_ref(index->type);
    if (u != NULL && (u->kind == CXT_POINTER || u->kind == CXT_ARRAY)) {
        e->type = u->base; /* i[p] */
        e->lvalue = 1;
    }
    return e;
}

cx_expr *cx_postfix(cx_parser *p, cx_expr *e)
{
    cx_state *st = p->st;
    for (;;) {
        size_t i = cx_expr_end(e);
        if (i >= p->end)
            return e;
        if (cx_punct(st, i, P_LPAREN)) {
            e = cx_make_call(p, e, i);
            continue;
        }
        if (cx_punct(st, i, P_LBRACE) && e->kind == CXE_TYPE) {
            /* T{args} */
            cx_expr *list = cx_parse_init_list(st, p->body, i);
            cx_expr *c = cx_node(p, CXE_CONSTRUCT, e->first);
            c->cast_type = e->cast_type;
            c->b = e;
            c->args = list->args;
            c->argc = list->argc;
            c->op_token = i;
            c->last = list->last;
            c->type = e->cast_type ? cx_unqualified(st, e->cast_type) : NULL;
            const cx_type *t = e->cast_type;
            if (t != NULL && t->kind == CXT_RECORD) {
                cx_decl *ctors = cx_lookup_in(st, t->decl->scope, st->ctor_name);
                if (ctors != NULL) {
                    c->decl = cx_resolve_call(st, p->body, ctors, NULL, 0, 0,
                                              c->args, c->argc, NULL, i, 1);
                    c->call_kind = CXC_CONSTRUCT;
                } else {
                    c->call_kind = CXC_AGGREGATE;
                }
                cx_use_record(st, t);
            }
            e = c;
            continue;
        }
        if (e->kind == CXE_TYPE)
            return e;
        if (cx_punct(st, i, P_LBRACKET)) {
            if (cx_punct(st, i + 1, P_LBRACKET))
                return e;
            e = cx_index(p, e, i);
            continue;
        }
        if (cx_punct(st, i, P_DOT) || cx_punct(st, i, P_ARROW)) {
            e = cx_member(p, e, i);
            continue;
        }
        if (cx_punct(st, i, P_INC) || cx_punct(st, i, P_DEC)) {
            cx_expr *u = cx_node(p, CXE_POSTFIX, e->first);
            u->a = e;
            u->op = st->tokens[i].punct;
            u->op_token = i;
            u->last = i;
            if (cx_is_class(e->type) && cx_strip_ref(e->type)->kind != CXT_ENUM) {
                cx_expr *zero = cx_node(p, CXE_LITERAL, i);
                zero->type = cx_scalar(st, CXT_INT);
                zero->value.known = 1;
                zero->value.type = zero->type;
                cx_decl *fn = cx_find_operator(
                    st, p->body, cx_op_of_punct(u->op, 0), e, zero, i);
                if (fn != NULL) {
                    u->decl = fn;
                    u->call_kind = CXC_OPERATOR;
                    cx_call_result(st, u, fn->fn->result);
                    e = u;
                    continue;
                }
            }
            u->type = e->type ? cx_unqualified(st, e->type) : NULL;
            e = u;
            continue;
        }
        return e;
    }
}
