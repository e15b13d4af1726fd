# libkiln-array: arrays and kernel generators (include/kiln_array.h).
#
# A library of its own rather than part of libkiln: it is a layer on the
# public API, as pyopencl.array is on pyopencl, and keeping it separate
# proves that: its include path has include/ but not core/, and it links
# against libkiln's exported symbols like any program would.  It also
# keeps the run-time loading of cuBLAS and CLBlast out of the core.
lib_LTLIBRARIES += libkiln-array.la
include_HEADERS += include/kiln_array.h
libkiln_array_la_SOURCES = \
	array/internal.h \
	array/blas.h \
	array/array.c \
	array/assign.c \
	array/blas.c \
	array/elementwise.c \
	array/format.c \
	array/generator.c \
	array/linalg.c \
	array/mask.c \
	array/random.c \
	array/reduce.c \
	array/reduction.c \
	array/util.c
libkiln_array_la_CPPFLAGS = -I$(top_srcdir)/include -I$(top_builddir)
libkiln_array_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(KILN_LT_VERSION) \
	-no-undefined -export-symbols-regex '^kiln_'
libkiln_array_la_LIBADD = libkiln.la -lm
