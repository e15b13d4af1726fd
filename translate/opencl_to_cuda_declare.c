/*
 * OpenCL C -> CUDA C++, declarations: each __kernel becomes an extern "C"
 * __global__ function (its signature read, __local parameters made
 * offsets into dynamic shared memory, attributes such as
 * reqd_work_group_size turned into launch bounds), and the address spaces
 * of declarations in bodies and at file scope.
 */
#include "opencl_to_cuda_pass.h"

#include <stdlib.h>
#include <string.h>

/* ---- kernel declarations ---------------------------------------------------------------- */

size_t tr_scalar_size(const tr_state *st, size_t i)
{
    switch (st->tokens[i].ident) {
    case W_char: case W_uchar: case W_bool: case W__Bool:
        return 1;
    case W_short: case W_ushort: case W_half:
        return 2;
    case W_int: case W_uint: case W_float: case W_unsigned: case W_signed:
        return 4;
    case W_long: case W_ulong: case W_double: case W_size_t:
    case W_ptrdiff_t: case W_intptr_t: case W_uintptr_t:
        return 8;
    default:
        return 0;
    }
}

static size_t tr_vector_size(const clc_ident *ident)
{
    static const size_t element[] = {
        [CLC_S_CHAR] = 1, [CLC_S_UCHAR] = 1, [CLC_S_SHORT] = 2,
        [CLC_S_USHORT] = 2, [CLC_S_INT] = 4, [CLC_S_UINT] = 4,
        [CLC_S_LONG] = 8, [CLC_S_ULONG] = 8, [CLC_S_HALF] = 2,
        [CLC_S_FLOAT] = 4, [CLC_S_DOUBLE] = 8};
    if (ident->info.scalar >= sizeof element / sizeof element[0])
        return 0;
    size_t width = ident->info.width == 3 ? 4 : ident->info.width;
    return element[ident->info.scalar] * width;
}

/* The text of a type made of tokens [begin, end), translated (vector and
 * half names renamed, address spaces dropped), for the prologue that
 * declares a __local pointer parameter. */
static const char *tr_type_text(tr_state *st, size_t begin, size_t end)
{
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    for (size_t i = begin; i < end; ++i) {
        int space;
        if (tr_is_address_space(st, i, &space) || tr_is_access_qualifier(st, i)
            || tr_is_word(st, i, W_restrict))
            continue;
        if (text.length)
            clc_buffer_puts(&text, " ");
        if (tr_is_ident(st, i) && tr_ident(st, i)->info.width != 0)
            clc_buffer_printf(&text, "kl_%.*s", (int)st->tokens[i].length,
                              st->tokens[i].text);
        else if (tr_is_word(st, i, W_half))
            clc_buffer_puts(&text, "kl_half");
        else if (tr_is_word(st, i, W___const))
            clc_buffer_puts(&text, "const");
        else if (tr_is_word(st, i, W___volatile) ||
                 tr_is_word(st, i, W___volatile__))
            clc_buffer_puts(&text, "volatile");
        else
            clc_buffer_append(&text, st->tokens[i].text, st->tokens[i].length);
    }
    return clc_buffer_text(&text);
}

/* __builtin_astype(x, T), clang's spelling of as_T(x) -> kl_as<T>(x) */
void tr_builtin_astype(tr_state *st, size_t at)
{
    size_t open = at + 1, comma = SIZE_MAX;
    if (!tr_is_punct(st, open, P_LPAREN) || st->match[open] == SIZE_MAX)
        tr_fail(st, at, "__builtin_astype needs (expression, type)");
    size_t close = st->match[open];
    for (size_t j = open + 1; j < close; ++j) {
        if (tr_is_open(st, j) && st->match[j] != SIZE_MAX)
            j = st->match[j];
        else if (tr_is_punct(st, j, P_COMMA))
            comma = j;
    }
    if (comma == SIZE_MAX || comma + 1 == close)
        tr_fail(st, at, "__builtin_astype needs (expression, type)");
    st->edits.replace[at] = tr_printf(st, "kl_as<%s>", tr_type_text(st, comma + 1, close));
    for (size_t j = comma; j < close; ++j)
        st->edits.replace[j] = "";
}

/* GCC built-ins that clang's OpenCL headers expand to (INFINITY is
 * __builtin_inff()) and that NVRTC lacks: CUDA's function of that job, or
 * the prelude's kl_builtin_X where CUDA has none.  NULL for others. */
