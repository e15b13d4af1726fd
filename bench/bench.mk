# Benchmarks: built by `make`, run by hand (`bench/run [OUT.md]` or
# `make bench`), never by `make check`.  Each program times Kiln and the raw
# vendor API doing the same work in one process; see bench/bench_util.h.
#
# The raw CUDA side needs cuda.h and NVRTC at build time; libcuda.so.1 is
# opened at run time (dlopen), so the programs still run on machines without
# the NVIDIA driver.  The raw OpenCL side links the ICD loader.
BENCH_BINARIES = bench/bench_launch bench/bench_copy bench/bench_build \
	bench/bench_kernels bench/bench_array bench/bench_compile bench/bench_peer \
	bench/bench_atomics bench/bench_warp bench/bench_templates
noinst_PROGRAMS += $(BENCH_BINARIES)

BENCH_CPPFLAGS = $(AM_CPPFLAGS)
BENCH_LIBS = libkiln.la -lm
if HAVE_OPENCL
BENCH_CPPFLAGS += -DKILN_BENCH_OPENCL
BENCH_LIBS += $(OPENCL_LIBS)
endif
if HAVE_CUDA
BENCH_CPPFLAGS += -DKILN_BENCH_CUDA $(CUDA_CPPFLAGS)
BENCH_LIBS += $(NVRTC_LIBS)
endif

BENCH_COMMON = bench/bench_util.c bench/bench_util.h

bench_bench_launch_SOURCES = bench/bench_launch.c $(BENCH_COMMON)
bench_bench_launch_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_launch_LDADD = $(BENCH_LIBS)

bench_bench_copy_SOURCES = bench/bench_copy.c $(BENCH_COMMON)
bench_bench_copy_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_copy_LDADD = $(BENCH_LIBS)

bench_bench_peer_SOURCES = bench/bench_peer.c $(BENCH_COMMON)
bench_bench_peer_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_peer_LDADD = $(BENCH_LIBS)

bench_bench_build_SOURCES = bench/bench_build.c bench/bench_kernels_source.h \
	$(BENCH_COMMON)
bench_bench_build_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_build_LDADD = $(BENCH_LIBS)

# bench_compile reads corpus kernels and their CUDA C twins from the source
# tree at run time.
bench_bench_compile_SOURCES = bench/bench_compile.c \
	bench/bench_kernels_source.h $(BENCH_COMMON)
bench_bench_compile_CPPFLAGS = $(BENCH_CPPFLAGS) \
	-DKILN_BENCH_SRCDIR='"$(abs_top_srcdir)"'
bench_bench_compile_LDADD = $(BENCH_LIBS)

bench_bench_kernels_SOURCES = bench/bench_kernels.c \
	bench/bench_kernels_source.h $(BENCH_COMMON)
bench_bench_kernels_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_kernels_LDADD = $(BENCH_LIBS)

# CUDA C atomics natively on CUDA and translated on OpenCL, both contexts
# in one process.
bench_bench_atomics_SOURCES = bench/bench_atomics.c $(BENCH_COMMON)
bench_bench_atomics_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_atomics_LDADD = $(BENCH_LIBS)

bench_bench_warp_SOURCES = bench/bench_warp.c $(BENCH_COMMON)
bench_bench_warp_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_warp_LDADD = $(BENCH_LIBS)

# The translator's own API too, for the translation-time rows.
bench_bench_templates_SOURCES = bench/bench_templates.c $(BENCH_COMMON)
bench_bench_templates_CPPFLAGS = $(BENCH_CPPFLAGS) -I$(top_srcdir)/translate
bench_bench_templates_LDADD = translate/libkiln_translate.la $(BENCH_LIBS)

bench_bench_array_SOURCES = bench/bench_array.c \
	bench/bench_kernels_source.h $(BENCH_COMMON)
bench_bench_array_CPPFLAGS = $(BENCH_CPPFLAGS)
bench_bench_array_LDADD = libkiln-array.la $(BENCH_LIBS)

EXTRA_DIST += bench/run bench/cupy_compare.py bench/python_bench.py bench/twins/elementwise.cu \
	bench/twins/vload_vstore.cu bench/twins/sgemm_tiled.cu

# `make bench`: the whole suite on the default backend (KILN_BACKEND picks
# another), tables on stdout and in bench/results-<backend>.md.
bench: $(BENCH_BINARIES)
	$(SHELL) $(srcdir)/bench/run
.PHONY: bench
