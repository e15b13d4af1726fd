/*
 * Arrays: creation, views, host copies and the dtype rules.  An array is a
 * buffer, the element offset of its first element (views share the
 * buffer), a shape and strides in elements.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    const char *ctype;
    size_t size;
    bool is_float, is_signed;
} dtypes[] = {
    [KILN_DTYPE_INT8] = {"int8", "char", 1, false, true},
    [KILN_DTYPE_UINT8] = {"uint8", "uchar", 1, false, false},
    [KILN_DTYPE_INT16] = {"int16", "short", 2, false, true},
    [KILN_DTYPE_UINT16] = {"uint16", "ushort", 2, false, false},
    [KILN_DTYPE_INT32] = {"int32", "int", 4, false, true},
    [KILN_DTYPE_UINT32] = {"uint32", "uint", 4, false, false},
    [KILN_DTYPE_INT64] = {"int64", "long", 8, false, true},
    [KILN_DTYPE_UINT64] = {"uint64", "ulong", 8, false, false},
    [KILN_DTYPE_FLOAT32] = {"float32", "float", 4, true, true},
    [KILN_DTYPE_FLOAT64] = {"float64", "double", 8, true, true},
    [KILN_DTYPE_BOOL] = {"bool", "uchar", 1, false, false},
};

static bool dtype_valid(kiln_dtype dtype)
{
    return (unsigned)dtype <= (unsigned)KILN_DTYPE_BOOL;
}

size_t kiln_dtype_size(kiln_dtype dtype)
{
    return dtype_valid(dtype) ? dtypes[dtype].size : 0;
}

const char *kiln_dtype_name(kiln_dtype dtype)
{
    return dtype_valid(dtype) ? dtypes[dtype].name : "unknown";
}

const char *array_dtype_ctype(kiln_dtype dtype)
{
    return dtypes[dtype].ctype;
}

bool array_dtype_is_float(kiln_dtype dtype)
{
    return dtypes[dtype].is_float;
}

bool array_dtype_is_signed(kiln_dtype dtype)
{
    return dtypes[dtype].is_signed;
}

static kiln_dtype integer_of(size_t size, bool is_signed)
{
    switch (size) {
    case 1:
        return is_signed ? KILN_DTYPE_INT8 : KILN_DTYPE_UINT8;
    case 2:
        return is_signed ? KILN_DTYPE_INT16 : KILN_DTYPE_UINT16;
    case 4:
        return is_signed ? KILN_DTYPE_INT32 : KILN_DTYPE_UINT32;
    default:
        return is_signed ? KILN_DTYPE_INT64 : KILN_DTYPE_UINT64;
    }
}

/* NumPy's table: the smallest type that holds every value of both, with
 * float64 where no integer type can (int64 and uint64) and for 32- and
 * 64-bit integers meeting float32. */
kiln_dtype array_promote(kiln_dtype a, kiln_dtype b)
{
    if (a == b)
        return a;
    /* bool is below every other kind */
    if (a == KILN_DTYPE_BOOL)
        return b;
    if (b == KILN_DTYPE_BOOL)
        return a;
    bool float_a = dtypes[a].is_float, float_b = dtypes[b].is_float;
    if (float_a && float_b)
        return dtypes[a].size > dtypes[b].size ? a : b;
    if (float_a || float_b) {
        kiln_dtype f = float_a ? a : b, i = float_a ? b : a;
        if (f == KILN_DTYPE_FLOAT64 || dtypes[i].size >= 4)
            return KILN_DTYPE_FLOAT64;
        return KILN_DTYPE_FLOAT32;
    }
    size_t size_a = dtypes[a].size, size_b = dtypes[b].size;
    if (dtypes[a].is_signed == dtypes[b].is_signed)
        return size_a > size_b ? a : b;
    kiln_dtype s = dtypes[a].is_signed ? a : b, u = dtypes[a].is_signed ? b : a;
    if (dtypes[s].size > dtypes[u].size)
        return s;
    if (dtypes[u].size == 8)
        return KILN_DTYPE_FLOAT64;
    return integer_of(dtypes[u].size * 2, true);
}

kiln_status array_check(const kiln_array *array, const char *function,
                        const char *name)
{
    if (array == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: %s is NULL",
                           function, name);
    if (array->magic != ARRAY_MAGIC)
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "%s: %s is not a live array (released or not an "
                           "array)",
                           function, name);
    return KILN_OK;
}

