"""Every public name of kiln, kiln.pycuda and kiln.cupy has a docstring
(issue 27, point 8): modules, classes, functions and methods, the extension's
types included."""
import importlib
import inspect

import pytest

MODULES = ["kiln", "kiln._kiln", "kiln.pycuda", "kiln.pycuda.driver",
           "kiln.pycuda.compiler", "kiln.pycuda.gpuarray",
           "kiln.pycuda.elementwise", "kiln.pycuda.reduction",
           "kiln.pycuda.scan", "kiln.pycuda.cumath", "kiln.pycuda.curandom",
           "kiln.pycuda.tools", "kiln.pycuda.characterize",
           "kiln.pycuda.alias", "kiln.cupy", "kiln.cupy._core",
           "kiln.cupy._kernels", "kiln.cupy._math", "kiln.cupy.cuda",
           "kiln.cupy.cuda.runtime", "kiln.cupy.random", "kiln.cupy.linalg"]


def public(namespace):
    for name in dir(namespace):
        if not name.startswith("_"):
            yield name, getattr(namespace, name)


def undocumented(module):
    missing = []
    if not (module.__doc__ or "").strip():
        missing.append(module.__name__)
    for name, value in public(module):
        if inspect.ismodule(value):
            continue
        if getattr(value, "__module__", module.__name__) not in \
                (module.__name__, "kiln._kiln", "kiln"):
            continue  # imported from elsewhere (numpy...)
        if inspect.isclass(value) or callable(value):
            if not (inspect.getdoc(value) or "").strip():
                missing.append(f"{module.__name__}.{name}")
        if inspect.isclass(value):
            for member, attribute in public(value):
                if callable(attribute) or isinstance(attribute, property):
                    doc = inspect.getdoc(attribute)
                    if not (doc or "").strip():
                        missing.append(f"{module.__name__}.{name}.{member}")
    return missing


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_has_a_docstring(name):
    module = importlib.import_module(name)
    assert undocumented(module) == []
