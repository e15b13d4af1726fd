/*
 * The driver-free half of the CUDA backend: choosing NVRTC's target,
 * the build options as NVRTC's arguments, compiling CUDA C with NVRTC,
 * and the compiled binary in memory.
 *
 * Nothing here calls the CUDA driver (no cu* function), so these files
 * link and run on a machine without a GPU or a driver; they need NVRTC
 * only.  Failures are reported through the kiln_host_api passed in.
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

/* A compiled program as the backend keeps it: the image to load. */
typedef struct cuda_binary {
    int is_ptx;             /* image is NUL-terminated PTX, else a CUBIN    */
    int sm;                 /* the architecture the image was built for     */
    unsigned char *image;   /* malloc'ed                                    */
    size_t image_size;      /* PTX: including its terminating NUL           */
    /* The source's kernel names (NVRTC name expressions) and the symbol
     * NVRTC lowered each to (nvrtcGetLoweredName), malloc'ed; none for an
     * image loaded again (the core keeps the symbols). */
    char **names;
    char **lowered;
    size_t name_count;
} cuda_binary;

CUDA_INTERNAL void cuda_binary_free(cuda_binary *binary);

/* Seconds on a monotonic clock. */
CUDA_INTERNAL double cuda_seconds(void);

/* Compiles CUDA C `source` for `target`, with its headers.  A compile
 * error is KILN_ERR_BUILD with a one-line summary followed by NVRTC's log
 * in the message, and the log alone in *log (malloc'ed).  On success *log
 * holds NVRTC's warnings, or NULL when there are none.  `seconds` (may be
 * NULL) receives NVRTC's time, from nvrtcCreateProgram to the image. */
CUDA_INTERNAL kiln_status cuda_binary_compile(const kiln_host_api *host,
                                              const cuda_target *target,
                                              const kiln_backend_source *source,
                                              cuda_binary *binary, char **log,
                                              double *seconds);

/* NVRTC's arguments for a source's option lists (exposed for tests): the
 * architecture, then -D, -U and -I as one argument each, then the flags,
 * then -I of the toolkit's include directory (CUDA's device headers);
 * a NULL-terminated malloc'ed array of malloc'ed strings, freed with
 * cuda_options_free.  *werror is set when -Werror asked for warnings to
 * fail the build (NVRTC has no such option). */
CUDA_INTERNAL kiln_status cuda_options_map(const kiln_host_api *host,
                                           const kiln_backend_source *source,
                                           const cuda_target *target,
                                           char ***nvrtc_options,
                                           size_t *count, int *werror);
CUDA_INTERNAL void cuda_options_free(char **nvrtc_options, size_t count);

#endif /* KILN_CUDA_COMPILE_H */
