/*
 * The C++ phase's entry point (see cxx.h): whether a program needs it, the
 * reading of CUDA's declarations and of the program, the kernels the host
 * asked for by name, the functions as they are needed, and the output in
 * the order C needs: types, prototypes, definitions.
 */
#include "cxx_internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- failure and plumbing ------------------------------------------------------------ */

static CLC_NORETURN void cx_fail_va(cx_state *st, size_t at, int unsupported,
                                    const char *format, va_list args)
    CLC_PRINTF(4, 0);
static void cx_fail_va(cx_state *st, size_t at, int unsupported,
                       const char *format, va_list args)
{
    char message[640];
    vsnprintf(message, sizeof message, format, args);
    if (unsupported)
        *st->unsupported = 1;
    const clc_token *t = at < st->count ? &st->tokens[at] : NULL;
    if (t != NULL && at < st->user_begin)
        t = NULL; /* the builtins': no line of the user's */
    if (t == NULL && st->count > st->user_begin && at >= st->count)
        t = &st->tokens[st->count - 1];
    clc_fail(st->failure, t ? (int)t->file : -1, t ? t->line : 0, "%s", message);
}

void cx_fail(cx_state *st, size_t at, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    cx_fail_va(st, at, 0, format, args);
}

void cx_refuse(cx_state *st, size_t at, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    cx_fail_va(st, at, 1, format, args);
}

char *cx_printf(cx_state *st, const char *format, ...)
{
    char small[256];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (n < 0)
        n = 0;
    char *text = clc_arena_strndup(st->arena, small,
                                   (size_t)n < sizeof small ? (size_t)n : 0);
    if ((size_t)n < sizeof small)
        return text;
    text = clc_arena_alloc(st->arena, (size_t)n + 1);
    va_start(args, format);
    vsnprintf(text, (size_t)n + 1, format, args);
    va_end(args);
    return text;
}

/* Arrays that grow one item at a time: their room is the power of two
 * at or above their count (8 at least), so a full one doubles. */
void *cx_grow(cx_state *st, void *items, size_t count, size_t size)
{
    if (count != 0 && (count < 8 || (count & (count - 1)) != 0))
        return items;
    size_t capacity = count == 0 ? 8 : count * 2;
    void *fresh = clc_arena_alloc(st->arena, capacity * size);
    if (count > 0)
        memcpy(fresh, items, count * size);
    return fresh;
}

const char *cx_spelling(cx_state *st, size_t i)
{
    if (i >= st->count)
        return "";
    return clc_arena_strndup(st->arena, st->tokens[i].text, st->tokens[i].length);
}

