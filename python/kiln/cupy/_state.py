"""The current device and stream of each thread, as CuPy keeps them.

A device is a device index of the backend Kiln picks (KILN_BACKEND, else
CUDA with a device, else OpenCL); its kiln.Context is the process's one
(kiln.shared_context, shared with kiln.pycuda).  The current stream is
per thread and per device; None stands for the device's default stream
(CUDA's null stream).  Every operation of kiln.cupy runs on the current
device's context and stream.
"""
import os as _os
import threading as _threading

import kiln as _kiln

_local = _threading.local()
_backend = []


def backend():
    """The backend kiln.cupy uses ('cuda' or 'opencl'), chosen once."""
    if not _backend:
        _backend.append(_kiln.default_backend())
    return _backend[0]


def _default_device():
    for name in ("KILN_DEVICE", "CUDA_DEVICE"):
        value = _os.environ.get(name)
        if value:
            try:
                return int(value)
            except ValueError:
                pass
    return 0


def device_id():
    """The current device's index for this thread."""
    try:
        return _local.device
    except AttributeError:
        _local.device = _default_device()
        return _local.device


def set_device(index):
    """Makes device `index` current for this thread."""
    _local.device = index
    _local.__dict__.pop("context", None)


def context():
    """The kiln.Context of the current device."""
    try:
        return _local.context
    except AttributeError:
        _local.context = _kiln.shared_context(backend(), device_id())
        return _local.context


def context_of(index):
    """The kiln.Context of device `index`."""
    return _kiln.shared_context(backend(), index)


def _streams():
    try:
        return _local.streams
    except AttributeError:
        _local.streams = {}
        return _local.streams


def stream():
    """The kiln.Stream work goes to (None: the default stream)."""
    return _streams().get(device_id())


def set_stream(handle):
    """Makes `handle` (a kiln.Stream, or None) the current device's
    current stream for this thread."""
    streams = _streams()
    if handle is None:
        streams.pop(device_id(), None)
    else:
        streams[device_id()] = handle
