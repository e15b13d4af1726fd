"""Importing this module makes a context on the default device current,
as ``pycuda.autoinit`` does: the backend from KILN_BACKEND (else CUDA with
a device, else OpenCL), the device from KILN_DEVICE or CUDA_DEVICE (else
the first that works).  ``context`` and ``device`` are module attributes.
"""
from kiln.pycuda import driver as _driver
from kiln.pycuda.tools import make_default_context as _make_default_context

_driver.init()
context = _make_default_context()
device = context.get_device()
_driver._register_autoinit(context)
