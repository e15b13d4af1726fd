/*
 * OpenCL C -> CUDA C++ translation (see opencl_to_cuda.h).
 *
 * The pass works on the preprocessed token stream.  It does not build a
 * syntax tree: OpenCL C is C99 plus a few constructs that are recognisable
 * from their tokens (qualifiers, vector type names, vector literals,
 * swizzles, built-in names), and the prelude (prelude_cuda.cuh) gives the
 * rest its OpenCL meaning through C++ overloading.  Where C++ cannot be made
 * to do it (a vector condition in ?:, OpenCL's masked shift counts) the pass
 * finds the operands by operator precedence and wraps them in prelude calls.
 *
 * Every change is recorded as an edit on a token (replace it, or insert text
 * before or after it); the output is written once at the end, with #line
 * directives that keep NVRTC's diagnostics on the user's lines.
 */
#include "opencl_to_cuda.h"

#include "expr_type.h"
#include "lexer.h"
#include "preprocess.h"
#include "symbols.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- edits --------------------------------------------------------------- */

typedef struct tr_insert {
    size_t token;
    size_t span_begin, span_end; /* the construct it belongs to: orders   */
    size_t sequence;             /* inserts that share a token            */
    int after;                   /* 0: before the token, 1: after it      */
    const char *text;
} tr_insert;

typedef struct tr_kernel {
    clc_kernel_signature signature;
    size_t body_open; /* token index of the body's '{', or SIZE_MAX */
} tr_kernel;

typedef struct tr_state {
    clc_arena *arena;
    clc_interner *interner;
    clc_failure *failure;
    clc_token *tokens;
    size_t count;           /* without the EOF token */
    const char **file_names;
    size_t file_count;

    const char **replace;   /* per token: NULL keeps it, "" deletes it */
    size_t *match;          /* per bracket token: its partner, else SIZE_MAX */
    /* Per '?': its ':' (else SIZE_MAX); per such ':': the last token of the
     * third operand.  Found for all ?: in one pass (tr_conditionals_find),
     * so nested and chained ?: cost linear time. */
    size_t *conditional;
    tr_insert *inserts;
    size_t insert_count, insert_capacity;

    uint16_t *ident_flags;  /* per interned id: TR_IDENT_*              */
    size_t ident_flag_count;
    /* What each name is where it stands, and the types of expressions. */
    clc_symbols symbols;

    tr_kernel *kernels;
    size_t kernel_count, kernel_capacity;
    int uses_work_dim;      /* kernels take the hidden kl_work_dim       */
    int uses_printf;
    int uses_double;
    int *unsupported;       /* set before refusing a valid construct */
} tr_state;

enum {
    TR_IDENT_BUILTIN = 1,     /* an OpenCL built-in function: kl_ prefix   */
    TR_IDENT_UNSUPPORTED = 8, /* images, pipes, device-side enqueue        */
    TR_IDENT_ADDRESS_CAST = 16, /* to_global/to_local/to_private          */
    TR_IDENT_CUDA_RESERVED = 64, /* a CUDA built-in variable's name       */
    TR_IDENT_KERNEL = 256     /* a kernel's name: keeps its spelling       */
};

/* Fails the translation at token `at` with `message`; `unsupported` marks
 * valid OpenCL C that the CUDA backend cannot run (see
 * opencl_to_cuda_result.unsupported). */
static CLC_NORETURN void tr_fail_at(tr_state *st, size_t at, int unsupported,
                                    const char *message);
static void tr_fail_at(tr_state *st, size_t at, int unsupported,
                       const char *message)
{
    if (unsupported)
        *st->unsupported = 1;
    const clc_token *t = &st->tokens[at < st->count ? at : st->count];
    clc_fail(st->failure, t->file, t->line, "%s", message);
}

static CLC_NORETURN void tr_fail(tr_state *st, size_t at, const char *format,
                                 ...) CLC_PRINTF(3, 4);
static void tr_fail(tr_state *st, size_t at, const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    tr_fail_at(st, at, 0, message);
}

/* Refuses valid OpenCL C that the CUDA backend cannot run. */
static CLC_NORETURN void tr_refuse(tr_state *st, size_t at, const char *format,
                                   ...) CLC_PRINTF(3, 4);
static void tr_refuse(tr_state *st, size_t at, const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    tr_fail_at(st, at, 1, message);
}

static void tr_insert_add(tr_state *st, size_t token, int after,
                          size_t span_begin, size_t span_end,
                          const char *text)
{
    st->inserts = clc_arena_grow(st->arena, st->inserts, st->insert_count,
                                 &st->insert_capacity, sizeof *st->inserts,
                                 256);
    tr_insert *insert = &st->inserts[st->insert_count];
    insert->token = token;
    insert->after = after;
    insert->span_begin = span_begin;
    insert->span_end = span_end;
    insert->sequence = st->insert_count++;
    insert->text = text;
}

/* Wraps tokens [begin, end] in `open` ... `close`. */
static void tr_wrap(tr_state *st, size_t begin, size_t end, const char *open,
                    const char *close)
{
    tr_insert_add(st, begin, 0, begin, end, open);
    tr_insert_add(st, end, 1, begin, end, close);
}

static char *tr_printf(tr_state *st, const char *format, ...) CLC_PRINTF(2, 3);
static char *tr_printf(tr_state *st, const char *format, ...)
{
    clc_buffer buffer;
    clc_buffer_init(&buffer, st->arena);
    va_list args;
    va_start(args, format);
    char small[256];
    int n = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof small) {
        clc_buffer_append(&buffer, small, (size_t)n);
    } else {
        char *big = clc_arena_alloc(st->arena, (size_t)n + 1);
        va_start(args, format);
        vsnprintf(big, (size_t)n + 1, format, args);
        va_end(args);
        clc_buffer_append(&buffer, big, (size_t)n);
    }
    return (char *)clc_buffer_text(&buffer);
}

/* ---- token helpers -------------------------------------------------------- */

static int tr_is_punct(const tr_state *st, size_t i, clc_punct punct)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_PUNCT &&
           st->tokens[i].punct == punct;
}

static int tr_is_word(const tr_state *st, size_t i, clc_word word)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_IDENT &&
           st->tokens[i].ident == (int32_t)word;
}

static int tr_is_ident(const tr_state *st, size_t i)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_IDENT;
}

static const clc_ident *tr_ident(const tr_state *st, size_t i)
{
    return clc_ident_get(st->interner, st->tokens[i].ident);
}

static int tr_ident_is(const tr_state *st, size_t i, const char *name)
{
    if (!tr_is_ident(st, i))
        return 0;
    const clc_ident *ident = tr_ident(st, i);
    size_t n = strlen(name);
    return ident->length == n && memcmp(ident->name, name, n) == 0;
}

static int tr_flags(const tr_state *st, size_t i)
{
    if (!tr_is_ident(st, i))
        return 0;
    size_t id = (size_t)st->tokens[i].ident;
    return id < st->ident_flag_count ? st->ident_flags[id] : 0;
}

static void tr_flag_set(tr_state *st, int32_t id, int flag)
{
    if (id < 0)
        return;
    if ((size_t)id >= st->ident_flag_count) {
        size_t count = st->ident_flag_count ? st->ident_flag_count : 1024;
        while (count <= (size_t)id)
            count *= 2;
        uint16_t *grown = clc_arena_alloc(st->arena, count * sizeof *grown);
        if (st->ident_flag_count)
            memcpy(grown, st->ident_flags,
                   st->ident_flag_count * sizeof *grown);
        st->ident_flags = grown;
        st->ident_flag_count = count;
    }
    st->ident_flags[id] |= (uint16_t)flag;
}

/* A typedef of a vector type where it stands (`typedef float4 vec;`). */
static int tr_is_vector_typedef(const tr_state *st, size_t i)
{
    const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
    return symbol != NULL && symbol->kind == CLC_SYMBOL_TYPEDEF &&
           clc_type_is_vector(symbol->type);
}

/* A vector type name, built in ("float4") or typedef'd to one. */
static int tr_is_vector_type(const tr_state *st, size_t i)
{
    if (!tr_is_ident(st, i))
        return 0;
    const clc_ident *ident = tr_ident(st, i);
    if (ident->info.width != 0)
        return ident->info.scalar != CLC_S_HALF;
    return tr_is_vector_typedef(st, i);
}

static int tr_is_address_space(const tr_state *st, size_t i, int *space)
{
    if (!tr_is_ident(st, i))
        return 0;
    switch (st->tokens[i].ident) {
    case W___global: case W_global:
        *space = CLC_PARAM_GLOBAL;
        return 1;
    case W___constant: case W_constant:
        *space = CLC_PARAM_CONSTANT;
        return 1;
    case W___local: case W_local:
        *space = CLC_PARAM_LOCAL;
        return 1;
    case W___private: case W_private: case W___generic:
        *space = 0;
        return 1;
    default:
        return 0;
    }
}

static int tr_is_access_qualifier(const tr_state *st, size_t i)
{
    if (!tr_is_ident(st, i))
        return 0;
    switch (st->tokens[i].ident) {
    case W___read_only: case W_read_only: case W___write_only:
    case W_write_only: case W___read_write: case W_read_write:
        return 1;
    default:
        return 0;
    }
}

