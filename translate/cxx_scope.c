/*
 * The C++ phase's scopes and name lookup (see cxx_internal.h).
 *
 * Namespaces and classes keep their members in one table keyed by
 * (scope, name), since a program's namespaces are read once and asked
 * often; the scopes of a function's parameters, blocks and template
 * parameters are short lists read while a body is read.  Lookup is C++'s
 * for what device code writes: outwards through blocks, the class of a
 * member function (and its base), namespaces with their using-directives
 * and inline namespaces, up to the global namespace.
 */
#include "cxx_internal.h"

#include <string.h>

cx_scope *cx_scope_new(cx_state *st, cx_scope_kind kind, cx_scope *parent,
                       cx_decl *owner)
{
    cx_scope *scope = clc_arena_alloc(st->arena, sizeof *scope);
    scope->kind = (uint8_t)kind;
    scope->parent = parent;
    scope->owner = owner;
    scope->hashed = kind == CXS_NAMESPACE || kind == CXS_RECORD ||
                    kind == CXS_ENUM;
    return scope;
}

cx_decl *cx_decl_new(cx_state *st, cx_decl_kind kind, int32_t name,
                     size_t token)
{
    cx_decl *decl = clc_arena_alloc(st->arena, sizeof *decl);
    decl->kind = (uint8_t)kind;
    decl->name = name;
    decl->token = token;
    return decl;
}

static size_t cx_member_slot(const cx_member_table *table,
                             const cx_scope *scope, int32_t name)
{
    uintptr_t h = (uintptr_t)scope * 31u + (uintptr_t)(uint32_t)name * 2654435761u;
    h ^= h >> 15;
    size_t mask = table->slot_count - 1;
    size_t slot = h & mask;
    while (table->slots[slot].scope != NULL &&
           (table->slots[slot].scope != scope || table->slots[slot].name != name))
        slot = (slot + 1) & mask;
    return slot;
}

static void cx_member_grow(cx_state *st)
{
    cx_member_table *table = &st->members;
    size_t slots = table->slot_count ? table->slot_count * 2 : 2048;
    struct cx_member_slot *old = table->slots;
    size_t old_count = table->slot_count;
    table->slots = clc_arena_alloc(st->arena, slots * sizeof *table->slots);
    table->slot_count = slots;
    for (size_t i = 0; i < old_count; ++i)
        if (old[i].scope != NULL)
            table->slots[cx_member_slot(table, old[i].scope, old[i].name)] = old[i];
}

void cx_declare(cx_state *st, cx_scope *scope, cx_decl *decl)
{
    decl->parent = scope;
    decl->next = NULL;
    decl->same = NULL;
    if (scope->last != NULL)
        scope->last->next = decl;
    else
        scope->first = decl;
    scope->last = decl;
    if (!scope->hashed || decl->name < 0)
        return;
    if ((st->members.count + 1) * 2 >= st->members.slot_count)
        cx_member_grow(st);
    size_t slot = cx_member_slot(&st->members, scope, decl->name);
    struct cx_member_slot *s = &st->members.slots[slot];
    if (s->scope == NULL) {
        s->scope = scope;
        s->name = decl->name;
        s->decl = decl;
        st->members.count++;
        return;
    }
    cx_decl *d = s->decl;
    while (d->same != NULL)
        d = d->same;
    d->same = decl;
}

cx_decl *cx_lookup_in(cx_state *st, const cx_scope *scope, int32_t name)
{
    if (scope == NULL)
        return NULL;
    if (scope->hashed) {
        if (st->members.slot_count == 0)
            return NULL;
        size_t slot = cx_member_slot(&st->members, scope, name);
        return st->members.slots[slot].scope != NULL
                   ? st->members.slots[slot].decl
                   : NULL;
    }
    /* short scopes: the first declaration of the name, chained through
     * `same` as it is built (later ones follow) */
    cx_decl *first = NULL, *last = NULL;
    for (cx_decl *d = scope->first; d != NULL; d = d->next) {
        if (d->name != name)
            continue;
        if (first == NULL) {
            first = d;
        } else if (last->same != d) {
            last->same = d;
        }
        last = d;
    }
    if (last != NULL)
        last->same = NULL;
    return first;
}

