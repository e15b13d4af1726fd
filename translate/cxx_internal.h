/*
 * The C++ lowering phase's shared structures (private to translate/cxx_*.c;
 * the phase's entry point is cxx.h).
 *
 * The phase reads the preprocessed tokens of a CUDA C++ program as a C++
 * compiler's front end would: declarations into scopes (namespaces,
 * classes, functions, blocks, template parameters), types, expressions
 * with their types and value categories.  It then writes the program
 * again as the C-like CUDA that the CUDA C -> OpenCL C pass reads, as
 * edits on the program's own tokens (so every token keeps its line):
 *
 *  - templates are instantiated on demand by reading their tokens again
 *    with the template parameters bound (the parameters' names then name
 *    the argument types and values), one plain function or struct per set
 *    of arguments, keyed by the template and its argument list;
 *  - overloads, namespaces and class members get names of their own;
 *  - references become pointers (an rvalue bound to a reference goes
 *    through a small wrapper that takes it by value, as C++'s temporary);
 *  - member functions, constructors and operators become functions that
 *    take the object's address (`this`);
 *  - `auto`, default arguments, constexpr values, static_assert and
 *    if constexpr are resolved here.
 *
 * Everything lives in the translation's arena; failures unwind through
 * clc_fail like the rest of the front end.
 */
#ifndef KILN_CXX_INTERNAL_H
#define KILN_CXX_INTERNAL_H

#include "cxx.h"
#include "lexer.h"

#include <stddef.h>
#include <stdint.h>

/* A member function's object, and a constructor's, in the output. */
#define CX_THIS "__kiln_this"
#define CX_SELF "__kiln_self"

typedef struct cx_state cx_state;
typedef struct cx_type cx_type;
typedef struct cx_decl cx_decl;
typedef struct cx_scope cx_scope;
typedef struct cx_function cx_function;
typedef struct cx_record cx_record;
typedef struct cx_template cx_template;
typedef struct cx_expr cx_expr;
typedef struct cx_edits cx_edits;

/* ---- types ------------------------------------------------------------- */

typedef enum cx_type_kind {
    /* arithmetic, in the order of C++'s conversion ranks where it matters */
    CXT_VOID = 0,
    CXT_BOOL, CXT_CHAR, CXT_SCHAR, CXT_UCHAR, CXT_SHORT, CXT_USHORT,
    CXT_INT, CXT_UINT, CXT_LONG, CXT_ULONG, CXT_LLONG, CXT_ULLONG,
    CXT_FLOAT, CXT_DOUBLE,
    CXT_NULLPTR,
    CXT_VECTOR,    /* CUDA's float4 & co.: elem x width, members x y z w  */
    CXT_POINTER,   /* base                                              */
    CXT_LREF,      /* base&                                             */
    CXT_RREF,      /* base&&                                            */
    CXT_ARRAY,     /* base[length], length -1 when not given            */
    CXT_RECORD,    /* decl: the struct, class or union (an instance of a
                      class template is a record of its own)            */
    CXT_ENUM,      /* decl: the enumeration                             */
    CXT_FUNCTION,  /* base: result; params                              */
    CXT_NAMED,     /* a type this phase does not model, kept by name    */
    /* only while templates are matched against arguments: */
    CXT_TPARAM,    /* decl: an unbound template parameter               */
    CXT_TEMPLATE_ID, /* decl: a class template; params: its arguments
                        (types, or CXT_VALUE)                           */
    CXT_VALUE,     /* a non-type template argument: length is the value,
                      base its type; or decl: an unbound value parameter */
    CXT_DEPENDENT, /* a dependent type that cannot be deduced from      */
    CXT_AUTO       /* `auto` before its initializer is seen             */
} cx_type_kind;

enum { CXQ_CONST = 1, CXQ_VOLATILE = 2, CXQ_RESTRICT = 4 };

struct cx_type {
    uint8_t kind;
    uint8_t quals;
    uint8_t elem;              /* VECTOR: the element's kind           */
    uint8_t width;             /* VECTOR                               */
    long long length;          /* ARRAY; VALUE: the value              */
    const cx_type *base;
    cx_decl *decl;
    const cx_type *const *params;
    uint32_t param_count;
    uint32_t hash;
    const cx_type *next;       /* the type table's chain               */
};

/* ---- values -------------------------------------------------------------- */

typedef struct cx_value {
    int known;                 /* 0: not a constant                     */
    int is_float;
    long long i;               /* integers: the bits (unsigned as such) */
    double f;
    const cx_type *type;
} cx_value;

/* ---- declarations and scopes --------------------------------------------- */

typedef enum cx_decl_kind {
    CXD_NAMESPACE = 1,
    CXD_VAR,         /* a variable, parameter or static data member     */
    CXD_FIELD,       /* a non-static data member                        */
    CXD_FUNCTION,    /* one function; overloads are chained by `same`   */
    CXD_TYPEDEF,     /* typedef, alias, a bound type template parameter */
    CXD_RECORD,
    CXD_ENUM,
    CXD_ENUMERATOR,
    CXD_TEMPLATE,
    CXD_TPARAM,      /* an unbound template parameter (while matching)  */
    CXD_VALUE,       /* a bound non-type template parameter             */
    CXD_ALIAS        /* `using a::b;` or `namespace x = y;`: target     */
} cx_decl_kind;

