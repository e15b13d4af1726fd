"""CuPy's core on Kiln: a CuPy script runs unchanged but for its import
line, on NVIDIA GPUs (CUDA), on any OpenCL device and on PoCL on a CPU::

    import kiln.cupy as cp

    x = cp.arange(6, dtype=cp.float32).reshape(2, 3)
    y = cp.random.rand(3, 4, dtype=cp.float32)
    z = cp.triu(x @ y)
    print(z[z > 1].sum(), float((x * x).sum()))

What it has: cupy.ndarray (shape, dtype, get(), astype, arithmetic and
comparisons with NumPy's broadcasting and promotion, integer / slice /
boolean-mask indexing and assignment, views, sum/mean/min/max/argmin/
argmax/prod/var/std over all or some axes), creation (array, asarray,
asnumpy, zeros, ones, empty, full, arange, linspace, eye, identity,
*_like), dot/matmul/@, the math functions, where, triu/tril, random,
RawKernel, RawModule, ElementwiseKernel, ReductionKernel, cuda.Device,
cuda.Stream, cuda.Event and the memory pool.  Every array operation is a
call into libkiln-array.  What it has not (complex numbers, float16,
integer-array indexing, FFT, sparse, most of cupyx) raises an error that
says so.
"""
import numpy as _numpy

from kiln.cupy import cuda, linalg, random  # noqa: F401 (submodules)
from kiln.cupy._core import (  # noqa: F401 (the public names)
    MemoryPointer, abs, absolute, add, all, allclose, amax, amin, any,
    arange, argmax, argmin, array, array_equal, asanyarray, asarray,
    ascontiguousarray, asnumpy, broadcast_to, ceil, clip, concatenate, copy,
    cos, count_nonzero, divide, dot, empty, empty_like, equal, exp,
    expand_dims, eye, fabs, floor, floor_divide, full, full_like, greater,
    greater_equal, hstack, identity, inner, isclose, isfinite, isinf, isnan,
    less, less_equal, linspace, log, log10, logical_and, logical_not,
    logical_or, logical_xor, matmul, max, maximum, mean, min, minimum, mod,
    multiply, ndarray, negative, not_equal, ones, ones_like, outer, power,
    prod, ravel, remainder, reshape, sin, sqrt, square, squeeze, stack, std,
    subtract, sum, swapaxes, tan, tanh, transpose, tril, triu, true_divide,
    var, vdot, vstack, where, zeros, zeros_like,
)
from kiln.cupy._math import (  # noqa: F401
    arccos, arccosh, arcsin, arcsinh, arctan, arctanh, cbrt, cosh, exp2,
    expm1, log1p, log2, reciprocal, rint, sign, sinh, trunc,
)
from kiln.cupy._kernels import (  # noqa: F401
    ElementwiseKernel, RawKernel, RawModule, ReductionKernel, fuse,
)
from kiln.cupy.cuda import (  # noqa: F401
    get_default_memory_pool, get_default_pinned_memory_pool,
)

__version__ = "13.0.0+kiln"

# NumPy's scalar types and constants, as CuPy re-exports them
bool_ = _numpy.bool_
int8, int16, int32, int64 = (_numpy.int8, _numpy.int16, _numpy.int32,
                             _numpy.int64)
uint8, uint16, uint32, uint64 = (_numpy.uint8, _numpy.uint16, _numpy.uint32,
                                 _numpy.uint64)
float32, float64 = _numpy.float32, _numpy.float64
intp, uintp = _numpy.intp, _numpy.uintp
int_, float_ = _numpy.int64, _numpy.float64
dtype = _numpy.dtype
newaxis = None
pi, e, inf, nan = _numpy.pi, _numpy.e, _numpy.inf, _numpy.nan
result_type = _numpy.result_type
can_cast = _numpy.can_cast
iinfo, finfo = _numpy.iinfo, _numpy.finfo


def get_array_module(*args):
    """kiln.cupy when an argument is one of its arrays, else numpy."""
    import sys
    for arg in args:
        if isinstance(arg, ndarray):
            return sys.modules[__name__]
    return _numpy


def is_available():
    """Whether a device is there."""
    return cuda.is_available()
