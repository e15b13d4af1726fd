/*
 * CUDA C -> OpenCL C: what the pass's files share (private to translate/).
 * The pass, in the order its files run: cuda_to_opencl.c (the entry: the
 * text filtered, preprocessed, then each phase), cuda_to_opencl_tokens.c
 * (what a token is), cuda_to_opencl_declare.c (the top level read into
 * items), cuda_to_opencl_spaces.c (what each function needs; one instance
 * per combination of its pointers' address spaces, its body rewritten),
 * cuda_to_opencl_rewrite.c (refusals and rewrites every phase uses, on
 * rewrite.h's edits), cuda_to_opencl_write.c (the output, item by item,
 * through rewrite.h's writer).  cuda_to_opencl.h is the pass's interface
 * to the rest of translate/.
 */
#ifndef KILN_CUDA_TO_OPENCL_PASS_H
#define KILN_CUDA_TO_OPENCL_PASS_H

#include "cuda_to_opencl.h"

#include "expr_type.h"
#include "lexer.h"
#include "preprocess.h"
#include "rewrite.h"
#include "symbols.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define CU_MAX_PARAMS 64
#define CU_MAX_DECLARATORS 32

typedef enum cu_space {
    CU_PRIVATE = 0,
    CU_GLOBAL,
    CU_LOCAL,
    CU_CONSTANT,
    CU_UNKNOWN
} cu_space;

/* "__global " for CU_GLOBAL..., and one letter per space for instance
 * names (cuda_to_opencl_spaces.c). */
extern const char *const cu_space_word[5];
extern const char cu_space_letter[6];

/* ---- the state ------------------------------------------------------------
 */

typedef struct cu_param {
    size_t begin, end; /* the declaration's tokens, without the ','       */
    size_t name;       /* its name's token; 0 when unnamed               */
    int pointer;       /* a pointer or an array parameter                 */
} cu_param;

typedef struct cu_call {
    size_t token; /* the callee's name in the caller's body          */
    size_t callee;
} cu_call;

typedef struct cu_function {
    int32_t name;
    size_t name_token;
    size_t begin;       /* first token of the definition          */
    size_t open, close; /* the parameter list's parentheses       */
    size_t body_open, body_close;
    int defined;
    int is_kernel, force_inline, no_inline;
    int returns_pointer;
    /* Why the translation refuses it ("file:line: cannot translate ..."),
     * its own or a callee's; NULL when it does not
     * (cuda_to_opencl_refusals.c). */
    const char *refusal;
    unsigned refusal_line;
    cu_param *params;
    size_t param_count;
    cu_call *calls;
    size_t call_count;
    uint8_t *needs;       /* per hidden item                        */
    size_t *file_aliases; /* file-scope extern __shared__ it uses   */
    size_t file_alias_count;
} cu_function;

typedef enum cu_hidden_kind {
    CU_H_VARIABLE, /* __device__ / __constant__ variable: a buffer       */
    CU_H_SHARED,   /* __shared__ declared in a helper or at file scope  */
    CU_H_DYNAMIC   /* extern __shared__: the launch's local memory      */
} cu_hidden_kind;

typedef struct cu_hidden {
    cu_hidden_kind kind;
    int32_t name;
    size_t type_begin, type_end; /* the element type's tokens           */
    size_t name_token;
    size_t dims_begin, dims_end; /* [..][..] after the name             */
    size_t init_begin, init_end; /* the initializer, empty when none    */
    size_t decl_begin, decl_end; /* the whole declaration (';' included) */
    int array;
    int is_constant;
    long declared_in; /* CU_H_SHARED: function, -1 file scope */
    size_t variable;  /* CU_H_VARIABLE: index in the output  */
} cu_hidden;

typedef struct cu_constant {
    int32_t name;
    size_t init_begin, init_end;
    size_t type_begin, type_end;
    const char *text; /* rendered on first use               */
    int rendering;
} cu_constant;

typedef enum cu_item_kind {
    CU_ITEM_COPY,
    CU_ITEM_STRUCT,   /* a tagged definition: copied, then a typedef     */
    CU_ITEM_FUNCTION, /* definition or prototype of functions[fn]        */
    CU_ITEM_VARIABLE, /* hidden[hidden]: its initial value, if any       */
    CU_ITEM_CONSTANT, /* program-scope __constant data                   */
    CU_ITEM_SKIP
} cu_item_kind;

