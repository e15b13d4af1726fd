/*
 * Fuzz target: the array layer's shape, stride and dtype arguments, without
 * a device.  The input gives up to three operands (a dtype, a count of
 * dimensions and their sizes, small or near a power of two, and a step:
 * C-contiguous or every axis strided, as a sliced view is), checked by
 * array_shape_check as kiln_array_create checks them; the operands that
 * pass are broadcast and laid out against a destination (contiguous or
 * strided) as the elementwise engine lays them out (array_make_layout:
 * axes merged where every operand and the destination step across them as
 * across one).  For a sample of the result's indices, each operand's
 * element through the merged strides must be the one NumPy's broadcasting
 * names, inside the operand's memory; an operand the layout calls
 * contiguous must be read at the result's own index; the merged shape must
 * hold as many elements as the broadcast one; shapes that do not broadcast
 * must be KILN_ERR_SHAPE.  NumPy's promotion of the dtypes must give a
 * dtype of the table, the same both ways round.
 */
#include "../../array/internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Arrays whose memory a process could hold: past this many elements no
 * buffer exists, so no array (and no destination) either. */
#define MAX_EXTENT ((size_t)1 << 48)

/* Reads one byte of the input, 0 past its end. */
static uint8_t next(const uint8_t **data, size_t *size)
{
    if (*size == 0)
        return 0;
    --*size;
    return *(*data)++;
}

/* A size: small (0..15) or near a power of two (2^k - 1, 2^k, 2^k + 1). */
static size_t dimension(const uint8_t **data, size_t *size)
{
    uint8_t byte = next(data, size);
    if (byte < 128)
        return byte % 16;
    unsigned power = byte % 64;
    size_t around = (size_t)1 << power;
    return around + (size_t)(next(data, size) % 3) - 1;
}

/* C-order strides for the shape, each times `step` (a view that takes
 * every step-th element); false when the memory would pass MAX_EXTENT. */
static bool set_strides(kiln_array *array, size_t step)
{
    size_t stride = step;
    for (size_t d = array->ndim; d-- > 0;) {
        array->strides[d] = (int64_t)stride;
        if (array->shape[d] != 0 &&
            (__builtin_mul_overflow(stride, array->shape[d], &stride) ||
             stride > MAX_EXTENT))
            return false;
    }
    return true;
}

/* The element NumPy's broadcasting reads from `array` for the result's
 * flat index (result shape `ndim`, `shape`): the result's coordinates,
 * the array's size-1 axes at 0, through its strides. */
static int64_t numpy_element(const kiln_array *array, size_t ndim,
                             const size_t *shape, size_t index)
{
    int64_t offset = 0;
    size_t skip = ndim - array->ndim;
    for (size_t d = ndim; d-- > 0;) {
        size_t coordinate = index % shape[d];
        index /= shape[d];
        if (d >= skip && array->shape[d - skip] != 1)
            offset += (int64_t)coordinate * array->strides[d - skip];
    }
    return offset;
}

