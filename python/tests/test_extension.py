"""The kiln._kiln extension itself: errors carry Kiln's status and
message, lifetimes are Python's, buffers and views, streams and events,
OpenCL C programs, arrays and generators; each against NumPy on random
inputs."""
import gc
import os
import threading

import numpy as np
import pytest

import kiln


def test_errors_carry_status_and_message(kiln_context):
    with pytest.raises(kiln.BuildError) as info:
        kiln.Program(kiln_context, "__kernel void broken(__global float *x) "
                                   "{ x[0] = undefined_name; }")
    error = info.value
    assert isinstance(error, kiln.KilnError)
    assert error.status_name == "KILN_ERR_BUILD"
    assert error.status == 14
    assert "undefined_name" in error.message
    assert str(error).startswith("KILN_ERR_BUILD: ")

    with pytest.raises(kiln.LogicError) as info:
        kiln.Buffer(kiln_context, 16).write(np.zeros(8, np.float32), 4)
    assert info.value.status_name == "KILN_ERR_OUT_OF_BOUNDS"
    assert "outside the buffer of 16 bytes" in info.value.message

    with pytest.raises(kiln.LogicError) as info:
        kiln.Buffer(kiln_context, 0)
    assert info.value.status_name == "KILN_ERR_INVALID_SIZE"

    with pytest.raises(kiln.BackendError) as info:
        kiln.Context("no-such-backend")
    assert info.value.status_name == "KILN_ERR_BACKEND_UNKNOWN"


def test_cuda_c_the_backend_cannot_translate_is_refused(kiln_context):
    if kiln_context.backend == "cuda":
        pytest.skip("native CUDA C compiles this")
    with pytest.raises(kiln.BuildError) as info:
        kiln.Program(kiln_context, """
        __global__ void k(float *x) {
            asm("mov.u32 %0, 0;" : "=r"(x[0]));
        }""")
    assert info.value.status_name == "KILN_ERR_TRANSLATION"
    assert "asm" in info.value.message


def test_buffers_round_trip_at_offsets(kiln_context, rng):
    data = rng.integers(0, 256, 4096, dtype=np.uint8)
    buffer = kiln.Buffer(kiln_context, data.nbytes)
    buffer.write(data)
    part = np.empty(100, np.uint8)
    buffer.read(part, 1000)
    np.testing.assert_array_equal(part, data[1000:1100])
    view = buffer.view(13, 200)
    assert view.size == 200 and view.offset == 13
    assert int(view) == int(buffer) + 13
    new = rng.integers(0, 256, 200, dtype=np.uint8)
    view.write(new)
    data[13:213] = new
    back = np.empty_like(data)
    buffer.read(back)
    np.testing.assert_array_equal(back, data)
    other = kiln.Buffer(kiln_context, 64)
    other.copy_from(buffer, 64, 0, 7)
    small = np.empty(64, np.uint8)
    other.read(small)
    np.testing.assert_array_equal(small, data[7:71])
    other.fill(np.uint32(0xDEADBEEF))
    other.read(small)
    np.testing.assert_array_equal(small.view(np.uint32), 0xDEADBEEF)


def test_addresses_resolve_to_views(kiln_context):
    buffer = kiln.Buffer(kiln_context, 1024)
    assert kiln.resolve_address(int(buffer) + 100) == (100, 924)
    view = kiln.buffer_at(int(buffer) + 100)
    assert view.size == 924
    with pytest.raises(ValueError):
        kiln.resolve_address(int(buffer) + 1024)
    address = int(buffer)
    del buffer, view
    gc.collect()
    with pytest.raises(ValueError):
        kiln.resolve_address(address)


def test_objects_outlive_what_made_them(rng):
    context = kiln.Context()
    data = rng.standard_normal(2048).astype(np.float32)
    buffer = kiln.Buffer(context, data.nbytes)
    buffer.write(data)
    program = kiln.Program(context, "__kernel void twice(__global float *x) "
                                    "{ x[get_global_id(0)] *= 2; }")
    kernel = kiln.Kernel(program, "twice")
    # 4096 bytes in: a sub-buffer's start on every OpenCL device (NVIDIA's
    # align them to 512 bytes, PoCL to 128)
    view = buffer.view(4096, 512)
    del context, program, buffer
    gc.collect()
    kernel.launch((1,), (128,), [view])
    back = np.empty(128, np.float32)
    view.read(back)
    np.testing.assert_array_equal(back, 2 * data[1024:1152])


def test_free_releases_now_and_later_use_is_an_error(kiln_context):
    buffer = kiln.Buffer(kiln_context, 64)
    buffer.free()
    assert buffer.freed
    with pytest.raises(ValueError, match="freed"):
        buffer.write(np.zeros(4, np.float32))
    buffer.free()  # twice is harmless


