/*
 * The rewriter both translation passes share: token predicates, bracket
 * matching, edits and the writer (rewrite.h).
 */
#include "rewrite.h"

#include <stdio.h>
#include <string.h>

/* ---- what a token is ----------------------------------------------------- */

int clc_token_name_is(const clc_interner *interner, const clc_token *t,
                      const char *name)
{
    if (!clc_token_is_ident(t))
        return 0;
    const clc_ident *ident = clc_ident_get(interner, t->ident);
    size_t n = strlen(name);
    return ident->length == n && memcmp(ident->name, name, n) == 0;
}

int clc_token_name_starts(const clc_interner *interner, const clc_token *t,
                          const char *prefix)
{
    if (!clc_token_is_ident(t))
        return 0;
    const clc_ident *ident = clc_ident_get(interner, t->ident);
    size_t n = strlen(prefix);
    return ident->length >= n && memcmp(ident->name, prefix, n) == 0;
}

/* ---- brackets ------------------------------------------------------------ */

clc_bracket_problem clc_match_brackets(clc_arena *arena,
                                       const clc_token *tokens, size_t count,
                                       size_t *match, size_t *at)
{
    size_t *stack = clc_arena_alloc(arena, (count + 1) * sizeof *stack);
    size_t depth = 0;
    for (size_t i = 0; i < count; ++i) {
        const clc_token *t = &tokens[i];
        if (t->kind == CLC_TOK_OTHER && t->length > 0 &&
            (t->text[0] == '"' || t->text[0] == '\'')) {
            *at = i;
            return CLC_BRACKET_UNTERMINATED;
        }
        if (clc_token_is_open(t)) {
            stack[depth++] = i;
            continue;
        }
        if (!clc_token_is_close(t))
            continue;
        clc_punct open = t->punct == P_RPAREN     ? P_LPAREN
                         : t->punct == P_RBRACKET ? P_LBRACKET
                                                  : P_LBRACE;
        if (depth == 0 || !clc_token_is_punct(&tokens[stack[depth - 1]], open)) {
            *at = i;
            return CLC_BRACKET_UNBALANCED;
        }
        size_t partner = stack[--depth];
        match[i] = partner;
        match[partner] = i;
    }
    if (depth != 0) {
        *at = stack[depth - 1];
        return CLC_BRACKET_UNCLOSED;
    }
    return CLC_BRACKETS_BALANCED;
}

/* ---- edits --------------------------------------------------------------- */

void clc_edits_init(clc_arena *arena, clc_edits *e, size_t begin, size_t end)
{
    e->begin = begin;
    e->end = end;
    size_t n = end - begin + 1;
    e->before = clc_arena_alloc(arena, n * sizeof *e->before);
    e->replace = clc_arena_alloc(arena, n * sizeof *e->replace);
    e->after = clc_arena_alloc(arena, n * sizeof *e->after);
}

static const char *clc_concat(clc_arena *arena, const char *a, const char *b)
{
    if (a == NULL)
        return b;
    size_t la = strlen(a), lb = strlen(b);
    char *text = clc_arena_alloc(arena, la + lb + 1);
    memcpy(text, a, la);
    memcpy(text + la, b, lb + 1);
    return text;
}

void clc_edit_before(clc_arena *arena, clc_edits *e, size_t i,
                     const char *text)
{
    if (i >= e->begin && i <= e->end)
        e->before[i - e->begin] =
            clc_concat(arena, e->before[i - e->begin], text);
}

void clc_edit_after(clc_arena *arena, clc_edits *e, size_t i,
                    const char *text)
{
    if (i >= e->begin && i <= e->end)
        e->after[i - e->begin] = clc_concat(arena, e->after[i - e->begin], text);
}

void clc_edit_replace(clc_edits *e, size_t i, const char *text)
{
    if (i >= e->begin && i <= e->end)
        e->replace[i - e->begin] = text;
}

void clc_edit_drop(clc_edits *e, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i)
        clc_edit_replace(e, i, "");
}

/* ---- the writer ---------------------------------------------------------- */

void clc_writer_init(clc_writer *w, clc_buffer *out, const clc_token *tokens,
                     const char *const *file_names, size_t file_count,
                     char last)
{
    *w = (clc_writer){out, tokens, file_names, file_count, -1, 0, last, 0};
}

static int clc_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int clc_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || clc_digit(c) ||
           c == '_';
}

/* Whether `last` then `first` would read as one token (or a comment):
 * two word characters, a number and a '.', or the first two characters
 * of a punctuator. */
