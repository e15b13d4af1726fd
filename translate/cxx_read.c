/*
 * The C++ phase's reading of a program's declarations (see
 * cxx_internal.h): namespaces, using, extern "C", templates and their
 * specialisations, classes with their members, enumerations, typedefs,
 * functions and variables.
 *
 * Host code is skipped: a declaration that says neither __device__,
 * __global__, __shared__, __constant__ nor constexpr is read only when it
 * defines a type or a constant (which device code may use), and one that
 * cannot be read then (a host class holding a std::string) is set aside
 * with its reason, refused only if device code uses it.  Function bodies
 * are read later (cxx_body.c), when the function is known to be written.
 */
#include "cxx_internal.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading what may be host code --------------------------------------------- */

int cx_try(cx_state *st, cx_try_fn fn, void *arg, const char **message)
{
    jmp_buf saved;
    memcpy(saved, st->failure->unwind, sizeof saved);
    int unsupported = *st->unsupported;
    size_t pending = st->pending_gt;
    if (setjmp(st->failure->unwind) == 0) {
        fn(st, arg);
        memcpy(st->failure->unwind, saved, sizeof saved);
        return 1;
    }
    memcpy(st->failure->unwind, saved, sizeof saved);
    if (st->failure->out_of_memory)
        clc_fail_memory(st->failure);
    if (message != NULL)
        *message = st->failure->message
                       ? clc_arena_strndup(st->arena, st->failure->message,
                                           strlen(st->failure->message))
                       : "cannot be read";
    free(st->failure->message);
    st->failure->message = NULL;
    st->failure->line = 0;
    *st->unsupported = unsupported;
    st->pending_gt = pending;
    return 0;
}

void cx_item_add(cx_state *st, cx_item_kind kind, cx_decl *decl,
                        size_t begin, size_t end)
{
    if (st->reading_builtins)
        return;
    st->items = cx_grow(st, st->items, st->item_count, sizeof *st->items);
    st->items[st->item_count++] = (cx_item){(uint8_t)kind, decl, begin, end};
}

/* The namespace scope around `scope` (friends and elaborated names are
 * declared there). */
static cx_scope *cx_namespace_of(cx_scope *scope)
{
    while (scope != NULL && scope->kind != CXS_NAMESPACE)
        scope = scope->parent;
    return scope;
}

/* ---- enumerations ----------------------------------------------------------------- */

size_t cx_read_enum_specifier(cx_state *st, cx_body *ctx, size_t at,
                              size_t end, cx_decl **out)
{
    size_t i = at + 1;
    int scoped = 0;
    if (cx_is(st, i, st->w.class_) || cx_is(st, i, W_struct)) {
        scoped = 1;
        ++i;
    }
    while (cx_is(st, i, W___attribute__) && cx_punct(st, i + 1, P_LPAREN))
        i = st->match[i + 1] + 1;
    int32_t name = -1;
    size_t name_token = i;
    if (cx_ident(st, i) && !cx_punct(st, i, P_LBRACE)) {
        name = st->tokens[i].ident;
        ++i;
    }
    const cx_type *underlying = NULL;
    int fixed = 0;
    if (cx_punct(st, i, P_COLON) && !cx_scope_op(st, i)) {
        size_t after = cx_parse_type_id(st, ctx, i + 1, end, &underlying);
        if (after == i + 1 || !cx_is_integral(underlying))
            cx_fail(st, i, "an enumeration's underlying type must be integral");
        fixed = 1;
        i = after;
    }
    cx_decl *decl = NULL;
    if (name >= 0) {
        for (cx_decl *d = cx_lookup_in(st, ctx->scope, name); d; d = d->same)
            if (d->kind == CXD_ENUM)
                decl = d;
        if (decl == NULL && !cx_punct(st, i, P_LBRACE)) {
            cx_decl *found = cx_resolve(cx_lookup(st, ctx->scope, name));
            if (found != NULL && found->kind == CXD_ENUM)
                decl = found;
        }
    }
    if (decl == NULL) {
        decl = cx_decl_new(st, CXD_ENUM, name, name_token);
        decl->scope = cx_scope_new(st, CXS_ENUM, ctx->scope, decl);
        decl->type = underlying ? underlying : cx_scalar(st, CXT_INT);
        decl->value.i = scoped;           /* a scoped enumeration        */
        decl->value.is_float = fixed;     /* ... with a fixed type        */
        if (st->reading_builtins)
            decl->flags |= CXF_BUILTIN;
        if (name >= 0)
            cx_declare(st, ctx->scope, decl);
    }
    if (!cx_punct(st, i, P_LBRACE)) {
        if (name < 0)
            cx_fail(st, at, "an enumeration without a name or a body");
        *out = decl;
        return i;
    }
    size_t close = st->match[i];
    long long next = 0;
    size_t k = i + 1;
    while (k < close) {
        if (!cx_ident(st, k))
            cx_fail(st, k, "an enumerator's name was expected");
        cx_decl *e = cx_decl_new(st, CXD_ENUMERATOR, st->tokens[k].ident, k);
        e->type = cx_record_type(st, decl);
        size_t after = k + 1;
        while (cx_is(st, after, W___attribute__) && cx_punct(st, after + 1, P_LPAREN))
            after = st->match[after + 1] + 1;
        if (cx_punct(st, after, P_ASSIGN)) {
            size_t stop = after + 1;
            while (stop < close && !cx_punct(st, stop, P_COMMA)) {
                if (cx_is_open(st, stop))
                    stop = st->match[stop];
                ++stop;
            }
            cx_value v = cx_eval_tokens(st, ctx->scope, after + 1, stop);
            if (!v.known || v.is_float)
                cx_refuse(st, after + 1, "cannot translate the value of "
                                         "enumerator '%s': it is not a "
                                         "constant this translation can "
                                         "evaluate",
                          cx_spelling(st, k));
            next = v.i;
            after = stop;
        }
        e->value.known = 1;
        e->value.i = next++;
        e->value.type = e->type;
        if (!scoped && !fixed && ctx->scope == st->global && name >= 0)
            e->cname = cx_ident_name(st, e->name); /* kept as C's enum */
        cx_declare(st, decl->scope, e);
        if (!scoped) {
            /* an unscoped enumeration's names are its scope's too */
            cx_decl *alias = cx_decl_new(st, CXD_ALIAS, e->name, k);
            alias->target = e;
            cx_declare(st, ctx->scope, alias);
        }
        if (!cx_punct(st, after, P_COMMA) && after != close)
            cx_fail(st, after, "',' or '}' was expected after an enumerator");
        k = after + 1;
    }
    if (!st->reading_builtins && ctx->edits == NULL && ctx->fn == NULL)
        cx_item_add(st, CXI_ENUM, decl, at, close + 1);
    *out = decl;
    return close + 1;
}

