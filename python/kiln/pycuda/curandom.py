"""PyCUDA's curandom.rand on Kiln's counter-based generator
(Philox4x32-10: the same seed gives the same numbers on every device).
cuRAND's generator classes are not available: get_curand_version()
returns None, as PyCUDA does without cuRAND.
"""
import os as _os

import numpy as _np

import kiln as _kiln
from kiln.pycuda import driver as _driver
from kiln.pycuda.gpuarray import GPUArray

_random = _kiln.Random(int.from_bytes(_os.urandom(8), "little"))


def seed(value):
    """Restarts the numbers rand() gives from a seed."""
    _random.seed = int(value)


def _wrap(karray, shape, dtype):
    memory = karray.memory
    result = GPUArray(shape, dtype,
                      gpudata=None if memory is None else
                      memory[0].view(memory[1]))
    if memory is not None:
        result._array = karray.reshape((result.size,))
    return result


def rand(shape, dtype=_np.float32, stream=None):
    """Uniform numbers in [0, 1) (floating point dtypes), or uniform
    integers in [0, 2**31) (integer dtypes)."""
    dtype = _np.dtype(dtype)
    shape = (shape,) if _np.isscalar(shape) else tuple(shape)
    context = _driver.current_kiln_context()
    if dtype.kind == "f":
        karray = _kiln.array_random(_random, context, _kiln.dtype_code(dtype),
                                    shape, "uniform", 0.0, 1.0, stream)
        return _wrap(karray, shape, dtype)
    if dtype.kind in "iu":
        floats = _kiln.array_random(_random, context,
                                    _kiln.dtype_code(_np.float64), shape,
                                    "uniform", 0.0, 2.0 ** 31, stream)
        karray = floats.astype(_kiln.dtype_code(dtype), stream)
        return _wrap(karray, shape, dtype)
    raise NotImplementedError(f"rand of dtype {dtype}")


def get_curand_version():
    """None: cuRAND is not available through Kiln."""
    return None
