/*
 * The reduction template: the one place the reduction algorithm lives.
 * kiln_reduction_create (generator.c) and every array reduction (sum,
 * prod, mean, min, max, argmin, argmax, fused a OP b: reduce.c) are
 * instances of it, so a fix here is a fix to both.
 *
 * The input is seen as (outer, length, inner) with the reduced axis in
 * the middle, and KILN_MAP(i) reads its element i (C order); a generator
 * reduction is (1, n, 1).  Two layouts:
 *  - inner == 1 (the last axis, or everything): a work-group reduces a
 *    contiguous stretch of one row, loads coalesced along the row;
 *  - inner > 1: a work-item reduces one column, the work-items of a
 *    group reading consecutive elements of each row.
 * When that leaves the device idle (few rows, or few columns), the
 * reduced axis is also split into `splits` stretches, and a second launch
 * combines their partial results (in-group trees, or for columns split a
 * few times a loop per column): never more than two launches, and a
 * barrier before every step of the in-group trees.
 *
 * The hand-off between work-groups relies only on what OpenCL 1.2
 * guarantees: the partials of the first launch are read by the second,
 * and a kernel's global writes are visible to the next kernel on the same
 * queue.  (No last-group-finishes counter: OpenCL 1.2 does not promise
 * that one work-group sees another's global writes within a launch.)
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FINISH_THREADS 64 /* work-items combining partials */
#define MAX_SPLITS 1024
#define MAX_COLUMN_SPLITS 8192
/* Column partials combine in the column kernel's loop up to this many
 * splits, in the finish kernel's trees from there. */
#define COLUMN_LOOP_SPLITS 256

/* The macros the kernels read, from the instance's description. */
static void add_instance_macros(array_text *source,
                                const array_reduction_spec *spec,
                                const char *input)
{
    array_text_add(source,
                   "typedef %s kiln_acc_t;\n"
                   "typedef %s kiln_out_t;\n"
                   "#define KILN_NEUTRAL ((kiln_acc_t)(%s))\n"
                   "#define KILN_COMBINE(a, b) (%s)\n",
                   spec->type,
                   spec->output_type ? spec->output_type : spec->type,
                   spec->neutral, spec->reduce_expression);
    if (spec->map_expression == NULL)
        array_text_add(source, "#define KILN_MAP(i) (%s[i])\n", input);
    else
        array_text_add(source, "#define KILN_MAP(i) (%s)\n",
                       spec->map_expression);
    array_text_add(source,
                   "#define KILN_LOAD(i) ((kiln_acc_t)KILN_MAP(i))\n"
                   "#define KILN_NO_INDEX ((long)0x7fffffffffffffffL)\n"
                   "#define KILN_FINAL(acc, index, count) ((kiln_out_t)(%s))\n",
                   spec->final_expression ? spec->final_expression : "acc");
    /* Indices exist in local memory and in the partials only for argmin
     * and argmax: the other reductions neither store nor read them. */
    if (spec->better_expression != NULL)
        array_text_add(
            source,
            "#define KILN_BETTER(va, ia, vb, ib) (%s)\n"
            "#define KILN_LOCAL_INDICES(n) __local long kiln_indices[n]\n"
            "#define KILN_SET_INDEX(at, v) (kiln_indices[at] = (v))\n"
            "#define KILN_INDEX_OF(at) (kiln_indices[at])\n"
            "#define KILN_PARTIAL_INDEX(p) (kiln_partial_indices[p])\n"
            "#define KILN_STEP(acc, index, v, j) do { "
            "kiln_acc_t kiln_v_ = (v); long kiln_j_ = (j); "
            "if (KILN_BETTER(acc, index, kiln_v_, kiln_j_)) "
            "{ acc = kiln_v_; index = kiln_j_; } } while (0)\n",
            spec->better_expression);
    else
        array_text_add(source,
                       "#define KILN_LOCAL_INDICES(n) (void)0\n"
                       "#define KILN_SET_INDEX(at, v) ((void)0)\n"
                       "#define KILN_INDEX_OF(at) KILN_NO_INDEX\n"
                       "#define KILN_PARTIAL_INDEX(p) KILN_NO_INDEX\n"
                       "#define KILN_STEP(acc, index, v, j) "
                       "(acc = KILN_COMBINE(acc, (v)))\n");
}

/* The in-group tree over kiln_values / kiln_indices: work-item `lid`
 * combines its value with the one `half` above it, halving from
 * `steps_from`. */
