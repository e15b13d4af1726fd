/*
 * CUDA C -> OpenCL C: the pass (see cuda_to_opencl.h for the contract).
 *
 * The source goes through the front end's preprocessor, then the pass
 * reads the top level (functions, variables, types), finds what each
 * function needs that OpenCL has no name for (shared memory declared in
 * helpers, dynamic shared memory, __device__ and __constant__ variables)
 * and threads it through as hidden parameters, and writes each function
 * once per combination of address spaces its pointer parameters are
 * called with: OpenCL C 1.2 has no generic pointers, so a helper called
 * with a global pointer and with a shared one becomes two functions.
 * Inside bodies, a pointer variable takes the address space of what it is
 * initialised or assigned from, and a pointer cast that of its operand.
 *
 * Everything the prelude can name (threadIdx, __syncthreads, atomics, the
 * math library) is left to the prelude; the pass rewrites only what a
 * macro cannot: declarations, address spaces, CUDA's C++ spellings.
 */
#include "cuda_to_opencl.h"

#include "expr_type.h"
#include "symbols.h"
#include "lexer.h"
#include "preprocess.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CU_MAX_PARAMS 64
#define CU_MAX_DECLARATORS 32

typedef enum cu_space {
    CU_PRIVATE = 0,
    CU_GLOBAL,
    CU_LOCAL,
    CU_CONSTANT,
    CU_UNKNOWN
} cu_space;

static const char *const cu_space_word[] = {"", "__global ", "__local ",
                                            "__constant ", ""};
static const char cu_space_letter[] = "pglc?";

/* ---- the state ------------------------------------------------------------ */

typedef struct cu_param {
    size_t begin, end; /* the declaration's tokens, without the ','       */
    size_t name;       /* its name's token; 0 when unnamed               */
    int pointer;       /* a pointer or an array parameter                 */
} cu_param;

typedef struct cu_call {
    size_t token;      /* the callee's name in the caller's body          */
    size_t callee;
} cu_call;

typedef struct cu_function {
    int32_t name;
    size_t name_token;
    size_t begin;              /* first token of the definition          */
    size_t open, close;        /* the parameter list's parentheses       */
    size_t body_open, body_close;
    int defined;
    int is_kernel, force_inline, no_inline;
    cu_param *params;
    size_t param_count;
    cu_call *calls;
    size_t call_count;
    uint8_t *needs;            /* per hidden item                        */
    size_t *file_aliases;      /* file-scope extern __shared__ it uses   */
    size_t file_alias_count;
} cu_function;

typedef enum cu_hidden_kind {
    CU_H_VARIABLE,   /* __device__ / __constant__ variable: a buffer       */
    CU_H_SHARED,     /* __shared__ declared in a helper or at file scope  */
    CU_H_DYNAMIC     /* extern __shared__: the launch's local memory      */
} cu_hidden_kind;

typedef struct cu_hidden {
    cu_hidden_kind kind;
    int32_t name;
    size_t type_begin, type_end;   /* the element type's tokens           */
    size_t name_token;
    size_t dims_begin, dims_end;   /* [..][..] after the name             */
    size_t init_begin, init_end;   /* the initializer, empty when none    */
    size_t decl_begin, decl_end;   /* the whole declaration (';' included) */
    int array;
    int is_constant;
    long declared_in;              /* CU_H_SHARED: function, -1 file scope */
    size_t variable;               /* CU_H_VARIABLE: index in the output  */
} cu_hidden;

typedef struct cu_constant {
    int32_t name;
    size_t init_begin, init_end;
    size_t type_begin, type_end;
    const char *text;              /* rendered on first use               */
    int rendering;
} cu_constant;

typedef enum cu_item_kind {
    CU_ITEM_COPY,
    CU_ITEM_STRUCT,    /* a tagged definition: copied, then a typedef     */
    CU_ITEM_FUNCTION,  /* definition or prototype of functions[fn]        */
    CU_ITEM_VARIABLE,  /* hidden[hidden]: its initial value, if any       */
    CU_ITEM_CONSTANT,  /* program-scope __constant data                   */
    CU_ITEM_SKIP
} cu_item_kind;

typedef struct cu_item {
    cu_item_kind kind;
    size_t begin, end;  /* tokens [begin, end)                              */
    size_t fn;
    size_t hidden;
    int32_t tag;        /* CU_ITEM_STRUCT                                  */
    int prototype;
} cu_item;

/* Text to put around or instead of tokens of one range. */
typedef struct cu_edits {
    size_t begin, end;
    const char **before;
    const char **replace;   /* NULL: the token; "": dropped              */
    const char **after;
} cu_edits;

typedef struct cu_instance {
    size_t fn;
    uint8_t spaces[CU_MAX_PARAMS];
    const char *name;
    cu_edits edits;
    const char *hoisted;    /* __local declarations at the kernel's top  */
    const char *aliases;    /* file-scope extern __shared__ aliases      */
} cu_instance;

typedef struct cu_state {
    /* The device the program is translated for (translate.h). */
    const translate_target *target;
    clc_arena *arena;
    clc_failure *failure;
    clc_interner *interner;
    int *unsupported;
    const clc_token *tokens;
    size_t count;
    size_t *match;
    const char *const *file_names;

    /* What each name is where it stands: declarations, scopes, types. */
    clc_symbols symbols;

    /* by identifier id */
    int32_t *function_of;      /* function index + 1                    */
    int32_t *hidden_of;        /* file-scope hidden item index + 1      */
    int32_t *constant_of;      /* integer constant index + 1            */
    size_t ident_count;
    /* by variable (cu_variable_key) */
    uint8_t *global_space;     /* file-scope data: space + 1            */
    uint8_t *global_address;   /* ... an array                          */
    size_t key_count;

    cu_function *functions;
    size_t function_count;
    cu_hidden *hidden;
    size_t hidden_count;
    cu_constant *constants;
    size_t constant_count;
    cu_item *items;
    size_t item_count;
    cu_instance *instances;
    size_t instance_count;
    size_t variable_count;
    int uses_double;

    /* identifiers the pass looks for */
    int32_t w_global_, w_device_, w_host_, w_shared_, w_constant_,
        w_forceinline_, w_noinline_, w_launch_bounds_, w_managed_, w_align_,
        w_extern_c_block, w_threadIdx, w_blockIdx, w_blockDim, w_gridDim,
        w_x, w_y, w_z, w_nullptr, w_constexpr, w_static_cast,
        w_reinterpret_cast, w_const_cast, w_dim3, w_template, w_typename,
        w_class, w_namespace, w_using, w_operator, w_this, w_new, w_delete,
        w_virtual, w_public, w_private_kw, w_protected, w_friend, w_throw,
        w_try, w_catch, w_decltype, w_ptrdiff_t2;

    /* per-instance analysis scratch, by variable (cu_variable_key) */
    uint8_t *space_of;         /* space + 1, 0 when not a variable      */
    uint8_t *address_of;       /* a pointer or an array                 */
    uint8_t *pointer_var;      /* a pointer declared in this body       */
} cu_state;

/* ---- failure ---------------------------------------------------------------- */

static CLC_NORETURN void cu_fail_at(cu_state *st, size_t at, int unsupported,
                                    const char *format, va_list args)
    CLC_PRINTF(4, 0);
static void cu_fail_at(cu_state *st, size_t at, int unsupported,
                       const char *format, va_list args)
{
    char message[512];
    vsnprintf(message, sizeof message, format, args);
    const clc_token *t = &st->tokens[at < st->count ? at : st->count];
    *st->unsupported = unsupported;
    clc_fail(st->failure, t->file, t->line, "%s", message);
}

/* The source is wrong (KILN_ERR_BUILD). */
static CLC_NORETURN void cu_fail(cu_state *st, size_t at, const char *format,
                                 ...) CLC_PRINTF(3, 4);
static void cu_fail(cu_state *st, size_t at, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    cu_fail_at(st, at, 0, format, args);
}

/* Valid CUDA C the pass cannot translate (KILN_ERR_TRANSLATION). */
static CLC_NORETURN void cu_refuse(cu_state *st, size_t at, const char *format,
                                   ...) CLC_PRINTF(3, 4);
static void cu_refuse(cu_state *st, size_t at, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    cu_fail_at(st, at, 1, format, args);
}

static char *cu_printf(cu_state *st, const char *format, ...)
    CLC_PRINTF(2, 3);
static char *cu_printf(cu_state *st, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *text = clc_arena_alloc(st->arena, (size_t)n + 1);
    va_start(args, format);
    vsnprintf(text, (size_t)n + 1, format, args);
    va_end(args);
    return text;
}

static void *cu_grow(cu_state *st, void *items, size_t count, size_t size)
{
    /* Capacities are powers of two: grow when count reaches one. */
    if (count != 0 && (count & (count - 1)) != 0)
        return items;
    void *grown = clc_arena_alloc(st->arena, (count ? count * 2 : 4) * size);
    if (count)
        memcpy(grown, items, count * size);
    return grown;
}

/* ---- tokens ------------------------------------------------------------------- */

static int cu_punct(const cu_state *st, size_t i, clc_punct punct)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_PUNCT &&
           st->tokens[i].punct == punct;
}

static int cu_ident(const cu_state *st, size_t i)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_IDENT;
}

static int cu_is(const cu_state *st, size_t i, int32_t word)
{
    return cu_ident(st, i) && st->tokens[i].ident == word;
}

static const clc_ident *cu_name(const cu_state *st, size_t i)
{
    return clc_ident_get(st->interner, st->tokens[i].ident);
}

static int cu_name_is(const cu_state *st, size_t i, const char *name)
{
    if (!cu_ident(st, i))
        return 0;
    const clc_ident *id = cu_name(st, i);
    return id->length == strlen(name) && memcmp(id->name, name, id->length) == 0;
}

static int cu_name_starts(const cu_state *st, size_t i, const char *prefix)
{
    if (!cu_ident(st, i))
        return 0;
    const clc_ident *id = cu_name(st, i);
    size_t n = strlen(prefix);
    return id->length >= n && memcmp(id->name, prefix, n) == 0;
}

static const char *cu_spelling(cu_state *st, size_t i)
{
    return clc_arena_strndup(st->arena, st->tokens[i].text,
                             st->tokens[i].length);
}

/* A member name: after '.' or '->'. */
static int cu_is_member(const cu_state *st, size_t i)
{
    return i > 0 && (cu_punct(st, i - 1, P_DOT) || cu_punct(st, i - 1, P_ARROW));
}

/* Which variable the identifier at i names, as an index into the pass's
 * per-variable arrays: its declaration in the symbol table, or, for a
 * name the table does not know (a declaration it could not read), its
 * spelling. */
static size_t cu_variable_key(const cu_state *st, size_t i)
{
    const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
    if (symbol != NULL && symbol->kind == CLC_SYMBOL_OBJECT)
        return symbol->index;
    return st->symbols.symbol_count + (size_t)st->tokens[i].ident;
}

/* Whether the name at i is a type where it stands (a typedef, or in C++
 * a struct's or an enumeration's tag). */
static int cu_is_declared_type(const cu_state *st, size_t i)
{
    const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
    return symbol != NULL && symbol->kind == CLC_SYMBOL_TYPEDEF;
}

/* Whether a struct holds pointers, directly or in a member struct or
 * array. */
static int cu_type_has_pointers(const clc_type *type, unsigned depth)
{
    while (type != NULL && type->kind == CLC_TYPE_ARRAY)
        type = type->base;
    if (type == NULL || depth > 16)
        return 0;
    if (type->kind == CLC_TYPE_POINTER)
        return 1;
    if (type->kind != CLC_TYPE_STRUCT)
        return 0;
    for (size_t k = 0; k < type->member_count; ++k)
        if (cu_type_has_pointers(type->members[k].type, depth + 1))
            return 1;
    return 0;
}

static void cu_match_brackets(cu_state *st)
{
    st->match = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *st->match);
    size_t *stack = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *stack);
    size_t depth = 0;
    for (size_t i = 0; i < st->count; ++i) {
        st->match[i] = i;
        if (st->tokens[i].kind != CLC_TOK_PUNCT)
            continue;
        clc_punct p = (clc_punct)st->tokens[i].punct;
        if (p == P_LPAREN || p == P_LBRACKET || p == P_LBRACE) {
            stack[depth++] = i;
        } else if (p == P_RPAREN || p == P_RBRACKET || p == P_RBRACE) {
            clc_punct open = p == P_RPAREN ? P_LPAREN
                             : p == P_RBRACKET ? P_LBRACKET : P_LBRACE;
            if (depth == 0 || !cu_punct(st, stack[depth - 1], open))
                cu_fail(st, i, "unbalanced '%s'", clc_punct_spelling(p));
            size_t o = stack[--depth];
            st->match[o] = i;
            st->match[i] = o;
        }
    }
    if (depth > 0)
        cu_fail(st, stack[depth - 1], "'%s' is never closed",
                clc_punct_spelling((clc_punct)st->tokens[stack[depth - 1]].punct));
}

static int cu_is_open(const cu_state *st, size_t i)
{
    return cu_punct(st, i, P_LPAREN) || cu_punct(st, i, P_LBRACKET) ||
           cu_punct(st, i, P_LBRACE);
}

/* ---- types ------------------------------------------------------------------------ */

/* CUDA vector and helper type names the lexer does not know (it knows
 * OpenCL's), with what OpenCL C calls them. */
static const char *const cu_extra_types[][2] = {
    {"longlong1", "long1"},       {"longlong2", "long2"},
    {"longlong3", "__kiln_long3"}, {"longlong4", "long4"},
    {"ulonglong1", "ulong1"},     {"ulonglong2", "ulong2"},
    {"ulonglong3", "__kiln_ulong3"}, {"ulonglong4", "ulong4"},
    {"char1", NULL},   {"uchar1", NULL}, {"short1", NULL}, {"ushort1", NULL},
    {"int1", NULL},    {"uint1", NULL},  {"long1", NULL},  {"ulong1", NULL},
    {"float1", NULL},  {"double1", NULL}, {"dim3", NULL},
    {"int8_t", NULL},  {"uint8_t", NULL}, {"int16_t", NULL},
    {"uint16_t", NULL}, {"int32_t", NULL}, {"uint32_t", NULL},
    {"int64_t", NULL}, {"uint64_t", NULL},
};

static int cu_is_builtin_type(const cu_state *st, size_t i)
{
    if (!cu_ident(st, i))
        return 0;
    int32_t id = st->tokens[i].ident;
    switch (id) {
    case W_char: case W_short: case W_int: case W_long: case W_float:
    case W_double: case W_void: case W_signed: case W_unsigned: case W__Bool:
    case W_bool: case W_uchar: case W_ushort: case W_uint: case W_ulong:
    case W_size_t: case W_ptrdiff_t: case W_intptr_t: case W_uintptr_t:
    case W___signed__: case W___signed: case W_half:
        return 1;
    default:
        break;
    }
    if (cu_name(st, i)->info.width != 0)
        return 1;
    for (size_t k = 0; k < sizeof cu_extra_types / sizeof cu_extra_types[0]; ++k)
        if (cu_name_is(st, i, cu_extra_types[k][0]))
            return 1;
    return 0;
}