const char *tr_gnu_builtin(tr_state *st, const clc_token *t)
{
    static const struct {
        const char *name, *cuda; /* cuda NULL: the prelude's kl_builtin_ */
    } builtins[] = {
        {"inff", NULL},        {"inf", NULL},         {"huge_valf", NULL},
        {"huge_val", NULL},    {"nanf", NULL},        {"nan", NULL},
        {"ctz", NULL},         {"ctzl", NULL},        {"fabsf", "fabsf"},
        {"fabs", "fabs"},      {"sqrtf", "sqrtf"},    {"sqrt", "sqrt"},
        {"fmaf", "fmaf"},      {"fma", "fma"},        {"fminf", "fminf"},
        {"fmaxf", "fmaxf"},    {"floorf", "floorf"},  {"ceilf", "ceilf"},
        {"popcount", "__popc"}, {"popcountl", "__popcll"},
        {"clz", "__clz"},      {"clzl", "__clzll"}};
    size_t prefix = strlen("__builtin_");
    if (t->length <= prefix || memcmp(t->text, "__builtin_", prefix) != 0)
        return NULL;
    for (size_t k = 0; k < sizeof builtins / sizeof builtins[0]; ++k)
        if (strlen(builtins[k].name) == t->length - prefix &&
            memcmp(builtins[k].name, t->text + prefix, t->length - prefix) == 0)
            return builtins[k].cuda != NULL
                       ? builtins[k].cuda
                       : tr_printf(st, "kl_builtin_%s", builtins[k].name);
    return NULL;
}

/* C converts int to an enumeration implicitly, C++ does not: a variable,
 * member or parameter of enumeration type becomes an int (which is what
 * it is in C); the enumeration's constants stay.  `typedef enum {...} T;`
 * becomes `enum {...}; typedef int T;`. */
void tr_enum(tr_state *st, size_t at)
{
    size_t next = at + 1;
    if (tr_is_ident(st, next) && !tr_is_punct(st, next + 1, P_LBRACE)) {
        st->edits.replace[at] = "";
        st->edits.replace[next] = "int";
        return;
    }
    if (tr_is_ident(st, next))
        ++next;
    if (!tr_is_punct(st, next, P_LBRACE) || st->match[next] == SIZE_MAX)
        return;
    if (at > 0 && tr_is_word(st, at - 1, W_typedef)) {
        st->edits.replace[at - 1] = "";
        tr_insert_add(st, st->match[next], 1, at - 1, st->match[next],
                      "; typedef int");
    }
}

/* `struct pair {...} make_pair(int v) {...}` defines the struct in the
 * function's return type, which C++ forbids: `struct pair {...}; struct
 * pair make_pair(...)`. */
void tr_struct_return(tr_state *st, size_t at)
{
    size_t tag = at + 1, open = at + 2;
    if (!tr_is_ident(st, tag) || !tr_is_punct(st, open, P_LBRACE) ||
        st->match[open] == SIZE_MAX)
        return;
    size_t close = st->match[open];
    if (tr_is_ident(st, close + 1) && tr_is_punct(st, close + 2, P_LPAREN))
        tr_insert_add(st, close, 1, close, close,
                      tr_printf(st, "; %s %.*s",
                                tr_is_word(st, at, W_struct) ? "struct" : "union",
                                (int)st->tokens[tag].length,
                                st->tokens[tag].text));
}

static void tr_copy_name(char *out, size_t size, const clc_token *t)
{
    size_t n = t->length < size - 1 ? t->length : size - 1;
    memcpy(out, t->text, n);
    out[n] = '\0';
}

/* What a kernel parameter's tokens say, read before it is described. */
typedef struct tr_param_shape {
    size_t begin, end;   /* its tokens, without an array declarator      */
    size_t array_open;   /* `a[]`'s '[', else SIZE_MAX                    */
    size_t name_at;      /* its name, else SIZE_MAX                      */
    size_t type_end;     /* where its type's tokens end                  */
    size_t stars;        /* pointer levels, an array declarator's too    */
    int space;           /* CLC_PARAM_GLOBAL, _CONSTANT, _LOCAL or 0     */
} tr_param_shape;

/* `global float a[]` (or a[N]) is the pointer `global float *a`, as for
 * any C function parameter: the declarator is dropped, one more star. */
