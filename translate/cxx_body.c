/*
 * The C++ phase's function bodies (see cxx_internal.h): statements read
 * in their scopes, and the edits that lower them to C-like CUDA —
 * references through pointers, calls to the functions resolution chose
 * (instances, overloads, members, operators, constructors), default
 * arguments written out, auto and template parameters spelled, if
 * constexpr's discarded branch removed.
 */
#include "cxx_internal.h"

#include <string.h>

/* ---- small helpers --------------------------------------------------------------- */

void cx_prepend(cx_state *st, cx_body *b, size_t i, const char *text)
{
    if (b->edits != NULL)
        cx_before(st, b->edits, i, text);
}

void cx_append(cx_state *st, cx_body *b, size_t i, const char *text)
{
    if (b->edits != NULL)
        cx_after(st, b->edits, i, text);
}

void cx_set(cx_body *b, size_t i, const char *text)
{
    if (b->edits != NULL)
        cx_replace(b->edits, i, text);
}

void cx_clear(cx_body *b, size_t begin, size_t end)
{
    if (b->edits != NULL && begin < end)
        cx_drop(b->edits, begin, end);
}

void cx_use_function(cx_state *st, cx_decl *decl)
{
    cx_function *fn = decl->fn;
    if (fn == NULL || fn->state != 0 || (decl->flags & CXF_BUILTIN))
        return;
    if (fn->body_open == 0 && !fn->is_ctor)
        return; /* declared only: its definition may come */
    fn->state = 1;
    fn->order = st->order++;
    st->queue = cx_grow(st, st->queue, st->queue_count, sizeof *st->queue);
    st->queue[st->queue_count++] = fn;
}

void cx_use_record(cx_state *st, const cx_type *type)
{
    type = cx_strip_ref(type);
    while (type != NULL && (type->kind == CXT_POINTER || type->kind == CXT_ARRAY))
        type = type->base;
    if (type == NULL || type->kind != CXT_RECORD)
        return;
    cx_record *rec = type->decl->rec;
    if (rec->emitted == 0) {
        rec->emitted = -1; /* wanted: written with the types */
        st->wanted = cx_grow(st, st->wanted, st->wanted_count, sizeof *st->wanted);
        st->wanted[st->wanted_count++] = type->decl;
    }
}

int cx_is_ref(const cx_type *t)
{
    return t != NULL && (t->kind == CXT_LREF || t->kind == CXT_RREF);
}

/* Whether `&e` needs parentheses around e: not for a postfix expression
 * (a name, a member, an element, a call), which the CUDA C -> OpenCL C
 * pass also reads best without them. */
static int cx_address_plain(const cx_expr *e)
{
    return e->kind == CXE_NAME || e->kind == CXE_MEMBER ||
           (e->kind == CXE_INDEX && e->decl == NULL) || e->kind == CXE_PAREN;
}

void cx_take_address(cx_state *st, cx_body *b, cx_expr *e)
{
    if (cx_address_plain(e)) {
        cx_prepend(st, b, e->first, "&");
    } else {
        cx_prepend(st, b, e->first, "&(");
        cx_append(st, b, e->last, ")");
    }
}

/* ---- expressions -------------------------------------------------------------- */

/* Text for a default argument: its tokens read where the function was
 * declared, lowered. */
static const char *cx_default_text(cx_state *st, cx_function *fn, size_t k)
{
    cx_param *p = &fn->params[k];
    cx_edits *e = cx_edits_new(st, p->default_begin, p->default_end);
    cx_body ctx = {0};
    ctx.scope = fn->scope;
    ctx.edits = e;
    ctx.record = fn->is_method ? fn->record : NULL;
    size_t after;
    cx_expr *x = cx_parse_assign(st, &ctx, p->default_begin, p->default_end, &after);
    cx_lower_expr(st, &ctx, x, cx_strip_ref(p->type));
    return cx_render(st, e, p->default_begin, p->default_end);
}

/* Lowers a call's arguments against `fn`'s parameters; the mask of
 * reference parameters given rvalues (bit k+1 for parameter k). */