static int clc_would_join(char last, char first)
{
    static const char pairs[][3] = {
        "++", "--", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
        "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", "::", "..",
        "<:", ":>", "<%", "%>", "%:", "//", "/*"};
    if ((clc_word_char(last) && clc_word_char(first)) ||
        (clc_digit(last) && first == '.') || (last == '.' && clc_digit(first)))
        return 1;
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; ++k)
        if (pairs[k][0] == last && pairs[k][1] == first)
            return 1;
    return 0;
}

/* Writes `text`, after a space where the source had one (`space`, or a
 * dropped token's) or where it would join what precedes it. */
static void clc_write(clc_writer *w, const char *text, size_t length,
                      int space)
{
    if (length == 0) {
        w->pending_space |= space;
        return;
    }
    space |= w->pending_space;
    w->pending_space = 0;
    if ((space || clc_would_join(w->last, text[0])) && w->last != '\n' &&
        w->last != ' ' && w->last != '\0')
        clc_buffer_append(w->out, " ", 1);
    clc_buffer_append(w->out, text, length);
    w->last = text[length - 1];
}

/* A file name as a string literal: quotes, backslashes and control
 * characters escaped. */
static void clc_write_file_name(clc_buffer *out, const char *name)
{
    clc_buffer_append(out, "\"", 1);
    for (const char *p = name; *p; ++p) {
        if (*p == '"' || *p == '\\')
            clc_buffer_append(out, "\\", 1);
        if ((unsigned char)*p < 0x20)
            clc_buffer_printf(out, "\\%03o", (unsigned char)*p);
        else
            clc_buffer_append(out, p, 1);
    }
    clc_buffer_append(out, "\"", 1);
}

void clc_write_position(clc_writer *w, const clc_token *t)
{
    if (w->file == (int)t->file && t->line >= w->line &&
        t->line - w->line <= 8) {
        while (w->line < t->line) {
            clc_buffer_append(w->out, "\n", 1);
            w->last = '\n';
            w->line++;
        }
        return;
    }
    unsigned line = t->line ? t->line : 1;
    if (w->last != '\n' && w->last != '\0')
        clc_buffer_append(w->out, "\n", 1);
    clc_buffer_printf(w->out, "#line %u ", line);
    clc_write_file_name(w->out, t->file < w->file_count
                                    ? w->file_names[t->file]
                                    : "<kiln program>");
    clc_buffer_append(w->out, "\n", 1);
    w->last = '\n';
    w->file = t->file;
    w->line = line;
}

void clc_write_text(clc_writer *w, const char *text)
{
    if (text != NULL && text[0] != '\0')
        clc_write(w, text, strlen(text), 0);
}

/* A #pragma the preprocessor kept stands on a line of its own. */
static void clc_write_pragma(clc_writer *w, const clc_token *t)
{
    if (t->length == 0) /* a pragma the translation left out */
        return;
    clc_write_position(w, t);
    if (w->last != '\n')
        clc_buffer_append(w->out, "\n", 1);
    clc_buffer_puts(w->out, "#pragma ");
    clc_buffer_append(w->out, t->text, t->length);
    clc_buffer_append(w->out, "\n", 1);
    w->last = '\n';
    w->line++;
}

void clc_write_range(clc_writer *w, const clc_edits *e, size_t begin,
                     size_t end, int position)
{
    for (size_t i = begin; i < end; ++i) {
        const clc_token *t = &w->tokens[i];
        const char *before = NULL, *replace = NULL, *after = NULL;
        if (e != NULL && i >= e->begin && i <= e->end) {
            before = e->before[i - e->begin];
            replace = e->replace[i - e->begin];
            after = e->after[i - e->begin];
        }
        if (position && (before || replace))
            clc_write_position(w, t);
        /* The token's spacing goes to the first text written for it. */
        int space = (t->flags & CLC_TF_SPACE) != 0;
        if (before != NULL && before[0] != '\0') {
            clc_write(w, before, strlen(before), space);
            space = 0;
        }
        if (replace != NULL) {
            clc_write(w, replace, strlen(replace), space);
        } else if (t->kind == CLC_TOK_PRAGMA) {
            clc_write_pragma(w, t);
        } else {
            if (position)
                clc_write_position(w, t);
            clc_write(w, t->text, t->length, space);
        }
        clc_write_text(w, after);
    }
}

const char *clc_render(clc_arena *arena, const clc_token *tokens,
                       const char *const *file_names, size_t file_count,
                       const clc_edits *e, size_t begin, size_t end)
{
    clc_buffer text;
    clc_buffer_init(&text, arena);
    clc_writer w;
    clc_writer_init(&w, &text, tokens, file_names, file_count, '\0');
    clc_write_range(&w, e, begin, end, 0);
    return clc_buffer_text(&text);
}