static void tr_param_array(tr_state *st, tr_param_shape *shape)
{
    size_t begin = shape->begin, end = shape->end;
    if (end > begin + 2 && tr_is_punct(st, end - 1, P_RBRACKET) &&
        st->match[end - 1] != SIZE_MAX && st->match[end - 1] > begin &&
        tr_is_ident(st, st->match[end - 1] - 1)) {
        shape->array_open = st->match[end - 1];
        for (size_t i = shape->array_open; i < end; ++i)
            st->edits.replace[i] = "";
        shape->end = shape->array_open;
        ++shape->stars;
    }
}

/* Its address space, stars and name; refuses what CUDA cannot take. */
static void tr_param_scan(tr_state *st, tr_param_shape *shape,
                          clc_param *param)
{
    size_t name_at = SIZE_MAX;
    for (size_t i = shape->begin; i < shape->end; ++i) {
        int s;
        if (tr_is_address_space(st, i, &s) && s != 0)
            shape->space = s;
        if (tr_is_punct(st, i, P_STAR))
            ++shape->stars;
        if (tr_is_ident(st, i) && !tr_is_type_word(st, i) &&
            !tr_is_address_space(st, i, &s) && !tr_is_access_qualifier(st, i))
            name_at = i; /* the last plain identifier: the name */
        if (tr_is_punct(st, i, P_LBRACKET))
            tr_refuse(st, i, "cannot translate a kernel parameter that is an "
                           "array of arrays: declare it as a pointer");
        if (tr_is_ident(st, i) && (tr_flags(st, i) & TR_IDENT_UNSUPPORTED))
            tr_refuse(st, i, "cannot translate '%.*s': %s",
                      (int)st->tokens[i].length, st->tokens[i].text,
                      tr_unsupported_why(st, i));
    }
    /* A typedef'd type with no name after it: the last identifier is the
     * type, and the parameter has no name. */
    shape->type_end = shape->end;
    if (name_at != SIZE_MAX && name_at + 1 == shape->end) {
        tr_copy_name(param->name, sizeof param->name, &st->tokens[name_at]);
        shape->type_end = name_at;
        shape->name_at = name_at;
    }
}

/* Its type as OpenCL spells it ("float*", "uint", "float4", "struct
 * point") into param->type_name, and the count of its type's words;
 * returns a value's size in bytes, 0 when the words do not tell (a
 * struct, a typedef). */
static size_t tr_param_type(tr_state *st, const tr_param_shape *shape,
                            clc_param *param, size_t *words)
{
    clc_buffer type;
    clc_buffer_init(&type, st->arena);
    size_t scalar_size = 0, vector_size = 0, type_words = 0;
    int other_type = 0;
    for (size_t i = shape->begin; i < shape->type_end; ++i) {
        int s;
        if (tr_is_address_space(st, i, &s) || tr_is_access_qualifier(st, i) ||
            tr_is_qualifier(st, i))
            continue;
        if (tr_is_punct(st, i, P_STAR)) {
            clc_buffer_puts(&type, "*");
            continue;
        }
        if (type.length)
            clc_buffer_puts(&type, " ");
        clc_buffer_append(&type, st->tokens[i].text, st->tokens[i].length);
        if (!tr_is_ident(st, i))
            continue;
        ++type_words;
        if (tr_ident(st, i)->info.width != 0)
            vector_size = tr_vector_size(tr_ident(st, i));
        else if (tr_scalar_size(st, i) != 0) {
            size_t size = tr_scalar_size(st, i);
            /* "unsigned char": the later word decides; "long long": 8 */
            if (tr_is_word(st, i, W_unsigned) || tr_is_word(st, i, W_signed))
                scalar_size = scalar_size ? scalar_size : size;
            else
                scalar_size = size;
        } else {
            other_type = 1;
        }
    }
    if (shape->array_open != SIZE_MAX)
        clc_buffer_puts(&type, "*");
    size_t type_length = type.length < sizeof param->type_name - 1
                             ? type.length
                             : sizeof param->type_name - 1;
    memcpy(param->type_name, clc_buffer_text(&type), type_length);
    param->type_name[type_length] = '\0';
    *words = type_words;
    if (other_type || type_words == 0)
        return 0;
    return vector_size ? vector_size : scalar_size;
}

/* `__local T *p` -> `unsigned int kl_local_offset_p`, and the body starts
 * by pointing p into the dynamic shared memory. */
