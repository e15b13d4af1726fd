/*
 * The C preprocessor of the OpenCL C translation pass (see
 * preprocess.h).
 *
 * Macro expansion follows Prosser's algorithm (the one the C standard's
 * rescanning rules describe): every token carries a hide set, the names of
 * the macros whose expansion produced it, and a name in its own hide set
 * never expands again.  Expansion is bounded in depth and in the tokens it
 * may produce, so no input makes it run away.
 */
#include "preprocess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PP_MAX_DEPTH 200        /* nested argument pre-expansions       */
#define PP_MAX_COND_DEPTH 1024  /* nested #if groups                    */
#define PP_MAX_PARAMS 256       /* parameters of one macro              */
#define PP_MAX_EVAL_DEPTH 256   /* nesting inside one #if expression    */
/* Tokens read or made by expansion in one translation. */
#define PP_MAX_PRODUCED (4u * 1024u * 1024u)
/* #include nesting, and the bytes all the included files add up to (a
 * header included over and over without a guard grows exponentially). */
#define PP_MAX_INCLUDE_DEPTH 64
#define PP_MAX_INCLUDED_BYTES ((size_t)64 << 20)

typedef struct pp_hideset {
    int32_t ident;
    const struct pp_hideset *next;
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
    uint8_t taken;      /* a group of this #if has been taken */
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

    pp_tok *pending;   /* tokens to read before the file's next */
    int isolated;      /* reading an argument: never reach into the file */
    int depth;
    size_t produced;   /* tokens made by expansion, against the limit */
    unsigned counter;  /* __COUNTER__ */

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
    size_t cond_base;       /* the #if groups open when this file began   */
    const char *path;       /* the file being read; NULL: the program     */
    size_t raw_cursor;      /* flattening: file tokens copied out so far  */
    struct pp_known_file *known;
    size_t known_count;
    size_t known_capacity;
    size_t included_bytes;  /* against PP_MAX_INCLUDED_BYTES              */
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
} pp_state;

/* A file an #include has read: its tokens (lexed once), and whether a
 * later #include of it can be skipped (#pragma once, or an include guard
 * whose macro is defined: the whole file is one #ifndef group). */
