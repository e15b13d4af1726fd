"""CuPy's cupy.cuda.runtime calls that scripts use, on Kiln's devices."""
import kiln as _kiln
from kiln.cupy import _state

is_hip = False


class CUDARuntimeError(RuntimeError):
    """A runtime call failed (a bad device index)."""


def getDeviceCount():  # noqa: N802 (CUDA's name)
    """The number of devices of the backend Kiln uses."""
    return _kiln.device_count(_state.backend())


def getDevice():  # noqa: N802
    """The current device's index."""
    return _state.device_id()


def setDevice(device):  # noqa: N802
    """Makes `device` current for the thread."""
    from kiln.cupy.cuda import Device
    Device(device).use()


def deviceSynchronize():  # noqa: N802
    """Waits for all work on the current device."""
    _state.context().synchronize()


def getDeviceProperties(device):  # noqa: N802
    """A dict of the device's properties with CUDA's key names (name as
    bytes, totalGlobalMem, multiProcessorCount, maxThreadsPerBlock,
    sharedMemPerBlock, warpSize, major, minor; on OpenCL devices major and
    minor are 0)."""
    info = _kiln.device_info(_state.backend(), int(device))
    capability = info.get("compute_capability") or (0, 0)
    if isinstance(capability, int):
        capability = divmod(capability, 10)
    return {
        "name": str(info.get("name", "")).encode(),
        "totalGlobalMem": info.get("global_memory", 0),
        "multiProcessorCount": info.get("compute_units", 0),
        "maxThreadsPerBlock": info.get("max_threads_per_block", 0),
        "sharedMemPerBlock": info.get("local_memory", 0),
        "warpSize": info.get("warp_size", 0),
        "major": capability[0],
        "minor": capability[1],
    }


def memGetInfo():  # noqa: N802
    """(free, total) bytes of the current device: its global memory less
    what Kiln's pool holds for live buffers."""
    context = _state.context()
    total = context.device_info()["global_memory"]
    used = context.pool_stats()["bytes_in_use"]
    return max(total - used, 0), total


def runtimeGetVersion():  # noqa: N802
    """Kiln's version as an integer (major * 1000 + minor * 10)."""
    major, minor = (int(v) for v in _kiln.__version__.split(".")[:2])
    return major * 1000 + minor * 10
