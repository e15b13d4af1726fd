/*
 * The checked mode's instrumented accesses (KILN_CHECK=bounds on an OpenCL
 * device): every kernel of an OpenCL C text gets a last parameter, the
 * launch's report buffer (TRANSLATE_BOUNDS_REPORT_PARAM), and each access
 * through a buffer parameter, or through a local pointer made from one and
 * never changed, goes through __kiln_bounds_index: it compares the byte
 * the access reaches with the range the launch gives for that parameter,
 * records the first access outside it and redirects that access to the
 * range's first element, so the kernel neither faults nor writes into
 * memory that is not its own.  Guard zones catch writes after the fact;
 * this catches reads, as they happen, and blames the parameter the access
 * goes through.
 *
 * The text is edited by byte position (the user's own spelling, lines and
 * #line markers stay as they are), from the lexer's tokens.  What the pass
 * cannot follow is left as it is, and listed in README's KILN_CHECK part:
 * accesses inside macro bodies (an OpenCL C program compiled natively is
 * not macro-expanded), in helper functions, through a pointer that is
 * changed (p++, p += n) or whose address is taken, vloadN/vstoreN.
 */
#include "translate.h"

#include "lexer.h"
#include "rewrite.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRINGIFY(x) #x
#define STRING(x) STRINGIFY(x)
#define RANGES_WORD STRING(TRANSLATE_BOUNDS_RANGES_WORD)
/* bytes [64, 64 + 2 * 512) of the report are scratch */
#define SCRATCH_MIDDLE "576"

/* The report's layout (uint words): 0 set by the first fault, 1 the
 * parameter, 2 nonzero for a write, 3-4 the byte offset (low, high word)
 * from the range's start, 5 the access's bytes; four words
 * a parameter from TRANSLATE_BOUNDS_RANGES_WORD: the range's start and
 * length in bytes (low, high). */
static const char bounds_helper[] =
    "long __kiln_bounds_index(__global uint *report, uint arg, uint write, "
    "long base, long index, long size, int to_scratch, long address)\n"
    "{\n"
    "    __global const uint *range = report + " RANGES_WORD " + 4 * arg;\n"
    "    ulong start = (ulong)range[0] | ((ulong)range[1] << 32);\n"
    "    ulong bytes = (ulong)range[2] | ((ulong)range[3] << 32);\n"
    "    long limit = (long)1 << 56;\n"
    "    long offset;\n"
    "    int inside;\n"
    "    if (index > limit || index < -limit || base > limit || "
    "base < -limit) {\n"
    "        offset = index < 0 ? -limit : limit;\n"
    "        inside = 0;\n"
    "    } else {\n"
    "        offset = base + index * size - (long)start;\n"
    "        inside = offset >= 0 && (ulong)offset + (ulong)size <= bytes;\n"
    "    }\n"
    "    if (inside)\n"
    "        return index;\n"
    "    if (atomic_cmpxchg((volatile __global uint *)report, 0u, 1u) == "
    "0u) {\n"
    "        report[1] = arg;\n"
    "        report[2] = write;\n"
    "        report[3] = (uint)offset;\n"
    "        report[4] = (uint)((ulong)offset >> 32);\n"
    "        report[5] = (uint)size;\n"
    "    }\n"
    /* a global pointer's access goes to the report's scratch bytes (the
     * same alignment as the pointer's, within SCRATCH_HALF of the middle);
     * a constant one (only read) to its range's first element */
    "    if (to_scratch)\n"
    "        return ((long)(intptr_t)((__global char *)report + "
    SCRATCH_MIDDLE ") - address) / size;\n"
    "    return ((long)start - base) / size;\n"
    "}\n"
    "#line 1\n";

typedef struct bounds_edit {
    size_t begin, end; /* bytes of the text replaced (begin == end: insert) */
    const char *text;
    size_t order;
} bounds_edit;

/* A pointer the pass follows: a buffer parameter, or a local pointer made
 * from one (or from such a local) and never changed. */
typedef struct bounds_pointer {
    int32_t name;
    unsigned param;      /* the parameter's position                  */
    int32_t param_name;  /* the parameter's identifier                */
    const char *space;   /* "__global" or "__constant"                */
    size_t declared_at;  /* a local's name token; SIZE_MAX: a param   */
    size_t base;         /* a local's pointer it was made from (index) */
    int valid;
} bounds_pointer;

