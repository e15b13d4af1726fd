# The tutorial programs (PyCUDA's, Numba's and CuPy's first examples, in C).
# Each checks its result against the CPU and exits non-zero on a mismatch
# or a Kiln error; examples/run-all runs them all.  Built by `make` here,
# and installed as sources in $(docdir)/examples with a Makefile that
# builds them against the installed library (examples/Makefile.installed).
KILN_EXAMPLES = \
	examples/doublify \
	examples/multiply_them \
	examples/vector_add \
	examples/matrix_add \
	examples/shared_memory \
	examples/sum_of_squares \
	examples/multi_device \
	examples/multi_device_jacobi \
	examples/array_basics \
	examples/cuda_doublify \
	examples/cuda_multiply_them \
	examples/cuda_shared_memory \
	examples/cuda_sum_of_squares \
	examples/cuda_early_return
noinst_PROGRAMS += $(KILN_EXAMPLES)
noinst_HEADERS += examples/example.h examples/jacobi.h

examples_doublify_SOURCES = examples/doublify.c
examples_doublify_LDADD = libkiln.la -lm
examples_multiply_them_SOURCES = examples/multiply_them.c
examples_multiply_them_LDADD = libkiln.la -lm
examples_vector_add_SOURCES = examples/vector_add.c
examples_vector_add_LDADD = libkiln.la -lm
examples_matrix_add_SOURCES = examples/matrix_add.c
examples_matrix_add_LDADD = libkiln.la -lm
examples_shared_memory_SOURCES = examples/shared_memory.c
examples_shared_memory_LDADD = libkiln.la -lm
examples_sum_of_squares_SOURCES = examples/sum_of_squares.c
examples_sum_of_squares_LDADD = libkiln-array.la libkiln.la -lm
# The PyCUDA tutorial's kernels in CUDA C, as the tutorials write them:
# native on CUDA, translated to OpenCL C on OpenCL.
examples_cuda_doublify_SOURCES = examples/cuda_doublify.c
examples_cuda_doublify_LDADD = libkiln.la -lm
examples_cuda_multiply_them_SOURCES = examples/cuda_multiply_them.c
examples_cuda_multiply_them_LDADD = libkiln.la -lm
examples_cuda_shared_memory_SOURCES = examples/cuda_shared_memory.c
examples_cuda_shared_memory_LDADD = libkiln.la -lm
examples_cuda_sum_of_squares_SOURCES = examples/cuda_sum_of_squares.c
examples_cuda_sum_of_squares_LDADD = libkiln.la -lm
examples_cuda_early_return_SOURCES = examples/cuda_early_return.c
examples_cuda_early_return_LDADD = libkiln.la -lm
examples_multi_device_SOURCES = examples/multi_device.c
examples_multi_device_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
examples_multi_device_LDADD = libkiln.la -lm
examples_multi_device_jacobi_SOURCES = examples/multi_device_jacobi.c
examples_multi_device_jacobi_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
examples_multi_device_jacobi_LDADD = libkiln.la -lm
examples_array_basics_SOURCES = examples/array_basics.c
examples_array_basics_LDADD = libkiln-array.la libkiln.la -lm

EXTRA_DIST += examples/run-all

# `make check-examples`: build everything (the examples need the backend
# plugins too) and run every example on the default backend, or on
# KILN_BACKEND's, with the kernel caches of `make check`.
check-examples: all
	@$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/examples/run-all -q examples
.PHONY: check-examples

# The MPI examples, when configure found MPI (--with-mpi): one rank per
# device.  examples/run-mpi runs them with 2 ranks and with 4 ranks
# oversubscribed; `make check-mpi` does that for this build.
noinst_HEADERS += examples/mpi_example.h
EXTRA_DIST += examples/run-mpi
if HAVE_MPI
noinst_PROGRAMS += examples/mpi_sum_of_squares examples/mpi_jacobi
examples_mpi_sum_of_squares_SOURCES = examples/mpi_sum_of_squares.c
examples_mpi_sum_of_squares_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
examples_mpi_sum_of_squares_LDADD = libkiln.la $(MPI_LIBS) -lm
examples_mpi_jacobi_SOURCES = examples/mpi_jacobi.c
examples_mpi_jacobi_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS) $(PTHREAD_CFLAGS)
examples_mpi_jacobi_LDADD = libkiln.la $(MPI_LIBS) -lm

check-mpi: all
	@$(AM_TESTS_ENVIRONMENT) MPIRUN="$(MPIRUN)" $(SHELL) $(srcdir)/examples/run-mpi examples
else
check-mpi:
	@echo "check-mpi: configure found no MPI (see its summary; --with-mpi)"; exit 1
endif
.PHONY: check-mpi

# The installed copy: the sources, their headers, the scripts that run
# them, and Makefile.installed as that directory's Makefile.
exampledir = $(docdir)/examples
example_DATA = $(KILN_EXAMPLES:=.c) examples/mpi_sum_of_squares.c \
	examples/mpi_jacobi.c examples/example.h examples/mpi_example.h \
	examples/jacobi.h \
	examples/run-all examples/run-mpi
EXTRA_DIST += examples/Makefile.installed
install-data-local: install-examples-makefile
uninstall-local: uninstall-examples-makefile
install-examples-makefile:
	$(MKDIR_P) '$(DESTDIR)$(exampledir)'
	$(INSTALL_DATA) $(srcdir)/examples/Makefile.installed '$(DESTDIR)$(exampledir)/Makefile'
uninstall-examples-makefile:
	rm -f '$(DESTDIR)$(exampledir)/Makefile'
.PHONY: install-examples-makefile uninstall-examples-makefile