static void tr_param_local(tr_state *st, const tr_param_shape *shape,
                           clc_param *param, size_t body_open)
{
    size_t begin = shape->begin, name_at = shape->name_at;
    param->kind = CLC_PARAM_LOCAL;
    if (name_at == SIZE_MAX)
        tr_fail(st, begin, "a __local kernel parameter needs a name");
    if (shape->stars > 1)
        tr_refuse(st, begin, "cannot translate a __local pointer to a "
                           "pointer as a kernel parameter");
    size_t star = begin;
    while (star < name_at && !tr_is_punct(st, star, P_STAR))
        ++star;
    const char *element = tr_type_text(st, begin, star);
    for (size_t i = begin; i < shape->end; ++i)
        st->edits.replace[i] = "";
    st->edits.replace[name_at] =
        tr_printf(st, "unsigned int kl_local_offset_%s", param->name);
    if (body_open != SIZE_MAX)
        tr_insert_add(st, body_open, 1, body_open, body_open,
                      tr_printf(st,
                                " %s *%s = (%s *)(kl_dynamic_smem + "
                                "kl_local_offset_%s);",
                                element, param->name, element, param->name));
}

/* One kernel parameter, tokens [begin, end). */
static void tr_kernel_param(tr_state *st, size_t begin, size_t end,
                            clc_param *param, size_t body_open)
{
    tr_param_shape shape = {begin, end, SIZE_MAX, SIZE_MAX, end, 0, 0};
    tr_param_array(st, &shape);
    tr_param_scan(st, &shape, param);
    size_t words = 0;
    size_t value_size = tr_param_type(st, &shape, param, &words);
    if (shape.stars == 0) {
        param->kind = CLC_PARAM_VALUE;
        if (shape.space == CLC_PARAM_LOCAL)
            tr_fail(st, begin, "a __local kernel parameter must be a pointer");
        if (value_size != 0)
            param->size = value_size;
        if (tr_is_word(st, begin, W_bool) && words == 1)
            tr_fail(st, begin, "a kernel parameter cannot be bool (OpenCL C "
                               "6.9.k): use int or uchar");
        return;
    }
    param->size = 8;
    if (shape.space == CLC_PARAM_LOCAL) {
        tr_param_local(st, &shape, param, body_open);
        return;
    }
    if (shape.array_open != SIZE_MAX)
        tr_insert_add(st, shape.array_open - 1, 0, shape.array_open - 1,
                      shape.array_open - 1, "*");
    param->kind = shape.space == CLC_PARAM_CONSTANT ? CLC_PARAM_CONSTANT
                                                    : CLC_PARAM_GLOBAL;
    if (shape.space == 0)
        tr_fail(st, begin, "kernel parameter '%s' is a pointer without an "
                           "address space (__global, __constant or __local)",
                param->name);
}

static unsigned tr_attribute_value(tr_state *st, size_t begin, size_t end)
{
    long long value = 0;
    if (begin >= end ||
        !clc_const_eval(&st->tokens[begin], end - begin, &value) ||
        value <= 0 || value > 65536)
        tr_fail(st, begin, "reqd_work_group_size needs positive integer "
                           "constants");
    return (unsigned)value;
}

/* __attribute__((...)) at `at`: drops it when it holds OpenCL-only
 * attributes (recording reqd_work_group_size in `reqd`, when given).
 * Returns the index of its last token. */