static int tr_is_kernel_word(const tr_state *st, size_t i)
{
    return tr_is_word(st, i, W___kernel) || tr_is_word(st, i, W_kernel);
}

/* Words that may stand in a declaration's type before its declarator. */
static int tr_is_type_word(const tr_state *st, size_t i)
{
    if (!tr_is_ident(st, i))
        return 0;
    if (tr_ident(st, i)->info.width != 0 || tr_is_vector_typedef(st, i))
        return 1;
    switch (st->tokens[i].ident) {
    case W_char: case W_short: case W_int: case W_long: case W_float:
    case W_double: case W_void: case W_signed: case W_unsigned: case W_bool:
    case W_half: case W_uchar: case W_ushort: case W_uint: case W_ulong:
    case W_size_t: case W_ptrdiff_t: case W_intptr_t: case W_uintptr_t:
    case W_const: case W_volatile: case W_restrict: case W___restrict:
    case W___restrict__: case W_struct: case W_union: case W_enum:
    case W__Bool: case W_static: case W_inline: case W_extern:
    case W___const: case W___volatile: case W___volatile__: case W___signed:
    case W___signed__: case W___inline: case W___inline__: case W_event_t:
        return 1;
    default:
        return 0;
    }
}

/* const, volatile, restrict and their GNU spellings */
static int tr_is_qualifier(const tr_state *st, size_t i)
{
    return tr_is_word(st, i, W_const) || tr_is_word(st, i, W___const) ||
           tr_is_word(st, i, W_volatile) || tr_is_word(st, i, W___volatile) ||
           tr_is_word(st, i, W___volatile__) || tr_is_word(st, i, W_restrict) ||
           tr_is_word(st, i, W___restrict) || tr_is_word(st, i, W___restrict__);
}

/* ---- brackets --------------------------------------------------------------- */

static void tr_match_brackets(tr_state *st)
{
    st->match = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *st->match);
    size_t *stack = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *stack);
    size_t depth = 0;
    for (size_t i = 0; i < st->count; ++i) {
        st->match[i] = SIZE_MAX;
        const clc_token *t = &st->tokens[i];
        /* The lexer makes an unterminated literal one stray token to the
         * end of its line; named here, before a bracket it swallowed is. */
        if (t->kind == CLC_TOK_OTHER && t->length > 0 &&
            (t->text[0] == '"' || t->text[0] == '\''))
            tr_fail(st, i, "unterminated %s",
                    t->text[0] == '"' ? "string literal"
                                      : "character constant");
        if (t->kind != CLC_TOK_PUNCT)
            continue;
        clc_punct open = P_NONE;
        switch (t->punct) {
        case P_LPAREN: case P_LBRACKET: case P_LBRACE:
            stack[depth++] = i;
            continue;
        case P_RPAREN: open = P_LPAREN; break;
        case P_RBRACKET: open = P_LBRACKET; break;
        case P_RBRACE: open = P_LBRACE; break;
        default: continue;
        }
        if (depth == 0 || st->tokens[stack[depth - 1]].punct != (uint8_t)open)
            tr_fail(st, i, "unbalanced '%s'", clc_punct_spelling(t->punct));
        size_t partner = stack[--depth];
        st->match[i] = partner;
        st->match[partner] = i;
    }
    if (depth != 0)
        tr_fail(st, stack[depth - 1], "unbalanced '%s'",
                clc_punct_spelling(st->tokens[stack[depth - 1]].punct));
}

static int tr_is_open(const tr_state *st, size_t i)
{
    return tr_is_punct(st, i, P_LPAREN) || tr_is_punct(st, i, P_LBRACKET) ||
           tr_is_punct(st, i, P_LBRACE);
}

static int tr_is_close(const tr_state *st, size_t i)
{
    return tr_is_punct(st, i, P_RPAREN) || tr_is_punct(st, i, P_RBRACKET) ||
           tr_is_punct(st, i, P_RBRACE);
}

/* ---- built-in names ----------------------------------------------------------- */

/* OpenCL C 1.2 built-in functions the prelude defines as kl_<name>. */
static const char *const tr_builtins[] = {
    /* work-items and synchronisation */
    "get_work_dim", "get_global_size", "get_global_id", "get_local_size",
    "get_local_id", "get_num_groups", "get_group_id", "get_global_offset",
    "get_enqueued_local_size", "get_global_linear_id", "get_local_linear_id",
    "barrier", "mem_fence", "read_mem_fence", "write_mem_fence",
    /* math */
    "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2",
    "atanh", "atanpi", "atan2pi", "cbrt", "ceil", "copysign", "cos", "cosh",
    "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs", "fdim",
    "floor", "fma", "fmax", "fmin", "fmod", "fract", "frexp", "hypot",
    "ilogb", "ldexp", "lgamma", "lgamma_r", "log", "log2", "log10", "log1p",
    "logb", "mad", "maxmag", "minmag", "modf", "nan", "nextafter", "pow",
    "pown", "powr", "remainder", "remquo", "rint", "rootn", "round", "rsqrt",
    "sin", "sincos", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi",
    "tgamma", "trunc",
    "half_cos", "half_divide", "half_exp", "half_exp2", "half_exp10",
    "half_log", "half_log2", "half_log10", "half_powr", "half_recip",
    "half_rsqrt", "half_sin", "half_sqrt", "half_tan",
    "native_cos", "native_divide", "native_exp", "native_exp2",
    "native_exp10", "native_log", "native_log2", "native_log10",
    "native_powr", "native_recip", "native_rsqrt", "native_sin",
    "native_sqrt", "native_tan",
    /* integer */
    "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clz", "mad_hi", "mad_sat",
    "mul_hi", "rotate", "sub_sat", "upsample", "popcount", "mad24", "mul24",
    /* common */
    "clamp", "degrees", "max", "min", "mix", "radians", "step", "smoothstep",
    "sign",
    /* geometric */
    "cross", "dot", "distance", "length", "normalize", "fast_distance",
    "fast_length", "fast_normalize",
    /* relational */
    "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless",
    "islessequal", "islessgreater", "isfinite", "isinf", "isnan", "isnormal",
    "isordered", "isunordered", "signbit", "any", "all", "bitselect",
    "select",
    /* vectors, async copies */
    "shuffle", "shuffle2", "async_work_group_copy",
    "async_work_group_strided_copy", "wait_group_events", "prefetch",
    /* atomics */
    "atomic_add", "atomic_sub", "atomic_xchg", "atomic_inc", "atomic_dec",
    "atomic_cmpxchg", "atomic_min", "atomic_max", "atomic_and", "atomic_or",
    "atomic_xor", "atom_add", "atom_sub", "atom_xchg", "atom_inc",
    "atom_dec", "atom_cmpxchg", "atom_min", "atom_max", "atom_and",
    "atom_or", "atom_xor",
};

/* Constructs the CUDA backend cannot run, and why. */
static const struct {
    const char *name;
    const char *why;
} tr_unsupported[] = {
    {"image1d_t", "images are not supported by the CUDA backend"},
    {"image1d_array_t", "images are not supported by the CUDA backend"},
    {"image1d_buffer_t", "images are not supported by the CUDA backend"},
    {"image2d_t", "images are not supported by the CUDA backend"},
    {"image2d_array_t", "images are not supported by the CUDA backend"},
    {"image3d_t", "images are not supported by the CUDA backend"},
    {"image2d_depth_t", "images are not supported by the CUDA backend"},
    {"sampler_t", "samplers are not supported by the CUDA backend"},
    {"read_imagef", "images are not supported by the CUDA backend"},
    {"read_imagei", "images are not supported by the CUDA backend"},
    {"read_imageui", "images are not supported by the CUDA backend"},
    {"read_imageh", "images are not supported by the CUDA backend"},
    {"write_imagef", "images are not supported by the CUDA backend"},
    {"write_imagei", "images are not supported by the CUDA backend"},
    {"write_imageui", "images are not supported by the CUDA backend"},
    {"get_image_width", "images are not supported by the CUDA backend"},
    {"get_image_height", "images are not supported by the CUDA backend"},
    {"get_image_depth", "images are not supported by the CUDA backend"},
    {"pipe", "pipes (OpenCL 2.0) are not supported by the CUDA backend"},
    {"read_pipe", "pipes (OpenCL 2.0) are not supported by the CUDA backend"},
    {"write_pipe", "pipes (OpenCL 2.0) are not supported by the CUDA backend"},
    {"enqueue_kernel",
     "device-side enqueue (OpenCL 2.0) is not supported by the CUDA backend"},
    {"queue_t",
     "device-side enqueue (OpenCL 2.0) is not supported by the CUDA backend"},
    {"clk_event_t",
     "device-side enqueue (OpenCL 2.0) is not supported by the CUDA backend"},
    {"ndrange_t",
     "device-side enqueue (OpenCL 2.0) is not supported by the CUDA backend"},
    {"get_sub_group_size",
     "sub-groups are not supported by the CUDA backend"},
    {"get_sub_group_local_id",
     "sub-groups are not supported by the CUDA backend"},
    {"sub_group_reduce_add",
     "sub-groups are not supported by the CUDA backend"},
    {"work_group_reduce_add",
     "work-group functions (OpenCL 2.0) are not supported by the CUDA "
     "backend"},
};

