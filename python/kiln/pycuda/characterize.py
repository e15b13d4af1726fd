"""PyCUDA's characterize: what the current device can do."""
import numpy as _np

from kiln.pycuda import driver as _driver


def has_double_support():
    """Whether the current device computes in double precision."""
    return bool(_driver.current_kiln_context().device_info()["supports_double"])


def has_stack():
    """Whether kernels may recurse (a stack): True on CUDA only."""
    return _driver.current_kiln_context().backend == "cuda"


def platform_bits():
    """64: Kiln's devices address memory with 64 bits."""
    return 64


_SIZES = {"char": 1, "signed char": 1, "unsigned char": 1, "short": 2,
          "unsigned short": 2, "int": 4, "unsigned int": 4, "unsigned": 4,
          "long": 8, "unsigned long": 8, "long long": 8,
          "unsigned long long": 8, "float": 4, "double": 8, "size_t": 8,
          "float2": 8, "float3": 12, "float4": 16, "double2": 16,
          "int2": 8, "int3": 12, "int4": 16}


def sizeof(type_name, preamble=""):
    """sizeof(type_name) in CUDA C, for the scalar and vector types."""
    try:
        return _SIZES[type_name.strip()]
    except KeyError:
        raise NotImplementedError(f"sizeof({type_name}): only scalar and "
                                  "vector types are known") from None


def nvcc_version():
    """None: Kiln compiles with NVRTC on CUDA and its own translation
    elsewhere, not nvcc."""
    return None


def _dtype_size(dtype):
    return _np.dtype(dtype).itemsize
