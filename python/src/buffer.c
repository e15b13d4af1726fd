/*
 * Buffer (device memory, or a view into it), the address table that turns
 * PyCUDA's integer pointers back into buffers, HostArg (cuda.In/Out/InOut)
 * and HostMemory (page-locked host memory with the buffer protocol).
 *
 * Every Buffer has an address, its int(): on CUDA the device pointer, on
 * OpenCL (where a cl_mem has none) a number Kiln gives the buffer that owns
 * the memory, spaced so that no two buffers' ranges touch.  int(buf) + 4
 * passed as a kernel's pointer argument is looked up here and becomes a
 * view four bytes into the buffer (kiln_buffer_create_view), on every
 * backend.
 */
#include "kiln_python.h"

#include <string.h>

PyTypeObject *kp_buffer_type;
PyTypeObject *kp_host_arg_type;
PyTypeObject *kp_host_memory_type;

/* ---- the address table ------------------------------------------------------ */

/* One buffer that owns memory (a view's base) and the range of addresses
 * it answers for, while Buffer objects refer to it. */
typedef struct {
    uint64_t start, end;
    kiln_buffer *base;
    PyObject *context;  /* the Context object of the first user (held) */
    size_t users;
} address_range;

static address_range *ranges;   /* sorted by start, never overlapping */
static size_t range_count, range_capacity;
/* OpenCL: the next address to give, far from small integers and pointer
 * arithmetic's reach (each range is followed by a gap). */
static uint64_t next_address = (uint64_t)1 << 40;
#define ADDRESS_GAP ((uint64_t)1 << 16)

static size_t range_find_base(const kiln_buffer *base)
{
    for (size_t k = 0; k < range_count; ++k)
        if (ranges[k].base == base)
            return k;
    return (size_t)-1;
}

/* The index of the last range starting at or before `address`. */
static size_t range_before(uint64_t address)
{
    size_t low = 0, high = range_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (ranges[middle].start <= address)
            low = middle + 1;
        else
            high = middle;
    }
    return low == 0 ? (size_t)-1 : low - 1;
}

/* Counts a user of `base` and writes the address of its first byte. */
static int range_use(kiln_buffer *base, PyObject *context, uint64_t *address)
{
    bool is_cuda = ((kp_context *)context)->is_cuda;
    size_t found = range_find_base(base);
    if (found != (size_t)-1) {
        ranges[found].users++;
        *address = ranges[found].start;
        return 0;
    }
    size_t size = 0;
    if (kp_check(kiln_buffer_get_size(base, &size)) < 0)
        return -1;
    uint64_t start = 0;
    if (is_cuda) {
        if (kp_check(kiln_buffer_get_native(base, &start, sizeof start)) < 0)
            return -1;
    } else {
        start = next_address;
        uint64_t span = ((uint64_t)size + 4095) & ~(uint64_t)4095;
        next_address += span + ADDRESS_GAP;
    }
    if (range_count == range_capacity) {
        size_t capacity = range_capacity ? 2 * range_capacity : 64;
        address_range *grown = PyMem_Realloc(ranges, capacity * sizeof *grown);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        ranges = grown;
        range_capacity = capacity;
    }
    size_t at = range_before(start) + 1; /* (size_t)-1 + 1 == 0 */
    memmove(ranges + at + 1, ranges + at, (range_count - at) * sizeof *ranges);
    Py_INCREF(context);
    ranges[at] = (address_range){start, start + size, base, context, 1};
    ++range_count;
    *address = start;
    return 0;
}

static void range_unuse(const kiln_buffer *base)
{
    size_t found = range_find_base(base);
    if (found == (size_t)-1 || --ranges[found].users > 0)
        return;
    PyObject *context = ranges[found].context;
    memmove(ranges + found, ranges + found + 1,
            (range_count - found - 1) * sizeof *ranges);
    --range_count;
    Py_DECREF(context);
}

