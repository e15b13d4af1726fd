# Fuzz targets (libFuzzer, clang -fsanitize=fuzzer): `make fuzz` builds
# each and runs it for FUZZ_SECONDS on a corpus seeded from the test
# kernels.  Built with clang directly (not the configured compiler), with
# AddressSanitizer and UndefinedBehaviorSanitizer.
FUZZ_SECONDS = 60
FUZZ_TARGETS = prepared env cache_entry source translate
EXTRA_DIST += $(FUZZ_TARGETS:%=tests/fuzz/fuzz_%.c) tests/fuzz/fuzz.mk

FUZZ_CFLAGS = -std=c11 -g -O1 -pthread \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I$(top_srcdir)/include -I$(top_srcdir)/core -I$(top_srcdir)/backends/cuda \
	-I$(top_builddir) -DKILN_PLUGIN_DIR='"/nonexistent"'
FUZZ_CORE = $(filter %.c,$(libkiln_la_SOURCES:%=$(top_srcdir)/%))
FUZZ_TRANSLATOR = $(wildcard $(top_srcdir)/backends/cuda/clc_*.c) \
	$(top_builddir)/backends/cuda/clc_prelude.c

tests/fuzz/fuzz_translate: $(top_srcdir)/tests/fuzz/fuzz_translate.c $(FUZZ_TRANSLATOR)
	@mkdir -p tests/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz_translate.c \
		$(sort $(FUZZ_TRANSLATOR))

tests/fuzz/fuzz_%: $(top_srcdir)/tests/fuzz/fuzz_%.c $(FUZZ_CORE)
	@mkdir -p tests/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_CORE) $(LTDL_LIBS) -ldl -lm

# Seeds: the test kernels for the translator and the include expander,
# short examples for the rest.
fuzz-corpus:
	@for t in $(FUZZ_TARGETS); do mkdir -p tests/fuzz/corpus-$$t; done
	@for f in $(top_srcdir)/tests/corpus/*.cl $(top_srcdir)/tests/clc/*.cl \
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

fuzz: fuzz-corpus
	@test -n "$(CLANG)" || { echo "make fuzz needs clang (configure found none)"; exit 1; }
	@for t in $(FUZZ_TARGETS); do \
	  $(MAKE) $(AM_MAKEFLAGS) tests/fuzz/fuzz_$$t || exit 1; \
	done
	@status=0; for t in $(FUZZ_TARGETS); do \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  ( cd tests/fuzz && ./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	      -rss_limit_mb=2048 -print_final_stats=1 corpus-$$t \
	      > fuzz_$$t.log 2>&1 ) \
	    && tail -n 3 tests/fuzz/fuzz_$$t.log \
	    || { echo "fuzz_$$t FAILED:"; tail -n 40 tests/fuzz/fuzz_$$t.log; status=1; }; \
	done; rm -rf /tmp/kiln-fuzz-*-*; exit $$status
.PHONY: fuzz fuzz-corpus


clean-fuzz:
	-rm -rf tests/fuzz/corpus-* tests/fuzz/*.log \
	  $(FUZZ_TARGETS:%=tests/fuzz/fuzz_%) tests/fuzz/crash-* tests/fuzz/leak-*
