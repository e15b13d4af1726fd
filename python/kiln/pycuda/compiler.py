"""PyCUDA's compiler: SourceModule builds CUDA C at run time (NVRTC on
CUDA, Kiln's CUDA C -> OpenCL C translation on OpenCL devices)."""
import kiln as _kiln
from kiln.pycuda import driver as _driver
from kiln.pycuda.driver import CompileError  # noqa: F401

DEFAULT_NVCC_FLAGS = []


def _split_options(options):
    """nvcc options Kiln passes on: -D and -I (and -U); the rest are
    dropped (-arch, --use_fast_math...), as Kiln chooses per device."""
    defines, includes, kept = [], [], []
    options = list(options or [])
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
    return defines, includes, kept


class SourceModule(_driver.Module):
    """A module of CUDA C source (PyCUDA's SourceModule).  no_extern_c,
    arch, code, keep, cache_dir and nvcc are accepted; kernels are found
    by their C name with or without extern "C", and binaries are cached by
    Kiln (KILN_CACHE_DIR).  A source that does not build raises
    CompileError with the compiler's log."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False,
                 no_extern_c=False, arch=None, code=None, cache_dir=None,
                 include_dirs=(), name=None):
        defines, includes, kept = _split_options(options)
        try:
            program = _kiln.Program(_driver.current_kiln_context(), source,
                                    " ".join(kept) or None, "cuda", defines,
                                    list(include_dirs) + includes, name)
        except _kiln.BuildError as error:
            raise CompileError(str(error), stderr=error.message) from None
        super().__init__(program)


def compile(source, nvcc="nvcc", options=None, keep=False, no_extern_c=False,
            arch=None, code=None, cache_dir=None, include_dirs=(),
            target="cubin"):
    """Not available: Kiln does not hand out cubin or PTX."""
    raise NotImplementedError("Kiln builds CUDA C into modules itself "
                              "(SourceModule); it does not produce cubin")


class DynamicModule:
    """Not available: linking separate compilation units (dynamic
    parallelism) is not supported by Kiln."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("DynamicModule: dynamic parallelism and "
                                  "device linking are not supported by Kiln")


class DynamicSourceModule(DynamicModule):
    """Not available (see DynamicModule)."""
