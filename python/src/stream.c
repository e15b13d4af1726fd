/*
 * Stream (an in-order queue: CUDA stream, OpenCL command queue) and Event
 * (a point in a stream, for waiting and timing).
 */
#include "kiln_python.h"

PyTypeObject *kp_stream_type;
static PyTypeObject *event_type;

typedef struct {
    PyObject_HEAD
    kiln_event *event;
    PyObject *context;
} kp_event;

int kp_stream_of(PyObject *object, kiln_stream **stream)
{
    if (object == NULL || object == Py_None) {
        *stream = NULL;
        return 0;
    }
    if (!PyObject_TypeCheck(object, kp_stream_type)) {
        PyErr_SetString(PyExc_TypeError, "stream must be a kiln Stream or None");
        return -1;
    }
    *stream = ((kp_stream *)object)->stream;
    return 0;
}

static PyObject *stream_new(PyTypeObject *type, PyObject *args,
                            PyObject *kwargs)
{
    static char *names[] = {"context", NULL};
    PyObject *context_object = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", names,
                                     &context_object))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    if (context == NULL)
        return NULL;
    kiln_stream *stream = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_stream_create(context->context, &stream);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    kp_stream *self = (kp_stream *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        kiln_stream_release(stream);
        return NULL;
    }
    self->stream = stream;
    Py_INCREF(context_object);
    self->context = context_object;
    return (PyObject *)self;
}

static void stream_dealloc(PyObject *object)
{
    kp_stream *self = (kp_stream *)object;
    if (self->stream != NULL) {
        Py_BEGIN_ALLOW_THREADS
        kiln_stream_release(self->stream);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(self->context);
    kp_free(object);
}

static PyObject *stream_synchronize(PyObject *object, PyObject *unused)
{
    (void)unused;
    kiln_status status;
    kiln_stream *stream = ((kp_stream *)object)->stream;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_stream_synchronize(stream);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *stream_wait_event(PyObject *object, PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, event_type)) {
        PyErr_SetString(PyExc_TypeError, "wait_for_event takes an Event");
        return NULL;
    }
    kiln_status status;
    kiln_stream *stream = ((kp_stream *)object)->stream;
    kiln_event *event = ((kp_event *)arg)->event;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_stream_wait_event(stream, event);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *stream_native(PyObject *object, void *closure)
{
    (void)closure;
    void *handle = NULL;
    if (kp_check(kiln_stream_get_native(((kp_stream *)object)->stream, &handle,
                                        sizeof handle)) < 0)
        return NULL;
    return PyLong_FromVoidPtr(handle);
}

static PyObject *stream_context(PyObject *object, void *closure)
{
    (void)closure;
    PyObject *context = ((kp_stream *)object)->context;
    Py_INCREF(context);
    return context;
}

static PyMethodDef stream_methods[] = {
    {"synchronize", stream_synchronize, METH_NOARGS,
     "synchronize(): waits for everything queued on the stream."},
    {"wait_for_event", stream_wait_event, METH_O,
     "wait_for_event(event): work queued after this waits for the event."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
    {"native", stream_native, NULL,
     "The native handle as an integer: CUstream or cl_command_queue.", NULL},
    {"context", stream_context, NULL, "The stream's Context.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot stream_slots[] = {
    {Py_tp_doc, "Stream(context): a new in-order queue of work on the "
                "context's device.  Where a stream is asked for, None is the "
                "context's default stream."},
    {Py_tp_new, stream_new},
    {Py_tp_dealloc, stream_dealloc},
    {Py_tp_methods, stream_methods},
    {Py_tp_getset, stream_getset},
    {0, NULL},
};

static PyType_Spec stream_spec = {
    "kiln._kiln.Stream", sizeof(kp_stream), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    stream_slots,
};

/* ---- events ---------------------------------------------------------------- */

static PyObject *event_new(PyTypeObject *type, PyObject *args,
                           PyObject *kwargs)
{
    static char *names[] = {"context", NULL};
    PyObject *context_object = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", names,
                                     &context_object))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    if (context == NULL)
        return NULL;
    kiln_event *event = NULL;
    if (kp_check(kiln_event_create(context->context, &event)) < 0)
        return NULL;
    kp_event *self = (kp_event *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        kiln_event_release(event);
        return NULL;
    }
    self->event = event;
    Py_INCREF(context_object);
    self->context = context_object;
    return (PyObject *)self;
}

static void event_dealloc(PyObject *object)
{
    kp_event *self = (kp_event *)object;
    if (self->event != NULL)
        kiln_event_release(self->event);
    Py_XDECREF(self->context);
    kp_free(object);
}

static PyObject *event_record(PyObject *object, PyObject *args)
{
    PyObject *stream_object = Py_None;
    if (!PyArg_ParseTuple(args, "|O", &stream_object))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (kp_check(kiln_event_record(((kp_event *)object)->event, stream)) < 0)
        return NULL;
    Py_INCREF(object);
    return object;
}

static PyObject *event_synchronize(PyObject *object, PyObject *unused)
{
    (void)unused;
    kiln_status status;
    kiln_event *event = ((kp_event *)object)->event;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_event_synchronize(event);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    Py_INCREF(object);
    return object;
}

static PyObject *event_query(PyObject *object, PyObject *unused)
{
    (void)unused;
    kiln_status status = kiln_event_query(((kp_event *)object)->event);
    if (status == KILN_OK)
        Py_RETURN_TRUE;
    if (status == KILN_ERR_NOT_READY)
        Py_RETURN_FALSE;
    return kp_raise(status);
}

static PyObject *event_elapsed(PyObject *object, PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, event_type)) {
        PyErr_SetString(PyExc_TypeError, "elapsed takes the end Event");
        return NULL;
    }
    float milliseconds = 0;
    kiln_status status;
    kiln_event *start = ((kp_event *)object)->event;
    kiln_event *end = ((kp_event *)arg)->event;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_event_elapsed(start, end, &milliseconds);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    return PyFloat_FromDouble(milliseconds);
}

static PyMethodDef event_methods[] = {
    {"record", event_record, METH_VARARGS,
     "record(stream=None) -> self: marks the current end of the stream."},
    {"synchronize", event_synchronize, METH_NOARGS,
     "synchronize() -> self: waits until the work before the event is done."},
    {"query", event_query, METH_NOARGS,
     "query() -> bool: whether the work before the event is done."},
    {"elapsed", event_elapsed, METH_O,
     "elapsed(end) -> float: milliseconds of device time from this event to "
     "`end` (both recorded; waits for `end`)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot event_slots[] = {
    {Py_tp_doc, "Event(context): a point in a stream, recorded with "
                "record(stream), for waiting and for timing."},
    {Py_tp_new, event_new},
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {0, NULL},
};

static PyType_Spec event_spec = {
    "kiln._kiln.Event", sizeof(kp_event), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, event_slots,
};

int kp_stream_register(PyObject *module)
{
    kp_stream_type = (PyTypeObject *)PyType_FromSpec(&stream_spec);
    event_type = (PyTypeObject *)PyType_FromSpec(&event_spec);
    if (kp_stream_type == NULL || event_type == NULL)
        return -1;
    if (kp_add_type(module, "Stream", kp_stream_type) < 0 ||
        kp_add_type(module, "Event", event_type) < 0)
        return -1;
    return 0;
}
