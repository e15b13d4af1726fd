/*
 * The C++ phase's reading of templates, their specialisations and
 * explicit instantiations, namespaces, using, and the top level's
 * declarations (see cxx_internal.h; classes, enumerations and functions
 * are read in cxx_read.c).
 */
#include "cxx_internal.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* ---- templates ------------------------------------------------------------------------ */

/* The '>' that closes the '<' at `open` in a template's head. */
static size_t cx_angle_close(cx_state *st, size_t open, size_t end)
{
    int depth = 0;
    for (size_t i = open; i < end; ++i) {
        if (cx_is_open(st, i)) {
            i = st->match[i];
            continue;
        }
        if (cx_punct(st, i, P_LT))
            depth++;
        else if (cx_punct(st, i, P_GT) && --depth == 0)
            return i;
        else if (cx_punct(st, i, P_SHR)) {
            depth -= 2;
            if (depth <= 0)
                return i;
        }
    }
    cx_fail(st, open, "'<' is never closed");
}

cx_template *cx_read_template_params(cx_state *st, cx_body *ctx, size_t open)
{
    size_t close = cx_angle_close(st, open, st->count);
    /* template <class T, class R = rc<T>>: the '>>' closes the default's
     * list and the head; the default is read with it (its first '>') */
    int shared_close = cx_punct(st, close, P_SHR);
    cx_template *tmpl = clc_arena_alloc(st->arena, sizeof *tmpl);
    size_t i = open + 1;
    while (i < close) {
        /* the parameter's end: ',' or the list's end, at depth 0 */
        size_t stop = i;
        int depth = 0;
        while (stop < close) {
            if (cx_is_open(st, stop)) {
                stop = st->match[stop] + 1;
                continue;
            }
            if (cx_punct(st, stop, P_LT))
                depth++;
            else if (cx_punct(st, stop, P_GT))
                depth--;
            else if (cx_punct(st, stop, P_SHR))
                depth -= 2;
            else if (cx_punct(st, stop, P_COMMA) && depth == 0)
                break;
            ++stop;
        }
        tmpl->params = cx_grow(st, tmpl->params, tmpl->param_count,
                               sizeof *tmpl->params);
        cx_tparam *p = &tmpl->params[tmpl->param_count++];
        memset(p, 0, sizeof *p);
        p->name = -1;
        if (cx_is(st, i, st->w.template_))
            cx_refuse(st, i, "cannot translate a template template parameter");
        size_t eq = i;
        while (eq < stop && !cx_punct(st, eq, P_ASSIGN)) {
            if (cx_is_open(st, eq))
                eq = st->match[eq];
            ++eq;
        }
        if (eq < stop) {
            p->default_begin = eq + 1;
            p->default_end = stop == close && shared_close ? stop + 1 : stop;
        } else if (stop == close && shared_close) {
            cx_fail(st, close, "'>>' where '>' was expected");
        }
        if ((cx_is(st, i, st->w.typename_) || cx_is(st, i, st->w.class_)) &&
            (i + 1 == eq || cx_punct(st, i + 1, P_ELLIPSIS) ||
             (cx_ident(st, i + 1) && i + 2 == eq))) {
            p->is_type = 1;
            size_t n = i + 1;
            if (cx_punct(st, n, P_ELLIPSIS)) {
                p->pack = 1;
                ++n;
            }
            if (cx_ident(st, n) && n < eq) {
                p->name = st->tokens[n].ident;
                p->token = n;
            }
        } else {
            /* a value: its type, then its name */
            size_t n = eq;
            while (n > i && !cx_ident(st, n - 1))
                --n;
            if (n > i && cx_ident(st, n - 1) && n - 1 > i) {
                p->name = st->tokens[n - 1].ident;
                p->token = n - 1;
                p->type_begin = i;
                p->type_end = n - 1;
            } else {
                p->type_begin = i;
                p->type_end = eq;
            }
            for (size_t q = p->type_begin; q < p->type_end; ++q)
                if (cx_punct(st, q, P_ELLIPSIS))
                    p->pack = 1;
        }
        if (p->pack && tmpl->refused == NULL) {
            tmpl->refused_at = i;
            tmpl->refused = "variadic templates are not supported";
        }
        i = stop + 1;
    }
    (void)ctx;
    tmpl->begin = close + 1;
    return tmpl;
}

/* The scope of a template's parameters, unbound: for reading its
 * signature against a call's arguments. */
static cx_scope *cx_pattern_scope(cx_state *st, cx_template *tmpl,
                                  cx_scope *parent)
{
    cx_scope *scope = cx_scope_new(st, CXS_TEMPLATE, parent, NULL);
    cx_body ctx = {0};
    ctx.scope = scope;
    ctx.pattern = 1;
    for (size_t k = 0; k < tmpl->param_count; ++k) {
        cx_tparam *p = &tmpl->params[k];
        cx_decl *d = cx_decl_new(st, CXD_TPARAM, p->name, p->token);
        d->index = (unsigned)k;
        if (!p->is_type) {
            const cx_type *type = NULL;
            cx_parse_type_id(st, &ctx, p->type_begin, p->type_end, &type);
            d->type = type != NULL ? type : cx_scalar(st, CXT_INT);
        }
        cx_declare(st, scope, d);
    }
    return scope;
}

