/*
 * The module: its exceptions (Kiln's status and message as Python
 * errors), the backend and device queries, and the import.
 */
#include "kiln_python.h"

#include <stdio.h>
#include <string.h>

static PyObject *kiln_error;        /* every status                        */
static PyObject *logic_error;       /* a mistake in the call: argument,
                                       handle, size, range, shape, dtype   */
static PyObject *memory_error;      /* out of device or host memory        */
static PyObject *build_error;       /* a source the compiler or translator
                                       refused                             */
static PyObject *launch_error;      /* a launch refused, a kernel fault    */
static PyObject *backend_error;     /* no backend, no device, vendor error */

static PyObject *error_class(kiln_status status)
{
    switch (status) {
    case KILN_ERR_OUT_OF_HOST_MEMORY:
    case KILN_ERR_OUT_OF_DEVICE_MEMORY:
        return memory_error;
    case KILN_ERR_BUILD:
    case KILN_ERR_TRANSLATION:
        return build_error;
    case KILN_ERR_INVALID_LAUNCH:
    case KILN_ERR_KERNEL_FAULT:
        return launch_error;
    case KILN_ERR_BACKEND_UNKNOWN:
    case KILN_ERR_BACKEND_NOT_FOUND:
    case KILN_ERR_BACKEND_LOAD:
    case KILN_ERR_BACKEND_ABI:
    case KILN_ERR_BACKEND_UNAVAILABLE:
    case KILN_ERR_NO_DEVICE:
    case KILN_ERR_BACKEND:
    case KILN_ERR_IO:
        return backend_error;
    case KILN_OK:
    case KILN_ERR_NOT_READY:
        return kiln_error;
    default:
        return logic_error;
    }
}

static PyObject *raise_with(kiln_status status, const char *prefix)
{
    const char *detail = kiln_last_error();
    PyObject *message =
        prefix != NULL
            ? PyUnicode_FromFormat("%s: %s", prefix, detail)
            : PyUnicode_FromString(detail[0] ? detail : kiln_status_name(status));
    if (message == NULL)
        return NULL;
    PyObject *text = PyUnicode_FromFormat("%s: %U", kiln_status_name(status),
                                          message);
    if (text == NULL) {
        Py_DECREF(message);
        return NULL;
    }
    PyObject *error = PyObject_CallFunctionObjArgs(error_class(status), text, NULL);
    Py_DECREF(text);
    if (error == NULL) {
        Py_DECREF(message);
        return NULL;
    }
    PyObject *code = PyLong_FromLong((long)status);
    PyObject *name = PyUnicode_FromString(kiln_status_name(status));
    if (code == NULL || name == NULL ||
        PyObject_SetAttrString(error, "status", code) < 0 ||
        PyObject_SetAttrString(error, "status_name", name) < 0 ||
        PyObject_SetAttrString(error, "message", message) < 0) {
        Py_XDECREF(code);
        Py_XDECREF(name);
        Py_DECREF(message);
        Py_DECREF(error);
        return NULL;
    }
    Py_DECREF(code);
    Py_DECREF(name);
    Py_DECREF(message);
    PyErr_SetObject(error_class(status), error);
    Py_DECREF(error);
    return NULL;
}

PyObject *kp_raise(kiln_status status)
{
    return raise_with(status, NULL);
}

PyObject *kp_raise_prefix(kiln_status status, const char *what)
{
    return raise_with(status, what);
}

int kp_check(kiln_status status)
{
    if (status == KILN_OK)
        return 0;
    kp_raise(status);
    return -1;
}