typedef struct pp_known_file {
    const char *path;
    uint16_t file;
    const clc_token *tokens;
    size_t bytes;  /* its tokens' text: what one inclusion adds */
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

/* ---- small helpers -------------------------------------------------------- */

CLC_NORETURN static void pp_fail_at(pp_state *st, const clc_token *at,
                                    const char *message)
{
    clc_fail(st->failure, at ? at->file : -1, at ? at->line : 0, "%s",
             message);
}

static int pp_is_punct(const clc_token *t, clc_punct punct)
{
    return t->kind == CLC_TOK_PUNCT && t->punct == punct;
}

static const char *pp_spell(pp_state *st, const clc_token *t)
{
    return clc_arena_strndup(st->arena, t->text, t->length);
}

static uint16_t pp_file_id(pp_state *st, const char *name, size_t length)
{
    for (size_t i = 0; i < st->file_count; ++i)
        if (strlen(st->file_names[i]) == length &&
            memcmp(st->file_names[i], name, length) == 0)
            return (uint16_t)i;
    if (st->file_count >= 60000)
        clc_fail(st->failure, -1, 0, "too many #line file names");
    st->file_names = clc_arena_grow(st->arena, st->file_names, st->file_count,
                                    &st->file_capacity,
                                    sizeof *st->file_names, 8);
    st->failure->file_names = st->file_names;
    st->file_names[st->file_count] = clc_arena_strndup(st->arena, name, length);
    return (uint16_t)st->file_count++;
}

static pp_tok *pp_new_tok(pp_state *st, const clc_token *t,
                          const pp_hideset *hideset)
{
    if (++st->produced > PP_MAX_PRODUCED)
        clc_fail(st->failure, t->file, t->line,
                 "macro expansion produces more than %u tokens",
                 (unsigned)PP_MAX_PRODUCED);
    pp_tok *tok = clc_arena_alloc(st->arena, sizeof *tok);
    tok->t = *t;
    tok->hideset = hideset;
    return tok;
}

static int pp_hideset_contains(const pp_hideset *hs, int32_t ident)
{
    for (; hs != NULL; hs = hs->next)
        if (hs->ident == ident)
            return 1;
    return 0;
}

static const pp_hideset *pp_hideset_add(pp_state *st, const pp_hideset *hs,
                                        int32_t ident)
{
    if (pp_hideset_contains(hs, ident))
        return hs;
    pp_hideset *added = clc_arena_alloc(st->arena, sizeof *added);
    added->ident = ident;
    added->next = hs;
    return added;
}

static const pp_hideset *pp_hideset_union(pp_state *st, const pp_hideset *a,
                                          const pp_hideset *b)
{
    for (; b != NULL; b = b->next)
        a = pp_hideset_add(st, a, b->ident);
    return a;
}

static const pp_hideset *pp_hideset_intersect(pp_state *st,
                                              const pp_hideset *a,
                                              const pp_hideset *b)
{
    const pp_hideset *result = NULL;
    for (; a != NULL; a = a->next)
        if (pp_hideset_contains(b, a->ident))
            result = pp_hideset_add(st, result, a->ident);
    return result;
}

static pp_macro *pp_macro_get(pp_state *st, int32_t ident)
{
    if (ident < 0 || (size_t)ident >= st->macro_capacity)
        return NULL;
    return st->macros[ident];
}

static void pp_macro_set(pp_state *st, int32_t ident, pp_macro *macro)
{
    if ((size_t)ident >= st->macro_capacity) {
        size_t capacity = st->macro_capacity ? st->macro_capacity : 1024;
        while (capacity <= (size_t)ident)
            capacity *= 2;
        pp_macro **grown = clc_arena_alloc(st->arena, capacity * sizeof *grown);
        if (st->macro_capacity > 0)
            memcpy(grown, st->macros, st->macro_capacity * sizeof *grown);
        st->macros = grown;
        st->macro_capacity = capacity;
    }
    st->macros[ident] = macro;
}

/* ---- reading ------------------------------------------------------------------ */

static clc_token pp_file_token(pp_state *st, size_t pos)
{
    clc_token t = st->file_tokens[pos];
    long line = (long)t.line + st->line_delta;
    t.line = line > 0 ? (uint32_t)line : 1;
    t.file = st->file;
    return t;
}

static void pp_directive(pp_state *st, const clc_token *hash);
static int pp_leave_file(pp_state *st);

/* The next token, unexpanded; directives in the file are carried out on
 * the way. */
static pp_tok *pp_read(pp_state *st)
{
    for (;;) {
        if (st->pending != NULL) {
            pp_tok *tok = st->pending;
            st->pending = tok->next;
            tok->next = NULL;
            return tok;
        }
        if (st->isolated)
            return &st->eof;
        const clc_token *raw = &st->file_tokens[st->file_pos];
        if (raw->kind == CLC_TOK_EOF) {
            if (pp_leave_file(st))
                continue;
            return &st->eof;
        }
        if ((raw->flags & CLC_TF_BOL) && pp_is_punct(raw, P_HASH)) {
            clc_token hash = pp_file_token(st, st->file_pos);
            st->file_pos++;
            pp_directive(st, &hash);
            continue;
        }
        clc_token t = pp_file_token(st, st->file_pos);
        st->file_pos++;
        return pp_new_tok(st, &t, NULL);
    }
}

/* The next token without consuming it (NULL at the end of what may be
 * read, or before a directive). */
static const clc_token *pp_peek(pp_state *st)
{
    if (st->pending != NULL)
        return &st->pending->t;
    if (st->isolated)
        return NULL;
    const clc_token *raw = &st->file_tokens[st->file_pos];
    if (raw->kind == CLC_TOK_EOF ||
        ((raw->flags & CLC_TF_BOL) && pp_is_punct(raw, P_HASH)))
        return NULL;
    return raw;
}

static void pp_unread(pp_state *st, pp_tok *tok)
{
    tok->next = st->pending;
    st->pending = tok;
}

/* ---- expansion ------------------------------------------------------------- */

typedef struct pp_list {
    pp_tok *head;
    pp_tok *tail;
} pp_list;

static void pp_list_push(pp_list *list, pp_tok *tok)
{
    tok->next = NULL;
    if (list->tail)
        list->tail->next = tok;
    else
        list->head = tok;
    list->tail = tok;
}

static int pp_try_expand(pp_state *st, pp_tok *tok);

/* Fully expands an argument on its own (C99 6.10.3.1). */
static pp_tok *pp_expand_isolated(pp_state *st, pp_tok *list)
{
    if (++st->depth > PP_MAX_DEPTH)
        clc_fail(st->failure, list ? list->t.file : -1, list ? list->t.line : 0,
                 "macro arguments nested more than %d deep", PP_MAX_DEPTH);
    pp_tok *saved_pending = st->pending;
    int saved_isolated = st->isolated;
    st->pending = list;
    st->isolated = 1;
    pp_list out = {NULL, NULL};
    for (;;) {
        pp_tok *tok = pp_read(st);
        if (tok == &st->eof)
            break;
        if (tok->t.kind == CLC_TOK_IDENT && pp_try_expand(st, tok))
            continue;
        pp_list_push(&out, tok);
    }
    st->pending = saved_pending;
    st->isolated = saved_isolated;
    st->depth--;
    return out.head;
}

/* A copy of an argument's tokens.  A ## among them is an ordinary token
 * (it did not come from the macro's body), so it is marked inert. */
static pp_tok *pp_copy_list(pp_state *st, const pp_tok *list)
{
    pp_list out = {NULL, NULL};
    for (; list != NULL; list = list->next) {
        pp_tok *copy = pp_new_tok(st, &list->t, list->hideset);
        if (pp_is_punct(&copy->t, P_HASHHASH))
            copy->t.flags |= CLC_TF_NOEXPAND;
        pp_list_push(&out, copy);
    }
    return out.head;
}

/* #param: the argument's spelling as a string literal. */
static pp_tok *pp_stringize(pp_state *st, const pp_tok *arg,
                            const clc_token *at)
{
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    clc_buffer_append(&text, "\"", 1);
    for (const pp_tok *tok = arg; tok != NULL; tok = tok->next) {
        if (tok->t.kind == CLC_TOK_PLACEMARKER)
            continue;
        if (tok != arg && (tok->t.flags & (CLC_TF_SPACE | CLC_TF_BOL)))
            clc_buffer_append(&text, " ", 1);
        int quoted = tok->t.kind == CLC_TOK_STRING ||
                     tok->t.kind == CLC_TOK_CHAR;
        for (uint32_t i = 0; i < tok->t.length; ++i) {
            char c = tok->t.text[i];
            if (quoted && (c == '"' || c == '\\'))
                clc_buffer_append(&text, "\\", 1);
            clc_buffer_append(&text, &c, 1);
        }
    }
    clc_buffer_append(&text, "\"", 1);
    clc_token t = *at;
    t.kind = CLC_TOK_STRING;
    t.punct = P_NONE;
    t.ident = -1;
    t.text = clc_buffer_text(&text);
    t.length = (uint32_t)text.length;
    return pp_new_tok(st, &t, NULL);
}

/* a ## b */
static pp_tok *pp_paste(pp_state *st, const pp_tok *a, const pp_tok *b)
{
    if (a->t.kind == CLC_TOK_PLACEMARKER)
        return pp_new_tok(st, &b->t, b->hideset);
    if (b->t.kind == CLC_TOK_PLACEMARKER)
        return pp_new_tok(st, &a->t, a->hideset);
    size_t length = (size_t)a->t.length + b->t.length;
    char *joined = clc_arena_alloc(st->arena, length + 1);
    memcpy(joined, a->t.text, a->t.length);
    memcpy(joined + a->t.length, b->t.text, b->t.length);
    clc_token t;
    if (!clc_lex_single(joined, length, st->arena, st->interner, &t))
        clc_fail(st->failure, a->t.file, a->t.line,
                 "pasting \"%.*s\" and \"%.*s\" does not give a valid "
                 "preprocessing token",
                 (int)a->t.length, a->t.text, (int)b->t.length, b->t.text);
    t.line = a->t.line;
    t.file = a->t.file;
    t.flags = a->t.flags & (CLC_TF_SPACE | CLC_TF_BOL);
    return pp_new_tok(st, &t, pp_hideset_intersect(st, a->hideset, b->hideset));
}

typedef struct pp_args {
    pp_tok **raw;      /* per parameter: the argument as written */
    pp_tok **expanded; /* computed on first use                  */
    uint8_t *done;
    int count;
} pp_args;

static pp_tok *pp_arg_expanded(pp_state *st, pp_args *args, int index)
{
    if (!args->done[index]) {
        args->expanded[index] =
            pp_expand_isolated(st, pp_copy_list(st, args->raw[index]));
        args->done[index] = 1;
    }
    return args->expanded[index];
}

static void pp_push_placemarker(pp_state *st, pp_list *out, const clc_token *at)
{
    clc_token t = *at;
    t.kind = CLC_TOK_PLACEMARKER;
    t.text = "";
    t.length = 0;
    t.ident = -1;
    t.punct = P_NONE;
    pp_list_push(out, pp_new_tok(st, &t, NULL));
}

/* Replaces the macro's parameters in its body (C99 6.10.3.1-3) and
 * applies ##; the result still has to be rescanned. */
static pp_tok *pp_substitute(pp_state *st, const pp_macro *macro,
                             pp_args *args, const clc_token *at)
{
    pp_list out = {NULL, NULL};
    size_t n = macro->body_count;
    for (size_t i = 0; i < n; ++i) {
        const clc_token *t = &macro->body[i];
        int param = macro->body_param[i];
        int next_is_paste = i + 1 < n && pp_is_punct(&macro->body[i + 1], P_HASHHASH);
        int prev_is_paste = i > 0 && pp_is_punct(&macro->body[i - 1], P_HASHHASH);
        if (macro->function_like && pp_is_punct(t, P_HASH) && i + 1 < n &&
            macro->body_param[i + 1] >= 0) {
            pp_tok *s = pp_stringize(st, args->raw[macro->body_param[i + 1]], at);
            s->t.flags = t->flags & CLC_TF_SPACE;
            pp_list_push(&out, s);
            ++i;
            continue;
        }
        /* GNU: `, ## __VA_ARGS__` drops the comma when there are no
         * variable arguments. */
        if (macro->variadic && pp_is_punct(t, P_COMMA) && i + 2 < n &&
            pp_is_punct(&macro->body[i + 1], P_HASHHASH) &&
            macro->body_param[i + 2] == macro->param_count - 1) {
            pp_tok *va = args->raw[macro->param_count - 1];
            if (va != NULL) {
                pp_tok *comma = pp_new_tok(st, t, NULL);
                pp_list_push(&out, comma);
                for (pp_tok *a = pp_copy_list(st, va); a != NULL;) {
                    pp_tok *next = a->next;
                    pp_list_push(&out, a);
                    a = next;
                }
            }
            i += 2;
            continue;
        }
        if (param >= 0) {
            pp_tok *arg = (next_is_paste || prev_is_paste)
                              ? pp_copy_list(st, args->raw[param])
                              : pp_copy_list(st, pp_arg_expanded(st, args, param));
            if (arg == NULL) {
                if (next_is_paste || prev_is_paste)
                    pp_push_placemarker(st, &out, at);
                continue;
            }
            arg->t.flags = (uint8_t)((arg->t.flags & ~(CLC_TF_SPACE | CLC_TF_BOL)) |
                                     (t->flags & CLC_TF_SPACE));
            while (arg != NULL) {
                pp_tok *next = arg->next;
                pp_list_push(&out, arg);
                arg = next;
            }
            continue;
        }
        pp_list_push(&out, pp_new_tok(st, t, NULL));
    }

    /* ## left to right. */
    pp_list pasted = {NULL, NULL};
    for (pp_tok *tok = out.head; tok != NULL;) {
        pp_tok *next = tok->next;
        if (next != NULL && pp_is_punct(&next->t, P_HASHHASH) &&
            !(next->t.flags & CLC_TF_NOEXPAND) && next->next != NULL) {
            pp_tok *joined = pp_paste(st, tok, next->next);
            joined->next = next->next->next;
            tok = joined;
            continue;
        }
        pp_list_push(&pasted, tok);
        tok = next;
    }
    /* Placemarkers have done their work. */
    pp_list result = {NULL, NULL};
    for (pp_tok *tok = pasted.head; tok != NULL;) {
        pp_tok *next = tok->next;
        if (tok->t.kind != CLC_TOK_PLACEMARKER)
            pp_list_push(&result, tok);
        tok = next;
    }
    return result.head;
}

/* Pushes the expansion's tokens in front of the input, with the hide set,
 * and the invocation's position (NVRTC then reports errors inside macros
 * at the line that used them). */
static void pp_push_expansion(pp_state *st, pp_tok *list, const pp_hideset *hs,
                              const clc_token *at)
{
    pp_list out = {NULL, NULL};
    int first = 1;
    for (pp_tok *tok = list; tok != NULL;) {
        pp_tok *next = tok->next;
        tok->hideset = pp_hideset_union(st, tok->hideset, hs);
        tok->t.line = at->line;
        tok->t.file = at->file;
        tok->t.flags &= (uint8_t)~CLC_TF_BOL;
        if (first)
            tok->t.flags = (uint8_t)((tok->t.flags & ~CLC_TF_SPACE) |
                                     (at->flags & (CLC_TF_SPACE | CLC_TF_BOL)
                                          ? CLC_TF_SPACE
                                          : 0));
        first = 0;
        pp_list_push(&out, tok);
        tok = next;
    }
    if (out.tail != NULL) {
        out.tail->next = st->pending;
        st->pending = out.head;
    }
}

static void pp_expand_builtin(pp_state *st, const pp_macro *macro,
                              const pp_tok *tok)
{
    char text[64];
    clc_token t = tok->t;
    t.ident = -1;
    t.punct = P_NONE;
    if (macro->builtin == PP_FILE) {
        const char *name = st->file_names[tok->t.file];
        clc_buffer quoted;
        clc_buffer_init(&quoted, st->arena);
        clc_buffer_append(&quoted, "\"", 1);
        for (const char *c = name; *c; ++c) {
            if (*c == '"' || *c == '\\')
                clc_buffer_append(&quoted, "\\", 1);
            clc_buffer_append(&quoted, c, 1);
        }
        clc_buffer_append(&quoted, "\"", 1);
        t.kind = CLC_TOK_STRING;
        t.text = clc_buffer_text(&quoted);
        t.length = (uint32_t)quoted.length;
    } else {
        unsigned value = macro->builtin == PP_LINE ? tok->t.line : st->counter++;
        snprintf(text, sizeof text, "%u", value);
        t.kind = CLC_TOK_NUMBER;
        t.text = clc_arena_strndup(st->arena, text, strlen(text));
        t.length = (uint32_t)strlen(text);
    }
    pp_unread(st, pp_new_tok(st, &t, tok->hideset));
}

/* Expands `tok` if it names a macro that may expand here: the expansion
 * goes in front of the input and 1 is returned; else 0. */
static int pp_try_expand(pp_state *st, pp_tok *tok)
{
    if (tok->t.flags & CLC_TF_NOEXPAND)
        return 0;
    pp_macro *macro = pp_macro_get(st, tok->t.ident);
    if (macro == NULL)
        return 0;
    if (pp_hideset_contains(tok->hideset, tok->t.ident)) {
        /* Painted blue: it never expands again, wherever it goes. */
        tok->t.flags |= CLC_TF_NOEXPAND;
        return 0;
    }
    if (macro->builtin != PP_ORDINARY) {
        pp_expand_builtin(st, macro, tok);
        return 1;
    }
    if (!macro->function_like) {
        pp_args none = {NULL, NULL, NULL, 0};
        pp_tok *body = pp_substitute(st, macro, &none, &tok->t);
        pp_push_expansion(st, body,
                          pp_hideset_add(st, tok->hideset, tok->t.ident),
                          &tok->t);
        return 1;
    }

    const clc_token *next = pp_peek(st);
    if (next == NULL || !pp_is_punct(next, P_LPAREN))
        return 0;
    pp_tok *open = pp_read(st);
    (void)open;

    int count = macro->param_count;
    pp_args args;
    args.count = count > 0 ? count : 1;
    args.raw = clc_arena_alloc(st->arena, (size_t)args.count * sizeof *args.raw);
    args.expanded =
        clc_arena_alloc(st->arena, (size_t)args.count * sizeof *args.expanded);
    args.done = clc_arena_alloc(st->arena, (size_t)args.count);
    int index = 0;
    int depth = 0;
    int seen_any = 0;
    pp_list current = {NULL, NULL};
    pp_tok *close = NULL;
    for (;;) {
        pp_tok *arg = pp_read(st);
        if (arg == &st->eof)
            clc_fail(st->failure, tok->t.file, tok->t.line,
                     "unterminated argument list invoking macro '%.*s'",
                     (int)tok->t.length, tok->t.text);
        if (depth == 0 && pp_is_punct(&arg->t, P_RPAREN)) {
            close = arg;
            break;
        }
        if (pp_is_punct(&arg->t, P_LPAREN))
            ++depth;
        else if (pp_is_punct(&arg->t, P_RPAREN))
            --depth;
        if (depth == 0 && pp_is_punct(&arg->t, P_COMMA) &&
            !(macro->variadic && index == count - 1)) {
            if (index < count)
                args.raw[index] = current.head;
            ++index;
            current.head = current.tail = NULL;
            seen_any = 1;
            continue;
        }
        arg->t.flags &= (uint8_t)~CLC_TF_BOL;
        pp_list_push(&current, arg);
        seen_any = 1;
    }
    if (index < count)
        args.raw[index] = current.head;
    /* F() gives one empty argument, except to a macro without parameters. */
    int given = (count == 0 && !seen_any) ? 0 : index + 1;
    int ok = macro->variadic ? given >= count - 1 : given == count;
    if (!ok)
        clc_fail(st->failure, tok->t.file, tok->t.line,
                 "macro '%.*s' takes %d argument%s but %d were given",
                 (int)tok->t.length, tok->t.text,
                 macro->variadic ? count - 1 : count,
                 (macro->variadic ? count - 1 : count) == 1 ? "" : "s", given);
    pp_tok *body = pp_substitute(st, macro, &args, &tok->t);
    const pp_hideset *hs = pp_hideset_intersect(st, tok->hideset, close->hideset);
    pp_push_expansion(st, body, pp_hideset_add(st, hs, tok->t.ident), &tok->t);
    return 1;
}

/* ---- #if expressions -------------------------------------------------------- */

typedef struct pp_value {
    unsigned long long bits;
    int is_unsigned;
} pp_value;

typedef struct pp_eval {
    const clc_token *tokens;
    size_t count;
    size_t pos;
    int ok;
    int depth;
    const char *why;
} pp_eval;

static const clc_token *ev_peek(pp_eval *ev)
{
    static const clc_token end = {"", 0, 0, -1, 0, CLC_TOK_EOF, P_NONE, 0};
    return ev->pos < ev->count ? &ev->tokens[ev->pos] : &end;
}

static int ev_accept(pp_eval *ev, clc_punct punct)
{
    const clc_token *t = ev_peek(ev);
    if (t->kind == CLC_TOK_PUNCT && t->punct == punct) {
        ev->pos++;
        return 1;
    }
    return 0;
}

static pp_value ev_bad(pp_eval *ev, const char *why)
{
    if (ev->ok) {
        ev->ok = 0;
        ev->why = why;
    }
    pp_value zero = {0, 0};
    return zero;
}

static int ev_parse_number(const clc_token *t, pp_value *value)
{
    const char *p = t->text;
    const char *end = t->text + t->length;
    unsigned long long v = 0;
    int base = 10;
    if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (end - p >= 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        base = 2;
        p += 2;
    } else if (p[0] == '0') {
        base = 8;
    }
    const char *digits = p;
    for (; p < end; ++p) {
        int d;
        char c = *p;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            break;
        if (d >= base)
            return 0;
        if (v > (~0ULL - (unsigned)d) / (unsigned)base)
            return 0;
        v = v * (unsigned)base + (unsigned)d;
    }
    if (p == digits && base != 8)
        return 0;
    int is_unsigned = 0;
    for (; p < end; ++p) {
        if (*p == 'u' || *p == 'U')
            is_unsigned = 1;
        else if (*p != 'l' && *p != 'L')
            return 0; /* a float or a bad suffix */
    }
    value->bits = v;
    value->is_unsigned = is_unsigned || v > 0x7fffffffffffffffULL;
    return 1;
}

static int ev_parse_char(const clc_token *t, pp_value *value)
{
    const char *p = t->text;
    const char *end = t->text + t->length;
    while (p < end && *p != '\'')
        ++p;
    if (p >= end)
        return 0;
    ++p;
    long long v = 0;
    int chars = 0;
    while (p < end && *p != '\'') {
        int c = (unsigned char)*p++;
        if (c == '\\' && p < end) {
            c = (unsigned char)*p++;
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'a': c = '\a'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'v': c = '\v'; break;
            case 'x': {
                c = 0;
                while (p < end && ((*p >= '0' && *p <= '9') ||
                                   (*p >= 'a' && *p <= 'f') ||
                                   (*p >= 'A' && *p <= 'F'))) {
                    int d = *p >= 'a' ? *p - 'a' + 10
                                      : *p >= 'A' ? *p - 'A' + 10 : *p - '0';
                    c = (c * 16 + d) & 0xff;
                    ++p;
                }
                break;
            }
            default:
                if (c >= '0' && c <= '7') {
                    int octal = c - '0';
                    for (int k = 0; k < 2 && p < end && *p >= '0' && *p <= '7'; ++k)
                        octal = octal * 8 + (*p++ - '0');
                    c = octal & 0xff;
                }
                break;
            }
        }
        v = (long long)(((unsigned long long)v << 8) | (unsigned)c);
        ++chars;
    }
    if (chars == 0)
        return 0;
    if (chars == 1)
        v = (signed char)v; /* char is signed in OpenCL C */
    value->bits = (unsigned long long)v;
    value->is_unsigned = 0;
    return 1;
}

