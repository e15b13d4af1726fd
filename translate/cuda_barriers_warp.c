/*
 * CUDA's barriers on OpenCL (cuda_barriers.h): warp primitives.
 *
 * __shfl*_sync, __ballot_sync, __any/__all_sync, __activemask and
 * __reduce_*_sync are emulated by the prelude through a __shared__
 * scratch and barriers (prelude_opencl.cl), which every thread of the
 * block must reach.  A function that calls them is warp-synchronous code
 * to the phase: it is lowered with its active flag, an `if` that only
 * some threads enter runs in every thread with the flag of whether it
 * entered (CUDA's `if (warp == 0) v = warp_reduce(v);`), and each call
 * runs in every thread, hoisted into a variable of its own, with the
 * thread's flag: a thread that CUDA would not run there takes part in the
 * exchange without contributing to a vote or a reduction.
 */
#include "cuda_barriers_pass.h"

#include <string.h>

typedef struct bx_warp_kind {
    const char *name;
    int shuffle_mode;  /* 0 idx, 1 up, 2 down, 3 xor; -1 not a shuffle */
    int arguments;     /* the least; a shuffle may add its width       */
} bx_warp_kind;

static const bx_warp_kind bx_warp_kinds[] = {
    {"__shfl_sync", 0, 3}, {"__shfl_up_sync", 1, 3},
    {"__shfl_down_sync", 2, 3}, {"__shfl_xor_sync", 3, 3},
    {"__ballot_sync", -1, 2}, {"__any_sync", -1, 2}, {"__all_sync", -1, 2},
    {"__activemask", -1, 0},
    {"__reduce_add_sync", -1, 2}, {"__reduce_min_sync", -1, 2},
    {"__reduce_max_sync", -1, 2}, {"__reduce_and_sync", -1, 2},
    {"__reduce_or_sync", -1, 2}, {"__reduce_xor_sync", -1, 2},
};

/* The prelude's suffix and CUDA's type for a value of `type` (CUDA's
 * overloads: int, unsigned, long long, unsigned long long, float, double;
 * smaller integers promote to int); NULL when there is none. */
static const char *bx_warp_suffix(const clc_type *type, const char **spelling)
{
    if (type == NULL || type->kind != CLC_TYPE_SCALAR)
        return NULL;
    switch (type->scalar) {
    case CLC_S_BOOL: case CLC_S_CHAR: case CLC_S_UCHAR: case CLC_S_SHORT:
    case CLC_S_USHORT: case CLC_S_INT:
        *spelling = "int";
        return "i";
    case CLC_S_UINT:
        *spelling = "unsigned int";
        return "u";
    case CLC_S_LONG:
        *spelling = "long long";
        return "l";
    case CLC_S_ULONG:
        *spelling = "unsigned long long";
        return "ul";
    case CLC_S_FLOAT:
        *spelling = "float";
        return "f";
    case CLC_S_DOUBLE:
        *spelling = "double";
        return "d";
    default:
        return NULL;
    }
}

/* Whether [b, e) may be evaluated by a thread that CUDA would not run
 * here: no loads, stores or calls. */
static int bx_warp_harmless(const bx_state *st, size_t b, size_t e)
{
    for (size_t i = b; i < e; ++i) {
        if (bx_punct(st, i, P_LBRACKET) || bx_punct(st, i, P_ARROW) ||
            bx_punct(st, i, P_INC) || bx_punct(st, i, P_DEC) || bx_is_assign(st, i))
            return 0;
        if (bx_punct(st, i, P_STAR) && !bx_after_operand(st, i, b))
            return 0;
        if (bx_ident(st, i) && bx_punct(st, i + 1, P_LPAREN) &&
            bx_word(st, i) != BX_W_PURE && bx_word(st, i) != BX_W_TYPE &&
            bx_word(st, i) != BX_W_CAST)
            return 0;
    }
    return 1;
}

/* An argument as the emulation takes it: as written where every thread
 * may evaluate it, else `(__kiln_active ? (a) : 0)`. */
static void bx_warp_value(bx_state *st, size_t b, size_t e)
{
    if (bx_warp_harmless(st, b, e)) {
        bx_text(st, "(", b);
        bx_copy(st, b, e);
        bx_text(st, ")", e - 1);
        return;
    }
    bx_text(st, "(__kiln_active ? (", b);
    bx_copy(st, b, e);
    bx_text(st, ") : 0)", e - 1);
}

/* The call of a warp primitive at i, emitted as `T __kiln_t<number> =
 * <the prelude's emulation>;`. */
