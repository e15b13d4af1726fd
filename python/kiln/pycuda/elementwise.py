"""PyCUDA's ElementwiseKernel on Kiln's elementwise generator.

The argument list and the operation are PyCUDA's: CUDA C types ("float
*x, float a"), statements of the index ``i``.  Kiln builds them as OpenCL
C, with CUDA's qualifiers (__device__...) and single-precision math names
(sinf, expf...) defined, so the kernel runs on every backend; CUDA C++
beyond that (templates, pycuda::complex) does not build and raises
CompileError with the compiler's log.
"""
import numpy as _np

from kiln.pycuda import _kernels
from kiln.pycuda.tools import VectorArg


class ElementwiseKernel:
    """A kernel of `operation` for each index i of its array arguments."""

    def __init__(self, arguments, operation, name="kernel", keep=False,
                 options=None, preamble="", loop_prep="", after_loop=""):
        if loop_prep or after_loop:
            raise NotImplementedError("ElementwiseKernel: loop_prep and "
                                      "after_loop are not supported by Kiln")
        _, _, self.arguments = _kernels.opencl_arguments(arguments)
        self._source = (arguments if isinstance(arguments, str)
                        else ", ".join(a.declarator() for a in arguments),
                        operation, name, preamble)
        self.name = name

    def _generator(self):
        return _kernels.elementwise(*self._source)

    def get_texref(self, name):
        """Not available: texture references are not supported."""
        raise NotImplementedError("texture references are not supported by "
                                  "Kiln")

    def __call__(self, *args, **kwargs):
        """Runs over every element of the first array argument, or over
        range=slice(start, stop, step) (absolute) or slice= (relative to
        the array's size, as Python slices are), on stream=."""
        stream = kwargs.pop("stream", None)
        range_ = kwargs.pop("range", None)
        slice_ = kwargs.pop("slice", None)
        if kwargs:
            raise TypeError(f"unknown keyword arguments {list(kwargs)}")
        if len(args) != len(self.arguments):
            raise TypeError(f"{self.name} takes {len(self.arguments)} "
                            f"arguments, {len(args)} given")
        n = None
        for spec, arg in zip(self.arguments, args):
            if isinstance(spec, VectorArg) and hasattr(arg, "size"):
                n = arg.size
                break
        if n is None:
            raise ValueError(f"{self.name}: no array argument gives the size")
        start, step, count = 0, 1, n
        if range_ is not None:
            start = range_.start or 0
            step = range_.step or 1
            count = len(range(start, range_.stop, step))
        elif slice_ is not None:
            start, stop, step = slice_.indices(n)
            count = len(range(start, stop, step))
        self._generator().launch(count, [_kernels.device_arg(a) for a in args],
                                 stream, start, step)


def get_linear_combination_kernel(summand_descriptors, dtype_z):
    """z[i] = a0*x0[i] + a1*x1[i] + ...: (kernel, None) as PyCUDA gives;
    summand_descriptors are (is_gpu_scalar, scalar_dtype, vector_dtype)."""
    args, terms = [], []
    for k, (is_gpu_scalar, scalar_dtype, vector_dtype) in \
            enumerate(summand_descriptors):
        args.append((f"*a{k}" if is_gpu_scalar else f"a{k}", scalar_dtype))
        args.append((f"*x{k}", vector_dtype))
        terms.append(f"a{k}{'[0]' if is_gpu_scalar else ''} * x{k}[i]")
    args.append(("*z", dtype_z))
    kernel = ElementwiseKernel(_kernels.declare(*args),
                               "z[i] = " + " + ".join(terms),
                               "linear_combination")
    return kernel, None


def get_copy_kernel(dtype_dest, dtype_src):
    """dest[i] = src[i], converting."""
    return ElementwiseKernel(
        _kernels.declare(("*dest", dtype_dest), ("*src", dtype_src)),
        "dest[i] = src[i]", "copy")


def get_fill_kernel(dtype):
    """z[i] = a."""
    return ElementwiseKernel(_kernels.declare(("a", dtype), ("*z", dtype)),
                             "z[i] = a", "fill")


def get_arange_kernel(dtype):
    """z[i] = start + i*step."""
    return ElementwiseKernel(
        _kernels.declare(("*z", dtype), ("start", dtype), ("step", dtype)),
        "z[i] = start + i*step", "arange")


_ = _np  # (numpy is part of this module's API through the dtypes above)