static int cu_is_type_name(const cu_state *st, size_t i)
{
    return cu_is_builtin_type(st, i) || cu_is_declared_type(st, i);
}

/* Qualifiers that may sit among a declaration's type words. */
static int cu_is_qualifier(const cu_state *st, size_t i)
{
    if (!cu_ident(st, i))
        return 0;
    int32_t id = st->tokens[i].ident;
    return id == W_const || id == W_volatile || id == W_restrict ||
           id == W___restrict || id == W___restrict__ || id == W_static ||
           id == W_register || id == W_extern || id == W_inline ||
           id == W___inline || id == W___inline__ || id == W___const ||
           id == W___volatile__ || id == W___volatile ||
           id == st->w_shared_ || id == st->w_device_ ||
           id == st->w_constant_ || id == st->w_host_ ||
           id == st->w_forceinline_ || id == st->w_noinline_ ||
           id == st->w_constexpr || id == st->w_managed_;
}

/* A group that attaches to a declaration: __attribute__((...)),
 * __align__(n), __launch_bounds__(...).  Returns the token after it, or i. */
static size_t cu_skip_attribute(const cu_state *st, size_t i)
{
    if ((cu_is(st, i, W___attribute__) || cu_is(st, i, W___attribute) ||
         cu_is(st, i, st->w_align_) || cu_is(st, i, st->w_launch_bounds_)) &&
        cu_punct(st, i + 1, P_LPAREN))
        return st->match[i + 1] + 1;
    return i;
}

/* The declaration specifiers starting at i: returns the token after them
 * (i when there is no type among them). */
static size_t cu_specifiers(const cu_state *st, size_t i, size_t end)
{
    size_t k = i;
    int typed = 0;
    while (k < end) {
        size_t after = cu_skip_attribute(st, k);
        if (after != k) {
            k = after;
            continue;
        }
        if (cu_is_qualifier(st, k)) {
            ++k;
            continue;
        }
        if (cu_is(st, k, W_struct) || cu_is(st, k, W_union) ||
            cu_is(st, k, W_enum)) {
            if (typed || !cu_ident(st, k + 1))
                return i;
            k += 2;
            typed = 1;
            continue;
        }
        if (cu_is_builtin_type(st, k)) {
            /* long long, unsigned int: several words make one type */
            ++k;
            typed = 1;
            continue;
        }
        if (!typed && cu_is_declared_type(st, k)) {
            ++k;
            typed = 1;
            continue;
        }
        break;
    }
    return typed ? k : i;
}

/* Size in bytes of a kernel parameter's type as CUDA lays it out, from its
 * words ("unsigned int", "float3"); 0 when the pass cannot tell. */
static size_t cu_type_size(const char *type)
{
    static const struct {
        const char *name;
        size_t size;
    } scalars[] = {
        {"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"bool", 1},
        {"uchar", 1}, {"int8_t", 1}, {"uint8_t", 1},
        {"short", 2}, {"short int", 2}, {"unsigned short", 2},
        {"unsigned short int", 2}, {"ushort", 2}, {"int16_t", 2},
        {"uint16_t", 2},
        {"int", 4}, {"signed", 4}, {"signed int", 4}, {"unsigned", 4},
        {"unsigned int", 4}, {"uint", 4}, {"float", 4}, {"int32_t", 4},
        {"uint32_t", 4},
        {"long", 8}, {"long int", 8}, {"unsigned long", 8},
        {"unsigned long int", 8}, {"long long", 8}, {"long long int", 8},
        {"unsigned long long", 8}, {"unsigned long long int", 8},
        {"ulong", 8}, {"double", 8}, {"size_t", 8}, {"ptrdiff_t", 8},
        {"intptr_t", 8}, {"uintptr_t", 8}, {"int64_t", 8}, {"uint64_t", 8},
        {"dim3", 12},
    };
    for (size_t k = 0; k < sizeof scalars / sizeof scalars[0]; ++k)
        if (strcmp(type, scalars[k].name) == 0)
            return scalars[k].size;
    if (strncmp(type, "enum ", 5) == 0)
        return 4;
    static const struct {
        const char *prefix;
        size_t size;
    } vectors[] = {
        {"uchar", 1}, {"char", 1}, {"ushort", 2}, {"short", 2}, {"uint", 4},
        {"int", 4}, {"float", 4}, {"ulonglong", 8}, {"longlong", 8},
        {"ulong", 8}, {"long", 8}, {"double", 8},
    };
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; ++k) {
        size_t n = strlen(vectors[k].prefix);
        if (strncmp(type, vectors[k].prefix, n) == 0 && type[n] >= '1' &&
            type[n] <= '4' && type[n + 1] == '\0')
            return vectors[k].size * (size_t)(type[n] - '0');
    }
    return 0;
}

/* ---- edits --------------------------------------------------------------------------- */

static void cu_edits_init(cu_state *st, cu_edits *e, size_t begin, size_t end)
{
    e->begin = begin;
    e->end = end;
    size_t n = end - begin + 1;
    e->before = clc_arena_alloc(st->arena, n * sizeof *e->before);
    e->replace = clc_arena_alloc(st->arena, n * sizeof *e->replace);
    e->after = clc_arena_alloc(st->arena, n * sizeof *e->after);
}

static const char *cu_concat(cu_state *st, const char *a, const char *b)
{
    return a == NULL ? b : cu_printf(st, "%s%s", a, b);
}

static void cu_before(cu_state *st, cu_edits *e, size_t i, const char *text)
{
    if (i >= e->begin && i <= e->end)
        e->before[i - e->begin] = cu_concat(st, e->before[i - e->begin], text);
}

static void cu_after(cu_state *st, cu_edits *e, size_t i, const char *text)
{
    if (i >= e->begin && i <= e->end)
        e->after[i - e->begin] = cu_concat(st, e->after[i - e->begin], text);
}

static void cu_replace(cu_edits *e, size_t i, const char *text)
{
    if (i >= e->begin && i <= e->end)
        e->replace[i - e->begin] = text;
}

static void cu_drop(cu_edits *e, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i)
        cu_replace(e, i, "");
}

/* ---- output ---------------------------------------------------------------------------- */

typedef struct cu_writer {
    clc_buffer *out;
    int file;            /* -1 before the first token */
    unsigned line;
    char last;           /* last character written */
} cu_writer;

static int cu_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static void cu_write(cu_writer *w, const char *text, size_t length, int space)
{
    if (length == 0)
        return;
    if (space || (cu_word_char(w->last) && cu_word_char(text[0])) ||
        (w->last == text[0] && strchr("+-&|<>=", text[0]) != NULL) ||
        (w->last == '/' && (text[0] == '/' || text[0] == '*')))
        if (w->last != '\n' && w->last != ' ' && w->last != '\0')
            clc_buffer_append(w->out, " ", 1);
    clc_buffer_append(w->out, text, length);
    w->last = text[length - 1];
}

/* Moves the output to the token's line: newlines when close, else #line. */
static void cu_write_position(cu_state *st, cu_writer *w, const clc_token *t)
{
    if (w->file == (int)t->file && t->line >= w->line &&
        t->line - w->line <= 8) {
        while (w->line < t->line) {
            clc_buffer_append(w->out, "\n", 1);
            w->last = '\n';
            w->line++;
        }
        return;
    }
    if (w->last != '\n' && w->last != '\0')
        clc_buffer_append(w->out, "\n", 1);
    clc_buffer_puts(w->out, cu_printf(st, "#line %u \"", t->line));
    for (const char *p = st->file_names[t->file]; *p; ++p) {
        if (*p == '"' || *p == '\\')
            clc_buffer_append(w->out, "\\", 1);
        clc_buffer_append(w->out, p, 1);
    }
    clc_buffer_puts(w->out, "\"\n");
    w->last = '\n';
    w->file = t->file;
    w->line = t->line;
}

static void cu_write_text(cu_writer *w, const char *text)
{
    if (text != NULL && text[0] != '\0')
        cu_write(w, text, strlen(text), 0);
}

static void cu_write_token(cu_state *st, cu_writer *w, size_t i, int position)
{
    const clc_token *t = &st->tokens[i];
    if (t->kind == CLC_TOK_PRAGMA) {
        cu_write_position(st, w, t);
        if (w->last != '\n')
            clc_buffer_append(w->out, "\n", 1);
        clc_buffer_puts(w->out, "#pragma ");
        clc_buffer_append(w->out, t->text, t->length);
        clc_buffer_append(w->out, "\n", 1);
        w->last = '\n';
        w->line++;
        return;
    }
    if (position)
        cu_write_position(st, w, t);
    cu_write(w, t->text, t->length, (t->flags & CLC_TF_SPACE) != 0);
}

/* Writes tokens [begin, end) with their edits. */
static void cu_write_range(cu_state *st, cu_writer *w, const cu_edits *e,
                           size_t begin, size_t end, int position)
{
    for (size_t i = begin; i < end; ++i) {
        const char *before = NULL, *replace = NULL, *after = NULL;
        if (e != NULL && i >= e->begin && i <= e->end) {
            before = e->before[i - e->begin];
            replace = e->replace[i - e->begin];
            after = e->after[i - e->begin];
        }
        if (position && (before || replace))
            cu_write_position(st, w, &st->tokens[i]);
        cu_write_text(w, before);
        if (replace != NULL)
            cu_write_text(w, replace);
        else
            cu_write_token(st, w, i, position);
        cu_write_text(w, after);
    }
}

/* Tokens [begin, end) with their edits as one line of text. */
static const char *cu_render(cu_state *st, const cu_edits *e, size_t begin,
                             size_t end)
{
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    cu_writer w = {&text, -1, 0, '\0'};
    cu_write_range(st, &w, e, begin, end, 0);
    return clc_buffer_text(&text);
}

/* ---- refusals ------------------------------------------------------------------------------ */

static const struct {
    const char *prefix;  /* an identifier that starts so               */
    int exact;           /* ... or is exactly it                       */
    const char *what;
} cu_refused[] = {
    {"__shfl", 0, "warp shuffles are not supported by OpenCL C"},
    {"__ballot", 0, "warp votes are not supported by OpenCL C"},
    {"__any", 0, "warp votes are not supported by OpenCL C"},
    {"__all", 0, "warp votes are not supported by OpenCL C"},
    {"__activemask", 1, "warp votes are not supported by OpenCL C"},
    {"__syncwarp", 1, "warp-level synchronisation is not supported by OpenCL C"},
    {"__match_any_sync", 1, "warp votes are not supported by OpenCL C"},
    {"__match_all_sync", 1, "warp votes are not supported by OpenCL C"},
    {"__reduce_", 0, "warp reductions are not supported by OpenCL C"},
    {"__syncthreads_count", 1, "block votes are not supported by OpenCL C"},
    {"__syncthreads_and", 1, "block votes are not supported by OpenCL C"},
    {"__syncthreads_or", 1, "block votes are not supported by OpenCL C"},
    {"cooperative_groups", 1, "cooperative groups are not supported"},
    {"this_thread_block", 1, "cooperative groups are not supported"},
    {"this_grid", 1, "cooperative groups are not supported"},
    {"tiled_partition", 1, "cooperative groups are not supported"},
    {"thread_block", 1, "cooperative groups are not supported"},
    {"grid_group", 1, "cooperative groups are not supported"},
    {"texture", 1, "textures are not supported"},
    {"tex1D", 0, "textures are not supported"},
    {"tex2D", 0, "textures are not supported"},
    {"tex3D", 0, "textures are not supported"},
    {"texCubemap", 0, "textures are not supported"},
    {"cudaTextureObject_t", 1, "textures are not supported"},
    {"cudaSurfaceObject_t", 1, "surfaces are not supported"},
    {"surf1D", 0, "surfaces are not supported"},
    {"surf2D", 0, "surfaces are not supported"},
    {"surf3D", 0, "surfaces are not supported"},
    {"cudaMalloc", 0, "dynamic parallelism (CUDA runtime calls in device "
                      "code) is not supported"},
    {"cudaFree", 1, "dynamic parallelism (CUDA runtime calls in device "
                    "code) is not supported"},
    {"cudaDeviceSynchronize", 1, "dynamic parallelism (CUDA runtime calls "
                                 "in device code) is not supported"},
    {"cudaLaunch", 0, "dynamic parallelism is not supported"},
    {"cudaStream", 0, "dynamic parallelism (CUDA runtime calls in device "
                      "code) is not supported"},
    {"cudaGetParameterBuffer", 1, "dynamic parallelism is not supported"},
    {"__half", 0, "CUDA half-precision types are not supported"},
    {"half2", 1, "CUDA half-precision types are not supported"},
    {"__nv_bfloat16", 0, "CUDA bfloat16 types are not supported"},
    {"wmma", 1, "tensor core operations are not supported"},
    {"clock64", 1, "clock64 is not supported by OpenCL C"},
    {"__nanosleep", 1, "__nanosleep is not supported by OpenCL C"},
    {"malloc", 1, "device-side malloc is not supported by OpenCL C"},
    {"free", 1, "device-side free is not supported by OpenCL C"},
};

static void cu_check_identifier(cu_state *st, size_t i)
{
    if (!cu_ident(st, i) || cu_is_member(st, i))
        return;
    int32_t id = st->tokens[i].ident;
    const char *name = cu_name(st, i)->name;
    if (id == st->w_template || id == st->w_typename)
        cu_refuse(st, i, "cannot translate '%s': templates are not supported "
                         "(write the kernel for one type, or use the cuda "
                         "backend)", name);
    if (id == st->w_class || id == st->w_public || id == st->w_private_kw ||
        id == st->w_protected || id == st->w_virtual || id == st->w_this ||
        id == st->w_operator || id == st->w_friend || id == st->w_new ||
        id == st->w_delete)
        cu_refuse(st, i, "cannot translate '%s': classes are not supported "
                         "by OpenCL C (use a plain struct)", name);
    if (id == st->w_namespace || id == st->w_using)
        cu_refuse(st, i, "cannot translate '%s': namespaces are not "
                         "supported by OpenCL C", name);
    if (id == st->w_throw || id == st->w_try || id == st->w_catch)
        cu_refuse(st, i, "cannot translate '%s': exceptions are not "
                         "supported in device code", name);
    if (id == st->w_decltype || id == W_auto)
        cu_refuse(st, i, "cannot translate '%s': type deduction is not "
                         "supported by OpenCL C (write the type)", name);
    if (id == W_asm || id == W___asm__ || id == W___asm)
        cu_refuse(st, i, "cannot translate '%s': inline PTX assembly is not "
                         "supported by OpenCL C", name);
    if (id == st->w_managed_)
        cu_refuse(st, i, "cannot translate '__managed__': managed memory is "
                         "not supported by OpenCL");
    for (size_t k = 0; k < sizeof cu_refused / sizeof cu_refused[0]; ++k) {
        int hit = cu_refused[k].exact ? cu_name_is(st, i, cu_refused[k].prefix)
                                      : cu_name_starts(st, i, cu_refused[k].prefix);
        if (hit)
            cu_refuse(st, i, "cannot translate '%s': %s", name,
                      cu_refused[k].what);
    }
}

