/*
 * The kiln._kiln extension module: Kiln's C API (kiln.h, kiln_array.h) as
 * Python objects, on CPython's limited API (one abi3 build for 3.11 and
 * later).  What is shared between its files.
 *
 * Lifetimes are Python's: each object holds one Kiln reference to the
 * handle it wraps (and so, through Kiln, to the handle's parents) and a
 * reference to the Python objects it hands back (a Buffer its Context).
 * Host memory is taken through the buffer protocol and held until the
 * Kiln call that reads or writes it has returned.  Calls that may wait
 * (synchronize, blocking copies, builds, launches with host arrays)
 * release the GIL.  The module's state (type objects, exception classes,
 * the address table) is set once at import and used under the GIL.
 */
#ifndef KILN_PYTHON_H
#define KILN_PYTHON_H

#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stdbool.h>
#include <stdint.h>

#include "kiln.h"
#include "kiln_array.h"

/* ---- errors (module.c) -------------------------------------------------- */

/* Raises the KilnError subclass of `status` with kiln_last_error() and
 * returns NULL. */
PyObject *kp_raise(kiln_status status);
/* The same with a prefix saying what the module was doing. */
PyObject *kp_raise_prefix(kiln_status status, const char *what);
/* Raises when status != KILN_OK; returns 0 on KILN_OK, -1 otherwise. */
int kp_check(kiln_status status);

/* ---- contexts (context.c) ------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    kiln_context *context;
    bool is_cuda; /* buffer addresses are CUdeviceptr values */
} kp_context;

extern PyTypeObject *kp_context_type;
int kp_context_register(PyObject *module);
/* The Context object of `object`, or NULL with TypeError. */
kp_context *kp_context_of(PyObject *object);

/* ---- streams and events (stream.c) ---------------------------------------- */

typedef struct {
    PyObject_HEAD
    kiln_stream *stream;
    PyObject *context;
} kp_stream;

extern PyTypeObject *kp_stream_type;
int kp_stream_register(PyObject *module);
/* None -> NULL (the default stream); a Stream -> its handle; else -1 with
 * TypeError. */
int kp_stream_of(PyObject *object, kiln_stream **stream);

/* ---- buffers, host memory and the address table (buffer.c) ------------- */

typedef struct {
    PyObject_HEAD
    kiln_buffer *buffer;  /* NULL after free() */
    kiln_buffer *base;    /* the buffer owning the memory (the address
                             table's key), borrowed through `buffer` */
    PyObject *context;    /* the Context object */
    PyObject *owner;      /* what a view keeps alive (its base object), or
                             NULL */
    uint64_t address;     /* of the first byte */
    size_t size;
    PyObject *weakrefs;
} kp_buffer;

extern PyTypeObject *kp_buffer_type;
int kp_buffer_register(PyObject *module);
/* Wraps `buffer` (taking over the caller's reference). */
PyObject *kp_buffer_wrap(PyObject *context, kiln_buffer *buffer,
                         PyObject *owner);
/* The live handle of a Buffer object, or NULL with an exception. */
kiln_buffer *kp_buffer_handle(PyObject *object);
/* The buffer holding `address` and the byte offset of the address in it
 * (a borrowed handle), or NULL with LogicError. */
kiln_buffer *kp_address_resolve(uint64_t address, size_t *offset);

/* HostArg: cuda.In / Out / InOut around a host array. */
typedef struct {
    PyObject_HEAD
    PyObject *array;
    kiln_arg_kind kind;
} kp_host_arg;

extern PyTypeObject *kp_host_arg_type;
extern PyTypeObject *kp_host_memory_type;

/* ---- programs, kernels and launches (program.c) --------------------------- */

int kp_program_register(PyObject *module);

/* ---- arguments (args.c) ----------------------------------------------------- */

/* One prepared type: a Kiln type character of kiln.h's prepared launches
 * ('P' a pointer, 'i' int32, 'f' float, ...) or 'V' for `size` raw bytes,
 * 'S' local memory. */
typedef struct {
    char code;
    size_t size;
} kp_type;

/* Parses "PiV12f" into *types (malloc'ed; *count entries).  -1 with
 * ValueError on a bad string. */
int kp_types_parse(const char *text, kp_type **types, size_t *count);

/* Launch arguments made from Python objects, with what must live until
 * the launch returns. */
#define KP_INLINE_ARGS 16
typedef struct {
    kiln_arg *args;
    size_t count;
    kiln_arg inline_args[KP_INLINE_ARGS];
    kiln_buffer **views;      /* made for addresses: released after */
    size_t view_count, view_capacity;
    Py_buffer *host;          /* host arrays and raw values held */
    size_t host_count, host_capacity;
    bool blocking;            /* has Out/InOut arguments */
} kp_args;

void kp_args_init(kp_args *pack, size_t count);
void kp_args_free(kp_args *pack);
/* Converts args[i] for a parameter of prepared type `type` into
 * pack->args[i]; -1 with an exception naming the argument. */
int kp_args_set(kp_args *pack, size_t index, const kp_type *type,
                PyObject *value);
/* The kiln_arg of a pointer argument: a Buffer, an In/Out/InOut, an
 * address (int), or an object with `_kiln_buffer`, `gpudata` or
 * `__cuda_array_interface__`. */
int kp_args_set_pointer(kp_args *pack, size_t index, PyObject *value);

/* ---- arrays and generators (array.c, generator.c) ----------------------------- */

int kp_array_register(PyObject *module);
int kp_generator_register(PyObject *module);

/* ---- small helpers (module.c) --------------------------------------------- */

/* A device's properties as a dict. */
PyObject *kp_device_dict(const kiln_device_info *info);

/* A tuple or list of 1 to `max` non-negative integers into sizes[];
 * missing trailing ones are 1 (for grid and block) or not (ndim out). */
int kp_sizes(PyObject *object, size_t *sizes, size_t max, size_t *count,
             const char *what);
/* The end of a dealloc: frees `object` through its type's tp_free (a
 * Python subclass may be collected) and drops the heap type's reference. */
static inline void kp_free(PyObject *object)
{
    PyTypeObject *type = Py_TYPE(object);
    freefunc release = (freefunc)PyType_GetSlot(type, Py_tp_free);
    release(object);
    Py_DECREF(type);
}
/* Adds `type` to the module under `name` (stealing nothing). */
int kp_add_type(PyObject *module, const char *name, PyTypeObject *type);

#endif