kiln_buffer *kp_address_resolve(uint64_t address, size_t *offset)
{
    size_t k = range_before(address);
    if (k == (size_t)-1 || address >= ranges[k].end) {
        PyErr_Format(PyExc_ValueError,
                     "address 0x%llx is not inside any live Kiln buffer (an "
                     "integer given for a pointer must be int() of a "
                     "DeviceAllocation plus an offset inside it)",
                     (unsigned long long)address);
        return NULL;
    }
    *offset = (size_t)(address - ranges[k].start);
    return ranges[k].base;
}

/* ---- Buffer ------------------------------------------------------------------ */

PyObject *kp_buffer_wrap(PyObject *context, kiln_buffer *buffer,
                         PyObject *owner)
{
    kiln_buffer *base = NULL;
    size_t offset = 0, size = 0;
    if (kp_check(kiln_buffer_get_base(buffer, &base, &offset)) < 0 ||
        kp_check(kiln_buffer_get_size(buffer, &size)) < 0) {
        kiln_buffer_release(buffer);
        return NULL;
    }
    kp_buffer *self = (kp_buffer *)PyType_GenericAlloc(kp_buffer_type, 0);
    if (self == NULL) {
        kiln_buffer_release(buffer);
        return NULL;
    }
    uint64_t start = 0;
    if (range_use(base, context, &start) < 0) {
        kiln_buffer_release(buffer);
        Py_DECREF(self);
        return NULL;
    }
    self->buffer = buffer;
    self->base = base;
    self->address = start + offset;
    self->size = size;
    Py_INCREF(context);
    self->context = context;
    Py_XINCREF(owner);
    self->owner = owner;
    return (PyObject *)self;
}

kiln_buffer *kp_buffer_handle(PyObject *object)
{
    if (!PyObject_TypeCheck(object, kp_buffer_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a kiln Buffer");
        return NULL;
    }
    kp_buffer *self = (kp_buffer *)object;
    if (self->buffer == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "the buffer was freed (DeviceAllocation.free())");
        return NULL;
    }
    return self->buffer;
}

/* Drops the Kiln reference and the address range (free() and dealloc). */
static void buffer_drop(kp_buffer *self)
{
    if (self->buffer == NULL)
        return;
    range_unuse(self->base);
    kiln_buffer *buffer = self->buffer;
    self->buffer = NULL;
    kiln_buffer_release(buffer);
}

static PyObject *buffer_new(PyTypeObject *type, PyObject *args,
                            PyObject *kwargs)
{
    (void)type;
    static char *names[] = {"context", "size", NULL};
    PyObject *context = NULL;
    Py_ssize_t size = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "On", names, &context,
                                     &size))
        return NULL;
    kp_context *owner = kp_context_of(context);
    if (owner == NULL)
        return NULL;
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "a buffer size is not negative");
        return NULL;
    }
    kiln_buffer *buffer = NULL;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_buffer_create(owner->context, (size_t)size, &buffer);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    return kp_buffer_wrap(context, buffer, NULL);
}

static void buffer_dealloc(PyObject *object)
{
    kp_buffer *self = (kp_buffer *)object;
    if (self->weakrefs != NULL)
        PyObject_ClearWeakRefs(object);
    buffer_drop(self);
    Py_XDECREF(self->owner);
    Py_XDECREF(self->context);
    kp_free(object);
}

static PyObject *buffer_free(PyObject *object, PyObject *unused)
{
    (void)unused;
    buffer_drop((kp_buffer *)object);
    Py_RETURN_NONE;
}

static PyObject *buffer_int(PyObject *object)
{
    return PyLong_FromUnsignedLongLong(
        (unsigned long long)((kp_buffer *)object)->address);
}

/* A host object's contiguous bytes; `writable` for reads into it. */
static int host_bytes(PyObject *host, Py_buffer *view, bool writable)
{
    return PyObject_GetBuffer(host, view,
                              PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE
                                                             : 0));
}

