/*
 * OpenCL C -> CUDA C++, expressions: C's implicit pointer conversions
 * that C++ refuses, swizzles, the extents of operands (found by operator
 * precedence, without a syntax tree), and the shifts and ?: that need the
 * prelude's OpenCL meaning.
 */
#include "opencl_to_cuda_pass.h"

#include <stdlib.h>
#include <string.h>

/* ---- C's implicit pointer conversions ------------------------------------------ */

/* C converts an object pointer to any other implicitly (int * to uint *,
 * float4 * to float *, const T * to T *: compilers warn), and OpenCL C code
 * relies on it; C++ refuses.  Arguments to a program's own functions'
 * pointer parameters, and initialisers of local pointer variables, go
 * through the prelude's kl_cptr(), which converts to whatever pointer the
 * destination is. */
/* Which of the first 64 parameters of a function type are pointers. */
static uint64_t tr_pointer_params(const clc_type *function)
{
    uint64_t pointers = 0;
    for (size_t p = 0; p < function->param_count && p < 64; ++p)
        if (clc_type_is_pointer(function->params[p]))
            pointers |= UINT64_C(1) << p;
    return pointers;
}

/* The function a call at `open` calls, with its pointer parameters in
 * *pointers; NULL when the name is no function of the program where it
 * stands, or when its declarations disagree about which parameters are
 * pointers (overloads). */
static const clc_symbol *tr_called_function(const tr_state *st, size_t open,
                                            uint64_t *pointers)
{
    const clc_symbol *function = clc_symbol_at(&st->symbols, open - 1);
    if (function == NULL || function->kind != CLC_SYMBOL_FUNCTION)
        return NULL;
    *pointers = tr_pointer_params(function->type);
    for (const clc_symbol *other = function->hidden; other != NULL;
         other = other->hidden)
        if (other->kind == CLC_SYMBOL_FUNCTION &&
            tr_pointer_params(other->type) != *pointers)
            return NULL;
    return function;
}

/* At the '(' of a call to one of the program's functions: wraps each
 * argument for a pointer parameter in kl_cptr(...). */
void tr_pointer_arguments(tr_state *st, size_t open)
{
    uint64_t pointers = 0;
    size_t close = st->match[open];
    if (tr_called_function(st, open, &pointers) == NULL || pointers == 0 ||
        close == SIZE_MAX)
        return;
    /* `type name(...)` inside a body is a declaration, not a call */
    if (open >= 2 && tr_is_type_word(st, open - 2))
        return;
    size_t param = 0, begin = open + 1;
    for (size_t j = open + 1; j <= close; ++j) {
        if (j < close && tr_is_open(st, j) && st->match[j] != SIZE_MAX) {
            j = st->match[j];
            continue;
        }
        if (j == close || tr_is_punct(st, j, P_COMMA)) {
            if (j > begin && param < 64 &&
                (pointers >> param & 1))
                tr_wrap(st, begin, j - 1, "kl_cptr(", ")");
            ++param;
            begin = j + 1;
        }
    }
}

/* At the '=' of `type *name = initialiser` in a body: wraps the
 * initialiser in kl_cptr(...). */
static size_t tr_assignment_end(const tr_state *st, size_t begin);

void tr_pointer_initialiser(tr_state *st, size_t assign)
{
    size_t k = assign - 1;
    if (assign < 3 || !tr_is_ident(st, k) || tr_is_type_word(st, k) ||
        tr_is_punct(st, k - 1, P_DOT) || tr_is_punct(st, k - 1, P_ARROW))
        return;
    --k;
    while (k > 0 && tr_is_qualifier(st, k))
        --k;
    if (!tr_is_punct(st, k, P_STAR))
        return;
    while (k > 0 && tr_is_punct(st, k, P_STAR))
        --k;
    /* the declaration's type: `x * y = z` is no expression (x * y is not
     * an lvalue), but `return *p = v` is */
    if (!tr_is_ident(st, k) || tr_is_word(st, k, W_return) ||
        tr_is_word(st, k, W_case) || tr_is_word(st, k, W_sizeof) ||
        tr_is_word(st, k, W_else) || tr_is_word(st, k, W_do))
        return;
    size_t begin = assign + 1;
    if (begin < st->count && !tr_is_punct(st, begin, P_COMMA) &&
        !tr_is_punct(st, begin, P_SEMI) && !tr_is_close(st, begin))
        tr_wrap(st, begin, tr_assignment_end(st, begin), "kl_cptr(", ")");
}

