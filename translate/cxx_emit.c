/*
 * The C++ phase's output (see cxx_internal.h): edits on the program's
 * tokens, the names C needs (namespaces, classes, overloads and instances
 * made distinct), and the plain declarations the CUDA C -> OpenCL C pass
 * reads: structs with their fields only, functions with `this` and
 * references as pointers, by-value wrappers and aggregate makers.  Text
 * this phase writes is lexed into tokens on the line of the declaration it
 * comes from, so messages still name the user's lines.
 */
#include "cxx_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- edits ------------------------------------------------------------------ */

cx_edits *cx_edits_new(cx_state *st, size_t begin, size_t end)
{
    cx_edits *e = clc_arena_alloc(st->arena, sizeof *e);
    size_t n = end > begin ? end - begin : 1;
    e->begin = begin;
    e->end = end;
    e->before = clc_arena_alloc(st->arena, n * sizeof *e->before);
    e->replace = clc_arena_alloc(st->arena, n * sizeof *e->replace);
    e->after = clc_arena_alloc(st->arena, n * sizeof *e->after);
    return e;
}

static int cx_in_edits(const cx_edits *e, size_t i)
{
    return e != NULL && i >= e->begin && i < e->end;
}

void cx_before(cx_state *st, cx_edits *e, size_t i, const char *text)
{
    if (!cx_in_edits(e, i) || text == NULL || text[0] == '\0')
        return;
    const char *old = e->before[i - e->begin];
    e->before[i - e->begin] = old ? cx_printf(st, "%s%s", text, old) : text;
}

void cx_after(cx_state *st, cx_edits *e, size_t i, const char *text)
{
    if (!cx_in_edits(e, i) || text == NULL || text[0] == '\0')
        return;
    const char *old = e->after[i - e->begin];
    e->after[i - e->begin] = old ? cx_printf(st, "%s%s", old, text) : text;
}

void cx_replace(cx_edits *e, size_t i, const char *text)
{
    if (cx_in_edits(e, i))
        e->replace[i - e->begin] = text;
}

void cx_drop(cx_edits *e, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i)
        if (cx_in_edits(e, i)) {
            e->replace[i - e->begin] = "";
            if (i > begin)
                e->before[i - e->begin] = NULL;
            if (i + 1 < end)
                e->after[i - e->begin] = NULL;
        }
}

/* ---- text and tokens ------------------------------------------------------------ */

static void cx_text_token(clc_buffer *b, const clc_token *t, int *last_word)
{
    if (t->kind == CLC_TOK_PRAGMA) {
        clc_buffer_printf(b, "\n#pragma %.*s\n", (int)t->length, t->text);
        *last_word = 0;
        return;
    }
    clc_buffer_append(b, " ", 1);
    clc_buffer_append(b, t->text, t->length);
    *last_word = 1;
}

const char *cx_render(cx_state *st, const cx_edits *e, size_t begin,
                      size_t end)
{
    clc_buffer b;
    clc_buffer_init(&b, st->arena);
    int last_word = 0;
    for (size_t i = begin; i < end; ++i) {
        const char *before = NULL, *replace = NULL, *after = NULL;
        if (cx_in_edits(e, i)) {
            before = e->before[i - e->begin];
            replace = e->replace[i - e->begin];
            after = e->after[i - e->begin];
        }
        if (before)
            clc_buffer_printf(&b, " %s", before);
        if (replace)
            clc_buffer_printf(&b, " %s", replace);
        else
            cx_text_token(&b, &st->tokens[i], &last_word);
        if (after)
            clc_buffer_printf(&b, " %s", after);
    }
    return clc_buffer_text(&b);
}

static void cx_out_push(cx_state *st, cx_out *out, const clc_token *t)
{
    out->tokens = clc_arena_grow(st->arena, out->tokens, out->count,
                                 &out->capacity, sizeof *out->tokens, 256);
    out->tokens[out->count++] = *t;
}

void cx_out_text(cx_state *st, cx_out *out, const char *text)
{
    if (text == NULL || text[0] == '\0')
        return;
    clc_token_array *lexed = &st->lexed; /* its room is reused */
    lexed->count = 0;
    const clc_token *anchor = st->anchor;
    clc_lex(text, strlen(text), anchor ? anchor->file : 0,
            anchor ? anchor->line : 1, st->arena, st->interner, lexed);
    for (size_t k = 0; k + 1 < lexed->count; ++k) {
        clc_token t = lexed->tokens[k];
        t.line = anchor ? anchor->line : 1;
        t.flags = (uint8_t)((t.flags & ~CLC_TF_BOL) | CLC_TF_SPACE);
        cx_out_push(st, out, &t);
    }
}

