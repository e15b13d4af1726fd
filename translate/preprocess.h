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
 * #include: the files are inlined through the caller's reader, in the
 * pass that expands the macros (clc_preprocess_program) or, for a program
 * compiled as it is, in a pass that only follows the directives
 * (clc_expand_includes); an #include not found in an active group fails a
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
#include "translate.h" /* translate_options, translate_include_reader */

typedef struct clc_pp_output {
    clc_token *tokens;        /* ends with CLC_TOK_EOF             */
    size_t count;             /* including the EOF token            */
    const char **file_names;  /* by clc_token.file (arena strings)  */
    size_t file_count;
    int fp_contract_off;      /* #pragma OPENCL FP_CONTRACT OFF seen */
    int ndebug;               /* NDEBUG defined at the end (assert off) */
    int fast_relaxed_math;    /* -cl-fast-relaxed-math in the options */
    size_t included_files;    /* files #include read (clc_preprocess_program) */
    /* clc_preprocess_program with leave_unfound: the first #include of a
     * group it takes that is left to the compiler ("name" at file:line, in
     * the arena); NULL when none. */
    const char *left;
} clc_pp_output;

/* Preprocesses `source`.  `name` names file 0 ("<kiln program>" when
 * NULL); `options` are the build options (NULL: none).  Fails the
 * translation through `arena->failure` (clc_fail) on errors. */
void clc_preprocess(const char *source, size_t length, const char *name,
                    const translate_options *options, clc_arena *arena,
                    clc_interner *interner, clc_pp_output *out);

/* clc_preprocess with #include carried out through `reader` (NULL: an
 * #include fails the translation): the files are read, and the program's
 * text with them inlined between #line markers is appended to `flat` (NULL:
 * not kept) as clc_expand_includes writes it, in the same pass that
 * expands the macros.  `leave_unfound`: an #include the reader does not
 * find stays in `flat` for the compiler instead of failing.  `target_cuda`
 * predefines __KILN_CUDA__. */
void clc_preprocess_program(const char *source, size_t length,
                            const char *name, const translate_options *options,
                            int target_cuda,
                            const translate_include_reader *reader,
                            int leave_unfound, clc_arena *arena,
                            clc_interner *interner, clc_pp_output *out,
                            clc_buffer *flat);

/* Whether `text` spells the word "include" once its line splices are gone:
 * a source that does not can have nothing to inline. */
int clc_may_include(const char *text, size_t length);

/* Evaluates an integer constant expression made of numbers, character
 * constants, parentheses and C operators (the #if grammar without
 * `defined`).  Returns 1 with *value set, 0 when the tokens are not such
 * an expression (an identifier, a division by zero, a float, ...). */
int clc_const_eval(const clc_token *tokens, size_t count, long long *value);


typedef struct clc_expansion {
    char *text;        /* the program with its includes inlined; NULL when
                          it includes nothing (use the source as it is)  */
    size_t length;
    char **files;      /* every file read, as the reader named it         */
    size_t file_count;
    char *error;       /* on failure: "file:line: message"                */
    /* The first #include of a group the preprocessor takes that is left
     * to the compiler (the reader did not find it, #include_next,
     * #import, a malformed name): "\"name\" at file:line"; NULL when
     * none.  What the compiler reads for it is not in `text`. */
    char *left;
} clc_expansion;

/* Inlines the files the program's #include directives name, the way the
 * compiler will see them: this preprocessor runs over the program with the
 * build options' -D, -U and -cl-std= (and __KILN_CUDA__ when `target_cuda`;
 * `options` NULL: none), so
 * comments, strings, line splices, digraphs and conditional groups are
 * what C says they are, and `#include MACRO` is expanded.  An #include in
 * a group that is not taken, or of a file the reader does not find, stays
 * for the compiler (the first one of a taken group is out->left; the
 * reader is still asked for the file a not-taken group names, so that it
 * can note it for the cache key); a file whose include guard is defined,
 * or that said
 * #pragma once, is not read again.  The text is the tokens of each file
 * on their own lines, between #line markers.  Returns 0, -1 with
 * out->error (a cycle, more than 256 MiB of includes, an unreadable file,
 * a malformed directive), or -2 when memory runs out.  Always call
 * clc_expansion_free(out) after. */
int clc_expand_includes(const char *source, size_t length, const char *name,
                        const translate_options *options, int target_cuda,
                        const translate_include_reader *reader, clc_expansion *out);
void clc_expansion_free(clc_expansion *expansion);

#endif
