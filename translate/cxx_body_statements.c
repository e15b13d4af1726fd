/*
 * The C++ phase's statements and local declarations (see cxx_internal.h):
 * references as pointers, objects built by their constructors,
 * temporaries bound to const references, range-for, if constexpr's
 * discarded branch removed; and a function's body, read once it is known
 * to be written.  Expressions are lowered in cxx_body.c.
 */
#include "cxx_internal.h"

#include <string.h>

/* ---- declarations --------------------------------------------------------------- */

/* Whether the specifiers [begin, end) name a type C cannot spell as
 * written: a template parameter, a template's instance, a qualified name,
 * a member of a namespace or class, auto, decltype, typename. */
static int cx_specs_need_spelling(cx_state *st, cx_body *b, size_t begin,
                                  size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        if (cx_punct(st, i, P_LT) || cx_scope_op(st, i))
            return 1;
        if (!cx_ident(st, i))
            continue;
        int32_t id = st->tokens[i].ident;
        if (id == W_auto || id == st->w.decltype_ || id == st->w.typename_)
            return 1;
        cx_decl *d = cx_resolve(cx_lookup(st, b->scope, id));
        if (d == NULL)
            continue;
        if (d->kind == CXD_TYPEDEF) {
            if (d->parent != st->global || (d->flags & CXF_BUILTIN))
                return d->parent != st->global || d->type->kind == CXT_RECORD;
            continue;
        }
        if (d->kind == CXD_RECORD || d->kind == CXD_ENUM) {
            const char *c = cx_cname(st, d);
            if (strcmp(c, cx_ident_name(st, id)) != 0)
                return 1;
        }
        if (d->kind == CXD_TEMPLATE)
            return 1;
    }
    return 0;
}

static const char *cx_storage_text(uint32_t flags)
{
    if (flags & CXF_SHARED)
        return (flags & CXF_EXTERN) ? "extern __shared__ " : "__shared__ ";
    if (flags & CXF_STATIC)
        return "static ";
    if (flags & CXF_EXTERN)
        return "extern ";
    return "";
}

static size_t cx_local_declaration(cx_state *st, cx_body *b, size_t i,
                                   size_t end, int in_for);
static size_t cx_statement(cx_state *st, cx_body *b, size_t i, size_t end);

/* A record's default construction, when it runs code. */
cx_decl *cx_default_ctor(cx_state *st, const cx_type *t, size_t at)
{
    if (t == NULL || t->kind != CXT_RECORD || !t->decl->rec->nontrivial_default)
        return NULL;
    cx_decl *ctors = cx_lookup_in(st, t->decl->scope, st->ctor_name);
    if (ctors == NULL) {
        /* only default member initializers: the implicit constructor */
        return NULL;
    }
    cx_decl *fn = cx_resolve_call(st, NULL, ctors, NULL, 0, 0, NULL, 0, NULL, at, 1);
    if (fn->fn->trivial)
        return NULL;
    return fn;
}

/* A local declaration as it is read: its specifiers, and the declarator
 * at hand with its initializer. */
typedef struct cx_local {
    cx_specs specs;
    const char *storage;
    int in_for;
    int respell;                  /* every declarator written with its type */
    cx_declarator d;
    size_t decl_begin;
    const cx_type *type;
    int ref;
    int init_kind;                /* 0 none, 1 '=', 2 '(', 3 '{'          */
    size_t init, init_end;
    cx_expr *x;                   /* '=': the initializer                  */
    cx_expr **args;               /* '(' and '{': the arguments            */
    size_t argc;
    const char *spelled;          /* the declaration as C writes it        */
} cx_local;

/* typedef in a body: its uses are spelled out, the declaration goes. */
static size_t cx_local_typedef(cx_state *st, cx_body *b, cx_body *quiet,
                               const cx_specs *specs, size_t i, size_t after,
                               size_t end)
{
    size_t k = after;
    for (;;) {
        cx_declarator d;
        k = cx_parse_declarator(st, quiet, k, end, specs->type, &d);
        cx_decl *t = cx_decl_new(st, CXD_TYPEDEF, st->tokens[d.name].ident,
                                 d.name);
        t->type = d.type;
        cx_declare(st, b->scope, t);
        if (!cx_punct(st, k, P_COMMA))
            break;
        ++k;
    }
    cx_clear(b, i, k + 1);
    return k + 1;
}

/* Whether a declarator after `after` is a reference: then each is written
 * with its type. */
static int cx_local_has_reference(cx_state *st, size_t after, size_t end)
{
    for (size_t k = after, start = 1; k < end; ++k) {
        if (cx_punct(st, k, P_SEMI))
            break;
        if (start && (cx_punct(st, k, P_AMP) || cx_punct(st, k, P_ANDAND)))
            return 1;
        if (cx_punct(st, k, P_STAR) || cx_is(st, k, W_const) ||
            cx_is(st, k, W_volatile) || cx_is(st, k, W___restrict__))
            continue;
        start = cx_punct(st, k, P_COMMA);
        if (cx_is_open(st, k))
            k = st->match[k];
    }
    return 0;
}