void cx_out_range(cx_state *st, cx_out *out, const cx_edits *e, size_t begin,
                  size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        const char *before = NULL, *replace = NULL, *after = NULL;
        if (cx_in_edits(e, i)) {
            before = e->before[i - e->begin];
            replace = e->replace[i - e->begin];
            after = e->after[i - e->begin];
        }
        st->anchor = &st->tokens[i];
        cx_out_text(st, out, before);
        if (replace != NULL)
            cx_out_text(st, out, replace);
        else
            cx_out_push(st, out, &st->tokens[i]);
        cx_out_text(st, out, after);
    }
}

const char *cx_literal(cx_state *st, cx_value v)
{
    if (!v.known)
        return "0";
    const cx_type *t = v.type;
    if (v.is_float) {
        char text[64];
        snprintf(text, sizeof text, "%.17g", v.f);
        if (strpbrk(text, ".en") == NULL)
            strcat(text, ".0");
        if (t != NULL && t->kind == CXT_FLOAT)
            return cx_printf(st, "%sf", text);
        return cx_printf(st, "%s", text);
    }
    if (t != NULL && t->kind == CXT_ENUM)
        t = t->decl->type;
    if (cx_is_unsigned(t) && t->kind != CXT_BOOL) {
        unsigned long long u = (unsigned long long)v.i;
        if (t->kind == CXT_UINT || t->kind == CXT_UCHAR || t->kind == CXT_USHORT)
            return cx_printf(st, "%lluu", u);
        return cx_printf(st, "%lluul", u);
    }
    long long i = v.i;
    int wide = t != NULL && (t->kind == CXT_LONG || t->kind == CXT_LLONG);
    if (i < 0) {
        if (i == (long long)(-0x7fffffffffffffffll - 1))
            return "(-0x7fffffffffffffffl - 1)";
        return cx_printf(st, "(-%lld%s)", -i, wide ? "l" : "");
    }
    return cx_printf(st, "%lld%s", i, wide ? "l" : "");
}

/* ---- names ------------------------------------------------------------------------ */

static const char *cx_scope_prefix(cx_state *st, const cx_scope *s)
{
    while (s != NULL && s->kind == CXS_TEMPLATE)
        s = s->parent;
    if (s == NULL || s == st->global)
        return "";
    if (s->kind == CXS_NAMESPACE) {
        if (s->owner == NULL)
            return "";
        const char *outer = cx_scope_prefix(st, s->owner->parent);
        const char *name = s->owner->name >= 0
                               ? cx_ident_name(st, s->owner->name)
                               : "anon";
        return cx_printf(st, "%s%s__", outer, name);
    }
    if (s->kind == CXS_RECORD || s->kind == CXS_ENUM)
        return cx_printf(st, "%s__", cx_cname(st, s->owner));
    return "";
}

static const char *cx_op_word(cx_op op)
{
    static const char *const words[CXO__COUNT] = {
        [CXO_ADD] = "add", [CXO_SUB] = "sub", [CXO_MUL] = "mul",
        [CXO_DIV] = "div", [CXO_MOD] = "mod", [CXO_XOR] = "xor",
        [CXO_AND] = "and", [CXO_OR] = "or", [CXO_COMPL] = "compl",
        [CXO_NOT] = "not", [CXO_ASSIGN] = "assign", [CXO_LT] = "lt",
        [CXO_GT] = "gt", [CXO_ADD_ASSIGN] = "add_assign",
        [CXO_SUB_ASSIGN] = "sub_assign", [CXO_MUL_ASSIGN] = "mul_assign",
        [CXO_DIV_ASSIGN] = "div_assign", [CXO_MOD_ASSIGN] = "mod_assign",
        [CXO_XOR_ASSIGN] = "xor_assign", [CXO_AND_ASSIGN] = "and_assign",
        [CXO_OR_ASSIGN] = "or_assign", [CXO_SHL] = "shl", [CXO_SHR] = "shr",
        [CXO_SHL_ASSIGN] = "shl_assign", [CXO_SHR_ASSIGN] = "shr_assign",
        [CXO_EQ] = "eq", [CXO_NE] = "ne", [CXO_LE] = "le", [CXO_GE] = "ge",
        [CXO_LAND] = "land", [CXO_LOR] = "lor", [CXO_INC] = "inc",
        [CXO_DEC] = "dec", [CXO_COMMA] = "comma", [CXO_ARROW] = "arrow",
        [CXO_CALL] = "call", [CXO_INDEX] = "index",
        [CXO_CONVERSION] = "conv",
    };
    return op < CXO__COUNT && words[op] ? words[op] : "op";
}