typedef struct cu_item {
    cu_item_kind kind;
    size_t begin, end; /* tokens [begin, end)                              */
    size_t fn;
    size_t hidden;
    int32_t tag; /* CU_ITEM_STRUCT                                  */
    int prototype;
} cu_item;

/* What one instance of a function is made for: the function, and the
 * address space of each of its pointer parameters (OpenCL C 1.2 has no
 * generic pointers: a helper called with a __global and a __local pointer
 * is two functions).  An instance is found by its whole key
 * (cu_instance_get), so whatever else makes two instances of one
 * function differ (a function template's arguments) belongs here. */
typedef struct cu_instance_key {
    size_t fn;
    uint8_t spaces[CU_MAX_PARAMS]; /* per parameter; 0 for non-pointers */
} cu_instance_key;

typedef struct cu_instance {
    cu_instance_key key;
    const char *name;
    clc_edits edits;
    const char *hoisted; /* __local declarations at the kernel's top  */
    const char *aliases; /* file-scope extern __shared__ aliases      */
    uint8_t return_space; /* a returned pointer's space + 1; 0 unknown */
    int pending;          /* its analysis met a call whose result's
                             space was not known yet: built again      */
    int built;            /* built at least once                       */
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
    size_t file_count;

    /* What each name is where it stands: declarations, scopes, types. */
    clc_symbols symbols;

    /* by identifier id */
    int32_t *function_of; /* function index + 1                    */
    int32_t *hidden_of;   /* file-scope hidden item index + 1      */
    int32_t *constant_of; /* integer constant index + 1            */
    size_t ident_count;
    /* by variable (cu_variable_key) */
    uint8_t *global_space;   /* file-scope data: space + 1            */
    uint8_t *global_address; /* ... an array                          */
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
    int return_pending; /* cu_expr_space met a callee not built yet   */

    /* identifiers the pass looks for */
    int32_t w_global_, w_device_, w_host_, w_shared_, w_constant_,
        w_forceinline_, w_noinline_, w_launch_bounds_, w_managed_, w_align_, w_grid_constant_,
        w_extern_c_block, w_threadIdx, w_blockIdx, w_blockDim, w_gridDim, w_x,
        w_y, w_z, w_nullptr, w_constexpr, w_static_cast, w_reinterpret_cast,
        w_const_cast, w_dim3, w_template, w_typename, w_class, w_namespace,
        w_using, w_operator, w_this, w_new, w_delete, w_virtual, w_public,
        w_private_kw, w_protected, w_friend, w_throw, w_try, w_catch,
        w_decltype, w_ptrdiff_t2;

    /* per-instance analysis scratch, by variable (cu_variable_key) */
    uint8_t *space_of;    /* space + 1, 0 when not a variable      */
    uint8_t *address_of;  /* a pointer or an array                 */
    uint8_t *pointer_var; /* a pointer declared in this body       */
} cu_state;

/* A declaration inside a body, its declarators in order. */
typedef struct cu_declarator {
    size_t name;
    int pointer;
    int array;
    size_t init_begin, init_end; /* empty when none            */
    size_t comma;                /* the ',' before it; 0 for the first */
    cu_space space;
} cu_declarator;

typedef struct cu_decl {
    size_t begin, spec_end, end; /* end: the ';' (or ')' / '=' ...) */
    int shared, is_extern, is_static, in_for;
    size_t count;
    cu_declarator d[CU_MAX_DECLARATORS];
} cu_decl;

/* ---- functions the pass's files share ---------------------------------------
 */

CLC_NORETURN void cu_fail(cu_state *st, size_t at, const char *format, ...)
    CLC_PRINTF(3, 4);
CLC_NORETURN void cu_refuse(cu_state *st, size_t at, const char *format, ...)
    CLC_PRINTF(3, 4);
