/*
 * The kernel generators of kiln_array.h: Elementwise, Reduction and Scan.
 * Each is made from an OpenCL C argument list and expressions, and takes
 * its arguments as a Kernel does, typed by a type string given at
 * creation ('P' for each pointer, 'f', 'i'... for values).
 */
#include "kiln_python.h"

#include <string.h>

static PyTypeObject *elementwise_type;
static PyTypeObject *reduction_type;
static PyTypeObject *scan_type;

typedef struct {
    PyObject_HEAD
    void *generator;    /* kiln_elementwise, kiln_reduction or kiln_scan */
    PyObject *context;
    kp_type *types;
    size_t type_count;
} kp_generator;

static void generator_dealloc(PyObject *object)
{
    kp_generator *self = (kp_generator *)object;
    if (self->generator != NULL) {
        if (PyObject_TypeCheck(object, elementwise_type))
            kiln_elementwise_release(self->generator);
        else if (PyObject_TypeCheck(object, reduction_type))
            kiln_reduction_release(self->generator);
        else
            kiln_scan_release(self->generator);
    }
    PyMem_Free(self->types);
    Py_XDECREF(self->context);
    kp_free(object);
}

static kp_generator *generator_alloc(PyTypeObject *type, PyObject *context,
                                     const char *types)
{
    kp_type *parsed = NULL;
    size_t count = 0;
    if (kp_types_parse(types, &parsed, &count) < 0)
        return NULL;
    kp_generator *self = (kp_generator *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        PyMem_Free(parsed);
        return NULL;
    }
    self->types = parsed;
    self->type_count = count;
    Py_INCREF(context);
    self->context = context;
    return self;
}

/* The arguments of a run, converted by the generator's types. */
static int pack_args(kp_generator *self, PyObject *values, kp_args *pack)
{
    PyObject *tuple = PySequence_Tuple(values);
    if (tuple == NULL)
        return -1;
    Py_ssize_t given = PyTuple_Size(tuple);
    if ((size_t)given != self->type_count) {
        PyErr_Format(PyExc_TypeError,
                     "the generator takes %zu arguments, %zd given",
                     self->type_count, given);
        Py_DECREF(tuple);
        return -1;
    }
    kp_args_init(pack, self->type_count);
    if (pack->args == NULL) {
        Py_DECREF(tuple);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < self->type_count; ++i)
        if (kp_args_set(pack, i, &self->types[i],
                        PyTuple_GetItem(tuple, (Py_ssize_t)i)) < 0) {
            kp_args_free(pack);
            Py_DECREF(tuple);
            return -1;
        }
    Py_DECREF(tuple);
    return 0;
}

/* ---- Elementwise --------------------------------------------------------------- */

static PyObject *elementwise_new(PyTypeObject *type, PyObject *args,
                                 PyObject *kwargs)
{
    static char *names[] = {"context", "arguments", "operation", "types",
                            "name",    "preamble",  NULL};
    PyObject *context_object;
    const char *arguments, *operation, *types, *name = NULL, *preamble = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Osss|zz", names,
                                     &context_object, &arguments, &operation,
                                     &types, &name, &preamble))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    if (context == NULL)
        return NULL;
    kp_generator *self = generator_alloc(type, context_object, types);
    if (self == NULL)
        return NULL;
    kiln_elementwise *made = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_elementwise_create(context->context, arguments, operation,
                                     name, preamble, &made);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK) {
        Py_DECREF(self);
        return kp_raise(status);
    }
    self->generator = made;
    return (PyObject *)self;
}