/* ---- classes --------------------------------------------------------------------- */

typedef struct cx_body_read {
    cx_decl *record;
} cx_body_read;

/* A base class is supported when it holds no data (a tag, or
 * std::binary_function-like functors): its members are found through
 * lookup, its data would change the layout. */
static void cx_check_base(cx_state *st, cx_decl *record)
{
    cx_decl *base = record->rec->base;
    if (base == NULL)
        return;
    for (cx_decl *m = base->scope->first; m != NULL; m = m->next)
        if (m->kind == CXD_FIELD)
            cx_refuse(st, record->token, "cannot translate '%s': a base class "
                                         "with data members",
                      cx_ident_name(st, record->name));
}

static void cx_try_record_body(cx_state *st, void *arg)
{
    cx_body_read *r = arg;
    cx_check_base(st, r->record);
    cx_read_record_body(st, r->record, r->record->scope);
}

size_t cx_read_record_specifier(cx_state *st, cx_body *ctx, size_t at,
                                size_t end, cx_decl **out)
{
    int is_union = cx_is(st, at, W_union);
    size_t i = at + 1;
    size_t align = 0;
    for (;;) {
        if ((cx_is(st, i, st->w.alignas_) || cx_is(st, i, st->w.align_) ||
             cx_is(st, i, W___attribute__)) && cx_punct(st, i + 1, P_LPAREN)) {
            if (cx_is(st, i, W___attribute__)) {
                size_t close = st->match[i + 1];
                for (size_t k = i + 2; k < close; ++k)
                    if (cx_ident(st, k) &&
                        strcmp(cx_ident_name(st, st->tokens[k].ident), "aligned") == 0 &&
                        cx_punct(st, k + 1, P_LPAREN)) {
                        cx_value v = cx_eval_tokens(st, ctx->scope, k + 2,
                                                    st->match[k + 1]);
                        if (v.known)
                            align = (size_t)v.i;
                    }
            } else {
                cx_value v = cx_eval_tokens(st, ctx->scope, i + 2,
                                            st->match[i + 1]);
                if (!v.known || v.is_float) {
                    const cx_type *type = NULL;
                    cx_parse_type_id(st, ctx, i + 2, st->match[i + 1], &type);
                    if (type == NULL)
                        cx_refuse(st, i, "cannot translate this alignment: "
                                         "it is not a constant");
                    align = cx_alignof(st, type);
                } else {
                    align = (size_t)v.i;
                }
            }
            i = st->match[i + 1] + 1;
            continue;
        }
        if (cx_punct(st, i, P_LBRACKET) && cx_punct(st, i + 1, P_LBRACKET)) {
            i = st->match[i] + 1;
            continue;
        }
        break;
    }
    int32_t name = -1;
    size_t name_token = at;
    if (cx_ident(st, i) && !cx_is(st, i, st->w.final_)) {
        name = st->tokens[i].ident;
        name_token = i;
        ++i;
        if (cx_scope_op(st, i))
            cx_refuse(st, i, "cannot translate a nested class defined outside "
                             "its class");
    }
    if (cx_is(st, i, st->w.final_))
        ++i;
    cx_decl *base = NULL;
    if (cx_punct(st, i, P_COLON) && !cx_scope_op(st, i)) {
        /* base classes: one empty base (a tag, std::binary_function-like)
         * is all that device code commonly needs */
        size_t k = i + 1;
        while (cx_is(st, k, st->w.public_) || cx_is(st, k, st->w.private_) ||
               cx_is(st, k, W_private) || cx_is(st, k, st->w.protected_) ||
               cx_is(st, k, st->w.virtual_))
            ++k;
        const cx_type *type = NULL;
        size_t after = cx_parse_type_id(st, ctx, k, end, &type);
        if (type == NULL || type->kind != CXT_RECORD)
            cx_refuse(st, i, "cannot translate this base class: only a "
                             "class it can read may be a base");
        if (!cx_punct(st, after, P_LBRACE))
            cx_refuse(st, after, "cannot translate several base classes");
        base = type->decl;
        i = after;
    }
    cx_decl *decl = NULL;
    if (name >= 0) {
        for (cx_decl *d = cx_lookup_in(st, ctx->scope, name); d; d = d->same)
            if (d->kind == CXD_RECORD)
                decl = d;
        if (decl == NULL && !cx_punct(st, i, P_LBRACE) &&
            !cx_punct(st, i, P_SEMI)) {
            cx_decl *found = cx_resolve(cx_lookup(st, ctx->scope, name));
            if (found != NULL && found->kind == CXD_RECORD) {
                *out = found;
                return i;
            }
            if (found != NULL && found->kind == CXD_TYPEDEF && found->type != NULL &&
                found->type->kind == CXT_RECORD) {
                *out = found->type->decl;
                return i;
            }
        }
    }
    if (decl == NULL || (decl->rec->complete && cx_punct(st, i, P_LBRACE))) {
        if (decl != NULL)
            cx_fail(st, name_token, "'%s' is defined twice",
                    cx_ident_name(st, name));
        decl = cx_decl_new(st, CXD_RECORD, name, name_token);
        decl->rec = clc_arena_alloc(st->arena, sizeof *decl->rec);
        decl->rec->is_union = is_union;
        decl->rec->begin = at;
        decl->scope = cx_scope_new(st, CXS_RECORD, ctx->scope, decl);
        if (st->reading_builtins)
            decl->flags |= CXF_BUILTIN;
        cx_scope *where = ctx->scope;
        if (name >= 0 && !cx_punct(st, i, P_LBRACE) && !cx_punct(st, i, P_SEMI))
            where = cx_namespace_of(ctx->scope); /* elaborated: struct X *p */
        if (name >= 0)
            cx_declare(st, where, decl);
    }
    if (!cx_punct(st, i, P_LBRACE)) {
        *out = decl;
        return i;
    }
    cx_record *rec = decl->rec;
    rec->begin = at;
    rec->body_open = i;
    rec->body_close = st->match[i];
    rec->align = align;
    rec->base = base;
    /* a host class may hold what device code never sees: its reason is
     * kept and given only if device code uses it */
    cx_scope *enclosing = cx_enclosing(ctx->scope);
    int may_be_host = ctx->fn == NULL && !st->reading_builtins &&
                      enclosing != NULL && enclosing->kind == CXS_NAMESPACE;
    if (may_be_host) {
        cx_body_read r = {decl};
        const char *message = NULL;
        if (!cx_try(st, cx_try_record_body, &r, &message))
            rec->unreadable = message;
    } else {
        cx_check_base(st, decl);
        cx_read_record_body(st, decl, decl->scope);
    }
    if (ctx->fn == NULL && rec->from == NULL)
        cx_item_add(st, CXI_RECORD, decl, at, rec->body_close + 1);
    *out = decl;
    return rec->body_close + 1;
}

