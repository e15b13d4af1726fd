#!/bin/sh
# Installs what building and testing Kiln needs on Debian 12 or Ubuntu
# 24.04: as root directly (a container), else through sudo.  The package
# lists are refreshed first: a fresh image has none.
#
# usage: sh tools/install-deps.sh
set -e
if [ "$(id -u)" = 0 ]; then
  as_root=
elif command -v sudo >/dev/null 2>&1; then
  as_root=sudo
else
  echo "install-deps: run this as root, or install sudo" >&2
  exit 1
fi
# autoconf/automake/libtool/autoconf-archive: the build; xxHash: the kernel
# cache's digests; ocl-icd + headers + PoCL: the OpenCL backend and a CPU
# device to run on; cmocka: the tests; g++: the test that kiln.h compiles
# as C++; cmake: make installcheck's CMake project; doxygen and python3:
# the reference manual (man pages, HTML); man-db: man to read it;
# python3-dev/-numpy/-pytest/-pip/-venv: the Python package (pip install
# ./python) and its tests.
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends \
  autoconf automake libtool autoconf-archive pkg-config make gcc g++ cmake \
  doxygen python3 man-db \
  libc6-dev libxxhash-dev ocl-icd-libopencl1 ocl-icd-opencl-dev \
  opencl-headers pocl-opencl-icd libcmocka-dev ca-certificates \
  python3-dev python3-numpy python3-pytest python3-pip python3-venv
# debhelper, dh-python, lintian: the Debian packages (debian/:
# dpkg-buildpackage -us -uc -b) and their check; debootstrap: the fresh
# Debian root CI installs them in.  KILN_DEPS_PACKAGING=0 skips them.
if [ "${KILN_DEPS_PACKAGING:-1}" != 0 ]; then
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends debhelper dh-python lintian debootstrap
fi
