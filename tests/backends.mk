# Tests of one part below the API, built where that part is.

# The translation's own test: runs everywhere; where the CUDA toolkit was
# found it also compiles every translated test kernel with NVRTC (no GPU
# needed for that).
check_PROGRAMS += tests/test_clc
TESTS += tests/test_clc
tests_test_clc_SOURCES = tests/test_clc.c
tests_test_clc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/translate \
	-DKILN_TEST_SHA256SUM='"$(SHA256SUM)"'
tests_test_clc_LDADD = tests/libkilntest.la libkiln.la \
	translate/libkiln_translate.la $(CMOCKA_LIBS) -lm

# The front end's declarations, scopes and expression types: no GPU, no
# plugin, only the translate/ module.
check_PROGRAMS += tests/test_symbols
TESTS += tests/test_symbols
tests_test_symbols_SOURCES = tests/test_symbols.c
tests_test_symbols_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/translate
tests_test_symbols_LDADD = tests/libkilntest.la libkiln.la \
	translate/libkiln_translate.la $(CMOCKA_LIBS) -lm
if HAVE_CUDA
tests_test_clc_CPPFLAGS += -DKILN_TEST_NVRTC $(CUDA_CPPFLAGS)
tests_test_clc_LDADD += $(NVRTC_LIBS)

# The CUDA backend's compile step (translation, options, NVRTC) without a
# GPU: the plugin's compile file with a stand-in host API.
check_PROGRAMS += tests/test_cuda_compile
TESTS += tests/test_cuda_compile
tests_test_cuda_compile_SOURCES = tests/test_cuda_compile.c \
	tests/fuzz/fuzz_host.h backends/cuda/cuda_compile.c
tests_test_cuda_compile_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests \
	-I$(top_srcdir)/translate -I$(top_srcdir)/backends/cuda $(CUDA_CPPFLAGS)
tests_test_cuda_compile_LDADD = tests/libkilntest.la libkiln.la \
	translate/libkiln_translate.la $(NVRTC_LIBS) $(CMOCKA_LIBS) -lm

# Native CUDA C through the public API (the CUDA backend only).
check_PROGRAMS += tests/test_cuda_native
TESTS += tests/test_cuda_native
tests_test_cuda_native_SOURCES = tests/test_cuda_native.c
tests_test_cuda_native_LDADD = tests/libkilntest.la libkiln.la \
	$(CMOCKA_LIBS) -lm
endif