def test_opencl_c_launch_with_typed_scalars(kiln_context, rng):
    program = kiln.Program(kiln_context, """
    __kernel void axpb(__global float *y, __global const float *x, float a,
                       int b, uint n)
    {
        size_t i = get_global_id(0);
        if (i < n) y[i] = a * x[i] + b;
    }""")
    kernel = program.kernel("axpb")
    assert [p["code"] for p in kernel.params] == ["P", "P", "f", "i", "I"]
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = np.zeros_like(x)
    kernel.launch((8,), (128,), [kiln.Out(y), kiln.In(x), 1.5, 3, n])
    np.testing.assert_allclose(y, np.float32(1.5) * x + 3, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="argument 3: an integer is needed"):
        kernel.launch((8,), (128,), [kiln.Out(y), kiln.In(x), 1.5, 3.5, n])
    with pytest.raises(TypeError, match="takes 5 arguments, 4 given"):
        kernel.launch((8,), (128,), [kiln.Out(y), kiln.In(x), 1.5, 3])
    ms = kernel.launch((8,), (128,), [kiln.Out(y), kiln.In(x), 1.5, 3, n],
                       time=True)
    assert ms >= 0


def test_streams_events_and_page_locked_memory(kiln_context, rng):
    stream = kiln.Stream(kiln_context)
    host = kiln.HostMemory(kiln_context, 4096 * 4)
    data = np.frombuffer(host, np.float32)
    data[:] = rng.standard_normal(4096)
    buffer = kiln.Buffer(kiln_context, 4096 * 4)
    start, end = kiln.Event(kiln_context), kiln.Event(kiln_context)
    start.record(stream)
    buffer.write(host, 0, stream, False)
    out = np.empty(4096, np.float32)
    buffer.read(out, 0, stream, False)
    end.record(stream)
    stream.synchronize()
    assert end.query()
    assert start.elapsed(end) >= 0
    np.testing.assert_array_equal(out, data)


def test_the_gil_is_released_while_waiting(kiln_context):
    """Another Python thread runs while one thread builds a program."""
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        # a source no cache holds: a fresh compile
        salt = int.from_bytes(os.urandom(4), "little")
        kiln.Program(kiln_context, "__kernel void fresh(__global uint *x) "
                                   "{ x[0] = %du; }" % salt)
    finally:
        stop.set()
        thread.join()
    assert len(ticks) > 1


def test_arrays_follow_numpy(kiln_context, rng):
    a = rng.standard_normal((6, 7)).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float64)
    ka = kiln.array_from_host(kiln_context, kiln.dtype_code(a.dtype), a.shape, a)
    kb = kiln.array_from_host(kiln_context, kiln.dtype_code(b.dtype), b.shape, b)
    total = ka.binary(kiln.OP_ADD, kb)
    assert kiln.code_dtype(total.dtype) == np.float64
    out = np.empty(total.shape, np.float64)
    total.to_host(out)
    np.testing.assert_allclose(out, a + b, rtol=1e-12)
    column_sums = ka.reduce(kiln.REDUCE_SUM, 0)
    sums = np.empty(7, np.float32)
    column_sums.to_host(sums)
    np.testing.assert_allclose(sums, a.sum(axis=0), rtol=1e-5)
    product = ka.matmul(kiln.array_from_host(kiln_context, 8, (7, 3),
                                             np.ones((7, 3), np.float32)))
    result = np.empty((6, 3), np.float32)
    product.to_host(result)
    np.testing.assert_allclose(result, a @ np.ones((7, 3), np.float32),
                               rtol=1e-5)


def test_generators_take_views(kiln_context, rng):
    x = rng.standard_normal(1001).astype(np.float32)
    buffer = kiln.Buffer(kiln_context, x.nbytes)
    buffer.write(x)
    view = buffer.view(4)  # one float in: no OpenCL sub-buffer starts there
    square = kiln.Elementwise(kiln_context, "__global float *x",
                              "x[i] = x[i] * x[i]", "P")
    square.launch(1000, [view])
    total = kiln.Reduction(kiln_context, "float", "0", "a + b", None,
                           "__global const float *x", "P")
    result = kiln.Buffer(kiln_context, 4)
    total.run(1000, [view], result)
    back = np.empty(1001, np.float32)
    buffer.read(back)
    expected = x.copy()
    expected[1:] **= 2
    np.testing.assert_allclose(back, expected, rtol=1e-6)
    value = np.empty(1, np.float32)
    result.read(value)
    assert value[0] == pytest.approx(float(expected[1:].sum()), rel=1e-5)