/* A constructor's or destructor's name at `i` in class `record`. */
static int cx_is_ctor_at(cx_state *st, cx_decl *record, size_t i)
{
    if (record == NULL || record->kind != CXD_RECORD)
        return 0;
    int32_t name = record->rec->from != NULL ? record->rec->from->name
                                             : record->name;
    if (cx_punct(st, i, P_TILDE))
        return cx_is(st, i + 1, name) && cx_punct(st, i + 2, P_LPAREN);
    if (!cx_is(st, i, name))
        return 0;
    if (cx_punct(st, i + 1, P_LPAREN))
        return 1;
    /* Name<T>( in a class template */
    return cx_punct(st, i + 1, P_LT) && record->rec->from != NULL;
}

static void cx_read_member(cx_state *st, cx_body *ctx, cx_decl *record,
                           size_t at, size_t end);

void cx_read_record_body(cx_state *st, cx_decl *record, cx_scope *scope)
{
    cx_record *rec = record->rec;
    cx_body ctx = {0};
    ctx.scope = scope;
    ctx.record = record;
    size_t i = rec->body_open + 1, close = rec->body_close;
    while (i < close) {
        const clc_token *t = &st->tokens[i];
        if (t->kind == CLC_TOK_PRAGMA || cx_punct(st, i, P_SEMI)) {
            ++i;
            continue;
        }
        if ((cx_is(st, i, st->w.public_) || cx_is(st, i, st->w.private_) ||
             cx_is(st, i, W_private) || cx_is(st, i, st->w.protected_)) &&
            cx_punct(st, i + 1, P_COLON)) {
            i += 2;
            continue;
        }
        size_t stop = cx_declaration_end(st, i, close);
        if (stop >= close && !cx_punct(st, stop, P_SEMI))
            cx_fail(st, i, "a member declaration without an end");
        cx_read_member(st, &ctx, record, i, stop);
        i = stop + 1;
    }
    rec->complete = 1;
    if (!rec->has_ctor && rec->has_nsdmi)
        rec->nontrivial_default = 1;
}

