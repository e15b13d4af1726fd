/*
 * Expression types (see expr_type.h).
 *
 * A recursive descent over one expression's tokens with C's precedence,
 * computing types instead of building a tree.  Any part it cannot type
 * makes the whole answer unknown (NULL).
 */
#include "expr_type.h"

#include <string.h>

typedef struct ty_reader {
    const clc_symbols *s;
    size_t i, end;
    int failed;               /* a construct the typer does not read   */
    unsigned depth;           /* nested operands being read            */
} ty_reader;

/* Deeper nesting (hostile input) is "unknown" rather than a deep stack. */
#define TY_MAX_DEPTH 200

static int ty_punct(const ty_reader *r, clc_punct punct)
{
    return r->i < r->end && r->s->tokens[r->i].kind == CLC_TOK_PUNCT &&
           r->s->tokens[r->i].punct == punct;
}

static int ty_word(const ty_reader *r, int32_t word)
{
    return r->i < r->end && r->s->tokens[r->i].kind == CLC_TOK_IDENT &&
           r->s->tokens[r->i].ident == word;
}

/* The partner of the bracket at r->i, inside the range. */
static size_t ty_match(ty_reader *r)
{
    size_t m = r->s->match[r->i];
    if (m >= r->end || m <= r->i) {
        r->failed = 1;
        return r->end;
    }
    return m;
}

static const clc_type *ty_expression(ty_reader *r);
static const clc_type *ty_assignment(ty_reader *r);
static const clc_type *ty_unary(ty_reader *r);

/* C's integer promotions: smaller than int becomes int. */
static const clc_type *ty_promote(const clc_type *t)
{
    if (t != NULL && t->kind == CLC_TYPE_SCALAR &&
        clc_scalar_bytes(t->scalar) < 4 && !clc_scalar_is_floating(t->scalar))
        return clc_type_scalar(CLC_S_INT);
    return t;
}

static int ty_rank(clc_scalar s)
{
    switch (s) {
    case CLC_S_DOUBLE: return 8;
    case CLC_S_FLOAT: return 7;
    case CLC_S_HALF: return 6;
    case CLC_S_ULONG: return 5;
    case CLC_S_LONG: return 4;
    case CLC_S_UINT: return 3;
    default: return 2;
    }
}

/* The type of an arithmetic operator's result ('+', '*', '&', ...). */
static const clc_type *ty_arithmetic(ty_reader *r, const clc_type *a,
                                     const clc_type *b, int subtract)
{
    if (a == NULL || b == NULL)
        return NULL;
    if (clc_type_is_vector(a))
        return a;
    if (clc_type_is_vector(b))
        return b;
    if (clc_type_is_pointer(a) && clc_type_is_pointer(b))
        return subtract ? clc_type_scalar(CLC_S_LONG) : NULL;
    if (clc_type_is_pointer(a) || clc_type_is_pointer(b)) {
        const clc_type *p = clc_type_is_pointer(a) ? a : b;
        if (p->kind == CLC_TYPE_ARRAY)
            p = clc_type_pointer(r->s->arena, p->base, CLC_SPACE_DEFAULT);
        return p;
    }
    if (!clc_type_is_scalar(a) || !clc_type_is_scalar(b))
        return NULL;
    a = ty_promote(a);
    b = ty_promote(b);
    return ty_rank(a->scalar) >= ty_rank(b->scalar) ? a : b;
}

/* A comparison's or logical operator's result: int, or for vectors the
 * signed integer vector of their element's size. */
static const clc_type *ty_relational(ty_reader *r, const clc_type *a,
                                     const clc_type *b)
{
    if (a == NULL || b == NULL)
        return NULL;
    const clc_type *v = clc_type_is_vector(a) ? a
                        : clc_type_is_vector(b) ? b : NULL;
    if (v == NULL)
        return clc_type_scalar(CLC_S_INT);
    return clc_type_vector(r->s->arena,
                           clc_scalar_signed_of_size(clc_scalar_bytes(v->scalar)),
                           v->width);
}

/* A swizzle's width (x, xy, s01, lo...) on a vector of `width`; 0 when
 * the name is not one. */
static unsigned ty_swizzle(const clc_ident *name, unsigned width)
{
    const char *n = name->name;
    size_t length = name->length;
    if ((length == 2 && (memcmp(n, "lo", 2) == 0 || memcmp(n, "hi", 2) == 0)) ||
        (length == 3 && memcmp(n, "odd", 3) == 0) ||
        (length == 4 && memcmp(n, "even", 4) == 0))
        return (width + 1) / 2;
    if (length >= 2 && (n[0] == 's' || n[0] == 'S')) {
        for (size_t k = 1; k < length; ++k)
            if (!((n[k] >= '0' && n[k] <= '9') || (n[k] >= 'a' && n[k] <= 'f') ||
                  (n[k] >= 'A' && n[k] <= 'F')))
                return 0;
        return (unsigned)(length - 1);
    }
    for (size_t k = 0; k < length; ++k)
        if (strchr("xyzwrgba", n[k]) == NULL || n[k] == '\0')
            return 0;
    return (unsigned)length;
}