uint32_t cx_lower_args(cx_state *st, cx_body *b, cx_function *fn,
                              cx_expr **args, size_t argc)
{
    uint32_t mask = 0;
    for (size_t k = 0; k < argc; ++k) {
        cx_expr *a = args[k];
        if (k >= fn->param_count) {
            cx_lower_expr(st, b, a, NULL);
            continue;
        }
        const cx_type *p = fn->params[k].type;
        if (!cx_is_ref(p)) {
            cx_lower_expr(st, b, a, p);
            continue;
        }
        const cx_type *target = p->base;
        const cx_type *at = cx_strip_ref(a->type);
        int direct = a->lvalue && cx_binds(st, target, at);
        if (direct) {
            cx_lower_expr(st, b, a, NULL);
            cx_take_address(st, b, a);
        } else {
            if (k + 1 >= 32)
                cx_refuse(st, a->first, "cannot translate a call that binds a "
                                        "temporary to reference parameter %zu",
                          k + 1);
            cx_lower_expr(st, b, a, cx_unqualified(st, target));
            mask |= 1u << (k + 1);
        }
    }
    return mask;
}

/* ", d1, d2" for the parameters after the arguments given. */
const char *cx_defaults(cx_state *st, cx_function *fn, size_t argc,
                               int leading_comma, uint32_t *mask)
{
    if (argc >= fn->param_count)
        return "";
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    for (size_t k = argc; k < fn->param_count; ++k) {
        clc_buffer_printf(&text, "%s%s", (k > argc || leading_comma) ? ", " : "",
                          cx_default_text(st, fn, k));
        if (cx_is_ref(fn->params[k].type))
            *mask |= 1u << (k + 1);
    }
    return clc_buffer_text(&text);
}

const char *cx_callee_name(cx_state *st, cx_decl *fn, uint32_t mask)
{
    cx_use_function(st, fn);
    /* the call graph: callees are written before their callers */
    cx_function *caller = st->current, *callee = fn->fn;
    if (caller == NULL) {
        callee->needs_prototype = 1;
    } else if (callee != caller) {
        int known = 0;
        for (size_t k = 0; k < caller->callee_count && !known; ++k)
            known = caller->callees[k] == callee;
        if (!known) {
            caller->callees = cx_grow(st, caller->callees, caller->callee_count,
                                      sizeof *caller->callees);
            caller->callees[caller->callee_count++] = callee;
        }
    } else {
        callee->needs_prototype = 1; /* recursive: the compiler says no */
    }
    if (mask != 0)
        return cx_wrapper(st, fn->fn, mask);
    return cx_function_cname(st, fn);
}

/* The result of a call that returns a reference: the object it names. */
static void cx_deref_result(cx_state *st, cx_body *b, cx_expr *e, cx_decl *fn)
{
    if (fn != NULL && fn->fn != NULL && cx_is_ref(fn->fn->result)) {
        cx_prepend(st, b, e->first, "(*");
        cx_append(st, b, e->last, ")");
    }
}

/* The object a member function is called on: its address, or (an
 * rvalue) by value through a wrapper (bit 0 of *mask). */
static void cx_object_arg(cx_state *st, cx_body *b, cx_expr *object,
                          int is_pointer, uint32_t *mask, const char **open,
                          const char **close)
{
    *open = "";
    *close = "";
    if (is_pointer)
        return;
    if (object->lvalue) {
        *open = cx_address_plain(object) ? "&" : "&(";
        *close = cx_address_plain(object) ? "" : ")";
    } else {
        *mask |= 1u;
    }
    (void)st;
    (void)b;
}

