/*
 * Array (kiln_array: an n-d array of one dtype in device memory, in any
 * layout) and Random (a Philox4x32-10 stream of numbers): libkiln-array as
 * Python objects, for kiln.pycuda.gpuarray and kiln.cupy.  Dtypes are
 * kiln_dtype codes (kiln.dtype_code maps NumPy's); results are new Arrays.
 */
#include "kiln_python.h"

#include <string.h>

static PyTypeObject *array_type;
static PyTypeObject *random_type;

typedef struct {
    PyObject_HEAD
    kiln_array *array;
    PyObject *context;
} kp_array;

typedef struct {
    PyObject_HEAD
    kiln_random state;
} kp_random;

static PyObject *wrap(PyObject *context, kiln_array *array)
{
    kp_array *self = (kp_array *)PyType_GenericAlloc(array_type, 0);
    if (self == NULL) {
        kiln_array_release(array);
        return NULL;
    }
    self->array = array;
    Py_INCREF(context);
    self->context = context;
    return (PyObject *)self;
}

static kp_array *array_of(PyObject *object)
{
    if (!PyObject_TypeCheck(object, array_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a kiln Array");
        return NULL;
    }
    return (kp_array *)object;
}

static void array_dealloc(PyObject *object)
{
    kp_array *self = (kp_array *)object;
    if (self->array != NULL)
        kiln_array_release(self->array);
    Py_XDECREF(self->context);
    kp_free(object);
}

/* A result of `call` (a status, with *out set): the Array, or the error. */
#define ARRAY_RESULT(context, call, out)                                    \
    do {                                                                    \
        kiln_status status_;                                                \
        status_ = (call);                                                   \
        if (status_ != KILN_OK)                                             \
            return kp_raise(status_);                                       \
        return wrap((context), (out));                                      \
    } while (0)

static int dtype_of(PyObject *object, kiln_dtype *dtype)
{
    long code = PyLong_AsLong(object);
    if (code == -1 && PyErr_Occurred())
        return -1;
    if (code < 0 || code > KILN_DTYPE_BOOL) {
        PyErr_Format(PyExc_ValueError, "dtype code %ld is not a kiln dtype",
                     code);
        return -1;
    }
    *dtype = (kiln_dtype)code;
    return 0;
}

/* ---- creation (module functions) ------------------------------------------- */

static PyObject *array_create(PyObject *module, PyObject *args,
                              PyObject *kwargs)
{
    (void)module;
    static char *names[] = {"context", "dtype", "shape", "fill", "value",
                            "stream", NULL};
    PyObject *context_object, *dtype_object, *shape_object,
             *stream_object = Py_None;
    const char *fill = "empty";
    double value = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|sdO", names,
                                     &context_object, &dtype_object,
                                     &shape_object, &fill, &value,
                                     &stream_object))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    kiln_dtype dtype;
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 0;
    kiln_stream *stream = NULL;
    if (context == NULL || dtype_of(dtype_object, &dtype) < 0 ||
        kp_sizes(shape_object, shape, KILN_ARRAY_MAX_DIMS, &ndim, "shape") < 0 ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kiln_array *out = NULL;
    kiln_context *c = context->context;
    if (strcmp(fill, "empty") == 0)
        ARRAY_RESULT(context_object,
                     kiln_array_empty(c, dtype, ndim, shape, &out), out);
    if (strcmp(fill, "zeros") == 0)
        ARRAY_RESULT(context_object,
                     kiln_array_zeros(c, dtype, ndim, shape, stream, &out), out);
    if (strcmp(fill, "ones") == 0)
        ARRAY_RESULT(context_object,
                     kiln_array_ones(c, dtype, ndim, shape, stream, &out), out);
    if (strcmp(fill, "full") == 0)
        ARRAY_RESULT(context_object,
                     kiln_array_full(c, dtype, ndim, shape, value, stream, &out),
                     out);
    PyErr_Format(PyExc_ValueError,
                 "fill must be 'empty', 'zeros', 'ones' or 'full', not '%s'",
                 fill);
    return NULL;
}

