/*
 * The front end's declarations, scopes and expression types, without a GPU
 * or a plugin: which declaration each name means where it stands
 * (shadowing in blocks, parameters and for statements), the types the
 * declaration parser gives (vectors, pointers with their address space,
 * arrays, typedefs, struct members, CUDA C's qualifiers), and the types
 * the expression typer computes for the operands the rewrites ask about.
 */
#include "config.h"

#include "harness.h"

#include "expr_type.h"
#include "lexer.h"
#include "symbols.h"
#include "types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A scanned program: its tokens and its table. */
typedef struct program {
    clc_failure failure;
    clc_arena arena;
    clc_interner interner;
    clc_token_array tokens;
    size_t *match;
    clc_symbols symbols;
} program;

static program *scan(const char *source, clc_language language)
{
    program *p = calloc(1, sizeof *p);
    assert_non_null(p);
    clc_arena_init(&p->arena, &p->failure, CLC_MAX_ARENA_BYTES);
    if (setjmp(p->failure.unwind) != 0)
        fail_msg("the scan failed: %s", p->failure.message);
    clc_interner_init(&p->interner, &p->arena);
    clc_lex(source, strlen(source), 0, 1, &p->arena, &p->interner, &p->tokens);
    size_t count = p->tokens.count - 1; /* without EOF */
    p->match = clc_arena_alloc(&p->arena, (count + 1) * sizeof *p->match);
    size_t *stack = clc_arena_alloc(&p->arena, (count + 1) * sizeof *stack);
    size_t depth = 0;
    for (size_t i = 0; i < count; ++i) {
        const clc_token *t = &p->tokens.tokens[i];
        p->match[i] = SIZE_MAX;
        if (t->kind != CLC_TOK_PUNCT)
            continue;
        if (t->punct == P_LPAREN || t->punct == P_LBRACKET ||
            t->punct == P_LBRACE) {
            stack[depth++] = i;
        } else if (t->punct == P_RPAREN || t->punct == P_RBRACKET ||
                   t->punct == P_RBRACE) {
            assert_true(depth > 0);
            p->match[i] = stack[--depth];
            p->match[stack[depth]] = i;
        }
    }
    assert_int_equal(depth, 0);
    clc_symbols_init(&p->symbols, &p->arena, &p->interner, language,
                     p->tokens.tokens, count, p->match);
    clc_symbols_scan(&p->symbols);
    return p;
}

static void release(program *p)
{
    clc_interner_free(&p->interner);
    clc_arena_free(&p->arena);
    free(p);
}

/* The index of the n-th (0-based) token spelled `text`. */
static size_t token_of(const program *p, const char *text, int n)
{
    size_t length = strlen(text);
    for (size_t i = 0; i + 1 < p->tokens.count; ++i) {
        const clc_token *t = &p->tokens.tokens[i];
        if (t->length == length && memcmp(t->text, text, length) == 0 &&
            n-- == 0)
            return i;
    }
    fail_msg("no token '%s'", text);
    return 0;
}

/* The declaration the n-th `name` means. */
static const clc_symbol *at(const program *p, const char *name, int n)
{
    return clc_symbol_at(&p->symbols, token_of(p, name, n));
}

