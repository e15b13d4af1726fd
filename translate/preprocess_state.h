/*
 * The preprocessor's files share this (private to translate/): its state
 * and the functions one file calls in another.  In the order a program
 * goes through them: preprocess.c (starting: predefined macros, the build
 * options' -D and -U; driving a file or a whole program), preprocess_
 * macros.c (reading tokens, expanding macros), preprocess_directives.c
 * (every directive but #include), preprocess_expression.c (#if),
 * preprocess_include.c (#include and the flattened text).  preprocess.h is
 * the preprocessor's interface to the rest of translate/.
 */
#ifndef KILN_PREPROCESS_STATE_H
#define KILN_PREPROCESS_STATE_H

#include "preprocess.h"

#include <stddef.h>
#include <stdint.h>

#define PP_MAX_DEPTH 200       /* nested argument pre-expansions       */
#define PP_MAX_COND_DEPTH 1024 /* nested #if groups                    */
#define PP_MAX_PARAMS 256      /* parameters of one macro              */
#define PP_MAX_EVAL_DEPTH 256  /* nesting inside one #if expression    */
/* Tokens read or made by expansion in one translation. */
#define PP_MAX_PRODUCED (4u * 1024u * 1024u)
/* #include nesting, and the bytes all the included files add up to (a
 * header included over and over without a guard grows exponentially). */
#define PP_MAX_INCLUDE_DEPTH 64
#define PP_MAX_INCLUDED_BYTES ((size_t)64 << 20)

/* A hide set (C99 6.10.3.4): the macros a token came from, as a sorted
 * array of identifiers, shared between tokens and never changed once
 * made.  Membership is a binary search and union and intersection a merge
 * that returns an operand itself when it is the answer, so a chain of
 * thousands of function-like macros costs what its tokens cost, not the
 * cube of its depth (lists made it quadratic per token). */
typedef struct pp_hideset {
    uint32_t count;
    int32_t idents[];
} pp_hideset;

typedef struct pp_tok {
    clc_token t;
    const pp_hideset *hideset;
    struct pp_tok *next;
} pp_tok;

typedef enum pp_builtin {
    PP_ORDINARY = 0,
    PP_LINE,
    PP_FILE,
    PP_COUNTER
} pp_builtin;

typedef struct pp_macro {
    int32_t name;
    uint8_t function_like;
    uint8_t variadic;
    uint8_t builtin;
    int param_count;
    const int32_t *params;
    const clc_token *body;
    const int16_t *body_param; /* parameter index of each body token, or -1 */
    size_t body_count;
} pp_macro;

typedef struct pp_cond {
    uint8_t taken; /* a group of this #if has been taken */
    uint8_t seen_else;
    uint16_t file;
    unsigned line;
} pp_cond;

typedef struct pp_state {
    clc_arena *arena;
    clc_interner *interner;
    clc_failure *failure;

    pp_macro **macros; /* by identifier id */
    size_t macro_capacity;

    /* The file being read: its tokens, and the #line adjustment. */
    const clc_token *file_tokens;
    size_t file_pos;
    long line_delta;
    uint16_t file;

    pp_tok *pending; /* tokens to read before the file's next */
    int isolated;    /* reading an argument: never reach into the file */
    int depth;
    size_t produced;  /* tokens made by expansion, against the limit */
    unsigned counter; /* __COUNTER__ */

    pp_cond *conds;
    size_t cond_count;
    size_t cond_capacity;

    clc_token_array out;
    const char **file_names;
    size_t file_count;
    size_t file_capacity;

    int fp_contract_off;
    pp_tok eof; /* what pp_read returns at the end */

    /* #include: the reader, the files being read (the innermost is the
     * one in file_tokens; frames hold the ones that include it), what is
     * known of each file read so far, and the flattened text when only
     * the includes are being expanded (clc_expand_includes). */
    const translate_include_reader *reader;
    struct pp_frame *frames;
    size_t frame_count;
    size_t frame_capacity;
    size_t cond_base;  /* the #if groups open when this file began   */
    const char *path;  /* the file being read; NULL: the program     */
    size_t raw_cursor; /* flattening: file tokens copied out so far  */
    struct pp_known_file *known;
    size_t known_count;
    size_t known_capacity;
    size_t included_bytes; /* against PP_MAX_INCLUDED_BYTES              */
    struct pp_resolved *resolved;
    size_t resolved_count;
    size_t resolved_capacity;
    size_t directive_begin; /* the directive being carried out: its '#'   */
    int leave_unfound;      /* an #include not found stays for the
                               compiler, as in expand_only               */
    int expand_only;        /* only directives matter; #error is the
                               compiler's business                        */
    clc_buffer *flat;       /* flattened text, or NULL                    */
    unsigned flat_line;     /* physical line the flattened text is at     */
    /* the first #include of a group the preprocessor takes that it leaves
     * to the compiler (not found, #include_next, #import, a malformed
     * name): "name" at file:line, in the arena; NULL when none */
    const char *left;
} pp_state;

