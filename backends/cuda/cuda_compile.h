/*
 * The driver-free half of the CUDA backend: choosing NVRTC's target,
 * mapping build options, compiling (OpenCL C through the translator, or
 * native CUDA C) with NVRTC, and the compiled binary in memory.
 *
 * Nothing here calls the CUDA driver (no cu* function), so these files
 * link and run on a machine without a GPU or a driver; they need NVRTC
 * and the translator.  Failures are reported through the kiln_host_api
 * passed in.
 */
#ifndef KILN_CUDA_COMPILE_H
#define KILN_CUDA_COMPILE_H

#ifdef HAVE_CONFIG_H
#include "config.h" /* _GNU_SOURCE, from AC_USE_SYSTEM_EXTENSIONS */
#elif !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* strnlen, when built outside Automake */
#endif

#include <stddef.h>
#include <stdint.h>

#include "translate.h"
#include "kiln_backend.h"

#if defined(__GNUC__)
#define CUDA_INTERNAL __attribute__((visibility("hidden")))
#else
#define CUDA_INTERNAL
#endif

/* What NVRTC is asked to produce for a device. */
typedef struct cuda_target {
    int device_sm;  /* the device: 90 for compute capability 9.0          */
    int compile_sm; /* the image's architecture; 0: NVRTC knows none <=
                       device_sm, so nothing can be built                 */
    int is_ptx;     /* 0: a CUBIN for sm_<device_sm>; 1: PTX for
                       compute_<compile_sm>, JIT-compiled by the driver  */
} cuda_target;

/* Picks the exact architecture when NVRTC supports it, else PTX of the
 * highest supported architecture below the device (a newer GPU than this
 * NVRTC knows).  Never fails: compile_sm 0 when nothing fits. */
CUDA_INTERNAL void cuda_target_choose(int major, int minor,
                                      cuda_target *target);
/* "sm_90", or "compute_100" for PTX; "none" when compile_sm is 0. */
CUDA_INTERNAL void cuda_target_name(const cuda_target *target, char *buffer,
                                    size_t size);
/* NVRTC's version; 0 0 if NVRTC cannot tell. */
CUDA_INTERNAL void cuda_nvrtc_version(int *major, int *minor);

/* A compiled program as the backend keeps it: the image to load, and for
 * OpenCL C the translated kernels' signatures (which the driver cannot
 * tell: __local and buffer parameters look like integers and pointers). */
typedef struct cuda_binary {
    kiln_language language;
    int is_ptx;             /* image is NUL-terminated PTX, else a CUBIN    */
    int sm;                 /* the architecture the image was built for     */
    unsigned char *image;   /* malloc'ed                                    */
    size_t image_size;      /* PTX: including its terminating NUL           */
    size_t kernel_count;    /* OpenCL C: the translation's; CUDA C: Kiln's
                               reading of the source (0 when it cannot)   */
    clc_kernel_signature *kernels; /* each with its own malloc'ed params    */
} cuda_binary;

CUDA_INTERNAL void cuda_binary_free(cuda_binary *binary);

/* Where a build's time went, in seconds (KILN_LOG=debug reports it). */
typedef struct cuda_build_times {
    double translation; /* OpenCL C -> CUDA C; 0 for CUDA C              */
    double compilation; /* NVRTC, from nvrtcCreateProgram to the image   */
} cuda_build_times;

/* Seconds on a monotonic clock. */
CUDA_INTERNAL double cuda_seconds(void);

/* Compiles `source` for `target`.  OpenCL C is translated first
 * (KILN_ERR_TRANSLATION with the construct and line on failure).  A
 * compile error is KILN_ERR_BUILD with a one-line summary followed by
 * NVRTC's log in the message, and the log alone in *log (malloc'ed).  On
 * success *log holds NVRTC's warnings, or NULL when there are none.
 * `times` (may be NULL) receives where the time went. */
CUDA_INTERNAL kiln_status cuda_binary_compile(const kiln_host_api *host,
                                              const cuda_target *target,
                                              const kiln_backend_source *source,
                                              cuda_binary *binary, char **log,
                                              cuda_build_times *times);

/* The NVRTC options for the user's build options (exposed for tests): a
 * NULL-terminated malloc'ed array of malloc'ed strings, freed with
 * cuda_options_free; *werror is set when -Werror asked for warnings to fail
 * the build.  The table of OpenCL options and what becomes of each is in
 * cuda_compile.c. */
CUDA_INTERNAL kiln_status cuda_options_map(const kiln_host_api *host,
                                           kiln_language language,
                                           const clc_options *options,
                                           const cuda_target *target,
                                           char ***nvrtc_options,
                                           size_t *count, int *werror);
CUDA_INTERNAL void cuda_options_free(char **nvrtc_options, size_t count);

/* Copies `count` translated signatures (deep); NULL on out of memory. */
CUDA_INTERNAL clc_kernel_signature *
cuda_signatures_copy(const clc_kernel_signature *kernels, size_t count);
CUDA_INTERNAL void cuda_signatures_free(clc_kernel_signature *kernels,
                                        size_t count);

#endif /* KILN_CUDA_COMPILE_H */
