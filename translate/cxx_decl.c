/*
 * The C++ phase's declarations: specifiers, declarators, qualified names
 * and template arguments (see cxx_internal.h).  The top level, classes and
 * templates that are made of them are read in cxx_read.c.
 *
 * Types are built as they are read: a name is looked up where it stands,
 * so `T` in an instance of a template names its argument, `a::b<4>` the
 * instance of a class template, and `x * y` is a declaration only when
 * `x` names a type.  While a template's signature is read to match a
 * call's arguments (ctx->pattern), its parameters stay unbound and give
 * the placeholder types that cx_match binds.
 */
#include "cxx_internal.h"

#include <string.h>

/* ---- attributes --------------------------------------------------------------- */

/* Skips attributes at `at` (GNU's, C++11's [[...]], CUDA's
 * __launch_bounds__ and __grid_constant__); alignas and __align__ set
 * *align.  Returns the index after them. */
size_t cx_skip_attributes(cx_state *st, cx_body *ctx, size_t at,
                                 size_t end, size_t *align)
{
    for (;;) {
        if ((cx_is(st, at, W___attribute__) || cx_is(st, at, W___attribute)) &&
            cx_punct(st, at + 1, P_LPAREN)) {
            size_t close = st->match[at + 1];
            /* __attribute__((aligned(N))) */
            for (size_t k = at + 2; align != NULL && k < close; ++k)
                if (cx_ident(st, k) &&
                    strcmp(cx_ident_name(st, st->tokens[k].ident), "aligned") == 0 &&
                    cx_punct(st, k + 1, P_LPAREN)) {
                    cx_value v = cx_eval_tokens(st, ctx->scope, k + 2,
                                                st->match[k + 1]);
                    if (v.known && !v.is_float)
                        *align = (size_t)v.i;
                }
            at = close + 1;
            continue;
        }
        if (cx_punct(st, at, P_LBRACKET) && cx_punct(st, at + 1, P_LBRACKET)) {
            at = st->match[at] + 1;
            continue;
        }
        if ((cx_is(st, at, st->w.alignas_) || cx_is(st, at, st->w.align_)) &&
            cx_punct(st, at + 1, P_LPAREN)) {
            size_t close = st->match[at + 1];
            if (align != NULL) {
                const cx_type *type = NULL;
                size_t after = cx_parse_type_id(st, ctx, at + 2, close, &type);
                if (after == close && type != NULL) {
                    *align = cx_alignof(st, type);
                } else {
                    cx_value v = cx_eval_tokens(st, ctx->scope, at + 2, close);
                    if (!v.known || v.is_float)
                        cx_refuse(st, at, "cannot translate this alignment: "
                                          "it is not a constant");
                    *align = (size_t)v.i;
                }
            }
            at = close + 1;
            continue;
        }
        if ((cx_is(st, at, st->w.launch_bounds_)) && cx_punct(st, at + 1, P_LPAREN)) {
            at = st->match[at + 1] + 1;
            continue;
        }
        if (cx_is(st, at, st->w.grid_constant_)) {
            at++;
            continue;
        }
        (void)end;
        return at;
    }
}

/* ---- names -------------------------------------------------------------------- */

/* operator T*(): the type after `operator` is specifiers and pointer
 * operators only (C++'s conversion-type-id), never a parameter list. */
size_t cx_conversion_type(cx_state *st, cx_body *ctx, size_t at,
                                 size_t end, const cx_type **type)
{
    cx_specs specs;
    size_t i = cx_parse_specs(st, ctx, at, end, &specs);
    const cx_type *t = specs.type;
    if (t == NULL) {
        *type = NULL;
        return at;
    }
    for (;;) {
        if (cx_punct(st, i, P_STAR)) {
            t = cx_pointer(st, t);
            ++i;
        } else if (cx_punct(st, i, P_AMP) || cx_punct(st, i, P_ANDAND)) {
            t = cx_reference(st, t, cx_punct(st, i, P_ANDAND));
            ++i;
        } else if (cx_is(st, i, W_const) && t->kind == CXT_POINTER) {
            t = cx_qualified(st, t, CXQ_CONST);
            ++i;
        } else {
            break;
        }
    }
    *type = t;
    return i;
}

