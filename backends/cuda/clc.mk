# The OpenCL C -> CUDA translation pass: plain C with no CUDA dependency,
# so it is built (and tested, and fuzzed) even where the CUDA backend is
# not.  The prelude NVRTC compiles before translated kernels is kept as a
# real header (clc_prelude.cuh, readable and testable with nvcc) and
# embedded into the library as a C string at build time.
noinst_LTLIBRARIES += backends/cuda/libkiln_clc.la
backends_cuda_libkiln_clc_la_SOURCES = \
	backends/cuda/clc_lexer.c backends/cuda/clc_lexer.h \
	backends/cuda/clc_preprocess.c backends/cuda/clc_preprocess.h \
	backends/cuda/clc_translate.c backends/cuda/clc_translate.h
nodist_backends_cuda_libkiln_clc_la_SOURCES = backends/cuda/clc_prelude.c
backends_cuda_libkiln_clc_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/backends/cuda
BUILT_SOURCES += backends/cuda/clc_prelude.c
CLEANFILES += backends/cuda/clc_prelude.c
EXTRA_DIST += backends/cuda/clc_prelude.cuh backends/cuda/clc.mk

# Each line of the header becomes one C string literal line.
backends/cuda/clc_prelude.c: $(top_srcdir)/backends/cuda/clc_prelude.cuh
	@mkdir -p backends/cuda
	$(AM_V_GEN){ \
	  echo '/* Generated from clc_prelude.cuh by clc.mk: do not edit. */'; \
	  echo '#include "clc_translate.h"'; \
	  echo 'static const char clc_prelude_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' \
	    $(top_srcdir)/backends/cuda/clc_prelude.cuh; \
	  echo '    ;'; \
	  echo 'const char *clc_prelude_source(void) { return clc_prelude_text; }'; \
	} > $@.tmp && mv $@.tmp $@

# kiln-clc: shows what the CUDA backend makes of an OpenCL C file (the
# translated text, the kernels' signatures, or the reason it refuses).
bin_PROGRAMS += tools/kiln-clc
tools_kiln_clc_SOURCES = tools/kiln-clc.c
tools_kiln_clc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/cuda
tools_kiln_clc_LDADD = backends/cuda/libkiln_clc.la

# The translation's own test: runs everywhere; where the CUDA toolkit was
# found it also compiles every translated test kernel with NVRTC (no GPU
# needed for that).
if HAVE_CMOCKA
check_PROGRAMS += tests/test_clc
TESTS += tests/test_clc
tests_test_clc_SOURCES = tests/test_clc.c
tests_test_clc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/cuda
tests_test_clc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_clc_LDADD = tests/libkilntest.la libkiln.la \
	backends/cuda/libkiln_clc.la $(CMOCKA_LIBS) -lm
if HAVE_CUDA
tests_test_clc_CPPFLAGS += -DKILN_TEST_NVRTC $(CUDA_CPPFLAGS)
tests_test_clc_LDADD += $(NVRTC_LIBS)
endif
endif
EXTRA_DIST += tests/clc/nbody.cl tests/clc/mandelbrot.cl \
	tests/clc/blackscholes.cl tests/clc/radix_count.cl tests/clc/convolution.cl \
	tests/clc/particles.cl tests/clc/typedefs.cl \
	tests/clc/c99_idioms.cl tests/clc/cxx_names.cl tests/clc/work_items_cl20.cl