char *cu_printf(cu_state *st, const char *format, ...) CLC_PRINTF(2, 3);
void *cu_grow(cu_state *st, void *items, size_t count, size_t size);
int cu_punct(const cu_state *st, size_t i, clc_punct punct);
int cu_ident(const cu_state *st, size_t i);
int cu_is(const cu_state *st, size_t i, int32_t word);
const clc_ident *cu_name(const cu_state *st, size_t i);
int cu_name_is(const cu_state *st, size_t i, const char *name);
int cu_name_starts(const cu_state *st, size_t i, const char *prefix);
const char *cu_spelling(cu_state *st, size_t i);
int cu_is_member(const cu_state *st, size_t i);
size_t cu_variable_key(const cu_state *st, size_t i);
int cu_is_declared_type(const cu_state *st, size_t i);
int cu_type_has_pointers(const clc_type *type, unsigned depth);
void cu_match_brackets(cu_state *st);
int cu_is_open(const cu_state *st, size_t i);
int cu_is_builtin_type(const cu_state *st, size_t i);
int cu_is_type_name(const cu_state *st, size_t i);
int cu_is_qualifier(const cu_state *st, size_t i);
/* Is token i at the start of a statement (where a declaration may be)? */
int cu_statement_start(const cu_state *st, size_t i);
size_t cu_skip_attribute(const cu_state *st, size_t i);
size_t cu_specifiers(const cu_state *st, size_t i, size_t end);
size_t cu_type_size(const char *type);
/* clc_render over the pass's tokens. */
const char *cu_render(cu_state *st, const clc_edits *e, size_t begin,
                      size_t end);
void cu_check_identifier(cu_state *st, size_t i);
void cu_check_tokens(cu_state *st, size_t begin, size_t end);
/* Whether the name at i is an OpenCL C keyword (a plain name in CUDA C,
 * written __kiln_id_NAME). */
int cu_opencl_keyword(const cu_state *st, size_t i, int32_t id);
void cu_generic(cu_state *st, clc_edits *e, size_t begin, size_t end);
size_t cu_expression_end(const cu_state *st, size_t i, size_t end);
int cu_declaration(cu_state *st, size_t i, size_t end, cu_decl *d);
size_t cu_hidden_add(cu_state *st, cu_hidden h);
long cu_function_find(cu_state *st, int32_t name);
void cu_top_level(cu_state *st);
void cu_scan_functions(cu_state *st);
/* The instance of `key`, made (and named) the first time it is asked
 * for. */
size_t cu_instance_get(cu_state *st, const cu_instance_key *key);
const char *cu_ident_text(const cu_state *st, int32_t id);
const char *cu_hidden_type(cu_state *st, size_t h);
const char *cu_hidden_dims(cu_state *st, size_t h, int skip_first);
const char *cu_hidden_param(cu_state *st, size_t h, size_t fn);
int cu_param_takes_offset(cu_state *st, const cu_param *p);
void cu_instance_build(cu_state *st, size_t index);
void cu_write_item(cu_state *st, clc_writer *w, const cu_item *item);
void cu_write_variable_kernels(cu_state *st, clc_buffer *out);
char *cu_filter_includes(cu_state *st, const char *source, size_t length,
                         unsigned *refused_line, const char **refused,
                         unsigned *headers);

/* Refusals per kernel (cuda_to_opencl_refusals.c).  cu_try runs
 * fn(st, arg); a refusal inside comes back as 0 and is recorded as
 * function `function`'s, any other failure goes on to the caller's. */
typedef void (*cu_try_fn)(cu_state *st, void *arg);
int cu_try(cu_state *st, cu_try_fn fn, void *arg, size_t function);
/* Kernels that reach a refused function through their calls take its
 * refusal.  Returns the kernels left; with none left, fails the program
 * with the first refusal. */
size_t cu_refuse_kernels(cu_state *st);
/* Fails the program with the first function's refusal, if any. */
void cu_refuse_any(cu_state *st);
/* The refused kernels, for the caller (malloc'ed). */
int cu_export_refusals(cu_state *st, cuda_to_opencl_result *out);

/* The OpenCL C spelling of CUDA's vector type or fixed-width integer
 * named at token i (longlong2 -> long2), NULL when there is none to
 * write. */
const char *cu_extra_type_spelling(const cu_state *st, size_t i);

#endif /* KILN_CUDA_TO_OPENCL_PASS_H */
