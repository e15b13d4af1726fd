"""PyCUDA's modules on Kiln: ``import kiln.pycuda.driver as cuda`` runs a
PyCUDA script on CUDA, on any OpenCL device and on PoCL on a CPU.

The modules: driver, autoinit, compiler (SourceModule), gpuarray,
elementwise (ElementwiseKernel), reduction (ReductionKernel), scan
(InclusiveScanKernel, ExclusiveScanKernel), cumath, curandom (rand),
tools (DeviceMemoryPool, dtype_to_ctype, context_dependent_memoize) and
characterize.  ``VERSION`` is the PyCUDA release whose API they follow.
"""
VERSION = (2026, 1)
VERSION_STATUS = ""
VERSION_TEXT = "2026.1"
