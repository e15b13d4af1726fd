/*
 * Elementwise operations on arrays: one generated kernel per combination
 * of expression, dtypes and broadcast pattern (built once, then found in
 * Kiln's program cache), with NumPy's broadcasting and type promotion.
 * Each kernel is an instance of kiln_elementwise_create's template
 * (generator.c): this file chooses its arguments (the arrays, their
 * strides against the result's shape) and its operation (the index
 * arithmetic, the loads, the statement, the store).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPERANDS ARRAY_MAX_OPERANDS
#define DEST ARRAY_LAYOUT_DEST

/* How a kernel reads one operand (or writes the destination). */
typedef enum access {
    ACCESS_SCALAR,     /* a value argument */
    ACCESS_CONTIGUOUS, /* element i of the result, in C order */
    ACCESS_STRIDED     /* through strides (broadcast axes: 0) */
} access;

typedef array_layout layout;

static const char operand_names[MAX_OPERANDS + 1] = {'a', 'b', 'c', 'o'};

kiln_status array_broadcast_shape(const char *function,
                                  const array_operand *operands, size_t count,
                                  size_t *ndim, size_t *shape)
{
    *ndim = 0;
    for (size_t k = 0; k < count; ++k)
        if (operands[k].array != NULL && operands[k].array->ndim > *ndim)
            *ndim = operands[k].array->ndim;
    for (size_t d = 0; d < *ndim; ++d)
        shape[d] = 1;
    for (size_t k = 0; k < count; ++k) {
        const kiln_array *array = operands[k].array;
        if (array == NULL)
            continue;
        size_t skip = *ndim - array->ndim;
        for (size_t d = 0; d < array->ndim; ++d) {
            size_t size = array->shape[d], *out = &shape[skip + d];
            if (size == *out || size == 1)
                continue;
            if (*out == 1) {
                *out = size;
                continue;
            }
            array_text text = {0};
            for (size_t j = 0; j < count; ++j) {
                if (operands[j].array == NULL)
                    continue;
                char one[160];
                array_shape_text(operands[j].array, one, sizeof one);
                array_text_add(&text, "%s%s", text.length ? " and " : "",
                               one);
            }
            kiln_status status = array_error(
                KILN_ERR_SHAPE,
                "%s: shapes %s do not broadcast together (axis %zu: %zu "
                "against %zu)",
                function, text.failed ? "?" : text.data, skip + d, size,
                *out);
            array_text_free(&text);
            return status;
        }
    }
    return KILN_OK;
}

/* The strides of `array` against the result's shape (rank `ndim`): its
 * own, 0 along axes it is broadcast over. */
static void broadcast_strides(const kiln_array *array, size_t ndim,
                              int64_t *strides)
{
    size_t skip = ndim - array->ndim;
    for (size_t d = 0; d < ndim; ++d)
        strides[d] = 0;
    for (size_t d = 0; d < array->ndim; ++d)
        strides[skip + d] = array->shape[d] == 1 ? 0 : array->strides[d];
}

/* Strides of every operand and the destination against the result's
 * shape, then axes merged where every one of them steps across them as
 * across one axis, so that most kernels see one or two axes. */
void array_make_layout(const array_operand *operands, size_t count,
                       const kiln_array *dest, layout *out)
{
    *out = (layout){0};
    const size_t ndim = dest->ndim;
    const size_t *shape = dest->shape;
    int64_t strides[MAX_OPERANDS + 1][KILN_ARRAY_MAX_DIMS] = {{0}};
    for (size_t k = 0; k < count; ++k)
        if (operands[k].array != NULL)
            broadcast_strides(operands[k].array, ndim, strides[k]);
    broadcast_strides(dest, ndim, strides[DEST]);
    size_t kept = 0;
    for (size_t d = 0; d < ndim; ++d) {
        if (shape[d] == 1)
            continue; /* an axis of one contributes nothing */
        /* merge into the axis before when every operand steps across
         * both as across one (broadcast ones: 0 along both) */
        bool merge = kept > 0;
        for (size_t k = 0; merge && k <= DEST; ++k)
            merge = out->strides[k][kept - 1] ==
                    strides[k][d] * (int64_t)shape[d];
        if (merge) {
            out->shape[kept - 1] *= shape[d];
            for (size_t k = 0; k <= DEST; ++k)
                out->strides[k][kept - 1] = strides[k][d];
        } else {
            out->shape[kept] = shape[d];
            for (size_t k = 0; k <= DEST; ++k)
                out->strides[k][kept] = strides[k][d];
            ++kept;
        }
    }
    out->ndim = kept;
}