static void cx_intern_words(cx_state *st)
{
#define CX_WORD(field, text) \
    st->w.field = clc_intern(st->interner, text, strlen(text))
    CX_WORD(template_, "template");
    CX_WORD(typename_, "typename");
    CX_WORD(class_, "class");
    CX_WORD(namespace_, "namespace");
    CX_WORD(using_, "using");
    CX_WORD(operator_, "operator");
    CX_WORD(this_, "this");
    CX_WORD(decltype_, "decltype");
    CX_WORD(constexpr_, "constexpr");
    CX_WORD(nullptr_, "nullptr");
    CX_WORD(explicit_, "explicit");
    CX_WORD(friend_, "friend");
    CX_WORD(public_, "public");
    CX_WORD(private_, "private");
    CX_WORD(protected_, "protected");
    CX_WORD(virtual_, "virtual");
    CX_WORD(new_, "new");
    CX_WORD(delete_, "delete");
    CX_WORD(static_cast_, "static_cast");
    CX_WORD(reinterpret_cast_, "reinterpret_cast");
    CX_WORD(const_cast_, "const_cast");
    CX_WORD(dynamic_cast_, "dynamic_cast");
    CX_WORD(alignof_, "alignof");
    CX_WORD(alignas_, "alignas");
    CX_WORD(noexcept_, "noexcept");
    CX_WORD(throw_, "throw");
    CX_WORD(try_, "try");
    CX_WORD(catch_, "catch");
    CX_WORD(mutable_, "mutable");
    CX_WORD(override_, "override");
    CX_WORD(final_, "final");
    CX_WORD(typeid_, "typeid");
    CX_WORD(device_, "__device__");
    CX_WORD(global_, "__global__");
    CX_WORD(host_, "__host__");
    CX_WORD(shared_, "__shared__");
    CX_WORD(constant_, "__constant__");
    CX_WORD(forceinline_, "__forceinline__");
    CX_WORD(noinline_, "__noinline__");
    CX_WORD(launch_bounds_, "__launch_bounds__");
    CX_WORD(align_, "__align__");
    CX_WORD(managed_, "__managed__");
    CX_WORD(grid_constant_, "__grid_constant__");
    CX_WORD(restrict_, "__restrict__");
    CX_WORD(std_, "std");
    CX_WORD(dim3_, "dim3");
    CX_WORD(x_, "x");
    CX_WORD(y_, "y");
    CX_WORD(z_, "z");
    CX_WORD(w_, "w");
    CX_WORD(consteval_, "consteval");
    CX_WORD(constinit_, "constinit");
    CX_WORD(thread_local_, "thread_local");
    CX_WORD(static_assert_, "static_assert");
    CX_WORD(if_, "if");
    CX_WORD(extern_, "extern");
#undef CX_WORD
    st->ctor_name = clc_intern(st->interner, "<constructor>", 13);
    st->conversion_name = clc_intern(st->interner, "operator conversion", 19);
    st->this_name = clc_intern(st->interner, "__kiln_this", 11);
}

static void cx_match_brackets(cx_state *st)
{
    size_t n = st->count + 1;
    st->match = clc_arena_alloc(st->arena, n * sizeof *st->match);
    size_t *stack = clc_arena_alloc(st->arena, n * sizeof *stack);
    size_t depth = 0;
    for (size_t i = 0; i < st->count; ++i) {
        st->match[i] = i;
        if (st->tokens[i].kind != CLC_TOK_PUNCT)
            continue;
        int p = st->tokens[i].punct;
        if (p == P_LPAREN || p == P_LBRACKET || p == P_LBRACE) {
            stack[depth++] = i;
        } else if (p == P_RPAREN || p == P_RBRACKET || p == P_RBRACE) {
            int open = p == P_RPAREN ? P_LPAREN
                       : p == P_RBRACKET ? P_LBRACKET : P_LBRACE;
            if (depth == 0 || !cx_punct(st, stack[depth - 1], open))
                cx_fail(st, i, "unbalanced '%s'", clc_punct_spelling((clc_punct)p));
            size_t o = stack[--depth];
            st->match[o] = i;
            st->match[i] = o;
        }
    }
    if (depth > 0)
        cx_fail(st, stack[depth - 1], "'%s' is never closed",
                clc_punct_spelling((clc_punct)st->tokens[stack[depth - 1]].punct));
    st->match[st->count] = st->count;
}

/* ---- does the program need this phase? ------------------------------------------------- */

static int cx_is_word(const clc_interner *in, const clc_token *t,
                      const char *word)
{
    if (t->kind != CLC_TOK_IDENT)
        return 0;
    const clc_ident *id = clc_ident_get(in, t->ident);
    return id->length == strlen(word) && memcmp(id->name, word, id->length) == 0;
}