static void cx_read_template(cx_state *st, cx_body *ctx, size_t at, size_t end,
                             uint32_t extra_flags);

/* template<> ...: an explicit specialisation */
static void cx_read_specialization(cx_state *st, cx_body *ctx, size_t at,
                                   size_t end, uint32_t extra_flags)
{
    size_t k = at;
    if (cx_is(st, k, W_struct) || cx_is(st, k, st->w.class_) ||
        cx_is(st, k, W_union)) {
        size_t n = k + 1;
        while ((cx_is(st, n, st->w.alignas_) || cx_is(st, n, st->w.align_) ||
                cx_is(st, n, W___attribute__)) && cx_punct(st, n + 1, P_LPAREN))
            n = st->match[n + 1] + 1;
        cx_name name;
        if (!cx_parse_name(st, ctx, n, end, &name) || !name.has_targs)
            cx_fail(st, n, "a specialisation's template arguments were "
                           "expected");
        cx_decl *t = cx_resolve(name.decl);
        if (t == NULL || t->kind != CXD_TEMPLATE || t->tmpl->kind != CXTM_RECORD)
            cx_fail(st, n, "'%s' is not a class template",
                    cx_spelling(st, name.name_token));
        cx_template *tmpl = t->tmpl;
        const cx_type **full;
        cx_bind(st, tmpl, tmpl->scope, name.targs, name.targ_count, n, &full);
        const cx_type *const *args = cx_type_list(st, full, tmpl->param_count);
        cx_specialization *spec = clc_arena_alloc(st->arena, sizeof *spec);
        spec->begin = at;
        spec->end = end;
        spec->scope = ctx->scope;
        spec->args = args;
        spec->next = tmpl->specs;
        tmpl->specs = spec;
        if (cx_punct(st, name.last + 1, P_SEMI) || name.last + 1 >= end)
            return; /* declared only */
        /* its record, read now: its members are its own */
        cx_decl *decl = cx_decl_new(st, CXD_RECORD, tmpl->name, name.name_token);
        decl->rec = clc_arena_alloc(st->arena, sizeof *decl->rec);
        decl->rec->from = tmpl;
        decl->rec->args = args;
        decl->rec->is_union = cx_is(st, k, W_union);
        decl->scope = cx_scope_new(st, CXS_RECORD, ctx->scope, decl);
        decl->parent = ctx->scope;
        size_t open = name.last + 1;
        while (open < end && !cx_punct(st, open, P_LBRACE))
            ++open;
        if (!cx_punct(st, open, P_LBRACE))
            cx_fail(st, at, "a specialisation's body was expected");
        decl->rec->begin = k;
        decl->rec->body_open = open;
        decl->rec->body_close = st->match[open];
        spec->decl = decl;
        cx_instance *inst = clc_arena_alloc(st->arena, sizeof *inst);
        inst->args = args;
        inst->decl = decl;
        inst->next = tmpl->instances;
        tmpl->instances = inst;
        /* the injected name */
        cx_scope *inner = cx_scope_new(st, CXS_TEMPLATE, ctx->scope, NULL);
        cx_decl *self = cx_decl_new(st, CXD_TYPEDEF, tmpl->name, name.name_token);
        self->type = cx_record_type(st, decl);
        self->target = t;
        cx_declare(st, inner, self);
        decl->scope->parent = inner;
        cx_read_record_body(st, decl, decl->scope);
        return;
    }
    /* a function's: template<> R f<args>(params) { ... } */
    cx_specs specs;
    size_t after = cx_parse_specs(st, ctx, at, end, &specs);
    if (specs.type == NULL)
        cx_refuse(st, at, "cannot translate this explicit specialisation");
    size_t n = after;
    while (cx_punct(st, n, P_STAR) || cx_punct(st, n, P_AMP) ||
           cx_punct(st, n, P_ANDAND) || cx_is(st, n, W_const))
        ++n;
    cx_name name;
    if (!cx_parse_name(st, ctx, n, end, &name))
        cx_fail(st, n, "a name was expected");
    cx_decl *t = cx_resolve(name.decl);
    if (t != NULL && t->kind == CXD_FUNCTION) {
        for (cx_decl *e = t; e != NULL; e = e->same)
            if (e->kind == CXD_TEMPLATE)
                t = e;
    }
    if (t == NULL || t->kind != CXD_TEMPLATE || t->tmpl->kind != CXTM_FUNCTION)
        cx_refuse(st, n, "cannot translate this explicit specialisation: '%s' "
                         "is not a function template it knows",
                  cx_spelling(st, name.name_token));
    cx_template *tmpl = t->tmpl;
    const cx_type **full;
    if (name.has_targs) {
        cx_bind(st, tmpl, tmpl->scope, name.targs, name.targ_count, n, &full);
    } else {
        /* template<> R f(params): the arguments its parameters' types give */
        cx_decl *probe = cx_read_function(st, ctx, at, end, extra_flags, tmpl,
                                          NULL, 0);
        cx_function *pattern = tmpl->pattern->fn;
        if (probe == NULL || probe->fn->param_count != pattern->param_count)
            cx_refuse(st, n, "cannot translate this explicit specialisation: "
                             "its parameters do not match the template's");
        const cx_type **bound = clc_arena_alloc(
            st->arena, (tmpl->param_count ? tmpl->param_count : 1) * sizeof *bound);
        for (size_t q = 0; q < pattern->param_count; ++q)
            if (!cx_match(st, pattern->params[q].type, probe->fn->params[q].type,
                          bound, tmpl->param_count))
                cx_refuse(st, n, "cannot translate this explicit "
                                 "specialisation: its parameters do not match "
                                 "the template's");
        cx_bind(st, tmpl, tmpl->scope, bound, tmpl->param_count, n, &full);
    }
    const cx_type *const *args = cx_type_list(st, full, tmpl->param_count);
    cx_specialization *spec = clc_arena_alloc(st->arena, sizeof *spec);
    spec->begin = at;
    spec->end = end;
    spec->scope = ctx->scope;
    spec->args = args;
    spec->next = tmpl->specs;
    tmpl->specs = spec;
    cx_decl *decl = cx_read_function(st, ctx, at, end, extra_flags, tmpl, args, 0);
    if (decl == NULL)
        return;
    spec->decl = decl;
    cx_instance *inst = clc_arena_alloc(st->arena, sizeof *inst);
    inst->args = args;
    inst->decl = decl;
    inst->next = tmpl->instances;
    tmpl->instances = inst;
}