static PyObject *buffer_write(PyObject *object, PyObject *args,
                              PyObject *kwargs)
{
    static char *names[] = {"host", "offset", "stream", "blocking", NULL};
    PyObject *host = NULL, *stream_object = Py_None;
    Py_ssize_t offset = 0;
    int blocking = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|nOp", names, &host,
                                     &offset, &stream_object, &blocking))
        return NULL;
    kiln_buffer *buffer = kp_buffer_handle(object);
    kiln_stream *stream = NULL;
    if (buffer == NULL || kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (offset < 0) {
        PyErr_SetString(PyExc_ValueError, "offset is negative");
        return NULL;
    }
    Py_buffer view;
    if (host_bytes(host, &view, false) < 0)
        return NULL;
    kiln_status status = KILN_OK;
    if (view.len > 0) {
        Py_BEGIN_ALLOW_THREADS
        status = blocking
                     ? kiln_buffer_write(buffer, (size_t)offset, view.buf,
                                         (size_t)view.len)
                     : kiln_buffer_write_async(buffer, (size_t)offset, view.buf,
                                               (size_t)view.len, stream);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *buffer_read(PyObject *object, PyObject *args,
                             PyObject *kwargs)
{
    static char *names[] = {"host", "offset", "stream", "blocking", NULL};
    PyObject *host = NULL, *stream_object = Py_None;
    Py_ssize_t offset = 0;
    int blocking = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|nOp", names, &host,
                                     &offset, &stream_object, &blocking))
        return NULL;
    kiln_buffer *buffer = kp_buffer_handle(object);
    kiln_stream *stream = NULL;
    if (buffer == NULL || kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (offset < 0) {
        PyErr_SetString(PyExc_ValueError, "offset is negative");
        return NULL;
    }
    Py_buffer view;
    if (host_bytes(host, &view, true) < 0)
        return NULL;
    kiln_status status = KILN_OK;
    if (view.len > 0) {
        Py_BEGIN_ALLOW_THREADS
        status = blocking
                     ? kiln_buffer_read(buffer, (size_t)offset, view.buf,
                                        (size_t)view.len)
                     : kiln_buffer_read_async(buffer, (size_t)offset, view.buf,
                                              (size_t)view.len, stream);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *buffer_copy_from(PyObject *object, PyObject *args,
                                  PyObject *kwargs)
{
    static char *names[] = {"source",   "size",     "offset", "source_offset",
                            "stream",   "blocking", NULL};
    PyObject *source_object = NULL, *size_object = Py_None,
             *stream_object = Py_None;
    Py_ssize_t offset = 0, source_offset = 0;
    int blocking = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OnnOp", names,
                                     &source_object, &size_object, &offset,
                                     &source_offset, &stream_object,
                                     &blocking))
        return NULL;
    kiln_buffer *destination = kp_buffer_handle(object);
    kiln_buffer *source = kp_buffer_handle(source_object);
    kiln_stream *stream = NULL;
    if (destination == NULL || source == NULL ||
        kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (offset < 0 || source_offset < 0) {
        PyErr_SetString(PyExc_ValueError, "offsets are not negative");
        return NULL;
    }
    size_t size = 0;
    if (size_object == Py_None) {
        size_t a = ((kp_buffer *)object)->size, b = ((kp_buffer *)source_object)->size;
        size = a < b ? a : b;
    } else {
        Py_ssize_t given = PyNumber_AsSsize_t(size_object, PyExc_OverflowError);
        if (given == -1 && PyErr_Occurred())
            return NULL;
        if (given < 0) {
            PyErr_SetString(PyExc_ValueError, "size is negative");
            return NULL;
        }
        size = (size_t)given;
    }
    if (size == 0)
        Py_RETURN_NONE;
    kiln_status status;
    Py_BEGIN_ALLOW_THREADS
    status = blocking ? kiln_buffer_copy(destination, (size_t)offset, source,
                                         (size_t)source_offset, size)
                      : kiln_buffer_copy_async(destination, (size_t)offset,
                                               source, (size_t)source_offset,
                                               size, stream);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *buffer_fill(PyObject *object, PyObject *args,
                             PyObject *kwargs)
{
    static char *names[] = {"pattern", "offset", "size", "stream", "blocking",
                            NULL};
    PyObject *pattern = NULL, *size_object = Py_None, *stream_object = Py_None;
    Py_ssize_t offset = 0;
    int blocking = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|nOOp", names, &pattern,
                                     &offset, &size_object, &stream_object,
                                     &blocking))
        return NULL;
    kiln_buffer *buffer = kp_buffer_handle(object);
    kiln_stream *stream = NULL;
    if (buffer == NULL || kp_stream_of(stream_object, &stream) < 0)
        return NULL;
    if (offset < 0) {
        PyErr_SetString(PyExc_ValueError, "offset is negative");
        return NULL;
    }
    size_t size = ((kp_buffer *)object)->size - (size_t)offset;
    if (size_object != Py_None) {
        Py_ssize_t given = PyNumber_AsSsize_t(size_object, PyExc_OverflowError);
        if (given == -1 && PyErr_Occurred())
            return NULL;
        size = (size_t)given;
    }
    Py_buffer view;
    if (host_bytes(pattern, &view, false) < 0)
        return NULL;
    kiln_status status = KILN_OK;
    if (size > 0) {
        Py_BEGIN_ALLOW_THREADS
        status = blocking
                     ? kiln_buffer_fill(buffer, (size_t)offset, size, view.buf,
                                        (size_t)view.len)
                     : kiln_buffer_fill_async(buffer, (size_t)offset, size,
                                              view.buf, (size_t)view.len,
                                              stream);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    if (status != KILN_OK)
        return kp_raise(status);
    Py_RETURN_NONE;
}

static PyObject *buffer_view(PyObject *object, PyObject *args,
                             PyObject *kwargs)
{
    static char *names[] = {"offset", "size", NULL};
    Py_ssize_t offset = 0;
    PyObject *size_object = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n|O", names, &offset,
                                     &size_object))
        return NULL;
    kp_buffer *self = (kp_buffer *)object;
    kiln_buffer *buffer = kp_buffer_handle(object);
    if (buffer == NULL)
        return NULL;
    if (offset < 0) {
        PyErr_SetString(PyExc_ValueError, "offset is negative");
        return NULL;
    }
    size_t size = (size_t)offset <= self->size ? self->size - (size_t)offset : 0;
    if (size_object != Py_None) {
        Py_ssize_t given = PyNumber_AsSsize_t(size_object, PyExc_OverflowError);
        if (given == -1 && PyErr_Occurred())
            return NULL;
        if (given < 0) {
            PyErr_SetString(PyExc_ValueError, "size is negative");
            return NULL;
        }
        size = (size_t)given;
    }
    kiln_buffer *view = NULL;
    if (kp_check(kiln_buffer_create_view(buffer, (size_t)offset, size, &view)) <
        0)
        return NULL;
    return kp_buffer_wrap(self->context, view, object);
}

