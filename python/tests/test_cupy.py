"""kiln.cupy against NumPy on random inputs (never zeros), and CuPy's
documentation examples as its users write them: the basics tutorial, the
user-defined kernels page's RawKernel my_add, RawModule test_sum /
test_multiply, ElementwiseKernel squared_diff (and its generic and raw
forms) and ReductionKernel l2norm, unchanged but for the import line.

Dtypes are checked against NumPy 2's promotion (NEP 50, which CuPy
follows): Python numbers are weak, arrays and NumPy scalars strong.

KILN_TEST_CUPY=cupy runs the same tests against the real CuPy (on the GPU
machine: /work/gpu-requests/python.sh), which checks what they expect.
"""
import importlib
import os

import numpy as np
import pytest

cp = importlib.import_module(os.environ.get("KILN_TEST_CUPY", "kiln.cupy"))
KILN = cp.__name__ == "kiln.cupy"


def nep50(dtype, scalar):
    """The dtype of an array of `dtype` combined with a Python number."""
    dtype = np.dtype(dtype)
    if isinstance(scalar, bool):
        return dtype
    if isinstance(scalar, int):
        return np.dtype(np.int64) if dtype.kind == "b" else dtype
    return dtype if dtype.kind == "f" else np.result_type(dtype, np.float64)


