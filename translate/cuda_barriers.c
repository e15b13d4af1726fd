/*
 * CUDA's barriers on OpenCL (see cuda_barriers.h for what and why).
 *
 * The phase reads the program's __global__ and __device__ functions,
 * parses the bodies of those that synchronise into statements, and finds
 * which values are the same in every thread of a block ("uniform"):
 * literals, blockIdx/blockDim/gridDim, kernel parameters, file-scope
 * constants, and local variables whose every assignment is uniform and
 * runs in every thread.  That decides, for each statement of a function
 * that synchronises, whether every thread runs it (the structure: blocks,
 * `if`s and loops on uniform conditions, barriers, uniform assignments)
 * or only active threads do (the rest, guarded).  A function is rewritten
 * only when a thread may leave it early before a barrier, or when a
 * kernel ends in an `if` that only some threads enter and that
 * synchronises; everything else is copied as it is.
 *
 * The output is CUDA C tokens again: the pass that follows sees ordinary
 * declarations, `goto`s and calls, so address spaces, helper instances
 * and hidden parameters work as for code the user wrote.
 *
 * The files, in the order the phase uses them: cuda_barriers_read.c (the
 * program's functions; the output), cuda_barriers_tokens.c (tokens, what
 * is uniform), cuda_barriers_analyse.c (statements and their classes),
 * cuda_barriers_lower.c (a function rewritten), and here the phase's
 * driver; cuda_barriers_pass.h is what they share.
 */
#include "cuda_barriers_pass.h"

#include <stdio.h>
#include <string.h>

/* ---- the phase --------------------------------------------------------------------- */

static int bx_analyse(bx_state *st)
{
    int any_sync = 0;
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated)
            continue;
        bx_read_params(st, f);
    }
    /* warp-synchronous code of the functions' own */
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated)
            continue;
        f->body = bx_parse(st, f->body_open, f->body_close + 1, 0);
        if (f->body != NULL && bx_lockstep_direct(st, f->body))
            f->lockstep = f->lockstep_memory = 1;
        if (f->body != NULL && bx_range_warp(st, f->body_open, f->body_close))
            f->lockstep = f->uses_warp = 1;
    }
    /* what synchronises, through calls */
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = 0; k < st->function_count; ++k) {
            bx_function *f = &st->functions[k];
            for (size_t c = 0; c < f->call_count; ++c) {
                const bx_function *g = &st->functions[f->calls[c].callee];
                if ((g->hard && !f->hard) || (g->lockstep && !f->lockstep) ||
                    (g->lockstep_memory && !f->lockstep_memory)) {
                    f->hard |= g->hard;
                    f->lockstep |= g->lockstep;
                    f->lockstep_memory |= g->lockstep_memory;
                    changed = 1;
                }
            }
        }
    }
    for (size_t k = 0; k < st->function_count; ++k)
        st->functions[k].sync = st->functions[k].hard || st->functions[k].lockstep;
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated || !f->sync)
            continue;
        if (f->body == NULL)
            continue; /* not a body this phase can read: left as it is */
        f->analysed = 1;

        any_sync = 1;
        bx_mark_sync(st, f->body);
        bx_mark_place(st, f->body, 0, f->is_kernel);
    }
    if (!any_sync)
        return 0;
    /* what is uniform, to a fixed point: values only ever become varying */
    do {
        st->changed = 0;
        for (size_t k = 0; k < st->function_count; ++k)
            if (st->functions[k].analysed)
                bx_classify(st, &st->functions[k], st->functions[k].body);
        bx_parameters_from_calls(st);
    } while (st->changed);
    int lowered = 0;
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->analysed)
            continue;
        size_t trigger = bx_divergent_return(st, f->body, 0);
        if (trigger == 0 && f->is_kernel)
            trigger = bx_end_if(f->body);
        if (trigger == 0 && f->lockstep)
            trigger = bx_lockstep_at(st, f);
        if (trigger) {
            f->lowered = 1;
            f->trigger = trigger;
            lowered = 1;
        }
    }
    /* a function that synchronises, called where threads may have
     * returned, takes the caller's flag */
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = 0; k < st->function_count; ++k) {
            bx_function *f = &st->functions[k];
            if (!f->lowered)
                continue;
            for (size_t c = 0; c < f->call_count; ++c) {
                bx_function *g = &st->functions[f->calls[c].callee];
                if (!g->sync || g->is_kernel || g->takes_active)
                    continue;
                if (!g->analysed)
                    bx_refuse(st, f->calls[c].token,
                              "cannot translate the call of '%s': a function "
                              "that synchronises, called after threads may "
                              "have returned early (line %u), whose body the "
                              "translation cannot read",
                              bx_name(st, f->calls[c].token),
                              st->tokens[f->trigger].line);
                g->takes_active = 1;
                g->lowered = 1;
                if (g->trigger == 0)
                    g->trigger = f->trigger;
                changed = 1;
            }
        }
    }
    return lowered;
}

