"""CuPy's cupy.linalg: norm (the basics tutorial's first example)."""
import numpy as _np

from kiln.cupy import _core


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """The 2-norm of a vector (Frobenius of a matrix) or along `axis`;
    ord=1 and ord=inf of vectors too.  Integers are converted to
    float64."""
    if x.dtype.kind != "f":
        x = x.astype(_np.float64)
    if ord is None or ord == 2 or ord == "fro":
        if ord == 2 and axis is None and x.ndim == 2:
            raise NotImplementedError("the spectral norm of a matrix")
        return _core.sqrt((x * x).sum(axis=axis, keepdims=keepdims))
    if ord == 1 and (x.ndim == 1 or axis is not None):
        return _core.absolute(x).sum(axis=axis, keepdims=keepdims)
    if ord == _np.inf and (x.ndim == 1 or axis is not None):
        return _core.absolute(x).max(axis=axis, keepdims=keepdims)
    raise NotImplementedError(f"norm of ord={ord}")
