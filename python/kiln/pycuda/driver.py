"""PyCUDA's ``pycuda.driver`` on Kiln: devices, contexts, memory, copies,
streams, events and kernels, on CUDA and on any OpenCL device.

Differences a script can see:

* ``Context`` objects of one device share one Kiln context (as CUDA's
  primary context is shared): ``make_context``, ``push``, ``pop`` and
  ``detach`` keep PyCUDA's stack of current contexts, and memory made in
  any of them lives until its last reference goes.
* On OpenCL ``int(allocation)`` is an address Kiln gives the allocation,
  not a device pointer; it is resolved back to the allocation (and the
  offset into it) wherever a pointer is expected, so ``int(a_gpu) + 4``
  works as a kernel argument.
* Texture references, ``register_host_memory`` and cubin/PTX modules are
  not available (CUDA 12 removed texture references too).
"""
import atexit as _atexit
import os as _os
import threading as _threading

import numpy as _np

import kiln as _kiln
from kiln import (BackendError, BuildError, KilnError,  # noqa: F401
                  LaunchError, LogicError, OutOfMemoryError)

Error = KilnError
MemoryError = OutOfMemoryError  # noqa: A001 (PyCUDA's name)
RuntimeError = BackendError  # noqa: A001 (PyCUDA's name)


class CompileError(BuildError):
    """A source the compiler refused; PyCUDA's attributes are kept."""

    def __init__(self, msg, command_line="", stdout=None, stderr=None):
        super().__init__(msg)
        self.msg = msg
        self.command_line = command_line
        self.stdout = stdout
        self.stderr = stderr


# ---- versions and the backend ------------------------------------------------

def _backend():
    """The backend Kiln uses: KILN_BACKEND, else CUDA with a device, else
    OpenCL."""
    return _kiln.default_backend()


def get_version():
    """The CUDA version whose semantics Kiln gives: (12, 0, 0) (no texture
    references)."""
    return (12, 0, 0)


def get_driver_version():
    """The driver version as CUDA encodes it (12000 for 12.0)."""
    return 12000


_initialized = False


def init(flags=0):
    """Checks that a backend with a device can be used (PyCUDA's cuInit)."""
    global _initialized
    if Device.count() == 0:
        raise BackendError(f"backend {_backend()} has no device")
    _initialized = True


# ---- enums ------------------------------------------------------------------

class device_attribute:  # noqa: N801 (PyCUDA's name)
    """Device attribute names, for Device.get_attribute."""
    MAX_THREADS_PER_BLOCK = "MAX_THREADS_PER_BLOCK"
    MAX_BLOCK_DIM_X = "MAX_BLOCK_DIM_X"
    MAX_BLOCK_DIM_Y = "MAX_BLOCK_DIM_Y"
    MAX_BLOCK_DIM_Z = "MAX_BLOCK_DIM_Z"
    MAX_GRID_DIM_X = "MAX_GRID_DIM_X"
    MAX_GRID_DIM_Y = "MAX_GRID_DIM_Y"
    MAX_GRID_DIM_Z = "MAX_GRID_DIM_Z"
    MAX_SHARED_MEMORY_PER_BLOCK = "MAX_SHARED_MEMORY_PER_BLOCK"
    SHARED_MEMORY_PER_BLOCK = "MAX_SHARED_MEMORY_PER_BLOCK"
    TOTAL_CONSTANT_MEMORY = "TOTAL_CONSTANT_MEMORY"
    WARP_SIZE = "WARP_SIZE"
    MULTIPROCESSOR_COUNT = "MULTIPROCESSOR_COUNT"
    CLOCK_RATE = "CLOCK_RATE"
    COMPUTE_CAPABILITY_MAJOR = "COMPUTE_CAPABILITY_MAJOR"
    COMPUTE_CAPABILITY_MINOR = "COMPUTE_CAPABILITY_MINOR"
    INTEGRATED = "INTEGRATED"
    UNIFIED_ADDRESSING = "UNIFIED_ADDRESSING"
    COMPUTE_MODE = "COMPUTE_MODE"


