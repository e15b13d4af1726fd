/*
 * The preprocessor's #if expressions: integer constant expressions with
 * C's operators and promotions (signed and unsigned intmax_t), defined(),
 * and division by zero or an identifier left over reported, never
 * evaluated.
 */
#include "preprocess_state.h"

#include <stdlib.h>
#include <string.h>

/* ---- #if expressions -------------------------------------------------------- */

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

int ev_parse_number(const clc_token *t, pp_value *value)
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

int pp_evaluate(const clc_token *tokens, size_t count, long long *value,
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