static void cu_check_tokens(cu_state *st, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        cu_check_identifier(st, i);
        if (cu_punct(st, i, P_COLON) && cu_punct(st, i + 1, P_COLON))
            cu_refuse(st, i, "cannot translate '::': C++ scopes and "
                             "namespaces are not supported by OpenCL C");
        if (cu_punct(st, i, P_SHL) && cu_punct(st, i + 1, P_LT))
            cu_refuse(st, i, "cannot translate '<<<': dynamic parallelism "
                             "(kernel launches in device code) is not "
                             "supported");
        /* [=] [&] [] ( ... ): a lambda */
        if (cu_punct(st, i, P_LBRACKET) &&
            (((cu_punct(st, i + 1, P_ASSIGN) || cu_punct(st, i + 1, P_AMP)) &&
              cu_punct(st, i + 2, P_RBRACKET)) ||
             (cu_punct(st, i + 1, P_RBRACKET) && cu_punct(st, i + 2, P_LPAREN))))
            cu_refuse(st, i, "cannot translate a lambda: lambdas are not "
                             "supported by OpenCL C");
    }
}

/* ---- generic rewrites ------------------------------------------------------------------------ */

static const char *cu_vector3_name(cu_state *st, size_t i)
{
    const clc_ident *id = cu_name(st, i);
    if (id->info.width == 3 && id->length < 20)
        return cu_printf(st, "__kiln_%s", id->name);
    return NULL;
}

static const char *cu_constant_text(cu_state *st, size_t index);

/* "%lld" -> "%ld", "%zu" -> "%lu": OpenCL's printf has no ll or z. */
static const char *cu_printf_format(cu_state *st, size_t i)
{
    const clc_token *t = &st->tokens[i];
    char *text = clc_arena_alloc(st->arena, t->length + 1);
    size_t n = 0;
    for (size_t k = 0; k < t->length; ++k) {
        text[n++] = t->text[k];
        if (t->text[k] != '%')
            continue;
        if (k + 1 < t->length && t->text[k + 1] == '%') {
            text[n++] = '%';
            ++k;
            continue;
        }
        /* flags, width, precision */
        while (k + 1 < t->length && strchr("-+ #0123456789.*", t->text[k + 1]))
            text[n++] = t->text[++k];
        if (k + 2 < t->length && t->text[k + 1] == 'l' && t->text[k + 2] == 'l')
            ++k; /* keep one l */
        else if (k + 1 < t->length && (t->text[k + 1] == 'z' || t->text[k + 1] == 't' ||
                                       t->text[k + 1] == 'j')) {
            text[n++] = 'l';
            ++k;
        }
    }
    text[n] = '\0';
    return text;
}

/* Rewrites that do not depend on where the tokens are: CUDA's C++
 * spellings and names OpenCL C spells otherwise. */
static void cu_generic(cu_state *st, cu_edits *e, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; ++i) {
        const clc_token *t = &st->tokens[i];
        if (t->kind == CLC_TOK_NUMBER) {
            /* 1ULL, 2ll: OpenCL C has no long long; long is 64 bits */
            size_t n = t->length;
            if (n > 2 && (t->text[0] != '0' || n < 2 ||
                          (t->text[1] != 'x' && t->text[1] != 'X') ||
                          1)) {
                char *text = clc_arena_strndup(st->arena, t->text, n);
                char *ll = NULL;
                for (size_t k = 1; k + 1 < n; ++k)
                    if ((text[k] == 'l' && text[k + 1] == 'l') ||
                        (text[k] == 'L' && text[k + 1] == 'L'))
                        ll = text + k;
                if (ll != NULL && strpbrk(text, ".") == NULL) {
                    memmove(ll, ll + 1, strlen(ll + 1) + 1);
                    cu_replace(e, i, text);
                }
            }
            continue;
        }
        if (t->kind == CLC_TOK_STRING && i >= 2 && cu_punct(st, i - 1, P_LPAREN) &&
            cu_is(st, i - 2, W_printf)) {
            for (size_t k = i; k < end && st->tokens[k].kind == CLC_TOK_STRING; ++k)
                cu_replace(e, k, cu_printf_format(st, k));
            continue;
        }
        if (t->kind != CLC_TOK_IDENT)
            continue;
        int32_t id = t->ident;
        if (id == W_global || id == W_local || id == W_constant ||
            id == W_private || id == W_kernel || id == W_read_only ||
            id == W_write_only || id == W_read_write || id == W_half ||
            id == W_vec_step || id == W_event_t || id == W___global ||
            id == W___local || id == W___constant || id == W___private ||
            id == W___kernel || id == W___generic ||
            cu_name_is(st, i, "generic") || cu_name_is(st, i, "pipe") ||
            cu_name_is(st, i, "sampler_t")) {
            /* OpenCL C keywords are plain names in CUDA C */
            cu_replace(e, i, cu_printf(st, "__kiln_id_%s", cu_name(st, i)->name));
            continue;
        }
        if (cu_is_member(st, i))
            continue;
        if (id == W___restrict__ || id == W___restrict) {
            cu_replace(e, i, "restrict");
        } else if (id == W_long && cu_is(st, i + 1, W_long)) {
            cu_replace(e, i, "");
        } else if (id == W_register || id == st->w_launch_bounds_) {
            if (id == st->w_launch_bounds_ && cu_punct(st, i + 1, P_LPAREN))
                cu_drop(e, i, st->match[i + 1] + 1);
            else
                cu_replace(e, i, "");
        } else if (id == st->w_align_ && cu_punct(st, i + 1, P_LPAREN)) {
            cu_replace(e, i, "__attribute__((aligned");
            cu_after(st, e, st->match[i + 1], ")) ");
        } else if (cu_name_is(st, i, "pow") && cu_punct(st, i + 1, P_LPAREN)) {
            /* C++'s pow(float, int) and friends: OpenCL's pow is ambiguous */
            cu_replace(e, i, "__kiln_pow");
        } else if (id == st->w_nullptr) {
            cu_replace(e, i, "0");
        } else if (id == st->w_constexpr) {
            cu_replace(e, i, "const");
        } else if (id == st->w_static_cast || id == st->w_reinterpret_cast ||
                   id == st->w_const_cast) {
            /* X_cast<T>(e) -> ((T)(e)); address spaces come with casts */
            size_t close_angle = i + 2;
            if (!cu_punct(st, i + 1, P_LT))
                cu_fail(st, i, "'%s' without '<'", cu_name(st, i)->name);
            while (close_angle < end && !cu_punct(st, close_angle, P_GT)) {
                if (cu_is_open(st, close_angle))
                    close_angle = st->match[close_angle];
                ++close_angle;
            }
            if (!cu_punct(st, close_angle + 1, P_LPAREN))
                cu_fail(st, i, "'%s<...>' without '('", cu_name(st, i)->name);
            cu_replace(e, i, "((");
            cu_replace(e, i + 1, "");
            cu_replace(e, close_angle, ")");
            cu_after(st, e, st->match[close_angle + 1], ")");
        } else if (cu_is(st, i, st->w_threadIdx) || cu_is(st, i, st->w_blockIdx) ||
                   cu_is(st, i, st->w_blockDim) || cu_is(st, i, st->w_gridDim)) {
            const char *function = id == st->w_threadIdx ? "get_local_id"
                                   : id == st->w_blockIdx ? "get_group_id"
                                   : id == st->w_blockDim ? "get_local_size"
                                                          : "get_num_groups";
            if (cu_punct(st, i + 1, P_DOT) &&
                (cu_is(st, i + 2, st->w_x) || cu_is(st, i + 2, st->w_y) ||
                 cu_is(st, i + 2, st->w_z))) {
                int axis = cu_is(st, i + 2, st->w_x) ? 0
                           : cu_is(st, i + 2, st->w_y) ? 1 : 2;
                cu_replace(e, i, cu_printf(st, "((uint)%s(%d))", function, axis));
                cu_replace(e, i + 1, "");
                cu_replace(e, i + 2, "");
                i += 2;
            }
            /* a whole threadIdx: the prelude's macro */
        } else if (t->ident >= 0) {
            const char *v3 = cu_vector3_name(st, i);
            if (v3 != NULL) {
                cu_replace(e, i, v3);
                continue;
            }
            for (size_t k = 0; k < sizeof cu_extra_types / sizeof cu_extra_types[0]; ++k)
                if (cu_extra_types[k][1] != NULL && cu_name_is(st, i, cu_extra_types[k][0]))
                    cu_replace(e, i, cu_extra_types[k][1]);
            if (st->constant_of[id] != 0)
                cu_replace(e, i, cu_constant_text(st, (size_t)st->constant_of[id] - 1));
            /* float(x): a functional cast */
            if (cu_is_builtin_type(st, i) && cu_punct(st, i + 1, P_LPAREN) &&
                i > 0 && !cu_is_type_name(st, i - 1) && !cu_is_qualifier(st, i - 1) &&
                !cu_punct(st, i - 1, P_STAR) && !cu_ident(st, i - 1)) {
                const char *type = e->replace[i - e->begin] ? e->replace[i - e->begin]
                                                             : cu_spelling(st, i);
                cu_replace(e, i, cu_printf(st, "((%s)", type));
                cu_after(st, e, st->match[i + 1], ")");
            }
            if (id == W_double)
                st->uses_double = 1;
        }
    }
}

static const char *cu_constant_text(cu_state *st, size_t index)
{
    cu_constant *c = &st->constants[index];
    if (c->text != NULL)
        return c->text;
    if (c->rendering)
        cu_fail(st, c->init_begin, "constant '%s' is defined by itself",
                clc_ident_get(st->interner, c->name)->name);
    c->rendering = 1;
    cu_edits e;
    cu_edits_init(st, &e, c->type_begin, c->init_end);
    cu_generic(st, &e, c->type_begin, c->type_end);
    cu_generic(st, &e, c->init_begin, c->init_end);
    for (size_t i = c->type_begin; i < c->type_end; ++i)
        if (cu_is_qualifier(st, i))
            cu_replace(&e, i, "");
    const char *type = cu_render(st, &e, c->type_begin, c->type_end);
    const char *value = cu_render(st, &e, c->init_begin, c->init_end);
    c->text = cu_printf(st, "((%s)(%s))", type, value);
    c->rendering = 0;
    return c->text;
}

/* ---- declarations in bodies ------------------------------------------------------------------- */

typedef struct cu_declarator {
    size_t name;
    int pointer;
    int array;
    size_t init_begin, init_end;   /* empty when none            */
    size_t comma;                  /* the ',' before it; 0 for the first */
    cu_space space;
} cu_declarator;

typedef struct cu_decl {
    size_t begin, spec_end, end;   /* end: the ';' (or ')' / '=' ...) */
    int shared, is_extern, is_static, in_for;
    size_t count;
    cu_declarator d[CU_MAX_DECLARATORS];
} cu_decl;

/* The end of an initializer or expression starting at i: the first ',',
 * ';' or closing bracket at depth 0. */
static size_t cu_expression_end(const cu_state *st, size_t i, size_t end)
{
    while (i < end) {
        if (cu_is_open(st, i)) {
            i = st->match[i] + 1;
            continue;
        }
        if (cu_punct(st, i, P_COMMA) || cu_punct(st, i, P_SEMI) ||
            cu_punct(st, i, P_RPAREN) || cu_punct(st, i, P_RBRACKET) ||
            cu_punct(st, i, P_RBRACE))
            return i;
        ++i;
    }
    return end;
}

/* Whether the tokens at i declare variables; fills *d. */
static int cu_declaration(cu_state *st, size_t i, size_t end, cu_decl *d)
{
    memset(d, 0, sizeof *d);
    size_t k = cu_specifiers(st, i, end);
    if (k == i)
        return 0;
    d->begin = i;
    d->spec_end = k;
    for (size_t q = i; q < k; ++q) {
        if (cu_is(st, q, st->w_shared_))
            d->shared = 1;
        if (cu_is(st, q, W_extern))
            d->is_extern = 1;
        if (cu_is(st, q, W_static))
            d->is_static = 1;
    }
    for (;;) {
        if (d->count == CU_MAX_DECLARATORS)
            return 0;
        cu_declarator *dd = &d->d[d->count];
        while (cu_punct(st, k, P_STAR) || cu_is_qualifier(st, k)) {
            if (cu_punct(st, k, P_STAR))
                dd->pointer++;
            ++k;
        }
        if (cu_punct(st, k, P_AMP) || cu_punct(st, k, P_ANDAND)) {
            if (cu_ident(st, k + 1))
                cu_refuse(st, k, "cannot translate '%s&': references are not "
                                 "supported by OpenCL C (use a pointer)",
                          cu_name(st, k + 1)->name);
            return 0;
        }
        if (!cu_ident(st, k) || cu_is_type_name(st, k))
            return 0;
        dd->name = k++;
        while (cu_punct(st, k, P_LBRACKET)) {
            dd->array = 1;
            k = st->match[k] + 1;
        }
        if (cu_punct(st, k, P_LPAREN))
            return 0; /* a function's declaration */
        if (cu_punct(st, k, P_ASSIGN)) {
            dd->init_begin = k + 1;
            dd->init_end = cu_expression_end(st, k + 1, end);
            k = dd->init_end;
        } else if (cu_punct(st, k, P_LPAREN)) {
            return 0;
        }
        d->count++;
        if (cu_punct(st, k, P_COMMA)) {
            d->d[d->count].comma = k;
            ++k;
            continue;
        }
        if (cu_punct(st, k, P_SEMI) || cu_punct(st, k, P_COLON)) {
            d->end = k;
            return 1;
        }
        return 0;
    }
}

/* ---- the top level ---------------------------------------------------------------------------------- */

static void cu_item_add(cu_state *st, cu_item item)
{
    st->items = cu_grow(st, st->items, st->item_count, sizeof *st->items);
    st->items[st->item_count++] = item;
}

static size_t cu_hidden_add(cu_state *st, cu_hidden h)
{
    st->hidden = cu_grow(st, st->hidden, st->hidden_count, sizeof *st->hidden);
    st->hidden[st->hidden_count] = h;
    return st->hidden_count++;
}

