#!/usr/bin/env python3
"""CuPy doing the work of Kiln's benchmarks, for comparison on the same GPU.

  sum of squares over 16 M floats: cupy.sum(x * x), and a cupy.RawModule of
      bench_kernels' own CUDA C (one pass), rotating over three inputs;
  SAXPY over 16 M floats: a cupy.ElementwiseKernel, and the RawModule's;
  SGEMM 2048 x 2048: cupy.matmul (cuBLAS: the vendor library's ceiling), and
      the RawModule's tiled kernel;
  device copy (bytes read + written), the reference for the fractions;
  launch overhead of a RawKernel: the host cost of an asynchronous launch
      (batches, 100,000 launches in all) and launch + synchronize, for an
      empty kernel and SAXPY over 4096 floats.

Device times come from cupy.cuda.Event around back-to-back runs (one
untimed run queued first keeps the GPU busy); host times from
time.perf_counter.  Medians with p10-p90 over many repetitions, after a
warm-up.  Every result is checked against float64 first.  The CUDA C text
is read from bench_kernels_source.h beside this file, so CuPy compiles
exactly what Kiln's benchmarks compile.

Usage: python3 bench/cupy_compare.py   (KILN_BENCH_QUICK=1: smaller sizes)
Prints a Markdown section on stdout; progress on stderr.
"""
import ast
import os
import re
import sys
import time

import numpy as np

try:
    import cupy as cp
except ImportError as error:  # pragma: no cover - depends on the machine
    print("\n## cupy_compare: skipped\n\nCuPy is not importable here: %s\n"
          % error)
    sys.exit(0)

QUICK = os.environ.get("KILN_BENCH_QUICK", "0") not in ("", "0")
REDUCE_THREADS = 256
SGEMM_TILE = 128
SGEMM_BLOCK = 16
INPUT_SETS = 3


def progress(text):
    print("  .. " + text, file=sys.stderr, flush=True)


def cuda_source():
    """The CUDA C text of bench_kernels_source.h (one literal per line)."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "bench_kernels_source.h")) as header:
        text = header.read()
    block = text.split("/* BEGIN cuda_source */")[1]
    block = block.split("/* END cuda_source */")[0]
    literals = re.findall(r'"((?:[^"\\]|\\.)*)"', block)
    return "".join(ast.literal_eval('"%s"' % literal) for literal in literals)


# ---- statistics and text ---------------------------------------------------

def stats(samples):
    ordered = sorted(samples)

    def percentile(p):
        position = p * (len(ordered) - 1)
        low = int(position)
        if low + 1 >= len(ordered):
            return ordered[-1]
        return ordered[low] + (position - low) * (ordered[low + 1] - ordered[low])

    return {"count": len(ordered), "p10": percentile(0.1),
            "median": percentile(0.5), "p90": percentile(0.9)}


def number(value):
    magnitude = abs(value)
    if magnitude >= 100 or magnitude == 0:
        return "%.0f" % value
    if magnitude >= 10:
        return "%.1f" % value
    if magnitude >= 1:
        return "%.2f" % value
    return "%.3f" % value


def format_time(s):
    median = s["median"]
    if median < 1e-6:
        scale, unit = 1e9, "ns"
    elif median < 1e-3:
        scale, unit = 1e6, "µs"
    elif median < 1:
        scale, unit = 1e3, "ms"
    else:
        scale, unit = 1.0, "s"
    return "%s %s (%s–%s)" % (number(median * scale), unit,
                              number(s["p10"] * scale), number(s["p90"] * scale))


def format_rate(s, units, unit):
    return "%s %s (%s–%s)" % (number(units / s["median"]), unit,
                              number(units / s["p90"]), number(units / s["p10"]))


def row(*cells):
    print("| " + " | ".join(cells) + " |", flush=True)


# ---- measurement -------------------------------------------------------------

def device_time(run, iterations, minimum, maximum, seconds, warmup=2):
    """Seconds per run from events around `iterations` back-to-back runs."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(warmup):
        run()
    cp.cuda.Device().synchronize()
    samples = []
    began = time.perf_counter()
    while len(samples) < maximum and (
            len(samples) < minimum or time.perf_counter() - began < seconds):
        run()
        start.record()
        for _ in range(iterations):
            run()
        end.record()
        end.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, end) * 1e-3 / iterations)
    return stats(samples)