/* What a declarator's type refuses: a function, a pointer to one. */
static void cx_local_check_type(cx_state *st, const cx_local *l)
{
    if (l->type != NULL && l->type->kind == CXT_FUNCTION)
        cx_refuse(st, l->d.name, "cannot translate a function declared inside "
                                 "a function");
    const cx_type *pointee = cx_strip_ref(l->type);
    while (pointee != NULL && (pointee->kind == CXT_POINTER ||
                               pointee->kind == CXT_ARRAY))
        pointee = pointee->base;
    if (pointee != NULL && pointee->kind == CXT_FUNCTION)
        cx_refuse(st, l->d.name, "cannot translate '%s', a pointer to a "
                                 "function: OpenCL C has no function pointers",
                  cx_spelling(st, l->d.name));
}

/* The initializer after the declarator (at k), read: '= x', '(args)',
 * '{args}'. */
static void cx_local_initializer(cx_state *st, cx_body *b, cx_local *l,
                                 size_t k, size_t end)
{
    l->init_kind = cx_punct(st, k, P_ASSIGN)   ? 1
                   : cx_punct(st, k, P_LPAREN) ? 2
                   : cx_punct(st, k, P_LBRACE) ? 3
                                               : 0;
    l->init = l->init_kind == 1 ? k + 1 : k;
    l->init_end = 0;
    l->x = NULL;
    l->args = NULL;
    l->argc = 0;
    if (l->init_kind == 1) {
        l->x = cx_punct(st, l->init, P_LBRACE)
                   ? cx_parse_init_list(st, b, l->init)
                   : cx_parse_assign(st, b, l->init, end, &l->init_end);
        l->init_end = l->x->last + 1;
    } else if (l->init_kind == 3) {
        cx_expr *list = cx_parse_init_list(st, b, l->init);
        l->args = list->args;
        l->argc = list->argc;
        l->init_end = list->last + 1;
    } else if (l->init_kind == 2) {
        /* T x(args) */
        size_t close = st->match[l->init];
        size_t a = l->init + 1;
        while (a < close) {
            size_t next;
            cx_expr *arg = cx_parse_assign(st, b, a, close, &next);
            l->args = cx_grow(st, l->args, l->argc, sizeof *l->args);
            l->args[l->argc++] = arg;
            a = next;
            if (cx_punct(st, a, P_COMMA))
                ++a;
            else if (a != close)
                cx_fail(st, a, "',' or ')' was expected");
        }
        l->init_end = close + 1;
    }
}

/* auto, auto *, auto &: the type its initializer gives. */
static void cx_local_deduce(cx_state *st, cx_local *l)
{
    const cx_type *it = l->x != NULL ? l->x->type
                        : l->argc == 1 ? l->args[0]->type : NULL;
    const char *name = cx_spelling(st, l->d.name);
    if (l->x != NULL && l->x->kind == CXE_INIT_LIST)
        cx_refuse(st, l->d.name, "cannot translate 'auto' with a braced "
                                 "initializer list");
    if (l->x != NULL && l->x->kind == CXE_NAME && l->x->decl != NULL &&
        (l->x->decl->kind == CXD_FUNCTION || l->x->decl->kind == CXD_TEMPLATE))
        cx_refuse(st, l->d.name, "cannot translate 'auto %s' holding a "
                                 "function: OpenCL C has no function pointers",
                  name);
    if (it == NULL)
        cx_refuse(st, l->d.name, "cannot translate 'auto %s': the type of its "
                                 "initializer is not known to the translation",
                  name);
    const cx_type *type = l->type;
    const cx_type *auto_type = cx_strip_ref(type);
    if (type->kind == CXT_POINTER) {
        const cx_type *pt = cx_decay(st, it);
        if (pt == NULL || pt->kind != CXT_POINTER)
            cx_fail(st, l->d.name, "'auto *' needs a pointer");
        l->type = cx_qualified(st, pt, type->quals);
    } else if (l->ref) {
        /* auto& binds to the object: its own qualifiers kept */
        l->type = cx_reference(
            st, cx_qualified(st, cx_strip_ref(it), auto_type->quals),
            type->kind == CXT_RREF);
    } else {
        l->type = cx_qualified(st, cx_decay(st, it), auto_type->quals);
    }
}

/* A constant's initializer, kept for constant expressions. */
static void cx_local_constant(cx_local *l, cx_decl *var, cx_scope *scope)
{
    if (l->init_kind == 0 || l->type == NULL ||
        !((l->type->quals & CXQ_CONST) || (l->specs.flags & CXF_CONSTEXPR)))
        return;
    var->init_begin = l->init;
    var->init_end = l->init_end;
    var->init_paren = (uint8_t)(l->init_kind == 2);
    var->init_scope = scope;
    if (l->init_kind == 1 && l->x != NULL && l->x->kind != CXE_INIT_LIST) {
        var->init_begin = l->x->first;
        var->init_end = l->x->last + 1;
    }
}

/* T &r = lvalue: a pointer to it; = a temporary: a variable of the block
 * that r points to (C++'s lifetime extension). */
