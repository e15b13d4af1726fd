"""CuPy's user-defined kernels on Kiln.

RawKernel and RawModule build CUDA C as it is written (NVRTC on CUDA,
Kiln's CUDA C -> OpenCL C translation on OpenCL devices) and launch it as
``kernel(grid, block, args, shared_mem=0)`` on the current stream; numbers
in `args` are converted to the kernel's parameter types (Kiln reads the
real parameter list), arrays go as pointers to their first element.

ElementwiseKernel and ReductionKernel take CuPy's parameter lists
("float32 x, T y, raw T z"), type placeholders, broadcasting and arrays of
any layout; their code is C that must build as OpenCL C (Kiln's generators
build it on every backend), with CUDA's single-precision math names
(sinf, expf...) and qualifiers defined.  A ReductionKernel reduces over
any axes (one work-group per output, its length split over more groups
when there are few outputs), map, reduce and post-map fused.
"""
import re as _re

import numpy as _np

import kiln as _kiln
from kiln.cupy import _core, _state
from kiln.pycuda._kernels import CUDA_COMPAT as _CUDA_COMPAT

_GROUP = 256


def _sizes(value):
    if type(value) is tuple:
        return value
    if isinstance(value, (int, _np.integer)):
        return (int(value),)
    return tuple(int(v) for v in value)


def _options(options):
    """(defines, includes, kept) of NVRTC-style options: -D and -I are
    Kiln's; -U goes on; the rest (-std=, --use_fast_math...) are NVRTC's
    choices Kiln makes itself per device."""
    defines, includes, kept = [], [], []
    options = list(options or ())
    i = 0
    while i < len(options):
        option = options[i]
        if option in ("-D", "-I", "-U") and i + 1 < len(options):
            option += options[i + 1]
            i += 1
        if option.startswith("-D"):
            defines.append(option[2:])
        elif option.startswith("-I"):
            includes.append(option[2:])
        elif option.startswith("-U"):
            kept.append(option)
        i += 1
    return defines, includes, " ".join(kept) or None


class _Program:
    """A CUDA C source built once per device."""

    def __init__(self, code, options, name=None, name_expressions=()):
        self.code = code
        self.options = _options(options)
        self.name = name
        # kernel template instances built up front (CuPy's
        # name_expressions); one asked for later builds the program again
        self.name_expressions = list(name_expressions)
        self._built = {}

    def get(self):
        device = _state.device_id()
        program = self._built.get(device)
        if program is None:
            defines, includes, kept = self.options
            program = self._built[device] = _kiln.Program(
                _state.context(), self.code, kept, "cuda", defines, includes,
                self.name, self.name_expressions or None)
        return program


class RawKernel:
    """A kernel of CUDA C source (CuPy's cupy.RawKernel), built on first
    use: ``kernel(grid, block, args, shared_mem=0)``."""

    def __init__(self, code, name, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 jitify=False, *, _program=None):
        self.code = code
        self.name = name
        self.options = tuple(options)
        self.backend = backend
        self._program = _program or _Program(code, options)
        self._kernels = {}

    @property
    def kernel(self):
        """The kiln.Kernel on the current device (built on first use)."""
        device = _state.device_id()
        kernel = self._kernels.get(device)
        if kernel is None:
            kernel = self._kernels[device] = \
                self._program.get().kernel(self.name)
        return kernel

    def compile(self, log_stream=None):
        """Builds the kernel now."""
        self.kernel  # noqa: B018 (building is the effect)

    def __call__(self, grid, block, args, *, shared_mem=0):
        """Launches on a grid of blocks (tuples of 1 to 3 sizes, or ints)
        on the current stream; `args` one value per parameter."""
        if _core._pending:
            _core._flush()
        self.kernel.launch(_sizes(grid), _sizes(block), args, shared_mem,
                           _state.stream())

    @property
    def max_threads_per_block(self):
        """The most threads per block this kernel can run with."""
        return self.kernel.max_block_size

    @property
    def attributes(self):
        """What Kiln knows of the kernel's attributes."""
        return {"max_threads_per_block": self.max_threads_per_block}


