# The kernel-language front end: lexer, preprocessor, translation passes
# and preludes.  Plain C with no CUDA dependency, so it is built (and
# tested, and fuzzed) even where the CUDA backend is not; the CUDA plugin,
# kiln-clc and the tests link it as a convenience library.  The prelude
# NVRTC compiles before translated kernels is kept as a real header
# (prelude_cuda.cuh, readable and testable with nvcc) and embedded into the
# library as a C string at build time.
noinst_LTLIBRARIES += translate/libkiln_translate.la
translate_libkiln_translate_la_SOURCES = \
	translate/translate.h \
	translate/lexer.c translate/lexer.h \
	translate/preprocess.c translate/preprocess.h \
	translate/opencl_to_cuda.c
nodist_translate_libkiln_translate_la_SOURCES = translate/prelude_cuda.c
translate_libkiln_translate_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/translate
BUILT_SOURCES += translate/prelude_cuda.c
CLEANFILES += translate/prelude_cuda.c
EXTRA_DIST += translate/prelude_cuda.cuh translate/translate.mk

# Each line of the header becomes one C string literal line.
translate/prelude_cuda.c: $(top_srcdir)/translate/prelude_cuda.cuh
	@mkdir -p translate
	$(AM_V_GEN){ \
	  echo '/* Generated from prelude_cuda.cuh by translate.mk: do not edit. */'; \
	  echo '#include "translate.h"'; \
	  echo 'static const char clc_prelude_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' \
	    $(top_srcdir)/translate/prelude_cuda.cuh; \
	  echo '    ;'; \
	  echo 'const char *clc_prelude_source(void) { return clc_prelude_text; }'; \
	} > $@.tmp && mv $@.tmp $@

# kiln-clc: shows what the CUDA backend makes of an OpenCL C file (the
# translated text, the kernels' signatures, or the reason it refuses).
bin_PROGRAMS += tools/kiln-clc
tools_kiln_clc_SOURCES = tools/kiln-clc.c
tools_kiln_clc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/translate
tools_kiln_clc_LDADD = translate/libkiln_translate.la