static PyObject *array_arange(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *context_object, *dtype_object, *stream_object = Py_None;
    double start, stop, step;
    if (!PyArg_ParseTuple(args, "OOddd|O", &context_object, &dtype_object,
                          &start, &stop, &step, &stream_object))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    kiln_dtype dtype;
    kiln_stream *stream = NULL;
    if (context == NULL || dtype_of(dtype_object, &dtype) < 0 ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kiln_array *out = NULL;
    ARRAY_RESULT(context_object,
                 kiln_array_arange(context->context, dtype, start, stop, step,
                                   stream, &out),
                 out);
}

static PyObject *array_linspace(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *context_object, *dtype_object, *stream_object = Py_None;
    double start, stop;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "OOddn|O", &context_object, &dtype_object,
                          &start, &stop, &count, &stream_object))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    kiln_dtype dtype;
    kiln_stream *stream = NULL;
    if (context == NULL || dtype_of(dtype_object, &dtype) < 0 ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError, "count is negative");
        return NULL;
    }
    kiln_array *out = NULL;
    ARRAY_RESULT(context_object,
                 kiln_array_linspace(context->context, dtype, start, stop,
                                     (size_t)count, stream, &out),
                 out);
}

static PyObject *array_eye(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *context_object, *dtype_object, *stream_object = Py_None;
    Py_ssize_t rows, cols;
    long long k = 0;
    if (!PyArg_ParseTuple(args, "OOnnL|O", &context_object, &dtype_object,
                          &rows, &cols, &k, &stream_object))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    kiln_dtype dtype;
    kiln_stream *stream = NULL;
    if (context == NULL || dtype_of(dtype_object, &dtype) < 0 ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (rows < 0 || cols < 0) {
        PyErr_SetString(PyExc_ValueError, "negative dimensions");
        return NULL;
    }
    kiln_array *out = NULL;
    ARRAY_RESULT(context_object,
                 kiln_array_eye(context->context, dtype, (size_t)rows,
                                (size_t)cols, (int64_t)k, stream, &out),
                 out);
}

static PyObject *array_from_host(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *context_object, *dtype_object, *shape_object, *host,
             *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "OOOO|O", &context_object, &dtype_object,
                          &shape_object, &host, &stream_object))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    kiln_dtype dtype;
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 0;
    kiln_stream *stream = NULL;
    if (context == NULL || dtype_of(dtype_object, &dtype) < 0 ||
        kp_sizes(shape_object, shape, KILN_ARRAY_MAX_DIMS, &ndim, "shape") < 0 ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(host, &view, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    kiln_array *out = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_array_from_host(context->context, dtype, ndim, shape,
                                  view.buf, (size_t)view.len, stream, &out);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (status != KILN_OK)
        return kp_raise(status);
    return wrap(context_object, out);
}

static PyObject *array_from_buffer(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *buffer_object, *dtype_object, *shape_object;
    Py_ssize_t offset;
    if (!PyArg_ParseTuple(args, "OnOO", &buffer_object, &offset, &dtype_object,
                          &shape_object))
        return NULL;
    kiln_buffer *buffer = kp_buffer_handle(buffer_object);
    kiln_dtype dtype;
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 0;
    if (buffer == NULL || dtype_of(dtype_object, &dtype) < 0 ||
        kp_sizes(shape_object, shape, KILN_ARRAY_MAX_DIMS, &ndim, "shape") < 0)
        return NULL;
    if (offset < 0) {
        PyErr_SetString(PyExc_ValueError, "offset is negative");
        return NULL;
    }
    kiln_array *out = NULL;
    ARRAY_RESULT(((kp_buffer *)buffer_object)->context,
                 kiln_array_from_buffer(buffer, (size_t)offset, dtype, ndim,
                                        shape, &out),
                 out);
}

static PyObject *array_random(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *random_object, *context_object, *dtype_object, *shape_object,
             *stream_object = Py_None;
    const char *distribution;
    double a, b;
    if (!PyArg_ParseTuple(args, "OOOOsdd|O", &random_object, &context_object,
                          &dtype_object, &shape_object, &distribution, &a, &b,
                          &stream_object))
        return NULL;
    if (!PyObject_TypeCheck(random_object, random_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a kiln Random");
        return NULL;
    }
    kp_context *context = kp_context_of(context_object);
    kiln_dtype dtype;
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 0;
    kiln_stream *stream = NULL;
    if (context == NULL || dtype_of(dtype_object, &dtype) < 0 ||
        kp_sizes(shape_object, shape, KILN_ARRAY_MAX_DIMS, &ndim, "shape") < 0 ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kiln_random *state = &((kp_random *)random_object)->state;
    kiln_array *out = NULL;
    if (strcmp(distribution, "uniform") == 0)
        ARRAY_RESULT(context_object,
                     kiln_array_random_uniform(state, context->context, dtype,
                                               ndim, shape, a, b, stream, &out),
                     out);
    if (strcmp(distribution, "normal") == 0)
        ARRAY_RESULT(context_object,
                     kiln_array_random_normal(state, context->context, dtype,
                                              ndim, shape, a, b, stream, &out),
                     out);
    PyErr_Format(PyExc_ValueError, "unknown distribution '%s'", distribution);
    return NULL;
}

static PyObject *array_where(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *c, *a, *b, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "OOO|O", &c, &a, &b, &stream_object))
        return NULL;
    kp_array *condition = array_of(c), *x = array_of(a), *y = array_of(b);
    kiln_stream *stream = NULL;
    if (condition == NULL || x == NULL || y == NULL ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kiln_array *out = NULL;
    ARRAY_RESULT(x->context,
                 kiln_array_where(condition->array, x->array, y->array, stream,
                                  &out),
                 out);
}

static PyObject *blas_name(PyObject *module, PyObject *arg)
{
    (void)module;
    kp_context *context = kp_context_of(arg);
    if (context == NULL)
        return NULL;
    const char *name = "";
    if (kp_check(kiln_array_blas_name(context->context, &name)) < 0)
        return NULL;
    return PyUnicode_FromString(name);
}

/* ---- methods ------------------------------------------------------------------ */

static PyObject *array_to_host(PyObject *object, PyObject *args)
{
    PyObject *host, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &host, &stream_object))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(host, &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    kiln_status status;
    const kiln_array *array = ((kp_array *)object)->array;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_array_to_host(array, view.buf, (size_t)view.len, stream);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *array_reshape(PyObject *object, PyObject *arg)
{
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 0;
    if (kp_sizes(arg, shape, KILN_ARRAY_MAX_DIMS, &ndim, "shape") < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_reshape(self->array, ndim, shape, &out), out);
}

static PyObject *array_slice(PyObject *object, PyObject *args)
{
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "nn", &start, &stop))
        return NULL;
    if (start < 0 || stop < 0) {
        PyErr_SetString(PyExc_ValueError, "slice bounds are not negative");
        return NULL;
    }
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_slice(self->array, (size_t)start, (size_t)stop,
                                  &out),
                 out);
}

