/*
 * CUDA C -> OpenCL C: the pass's own interface (private to translate/; the
 * core reaches it through translate.h's translate_to_target and
 * translate_read).
 *
 * The pass turns the CUDA C that tutorials and samples write (PyCUDA's
 * SourceModule, CuPy's RawKernel) into OpenCL C 1.2 that any OpenCL
 * driver builds, with an OpenCL C prelude (prelude_opencl.cl) in front
 * that gives CUDA's names: threadIdx & co., the math library, atomics with
 * CUDA's return values, CUDA's vector types with CUDA's layout.
 *
 * Contract with the launch (the core's):
 *  - Every __global__ function becomes a __kernel of the same C name (with
 *    or without extern "C"; CUDA_KERNEL_RENAMED_PREFIX and the name where
 *    OpenCL C reserves it), with the user's parameters first, in order,
 *    followed by `hidden_count` hidden parameters that the launch sets:
 *    first a ulong byte offset for each named pointer parameter
 *    (CUDA_HIDDEN_POINTER_OFFSET, which the kernel adds to that pointer on
 *    entry, so a launch can pass a buffer view at any offset as its base
 *    and the offset), then the dynamic shared memory (extern __shared__, a
 *    __local argument of the launch's local_memory bytes) and the buffers
 *    that hold __device__ and __constant__ variables.
 *  - The program holds one buffer per variable, sized and initialised by
 *    its kernels TRANSLATE_KERNEL_VARIABLE_SIZES and _INIT (translate.h).
 *  - Anything that cannot be translated faithfully fails with a message
 *    naming the construct and the line, never OpenCL C that computes
 *    something different.
 */
#ifndef KILN_CUDA_TO_OPENCL_H
#define KILN_CUDA_TO_OPENCL_H

#include <stddef.h>

#include "lexer.h"
#include "opencl_to_cuda.h" /* clc_kernel_signature */
#include "preprocess.h"
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
    char native_name[160];   /* the __kernel's name in the OpenCL C text  */
    size_t hidden_count;
    cuda_hidden_param *hidden;
} cuda_kernel;

typedef struct cuda_variable {
    char name[128];
    int is_constant;      /* __constant__ (else __device__)             */
    int has_initializer;
} cuda_variable;

/* A kernel the host names otherwise than by its function's name in the
 * OpenCL C: an instance of a kernel template ("sgemm<64, 8>"), or a kernel
 * in a namespace ("ns::k").  Both spellings the host may use are listed:
 * the one it asked for and C++'s canonical one. */
typedef struct cuda_kernel_name {
    char *expression;     /* "sgemm<64, 8>"                              */
    char *function;       /* the kernel's function name in the output    */
} cuda_kernel_name;

/* What a translation is asked for beyond the source: kernel template
 * instances by name, as NVRTC's name expressions ("sgemm<64, 8>"). */
typedef struct cuda_kernel_request {
    const char *const *names;
    size_t count;
} cuda_kernel_request;

/* A kernel the translation refuses while it translates the others. */
typedef struct cuda_refused_kernel {
    char name[128];
    char *message;        /* "file:line: cannot translate '...': why"   */
    unsigned line;
} cuda_refused_kernel;

typedef struct cuda_to_opencl_result {
    char *source;         /* OpenCL C, the prelude included             */
    size_t kernel_count;
    cuda_kernel *kernels;
    size_t variable_count;
    cuda_variable *variables;
    int uses_double;
    int fast_math;        /* --use_fast_math among the options          */
    cuda_kernel_name *kernel_names;
    size_t kernel_name_count;
    int lowered_cxx;      /* the program's C++ was lowered (cxx.h)      */
    cuda_refused_kernel *refused;
    size_t refused_count;
    /* --fmad=false among the options, or #pragma OPENCL FP_CONTRACT OFF in
     * the source: a*b+c is never contracted (the text says so to the
     * OpenCL compiler with the pragma; its options must not ask for mad). */
    int fp_contract_off;
    /* The -cl-std= the text needs for its target's float atomics ("CL3.0"),
     * NULL: the compiler's default. */
    const char *cl_std;
    /* On failure: "file:line: cannot translate '...': why", the line, and
     * whether the source is valid CUDA C that the pass cannot translate
     * (KILN_ERR_TRANSLATION) rather than a wrong source (KILN_ERR_BUILD). */
    char *error;
    int error_line;
    int unsupported;
} cuda_to_opencl_result;