def relative_error(got, expected):
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if np.isnan(got).any():
        return float("inf")
    return float(np.linalg.norm(got - expected) / np.linalg.norm(expected))


def check(what, error, limit):
    if not error < limit:
        sys.exit("cupy_compare: %s: relative error %.3g against float64"
                 % (what, error))


def main():
    device = cp.cuda.Device()
    properties = cp.cuda.runtime.getDeviceProperties(device.id)
    name = properties["name"]
    name = name.decode() if isinstance(name, bytes) else name
    sms = device.attributes["MultiProcessorCount"]
    print("\n## cupy_compare: the same work through CuPy %s\n" % cp.__version__)
    print("Device **%s** (%d multiprocessors)%s. Cells: median (p10–p90). "
          "Reference: the brief's H100 numbers.\n"
          % (name, sms, "; quick mode" if QUICK else ""))
    print("| what | size | CuPy | rate | of copy | reference (H100, brief) |")
    print("| --- | --- | ---: | ---: | ---: | --- |", flush=True)

    n = (1 << 20) if QUICK else (16 << 20)
    dim = 512 if QUICK else 2048
    rng = cp.random.default_rng(20261122)
    module = cp.RawModule(code=cuda_source())
    sumsq_kernel = module.get_function("sumsq")
    saxpy_kernel = module.get_function("saxpy")
    sgemm_kernel = module.get_function("sgemm")

    # -- device copy ------------------------------------------------------------
    progress("device copy")
    copy_bytes = (32 << 20) if QUICK else (256 << 20)
    source = rng.random(copy_bytes // 4, dtype=cp.float32)
    target = cp.empty_like(source)
    copy_stats = device_time(
        lambda: target.data.copy_from_device_async(source.data, copy_bytes),
        10, 20, 200, 1.5)
    if not bool((target == source).all()):
        sys.exit("cupy_compare: the device copy is wrong")
    copy_bandwidth = 2 * copy_bytes / copy_stats["median"]
    row("device copy (bytes read + written)", "%d MiB" % (copy_bytes >> 20),
        format_time(copy_stats), format_rate(copy_stats, 2 * copy_bytes / 1e9,
                                             "GB/s"), "100%",
        "3.0 TB/s (raw driver API)")
    del source, target

    def fraction(s, nbytes):
        return "%.0f%%" % (100.0 * nbytes / s["median"] / copy_bandwidth)

    # -- sum of squares -------------------------------------------------------------
    progress("sum of squares")
    xs = [rng.random(n, dtype=cp.float32) * 2 - 1 for _ in range(INPUT_SETS)]
    expected = [float(cp.sum(x.astype(cp.float64) ** 2)) for x in xs]
    groups = sms * 4  # as bench_kernels: 4 blocks of 256 per multiprocessor
    partials = cp.empty(groups, dtype=cp.float32)
    done = cp.zeros(1, dtype=cp.uint32)  # finished blocks, zero between runs
    result = cp.empty(1, dtype=cp.float32)
    counter = [0]

    def next_x():
        counter[0] += 1
        return xs[counter[0] % INPUT_SETS]

    def raw_reduce(x):
        sumsq_kernel((groups,), (REDUCE_THREADS,),
                     (x, np.uint32(n // 4), partials, done, result))

    for index, x in enumerate(xs):
        check("cupy.sum(x*x)", relative_error(float(cp.sum(x * x)),
                                              expected[index]), 1e-4)
        result.fill(np.nan)
        raw_reduce(x)
        check("RawModule sum of squares",
              relative_error(float(result[0]), expected[index]), 1e-4)
    nbytes = 4 * n
    size = "%d M floats" % (n >> 20)
    def cupy_reduce():
        x = next_x()
        return cp.sum(x * x)

    s = device_time(cupy_reduce, 20, 20, 300, 2.0)
    row("sum of squares, cupy.sum(x*x)", size, format_time(s),
        format_rate(s, nbytes / 1e9, "GB/s"), fraction(s, nbytes), "124 µs")
    s = device_time(lambda: raw_reduce(next_x()), 20, 20, 300, 2.0)
    row("sum of squares, RawModule of Kiln's CUDA C", size, format_time(s),
        format_rate(s, nbytes / 1e9, "GB/s"), fraction(s, nbytes),
        "≤ 25 µs (good kernel)")
    del xs

    # -- SAXPY ---------------------------------------------------------------------
    progress("SAXPY")
    a = np.float32(0.75)
    x = rng.random(n, dtype=cp.float32) * 2 - 1
    y0 = rng.random(n, dtype=cp.float32) * 2 - 1
    saxpy_elementwise = cp.ElementwiseKernel(
        "float32 a, float32 x", "float32 y", "y = a * x + y", "bench_saxpy")
    expected_y = a.astype(np.float64) * x.astype(cp.float64) + y0
    y = y0.copy()
    saxpy_elementwise(a, x, y)
    check("ElementwiseKernel SAXPY", relative_error(y.get(), expected_y.get()),
          1e-6)
    y = y0.copy()
    saxpy_kernel((n // 256,), (256,), (np.uint32(n), a, x, y))
    check("RawModule SAXPY", relative_error(y.get(), expected_y.get()), 1e-6)
    nbytes = 12 * n
    s = device_time(lambda: saxpy_elementwise(a, x, y), 10, 20, 300, 2.0)
    row("SAXPY, ElementwiseKernel y = a*x + y", size, format_time(s),
        format_rate(s, nbytes / 1e9, "GB/s"), fraction(s, nbytes), "—")
    s = device_time(
        lambda: saxpy_kernel((n // 256,), (256,), (np.uint32(n), a, x, y)),
        10, 20, 300, 2.0)
    row("SAXPY, RawModule of Kiln's CUDA C", size, format_time(s),
        format_rate(s, nbytes / 1e9, "GB/s"), fraction(s, nbytes), "—")
    del x, y, y0, expected_y

    # -- SGEMM ---------------------------------------------------------------------
    progress("SGEMM")
    A = rng.random((dim, dim), dtype=cp.float32) * 2 - 1
    B = rng.random((dim, dim), dtype=cp.float32) * 2 - 1
    C = cp.empty((dim, dim), dtype=cp.float32)
    picks = np.random.default_rng(7).integers(0, dim, size=(512, 2))
    rows, cols = cp.asarray(picks[:, 0]), cp.asarray(picks[:, 1])
    A64, B64 = A.astype(cp.float64), B.astype(cp.float64)
    expected_c = cp.asnumpy(cp.sum(A64[rows, :] * B64[:, cols].T, axis=1))

    def sampled(matrix):
        return cp.asnumpy(matrix[rows, cols])

    def raw_sgemm():
        blocks = dim // SGEMM_TILE
        sgemm_kernel((blocks, blocks), (SGEMM_BLOCK, SGEMM_BLOCK),
                     (np.uint32(dim), np.uint32(dim), A, B, C))

    C.fill(np.nan)
    cp.matmul(A, B, out=C)
    check("cupy.matmul", relative_error(sampled(C), expected_c), 1e-4)
    C.fill(np.nan)
    raw_sgemm()
    if bool(cp.isnan(C).any()):
        sys.exit("cupy_compare: the RawModule SGEMM left entries unwritten")
    check("RawModule SGEMM", relative_error(sampled(C), expected_c), 1e-4)
    flops = 2.0 * dim ** 3
    size = "%d × %d" % (dim, dim)
    s = device_time(lambda: cp.matmul(A, B, out=C), 3, 10, 200, 3.0)
    row("SGEMM, cupy.matmul (cuBLAS)", size, format_time(s),
        format_rate(s, flops / 1e9, "GFLOP/s"), "—", "—")
    s = device_time(raw_sgemm, 3, 10, 200, 3.0)
    row("SGEMM, RawModule of Kiln's CUDA C", size, format_time(s),
        format_rate(s, flops / 1e9, "GFLOP/s"), "—", "—")
    del A, B, C, A64, B64

    # -- the array layer's work (bench/bench_array) -------------------------------------
    progress("array layer: ReductionKernel, random numbers, axis sums")
    x = rng.random(n, dtype=cp.float32) * 2 - 1
    sumsq_reduction = cp.ReductionKernel(
        "float32 x", "float32 y", "x * x", "a + b", "y = a", "0",
        "bench_sumsq")
    check("ReductionKernel sum of squares",
          relative_error(float(sumsq_reduction(x)),
                         float(cp.sum(x.astype(cp.float64) ** 2))), 1e-4)
    nbytes = 4 * n
    size = "%d M floats" % (n >> 20)
    s = device_time(lambda: sumsq_reduction(x), 20, 20, 300, 2.0)
    row("sum of squares, ReductionKernel (map x*x, reduce a+b)", size,
        format_time(s), format_rate(s, nbytes / 1e9, "GB/s"),
        fraction(s, nbytes), "Kiln's generator: >= 85% of copy")
    del x
    random_n = (4 << 20) if QUICK else (64 << 20)
    target = cp.empty(random_n, dtype=cp.float32)
    fill_stats = device_time(lambda: target.fill(0), 10, 20, 200, 1.5)
    write_bandwidth = 4 * random_n / fill_stats["median"]
    row("write bandwidth, ndarray.fill(0)", "%d M floats" % (random_n >> 20),
        format_time(fill_stats),
        format_rate(fill_stats, 4 * random_n / 1e9, "GB/s"), "—",
        "the reference for random numbers")
    sample = cp.random.rand(random_n, dtype=cp.float32)
    if not (0 <= float(sample.min()) and float(sample.max()) < 1):
        sys.exit("cupy_compare: cupy.random.rand out of [0, 1)")
    del sample
    s = device_time(lambda: cp.random.rand(random_n, dtype=cp.float32), 10,
                    20, 200, 1.5)
    row("random uniform, cupy.random.rand(float32)",
        "%d M floats" % (random_n >> 20), format_time(s),
        format_rate(s, 4 * random_n / 1e9, "GB/s"),
        "%.0f%% of write" % (100.0 * 4 * random_n / s["median"] /
                             write_bandwidth),
        "Kiln: >= 70% of write")
    del target
    square = (1024 if QUICK else 4096)
    M = rng.random((square, square), dtype=cp.float32)
    for axis in (0, 1):
        got = cp.asnumpy(cp.sum(M, axis=axis))
        want = cp.asnumpy(cp.sum(M.astype(cp.float64), axis=axis))
        check("cupy.sum(axis=%d)" % axis, relative_error(got, want), 1e-5)
        s = device_time(lambda: cp.sum(M, axis=axis), 20, 20, 300, 1.5)
        row("sum along axis %d, cupy.sum(M, axis=%d)" % (axis, axis),
            "%d × %d" % (square, square), format_time(s),
            format_rate(s, 4 * square * square / 1e9, "GB/s"),
            fraction(s, 4 * square * square), "Kiln: >= 70% of copy")
    del M

    # -- launch overhead ------------------------------------------------------------
    empty_kernel = cp.RawKernel('extern "C" __global__ void empty(void) {}',
                                "empty")
    small = 4096
    sx = rng.random(small, dtype=cp.float32)
    sy = rng.random(small, dtype=cp.float32)
    launches = {
        "empty kernel": (lambda: empty_kernel((1,), (1,), ()), "grid 1 × block 1"),
        "saxpy": (lambda: saxpy_kernel((small // 256,), (256,),
                                       (np.uint32(small), a, sx, sy)),
                  "%d floats" % small),
    }
    stream = cp.cuda.get_current_stream()
    batch, batches = (1000, 5) if QUICK else (5000, 20)
    for label, (launch, size) in launches.items():
        progress("%s: launches" % label)
        for _ in range(batch):
            launch()
        stream.synchronize()
        samples = []
        for _ in range(batches):
            began = time.perf_counter()
            for _ in range(batch):
                launch()
            samples.append((time.perf_counter() - began) / batch)
            stream.synchronize()
        s = stats(samples)
        row("%s: async launch, RawKernel" % label, size, format_time(s),
            "%.0f launches/s" % (1.0 / s["median"]), "—",
            "4.7 µs (raw driver API: 3.1 µs)")
        samples = []
        began = time.perf_counter()
        while len(samples) < 20000 and (
                len(samples) < (200 if QUICK else 1000)
                or time.perf_counter() - began < 2.0):
            start = time.perf_counter()
            launch()
            stream.synchronize()
            samples.append(time.perf_counter() - start)
        s = stats(samples)
        row("%s: launch + synchronize, RawKernel" % label, size,
            format_time(s), "—", "—", "10.7 µs (raw driver API: 8.5 µs)")

    print("\n> CuPy's own kernels and its RawModule of bench_kernels' CUDA C "
          "source; fractions compare with the device copy's read + write "
          "bandwidth measured here, %.0f GB/s. Launches: %d per kind in "
          "batches of %d, host clock.\n"
          % (copy_bandwidth / 1e9, batch * batches, batch), flush=True)


if __name__ == "__main__":
    main()