static PyObject *array_astype(PyObject *object, PyObject *args)
{
    PyObject *dtype_object, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &dtype_object, &stream_object))
        return NULL;
    kiln_dtype dtype;
    kiln_stream *stream = NULL;
    if (dtype_of(dtype_object, &dtype) < 0 ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_astype(self->array, dtype, stream, &out), out);
}

/* binary(op, other, stream=None): other an Array, or a number (and
 * reversed=True for number OP array). */
static PyObject *array_binary(PyObject *object, PyObject *args,
                              PyObject *kwargs)
{
    static char *names[] = {"op", "other", "stream", "reversed", NULL};
    int op = 0, reversed = 0;
    PyObject *other, *stream_object = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iO|Op", names, &op, &other,
                                     &stream_object, &reversed))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    if (PyObject_TypeCheck(other, array_type)) {
        const kiln_array *a = self->array, *b = ((kp_array *)other)->array;
        ARRAY_RESULT(self->context,
                     kiln_array_binary((kiln_array_op)op, reversed ? b : a,
                                       reversed ? a : b, stream, &out),
                     out);
    }
    double value = PyFloat_AsDouble(other);
    if (value == -1.0 && PyErr_Occurred())
        return NULL;
    if (reversed)
        ARRAY_RESULT(self->context,
                     kiln_array_scalar_binary((kiln_array_op)op, value,
                                              self->array, stream, &out),
                     out);
    ARRAY_RESULT(self->context,
                 kiln_array_binary_scalar((kiln_array_op)op, self->array, value,
                                          stream, &out),
                 out);
}

static PyObject *array_math(PyObject *object, PyObject *args)
{
    int function = 0;
    PyObject *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "i|O", &function, &stream_object))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_math((kiln_array_function)function, self->array,
                                 stream, &out),
                 out);
}