/* A number literal: int, unsigned, long, float, double, half by its
 * spelling. */
static const clc_type *ty_number(const clc_token *t)
{
    const char *p = t->text;
    size_t n = t->length;
    int hex = n > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    int floating = 0;
    for (size_t k = 0; k < n; ++k)
        if (p[k] == '.' || (!hex && (p[k] == 'e' || p[k] == 'E')) ||
            (hex && (p[k] == 'p' || p[k] == 'P')))
            floating = 1;
    int u = 0, l = 0, f = 0, h = 0;
    for (size_t k = n; k-- > 0;) {
        char c = p[k];
        if (c == 'u' || c == 'U')
            u = 1;
        else if (c == 'l' || c == 'L')
            l = 1;
        else if (floating && (c == 'f' || c == 'F'))
            f = 1;
        else if (floating && (c == 'h' || c == 'H'))
            h = 1;
        else
            break;
    }
    if (floating)
        return clc_type_scalar(f ? CLC_S_FLOAT : h ? CLC_S_HALF : CLC_S_DOUBLE);
    if (l)
        return clc_type_scalar(u ? CLC_S_ULONG : CLC_S_LONG);
    return clc_type_scalar(u ? CLC_S_UINT : CLC_S_INT);
}

static const clc_type *ty_primary(ty_reader *r)
{
    if (r->i >= r->end) {
        r->failed = 1;
        return NULL;
    }
    const clc_token *t = &r->s->tokens[r->i];
    switch (t->kind) {
    case CLC_TOK_NUMBER:
        ++r->i;
        return ty_number(t);
    case CLC_TOK_CHAR:
        ++r->i;
        return clc_type_scalar(CLC_S_INT);
    case CLC_TOK_STRING:
        while (r->i < r->end && r->s->tokens[r->i].kind == CLC_TOK_STRING)
            ++r->i;
        return clc_type_pointer(r->s->arena, clc_type_scalar(CLC_S_CHAR),
                                CLC_SPACE_CONSTANT);
    case CLC_TOK_IDENT: {
        const clc_symbol *symbol = clc_symbol_at(r->s, r->i);
        ++r->i;
        if (t->ident == W_true || t->ident == W_false)
            return clc_type_scalar(CLC_S_INT);
        if (symbol == NULL)
            return NULL;
        switch (symbol->kind) {
        case CLC_SYMBOL_OBJECT:
            if (symbol->type->kind == CLC_TYPE_ARRAY) /* decays */
                return clc_type_pointer(r->s->arena, symbol->type->base,
                                        symbol->space);
            return symbol->type;
        case CLC_SYMBOL_FUNCTION:
            return symbol->type;
        case CLC_SYMBOL_ENUMERATOR:
            return clc_type_scalar(CLC_S_INT);
        case CLC_SYMBOL_TYPEDEF:
            r->failed = 1;
            return NULL;
        }
        return NULL;
    }
    case CLC_TOK_PUNCT:
        if (t->punct == P_LPAREN) {
            size_t close = ty_match(r);
            ty_reader inner = {r->s, r->i + 1, close, 0, r->depth};
            const clc_type *type = ty_expression(&inner);
            if (inner.failed || inner.i != close)
                r->failed = 1;
            r->i = close + 1;
            return r->failed ? NULL : type;
        }
        break;
    default:
        break;
    }
    r->failed = 1;
    return NULL;
}

static const clc_type *ty_postfix(ty_reader *r)
{
    const clc_type *type = ty_primary(r);
    while (!r->failed && r->i < r->end) {
        if (ty_punct(r, P_LBRACKET)) {
            r->i = ty_match(r) + 1;
            type = clc_type_pointee(type);
        } else if (ty_punct(r, P_LPAREN)) {
            r->i = ty_match(r) + 1;
            if (clc_type_is_pointer(type))
                type = clc_type_pointee(type);
            type = type != NULL && type->kind == CLC_TYPE_FUNCTION ? type->base
                                                                   : NULL;
        } else if ((ty_punct(r, P_DOT) || ty_punct(r, P_ARROW)) &&
                   r->i + 1 < r->end &&
                   r->s->tokens[r->i + 1].kind == CLC_TOK_IDENT) {
            if (ty_punct(r, P_ARROW))
                type = clc_type_pointee(type);
            int32_t name = r->s->tokens[r->i + 1].ident;
            if (clc_type_is_vector(type)) {
                unsigned width = ty_swizzle(clc_ident_get(r->s->interner, name),
                                            type->width);
                type = width == 0 ? NULL
                                  : clc_type_vector(r->s->arena, type->scalar,
                                                    width);
            } else {
                type = clc_type_member(type, name);
            }
            r->i += 2;
        } else if (ty_punct(r, P_INC) || ty_punct(r, P_DEC)) {
            ++r->i;
        } else {
            break;
        }
        if (type == NULL)
            return NULL;
    }
    return type;
}

