/*
 * OpenCL C -> CUDA C++, the rewriting every part of the pass shares:
 * failing with the construct and the line, and the edits.  A token is
 * replaced in the shared edit list (rewrite.h) at once; text inserted
 * before or after a token is recorded with the construct it belongs to,
 * because the walk wraps an inner construct before the outer one that
 * holds it, and applied to the edit list in nesting order when the
 * program is written, once, by the shared writer.
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

/* The inserts on one side of one token, in order, as one text (a space
 * between two: each was written apart before). */
static void tr_insert_apply(tr_state *st, const tr_insert *insert)
{
    clc_edits *e = &st->edits;
    const char **side = insert->after ? e->after : e->before;
    const char *had = side[insert->token - e->begin];
    side[insert->token - e->begin] =
        had == NULL ? insert->text : tr_printf(st, "%s %s", had, insert->text);
}

const char *tr_emit(tr_state *st, size_t *length)
{
    if (st->insert_count > 1)
        qsort(st->inserts, st->insert_count, sizeof *st->inserts,
              tr_insert_order);
    for (size_t k = 0; k < st->insert_count; ++k)
        if (st->inserts[k].token <= st->edits.end)
            tr_insert_apply(st, &st->inserts[k]);
    clc_buffer out;
    clc_buffer_init(&out, st->arena);
    clc_buffer_puts(&out, "#include \"" TRANSLATE_PRELUDE_CUDA_HEADER "\"\n");
    clc_writer w;
    clc_writer_init(&w, &out, st->tokens, st->file_names, st->file_count,
                    '\n');
    clc_write_range(&w, &st->edits, 0, st->count, 1);
    clc_buffer_puts(&out, "\n");
    *length = out.length;
    return clc_buffer_text(&out);
}
