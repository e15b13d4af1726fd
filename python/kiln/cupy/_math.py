"""The math functions libkiln-array has no code for (log1p, expm1, log2,
arcsin, sinh, cbrt, rint, sign...), each an ElementwiseKernel of OpenCL
C's own function of the same meaning, with NumPy's result dtypes
(integers give float64, or float32 up to 16 bits, as kiln_array_math
does)."""
import numpy as _np

from kiln.cupy import _core
from kiln.cupy._kernels import ElementwiseKernel

_kernels = {}


def _float_of(dtype):
    if dtype.kind == "f":
        return dtype
    return _np.dtype(_np.float32 if dtype.itemsize <= 2 else _np.float64)


def _make(name, expression, keeps_dtype=False, doc=""):
    def function(x, out=None):
        x = _core.asarray(x)
        dtype = x.dtype if keeps_dtype else _float_of(x.dtype)
        if dtype.kind == "b":
            dtype = _np.dtype(_np.int8)
        if x.dtype != dtype:
            x = x.astype(dtype)
        kernel = _kernels.get(name)
        if kernel is None:
            kernel = _kernels[name] = ElementwiseKernel(
                "T x", "T y", f"y = {expression}", name)
        result = kernel(x)
        if out is not None:
            out[...] = result
            return out
        return result
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


log1p = _make("log1p", "log1p(x)", doc="log(1 + x), exact for small x.")
expm1 = _make("expm1", "expm1(x)", doc="exp(x) - 1, exact for small x.")
log2 = _make("log2", "log2(x)", doc="The logarithm base 2.")
exp2 = _make("exp2", "exp2(x)", doc="2 to the x.")
arcsin = _make("arcsin", "asin(x)", doc="The inverse sine.")
arccos = _make("arccos", "acos(x)", doc="The inverse cosine.")
arctan = _make("arctan", "atan(x)", doc="The inverse tangent.")
sinh = _make("sinh", "sinh(x)", doc="The hyperbolic sine.")
cosh = _make("cosh", "cosh(x)", doc="The hyperbolic cosine.")
arcsinh = _make("arcsinh", "asinh(x)", doc="The inverse hyperbolic sine.")
arccosh = _make("arccosh", "acosh(x)", doc="The inverse hyperbolic cosine.")
arctanh = _make("arctanh", "atanh(x)", doc="The inverse hyperbolic tangent.")
cbrt = _make("cbrt", "cbrt(x)", doc="The cube root.")
rint = _make("rint", "rint(x)", True, "Rounded to the nearest integer "
             "(halves to even).")
trunc = _make("trunc", "trunc(x)", True, "Rounded toward zero.")
sign = _make("sign", "x != x ? x : (T)((x > 0) - (x < 0))", True,
             "-1, 0 or 1 by the sign (NaN for NaN).")
reciprocal = _make("reciprocal", "(T)1 / x", True, "1 / x, in x's dtype.")