int32_t cx_operator_name(cx_state *st, size_t at, size_t *after,
                                cx_op *op)
{
    /* at: the token after `operator` */
    const clc_token *t = &st->tokens[at];
    *op = CXO_NONE;
    if (cx_punct(st, at, P_LPAREN) && cx_punct(st, at + 1, P_RPAREN)) {
        *op = CXO_CALL;
        *after = at + 2;
        return clc_intern(st->interner, "operator()", 10);
    }
    if (cx_punct(st, at, P_LBRACKET) && cx_punct(st, at + 1, P_RBRACKET)) {
        *op = CXO_INDEX;
        *after = at + 2;
        return clc_intern(st->interner, "operator[]", 10);
    }
    if (cx_is(st, at, st->w.new_) || cx_is(st, at, st->w.delete_))
        cx_refuse(st, at, "cannot translate 'operator %s': dynamic memory is "
                          "not supported in device code",
                  cx_spelling(st, at));
    if (t->kind == CLC_TOK_PUNCT) {
        *op = cx_op_of_punct(t->punct, 0);
        if (*op == CXO_NONE)
            cx_fail(st, at, "'operator%s' is not an operator", t->text);
        *after = at + 1;
        const char *name = cx_printf(st, "operator%s", t->text);
        return clc_intern(st->interner, name, strlen(name));
    }
    *op = CXO_CONVERSION;
    *after = at; /* the type follows */
    return clc_intern(st->interner, "operator conversion", 19);
}

/* The scope a name before '::' opens. */
static cx_scope *cx_scope_of(cx_decl *d)
{
    d = cx_resolve(d);
    if (d == NULL)
        return NULL;
    if (d->kind == CXD_NAMESPACE || d->kind == CXD_RECORD || d->kind == CXD_ENUM)
        return d->scope;
    if (d->kind == CXD_TYPEDEF && d->type != NULL &&
        (d->type->kind == CXT_RECORD || d->type->kind == CXT_ENUM))
        return d->type->decl->scope;
    return NULL;
}

int cx_parse_name(cx_state *st, cx_body *ctx, size_t at, size_t end,
                  cx_name *out)
{
    memset(out, 0, sizeof *out);
    out->first = at;
    cx_scope *qualifier = NULL;
    size_t i = at;
    if (cx_scope_op(st, i)) {
        qualifier = st->global;
        out->qualified = 1;
        i += 2;
    }
    for (;;) {
        if (cx_is(st, i, st->w.template_))
            ++i;
        int32_t name;
        cx_op op = CXO_NONE;
        size_t next;
        if (cx_is(st, i, st->w.operator_)) {
            name = cx_operator_name(st, i + 1, &next, &op);
            if (op == CXO_CONVERSION) {
                /* operator T: the name of every conversion function */
                const cx_type *type = NULL;
                next = cx_conversion_type(st, ctx, i + 1, end, &type);
                if (next == i + 1)
                    cx_fail(st, i, "'operator' without an operator");
            }
        } else if (cx_punct(st, i, P_TILDE) && cx_ident(st, i + 1) && qualifier) {
            /* a destructor's name */
            const char *n = cx_printf(st, "~%s", cx_spelling(st, i + 1));
            name = clc_intern(st->interner, n, strlen(n));
            next = i + 2;
        } else if (cx_ident(st, i)) {
            name = st->tokens[i].ident;
            next = i + 1;
        } else {
            if (i == at)
                return 0;
            cx_fail(st, i, "a name was expected after '::'");
        }
        out->name_token = i;
        cx_decl *d = qualifier ? cx_lookup_qualified(st, qualifier, name)
                               : cx_lookup(st, ctx->scope, name);
        cx_decl *r = cx_resolve(d);
        /* the injected name of a class template instance names the
         * template when arguments follow */
        if (r != NULL && r->kind == CXD_TYPEDEF && r->target != NULL &&
            cx_punct(st, next, P_LT))
            d = r = r->target;
        out->decl = d;
        i = next;
        out->targs = NULL;
        out->targ_count = 0;
        out->has_targs = 0;
        if (r != NULL && r->kind == CXD_TEMPLATE && cx_punct(st, i, P_LT)) {
            i = cx_parse_template_args(st, ctx, i, end, &out->targs,
                                       &out->targ_count);
            out->has_targs = 1;
        }
        int more = cx_scope_op(st, i) &&
                   (cx_ident(st, i + 2) || cx_punct(st, i + 2, P_TILDE) ||
                    cx_is(st, i + 2, st->w.operator_));
        if (!more)
            break;
        /* a qualifier */
        out->qualified = 1;
        cx_scope *next_scope = NULL;
        if (r != NULL && r->kind == CXD_TEMPLATE && out->has_targs &&
            r->tmpl->kind == CXTM_RECORD) {
            int dependent = 0;
            for (size_t k = 0; k < out->targ_count; ++k)
                dependent |= cx_is_dependent(out->targs[k]);
            if (dependent) {
                out->dependent = 1;
            } else {
                const cx_type *inst = cx_record_instance(
                    st, r->tmpl, out->targs, out->targ_count, out->first);
                next_scope = inst->decl->scope;
            }
        } else if (r != NULL && r->kind == CXD_TPARAM) {
            out->dependent = 1;
        } else if (r != NULL && r->kind == CXD_TYPEDEF && r->type != NULL &&
                   cx_is_dependent(r->type)) {
            out->dependent = 1;
        } else {
            next_scope = cx_scope_of(r);
        }
        if (out->dependent) {
            /* skip the rest: a member of a type not known yet */
            i += 2;
            while (cx_ident(st, i) || cx_is(st, i, st->w.template_)) {
                out->name_token = i;
                ++i;
                if (cx_punct(st, i, P_LT) && cx_is(st, i - 2, st->w.template_)) {
                    const cx_type **skip;
                    size_t n;
                    i = cx_parse_template_args(st, ctx, i, end, &skip, &n);
                }
                if (!cx_scope_op(st, i))
                    break;
                i += 2;
            }
            out->decl = NULL;
            out->last = i - 1;
            return 1;
        }
        if (next_scope == NULL) {
            if (r == NULL) {
                /* an unknown namespace or class: the whole name */
                i += 2;
                while (cx_ident(st, i) && cx_scope_op(st, i + 1))
                    i += 3;
                if (cx_ident(st, i))
                    out->name_token = i++;
                out->decl = NULL;
                out->last = i - 1;
                return 1;
            }
            cx_fail(st, out->name_token, "'%s' is not a namespace or a class",
                    cx_spelling(st, out->name_token));
        }
        qualifier = next_scope;
        i += 2;
    }
    out->last = i - 1;
    return 1;
}