enum {
    CXF_DEVICE = 1 << 0,       /* __device__ (or __global__)             */
    CXF_HOST = 1 << 1,
    CXF_KERNEL = 1 << 2,       /* __global__                             */
    CXF_CONSTEXPR = 1 << 3,
    CXF_STATIC = 1 << 4,
    CXF_EXTERN = 1 << 5,
    CXF_SHARED = 1 << 6,       /* __shared__                             */
    CXF_CONSTANT = 1 << 7,     /* __constant__                           */
    CXF_INLINE = 1 << 8,
    CXF_FORCEINLINE = 1 << 9,
    CXF_NOINLINE = 1 << 10,
    CXF_BUILTIN = 1 << 11,     /* declared by the builtins, not the user */
    CXF_REFERENCE = 1 << 12,   /* a variable lowered to a pointer        */
    CXF_EXTERN_C = 1 << 13,
    CXF_EXPLICIT = 1 << 14,
    CXF_TYPEDEF = 1 << 15,
    CXF_FRIEND = 1 << 16,
    CXF_VIRTUAL = 1 << 17,
    CXF_DELETED = 1 << 18,
    CXF_DEFAULTED = 1 << 19,
    CXF_EMITTED = 1 << 20,     /* written to the output                  */
    CXF_MUTABLE = 1 << 21,
    CXF_EVALUATING = 1 << 22   /* its value is being computed            */
};

struct cx_decl {
    uint8_t kind;
    int32_t name;              /* identifier id, -1 when anonymous       */
    uint32_t flags;
    cx_scope *parent;          /* the scope that declares it             */
    cx_decl *next;             /* the next declaration of that scope     */
    cx_decl *same;             /* the next one of the same name there    */
    const cx_type *type;
    size_t token;              /* its name's token                       */
    const char *cname;         /* its name in the output                 */
    cx_scope *scope;           /* NAMESPACE, RECORD, ENUM: its members    */
    cx_function *fn;           /* FUNCTION                               */
    cx_record *rec;            /* RECORD                                 */
    cx_template *tmpl;         /* TEMPLATE                               */
    cx_decl *target;           /* ALIAS                                  */
    cx_value value;            /* ENUMERATOR, VALUE, constant VAR        */
    size_t init_begin, init_end; /* VAR: the initializer's tokens        */
    uint8_t init_paren;        /* ... written T x(args): direct           */
    cx_scope *init_scope;      /* where the initializer is read          */
    unsigned index;            /* TPARAM: its position                   */
    int emitted_as_global;     /* VAR at file scope: written             */
};

typedef enum cx_scope_kind {
    CXS_NAMESPACE = 1,
    CXS_RECORD,
    CXS_ENUM,                  /* a scoped enumeration's enumerators     */
    CXS_TEMPLATE,              /* template parameters, bound or not      */
    CXS_FUNCTION,              /* a function's parameters                */
    CXS_BLOCK
} cx_scope_kind;

struct cx_scope {
    uint8_t kind;
    cx_scope *parent;
    cx_decl *owner;            /* NAMESPACE, RECORD, ENUM, FUNCTION      */
    cx_decl *first, *last;
    cx_decl **usings;          /* using-directives: namespaces           */
    size_t using_count;
    cx_decl **inlines;         /* its inline namespaces                  */
    size_t inline_count;
    int hashed;                /* members in the state's member table    */
    int is_inline;             /* an inline namespace                    */
};

/* ---- functions -------------------------------------------------------------- */

/* A function this phase writes itself (a wrapper, a maker). */
struct cx_extra_text {
    const char *prototype, *definition;
    size_t anchor;
};

typedef struct cx_param {
    int32_t name;
    size_t name_token;         /* 0 when unnamed                         */
    const cx_type *type;
    size_t default_begin, default_end; /* its default argument's tokens  */
    cx_decl *decl;             /* while a body is read                   */
} cx_param;

/* Operators, by what they are called in the output. */
typedef enum cx_op {
    CXO_NONE = 0,
    CXO_ADD, CXO_SUB, CXO_MUL, CXO_DIV, CXO_MOD, CXO_XOR, CXO_AND, CXO_OR,
    CXO_COMPL, CXO_NOT, CXO_ASSIGN, CXO_LT, CXO_GT, CXO_ADD_ASSIGN,
    CXO_SUB_ASSIGN, CXO_MUL_ASSIGN, CXO_DIV_ASSIGN, CXO_MOD_ASSIGN,
    CXO_XOR_ASSIGN, CXO_AND_ASSIGN, CXO_OR_ASSIGN, CXO_SHL, CXO_SHR,
    CXO_SHL_ASSIGN, CXO_SHR_ASSIGN, CXO_EQ, CXO_NE, CXO_LE, CXO_GE,
    CXO_LAND, CXO_LOR, CXO_INC, CXO_DEC, CXO_COMMA, CXO_ARROW, CXO_CALL,
    CXO_INDEX, CXO_CONVERSION, CXO_NEW, CXO_DELETE,
    CXO__COUNT
} cx_op;

struct cx_function {
    cx_param *params;
    size_t param_count;
    int variadic;
    const cx_type *result;
    int is_method;             /* a non-static member function           */
    int is_const_method;
    int is_ctor, is_dtor;
    cx_op op;
    cx_decl *record;           /* members: their class                   */
    cx_decl *decl;
    size_t begin;              /* its declaration's first token          */
    size_t name_token;
    size_t params_open, params_close;
    size_t inits_begin, inits_end; /* a constructor's member initializers */
    size_t body_open, body_close;  /* 0 when only declared               */
    cx_scope *scope;           /* where its declaration was read          */
    cx_template *from;         /* an instance: of this template           */
    const cx_type *const *args;
    int state;                 /* 0 not used, 1 waiting, 2 written        */
    int trivial;               /* a constructor that does nothing         */
    uint32_t *wrappers;        /* masks of by-value wrappers made         */
    size_t wrapper_count;
    cx_edits *edits;           /* its body's, once read                   */
    const char *prologue;      /* a constructor's first statements        */
    cx_function **callees;     /* the functions its body calls            */
    size_t callee_count;
    struct cx_extra_text *wrapper_texts; /* its by-value wrappers         */
    size_t wrapper_text_count;
    int emit_state;            /* 0, 1 being ordered, 2 ordered           */
    int needs_prototype;       /* called before its definition is written */
    unsigned order;            /* creation order                          */
    /* Why its body cannot be translated ("file:line: cannot translate
     * ..."); NULL for the others.  It is emitted with an empty body and
     * refused by the pass below, with the kernels that reach it. */
    const char *refusal;
    unsigned refusal_line;
};