static void shadowing(void **state)
{
    (void)state;
    program *p = scan(
        "float4 v;\n"
        "void f(float v) {\n"
        "    v;\n"              /* the parameter (v #2) */
        "    { int v; v; }\n"   /* declared v #3, used v #4 */
        "    v;\n"              /* the parameter again (v #5) */
        "    for (uint v = 0; v < 4; ++v) v;\n" /* v #6..#9 */
        "    v;\n"              /* v #10: the parameter */
        "}\n"
        "void g(void) { v; }\n", /* v #11: the file-scope vector */
        CLC_LANGUAGE_OPENCL_C);
    const clc_symbol *file = at(p, "v", 0), *param = at(p, "v", 1);
    assert_non_null(file);
    assert_non_null(param);
    assert_int_equal(file->depth, 0);
    assert_true(clc_type_is_vector(file->type));
    assert_int_equal(file->type->width, 4);
    assert_true(param->is_parameter);
    assert_ptr_equal(param->hidden, file);
    assert_int_equal(param->type->scalar, CLC_S_FLOAT);
    assert_ptr_equal(at(p, "v", 2), param);
    const clc_symbol *block = at(p, "v", 3);
    assert_ptr_not_equal(block, param);
    assert_int_equal(block->type->scalar, CLC_S_INT);
    assert_ptr_equal(at(p, "v", 4), block);
    assert_ptr_equal(at(p, "v", 5), param);
    const clc_symbol *loop = at(p, "v", 6);
    assert_int_equal(loop->type->scalar, CLC_S_UINT);
    for (int k = 7; k <= 9; ++k)
        assert_ptr_equal(at(p, "v", k), loop);
    assert_ptr_equal(at(p, "v", 10), param);
    assert_ptr_equal(at(p, "v", 11), file);
    /* each use typed by the declaration it means */
    assert_int_equal(clc_expr_is_vector(&p->symbols, token_of(p, "v", 11),
                                        token_of(p, "v", 11) + 1), 1);
    assert_int_equal(clc_expr_is_vector(&p->symbols, token_of(p, "v", 10),
                                        token_of(p, "v", 10) + 1), 0);
    release(p);
}

/* Random nests of blocks, each maybe declaring `x` with its own type: every
 * use must mean the innermost declaration open at that point. */
static void shadowing_random(void **state)
{
    (void)state;
    static const char *const types[] = {"int", "float2", "uint", "double4",
                                        "char"};
    for (int round = 0; round < 40; ++round) {
        char source[8192] = "void f(void) {\n";
        int expected[256]; /* per use: the declaration's number, -1 none */
        int uses = 0, declarations = 0;
        int stack[64], depth = 0; /* declaration visible per open block */
        int visible = -1;
        for (int step = 0; step < 60 && strlen(source) < 7000; ++step) {
            uint64_t r = test_random_u64() % 4;
            if (r == 0 && depth < 60) {
                strcat(source, "{\n");
                stack[depth++] = visible;
            } else if (r == 1 && depth > 0) {
                strcat(source, "}\n");
                visible = stack[--depth];
            } else if (r == 2) {
                char line[64];
                snprintf(line, sizeof line, "%s x;\n",
                         types[declarations % 5]);
                strcat(source, line);
                visible = declarations++;
            } else if (uses < 256) {
                strcat(source, "x;\n");
                expected[uses++] = visible;
            }
        }
        while (depth-- > 0)
            strcat(source, "}\n");
        strcat(source, "}\n");
        program *p = scan(source, CLC_LANGUAGE_OPENCL_C);
        int declared = 0, used = 0;
        for (size_t i = 0; i + 1 < p->tokens.count; ++i) {
            const clc_token *t = &p->tokens.tokens[i];
            if (t->kind != CLC_TOK_IDENT || t->length != 1 || t->text[0] != 'x')
                continue;
            const clc_symbol *symbol = clc_symbol_at(&p->symbols, i);
            if (symbol != NULL && symbol->token == i) {
                ++declared;
                continue;
            }
            int want = expected[used++];
            if (want < 0) {
                assert_null(symbol);
            } else {
                assert_non_null(symbol);
                const clc_token *decl = &p->tokens.tokens[symbol->token - 1];
                assert_int_equal(decl->length, strlen(types[want % 5]));
                assert_memory_equal(decl->text, types[want % 5], decl->length);
            }
        }
        assert_int_equal(declared, declarations);
        assert_int_equal(used, uses);
        release(p);
    }
}

