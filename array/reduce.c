/*
 * Reductions of arrays: sum, prod, mean, min, max, argmin, argmax, over
 * everything or along one axis.  The array is seen as (outer, length,
 * inner) with the reduced axis in the middle; one template serves both
 * layouts that matter:
 *  - inner == 1 (the last axis, or everything): a work-group reduces a
 *    contiguous stretch of one row, loads coalesced along the row;
 *  - inner > 1: a work-item reduces one column, the work-items of a
 *    group reading consecutive elements of each row.
 * When that leaves the device idle (few rows, or few columns), the
 * reduced axis is also split into `splits` stretches, and a second launch
 * combines their partial results (in-group trees, or for columns split a
 * few times a loop per column): never more than two launches, and a
 * barrier before every step of the in-group trees.
 * The same kernels reduce a OP b without making it (kiln_array_reduce_
 * binary): each load of the input is then kiln_map of an element of a and
 * one of b (or a scalar), so `(x * x).sum()` reads x once.
 */
#include "internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FINISH_THREADS 64           /* work-items combining partials */
#define MAX_SPLITS 1024
#define MAX_COLUMN_SPLITS 8192
/* Column partials combine in the column kernel's loop up to this many
 * splits, in kiln_reduce_finish's trees from there. */
#define COLUMN_LOOP_SPLITS 256

typedef struct reduce_types {
    kiln_dtype input, accumulate, output;
    bool arg; /* argmin / argmax: the index is the result */
    /* What the kernels read: `input` itself, or (mapped) kiln_map of
     * an element of `source` and one of `second` (or a scalar of it) */
    kiln_dtype source;
    bool mapped, scalar;
    kiln_array_op op;
    kiln_dtype compute, second;
} reduce_types;

static kiln_status reduce_types_of(kiln_array_reduce_op op, kiln_dtype input,
                                   const char *function, reduce_types *types)
{
    types->input = types->source = input;
    types->arg = op == KILN_REDUCE_ARGMIN || op == KILN_REDUCE_ARGMAX;
    bool is_float = array_dtype_is_float(input);
    switch (op) {
    case KILN_REDUCE_SUM:
    case KILN_REDUCE_PROD:
        /* bools count in NumPy's default integer */
        types->accumulate =
            is_float ? input
                     : (array_dtype_is_signed(input) ||
                                input == KILN_DTYPE_BOOL
                            ? KILN_DTYPE_INT64
                            : KILN_DTYPE_UINT64);
        types->output = types->accumulate;
        return KILN_OK;
    case KILN_REDUCE_MEAN:
        types->accumulate = input == KILN_DTYPE_FLOAT32 ? KILN_DTYPE_FLOAT32
                                                        : KILN_DTYPE_FLOAT64;
        types->output = types->accumulate;
        return KILN_OK;
    case KILN_REDUCE_MIN:
    case KILN_REDUCE_MAX:
        types->accumulate = types->output = input;
        return KILN_OK;
    case KILN_REDUCE_ARGMIN:
    case KILN_REDUCE_ARGMAX:
        types->accumulate = input;
        types->output = KILN_DTYPE_INT64;
        return KILN_OK;
    default:
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: %d is not a kiln_array_reduce_op", function,
                           (int)op);
    }
}

/* The largest (or, `low`, smallest) value of a dtype as OpenCL C. */
static void extreme_literal(kiln_dtype dtype, bool low, char *out, size_t size)
{
    if (array_dtype_is_float(dtype)) {
        snprintf(out, size, "%sINFINITY", low ? "-" : "");
        return;
    }
    unsigned bits = (unsigned)kiln_dtype_size(dtype) * 8;
    const char *ctype = array_dtype_ctype(dtype);
    if (!array_dtype_is_signed(dtype)) {
        if (low)
            snprintf(out, size, "(%s)0", ctype);
        else
            snprintf(out, size, "(%s)%lluUL", ctype,
                     (unsigned long long)(bits == 64 ? UINT64_MAX
                                                     : (1ull << bits) - 1));
        return;
    }
    long long max = (long long)((1ull << (bits - 1)) - 1);
    if (low)
        snprintf(out, size, "(%s)(-%lldL - 1)", ctype, max);
    else
        snprintf(out, size, "(%s)%lldL", ctype, max);
}

/* Macros every kernel of one reduction uses: the accumulator type, the
 * neutral element, COMBINE for values, and for arg reductions
 * KILN_BETTER(va, ia, vb, ib): whether (vb, ib) wins over (va, ia). */
