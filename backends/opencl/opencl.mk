# kiln-opencl: the OpenCL backend plugin, over the Khronos ICD loader (PoCL,
# NVIDIA's OpenCL, any conformant 1.2+ driver).  It builds OpenCL C only:
# the core hands it CUDA C already translated.
#
# It links libOpenCL (the ICD loader), never libkiln, and exports only
# kiln_backend_entry.  CL_TARGET_OPENCL_VERSION is set in opencl_private.h,
# so that the files build the same way outside Automake.
if HAVE_OPENCL
plugin_LTLIBRARIES += backends/opencl/kiln-opencl.la
backends_opencl_kiln_opencl_la_SOURCES = \
	backends/opencl/opencl_private.h \
	backends/opencl/opencl_backend.c \
	backends/opencl/opencl_context.c \
	backends/opencl/opencl_device.c \
	backends/opencl/opencl_errors.c \
	backends/opencl/opencl_kernel.c \
	backends/opencl/opencl_launch.c \
	backends/opencl/opencl_memory.c \
	backends/opencl/opencl_program.c \
	backends/opencl/opencl_names.c \
	backends/opencl/opencl_signature.c \
	backends/opencl/opencl_stream.c
backends_opencl_kiln_opencl_la_CPPFLAGS = $(AM_CPPFLAGS)
backends_opencl_kiln_opencl_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version \
	-shared -no-undefined -export-symbols-regex '^kiln_backend_entry$$'
backends_opencl_kiln_opencl_la_LIBADD = $(OPENCL_LIBS)
endif