/* template decl; (no '<'): an explicit instantiation */
static void cx_read_instantiation(cx_state *st, cx_body *ctx, size_t at,
                                  size_t end)
{
    if (cx_is(st, at, W_struct) || cx_is(st, at, st->w.class_)) {
        cx_name name;
        if (!cx_parse_name(st, ctx, at + 1, end, &name))
            cx_fail(st, at, "a name was expected");
        cx_name_type(st, ctx, &name);
        return;
    }
    cx_specs specs;
    size_t after = cx_parse_specs(st, ctx, at, end, &specs);
    size_t n = after;
    while (cx_punct(st, n, P_STAR) || cx_punct(st, n, P_AMP) ||
           cx_is(st, n, W_const))
        ++n;
    cx_name name;
    if (!cx_parse_name(st, ctx, n, end, &name))
        cx_fail(st, n, "a name was expected");
    cx_decl *t = cx_resolve(name.decl);
    cx_decl *tmpl_decl = NULL;
    for (cx_decl *e = t; e != NULL; e = e->same)
        if (e->kind == CXD_TEMPLATE && e->tmpl->kind == CXTM_FUNCTION)
            tmpl_decl = tmpl_decl ? tmpl_decl : e;
    if (tmpl_decl == NULL)
        cx_refuse(st, n, "cannot translate this explicit instantiation: '%s' "
                         "is not a function template it knows",
                  cx_spelling(st, name.name_token));
    if (!name.has_targs)
        cx_refuse(st, n, "cannot translate an explicit instantiation without "
                         "its template arguments (write f<...>)");
    const cx_type **full;
    cx_bind(st, tmpl_decl->tmpl, tmpl_decl->tmpl->scope, name.targs,
            name.targ_count, n, &full);
    cx_decl *decl = cx_function_instance(
        st, tmpl_decl->tmpl, cx_type_list(st, full, tmpl_decl->tmpl->param_count), n);
    if (decl != NULL)
        cx_use_function(st, decl);
}

