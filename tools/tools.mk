# The quick start's first step (README): the build's packages on Debian and
# Ubuntu, with or without sudo.
EXTRA_DIST += tools/install-deps.sh m4/README
# -h/--help and -V/--version, answered the same way by every tool.
noinst_HEADERS += tools/tool_options.h

# kiln-info: backends, why any failed to load, devices and the cache.
bin_PROGRAMS += tools/kiln-info
tools_kiln_info_SOURCES = tools/kiln-info.c
tools_kiln_info_LDADD = libkiln.la

# kiln-compare: runs an OpenCL C file's kernels on two backends or devices
# with identical inputs and compares every buffer.
bin_PROGRAMS += tools/kiln-compare
tools_kiln_compare_SOURCES = tools/kiln-compare.c
tools_kiln_compare_LDADD = libkiln.la -lm

# The survey of public CUDA C (docs/SURVEY.md): tools/cuda-survey extracts
# kernels from fetched repositories, checks them with NVRTC and builds them
# through cuda-survey-build, which uses only kiln.h.
noinst_PROGRAMS += tools/cuda-survey-build
tools_cuda_survey_build_SOURCES = tools/cuda-survey-build.c
tools_cuda_survey_build_LDADD = libkiln.la
EXTRA_DIST += tools/cuda-survey bench/survey/repos.txt \
	bench/survey/runtime_shim.hpp
