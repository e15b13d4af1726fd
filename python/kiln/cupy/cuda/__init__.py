"""CuPy's cupy.cuda on Kiln: devices, streams, events, the memory pool and
a few runtime calls, for the device Kiln uses (CUDA, or any OpenCL device
such as PoCL).

A Device is a device index of that backend; ``with Device(1):`` and
``Device(1).use()`` make it current for the thread.  A Stream is a Kiln
stream (an in-order queue: a CUDA stream, an OpenCL command queue);
``Stream.null`` is the device's default stream.  Events time the device's
work in milliseconds.
"""
import threading as _threading

import kiln as _kiln
from kiln.cupy import _state
from kiln.cupy._core import MemoryPointer  # noqa: F401 (CuPy's name)
from kiln.cupy.cuda import runtime  # noqa: F401 (cupy.cuda.runtime)


def is_available():
    """Whether a device is there."""
    try:
        return runtime.getDeviceCount() > 0
    except _kiln.KilnError:
        return False


def get_device_id():
    """The current device's index."""
    return _state.device_id()


class Device:
    """A device (CuPy's cupy.cuda.Device): Device() is the current one."""

    def __init__(self, device=None):
        if device is None:
            device = _state.device_id()
        self.id = int(device)
        self._previous = []

    def use(self):
        """Makes this device current for the thread."""
        count = runtime.getDeviceCount()
        if not 0 <= self.id < count:
            raise runtime.CUDARuntimeError(
                f"invalid device ordinal {self.id} (the {_state.backend()} "
                f"backend has {count})")
        _state.set_device(self.id)

    def synchronize(self):
        """Waits for all work on the device."""
        _state.context_of(self.id).synchronize()

    def __enter__(self):
        self._previous.append(_state.device_id())
        self.use()
        return self

    def __exit__(self, *exc):
        _state.set_device(self._previous.pop())

    @property
    def compute_capability(self):
        """'90' on an H100; on OpenCL devices '00'."""
        properties = runtime.getDeviceProperties(self.id)
        return f"{properties['major']}{properties['minor']}"

    @property
    def mem_info(self):
        """(free, total) bytes."""
        with self:
            return runtime.memGetInfo()

    def __int__(self):
        return self.id

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


class _StreamLocal(_threading.local):
    def __init__(self):
        super().__init__()
        self.previous = []