class RawModule:
    """A module of CUDA C source (CuPy's cupy.RawModule): get_function
    gives its kernels, by name or by a template instantiation listed in
    name_expressions ('fx3<float>')."""

    def __init__(self, code=None, *, path=None, options=(), backend="nvrtc",
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=False):
        if code is None:
            raise NotImplementedError(
                "RawModule(path=...) loads a cubin or PTX, which Kiln does "
                "not take; give the CUDA C source as code=")
        self.code = code
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions or ())
        self._program = _Program(code, options,
                                 name_expressions=self.name_expressions)

    def compile(self, log_stream=None):
        """Builds the module now."""
        self._program.get()

    def get_function(self, name):
        """The RawKernel of kernel `name` (a C name or a name
        expression)."""
        kernel = RawKernel(self.code, name, self.options,
                           _program=self._program)
        kernel.compile()
        return kernel

    def get_global(self, name):
        """A MemoryPointer to a __device__ or __constant__ variable."""
        return _core.MemoryPointer(self._program.get().get_global(name))


# ---- parameter lists ---------------------------------------------------------------

class _Param:
    def __init__(self, text):
        words = text.split()
        if not words:
            raise ValueError("an empty parameter")
        self.raw = words[0] == "raw"
        if self.raw:
            words = words[1:]
        if len(words) != 2:
            raise ValueError(f"parameter '{text}': a type and a name")
        type_name, self.name = words
        if not _re.fullmatch(r"[A-Za-z_]\w*", self.name):
            raise ValueError(f"parameter '{text}': a bad name")
        if self.name == "i" or self.name == "n" or \
                self.name.startswith("_"):
            raise ValueError(f"'{self.name}' is reserved")
        if len(type_name) == 1 and type_name.isalpha():
            self.placeholder, self.dtype = type_name, None
        else:
            self.placeholder = None
            self.dtype = _np.dtype(type_name)


def _params(text):
    text = text.strip()
    return [_Param(p) for p in text.split(",")] if text else []


def _ctype(dtype):
    return _kiln.OPENCL_C_TYPES[_np.dtype(dtype).name]


def _resolve(params, values, fixed=None):
    """The dtype of each placeholder: from the arrays and NumPy scalars
    given for it (which must agree), else from Python numbers."""
    types = dict(fixed or {})
    weak = {}
    for param, value in zip(params, values):
        if param.placeholder is None or value is None:
            continue
        if isinstance(value, (_core.ndarray, _np.generic, _np.ndarray)):
            dtype = _np.dtype(value.dtype)
            known = types.get(param.placeholder)
            if known is not None and known != dtype:
                raise TypeError(f"Type is mismatched: {param.placeholder} is "
                                f"{known} and {dtype}")
            types[param.placeholder] = dtype
        else:
            weak.setdefault(param.placeholder, value)
    for name, value in weak.items():
        if name not in types:
            types[name] = _core._result_type(value)
    return types


def _dtype_of(param, types):
    if param.dtype is not None:
        return param.dtype
    try:
        return types[param.placeholder]
    except KeyError:
        raise TypeError(f"cannot determine the type {param.placeholder} of "
                        f"'{param.name}'") from None


def _typedefs(types):
    return "".join(f"typedef {_ctype(dtype)} {name};\n"
                   for name, dtype in sorted(types.items()))


def _location(array):
    """(base Buffer, element offset, element strides) of an ndarray."""
    k = array._a()
    memory = k.memory
    item = array.dtype.itemsize
    if memory is None:
        return None, 0, k.strides
    return memory[0], memory[1] // item, k.strides


def _broadcast_strides(array, shape):
    """array's element strides against `shape` (0 where broadcast)."""
    strides = _location(array)[2]
    pad = len(shape) - array.ndim
    return tuple(0 if d < pad or array.shape[d - pad] == 1
                 else strides[d - pad] for d in range(len(shape)))


def _c_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def _ind_size(code, name="_ind", to="_n"):
    """CuPy's `_ind.size()` (the loop's size) as the kernel's parameter."""
    return code.replace(f"{name}.size()", f"((long){to})")


