"""CuPy's cupy.random on Kiln: Philox4x32-10 numbers (libkiln-array), the
same for a seed on every backend and device.  The functions draw from one
RandomState of the process, seeded from the operating system until
seed() is called.  As in CuPy, size=None gives a 0-d array and float
functions take dtype= (float32 or float64).
"""
import os as _os

import numpy as _np

import kiln as _kiln
from kiln.cupy import _core, _state


def _shape(size):
    if size is None:
        return ()
    if isinstance(size, (int, _np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def _float_dtype(dtype):
    dtype = _np.dtype(dtype)
    if dtype not in (_np.dtype(_np.float32), _np.dtype(_np.float64)):
        raise TypeError(f"random numbers of dtype {dtype}: float32 or "
                        "float64")
    return dtype


class RandomState:
    """A stream of random numbers (CuPy's cupy.random.RandomState)."""

    def __init__(self, seed=None):
        self._random = _kiln.Random(0)
        self.seed(seed)

    def seed(self, seed=None):
        """Starts the stream again from `seed` (None: from the operating
        system)."""
        if seed is None:
            seed = int.from_bytes(_os.urandom(8), "little")
        elif isinstance(seed, (_np.ndarray, list, tuple)):
            seed = hash(_np.asarray(seed).tobytes())
        self._random.seed = int(seed) % (1 << 64)

    def _draw(self, size, dtype, distribution, a, b):
        k = _kiln.array_random(self._random, _state.context(),
                               _core._code(_float_dtype(dtype)), _shape(size),
                               distribution, float(a), float(b),
                               _state.stream())
        return _core._wrap(k)

    def random_sample(self, size=None, dtype=float):
        """Uniform in [0, 1)."""
        return self._draw(size, dtype, "uniform", 0.0, 1.0)

    random = random_sample

    def rand(self, *size, dtype=float):
        """Uniform in [0, 1), of shape `size`."""
        return self._draw(size, dtype, "uniform", 0.0, 1.0)

    def randn(self, *size, dtype=float):
        """Standard normal, of shape `size`."""
        return self._draw(size, dtype, "normal", 0.0, 1.0)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=float):
        """Uniform in [low, high)."""
        return self._draw(size, dtype, "uniform", low, high)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=float):
        """Normal of mean `loc` and standard deviation `scale`."""
        if scale < 0:
            raise ValueError("scale < 0")
        return self._draw(size, dtype, "normal", loc, scale)

    def standard_normal(self, size=None, dtype=float):
        """Normal of mean 0 and standard deviation 1."""
        return self._draw(size, dtype, "normal", 0.0, 1.0)

    def randint(self, low, high=None, size=None, dtype=int):
        """Integers uniform in [low, high) ([0, low) without high)."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high)
        if high <= low:
            raise ValueError("low >= high")
        if high - low > 1 << 52:
            raise NotImplementedError("randint over more than 2**52 values")
        values = _core.floor(self._draw(size, _np.float64, "uniform", low,
                                        high))
        # low + (high - low) * u rounds below high; the clamp says so
        values = _core.minimum(values, high - 1)
        return values.astype(dtype)


_state_of_process = []


def get_random_state():
    """The RandomState the module's functions draw from."""
    if not _state_of_process:
        _state_of_process.append(RandomState())
    return _state_of_process[0]


def seed(seed=None):
    """Seeds the module's RandomState (None: from the operating system)."""
    get_random_state().seed(seed)


def rand(*size, dtype=float):
    """Uniform in [0, 1), of shape `size` (float64 unless told)."""
    return get_random_state().rand(*size, dtype=dtype)


def randn(*size, dtype=float):
    """Standard normal, of shape `size`."""
    return get_random_state().randn(*size, dtype=dtype)


def random_sample(size=None, dtype=float):
    """Uniform in [0, 1)."""
    return get_random_state().random_sample(size, dtype)


random = ranf = sample = random_sample


def uniform(low=0.0, high=1.0, size=None, dtype=float):
    """Uniform in [low, high)."""
    return get_random_state().uniform(low, high, size, dtype)


def normal(loc=0.0, scale=1.0, size=None, dtype=float):
    """Normal of mean `loc` and standard deviation `scale`."""
    return get_random_state().normal(loc, scale, size, dtype)


def standard_normal(size=None, dtype=float):
    """Normal of mean 0 and standard deviation 1."""
    return get_random_state().standard_normal(size, dtype)


def randint(low, high=None, size=None, dtype=int):
    """Integers uniform in [low, high)."""
    return get_random_state().randint(low, high, size, dtype)
