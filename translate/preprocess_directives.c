/*
 * The preprocessor's directives: #define and #undef, the conditional
 * groups, #pragma and _Pragma (OpenCL's EXTENSION and FP_CONTRACT kept,
 * unroll passed on), #line, #error, and the dispatch of every directive
 * (#include is preprocess_include.c's).
 */
#include "preprocess_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

pp_tok *pp_line_list(pp_state *st, size_t begin, size_t end)
{
    pp_list list = {NULL, NULL};
    for (size_t i = begin; i < end; ++i) {
        clc_token t = pp_file_token(st, i);
        pp_list_push(&list, pp_new_tok(st, &t, NULL));
    }
    return list.head;
}

clc_token *pp_list_to_array(pp_state *st, const pp_tok *list,
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
            if (d->kind == CLC_TOK_IDENT && !(d->flags & CLC_TF_BOL) &&
                d->ident == W_include)
                pp_probe_skipped_include(st, st->file_pos + 2);
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

void pp_emit(pp_state *st, const clc_token *t)
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


/* #if, #ifdef and #ifndef: a group opens, skipped unless taken. */
static void pp_if(pp_state *st, const clc_token *hash, int32_t directive,
                  size_t begin, size_t end)
{
    int value;
    if (directive == W_if) {
        value = pp_eval_condition(st, hash, begin, end);
    } else {
        if (begin == end || st->file_tokens[begin].kind != CLC_TOK_IDENT)
            clc_fail(st->failure, hash->file, hash->line,
                     "#%s needs a macro name",
                     directive == W_ifdef ? "ifdef" : "ifndef");
        value = pp_macro_get(st, st->file_tokens[begin].ident) != NULL;
        if (directive == W_ifndef)
            value = !value;
    }
    pp_push_cond(st, hash, value);
    if (!value)
        pp_skip_group(st);
}

/* #elif and #else: the next group of the innermost #if, taken when none
 * before it was and its condition holds. */
static void pp_else(pp_state *st, const clc_token *hash, int32_t directive,
                    size_t begin, size_t end)
{
    const char *spelling = directive == W_elif ? "elif" : "else";
    if (st->cond_count == 0)
        clc_fail(st->failure, hash->file, hash->line, "#%s without #if",
                 spelling);
    pp_cond *cond = &st->conds[st->cond_count - 1];
    if (cond->seen_else)
        clc_fail(st->failure, hash->file, hash->line, "#%s after #else",
                 spelling);
    if (directive == W_else)
        cond->seen_else = 1;
    if (cond->taken) {
        pp_skip_group(st);
        return;
    }
    int value =
        directive == W_else ? 1 : pp_eval_condition(st, hash, begin, end);
    if (value)
        cond->taken = 1;
    else
        pp_skip_group(st);
}

/* #include, #include_next and #import: read through the reader, left to
 * the compiler when only expanding, else a file that cannot be found. */
static void pp_include_directive(pp_state *st, const clc_token *hash,
                                 int32_t directive, size_t begin, size_t end)
{
    if (directive == W_include && st->reader != NULL) {
        pp_include(st, hash, begin, end);
        return;
    }
    if (st->expand_only) {
        pp_note_left(st, hash,
                     directive == W_import    ? "#import"
                     : directive == W_include ? "#include"
                                              : "#include_next",
                     1);
        return; /* left to the compiler */
    }
    clc_buffer what;
    clc_buffer_init(&what, st->arena);
    for (size_t i = begin; i < end; ++i)
        clc_buffer_append(&what, st->file_tokens[i].text,
                          st->file_tokens[i].length);
    clc_fail(st->failure, hash->file, hash->line,
             "cannot include %s: the file was not found in the "
             "program's include directories",
             what.length ? clc_buffer_text(&what) : "(nothing)");
}

/* #error fails with its text, unless the compiler is left to decide. */
static void pp_error_directive(pp_state *st, const clc_token *hash,
                               size_t begin, size_t end)
{
    if (st->expand_only)
        return; /* the compiler, with its own macros, decides */
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    for (size_t i = begin; i < end; ++i) {
        if (i > begin && (st->file_tokens[i].flags & CLC_TF_SPACE))
            clc_buffer_append(&text, " ", 1);
        clc_buffer_append(&text, st->file_tokens[i].text,
                          st->file_tokens[i].length);
    }
    clc_fail(st->failure, hash->file, hash->line, "#error %s",
             clc_buffer_text(&text));
}

/* #pragma once, or any other pragma (kept for the compiler). */
static void pp_pragma_directive(pp_state *st, const clc_token *hash,
                                size_t begin, size_t end)
{
    if (begin < end && st->file_tokens[begin].kind == CLC_TOK_IDENT &&
        st->file_tokens[begin].length == 4 &&
        memcmp(st->file_tokens[begin].text, "once", 4) == 0) {
        pp_pragma_once(st);
        return;
    }
    pp_pragma(st, hash, pp_line_list(st, begin, end));
}

void pp_directive(pp_state *st, const clc_token *hash)
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
        clc_fail(st->failure, hash->file, hash->line,
                 "invalid preprocessing directive '#%s'", pp_spell(st, &name));
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
    case W_ifndef:
        pp_if(st, hash, name.ident, begin, end);
        return;
    case W_elif:
    case W_else:
        pp_else(st, hash, name.ident, begin, end);
        return;
    case W_endif:
        if (st->cond_count == 0)
            pp_fail_at(st, hash, "#endif without #if");
        st->cond_count--;
        return;
    case W_include:
    case W_include_next:
    case W_import:
        pp_include_directive(st, hash, name.ident, begin, end);
        return;
    case W_error:
        pp_error_directive(st, hash, begin, end);
        return;
    case W_warning:
    case W_ident:
    case W_sccs:
        return;
    case W_line:
        pp_line_directive(st, hash, begin, end, directive_raw_line);
        return;
    case W_pragma:
        pp_pragma_directive(st, hash, begin, end);
        return;
    default:
        if (st->expand_only)
            return;
        clc_fail(st->failure, hash->file, hash->line,
                 "unknown preprocessing directive '#%s'", pp_spell(st, &name));
    }
}

/* _Pragma("text"): destringized and handled as #pragma text. */
void pp_pragma_operator(pp_state *st, pp_tok *tok)
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