def _one_line(code):
    """C statements on one line, as Kiln's generators take an operation:
    comments become spaces, line splices are joined and line breaks
    outside literals become spaces ('#' lines stay, for the generator to
    refuse by name)."""
    out, i, n = [], 0, len(code)
    while i < n:
        c = code[i]
        if c in "\"'":  # a literal, to its closing quote
            j = i + 1
            while j < n and code[j] != c and code[j] != "\n":
                j += 2 if code[j] == "\\" else 1
            out.append(code[i:j + 1])
            i = j + 1
        elif code.startswith("//", i):
            while i < n and code[i] != "\n":
                i += 1
            out.append(" ")
        elif code.startswith("/*", i):
            end = code.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif code.startswith("\\\n", i):
            i += 2
        elif c in "\r\n":
            out.append(" ")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class ElementwiseKernel:
    """An elementwise kernel of CuPy's form (cupy.ElementwiseKernel):
    input and output parameter lists, the operation on one element of
    each, broadcasting, type placeholders, raw parameters indexed with i
    (and _ind.size()); outputs are made when not given."""

    def __init__(self, in_params, out_params, operation, name="kernel",
                 reduce_dims=True, preamble="", no_return=False,
                 return_tuple=False, **kwargs):
        self.in_params = _params(in_params)
        self.out_params = _params(out_params)
        names = [p.name for p in self.in_params + self.out_params]
        if len(set(names)) != len(names):
            raise ValueError("parameter names are not unique")
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.nargs = self.nin + self.nout
        self.operation = operation
        self.name = name
        self.preamble = preamble
        self.no_return = no_return
        self.return_tuple = return_tuple
        self._generators = {}

    def __call__(self, *args, size=None, block_size=None, stream=None):
        """Runs the operation for every element of the broadcast shape of
        the non-raw arrays (or `size` elements); returns the outputs."""
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name}: "
                            f"{self.nin} or {self.nargs} expected, "
                            f"{len(args)} given")
        params = self.in_params + self.out_params
        values = list(args) + [None] * (self.nargs - len(args))
        for k, value in enumerate(values):
            if isinstance(value, (_np.ndarray, list)):
                raise TypeError(f"Unsupported type {type(value)}")
            if params[k].raw and value is not None and \
                    not isinstance(value, _core.ndarray):
                raise TypeError(f"raw parameter '{params[k].name}' takes an "
                                "array")
        # outputs first, then inputs fix the placeholders (CuPy's order)
        types = _resolve(self.out_params, values[self.nin:])
        types = _resolve(self.in_params, values[:self.nin], types)
        arrays = [v for p, v in zip(params, values)
                  if isinstance(v, _core.ndarray) and not p.raw]
        if arrays:
            shape = _np.broadcast_shapes(*[a.shape for a in arrays])
        elif size is not None:
            shape = (int(size),)
        else:
            raise ValueError("Loop size is undecided: give size= when every "
                             "argument is raw or a number")
        for k in range(self.nin, self.nargs):
            param = params[k]
            if values[k] is None:
                values[k] = _core.empty(shape, _dtype_of(param, types))
            elif not param.raw and values[k].shape != shape:
                raise ValueError(f"output '{param.name}' has shape "
                                 f"{values[k].shape}, not {shape}")
        # inputs of a fixed type other than theirs are converted
        for k in range(self.nin):
            param, value = params[k], values[k]
            if isinstance(value, _core.ndarray) and param.dtype is not None \
                    and value.dtype != param.dtype:
                values[k] = value.astype(param.dtype)
        n = _core._size(shape)
        outputs = values[self.nin:]
        if n:
            self._launch(params, values, types, shape, n, stream)
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return outputs[0]
        return tuple(outputs)

    def _launch(self, params, values, types, shape, n, stream):
        ndim = len(shape)
        c_strides = _c_strides(shape)
        declarations, chars, launch_args = [], [], []
        signature, loads, stores, index = [], [], [], []

        def parameter(declaration, char, value):
            declarations.append(declaration)
            chars.append(char)
            launch_args.append(value)

        for k, (param, value) in enumerate(zip(params, values)):
            output = k >= self.nin
            dtype = _dtype_of(param, types)
            ctype = _ctype(dtype)
            name = param.name
            if param.raw:
                parameter(f"__global {ctype} *{name}", "P",
                          value._kiln_buffer)
                signature.append(("raw", dtype.str))
                continue
            if not isinstance(value, _core.ndarray):
                parameter(f"{ctype} {name}", _kiln.type_char(dtype),
                          _np.array(value, dtype=dtype)[()])
                signature.append(("value", dtype.str))
                continue
            if output and value.dtype != dtype:
                raise TypeError(f"output '{name}' is {value.dtype}, the "
                                f"kernel writes {dtype}")
            buffer, offset, _ = _location(value)
            strides = _broadcast_strides(value, shape)
            contiguous = strides == c_strides
            const = "" if output else "const "
            parameter(f"__global {const}{ctype} *_p_{name}", "P", buffer)
            parameter(f"long _o_{name}", "l", offset)
            if contiguous:
                at = f"_o_{name} + i"
            else:
                for d in range(ndim):
                    parameter(f"long _s_{name}_{d}", "l", strides[d])
                index.append(name)
                at = f"_i_{name}"
            if output:
                loads.append(f"{ctype} {name} = _p_{name}[{at}];")
                stores.append(f"_p_{name}[{at}] = {name};")
            else:
                loads.append(f"const {ctype} {name} = _p_{name}[{at}];")
            signature.append(("array", dtype.str, contiguous, output))
        parameter("long _n", "l", n)
        if index:
            for d in range(ndim):
                parameter(f"long _d_{d}", "l", shape[d])
        body = []
        if index:
            body.append("long _r = i, _c;")
            body += [f"long _i_{name} = _o_{name};" for name in index]
            for d in reversed(range(ndim)):
                body.append(f"_c = _r % _d_{d}; _r /= _d_{d};")
                body += [f"_i_{name} += _c * _s_{name}_{d};"
                         for name in index]
        body += loads
        body.append("{ " + _one_line(_ind_size(self.operation)) + " ;}")
        body += stores
        key = (tuple(signature), ndim, _state.device_id())
        generator = self._generators.get(key)
        if generator is None:
            generator = self._generators[key] = _kiln.Elementwise(
                _state.context(), ", ".join(declarations), " ".join(body),
                "".join(chars), _kernel_name(self.name),
                _CUDA_COMPAT + _typedefs(types) + (self.preamble or ""))
        if _core._pending:
            _core._flush()
        generator.launch(n, launch_args,
                         _state.stream() if stream is None else
                         getattr(stream, "_handle", stream))