static PyObject *array_reduce(PyObject *object, PyObject *args)
{
    int op = 0;
    PyObject *axis = Py_None, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "i|OO", &op, &axis, &stream_object))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    if (axis == Py_None)
        ARRAY_RESULT(self->context,
                     kiln_array_reduce((kiln_array_reduce_op)op, self->array,
                                       stream, &out),
                     out);
    long axis_value = PyLong_AsLong(axis);
    if (axis_value == -1 && PyErr_Occurred())
        return NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_reduce_axis((kiln_array_reduce_op)op, self->array,
                                        (int)axis_value, stream, &out),
                 out);
}

static PyObject *array_matmul(PyObject *object, PyObject *args)
{
    PyObject *other_object, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &other_object, &stream_object))
        return NULL;
    kp_array *other = array_of(other_object);
    kiln_stream *stream = NULL;
    if (other == NULL || kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_matmul(self->array, other->array, stream, &out),
                 out);
}

static PyObject *array_transpose(PyObject *object, PyObject *args)
{
    PyObject *axes_object = Py_None, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "|OO", &axes_object, &stream_object))
        return NULL;
    size_t axes[KILN_ARRAY_MAX_DIMS], count = 0;
    kiln_stream *stream = NULL;
    if ((axes_object != Py_None &&
         kp_sizes(axes_object, axes, KILN_ARRAY_MAX_DIMS, &count, "axes") < 0) ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_transpose(self->array,
                                      axes_object == Py_None ? NULL : axes,
                                      stream, &out),
                 out);
}

/* view(offset, shape, strides): element offset and strides in elements */
static PyObject *array_view(PyObject *object, PyObject *args)
{
    long long offset = 0;
    PyObject *shape_object, *strides_object;
    if (!PyArg_ParseTuple(args, "LOO", &offset, &shape_object,
                          &strides_object))
        return NULL;
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 0;
    int64_t strides[KILN_ARRAY_MAX_DIMS];
    if (kp_sizes(shape_object, shape, KILN_ARRAY_MAX_DIMS, &ndim, "shape") < 0)
        return NULL;
    PyObject *sequence = PySequence_Tuple(strides_object);
    if (sequence == NULL)
        return NULL;
    if ((size_t)PyTuple_Size(sequence) != ndim) {
        Py_DECREF(sequence);
        PyErr_SetString(PyExc_ValueError,
                        "view: as many strides as dimensions are needed");
        return NULL;
    }
    for (size_t d = 0; d < ndim; ++d) {
        strides[d] = PyLong_AsLongLong(PyTuple_GetItem(sequence, (Py_ssize_t)d));
        if (PyErr_Occurred()) {
            Py_DECREF(sequence);
            return NULL;
        }
    }
    Py_DECREF(sequence);
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_view(self->array, (int64_t)offset, ndim, shape,
                                 strides, &out),
                 out);
}

static PyObject *array_assign(PyObject *object, PyObject *args)
{
    PyObject *source, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &source, &stream_object))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_status status;
    if (PyObject_TypeCheck(source, array_type)) {
        status = kiln_array_assign(self->array, ((kp_array *)source)->array,
                                   stream);
    } else {
        double value = PyFloat_AsDouble(source);
        if (value == -1.0 && PyErr_Occurred())
            return NULL;
        status = kiln_array_fill(self->array, value, stream);
    }
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *array_mask_select(PyObject *object, PyObject *args)
{
    PyObject *mask_object, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &mask_object, &stream_object))
        return NULL;
    kp_array *mask = array_of(mask_object);
    kiln_stream *stream = NULL;
    if (mask == NULL || kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS /* it waits for the count */
    status = kiln_array_mask_select(self->array, mask->array, stream, &out);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    return wrap(self->context, out);
}

/* mask_assign(mask, values, stream=None): values an Array or a number */
static PyObject *array_mask_assign(PyObject *object, PyObject *args)
{
    PyObject *mask_object, *values, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "OO|O", &mask_object, &values, &stream_object))
        return NULL;
    kp_array *mask = array_of(mask_object);
    kiln_stream *stream = NULL;
    if (mask == NULL || kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_status status;
    if (PyObject_TypeCheck(values, array_type)) {
        const kiln_array *v = ((kp_array *)values)->array;
        Py_BEGIN_ALLOW_THREADS /* it may wait for the count */
        status = kiln_array_mask_assign(self->array, mask->array, v, stream);
        Py_END_ALLOW_THREADS
    } else {
        double value = PyFloat_AsDouble(values);
        if (value == -1.0 && PyErr_Occurred())
            return NULL;
        status = kiln_array_mask_fill(self->array, mask->array, value, stream);
    }
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *triangle(PyObject *object, PyObject *args, bool upper)
{
    long long k = 0;
    PyObject *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "|LO", &k, &stream_object))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    ARRAY_RESULT(self->context,
                 (upper ? kiln_array_triu : kiln_array_tril)(
                     self->array, (int64_t)k, stream, &out),
                 out);
}