static void cx_lower_name(cx_state *st, cx_body *b, cx_expr *e)
{
    cx_decl *d = e->decl;
    if (d == NULL)
        return;
    const char *text = NULL;
    size_t first = e->name_first ? e->name_first : e->first;
    switch (d->kind) {
    case CXD_VAR: {
        int member = d->parent != NULL && d->parent->kind == CXS_RECORD;
        cx_value v = member ? cx_decl_value(st, d) : (cx_value){0};
        if (member && v.known) {
            text = cx_literal(st, v);
        } else if (d->flags & CXF_REFERENCE) {
            text = cx_printf(st, "(*%s)", cx_cname(st, d));
        } else {
            const char *name = cx_cname(st, d);
            if (e->first != e->last || strcmp(name, cx_ident_name(st, d->name)) != 0)
                text = name;
        }
        if (member || (d->parent != NULL && d->parent->kind == CXS_NAMESPACE &&
                       d->parent != st->global))
            d->flags |= CXF_EMITTED; /* wanted */
        break;
    }
    case CXD_FIELD:
        if (e->implicit_this)
            text = cx_printf(st, CX_THIS "->%s", cx_ident_name(st, d->name));
        break;
    case CXD_ENUMERATOR:
        if (d->cname == NULL)
            text = cx_literal(st, d->value);
        else if (e->first != e->last)
            text = d->cname;
        break;
    case CXD_VALUE:
        text = cx_literal(st, d->value);
        break;
    case CXD_FUNCTION:
    case CXD_TEMPLATE:
        cx_refuse(st, e->first, "cannot translate a function used as a value: "
                                "OpenCL C has no function pointers");
    default:
        break;
    }
    if (text != NULL) {
        cx_clear(b, first, e->last + 1);
        cx_set(b, first, text);
    }
}

/* The text that names type t in an expression (a cast, sizeof). */
static void cx_respell_type(cx_state *st, cx_body *b, size_t begin, size_t end,
                            const cx_type *t)
{
    if (begin >= end)
        return;
    cx_clear(b, begin, end);
    cx_set(b, begin, cx_spell(st, t, NULL));
    cx_use_record(st, t);
}


static void cx_lower_list(cx_state *st, cx_body *b, cx_expr *list,
                          const cx_type *target)
{
    /* a braced list: an aggregate's maker or a constructor's call */
    const cx_type *t = cx_unqualified(st, cx_strip_ref(target));
    if (t != NULL && t->kind == CXT_RECORD) {
        cx_decl *ctors = cx_lookup_in(st, t->decl->scope, st->ctor_name);
        if (ctors != NULL) {
            cx_decl *fn = cx_resolve_call(st, b, ctors, NULL, 0, 0, list->args,
                                          list->argc, NULL, list->first, 1);
            uint32_t mask = cx_lower_args(st, b, fn->fn, list->args, list->argc);
            const char *defaults = cx_defaults(st, fn->fn, list->argc,
                                               list->argc > 0, &mask);
            cx_set(b, list->first,
                   cx_printf(st, "%s(", cx_callee_name(st, fn, mask)));
            cx_set(b, list->last, cx_printf(st, "%s)", defaults));
            return;
        }
        /* an aggregate: each element to its member's type */
        cx_decl *m = t->decl->scope->first;
        for (size_t k = 0; k < list->argc; ++k) {
            while (m != NULL && m->kind != CXD_FIELD)
                m = m->next;
            cx_lower_expr(st, b, list->args[k], m ? m->type : NULL);
            if (m != NULL)
                m = m->next;
        }
        cx_set(b, list->first,
               cx_printf(st, "%s(", cx_aggregate_maker(st, t->decl, list->argc)));
        cx_set(b, list->last, ")");
        return;
    }
    const cx_type *element = t != NULL && t->kind == CXT_ARRAY ? t->base : NULL;
    for (size_t k = 0; k < list->argc; ++k)
        cx_lower_expr(st, b, list->args[k], element);
    if (t != NULL && cx_is_scalar(t) && list->argc <= 1) {
        /* int x = {5}; f({5}) */
        if (list->argc == 0) {
            cx_clear(b, list->first, list->last + 1);
            cx_set(b, list->first, "0");
        } else {
            cx_set(b, list->first, "(");
            cx_set(b, list->last, ")");
        }
    }
}