const cx_type *cx_name_type(cx_state *st, cx_body *ctx, cx_name *name)
{
    if (name->dependent)
        return ctx->pattern ? cx_list_type(st, CXT_DEPENDENT, NULL, NULL, 0)
                            : NULL;
    cx_decl *d = cx_resolve(name->decl);
    if (d == NULL)
        return NULL;
    switch (d->kind) {
    case CXD_TYPEDEF:
        return d->type;
    case CXD_RECORD:
    case CXD_ENUM:
        return cx_record_type(st, d);
    case CXD_TPARAM:
        if (d->value.known || d->type != NULL)
            return NULL; /* a value parameter */
        {
            cx_type proto = {.kind = CXT_TPARAM, .decl = d};
            return cx_type_get(st, &proto);
        }
    case CXD_TEMPLATE: {
        cx_template *tmpl = d->tmpl;
        if (tmpl->kind != CXTM_RECORD && tmpl->kind != CXTM_ALIAS)
            return NULL;
        if (!name->has_targs) {
            /* a class template's name alone: its default arguments */
            int all_defaults = tmpl->param_count > 0;
            for (size_t k = 0; k < tmpl->param_count; ++k)
                all_defaults &= tmpl->params[k].default_begin != 0;
            if (!all_defaults)
                return NULL;
        }
        int dependent = 0;
        for (size_t k = 0; k < name->targ_count; ++k)
            dependent |= cx_is_dependent(name->targs[k]);
        if (dependent)
            return tmpl->kind == CXTM_RECORD
                       ? cx_list_type(st, CXT_TEMPLATE_ID, d, name->targs,
                                      name->targ_count)
                       : cx_list_type(st, CXT_DEPENDENT, NULL, NULL, 0);
        if (tmpl->kind == CXTM_RECORD)
            return cx_record_instance(st, tmpl, name->targs, name->targ_count,
                                      name->first);
        /* an alias template: its type with the arguments bound */
        const cx_type **full;
        cx_scope *bound = cx_bind(st, tmpl, tmpl->scope, name->targs,
                                  name->targ_count, name->first, &full);
        cx_body inner = *ctx;
        inner.scope = bound;
        inner.edits = NULL;
        inner.pattern = 0;
        const cx_type *type = NULL;
        size_t eq = tmpl->begin;
        while (eq < tmpl->end && !cx_punct(st, eq, P_ASSIGN))
            ++eq;
        cx_parse_type_id(st, &inner, eq + 1, tmpl->end, &type);
        return type;
    }
    default:
        return NULL;
    }
}