/* The end of a declaration at the top level: its ';' (braces of
 * initializers and bodies of types skipped). */
static size_t cu_statement_end(cu_state *st, size_t i)
{
    while (i < st->count && !cu_punct(st, i, P_SEMI)) {
        if (cu_is_open(st, i))
            i = st->match[i];
        ++i;
    }
    if (i >= st->count)
        cu_fail(st, st->count ? st->count - 1 : 0, "missing ';' at the end");
    return i;
}

/* A struct, union or enum body: plain C only. */
static void cu_check_type_body(cu_state *st, size_t open)
{
    size_t close = st->match[open];
    cu_check_tokens(st, open, close);
    if (cu_is(st, open - 1, W_enum) || cu_is(st, open - 2, W_enum))
        return;
    for (size_t i = open + 1; i < close; ++i) {
        if (cu_punct(st, i, P_LBRACE)) {
            /* a nested struct */
            cu_check_type_body(st, i);
            i = st->match[i];
            continue;
        }
        if (cu_ident(st, i) && cu_punct(st, i + 1, P_LPAREN) &&
            !cu_is(st, i, W___attribute__) && !cu_is(st, i, st->w_align_))
            cu_refuse(st, i, "cannot translate '%s(': structs with member "
                             "functions or constructors are classes, which "
                             "OpenCL C does not support",
                      cu_name(st, i)->name);
        if (cu_punct(st, i, P_ASSIGN))
            cu_refuse(st, i, "cannot translate a default member initializer: "
                             "not supported by OpenCL C");
    }
}

static long cu_function_find(cu_state *st, int32_t name)
{
    return st->function_of[name] ? st->function_of[name] - 1 : -1;
}

static void cu_function_params(cu_state *st, cu_function *f)
{
    f->param_count = 0;
    size_t i = f->open + 1;
    if (cu_is(st, i, W_void) && cu_punct(st, i + 1, P_RPAREN))
        return;
    f->params = clc_arena_alloc(st->arena, CU_MAX_PARAMS * sizeof *f->params);
    while (i < f->close) {
        size_t end = i;
        while (end < f->close && !cu_punct(st, end, P_COMMA)) {
            if (cu_is_open(st, end))
                end = st->match[end];
            ++end;
        }
        if (f->param_count == CU_MAX_PARAMS)
            cu_refuse(st, i, "cannot translate a function of more than %d "
                             "parameters", CU_MAX_PARAMS);
        cu_param *p = &f->params[f->param_count++];
        p->begin = i;
        p->end = end;
        for (size_t k = i; k < end; ++k) {
            if (cu_punct(st, k, P_STAR) || cu_punct(st, k, P_LBRACKET))
                p->pointer = 1;
            if (cu_punct(st, k, P_AMP) || cu_punct(st, k, P_ANDAND))
                cu_refuse(st, k, "cannot translate '&' in a parameter: "
                                 "references are not supported by OpenCL C "
                                 "(use a pointer)");
            if (cu_punct(st, k, P_ASSIGN))
                cu_refuse(st, k, "cannot translate a default argument: not "
                                 "supported by OpenCL C");
            if (cu_punct(st, k, P_ELLIPSIS))
                cu_refuse(st, k, "cannot translate '...': variadic functions "
                                 "are not supported by OpenCL C");
            if (cu_ident(st, k) && !cu_is_type_name(st, k) &&
                !cu_is_qualifier(st, k) && !cu_is(st, k, W_struct) &&
                !cu_is(st, k, W_union) && !cu_is(st, k, W_enum) &&
                !(k > i && (cu_is(st, k - 1, W_struct) || cu_is(st, k - 1, W_union) ||
                            cu_is(st, k - 1, W_enum))))
                p->name = k;
        }
        i = end + 1;
    }
}

/* A function's definition or prototype: `begin` its first token, `name`
 * its name, the parameter list at name+1. */
static void cu_top_function(cu_state *st, size_t begin, size_t name, size_t end,
                            int body)
{
    int kernel = 0, device = 0, host = 0, force = 0, no_inline = 0;
    for (size_t i = begin; i < name; ++i) {
        if (cu_is(st, i, st->w_global_))
            kernel = 1;
        else if (cu_is(st, i, st->w_device_))
            device = 1;
        else if (cu_is(st, i, st->w_host_))
            host = 1;
        else if (cu_is(st, i, st->w_forceinline_))
            force = 1;
        else if (cu_is(st, i, st->w_noinline_))
            no_inline = 1;
    }
    (void)host;
    if (!kernel && !device) {
        /* host code: it runs on the CPU and never reaches OpenCL */
        cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                                  .end = end + 1});
        return;
    }
    cu_check_tokens(st, begin, end + 1);
    int32_t id = st->tokens[name].ident;
    long index = cu_function_find(st, id);
    if (index < 0) {
        st->functions = cu_grow(st, st->functions, st->function_count,
                                sizeof *st->functions);
        index = (long)st->function_count++;
        memset(&st->functions[index], 0, sizeof st->functions[index]);
        st->function_of[id] = (int32_t)index + 1;
    }
    cu_function *f = &st->functions[index];
    if (body && f->defined)
        cu_refuse(st, name, "cannot translate a second definition of '%s': "
                            "overloaded functions are not supported by "
                            "OpenCL C",
                  cu_name(st, name)->name);
    if (f->defined || (f->name_token != 0 && !body)) {
        /* a prototype after the definition or another prototype */
    }
    f->name = id;
    f->is_kernel |= kernel;
    f->force_inline |= force;
    f->no_inline |= no_inline;
    if (body || !f->defined) {
        f->name_token = name;
        f->begin = begin;
        f->open = name + 1;
        f->close = st->match[name + 1];
        cu_function_params(st, f);
    }
    for (size_t k = 0; kernel && k < f->param_count; ++k)
        for (size_t i = f->params[k].begin;
             !f->params[k].pointer && i < f->params[k].end; ++i)
            if (cu_is_declared_type(st, i) &&
                cu_type_has_pointers(clc_symbol_at(&st->symbols, i)->type, 0))
                cu_refuse(st, i, "cannot translate '%s' as a kernel parameter: "
                                 "a struct with pointer members passed by "
                                 "value (OpenCL cannot pass device addresses "
                                 "inside structs: pass the pointers as "
                                 "parameters of their own)",
                          cu_name(st, i)->name);
    if (body) {
        f->defined = 1;
        f->body_open = end == st->match[end] ? end : st->match[end];
        f->body_close = end;
    }
    cu_item_add(st, (cu_item){.kind = CU_ITEM_FUNCTION, .begin = begin,
                              .end = end + 1, .fn = (size_t)index,
                              .prototype = !body});
}

/* A variable at file scope: [begin, semi]. */
static void cu_top_variable(cu_state *st, size_t begin, size_t semi)
{
    int device = 0, constant = 0, shared = 0, is_extern = 0, is_const = 0;
    size_t spec_end = cu_specifiers(st, begin, semi);
    if (spec_end == begin) {
        cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                                  .end = semi + 1});
        return;
    }
    for (size_t i = begin; i < spec_end; ++i) {
        device |= cu_is(st, i, st->w_device_);
        constant |= cu_is(st, i, st->w_constant_);
        shared |= cu_is(st, i, st->w_shared_);
        is_extern |= cu_is(st, i, W_extern);
        is_const |= cu_is(st, i, W_const) || cu_is(st, i, st->w_constexpr);
        if (cu_is(st, i, st->w_managed_))
            cu_check_identifier(st, i);
    }
    if (!device && !constant && !shared && !is_const) {
        cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                                  .end = semi + 1});
        return;
    }
    cu_check_tokens(st, begin, semi);
    cu_decl d;
    if (!cu_declaration(st, begin, semi + 1, &d))
        cu_fail(st, begin, "cannot read this declaration");
    if (d.count != 1)
        cu_refuse(st, d.d[1].name, "cannot translate several %s variables in "
                                   "one declaration (declare each on its own)",
                  constant ? "__constant__" : device ? "__device__" : "__shared__");
    cu_declarator *dd = &d.d[0];
    int32_t id = st->tokens[dd->name].ident;
    cu_hidden h = {0};
    h.name = id;
    h.type_begin = begin;
    h.type_end = spec_end;
    h.name_token = dd->name;
    h.dims_begin = dd->name + 1;
    h.dims_end = dd->init_begin ? dd->init_begin - 1 : semi;
    h.init_begin = dd->init_begin;
    h.init_end = dd->init_end;
    h.decl_begin = begin;
    h.decl_end = semi + 1;
    h.array = dd->array;
    h.declared_in = -1;
    if (shared) {
        if (dd->pointer)
            cu_refuse(st, dd->name, "cannot translate a __shared__ pointer");
        h.kind = is_extern ? CU_H_DYNAMIC : CU_H_SHARED;
        size_t index = cu_hidden_add(st, h);
        st->hidden_of[id] = (int32_t)index + 1;
        st->global_space[cu_variable_key(st, dd->name)] = CU_LOCAL + 1;
        st->global_address[cu_variable_key(st, dd->name)] = 1;
        cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                                  .end = semi + 1});
        return;
    }
    if (device || constant) {
        if (dd->pointer)
            cu_refuse(st, dd->name, "cannot translate '%s': a pointer in a %s "
                                    "variable (OpenCL cannot share device "
                                    "addresses with the host)",
                      cu_name(st, dd->name)->name,
                      constant ? "__constant__" : "__device__");
        if (is_extern)
            cu_refuse(st, dd->name, "cannot translate an extern %s variable: "
                                    "separate compilation is not supported",
                      constant ? "__constant__" : "__device__");
        h.kind = CU_H_VARIABLE;
        h.is_constant = constant;
        h.variable = st->variable_count++;
        size_t index = cu_hidden_add(st, h);
        st->hidden_of[id] = (int32_t)index + 1;
        st->global_space[cu_variable_key(st, dd->name)] =
            (constant ? CU_CONSTANT : CU_GLOBAL) + 1;
        st->global_address[cu_variable_key(st, dd->name)] = (uint8_t)dd->array;
        cu_item_add(st, (cu_item){.kind = CU_ITEM_VARIABLE, .begin = begin,
                                  .end = semi + 1, .hidden = index});
        return;
    }
    /* const data: integers become their value where used (so that they
     * stay constant expressions, as array sizes need), the rest
     * program-scope __constant data */
    int integral = 1;
    for (size_t i = begin; i < spec_end; ++i)
        if (cu_is(st, i, W_float) || cu_is(st, i, W_double) ||
            cu_is_declared_type(st, i) ||
            (cu_ident(st, i) && cu_name(st, i)->info.width != 0) ||
            cu_is(st, i, W_struct) || cu_is(st, i, W_union))
            integral = 0;
    if (dd->init_begin == 0)
        cu_fail(st, dd->name, "const '%s' without a value",
                cu_name(st, dd->name)->name);
    if (integral && !dd->array && !dd->pointer) {
        st->constants = cu_grow(st, st->constants, st->constant_count,
                                sizeof *st->constants);
        st->constants[st->constant_count] = (cu_constant){
            .name = id, .init_begin = dd->init_begin, .init_end = dd->init_end,
            .type_begin = begin, .type_end = spec_end};
        st->constant_of[id] = (int32_t)++st->constant_count;
        cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = begin,
                                  .end = semi + 1});
        return;
    }
    if (dd->pointer)
        cu_refuse(st, dd->name, "cannot translate a const pointer at file "
                                "scope");
    st->global_space[cu_variable_key(st, dd->name)] = CU_CONSTANT + 1;
    st->global_address[cu_variable_key(st, dd->name)] = (uint8_t)dd->array;
    cu_item_add(st, (cu_item){.kind = CU_ITEM_CONSTANT, .begin = begin,
                              .end = semi + 1});
}

static void cu_top_level(cu_state *st)
{
    size_t i = 0;
    size_t extern_c_close = (size_t)-1;
    size_t *closes = clc_arena_alloc(st->arena, (st->count + 1) * sizeof *closes);
    size_t close_count = 0;
    (void)extern_c_close;
    while (i < st->count) {
        const clc_token *t = &st->tokens[i];
        if (close_count > 0 && i == closes[close_count - 1]) {
            close_count--;
            cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = i, .end = i + 1});
            ++i;
            continue;
        }
        if (t->kind == CLC_TOK_PRAGMA || cu_punct(st, i, P_SEMI)) {
            cu_item_add(st, (cu_item){.kind = t->kind == CLC_TOK_PRAGMA ? CU_ITEM_COPY
                                                                        : CU_ITEM_SKIP,
                                      .begin = i, .end = i + 1});
            ++i;
            continue;
        }
        /* extern "C" { ... } and extern "C" declarations */
        if (cu_is(st, i, W_extern) && st->tokens[i + 1].kind == CLC_TOK_STRING) {
            if (cu_punct(st, i + 2, P_LBRACE)) {
                closes[close_count++] = st->match[i + 2];
                cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = i,
                                          .end = i + 3});
                i += 3;
            } else {
                cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = i,
                                          .end = i + 2});
                i += 2;
            }
            continue;
        }
        if (cu_is(st, i, W_static_assert) || cu_is(st, i, W__Static_assert)) {
            size_t semi = cu_statement_end(st, i);
            cu_item_add(st, (cu_item){.kind = CU_ITEM_SKIP, .begin = i,
                                      .end = semi + 1});
            i = semi + 1;
            continue;
        }
        cu_check_identifier(st, i); /* template, namespace, class, using */
        if (cu_is(st, i, W_typedef)) {
            size_t semi = cu_statement_end(st, i);
            cu_check_tokens(st, i, semi);
            for (size_t k = i; k < semi; ++k)
                if (cu_punct(st, k, P_LBRACE)) {
                    cu_check_type_body(st, k);
                    k = st->match[k];
                }
            /* the typedef's name is a type from here on */
            size_t name = semi - 1;
            while (name > i && cu_punct(st, name, P_RBRACKET))
                name = st->match[name] - 1;
            if (cu_punct(st, name, P_RPAREN)) {
                /* a function type: its name is inside (*name) */
                size_t open = st->match[name];
                for (size_t k = open; k < name; ++k)
                    if (cu_ident(st, k))
                        name = k;
            }
            int builtin_alias = 0;
            if (cu_ident(st, name)) {
                int32_t id = st->tokens[name].ident;
                /* typedef unsigned int uint; OpenCL C has these already */
                builtin_alias = id == W_uchar || id == W_ushort ||
                                id == W_uint || id == W_ulong ||
                                id == W_size_t || cu_is_builtin_type(st, name);
            }
            cu_item_add(st, (cu_item){.kind = builtin_alias ? CU_ITEM_SKIP
                                                            : CU_ITEM_COPY,
                                      .begin = i, .end = semi + 1});
            i = semi + 1;
            continue;
        }
        /* struct __align__(16) name { ... } */
        size_t tag_at = i + 1;
        while (tag_at < st->count && cu_skip_attribute(st, tag_at) != tag_at)
            tag_at = cu_skip_attribute(st, tag_at);
        if ((cu_is(st, i, W_struct) || cu_is(st, i, W_union) ||
             cu_is(st, i, W_enum)) &&
            (cu_punct(st, tag_at, P_LBRACE) ||
             (cu_ident(st, tag_at) && cu_punct(st, tag_at + 1, P_LBRACE)))) {
            size_t open = cu_punct(st, tag_at, P_LBRACE) ? tag_at : tag_at + 1;
            cu_check_type_body(st, open);
            size_t semi = cu_statement_end(st, i);
            int32_t tag = open == tag_at + 1 ? st->tokens[tag_at].ident : -1;
            if (st->match[open] + 1 != semi)
                cu_refuse(st, st->match[open] + 1,
                          "cannot translate a variable declared with its "
                          "struct's definition (declare it separately)");
            cu_item_add(st, (cu_item){.kind = CU_ITEM_STRUCT, .begin = i,
                                      .end = semi + 1, .tag = tag});
            i = semi + 1;
            continue;
        }
        /* a function or a variable: find its name's '(' or its end */
        size_t k = i, name = 0;
        int is_function = 0;
        while (k < st->count) {
            size_t after = cu_skip_attribute(st, k);
            if (after != k) {
                k = after;
                continue;
            }
            if (cu_punct(st, k, P_LPAREN) && k > i && cu_ident(st, k - 1) &&
                !cu_is_type_name(st, k - 1) && !cu_is_qualifier(st, k - 1) &&
                !is_function) {
                is_function = 1;
                name = k - 1;
                k = st->match[k] + 1;
                continue;
            }
            if (cu_punct(st, k, P_ASSIGN) && !is_function) {
                k = cu_statement_end(st, k);
                break;
            }
            if (cu_punct(st, k, P_SEMI) || cu_punct(st, k, P_LBRACE))
                break;
            if (cu_is_open(st, k))
                k = st->match[k];
            ++k;
        }
        if (k >= st->count)
            cu_fail(st, i, "a declaration without an end");
        if (is_function) {
            if (cu_punct(st, k, P_LBRACE)) {
                cu_top_function(st, i, name, st->match[k], 1);
                i = st->match[k] + 1;
            } else {
                cu_top_function(st, i, name, k, 0);
                i = k + 1;
            }
            continue;
        }
        if (cu_punct(st, k, P_LBRACE))
            cu_fail(st, k, "unexpected '{'");
        cu_top_variable(st, i, k);
        i = k + 1;
    }
}

