# kiln-cuda: the CUDA backend plugin (driver API + NVRTC): it builds CUDA
# C only, the core hands it OpenCL C already translated.  Its test of
# native CUDA C through the public API is in tests/backends.mk.
#
# The plugin links libcuda.so.1 directly (the toolkit's stub at build time):
# without the NVIDIA driver it does not load, and the core reports why.  It
# does not link libkiln, and exports only kiln_backend_entry.
if HAVE_CUDA
plugin_LTLIBRARIES += backends/cuda/kiln-cuda.la
backends_cuda_kiln_cuda_la_SOURCES = \
	backends/cuda/cuda_private.h \
	backends/cuda/cuda_compile.h \
	backends/cuda/cuda_backend.c \
	backends/cuda/cuda_compile.c \
	backends/cuda/cuda_context.c \
	backends/cuda/cuda_device.c \
	backends/cuda/cuda_errors.c \
	backends/cuda/cuda_kernel.c \
	backends/cuda/cuda_launch.c \
	backends/cuda/cuda_memory.c \
	backends/cuda/cuda_program.c \
	backends/cuda/cuda_stream.c
backends_cuda_kiln_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-DKILN_CUDA_DIR='"$(CUDA_DIR)"'
backends_cuda_kiln_cuda_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version \
	-shared -no-undefined -export-symbols-regex '^kiln_backend_entry$$'
backends_cuda_kiln_cuda_la_LIBADD = $(CUDA_DRIVER_LIBS) $(NVRTC_LIBS)

endif
