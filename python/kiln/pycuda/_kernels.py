"""The kernels kiln.pycuda's modules share: Kiln's generators
(libkiln-array's elementwise, reduction and scan templates) made from
PyCUDA-style argument lists, cached per context, and the conversions
between PyCUDA's CUDA C argument lists and the generators' OpenCL C."""
import functools as _functools
import numpy as _np

import kiln as _kiln
from kiln.pycuda import driver as _driver
from kiln.pycuda.tools import (ScalarArg, VectorArg,
                               context_dependent_memoize, parse_arg_list)

# CUDA C's qualifiers and single-precision math names, so that the
# expressions of PyCUDA's generators (CUDA C) build as OpenCL C.
CUDA_COMPAT = """
#define __device__
#define __host__
#define __forceinline__ inline
#define __inline__ inline
#define sinf sin
#define cosf cos
#define tanf tan
#define asinf asin
#define acosf acos
#define atanf atan
#define atan2f atan2
#define sinhf sinh
#define coshf cosh
#define tanhf tanh
#define expf exp
#define exp2f exp2
#define exp10f exp10
#define logf log
#define log2f log2
#define log10f log10
#define powf pow
#define sqrtf sqrt
#define rsqrtf rsqrt
#define fabsf fabs
#define floorf floor
#define ceilf ceil
#define truncf trunc
#define roundf round
#define fminf fmin
#define fmaxf fmax
#define fmodf fmod
"""


def opencl_type(dtype):
    """The OpenCL C type of a scalar dtype."""
    dtype = _np.dtype(dtype)
    try:
        return _kiln.OPENCL_C_TYPES[dtype.name]
    except KeyError:
        raise NotImplementedError(
            f"dtype {dtype}: Kiln's generators take integer and floating "
            "point scalars (no complex or struct types)") from None


def opencl_arguments(arguments):
    """(OpenCL C argument list, type string) of a PyCUDA argument list
    ("float a, float *x" or VectorArg/ScalarArg objects)."""
    parsed = parse_arg_list(arguments)
    texts, types = [], []
    for arg in parsed:
        ctype = opencl_type(arg.dtype)
        if isinstance(arg, VectorArg):
            texts.append(f"__global {ctype} *{arg.name}")
            types.append("P")
        else:
            texts.append(f"{ctype} {arg.name}")
            types.append(_kiln.type_char(arg.dtype))
    return ", ".join(texts), "".join(types), parsed


def kernel_name(name):
    """A kernel name OpenCL C accepts ('kernel' is a keyword there)."""
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return f"pycuda_{name}"[:200]


@context_dependent_memoize
def elementwise(arguments, operation, name="kernel", preamble=""):
    """A kiln.Elementwise of a PyCUDA argument list, for the current
    context."""
    text, types, _ = opencl_arguments(arguments)
    return _kiln.Elementwise(_driver.current_kiln_context(), text, operation,
                             types, kernel_name(name),
                             CUDA_COMPAT + (preamble or ""))


@context_dependent_memoize
def reduction(dtype_out, neutral, reduce_expr, map_expr, arguments,
              name="reduce_kernel", preamble=""):
    """A kiln.Reduction of a PyCUDA argument list, for the current
    context."""
    text, types, _ = opencl_arguments(arguments)
    return _kiln.Reduction(_driver.current_kiln_context(),
                           opencl_type(dtype_out), str(neutral), reduce_expr,
                           map_expr, text, types, kernel_name(name),
                           CUDA_COMPAT + (preamble or ""))


@context_dependent_memoize
def scan(dtype, neutral, scan_expr, exclusive, name="scan", preamble=""):
    """A kiln.Scan over one array, for the current context."""
    ctype = opencl_type(dtype)
    return _kiln.Scan(_driver.current_kiln_context(), ctype, str(neutral),
                      scan_expr, None, f"__global const {ctype} *kiln_input",
                      "P", exclusive, kernel_name(name),
                      CUDA_COMPAT + (preamble or ""))


def device_arg(value):
    """A launch argument of a GPUArray, DeviceAllocation or scalar."""
    buffer = getattr(value, "_kiln_buffer", None)
    return value if buffer is None else buffer


# The arguments of the kernels gpuarray and cumath make, by dtype: asked
# at every call (the generator's cache key), so remembered.
@_functools.lru_cache(maxsize=1024)
def declare(*pairs):
    """"global float *z, float a" from ("*z", float32), ("a", float32)."""
    from kiln.pycuda.tools import dtype_to_ctype
    texts = []
    for name, dtype in pairs:
        ctype = dtype_to_ctype(dtype)
        if name.startswith("*"):
            texts.append(f"{ctype} *{name[1:]}")
        else:
            texts.append(f"{ctype} {name}")
    return ", ".join(texts)


__all__ = ["CUDA_COMPAT", "ScalarArg", "VectorArg", "declare", "device_arg",
           "elementwise", "kernel_name", "opencl_arguments", "opencl_type",
           "reduction", "scan"]