/* ---- what each function needs ---------------------------------------------------------------------- */

static size_t cu_dynamic_item(cu_state *st)
{
    for (size_t k = 0; k < st->hidden_count; ++k)
        if (st->hidden[k].kind == CU_H_DYNAMIC && st->hidden[k].declared_in == -2)
            return k;
    cu_hidden h = {0};
    h.kind = CU_H_DYNAMIC;
    h.declared_in = -2; /* the one dynamic shared memory of a launch */
    return cu_hidden_add(st, h);
}

/* Is token i at the start of a statement (where a declaration may be)? */
static int cu_statement_start(const cu_state *st, size_t i)
{
    if (i == 0)
        return 1;
    if (cu_punct(st, i - 1, P_LBRACE) || cu_punct(st, i - 1, P_RBRACE) ||
        cu_punct(st, i - 1, P_SEMI) || st->tokens[i - 1].kind == CLC_TOK_PRAGMA)
        return 1;
    /* after a label: case 1: float *p = ... */
    if (cu_punct(st, i - 1, P_COLON) && !(i >= 2 && cu_punct(st, i - 2, P_COLON)))
        return 1;
    return cu_punct(st, i - 1, P_LPAREN) && i >= 2 && cu_is(st, i - 2, W_for);
}

/* Pass one: the __shared__ variables of helpers become hidden items. */
static void cu_collect_shared(cu_state *st, size_t index)
{
    cu_function *f = &st->functions[index];
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        cu_decl d;
        if (!cu_statement_start(st, i) || !cu_declaration(st, i, f->body_close, &d))
            continue;
        if (d.is_static && !d.shared)
            cu_refuse(st, i, "cannot translate a static local variable: not "
                             "supported by OpenCL C (use __constant__ or "
                             "__device__ at file scope)");
        if (!d.shared)
            continue;
        for (size_t k = 0; k < d.count; ++k) {
            if (d.d[k].init_begin)
                cu_fail(st, d.d[k].name, "a __shared__ variable cannot have "
                                         "an initializer");
            if (d.d[k].pointer && !d.is_extern)
                cu_refuse(st, d.d[k].name, "cannot translate a __shared__ "
                                           "pointer");
        }
        if (d.is_extern || f->is_kernel)
            continue;
        if (d.count != 1)
            cu_refuse(st, d.d[1].name, "cannot translate several __shared__ "
                                       "variables in one declaration in a "
                                       "__device__ function");
        cu_hidden h = {0};
        h.kind = CU_H_SHARED;
        h.name = st->tokens[d.d[0].name].ident;
        h.type_begin = d.begin;
        h.type_end = d.spec_end;
        h.name_token = d.d[0].name;
        h.dims_begin = d.d[0].name + 1;
        h.dims_end = d.end;
        h.decl_begin = d.begin;
        h.decl_end = d.end + 1;
        h.array = d.d[0].array;
        h.declared_in = (long)index;
        cu_hidden_add(st, h);
    }
}

/* Pass two: which hidden items each function uses, and its calls. */
static void cu_scan_function(cu_state *st, size_t index, size_t dynamic)
{
    cu_function *f = &st->functions[index];
    for (size_t h = 0; h < st->hidden_count; ++h)
        if (st->hidden[h].kind == CU_H_SHARED &&
            st->hidden[h].declared_in == (long)index)
            f->needs[h] = 1;
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        cu_decl d;
        if (cu_statement_start(st, i) &&
            cu_declaration(st, i, f->body_close, &d) && d.shared && d.is_extern)
            f->needs[dynamic] = 1;
        if (!cu_ident(st, i) || cu_is_member(st, i))
            continue;
        int32_t id = st->tokens[i].ident;
        /* a parameter or local of a file-scope variable's name hides it */
        const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
        int hidden = symbol != NULL && symbol->kind == CLC_SYMBOL_OBJECT &&
                     symbol->depth > 0;
        if (st->hidden_of[id] && !hidden) {
            size_t item = (size_t)st->hidden_of[id] - 1;
            if (st->hidden[item].kind == CU_H_DYNAMIC) {
                f->needs[dynamic] = 1;
                int seen = 0;
                for (size_t k = 0; k < f->file_alias_count; ++k)
                    seen |= f->file_aliases[k] == item;
                if (!seen) {
                    f->file_aliases = cu_grow(st, f->file_aliases,
                                              f->file_alias_count,
                                              sizeof *f->file_aliases);
                    f->file_aliases[f->file_alias_count++] = item;
                }
            } else {
                f->needs[item] = 1;
            }
        }
        long callee = cu_function_find(st, id);
        if (callee >= 0 && cu_punct(st, i + 1, P_LPAREN) &&
            !(i > 0 && cu_is_type_name(st, i - 1))) {
            if (st->functions[callee].is_kernel)
                cu_refuse(st, i, "cannot translate a call of the __global__ "
                                 "function '%s' from device code: dynamic "
                                 "parallelism is not supported",
                          cu_name(st, i)->name);
            f->calls = cu_grow(st, f->calls, f->call_count, sizeof *f->calls);
            f->calls[f->call_count++] = (cu_call){i, (size_t)callee};
        }
    }
}

static void cu_scan_functions(cu_state *st)
{
    for (size_t k = 0; k < st->function_count; ++k)
        if (st->functions[k].defined)
            cu_collect_shared(st, k);
    size_t dynamic = cu_dynamic_item(st);
    for (size_t k = 0; k < st->function_count; ++k) {
        st->functions[k].needs = clc_arena_alloc(st->arena, st->hidden_count + 1);
        if (st->functions[k].defined)
            cu_scan_function(st, k, dynamic);
    }
    /* what a callee needs, its callers pass: to a fixed point */
    int changed = 1;
    while (changed) {
        changed = 0;
        for (size_t k = 0; k < st->function_count; ++k) {
            cu_function *f = &st->functions[k];
            for (size_t c = 0; c < f->call_count; ++c) {
                const cu_function *g = &st->functions[f->calls[c].callee];
                for (size_t h = 0; h < st->hidden_count; ++h)
                    if (g->needs[h] && !f->needs[h]) {
                        f->needs[h] = 1;
                        changed = 1;
                    }
            }
        }
    }
}

/* ---- address spaces in a body --------------------------------------------------------------------- */

/* Whether '(' at i opens a cast: a type name in parentheses.  *pointer
 * says whether the type is a pointer. */
static int cu_cast(const cu_state *st, size_t i, int *pointer)
{
    if (!cu_punct(st, i, P_LPAREN))
        return 0;
    size_t close = st->match[i];
    size_t k = cu_specifiers(st, i + 1, close);
    if (k == i + 1)
        return 0;
    if (i > 0 && (cu_is(st, i - 1, W_sizeof) || cu_is(st, i - 1, W__Alignof) ||
                  cu_is(st, i - 1, W___alignof__)))
        return 0;
    int stars = 0;
    while (k < close && (cu_punct(st, k, P_STAR) || cu_is_qualifier(st, k))) {
        stars |= cu_punct(st, k, P_STAR);
        ++k;
    }
    if (k != close)
        return 0;
    *pointer = stars;
    return 1;
}

/* The end of the unary expression at i (a cast's operand). */
static size_t cu_operand_end(const cu_state *st, size_t i, size_t end)
{
    while (i < end && (cu_punct(st, i, P_AMP) || cu_punct(st, i, P_STAR) ||
                       cu_punct(st, i, P_MINUS) || cu_punct(st, i, P_PLUS) ||
                       cu_punct(st, i, P_NOT) || cu_punct(st, i, P_TILDE) ||
                       cu_punct(st, i, P_INC) || cu_punct(st, i, P_DEC)))
        ++i;
    int pointer;
    if (cu_cast(st, i, &pointer))
        return cu_operand_end(st, st->match[i] + 1, end);
    if (cu_is_open(st, i))
        i = st->match[i] + 1;
    else if (i < end)
        ++i;
    for (;;) {
        if (cu_punct(st, i, P_LBRACKET) || cu_punct(st, i, P_LPAREN))
            i = st->match[i] + 1;
        else if ((cu_punct(st, i, P_DOT) || cu_punct(st, i, P_ARROW)) &&
                 cu_ident(st, i + 1))
            i += 2;
        else if (cu_punct(st, i, P_INC) || cu_punct(st, i, P_DEC))
            ++i;
        else
            break;
    }
    return i < end ? i : end;
}

/* The address space an expression's pointer value points into: that of
 * the first pointer or array it names; else of the variable whose address
 * it takes; CU_UNKNOWN when it names none. */
static cu_space cu_expr_space(const cu_state *st, size_t begin, size_t end)
{
    cu_space fallback = CU_UNKNOWN;
    for (size_t i = begin; i < end; ++i) {
        int pointer;
        if (cu_cast(st, i, &pointer)) {
            i = st->match[i];
            continue;
        }
        if (!cu_ident(st, i) || cu_is_member(st, i))
            continue;
        size_t id = cu_variable_key(st, i);
        if (st->space_of[id] == 0)
            continue;
        cu_space space = (cu_space)(st->space_of[id] - 1);
        if (st->address_of[id])
            return space;
        if (fallback == CU_UNKNOWN && i > begin && cu_punct(st, i - 1, P_AMP))
            fallback = space;
    }
    return fallback;
}

/* OpenCL C built-in functions a CUDA kernel may be named after (CUDA by
 * Example's `dot`): an OpenCL kernel of that name does not compile. */
static int cu_reserved_name(const char *name)
{
    static const char *const reserved[] = {
        "dot", "cross", "length", "distance", "normalize", "fast_length",
        "fast_distance", "fast_normalize", "clamp", "mix", "step",
        "smoothstep", "sign", "degrees", "radians", "min", "max", "mad",
        "select", "bitselect", "rotate", "shuffle", "shuffle2", "any", "all",
        "popcount", "clz", "abs", "abs_diff", "add_sat", "sub_sat", "hadd",
        "rhadd", "upsample", "mul24", "mad24", "mul_hi", "mad_hi", "exp",
        "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow",
        "pown", "powr", "rootn", "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan",
        "sinh", "cosh", "tanh", "asin", "acos", "atan", "atan2", "sincos",
        "fma", "fabs", "floor", "ceil", "round", "trunc", "rint", "fmin",
        "fmax", "fmod", "fract", "hypot", "ldexp", "frexp", "modf", "nan",
        "erf", "erfc", "lgamma", "tgamma", "copysign", "isnan", "isinf",
        "isfinite", "signbit", "prefetch", "barrier", "mem_fence", "printf",
        "vload2", "vload4", "vstore2", "vstore4", "nextafter", "remainder",
        /* OpenCL C's keywords: PyCUDA's tests name a kernel `kernel` */
        "kernel", "global", "local", "constant", "private", "read_only",
        "write_only", "read_write", "half", "event_t", "generic", "pipe",
        "sampler_t",
    };
    for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; ++k)
        if (strcmp(name, reserved[k]) == 0)
            return 1;
    return 0;
}

static size_t cu_instance_get(cu_state *st, size_t fn, const uint8_t *spaces)
{
    const cu_function *f = &st->functions[fn];
    size_t first = (size_t)-1;
    for (size_t k = 0; k < st->instance_count; ++k) {
        const cu_instance *in = &st->instances[k];
        if (in->fn != fn)
            continue;
        if (first == (size_t)-1)
            first = k;
        if (memcmp(in->spaces, spaces, f->param_count) == 0)
            return k;
    }
    st->instances = cu_grow(st, st->instances, st->instance_count,
                            sizeof *st->instances);
    cu_instance *in = &st->instances[st->instance_count];
    memset(in, 0, sizeof *in);
    in->fn = fn;
    memcpy(in->spaces, spaces, f->param_count);
    const char *name = clc_ident_get(st->interner, f->name)->name;
    if (f->is_kernel) {
        in->name = cu_reserved_name(name)
                       ? cu_printf(st, CUDA_KERNEL_RENAMED_PREFIX "%s", name)
                       : name;
    } else if (first == (size_t)-1) {
        /* Helpers get names of their own: CUDA C lets a program define
         * dot, clamp, length, rsqrtf..., which OpenCL C has as built-ins
         * or the prelude as macros. */
        in->name = cu_printf(st, "__kiln_fn_%s", name);
    } else {
        char letters[CU_MAX_PARAMS + 1];
        size_t n = 0;
        for (size_t k = 0; k < f->param_count; ++k)
            if (f->params[k].pointer)
                letters[n++] = cu_space_letter[spaces[k]];
        letters[n] = '\0';
        in->name = cu_printf(st, "__kiln_fn_%s_%s", name, letters);
    }
    return st->instance_count++;
}