static void cx_read_field(cx_state *st, cx_body *ctx, cx_decl *record,
                          const cx_specs *specs, size_t at, size_t end)
{
    size_t i = at;
    for (;;) {
        cx_declarator d;
        i = cx_parse_declarator(st, ctx, i, end, specs->type, &d);
        if (d.name == 0) {
            if (specs->defined_record && i == end)
                return; /* struct S { ... }; inside a class */
            cx_fail(st, at, "a member's name was expected");
        }
        if (cx_punct(st, i, P_COLON))
            cx_refuse(st, i, "cannot translate the bit-field '%s': bit-fields "
                             "are not supported by OpenCL C",
                      cx_spelling(st, d.name));
        int is_static = (specs->flags & CXF_STATIC) != 0;
        cx_decl *m = cx_decl_new(st, is_static ? CXD_VAR : CXD_FIELD,
                                 st->tokens[d.name].ident, d.name);
        m->type = d.type;
        m->flags = specs->flags;
        if (st->reading_builtins)
            m->flags |= CXF_BUILTIN;
        if (cx_punct(st, i, P_ASSIGN) || cx_punct(st, i, P_LBRACE)) {
            size_t init = cx_punct(st, i, P_ASSIGN) ? i + 1 : i;
            size_t stop = init;
            while (stop < end && !cx_punct(st, stop, P_COMMA)) {
                if (cx_is_open(st, stop))
                    stop = st->match[stop];
                ++stop;
            }
            m->init_begin = init;
            m->init_end = stop;
            m->init_scope = ctx->scope;
            if (!is_static)
                record->rec->has_nsdmi = 1;
            i = stop;
        }
        if (is_static && !(m->flags & (CXF_CONSTEXPR)) &&
            !(d.type != NULL && (d.type->quals & CXQ_CONST)))
            cx_refuse(st, d.name, "cannot translate the static data member "
                                  "'%s': only constant ones are supported in "
                                  "device code",
                      cx_spelling(st, d.name));
        if (m->type != NULL && m->type->kind == CXT_AUTO) {
            if (m->init_begin == 0)
                cx_fail(st, d.name, "'auto' without an initializer");
            cx_body inner = *ctx;
            inner.edits = NULL;
            size_t after;
            size_t from = m->init_begin;
            cx_expr *e = cx_parse_assign(st, &inner, from, m->init_end, &after);
            m->type = cx_qualified(st, cx_decay(st, e->type),
                                   specs->quals | ((specs->flags & CXF_CONSTEXPR)
                                                       ? CXQ_CONST : 0));
        }
        cx_declare(st, ctx->scope, m);
        if (cx_punct(st, i, P_COMMA)) {
            ++i;
            continue;
        }
        if (i != end)
            cx_fail(st, i, "';' was expected after a member");
        return;
    }
}