/* An implicit conversion of e (already lowered) to `target`. */
void cx_convert(cx_state *st, cx_body *b, cx_expr *e,
                       const cx_type *target)
{
    if (target == NULL || e->type == NULL)
        return;
    int is_ctor;
    cx_decl *fn = cx_user_conversion(st, e, target, &is_ctor);
    if (fn == NULL)
        return;
    if (is_ctor) {
        uint32_t mask = 0;
        const cx_type *p = fn->fn->params[0].type;
        if (cx_is_ref(p)) {
            if (e->lvalue) {
                cx_take_address(st, b, e);
            } else {
                mask |= 2u;
            }
        }
        const char *defaults = cx_defaults(st, fn->fn, 1, 1, &mask);
        cx_prepend(st, b, e->first,
                   cx_printf(st, "%s(", cx_callee_name(st, fn, mask)));
        cx_append(st, b, e->last, cx_printf(st, "%s)", defaults));
        return;
    }
    /* a conversion function: a member called on e */
    uint32_t mask = 0;
    const char *open, *close;
    cx_object_arg(st, b, e, 0, &mask, &open, &close);
    cx_prepend(st, b, e->first,
               cx_printf(st, "%s(%s", cx_callee_name(st, fn, mask), open));
    cx_append(st, b, e->last, cx_printf(st, "%s)", close));
    cx_deref_result(st, b, e, fn);
}

static void cx_lower_call(cx_state *st, cx_body *b, cx_expr *e)
{
    cx_decl *fn = e->decl;
    cx_expr *callee = e->a;
    if (e->call_kind == CXC_BUILTIN || e->call_kind == CXC_UNKNOWN || fn == NULL) {
        if (callee != NULL && callee->kind == CXE_MEMBER)
            cx_lower_expr(st, b, callee->a, NULL);
        else if (callee != NULL && callee->kind != CXE_NAME)
            cx_lower_expr(st, b, callee, NULL);
        if (callee != NULL && callee->kind == CXE_NAME && callee->first != callee->last) {
            /* std::sqrt, ::min: the builtin's own name */
            cx_clear(b, callee->first, callee->last + 1);
            cx_set(b, callee->first, cx_spelling(st, callee->op_token));
        }
        if (fn != NULL && fn->fn != NULL) {
            for (size_t k = 0; k < e->argc; ++k)
                cx_lower_expr(st, b, e->args[k],
                              k < fn->fn->param_count ? fn->fn->params[k].type : NULL);
        } else {
            for (size_t k = 0; k < e->argc; ++k)
                cx_lower_expr(st, b, e->args[k], NULL);
        }
        return;
    }
    cx_function *f = fn->fn;
    if (e->call_kind == CXC_OPERATOR) {
        /* f(args) on a function object */
        cx_lower_expr(st, b, callee, NULL);
        uint32_t mask = 0;
        const char *open, *close;
        cx_object_arg(st, b, callee, 0, &mask, &open, &close);
        mask |= cx_lower_args(st, b, f, e->args, e->argc);
        const char *defaults = cx_defaults(st, f, e->argc, 1, &mask);
        cx_prepend(st, b, callee->first,
                   cx_printf(st, "%s(%s", cx_callee_name(st, fn, mask), open));
        cx_append(st, b, callee->last, close);
        cx_set(b, e->op_token, e->argc ? ", " : "");
        cx_prepend(st, b, e->last, defaults);
        cx_deref_result(st, b, e, fn);
        return;
    }
    if (e->call_kind == CXC_METHOD || (callee->kind == CXE_MEMBER && !f->is_method)) {
        uint32_t mask = 0;
        if (callee->kind == CXE_MEMBER) {
            cx_expr *object = callee->a;
            int arrow = callee->op == P_ARROW;
            cx_lower_expr(st, b, object, NULL);
            if (!f->is_method) {
                /* obj.static_member(): the object is not needed */
                mask = cx_lower_args(st, b, f, e->args, e->argc);
                const char *defaults = cx_defaults(st, f, e->argc, e->argc > 0, &mask);
                cx_clear(b, object->first, e->op_token + 1);
                cx_set(b, object->first,
                       cx_printf(st, "%s(", cx_callee_name(st, fn, mask)));
                cx_prepend(st, b, e->last, defaults);
                cx_deref_result(st, b, e, fn);
                return;
            }
            const char *open, *close;
            cx_object_arg(st, b, object, arrow, &mask, &open, &close);
            mask |= cx_lower_args(st, b, f, e->args, e->argc);
            const char *defaults = cx_defaults(st, f, e->argc, 1, &mask);
            cx_prepend(st, b, object->first,
                       cx_printf(st, "%s(%s", cx_callee_name(st, fn, mask), open));
            cx_append(st, b, object->last, close);
            cx_clear(b, callee->op_token, e->op_token + 1);
            cx_set(b, callee->op_token, e->argc ? ", " : "");
            cx_prepend(st, b, e->last, defaults);
            cx_deref_result(st, b, e, fn);
            return;
        }
        /* f(args) inside a member: this->f(args) */
        mask = cx_lower_args(st, b, f, e->args, e->argc);
        const char *defaults = cx_defaults(st, f, e->argc, 1, &mask);
        cx_clear(b, callee->first, callee->last + 1);
        cx_set(b, callee->first, cx_callee_name(st, fn, mask));
        cx_append(st, b, e->op_token, e->argc ? CX_THIS ", " : CX_THIS);
        cx_prepend(st, b, e->last, defaults);
        cx_deref_result(st, b, e, fn);
        return;
    }
    /* a plain call */
    uint32_t mask = cx_lower_args(st, b, f, e->args, e->argc);
    const char *defaults = cx_defaults(st, f, e->argc, e->argc > 0, &mask);
    cx_clear(b, callee->first, callee->last + 1);
    cx_set(b, callee->first, cx_callee_name(st, fn, mask));
    cx_prepend(st, b, e->last, defaults);
    cx_deref_result(st, b, e, fn);
}

