# The conformance corpus: OpenCL C kernels in tests/corpus/*.cl, each run by
# a host test on every backend against a CPU reference (see
# tests/corpus/README.md for which kernel covers which construct).  The
# kernels are read from the source tree at run time (KILN_TEST_SRCDIR).

CORPUS_COMMON = tests/test_corpus_common.c tests/test_corpus_common.h

KILN_TESTS += \
	tests/test_corpus_basic \
	tests/test_corpus_vector \
	tests/test_corpus_math \
	tests/test_corpus_atomics \
	tests/test_corpus_algorithms

tests_test_corpus_basic_SOURCES = tests/test_corpus_basic.c $(CORPUS_COMMON)
tests_test_corpus_vector_SOURCES = tests/test_corpus_vector.c $(CORPUS_COMMON)
tests_test_corpus_math_SOURCES = tests/test_corpus_math.c $(CORPUS_COMMON)
tests_test_corpus_atomics_SOURCES = tests/test_corpus_atomics.c $(CORPUS_COMMON)
tests_test_corpus_algorithms_SOURCES = tests/test_corpus_algorithms.c $(CORPUS_COMMON)

# Automake does not expand wildcards: every kernel is listed.
EXTRA_DIST += \
	tests/corpus/README.md \
	tests/corpus/atomics_64bit.cl \
	tests/corpus/atomics_global.cl \
	tests/corpus/atomics_local.cl \
	tests/corpus/barrier_fences.cl \
	tests/corpus/bitonic_sort.cl \
	tests/corpus/c_idioms.cl \
	tests/corpus/constant_memory.cl \
	tests/corpus/conversions.cl \
	tests/corpus/double_precision.cl \
	tests/corpus/elementwise.cl \
	tests/corpus/float_atomics.cl \
	tests/corpus/histogram.cl \
	tests/corpus/int_division.cl \
	tests/corpus/macros.cl \
	tests/corpus/math_float.cl \
	tests/corpus/math_integer.cl \
	tests/corpus/math_native_half.cl \
	tests/corpus/prefix_sum.cl \
	tests/corpus/printf.cl \
	tests/corpus/qualifiers.cl \
	tests/corpus/reductions.cl \
	tests/corpus/reinterpret.cl \
	tests/corpus/reqd_work_group_size.cl \
	tests/corpus/sgemm_tiled.cl \
	tests/corpus/small_types.cl \
	tests/corpus/stencil_5pt.cl \
	tests/corpus/struct_args.cl \
	tests/corpus/swizzles.cl \
	tests/corpus/three_local_args.cl \
	tests/corpus/transpose.cl \
	tests/corpus/unsigned_64bit.cl \
	tests/corpus/vector_conditional.cl \
	tests/corpus/vector_literals.cl \
	tests/corpus/vector_relational.cl \
	tests/corpus/vector_sizes.cl \
	tests/corpus/vload_vstore.cl \
	tests/corpus/work_items_3d.cl
