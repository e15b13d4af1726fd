#!/usr/bin/env python3
"""kiln.pycuda and kiln.cupy next to PyCUDA and CuPy, in one process on one
GPU (issue 27, point 7).

  launch host cost: the host time of one asynchronous launch of SAXPY over
      4096 floats (four arguments), as PyCUDA's Function.__call__
      (block=, grid=), as prepared_call, and as CuPy's RawKernel call
      (CuPy's and kiln.cupy's);
      batches of launches timed on the host clock, the queue drained
      (untimed) after each batch;
  sum of squares over 16 M float32: gpuarray.dot(x, x) and
      gpuarray.sum(x * x) (PyCUDA's two ways), and CuPy's (x * x).sum(),
      each on kiln.pycuda's GPUArray too; CuPy's (x * x).sum() and
      cupy.sum(x * x) on CuPy and on kiln.cupy (where x * x is reduced in
      one pass, never written: kiln_array_reduce_binary), and
      cupy.square(x).sum() on kiln.cupy (square made, then summed: two
      passes, as CuPy's own); wall time of the call and the wait for it
      (what a script sees), after a warm-up.
Every result is checked against float64 first.

Usage: python3 bench/python_bench.py [--json FILE]
(KILN_BENCH_QUICK=1: small sizes, a smoke test on PoCL)
The modules that are not importable (pycuda, cupy) are left out of the
table, saying so.  KILN_BACKEND picks kiln's backend (cuda by default here
when there is a device).  The C side of "a launch from Python at most
1.5 us more than from C" is bench/bench_launch's kiln async launch of the
same SAXPY, run beside this script (/work/gpu-requests/python.sh).
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

SAXPY = r"""
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""
LAUNCH_N = 4096
QUICK = os.environ.get("KILN_BENCH_QUICK", "0") == "1"  # PoCL, a smoke test
SUM_N = (1 if QUICK else 16) * 1024 * 1024
BATCHES, PER_BATCH = (3, 200) if QUICK else (20, 5000)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def per_launch_us(launch, synchronize, batches=BATCHES, per_batch=PER_BATCH):
    """Median host microseconds of one launch over batches."""
    for _ in range(200):
        launch()
    synchronize()
    times = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(per_batch):
            launch()
        times.append((time.perf_counter() - start) / per_batch * 1e6)
        synchronize()
    return statistics.median(times), min(times), max(times)


def per_call_us(call, synchronize, repeat=50):
    """Median wall microseconds of call() and the wait for it."""
    for _ in range(5):
        call()
    synchronize()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        synchronize()
        times.append((time.perf_counter() - start) * 1e6)
    return statistics.median(times), min(times), max(times)