static void add_reduce_macros(array_text *source, kiln_array_reduce_op op,
                              const reduce_types *types)
{
    const char *at = array_dtype_ctype(types->accumulate);
    bool is_float = array_dtype_is_float(types->accumulate);
    char neutral[96];
    const char *combine = "a + b";
    switch (op) {
    case KILN_REDUCE_PROD:
        snprintf(neutral, sizeof neutral, "(%s)1", at);
        combine = "a * b";
        break;
    case KILN_REDUCE_MIN:
    case KILN_REDUCE_ARGMIN:
        extreme_literal(types->accumulate, false, neutral, sizeof neutral);
        combine = is_float ? "(isnan(a) | (a < b)) ? a : b" : "a < b ? a : b";
        break;
    case KILN_REDUCE_MAX:
    case KILN_REDUCE_ARGMAX:
        extreme_literal(types->accumulate, true, neutral, sizeof neutral);
        combine = is_float ? "(isnan(a) | (a > b)) ? a : b" : "a > b ? a : b";
        break;
    default:
        snprintf(neutral, sizeof neutral, "(%s)0", at);
        break;
    }
    array_text_add(source,
                   ARRAY_SOURCE_HEADER
                   "typedef %s kiln_acc_t;\n"
                   "#define KILN_NEUTRAL (%s)\n"
                   "#define KILN_COMBINE(a, b) (%s)\n"
                   "#define KILN_NO_INDEX ((long)0x7fffffffffffffffL)\n",
                   at, neutral, combine);
    /* Ties go to the smaller index, so the answer is the first extreme
     * whatever order the work-items meet in.  | and &, not || and &&, in
     * these tests: short-circuits compile to branches, and NVVM then
     * waits for each load of the column loops alone (min along axis 0 of
     * 4096 x 4096 on the H100: 51 us against the sum's 36). */
    if (types->arg && !is_float)
        array_text_add(source,
                       "#define KILN_BETTER(va, ia, vb, ib) (((vb) %s (va)) | "
                       "(((vb) == (va)) & ((ib) < (ia))))\n",
                       op == KILN_REDUCE_ARGMIN ? "<" : ">");
    /* A NaN wins, as in NumPy and CuPy (argmin and argmax return the
     * first NaN, as min and max return NaN), and among NaNs the smaller
     * index. */
    if (types->arg && is_float)
        array_text_add(source,
                       "#define KILN_BETTER(va, ia, vb, ib) "
                       "((isnan(vb) & !isnan(va)) | "
                       "((isnan(vb) == isnan(va)) & (((vb) %s (va)) | "
                       "((((vb) == (va)) | isnan(vb)) & ((ib) < (ia))))))\n",
                       op == KILN_REDUCE_ARGMIN ? "<" : ">");
    /* Indices exist in local memory and in the partials only for argmin
     * and argmax: the other reductions neither store nor read them. */
    if (types->arg)
        array_text_add(source,
                       "#define KILN_LOCAL_INDICES(n) __local long kiln_indices[n]\n"
                       "#define KILN_SET_INDEX(at, v) (kiln_indices[at] = (v))\n"
                       "#define KILN_INDEX_OF(at) (kiln_indices[at])\n"
                       "#define KILN_PARTIAL_INDEX(p) (kiln_partial_indices[p])\n");
    else
        array_text_add(source,
                       "#define KILN_LOCAL_INDICES(n) (void)0\n"
                       "#define KILN_SET_INDEX(at, v) ((void)0)\n"
                       "#define KILN_INDEX_OF(at) KILN_NO_INDEX\n"
                       "#define KILN_PARTIAL_INDEX(p) KILN_NO_INDEX\n");
    /* What one load reads: an element of the input, or kiln_map of an
     * element of a and one of b (or b's scalar), computed in the
     * operation's dtype and converted to its result's. */
    if (!types->mapped) {
        array_text_add(source,
                       "#define KILN_EXTRA_PARAMS\n"
                       "#define KILN_BASE_B(at)\n"
                       "#define KILN_LOAD(j) ((kiln_acc_t)kiln_base[j])\n");
    } else {
        const char *bt = array_dtype_ctype(types->second),
                   *ct = array_dtype_ctype(types->compute);
        array_add_ipow(source, types->compute);
        array_text_add(source,
                       "inline %s kiln_map(%s kiln_a0, %s kiln_b0)\n"
                       "{\n"
                       "    const %s a = (%s)kiln_a0;\n"
                       "    const %s b = (%s)kiln_b0;\n"
                       "    return (%s)(%s);\n"
                       "}\n",
                       array_dtype_ctype(types->input),
                       array_dtype_ctype(types->source), bt, ct, ct, ct, ct,
                       array_dtype_ctype(types->input),
                       array_op_expression(types->op, types->compute));
        if (types->input == KILN_DTYPE_BOOL) /* 0 or 1, as when stored */
            array_text_add(source, "#define KILN_MAP(x, y) "
                                   "((kiln_acc_t)(kiln_map(x, y) != 0))\n");
        else
            array_text_add(source, "#define KILN_MAP(x, y) "
                                   "((kiln_acc_t)kiln_map(x, y))\n");
        if (types->scalar)
            array_text_add(source,
                           "#define KILN_EXTRA_PARAMS , %s kiln_scalar_b\n"
                           "#define KILN_BASE_B(at)\n"
                           "#define KILN_LOAD(j) KILN_MAP(kiln_base[j], "
                           "kiln_scalar_b)\n",
                           bt);
        else
            array_text_add(source,
                           "#define KILN_EXTRA_PARAMS , __global const %s "
                           "*kiln_in_b, long kiln_in_b_offset\n"
                           "#define KILN_BASE_B(at) __global const %s "
                           "*kiln_base_b = kiln_in_b + kiln_in_b_offset + "
                           "(at)\n"
                           "#define KILN_LOAD(j) KILN_MAP(kiln_base[j], "
                           "kiln_base_b[j])\n",
                           bt, bt);
    }
    /* One step of an accumulation: value v at index j into (acc, index). */
    if (types->arg)
        array_text_add(source,
                       "#define KILN_STEP(acc, index, v, j) do { "
                       "kiln_acc_t kiln_v_ = (v); long kiln_j_ = (j); "
                       "if (KILN_BETTER(acc, index, kiln_v_, kiln_j_)) "
                       "{ acc = kiln_v_; index = kiln_j_; } } while (0)\n");
    else
        array_text_add(source,
                       "#define KILN_STEP(acc, index, v, j) "
                       "(acc = KILN_COMBINE(acc, (v)))\n");
}