static PyObject *elementwise_launch(PyObject *object, PyObject *args,
                                    PyObject *kwargs)
{
    static char *names[] = {"n", "args", "stream", "start", "step", NULL};
    Py_ssize_t n = 0, start = 0, step = 1;
    PyObject *values, *stream_object = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "nO|Onn", names, &n,
                                     &values, &stream_object, &start, &step))
        return NULL;
    kiln_stream *stream = NULL;
    if (kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "n is negative");
        return NULL;
    }
    kp_generator *self = (kp_generator *)object;
    kp_args pack;
    if (pack_args(self, values, &pack) < 0)
        return NULL;
    kiln_status status =
        start == 0 && step == 1
            ? kiln_elementwise_launch(self->generator, (size_t)n, pack.count,
                                      pack.args, stream)
            : kiln_elementwise_launch_range(self->generator, start, step,
                                            (size_t)n, pack.count, pack.args,
                                            stream);
    kp_args_free(&pack);
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyMethodDef elementwise_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))elementwise_launch,
     METH_VARARGS | METH_KEYWORDS,
     "launch(n, args, stream=None, start=0, step=1): runs the operation for "
     "n indices i = start, start + step, ..."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot elementwise_slots[] = {
    {Py_tp_doc, "Elementwise(context, arguments, operation, types, name=None, "
                "preamble=None): kiln_elementwise_create; `arguments` is an "
                "OpenCL C parameter list, `operation` statements of the index "
                "i, `types` one type character per argument."},
    {Py_tp_new, elementwise_new},
    {Py_tp_dealloc, generator_dealloc},
    {Py_tp_methods, elementwise_methods},
    {0, NULL},
};

static PyType_Spec elementwise_spec = {
    "kiln._kiln.Elementwise", sizeof(kp_generator), 0, Py_TPFLAGS_DEFAULT,
    elementwise_slots,
};

/* ---- Reduction ----------------------------------------------------------------- */

static PyObject *reduction_new(PyTypeObject *type, PyObject *args,
                               PyObject *kwargs)
{
    static char *names[] = {"context", "type",      "neutral", "reduce",
                            "map",     "arguments", "types",   "name",
                            "preamble", NULL};
    PyObject *context_object;
    const char *value_type, *neutral, *reduce, *map = NULL, *arguments, *types,
               *name = NULL, *preamble = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Ossszss|zz", names,
                                     &context_object, &value_type, &neutral,
                                     &reduce, &map, &arguments, &types, &name,
                                     &preamble))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    if (context == NULL)
        return NULL;
    kp_generator *self = generator_alloc(type, context_object, types);
    if (self == NULL)
        return NULL;
    kiln_reduction *made = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_reduction_create(context->context, value_type, neutral,
                                   reduce, map, arguments, name, preamble,
                                   &made);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK) {
        Py_DECREF(self);
        return kp_raise(status);
    }
    self->generator = made;
    return (PyObject *)self;
}

static PyObject *reduction_run(PyObject *object, PyObject *args,
                               PyObject *kwargs)
{
    static char *names[] = {"n", "args", "result", "offset", "stream", NULL};
    Py_ssize_t n = 0, offset = 0;
    PyObject *values, *result_object, *stream_object = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "nOO|nO", names, &n,
                                     &values, &result_object, &offset,
                                     &stream_object))
        return NULL;
    kiln_buffer *result = kp_buffer_handle(result_object);
    kiln_stream *stream = NULL;
    if (result == NULL || kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (n < 0 || offset < 0) {
        PyErr_SetString(PyExc_ValueError, "n and offset are not negative");
        return NULL;
    }
    kp_generator *self = (kp_generator *)object;
    kp_args pack;
    if (pack_args(self, values, &pack) < 0)
        return NULL;
    kiln_status status =
        kiln_reduction_run(self->generator, (size_t)n, pack.count, pack.args,
                           result, (size_t)offset, stream);
    kp_args_free(&pack);
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyMethodDef reduction_methods[] = {
    {"run", (PyCFunction)(void (*)(void))reduction_run,
     METH_VARARGS | METH_KEYWORDS,
     "run(n, args, result, offset=0, stream=None): reduces i in [0, n) into "
     "the value at byte `offset` of the Buffer `result`, without waiting."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot reduction_slots[] = {
    {Py_tp_doc, "Reduction(context, type, neutral, reduce, map, arguments, "
                "types, name=None, preamble=None): kiln_reduction_create."},
    {Py_tp_new, reduction_new},
    {Py_tp_dealloc, generator_dealloc},
    {Py_tp_methods, reduction_methods},
    {0, NULL},
};

static PyType_Spec reduction_spec = {
    "kiln._kiln.Reduction", sizeof(kp_generator), 0, Py_TPFLAGS_DEFAULT,
    reduction_slots,
};

/* ---- Scan ---------------------------------------------------------------------- */

static PyObject *scan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"context", "type",  "neutral", "scan", "input",
                            "arguments", "types", "exclusive", "name",
                            "preamble", NULL};
    PyObject *context_object;
    const char *value_type, *neutral, *scan, *input = NULL, *arguments, *types,
               *name = NULL, *preamble = NULL;
    int exclusive = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Ossszss|pzz", names,
                                     &context_object, &value_type, &neutral,
                                     &scan, &input, &arguments, &types,
                                     &exclusive, &name, &preamble))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    if (context == NULL)
        return NULL;
    kp_generator *self = generator_alloc(type, context_object, types);
    if (self == NULL)
        return NULL;
    kiln_scan *made = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_scan_create(context->context, value_type, neutral, scan,
                              input, arguments,
                              exclusive ? KILN_SCAN_EXCLUSIVE
                                        : KILN_SCAN_INCLUSIVE,
                              name, preamble, &made);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK) {
        Py_DECREF(self);
        return kp_raise(status);
    }
    self->generator = made;
    return (PyObject *)self;
}