/* ---- records ------------------------------------------------------------------ */

struct cx_record {
    int is_union;
    int complete;              /* its body was read                       */
    int has_ctor;              /* a user-written constructor              */
    int has_default_ctor;      /* ... that takes no argument              */
    int nontrivial_default;    /* default construction runs code          */
    int has_nsdmi;             /* default member initializers             */
    int is_lambda;
    size_t begin;              /* 'struct' / 'class'                     */
    size_t body_open, body_close;
    size_t align;              /* alignas / __align__, 0 when none        */
    cx_template *from;         /* an instance: of this template           */
    const cx_type *const *args;
    cx_decl *base;             /* a single non-virtual base (refused)     */
    const char *unreadable;    /* why its body could not be read          */
    int emitted;               /* 0, 1 being written, 2 written           */
    size_t size, alignment;    /* CUDA's layout, 0 until computed         */
};

/* ---- templates ------------------------------------------------------------------ */

typedef enum cx_template_kind {
    CXTM_FUNCTION = 1, CXTM_RECORD, CXTM_ALIAS, CXTM_VARIABLE
} cx_template_kind;

typedef struct cx_tparam {
    int32_t name;
    size_t token;
    int is_type;
    int pack;
    size_t type_begin, type_end;     /* a value parameter's type          */
    size_t default_begin, default_end;
} cx_tparam;

typedef struct cx_instance {
    const cx_type *const *args;
    cx_decl *decl;
    struct cx_instance *next;
} cx_instance;

typedef struct cx_specialization {
    cx_template *params;       /* a partial one's own parameters, NULL for
                                  an explicit (full) one                 */
    size_t args_begin, args_end; /* its '<' ... '>' after the name        */
    size_t begin, end;         /* the declaration                        */
    cx_scope *scope;
    const cx_type *const *args; /* full: the arguments                    */
    cx_decl *decl;             /* full: the record or function            */
    struct cx_specialization *next;
} cx_specialization;

struct cx_template {
    cx_template_kind kind;
    int32_t name;
    cx_tparam *params;
    size_t param_count;
    size_t begin, end;         /* the declaration after template<...>    */
    size_t name_token;
    cx_scope *scope;           /* where it is declared                    */
    cx_decl *decl;
    cx_decl *record;           /* a member template: its class           */
    cx_specialization *specs;
    cx_instance *instances;
    /* FUNCTION: the signature read with the parameters unbound */
    cx_decl *pattern;
    uint32_t flags;            /* CXF_* of the templated declaration      */
    /* what makes it untranslatable (a parameter pack), refused only when
     * the program uses it: 0 when nothing does */
    size_t refused_at;
    const char *refused;
};

/* ---- expressions ------------------------------------------------------------------ */

typedef enum cx_expr_kind {
    CXE_NAME = 1,      /* decl: what it names (NULL: unknown)            */
    CXE_LITERAL,       /* value                                          */
    CXE_STRING,
    CXE_THIS,
    CXE_CALL,          /* a: the callee; args; decl: the function called */
    CXE_MEMBER,        /* a: the object; decl: the member; op: . or ->   */
    CXE_INDEX,         /* a[b]                                           */
    CXE_UNARY,         /* op a                                           */
    CXE_POSTFIX,       /* a op                                           */
    CXE_BINARY,        /* a op b                                         */
    CXE_ASSIGN,        /* a op= b                                        */
    CXE_COND,          /* a ? b : c                                      */
    CXE_CAST,          /* (type) a, X_cast<type>(a)                      */
    CXE_CONSTRUCT,     /* type(args), type{args}                         */
    CXE_SIZEOF,        /* sizeof/alignof of a type (cast_type) or of a   */
    CXE_PAREN,
    CXE_INIT_LIST,     /* { args }                                       */
    CXE_LAMBDA,
    CXE_TYPE           /* a type where an expression may stand           */
} cx_expr_kind;

typedef enum cx_call_kind {
    CXC_PLAIN = 0,     /* a function by name                             */
    CXC_BUILTIN,       /* a builtin: kept as written                     */
    CXC_METHOD,        /* obj.f(...), p->f(...), f(...) in a member       */
    CXC_OPERATOR,      /* an overloaded operator (a, b the operands)     */
    CXC_CONSTRUCT,     /* T(...) with a constructor                      */
    CXC_AGGREGATE,     /* T{...} of an aggregate                         */
    CXC_UNKNOWN        /* a name the phase does not know                 */
} cx_call_kind;

