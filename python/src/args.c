/*
 * Launch arguments from Python objects: buffers, addresses, In/Out/InOut
 * host arrays, scalars (typed by the parameter they are given for) and raw
 * bytes (NumPy scalars of vector and struct types).
 */
#include "kiln_python.h"

#include <stdlib.h>
#include <string.h>

int kp_types_parse(const char *text, kp_type **types, size_t *count)
{
    size_t capacity = strlen(text) + 1;
    kp_type *result = PyMem_Calloc(capacity, sizeof *result);
    if (result == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    size_t n = 0;
    for (const char *p = text; *p; ++p) {
        if (*p == ' ')
            continue;
        kp_type type = {*p, 0};
        switch (*p) {
        case 'c': case 'C': type.size = 1; break;
        case 'h': case 'H': type.size = 2; break;
        case 'i': case 'I': case 'f': type.size = 4; break;
        case 'l': case 'L': case 'd': type.size = 8; break;
        case 'z': type.size = sizeof(size_t); break;
        case 'P': case 'S': case 'A': break;
        case 'V': {
            char *end = NULL;
            unsigned long size = strtoul(p + 1, &end, 10);
            if (end == p + 1 || size == 0) {
                PyMem_Free(result);
                PyErr_Format(PyExc_ValueError,
                             "type 'V' needs its size in bytes ('V12'): '%s'",
                             text);
                return -1;
            }
            type.size = size;
            p = end - 1;
            break;
        }
        default:
            PyMem_Free(result);
            PyErr_Format(PyExc_ValueError,
                         "unknown type character '%c' in '%s' (P pointer, "
                         "c C h H i I l L z integers, f d floating point, V<n> "
                         "n raw bytes, S local memory)",
                         *p, text);
            return -1;
        }
        result[n++] = type;
    }
    *types = result;
    *count = n;
    return 0;
}

void kp_args_init(kp_args *pack, size_t count)
{
    memset(pack, 0, sizeof *pack);
    pack->count = count;
    pack->args = count <= KP_INLINE_ARGS ? pack->inline_args
                                         : PyMem_Calloc(count, sizeof(kiln_arg));
}

void kp_args_free(kp_args *pack)
{
    for (size_t k = 0; k < pack->view_count; ++k)
        kiln_buffer_release(pack->views[k]);
    for (size_t k = 0; k < pack->host_count; ++k)
        PyBuffer_Release(&pack->host[k]);
    PyMem_Free(pack->views);
    PyMem_Free(pack->host);
    if (pack->args != pack->inline_args)
        PyMem_Free(pack->args);
    pack->args = NULL;
}

static Py_buffer *hold_host(kp_args *pack)
{
    if (pack->host_count == pack->host_capacity) {
        size_t capacity = pack->host_capacity ? 2 * pack->host_capacity : 4;
        Py_buffer *grown = PyMem_Realloc(pack->host, capacity * sizeof *grown);
        if (grown == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        pack->host = grown;
        pack->host_capacity = capacity;
    }
    return &pack->host[pack->host_count];
}

static int hold_view(kp_args *pack, kiln_buffer *view)
{
    if (pack->view_count == pack->view_capacity) {
        size_t capacity = pack->view_capacity ? 2 * pack->view_capacity : 4;
        kiln_buffer **grown =
            PyMem_Realloc(pack->views, capacity * sizeof *grown);
        if (grown == NULL) {
            kiln_buffer_release(view);
            PyErr_NoMemory();
            return -1;
        }
        pack->views = grown;
        pack->view_capacity = capacity;
    }
    pack->views[pack->view_count++] = view;
    return 0;
}

static int argument_error(size_t index, const char *format, PyObject *value)
{
    PyObject *type_name = PyObject_GetAttrString((PyObject *)Py_TYPE(value),
                                                 "__name__");
    PyErr_Format(PyExc_TypeError, "argument %zu: %s, got %S", index, format,
                 type_name != NULL ? type_name : Py_None);
    Py_XDECREF(type_name);
    return -1;
}

/* A view of the buffer holding `address` from there to its end. */
static int pointer_from_address(kp_args *pack, size_t index,
                                unsigned long long address)
{
    size_t offset = 0, size = 0;
    kiln_buffer *base = kp_address_resolve(address, &offset);
    if (base == NULL) {
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        PyErr_Format(PyExc_ValueError, "argument %zu: %S", index,
                     value != NULL ? value : Py_None);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
        return -1;
    }
    if (offset == 0) {
        pack->args[index] = KILN_ARG_BUFFER(base);
        return 0;
    }
    kiln_buffer *view = NULL;
    if (kp_check(kiln_buffer_get_size(base, &size)) < 0 ||
        kp_check(kiln_buffer_create_view(base, offset, size - offset, &view)) < 0)
        return -1;
    if (hold_view(pack, view) < 0)
        return -1;
    pack->args[index] = KILN_ARG_BUFFER(view);
    return 0;
}

int kp_args_set_pointer(kp_args *pack, size_t index, PyObject *value)
{
    if (PyObject_TypeCheck(value, kp_buffer_type)) {
        kiln_buffer *buffer = kp_buffer_handle(value);
        if (buffer == NULL)
            return -1;
        pack->args[index] = KILN_ARG_BUFFER(buffer);
        return 0;
    }
    if (PyObject_TypeCheck(value, kp_host_arg_type)) {
        kp_host_arg *host = (kp_host_arg *)value;
        Py_buffer *view = hold_host(pack);
        if (view == NULL)
            return -1;
        int flags = PyBUF_C_CONTIGUOUS |
                    (host->kind == KILN_ARG_KIND_IN ? 0 : PyBUF_WRITABLE);
        if (PyObject_GetBuffer(host->array, view, flags) < 0)
            return -1;
        ++pack->host_count;
        if (view->len == 0) {
            PyErr_Format(PyExc_ValueError,
                         "argument %zu: an empty host array", index);
            return -1;
        }
        pack->args[index] = (kiln_arg){.kind = host->kind,
                                       .size = (size_t)view->len,
                                       .host = view->buf};
        if (host->kind != KILN_ARG_KIND_IN)
            pack->blocking = true;
        return 0;
    }
    /* An int is an address; an object with an __index__ is one only when
     * it carries no buffer (a kiln.cupy ndarray of one integer has both) */
    if (PyLong_Check(value) ||
        (!PyFloat_Check(value) && PyIndex_Check(value) &&
         !PyObject_HasAttrString(value, "_kiln_buffer"))) {
        PyObject *number = PyNumber_Index(value);
        if (number == NULL)
            return -1;
        unsigned long long address = PyLong_AsUnsignedLongLong(number);
        Py_DECREF(number);
        if (PyErr_Occurred())
            return -1;
        return pointer_from_address(pack, index, address);
    }
    /* GPUArray and friends: their Buffer, their gpudata, a pointer holder
     * (get_pointer) or the CUDA array interface. */
    static const char *attributes[] = {"_kiln_buffer", "gpudata"};
    for (size_t k = 0; k < 2; ++k) {
        PyObject *inner = PyObject_GetAttrString(value, attributes[k]);
        if (inner == NULL) {
            PyErr_Clear();
            continue;
        }
        int result = inner == value || inner == Py_None
                         ? argument_error(index, "a device pointer", value)
                         : kp_args_set_pointer(pack, index, inner);
        Py_DECREF(inner);
        return result;
    }
    PyObject *getter = PyObject_GetAttrString(value, "get_pointer");
    if (getter != NULL) {
        PyObject *pointer = PyObject_CallNoArgs(getter);
        Py_DECREF(getter);
        if (pointer == NULL)
            return -1;
        int result = PyLong_Check(pointer)
                         ? kp_args_set_pointer(pack, index, pointer)
                         : argument_error(index, "get_pointer() returning an int",
                                          pointer);
        Py_DECREF(pointer);
        return result;
    }
    PyErr_Clear();
    PyObject *interface =
        PyObject_GetAttrString(value, "__cuda_array_interface__");
    if (interface != NULL) {
        PyObject *data = PyMapping_GetItemString(interface, "data");
        Py_DECREF(interface);
        if (data == NULL)
            return -1;
        PyObject *pointer = PySequence_GetItem(data, 0);
        Py_DECREF(data);
        if (pointer == NULL)
            return -1;
        int result = PyLong_Check(pointer)
                         ? kp_args_set_pointer(pack, index, pointer)
                         : argument_error(index, "an integer data pointer",
                                          pointer);
        Py_DECREF(pointer);
        return result;
    }
    PyErr_Clear();
    return argument_error(index,
                          "a device pointer (DeviceAllocation, GPUArray, "
                          "In/Out/InOut, or an int address) is needed",
                          value);
}

static bool is_integer_code(char code)
{
    return strchr("cChHiIlLz", code) != NULL;
}

/* A scalar's value for an integer or floating type code. */
static int scalar_value(size_t index, char code, PyObject *value,
                        kiln_arg *arg)
{
    if (is_integer_code(code)) {
        if (PyFloat_Check(value))
            return argument_error(index, "an integer is needed", value);
        PyObject *number = PyNumber_Index(value);
        if (number == NULL) {
            PyErr_Clear();
            return argument_error(index, "an integer is needed", value);
        }
        bool is_unsigned = code == 'C' || code == 'H' || code == 'I' ||
                           code == 'L' || code == 'z';
        long long signed_value = 0;
        unsigned long long unsigned_value = 0;
        if (is_unsigned) {
            /* negative values wrap as C's conversion does */
            signed_value = PyLong_AsLongLong(number);
            if (PyErr_Occurred()) {
                PyErr_Clear();
                unsigned_value = PyLong_AsUnsignedLongLong(number);
            } else {
                unsigned_value = (unsigned long long)signed_value;
            }
        } else {
            signed_value = PyLong_AsLongLong(number);
        }
        Py_DECREF(number);
        if (PyErr_Occurred())
            return -1;
        switch (code) {
        case 'c': *arg = KILN_ARG_CHAR((int8_t)signed_value); break;
        case 'C': *arg = KILN_ARG_UCHAR((uint8_t)unsigned_value); break;
        case 'h': *arg = KILN_ARG_SHORT((int16_t)signed_value); break;
        case 'H': *arg = KILN_ARG_USHORT((uint16_t)unsigned_value); break;
        case 'i': *arg = KILN_ARG_INT((int32_t)signed_value); break;
        case 'I': *arg = KILN_ARG_UINT((uint32_t)unsigned_value); break;
        case 'l': *arg = KILN_ARG_LONG((int64_t)signed_value); break;
        case 'L': *arg = KILN_ARG_ULONG((uint64_t)unsigned_value); break;
        default: *arg = KILN_ARG_SIZE((size_t)unsigned_value); break;
        }
        return 0;
    }
    double number = PyFloat_AsDouble(value);
    if (number == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return argument_error(index, "a number is needed", value);
    }
    *arg = code == 'f' ? KILN_ARG_FLOAT((float)number) : KILN_ARG_DOUBLE(number);
    return 0;
}

/* Raw bytes of a buffer-protocol object (a NumPy scalar of any dtype). */
static int raw_value(kp_args *pack, size_t index, size_t size, PyObject *value)
{
    Py_buffer *view = hold_host(pack);
    if (view == NULL)
        return -1;
    if (PyObject_GetBuffer(value, view, PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        return argument_error(index, "a value (a number or a NumPy scalar)",
                              value);
    }
    ++pack->host_count;
    if (size != 0 && (size_t)view->len != size) {
        PyErr_Format(PyExc_TypeError,
                     "argument %zu: %zd bytes given, the parameter takes %zu",
                     index, view->len, size);
        return -1;
    }
    pack->args[index] = KILN_ARG_VALUE(view->buf, (size_t)view->len);
    return 0;
}

int kp_args_set(kp_args *pack, size_t index, const kp_type *type,
                PyObject *value)
{
    switch (type->code) {
    case 'P':
        return kp_args_set_pointer(pack, index, value);
    case 'A': /* a pointer or a value: native CUDA C, types unknown */
        if (PyObject_TypeCheck(value, kp_buffer_type) ||
            PyObject_TypeCheck(value, kp_host_arg_type))
            return kp_args_set_pointer(pack, index, value);
        /* Host memory is a value (NumPy's scalars, the common case): asked
         * first, since a failed attribute lookup costs an exception. */
        if (PyObject_CheckBuffer(value))
            return raw_value(pack, index, type->size, value);
        if (PyObject_HasAttrString(value, "gpudata"))
            return kp_args_set_pointer(pack, index, value);
        if (PyFloat_Check(value))
            return scalar_value(index, type->size == 4 ? 'f' : 'd', value,
                                &pack->args[index]);
        if (PyLong_Check(value))
            return scalar_value(index, type->size == 4 ? 'i' : 'l', value,
                                &pack->args[index]);
        return raw_value(pack, index, type->size, value);
    case 'S': {
        Py_ssize_t bytes = PyNumber_AsSsize_t(value, PyExc_OverflowError);
        if (bytes == -1 && PyErr_Occurred())
            return -1;
        if (bytes <= 0) {
            PyErr_Format(PyExc_ValueError,
                         "argument %zu: local memory of %zd bytes", index,
                         bytes);
            return -1;
        }
        pack->args[index] = KILN_ARG_LOCAL((size_t)bytes);
        return 0;
    }
    case 'V':
        if (PyFloat_Check(value) && (type->size == 4 || type->size == 8))
            return scalar_value(index, type->size == 4 ? 'f' : 'd', value,
                                &pack->args[index]);
        if (PyLong_Check(value) && (type->size == 4 || type->size == 8))
            return scalar_value(index, type->size == 4 ? 'i' : 'l', value,
                                &pack->args[index]);
        return raw_value(pack, index, type->size, value);
    default:
        if (PyObject_TypeCheck(value, kp_buffer_type) ||
            PyObject_TypeCheck(value, kp_host_arg_type))
            return argument_error(index, "a value is needed, not a pointer",
                                  value);
        if (PyLong_Check(value) || PyFloat_Check(value) || PyBool_Check(value) ||
            PyIndex_Check(value) || PyNumber_Check(value))
            return scalar_value(index, type->code, value, &pack->args[index]);
        return raw_value(pack, index, type->size, value);
    }
}