static PyObject *array_triu(PyObject *object, PyObject *args)
{
    return triangle(object, args, true);
}

static PyObject *array_tril(PyObject *object, PyObject *args)
{
    return triangle(object, args, false);
}

/* reduce_binary(reduce, op, other, axis=None, stream=None) */
static PyObject *array_reduce_binary(PyObject *object, PyObject *args)
{
    int reduce_op = 0, op = 0;
    PyObject *other, *axis = Py_None, *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "iiO|OO", &reduce_op, &op, &other, &axis,
                          &stream_object))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    int axis_value = KILN_AXIS_ALL;
    if (axis != Py_None) {
        long value = PyLong_AsLong(axis);
        if (value == -1 && PyErr_Occurred())
            return NULL;
        if (value < -KILN_ARRAY_MAX_DIMS || value >= KILN_ARRAY_MAX_DIMS)
            value = KILN_ARRAY_MAX_DIMS; /* out of range: Kiln says so */
        axis_value = (int)value;
    }
    kp_array *self = (kp_array *)object;
    kiln_array *out = NULL;
    if (PyObject_TypeCheck(other, array_type))
        ARRAY_RESULT(self->context,
                     kiln_array_reduce_binary(
                         (kiln_array_reduce_op)reduce_op, (kiln_array_op)op,
                         self->array, ((kp_array *)other)->array, axis_value,
                         stream, &out),
                     out);
    double value = PyFloat_AsDouble(other);
    if (value == -1.0 && PyErr_Occurred())
        return NULL;
    ARRAY_RESULT(self->context,
                 kiln_array_reduce_binary_scalar(
                     (kiln_array_reduce_op)reduce_op, (kiln_array_op)op,
                     self->array, value, axis_value, stream, &out),
                 out);
}

