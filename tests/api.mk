# The API test suite: one program per part of kiln.h, each run on every
# backend (tests/harness.c).  Default LDADD: the harness, libkiln, cmocka.
KILN_TESTS += \
	tests/test_context \
	tests/test_buffer \
	tests/test_buffer_view \
	tests/test_program \
	tests/test_launch \
	tests/test_stream \
	tests/test_threads \
	tests/test_errors \
	tests/test_multi_device \
	tests/test_ipc \
	tests/test_api \
	tests/test_api_0_1 \
	tests/test_log

# Kiln 0.1's names, kept as deprecated aliases for one release: this
# program uses them on purpose.
tests_test_api_0_1_CFLAGS = $(AM_CFLAGS) -Wno-deprecated-declarations

# kiln.h's constructors compiled as C++.
if HAVE_CXX
KILN_TESTS += tests/test_cplusplus
tests_test_cplusplus_SOURCES = tests/cplusplus/test_cplusplus.cc
tests_test_cplusplus_CXXFLAGS = -std=c++11 $(PTHREAD_CFLAGS) \
	$(WARN_CXXFLAGS) $(SANITIZER_CFLAGS) $(CMOCKA_CFLAGS)
endif
