"""PyCUDA's tutorial (documentation's "Tutorial" page) as its users write
it, unchanged but for the import lines, checked against NumPy on random
inputs: the doublify kernel through mem_alloc/memcpy, InOut, prepared
calls, gpuarray, and ElementwiseKernel/ReductionKernel from the
documentation's examples; and the order of CUDA's legacy default stream
that PyCUDA's scripts and tests rely on."""
import numpy
import numpy as np
import pytest

import kiln.pycuda.driver as cuda
from kiln.pycuda.compiler import SourceModule

DOUBLIFY = """
  __global__ void doublify(float *a)
  {
    int idx = threadIdx.x + threadIdx.y*4;
    a[idx] *= 2;
  }
  """


def test_doublify_through_mem_alloc(context, rng):
    a = rng.standard_normal((4, 4))
    a = a.astype(numpy.float32)
    a_gpu = cuda.mem_alloc(a.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    mod = SourceModule(DOUBLIFY)
    func = mod.get_function("doublify")
    func(a_gpu, block=(4, 4, 1))
    a_doubled = numpy.empty_like(a)
    cuda.memcpy_dtoh(a_doubled, a_gpu)
    np.testing.assert_array_equal(a_doubled, 2 * a)


def test_doublify_inout_and_prepared(context, rng):
    a = rng.standard_normal((4, 4)).astype(numpy.float32)
    original = a.copy()
    func = SourceModule(DOUBLIFY).get_function("doublify")
    func(cuda.InOut(a), block=(4, 4, 1))
    np.testing.assert_array_equal(a, 2 * original)

    a_gpu = cuda.to_device(a)
    func.prepare("P")
    grid = (1, 1)
    block = (4, 4, 1)
    func.prepared_call(grid, block, a_gpu)
    np.testing.assert_array_equal(cuda.from_device_like(a_gpu, a), 4 * original)
    seconds = func.prepared_timed_call(grid, block, a_gpu)()
    assert seconds >= 0
    np.testing.assert_array_equal(cuda.from_device_like(a_gpu, a), 8 * original)


def test_doublify_through_gpuarray(context, rng):
    import kiln.pycuda.gpuarray as gpuarray
    a = rng.standard_normal((4, 4)).astype(numpy.float32)
    a_gpu = gpuarray.to_gpu(a)
    a_doubled = (2 * a_gpu).get()
    np.testing.assert_array_equal(a_doubled, 2 * a)
    assert "[[" in str(a_gpu)


def test_pointer_arithmetic_reaches_the_right_element(context, rng):
    """int(a_gpu) + offset as a pointer argument: on OpenCL a view of the
    allocation, resolved from Kiln's address."""
    a = rng.standard_normal(64).astype(np.float32)
    a_gpu = cuda.to_device(a)
    func = SourceModule("""
    __global__ void triple(float *a) { a[threadIdx.x] *= 3; }
    """).get_function("triple")
    func(np.intp(int(a_gpu) + 5 * 4), block=(10, 1, 1))
    expected = a.copy()
    expected[5:15] *= 3
    np.testing.assert_array_equal(cuda.from_device_like(a_gpu, a), expected)
    with pytest.raises(ValueError, match="not inside any live Kiln buffer"):
        func(np.intp(int(a_gpu) + a.nbytes + 8), block=(1, 1, 1))


def test_elementwise_kernel_of_the_documentation(context, rng):
    import kiln.pycuda.gpuarray as gpuarray
    from kiln.pycuda.curandom import rand as curand
    from kiln.pycuda.elementwise import ElementwiseKernel
    a_gpu = curand((50,))
    b_gpu = curand((50,))
    lin_comb = ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z",
        "z[i] = my_f(a*x[i], b*y[i])",
        "linear_combination",
        preamble="""
        __device__ float my_f(float x, float y)
        {
          return sin(x*y);
        }
        """)
    c_gpu = gpuarray.empty_like(a_gpu)
    lin_comb(5, a_gpu, 6, b_gpu, c_gpu)
    a, b = a_gpu.get(), b_gpu.get()
    np.testing.assert_allclose(c_gpu.get(), np.sin((5 * a) * (6 * b)),
                               rtol=1e-5, atol=1e-6)


def test_reduction_kernel_of_the_documentation(context, rng):
    from kiln.pycuda import gpuarray
    from kiln.pycuda.reduction import ReductionKernel
    a = gpuarray.arange(400, dtype=numpy.float32)
    b = gpuarray.arange(400, dtype=numpy.float32)
    krnl = ReductionKernel(numpy.float32, neutral="0",
                           reduce_expr="a+b", map_expr="x[i]*y[i]",
                           arguments="float *x, float *y")
    my_dot_prod = krnl(a, b).get()
    x = np.arange(400, dtype=np.float64)
    assert my_dot_prod == pytest.approx(float(x @ x), rel=1e-6)


def test_shared_memory_and_a_grid(context, rng):
    """A dynamic shared-memory reversal of each block, on a grid."""
    n, block = 1024, 128
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    func = SourceModule("""
    extern __shared__ int tile[];
    __global__ void reverse_blocks(int *out, const int *in, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) tile[threadIdx.x] = in[i];
        __syncthreads();
        if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
    }
    """).get_function("reverse_blocks")
    out = np.zeros_like(a)
    func(cuda.Out(out), cuda.In(a), np.int32(n), block=(block, 1, 1),
         grid=(n // block, 1), shared=block * 4)
    np.testing.assert_array_equal(out, a.reshape(-1, block)[:, ::-1].ravel())


def test_blocking_reads_wait_for_every_stream(context, rng):
    # CUDA's legacy default stream orders PyCUDA's get(), memcpy_dtoh and
    # from_device after the work of every stream (test_cumath's
    # test_unary_func_kwargs reads a result made with stream= this way)
    from kiln.pycuda import cumath, gpuarray
    host = rng.uniform(-3, 3, 1 << 20).astype(np.float32)
    expected = np.exp(host)
    for _ in range(4):
        stream = cuda.Stream()
        result = cumath.exp(gpuarray.to_gpu(host), stream=stream)
        np.testing.assert_allclose(result.get(), expected, rtol=1e-5)
        result = cumath.exp(gpuarray.to_gpu(host), stream=stream)
        copied = np.empty_like(host)
        cuda.memcpy_dtoh(copied, result.gpudata)
        np.testing.assert_allclose(copied, expected, rtol=1e-5)
        result = cumath.exp(gpuarray.to_gpu(host), stream=stream)
        np.testing.assert_allclose(
            cuda.from_device(result.gpudata, host.shape, host.dtype),
            expected, rtol=1e-5)