static void cx_local_reference(cx_state *st, cx_body *b, const cx_local *l)
{
    const char *name = cx_spelling(st, l->d.name);
    if (l->init_kind == 0)
        cx_fail(st, l->d.name, "the reference '%s' needs an initializer", name);
    cx_expr *source = l->x != NULL ? l->x : (l->argc == 1 ? l->args[0] : NULL);
    if (source == NULL)
        cx_fail(st, l->d.name, "the reference '%s' needs one initializer", name);
    const cx_type *base = l->type->base;
    int direct = source->lvalue && cx_binds(st, base, cx_strip_ref(source->type));
    if (!direct && !(base->quals & CXQ_CONST) && l->type->kind == CXT_LREF)
        cx_fail(st, l->d.name, "a non-const reference needs an object of its "
                               "type");
    cx_lower_expr(st, b, source, direct ? NULL : cx_unqualified(st, base));
    if (l->init_kind != 1) {
        cx_set(b, l->init, "= ");
        cx_set(b, l->init_end - 1, "");
    }
    if (direct) {
        cx_take_address(st, b, source);
        return;
    }
    if (l->in_for)
        cx_refuse(st, l->d.name, "cannot translate a reference to a temporary "
                                 "in a for statement");
    const char *temp = cx_printf(st, "__kiln_tmp%u", st->name_count++);
    cx_set(b, l->decl_begin,
           cx_printf(st, "%s%s", l->storage,
                     cx_spell(st, cx_unqualified(st, base), temp)));
    cx_append(st, b, l->init_end - 1,
              cx_printf(st, "; %s = &%s", l->spelled, temp));
}

/* S s(args), S s{args}: its constructor called, or an aggregate's
 * members initialized in order. */
static void cx_local_construct_record(cx_state *st, cx_body *b,
                                      const cx_local *l, const cx_type *t)
{
    cx_decl *ctors = cx_lookup_in(st, t->decl->scope, st->ctor_name);
    if (ctors != NULL) {
        cx_decl *fn = cx_resolve_call(st, b, ctors, NULL, 0, 0, l->args,
                                      l->argc, NULL, l->init, 1);
        uint32_t mask = cx_lower_args(st, b, fn->fn, l->args, l->argc);
        const char *defaults = cx_defaults(st, fn->fn, l->argc, l->argc > 0,
                                           &mask);
        cx_set(b, l->init,
               cx_printf(st, "= %s(", cx_callee_name(st, fn, mask)));
        cx_set(b, l->init_end - 1, cx_printf(st, "%s)", defaults));
    } else if (l->init_kind == 3) {
        cx_decl *m = t->decl->scope->first;
        for (size_t q = 0; q < l->argc; ++q) {
            while (m != NULL && m->kind != CXD_FIELD)
                m = m->next;
            cx_lower_expr(st, b, l->args[q], m ? m->type : NULL);
            if (m != NULL)
                m = m->next;
        }
        cx_prepend(st, b, l->init, "= ");
        if (l->argc == 0)
            cx_set(b, l->init, "= {0}");
    } else if (l->argc == 1) {
        cx_lower_expr(st, b, l->args[0], t);
        cx_set(b, l->init, "= (");
    } else {
        cx_fail(st, l->init, "'%s' has no constructor", cx_describe(st, t));
    }
}

/* T x(args), T x{args}: C's '= value'. */
static void cx_local_construct(cx_state *st, cx_body *b, const cx_local *l)
{
    const cx_type *t = cx_unqualified(st, l->type);
    if (t != NULL && t->kind == CXT_RECORD) {
        cx_local_construct_record(st, b, l, t);
        return;
    }
    if (l->argc > 1)
        cx_fail(st, l->init, "one value was expected");
    for (size_t q = 0; q < l->argc; ++q)
        cx_lower_expr(st, b, l->args[q], t);
    if (l->argc == 0) {
        cx_clear(b, l->init, l->init_end);
        cx_set(b, l->init, t != NULL && t->kind == CXT_ARRAY ? "= {0}" : "= 0");
    } else {
        cx_set(b, l->init, "= (");
        cx_set(b, l->init_end - 1, ")");
    }
}

/* S s; or S a[n]; without an initializer: a default constructor that runs
 * code is called (refused for an array's elements). */
static void cx_local_default(cx_state *st, cx_body *b, const cx_local *l,
                             const cx_type *object)
{
    if (!(l->specs.flags & (CXF_SHARED | CXF_EXTERN)) &&
        object->kind == CXT_RECORD && l->type->kind == CXT_RECORD) {
        cx_decl *fn = cx_default_ctor(st, object, l->d.name);
        if (fn != NULL) {
            uint32_t mask = 0;
            const char *defaults = cx_defaults(st, fn->fn, 0, 0, &mask);
            cx_append(st, b, l->d.end - 1,
                      cx_printf(st, " = %s(%s)", cx_callee_name(st, fn, mask),
                                defaults));
        } else if (object->decl->rec->nontrivial_default) {
            cx_append(st, b, l->d.end - 1,
                      cx_printf(st, " = %s()",
                                cx_aggregate_maker(st, object->decl, 0)));
        }
    } else if (object->kind == CXT_ARRAY) {
        const cx_type *el = object;
        while (el->kind == CXT_ARRAY)
            el = el->base;
        if (el->kind == CXT_RECORD && el->decl->rec->nontrivial_default &&
            !(l->specs.flags & CXF_SHARED))
            cx_refuse(st, l->d.name, "cannot translate an array of '%s': its "
                                     "elements need a constructor run",
                      cx_describe(st, el));
    }
}

/* One declarator of a local declaration, from k: declared, its type
 * deduced, written as C.  Returns where it ends (its initializer's end). */