size_t tr_attribute(tr_state *st, size_t at, unsigned *reqd)
{
    size_t open = at + 1;
    if (!tr_is_punct(st, open, P_LPAREN))
        tr_fail(st, at, "'__attribute__' without '(('");
    size_t close = st->match[open];
    int opencl_only = 0;
    for (size_t i = open + 1; i < close; ++i) {
        if (!tr_is_ident(st, i))
            continue;
        const clc_ident *ident = tr_ident(st, i);
        const char *n = ident->name;
        size_t len = ident->length;
#define TR_IS(s) (len == sizeof(s) - 1 && memcmp(n, s, len) == 0)
        if (TR_IS("reqd_work_group_size") ||
            TR_IS("__reqd_work_group_size__")) {
            opencl_only = 1;
            size_t args = i + 1;
            if (!tr_is_punct(st, args, P_LPAREN))
                tr_fail(st, i, "reqd_work_group_size needs (x, y, z)");
            size_t args_close = st->match[args];
            size_t item_begin = args + 1;
            int k = 0;
            unsigned values[3] = {1, 1, 1};
            for (size_t j = args + 1; j <= args_close; ++j) {
                if (tr_is_open(st, j) && j != args_close) {
                    j = st->match[j];
                    continue;
                }
                if (tr_is_punct(st, j, P_COMMA) || j == args_close) {
                    if (k >= 3)
                        tr_fail(st, j, "reqd_work_group_size takes 3 values");
                    values[k++] = tr_attribute_value(st, item_begin, j);
                    item_begin = j + 1;
                }
            }
            if (k != 3)
                tr_fail(st, i, "reqd_work_group_size takes 3 values");
            if (reqd != NULL)
                memcpy(reqd, values, sizeof values);
            i = args_close;
        } else if (TR_IS("work_group_size_hint") || TR_IS("vec_type_hint") ||
                   TR_IS("nosvm") || TR_IS("endian") ||
                   TR_IS("opencl_unroll_hint") ||
                   TR_IS("intel_reqd_sub_group_size")) {
            opencl_only = 1;
        }
#undef TR_IS
        if (tr_is_punct(st, i + 1, P_LPAREN))
            i = st->match[i + 1];
    }
    if (opencl_only)
        for (size_t i = at; i <= close; ++i)
            st->edits.replace[i] = "";
    return close;
}

/* The '(' of the parameter list of the kernel declared from `begin`, its
 * attributes before it read into `reqd`; fails unless it returns void. */
static size_t tr_kernel_open(tr_state *st, size_t begin, size_t kernel_word,
                             unsigned reqd[3])
{
    size_t open = SIZE_MAX;
    for (size_t i = begin; i < st->count; ++i) {
        if (tr_is_word(st, i, W___attribute__) ||
            tr_is_word(st, i, W___attribute)) {
            i = tr_attribute(st, i, reqd);
            continue;
        }
        if (tr_is_punct(st, i, P_LPAREN)) {
            open = i;
            break;
        }
        if (tr_is_punct(st, i, P_SEMI) || tr_is_punct(st, i, P_LBRACE))
            break;
    }
    if (open == SIZE_MAX || open == 0 || !tr_is_ident(st, open - 1))
        tr_fail(st, kernel_word, "cannot find the name of this __kernel");
    int returns_void = 0;
    for (size_t i = begin; i < open - 1; ++i) /* `void __kernel f` too */
        if (tr_is_word(st, i, W_void))
            returns_void = 1;
    if (!returns_void)
        tr_fail(st, kernel_word, "a __kernel must return void");
    return open;
}

/* `__kernel` becomes extern "C" __global__ and reqd_work_group_size a
 * __launch_bounds__; a program that calls get_work_dim() takes it as a
 * hidden parameter after the user's (prototypes too), which each
 * work-item keeps where get_work_dim() reads it (prelude_cuda.cuh). */
static void tr_kernel_header(tr_state *st, size_t begin, size_t kernel_word,
                             size_t open, size_t body_open,
                             const unsigned reqd[3], int empty)
{
    size_t name_at = open - 1, close = st->match[open];
    if (begin < kernel_word) {
        st->edits.replace[kernel_word] = "";
        tr_insert_add(st, begin, 0, begin, begin, "extern \"C\" __global__");
    } else {
        st->edits.replace[kernel_word] = "extern \"C\" __global__";
    }
    if (reqd[0] != 0) {
        unsigned long long threads = (unsigned long long)reqd[0] * reqd[1] *
                                     reqd[2];
        if (threads > 1024)
            tr_refuse(st, kernel_word,
                    "reqd_work_group_size(%u, %u, %u) asks for %llu "
                    "work-items; CUDA allows at most 1024",
                    reqd[0], reqd[1], reqd[2], threads);
        tr_insert_add(st, name_at, 0, name_at, name_at,
                      tr_printf(st, "__launch_bounds__(%llu) ", threads));
    }
    if (!st->uses_work_dim)
        return;
    if (open + 2 == close && tr_is_word(st, open + 1, W_void))
        st->edits.replace[open + 1] = "";
    tr_insert_add(st, close, 0, close, close,
                  empty ? "unsigned int kl_work_dim"
                        : ", unsigned int kl_work_dim");
    if (body_open != SIZE_MAX)
        tr_insert_add(st, body_open, 1, body_open, body_open,
                      " kl_work_dim_set(kl_work_dim);");
}

