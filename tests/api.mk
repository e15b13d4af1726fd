# The API test suite: one program per part of kiln.h, each run on every
# backend (tests/harness.c).  Default LDADD: the harness, libkiln, cmocka.
KILN_TESTS += \
	tests/test_context \
	tests/test_buffer \
	tests/test_program \
	tests/test_launch \
	tests/test_stream \
	tests/test_threads \
	tests/test_errors \
	tests/test_multi_device