/* A file an #include has read: its tokens (lexed once), and whether a
 * later #include of it can be skipped (#pragma once, or an include guard
 * whose macro is defined: the whole file is one #ifndef group). */
typedef struct pp_known_file {
    const char *path;
    uint16_t file;
    const clc_token *tokens;
    size_t bytes; /* its tokens' text: what one inclusion adds */
    int once;
    int32_t guard; /* the guard macro's identifier, -1 when none */
} pp_known_file;

/* An #include already resolved: the same name from the same file names
 * the same file again, without asking the reader. */
typedef struct pp_resolved {
    const char *includer;
    const char *name;
    int quoted;
    size_t known;
} pp_resolved;

typedef struct pp_frame {
    const clc_token *file_tokens;
    size_t file_pos;
    long line_delta;
    uint16_t file;
    size_t cond_base;
    const char *path;
    size_t raw_cursor;
} pp_frame;

/* A list of tokens being built. */
typedef struct pp_list {
    pp_tok *head;
    pp_tok *tail;
} pp_list;

/* An #if expression's value: intmax_t or uintmax_t, as C promotes. */
typedef struct pp_value {
    unsigned long long bits;
    int is_unsigned;
} pp_value;

/* ---- functions the preprocessor's files share ------------------------- */

CLC_NORETURN void pp_fail_at(pp_state *st, const clc_token *at,
                             const char *message);
int pp_is_punct(const clc_token *t, clc_punct punct);
const char *pp_spell(pp_state *st, const clc_token *t);
uint16_t pp_file_id(pp_state *st, const char *name, size_t length);
pp_tok *pp_new_tok(pp_state *st, const clc_token *t, const pp_hideset *hideset);
pp_macro *pp_macro_get(pp_state *st, int32_t ident);
void pp_macro_set(pp_state *st, int32_t ident, pp_macro *macro);
clc_token pp_file_token(pp_state *st, size_t pos);
pp_tok *pp_read(pp_state *st);
void pp_list_push(pp_list *list, pp_tok *tok);
pp_tok *pp_expand_isolated(pp_state *st, pp_tok *list);
int pp_try_expand(pp_state *st, pp_tok *tok);
int ev_parse_number(const clc_token *t, pp_value *value);
int pp_evaluate(const clc_token *tokens, size_t count, long long *value,
                const char **why);
pp_tok *pp_line_list(pp_state *st, size_t begin, size_t end);
clc_token *pp_list_to_array(pp_state *st, const pp_tok *list, size_t *count);
void pp_emit(pp_state *st, const clc_token *t);
void pp_flat_copy(pp_state *st, size_t until);
void pp_include(pp_state *st, const clc_token *hash, size_t begin, size_t end);
void pp_note_left(pp_state *st, const clc_token *hash, const char *name,
                  int quoted);
void pp_probe_skipped_include(pp_state *st, size_t at);
int pp_leave_file(pp_state *st);
void pp_pragma_once(pp_state *st);
void pp_directive(pp_state *st, const clc_token *hash);
void pp_pragma_operator(pp_state *st, pp_tok *tok);

#endif /* KILN_PREPROCESS_STATE_H */