class compute_mode:  # noqa: N801
    """Compute modes (Kiln devices are always shared)."""
    DEFAULT = 0
    EXCLUSIVE = 1
    PROHIBITED = 2
    EXCLUSIVE_PROCESS = 3


class ctx_flags:  # noqa: N801
    """Context flags (accepted and ignored: Kiln schedules as the driver
    does)."""
    SCHED_AUTO = 0
    SCHED_SPIN = 1
    SCHED_YIELD = 2
    SCHED_BLOCKING_SYNC = 4
    MAP_HOST = 8
    LMEM_RESIZE_TO_MAX = 16


class event_flags:  # noqa: N801
    """Event flags (accepted and ignored)."""
    DEFAULT = 0
    BLOCKING_SYNC = 1
    DISABLE_TIMING = 2
    INTERPROCESS = 4


class host_alloc_flags:  # noqa: N801
    """Page-locked allocation flags (accepted and ignored)."""
    PORTABLE = 1
    DEVICEMAP = 2
    WRITECOMBINED = 4


class function_attribute:  # noqa: N801
    """Function attribute names, for Function.get_attribute."""
    MAX_THREADS_PER_BLOCK = "MAX_THREADS_PER_BLOCK"
    SHARED_SIZE_BYTES = "SHARED_SIZE_BYTES"
    CONST_SIZE_BYTES = "CONST_SIZE_BYTES"
    LOCAL_SIZE_BYTES = "LOCAL_SIZE_BYTES"
    NUM_REGS = "NUM_REGS"


class func_cache:  # noqa: N801
    """Cache preferences (accepted and ignored)."""
    PREFER_NONE = 0
    PREFER_SHARED = 1
    PREFER_L1 = 2
    PREFER_EQUAL = 3


# ---- devices and contexts --------------------------------------------------------

class Device:
    """A device of the backend Kiln uses (PyCUDA's Device(number))."""

    def __init__(self, number):
        count = Device.count()
        if not 0 <= number < count:
            raise LogicError(f"Device({number}): the {_backend()} backend has "
                             f"{count} device(s)")
        self.backend = _backend()
        self.number = number
        self._info = _kiln.device_info(self.backend, number)

    @staticmethod
    def count():
        """The number of devices of the backend Kiln uses."""
        return _kiln.device_count(_backend())

    def name(self):
        """The device's name."""
        return self._info["name"]

    def pci_bus_id(self):
        """An identifier of the device (Kiln has no PCI address for it)."""
        return f"{self.backend}:{self.number}"

    def compute_capability(self):
        """(major, minor) on CUDA; (0, 0) on OpenCL devices, which have
        none (code that needs a capability then takes its careful path)."""
        return tuple(self._info["compute_capability"])

    def total_memory(self):
        """Bytes of global memory."""
        return self._info["global_memory"]

    def get_attributes(self):
        """Every attribute Kiln knows, as {name: value}."""
        info = self._info
        major, minor = info["compute_capability"]
        return {
            device_attribute.MAX_THREADS_PER_BLOCK: info["max_threads_per_block"],
            device_attribute.MAX_BLOCK_DIM_X: info["max_block"][0],
            device_attribute.MAX_BLOCK_DIM_Y: info["max_block"][1],
            device_attribute.MAX_BLOCK_DIM_Z: info["max_block"][2],
            device_attribute.MAX_GRID_DIM_X: info["max_grid"][0],
            device_attribute.MAX_GRID_DIM_Y: info["max_grid"][1],
            device_attribute.MAX_GRID_DIM_Z: info["max_grid"][2],
            device_attribute.MAX_SHARED_MEMORY_PER_BLOCK: info["local_memory"],
            device_attribute.TOTAL_CONSTANT_MEMORY: info["constant_memory"],
            device_attribute.WARP_SIZE: info["warp_size"],
            device_attribute.MULTIPROCESSOR_COUNT: info["compute_units"],
            device_attribute.CLOCK_RATE: info["clock_mhz"] * 1000,
            device_attribute.COMPUTE_CAPABILITY_MAJOR: major,
            device_attribute.COMPUTE_CAPABILITY_MINOR: minor,
            device_attribute.INTEGRATED: int(info["unified_memory"]),
            device_attribute.UNIFIED_ADDRESSING: 0,
            device_attribute.COMPUTE_MODE: compute_mode.DEFAULT,
        }

    def get_attribute(self, attribute):
        """One attribute (a device_attribute name)."""
        return self.get_attributes()[attribute]

    def __getattr__(self, name):
        # PyCUDA lets dev.MAX_THREADS_PER_BLOCK stand for get_attribute.
        if name.isupper():
            try:
                return self.get_attributes()[name]
            except KeyError:
                pass
        raise AttributeError(name)

    def make_context(self, flags=0):
        """A context on this device, pushed as the current one."""
        context = Context(self)
        context.push()
        return context

    def retain_primary_context(self):
        """The device's context, not pushed (push() it to use it)."""
        return Context(self)

    def __eq__(self, other):
        return isinstance(other, Device) and (self.backend, self.number) == \
            (other.backend, other.number)

    def __hash__(self):
        return hash((self.backend, self.number))

    def __repr__(self):
        return f"<Device {self.number} of {self.backend}: {self.name()}>"