const char *cx_cname(cx_state *st, cx_decl *decl)
{
    if (decl->cname != NULL)
        return decl->cname;
    switch (decl->kind) {
    case CXD_FUNCTION:
        return cx_function_cname(st, decl);
    case CXD_RECORD:
    case CXD_ENUM: {
        cx_record *rec = decl->rec;
        if (rec != NULL && rec->from != NULL) {
            decl->cname = cx_printf(st, "%s__t%u", cx_cname(st, rec->from->decl),
                                    st->name_count++);
            return decl->cname;
        }
        if (decl->name < 0) {
            decl->cname = cx_printf(st, "__kiln_anon%u", st->name_count++);
            return decl->cname;
        }
        decl->cname = cx_printf(st, "%s%s", cx_scope_prefix(st, decl->parent),
                                cx_ident_name(st, decl->name));
        return decl->cname;
    }
    case CXD_TEMPLATE:
        decl->cname = cx_printf(st, "%s%s", cx_scope_prefix(st, decl->parent),
                                cx_ident_name(st, decl->name));
        return decl->cname;
    case CXD_ENUMERATOR:
        return cx_ident_name(st, decl->name);
    case CXD_VAR:
    case CXD_TYPEDEF: {
        const cx_scope *s = decl->parent;
        if (s != NULL && (s->kind == CXS_BLOCK || s->kind == CXS_FUNCTION)) {
            decl->cname = cx_ident_name(st, decl->name);
            return decl->cname;
        }
        decl->cname = cx_printf(st, "%s%s", cx_scope_prefix(st, s),
                                cx_ident_name(st, decl->name));
        return decl->cname;
    }
    default:
        return cx_ident_name(st, decl->name);
    }
}

/* Whether another function or function template shares decl's name where
 * it is declared. */
static int cx_overloaded(cx_state *st, cx_decl *decl)
{
    cx_scope *scope = decl->parent;
    if (scope == NULL)
        return 0;
    for (cx_decl *d = cx_lookup_in(st, scope, decl->name); d; d = d->same)
        if (d != decl && (d->kind == CXD_FUNCTION || d->kind == CXD_TEMPLATE))
            return 1;
    /* a function named like a builtin of the global namespace */
    if (scope != st->global)
        return 0;
    return 0;
}

const char *cx_function_cname(cx_state *st, cx_decl *decl)
{
    if (decl->cname != NULL)
        return decl->cname;
    cx_function *fn = decl->fn;
    if (decl->flags & CXF_BUILTIN) {
        decl->cname = cx_ident_name(st, decl->name);
        return decl->cname;
    }
    const char *base;
    if (fn->is_ctor)
        base = cx_printf(st, "%s__ctor", cx_cname(st, fn->record));
    else if (fn->op != CXO_NONE && fn->record != NULL)
        base = cx_printf(st, "%s__op_%s", cx_cname(st, fn->record),
                         cx_op_word(fn->op));
    else if (fn->op != CXO_NONE)
        base = cx_printf(st, "%sop_%s", cx_scope_prefix(st, decl->parent),
                         cx_op_word(fn->op));
    else if (fn->record != NULL)
        base = cx_printf(st, "%s__%s", cx_cname(st, fn->record),
                         cx_ident_name(st, decl->name));
    else
        base = cx_printf(st, "%s%s", cx_scope_prefix(st, decl->parent),
                         cx_ident_name(st, decl->name));
    if (fn->from != NULL) {
        decl->cname = cx_printf(st, "%s__t%u", base, st->name_count++);
    } else if ((decl->flags & CXF_KERNEL) && decl->parent == st->global) {
        if (cx_overloaded(st, decl))
            cx_refuse(st, fn->name_token, "cannot translate the overloaded "
                                          "kernel '%s': a kernel's name must "
                                          "be its own",
                      cx_ident_name(st, decl->name));
        decl->cname = base;
    } else if (fn->op != CXO_NONE || fn->is_ctor || cx_overloaded(st, decl)) {
        decl->cname = cx_printf(st, "%s__o%u", base, st->name_count++);
    } else {
        decl->cname = base;
    }
    return decl->cname;
}

