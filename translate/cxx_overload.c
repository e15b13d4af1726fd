/*
 * The C++ phase's overload resolution (see cxx_internal.h): which function
 * of an overload set a call names, by C++'s ranking of each argument's
 * conversion (exact match, promotion, conversion, user-defined), with
 * templates deduced and non-templates preferred on a tie; operators found
 * as members of the left operand's class, by ordinary lookup and in the
 * operands' namespaces.  A call whose choice depends on an argument this
 * phase cannot type is refused rather than guessed.
 */
#include "cxx_internal.h"

#include <string.h>

cx_op cx_op_of_punct(int punct, int unary)
{
    (void)unary;
    switch (punct) {
    case P_PLUS: return CXO_ADD;
    case P_MINUS: return CXO_SUB;
    case P_STAR: return CXO_MUL;
    case P_SLASH: return CXO_DIV;
    case P_PERCENT: return CXO_MOD;
    case P_CARET: return CXO_XOR;
    case P_AMP: return CXO_AND;
    case P_PIPE: return CXO_OR;
    case P_TILDE: return CXO_COMPL;
    case P_NOT: return CXO_NOT;
    case P_ASSIGN: return CXO_ASSIGN;
    case P_LT: return CXO_LT;
    case P_GT: return CXO_GT;
    case P_ADD_ASSIGN: return CXO_ADD_ASSIGN;
    case P_SUB_ASSIGN: return CXO_SUB_ASSIGN;
    case P_MUL_ASSIGN: return CXO_MUL_ASSIGN;
    case P_DIV_ASSIGN: return CXO_DIV_ASSIGN;
    case P_MOD_ASSIGN: return CXO_MOD_ASSIGN;
    case P_XOR_ASSIGN: return CXO_XOR_ASSIGN;
    case P_AND_ASSIGN: return CXO_AND_ASSIGN;
    case P_OR_ASSIGN: return CXO_OR_ASSIGN;
    case P_SHL: return CXO_SHL;
    case P_SHR: return CXO_SHR;
    case P_SHL_ASSIGN: return CXO_SHL_ASSIGN;
    case P_SHR_ASSIGN: return CXO_SHR_ASSIGN;
    case P_EQ: return CXO_EQ;
    case P_NE: return CXO_NE;
    case P_LE: return CXO_LE;
    case P_GE: return CXO_GE;
    case P_ANDAND: return CXO_LAND;
    case P_OROR: return CXO_LOR;
    case P_INC: return CXO_INC;
    case P_DEC: return CXO_DEC;
    case P_COMMA: return CXO_COMMA;
    case P_ARROW: return CXO_ARROW;
    default: return CXO_NONE;
    }
}

static const char *cx_op_spelling(cx_op op)
{
    static const char *const names[CXO__COUNT] = {
        [CXO_ADD] = "+", [CXO_SUB] = "-", [CXO_MUL] = "*", [CXO_DIV] = "/",
        [CXO_MOD] = "%", [CXO_XOR] = "^", [CXO_AND] = "&", [CXO_OR] = "|",
        [CXO_COMPL] = "~", [CXO_NOT] = "!", [CXO_ASSIGN] = "=", [CXO_LT] = "<",
        [CXO_GT] = ">", [CXO_ADD_ASSIGN] = "+=", [CXO_SUB_ASSIGN] = "-=",
        [CXO_MUL_ASSIGN] = "*=", [CXO_DIV_ASSIGN] = "/=",
        [CXO_MOD_ASSIGN] = "%=", [CXO_XOR_ASSIGN] = "^=",
        [CXO_AND_ASSIGN] = "&=", [CXO_OR_ASSIGN] = "|=", [CXO_SHL] = "<<",
        [CXO_SHR] = ">>", [CXO_SHL_ASSIGN] = "<<=", [CXO_SHR_ASSIGN] = ">>=",
        [CXO_EQ] = "==", [CXO_NE] = "!=", [CXO_LE] = "<=", [CXO_GE] = ">=",
        [CXO_LAND] = "&&", [CXO_LOR] = "||", [CXO_INC] = "++", [CXO_DEC] = "--",
        [CXO_COMMA] = ",", [CXO_ARROW] = "->", [CXO_CALL] = "()",
        [CXO_INDEX] = "[]",
    };
    return op < CXO__COUNT && names[op] ? names[op] : "?";
}