static size_t cx_local_declarator(cx_state *st, cx_body *b, cx_local *l,
                                  size_t k, size_t end, int first,
                                  const cx_type *first_type)
{
    l->decl_begin = k;
    b->objects_only = 1;
    k = cx_parse_declarator(st, b, k, end, l->specs.type, &l->d);
    b->objects_only = 0;
    if (l->d.name == 0)
        cx_fail(st, l->decl_begin, "a variable's name was expected");
    l->type = l->d.type;
    cx_local_check_type(st, l);
    cx_decl *var = cx_decl_new(st, CXD_VAR, st->tokens[l->d.name].ident,
                               l->d.name);
    var->flags = l->specs.flags;
    var->cname = NULL;
    const cx_type *stripped = cx_strip_ref(l->type);
    int is_auto = stripped != NULL &&
                  (stripped->kind == CXT_AUTO ||
                   (l->type->kind == CXT_POINTER && l->type->base &&
                    l->type->base->kind == CXT_AUTO));
    l->ref = cx_is_ref(l->type);
    if (!is_auto)
        cx_declare(st, b->scope, var);
    cx_local_initializer(st, b, l, k, end);
    if (is_auto) {
        cx_local_deduce(st, l);
        cx_declare(st, b->scope, var);
    }
    if ((l->specs.flags & CXF_CONSTEXPR) && !l->ref)
        l->type = cx_qualified(st, l->type, CXQ_CONST);
    var->type = l->type;
    if (l->ref)
        var->flags |= CXF_REFERENCE;
    cx_local_constant(l, var, b->scope);
    cx_use_record(st, l->type);
    const cx_type *object = cx_strip_ref(l->type);
    if (object != NULL && object->kind == CXT_RECORD &&
        object->decl->rec->unreadable != NULL)
        cx_refuse(st, l->d.name, "cannot translate '%s': %s",
                  cx_describe(st, object), object->decl->rec->unreadable);
    l->spelled = cx_spell(st, l->ref ? cx_pointer(st, l->type->base) : l->type,
                          cx_spelling(st, l->d.name));
    if (l->respell || l->ref) {
        if (l->in_for && !first && l->type != first_type)
            cx_refuse(st, l->d.name, "cannot translate variables of different "
                                     "types declared in one for statement");
        cx_clear(b, l->decl_begin, l->d.end);
        cx_set(b, l->decl_begin,
               first || !l->in_for
                   ? cx_printf(st, "%s%s", l->storage, l->spelled)
                   : cx_spelling(st, l->d.name));
    }
    if (l->ref)
        cx_local_reference(st, b, l);
    else if (l->init_kind == 1)
        cx_lower_expr(st, b, l->x, l->type);
    else if (l->init_kind != 0)
        cx_local_construct(st, b, l);
    else if (object != NULL)
        cx_local_default(st, b, l, object);
    return l->init_kind == 0 ? k : l->init_end;
}

static size_t cx_local_declaration(cx_state *st, cx_body *b, size_t i,
                                   size_t end, int in_for)
{
    cx_body quiet = *b;
    quiet.edits = NULL;
    cx_local l;
    memset(&l, 0, sizeof l);
    l.in_for = in_for;
    size_t after = cx_parse_specs(st, &quiet, i, end, &l.specs);
    if (l.specs.type == NULL)
        cx_fail(st, i, "a type was expected");
    if (l.specs.defined_record && l.specs.record != NULL &&
        l.specs.record->kind == CXD_RECORD) {
        for (cx_decl *m = l.specs.record->scope->first; m != NULL; m = m->next)
            if (m->kind == CXD_FUNCTION)
                cx_refuse(st, i, "cannot translate a class with member "
                                 "functions defined inside a function");
    }
    if (l.specs.is_typedef)
        return cx_local_typedef(st, b, &quiet, &l.specs, i, after, end);
    l.respell = cx_specs_need_spelling(st, b, i, after) || l.specs.has_auto ||
                cx_local_has_reference(st, after, end);
    l.storage = cx_storage_text(l.specs.flags);
    if (l.respell)
        cx_clear(b, i, after);
    const cx_type *first_type = NULL;
    for (size_t k = after, first = 1;; first = 0) {
        k = cx_local_declarator(st, b, &l, k, end, (int)first, first_type);
        if (first)
            first_type = l.type;
        if (cx_punct(st, k, P_COMMA)) {
            if ((l.respell || l.ref) && !in_for)
                cx_set(b, k, ";");
            ++k;
            continue;
        }
        if (!cx_punct(st, k, P_SEMI) && !(in_for && cx_punct(st, k, P_COLON)))
            cx_fail(st, k, "';' was expected after a declaration");
        return k;
    }
}

/* ---- statements ----------------------------------------------------------------- */

static size_t cx_block(cx_state *st, cx_body *b, size_t open)
{
    size_t close = st->match[open];
    cx_scope *saved = b->scope;
    b->scope = cx_scope_new(st, CXS_BLOCK, saved, NULL);
    size_t i = open + 1;
    while (i < close)
        i = cx_statement(st, b, i, close);
    b->scope = saved;
    return close + 1;
}