struct cx_expr {
    uint8_t kind;
    uint8_t op;                /* clc_punct of the operator              */
    uint8_t lvalue;
    uint8_t call_kind;
    uint8_t implicit_this;     /* a member named without `this->`        */
    uint8_t is_sizeof;         /* CXE_SIZEOF: 1 sizeof, 0 alignof        */
    const cx_type *type;       /* NULL: not known                        */
    size_t first, last;        /* its tokens                             */
    size_t op_token;
    cx_expr *a, *b, *c;
    cx_expr **args;
    size_t argc;
    cx_decl *decl;
    const cx_type *cast_type;
    cx_value value;
    size_t name_first;         /* a qualified name's tokens: first..last  */
    const cx_type **targs;     /* f<...>: the template arguments written */
    size_t targ_count;
    uint8_t has_targs;
};

/* ---- edits on tokens ------------------------------------------------------------- */

/* Text to put before, instead of or after tokens of one range. */
struct cx_edits {
    size_t begin, end;
    const char **before;
    const char **replace;      /* NULL: the token; "": dropped          */
    const char **after;
};

/* ---- what is being read ------------------------------------------------------- */

/* The context of a reading: the scope names are looked up in, and, in a
 * function body (or an initializer) that is written out, the edits that
 * lower it.  Template arguments, array bounds of types and constant
 * expressions are read with `edits` NULL. */
typedef struct cx_body {
    cx_function *fn;           /* NULL outside a function                */
    cx_edits *edits;           /* NULL: nothing is written               */
    cx_scope *scope;           /* the innermost scope                    */
    cx_decl *record;           /* a member function's class              */
    int is_const;              /* ... a const one                        */
    const cx_type *result;     /* the function's result type             */
    int ctor;                  /* a constructor: `return;` returns self  */
    int pattern;               /* reading a template's signature with
                                  its parameters unbound                 */
    int in_template_args;      /* a '>' ends the expression              */
    int objects_only;          /* T x(...) declares an object, not a
                                  function (a block's declarations)      */
    unsigned temp_count;
} cx_body;

/* ---- the state ------------------------------------------------------------------- */

typedef struct cx_words {
    int32_t template_, typename_, class_, namespace_, using_, operator_,
        this_, decltype_, constexpr_, nullptr_, explicit_, friend_, public_,
        private_, protected_, virtual_, new_, delete_, static_cast_,
        reinterpret_cast_, const_cast_, dynamic_cast_, alignof_, alignas_,
        noexcept_, throw_, try_, catch_, mutable_, override_, final_,
        typeid_, device_, global_, host_, shared_, constant_, forceinline_,
        noinline_, launch_bounds_, align_, managed_, grid_constant_,
        restrict_, std_, dim3_, size_t_, ptrdiff_t_, int8_t_, uint8_t_,
        int16_t_, uint16_t_, int32_t_, uint32_t_, int64_t_, uint64_t_,
        intptr_t_, uintptr_t_, x_, y_, z_, w_, consteval_, constinit_,
        thread_local_, wchar_t_, char16_t_, char32_t_, requires_, concept_,
        and_, or_, not_, cuda_std_, extern_, static_assert_, if_;
} cx_words;

typedef struct cx_type_table {
    const cx_type **slots;
    size_t slot_count, count;
} cx_type_table;

typedef struct cx_member_table {
    struct cx_member_slot {
        const cx_scope *scope;
        int32_t name;
        cx_decl *decl;         /* the first declaration; `same` chains   */
    } *slots;
    size_t slot_count, count;
} cx_member_table;

typedef struct cx_out {
    clc_token *tokens;
    size_t count, capacity;
} cx_out;

/* What the program declares outside functions, in the order written: the
 * output keeps that order. */
typedef enum cx_item_kind {
    CXI_RECORD = 1,  /* decl: a struct, class or union                  */
    CXI_ENUM,        /* decl                                            */
    CXI_TYPEDEF,     /* decl                                            */
    CXI_VARIABLE,    /* decl                                            */
    CXI_PRAGMA       /* tokens [begin, end)                             */
} cx_item_kind;

typedef struct cx_item {
    uint8_t kind;
    cx_decl *decl;
    size_t begin, end;
} cx_item;

struct cx_state {
    clc_arena *arena;
    clc_interner *interner;
    clc_failure *failure;
    volatile int *unsupported;
    const clc_token *tokens;   /* the builtins' tokens, then the user's  */
    size_t count;              /* without the EOF token                  */
    size_t user_begin;         /* the user's first token                 */
    size_t *match;             /* brackets: the partner's index          */
    cx_words w;
    cx_type_table types;
    cx_member_table members;
    cx_scope *global;
    const cx_type *size_type;  /* unsigned long                          */
    cx_decl *dim3;

    /* what the program uses that needs lowering */
    int cxx_used;
    uint8_t operators_declared[CXO__COUNT];
    int32_t this_name;         /* `__kiln_this`                          */

    /* functions to write, in the order they were first needed */
    cx_function **functions;
    size_t function_count;
    cx_function **queue;
    size_t queue_head, queue_count;
    unsigned order;
    /* records to write before the functions, in order */
    cx_out types_out;          /* structs, typedefs, variables           */
    cx_out protos_out;         /* function prototypes                    */
    cx_out bodies_out;         /* function definitions                   */
    const clc_token *anchor;   /* line of text being written             */
    clc_token_array lexed;     /* cx_out_text's scratch, reused          */
    unsigned name_count;       /* generated names                        */

    cx_item *items;
    size_t item_count;
    int reading_builtins;      /* declarations get CXF_BUILTIN           */
    size_t pending_gt;         /* a '>>' whose second '>' is pending     */
    unsigned eval_depth;       /* constexpr calls being interpreted      */
    int32_t ctor_name;         /* the name constructors are declared by  */
    int32_t conversion_name;   /* ... conversion functions               */

