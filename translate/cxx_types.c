/*
 * The C++ phase's types (see cxx_internal.h): made once each, so that two
 * types are the same exactly when their pointers are; CUDA's sizes; the
 * usual arithmetic conversions; spelling a type as a C declaration.
 */
#include "cxx_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- the table ------------------------------------------------------------ */

static uint32_t cx_mix(uint32_t hash, uint64_t value)
{
    hash ^= (uint32_t)value + 0x9e3779b9u + (hash << 6) + (hash >> 2);
    hash ^= (uint32_t)(value >> 32) + 0x9e3779b9u + (hash << 6) + (hash >> 2);
    return hash;
}

static uint32_t cx_type_hash(const cx_type *t)
{
    uint32_t h = cx_mix(0, ((uint64_t)t->kind << 24) | ((uint64_t)t->quals << 16) |
                               ((uint64_t)t->elem << 8) | t->width);
    h = cx_mix(h, (uint64_t)t->length);
    h = cx_mix(h, (uint64_t)(uintptr_t)t->base);
    h = cx_mix(h, (uint64_t)(uintptr_t)t->decl);
    for (uint32_t i = 0; i < t->param_count; ++i)
        h = cx_mix(h, (uint64_t)(uintptr_t)t->params[i]);
    return h;
}

static int cx_type_same(const cx_type *a, const cx_type *b)
{
    if (a->kind != b->kind || a->quals != b->quals || a->elem != b->elem ||
        a->width != b->width || a->length != b->length || a->base != b->base ||
        a->decl != b->decl || a->param_count != b->param_count)
        return 0;
    for (uint32_t i = 0; i < a->param_count; ++i)
        if (a->params[i] != b->params[i])
            return 0;
    return 1;
}

const cx_type *cx_type_get(cx_state *st, const cx_type *proto)
{
    cx_type_table *table = &st->types;
    uint32_t hash = cx_type_hash(proto);
    if (table->slot_count == 0 || table->count * 2 >= table->slot_count) {
        size_t slots = table->slot_count ? table->slot_count * 2 : 1024;
        const cx_type **fresh = clc_arena_alloc(st->arena, slots * sizeof *fresh);
        for (size_t i = 0; i < table->slot_count; ++i)
            for (const cx_type *t = table->slots[i]; t != NULL;) {
                const cx_type *next = t->next;
                size_t s = t->hash & (slots - 1);
                ((cx_type *)t)->next = fresh[s];
                fresh[s] = t;
                t = next;
            }
        table->slots = fresh;
        table->slot_count = slots;
    }
    size_t slot = hash & (table->slot_count - 1);
    for (const cx_type *t = table->slots[slot]; t != NULL; t = t->next)
        if (t->hash == hash && cx_type_same(t, proto))
            return t;
    cx_type *made = clc_arena_alloc(st->arena, sizeof *made);
    *made = *proto;
    if (proto->param_count > 0) {
        const cx_type **params =
            clc_arena_alloc(st->arena, proto->param_count * sizeof *params);
        memcpy(params, proto->params, proto->param_count * sizeof *params);
        made->params = params;
    } else {
        made->params = NULL;
    }
    made->hash = hash;
    made->next = table->slots[slot];
    table->slots[slot] = made;
    table->count++;
    return made;
}

const cx_type *cx_scalar(cx_state *st, cx_type_kind kind)
{
    cx_type proto = {.kind = (uint8_t)kind};
    return cx_type_get(st, &proto);
}

const cx_type *cx_qualified(cx_state *st, const cx_type *type, unsigned quals)
{
    if (type == NULL || (type->quals | quals) == type->quals)
        return type;
    if (type->kind == CXT_LREF || type->kind == CXT_RREF ||
        type->kind == CXT_FUNCTION)
        return type; /* qualifiers on these are ignored, as in C++ */
    if (type->kind == CXT_ARRAY) {
        /* const T[N] is an array of const T */
        return cx_array(st, cx_qualified(st, type->base, quals), type->length);
    }
    cx_type proto = *type;
    proto.quals = (uint8_t)(type->quals | quals);
    proto.next = NULL;
    return cx_type_get(st, &proto);
}

const cx_type *cx_unqualified(cx_state *st, const cx_type *type)
{
    if (type == NULL || type->quals == 0)
        return type;
    cx_type proto = *type;
    proto.quals = 0;
    proto.next = NULL;
    return cx_type_get(st, &proto);
}

