/*
 * The C++ phase's templates (see cxx_internal.h): binding parameters to
 * arguments, deducing a function template's arguments from a call, and
 * the instances of function and class templates, one per argument list
 * (specialisations first).
 *
 * An instance is made by reading the template's own tokens again in a
 * scope where its parameters name the arguments (a typedef for a type,
 * a constant for a value), so that everything C++ lets a template say —
 * nested templates, dependent names, `typename T::x`, constant
 * expressions of the parameters — is read as it would be for a plain
 * declaration of those types and values.
 */
#include "cxx_internal.h"

#include <string.h>

/* ---- binding ---------------------------------------------------------------- */

/* The value of a non-type parameter of type `type` for argument `arg`. */
static const cx_type *cx_value_arg(cx_state *st, const cx_type *type,
                                   const cx_type *arg, size_t at)
{
    if (arg == NULL || arg->kind != CXT_VALUE || arg->decl != NULL)
        cx_fail(st, at, "a value was expected as this template argument");
    cx_value v = {.known = 1, .i = arg->length, .type = arg->base};
    type = cx_unqualified(st, cx_strip_ref(type));
    if (type == NULL || type->kind == CXT_AUTO)
        type = arg->base;
    v = cx_convert_value(st, v, type);
    return cx_value_type(st, type, v.i);
}

cx_scope *cx_bind(cx_state *st, cx_template *tmpl, cx_scope *parent,
                  const cx_type *const *args, size_t count, size_t at,
                  const cx_type ***full_args)
{
    if (count > tmpl->param_count)
        cx_fail(st, at, "too many template arguments for '%s' (%zu, it takes "
                        "%zu)",
                cx_ident_name(st, tmpl->name), count, tmpl->param_count);
    cx_scope *scope = cx_scope_new(st, CXS_TEMPLATE, parent, NULL);
    const cx_type **full = clc_arena_alloc(
        st->arena, (tmpl->param_count ? tmpl->param_count : 1) * sizeof *full);
    cx_body ctx = {0};
    ctx.scope = scope;
    for (size_t k = 0; k < tmpl->param_count; ++k) {
        cx_tparam *p = &tmpl->params[k];
        const cx_type *arg = k < count ? args[k] : NULL;
        if (arg == NULL) {
            if (p->default_begin == 0)
                cx_fail(st, at, "too few template arguments for '%s': '%s' "
                                "has no default",
                        cx_ident_name(st, tmpl->name),
                        cx_ident_name(st, p->name));
            if (p->is_type) {
                size_t after = cx_parse_type_id(st, &ctx, p->default_begin,
                                                p->default_end, &arg);
                /* = rc<T>> at the head's end: the default's list took
                 * the '>>' and left its second '>' for the head's */
                if (after + 1 == p->default_end && st->pending_gt == after &&
                    cx_punct(st, after, P_SHR)) {
                    st->pending_gt = 0;
                    after = p->default_end;
                }
                if (arg == NULL || after != p->default_end)
                    cx_fail(st, p->default_begin, "a type was expected as the "
                                                  "default");
            } else {
                cx_value v = cx_eval_tokens(st, scope, p->default_begin,
                                            p->default_end);
                if (!v.known || v.is_float)
                    cx_refuse(st, p->default_begin,
                              "cannot translate this default template "
                              "argument: it is not a constant this "
                              "translation can evaluate");
                arg = cx_value_type(st, v.type ? v.type : cx_scalar(st, CXT_INT),
                                    v.i);
            }
        }
        if (p->is_type) {
            if (arg->kind == CXT_VALUE)
                cx_fail(st, at, "a type was expected as template argument %zu "
                                "of '%s'",
                        k + 1, cx_ident_name(st, tmpl->name));
            cx_decl *d = cx_decl_new(st, CXD_TYPEDEF, p->name, p->token);
            d->type = arg;
            cx_declare(st, scope, d);
            full[k] = arg;
        } else {
            const cx_type *type = NULL;
            if (p->type_begin < p->type_end)
                cx_parse_type_id(st, &ctx, p->type_begin, p->type_end, &type);
            if (type == NULL)
                type = cx_scalar(st, CXT_INT);
            const cx_type *value = cx_value_arg(st, type, arg, at);
            cx_decl *d = cx_decl_new(st, CXD_VALUE, p->name, p->token);
            d->type = value->base;
            d->value.known = 1;
            d->value.i = value->length;
            d->value.type = value->base;
            cx_declare(st, scope, d);
            full[k] = value;
        }
    }
    *full_args = full;
    return scope;
}

