/*
 * The preprocessor's macros: reading tokens from the current file or from
 * a pending expansion, and expanding object- and function-like macros
 * (arguments, # and ##, __VA_ARGS__, hide sets, the built-in __LINE__,
 * __FILE__ and __COUNTER__).
 */
#include "preprocess_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers -------------------------------------------------------- */

CLC_NORETURN void pp_fail_at(pp_state *st, const clc_token *at,
                             const char *message)
{
    clc_fail(st->failure, at ? at->file : -1, at ? at->line : 0, "%s",
             message);
}

int pp_is_punct(const clc_token *t, clc_punct punct)
{
    return t->kind == CLC_TOK_PUNCT && t->punct == punct;
}

const char *pp_spell(pp_state *st, const clc_token *t)
{
    return clc_arena_strndup(st->arena, t->text, t->length);
}

uint16_t pp_file_id(pp_state *st, const char *name, size_t length)
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

pp_tok *pp_new_tok(pp_state *st, const clc_token *t,
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
    if (hs == NULL)
        return 0;
    size_t low = 0, high = hs->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (hs->idents[middle] < ident)
            low = middle + 1;
        else
            high = middle;
    }
    return low < hs->count && hs->idents[low] == ident;
}

static pp_hideset *pp_hideset_new(pp_state *st, size_t count)
{
    pp_hideset *hs = clc_arena_alloc(st->arena,
                                     sizeof *hs + count * sizeof *hs->idents);
    hs->count = (uint32_t)count;
    return hs;
}

static const pp_hideset *pp_hideset_union(pp_state *st, const pp_hideset *a,
                                          const pp_hideset *b)
{
    if (a == NULL || a == b)
        return b;
    if (b == NULL)
        return a;
    /* Count first: when one holds the other, it is the answer. */
    size_t i = 0, j = 0, count = 0;
    while (i < a->count || j < b->count) {
        if (j == b->count || (i < a->count && a->idents[i] < b->idents[j]))
            ++i;
        else if (i == a->count || b->idents[j] < a->idents[i])
            ++j;
        else
            ++i, ++j;
        ++count;
    }
    if (count == b->count)
        return b;
    if (count == a->count)
        return a;
    pp_hideset *result = pp_hideset_new(st, count);
    i = j = count = 0;
    while (i < a->count || j < b->count) {
        if (j == b->count || (i < a->count && a->idents[i] < b->idents[j]))
            result->idents[count++] = a->idents[i++];
        else if (i == a->count || b->idents[j] < a->idents[i])
            result->idents[count++] = b->idents[j++];
        else
            result->idents[count++] = a->idents[i++], ++j;
    }
    return result;
}

static const pp_hideset *pp_hideset_add(pp_state *st, const pp_hideset *hs,
                                        int32_t ident)
{
    if (pp_hideset_contains(hs, ident))
        return hs;
    pp_hideset *one = pp_hideset_new(st, 1);
    one->idents[0] = ident;
    return pp_hideset_union(st, hs, one);
}

static const pp_hideset *pp_hideset_intersect(pp_state *st,
                                              const pp_hideset *a,
                                              const pp_hideset *b)
{
    if (a == NULL || b == NULL)
        return NULL;
    if (a == b)
        return a;
    size_t i = 0, j = 0, count = 0;
    while (i < a->count && j < b->count) {
        if (a->idents[i] < b->idents[j])
            ++i;
        else if (b->idents[j] < a->idents[i])
            ++j;
        else
            ++i, ++j, ++count;
    }
    if (count == 0)
        return NULL;
    if (count == a->count)
        return a;
    if (count == b->count)
        return b;
    pp_hideset *result = pp_hideset_new(st, count);
    i = j = count = 0;
    while (i < a->count && j < b->count) {
        if (a->idents[i] < b->idents[j])
            ++i;
        else if (b->idents[j] < a->idents[i])
            ++j;
        else
            result->idents[count++] = a->idents[i++], ++j;
    }
    return result;
}

pp_macro *pp_macro_get(pp_state *st, int32_t ident)
{
    if (ident < 0 || (size_t)ident >= st->macro_capacity)
        return NULL;
    return st->macros[ident];
}

void pp_macro_set(pp_state *st, int32_t ident, pp_macro *macro)
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

clc_token pp_file_token(pp_state *st, size_t pos)
{
    clc_token t = st->file_tokens[pos];
    long line = (long)t.line + st->line_delta;
    t.line = line > 0 ? (uint32_t)line : 1;
    t.file = st->file;
    return t;
}


/* The next token, unexpanded; directives in the file are carried out on
 * the way. */
pp_tok *pp_read(pp_state *st)
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

void pp_list_push(pp_list *list, pp_tok *tok)
{
    tok->next = NULL;
    if (list->tail)
        list->tail->next = tok;
    else
        list->head = tok;
    list->tail = tok;
}


/* Fully expands an argument on its own (C99 6.10.3.1). */
pp_tok *pp_expand_isolated(pp_state *st, pp_tok *list)
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
int pp_try_expand(pp_state *st, pp_tok *tok)
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