kiln_status array_check_dtype(kiln_dtype dtype, const char *function)
{
    if (!dtype_valid(dtype))
        return array_error(KILN_ERR_DTYPE, "%s: %d is not a kiln_dtype",
                           function, (int)dtype);
    return KILN_OK;
}

kiln_status array_check_device_dtype(kiln_context *context, kiln_dtype dtype,
                                     const char *function)
{
    if (dtype == KILN_DTYPE_FLOAT64 && !array_has_double(context))
        return array_error(KILN_ERR_DTYPE,
                           "%s: this device has no double precision for "
                           "float64",
                           function);
    return KILN_OK;
}

kiln_status array_same_context(const char *function, const kiln_array *a,
                               const kiln_array *b)
{
    if (a->context != b->context)
        return array_error(KILN_ERR_CONTEXT_MISMATCH,
                           "%s: the arrays belong to two different contexts",
                           function);
    return KILN_OK;
}

void array_set_c_strides(kiln_array *array)
{
    int64_t stride = 1;
    for (size_t d = array->ndim; d-- > 0;) {
        array->strides[d] = stride;
        stride *= (int64_t)(array->shape[d] ? array->shape[d] : 1);
    }
}

bool array_is_contiguous(const kiln_array *array)
{
    int64_t stride = 1;
    for (size_t d = array->ndim; d-- > 0;) {
        if (array->shape[d] != 1 && array->strides[d] != stride)
            return false;
        stride *= (int64_t)array->shape[d];
    }
    return true;
}

kiln_status array_contiguous(const kiln_array *array, kiln_stream *stream,
                             const char *function, kiln_array **contiguous)
{
    if (array->size == 0 || array_is_contiguous(array)) {
        atomic_fetch_add(&((kiln_array *)array)->references, 1);
        *contiguous = (kiln_array *)array;
        return KILN_OK;
    }
    const array_operand operand = {.array = array, .dtype = array->dtype};
    return array_map(function, NULL, "kiln_r = a;", 0, array->dtype, &operand,
                     1, stream, contiguous);
}

void array_shape_text(const kiln_array *array, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "(");
    for (size_t d = 0; d < array->ndim && used < size; ++d)
        used += (size_t)snprintf(out + used, size - used, "%s%zu",
                                 d ? ", " : "", array->shape[d]);
    if (used < size)
        snprintf(out + used, size - used, "%s)", array->ndim == 1 ? "," : "");
}

kiln_status array_shape_check(size_t ndim, const size_t *shape,
                               const char *function, size_t *size)
{
    if (ndim > KILN_ARRAY_MAX_DIMS)
        return array_error(KILN_ERR_SHAPE,
                           "%s: %zu dimensions, more than the %d an array "
                           "can have",
                           function, ndim, KILN_ARRAY_MAX_DIMS);
    if (ndim > 0 && shape == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: shape is NULL for %zu dimensions", function,
                           ndim);
    /* The dimensions other than 0 must multiply within size_t whatever
     * their order, so an empty shape is valid or not by its sizes alone:
     * (0, 2^63, 2^63) and (2^63, 2^63, 0) are both refused. */
    size_t total = 1;
    bool empty = false;
    for (size_t d = 0; d < ndim; ++d) {
        if (shape[d] == 0) {
            empty = true;
            continue;
        }
        if (total > SIZE_MAX / shape[d])
            return array_error(KILN_ERR_INVALID_SIZE,
                               "%s: the shape's dimensions (other than 0) "
                               "multiply past %zu",
                               function, (size_t)SIZE_MAX);
        total *= shape[d];
    }
    *size = empty ? 0 : total;
    return KILN_OK;
}