static void add_tree(array_text *source, bool indices, const char *lid,
                     int steps_from)
{
    array_text_add(source,
                   "    for (uint kiln_half = %d; kiln_half > 0; kiln_half /= 2) {\n"
                   "        if (%s < kiln_half) {\n"
                   "            uint kiln_o = %s + kiln_half, kiln_m = %s;\n",
                   steps_from, lid, lid, lid);
    if (indices)
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
static void add_store(array_text *source, bool indices, const char *condition,
                      const char *final, const char *output_index,
                      const char *partial_index)
{
    array_text_add(source,
                   "    if (%1$s) {\n"
                   "        if (%4$s)\n"
                   "            kiln_out[kiln_out_offset + %2$s] = KILN_FINAL(kiln_values[0], KILN_INDEX_OF(0), kiln_length);\n"
                   "        else {\n"
                   "            kiln_partial_values[%3$s] = kiln_values[0];\n",
                   condition, output_index, partial_index, final);
    if (indices)
        array_text_add(source,
                       "            kiln_partial_indices[%s] = kiln_indices[0];\n",
                       partial_index);
    array_text_add(source, "        }\n"
                           "    }\n");
}

/* The instance's parameters, then the template's. */
static void add_params(array_text *source, const array_params *params)
{
    array_text_add(source, "(");
    array_params_add(source, params);
    array_text_add(source,
                   "long kiln_outer, long kiln_length, long kiln_inner,\n"
                   "    long kiln_splits, long kiln_chunk,\n"
                   "    __global kiln_acc_t *kiln_partial_values,\n"
                   "    __global long *kiln_partial_indices,\n"
                   "    __global kiln_out_t *kiln_out, long kiln_out_offset,\n"
                   "    int kiln_finish)\n");
}

/* The three kernels: rows (inner == 1), columns (inner > 1), finish. */
static void add_kernels(array_text *source, const char *name,
                        const array_params *params, bool indices)
{
    /* Rows: group g reduces stretch g % splits of row g / splits. */
    array_text_add(source, "__kernel void %s_rows", name);
    add_params(source, params);
    array_text_add(
        source,
        "{\n"
        "    KILN_ARGUMENT_VIEWS\n"
        "    __local kiln_acc_t kiln_values[%1$d];\n"
        "    KILN_LOCAL_INDICES(%1$d);\n"
        "    const uint kiln_x = get_local_id(0);\n"
        "    const long kiln_group = get_group_id(0);\n"
        "    const long kiln_split = kiln_group %% kiln_splits;\n"
        "    const long kiln_row = kiln_group / kiln_splits;\n"
        "    const long kiln_start = kiln_split * kiln_chunk;\n"
        "    const long kiln_end = min(kiln_start + kiln_chunk, kiln_length);\n"
        "    const long kiln_at = kiln_row * kiln_length;\n"
        "    kiln_acc_t kiln_acc = KILN_NEUTRAL;\n"
        "    long kiln_index = KILN_NO_INDEX;\n"
        "    long j = kiln_start + kiln_x;\n"
        "    for (; j + 3 * %1$d < kiln_end; j += 4 * %1$d) {\n"
        "        kiln_acc_t v0 = KILN_LOAD(kiln_at + j);\n"
        "        kiln_acc_t v1 = KILN_LOAD(kiln_at + j + %1$d);\n"
        "        kiln_acc_t v2 = KILN_LOAD(kiln_at + j + 2 * %1$d);\n"
        "        kiln_acc_t v3 = KILN_LOAD(kiln_at + j + 3 * %1$d);\n"
        "        KILN_STEP(kiln_acc, kiln_index, v0, j);\n"
        "        KILN_STEP(kiln_acc, kiln_index, v1, j + %1$d);\n"
        "        KILN_STEP(kiln_acc, kiln_index, v2, j + 2 * %1$d);\n"
        "        KILN_STEP(kiln_acc, kiln_index, v3, j + 3 * %1$d);\n"
        "    }\n"
        "    for (; j < kiln_end; j += %1$d)\n"
        "        KILN_STEP(kiln_acc, kiln_index, KILN_LOAD(kiln_at + j), j);\n"
        "    kiln_values[kiln_x] = kiln_acc;\n"
        "    KILN_SET_INDEX(kiln_x, kiln_index);\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n",
        ARRAY_GROUP_SIZE);
    /* the tree pairs work-items x and x + half */
    add_tree(source, indices, "kiln_x", ARRAY_GROUP_SIZE / 2);
    add_store(source, indices, "kiln_x == 0", "kiln_splits == 1", "kiln_row",
              "kiln_row * kiln_splits + kiln_split");
    array_text_add(source, "}\n");

    /* Columns: work-item x of the grid's first dimension owns result item
     * x (of the outer x inner results) and sums stretch y (the grid's
     * second dimension) of the reduced axis down its column: neighbouring
     * work-items read consecutive elements of a row, with no local memory
     * or barrier.  Split reductions with few splits launch it again with
     * kiln_finish set and one stretch: each work-item then combines the
     * `splits` partials of its column (many splits, for few columns, are
     * combined by the finish kernel's trees instead).
     * One kernel serves both launches, told apart by kiln_finish.
     * (Measured on the H100 against 32 x 8 tiles
     * with an in-group tree: 77% of copy against 70-74%.  A 1-D grid whose
     * work-items divide to find their stretch and column cost 3 us of the
     * 32 us of 4096^2 along axis 0, on CUDA and NVIDIA's OpenCL alike.) */
    array_text_add(source, "__kernel void %s_columns", name);
    add_params(source, params);
    array_text_add(
        source,
        "{\n"
        "    KILN_ARGUMENT_VIEWS\n"
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
        "        const long kiln_at = kiln_block * kiln_length * kiln_inner + kiln_column;\n"
        "        long j = kiln_start;\n"
        "        for (; j + 3 < kiln_end; j += 4) {\n"
        "            kiln_acc_t v0 = KILN_LOAD(kiln_at + j * kiln_inner);\n"
        "            kiln_acc_t v1 = KILN_LOAD(kiln_at + (j + 1) * kiln_inner);\n"
        "            kiln_acc_t v2 = KILN_LOAD(kiln_at + (j + 2) * kiln_inner);\n"
        "            kiln_acc_t v3 = KILN_LOAD(kiln_at + (j + 3) * kiln_inner);\n"
        "            KILN_STEP(kiln_acc, kiln_index, v0, j);\n"
        "            KILN_STEP(kiln_acc, kiln_index, v1, j + 1);\n"
        "            KILN_STEP(kiln_acc, kiln_index, v2, j + 2);\n"
        "            KILN_STEP(kiln_acc, kiln_index, v3, j + 3);\n"
        "        }\n"
        "        for (; j < kiln_end; ++j)\n"
        "            KILN_STEP(kiln_acc, kiln_index, KILN_LOAD(kiln_at + j * kiln_inner), j);\n"
        "    }\n"
        "    if (kiln_finish || kiln_splits == 1)\n"
        "        kiln_out[kiln_out_offset + kiln_item] = KILN_FINAL(kiln_acc, kiln_index, kiln_length);\n"
        "    else {\n"
        "        const long p = (kiln_block * kiln_splits + kiln_split) * kiln_inner + kiln_column;\n"
        "        kiln_partial_values[p] = kiln_acc;\n",
        ARRAY_GROUP_SIZE);
    if (indices)
        array_text_add(source, "        kiln_partial_indices[p] = kiln_index;\n");
    array_text_add(source, "    }\n"
                           "}\n\n");

    /* Finish: group g combines the `splits` partials of output g (side by
     * side for rows, `inner` apart for columns) in a tree. */
    array_text_add(
        source,
        "__kernel void %2$s_finish(__global const kiln_acc_t *kiln_partial_values,\n"
        "    __global const long *kiln_partial_indices, long kiln_splits,\n"
        "    long kiln_inner, long kiln_length, __global kiln_out_t *kiln_out,\n"
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
        FINISH_THREADS, name);
    add_tree(source, indices, "kiln_r", FINISH_THREADS / 2);
    array_text_add(source,
                   "    if (kiln_r == 0)\n"
                   "        kiln_out[kiln_out_offset + kiln_output] = "
                   "KILN_FINAL(kiln_values[0], KILN_INDEX_OF(0), kiln_length);\n"
                   "}\n");
}

kiln_status array_reduction_source(const array_reduction_spec *spec,
                                   const array_params *params,
                                   const char *input, array_text *source)
{
    array_text_add(source, ARRAY_SOURCE_HEADER "%s\n",
                   spec->preamble ? spec->preamble : "");
    add_instance_macros(source, spec, input);
    array_params_add_views(source, params);
    add_kernels(source, spec->name, params, spec->better_expression != NULL);
    if (source->failed) {
        array_text_free(source);
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    return KILN_OK;
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

kiln_status array_reduction_launch(kiln_program *program,
                                   const array_reduction_run *run)
{
    kiln_context *context = run->context;
    const size_t outer = run->outer, length = run->length,
                 inner = run->inner;
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
    /* Rows, and columns split many times, finish with the finish kernel;
     * columns split a few times with their own kernel launched again. */
    const bool finish_tree =
        splits > 1 && (rows || splits > COLUMN_LOOP_SPLITS);

    /* as long as the name: a fixed buffer would cut long ones short */
    size_t name_size = strlen(run->name) + sizeof "_columns";
    char *kernel_name = malloc(name_size);
    if (kernel_name == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    snprintf(kernel_name, name_size, "%s_%s", run->name,
             rows ? "rows" : "columns");
    kiln_kernel *kernel = NULL, *finish = NULL;
    kiln_status status = kiln_kernel_create(program, kernel_name, &kernel);
    if (status == KILN_OK && finish_tree) {
        snprintf(kernel_name, name_size, "%s_finish", run->name);
        status = kiln_kernel_create(program, kernel_name, &finish);
    }
    free(kernel_name);

    kiln_buffer *partial_values = NULL, *partial_indices = NULL;
    size_t partials = outer * splits * inner;
    if (status == KILN_OK && splits > 1) {
        status = kiln_buffer_create(context, partials * run->acc_size,
                                    &partial_values);
        if (status == KILN_OK && run->indices)
            status = kiln_buffer_create(context, partials * sizeof(int64_t),
                                        &partial_indices);
    }
    /* Kernels get a buffer for each parameter, used or not: the result's
     * own, or the values', stand in. */
    kiln_buffer *values = partial_values ? partial_values : run->out;
    kiln_buffer *indices = partial_indices ? partial_indices : values;
    const size_t first = run->arg_count, finish_arg = first + 9;
    kiln_arg *args = calloc(first + 10, sizeof *args);
    if (status == KILN_OK && args == NULL)
        status = array_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                             "out of host memory");
    if (status == KILN_OK) {
        memcpy(args, run->args, first * sizeof *args);
        args[first] = KILN_ARG_LONG((int64_t)outer);
        args[first + 1] = KILN_ARG_LONG((int64_t)length);
        args[first + 2] = KILN_ARG_LONG((int64_t)inner);
        args[first + 3] = KILN_ARG_LONG((int64_t)splits);
        args[first + 4] = KILN_ARG_LONG((int64_t)chunk);
        args[first + 5] = KILN_ARG_BUFFER(values);
        args[first + 6] = KILN_ARG_BUFFER(indices);
        args[first + 7] = KILN_ARG_BUFFER(run->out);
        args[first + 8] = KILN_ARG_LONG((int64_t)run->out_index);
        args[finish_arg] = KILN_ARG_INT(0); /* kiln_finish */
    }
    const size_t column_groups =
        (items + ARRAY_GROUP_SIZE - 1) / ARRAY_GROUP_SIZE;
    kiln_launch_config config = {
        .grid = rows ? KILN_DIM1(outer * splits)
                     : KILN_DIM2(column_groups, splits),
        .block = KILN_DIM1(ARRAY_GROUP_SIZE),
        .stream = run->stream,
    };
    if (status == KILN_OK)
        status = kiln_launch(kernel, &config, first + 10, args);
    if (status == KILN_OK && finish_tree) {
        const kiln_arg finish_args[] = {
            KILN_ARG_BUFFER(values),
            KILN_ARG_BUFFER(indices),
            KILN_ARG_LONG((int64_t)splits),
            KILN_ARG_LONG((int64_t)inner),
            KILN_ARG_LONG((int64_t)length),
            KILN_ARG_BUFFER(run->out),
            KILN_ARG_LONG((int64_t)run->out_index),
        };
        const kiln_launch_config finish_config = {
            .grid = KILN_DIM1(items),
            .block = KILN_DIM1(FINISH_THREADS),
            .stream = run->stream,
        };
        status = kiln_launch(finish, &finish_config,
                             sizeof finish_args / sizeof finish_args[0],
                             finish_args);
    } else if (status == KILN_OK && splits > 1) {
        args[finish_arg] = KILN_ARG_INT(1);
        config.grid = KILN_DIM2(column_groups, 1);
        status = kiln_launch(kernel, &config, first + 10, args);
    }
    free(args);
    if (partial_values != NULL)
        array_release_buffer(partial_values);
    if (partial_indices != NULL)
        array_release_buffer(partial_indices);
    if (kernel != NULL)
        array_release_kernel(kernel);
    if (finish != NULL)
        array_release_kernel(finish);
    return status;
}