const cx_type *cx_pointer(cx_state *st, const cx_type *base)
{
    if (base != NULL && (base->kind == CXT_LREF || base->kind == CXT_RREF))
        base = base->base;
    cx_type proto = {.kind = CXT_POINTER, .base = base};
    return cx_type_get(st, &proto);
}

const cx_type *cx_reference(cx_state *st, const cx_type *base, int rvalue)
{
    /* reference collapsing: T& & and T&& & are T&, T&& && is T&& */
    if (base != NULL && base->kind == CXT_LREF)
        return base;
    if (base != NULL && base->kind == CXT_RREF) {
        if (rvalue)
            return base;
        base = base->base;
    }
    cx_type proto = {.kind = (uint8_t)(rvalue ? CXT_RREF : CXT_LREF),
                     .base = base};
    return cx_type_get(st, &proto);
}

const cx_type *cx_array(cx_state *st, const cx_type *base, long long length)
{
    cx_type proto = {.kind = CXT_ARRAY, .base = base, .length = length};
    return cx_type_get(st, &proto);
}

const cx_type *cx_vector(cx_state *st, cx_type_kind elem, unsigned width)
{
    cx_type proto = {.kind = CXT_VECTOR, .elem = (uint8_t)elem,
                     .width = (uint8_t)width};
    return cx_type_get(st, &proto);
}

const cx_type *cx_function_type(cx_state *st, const cx_type *result,
                                const cx_type *const *params, size_t count)
{
    cx_type proto = {.kind = CXT_FUNCTION, .base = result, .params = params,
                     .param_count = (uint32_t)count};
    return cx_type_get(st, &proto);
}

const cx_type *cx_record_type(cx_state *st, cx_decl *record)
{
    cx_type proto = {.kind = (uint8_t)(record->kind == CXD_ENUM ? CXT_ENUM
                                                                : CXT_RECORD),
                     .decl = record};
    return cx_type_get(st, &proto);
}

const cx_type *cx_value_type(cx_state *st, const cx_type *type, long long v)
{
    cx_type proto = {.kind = CXT_VALUE, .base = type, .length = v};
    return cx_type_get(st, &proto);
}

const cx_type *cx_list_type(cx_state *st, cx_type_kind kind, cx_decl *decl,
                            const cx_type *const *items, size_t count)
{
    cx_type proto = {.kind = (uint8_t)kind, .decl = decl, .params = items,
                     .param_count = (uint32_t)count};
    return cx_type_get(st, &proto);
}

const cx_type *const *cx_type_list(cx_state *st, const cx_type *const *items,
                                   size_t count)
{
    if (count == 0)
        return NULL;
    /* a list is kept as the parameters of a function type: made once */
    return cx_function_type(st, NULL, items, count)->params;
}

/* ---- predicates ----------------------------------------------------------------- */

int cx_is_arithmetic(const cx_type *t)
{
    return t != NULL && t->kind >= CXT_BOOL && t->kind <= CXT_DOUBLE;
}

int cx_is_integral(const cx_type *t)
{
    return t != NULL && t->kind >= CXT_BOOL && t->kind <= CXT_ULLONG;
}

int cx_is_floating(const cx_type *t)
{
    return t != NULL && (t->kind == CXT_FLOAT || t->kind == CXT_DOUBLE);
}

int cx_is_unsigned(const cx_type *t)
{
    if (t == NULL)
        return 0;
    switch (t->kind) {
    case CXT_BOOL: case CXT_UCHAR: case CXT_USHORT: case CXT_UINT:
    case CXT_ULONG: case CXT_ULLONG:
        return 1;
    default:
        return 0;
    }
}

int cx_is_scalar(const cx_type *t)
{
    return cx_is_arithmetic(t) ||
           (t != NULL && (t->kind == CXT_ENUM || t->kind == CXT_POINTER ||
                          t->kind == CXT_NULLPTR));
}

int cx_is_record(const cx_type *t)
{
    return t != NULL && t->kind == CXT_RECORD;
}