static PyObject *buffer_size(PyObject *object, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(((kp_buffer *)object)->size);
}

static PyObject *buffer_address(PyObject *object, void *closure)
{
    (void)closure;
    return buffer_int(object);
}

static PyObject *buffer_context(PyObject *object, void *closure)
{
    (void)closure;
    PyObject *context = ((kp_buffer *)object)->context;
    Py_INCREF(context);
    return context;
}

static PyObject *buffer_offset(PyObject *object, void *closure)
{
    (void)closure;
    kiln_buffer *buffer = kp_buffer_handle(object), *base = NULL;
    size_t offset = 0;
    if (buffer == NULL || kp_check(kiln_buffer_get_base(buffer, &base, &offset)) < 0)
        return NULL;
    return PyLong_FromSize_t(offset);
}

static PyObject *buffer_freed(PyObject *object, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((kp_buffer *)object)->buffer == NULL);
}

static PyObject *buffer_native(PyObject *object, void *closure)
{
    (void)closure;
    kiln_buffer *buffer = kp_buffer_handle(object);
    if (buffer == NULL)
        return NULL;
    uint64_t handle = 0;
    size_t size = ((kp_context *)((kp_buffer *)object)->context)->is_cuda
                      ? sizeof(uint64_t)
                      : sizeof(void *);
    if (kp_check(kiln_buffer_get_native(buffer, &handle, size)) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong((unsigned long long)handle);
}

static PyObject *buffer_repr(PyObject *object)
{
    kp_buffer *self = (kp_buffer *)object;
    return PyUnicode_FromFormat("<kiln Buffer of %zu bytes at 0x%llx%s>",
                                self->size,
                                (unsigned long long)self->address,
                                self->buffer == NULL ? " (freed)" : "");
}

static PyMethodDef buffer_methods[] = {
    {"free", buffer_free, METH_NOARGS,
     "free(): releases the memory now instead of when the object goes "
     "(views and arrays still using it keep it until they go)."},
    {"write", (PyCFunction)(void (*)(void))buffer_write,
     METH_VARARGS | METH_KEYWORDS,
     "write(host, offset=0, stream=None, blocking=True): copies a host "
     "array (any C-contiguous buffer-protocol object) to bytes [offset, "
     "offset + len) of the buffer; blocking=False queues it on `stream` "
     "(the host memory must then stay as it is until the stream passes)."},
    {"read", (PyCFunction)(void (*)(void))buffer_read,
     METH_VARARGS | METH_KEYWORDS,
     "read(host, offset=0, stream=None, blocking=True): copies bytes "
     "[offset, offset + len(host)) into a writable host array."},
    {"copy_from", (PyCFunction)(void (*)(void))buffer_copy_from,
     METH_VARARGS | METH_KEYWORDS,
     "copy_from(source, size=None, offset=0, source_offset=0, stream=None, "
     "blocking=True): device-to-device copy from another Buffer (of any "
     "context)."},
    {"fill", (PyCFunction)(void (*)(void))buffer_fill,
     METH_VARARGS | METH_KEYWORDS,
     "fill(pattern, offset=0, size=None, stream=None, blocking=True): "
     "repeats a pattern of 1, 2, 4, 8 or 16 bytes."},
    {"view", (PyCFunction)(void (*)(void))buffer_view,
     METH_VARARGS | METH_KEYWORDS,
     "view(offset, size=None) -> Buffer: bytes [offset, offset + size) as a "
     "buffer of their own, keeping this one alive."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef buffer_getset[] = {
    {"size", buffer_size, NULL, "Bytes in the buffer.", NULL},
    {"address", buffer_address, NULL,
     "The address of the first byte, as int(buffer): the device pointer on "
     "CUDA, an address Kiln resolves back to this buffer on OpenCL.",
     NULL},
    {"context", buffer_context, NULL, "The buffer's Context.", NULL},
    {"offset", buffer_offset, NULL,
     "Bytes from the start of the allocation it is a view of (0 if none).",
     NULL},
    {"freed", buffer_freed, NULL, "Whether free() was called.", NULL},
    {"native", buffer_native, NULL,
     "The native handle as an integer: CUdeviceptr, or the cl_mem (a "
     "sub-buffer for a view).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef buffer_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(kp_buffer, weakrefs),
     READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot buffer_slots[] = {
    {Py_tp_doc, "Buffer(context, size): device memory of `size` bytes (PyCUDA's "
                "DeviceAllocation).  int(buffer) is its address; the memory "
                "is freed when the last reference goes, or by free()."},
    {Py_tp_new, buffer_new},
    {Py_tp_dealloc, buffer_dealloc},
    {Py_tp_methods, buffer_methods},
    {Py_tp_getset, buffer_getset},
    {Py_tp_members, buffer_members},
    {Py_tp_repr, buffer_repr},
    {Py_nb_int, buffer_int},
    {Py_nb_index, buffer_int},
    {0, NULL},
};

static PyType_Spec buffer_spec = {
    "kiln._kiln.Buffer", sizeof(kp_buffer), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, buffer_slots,
};

/* ---- HostArg ------------------------------------------------------------------ */

static PyObject *host_arg_new(PyTypeObject *type, PyObject *args,
                              PyObject *kwargs)
{
    static char *names[] = {"array", "kind", NULL};
    PyObject *array = NULL;
    const char *kind = "in";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|s", names, &array, &kind))
        return NULL;
    kiln_arg_kind value;
    if (strcmp(kind, "in") == 0)
        value = KILN_ARG_KIND_IN;
    else if (strcmp(kind, "out") == 0)
        value = KILN_ARG_KIND_OUT;
    else if (strcmp(kind, "inout") == 0)
        value = KILN_ARG_KIND_INOUT;
    else {
        PyErr_Format(PyExc_ValueError,
                     "kind must be 'in', 'out' or 'inout', not '%s'", kind);
        return NULL;
    }
    if (!PyObject_CheckBuffer(array)) {
        PyErr_SetString(PyExc_TypeError,
                        "In/Out/InOut take a host array (an object with the "
                        "buffer protocol, such as a NumPy array)");
        return NULL;
    }
    kp_host_arg *self = (kp_host_arg *)PyType_GenericAlloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(array);
    self->array = array;
    self->kind = value;
    return (PyObject *)self;
}

static void host_arg_dealloc(PyObject *object)
{
    Py_XDECREF(((kp_host_arg *)object)->array);
    kp_free(object);
}

static PyObject *host_arg_array(PyObject *object, void *closure)
{
    (void)closure;
    PyObject *array = ((kp_host_arg *)object)->array;
    Py_INCREF(array);
    return array;
}

static PyGetSetDef host_arg_getset[] = {
    {"array", host_arg_array, NULL, "The host array.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot host_arg_slots[] = {
    {Py_tp_doc, "HostArg(array, kind='in'): a host array passed to a kernel, "
                "copied to the device before the launch ('in'), back after it "
                "('out'), or both ('inout'): PyCUDA's In, Out, InOut."},
    {Py_tp_new, host_arg_new},
    {Py_tp_dealloc, host_arg_dealloc},
    {Py_tp_getset, host_arg_getset},
    {0, NULL},
};

static PyType_Spec host_arg_spec = {
    "kiln._kiln.HostArg", sizeof(kp_host_arg), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, host_arg_slots,
};

/* ---- HostMemory --------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *context;
    void *memory;
    size_t size;
} kp_host_memory;

static PyObject *host_memory_new(PyTypeObject *type, PyObject *args,
                                 PyObject *kwargs)
{
    static char *names[] = {"context", "size", NULL};
    PyObject *context_object = NULL;
    Py_ssize_t size = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "On", names,
                                     &context_object, &size))
        return NULL;
    kp_context *context = kp_context_of(context_object);
    if (context == NULL)
        return NULL;
    if (size < 0) {
        PyErr_SetString(PyExc_ValueError, "size is negative");
        return NULL;
    }
    void *memory = NULL;
    kiln_status status;
    /* PyCUDA allows empty page-locked arrays: give them one byte */
    size_t bytes = size > 0 ? (size_t)size : 1;
    Py_BEGIN_ALLOW_THREADS
    status = kiln_host_alloc(context->context, bytes, &memory);
    Py_END_ALLOW_THREADS
    if (status != KILN_OK)
        return kp_raise(status);
    kp_host_memory *self = (kp_host_memory *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        kiln_host_free(context->context, memory);
        return NULL;
    }
    Py_INCREF(context_object);
    self->context = context_object;
    self->memory = memory;
    self->size = (size_t)size;
    return (PyObject *)self;
}

static void host_memory_dealloc(PyObject *object)
{
    kp_host_memory *self = (kp_host_memory *)object;
    if (self->memory != NULL)
        kiln_host_free(((kp_context *)self->context)->context, self->memory);
    Py_XDECREF(self->context);
    kp_free(object);
}

static int host_memory_getbuffer(PyObject *object, Py_buffer *view, int flags)
{
    kp_host_memory *self = (kp_host_memory *)object;
    return PyBuffer_FillInfo(view, object, self->memory, (Py_ssize_t)self->size,
                             0, flags);
}

static void host_memory_releasebuffer(PyObject *object, Py_buffer *view)
{
    (void)object;
    (void)view;
}

static PyObject *host_memory_address(PyObject *object, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((kp_host_memory *)object)->memory);
}

static PyGetSetDef host_memory_getset[] = {
    {"address", host_memory_address, NULL, "The host address.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot host_memory_slots[] = {
    {Py_tp_doc, "HostMemory(context, size): page-locked host memory, for fast "
                "and asynchronous copies; a writable buffer-protocol object "
                "(numpy.frombuffer views it), freed when the last reference "
                "goes."},
    {Py_tp_new, host_memory_new},
    {Py_tp_dealloc, host_memory_dealloc},
    {Py_tp_getset, host_memory_getset},
    {Py_bf_getbuffer, host_memory_getbuffer},
    {Py_bf_releasebuffer, host_memory_releasebuffer},
    {0, NULL},
};

static PyType_Spec host_memory_spec = {
    "kiln._kiln.HostMemory", sizeof(kp_host_memory), 0, Py_TPFLAGS_DEFAULT,
    host_memory_slots,
};

static PyObject *resolve_address(PyObject *module, PyObject *arg)
{
    (void)module;
    unsigned long long address = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred())
        return NULL;
    size_t offset = 0;
    kiln_buffer *base = kp_address_resolve(address, &offset);
    if (base == NULL)
        return NULL;
    size_t size = 0;
    if (kp_check(kiln_buffer_get_size(base, &size)) < 0)
        return NULL;
    return Py_BuildValue("(nn)", (Py_ssize_t)offset, (Py_ssize_t)(size - offset));
}

static PyObject *buffer_at(PyObject *module, PyObject *arg)
{
    (void)module;
    unsigned long long address = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred())
        return NULL;
    size_t offset = 0, size = 0;
    kiln_buffer *base = kp_address_resolve(address, &offset);
    if (base == NULL || kp_check(kiln_buffer_get_size(base, &size)) < 0)
        return NULL;
    PyObject *context = ranges[range_before(address)].context;
    kiln_buffer *view = NULL;
    if (kp_check(kiln_buffer_create_view(base, offset, size - offset, &view)) < 0)
        return NULL;
    return kp_buffer_wrap(context, view, NULL);
}

static PyMethodDef address_methods[] = {
    {"buffer_at", buffer_at, METH_O,
     "buffer_at(address) -> Buffer: a view from `address` to the end of the "
     "live buffer holding it (ValueError if none does)."},
    {"resolve_address", resolve_address, METH_O,
     "resolve_address(address) -> (offset, bytes_left): where an address "
     "falls in the live buffer that holds it (ValueError if none does)."},
    {NULL, NULL, 0, NULL},
};

int kp_buffer_register(PyObject *module)
{
    kp_buffer_type = (PyTypeObject *)PyType_FromSpec(&buffer_spec);
    kp_host_arg_type = (PyTypeObject *)PyType_FromSpec(&host_arg_spec);
    kp_host_memory_type = (PyTypeObject *)PyType_FromSpec(&host_memory_spec);
    if (kp_buffer_type == NULL || kp_host_arg_type == NULL ||
        kp_host_memory_type == NULL)
        return -1;
    if (kp_add_type(module, "Buffer", kp_buffer_type) < 0 ||
        kp_add_type(module, "HostArg", kp_host_arg_type) < 0 ||
        kp_add_type(module, "HostMemory", kp_host_memory_type) < 0)
        return -1;
    return PyModule_AddFunctions(module, address_methods);
}