/* ---- conversions ----------------------------------------------------------------- */

static int cx_promotes(const cx_type *from, const cx_type *to)
{
    switch (from->kind) {
    case CXT_BOOL: case CXT_CHAR: case CXT_SCHAR: case CXT_UCHAR:
    case CXT_SHORT: case CXT_USHORT:
        return to->kind == CXT_INT;
    case CXT_FLOAT:
        return to->kind == CXT_DOUBLE;
    default:
        return 0;
    }
}

static int cx_is_null_constant(const cx_expr *e)
{
    while (e != NULL && e->kind == CXE_PAREN)
        e = e->a;
    return e != NULL && e->kind == CXE_LITERAL && e->value.known &&
           !e->value.is_float && e->value.i == 0 && cx_is_integral(e->type);
}

static int cx_rank_of(cx_state *st, const cx_expr *from, const cx_type *to,
                      int allow_user);

/* A converting constructor of record type `to` for `from`. */
static cx_decl *cx_converting_ctor(cx_state *st, const cx_expr *from,
                                   const cx_type *to)
{
    cx_decl *best = NULL;
    int best_rank = 99;
    for (cx_decl *c = cx_lookup_in(st, to->decl->scope, st->ctor_name); c;
         c = c->same) {
        if (c->kind != CXD_FUNCTION || (c->flags & (CXF_EXPLICIT | CXF_DELETED)))
            continue;
        cx_function *f = c->fn;
        if (f->param_count == 0 ||
            (f->param_count > 1 && f->params[1].default_begin == 0))
            continue;
        int r = cx_rank_of(st, from, f->params[0].type, 0);
        if (r >= 0 && r < best_rank) {
            best = c;
            best_rank = r;
        }
    }
    return best;
}

/* A conversion function of `from`'s class to `to`. */
static cx_decl *cx_conversion_function(cx_state *st, const cx_type *from,
                                       const cx_type *to)
{
    cx_decl *best = NULL;
    int best_rank = 99;
    const cx_type *target = cx_unqualified(st, cx_strip_ref(to));
    for (cx_decl *c = cx_lookup_qualified(st, from->decl->scope,
                                          st->conversion_name);
         c; c = c->same) {
        if (c->kind != CXD_FUNCTION || (c->flags & (CXF_EXPLICIT | CXF_DELETED)))
            continue;
        const cx_type *result = cx_unqualified(st, cx_strip_ref(c->fn->result));
        int r;
        if (result == target)
            r = 0;
        else if (cx_is_arithmetic(result) && cx_is_arithmetic(target))
            r = 2;
        else if (result != NULL && target != NULL &&
                 result->kind == CXT_POINTER && target->kind == CXT_POINTER &&
                 cx_unqualified(st, result->base) == cx_unqualified(st, target->base) &&
                 (target->base->quals & result->base->quals) == result->base->quals)
            r = 0;
        else
            continue;
        /* a non-const object prefers the non-const conversion */
        if (c->fn->is_const_method && !(from->quals & CXQ_CONST))
            r = r * 2 + 1;
        else
            r = r * 2;
        if (r < best_rank) {
            best = c;
            best_rank = r;
        }
    }
    return best;
}