_stack = _threading.local()  # .contexts: this thread's stack


def _kiln_context_of(device):
    # one per device in the process, shared with kiln.cupy
    return _kiln.shared_context(device.backend, device.number)


def _contexts():
    if not hasattr(_stack, "contexts"):
        _stack.contexts = []
    return _stack.contexts


class Context:
    """A context on a device (PyCUDA's Context).  Contexts of one device
    share one Kiln context; the current one is the top of this thread's
    stack."""

    def __init__(self, device):
        self.device = device
        self.kiln_context = _kiln_context_of(device)
        self._detached = False

    def push(self):
        """Makes this context the current one."""
        _contexts().append(self)

    @staticmethod
    def pop():
        """Removes the current context from the stack."""
        contexts = _contexts()
        if not contexts:
            raise LogicError("Context.pop: no context is current")
        contexts.pop()

    def detach(self):
        """Pops this context if it is the current one and gives it up;
        memory made in it lives until its last reference goes."""
        contexts = _contexts()
        if contexts and contexts[-1] is self:
            contexts.pop()
        self._detached = True

    @staticmethod
    def get_current():
        """The current context, or None."""
        contexts = _contexts()
        return contexts[-1] if contexts else None

    @staticmethod
    def get_device():
        """The current context's device."""
        return _current().device

    @staticmethod
    def synchronize():
        """Waits for all work of the current context; raises LaunchError for
        a kernel that faulted."""
        current_kiln_context().synchronize()

    @staticmethod
    def set_cache_config(config):
        """Accepted and ignored."""

    @staticmethod
    def get_cache_config():
        """func_cache.PREFER_NONE."""
        return func_cache.PREFER_NONE

    @staticmethod
    def set_limit(limit, value):
        """Accepted and ignored."""

    def __repr__(self):
        return f"<Context on {self.device!r}>"


def _current():
    contexts = _contexts()
    if not contexts:
        raise LogicError("no current context: import pycuda.autoinit or "
                         "make one with Device(0).make_context()")
    return contexts[-1]


def current_kiln_context():
    """The kiln.Context of the current context (for kiln.pycuda's
    modules)."""
    return _current().kiln_context


# ---- memory -------------------------------------------------------------------

DeviceAllocation = _kiln.Buffer


class PointerHolderBase:
    """Base of objects that stand for device memory by their
    get_pointer() (an address inside a DeviceAllocation)."""

    def get_pointer(self):
        """The address; subclasses implement it."""
        raise NotImplementedError

    def __int__(self):
        return int(self.get_pointer())

    def __index__(self):
        return int(self.get_pointer())

    def as_buffer(self, size, offset=0):
        """The memory as a DeviceAllocation view of `size` bytes."""
        return _kiln.buffer_at(int(self) + offset).view(0, size)