static const char *cu_ident_text(const cu_state *st, int32_t id)
{
    return clc_ident_get(st->interner, id)->name;
}

/* The name hidden item h has inside function fn. */
static const char *cu_hidden_name(cu_state *st, size_t h, size_t fn)
{
    const cu_hidden *item = &st->hidden[h];
    if (item->kind == CU_H_DYNAMIC)
        return "__kiln_dynamic_shared";
    const char *name = cu_ident_text(st, item->name);
    if (item->kind == CU_H_SHARED && item->declared_in >= 0 &&
        item->declared_in != (long)fn)
        return cu_printf(st, "__kiln_s%zu", h);
    if (item->kind == CU_H_SHARED && st->functions[fn].is_kernel)
        return item->declared_in < 0 ? name : cu_printf(st, "__kiln_s%zu", h);
    return item->array ? name : cu_printf(st, "__kiln_p_%s", name);
}

/* What function fn passes for hidden item h to a callee. */
static const char *cu_hidden_argument(cu_state *st, size_t h, size_t fn)
{
    const char *name = cu_hidden_name(st, h, fn);
    const cu_hidden *item = &st->hidden[h];
    if (item->kind == CU_H_SHARED && st->functions[fn].is_kernel && !item->array)
        return cu_printf(st, "&%s", name);
    return name;
}

/* The element type of a hidden item, in OpenCL C. */
static const char *cu_hidden_type(cu_state *st, size_t h)
{
    const cu_hidden *item = &st->hidden[h];
    cu_edits e;
    cu_edits_init(st, &e, item->type_begin, item->dims_end);
    cu_generic(st, &e, item->type_begin, item->dims_end);
    for (size_t i = item->type_begin; i < item->type_end; ++i)
        if (cu_is(st, i, st->w_shared_) || cu_is(st, i, st->w_device_) ||
            cu_is(st, i, st->w_constant_) || cu_is(st, i, W_static) ||
            cu_is(st, i, W_extern) || cu_is(st, i, st->w_constexpr))
            cu_replace(&e, i, "");
    return cu_render(st, &e, item->type_begin, item->type_end);
}

static const char *cu_hidden_dims(cu_state *st, size_t h, int skip_first)
{
    const cu_hidden *item = &st->hidden[h];
    size_t begin = item->dims_begin;
    if (skip_first && cu_punct(st, begin, P_LBRACKET))
        begin = st->match[begin] + 1;
    if (begin >= item->dims_end)
        return "";
    cu_edits e;
    cu_edits_init(st, &e, begin, item->dims_end);
    cu_generic(st, &e, begin, item->dims_end);
    return cu_render(st, &e, begin, item->dims_end);
}

/* The parameter that carries hidden item h into function fn. */
static const char *cu_hidden_param(cu_state *st, size_t h, size_t fn)
{
    const cu_hidden *item = &st->hidden[h];
    if (item->kind == CU_H_DYNAMIC)
        return "__local uint4 *__kiln_dynamic_shared";
    const char *space = item->kind == CU_H_SHARED ? "__local "
                        : item->is_constant ? "__constant " : "__global ";
    const char *name = cu_hidden_name(st, h, fn);
    const char *rest = cu_hidden_dims(st, h, 1);
    if (rest[0] != '\0')
        return cu_printf(st, "%s%s (*%s)%s", space, cu_hidden_type(st, h), name,
                         rest);
    return cu_printf(st, "%s%s *%s", space, cu_hidden_type(st, h), name);
}

typedef struct cu_body_decl {
    cu_decl d;
    struct cu_body_decl *next;
} cu_body_decl;

/* Whether kernel parameter `p` gets a hidden byte offset: a named pointer
 * (an array declarator `float a[]` keeps its buffer's start). */
static int cu_param_takes_offset(cu_state *st, const cu_param *p)
{
    if (!p->pointer || p->name == 0)
        return 0;
    for (size_t i = p->name + 1; i < p->end; ++i)
        if (cu_punct(st, i, P_LBRACKET))
            return 0;
    return 1;
}

/* A kernel's pointer parameters start at a byte offset into the buffer
 * passed for them (a view: PyCUDA's int(a_gpu) + 4 or a_gpu[1:]), which
 * OpenCL sub-buffers cannot express at every offset.  Each such parameter
 * is renamed __kiln_base_K in the header, and the returned text (placed
 * at the body's start) declares the user's name as written, pointing
 * __kiln_offset_K bytes further: the hidden parameter cu_write_header
 * adds after the user's. */
static const char *cu_kernel_offsets(cu_state *st, cu_edits *e,
                                     const cu_function *f,
                                     const uint8_t *spaces)
{
    clc_buffer text;
    clc_buffer_init(&text, st->arena);
    clc_buffer_puts(&text, "");
    for (size_t k = 0; k < f->param_count; ++k) {
        const cu_param *p = &f->params[k];
        if (!cu_param_takes_offset(st, p))
            continue;
        const char *type = cu_render(st, e, p->begin, p->name);
        const char *name = cu_render(st, e, p->name, p->name + 1);
        const char *space = cu_space_word[spaces[k]];
        clc_buffer_printf(&text,
                          " %s%s %s = (%s%s)((__global char *)__kiln_base_%zu "
                          "+ __kiln_offset_%zu);",
                          space, type, name, space, type, k, k);
        cu_replace(e, p->name, cu_printf(st, "__kiln_base_%zu", k));
    }
    return clc_buffer_text(&text);
}

/* Builds instance `index`: its address spaces, calls and edits. */
static void cu_instance_build(cu_state *st, size_t index)
{
    size_t fn = st->instances[index].fn;
    cu_function *f = &st->functions[fn];
    uint8_t spaces[CU_MAX_PARAMS];
    memcpy(spaces, st->instances[index].spaces, sizeof spaces);
    cu_edits e;
    size_t end = f->defined ? f->body_close + 1 : f->close + 1;
    cu_edits_init(st, &e, f->begin, end);
    cu_generic(st, &e, f->open + 1, f->close);

    memcpy(st->space_of, st->global_space, st->key_count);
    memcpy(st->address_of, st->global_address, st->key_count);
    memset(st->pointer_var, 0, st->key_count);
    for (size_t k = 0; k < f->param_count; ++k) {
        const cu_param *p = &f->params[k];
        if (p->name == 0)
            continue;
        size_t id = cu_variable_key(st, p->name);
        st->space_of[id] = (uint8_t)((p->pointer ? spaces[k] : CU_PRIVATE) + 1);
        st->address_of[id] = (uint8_t)p->pointer;
    }
    if (f->is_kernel)
        for (size_t k = 0; k < f->param_count; ++k) {
            const cu_param *p = &f->params[k];
            for (size_t i = p->begin; i < p->end; ++i) {
                if (cu_is(st, i, W_size_t) || cu_is(st, i, W_uintptr_t))
                    cu_replace(&e, i, "ulong");
                else if (cu_is(st, i, W_ptrdiff_t) || cu_is(st, i, W_intptr_t))
                    cu_replace(&e, i, "long");
                else if (cu_is(st, i, W_bool))
                    cu_replace(&e, i, "uchar");
            }
        }
    const char *offsets = f->is_kernel ? cu_kernel_offsets(st, &e, f, spaces)
                                       : "";
    if (!f->defined) {
        st->instances[index].edits = e;
        return;
    }
    cu_generic(st, &e, f->body_open, f->body_close + 1);

    /* declarations */
    cu_body_decl *decls = NULL, **tail = &decls;
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        if (!cu_statement_start(st, i))
            continue;
        cu_body_decl *bd = clc_arena_alloc(st->arena, sizeof *bd);
        if (!cu_declaration(st, i, f->body_close, &bd->d))
            continue;
        bd->d.in_for = cu_punct(st, i - 1, P_LPAREN);
        *tail = bd;
        tail = &bd->next;
        for (size_t k = 0; k < bd->d.count; ++k) {
            cu_declarator *dd = &bd->d.d[k];
            size_t id = cu_variable_key(st, dd->name);
            if (bd->d.shared) {
                st->space_of[id] = CU_LOCAL + 1;
                st->address_of[id] = 1;
                dd->space = CU_LOCAL;
            } else if (dd->pointer) {
                st->space_of[id] = CU_UNKNOWN + 1;
                st->address_of[id] = 1;
                st->pointer_var[id] = 1;
                dd->space = CU_UNKNOWN;
            } else {
                st->space_of[id] = CU_PRIVATE + 1;
                st->address_of[id] = (uint8_t)dd->array;
                dd->space = CU_PRIVATE;
            }
        }
    }
    /* a parameter or local of the same name hides a file-scope const
     * where it is in scope */
    for (size_t i = f->open; i < f->body_close; ++i) {
        const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
        if (cu_ident(st, i) && st->constant_of[st->tokens[i].ident] &&
            symbol != NULL && symbol->depth > 0 && !cu_is_member(st, i))
            cu_replace(&e, i, NULL);
    }

    /* pointers take the space of what they are initialised or assigned
     * from; chains resolve over rounds */
    for (int round = 0; round < 4; ++round) {
        for (cu_body_decl *bd = decls; bd; bd = bd->next)
            for (size_t k = 0; k < bd->d.count; ++k) {
                cu_declarator *dd = &bd->d.d[k];
                if (dd->space != CU_UNKNOWN || dd->init_begin == 0)
                    continue;
                cu_space s = cu_expr_space(st, dd->init_begin, dd->init_end);
                if (s != CU_UNKNOWN) {
                    dd->space = s;
                    st->space_of[cu_variable_key(st, dd->name)] = (uint8_t)(s + 1);
                }
            }
        for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
            if (!cu_ident(st, i) || !cu_punct(st, i + 1, P_ASSIGN) ||
                cu_is_member(st, i))
                continue;
            size_t id = cu_variable_key(st, i);
            if (!st->pointer_var[id] || st->space_of[id] != CU_UNKNOWN + 1)
                continue;
            cu_space s = cu_expr_space(st, i + 2,
                                       cu_expression_end(st, i + 2, f->body_close));
            if (s != CU_UNKNOWN)
                st->space_of[id] = (uint8_t)(s + 1);
        }
    }
    for (cu_body_decl *bd = decls; bd; bd = bd->next)
        for (size_t k = 0; k < bd->d.count; ++k) {
            cu_declarator *dd = &bd->d.d[k];
            size_t id = cu_variable_key(st, dd->name);
            if (dd->space == CU_UNKNOWN) {
                cu_space s = (cu_space)(st->space_of[id] - 1);
                dd->space = s == CU_UNKNOWN ? CU_GLOBAL : s;
                st->space_of[id] = (uint8_t)(dd->space + 1);
            }
        }

    /* uses of hidden scalars go through their pointer */
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        if (!cu_ident(st, i) || cu_is_member(st, i))
            continue;
        int32_t id = st->tokens[i].ident;
        for (size_t h = 0; h < st->hidden_count; ++h) {
            const cu_hidden *item = &st->hidden[h];
            if (!f->needs[h] || item->kind == CU_H_DYNAMIC || item->array ||
                item->name != id)
                continue;
            if (item->kind == CU_H_SHARED &&
                (f->is_kernel || (item->declared_in >= 0 &&
                                  item->declared_in != (long)fn)))
                continue;
            const clc_symbol *symbol = clc_symbol_at(&st->symbols, i);
            if (symbol != NULL && symbol->kind == CLC_SYMBOL_OBJECT &&
                symbol->token != item->name_token && symbol->depth > 0)
                continue; /* a parameter or local of the same name */
            cu_replace(&e, i, cu_printf(st, "(*%s)", cu_hidden_name(st, h, fn)));
        }
    }

    /* casts to pointers keep the space of their operand */
    for (size_t i = f->body_open + 1; i < f->body_close; ++i) {
        int pointer = 0;
        if (cu_cast(st, i, &pointer) && pointer) {
            size_t operand = st->match[i] + 1;
            size_t operand_end = cu_operand_end(st, operand, f->body_close);
            if (operand_end == operand)
                continue;
            cu_space s = cu_expr_space(st, operand, operand_end);
            if (s == CU_GLOBAL || s == CU_LOCAL || s == CU_CONSTANT)
                cu_after(st, &e, i, cu_space_word[s]);
        }
        if ((cu_is(st, i, st->w_static_cast) || cu_is(st, i, st->w_reinterpret_cast) ||
             cu_is(st, i, st->w_const_cast)) && cu_punct(st, i + 1, P_LT)) {
            size_t k = i + 2;
            while (k < f->body_close && !cu_punct(st, k, P_GT))
                ++k;
            int stars = 0;
            for (size_t q = i + 2; q < k; ++q)
                stars |= cu_punct(st, q, P_STAR);
            if (stars && cu_punct(st, k + 1, P_LPAREN)) {
                cu_space s = cu_expr_space(st, k + 2, st->match[k + 1]);
                if (s == CU_GLOBAL || s == CU_LOCAL || s == CU_CONSTANT)
                    cu_after(st, &e, i, cu_space_word[s]);
            }
        }
    }

    /* declarations: pointers get their space; __shared__ moves */
    clc_buffer hoisted;
    clc_buffer_init(&hoisted, st->arena);
    for (cu_body_decl *bd = decls; bd; bd = bd->next) {
        cu_decl *d = &bd->d;
        if (d->shared) {
            cu_edits te = e;
            for (size_t i = d->begin; i < d->spec_end; ++i)
                if (cu_is(st, i, st->w_shared_) || cu_is(st, i, W_extern) ||
                    cu_is(st, i, W_static))
                    cu_replace(&e, i, "");
            (void)te;
            const char *type = cu_render(st, &e, d->begin, d->spec_end);
            if (d->is_extern) {
                clc_buffer alias;
                clc_buffer_init(&alias, st->arena);
                for (size_t k = 0; k < d->count; ++k)
                    clc_buffer_printf(&alias, " __local %s *%s = (__local %s *)"
                                              "__kiln_dynamic_shared;",
                                      type, cu_spelling(st, d->d[k].name), type);
                cu_drop(&e, d->begin, d->end + 1);
                cu_replace(&e, d->begin, clc_buffer_text(&alias));
            } else if (f->is_kernel) {
                clc_buffer_printf(&hoisted, " __local %s",
                                  cu_render(st, &e, d->begin, d->end + 1));
                cu_drop(&e, d->begin, d->end + 1);
            } else {
                cu_drop(&e, d->begin, d->end + 1);
            }
            continue;
        }
        int spaced = 0;
        for (size_t k = 0; k < d->count; ++k)
            if (d->d[k].pointer && d->d[k].space != CU_PRIVATE)
                spaced = 1;
        if (!spaced)
            continue;
        const char *spec = cu_render(st, &e, d->begin, d->spec_end);
        if (d->in_for) {
            for (size_t k = 0; k < d->count; ++k)
                if (d->d[k].pointer) {
                    cu_before(st, &e, d->begin, cu_space_word[d->d[k].space]);
                    break;
                }
            continue;
        }
        cu_before(st, &e, d->begin,
                  d->d[0].pointer ? cu_space_word[d->d[0].space] : "");
        for (size_t k = 1; k < d->count; ++k)
            cu_replace(&e, d->d[k].comma,
                       cu_printf(st, "; %s%s",
                                 d->d[k].pointer ? cu_space_word[d->d[k].space]
                                                 : "",
                                 spec));
    }

    /* calls: the callee's instance for these spaces, and hidden items */
    for (size_t c = 0; c < f->call_count; ++c) {
        size_t at = f->calls[c].token;
        size_t callee = f->calls[c].callee;
        const cu_function *g = &st->functions[callee];
        uint8_t callee_spaces[CU_MAX_PARAMS] = {0};
        size_t open = at + 1, close = st->match[open];
        size_t arg = open + 1;
        for (size_t k = 0; k < g->param_count && arg < close; ++k) {
            size_t arg_end = cu_expression_end(st, arg, close);
            if (g->params[k].pointer) {
                cu_space s = cu_expr_space(st, arg, arg_end);
                callee_spaces[k] = (uint8_t)(s == CU_UNKNOWN ? CU_GLOBAL : s);
            }
            arg = arg_end + 1;
        }
        size_t target = cu_instance_get(st, callee, callee_spaces);
        f = &st->functions[fn];
        g = &st->functions[callee];
        cu_replace(&e, at, st->instances[target].name);
        clc_buffer extra;
        clc_buffer_init(&extra, st->arena);
        for (size_t h = 0; h < st->hidden_count; ++h)
            if (g->needs[h])
                clc_buffer_printf(&extra, "%s%s",
                                  extra.length || close != open + 1 ? ", " : "",
                                  cu_hidden_argument(st, h, fn));
        if (extra.length)
            cu_before(st, &e, close, clc_buffer_text(&extra));
    }

    /* a kernel declares the shared memory of the helpers it calls */
    if (f->is_kernel)
        for (size_t h = 0; h < st->hidden_count; ++h) {
            const cu_hidden *item = &st->hidden[h];
            if (!f->needs[h] || item->kind != CU_H_SHARED)
                continue;
            clc_buffer_printf(&hoisted, " __local %s %s%s;", cu_hidden_type(st, h),
                              cu_hidden_name(st, h, fn), cu_hidden_dims(st, h, 0));
        }
    clc_buffer aliases;
    clc_buffer_init(&aliases, st->arena);
    for (size_t k = 0; k < f->file_alias_count; ++k) {
        size_t h = f->file_aliases[k];
        const char *type = cu_hidden_type(st, h);
        clc_buffer_printf(&aliases, " __local %s *%s = (__local %s *)"
                                    "__kiln_dynamic_shared;",
                          type, cu_ident_text(st, st->hidden[h].name), type);
    }
    cu_after(st, &e, f->body_open, clc_buffer_text(&hoisted));
    cu_after(st, &e, f->body_open, clc_buffer_text(&aliases));
    cu_after(st, &e, f->body_open, offsets);
    st->instances[index].edits = e;
}

