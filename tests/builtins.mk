# Table-driven tests of each kernel language's built-in functions against
# a CPU model of their documented meaning (issue 29): CUDA's intrinsics
# and math library natively on CUDA and translated on OpenCL; OpenCL C's
# built-ins natively on OpenCL and translated on CUDA.

BUILTIN_TABLE = tests/builtin_table.c tests/builtin_table.h

KILN_TESTS += \
	tests/test_cuda_intrinsics

tests_test_cuda_intrinsics_SOURCES = tests/test_cuda_intrinsics.c $(BUILTIN_TABLE)