typedef struct bounds_pass {
    clc_run *run;
    const char *text;
    /* The lexer reads a copy without line splices, after a marker: each
     * of its bytes' place in `text` */
    const size_t *place;
    const size_t *copy_at;   /* each code token's first byte in the copy */
    const size_t *copy_end;
    const clc_token *tokens; /* code tokens only (no directive lines) */
    size_t count;
    size_t *match;
    bounds_edit *edits;
    size_t edit_count, edit_capacity;
    bounds_pointer *pointers;
    size_t pointer_count, pointer_capacity;
} bounds_pass;

static void add_edit(bounds_pass *p, size_t begin, size_t end,
                     const char *text)
{
    p->edits = clc_arena_grow(&p->run->arena, p->edits, p->edit_count,
                              &p->edit_capacity, sizeof *p->edits, 64);
    p->edits[p->edit_count] =
        (bounds_edit){begin, end, text, p->edit_count};
    p->edit_count++;
}

static size_t at_byte(const bounds_pass *p, size_t i)
{
    return p->place[p->copy_at[i]];
}

static size_t after_byte(const bounds_pass *p, size_t i)
{
    if (p->copy_end[i] == p->copy_at[i])
        return at_byte(p, i);
    return p->place[p->copy_end[i] - 1] + 1;
}

/* The lexer spells punctuators from a table, so their place in its copy
 * is found by reading on from the token before, past blanks and
 * comments (the only text clc_lex skips). */
static size_t skip_blank(const char *copy, size_t length, size_t at)
{
    while (at < length) {
        char c = copy[at];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
            c == '\v') {
            ++at;
        } else if (c == '/' && at + 1 < length && copy[at + 1] == '/') {
            while (at < length && copy[at] != '\n')
                ++at;
        } else if (c == '/' && at + 1 < length && copy[at + 1] == '*') {
            at += 2;
            while (at + 1 < length && !(copy[at] == '*' && copy[at + 1] == '/'))
                ++at;
            at = at + 2 < length ? at + 2 : length;
        } else {
            break;
        }
    }
    return at;
}

/* A punctuator's length in the copy: its spelling, or a digraph's. */
static size_t punct_length(const char *copy, size_t length, size_t at,
                           const clc_token *t)
{
    if (at + t->length <= length && memcmp(copy + at, t->text, t->length) == 0)
        return t->length;
    if (at + 4 <= length && memcmp(copy + at, "%:%:", 4) == 0)
        return 4;
    return 2; /* <: :> <% %> %: */
}

/* Where each byte of the lexer's copy of `text` (line splices removed,
 * as clc_lex does) comes from. */
static size_t *copy_places(clc_arena *arena, const char *text, size_t length)
{
    size_t *place = clc_arena_alloc(arena, (length + 1) * sizeof *place);
    size_t n = 0;
    for (size_t i = 0; i < length; ++i) {
        if (text[i] == '\\' && i + 1 < length &&
            (text[i + 1] == '\n' ||
             (text[i + 1] == '\r' && i + 2 < length && text[i + 2] == '\n'))) {
            i += text[i + 1] == '\r' ? 2 : 1;
            continue;
        }
        place[n++] = i;
    }
    place[n] = length;
    return place;
}

static const char *printed(bounds_pass *p, const char *format, ...)
    CLC_PRINTF(2, 3);
static const char *printed(bounds_pass *p, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char small[1];
    int length = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    char *out = clc_arena_alloc(&p->run->arena, (size_t)length + 1);
    va_start(args, format);
    vsnprintf(out, (size_t)length + 1, format, args);
    va_end(args);
    return out;
}

static int is_punct(const bounds_pass *p, size_t i, clc_punct punct)
{
    return i < p->count && clc_token_is_punct(&p->tokens[i], punct);
}

static int is_word(const bounds_pass *p, size_t i, int32_t word)
{
    return i < p->count && clc_token_is_word(&p->tokens[i], word);
}

/* Words after which an identifier is an operand, not a declarator. */
static int is_expression_keyword(const clc_token *t)
{
    return clc_token_is_word(t, W_return) || clc_token_is_word(t, W_case) ||
           clc_token_is_word(t, W_sizeof) || clc_token_is_word(t, W_else) ||
           clc_token_is_word(t, W_do) || clc_token_is_word(t, W_goto);
}

