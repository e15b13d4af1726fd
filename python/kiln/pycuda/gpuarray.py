"""PyCUDA's gpuarray on Kiln: GPUArray, an n-d array in device memory with
NumPy's arithmetic, and the functions around it.

Arithmetic, comparisons, astype, arange and the random numbers run on
libkiln-array (kiln.Array); sums, dots, minima and maxima are Kiln
reduction kernels, as PyCUDA's are; everything runs on every backend.
Elementwise operations take contiguous arrays (C or Fortran order), as in
PyCUDA; get(), copy() and set() take any strides.
"""
import builtins as _builtins
import numbers as _numbers

import numpy as _np

import kiln as _kiln
from kiln.pycuda import _kernels
from kiln.pycuda import driver as _driver


# ---- CUDA's vector types as NumPy dtypes ------------------------------------------

class vec:  # noqa: N801 (PyCUDA's name)
    """CUDA's vector types (float3, int4...) as NumPy struct dtypes with
    CUDA's layout, and make_<type>(...) to build one."""


def _make_vec_types():
    alignments = {1: 1, 2: 2, 3: 1, 4: 4}
    bases = [("char", _np.int8), ("uchar", _np.uint8), ("short", _np.int16),
             ("ushort", _np.uint16), ("int", _np.int32), ("uint", _np.uint32),
             ("long", _np.int64), ("ulong", _np.uint64),
             ("longlong", _np.int64), ("ulonglong", _np.uint64),
             ("float", _np.float32), ("double", _np.float64)]
    for base_name, base in bases:
        for count in (1, 2, 3, 4):
            names = "xyzw"[:count]
            itemsize = _np.dtype(base).itemsize
            align = itemsize * alignments[count]
            size = -(-(itemsize * count) // align) * align
            dtype = _np.dtype({"names": list(names),
                               "formats": [base] * count,
                               "itemsize": size}, align=True)
            name = f"{base_name}{count}"
            setattr(vec, name, dtype)

            def make(*values, _dtype=dtype, _count=count):
                if len(values) != _count:
                    raise TypeError(f"expected {_count} components")
                return _np.array(tuple(values), dtype=_dtype)[()]
            make.__doc__ = f"A {name} value from its {count} components."
            setattr(vec, f"make_{name}", staticmethod(make))


_make_vec_types()


# ---- shapes and strides -------------------------------------------------------

def _shape_tuple(shape):
    if isinstance(shape, _np.ndarray):
        shape = shape.tolist()
    if isinstance(shape, (_numbers.Integral, _np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in (shape if _np.ndim(shape) else [shape]))


def _strides_for(shape, itemsize, order):
    strides, step = [], itemsize
    axes = range(len(shape)) if order == "F" else reversed(range(len(shape)))
    for axis in axes:
        strides.append(step)
        step *= _builtins.max(shape[axis], 1)
    return tuple(strides if order == "F" else reversed(strides))


def _size(shape):
    result = 1
    for s in shape:
        result *= s
    return result


class _ArrayFlags:
    def __init__(self, ary):
        self.c_contiguous = _is_contiguous(ary.shape, ary.strides,
                                           ary.dtype.itemsize, "C")
        self.f_contiguous = _is_contiguous(ary.shape, ary.strides,
                                           ary.dtype.itemsize, "F")
        self.forc = self.c_contiguous or self.f_contiguous

    def __repr__(self):
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n"
                f"  F_CONTIGUOUS : {self.f_contiguous}")


def _is_contiguous(shape, strides, itemsize, order):
    if _size(shape) <= 1:
        return True
    step = itemsize
    axes = range(len(shape)) if order == "F" else reversed(range(len(shape)))
    for axis in axes:
        if shape[axis] != 1 and strides[axis] != step:
            return False
        step *= shape[axis]
    return True


def _is_number(value):
    return isinstance(value, (_numbers.Number, _np.number, _np.bool_)) or \
        (isinstance(value, _np.ndarray) and value.ndim == 0)


# ---- GPUArray -------------------------------------------------------------------

class GPUArray:
    """An n-d array in device memory (PyCUDA's GPUArray).

    ``gpudata`` is a DeviceAllocation, a PointerHolderBase, an int address
    or None (a new allocation from ``allocator``); ``strides`` in bytes.
    """

    __array_priority__ = 100

    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None,
                 strides=None, order="C"):
        dtype = _np.dtype(dtype)
        shape = _shape_tuple(shape)
        self.shape = shape
        self.dtype = dtype
        self.size = _size(shape)
        self.nbytes = self.mem_size = self.size * dtype.itemsize
        self.strides = tuple(int(s) for s in strides) if strides is not None \
            else _strides_for(shape, dtype.itemsize, order)
        self.allocator = allocator if allocator is not None else \
            _driver.mem_alloc
        if gpudata is None and self.size:
            gpudata = self.allocator(self.nbytes)
        self.gpudata = gpudata
        self.base = base
        self._kiln_buffer = None if gpudata is None or not self.size \
            else _driver._buffer_of(gpudata)
        self._array = None

    # -- what it is --
    @property
    def ndim(self):
        """The number of axes."""
        return len(self.shape)

    @property
    def flags(self):
        """c_contiguous, f_contiguous and forc, as NumPy's flags."""
        return _ArrayFlags(self)

    @property
    def ptr(self):
        """The address of the first element (int(gpudata))."""
        return 0 if self._kiln_buffer is None else int(self._kiln_buffer)

    @property
    def itemsize(self):
        """Bytes of one element."""
        return self.dtype.itemsize

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "strides": self.strides,
                "typestr": self.dtype.str, "data": (self.ptr, False),
                "stream": None, "version": 3}

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __bool__(self):
        if self.size != 1:
            raise ValueError("the truth value of an array with more than "
                             "one element is ambiguous")
        return bool(self.get())

    def __float__(self):
        return float(self.get())

    def __int__(self):
        return int(self.get())

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    def __hash__(self):
        raise TypeError("GPUArrays are not hashable")

    # -- kiln arrays over the memory --
    def _contiguous_order(self):
        flags = self.flags
        if flags.c_contiguous:
            return "C"
        if flags.f_contiguous:
            return "F"
        return None

    def _kflat(self):
        """A kiln.Array of the elements in memory order, 1-d."""
        if self._array is None:
            if self._contiguous_order() is None:
                raise NotImplementedError(
                    "this operation takes contiguous arrays (C or Fortran "
                    "order); make one with .copy()")
            self._array = _kiln.array_from_buffer(
                self._kiln_buffer, 0, _kiln.dtype_code(self.dtype),
                (self.size,))
        return self._array

    def _new_like_me(self, dtype=None, order="C"):
        dtype = self.dtype if dtype is None else _np.dtype(dtype)
        if order == "K":
            order = self._contiguous_order() or "C"
        return GPUArray(self.shape, dtype, allocator=self.allocator,
                        order=order)

    def _from_flat(self, karray, dtype=None, shape=None, order=None):
        """A GPUArray over a kiln.Array result laid out as this one."""
        memory = karray.memory
        shape = self.shape if shape is None else shape
        dtype = _kiln.code_dtype(karray.dtype) if dtype is None else dtype
        order = order or self._contiguous_order() or "C"
        result = GPUArray(shape, dtype, allocator=self.allocator,
                          gpudata=None if memory is None else
                          memory[0].view(memory[1]),
                          order=order)
        if memory is not None:
            result._array = karray.reshape((result.size,))
        return result

    # -- host transfers --
    def set(self, ary, async_=False, stream=None):
        """Copies a host array of the same shape into this array."""
        ary = _np.asarray(ary)
        if ary.shape != self.shape:
            raise ValueError(f"shape {ary.shape} given for an array of "
                             f"{self.shape}")
        ary = ary.astype(self.dtype, copy=False)
        order = self._contiguous_order()
        if not self.size:
            return
        if order is None:
            temporary = to_gpu(ary)
            _copy_strided(self, temporary, stream)
            return
        host = _np.ascontiguousarray(ary) if order == "C" else \
            _np.asfortranarray(ary).T
        self._kiln_buffer.write(host, 0, stream, not async_)

    def set_async(self, ary, stream=None):
        """set() queued on a stream."""
        self.set(ary, async_=True, stream=stream)

    def get(self, ary=None, pagelocked=False, async_=False, stream=None):
        """The array as a new NumPy array (or into `ary`)."""
        order = self._contiguous_order()
        source = self if order is not None else self.copy()
        order = order or "C"
        if ary is None:
            ary = _driver.pagelocked_empty(self.shape, self.dtype, order) \
                if pagelocked else _np.empty(self.shape, self.dtype,
                                             order=order)
        elif ary.shape != self.shape or ary.dtype != self.dtype:
            raise TypeError("get(ary): ary must have the array's shape and "
                            "dtype")
        if self.size:
            target = ary if ary.flags.c_contiguous and order == "C" else \
                ary.T if ary.flags.f_contiguous and order == "F" else None
            if target is None:
                ary[...] = source.get()
            elif async_ or stream is not None:
                source._kiln_buffer.read(target, 0, stream, not async_)
            else:
                _driver._read_blocking(source._kiln_buffer, target)
        return ary

    def get_async(self, stream=None, ary=None):
        """get() queued on a stream."""
        return self.get(ary=ary, async_=True, stream=stream)

    def copy(self):
        """A new array with the same elements (contiguous, in this array's
        order when it has one)."""
        order = self._contiguous_order()
        result = self._new_like_me(order=order or "C")
        if not self.size:
            return result
        if order is not None:
            result._kiln_buffer.copy_from(self._kiln_buffer, self.nbytes)
        else:
            _copy_strided(result, self)
        return result

    def fill(self, value, stream=None):
        """Sets every element to `value`; returns the array."""
        if not self.size:
            return self
        if self._contiguous_order() is None:
            raise NotImplementedError("fill takes contiguous arrays")
        pattern = _np.array(value, dtype=self.dtype).tobytes()
        if len(pattern) in (1, 2, 4, 8, 16):
            self._kiln_buffer.fill(pattern, 0, self.nbytes, stream, False)
        else:
            self.set(_np.full(self.shape, value, self.dtype))
        return self

    # -- layout --
    def reshape(self, *shape, order="C"):
        """The same elements in another shape (-1 infers one size)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, _np.integer)):
            shape = shape[0]
        shape = list(_shape_tuple(shape))
        unknown = [i for i, s in enumerate(shape) if s == -1]
        if len(unknown) > 1:
            raise ValueError("can only specify one unknown dimension")
        if unknown:
            known = _size([s for s in shape if s != -1])
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape {self.shape} into {shape}")
            shape[unknown[0]] = self.size // known
        shape = tuple(shape)
        if _size(shape) != self.size:
            raise ValueError(f"cannot reshape an array of size {self.size} "
                             f"into shape {shape}")
        if order == "A":
            order = self._contiguous_order() or "C"
        memory_order = self._contiguous_order()
        if self.size <= 1 or memory_order == order or \
                (self.ndim <= 1 and memory_order is not None):
            source = self
        else:
            source = self._copy_in(order)
        return GPUArray(shape, self.dtype, allocator=self.allocator,
                        base=self, gpudata=source._kiln_buffer, order=order)

    def _copy_in(self, order):
        result = self._new_like_me(order=order)
        if self.size:
            _copy_strided(result, self)
        return result

    def ravel(self):
        """A 1-d array of the elements (a view when contiguous in C)."""
        return self.reshape(self.size)

    def view(self, dtype=None):
        """The same memory as another dtype (the last axis rescaled)."""
        if dtype is None:
            return GPUArray(self.shape, self.dtype, allocator=self.allocator,
                            base=self, gpudata=self._kiln_buffer,
                            strides=self.strides)
        dtype = _np.dtype(dtype)
        old, new = self.dtype.itemsize, dtype.itemsize
        if not self.flags.c_contiguous or (self.shape[-1] * old) % new:
            raise ValueError("view: the last axis does not divide into the "
                             "new dtype")
        shape = self.shape[:-1] + (self.shape[-1] * old // new,)
        return GPUArray(shape, dtype, allocator=self.allocator, base=self,
                        gpudata=self._kiln_buffer)

    def squeeze(self):
        """Without its axes of size 1."""
        keep = [i for i, s in enumerate(self.shape) if s != 1]
        return GPUArray(tuple(self.shape[i] for i in keep), self.dtype,
                        allocator=self.allocator, base=self,
                        gpudata=self._kiln_buffer,
                        strides=tuple(self.strides[i] for i in keep))

    def transpose(self, axes=None):
        """The axes permuted (reversed when None): a view."""
        if axes is None:
            axes = tuple(reversed(range(self.ndim)))
        axes = tuple(axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"axes {axes} are no permutation of the array's")
        return GPUArray(tuple(self.shape[a] for a in axes), self.dtype,
                        allocator=self.allocator, base=self,
                        gpudata=self._kiln_buffer,
                        strides=tuple(self.strides[a] for a in axes))

    @property
    def T(self):  # noqa: N802 (NumPy's name)
        """The transpose (a view)."""
        return self.transpose()

    def reverse(self, stream=None):
        """A new 1-d array with the elements in reverse order."""
        if self.ndim != 1:
            raise ValueError("reverse takes 1-d arrays")
        result = self._new_like_me()
        if self.size:
            kernel = _kernels.elementwise(
                _kernels.declare(("*out", self.dtype), ("*a", self.dtype),
                                 ("n", _np.int64)),
                "out[i] = a[n - 1 - i]", "reverse")
            kernel.launch(self.size, (result, self, self.size), stream)
        return result

    # -- indexing --
    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        if any(i is Ellipsis for i in index):
            at = next(k for k, i in enumerate(index) if i is Ellipsis)
            explicit = _builtins.sum(1 for i in index if i is not None and
                           i is not Ellipsis)
            index = index[:at] + (slice(None),) * (self.ndim - explicit) + \
                index[at + 1:]
        shape, strides, offset, axis = [], [], 0, 0
        for item in index:
            if item is None:
                shape.append(1)
                strides.append(0)
                continue
            if axis >= self.ndim:
                raise IndexError("too many indices")
            size, stride = self.shape[axis], self.strides[axis]
            if isinstance(item, slice):
                start, stop, step = item.indices(size)
                if step < 0:
                    raise NotImplementedError("negative steps in GPUArray "
                                              "indexing")
                count = len(range(start, stop, step))
                offset += start * stride if count else 0
                shape.append(count)
                strides.append(stride * step)
            elif isinstance(item, (_numbers.Integral, _np.integer)):
                item = int(item)
                if item < 0:
                    item += size
                if not 0 <= item < size:
                    raise IndexError(f"index {item} is out of bounds for an "
                                     f"axis of {size}")
                offset += item * stride
            else:
                raise NotImplementedError(f"GPUArray indexing by "
                                          f"{type(item).__name__}")
            axis += 1
        shape += self.shape[axis:]
        strides += self.strides[axis:]
        size = _size(shape)
        gpudata = self._kiln_buffer.view(offset) if size else None
        return GPUArray(tuple(shape), self.dtype, allocator=self.allocator,
                        base=self, gpudata=gpudata, strides=tuple(strides))

    def __setitem__(self, index, value):
        target = self[index]
        if isinstance(value, GPUArray):
            if value.shape != target.shape:
                value = _broadcast_to(value, target.shape)
            _copy_strided(target, value)
        elif _is_number(value):
            if target._contiguous_order() is not None:
                target.fill(value)
            else:
                target.set(_np.full(target.shape, value, target.dtype))
        else:
            target.set(_np.broadcast_to(_np.asarray(value, target.dtype),
                                        target.shape))

    # -- arithmetic --
    def _binary(self, other, op, reverse=False, stream=None, dtype=None):
        if isinstance(other, GPUArray):
            a, b = self, other
            if a.shape == b.shape and a.size > 1 and \
                    a._contiguous_order() != b._contiguous_order():
                b = b._copy_in(a._contiguous_order() or "C")
            if a.shape == b.shape or b.size == 1 or a.size == 1:
                ka = a._kflat() if a.size != 1 or a.shape == b.shape else \
                    a._kflat().reshape(())
                kb = b._kflat() if b.size != 1 or a.shape == b.shape else \
                    b._kflat().reshape(())
                like = a if a.size >= b.size else b
                result = ka.binary(op, kb, stream, reverse)
                return like._from_flat(result, dtype)
            shape = _np.broadcast_shapes(a.shape, b.shape)
            ka = a._c()._kflat().reshape(a.shape)
            kb = b._c()._kflat().reshape(b.shape)
            result = ka.binary(op, kb, stream, reverse)
            out = GPUArray(shape, dtype or _kiln.code_dtype(result.dtype),
                           allocator=self.allocator,
                           gpudata=result.memory[0].view(result.memory[1]))
            return out
        if not _is_number(other):
            return NotImplemented
        if isinstance(other, (complex, _np.complexfloating)):
            raise NotImplementedError("complex numbers are not supported")
        result = self._kflat().binary(op, float(other), stream, reverse)
        if isinstance(other, (float, _np.floating)) and \
                self.dtype.kind in "iu" and op != _kiln.OP_DIVIDE and \
                op < _kiln.OP_EQUAL and float(other).is_integer():
            # an integral float keeps integer arrays integral in Kiln; NumPy
            # makes them float64
            result = result.astype(_kiln.dtype_code(_np.float64), stream)
        return self._from_flat(result, dtype)

    def _c(self):
        return self if self.flags.c_contiguous else self._copy_in("C")

    def __add__(self, other):
        return self._binary(other, _kiln.OP_ADD)

    def __radd__(self, other):
        return self._binary(other, _kiln.OP_ADD, True)

    def __sub__(self, other):
        return self._binary(other, _kiln.OP_SUBTRACT)

    def __rsub__(self, other):
        return self._binary(other, _kiln.OP_SUBTRACT, True)

    def __mul__(self, other):
        return self._binary(other, _kiln.OP_MULTIPLY)

    def __rmul__(self, other):
        return self._binary(other, _kiln.OP_MULTIPLY, True)

    def __truediv__(self, other):
        return self._binary(other, _kiln.OP_DIVIDE)

    def __rtruediv__(self, other):
        return self._binary(other, _kiln.OP_DIVIDE, True)

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __pow__(self, other):
        return self._binary(other, _kiln.OP_POWER)

    def __rpow__(self, other):
        return self._binary(other, _kiln.OP_POWER, True)

    def _compare(self, other, op):
        return self._binary(other, op, dtype=_np.dtype(_np.bool_))

    def __eq__(self, other):
        return self._compare(other, _kiln.OP_EQUAL)

    def __ne__(self, other):
        return self._compare(other, _kiln.OP_NOT_EQUAL)

    def __lt__(self, other):
        return self._compare(other, _kiln.OP_LESS)

    def __le__(self, other):
        return self._compare(other, _kiln.OP_LESS_EQUAL)

    def __gt__(self, other):
        return self._compare(other, _kiln.OP_GREATER)

    def __ge__(self, other):
        return self._compare(other, _kiln.OP_GREATER_EQUAL)

    def _in_place(self, result):
        if result is NotImplemented:
            return result
        if result.shape != self.shape:
            raise ValueError(f"an in-place result of shape {result.shape} "
                             f"does not fit {self.shape}")
        if result.dtype != self.dtype:
            result = result.astype(self.dtype)
        _copy_strided(self, result)
        return self

    def __iadd__(self, other):
        return self._in_place(self + other)

    def __isub__(self, other):
        return self._in_place(self - other)

    def __imul__(self, other):
        return self._in_place(self * other)

    def __itruediv__(self, other):
        return self._in_place(self / other)

    __idiv__ = __itruediv__

    def __ipow__(self, other):
        return self._in_place(self ** other)

    def __neg__(self):
        return self._from_flat(self._kflat().math(_kiln.FN_NEGATIVE))

    def __pos__(self):
        return self.copy()

    def __abs__(self):
        return self._from_flat(self._kflat().math(_kiln.FN_ABS))

    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None,
                out=None):
        """selffac * self + otherfac * other, in one kernel."""
        dtype = _np.result_type(self.dtype, other.dtype)
        if out is None:
            out = self._new_like_me(dtype)
        kernel = _kernels.elementwise(
            _kernels.declare(("a", dtype), ("*x", self.dtype), ("b", dtype),
                             ("*y", other.dtype), ("*z", out.dtype)),
            "z[i] = a * x[i] + b * y[i]", "mul_add")
        kernel.launch(self.size, (selffac, self, otherfac, other, out), stream)
        return out

    def astype(self, dtype, stream=None):
        """A converted copy (C's conversion)."""
        dtype = _np.dtype(dtype)
        if dtype == self.dtype:
            return self.copy()
        return self._from_flat(
            self._kflat().astype(_kiln.dtype_code(dtype), stream), dtype)

    def conj(self, out=None, stream=None):
        """The array itself, copied (Kiln's arrays are real)."""
        if out is None:
            return self.copy()
        _copy_strided(out, self)
        return out

    conjugate = conj

    @property
    def real(self):
        """The array itself (Kiln's arrays are real)."""
        return self

    @property
    def imag(self):
        """Zeros of the array's shape (Kiln's arrays are real)."""
        return zeros_like(self)

    def any(self, stream=None, allocator=None):
        """Whether any element is nonzero (a 0-d bool array)."""
        return _truth(self, "a || b", "0", stream)

    def all(self, stream=None, allocator=None):
        """Whether every element is nonzero (a 0-d bool array)."""
        return _truth(self, "a && b", "1", stream)

    def sum(self, stream=None):
        """The sum of the elements (gpuarray.sum), a 0-d array."""
        return sum(self, stream=stream)

    def min(self, stream=None):
        """The smallest element (gpuarray.min), a 0-d array."""
        return min(self, stream)

    def max(self, stream=None):
        """The largest element (gpuarray.max), a 0-d array."""
        return max(self, stream)

    def dot(self, other, stream=None):
        """The inner product with `other` (gpuarray.dot), a 0-d array."""
        return dot(self, other, stream=stream)


# ---- helpers ------------------------------------------------------------------

def _copy_strided(dest, src, stream=None):
    """dest[...] = src for arrays of one shape and any strides."""
    if dest.shape != src.shape:
        raise ValueError(f"shapes {src.shape} and {dest.shape} differ")
    if not dest.size:
        return
    if src.dtype != dest.dtype:
        src = src.astype(dest.dtype)
    order = dest._contiguous_order()
    if order is not None and src._contiguous_order() == order:
        dest._kiln_buffer.copy_from(src._kiln_buffer, dest.nbytes, 0, 0,
                                    stream, False)
        return
    # one work-item per element of dest, in C order of the shape
    ndim = dest.ndim
    item = dest.dtype.itemsize
    pairs = [("*out", dest.dtype), ("*in", dest.dtype)]
    pairs += [(f"n{d}", _np.int64) for d in range(ndim)]
    pairs += [(f"s{d}", _np.int64) for d in range(ndim)]
    pairs += [(f"t{d}", _np.int64) for d in range(ndim)]
    body = "long r = i, from = 0, to = 0, k;"
    for d in reversed(range(ndim)):
        body += (f" k = r % n{d}; r /= n{d}; from += k * s{d};"
                 f" to += k * t{d};")
    body += " out[to] = in[from];"
    kernel = _kernels.elementwise(_kernels.declare(*pairs), body,
                                  f"copy_strided_{ndim}")
    for strides in (dest.strides, src.strides):
        if any(s % item or s < 0 for s in strides):
            raise NotImplementedError("strides that are negative or not "
                                      "multiples of the element size")
    args = [dest, src] + list(dest.shape) + [s // item for s in src.strides] \
        + [t // item for t in dest.strides]
    kernel.launch(dest.size, args, stream)


def _broadcast_to(ary, shape):
    host = ary.get()
    return to_gpu(_np.ascontiguousarray(_np.broadcast_to(host, shape)))


def _truth(ary, combine, neutral, stream):
    result = GPUArray((), _np.bool_, allocator=ary.allocator)
    kernel = _kernels.reduction(
        _np.bool_, neutral, combine, "a[i] != 0",
        _kernels.declare(("*a", ary.dtype)), "truth")
    kernel.run(ary.size, (ary,), result._kiln_buffer, 0, stream)
    return result


# ---- creation -------------------------------------------------------------------

def to_gpu(ary, allocator=None):
    """A GPUArray holding a copy of a host array (keeping Fortran order)."""
    ary = _np.asarray(ary)
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        ary = _np.ascontiguousarray(ary)
    order = "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous \
        else "C"
    result = GPUArray(ary.shape, ary.dtype, allocator, order=order)
    if result.size:
        result._kiln_buffer.write(ary if order == "C" else ary.T)
    return result


def to_gpu_async(ary, allocator=None, stream=None):
    """to_gpu queued on a stream."""
    ary = _np.ascontiguousarray(ary)
    result = GPUArray(ary.shape, ary.dtype, allocator)
    if result.size:
        result._kiln_buffer.write(ary, 0, stream, False)
    return result


def empty(shape, dtype=_np.float64, allocator=None, order="C"):
    """An array with undefined contents."""
    return GPUArray(shape, dtype, allocator, order=order)


def zeros(shape, dtype=_np.float64, allocator=None, order="C"):
    """An array of zeros (float64 unless told)."""
    return empty(shape, dtype, allocator, order).fill(0)


def ones(shape, dtype=_np.float64, allocator=None, order="C"):
    """An array of ones (float64 unless told)."""
    return empty(shape, dtype, allocator, order).fill(1)


def _like(other, dtype, order):
    dtype = other.dtype if dtype is None else _np.dtype(dtype)
    if order in ("K", "A"):
        order = "F" if other.flags.f_contiguous and \
            not other.flags.c_contiguous else "C"
    return GPUArray(other.shape, dtype, other.allocator, order=order)


def empty_like(other_ary, dtype=None, order="K"):
    """An array of another's shape (and dtype, and order)."""
    return _like(other_ary, dtype, order)


def zeros_like(other_ary, dtype=None, order="K"):
    """zeros of another's shape."""
    return _like(other_ary, dtype, order).fill(0)


def ones_like(other_ary, dtype=None, order="K"):
    """ones of another's shape."""
    return _like(other_ary, dtype, order).fill(1)


def arange(*args, **kwargs):
    """numpy.arange on the device: arange([start,] stop[, step], dtype=)."""
    dtype = kwargs.pop("dtype", None)
    stream = kwargs.pop("stream", None)
    allocator = kwargs.pop("allocator", None)
    kwargs.pop("order", None)
    if kwargs:
        raise TypeError(f"unexpected arguments {list(kwargs)}")
    start, step = 0, 1
    if len(args) == 1:
        stop = args[0]
    elif len(args) == 2:
        start, stop = args
    elif len(args) == 3:
        start, stop, step = args
    else:
        raise TypeError("arange takes 1 to 3 positional arguments")
    if dtype is None:
        dtype = _np.arange(start, stop, step).dtype
    dtype = _np.dtype(dtype)
    karray = _kiln.array_arange(_driver.current_kiln_context(),
                                _kiln.dtype_code(dtype), float(start),
                                float(stop), float(step), stream)
    size = karray.size
    memory = karray.memory
    result = GPUArray((size,), dtype, allocator=allocator,
                      gpudata=None if memory is None else
                      memory[0].view(memory[1]))
    if memory is not None:
        result._array = karray
    return result


# ---- reductions -----------------------------------------------------------------

def _reduce(ary, dtype_out, neutral, reduce_expr, map_expr, arguments, args,
            name, n, stream, allocator):
    result = GPUArray((), dtype_out,
                      allocator=allocator or ary.allocator)
    kernel = _kernels.reduction(dtype_out, neutral, reduce_expr, map_expr,
                                arguments, name)
    kernel.run(n, args, result._kiln_buffer, 0, stream)
    return result


def sum(a, dtype=None, stream=None, allocator=None):  # noqa: A001
    """The sum of the elements (a 0-d array of a's dtype unless told)."""
    dtype = a.dtype if dtype is None else _np.dtype(dtype)
    return _reduce(a, dtype, "0", "a + b", "in[i]",
                   _kernels.declare(("*in", a.dtype)), (a,), "sum", a.size,
                   stream, allocator)


def subset_sum(subset, a, dtype=None, stream=None, allocator=None):
    """The sum of a[subset[k]] over the indices in `subset`."""
    dtype = a.dtype if dtype is None else _np.dtype(dtype)
    return _reduce(a, dtype, "0", "a + b", "in[lookup[i]]",
                   _kernels.declare(("*lookup", subset.dtype),
                                    ("*in", a.dtype)),
                   (subset, a), "subset_sum", subset.size, stream, allocator)


def dot(a, b, dtype=None, stream=None, allocator=None):
    """The inner product of two arrays of one size."""
    if a.size != b.size:
        raise ValueError(f"dot of arrays of {a.size} and {b.size} elements")
    dtype = _np.result_type(a.dtype, b.dtype) if dtype is None else \
        _np.dtype(dtype)
    return _reduce(a, dtype, "0", "a + b", "a[i] * b[i]",
                   _kernels.declare(("*a", a.dtype), ("*b", b.dtype)), (a, b),
                   "dot", a.size, stream, allocator)


def subset_dot(subset, a, b, dtype=None, stream=None, allocator=None):
    """The inner product over the indices in `subset`."""
    dtype = _np.result_type(a.dtype, b.dtype) if dtype is None else \
        _np.dtype(dtype)
    return _reduce(a, dtype, "0", "a + b",
                   "a[lookup[i]] * b[lookup[i]]",
                   _kernels.declare(("*lookup", subset.dtype),
                                    ("*a", a.dtype), ("*b", b.dtype)),
                   (subset, a, b), "subset_dot", subset.size, stream,
                   allocator)


def _extreme(dtype, what):
    dtype = _np.dtype(dtype)
    if dtype.kind == "f":
        return ("INFINITY" if what == "min" else "-INFINITY",
                f"f{what}(a, b)")
    info = _np.iinfo(dtype)
    value = info.max if what == "min" else info.min
    suffix = {"i": "L", "u": "UL"}[dtype.kind] if dtype.itemsize == 8 else ""
    neutral = f"({value + 1}{suffix} - 1)" if value < 0 else f"{value}{suffix}"
    return neutral, f"{what}(a, b)"


def min(a, stream=None, allocator=None):  # noqa: A001
    """The smallest element (NaN ignored, as fminf does)."""
    neutral, combine = _extreme(a.dtype, "min")
    return _reduce(a, a.dtype, neutral, combine, "in[i]",
                   _kernels.declare(("*in", a.dtype)), (a,), "min", a.size,
                   stream, allocator)


def max(a, stream=None, allocator=None):  # noqa: A001
    """The largest element (NaN ignored, as fmaxf does)."""
    neutral, combine = _extreme(a.dtype, "max")
    return _reduce(a, a.dtype, neutral, combine, "in[i]",
                   _kernels.declare(("*in", a.dtype)), (a,), "max", a.size,
                   stream, allocator)


def subset_min(subset, a, stream=None, allocator=None):
    """The smallest a[subset[k]]."""
    neutral, combine = _extreme(a.dtype, "min")
    return _reduce(a, a.dtype, neutral, combine, "in[lookup[i]]",
                   _kernels.declare(("*lookup", subset.dtype),
                                    ("*in", a.dtype)),
                   (subset, a), "subset_min", subset.size, stream, allocator)


def subset_max(subset, a, stream=None, allocator=None):
    """The largest a[subset[k]]."""
    neutral, combine = _extreme(a.dtype, "max")
    return _reduce(a, a.dtype, neutral, combine, "in[lookup[i]]",
                   _kernels.declare(("*lookup", subset.dtype),
                                    ("*in", a.dtype)),
                   (subset, a), "subset_max", subset.size, stream, allocator)


# ---- elementwise functions -------------------------------------------------------

def _pairwise(a, b, op, out, stream):
    if isinstance(a, GPUArray):
        result = a._binary(b, op, stream=stream)
    else:
        result = b._binary(a, op, True, stream=stream)
    if out is not None:
        _copy_strided(out, result)
        return out
    return result


def maximum(a, b, out=None, stream=None):
    """The larger of each pair (a or b may be a number)."""
    return _pairwise(a, b, _kiln.OP_MAXIMUM, out, stream)


def minimum(a, b, out=None, stream=None):
    """The smaller of each pair (a or b may be a number)."""
    return _pairwise(a, b, _kiln.OP_MINIMUM, out, stream)


def if_positive(criterion, then_, else_, out=None, stream=None):
    """then_ where criterion > 0, else else_."""
    if not (criterion.shape == then_.shape == else_.shape):
        raise ValueError("if_positive takes arrays of one shape")
    dtype = _np.result_type(then_.dtype, else_.dtype)
    out = criterion._new_like_me(dtype) if out is None else out
    kernel = _kernels.elementwise(
        _kernels.declare(("*crit", criterion.dtype), ("*then_", then_.dtype),
                         ("*else_", else_.dtype), ("*out", out.dtype)),
        "out[i] = crit[i] > 0 ? then_[i] : else_[i]", "if_positive")
    kernel.launch(criterion.size, (criterion, then_, else_, out), stream)
    return out


def where(criterion, then_, else_, out=None, stream=None):
    """then_ where criterion is nonzero, else else_."""
    if not (criterion.shape == then_.shape == else_.shape):
        raise ValueError("where takes arrays of one shape")
    dtype = _np.result_type(then_.dtype, else_.dtype)
    out = criterion._new_like_me(dtype) if out is None else out
    kernel = _kernels.elementwise(
        _kernels.declare(("*crit", criterion.dtype), ("*then_", then_.dtype),
                         ("*else_", else_.dtype), ("*out", out.dtype)),
        "out[i] = crit[i] != 0 ? then_[i] : else_[i]", "where")
    kernel.launch(criterion.size, (criterion, then_, else_, out), stream)
    return out


def _logical(x, y, operator, name, stream):
    out = x._new_like_me(_np.bool_)
    if isinstance(y, GPUArray):
        kernel = _kernels.elementwise(
            _kernels.declare(("*x", x.dtype), ("*y", y.dtype),
                             ("*out", _np.bool_)),
            f"out[i] = (x[i] != 0) {operator} (y[i] != 0)", name)
        kernel.launch(x.size, (x, y, out), stream)
    else:
        kernel = _kernels.elementwise(
            _kernels.declare(("*x", x.dtype), ("y", _np.float64),
                             ("*out", _np.bool_)),
            f"out[i] = (x[i] != 0) {operator} (y != 0)", name + "_scalar")
        kernel.launch(x.size, (x, float(y), out), stream)
    return out


def logical_and(x1, x2, out=None, stream=None):
    """x1 and x2, elementwise (a bool array)."""
    if not isinstance(x1, GPUArray):
        x1, x2 = x2, x1
    return _logical(x1, x2, "&&", "logical_and", stream)


def logical_or(x1, x2, out=None, stream=None):
    """x1 or x2, elementwise (a bool array)."""
    if not isinstance(x1, GPUArray):
        x1, x2 = x2, x1
    return _logical(x1, x2, "||", "logical_or", stream)


def logical_not(x, out=None, stream=None):
    """not x, elementwise (a bool array)."""
    out = x._new_like_me(_np.bool_)
    kernel = _kernels.elementwise(
        _kernels.declare(("*x", x.dtype), ("*out", _np.bool_)),
        "out[i] = x[i] == 0", "logical_not")
    kernel.launch(x.size, (x, out), stream)
    return out


def take(a, indices, out=None, stream=None):
    """a[indices[k]] for each k."""
    out = GPUArray(indices.shape, a.dtype, a.allocator) if out is None \
        else out
    kernel = _kernels.elementwise(
        _kernels.declare(("*a", a.dtype), ("*idx", indices.dtype),
                         ("*out", a.dtype)),
        "out[i] = a[idx[i]]", "take")
    kernel.launch(indices.size, (a, indices, out), stream)
    return out


def concatenate(arrays, axis=0, allocator=None):
    """The arrays joined along an axis."""
    arrays = list(arrays)
    first = arrays[0]
    axis = axis % first.ndim if first.ndim else 0
    shape = list(first.shape)
    shape[axis] = _builtins.sum(a.shape[axis] for a in arrays)
    result = GPUArray(tuple(shape), _np.result_type(*arrays),
                      allocator or first.allocator)
    start = 0
    for ary in arrays:
        index = [slice(None)] * result.ndim
        index[axis] = slice(start, start + ary.shape[axis])
        if ary.size:
            result[tuple(index)] = ary
        start += ary.shape[axis]
    return result


def stack(arrays, axis=0, allocator=None):
    """The arrays (of one shape) joined along a new axis."""
    arrays = list(arrays)
    ndim = arrays[0].ndim
    axis = axis % (ndim + 1)
    expanded = [a.reshape(a.shape[:axis] + (1,) + a.shape[axis:])
                for a in arrays]
    return concatenate(expanded, axis, allocator)


def transpose(a, axes=None):
    """a.transpose(axes)."""
    return a.transpose(axes)


def reshape(a, shape):
    """a.reshape(shape)."""
    return a.reshape(shape)


def is_c_contiguous(ary):
    """Whether an array is C-contiguous."""
    return ary.flags.c_contiguous
