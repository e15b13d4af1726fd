# The test suite: cmocka programs speaking TAP, each run on every backend
# (tests/harness.c).  `make check` runs them; see README.md.
EXTRA_DIST += tests/harness.h

if HAVE_CMOCKA
# cmocka's flags reach what is compiled under tests/ only (AM_CFLAGS names
# this variable; GNU make sets it for these objects): libkiln, the plugins
# and the tools are built without them.
tests/%.$(OBJEXT) tests/%.lo: TEST_FRAMEWORK_CFLAGS = $(CMOCKA_CFLAGS)

check_LTLIBRARIES += tests/libkilntest.la
tests_libkilntest_la_SOURCES = tests/harness.c tests/harness.h

# Test programs take this unless they say otherwise.
LDADD = tests/libkilntest.la libkiln.la $(CMOCKA_LIBS) -lm

KILN_TESTS = \
	tests/test_loader

# Each group of tests keeps its programs in its own fragment, adding to
# KILN_TESTS (and to check_PROGRAMS for helper programs).
include $(srcdir)/tests/api.mk
include $(srcdir)/tests/conveniences.mk
include $(srcdir)/tests/corpus.mk
include $(srcdir)/tests/backends.mk
include $(srcdir)/tests/hardening.mk
include $(srcdir)/tests/array.mk
include $(srcdir)/tests/builtins.mk

check_PROGRAMS += $(KILN_TESTS) tests/kiln-probe
TESTS += $(KILN_TESTS)

# A program the loader tests run with a chosen environment: it creates a
# context and prints the status and message.
tests_kiln_probe_SOURCES = tests/kiln-probe.c
tests_kiln_probe_LDADD = libkiln.la

# Deliberately broken plugins for the loader tests.  -rpath makes libtool
# build them shared although they are never installed.
check_LTLIBRARIES += tests/plugins/abi/kiln-opencl.la \
	tests/plugins/null/kiln-opencl.la \
	tests/plugins/nosymbol/kiln-opencl.la \
	tests/plugins/unavailable/kiln-opencl.la \
	tests/plugins/abi30/kiln-opencl.la \
	tests/plugins/short/kiln-opencl.la
TEST_PLUGIN_LDFLAGS = -module -avoid-version -shared -no-undefined \
	-rpath /nowhere
tests_plugins_abi_kiln_opencl_la_SOURCES = tests/plugins/fake_plugin.c
tests_plugins_abi_kiln_opencl_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_WRONG_ABI
tests_plugins_abi_kiln_opencl_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_null_kiln_opencl_la_SOURCES = tests/plugins/fake_plugin.c
tests_plugins_null_kiln_opencl_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_RETURNS_NULL
tests_plugins_null_kiln_opencl_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_nosymbol_kiln_opencl_la_SOURCES = tests/plugins/fake_plugin.c
tests_plugins_nosymbol_kiln_opencl_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_NO_SYMBOL
tests_plugins_nosymbol_kiln_opencl_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_unavailable_kiln_opencl_la_SOURCES = tests/plugins/fake_plugin.c
tests_plugins_unavailable_kiln_opencl_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_UNAVAILABLE
tests_plugins_unavailable_kiln_opencl_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_abi30_kiln_opencl_la_SOURCES = tests/plugins/fake_plugin.c
tests_plugins_abi30_kiln_opencl_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_UNAVAILABLE -DFAKE_ABI_3_0
tests_plugins_abi30_kiln_opencl_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
tests_plugins_short_kiln_opencl_la_SOURCES = tests/plugins/fake_plugin.c
tests_plugins_short_kiln_opencl_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKE_UNAVAILABLE -DFAKE_SHORT
tests_plugins_short_kiln_opencl_la_LDFLAGS = $(TEST_PLUGIN_LDFLAGS)
else
check-local:
	@echo "cmocka was not found by configure: install libcmocka-dev to run the tests" >&2; exit 1
endif

# `make check-valgrind`: the whole suite under valgrind (tests/tap-run).
check-valgrind:
	$(MAKE) $(AM_MAKEFLAGS) check KILN_TEST_VALGRIND=1 KILN_TEST_TIMEOUT=1800
.PHONY: check-valgrind
EXTRA_DIST += tests/valgrind.supp tests/sanitizer.supp
# Reports of a sanitizer build's runs (tests/tap-run).
CLEANFILES += tests/*.sanitizer.* tests/*/*.sanitizer.*

include $(srcdir)/tests/python.mk

# tools/kiln-compare against itself on each backend, and with one side
# built differently (a shell script speaking TAP).
TESTS += tests/kiln-compare-check
EXTRA_DIST += tests/kiln-compare-check tests/kernels/compare/kernels.cl

# The tools' --help, --version and unknown options (a shell script speaking
# TAP).
TESTS += tests/tools-options-check
EXTRA_DIST += tests/tools-options-check

# kiln-clc reads files and #include as the library does (a shell script
# speaking TAP).
TESTS += tests/kiln-clc-check
EXTRA_DIST += tests/kiln-clc-check

# Scratch directories of interrupted runs are swept (a shell script
# speaking TAP).
TESTS += tests/scratch-check
EXTRA_DIST += tests/scratch-check
