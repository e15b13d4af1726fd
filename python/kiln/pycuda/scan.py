"""PyCUDA's scan kernels on Kiln's scan generator (a work-group scan per
block, then the block totals scanned and added).

``InclusiveScanKernel(np.int32, "a+b")`` and
``ExclusiveScanKernel(np.int32, "a+b", "0")``: called on an array they
scan it in place (or into output_ary).  The neutral element must be an
identity of the operation; an inclusive scan without one is given it for
"a+b" (0), "a*b" (1), max and min.
"""
import numpy as _np

from kiln.pycuda import _kernels

_IDENTITIES = {"a+b": "0", "b+a": "0", "a*b": "1", "b*a": "1"}


class _ScanKernel:
    exclusive = False

    def __init__(self, dtype, scan_expr, neutral=None, name_prefix="scan",
                 options=None, preamble="", devices=None):
        self.dtype = _np.dtype(dtype)
        if neutral is None:
            neutral = _IDENTITIES.get(scan_expr.replace(" ", ""))
            key = scan_expr.replace(" ", "")
            if neutral is None and key in ("max(a,b)", "fmax(a,b)"):
                neutral = "-INFINITY" if self.dtype.kind == "f" else \
                    str(_np.iinfo(self.dtype).min)
            if neutral is None and key in ("min(a,b)", "fmin(a,b)"):
                neutral = "INFINITY" if self.dtype.kind == "f" else \
                    str(_np.iinfo(self.dtype).max)
            if neutral is None:
                raise ValueError(f"scan of '{scan_expr}': give its neutral "
                                 "element (an identity of the operation)")
        self._source = (self.dtype, str(neutral), scan_expr, self.exclusive,
                        name_prefix, preamble)

    def __call__(self, input_ary, output_ary=None, allocator=None,
                 stream=None):
        """Scans input_ary into output_ary (in place when None); returns
        the output."""
        if output_ary is None:
            output_ary = input_ary
        if input_ary.dtype != self.dtype or output_ary.dtype != self.dtype:
            raise TypeError(f"the scan takes arrays of {self.dtype}")
        if output_ary.size != input_ary.size:
            raise ValueError("input and output differ in size")
        if input_ary.size:
            kernel = _kernels.scan(*self._source)
            kernel.run(input_ary.size, (input_ary._kiln_buffer,),
                       output_ary._kiln_buffer, 0, stream)
        return output_ary


class InclusiveScanKernel(_ScanKernel):
    """out[j] = in[0] op ... op in[j]."""
    exclusive = False


class ExclusiveScanKernel(_ScanKernel):
    """out[j] = neutral op in[0] op ... op in[j-1]."""
    exclusive = True

    def __init__(self, dtype, scan_expr, neutral, name_prefix="scan",
                 options=None, preamble="", devices=None):
        super().__init__(dtype, scan_expr, neutral, name_prefix, options,
                         preamble, devices)