/* The result written from (acc, index) for `count` reduced elements. */
static void add_final_macro(array_text *source, kiln_array_reduce_op op,
                            const reduce_types *types)
{
    const char *ot = array_dtype_ctype(types->output);
    if (types->arg)
        array_text_add(source, "#define KILN_FINAL(acc, index, count) "
                               "((%s)(index))\n", ot);
    else if (op == KILN_REDUCE_MEAN)
        array_text_add(source, "#define KILN_FINAL(acc, index, count) "
                               "((%s)((acc) / (kiln_acc_t)(count)))\n", ot);
    else
        array_text_add(source, "#define KILN_FINAL(acc, index, count) "
                               "((%s)(acc))\n", ot);
}

/* The in-group tree over kiln_values / kiln_indices: work-item `lid`
 * combines its value with the one `half` above it, halving from
 * `steps_from`. */
static void add_tree(array_text *source, const reduce_types *types,
                     const char *lid, int steps_from)
{
    array_text_add(source,
                   "    for (uint kiln_half = %d; kiln_half > 0; kiln_half /= 2) {\n"
                   "        if (%s < kiln_half) {\n"
                   "            uint kiln_o = %s + kiln_half, kiln_m = %s;\n",
                   steps_from, lid, lid, lid);
    if (types->arg)
        array_text_add(source,
                       "            if (KILN_BETTER(kiln_values[kiln_m], kiln_indices[kiln_m],\n"
                       "                            kiln_values[kiln_o], kiln_indices[kiln_o])) {\n"
                       "                kiln_values[kiln_m] = kiln_values[kiln_o];\n"
                       "                kiln_indices[kiln_m] = kiln_indices[kiln_o];\n"
                       "            }\n");
    else
        array_text_add(source,
                       "            kiln_values[kiln_m] = KILN_COMBINE(kiln_values[kiln_m], kiln_values[kiln_o]);\n");
    array_text_add(source,
                   "        }\n"
                   "        barrier(CLK_LOCAL_MEM_FENCE);\n"
                   "    }\n");
}

/* Writes the tree's result, kiln_values[0]: the final one (where `final`
 * holds) or a partial (its index too, for argmin / argmax). */
static void add_store(array_text *source, const reduce_types *types,
                      const char *condition, const char *final,
                      const char *output_index, const char *partial_index)
{
    array_text_add(source,
                   "    if (%1$s) {\n"
                   "        if (%4$s)\n"
                   "            kiln_out[kiln_out_offset + %2$s] = KILN_FINAL(kiln_values[0], KILN_INDEX_OF(0), kiln_length);\n"
                   "        else {\n"
                   "            kiln_partial_values[%3$s] = kiln_values[0];\n",
                   condition, output_index, partial_index, final);
    if (types->arg)
        array_text_add(source,
                       "            kiln_partial_indices[%s] = kiln_indices[0];\n",
                       partial_index);
    array_text_add(source, "        }\n"
                           "    }\n");
}

static void add_common_params(array_text *source, const reduce_types *types)
{
    array_text_add(source,
                   "(__global const %s *kiln_in, long kiln_in_offset,\n"
                   "    long kiln_outer, long kiln_length, long kiln_inner,\n"
                   "    long kiln_splits, long kiln_chunk,\n"
                   "    __global kiln_acc_t *kiln_partial_values,\n"
                   "    __global long *kiln_partial_indices,\n"
                   "    __global %s *kiln_out, long kiln_out_offset,\n"
                   "    int kiln_finish KILN_EXTRA_PARAMS)\n",
                   array_dtype_ctype(types->source),
                   array_dtype_ctype(types->output));
}

