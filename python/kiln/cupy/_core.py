"""kiln.cupy's ndarray: an n-d array in device memory with NumPy's
semantics, every operation a call into libkiln-array (kiln.Array).

Arrays of any layout: slices with steps, integer indices, new axes, .T and
broadcasting are views (kiln_array_view); assignment through views and
boolean masks are libkiln-array's.  Dtypes follow NumPy 2's promotion
(NEP 50), as CuPy does: Python scalars are weak (`x * 2` keeps float32),
NumPy scalars and 0-d arrays are not.  Reductions return 0-d arrays.

`x * y`, `x - 1.5`, `x > 0`... of arrays of one shape and dtype (or an
array and a Python number) are evaluated when first used, not when made:
a sum, mean, min, max, prod, argmin or argmax taken of such a result
straight away reduces the operation in one pass over its operands
(kiln_array_reduce_binary), so `(x * x).sum()` reads x once and never
writes x * x.  Anything else that uses the result (reading it, indexing,
another operation) evaluates it first, on the stream it was made on.
Before any write into device memory that kiln.cupy makes (assignment,
in-place operators, kernel launches) every pending result is evaluated,
so it always sees the operands as they were when it was made; an array
whose address has been handed out (.data, __cuda_array_interface__)
is never read late.
"""
import builtins as _builtins
import numbers as _numbers
import weakref as _weakref

import numpy as _np

import kiln as _kiln
from kiln.cupy import _state

_DTYPES = _kiln.DTYPES
_CODES = {dtype: code for code, dtype in enumerate(_DTYPES)}
_BOOL = _np.dtype(_np.bool_)
_INT64 = _np.dtype(_np.int64)
_FLOAT64 = _np.dtype(_np.float64)

(OP_ADD, OP_SUBTRACT, OP_MULTIPLY, OP_DIVIDE, OP_POWER, OP_MAXIMUM,
 OP_MINIMUM, OP_EQUAL, OP_NOT_EQUAL, OP_LESS, OP_LESS_EQUAL, OP_GREATER,
 OP_GREATER_EQUAL) = range(13)
(FN_NEGATIVE, FN_ABS, FN_SQUARE, FN_SQRT, FN_EXP, FN_LOG, FN_LOG10, FN_SIN,
 FN_COS, FN_TAN, FN_TANH, FN_FLOOR, FN_CEIL) = range(13)
(R_SUM, R_PROD, R_MEAN, R_MIN, R_MAX, R_ARGMIN, R_ARGMAX) = range(7)

# the comparison a OP b is b (mirrored OP) a
_MIRRORED = {OP_LESS: OP_GREATER, OP_LESS_EQUAL: OP_GREATER_EQUAL,
             OP_GREATER: OP_LESS, OP_GREATER_EQUAL: OP_LESS_EQUAL,
             OP_EQUAL: OP_EQUAL, OP_NOT_EQUAL: OP_NOT_EQUAL}


def _code(dtype):
    try:
        return _CODES[dtype]
    except KeyError:
        raise TypeError(f"kiln.cupy has no arrays of dtype {dtype} (it has "
                        "bool, int8..uint64, float32 and float64)") from None


def _dtype(dtype):
    """A NumPy dtype kiln.cupy has, from anything NumPy takes (None is
    float64, CuPy's default)."""
    dtype = _np.dtype(float if dtype is None else dtype)
    if dtype.byteorder == ">":
        dtype = dtype.newbyteorder("=")
    _code(dtype)
    return dtype


def _translate(error):
    """A Kiln error as the Python exception CuPy raises for it."""
    name = getattr(error, "status_name", "")
    if name in ("KILN_ERR_SHAPE", "KILN_ERR_OUT_OF_BOUNDS"):
        return ValueError(str(error))
    if name == "KILN_ERR_DTYPE":
        return TypeError(str(error))
    return error


# ---- pending results (see the module's comment) -----------------------------------

_pending = {}  # id -> weakref of arrays made and not yet evaluated


def _flush():
    """Evaluates every pending result: called before writes."""
    for ref in list(_pending.values()):
        array = ref()
        if array is not None and array._k is None:
            array._materialize()


def _forget(key):
    return lambda _ref: _pending.pop(key, None)


# ---- ndarray ---------------------------------------------------------------------

_new = object.__new__