class Stream:
    """A stream of the current device (CuPy's cupy.cuda.Stream).
    ``with stream:`` or ``stream.use()`` makes kiln.cupy's work go to it;
    Stream.null is the default stream."""

    null = None  # set below

    def __init__(self, null=False, non_blocking=False, ptds=False):
        self.device_id = _state.device_id()
        self._handle = None if null else _kiln.Stream(_state.context())
        self._local = _StreamLocal()

    @property
    def ptr(self):
        """The native handle (CUstream, cl_command_queue); 0 for null."""
        return 0 if self._handle is None else self._handle.native

    def use(self):
        """Makes this the current stream of its device for the thread."""
        _state.set_stream(self._handle)
        return self

    def synchronize(self):
        """Waits for the work queued on the stream."""
        if self._handle is None:
            _state.context().synchronize()
        else:
            self._handle.synchronize()

    @property
    def done(self):
        """Whether the stream's work is done."""
        return Event().record(self).done

    def record(self, event=None):
        """Records `event` (a new one when None) on the stream."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event):
        """Work queued after this waits for `event`."""
        if self._handle is None:
            _state.context().synchronize()  # the default stream: wait here
            event.synchronize()
        else:
            self._handle.wait_for_event(event._event)

    def __enter__(self):
        self._local.previous.append(_state.stream())
        self.use()
        return self

    def __exit__(self, *exc):
        _state.set_stream(self._local.previous.pop())

    def __eq__(self, other):
        return isinstance(other, Stream) and other._handle is self._handle

    def __hash__(self):
        return id(self._handle)

    def __repr__(self):
        return f"<Stream {self.ptr:#x} (device {self.device_id})>"


class _NullStream(Stream):
    def __init__(self):
        self._handle = None
        self._local = _StreamLocal()

    @property
    def device_id(self):
        return _state.device_id()


Stream.null = _NullStream()


def get_current_stream(device_id=None):
    """The current stream (Stream.null unless one is in use)."""
    handle = _state.stream()
    if handle is None:
        return Stream.null
    stream = Stream.__new__(Stream)
    stream.device_id = _state.device_id()
    stream._handle = handle
    stream._local = _StreamLocal()
    return stream


class Event:
    """A point in a stream, for waiting and timing (CuPy's
    cupy.cuda.Event)."""

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self._event = _kiln.Event(_state.context())
        self._recorded = False

    def record(self, stream=None):
        """Marks the current end of `stream` (the current stream when
        None)."""
        handle = _state.stream() if stream is None else stream._handle
        self._event.record(handle)
        self._recorded = True
        return self

    def synchronize(self):
        """Waits until the work before the event is done."""
        self._event.synchronize()

    @property
    def done(self):
        """Whether the work before the event is done."""
        return self._event.query()


def get_elapsed_time(start_event, end_event):
    """Milliseconds of device time between two recorded events."""
    end_event.synchronize()
    return start_event._event.elapsed(end_event._event)


class MemoryPool:
    """The device memory pool (Kiln's, per context, as CuPy's): statistics
    and freeing the blocks it keeps."""

    def _stats(self):
        return _state.context().pool_stats()

    def used_bytes(self):
        """Bytes held by live arrays and buffers."""
        return self._stats()["bytes_in_use"]

    def free_bytes(self):
        """Bytes the pool keeps for reuse."""
        return self._stats()["bytes_cached"]

    def total_bytes(self):
        """used_bytes() + free_bytes()."""
        stats = self._stats()
        return stats["bytes_in_use"] + stats["bytes_cached"]

    def n_free_blocks(self):
        """Not counted by Kiln: 0 once freed, else 1 while bytes are
        kept."""
        return 1 if self.free_bytes() else 0

    def free_all_blocks(self, stream=None):
        """Returns the blocks the pool keeps to the driver."""
        from kiln.cupy._core import _flush
        _flush()
        _state.context().pool_trim()

    def set_limit(self, size=None, fraction=None):
        """Not available: Kiln's pool has no limit."""
        raise NotImplementedError("Kiln's memory pool has no limit")

    def get_limit(self):
        """0: no limit."""
        return 0


class PinnedMemoryPool:
    """Page-locked host memory is not pooled by kiln.cupy: nothing to
    free."""

    def free_all_blocks(self):
        """Nothing is kept."""

    def n_free_blocks(self):
        """0."""
        return 0


_default_pool = MemoryPool()
_default_pinned_pool = PinnedMemoryPool()


def get_default_memory_pool():
    """The device memory pool kiln.cupy's arrays come from."""
    return _default_pool


def get_default_pinned_memory_pool():
    """The (empty) page-locked host memory pool."""
    return _default_pinned_pool


def set_allocator(allocator=None):
    """Accepted only as None (Kiln's pool): custom allocators are not
    supported."""
    if allocator is not None:
        raise NotImplementedError("kiln.cupy allocates from Kiln's pool")


def set_pinned_memory_allocator(allocator=None):
    """Accepted and ignored: transfers stage through Kiln."""


class Memory:
    """Device memory of `size` bytes (CuPy's cupy.cuda.Memory)."""

    def __init__(self, size):
        self.mem = _kiln.Buffer(_state.context(), int(size))
        self.size = int(size)
        self.device_id = _state.device_id()

    @property
    def ptr(self):
        """The address of the first byte."""
        return int(self.mem)


def alloc(size):
    """A MemoryPointer to `size` new bytes of device memory."""
    return MemoryPointer(Memory(size).mem)