static cx_decl *cx_lookup_namespace(cx_state *st, const cx_scope *scope,
                                    int32_t name, unsigned depth)
{
    if (scope == NULL || depth > 16)
        return NULL;
    cx_decl *found = cx_lookup_in(st, scope, name);
    if (found != NULL)
        return found;
    /* inline namespaces' members are members of the enclosing one */
    for (size_t i = 0; i < scope->inline_count; ++i)
        if ((found = cx_lookup_namespace(st, scope->inlines[i]->scope, name,
                                         depth + 1)) != NULL)
            return found;
    for (size_t i = 0; i < scope->using_count; ++i)
        if ((found = cx_lookup_namespace(st, scope->usings[i]->scope, name,
                                         depth + 1)) != NULL)
            return found;
    return NULL;
}

cx_decl *cx_lookup_qualified(cx_state *st, const cx_scope *scope, int32_t name)
{
    if (scope == NULL)
        return NULL;
    if (scope->kind == CXS_RECORD) {
        cx_decl *found = cx_lookup_in(st, scope, name);
        if (found == NULL && scope->owner != NULL && scope->owner->rec != NULL &&
            scope->owner->rec->base != NULL)
            found = cx_lookup_qualified(st, scope->owner->rec->base->scope, name);
        return found;
    }
    if (scope->kind == CXS_NAMESPACE)
        return cx_lookup_namespace(st, scope, name, 0);
    return cx_lookup_in(st, scope, name);
}

cx_decl *cx_lookup(cx_state *st, const cx_scope *scope, int32_t name)
{
    for (; scope != NULL; scope = scope->parent) {
        cx_decl *found;
        if (scope->kind == CXS_BLOCK || scope->kind == CXS_FUNCTION ||
            scope->kind == CXS_TEMPLATE) {
            found = cx_lookup_in(st, scope, name);
            if (found == NULL)
                for (size_t i = 0; i < scope->using_count && found == NULL; ++i)
                    found = cx_lookup_namespace(st, scope->usings[i]->scope,
                                                name, 1);
        } else {
            found = cx_lookup_qualified(st, scope, name);
        }
        if (found != NULL)
            return found;
    }
    return NULL;
}

cx_decl *cx_resolve(cx_decl *decl)
{
    for (unsigned i = 0; decl != NULL && decl->kind == CXD_ALIAS && i < 16; ++i)
        decl = decl->target;
    return decl;
}

const char *cx_ident_name(cx_state *st, int32_t id)
{
    if (id < 0)
        return "(anonymous)";
    return clc_ident_get(st->interner, id)->name;
}

const char *cx_qualified_name(cx_state *st, const cx_decl *decl)
{
    const char *name = cx_ident_name(st, decl->name);
    for (const cx_scope *s = decl->parent; s != NULL; s = s->parent) {
        if ((s->kind != CXS_NAMESPACE && s->kind != CXS_RECORD) ||
            s->owner == NULL)
            continue;
        const cx_decl *owner = s->owner;
        if (owner->rec != NULL && owner->rec->from != NULL)
            name = cx_printf(st, "%s::%s",
                             cx_describe(st, cx_record_type(st, (cx_decl *)owner)),
                             name);
        else if (owner->name >= 0)
            name = cx_printf(st, "%s::%s", cx_ident_name(st, owner->name), name);
        if (owner->rec != NULL && owner->rec->from != NULL)
            break;
    }
    return name;
}

cx_scope *cx_enclosing(cx_scope *scope)
{
    while (scope != NULL && scope->kind != CXS_NAMESPACE &&
           scope->kind != CXS_RECORD)
        scope = scope->parent;
    return scope;
}