def _kernel_name(name):
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return f"cupy_{name}"[:200]


class ReductionKernel:
    """A reduction of CuPy's form (cupy.ReductionKernel): map each element
    of the inputs (map_expr), combine the values a and b (reduce_expr,
    from `identity`), then write each result from a (post_map_expr) into
    the output; over every axis, or axis= (an int or a tuple), with
    keepdims=."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr,
                 post_map_expr, identity, name="reduce_kernel",
                 reduce_type=None, reduce_dims=True, preamble="", options=()):
        self.in_params = _params(in_params)
        self.out_params = _params(out_params)
        if len(self.out_params) != 1:
            raise NotImplementedError("ReductionKernel with more than one "
                                      "output")
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = identity
        self.name = name
        self.reduce_type = reduce_type
        self.preamble = preamble
        self._programs = {}

    def __call__(self, *args, out=None, axis=None, keepdims=False,
                 stream=None):
        """The reduction of the inputs (broadcast together) over `axis`
        (every axis when None)."""
        nin = len(self.in_params)
        if len(args) == nin + 1 and out is None:
            args, out = args[:nin], args[nin]
        if len(args) != nin:
            raise TypeError(f"Wrong number of arguments for {self.name}")
        output = self.out_params[0]
        types = _resolve(self.out_params, [out])
        types = _resolve(self.in_params, list(args), types)
        arrays = [a for p, a in zip(self.in_params, args)
                  if isinstance(a, _core.ndarray) and not p.raw]
        if not arrays:
            raise ValueError("a ReductionKernel needs an input array")
        shape = _np.broadcast_shapes(*[a.shape for a in arrays])
        ndim = len(shape)
        if axis is None:
            axes = list(range(ndim))
        else:
            axes = sorted({_core._axis(a, ndim) for a in
                           (axis if isinstance(axis, tuple) else (axis,))})
        kept = [d for d in range(ndim) if d not in axes]
        out_shape = tuple(shape[d] for d in kept)
        out_dtype = _dtype_of(output, types)
        if out is None:
            out = _core.empty(out_shape, out_dtype)
        elif out.shape not in (out_shape, _keep_shape(shape, axes)):
            raise ValueError(f"out has shape {out.shape}, not {out_shape}")
        values = list(args)
        for k, (param, value) in enumerate(zip(self.in_params, values)):
            if isinstance(value, _core.ndarray) and param.dtype is not None \
                    and value.dtype != param.dtype:
                values[k] = value.astype(param.dtype)
        if self.reduce_type is None:
            reduce_dtype = out_dtype
        elif len(self.reduce_type) == 1 and self.reduce_type in types:
            reduce_dtype = types[self.reduce_type]
        else:
            reduce_dtype = _np.dtype(self.reduce_type)
        # the kept axes first, the reduced ones last: (outer, length)
        order = kept + axes
        full = tuple(shape[d] for d in order)
        outer = _core._size(out_shape)
        length = _core._size(shape[d] for d in axes)
        result = out if out.shape == out_shape else out.reshape(out_shape)
        if outer:
            self._run(values, types, reduce_dtype, out_dtype, shape, order,
                      full, outer, length, result, stream)
        if keepdims:
            return result.reshape(_keep_shape(shape, axes))
        return result

    def _source(self, signature, types, reduce_dtype, out_dtype, ndim):
        rt, ot = _ctype(reduce_dtype), _ctype(out_dtype)
        output = self.out_params[0].name
        params, loads, index = [], [], []
        for param, (kind, dtype_str, contiguous) in zip(self.in_params,
                                                        signature):
            ctype = _ctype(_np.dtype(dtype_str))
            name = param.name
            if kind == "raw":
                params.append(f"__global const {ctype} *{name}")
            elif kind == "value":
                params.append(f"const {ctype} {name}")
            else:
                params.append(f"__global const {ctype} *_p_{name}, "
                              f"long _o_{name}")
                if contiguous:
                    loads.append(f"const {ctype} {name} = "
                                 f"_p_{name}[_o_{name} + _f];")
                else:
                    params.append(", ".join(f"long _s_{name}_{d}"
                                            for d in range(ndim)))
                    index.append(name)
                    loads.append(f"const {ctype} {name} = "
                                 f"_p_{name}[_i_{name}];")
        dims = ", ".join(f"long _d_{d}" for d in range(ndim))
        walk = []
        if index:
            walk.append("long _r = _f, _c;")
            walk += [f"long _i_{name} = _o_{name};" for name in index]
            for d in reversed(range(ndim)):
                walk.append(f"_c = _r % _d_{d}; _r /= _d_{d};")
                walk += [f"_i_{name} += _c * _s_{name}_{d};" for name in index]
        inputs = ", ".join(params)
        map_expr = _ind_size(self.map_expr, "_in_ind")
        post = _ind_size(_ind_size(self.post_map_expr, "_out_ind", "_out_n"),
                         "_in_ind", "_in_n")
        kernel = _kernel_name(self.name)
        tree = f"""
    _values[_x] = _acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint _half = {_GROUP // 2}; _half > 0; _half /= 2) {{
        if (_x < _half)
            _values[_x] = _reduce(_values[_x], _values[_x + _half]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }}"""
        return _CUDA_COMPAT + _typedefs(types) + (self.preamble or "") + f"""
