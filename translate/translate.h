/*
 * OpenCL C -> CUDA C translation: the front end's entry point (private to
 * Kiln: the CUDA plugin, kiln-clc and the tests link it).
 *
 * The pass turns a portable OpenCL C program into CUDA C++ that NVRTC
 * compiles after the prelude (prelude_cuda.cuh, embedded at build time and
 * returned by clc_prelude_source()).  It is pure C with no CUDA dependency so
 * that it can be tested and fuzzed on machines without a GPU.
 *
 * Contract with the CUDA backend:
 *  - Every __kernel function becomes an extern "C" __global__ function of
 *    the same name, with the same number of parameters in the same order.
 *  - A __local pointer kernel parameter becomes an unsigned int parameter
 *    that carries the byte offset of that argument's slice inside the
 *    kernel's dynamic shared memory.  The backend lays the slices out at
 *    launch (each aligned to CLC_LOCAL_ARG_ALIGN) and passes the offsets; the
 *    total dynamic shared memory is the end of the last slice.
 *  - #line directives map every line of the output back to the user's
 *    source line, so NVRTC's diagnostics name the user's lines.
 *  - Anything that cannot be translated faithfully fails the translation
 *    with a message naming the construct and the line; it never produces
 *    code that computes something different.
 */
#ifndef KILN_CLC_TRANSLATE_H
#define KILN_CLC_TRANSLATE_H

#include <stddef.h>

#include "kiln_backend.h" /* kiln_backend_define: the option lists' entries */

