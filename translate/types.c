/*
 * Types of declarations and expressions (see types.h).
 */
#include "types.h"

#include <string.h>

#define CLC_SCALAR_COUNT (CLC_S_VOID + 1)

static const clc_type scalar_types[CLC_SCALAR_COUNT] = {
#define SCALAR(s) [s] = {.kind = CLC_TYPE_SCALAR, .scalar = s, .tag = -1}
    SCALAR(CLC_S_BOOL),  SCALAR(CLC_S_CHAR),  SCALAR(CLC_S_UCHAR),
    SCALAR(CLC_S_SHORT), SCALAR(CLC_S_USHORT), SCALAR(CLC_S_INT),
    SCALAR(CLC_S_UINT),  SCALAR(CLC_S_LONG),  SCALAR(CLC_S_ULONG),
    SCALAR(CLC_S_HALF),  SCALAR(CLC_S_FLOAT), SCALAR(CLC_S_DOUBLE),
    SCALAR(CLC_S_VOID),
#undef SCALAR
};

const clc_type *clc_type_scalar(clc_scalar scalar)
{
    if (scalar <= CLC_S_NONE || scalar > CLC_S_VOID)
        return NULL;
    return &scalar_types[scalar];
}

static clc_type *type_new(clc_arena *arena, clc_type_kind kind)
{
    clc_type *type = clc_arena_alloc(arena, sizeof *type);
    type->kind = kind;
    type->tag = -1;
    return type;
}

const clc_type *clc_type_vector(clc_arena *arena, clc_scalar scalar,
                                unsigned width)
{
    if (width <= 1)
        return clc_type_scalar(scalar);
    clc_type *type = type_new(arena, CLC_TYPE_VECTOR);
    type->scalar = scalar;
    type->width = width;
    return type;
}

const clc_type *clc_type_pointer(clc_arena *arena, const clc_type *pointee,
                                 clc_space space)
{
    clc_type *type = type_new(arena, CLC_TYPE_POINTER);
    type->base = pointee;
    type->space = space;
    return type;
}

const clc_type *clc_type_array(clc_arena *arena, const clc_type *element,
                               size_t length)
{
    clc_type *type = type_new(arena, CLC_TYPE_ARRAY);
    type->base = element;
    type->length = length;
    return type;
}

const clc_type *clc_type_function(clc_arena *arena, const clc_type *result)
{
    clc_type *type = type_new(arena, CLC_TYPE_FUNCTION);
    type->base = result;
    return type;
}

clc_type *clc_type_struct(clc_arena *arena, int32_t tag, int is_union)
{
    clc_type *type = type_new(arena, CLC_TYPE_STRUCT);
    type->tag = tag;
    type->is_union = is_union;
    return type;
}

int clc_type_is_vector(const clc_type *type)
{
    return type != NULL && type->kind == CLC_TYPE_VECTOR;
}

int clc_type_is_scalar(const clc_type *type)
{
    return type != NULL && type->kind == CLC_TYPE_SCALAR &&
           type->scalar != CLC_S_VOID;
}

int clc_type_is_pointer(const clc_type *type)
{
    return type != NULL &&
           (type->kind == CLC_TYPE_POINTER || type->kind == CLC_TYPE_ARRAY);
}

const clc_type *clc_type_pointee(const clc_type *type)
{
    return clc_type_is_pointer(type) ? type->base : NULL;
}

const clc_type *clc_type_member(const clc_type *type, int32_t name)
{
    if (type == NULL || type->kind != CLC_TYPE_STRUCT)
        return NULL;
    for (size_t k = 0; k < type->member_count; ++k)
        if (type->members[k].name == name)
            return type->members[k].type;
    return NULL;
}

clc_scalar clc_type_element(const clc_type *type)
{
    if (type == NULL ||
        (type->kind != CLC_TYPE_SCALAR && type->kind != CLC_TYPE_VECTOR))
        return CLC_S_NONE;
    return type->scalar;
}

unsigned clc_type_width(const clc_type *type)
{
    if (type == NULL)
        return 0;
    if (type->kind == CLC_TYPE_VECTOR)
        return type->width;
    return type->kind == CLC_TYPE_SCALAR ? 1 : 0;
}

int clc_type_equal(const clc_type *a, const clc_type *b)
{
    if (a == b)
        return 1;
    if (a == NULL || b == NULL || a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case CLC_TYPE_SCALAR:
        return a->scalar == b->scalar;
    case CLC_TYPE_VECTOR:
        return a->scalar == b->scalar && a->width == b->width;
    case CLC_TYPE_POINTER:
        return a->space == b->space && clc_type_equal(a->base, b->base);
    case CLC_TYPE_ARRAY:
        return a->length == b->length && clc_type_equal(a->base, b->base);
    case CLC_TYPE_STRUCT:
        return a->tag >= 0 && a->tag == b->tag && a->is_union == b->is_union;
    case CLC_TYPE_FUNCTION:
        return clc_type_equal(a->base, b->base);
    }
    return 0;
}

size_t clc_scalar_bytes(clc_scalar scalar)
{
    switch (scalar) {
    case CLC_S_BOOL: case CLC_S_CHAR: case CLC_S_UCHAR: return 1;
    case CLC_S_SHORT: case CLC_S_USHORT: case CLC_S_HALF: return 2;
    case CLC_S_INT: case CLC_S_UINT: case CLC_S_FLOAT: return 4;
    case CLC_S_LONG: case CLC_S_ULONG: case CLC_S_DOUBLE: return 8;
    default: return 0;
    }
}

int clc_scalar_is_signed(clc_scalar scalar)
{
    switch (scalar) {
    case CLC_S_CHAR: case CLC_S_SHORT: case CLC_S_INT: case CLC_S_LONG:
    case CLC_S_HALF: case CLC_S_FLOAT: case CLC_S_DOUBLE:
        return 1;
    default:
        return 0;
    }
}

int clc_scalar_is_floating(clc_scalar scalar)
{
    return scalar == CLC_S_HALF || scalar == CLC_S_FLOAT ||
           scalar == CLC_S_DOUBLE;
}

clc_scalar clc_scalar_signed_of_size(size_t bytes)
{
    switch (bytes) {
    case 1: return CLC_S_CHAR;
    case 2: return CLC_S_SHORT;
    case 8: return CLC_S_LONG;
    default: return CLC_S_INT;
    }
}