/* An overloaded operator: a, b its operands (b NULL for unary ones). */
static void cx_lower_operator(cx_state *st, cx_body *b, cx_expr *e, cx_expr *x,
                              cx_expr *y)
{
    cx_decl *fn = e->decl;
    cx_function *f = fn->fn;
    uint32_t mask = 0;
    const char *open0 = "", *close0 = "", *open1 = "", *close1 = "";
    cx_lower_expr(st, b, x, NULL);
    if (f->is_method) {
        cx_object_arg(st, b, x, 0, &mask, &open0, &close0);
        if (y != NULL && e->kind != CXE_POSTFIX) {
            const cx_type *p = f->params[0].type;
            if (cx_is_ref(p)) {
                const cx_type *yt = cx_strip_ref(y->type);
                if (y->lvalue && cx_binds(st, p->base, yt)) {
                    cx_lower_expr(st, b, y, NULL);
                    open1 = cx_address_plain(y) ? "&" : "&(";
                    close1 = cx_address_plain(y) ? "" : ")";
                } else {
                    cx_lower_expr(st, b, y, cx_unqualified(st, p->base));
                    mask |= 2u;
                }
            } else {
                cx_lower_expr(st, b, y, p);
            }
        }
    } else {
        const cx_type *p0 = f->params[0].type;
        if (cx_is_ref(p0)) {
            const cx_type *xt = cx_strip_ref(x->type);
            if (x->lvalue && cx_binds(st, p0->base, xt)) {
                open0 = cx_address_plain(x) ? "&" : "&(";
                close0 = cx_address_plain(x) ? "" : ")";
            } else {
                mask |= 2u;
            }
        } else {
            cx_convert(st, b, x, p0);
        }
        if (y != NULL && e->kind != CXE_POSTFIX && f->param_count > 1) {
            const cx_type *p1 = f->params[1].type;
            if (cx_is_ref(p1)) {
                const cx_type *yt = cx_strip_ref(y->type);
                if (y->lvalue && cx_binds(st, p1->base, yt)) {
                    cx_lower_expr(st, b, y, NULL);
                    open1 = cx_address_plain(y) ? "&" : "&(";
                    close1 = cx_address_plain(y) ? "" : ")";
                } else {
                    cx_lower_expr(st, b, y, cx_unqualified(st, p1->base));
                    mask |= 4u;
                }
            } else {
                cx_lower_expr(st, b, y, p1);
            }
        }
    }
    const char *name = cx_callee_name(st, fn, mask);
    switch (e->kind) {
    case CXE_BINARY:
    case CXE_ASSIGN:
        cx_prepend(st, b, x->first, cx_printf(st, "%s(%s", name, open0));
        cx_append(st, b, x->last, close0);
        cx_set(b, e->op_token, cx_printf(st, ", %s", open1));
        cx_append(st, b, y->last, cx_printf(st, "%s)", close1));
        break;
    case CXE_UNARY:
        cx_set(b, e->op_token, cx_printf(st, "%s(%s", name, open0));
        cx_append(st, b, x->last, cx_printf(st, "%s)", close0));
        break;
    case CXE_POSTFIX:
        cx_prepend(st, b, x->first, cx_printf(st, "%s(%s", name, open0));
        cx_set(b, e->op_token, cx_printf(st, "%s, 0)", close0));
        break;
    case CXE_INDEX:
        cx_prepend(st, b, x->first, cx_printf(st, "%s(%s", name, open0));
        cx_append(st, b, x->last, close0);
        cx_set(b, e->op_token, cx_printf(st, ", %s", open1));
        cx_set(b, e->last, cx_printf(st, "%s)", close1));
        break;
    default:
        break;
    }
    cx_deref_result(st, b, e, fn);
}