bool array_layout_contiguous(const layout *lay, size_t k)
{
    /* contiguous with the result: the innermost stride 1 and each outer
     * one the product of the sizes inside it */
    int64_t stride = 1;
    for (size_t d = lay->ndim; d-- > 0;) {
        if (lay->strides[k][d] != stride)
            return false;
        stride *= (int64_t)lay->shape[d];
    }
    return true;
}

/* Generates, builds and launches the kernel of `statement` writing every
 * element of `dest` (its shape the operands' broadcast shape): an
 * instance of kiln_elementwise_create's template, whose index i is the
 * element's in C order and whose pointers are each array's buffer and the
 * byte offset of its first element. */
static kiln_status map_launch(const char *preamble, const char *statement,
                              int choice,
                              kiln_array *dest, const array_operand *operands,
                              size_t count, const array_map_params *params,
                              kiln_stream *stream)
{
    kiln_context *context = dest->context;
    layout lay;
    array_make_layout(operands, count, dest, &lay);
    access accesses[MAX_OPERANDS + 1];
    bool any_strided = false;
    for (size_t k = 0; k <= DEST; ++k) {
        bool present = k == DEST || (k < count && operands[k].array != NULL);
        accesses[k] = !present                            ? ACCESS_SCALAR
                      : array_layout_contiguous(&lay, k) ? ACCESS_CONTIGUOUS
                                                         : ACCESS_STRIDED;
        any_strided |= accesses[k] == ACCESS_STRIDED;
    }
    const char *out_type = array_dtype_ctype(dest->dtype);

    /* The argument list, and the arguments in the same order (3 more
     * slots: the template's own). */
    array_text arguments = {0}, operation = {0};
    kiln_arg args[3 + (MAX_OPERANDS + 1) * (2 + KILN_ARRAY_MAX_DIMS) +
                  KILN_ARRAY_MAX_DIMS + ARRAY_MAP_PARAMS + 3];
    int64_t longs[(MAX_OPERANDS + 1) * KILN_ARRAY_MAX_DIMS +
                  KILN_ARRAY_MAX_DIMS + ARRAY_MAP_PARAMS];
    array_scalar scalars[MAX_OPERANDS];
    size_t arg_count = 0, long_count = 0;
#define ADD_LONG(v) \
    (longs[long_count] = (int64_t)(v), \
     args[arg_count++] = KILN_ARG_VALUE(&longs[long_count++], 8))
    array_text_add(&arguments, "__global %s *kiln_o, int kiln_choice",
                   out_type);
    args[arg_count++] = KILN_ARG_BUFFER(dest->buffer);
    args[arg_count++] =
        KILN_ARG_ULONG((uint64_t)(dest->offset * kiln_dtype_size(dest->dtype)));
    args[arg_count++] = KILN_ARG_INT(choice);
    if (accesses[DEST] == ACCESS_STRIDED)
        for (size_t d = 0; d < lay.ndim; ++d) {
            array_text_add(&arguments, ", long kiln_o_stride%zu", d);
            ADD_LONG(lay.strides[DEST][d]);
        }
    for (size_t k = 0; k < count; ++k) {
        const array_operand *operand = &operands[k];
        const char *ctype = array_dtype_ctype(operand->dtype);
        char name = operand_names[k];
        if (accesses[k] == ACCESS_SCALAR) {
            array_text_add(&arguments, ", %s kiln_%c", ctype, name);
            args[arg_count++] =
                array_scalar_arg(operand->dtype, operand->scalar, &scalars[k]);
            continue;
        }
        const kiln_array *array = operand->array;
        array_text_add(&arguments, ", __global const %s *kiln_%c",
                       array_dtype_ctype(array->dtype), name);
        args[arg_count++] = KILN_ARG_BUFFER(array->buffer);
        args[arg_count++] = KILN_ARG_ULONG(
            (uint64_t)(array->offset * kiln_dtype_size(array->dtype)));
        if (accesses[k] == ACCESS_STRIDED)
            for (size_t d = 0; d < lay.ndim; ++d) {
                array_text_add(&arguments, ", long kiln_%c_stride%zu", name,
                               d);
                ADD_LONG(lay.strides[k][d]);
            }
    }
    if (any_strided)
        for (size_t d = 0; d < lay.ndim; ++d) {
            array_text_add(&arguments, ", long kiln_size%zu", d);
            ADD_LONG(lay.shape[d]);
        }
    for (size_t p = 0; params != NULL && p < params->count; ++p) {
        array_text_add(&arguments, ", long kiln_p%zu", p);
        ADD_LONG(params->values[p]);
    }
#undef ADD_LONG

    /* The operation: each strided operand's element from i's coordinates,
     * the operands read, the statement, the store. */
    if (any_strided) {
        array_text_add(&operation, "long kiln_rest = i, kiln_coordinate;\n");
        for (size_t k = 0; k <= DEST; ++k)
            if (accesses[k] == ACCESS_STRIDED)
                array_text_add(&operation, "        long kiln_%c_index = 0;\n",
                               operand_names[k]);
        for (size_t d = lay.ndim; d-- > 0;) {
            array_text_add(&operation,
                           "        kiln_coordinate = kiln_rest %% kiln_size%zu;\n"
                           "        kiln_rest /= kiln_size%zu;\n",
                           d, d);
            for (size_t k = 0; k <= DEST; ++k)
                if (accesses[k] == ACCESS_STRIDED)
                    array_text_add(&operation,
                                   "        kiln_%c_index += kiln_coordinate * "
                                   "kiln_%c_stride%zu;\n",
                                   operand_names[k], operand_names[k], d);
        }
    }
    for (size_t k = 0; k < count; ++k) {
        char name = operand_names[k];
        const char *ctype = array_dtype_ctype(operands[k].dtype);
        if (accesses[k] == ACCESS_SCALAR)
            array_text_add(&operation, "        const %s %c = kiln_%c;\n",
                           ctype, name, name);
        else if (accesses[k] == ACCESS_CONTIGUOUS)
            array_text_add(&operation,
                           "        const %s %c = (%s)kiln_%c[i];\n", ctype,
                           name, ctype, name);
        else
            array_text_add(&operation,
                           "        const %s %c = (%s)kiln_%c[kiln_%c_index];\n",
                           ctype, name, ctype, name, name);
    }
    /* a bool is stored as 0 or 1 whatever the statement computed */
    array_text_add(&operation,
                   "        %s kiln_r;\n"
                   "        %s\n"
                   "        kiln_o[%s] = %s",
                   out_type, statement,
                   accesses[DEST] == ACCESS_STRIDED ? "kiln_o_index" : "i",
                   dest->dtype == KILN_DTYPE_BOOL ? "kiln_r != 0" : "kiln_r");

    kiln_kernel *kernel = NULL;
    kiln_status status =
        arguments.failed || operation.failed
            ? array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory")
            : array_elementwise_build(context, preamble, arguments.data,
                                      operation.data, "kiln_array_map",
                                      &kernel);
    array_text_free(&arguments);
    array_text_free(&operation);
    if (status == KILN_OK) {
        status = array_elementwise_launch(kernel, dest->size, 0, 1, arg_count,
                                          args, stream);
        array_release_kernel(kernel);
    }
    return status;
}

