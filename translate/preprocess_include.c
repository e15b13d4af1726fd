/*
 * The preprocessor's #include: the files read through the caller's reader
 * (each lexed once, skipped when an include guard or #pragma once says it
 * adds nothing), entered and left, and the flattened text of the program
 * with its files inlined between #line markers.
 */
#include "preprocess_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- #include ------------------------------------------------------------------ */

/* Flattening (clc_expand_includes): each file's tokens are spelt out again
 * on their physical lines (comments and line splices gone, so nothing in
 * them can fool a later reader), every #include carried out is replaced by
 * the file's own flattened text between #line markers, and every one
 * skipped (include guard, #pragma once) by nothing. */
static void pp_flat_newline(pp_state *st)
{
    clc_buffer_append(st->flat, "\n", 1);
    st->flat_line++;
}

/* Copies the current file's tokens up to (not including) `until`. */
void pp_flat_copy(pp_state *st, size_t until)
{
    if (st->flat == NULL)
        return;
    for (size_t i = st->raw_cursor; i < until; ++i) {
        const clc_token *t = &st->file_tokens[i];
        if (t->kind == CLC_TOK_EOF)
            break;
        if (t->flags & CLC_TF_BOL) {
            size_t length = st->flat->length;
            if (length > 0 && st->flat->data[length - 1] != '\n')
                pp_flat_newline(st);
            while (st->flat_line < t->line)
                pp_flat_newline(st);
        } else if (t->flags & CLC_TF_SPACE) {
            clc_buffer_append(st->flat, " ", 1);
        }
        clc_buffer_append(st->flat, t->text, t->length);
        if (st->flat->length > PP_MAX_INCLUDED_BYTES * 2)
            clc_fail(st->failure, t->file, t->line,
                     "the program is more than %zu MiB with its #include "
                     "files",
                     (PP_MAX_INCLUDED_BYTES * 2) >> 20);
    }
    if (until > st->raw_cursor)
        st->raw_cursor = until;
}