/* An operator expression: a call of the overloaded operator its operands
 * chose (e->decl), else the operator as it is, its operands lowered (the
 * right side of a plain assignment converted to the left's type). */
static void cx_lower_operands(cx_state *st, cx_body *b, cx_expr *e)
{
    int unary = e->kind == CXE_UNARY || e->kind == CXE_POSTFIX;
    if (e->decl != NULL) {
        cx_lower_operator(st, b, e, e->a, unary ? NULL : e->b);
        return;
    }
    cx_lower_expr(st, b, e->a, NULL);
    if (!unary)
        cx_lower_expr(st, b, e->b,
                      e->kind == CXE_ASSIGN && e->op == P_ASSIGN ? e->a->type
                                                                 : NULL);
}

static void cx_lower_construct(cx_state *st, cx_body *b, cx_expr *e)
{
    const cx_type *t = e->cast_type;
    cx_expr *type = e->b;
    int braces = cx_punct(st, e->op_token, P_LBRACE);
    if (t == NULL || t->kind == CXT_NAMED) {
        for (size_t k = 0; k < e->argc; ++k)
            cx_lower_expr(st, b, e->args[k], NULL);
        return;
    }
    if (t->kind != CXT_RECORD) {
        /* a functional cast: T(x) is (T)(x) */
        if (e->argc == 1)
            cx_lower_expr(st, b, e->args[0], NULL);
        cx_clear(b, type->first, type->last + 1);
        if (e->argc == 0) {
            cx_clear(b, e->op_token, e->last + 1);
            cx_set(b, type->first, cx_printf(st, "((%s)0)", cx_spell(st, t, NULL)));
            return;
        }
        cx_set(b, type->first, cx_printf(st, "((%s)", cx_spell(st, t, NULL)));
        if (braces) {
            cx_set(b, e->op_token, "(");
            cx_set(b, e->last, "))");
        } else {
            cx_append(st, b, e->last, ")");
        }
        return;
    }
    cx_use_record(st, t);
    if (e->call_kind == CXC_CONSTRUCT && e->decl != NULL) {
        cx_decl *fn = e->decl;
        uint32_t mask = cx_lower_args(st, b, fn->fn, e->args, e->argc);
        const char *defaults = cx_defaults(st, fn->fn, e->argc, e->argc > 0, &mask);
        cx_clear(b, type->first, type->last + 1);
        cx_set(b, type->first, cx_callee_name(st, fn, mask));
        cx_set(b, e->op_token, "(");
        cx_set(b, e->last, cx_printf(st, "%s)", defaults));
        return;
    }
    /* an aggregate: T{a, b} or T() (zero) */
    cx_decl *m = t->decl->scope->first;
    for (size_t k = 0; k < e->argc; ++k) {
        while (m != NULL && m->kind != CXD_FIELD)
            m = m->next;
        cx_lower_expr(st, b, e->args[k], m ? m->type : NULL);
        if (m != NULL)
            m = m->next;
    }
    if (e->argc == 1 && !braces && e->args[0]->type != NULL &&
        cx_unqualified(st, cx_strip_ref(e->args[0]->type)) == cx_unqualified(st, t)) {
        /* T(t): a copy */
        cx_clear(b, type->first, type->last + 1);
        return;
    }
    cx_clear(b, type->first, type->last + 1);
    cx_set(b, type->first, cx_aggregate_maker(st, t->decl, e->argc));
    cx_set(b, e->op_token, "(");
    cx_set(b, e->last, ")");
}