int kp_sizes(PyObject *object, size_t *sizes, size_t max, size_t *count,
             const char *what)
{
    PyObject *sequence = PySequence_Fast(object, "");
    if (sequence == NULL) {
        PyErr_Clear();
        /* a single integer is a 1-tuple */
        if (PyIndex_Check(object)) {
            Py_ssize_t value = PyNumber_AsSsize_t(object, PyExc_OverflowError);
            if (value == -1 && PyErr_Occurred())
                return -1;
            if (value < 0) {
                PyErr_Format(PyExc_ValueError, "%s: %zd is negative", what,
                             value);
                return -1;
            }
            sizes[0] = (size_t)value;
            *count = 1;
            return 0;
        }
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of integers", what);
        return -1;
    }
    Py_ssize_t length = PySequence_Size(sequence);
    if (length < 0 || (size_t)length > max) {
        Py_DECREF(sequence);
        PyErr_Format(PyExc_ValueError, "%s has %zd entries, at most %zu", what,
                     length, max);
        return -1;
    }
    for (Py_ssize_t i = 0; i < length; ++i) {
        PyObject *item = PySequence_GetItem(sequence, i);
        if (item == NULL) {
            Py_DECREF(sequence);
            return -1;
        }
        Py_ssize_t value = PyNumber_AsSsize_t(item, PyExc_OverflowError);
        Py_DECREF(item);
        if (value == -1 && PyErr_Occurred()) {
            Py_DECREF(sequence);
            return -1;
        }
        if (value < 0) {
            Py_DECREF(sequence);
            PyErr_Format(PyExc_ValueError, "%s: %zd is negative", what, value);
            return -1;
        }
        sizes[i] = (size_t)value;
    }
    Py_DECREF(sequence);
    *count = (size_t)length;
    return 0;
}

int kp_add_type(PyObject *module, const char *name, PyTypeObject *type)
{
    Py_INCREF((PyObject *)type);
    if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

/* ---- backends and devices ------------------------------------------------ */

static PyObject *device_dict(const kiln_device_info *info)
{
    const char *types[] = {"", "gpu", "cpu", "accelerator", "other"};
    int type = (int)info->type >= 1 && (int)info->type <= 4 ? (int)info->type : 4;
    return Py_BuildValue(
        "{s:s,s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:(ii),s:K,s:K,s:K,s:K,s:i,s:i,"
        "s:n,s:(nnn),s:(nnn),s:i,s:O,s:O,s:s}",
        "backend", info->backend, "index", info->index, "type", types[type],
        "name", info->name, "vendor", info->vendor, "driver_version",
        info->driver_version, "platform", info->platform, "language_version",
        info->language_version, "compute_capability",
        info->compute_capability_major, info->compute_capability_minor,
        "global_memory", (unsigned long long)info->global_memory,
        "local_memory", (unsigned long long)info->local_memory,
        "constant_memory", (unsigned long long)info->constant_memory,
        "max_allocation", (unsigned long long)info->max_allocation,
        "compute_units", info->compute_units, "clock_mhz", info->clock_mhz,
        "max_threads_per_block", (Py_ssize_t)info->max_threads_per_block,
        "max_block", (Py_ssize_t)info->max_block[0],
        (Py_ssize_t)info->max_block[1], (Py_ssize_t)info->max_block[2],
        "max_grid", (Py_ssize_t)info->max_grid[0],
        (Py_ssize_t)info->max_grid[1], (Py_ssize_t)info->max_grid[2],
        "warp_size", info->warp_size, "supports_double",
        info->supports_double ? Py_True : Py_False, "unified_memory",
        info->unified_memory ? Py_True : Py_False, "extensions",
        info->extensions);
}

PyObject *kp_device_dict(const kiln_device_info *info)
{
    return device_dict(info);
}

static PyObject *backends(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    size_t count = 0;
    if (kp_check(kiln_backend_get_count(&count)) < 0)
        return NULL;
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list != NULL && i < count; ++i) {
        kiln_backend_info info;
        kiln_status status;
        Py_BEGIN_ALLOW_THREADS
        status = kiln_backend_get_info(i, &info);
        Py_END_ALLOW_THREADS
        if (status != KILN_OK) {
            Py_DECREF(list);
            return kp_raise(status);
        }
        PyObject *entry = Py_BuildValue(
            "{s:s,s:O,s:s,s:i,s:s,s:s}", "name", info.name, "available",
            info.status == KILN_OK ? Py_True : Py_False, "reason",
            info.reason ? info.reason : "", "devices", info.device_count,
            "path", info.path ? info.path : "", "version",
            info.version ? info.version : "");
        if (entry == NULL || PyList_Append(list, entry) < 0) {
            Py_XDECREF(entry);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(entry);
    }
    return list;
}

static PyObject *default_backend(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const char *name = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_backend_get_default(&name);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    return PyUnicode_FromString(name);
}

static PyObject *device_count(PyObject *self, PyObject *args)
{
    (void)self;
    const char *backend = NULL;
    if (!PyArg_ParseTuple(args, "|z", &backend))
        return NULL;
    int count = 0;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_device_get_count(backend, &count);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    return PyLong_FromLong(count);
}

static PyObject *device_info(PyObject *self, PyObject *args)
{
    (void)self;
    const char *backend = NULL;
    int index = 0;
    if (!PyArg_ParseTuple(args, "zi", &backend, &index))
        return NULL;
    kiln_device_info info;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_device_get_info(backend, index, &info);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    return device_dict(&info);
}

static PyObject *version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(kiln_version());
}