/* Whether token i ends an operand, so that a '*' or '&' after it is a
 * binary operator. */
static int ends_operand(const bounds_pass *p, size_t i)
{
    const clc_token *t = &p->tokens[i];
    if (t->kind == CLC_TOK_NUMBER || t->kind == CLC_TOK_CHAR ||
        t->kind == CLC_TOK_STRING)
        return 1;
    if (t->kind == CLC_TOK_IDENT)
        return !is_expression_keyword(t);
    return clc_token_is_punct(t, P_RPAREN) ||
           clc_token_is_punct(t, P_RBRACKET);
}

static int is_assignment(const bounds_pass *p, size_t i)
{
    if (i >= p->count || p->tokens[i].kind != CLC_TOK_PUNCT)
        return 0;
    switch (p->tokens[i].punct) {
    case P_ASSIGN: case P_MUL_ASSIGN: case P_DIV_ASSIGN: case P_MOD_ASSIGN:
    case P_ADD_ASSIGN: case P_SUB_ASSIGN: case P_SHL_ASSIGN:
    case P_SHR_ASSIGN: case P_AND_ASSIGN: case P_XOR_ASSIGN:
    case P_OR_ASSIGN:
        return 1;
    default:
        return 0;
    }
}

static int is_step(const bounds_pass *p, size_t i)
{
    return is_punct(p, i, P_INC) || is_punct(p, i, P_DEC);
}

/* The followed pointer named by token i in a body, or -1.  A member's
 * name (s.a, s->a) is not the pointer. */
static long pointer_at(const bounds_pass *p, size_t i)
{
    const clc_token *t = &p->tokens[i];
    if (t->kind != CLC_TOK_IDENT ||
        (i > 0 && (is_punct(p, i - 1, P_DOT) || is_punct(p, i - 1, P_ARROW))))
        return -1;
    for (size_t k = p->pointer_count; k-- > 0;)
        if (p->pointers[k].name == t->ident)
            return (long)k;
    return -1;
}

static void add_pointer(bounds_pass *p, bounds_pointer pointer)
{
    for (size_t k = 0; k < p->pointer_count; ++k)
        if (p->pointers[k].name == pointer.name) {
            /* declared twice: neither is followed */
            p->pointers[k].valid = 0;
            pointer.valid = 0;
        }
    p->pointers = clc_arena_grow(&p->run->arena, p->pointers,
                                 p->pointer_count, &p->pointer_capacity,
                                 sizeof *p->pointers, 16);
    p->pointers[p->pointer_count++] = pointer;
}

/* The parameters of a kernel, tokens (open, close): the buffer ones are
 * followed.  Returns how many there are. */
static unsigned kernel_params(bounds_pass *p, size_t open, size_t close)
{
    if (close == open + 1 ||
        (close == open + 2 && is_word(p, open + 1, W_void)))
        return 0;
    unsigned index = 0;
    size_t begin = open + 1;
    for (size_t i = open + 1; i <= close; ++i) {
        if (clc_token_is_open(&p->tokens[i]) && i != open) {
            i = p->match[i];
            continue;
        }
        if (i != close && !is_punct(p, i, P_COMMA))
            continue;
        const char *space = NULL;
        int pointer = 0, local = 0;
        size_t name = SIZE_MAX;
        for (size_t k = begin; k < i; ++k) {
            const clc_token *t = &p->tokens[k];
            if (clc_token_is_word(t, W___global) ||
                clc_token_is_word(t, W_global))
                space = "__global";
            else if (clc_token_is_word(t, W___constant) ||
                     clc_token_is_word(t, W_constant))
                space = "__constant";
            else if (clc_token_is_word(t, W___local) ||
                     clc_token_is_word(t, W_local))
                local = 1;
            else if (clc_token_is_punct(t, P_STAR) ||
                     clc_token_is_punct(t, P_LBRACKET))
                pointer = 1;
            if (clc_token_is_punct(t, P_LBRACKET))
                break;
            if (clc_token_is_ident(t))
                name = k;
        }
        if (space != NULL && pointer && !local && name != SIZE_MAX)
            add_pointer(p, (bounds_pointer){
                               .name = p->tokens[name].ident,
                               .param = index,
                               .param_name = p->tokens[name].ident,
                               .space = space,
                               .declared_at = SIZE_MAX,
                               .base = SIZE_MAX,
                               .valid = 1,
                           });
        ++index;
        begin = i + 1;
    }
    return index;
}