def _buffer_of(pointer):
    """A DeviceAllocation for a destination or source given as one, as an
    address, or as an object with gpudata or __cuda_array_interface__."""
    if isinstance(pointer, _kiln.Buffer):
        return pointer
    buffer = getattr(pointer, "_kiln_buffer", None)
    if buffer is not None:
        return buffer
    gpudata = getattr(pointer, "gpudata", None)
    if gpudata is not None:
        return _buffer_of(gpudata)
    interface = getattr(pointer, "__cuda_array_interface__", None)
    if interface is not None:
        pointer = interface["data"][0]
    return _kiln.buffer_at(int(pointer))


def mem_alloc(bytes):  # noqa: A002 (PyCUDA's parameter name)
    """`bytes` bytes of device memory in the current context."""
    return _kiln.Buffer(current_kiln_context(), int(bytes))


def mem_alloc_like(ary):
    """Device memory of an array's size."""
    return mem_alloc(ary.nbytes)


def mem_get_info():
    """(free, total) bytes: total global memory, less what Kiln's pool
    holds for live buffers."""
    context = current_kiln_context()
    total = context.device_info()["global_memory"]
    used = context.pool_stats()["bytes_in_use"]
    return max(total - used, 0), total


def _host(array):
    return _np.ascontiguousarray(array) if isinstance(array, _np.ndarray) \
        else array


def memcpy_htod(dest, src):
    """Copies a host array to device memory."""
    _buffer_of(dest).write(_host(src))


def memcpy_dtoh(dest, src):
    """Copies device memory into a host array (its whole size)."""
    _read_blocking(_buffer_of(src), dest)


def memcpy_dtod(dest, src, size):
    """Copies `size` bytes between device memory."""
    _buffer_of(dest).copy_from(_buffer_of(src), int(size))


def memcpy_htod_async(dest, src, stream=None):
    """memcpy_htod queued on a stream (page-locked source memory lets it
    overlap other work)."""
    _buffer_of(dest).write(_host(src), 0, stream, False)


def memcpy_dtoh_async(dest, src, stream=None):
    """memcpy_dtoh queued on a stream."""
    _buffer_of(src).read(dest, 0, stream, False)


def memcpy_dtod_async(dest, src, size, stream=None):
    """memcpy_dtod queued on a stream."""
    _buffer_of(dest).copy_from(_buffer_of(src), int(size), 0, 0, stream,
                               False)


def _memset(dest, value, count, dtype, stream=None, blocking=True):
    if count:
        pattern = _np.array(value, dtype=dtype).tobytes()
        _buffer_of(dest).fill(pattern, 0, int(count) * len(pattern), stream,
                              blocking)


def memset_d8(dest, data, count):
    """Sets `count` bytes."""
    _memset(dest, data, count, _np.uint8)


def memset_d16(dest, data, count):
    """Sets `count` 16-bit words."""
    _memset(dest, data, count, _np.uint16)


def memset_d32(dest, data, count):
    """Sets `count` 32-bit words."""
    _memset(dest, data, count, _np.uint32)


def memset_d8_async(dest, data, count, stream=None):
    """memset_d8 queued on a stream."""
    _memset(dest, data, count, _np.uint8, stream, False)


def memset_d16_async(dest, data, count, stream=None):
    """memset_d16 queued on a stream."""
    _memset(dest, data, count, _np.uint16, stream, False)


def memset_d32_async(dest, data, count, stream=None):
    """memset_d32 queued on a stream."""
    _memset(dest, data, count, _np.uint32, stream, False)


def to_device(bf_obj):
    """A new DeviceAllocation holding a copy of a host array."""
    host = _host(bf_obj)
    allocation = mem_alloc(max(memoryview(host).nbytes, 1))
    if memoryview(host).nbytes:
        allocation.write(host)
    return allocation


