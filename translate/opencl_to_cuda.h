/*
 * OpenCL C -> CUDA C++: the pass's own interface (private to translate/;
 * the core reaches it through translate.h's translate_to_target).
 *
 * The pass turns a portable OpenCL C program into CUDA C++ that NVRTC
 * compiles after the prelude (prelude_cuda.cuh, given to NVRTC as the
 * header TRANSLATE_PRELUDE_CUDA_HEADER).  Contract with the launch:
 *  - Every __kernel function becomes an extern "C" __global__ function of
 *    the same name, with the same parameters in the same order, then the
 *    hidden ones (a uint work_dim when the program calls get_work_dim()).
 *  - A __local pointer kernel parameter becomes an unsigned int parameter
 *    that carries the byte offset of that argument's slice inside the
 *    kernel's dynamic shared memory (TRANSLATE_LOCAL_ALIGN, translate.h).
 *  - #line directives map every line of the output back to the user's
 *    source line, so NVRTC's diagnostics name the user's lines.
 *  - Anything that cannot be translated faithfully fails the translation
 *    with a message naming the construct and the line; it never produces
 *    code that computes something different.
 */
#ifndef KILN_OPENCL_TO_CUDA_H
#define KILN_OPENCL_TO_CUDA_H

#include <stddef.h>

#include "preprocess.h"
#include "translate.h"

typedef enum clc_param_kind {
    CLC_PARAM_GLOBAL = 1, /* __global T *  : device pointer (8 bytes)          */
    CLC_PARAM_CONSTANT,   /* __constant T *: device pointer (8 bytes)          */
    CLC_PARAM_LOCAL,      /* __local T *   : offset into dynamic shared memory */
    CLC_PARAM_VALUE       /* passed by value                                   */
} clc_param_kind;

typedef struct clc_param {
    clc_param_kind kind;
    char name[64];       /* parameter name as written, "" if unnamed        */
    char type_name[96];  /* as OpenCL reports it: "float*", "uint", "float4" */
    size_t size;         /* CLC_PARAM_VALUE: size in bytes of the OpenCL type
                            (float3 = 16), 0 when not known here (a struct or
                            a typedef the pass cannot resolve);
                            pointers: 8                                      */
} clc_param;

typedef struct clc_kernel_signature {
    char name[128];
    size_t param_count;
    clc_param *params;            /* param_count entries                      */
    unsigned reqd_work_group[3]; /* reqd_work_group_size, 0 0 0 when absent  */
} clc_kernel_signature;

typedef struct opencl_to_cuda_result {
    char *source;                /* CUDA C++ text, NUL-terminated            */
    size_t kernel_count;
    clc_kernel_signature *kernels;
    int uses_printf;
    int uses_double;
    /* get_work_dim() appears: every kernel takes a hidden unsigned int,
     * the launch's work dimensions, after its own parameters. */
    int uses_work_dim;
    /* #pragma OPENCL FP_CONTRACT OFF appeared: the program must be compiled
     * without contracting a*b+c into fused multiply-adds (the pragma may
     * stand anywhere; the whole program goes without). */
    int fp_contract_off;
    /* On failure: a message such as
     * "input.cl:12: cannot translate 'image2d_t': images are not supported
     * by the CUDA backend" and the user's line number (0 if none). */
    char *error;
    int error_line;
    /* On failure: 1 when the source is valid OpenCL C that the CUDA backend
     * cannot run (images, pipes, a block over 1024 work-items: the
     * backend's KILN_ERR_TRANSLATION), 0 when the source itself is wrong
     * (a preprocessor error, unbalanced brackets, an invalid kernel
     * signature: KILN_ERR_BUILD, as any compiler would say). */
    int unsupported;
} opencl_to_cuda_result;

/* Translates the preprocessed program `pp` (of `run`, which the caller set
 * up: failures unwind to its setjmp).  out->source and the kernels are
 * malloc'ed (opencl_to_cuda_result_free); on failure nothing is left to
 * free but what the caller's unwinding frees. */
void opencl_to_cuda_run(clc_run *run, const clc_pp_output *pp,
                        opencl_to_cuda_result *out);

/* Preprocesses and translates `length` bytes of OpenCL C in one call (the
 * module's tests and fuzzers).  `source_name` names the source in #line
 * directives and messages ("<kiln program>" when NULL); `options` (NULL:
 * none) give -D, -U, -cl-std= and -cl-fast-relaxed-math.  Returns 0; -1
 * with out->error set; -2 when memory runs out.  Always call
 * opencl_to_cuda_result_free(out) after. */
int opencl_to_cuda_translate(const char *source, size_t length,
                             const char *source_name,
                             const translate_options *options,
                             opencl_to_cuda_result *out);
void opencl_to_cuda_result_free(opencl_to_cuda_result *result);

/* The part of `prelude` (translate_prelude_cuda()) that `translation` uses:
 * the sections that own the names it mentions, with what they need
 * (prelude_select.c says how).  What NVRTC reads, and so its compile time,
 * shrinks to what the program uses.  Returns the text (malloc'ed,
 * NUL-terminated; its length in *length when not NULL), or NULL when
 * memory runs out. */
char *prelude_cuda_select(const char *prelude, const char *translation,
                          size_t *length);

/* The NVRTC options for the user's OpenCL-style options (opencl_to_cuda_
 * options.c): each -cl-* option with a meaning becomes NVRTC's, the others
 * go; other words pass as they are.  `translated` adds what every
 * translation needs (device functions by default, C++17) and
 * `fp_contract_off` --fmad=false (last: it wins).  `compiler_version` is
 * NVRTC's (12040 for 12.4; 0 unknown).  Returns 0; -2 out of memory. */
int opencl_to_cuda_options(const translate_options *user,
                           translate_language source_language,
                           int fp_contract_off, unsigned compiler_version,
                           translate_option_lists *out);

#endif /* KILN_OPENCL_TO_CUDA_H */