/* ---- template arguments -------------------------------------------------------- */

/* One template argument [at, end of it): a type or a constant. */
static const cx_type *cx_template_arg(cx_state *st, cx_body *ctx, size_t at,
                                      size_t end, size_t *after)
{
    if (cx_starts_type(st, ctx, at)) {
        const cx_type *type = NULL;
        size_t next = cx_parse_type_id(st, ctx, at, end, &type);
        if (next != at && type != NULL &&
            (cx_punct(st, next, P_COMMA) || cx_punct(st, next, P_GT) ||
             cx_punct(st, next, P_SHR) || cx_punct(st, next, P_GE) ||
             next == end)) {
            *after = next;
            return type;
        }
    }
    cx_body inner = *ctx;
    inner.edits = NULL;
    inner.in_template_args = 1;
    cx_expr *e = cx_parse_assign(st, &inner, at, end, after);
    /* a bare unbound parameter, as in Vec<T, N> */
    if (e->kind == CXE_NAME && e->decl != NULL && e->decl->kind == CXD_TPARAM) {
        cx_type proto = {.kind = CXT_VALUE, .decl = e->decl};
        return cx_type_get(st, &proto);
    }
    cx_value v = cx_eval(st, &inner, e);
    if (!v.known) {
        if (ctx->pattern)
            return cx_list_type(st, CXT_DEPENDENT, NULL, NULL, 0);
        cx_refuse(st, at, "cannot translate this template argument: it is "
                          "not a constant this translation can evaluate");
    }
    if (v.is_float)
        cx_refuse(st, at, "cannot translate a floating-point template "
                          "argument");
    const cx_type *type = cx_unqualified(st, cx_strip_ref(v.type));
    if (type == NULL || !(cx_is_integral(type) || type->kind == CXT_ENUM))
        type = cx_scalar(st, CXT_LLONG);
    return cx_value_type(st, type, v.i);
}

size_t cx_parse_template_args(cx_state *st, cx_body *ctx, size_t open,
                              size_t end, const cx_type ***args, size_t *count)
{
    size_t i = open + 1;
    const cx_type **list = NULL;
    size_t n = 0;
    if (st->pending_gt == open + 1 || cx_punct(st, i, P_GT)) {
        *args = NULL;
        *count = 0;
        return i + 1;
    }
    for (;;) {
        size_t after;
        const cx_type *arg = cx_template_arg(st, ctx, i, end, &after);
        list = cx_grow(st, list, n, sizeof *list);
        list[n++] = arg;
        if (cx_punct(st, after, P_ELLIPSIS))
            cx_refuse(st, after, "cannot translate a pack expansion: "
                                 "variadic templates are not supported");
        if (cx_punct(st, after, P_COMMA)) {
            i = after + 1;
            continue;
        }
        if (cx_punct(st, after, P_GT)) {
            if (st->pending_gt == after) {
                /* the second half of a '>>' another list closed */
                st->pending_gt = 0;
            }
            *args = list;
            *count = n;
            return after + 1;
        }
        if (cx_punct(st, after, P_SHR)) {
            /* '>>' closes this list and the enclosing one */
            if (st->pending_gt == after) {
                st->pending_gt = 0;
                *args = list;
                *count = n;
                return after + 1;
            }
            st->pending_gt = after;
            *args = list;
            *count = n;
            return after; /* the enclosing list sees the second '>' here */
        }
        cx_fail(st, after < st->count ? after : i,
                "'>' was expected after a template argument");
    }
}

/* ---- specifiers -------------------------------------------------------------- */