/* The kernel's parameters, split at the commas of the list's own depth. */
static void tr_kernel_params(tr_state *st, tr_kernel *kernel, size_t open,
                             int empty)
{
    size_t close = st->match[open];
    size_t count = 0;
    if (!empty) {
        count = 1;
        for (size_t i = open + 1; i < close; ++i) {
            if (tr_is_open(st, i)) {
                i = st->match[i];
                continue;
            }
            if (tr_is_punct(st, i, P_COMMA))
                ++count;
        }
    }
    kernel->signature.param_count = count;
    kernel->signature.params =
        clc_arena_alloc(st->arena, (count ? count : 1) * sizeof(clc_param));
    size_t param_begin = open + 1, index = 0;
    for (size_t i = open + 1; !empty && i <= close; ++i) {
        if (i < close && tr_is_open(st, i)) {
            i = st->match[i];
            continue;
        }
        if (i == close || tr_is_punct(st, i, P_COMMA)) {
            if (param_begin == i)
                tr_fail(st, i, "empty kernel parameter");
            tr_kernel_param(st, param_begin, i,
                            &kernel->signature.params[index++],
                            kernel->body_open);
            param_begin = i + 1;
        }
    }
}

/* A kernel's definition, recorded with its signature. */
static void tr_kernel_record(tr_state *st, size_t open, size_t body_open,
                             const unsigned reqd[3], int empty)
{
    size_t name_at = open - 1;
    st->kernels = clc_arena_grow(st->arena, st->kernels, st->kernel_count,
                                 &st->kernel_capacity, sizeof *st->kernels, 8);
    tr_kernel *kernel = &st->kernels[st->kernel_count++];
    memset(kernel, 0, sizeof *kernel);
    if (st->tokens[name_at].length >= sizeof kernel->signature.name)
        tr_fail(st, name_at, "kernel name too long");
    tr_copy_name(kernel->signature.name, sizeof kernel->signature.name,
                 &st->tokens[name_at]);
    /* A flag on the name, not a search of the kernels so far: linear in
     * the number of kernels. */
    if (tr_flags(st, name_at) & TR_IDENT_KERNEL)
        tr_fail(st, name_at, "kernel '%s' is defined twice",
                kernel->signature.name);
    tr_flag_set(st, st->tokens[name_at].ident, TR_IDENT_KERNEL);
    memcpy(kernel->signature.reqd_work_group, reqd,
           sizeof kernel->signature.reqd_work_group);
    kernel->body_open = body_open;
    tr_kernel_params(st, kernel, open, empty);
}

/* A kernel declaration whose tokens start at `begin` and whose `__kernel`
 * is at `kernel_word`.  Returns the index of the parameter list's ')'. */
size_t tr_kernel_declaration(tr_state *st, size_t begin, size_t kernel_word)
{
    unsigned reqd[3] = {0, 0, 0};
    size_t open = tr_kernel_open(st, begin, kernel_word, reqd);
    size_t close = st->match[open];
    size_t body_open = SIZE_MAX;
    size_t after = close + 1;
    while (tr_is_word(st, after, W___attribute__) ||
           tr_is_word(st, after, W___attribute))
        after = tr_attribute(st, after, reqd) + 1;
    if (tr_is_punct(st, after, P_LBRACE))
        body_open = after;
    int empty = (open + 1 == close) ||
                (open + 2 == close && tr_is_word(st, open + 1, W_void));
    tr_kernel_header(st, begin, kernel_word, open, body_open, reqd, empty);
    /* Only definitions are recorded: a prototype has no code. */
    if (body_open != SIZE_MAX)
        tr_kernel_record(st, open, body_open, reqd, empty);
    return close;
}

/* Whether the declaration starting at `begin` (file scope) declares a
 * kernel: `__kernel`/`kernel` before its first '(' that is not an
 * attribute's.  Returns the kernel word's index or SIZE_MAX. */
