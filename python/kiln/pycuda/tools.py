"""PyCUDA's tools: the default context, a device memory pool, C type names
of dtypes, per-context memoization, and the test decorators."""
import functools as _functools
import builtins as _builtins
import gc as _gc

import numpy as _np

import kiln as _kiln
from kiln.pycuda import driver as _driver


def make_default_context(ctx_maker=None):
    """A context on the default device, pushed as the current one: the
    device of KILN_DEVICE or CUDA_DEVICE, else the first one that works."""
    if ctx_maker is None:
        def ctx_maker(device):
            return device.make_context()
    number = _driver._default_device_number()
    if number is not None:
        return ctx_maker(_driver.Device(number))
    errors = []
    for number in range(_driver.Device.count()):
        try:
            return ctx_maker(_driver.Device(number))
        except _kiln.KilnError as error:
            errors.append(error)
    raise _kiln.BackendError("make_default_context: no device could be used"
                             + "".join(f"\n  {e}" for e in errors))


def get_default_device(default=0):
    """The device of KILN_DEVICE or CUDA_DEVICE, else `default`."""
    number = _driver._default_device_number()
    return _driver.Device(default if number is None else number)


def bitlog2(n):
    """floor(log2(n)) of a positive integer."""
    return int(n).bit_length() - 1


# ---- the device memory pool ----------------------------------------------------

class PooledDeviceAllocation:
    """Device memory lent by a DeviceMemoryPool: int() is its address;
    free() (or the last reference) gives it back to the pool."""

    def __init__(self, pool, buffer, bin_number):
        self.pool = pool
        self._kiln_buffer = buffer
        self.bin_number = bin_number

    def __int__(self):
        return int(self._kiln_buffer)

    __index__ = __int__

    @property
    def size(self):
        """Bytes of the allocation."""
        return self._kiln_buffer.size

    def free(self):
        """Gives the memory back to the pool now."""
        if self._kiln_buffer is not None:
            self.pool._give_back(self.bin_number, self._kiln_buffer)
            self._kiln_buffer = None

    def __del__(self):
        try:
            self.free()
        except Exception:  # noqa: BLE001 (at interpreter exit)
            pass