int cx_starts_type(cx_state *st, cx_body *ctx, size_t at)
{
    if (!cx_ident(st, at) && !cx_scope_op(st, at))
        return 0;
    if (cx_ident(st, at)) {
        int32_t id = st->tokens[at].ident;
        switch (id) {
        case W_void: case W_char: case W_short: case W_int: case W_long:
        case W_float: case W_double: case W_signed: case W_unsigned:
        case W_bool: case W__Bool: case W_const: case W_volatile:
        case W_struct: case W_union: case W_enum: case W___signed__:
        case W___signed: case W___const:
            return 1;
        default:
            break;
        }
        if (id == st->w.typename_ || id == st->w.class_ ||
            id == st->w.decltype_ || id == W_auto)
            return 1;
    }
    cx_name name;
    size_t saved_pending = st->pending_gt;
    /* a name's lookup is all it takes; its template arguments are read */
    if (!cx_parse_name(st, ctx, at, st->count, &name)) {
        st->pending_gt = saved_pending;
        return 0;
    }
    st->pending_gt = saved_pending;
    if (name.dependent)
        return ctx->pattern || cx_is(st, at - 1, st->w.typename_);
    cx_decl *d = cx_resolve(name.decl);
    if (d == NULL)
        return 0;
    if (d->kind == CXD_TYPEDEF || d->kind == CXD_RECORD || d->kind == CXD_ENUM)
        return 1;
    if (d->kind == CXD_TPARAM)
        return d->type == NULL && !d->value.known;
    if (d->kind == CXD_TEMPLATE)
        return d->tmpl->kind == CXTM_RECORD || d->tmpl->kind == CXTM_ALIAS;
    return 0;
}

static const cx_type *cx_builtin_type(cx_state *st, size_t at, int longs,
                                      int is_signed, int is_unsigned, int base)
{
    cx_type_kind k;
    switch (base) {
    case W_void: k = CXT_VOID; break;
    case W_bool: case W__Bool: k = CXT_BOOL; break;
    case W_char:
        k = is_unsigned ? CXT_UCHAR : is_signed ? CXT_SCHAR : CXT_CHAR;
        break;
    case W_short: k = is_unsigned ? CXT_USHORT : CXT_SHORT; break;
    case W_float: k = CXT_FLOAT; break;
    case W_double: k = CXT_DOUBLE; break; /* long double: double on devices */
    default:
        if (longs == 0)
            k = is_unsigned ? CXT_UINT : CXT_INT;
        else if (longs == 1)
            k = is_unsigned ? CXT_ULONG : CXT_LONG;
        else
            k = is_unsigned ? CXT_ULLONG : CXT_LLONG;
        break;
    }
    (void)at;
    return cx_scalar(st, k);
}