static int cx_value_rank(cx_state *st, const cx_expr *from, const cx_type *a,
                         const cx_type *t, int allow_user)
{
    const cx_type *a2 = cx_decay(st, a);
    const cx_type *t2 = cx_unqualified(st, t);
    if (a2 == t2)
        return 0;
    if (a2->kind == CXT_NAMED || t2->kind == CXT_NAMED)
        return a2->kind == t2->kind && a2->decl == t2->decl ? 0 : 2;
    if (cx_is_arithmetic(a2) && cx_is_arithmetic(t2))
        return cx_promotes(a2, t2) ? 1 : 2;
    if (a2->kind == CXT_ENUM) {
        int scoped = a2->decl->value.i != 0;
        if (scoped || !cx_is_arithmetic(t2))
            return -1;
        return t2->kind == CXT_INT ? 1 : 2;
    }
    if (t2->kind == CXT_ENUM)
        return -1;
    if (t2->kind == CXT_BOOL && (a2->kind == CXT_POINTER || a2->kind == CXT_NULLPTR))
        return 2;
    if (t2->kind == CXT_POINTER) {
        if (a2->kind == CXT_POINTER) {
            const cx_type *tb = t2->base, *ab = a2->base;
            if (tb == NULL || ab == NULL)
                return -1;
            if (cx_unqualified(st, tb) == cx_unqualified(st, ab) &&
                (tb->quals & ab->quals) == ab->quals)
                return 0;
            if (tb->kind == CXT_VOID && (tb->quals & ab->quals) == ab->quals)
                return 2;
            return -1;
        }
        if (a2->kind == CXT_NULLPTR || cx_is_null_constant(from))
            return 2;
        return -1;
    }
    if (t2->kind == CXT_RECORD) {
        if (!allow_user)
            return -1;
        return cx_converting_ctor(st, from, t2) != NULL ? 3 : -1;
    }
    if (a2->kind == CXT_RECORD) {
        if (!allow_user)
            return -1;
        return cx_conversion_function(st, cx_strip_ref(from->type), t2) != NULL
                   ? 3 : -1;
    }
    return -1;
}

/* Whether a reference to `t` binds an object of type `a` directly: the
 * same type, with at least its qualifiers (an array's are its element's). */
int cx_binds(cx_state *st, const cx_type *t, const cx_type *a)
{
    if (t == NULL || a == NULL)
        return 0;
    if (t->kind == CXT_ARRAY && a->kind == CXT_ARRAY)
        return (t->length == a->length || t->length < 0) &&
               cx_binds(st, t->base, a->base);
    if (cx_unqualified(st, t) != cx_unqualified(st, a))
        return 0;
    return (a->quals & ~t->quals & (CXQ_CONST | CXQ_VOLATILE)) == 0;
}

static int cx_const_object(const cx_type *t)
{
    while (t->kind == CXT_ARRAY)
        t = t->base;
    return (t->quals & CXQ_CONST) != 0 && !(t->quals & CXQ_VOLATILE);
}

static int cx_rank_of(cx_state *st, const cx_expr *from, const cx_type *to,
                      int allow_user)
{
    if (to == NULL)
        return 2;
    if (from->kind == CXE_INIT_LIST) {
        const cx_type *t = cx_unqualified(st, cx_strip_ref(to));
        if (t != NULL && t->kind == CXT_RECORD)
            return allow_user ? 3 : -1;
        if (cx_is_scalar(t) && from->argc <= 1)
            return from->argc == 1 ? cx_rank_of(st, from->args[0], t, allow_user) : 0;
        return -1;
    }
    const cx_type *a = from->type;
    if (a == NULL)
        return 2; /* not known: see the caller */
    a = cx_strip_ref(a);
    if (to->kind == CXT_LREF) {
        const cx_type *t = to->base;
        if (!cx_const_object(t)) {
            if (!from->lvalue)
                return -1;
            return cx_binds(st, t, a) ? 0 : -1;
        }
        if (cx_binds(st, t, a))
            return 0;
        return cx_value_rank(st, from, a, t, allow_user);
    }
    if (to->kind == CXT_RREF) {
        const cx_type *t = to->base;
        if (from->lvalue && cx_unqualified(st, t) == cx_unqualified(st, a))
            return -1;
        if (cx_unqualified(st, t) == cx_unqualified(st, a))
            return 0;
        return cx_value_rank(st, from, a, t, allow_user);
    }
    return cx_value_rank(st, from, a, to, allow_user);
}

int cx_conversion_rank(cx_state *st, const cx_expr *from, const cx_type *to)
{
    return cx_rank_of(st, from, to, 1);
}

cx_decl *cx_user_conversion(cx_state *st, const cx_expr *from,
                            const cx_type *to, int *is_ctor)
{
    *is_ctor = 0;
    if (to == NULL || from->type == NULL || from->kind == CXE_INIT_LIST)
        return NULL;
    const cx_type *a = cx_unqualified(st, cx_strip_ref(from->type));
    const cx_type *t = cx_unqualified(st, cx_strip_ref(to));
    if (a == t || a == NULL || t == NULL)
        return NULL;
    if (t->kind == CXT_RECORD) {
        *is_ctor = 1;
        return cx_converting_ctor(st, from, t);
    }
    if (a->kind == CXT_RECORD)
        return cx_conversion_function(st, cx_strip_ref(from->type), t);
    return NULL;
}