static void tr_intern_names(tr_state *st)
{
    for (size_t i = 0; i < sizeof tr_builtins / sizeof tr_builtins[0]; ++i)
        tr_flag_set(st, clc_intern(st->interner, tr_builtins[i],
                                   strlen(tr_builtins[i])),
                    TR_IDENT_BUILTIN);
    for (size_t i = 0; i < sizeof tr_unsupported / sizeof tr_unsupported[0];
         ++i)
        tr_flag_set(st, clc_intern(st->interner, tr_unsupported[i].name,
                                   strlen(tr_unsupported[i].name)),
                    TR_IDENT_UNSUPPORTED);
    /* Ordinary names in OpenCL C, built-in variables, types and
     * functions in CUDA (code ported from CUDA defines its own
     * make_float2 or atomicAdd). */
    static const char *const cuda_names[] = {
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
        "atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax",
        "atomicInc", "atomicDec", "atomicCAS", "atomicAnd", "atomicOr",
        "atomicXor", "__syncthreads", "__threadfence", "__threadfence_block"};
    for (size_t i = 0; i < sizeof cuda_names / sizeof cuda_names[0]; ++i)
        tr_flag_set(st, clc_intern(st->interner, cuda_names[i],
                                   strlen(cuda_names[i])),
                    TR_IDENT_CUDA_RESERVED);
    /* CUDA's vector types the OpenCL names do not cover (int1,
     * longlong2...) and their make_ functions */
    static const char *const cuda_scalars[] = {
        "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
        "longlong", "ulonglong", "float", "double"};
    for (size_t k = 0; k < sizeof cuda_scalars / sizeof cuda_scalars[0]; ++k)
        for (int width = 1; width <= 4; ++width) {
            char name[32];
            int n = snprintf(name, sizeof name, "make_%s%d", cuda_scalars[k],
                             width);
            tr_flag_set(st, clc_intern(st->interner, name, (size_t)n),
                        TR_IDENT_CUDA_RESERVED);
            if (width == 1 || k == 8 || k == 9) {
                n = snprintf(name, sizeof name, "%s%d", cuda_scalars[k], width);
                tr_flag_set(st, clc_intern(st->interner, name, (size_t)n),
                            TR_IDENT_CUDA_RESERVED);
            }
        }
    static const char *const casts[] = {"to_global", "to_local", "to_private"};
    for (size_t i = 0; i < 3; ++i)
        tr_flag_set(st, clc_intern(st->interner, casts[i], strlen(casts[i])),
                    TR_IDENT_ADDRESS_CAST);
}

static const char *tr_unsupported_why(const tr_state *st, size_t i)
{
    const clc_ident *ident = tr_ident(st, i);
    for (size_t k = 0; k < sizeof tr_unsupported / sizeof tr_unsupported[0];
         ++k)
        if (strlen(tr_unsupported[k].name) == ident->length &&
            memcmp(tr_unsupported[k].name, ident->name, ident->length) == 0)
            return tr_unsupported[k].why;
    return "not supported by the CUDA backend";
}

/* A file-scope `constant sampler_t name = ...;` that nothing uses (shared
 * headers declare them for every kernel, darktable's for one) is dropped
 * instead of refusing a program whose kernels only use buffers; a used one
 * is refused where it is declared. */
static void tr_drop_unused_samplers(tr_state *st)
{
    size_t depth = 0, begin = 0;
    for (size_t i = 0; i < st->count; ++i) {
        if (tr_is_punct(st, i, P_LBRACE)) {
            ++depth;
            continue;
        }
        if (tr_is_punct(st, i, P_RBRACE)) {
            depth -= depth > 0;
            if (depth == 0)
                begin = i + 1;
            continue;
        }
        if (depth == 0 && tr_is_punct(st, i, P_SEMI)) {
            begin = i + 1;
            continue;
        }
        if (depth != 0 || !tr_ident_is(st, i, "sampler_t") ||
            !tr_is_ident(st, i + 1) ||
            !(tr_is_punct(st, i + 2, P_ASSIGN) || tr_is_punct(st, i + 2, P_SEMI)))
            continue;
        size_t end = i + 1;
        while (end < st->count && !tr_is_punct(st, end, P_SEMI)) {
            if (tr_is_open(st, end) && st->match[end] != SIZE_MAX)
                end = st->match[end];
            ++end;
        }
        if (end >= st->count)
            return;
        int32_t name = st->tokens[i + 1].ident;
        int used = 0;
        for (size_t j = 0; j < st->count && !used; ++j)
            used = (j < begin || j > end) && tr_is_ident(st, j) &&
                   st->tokens[j].ident == name;
        if (!used)
            for (size_t j = begin; j <= end; ++j)
                st->replace[j] = "";
        begin = end + 1;
        i = end;
    }
}

/* ---- C's implicit pointer conversions ------------------------------------------ */

/* C converts an object pointer to any other implicitly (int * to uint *,
 * float4 * to float *, const T * to T *: compilers warn), and OpenCL C code
 * relies on it; C++ refuses.  Arguments to a program's own functions'
 * pointer parameters, and initialisers of local pointer variables, go
 * through the prelude's kl_cptr(), which converts to whatever pointer the
 * destination is. */
/* Which of the first 64 parameters of a function type are pointers. */
static uint64_t tr_pointer_params(const clc_type *function)
{
    uint64_t pointers = 0;
    for (size_t p = 0; p < function->param_count && p < 64; ++p)
        if (clc_type_is_pointer(function->params[p]))
            pointers |= UINT64_C(1) << p;
    return pointers;
}

/* The function a call at `open` calls, with its pointer parameters in
 * *pointers; NULL when the name is no function of the program where it
 * stands, or when its declarations disagree about which parameters are
 * pointers (overloads). */
static const clc_symbol *tr_called_function(const tr_state *st, size_t open,
                                            uint64_t *pointers)
{
    const clc_symbol *function = clc_symbol_at(&st->symbols, open - 1);
    if (function == NULL || function->kind != CLC_SYMBOL_FUNCTION)
        return NULL;
    *pointers = tr_pointer_params(function->type);
    for (const clc_symbol *other = function->hidden; other != NULL;
         other = other->hidden)
        if (other->kind == CLC_SYMBOL_FUNCTION &&
            tr_pointer_params(other->type) != *pointers)
            return NULL;
    return function;
}

/* At the '(' of a call to one of the program's functions: wraps each
 * argument for a pointer parameter in kl_cptr(...). */
static void tr_pointer_arguments(tr_state *st, size_t open)
{
    uint64_t pointers = 0;
    size_t close = st->match[open];
    if (tr_called_function(st, open, &pointers) == NULL || pointers == 0 ||
        close == SIZE_MAX)
        return;
    /* `type name(...)` inside a body is a declaration, not a call */
    if (open >= 2 && tr_is_type_word(st, open - 2))
        return;
    size_t param = 0, begin = open + 1;
    for (size_t j = open + 1; j <= close; ++j) {
        if (j < close && tr_is_open(st, j) && st->match[j] != SIZE_MAX) {
            j = st->match[j];
            continue;
        }
        if (j == close || tr_is_punct(st, j, P_COMMA)) {
            if (j > begin && param < 64 &&
                (pointers >> param & 1))
                tr_wrap(st, begin, j - 1, "kl_cptr(", ")");
            ++param;
            begin = j + 1;
        }
    }
}

/* At the '=' of `type *name = initialiser` in a body: wraps the
 * initialiser in kl_cptr(...). */
static size_t tr_assignment_end(const tr_state *st, size_t begin);

static void tr_pointer_initialiser(tr_state *st, size_t assign)
{
    size_t k = assign - 1;
    if (assign < 3 || !tr_is_ident(st, k) || tr_is_type_word(st, k) ||
        tr_is_punct(st, k - 1, P_DOT) || tr_is_punct(st, k - 1, P_ARROW))
        return;
    --k;
    while (k > 0 && tr_is_qualifier(st, k))
        --k;
    if (!tr_is_punct(st, k, P_STAR))
        return;
    while (k > 0 && tr_is_punct(st, k, P_STAR))
        --k;
    /* the declaration's type: `x * y = z` is no expression (x * y is not
     * an lvalue), but `return *p = v` is */
    if (!tr_is_ident(st, k) || tr_is_word(st, k, W_return) ||
        tr_is_word(st, k, W_case) || tr_is_word(st, k, W_sizeof) ||
        tr_is_word(st, k, W_else) || tr_is_word(st, k, W_do))
        return;
    size_t begin = assign + 1;
    if (begin < st->count && !tr_is_punct(st, begin, P_COMMA) &&
        !tr_is_punct(st, begin, P_SEMI) && !tr_is_close(st, begin))
        tr_wrap(st, begin, tr_assignment_end(st, begin), "kl_cptr(", ")");
}

/* ---- swizzles ------------------------------------------------------------------ */

enum { SW_LO = -1, SW_HI = -2, SW_EVEN = -3, SW_ODD = -4 };

static int tr_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses a swizzle selector.  Returns the number of indices (written to
 * `indices`), or -1 for lo/hi/even/odd (*op set), or 0 when `name` is not
 * a selector. */
