# Tests are added here with KILN_TESTS += tests/test_NAME