kiln_status array_new(kiln_context *context, kiln_dtype dtype, size_t ndim,
                      const size_t *shape, const char *function,
                      kiln_array **array)
{
    if (context == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: context is NULL",
                           function);
    if (array == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: array is NULL",
                           function);
    kiln_status status = array_check_dtype(dtype, function);
    if (status != KILN_OK)
        return status;
    size_t size = 0;
    status = array_shape_check(ndim, shape, function, &size);
    if (status != KILN_OK)
        return status;
    status = array_check_device_dtype(context, dtype, function);
    if (status != KILN_OK)
        return status;
    if (size > SIZE_MAX / dtypes[dtype].size)
        return array_error(KILN_ERR_INVALID_SIZE, "%s: %zu elements of %s "
                           "are more bytes than a size_t holds",
                           function, size, dtypes[dtype].name);
    kiln_array *made = calloc(1, sizeof *made);
    if (made == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    if (size > 0) {
        status = kiln_buffer_create(context, size * dtypes[dtype].size,
                                    &made->buffer);
        if (status != KILN_OK) {
            free(made);
            return array_error_prefix(status, "%s", function);
        }
    }
    kiln_context_retain(context);
    made->magic = ARRAY_MAGIC;
    atomic_init(&made->references, 1);
    made->context = context;
    made->dtype = dtype;
    made->ndim = ndim;
    for (size_t d = 0; d < ndim; ++d)
        made->shape[d] = shape[d];
    made->size = size;
    array_set_c_strides(made);
    *array = made;
    return KILN_OK;
}

kiln_status kiln_array_retain(kiln_array *array)
{
    kiln_status status = array_check(array, "kiln_array_retain", "array");
    if (status != KILN_OK)
        return status;
    atomic_fetch_add(&array->references, 1);
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_release(kiln_array *array)
{
    kiln_status status = array_check(array, "kiln_array_release", "array");
    if (status != KILN_OK)
        return status;
    if (atomic_fetch_sub(&array->references, 1) == 1) {
        array->magic = 0;
        if (array->buffer != NULL)
            array_release_buffer(array->buffer);
        kiln_context_release(array->context);
        free(array);
    }
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_empty(kiln_context *context, kiln_dtype dtype,
                             size_t ndim, const size_t *shape,
                             kiln_array **array)
{
    kiln_status status =
        array_new(context, dtype, ndim, shape, "kiln_array_empty", array);
    return status == KILN_OK ? kiln_error_set(KILN_OK, NULL) : status;
}

/* Fills with one element's bytes, which kiln_buffer_fill repeats: no kernel
 * is needed for any dtype. */
static kiln_status fill_value(kiln_context *context, kiln_dtype dtype,
                              size_t ndim, const size_t *shape, double value,
                              kiln_stream *stream, const char *function,
                              kiln_array **array)
{
    if (array == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: array is NULL",
                           function);
    if ((unsigned)dtype <= (unsigned)KILN_DTYPE_FLOAT64) {
        /* a fraction is dropped, as a C cast and NumPy's full do */
        kiln_status checked = array_scalar_check(dtype, value, true, function);
        if (checked != KILN_OK)
            return checked;
    }
    kiln_array *made = NULL;
    kiln_status status =
        array_new(context, dtype, ndim, shape, function, &made);
    if (status != KILN_OK)
        return status;
    if (made->size > 0) {
        array_scalar pattern;
        kiln_arg arg = array_scalar_arg(dtype, value, &pattern);
        status = kiln_buffer_fill_async(made->buffer, 0,
                                        made->size * dtypes[dtype].size,
                                        arg.value, arg.size, stream);
        if (status != KILN_OK) {
            array_release_array(made);
            return array_error_prefix(status, "%s", function);
        }
    }
    *array = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_zeros(kiln_context *context, kiln_dtype dtype,
                             size_t ndim, const size_t *shape,
                             kiln_stream *stream, kiln_array **array)
{
    return fill_value(context, dtype, ndim, shape, 0.0, stream,
                      "kiln_array_zeros", array);
}

kiln_status kiln_array_ones(kiln_context *context, kiln_dtype dtype,
                            size_t ndim, const size_t *shape,
                            kiln_stream *stream, kiln_array **array)
{
    return fill_value(context, dtype, ndim, shape, 1.0, stream,
                      "kiln_array_ones", array);
}

kiln_status kiln_array_full(kiln_context *context, kiln_dtype dtype,
                            size_t ndim, const size_t *shape, double value,
                            kiln_stream *stream, kiln_array **array)
{
    return fill_value(context, dtype, ndim, shape, value, stream,
                      "kiln_array_full", array);
}

/* The range of an integer dtype, [low, high), in doubles (exact: powers of
 * two or their negatives). */
static void integer_range(kiln_dtype dtype, double *low, double *high)
{
    double bits = (double)(kiln_dtype_size(dtype) * 8);
    if (array_dtype_is_signed(dtype)) {
        *low = -ldexp(1.0, (int)bits - 1);
        *high = ldexp(1.0, (int)bits - 1);
    } else {
        *low = 0;
        *high = ldexp(1.0, (int)bits);
    }
}

bool array_scalar_fits(kiln_dtype dtype, double value)
{
    if (array_dtype_is_float(dtype))
        return true;
    double low, high;
    integer_range(dtype, &low, &high);
    return value == floor(value) && value >= low && value < high;
}

bool array_scalar_out_of_range(kiln_dtype dtype, double value)
{
    return !array_dtype_is_float(dtype) && dtype != KILN_DTYPE_BOOL &&
           isfinite(value) && value == floor(value) &&
           !array_scalar_fits(dtype, value);
}

kiln_status array_scalar_check(kiln_dtype dtype, double value, bool fractions,
                               const char *function)
{
    if (array_dtype_is_float(dtype))
        return KILN_OK;
    double low, high;
    integer_range(dtype, &low, &high);
    double whole = trunc(value);
    if (isfinite(value) && whole >= low && whole < high &&
        (fractions || whole == value))
        return KILN_OK;
    return array_error(KILN_ERR_INVALID_ARGUMENT,
                       "%s: %.17g is not a value of %s (whole numbers from "
                       "%.17g to %.17g)",
                       function, value, kiln_dtype_name(dtype), low,
                       high - 1);
}

kiln_arg array_scalar_arg(kiln_dtype dtype, double value, array_scalar *slot)
{
    /* Callers check the value (array_scalar_check); past a dtype's range
     * it saturates rather than be undefined. */
    if (!array_dtype_is_float(dtype)) {
        double low, high;
        integer_range(dtype, &low, &high);
        value = isnan(value) ? 0 : value < low ? low : value >= high
                                                        ? nextafter(high, 0)
                                                        : value;
    }
    /* Every member of the union starts at its start: the argument is the
     * union's first `size` bytes. */
    switch (dtype) {
    case KILN_DTYPE_INT8: slot->i8 = (int8_t)value; break;
    case KILN_DTYPE_UINT8: slot->u8 = (uint8_t)value; break;
    case KILN_DTYPE_INT16: slot->i16 = (int16_t)value; break;
    case KILN_DTYPE_UINT16: slot->u16 = (uint16_t)value; break;
    case KILN_DTYPE_INT32: slot->i32 = (int32_t)value; break;
    case KILN_DTYPE_UINT32: slot->u32 = (uint32_t)value; break;
    case KILN_DTYPE_INT64: slot->i64 = (int64_t)value; break;
    case KILN_DTYPE_UINT64: slot->u64 = (uint64_t)value; break;
    case KILN_DTYPE_FLOAT32: slot->f32 = (float)value; break;
    case KILN_DTYPE_BOOL: slot->u8 = value != 0; break; /* NaN too */
    case KILN_DTYPE_FLOAT64:
    default:
        slot->f64 = value;
        return KILN_ARG_VALUE(slot, sizeof slot->f64);
    }
    return KILN_ARG_VALUE(slot, dtypes[dtype].size);
}

/* A new 1-D array of `count` elements, each `expression` of its index i
 * and the values v0, v1...: arange and linspace. */
static kiln_status new_from_expression(kiln_context *context,
                                       kiln_dtype dtype, size_t count,
                                       const char *expression,
                                       size_t value_count,
                                       const double *values,
                                       kiln_stream *stream,
                                       const char *function,
                                       kiln_array **array)
{
    if (dtype == KILN_DTYPE_BOOL)
        return array_error(KILN_ERR_DTYPE, "%s: a range of bools", function);
    const size_t shape[1] = {count};
    kiln_array *made = NULL;
    kiln_status status = array_new(context, dtype, 1, shape, function, &made);
    if (status != KILN_OK)
        return status;
    status = array_fill_expression(made, expression, value_count, values,
                                   stream);
    if (status != KILN_OK) {
        array_release_array(made);
        return array_error_prefix(status, "%s", function);
    }
    *array = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_arange(kiln_context *context, kiln_dtype dtype,
                              double start, double stop, double step,
                              kiln_stream *stream, kiln_array **array)
{
    static const char function[] = "kiln_array_arange";
    if (array == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: array is NULL",
                           function);
    if (step == 0 || !isfinite(step) || !isfinite(start) || !isfinite(stop))
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: start, stop and step must be finite and step "
                           "nonzero (got %g, %g, %g)",
                           function, start, stop, step);
    double count = ceil((stop - start) / step);
    if (count > 1e15)
        return array_error(KILN_ERR_INVALID_SIZE, "%s: %g elements", function,
                           count);
    const double values[2] = {start, step};
    return new_from_expression(context, dtype, count > 0 ? (size_t)count : 0,
                               "v0 + (kiln_real)i * v1", 2, values, stream,
                               function, array);
}

kiln_status kiln_array_linspace(kiln_context *context, kiln_dtype dtype,
                                double start, double stop, size_t count,
                                kiln_stream *stream, kiln_array **array)
{
    static const char function[] = "kiln_array_linspace";
    if (array == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: array is NULL",
                           function);
    if (!isfinite(start) || !isfinite(stop))
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: start and stop must be finite", function);
    /* The last value is `stop` exactly, as numpy's. */
    const double values[3] = {start, count > 1 ? (stop - start) / (double)(count - 1) : 0.0,
                              stop};
    char expression[96];
    snprintf(expression, sizeof expression,
             "i == %zu ? v2 : v0 + (kiln_real)i * v1",
             count > 0 ? count - 1 : 0);
    return new_from_expression(context, dtype, count, expression, 3, values,
                               stream, function, array);
}

static kiln_status check_host_size(const kiln_array *array, size_t size,
                                   const char *function)
{
    size_t bytes = array->size * dtypes[array->dtype].size;
    if (size != bytes) {
        char shape[160];
        array_shape_text(array, shape, sizeof shape);
        return array_error(KILN_ERR_INVALID_SIZE,
                           "%s: the %s array of shape %s is %zu bytes, not "
                           "%zu",
                           function, dtypes[array->dtype].name, shape, bytes,
                           size);
    }
    return KILN_OK;
}

kiln_status kiln_array_from_host(kiln_context *context, kiln_dtype dtype,
                                 size_t ndim, const size_t *shape,
                                 const void *host, size_t size,
                                 kiln_stream *stream, kiln_array **array)
{
    static const char function[] = "kiln_array_from_host";
    if (array == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: array is NULL",
                           function);
    if (host == NULL && size > 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: host is NULL",
                           function);
    kiln_array *made = NULL;
    kiln_status status = array_new(context, dtype, ndim, shape, function,
                                   &made);
    if (status != KILN_OK)
        return status;
    status = check_host_size(made, size, function);
    if (status == KILN_OK && size > 0) {
        /* Synchronous: the caller may reuse `host` at once. */
        status = kiln_buffer_write_async(made->buffer, 0, host, size, stream);
        if (status == KILN_OK)
            status = array_stream_synchronize(context, stream);
        if (status != KILN_OK)
            array_error_prefix(status, "%s", function);
    }
    if (status != KILN_OK) {
        array_release_array(made);
        return status;
    }
    *array = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_to_host(const kiln_array *array, void *host,
                               size_t size, kiln_stream *stream)
{
    static const char function[] = "kiln_array_to_host";
    kiln_status status = array_check(array, function, "array");
    if (status != KILN_OK)
        return status;
    if (host == NULL && size > 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: host is NULL",
                           function);
    status = check_host_size(array, size, function);
    if (status != KILN_OK || size == 0)
        return status == KILN_OK ? kiln_error_set(KILN_OK, NULL) : status;
    kiln_array *contiguous = NULL;
    status = array_contiguous(array, stream, function, &contiguous);
    if (status != KILN_OK)
        return status;
    status = kiln_buffer_read_async(
        contiguous->buffer, contiguous->offset * dtypes[array->dtype].size,
        host, size, stream);
    if (status == KILN_OK)
        status = array_stream_synchronize(array->context, stream);
    array_release_array(contiguous);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    return KILN_OK;
}

/* The one element of a 0-d or one-element array, in its dtype, into
 * `value` (room for the dtype's size); waits for it. */
static kiln_status read_only_element(const kiln_array *array, void *value,
                                     kiln_stream *stream, const char *function)
{
    if (array->size != 1) {
        char shape[160];
        array_shape_text(array, shape, sizeof shape);
        return array_error(KILN_ERR_SHAPE,
                           "%s: the array of shape %s has %zu elements; only "
                           "a 0-d or one-element array is read as a scalar",
                           function, shape, array->size);
    }
    size_t bytes = dtypes[array->dtype].size;
    kiln_status status = kiln_buffer_read_async(
        array->buffer, array->offset * bytes, value, bytes, stream);
    if (status == KILN_OK)
        status = array_stream_synchronize(array->context, stream);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_to_scalar(const kiln_array *array, void *value,
                                 size_t size, kiln_stream *stream)
{
    static const char function[] = "kiln_array_to_scalar";
    kiln_status status = array_check(array, function, "array");
    if (status != KILN_OK)
        return status;
    if (value == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: value is NULL",
                           function);
    if (size != dtypes[array->dtype].size)
        return array_error(KILN_ERR_INVALID_SIZE,
                           "%s: a %s element is %zu bytes, not %zu", function,
                           dtypes[array->dtype].name, dtypes[array->dtype].size,
                           size);
    return read_only_element(array, value, stream, function);
}

kiln_status kiln_array_to_double(const kiln_array *array, double *value,
                                 kiln_stream *stream)
{
    static const char function[] = "kiln_array_to_double";
    kiln_status status = array_check(array, function, "array");
    if (status != KILN_OK)
        return status;
    if (value == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: value is NULL",
                           function);
    array_scalar element;
    status = read_only_element(array, &element, stream, function);
    if (status != KILN_OK)
        return status;
    switch (array->dtype) {
    case KILN_DTYPE_INT8: *value = element.i8; break;
    case KILN_DTYPE_UINT8: *value = element.u8; break;
    case KILN_DTYPE_INT16: *value = element.i16; break;
    case KILN_DTYPE_UINT16: *value = element.u16; break;
    case KILN_DTYPE_INT32: *value = element.i32; break;
    case KILN_DTYPE_UINT32: *value = element.u32; break;
    /* Beyond 2^53 the nearest double, as Python's float(). */
    case KILN_DTYPE_INT64: *value = (double)element.i64; break;
    case KILN_DTYPE_UINT64: *value = (double)element.u64; break;
    case KILN_DTYPE_FLOAT32: *value = element.f32; break;
    case KILN_DTYPE_FLOAT64: *value = element.f64; break;
    default:
        return array_error(KILN_ERR_DTYPE, "%s: %s has no double value",
                           function, kiln_dtype_name(array->dtype));
    }
    return KILN_OK;
}

/* The checks every getter and view makes: a valid array, and the
 * out-parameter `out_name` not NULL. */
static kiln_status check_array_and_out(const kiln_array *array,
                                       const void *out, const char *function,
                                       const char *out_name)
{
    kiln_status status = array_check(array, function, "array");
    if (status == KILN_OK && out == NULL)
        status = array_error(KILN_ERR_INVALID_ARGUMENT, "%s: %s is NULL",
                             function, out_name);
    return status;
}

kiln_status kiln_array_get_dtype(const kiln_array *array, kiln_dtype *dtype)
{
    kiln_status status =
        check_array_and_out(array, dtype, "kiln_array_get_dtype", "dtype");
    if (status != KILN_OK)
        return status;
    *dtype = array->dtype;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_get_shape(const kiln_array *array, size_t *ndim,
                             size_t *shape)
{
    kiln_status status =
        check_array_and_out(array, ndim, "kiln_array_get_shape", "ndim");
    if (status != KILN_OK)
        return status;
    *ndim = array->ndim;
    if (shape != NULL)
        for (size_t d = 0; d < array->ndim; ++d)
            shape[d] = array->shape[d];
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_get_size(const kiln_array *array, size_t *size)
{
    kiln_status status =
        check_array_and_out(array, size, "kiln_array_get_size", "size");
    if (status != KILN_OK)
        return status;
    *size = array->size;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_get_context(const kiln_array *array,
                               kiln_context **context)
{
    kiln_status status = check_array_and_out(
        array, context, "kiln_array_get_context", "context");
    if (status != KILN_OK)
        return status;
    *context = array->context;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_get_buffer(const kiln_array *array, kiln_buffer **buffer,
                              size_t *offset)
{
    kiln_status status = check_array_and_out(
        array, buffer, "kiln_array_get_buffer", "buffer");
    if (status == KILN_OK)
        status = check_array_and_out(array, offset, "kiln_array_get_buffer",
                                     "offset");
    if (status != KILN_OK)
        return status;
    if (array->buffer == NULL)
        return array_error(KILN_ERR_INVALID_SIZE,
                           "kiln_array_get_buffer: an empty array has no buffer");
    *buffer = array->buffer;
    *offset = array->offset * dtypes[array->dtype].size;
    return kiln_error_set(KILN_OK, NULL);
}

/* A view: the same buffer, the first element `offset` elements from the
 * array's (checked by the callers), another shape and strides (NULL:
 * C-contiguous). */
static kiln_status make_view(kiln_array *array, int64_t offset, size_t ndim,
                             const size_t *shape, const int64_t *strides,
                             size_t size, kiln_array **view)
{
    kiln_array *made = calloc(1, sizeof *made);
    if (made == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    *made = *array;
    atomic_init(&made->references, 1);
    made->offset = size == 0 ? 0 : (size_t)((int64_t)array->offset + offset);
    made->ndim = ndim;
    for (size_t d = 0; d < ndim; ++d)
        made->shape[d] = shape[d];
    made->size = size;
    if (strides != NULL)
        for (size_t d = 0; d < ndim; ++d)
            made->strides[d] = strides[d];
    else
        array_set_c_strides(made);
    if (size == 0)
        made->buffer = NULL;
    else
        kiln_buffer_retain(made->buffer);
    kiln_context_retain(made->context);
    *view = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_reshape(kiln_array *array, size_t ndim,
                               const size_t *shape, kiln_array **view)
{
    static const char function[] = "kiln_array_reshape";
    kiln_status status = check_array_and_out(array, view, function, "view");
    if (status != KILN_OK)
        return status;
    size_t size = 0;
    status = array_shape_check(ndim, shape, function, &size);
    if (status != KILN_OK)
        return status;
    if (size != array->size) {
        char from[160];
        array_shape_text(array, from, sizeof from);
        return array_error(KILN_ERR_SHAPE,
                           "%s: cannot reshape an array of shape %s (%zu "
                           "elements) into %zu elements",
                           function, from, array->size, size);
    }
    if (array_is_contiguous(array))
        return make_view(array, 0, ndim, shape, NULL, size, view);
    /* NumPy's reshape copies what it cannot view */
    kiln_array *copy = NULL;
    status = array_contiguous(array, NULL, function, &copy);
    if (status != KILN_OK)
        return status;
    status = make_view(copy, 0, ndim, shape, NULL, size, view);
    array_release_array(copy);
    return status;
}

kiln_status kiln_array_slice(kiln_array *array, size_t start, size_t stop,
                             kiln_array **view)
{
    static const char function[] = "kiln_array_slice";
    kiln_status status = check_array_and_out(array, view, function, "view");
    if (status != KILN_OK)
        return status;
    if (array->ndim == 0)
        return array_error(KILN_ERR_SHAPE, "%s: a 0-d array has no rows",
                           function);
    if (start > stop || stop > array->shape[0])
        return array_error(KILN_ERR_OUT_OF_BOUNDS,
                           "%s: rows [%zu, %zu) of an axis of %zu", function,
                           start, stop, array->shape[0]);
    size_t row = array->shape[0] ? array->size / array->shape[0] : 0;
    size_t shape[KILN_ARRAY_MAX_DIMS];
    memcpy(shape, array->shape, sizeof shape);
    shape[0] = stop - start;
    return make_view(array, (int64_t)start * array->strides[0], array->ndim,
                     shape, array->strides, (stop - start) * row, view);
}

kiln_status kiln_array_get_strides(const kiln_array *array, int64_t *strides)
{
    kiln_status status = check_array_and_out(array, strides,
                                             "kiln_array_get_strides",
                                             "strides");
    if (status != KILN_OK)
        return status;
    for (size_t d = 0; d < array->ndim; ++d)
        strides[d] = array->strides[d];
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_view(kiln_array *array, int64_t offset, size_t ndim,
                            const size_t *shape, const int64_t *strides,
                            kiln_array **view)
{
    static const char function[] = "kiln_array_view";
    kiln_status status = check_array_and_out(array, view, function, "view");
    size_t size = 0;
    if (status == KILN_OK)
        status = array_shape_check(ndim, shape, function, &size);
    if (status != KILN_OK)
        return status;
    if (ndim > 0 && strides == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: strides is NULL for %zu dimensions", function,
                           ndim);
    if (size == 0)
        return make_view(array, 0, ndim, shape, strides, 0, view);
    /* The lowest and highest elements the view reaches, in elements of
     * the buffer, without overflow: each axis adds at most
     * |stride| * (size - 1), and sizes and strides are checked against
     * the buffer before they are multiplied. */
    size_t bytes = 0;
    if (array->buffer != NULL)
        status = kiln_buffer_get_size(array->buffer, &bytes);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    const int64_t elements = (int64_t)(bytes / dtypes[array->dtype].size);
    int64_t low = (int64_t)array->offset, high = low;
    bool inside = array->buffer != NULL && offset > -elements &&
                  offset < elements;
    if (inside) {
        low += offset;
        high += offset;
    }
    for (size_t d = 0; inside && d < ndim; ++d) {
        int64_t steps = (int64_t)shape[d] - 1, stride = strides[d];
        if (steps == 0 || stride == 0)
            continue;
        int64_t magnitude = stride < 0 ? -stride : stride;
        if (stride == INT64_MIN || magnitude >= elements ||
            steps >= elements || magnitude > elements / steps) {
            inside = false;
            break;
        }
        if (stride < 0)
            low -= magnitude * steps;
        else
            high += magnitude * steps;
        inside = low >= 0 && high < elements;
    }
    if (!inside || low < 0 || high >= elements)
        return array_error(KILN_ERR_OUT_OF_BOUNDS,
                           "%s: the view reaches outside the %lld elements "
                           "of the array's buffer",
                           function, (long long)elements);
    return make_view(array, offset, ndim, shape, strides, size, view);
}

kiln_status kiln_array_from_buffer(kiln_buffer *buffer, size_t offset,
                                   kiln_dtype dtype, size_t ndim,
                                   const size_t *shape, kiln_array **array)
{
    static const char function[] = "kiln_array_from_buffer";
    if (array == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: array is NULL",
                           function);
    if (buffer == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: buffer is NULL",
                           function);
    kiln_status status = array_check_dtype(dtype, function);
    size_t size = 0;
    if (status == KILN_OK)
        status = array_shape_check(ndim, shape, function, &size);
    if (status != KILN_OK)
        return status;
    /* The array's kernels index the memory's owner: a view is its base
     * and its offset (kiln_buffer_create_view). */
    kiln_buffer *base = NULL;
    size_t base_offset = 0, element = kiln_dtype_size(dtype);
    status = kiln_buffer_get_base(buffer, &base, &base_offset);
    size_t buffer_size = 0;
    if (status == KILN_OK)
        status = kiln_buffer_get_size(buffer, &buffer_size);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    if ((base_offset + offset) % element != 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: byte %zu of the memory is not a multiple of "
                           "the %zu bytes of %s",
                           function, base_offset + offset, element,
                           kiln_dtype_name(dtype));
    if (offset > buffer_size || (buffer_size - offset) / element < size)
        return array_error(KILN_ERR_OUT_OF_BOUNDS,
                           "%s: %zu elements of %s from byte %zu do not fit "
                           "in a buffer of %zu bytes",
                           function, size, kiln_dtype_name(dtype), offset,
                           buffer_size);
    kiln_context *context = NULL;
    status = kiln_buffer_get_context(base, &context);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    kiln_array *made = calloc(1, sizeof *made);
    if (made == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    made->magic = ARRAY_MAGIC;
    atomic_init(&made->references, 1);
    made->context = context;
    made->buffer = size == 0 ? NULL : base;
    made->offset = (base_offset + offset) / element;
    made->dtype = dtype;
    made->ndim = ndim;
    for (size_t d = 0; d < ndim; ++d)
        made->shape[d] = shape[d];
    made->size = size;
    array_set_c_strides(made);
    kiln_context_retain(context);
    if (made->buffer != NULL)
        kiln_buffer_retain(made->buffer);
    *array = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_index(kiln_array *array, int64_t index,
                             kiln_array **view)
{
    static const char function[] = "kiln_array_index";
    kiln_status status = check_array_and_out(array, view, function, "view");
    if (status != KILN_OK)
        return status;
    if (array->ndim == 0)
        return array_error(KILN_ERR_SHAPE, "%s: a 0-d array has no rows",
                           function);
    size_t rows = array->shape[0];
    /* As NumPy: a negative index counts from the end. */
    if (index < -(int64_t)rows || index >= (int64_t)rows)
        return array_error(KILN_ERR_OUT_OF_BOUNDS,
                           "%s: index %lld of an axis of %zu", function,
                           (long long)index, rows);
    size_t row = (size_t)(index < 0 ? index + (int64_t)rows : index);
    size_t row_size = array->size / rows;
    /* the row at its stride: the array may be a view in any layout */
    return make_view(array, (int64_t)row * array->strides[0],
                     array->ndim - 1, array->shape + 1, array->strides + 1,
                     row_size, view);
}

kiln_status kiln_array_astype(const kiln_array *array, kiln_dtype dtype,
                              kiln_stream *stream, kiln_array **result)
{
    static const char function[] = "kiln_array_astype";
    kiln_status status = array_check(array, function, "array");
    if (status != KILN_OK)
        return status;
    status = array_check_dtype(dtype, function);
    if (status != KILN_OK)
        return status;
    const array_operand operand = {.array = array, .dtype = array->dtype};
    /* to bool: nonzero (NaN included) is true, tested before narrowing */
    return array_map(function, NULL,
                     dtype == KILN_DTYPE_BOOL ? "kiln_r = a != 0;"
                                              : "kiln_r = a;",
                     0, dtype, &operand, 1, stream, result);
}