def random_array(rng, shape, dtype, low=-10, high=10):
    """Random values of `dtype`, never zero (bools about half true)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        values = rng.uniform(low, high, shape)
        values[values == 0] = 1
        return values.astype(dtype)
    low = max(low, np.iinfo(dtype).min)
    values = rng.integers(low, high, shape)
    values[values == 0] = 1
    return values.astype(dtype)


def check(got, expected, rtol=1e-6):
    """got is a kiln.cupy array equal to `expected` in shape, dtype and
    values."""
    assert isinstance(got, cp.ndarray), type(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    host = got.get()
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(host, expected, rtol=rtol, atol=rtol)
    else:
        np.testing.assert_array_equal(host, expected)


# ---- the basics tutorial -----------------------------------------------------------------

def test_basics_tutorial():
    x_gpu = cp.array([1, 2, 3])
    l2_gpu = cp.linalg.norm(x_gpu)
    x_cpu = np.array([1, 2, 3])
    l2_cpu = np.linalg.norm(x_cpu)
    assert isinstance(x_gpu, cp.ndarray)
    assert float(l2_gpu) == pytest.approx(l2_cpu, rel=1e-12)

    x_cpu = np.array([1, 2, 3])
    x_gpu = cp.asarray(x_cpu)  # move the data to the current device.
    assert cp.asarray(x_gpu) is x_gpu
    x_cpu = cp.asnumpy(x_gpu)  # move the array to the host.
    x_cpu = x_gpu.get()
    np.testing.assert_array_equal(x_cpu, [1, 2, 3])

    def softplus(x):
        xp = cp.get_array_module(x)  # 'xp' is a standard usage in the community
        print("Using:", xp.__name__)
        return xp.maximum(0, x) + xp.log1p(xp.exp(-abs(x)))

    x = np.random.default_rng(7).uniform(-3, 3, 100)
    np.testing.assert_allclose(softplus(cp.asarray(x)).get(), softplus(x),
                               rtol=1e-12)

    y_cpu = np.array([4, 5, 6])
    with pytest.raises(TypeError):
        x_gpu + y_cpu
    np.testing.assert_array_equal((x_gpu + cp.asarray(y_cpu)).get(), [5, 7, 9])
    with cp.cuda.Device(0):
        assert x_gpu.device == cp.cuda.Device(0)


# ---- creation --------------------------------------------------------------------------

def test_creation_matches_numpy():
    check(cp.zeros((2, 3)), np.zeros((2, 3)))
    check(cp.ones((4,), dtype=np.int32), np.ones((4,), np.int32))
    check(cp.full((3, 2), 7), np.full((3, 2), 7))
    check(cp.full((2,), 2.5, dtype=cp.float32), np.full((2,), 2.5, np.float32))
    assert cp.empty((5, 0)).shape == (5, 0)
    check(cp.arange(10), np.arange(10))
    check(cp.arange(1.5, 7, 0.5), np.arange(1.5, 7, 0.5))
    check(cp.arange(3, 30, 4, dtype=np.int16), np.arange(3, 30, 4, np.int16))
    check(cp.linspace(-2, 3, 11), np.linspace(-2, 3, 11), 1e-12)
    check(cp.linspace(0, 1, 8, endpoint=False), np.linspace(0, 1, 8, False),
          1e-12)
    check(cp.eye(4, 6, k=1), np.eye(4, 6, k=1))
    check(cp.identity(3, dtype=np.int32), np.identity(3, np.int32))
    a = cp.arange(6, dtype=np.float32).reshape(2, 3)
    check(cp.zeros_like(a), np.zeros((2, 3), np.float32))
    check(cp.ones_like(a, dtype=np.int8), np.ones((2, 3), np.int8))
    check(cp.full_like(a, 3), np.full((2, 3), 3, np.float32))
    assert cp.empty_like(a).shape == (2, 3)
    check(cp.array([[True, False]]), np.array([[True, False]]))
    check(cp.array(np.float32(2.5)), np.array(2.5, np.float32))
    check(cp.array([1, 2], ndmin=3), np.array([1, 2], ndmin=3))


# ---- arithmetic, broadcasting, promotion ----------------------------------------------------

PAIRS = [(np.float32, np.float32), (np.int8, np.uint8), (np.int32, np.float32),
         (np.int64, np.float64), (np.bool_, np.int16), (np.float32, np.float64)]


@pytest.mark.parametrize("left, right", PAIRS)
def test_operators_broadcast_and_promote(rng, left, right):
    a_host = random_array(rng, (3, 1, 5), left, 1, 6)
    b_host = random_array(rng, (4, 1), right, 1, 6)
    a, b = cp.asarray(a_host), cp.asarray(b_host)
    for name in ("add", "multiply", "maximum", "less", "equal"):
        op = getattr(np, name)
        check(getattr(cp, name)(a, b), op(a_host, b_host))
    check(a + b, a_host + b_host)
    check(a * b, a_host * b_host)
    check(a / b, a_host / b_host)
    check(a >= b, a_host >= b_host)
    check(b != a, b_host != a_host)
    if np.dtype(left) != np.bool_:
        check(a - b, a_host - b_host)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.bool_])
def test_python_numbers_are_weak(rng, dtype):
    host = random_array(rng, (7, 3), dtype, 1, 50)
    x = cp.asarray(host)
    for scalar in (3, 2.5):
        expected = nep50(dtype, scalar)
        for got, want in ((x * scalar, host.astype(expected) * scalar),
                          (scalar + x, scalar + host.astype(expected)),
                          (x > scalar, host > scalar)):
            if want.dtype != np.bool_:
                want = want.astype(expected)
            check(got, want)
    if np.dtype(dtype).kind == "f":
        check(x ** 2, host ** 2, 1e-5)
        check(2 - x, 2 - host)
        check(1 / x, 1 / host, 1e-6)
    # NumPy scalars are strong
    strong = np.result_type(dtype, np.float64)
    check(x * np.float64(2), host.astype(strong) * 2)


def test_bool_arithmetic_and_logic(rng):
    a_host, b_host = rng.random(40) < 0.5, rng.random(40) < 0.5
    a, b = cp.asarray(a_host), cp.asarray(b_host)
    check(a + b, a_host + b_host)
    check(a * b, a_host * b_host)
    check(a & b, a_host & b_host)
    check(a | b, a_host | b_host)
    check(a ^ b, a_host ^ b_host)
    check(~a, ~a_host)
    check(a.sum(), a_host.sum())
    check(a.mean(), a_host.mean())
    with pytest.raises(TypeError):
        a - b
    f = cp.asarray(np.array([0.0, 0.25, -3.0, np.nan], np.float32))
    check(f.astype(bool), np.array([False, True, True, True]))


def test_in_place_operators_write_through_views(rng):
    host = random_array(rng, (5, 6), np.float32)
    x = cp.asarray(host)
    view = x[1:, ::2]
    view += 1
    host[1:, ::2] += 1
    x *= 2
    host *= 2
    check(x, host)
    i = cp.arange(5)
    with pytest.raises(TypeError):
        i += 0.5


def test_floor_division_and_remainder(rng):
    a_host = random_array(rng, (50,), np.int32, -100, 100)
    b_host = random_array(rng, (50,), np.int32, -9, 9)
    a, b = cp.asarray(a_host), cp.asarray(b_host)
    check(a // b, a_host // b_host)
    check(a % b, a_host % b_host)
    f_host = random_array(rng, (50,), np.float64)
    check(cp.asarray(f_host) % 3, f_host % 3, 1e-12)


# ---- indexing, views, masks -------------------------------------------------------------

def test_basic_indexing_gives_views(rng):
    host = random_array(rng, (6, 8), np.float64)
    x = cp.asarray(host)
    for key in (1, -2, (2, 3), (slice(None), 3), (slice(None, None, -1),),
                (slice(1, 5, 3), slice(None, None, -3)), (Ellipsis, 2),
                (None, slice(2, 4)), (slice(3, 3),)):
        got = x[key]
        check(got, host[key])
    assert x[2, 3].shape == () and isinstance(x[2, 3], cp.ndarray)
    check(x.T, host.T)
    check(x.transpose(1, 0)[::2], host.T[::2])
    view = x[::2, 1:3]
    view[...] = 5
    host[::2, 1:3] = 5
    check(x, host)
    x[:, 0] = cp.arange(6, dtype=np.float64)
    host[:, 0] = np.arange(6)
    x[-1] = 9
    host[-1] = 9
    check(x, host)
    check(x.T.copy().reshape(4, 12), host.T.copy().reshape(4, 12))
    check(x[::-1].ravel(), host[::-1].ravel())
    with pytest.raises(IndexError):
        x[6]


def test_boolean_masks(rng):
    host = random_array(rng, (30, 7), np.float32, -1, 1)
    x = cp.asarray(host)
    mask_host = host > 0.2
    mask = x > 0.2
    check(x[mask], host[mask_host])
    rows_host = host[:, 0] > 0
    rows = x[:, 0] > 0
    check(x[rows], host[rows_host])
    x[mask] = 0
    host[mask_host] = 0
    check(x, host)
    values = random_array(rng, (int(rows_host.sum()), 7), np.float32)
    x[rows] = cp.asarray(values)
    host[rows_host] = values
    check(x, host)
    x[x < 0] = x[x < 0] * 2
    host[host < 0] = host[host < 0] * 2
    check(x, host)
    if KILN:  # CuPy has integer-array indexing
        with pytest.raises(IndexError):
            x[cp.arange(3)]


# ---- reductions --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_reductions_over_axes(rng, dtype):
    host = random_array(rng, (4, 5, 6), dtype, -20, 20)
    x = cp.asarray(host)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for axis in (None, 0, 1, -1, (0, 2)):
        for keepdims in (False, True):
            for name in ("sum", "mean", "min", "max"):
                check(getattr(x, name)(axis=axis, keepdims=keepdims),
                      getattr(host, name)(axis=axis, keepdims=keepdims), rtol)
        if not isinstance(axis, tuple):
            check(x.argmin(axis=axis), host.argmin(axis=axis))
            check(x.argmax(axis=axis), host.argmax(axis=axis))
    check(cp.sum(x), np.sum(host), rtol)
    check(x.var(axis=1), host.var(axis=1), 1e-4)
    check(x.std(), host.std(), 1e-4)
    small = cp.asarray(host[:, :2, 0] % 3 + 1)
    check(small.prod(axis=0), (host[:, :2, 0] % 3 + 1).prod(axis=0))
    assert x.sum().shape == () and isinstance(x.sum(), cp.ndarray)
    with pytest.raises(ValueError):
        cp.zeros((0, 3)).max(axis=0)


def test_all_any_count(rng):
    host = random_array(rng, (8, 9), np.int32, -3, 3)
    x = cp.asarray(host)
    check(x.all(), host.all())
    check((x != 5).all(axis=1), (host != 5).all(axis=1))
    check((x > 1).any(axis=0), (host > 1).any(axis=0))
    check(cp.count_nonzero(x > 0), np.count_nonzero(host > 0))


def test_fused_sum_of_squares_reads_the_operands_as_they_were(rng):
    host = random_array(rng, (300, 70), np.float32, -1, 1)
    other = random_array(rng, (300, 70), np.float32, -1, 1)
    x, y = cp.asarray(host), cp.asarray(other)
    check((x * x).sum(), (host * host).sum(), 1e-4)
    check(cp.sum(x * x), np.sum(host * host), 1e-4)
    check((x - y).max(axis=1), (host - other).max(axis=1))
    check((x > 0.5).sum(), (host > 0.5).sum())
    check((x ** 2).mean(axis=0), (host ** 2).mean(axis=0), 1e-5)
    # a pending x * x sees x as it was, whatever is written into x later
    squares = x * x
    x[0] = 100
    x += 1
    check(squares.sum(), (host * host).sum(), 1e-4)
    check(squares, host * host)
    # ... also through a kernel launch and an address handed out
    z = y * 2
    kernel = cp.ElementwiseKernel("", "T v", "v = 0", "clear")
    kernel(y)
    check(z, other * 2)
    w = y + 1
    assert y.data.ptr != 0
    check(w, np.ones_like(other))
    if KILN:
        assert (y * 3)._lazy is None  # its memory is out: never read late


# ---- products, math, where, triangles ------------------------------------------------------

def test_dot_and_matmul(rng):
    a_host = random_array(rng, (20, 30), np.float32, -1, 1)
    b_host = random_array(rng, (30, 10), np.float32, -1, 1)
    v_host = random_array(rng, (30,), np.float32, -1, 1)
    a, b, v = cp.asarray(a_host), cp.asarray(b_host), cp.asarray(v_host)
    check(a @ b, a_host @ b_host, 1e-4)
    check(cp.dot(a, b), np.dot(a_host, b_host), 1e-4)
    check(cp.matmul(a, v), a_host @ v_host, 1e-4)
    check(v.dot(v), v_host.dot(v_host), 1e-4)
    check(a.T @ a, a_host.T @ a_host, 1e-4)
    i_host = random_array(rng, (40,), np.int32, -50, 50)
    i = cp.asarray(i_host)
    check(cp.dot(i, i), np.dot(i_host, i_host))


def test_math_functions(rng):
    host = random_array(rng, (64,), np.float64, 0.1, 3)
    x = cp.asarray(host)
    for name in ("sqrt", "exp", "log", "log10", "sin", "cos", "tan", "tanh",
                 "floor", "ceil", "absolute", "square", "negative", "log1p",
                 "expm1", "log2", "arctan", "sinh", "cbrt", "rint", "sign"):
        check(getattr(cp, name)(x), getattr(np, name)(host), 1e-12)
    f32 = cp.asarray(host.astype(np.float32))
    check(cp.sqrt(f32), np.sqrt(host.astype(np.float32)), 1e-6)
    check(cp.clip(x, 1, 2), np.clip(host, 1, 2))
    check(cp.sqrt(cp.arange(5)), np.sqrt(np.arange(5)), 1e-12)


def test_where_triu_tril(rng):
    host = random_array(rng, (5, 6), np.float32)
    x = cp.asarray(host)
    check(cp.where(x > 0, x, 0), np.where(host > 0, host, 0).astype(np.float32))
    check(cp.where(x > 0, 1.0, -1.0), np.where(host > 0, 1.0, -1.0))
    check(cp.where(x > 0, x, x * 2), np.where(host > 0, host, host * 2))
    for k in (-1, 0, 2):
        check(cp.triu(x, k), np.triu(host, k))
        check(cp.tril(x, k), np.tril(host, k))
    v = random_array(rng, (4,), np.int32)
    check(cp.triu(cp.asarray(v)), np.triu(v))


def test_joining_and_layout(rng):
    a_host = random_array(rng, (2, 3), np.float32)
    b_host = random_array(rng, (4, 3), np.float32)
    a, b = cp.asarray(a_host), cp.asarray(b_host)
    check(cp.concatenate([a, b]), np.concatenate([a_host, b_host]))
    check(cp.vstack([a, b]), np.vstack([a_host, b_host]))
    check(cp.stack([a, a], axis=1), np.stack([a_host, a_host], axis=1))
    check(cp.broadcast_to(a[0], (5, 3)), np.broadcast_to(a_host[0], (5, 3)))
    check(cp.expand_dims(a, 1), np.expand_dims(a_host, 1))
    check(a.reshape(3, -1).squeeze(), a_host.reshape(3, -1).squeeze())
    assert cp.allclose(a, a + 1e-9)
    assert not cp.allclose(a, a + 1)


# ---- random -----------------------------------------------------------------------------

def test_random_numbers():
    cp.random.seed(1234)
    first = cp.random.rand(3, 4)
    cp.random.seed(1234)
    check(cp.random.rand(3, 4), first.get())
    assert cp.random.rand().shape == ()
    u = cp.random.uniform(-2, 5, size=100000, dtype=cp.float32).get()
    assert u.dtype == np.float32 and u.min() >= -2 and u.max() < 5
    assert abs(u.mean() - 1.5) < 0.05
    n = cp.random.normal(3, 2, size=(200, 500)).get()
    assert abs(n.mean() - 3) < 0.05 and abs(n.std() - 2) < 0.05
    r = cp.random.randn(1000, dtype=np.float32)
    assert r.dtype == np.float32
    assert abs(float(r.mean())) < 0.2
    i = cp.random.randint(3, 9, size=5000).get()
    assert i.dtype == np.int64 and set(np.unique(i)) == set(range(3, 9))
    assert cp.random.random((2, 2)).shape == (2, 2)


# ---- user-defined kernels, as CuPy's documentation writes them --------------------------------

def test_raw_kernel_my_add():
    add_kernel = cp.RawKernel(r'''
    extern "C" __global__
    void my_add(const float* x1, const float* x2, float* y) {
        int tid = blockDim.x * blockIdx.x + threadIdx.x;
        y[tid] = x1[tid] + x2[tid];
    }
    ''', 'my_add')
    x1 = cp.arange(25, dtype=cp.float32).reshape(5, 5)
    x2 = cp.arange(25, dtype=cp.float32).reshape(5, 5)
    y = cp.zeros((5, 5), dtype=cp.float32)
    add_kernel((5,), (5,), (x1, x2, y))  # grid, block and arguments
    check(y, 2 * np.arange(25, dtype=np.float32).reshape(5, 5))
    assert add_kernel.max_threads_per_block >= 5


def test_raw_module_test_sum_test_multiply(rng):
    loaded_from_source = r'''
    extern "C"{

    __global__ void test_sum(const float* x1, const float* x2, float* y, \
                             unsigned int N)
    {
        unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
        if (tid < N)
        {
            y[tid] = x1[tid] + x2[tid];
        }
    }

    __global__ void test_multiply(const float* x1, const float* x2, float* y, \
                                  unsigned int N)
    {
        unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
        if (tid < N)
        {
            y[tid] = x1[tid] * x2[tid];
        }
    }

    }'''
    module = cp.RawModule(code=loaded_from_source)
    ker_sum = module.get_function('test_sum')
    ker_times = module.get_function('test_multiply')
    N = 10
    x1 = cp.arange(N**2, dtype=cp.float32).reshape(N, N)
    x2 = cp.ones((N, N), dtype=cp.float32)
    y = cp.zeros((N, N), dtype=cp.float32)
    ker_sum((N,), (N,), (x1, x2, y, N**2))   # y = x1 + x2
    assert cp.allclose(y, x1 + x2)
    ker_times((N,), (N,), (x1, x2, y, N**2)) # y = x1 * x2
    assert cp.allclose(y, x1 * x2)
    x2 = cp.asarray(random_array(rng, (N, N), np.float32))
    ker_times((N,), (N,), (x1, x2, y, N**2))
    check(y, x1.get() * x2.get())


def test_elementwise_squared_diff():
    squared_diff = cp.ElementwiseKernel(
       'float32 x, float32 y',
       'float32 z',
       'z = (x - y) * (x - y)',
       'squared_diff')
    x = cp.arange(10, dtype=np.float32).reshape(2, 5)
    y = cp.arange(5, dtype=np.float32)
    expected = (np.arange(10, dtype=np.float32).reshape(2, 5) -
                np.arange(5, dtype=np.float32)) ** 2
    check(squared_diff(x, y), expected)
    check(squared_diff(x, 5), (np.arange(10, dtype=np.float32).reshape(2, 5)
                               - 5) ** 2)
    z = cp.empty((2, 5), dtype=np.float32)
    assert squared_diff(x, y, z) is z
    check(z, expected)

    squared_diff_generic = cp.ElementwiseKernel(
        'T x, T y',
        'T z',
        '''
            T diff = x - y;
            z = diff * diff;
        ''',
        'squared_diff_generic')
    check(squared_diff_generic(x.T, y[:, None]), (x.T.get() - y.get()[:, None])
          ** 2)
    xi = cp.arange(6, dtype=np.int64)
    check(squared_diff_generic(xi, 2), (np.arange(6) - 2) ** 2)

    squared_diff_super_generic = cp.ElementwiseKernel(
        'X x, Y y',
        'Z z',
        'z = (x - y) * (x - y)',
        'squared_diff_super_generic')
    out = cp.empty((2, 5), dtype=np.float64)
    squared_diff_super_generic(x, y, out)
    check(out, expected.astype(np.float64))

    add_reverse = cp.ElementwiseKernel(
        'T x, raw T y', 'T z',
        'z = x + y[_ind.size() - i - 1]',
        'add_reverse')
    a, b = cp.arange(7, dtype=np.float32), cp.arange(7, dtype=np.float32) * 10
    check(add_reverse(a, b), a.get() + b.get()[::-1])


def test_elementwise_operation_over_lines_with_comments(rng):
    # Kiln's generators take one line: comments, splices and line breaks
    # of CuPy code are turned into spaces, never into a lost statement
    clipped_square = cp.ElementwiseKernel(
        'float32 x', 'float32 y',
        """
        // square, then clip
        float s = x * x; /* a block
                            comment */
        y = s > 4.0f ? \
            4.0f : s;
        """,
        'clipped_square')
    host = random_array(rng, (300,), np.float32, -3, 3)
    check(clipped_square(cp.asarray(host)), np.minimum(host * host, 4))


def test_reduction_l2norm(rng):
    l2norm_kernel = cp.ReductionKernel(
        'T x',  # input params
        'T y',  # output params
        'x * x',  # map
        'a + b',  # reduce
        'y = sqrt(a)',  # post-reduction map
        '0',  # identity value
        'l2norm'  # kernel name
    )
    x = cp.arange(10, dtype=np.float32).reshape(2, 5)
    check(l2norm_kernel(x, axis=1), np.array([5.477226, 15.9687195],
                                              np.float32))
    host = random_array(rng, (30, 4000), np.float32, -1, 1)
    big = cp.asarray(host)
    check(l2norm_kernel(big, axis=1), np.sqrt((host * host).sum(axis=1)), 1e-5)
    check(l2norm_kernel(big), np.sqrt((host * host).sum()), 1e-5)
    check(l2norm_kernel(big.T, axis=0, keepdims=True),
          np.sqrt((host * host).sum(axis=1))[None, :], 1e-5)


# ---- devices, streams, events, memory ------------------------------------------------------

def test_device_stream_event(rng):
    device = cp.cuda.Device(0)
    device.use()
    assert device.id == 0 and cp.cuda.Device().id == 0
    with cp.cuda.Device(0) as current:
        assert current.id == 0
    device.synchronize()
    assert cp.cuda.runtime.getDeviceCount() >= 1
    host = random_array(rng, (1000,), np.float32)
    stream = cp.cuda.Stream()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    with stream:
        assert cp.cuda.get_current_stream() == stream
        start.record()
        x = cp.asarray(host)
        y = (x * 3 + 1).sum()
        end.record()
    stream.synchronize()
    assert cp.cuda.get_current_stream() == cp.cuda.Stream.null
    assert cp.cuda.get_elapsed_time(start, end) >= 0
    check(y, (host * 3 + 1).sum(), 1e-5)
    cp.cuda.Stream.null.synchronize()


def test_memory_pool():
    mempool = cp.get_default_memory_pool()
    pinned_mempool = cp.get_default_pinned_memory_pool()
    mempool.free_all_blocks()
    before = mempool.used_bytes()
    a = cp.ones((1 << 20,), dtype=cp.float32)
    assert mempool.used_bytes() >= before + a.nbytes
    assert mempool.total_bytes() >= mempool.used_bytes()
    a = None
    assert mempool.used_bytes() < before + (1 << 22)
    mempool.free_all_blocks()
    pinned_mempool.free_all_blocks()
    assert mempool.total_bytes() == mempool.used_bytes()


def test_errors_are_numpys():
    with pytest.raises(ValueError):
        cp.ones((3, 2)) + cp.ones((4,))
    with pytest.raises(TypeError):
        cp.ones(3) + np.ones(3)
    with pytest.raises(TypeError):
        np.asarray(cp.ones(3))
    with pytest.raises(ValueError):
        bool(cp.ones(3))
    with pytest.raises(ValueError):
        cp.ones(6).reshape(4, 2)


def test_raw_module_name_expressions():
    code = r'''
    template<typename T>
    __global__ void fx3(T* arr, int N) {
        unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
        if (tid < N) {
            arr[tid] = arr[tid] * 3;
        }
    }
    '''
    name_exp = ['fx3<float>', 'fx3<double>']
    mod = cp.RawModule(code=code, options=('-std=c++11',),
        name_expressions=name_exp)
    ker_float = mod.get_function(name_exp[0])  # compilation happens here
    N=10
    a = cp.arange(N, dtype=cp.float32)
    ker_float((1,), (N,), (a, N))
    check(a, 3 * np.arange(N, dtype=np.float32))
    ker_double = mod.get_function(name_exp[1])
    a = cp.arange(N, dtype=cp.float64)
    ker_double((1,), (N,), (a, N))
    check(a, 3 * np.arange(N, dtype=np.float64))


TILED_TEMPLATES = r'''
template <int BLOCK, int TILE>
__global__ void matmul(const float *a, const float *b, float *c,
                       int m, int n, int k)
{
    __shared__ float as[BLOCK * TILE][BLOCK];
    __shared__ float bs[BLOCK][BLOCK];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * BLOCK * TILE + ty * TILE;
    int col = blockIdx.x * BLOCK + tx;
    float acc[TILE] = {0};
    for (int k0 = 0; k0 < k; k0 += BLOCK) {
        for (int t = 0; t < TILE; t++) {
            int r = row0 + t;
            as[ty * TILE + t][tx] = r < m && k0 + tx < k ? a[r * k + k0 + tx] : 0;
        }
        bs[ty][tx] = k0 + ty < k && col < n ? b[(k0 + ty) * n + col] : 0;
        __syncthreads();
        for (int j = 0; j < BLOCK; j++)
            for (int t = 0; t < TILE; t++)
                acc[t] += as[ty * TILE + t][j] * bs[j][tx];
        __syncthreads();
    }
    for (int t = 0; t < TILE; t++)
        if (row0 + t < m && col < n)
            c[(row0 + t) * n + col] = acc[t];
}

template <typename T>
__global__ void scale(T *x, T s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= s;
}
'''


def run_matmul(kernel, block, tile, rng):
    m, n, k = 37, 29, 41
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = cp.zeros((m, n), dtype=cp.float32)
    rows = block * tile
    kernel(((n + block - 1) // block, (m + rows - 1) // rows), (block, block),
           (cp.asarray(a), cp.asarray(b), c, np.int32(m), np.int32(n),
            np.int32(k)))
    np.testing.assert_allclose(cp.asnumpy(c), a @ b, rtol=1e-4, atol=1e-5)


def test_raw_module_value_templates(rng):
    names = ["matmul<16, 2>", "matmul<8, 4>", "scale<float>", "scale<int>"]
    mod = cp.RawModule(code=TILED_TEMPLATES, name_expressions=names)
    run_matmul(mod.get_function("matmul<16, 2>"), 16, 2, rng)
    run_matmul(mod.get_function("matmul<8, 4>"), 8, 4, rng)
    x = rng.uniform(-5, 5, 100).astype(np.float32)
    gx = cp.asarray(x)
    mod.get_function("scale<float>")((1,), (128,), (gx, np.float32(3), 100))
    check(gx, x * 3)
    i = rng.integers(-100, 100, 50).astype(np.int32)
    gi = cp.asarray(i)
    mod.get_function("scale<int>")((1,), (64,), (gi, np.int32(-2), 50))
    check(gi, i * -2)


@pytest.mark.skipif(not KILN, reason="Kiln's additions to CuPy's rules")
def test_template_names_after_the_build(rng):
    mod = cp.RawModule(code=TILED_TEMPLATES, name_expressions=["scale<int>"])
    # not in name_expressions, another spelling: the module builds again
    run_matmul(mod.get_function("matmul<8,2>"), 8, 2, rng)
    run_matmul(cp.RawKernel(TILED_TEMPLATES, "matmul<4, 4>"), 4, 4, rng)
    for wrong in ("matmul<float>", "nosuch<1>", "scale"):
        with pytest.raises(Exception, match="no kernel"):
            mod.get_function(wrong)