/* ---- output --------------------------------------------------------------------------------------- */

static void cu_write_header(cu_state *st, cu_writer *w, size_t index)
{
    cu_instance *in = &st->instances[index];
    const cu_function *f = &st->functions[in->fn];
    cu_write_position(st, w, &st->tokens[f->name_token]);
    if (f->is_kernel) {
        cu_write_text(w, "__kernel void");
    } else {
        if (f->force_inline)
            cu_write_text(w, "static inline __attribute__((always_inline))");
        else if (f->no_inline)
            cu_write_text(w, "__attribute__((noinline))");
        cu_edits e;
        cu_edits_init(st, &e, f->begin, f->name_token);
        cu_generic(st, &e, f->begin, f->name_token);
        for (size_t i = f->begin; i < f->name_token; ++i)
            if (cu_is(st, i, st->w_device_) || cu_is(st, i, st->w_host_) ||
                cu_is(st, i, st->w_forceinline_) || cu_is(st, i, st->w_noinline_) ||
                cu_is(st, i, W_static) || cu_is(st, i, W_inline) ||
                cu_is(st, i, W___inline__) || cu_is(st, i, W___inline) ||
                cu_is(st, i, W_extern))
                cu_replace(&e, i, "");
        int returns_pointer = 0;
        for (size_t i = f->begin; i < f->name_token; ++i)
            returns_pointer |= cu_punct(st, i, P_STAR);
        if (returns_pointer)
            cu_write_text(w, "__global");
        cu_write_range(st, w, &e, f->begin, f->name_token, 0);
    }
    cu_write_text(w, in->name);
    cu_write_text(w, "(");
    int first = 1;
    for (size_t k = 0; k < f->param_count; ++k) {
        const cu_param *p = &f->params[k];
        if (!first)
            cu_write_text(w, ", ");
        first = 0;
        if (p->pointer)
            cu_write_text(w, cu_space_word[in->spaces[k]]);
        cu_write_range(st, w, &in->edits, p->begin, p->end, 0);
    }
    if (f->is_kernel)
        for (size_t k = 0; k < f->param_count; ++k)
            if (cu_param_takes_offset(st, &f->params[k])) {
                cu_write_text(w, cu_printf(st, "%sulong __kiln_offset_%zu",
                                           first ? "" : ", ", k));
                first = 0;
            }
    for (size_t h = 0; h < st->hidden_count; ++h) {
        if (!f->needs[h])
            continue;
        if (f->is_kernel && st->hidden[h].kind == CU_H_SHARED)
            continue; /* declared inside */
        if (!first)
            cu_write_text(w, ", ");
        first = 0;
        cu_write_text(w, cu_hidden_param(st, h, in->fn));
    }
    if (first)
        cu_write_text(w, "void");
    cu_write_text(w, ")");
}

static void cu_write_item(cu_state *st, cu_writer *w, const cu_item *item)
{
    switch (item->kind) {
    case CU_ITEM_SKIP:
        return;
    case CU_ITEM_COPY:
    case CU_ITEM_STRUCT:
    case CU_ITEM_CONSTANT: {
        cu_edits e;
        cu_edits_init(st, &e, item->begin, item->end);
        cu_generic(st, &e, item->begin, item->end);
        if (item->kind == CU_ITEM_CONSTANT) {
            for (size_t i = item->begin; i < item->end; ++i)
                if (cu_is(st, i, W_static) || cu_is(st, i, W_extern))
                    cu_replace(&e, i, "");
            cu_before(st, &e, item->begin, "__constant ");
        }
        cu_write_range(st, w, &e, item->begin, item->end, 1);
        if (item->kind == CU_ITEM_STRUCT && item->tag >= 0)
            cu_write_text(w, cu_printf(st, " typedef %s %s %s;",
                                       cu_spelling(st, item->begin),
                                       cu_ident_text(st, item->tag),
                                       cu_ident_text(st, item->tag)));
        return;
    }
    case CU_ITEM_VARIABLE: {
        const cu_hidden *h = &st->hidden[item->hidden];
        if (h->init_begin == 0)
            return;
        cu_edits e;
        cu_edits_init(st, &e, h->init_begin, h->init_end);
        cu_generic(st, &e, h->init_begin, h->init_end);
        cu_write_position(st, w, &st->tokens[h->name_token]);
        cu_write_text(w, cu_printf(st, "__constant %s __kiln_init_%s%s =",
                                   cu_hidden_type(st, item->hidden),
                                   cu_ident_text(st, h->name),
                                   cu_hidden_dims(st, item->hidden, 0)));
        cu_write_range(st, w, &e, h->init_begin, h->init_end, 1);
        cu_write_text(w, ";");
        return;
    }
    case CU_ITEM_FUNCTION: {
        for (size_t k = 0; k < st->instance_count; ++k) {
            if (st->instances[k].fn != item->fn)
                continue;
            const cu_function *f = &st->functions[item->fn];
            if (item->prototype || !f->defined) {
                cu_write_header(st, w, k);
                cu_write_text(w, ";");
                continue;
            }
            cu_write_header(st, w, k);
            cu_write_range(st, w, &st->instances[k].edits, f->body_open,
                           f->body_close + 1, 1);
        }
        return;
    }
    }
}

/* The kernels that size and initialise the variables' buffers. */
static void cu_write_variable_kernels(cu_state *st, clc_buffer *out)
{
    if (st->variable_count == 0)
        return;
    clc_buffer_puts(out, "\n__kernel void " TRANSLATE_KERNEL_VARIABLE_SIZES
                         "(__global ulong *sizes)\n{\n");
    size_t initialised = 0;
    for (size_t h = 0; h < st->hidden_count; ++h) {
        const cu_hidden *item = &st->hidden[h];
        if (item->kind != CU_H_VARIABLE)
            continue;
        clc_buffer_printf(out, "    sizes[%zu] = sizeof(%s%s);\n", item->variable,
                          cu_hidden_type(st, h), cu_hidden_dims(st, h, 0));
        initialised += item->init_begin != 0;
    }
    clc_buffer_puts(out, "}\n");
    if (initialised == 0)
        return;
    clc_buffer_puts(out, "__kernel void " TRANSLATE_KERNEL_VARIABLE_INIT "(");
    size_t n = 0;
    for (size_t h = 0; h < st->hidden_count; ++h)
        if (st->hidden[h].kind == CU_H_VARIABLE && st->hidden[h].init_begin)
            clc_buffer_printf(out, "%s__global uchar *v%zu", n++ ? ", " : "", h);
    clc_buffer_puts(out, ")\n{\n");
    for (size_t h = 0; h < st->hidden_count; ++h) {
        const cu_hidden *item = &st->hidden[h];
        if (item->kind != CU_H_VARIABLE || item->init_begin == 0)
            continue;
        const char *name = cu_ident_text(st, item->name);
        clc_buffer_printf(out,
                          "    for (ulong i = 0; i < sizeof(__kiln_init_%s); ++i)\n"
                          "        v%zu[i] = ((__constant uchar *)&__kiln_init_%s)[i];\n",
                          name, h, name);
    }
    clc_buffer_puts(out, "}\n");
}

/* ---- includes --------------------------------------------------------------------------------------- */

/* Headers whose device-side content the prelude provides. */
static const char *const cu_provided_headers[] = {
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h",
    "device_launch_parameters.h", "device_functions.h", "math_functions.h",
    "vector_types.h", "vector_functions.h", "device_atomic_functions.h",
    "sm_20_atomic_functions.h", "sm_32_atomic_functions.h",
    "sm_60_atomic_functions.h", "stdio.h", "stdlib.h", "math.h", "stdint.h",
    "stddef.h", "stdbool.h", "float.h", "limits.h", "assert.h", "cstdio",
    "cstdlib", "cmath", "cstdint", "cstddef", "cfloat", "climits", "cassert",
    /* host-only: a whole .cu file's host code is left out anyway */
    "iostream", "vector", "string", "cstring", "string.h", "algorithm",
    "chrono", "ctime", "time.h", "memory", "numeric", "iomanip", "fstream",
    "sstream", "random", "functional", "utility", "helper_cuda.h",
    "helper_functions.h", "helper_string.h", "helper_timer.h",
};

/* Headers of CUDA libraries or features the pass refuses. */
static const char *const cu_refused_headers[] = {
    "cooperative_groups", "cub/", "thrust/", "cuda_fp16", "cuda_bf16",
    "cuda_fp8", "curand", "mma.h", "cuda/", "sm_", "texture", "surface",
    "helper_math.h", "cufft", "cublas", "crt/",
};

/* Blanks #include lines of provided headers (the line count stays) and
 * refuses CUDA library headers; leaves other includes to the
 * preprocessor, which reports a file not found. */
static char *cu_filter_includes(cu_state *st, const char *source, size_t length,
                                unsigned *refused_line, const char **refused)
{
    char *text = clc_arena_alloc(st->arena, length + 1);
    memcpy(text, source, length);
    unsigned line = 1;
    for (size_t i = 0; i < length;) {
        size_t end = i;
        while (end < length && text[end] != '\n')
            ++end;
        size_t p = i;
        while (p < end && (text[p] == ' ' || text[p] == '\t'))
            ++p;
        if (p < end && text[p] == '#') {
            ++p;
            while (p < end && (text[p] == ' ' || text[p] == '\t'))
                ++p;
            if (end - p > 7 && memcmp(text + p, "include", 7) == 0) {
                p += 7;
                while (p < end && (text[p] == ' ' || text[p] == '\t'))
                    ++p;
                if (p < end && (text[p] == '<' || text[p] == '"')) {
                    char close = text[p] == '<' ? '>' : '"';
                    size_t q = p + 1;
                    while (q < end && text[q] != close)
                        ++q;
                    const char *name = clc_arena_strndup(st->arena, text + p + 1,
                                                         q - p - 1);
                    for (size_t k = 0; k < sizeof cu_provided_headers /
                                               sizeof cu_provided_headers[0]; ++k)
                        if (strcmp(name, cu_provided_headers[k]) == 0)
                            memset(text + i, ' ', end - i);
                    for (size_t k = 0; k < sizeof cu_refused_headers /
                                               sizeof cu_refused_headers[0]; ++k)
                        if (strncmp(name, cu_refused_headers[k],
                                    strlen(cu_refused_headers[k])) == 0 &&
                            *refused == NULL) {
                            *refused = name;
                            *refused_line = line;
                        }
                }
            }
        }
        /* a line continued by a backslash stays one line for the count */
        i = end + 1;
        ++line;
    }
    text[length] = '\0';
    return text;
}

/* ---- entry -------------------------------------------------------------------------------------------- */

