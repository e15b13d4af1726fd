/*
 * The C++ phase's declarators: pointers, references, arrays, parameter
 * lists and what follows them, type-ids, and where a declaration ends (see
 * cxx_internal.h; specifiers and names are cxx_decl.c's).
 */
#include "cxx_internal.h"

#include <string.h>

/* ---- declarators -------------------------------------------------------------- */

static size_t cx_parse_params(cx_state *st, cx_body *ctx, size_t open,
                              cx_declarator *out)
{
    size_t close = st->match[open];
    size_t i = open + 1;
    out->params = NULL;
    out->param_count = 0;
    out->variadic = 0;
    if (cx_is(st, i, W_void) && i + 1 == close)
        return close + 1;
    while (i < close) {
        if (cx_punct(st, i, P_ELLIPSIS)) {
            out->variadic = 1;
            i++;
            break;
        }
        cx_specs specs;
        size_t after = cx_parse_specs(st, ctx, i, close, &specs);
        if (specs.type == NULL) {
            cx_refuse_runtime_type(st, i, after + 1);
            if (cx_ident(st, i))
                cx_fail(st, i, "unknown type '%s' in a parameter",
                        cx_spelling(st, i));
            cx_fail(st, i, "a parameter's type was expected");
        }
        cx_declarator d;
        after = cx_parse_declarator(st, ctx, after, close, specs.type, &d);
        out->params = cx_grow(st, out->params, out->param_count,
                              sizeof *out->params);
        cx_param *p = &out->params[out->param_count++];
        memset(p, 0, sizeof *p);
        p->name = d.name ? st->tokens[d.name].ident : -1;
        p->name_token = d.name;
        /* parameters of array and function types are pointers */
        const cx_type *type = d.type;
        if (type != NULL && type->kind == CXT_ARRAY)
            type = cx_pointer(st, type->base);
        else if (type != NULL && type->kind == CXT_FUNCTION)
            type = cx_pointer(st, type);
        p->type = type;
        if (cx_punct(st, after, P_ASSIGN)) {
            size_t k = after + 1;
            while (k < close && !cx_punct(st, k, P_COMMA)) {
                if (cx_is_open(st, k))
                    k = st->match[k];
                else if (cx_punct(st, k, P_LT) && k > after + 1 &&
                         cx_ident(st, k - 1)) {
                    /* a template argument list inside the default */
                    cx_decl *t = cx_resolve(cx_lookup(st, ctx->scope,
                                                      st->tokens[k - 1].ident));
                    if (t != NULL && t->kind == CXD_TEMPLATE) {
                        int depth = 1;
                        while (++k < close && depth > 0) {
                            if (cx_is_open(st, k))
                                k = st->match[k];
                            else if (cx_punct(st, k, P_LT))
                                depth++;
                            else if (cx_punct(st, k, P_GT))
                                depth--;
                        }
                        continue;
                    }
                }
                ++k;
            }
            p->default_begin = after + 1;
            p->default_end = k;
            after = k;
        }
        if (cx_punct(st, after, P_ELLIPSIS))
            cx_refuse(st, after, "cannot translate a parameter pack: variadic "
                                 "templates are not supported");
        if (cx_punct(st, after, P_COMMA)) {
            i = after + 1;
            continue;
        }
        if (after != close)
            cx_fail(st, after, "',' or ')' was expected in the parameters");
        i = after;
    }
    return close + 1;
}

/* After a function's parameters: cv, ref-qualifier, noexcept, override,
 * final, a trailing return type. */
static size_t cx_function_suffix(cx_state *st, cx_body *ctx, size_t i,
                                 size_t end, cx_declarator *out,
                                 const cx_type **trailing)
{
    for (;;) {
        if (cx_is(st, i, W_const) || cx_is(st, i, W___const)) {
            out->is_const_method = 1;
            ++i;
        } else if (cx_is(st, i, W_volatile) || cx_punct(st, i, P_AMP) ||
                   cx_punct(st, i, P_ANDAND) || cx_is(st, i, st->w.override_) ||
                   cx_is(st, i, st->w.final_)) {
            ++i;
        } else if (cx_is(st, i, st->w.noexcept_) || cx_is(st, i, st->w.throw_)) {
            ++i;
            if (cx_punct(st, i, P_LPAREN))
                i = st->match[i] + 1;
        } else if (cx_punct(st, i, P_ARROW)) {
            cx_specs specs;
            size_t after = cx_parse_specs(st, ctx, i + 1, end, &specs);
            if (specs.type == NULL)
                cx_fail(st, i, "a type was expected after '->'");
            cx_declarator d;
            i = cx_parse_declarator(st, ctx, after, end, specs.type, &d);
            *trailing = d.type;
        } else {
            size_t skipped = cx_skip_attributes(st, ctx, i, end, NULL);
            if (skipped == i)
                return i;
            i = skipped;
        }
    }
}