#ifdef __cplusplus
extern "C" {
#endif

/* Alignment of each __local argument slice in dynamic shared memory:
 * enough for the widest OpenCL type (double16, long16 = 128 bytes). */
#define CLC_LOCAL_ARG_ALIGN 128


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

typedef struct clc_translation {
    char *source;                /* CUDA C++ text, NUL-terminated            */
    size_t kernel_count;
    clc_kernel_signature *kernels;
    int uses_printf;
    int uses_double;
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
} clc_translation;

/* ---- build options ------------------------------------------------------------ */

/* Build options as lists: what kiln_backend_source carries (the core
 * splits the user's string once, with clc_options_parse) and what every
 * part of the front end reads.  NULL arrays with zero counts: none. */
typedef struct clc_options {
    const kiln_backend_define *defines;  /* -D and -U, in the order given  */
    size_t define_count;
    const char *const *include_dirs;     /* -I, in the order given         */
    size_t include_dir_count;
    const char *const *flags;            /* every other word, in order     */
    size_t flag_count;
} clc_options;

/* The lists of a program source a plugin was handed. */
static inline clc_options clc_options_of(const kiln_backend_source *source)
{
    clc_options options = {source->defines,      source->define_count,
                           source->include_dirs, source->include_dir_count,
                           source->flags,        source->flag_count};
    return options;
}

/* Lists made by clc_options_parse, owning their storage. */
typedef struct clc_option_lists {
    clc_options options;
    kiln_backend_define *defines;
    char **include_dirs;
    char **flags;
    char *storage;      /* the words' text                                */
    char *error;        /* on failure: the message                        */
} clc_option_lists;

/* Splits a build option string into words the way a POSIX shell would
 * without expansions (white space separates words, '...' and "..." group,
 * a backslash escapes the next character; in "..." only \" and \\), and
 * sorts them into lists: -D NAME[=VALUE], -U NAME and -I DIR take their
 * value from the same word or the next; every other word is a flag.
 * This is the only place where option strings are split.  Returns 0; -1
 * on an unterminated quote; -3 on a malformed option (-D without a macro
 * name, -D, -U or -I without a value); -2 when memory runs out.  On -1
 * and -3 out->error says what is wrong ("build options: ...").  NULL
 * `text`: no options.  Always call clc_option_lists_free(out) after. */
int clc_options_parse(const char *text, clc_option_lists *out);
/* The same for options that are words already (a command line's). */
int clc_options_parse_words(const char *const *words, size_t count,
                            clc_option_lists *out);
void clc_option_lists_free(clc_option_lists *lists);

/* Translates `length` bytes of OpenCL C.  `source_name` names the source in
 * #line directives and messages ("<kiln program>" when NULL).  `options` are
 * the user's build options (NULL: none): the pass honours their -D and -U
 * (the preprocessor runs inside the pass), -cl-std= and
 * -cl-fast-relaxed-math, and ignores the rest; the backend decides what
 * else reaches NVRTC.  Returns 0 on success;
 * -1 with out->error set when the source cannot be translated; -2 when
 * memory runs out.  Always call clc_translation_free(out) after. */
int clc_translate(const char *source, size_t length, const char *source_name,
                  const clc_options *options, clc_translation *out);

void clc_translation_free(clc_translation *translation);

/* ---- #include, for the core ------------------------------------------------- */

/* Finds and reads the file an #include names.  `name` is written as
 * between the quotes (`quoted` 1) or angle brackets (0); `includer` is the
 * path this reader gave the including file, NULL for the program itself.
 * Returns 1 with *path (the file's name in #line markers, messages and
 * include guards), *text and *length; 0 when there is no such file; -1
 * with *error when it exists but cannot be read.  Everything returned is
 * malloc'ed and freed by the caller. */
typedef struct clc_include_reader {
    int (*read)(void *context, const char *name, int quoted,
                const char *includer, char **path, char **text,
                size_t *length, char **error);
    void *context;
} clc_include_reader;

typedef struct clc_expansion {
    char *text;        /* the program with its includes inlined; NULL when
                          it includes nothing (use the source as it is)  */
    size_t length;
    char **files;      /* every file read, as the reader named it         */
    size_t file_count;
    char *error;       /* on failure: "file:line: message"                */
} clc_expansion;

/* Inlines the files the program's #include directives name, the way the
 * compiler will see them: this preprocessor runs over the program with the
 * build options' -D, -U and -cl-std= (and __KILN_CUDA__ when `target_cuda`;
 * `options` NULL: none), so
 * comments, strings, line splices, digraphs and conditional groups are
 * what C says they are, and `#include MACRO` is expanded.  An #include in
 * a group that is not taken, or of a file the reader does not find, stays
 * for the compiler; a file whose include guard is defined, or that said
 * #pragma once, is not read again.  The text is the tokens of each file
 * on their own lines, between #line markers.  Returns 0, -1 with
 * out->error (a cycle, more than 256 MiB of includes, an unreadable file,
 * a malformed directive), or -2 when memory runs out.  Always call
 * clc_expansion_free(out) after. */
int clc_expand_includes(const char *source, size_t length, const char *name,
                        const clc_options *options, int target_cuda,
                        const clc_include_reader *reader, clc_expansion *out);
void clc_expansion_free(clc_expansion *expansion);

/* Whether `word` occurs in text[0, length): memchr on the character at
 * word[anchor], chosen as the one the texts searched spell least, then a
 * compare of the whole word (a quick "can this source contain X" before
 * a costlier scan, on paths every build takes). */
int clc_text_spells(const char *text, size_t length, const char *word,
                    size_t anchor);

/* A digest (32 hex digits) of every file that decides what a translation
 * produces: the front end's sources, the prelude and their build rules,
 * computed by the build.  A backend that translates puts it in its cache
 * identity, so a binary cached by another translator is never loaded. */
const char *clc_translator_digest(void);
/* The files that digest covers, relative to the source tree, one a line. */
const char *clc_translator_digest_files(void);

/* The prelude NVRTC must see before the translated text: NVRTC is given it
 * as the header "kiln_cl_prelude.h", which the translated source includes. */
const char *clc_prelude_source(void);
#define CLC_PRELUDE_HEADER_NAME "kiln_cl_prelude.h"

/* The part of `prelude` (clc_prelude_source()) that `translation` (a
 * clc_translate result) uses: the sections that own the names it mentions,
 * with what they need (prelude_select.c says how).  What NVRTC reads, and
 * so its compile time, shrinks to what the program uses.  Returns the text
 * (malloc'ed, NUL-terminated; its length in *length when not NULL), or NULL
 * when memory runs out. */
char *clc_prelude_select(const char *prelude, const char *translation,
                         size_t *length);

#ifdef __cplusplus
}
#endif

#endif