static void address_spaces(void **state)
{
    (void)state;
    program *p = scan(
        "__kernel void k(__global float *a, __local int4 *b,\n"
        "                __constant float *c, float *d, global uint *e) {\n"
        "    __local float tile[16][16];\n"
        "    float x, *px = &x, arr[8];\n"
        "    a; b; c; d; e; tile; tile[1]; &x; arr; a + 1; &a[2]; px;\n"
        "}\n",
        CLC_LANGUAGE_OPENCL_C);
    const clc_symbols *s = &p->symbols;
    struct {
        const char *name;
        clc_space space;
    } expect[] = {
        {"a", CLC_SPACE_GLOBAL},   {"b", CLC_SPACE_LOCAL},
        {"c", CLC_SPACE_CONSTANT}, {"d", CLC_SPACE_DEFAULT},
        {"e", CLC_SPACE_GLOBAL},   {"tile", CLC_SPACE_LOCAL},
        {"arr", CLC_SPACE_DEFAULT},
    };
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; ++k) {
        size_t use = token_of(p, expect[k].name, 1); /* 0 declares it */
        const clc_type *type = clc_expr_type(s, use, use + 1);
        assert_non_null(type);
        assert_int_equal(type->kind, CLC_TYPE_POINTER);
        assert_int_equal(clc_expr_space(s, use, use + 1), expect[k].space);
    }
    /* tile[1] is a float[16] of local memory: it decays to a local pointer */
    const clc_symbol *tile = at(p, "tile", 0);
    assert_int_equal(tile->space, CLC_SPACE_LOCAL);
    assert_int_equal(tile->type->kind, CLC_TYPE_ARRAY);
    assert_int_equal(tile->type->length, 16);
    assert_int_equal(tile->type->base->length, 16);
    const clc_type *b = clc_type_pointee(at(p, "b", 1)->type);
    assert_true(clc_type_is_vector(b));
    assert_int_equal(b->scalar, CLC_S_INT);
    /* &x: a pointer to private float; a + 1 stays global; &a[2] too */
    const clc_type *address = clc_expr_type(s, token_of(p, "&", 1), token_of(p, "&", 1) + 2);
    assert_non_null(address);
    assert_int_equal(address->kind, CLC_TYPE_POINTER);
    assert_int_equal(address->base->scalar, CLC_S_FLOAT);
    size_t plus = token_of(p, "+", 0);
    assert_int_equal(clc_expr_space(s, plus - 1, plus + 2), CLC_SPACE_GLOBAL);
    assert_int_equal(at(p, "px", 0)->type->kind, CLC_TYPE_POINTER);
    assert_int_equal(at(p, "x", 0)->type->kind, CLC_TYPE_SCALAR);
    release(p);
}

static void vectors(void **state)
{
    (void)state;
    program *p = scan(
        "float4 add(float4 a, float b);\n"
        "void f(float4 a, float s, int i, double2 d) {\n"
        "    a + s ;\n"                 /* vector */
        "    s * 2 ;\n"                 /* float */
        "    a.xy ;\n"                  /* float2 */
        "    a.x ;\n"                   /* float */
        "    a < a ;\n"                 /* int4 */
        "    d == d ;\n"                /* long2 */
        "    (float4)(1, 2, 3, 4) ;\n"  /* float4 */
        "    s > 0 ? a : a ;\n"         /* float4 */
        "    a.x > 0 ? s : s ;\n"       /* float */
        "    add(a, s).lo ;\n"          /* float2 */
        "    dot(a, a) ;\n"             /* unknown: a built-in */
        "    i << 2 ;\n"                /* int */
        "    1.0f + i ;\n"              /* float */
        "    2u + i ;\n"                /* uint */
        "    !a ;\n"                    /* int4 */
        "    a.s01 ;\n"                 /* float2 */
        "    d.even ;\n"                /* double */
        "}\n",
        CLC_LANGUAGE_OPENCL_C);
    const clc_symbols *s = &p->symbols;
    struct {
        clc_type_kind kind;
        clc_scalar scalar;
        unsigned width;
    } expect[] = {
        {CLC_TYPE_VECTOR, CLC_S_FLOAT, 4}, {CLC_TYPE_SCALAR, CLC_S_FLOAT, 1},
        {CLC_TYPE_VECTOR, CLC_S_FLOAT, 2}, {CLC_TYPE_SCALAR, CLC_S_FLOAT, 1},
        {CLC_TYPE_VECTOR, CLC_S_INT, 4},   {CLC_TYPE_VECTOR, CLC_S_LONG, 2},
        {CLC_TYPE_VECTOR, CLC_S_FLOAT, 4}, {CLC_TYPE_VECTOR, CLC_S_FLOAT, 4},
        {CLC_TYPE_SCALAR, CLC_S_FLOAT, 1}, {CLC_TYPE_VECTOR, CLC_S_FLOAT, 2},
        {0, 0, 0},                         {CLC_TYPE_SCALAR, CLC_S_INT, 1},
        {CLC_TYPE_SCALAR, CLC_S_FLOAT, 1}, {CLC_TYPE_SCALAR, CLC_S_UINT, 1},
        {CLC_TYPE_VECTOR, CLC_S_INT, 4},   {CLC_TYPE_VECTOR, CLC_S_FLOAT, 2},
        {CLC_TYPE_SCALAR, CLC_S_DOUBLE, 1},
    };
    /* statements between the body's '{' and each ';' */
    size_t begin = token_of(p, "{", 0) + 1;
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; ++k) {
        size_t end = token_of(p, ";", (int)k + 1);
        const clc_type *type = clc_expr_type(s, begin, end);
        if (expect[k].kind == 0) {
            assert_null(type);
            assert_int_equal(clc_expr_is_vector(s, begin, end), -1);
        } else {
            if (type == NULL)
                fail_msg("statement %zu has no type", k);
            assert_int_equal(type->kind, expect[k].kind);
            assert_int_equal(type->scalar, expect[k].scalar);
            assert_int_equal(clc_type_width(type), expect[k].width);
            assert_int_equal(clc_expr_is_vector(s, begin, end),
                             expect[k].kind == CLC_TYPE_VECTOR);
        }
        begin = end + 1;
    }
    release(p);
}