def from_device(devptr, shape, dtype, order="C"):
    """A new host array of `shape` and `dtype` read from device memory."""
    result = _np.empty(shape, dtype, order=order)
    if result.nbytes:
        _read_blocking(_buffer_of(devptr), result if result.flags.c_contiguous
                       else result.T)
    return result


def from_device_like(devptr, other_ary):
    """A new host array like `other_ary` read from device memory."""
    result = _np.empty_like(other_ary)
    if result.nbytes:
        _read_blocking(_buffer_of(devptr), result)
    return result


# ---- kernel arguments -------------------------------------------------------------

class In(_kiln.HostArg):
    """A host array copied to the device before a launch."""

    def __new__(cls, array):
        return super().__new__(cls, _host(array), "in")


class Out(_kiln.HostArg):
    """A host array copied back to the host after a launch."""

    def __new__(cls, array):
        return super().__new__(cls, array, "out")


class InOut(_kiln.HostArg):
    """A host array copied in before a launch and back after it."""

    def __new__(cls, array):
        return super().__new__(cls, array, "inout")


# ---- page-locked host memory ----------------------------------------------------

def pagelocked_empty(shape, dtype, order="C", mem_flags=0):
    """A NumPy array in page-locked host memory (freed with the array)."""
    dtype = _np.dtype(dtype)
    shape = (shape,) if _np.isscalar(shape) else tuple(shape)
    count = int(_np.prod(shape, dtype=_np.int64)) if shape else 1
    memory = _kiln.HostMemory(current_kiln_context(), count * dtype.itemsize)
    flat = _np.frombuffer(memory, dtype=dtype, count=count)
    return flat.reshape(shape, order=order)


def pagelocked_zeros(shape, dtype, order="C", mem_flags=0):
    """pagelocked_empty, zero-filled."""
    result = pagelocked_empty(shape, dtype, order, mem_flags)
    result.fill(0)
    return result


def pagelocked_empty_like(array, mem_flags=0):
    """pagelocked_empty of an array's shape and dtype."""
    order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous \
        else "C"
    return pagelocked_empty(array.shape, array.dtype, order, mem_flags)


def pagelocked_zeros_like(array, mem_flags=0):
    """pagelocked_zeros of an array's shape and dtype."""
    result = pagelocked_empty_like(array, mem_flags)
    result.fill(0)
    return result


def register_host_memory(ary, flags=0):
    """Not available: Kiln page-locks memory it allocates itself
    (pagelocked_empty)."""
    raise LogicError("register_host_memory: not supported by Kiln; allocate "
                     "with pagelocked_empty instead")


# ---- streams and events --------------------------------------------------------

_streams_made = False  # set once, never cleared (one store under the GIL)


def _read_blocking(buffer, host, offset=0):
    """A synchronous read, ordered as CUDA's legacy default stream orders
    PyCUDA's: after the work already queued on every stream of the
    buffer's context (a kernel launched with ``stream=`` and read with
    ``get()`` gives its result), not only the default stream's."""
    if _streams_made:
        buffer.context.synchronize()
    buffer.read(host, offset)


class Stream(_kiln.Stream):
    """An in-order queue of work in the current context."""

    def __new__(cls, flags=0):
        global _streams_made
        _streams_made = True
        return super().__new__(cls, current_kiln_context())

    def is_done(self):
        """Whether everything queued so far has finished."""
        event = _kiln.Event(self.context)
        event.record(self)
        return event.query()


class Event(_kiln.Event):
    """A point in a stream, for waiting and timing."""

    def __new__(cls, flags=0):
        return super().__new__(cls, current_kiln_context())

    def time_since(self, event):
        """Milliseconds from `event` to this one (both recorded)."""
        return event.elapsed(self)

    def time_till(self, event):
        """Milliseconds from this event to `event`."""
        return self.elapsed(event)


# ---- modules and functions ---------------------------------------------------------