static PyObject *scan_run(PyObject *object, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"n", "args", "output", "offset", "stream", NULL};
    Py_ssize_t n = 0, offset = 0;
    PyObject *values, *output_object, *stream_object = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "nOO|nO", names, &n,
                                     &values, &output_object, &offset,
                                     &stream_object))
        return NULL;
    kiln_buffer *output = kp_buffer_handle(output_object);
    kiln_stream *stream = NULL;
    if (output == NULL || kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (n < 0 || offset < 0) {
        PyErr_SetString(PyExc_ValueError, "n and offset are not negative");
        return NULL;
    }
    kp_generator *self = (kp_generator *)object;
    kp_args pack;
    if (pack_args(self, values, &pack) < 0)
        return NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_scan_run(self->generator, (size_t)n, pack.count, pack.args,
                           output, (size_t)offset, stream);
    Py_END_ALLOW_THREADS
    kp_args_free(&pack);
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyMethodDef scan_methods[] = {
    {"run", (PyCFunction)(void (*)(void))scan_run,
     METH_VARARGS | METH_KEYWORDS,
     "run(n, args, output, offset=0, stream=None): scans i in [0, n) into "
     "n values of the Buffer `output` from byte `offset` (it may be the "
     "input: in place)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot scan_slots[] = {
    {Py_tp_doc, "Scan(context, type, neutral, scan, input, arguments, types, "
                "exclusive=False, name=None, preamble=None): "
                "kiln_scan_create."},
    {Py_tp_new, scan_new},
    {Py_tp_dealloc, generator_dealloc},
    {Py_tp_methods, scan_methods},
    {0, NULL},
};

static PyType_Spec scan_spec = {
    "kiln._kiln.Scan", sizeof(kp_generator), 0, Py_TPFLAGS_DEFAULT, scan_slots,
};

int kp_generator_register(PyObject *module)
{
    elementwise_type = (PyTypeObject *)PyType_FromSpec(&elementwise_spec);
    reduction_type = (PyTypeObject *)PyType_FromSpec(&reduction_spec);
    scan_type = (PyTypeObject *)PyType_FromSpec(&scan_spec);
    if (elementwise_type == NULL || reduction_type == NULL || scan_type == NULL)
        return -1;
    if (kp_add_type(module, "Elementwise", elementwise_type) < 0 ||
        kp_add_type(module, "Reduction", reduction_type) < 0 ||
        kp_add_type(module, "Scan", scan_type) < 0)
        return -1;
    return 0;
}