/* '(' type ')' at r->i: the type, with r->i after the ')'. */
static const clc_type *ty_cast(ty_reader *r)
{
    if (!ty_punct(r, P_LPAREN))
        return NULL;
    size_t close = r->s->match[r->i];
    if (close >= r->end || close <= r->i)
        return NULL;
    const clc_type *type = NULL;
    size_t after = clc_type_name_at(r->s, r->i + 1, close, &type);
    if (after != close || type == NULL)
        return NULL;
    r->i = close + 1;
    return type;
}

static const clc_type *ty_unary_at(ty_reader *r);

static const clc_type *ty_unary(ty_reader *r)
{
    if (r->depth >= TY_MAX_DEPTH) {
        r->failed = 1;
        return NULL;
    }
    r->depth++;
    const clc_type *type = ty_unary_at(r);
    r->depth--;
    return type;
}

static const clc_type *ty_unary_at(ty_reader *r)
{
    if (ty_punct(r, P_MINUS) || ty_punct(r, P_PLUS) || ty_punct(r, P_TILDE)) {
        ++r->i;
        return ty_promote(ty_unary(r));
    }
    if (ty_punct(r, P_INC) || ty_punct(r, P_DEC)) {
        ++r->i;
        return ty_unary(r);
    }
    if (ty_punct(r, P_NOT)) {
        ++r->i;
        const clc_type *operand = ty_unary(r);
        return ty_relational(r, operand, clc_type_scalar(CLC_S_INT));
    }
    if (ty_punct(r, P_STAR)) {
        ++r->i;
        return clc_type_pointee(ty_unary(r));
    }
    if (ty_punct(r, P_AMP)) {
        ++r->i;
        size_t begin = r->i;
        const clc_type *operand = ty_unary(r);
        if (operand == NULL)
            return NULL;
        /* &name keeps the space the object lives in */
        clc_space space = CLC_SPACE_DEFAULT;
        const clc_symbol *symbol = clc_symbol_at(r->s, begin);
        if (symbol != NULL && r->i == begin + 1)
            space = symbol->space;
        return clc_type_pointer(r->s->arena, operand, space);
    }
    if (ty_word(r, W_sizeof) || ty_word(r, W__Alignof) ||
        ty_word(r, W___alignof__) || ty_word(r, W_vec_step)) {
        int vec_step = ty_word(r, W_vec_step);
        ++r->i;
        if (ty_cast(r) == NULL)
            ty_unary(r);
        return clc_type_scalar(vec_step ? CLC_S_INT : CLC_S_ULONG);
    }
    size_t at = r->i;
    const clc_type *cast = ty_cast(r);
    if (cast != NULL) {
        /* (float4)(1, 2, 3, 4) is a vector literal: its type is the cast's */
        ty_unary(r);
        return r->failed ? NULL : cast;
    }
    r->i = at;
    return ty_postfix(r);
}

/* Binary operators by precedence, loosest first. */
static int ty_precedence(const ty_reader *r)
{
    if (r->i >= r->end || r->s->tokens[r->i].kind != CLC_TOK_PUNCT)
        return 0;
    switch (r->s->tokens[r->i].punct) {
    case P_OROR: return 1;
    case P_ANDAND: return 2;
    case P_PIPE: return 3;
    case P_CARET: return 4;
    case P_AMP: return 5;
    case P_EQ: case P_NE: return 6;
    case P_LT: case P_GT: case P_LE: case P_GE: return 7;
    case P_SHL: case P_SHR: return 8;
    case P_PLUS: case P_MINUS: return 9;
    case P_STAR: case P_SLASH: case P_PERCENT: return 10;
    default: return 0;
    }
}

static const clc_type *ty_binary(ty_reader *r, int lowest)
{
    const clc_type *left = ty_unary(r);
    for (;;) {
        int precedence = ty_precedence(r);
        if (precedence < lowest || precedence == 0 || r->failed)
            return r->failed ? NULL : left;
        clc_punct op = (clc_punct)r->s->tokens[r->i].punct;
        ++r->i;
        const clc_type *right = ty_binary(r, precedence + 1);
        if (precedence <= 2 || precedence == 6 || precedence == 7)
            left = ty_relational(r, left, right);
        else if (precedence == 8)
            left = right == NULL ? NULL
                   : clc_type_is_vector(right) && !clc_type_is_vector(left)
                       ? NULL /* scalar << vector: not OpenCL C */
                       : ty_promote(left);
        else
            left = ty_arithmetic(r, left, right, op == P_MINUS);
    }
}

