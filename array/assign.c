/*
 * Writing into arrays that exist, of any strides: assignment from another
 * array (broadcast and converted), filling with one value, and the
 * triangles and diagonals (triu, tril, eye) that select elements by their
 * row and column.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lowest and highest element of its buffer an array touches. */
static void extent(const kiln_array *array, int64_t *low, int64_t *high)
{
    *low = *high = (int64_t)array->offset;
    for (size_t d = 0; d < array->ndim; ++d) {
        int64_t reach = array->strides[d] * (int64_t)(array->shape[d] - 1);
        if (reach < 0)
            *low += reach;
        else
            *high += reach;
    }
}

/* Whether writing `dest` could change elements `src` reads: the same
 * buffer and overlapping extents (NumPy's may_share_memory). */
static bool may_overlap(const kiln_array *dest, const kiln_array *src)
{
    if (dest->buffer == NULL || dest->buffer != src->buffer)
        return false;
    size_t d_size = kiln_dtype_size(dest->dtype),
           s_size = kiln_dtype_size(src->dtype);
    int64_t d_low, d_high, s_low, s_high;
    extent(dest, &d_low, &d_high);
    extent(src, &s_low, &s_high);
    /* in bytes: the dtypes may differ */
    return d_low * (int64_t)d_size < (s_high + 1) * (int64_t)s_size &&
           s_low * (int64_t)s_size < (d_high + 1) * (int64_t)d_size;
}

kiln_status kiln_array_assign(kiln_array *dest, const kiln_array *src,
                              kiln_stream *stream)
{
    static const char function[] = "kiln_array_assign";
    kiln_status status = array_check(dest, function, "dest");
    if (status == KILN_OK)
        status = array_check(src, function, "src");
    if (status == KILN_OK)
        status = array_same_context(function, dest, src);
    if (status != KILN_OK)
        return status;
    if (dest->size == 0 || src->size == 0) {
        /* nothing to write, but the shapes must still fit */
        const array_operand operand = {.array = src, .dtype = src->dtype};
        return array_map_into(function, NULL, "kiln_r = a;", 0, dest,
                              &operand, 1, NULL, stream);
    }
    /* src read whole first when dest's writes could reach it
     * (x[1:] = x[:-1]) */
    kiln_array *copy = NULL;
    if (may_overlap(dest, src)) {
        status = kiln_array_astype(src, src->dtype, stream, &copy);
        if (status != KILN_OK)
            return array_error_prefix(status, "%s", function);
        src = copy;
    }
    bool same_shape = dest->ndim == src->ndim;
    for (size_t d = 0; same_shape && d < dest->ndim; ++d)
        same_shape = dest->shape[d] == src->shape[d];
    if (same_shape && dest->dtype == src->dtype &&
        array_is_contiguous(dest) && array_is_contiguous(src)) {
        size_t element = kiln_dtype_size(dest->dtype);
        status = kiln_buffer_copy_async(dest->buffer, dest->offset * element,
                                        src->buffer, src->offset * element,
                                        dest->size * element, stream);
        if (status != KILN_OK)
            array_error_prefix(status, "%s", function);
    } else {
        const array_operand operand = {.array = src, .dtype = src->dtype};
        status = array_map_into(function, NULL,
                                dest->dtype == KILN_DTYPE_BOOL
                                    ? "kiln_r = a != 0;"
                                    : "kiln_r = a;",
                                0, dest, &operand, 1, NULL, stream);
    }
    if (copy != NULL)
        array_release_array(copy);
    return status == KILN_OK ? kiln_error_set(KILN_OK, NULL) : status;
}