/* ---- matching ------------------------------------------------------------------- */

int cx_match(cx_state *st, const cx_type *pattern, const cx_type *arg,
             const cx_type **bound, size_t bound_count)
{
    if (pattern == NULL || arg == NULL)
        return 0;
    switch (pattern->kind) {
    case CXT_TPARAM: {
        unsigned k = pattern->decl->index;
        if (k >= bound_count)
            return 0;
        /* const T against const float binds T = float; against float it
         * is a qualification conversion (the caller allows it under a
         * pointer or a reference) */
        const cx_type *value = arg;
        if (pattern->quals) {
            unsigned quals = arg->quals & ~(unsigned)pattern->quals;
            cx_type proto = *arg;
            proto.quals = (uint8_t)quals;
            proto.next = NULL;
            value = arg->kind == CXT_LREF || arg->kind == CXT_RREF ||
                            arg->kind == CXT_FUNCTION
                        ? arg
                        : cx_type_get(st, &proto);
        }
        if (bound[k] == NULL) {
            bound[k] = value;
            return 1;
        }
        return bound[k] == value;
    }
    case CXT_VALUE:
        if (pattern->decl != NULL) {
            unsigned k = pattern->decl->index;
            if (k >= bound_count || arg->kind != CXT_VALUE || arg->decl != NULL)
                return 0;
            if (bound[k] == NULL) {
                bound[k] = arg;
                return 1;
            }
            return bound[k]->length == arg->length;
        }
        return arg->kind == CXT_VALUE && arg->length == pattern->length;
    case CXT_DEPENDENT:
        return 1; /* not deduced from */
    case CXT_POINTER:
    case CXT_LREF:
    case CXT_RREF:
        if (arg->kind != pattern->kind)
            return 0;
        return cx_match(st, pattern->base, arg->base, bound, bound_count);
    case CXT_ARRAY:
        if (arg->kind != CXT_ARRAY)
            return 0;
        if (pattern->decl != NULL) {
            /* T[N] against float[3]: N is 3 */
            unsigned k = pattern->decl->index;
            if (k >= bound_count || arg->length < 0)
                return 0;
            const cx_type *value = cx_value_type(st, cx_scalar(st, CXT_ULONG),
                                                 arg->length);
            if (bound[k] == NULL)
                bound[k] = value;
            else if (bound[k]->length != arg->length)
                return 0;
        } else if (pattern->length >= 0 && pattern->length != arg->length) {
            return 0;
        }
        return cx_match(st, pattern->base, arg->base, bound, bound_count);
    case CXT_TEMPLATE_ID: {
        if (arg->kind != CXT_RECORD || arg->decl->rec == NULL ||
            arg->decl->rec->from != pattern->decl->tmpl)
            return 0;
        const cx_type *const *args = arg->decl->rec->args;
        size_t n = pattern->decl->tmpl->param_count;
        for (size_t k = 0; k < pattern->param_count && k < n; ++k)
            if (!cx_match(st, pattern->params[k], args[k], bound, bound_count))
                return 0;
        return 1;
    }
    case CXT_FUNCTION:
        if (arg->kind != CXT_FUNCTION || arg->param_count != pattern->param_count)
            return 0;
        if (!cx_match(st, pattern->base, arg->base, bound, bound_count))
            return 0;
        for (uint32_t k = 0; k < pattern->param_count; ++k)
            if (!cx_match(st, pattern->params[k], arg->params[k], bound,
                          bound_count))
                return 0;
        return 1;
    default:
        /* not dependent: the call's conversions decide */
        return 1;
    }
}

