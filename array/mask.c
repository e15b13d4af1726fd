/*
 * Boolean masks: a[mask] (the selected elements, in C order), a[mask] =
 * values and a[mask] = value.  Selecting needs each selected row's place
 * in the result: an inclusive scan of the mask (Kiln's scan generator)
 * gives it, and its last value the count, which sizes the result (the one
 * wait).  Writing one value, or values that broadcast without the count,
 * needs no scan: it is a `mask ? value : a` map into a.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every mask function checks: the arrays, a bool mask, and a mask
 * shape that is the start of a's.  *rows is the mask's size, *rest the
 * elements of a per mask element. */
static kiln_status check_mask(const char *function, const kiln_array *a,
                              const kiln_array *mask, size_t *rows,
                              size_t *rest)
{
    kiln_status status = array_check(a, function, "a");
    if (status == KILN_OK)
        status = array_check(mask, function, "mask");
    if (status == KILN_OK)
        status = array_same_context(function, a, mask);
    if (status != KILN_OK)
        return status;
    if (mask->dtype != KILN_DTYPE_BOOL)
        return array_error(KILN_ERR_DTYPE,
                           "%s: the mask is %s, not bool (compare to make "
                           "one: a > 0)",
                           function, kiln_dtype_name(mask->dtype));
    bool fits = mask->ndim >= 1 && mask->ndim <= a->ndim;
    for (size_t d = 0; fits && d < mask->ndim; ++d)
        fits = mask->shape[d] == a->shape[d];
    if (!fits) {
        char m[160], s[160];
        array_shape_text(mask, m, sizeof m);
        array_shape_text(a, s, sizeof s);
        return array_error(KILN_ERR_SHAPE,
                           "%s: a mask of shape %s does not index an array "
                           "of shape %s (its shape must be the array's "
                           "first axes)",
                           function, m, s);
    }
    *rows = mask->size;
    *rest = 1;
    for (size_t d = mask->ndim; d < a->ndim; ++d)
        *rest *= a->shape[d];
    return KILN_OK;
}

/* The inclusive count of true elements up to each element of the
 * (contiguous) mask, into a new buffer of longs, and the total (waiting
 * for it). */
static kiln_status count_mask(const kiln_array *mask, kiln_stream *stream,
                              kiln_buffer **positions, size_t *count)
{
    kiln_context *context = mask->context;
    const size_t n = mask->size;
    kiln_buffer *view = NULL, *made = NULL;
    kiln_scan *scan = NULL;
    kiln_status status = kiln_scan_create(
        context, "long", "0", "a + b", "(long)(kiln_mask[i] != 0)",
        "global const uchar *kiln_mask", KILN_SCAN_INCLUSIVE,
        "kiln_mask_count", NULL, &scan);
    if (status == KILN_OK)
        status = kiln_buffer_create_view(mask->buffer, mask->offset, n, &view);
    if (status == KILN_OK)
        status = kiln_buffer_create(context, n * sizeof(int64_t), &made);
    if (status == KILN_OK) {
        const kiln_arg args[] = {KILN_ARG_BUFFER(view)};
        status = kiln_scan_run(scan, n, 1, args, made, 0, stream);
    }
    int64_t total = 0;
    if (status == KILN_OK)
        status = kiln_buffer_read_async(made, (n - 1) * sizeof(int64_t),
                                        &total, sizeof total, stream);
    if (status == KILN_OK)
        status = array_stream_synchronize(context, stream);
    if (scan != NULL)
        kiln_scan_release(scan);
    if (view != NULL)
        array_release_buffer(view);
    if (status != KILN_OK) {
        if (made != NULL)
            array_release_buffer(made);
        return status;
    }
    *positions = made;
    *count = (size_t)total;
    return KILN_OK;
}

/* The kernels that move selected rows: `select` copies row r of `in` to
 * its place in `out`; `place` copies a row of `values` to row r of `out`
 * (a, in place).  Instances of kiln_elementwise_create's template, one
 * work-item per element of the mask's rows. */