static int cx_starts_declaration(cx_state *st, cx_body *b, size_t i)
{
    if (!cx_ident(st, i) && !cx_scope_op(st, i))
        return 0;
    if (cx_ident(st, i)) {
        int32_t id = st->tokens[i].ident;
        if (id == W_static || id == W_extern || id == W_const ||
            id == W_volatile || id == W_register || id == W_auto ||
            id == st->w.constexpr_ || id == st->w.shared_ ||
            id == W_struct || id == W_union || id == W_enum ||
            id == st->w.class_ || id == W_typedef || id == st->w.device_ ||
            id == st->w.typename_ || id == W___attribute__)
            return 1;
        if (id == st->w.decltype_)
            return 1;
    }
    cx_body quiet = *b;
    quiet.edits = NULL;
    if (!cx_starts_type(st, &quiet, i))
        return 0;
    /* T(x) and T{x} at the start of a statement: an expression when a
     * value follows */
    cx_name n;
    size_t saved = st->pending_gt;
    cx_parse_name(st, &quiet, i, st->count, &n);
    st->pending_gt = saved;
    size_t after = n.last + 1;
    if (cx_ident(st, i) && !n.qualified && !n.has_targs) {
        int32_t id = st->tokens[i].ident;
        if (id == W_void || id == W_char || id == W_short || id == W_int ||
            id == W_long || id == W_float || id == W_double || id == W_bool ||
            id == W_signed || id == W_unsigned)
            after = i + 1;
    }
    if (cx_punct(st, after, P_LPAREN) || cx_punct(st, after, P_LBRACE) ||
        cx_punct(st, after, P_DOT) || cx_punct(st, after, P_ARROW))
        return 0;
    return 1;
}

/* The statement [at, its end) with if constexpr's untaken branch. */
static size_t cx_statement_end(cx_state *st, size_t i, size_t end)
{
    if (cx_punct(st, i, P_LBRACE))
        return st->match[i] + 1;
    if (st->tokens[i].kind == CLC_TOK_PRAGMA)
        return cx_statement_end(st, i + 1, end);
    if (cx_is(st, i, st->w.if_)) {
        size_t k = i + 1;
        if (cx_is(st, k, st->w.constexpr_))
            ++k;
        k = cx_statement_end(st, st->match[k] + 1, end);
        if (cx_is(st, k, W_else))
            k = cx_statement_end(st, k + 1, end);
        return k;
    }
    if (cx_is(st, i, W_for) || cx_is(st, i, W_while) || cx_is(st, i, W_switch))
        return cx_statement_end(st, st->match[i + 1] + 1, end);
    if (cx_is(st, i, W_do)) {
        size_t k = cx_statement_end(st, i + 1, end);
        /* while (...) ; */
        return st->match[k + 1] + 2;
    }
    while (i < end && !cx_punct(st, i, P_SEMI)) {
        if (cx_is_open(st, i))
            i = st->match[i];
        ++i;
    }
    return i + 1;
}

static cx_expr *cx_condition(cx_state *st, cx_body *b, size_t open)
{
    size_t close = st->match[open];
    for (size_t k = open + 1; k < close; ++k) {
        if (cx_is_open(st, k))
            k = st->match[k];
        else if (cx_punct(st, k, P_SEMI))
            cx_refuse(st, k, "cannot translate a condition with an "
                             "initializer statement");
    }
    if (cx_starts_declaration(st, b, open + 1))
        cx_refuse(st, open + 1, "cannot translate a declaration in a condition");
    size_t after;
    cx_expr *c = cx_parse_expr(st, b, open + 1, close, 1, &after);
    if (after != close)
        cx_fail(st, after, "')' was expected");
    cx_lower_expr(st, b, c, NULL);
    const cx_type *t = cx_strip_ref(c->type);
    if (t != NULL && t->kind == CXT_RECORD)
        cx_convert(st, b, c, cx_scalar(st, CXT_BOOL));
    return c;
}

static size_t cx_range_for(cx_state *st, cx_body *b, size_t i, size_t colon)
{
    size_t open = i + 1, close = st->match[open];
    cx_scope *saved = b->scope;
    b->scope = cx_scope_new(st, CXS_BLOCK, saved, NULL);
    size_t after;
    cx_expr *range = cx_parse_expr(st, b, colon + 1, close, 1, &after);
    cx_lower_expr(st, b, range, NULL);
    const cx_type *rt = cx_strip_ref(range->type);
    if (rt == NULL || rt->kind != CXT_ARRAY || rt->length < 0)
        cx_refuse(st, colon, "cannot translate this range-based for: only "
                             "arrays of known length are supported");
    const char *range_text = cx_render(st, b->edits, colon + 1, close);
    /* the element's declaration */
    cx_body quiet = *b;
    quiet.edits = NULL;
    cx_specs specs;
    size_t spec_end = cx_parse_specs(st, &quiet, open + 1, colon, &specs);
    cx_declarator d;
    cx_parse_declarator(st, &quiet, spec_end, colon, specs.type, &d);
    if (d.name == 0)
        cx_fail(st, open + 1, "the loop variable's name was expected");
    const cx_type *type = d.type;
    int ref = cx_is_ref(type);
    const cx_type *base = cx_strip_ref(type);
    if (base != NULL && base->kind == CXT_AUTO)
        type = ref ? cx_reference(st, cx_qualified(st, rt->base, base->quals), 0)
                   : cx_qualified(st, rt->base, base->quals);
    cx_decl *var = cx_decl_new(st, CXD_VAR, st->tokens[d.name].ident, d.name);
    var->type = type;
    if (ref)
        var->flags |= CXF_REFERENCE;
    const char *index = cx_printf(st, "__kiln_i%u", st->name_count++);
    const char *element;
    if (ref)
        element = cx_printf(st, "%s = &(%s)[%s];",
                            cx_spell(st, cx_pointer(st, type->base),
                                     cx_spelling(st, d.name)),
                            range_text, index);
    else
        element = cx_printf(st, "%s = (%s)[%s];",
                            cx_spell(st, type, cx_spelling(st, d.name)),
                            range_text, index);
    cx_clear(b, open + 1, close);
    cx_set(b, open + 1, cx_printf(st, "int %s = 0; %s < %lld; ++%s", index,
                                  index, rt->length, index));
    /* the body sees the element */
    b->scope = cx_scope_new(st, CXS_BLOCK, b->scope, NULL);
    cx_declare(st, b->scope, var);
    size_t body = close + 1;
    size_t stop;
    if (cx_punct(st, body, P_LBRACE)) {
        cx_append(st, b, body, element);
        stop = cx_block(st, b, body);
    } else {
        cx_prepend(st, b, body, cx_printf(st, "{ %s", element));
        stop = cx_statement(st, b, body, st->count);
        cx_append(st, b, stop - 1, " }");
    }
    b->scope = saved;
    return stop;
}