class DeviceMemoryPool:
    """Keeps freed device memory for later allocations of the same size
    class (sizes rounded up to 1/8 of a power of two), as PyCUDA's pool.
    Kiln's contexts pool memory themselves too; this class is for scripts
    that use its interface."""

    def __init__(self, allocator=None):
        self.allocator = allocator or _driver.mem_alloc
        self._held = {}
        self.active_blocks = 0
        self._holding = True

    @staticmethod
    def bin_number(size):
        """The size class of `size` bytes."""
        size = int(size)
        if size <= 8:
            return _builtins.max(size, 1) - 1
        exponent = bitlog2(size)
        shift = exponent - 3
        mantissa = -(-size // (1 << shift)) - 8
        if mantissa == 8:
            exponent += 1
            mantissa = 0
        return 8 + (exponent - 3) * 8 + mantissa

    @staticmethod
    def alloc_size(bin_number):
        """The bytes a size class allocates (at least every size in it)."""
        if bin_number < 8:
            return bin_number + 1
        shift, mantissa = divmod(bin_number - 8, 8)
        return (8 + mantissa) << shift

    @property
    def held_blocks(self):
        """The number of freed blocks kept for reuse."""
        return sum(len(blocks) for blocks in self._held.values())

    def allocate(self, size):
        """Device memory of at least `size` bytes."""
        bin_number = self.bin_number(size)
        blocks = self._held.get(bin_number)
        if blocks:
            buffer = blocks.pop()
        else:
            try:
                buffer = self.allocator(self.alloc_size(bin_number))
            except _kiln.OutOfMemoryError:
                self.free_held()
                _gc.collect()
                buffer = self.allocator(self.alloc_size(bin_number))
        self.active_blocks += 1
        return PooledDeviceAllocation(self, buffer, bin_number)

    __call__ = allocate

    def _give_back(self, bin_number, buffer):
        self.active_blocks -= 1
        if self._holding:
            self._held.setdefault(bin_number, []).append(buffer)

    def free_held(self):
        """Returns every held block to Kiln."""
        self._held.clear()

    def stop_holding(self):
        """Frees the held blocks and holds no more."""
        self._holding = False
        self.free_held()


class PageLockedMemoryPool:
    """Page-locked host arrays (no pooling: Kiln allocates them)."""

    def allocate(self, shape, dtype, order="C"):
        """A page-locked NumPy array."""
        return _driver.pagelocked_empty(shape, dtype, order)

    def free_held(self):
        """Nothing is held."""

    def stop_holding(self):
        """Nothing is held."""


# ---- per-context caches ----------------------------------------------------------

_context_caches = []


def context_dependent_memoize(func):
    """Caches func's results per current context (and arguments)."""
    cache = {}
    _context_caches.append(cache)

    @_functools.wraps(func)
    def wrapper(*args):
        key = (_driver.current_kiln_context(), args)
        try:
            return cache[key]
        except KeyError:
            result = cache[key] = func(*args)
            return result
    return wrapper


def clear_context_caches():
    """Forgets every context_dependent_memoize result."""
    for cache in _context_caches:
        cache.clear()


# ---- C types --------------------------------------------------------------------

_CTYPES = {
    "bool": "bool", "int8": "signed char", "uint8": "unsigned char",
    "int16": "short", "uint16": "unsigned short", "int32": "int",
    "uint32": "unsigned int", "int64": "long long",
    "uint64": "unsigned long long", "float32": "float", "float64": "double",
    "complex64": "pycuda::complex<float>",
    "complex128": "pycuda::complex<double>",
}
_registered = {}


def register_dtype(dtype, c_name):
    """Names a struct dtype's C type (for dtype_to_ctype)."""
    _registered[_np.dtype(dtype)] = c_name
    from kiln.pycuda import _kernels  # its declarations name C types
    _kernels.declare.cache_clear()


_vector_names = {}


def _vector_name(dtype):
    """gpuarray.vec's name of a vector dtype (float4...), else None; the
    table is made once: every generated kernel's declaration asks."""
    if not _vector_names:
        from kiln.pycuda.gpuarray import vec
        for name in dir(vec):
            value = getattr(vec, name)
            if isinstance(value, _np.dtype):
                _vector_names.setdefault(value, name)
    return _vector_names.get(dtype)


def dtype_to_ctype(dtype, with_fp_tex_hack=False):
    """The CUDA C type name of a dtype ("float" for float32)."""
    dtype = _np.dtype(dtype)
    if dtype in _registered:
        return _registered[dtype]
    name = _vector_name(dtype)
    if name is not None:
        return name
    try:
        return _CTYPES[dtype.name]
    except KeyError:
        raise ValueError(f"unable to map dtype {dtype}") from None


# ---- argument descriptions, as PyCUDA's parse_c_arg gives them ---------------

class Argument:
    """A parameter of a generator's argument list."""

    def __init__(self, dtype, name):
        self.dtype = _np.dtype(dtype)
        self.name = name


class VectorArg(Argument):
    """A pointer parameter."""

    def declarator(self):
        """The parameter in CUDA C: "float *x"."""
        return f"{dtype_to_ctype(self.dtype)} *{self.name}"


class ScalarArg(Argument):
    """A value parameter."""

    def declarator(self):
        """The parameter in CUDA C: "float a"."""
        return f"{dtype_to_ctype(self.dtype)} {self.name}"


_C_NAMES = {
    "float": "float32", "double": "float64", "int": "int32",
    "signed int": "int32", "unsigned": "uint32", "unsigned int": "uint32",
    "long": "int64", "long int": "int64", "long long": "int64",
    "unsigned long": "uint64", "unsigned long long": "uint64",
    "short": "int16", "unsigned short": "uint16", "char": "int8",
    "signed char": "int8", "unsigned char": "uint8", "bool": "bool",
    "size_t": "uint64", "ptrdiff_t": "int64", "int8_t": "int8",
    "uint8_t": "uint8", "int16_t": "int16", "uint16_t": "uint16",
    "int32_t": "int32", "uint32_t": "uint32", "int64_t": "int64",
    "uint64_t": "uint64",
}


def parse_c_arg(c_arg):
    """'float *x' -> VectorArg(float32, 'x'); 'int n' -> ScalarArg."""
    c_arg = c_arg.replace("const", " ").replace("__restrict__", " ") \
        .replace("restrict", " ").strip()
    pointer = "*" in c_arg
    text = c_arg.replace("*", " ").split()
    if len(text) < 2:
        raise ValueError(f"'{c_arg}' needs a type and a name")
    name, type_name = text[-1], " ".join(text[:-1])
    if type_name in _C_NAMES:
        dtype = _np.dtype(_C_NAMES[type_name])
    else:
        dtype = next((d for d, n in _registered.items() if n == type_name),
                     None)
        if dtype is None:
            from kiln.pycuda.gpuarray import vec
            dtype = getattr(vec, type_name, None)
        if not isinstance(dtype, _np.dtype):
            raise ValueError(f"unknown type '{type_name}' in '{c_arg}' (Kiln's "
                             "generators take scalar C types)")
    return (VectorArg if pointer else ScalarArg)(dtype, name)


def parse_arg_list(arguments):
    """A C argument list (or a list of Argument objects) as Arguments."""
    if isinstance(arguments, str):
        return [parse_c_arg(arg) for arg in _split_args(arguments)]
    return list(arguments)


def _split_args(text):
    depth, start, parts = 0, 0, []
    for i, char in enumerate(text):
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


# ---- tests ---------------------------------------------------------------------

def mark_cuda_test(inner_f):
    """Runs a test in a fresh current context (PyCUDA's decorator)."""
    @_functools.wraps(inner_f)
    def f(*args, **kwargs):
        _driver.init()
        context = make_default_context()
        try:
            device = context.get_device()
            assert isinstance(device.name(), str)
            assert isinstance(device.compute_capability(), tuple)
            assert isinstance(device.get_attributes(), dict)
            inner_f(*args, **kwargs)
        finally:
            context.pop()
            clear_context_caches()
            _gc.collect()
    try:
        import pytest
    except ImportError:
        return f
    return pytest.mark.cuda(f)


def init_cuda_context_fixture():
    """A pytest fixture body: a current context for the test."""
    _driver.init()
    context = make_default_context()
    device = context.get_device()
    assert isinstance(device.name(), str)
    assert isinstance(device.compute_capability(), tuple)
    assert isinstance(device.get_attributes(), dict)
    yield
    if _driver.Context.get_current() is context:
        context.pop()
    clear_context_caches()
    _gc.collect()


class DeviceData:
    """Facts of the current device that launch-size code asks."""

    def __init__(self, dev=None):
        dev = dev or _driver.Context.get_device()
        attributes = dev.get_attributes()
        self.max_threads = attributes["MAX_THREADS_PER_BLOCK"]
        self.warp_size = attributes["WARP_SIZE"]
        self.thread_blocks_per_mp = 8
        self.warps_per_mp = 32
        self.registers = 65536
        self.shared_memory = attributes["MAX_SHARED_MEMORY_PER_BLOCK"]
        self.smem_granularity = 16

    def align(self, bytes, word_size=4):  # noqa: A002
        """`bytes` rounded up to the shared-memory granularity."""
        return -(-bytes // (word_size * 16)) * word_size * 16