def _wrap(k, base=None):
    """An ndarray over the kiln.Array `k` (a view of `base`'s memory when
    given)."""
    a = _new(ndarray)
    a._k = k
    a._lazy = None
    a._shape = k.shape
    a._dtype = _DTYPES[k.dtype]
    a._base = base
    a._buffer = None
    a._escaped = False
    return a


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _shape_arg(shape):
    if isinstance(shape, (_numbers.Integral, _np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _root(a):
    return a._base if a._base is not None else a


class _Flags:
    def __init__(self, a):
        self.c_contiguous = a._is_c()
        self.f_contiguous = a._is_f()
        self.owndata = a._base is None

    def __getitem__(self, name):
        return {"C_CONTIGUOUS": self.c_contiguous,
                "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[name.upper()]

    def __repr__(self):
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n"
                f"  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}")


class MemoryPointer:
    """A pointer into device memory (CuPy's cupy.cuda.MemoryPointer):
    ``ptr`` is the address (a CUdeviceptr on CUDA; on OpenCL an address
    Kiln resolves back to the buffer), ``mem`` the kiln.Buffer."""

    def __init__(self, mem, offset=0):
        self.mem = mem
        self.offset = offset
        self.device_id = _state.device_id()

    @property
    def ptr(self):
        """The address of the first byte."""
        return int(self.mem) + self.offset

    def __int__(self):
        return self.ptr

    def __add__(self, offset):
        return MemoryPointer(self.mem, self.offset + int(offset))


class ndarray:
    """An n-d array in device memory (CuPy's cupy.ndarray).

    ``ndarray(shape, dtype=float, memptr=None, strides=None)`` makes one of
    undefined contents (or over ``memptr``); cupy.array, zeros, ones...
    are the usual ways.  Operations run on the current device's current
    stream.
    """

    __slots__ = ("_k", "_lazy", "_shape", "_dtype", "_base", "_buffer",
                 "_escaped", "__weakref__")
    __array_priority__ = 100
    # NumPy's operators give way to ours (np.float32(2) * x is x's)
    __array_ufunc__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None,
                 order="C"):
        shape = _shape_arg(shape)
        dtype = _dtype(dtype)
        if memptr is None:
            k = _kiln.array_create(_state.context(), _code(dtype), shape,
                                   "empty")
            base = None
        else:
            buffer = memptr.mem if isinstance(memptr, MemoryPointer) \
                else _kiln.buffer_at(int(memptr))
            offset = memptr.offset if isinstance(memptr, MemoryPointer) else 0
            k = _kiln.array_from_buffer(buffer, offset, _code(dtype), shape)
            base = None
        if strides is not None:
            item = dtype.itemsize
            if _builtins.any(s % item for s in strides):
                raise ValueError("strides must be multiples of the itemsize")
            k = k.view(0, shape, tuple(s // item for s in strides))
        elif order == "F" and len(shape) > 1:
            step, elements = 1, []
            for s in shape:
                elements.append(step)
                step *= s
            k = k.view(0, shape, tuple(elements))
        self._k = k
        self._lazy = None
        self._shape = shape
        self._dtype = dtype
        self._base = base
        self._buffer = None
        self._escaped = memptr is not None

    # -- evaluation --
    def _a(self):
        return self._k or self._materialize()

    def _materialize(self):
        op, x, y, stream = self._lazy
        try:
            k = x._k.binary(op, y._k if type(y) is ndarray else y, stream)
        except _kiln.KilnError as error:
            raise _translate(error) from None
        if _DTYPES[k.dtype] != self._dtype:
            raise RuntimeError(f"kiln.cupy: {self._dtype} was predicted for "
                               f"an operation that gave {_DTYPES[k.dtype]}")
        self._k = k
        self._lazy = None
        _pending.pop(id(self), None)
        return k

    # -- what it is --
    @property
    def shape(self):
        """The sizes of the axes, a tuple."""
        return self._shape

    @shape.setter
    def shape(self, value):
        self._k = self.reshape(value)._a()
        self._shape = self._k.shape

    @property
    def dtype(self):
        """The NumPy dtype of the elements."""
        return self._dtype

    @property
    def size(self):
        """The number of elements."""
        return _size(self._shape)

    @property
    def ndim(self):
        """The number of axes."""
        return len(self._shape)

    @property
    def itemsize(self):
        """Bytes of one element."""
        return self._dtype.itemsize

    @property
    def nbytes(self):
        """Bytes of all elements."""
        return self.size * self._dtype.itemsize

    @property
    def strides(self):
        """Bytes between neighbours along each axis (NumPy's strides)."""
        item = self._dtype.itemsize
        return tuple(s * item for s in self._a().strides)

    def _elements(self):
        return self._a().strides

    def _is_c(self):
        step = 1
        for size, stride in zip(reversed(self._shape),
                                reversed(self._elements())):
            if size != 1 and stride != step:
                return False
            step *= size
        return True

    def _is_f(self):
        step = 1
        for size, stride in zip(self._shape, self._elements()):
            if size != 1 and stride != step:
                return False
            step *= size
        return True

    @property
    def flags(self):
        """c_contiguous, f_contiguous and owndata, as NumPy's flags."""
        return _Flags(self)

    @property
    def base(self):
        """The array whose memory this view shares, or None."""
        return self._base

    @property
    def device(self):
        """The cuda.Device the array lives on."""
        from kiln.cupy.cuda import Device
        return Device(_state.device_id())

    @property
    def _kiln_buffer(self):
        # a kiln.Buffer at the first element: how kernels take the array
        if self._buffer is None:
            _flush()
            memory = self._a().memory
            if memory is None:
                return None
            self._buffer = memory[0].view(memory[1])
        return self._buffer

    def _escape(self):
        """The address goes out: pending results are evaluated, and those
        made later of this memory are made at once."""
        _flush()
        _root(self)._escaped = True

    @property
    def data(self):
        """A MemoryPointer to the first element (``x.data.ptr``)."""
        self._escape()
        return MemoryPointer(self._kiln_buffer)

    @property
    def __cuda_array_interface__(self):
        self._escape()
        buffer = self._kiln_buffer
        return {"shape": self._shape,
                "typestr": self._dtype.str,
                "descr": [("", self._dtype.str)],
                "data": (0 if buffer is None else int(buffer), False),
                "strides": None if self._is_c() else self.strides,
                "version": 3}

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        for i in range(self._shape[0]):
            yield self[i]

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one "
                             "element is ambiguous. Use a.any() or a.all()")
        return bool(self.get())

    def __float__(self):
        return float(self.get())

    def __int__(self):
        return int(self.get())

    def __complex__(self):
        return complex(self.get())

    def __index__(self):
        if self._dtype.kind not in "iu" or self.size != 1:
            raise TypeError("only integer scalar arrays can be converted to "
                            "a scalar index")
        return int(self.get())

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    def __format__(self, spec):
        return format(self.get(), spec)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not "
                        "allowed. Please use `.get()` to construct a NumPy "
                        "array explicitly.")

    def __hash__(self):
        raise TypeError("unhashable type: 'cupy.ndarray'")

    def __reduce__(self):
        return (array, (self.get(),))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # -- host transfers --
    def get(self, stream=None, order="C", out=None, blocking=True):
        """A NumPy array with a copy of the elements (waits for them)."""
        k = self._a()
        host = _np.empty(self._shape, self._dtype) if out is None else out
        if out is not None and (out.shape != self._shape or
                                out.dtype != self._dtype or
                                not out.flags.c_contiguous):
            temporary = self.get(stream)
            out[...] = temporary
            return out
        k.to_host(host, _stream_handle(stream))
        if order == "F":
            return _np.asfortranarray(host)
        return host

    def set(self, arr, stream=None):
        """Copies a NumPy array of the same shape into this array."""
        arr = _np.asarray(arr)
        if arr.shape != self._shape:
            raise ValueError(f"shape mismatch: {arr.shape} given for an "
                             f"array of {self._shape}")
        self[...] = array(arr, dtype=self._dtype)

    # -- conversions and copies --
    def astype(self, dtype, order="K", casting=None, subok=None, copy=True):
        """The elements converted to `dtype` (C's conversion; floats to
        bool: nonzero is true)."""
        dtype = _dtype(dtype)
        if dtype == self._dtype and not copy:
            return self
        return _wrap(self._a().astype(_code(dtype), _state.stream()))

    def copy(self, order="C"):
        """A new C-contiguous array with the same elements."""
        return _wrap(self._a().astype(_code(self._dtype), _state.stream()))

    def fill(self, value):
        """Sets every element to `value`."""
        _flush()
        self._a().assign(_number(value), _state.stream())

    def view(self, dtype=None):
        """The same memory; with `dtype`, read as another dtype of the
        same size."""
        if dtype is None:
            return _wrap(self._a().view(0, self._shape, self._elements()),
                         _root(self))
        dtype = _dtype(dtype)
        if dtype.itemsize != self._dtype.itemsize or not self._is_c():
            raise NotImplementedError("view(dtype) of a C-contiguous array "
                                      "and a dtype of the same size")
        buffer = self._kiln_buffer
        if buffer is None:
            return ndarray(self._shape, dtype)
        return _wrap(_kiln.array_from_buffer(buffer, 0, _code(dtype),
                                             self._shape), _root(self))

    def item(self):
        """The one element as a Python number."""
        return self.get().item()

    def tolist(self):
        """The elements as nested Python lists."""
        return self.get().tolist()

    # -- layout --
    def reshape(self, *shape, order="C"):
        """The same elements in another shape (-1 infers a size): a view
        when the array is C-contiguous, else a copy."""
        if len(shape) == 1 and not isinstance(shape[0],
                                              (_numbers.Integral, _np.integer)):
            shape = shape[0]
        shape = list(_shape_arg(shape))
        unknown = [i for i, s in enumerate(shape) if s == -1]
        if len(unknown) > 1:
            raise ValueError("can only specify one unknown dimension")
        if unknown:
            known = _size(s for s in shape if s != -1)
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape array of size {self.size} "
                                 f"into shape {tuple(shape)}")
            shape[unknown[0]] = self.size // known
        shape = tuple(shape)
        if _size(shape) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into "
                             f"shape {shape}")
        if order not in ("C", "A"):
            raise NotImplementedError("reshape in Fortran order")
        k = self._a()
        if self._is_c():
            return _wrap(k.reshape(shape), _root(self))
        return _wrap(self.copy()._k.reshape(shape))

    def ravel(self, order="C"):
        """The elements as one axis (a view when C-contiguous)."""
        return self.reshape(-1, order=order)

    def flatten(self, order="C"):
        """A copy of the elements as one axis."""
        return self.copy().reshape(-1)

    def _view(self, offset, shape, strides):
        try:
            k = self._a().view(offset, shape, strides)
        except _kiln.KilnError as error:
            raise _translate(error) from None
        return _wrap(k, _root(self))

    def transpose(self, *axes):
        """The axes permuted (reversed when none are given): a view."""
        if len(axes) == 1 and (axes[0] is None or
                               not isinstance(axes[0], (int, _np.integer))):
            axes = axes[0]
        if axes is None or axes == ():
            axes = tuple(reversed(range(self.ndim)))
        axes = tuple(_axis(a, self.ndim) for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError("axes don't match array")
        strides = self._elements()
        return self._view(0, tuple(self._shape[a] for a in axes),
                          tuple(strides[a] for a in axes))

    @property
    def T(self):  # noqa: N802 (NumPy's name)
        """The transpose: a view."""
        return self.transpose()

    def swapaxes(self, axis1, axis2):
        """Two axes exchanged: a view."""
        axes = list(range(self.ndim))
        a, b = _axis(axis1, self.ndim), _axis(axis2, self.ndim)
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    def squeeze(self, axis=None):
        """Without axes of size one: a view."""
        if axis is None:
            keep = [d for d, s in enumerate(self._shape) if s != 1]
        else:
            drop = {_axis(a, self.ndim) for a in
                    (axis if isinstance(axis, tuple) else (axis,))}
            if _builtins.any(self._shape[d] != 1 for d in drop):
                raise ValueError("cannot select an axis to squeeze out which "
                                 "has size not equal to one")
            keep = [d for d in range(self.ndim) if d not in drop]
        strides = self._elements()
        return self._view(0, tuple(self._shape[d] for d in keep),
                          tuple(strides[d] for d in keep))

    # -- indexing --
    def _index(self, key):
        """(offset, shape, strides) of a basic index, or None when it is a
        boolean mask (then the mask)."""
        if not isinstance(key, tuple):
            key = (key,)
        if _builtins.any(i is Ellipsis for i in key):
            at = next(k for k, i in enumerate(key) if i is Ellipsis)
            used = _builtins.sum(1 for i in key if i is not None and
                                 i is not Ellipsis)
            key = key[:at] + (slice(None),) * (self.ndim - used) + \
                key[at + 1:]
        strides_in = self._elements()
        shape, strides, offset, axis = [], [], 0, 0
        for item in key:
            if item is None:
                shape.append(1)
                strides.append(0)
                continue
            if axis >= self.ndim:
                raise IndexError(f"too many indices for array: array is "
                                 f"{self.ndim}-dimensional")
            size, stride = self._shape[axis], strides_in[axis]
            if isinstance(item, slice):
                start, stop, step = item.indices(size)
                count = len(range(start, stop, step))
                if count:
                    offset += start * stride
                shape.append(count)
                strides.append(stride * step)
            elif isinstance(item, (_numbers.Integral, _np.integer)) and \
                    not isinstance(item, (bool, _np.bool_)):
                index = int(item)
                if index < 0:
                    index += size
                if not 0 <= index < size:
                    raise IndexError(f"index {int(item)} is out of bounds for "
                                     f"axis {axis} with size {size}")
                offset += index * stride
            elif isinstance(item, ndarray) and item.ndim == 0 and \
                    item.dtype.kind in "iu":
                return self._index(key[:len(shape)] + (int(item),) +
                                   key[len(shape) + 1:])
            else:
                raise IndexError(
                    f"kiln.cupy indexes with integers, slices, None, Ellipsis "
                    f"and one boolean mask, not {type(item).__name__}")
            axis += 1
        shape += self._shape[axis:]
        strides += strides_in[axis:]
        return offset, tuple(shape), tuple(strides)

    @staticmethod
    def _mask_of(key):
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if isinstance(key, ndarray) and key._dtype == _BOOL:
            return key
        if isinstance(key, (_np.ndarray, list)):
            host = _np.asarray(key)
            if host.dtype == _BOOL:
                return array(host)
            raise IndexError("kiln.cupy does not index with integer arrays "
                             "(fancy indexing); use slices or a boolean mask")
        if isinstance(key, ndarray):
            raise IndexError("kiln.cupy does not index with integer arrays "
                             "(fancy indexing); use slices or a boolean mask")
        return None

    def __getitem__(self, key):
        mask = self._mask_of(key)
        if mask is not None:
            try:
                k = self._a().mask_select(mask._a(), _state.stream())
            except _kiln.KilnError as error:
                raise _translate(error) from None
            return _wrap(k)
        return self._view(*self._index(key))

    def __setitem__(self, key, value):
        _flush()
        mask = self._mask_of(key)
        source = value._a() if isinstance(value, ndarray) else \
            _number(value) if _is_scalar(value) else \
            array(value, dtype=self._dtype)._a()
        try:
            if mask is not None:
                self._a().mask_assign(mask._a(), source, _state.stream())
            else:
                offset, shape, strides = self._index(key)
                self._a().view(offset, shape, strides).assign(
                    source, _state.stream())
        except _kiln.KilnError as error:
            raise _translate(error) from None

    # -- arithmetic --
    def __add__(self, other):
        return _binary(self, other, OP_ADD)

    def __radd__(self, other):
        return _binary(self, other, OP_ADD, True)

    def __sub__(self, other):
        return _binary(self, other, OP_SUBTRACT)

    def __rsub__(self, other):
        return _binary(self, other, OP_SUBTRACT, True)

    def __mul__(self, other):
        return _binary(self, other, OP_MULTIPLY)

    def __rmul__(self, other):
        return _binary(self, other, OP_MULTIPLY, True)

    def __truediv__(self, other):
        return _binary(self, other, OP_DIVIDE)

    def __rtruediv__(self, other):
        return _binary(self, other, OP_DIVIDE, True)

    def __pow__(self, other):
        return _binary(self, other, OP_POWER)

    def __rpow__(self, other):
        return _binary(self, other, OP_POWER, True)

    def __floordiv__(self, other):
        return floor_divide(self, other)

    def __rfloordiv__(self, other):
        return floor_divide(other, self)

    def __mod__(self, other):
        return remainder(self, other)

    def __rmod__(self, other):
        return remainder(other, self)

    def __eq__(self, other):
        return _binary(self, other, OP_EQUAL)

    def __ne__(self, other):
        return _binary(self, other, OP_NOT_EQUAL)

    def __lt__(self, other):
        return _binary(self, other, OP_LESS)

    def __le__(self, other):
        return _binary(self, other, OP_LESS_EQUAL)

    def __gt__(self, other):
        return _binary(self, other, OP_GREATER)

    def __ge__(self, other):
        return _binary(self, other, OP_GREATER_EQUAL)

    def __and__(self, other):
        return logical_and(self, other) if _bools(self, other) else \
            _no_bitwise("&")

    __rand__ = __and__

    def __or__(self, other):
        return logical_or(self, other) if _bools(self, other) else \
            _no_bitwise("|")

    __ror__ = __or__

    def __xor__(self, other):
        return logical_xor(self, other) if _bools(self, other) else \
            _no_bitwise("^")

    __rxor__ = __xor__

    def __invert__(self):
        if self._dtype != _BOOL:
            return _no_bitwise("~")
        return logical_not(self)

    def __neg__(self):
        return _math_fn(self, FN_NEGATIVE)

    def __pos__(self):
        return self.copy()

    def __abs__(self):
        return _math_fn(self, FN_ABS)

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    def _inplace(self, other, op):
        result = _binary(self, other, op)
        if result is NotImplemented:
            return result
        if not _np.can_cast(result._dtype, self._dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc output from "
                            f"{result._dtype} to {self._dtype} with casting "
                            f"rule 'same_kind'")
        k = result._a()
        _flush()
        self._a().assign(k, _state.stream())
        return self

    def __iadd__(self, other):
        return self._inplace(other, OP_ADD)

    def __isub__(self, other):
        return self._inplace(other, OP_SUBTRACT)

    def __imul__(self, other):
        return self._inplace(other, OP_MULTIPLY)

    def __itruediv__(self, other):
        return self._inplace(other, OP_DIVIDE)

    def __ipow__(self, other):
        return self._inplace(other, OP_POWER)

    # -- reductions --
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """The sum (a 0-d array over everything; integers give int64 or
        uint64, bools int64)."""
        return _reduce(self, R_SUM, axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """The product (integers give int64 or uint64)."""
        return _reduce(self, R_PROD, axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """The mean (float32 for float32, else float64)."""
        return _reduce(self, R_MEAN, axis, dtype, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        """The smallest element (NaN if there is one)."""
        return _reduce(self, R_MIN, axis, None, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        """The largest element (NaN if there is one)."""
        return _reduce(self, R_MAX, axis, None, out, keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        """The index of the first smallest element (of the flattened array
        without an axis), int64."""
        return _reduce(self, R_ARGMIN, axis, None, out, keepdims)

    def argmax(self, axis=None, out=None, keepdims=False):
        """The index of the first largest element, int64."""
        return _reduce(self, R_ARGMAX, axis, None, out, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """The variance: mean(|x - x.mean()|**2) (float64 for integers)."""
        return var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """The standard deviation: sqrt(var)."""
        return std(self, axis, dtype, out, ddof, keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        """Whether every element is nonzero (a bool array)."""
        return all(self, axis, out, keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        """Whether some element is nonzero (a bool array)."""
        return any(self, axis, out, keepdims)

    def dot(self, b, out=None):
        """dot(self, b)."""
        return dot(self, b, out)

    def clip(self, min=None, max=None, out=None):  # noqa: A002
        """The elements limited to [min, max]."""
        return clip(self, min, max, out)

    def nonzero(self):
        """Not available."""
        raise NotImplementedError("kiln.cupy has no nonzero (use a boolean "
                                  "mask: x[x != 0])")


ndarray.__module__ = "kiln.cupy"
MemoryPointer.__module__ = "kiln.cupy.cuda"


def _axis(axis, ndim):
    axis = int(axis)
    if not -ndim <= axis < _builtins.max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of "
                         f"dimension {ndim}")
    return axis % ndim if ndim else 0


def _stream_handle(stream):
    if stream is None:
        return _state.stream()
    return getattr(stream, "_handle", stream)


def _is_scalar(value):
    return isinstance(value, (_numbers.Number, _np.generic)) and \
        not isinstance(value, ndarray)


def _number(value):
    """A Python number for a scalar argument of libkiln-array."""
    if isinstance(value, (complex, _np.complexfloating)):
        raise TypeError("kiln.cupy has no complex numbers")
    if isinstance(value, ndarray):
        return float(value.get())
    return float(value)


def _bools(a, b):
    bool_like = (bool, _np.bool_)
    return (a._dtype == _BOOL if isinstance(a, ndarray) else
            isinstance(a, bool_like)) and \
        (b._dtype == _BOOL if isinstance(b, ndarray) else
         isinstance(b, bool_like))


def _no_bitwise(op):
    raise TypeError(f"kiln.cupy has '{op}' for bool arrays only (logical); "
                    "bitwise operations on integers are not available")


def _scalar_array(value, dtype):
    """A 0-d array of `value` (a strong operand)."""
    return _wrap(_kiln.array_create(_state.context(), _code(dtype), (),
                                    "full", float(value), _state.stream()))


def _binary(a, b, op, reflected=False):
    """a OP b (b OP a when reflected) for the ndarray `a` and anything
    NumPy would combine it with; a pending result when it can be reduced
    in one pass (see the module's comment)."""
    stream = _state.stream()
    if type(b) is not ndarray:
        if isinstance(b, ndarray):
            pass
        elif isinstance(b, (bool, int, float)) and \
                not isinstance(b, _np.generic):
            kind = a._dtype.kind
            if isinstance(b, bool):
                if kind == "b":
                    b = _scalar_array(b, _BOOL)
            elif isinstance(b, float) and kind in "biu":
                b = _scalar_array(b, _FLOAT64)  # NEP 50: float64
        elif isinstance(b, (_np.generic, _np.ndarray)) and \
                _np.ndim(b) == 0 and b.dtype.kind in "biuf":
            # NumPy scalars are strong, unless they match the array's dtype
            b = b.item() if b.dtype == a._dtype and b.dtype.kind != "b" \
                else _scalar_array(b, _dtype(b.dtype))
        else:
            return NotImplemented
    x = a._k or a._materialize()
    if type(b) is ndarray:
        y = b._k or b._materialize()
        if (not reflected and b._shape == a._shape and b._dtype == a._dtype
                and op != OP_POWER and a._dtype.kind in "iuf" and
                not _root(a)._escaped and not _root(b)._escaped):
            return _pending_result(a, b, op, stream)
        try:
            k = y.binary(op, x, stream) if reflected else \
                x.binary(op, y, stream)
        except _kiln.KilnError as error:
            raise _translate(error) from None
        return _wrap(k)
    if not reflected and a._dtype.kind in "iuf" and not _root(a)._escaped \
            and (a._dtype.kind == "f" or isinstance(b, int)):
        return _pending_result(a, b, op, stream)
    try:
        k = x.binary(op, b, stream, reflected)
    except _kiln.KilnError as error:
        raise _translate(error) from None
    return _wrap(k)


def _pending_result(a, b, op, stream):
    """a OP b, to be evaluated when first used (its shape a's; its dtype
    as libkiln-array will give it: bool for comparisons, float64 for
    integers divided, else a's)."""
    result = _new(ndarray)
    result._k = None
    result._lazy = (op, a, b, stream)
    result._shape = a._shape
    if op >= OP_EQUAL:
        result._dtype = _BOOL
    elif op == OP_DIVIDE and a._dtype.kind != "f":
        result._dtype = _FLOAT64
    else:
        result._dtype = a._dtype
    result._base = None
    result._buffer = None
    result._escaped = False
    key = id(result)
    _pending[key] = _weakref.ref(result, _forget(key))
    return result


def _math_fn(a, function):
    try:
        return _wrap(a._a().math(function, _state.stream()))
    except _kiln.KilnError as error:
        raise _translate(error) from None


# ---- reductions ---------------------------------------------------------------------

def _axes(axis, ndim):
    if axis is None:
        return None
    if isinstance(axis, tuple):
        axes = sorted({_axis(a, ndim) for a in axis})
        if len(axes) != len(axis):
            raise ValueError("duplicate value in 'axis'")
        return axes
    return [_axis(axis, ndim)]


def _keep(result, shape, axes):
    if axes is None:
        return result.reshape((1,) * len(shape))
    return result.reshape(tuple(1 if d in axes else s
                                for d, s in enumerate(shape)))


def _reduce(a, op, axis, dtype, out, keepdims):
    if not isinstance(a, ndarray):
        raise TypeError(f"Unsupported type {type(a)}")
    shape = a._shape
    axes = _axes(axis, len(shape))
    if op in (R_ARGMIN, R_ARGMAX) and axes is not None and len(axes) > 1:
        raise TypeError("argmin/argmax take one axis")
    stream = _state.stream()
    lazy = a._lazy
    try:
        if lazy is not None and dtype is None and lazy[3] is stream and \
                (axes is None or len(axes) == 1):
            # the operation reduced in one pass
            x, y = lazy[1], lazy[2]
            k = x._k.reduce_binary(op, lazy[0],
                                   y._k if type(y) is ndarray else y,
                                   None if axes is None else axes[0], stream)
            result = _wrap(k)
        else:
            if dtype is not None:
                a = a.astype(dtype, copy=False)
            k = a._k or a._materialize()
            if axes is None:
                result = _wrap(k.reduce(op, None, stream))
            elif len(axes) == 1:
                result = _wrap(k.reduce(op, axes[0], stream))
            elif op == R_MEAN:
                total = _reduce(a, R_SUM, axis, None, None, False)
                count = _size(shape[d] for d in axes)
                result = total / count if a._dtype.kind == "f" else \
                    total.astype(_FLOAT64) / count
            else:
                # one axis at a time, the last first (indices stay valid)
                result = a
                for d in reversed(axes):
                    result = _wrap(result._a().reduce(op, d, stream))
    except _kiln.KilnError as error:
        raise _translate(error) from None
    if dtype is not None and op in (R_SUM, R_PROD):
        result = result.astype(dtype, copy=False)
    if keepdims:
        result = _keep(result, shape, axes)
    if out is not None:
        out[...] = result
        return out
    return result


def sum(a, axis=None, dtype=None, out=None, keepdims=False):  # noqa: A001
    """The sum of the elements (over everything: a 0-d array)."""
    return _reduce(a, R_SUM, axis, dtype, out, keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product of the elements."""
    return _reduce(a, R_PROD, axis, dtype, out, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """The mean of the elements."""
    return _reduce(a, R_MEAN, axis, dtype, out, keepdims)


def amin(a, axis=None, out=None, keepdims=False):
    """The smallest element."""
    return _reduce(a, R_MIN, axis, None, out, keepdims)


def amax(a, axis=None, out=None, keepdims=False):
    """The largest element."""
    return _reduce(a, R_MAX, axis, None, out, keepdims)


min = amin  # noqa: A001
max = amax  # noqa: A001


def argmin(a, axis=None, dtype=None, out=None, keepdims=False):
    """The index of the first smallest element."""
    return _reduce(a, R_ARGMIN, axis, None, out, keepdims)


def argmax(a, axis=None, dtype=None, out=None, keepdims=False):
    """The index of the first largest element."""
    return _reduce(a, R_ARGMAX, axis, None, out, keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The variance, mean(|a - a.mean()|**2) * n / (n - ddof)."""
    if a._dtype.kind != "f" or dtype is not None:
        a = a.astype(_FLOAT64 if dtype is None else dtype)
    axes = _axes(axis, a.ndim)
    centred = a - a.mean(axis, keepdims=True)
    result = (centred * centred).mean(axis, keepdims=keepdims)
    if ddof:
        n = a.size if axes is None else _size(a._shape[d] for d in axes)
        result = result * (n / _builtins.max(n - ddof, 0))
    if out is not None:
        out[...] = result
        return out
    return result


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The standard deviation, sqrt(var)."""
    result = sqrt(var(a, axis, dtype, None, ddof, keepdims))
    if out is not None:
        out[...] = result
        return out
    return result


def _truth(a, op, axis, out, keepdims):
    if not isinstance(a, ndarray):
        a = asarray(a)
    if a.size == 0 and axis is None:
        result = array(op == R_MIN)
    else:
        a = a._k or a._materialize()
        a = _wrap(a)
        axes = _axes(axis, a.ndim)
        stream = _state.stream()
        try:
            if axes is None or len(axes) == 1:
                result = _wrap(a._k.reduce_binary(
                    op, OP_NOT_EQUAL, 0, None if axes is None else axes[0],
                    stream))
            else:
                result = _reduce(a != 0, op, axis, None, None, False)
        except _kiln.KilnError as error:
            raise _translate(error) from None
        if keepdims:
            result = _keep(result, a._shape, axes)
    if out is not None:
        out[...] = result
        return out
    return result


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Whether every element is nonzero (a bool array)."""
    return _truth(a, R_MIN, axis, out, keepdims)


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Whether some element is nonzero (a bool array)."""
    return _truth(a, R_MAX, axis, out, keepdims)


def count_nonzero(a, axis=None):
    """How many elements are nonzero (int64)."""
    k = a._a()
    try:
        return _wrap(k.reduce_binary(R_SUM, OP_NOT_EQUAL, 0, axis,
                                     _state.stream()))
    except _kiln.KilnError as error:
        raise _translate(error) from None


# ---- elementwise functions ------------------------------------------------------------

def _operand(x):
    """x as something _binary takes: an ndarray, or a scalar."""
    if isinstance(x, ndarray) or _is_scalar(x):
        return x
    raise TypeError(f"Unsupported type {type(x)}")


def _ufunc2(op, x1, x2, out=None, dtype=None):
    x1, x2 = _operand(x1), _operand(x2)
    if isinstance(x1, ndarray):
        result = _binary(x1, x2, op)
    elif isinstance(x2, ndarray):
        result = _binary(x2, x1, op, True)
    else:
        result = array(_NUMPY_OPS[op](x1, x2))
    if result is NotImplemented:
        raise TypeError(f"Unsupported types {type(x1)} and {type(x2)}")
    if dtype is not None:
        result = result.astype(dtype, copy=False)
    if out is not None:
        out[...] = result
        return out
    return result


_NUMPY_OPS = {OP_ADD: _np.add, OP_SUBTRACT: _np.subtract,
              OP_MULTIPLY: _np.multiply, OP_DIVIDE: _np.true_divide,
              OP_POWER: _np.power, OP_MAXIMUM: _np.maximum,
              OP_MINIMUM: _np.minimum, OP_EQUAL: _np.equal,
              OP_NOT_EQUAL: _np.not_equal, OP_LESS: _np.less,
              OP_LESS_EQUAL: _np.less_equal, OP_GREATER: _np.greater,
              OP_GREATER_EQUAL: _np.greater_equal}


def _make_ufunc2(op, name, doc):
    def ufunc(x1, x2, out=None, dtype=None):
        return _ufunc2(op, x1, x2, out, dtype)
    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = doc
    return ufunc


add = _make_ufunc2(OP_ADD, "add", "x1 + x2, elementwise, broadcast.")
subtract = _make_ufunc2(OP_SUBTRACT, "subtract", "x1 - x2, elementwise.")
multiply = _make_ufunc2(OP_MULTIPLY, "multiply", "x1 * x2, elementwise.")
divide = true_divide = _make_ufunc2(OP_DIVIDE, "true_divide",
                                    "x1 / x2 (integers give float64).")
power = _make_ufunc2(OP_POWER, "power", "x1 ** x2, elementwise.")
maximum = _make_ufunc2(OP_MAXIMUM, "maximum",
                       "The larger of x1 and x2 (NaN if either is).")
minimum = _make_ufunc2(OP_MINIMUM, "minimum",
                       "The smaller of x1 and x2 (NaN if either is).")
equal = _make_ufunc2(OP_EQUAL, "equal", "x1 == x2 (a bool array).")
not_equal = _make_ufunc2(OP_NOT_EQUAL, "not_equal", "x1 != x2.")
less = _make_ufunc2(OP_LESS, "less", "x1 < x2.")
less_equal = _make_ufunc2(OP_LESS_EQUAL, "less_equal", "x1 <= x2.")
greater = _make_ufunc2(OP_GREATER, "greater", "x1 > x2.")
greater_equal = _make_ufunc2(OP_GREATER_EQUAL, "greater_equal", "x1 >= x2.")


def _make_ufunc1(function, name, doc):
    def ufunc(x, out=None, dtype=None):
        if not isinstance(x, ndarray):
            if _is_scalar(x):
                x = array(x)
            else:
                raise TypeError(f"Unsupported type {type(x)}")
        result = _math_fn(x, function)
        if dtype is not None:
            result = result.astype(dtype, copy=False)
        if out is not None:
            out[...] = result
            return out
        return result
    ufunc.__name__ = ufunc.__qualname__ = name
    ufunc.__doc__ = doc
    return ufunc


negative = _make_ufunc1(FN_NEGATIVE, "negative", "-x, elementwise.")
absolute = _make_ufunc1(FN_ABS, "absolute", "|x|, elementwise.")
abs = absolute  # noqa: A001
fabs = absolute
square = _make_ufunc1(FN_SQUARE, "square", "x * x, elementwise.")
sqrt = _make_ufunc1(FN_SQRT, "sqrt", "The square root (integers give "
                    "float32 up to 16 bits, else float64).")
exp = _make_ufunc1(FN_EXP, "exp", "e to the x.")
log = _make_ufunc1(FN_LOG, "log", "The natural logarithm.")
log10 = _make_ufunc1(FN_LOG10, "log10", "The logarithm base 10.")
sin = _make_ufunc1(FN_SIN, "sin", "The sine.")
cos = _make_ufunc1(FN_COS, "cos", "The cosine.")
tan = _make_ufunc1(FN_TAN, "tan", "The tangent.")
tanh = _make_ufunc1(FN_TANH, "tanh", "The hyperbolic tangent.")
floor = _make_ufunc1(FN_FLOOR, "floor", "The largest integer not above x.")
ceil = _make_ufunc1(FN_CEIL, "ceil", "The smallest integer not below x.")


def _result_type(*values):
    """NumPy 2's (NEP 50) dtype of an operation on `values`: arrays and
    NumPy scalars are strong, Python numbers weak."""
    strong = [v.dtype for v in values if isinstance(v, (ndarray, _np.ndarray,
                                                        _np.generic))]
    weak = [v for v in values if not isinstance(v, (ndarray, _np.ndarray,
                                                    _np.generic))]
    if not strong:
        return _np.result_type(*[{bool: _BOOL, int: _INT64}.get(
            type(v), _FLOAT64) for v in weak])
    dtype = _np.result_type(*strong)
    for v in weak:
        if isinstance(v, float) and dtype.kind in "biu":
            dtype = _np.result_type(dtype, _FLOAT64)
        elif isinstance(v, int) and not isinstance(v, bool) and \
                dtype.kind == "b":
            dtype = _INT64
    return dtype


def floor_divide(x1, x2, out=None):
    """x1 // x2: floor(x1 / x2), in NumPy's dtype (floats, and integers of
    up to 32 bits, which float64 divides exactly)."""
    dtype = _result_type(x1, x2)
    if dtype.kind == "b":
        dtype = _np.dtype(_np.int8)
    if dtype.kind in "iu" and dtype.itemsize == 8:
        raise NotImplementedError("floor division of 64-bit integers")
    result = floor(true_divide(x1, x2)).astype(dtype, copy=False)
    if out is not None:
        out[...] = result
        return out
    return result


def remainder(x1, x2, out=None):
    """x1 % x2 with the divisor's sign, as Python and NumPy give it."""
    result = subtract(x1, multiply(floor_divide(x1, x2), x2))
    if out is not None:
        out[...] = result
        return out
    return result


mod = remainder


def logical_not(x, out=None):
    """not x (a bool array)."""
    return _ufunc2(OP_EQUAL, x, False if x._dtype == _BOOL else 0, out)


def _as_bool(x):
    if isinstance(x, ndarray):
        return x if x._dtype == _BOOL else x != 0
    return bool(x)


def logical_and(x1, x2, out=None):
    """x1 and x2 (a bool array)."""
    return _ufunc2(OP_MINIMUM, _as_bool(x1), _as_bool(x2), out)


def logical_or(x1, x2, out=None):
    """x1 or x2 (a bool array)."""
    return _ufunc2(OP_MAXIMUM, _as_bool(x1), _as_bool(x2), out)


def logical_xor(x1, x2, out=None):
    """x1 xor x2 (a bool array)."""
    return _ufunc2(OP_NOT_EQUAL, _as_bool(x1), _as_bool(x2), out)


def isnan(x):
    """Whether each element is NaN."""
    return x != x if x._dtype.kind == "f" else zeros(x._shape, _BOOL)


def isinf(x):
    """Whether each element is infinite."""
    return absolute(x) == _np.inf if x._dtype.kind == "f" else \
        zeros(x._shape, _BOOL)


def isfinite(x):
    """Whether each element is finite (x - x is 0 only then)."""
    return (x - x) == 0 if x._dtype.kind == "f" else ones(x._shape, _BOOL)


def clip(a, a_min, a_max, out=None):
    """a limited to [a_min, a_max]."""
    result = a
    if a_min is not None:
        result = maximum(result, a_min)
    if a_max is not None:
        result = minimum(result, a_max)
    if result is a:
        result = a.copy()
    if out is not None:
        out[...] = result
        return out
    return result


def where(condition, x=None, y=None):
    """x where condition is nonzero, else y (broadcast together)."""
    if x is None and y is None:
        raise NotImplementedError("where(condition) (nonzero) is not "
                                  "available in kiln.cupy")
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    condition = asarray(condition)
    if not isinstance(x, ndarray) and not isinstance(y, ndarray):
        dtype = _result_type(x, y)
        x, y = full((), x, dtype), full((), y, dtype)
    elif not isinstance(x, ndarray):
        x = _weak_like(x, y)
    elif not isinstance(y, ndarray):
        y = _weak_like(y, x)
    try:
        return _wrap(_kiln.array_where(condition._a(), x._a(), y._a(),
                                       _state.stream()))
    except _kiln.KilnError as error:
        raise _translate(error) from None


def _weak_like(value, other):
    """A Python scalar as a 0-d array of the dtype NEP 50 gives it beside
    the array `other`."""
    if isinstance(value, ndarray):
        return value
    return full((), value, _result_type(value, other))


# ---- creation ---------------------------------------------------------------------

def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    """A new array on the current device from a NumPy array, a list or a
    scalar (or a copy of an ndarray)."""
    if isinstance(obj, ndarray):
        result = obj.astype(obj._dtype if dtype is None else dtype,
                            copy=copy)
    else:
        host = _np.asarray(obj, dtype=None if dtype is None else
                           _np.dtype(dtype))
        if host.dtype.kind not in "biuf":
            raise ValueError(f"kiln.cupy has no arrays of {host.dtype} "
                             f"({type(obj).__name__})")
        host = _np.asarray(host, dtype=_dtype(host.dtype), order="C")
        try:
            k = _kiln.array_from_host(_state.context(), _code(host.dtype),
                                      host.shape, host, _state.stream())
        except _kiln.KilnError as error:
            raise _translate(error) from None
        result = _wrap(k)
    if ndmin > result.ndim:
        result = result.reshape((1,) * (ndmin - result.ndim) + result._shape)
    return result


def asarray(a, dtype=None, order=None):
    """`a` as an ndarray: itself when it is one of the dtype already."""
    if isinstance(a, ndarray) and (dtype is None or
                                   _dtype(dtype) == a._dtype):
        return a
    return array(a, dtype, copy=False)


asanyarray = asarray


def ascontiguousarray(a, dtype=None):
    """`a` C-contiguous (itself when it is)."""
    a = asarray(a, dtype)
    return a if a._is_c() else a.copy()


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """A NumPy array of `a` (copied from the device when it is an
    ndarray)."""
    if isinstance(a, ndarray):
        return a.get(stream, order, out)
    return _np.asarray(a, order=order)


def copy(a, order="K"):
    """A copy of `a`."""
    return asarray(a).copy()


def _create(shape, dtype, fill, value=0.0):
    shape = _shape_arg(shape)
    dtype = _dtype(dtype)
    try:
        return _wrap(_kiln.array_create(_state.context(), _code(dtype), shape,
                                        fill, float(value), _state.stream()))
    except _kiln.KilnError as error:
        raise _translate(error) from None


def empty(shape, dtype=float, order="C"):
    """An array of undefined contents (float64 unless told)."""
    return _create(shape, dtype, "empty")


def zeros(shape, dtype=float, order="C"):
    """An array of zeros (float64 unless told)."""
    return _create(shape, dtype, "zeros")


def ones(shape, dtype=float, order="C"):
    """An array of ones (float64 unless told)."""
    return _create(shape, dtype, "ones")


def full(shape, fill_value, dtype=None, order="C"):
    """An array of `fill_value` (of its NumPy dtype unless told)."""
    if isinstance(fill_value, ndarray):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = _np.array(fill_value).dtype
    return _create(shape, dtype, "full", _number(fill_value))


def _like(a, dtype, shape):
    return (a._shape if shape is None else shape,
            a._dtype if dtype is None else dtype)


def empty_like(a, dtype=None, order="K", subok=None, shape=None):
    """empty of a's shape and dtype."""
    return empty(*_like(a, dtype, shape))


def zeros_like(a, dtype=None, order="K", subok=None, shape=None):
    """zeros of a's shape and dtype."""
    return zeros(*_like(a, dtype, shape))


def ones_like(a, dtype=None, order="K", subok=None, shape=None):
    """ones of a's shape and dtype."""
    return ones(*_like(a, dtype, shape))


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None):
    """full of a's shape and dtype."""
    shape, dtype = _like(a, dtype, shape)
    return full(shape, fill_value, dtype)


def arange(start, stop=None, step=1, dtype=None):
    """numpy.arange on the device: start, start + step, ... below stop."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = _FLOAT64 if _builtins.any(
            isinstance(v, (float, _np.floating)) for v in (start, stop, step)) \
            else _INT64
    dtype = _dtype(dtype)
    try:
        return _wrap(_kiln.array_arange(_state.context(), _code(dtype),
                                        float(start), float(stop),
                                        float(step), _state.stream()))
    except _kiln.KilnError as error:
        raise _translate(error) from None


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None,
             axis=0):
    """`num` evenly spaced values from start to stop (stop included unless
    endpoint=False)."""
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    divisions = num - 1 if endpoint else num
    step = (stop - start) / divisions if divisions > 0 else _np.nan
    last = stop if endpoint else start + step * (num - 1)
    dtype = _FLOAT64 if dtype is None else _dtype(dtype)
    k = _kiln.array_linspace(_state.context(), _code(dtype), float(start),
                             float(last if num > 1 else start), num,
                             _state.stream())
    result = _wrap(k)
    return (result, step) if retstep else result


def eye(N, M=None, k=0, dtype=float, order="C"):  # noqa: N803 (NumPy's)
    """An N x M array with ones on diagonal k."""
    dtype = _dtype(dtype)
    return _wrap(_kiln.array_eye(_state.context(), _code(dtype), int(N),
                                 int(N if M is None else M), int(k),
                                 _state.stream()))


def identity(n, dtype=float):
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


def triu(m, k=0):
    """The upper triangle of the last two axes (elements below diagonal k
    set to 0; a vector is taken as rows of itself)."""
    try:
        return _wrap(asarray(m)._a().triu(int(k), _state.stream()))
    except _kiln.KilnError as error:
        raise _translate(error) from None


def tril(m, k=0):
    """The lower triangle (elements above diagonal k set to 0)."""
    try:
        return _wrap(asarray(m)._a().tril(int(k), _state.stream()))
    except _kiln.KilnError as error:
        raise _translate(error) from None


# ---- layout functions ---------------------------------------------------------------

def reshape(a, newshape, order="C"):
    """a.reshape(newshape)."""
    return a.reshape(newshape, order=order)


def ravel(a, order="C"):
    """a.ravel()."""
    return a.ravel(order)


def transpose(a, axes=None):
    """a.transpose(axes)."""
    return a.transpose(axes)


def swapaxes(a, axis1, axis2):
    """a.swapaxes(axis1, axis2)."""
    return a.swapaxes(axis1, axis2)


def squeeze(a, axis=None):
    """a.squeeze(axis)."""
    return a.squeeze(axis)


def expand_dims(a, axis):
    """A view with an axis of size one inserted at `axis`."""
    ndim = a.ndim + 1
    axis = _axis(axis, ndim)
    key = (slice(None),) * axis + (None,)
    return a[key]


def broadcast_to(array_, shape):
    """A read-only-by-convention view of `array_` broadcast to `shape`."""
    shape = _shape_arg(shape)
    a = asarray(array_)
    if len(shape) < a.ndim:
        raise ValueError("input operand has more dimensions than allowed")
    strides = [0] * (len(shape) - a.ndim) + list(a._elements())
    padded = (1,) * (len(shape) - a.ndim) + a._shape
    for d, (have, want) in enumerate(zip(padded, shape)):
        if have == want:
            continue
        if have != 1:
            raise ValueError(f"operands could not be broadcast together with "
                             f"remapped shapes {a._shape} and {shape}")
        strides[d] = 0
    return a._view(0, shape, tuple(strides))


def concatenate(arrays, axis=0, out=None, dtype=None):
    """The arrays joined along an existing axis."""
    arrays = [asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    first = arrays[0]
    axis = _axis(axis, first.ndim)
    shape = list(first._shape)
    shape[axis] = _builtins.sum(a._shape[axis] for a in arrays)
    if dtype is None:
        dtype = _np.result_type(*[a._dtype for a in arrays])
    result = empty(tuple(shape), dtype) if out is None else out
    start = 0
    for a in arrays:
        index = (slice(None),) * axis + (slice(start,
                                              start + a._shape[axis]),)
        result[index] = a
        start += a._shape[axis]
    return result


def stack(arrays, axis=0, out=None):
    """The arrays (of one shape) joined along a new axis."""
    arrays = [asarray(a) for a in arrays]
    return concatenate([expand_dims(a, axis) for a in arrays], axis, out)


def vstack(tup):
    """The arrays stacked as rows (1-D arrays become rows)."""
    return concatenate([a.reshape(1, -1) if a.ndim == 1 else a
                        for a in map(asarray, tup)], 0)


def hstack(tup):
    """The arrays joined along their second axis (the first for 1-D)."""
    arrays = [asarray(a) for a in tup]
    return concatenate(arrays, 0 if arrays[0].ndim == 1 else 1)


# ---- products -------------------------------------------------------------------------

def matmul(a, b, out=None):
    """The matrix product of 1-D and 2-D arrays (numpy.matmul)."""
    if not isinstance(a, ndarray) or not isinstance(b, ndarray):
        return NotImplemented if not isinstance(a, ndarray) else \
            matmul(a, asarray(b), out)
    if a.ndim == 1 and b.ndim == 1:
        result = dot(a, b)
    else:
        try:
            result = _wrap(a._a().matmul(b._a(), _state.stream()))
        except _kiln.KilnError as error:
            raise _translate(error) from None
    if out is not None:
        out[...] = result
        return out
    return result


def dot(a, b, out=None):
    """numpy.dot for scalars, 1-D and 2-D arrays; the inner product of two
    vectors is one pass (kiln_array_reduce_binary)."""
    if not isinstance(a, ndarray) or not isinstance(b, ndarray) or \
            a.ndim == 0 or b.ndim == 0:
        result = multiply(a, b)
    elif a.ndim == 1 and b.ndim == 1:
        if a._shape != b._shape:
            raise ValueError(f"shapes {a._shape} and {b._shape} not aligned")
        dtype = _np.result_type(a._dtype, b._dtype)
        x, y = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
        result = _wrap(x._a().reduce_binary(R_SUM, OP_MULTIPLY, y._a(), None,
                                            _state.stream()))
        # integer sums are int64; their low bits are the dtype's wrapped sum
        result = result.astype(dtype, copy=False)
    else:
        return matmul(a, b, out)
    if out is not None:
        out[...] = result
        return out
    return result


def vdot(a, b):
    """The inner product of the flattened arrays."""
    return dot(a.ravel(), b.ravel())


def inner(a, b):
    """The inner product of vectors (dot for 1-D)."""
    return dot(a, b)


def outer(a, b, out=None):
    """a[i] * b[j] for the flattened arrays."""
    result = multiply(a.ravel()[:, None], b.ravel()[None, :])
    if out is not None:
        out[...] = result
        return out
    return result


# ---- comparisons of whole arrays ------------------------------------------------------

def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| (or a == b), elementwise."""
    a, b = asarray(a), asarray(b)
    close = logical_or(a == b, absolute(a - b) <= atol + rtol * absolute(b))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of a is close to b's (a 0-d bool array)."""
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether the arrays have one shape and equal elements."""
    a1, a2 = asarray(a1), asarray(a2)
    if a1._shape != a2._shape:
        return array(False)
    return all(a1 == a2)

