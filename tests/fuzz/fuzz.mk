# Fuzz targets (libFuzzer, clang -fsanitize=fuzzer): `make fuzz` builds
# each and runs it for FUZZ_SECONDS on a corpus seeded from the test
# kernels.  Built with clang (not the configured compiler), with
# AddressSanitizer and UndefinedBehaviorSanitizer.
FUZZ_SECONDS = 60
FUZZ_TARGETS = prepared env cache_entry saved_program source translate \
	generator array_shape

# The targets are automake programs (EXTRA_PROGRAMS: built only by make
# fuzz), compiled with clang: make fuzz runs the build of each with
# CC=$(CLANG).  Per-target flags give their objects names of their own, so
# they never mix with the configured compiler's.
FUZZ_COMPILE_FLAGS = -std=c11 -g -O1 $(PTHREAD_CFLAGS) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_PREPROCESS_FLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/translate \
	-I$(top_srcdir)/backends/cuda $(XXHASH_CFLAGS) \
	-DKILN_PLUGIN_DIR='"/nonexistent"'
FUZZ_LINK_FLAGS = -fsanitize=fuzzer,address,undefined
FUZZ_BINARIES = $(FUZZ_TARGETS:%=tests/fuzz/fuzz_%)

# The core's own parsers, compiled once into a library the targets share,
# with the front end (the core inlines #include files with its
# preprocessor).
EXTRA_LIBRARIES = tests/fuzz/libfuzzcore.a
tests_fuzz_libfuzzcore_a_SOURCES = $(libkiln_la_SOURCES) \
	$(translate_libkiln_translate_la_SOURCES)
nodist_tests_fuzz_libfuzzcore_a_SOURCES = \
	$(nodist_translate_libkiln_translate_la_SOURCES)
tests_fuzz_libfuzzcore_a_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_libfuzzcore_a_CFLAGS = $(FUZZ_COMPILE_FLAGS)
FUZZ_CORE_LIBS = tests/fuzz/libfuzzcore.a $(DL_LIBS) $(XXHASH_LIBS) -lm

CLEANFILES += $(EXTRA_PROGRAMS) $(EXTRA_LIBRARIES)
EXTRA_PROGRAMS = tests/fuzz/fuzz_prepared tests/fuzz/fuzz_env \
	tests/fuzz/fuzz_cache_entry tests/fuzz/fuzz_source \
	tests/fuzz/fuzz_translate tests/fuzz/fuzz_saved_program \
	tests/fuzz/fuzz_generator tests/fuzz/fuzz_array_shape

tests_fuzz_fuzz_prepared_SOURCES = tests/fuzz/fuzz_prepared.c
tests_fuzz_fuzz_prepared_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_fuzz_prepared_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_prepared_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_prepared_LDADD = $(FUZZ_CORE_LIBS)

tests_fuzz_fuzz_env_SOURCES = tests/fuzz/fuzz_env.c
tests_fuzz_fuzz_env_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_fuzz_env_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_env_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_env_LDADD = $(FUZZ_CORE_LIBS)

tests_fuzz_fuzz_cache_entry_SOURCES = tests/fuzz/fuzz_cache_entry.c
tests_fuzz_fuzz_cache_entry_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_fuzz_cache_entry_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_cache_entry_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_cache_entry_LDADD = $(FUZZ_CORE_LIBS)

# The saved-program reader and writer (core/saved_program.c): what the
# disk cache hands back before any plugin sees it.
tests_fuzz_fuzz_saved_program_SOURCES = tests/fuzz/fuzz_saved_program.c
tests_fuzz_fuzz_saved_program_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_fuzz_saved_program_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_saved_program_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_saved_program_LDADD = $(FUZZ_CORE_LIBS)

tests_fuzz_fuzz_source_SOURCES = tests/fuzz/fuzz_source.c
tests_fuzz_fuzz_source_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_fuzz_source_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_source_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_source_LDADD = $(FUZZ_CORE_LIBS)

# The front end on its own.
tests_fuzz_fuzz_translate_SOURCES = tests/fuzz/fuzz_translate.c \
	$(translate_libkiln_translate_la_SOURCES)
nodist_tests_fuzz_fuzz_translate_SOURCES = \
	$(nodist_translate_libkiln_translate_la_SOURCES)
tests_fuzz_fuzz_translate_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_fuzz_translate_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_translate_LDFLAGS = $(FUZZ_LINK_FLAGS)

# The strings a generator takes (array/generator.c's check), put together
# and preprocessed: nothing they hold may reach a file.  With the array
# layer's sources, on the core's.
tests_fuzz_fuzz_generator_SOURCES = tests/fuzz/fuzz_generator.c \
	$(libkiln_array_la_SOURCES)
tests_fuzz_fuzz_generator_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_fuzz_generator_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_generator_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_generator_LDADD = $(FUZZ_CORE_LIBS)

# Shapes, broadcasting and dtypes of the array layer (array.c,
# elementwise.c's layout), without a device.
tests_fuzz_fuzz_array_shape_SOURCES = tests/fuzz/fuzz_array_shape.c \
	$(libkiln_array_la_SOURCES)