_STRUCT_CHARS = {"b": "c", "B": "C", "c": "c", "?": "C", "h": "h", "H": "H",
                 "i": "i", "I": "I", "l": "l", "L": "L", "q": "l", "Q": "L",
                 "n": "l", "N": "z", "f": "f", "d": "d", "P": "P"}


class Function(_kiln.Kernel):
    """A kernel of a module (PyCUDA's Function): called with block=, grid=,
    shared=, stream= and time_kernel=, or prepared."""

    def prepare(self, arg_types, block=None, shared=None, texrefs=()):
        """Fixes the argument types: a string of struct characters ("PiP")
        or a list of NumPy dtypes (np.intp for pointers)."""
        if texrefs:
            raise NotImplementedError("texture references are not supported "
                                      "by Kiln")
        params = self.params
        if isinstance(arg_types, str):
            try:
                chars = [_STRUCT_CHARS[c] for c in arg_types if c != " "]
            except KeyError as error:
                raise ValueError(f"prepare: unknown type character "
                                 f"{error.args[0]!r}") from None
        else:
            chars = [t if isinstance(t, str) else _kiln.type_char(t)
                     for t in arg_types]
        # An integer type given for a pointer parameter (np.intp) is the
        # pointer, as in PyCUDA.
        for i, char in enumerate(chars):
            if i < len(params) and params[i]["code"] == "P" and \
                    char in ("l", "L", "z"):
                chars[i] = "P"
        self._block = block
        return super().prepare("".join(chars))

    # prepared_call and prepared_async_call are _kiln.Kernel's own: a
    # Python frame here would cost every launch about half a microsecond.

    def prepared_timed_call(self, grid, block, *args, shared_size=0):
        """Launches and waits; returns a function giving the seconds the
        kernel took."""
        seconds = super().prepared_timed_call(grid, block, *args,
                                              shared_size=shared_size)
        return lambda: seconds

    def get_attribute(self, attribute):
        """A function attribute (what Kiln can tell: MAX_THREADS_PER_BLOCK;
        0 for the others)."""
        if attribute == function_attribute.MAX_THREADS_PER_BLOCK:
            return self.max_block_size
        return 0

    @property
    def max_threads_per_block(self):
        """The most threads per block this kernel runs with."""
        return self.max_block_size

    num_regs = 0
    shared_size_bytes = 0
    local_size_bytes = 0
    const_size_bytes = 0

    def set_cache_config(self, config):
        """Accepted and ignored."""

    def set_shared_size(self, bytes):  # noqa: A002
        """Sets the dynamic shared memory of later plain calls."""
        raise NotImplementedError("pass shared= to the call instead")


class Module:
    """A built CUDA C source (what SourceModule is)."""

    def __init__(self, program):
        self.program = program

    def get_function(self, name):
        """The kernel `name` (a Function)."""
        return Function(self.program, name)

    def get_global(self, name):
        """(DeviceAllocation, bytes) of a __device__ or __constant__
        variable."""
        buffer = self.program.get_global(name)
        return buffer, buffer.size

    def get_texref(self, name):
        """Not available: texture references are not supported."""
        raise NotImplementedError("texture references are not supported by "
                                  "Kiln (CUDA 12 removed them too)")

    get_surfref = get_texref


def module_from_buffer(buffer, options=(), message_handler=None):
    """Not available: Kiln builds CUDA C source, not cubin or PTX."""
    raise NotImplementedError("Kiln builds modules from CUDA C source "
                              "(SourceModule), not from cubin or PTX")


def module_from_file(filename):
    """Not available: Kiln builds CUDA C source, not cubin or PTX."""
    raise NotImplementedError("Kiln builds modules from CUDA C source "
                              "(SourceModule), not from cubin or PTX")


def _pop_at_exit(context):
    contexts = _contexts()
    if context in contexts:
        contexts.remove(context)


def _register_autoinit(context):
    _atexit.register(_pop_at_exit, context)


def _default_device_number():
    for name in ("KILN_DEVICE", "CUDA_DEVICE"):
        value = _os.environ.get(name)
        if value:
            return int(value)
    return None