static PyObject *array_strides(PyObject *object, void *closure)
{
    (void)closure;
    kp_array *self = (kp_array *)object;
    size_t ndim = 0;
    int64_t strides[KILN_ARRAY_MAX_DIMS];
    if (kp_check(kiln_array_get_shape(self->array, &ndim, NULL)) < 0 ||
        kp_check(kiln_array_get_strides(self->array, strides)) < 0)
        return NULL;
    PyObject *tuple = PyTuple_New((Py_ssize_t)ndim);
    for (size_t d = 0; tuple != NULL && d < ndim; ++d) {
        PyObject *stride = PyLong_FromLongLong(strides[d]);
        if (stride == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SetItem(tuple, (Py_ssize_t)d, stride);
    }
    return tuple;
}

static PyObject *array_dtype(PyObject *object, void *closure)
{
    (void)closure;
    kiln_dtype dtype;
    if (kp_check(kiln_array_get_dtype(((kp_array *)object)->array, &dtype)) < 0)
        return NULL;
    return PyLong_FromLong((long)dtype);
}

static PyObject *array_shape(PyObject *object, void *closure)
{
    (void)closure;
    size_t shape[KILN_ARRAY_MAX_DIMS], ndim = 0;
    if (kp_check(kiln_array_get_shape(((kp_array *)object)->array, &ndim,
                                      shape)) < 0)
        return NULL;
    PyObject *tuple = PyTuple_New((Py_ssize_t)ndim);
    for (size_t d = 0; tuple != NULL && d < ndim; ++d) {
        PyObject *size = PyLong_FromSize_t(shape[d]);
        if (size == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SetItem(tuple, (Py_ssize_t)d, size);
    }
    return tuple;
}

static PyObject *array_size(PyObject *object, void *closure)
{
    (void)closure;
    size_t size = 0;
    if (kp_check(kiln_array_get_size(((kp_array *)object)->array, &size)) < 0)
        return NULL;
    return PyLong_FromSize_t(size);
}

/* (Buffer of the memory's owner, byte offset), or None for an empty array. */
static PyObject *array_memory(PyObject *object, void *closure)
{
    (void)closure;
    kp_array *self = (kp_array *)object;
    size_t size = 0;
    if (kp_check(kiln_array_get_size(self->array, &size)) < 0)
        return NULL;
    if (size == 0)
        Py_RETURN_NONE;
    kiln_buffer *buffer = NULL;
    size_t offset = 0;
    if (kp_check(kiln_array_get_buffer(self->array, &buffer, &offset)) < 0 ||
        kp_check(kiln_buffer_retain(buffer)) < 0)
        return NULL;
    PyObject *wrapped = kp_buffer_wrap(self->context, buffer, NULL);
    if (wrapped == NULL)
        return NULL;
    PyObject *result = Py_BuildValue("(Nn)", wrapped, (Py_ssize_t)offset);
    return result;
}

static PyObject *array_context(PyObject *object, void *closure)
{
    (void)closure;
    PyObject *context = ((kp_array *)object)->context;
    Py_INCREF(context);
    return context;
}

static PyMethodDef array_methods[] = {
    {"to_host", array_to_host, METH_VARARGS,
     "to_host(host, stream=None): copies the elements into a writable "
     "C-contiguous host array of exactly the array's bytes, and waits."},
    {"reshape", array_reshape, METH_O,
     "reshape(shape) -> Array: a view of the same elements in another shape."},
    {"slice", array_slice, METH_VARARGS,
     "slice(start, stop) -> Array: a view of rows [start, stop) of axis 0."},
    {"astype", array_astype, METH_VARARGS,
     "astype(dtype, stream=None) -> Array: a converted copy."},
    {"binary", (PyCFunction)(void (*)(void))array_binary,
     METH_VARARGS | METH_KEYWORDS,
     "binary(op, other, stream=None, reversed=False) -> Array: self OP other "
     "(other OP self when reversed) with NumPy's broadcasting and "
     "promotion; other is an Array or a number (a weak scalar)."},
    {"math", array_math, METH_VARARGS,
     "math(function, stream=None) -> Array: f(self) elementwise (a "
     "kiln_array_function code)."},
    {"reduce", array_reduce, METH_VARARGS,
     "reduce(op, axis=None, stream=None) -> Array: sum, prod, mean, min, "
     "max, argmin or argmax over everything (0-d) or one axis."},
    {"matmul", array_matmul, METH_VARARGS,
     "matmul(other, stream=None) -> Array: the matrix product."},
    {"transpose", array_transpose, METH_VARARGS,
     "transpose(axes=None, stream=None) -> Array: a copy with the axes "
     "permuted (reversed when None)."},
    {"view", array_view, METH_VARARGS,
     "view(offset, shape, strides) -> Array: a view of the same memory, "
     "element (i, j...) at offset + i*strides[0] + j*strides[1]... elements "
     "from this array's first (kiln_array_view, checked)."},
    {"assign", array_assign, METH_VARARGS,
     "assign(source, stream=None): self[...] = source, an Array (broadcast "
     "and converted) or a number."},
    {"mask_select", array_mask_select, METH_VARARGS,
     "mask_select(mask, stream=None) -> Array: self[mask] for a bool mask "
     "of self's first axes (waits for the count)."},
    {"mask_assign", array_mask_assign, METH_VARARGS,
     "mask_assign(mask, values, stream=None): self[mask] = values (an "
     "Array or a number)."},
    {"triu", array_triu, METH_VARARGS,
     "triu(k=0, stream=None) -> Array: numpy.triu."},
    {"tril", array_tril, METH_VARARGS,
     "tril(k=0, stream=None) -> Array: numpy.tril."},
    {"reduce_binary", array_reduce_binary, METH_VARARGS,
     "reduce_binary(reduce, op, other, axis=None, stream=None) -> Array: "
     "the reduction of self OP other (an Array of self's shape or a "
     "number) in one pass, without the intermediate array."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef array_getset[] = {
    {"dtype", array_dtype, NULL, "The kiln_dtype code.", NULL},
    {"shape", array_shape, NULL, "The shape, a tuple.", NULL},
    {"strides", array_strides, NULL,
     "The strides, a tuple, in elements (either sign).", NULL},
    {"size", array_size, NULL, "The number of elements.", NULL},
    {"memory", array_memory, NULL,
     "(Buffer, byte offset) of the first element, or None when empty.", NULL},
    {"context", array_context, NULL, "The array's Context.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot array_slots[] = {
    {Py_tp_doc, "An n-d array of one dtype in device memory, in any layout "
                "(kiln_array.h); made by the module's array_* functions and "
                "by views."},
    {Py_tp_dealloc, array_dealloc},
    {Py_tp_methods, array_methods},
    {Py_tp_getset, array_getset},
    {0, NULL},
};

static PyType_Spec array_spec = {
    "kiln._kiln.Array", sizeof(kp_array), 0, Py_TPFLAGS_DEFAULT, array_slots,
};

/* ---- Random ------------------------------------------------------------------- */

static PyObject *random_new(PyTypeObject *type, PyObject *args,
                            PyObject *kwargs)
{
    static char *names[] = {"seed", NULL};
    unsigned long long seed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|K", names, &seed))
        return NULL;
    kp_random *self = (kp_random *)PyType_GenericAlloc(type, 0);
    if (self != NULL)
        self->state = (kiln_random){seed, 0};
    return (PyObject *)self;
}

static void random_dealloc(PyObject *object)
{
    kp_free(object);
}

static PyObject *random_get_seed(PyObject *object, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((kp_random *)object)->state.seed);
}

static int random_set_seed(PyObject *object, PyObject *value, void *closure)
{
    (void)closure;
    unsigned long long seed = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred())
        return -1;
    ((kp_random *)object)->state = (kiln_random){seed, 0};
    return 0;
}

static PyObject *random_get_counter(PyObject *object, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((kp_random *)object)->state.counter);
}

static PyGetSetDef random_getset[] = {
    {"seed", random_get_seed, random_set_seed,
     "The seed; setting it starts the stream again.", NULL},
    {"counter", random_get_counter, NULL, "Blocks of numbers used so far.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot random_slots[] = {
    {Py_tp_doc, "Random(seed=0): a Philox4x32-10 stream; the same seed gives "
                "the same numbers on every device (array_random)."},
    {Py_tp_new, random_new},
    {Py_tp_dealloc, random_dealloc},
    {Py_tp_getset, random_getset},
    {0, NULL},
};

static PyType_Spec random_spec = {
    "kiln._kiln.Random", sizeof(kp_random), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, random_slots,
};

static PyMethodDef array_functions[] = {
    {"array_create", (PyCFunction)(void (*)(void))array_create,
     METH_VARARGS | METH_KEYWORDS,
     "array_create(context, dtype, shape, fill='empty', value=0, "
     "stream=None) -> Array: fill is 'empty', 'zeros', 'ones' or 'full'."},
    {"array_arange", array_arange, METH_VARARGS,
     "array_arange(context, dtype, start, stop, step, stream=None) -> Array."},
    {"array_linspace", array_linspace, METH_VARARGS,
     "array_linspace(context, dtype, start, stop, count, stream=None) -> "
     "Array."},
    {"array_eye", array_eye, METH_VARARGS,
     "array_eye(context, dtype, rows, cols, k, stream=None) -> Array: "
     "numpy.eye."},
    {"array_from_host", array_from_host, METH_VARARGS,
     "array_from_host(context, dtype, shape, host, stream=None) -> Array: a "
     "copy of a C-contiguous host array of exactly that many bytes."},
    {"array_from_buffer", array_from_buffer, METH_VARARGS,
     "array_from_buffer(buffer, offset, dtype, shape) -> Array: an array "
     "over existing memory, sharing it."},
    {"array_random", array_random, METH_VARARGS,
     "array_random(random, context, dtype, shape, 'uniform'|'normal', a, b, "
     "stream=None) -> Array: uniform in [a, b) or normal(mean a, stddev b)."},
    {"array_where", array_where, METH_VARARGS,
     "array_where(condition, a, b, stream=None) -> Array."},
    {"blas_name", blas_name, METH_O,
     "blas_name(context) -> str: 'cublas', 'clblast' or 'generated'."},
    {NULL, NULL, 0, NULL},
};

int kp_array_register(PyObject *module)
{
    array_type = (PyTypeObject *)PyType_FromSpec(&array_spec);
    random_type = (PyTypeObject *)PyType_FromSpec(&random_spec);
    if (array_type == NULL || random_type == NULL)
        return -1;
    if (kp_add_type(module, "Array", array_type) < 0 ||
        kp_add_type(module, "Random", random_type) < 0)
        return -1;
    return PyModule_AddFunctions(module, array_functions);
}