int cx_is_dependent(const cx_type *t)
{
    if (t == NULL)
        return 0;
    switch (t->kind) {
    case CXT_TPARAM: case CXT_TEMPLATE_ID: case CXT_DEPENDENT: case CXT_AUTO:
        return 1;
    case CXT_VALUE:
        return t->decl != NULL;
    case CXT_ARRAY:
        return t->decl != NULL || cx_is_dependent(t->base);
    case CXT_POINTER: case CXT_LREF: case CXT_RREF:
        return cx_is_dependent(t->base);
    case CXT_FUNCTION:
        if (cx_is_dependent(t->base))
            return 1;
        for (uint32_t i = 0; i < t->param_count; ++i)
            if (cx_is_dependent(t->params[i]))
                return 1;
        return 0;
    default:
        return 0;
    }
}

const cx_type *cx_strip_ref(const cx_type *t)
{
    if (t != NULL && (t->kind == CXT_LREF || t->kind == CXT_RREF))
        return t->base;
    return t;
}

const cx_type *cx_decay(cx_state *st, const cx_type *t)
{
    t = cx_strip_ref(t);
    if (t == NULL)
        return NULL;
    if (t->kind == CXT_ARRAY)
        return cx_pointer(st, t->base);
    if (t->kind == CXT_FUNCTION)
        return cx_pointer(st, t);
    return cx_unqualified(st, t);
}

const cx_type *cx_promote(cx_state *st, const cx_type *t)
{
    t = cx_unqualified(st, cx_strip_ref(t));
    if (t == NULL)
        return NULL;
    switch (t->kind) {
    case CXT_BOOL: case CXT_CHAR: case CXT_SCHAR: case CXT_UCHAR:
    case CXT_SHORT: case CXT_USHORT: case CXT_ENUM:
        return cx_scalar(st, CXT_INT);
    default:
        return t;
    }
}

static int cx_int_rank(cx_type_kind k)
{
    switch (k) {
    case CXT_INT: case CXT_UINT: return 1;
    case CXT_LONG: case CXT_ULONG: return 2;
    case CXT_LLONG: case CXT_ULLONG: return 3;
    default: return 0;
    }
}

static cx_type_kind cx_unsigned_of(cx_type_kind k)
{
    switch (k) {
    case CXT_INT: return CXT_UINT;
    case CXT_LONG: return CXT_ULONG;
    case CXT_LLONG: return CXT_ULLONG;
    default: return k;
    }
}

const cx_type *cx_arith_common(cx_state *st, const cx_type *a,
                               const cx_type *b)
{
    a = cx_promote(st, a);
    b = cx_promote(st, b);
    if (a == NULL || b == NULL || !cx_is_arithmetic(a) || !cx_is_arithmetic(b))
        return NULL;
    if (a->kind == CXT_DOUBLE || b->kind == CXT_DOUBLE)
        return cx_scalar(st, CXT_DOUBLE);
    if (a->kind == CXT_FLOAT || b->kind == CXT_FLOAT)
        return cx_scalar(st, CXT_FLOAT);
    if (a == b)
        return a;
    int ua = cx_is_unsigned(a), ub = cx_is_unsigned(b);
    int ra = cx_int_rank((cx_type_kind)a->kind), rb = cx_int_rank((cx_type_kind)b->kind);
    if (ua == ub)
        return ra >= rb ? a : b;
    const cx_type *u = ua ? a : b, *s = ua ? b : a;
    int ru = ua ? ra : rb, rs = ua ? rb : ra;
    if (ru >= rs)
        return u;
    /* the signed type holds every value of the unsigned one (LP64: long
     * holds unsigned int) */
    if (cx_sizeof(st, s) > cx_sizeof(st, u))
        return s;
    return cx_scalar(st, cx_unsigned_of((cx_type_kind)s->kind));
}

/* ---- sizes ----------------------------------------------------------------------- */

static size_t cx_scalar_size(cx_type_kind k)
{
    switch (k) {
    case CXT_BOOL: case CXT_CHAR: case CXT_SCHAR: case CXT_UCHAR: return 1;
    case CXT_SHORT: case CXT_USHORT: return 2;
    case CXT_INT: case CXT_UINT: case CXT_FLOAT: return 4;
    case CXT_LONG: case CXT_ULONG: case CXT_LLONG: case CXT_ULLONG:
    case CXT_DOUBLE: case CXT_NULLPTR: return 8;
    default: return 0;
    }
}