static pp_value ev_conditional(pp_eval *ev, int live);

static pp_value ev_primary(pp_eval *ev, int live)
{
    const clc_token *t = ev_peek(ev);
    pp_value v = {0, 0};
    if (t->kind == CLC_TOK_NUMBER) {
        ev->pos++;
        if (!ev_parse_number(t, &v))
            return ev_bad(ev, "a number that is not an integer constant");
        return v;
    }
    if (t->kind == CLC_TOK_CHAR) {
        ev->pos++;
        if (!ev_parse_char(t, &v))
            return ev_bad(ev, "a bad character constant");
        return v;
    }
    if (ev_accept(ev, P_LPAREN)) {
        v = ev_conditional(ev, live);
        while (ev->ok && ev_accept(ev, P_COMMA))
            v = ev_conditional(ev, live);
        if (!ev_accept(ev, P_RPAREN))
            return ev_bad(ev, "a missing ')'");
        return v;
    }
    if (t->kind == CLC_TOK_IDENT)
        return ev_bad(ev, "an identifier");
    return ev_bad(ev, "a token that cannot start an expression");
}

static pp_value ev_unary(pp_eval *ev, int live)
{
    if (++ev->depth > PP_MAX_EVAL_DEPTH)
        return ev_bad(ev, "nesting too deep");
    pp_value v;
    if (ev_accept(ev, P_PLUS)) {
        v = ev_unary(ev, live);
    } else if (ev_accept(ev, P_MINUS)) {
        v = ev_unary(ev, live);
        v.bits = 0 - v.bits;
    } else if (ev_accept(ev, P_TILDE)) {
        v = ev_unary(ev, live);
        v.bits = ~v.bits;
    } else if (ev_accept(ev, P_NOT)) {
        v = ev_unary(ev, live);
        v.bits = v.bits == 0;
        v.is_unsigned = 0;
    } else {
        v = ev_primary(ev, live);
    }
    ev->depth--;
    return v;
}