static void typedefs_and_members(void **state)
{
    (void)state;
    program *p = scan(
        "typedef float4 vec;\n"
        "typedef struct { float x; vec v; __global int *data; } S;\n"
        "typedef S *SP;\n"
        "struct particle { float pos[3]; struct particle *next; uint2 id; };\n"
        "typedef unsigned long long ull, *ullp;\n"
        "void f(vec a, S s, SP sp, struct particle q, ull u, ullp up) {\n"
        "    a; s.v; s.x; sp->v.zw; s.data; q.pos; q.next->id; u; up;\n"
        "    { float vec = 1; vec; }\n"
        "}\n",
        CLC_LANGUAGE_OPENCL_C);
    const clc_symbols *s = &p->symbols;
    /* a function's parameter types see the typedefs before it */
    const clc_symbol *f = at(p, "f", 0);
    assert_int_equal(f->kind, CLC_SYMBOL_FUNCTION);
    assert_int_equal(f->type->param_count, 6);
    assert_true(clc_type_is_vector(f->type->params[0]));
    assert_int_equal(f->type->params[1]->kind, CLC_TYPE_STRUCT);
    assert_int_equal(f->type->params[2]->kind, CLC_TYPE_POINTER);
    assert_int_equal(f->type->params[5]->kind, CLC_TYPE_POINTER);
    const clc_symbol *vec = at(p, "vec", 0);
    assert_int_equal(vec->kind, CLC_SYMBOL_TYPEDEF);
    assert_true(clc_type_is_vector(vec->type));
    assert_ptr_equal(at(p, "vec", 1), vec); /* used as a member's type */
    size_t a = token_of(p, "a", 1);
    assert_int_equal(clc_expr_is_vector(s, a, a + 1), 1);
    size_t sv = token_of(p, "s", 1);
    assert_int_equal(clc_expr_is_vector(s, sv, sv + 3), 1);
    size_t sx = token_of(p, "s", 2);
    assert_int_equal(clc_expr_is_vector(s, sx, sx + 3), 0);
    size_t spv = token_of(p, "sp", 1);
    const clc_type *zw = clc_expr_type(s, spv, spv + 5);
    assert_non_null(zw);
    assert_int_equal(clc_type_width(zw), 2);
    size_t data = token_of(p, "s", 3);
    assert_int_equal(clc_expr_space(s, data, data + 3), CLC_SPACE_GLOBAL);
    size_t pos = token_of(p, "q", 1);
    const clc_type *pos_type = clc_expr_type(s, pos, pos + 3);
    assert_non_null(pos_type);
    assert_int_equal(pos_type->kind, CLC_TYPE_ARRAY);
    assert_int_equal(pos_type->length, 3);
    size_t id = token_of(p, "q", 2);
    const clc_type *id_type = clc_expr_type(s, id, id + 5);
    assert_non_null(id_type);
    assert_int_equal(id_type->scalar, CLC_S_UINT);
    assert_int_equal(id_type->width, 2);
    const clc_type *record = clc_symbol_tag(s, p->tokens.tokens[token_of(p, "particle", 0)].ident);
    assert_non_null(record);
    assert_int_equal(record->member_count, 3);
    assert_int_equal(at(p, "u", 1)->type->scalar, CLC_S_ULONG);
    assert_int_equal(at(p, "up", 1)->type->kind, CLC_TYPE_POINTER);
    assert_int_equal(at(p, "up", 1)->type->base->scalar, CLC_S_ULONG);
    assert_true(clc_symbols_member_name(s, p->tokens.tokens[token_of(p, "pos", 0)].ident));
    /* a local named like the typedef hides it */
    const clc_symbol *local = at(p, "vec", 3);
    assert_int_equal(local->kind, CLC_SYMBOL_OBJECT);
    assert_ptr_equal(at(p, "vec", 4), local);
    release(p);
}