/* Whether every template parameter `t` mentions is among the first
 * `given` (given explicitly: an argument for them is converted, not
 * deduced from). */
static int cx_only_given(const cx_type *t, size_t given)
{
    if (t == NULL)
        return 1;
    switch (t->kind) {
    case CXT_TPARAM:
        return t->decl->index < given;
    case CXT_VALUE:
        return t->decl == NULL || t->decl->index < given;
    case CXT_ARRAY:
        return (t->decl == NULL || t->decl->index < given) &&
               cx_only_given(t->base, given);
    case CXT_POINTER: case CXT_LREF: case CXT_RREF:
        return cx_only_given(t->base, given);
    case CXT_TEMPLATE_ID:
    case CXT_FUNCTION:
        if (t->kind == CXT_FUNCTION && !cx_only_given(t->base, given))
            return 0;
        for (uint32_t k = 0; k < t->param_count; ++k)
            if (!cx_only_given(t->params[k], given))
                return 0;
        return 1;
    case CXT_DEPENDENT:
        return 0;
    default:
        return 1;
    }
}

const cx_type *const *cx_deduce(cx_state *st, cx_template *tmpl,
                                const cx_type *const *explicit_args,
                                size_t explicit_count, cx_expr **args,
                                size_t argc, size_t at)
{
    (void)at;
    size_t n = tmpl->param_count;
    if (explicit_count > n)
        return NULL;
    const cx_type **bound = clc_arena_alloc(st->arena, (n ? n : 1) * sizeof *bound);
    for (size_t k = 0; k < explicit_count; ++k) {
        if (tmpl->params[k].is_type != (explicit_args[k]->kind != CXT_VALUE))
            return NULL;
        bound[k] = explicit_args[k];
    }
    cx_function *pattern = tmpl->pattern->fn;
    if (argc > pattern->param_count)
        return NULL;
    for (size_t i = 0; i < argc; ++i) {
        const cx_type *p = pattern->params[i].type;
        const cx_type *a = args[i]->type;
        if (!cx_is_dependent(p) || cx_only_given(p, explicit_count))
            continue;
        if (a == NULL)
            return NULL; /* an argument of unknown type */
        if (p->kind == CXT_LREF || p->kind == CXT_RREF) {
            p = p->base;
            a = cx_strip_ref(a);
            if (p->kind == CXT_TPARAM && p->quals == 0 &&
                pattern->params[i].type->kind == CXT_RREF)
                a = cx_strip_ref(a); /* T&& deduces T (forwarding: as T&) */
        } else {
            p = cx_unqualified(st, p);
            a = cx_decay(st, a);
        }
        if (args[i]->kind == CXE_INIT_LIST)
            continue; /* a braced list deduces nothing */
        /* 0 or NULL for T*: no deduction from a null pointer constant */
        if (!cx_match(st, p, a, bound, n))
            return NULL;
    }
    /* what was not deduced: the defaults */
    for (size_t k = 0; k < n; ++k)
        if (bound[k] == NULL && tmpl->params[k].default_begin == 0)
            return NULL;
    const cx_type **full;
    cx_bind(st, tmpl, tmpl->scope, bound, n, at, &full);
    return cx_type_list(st, full, n);
}

/* ---- instances ------------------------------------------------------------------ */

static cx_decl *cx_instance_find(cx_template *tmpl, const cx_type *const *args)
{
    for (cx_instance *in = tmpl->instances; in != NULL; in = in->next)
        if (in->args == args)
            return in->decl;
    return NULL;
}