static void cx_read_member(cx_state *st, cx_body *ctx, cx_decl *record,
                           size_t at, size_t end)
{
    if (cx_is(st, at, st->w.template_)) {
        cx_read_decls(st, ctx, at, end + 1, 0);
        return;
    }
    if (cx_is(st, at, st->w.using_) || cx_is(st, at, W_typedef) ||
        cx_is(st, at, W_static_assert) || cx_is(st, at, W__Static_assert)) {
        cx_read_decls(st, ctx, at, end + 1, 0);
        return;
    }
    if (cx_is(st, at, st->w.friend_)) {
        /* friend struct X; friend class X; */
        if (cx_is(st, at + 1, W_struct) || cx_is(st, at + 1, st->w.class_))
            return;
        cx_read_function(st, ctx, at, end, CXF_FRIEND, NULL, NULL, 1);
        return;
    }
    /* constructors and destructors */
    size_t k = at;
    for (;;) {
        int32_t id = cx_ident(st, k) ? st->tokens[k].ident : -1;
        if (id == st->w.explicit_ || id == st->w.device_ || id == st->w.host_ ||
            id == W_inline || id == W___inline__ || id == st->w.constexpr_ ||
            id == st->w.forceinline_ || id == st->w.noinline_ ||
            id == st->w.virtual_) {
            ++k;
            continue;
        }
        break;
    }
    if (cx_is_ctor_at(st, record, k)) {
        cx_read_function(st, ctx, at, end, 0, NULL, NULL, 1);
        return;
    }
    cx_specs specs;
    size_t after = cx_parse_specs(st, ctx, at, end, &specs);
    if (specs.type == NULL) {
        if (cx_is(st, after, st->w.operator_)) {
            /* operator T(): a conversion function */
            cx_read_function(st, ctx, at, end, 0, NULL, NULL, 1);
            return;
        }
        cx_refuse_runtime_type(st, at, after + 1);
        if (cx_ident(st, after))
            cx_fail(st, after, "unknown type '%s'", cx_spelling(st, after));
        cx_fail(st, at, "cannot read this member");
    }
    if (after >= end && specs.defined_record) {
        /* union { struct { short lo, hi; }; unsigned all; }: its members
         * would be the union's, and the C written has no place for them */
        if (specs.type != NULL && specs.type->kind == CXT_RECORD &&
            specs.type->decl != NULL && specs.type->decl->name < 0)
            cx_refuse(st, at, "cannot translate an anonymous %s member: "
                              "not supported (give it a name)",
                      specs.type->decl->rec != NULL &&
                              specs.type->decl->rec->is_union
                          ? "union"
                          : "struct");
        return;
    }
    /* a member function? */
    cx_declarator d;
    cx_body probe = *ctx;
    probe.edits = NULL;
    size_t save_pending = st->pending_gt;
    cx_parse_declarator(st, &probe, after, end, specs.type, &d);
    st->pending_gt = save_pending;
    if (d.type != NULL && d.type->kind == CXT_FUNCTION && d.params_open != 0) {
        cx_read_function(st, ctx, at, end, 0, NULL, NULL, 1);
        return;
    }
    cx_read_field(st, ctx, record, &specs, after, end);
}

/* ---- functions ---------------------------------------------------------------------- */

static int cx_same_params(const cx_function *a, const cx_type *type)
{
    (void)a;
    return type != NULL;
}

/* A function's declaration as it is read. */
typedef struct cx_fn_head {
    cx_decl *record;              /* the class it is a member of          */
    cx_decl *out_of_line_record;  /* S::S(...) and S::~S() outside S      */
    uint32_t flags;
    cx_declarator d;
    int is_ctor, is_dtor;
    size_t inits_begin, inits_end; /* a constructor's member initializers */
    size_t body_open, body_close;  /* 0 0 when it has no body             */
} cx_fn_head;

/* The function specifiers from *k on, as flags; *k: after them. */
static uint32_t cx_function_specifiers(cx_state *st, size_t *k)
{
    uint32_t flags = 0;
    for (;; ++*k) {
        int32_t id = cx_ident(st, *k) ? st->tokens[*k].ident : -1;
        if (id == st->w.explicit_) flags |= CXF_EXPLICIT;
        else if (id == st->w.device_) flags |= CXF_DEVICE;
        else if (id == st->w.host_) flags |= CXF_HOST;
        else if (id == W_inline || id == W___inline__) flags |= CXF_INLINE;
        else if (id == st->w.constexpr_) flags |= CXF_CONSTEXPR;
        else if (id == st->w.forceinline_) flags |= CXF_FORCEINLINE;
        else if (id == st->w.noinline_) flags |= CXF_NOINLINE;
        else if (id == st->w.friend_) flags |= CXF_FRIEND;
        else if (id == st->w.virtual_) flags |= CXF_VIRTUAL;
        else return flags;
    }
}