typedef {rt} _reduce_t;
inline _reduce_t _reduce(_reduce_t a, _reduce_t b) {{ return ({self.reduce_expr}); }}

/* group g: output g / _splits, stretch g % _splits of its _length */
__kernel void {kernel}_partial({inputs}{", " if inputs else ""}{dims}, long _outer,
    long _length, long _splits, long _chunk, long _n,
    __global _reduce_t *_partials)
{{
    __local _reduce_t _values[{_GROUP}];
    const uint _x = get_local_id(0);
    const long _g = get_group_id(0), _o = _g / _splits, _s = _g % _splits;
    const long _start = _s * _chunk;
    const long _end = min(_start + _chunk, _length);
    _reduce_t _acc = (_reduce_t)({self.identity});
    for (long _j = _start + _x; _j < _end; _j += {_GROUP}) {{
        const long _f = _o * _length + _j;
        {" ".join(walk)}
        {" ".join(loads)}
        const _reduce_t _mapped = (_reduce_t)({map_expr});
        _acc = _reduce(_acc, _mapped);
    }}{tree}
    if (_x == 0)
        _partials[_g] = _values[0];
}}

__kernel void {kernel}_finish(__global const _reduce_t *_partials, long _splits,
    __global {ot} *_p_out, long _o_out, long _out_n, long _in_n)
{{
    __local _reduce_t _values[{_GROUP}];
    const uint _x = get_local_id(0);
    const long _o = get_group_id(0);
    _reduce_t _acc = (_reduce_t)({self.identity});
    for (long _s = _x; _s < _splits; _s += {_GROUP})
        _acc = _reduce(_acc, _partials[_o * _splits + _s]);{tree}
    if (_x == 0) {{
        const _reduce_t a = _values[0];
        {ot} {output} = _p_out[_o_out + _o];
        {{ {post}; }}
        _p_out[_o_out + _o] = {output};
    }}
}}
"""

    def _run(self, values, types, reduce_dtype, out_dtype, shape, order,
             full, outer, length, result, stream):
        ndim = len(full)
        c_strides = _c_strides(full)
        signature, args = [], []
        for param, value in zip(self.in_params, values):
            dtype = _dtype_of(param, types)
            if param.raw:
                signature.append(("raw", dtype.str, False))
                args.append(value._kiln_buffer)
            elif not isinstance(value, _core.ndarray):
                signature.append(("value", dtype.str, False))
                args.append(_np.array(value, dtype=dtype)[()])
            else:
                buffer, offset, _ = _location(value)
                strides = _broadcast_strides(value, shape)
                strides = tuple(strides[d] for d in order)
                contiguous = strides == c_strides
                signature.append(("array", dtype.str, contiguous))
                args += [buffer, offset]
                if not contiguous:
                    args += list(strides)
        key = (tuple(signature), ndim, reduce_dtype.str, out_dtype.str,
               _state.device_id())
        program = self._programs.get(key)
        if program is None:
            source = self._source(signature, types, reduce_dtype, out_dtype,
                                  ndim)
            program = _kiln.Program(_state.context(), source, None, "opencl",
                                    None, None, _kernel_name(self.name))
            name = _kernel_name(self.name)
            program = self._programs[key] = (program.kernel(name + "_partial"),
                                             program.kernel(name + "_finish"))
        partial, finish = program
        busy = 8 * _state.context().device_info()["compute_units"]
        splits = max(1, min(-(-length // (4 * _GROUP)),
                            -(-busy // outer) if outer < busy else 1))
        chunk = -(-length // splits) if length else 1
        partials = _core.empty((outer * splits,), reduce_dtype)
        handle = _state.stream() if stream is None else \
            getattr(stream, "_handle", stream)
        if _core._pending:
            _core._flush()
        n = outer * length
        partial.launch((outer * splits,), (_GROUP,),
                       args + list(full) + [outer, length, splits, chunk, n,
                                            partials._kiln_buffer],
                       None, handle)
        out_buffer, out_offset, _ = _location(result)
        if not result._is_c():
            raise NotImplementedError("out= of a ReductionKernel must be "
                                      "C-contiguous")
        finish.launch((outer,), (_GROUP,),
                      [partials._kiln_buffer, splits, out_buffer, out_offset,
                       outer, n], None, handle)


def _keep_shape(shape, axes):
    return tuple(1 if d in axes else s for d, s in enumerate(shape))


def fuse(*args, **kwargs):
    """cupy.fuse: the function is returned as it is and runs unfused (each
    operation its own kernel); kiln.cupy fuses an operation into the
    reduction that takes it ((x * y).sum()) by itself."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda function: function