/* How float (and double) atomicAdd is done on an OpenCL device. */
typedef enum cuda_float_atomics {
    CUDA_FLOAT_ATOMICS_CAS = 0, /* compare-and-swap loops: any OpenCL 1.2
                                   device, slow where many threads add to
                                   one address                            */
    CUDA_FLOAT_ATOMICS_PTX,     /* NVIDIA's OpenCL: the instructions CUDA
                                   uses (atom/red.global.add.f32, .f64),
                                   through inline PTX (asm volatile)       */
    CUDA_FLOAT_ATOMICS_EXT      /* cl_ext_float_atomics: OpenCL C 3.0's
                                   atomic_fetch_add on atomic_float, where
                                   the compiler says it has it             */
} cuda_float_atomics;

/* Whether the translation for `target` leaves out CUDA's `#pragma unroll`
 * hints without a count (PoCL's CPU devices run faster without them). */
int cuda_to_opencl_drops_unroll_hints(const translate_target *target);

/* The float atomics of the device `target` describes (NULL: a generic
 * OpenCL 1.2 device), and in *cl_std (may be NULL) the -cl-std= they need
 * (NULL for the default). */
cuda_float_atomics cuda_to_opencl_float_atomics(const translate_target *target,
                                                const char **cl_std);

/* CUDA's plain-C device headers written for the translation
 * (cuda_headers.c): cuComplex.h and math_constants.h.  The text of the one
 * `name` names (its length in *length), or NULL. */
const char *cuda_header_text(const char *name, size_t *length);
/* A translate_include_reader's read that gives those headers their text
 * and asks the reader `context` (a translate_include_reader) for the
 * rest. */
int cuda_headers_read(void *context, const char *name, int quoted,
                      const char *includer, char **path, char **text,
                      size_t *length, char **error);

/* Whether `target` is an OpenCL device without doubles (no cl_khr_fp64):
 * the half math computed in double is refused for it (cxx_half.c). */
int cuda_to_opencl_lacks_fp64(const translate_target *target);

/* The program's text with the #include lines of the headers the prelude
 * stands for (cuda_runtime.h...) blanked; a CUDA library header the
 * translation cannot give (cuda_fp16.h, curand_kernel.h) fails the run. */
const char *cuda_to_opencl_filter(clc_run *run, const char *source,
                                  size_t length, const char *name);
/* The options the preprocessor sees for CUDA C: __CUDACC__ and
 * __CUDA_ARCH__ as NVRTC defines them for device code, none of OpenCL's,
 * then the user's -D and -U (in the run's arena). */
translate_options cuda_to_opencl_defines(clc_run *run,
                                         const translate_options *user);
/* Translates the preprocessed program `pp` for `target` (NULL: any
 * OpenCL 1.2 device), its C++ lowered first (cxx.h) with the kernel
 * template instances `request` names (NULL: none).  Failures unwind to
 * the caller's setjmp on `run`; what `out` holds is then the caller's to
 * free. */
void cuda_to_opencl_run(clc_run *run, const clc_pp_output *pp,
                        const translate_options *options,
                        const translate_target *target,
                        const cuda_kernel_request *request,
                        cuda_to_opencl_result *out);
/* Reads the kernels' signatures of `pp` only (no variables, no hidden
 * parameters, no text), its C++ lowered as for cuda_to_opencl_run. */
void cuda_to_opencl_read(clc_run *run, const clc_pp_output *pp,
                         const cuda_kernel_request *request,
                         cuda_to_opencl_result *out);

/* Preprocesses and translates `length` bytes of CUDA C in one call (the
 * module's tests and fuzzers).  `options` (NULL: none): -D and -U are
 * applied, a --use_fast_math flag sets fast_math, --fmad=false (NVRTC's
 * spellings) fp_contract_off, the rest (NVRTC's) are ignored.  Returns 0 on success; -1 with out->error set; -2 when memory
 * runs out.  Always call cuda_to_opencl_result_free. */
int cuda_to_opencl_translate(const char *source, size_t length,
                             const char *source_name,
                             const translate_options *options,
                             cuda_to_opencl_result *out);
/* The same with kernel template instances asked for by name. */
int cuda_to_opencl_translate_names(const char *source, size_t length,
                                   const char *source_name,
                                   const translate_options *options,
                                   const cuda_kernel_request *request,
                                   cuda_to_opencl_result *out);

void cuda_to_opencl_result_free(cuda_to_opencl_result *translation);

/* Whether CUDA C has #pragma OPENCL FP_CONTRACT OFF (preprocessed with
 * `options`' -D and -U: not in a comment or a group left out), without
 * translating it: NVRTC ignores the pragma, so a native build gets
 * --fmad=false for it.  1 yes, 0 no (or a source the preprocessor cannot
 * read). */
int cuda_fp_contract_pragma(const char *source, size_t length,
                            const translate_options *options);

#ifdef __cplusplus
}
#endif

#endif