/* The largest offset an element of `array` has (its strides are >= 0). */
static int64_t last_element(const kiln_array *array)
{
    int64_t last = 0;
    for (size_t d = 0; d < array->ndim; ++d)
        last += (int64_t)(array->shape[d] - 1) * array->strides[d];
    return last;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t count = next(&data, &size) % (ARRAY_MAX_OPERANDS + 1);
    kiln_array arrays[ARRAY_MAX_OPERANDS], dest;
    array_operand operands[ARRAY_MAX_OPERANDS];
    memset(arrays, 0, sizeof arrays);
    memset(operands, 0, sizeof operands);
    memset(&dest, 0, sizeof dest);
    for (size_t k = 0; k < count; ++k) {
        kiln_dtype dtype = (kiln_dtype)(next(&data, &size) % 12);
        size_t ndim = next(&data, &size) % (KILN_ARRAY_MAX_DIMS + 2);
        size_t shape[KILN_ARRAY_MAX_DIMS + 1];
        for (size_t d = 0; d < ndim; ++d)
            shape[d] = dimension(&data, &size);
        size_t elements = 0;
        kiln_status status =
            array_shape_check(ndim, shape, "fuzz", &elements);
        bool dtype_ok = array_check_dtype(dtype, "fuzz") == KILN_OK;
        if (dtype_ok != (kiln_dtype_size(dtype) != 0))
            abort(); /* a dtype is valid exactly when it has a size */
        if (status != KILN_OK) {
            if (kiln_last_error()[0] == '\0')
                abort(); /* every refusal says why */
            return 0;
        }
        if (ndim > KILN_ARRAY_MAX_DIMS)
            abort();
        /* the product, computed again: 0 with any 0, else within size_t */
        size_t product = 1;
        bool empty = false;
        for (size_t d = 0; d < ndim; ++d) {
            if (shape[d] == 0)
                empty = true;
            else if (__builtin_mul_overflow(product, shape[d], &product))
                abort();
        }
        if (elements != (empty ? 0 : product))
            abort();
        if (empty)
            return 0; /* an empty operand: array_map launches nothing */
        arrays[k].ndim = ndim;
        memcpy(arrays[k].shape, shape, ndim * sizeof *shape);
        arrays[k].size = elements;
        arrays[k].dtype = dtype_ok ? dtype : KILN_DTYPE_FLOAT32;
        if (!set_strides(&arrays[k], 1 + next(&data, &size) % 3))
            return 0;
        operands[k].array = &arrays[k];
        operands[k].dtype = arrays[k].dtype;
    }
    if (count >= 2) {
        kiln_dtype a = arrays[0].dtype, b = arrays[1].dtype;
        kiln_dtype ab = array_promote(a, b), ba = array_promote(b, a);
        if (ab != ba || kiln_dtype_size(ab) == 0 || array_promote(a, a) != a)
            abort();
    }
    /* the broadcast shape, as NumPy gives it, for the reference walk */
    size_t ndim = 0, shape[KILN_ARRAY_MAX_DIMS];
    for (size_t k = 0; k < count; ++k)
        if (arrays[k].ndim > ndim)
            ndim = arrays[k].ndim;
    for (size_t d = 0; d < ndim; ++d)
        shape[d] = 1;
    bool broadcasts = true;
    for (size_t k = 0; k < count; ++k) {
        size_t skip = ndim - arrays[k].ndim;
        for (size_t d = 0; d < arrays[k].ndim; ++d) {
            size_t s = arrays[k].shape[d], *out = &shape[skip + d];
            if (s == *out || s == 1)
                continue;
            if (*out == 1)
                *out = s;
            else
                broadcasts = false;
        }
    }
    size_t engine_ndim = 0, engine_shape[KILN_ARRAY_MAX_DIMS];
    kiln_status status = array_broadcast_shape("fuzz", operands, count,
                                               &engine_ndim, engine_shape);
    if (!broadcasts) {
        if (status != KILN_ERR_SHAPE || kiln_last_error()[0] == '\0')
            abort(); /* shapes that do not broadcast are refused */
        return 0;
    }
    if (status != KILN_OK || engine_ndim != ndim ||
        memcmp(engine_shape, shape, ndim * sizeof *shape) != 0)
        abort(); /* NumPy's broadcast shape */
    size_t result = 0;
    if (count == 0 ||
        array_shape_check(ndim, shape, "fuzz", &result) != KILN_OK ||
        result == 0)
        return 0;
    dest.ndim = ndim;
    memcpy(dest.shape, shape, ndim * sizeof *shape);
    dest.size = result;
    dest.dtype = arrays[0].dtype;
    if (!set_strides(&dest, 1 + next(&data, &size) % 2))
        return 0;

    array_layout lay;
    array_make_layout(operands, count, &dest, &lay);
    size_t merged = 1;
    for (size_t d = 0; d < lay.ndim; ++d)
        if (__builtin_mul_overflow(merged, lay.shape[d], &merged))
            abort();
    if (merged != result)
        abort(); /* the merged axes hold as many elements */
    const kiln_array *walked[ARRAY_MAX_OPERANDS + 1] = {0};
    for (size_t k = 0; k < count; ++k)
        walked[k] = &arrays[k];
    walked[ARRAY_LAYOUT_DEST] = &dest;
    /* indices: the first, the last, and some from the input */
    for (int sample = 0; sample < 16; ++sample) {
        size_t index = sample == 1 ? result - 1 : 0;
        for (int byte = 0; sample > 1 && byte < 8; ++byte)
            index = index << 8 | next(&data, &size);
        index %= result;
        for (size_t k = 0; k <= ARRAY_LAYOUT_DEST; ++k) {
            if (walked[k] == NULL)
                continue;
            int64_t expected = numpy_element(walked[k], ndim, shape, index);
            /* the engine: the merged coordinates through the strides */
            int64_t got = 0;
            size_t rest = index;
            for (size_t d = lay.ndim; d-- > 0;) {
                got += (int64_t)(rest % lay.shape[d]) * lay.strides[k][d];
                rest /= lay.shape[d];
            }
            if (got != expected || got < 0 || got > last_element(walked[k]))
                abort();
            if (array_layout_contiguous(&lay, k) && got != (int64_t)index)
                abort();
        }
    }
    return 0;
}