static int tr_parse_selector(const clc_ident *ident, int *indices, int *op)
{
    const char *s = ident->name;
    size_t n = ident->length;
    if (n == 2 && memcmp(s, "lo", 2) == 0) { *op = SW_LO; return -1; }
    if (n == 2 && memcmp(s, "hi", 2) == 0) { *op = SW_HI; return -1; }
    if (n == 4 && memcmp(s, "even", 4) == 0) { *op = SW_EVEN; return -1; }
    if (n == 3 && memcmp(s, "odd", 3) == 0) { *op = SW_ODD; return -1; }
    if (n >= 2 && n <= 17 && (s[0] == 's' || s[0] == 'S')) {
        for (size_t k = 1; k < n; ++k) {
            int d = tr_hex_digit(s[k]);
            if (d < 0)
                return 0;
            indices[k - 1] = d;
        }
        return (int)n - 1;
    }
    if (n >= 1 && n <= 4) {
        for (size_t k = 0; k < n; ++k) {
            switch (s[k]) {
            case 'x': indices[k] = 0; break;
            case 'y': indices[k] = 1; break;
            case 'z': indices[k] = 2; break;
            case 'w': indices[k] = 3; break;
            default: return 0;
            }
        }
        return (int)n;
    }
    return 0;
}

static const char *const tr_component_members[16] = {
    "x", "y", "z", "w", "s4", "s5", "s6", "s7",
    "s8", "s9", "sa", "sb", "sc", "sd", "se", "sf"};

/* Whether the '.' at `dot` selects a struct's or union's member rather
 * than a vector's components: by the type of the object before it, or,
 * where that cannot be told, by whether some struct has a member of the
 * name. */
static int tr_member_access(const tr_state *st, size_t dot)
{
    const clc_symbols *symbols = &st->symbols;
    if (dot > 0) {
        const clc_type *object = clc_expr_type(
            symbols, clc_postfix_begin(symbols, dot - 1), dot);
        if (object != NULL && (object->kind == CLC_TYPE_STRUCT ||
                               object->kind == CLC_TYPE_VECTOR))
            return object->kind == CLC_TYPE_STRUCT;
    }
    return clc_symbols_member_name(symbols, st->tokens[dot + 1].ident);
}

/* A chain of selectors starting at the '.' at `dot`: rewrites it into one
 * member access or one kl_swc<...>() call.  Returns the index of the last
 * token of the chain. */
static size_t tr_swizzle_chain(tr_state *st, size_t dot)
{
    int codes[512];
    size_t code_count = 0;
    int explicit_only = 1;
    int composed[16];
    int composed_count = -1; /* -1: identity so far */
    size_t last = dot;
    size_t i = dot;
    while (tr_is_punct(st, i, P_DOT) && tr_is_ident(st, i + 1)) {
        if (tr_member_access(st, i))
            break;
        int indices[16], op = 0;
        int n = tr_parse_selector(tr_ident(st, i + 1), indices, &op);
        if (n == 0)
            break;
        if (code_count + 18 >= sizeof codes / sizeof codes[0])
            tr_fail(st, i, "swizzle chain too long");
        if (n < 0) {
            codes[code_count++] = op;
            explicit_only = 0;
        } else {
            codes[code_count++] = 100 + n;
            for (int k = 0; k < n; ++k)
                codes[code_count++] = indices[k];
            if (explicit_only) {
                int next[16];
                for (int k = 0; k < n; ++k) {
                    if (composed_count < 0) {
                        next[k] = indices[k];
                    } else if (indices[k] < composed_count) {
                        next[k] = composed[indices[k]];
                    } else {
                        tr_fail(st, i + 1,
                                "swizzle '.%.*s' selects component %d of a "
                                "%d-component vector",
                                (int)tr_ident(st, i + 1)->length,
                                tr_ident(st, i + 1)->name, indices[k],
                                composed_count);
                    }
                }
                memcpy(composed, next, sizeof next);
                composed_count = n;
            }
        }
        last = i + 1;
        i += 2;
    }
    if (last == dot)
        return dot;
    /* Keep the first '.', drop the rest of the chain's tokens. */
    for (size_t k = dot + 1; k <= last; ++k)
        st->replace[k] = "";
    if (explicit_only && composed_count == 1) {
        st->replace[dot + 1] = tr_component_members[composed[0]];
        return last;
    }
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    clc_buffer_puts(&text, "kl_swc<");
    for (size_t k = 0; k < code_count; ++k)
        clc_buffer_printf(&text, k ? ",%d" : "%d", codes[k]);
    clc_buffer_puts(&text, ">()");
    st->replace[dot + 1] = clc_buffer_text(&text);
    return last;
}

/* ---- conversions and vector loads by name -------------------------------------------- */

/* "int4" -> the renamed type text, if `name` (length n) is an OpenCL
 * arithmetic type name usable in convert_/as_. */
static const char *tr_type_name_text(tr_state *st, const char *name, size_t n)
{
    static const char *const scalars[] = {"char", "uchar", "short", "ushort",
                                          "int", "uint", "long", "ulong",
                                          "float", "double", "half"};
    for (size_t k = 0; k < sizeof scalars / sizeof scalars[0]; ++k) {
        size_t m = strlen(scalars[k]);
        if (n < m || memcmp(name, scalars[k], m) != 0)
            continue;
        const char *rest = name + m;
        size_t rest_n = n - m;
        if (rest_n == 0)
            return strcmp(scalars[k], "half") == 0 ? "kl_half" : scalars[k];
        if ((rest_n == 1 && strchr("234", rest[0]) && rest[0] != 0) ||
            (rest_n == 1 && rest[0] == '8') ||
            (rest_n == 2 && rest[0] == '1' && rest[1] == '6'))
            return tr_printf(st, "kl_%.*s", (int)n, name);
    }
    return NULL;
}

/* convert_T[_sat][_rtX], as_T, vloadN, vstoreN, vload_half[N],
 * vloada_halfN, vstore[a]_half[N][_rtX]: the replacement text, or NULL. */
static const char *tr_named_builtin(tr_state *st, size_t i)
{
    const clc_ident *ident = tr_ident(st, i);
    const char *s = ident->name;
    size_t n = ident->length;
    if (n > 8 && memcmp(s, "convert_", 8) == 0) {
        const char *rest = s + 8;
        size_t rest_n = n - 8;
        int mode = 0, sat = 0;
        static const char *const modes[] = {"_rte", "_rtz", "_rtp", "_rtn"};
        for (int m = 0; m < 4; ++m)
            if (rest_n > 4 && memcmp(rest + rest_n - 4, modes[m], 4) == 0) {
                mode = m + 1;
                rest_n -= 4;
                break;
            }
        if (rest_n > 4 && memcmp(rest + rest_n - 4, "_sat", 4) == 0) {
            sat = 1;
            rest_n -= 4;
        }
        const char *type = tr_type_name_text(st, rest, rest_n);
        if (type == NULL)
            return NULL;
        return tr_printf(st, "kl_convert<%s, %d, %d>", type, sat, mode);
    }
    if (n > 3 && memcmp(s, "as_", 3) == 0) {
        const char *type = tr_type_name_text(st, s + 3, n - 3);
        return type ? tr_printf(st, "kl_as<%s>", type) : NULL;
    }
    /* vloadN / vstoreN */
    for (int store = 0; store < 2; ++store) {
        const char *base = store ? "vstore" : "vload";
        size_t m = strlen(base);
        if (n <= m || memcmp(s, base, m) != 0)
            continue;
        const char *rest = s + m;
        size_t rest_n = n - m;
        int width = 0;
        if (rest_n == 1 && strchr("2348", rest[0]) && rest[0] != 0)
            width = rest[0] - '0';
        else if (rest_n == 2 && rest[0] == '1' && rest[1] == '6')
            width = 16;
        if (width)
            return tr_printf(st, "kl_%s<%d>", base, width);
        /* _half, a_half */
        int aligned = 0;
        if (rest_n >= 1 && rest[0] == 'a') {
            aligned = 1;
            ++rest;
            --rest_n;
        }
        if (rest_n < 5 || memcmp(rest, "_half", 5) != 0)
            continue;
        rest += 5;
        rest_n -= 5;
        width = 1;
        if (rest_n >= 1 && strchr("2348", rest[0]) && rest[0] != 0 &&
            (rest_n == 1 || rest[1] == '_')) {
            width = rest[0] - '0';
            rest += 1;
            rest_n -= 1;
        } else if (rest_n >= 2 && rest[0] == '1' && rest[1] == '6') {
            width = 16;
            rest += 2;
            rest_n -= 2;
        }
        int mode = 0;
        if (rest_n == 4) {
            static const char *const modes[] = {"_rte", "_rtz", "_rtp",
                                                "_rtn"};
            for (int k = 0; k < 4; ++k)
                if (memcmp(rest, modes[k], 4) == 0)
                    mode = k + 1;
            if (mode == 0 || !store)
                continue;
        } else if (rest_n != 0) {
            continue;
        }
        if (!store)
            return tr_printf(st, "kl_vload%s_half<%d>", aligned ? "a" : "",
                             width);
        return tr_printf(st, "kl_vstore%s_half<%d, %d>", aligned ? "a" : "",
                         width, mode);
    }
    return NULL;
}

/* ---- expression extents ------------------------------------------------------------- */