/* The three kernels: rows (inner == 1), columns (inner > 1), finish. */
static void add_kernels(array_text *source, const reduce_types *types)
{
    /* Rows: group g reduces stretch g % splits of row g / splits. */
    array_text_add(source, "__kernel void kiln_reduce_rows");
    add_common_params(source, types);
    array_text_add(
        source,
        "{\n"
        "    __local kiln_acc_t kiln_values[%1$d];\n"
        "    KILN_LOCAL_INDICES(%1$d);\n"
        "    const uint kiln_x = get_local_id(0);\n"
        "    const long kiln_group = get_group_id(0);\n"
        "    const long kiln_split = kiln_group %% kiln_splits;\n"
        "    const long kiln_row = kiln_group / kiln_splits;\n"
        "    const long kiln_start = kiln_split * kiln_chunk;\n"
        "    const long kiln_end = min(kiln_start + kiln_chunk, kiln_length);\n"
        "    __global const %2$s *kiln_base = kiln_in + kiln_in_offset + kiln_row * kiln_length;\n"
        "    KILN_BASE_B(kiln_row * kiln_length);\n"
        "    kiln_acc_t kiln_acc = KILN_NEUTRAL;\n"
        "    long kiln_index = KILN_NO_INDEX;\n"
        "    long j = kiln_start + kiln_x;\n"
        "    for (; j + 3 * %1$d < kiln_end; j += 4 * %1$d) {\n"
        "        kiln_acc_t v0 = KILN_LOAD(j);\n"
        "        kiln_acc_t v1 = KILN_LOAD(j + %1$d);\n"
        "        kiln_acc_t v2 = KILN_LOAD(j + 2 * %1$d);\n"
        "        kiln_acc_t v3 = KILN_LOAD(j + 3 * %1$d);\n"
        "        KILN_STEP(kiln_acc, kiln_index, v0, j);\n"
        "        KILN_STEP(kiln_acc, kiln_index, v1, j + %1$d);\n"
        "        KILN_STEP(kiln_acc, kiln_index, v2, j + 2 * %1$d);\n"
        "        KILN_STEP(kiln_acc, kiln_index, v3, j + 3 * %1$d);\n"
        "    }\n"
        "    for (; j < kiln_end; j += %1$d)\n"
        "        KILN_STEP(kiln_acc, kiln_index, KILN_LOAD(j), j);\n"
        "    kiln_values[kiln_x] = kiln_acc;\n"
        "    KILN_SET_INDEX(kiln_x, kiln_index);\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n",
        ARRAY_GROUP_SIZE, array_dtype_ctype(types->source));
    /* the tree pairs work-items x and x + half */
    add_tree(source, types, "kiln_x", ARRAY_GROUP_SIZE / 2);
    add_store(source, types, "kiln_x == 0", "kiln_splits == 1", "kiln_row",
              "kiln_row * kiln_splits + kiln_split");
    array_text_add(source, "}\n");

    /* Columns: work-item x of the grid's first dimension owns result item
     * x (of the outer x inner results) and sums stretch y (the grid's
     * second dimension) of the reduced axis down its column: neighbouring
     * work-items read consecutive elements of a row, with no local memory
     * or barrier.  Split reductions with few splits launch it again with
     * kiln_finish set and one stretch: each work-item then combines the
     * `splits` partials of its column (many splits, for few columns, are
     * combined by kiln_reduce_finish's trees instead).
     * One kernel serves both launches, told apart by kiln_finish.
     * (Measured on the H100 against 32 x 8 tiles
     * with an in-group tree: 77% of copy against 70-74%.  A 1-D grid whose
     * work-items divide to find their stretch and column cost 3 us of the
     * 32 us of 4096^2 along axis 0, on CUDA and NVIDIA's OpenCL alike.) */
    array_text_add(source, "__kernel void kiln_reduce_columns");
    add_common_params(source, types);
    array_text_add(
        source,
        "{\n"
        "    const long kiln_item = (long)get_group_id(0) * %1$d + get_local_id(0);\n"
        "    if (kiln_item >= kiln_outer * kiln_inner)\n"
        "        return;\n"
        "    const long kiln_split = get_group_id(1);\n"
        "    const long kiln_block = kiln_outer == 1 ? 0 : kiln_item / kiln_inner;\n"
        "    const long kiln_column = kiln_item - kiln_block * kiln_inner;\n"
        "    kiln_acc_t kiln_acc = KILN_NEUTRAL;\n"
        "    long kiln_index = KILN_NO_INDEX;\n"
        "    if (kiln_finish) {\n"
        "        for (long s = 0; s < kiln_splits; ++s) {\n"
        "            long p = (kiln_block * kiln_splits + s) * kiln_inner + kiln_column;\n"
        "            KILN_STEP(kiln_acc, kiln_index, kiln_partial_values[p], KILN_PARTIAL_INDEX(p));\n"
        "        }\n"
        "    } else {\n"
        "        const long kiln_start = kiln_split * kiln_chunk;\n"
        "        const long kiln_end = min(kiln_start + kiln_chunk, kiln_length);\n"
        "        __global const %2$s *kiln_base = kiln_in + kiln_in_offset\n"
        "            + kiln_block * kiln_length * kiln_inner + kiln_column;\n"
        "        KILN_BASE_B(kiln_block * kiln_length * kiln_inner + kiln_column);\n"
        "        long j = kiln_start;\n"
        "        for (; j + 3 < kiln_end; j += 4) {\n"
        "            kiln_acc_t v0 = KILN_LOAD(j * kiln_inner);\n"
        "            kiln_acc_t v1 = KILN_LOAD((j + 1) * kiln_inner);\n"
        "            kiln_acc_t v2 = KILN_LOAD((j + 2) * kiln_inner);\n"
        "            kiln_acc_t v3 = KILN_LOAD((j + 3) * kiln_inner);\n"
        "            KILN_STEP(kiln_acc, kiln_index, v0, j);\n"
        "            KILN_STEP(kiln_acc, kiln_index, v1, j + 1);\n"
        "            KILN_STEP(kiln_acc, kiln_index, v2, j + 2);\n"
        "            KILN_STEP(kiln_acc, kiln_index, v3, j + 3);\n"
        "        }\n"
        "        for (; j < kiln_end; ++j)\n"
        "            KILN_STEP(kiln_acc, kiln_index, KILN_LOAD(j * kiln_inner), j);\n"
        "    }\n"
        "    if (kiln_finish || kiln_splits == 1)\n"
        "        kiln_out[kiln_out_offset + kiln_item] = KILN_FINAL(kiln_acc, kiln_index, kiln_length);\n"
        "    else {\n"
        "        const long p = (kiln_block * kiln_splits + kiln_split) * kiln_inner + kiln_column;\n"
        "        kiln_partial_values[p] = kiln_acc;\n",
        ARRAY_GROUP_SIZE, array_dtype_ctype(types->source));
    if (types->arg)
        array_text_add(source, "        kiln_partial_indices[p] = kiln_index;\n");
    array_text_add(source, "    }\n"
                           "}\n\n");

    /* Finish: group g combines the `splits` partials of output g (side by
     * side for rows, `inner` apart for columns) in a tree. */
    array_text_add(
        source,
        "__kernel void kiln_reduce_finish(__global const kiln_acc_t *kiln_partial_values,\n"
        "    __global const long *kiln_partial_indices, long kiln_splits,\n"
        "    long kiln_inner, long kiln_length, __global %2$s *kiln_out,\n"
        "    long kiln_out_offset)\n"
        "{\n"
        "    __local kiln_acc_t kiln_values[%1$d];\n"
        "    KILN_LOCAL_INDICES(%1$d);\n"
        "    const uint kiln_r = get_local_id(0);\n"
        "    const long kiln_output = get_group_id(0);\n"
        "    const long kiln_block = kiln_output / kiln_inner;\n"
        "    const long kiln_column = kiln_output - kiln_block * kiln_inner;\n"
        "    kiln_acc_t kiln_acc = KILN_NEUTRAL;\n"
        "    long kiln_index = KILN_NO_INDEX;\n"
        "    for (long s = kiln_r; s < kiln_splits; s += %1$d) {\n"
        "        long p = (kiln_block * kiln_splits + s) * kiln_inner + kiln_column;\n"
        "        KILN_STEP(kiln_acc, kiln_index, kiln_partial_values[p], KILN_PARTIAL_INDEX(p));\n"
        "    }\n"
        "    kiln_values[kiln_r] = kiln_acc;\n"
        "    KILN_SET_INDEX(kiln_r, kiln_index);\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n",
        FINISH_THREADS, array_dtype_ctype(types->output));
    add_tree(source, types, "kiln_r", FINISH_THREADS / 2);
    array_text_add(source,
                   "    if (kiln_r == 0)\n"
                   "        kiln_out[kiln_out_offset + kiln_output] = "
                   "KILN_FINAL(kiln_values[0], KILN_INDEX_OF(0), kiln_length);\n"
                   "}\n");
}