/* Array bounds and parameter lists after the name, applied to `base`. */
static size_t cx_declarator_suffix(cx_state *st, cx_body *ctx, size_t i,
                                   size_t end, const cx_type **type,
                                   cx_declarator *out, int first)
{
    if (i >= end)
        return i;
    if (cx_punct(st, i, P_LPAREN) && first && !(ctx->objects_only && out->name)) {
        out->params_open = i;
        i = cx_parse_params(st, ctx, i, out);
        const cx_type *trailing = NULL;
        i = cx_function_suffix(st, ctx, i, end, out, &trailing);
        const cx_type *result = *type;
        if (trailing != NULL)
            result = trailing;
        const cx_type **params = NULL;
        if (out->param_count > 0) {
            params = clc_arena_alloc(st->arena, out->param_count * sizeof *params);
            for (size_t k = 0; k < out->param_count; ++k)
                params[k] = out->params[k].type;
        }
        *type = cx_function_type(st, result, params, out->param_count);
        return i;
    }
    if (cx_punct(st, i, P_LBRACKET)) {
        size_t close = st->match[i];
        long long length = -1;
        int dependent = 0;
        cx_decl *bound_by = NULL;
        if (close > i + 1) {
            size_t after;
            cx_expr *e = cx_parse_expr(st, ctx, i + 1, close, 1, &after);
            if (ctx->edits != NULL)
                cx_lower_expr(st, ctx, e, NULL);
            cx_value v = cx_eval(st, ctx, e);
            if (v.known && !v.is_float) {
                length = v.i;
                /* C wants a constant: a constexpr local is not one */
                if (ctx->edits != NULL && e->kind != CXE_LITERAL) {
                    cx_drop(ctx->edits, i + 1, close);
                    cx_replace(ctx->edits, i + 1, cx_literal(st, v));
                }
            } else if (ctx->pattern && e->kind == CXE_NAME && e->decl != NULL &&
                     e->decl->kind == CXD_TPARAM)
                bound_by = e->decl; /* T (&a)[N]: N is deduced */
            else if (ctx->pattern)
                dependent = 1;
        }
        const cx_type *element = *type;
        size_t next = cx_declarator_suffix(st, ctx, close + 1, end, &element,
                                           out, 0);
        if (bound_by != NULL) {
            cx_type proto = {.kind = CXT_ARRAY, .base = element, .length = -2,
                             .decl = bound_by};
            *type = cx_type_get(st, &proto);
        } else if (ctx->pattern && (dependent || cx_is_dependent(element))) {
            *type = cx_list_type(st, CXT_DEPENDENT, NULL, NULL, 0);
        } else {
            *type = cx_array(st, element, length);
        }
        return next;
    }
    return i;
}

