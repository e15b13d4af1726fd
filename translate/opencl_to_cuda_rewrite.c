/*
 * OpenCL C -> CUDA C++, the rewriting every part of the pass shares:
 * failing with the construct and the line, the edits (a token replaced,
 * text inserted before or after one, a range wrapped), and the writer that
 * spells the program out once, edits applied, with #line markers.
 */
#include "opencl_to_cuda_pass.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Fails the translation at token `at` with `message`; `unsupported` marks
 * valid OpenCL C that the CUDA backend cannot run (see
 * opencl_to_cuda_result.unsupported). */
static CLC_NORETURN void tr_fail_at(tr_state *st, size_t at, int unsupported,
                                    const char *message);
static void tr_fail_at(tr_state *st, size_t at, int unsupported,
                       const char *message)
{
    if (unsupported)
        *st->unsupported = 1;
    const clc_token *t = &st->tokens[at < st->count ? at : st->count];
    clc_fail(st->failure, t->file, t->line, "%s", message);
}

void tr_fail(tr_state *st, size_t at, const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    tr_fail_at(st, at, 0, message);
}

/* Refuses valid OpenCL C that the CUDA backend cannot run. */
void tr_refuse(tr_state *st, size_t at, const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    tr_fail_at(st, at, 1, message);
}

void tr_insert_add(tr_state *st, size_t token, int after,
                   size_t span_begin, size_t span_end,
                   const char *text)
{
    st->inserts = clc_arena_grow(st->arena, st->inserts, st->insert_count,
                                 &st->insert_capacity, sizeof *st->inserts,
                                 256);
    tr_insert *insert = &st->inserts[st->insert_count];
    insert->token = token;
    insert->after = after;
    insert->span_begin = span_begin;
    insert->span_end = span_end;
    insert->sequence = st->insert_count++;
    insert->text = text;
}

/* Wraps tokens [begin, end] in `open` ... `close`. */
void tr_wrap(tr_state *st, size_t begin, size_t end, const char *open,
             const char *close)
{
    tr_insert_add(st, begin, 0, begin, end, open);
    tr_insert_add(st, end, 1, begin, end, close);
}

char *tr_printf(tr_state *st, const char *format, ...)
{
    clc_buffer buffer;
    clc_buffer_init(&buffer, st->arena);
    va_list args;
    va_start(args, format);
    char small[256];
    int n = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof small) {
        clc_buffer_append(&buffer, small, (size_t)n);
    } else {
        char *big = clc_arena_alloc(st->arena, (size_t)n + 1);
        va_start(args, format);
        vsnprintf(big, (size_t)n + 1, format, args);
        va_end(args);
        clc_buffer_append(&buffer, big, (size_t)n);
    }
    return (char *)clc_buffer_text(&buffer);
}

/* ---- output ------------------------------------------------------------------------------ */

static int tr_insert_order(const void *a, const void *b)
{
    const tr_insert *x = a, *y = b;
    if (x->token != y->token)
        return x->token < y->token ? -1 : 1;
    if (x->after != y->after)
        return x->after < y->after ? -1 : 1;
    if (!x->after) {
        /* before a token: the construct that ends later is outside */
        if (x->span_end != y->span_end)
            return x->span_end > y->span_end ? -1 : 1;
        if (x->span_begin != y->span_begin)
            return x->span_begin < y->span_begin ? -1 : 1;
        return x->sequence < y->sequence ? -1 : 1;
    }
    /* after a token: the construct that began later is inside, so first */
    if (x->span_begin != y->span_begin)
        return x->span_begin > y->span_begin ? -1 : 1;
    if (x->span_end != y->span_end)
        return x->span_end < y->span_end ? -1 : 1;
    return x->sequence < y->sequence ? -1 : 1;
}

typedef struct tr_writer {
    clc_buffer *out;
    int line_file;        /* file of the current output line, -1 at start */
    unsigned line;        /* user line the current output line belongs to */
    char last;            /* last character written                       */
} tr_writer;

static int tr_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