static void cx_read_template(cx_state *st, cx_body *ctx, size_t at, size_t end,
                             uint32_t extra_flags)
{
    if (!cx_punct(st, at + 1, P_LT)) {
        cx_read_instantiation(st, ctx, at + 1, end);
        return;
    }
    cx_template *tmpl = cx_read_template_params(st, ctx, at + 1);
    size_t begin = tmpl->begin;
    if (tmpl->param_count == 0) {
        cx_read_specialization(st, ctx, begin, end, extra_flags);
        return;
    }
    if (cx_is(st, begin, st->w.template_))
        cx_refuse(st, begin, "cannot translate a member template of a class "
                             "template defined outside its class");
    tmpl->scope = ctx->scope;
    tmpl->end = end;
    if (ctx->scope->kind == CXS_RECORD)
        tmpl->record = ctx->scope->owner;
    /* what is templated */
    size_t k = begin;
    if (cx_is(st, k, st->w.using_)) {
        if (!cx_ident(st, k + 1) || !cx_punct(st, k + 2, P_ASSIGN))
            cx_fail(st, k, "an alias template's name was expected");
        tmpl->kind = CXTM_ALIAS;
        tmpl->name = st->tokens[k + 1].ident;
        tmpl->name_token = k + 1;
        cx_decl *decl = cx_decl_new(st, CXD_TEMPLATE, tmpl->name, k + 1);
        decl->tmpl = tmpl;
        tmpl->decl = decl;
        cx_declare(st, ctx->scope, decl);
        return;
    }
    if (cx_is(st, k, W_struct) || cx_is(st, k, st->w.class_) ||
        cx_is(st, k, W_union)) {
        size_t n = k + 1;
        while ((cx_is(st, n, st->w.alignas_) || cx_is(st, n, st->w.align_) ||
                cx_is(st, n, W___attribute__)) && cx_punct(st, n + 1, P_LPAREN))
            n = st->match[n + 1] + 1;
        if (!cx_ident(st, n))
            cx_fail(st, n, "a class template's name was expected");
        int32_t name = st->tokens[n].ident;
        if (cx_punct(st, n + 1, P_LT)) {
            /* a partial specialisation */
            cx_decl *t = cx_resolve(cx_lookup(st, ctx->scope, name));
            if (t == NULL || t->kind != CXD_TEMPLATE || t->tmpl->kind != CXTM_RECORD)
                cx_fail(st, n, "'%s' is not a class template",
                        cx_spelling(st, n));
            cx_specialization *spec = clc_arena_alloc(st->arena, sizeof *spec);
            spec->params = tmpl;
            spec->args_begin = n + 1;
            spec->args_end = cx_angle_close(st, n + 1, end) + 1;
            spec->begin = begin;
            spec->end = end;
            spec->scope = ctx->scope;
            tmpl->kind = CXTM_RECORD;
            tmpl->name = name;
            tmpl->name_token = n;
            tmpl->decl = t;
            spec->next = t->tmpl->specs;
            t->tmpl->specs = spec;
            return;
        }
        tmpl->kind = CXTM_RECORD;
        tmpl->name = name;
        tmpl->name_token = n;
        cx_decl *existing = NULL;
        for (cx_decl *e = cx_lookup_in(st, ctx->scope, name); e; e = e->same)
            if (e->kind == CXD_TEMPLATE && e->tmpl->kind == CXTM_RECORD)
                existing = e;
        size_t body = n + 1;
        while (body < end && !cx_punct(st, body, P_LBRACE))
            ++body;
        if (existing != NULL) {
            if (body < end) {
                /* the definition after a declaration */
                existing->tmpl->params = tmpl->params;
                existing->tmpl->param_count = tmpl->param_count;
                existing->tmpl->begin = tmpl->begin;
                existing->tmpl->end = end;
                existing->tmpl->name_token = n;
            }
            return;
        }
        cx_decl *decl = cx_decl_new(st, CXD_TEMPLATE, name, n);
        decl->tmpl = tmpl;
        tmpl->decl = decl;
        cx_declare(st, ctx->scope, decl);
        return;
    }
    if (tmpl->refused != NULL) {
        /* declared, refused where it is used: its name is the one before
         * the first '(' */
        size_t n = begin;
        while (n < end && !cx_punct(st, n, P_LPAREN)) {
            if (cx_punct(st, n, P_LT) && n > begin && cx_ident(st, n - 1))
                break;
            ++n;
        }
        if (n == begin || !cx_ident(st, n - 1))
            return;
        tmpl->kind = CXTM_FUNCTION;
        tmpl->name = st->tokens[n - 1].ident;
        tmpl->name_token = n - 1;
        cx_decl *decl = cx_decl_new(st, CXD_TEMPLATE, tmpl->name, n - 1);
        decl->tmpl = tmpl;
        tmpl->decl = decl;
        cx_declare(st, ctx->scope, decl);
        return;
    }
    /* a function template: its signature, read with the parameters
     * unbound, for matching calls */
    cx_scope *pattern = cx_pattern_scope(st, tmpl, ctx->scope);
    cx_body pctx = *ctx;
    pctx.scope = pattern;
    pctx.pattern = 1;
    pctx.edits = NULL;
    tmpl->kind = CXTM_FUNCTION;
    size_t stmt = begin;
    /* constructors of a class templates's member template: not supported */
    cx_decl *fn = cx_read_function(st, &pctx, stmt, end, extra_flags, tmpl, NULL, 0);
    if (fn == NULL)
        return; /* host code */
    if (fn->fn->is_ctor)
        cx_refuse(st, fn->token, "cannot translate a constructor template");
    tmpl->pattern = fn;
    tmpl->name = fn->name;
    tmpl->name_token = fn->fn->name_token;
    tmpl->flags = fn->flags;
    fn->parent = ctx->scope;
    /* a declaration before the definition: one template */
    for (cx_decl *e = cx_lookup_in(st, ctx->scope, fn->name); e; e = e->same) {
        if (e->kind != CXD_TEMPLATE || e->tmpl->kind != CXTM_FUNCTION ||
            e->tmpl->param_count != tmpl->param_count ||
            e->tmpl->pattern->fn->param_count != fn->fn->param_count)
            continue;
        if (e->tmpl->pattern->fn->body_open == 0 && fn->fn->body_open != 0) {
            e->tmpl->begin = tmpl->begin;
            e->tmpl->end = tmpl->end;
            e->tmpl->pattern = fn;
            e->tmpl->flags |= fn->flags;
            return;
        }
        if (fn->fn->body_open == 0)
            return;
    }
    cx_decl *decl = cx_decl_new(st, CXD_TEMPLATE, fn->name, fn->fn->name_token);
    decl->tmpl = tmpl;
    decl->flags = fn->flags;
    tmpl->decl = decl;
    cx_declare(st, ctx->scope, decl);
}

