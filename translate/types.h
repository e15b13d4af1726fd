/*
 * Types of the front end's declarations and expressions (private to
 * Kiln: the symbol table, the expression typer and the translation passes).
 *
 * As small as the translations need: scalars, vectors, pointers with the
 * address space they point into, arrays, structs with their members and
 * functions with their return type.  Typedefs are resolved when declared,
 * so a type never names a typedef.  Types live in the translation's arena
 * and are compared by their contents, never by address.
 */
#ifndef KILN_CLC_TYPES_H
#define KILN_CLC_TYPES_H

#include "lexer.h"

#include <stddef.h>
#include <stdint.h>

typedef enum clc_type_kind {
    CLC_TYPE_SCALAR = 1, /* clc_scalar, void included                  */
    CLC_TYPE_VECTOR,     /* scalar x width (2, 3, 4, 8, 16)            */
    CLC_TYPE_POINTER,    /* base: the pointee, space: where it lives   */
    CLC_TYPE_ARRAY,      /* base: the element, length (0 unknown)      */
    CLC_TYPE_STRUCT,     /* struct or union: tag and members           */
    CLC_TYPE_FUNCTION    /* base: the return type                      */
} clc_type_kind;

/* Address spaces.  DEFAULT is what the source did not say: private in
 * OpenCL C 1.2, generic (any space) for CUDA C's pointers. */
typedef enum clc_space {
    CLC_SPACE_DEFAULT = 0,
    CLC_SPACE_PRIVATE,
    CLC_SPACE_GLOBAL,
    CLC_SPACE_LOCAL,
    CLC_SPACE_CONSTANT,
    CLC_SPACE_GENERIC
} clc_space;

typedef struct clc_type clc_type;

typedef struct clc_member {
    int32_t name;          /* interned id; -1 for an unnamed member       */
    const clc_type *type;
} clc_member;

struct clc_type {
    clc_type_kind kind;
    clc_scalar scalar;     /* SCALAR; VECTOR: the element                  */
    unsigned width;        /* VECTOR                                       */
    clc_space space;       /* POINTER: the space of what it points to      */
    const clc_type *base;  /* POINTER, ARRAY, FUNCTION (see the kinds)     */
    size_t length;         /* ARRAY                                        */
    int32_t tag;           /* STRUCT: tag id, -1 when anonymous            */
    int is_union;          /* STRUCT                                       */
    int defined;           /* STRUCT: its body was seen                    */
    const clc_member *members; /* STRUCT: member_count of them             */
    size_t member_count;
    const clc_type *const *params; /* FUNCTION: param_count types, NULL    */
    size_t param_count;            /*   entries for unknown ones           */
};

/* The scalar type `scalar` (a static object: never freed). */
const clc_type *clc_type_scalar(clc_scalar scalar);
/* `scalar` x `width`; width 1 gives the scalar. */
const clc_type *clc_type_vector(clc_arena *arena, clc_scalar scalar,
                                unsigned width);
const clc_type *clc_type_pointer(clc_arena *arena, const clc_type *pointee,
                                 clc_space space);
const clc_type *clc_type_array(clc_arena *arena, const clc_type *element,
                               size_t length);
const clc_type *clc_type_function(clc_arena *arena, const clc_type *result);
/* A struct or union with no members yet: its declaration fills them. */
clc_type *clc_type_struct(clc_arena *arena, int32_t tag, int is_union);

int clc_type_is_vector(const clc_type *type);
int clc_type_is_scalar(const clc_type *type);     /* arithmetic, not void */
int clc_type_is_pointer(const clc_type *type);    /* a pointer or an array */
/* What a pointer points to, or an array's element; NULL for others. */
const clc_type *clc_type_pointee(const clc_type *type);
/* The member `name` of a struct type, NULL when it has none. */
const clc_type *clc_type_member(const clc_type *type, int32_t name);
/* The element scalar of a scalar or vector type, CLC_S_NONE otherwise. */
clc_scalar clc_type_element(const clc_type *type);
/* Vector width, 1 for a scalar, 0 for others. */
unsigned clc_type_width(const clc_type *type);
/* Whether two types are the same (structs: the same tag). */
int clc_type_equal(const clc_type *a, const clc_type *b);

/* Bytes of a scalar (OpenCL C's sizes: long is 8), 0 for none or void. */
size_t clc_scalar_bytes(clc_scalar scalar);
int clc_scalar_is_signed(clc_scalar scalar);
int clc_scalar_is_floating(clc_scalar scalar);
/* The signed integer scalar of `bytes` bytes (a vector comparison's
 * element: float4 < float4 is int4, double2 < double2 is long2). */
clc_scalar clc_scalar_signed_of_size(size_t bytes);

#endif