    /* aggregate makers, written before the functions */
    struct cx_extra_text *wrapper_texts;
    size_t wrapper_count;
    cx_function *current;      /* the function whose body is being read  */
    struct cx_maker {
        cx_decl *record;
        size_t count;
    } *makers;
    size_t maker_count;
    cx_decl **wanted;          /* records to write, in the order wanted  */
    size_t wanted_count;
    int spell_tags;            /* spell records as `struct X` (fields)   */
    /* array types a pointer or reference points to, written as typedefs
     * (C's `float (*p)[8]` reads as a cast to the CUDA C pass) */
    struct cx_array_name {
        const cx_type *type;
        const char *name;
    } *array_names;
    size_t array_name_count;

    /* kernels asked for by name (cxx.h) */
    const char *const *requests;
    size_t request_count;
    cxx_kernel_name *kernels;
    size_t kernel_count;
};

/* ---- cxx_types.c ---------------------------------------------------------------- */

const cx_type *cx_type_get(cx_state *st, const cx_type *proto);
const cx_type *cx_scalar(cx_state *st, cx_type_kind kind);
const cx_type *cx_qualified(cx_state *st, const cx_type *type, unsigned quals);
const cx_type *cx_unqualified(cx_state *st, const cx_type *type);
const cx_type *cx_pointer(cx_state *st, const cx_type *base);
const cx_type *cx_reference(cx_state *st, const cx_type *base, int rvalue);
const cx_type *cx_array(cx_state *st, const cx_type *base, long long length);
const cx_type *cx_vector(cx_state *st, cx_type_kind elem, unsigned width);
const cx_type *cx_function_type(cx_state *st, const cx_type *result,
                                const cx_type *const *params, size_t count);
const cx_type *cx_record_type(cx_state *st, cx_decl *record);
const cx_type *cx_value_type(cx_state *st, const cx_type *type, long long v);
const cx_type *cx_list_type(cx_state *st, cx_type_kind kind, cx_decl *decl,
                            const cx_type *const *items, size_t count);
const cx_type *const *cx_type_list(cx_state *st, const cx_type *const *items,
                                   size_t count);

int cx_is_arithmetic(const cx_type *t);
int cx_is_integral(const cx_type *t);
int cx_is_floating(const cx_type *t);
int cx_is_unsigned(const cx_type *t);
int cx_is_scalar(const cx_type *t);   /* arithmetic, enum, pointer     */
int cx_is_record(const cx_type *t);
int cx_is_dependent(const cx_type *t);
const cx_type *cx_strip_ref(const cx_type *t);
const cx_type *cx_decay(cx_state *st, const cx_type *t);
const cx_type *cx_promote(cx_state *st, const cx_type *t);
const cx_type *cx_arith_common(cx_state *st, const cx_type *a,
                               const cx_type *b);
/* CUDA's sizes (LP64; float3 is 12 bytes); 0 when unknown. */
size_t cx_sizeof(cx_state *st, const cx_type *t);
size_t cx_alignof(cx_state *st, const cx_type *t);
/* The type as a C declaration of `name` (NULL or "": abstract). */
const char *cx_spell(cx_state *st, const cx_type *t, const char *name);
/* The type as C++ writes it, for messages and kernel names. */
const char *cx_describe(cx_state *st, const cx_type *t);
const char *cx_vector_name(cx_type_kind elem, unsigned width);

/* ---- cxx_scope.c ----------------------------------------------------------------- */

cx_scope *cx_scope_new(cx_state *st, cx_scope_kind kind, cx_scope *parent,
                       cx_decl *owner);
cx_decl *cx_decl_new(cx_state *st, cx_decl_kind kind, int32_t name,
                     size_t token);
void cx_declare(cx_state *st, cx_scope *scope, cx_decl *decl);
/* Declarations of `name` in `scope` itself (`same` chains them); NULL. */
cx_decl *cx_lookup_in(cx_state *st, const cx_scope *scope, int32_t name);
/* ... in a namespace with its inline namespaces and using-directives, or
 * a class with its base. */
cx_decl *cx_lookup_qualified(cx_state *st, const cx_scope *scope,
                             int32_t name);
/* Unqualified lookup from `scope` outwards. */
cx_decl *cx_lookup(cx_state *st, const cx_scope *scope, int32_t name);
/* An alias's target (ALIAS followed). */
cx_decl *cx_resolve(cx_decl *decl);
/* The name as written with its namespaces and classes, "a::b". */
const char *cx_qualified_name(cx_state *st, const cx_decl *decl);
/* The innermost namespace or class scope around `scope`. */
cx_scope *cx_enclosing(cx_scope *scope);
const char *cx_ident_name(cx_state *st, int32_t id);

/* ---- cxx_decl.c ------------------------------------------------------------------- */

typedef struct cx_specs {
    const cx_type *type;       /* NULL: none                              */
    uint32_t flags;            /* CXF_*                                   */
    unsigned quals;
    size_t align;
    size_t end;                /* the token after them                    */
    int defined_record;        /* a struct or enum body was among them    */
    cx_decl *record;           /* ... that one                            */
    int has_auto;
    int is_typedef;
} cx_specs;

typedef struct cx_declarator {
    size_t name;               /* its name's token, 0 when abstract       */
    size_t name_first;         /* a qualified name's first token          */
    cx_scope *qualifier;       /* `A::f`: the scope named before the name */
    const cx_type *type;
    size_t begin, end;         /* its tokens (name and operators)          */
    size_t params_open;        /* a function's '(' , 0 otherwise          */
    cx_param *params;
    size_t param_count;
    int variadic, is_const_method;
    cx_op op;                  /* an operator's name                       */
    const cx_type *conversion; /* operator T()                             */
    int ctor_name, dtor_name;
} cx_declarator;