kiln_status kiln_array_fill(kiln_array *dest, double value,
                            kiln_stream *stream)
{
    static const char function[] = "kiln_array_fill";
    kiln_status status = array_check(dest, function, "dest");
    if (status != KILN_OK || dest->size == 0)
        return status == KILN_OK ? kiln_error_set(KILN_OK, NULL) : status;
    if (array_is_contiguous(dest)) {
        /* one element's bytes, repeated: no kernel */
        array_scalar pattern;
        kiln_arg arg = array_scalar_arg(dest->dtype, value, &pattern);
        status = kiln_buffer_fill_async(dest->buffer,
                                        dest->offset * arg.size,
                                        dest->size * arg.size, arg.value,
                                        arg.size, stream);
        if (status != KILN_OK)
            return array_error_prefix(status, "%s", function);
        return kiln_error_set(KILN_OK, NULL);
    }
    const array_operand operand = {.scalar = value, .dtype = dest->dtype};
    return array_map_into(function, NULL, "kiln_r = a;", 0, dest, &operand,
                          1, NULL, stream);
}

/* ---- triangles and diagonals ----------------------------------------------- */

/* triu (upper) or tril of the last two axes: kiln_p0 columns, kiln_p1
 * rows, kiln_p2 the diagonal; the element of flat index i is kept when
 * column - row >= k (triu) or <= k (tril). */
static kiln_status triangle(const char *function, const kiln_array *a,
                            int64_t k, bool upper, kiln_stream *stream,
                            kiln_array **result)
{
    kiln_status status = array_check(a, function, "a");
    if (status != KILN_OK)
        return status;
    if (result == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: result is NULL",
                           function);
    if (a->ndim == 0)
        return array_error(KILN_ERR_SHAPE,
                           "%s: a 0-d array has no rows or columns", function);
    /* A vector is n copies of itself: a view with a row stride of 0. */
    kiln_array *source = (kiln_array *)a, *rows = NULL;
    if (a->ndim == 1) {
        const size_t shape[2] = {a->shape[0], a->shape[0]};
        const int64_t strides[2] = {0, a->strides[0]};
        status = kiln_array_view(source, 0, 2, shape, strides, &rows);
        if (status != KILN_OK)
            return array_error_prefix(status, "%s", function);
        source = rows;
    }
    kiln_array *made = NULL;
    status = array_new(a->context, a->dtype, source->ndim, source->shape,
                       function, &made);
    if (status == KILN_OK) {
        const array_map_params params = {
            3,
            {(int64_t)source->shape[source->ndim - 1],
             (int64_t)source->shape[source->ndim - 2], k, 0}};
        const array_operand operand = {.array = source, .dtype = a->dtype};
        status = array_map_into(
            function, NULL,
            upper ? "kiln_r = (i % kiln_p0) - (i / kiln_p0) % kiln_p1 >= "
                    "kiln_p2 ? a : 0;"
                  : "kiln_r = (i % kiln_p0) - (i / kiln_p0) % kiln_p1 <= "
                    "kiln_p2 ? a : 0;",
            0, made, &operand, 1, &params, stream);
    }
    if (rows != NULL)
        array_release_array(rows);
    if (status != KILN_OK) {
        if (made != NULL)
            array_release_array(made);
        return status;
    }
    *result = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_triu(const kiln_array *a, int64_t k,
                            kiln_stream *stream, kiln_array **result)
{
    return triangle("kiln_array_triu", a, k, true, stream, result);
}

kiln_status kiln_array_tril(const kiln_array *a, int64_t k,
                            kiln_stream *stream, kiln_array **result)
{
    return triangle("kiln_array_tril", a, k, false, stream, result);
}

kiln_status kiln_array_eye(kiln_context *context, kiln_dtype dtype,
                           size_t rows, size_t cols, int64_t k,
                           kiln_stream *stream, kiln_array **array)
{
    static const char function[] = "kiln_array_eye";
    if (array == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: array is NULL",
                           function);
    const size_t shape[2] = {rows, cols};
    kiln_array *made = NULL;
    kiln_status status = array_new(context, dtype, 2, shape, function, &made);
    if (status != KILN_OK)
        return status;
    const array_map_params params = {2, {(int64_t)cols, k, 0, 0}};
    status = array_map_into(function, NULL,
                            "kiln_r = (i % kiln_p0) - (i / kiln_p0) == "
                            "kiln_p1;",
                            0, made, NULL, 0, &params, stream);
    if (status != KILN_OK) {
        array_release_array(made);
        return status;
    }
    *array = made;
    return kiln_error_set(KILN_OK, NULL);
}
