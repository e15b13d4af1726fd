# The kernel cache and the PyCUDA-grade conveniences: prepared launches and
# argument lists, host In/Out arguments, timed launches, programs from files
# with includes and defines, the device memory pool.  Each program runs its
# tests on every backend (tests/harness.c) except test_cache_files, which
# checks the cache directory without any backend.
KILN_TESTS += \
	tests/test_cache \
	tests/test_cache_files \
	tests/test_prepared \
	tests/test_host_args \
	tests/test_timing \
	tests/test_program_files \
	tests/test_pool

# test_cache checks that translated programs are keyed by the translator.
# It writes entries with a checksum that holds (XXH3, as the cache does).
tests_test_cache_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/translate \
	$(XXHASH_CFLAGS)
tests_test_cache_LDADD = $(LDADD) translate/libkiln_translate.la \
	$(XXHASH_LIBS)