static void cx_record_layout(cx_state *st, cx_decl *decl)
{
    cx_record *rec = decl->rec;
    if (rec->size != 0 || !rec->complete)
        return;
    size_t offset = 0, align = 1;
    for (cx_decl *m = decl->scope->first; m != NULL; m = m->next) {
        if (m->kind != CXD_FIELD)
            continue;
        size_t size = cx_sizeof(st, m->type), a = cx_alignof(st, m->type);
        if (size == 0 || a == 0)
            return; /* unknown: say so */
        if (a > align)
            align = a;
        if (rec->is_union) {
            if (size > offset)
                offset = size;
        } else {
            offset = (offset + a - 1) / a * a + size;
        }
    }
    if (rec->align > align)
        align = rec->align;
    if (offset == 0)
        offset = 1; /* an empty struct is one byte in C++ */
    rec->alignment = align;
    rec->size = (offset + align - 1) / align * align;
}

size_t cx_sizeof(cx_state *st, const cx_type *t)
{
    t = cx_strip_ref(t);
    if (t == NULL)
        return 0;
    switch (t->kind) {
    case CXT_VECTOR:
        return cx_scalar_size((cx_type_kind)t->elem) * t->width;
    case CXT_POINTER:
        return 8;
    case CXT_ARRAY:
        return t->length < 0 ? 0 : (size_t)t->length * cx_sizeof(st, t->base);
    case CXT_ENUM:
        return t->decl->type != NULL ? cx_sizeof(st, t->decl->type) : 4;
    case CXT_RECORD:
        cx_record_layout(st, t->decl);
        return t->decl->rec->size;
    default:
        return cx_scalar_size((cx_type_kind)t->kind);
    }
}

size_t cx_alignof(cx_state *st, const cx_type *t)
{
    t = cx_strip_ref(t);
    if (t == NULL)
        return 0;
    switch (t->kind) {
    case CXT_VECTOR: {
        size_t e = cx_scalar_size((cx_type_kind)t->elem);
        if (t->width == 3 || t->width == 1)
            return e;
        size_t whole = e * t->width;
        return whole > 16 ? 16 : whole;
    }
    case CXT_ARRAY:
        return cx_alignof(st, t->base);
    case CXT_RECORD:
        cx_record_layout(st, t->decl);
        return t->decl->rec->alignment;
    default:
        return cx_sizeof(st, t);
    }
}

/* ---- spelling ---------------------------------------------------------------------- */

const char *cx_vector_name(cx_type_kind elem, unsigned width)
{
    static const char *const names[][4] = {
        [CXT_CHAR] = {"char1", "char2", "char3", "char4"},
        [CXT_SCHAR] = {"char1", "char2", "char3", "char4"},
        [CXT_UCHAR] = {"uchar1", "uchar2", "uchar3", "uchar4"},
        [CXT_SHORT] = {"short1", "short2", "short3", "short4"},
        [CXT_USHORT] = {"ushort1", "ushort2", "ushort3", "ushort4"},
        [CXT_INT] = {"int1", "int2", "int3", "int4"},
        [CXT_UINT] = {"uint1", "uint2", "uint3", "uint4"},
        [CXT_LONG] = {"long1", "long2", "long3", "long4"},
        [CXT_ULONG] = {"ulong1", "ulong2", "ulong3", "ulong4"},
        [CXT_LLONG] = {"longlong1", "longlong2", "longlong3", "longlong4"},
        [CXT_ULLONG] = {"ulonglong1", "ulonglong2", "ulonglong3", "ulonglong4"},
        [CXT_FLOAT] = {"float1", "float2", "float3", "float4"},
        [CXT_DOUBLE] = {"double1", "double2", "double3", "double4"},
    };
    if (elem >= sizeof names / sizeof names[0] || width < 1 || width > 4 ||
        names[elem][0] == NULL)
        return "?";
    return names[elem][width - 1];
}

static const char *cx_scalar_name(cx_type_kind k)
{
    switch (k) {
    case CXT_VOID: return "void";
    case CXT_BOOL: return "bool";
    case CXT_CHAR: return "char";
    case CXT_SCHAR: return "signed char";
    case CXT_UCHAR: return "unsigned char";
    case CXT_SHORT: return "short";
    case CXT_USHORT: return "unsigned short";
    case CXT_INT: return "int";
    case CXT_UINT: return "unsigned int";
    case CXT_LONG: return "long";
    case CXT_ULONG: return "unsigned long";
    case CXT_LLONG: return "long long";
    case CXT_ULLONG: return "unsigned long long";
    case CXT_FLOAT: return "float";
    case CXT_DOUBLE: return "double";
    default: return NULL;
    }
}