/* ---- namespaces and using --------------------------------------------------------------- */

static void cx_read_namespace(cx_state *st, cx_body *ctx, size_t at, size_t end,
                              size_t *next)
{
    size_t i = at + 1;
    int is_inline = at > 0 && cx_is(st, at - 1, W_inline);
    /* namespace a = b::c; */
    if (cx_ident(st, i) && cx_punct(st, i + 1, P_ASSIGN)) {
        cx_name name;
        if (!cx_parse_name(st, ctx, i + 2, end, &name))
            cx_fail(st, i + 2, "a namespace's name was expected");
        cx_decl *target = cx_resolve(name.decl);
        if (target == NULL || target->kind != CXD_NAMESPACE)
            cx_fail(st, i + 2, "'%s' is not a namespace",
                    cx_spelling(st, name.name_token));
        cx_decl *alias = cx_decl_new(st, CXD_ALIAS, st->tokens[i].ident, i);
        alias->target = target;
        cx_declare(st, ctx->scope, alias);
        size_t semi = name.last + 1;
        if (!cx_punct(st, semi, P_SEMI))
            cx_fail(st, semi, "';' was expected");
        *next = semi + 1;
        return;
    }
    /* namespace a::b::c { } nests */
    cx_scope *scope = ctx->scope;
    int32_t names[16];
    size_t name_count = 0;
    while (cx_ident(st, i)) {
        if (name_count == 16)
            cx_fail(st, i, "namespaces nested too deeply");
        names[name_count++] = st->tokens[i].ident;
        ++i;
        if (cx_scope_op(st, i))
            i += 2;
        else
            break;
    }
    while (cx_is(st, i, W___attribute__) && cx_punct(st, i + 1, P_LPAREN))
        i = st->match[i + 1] + 1;
    if (!cx_punct(st, i, P_LBRACE))
        cx_fail(st, i, "'{' was expected after the namespace's name");
    size_t close = st->match[i];
    if (name_count == 0) {
        /* an unnamed namespace: its members are its enclosing one's */
        cx_decl *ns = cx_decl_new(st, CXD_NAMESPACE, -1, at);
        ns->scope = cx_scope_new(st, CXS_NAMESPACE, scope, ns);
        cx_declare(st, scope, ns);
        scope->usings = cx_grow(st, scope->usings, scope->using_count,
                                sizeof *scope->usings);
        scope->usings[scope->using_count++] = ns;
        scope = ns->scope;
    }
    for (size_t k = 0; k < name_count; ++k) {
        cx_decl *ns = NULL;
        for (cx_decl *d = cx_lookup_in(st, scope, names[k]); d; d = d->same)
            if (d->kind == CXD_NAMESPACE)
                ns = d;
        if (ns == NULL) {
            ns = cx_decl_new(st, CXD_NAMESPACE, names[k], at + 1);
            ns->scope = cx_scope_new(st, CXS_NAMESPACE, scope, ns);
            ns->scope->is_inline = is_inline && k + 1 == name_count;
            if (st->reading_builtins)
                ns->flags |= CXF_BUILTIN;
            cx_declare(st, scope, ns);
            if (ns->scope->is_inline) {
                scope->inlines = cx_grow(st, scope->inlines, scope->inline_count,
                                         sizeof *scope->inlines);
                scope->inlines[scope->inline_count++] = ns;
            }
        }
        scope = ns->scope;
    }
    cx_body inner = *ctx;
    inner.scope = scope;
    cx_read_decls(st, &inner, i + 1, close, 0);
    *next = close + 1;
}