/* The generated source of each (op, input dtype), made once per process:
 * every call builds it through the program cache, and formatting it each
 * time was a large part of a call's host time. */
#define REDUCE_OPS (KILN_REDUCE_ARGMAX + 1)
#define REDUCE_DTYPES (KILN_DTYPE_BOOL + 1)
#define BINARY_OPS (KILN_OP_GREATER_EQUAL + 1)
static _Atomic(char *) reduce_sources[REDUCE_OPS][REDUCE_DTYPES];
/* Reductions of a OP b (or a OP scalar) for a and b of one dtype; others
 * are made at every call. */
static _Atomic(char *) mapped_sources[REDUCE_OPS][BINARY_OPS][REDUCE_DTYPES]
                                     [2];

/* The source of a reduction: kept for the process in `slot` (when not
 * NULL), made at every call otherwise (*made then owns it). */
static const char *reduce_source(kiln_array_reduce_op op,
                                 const reduce_types *types, char **made)
{
    _Atomic(char *) *slot = NULL;
    *made = NULL;
    if (!types->mapped)
        slot = &reduce_sources[op][types->source];
    else if (types->scalar || types->second == types->source)
        slot = &mapped_sources[op][types->op][types->source][types->scalar];
    char *known = slot != NULL ? atomic_load(slot) : NULL;
    if (known != NULL)
        return known;
    array_text source = {0};
    add_reduce_macros(&source, op, types);
    add_final_macro(&source, op, types);
    add_kernels(&source, types);
    if (source.failed) {
        array_text_free(&source);
        return NULL;
    }
    if (slot == NULL) {
        *made = source.data;
        return source.data;
    }
    /* Another thread may have made it meanwhile: keep the first. */
    char *expected = NULL;
    if (!atomic_compare_exchange_strong(slot, &expected, source.data)) {
        array_text_free(&source);
        return expected;
    }
    return source.data;
}