/* ---- swizzles ------------------------------------------------------------------ */

enum { SW_LO = -1, SW_HI = -2, SW_EVEN = -3, SW_ODD = -4 };

static int tr_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses a swizzle selector.  Returns the number of indices (written to
 * `indices`), or -1 for lo/hi/even/odd (*op set), or 0 when `name` is not
 * a selector. */
static int tr_parse_selector(const clc_ident *ident, int *indices, int *op)
{
    const char *s = ident->name;
    size_t n = ident->length;
    if (n == 2 && memcmp(s, "lo", 2) == 0) { *op = SW_LO; return -1; }
    if (n == 2 && memcmp(s, "hi", 2) == 0) { *op = SW_HI; return -1; }
    if (n == 4 && memcmp(s, "even", 4) == 0) { *op = SW_EVEN; return -1; }
    if (n == 3 && memcmp(s, "odd", 3) == 0) { *op = SW_ODD; return -1; }
    if (n >= 2 && n <= 17 && (s[0] == 's' || s[0] == 'S')) {
        for (size_t k = 1; k < n; ++k) {
            int d = tr_hex_digit(s[k]);
            if (d < 0)
                return 0;
            indices[k - 1] = d;
        }
        return (int)n - 1;
    }
    if (n >= 1 && n <= 4) {
        for (size_t k = 0; k < n; ++k) {
            switch (s[k]) {
            case 'x': indices[k] = 0; break;
            case 'y': indices[k] = 1; break;
            case 'z': indices[k] = 2; break;
            case 'w': indices[k] = 3; break;
            default: return 0;
            }
        }
        return (int)n;
    }
    return 0;
}

static const char *const tr_component_members[16] = {
    "x", "y", "z", "w", "s4", "s5", "s6", "s7",
    "s8", "s9", "sa", "sb", "sc", "sd", "se", "sf"};

/* Whether the '.' at `dot` selects a struct's or union's member rather
 * than a vector's components: by the type of the object before it, or,
 * where that cannot be told, by whether some struct has a member of the
 * name. */
static int tr_member_access(const tr_state *st, size_t dot)
{
    const clc_symbols *symbols = &st->symbols;
    if (dot > 0) {
        const clc_type *object = clc_expr_type(
            symbols, clc_postfix_begin(symbols, dot - 1), dot);
        if (object != NULL && (object->kind == CLC_TYPE_STRUCT ||
                               object->kind == CLC_TYPE_VECTOR))
            return object->kind == CLC_TYPE_STRUCT;
    }
    return clc_symbols_member_name(symbols, st->tokens[dot + 1].ident);
}

/* A chain of selectors starting at the '.' at `dot`: rewrites it into one
 * member access or one kl_swc<...>() call.  Returns the index of the last
 * token of the chain. */