/* A constructor's or destructor's declarator, from k (its name). */
static void cx_read_ctor_declarator(cx_state *st, cx_body *ctx, size_t k,
                                    size_t end, cx_fn_head *h)
{
    h->is_dtor = cx_punct(st, k, P_TILDE);
    h->is_ctor = !h->is_dtor;
    size_t name = h->is_dtor ? k + 1 : k;
    size_t open = name + 1;
    if (cx_punct(st, open, P_LT))
        open = cx_parse_template_args(st, ctx, open, end,
                                      &(const cx_type **){NULL}, &(size_t){0});
    cx_body inner = *ctx;
    if (h->out_of_line_record != NULL)
        inner.scope = h->out_of_line_record->scope;
    cx_parse_declarator(st, &inner, open, end, cx_scalar(st, CXT_VOID), &h->d);
    h->d.name = name;
    if (h->d.type == NULL || h->d.type->kind != CXT_FUNCTION)
        cx_fail(st, name, "a constructor's parameters were expected");
}

/* The specifiers and declarator of a function declaration; 0 when
 * [begin, end) declares no function. */
static int cx_read_function_head(cx_state *st, cx_body *ctx, size_t begin,
                                 size_t end, cx_fn_head *h)
{
    size_t k = begin;
    uint32_t flags = h->flags | cx_function_specifiers(st, &k);
    if (cx_ident(st, k) && cx_scope_op(st, k + 1) &&
        (cx_is(st, k + 3, st->tokens[k].ident) ||
         (cx_punct(st, k + 3, P_TILDE) && cx_is(st, k + 4, st->tokens[k].ident)))) {
        cx_decl *r = cx_resolve(cx_lookup(st, ctx->scope, st->tokens[k].ident));
        if (r != NULL && r->kind == CXD_RECORD) {
            h->out_of_line_record = r;
            h->record = r;
            k += 3;
        }
    }
    if (cx_is_ctor_at(st, h->record, k)) {
        cx_read_ctor_declarator(st, ctx, k, end, h);
        h->flags = flags;
        return 1;
    }
    cx_specs specs;
    size_t after = cx_parse_specs(st, ctx, begin, end, &specs);
    h->flags = specs.flags | flags;
    const cx_type *base = specs.type;
    if (base == NULL) {
        if (!cx_is(st, after, st->w.operator_) &&
            !(cx_ident(st, after) && cx_scope_op(st, after + 1)))
            return 0;
        base = cx_scalar(st, CXT_VOID);
    }
    cx_parse_declarator(st, ctx, after, end, base, &h->d);
    if (h->d.type == NULL || h->d.type->kind != CXT_FUNCTION ||
        h->d.params_open == 0)
        return 0;
    if (h->d.qualifier != NULL)
        h->record = h->d.qualifier->kind == CXS_RECORD ? h->d.qualifier->owner
                                                       : NULL;
    return 1;
}

/* What follows the declarator: member initializers, a body, = default,
 * = delete. */
static void cx_read_function_tail(cx_state *st, size_t end, cx_fn_head *h)
{
    size_t i = h->d.end;
    if (cx_punct(st, i, P_COLON) && !cx_scope_op(st, i)) {
        h->inits_begin = i + 1;
        size_t j = i + 1;
        while (j < end) {
            if (cx_punct(st, j, P_LBRACE) &&
                (cx_punct(st, j - 1, P_RPAREN) || cx_punct(st, j - 1, P_RBRACE)))
                break;
            if (cx_is_open(st, j))
                j = st->match[j];
            ++j;
        }
        h->inits_end = j;
        i = j;
    }
    if (cx_is(st, i, st->w.try_))
        cx_refuse(st, i, "cannot translate a function-try-block: exceptions "
                         "are not supported in device code");
    if (cx_punct(st, i, P_LBRACE)) {
        h->body_open = i;
        h->body_close = st->match[i];
    } else if (cx_punct(st, i, P_ASSIGN)) {
        if (cx_is(st, i + 1, W_default))
            h->flags |= CXF_DEFAULTED;
        else if (cx_is(st, i + 1, st->w.delete_))
            h->flags |= CXF_DELETED;
        else
            cx_refuse(st, i, "cannot translate a pure virtual function");
    }
}

/* The name a function is declared by: its own, or the one its kind of
 * special member is looked up by ("operator+", the constructors'). */
static int32_t cx_function_decl_name(cx_state *st, const cx_fn_head *h)
{
    const cx_declarator *d = &h->d;
    if (h->is_ctor)
        return st->ctor_name;
    if (h->is_dtor) {
        const char *n = cx_printf(st, "~%s", cx_spelling(st, d->name));
        return clc_intern(st->interner, n, strlen(n));
    }
    if (d->op == CXO_CONVERSION)
        return st->conversion_name;
    if (d->op == CXO_NONE)
        return st->tokens[d->name].ident;
    const char *text = "operator";
    for (size_t q = d->name + 1; q < d->end; ++q) {
        if (cx_punct(st, q, P_LPAREN) && cx_punct(st, q + 1, P_RPAREN)) {
            text = "operator()";
            break;
        }
        if (cx_punct(st, q, P_LBRACKET)) {
            text = "operator[]";
            break;
        }
        if (st->tokens[q].kind == CLC_TOK_PUNCT) {
            text = cx_printf(st, "operator%s", st->tokens[q].text);
            break;
        }
    }
    return clc_intern(st->interner, text, strlen(text));
}

