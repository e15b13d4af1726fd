"""PyCUDA's ReductionKernel on Kiln's reduction generator: map and reduce
fused, a barrier at every step, the work-groups' partials combined by a
second launch (what OpenCL 1.2 guarantees: correct on every device).

Arguments and expressions are PyCUDA's (CUDA C types; ``a`` and ``b`` in
the reduce expression, ``i`` in the map expression); they are built as
OpenCL C with CUDA's qualifiers and single-precision math names defined.
The result type must be a scalar dtype (struct results are refused).
"""
import numpy as _np

from kiln.pycuda import _kernels
from kiln.pycuda.gpuarray import GPUArray
from kiln.pycuda.tools import VectorArg


class ReductionKernel:
    """reduce(map(0), map(1), ...) over the first array argument's size."""

    def __init__(self, dtype_out, neutral, reduce_expr, map_expr=None,
                 arguments=None, name="reduce_kernel", keep=False,
                 options=None, preamble="", allocator=None):
        self.dtype_out = _np.dtype(dtype_out)
        _kernels.opencl_type(self.dtype_out)  # refuses struct results now
        if arguments is None:
            raise ValueError("ReductionKernel needs an argument list")
        _, _, self.arguments = _kernels.opencl_arguments(arguments)
        if map_expr is None:
            first = next((a for a in self.arguments
                          if isinstance(a, VectorArg)), None)
            if first is None:
                raise ValueError("no map expression and no array argument")
            map_expr = f"{first.name}[i]"
        self._source = (self.dtype_out, str(neutral), reduce_expr, map_expr,
                        arguments if isinstance(arguments, str)
                        else ", ".join(a.declarator() for a in arguments),
                        name, preamble)
        self.allocator = allocator
        self.name = name

    def __call__(self, *args, **kwargs):
        """The reduction of the arguments: a 0-d GPUArray (or out=, a 0-d
        GPUArray to write), on stream=, allocated by allocator=."""
        stream = kwargs.pop("stream", None)
        out = kwargs.pop("out", None)
        allocator = kwargs.pop("allocator", None) or self.allocator
        range_ = kwargs.pop("range", None)
        slice_ = kwargs.pop("slice", None)
        if kwargs:
            raise TypeError(f"unknown keyword arguments {list(kwargs)}")
        if range_ is not None or slice_ is not None:
            raise NotImplementedError("ReductionKernel: range= and slice= "
                                      "are not supported by Kiln")
        if len(args) != len(self.arguments):
            raise TypeError(f"{self.name} takes {len(self.arguments)} "
                            f"arguments, {len(args)} given")
        n = None
        for spec, arg in zip(self.arguments, args):
            if isinstance(spec, VectorArg) and hasattr(arg, "size"):
                n = arg.size
                if allocator is None:
                    allocator = getattr(arg, "allocator", None)
                break
        if n is None:
            raise ValueError(f"{self.name}: no array argument gives the size")
        if out is None:
            out = GPUArray((), self.dtype_out, allocator=allocator)
        elif out.size != 1 or out.dtype != self.dtype_out:
            raise TypeError("out= must be a one-element array of the "
                            "reduction's dtype")
        kernel = _kernels.reduction(*self._source)
        kernel.run(n, [_kernels.device_arg(a) for a in args],
                   out._kiln_buffer, 0, stream)
        return out


def get_sum_kernel(dtype_out, dtype_in):
    """A ReductionKernel of sum(in)."""
    from kiln.pycuda.tools import dtype_to_ctype
    return ReductionKernel(dtype_out or dtype_in, 0, "a+b", "in[i]",
                           f"const {dtype_to_ctype(dtype_in)} *in")