void bx_emit_warp_call(bx_state *st, size_t i, size_t number)
{
    const char *name = bx_name(st, i);
    const bx_warp_kind *kind = NULL;
    for (size_t k = 0; k < sizeof bx_warp_kinds / sizeof bx_warp_kinds[0]; ++k)
        if (strcmp(bx_warp_kinds[k].name, name) == 0)
            kind = &bx_warp_kinds[k];
    size_t open = i + 1, close = st->match[open];
    size_t begin[4], end[4], count = 0;
    for (size_t b = open + 1; b < close;) {
        size_t e = bx_find(st, b, close, P_COMMA);
        if (count < 4) {
            begin[count] = b;
            end[count] = e;
        }
        ++count;
        b = e + 1;
    }
    if (kind == NULL ||
        !(count == (size_t)kind->arguments ||
          (kind->shuffle_mode >= 0 && count == 4)))
        bx_refuse(st, i, "cannot translate '%s': it takes %d arguments%s, "
                         "not %zu",
                  name, kind ? kind->arguments : 0,
                  kind && kind->shuffle_mode >= 0 ? " (and a width)" : "",
                  count);
    size_t nested = bx_range_warp(st, open + 1, close);
    for (size_t k = open + 1; k < close && nested == 0; ++k)
        if (bx_range_syncs(st, k, k + 1) || bx_range_lockstep_calls(st, k, k + 1))
            nested = k;
    if (nested)
        bx_refuse(st, nested, "cannot translate '%s' inside the arguments of "
                              "'%s': a call that synchronises, or a warp primitive, "
                              "in a statement of its own",
                  bx_name(st, nested), name);
    const char *spelling = NULL, *suffix = NULL;
    if (kind->shuffle_mode >= 0 || strncmp(name, "__reduce_", 9) == 0) {
        suffix = bx_warp_suffix(clc_expr_type(&st->symbols, begin[1], end[1]),
                                &spelling);
        if (suffix == NULL)
            bx_refuse(st, begin[1], "cannot translate '%s' of this value: "
                                    "only int, unsigned, long long, unsigned "
                                    "long long, float and double values are "
                                    "exchanged (or the type of the value is "
                                    "not known here)",
                      name);
    }
    if (kind->shuffle_mode >= 0) {
        bx_text(st, bx_printf(st, "%s __kiln_t%zu = __kiln_shfl_%s(%d,",
                              spelling, number, suffix, kind->shuffle_mode),
                i);
        bx_copy(st, begin[0], end[0]);
        bx_text(st, ",", end[0]);
        bx_warp_value(st, begin[1], end[1]);
        bx_text(st, ",", end[1]);
        bx_warp_value(st, begin[2], end[2]);
        if (count == 4) {
            bx_text(st, ",", end[2]);
            bx_warp_value(st, begin[3], end[3]);
        } else {
            bx_text(st, ", 32", end[2]);
        }
        bx_text(st, ", __kiln_warp);", close);
        return;
    }
    if (strncmp(name, "__reduce_", 9) == 0) {
        /* and, or, xor are unsigned only; add, min, max by the value */
        const char *op = name + 9;
        size_t op_length = strcspn(op, "_");
        int is_signed = suffix[0] == 'i' && op_length == 3 &&
                        (memcmp(op, "add", 3) == 0 || memcmp(op, "min", 3) == 0 ||
                         memcmp(op, "max", 3) == 0);
        if (suffix[0] != 'i' && strcmp(suffix, "u") != 0)
            bx_refuse(st, begin[1], "cannot translate '%s' of this value: "
                                    "CUDA reduces int and unsigned values",
                      name);
        bx_text(st, bx_printf(st, "%s __kiln_t%zu = __kiln_reduce_%.*s_%s(",
                              is_signed ? "int" : "unsigned int", number,
                              (int)op_length, op, is_signed ? "i" : "u"),
                i);
        bx_copy(st, begin[0], end[0]);
        bx_text(st, ",", end[0]);
        bx_warp_value(st, begin[1], end[1]);
        bx_text(st, ", __kiln_active, __kiln_warp);", close);
        return;
    }
    if (strcmp(name, "__activemask") == 0) {
        bx_text(st, bx_printf(st, "unsigned int __kiln_t%zu = "
                                  "__kiln_warp_activemask(__kiln_active, "
                                  "__kiln_warp);",
                              number),
                i);
        return;
    }
    /* ballot, any, all: a thread that is not running the call does not
     * evaluate its predicate */
    const char *vote = strcmp(name, "__ballot_sync") == 0 ? "ballot"
                       : strcmp(name, "__any_sync") == 0  ? "any" : "all";
    bx_text(st, bx_printf(st, "%s __kiln_t%zu = __kiln_warp_%s(",
                          vote[1] == 'a' ? "unsigned int" : "int", number, vote),
            i);
    bx_copy(st, begin[0], end[0]);
    bx_text(st, ", (__kiln_active && (", end[0]);
    bx_copy(st, begin[1], end[1]);
    bx_text(st, ")), __kiln_active, __kiln_warp);", close);
}
