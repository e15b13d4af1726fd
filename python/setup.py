"""Builds kiln._kiln, one C extension on CPython's limited API (one abi3
wheel for Python 3.11 and later), against libkiln and libkiln-array.

Where libkiln is found, in this order:
  1. KILN_BUILD_DIR: a configured and built Kiln tree (make check sets it);
  2. the Kiln source tree this folder is in, built in place (the README's
     quick start: ./configure && make);
  3. pkg-config's kiln.pc (an installed Kiln: make install).
The extension is linked with an rpath to that library's folder, so a wheel
works from any directory on the machine that built it; KILN_PYTHON_RPATH=no
leaves it out, for a distribution's package whose libkiln is in the
system's library path (debian/rules).
"""
import os
import re
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ["module.c", "context.c", "stream.c", "buffer.c", "args.c",
           "program.c", "array.c", "generator.c"]


def build_tree(top):
    """(include dirs, library dir) of a built Kiln tree, or None."""
    libs = os.path.join(top, ".libs")
    if not os.path.exists(os.path.join(libs, "libkiln.so")):
        return None
    source = top
    makefile = os.path.join(top, "Makefile")
    if os.path.exists(makefile):  # a build tree outside the source tree
        with open(makefile, encoding="utf-8") as text:
            match = re.search(r"^abs_top_srcdir = (.*)$", text.read(), re.M)
        if match:
            source = match.group(1).strip()
    return [os.path.join(source, "include")], libs


def pkg_config():
    """(include dirs, library dir) of an installed Kiln, or None."""
    try:
        cflags = subprocess.run(["pkg-config", "--cflags-only-I", "kiln"],
                                check=True, capture_output=True, text=True)
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "kiln"],
                                check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    includes = [flag[2:] for flag in shlex.split(cflags.stdout)]
    return includes, libdir.stdout.strip()


def find_kiln():
    build = os.environ.get("KILN_BUILD_DIR")
    if build:
        found = build_tree(os.path.abspath(build))
        if found is None:
            raise SystemExit(f"KILN_BUILD_DIR={build} holds no built libkiln "
                             "(.libs/libkiln.so): run make there first")
        return found
    found = build_tree(os.path.dirname(HERE)) or pkg_config()
    if found is None:
        raise SystemExit(
            "libkiln not found: install Kiln (make install, so that "
            "pkg-config --libs kiln works), build it in the source tree "
            "this package is in (./configure && make), or point "
            "KILN_BUILD_DIR at a built Kiln tree")
    return found


includes, libdir = find_kiln()
extension = Extension(
    "kiln._kiln",
    sources=[os.path.join("src", name) for name in SOURCES],
    include_dirs=includes,
    library_dirs=[libdir],
    libraries=["kiln-array", "kiln"],
    runtime_library_dirs=[] if os.environ.get("KILN_PYTHON_RPATH") == "no"
    else [libdir],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra"] +
    shlex.split(os.environ.get("KILN_PYTHON_CFLAGS", "")),
    py_limited_api=True,
)

setup(ext_modules=[extension],
      options={"bdist_wheel": {"py_limited_api": "cp311"}})