size_t cx_parse_specs(cx_state *st, cx_body *ctx, size_t at, size_t end,
                      cx_specs *specs)
{
    memset(specs, 0, sizeof *specs);
    const cx_type *type = NULL;
    int longs = 0, is_signed = 0, is_unsigned = 0, base = 0, builtin = 0;
    size_t i = at;
    while (i < end) {
        size_t skipped = cx_skip_attributes(st, ctx, i, end, &specs->align);
        if (skipped != i) {
            i = skipped;
            continue;
        }
        if (!cx_ident(st, i) && !cx_scope_op(st, i))
            break;
        int32_t id = cx_ident(st, i) ? st->tokens[i].ident : -1;
        uint32_t flag = 0;
        if (id == st->w.device_) flag = CXF_DEVICE;
        else if (id == st->w.global_) flag = CXF_KERNEL | CXF_DEVICE;
        else if (id == st->w.host_) flag = CXF_HOST;
        else if (id == st->w.shared_) flag = CXF_SHARED;
        else if (id == st->w.constant_) flag = CXF_CONSTANT;
        else if (id == st->w.constexpr_ || id == st->w.consteval_ ||
                 id == st->w.constinit_) flag = CXF_CONSTEXPR;
        else if (id == W_static) flag = CXF_STATIC;
        else if (id == W_extern) flag = CXF_EXTERN;
        else if (id == W_inline || id == W___inline__ || id == W___inline)
            flag = CXF_INLINE;
        else if (id == st->w.forceinline_) flag = CXF_FORCEINLINE;
        else if (id == st->w.noinline_) flag = CXF_NOINLINE;
        else if (id == st->w.explicit_) flag = CXF_EXPLICIT;
        else if (id == st->w.friend_) flag = CXF_FRIEND;
        else if (id == st->w.virtual_) flag = CXF_VIRTUAL;
        else if (id == st->w.mutable_) flag = CXF_MUTABLE;
        else if (id == W_typedef) flag = CXF_TYPEDEF;
        if (id == st->w.managed_)
            cx_refuse(st, i, "cannot translate '__managed__': managed memory "
                             "is not supported by OpenCL");
        if (id == st->w.thread_local_ || id == W__Thread_local)
            cx_refuse(st, i, "cannot translate 'thread_local' in device code");
        if (flag != 0) {
            specs->flags |= flag;
            if (flag == CXF_TYPEDEF)
                specs->is_typedef = 1;
            ++i;
            continue;
        }
        if (id == W_register || id == W___extension__) {
            ++i;
            continue;
        }
        if (id == W_const || id == W___const) {
            specs->quals |= CXQ_CONST;
            ++i;
            continue;
        }
        if (id == W_volatile || id == W___volatile__ || id == W___volatile) {
            specs->quals |= CXQ_VOLATILE;
            ++i;
            continue;
        }
        if (id == W_restrict || id == W___restrict || id == W___restrict__) {
            ++i;
            continue;
        }
        if (id == W_long) { longs++; builtin = 1; ++i; continue; }
        if (id == W_signed || id == W___signed__ || id == W___signed) {
            is_signed = 1; builtin = 1; ++i; continue;
        }
        if (id == W_unsigned) { is_unsigned = 1; builtin = 1; ++i; continue; }
        if (id == W_void || id == W_char || id == W_short || id == W_int ||
            id == W_float || id == W_double || id == W_bool || id == W__Bool) {
            if (type != NULL || (base != 0 && base != W_int && id != W_int))
                cx_fail(st, i, "two types in one declaration");
            if (id != W_int || base == 0)
                base = id == W_int && base != 0 ? base : id;
            builtin = 1;
            ++i;
            continue;
        }
        if (builtin || type != NULL)
            break; /* the declarator's name */
        if (id == W_auto) {
            type = cx_list_type(st, CXT_AUTO, NULL, NULL, 0);
            specs->has_auto = 1;
            ++i;
            continue;
        }
        if (id == W_struct || id == W_union || id == st->w.class_) {
            cx_decl *record = NULL;
            i = cx_read_record_specifier(st, ctx, i, end, &record);
            type = cx_record_type(st, record);
            if (record->rec->body_open != 0 && specs->record == NULL &&
                record->rec->body_close < i) {
                specs->defined_record = 1;
                specs->record = record;
            }
            continue;
        }
        if (id == W_enum) {
            cx_decl *decl = NULL;
            size_t before = i;
            i = cx_read_enum_specifier(st, ctx, i, end, &decl);
            type = cx_record_type(st, decl);
            for (size_t k = before; k < i; ++k)
                if (cx_punct(st, k, P_LBRACE)) {
                    specs->defined_record = 1;
                    specs->record = decl;
                    break;
                }
            continue;
        }
        if (id == st->w.decltype_) {
            if (!cx_punct(st, i + 1, P_LPAREN))
                cx_fail(st, i, "'decltype' without '('");
            size_t close = st->match[i + 1];
            cx_body inner = *ctx;
            inner.edits = NULL;
            size_t after;
            cx_expr *e = cx_parse_expr(st, &inner, i + 2, close, 1, &after);
            if (e->type == NULL) {
                if (ctx->pattern)
                    type = cx_list_type(st, CXT_DEPENDENT, NULL, NULL, 0);
                else
                    cx_refuse(st, i, "cannot translate 'decltype': the type "
                                     "of its expression is not known here");
            } else if (e->kind == CXE_NAME || e->kind == CXE_MEMBER) {
                type = e->type; /* the declared type */
                if (e->decl != NULL && (e->decl->flags & CXF_REFERENCE))
                    type = cx_reference(st, type, 0);
            } else {
                type = e->lvalue ? cx_reference(st, e->type, 0) : e->type;
            }
            i = close + 1;
            continue;
        }
        if (id == st->w.typename_) {
            cx_name name;
            if (!cx_parse_name(st, ctx, i + 1, end, &name))
                cx_fail(st, i, "a name was expected after 'typename'");
            type = cx_name_type(st, ctx, &name);
            if (type == NULL)
                cx_fail(st, i + 1, "'%s' does not name a type",
                        cx_spelling(st, name.name_token));
            i = name.last + 1;
            continue;
        }
        /* a name */
        if (!cx_starts_type(st, ctx, i))
            break;
        cx_name name;
        cx_parse_name(st, ctx, i, end, &name);
        type = cx_name_type(st, ctx, &name);
        if (type == NULL)
            break;
        i = name.last + 1;
    }
    if (builtin) {
        if (type != NULL)
            cx_fail(st, at, "two types in one declaration");
        type = cx_builtin_type(st, at, longs, is_signed, is_unsigned, base);
    }
    if (type != NULL && specs->quals)
        type = cx_qualified(st, type, specs->quals);
    specs->type = type;
    specs->end = i;
    return i;
}