/* ---- resolution -------------------------------------------------------------------- */

typedef struct cx_candidate {
    cx_decl *fn;
    int from_template;
    int *ranks;          /* [0] the object, then each argument */
    /* per argument: 1 when it binds a reference to const to an object
     * that is not (worse than a reference without const, [over.ics.rank]:
     * float4 & over const float4 & for a float4 variable) */
    int *added_const;
    int unknown;         /* an argument of unknown type decided it */
} cx_candidate;

/* Ranks a candidate; 0 when it is not viable. */
static int cx_rank_candidate(cx_state *st, cx_candidate *c, cx_expr **args,
                             size_t argc, cx_expr *object)
{
    cx_function *f = c->fn->fn;
    if (c->fn->flags & CXF_DELETED)
        return 0;
    if (argc > f->param_count && !f->variadic)
        return 0;
    for (size_t k = argc; k < f->param_count; ++k)
        if (f->params[k].default_begin == 0)
            return 0;
    c->ranks = clc_arena_alloc(st->arena, (argc + 1) * sizeof *c->ranks);
    c->added_const = clc_arena_alloc(st->arena, (argc + 1) * sizeof *c->added_const);
    memset(c->added_const, 0, (argc + 1) * sizeof *c->added_const);
    c->ranks[0] = 0;
    if (f->is_method) {
        if (object == NULL)
            return 0;
        const cx_type *ot = cx_strip_ref(object->type);
        if (ot != NULL && ot->kind == CXT_POINTER && object->kind == CXE_THIS)
            ot = ot->base;
        if (ot == NULL)
            return 0;
        if ((ot->quals & CXQ_CONST) && !f->is_const_method)
            return 0;
        /* a const method on a non-const object: worse than a non-const one */
        c->ranks[0] = f->is_const_method && !(ot->quals & CXQ_CONST) ? 1 : 0;
    }
    for (size_t k = 0; k < argc; ++k) {
        if (k >= f->param_count) {
            c->ranks[k + 1] = 4; /* an ellipsis */
            continue;
        }
        int r = cx_conversion_rank(st, args[k], f->params[k].type);
        if (r < 0)
            return 0;
        if (args[k]->type == NULL && args[k]->kind != CXE_INIT_LIST)
            c->unknown = 1;
        c->ranks[k + 1] = r;
        const cx_type *to = f->params[k].type;
        if (to != NULL && to->kind == CXT_LREF && args[k]->type != NULL &&
            args[k]->lvalue && cx_const_object(to->base) &&
            !cx_const_object(cx_strip_ref(args[k]->type)))
            c->added_const[k + 1] = 1;
    }
    return 1;
}

static int cx_better(const cx_candidate *a, const cx_candidate *b, size_t argc)
{
    int better = 0;
    for (size_t k = 0; k <= argc; ++k) {
        if (a->ranks[k] > b->ranks[k])
            return 0;
        if (a->ranks[k] < b->ranks[k])
            better = 1;
        else if (a->added_const[k] > b->added_const[k])
            return 0;
        else if (a->added_const[k] < b->added_const[k])
            better = 1;
    }
    if (better)
        return 1;
    if (!a->from_template && b->from_template)
        return 1;
    return 0;
}