size_t tr_kernel_word(const tr_state *st, size_t begin)
{
    for (size_t i = begin; i < st->count; ++i) {
        if (tr_is_kernel_word(st, i))
            return i;
        if (tr_is_word(st, i, W___attribute__) ||
            tr_is_word(st, i, W___attribute)) {
            if (tr_is_punct(st, i + 1, P_LPAREN))
                i = st->match[i + 1];
            continue;
        }
        if (st->tokens[i].kind == CLC_TOK_PUNCT &&
            (st->tokens[i].punct == P_LPAREN ||
             st->tokens[i].punct == P_SEMI || st->tokens[i].punct == P_LBRACE ||
             st->tokens[i].punct == P_ASSIGN))
            return SIZE_MAX;
    }
    return SIZE_MAX;
}

/* ---- address spaces ---------------------------------------------------------------------- */

/* `__local`/`__constant` at `at`: whether the declaration it qualifies is a
 * pointer (a '*' before the declarator), looking past type words. */
int tr_qualifies_pointer(const tr_state *st, size_t at)
{
    size_t i = at + 1;
    while (i < st->count) {
        int space;
        if (tr_is_punct(st, i, P_STAR))
            return 1;
        if (tr_is_type_word(st, i) || tr_is_address_space(st, i, &space) ||
            tr_is_access_qualifier(st, i)) {
            ++i;
            continue;
        }
        if (tr_is_word(st, i, W___attribute__) && tr_is_punct(st, i + 1, P_LPAREN)) {
            i = st->match[i + 1] + 1;
            continue;
        }
        if (tr_is_ident(st, i)) {
            /* a typedef name or a struct tag, then maybe the declarator */
            ++i;
            if (tr_is_punct(st, i, P_STAR))
                return 1;
            /* a parameter `__constant int c[]` is a pointer too: an array
             * declarator in a list that a ')' closes, not a ';' */
            if (tr_is_ident(st, i - 1) && tr_is_punct(st, i, P_LBRACKET) &&
                st->match[i] != SIZE_MAX) {
                for (size_t j = st->match[i] + 1; j < st->count; ++j) {
                    if (tr_is_open(st, j) && st->match[j] != SIZE_MAX) {
                        j = st->match[j];
                        continue;
                    }
                    if (tr_is_punct(st, j, P_RPAREN))
                        return 1;
                    if (tr_is_close(st, j) || tr_is_punct(st, j, P_SEMI) ||
                        tr_is_punct(st, j, P_LBRACE) || tr_is_punct(st, j, P_ASSIGN))
                        return 0;
                }
            }
            return 0;
        }
        return 0;
    }
    return 0;
}

/* The opening of a vector literal for the type named at `name`:
 * "kl_make<kl_float4>(" for a built-in name, "kl_make<vec>(" for a
 * typedef (which already names the kl_ type). */
const char *tr_make_call(tr_state *st, size_t name)
{
    int builtin = tr_ident(st, name)->info.width != 0;
    return tr_printf(st, "kl_make<%s%.*s>(", builtin ? "kl_" : "",
                     (int)st->tokens[name].length, st->tokens[name].text);
}

/* A C99 compound literal `(T){...}` at `open`: C++ spells it `T{...}`;
 * a vector type's `(float4){1, 2, 3, 4}` becomes a kl_make call.  Only in
 * expression position (after an operator, '(' or `return`), where a
 * parenthesised name followed by '{' can be nothing else. */
int tr_compound_literal(tr_state *st, size_t open)
{
    size_t name = open + 1;
    if (tr_is_word(st, name, W_struct) || tr_is_word(st, name, W_union))
        ++name;
    if (!tr_is_ident(st, name) || !tr_is_punct(st, name + 1, P_RPAREN) ||
        !tr_is_punct(st, name + 2, P_LBRACE) || open == 0)
        return 0;
    size_t before = open - 1;
    const clc_token *b = &st->tokens[before];
    int expression = tr_is_word(st, before, W_return) ||
                     (b->kind == CLC_TOK_PUNCT && b->punct != P_RPAREN &&
                      b->punct != P_RBRACKET && b->punct != P_RBRACE &&
                      b->punct != P_SEMI && b->punct != P_LBRACE);
    if (!expression)
        return 0;
    size_t brace = name + 2;
    if (st->match[brace] == SIZE_MAX)
        return 0;
    for (size_t k = open; k < name; ++k)
        st->edits.replace[k] = "";
    st->edits.replace[name + 1] = "";
    if (tr_is_vector_type(st, name)) {
        st->edits.replace[name] = "";
        st->edits.replace[brace] = tr_make_call(st, name);
        st->edits.replace[st->match[brace]] = ")";
    }
    return 1;
}