class Side:
    """One implementation of PyCUDA's API (kiln.pycuda or pycuda)."""

    def __init__(self, name, driver, compiler, gpuarray):
        self.name, self.driver = name, driver
        self.compiler, self.gpuarray = compiler, gpuarray

    def launches(self, results):
        cuda = self.driver
        module = self.compiler.SourceModule(SAXPY, no_extern_c=True)
        saxpy = module.get_function("saxpy")
        x = np.random.default_rng(1).standard_normal(LAUNCH_N).astype(np.float32)
        y = np.random.default_rng(2).standard_normal(LAUNCH_N).astype(np.float32)
        x_gpu, y_gpu = cuda.to_device(x), cuda.to_device(y)
        n, a = np.int32(LAUNCH_N), np.float32(0.5)
        block, grid = (256, 1, 1), ((LAUNCH_N + 255) // 256, 1)
        saxpy(n, a, x_gpu, y_gpu, block=block, grid=grid)
        got = cuda.from_device_like(y_gpu, y)
        assert np.allclose(got, 0.5 * x.astype(np.float64) + y, rtol=1e-5), \
            f"{self.name}: SAXPY gives a wrong result"
        sync = cuda.Context.synchronize
        results[f"{self.name} Function.__call__"] = per_launch_us(
            lambda: saxpy(n, a, x_gpu, y_gpu, block=block, grid=grid), sync)
        saxpy.prepare("ifPP")
        results[f"{self.name} prepared_call"] = per_launch_us(
            lambda: saxpy.prepared_call(grid, block, LAUNCH_N, 0.5, x_gpu,
                                        y_gpu), sync)

    def sums(self, results, host):
        gpuarray = self.gpuarray
        x = gpuarray.to_gpu(host)
        expected = float(np.dot(host.astype(np.float64), host.astype(np.float64)))
        for label, call in (("gpuarray.dot(x, x)", lambda: gpuarray.dot(x, x)),
                            ("gpuarray.sum(x * x)", lambda: gpuarray.sum(x * x)),
                            ("(x * x).sum()", lambda: (x * x).sum())):
            try:
                value = float(call().get())
            except AttributeError:
                continue  # PyCUDA's GPUArray has no .sum()
            assert abs(value - expected) <= 1e-3 * expected, \
                f"{self.name} {label}: {value} against {expected}"
            results[f"{self.name} {label}"] = per_call_us(
                call, self.driver.Context.synchronize)


def kiln_cupy_side(cp, results, host):
    """kiln.cupy's RawKernel launch and sums of squares, as CuPy's."""
    log("launches and sums: kiln.cupy")
    kernel = cp.RawKernel(SAXPY, "saxpy")
    x = cp.asarray(np.ones(LAUNCH_N, np.float32))
    y = cp.asarray(np.ones(LAUNCH_N, np.float32))
    n, a = np.int32(LAUNCH_N), np.float32(0.5)
    kernel(((LAUNCH_N + 255) // 256,), (256,), (n, a, x, y))
    assert np.allclose(y.get(), 1.5), "kiln.cupy: SAXPY gives a wrong result"
    sync = cp.cuda.runtime.deviceSynchronize
    results["kiln.cupy RawKernel call"] = per_launch_us(
        lambda: kernel(((LAUNCH_N + 255) // 256,), (256,), (n, a, x, y)),
        sync)
    xs = cp.asarray(host)
    expected = float(np.dot(host.astype(np.float64), host.astype(np.float64)))
    for label, call in (("(x * x).sum()", lambda: (xs * xs).sum()),
                        ("cupy.sum(x * x)", lambda: cp.sum(xs * xs)),
                        ("cupy.square(x).sum() (two passes)",
                         lambda: cp.square(xs).sum())):
        value = float(call())
        assert abs(value - expected) <= 1e-3 * expected, \
            f"kiln.cupy {label}: {value} against {expected}"
        results[f"kiln.cupy {label}"] = per_call_us(call, sync)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    args = parser.parse_args()
    results, missing = {}, []
    host = np.random.default_rng(3).standard_normal(SUM_N).astype(np.float32)

    import kiln.pycuda.autoinit  # noqa: F401
    import kiln.pycuda.compiler
    import kiln.pycuda.driver
    import kiln.pycuda.gpuarray
    sides = [Side("kiln.pycuda", kiln.pycuda.driver, kiln.pycuda.compiler,
                  kiln.pycuda.gpuarray)]
    log("kiln.pycuda on", kiln.pycuda.driver.Context.get_device().name(),
        f"({kiln.pycuda.autoinit.context.kiln_context.backend})")
    try:
        import pycuda.autoinit  # noqa: F401
        import pycuda.compiler
        import pycuda.driver
        import pycuda.gpuarray
        sides.append(Side("pycuda", pycuda.driver, pycuda.compiler,
                          pycuda.gpuarray))
    except ImportError as error:
        missing.append(f"pycuda ({error})")
    for side in sides:
        log("launches:", side.name)
        side.launches(results)
        log("sums:", side.name)
        side.sums(results, host)
    import kiln.cupy as kcp
    kiln_cupy_side(kcp, results, host)
    try:
        import cupy
        kernel = cupy.RawKernel(SAXPY, "saxpy")
        x = cupy.asarray(np.ones(LAUNCH_N, np.float32))
        y = cupy.asarray(np.ones(LAUNCH_N, np.float32))
        n, a = np.int32(LAUNCH_N), np.float32(0.5)
        sync = cupy.cuda.runtime.deviceSynchronize
        results["cupy RawKernel call"] = per_launch_us(
            lambda: kernel(((LAUNCH_N + 255) // 256,), (256,), (n, a, x, y)),
            sync)
        xs = cupy.asarray(host)
        expected = float(np.dot(host.astype(np.float64), host.astype(np.float64)))
        value = float((xs * xs).sum())
        assert abs(value - expected) <= 1e-3 * expected
        results["cupy (x * x).sum()"] = per_call_us(lambda: (xs * xs).sum(),
                                                    sync)
        results["cupy cupy.sum(x * x)"] = per_call_us(
            lambda: cupy.sum(xs * xs), sync)
    except ImportError as error:
        missing.append(f"cupy ({error})")

    print("| what | median us | min | max |")
    print("| --- | ---: | ---: | ---: |")
    for name, (median, low, high) in results.items():
        print(f"| {name} | {median:.2f} | {low:.2f} | {high:.2f} |")
    for name in missing:
        print(f"\nnot measured: {name}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"results": results, "missing": missing}, out, indent=1)


if __name__ == "__main__":
    main()