/* `#line N "name"`, after which the flattened text is at `physical`. */
static void pp_flat_marker(pp_state *st, unsigned line, uint16_t file,
                           unsigned physical)
{
    if (st->flat == NULL)
        return;
    size_t length = st->flat->length;
    if (length > 0 && st->flat->data[length - 1] != '\n')
        clc_buffer_append(st->flat, "\n", 1);
    clc_buffer_printf(st->flat, "#line %u \"", line);
    for (const unsigned char *p = (const unsigned char *)st->file_names[file];
         *p != '\0'; ++p) {
        if (*p == '"' || *p == '\\')
            clc_buffer_printf(st->flat, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            clc_buffer_printf(st->flat, "\\%03o", *p);
        else
            clc_buffer_append(st->flat, (const char *)p, 1);
    }
    clc_buffer_puts(st->flat, "\"\n");
    st->flat_line = physical;
}

/* Drops the directive being carried out from the flattened text. */
static void pp_flat_drop_directive(pp_state *st)
{
    pp_flat_copy(st, st->directive_begin);
    if (st->flat != NULL)
        st->raw_cursor = st->file_pos;
}

static pp_known_file *pp_known_find(pp_state *st, const char *path)
{
    for (size_t i = 0; i < st->known_count; ++i)
        if (strcmp(st->known[i].path, path) == 0)
            return &st->known[i];
    return NULL;
}

/* The guard macro when the whole file is one `#ifndef X` (or `#if
 * !defined X`) group, so that with X defined it is empty; -1 otherwise. */
static int32_t pp_guard_of(const clc_token *t)
{
    int is_hash = t[0].kind == CLC_TOK_PUNCT && t[0].punct == P_HASH &&
                  (t[0].flags & CLC_TF_BOL);
    if (!is_hash || t[1].kind != CLC_TOK_IDENT || (t[1].flags & CLC_TF_BOL))
        return -1;
    size_t p = 2;
    int32_t guard = -1;
    if (t[1].ident == W_ifndef) {
        if (t[2].kind != CLC_TOK_IDENT || (t[2].flags & CLC_TF_BOL))
            return -1;
        guard = t[2].ident;
        p = 3;
    } else if (t[1].ident == W_if && pp_is_punct(&t[2], P_NOT) &&
               !(t[2].flags & CLC_TF_BOL) && t[3].kind == CLC_TOK_IDENT &&
               t[3].ident == W_defined && !(t[3].flags & CLC_TF_BOL)) {
        int paren = pp_is_punct(&t[4], P_LPAREN) && !(t[4].flags & CLC_TF_BOL);
        size_t at = paren ? 5 : 4;
        if (t[at].kind != CLC_TOK_IDENT || (t[at].flags & CLC_TF_BOL))
            return -1;
        guard = t[at].ident;
        p = at + 1;
        if (paren) {
            if (!pp_is_punct(&t[p], P_RPAREN) || (t[p].flags & CLC_TF_BOL))
                return -1;
            ++p;
        }
    } else {
        return -1;
    }
    if (t[p].kind != CLC_TOK_EOF && !(t[p].flags & CLC_TF_BOL))
        return -1;
    int depth = 0;
    for (; t[p].kind != CLC_TOK_EOF; ++p) {
        if (!(t[p].flags & CLC_TF_BOL) || !pp_is_punct(&t[p], P_HASH) ||
            t[p + 1].kind != CLC_TOK_IDENT || (t[p + 1].flags & CLC_TF_BOL))
            continue;
        int32_t id = t[p + 1].ident;
        if (id == W_if || id == W_ifdef || id == W_ifndef) {
            ++depth;
        } else if (id == W_endif) {
            if (depth-- > 0)
                continue;
            size_t q = p + 2;
            while (t[q].kind != CLC_TOK_EOF && !(t[q].flags & CLC_TF_BOL))
                ++q;
            return t[q].kind == CLC_TOK_EOF ? guard : -1;
        } else if ((id == W_elif || id == W_else) && depth == 0) {
            return -1;
        }
    }
    return -1;
}

/* The header name of an #include: "name" (quoted) or <name>; NULL when the
 * tokens are neither. */
static const char *pp_header_name(pp_state *st, const clc_token *t,
                                  size_t count, int *quoted)
{
    if (count >= 1 && t[0].kind == CLC_TOK_STRING && t[0].length >= 2 &&
        t[0].text[0] == '"') {
        *quoted = 1;
        return clc_arena_strndup(st->arena, t[0].text + 1, t[0].length - 2);
    }
    if (count >= 2 && pp_is_punct(&t[0], P_LT)) {
        clc_buffer name;
        clc_buffer_init(&name, st->arena);
        for (size_t i = 1; i < count; ++i) {
            if (pp_is_punct(&t[i], P_GT)) {
                *quoted = 0;
                return name.length ? clc_buffer_text(&name) : NULL;
            }
            if (i > 1 && (t[i].flags & CLC_TF_SPACE))
                clc_buffer_append(&name, " ", 1);
            clc_buffer_append(&name, t[i].text, t[i].length);
        }
    }
    return NULL;
}

static pp_known_file *pp_include_read(pp_state *st, const clc_token *hash,
                                      const char *name, int quoted);
static void pp_include_enter(pp_state *st, const clc_token *hash,
                             const pp_known_file *known);

void pp_include(pp_state *st, const clc_token *hash, size_t begin,
                size_t end)
{
    int quoted = 0;
    const char *name =
        pp_header_name(st, st->file_tokens + begin, end - begin, &quoted);
    if (name == NULL) {
        /* #include MACRO: the line is macro-expanded first (C99 6.10.2). */
        size_t count;
        pp_tok *list = pp_expand_isolated(st, pp_line_list(st, begin, end));
        clc_token *tokens = pp_list_to_array(st, list, &count);
        name = pp_header_name(st, tokens, count, &quoted);
    }
    if (name == NULL) {
        if (st->expand_only || st->leave_unfound) {
            pp_note_left(st, hash, "(a malformed name)", 1);
            return; /* the compiler reports it */
        }
        pp_fail_at(st, hash, "#include expects \"FILENAME\" or <FILENAME>");
    }
    pp_known_file *known = NULL;
    for (size_t i = 0; i < st->resolved_count; ++i) {
        const pp_resolved *r = &st->resolved[i];
        if (r->includer == st->path && r->quoted == quoted &&
            strcmp(r->name, name) == 0) {
            known = &st->known[r->known];
            break;
        }
    }
    if (known == NULL)
        known = pp_include_read(st, hash, name, quoted);
    if (known == NULL) {
        pp_note_left(st, hash, name, quoted);
        return; /* not found: left in place */
    }
    if (known->once ||
        (known->guard >= 0 && pp_macro_get(st, known->guard) != NULL)) {
        /* Included already, and it would add nothing. */
        pp_flat_drop_directive(st);
        return;
    }
    pp_include_enter(st, hash, known);
}

/* Records the first #include the compiler is left to resolve: what it
 * reads then is not in the text the core's cache key digests. */
void pp_note_left(pp_state *st, const clc_token *hash, const char *name,
                  int quoted)
{
    if (st->left != NULL)
        return;
    const char *file = hash->file < st->file_count
                           ? st->file_names[hash->file]
                           : "<kiln program>";
    char text[512];
    snprintf(text, sizeof text, "%s%s%s at %s:%u", quoted ? "\"" : "<", name,
             quoted ? "\"" : ">", file, (unsigned)hash->line);
    st->left = clc_arena_strndup(st->arena, text, strlen(text));
}

/* An #include in a group this preprocessor does not take: the compiler,
 * whose own predefined macros may differ (__OPENCL_VERSION__, vendor
 * macros), may take it.  The reader is asked for the file anyway, so that
 * the core's cache key covers it (the reader records what it reads);
 * nothing is inlined.  Names made by macros cannot be known.  `at`: the
 * token after `include`. */
void pp_probe_skipped_include(pp_state *st, size_t at)
{
    if (!(st->expand_only || st->leave_unfound) || st->reader == NULL)
        return;
    size_t end = at;
    while (st->file_tokens[end].kind != CLC_TOK_EOF &&
           !(st->file_tokens[end].flags & CLC_TF_BOL))
        ++end;
    int quoted = 0;
    const char *name =
        pp_header_name(st, st->file_tokens + at, end - at, &quoted);
    if (name == NULL)
        return;
    char *path = NULL, *text = NULL, *error = NULL;
    size_t length = 0;
    (void)st->reader->read(st->reader->context, name, quoted, st->path, &path,
                           &text, &length, &error);
    free(path);
    free(text);
    free(error);
}

/* Asks the reader for the file; NULL when it is not found (and may be left
 * to the compiler). */
static pp_known_file *pp_include_read(pp_state *st, const clc_token *hash,
                                      const char *name, int quoted)
{
    char *path = NULL, *text = NULL, *error = NULL;
    size_t length = 0;
    int found = st->reader->read(st->reader->context, name, quoted, st->path,
                                 &path, &text, &length, &error);
    if (found < 0) {
        const char *why = clc_arena_strndup(st->arena, error ? error : "?",
                                            error ? strlen(error) : 1);
        free(error);
        free(path);
        free(text);
        clc_fail(st->failure, hash->file, hash->line, "cannot include %s%s%s: %s",
                 quoted ? "\"" : "<", name, quoted ? "\"" : ">", why);
    }
    if (found == 0) {
        free(error);
        if (st->expand_only || st->leave_unfound)
            return NULL; /* left in place: the compiler may know it */
        clc_fail(st->failure, hash->file, hash->line,
                 "cannot include %s: the file was not found in the "
                 "program's include directories",
                 name);
    }
    const char *file_path = clc_arena_strndup(st->arena, path, strlen(path));
    free(path);
    pp_known_file *known = pp_known_find(st, file_path);
    if (known != NULL) {
        free(text);
    } else {
        st->known = clc_arena_grow(st->arena, st->known, st->known_count,
                                   &st->known_capacity, sizeof *st->known, 16);
        known = &st->known[st->known_count];
        memset(known, 0, sizeof *known);
        known->path = file_path;
        known->file = pp_file_id(st, file_path, strlen(file_path));
        clc_token_array tokens = {NULL, 0, 0};
        /* Lexed from an arena copy: the reader's text is freed at once. */
        char *copy = clc_arena_alloc(st->arena, length + 1);
        memcpy(copy, text, length);
        free(text);
        clc_lex(copy, length, known->file, 1, st->arena, st->interner,
                &tokens);
        known->tokens = tokens.tokens;
        known->guard = pp_guard_of(tokens.tokens);
        for (const clc_token *t = known->tokens; t->kind != CLC_TOK_EOF; ++t)
            known->bytes += t->length + 1;
        st->known_count++;
    }
    st->resolved = clc_arena_grow(st->arena, st->resolved, st->resolved_count,
                                  &st->resolved_capacity, sizeof *st->resolved, 16);
    pp_resolved *r = &st->resolved[st->resolved_count++];
    r->includer = st->path;
    r->name = name;
    r->quoted = quoted;
    r->known = (size_t)(known - st->known);
    return known;
}

/* Reads the file's tokens next, and the rest of the including file after
 * them. */
static void pp_include_enter(pp_state *st, const clc_token *hash,
                             const pp_known_file *known)
{
    /* Every inclusion counts: headers that include the next one twice
     * without a guard double at each level. */
    st->included_bytes += known->bytes;
    if (st->included_bytes > PP_MAX_INCLUDED_BYTES)
        clc_fail(st->failure, hash->file, hash->line,
                 "the #include files add up to more than %zu MiB (a header "
                 "included over and over without an include guard?)",
                 PP_MAX_INCLUDED_BYTES >> 20);
    if (st->frame_count >= PP_MAX_INCLUDE_DEPTH)
        clc_fail(st->failure, hash->file, hash->line,
                 "#include nested more than %d deep: %s includes itself "
                 "without an include guard (a cycle?)",
                 PP_MAX_INCLUDE_DEPTH, known->path);

    pp_flat_copy(st, st->directive_begin);
    st->frames = clc_arena_grow(st->arena, st->frames, st->frame_count,
                                &st->frame_capacity, sizeof *st->frames, 8);
    pp_frame *frame = &st->frames[st->frame_count++];
    frame->file_tokens = st->file_tokens;
    frame->file_pos = st->file_pos;
    frame->line_delta = st->line_delta;
    frame->file = st->file;
    frame->cond_base = st->cond_base;
    frame->path = st->path;
    frame->raw_cursor = st->file_pos;
    st->file_tokens = known->tokens;
    st->file_pos = 0;
    st->line_delta = 0;
    st->file = known->file;
    st->cond_base = st->cond_count;
    st->path = known->path;
    st->raw_cursor = 0;
    pp_flat_marker(st, 1, known->file, 1);
}

/* At the end of a file: an #if it opened must be closed in it; back to
 * the file that included it (1), or the end of the program (0). */
int pp_leave_file(pp_state *st)
{
    if (st->cond_count > st->cond_base) {
        const pp_cond *open = &st->conds[st->cond_count - 1];
        clc_fail(st->failure, open->file, open->line,
                 "unterminated conditional directive (#if without "
                 "#endif)");
    }
    if (st->frame_count == 0)
        return 0;
    pp_flat_copy(st, st->file_pos);
    const pp_frame *frame = &st->frames[--st->frame_count];
    st->file_tokens = frame->file_tokens;
    st->file_pos = frame->file_pos;
    st->line_delta = frame->line_delta;
    st->file = frame->file;
    st->cond_base = frame->cond_base;
    st->path = frame->path;
    st->raw_cursor = frame->raw_cursor;
    clc_token next = pp_file_token(st, st->file_pos);
    pp_flat_marker(st, next.line, st->file,
                   st->file_tokens[st->file_pos].line);
    return 1;
}

/* #pragma once: a later #include of this file adds nothing; the line
 * itself goes (a compiler would warn about it in the flattened text). */
void pp_pragma_once(pp_state *st)
{
    pp_known_file *known = st->path ? pp_known_find(st, st->path) : NULL;
    if (known != NULL)
        known->once = 1;
    pp_flat_drop_directive(st);
}