/* ---- declarations in the output ---------------------------------------------------- */

static const cx_type *cx_lowered(cx_state *st, const cx_type *t)
{
    if (t != NULL && (t->kind == CXT_LREF || t->kind == CXT_RREF))
        return cx_pointer(st, t->base);
    return t;
}

static const char *cx_param_name(cx_state *st, cx_function *fn, size_t k)
{
    if (fn->params[k].name >= 0)
        return cx_ident_name(st, fn->params[k].name);
    return cx_printf(st, "__kiln_p%zu", k);
}

/* "R name(params)" of a function in the output. */
static const char *cx_header(cx_state *st, cx_function *fn, const char *name,
                             uint32_t by_value)
{
    clc_buffer b;
    clc_buffer_init(&b, st->arena);
    cx_decl *decl = fn->decl;
    int first = 1;
    clc_buffer_printf(&b, "%s(", name);
    if (fn->is_method) {
        const cx_type *self = cx_record_type(st, fn->record);
        if (fn->is_const_method)
            self = cx_qualified(st, self, CXQ_CONST);
        if (by_value & 1u)
            clc_buffer_puts(&b, cx_spell(st, cx_unqualified(st, self), "__kiln_self_arg"));
        else
            clc_buffer_puts(&b, cx_spell(st, cx_pointer(st, self), "__kiln_this"));
        first = 0;
    }
    for (size_t k = 0; k < fn->param_count; ++k) {
        const cx_type *t = fn->params[k].type;
        if ((by_value >> (k + 1)) & 1u)
            t = cx_unqualified(st, cx_strip_ref(t));
        else
            t = cx_lowered(st, t);
        clc_buffer_printf(&b, "%s%s", first ? "" : ", ",
                          cx_spell(st, t, cx_param_name(st, fn, k)));
        first = 0;
        cx_use_record(st, t);
    }
    if (first)
        clc_buffer_puts(&b, "void");
    clc_buffer_puts(&b, ")");
    const char *declarator = clc_buffer_text(&b);
    if (decl->flags & CXF_KERNEL)
        return cx_printf(st, "__global__ void %s", declarator);
    const char *quals = (decl->flags & CXF_FORCEINLINE) ? "__forceinline__ "
                        : (decl->flags & CXF_NOINLINE)  ? "__noinline__ "
                                                        : "";
    const cx_type *result = cx_lowered(st, fn->result);
    cx_use_record(st, result);
    return cx_printf(st, "__device__ %s%s", quals, cx_spell(st, result, declarator));
}

void cx_emit_function(cx_state *st, cx_function *fn)
{
    cx_decl *decl = fn->decl;
    const char *name = cx_function_cname(st, decl);
    const char *header = cx_header(st, fn, name, 0);
    st->anchor = &st->tokens[fn->name_token];
    if (fn->needs_prototype && !(decl->flags & CXF_KERNEL))
        cx_out_text(st, &st->protos_out, cx_printf(st, "%s;", header));
    cx_out_text(st, &st->bodies_out, header);
    if (fn->refusal != NULL) {
        /* refused by the pass below, never written out */
        cx_out_text(st, &st->bodies_out, "{ }");
    } else if (fn->body_open == 0) {
        /* a defaulted constructor */
        cx_out_text(st, &st->bodies_out,
                    cx_printf(st, "{ %s return __kiln_self; }", fn->prologue));
    } else if (fn->is_ctor) {
        cx_out_range(st, &st->bodies_out, fn->edits, fn->body_open,
                     fn->body_open + 1);
        st->anchor = &st->tokens[fn->body_open];
        cx_out_text(st, &st->bodies_out, fn->prologue);
        cx_out_range(st, &st->bodies_out, fn->edits, fn->body_open + 1,
                     fn->body_close);
        st->anchor = &st->tokens[fn->body_close];
        cx_out_text(st, &st->bodies_out, "return __kiln_self;");
        cx_out_range(st, &st->bodies_out, fn->edits, fn->body_close,
                     fn->body_close + 1);
    } else {
        cx_out_range(st, &st->bodies_out, fn->edits, fn->body_open,
                     fn->body_close + 1);
    }
    /* its by-value wrappers, which call it */
    for (size_t k = 0; k < fn->wrapper_text_count; ++k) {
        st->anchor = &st->tokens[fn->wrapper_texts[k].anchor];
        if (fn->needs_prototype)
            cx_out_text(st, &st->protos_out, fn->wrapper_texts[k].prototype);
        cx_out_text(st, &st->bodies_out, fn->wrapper_texts[k].definition);
    }
}