size_t tr_swizzle_chain(tr_state *st, size_t dot)
{
    int codes[512];
    size_t code_count = 0;
    int explicit_only = 1;
    int composed[16];
    int composed_count = -1; /* -1: identity so far */
    size_t last = dot;
    size_t i = dot;
    while (tr_is_punct(st, i, P_DOT) && tr_is_ident(st, i + 1)) {
        if (tr_member_access(st, i))
            break;
        int indices[16], op = 0;
        int n = tr_parse_selector(tr_ident(st, i + 1), indices, &op);
        if (n == 0)
            break;
        if (code_count + 18 >= sizeof codes / sizeof codes[0])
            tr_fail(st, i, "swizzle chain too long");
        if (n < 0) {
            codes[code_count++] = op;
            explicit_only = 0;
        } else {
            codes[code_count++] = 100 + n;
            for (int k = 0; k < n; ++k)
                codes[code_count++] = indices[k];
            if (explicit_only) {
                int next[16];
                for (int k = 0; k < n; ++k) {
                    if (composed_count < 0) {
                        next[k] = indices[k];
                    } else if (indices[k] < composed_count) {
                        next[k] = composed[indices[k]];
                    } else {
                        tr_fail(st, i + 1,
                                "swizzle '.%.*s' selects component %d of a "
                                "%d-component vector",
                                (int)tr_ident(st, i + 1)->length,
                                tr_ident(st, i + 1)->name, indices[k],
                                composed_count);
                    }
                }
                memcpy(composed, next, sizeof next);
                composed_count = n;
            }
        }
        last = i + 1;
        i += 2;
    }
    if (last == dot)
        return dot;
    /* Keep the first '.', drop the rest of the chain's tokens. */
    for (size_t k = dot + 1; k <= last; ++k)
        st->edits.replace[k] = "";
    if (explicit_only && composed_count == 1) {
        st->edits.replace[dot + 1] = tr_component_members[composed[0]];
        return last;
    }
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    clc_buffer_puts(&text, "kl_swc<");
    for (size_t k = 0; k < code_count; ++k)
        clc_buffer_printf(&text, k ? ",%d" : "%d", codes[k]);
    clc_buffer_puts(&text, ">()");
    st->edits.replace[dot + 1] = clc_buffer_text(&text);
    return last;
}

/* ---- expression extents ------------------------------------------------------------- */

static int tr_is_assignment(const tr_state *st, size_t i)
{
    if (i >= st->count || st->tokens[i].kind != CLC_TOK_PUNCT)
        return 0;
    switch (st->tokens[i].punct) {
    case P_ASSIGN: case P_MUL_ASSIGN: case P_DIV_ASSIGN: case P_MOD_ASSIGN:
    case P_ADD_ASSIGN: case P_SUB_ASSIGN: case P_SHL_ASSIGN:
    case P_SHR_ASSIGN: case P_AND_ASSIGN: case P_XOR_ASSIGN:
    case P_OR_ASSIGN:
        return 1;
    default:
        return 0;
    }
}

/* The last token of the shift's right operand (an additive expression)
 * that starts at `begin`. */
static size_t tr_additive_end(const tr_state *st, size_t begin)
{
    size_t i = begin;
    size_t last = begin;
    while (i < st->count) {
        const clc_token *t = &st->tokens[i];
        if (tr_is_open(st, i)) {
            last = st->match[i];
            i = last + 1;
            continue;
        }
        if (t->kind == CLC_TOK_PUNCT) {
            switch (t->punct) {
            case P_SHL: case P_SHR: case P_LT: case P_GT: case P_LE:
            case P_GE: case P_EQ: case P_NE: case P_CARET: case P_PIPE:
            case P_ANDAND: case P_OROR: case P_QUESTION: case P_COLON:
            case P_COMMA: case P_SEMI: case P_RPAREN: case P_RBRACKET:
            case P_RBRACE:
                return last;
            case P_AMP:
                /* binary & ends it; a unary & cannot follow an operand */
                if (i > begin)
                    return last;
                break;
            default:
                if (tr_is_assignment(st, i))
                    return last;
                break;
            }
        }
        if (t->kind == CLC_TOK_PRAGMA || t->kind == CLC_TOK_EOF)
            return last;
        last = i;
        ++i;
    }
    return last;
}

/* The last token of an assignment expression starting at `begin`. */
static size_t tr_assignment_end(const tr_state *st, size_t begin)
{
    size_t i = begin, last = begin;
    while (i < st->count) {
        if (tr_is_open(st, i)) {
            last = st->match[i];
            i = last + 1;
            continue;
        }
        if (tr_is_punct(st, i, P_COMMA) || tr_is_punct(st, i, P_SEMI) ||
            tr_is_close(st, i) || st->tokens[i].kind == CLC_TOK_PRAGMA)
            return last;
        last = i;
        ++i;
    }
    return last;
}