/* How many stretches each row's reduction is split into: none while the
 * rows fill the device; else enough groups to fill it once. */
static size_t row_splits(kiln_context *context, size_t rows, size_t length)
{
    size_t busy = array_busy_groups(context);
    if (rows >= busy)
        return 1;
    size_t splits = (busy + rows - 1) / rows;
    /* Each work-item should still have a few loads per stretch. */
    size_t most = (length + 4 * ARRAY_GROUP_SIZE - 1) / (4 * ARRAY_GROUP_SIZE);
    if (splits > most)
        splits = most;
    if (splits > MAX_SPLITS)
        splits = MAX_SPLITS;
    return splits == 0 ? 1 : splits;
}

/* The same for columns, a work-item each: enough stretches that the
 * work-items fill the device once (for 4096 columns on the H100, 66
 * stretches of 63 rows; the probe's 64 splits gave 77% of copy, 32 76%,
 * 128 65%), at least 32 rows each. */
static size_t column_splits(kiln_context *context, size_t items,
                            size_t length)
{
    size_t busy = array_busy_groups(context) * ARRAY_GROUP_SIZE;
    if (items >= busy)
        return 1;
    size_t splits = (busy + items - 1) / items;
    size_t most = (length + 31) / 32;
    if (splits > most)
        splits = most;
    if (splits > MAX_COLUMN_SPLITS)
        splits = MAX_COLUMN_SPLITS;
    return splits == 0 ? 1 : splits;
}

/* What a reduction reads: the (C-contiguous) array `a`, and for a
 * reduction of a OP b, `b` of a's shape (C-contiguous) or b's scalar. */
typedef struct reduce_input {
    const kiln_array *a, *b;
    double scalar;
} reduce_input;

/* The reduction of the input seen as (outer, length, inner) into
 * `result`. */
static kiln_status reduce(const char *function, kiln_array_reduce_op op,
                          const reduce_input *input, size_t outer,
                          size_t length, size_t inner,
                          const reduce_types *types, kiln_array *result,
                          kiln_stream *stream)
{
    const kiln_array *a = input->a;
    kiln_context *context = a->context;
    char *made_source = NULL;
    const char *source = reduce_source(op, types, &made_source);
    kiln_program *program = NULL;
    kiln_status status =
        source == NULL ? array_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                     "out of host memory")
                       : array_program_build(context, source, &program);
    free(made_source);
    if (status != KILN_OK)
        return status;

    const bool rows = inner == 1;
    const size_t items = outer * inner; /* results */
    size_t splits = rows ? row_splits(context, outer, length)
                         : column_splits(context, items, length);
    size_t chunk = (length + splits - 1) / splits;
    if (chunk == 0)
        chunk = 1;
    if (!rows && splits > 1) {
        /* Stretches of a multiple of 4 rows: the column loop takes 4 at a
         * time, and each row of a ragged end is a load waited for alone
         * (4096 rows: 64 stretches of 64, not 66 of 63). */
        chunk = (chunk + 3) / 4 * 4;
        splits = (length + chunk - 1) / chunk;
    }
    /* Rows, and columns split many times, finish with kiln_reduce_finish;
     * columns split a few times with their own kernel launched again. */
    const bool finish_tree =
        splits > 1 && (rows || splits > COLUMN_LOOP_SPLITS);

    kiln_kernel *kernel = NULL, *finish = NULL;
    status = kiln_kernel_create(
        program, rows ? "kiln_reduce_rows" : "kiln_reduce_columns", &kernel);
    if (status == KILN_OK && finish_tree)
        status = kiln_kernel_create(program, "kiln_reduce_finish", &finish);
    array_release_program(program); /* the kernels keep it */

    kiln_buffer *partial_values = NULL, *partial_indices = NULL;
    size_t partials = outer * splits * inner;
    if (status == KILN_OK && splits > 1) {
        status = kiln_buffer_create(
            context, partials * kiln_dtype_size(types->accumulate),
            &partial_values);
        if (status == KILN_OK && types->arg)
            status = kiln_buffer_create(context, partials * sizeof(int64_t),
                                        &partial_indices);
    }
    /* Kernels get a buffer for each parameter, used or not: the result's
     * own, or the values', stand in. */
    kiln_buffer *values = partial_values ? partial_values : result->buffer;
    kiln_buffer *indices = partial_indices ? partial_indices : values;
    array_scalar scalar_b;
    kiln_arg args[] = {
        KILN_ARG_BUFFER(a->buffer),
        KILN_ARG_LONG((int64_t)a->offset),
        KILN_ARG_LONG((int64_t)outer),
        KILN_ARG_LONG((int64_t)length),
        KILN_ARG_LONG((int64_t)inner),
        KILN_ARG_LONG((int64_t)splits),
        KILN_ARG_LONG((int64_t)chunk),
        KILN_ARG_BUFFER(values),
        KILN_ARG_BUFFER(indices),
        KILN_ARG_BUFFER(result->buffer),
        KILN_ARG_LONG((int64_t)result->offset),
        KILN_ARG_INT(0), /* kiln_finish */
        {0}, {0}, /* b, or its scalar */
    };
    const size_t finish_arg = 11;
    size_t arg_count = 12;
    if (types->mapped && types->scalar) {
        args[arg_count++] =
            array_scalar_arg(types->second, input->scalar, &scalar_b);
    } else if (types->mapped) {
        args[arg_count++] = KILN_ARG_BUFFER(input->b->buffer);
        args[arg_count++] = KILN_ARG_LONG((int64_t)input->b->offset);
    }
    const size_t column_groups =
        (items + ARRAY_GROUP_SIZE - 1) / ARRAY_GROUP_SIZE;
    kiln_launch_config config = {
        .grid = rows ? KILN_DIM1(outer * splits)
                     : KILN_DIM2(column_groups, splits),
        .block = KILN_DIM1(ARRAY_GROUP_SIZE),
        .stream = stream,
    };
    if (status == KILN_OK)
        status = kiln_launch(kernel, &config, arg_count, args);
    if (status == KILN_OK && finish_tree) {
        const kiln_arg finish_args[] = {
            KILN_ARG_BUFFER(values),
            KILN_ARG_BUFFER(indices),
            KILN_ARG_LONG((int64_t)splits),
            KILN_ARG_LONG((int64_t)inner),
            KILN_ARG_LONG((int64_t)length),
            KILN_ARG_BUFFER(result->buffer),
            KILN_ARG_LONG((int64_t)result->offset),
        };
        const kiln_launch_config finish_config = {
            .grid = KILN_DIM1(items),
            .block = KILN_DIM1(FINISH_THREADS),
            .stream = stream,
        };
        status = kiln_launch(finish, &finish_config,
                             sizeof finish_args / sizeof finish_args[0],
                             finish_args);
    } else if (status == KILN_OK && splits > 1) {
        args[finish_arg] = KILN_ARG_INT(1);
        config.grid = KILN_DIM2(column_groups, 1);
        status = kiln_launch(kernel, &config, arg_count, args);
    }
    if (partial_values != NULL)
        array_release_buffer(partial_values);
    if (partial_indices != NULL)
        array_release_buffer(partial_indices);
    if (kernel != NULL)
        array_release_kernel(kernel);
    if (finish != NULL)
        array_release_kernel(finish);
    return status == KILN_OK ? KILN_OK
                             : array_error_prefix(status, "%s", function);
}