/* The followed pointer token i names where its value is an address
 * (`a`, `a + n`, `&a[i]`), not an element (`a[i]`, `*a`), or -1. */
static long pointer_value_at(const bounds_pass *p, size_t i)
{
    long found = pointer_at(p, i);
    if (found < 0)
        return -1;
    int element = is_punct(p, i + 1, P_LBRACKET) ||
                  (is_punct(p, i - 1, P_STAR) && !ends_operand(p, i - 2));
    int address = is_punct(p, i + 1, P_LBRACKET) && is_punct(p, i - 1, P_AMP) &&
                  !ends_operand(p, i - 2);
    return element && !address ? -1 : found;
}

/* Local pointers made from a followed one: `T *name = INIT` where INIT
 * names exactly one followed pointer as an address (an element of one,
 * b + idx[i], says nothing of where the result points: not followed). */
static void find_derived(bounds_pass *p, size_t open, size_t close)
{
    for (size_t i = open + 2; i + 1 < close; ++i) {
        if (!clc_token_is_ident(&p->tokens[i]) ||
            !is_punct(p, i - 1, P_STAR) || !is_punct(p, i + 1, P_ASSIGN) ||
            !clc_token_is_ident(&p->tokens[i - 2]) ||
            is_expression_keyword(&p->tokens[i - 2]))
            continue;
        long from = -1;
        int several = 0, element = 0;
        size_t end = i + 2;
        while (end < close && !is_punct(p, end, P_SEMI) &&
               !is_punct(p, end, P_COMMA))
            end = clc_token_is_open(&p->tokens[end]) ? p->match[end] + 1
                                                     : end + 1;
        for (size_t k = i + 2; k < end; ++k) {
            long found = pointer_value_at(p, k);
            if (found < 0 && pointer_at(p, k) >= 0)
                element = 1;
            if (found >= 0 && from >= 0 &&
                p->pointers[found].name != p->pointers[from].name)
                several = 1;
            if (found >= 0)
                from = found;
        }
        if (from < 0 || several || element)
            continue;
        bounds_pointer base = p->pointers[from];
        add_pointer(p, (bounds_pointer){
                           .name = p->tokens[i].ident,
                           .param = base.param,
                           .param_name = base.param_name,
                           .space = base.space,
                           .declared_at = i,
                           .base = (size_t)from,
                           .valid = 1,
                       });
    }
}

/* A followed pointer that is changed, has its address taken or is
 * declared again is not followed: its offset would not be known. */
static void drop_changed(bounds_pass *p, size_t open, size_t close)
{
    for (size_t i = open + 1; i < close; ++i) {
        long k = pointer_at(p, i);
        if (k < 0 || p->pointers[k].declared_at == i)
            continue;
        bounds_pointer *pointer = &p->pointers[k];
        const clc_token *before = &p->tokens[i - 1];
        int address = clc_token_is_punct(before, P_AMP) &&
                      !ends_operand(p, i - 2) &&
                      !is_punct(p, i + 1, P_LBRACKET); /* &p, not &p[i] */
        int declared =
            (clc_token_is_ident(before) && !is_expression_keyword(before)) ||
            (clc_token_is_punct(before, P_STAR) &&
             clc_token_is_ident(&p->tokens[i - 2]) &&
             !is_expression_keyword(&p->tokens[i - 2]) &&
             pointer_at(p, i - 2) < 0 && !is_punct(p, i + 1, P_LBRACKET));
        if (is_assignment(p, i + 1) || is_step(p, i + 1) ||
            is_step(p, i - 1) || address || declared)
            pointer->valid = 0;
    }
    /* made from one no longer followed */
    for (size_t k = 0; k < p->pointer_count; ++k)
        if (p->pointers[k].base != SIZE_MAX &&
            !p->pointers[p->pointers[k].base].valid)
            p->pointers[k].valid = 0;
}

/* Whether the access that ends at token `end` and starts at `start` is a
 * store: an assignment or a step after it (past .x, .s0 members), a step
 * before it. */
static int is_store(const bounds_pass *p, size_t start, size_t end)
{
    size_t after = end + 1;
    while (is_punct(p, after, P_DOT) && after + 1 < p->count &&
           clc_token_is_ident(&p->tokens[after + 1]))
        after += 2;
    return is_assignment(p, after) || is_step(p, after) ||
           (start > 0 && is_step(p, start - 1));
}