static int cx_needs_lowering(const clc_token *tokens, size_t count,
                             clc_interner *in)
{
    static const char *const words[] = {
        "template", "typename", "namespace", "using", "class", "operator",
        "this", "decltype", "constexpr", "static_assert", "explicit",
        "friend", "virtual", "mutable", "public", "protected", "auto",
        "consteval", "noexcept", "new", "delete", "throw", "try", "typeid",
        "dynamic_cast", "cooperative_groups",
    };
    int32_t ids[sizeof words / sizeof words[0]];
    for (size_t k = 0; k < sizeof words / sizeof words[0]; ++k)
        ids[k] = clc_intern(in, words[k], strlen(words[k]));
    int fp16, bf16; /* cuda_fp16.h's and cuda_bf16.h's types are classes */
    if (cx_half_used(tokens, count, &fp16, &bf16))
        return 1;
    int depth = 0;
    int struct_depth = -1;   /* the brace depth of a struct's body */
    int pending_struct = 0;
    int paren = 0;
    for (size_t i = 0; i + 1 < count; ++i) {
        const clc_token *t = &tokens[i];
        if (t->kind == CLC_TOK_IDENT) {
            for (size_t k = 0; k < sizeof ids / sizeof ids[0]; ++k)
                if (t->ident == ids[k])
                    return 1;
            if (t->ident == W_struct || t->ident == W_union) {
                pending_struct = 1;
                /* struct D : B { */
                if (i + 2 < count && tokens[i + 1].kind == CLC_TOK_IDENT &&
                    tokens[i + 2].kind == CLC_TOK_PUNCT &&
                    tokens[i + 2].punct == P_COLON &&
                    !(tokens[i + 3].kind == CLC_TOK_PUNCT &&
                      tokens[i + 3].punct == P_COLON))
                    return 1;
            }
            continue;
        }
        if (t->kind != CLC_TOK_PUNCT)
            continue;
        switch (t->punct) {
        case P_COLON:
            if (tokens[i + 1].kind == CLC_TOK_PUNCT && tokens[i + 1].punct == P_COLON &&
                !(tokens[i + 1].flags & CLC_TF_SPACE))
                return 1;
            break;
        case P_AMP:
            /* T &name, or T &name) in a declaration: a reference */
            if (i > 0 && i + 2 < count && tokens[i + 1].kind == CLC_TOK_IDENT &&
                (tokens[i - 1].kind == CLC_TOK_IDENT ||
                 (tokens[i - 1].kind == CLC_TOK_PUNCT &&
                  (tokens[i - 1].punct == P_GT || tokens[i - 1].punct == P_STAR))) &&
                tokens[i + 2].kind == CLC_TOK_PUNCT &&
                (tokens[i + 2].punct == P_COMMA || tokens[i + 2].punct == P_RPAREN ||
                 tokens[i + 2].punct == P_ASSIGN || tokens[i + 2].punct == P_SEMI))
                return 1;
            break;
        case P_LBRACE:
            if (pending_struct && struct_depth < 0)
                struct_depth = depth + 1;
            pending_struct = 0;
            depth++;
            break;
        case P_RBRACE:
            if (depth == struct_depth)
                struct_depth = -1;
            depth--;
            break;
        case P_LPAREN:
            /* a member function in a struct's body */
            if (struct_depth >= 0 && depth == struct_depth && paren == 0 &&
                i > 0 && tokens[i - 1].kind == CLC_TOK_IDENT &&
                tokens[i - 1].ident != W___attribute__ &&
                !cx_is_word(in, &tokens[i - 1], "__align__") &&
                !cx_is_word(in, &tokens[i - 1], "alignas"))
                return 1;
            paren++;
            break;
        case P_RPAREN:
            paren--;
            break;
        case P_ASSIGN:
            /* a default argument: '=' inside a declaration's parameters */
            if (paren == 1 && depth == 0)
                return 1;
            break;
        case P_SEMI:
            pending_struct = 0;
            break;
        default:
            break;
        }
    }
    /* a function defined twice at file scope: overloads */
    size_t defined = 0;
    int32_t *names = NULL;
    size_t capacity = 0;
    (void)capacity;
    depth = 0;
    for (size_t i = 0; i + 1 < count; ++i) {
        const clc_token *t = &tokens[i];
        if (t->kind == CLC_TOK_PUNCT && t->punct == P_LBRACE)
            depth++;
        else if (t->kind == CLC_TOK_PUNCT && t->punct == P_RBRACE)
            depth--;
        else if (depth == 0 && t->kind == CLC_TOK_IDENT && i + 1 < count &&
                 tokens[i + 1].kind == CLC_TOK_PUNCT && tokens[i + 1].punct == P_LPAREN) {
            /* its ')' followed by '{' */
            size_t k = i + 2;
            int level = 1;
            while (k < count && level > 0) {
                if (tokens[k].kind == CLC_TOK_PUNCT && tokens[k].punct == P_LPAREN)
                    level++;
                else if (tokens[k].kind == CLC_TOK_PUNCT && tokens[k].punct == P_RPAREN)
                    level--;
                ++k;
            }
            if (k < count && tokens[k].kind == CLC_TOK_PUNCT && tokens[k].punct == P_LBRACE) {
                for (size_t q = 0; q < defined; ++q)
                    if (names[q] == t->ident)
                        return 1;
                if ((defined & (defined - 1)) == 0) {
                    size_t room = defined ? defined * 2 : 16;
                    int32_t *fresh = clc_arena_alloc(in->arena, room * sizeof *fresh);
                    if (defined)
                        memcpy(fresh, names, defined * sizeof *fresh);
                    names = fresh;
                }
                names[defined++] = t->ident;
            }
        }
    }
    return 0;
}