tests_fuzz_fuzz_array_shape_CPPFLAGS = $(FUZZ_PREPROCESS_FLAGS)
tests_fuzz_fuzz_array_shape_CFLAGS = $(FUZZ_COMPILE_FLAGS)
tests_fuzz_fuzz_array_shape_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_array_shape_LDADD = $(FUZZ_CORE_LIBS)

# Seeds: the test kernels for the translator and the include expander,
# short examples for the rest.
fuzz-corpus:
	@for t in $(FUZZ_TARGETS); do mkdir -p tests/fuzz/corpus-$$t; done
	@for f in $(top_srcdir)/tests/kernels/corpus/*.cl \
	          $(top_srcdir)/tests/kernels/foreign/*.cl \
	          $(top_srcdir)/tests/kernels/cuda/*.cu \
	          $(top_srcdir)/examples/*.cl; do \
	  test -f "$$f" || continue; \
	  cp "$$f" tests/fuzz/corpus-translate/; cp "$$f" tests/fuzz/corpus-source/; \
	done
	@printf '#include "a.h"\nkernel void k(global int *x) { x[0] = A; }\n' \
	  > tests/fuzz/corpus-source/include.cl
	@printf 'PiIf' > tests/fuzz/corpus-prepared/a; \
	 printf 'P P < > = S d l L z c C h H' > tests/fuzz/corpus-prepared/b
	@printf 'opencl\0001\000/usr/lib/kiln:/opt/kiln\000128\0001\000cache' \
	  > tests/fuzz/corpus-env/a
	@printf '\000\000' > tests/fuzz/corpus-cache_entry/a
	@printf 'float\000(0)\000a + b\000x[i] * 2\000global const float *x\000#define TWICE(v) (2 * (v))\n/* a # in a comment */\n' \
	  > tests/fuzz/corpus-generator/a; \
	 printf '\000\000y[i] = TWICE(x[i])\000\000global float *y, global const float *x\000#define TWICE(v) (2 * (v))\n' \
	  > tests/fuzz/corpus-generator/b
	@printf '\003\010\002\003\004\010\001\004\011\003\001\003\004' \
	  > tests/fuzz/corpus-array_shape/a
	@$(MAKE) $(AM_MAKEFLAGS) fuzz-corpus-saved

fuzz: fuzz-corpus
	@test -n "$(CLANG)" || { echo "make fuzz needs clang (configure found none)"; exit 1; }
	$(MAKE) $(AM_MAKEFLAGS) CC='$(CLANG)' $(FUZZ_BINARIES)
	@status=0; for t in $(FUZZ_TARGETS); do \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  ( cd tests/fuzz && ./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	      -rss_limit_mb=2048 -print_final_stats=1 corpus-$$t \
	      > fuzz_$$t.log 2>&1 ) \
	    && tail -n 3 tests/fuzz/fuzz_$$t.log \
	    || { echo "fuzz_$$t FAILED:"; tail -n 40 tests/fuzz/fuzz_$$t.log; status=1; }; \
	done; rm -rf /tmp/kiln-fuzz-*-*; exit $$status

# Saved-program seeds: a small hand-made one (the first byte 1 asks the
# target to add the magic and version: an OpenCL C program of one kernel
# `scale(float *x, int n)` and a 4-byte image), and, when the test suite
# ran in this tree, real saved programs from its kernel cache (found in
# each entry by their magic), whole (first byte 0 for OpenCL C, 2 for CUDA
# C, read from the entry).
fuzz-corpus-saved:
	@mkdir -p tests/fuzz/corpus-saved_program
	@printf '\001\000\000\000\000\001\000\000\000\000\000\000\000\004\000\000\000\000\000\000\000\006\000\000\000scale\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\002\000\000\000\001\000\000\000\010\000\000\000\000\000\000\000\002\000\000\000x\000\007\000\000\000float*\000\003\000\000\000\004\000\000\000\000\000\000\000\002\000\000\000n\000\004\000\000\000int\000\000\000\000\000ELF!' \
	  > tests/fuzz/corpus-saved_program/scale
	@n=0; for f in $$(ls -S -r tests/cache/*.kbin 2>/dev/null); do \
	  at=$$(LC_ALL=C grep -obUaF KILNPROG "$$f" | head -n 1 | cut -d: -f1); \
	  test -n "$$at" || continue; \
	  language=$$(tail -c +$$((at + 13)) "$$f" | head -c 1 | od -An -tu1 | tr -d ' '); \
	  base=tests/fuzz/corpus-saved_program/$$(basename "$$f" .kbin); \
	  { printf "\\$$(printf '%03o' $$((language * 2)))"; tail -c +$$((at + 1)) "$$f"; } > "$$base-whole"; \
	  n=$$((n + 1)); test $$n -lt 4 || break; \
	done
.PHONY: fuzz fuzz-corpus fuzz-corpus-saved


clean-fuzz:
	-rm -rf tests/fuzz/corpus-* tests/fuzz/*.log \
	  tests/fuzz/crash-* tests/fuzz/leak-*