/* Reads the whole program's top level into the global namespace. */
void cx_read_program(cx_state *st, size_t begin, size_t end);
size_t cx_parse_specs(cx_state *st, cx_body *ctx, size_t at, size_t end,
                      cx_specs *specs);
size_t cx_parse_declarator(cx_state *st, cx_body *ctx, size_t at,
                           size_t end, const cx_type *base,
                           cx_declarator *out);
/* A type-id (a cast's, sizeof's, a template argument's) at `at`: the
 * index after it with *type, `at` when there is none. */
size_t cx_parse_type_id(cx_state *st, cx_body *ctx, size_t at, size_t end,
                        const cx_type **type);
/* Whether the tokens at `at` start a type. */
int cx_starts_type(cx_state *st, cx_body *ctx, size_t at);
/* A name with its qualifiers and template arguments at `at` (a
 * nested-name-specifier and an identifier): what it names, the index
 * after it in *after; NULL when it names nothing known. */
typedef struct cx_name {
    cx_decl *decl;             /* what it names; NULL: nothing known     */
    size_t first, last;        /* its tokens                             */
    size_t name_token;         /* the last identifier                    */
    const cx_type **targs;     /* its template arguments, when written   */
    size_t targ_count;
    int has_targs;
    int qualified;
    int dependent;             /* names a member of an unbound parameter */
} cx_name;

int cx_parse_name(cx_state *st, cx_body *ctx, size_t at, size_t end,
                  cx_name *out);
/* Template arguments after '<' at `open`: the index after '>' */
size_t cx_parse_template_args(cx_state *st, cx_body *ctx, size_t open,
                              size_t end, const cx_type ***args,
                              size_t *count);
/* The type a name names (a typedef, record, enumeration, parameter, a
 * class template with arguments), NULL when it names none. */
const cx_type *cx_name_type(cx_state *st, cx_body *ctx, cx_name *name);
void cx_read_record_body(cx_state *st, cx_decl *record, cx_scope *scope);
const cx_type *cx_record_instance(cx_state *st, cx_template *tmpl,
                                  const cx_type *const *args, size_t count,
                                  size_t at);
/* Past `template <...>` at `at` (its closing '>'), else `at`. */
size_t cx_skip_template_params(cx_state *st, size_t at, size_t end);
/* The end of the declaration at `at`: its ';' or its body's '}'. */
size_t cx_declaration_end(cx_state *st, size_t at, size_t end);

/* ---- cxx_read.c ------------------------------------------------------------------ */

size_t cx_read_record_specifier(cx_state *st, cx_body *ctx, size_t at,
                                size_t end, cx_decl **record);
size_t cx_read_enum_specifier(cx_state *st, cx_body *ctx, size_t at,
                              size_t end, cx_decl **decl);
/* Reads the declarations [begin, end) into ctx->scope. */
void cx_read_decls(cx_state *st, cx_body *ctx, size_t begin, size_t end,
                   uint32_t extra_flags);
/* Reads a template's parameter list at '<' `open` into a new template. */
cx_template *cx_read_template_params(cx_state *st, cx_body *ctx, size_t open);
/* A function's declaration [begin, end) (a body included) into the
 * function `scope` declares; the function, or NULL for host code. */
cx_decl *cx_read_function(cx_state *st, cx_body *ctx, size_t begin,
                          size_t end, uint32_t extra_flags, cx_template *from,
                          const cx_type *const *args, int declare);

/* ---- cxx_template.c ------------------------------------------------------------ */

/* Binds a template's parameters to `args` (defaults filled in): a scope
 * in which the parameters' names name the arguments. */
cx_scope *cx_bind(cx_state *st, cx_template *tmpl, cx_scope *parent,
                  const cx_type *const *args, size_t count, size_t at,
                  const cx_type ***full_args);
/* Deduces a function template's arguments from a call's; NULL when the
 * template does not match them. */
const cx_type *const *cx_deduce(cx_state *st, cx_template *tmpl,
                                const cx_type *const *explicit_args,
                                size_t explicit_count, cx_expr **args,
                                size_t argc, size_t at);
/* The function of a function template for `args` (made on first use). */
cx_decl *cx_function_instance(cx_state *st, cx_template *tmpl,
                              const cx_type *const *args, size_t at);
/* Matches `pattern` (with CXT_TPARAM types of `tmpl`) against `arg`,
 * binding into `bound` (per parameter, NULL unbound): 1 matched. */
int cx_match(cx_state *st, const cx_type *pattern, const cx_type *arg,
             const cx_type **bound, size_t bound_count);

/* ---- cxx_const.c --------------------------------------------------------------- */

cx_value cx_eval(cx_state *st, cx_body *body, const cx_expr *expr);
/* The value of a variable's or static member's initializer. */
cx_value cx_decl_value(cx_state *st, cx_decl *decl);
/* Reads and evaluates the constant expression [begin, end). */
cx_value cx_eval_tokens(cx_state *st, cx_scope *scope, size_t begin,
                        size_t end);
cx_value cx_convert_value(cx_state *st, cx_value v, const cx_type *to);
/* Checks the static_assert at `at` (its keyword) where `scope` is. */
void cx_static_assert(cx_state *st, cx_scope *scope, size_t at);
int cx_value_truth(cx_value v);

/* ---- cxx_expr.c ----------------------------------------------------------------- */

/* The expression parser's place: the body it reads in and where the
 * expression must end (cxx_expr.c, cxx_expr_operators.c). */