/* ---- kernels by name ------------------------------------------------------------------ */

static void cx_kernel_add(cx_state *st, const char *expression,
                          const char *function)
{
    for (size_t k = 0; k < st->kernel_count; ++k)
        if (strcmp(st->kernels[k].expression, expression) == 0)
            return;
    st->kernels = cx_grow(st, st->kernels, st->kernel_count, sizeof *st->kernels);
    st->kernels[st->kernel_count].expression = expression;
    st->kernels[st->kernel_count].function = function;
    st->kernel_count++;
}

static const char *cx_canonical(cx_state *st, cx_decl *decl)
{
    cx_function *fn = decl->fn;
    if (fn->from == NULL)
        return cx_qualified_name(st, decl);
    clc_buffer b;
    clc_buffer_init(&b, st->arena);
    clc_buffer_puts(&b, cx_qualified_name(st, fn->from->decl));
    clc_buffer_puts(&b, "<");
    for (size_t k = 0; k < fn->from->param_count; ++k)
        clc_buffer_printf(&b, "%s%s", k ? ", " : "", cx_describe(st, fn->args[k]));
    clc_buffer_puts(&b, ">");
    return clc_buffer_text(&b);
}

static void cx_request(cx_state *st, const char *text, size_t begin, size_t end)
{
    cx_body ctx = {0};
    ctx.scope = st->global;
    cx_name name;
    if (begin >= end || !cx_parse_name(st, &ctx, begin, end, &name) ||
        name.last + 1 != end)
        clc_fail(st->failure, -1, 0, "the kernel name '%s' is not a name or a "
                                     "template's instance", text);
    cx_decl *d = cx_resolve(name.decl);
    cx_decl *kernel = NULL;
    if (d == NULL)
        clc_fail(st->failure, -1, 0, "no kernel '%s' in this program", text);
    if (name.has_targs) {
        for (cx_decl *t = d; t != NULL && kernel == NULL; t = t->same) {
            cx_decl *r = cx_resolve(t);
            if (r->kind != CXD_TEMPLATE || r->tmpl->kind != CXTM_FUNCTION ||
                !(r->tmpl->flags & CXF_KERNEL) ||
                name.targ_count > r->tmpl->param_count)
                continue;
            const cx_type **full;
            cx_bind(st, r->tmpl, r->tmpl->scope, name.targs, name.targ_count,
                    begin, &full);
            kernel = cx_function_instance(
                st, r->tmpl, cx_type_list(st, full, r->tmpl->param_count), begin);
        }
    } else {
        for (cx_decl *t = d; t != NULL; t = t->same) {
            cx_decl *r = cx_resolve(t);
            if (r->kind == CXD_FUNCTION && (r->flags & CXF_KERNEL))
                kernel = r;
        }
    }
    if (kernel == NULL)
        clc_fail(st->failure, -1, 0, "no __global__ function '%s' in this "
                                     "program", text);
    cx_use_function(st, kernel);
    const char *function = cx_function_cname(st, kernel);
    cx_kernel_add(st, clc_arena_strndup(st->arena, text, strlen(text)), function);
    cx_kernel_add(st, cx_canonical(st, kernel), function);
}