/* A declaration of the same function seen before in `target`: the same
 * name, parameters and constness. */
static cx_decl *cx_function_seen(cx_state *st, cx_scope *target, int32_t name,
                                 const cx_declarator *d)
{
    for (cx_decl *e = cx_lookup_in(st, target, name); e != NULL; e = e->same) {
        if (e->kind != CXD_FUNCTION || e->fn->from != NULL)
            continue;
        const cx_type *et = e->type, *nt = d->type;
        int same = et->param_count == nt->param_count &&
                   e->fn->is_const_method == d->is_const_method &&
                   cx_same_params(e->fn, et);
        for (uint32_t p = 0; same && p < et->param_count; ++p)
            same = cx_unqualified(st, et->params[p]) ==
                   cx_unqualified(st, nt->params[p]);
        if (same)
            return e;
    }
    return NULL;
}

/* Parameters: the definition's names, the first declaration's defaults. */
static void cx_function_take_params(cx_function *fn, const cx_fn_head *h)
{
    if (fn->params != NULL && h->body_open == 0 &&
        fn->param_count == h->d.param_count)
        return;
    cx_param *old = fn->params;
    size_t old_count = fn->param_count;
    fn->params = h->d.params;
    fn->param_count = h->d.param_count;
    for (size_t p = 0; old != NULL && p < old_count && p < h->d.param_count; ++p)
        if (fn->params[p].default_begin == 0 && old[p].default_begin != 0) {
            fn->params[p].default_begin = old[p].default_begin;
            fn->params[p].default_end = old[p].default_end;
        }
}

/* Whether a member's only parameter is its own class (a copy). */
static int cx_copies_record(cx_state *st, const cx_function *fn,
                            cx_decl *record)
{
    if (fn->param_count != 1)
        return 0;
    const cx_type *p = cx_strip_ref(fn->params[0].type);
    return p != NULL && cx_unqualified(st, p) == cx_record_type(st, record);
}

/* What special members tell their class, and what they refuse. */
static void cx_special_member(cx_state *st, const cx_fn_head *h,
                              cx_decl *decl, cx_function *fn)
{
    cx_decl *record = h->record;
    if (h->is_ctor && record != NULL) {
        cx_record *rec = record->rec;
        int trivial = (h->flags & CXF_DEFAULTED) ||
                      (h->body_open != 0 && h->body_close == h->body_open + 1 &&
                       h->inits_begin == 0);
        if (!(decl->flags & CXF_DELETED))
            rec->has_ctor = 1;
        if (fn->param_count == 0 || fn->params[0].default_begin != 0) {
            rec->has_default_ctor = 1;
            if (!trivial)
                rec->nontrivial_default = 1;
        }
        fn->trivial = trivial;
        /* a user-written copy constructor changes what a copy does */
        if (!trivial && !(decl->flags & CXF_DELETED) &&
            cx_copies_record(st, fn, record))
            cx_refuse(st, h->d.name, "cannot translate a user-written copy "
                                     "constructor of '%s'",
                      cx_ident_name(st, record->name));
    }
    if (h->is_dtor && h->body_open != 0 && h->body_close != h->body_open + 1)
        cx_refuse(st, h->d.name, "cannot translate a destructor that runs code "
                                 "in device code");
    if (h->d.op == CXO_ASSIGN && record != NULL &&
        !(h->flags & (CXF_DEFAULTED | CXF_DELETED)) &&
        cx_copies_record(st, fn, record))
        cx_refuse(st, h->d.name, "cannot translate a user-written copy "
                                 "assignment of '%s'",
                  cx_ident_name(st, record->name));
}

/* Where the function is declared, and the scope its body reads in. */
static cx_scope *cx_function_target(cx_body *ctx, cx_fn_head *h)
{
    if (h->flags & CXF_FRIEND) {
        h->record = NULL;
        return cx_namespace_of(ctx->scope);
    }
    if (h->d.qualifier != NULL)
        return h->d.qualifier;
    if (h->out_of_line_record != NULL)
        return h->out_of_line_record->scope;
    return ctx->scope;
}