static const char *base_text(bounds_pass *p, const bounds_pointer *pointer)
{
    if (pointer->declared_at == SIZE_MAX)
        return "0L";
    const clc_ident *name = clc_ident_get(&p->run->interner, pointer->name);
    const clc_ident *param =
        clc_ident_get(&p->run->interner, pointer->param_name);
    return printed(p,
                   "(long)((const %s char *)(%.*s) - (const %s char *)(%.*s))",
                   pointer->space, (int)name->length, name->name,
                   pointer->space, (int)param->length, param->name);
}

/* Where an access outside its range goes instead: the pointer's address
 * for a global one (the report's scratch bytes), none for a constant one. */
static const char *redirect_text(bounds_pass *p, const bounds_pointer *pointer)
{
    if (strcmp(pointer->space, "__global") != 0)
        return "0, 0L";
    const clc_ident *name = clc_ident_get(&p->run->interner, pointer->name);
    return printed(p, "1, (long)(intptr_t)(%.*s)", (int)name->length,
                   name->name);
}

/* Index tokens a deref *(p + ...) may hold: arithmetic on operands. */
static int plain_offset(const bounds_pass *p, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        const clc_token *t = &p->tokens[i];
        if (clc_token_is_open(t)) {
            i = p->match[i];
            continue;
        }
        if (t->kind == CLC_TOK_PUNCT &&
            !(t->punct == P_PLUS || t->punct == P_MINUS ||
              t->punct == P_STAR || t->punct == P_SLASH ||
              t->punct == P_PERCENT || t->punct == P_DOT ||
              t->punct == P_ARROW))
            return 0;
    }
    return 1;
}

static void rewrite_accesses(bounds_pass *p, size_t open, size_t close)
{
    for (size_t i = open + 1; i < close; ++i) {
        long k = pointer_at(p, i);
        if (k < 0 || !p->pointers[k].valid || p->pointers[k].declared_at == i)
            continue;
        const bounds_pointer *pointer = &p->pointers[k];
        const clc_ident *name = clc_ident_get(&p->run->interner, pointer->name);
        const char *base = base_text(p, pointer);
        if (is_punct(p, i + 1, P_LBRACKET)) {
            size_t end = p->match[i + 1];
            int store = is_store(p, i, end);
            if (is_punct(p, i - 1, P_AMP) && !ends_operand(p, i - 2)) {
                /* &p[i]: an address, not an access, except as an
                 * atomic's operand */
                if (!(is_punct(p, i - 2, P_LPAREN) &&
                      (clc_token_name_starts(&p->run->interner,
                                             &p->tokens[i - 3], "atomic_") ||
                       clc_token_name_starts(&p->run->interner,
                                             &p->tokens[i - 3], "atom_"))))
                    continue;
                store = 1;
            }
            add_edit(p, after_byte(p, i + 1), after_byte(p, i + 1),
                     printed(p,
                             "__kiln_bounds_index(" TRANSLATE_BOUNDS_REPORT_PARAM
                             ", %uu, %du, %s, (long)(",
                             pointer->param, store, base));
            add_edit(p, at_byte(p, end), at_byte(p, end),
                     printed(p, "), (long)sizeof(*(%.*s)), %s)",
                             (int)name->length, name->name,
                             redirect_text(p, pointer)));
            continue;
        }
        /* *(p + n), *(p - n) */
        if (is_punct(p, i - 1, P_LPAREN) && is_punct(p, i - 2, P_STAR) &&
            (i < 3 || !ends_operand(p, i - 3)) &&
            (is_punct(p, i + 1, P_PLUS) || is_punct(p, i + 1, P_MINUS))) {
            size_t end = p->match[i - 1];
            if (!plain_offset(p, i + 2, end))
                continue;
            int store = is_store(p, i - 2, end);
            add_edit(p, at_byte(p, i - 2), after_byte(p, i - 2), "");
            add_edit(p, at_byte(p, i - 1), after_byte(p, i - 1),
                     printed(p,
                             "%.*s[__kiln_bounds_index("
                             TRANSLATE_BOUNDS_REPORT_PARAM
                             ", %uu, %du, %s, (long)(0",
                             (int)name->length, name->name, pointer->param,
                             store, base));
            add_edit(p, at_byte(p, i), after_byte(p, i), "");
            add_edit(p, at_byte(p, end), after_byte(p, end),
                     printed(p, "), (long)sizeof(*(%.*s)), %s)]",
                             (int)name->length, name->name,
                             redirect_text(p, pointer)));
            continue;
        }
        /* *p */
        if (is_punct(p, i - 1, P_STAR) && (i < 2 || !ends_operand(p, i - 2)) &&
            !is_punct(p, i + 1, P_DOT) && !is_punct(p, i + 1, P_ARROW)) {
            int store = is_store(p, i - 1, i);
            add_edit(p, at_byte(p, i - 1), after_byte(p, i - 1), "");
            add_edit(p, at_byte(p, i), after_byte(p, i),
                     printed(p,
                             "%.*s[__kiln_bounds_index("
                             TRANSLATE_BOUNDS_REPORT_PARAM
                             ", %uu, %du, %s, 0L, (long)sizeof(*(%.*s)), "
                             "%s)]",
                             (int)name->length, name->name, pointer->param,
                             store, base, (int)name->length, name->name,
                             redirect_text(p, pointer)));
        }
    }
}