const char *cx_wrapper(cx_state *st, cx_function *fn, uint32_t mask)
{
    const char *name = cx_printf(st, "%s__v%x", cx_function_cname(st, fn->decl),
                                 mask);
    for (size_t k = 0; k < fn->wrapper_count; ++k)
        if (fn->wrappers[k] == mask)
            return name;
    fn->wrappers = cx_grow(st, fn->wrappers, fn->wrapper_count,
                           sizeof *fn->wrappers);
    fn->wrappers[fn->wrapper_count++] = mask;
    /* written after the function itself */
    const char *header = cx_header(st, fn, name, mask);
    clc_buffer call;
    clc_buffer_init(&call, st->arena);
    clc_buffer_printf(&call, "%s(", cx_function_cname(st, fn->decl));
    int first = 1;
    if (fn->is_method) {
        clc_buffer_puts(&call, (mask & 1u) ? "&__kiln_self_arg" : "__kiln_this");
        first = 0;
    }
    for (size_t k = 0; k < fn->param_count; ++k) {
        clc_buffer_printf(&call, "%s%s%s", first ? "" : ", ",
                          ((mask >> (k + 1)) & 1u) ? "&" : "",
                          cx_param_name(st, fn, k));
        first = 0;
    }
    clc_buffer_puts(&call, ")");
    const cx_type *result = fn->result;
    const char *body = result != NULL && result->kind == CXT_VOID && !fn->is_ctor
                           ? cx_printf(st, "{ %s; }", clc_buffer_text(&call))
                           : cx_printf(st, "{ return %s; }", clc_buffer_text(&call));
    const char *text = cx_printf(st, "%s;", header);
    const char *definition = cx_printf(st, "%s %s", header, body);
    fn->wrapper_texts = cx_grow(st, fn->wrapper_texts, fn->wrapper_text_count,
                                sizeof *fn->wrapper_texts);
    fn->wrapper_texts[fn->wrapper_text_count].prototype = text;
    fn->wrapper_texts[fn->wrapper_text_count].definition = definition;
    fn->wrapper_texts[fn->wrapper_text_count].anchor = fn->name_token;
    fn->wrapper_text_count++;
    return name;
}

/* The text of a field's default member initializer, lowered. */
static const char *cx_nsdmi_text(cx_state *st, cx_decl *field)
{
    size_t begin = field->init_begin, end = field->init_end;
    cx_edits *e = cx_edits_new(st, begin, end);
    cx_body in = {0};
    in.scope = field->init_scope;
    in.edits = e;
    cx_expr *x;
    size_t after;
    if (cx_punct(st, begin, P_LBRACE))
        x = cx_parse_init_list(st, &in, begin);
    else
        x = cx_parse_expr(st, &in, begin, end, 1, &after);
    cx_lower_expr(st, &in, x, field->type);
    if (x->kind == CXE_INIT_LIST && x->argc == 0)
        return "0";
    return cx_render(st, e, begin, end);
}