/* The function's declaration: the one seen before, or a new one. */
static cx_decl *cx_function_decl(cx_state *st, cx_scope *target,
                                 const cx_fn_head *h, cx_template *from,
                                 const cx_type *const *args, int declare)
{
    int32_t name = cx_function_decl_name(st, h);
    cx_decl *decl = from == NULL ? cx_function_seen(st, target, name, &h->d)
                                 : NULL;
    if (decl != NULL && h->body_open != 0 && decl->fn->body_open != 0 &&
        !(decl->flags & CXF_BUILTIN))
        cx_fail(st, h->d.name, "'%s' is defined twice",
                cx_spelling(st, h->d.name));
    if (decl != NULL) {
        if (decl->flags & CXF_BUILTIN)
            decl->flags &= ~(uint32_t)CXF_BUILTIN; /* the user defines it */
        return decl;
    }
    decl = cx_decl_new(st, CXD_FUNCTION, name, h->d.name);
    cx_function *fn = clc_arena_alloc(st->arena, sizeof *fn);
    decl->fn = fn;
    fn->decl = decl;
    fn->from = from;
    fn->args = args;
    if (declare)
        cx_declare(st, target, decl);
    else
        decl->parent = target;
    return decl;
}

cx_decl *cx_read_function(cx_state *st, cx_body *ctx, size_t begin,
                          size_t end, uint32_t extra_flags, cx_template *from,
                          const cx_type *const *args, int declare)
{
    cx_fn_head h;
    memset(&h, 0, sizeof h);
    h.flags = extra_flags;
    /* a member's class: through the scopes of template parameters */
    cx_scope *around = ctx->scope;
    while (around != NULL && around->kind == CXS_TEMPLATE)
        around = around->parent;
    if (around != NULL && around->kind == CXS_RECORD)
        h.record = around->owner;
    if (!cx_read_function_head(st, ctx, begin, end, &h))
        return NULL;
    const cx_declarator *d = &h.d;
    if (h.flags & CXF_VIRTUAL)
        cx_refuse(st, d->name ? d->name : begin,
                  "cannot translate a virtual function: virtual calls are "
                  "not supported in device code");
    cx_read_function_tail(st, end, &h);
    /* host code is not written: a function neither __device__,
     * __global__ nor constexpr (a defaulted member is both) */
    uint32_t flags = h.flags;
    if (!(flags & (CXF_DEVICE | CXF_KERNEL | CXF_CONSTEXPR | CXF_DEFAULTED |
                   CXF_BUILTIN)) &&
        !st->reading_builtins)
        return NULL;
    if (flags & CXF_KERNEL) {
        if (h.record != NULL && !(flags & CXF_FRIEND))
            cx_refuse(st, d->name, "cannot translate a __global__ member "
                                   "function");
        const cx_type *result = d->type->base;
        if (result == NULL || result->kind != CXT_VOID)
            cx_fail(st, d->name, "a __global__ function must return void");
    }
    cx_scope *target = cx_function_target(ctx, &h);
    cx_decl *record = h.record;
    int is_static_member = record != NULL && (flags & CXF_STATIC) && !h.is_ctor;
    cx_decl *decl = cx_function_decl(st, target, &h, from, args, declare);
    cx_function *fn = decl->fn;
    decl->flags |= flags & ~(uint32_t)CXF_FRIEND;
    if (st->reading_builtins)
        decl->flags |= CXF_BUILTIN;
    decl->type = d->type;
    fn->is_ctor = h.is_ctor;
    fn->is_dtor = h.is_dtor;
    fn->op = d->op;
    fn->is_method = record != NULL && !is_static_member && !h.is_ctor &&
                    !(flags & CXF_FRIEND);
    fn->is_const_method = d->is_const_method;
    fn->record = record;
    fn->result = h.is_ctor ? cx_record_type(st, record) : d->type->base;
    fn->variadic = d->variadic;
    if (fn->variadic && !(decl->flags & CXF_BUILTIN))
        cx_refuse(st, d->name, "cannot translate '...': variadic functions are "
                               "not supported by OpenCL C");
    cx_function_take_params(fn, &h);
    if (h.body_open != 0 || fn->name_token == 0) {
        fn->begin = begin;
        fn->name_token = d->name;
        fn->params_open = d->params_open;
        fn->params_close = st->match[d->params_open];
        /* a friend's body sees its class */
        fn->scope = (flags & CXF_FRIEND) ? ctx->scope : target;
    }
    if (h.body_open != 0) {
        fn->body_open = h.body_open;
        fn->body_close = h.body_close;
        fn->inits_begin = h.inits_begin;
        fn->inits_end = h.inits_end;
    }
    cx_special_member(st, &h, decl, fn);
    if (d->op != CXO_NONE && !(decl->flags & CXF_BUILTIN))
        st->operators_declared[d->op] = 1;
    /* written when the program is: not templates (on use), not members of
     * a class template's instance (on use), not builtins */
    int in_instance = record != NULL && record->rec->from != NULL;
    if (from == NULL && !in_instance && h.body_open != 0 &&
        !(decl->flags & CXF_BUILTIN) && !(decl->flags & CXF_DEFAULTED) &&
        !h.is_dtor)
        cx_use_function(st, decl);
    return decl;
}