/* One kernel: `kernel` is its __kernel token.  Returns the token after
 * it. */
static size_t kernel_instrument(bounds_pass *p, size_t kernel)
{
    size_t i = kernel + 1;
    while (i < p->count) {
        if (is_word(p, i, W___attribute__) || is_word(p, i, W___attribute)) {
            if (is_punct(p, i + 1, P_LPAREN))
                i = p->match[i + 1] + 1;
            else
                ++i;
            continue;
        }
        if (clc_token_is_ident(&p->tokens[i]) && is_punct(p, i + 1, P_LPAREN))
            break;
        if (is_punct(p, i, P_SEMI) || is_punct(p, i, P_LBRACE))
            return i;
        ++i;
    }
    if (i >= p->count)
        return i;
    /* the program's own sizing kernels (translate.h) are launched by the
     * core with their arguments only */
    if (clc_token_name_is(&p->run->interner, &p->tokens[i],
                          TRANSLATE_KERNEL_VARIABLE_SIZES) ||
        clc_token_name_is(&p->run->interner, &p->tokens[i],
                          TRANSLATE_KERNEL_VARIABLE_INIT))
        return i + 1;
    size_t open = i + 1, close = p->match[open];
    p->pointer_count = 0;
    unsigned count = kernel_params(p, open, close);
    if (count == 0)
        add_edit(p, after_byte(p, open), at_byte(p, close),
                 "__global uint *" TRANSLATE_BOUNDS_REPORT_PARAM);
    else
        add_edit(p, at_byte(p, close), at_byte(p, close),
                 ", __global uint *" TRANSLATE_BOUNDS_REPORT_PARAM);
    size_t body = close + 1;
    while (body < p->count && !is_punct(p, body, P_LBRACE) &&
           !is_punct(p, body, P_SEMI)) {
        if (is_punct(p, body, P_LPAREN))
            body = p->match[body];
        ++body;
    }
    if (body >= p->count || is_punct(p, body, P_SEMI))
        return body; /* a declaration: its parameters only */
    size_t end = p->match[body];
    find_derived(p, body, end);
    drop_changed(p, body, end);
    rewrite_accesses(p, body, end);
    return end + 1;
}