static void tr_write_text(tr_writer *w, const char *text, int space_before)
{
    if (text[0] == '\0')
        return;
    char first = text[0];
    if (w->last != '\n' && w->last != '\0' &&
        (space_before || (tr_word_char(w->last) && tr_word_char(first)) ||
         (!tr_word_char(w->last) && !tr_word_char(first) && w->last != ' ' &&
          first != ' ' && !strchr(")]}", w->last) &&
          !strchr("([{)]};,.", first))))
        clc_buffer_puts(w->out, " ");
    clc_buffer_puts(w->out, text);
    w->last = w->out->data[w->out->length - 1];
}

static void tr_write_file_name(clc_buffer *out, const char *name)
{
    clc_buffer_puts(out, "\"");
    for (const char *p = name; *p; ++p) {
        if (*p == '"' || *p == '\\')
            clc_buffer_puts(out, "\\");
        if ((unsigned char)*p < 0x20)
            clc_buffer_printf(out, "\\%03o", (unsigned char)*p);
        else
            clc_buffer_append(out, p, 1);
    }
    clc_buffer_puts(out, "\"");
}

/* Moves the output to the user's (file, line) of the next token. */
static void tr_write_position(tr_state *st, tr_writer *w, const clc_token *t)
{
    if (w->line_file == (int)t->file && t->line == w->line)
        return;
    if (w->line_file == (int)t->file && t->line > w->line &&
        t->line - w->line <= 8) {
        while (w->line < t->line) {
            clc_buffer_puts(w->out, "\n");
            ++w->line;
        }
        w->last = '\n';
        return;
    }
    if (w->last != '\n')
        clc_buffer_puts(w->out, "\n");
    clc_buffer_printf(w->out, "#line %u ", t->line ? t->line : 1);
    const char *name = t->file < st->file_count ? st->file_names[t->file]
                                                : "<kiln program>";
    tr_write_file_name(w->out, name);
    clc_buffer_puts(w->out, "\n");
    w->line_file = t->file;
    w->line = t->line ? t->line : 1;
    w->last = '\n';
}

const char *tr_emit(tr_state *st, size_t *length)
{
    if (st->insert_count > 1)
        qsort(st->inserts, st->insert_count, sizeof *st->inserts,
              tr_insert_order);
    clc_buffer out;
    clc_buffer_init(&out, st->arena);
    clc_buffer_puts(&out, "#include \"" TRANSLATE_PRELUDE_CUDA_HEADER "\"\n");
    tr_writer w = {&out, -1, 0, '\n'};
    size_t next_insert = 0;
    int pending_space = 0;
    for (size_t i = 0; i < st->count; ++i) {
        const clc_token *t = &st->tokens[i];
        if (t->kind == CLC_TOK_PRAGMA) {
            if (w.last != '\n')
                clc_buffer_puts(&out, "\n");
            clc_buffer_puts(&out, "#pragma ");
            clc_buffer_append(&out, t->text, t->length);
            clc_buffer_puts(&out, "\n");
            w.last = '\n';
            w.line_file = -1; /* the next token re-synchronises with #line */
            continue;
        }
        tr_write_position(st, &w, t);
        while (next_insert < st->insert_count &&
               st->inserts[next_insert].token == i &&
               !st->inserts[next_insert].after) {
            tr_write_text(&w, st->inserts[next_insert].text, 1);
            ++next_insert;
        }
        int space = pending_space || (t->flags & CLC_TF_SPACE) != 0;
        if (st->replace[i] != NULL && st->replace[i][0] == '\0') {
            pending_space = space; /* a deleted token keeps its spacing */
        } else if (st->replace[i] != NULL) {
            tr_write_text(&w, st->replace[i], space);
            pending_space = 0;
        } else {
            char *text = clc_arena_strndup(st->arena, t->text, t->length);
            tr_write_text(&w, text, space);
            pending_space = 0;
        }
        while (next_insert < st->insert_count &&
               st->inserts[next_insert].token == i) {
            tr_write_text(&w, st->inserts[next_insert].text, 1);
            ++next_insert;
        }
    }
    clc_buffer_puts(&out, "\n");
    *length = out.length;
    return clc_buffer_text(&out);
}
