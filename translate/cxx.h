/*
 * The C++ that CUDA code is written in, lowered to C-like CUDA (private to
 * the front end: cuda_to_opencl.c calls it between the preprocessor and
 * its own pass; cxx_internal.h says how it works).
 *
 * Templates (function, kernel and class templates, deduced or explicit
 * arguments, specialisations), overloads, references, namespaces and
 * `using`, `auto`, constexpr, static_assert, if constexpr, structs with
 * member functions, constructors and operators, default arguments: each
 * becomes the plain C the CUDA C -> OpenCL C pass reads, token by token
 * with the user's lines.  A program that uses none of them comes back as
 * it went in.  What cannot be lowered faithfully is refused with the
 * construct and its line.
 */
#ifndef KILN_CXX_H
#define KILN_CXX_H

#include "lexer.h"

#include <stddef.h>

/* A kernel the host may ask for by a name that is not its function's
 * name in the output: an instance of a kernel template ("sgemm<64, 8>",
 * written as the request wrote it and in the canonical spelling), or a
 * kernel in a namespace ("ns::k"). */
typedef struct cxx_kernel_name {
    const char *expression;   /* as asked for, or the canonical spelling */
    const char *function;     /* its function's name in the output       */
} cxx_kernel_name;

/* A function whose body the phase refused (a construct OpenCL C cannot
 * express): it is in the output with an empty body under `function`, and
 * the pass below refuses it with `message` ("file:line: cannot translate
 * ..."), so that only the kernels that reach it are refused. */
typedef struct cxx_refusal {
    const char *function;
    const char *message;
    unsigned line;
} cxx_refusal;

typedef struct cxx_lowering {
    clc_token *tokens;        /* ends with CLC_TOK_EOF                   */
    size_t count;             /* including the EOF token                 */
    cxx_kernel_name *kernels; /* names the host may ask for              */
    size_t kernel_count;
    cxx_refusal *refusals;
    size_t refusal_count;
    int lowered;              /* 0: the program used no C++ to lower     */
} cxx_lowering;

/* Lowers the preprocessed `tokens` (`count` of them, the last an EOF
 * token).  `requests` name kernel template instances to make, as NVRTC's
 * name expressions do ("sgemm<64, 8>"); a request the program cannot make
 * fails the translation naming it.  Fails through `arena->failure`;
 * refusals also set *unsupported.  `headers` (CLC_CUDA_FP16,
 * CLC_CUDA_BF16) says which of CUDA's device headers the source included:
 * their types are given to it in C++ (cxx_half.c); CLC_CUDA_NO_FP64 with
 * them says the device has no doubles.  `force` lowers even a
 * program that uses no C++ (tests). */
void cxx_lower(clc_arena *arena, clc_interner *interner,
               volatile int *unsupported, const clc_token *tokens,
               size_t count, const char *const *requests,
               size_t request_count, unsigned headers, int force,
               cxx_lowering *out);

#endif