static void cx_add_candidates(cx_state *st, cx_candidate **list, size_t *count,
                              cx_decl *set, const cx_type *const *explicit_args,
                              size_t explicit_count, int has_explicit,
                              cx_expr **args, size_t argc, size_t at)
{
    for (cx_decl *d = set; d != NULL; d = d->same) {
        cx_decl *r = cx_resolve(d);
        if (r == NULL)
            continue;
        if (r != d) {
            /* a using-declaration: the target's whole set */
            cx_add_candidates(st, list, count, r, explicit_args, explicit_count,
                              has_explicit, args, argc, at);
            continue;
        }
        cx_decl *fn = NULL;
        int from_template = 0;
        if (r->kind == CXD_FUNCTION) {
            if (has_explicit)
                continue;
            fn = r;
        } else if (r->kind == CXD_TEMPLATE && r->tmpl->kind == CXTM_FUNCTION) {
            if (r->tmpl->refused != NULL)
                cx_refuse(st, at, "cannot translate this call of '%s': %s",
                          cx_ident_name(st, r->name), r->tmpl->refused);
            const cx_type *const *deduced = cx_deduce(
                st, r->tmpl, explicit_args, explicit_count, args, argc, at);
            if (deduced == NULL)
                continue;
            fn = cx_function_instance(st, r->tmpl, deduced, at);
            from_template = 1;
        } else {
            continue;
        }
        int seen = 0;
        for (size_t k = 0; k < *count; ++k)
            seen |= (*list)[k].fn == fn;
        if (seen)
            continue;
        *list = cx_grow(st, *list, *count, sizeof **list);
        (*list)[*count] = (cx_candidate){fn, from_template, NULL, NULL, 0};
        ++*count;
    }
}

static cx_decl *cx_choose(cx_state *st, cx_candidate *cands, size_t n,
                          cx_expr **args, size_t argc, cx_expr *object,
                          const char *name, size_t at, int required)
{
    size_t viable = 0;
    for (size_t k = 0; k < n; ++k)
        if (cx_rank_candidate(st, &cands[k], args, argc, object))
            cands[viable++] = cands[k];
    if (viable == 0) {
        if (!required)
            return NULL;
        for (size_t k = 0; k < argc; ++k)
            if (args[k]->type == NULL && args[k]->kind != CXE_INIT_LIST)
                cx_refuse(st, at, "cannot translate this call of '%s': the "
                                  "type of argument %zu is not known to the "
                                  "translation",
                          name, k + 1);
        const char *types = cx_call_args_text(st, args, argc);
        cx_fail(st, at, "no '%s' takes (%s)", name, types);
    }
    size_t best = 0;
    for (size_t k = 1; k < viable; ++k)
        if (cx_better(&cands[k], &cands[best], argc))
            best = k;
    for (size_t k = 0; k < viable; ++k) {
        if (k == best || cx_better(&cands[best], &cands[k], argc))
            continue;
        if (!required)
            return NULL;
        if (cands[best].unknown || cands[k].unknown)
            cx_refuse(st, at, "cannot translate this call of '%s': which "
                              "overload it calls depends on an argument whose "
                              "type is not known to the translation",
                      name);
        cx_fail(st, at, "the call of '%s' with (%s) is ambiguous", name,
                cx_call_args_text(st, args, argc));
    }
    return cands[best].fn;
}

cx_decl *cx_resolve_call(cx_state *st, cx_body *body, cx_decl *set,
                         const cx_type *const *explicit_args,
                         size_t explicit_count, int has_explicit,
                         cx_expr **args, size_t argc, cx_expr *object,
                         size_t at, int required)
{
    (void)body;
    cx_candidate *cands = NULL;
    size_t n = 0;
    cx_add_candidates(st, &cands, &n, set, explicit_args, explicit_count,
                      has_explicit, args, argc, at);
    cx_decl *first = cx_resolve(set);
    const char *name = first ? cx_qualified_name(st, first) : "?";
    if (first != NULL && first->name == st->ctor_name && first->fn != NULL &&
        first->fn->record != NULL)
        name = cx_describe(st, cx_record_type(st, first->fn->record));
    return cx_choose(st, cands, n, args, argc, object, name, at, required);
}

/* The namespace whose functions a class's operators are looked up in. */
static cx_scope *cx_associated_namespace(const cx_type *t)
{
    if (t == NULL || (t->kind != CXT_RECORD && t->kind != CXT_ENUM))
        return NULL;
    cx_scope *s = t->decl->parent;
    while (s != NULL && s->kind != CXS_NAMESPACE)
        s = s->parent;
    return s;
}