static PyObject *status_name(PyObject *self, PyObject *args)
{
    (void)self;
    int status = 0;
    if (!PyArg_ParseTuple(args, "i", &status))
        return NULL;
    return PyUnicode_FromString(kiln_status_name((kiln_status)status));
}

static PyMethodDef module_methods[] = {
    {"backends", backends, METH_NOARGS,
     "backends() -> list of dicts: every backend Kiln knows, whether it can "
     "be used and why not, its device count and plugin path."},
    {"default_backend", default_backend, METH_NOARGS,
     "default_backend() -> str: the backend a context gets without a name "
     "(KILN_BACKEND, else CUDA with a device, else OpenCL)."},
    {"device_count", device_count, METH_VARARGS,
     "device_count(backend=None) -> int: the devices of a backend."},
    {"device_info", device_info, METH_VARARGS,
     "device_info(backend, index) -> dict: a device's properties (name, "
     "memory, limits, compute capability or OpenCL version)."},
    {"version", version, METH_NOARGS,
     "version() -> str: the version of the libkiln this module runs on."},
    {"status_name", status_name, METH_VARARGS,
     "status_name(status) -> str: 'KILN_ERR_BUILD' for a kiln_status code."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "kiln._kiln",
    "Kiln's C API as Python objects: contexts, buffers, programs, kernels, "
    "streams, events, arrays and kernel generators.  The kiln package and "
    "kiln.pycuda are built on it.",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

static PyObject *new_error(PyObject *module, const char *name,
                           const char *doc, PyObject *bases)
{
    char qualified[128];
    snprintf(qualified, sizeof qualified, "kiln.%s", name);
    PyObject *type = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
    if (type == NULL)
        return NULL;
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, type) < 0) {
        Py_DECREF(type);
        Py_DECREF(type);
        return NULL;
    }
    return type;
}

static int add_errors(PyObject *module)
{
    kiln_error = new_error(
        module, "KilnError",
        "A Kiln call failed.  .status is the kiln_status code, .status_name "
        "its name ('KILN_ERR_BUILD'), .message Kiln's explanation (the "
        "compiler's log for a build).",
        PyExc_Exception);
    if (kiln_error == NULL)
        return -1;
    PyObject *memory_bases = PyTuple_Pack(2, kiln_error, PyExc_MemoryError);
    if (memory_bases == NULL)
        return -1;
    logic_error = new_error(
        module, "LogicError",
        "A call Kiln refused as given: a bad argument, handle, size, range, "
        "shape or dtype, objects of two contexts, a kernel that is not there, "
        "an argument that does not fit its parameter.",
        kiln_error);
    memory_error = new_error(module, "OutOfMemoryError",
                             "The device or the host is out of memory.",
                             memory_bases);
    Py_DECREF(memory_bases);
    build_error = new_error(
        module, "BuildError",
        "A source the compiler refused (the log is in .message), or CUDA C "
        "the OpenCL backend cannot translate faithfully (the construct and "
        "the line are named).",
        kiln_error);
    launch_error = new_error(
        module, "LaunchError",
        "A launch the device refused (grid or block over its limits, too "
        "much shared memory), or a kernel that faulted.",
        kiln_error);
    backend_error = new_error(
        module, "BackendError",
        "No usable backend or device, or an error of the vendor's API (its "
        "name is in the message).",
        kiln_error);
    if (logic_error == NULL || memory_error == NULL || build_error == NULL ||
        launch_error == NULL || backend_error == NULL)
        return -1;
    return 0;
}

PyMODINIT_FUNC PyInit__kiln(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    if (add_errors(module) < 0 || kp_context_register(module) < 0 ||
        kp_stream_register(module) < 0 || kp_buffer_register(module) < 0 ||
        kp_program_register(module) < 0 || kp_array_register(module) < 0 ||
        kp_generator_register(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