typedef struct cx_parser {
    cx_state *st;
    cx_body *body;
    size_t end;
} cx_parser;

/* Reads the expression [at, end) (a full expression: commas included
 * when `comma`); *after: where it ended. */
cx_expr *cx_parse_expr(cx_state *st, cx_body *body, size_t at, size_t end,
                       int comma, size_t *after);
/* An assignment-expression (no comma). */
cx_expr *cx_parse_assign(cx_state *st, cx_body *body, size_t at, size_t end,
                         size_t *after);
/* An initializer's braced list at '{' `open`. */
cx_expr *cx_parse_init_list(cx_state *st, cx_body *body, size_t open);

/* ---- cxx_overload.c ------------------------------------------------------------- */

/* The function an overload set's call chooses for these arguments (for
 * templates: the instance), NULL when none is viable.  `set` may mix
 * functions and function templates; `explicit_args` are `f<...>`'s. */
cx_decl *cx_resolve_call(cx_state *st, cx_body *body, cx_decl *set,
                         const cx_type *const *explicit_args,
                         size_t explicit_count, int has_explicit,
                         cx_expr **args, size_t argc, cx_expr *object,
                         size_t at, int required);
/* Conversion rank of `from` (an expression) to `to`: 0 exact, 1
 * promotion, 2 conversion, 3 user-defined, -1 none. */
int cx_conversion_rank(cx_state *st, const cx_expr *from, const cx_type *to);
/* Whether a reference to `t` binds an object of type `a` directly (no
 * temporary): the same type, with at least its qualifiers. */
int cx_binds(cx_state *st, const cx_type *t, const cx_type *a);
/* The constructor or conversion function an implicit conversion of
 * `from` to `to` calls, NULL when it needs none. */
cx_decl *cx_user_conversion(cx_state *st, const cx_expr *from,
                            const cx_type *to, int *is_ctor);
/* The arguments' types as a message writes them, "float3, int". */
const char *cx_call_args_text(cx_state *st, cx_expr **args, size_t argc);
cx_decl *cx_find_operator(cx_state *st, cx_body *body, cx_op op,
                          cx_expr *a, cx_expr *b, size_t at);
cx_op cx_op_of_punct(int punct, int unary);

/* ---- cxx_body.c ------------------------------------------------------------------ */

/* Reads function `fn`'s body and records its edits. */
void cx_read_body(cx_state *st, cx_function *fn);
/* The edits lowering `expr` needs, with an implicit conversion to
 * `target` (NULL: none). */
void cx_lower_expr(cx_state *st, cx_body *body, cx_expr *expr,
                   const cx_type *target);
/* Queues a function for writing. */
void cx_use_function(cx_state *st, cx_decl *decl);
void cx_use_record(cx_state *st, const cx_type *type);

/* ---- cxx_emit.c ------------------------------------------------------------------- */

cx_edits *cx_edits_new(cx_state *st, size_t begin, size_t end);
void cx_before(cx_state *st, cx_edits *e, size_t i, const char *text);
void cx_after(cx_state *st, cx_edits *e, size_t i, const char *text);
void cx_replace(cx_edits *e, size_t i, const char *text);
void cx_drop(cx_edits *e, size_t begin, size_t end);
/* Appends text (lexed into tokens on the anchor's line) or tokens. */
void cx_out_text(cx_state *st, cx_out *out, const char *text);
void cx_out_range(cx_state *st, cx_out *out, const cx_edits *e, size_t begin,
                  size_t end);
/* Tokens [begin, end) with their edits as text. */
const char *cx_render(cx_state *st, const cx_edits *e, size_t begin,
                      size_t end);
/* A constant as C writes it: "64", "4u", "(-1)". */
const char *cx_literal(cx_state *st, cx_value v);
/* The output names of declarations: mangled where C needs them to be. */
const char *cx_cname(cx_state *st, cx_decl *decl);
const char *cx_function_cname(cx_state *st, cx_decl *decl);
/* Writes a function (prototype and definition), a record, a variable. */
void cx_emit_function(cx_state *st, cx_function *fn);
void cx_emit_record(cx_state *st, cx_decl *record);
void cx_emit_variable(cx_state *st, cx_decl *var);
void cx_emit_typedef(cx_state *st, cx_decl *decl);
void cx_emit_enum(cx_state *st, cx_decl *decl);
/* A by-value wrapper of `fn` for the pointer parameters in `mask`. */
const char *cx_wrapper(cx_state *st, cx_function *fn, uint32_t mask);
/* An aggregate's maker for `count` initializers. */
const char *cx_aggregate_maker(cx_state *st, cx_decl *record, size_t count);

/* ---- cxx_builtins.c --------------------------------------------------------------- */

/* CUDA's device declarations, as C++ text the phase reads first. */
const char *cx_builtins_source(cx_state *st);
/* Headers of CUDA's that this phase gives in C++ (cooperative_groups.h's
 * block groups), read as the program's own code before it; NULL when the
 * program names none. */
const char *cx_library_source(clc_arena *arena, const clc_token *tokens,
                              size_t count, clc_interner *interner,
                              unsigned headers);
/* Refuses, by name, what cooperative_groups.h has beyond a block's group
 * (grid and multi-device groups, tiles) in tokens [begin, end). */
void cx_refuse_library(cx_state *st, size_t begin, size_t end);
/* Refuses, by name, the CUDA runtime's texture, surface and graph types
 * (cudaTextureObject_t...) in tokens [begin, end): called where a type is
 * unknown, so that what is not supported says so. */
void cx_refuse_runtime_type(cx_state *st, size_t begin, size_t end);