/* The first token of the condition of the ?: at `question`. */
static size_t tr_condition_begin(const tr_state *st, size_t question)
{
    size_t i = question;
    while (i > 0) {
        size_t j = i - 1;
        if (tr_is_close(st, j)) {
            i = st->match[j];
            continue;
        }
        if (tr_is_open(st, j) || tr_is_punct(st, j, P_SEMI) ||
            tr_is_punct(st, j, P_COMMA) || tr_is_punct(st, j, P_QUESTION) ||
            tr_is_punct(st, j, P_COLON) || tr_is_assignment(st, j) ||
            tr_is_word(st, j, W_return) || tr_is_word(st, j, W_case) ||
            tr_is_word(st, j, W_else) || tr_is_word(st, j, W_do) ||
            st->tokens[j].kind == CLC_TOK_PRAGMA)
            return i;
        i = j;
    }
    return 0;
}

/* Fills st->conditional in one pass over the tokens, with two stacks per
 * bracket depth: the '?' still waiting for their ':', and the third
 * operands still open.  A ':' first ends the open operands begun after the
 * waiting '?' it then takes; ')' ']' '}' and ';' end everything of their
 * depth, and ',', an assignment or a pragma ends the open operands. */
void tr_conditionals_find(tr_state *st)
{
    size_t n = st->count;
    st->conditional = clc_arena_alloc(st->arena, (n + 1) * sizeof(size_t));
    size_t *questions = clc_arena_alloc(st->arena, (n + 1) * sizeof(size_t));
    size_t *operands = clc_arena_alloc(st->arena, (n + 1) * sizeof(size_t));
    size_t *depth_of = clc_arena_alloc(st->arena, (n + 1) * sizeof(size_t));
    size_t question_count = 0, operand_count = 0, depth = 0;
    for (size_t i = 0; i <= n; ++i) {
        int ends_all = i == n || tr_is_close(st, i) || tr_is_punct(st, i, P_SEMI);
        int ends_operands =
            ends_all || tr_is_punct(st, i, P_COMMA) ||
            tr_is_assignment(st, i) || st->tokens[i].kind == CLC_TOK_PRAGMA;
        if (i < n)
            st->conditional[i] = SIZE_MAX;
        if (ends_operands || tr_is_punct(st, i, P_COLON)) {
            size_t waiting = question_count > 0 &&
                                     depth_of[questions[question_count - 1]] == depth
                                 ? questions[question_count - 1]
                                 : SIZE_MAX;
            while (operand_count > 0 &&
                   depth_of[operands[operand_count - 1]] == depth &&
                   (ends_operands || waiting == SIZE_MAX ||
                    waiting < operands[operand_count - 1]))
                st->conditional[operands[--operand_count]] = i - 1;
            if (ends_all)
                while (question_count > 0 &&
                       depth_of[questions[question_count - 1]] == depth)
                    --question_count;
            else if (!ends_operands && waiting != SIZE_MAX) {
                st->conditional[waiting] = i;
                --question_count;
                depth_of[i] = depth;
                operands[operand_count++] = i;
            }
        }
        if (i == n)
            break;
        if (tr_is_open(st, i))
            ++depth;
        else if (tr_is_close(st, i) && depth > 0)
            --depth;
        else if (tr_is_punct(st, i, P_QUESTION)) {
            depth_of[i] = depth;
            questions[question_count++] = i;
        }
    }
}

/* The ':' that belongs to the ?: at `question`, or SIZE_MAX. */
static size_t tr_matching_colon(tr_state *st, size_t question)
{
    if (st->conditional == NULL)
        tr_conditionals_find(st);
    return st->conditional[question];
}

/* The last token of the third operand of a ?: whose ':' is at `colon`. */
static size_t tr_conditional_end(const tr_state *st, size_t colon)
{
    return st->conditional[colon];
}

/* Whether the name at i may stand for a vector where it is: a vector type
 * or a vector typedef, an object of a vector type (or an array of or a
 * pointer to them) or a function returning one; a member some struct
 * declares with a vector type. */