static size_t cx_for(cx_state *st, cx_body *b, size_t i)
{
    size_t open = i + 1, close = st->match[open];
    /* for (decl : range) */
    int semis = 0;
    size_t colon = 0;
    for (size_t k = open + 1; k < close; ++k) {
        if (cx_is_open(st, k)) {
            k = st->match[k];
            continue;
        }
        if (cx_punct(st, k, P_SEMI))
            semis++;
        if (cx_punct(st, k, P_COLON) && !cx_scope_op(st, k) &&
            !cx_scope_op(st, k - 1) && colon == 0)
            colon = k;
        if (cx_punct(st, k, P_QUESTION))
            colon = close; /* a ?: */
    }
    if (semis == 0 && colon != 0 && colon != close)
        return cx_range_for(st, b, i, colon);
    cx_scope *saved = b->scope;
    b->scope = cx_scope_new(st, CXS_BLOCK, saved, NULL);
    size_t k = open + 1;
    if (cx_punct(st, k, P_SEMI)) {
        ++k;
    } else if (cx_starts_declaration(st, b, k)) {
        k = cx_local_declaration(st, b, k, close, 1) + 1;
    } else {
        size_t after;
        cx_expr *e = cx_parse_expr(st, b, k, close, 1, &after);
        cx_lower_expr(st, b, e, NULL);
        if (!cx_punct(st, after, P_SEMI))
            cx_fail(st, after, "';' was expected in 'for'");
        k = after + 1;
    }
    if (!cx_punct(st, k, P_SEMI)) {
        size_t after;
        cx_expr *c = cx_parse_expr(st, b, k, close, 1, &after);
        cx_lower_expr(st, b, c, NULL);
        k = after;
    }
    if (!cx_punct(st, k, P_SEMI))
        cx_fail(st, k, "';' was expected in 'for'");
    ++k;
    if (k < close) {
        size_t after;
        cx_expr *s = cx_parse_expr(st, b, k, close, 1, &after);
        cx_lower_expr(st, b, s, NULL);
        if (after != close)
            cx_fail(st, after, "')' was expected in 'for'");
    }
    size_t stop = cx_statement(st, b, close + 1, st->count);
    b->scope = saved;
    return stop;
}

static size_t cx_if(cx_state *st, cx_body *b, size_t i, size_t end)
{
    size_t k = i + 1;
    int constant = cx_is(st, k, st->w.constexpr_);
    if (constant)
        ++k;
    if (!cx_punct(st, k, P_LPAREN))
        cx_fail(st, k, "'(' was expected after 'if'");
    size_t close = st->match[k];
    if (!constant) {
        cx_condition(st, b, k);
        size_t then_end = cx_statement(st, b, close + 1, end);
        if (cx_is(st, then_end, W_else))
            return cx_statement(st, b, then_end + 1, end);
        return then_end;
    }
    /* if constexpr: only the branch taken is read */
    cx_body quiet = *b;
    quiet.edits = NULL;
    size_t after;
    cx_expr *c = cx_parse_expr(st, &quiet, k + 1, close, 1, &after);
    cx_value v = cx_eval(st, &quiet, c);
    if (!v.known)
        cx_refuse(st, k, "cannot translate this if constexpr: its condition is "
                         "not a constant this translation can evaluate");
    size_t then_end = cx_statement_end(st, close + 1, end);
    size_t else_end = then_end;
    int has_else = cx_is(st, then_end, W_else);
    if (has_else)
        else_end = cx_statement_end(st, then_end + 1, end);
    if (cx_value_truth(v)) {
        cx_clear(b, i, close + 1);
        cx_set(b, i, "{");
        cx_statement(st, b, close + 1, end);
        if (has_else)
            cx_clear(b, then_end, else_end);
        cx_append(st, b, (has_else ? else_end : then_end) - 1, "}");
        return has_else ? else_end : then_end;
    }
    cx_clear(b, i, then_end + (has_else ? 1 : 0));
    if (has_else) {
        cx_set(b, i, "{");
        cx_statement(st, b, then_end + 1, end);
        cx_append(st, b, else_end - 1, "}");
    } else {
        cx_set(b, i, ";");
    }
    return else_end;
}

static size_t cx_expect_semi(cx_state *st, size_t at)
{
    if (!cx_punct(st, at, P_SEMI))
        cx_fail(st, at, "';' was expected");
    return at + 1;
}