static void cuda_declarations(void **state)
{
    (void)state;
    program *p = scan(
        "__constant__ float weights[16];\n"
        "__device__ int counter;\n"
        "struct cell { float value; int2 at; };\n"
        "extern \"C\" __global__ void k(float *out, const cell *cells, int n)\n"
        "{\n"
        "    __shared__ float tile[256];\n"
        "    float *q = tile;\n"
        "    out; cells[0].at; tile; weights; counter; q;\n"
        "}\n",
        CLC_LANGUAGE_CUDA_C);
    const clc_symbols *s = &p->symbols;
    assert_int_equal(at(p, "weights", 0)->space, CLC_SPACE_CONSTANT);
    assert_int_equal(at(p, "counter", 0)->space, CLC_SPACE_GLOBAL);
    const clc_symbol *k = at(p, "k", 0);
    assert_int_equal(k->kind, CLC_SYMBOL_FUNCTION);
    assert_int_equal(k->type->param_count, 3);
    assert_int_equal(k->type->params[0]->kind, CLC_TYPE_POINTER);
    assert_int_equal(k->type->params[2]->scalar, CLC_S_INT);
    /* C++: the tag names the type */
    const clc_symbol *cells = at(p, "cells", 0);
    assert_int_equal(clc_type_pointee(cells->type)->kind, CLC_TYPE_STRUCT);
    size_t at_use = token_of(p, "cells", 1);
    const clc_type *at_type = clc_expr_type(s, at_use, at_use + 6);
    assert_non_null(at_type);
    assert_int_equal(at_type->width, 2);
    size_t tile = token_of(p, "tile", 2);
    assert_int_equal(clc_expr_space(s, tile, tile + 1), CLC_SPACE_LOCAL);
    size_t out = token_of(p, "out", 1);
    assert_int_equal(clc_expr_space(s, out, out + 1), CLC_SPACE_DEFAULT);
    size_t weights = token_of(p, "weights", 1);
    assert_int_equal(clc_expr_space(s, weights, weights + 1),
                     CLC_SPACE_CONSTANT);
    assert_ptr_equal(at(p, "q", 1), at(p, "q", 0));
    release(p);
}

static void postfix_begin(void **state)
{
    (void)state;
    program *p = scan("void f(void) { a.b[i + 1].c(x)[2].xy; (p + 1)->q; }",
                      CLC_LANGUAGE_OPENCL_C);
    size_t last_dot = token_of(p, ".", 2);
    assert_int_equal(clc_postfix_begin(&p->symbols, last_dot - 1),
                     token_of(p, "a", 0));
    size_t arrow = token_of(p, "->", 0);
    assert_int_equal(clc_postfix_begin(&p->symbols, arrow - 1),
                     token_of(p, "(", 2));
    release(p);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(shadowing),
        KILN_TEST(shadowing_random),
        KILN_TEST(address_spaces),
        KILN_TEST(vectors),
        KILN_TEST(typedefs_and_members),
        KILN_TEST(cuda_declarations),
        KILN_TEST(postfix_begin),
    };
    return kiln_test_main_plain("symbols", tests,
                                sizeof tests / sizeof tests[0]);
}