const char *cx_aggregate_maker(cx_state *st, cx_decl *record, size_t count)
{
    const char *rname = cx_cname(st, record);
    const char *name = cx_printf(st, "%s__make%zu", rname, count);
    for (size_t k = 0; k < st->maker_count; ++k)
        if (st->makers[k].record == record && st->makers[k].count == count)
            return name;
    st->makers = cx_grow(st, st->makers, st->maker_count, sizeof *st->makers);
    st->makers[st->maker_count].record = record;
    st->makers[st->maker_count].count = count;
    st->maker_count++;
    cx_use_record(st, cx_record_type(st, record));
    clc_buffer params, body;
    clc_buffer_init(&params, st->arena);
    clc_buffer_init(&body, st->arena);
    size_t k = 0;
    for (cx_decl *m = record->scope->first; m != NULL; m = m->next) {
        if (m->kind != CXD_FIELD)
            continue;
        const char *field = cx_ident_name(st, m->name);
        if (k < count) {
            if (m->type->kind == CXT_ARRAY)
                cx_refuse(st, record->token, "cannot translate a braced "
                                             "initializer of '%s': it has an "
                                             "array member",
                          cx_describe(st, cx_record_type(st, record)));
            const char *arg = cx_printf(st, "__kiln_a%zu", k);
            clc_buffer_printf(&params, "%s%s", k ? ", " : "",
                              cx_spell(st, cx_unqualified(st, m->type), arg));
            clc_buffer_printf(&body, " r.%s = %s;", field, arg);
        } else if (m->init_begin != 0) {
            clc_buffer_printf(&body, " r.%s = %s;", field, cx_nsdmi_text(st, m));
        }
        ++k;
    }
    if (count > k)
        cx_fail(st, record->token, "too many initializers for '%s'",
                cx_describe(st, cx_record_type(st, record)));
    if (count == 0)
        clc_buffer_puts(&params, "void");
    const char *header = cx_printf(st, "__device__ %s %s(%s)", rname, name,
                                   clc_buffer_text(&params));
    st->wrapper_texts = cx_grow(st, st->wrapper_texts, st->wrapper_count,
                                sizeof *st->wrapper_texts);
    st->wrapper_texts[st->wrapper_count].prototype = cx_printf(st, "%s;", header);
    st->wrapper_texts[st->wrapper_count].definition =
        cx_printf(st, "%s { %s r = {0};%s return r; }", header, rname,
                  clc_buffer_text(&body));
    st->wrapper_texts[st->wrapper_count].anchor = record->token;
    st->wrapper_count++;
    return name;
}

/* ---- records, variables, typedefs ----------------------------------------------------- */

static void cx_emit_needed(cx_state *st, const cx_type *t)
{
    while (t != NULL && (t->kind == CXT_ARRAY || t->kind == CXT_POINTER ||
                         t->kind == CXT_LREF || t->kind == CXT_RREF))
        t = t->base;
    if (t != NULL && t->kind == CXT_RECORD && t->decl->rec->emitted != 1)
        cx_emit_record(st, t->decl);
}

void cx_emit_record(cx_state *st, cx_decl *record)
{
    cx_record *rec = record->rec;
    if (rec->emitted == 1 || rec->emitted == 2 || (record->flags & CXF_BUILTIN))
        return;
    if (!rec->complete) {
        rec->emitted = 2; /* declared only */
        return;
    }
    rec->emitted = 1;
    for (cx_decl *m = record->scope->first; m != NULL; m = m->next)
        if (m->kind == CXD_FIELD)
            cx_emit_needed(st, m->type);
    const char *name = cx_cname(st, record);
    clc_buffer b;
    clc_buffer_init(&b, st->arena);
    clc_buffer_printf(&b, "%s ", rec->is_union ? "union" : "struct");
    if (rec->align)
        clc_buffer_printf(&b, "__attribute__((aligned(%zu))) ", rec->align);
    clc_buffer_printf(&b, "%s {", name);
    int fields = 0;
    st->spell_tags = 1;
    for (cx_decl *m = record->scope->first; m != NULL; m = m->next) {
        if (m->kind != CXD_FIELD)
            continue;
        clc_buffer_printf(&b, " %s;", cx_spell(st, m->type, cx_ident_name(st, m->name)));
        fields++;
    }
    st->spell_tags = 0;
    if (fields == 0)
        clc_buffer_puts(&b, " char __kiln_empty;");
    clc_buffer_puts(&b, " };");
    st->anchor = &st->tokens[rec->begin ? rec->begin : record->token];
    cx_out_text(st, &st->types_out, clc_buffer_text(&b));
    rec->emitted = 2;
    /* static members it uses that are not constants of a scalar type */
    for (cx_decl *m = record->scope->first; m != NULL; m = m->next)
        if (m->kind == CXD_VAR && (m->flags & CXF_EMITTED) && !m->emitted_as_global &&
            !cx_decl_value(st, m).known) {
            m->emitted_as_global = 1;
            cx_emit_variable(st, m);
        }
}