static int ev_binary_precedence(const clc_token *t)
{
    if (t->kind != CLC_TOK_PUNCT)
        return -1;
    switch (t->punct) {
    case P_STAR: case P_SLASH: case P_PERCENT: return 10;
    case P_PLUS: case P_MINUS: return 9;
    case P_SHL: case P_SHR: return 8;
    case P_LT: case P_GT: case P_LE: case P_GE: return 7;
    case P_EQ: case P_NE: return 6;
    case P_AMP: return 5;
    case P_CARET: return 4;
    case P_PIPE: return 3;
    case P_ANDAND: return 2;
    case P_OROR: return 1;
    default: return -1;
    }
}

static pp_value ev_binary(pp_eval *ev, int min_precedence, int live)
{
    pp_value left = ev_unary(ev, live);
    for (;;) {
        if (!ev->ok)
            return left;
        const clc_token *t = ev_peek(ev);
        int precedence = ev_binary_precedence(t);
        if (precedence < min_precedence || precedence < 0)
            return left;
        clc_punct op = (clc_punct)t->punct;
        ev->pos++;
        int right_live = live;
        if (op == P_ANDAND && left.bits == 0)
            right_live = 0;
        if (op == P_OROR && left.bits != 0)
            right_live = 0;
        if (++ev->depth > PP_MAX_EVAL_DEPTH)
            return ev_bad(ev, "nesting too deep");
        pp_value right = ev_binary(ev, precedence + 1, right_live);
        ev->depth--;
        int u = left.is_unsigned || right.is_unsigned;
        unsigned long long a = left.bits, b = right.bits;
        long long sa = (long long)a, sb = (long long)b;
        pp_value r = {0, u};
        switch (op) {
        case P_STAR: r.bits = a * b; break;
        case P_SLASH:
        case P_PERCENT:
            if (b == 0) {
                if (right_live)
                    return ev_bad(ev, "a division by zero");
                r.bits = 0;
                break;
            }
            if (u)
                r.bits = op == P_SLASH ? a / b : a % b;
            else if (sa == (-0x7fffffffffffffffLL - 1) && sb == -1)
                r.bits = op == P_SLASH ? a : 0;
            else
                r.bits = (unsigned long long)(op == P_SLASH ? sa / sb : sa % sb);
            break;
        case P_PLUS: r.bits = a + b; break;
        case P_MINUS: r.bits = a - b; break;
        case P_SHL: r.bits = b >= 64 ? 0 : a << b; r.is_unsigned = left.is_unsigned; break;
        case P_SHR:
            r.is_unsigned = left.is_unsigned;
            if (left.is_unsigned)
                r.bits = b >= 64 ? 0 : a >> b;
            else
                r.bits = (unsigned long long)(b >= 64 ? (sa < 0 ? -1 : 0)
                                                      : (sa < 0 ? ~(~sa >> b) : sa >> b));
            break;
        case P_LT: r.bits = u ? a < b : sa < sb; r.is_unsigned = 0; break;
        case P_GT: r.bits = u ? a > b : sa > sb; r.is_unsigned = 0; break;
        case P_LE: r.bits = u ? a <= b : sa <= sb; r.is_unsigned = 0; break;
        case P_GE: r.bits = u ? a >= b : sa >= sb; r.is_unsigned = 0; break;
        case P_EQ: r.bits = a == b; r.is_unsigned = 0; break;
        case P_NE: r.bits = a != b; r.is_unsigned = 0; break;
        case P_AMP: r.bits = a & b; break;
        case P_CARET: r.bits = a ^ b; break;
        case P_PIPE: r.bits = a | b; break;
        case P_ANDAND: r.bits = a != 0 && b != 0; r.is_unsigned = 0; break;
        case P_OROR: r.bits = a != 0 || b != 0; r.is_unsigned = 0; break;
        default: break;
        }
        left = r;
    }
}

static pp_value ev_conditional(pp_eval *ev, int live)
{
    if (++ev->depth > PP_MAX_EVAL_DEPTH)
        return ev_bad(ev, "nesting too deep");
    pp_value c = ev_binary(ev, 1, live);
    if (ev->ok && ev_accept(ev, P_QUESTION)) {
        pp_value a = ev_conditional(ev, live && c.bits != 0);
        while (ev->ok && ev_accept(ev, P_COMMA))
            a = ev_conditional(ev, live && c.bits != 0);
        if (!ev_accept(ev, P_COLON)) {
            ev->depth--;
            return ev_bad(ev, "a '?' without ':'");
        }
        pp_value b = ev_conditional(ev, live && c.bits == 0);
        pp_value r = c.bits != 0 ? a : b;
        r.is_unsigned = a.is_unsigned || b.is_unsigned;
        c = r;
    }
    ev->depth--;
    return c;
}

static int pp_evaluate(const clc_token *tokens, size_t count, long long *value,
                       const char **why)
{
    pp_eval ev = {tokens, count, 0, 1, 0, NULL};
    pp_value v = ev_conditional(&ev, 1);
    while (ev.ok && ev_accept(&ev, P_COMMA))
        v = ev_conditional(&ev, 1);
    if (ev.ok && ev.pos != count)
        ev_bad(&ev, "extra tokens");
    if (count == 0)
        ev_bad(&ev, "no expression");
    if (why)
        *why = ev.why;
    *value = (long long)v.bits;
    return ev.ok;
}

int clc_const_eval(const clc_token *tokens, size_t count, long long *value)
{
    return pp_evaluate(tokens, count, value, NULL);
}

/* ---- directives --------------------------------------------------------------- */

/* The rest of the directive's line: [begin, end) in the file tokens. */
static void pp_line_extent(pp_state *st, size_t *begin, size_t *end)
{
    *begin = st->file_pos;
    size_t p = st->file_pos;
    while (st->file_tokens[p].kind != CLC_TOK_EOF &&
           !(st->file_tokens[p].flags & CLC_TF_BOL))
        ++p;
    *end = p;
    st->file_pos = p;
}

static pp_tok *pp_line_list(pp_state *st, size_t begin, size_t end)
{
    pp_list list = {NULL, NULL};
    for (size_t i = begin; i < end; ++i) {
        clc_token t = pp_file_token(st, i);
        pp_list_push(&list, pp_new_tok(st, &t, NULL));
    }
    return list.head;
}

static clc_token *pp_list_to_array(pp_state *st, const pp_tok *list,
                                   size_t *count)
{
    size_t n = 0;
    for (const pp_tok *t = list; t; t = t->next)
        ++n;
    clc_token *array = clc_arena_alloc(st->arena, (n ? n : 1) * sizeof *array);
    n = 0;
    for (const pp_tok *t = list; t; t = t->next)
        array[n++] = t->t;
    *count = n;
    return array;
}

static void pp_define(pp_state *st, const clc_token *at, size_t begin,
                      size_t end)
{
    if (begin == end || st->file_tokens[begin].kind != CLC_TOK_IDENT)
        pp_fail_at(st, at, "#define needs a macro name");
    clc_token name = pp_file_token(st, begin);
    if (name.ident == W_defined)
        pp_fail_at(st, at, "'defined' cannot be a macro name");
    pp_macro *macro = clc_arena_alloc(st->arena, sizeof *macro);
    macro->name = name.ident;
    size_t p = begin + 1;
    int32_t params[PP_MAX_PARAMS];
    int param_count = 0;
    if (p < end && pp_is_punct(&st->file_tokens[p], P_LPAREN) &&
        !(st->file_tokens[p].flags & CLC_TF_SPACE)) {
        macro->function_like = 1;
        ++p;
        if (p < end && pp_is_punct(&st->file_tokens[p], P_RPAREN)) {
            ++p;
        } else {
            for (;;) {
                if (p >= end)
                    pp_fail_at(st, at, "unterminated macro parameter list");
                const clc_token *t = &st->file_tokens[p];
                if (param_count >= PP_MAX_PARAMS)
                    pp_fail_at(st, at, "too many macro parameters");
                if (pp_is_punct(t, P_ELLIPSIS)) {
                    params[param_count++] = W___VA_ARGS__;
                    macro->variadic = 1;
                    ++p;
                    if (p >= end || !pp_is_punct(&st->file_tokens[p], P_RPAREN))
                        pp_fail_at(st, at, "'...' must be the last macro parameter");
                    ++p;
                    break;
                }
                if (t->kind != CLC_TOK_IDENT)
                    pp_fail_at(st, at, "bad macro parameter list");
                params[param_count++] = t->ident;
                ++p;
                if (p < end && pp_is_punct(&st->file_tokens[p], P_ELLIPSIS)) {
                    /* GNU named variadic parameter: `args...` */
                    macro->variadic = 1;
                    ++p;
                    if (p >= end || !pp_is_punct(&st->file_tokens[p], P_RPAREN))
                        pp_fail_at(st, at, "'...' must be the last macro parameter");
                    ++p;
                    break;
                }
                if (p < end && pp_is_punct(&st->file_tokens[p], P_RPAREN)) {
                    ++p;
                    break;
                }
                if (p >= end || !pp_is_punct(&st->file_tokens[p], P_COMMA))
                    pp_fail_at(st, at, "bad macro parameter list");
                ++p;
            }
        }
    }
    size_t body_count = end - p;
    clc_token *body = clc_arena_alloc(st->arena, (body_count ? body_count : 1) * sizeof *body);
    int16_t *body_param = clc_arena_alloc(st->arena, (body_count ? body_count : 1) * sizeof *body_param);
    for (size_t i = 0; i < body_count; ++i) {
        body[i] = pp_file_token(st, p + i);
        body[i].flags &= (uint8_t)~CLC_TF_BOL;
        body_param[i] = -1;
        if (macro->function_like && body[i].kind == CLC_TOK_IDENT)
            for (int k = 0; k < param_count; ++k)
                if (params[k] == body[i].ident)
                    body_param[i] = (int16_t)k;
    }
    if (body_count > 0) {
        body[0].flags &= (uint8_t)~CLC_TF_SPACE;
        if (pp_is_punct(&body[0], P_HASHHASH) ||
            pp_is_punct(&body[body_count - 1], P_HASHHASH))
            pp_fail_at(st, at, "'##' cannot appear at either end of a macro");
    }
    if (macro->function_like)
        for (size_t i = 0; i < body_count; ++i)
            if (pp_is_punct(&body[i], P_HASH) &&
                (i + 1 >= body_count || body_param[i + 1] < 0))
                pp_fail_at(st, at, "'#' is not followed by a macro parameter");
    int32_t *saved = clc_arena_alloc(st->arena, (size_t)(param_count ? param_count : 1) * sizeof *saved);
    if (param_count > 0)
        memcpy(saved, params, (size_t)param_count * sizeof *saved);
    macro->params = saved;
    macro->param_count = param_count;
    macro->body = body;
    macro->body_param = body_param;
    macro->body_count = body_count;
    pp_macro_set(st, name.ident, macro);
}

