# The conformance corpus: OpenCL C kernels in tests/kernels/corpus/*.cl,
# each run by a host test on every backend against a CPU reference (see
# tests/kernels/corpus/README.md for which kernel covers which construct).
# The kernels are read from the source tree at run time (KILN_TEST_SRCDIR).

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
	tests/kernels/corpus/README.md \
	tests/kernels/corpus/atomics_64bit.cl \
	tests/kernels/corpus/atomics_global.cl \
	tests/kernels/corpus/atomics_local.cl \
	tests/kernels/corpus/barrier_fences.cl \
	tests/kernels/corpus/bitonic_sort.cl \
	tests/kernels/corpus/c_idioms.cl \
	tests/kernels/corpus/constant_memory.cl \
	tests/kernels/corpus/conversions.cl \
	tests/kernels/corpus/double_precision.cl \
	tests/kernels/corpus/elementwise.cl \
	tests/kernels/corpus/float_atomics.cl \
	tests/kernels/corpus/fp_contract.cl \
	tests/kernels/corpus/histogram.cl \
	tests/kernels/corpus/int_division.cl \
	tests/kernels/corpus/macros.cl \
	tests/kernels/corpus/math_float.cl \
	tests/kernels/corpus/math_integer.cl \
	tests/kernels/corpus/math_native_half.cl \
	tests/kernels/corpus/prefix_sum.cl \
	tests/kernels/corpus/printf.cl \
	tests/kernels/corpus/qualifiers.cl \
	tests/kernels/corpus/reductions.cl \
	tests/kernels/corpus/reinterpret.cl \
	tests/kernels/corpus/reqd_work_group_size.cl \
	tests/kernels/corpus/sgemm_tiled.cl \
	tests/kernels/corpus/small_types.cl \
	tests/kernels/corpus/stencil_5pt.cl \
	tests/kernels/corpus/struct_args.cl \
	tests/kernels/corpus/swizzles.cl \
	tests/kernels/corpus/three_local_args.cl \
	tests/kernels/corpus/transpose.cl \
	tests/kernels/corpus/unsigned_64bit.cl \
	tests/kernels/corpus/vector_conditional.cl \
	tests/kernels/corpus/vector_literals.cl \
	tests/kernels/corpus/vector_relational.cl \
	tests/kernels/corpus/vector_sizes.cl \
	tests/kernels/corpus/vload_vstore.cl \
	tests/kernels/corpus/work_items_3d.cl

# Kernels from other projects, which test_clc translates and compiles.
EXTRA_DIST += tests/kernels/foreign/nbody.cl tests/kernels/foreign/mandelbrot.cl \
	tests/kernels/foreign/blackscholes.cl tests/kernels/foreign/radix_count.cl \
	tests/kernels/foreign/convolution.cl tests/kernels/foreign/particles.cl \
	tests/kernels/foreign/typedefs.cl tests/kernels/foreign/c99_idioms.cl \
	tests/kernels/foreign/cxx_names.cl tests/kernels/foreign/work_items_cl20.cl

# The CUDA C conformance corpus: tests/kernels/cuda/*.cu, natively on the
# CUDA backend and translated to OpenCL C on OpenCL (tests/test_cuda_c.c).
KILN_TESTS += tests/test_cuda_c
tests_test_cuda_c_SOURCES = tests/test_cuda_c.c
EXTRA_DIST += \
	tests/kernels/cuda/README.md \
	tests/kernels/cuda/atomics_math.cu \
	tests/kernels/cuda/device_memory.cu \
	tests/kernels/cuda/shared.cu \
	tests/kernels/cuda/tutorial.cu \
	tests/kernels/cuda/types.cu

# The C++ of CUDA code (tests/kernels/cuda/cxx_*.cu): natively on CUDA,
# lowered by translate/cxx_*.c and translated on OpenCL.
KILN_TESTS += tests/test_cuda_cxx
tests_test_cuda_cxx_SOURCES = tests/test_cuda_cxx.c
EXTRA_DIST += \
	tests/kernels/cuda/cxx_templates.cu \
	tests/kernels/cuda/cxx_classes.cu \
	tests/kernels/cuda/cxx_patterns.cu \
	tests/kernels/cuda/public_constructs.cu \
	tests/kernels/cuda/refused_neighbours.cu \
	tests/kernels/cuda/cxx_refused_neighbours.cu \
	tests/kernels/cuda/cooperative_groups.cu

# Kernel templates named by the host (NVRTC's name expressions, CuPy's
# name_expressions): tests/kernels/cuda/templates_by_name.cu.
KILN_TESTS += tests/test_cuda_names
tests_test_cuda_names_SOURCES = tests/test_cuda_names.c
EXTRA_DIST += tests/kernels/cuda/templates_by_name.cu

# cuda_fp16.h and cuda_bf16.h (tests/kernels/cuda/half_precision.cu):
# natively on CUDA, through translate/cxx_half.c on OpenCL.
KILN_TESTS += tests/test_cuda_half
tests_test_cuda_half_SOURCES = tests/test_cuda_half.c
EXTRA_DIST += tests/kernels/cuda/half_precision.cu
EXTRA_DIST += tests/kernels/cuda/half_math.cu

# cuComplex.h and math_constants.h (tests/kernels/cuda/complex.cu):
# natively on CUDA, through translate/cuda_headers.c on OpenCL.
KILN_TESTS += tests/test_cuda_complex
tests_test_cuda_complex_SOURCES = tests/test_cuda_complex.c
EXTRA_DIST += tests/kernels/cuda/complex.cu

# CUDA's barriers: threads that return before __syncthreads() (tests/
# kernels/cuda/early_exit.cu), block votes, what the translation refuses.
KILN_TESTS += tests/test_cuda_barriers
tests_test_cuda_barriers_SOURCES = tests/test_cuda_barriers.c
EXTRA_DIST += tests/kernels/cuda/early_exit.cu

# Warp primitives (tests/kernels/cuda/warp.cu): natively on CUDA, emulated
# through shared memory on OpenCL; and what the translation refuses.
KILN_TESTS += tests/test_cuda_warp
tests_test_cuda_warp_SOURCES = tests/test_cuda_warp.c
EXTRA_DIST += tests/kernels/cuda/warp.cu