/* ---- the output ------------------------------------------------------------------------ */

/* Reads fn's body.  A refusal inside (a construct OpenCL C cannot
 * express) is fn's, not the program's, as the pass below has it: fn is
 * emitted with an empty body and refused there with the message. */
static void cx_read_body_or_refuse(cx_state *st, cx_function *fn)
{
    jmp_buf saved;
    memcpy(saved, st->failure->unwind, sizeof saved);
    if (setjmp(st->failure->unwind) == 0) {
        cx_read_body(st, fn);
        memcpy(st->failure->unwind, saved, sizeof saved);
        return;
    }
    memcpy(st->failure->unwind, saved, sizeof saved);
    /* not a refusal: the program's own error, the whole program's */
    if (!*st->unsupported || st->failure->out_of_memory ||
        st->failure->message == NULL)
        longjmp(st->failure->unwind, 1);
    fn->refusal = clc_arena_strndup(st->arena, st->failure->message,
                                    strlen(st->failure->message));
    fn->refusal_line = st->failure->line;
    free(st->failure->message);
    st->failure->message = NULL;
    st->failure->line = 0;
    *st->unsupported = 0;
    fn->edits = NULL;
    fn->state = 2;
}

static void cx_drain(cx_state *st)
{
    while (st->queue_head < st->queue_count) {
        cx_function *fn = st->queue[st->queue_head++];
        st->current = fn;
        cx_read_body_or_refuse(st, fn);
        st->current = NULL;
        st->functions = cx_grow(st, st->functions, st->function_count,
                                sizeof *st->functions);
        st->functions[st->function_count++] = fn;
    }
}

static void cx_emit_items(cx_state *st)
{
    for (size_t k = 0; k < st->item_count; ++k) {
        cx_item *item = &st->items[k];
        switch (item->kind) {
        case CXI_RECORD:
            if (item->decl->rec->unreadable == NULL)
                cx_emit_record(st, item->decl);
            break;
        case CXI_ENUM:
            cx_emit_enum(st, item->decl);
            break;
        case CXI_TYPEDEF:
            cx_emit_typedef(st, item->decl);
            break;
        case CXI_VARIABLE:
            cx_emit_variable(st, item->decl);
            break;
        case CXI_PRAGMA: {
            clc_token t = st->tokens[item->begin];
            st->types_out.tokens = clc_arena_grow(
                st->arena, st->types_out.tokens, st->types_out.count,
                &st->types_out.capacity, sizeof t, 256);
            st->types_out.tokens[st->types_out.count++] = t;
            break;
        }
        default:
            break;
        }
    }
}

/* Functions in an order where each comes after the ones it calls, so
 * that only a recursive one (refused by OpenCL compilers) needs a
 * prototype. */
static void cx_order(cx_state *st, cx_function *fn, cx_function ***order,
                     size_t *count)
{
    if (fn->emit_state == 2)
        return;
    if (fn->emit_state == 1) {
        fn->needs_prototype = 1;
        return;
    }
    fn->emit_state = 1;
    for (size_t k = 0; k < fn->callee_count; ++k)
        if (fn->callees[k]->state == 2)
            cx_order(st, fn->callees[k], order, count);
    fn->emit_state = 2;
    *order = cx_grow(st, *order, *count, sizeof **order);
    (*order)[(*count)++] = fn;
}

