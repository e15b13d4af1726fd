"""Runs PyCUDA's code on Kiln: after ``import kiln.pycuda.alias``,
``import pycuda.driver`` (any ``pycuda`` module) gives the
``kiln.pycuda`` module of that name.  It is also a pytest plugin, which is
how PyCUDA's own tests run unchanged on Kiln::

    python3 -m pytest -p kiln.pycuda.alias test_driver.py test_gpuarray.py

(A real ``pycuda`` installed next to Kiln is hidden while the alias is
active.)
"""
import importlib
import importlib.abc
import importlib.util
import sys


class PyCUDAAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``pycuda`` and ``pycuda.*`` as ``kiln.pycuda`` modules."""

    def find_spec(self, fullname, path=None, target=None):
        """A spec of this loader for pycuda and its modules."""
        if fullname == "pycuda" or fullname.startswith("pycuda."):
            return importlib.util.spec_from_loader(
                fullname, self, is_package=fullname == "pycuda")
        return None

    def create_module(self, spec):
        """The kiln.pycuda module of the same name."""
        module = importlib.import_module("kiln." + spec.name)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module):
        """Nothing to run: kiln.pycuda's module is already executed."""
        # the import system gave the module the alias's spec: give it back
        # its own (the module is already executed)
        module.__spec__ = self._own_spec


def install():
    """Makes ``pycuda`` import as ``kiln.pycuda`` (idempotent)."""
    if not any(isinstance(finder, PyCUDAAlias) for finder in sys.meta_path):
        for name in [n for n in sys.modules
                     if n == "pycuda" or n.startswith("pycuda.")]:
            del sys.modules[name]
        sys.meta_path.insert(0, PyCUDAAlias())


install()


def pytest_configure(config):
    """Registers PyCUDA's test marker."""
    config.addinivalue_line("markers", "cuda: a test that needs a device "
                                       "(PyCUDA's marker)")