static kiln_status mask_kernel(kiln_context *context, kiln_dtype dtype,
                               bool select, kiln_kernel **kernel)
{
    const char *type = array_dtype_ctype(dtype);
    char arguments[160];
    snprintf(arguments, sizeof arguments,
             "__global %1$s *kiln_out, __global const %1$s *kiln_in, "
             "__global const uchar *kiln_mask, "
             "__global const long *kiln_places, long kiln_rest",
             type);
    char operation[512];
    snprintf(operation, sizeof operation,
             "const long kiln_row = i / kiln_rest;\n"
             "        if (kiln_mask[kiln_row]) {\n"
             "            const long kiln_at = (kiln_places[kiln_row] - 1) * kiln_rest\n"
             "                + (i - kiln_row * kiln_rest);\n"
             "            %s\n"
             "        }",
             select ? "kiln_out[kiln_at] = kiln_in[i];"
                    : "kiln_out[i] = kiln_in[kiln_at];");
    return array_elementwise_build(context, NULL, arguments, operation,
                                   "kiln_mask_move", kernel);
}

/* An array's element 0 as the template takes a pointer: its buffer and
 * the byte offset. */
#define ARRAY_ELEMENTS(array)                                                \
    KILN_ARG_BUFFER((array)->buffer),                                        \
        KILN_ARG_ULONG(                                                      \
            (uint64_t)((array)->offset * kiln_dtype_size((array)->dtype)))

static kiln_status move_rows(kiln_context *context, kiln_dtype dtype,
                             bool select, kiln_array *out,
                             const kiln_array *in, const kiln_array *mask,
                             kiln_buffer *places, size_t rest,
                             kiln_stream *stream)
{
    kiln_kernel *kernel = NULL;
    kiln_status status = mask_kernel(context, dtype, select, &kernel);
    if (status != KILN_OK)
        return status;
    const size_t n = mask->size * rest;
    kiln_arg args[] = {
        ARRAY_ELEMENTS(out),
        ARRAY_ELEMENTS(in),
        ARRAY_ELEMENTS(mask),
        KILN_ARG_BUFFER(places), KILN_ARG_ULONG(0),
        KILN_ARG_LONG((int64_t)rest),
        {0}, {0}, {0}, /* the template's */
    };
    status = array_elementwise_launch(kernel, n, 0, 1,
                                      sizeof args / sizeof *args - 3, args,
                                      stream);
    array_release_kernel(kernel);
    return status;
}

kiln_status kiln_array_mask_select(const kiln_array *a,
                                   const kiln_array *mask,
                                   kiln_stream *stream, kiln_array **result)
{
    static const char function[] = "kiln_array_mask_select";
    size_t rows = 0, rest = 0;
    kiln_status status = check_mask(function, a, mask, &rows, &rest);
    if (status != KILN_OK)
        return status;
    if (result == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: result is NULL",
                           function);
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 1 + a->ndim - mask->ndim;
    shape[0] = 0;
    for (size_t d = mask->ndim; d < a->ndim; ++d)
        shape[1 + d - mask->ndim] = a->shape[d];
    if (rows == 0 || rest == 0)
        return kiln_array_empty(a->context, a->dtype, ndim, shape, result);
    kiln_array *m = NULL, *in = NULL, *made = NULL;
    kiln_buffer *places = NULL;
    size_t count = 0;
    status = array_contiguous(mask, stream, function, &m);
    if (status == KILN_OK)
        status = array_contiguous(a, stream, function, &in);
    if (status == KILN_OK)
        status = count_mask(m, stream, &places, &count);
    if (status == KILN_OK) {
        shape[0] = count;
        status = array_new(a->context, a->dtype, ndim, shape, function, &made);
    }
    if (status == KILN_OK && count > 0)
        status = move_rows(a->context, a->dtype, true, made, in, m, places,
                           rest, stream);
    if (places != NULL)
        array_release_buffer(places);
    if (m != NULL)
        array_release_array(m);
    if (in != NULL)
        array_release_array(in);
    if (status != KILN_OK) {
        if (made != NULL)
            array_release_array(made);
        return array_error_prefix(status, "%s", function);
    }
    *result = made;
    return kiln_error_set(KILN_OK, NULL);
}

/* The mask as a view of a's rank (its shape, then axes of one with stride
 * 0), so that it broadcasts over the rest of a. */
static kiln_status mask_over(const kiln_array *a, const kiln_array *mask,
                             kiln_array **view)
{
    size_t shape[KILN_ARRAY_MAX_DIMS];
    int64_t strides[KILN_ARRAY_MAX_DIMS];
    for (size_t d = 0; d < a->ndim; ++d) {
        shape[d] = d < mask->ndim ? mask->shape[d] : 1;
        strides[d] = d < mask->ndim ? mask->strides[d] : 0;
    }
    return kiln_array_view((kiln_array *)mask, 0, a->ndim, shape, strides,
                           view);
}

