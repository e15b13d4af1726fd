# Fuzz targets (libFuzzer, clang -fsanitize=fuzzer): `make fuzz` builds
# each and runs it for FUZZ_SECONDS on a corpus seeded from the test
# kernels.  Built with clang directly (not the configured compiler), with
# AddressSanitizer and UndefinedBehaviorSanitizer.
FUZZ_SECONDS = 60
FUZZ_TARGETS = prepared env cache_entry source translate cuda_blob
# The OpenCL plugin's blob reader needs the OpenCL headers (and links the
# ICD loader for opencl_signature.c, which it calls no function of).
if HAVE_OPENCL
FUZZ_TARGETS += opencl_blob
endif
EXTRA_DIST += tests/fuzz/fuzz.mk tests/fuzz/fuzz_prepared.c tests/fuzz/fuzz_env.c \
	tests/fuzz/fuzz_cache_entry.c tests/fuzz/fuzz_source.c \
	tests/fuzz/fuzz_translate.c tests/fuzz/fuzz_cuda_blob.c \
	tests/fuzz/fuzz_opencl_blob.c tests/fuzz/fuzz_host.h

FUZZ_CFLAGS = -std=c11 -g -O1 -pthread \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I$(top_srcdir)/include -I$(top_srcdir)/core -I$(top_srcdir)/translate \
	-I$(top_srcdir)/backends/cuda \
	-I$(top_builddir) -DKILN_PLUGIN_DIR='"/nonexistent"'
FUZZ_CORE = $(filter %.c,$(libkiln_la_SOURCES:%=$(top_srcdir)/%))
FUZZ_TRANSLATOR = $(wildcard $(top_srcdir)/translate/*.c) \
	$(top_builddir)/translate/prelude_cuda.c

tests/fuzz/fuzz_translate: $(top_srcdir)/tests/fuzz/fuzz_translate.c $(FUZZ_TRANSLATOR)
	@mkdir -p tests/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz_translate.c \
		$(sort $(FUZZ_TRANSLATOR))

# The plugins' program blob readers, on their own: they are what the
# kernel cache hands its bytes to.
FUZZ_OPENCL_BLOB = $(top_srcdir)/backends/opencl/opencl_blob.c \
	$(top_srcdir)/backends/opencl/opencl_signature.c \
	$(top_srcdir)/backends/opencl/opencl_errors.c
tests/fuzz/fuzz_opencl_blob: $(top_srcdir)/tests/fuzz/fuzz_opencl_blob.c \
		$(top_srcdir)/tests/fuzz/fuzz_host.h $(FUZZ_OPENCL_BLOB)
	@mkdir -p tests/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -I$(top_srcdir)/backends/opencl -o $@ \
		$(top_srcdir)/tests/fuzz/fuzz_opencl_blob.c $(FUZZ_OPENCL_BLOB) $(OPENCL_LIBS)

tests/fuzz/fuzz_cuda_blob: $(top_srcdir)/tests/fuzz/fuzz_cuda_blob.c \
		$(top_srcdir)/tests/fuzz/fuzz_host.h $(top_srcdir)/backends/cuda/cuda_blob.c
	@mkdir -p tests/fuzz
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz_cuda_blob.c \
		$(top_srcdir)/backends/cuda/cuda_blob.c

tests/fuzz/fuzz_%: $(top_srcdir)/tests/fuzz/fuzz_%.c $(FUZZ_CORE)
	@mkdir -p tests/fuzz
	$(CLANG) $(FUZZ_CFLAGS) $(XXHASH_CFLAGS) -o $@ $< $(FUZZ_CORE) \
		$(DL_LIBS) $(XXHASH_LIBS) -lm

# Seeds: the test kernels for the translator and the include expander,
# short examples for the rest.
fuzz-corpus:
	@for t in $(FUZZ_TARGETS); do mkdir -p tests/fuzz/corpus-$$t; done
	@for f in $(top_srcdir)/tests/kernels/corpus/*.cl \
	          $(top_srcdir)/tests/kernels/foreign/*.cl \
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
	@$(MAKE) $(AM_MAKEFLAGS) fuzz-corpus-blobs

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

# Program blob seeds: a small hand-made one per backend (the first byte 1
# asks the target to add the header or the checksum), and, when the test
# suite ran in this tree, real blobs of the test kernels from its kernel
# cache (entry: 40-byte header with the key's length at 16, the key, the
# blob), each both whole (first byte 0) and as payload (first byte 1).
fuzz-corpus-blobs:
	@mkdir -p tests/fuzz/corpus-opencl_blob tests/fuzz/corpus-cuda_blob
	@printf '\001\004\000\000\000\000\000\000\000ELF!\001\000\000\000\005\000\000\000scale\002\000\000\000\001\000\000\000\010\000\000\000\000\000\000\000\001\000\000\000x\006\000\000\000float*\003\000\000\000\004\000\000\000\000\000\000\000\001\000\000\000n\003\000\000\000int' \
	  > tests/fuzz/corpus-opencl_blob/scale
	@printf '\001\003\000\000\000\000\000\000\000\002\000\000\000\132\000\000\000\004\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000ptx\000\005\000scale\000\000\000\000\000\000\000\000\000\000\000\000\002\000\000\000\001\000\000\000\010\000\000\000\000\000\000\000\001\000x\006\000float*\004\000\000\000\004\000\000\000\000\000\000\000\001\000n\003\000int' \
	  > tests/fuzz/corpus-cuda_blob/scale
	@n=0; for f in $$(ls -S -r tests/cache/*.kbin 2>/dev/null); do \
	  key=$$(od -An -t u8 -j 16 -N 8 "$$f" | tr -d ' '); \
	  test -n "$$key" || continue; \
	  magic=$$(tail -c +$$((41 + key)) "$$f" | head -c 8); \
	  case $$magic in \
	    KILN-OCL) t=opencl_blob; header=24 ;; \
	    KILNCUBN) t=cuda_blob; header=8 ;; \
	    *) continue ;; \
	  esac; \
	  base=tests/fuzz/corpus-$$t/$$(basename "$$f" .kbin); \
	  { printf '\000'; tail -c +$$((41 + key)) "$$f"; } > "$$base-whole"; \
	  { printf '\001'; tail -c +$$((41 + key + header)) "$$f"; } > "$$base-payload"; \
	  n=$$((n + 1)); test $$n -lt 4 || break; \
	done
.PHONY: fuzz fuzz-corpus fuzz-corpus-blobs


clean-fuzz:
	-rm -rf tests/fuzz/corpus-* tests/fuzz/*.log \
	  $(FUZZ_TARGETS:%=tests/fuzz/fuzz_%) tests/fuzz/fuzz_opencl_blob \
	  tests/fuzz/crash-* tests/fuzz/leak-*