size_t cx_parse_declarator(cx_state *st, cx_body *ctx, size_t at, size_t end,
                           const cx_type *base, cx_declarator *out)
{
    memset(out, 0, sizeof *out);
    out->begin = at;
    size_t i = at;
    const cx_type *type = base;
    /* pointer operators */
    while (i < end) {
        size_t skipped = cx_skip_attributes(st, ctx, i, end, NULL);
        if (skipped != i) {
            i = skipped;
            continue;
        }
        if (cx_punct(st, i, P_STAR)) {
            type = cx_pointer(st, type);
            ++i;
            unsigned quals = 0;
            for (;;) {
                if (cx_is(st, i, W_const) || cx_is(st, i, W___const))
                    quals |= CXQ_CONST;
                else if (cx_is(st, i, W_volatile))
                    quals |= CXQ_VOLATILE;
                else if (cx_is(st, i, W_restrict) || cx_is(st, i, W___restrict) ||
                         cx_is(st, i, W___restrict__))
                    quals |= CXQ_RESTRICT;
                else
                    break;
                ++i;
            }
            if (quals)
                type = cx_qualified(st, type, quals);
            continue;
        }
        if (cx_punct(st, i, P_AMP) || cx_punct(st, i, P_ANDAND)) {
            type = cx_reference(st, type, cx_punct(st, i, P_ANDAND));
            ++i;
            while (cx_is(st, i, W___restrict__) || cx_is(st, i, W___restrict) ||
                   cx_is(st, i, W_restrict))
                ++i;
            continue;
        }
        if (cx_ident(st, i) && cx_scope_op(st, i + 1) && cx_punct(st, i + 3, P_STAR)) {
            cx_decl *d = cx_resolve(cx_lookup(st, ctx->scope, st->tokens[i].ident));
            if (d != NULL && (d->kind == CXD_RECORD || d->kind == CXD_TYPEDEF))
                cx_refuse(st, i, "cannot translate a pointer to member");
        }
        break;
    }
    if (i >= end) {
        out->type = type;
        out->end = i;
        return i;
    }
    /* a nested declarator: ( declarator ) */
    if (cx_punct(st, i, P_LPAREN) &&
        (cx_punct(st, i + 1, P_STAR) || cx_punct(st, i + 1, P_AMP) ||
         cx_punct(st, i + 1, P_ANDAND) || cx_punct(st, i + 1, P_LPAREN) ||
         (cx_ident(st, i + 1) && !cx_starts_type(st, ctx, i + 1) &&
          !cx_punct(st, i + 2, P_COMMA)))) {
        size_t close = st->match[i];
        const cx_type *outer = type;
        cx_declarator scratch;
        memset(&scratch, 0, sizeof scratch);
        size_t after = cx_declarator_suffix(st, ctx, close + 1, end, &outer,
                                            &scratch, 1);
        cx_parse_declarator(st, ctx, i + 1, close, outer, out);
        if (scratch.params_open) {
            /* (*f)(params): a function pointer */
            out->params_open = 0;
        }
        out->begin = at;
        out->end = after;
        return after;
    }
    /* the name */
    if (cx_is(st, i, st->w.operator_) ||
        ((cx_ident(st, i) || cx_scope_op(st, i)) && !cx_starts_type(st, ctx, i)) ||
        (cx_ident(st, i) && cx_scope_op(st, i + 1)) ||
        (cx_punct(st, i, P_TILDE) && cx_ident(st, i + 1))) {
        if (cx_punct(st, i, P_TILDE)) {
            out->dtor_name = 1;
            out->name = i + 1;
            out->name_first = i;
            i += 2;
        } else if (cx_is(st, i, st->w.operator_)) {
            size_t after;
            cx_op op;
            cx_operator_name(st, i + 1, &after, &op);
            out->op = op;
            out->name = i;
            out->name_first = i;
            if (op == CXO_CONVERSION) {
                const cx_type *to = NULL;
                after = cx_conversion_type(st, ctx, i + 1, end, &to);
                out->conversion = to;
                type = to;
            }
            i = after;
        } else {
            /* a qualified name: A::B::f, S::operator+, S::~S */
            size_t first = i;
            cx_scope *qualifier = NULL;
            if (cx_scope_op(st, i)) {
                qualifier = st->global;
                i += 2;
            }
            while (cx_ident(st, i) && (cx_scope_op(st, i + 1) ||
                                       (cx_punct(st, i + 1, P_LT) &&
                                        cx_scope_op(st, st->match[i + 1] + 1)))) {
                cx_decl *d = qualifier
                                 ? cx_lookup_qualified(st, qualifier,
                                                       st->tokens[i].ident)
                                 : cx_lookup(st, ctx->scope, st->tokens[i].ident);
                d = cx_resolve(d);
                if (d != NULL && d->kind == CXD_TEMPLATE)
                    cx_refuse(st, i, "cannot translate a member of a class "
                                     "template defined outside its class "
                                     "(define it inside)");
                cx_scope *s = d == NULL ? NULL
                              : d->kind == CXD_NAMESPACE || d->kind == CXD_RECORD
                                  ? d->scope
                              : d->kind == CXD_TYPEDEF && d->type != NULL &&
                                      d->type->kind == CXT_RECORD
                                  ? d->type->decl->scope
                                  : NULL;
                if (s == NULL)
                    cx_fail(st, i, "'%s' is not a namespace or a class",
                            cx_spelling(st, i));
                qualifier = s;
                i += 3;
            }
            out->qualifier = qualifier;
            out->name_first = first;
            if (cx_punct(st, i, P_TILDE) && cx_ident(st, i + 1)) {
                out->dtor_name = 1;
                out->name = i + 1;
                i += 2;
            } else if (cx_is(st, i, st->w.operator_)) {
                size_t after;
                cx_op op;
                cx_operator_name(st, i + 1, &after, &op);
                out->op = op;
                out->name = i;
                if (op == CXO_CONVERSION) {
                    const cx_type *to = NULL;
                    after = cx_conversion_type(st, ctx, i + 1, end, &to);
                    out->conversion = to;
                    type = to;
                }
                i = after;
            } else if (cx_ident(st, i)) {
                out->name = i++;
                if (qualifier != NULL && qualifier->kind == CXS_RECORD &&
                    qualifier->owner != NULL &&
                    st->tokens[out->name].ident == qualifier->owner->name)
                    out->ctor_name = 1;
            } else {
                cx_fail(st, i, "a name was expected");
            }
        }
    }
    size_t after = cx_declarator_suffix(st, ctx, i, end, &type, out, 1);
    out->type = type;
    out->end = after;
    return after;
}