/* ---- cxx_half.c ------------------------------------------------------------------- */

/* Whether tokens name cuda_fp16.h's or cuda_bf16.h's types or functions
 * (*fp16, *bf16 say which). */
int cx_half_used(const clc_token *tokens, size_t count, int *fp16, int *bf16);
/* Those headers in the C++ this phase lowers (cxx_half.c says how their
 * results are CUDA's). */
void cx_half_source(clc_buffer *b, int fp16, int bf16);
/* Refuses, by name, what those headers have that cannot be computed as
 * CUDA does (approximate math, directed roundings; on a device without
 * doubles, `no_fp64`, the math computed in double) in tokens
 * [begin, end). */
void cx_refuse_half(cx_state *st, size_t begin, size_t end, int no_fp64);

/* float4 & co. and dim3 in the global namespace. */
void cx_declare_vectors(cx_state *st);

/* ---- cxx_lower.c ------------------------------------------------------------------ */

CLC_NORETURN void cx_fail(cx_state *st, size_t at, const char *format, ...)
    CLC_PRINTF(3, 4);
/* A refusal: valid C++ the translation does not support. */
CLC_NORETURN void cx_refuse(cx_state *st, size_t at, const char *format, ...)
    CLC_PRINTF(3, 4);
char *cx_printf(cx_state *st, const char *format, ...) CLC_PRINTF(2, 3);
void *cx_grow(cx_state *st, void *items, size_t count, size_t size);
const char *cx_spelling(cx_state *st, size_t i);

static inline int cx_punct(const cx_state *st, size_t i, int punct)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_PUNCT &&
           st->tokens[i].punct == punct;
}

static inline int cx_ident(const cx_state *st, size_t i)
{
    return i < st->count && st->tokens[i].kind == CLC_TOK_IDENT;
}

static inline int cx_is(const cx_state *st, size_t i, int32_t word)
{
    return cx_ident(st, i) && st->tokens[i].ident == word;
}

/* `::` (two colons written together) */
static inline int cx_scope_op(const cx_state *st, size_t i)
{
    return cx_punct(st, i, P_COLON) && cx_punct(st, i + 1, P_COLON) &&
           !(st->tokens[i + 1].flags & CLC_TF_SPACE);
}

static inline int cx_is_open(const cx_state *st, size_t i)
{
    return cx_punct(st, i, P_LPAREN) || cx_punct(st, i, P_LBRACKET) ||
           cx_punct(st, i, P_LBRACE);
}

/* ---- between the halves of split files ---------------------------------------- */

/* cxx_body.c: lowering expressions (for cxx_body_statements.c) */
void cx_append(cx_state *st, cx_body *b, size_t i, const char *text);
const char *cx_callee_name(cx_state *st, cx_decl *fn, uint32_t mask);
void cx_clear(cx_body *b, size_t begin, size_t end);
void cx_convert(cx_state *st, cx_body *b, cx_expr *e,
                const cx_type *target);
const char *cx_defaults(cx_state *st, cx_function *fn, size_t argc,
                        int leading_comma, uint32_t *mask);
int cx_is_ref(const cx_type *t);
uint32_t cx_lower_args(cx_state *st, cx_body *b, cx_function *fn,
                       cx_expr **args, size_t argc);
void cx_prepend(cx_state *st, cx_body *b, size_t i, const char *text);
void cx_set(cx_body *b, size_t i, const char *text);
void cx_take_address(cx_state *st, cx_body *b, cx_expr *e);

/* cxx_body_statements.c (for cxx_body.c) */
cx_decl *cx_default_ctor(cx_state *st, const cx_type *t, size_t at);

/* cxx_decl.c: names and attributes (for cxx_declarator.c) */
size_t cx_conversion_type(cx_state *st, cx_body *ctx, size_t at,
                          size_t end, const cx_type **type);
int32_t cx_operator_name(cx_state *st, size_t at, size_t *after,
                         cx_op *op);
size_t cx_skip_attributes(cx_state *st, cx_body *ctx, size_t at,
                          size_t end, size_t *align);

/* cxx_expr.c: the parser's nodes, names and postfix expressions (for
 * cxx_expr_operators.c) */
const char *cx_args_text(cx_state *st, cx_expr **args, size_t argc);
void cx_call_result(cx_state *st, cx_expr *e, const cx_type *result);
long long cx_char_value(const char *text, size_t length);
size_t cx_expr_end(const cx_expr *e);
int cx_is_class(const cx_type *t);
cx_expr *cx_name_expr(cx_parser *p, size_t i);
cx_expr *cx_node(cx_parser *p, cx_expr_kind kind, size_t first);
cx_expr *cx_number(cx_parser *p, size_t i);
cx_expr *cx_postfix(cx_parser *p, cx_expr *e);

/* cxx_expr_operators.c: the grammar's levels below a postfix expression
 * (for cxx_expr.c) */
cx_expr *cx_assign_expr(cx_parser *p, size_t i);
cx_expr *cx_cast_expr(cx_parser *p, size_t i);
cx_expr *cx_full_expr(cx_parser *p, size_t i);
cx_expr *cx_unary_expr(cx_parser *p, size_t i);

/* cxx_read.c: reading what may be host code (for cxx_read_template.c) */
void cx_item_add(cx_state *st, cx_item_kind kind, cx_decl *decl,
                 size_t begin, size_t end);
typedef void (*cx_try_fn)(cx_state *st, void *arg);
/* Runs fn(st, arg); a failure inside comes back as 0 with its message
 * instead of failing the translation. */
int cx_try(cx_state *st, cx_try_fn fn, void *arg, const char **message);

#endif