static void cu_intern_names(cu_state *st)
{
#define CU_INTERN(field, text) st->field = clc_intern(st->interner, text, strlen(text))
    CU_INTERN(w_global_, "__global__");
    CU_INTERN(w_device_, "__device__");
    CU_INTERN(w_host_, "__host__");
    CU_INTERN(w_shared_, "__shared__");
    CU_INTERN(w_constant_, "__constant__");
    CU_INTERN(w_forceinline_, "__forceinline__");
    CU_INTERN(w_noinline_, "__noinline__");
    CU_INTERN(w_launch_bounds_, "__launch_bounds__");
    CU_INTERN(w_managed_, "__managed__");
    CU_INTERN(w_align_, "__align__");
    CU_INTERN(w_threadIdx, "threadIdx");
    CU_INTERN(w_blockIdx, "blockIdx");
    CU_INTERN(w_blockDim, "blockDim");
    CU_INTERN(w_gridDim, "gridDim");
    CU_INTERN(w_x, "x");
    CU_INTERN(w_y, "y");
    CU_INTERN(w_z, "z");
    CU_INTERN(w_nullptr, "nullptr");
    CU_INTERN(w_constexpr, "constexpr");
    CU_INTERN(w_static_cast, "static_cast");
    CU_INTERN(w_reinterpret_cast, "reinterpret_cast");
    CU_INTERN(w_const_cast, "const_cast");
    CU_INTERN(w_dim3, "dim3");
    CU_INTERN(w_template, "template");
    CU_INTERN(w_typename, "typename");
    CU_INTERN(w_class, "class");
    CU_INTERN(w_namespace, "namespace");
    CU_INTERN(w_using, "using");
    CU_INTERN(w_operator, "operator");
    CU_INTERN(w_this, "this");
    CU_INTERN(w_new, "new");
    CU_INTERN(w_delete, "delete");
    CU_INTERN(w_virtual, "virtual");
    CU_INTERN(w_public, "public");
    CU_INTERN(w_private_kw, "private");
    CU_INTERN(w_protected, "protected");
    CU_INTERN(w_friend, "friend");
    CU_INTERN(w_throw, "throw");
    CU_INTERN(w_try, "try");
    CU_INTERN(w_catch, "catch");
    CU_INTERN(w_decltype, "decltype");
#undef CU_INTERN
}

static char *cu_strdup(const char *text)
{
    size_t n = strlen(text);
    char *copy = malloc(n + 1);
    if (copy != NULL)
        memcpy(copy, text, n + 1);
    return copy;
}

static void cu_copy_name(char *out, size_t size, const char *text)
{
    snprintf(out, size, "%s", text);
}

/* The kernels' signatures and hidden parameters, for the caller. */
static int cu_export_signature(cu_state *st, const cu_function *f,
                               cuda_kernel *kernel);

static int cu_export(cu_state *st, cuda_to_opencl_result *out)
{
    size_t kernels = 0;
    for (size_t k = 0; k < st->instance_count; ++k)
        kernels += st->functions[st->instances[k].fn].is_kernel;
    out->kernels = calloc(kernels ? kernels : 1, sizeof *out->kernels);
    out->variables = calloc(st->variable_count ? st->variable_count : 1,
                            sizeof *out->variables);
    if (out->kernels == NULL || out->variables == NULL)
        return -1;
    for (size_t h = 0; h < st->hidden_count; ++h) {
        const cu_hidden *item = &st->hidden[h];
        if (item->kind != CU_H_VARIABLE)
            continue;
        cuda_variable *v = &out->variables[item->variable];
        cu_copy_name(v->name, sizeof v->name, cu_ident_text(st, item->name));
        v->is_constant = item->is_constant;
        v->has_initializer = item->init_begin != 0;
    }
    out->variable_count = st->variable_count;
    for (size_t k = 0; k < st->instance_count; ++k) {
        const cu_function *f = &st->functions[st->instances[k].fn];
        if (!f->is_kernel)
            continue;
        cuda_kernel *kernel = &out->kernels[out->kernel_count++];
        cu_copy_name(kernel->native_name, sizeof kernel->native_name,
                     st->instances[k].name);
        kernel->hidden = calloc(st->hidden_count + f->param_count + 1,
                                sizeof *kernel->hidden);
        if (kernel->hidden == NULL || cu_export_signature(st, f, kernel) != 0)
            return -1;
        for (size_t p = 0; p < f->param_count; ++p)
            if (cu_param_takes_offset(st, &f->params[p]))
                kernel->hidden[kernel->hidden_count++] =
                    (cuda_hidden_param){CUDA_HIDDEN_POINTER_OFFSET, p};
        for (size_t h = 0; h < st->hidden_count; ++h) {
            if (!f->needs[h])
                continue;
            if (st->hidden[h].kind == CU_H_DYNAMIC)
                kernel->hidden[kernel->hidden_count++] =
                    (cuda_hidden_param){CUDA_HIDDEN_DYNAMIC_SHARED, 0};
            else if (st->hidden[h].kind == CU_H_VARIABLE)
                kernel->hidden[kernel->hidden_count++] = (cuda_hidden_param){
                    CUDA_HIDDEN_VARIABLE, st->hidden[h].variable};
        }
    }
    return 0;
}

/* A kernel's name and parameters as the user declared them. */
static int cu_export_signature(cu_state *st, const cu_function *f,
                               cuda_kernel *kernel)
{
    cu_copy_name(kernel->signature.name, sizeof kernel->signature.name,
                 cu_ident_text(st, f->name));
    kernel->signature.params = calloc(f->param_count ? f->param_count : 1,
                                      sizeof *kernel->signature.params);
    if (kernel->signature.params == NULL)
        return -1;
    kernel->signature.param_count = f->param_count;
    for (size_t p = 0; p < f->param_count; ++p) {
        const cu_param *param = &f->params[p];
        clc_param *out_param = &kernel->signature.params[p];
        char type[96] = "";
        size_t used = 0;
        for (size_t i = param->begin; i < param->end; ++i) {
            if (i == param->name || cu_is_qualifier(st, i) ||
                cu_skip_attribute(st, i) != i)
                continue;
            if (cu_punct(st, i, P_LBRACKET)) {
                used +=
                (size_t)snprintf(type + used, sizeof type - used, "*");
                i = st->match[i];
                continue;
            }
            if (used >= sizeof type - 1)
                break;
            const char *word = cu_spelling(st, i);
            int star = word[0] == '*';
            used += (size_t)snprintf(type + used, sizeof type - used, "%s%s",
                                     used && !star ? " " : "", word);
        }
        cu_copy_name(out_param->type_name, sizeof out_param->type_name, type);
        cu_copy_name(out_param->name, sizeof out_param->name,
                     param->name ? cu_spelling(st, param->name) : "");
        if (param->pointer) {
            out_param->kind = CLC_PARAM_GLOBAL;
            out_param->size = 8;
        } else {
            out_param->kind = CLC_PARAM_VALUE;
            out_param->size = cu_type_size(type);
        }
    }
    return 0;
}

/* The preprocessor's view of CUDA: __CUDACC__ and __CUDA_ARCH__ as NVRTC
 * defines them for device code, none of OpenCL's; the user's -D and -U
 * come after these. */
static const translate_define cu_predefined[] = {
    {"__KILN_CUDA__", NULL},          {"__OPENCL_VERSION__", NULL},
    {"__OPENCL_C_VERSION__", NULL},   {"CL_VERSION_1_0", NULL},
    {"CL_VERSION_1_1", NULL},         {"CL_VERSION_1_2", NULL},
    {"CL_VERSION_2_0", NULL},         {"CL_VERSION_3_0", NULL},
    {"CLK_LOCAL_MEM_FENCE", NULL},    {"CLK_GLOBAL_MEM_FENCE", NULL},
    {"__CUDACC__", "1"},              {"__CUDA_ARCH__", "600"},
    {"__KILN_CUDA_TO_OPENCL__", "1"},
};

const char *cuda_to_opencl_filter(clc_run *run, const char *source,
                                  size_t length, const char *name)
{
    cu_state probe;
    memset(&probe, 0, sizeof probe);
    probe.arena = &run->arena;
    const char *refused = NULL;
    unsigned refused_line = 0;
    char *text = cu_filter_includes(&probe, source ? source : "", length,
                                    &refused_line, &refused);
    if (refused != NULL) {
        run->unsupported = 1;
        clc_fail(&run->failure, -1, 0,
                 "%s:%u: cannot translate '#include <%s>': CUDA library "
                 "headers are not supported by the OpenCL translation",
                 name ? name : "<kiln program>", refused_line, refused);
    }
    return text;
}

translate_options cuda_to_opencl_defines(clc_run *run,
                                         const translate_options *user)
{
    static const translate_options no_options;
    if (user == NULL)
        user = &no_options;
    size_t predefined = sizeof cu_predefined / sizeof cu_predefined[0];
    translate_define *defines = clc_arena_alloc(
        &run->arena, (predefined + user->define_count) * sizeof *defines);
    memcpy(defines, cu_predefined, sizeof cu_predefined);
    if (user->define_count > 0)
        memcpy(defines + predefined, user->defines,
               user->define_count * sizeof *defines);
    translate_options all = *user;
    all.defines = defines;
    all.define_count = predefined + user->define_count;
    return all;
}

/* The pass's state over a preprocessed program, its top level read. */
static cu_state *cu_begin(clc_run *run, const clc_pp_output *pp,
                          const translate_target *target)
{
    cu_state *st = clc_arena_alloc(&run->arena, sizeof *st);
    st->target = target;
    st->arena = &run->arena;
    st->interner = &run->interner;
    st->failure = &run->failure;
    st->unsupported = (int *)&run->unsupported;
    cu_intern_names(st);
    st->tokens = pp->tokens;
    st->count = pp->count ? pp->count - 1 : 0;
    st->file_names = pp->file_names;
    st->ident_count = run->interner.count;
    size_t n = st->ident_count + 1;
    st->function_of = clc_arena_alloc(&run->arena, n * sizeof *st->function_of);
    st->hidden_of = clc_arena_alloc(&run->arena, n * sizeof *st->hidden_of);
    st->constant_of = clc_arena_alloc(&run->arena, n * sizeof *st->constant_of);

    cu_match_brackets(st);
    clc_symbols_init(&st->symbols, &run->arena, &run->interner,
                     CLC_LANGUAGE_CUDA_C, st->tokens, st->count, st->match);
    clc_symbols_scan(&st->symbols);
    st->key_count = st->symbols.symbol_count + run->interner.count + 1;
    st->global_space = clc_arena_alloc(&run->arena, st->key_count);
    st->global_address = clc_arena_alloc(&run->arena, st->key_count);
    st->space_of = clc_arena_alloc(&run->arena, st->key_count);
    st->address_of = clc_arena_alloc(&run->arena, st->key_count);
    st->pointer_var = clc_arena_alloc(&run->arena, st->key_count);
    cu_top_level(st);
    return st;
}

void cuda_to_opencl_read(clc_run *run, const clc_pp_output *pp,
                         cuda_to_opencl_result *out)
{
    cu_state *st = cu_begin(run, pp, NULL);
    size_t kernels = 0;
    for (size_t k = 0; k < st->function_count; ++k)
        kernels += st->functions[k].is_kernel && st->functions[k].defined;
    out->kernels = calloc(kernels ? kernels : 1, sizeof *out->kernels);
    if (out->kernels == NULL)
        clc_fail_memory(&run->failure);
    for (size_t k = 0; k < st->function_count; ++k) {
        const cu_function *f = &st->functions[k];
        if (!f->is_kernel || !f->defined)
            continue;
        cuda_kernel *kernel = &out->kernels[out->kernel_count++];
        if (cu_export_signature(st, f, kernel) != 0)
            clc_fail_memory(&run->failure);
        cu_copy_name(kernel->native_name, sizeof kernel->native_name,
                     kernel->signature.name);
    }
}

void cuda_to_opencl_run(clc_run *run, const clc_pp_output *pp,
                        const translate_options *options,
                        const translate_target *target,
                        cuda_to_opencl_result *out)
{
    for (size_t i = 0; options != NULL && i < options->flag_count; ++i)
        if (strstr(options->flags[i], "use_fast_math") != NULL)
            out->fast_math = 1;
    cu_state *st = cu_begin(run, pp, target);
    cu_scan_functions(st);
    uint8_t global_spaces[CU_MAX_PARAMS];
    memset(global_spaces, CU_GLOBAL, sizeof global_spaces);
    for (size_t k = 0; k < st->function_count; ++k) {
        const cu_function *f = &st->functions[k];
        if (!f->is_kernel || !f->defined)
            continue;
        for (size_t i = f->begin; i < f->name_token; ++i)
            if (cu_ident(st, i) && !cu_is_qualifier(st, i) && !cu_is(st, i, W_void) &&
                !cu_is(st, i, st->w_global_) && cu_skip_attribute(st, i) == i &&
                !cu_is(st, i - 1, st->w_launch_bounds_))
                cu_fail(st, i, "a __global__ function must return void");
        cu_instance_get(st, k, global_spaces);
    }
    for (size_t k = 0; k < st->instance_count; ++k)
        cu_instance_build(st, k);

    clc_buffer output;
    clc_buffer_init(&output, &run->arena);
    clc_buffer_puts(&output, translate_prelude_opencl());
    cu_writer w = {&output, -1, 0, '\n'};
    for (size_t k = 0; k < st->item_count; ++k)
        cu_write_item(st, &w, &st->items[k]);
    clc_buffer_puts(&output, "\n");
    cu_write_variable_kernels(st, &output);

    out->uses_double = st->uses_double;
    out->source = cu_strdup(clc_buffer_text(&output));
    if (out->source == NULL || cu_export(st, out) != 0)
        clc_fail_memory(&run->failure);
}

int cuda_to_opencl_translate(const char *source, size_t length,
                             const char *source_name,
                             const translate_options *options,
                             cuda_to_opencl_result *out)
{
    memset(out, 0, sizeof *out);
    clc_run run;
    clc_run_begin(&run);
    if (setjmp(run.failure.unwind) != 0) {
        cuda_to_opencl_result_free(out);
        return clc_run_failed(&run, &out->error, &out->error_line,
                              &out->unsupported);
    }
    if (source == NULL && length != 0)
        clc_fail(&run.failure, -1, 0, "no source text");
    clc_interner_init(&run.interner, &run.arena);
    const char *name = source_name ? source_name : "<kiln program>";
    const char *text = cuda_to_opencl_filter(&run, source, length, name);
    translate_options all = cuda_to_opencl_defines(&run, options);
    clc_pp_output pp;
    clc_preprocess(text, length, name, &all, &run.arena, &run.interner, &pp);
    cuda_to_opencl_run(&run, &pp, options, NULL, out);
    clc_run_end(&run);
    return 0;
}

void cuda_to_opencl_result_free(cuda_to_opencl_result *translation)
{
    if (translation == NULL)
        return;
    free(translation->source);
    for (size_t k = 0; k < translation->kernel_count; ++k) {
        free(translation->kernels[k].signature.params);
        free(translation->kernels[k].hidden);
    }
    free(translation->kernels);
    free(translation->variables);
    free(translation->error);
    memset(translation, 0, sizeof *translation);
}