/* Reduces the input (a, or a OP b: `types` says) along `axis` (or
 * everything for KILN_AXIS_ALL) into a new array.  a and b are
 * C-contiguous. */
static kiln_status reduce_input_axis(const char *function,
                                     kiln_array_reduce_op op,
                                     const reduce_input *input, int axis,
                                     reduce_types *types,
                                     kiln_stream *stream, kiln_array **result)
{
    const kiln_array *a = input->a;
    size_t outer = 1, length = a->size, inner = 1;
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 0;
    if (axis != KILN_AXIS_ALL) {
        long rank = (long)a->ndim;
        long index = axis < 0 ? rank + axis : axis;
        if (index < 0 || index >= rank) {
            char text[160];
            array_shape_text(a, text, sizeof text);
            return array_error(KILN_ERR_SHAPE,
                               "%s: axis %d is out of range for an array of "
                               "shape %s",
                               function, axis, text);
        }
        for (long d = 0; d < rank; ++d) {
            if (d < index)
                outer *= a->shape[d];
            else if (d > index)
                inner *= a->shape[d];
            if (d != index)
                shape[ndim++] = a->shape[d];
        }
        length = a->shape[index];
    }
    bool needs_elements = op == KILN_REDUCE_MIN || op == KILN_REDUCE_MAX ||
                          types->arg;
    if (length == 0 && needs_elements) {
        char text[160];
        array_shape_text(a, text, sizeof text);
        return array_error(KILN_ERR_SHAPE,
                           "%s: the reduced axis of the array of shape %s is "
                           "empty, and an empty set has no minimum, maximum "
                           "or its index",
                           function, text);
    }
    kiln_status status =
        array_check_device_dtype(a->context, types->accumulate, function);
    if (status != KILN_OK)
        return status;
    kiln_array *made = NULL;
    if (length == 0) {
        /* nothing to read: 0 for sums, 1 for products, NaN for means */
        double value = op == KILN_REDUCE_PROD ? 1.0
                       : op == KILN_REDUCE_MEAN ? NAN
                                                : 0.0;
        status = kiln_array_full(a->context, types->output, ndim, shape,
                                 value, stream, &made);
        if (status != KILN_OK)
            return array_error_prefix(status, "%s", function);
        *result = made;
        return KILN_OK;
    }
    status =
        array_new(a->context, types->output, ndim, shape, function, &made);
    if (status != KILN_OK)
        return status;
    if (made->size > 0) {
        status = reduce(function, op, input, outer, length, inner, types, made,
                        stream);
        if (status != KILN_OK) {
            array_release_array(made);
            return status;
        }
    }
    *result = made;
    return kiln_error_set(KILN_OK, NULL);
}

/* The plain reductions: a's elements, read in C order (a copy first for
 * other layouts). */
