/*
 * OpenCL C -> CUDA C++, names: OpenCL C's built-in functions (the prelude's
 * kl_ names), what CUDA reserves, what the CUDA backend refuses (images,
 * pipes), and the built-ins named by pattern (convert_T_sat_rtX, as_T,
 * vloadN, vstore_halfN).
 */
#include "opencl_to_cuda_pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void tr_intern_names(tr_state *st)
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

const char *tr_unsupported_why(const tr_state *st, size_t i)
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
void tr_drop_unused_samplers(tr_state *st)
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
                st->edits.replace[j] = "";
        begin = end + 1;
        i = end;
    }
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
const char *tr_named_builtin(tr_state *st, size_t i)
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