/* assert(c) -> ((c) ? (void)0 : __kiln_assert_failed(__kiln_assert,
 * "file:line: c")); returns how many. */
static size_t bx_edit_asserts(bx_state *st)
{
    size_t found = 0;
    for (size_t k = 0; k < st->function_count; ++k) {
        const bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated)
            continue;
        for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
            if (!bx_is(st, i, st->w_assert) || !bx_punct(st, i + 1, P_LPAREN) ||
                bx_is_member(st, i))
                continue;
            size_t open = i + 1, close = st->match[open];
            clc_buffer site;
            clc_buffer_init(&site, st->arena);
            const clc_token *t = &st->tokens[i];
            const char *file = st->failure->file_names != NULL &&
                                       st->failure->file_count != NULL &&
                                       t->file < *st->failure->file_count
                                   ? st->failure->file_names[t->file]
                                   : "<kiln program>";
            clc_buffer_printf(&site, "%s:%u: ", file, (unsigned)t->line);
            for (size_t k2 = open + 1; k2 < close && site.length < 200; ++k2) {
                const clc_token *c = &st->tokens[k2];
                if (k2 > open + 1 && (c->flags & CLC_TF_SPACE))
                    clc_buffer_append(&site, " ", 1);
                for (uint32_t q = 0; q < c->length; ++q) {
                    char ch = c->text[q];
                    if (ch == '"' || ch == '\\')
                        clc_buffer_append(&site, "\\", 1);
                    if (ch == '\n' || ch == '\r' || ch == '\t')
                        ch = ' ';
                    clc_buffer_append(&site, &ch, 1);
                }
            }
            st->replace[i] = "(";
            st->after[close] = bx_printf(st, "? (void)0 : __kiln_assert_failed("
                                             TRANSLATE_ASSERT_VARIABLE ", \"%s\"))",
                                         clc_buffer_text(&site));
            ++found;
            i = close;
        }
    }
    return found;
}

/* A warp primitive's name (cuda_barriers_warp.c has the list). */
static int bx_warp_word(const clc_token *t)
{
    static const char *const prefixes[] = {
        "__shfl", "__ballot_sync", "__any_sync", "__all_sync", "__activemask",
        "__reduce_"};
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; ++k) {
        size_t n = strlen(prefixes[k]);
        if (t->length >= n && memcmp(t->text, prefixes[k], n) == 0)
            return 1;
    }
    return 0;
}