size_t cx_parse_type_id(cx_state *st, cx_body *ctx, size_t at, size_t end,
                        const cx_type **type)
{
    cx_specs specs;
    size_t after = cx_parse_specs(st, ctx, at, end, &specs);
    if (specs.type == NULL) {
        *type = NULL;
        return at;
    }
    /* T(x) with x no type and no declarator: a functional cast, so
     * (float(1.0f) - y) is an expression, not a cast to a function type */
    if (after < end && cx_punct(st, after, P_LPAREN) &&
        st->match[after] > after + 1) {
        size_t in = after + 1;
        if (!cx_punct(st, in, P_STAR) && !cx_punct(st, in, P_AMP) &&
            !cx_punct(st, in, P_ANDAND) && !cx_punct(st, in, P_LPAREN) &&
            !cx_punct(st, in, P_ELLIPSIS) && !cx_punct(st, in, P_COLON) &&
            !cx_starts_type(st, ctx, in)) {
            *type = NULL;
            return at;
        }
    }
    cx_declarator d;
    after = cx_parse_declarator(st, ctx, after, end, specs.type, &d);
    if (d.name != 0) {
        /* not a type-id: a name follows */
        *type = NULL;
        return at;
    }
    *type = d.type;
    return after;
}

/* ---- extents ------------------------------------------------------------------- */

size_t cx_skip_template_params(cx_state *st, size_t at, size_t end)
{
    if (!cx_is(st, at, st->w.template_) || !cx_punct(st, at + 1, P_LT))
        return at;
    int depth = 0;
    size_t j = at + 1;
    for (; j < end; ++j) {
        if (cx_is_open(st, j)) {
            j = st->match[j];
            continue;
        }
        if (cx_punct(st, j, P_LT))
            ++depth;
        else if (cx_punct(st, j, P_GT) && --depth == 0)
            break;
        else if (cx_punct(st, j, P_SHR) && (depth -= 2) <= 0)
            break;
    }
    return j + 1;
}

size_t cx_declaration_end(cx_state *st, size_t at, size_t end)
{
    size_t i = at;
    int seen_params = 0, seen_assign = 0, init_list = 0, type_body = 0;
    int tag = 0;
    while (i < end) {
        if (cx_punct(st, i, P_SEMI))
            return i;
        if (cx_is(st, i, st->w.template_) && cx_punct(st, i + 1, P_LT)) {
            /* the '=' of its parameters' defaults is not the
             * declaration's (template <int N = 32> T f() {...}) */
            i = cx_skip_template_params(st, i, end);
            continue;
        }
        if (cx_ident(st, i) &&
            (st->tokens[i].ident == W_struct || st->tokens[i].ident == W_union ||
             st->tokens[i].ident == W_enum || st->tokens[i].ident == st->w.class_) &&
            !seen_params)
            tag = 1;
        if (cx_punct(st, i, P_ASSIGN) && !init_list)
            seen_assign = 1;
        if (cx_punct(st, i, P_COLON) && !cx_scope_op(st, i) &&
            (i == 0 || !cx_scope_op(st, i - 1)) && seen_params && !seen_assign)
            init_list = 1;
        if (cx_punct(st, i, P_LPAREN)) {
            if (!seen_assign)
                seen_params = 1;
            i = st->match[i] + 1;
            continue;
        }
        if (cx_punct(st, i, P_LBRACKET)) {
            i = st->match[i] + 1;
            continue;
        }
        if (cx_punct(st, i, P_LBRACE)) {
            int body;
            if (init_list)
                body = cx_punct(st, i - 1, P_RPAREN) ||
                       cx_punct(st, i - 1, P_RBRACE);
            else
                body = seen_params && !seen_assign && !(tag && !type_body && 0);
            if (tag && !seen_params && !type_body) {
                type_body = 1;
                i = st->match[i] + 1;
                continue;
            }
            if (body)
                return st->match[i];
            i = st->match[i] + 1;
            continue;
        }
        ++i;
    }
    return end;
}