static void cx_read_using(cx_state *st, cx_body *ctx, size_t at, size_t end)
{
    size_t i = at + 1;
    if (cx_is(st, i, st->w.namespace_)) {
        cx_name name;
        if (!cx_parse_name(st, ctx, i + 1, end, &name))
            cx_fail(st, i + 1, "a namespace's name was expected");
        cx_decl *ns = cx_resolve(name.decl);
        if (ns == NULL) {
            /* using namespace std; with no std declared: nothing to see */
            return;
        }
        if (ns->kind != CXD_NAMESPACE)
            cx_fail(st, i + 1, "'%s' is not a namespace",
                    cx_spelling(st, name.name_token));
        cx_scope *s = ctx->scope;
        s->usings = cx_grow(st, s->usings, s->using_count, sizeof *s->usings);
        s->usings[s->using_count++] = ns;
        return;
    }
    if (cx_ident(st, i) && cx_punct(st, i + 1, P_ASSIGN)) {
        /* using alias = type; */
        const cx_type *type = NULL;
        size_t after = cx_parse_type_id(st, ctx, i + 2, end, &type);
        if (type == NULL)
            cx_fail(st, i + 2, "a type was expected");
        (void)after;
        cx_decl *d = cx_decl_new(st, CXD_TYPEDEF, st->tokens[i].ident, i);
        d->type = type;
        if (st->reading_builtins)
            d->flags |= CXF_BUILTIN;
        cx_declare(st, ctx->scope, d);
        if (ctx->fn == NULL && ctx->edits == NULL)
            cx_item_add(st, CXI_TYPEDEF, d, at, end);
        return;
    }
    /* using a::b; */
    if (cx_is(st, i, st->w.typename_))
        ++i;
    cx_name name;
    if (!cx_parse_name(st, ctx, i, end, &name))
        cx_fail(st, i, "a name was expected after 'using'");
    if (name.decl == NULL) {
        if (name.qualified)
            return; /* using std::min; with no std: the builtins serve */
        cx_fail(st, i, "'%s' is not declared", cx_spelling(st, name.name_token));
    }
    cx_decl *alias = cx_decl_new(st, CXD_ALIAS,
                                 st->tokens[name.name_token].ident,
                                 name.name_token);
    alias->target = name.decl;
    cx_declare(st, ctx->scope, alias);
}

/* ---- declarations ---------------------------------------------------------------------- */

typedef struct cx_decl_read {
    cx_body *ctx;
    size_t begin, end;
    uint32_t flags;
} cx_decl_read;

static void cx_read_typedef(cx_state *st, cx_body *ctx, const cx_specs *specs,
                            size_t at, size_t end)
{
    size_t i = at;
    for (;;) {
        cx_declarator d;
        i = cx_parse_declarator(st, ctx, i, end, specs->type, &d);
        if (d.name == 0)
            cx_fail(st, at, "a typedef's name was expected");
        cx_decl *decl = cx_decl_new(st, CXD_TYPEDEF, st->tokens[d.name].ident,
                                    d.name);
        decl->type = d.type;
        if (st->reading_builtins)
            decl->flags |= CXF_BUILTIN;
        /* typedef struct { ... } Name;: the struct's name for C */
        if (specs->record != NULL && specs->record->name < 0 &&
            d.type == cx_record_type(st, specs->record) &&
            specs->record->cname == NULL)
            specs->record->cname = cx_ident_name(st, decl->name);
        cx_declare(st, ctx->scope, decl);
        if (ctx->fn == NULL && ctx->edits == NULL)
            cx_item_add(st, CXI_TYPEDEF, decl, at, end);
        if (cx_punct(st, i, P_COMMA)) {
            ++i;
            continue;
        }
        if (i != end)
            cx_fail(st, i, "';' was expected after a typedef");
        return;
    }
}

