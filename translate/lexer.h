/*
 * OpenCL C tokenizer of the front end (private to Kiln: the translation
 * passes and their tests use it).
 *
 * The lexer turns source text into preprocessing tokens (C99 6.4): it
 * removes comments and line splices, keeps each token's physical line, and
 * marks tokens that start a line (directives) or follow white space
 * (stringification, output spacing).  Identifiers are interned: every
 * spelling gets a small integer id, and the identifiers the pass cares
 * about (keywords, directive names, OpenCL type names) get fixed ids from
 * enum clc_word, so the preprocessor and the parser compare integers.
 *
 * Everything a translation allocates lives in one clc_arena that is freed
 * at once, so an error can unwind (longjmp) from any depth without leaks;
 * nothing here is global, so translations may run in parallel threads.
 */
#ifndef KILN_CLC_LEXER_H
#define KILN_CLC_LEXER_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

/* ---- failure ------------------------------------------------------------- */

/* Where a translation's first error is kept.  Every stage fails through
 * clc_fail(), which formats the message and longjmps to `unwind`. */
typedef struct clc_failure {
    jmp_buf unwind;
    char *message;      /* malloc'ed; NULL when out of memory */
    unsigned line;
    int out_of_memory;
    const char *const *file_names; /* for "name:line:" prefixes */
    const size_t *file_count;
} clc_failure;

#if defined(__GNUC__)
#define CLC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define CLC_NORETURN __attribute__((noreturn))
#else
#define CLC_PRINTF(f, a)
#define CLC_NORETURN
#endif

/* Records "file:line: message" (file from the table, when file >= 0) and
 * unwinds.  Never returns. */
CLC_NORETURN void clc_fail(clc_failure *failure, int file, unsigned line,
                           const char *format, ...) CLC_PRINTF(4, 5);
CLC_NORETURN void clc_fail_memory(clc_failure *failure);

/* ---- arena ------------------------------------------------------------------ */

typedef struct clc_arena_block clc_arena_block;
typedef struct clc_arena {
    clc_arena_block *blocks;
    size_t total;          /* bytes handed out so far                     */
    size_t limit;          /* beyond this, allocation fails the translation */
    clc_failure *failure;
} clc_arena;

void clc_arena_init(clc_arena *arena, clc_failure *failure, size_t limit);
void clc_arena_free(clc_arena *arena);
/* Zeroed, 16-byte aligned; fails the translation when memory runs out. */
void *clc_arena_alloc(clc_arena *arena, size_t size);
char *clc_arena_strndup(clc_arena *arena, const char *text, size_t length);
/* `items` (an arena array of `count` items of `size` bytes) with room for
 * one more: the same array while it has room, else a copy in twice the
 * capacity (`first` items the first time), with *capacity updated. */
void *clc_arena_grow(clc_arena *arena, void *items, size_t count,
                     size_t *capacity, size_t size, size_t first);

/* A byte buffer that grows inside the arena (old storage is abandoned to
 * the arena, which keeps growth amortised and unwinding leak-free). */
typedef struct clc_buffer {
    char *data;
    size_t length;
    size_t capacity;
    clc_arena *arena;
} clc_buffer;

void clc_buffer_init(clc_buffer *buffer, clc_arena *arena);
void clc_buffer_append(clc_buffer *buffer, const char *text, size_t length);
void clc_buffer_puts(clc_buffer *buffer, const char *text);
void clc_buffer_printf(clc_buffer *buffer, const char *format, ...)
    CLC_PRINTF(2, 3);
/* NUL-terminated contents (the buffer stays usable). */
const char *clc_buffer_text(clc_buffer *buffer);

/* ---- interned identifiers ---------------------------------------------- */

/* Fixed identifier ids, in the order of clc_word_spellings[].  The parser
 * and the preprocessor switch on these. */
