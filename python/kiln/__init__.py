"""Kiln from Python.

``kiln`` is Kiln's C library as Python objects: :class:`Context` (a device
of a backend: CUDA, or any OpenCL device such as PoCL on a CPU),
:class:`Buffer` (device memory), :class:`Program` and :class:`Kernel`
(CUDA C or OpenCL C built at run time), :class:`Stream`, :class:`Event`,
:class:`Array` (n-d arrays of libkiln-array) and the kernel generators
:class:`Elementwise`, :class:`Reduction` and :class:`Scan`.  Errors are
:class:`KilnError` and its subclasses, carrying Kiln's status and message.

``kiln.pycuda`` runs PyCUDA scripts unchanged but for their import line::

    import kiln.pycuda.autoinit
    import kiln.pycuda.driver as cuda
    from kiln.pycuda.compiler import SourceModule
"""
import threading as _threading

import numpy as _numpy

from ._kiln import (  # noqa: F401  (the module's public names)
    Array, BackendError, Buffer, BuildError, Context, Elementwise, Event,
    HostArg, HostMemory, Kernel, KilnError, LaunchError, LogicError,
    OutOfMemoryError, Program, Random, Reduction, Scan, Stream,
    array_arange, array_create, array_eye, array_from_buffer, array_from_host,
    array_linspace, array_random, array_where, backends, blas_name, buffer_at,
    default_backend, device_count, device_info, resolve_address, status_name,
    version,
)

__version__ = "1.0.0"

#: NumPy dtypes by kiln_dtype code (kiln_array.h's order).
DTYPES = tuple(_numpy.dtype(name) for name in (
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float32", "float64", "bool"))

_CODES = {dtype: code for code, dtype in enumerate(DTYPES)}

#: kiln_array_op codes.
OP_ADD, OP_SUBTRACT, OP_MULTIPLY, OP_DIVIDE, OP_POWER, OP_MAXIMUM, \
    OP_MINIMUM, OP_EQUAL, OP_NOT_EQUAL, OP_LESS, OP_LESS_EQUAL, OP_GREATER, \
    OP_GREATER_EQUAL = range(13)

#: kiln_array_function codes.
FN_NEGATIVE, FN_ABS, FN_SQUARE, FN_SQRT, FN_EXP, FN_LOG, FN_LOG10, FN_SIN, \
    FN_COS, FN_TAN, FN_TANH, FN_FLOOR, FN_CEIL = range(13)

#: kiln_array_reduce_op codes.
REDUCE_SUM, REDUCE_PROD, REDUCE_MEAN, REDUCE_MIN, REDUCE_MAX, \
    REDUCE_ARGMIN, REDUCE_ARGMAX = range(7)


_contexts = {}
_contexts_lock = _threading.Lock()


def shared_context(backend, device):
    """The one kiln.Context of (backend, device index) in this process,
    made on first use: kiln.pycuda's contexts and kiln.cupy's devices
    share it, so their arrays and kernels mix."""
    key = (backend, device)
    with _contexts_lock:
        context = _contexts.get(key)
        if context is None:
            context = _contexts[key] = Context(backend, device)
        return context


def dtype_code(dtype):
    """The kiln_dtype code of a NumPy dtype; ValueError for a dtype
    libkiln-array has no code for (complex, structs)."""
    dtype = _numpy.dtype(dtype)
    try:
        return _CODES[dtype.newbyteorder("=")]
    except KeyError:
        raise ValueError(f"Kiln arrays have no dtype {dtype}") from None


def code_dtype(code):
    """The NumPy dtype of a kiln_dtype code."""
    return DTYPES[code]


#: OpenCL C type names of NumPy's scalar kinds (the generators' language).
OPENCL_C_TYPES = {
    "int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort",
    "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
    "float32": "float", "float64": "double", "bool": "uchar",
}

#: Kiln's prepared-call type characters of NumPy's scalar kinds.
TYPE_CHARS = {
    "int8": "c", "uint8": "C", "int16": "h", "uint16": "H", "int32": "i",
    "uint32": "I", "int64": "l", "uint64": "L", "float32": "f",
    "float64": "d", "bool": "C",
}


def type_char(dtype):
    """The prepared-call type character of a NumPy dtype: 'f' for float32,
    'V<n>' (n raw bytes) for vector and struct dtypes."""
    dtype = _numpy.dtype(dtype)
    return TYPE_CHARS.get(dtype.name, f"V{dtype.itemsize}")


def In(array):
    """A host array copied to the device before a launch."""
    return HostArg(array, "in")


def Out(array):
    """A host array copied back from the device after a launch."""
    return HostArg(array, "out")


def InOut(array):
    """A host array copied to the device before a launch and back after."""
    return HostArg(array, "inout")