static size_t cx_statement(cx_state *st, cx_body *b, size_t i, size_t end)
{
    if (i >= end)
        cx_fail(st, i < st->count ? i : 0, "a statement was expected");
    const clc_token *t = &st->tokens[i];
    if (t->kind == CLC_TOK_PRAGMA)
        return i + 1;
    if (cx_punct(st, i, P_SEMI))
        return i + 1;
    if (cx_punct(st, i, P_LBRACE))
        return cx_block(st, b, i);
    if (t->kind == CLC_TOK_IDENT) {
        int32_t id = t->ident;
        if (id == st->w.if_)
            return cx_if(st, b, i, end);
        if (id == W_while) {
            cx_condition(st, b, i + 1);
            return cx_statement(st, b, st->match[i + 1] + 1, end);
        }
        if (id == W_do) {
            size_t k = cx_statement(st, b, i + 1, end);
            if (!cx_is(st, k, W_while))
                cx_fail(st, k, "'while' was expected after 'do'");
            cx_condition(st, b, k + 1);
            return cx_expect_semi(st, st->match[k + 1] + 1);
        }
        if (id == W_for)
            return cx_for(st, b, i);
        if (id == W_switch) {
            cx_condition(st, b, i + 1);
            return cx_statement(st, b, st->match[i + 1] + 1, end);
        }
        if (id == W_case) {
            cx_body in = *b;
            size_t after;
            cx_expr *c = cx_parse_expr(st, &in, i + 1, end, 0, &after);
            cx_lower_expr(st, b, c, NULL);
            if (!cx_punct(st, after, P_COLON))
                cx_fail(st, after, "':' was expected after 'case'");
            cx_value v = cx_eval(st, b, c);
            if (v.known && !v.is_float && c->kind != CXE_LITERAL) {
                /* a case label is a constant in C too */
                cx_clear(b, i + 1, after);
                cx_set(b, i + 1, cx_literal(st, v));
            }
            return after + 1;
        }
        if (id == W_default && cx_punct(st, i + 1, P_COLON))
            return i + 2;
        if (id == W_break || id == W_continue)
            return cx_expect_semi(st, i + 1);
        if (id == W_goto)
            return cx_expect_semi(st, i + 2);
        if (id == W_return) {
            if (cx_punct(st, i + 1, P_SEMI)) {
                if (b->ctor)
                    cx_set(b, i, "return " CX_SELF);
                return i + 2;
            }
            cx_expr *e = cx_punct(st, i + 1, P_LBRACE)
                             ? cx_parse_init_list(st, b, i + 1)
                             : NULL;
            size_t after;
            if (e == NULL)
                e = cx_parse_expr(st, b, i + 1, end, 1, &after);
            after = e->last + 1;
            if (cx_is_ref(b->result)) {
                cx_lower_expr(st, b, e, NULL);
                if (!e->lvalue)
                    cx_fail(st, i, "returning a reference to a temporary");
                cx_take_address(st, b, e);
            } else {
                cx_lower_expr(st, b, e, b->result);
            }
            return cx_expect_semi(st, after);
        }
        if (id == W_static_assert || id == W__Static_assert) {
            cx_static_assert(st, b->scope, i);
            size_t close = st->match[i + 1];
            cx_clear(b, i, close + 2);
            return cx_expect_semi(st, close + 1);
        }
        if (id == st->w.using_ || (id == st->w.namespace_ && cx_ident(st, i + 1))) {
            size_t stop = i;
            while (stop < end && !cx_punct(st, stop, P_SEMI))
                ++stop;
            cx_body in = *b;
            in.edits = NULL;
            cx_read_decls(st, &in, i, stop + 1, 0);
            cx_clear(b, i, stop + 1);
            return stop + 1;
        }
        if (id == W_asm || id == W___asm__ || id == W___asm)
            cx_refuse(st, i, "cannot translate '%s': inline PTX assembly is "
                             "not supported by OpenCL C",
                      cx_spelling(st, i));
        if (id == st->w.try_)
            cx_refuse(st, i, "cannot translate 'try': exceptions are not "
                             "supported in device code");
        if (cx_punct(st, i + 1, P_COLON) && !cx_scope_op(st, i + 1))
            return i + 2; /* a label */
    }
    if (cx_starts_declaration(st, b, i))
        return cx_local_declaration(st, b, i, end, 0) + 1;
    size_t after;
    cx_expr *e = cx_parse_expr(st, b, i, end, 1, &after);
    cx_lower_expr(st, b, e, NULL);
    return cx_expect_semi(st, after);
}

/* ---- a function's body ------------------------------------------------------------ */

/* A constructor's member initializers and default member initializers:
 * the statements that start its body. */