static kiln_status reduce_array(const char *function, kiln_array_reduce_op op,
                                const kiln_array *a, int axis,
                                kiln_stream *stream, kiln_array **result)
{
    kiln_status status = array_check(a, function, "a");
    if (status != KILN_OK)
        return status;
    if (result == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: result is NULL",
                           function);
    reduce_types types = {0}; /* GCC 13 cannot see reduce_types_of set it */
    status = reduce_types_of(op, a->dtype, function, &types);
    if (status != KILN_OK)
        return status;
    reduce_input input = {0};
    status = array_contiguous(a, stream, function, (kiln_array **)&input.a);
    if (status != KILN_OK)
        return status;
    status =
        reduce_input_axis(function, op, &input, axis, &types, stream, result);
    array_release_array((kiln_array *)input.a);
    return status;
}

kiln_status kiln_array_reduce(kiln_array_reduce_op op, const kiln_array *a,
                              kiln_stream *stream, kiln_array **result)
{
    return reduce_array("kiln_array_reduce", op, a, KILN_AXIS_ALL, stream,
                        result);
}

kiln_status kiln_array_reduce_axis(kiln_array_reduce_op op,
                                   const kiln_array *a, int axis,
                                   kiln_stream *stream, kiln_array **result)
{
    if (axis == KILN_AXIS_ALL) /* not an axis here */
        axis = KILN_ARRAY_MAX_DIMS;
    return reduce_array("kiln_array_reduce_axis", op, a, axis, stream,
                        result);
}

/* The unfused way, for b broadcast against a: a OP b made, then
 * reduced. */
static kiln_status reduce_made(kiln_array_reduce_op reduce_op,
                               kiln_array_op op, const kiln_array *a,
                               const kiln_array *b, int axis,
                               kiln_stream *stream, kiln_array **result)
{
    kiln_array *made = NULL;
    kiln_status status = kiln_array_binary(op, a, b, stream, &made);
    if (status != KILN_OK)
        return status;
    status = axis == KILN_AXIS_ALL
                 ? kiln_array_reduce(reduce_op, made, stream, result)
                 : kiln_array_reduce_axis(reduce_op, made, axis, stream,
                                          result);
    array_release_array(made);
    return status;
}

static kiln_status reduce_mapped(const char *function,
                                 kiln_array_reduce_op reduce_op,
                                 kiln_array_op op, const kiln_array *a,
                                 const kiln_array *b, double scalar, int axis,
                                 kiln_stream *stream, kiln_array **result)
{
    kiln_status status = array_check(a, function, "a");
    if (status == KILN_OK && b != NULL)
        status = array_check(b, function, "b");
    if (status == KILN_OK && b != NULL)
        status = array_same_context(function, a, b);
    if (status != KILN_OK)
        return status;
    if (result == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: result is NULL",
                           function);
    kiln_dtype compute, mapped;
    status = array_binary_types(function, op, a->dtype,
                                b != NULL ? &b->dtype : NULL, scalar,
                                &compute, &mapped);
    if (status != KILN_OK)
        return status;
    bool same_shape = b == NULL || b->ndim == a->ndim;
    for (size_t d = 0; b != NULL && same_shape && d < a->ndim; ++d)
        same_shape = a->shape[d] == b->shape[d];
    if (!same_shape)
        return reduce_made(reduce_op, op, a, b, axis, stream, result);
    reduce_types types = {0};
    status = reduce_types_of(reduce_op, mapped, function, &types);
    if (status != KILN_OK)
        return status;
    types.source = a->dtype;
    types.mapped = true;
    types.scalar = b == NULL;
    types.op = op;
    types.compute = compute;
    /* a weak scalar goes to the kernel in the dtype it is computed in */
    types.second = b != NULL ? b->dtype : compute;
    status = array_check_device_dtype(a->context, compute, function);
    if (status != KILN_OK)
        return status;
    reduce_input input = {.scalar = scalar};
    status = array_contiguous(a, stream, function, (kiln_array **)&input.a);
    if (status == KILN_OK && b != NULL)
        status =
            array_contiguous(b, stream, function, (kiln_array **)&input.b);
    if (status == KILN_OK)
        status = reduce_input_axis(function, reduce_op, &input, axis, &types,
                                   stream, result);
    if (input.a != NULL)
        array_release_array((kiln_array *)input.a);
    if (input.b != NULL)
        array_release_array((kiln_array *)input.b);
    return status;
}

kiln_status kiln_array_reduce_binary(kiln_array_reduce_op reduce,
                                     kiln_array_op op, const kiln_array *a,
                                     const kiln_array *b, int axis,
                                     kiln_stream *stream, kiln_array **result)
{
    static const char function[] = "kiln_array_reduce_binary";
    if (b == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: b is NULL",
                           function);
    return reduce_mapped(function, reduce, op, a, b, 0, axis, stream, result);
}

kiln_status kiln_array_reduce_binary_scalar(kiln_array_reduce_op reduce,
                                            kiln_array_op op,
                                            const kiln_array *a, double scalar,
                                            int axis, kiln_stream *stream,
                                            kiln_array **result)
{
    return reduce_mapped("kiln_array_reduce_binary_scalar", reduce, op, a,
                         NULL, scalar, axis, stream, result);
}