static int tr_is_assignment(const tr_state *st, size_t i)
{
    if (i >= st->count || st->tokens[i].kind != CLC_TOK_PUNCT)
        return 0;
    switch (st->tokens[i].punct) {
    case P_ASSIGN: case P_MUL_ASSIGN: case P_DIV_ASSIGN: case P_MOD_ASSIGN:
    case P_ADD_ASSIGN: case P_SUB_ASSIGN: case P_SHL_ASSIGN:
    case P_SHR_ASSIGN: case P_AND_ASSIGN: case P_XOR_ASSIGN:
    case P_OR_ASSIGN:
        return 1;
    default:
        return 0;
    }
}

/* The last token of the shift's right operand (an additive expression)
 * that starts at `begin`. */
static size_t tr_additive_end(const tr_state *st, size_t begin)
{
    size_t i = begin;
    size_t last = begin;
    while (i < st->count) {
        const clc_token *t = &st->tokens[i];
        if (tr_is_open(st, i)) {
            last = st->match[i];
            i = last + 1;
            continue;
        }
        if (t->kind == CLC_TOK_PUNCT) {
            switch (t->punct) {
            case P_SHL: case P_SHR: case P_LT: case P_GT: case P_LE:
            case P_GE: case P_EQ: case P_NE: case P_CARET: case P_PIPE:
            case P_ANDAND: case P_OROR: case P_QUESTION: case P_COLON:
            case P_COMMA: case P_SEMI: case P_RPAREN: case P_RBRACKET:
            case P_RBRACE:
                return last;
            case P_AMP:
                /* binary & ends it; a unary & cannot follow an operand */
                if (i > begin)
                    return last;
                break;
            default:
                if (tr_is_assignment(st, i))
                    return last;
                break;
            }
        }
        if (t->kind == CLC_TOK_PRAGMA || t->kind == CLC_TOK_EOF)
            return last;
        last = i;
        ++i;
    }
    return last;
}

/* The last token of an assignment expression starting at `begin`. */
static size_t tr_assignment_end(const tr_state *st, size_t begin)
{
    size_t i = begin, last = begin;
    while (i < st->count) {
        if (tr_is_open(st, i)) {
            last = st->match[i];
            i = last + 1;
            continue;
        }
        if (tr_is_punct(st, i, P_COMMA) || tr_is_punct(st, i, P_SEMI) ||
            tr_is_close(st, i) || st->tokens[i].kind == CLC_TOK_PRAGMA)
            return last;
        last = i;
        ++i;
    }
    return last;
}

/* The first token of the condition of the ?: at `question`. */
static size_t tr_condition_begin(const tr_state *st, size_t question)
{
    size_t i = question;
    while (i > 0) {
        size_t j = i - 1;
        if (tr_is_close(st, j)) {
            i = st->match[j];
            continue;
        }
        if (tr_is_open(st, j) || tr_is_punct(st, j, P_SEMI) ||
            tr_is_punct(st, j, P_COMMA) || tr_is_punct(st, j, P_QUESTION) ||
            tr_is_punct(st, j, P_COLON) || tr_is_assignment(st, j) ||
            tr_is_word(st, j, W_return) || tr_is_word(st, j, W_case) ||
            tr_is_word(st, j, W_else) || tr_is_word(st, j, W_do) ||
            st->tokens[j].kind == CLC_TOK_PRAGMA)
            return i;
        i = j;
    }
    return 0;
}

/* Fills st->conditional in one pass over the tokens, with two stacks per
 * bracket depth: the '?' still waiting for their ':', and the third
 * operands still open.  A ':' first ends the open operands begun after the
 * waiting '?' it then takes; ')' ']' '}' and ';' end everything of their
 * depth, and ',', an assignment or a pragma ends the open operands. */
static void tr_conditionals_find(tr_state *st)
{
    size_t n = st->count;
    st->conditional = clc_arena_alloc(st->arena, (n + 1) * sizeof(size_t));
    size_t *questions = clc_arena_alloc(st->arena, (n + 1) * sizeof(size_t));
    size_t *operands = clc_arena_alloc(st->arena, (n + 1) * sizeof(size_t));
    size_t *depth_of = clc_arena_alloc(st->arena, (n + 1) * sizeof(size_t));
    size_t question_count = 0, operand_count = 0, depth = 0;
    for (size_t i = 0; i <= n; ++i) {
        int ends_all = i == n || tr_is_close(st, i) || tr_is_punct(st, i, P_SEMI);
        int ends_operands =
            ends_all || tr_is_punct(st, i, P_COMMA) ||
            tr_is_assignment(st, i) || st->tokens[i].kind == CLC_TOK_PRAGMA;
        if (i < n)
            st->conditional[i] = SIZE_MAX;
        if (ends_operands || tr_is_punct(st, i, P_COLON)) {
            size_t waiting = question_count > 0 &&
                                     depth_of[questions[question_count - 1]] == depth
                                 ? questions[question_count - 1]
                                 : SIZE_MAX;
            while (operand_count > 0 &&
                   depth_of[operands[operand_count - 1]] == depth &&
                   (ends_operands || waiting == SIZE_MAX ||
                    waiting < operands[operand_count - 1]))
                st->conditional[operands[--operand_count]] = i - 1;
            if (ends_all)
                while (question_count > 0 &&
                       depth_of[questions[question_count - 1]] == depth)
                    --question_count;
            else if (!ends_operands && waiting != SIZE_MAX) {
                st->conditional[waiting] = i;
                --question_count;
                depth_of[i] = depth;
                operands[operand_count++] = i;
            }
        }
        if (i == n)
            break;
        if (tr_is_open(st, i))
            ++depth;
        else if (tr_is_close(st, i) && depth > 0)
            --depth;
        else if (tr_is_punct(st, i, P_QUESTION)) {
            depth_of[i] = depth;
            questions[question_count++] = i;
        }
    }
}

/* The ':' that belongs to the ?: at `question`, or SIZE_MAX. */
static size_t tr_matching_colon(tr_state *st, size_t question)
{
    if (st->conditional == NULL)
        tr_conditionals_find(st);
    return st->conditional[question];
}

/* The last token of the third operand of a ?: whose ':' is at `colon`. */
static size_t tr_conditional_end(const tr_state *st, size_t colon)
{
    return st->conditional[colon];
}

/* Whether the name at i may stand for a vector where it is: a vector type
 * or a vector typedef, an object of a vector type (or an array of or a
 * pointer to them) or a function returning one; a member some struct
 * declares with a vector type. */
static int tr_names_vector(const tr_state *st, size_t i)
{
    if (tr_ident(st, i)->info.width != 0)
        return 1;
    const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
    if (symbol == NULL)
        return i > 0 &&
               (tr_is_punct(st, i - 1, P_DOT) ||
                tr_is_punct(st, i - 1, P_ARROW)) &&
               clc_symbols_vector_member_name(&st->symbols,
                                              st->tokens[i].ident);
    /* what a call, an index or a dereference of it may give */
    const clc_type *type = symbol->type;
    if (type != NULL && type->kind == CLC_TYPE_FUNCTION)
        type = type->base;
    while (clc_type_is_pointer(type))
        type = type->base;
    return clc_type_is_vector(type);
}

/* Whether tokens [begin, end) may have a vector type: their type where
 * the typer can tell it, else whether they name something that may be a
 * vector. */
static int tr_may_be_vector(const tr_state *st, size_t begin, size_t end)
{
    int vector = clc_expr_is_vector(&st->symbols, begin, end);
    if (vector >= 0)
        return vector;
    for (size_t i = begin; i < end; ++i) {
        if (!tr_is_ident(st, i))
            continue;
        if (tr_names_vector(st, i))
            return 1;
        /* relational built-ins on vectors give vectors */
        if (tr_is_punct(st, i + 1, P_LPAREN) &&
            (tr_ident_is(st, i, "isequal") || tr_ident_is(st, i, "isless") ||
             tr_ident_is(st, i, "isgreater") || tr_ident_is(st, i, "isnan") ||
             tr_ident_is(st, i, "islessequal") ||
             tr_ident_is(st, i, "isgreaterequal") ||
             tr_ident_is(st, i, "isnotequal") || tr_ident_is(st, i, "isinf") ||
             tr_ident_is(st, i, "isfinite") || tr_ident_is(st, i, "signbit") ||
             tr_ident_is(st, i, "vload2") || tr_ident_is(st, i, "vload4")))
            return 1;
        const clc_ident *ident = tr_ident(st, i);
        if (ident->length > 8 && memcmp(ident->name, "convert_", 8) == 0)
            return 1;
    }
    return 0;
}

/* ---- shifts and conditionals ---------------------------------------------------------- */