typedef enum clc_word {
    /* preprocessor */
    W_define, W_undef, W_include, W_if, W_ifdef, W_ifndef, W_elif, W_else,
    W_endif, W_error, W_warning, W_pragma, W_line, W_defined, W_ident,
    W_sccs, W_include_next, W_import,
    W___VA_ARGS__, W___LINE__, W___FILE__, W___COUNTER__, W__Pragma,
    W___has_include, W___has_feature, W___has_extension, W___has_builtin,
    W___has_attribute,
    /* C keywords and their GNU spellings */
    W_auto, W_break, W_case, W_char, W_const, W_continue, W_default, W_do,
    W_double, W_enum, W_extern, W_float, W_for, W_goto,
    W_int, W_long, W_register, W_restrict, W_return, W_short,
    W_signed, W_sizeof, W_static, W_struct, W_switch, W_typedef, W_union,
    W_unsigned, W_void, W_volatile, W_while, W_inline, W__Bool,
    W__Complex, W__Imaginary, W__Static_assert, W__Alignof, W__Alignas,
    W__Noreturn, W__Thread_local, W__Atomic, W__Generic, W___restrict,
    W___restrict__, W___inline, W___inline__, W___attribute__,
    W___attribute, W___alignof__, W___alignof, W___typeof__, W___typeof,
    W_typeof, W___extension__, W_asm, W___asm__, W___asm, W___const,
    W___volatile__, W___volatile, W___signed__, W___signed, W___builtin_astype,
    W___builtin_offsetof, W_static_assert,
    /* OpenCL C qualifiers and types */
    W___kernel, W_kernel, W___global, W_global, W___local, W_local,
    W___constant, W_constant, W___private, W_private, W___generic,
    W___read_only, W_read_only, W___write_only, W_write_only,
    W___read_write, W_read_write, W_bool, W_half, W_uchar, W_ushort,
    W_uint, W_ulong, W_size_t, W_ptrdiff_t, W_intptr_t, W_uintptr_t,
    W_event_t, W_vec_step, W_true, W_false, W_printf,
    W__COUNT
} clc_word;

/* What an identifier's spelling makes it, beyond its fixed id. */
typedef struct clc_ident_info {
    uint8_t scalar; /* clc_scalar of a vector type name ("float4"), else 0 */
    uint8_t width;  /* its width (2, 3, 4, 8, 16), else 0                   */
    uint8_t cxx_keyword; /* a C++ keyword that OpenCL C lets be a name      */
} clc_ident_info;

typedef struct clc_ident {
    const char *name;
    uint32_t length;
    uint32_t hash;
    clc_ident_info info;
} clc_ident;

typedef struct clc_interner {
    clc_ident *idents;      /* by id */
    size_t count;
    size_t capacity;
    int32_t *slots;         /* open addressing: id + 1, 0 when empty */
    size_t slot_count;
    clc_arena *arena;
} clc_interner;

/* Scalar types of OpenCL C, as the typer and the vector names use them. */
typedef enum clc_scalar {
    CLC_S_NONE = 0,
    CLC_S_BOOL, CLC_S_CHAR, CLC_S_UCHAR, CLC_S_SHORT, CLC_S_USHORT, CLC_S_INT,
    CLC_S_UINT, CLC_S_LONG, CLC_S_ULONG, CLC_S_HALF, CLC_S_FLOAT, CLC_S_DOUBLE,
    CLC_S_VOID
} clc_scalar;

void clc_interner_init(clc_interner *interner, clc_arena *arena);
/* Frees the interner's own tables (names live in the arena). */
void clc_interner_free(clc_interner *interner);
int32_t clc_intern(clc_interner *interner, const char *name, size_t length);
static inline const clc_ident *clc_ident_get(const clc_interner *interner,
                                             int32_t id)
{
    return &interner->idents[id];
}

/* ---- a translation's run -------------------------------------------------- */

/* What every translation pass sets up around its work: the failure record,
 * the arena and the interner, and whether a failure refuses a valid
 * construct (the pass's KILN_ERR_TRANSLATION) or a wrong source.  The pass
 * calls setjmp(run.failure.unwind) in its own frame (a frame that has
 * returned cannot be jumped to) after clc_run_begin, and on the jump
 * returns clc_run_failed's value. */
typedef struct clc_run {
    clc_failure failure;
    clc_arena arena;
    clc_interner interner;
    volatile int unsupported;
    unsigned cuda_headers;   /* CUDA C: CLC_CUDA_FP16 | CLC_CUDA_BF16, the
                                device headers the source includes       */
} clc_run;

enum { CLC_CUDA_FP16 = 1, CLC_CUDA_BF16 = 2 };
/* Given to the C++ phase with the headers: the device has no doubles
 * (cxx_half.c's math needs them). */
