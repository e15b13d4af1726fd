/*
 * Context: one device of one backend (kiln_context).
 */
#include "kiln_python.h"

#include <string.h>

PyTypeObject *kp_context_type;

kp_context *kp_context_of(PyObject *object)
{
    if (!PyObject_TypeCheck(object, kp_context_type)) {
        PyErr_Format(PyExc_TypeError, "expected a kiln Context, got %s",
                     object == Py_None ? "None" : "another object");
        return NULL;
    }
    return (kp_context *)object;
}

static PyObject *context_new(PyTypeObject *type, PyObject *args,
                             PyObject *kwargs)
{
    static char *names[] = {"backend", "device", NULL};
    const char *backend = NULL;
    int device = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zi", names, &backend,
                                     &device))
        return NULL;
    kiln_context *context = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_context_create(backend, device, &context);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    kp_context *self = (kp_context *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        kiln_context_release(context);
        return NULL;
    }
    self->context = context;
    const char *name = "";
    kiln_context_get_backend(context, &name);
    self->is_cuda = strcmp(name, "cuda") == 0;
    return (PyObject *)self;
}

static void context_dealloc(PyObject *object)
{
    kp_context *self = (kp_context *)object;
    if (self->context != NULL) {
        Py_BEGIN_ALLOW_THREADS
        kiln_context_release(self->context);
        Py_END_ALLOW_THREADS
    }
    kp_free(object);
}

static PyObject *context_backend(PyObject *object, void *closure)
{
    (void)closure;
    const char *name = "";
    if (kp_check(kiln_context_get_backend(((kp_context *)object)->context,
                                          &name)) < 0)
        return NULL;
    return PyUnicode_FromString(name);
}

static PyObject *context_device_info(PyObject *object, PyObject *unused)
{
    (void)unused;
    kiln_device_info info;
    if (kp_check(kiln_context_get_device_info(((kp_context *)object)->context,
                                              &info)) < 0)
        return NULL;
    return kp_device_dict(&info);
}

static PyObject *context_synchronize(PyObject *object, PyObject *unused)
{
    (void)unused;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_context_synchronize(((kp_context *)object)->context);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *context_pool_stats(PyObject *object, PyObject *unused)
{
    (void)unused;
    kiln_pool_stats stats;
    if (kp_check(kiln_pool_get_stats(((kp_context *)object)->context,
                                     &stats)) < 0)
        return NULL;
    return Py_BuildValue("{s:K,s:K,s:K,s:K}", "bytes_in_use",
                         (unsigned long long)stats.bytes_in_use,
                         "bytes_cached",
                         (unsigned long long)stats.bytes_cached, "allocations",
                         (unsigned long long)stats.allocations, "reuses",
                         (unsigned long long)stats.reuses);
}

static PyObject *context_pool_trim(PyObject *object, PyObject *unused)
{
    (void)unused;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_pool_trim(((kp_context *)object)->context);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *context_set_pool_enabled(PyObject *object, PyObject *arg)
{
    int enabled = PyObject_IsTrue(arg);
    if (enabled < 0)
        return NULL;
    if (kp_check(kiln_pool_set_enabled(((kp_context *)object)->context,
                                       enabled)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *context_set_checks(PyObject *object, PyObject *arg)
{
    unsigned long checks = PyLong_AsUnsignedLong(arg);
    if (PyErr_Occurred())
        return NULL;
    if (kp_check(kiln_context_set_checks(((kp_context *)object)->context,
                                         (unsigned)checks)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *context_native(PyObject *object, void *closure)
{
    (void)closure;
    void *handle = NULL;
    if (kp_check(kiln_context_get_native(((kp_context *)object)->context,
                                         &handle, sizeof handle)) < 0)
        return NULL;
    return PyLong_FromVoidPtr(handle);
}

static PyObject *context_alloc(PyObject *object, PyObject *arg)
{
    Py_ssize_t size = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
    if (size == -1 && PyErr_Occurred())
        return NULL;
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "a buffer size is not negative");
        return NULL;
    }
    kiln_buffer *buffer = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_buffer_create(((kp_context *)object)->context, (size_t)size,
                                &buffer);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    return kp_buffer_wrap(object, buffer, NULL);
}

static PyObject *context_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, kp_context_type) ||
        (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    bool same = ((kp_context *)a)->context == ((kp_context *)b)->context;
    if ((op == Py_EQ) == same)
        Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

static Py_hash_t context_hash(PyObject *object)
{
    return (Py_hash_t)(((uintptr_t)((kp_context *)object)->context) >> 4);
}

static PyMethodDef context_methods[] = {
    {"device_info", context_device_info, METH_NOARGS,
     "device_info() -> dict: the context's device (name, memory, limits)."},
    {"synchronize", context_synchronize, METH_NOARGS,
     "synchronize(): waits for all work on all streams of the context; "
     "raises LaunchError for a kernel that faulted since the last wait."},
    {"pool_stats", context_pool_stats, METH_NOARGS,
     "pool_stats() -> dict: the memory pool's bytes in use and cached, "
     "allocations and reuses."},
    {"pool_trim", context_pool_trim, METH_NOARGS,
     "pool_trim(): returns the pool's cached blocks to the driver."},
    {"set_pool_enabled", context_set_pool_enabled, METH_O,
     "set_pool_enabled(flag): turns the memory pool on or off."},
    {"set_checks", context_set_checks, METH_O,
     "set_checks(flags): 1 turns on the checked mode (guard zones around "
     "buffers made from now on; out-of-bounds writes raise LaunchError)."},
    {"alloc", context_alloc, METH_O,
     "alloc(size) -> Buffer: `size` bytes of device memory, contents "
     "undefined."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
    {"backend", context_backend, NULL, "The backend's name: 'cuda' or 'opencl'.",
     NULL},
    {"native", context_native, NULL,
     "The native handle as an integer: CUcontext or cl_context.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot context_slots[] = {
    {Py_tp_doc, "Context(backend=None, device=-1): a device of a backend "
                "('cuda', 'opencl'; None: KILN_BACKEND, else CUDA with a "
                "device, else OpenCL).  Objects made in it keep it alive."},
    {Py_tp_new, context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_richcompare, context_richcompare},
    {Py_tp_hash, context_hash},
    {0, NULL},
};

static PyType_Spec context_spec = {
    "kiln._kiln.Context", sizeof(kp_context), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    context_slots,
};

int kp_context_register(PyObject *module)
{
    kp_context_type = (PyTypeObject *)PyType_FromSpec(&context_spec);
    if (kp_context_type == NULL)
        return -1;
    return kp_add_type(module, "Context", kp_context_type);
}