cx_decl *cx_find_operator(cx_state *st, cx_body *body, cx_op op, cx_expr *a,
                          cx_expr *b, size_t at)
{
    const char *text = cx_printf(st, "operator%s", cx_op_spelling(op));
    int32_t name = clc_intern(st->interner, text, strlen(text));
    cx_candidate *cands = NULL;
    size_t n = 0;
    /* members of the left operand's class: the right one is the argument */
    const cx_type *ta = cx_strip_ref(a->type);
    cx_decl *members = NULL;
    if (ta != NULL && ta->kind == CXT_RECORD)
        members = cx_lookup_qualified(st, ta->decl->scope, name);
    cx_expr *member_args[1] = {b};
    size_t member_argc = b != NULL ? 1 : 0;
    if (members != NULL)
        cx_add_candidates(st, &cands, &n, members, NULL, 0, 0, member_args,
                          member_argc, at);
    size_t member_count = n;
    /* functions: ordinary lookup, then the operands' namespaces */
    cx_expr *args[2] = {a, b};
    size_t argc = b != NULL ? 2 : 1;
    cx_decl *found = cx_lookup(st, body->scope, name);
    cx_candidate *others = NULL;
    size_t other_count = 0;
    if (found != NULL)
        cx_add_candidates(st, &others, &other_count, found, NULL, 0, 0, args,
                          argc, at);
    const cx_type *tb = b != NULL ? cx_strip_ref(b->type) : NULL;
    const cx_type *types[2] = {ta, tb};
    for (int k = 0; k < 2; ++k) {
        cx_scope *ns = cx_associated_namespace(types[k]);
        if (ns == NULL)
            continue;
        cx_decl *more = cx_lookup_qualified(st, ns, name);
        if (more != NULL)
            cx_add_candidates(st, &others, &other_count, more, NULL, 0, 0, args,
                              argc, at);
        /* friends defined in the class */
        cx_decl *friends = cx_lookup_qualified(st, types[k]->decl->scope, name);
        (void)friends;
    }
    /* members were found as methods: drop them from the function list */
    size_t kept = 0;
    for (size_t k = 0; k < other_count; ++k)
        if (!others[k].fn->fn->is_method)
            others[kept++] = others[k];
    other_count = kept;
    if (member_count == 0 && other_count == 0)
        return NULL;
    /* rank both kinds on one scale: the object and its argument */
    cx_candidate *all = clc_arena_alloc(st->arena,
                                        (member_count + other_count) * sizeof *all);
    size_t total = 0;
    for (size_t k = 0; k < member_count; ++k) {
        cx_candidate c = cands[k];
        if (!c.fn->fn->is_method)
            continue;
        if (!cx_rank_candidate(st, &c, member_args, member_argc, a))
            continue;
        /* ranks: [0] object, [1] b; make them [0] unused, [1] a, [2] b */
        int *r = clc_arena_alloc(st->arena, 3 * sizeof *r);
        r[0] = 0;
        r[1] = c.ranks[0];
        r[2] = member_argc ? c.ranks[1] : 0;
        c.ranks = r;
        int *q = clc_arena_alloc(st->arena, 3 * sizeof *q);
        q[0] = q[1] = 0;
        q[2] = member_argc ? c.added_const[1] : 0;
        c.added_const = q;
        all[total++] = c;
    }
    for (size_t k = 0; k < other_count; ++k) {
        cx_candidate c = others[k];
        if (!cx_rank_candidate(st, &c, args, argc, NULL))
            continue;
        int *r = clc_arena_alloc(st->arena, 3 * sizeof *r);
        r[0] = 0;
        r[1] = c.ranks[1];
        r[2] = argc > 1 ? c.ranks[2] : 0;
        c.ranks = r;
        int *q = clc_arena_alloc(st->arena, 3 * sizeof *q);
        q[0] = 0;
        q[1] = c.added_const[1];
        q[2] = argc > 1 ? c.added_const[2] : 0;
        c.added_const = q;
        all[total++] = c;
    }
    if (total == 0)
        return NULL;
    size_t best = 0;
    for (size_t k = 1; k < total; ++k)
        if (cx_better(&all[k], &all[best], 2))
            best = k;
    for (size_t k = 0; k < total; ++k)
        if (k != best && !cx_better(&all[best], &all[k], 2)) {
            if (all[best].unknown || all[k].unknown)
                cx_refuse(st, at, "cannot translate this use of 'operator%s': "
                                  "which overload it calls depends on an "
                                  "operand whose type is not known to the "
                                  "translation",
                          cx_op_spelling(op));
            cx_fail(st, at, "the use of 'operator%s' is ambiguous",
                    cx_op_spelling(op));
        }
    return all[best].fn;
}