static void cx_instance_add(cx_state *st, cx_template *tmpl,
                            const cx_type *const *args, cx_decl *decl)
{
    cx_instance *in = clc_arena_alloc(st->arena, sizeof *in);
    in->args = args;
    in->decl = decl;
    in->next = tmpl->instances;
    tmpl->instances = in;
}

cx_decl *cx_function_instance(cx_state *st, cx_template *tmpl,
                              const cx_type *const *args, size_t at)
{
    cx_decl *found = cx_instance_find(tmpl, args);
    if (found != NULL)
        return found;
    for (cx_specialization *s = tmpl->specs; s != NULL; s = s->next)
        if (s->params == NULL && s->args == args && s->decl != NULL)
            return s->decl;
    const cx_type **full;
    cx_scope *bound = cx_bind(st, tmpl, tmpl->scope, args, tmpl->param_count,
                              at, &full);
    cx_body ctx = {0};
    ctx.scope = bound;
    cx_decl *decl = cx_read_function(st, &ctx, tmpl->begin, tmpl->end,
                                     tmpl->flags & (CXF_EXTERN_C | CXF_BUILTIN),
                                     tmpl, args, 0);
    if (decl == NULL)
        cx_fail(st, at, "'%s' is not a device function",
                cx_ident_name(st, tmpl->name));
    if (tmpl->begin < st->user_begin) /* __ldg<T> & co.: the prelude's */
        decl->flags |= CXF_BUILTIN;
    decl->parent = tmpl->scope;
    cx_instance_add(st, tmpl, args, decl);
    return decl;
}

/* The arguments a partial specialisation's pattern binds for `args`;
 * NULL when it does not match them. */
static const cx_type *const *cx_partial_match(cx_state *st,
                                              cx_specialization *spec,
                                              const cx_type *const *args,
                                              size_t count)
{
    cx_template *params = spec->params;
    cx_scope *pattern = cx_scope_new(st, CXS_TEMPLATE, spec->scope, NULL);
    cx_body ctx = {0};
    ctx.scope = pattern;
    ctx.pattern = 1;
    for (size_t k = 0; k < params->param_count; ++k) {
        cx_tparam *p = &params->params[k];
        cx_decl *d = cx_decl_new(st, CXD_TPARAM, p->name, p->token);
        d->index = (unsigned)k;
        if (!p->is_type) {
            const cx_type *type = NULL;
            cx_parse_type_id(st, &ctx, p->type_begin, p->type_end, &type);
            d->type = type != NULL ? type : cx_scalar(st, CXT_INT);
        }
        cx_declare(st, pattern, d);
    }
    const cx_type **patterns;
    size_t pattern_count;
    cx_parse_template_args(st, &ctx, spec->args_begin, spec->args_end,
                           &patterns, &pattern_count);
    if (pattern_count != count)
        return NULL;
    const cx_type **bound = clc_arena_alloc(
        st->arena, (params->param_count ? params->param_count : 1) * sizeof *bound);
    for (size_t k = 0; k < count; ++k) {
        const cx_type *p = patterns[k], *a = args[k];
        if (!cx_is_dependent(p)) {
            if (p != a)
                return NULL;
            continue;
        }
        /* a pattern of qualifiers and pointers must match exactly */
        if (p->kind == CXT_TPARAM && (p->quals & ~a->quals))
            return NULL;
        if (!cx_match(st, p, a, bound, params->param_count))
            return NULL;
    }
    for (size_t k = 0; k < params->param_count; ++k)
        if (bound[k] == NULL)
            return NULL;
    return bound;
}

static size_t cx_record_body_open(cx_state *st, size_t begin, size_t end)
{
    size_t i = begin;
    while (i < end && !cx_punct(st, i, P_LBRACE)) {
        if (cx_punct(st, i, P_LPAREN) || cx_punct(st, i, P_LBRACKET))
            i = st->match[i];
        ++i;
    }
    return i < end ? i : 0;
}