/* `defined X`, `defined(X)` and the __has_* queries, before expansion. */
static pp_tok *pp_resolve_defined(pp_state *st, pp_tok *list, const clc_token *at)
{
    pp_list out = {NULL, NULL};
    for (pp_tok *tok = list; tok != NULL;) {
        pp_tok *next = tok->next;
        int32_t id = tok->t.kind == CLC_TOK_IDENT ? tok->t.ident : -1;
        if (id == W_defined || id == W___has_include ||
            id == W___has_feature || id == W___has_extension ||
            id == W___has_builtin || id == W___has_attribute) {
            int value = 0;
            pp_tok *p = next;
            if (id == W_defined) {
                int paren = p && pp_is_punct(&p->t, P_LPAREN);
                if (paren)
                    p = p->next;
                if (p == NULL || p->t.kind != CLC_TOK_IDENT)
                    pp_fail_at(st, at, "'defined' needs a macro name");
                value = pp_macro_get(st, p->t.ident) != NULL;
                p = p->next;
                if (paren) {
                    if (p == NULL || !pp_is_punct(&p->t, P_RPAREN))
                        pp_fail_at(st, at, "missing ')' after 'defined'");
                    p = p->next;
                }
            } else {
                /* Kiln claims no optional feature, builtin or header. */
                if (p == NULL || !pp_is_punct(&p->t, P_LPAREN))
                    pp_fail_at(st, at, "a __has_ query needs parentheses");
                int depth = 0;
                for (; p != NULL; p = p->next) {
                    if (pp_is_punct(&p->t, P_LPAREN))
                        ++depth;
                    else if (pp_is_punct(&p->t, P_RPAREN) && --depth == 0)
                        break;
                }
                if (p == NULL)
                    pp_fail_at(st, at, "missing ')' in a __has_ query");
                p = p->next;
            }
            clc_token t = tok->t;
            t.kind = CLC_TOK_NUMBER;
            t.ident = -1;
            t.text = value ? "1" : "0";
            t.length = 1;
            pp_list_push(&out, pp_new_tok(st, &t, NULL));
            tok = p;
            continue;
        }
        pp_list_push(&out, tok);
        tok = next;
    }
    return out.head;
}

static int pp_eval_condition(pp_state *st, const clc_token *at, size_t begin,
                             size_t end)
{
    pp_tok *list = pp_resolve_defined(st, pp_line_list(st, begin, end), at);
    list = pp_expand_isolated(st, list);
    for (pp_tok *tok = list; tok != NULL; tok = tok->next) {
        if (tok->t.kind != CLC_TOK_IDENT)
            continue;
        /* Identifiers left after expansion are 0; true and false are
         * keywords in OpenCL C. */
        tok->t.kind = CLC_TOK_NUMBER;
        tok->t.text = tok->t.ident == W_true ? "1" : "0";
        tok->t.length = 1;
        tok->t.ident = -1;
    }
    size_t count;
    clc_token *tokens = pp_list_to_array(st, list, &count);
    long long value = 0;
    const char *why = NULL;
    if (!pp_evaluate(tokens, count, &value, &why))
        clc_fail(st->failure, at->file, at->line,
                 "invalid expression in #%s: %s", "if/#elif",
                 why ? why : "syntax error");
    return value != 0;
}

/* Skips a group whose condition is false, up to the #elif, #else or #endif
 * that ends it (left unread). */
static void pp_skip_group(pp_state *st)
{
    int depth = 0;
    for (;;) {
        const clc_token *t = &st->file_tokens[st->file_pos];
        if (t->kind == CLC_TOK_EOF)
            return; /* pp_read reports the open #if */
        if ((t->flags & CLC_TF_BOL) && pp_is_punct(t, P_HASH)) {
            const clc_token *d = &st->file_tokens[st->file_pos + 1];
            if (d->kind == CLC_TOK_IDENT && !(d->flags & CLC_TF_BOL)) {
                if (d->ident == W_if || d->ident == W_ifdef ||
                    d->ident == W_ifndef) {
                    ++depth;
                } else if (d->ident == W_endif) {
                    if (depth == 0)
                        return;
                    --depth;
                } else if ((d->ident == W_elif || d->ident == W_else) &&
                           depth == 0) {
                    return;
                }
            }
        }
        st->file_pos++;
    }
}

static void pp_push_cond(pp_state *st, const clc_token *at, int taken)
{
    if (st->cond_count >= PP_MAX_COND_DEPTH)
        pp_fail_at(st, at, "#if nested too deeply");
    st->conds = clc_arena_grow(st->arena, st->conds, st->cond_count,
                               &st->cond_capacity, sizeof *st->conds, 16);
    pp_cond *cond = &st->conds[st->cond_count++];
    cond->taken = (uint8_t)taken;
    cond->seen_else = 0;
    cond->file = at->file;
    cond->line = at->line;
}

static void pp_emit(pp_state *st, const clc_token *t)
{
    if (st->expand_only)
        return;
    if (st->out.count == st->out.capacity) {
        if (st->out.capacity >= CLC_MAX_TOKENS)
            clc_fail(st->failure, t->file, t->line,
                     "the program has more than %u tokens after preprocessing",
                     (unsigned)CLC_MAX_TOKENS);
        st->out.tokens = clc_arena_grow(st->arena, st->out.tokens,
                                        st->out.count, &st->out.capacity,
                                        sizeof *st->out.tokens, 4096);
    }
    st->out.tokens[st->out.count++] = *t;
}

static void pp_emit_pragma(pp_state *st, const clc_token *at, const char *body)
{
    clc_token t = *at;
    t.kind = CLC_TOK_PRAGMA;
    t.ident = -1;
    t.punct = P_NONE;
    t.text = clc_arena_strndup(st->arena, body, strlen(body));
    t.length = (uint32_t)strlen(body);
    t.flags = CLC_TF_BOL | CLC_TF_SPACE;
    pp_emit(st, &t);
}

/* A pragma's tokens (already split from its line). */
static void pp_pragma(pp_state *st, const clc_token *at, pp_tok *list)
{
    if (list == NULL || list->t.kind != CLC_TOK_IDENT)
        return;
    const clc_ident *word = clc_ident_get(st->interner, list->t.ident);
    pp_tok *rest = list->next;
    if (word->length == 6 && memcmp(word->name, "OPENCL", 6) == 0) {
        /* OPENCL EXTENSION x : enable: every extension Kiln defines is
         * always on.  OPENCL FP_CONTRACT OFF: the backend compiles the
         * program without contraction. */
        if (rest != NULL && rest->t.kind == CLC_TOK_IDENT &&
            rest->t.length == 11 && memcmp(rest->t.text, "FP_CONTRACT", 11) == 0 &&
            rest->next != NULL && rest->next->t.length == 3 &&
            memcmp(rest->next->t.text, "OFF", 3) == 0)
            st->fp_contract_off = 1;
        return;
    }
    int unroll = word->length == 6 && memcmp(word->name, "unroll", 6) == 0;
    int nounroll = word->length == 8 && memcmp(word->name, "nounroll", 8) == 0;
    if (!unroll && !nounroll)
        return; /* unknown pragmas are ignored, as compilers do */
    if (nounroll) {
        pp_emit_pragma(st, at, "unroll 1");
        return;
    }
    if (rest == NULL) {
        pp_emit_pragma(st, at, "unroll");
        return;
    }
    /* The count may be a macro (clang expands it); NVRTC needs a constant
     * it can read, so it is evaluated here when it can be. */
    pp_tok *count = pp_expand_isolated(st, rest);
    size_t n;
    clc_token *tokens = pp_list_to_array(st, count, &n);
    long long value = 0;
    char text[64];
    if (pp_evaluate(tokens, n, &value, NULL) && value > 0 && value <= 0x7fffffff) {
        snprintf(text, sizeof text, "unroll %lld", value);
        pp_emit_pragma(st, at, text);
        return;
    }
    clc_fail(st->failure, at->file, at->line,
             "'#pragma unroll' needs a positive integer constant, not '%s'",
             pp_spell(st, &rest->t));
}