static void cx_ctor_prologue(cx_state *st, cx_body *b, cx_function *fn)
{
    cx_decl *record = fn->record;
    const char *name = cx_cname(st, record);
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    clc_buffer_printf(&text, "%s " CX_SELF "; %s *" CX_THIS " = &" CX_SELF ";",
                      name, name);
    /* which members the initializer list names, read into edits of their
     * own and written in the prologue in the members' order */
    size_t field_count = 0;
    for (cx_decl *m = record->scope->first; m != NULL; m = m->next)
        field_count += m->kind == CXD_FIELD;
    const char **inits = clc_arena_alloc(st->arena, (field_count + 1) * sizeof *inits);
    size_t i = fn->inits_begin;
    while (fn->inits_begin != 0 && i < fn->inits_end) {
        if (!cx_ident(st, i))
            cx_fail(st, i, "a member's name was expected");
        int32_t id = st->tokens[i].ident;
        size_t index = 0;
        cx_decl *member = NULL;
        for (cx_decl *m = record->scope->first; m != NULL; m = m->next) {
            if (m->kind != CXD_FIELD)
                continue;
            if (m->name == id) {
                member = m;
                break;
            }
            ++index;
        }
        if (member == NULL) {
            if (record->rec->base != NULL && id == record->rec->base->name) {
                i = st->match[i + 1] + 1;
                if (cx_punct(st, i, P_COMMA))
                    ++i;
                continue; /* an empty base: nothing to initialize */
            }
            cx_refuse(st, i, "cannot translate the initializer of '%s': it is "
                             "not a member of '%s'",
                      cx_spelling(st, i), cx_ident_name(st, record->name));
        }
        size_t open = i + 1;
        if (!cx_punct(st, open, P_LPAREN) && !cx_punct(st, open, P_LBRACE))
            cx_fail(st, open, "'(' was expected after a member's name");
        size_t close = st->match[open];
        cx_edits *e = cx_edits_new(st, open, close + 1);
        cx_body in = *b;
        in.edits = e;
        const cx_type *mt = member->type;
        if (open + 1 == close) {
            inits[index] = cx_printf(st, CX_THIS "->%s = %s;",
                                     cx_ident_name(st, id),
                                     mt->kind == CXT_RECORD || mt->kind == CXT_ARRAY
                                         ? cx_printf(st, "%s()",
                                                     mt->kind == CXT_RECORD
                                                         ? cx_aggregate_maker(st, mt->decl, 0)
                                                         : "0")
                                         : "0");
            if (mt->kind == CXT_ARRAY)
                cx_refuse(st, i, "cannot translate the value-initialization of "
                                 "the array member '%s'",
                          cx_spelling(st, i));
        } else {
            size_t after;
            cx_expr *x = cx_parse_expr(st, &in, open + 1, close, 1, &after);
            if (after != close)
                cx_refuse(st, open, "cannot translate a member initializer "
                                    "with several values");
            cx_lower_expr(st, &in, x, mt);
            inits[index] = cx_printf(st, CX_THIS "->%s = (%s);",
                                     cx_ident_name(st, id),
                                     cx_render(st, e, open + 1, close));
        }
        i = close + 1;
        if (cx_punct(st, i, P_COMMA))
            ++i;
    }
    size_t index = 0;
    for (cx_decl *m = record->scope->first; m != NULL; m = m->next) {
        if (m->kind != CXD_FIELD)
            continue;
        if (inits[index] == NULL && m->init_begin != 0) {
            /* a default member initializer */
            size_t begin = m->init_begin, end = m->init_end;
            cx_edits *e = cx_edits_new(st, begin, end);
            cx_body in = *b;
            in.edits = e;
            in.scope = m->init_scope;
            cx_expr *x;
            size_t after;
            if (cx_punct(st, begin, P_LBRACE)) {
                x = cx_parse_init_list(st, &in, begin);
            } else {
                x = cx_parse_expr(st, &in, begin, end, 1, &after);
            }
            cx_lower_expr(st, &in, x, m->type);
            if (x->kind == CXE_INIT_LIST && x->argc == 0)
                inits[index] = cx_printf(st, CX_THIS "->%s = 0;",
                                         cx_ident_name(st, m->name));
            else
                inits[index] = cx_printf(st, CX_THIS "->%s = %s;",
                                         cx_ident_name(st, m->name),
                                         cx_render(st, e, begin, end));
        }
        if (inits[index] != NULL)
            clc_buffer_printf(&text, " %s", inits[index]);
        ++index;
    }
    fn->prologue = clc_buffer_text(&text);
}

void cx_read_body(cx_state *st, cx_function *fn)
{
    cx_decl *decl = fn->decl;
    size_t begin = fn->inits_begin != 0 ? fn->inits_begin - 1 : fn->body_open;
    cx_body b = {0};
    b.fn = fn;
    b.record = fn->is_method || fn->is_ctor ? fn->record : NULL;
    b.is_const = fn->is_const_method;
    b.result = fn->result;
    b.ctor = fn->is_ctor;
    cx_scope *params = cx_scope_new(st, CXS_FUNCTION, fn->scope, decl);
    for (size_t k = 0; k < fn->param_count; ++k) {
        cx_param *p = &fn->params[k];
        if (p->name < 0)
            continue;
        cx_decl *v = cx_decl_new(st, CXD_VAR, p->name, p->name_token);
        v->type = p->type;
        if (cx_is_ref(p->type))
            v->flags |= CXF_REFERENCE;
        cx_declare(st, params, v);
        p->decl = v;
    }
    b.scope = params;
    if (fn->body_open == 0) {
        /* a defaulted constructor: its default member initializers only */
        fn->edits = NULL;
        if (fn->is_ctor)
            cx_ctor_prologue(st, &b, fn);
        fn->state = 2;
        return;
    }
    b.edits = cx_edits_new(st, begin, fn->body_close + 1);
    if (fn->is_ctor) {
        cx_ctor_prologue(st, &b, fn);
        /* the initializer list is written in the prologue */
        if (fn->inits_begin != 0)
            cx_clear(&b, begin, fn->body_open);
    }
    cx_block(st, &b, fn->body_open);
    fn->edits = b.edits;
    fn->state = 2;
}
