# The array layer (include/kiln_array.h): kernel generators, arrays and
# their operations, each checked against the CPU on every backend.
KILN_ARRAY_TESTS = \
	tests/test_array_generators
KILN_TESTS += $(KILN_ARRAY_TESTS)
ARRAY_TEST_LDADD = tests/libkilntest.la libkiln-array.la libkiln.la \
	$(CMOCKA_LIBS) -lm
tests_test_array_generators_LDADD = $(ARRAY_TEST_LDADD)