static int tr_small_literal(const tr_state *st, size_t i)
{
    const clc_token *t = &st->tokens[i];
    if (t->kind != CLC_TOK_NUMBER)
        return 0;
    char text[64];
    if (t->length >= sizeof text)
        return 0;
    memcpy(text, t->text, t->length);
    text[t->length] = '\0';
    if (strpbrk(text, ".eEpP") != NULL && !(text[0] == '0' &&
                                            (text[1] == 'x' || text[1] == 'X')))
        return 0;
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 0);
    while (end && (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L'))
        ++end;
    return end && *end == '\0' && value < 32;
}

static void tr_shift(tr_state *st, size_t op)
{
    size_t begin = op + 1;
    if (begin >= st->count)
        return;
    size_t end = tr_is_assignment(st, op) ? tr_assignment_end(st, begin)
                                          : tr_additive_end(st, begin);
    if (end < begin)
        return;
    if (end == begin && tr_small_literal(st, begin))
        return;
    tr_wrap(st, begin, end, "kl_shift_count(", ")");
}

static void tr_conditional(tr_state *st, size_t question)
{
    size_t colon = tr_matching_colon(st, question);
    if (colon == SIZE_MAX)
        return;
    size_t begin = tr_condition_begin(st, question);
    if (begin >= question || !tr_may_be_vector(st, begin, question))
        return;
    size_t end = tr_conditional_end(st, colon);
    if (end <= colon)
        return;
    tr_insert_add(st, begin, 0, begin, end, "kl_tern(");
    st->replace[question] = ", [&]() { return (";
    st->replace[colon] = "); }, [&]() { return (";
    tr_insert_add(st, end, 1, begin, end, "); })");
}

/* ---- kernel declarations ---------------------------------------------------------------- */

static size_t tr_scalar_size(const tr_state *st, size_t i)
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
static void tr_builtin_astype(tr_state *st, size_t at)
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
    st->replace[at] = tr_printf(st, "kl_as<%s>", tr_type_text(st, comma + 1, close));
    for (size_t j = comma; j < close; ++j)
        st->replace[j] = "";
}

/* GCC built-ins that clang's OpenCL headers expand to (INFINITY is
 * __builtin_inff()) and that NVRTC lacks: CUDA's function of that job, or
 * the prelude's kl_builtin_X where CUDA has none.  NULL for others. */
static const char *tr_gnu_builtin(tr_state *st, const clc_token *t)
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
static void tr_enum(tr_state *st, size_t at)
{
    size_t next = at + 1;
    if (tr_is_ident(st, next) && !tr_is_punct(st, next + 1, P_LBRACE)) {
        st->replace[at] = "";
        st->replace[next] = "int";
        return;
    }
    if (tr_is_ident(st, next))
        ++next;
    if (!tr_is_punct(st, next, P_LBRACE) || st->match[next] == SIZE_MAX)
        return;
    if (at > 0 && tr_is_word(st, at - 1, W_typedef)) {
        st->replace[at - 1] = "";
        tr_insert_add(st, st->match[next], 1, at - 1, st->match[next],
                      "; typedef int");
    }
}

/* `struct pair {...} make_pair(int v) {...}` defines the struct in the
 * function's return type, which C++ forbids: `struct pair {...}; struct
 * pair make_pair(...)`. */
static void tr_struct_return(tr_state *st, size_t at)
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

/* One kernel parameter, tokens [begin, end). */
static void tr_kernel_param(tr_state *st, size_t begin, size_t end,
                            clc_param *param, size_t body_open)
{
    int space = 0;
    size_t stars = 0, name_at = SIZE_MAX;
    /* `global float a[]` (or a[N]) is the pointer `global float *a`, as
     * for any C function parameter */
    size_t array_open = SIZE_MAX;
    if (end > begin + 2 && tr_is_punct(st, end - 1, P_RBRACKET) &&
        st->match[end - 1] != SIZE_MAX && st->match[end - 1] > begin &&
        tr_is_ident(st, st->match[end - 1] - 1)) {
        array_open = st->match[end - 1];
        for (size_t i = array_open; i < end; ++i)
            st->replace[i] = "";
        end = array_open;
        ++stars;
    }
    for (size_t i = begin; i < end; ++i) {
        int s;
        if (tr_is_address_space(st, i, &s) && s != 0)
            space = s;
        if (tr_is_punct(st, i, P_STAR))
            ++stars;
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
    size_t type_end = end;
    if (name_at != SIZE_MAX && name_at + 1 == end) {
        tr_copy_name(param->name, sizeof param->name, &st->tokens[name_at]);
        type_end = name_at;
    } else {
        name_at = SIZE_MAX;
    }
    /* "float*", "uint", "float4", "struct point" as OpenCL spells them. */
    clc_buffer type;
    clc_buffer_init(&type, st->arena);
    size_t scalar_size = 0, vector_size = 0, type_words = 0;
    int other_type = 0;
    for (size_t i = begin; i < type_end; ++i) {
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
    if (array_open != SIZE_MAX)
        clc_buffer_puts(&type, "*");
    size_t type_length = type.length < sizeof param->type_name - 1
                             ? type.length
                             : sizeof param->type_name - 1;
    memcpy(param->type_name, clc_buffer_text(&type), type_length);
    param->type_name[type_length] = '\0';

    if (stars > 0) {
        param->size = 8;
        if (space == CLC_PARAM_LOCAL) {
            param->kind = CLC_PARAM_LOCAL;
            if (name_at == SIZE_MAX)
                tr_fail(st, begin, "a __local kernel parameter needs a name");
            if (stars > 1)
                tr_refuse(st, begin, "cannot translate a __local pointer to a "
                                   "pointer as a kernel parameter");
            /* `__local T *p` -> `unsigned int kl_local_offset_p`, and the
             * body starts by pointing p into the dynamic shared memory. */
            size_t star = begin;
            while (star < name_at && !tr_is_punct(st, star, P_STAR))
                ++star;
            const char *element = tr_type_text(st, begin, star);
            for (size_t i = begin; i < end; ++i)
                st->replace[i] = "";
            st->replace[name_at] = tr_printf(
                st, "unsigned int kl_local_offset_%s", param->name);
            if (body_open != SIZE_MAX)
                tr_insert_add(st, body_open, 1, body_open, body_open,
                              tr_printf(st,
                                        " %s *%s = (%s *)(kl_dynamic_smem + "
                                        "kl_local_offset_%s);",
                                        element, param->name, element,
                                        param->name));
            return;
        }
        if (array_open != SIZE_MAX)
            tr_insert_add(st, array_open - 1, 0, array_open - 1,
                          array_open - 1, "*");
        param->kind = space == CLC_PARAM_CONSTANT ? CLC_PARAM_CONSTANT
                                                  : CLC_PARAM_GLOBAL;
        if (space == 0)
            tr_fail(st, begin, "kernel parameter '%s' is a pointer without "
                               "an address space (__global, __constant or "
                               "__local)",
                    param->name);
        return;
    }
    param->kind = CLC_PARAM_VALUE;
    if (space == CLC_PARAM_LOCAL)
        tr_fail(st, begin, "a __local kernel parameter must be a pointer");
    if (!other_type && type_words > 0)
        param->size = vector_size ? vector_size : scalar_size;
    if (tr_is_word(st, begin, W_bool) && type_words == 1)
        tr_fail(st, begin, "a kernel parameter cannot be bool (OpenCL C "
                           "6.9.k): use int or uchar");
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
static size_t tr_attribute(tr_state *st, size_t at, unsigned *reqd)
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
            st->replace[i] = "";
    return close;
}

/* A kernel declaration whose tokens start at `begin` and whose `__kernel`
 * is at `kernel_word`.  Returns the index of the parameter list's ')'. */
static size_t tr_kernel_declaration(tr_state *st, size_t begin, size_t kernel_word)
{
    unsigned reqd[3] = {0, 0, 0};
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
    size_t name_at = open - 1;
    size_t close = st->match[open];
    int returns_void = 0;
    for (size_t i = begin; i < name_at; ++i) /* `void __kernel f` too */
        if (tr_is_word(st, i, W_void))
            returns_void = 1;
    if (!returns_void)
        tr_fail(st, kernel_word, "a __kernel must return void");

    size_t body_open = SIZE_MAX;
    size_t after = close + 1;
    while (tr_is_word(st, after, W___attribute__) ||
           tr_is_word(st, after, W___attribute))
        after = tr_attribute(st, after, reqd) + 1;
    if (tr_is_punct(st, after, P_LBRACE))
        body_open = after;

    if (begin < kernel_word) {
        st->replace[kernel_word] = "";
        tr_insert_add(st, begin, 0, begin, begin, "extern \"C\" __global__");
    } else {
        st->replace[kernel_word] = "extern \"C\" __global__";
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

    int empty = (open + 1 == close) ||
                (open + 2 == close && tr_is_word(st, open + 1, W_void));
    if (st->uses_work_dim) {
        /* The hidden parameter, after the user's (prototypes too); each
         * work-item keeps it where get_work_dim() reads it
         * (prelude_cuda.cuh). */
        if (open + 2 == close && tr_is_word(st, open + 1, W_void))
            st->replace[open + 1] = "";
        tr_insert_add(st, close, 0, close, close,
                      empty ? "unsigned int kl_work_dim"
                            : ", unsigned int kl_work_dim");
        if (body_open != SIZE_MAX)
            tr_insert_add(st, body_open, 1, body_open, body_open,
                          " kl_work_dim_set(kl_work_dim);");
    }

    /* Only definitions are recorded: a prototype has no code. */
    if (body_open == SIZE_MAX)
        return close;
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
    memcpy(kernel->signature.reqd_work_group, reqd, sizeof reqd);
    kernel->body_open = body_open;

    /* Parameters: split at the commas of the list's own depth. */
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
                            &kernel->signature.params[index++], body_open);
            param_begin = i + 1;
        }
    }
    return close;
}