void cuda_lower_barriers(clc_arena *arena, clc_interner *interner,
                         clc_failure *failure, volatile int *unsupported,
                         int asserts, clc_token **tokens, size_t *count)
{
    size_t n = *count ? *count - 1 : 0;
    /* quick: most programs never synchronise */
    int syncs = 0;
    for (size_t i = 0; i < n && !syncs; ++i)
        syncs = (*tokens)[i].kind == CLC_TOK_IDENT &&
                ((asserts && (*tokens)[i].length == 6 &&
                  memcmp((*tokens)[i].text, "assert", 6) == 0) ||
                (((*tokens)[i].length == 10 &&
                  memcmp((*tokens)[i].text, "__syncwarp", 10) == 0) ||
                 ((*tokens)[i].length == 8 &&
                  memcmp((*tokens)[i].text, "volatile", 8) == 0) ||
                 ((*tokens)[i].length >= 13 &&
                  memcmp((*tokens)[i].text, "__syncthreads", 13) == 0) ||
                 bx_warp_word(&(*tokens)[i])));
    if (!syncs)
        return;
    bx_state *st = clc_arena_alloc(arena, sizeof *st);
    st->arena = arena;
    st->interner = interner;
    st->failure = failure;
    st->unsupported = unsupported;
    st->tokens = *tokens;
    st->count = n;
    st->asserts = asserts;
    if (!bx_match_brackets(st))
        return; /* the pass reports it */
    bx_intern_words(st);
    st->w_assert = clc_intern(interner, "assert", 6);
    st->function_of = clc_arena_alloc(arena, (st->ident_count + 1) *
                                                 sizeof *st->function_of);
    clc_symbols_init(&st->symbols, arena, interner, CLC_LANGUAGE_CUDA_C,
                     st->tokens, st->count, st->match);
    clc_symbols_scan(&st->symbols);
    /* the interner grew while scanning: words are looked up by id below
     * only for ids the phase interned, the rest read as BX_W_NONE */
    st->symbol_flags = clc_arena_alloc(arena, st->symbols.symbol_count + 1);
    if (!bx_read_functions(st))
        return;
    int lowered = bx_analyse(st);
    int votes = 0;
    for (size_t k = 0; k < st->function_count; ++k)
        votes |= st->functions[k].uses_votes && st->functions[k].translated;
    st->before = clc_arena_alloc(arena, (n + 1) * sizeof *st->before);
    st->replace = clc_arena_alloc(arena, (n + 1) * sizeof *st->replace);
    st->after = clc_arena_alloc(arena, (n + 1) * sizeof *st->after);
    /* a user's own function named assert is theirs */
    size_t asserts_found =
        st->asserts && st->function_of[st->w_assert] == 0 ? bx_edit_asserts(st) : 0;
    if (!lowered && !votes && !asserts_found)
        return;
    if (asserts_found)
        st->before[0] = "__device__ unsigned int " TRANSLATE_ASSERT_VARIABLE
                        "[" "64" "];";
    /* one scratch for the warp primitives of every function (the pass
     * gives each kernel one, and its helpers a pointer to it) */
    int warp = 0;
    for (size_t k = 0; k < st->function_count; ++k)
        warp |= st->functions[k].uses_warp && st->functions[k].lowered;
    if (warp)
        st->before[0] = bx_printf(st, "%s__shared__ unsigned long long "
                                      "__kiln_warp[1024];",
                                  st->before[0] ? st->before[0] : "");
    /* prototypes and calls of functions that take the caller's flag, and
     * the votes of functions that are not lowered */
    for (size_t p = 0; p < st->prototype_count; ++p) {
        const bx_prototype *proto = &st->prototypes[p];
        if (!st->functions[proto->fn].takes_active)
            continue;
        int none = proto->close == proto->open + 1;
        if (bx_is(st, proto->open + 1, W_void) && proto->close == proto->open + 2) {
            st->replace[proto->open + 1] = "int __kiln_active";
            continue;
        }
        st->before[proto->close] = none ? "int __kiln_active" : ", int __kiln_active";
    }
    for (size_t k = 0; k < st->function_count; ++k) {
        bx_function *f = &st->functions[k];
        if (!f->defined || !f->translated || f->lowered)
            continue;
        if (f->uses_votes) {
            bx_edit_votes(st, f->body_open, f->body_close, 0);
            st->after[f->body_open] = "__shared__ int __kiln_vote[1];";
        }
        for (size_t c = 0; c < f->call_count; ++c) {
            if (!st->functions[f->calls[c].callee].takes_active)
                continue;
            size_t open = f->calls[c].token + 1, close = st->match[open];
            st->before[close] = close == open + 1 ? "1" : ", 1";
        }
    }
    size_t *lowered_at = clc_arena_alloc(arena, (n + 1) * sizeof *lowered_at);
    for (size_t k = 0; k < st->function_count; ++k)
        if (st->functions[k].lowered)
            lowered_at[st->functions[k].begin] = k + 1;
    for (size_t i = 0; i < n;) {
        bx_function *f = lowered_at[i] ? &st->functions[lowered_at[i] - 1] : NULL;
        if (f != NULL) {
            bx_emit_function(st, f);
            i = f->body_close + 1;
            continue;
        }
        bx_copy(st, i, i + 1);
        ++i;
    }
    bx_put(st, &(*tokens)[n]); /* EOF */
    *tokens = st->out;
    *count = st->out_count;
}