static int tr_names_vector(const tr_state *st, size_t i)
{
    if (tr_ident(st, i)->info.width != 0)
        return 1;
    const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
    if (symbol == NULL)
        return i > 0 &&
               (tr_is_punct(st, i - 1, P_DOT) ||
                tr_is_punct(st, i - 1, P_ARROW)) &&
               clc_symbols_vector_member_name(&st->symbols,
                                              st->tokens[i].ident);
    /* what a call, an index or a dereference of it may give */
    const clc_type *type = symbol->type;
    if (type != NULL && type->kind == CLC_TYPE_FUNCTION)
        type = type->base;
    while (clc_type_is_pointer(type))
        type = type->base;
    return clc_type_is_vector(type);
}

/* Whether tokens [begin, end) may have a vector type: their type where
 * the typer can tell it, else whether they name something that may be a
 * vector. */
static int tr_may_be_vector(const tr_state *st, size_t begin, size_t end)
{
    int vector = clc_expr_is_vector(&st->symbols, begin, end);
    if (vector >= 0)
        return vector;
    for (size_t i = begin; i < end; ++i) {
        if (!tr_is_ident(st, i))
            continue;
        if (tr_names_vector(st, i))
            return 1;
        /* relational built-ins on vectors give vectors */
        if (tr_is_punct(st, i + 1, P_LPAREN) &&
            (tr_ident_is(st, i, "isequal") || tr_ident_is(st, i, "isless") ||
             tr_ident_is(st, i, "isgreater") || tr_ident_is(st, i, "isnan") ||
             tr_ident_is(st, i, "islessequal") ||
             tr_ident_is(st, i, "isgreaterequal") ||
             tr_ident_is(st, i, "isnotequal") || tr_ident_is(st, i, "isinf") ||
             tr_ident_is(st, i, "isfinite") || tr_ident_is(st, i, "signbit") ||
             tr_ident_is(st, i, "vload2") || tr_ident_is(st, i, "vload4")))
            return 1;
        const clc_ident *ident = tr_ident(st, i);
        if (ident->length > 8 && memcmp(ident->name, "convert_", 8) == 0)
            return 1;
    }
    return 0;
}

/* ---- shifts and conditionals ---------------------------------------------------------- */

static int tr_small_literal(const tr_state *st, size_t i)
{
    const clc_token *t = &st->tokens[i];
    if (t->kind != CLC_TOK_NUMBER)
        return 0;
    char text[64];
    if (t->length >= sizeof text)
        return 0;
    memcpy(text, t->text, t->length);
    text[t->length] = '\0';
    if (strpbrk(text, ".eEpP") != NULL && !(text[0] == '0' &&
                                            (text[1] == 'x' || text[1] == 'X')))
        return 0;
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 0);
    while (end && (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L'))
        ++end;
    return end && *end == '\0' && value < 32;
}

void tr_shift(tr_state *st, size_t op)
{
    size_t begin = op + 1;
    if (begin >= st->count)
        return;
    size_t end = tr_is_assignment(st, op) ? tr_assignment_end(st, begin)
                                          : tr_additive_end(st, begin);
    if (end < begin)
        return;
    if (end == begin && tr_small_literal(st, begin))
        return;
    tr_wrap(st, begin, end, "kl_shift_count(", ")");
}

void tr_conditional(tr_state *st, size_t question)
{
    size_t colon = tr_matching_colon(st, question);
    if (colon == SIZE_MAX)
        return;
    size_t begin = tr_condition_begin(st, question);
    if (begin >= question || !tr_may_be_vector(st, begin, question))
        return;
    size_t end = tr_conditional_end(st, colon);
    if (end <= colon)
        return;
    tr_insert_add(st, begin, 0, begin, end, "kl_tern(");
    st->edits.replace[question] = ", [&]() { return (";
    st->edits.replace[colon] = "); }, [&]() { return (";
    tr_insert_add(st, end, 1, begin, end, "); })");
}