static void pp_line_directive(pp_state *st, const clc_token *at, size_t begin,
                              size_t end, unsigned directive_raw_line)
{
    pp_tok *list = pp_expand_isolated(st, pp_line_list(st, begin, end));
    if (list == NULL || list->t.kind != CLC_TOK_NUMBER)
        pp_fail_at(st, at, "#line needs a line number");
    pp_value value;
    if (!ev_parse_number(&list->t, &value) || value.bits > 0x7fffffff)
        pp_fail_at(st, at, "#line needs a line number");
    if (list->next != NULL && list->next->t.kind == CLC_TOK_STRING) {
        const clc_token *name = &list->next->t;
        if (name->length >= 2 && name->text[0] == '"') {
            /* The name as written, escapes and all: it goes back into
             * #line directives and messages as it came. */
            st->file = pp_file_id(st, name->text + 1, name->length - 2);
        }
    }
    /* The next line is number `value`. */
    st->line_delta = (long)value.bits - (long)(directive_raw_line + 1);
}

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
static void pp_flat_copy(pp_state *st, size_t until)
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

static void pp_include(pp_state *st, const clc_token *hash, size_t begin,
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
        if (st->expand_only || st->leave_unfound)
            return; /* the compiler reports it */
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
    if (known == NULL)
        return; /* not found: left in place */
    if (known->once ||
        (known->guard >= 0 && pp_macro_get(st, known->guard) != NULL)) {
        /* Included already, and it would add nothing. */
        pp_flat_drop_directive(st);
        return;
    }
    pp_include_enter(st, hash, known);
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
static int pp_leave_file(pp_state *st)
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
static void pp_pragma_once(pp_state *st)
{
    pp_known_file *known = st->path ? pp_known_find(st, st->path) : NULL;
    if (known != NULL)
        known->once = 1;
    pp_flat_drop_directive(st);
}

static void pp_directive(pp_state *st, const clc_token *hash)
{
    const clc_token *raw_name = &st->file_tokens[st->file_pos];
    if (raw_name->kind == CLC_TOK_EOF || (raw_name->flags & CLC_TF_BOL))
        return; /* the null directive */
    unsigned directive_raw_line = st->file_tokens[st->file_pos - 1].line;
    st->directive_begin = st->file_pos - 1;
    clc_token name = pp_file_token(st, st->file_pos);
    st->file_pos++;
    size_t begin, end;
    pp_line_extent(st, &begin, &end);

    if (name.kind == CLC_TOK_NUMBER) {
        /* GNU line marker: # 12 "file" */
        pp_line_directive(st, hash, begin - 1, end, directive_raw_line);
        return;
    }
    if (name.kind != CLC_TOK_IDENT)
        clc_fail(st->failure, hash->file, hash->line, "invalid preprocessing directive '#%s'",
                   pp_spell(st, &name));
    switch (name.ident) {
    case W_define:
        pp_define(st, hash, begin, end);
        return;
    case W_undef:
        if (begin == end || st->file_tokens[begin].kind != CLC_TOK_IDENT)
            pp_fail_at(st, hash, "#undef needs a macro name");
        pp_macro_set(st, st->file_tokens[begin].ident, NULL);
        return;
    case W_if:
    case W_ifdef:
    case W_ifndef: {
        int value;
        if (name.ident == W_if) {
            value = pp_eval_condition(st, hash, begin, end);
        } else {
            if (begin == end || st->file_tokens[begin].kind != CLC_TOK_IDENT)
                clc_fail(st->failure, hash->file, hash->line, "#%s needs a macro name",
                           name.ident == W_ifdef ? "ifdef" : "ifndef");
            value = pp_macro_get(st, st->file_tokens[begin].ident) != NULL;
            if (name.ident == W_ifndef)
                value = !value;
        }
        pp_push_cond(st, hash, value);
        if (!value)
            pp_skip_group(st);
        return;
    }
    case W_elif:
    case W_else: {
        if (st->cond_count == 0)
            clc_fail(st->failure, hash->file, hash->line, "#%s without #if",
                       name.ident == W_elif ? "elif" : "else");
        pp_cond *cond = &st->conds[st->cond_count - 1];
        if (cond->seen_else)
            clc_fail(st->failure, hash->file, hash->line, "#%s after #else",
                       name.ident == W_elif ? "elif" : "else");
        if (name.ident == W_else)
            cond->seen_else = 1;
        if (cond->taken) {
            pp_skip_group(st);
            return;
        }
        int value = name.ident == W_else ? 1 : pp_eval_condition(st, hash, begin, end);
        if (value)
            cond->taken = 1;
        else
            pp_skip_group(st);
        return;
    }
    case W_endif:
        if (st->cond_count == 0)
            pp_fail_at(st, hash, "#endif without #if");
        st->cond_count--;
        return;
    case W_include:
    case W_include_next:
    case W_import: {
        if (name.ident == W_include && st->reader != NULL) {
            pp_include(st, hash, begin, end);
            return;
        }
        if (st->expand_only)
            return; /* left to the compiler */
        clc_buffer what;
        clc_buffer_init(&what, st->arena);
        for (size_t i = begin; i < end; ++i)
            clc_buffer_append(&what, st->file_tokens[i].text, st->file_tokens[i].length);
        clc_fail(st->failure, hash->file, hash->line,
                 "cannot include %s: the file was not found in the "
                 "program's include directories",
                 what.length ? clc_buffer_text(&what) : "(nothing)");
    }
    case W_error: {
        if (st->expand_only)
            return; /* the compiler, with its own macros, decides */
        clc_buffer text;
        clc_buffer_init(&text, st->arena);
        for (size_t i = begin; i < end; ++i) {
            if (i > begin && (st->file_tokens[i].flags & CLC_TF_SPACE))
                clc_buffer_append(&text, " ", 1);
            clc_buffer_append(&text, st->file_tokens[i].text, st->file_tokens[i].length);
        }
        clc_fail(st->failure, hash->file, hash->line, "#error %s",
                 clc_buffer_text(&text));
    }
    case W_warning:
    case W_ident:
    case W_sccs:
        return;
    case W_line:
        pp_line_directive(st, hash, begin, end, directive_raw_line);
        return;
    case W_pragma:
        if (begin < end && st->file_tokens[begin].kind == CLC_TOK_IDENT &&
            st->file_tokens[begin].length == 4 &&
            memcmp(st->file_tokens[begin].text, "once", 4) == 0) {
            pp_pragma_once(st);
            return;
        }
        pp_pragma(st, hash, pp_line_list(st, begin, end));
        return;
    default:
        if (st->expand_only)
            return;
        clc_fail(st->failure, hash->file, hash->line, "unknown preprocessing directive '#%s'",
                   pp_spell(st, &name));
    }
}

/* _Pragma("text"): destringized and handled as #pragma text. */
static void pp_pragma_operator(pp_state *st, pp_tok *tok)
{
    pp_tok *open = pp_read(st);
    pp_tok *string = open != &st->eof ? pp_read(st) : open;
    pp_tok *close = string != &st->eof ? pp_read(st) : string;
    if (!pp_is_punct(&open->t, P_LPAREN) || string->t.kind != CLC_TOK_STRING ||
        !pp_is_punct(&close->t, P_RPAREN))
        clc_fail(st->failure, tok->t.file, tok->t.line,
                 "_Pragma needs one string literal in parentheses");
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    const char *s = string->t.text;
    size_t n = string->t.length;
    while (n > 0 && *s != '"') {
        ++s;
        --n;
    }
    for (size_t i = 1; i + 1 < n; ++i) {
        if (s[i] == '\\' && (s[i + 1] == '"' || s[i + 1] == '\\'))
            ++i;
        clc_buffer_append(&text, &s[i], 1);
    }
    clc_token_array tokens = {NULL, 0, 0};
    clc_lex(clc_buffer_text(&text), text.length, tok->t.file, tok->t.line,
            st->arena, st->interner, &tokens);
    pp_list list = {NULL, NULL};
    for (size_t i = 0; i + 1 < tokens.count; ++i) {
        tokens.tokens[i].line = tok->t.line;
        pp_list_push(&list, pp_new_tok(st, &tokens.tokens[i], NULL));
    }
    pp_pragma(st, &tok->t, list.head);
}

/* ---- driving --------------------------------------------------------------- */

static void pp_run_file(pp_state *st, const char *text, size_t length,
                        uint16_t file)
{
    clc_token_array tokens = {NULL, 0, 0};
    clc_lex(text, length, file, 1, st->arena, st->interner, &tokens);
    const clc_token *saved_tokens = st->file_tokens;
    size_t saved_pos = st->file_pos;
    st->file_tokens = tokens.tokens;
    st->file_pos = 0;
    st->line_delta = 0;
    st->file = file;
    for (;;) {
        pp_tok *tok = pp_read(st);
        if (tok == &st->eof)
            break;
        if (tok->t.kind == CLC_TOK_IDENT) {
            if (tok->t.ident == W__Pragma) {
                pp_pragma_operator(st, tok);
                continue;
            }
            if (pp_try_expand(st, tok))
                continue;
        }
        tok->t.flags &= (uint8_t)~CLC_TF_NOEXPAND;
        pp_emit(st, &tok->t);
    }
    st->file_tokens = saved_tokens;
    st->file_pos = saved_pos;
}

/* OpenCL C 1.2's predefined macros (6.10, and the macros of its headers
 * that programs test with #ifdef or use in constant expressions). */
static const char pp_predefined[] =
    "#define __OPENCL_VERSION__ 120\n"
    "#define CL_VERSION_1_0 100\n"
    "#define CL_VERSION_1_1 110\n"
    "#define CL_VERSION_1_2 120\n"
    "#define CL_VERSION_2_0 200\n"
    "#define CL_VERSION_3_0 300\n"
    "#define __ENDIAN_LITTLE__ 1\n"
    "#define __EMBEDDED_PROFILE__ 0\n"
    "#undef __EMBEDDED_PROFILE__\n"
    "#define __kernel_exec(X, typen) __kernel "
    "__attribute__((work_group_size_hint(X, 1, 1))) "
    "__attribute__((vec_type_hint(typen)))\n"
    "#define kernel_exec(X, typen) __kernel "
    "__attribute__((work_group_size_hint(X, 1, 1))) "
    "__attribute__((vec_type_hint(typen)))\n"
    "#define FP_FAST_FMA 1\n"
    "#define FP_FAST_FMAF 1\n"
    "#define cl_khr_fp64 1\n"
    "#define cl_khr_int64_base_atomics 1\n"
    "#define cl_khr_int64_extended_atomics 1\n"
    "#define cl_khr_global_int32_base_atomics 1\n"
    "#define cl_khr_global_int32_extended_atomics 1\n"
    "#define cl_khr_local_int32_base_atomics 1\n"
    "#define cl_khr_local_int32_extended_atomics 1\n"
    "#define cl_khr_byte_addressable_store 1\n"
    "#define __STDC__ 1\n"
    "#define __STDC_VERSION__ 199901L\n"
    "#define __DATE__ \"Jan  1 1970\"\n"
    "#define __TIME__ \"00:00:00\"\n"
    "#define NULL 0\n"
    "#define CHAR_BIT 8\n"
    "#define SCHAR_MAX 127\n"
    "#define SCHAR_MIN (-127-1)\n"
    "#define CHAR_MAX SCHAR_MAX\n"
    "#define CHAR_MIN SCHAR_MIN\n"
    "#define UCHAR_MAX 255\n"
    "#define SHRT_MAX 32767\n"
    "#define SHRT_MIN (-32767-1)\n"
    "#define USHRT_MAX 65535\n"
    "#define INT_MAX 2147483647\n"
    "#define INT_MIN (-2147483647-1)\n"
    "#define UINT_MAX 0xffffffffU\n"
    "#define LONG_MAX 0x7fffffffffffffffL\n"
    "#define LONG_MIN (-0x7fffffffffffffffL-1)\n"
    "#define ULONG_MAX 0xffffffffffffffffUL\n"
    "#define FLT_DIG 6\n"
    "#define FLT_MANT_DIG 24\n"
    "#define FLT_MAX_10_EXP 38\n"
    "#define FLT_MAX_EXP 128\n"
    "#define FLT_MIN_10_EXP (-37)\n"
    "#define FLT_MIN_EXP (-125)\n"
    "#define FLT_RADIX 2\n"
    "#define FLT_MAX 0x1.fffffep127f\n"
    "#define FLT_MIN 0x1.0p-126f\n"
    "#define FLT_EPSILON 0x1.0p-23f\n"
    "#define DBL_DIG 15\n"
    "#define DBL_MANT_DIG 53\n"
    "#define DBL_MAX_10_EXP 308\n"
    "#define DBL_MAX_EXP 1024\n"
    "#define DBL_MIN_10_EXP (-307)\n"
    "#define DBL_MIN_EXP (-1021)\n"
    "#define DBL_MAX 0x1.fffffffffffffp1023\n"
    "#define DBL_MIN 0x1.0p-1022\n"
    "#define DBL_EPSILON 0x1.0p-52\n"
    "#define MAXFLOAT 0x1.fffffep127f\n"
    "#define HUGE_VALF __kiln_huge_valf\n"
    "#define HUGE_VAL __kiln_huge_val\n"
    "#define INFINITY __kiln_huge_valf\n"
    "#define NAN __kiln_nanf\n"
    "#define FP_ILOGB0 (-2147483647-1)\n"
    "#define FP_ILOGBNAN 2147483647\n"
    "#define M_E 2.718281828459045090796\n"
    "#define M_LOG2E 1.442695040888963387005\n"
    "#define M_LOG10E 0.434294481903251816668\n"
    "#define M_LN2 0.693147180559945286227\n"
    "#define M_LN10 2.302585092994045901094\n"
    "#define M_PI 3.141592653589793115998\n"
    "#define M_PI_2 1.570796326794896557999\n"
    "#define M_PI_4 0.785398163397448278999\n"
    "#define M_1_PI 0.318309886183790691216\n"
    "#define M_2_PI 0.636619772367581382433\n"
    "#define M_2_SQRTPI 1.128379167095512558561\n"
    "#define M_SQRT2 1.414213562373095145475\n"
    "#define M_SQRT1_2 0.707106781186547572737\n"
    "#define M_E_F 2.71828174591f\n"
    "#define M_LOG2E_F 1.44269502163f\n"
    "#define M_LOG10E_F 0.43429449201f\n"
    "#define M_LN2_F 0.69314718056f\n"
    "#define M_LN10_F 2.30258512497f\n"
    "#define M_PI_F 3.14159274101f\n"
    "#define M_PI_2_F 1.57079637051f\n"
    "#define M_PI_4_F 0.78539818525f\n"
    "#define M_1_PI_F 0.31830987334f\n"
    "#define M_2_PI_F 0.63661974668f\n"
    "#define M_2_SQRTPI_F 1.12837922573f\n"
    "#define M_SQRT2_F 1.41421353817f\n"
    "#define M_SQRT1_2_F 0.70710676908f\n"
    "#define CLK_LOCAL_MEM_FENCE 1\n"
    "#define CLK_GLOBAL_MEM_FENCE 2\n";

/* -D NAME=VALUE -> "#define NAME VALUE" (the value up to a newline);
 * -U NAME -> "#undef NAME". */
static void pp_option_define(clc_buffer *script,
                             const translate_define *define)
{
    if (define->value == NULL) {
        clc_buffer_printf(script, "#undef %s\n", define->name);
        return;
    }
    clc_buffer_puts(script, "#define ");
    clc_buffer_puts(script, define->name);
    clc_buffer_append(script, " ", 1);
    clc_buffer_append(script, define->value, strcspn(define->value, "\r\n"));
    clc_buffer_append(script, "\n", 1);
}

static void pp_options(pp_state *st, const translate_options *options,
                       clc_buffer *script, int *c_version, int *fast_math)
{
    static const translate_options none;
    if (options == NULL)
        options = &none;
    *c_version = 120;
    *fast_math = 0;
    for (size_t i = 0; i < options->define_count; ++i)
        pp_option_define(script, &options->defines[i]);
    for (size_t i = 0; i < options->flag_count; ++i) {
        const char *w = options->flags[i];
        if (strncmp(w, "-cl-std=", 8) == 0) {
            const char *v = w + 8;
            if (strcmp(v, "CL1.0") == 0)
                *c_version = 100;
            else if (strcmp(v, "CL1.1") == 0)
                *c_version = 110;
            else if (strcmp(v, "CL1.2") == 0)
                *c_version = 120;
            else if (strcmp(v, "CL3.0") == 0)
                *c_version = 300;
            else if (strcmp(v, "CL2.0") == 0)
                clc_fail(st->failure, -1, 0,
                         "build options: -cl-std=CL2.0: OpenCL C 2.0 is not "
                         "supported by the CUDA backend (use CL1.2 or CL3.0)");
            else
                clc_fail(st->failure, -1, 0,
                         "build options: unknown OpenCL C version in '%s'", w);
            continue;
        }
        if (strcmp(w, "-cl-fast-relaxed-math") == 0)
            *fast_math = 1;
    }
}

/* A preprocessor with the predefined macros and the build options'
 * defines in place, ready for the program (file 0, `name`). */
static pp_state *pp_start(const char *name, const translate_options *options,
                          int target_cuda, clc_arena *arena,
                          clc_interner *interner, int *fast_math)
{
    pp_state *st = clc_arena_alloc(arena, sizeof *st);
    st->arena = arena;
    st->interner = interner;
    st->failure = arena->failure;
    st->failure->file_count = &st->file_count;
    const char *main_name = name ? name : "<kiln program>";
    pp_file_id(st, main_name, strlen(main_name));   /* file 0 */
    uint16_t builtin_file = pp_file_id(st, "<built-in>", 10);
    uint16_t command_line = pp_file_id(st, "<command line>", 14);

    static const struct {
        const char *name;
        pp_builtin kind;
    } dynamic[] = {{"__LINE__", PP_LINE}, {"__FILE__", PP_FILE},
                   {"__COUNTER__", PP_COUNTER}};
    for (size_t i = 0; i < sizeof dynamic / sizeof dynamic[0]; ++i) {
        pp_macro *macro = clc_arena_alloc(arena, sizeof *macro);
        macro->name = clc_intern(interner, dynamic[i].name, strlen(dynamic[i].name));
        macro->builtin = (uint8_t)dynamic[i].kind;
        pp_macro_set(st, macro->name, macro);
    }

    clc_buffer script;
    clc_buffer_init(&script, arena);
    clc_buffer_puts(&script, pp_predefined);
    if (target_cuda)
        clc_buffer_puts(&script, "#define __KILN_CUDA__ 1\n");
    int c_version;
    clc_buffer command;
    clc_buffer_init(&command, arena);
    pp_options(st, options, &command, &c_version, fast_math);
    clc_buffer_printf(&script, "#define __OPENCL_C_VERSION__ %d\n", c_version);
    if (*fast_math)
        clc_buffer_puts(&script, "#define __FAST_RELAXED_MATH__ 1\n");
    pp_run_file(st, clc_buffer_text(&script), script.length, builtin_file);
    if (command.length > 0)
        pp_run_file(st, clc_buffer_text(&command), command.length, command_line);
    /* Neither may leave tokens behind; the program starts from here. */
    st->out.count = 0;
    return st;
}

void clc_preprocess(const char *source, size_t length, const char *name,
                    const translate_options *options, clc_arena *arena,
                    clc_interner *interner, clc_pp_output *out)
{
    int fast_math;
    pp_state *st = pp_start(name, options, 1, arena, interner, &fast_math);
    pp_run_file(st, source, length, 0);

    clc_token eof;
    memset(&eof, 0, sizeof eof);
    eof.kind = CLC_TOK_EOF;
    eof.text = "";
    eof.ident = -1;
    eof.file = st->file;
    eof.line = st->out.count ? st->out.tokens[st->out.count - 1].line : 1;
    pp_emit(st, &eof);

    out->tokens = st->out.tokens;
    out->count = st->out.count;
    out->file_names = st->file_names;
    out->file_count = st->file_count;
    out->fp_contract_off = st->fp_contract_off;
    out->fast_relaxed_math = fast_math;
    out->included_files = 0;
}

void clc_preprocess_program(const char *source, size_t length,
                            const char *name, const translate_options *options,
                            int target_cuda,
                            const translate_include_reader *reader,
                            int leave_unfound, clc_arena *arena,
                            clc_interner *interner, clc_pp_output *out,
                            clc_buffer *flat)
{
    int fast_math;
    pp_state *st = pp_start(name, options, target_cuda, arena, interner,
                            &fast_math);
    st->reader = reader;
    st->leave_unfound = leave_unfound;
    st->flat = flat;
    st->flat_line = 1;
    clc_token_array tokens = {NULL, 0, 0};
    clc_lex(source ? source : "", length, 0, 1, arena, interner, &tokens);
    st->file_tokens = tokens.tokens;
    st->file_pos = 0;
    st->line_delta = 0;
    st->file = 0;
    st->path = NULL;
    st->raw_cursor = 0;
    /* pp_run_file's loop, on the program's own tokens: the flattened text
     * takes what is left of them before they are let go. */
    for (;;) {
        pp_tok *tok = pp_read(st);
        if (tok == &st->eof)
            break;
        if (tok->t.kind == CLC_TOK_IDENT) {
            if (tok->t.ident == W__Pragma) {
                pp_pragma_operator(st, tok);
                continue;
            }
            if (pp_try_expand(st, tok))
                continue;
        }
        tok->t.flags &= (uint8_t)~CLC_TF_NOEXPAND;
        pp_emit(st, &tok->t);
    }
    pp_flat_copy(st, st->file_pos);
    if (flat != NULL && flat->length > 0 &&
        flat->data[flat->length - 1] != '\n')
        clc_buffer_append(flat, "\n", 1);
    out->included_files = st->known_count;

    clc_token eof;
    memset(&eof, 0, sizeof eof);
    eof.kind = CLC_TOK_EOF;
    eof.text = "";
    eof.ident = -1;
    eof.file = st->file;
    eof.line = st->out.count ? st->out.tokens[st->out.count - 1].line : 1;
    pp_emit(st, &eof);

    out->tokens = st->out.tokens;
    out->count = st->out.count;
    out->file_names = st->file_names;
    out->file_count = st->file_count;
    out->fp_contract_off = st->fp_contract_off;
    out->fast_relaxed_math = fast_math;
}

void clc_expansion_free(clc_expansion *expansion)
{
    free(expansion->text);
    for (size_t i = 0; i < expansion->file_count; ++i)
        free(expansion->files[i]);
    free(expansion->files);
    free(expansion->error);
    memset(expansion, 0, sizeof *expansion);
}

static char *pp_strdup(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

int translate_text_spells(const char *text, size_t length, const char *word,
                    size_t anchor)
{
    size_t word_length = strlen(word);
    if (length < word_length)
        return 0;
    const char *end = text + length;
    for (const char *at = text + anchor;
         at < end && (at = memchr(at, word[anchor], (size_t)(end - at))) != NULL;
         ++at)
        if ((size_t)(end - at) >= word_length - anchor &&
            memcmp(at - anchor, word, word_length) == 0)
            return 1;
    return 0;
}

/* Whether `text` spells the word "include" once its line splices are
 * gone (the front end's translation phase 2: backslash, then \n or \r\n).
 * Every #include, %:include and splice-cut #inc\<newline>lude does; a
 * source that does not can have nothing to inline. */
int clc_may_include(const char *text, size_t length)
{
    static const char word[] = "include";
    const size_t word_length = sizeof word - 1;
    const char *end = text + length;
    if (length < word_length)
        return 0;
    /* Without a backslash there is no splice: a plain search does (the
     * array layer's generated sources, built on every call, take this). */
    if (memchr(text, '\\', length) == NULL)
        return translate_text_spells(text, length, word, 5); /* its 'd', rarer in
                                                           kernels than 'i' */
    for (const char *at = text;
         (at = memchr(at, 'i', (size_t)(end - at))) != NULL; ++at) {
        size_t i = (size_t)(at - text), matched = 0;
        while (matched < word_length && i < length) {
            if (text[i] == '\\' && i + 1 < length && text[i + 1] == '\n') {
                i += 2;
            } else if (text[i] == '\\' && i + 2 < length &&
                       text[i + 1] == '\r' && text[i + 2] == '\n') {
                i += 3;
            } else if (text[i] == word[matched]) {
                ++matched;
                ++i;
            } else {
                break;
            }
        }
        if (matched == word_length)
            return 1;
    }
    return 0;
}

int clc_expand_includes(const char *source, size_t length, const char *name,
                        const translate_options *options, int target_cuda,
                        const translate_include_reader *reader, clc_expansion *out)
{
    memset(out, 0, sizeof *out);
    /* Every program build runs through here, memory-cache hits included
     * (the core's key is made from the expanded text): a source without
     * the word include is left as it is, without lexing it, so a hit costs
     * a digest and not a pass of the preprocessor.  The result is the same
     * either way: such a source includes nothing. */
    if (source == NULL || !clc_may_include(source, length))
        return 0;
    clc_failure failure;
    memset(&failure, 0, sizeof failure);
    clc_arena arena;
    clc_arena_init(&arena, &failure, CLC_MAX_ARENA_BYTES);
    clc_interner interner;
    memset(&interner, 0, sizeof interner);
    if (setjmp(failure.unwind) != 0) {
        clc_expansion_free(out);
        int result = -2;
        if (!failure.out_of_memory && failure.message != NULL) {
            out->error = failure.message;
            result = -1;
        } else {
            free(failure.message);
        }
        clc_interner_free(&interner);
        clc_arena_free(&arena);
        return result;
    }
    clc_interner_init(&interner, &arena);
    int fast_math;
    pp_state *st = pp_start(name, options, target_cuda, &arena, &interner,
                            &fast_math);
    clc_buffer flat;
    clc_buffer_init(&flat, &arena);
    st->reader = reader;
    st->expand_only = 1;
    st->flat = &flat;
    st->flat_line = 1;

    clc_token_array tokens = {NULL, 0, 0};
    clc_lex(source ? source : "", length, 0, 1, &arena, &interner, &tokens);
    st->file_tokens = tokens.tokens;
    st->file_pos = 0;
    st->line_delta = 0;
    st->file = 0;
    st->path = NULL;
    st->raw_cursor = 0;
    /* Only directives matter: the rest is read past without expansion. */
    for (;;) {
        const clc_token *raw = &st->file_tokens[st->file_pos];
        if (raw->kind == CLC_TOK_EOF) {
            if (pp_leave_file(st))
                continue;
            break;
        }
        if ((raw->flags & CLC_TF_BOL) && pp_is_punct(raw, P_HASH)) {
            clc_token hash = pp_file_token(st, st->file_pos);
            st->file_pos++;
            pp_directive(st, &hash);
            continue;
        }
        st->file_pos++;
    }
    pp_flat_copy(st, st->file_pos);
    if (flat.length > 0 && flat.data[flat.length - 1] != '\n')
        clc_buffer_append(&flat, "\n", 1);

    int failed = 0;
    if (st->known_count > 0) {
        out->text = pp_strdup(flat.data, flat.length);
        out->length = flat.length;
        out->files = calloc(st->known_count, sizeof *out->files);
        failed = out->text == NULL || out->files == NULL;
        for (size_t i = 0; !failed && i < st->known_count; ++i) {
            out->files[i] = pp_strdup(st->known[i].path,
                                      strlen(st->known[i].path));
            failed = out->files[i] == NULL;
            out->file_count = i + 1;
        }
    }
    clc_interner_free(&interner);
    clc_arena_free(&arena);
    if (failed) {
        clc_expansion_free(out);
        return -2;
    }
    return 0;
}
