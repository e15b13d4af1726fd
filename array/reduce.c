/*
 * Reductions of arrays: sum, prod, mean, min, max, argmin, argmax, over
 * everything or along one axis.  Each is an instance of the reduction
 * template (reduction.c), the one kiln_reduction_create makes its kernels
 * with: this file chooses the instance (types, neutral element, combining
 * expression, what one load reads, the final value) and the array's
 * (outer, length, inner) shape; the template does the rest.  A plain sum
 * is the very instance kiln_reduction_create("float", "0", "a + b", NULL,
 * "__global const float *x", "kiln_reduce", NULL) makes, so the two share
 * one program in the cache.
 * The same instances reduce a OP b without making it (kiln_array_reduce_
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

/* The kernels' names: kiln_reduce_rows, _columns and _finish. */
#define REDUCE_NAME "kiln_reduce"

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

/* The instance of the reduction template for `op` on `types`: the spec
 * (its strings in `neutral` and `preamble`) and its argument list: the
 * input x, and for a OP b, y or b's scalar. */
static void reduce_spec(kiln_array_reduce_op op, const reduce_types *types,
                        array_reduction_spec *spec, char *neutral,
                        size_t neutral_size, array_text *preamble,
                        char *arguments, size_t arguments_size)
{
    bool is_float = array_dtype_is_float(types->accumulate);
    *spec = (array_reduction_spec){
        .type = array_dtype_ctype(types->accumulate),
        .neutral = neutral,
        .reduce_expression = "a + b",
        .output_type = array_dtype_ctype(types->output),
        .name = REDUCE_NAME,
    };
    snprintf(neutral, neutral_size, "0");
    switch (op) {
    case KILN_REDUCE_PROD:
        snprintf(neutral, neutral_size, "1");
        spec->reduce_expression = "a * b";
        break;
    case KILN_REDUCE_MIN:
    case KILN_REDUCE_ARGMIN:
        extreme_literal(types->accumulate, false, neutral, neutral_size);
        spec->reduce_expression =
            is_float ? "(isnan(a) | (a < b)) ? a : b" : "a < b ? a : b";
        break;
    case KILN_REDUCE_MAX:
    case KILN_REDUCE_ARGMAX:
        extreme_literal(types->accumulate, true, neutral, neutral_size);
        spec->reduce_expression =
            is_float ? "(isnan(a) | (a > b)) ? a : b" : "a > b ? a : b";
        break;
    default:
        break;
    }
    if (op == KILN_REDUCE_MEAN)
        spec->final_expression = "(acc) / (kiln_acc_t)(count)";
    /* Ties go to the smaller index, so the answer is the first extreme
     * whatever order the work-items meet in.  | and &, not || and &&, in
     * these tests: short-circuits compile to branches, and NVVM then
     * waits for each load of the column loops alone (min along axis 0 of
     * 4096 x 4096 on the H100: 51 us against the sum's 36). */
    if (types->arg) {
        spec->final_expression = "index";
        spec->better_expression =
            op == KILN_REDUCE_ARGMIN
                ? "((vb) < (va)) | (((vb) == (va)) & ((ib) < (ia)))"
                : "((vb) > (va)) | (((vb) == (va)) & ((ib) < (ia)))";
    }
    /* A NaN wins, as in NumPy and CuPy (argmin and argmax return the
     * first NaN, as min and max return NaN), and among NaNs the smaller
     * index. */
    if (types->arg && is_float)
        spec->better_expression =
            op == KILN_REDUCE_ARGMIN
                ? "(isnan(vb) & !isnan(va)) | ((isnan(vb) == isnan(va)) & "
                  "(((vb) < (va)) | ((((vb) == (va)) | isnan(vb)) & "
                  "((ib) < (ia)))))"
                : "(isnan(vb) & !isnan(va)) | ((isnan(vb) == isnan(va)) & "
                  "(((vb) > (va)) | ((((vb) == (va)) | isnan(vb)) & "
                  "((ib) < (ia)))))";
    const char *st = array_dtype_ctype(types->source);
    if (!types->mapped) {
        snprintf(arguments, arguments_size, "__global const %s *x", st);
        return;
    }
    /* One load: kiln_map of an element of a and one of b (or b's
     * scalar), computed in the operation's dtype and converted to its
     * result's. */
    const char *bt = array_dtype_ctype(types->second),
               *ct = array_dtype_ctype(types->compute),
               *it = array_dtype_ctype(types->input);
    array_add_ipow(preamble, types->compute);
    array_text_add(preamble,
                   "inline %s kiln_map(%s kiln_a0, %s kiln_b0)\n"
                   "{\n"
                   "    const %s a = (%s)kiln_a0;\n"
                   "    const %s b = (%s)kiln_b0;\n"
                   "    return (%s)(%s);\n"
                   "}\n",
                   it, st, bt, ct, ct, ct, ct, it,
                   array_op_expression(types->op, types->compute));
    if (types->scalar)
        snprintf(arguments, arguments_size,
                 "__global const %s *x, %s kiln_scalar_b", st, bt);
    else
        snprintf(arguments, arguments_size,
                 "__global const %s *x, __global const %s *y", st, bt);
    /* bools are 0 or 1, as when stored */
    spec->map_expression =
        types->input == KILN_DTYPE_BOOL
            ? (types->scalar ? "kiln_map(x[i], kiln_scalar_b) != 0"
                             : "kiln_map(x[i], y[i]) != 0")
            : (types->scalar ? "kiln_map(x[i], kiln_scalar_b)"
                             : "kiln_map(x[i], y[i])");
}