static const clc_type *ty_conditional(ty_reader *r)
{
    const clc_type *condition = ty_binary(r, 1);
    if (!ty_punct(r, P_QUESTION))
        return condition;
    ++r->i;
    const clc_type *yes = ty_expression(r);
    if (!ty_punct(r, P_COLON)) {
        r->failed = 1;
        return NULL;
    }
    ++r->i;
    if (r->depth >= TY_MAX_DEPTH) {
        r->failed = 1;
        return NULL;
    }
    r->depth++;
    const clc_type *no = ty_conditional(r);
    r->depth--;
    if (condition == NULL || yes == NULL || no == NULL)
        return NULL;
    if (clc_type_is_pointer(yes))
        return yes;
    if (clc_type_is_pointer(no))
        return no;
    if (yes->kind == CLC_TYPE_STRUCT)
        return yes;
    const clc_type *type = ty_arithmetic(r, yes, no, 0);
    if (clc_type_is_vector(condition) && type != NULL && !clc_type_is_vector(type))
        return NULL; /* a vector condition selects vectors */
    return type;
}

static const clc_type *ty_assignment(ty_reader *r)
{
    const clc_type *left = ty_conditional(r);
    if (r->i < r->end && r->s->tokens[r->i].kind == CLC_TOK_PUNCT) {
        switch (r->s->tokens[r->i].punct) {
        case P_ASSIGN: case P_MUL_ASSIGN: case P_DIV_ASSIGN: case P_MOD_ASSIGN:
        case P_ADD_ASSIGN: case P_SUB_ASSIGN: case P_SHL_ASSIGN:
        case P_SHR_ASSIGN: case P_AND_ASSIGN: case P_XOR_ASSIGN:
        case P_OR_ASSIGN:
            ++r->i;
            if (r->depth >= TY_MAX_DEPTH) {
                r->failed = 1;
                return NULL;
            }
            r->depth++;
            ty_assignment(r);
            r->depth--;
            return r->failed ? NULL : left;
        default:
            break;
        }
    }
    return left;
}

static const clc_type *ty_expression(ty_reader *r)
{
    const clc_type *type = ty_assignment(r);
    while (!r->failed && ty_punct(r, P_COMMA)) {
        ++r->i;
        type = ty_assignment(r);
    }
    return r->failed ? NULL : type;
}

const clc_type *clc_expr_type(const clc_symbols *symbols, size_t begin,
                              size_t end)
{
    if (end > symbols->count)
        end = symbols->count;
    if (begin >= end)
        return NULL;
    ty_reader r = {symbols, begin, end, 0, 0};
    const clc_type *type = ty_expression(&r);
    if (r.failed || r.i != end)
        return NULL;
    return type;
}

int clc_expr_is_vector(const clc_symbols *symbols, size_t begin, size_t end)
{
    const clc_type *type = clc_expr_type(symbols, begin, end);
    if (type == NULL)
        return -1;
    return clc_type_is_vector(type);
}

clc_space clc_expr_space(const clc_symbols *symbols, size_t begin, size_t end)
{
    const clc_type *type = clc_expr_type(symbols, begin, end);
    if (type != NULL && type->kind == CLC_TYPE_POINTER)
        return type->space;
    return CLC_SPACE_DEFAULT;
}

size_t clc_postfix_begin(const clc_symbols *symbols, size_t last)
{
    const clc_symbols *s = symbols;
    size_t i = last;
    for (;;) {
        if (i >= s->count)
            return last;
        const clc_token *t = &s->tokens[i];
        size_t first;
        if (t->kind == CLC_TOK_IDENT || t->kind == CLC_TOK_NUMBER) {
            first = i;
        } else if (t->kind == CLC_TOK_PUNCT &&
                   (t->punct == P_RBRACKET || t->punct == P_RPAREN)) {
            size_t open = s->match[i];
            if (open >= i)
                return last;
            if (t->punct == P_RPAREN && !(open > 0 &&
                                         (s->tokens[open - 1].kind == CLC_TOK_IDENT ||
                                          (s->tokens[open - 1].kind == CLC_TOK_PUNCT &&
                                           (s->tokens[open - 1].punct == P_RPAREN ||
                                            s->tokens[open - 1].punct == P_RBRACKET)))))
                return open; /* a parenthesised expression */
            if (open == 0)
                return last;
            i = open - 1; /* the indexed or called expression */
            continue;
        } else {
            return last;
        }
        if (first >= 2 && s->tokens[first - 1].kind == CLC_TOK_PUNCT &&
            (s->tokens[first - 1].punct == P_DOT ||
             s->tokens[first - 1].punct == P_ARROW)) {
            i = first - 2;
            continue;
        }
        return first;
    }
}
