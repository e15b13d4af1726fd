"""PyCUDA's cumath: elementwise math functions of GPUArrays, each an
instance of Kiln's elementwise generator calling the device's math
library (OpenCL C's correctly specified functions, not the fast native
ones).

f(array, out=None, stream=None); out and stream may also be given in the
second position.  Integer arrays give float64 results.
"""
import numpy as _np

from kiln.pycuda import _kernels
from kiln.pycuda import driver as _driver
from kiln.pycuda.gpuarray import GPUArray


def _out_and_stream(array, stream_or_out, kwargs, dtype):
    out = kwargs.pop("out", None)
    stream = kwargs.pop("stream", None)
    if kwargs:
        raise TypeError(f"unknown keyword arguments {list(kwargs)}")
    if isinstance(stream_or_out, GPUArray):
        out = stream_or_out
    elif stream_or_out is not None:
        stream = stream_or_out
    if out is None:
        out = array._new_like_me(dtype, order="K")
    elif out.shape != array.shape or out.dtype != dtype:
        raise TypeError(f"out= must be an array of shape {array.shape} and "
                        f"dtype {dtype}")
    return out, stream


def _float_dtype(dtype):
    return dtype if dtype.kind == "f" else _np.dtype(_np.float64)


def _make_unary(name, c_name=None):
    c_name = c_name or name

    def f(array, stream_or_out=None, **kwargs):
        dtype = _float_dtype(array.dtype)
        out, stream = _out_and_stream(array, stream_or_out, kwargs, dtype)
        kernel = _kernels.elementwise(
            _kernels.declare(("*y", array.dtype), ("*z", dtype)),
            f"z[i] = {c_name}(({_kernels.opencl_type(dtype)})y[i])",
            f"math_{name}")
        kernel.launch(array.size, (array, out), stream)
        return out
    f.__name__ = name
    f.__doc__ = f"{name}(x) of each element."
    return f


fabs = _make_unary("fabs")
ceil = _make_unary("ceil")
floor = _make_unary("floor")
exp = _make_unary("exp")
log = _make_unary("log")
log10 = _make_unary("log10")
sqrt = _make_unary("sqrt")
sin = _make_unary("sin")
cos = _make_unary("cos")
tan = _make_unary("tan")
asin = _make_unary("asin")
acos = _make_unary("acos")
atan = _make_unary("atan")
sinh = _make_unary("sinh")
cosh = _make_unary("cosh")
tanh = _make_unary("tanh")


def fmod(arg, mod, stream=None):
    """The remainder of arg / mod with arg's sign (C's fmod)."""
    dtype = _float_dtype(arg.dtype)
    out = arg._new_like_me(dtype)
    kernel = _kernels.elementwise(
        _kernels.declare(("*arg", arg.dtype), ("*mod", mod.dtype),
                         ("*z", dtype)),
        "z[i] = fmod(arg[i], mod[i])", "math_fmod")
    kernel.launch(arg.size, (arg, mod, out), stream)
    return out


def ldexp(significand, exponent, stream=None):
    """significand * 2**int(exponent)."""
    dtype = _float_dtype(significand.dtype)
    out = significand._new_like_me(dtype)
    kernel = _kernels.elementwise(
        _kernels.declare(("*sig", significand.dtype),
                         ("*expt", exponent.dtype), ("*z", dtype)),
        "z[i] = ldexp(sig[i], (int)(expt[i]))", "math_ldexp")
    kernel.launch(significand.size, (significand, exponent, out), stream)
    return out


def modf(arg, stream=None):
    """(fractional part, integral part), both with arg's sign."""
    dtype = _float_dtype(arg.dtype)
    ctype = _kernels.opencl_type(dtype)
    frac, whole = arg._new_like_me(dtype), arg._new_like_me(dtype)
    kernel = _kernels.elementwise(
        _kernels.declare(("*x", arg.dtype), ("*intpart", dtype),
                         ("*fracpart", dtype)),
        f"{ctype} ip; fracpart[i] = modf(x[i], &ip); intpart[i] = ip",
        "math_modf")
    kernel.launch(arg.size, (arg, whole, frac), stream)
    return frac, whole


def frexp(arg, stream=None):
    """(significands in [0.5, 1), exponents): arg = sig * 2**exp."""
    dtype = _float_dtype(arg.dtype)
    significands, exponents = arg._new_like_me(dtype), arg._new_like_me(dtype)
    kernel = _kernels.elementwise(
        _kernels.declare(("*x", arg.dtype), ("*significand", dtype),
                         ("*exponent", dtype)),
        "int e; significand[i] = frexp(x[i], &e); exponent[i] = e",
        "math_frexp")
    kernel.launch(arg.size, (arg, significands, exponents), stream)
    return significands, exponents


_ = _driver  # cumath works in the current context, like every module