static int edit_order(const void *a, const void *b)
{
    const bounds_edit *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

int translate_bounds_instrument(const char *text, size_t length, char **out,
                                size_t *out_length)
{
    *out = NULL;
    *out_length = 0;
    clc_run run;
    clc_run_begin(&run);
    if (setjmp(run.failure.unwind) != 0) {
        char *error = NULL;
        int line = 0, unsupported = 0;
        int result = clc_run_failed(&run, &error, &line, &unsupported);
        free(error);
        return result == -2 ? -2 : 1;
    }
    clc_interner_init(&run.interner, &run.arena);
    /* "@" first: the lexer's copy starts with that token, so the place
     * of every token in the copy is known */
    char *marked = clc_arena_alloc(&run.arena, length + 3);
    memcpy(marked, "@\n", 2);
    memcpy(marked + 2, text, length);
    clc_token_array lexed = {0};
    clc_lex(marked, length + 2, 0, 1, &run.arena, &run.interner, &lexed);
    if (lexed.count == 0 || lexed.tokens[0].kind != CLC_TOK_OTHER ||
        lexed.tokens[0].text[0] != '@') {
        clc_run_end(&run);
        return 1;
    }
    const char *copy = lexed.tokens[0].text;
    size_t copy_length = strlen(copy);
    const size_t *place = copy_places(&run.arena, text, length);
    /* the code: directive lines (#line, #pragma) are not looked into */
    clc_token *code = clc_arena_alloc(&run.arena,
                                      (lexed.count + 1) * sizeof *code);
    size_t *code_at = clc_arena_alloc(&run.arena,
                                      (lexed.count + 1) * sizeof *code_at);
    size_t *code_end = clc_arena_alloc(&run.arena,
                                       (lexed.count + 1) * sizeof *code_end);
    size_t *token_at = clc_arena_alloc(&run.arena,
                                       (lexed.count + 1) * sizeof *token_at);
    size_t *token_end = clc_arena_alloc(&run.arena,
                                        (lexed.count + 1) * sizeof *token_end);
    size_t cursor = 1;
    for (size_t i = 1; i < lexed.count; ++i) {
        const clc_token *t = &lexed.tokens[i];
        if (t->kind == CLC_TOK_EOF)
            break;
        if (t->kind == CLC_TOK_PUNCT) {
            token_at[i] = skip_blank(copy, copy_length, cursor);
            token_end[i] = token_at[i] + punct_length(copy, copy_length,
                                                      token_at[i], t);
        } else {
            token_at[i] = (size_t)(t->text - copy);
            token_end[i] = token_at[i] + t->length;
        }
        if (token_at[i] < 2 || token_end[i] > copy_length) {
            clc_run_end(&run);
            return 1;
        }
        /* places in the text the user gave (after the marker) */
        token_at[i] -= 2;
        token_end[i] -= 2;
        cursor = token_end[i] + 2;
    }
    size_t count = 0;
    for (size_t i = 1; i < lexed.count; ++i) {
        const clc_token *t = &lexed.tokens[i];
        if (t->kind == CLC_TOK_EOF)
            break;
        if (clc_token_is_punct(t, P_HASH) && (t->flags & CLC_TF_BOL)) {
            while (i + 1 < lexed.count &&
                   !(lexed.tokens[i + 1].flags & CLC_TF_BOL) &&
                   lexed.tokens[i + 1].kind != CLC_TOK_EOF)
                ++i;
            continue;
        }
        code_at[count] = token_at[i];
        code_end[count] = token_end[i];
        code[count++] = *t;
    }
    bounds_pass p = {.run = &run, .text = text, .place = place,
                     .copy_at = code_at, .copy_end = code_end,
                     .tokens = code, .count = count};
    p.match = clc_arena_alloc(&run.arena, (count + 1) * sizeof *p.match);
    size_t at = 0;
    if (clc_match_brackets(&run.arena, code, count, p.match, &at) !=
        CLC_BRACKETS_BALANCED) {
        clc_run_end(&run);
        return 1; /* the compiler says what is wrong */
    }
    for (size_t i = 0; i < count;) {
        if (is_word(&p, i, W___kernel) || is_word(&p, i, W_kernel)) {
            i = kernel_instrument(&p, i);
            continue;
        }
        if (clc_token_is_open(&code[i]))
            i = p.match[i]; /* kernels are at file scope */
        ++i;
    }
    if (p.edit_count > 0)
        qsort(p.edits, p.edit_count, sizeof *p.edits, edit_order);
    clc_buffer buffer;
    clc_buffer_init(&buffer, &run.arena);
    clc_buffer_puts(&buffer, bounds_helper);
    size_t copied = 0;
    for (size_t e = 0; e < p.edit_count; ++e) {
        const bounds_edit *edit = &p.edits[e];
        if (edit->begin < copied)
            continue; /* inside a replaced token: cannot happen */
        clc_buffer_append(&buffer, text + copied, edit->begin - copied);
        clc_buffer_puts(&buffer, edit->text);
        copied = edit->end;
    }
    clc_buffer_append(&buffer, text + copied, length - copied);
    char *result = malloc(buffer.length + 1);
    if (result == NULL) {
        clc_run_end(&run);
        return -2;
    }
    memcpy(result, buffer.data, buffer.length);
    result[buffer.length] = '\0';
    *out = result;
    *out_length = buffer.length;
    clc_run_end(&run);
    return 0;
}