static void cx_lower_cast(cx_state *st, cx_body *b, cx_expr *e)
{
    const cx_type *t = e->cast_type;
    int named = cx_ident(st, e->first);
    const cx_type *target = cx_strip_ref(t);
    /* a class type: a constructor or a conversion function */
    if (!cx_is_ref(t) && target != NULL &&
        (target->kind == CXT_RECORD ||
         (e->a->type != NULL && cx_strip_ref(e->a->type)->kind == CXT_RECORD))) {
        cx_lower_expr(st, b, e->a, t);
        if (named) {
            cx_clear(b, e->first, e->op_token + 1);
            cx_clear(b, e->op_token, e->name_first + 1);
        } else {
            cx_clear(b, e->first, e->name_first + 1);
        }
        return;
    }
    cx_lower_expr(st, b, e->a, NULL);
    if (cx_is_ref(t)) {
        const char *pointer = cx_spell(st, cx_pointer(st, t->base), NULL);
        if (named) {
            cx_clear(b, e->first, e->name_first + 2);
            cx_set(b, e->first, cx_printf(st, "(*(%s)&(", pointer));
            cx_set(b, e->last, ")))");
        } else {
            cx_clear(b, e->first, e->name_first + 1);
            cx_set(b, e->first, cx_printf(st, "(*(%s)&(", pointer));
            cx_append(st, b, e->last, "))");
        }
        return;
    }
    cx_use_record(st, t);
    if (named) {
        /* static_cast<T>(x) -> ((T)(x)) */
        cx_clear(b, e->first, e->name_first + 1);
        cx_set(b, e->first, cx_printf(st, "((%s)", cx_spell(st, t, NULL)));
        cx_append(st, b, e->last, ")");
    } else {
        cx_respell_type(st, b, e->op_token + 1, e->name_first, t);
    }
}

void cx_lower_expr(cx_state *st, cx_body *b, cx_expr *e, const cx_type *target)
{
    if (e == NULL)
        return;
    switch (e->kind) {
    case CXE_NAME:
        cx_lower_name(st, b, e);
        break;
    case CXE_THIS:
        if (!e->implicit_this)
            cx_set(b, e->first, CX_THIS);
        break;
    case CXE_LITERAL:
    case CXE_STRING:
        break;
    case CXE_TYPE:
        if (e->cast_type != NULL)
            cx_respell_type(st, b, e->first, e->last + 1, e->cast_type);
        break;
    case CXE_CALL:
        cx_lower_call(st, b, e);
        break;
    case CXE_CONSTRUCT:
        cx_lower_construct(st, b, e);
        break;
    case CXE_MEMBER: {
        cx_decl *d = e->decl;
        if (d != NULL && (d->kind == CXD_VAR || d->kind == CXD_ENUMERATOR)) {
            /* obj.static_member: the member alone */
            cx_value v = cx_decl_value(st, d);
            cx_clear(b, e->first, e->last + 1);
            cx_set(b, e->first, v.known ? cx_literal(st, v) : cx_cname(st, d));
            break;
        }
        cx_lower_expr(st, b, e->a, NULL);
        break;
    }
    case CXE_INDEX:
    case CXE_UNARY:
    case CXE_POSTFIX:
    case CXE_BINARY:
    case CXE_ASSIGN:
        cx_lower_operands(st, b, e);
        break;
    case CXE_COND:
        cx_lower_expr(st, b, e->a, NULL);
        cx_lower_expr(st, b, e->b, e->type);
        cx_lower_expr(st, b, e->c, e->type);
        break;
    case CXE_CAST:
        cx_lower_cast(st, b, e);
        break;
    case CXE_SIZEOF:
        if (e->cast_type != NULL)
            cx_respell_type(st, b, e->op_token + 1, e->last, e->cast_type);
        else
            cx_lower_expr(st, b, e->a, NULL);
        break;
    case CXE_PAREN:
        cx_lower_expr(st, b, e->a, NULL);
        break;
    case CXE_INIT_LIST:
        cx_lower_list(st, b, e, target);
        return;
    default:
        break;
    }
    if (target != NULL && e->kind != CXE_INIT_LIST)
        cx_convert(st, b, e, target);
}
