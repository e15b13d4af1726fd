/*
 * The rewriter both translation passes share (private to translate/):
 * what a token is, brackets matched, the edits a pass records over a
 * range of tokens (text before, instead of or after each), and the writer
 * that spells tokens out once with their edits, with #line markers that
 * keep the user's files and lines for the compiler's messages, and a
 * space only where two tokens would otherwise read as one.
 *
 * A pass reads the preprocessor's tokens, never text: it decides what to
 * change by token index, records it as edits, and writes each range of
 * tokens it keeps (once, or once per instance of a function) through one
 * writer.  Nothing is re-lexed and nothing is rewritten twice.
 */
#ifndef KILN_REWRITE_H
#define KILN_REWRITE_H

#include "lexer.h"

#include <stddef.h>
#include <stdint.h>

/* ---- what a token is ----------------------------------------------------- */

static inline int clc_token_is_punct(const clc_token *t, clc_punct punct)
{
    return t->kind == CLC_TOK_PUNCT && t->punct == punct;
}

static inline int clc_token_is_ident(const clc_token *t)
{
    return t->kind == CLC_TOK_IDENT;
}

/* An identifier that is `word` (a clc_word or another interned id). */
static inline int clc_token_is_word(const clc_token *t, int32_t word)
{
    return t->kind == CLC_TOK_IDENT && t->ident == word;
}

static inline int clc_token_is_open(const clc_token *t)
{
    return clc_token_is_punct(t, P_LPAREN) ||
           clc_token_is_punct(t, P_LBRACKET) || clc_token_is_punct(t, P_LBRACE);
}

static inline int clc_token_is_close(const clc_token *t)
{
    return clc_token_is_punct(t, P_RPAREN) ||
           clc_token_is_punct(t, P_RBRACKET) || clc_token_is_punct(t, P_RBRACE);
}

/* An identifier spelt `name`, or starting with `prefix`. */
int clc_token_name_is(const clc_interner *interner, const clc_token *t,
                      const char *name);
int clc_token_name_starts(const clc_interner *interner, const clc_token *t,
                          const char *prefix);

/* ---- brackets ------------------------------------------------------------ */

typedef enum clc_bracket_problem {
    CLC_BRACKETS_BALANCED = 0,
    CLC_BRACKET_UNBALANCED,    /* a closing bracket without its opening  */
    CLC_BRACKET_UNCLOSED,      /* an opening bracket never closed         */
    CLC_BRACKET_UNTERMINATED   /* a string or character literal          */
} clc_bracket_problem;

/* Sets match[i] of each bracket among tokens [0, count) to its partner's
 * index; the others' entries are left as the caller set them.  On a
 * problem, *at is the token it is about.  The lexer makes an unterminated
 * literal one stray token to the end of its line: it is named here, before
 * a bracket it swallowed is. */
clc_bracket_problem clc_match_brackets(clc_arena *arena,
                                       const clc_token *tokens, size_t count,
                                       size_t *match, size_t *at);

/* ---- edits --------------------------------------------------------------- */

/* Text to put before, instead of (NULL: the token; "": dropped) or after
 * each token of [begin, end]. */
typedef struct clc_edits {
    size_t begin, end;
    const char **before;
    const char **replace;
    const char **after;
} clc_edits;

void clc_edits_init(clc_arena *arena, clc_edits *e, size_t begin, size_t end);
/* Text before and after token i adds to what is there: before-texts in
 * the order they are added, then the token, then after-texts in order.
 * Edits outside the range are ignored. */
void clc_edit_before(clc_arena *arena, clc_edits *e, size_t i,
                     const char *text);
void clc_edit_after(clc_arena *arena, clc_edits *e, size_t i,
                    const char *text);
void clc_edit_replace(clc_edits *e, size_t i, const char *text);
/* Drops tokens [begin, end). */
void clc_edit_drop(clc_edits *e, size_t begin, size_t end);

/* ---- the writer ---------------------------------------------------------- */

typedef struct clc_writer {
    clc_buffer *out;
    const clc_token *tokens;
    const char *const *file_names;   /* by clc_token.file                */
    size_t file_count;
    int file;       /* of the current output line; -1: not yet known     */
    unsigned line;  /* the user's line the current output line is        */
    char last;      /* the last character written; '\0': nothing yet     */
    int pending_space; /* a dropped token's space, for the next text     */
} clc_writer;

/* `last`: '\n' when `out` starts a line, '\0' for text inside one. */
void clc_writer_init(clc_writer *w, clc_buffer *out, const clc_token *tokens,
                     const char *const *file_names, size_t file_count,
                     char last);
/* Moves the output to token t's line: newlines when it is a few lines
 * on, a #line marker otherwise. */
void clc_write_position(clc_writer *w, const clc_token *t);
/* Text of the pass's own, spaced from what precedes it where needed. */
void clc_write_text(clc_writer *w, const char *text);
/* Tokens [begin, end) with their edits (`e` NULL: none); `position`: keep
 * each token on its user's line. */
void clc_write_range(clc_writer *w, const clc_edits *e, size_t begin,
                     size_t end, int position);
/* Tokens [begin, end) with their edits as one line of text. */
const char *clc_render(clc_arena *arena, const clc_token *tokens,
                       const char *const *file_names, size_t file_count,
                       const clc_edits *e, size_t begin, size_t end);

#endif /* KILN_REWRITE_H */