/* The context of the operands' arrays (and `dest`'s, when given), or
 * KILN_ERR_CONTEXT_MISMATCH. */
static kiln_status operands_context(const char *function,
                                    const array_operand *operands,
                                    size_t count, const kiln_array *dest,
                                    kiln_context **context)
{
    const kiln_array *first = dest;
    for (size_t k = 0; k < count; ++k) {
        if (operands[k].array == NULL)
            continue;
        if (first == NULL)
            first = operands[k].array;
        else if (array_same_context(function, first, operands[k].array) !=
                 KILN_OK)
            return KILN_ERR_CONTEXT_MISMATCH;
    }
    *context = first->context;
    for (size_t k = 0; k < count; ++k) {
        kiln_status status = array_check_device_dtype(
            *context, operands[k].dtype, function);
        if (status != KILN_OK)
            return status;
    }
    return KILN_OK;
}

kiln_status array_map(const char *function, const char *preamble,
                      const char *statement, int choice,
                      kiln_dtype result_dtype, const array_operand *operands,
                      size_t count, kiln_stream *stream, kiln_array **result)
{
    if (result == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: result is NULL",
                           function);
    kiln_context *context = NULL;
    kiln_status status =
        operands_context(function, operands, count, NULL, &context);
    size_t ndim = 0, shape[KILN_ARRAY_MAX_DIMS];
    if (status == KILN_OK)
        status = array_broadcast_shape(function, operands, count, &ndim, shape);
    if (status != KILN_OK)
        return status;
    kiln_array *made = NULL;
    status = array_new(context, result_dtype, ndim, shape, function, &made);
    if (status != KILN_OK)
        return status;
    if (made->size > 0) {
        status = map_launch(preamble, statement, choice, made,
                            operands, count, NULL, stream);
        if (status != KILN_OK) {
            array_release_array(made);
            return array_error_prefix(status, "%s", function);
        }
    }
    *result = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status array_map_into(const char *function, const char *preamble,
                           const char *statement, int choice,
                           kiln_array *dest, const array_operand *operands,
                           size_t count, const array_map_params *params,
                           kiln_stream *stream)
{
    kiln_context *context = NULL;
    kiln_status status =
        operands_context(function, operands, count, dest, &context);
    if (status != KILN_OK)
        return status;
    /* the operands broadcast to dest's shape, not beyond it */
    array_operand all[MAX_OPERANDS + 1];
    for (size_t k = 0; k < count; ++k)
        all[k] = operands[k];
    all[count] = (array_operand){.array = dest, .dtype = dest->dtype};
    size_t ndim = 0, shape[KILN_ARRAY_MAX_DIMS];
    status = array_broadcast_shape(function, all, count + 1, &ndim, shape);
    if (status != KILN_OK)
        return status;
    bool same = ndim == dest->ndim;
    for (size_t d = 0; same && d < ndim; ++d)
        same = shape[d] == dest->shape[d];
    if (!same) {
        char from[160], to[160];
        array_shape_text(count > 0 && operands[0].array ? operands[0].array
                                                        : dest,
                         from, sizeof from);
        array_shape_text(dest, to, sizeof to);
        return array_error(KILN_ERR_SHAPE,
                           "%s: an array of shape %s does not broadcast to "
                           "the shape %s written",
                           function, from, to);
    }
    if (dest->size == 0)
        return kiln_error_set(KILN_OK, NULL);
    status = map_launch(preamble, statement, choice, dest,
                        operands, count, params, stream);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status array_fill_expression(kiln_array *array, const char *expression,
                                  size_t value_count, const double *values,
                                  kiln_stream *stream)
{
    if (array->size == 0)
        return KILN_OK;
    bool has_double = array_has_double(array->context);
    const char *real = has_double ? "double" : "float";
    const char *ctype = array_dtype_ctype(array->dtype);
    /* an instance of kiln_elementwise_create's template, as map_launch */
    char preamble[32];
    snprintf(preamble, sizeof preamble, "typedef %s kiln_real;", real);
    array_text arguments = {0}, operation = {0};
    array_text_add(&arguments, "__global %s *kiln_out", ctype);
    kiln_arg args[2 + 4 + 3];
    array_scalar slots[4];
    size_t count = 0;
    args[count++] = KILN_ARG_BUFFER(array->buffer);
    args[count++] = KILN_ARG_ULONG(
        (uint64_t)(array->offset * kiln_dtype_size(array->dtype)));
    for (size_t k = 0; k < value_count && k < 4; ++k) {
        array_text_add(&arguments, ", kiln_real v%zu", k);
        args[count++] = array_scalar_arg(
            has_double ? KILN_DTYPE_FLOAT64 : KILN_DTYPE_FLOAT32, values[k],
            &slots[k]);
    }
    array_text_add(&operation, "kiln_out[i] = (%s)(%s)", ctype, expression);
    kiln_kernel *kernel = NULL;
    kiln_status status =
        arguments.failed || operation.failed
            ? array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory")
            : array_elementwise_build(array->context, preamble,
                                      arguments.data, operation.data,
                                      "kiln_array_fill", &kernel);
    array_text_free(&arguments);
    array_text_free(&operation);
    if (status != KILN_OK)
        return status;
    status = array_elementwise_launch(kernel, array->size, 0, 1, count, args,
                                      stream);
    array_release_kernel(kernel);
    return status;
}

/* ---- binary operations -------------------------------------------------------- */

static bool op_valid(kiln_array_op op)
{
    return (unsigned)op <= (unsigned)KILN_OP_GREATER_EQUAL;
}

static bool op_is_comparison(kiln_array_op op)
{
    return op >= KILN_OP_EQUAL;
}

const char *array_op_expression(kiln_array_op op, kiln_dtype dtype)
{
    bool is_float = array_dtype_is_float(dtype);
    switch (op) {
    case KILN_OP_ADD:
        return "a + b";
    case KILN_OP_SUBTRACT:
        return "a - b";
    case KILN_OP_MULTIPLY:
        return "a * b";
    case KILN_OP_DIVIDE:
        return "a / b";
    case KILN_OP_POWER:
        /* integers by squaring: no double precision needed */
        return is_float ? "pow(a, b)" : "kiln_ipow(a, b)";
    case KILN_OP_MAXIMUM:
        /* NaN wins, as in numpy.maximum */
        return is_float ? "(isnan(a) || a > b) ? a : b" : "a > b ? a : b";
    case KILN_OP_MINIMUM:
        return is_float ? "(isnan(a) || a < b) ? a : b" : "a < b ? a : b";
    case KILN_OP_EQUAL:
        return "a == b";
    case KILN_OP_NOT_EQUAL:
        return "a != b";
    case KILN_OP_LESS:
        return "a < b";
    case KILN_OP_LESS_EQUAL:
        return "a <= b";
    case KILN_OP_GREATER:
        return "a > b";
    case KILN_OP_GREATER_EQUAL:
    default:
        return "a >= b";
    }
}

/* The arithmetic operators (or the comparisons) as one switch over
 * kiln_choice: one program for the family. */
static void add_op_switch(array_text *text, bool comparisons,
                          kiln_dtype compute, kiln_dtype result)
{
    array_text_add(text, "switch (kiln_choice) {");
    int first = comparisons ? KILN_OP_EQUAL : KILN_OP_ADD;
    int last = comparisons ? KILN_OP_GREATER_EQUAL : KILN_OP_MINIMUM;
    for (int op = first; op <= last; ++op)
        array_text_add(text, " case %d: kiln_r = (%s)(%s); break;", op,
                       array_dtype_ctype(result),
                       array_op_expression((kiln_array_op)op, compute));
    array_text_add(text, " default: kiln_r = (%s)(%s); }",
                   array_dtype_ctype(result),
                   array_op_expression((kiln_array_op)last, compute));
}

/* Integer powers by squaring; negative exponents give 0 (numpy refuses
 * them), as does C's integer division of 1 by a larger number. */
#define IPOW_PREAMBLE(type)                                                  \
    "%1$s kiln_ipow(%1$s base, %1$s exponent)\n"                           \
    "{\n"                                                                    \
    "    %1$s result = 1;\n"                                                \
    "    if (exponent < 0) return base == 1 ? 1 : 0;\n"                     \
    "    while (exponent > 0) {\n"                                           \
    "        if (exponent & 1) result *= base;\n"                           \
    "        base *= base;\n"                                                \
    "        exponent >>= 1;\n"                                              \
    "    }\n"                                                                \
    "    return result;\n"                                                   \
    "}\n"

void array_add_ipow(array_text *preamble, kiln_dtype compute)
{
    if (!array_dtype_is_float(compute))
        array_text_add(preamble, IPOW_PREAMBLE(type),
                       array_dtype_ctype(compute));
}

kiln_status array_binary_types(const char *function, kiln_array_op op,
                               kiln_dtype a, const kiln_dtype *b,
                               double scalar, kiln_dtype *compute,
                               kiln_dtype *result)
{
    if (!op_valid(op))
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: %d is not a kiln_array_op", function, (int)op);
    kiln_dtype promoted = a;
    /* a fraction, an infinity or NaN (NaN != floor(NaN)) */
    bool fractional = scalar != floor(scalar) || isinf(scalar);
    if (b != NULL) {
        promoted = array_promote(a, *b);
    } else if (a == KILN_DTYPE_BOOL) {
        /* a weak number against bools: NumPy's default integer or
         * float64 */
        promoted = fractional ? KILN_DTYPE_FLOAT64 : KILN_DTYPE_INT64;
    } else if (!array_dtype_is_float(a) && fractional) {
        /* A weak scalar keeps the array's dtype, unless a fraction meets
         * an integer array. */
        promoted = KILN_DTYPE_FLOAT64;
    } else if (array_scalar_out_of_range(a, scalar)) {
        /* binary() answers comparisons of these; C's conversion of the
         * scalar would be undefined */
        array_scalar_check(a, scalar, false, function);
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: the scalar is outside the array's dtype; "
                           "convert the array first (kiln_array_astype)",
                           function);
    }
    *compute = promoted;
    if (op == KILN_OP_DIVIDE && !array_dtype_is_float(promoted))
        *compute = KILN_DTYPE_FLOAT64;
    if (promoted == KILN_DTYPE_BOOL && op == KILN_OP_SUBTRACT)
        return array_error(KILN_ERR_DTYPE,
                           "%s: subtracting bools is not defined (NumPy "
                           "refuses it too); use logical_xor or convert "
                           "them first",
                           function);
    if (promoted == KILN_DTYPE_BOOL && op == KILN_OP_POWER)
        *compute = KILN_DTYPE_INT8; /* as NumPy's power of bools */
    *result = op_is_comparison(op) ? KILN_DTYPE_BOOL : *compute;
    return KILN_OK;
}

/* A whole scalar outside an integer array's dtype (300 against uint8):
 * C's conversion of it would be undefined.  A comparison has the same
 * answer for every element, so its result is filled; arithmetic is
 * refused, as NumPy 2 refuses it (OverflowError). */
static kiln_status out_of_range_scalar(const char *function,
                                       kiln_array_op op,
                                       const kiln_array *array, double scalar,
                                       bool scalar_first, kiln_stream *stream,
                                       kiln_array **result)
{
    if (!op_is_comparison(op)) {
        array_scalar_check(array->dtype, scalar, false, function);
        char *range = strdup(kiln_last_error());
        kiln_status status = array_error(
            KILN_ERR_INVALID_ARGUMENT,
            "%s: arithmetic with an array of that dtype would wrap it; "
            "convert the array first (kiln_array_astype)",
            range != NULL ? range : function);
        free(range);
        return status;
    }
    /* every element is below the scalar, or every one above it */
    bool above = scalar > 0;
    if (scalar_first) /* scalar OP a is a (mirrored OP) scalar */
        op = op == KILN_OP_LESS            ? KILN_OP_GREATER
             : op == KILN_OP_LESS_EQUAL    ? KILN_OP_GREATER_EQUAL
             : op == KILN_OP_GREATER       ? KILN_OP_LESS
             : op == KILN_OP_GREATER_EQUAL ? KILN_OP_LESS_EQUAL
                                           : op;
    bool truth;
    switch (op) {
    case KILN_OP_EQUAL: truth = false; break;
    case KILN_OP_NOT_EQUAL: truth = true; break;
    case KILN_OP_LESS:
    case KILN_OP_LESS_EQUAL: truth = above; break;
    default: truth = !above; break;
    }
    kiln_status status = kiln_array_full(array->context, KILN_DTYPE_BOOL,
                                         array->ndim, array->shape,
                                         truth ? 1 : 0, stream, result);
    return status == KILN_OK ? status
                             : array_error_prefix(status, "%s", function);
}

static kiln_status binary(const char *function, kiln_array_op op,
                          array_operand a, array_operand b,
                          kiln_stream *stream, kiln_array **result)
{
    kiln_dtype compute, result_dtype;
    const array_operand *array = a.array ? &a : &b;
    const kiln_dtype *other = a.array && b.array ? &b.array->dtype : NULL;
    double scalar = a.array ? b.scalar : a.scalar;
    if (op_valid(op) && other == NULL &&
        array_scalar_out_of_range(array->array->dtype, scalar))
        return out_of_range_scalar(function, op, array->array, scalar,
                                   a.array == NULL, stream, result);
    kiln_status status = array_binary_types(
        function, op, array->array->dtype, other, scalar, &compute,
        &result_dtype);
    if (status != KILN_OK)
        return status;
    a.dtype = b.dtype = compute;
    const array_operand operands[2] = {a, b};
    array_text statement = {0}, preamble = {0};
    add_op_switch(&statement, op_is_comparison(op), compute, result_dtype);
    array_add_ipow(&preamble, compute);
    status =
        statement.failed || preamble.failed
            ? array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory")
            : array_map(function, preamble.data, statement.data, (int)op,
                        result_dtype, operands, 2, stream, result);
    array_text_free(&statement);
    array_text_free(&preamble);
    return status;
}

kiln_status kiln_array_binary(kiln_array_op op, const kiln_array *a,
                              const kiln_array *b, kiln_stream *stream,
                              kiln_array **result)
{
    static const char function[] = "kiln_array_binary";
    kiln_status status = array_check(a, function, "a");
    if (status == KILN_OK)
        status = array_check(b, function, "b");
    if (status != KILN_OK)
        return status;
    return binary(function, op, (array_operand){.array = a},
                  (array_operand){.array = b}, stream, result);
}

kiln_status kiln_array_binary_scalar(kiln_array_op op, const kiln_array *a,
                                     double scalar, kiln_stream *stream,
                                     kiln_array **result)
{
    static const char function[] = "kiln_array_binary_scalar";
    kiln_status status = array_check(a, function, "a");
    if (status != KILN_OK)
        return status;
    return binary(function, op, (array_operand){.array = a},
                  (array_operand){.scalar = scalar}, stream, result);
}

kiln_status kiln_array_scalar_binary(kiln_array_op op, double scalar,
                                     const kiln_array *a, kiln_stream *stream,
                                     kiln_array **result)
{
    static const char function[] = "kiln_array_scalar_binary";
    kiln_status status = array_check(a, function, "a");
    if (status != KILN_OK)
        return status;
    return binary(function, op, (array_operand){.scalar = scalar},
                  (array_operand){.array = a}, stream, result);
}

/* ---- math functions ----------------------------------------------------------------- */

kiln_status kiln_array_math(kiln_array_function function_id,
                            const kiln_array *a, kiln_stream *stream,
                            kiln_array **result)
{
    static const char function[] = "kiln_array_math";
    kiln_status status = array_check(a, function, "a");
    if (status != KILN_OK)
        return status;
    static const char *const float_expressions[] = {
        [KILN_FN_NEGATIVE] = "-a",     [KILN_FN_ABS] = "fabs(a)",
        [KILN_FN_SQUARE] = "a * a",    [KILN_FN_SQRT] = "sqrt(a)",
        [KILN_FN_EXP] = "exp(a)",      [KILN_FN_LOG] = "log(a)",
        [KILN_FN_LOG10] = "log10(a)",  [KILN_FN_SIN] = "sin(a)",
        [KILN_FN_COS] = "cos(a)",      [KILN_FN_TAN] = "tan(a)",
        [KILN_FN_TANH] = "tanh(a)",    [KILN_FN_FLOOR] = "floor(a)",
        [KILN_FN_CEIL] = "ceil(a)",
    };
    if ((unsigned)function_id > (unsigned)KILN_FN_CEIL)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: %d is not a kiln_array_function", function,
                           (int)function_id);
    kiln_dtype dtype = a->dtype;
    if (dtype == KILN_DTYPE_BOOL && function_id == KILN_FN_NEGATIVE)
        return array_error(KILN_ERR_DTYPE,
                           "%s: negating bools is not defined (NumPy refuses "
                           "it too); use logical_not",
                           function);
    if (dtype == KILN_DTYPE_BOOL && function_id == KILN_FN_SQUARE)
        dtype = KILN_DTYPE_INT8; /* as NumPy's square of bools */
    bool keeps_dtype = function_id == KILN_FN_NEGATIVE ||
                       function_id == KILN_FN_ABS ||
                       function_id == KILN_FN_SQUARE ||
                       function_id == KILN_FN_FLOOR ||
                       function_id == KILN_FN_CEIL;
    array_text statement = {0};
    if (array_dtype_is_float(dtype) || !keeps_dtype) {
        if (!array_dtype_is_float(dtype))
            dtype = kiln_dtype_size(dtype) <= 2 ? KILN_DTYPE_FLOAT32
                                                : KILN_DTYPE_FLOAT64;
        /* every function in one program, chosen at run time */
        array_text_add(&statement, "switch (kiln_choice) {");
        for (int f = 0; f < KILN_FN_CEIL; ++f)
            array_text_add(&statement, " case %d: kiln_r = %s; break;", f,
                           float_expressions[f]);
        array_text_add(&statement, " default: kiln_r = %s; }",
                       float_expressions[KILN_FN_CEIL]);
    } else {
        /* integers that keep their dtype: negative, abs, square; floor
         * and ceil are the identity */
        array_text_add(&statement,
                       "switch (kiln_choice) { case %d: kiln_r = -a; break; "
                       "case %d: kiln_r = (%s)%s; break; "
                       "case %d: kiln_r = a * a; break; default: kiln_r = a; }",
                       KILN_FN_NEGATIVE, KILN_FN_ABS, array_dtype_ctype(dtype),
                       array_dtype_is_signed(dtype) ? "abs(a)" : "a",
                       KILN_FN_SQUARE);
    }
    const array_operand operand = {.array = a, .dtype = dtype};
    status = statement.failed
                 ? array_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                               "out of host memory")
                 : array_map(function, NULL, statement.data, (int)function_id,
                             dtype, &operand, 1, stream, result);
    array_text_free(&statement);
    return status;
}

kiln_status kiln_array_where(const kiln_array *condition, const kiln_array *a,
                             const kiln_array *b, kiln_stream *stream,
                             kiln_array **result)
{
    static const char function[] = "kiln_array_where";
    kiln_status status = array_check(condition, function, "condition");
    if (status == KILN_OK)
        status = array_check(a, function, "a");
    if (status == KILN_OK)
        status = array_check(b, function, "b");
    if (status != KILN_OK)
        return status;
    kiln_dtype dtype = array_promote(a->dtype, b->dtype);
    const array_operand operands[3] = {
        {.array = condition, .dtype = condition->dtype},
        {.array = a, .dtype = dtype},
        {.array = b, .dtype = dtype},
    };
    return array_map(function, NULL, "kiln_r = a != 0 ? b : c;", 0, dtype,
                     operands, 3, stream, result);
}
