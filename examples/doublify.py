"""PyCUDA's tutorial, unchanged but for its import lines: doubles a 4x4
array on the device (a CUDA C kernel), through mem_alloc and memcpy, an
InOut argument, a prepared call and gpuarray.  Runs on CUDA, on any OpenCL
device and on PoCL on a CPU (KILN_BACKEND picks one)."""
import kiln.pycuda.driver as cuda
import kiln.pycuda.autoinit  # noqa: F401
from kiln.pycuda.compiler import SourceModule

import numpy
a = numpy.random.randn(4, 4)
a = a.astype(numpy.float32)
a_gpu = cuda.mem_alloc(a.nbytes)
cuda.memcpy_htod(a_gpu, a)

mod = SourceModule("""
  __global__ void doublify(float *a)
  {
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
  }
  """)
func = mod.get_function("doublify")
func(a_gpu, block=(4, 4, 1))

a_doubled = numpy.empty_like(a)
cuda.memcpy_dtoh(a_doubled, a_gpu)
print(a_doubled)
print(a)
assert (a_doubled == 2 * a).all()

# InOut: copied to the device and back around the launch
b = a.copy()
func(cuda.InOut(b), block=(4, 4, 1))
assert (b == 2 * a).all()

# prepared invocation
func.prepare("P")
grid = (1, 1)
block = (4, 4, 1)
func.prepared_call(grid, block, a_gpu)
cuda.memcpy_dtoh(a_doubled, a_gpu)
assert (a_doubled == 4 * a).all()

# gpuarray
import kiln.pycuda.gpuarray as gpuarray
a_gpu = gpuarray.to_gpu(numpy.random.randn(4, 4).astype(numpy.float32))
a_doubled = (2 * a_gpu).get()
print(a_doubled)
print(a_gpu)
print("doublify: ok")