void cx_emit_variable(cx_state *st, cx_decl *var)
{
    const cx_type *type = var->type;
    if (type == NULL || cx_is_dependent(type) || type->kind == CXT_NAMED)
        return;
    cx_emit_needed(st, type);
    uint32_t f = var->flags;
    const char *storage = (f & CXF_CONSTANT) ? "__constant__ "
                          : (f & CXF_SHARED) ? "__shared__ "
                          : (f & CXF_DEVICE) ? "__device__ "
                                             : "";
    const char *ext = (f & CXF_EXTERN) ? "extern " : "";
    if ((f & CXF_CONSTEXPR) || (var->parent && var->parent->kind == CXS_RECORD))
        type = cx_qualified(st, type, CXQ_CONST);
    const char *init = "";
    if (var->init_begin != 0) {
        size_t begin = var->init_begin, end = var->init_end;
        int call = var->init_paren;
        cx_edits *e = cx_edits_new(st, begin, end);
        cx_body in = {0};
        in.scope = var->init_scope;
        in.edits = e;
        cx_expr *x;
        size_t after;
        if (cx_punct(st, begin, P_LBRACE))
            x = cx_parse_init_list(st, &in, begin);
        else if (call)
            x = cx_parse_expr(st, &in, begin + 1, end - 1, 1, &after);
        else
            x = cx_parse_expr(st, &in, begin, end, 1, &after);
        if (type->kind == CXT_RECORD && (call || x->kind == CXE_INIT_LIST) &&
            cx_lookup_in(st, type->decl->scope, st->ctor_name) != NULL)
            cx_refuse(st, var->token, "cannot translate '%s': a variable at "
                                      "namespace scope initialized by a "
                                      "constructor",
                      cx_ident_name(st, var->name));
        if (x->kind == CXE_INIT_LIST) {
            /* C's own aggregate initializer: its elements lowered */
            const cx_type *element = type->kind == CXT_ARRAY ? type->base : NULL;
            for (size_t k = 0; k < x->argc; ++k)
                cx_lower_expr(st, &in, x->args[k], element);
        } else {
            cx_lower_expr(st, &in, x, type);
        }
        init = cx_printf(st, " = %s", cx_render(st, e, call ? begin + 1 : begin,
                                               call ? end - 1 : end));
    }
    st->anchor = &st->tokens[var->token];
    st->spell_tags = 0;
    cx_out_text(st, &st->types_out,
                cx_printf(st, "%s%s%s%s;", ext, storage,
                          cx_spell(st, type, cx_cname(st, var)), init));
}

void cx_emit_typedef(cx_state *st, cx_decl *d)
{
    const cx_type *type = d->type;
    if (type == NULL || cx_is_dependent(type) || type->kind == CXT_NAMED ||
        type->kind == CXT_AUTO)
        return;
    const char *name = cx_cname(st, d);
    if ((type->kind == CXT_RECORD || type->kind == CXT_ENUM) &&
        strcmp(cx_cname(st, type->decl), name) == 0)
        return; /* typedef struct {...} S; */
    cx_emit_needed(st, type);
    st->anchor = &st->tokens[d->token];
    cx_out_text(st, &st->types_out,
                cx_printf(st, "typedef %s;", cx_spell(st, type, name)));
}

void cx_emit_enum(cx_state *st, cx_decl *d)
{
    int scoped = d->value.i != 0, fixed = d->value.is_float != 0;
    st->anchor = &st->tokens[d->token];
    if (!scoped && !fixed && d->parent == st->global && d->name >= 0) {
        clc_buffer b;
        clc_buffer_init(&b, st->arena);
        clc_buffer_printf(&b, "enum %s {", cx_ident_name(st, d->name));
        int first = 1;
        for (cx_decl *e = d->scope->first; e != NULL; e = e->next) {
            e->cname = cx_ident_name(st, e->name);
            clc_buffer_printf(&b, "%s %s = %s", first ? "" : ",", e->cname,
                              cx_literal(st, e->value));
            first = 0;
        }
        clc_buffer_puts(&b, " };");
        d->cname = cx_ident_name(st, d->name);
        cx_out_text(st, &st->types_out, clc_buffer_text(&b));
        return;
    }
    /* the underlying type, and the enumerators as their values */
    if (d->name < 0)
        return;
    cx_out_text(st, &st->types_out,
                cx_printf(st, "typedef %s;", cx_spell(st, d->type, cx_cname(st, d))));
}