static void cx_append_out(cx_state *st, cx_out *to, const cx_out *from)
{
    (void)st;
    /* `to` was made with room for all */
    if (from->count > 0)
        memcpy(to->tokens + to->count, from->tokens,
               from->count * sizeof *to->tokens);
    to->count += from->count;
}

void cxx_lower(clc_arena *arena, clc_interner *interner,
               volatile int *unsupported, const clc_token *tokens,
               size_t count, const char *const *requests,
               size_t request_count, unsigned headers, int force,
               cxx_lowering *out)
{
    memset(out, 0, sizeof *out);
    int no_fp64 = (headers & CLC_CUDA_NO_FP64) != 0;
    headers &= CLC_CUDA_FP16 | CLC_CUDA_BF16;
    if (!force && request_count == 0 && headers == 0 &&
        !cx_needs_lowering(tokens, count, interner)) {
        out->tokens = (clc_token *)tokens;
        out->count = count;
        return;
    }
    cx_state *st = clc_arena_alloc(arena, sizeof *st);
    st->arena = arena;
    st->interner = interner;
    st->failure = arena->failure;
    st->unsupported = unsupported;
    cx_intern_words(st);

    /* the builtins, the program, the names asked for: one token array */
    const char *builtins = cx_builtins_source(st);
    clc_token_array lexed = {0};
    lexed.capacity = strlen(builtins) / 3 + 64; /* room enough: no regrowth */
    lexed.tokens = clc_arena_alloc(arena, lexed.capacity * sizeof *lexed.tokens);
    uint16_t file = count > 0 ? tokens[0].file : 0;
    clc_lex(builtins, strlen(builtins), file, 0, arena, interner, &lexed);
    size_t builtin_count = lexed.count - 1;
    const char *library =
        cx_library_source(arena, tokens, count, interner, headers);
    clc_token_array library_lexed = {0};
    if (library != NULL) {
        library_lexed.capacity = strlen(library) / 2 + 64;
        library_lexed.tokens = clc_arena_alloc(
            arena, library_lexed.capacity * sizeof *library_lexed.tokens);
        clc_lex(library, strlen(library), file, 1, arena, interner,
                &library_lexed);
    }
    size_t library_count = library != NULL ? library_lexed.count - 1 : 0;
    size_t user_count = count > 0 ? count - 1 : 0;
    clc_token_array *asked = clc_arena_alloc(arena, (request_count + 1) * sizeof *asked);
    size_t asked_total = 0;
    for (size_t k = 0; k < request_count; ++k) {
        const char *text = requests[k] ? requests[k] : "";
        clc_lex(text, strlen(text), file, 0, arena, interner, &asked[k]);
        asked_total += asked[k].count; /* its EOF becomes a separator */
    }
    size_t total = builtin_count + library_count + user_count + asked_total;
    clc_token *all = clc_arena_alloc(arena, (total + 1) * sizeof *all);
    memcpy(all, lexed.tokens, builtin_count * sizeof *all);
    if (library_count > 0)
        memcpy(all + builtin_count, library_lexed.tokens,
               library_count * sizeof *all);
    if (user_count > 0)
        memcpy(all + builtin_count + library_count, tokens,
               user_count * sizeof *all);
    size_t at = builtin_count + library_count + user_count;
    size_t *request_begin = clc_arena_alloc(arena, (request_count + 1) * sizeof *request_begin);
    for (size_t k = 0; k < request_count; ++k) {
        request_begin[k] = at;
        memcpy(all + at, asked[k].tokens, asked[k].count * sizeof *all);
        at += asked[k].count;
        /* the EOF that ended it separates it: a ';' */
        all[at - 1].kind = CLC_TOK_PUNCT;
        all[at - 1].punct = P_SEMI;
        all[at - 1].text = ";";
        all[at - 1].length = 1;
    }
    all[total] = count > 0 ? tokens[count - 1] : lexed.tokens[lexed.count - 1];
    st->tokens = all;
    st->count = total;
    st->user_begin = builtin_count;
    cx_match_brackets(st);
    if (library != NULL) {
        cx_refuse_library(st, builtin_count + library_count,
                          builtin_count + library_count + user_count);
        int fp16, bf16;
        if (cx_half_used(tokens, count, &fp16, &bf16) || headers != 0)
            cx_refuse_half(st, builtin_count + library_count,
                           builtin_count + library_count + user_count, no_fp64);
    }

    /* the outputs' room: a program's size, about */
    st->bodies_out.capacity = user_count + user_count / 2 + 1024;
    st->bodies_out.tokens = clc_arena_alloc(arena, st->bodies_out.capacity *
                                                       sizeof(clc_token));
    st->global = cx_scope_new(st, CXS_NAMESPACE, NULL, NULL);
    st->size_type = cx_scalar(st, CXT_ULONG);
    cx_declare_vectors(st);
    st->reading_builtins = 1;
    cx_read_program(st, 0, builtin_count);
    st->reading_builtins = 0;
    cx_read_program(st, builtin_count,
                    builtin_count + library_count + user_count);
    for (size_t k = 0; k < request_count; ++k) {
        size_t end = request_begin[k];
        while (!cx_punct(st, end, P_SEMI))
            ++end;
        cx_request(st, requests[k] ? requests[k] : "", request_begin[k], end);
    }
    cx_drain(st);
    cx_emit_items(st);
    cx_drain(st);
    cx_function **order = NULL;
    size_t ordered = 0;
    for (size_t k = 0; k < st->function_count; ++k)
        cx_order(st, st->functions[k], &order, &ordered);
    for (size_t k = 0; k < ordered; ++k) {
        cx_function *fn = order[k];
        if (fn->decl->flags & CXF_KERNEL) {
            cx_decl *decl = fn->decl;
            if (fn->from != NULL || decl->parent != st->global)
                cx_kernel_add(st, cx_canonical(st, decl), cx_function_cname(st, decl));
        }
        cx_emit_function(st, fn);
    }
    for (size_t k = 0; k < st->wanted_count; ++k)
        cx_emit_record(st, st->wanted[k]);

    /* the aggregates' makers (they call no function of the program) */
    for (size_t k = 0; k < st->wrapper_count; ++k) {
        st->anchor = &st->tokens[st->wrapper_texts[k].anchor];
        cx_out_text(st, &st->protos_out, st->wrapper_texts[k].definition);
    }
    cx_out result = {0};
    result.capacity = st->types_out.count + st->protos_out.count +
                      st->bodies_out.count + 1;
    result.tokens = clc_arena_alloc(arena, result.capacity * sizeof(clc_token));
    cx_append_out(st, &result, &st->types_out);
    cx_append_out(st, &result, &st->protos_out);
    cx_append_out(st, &result, &st->bodies_out);
    clc_token eof = all[total];
    result.tokens = clc_arena_grow(arena, result.tokens, result.count,
                                   &result.capacity, sizeof eof, 16);
    result.tokens[result.count++] = eof;
    out->tokens = result.tokens;
    out->count = result.count;
    out->kernels = st->kernels;
    out->kernel_count = st->kernel_count;
    for (size_t k = 0; k < ordered; ++k)
        out->refusal_count += order[k]->refusal != NULL;
    out->refusals = clc_arena_alloc(arena, (out->refusal_count + 1) *
                                               sizeof *out->refusals);
    for (size_t k = 0, r = 0; k < ordered; ++k)
        if (order[k]->refusal != NULL)
            out->refusals[r++] = (cxx_refusal){
                cx_function_cname(st, order[k]->decl), order[k]->refusal,
                order[k]->refusal_line};
    out->lowered = 1;
}