/* Whether the declaration starting at `begin` (file scope) declares a
 * kernel: `__kernel`/`kernel` before its first '(' that is not an
 * attribute's.  Returns the kernel word's index or SIZE_MAX. */
static size_t tr_kernel_word(const tr_state *st, size_t begin)
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
static int tr_qualifies_pointer(const tr_state *st, size_t at)
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
static const char *tr_make_call(tr_state *st, size_t name)
{
    int builtin = tr_ident(st, name)->info.width != 0;
    return tr_printf(st, "kl_make<%s%.*s>(", builtin ? "kl_" : "",
                     (int)st->tokens[name].length, st->tokens[name].text);
}

/* A C99 compound literal `(T){...}` at `open`: C++ spells it `T{...}`;
 * a vector type's `(float4){1, 2, 3, 4}` becomes a kl_make call.  Only in
 * expression position (after an operator, '(' or `return`), where a
 * parenthesised name followed by '{' can be nothing else. */
static int tr_compound_literal(tr_state *st, size_t open)
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
        st->replace[k] = "";
    st->replace[name + 1] = "";
    if (tr_is_vector_type(st, name)) {
        st->replace[name] = "";
        st->replace[brace] = tr_make_call(st, name);
        st->replace[st->match[brace]] = ")";
    }
    return 1;
}

/* ---- the walk ---------------------------------------------------------------------------- */

static void tr_walk(tr_state *st)
{
    size_t depth = 0;          /* braces */
    size_t declaration_begin = 0;
    int at_declaration_start = 1;
    int function_body = 0;
    for (size_t i = 0; i < st->count; ++i) {
        const clc_token *t = &st->tokens[i];
        if (depth == 0 && at_declaration_start && t->kind != CLC_TOK_PRAGMA) {
            at_declaration_start = 0;
            declaration_begin = i;
            size_t kernel_word = tr_kernel_word(st, i);
            if (kernel_word != SIZE_MAX) {
                /* Rewrite the header wholesale; the walk resumes in the
                 * parameter list for renames inside it. */
                tr_kernel_declaration(st, declaration_begin, kernel_word);
            }
        }
        if (t->kind == CLC_TOK_PUNCT) {
            switch (t->punct) {
            case P_LBRACE:
                /* A function body follows its parameter list (or the
                 * attributes after it); struct bodies and initialisers do
                 * not, and the declaration goes on after their '}'. */
                if (depth == 0)
                    function_body = i > 0 && (tr_is_punct(st, i - 1, P_RPAREN) ||
                                              st->replace[i - 1] != NULL);
                ++depth;
                break;
            case P_RBRACE:
                if (depth > 0)
                    --depth;
                if (depth == 0 && function_body)
                    at_declaration_start = 1;
                break;
            case P_SEMI:
                if (depth == 0)
                    at_declaration_start = 1;
                break;
            case P_DOT:
                if (tr_is_ident(st, i + 1))
                    i = tr_swizzle_chain(st, i);
                break;
            case P_SHL: case P_SHR: case P_SHL_ASSIGN: case P_SHR_ASSIGN:
                tr_shift(st, i);
                break;
            case P_QUESTION:
                if (depth > 0)
                    tr_conditional(st, i);
                break;
            case P_ASSIGN:
                if (depth > 0)
                    tr_pointer_initialiser(st, i);
                break;
            case P_LPAREN:
                if (depth > 0 && i > 0 && tr_is_ident(st, i - 1))
                    tr_pointer_arguments(st, i);
                if (tr_compound_literal(st, i)) {
                    continue;
                }
                /* (vectortype)( ... ) is a vector literal */
                if (tr_is_vector_type(st, i + 1) &&
                    tr_is_punct(st, i + 2, P_RPAREN) &&
                    tr_is_punct(st, i + 3, P_LPAREN)) {
                    st->replace[i] = "";
                    st->replace[i + 1] = "";
                    st->replace[i + 2] = "";
                    st->replace[i + 3] = tr_make_call(st, i + 1);
                    i += 3;
                }
                break;
            default:
                break;
            }
            continue;
        }
        if (t->kind != CLC_TOK_IDENT || st->replace[i] != NULL)
            continue;
        const clc_ident *ident = tr_ident(st, i);
        int flags = tr_flags(st, i);
        int space = 0;
        if (flags & TR_IDENT_UNSUPPORTED)
            tr_refuse(st, i, "cannot translate '%.*s': %s", (int)t->length,
                      t->text, tr_unsupported_why(st, i));
        if (tr_is_address_space(st, i, &space)) {
            if (space == CLC_PARAM_LOCAL && !tr_qualifies_pointer(st, i))
                st->replace[i] = "__shared__";
            else if (space == CLC_PARAM_CONSTANT && depth == 0 &&
                     !tr_qualifies_pointer(st, i))
                st->replace[i] = "__constant__";
            else
                st->replace[i] = "";
            continue;
        }
        if (tr_is_access_qualifier(st, i) || tr_is_kernel_word(st, i)) {
            if (tr_is_access_qualifier(st, i))
                st->replace[i] = "";
            continue;
        }
        if (ident->info.width != 0) {
            if (ident->info.scalar == CLC_S_HALF)
                tr_refuse(st, i, "cannot translate '%.*s': half vectors need "
                               "cl_khr_fp16, which the CUDA backend does not "
                               "offer; use vload_half/vstore_half",
                        (int)t->length, t->text);
            st->replace[i] = tr_printf(st, "kl_%.*s", (int)t->length, t->text);
            continue;
        }
        switch (t->ident) {
        case W_half:
            st->replace[i] = "kl_half";
            continue;
        case W_event_t:
            st->replace[i] = "kl_event_t";
            continue;
        case W_restrict: case W___restrict:
            st->replace[i] = "__restrict__";
            continue;
        /* GNU spellings clang accepts in OpenCL C (OpenCV writes __const) */
        case W___const:
            st->replace[i] = "const";
            continue;
        case W___volatile: case W___volatile__:
            st->replace[i] = "volatile";
            continue;
        case W___signed: case W___signed__:
            st->replace[i] = "signed";
            continue;
        case W___inline: case W___inline__:
            st->replace[i] = "inline";
            continue;
        case W__Bool:
            st->replace[i] = "bool";
            continue;
        case W___alignof: case W___alignof__: case W__Alignof:
            st->replace[i] = "alignof";
            continue;
        case W__Static_assert:
            st->replace[i] = "static_assert";
            continue;
        case W_enum:
            tr_enum(st, i);
            continue;
        case W_struct: case W_union:
            if (depth == 0)
                tr_struct_return(st, i);
            continue;
        case W___builtin_astype:
            tr_builtin_astype(st, i);
            continue;
        case W_printf:
            st->uses_printf = 1;
            continue;
        case W_double:
            st->uses_double = 1;
            continue;
        case W___attribute__: case W___attribute:
            if (tr_is_punct(st, i + 1, P_LPAREN))
                i = tr_attribute(st, i, NULL);
            continue;
        case W_vec_step:
            /* vec_step(type) is a constant; vec_step(expr) a prelude call */
            if (tr_is_punct(st, i + 1, P_LPAREN) && tr_is_ident(st, i + 2) &&
                tr_is_punct(st, i + 3, P_RPAREN) &&
                (tr_ident(st, i + 2)->info.width != 0 ||
                 tr_scalar_size(st, i + 2) != 0)) {
                unsigned width = tr_ident(st, i + 2)->info.width;
                st->replace[i] = tr_printf(st, "%u", width == 3 ? 4u
                                                   : width ? width : 1u);
                st->replace[i + 1] = st->replace[i + 2] = st->replace[i + 3] =
                    "";
                i += 3;
            } else {
                st->replace[i] = "kl_vec_step";
            }
            continue;
        default:
            break;
        }
        const char *gnu = tr_gnu_builtin(st, t);
        if (gnu != NULL) {
            st->replace[i] = gnu;
            continue;
        }
        if (ident->info.cxx_keyword || (flags & TR_IDENT_CUDA_RESERVED)) {
            st->replace[i] = tr_printf(st, "kl_kw_%.*s", (int)t->length,
                                       t->text);
            continue;
        }
        if (flags & TR_IDENT_ADDRESS_CAST) {
            st->replace[i] = "";
            continue;
        }
        /* A member or a kernel name keeps its spelling. */
        if (i > 0 && (tr_is_punct(st, i - 1, P_DOT) ||
                      tr_is_punct(st, i - 1, P_ARROW)))
            continue;
        if (flags & TR_IDENT_KERNEL)
            continue;
        if (flags & TR_IDENT_BUILTIN) {
            st->replace[i] = tr_printf(st, "kl_%.*s", (int)t->length, t->text);
            continue;
        }
        if (tr_is_punct(st, i + 1, P_LPAREN)) {
            const char *named = tr_named_builtin(st, i);
            if (named != NULL)
                st->replace[i] = named;
        }
    }
}

/* ---- output ------------------------------------------------------------------------------ */