/* Variables at namespace scope (and static data members defined there). */
static void cx_read_variables(cx_state *st, cx_body *ctx, const cx_specs *specs,
                              size_t at, size_t end)
{
    size_t i = at;
    for (;;) {
        cx_declarator d;
        i = cx_parse_declarator(st, ctx, i, end, specs->type, &d);
        if (d.name == 0)
            cx_fail(st, at, "a variable's name was expected");
        cx_decl *decl = NULL;
        if (d.qualifier != NULL) {
            /* const int S::n = 4; a static member's definition */
            for (cx_decl *e = cx_lookup_in(st, d.qualifier, st->tokens[d.name].ident);
                 e; e = e->same)
                if (e->kind == CXD_VAR)
                    decl = e;
            if (decl == NULL)
                cx_fail(st, d.name, "'%s' is not a member of that class",
                        cx_spelling(st, d.name));
        } else {
            decl = cx_decl_new(st, CXD_VAR, st->tokens[d.name].ident, d.name);
            decl->flags = specs->flags;
            if (st->reading_builtins)
                decl->flags |= CXF_BUILTIN;
        }
        decl->type = d.type;
        if (cx_punct(st, i, P_ASSIGN) || cx_punct(st, i, P_LBRACE) ||
            cx_punct(st, i, P_LPAREN)) {
            size_t init = cx_punct(st, i, P_ASSIGN) ? i + 1 : i;
            decl->init_paren = (uint8_t)cx_punct(st, i, P_LPAREN);
            size_t stop = init;
            while (stop < end && !cx_punct(st, stop, P_COMMA)) {
                if (cx_is_open(st, stop))
                    stop = st->match[stop];
                ++stop;
            }
            decl->init_begin = init;
            decl->init_end = stop;
            decl->init_scope = ctx->scope;
            i = stop;
        }
        if (decl->type != NULL && decl->type->kind == CXT_AUTO) {
            if (decl->init_begin == 0)
                cx_fail(st, d.name, "'auto' without an initializer");
            cx_body inner = *ctx;
            inner.edits = NULL;
            size_t after;
            cx_expr *e = cx_parse_assign(st, &inner, decl->init_begin,
                                         decl->init_end, &after);
            decl->type = cx_qualified(st, cx_decay(st, e->type),
                                      specs->quals |
                                          ((specs->flags & CXF_CONSTEXPR) ? CXQ_CONST : 0));
            if (decl->type == NULL)
                cx_refuse(st, d.name, "cannot translate 'auto' here: the type "
                                      "of the initializer is not known");
        }
        if (decl->type != NULL && decl->type->kind == CXT_ARRAY &&
            decl->type->length < 0 && decl->init_begin != 0 &&
            cx_punct(st, decl->init_begin, P_LBRACE)) {
            /* int t[] = {1, 2, 3}: its length from the initializer */
            long long n = 0;
            size_t close = st->match[decl->init_begin];
            size_t q = decl->init_begin + 1;
            while (q < close) {
                n++;
                while (q < close && !cx_punct(st, q, P_COMMA)) {
                    if (cx_is_open(st, q))
                        q = st->match[q];
                    ++q;
                }
                ++q;
            }
            decl->type = cx_array(st, decl->type->base, n);
        }
        if (d.type != NULL && (d.type->kind == CXT_LREF || d.type->kind == CXT_RREF))
            cx_refuse(st, d.name, "cannot translate a reference at namespace "
                                  "scope");
        if (d.qualifier == NULL) {
            cx_declare(st, ctx->scope, decl);
            uint32_t device = CXF_DEVICE | CXF_CONSTANT | CXF_SHARED |
                              CXF_CONSTEXPR;
            int is_const = decl->type != NULL &&
                           ((decl->type->quals & CXQ_CONST) ||
                            (decl->type->kind == CXT_ARRAY && decl->type->base &&
                             (decl->type->base->quals & CXQ_CONST)));
            if ((decl->flags & device) || is_const)
                cx_item_add(st, CXI_VARIABLE, decl, at, end);
        }
        if (cx_punct(st, i, P_COMMA)) {
            ++i;
            continue;
        }
        if (i != end)
            cx_fail(st, i, "';' was expected after a declaration");
        return;
    }
}

static void cx_read_declaration(cx_state *st, cx_body *ctx, size_t begin,
                                size_t end, uint32_t extra_flags)
{
    /* a function's definition or declaration? */
    cx_specs specs;
    size_t after = cx_parse_specs(st, ctx, begin, end, &specs);
    specs.flags |= extra_flags;
    if (specs.is_typedef) {
        if (specs.type == NULL) {
            cx_refuse_runtime_type(st, begin, after + 1);
            cx_fail(st, after, "unknown type in a typedef");
        }
        cx_read_typedef(st, ctx, &specs, after, end);
        return;
    }
    if (specs.type == NULL) {
        /* S::S() { } and operator T() outside their class */
        if (cx_ident(st, after) || cx_is(st, after, st->w.operator_)) {
            if (cx_read_function(st, ctx, begin, end, extra_flags, NULL, NULL, 1))
                return;
        }
        cx_refuse_runtime_type(st, begin, after + 1);
        if (cx_ident(st, begin) && cx_lookup(st, ctx->scope,
                                             st->tokens[begin].ident) == NULL)
            cx_fail(st, begin, "unknown type '%s'", cx_spelling(st, begin));
        cx_fail(st, begin, "cannot read this declaration");
    }
    if (after >= end)
        return; /* struct S { ... }; enum E { ... }; */
    cx_declarator d;
    cx_body probe = *ctx;
    probe.edits = NULL;
    size_t saved = st->pending_gt;
    cx_parse_declarator(st, &probe, after, end, specs.type, &d);
    st->pending_gt = saved;
    if (d.type != NULL && d.type->kind == CXT_FUNCTION && d.params_open != 0) {
        cx_read_function(st, ctx, begin, end, extra_flags, NULL, NULL, 1);
        return;
    }
    cx_read_variables(st, ctx, &specs, after, end);
}