/* a = mask ? value : a, with `values` (NULL: `scalar`) broadcast over a's
 * trailing axes (right-aligned, as NumPy broadcasts). */
static kiln_status write_where(const char *function, kiln_array *a,
                               const kiln_array *mask,
                               const kiln_array *values, double scalar,
                               kiln_stream *stream)
{
    kiln_array *over = NULL;
    kiln_status status = mask_over(a, mask, &over);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    const array_operand operands[3] = {
        {.array = over, .dtype = KILN_DTYPE_BOOL},
        {.array = values, .scalar = scalar, .dtype = a->dtype},
        {.array = a, .dtype = a->dtype},
    };
    status = array_map_into(function, NULL, "kiln_r = a ? b : c;", 0, a,
                            operands, 3, NULL, stream);
    array_release_array(over);
    return status;
}

kiln_status kiln_array_mask_fill(kiln_array *a, const kiln_array *mask,
                                 double value, kiln_stream *stream)
{
    static const char function[] = "kiln_array_mask_fill";
    size_t rows = 0, rest = 0;
    kiln_status status = check_mask(function, a, mask, &rows, &rest);
    if (status != KILN_OK)
        return status;
    return write_where(function, a, mask, NULL, value, stream);
}

kiln_status kiln_array_mask_assign(kiln_array *a, const kiln_array *mask,
                                   const kiln_array *values,
                                   kiln_stream *stream)
{
    static const char function[] = "kiln_array_mask_assign";
    size_t rows = 0, rest = 0;
    kiln_status status = check_mask(function, a, mask, &rows, &rest);
    if (status == KILN_OK)
        status = array_check(values, function, "values");
    if (status == KILN_OK)
        status = array_same_context(function, a, values);
    if (status != KILN_OK)
        return status;
    /* Values that broadcast over the rest alone (one value, one row) need
     * no count: NumPy's a[mask] = v then sets every selected row to it. */
    const size_t rest_ndim = a->ndim - mask->ndim;
    bool without_count = values->ndim <= rest_ndim;
    if (!without_count && values->ndim == rest_ndim + 1 &&
        values->shape[0] == 1) {
        without_count = true;
    }
    if (without_count) {
        kiln_array *row = NULL;
        if (values->ndim > rest_ndim) {
            /* drop the leading axis of one */
            status = kiln_array_view((kiln_array *)values, 0,
                                     values->ndim - 1, values->shape + 1,
                                     values->strides + 1, &row);
            if (status != KILN_OK)
                return array_error_prefix(status, "%s", function);
        }
        status = write_where(function, a, mask, row ? row : values, 0, stream);
        if (row != NULL)
            array_release_array(row);
        return status;
    }
    if (rows == 0 || rest == 0 || a->size == 0) {
        /* nothing selected: the values must still fit (count 0) */
        if (values->shape[0] != 0)
            return array_error(KILN_ERR_SHAPE,
                               "%s: %zu values for no selected elements",
                               function, values->shape[0]);
        return kiln_error_set(KILN_OK, NULL);
    }
    kiln_array *m = NULL, *target = NULL, *rows_values = NULL;
    kiln_buffer *places = NULL;
    size_t count = 0;
    status = array_contiguous(mask, stream, function, &m);
    if (status == KILN_OK)
        status = count_mask(m, stream, &places, &count);
    if (status == KILN_OK) {
        /* the values as (count, rest...) contiguous elements of a's dtype */
        size_t shape[KILN_ARRAY_MAX_DIMS];
        shape[0] = count;
        for (size_t d = mask->ndim; d < a->ndim; ++d)
            shape[1 + d - mask->ndim] = a->shape[d];
        status = array_new(a->context, a->dtype, 1 + rest_ndim, shape,
                           function, &rows_values);
        if (status == KILN_OK)
            status = kiln_array_assign(rows_values, values, stream);
    }
    /* a's elements in C order: a itself, or a copy written back after */
    if (status == KILN_OK)
        status = array_contiguous(a, stream, function, &target);
    if (status == KILN_OK && count > 0)
        status = move_rows(a->context, a->dtype, false, target, rows_values,
                           m, places, rest, stream);
    if (status == KILN_OK && target != a)
        status = kiln_array_assign(a, target, stream);
    if (places != NULL)
        array_release_buffer(places);
    if (m != NULL)
        array_release_array(m);
    if (target != NULL)
        array_release_array(target);
    if (rows_values != NULL)
        array_release_array(rows_values);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    return kiln_error_set(KILN_OK, NULL);
}