static int tr_insert_order(const void *a, const void *b)
{
    const tr_insert *x = a, *y = b;
    if (x->token != y->token)
        return x->token < y->token ? -1 : 1;
    if (x->after != y->after)
        return x->after < y->after ? -1 : 1;
    if (!x->after) {
        /* before a token: the construct that ends later is outside */
        if (x->span_end != y->span_end)
            return x->span_end > y->span_end ? -1 : 1;
        if (x->span_begin != y->span_begin)
            return x->span_begin < y->span_begin ? -1 : 1;
        return x->sequence < y->sequence ? -1 : 1;
    }
    /* after a token: the construct that began later is inside, so first */
    if (x->span_begin != y->span_begin)
        return x->span_begin > y->span_begin ? -1 : 1;
    if (x->span_end != y->span_end)
        return x->span_end < y->span_end ? -1 : 1;
    return x->sequence < y->sequence ? -1 : 1;
}

typedef struct tr_writer {
    clc_buffer *out;
    int line_file;        /* file of the current output line, -1 at start */
    unsigned line;        /* user line the current output line belongs to */
    char last;            /* last character written                       */
} tr_writer;

static int tr_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

static void tr_write_text(tr_writer *w, const char *text, int space_before)
{
    if (text[0] == '\0')
        return;
    char first = text[0];
    if (w->last != '\n' && w->last != '\0' &&
        (space_before || (tr_word_char(w->last) && tr_word_char(first)) ||
         (!tr_word_char(w->last) && !tr_word_char(first) && w->last != ' ' &&
          first != ' ' && !strchr(")]}", w->last) &&
          !strchr("([{)]};,.", first))))
        clc_buffer_puts(w->out, " ");
    clc_buffer_puts(w->out, text);
    w->last = w->out->data[w->out->length - 1];
}

static void tr_write_file_name(clc_buffer *out, const char *name)
{
    clc_buffer_puts(out, "\"");
    for (const char *p = name; *p; ++p) {
        if (*p == '"' || *p == '\\')
            clc_buffer_puts(out, "\\");
        if ((unsigned char)*p < 0x20)
            clc_buffer_printf(out, "\\%03o", (unsigned char)*p);
        else
            clc_buffer_append(out, p, 1);
    }
    clc_buffer_puts(out, "\"");
}

/* Moves the output to the user's (file, line) of the next token. */
static void tr_write_position(tr_state *st, tr_writer *w, const clc_token *t)
{
    if (w->line_file == (int)t->file && t->line == w->line)
        return;
    if (w->line_file == (int)t->file && t->line > w->line &&
        t->line - w->line <= 8) {
        while (w->line < t->line) {
            clc_buffer_puts(w->out, "\n");
            ++w->line;
        }
        w->last = '\n';
        return;
    }
    if (w->last != '\n')
        clc_buffer_puts(w->out, "\n");
    clc_buffer_printf(w->out, "#line %u ", t->line ? t->line : 1);
    const char *name = t->file < st->file_count ? st->file_names[t->file]
                                                : "<kiln program>";
    tr_write_file_name(w->out, name);
    clc_buffer_puts(w->out, "\n");
    w->line_file = t->file;
    w->line = t->line ? t->line : 1;
    w->last = '\n';
}

static const char *tr_emit(tr_state *st, size_t *length)
{
    if (st->insert_count > 1)
        qsort(st->inserts, st->insert_count, sizeof *st->inserts,
              tr_insert_order);
    clc_buffer out;
    clc_buffer_init(&out, st->arena);
    clc_buffer_puts(&out, "#include \"" TRANSLATE_PRELUDE_CUDA_HEADER "\"\n");
    tr_writer w = {&out, -1, 0, '\n'};
    size_t next_insert = 0;
    int pending_space = 0;
    for (size_t i = 0; i < st->count; ++i) {
        const clc_token *t = &st->tokens[i];
        if (t->kind == CLC_TOK_PRAGMA) {
            if (w.last != '\n')
                clc_buffer_puts(&out, "\n");
            clc_buffer_puts(&out, "#pragma ");
            clc_buffer_append(&out, t->text, t->length);
            clc_buffer_puts(&out, "\n");
            w.last = '\n';
            w.line_file = -1; /* the next token re-synchronises with #line */
            continue;
        }
        tr_write_position(st, &w, t);
        while (next_insert < st->insert_count &&
               st->inserts[next_insert].token == i &&
               !st->inserts[next_insert].after) {
            tr_write_text(&w, st->inserts[next_insert].text, 1);
            ++next_insert;
        }
        int space = pending_space || (t->flags & CLC_TF_SPACE) != 0;
        if (st->replace[i] != NULL && st->replace[i][0] == '\0') {
            pending_space = space; /* a deleted token keeps its spacing */
        } else if (st->replace[i] != NULL) {
            tr_write_text(&w, st->replace[i], space);
            pending_space = 0;
        } else {
            char *text = clc_arena_strndup(st->arena, t->text, t->length);
            tr_write_text(&w, text, space);
            pending_space = 0;
        }
        while (next_insert < st->insert_count &&
               st->inserts[next_insert].token == i) {
            tr_write_text(&w, st->inserts[next_insert].text, 1);
            ++next_insert;
        }
    }
    clc_buffer_puts(&out, "\n");
    *length = out.length;
    return clc_buffer_text(&out);
}

/* ---- entry ----------------------------------------------------------------------------------- */

static char *tr_strdup(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

/* Copies the kernels out of the arena into malloc'ed memory. */
static int tr_export_kernels(const tr_state *st, opencl_to_cuda_result *out)
{
    if (st->kernel_count == 0)
        return 0;
    out->kernels = calloc(st->kernel_count, sizeof *out->kernels);
    if (out->kernels == NULL)
        return -1;
    out->kernel_count = st->kernel_count;
    for (size_t k = 0; k < st->kernel_count; ++k) {
        const clc_kernel_signature *from = &st->kernels[k].signature;
        clc_kernel_signature *to = &out->kernels[k];
        *to = *from;
        to->params = calloc(from->param_count ? from->param_count : 1,
                            sizeof *to->params);
        if (to->params == NULL)
            return -1;
        if (from->param_count)
            memcpy(to->params, from->params,
                   from->param_count * sizeof *to->params);
    }
    return 0;
}

void opencl_to_cuda_run(clc_run *run, const clc_pp_output *pp,
                        opencl_to_cuda_result *out)
{
    tr_state *st = clc_arena_alloc(&run->arena, sizeof *st);
    st->arena = &run->arena;
    st->interner = &run->interner;
    st->failure = &run->failure;
    st->unsupported = (int *)&run->unsupported;
    tr_intern_names(st);
    st->tokens = pp->tokens;
    st->count = pp->count ? pp->count - 1 : 0; /* without EOF */
    st->file_names = pp->file_names;
    st->file_count = pp->file_count;
    st->replace = clc_arena_alloc(&run->arena,
                                  (st->count + 1) * sizeof *st->replace);
    /* get_work_dim() anywhere: every kernel takes the launch's dimensions
     * as a hidden parameter (none can be told from the grid alone). */
    int32_t work_dim = clc_intern(st->interner, "get_work_dim", 12);
    for (size_t i = 0; i < st->count && !st->uses_work_dim; ++i)
        st->uses_work_dim = st->tokens[i].kind == CLC_TOK_IDENT &&
                            st->tokens[i].ident == work_dim;
    tr_match_brackets(st);
    clc_symbols_init(&st->symbols, &run->arena, &run->interner,
                     CLC_LANGUAGE_OPENCL_C, st->tokens, st->count, st->match);
    clc_symbols_scan(&st->symbols);
    tr_drop_unused_samplers(st);
    tr_walk(st);

    size_t text_length = 0;
    const char *text = tr_emit(st, &text_length);
    out->uses_printf = st->uses_printf;
    out->uses_double = st->uses_double;
    out->uses_work_dim = st->uses_work_dim;
    out->fp_contract_off = pp->fp_contract_off;
    out->source = tr_strdup(text, text_length);
    if (out->source == NULL || tr_export_kernels(st, out) != 0)
        clc_fail_memory(&run->failure);
}

int opencl_to_cuda_translate(const char *source, size_t length,
                             const char *source_name,
                             const translate_options *options,
                             opencl_to_cuda_result *out)
{
    memset(out, 0, sizeof *out);
    clc_run run;
    clc_run_begin(&run);
    /* Every failure below longjmps back here; the arena holds everything
     * the pass allocated, so freeing it cannot leak. */
    if (setjmp(run.failure.unwind) != 0) {
        opencl_to_cuda_result_free(out); /* whatever was exported before */
        return clc_run_failed(&run, &out->error, &out->error_line,
                              &out->unsupported);
    }
    if (source == NULL && length != 0)
        clc_fail(&run.failure, -1, 0, "no source text");
    clc_interner_init(&run.interner, &run.arena);
    clc_pp_output pp;
    clc_preprocess(source ? source : "", length, source_name, options,
                   &run.arena, &run.interner, &pp);
    opencl_to_cuda_run(&run, &pp, out);
    clc_run_end(&run);
    return 0;
}

void opencl_to_cuda_result_free(opencl_to_cuda_result *translation)
{
    if (translation == NULL)
        return;
    free(translation->source);
    if (translation->kernels != NULL) {
        for (size_t k = 0; k < translation->kernel_count; ++k)
            free(translation->kernels[k].params);
        free(translation->kernels);
    }
    free(translation->error);
    memset(translation, 0, sizeof *translation);
}