static const char *cx_quals_text(unsigned quals)
{
    static const char *const texts[] = {
        "", "const ", "volatile ", "const volatile ", "__restrict__ ",
        "const __restrict__ ", "volatile __restrict__ ",
        "const volatile __restrict__ "};
    return texts[quals & 7];
}

static const char *cx_spell_inner(cx_state *st, const cx_type *t,
                                  const char *inner);

/* The name of a typedef of array type `t`, written once before the
 * declarations that use it. */
static const char *cx_array_typedef(cx_state *st, const cx_type *t)
{
    for (size_t k = 0; k < st->array_name_count; ++k)
        if (st->array_names[k].type == t)
            return st->array_names[k].name;
    const char *name = cx_printf(st, "__kiln_array%u", st->name_count++);
    const cx_type *element = t;
    while (element->kind == CXT_ARRAY)
        element = element->base;
    if (element->kind == CXT_RECORD)
        cx_emit_record(st, element->decl);
    int tags = st->spell_tags;
    st->spell_tags = 0;
    const clc_token *anchor = st->anchor;
    cx_out_text(st, &st->types_out,
                cx_printf(st, "typedef %s;", cx_spell_inner(st, t, name)));
    st->anchor = anchor;
    st->spell_tags = tags;
    st->array_names = cx_grow(st, st->array_names, st->array_name_count,
                              sizeof *st->array_names);
    st->array_names[st->array_name_count].type = t;
    st->array_names[st->array_name_count].name = name;
    st->array_name_count++;
    return name;
}

/* The declaration around `inner` (the declarator built so far). */
static const char *cx_spell_inner(cx_state *st, const cx_type *t,
                                  const char *inner)
{
    if (t == NULL)
        return cx_printf(st, "int %s", inner);
    switch (t->kind) {
    case CXT_POINTER:
    case CXT_LREF:
    case CXT_RREF: {
        /* references are pointers in the output */
        const char *q = cx_quals_text(t->quals);
        const char *d = cx_printf(st, "*%s%s", q, inner);
        if (t->base != NULL && t->base->kind == CXT_ARRAY && t->base->length >= 0)
            return cx_printf(st, "%s %s", cx_array_typedef(st, t->base), d);
        if (t->base != NULL &&
            (t->base->kind == CXT_ARRAY || t->base->kind == CXT_FUNCTION))
            d = cx_printf(st, "(%s)", d);
        return cx_spell_inner(st, t->base, d);
    }
    case CXT_ARRAY:
        if (t->length < 0)
            return cx_spell_inner(st, t->base, cx_printf(st, "%s[]", inner));
        return cx_spell_inner(st, t->base,
                              cx_printf(st, "%s[%lld]", inner, t->length));
    case CXT_FUNCTION: {
        clc_buffer b;
        clc_buffer_init(&b, st->arena);
        clc_buffer_printf(&b, "%s(", inner);
        for (uint32_t i = 0; i < t->param_count; ++i)
            clc_buffer_printf(&b, "%s%s", i ? ", " : "",
                              cx_spell(st, t->params[i], NULL));
        if (t->param_count == 0)
            clc_buffer_puts(&b, "void");
        clc_buffer_puts(&b, ")");
        return cx_spell_inner(st, t->base, clc_buffer_text(&b));
    }
    default: {
        const char *name;
        if (t->kind == CXT_VECTOR)
            name = cx_vector_name((cx_type_kind)t->elem, t->width);
        else if (t->kind == CXT_RECORD && st->spell_tags)
            name = cx_printf(st, "%s %s", t->decl->rec->is_union ? "union" : "struct",
                             cx_cname(st, t->decl));
        else if (t->kind == CXT_RECORD || t->kind == CXT_ENUM)
            name = cx_cname(st, t->decl);
        else if (t->kind == CXT_NAMED)
            name = cx_ident_name(st, t->decl->name);
        else if (t->kind == CXT_NULLPTR)
            name = "void *";
        else
            name = cx_scalar_name((cx_type_kind)t->kind);
        if (name == NULL)
            name = "int";
        /* restrict qualifies pointers only */
        const char *q = cx_quals_text(t->quals & (CXQ_CONST | CXQ_VOLATILE));
        return cx_printf(st, "%s%s%s%s", q, name, inner[0] ? " " : "", inner);
    }
    }
}

