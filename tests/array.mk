# The array layer (include/kiln_array.h): kernel generators, arrays and
# their operations, each checked against the CPU on every backend.
KILN_ARRAY_TESTS = \
	tests/test_array_generators \
	tests/test_array \
	tests/test_array_ops \
	tests/test_array_reduce \
	tests/test_array_errors \
	tests/test_array_views \
	tests/test_array_hostile \
	tests/test_array_format \
	tests/test_array_strides \
	tests/test_array_masks
KILN_TESTS += $(KILN_ARRAY_TESTS)
ARRAY_TEST_LDADD = tests/libkilntest.la libkiln-array.la libkiln.la \
	$(CMOCKA_LIBS) -lm
tests_test_array_generators_LDADD = $(ARRAY_TEST_LDADD)
tests_test_array_LDADD = $(ARRAY_TEST_LDADD)
noinst_HEADERS += tests/array_test.h
tests_test_array_ops_LDADD = $(ARRAY_TEST_LDADD)
tests_test_array_reduce_LDADD = $(ARRAY_TEST_LDADD)
tests_test_array_errors_LDADD = $(ARRAY_TEST_LDADD)
tests_test_array_views_LDADD = $(ARRAY_TEST_LDADD)
tests_test_array_hostile_LDADD = $(ARRAY_TEST_LDADD)
tests_test_array_format_LDADD = $(ARRAY_TEST_LDADD)
tests_test_array_strides_LDADD = $(ARRAY_TEST_LDADD)
tests_test_array_masks_LDADD = $(ARRAY_TEST_LDADD)
