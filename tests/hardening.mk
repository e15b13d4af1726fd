# Hostile input and its answers (issue 18): lifetimes, hangs, misleading
# messages, and the checked mode for out-of-bounds writes.  Each program
# runs its tests on every backend (tests/harness.c).
KILN_TESTS += \
	tests/test_pool_limit \
	tests/test_hostile \
	tests/test_bounds \
	tests/test_bounds_reads \
	tests/test_hostile_launch \
	tests/test_hostile_cuda \
	tests/test_hostile_cache

# test_pool_limit loads the backends through a plugin that reports a
# largest allocation of 100 MiB + 12345 bytes (tests/plugins/limits_plugin.c).
check_LTLIBRARIES += tests/plugins/limits/kiln-opencl.la \
	tests/plugins/limits/kiln-cuda.la
tests_plugins_limits_kiln_opencl_la_SOURCES = tests/plugins/limits_plugin.c
tests_plugins_limits_kiln_opencl_la_CPPFLAGS = $(AM_CPPFLAGS) -DLIMITS_BACKEND='"opencl"'
tests_plugins_limits_kiln_opencl_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_limits_kiln_opencl_la_LIBADD = -ldl
tests_plugins_limits_kiln_cuda_la_SOURCES = tests/plugins/limits_plugin.c
tests_plugins_limits_kiln_cuda_la_CPPFLAGS = $(AM_CPPFLAGS) -DLIMITS_BACKEND='"cuda"'
tests_plugins_limits_kiln_cuda_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_limits_kiln_cuda_la_LIBADD = -ldl