static void cx_try_declaration(cx_state *st, void *arg)
{
    cx_decl_read *r = arg;
    cx_read_declaration(st, r->ctx, r->begin, r->end, r->flags);
}

/* Whether the declaration [begin, end) says it is for the device. */
static int cx_says_device(cx_state *st, size_t begin, size_t end)
{
    /* a template's parameter list: its defaults' '=' are no initialiser */
    for (size_t i = cx_skip_template_params(st, begin, end); i < end; ++i) {
        if (cx_is_open(st, i)) {
            if (cx_punct(st, i, P_LBRACE))
                return 0; /* a body: its qualifiers came before */
            i = st->match[i];
            continue;
        }
        if (cx_punct(st, i, P_ASSIGN))
            return 0;
        int32_t id = cx_ident(st, i) ? st->tokens[i].ident : -1;
        if (id == st->w.device_ || id == st->w.global_ || id == st->w.shared_ ||
            id == st->w.constant_ || id == st->w.constexpr_)
            return 1;
    }
    return 0;
}

void cx_read_decls(cx_state *st, cx_body *ctx, size_t begin, size_t end,
                   uint32_t extra_flags)
{
    size_t i = begin;
    while (i < end) {
        const clc_token *t = &st->tokens[i];
        if (t->kind == CLC_TOK_PRAGMA) {
            if (ctx->scope == st->global)
                cx_item_add(st, CXI_PRAGMA, NULL, i, i + 1);
            ++i;
            continue;
        }
        if (cx_punct(st, i, P_SEMI)) {
            ++i;
            continue;
        }
        if (cx_is(st, i, st->w.namespace_) ||
            (cx_is(st, i, W_inline) && cx_is(st, i + 1, st->w.namespace_))) {
            if (cx_is(st, i, W_inline))
                ++i;
            cx_read_namespace(st, ctx, i, end, &i);
            continue;
        }
        if (cx_is(st, i, W_extern) && st->tokens[i + 1].kind == CLC_TOK_STRING) {
            if (cx_punct(st, i + 2, P_LBRACE)) {
                size_t close = st->match[i + 2];
                cx_read_decls(st, ctx, i + 3, close, extra_flags | CXF_EXTERN_C);
                i = close + 1;
            } else {
                size_t stop = cx_declaration_end(st, i + 2, end);
                cx_decl_read r = {ctx, i + 2, stop, extra_flags | CXF_EXTERN_C};
                if (cx_says_device(st, i + 2, stop) || st->reading_builtins)
                    cx_try_declaration(st, &r);
                else
                    cx_try(st, cx_try_declaration, &r, NULL);
                i = stop + 1;
            }
            continue;
        }
        size_t stop = cx_declaration_end(st, i, end);
        if (stop >= end && !cx_punct(st, stop, P_SEMI) &&
            !cx_punct(st, stop, P_RBRACE))
            cx_fail(st, i, "a declaration without an end");
        if (cx_is(st, i, st->w.template_)) {
            if (cx_says_device(st, i, stop) || st->reading_builtins ||
                ctx->scope->kind == CXS_RECORD)
                cx_read_template(st, ctx, i, stop, extra_flags);
            else {
                /* class templates are shared; host function templates
                 * are not read */
                size_t close = cx_punct(st, i + 1, P_LT)
                                   ? cx_angle_close(st, i + 1, stop) + 1
                                   : i + 1;
                if (cx_is(st, close, W_struct) || cx_is(st, close, st->w.class_) ||
                    cx_is(st, close, W_union) || cx_is(st, close, st->w.using_) ||
                    cx_is(st, i + 1, W_struct) || cx_is(st, i + 1, st->w.class_))
                    cx_read_template(st, ctx, i, stop, extra_flags);
            }
            i = stop + 1;
            continue;
        }
        if (cx_is(st, i, st->w.using_)) {
            cx_read_using(st, ctx, i, stop);
            i = stop + 1;
            continue;
        }
        if (cx_is(st, i, W_static_assert) || cx_is(st, i, W__Static_assert)) {
            cx_static_assert(st, ctx->scope, i);
            i = stop + 1;
            continue;
        }
        cx_decl_read r = {ctx, i, stop, extra_flags};
        if (st->reading_builtins || cx_says_device(st, i, stop) ||
            ctx->scope->kind == CXS_RECORD)
            cx_read_declaration(st, ctx, i, stop, extra_flags);
        else
            cx_try(st, cx_try_declaration, &r, NULL);
        /* a definition ends at its '}', a declaration at its ';' */
        i = stop + 1;
    }
}

void cx_read_program(cx_state *st, size_t begin, size_t end)
{
    cx_body ctx = {0};
    ctx.scope = st->global;
    cx_read_decls(st, &ctx, begin, end, 0);
}