enum { CLC_CUDA_NO_FP64 = 4 };

void clc_run_begin(clc_run *run);
/* The failure branch: hands the message, its line and `unsupported` to the
 * caller's result (the message is then the caller's to free) and frees
 * the rest.  Returns -1, or -2 when memory ran out (no message). */
int clc_run_failed(clc_run *run, char **error, int *error_line,
                   int *unsupported);
/* Frees the interner and the arena after a run that succeeded. */
void clc_run_end(clc_run *run);

/* ---- tokens ------------------------------------------------------------------ */

typedef enum clc_token_kind {
    CLC_TOK_EOF = 0,
    CLC_TOK_IDENT,
    CLC_TOK_NUMBER,
    CLC_TOK_CHAR,
    CLC_TOK_STRING,
    CLC_TOK_PUNCT,
    CLC_TOK_OTHER,   /* a stray character or an unterminated literal */
    CLC_TOK_PRAGMA,  /* preprocessor output: text is the pragma's body   */
    CLC_TOK_PLACEMARKER /* preprocessor internal: an empty macro argument */
} clc_token_kind;

/* Punctuators; digraphs lex to their ordinary equivalents. */
typedef enum clc_punct {
    P_NONE = 0,
    P_LBRACKET, P_RBRACKET, P_LPAREN, P_RPAREN, P_LBRACE, P_RBRACE, P_DOT,
    P_ARROW, P_INC, P_DEC, P_AMP, P_STAR, P_PLUS, P_MINUS, P_TILDE, P_NOT,
    P_SLASH, P_PERCENT, P_SHL, P_SHR, P_LT, P_GT, P_LE, P_GE, P_EQ, P_NE,
    P_CARET, P_PIPE, P_ANDAND, P_OROR, P_QUESTION, P_COLON, P_SEMI,
    P_ELLIPSIS, P_ASSIGN, P_MUL_ASSIGN, P_DIV_ASSIGN, P_MOD_ASSIGN,
    P_ADD_ASSIGN, P_SUB_ASSIGN, P_SHL_ASSIGN, P_SHR_ASSIGN, P_AND_ASSIGN,
    P_XOR_ASSIGN, P_OR_ASSIGN, P_COMMA, P_HASH, P_HASHHASH,
    P__COUNT
} clc_punct;

enum {
    CLC_TF_BOL = 1,       /* first token of a line            */
    CLC_TF_SPACE = 2,     /* white space or a comment before it */
    CLC_TF_NOEXPAND = 4   /* an identifier that must not expand (C99 6.10.3.4) */
};

typedef struct clc_token {
    const char *text;
    uint32_t length;
    uint32_t line;
    int32_t ident;        /* CLC_TOK_IDENT: interned id, else -1 */
    uint16_t file;        /* index into the file-name table      */
    uint8_t kind;         /* clc_token_kind                      */
    uint8_t punct;        /* CLC_TOK_PUNCT: clc_punct            */
    uint8_t flags;        /* CLC_TF_*                            */
} clc_token;

typedef struct clc_token_array {
    clc_token *tokens;
    size_t count;
    size_t capacity;
} clc_token_array;

/* Tokenizes `length` bytes into `out` (allocated in the arena), ending with
 * a CLC_TOK_EOF token.  Lines count from `first_line`.  Fails the
 * translation on an unterminated comment or when the limits are passed. */
void clc_lex(const char *source, size_t length, uint16_t file,
             unsigned first_line, clc_arena *arena, clc_interner *interner,
             clc_token_array *out);

/* Lexes `text` as exactly one token (for ##): 1 with *token set, 0 when
 * the text is empty or not a single preprocessing token. */
int clc_lex_single(const char *text, size_t length, clc_arena *arena,
                   clc_interner *interner, clc_token *token);

const char *clc_punct_spelling(clc_punct punct);

/* The most tokens one translation may produce, macro expansions included:
 * a bound that keeps adversarial macros from exhausting memory. */
#define CLC_MAX_TOKENS (8u * 1024u * 1024u)
/* Arena bytes one translation may use. */
#define CLC_MAX_ARENA_BYTES ((size_t)1024 * 1024 * 1024)

#endif