const char *cx_spell(cx_state *st, const cx_type *t, const char *name)
{
    return cx_spell_inner(st, t, name ? name : "");
}

static void cx_describe_into(cx_state *st, clc_buffer *b, const cx_type *t);

static void cx_describe_args(cx_state *st, clc_buffer *b,
                             const cx_type *const *args, size_t count)
{
    clc_buffer_puts(b, "<");
    for (size_t i = 0; i < count; ++i) {
        if (i)
            clc_buffer_puts(b, ", ");
        cx_describe_into(st, b, args[i]);
    }
    clc_buffer_puts(b, ">");
}

static void cx_describe_into(cx_state *st, clc_buffer *b, const cx_type *t)
{
    if (t == NULL) {
        clc_buffer_puts(b, "?");
        return;
    }
    const char *q = cx_quals_text(t->quals);
    switch (t->kind) {
    case CXT_POINTER:
        cx_describe_into(st, b, t->base);
        clc_buffer_printf(b, " *%s", t->quals ? q : "");
        return;
    case CXT_LREF:
    case CXT_RREF:
        cx_describe_into(st, b, t->base);
        clc_buffer_puts(b, t->kind == CXT_LREF ? " &" : " &&");
        return;
    case CXT_ARRAY:
        cx_describe_into(st, b, t->base);
        if (t->length >= 0)
            clc_buffer_printf(b, "[%lld]", t->length);
        else
            clc_buffer_puts(b, "[]");
        return;
    case CXT_VALUE:
        if (t->decl != NULL)
            clc_buffer_puts(b, cx_ident_name(st, t->decl->name));
        else if (t->base != NULL && t->base->kind == CXT_BOOL)
            clc_buffer_puts(b, t->length ? "true" : "false");
        else if (cx_is_unsigned(t->base))
            clc_buffer_printf(b, "%llu", (unsigned long long)t->length);
        else
            clc_buffer_printf(b, "%lld", t->length);
        return;
    case CXT_RECORD:
    case CXT_ENUM: {
        clc_buffer_puts(b, q);
        const cx_record *rec = t->decl->rec;
        if (rec != NULL && rec->from != NULL) {
            clc_buffer_puts(b, cx_qualified_name(st, rec->from->decl));
            cx_describe_args(st, b, rec->args, rec->from->param_count);
        } else {
            clc_buffer_puts(b, cx_qualified_name(st, t->decl));
        }
        return;
    }
    case CXT_TEMPLATE_ID:
        clc_buffer_puts(b, cx_ident_name(st, t->decl->name));
        cx_describe_args(st, b, t->params, t->param_count);
        return;
    case CXT_TPARAM:
        clc_buffer_puts(b, cx_ident_name(st, t->decl->name));
        return;
    case CXT_FUNCTION:
        cx_describe_into(st, b, t->base);
        clc_buffer_puts(b, " (");
        for (uint32_t i = 0; i < t->param_count; ++i) {
            if (i)
                clc_buffer_puts(b, ", ");
            cx_describe_into(st, b, t->params[i]);
        }
        clc_buffer_puts(b, ")");
        return;
    case CXT_DEPENDENT:
        clc_buffer_puts(b, "<dependent type>");
        return;
    case CXT_AUTO:
        clc_buffer_puts(b, "auto");
        return;
    default:
        clc_buffer_puts(b, q);
        if (t->kind == CXT_VECTOR)
            clc_buffer_puts(b, cx_vector_name((cx_type_kind)t->elem, t->width));
        else if (t->kind == CXT_NAMED)
            clc_buffer_puts(b, cx_ident_name(st, t->decl->name));
        else if (t->kind == CXT_NULLPTR)
            clc_buffer_puts(b, "std::nullptr_t");
        else
            clc_buffer_puts(b, cx_scalar_name((cx_type_kind)t->kind));
        return;
    }
}

const char *cx_describe(cx_state *st, const cx_type *t)
{
    clc_buffer b;
    clc_buffer_init(&b, st->arena);
    cx_describe_into(st, &b, t);
    return clc_buffer_text(&b);
}
