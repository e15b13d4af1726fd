/*
 * The C preprocessor of the front end (private to Kiln: the translation
 * passes use it).
 *
 * NVRTC never sees the user's macros: real kernels hide qualifiers, types
 * and vector literals behind them, so the pass must expand them before it
 * can recognise those constructs.  This is a C99 preprocessor (object- and
 * function-like macros, # and ##, variadic macros with GNU's `, ##
 * __VA_ARGS__`, conditionals with defined(), #line, #error, #pragma,
 * _Pragma) with OpenCL C 1.2's predefined macros, the build options' -D
 * and -U, and __KILN_CUDA__.
 *
 * #include: Kiln's core inlines the files first, with this preprocessor
 * (clc_expand_includes, translate.h), so an #include that is still in an
 * active group here names a file that was not found, and fails the
 * translation with its name.
 *
 * Pragmas: `OPENCL EXTENSION` and `OPENCL FP_CONTRACT` are consumed here;
 * `unroll [N]` and `nounroll` become CLC_TOK_PRAGMA tokens ("unroll N",
 * macros in N expanded) that the translation emits in place; others are
 * dropped, as compilers ignore pragmas they do not know.
 */
#ifndef KILN_CLC_PREPROCESS_H
#define KILN_CLC_PREPROCESS_H

#include "lexer.h"
#include "translate.h" /* clc_include_reader */

typedef struct clc_pp_output {
    clc_token *tokens;        /* ends with CLC_TOK_EOF             */
    size_t count;             /* including the EOF token            */
    const char **file_names;  /* by clc_token.file (arena strings)  */
    size_t file_count;
    int fp_contract_off;      /* #pragma OPENCL FP_CONTRACT OFF seen */
    int fast_relaxed_math;    /* -cl-fast-relaxed-math in the options */
} clc_pp_output;

/* Preprocesses `source`.  `name` names file 0 ("<kiln program>" when
 * NULL); `options` are the build options (NULL: none).  Fails the
 * translation through `arena->failure` (clc_fail) on errors. */
void clc_preprocess(const char *source, size_t length, const char *name,
                    const clc_options *options, clc_arena *arena,
                    clc_interner *interner, clc_pp_output *out);

/* Evaluates an integer constant expression made of numbers, character
 * constants, parentheses and C operators (the #if grammar without
 * `defined`).  Returns 1 with *value set, 0 when the tokens are not such
 * an expression (an identifier, a division by zero, a float, ...). */
int clc_const_eval(const clc_token *tokens, size_t count, long long *value);

#endif