const cx_type *cx_record_instance(cx_state *st, cx_template *tmpl,
                                  const cx_type *const *args, size_t count,
                                  size_t at)
{
    if (tmpl->refused != NULL)
        cx_refuse(st, at, "cannot translate '%s<...>': %s",
                  cx_ident_name(st, tmpl->name), tmpl->refused);
    const cx_type **full;
    cx_bind(st, tmpl, tmpl->scope, args, count, at, &full);
    const cx_type *const *key = cx_type_list(st, full, tmpl->param_count);
    cx_decl *found = cx_instance_find(tmpl, key);
    if (found != NULL)
        return cx_record_type(st, found);
    /* a partial specialisation that matches (the last declared wins when
     * several do: they are rare in device code) */
    cx_specialization *chosen = NULL;
    const cx_type *const *chosen_args = NULL;
    for (cx_specialization *s = tmpl->specs; s != NULL; s = s->next) {
        if (s->params == NULL)
            continue;
        const cx_type *const *bound = cx_partial_match(st, s, key,
                                                       tmpl->param_count);
        if (bound != NULL && chosen == NULL) {
            chosen = s;
            chosen_args = bound;
        }
    }
    cx_decl *decl = cx_decl_new(st, CXD_RECORD, tmpl->name, tmpl->name_token);
    decl->rec = clc_arena_alloc(st->arena, sizeof *decl->rec);
    decl->rec->from = tmpl;
    decl->rec->args = key;
    decl->parent = tmpl->scope;
    cx_instance_add(st, tmpl, key, decl);
    cx_scope *bound;
    size_t begin, end;
    if (chosen != NULL) {
        const cx_type **spec_full;
        bound = cx_bind(st, chosen->params, chosen->scope, chosen_args,
                        chosen->params->param_count, at, &spec_full);
        begin = chosen->begin;
        end = chosen->end;
    } else {
        bound = cx_bind(st, tmpl, tmpl->scope, key, tmpl->param_count, at, &full);
        begin = tmpl->begin;
        end = tmpl->end;
    }
    /* the injected class name: the instance itself */
    cx_decl *self = cx_decl_new(st, CXD_TYPEDEF, tmpl->name, tmpl->name_token);
    self->type = cx_record_type(st, decl);
    self->target = tmpl->decl;
    cx_declare(st, bound, self);
    decl->scope = cx_scope_new(st, CXS_RECORD, bound, decl);
    decl->rec->is_union = cx_is(st, begin, W_union);
    decl->rec->begin = begin;
    size_t open = cx_record_body_open(st, begin, end);
    if (open == 0)
        cx_fail(st, at, "'%s' is declared but never defined",
                cx_describe(st, cx_record_type(st, decl)));
    for (size_t i = begin + 1; i < open; ++i)
        if (cx_punct(st, i, P_COLON) && !cx_scope_op(st, i) &&
            !cx_scope_op(st, i - 1))
            cx_refuse(st, i, "cannot translate a class template with a base "
                             "class");
    /* attributes between the keyword and the name */
    for (size_t i = begin + 1; i < open; ++i)
        if ((cx_is(st, i, st->w.alignas_) || cx_is(st, i, st->w.align_)) &&
            cx_punct(st, i + 1, P_LPAREN)) {
            cx_value v = cx_eval_tokens(st, bound, i + 2, st->match[i + 1]);
            if (v.known && !v.is_float)
                decl->rec->align = (size_t)v.i;
            else {
                const cx_type *type = NULL;
                cx_body ctx = {0};
                ctx.scope = bound;
                cx_parse_type_id(st, &ctx, i + 2, st->match[i + 1], &type);
                if (type != NULL)
                    decl->rec->align = cx_alignof(st, type);
            }
        }
    decl->rec->body_open = open;
    decl->rec->body_close = st->match[open];
    cx_read_record_body(st, decl, decl->scope);
    return cx_record_type(st, decl);
}