/* The generated source of each (op, input dtype), made once per process:
 * every call builds it through the program cache, and formatting it each
 * time was a large part of a call's host time. */
#define REDUCE_OPS (KILN_REDUCE_ARGMAX + 1)
#define REDUCE_DTYPES (KILN_DTYPE_BOOL + 1)
#define BINARY_OPS (KILN_OP_GREATER_EQUAL + 1)
static _Atomic(char *) reduce_sources[REDUCE_OPS][REDUCE_DTYPES];
/* Reductions of a OP b for a and b of one dtype, or of a OP scalar
 * computed in a's dtype; others are made at every call. */
static _Atomic(char *) mapped_sources[REDUCE_OPS][BINARY_OPS][REDUCE_DTYPES]
                                     [2];

/* The instance's source: kept for the process in `slot` (when not NULL),
 * made at every call otherwise (*made then owns it).  NULL when out of
 * memory. */
static const char *reduce_source(kiln_array_reduce_op op,
                                 const reduce_types *types, char **made)
{
    _Atomic(char *) *slot = NULL;
    *made = NULL;
    if (!types->mapped)
        slot = &reduce_sources[op][types->source];
    /* a scalar's value decides the compute dtype (int32 * 3 is int32,
     * int32 * 0.5 float64): only the one equal to the array's is kept */
    else if (types->scalar ? types->compute == types->source
                           : types->second == types->source)
        slot = &mapped_sources[op][types->op][types->source][types->scalar];
    char *known = slot != NULL ? atomic_load(slot) : NULL;
    if (known != NULL)
        return known;
    array_reduction_spec spec;
    char neutral[96], arguments[128];
    array_text preamble = {0}, source = {0};
    reduce_spec(op, types, &spec, neutral, sizeof neutral, &preamble,
                arguments, sizeof arguments);
    if (preamble.failed) {
        array_text_free(&preamble);
        return NULL;
    }
    spec.preamble = preamble.data;
    array_params params = {0};
    kiln_status status =
        array_params_parse("reduction '" REDUCE_NAME "'", arguments, &params);
    if (status == KILN_OK)
        status = array_reduction_source(&spec, &params, "x", &source);
    array_params_free(&params);
    array_text_free(&preamble);
    if (status != KILN_OK)
        return NULL;
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

    /* The instance's arguments as array_params_args makes them: each
     * pointer its buffer and byte offset. */
    array_scalar scalar_b;
    kiln_arg args[4] = {
        KILN_ARG_BUFFER(a->buffer),
        KILN_ARG_ULONG((uint64_t)(a->offset * kiln_dtype_size(a->dtype))),
    };
    size_t arg_count = 2;
    if (types->mapped && types->scalar) {
        args[arg_count++] =
            array_scalar_arg(types->second, input->scalar, &scalar_b);
    } else if (types->mapped) {
        const kiln_array *b = input->b;
        args[arg_count++] = KILN_ARG_BUFFER(b->buffer);
        args[arg_count++] = KILN_ARG_ULONG(
            (uint64_t)(b->offset * kiln_dtype_size(b->dtype)));
    }
    const array_reduction_run run = {
        .context = context,
        .name = REDUCE_NAME,
        .outer = outer,
        .length = length,
        .inner = inner,
        .acc_size = kiln_dtype_size(types->accumulate),
        .indices = types->arg,
        .arg_count = arg_count,
        .args = args,
        .out = result->buffer,
        .out_index = result->offset,
        .stream = stream,
    };
    status = array_reduction_launch(program, &run);
    array_release_program(program);
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
