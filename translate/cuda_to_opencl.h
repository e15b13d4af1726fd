/*
 * CUDA C -> OpenCL C translation (private to Kiln: the OpenCL plugin, the
 * CUDA plugin for its reading of signatures, kiln-clc and the tests).
 *
 * The pass turns the CUDA C that tutorials and samples write (PyCUDA's
 * SourceModule, CuPy's RawKernel) into OpenCL C 1.2 that any OpenCL
 * driver builds, with an OpenCL C prelude (prelude_opencl.cl) in front
 * that gives CUDA's names: threadIdx & co., the math library, atomics with
 * CUDA's return values, CUDA's vector types with CUDA's layout.
 *
 * Contract with the OpenCL backend:
 *  - Every __global__ function becomes a __kernel of the same C name (with
 *    or without extern "C"), with the user's parameters first, in order,
 *    followed by `hidden_count` hidden parameters: first a ulong byte
 *    offset for each named pointer parameter (CUDA_HIDDEN_POINTER_OFFSET,
 *    which the kernel adds to that pointer on entry, so a launch can pass
 *    a buffer view at any offset as its base and the offset), then those
 *    the backend sets itself: the dynamic shared memory (extern
 *    __shared__, a __local argument of the launch's local_memory bytes)
 *    and the buffers that hold __device__ and __constant__ variables.
 *  - The program holds one buffer per variable.  Kernel
 *    CUDA_KERNEL_VARIABLE_SIZES (one work-item, one __global ulong * argument)
 *    writes each variable's size in bytes, in order; kernel
 *    CUDA_KERNEL_VARIABLE_INIT, present when some variable has an
 *    initializer, takes those variables' buffers (in order, only those
 *    with has_initializer) and writes their initial values.  The others
 *    start zero-filled, as CUDA's do.  Neither kernel is the user's: the
 *    backend hides them from kernel listings.
 *  - Anything that cannot be translated faithfully fails with a message
 *    naming the construct and the line, never OpenCL C that computes
 *    something different.
 */
#ifndef KILN_CUDA_TO_OPENCL_H
#define KILN_CUDA_TO_OPENCL_H

#include <stddef.h>

#include "translate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the output for the same input may change: part of the
 * kernel cache key (with the prelude's text). */
#define CUDA_TRANSLATE_VERSION 2

/* A kernel whose name OpenCL C reserves (dot, normalize, clamp...: its
 * built-ins) is this prefix and its name in the OpenCL program; the
 * backend finds and lists it by its CUDA name. */
#define CUDA_KERNEL_RENAMED_PREFIX "__kiln_kernel_"

#define CUDA_KERNEL_VARIABLE_SIZES "__kiln_variable_sizes"
#define CUDA_KERNEL_VARIABLE_INIT "__kiln_variable_init"

typedef enum cuda_hidden_kind {
    CUDA_HIDDEN_DYNAMIC_SHARED = 1, /* __local: launch.local_memory bytes */
    CUDA_HIDDEN_VARIABLE,           /* the buffer of variables[variable]  */
    CUDA_HIDDEN_POINTER_OFFSET      /* ulong: bytes into the buffer given
                                       for parameter `variable`           */
} cuda_hidden_kind;

typedef struct cuda_hidden_param {
    cuda_hidden_kind kind;
    size_t variable;                /* POINTER_OFFSET: a parameter index  */
} cuda_hidden_param;

typedef struct cuda_kernel {
    /* The user's parameters as CUDA C declares them: kind GLOBAL for a
     * pointer, VALUE otherwise; type_name in CUDA's spelling ("float*",
     * "size_t", "float3"); size 0 for a type the pass cannot size (a
     * struct: the driver knows). */
    clc_kernel_signature signature;
    size_t hidden_count;
    cuda_hidden_param *hidden;
} cuda_kernel;

typedef struct cuda_variable {
    char name[128];
    int is_constant;      /* __constant__ (else __device__)             */
    int has_initializer;
} cuda_variable;

typedef struct cuda_translation {
    char *source;         /* OpenCL C, the prelude included             */
    size_t kernel_count;
    cuda_kernel *kernels;
    size_t variable_count;
    cuda_variable *variables;
    int uses_double;
    int fast_math;        /* --use_fast_math among the options          */
    /* On failure: "file:line: cannot translate '...': why", the line, and
     * whether the source is valid CUDA C that the pass cannot translate
     * (KILN_ERR_TRANSLATION) rather than a wrong source (KILN_ERR_BUILD). */
    char *error;
    int error_line;
    int unsupported;
} cuda_translation;

/* Translates `length` bytes of CUDA C.  `options` are the user's build
 * options (NULL: none): -D, -U are applied here, a --use_fast_math flag
 * sets fast_math, the rest (NVRTC's) are ignored.  Returns 0 on success; -1
 * with out->error set; -2 when memory runs out.  Always call
 * cuda_translation_free. */
int cuda_translate(const char *source, size_t length, const char *source_name,
                   const clc_options *options, cuda_translation *out);

void cuda_translation_free(cuda_translation *translation);

/* The OpenCL C prelude (also inside every translation's source). */
const char *cuda_prelude_source(void);

#ifdef __cplusplus
}
#endif

#endif
