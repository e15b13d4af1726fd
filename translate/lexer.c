/*
 * OpenCL C tokenizer, arena and identifier interning (see lexer.h).
 */
#include "lexer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- failure --------------------------------------------------------------- */

void clc_fail(clc_failure *failure, int file, unsigned line,
              const char *format, ...)
{
    if (failure->message == NULL && !failure->out_of_memory) {
        char body[768];
        va_list args;
        va_start(args, format);
        vsnprintf(body, sizeof body, format, args);
        va_end(args);
        const char *name = NULL;
        if (file >= 0 && failure->file_names != NULL &&
            failure->file_count != NULL && (size_t)file < *failure->file_count)
            name = failure->file_names[file];
        size_t size = strlen(body) + (name ? strlen(name) : 0) + 32;
        failure->message = malloc(size);
        if (failure->message == NULL)
            failure->out_of_memory = 1;
        else if (name != NULL && line > 0)
            snprintf(failure->message, size, "%s:%u: %s", name, line, body);
        else if (name != NULL)
            snprintf(failure->message, size, "%s: %s", name, body);
        else
            snprintf(failure->message, size, "%s", body);
        failure->line = line;
    }
    longjmp(failure->unwind, 1);
}

void clc_fail_memory(clc_failure *failure)
{
    failure->out_of_memory = 1;
    longjmp(failure->unwind, 1);
}

/* ---- arena -------------------------------------------------------------------- */

struct clc_arena_block {
    clc_arena_block *next;
    size_t size;
    size_t used;
    /* 16-byte aligned payload follows */
};

#define CLC_ARENA_HEADER ((sizeof(clc_arena_block) + 15) & ~(size_t)15)
#define CLC_ARENA_BLOCK (256 * 1024)

void clc_arena_init(clc_arena *arena, clc_failure *failure, size_t limit)
{
    arena->blocks = NULL;
    arena->total = 0;
    arena->limit = limit;
    arena->failure = failure;
}

void clc_arena_free(clc_arena *arena)
{
    clc_arena_block *block = arena->blocks;
    while (block != NULL) {
        clc_arena_block *next = block->next;
        free(block);
        block = next;
    }
    arena->blocks = NULL;
    arena->total = 0;
}

void *clc_arena_alloc(clc_arena *arena, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    if (size > arena->limit || arena->total > arena->limit - size)
        clc_fail(arena->failure, -1, 0,
                 "the program is too large to translate (more than %zu MiB "
                 "of working memory)",
                 arena->limit >> 20);
    clc_arena_block *block = arena->blocks;
    if (block == NULL || block->size - block->used < size) {
        size_t payload = size > CLC_ARENA_BLOCK ? size : CLC_ARENA_BLOCK;
        block = malloc(CLC_ARENA_HEADER + payload);
        if (block == NULL)
            clc_fail_memory(arena->failure);
        block->size = payload;
        block->used = 0;
        block->next = arena->blocks;
        arena->blocks = block;
    }
    char *memory = (char *)block + CLC_ARENA_HEADER + block->used;
    block->used += size;
    arena->total += size;
    memset(memory, 0, size);
    return memory;
}

void *clc_arena_grow(clc_arena *arena, void *items, size_t count,
                     size_t *capacity, size_t size, size_t first)
{
    if (count < *capacity)
        return items;
    size_t grown_capacity = *capacity ? *capacity * 2 : first;
    void *grown = clc_arena_alloc(arena, grown_capacity * size);
    if (count)
        memcpy(grown, items, count * size);
    *capacity = grown_capacity;
    return grown;
}

char *clc_arena_strndup(clc_arena *arena, const char *text, size_t length)
{
    char *copy = clc_arena_alloc(arena, length + 1);
    if (length > 0)
        memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

/* ---- buffer --------------------------------------------------------------------- */

void clc_buffer_init(clc_buffer *buffer, clc_arena *arena)
{
    buffer->data = NULL;
    buffer->length = 0;
    buffer->capacity = 0;
    buffer->arena = arena;
}

static void clc_buffer_reserve(clc_buffer *buffer, size_t extra)
{
    if (extra < buffer->capacity - buffer->length)
        return;
    size_t capacity = buffer->capacity ? buffer->capacity * 2 : 256;
    while (capacity - buffer->length <= extra)
        capacity *= 2;
    char *grown = clc_arena_alloc(buffer->arena, capacity);
    if (buffer->length > 0)
        memcpy(grown, buffer->data, buffer->length);
    buffer->data = grown;
    buffer->capacity = capacity;
}

void clc_buffer_append(clc_buffer *buffer, const char *text, size_t length)
{
    clc_buffer_reserve(buffer, length + 1);
    if (length > 0)
        memcpy(buffer->data + buffer->length, text, length);
    buffer->length += length;
    buffer->data[buffer->length] = '\0';
}

void clc_buffer_puts(clc_buffer *buffer, const char *text)
{
    clc_buffer_append(buffer, text, strlen(text));
}

void clc_buffer_printf(clc_buffer *buffer, const char *format, ...)
{
    char small[512];
    va_list args;
    va_start(args, format);
    int needed = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (needed < 0)
        return;
    if ((size_t)needed < sizeof small) {
        clc_buffer_append(buffer, small, (size_t)needed);
        return;
    }
    clc_buffer_reserve(buffer, (size_t)needed + 1);
    va_start(args, format);
    vsnprintf(buffer->data + buffer->length, (size_t)needed + 1, format, args);
    va_end(args);
    buffer->length += (size_t)needed;
}

const char *clc_buffer_text(clc_buffer *buffer)
{
    if (buffer->data == NULL)
        clc_buffer_append(buffer, "", 0);
    return buffer->data;
}

/* ---- interner ------------------------------------------------------------------- */

static const char *const clc_word_spellings[W__COUNT] = {
    [W_define] = "define", [W_undef] = "undef", [W_include] = "include",
    [W_if] = "if", [W_ifdef] = "ifdef", [W_ifndef] = "ifndef",
    [W_elif] = "elif", [W_else] = "else", [W_endif] = "endif",
    [W_error] = "error", [W_warning] = "warning", [W_pragma] = "pragma",
    [W_line] = "line", [W_defined] = "defined", [W_ident] = "ident",
    [W_sccs] = "sccs", [W_include_next] = "include_next",
    [W_import] = "import", [W___VA_ARGS__] = "__VA_ARGS__",
    [W___LINE__] = "__LINE__", [W___FILE__] = "__FILE__",
    [W___COUNTER__] = "__COUNTER__", [W__Pragma] = "_Pragma",
    [W___has_include] = "__has_include",
    [W___has_feature] = "__has_feature",
    [W___has_extension] = "__has_extension",
    [W___has_builtin] = "__has_builtin",
    [W___has_attribute] = "__has_attribute",
    [W_auto] = "auto", [W_break] = "break", [W_case] = "case",
    [W_char] = "char", [W_const] = "const", [W_continue] = "continue",
    [W_default] = "default", [W_do] = "do", [W_double] = "double",
    [W_enum] = "enum", [W_extern] = "extern", [W_float] = "float",
    [W_for] = "for", [W_goto] = "goto", [W_int] = "int", [W_long] = "long",
    [W_register] = "register", [W_restrict] = "restrict",
    [W_return] = "return", [W_short] = "short", [W_signed] = "signed",
    [W_sizeof] = "sizeof", [W_static] = "static", [W_struct] = "struct",
    [W_switch] = "switch", [W_typedef] = "typedef", [W_union] = "union",
    [W_unsigned] = "unsigned", [W_void] = "void", [W_volatile] = "volatile",
    [W_while] = "while", [W_inline] = "inline", [W__Bool] = "_Bool",
    [W__Complex] = "_Complex", [W__Imaginary] = "_Imaginary",
    [W__Static_assert] = "_Static_assert", [W__Alignof] = "_Alignof",
    [W__Alignas] = "_Alignas", [W__Noreturn] = "_Noreturn",
    [W__Thread_local] = "_Thread_local", [W__Atomic] = "_Atomic",
    [W__Generic] = "_Generic", [W___restrict] = "__restrict",
    [W___restrict__] = "__restrict__", [W___inline] = "__inline",
    [W___inline__] = "__inline__", [W___attribute__] = "__attribute__",
    [W___attribute] = "__attribute", [W___alignof__] = "__alignof__",
    [W___alignof] = "__alignof", [W___typeof__] = "__typeof__",
    [W___typeof] = "__typeof", [W_typeof] = "typeof",
    [W___extension__] = "__extension__", [W_asm] = "asm",
    [W___asm__] = "__asm__", [W___asm] = "__asm", [W___const] = "__const",
    [W___volatile__] = "__volatile__", [W___volatile] = "__volatile",
    [W___signed__] = "__signed__", [W___signed] = "__signed",
    [W___builtin_astype] = "__builtin_astype",
    [W___builtin_offsetof] = "__builtin_offsetof",
    [W_static_assert] = "static_assert",
    [W___kernel] = "__kernel", [W_kernel] = "kernel",
    [W___global] = "__global", [W_global] = "global",
    [W___local] = "__local", [W_local] = "local",
    [W___constant] = "__constant", [W_constant] = "constant",
    [W___private] = "__private", [W_private] = "private",
    [W___generic] = "__generic", [W___read_only] = "__read_only",
    [W_read_only] = "read_only", [W___write_only] = "__write_only",
    [W_write_only] = "write_only", [W___read_write] = "__read_write",
    [W_read_write] = "read_write", [W_bool] = "bool", [W_half] = "half",
    [W_uchar] = "uchar", [W_ushort] = "ushort", [W_uint] = "uint",
    [W_ulong] = "ulong", [W_size_t] = "size_t", [W_ptrdiff_t] = "ptrdiff_t",
    [W_intptr_t] = "intptr_t", [W_uintptr_t] = "uintptr_t",
    [W_event_t] = "event_t", [W_vec_step] = "vec_step", [W_true] = "true",
    [W_false] = "false", [W_printf] = "printf",
};

/* C++ keywords (and alternative tokens) that are ordinary identifiers in
 * OpenCL C: the translation renames them so NVRTC's C++ accepts them.
 * `private` is an OpenCL address space and never reaches the output. */
static const char *const clc_cxx_keywords[] = {
    "alignas", "alignof", "and", "and_eq", "bitand", "bitor", "catch",
    "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return",
    "co_yield", "compl", "concept", "consteval", "constexpr", "constinit",
    "const_cast", "decltype", "delete", "dynamic_cast", "explicit", "export",
    "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "protected", "public",
    "reinterpret_cast", "requires", "static_assert", "static_cast",
    "template", "this",
    "thread_local", "throw", "try", "typeid", "typename", "using", "virtual",
    "wchar_t", "xor", "xor_eq",
};

static uint32_t clc_hash(const char *text, size_t length)
{
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < length; ++i) {
        hash ^= (unsigned char)text[i];
        hash *= 16777619u;
    }
    return hash;
}

/* "float4" -> float, 4; anything else -> 0. */
static void clc_classify_vector_name(const char *name, size_t length,
                                     clc_ident_info *info)
{
    static const struct {
        const char *name;
        clc_scalar scalar;
    } elements[] = {
        {"char", CLC_S_CHAR},   {"uchar", CLC_S_UCHAR}, {"short", CLC_S_SHORT},
        {"ushort", CLC_S_USHORT}, {"int", CLC_S_INT},   {"uint", CLC_S_UINT},
        {"long", CLC_S_LONG},   {"ulong", CLC_S_ULONG}, {"float", CLC_S_FLOAT},
        {"double", CLC_S_DOUBLE}, {"half", CLC_S_HALF},
    };
    for (size_t i = 0; i < sizeof elements / sizeof elements[0]; ++i) {
        size_t n = strlen(elements[i].name);
        if (length <= n || memcmp(name, elements[i].name, n) != 0)
            continue;
        const char *digits = name + n;
        size_t digit_count = length - n;
        int width = 0;
        if (digit_count == 1 && digits[0] >= '2' && digits[0] <= '8')
            width = digits[0] - '0';
        else if (digit_count == 2 && digits[0] == '1' && digits[1] == '6')
            width = 16;
        if (width == 2 || width == 3 || width == 4 || width == 8 ||
            width == 16) {
            info->scalar = (uint8_t)elements[i].scalar;
            info->width = (uint8_t)width;
        }
        return;
    }
}

static void clc_interner_grow_slots(clc_interner *interner)
{
    size_t slot_count = interner->slot_count ? interner->slot_count * 2 : 1024;
    int32_t *slots = calloc(slot_count, sizeof *slots);
    if (slots == NULL)
        clc_fail_memory(interner->arena->failure);
    for (size_t id = 0; id < interner->count; ++id) {
        size_t slot = interner->idents[id].hash & (slot_count - 1);
        while (slots[slot] != 0)
            slot = (slot + 1) & (slot_count - 1);
        slots[slot] = (int32_t)id + 1;
    }
    free(interner->slots);
    interner->slots = slots;
    interner->slot_count = slot_count;
}

int32_t clc_intern(clc_interner *interner, const char *name, size_t length)
{
    uint32_t hash = clc_hash(name, length);
    if (interner->slot_count == 0 ||
        interner->count * 2 >= interner->slot_count)
        clc_interner_grow_slots(interner);
    size_t slot = hash & (interner->slot_count - 1);
    while (interner->slots[slot] != 0) {
        const clc_ident *ident = &interner->idents[interner->slots[slot] - 1];
        if (ident->hash == hash && ident->length == length &&
            memcmp(ident->name, name, length) == 0)
            return interner->slots[slot] - 1;
        slot = (slot + 1) & (interner->slot_count - 1);
    }
    if (interner->count >= INT32_MAX - 1)
        clc_fail(interner->arena->failure, -1, 0, "too many identifiers");
    if (interner->count == interner->capacity) {
        size_t capacity = interner->capacity ? interner->capacity * 2 : 1024;
        clc_ident *grown = realloc(interner->idents, capacity * sizeof *grown);
        if (grown == NULL)
            clc_fail_memory(interner->arena->failure);
        interner->idents = grown;
        interner->capacity = capacity;
    }
    clc_ident *ident = &interner->idents[interner->count];
    ident->name = clc_arena_strndup(interner->arena, name, length);
    ident->length = (uint32_t)length;
    ident->hash = hash;
    memset(&ident->info, 0, sizeof ident->info);
    clc_classify_vector_name(name, length, &ident->info);
    interner->slots[slot] = (int32_t)interner->count + 1;
    return (int32_t)interner->count++;
}

void clc_interner_init(clc_interner *interner, clc_arena *arena)
{
    memset(interner, 0, sizeof *interner);
    interner->arena = arena;
    for (int word = 0; word < W__COUNT; ++word) {
        const char *spelling = clc_word_spellings[word];
        int32_t id = clc_intern(interner, spelling, strlen(spelling));
        (void)id; /* ids equal the enum values: interned first, in order */
    }
    for (size_t i = 0; i < sizeof clc_cxx_keywords / sizeof clc_cxx_keywords[0];
         ++i) {
        int32_t id = clc_intern(interner, clc_cxx_keywords[i],
                                strlen(clc_cxx_keywords[i]));
        interner->idents[id].info.cxx_keyword = 1;
    }
}

void clc_interner_free(clc_interner *interner)
{
    free(interner->idents);
    free(interner->slots);
    interner->idents = NULL;
    interner->slots = NULL;
    interner->count = interner->capacity = interner->slot_count = 0;
}

/* ---- lexer ---------------------------------------------------------------------- */

static const struct {
    const char *spelling;
    clc_punct punct;
} clc_puncts[] = {
    /* longest first within each leading character */
    {"%:%:", P_HASHHASH}, {"...", P_ELLIPSIS}, {"<<=", P_SHL_ASSIGN},
    {">>=", P_SHR_ASSIGN}, {"->", P_ARROW},    {"++", P_INC},
    {"--", P_DEC},        {"<<", P_SHL},       {">>", P_SHR},
    {"<=", P_LE},         {">=", P_GE},        {"==", P_EQ},
    {"!=", P_NE},         {"&&", P_ANDAND},    {"||", P_OROR},
    {"*=", P_MUL_ASSIGN}, {"/=", P_DIV_ASSIGN}, {"%=", P_MOD_ASSIGN},
    {"+=", P_ADD_ASSIGN}, {"-=", P_SUB_ASSIGN}, {"&=", P_AND_ASSIGN},
    {"^=", P_XOR_ASSIGN}, {"|=", P_OR_ASSIGN},  {"##", P_HASHHASH},
    {"<:", P_LBRACKET},   {":>", P_RBRACKET},   {"<%", P_LBRACE},
    {"%>", P_RBRACE},     {"%:", P_HASH},       {"[", P_LBRACKET},
    {"]", P_RBRACKET},    {"(", P_LPAREN},      {")", P_RPAREN},
    {"{", P_LBRACE},      {"}", P_RBRACE},      {".", P_DOT},
    {"&", P_AMP},         {"*", P_STAR},        {"+", P_PLUS},
    {"-", P_MINUS},       {"~", P_TILDE},       {"!", P_NOT},
    {"/", P_SLASH},       {"%", P_PERCENT},     {"<", P_LT},
    {">", P_GT},          {"^", P_CARET},       {"|", P_PIPE},
    {"?", P_QUESTION},    {":", P_COLON},       {";", P_SEMI},
    {"=", P_ASSIGN},      {",", P_COMMA},       {"#", P_HASH},
};

static const char *const clc_punct_spellings[P__COUNT] = {
    [P_NONE] = "",         [P_LBRACKET] = "[",   [P_RBRACKET] = "]",
    [P_LPAREN] = "(",      [P_RPAREN] = ")",     [P_LBRACE] = "{",
    [P_RBRACE] = "}",      [P_DOT] = ".",        [P_ARROW] = "->",
    [P_INC] = "++",        [P_DEC] = "--",       [P_AMP] = "&",
    [P_STAR] = "*",        [P_PLUS] = "+",       [P_MINUS] = "-",
    [P_TILDE] = "~",       [P_NOT] = "!",        [P_SLASH] = "/",
    [P_PERCENT] = "%",     [P_SHL] = "<<",       [P_SHR] = ">>",
    [P_LT] = "<",          [P_GT] = ">",         [P_LE] = "<=",
    [P_GE] = ">=",         [P_EQ] = "==",        [P_NE] = "!=",
    [P_CARET] = "^",       [P_PIPE] = "|",       [P_ANDAND] = "&&",
    [P_OROR] = "||",       [P_QUESTION] = "?",   [P_COLON] = ":",
    [P_SEMI] = ";",        [P_ELLIPSIS] = "...", [P_ASSIGN] = "=",
    [P_MUL_ASSIGN] = "*=", [P_DIV_ASSIGN] = "/=", [P_MOD_ASSIGN] = "%=",
    [P_ADD_ASSIGN] = "+=", [P_SUB_ASSIGN] = "-=", [P_SHL_ASSIGN] = "<<=",
    [P_SHR_ASSIGN] = ">>=", [P_AND_ASSIGN] = "&=", [P_XOR_ASSIGN] = "^=",
    [P_OR_ASSIGN] = "|=",  [P_COMMA] = ",",      [P_HASH] = "#",
    [P_HASHHASH] = "##",
};

const char *clc_punct_spelling(clc_punct punct)
{
    return (unsigned)punct < P__COUNT ? clc_punct_spellings[punct] : "";
}

static int clc_is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int clc_is_ident_char(int c)
{
    return clc_is_ident_start(c) || (c >= '0' && c <= '9');
}

static int clc_is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static void clc_tokens_push(clc_token_array *array, clc_arena *arena,
                            const clc_token *token)
{
    if (array->count == array->capacity) {
        if (array->capacity >= CLC_MAX_TOKENS)
            clc_fail(arena->failure, token->file, token->line,
                     "the program has more than %u tokens",
                     (unsigned)CLC_MAX_TOKENS);
        array->tokens = clc_arena_grow(arena, array->tokens, array->count,
                                       &array->capacity,
                                       sizeof *array->tokens, 1024);
    }
    array->tokens[array->count++] = *token;
}

/* Scans a quoted literal starting at text[0] == quote; returns its length,
 * or 0 when it is not terminated on its line. */
static size_t clc_scan_quoted(const char *text, size_t available, char quote)
{
    size_t i = 1;
    while (i < available) {
        char c = text[i];
        if (c == '\n')
            return 0;
        if (c == '\\') {
            if (i + 1 < available && text[i + 1] != '\n')
                i += 2;
            else
                ++i;
            continue;
        }
        ++i;
        if (c == quote)
            return i;
    }
    return 0;
}

/* Length of the pp-number starting at text[0] (a digit, or '.' digit). */
static size_t clc_scan_number(const char *text, size_t available)
{
    size_t i = 1;
    while (i < available) {
        char c = text[i];
        if ((c == '+' || c == '-') &&
            (text[i - 1] == 'e' || text[i - 1] == 'E' || text[i - 1] == 'p' ||
             text[i - 1] == 'P')) {
            ++i;
            continue;
        }
        if (clc_is_ident_char((unsigned char)c) || c == '.') {
            ++i;
            continue;
        }
        break;
    }
    return i;
}

/* Length of the punctuator at text (0 when there is none). */
static size_t clc_scan_punct(const char *text, size_t available,
                             clc_punct *punct)
{
    for (size_t i = 0; i < sizeof clc_puncts / sizeof clc_puncts[0]; ++i) {
        if (clc_puncts[i].spelling[0] != text[0])
            continue; /* most of them, cheaply */
        size_t n = strlen(clc_puncts[i].spelling);
        if (n <= available && memcmp(text, clc_puncts[i].spelling, n) == 0) {
            *punct = clc_puncts[i].punct;
            return n;
        }
    }
    return 0;
}

/* Lexes one token at text[0] (not white space); fills kind, length and
 * punct.  Never returns a length of 0. */
static size_t clc_scan_token(const char *text, size_t available,
                             uint8_t *kind, clc_punct *punct)
{
    unsigned char c = (unsigned char)text[0];
    *punct = P_NONE;
    if (clc_is_ident_start(c)) {
        size_t n = 1;
        while (n < available && clc_is_ident_char((unsigned char)text[n]))
            ++n;
        /* Encoding prefixes of literals: L'x', u"x", U'x', u8"x". */
        if (n < available && (text[n] == '\'' || text[n] == '"') &&
            ((n == 1 && (c == 'L' || c == 'u' || c == 'U')) ||
             (n == 2 && c == 'u' && text[1] == '8'))) {
            size_t quoted = clc_scan_quoted(text + n, available - n, text[n]);
            if (quoted > 0) {
                *kind = text[n] == '"' ? CLC_TOK_STRING : CLC_TOK_CHAR;
                return n + quoted;
            }
        }
        *kind = CLC_TOK_IDENT;
        return n;
    }
    if (clc_is_digit(c) ||
        (c == '.' && available > 1 && clc_is_digit((unsigned char)text[1]))) {
        *kind = CLC_TOK_NUMBER;
        return clc_scan_number(text, available);
    }
    if (c == '\'' || c == '"') {
        size_t quoted = clc_scan_quoted(text, available, (char)c);
        if (quoted > 0) {
            *kind = c == '"' ? CLC_TOK_STRING : CLC_TOK_CHAR;
            return quoted;
        }
        /* Unterminated: C leaves this undefined and compilers tolerate it
         * in skipped groups, so it becomes one stray token to the end of
         * the line; the parser rejects it if it is ever used. */
        size_t n = 1;
        while (n < available && text[n] != '\n')
            ++n;
        *kind = CLC_TOK_OTHER;
        return n;
    }
    size_t n = clc_scan_punct(text, available, punct);
    if (n > 0) {
        *kind = CLC_TOK_PUNCT;
        return n;
    }
    /* A stray byte; a UTF-8 sequence stays in one piece. */
    n = 1;
    if (c >= 0xC0)
        while (n < available && n < 4 &&
               ((unsigned char)text[n] & 0xC0) == 0x80)
            ++n;
    *kind = CLC_TOK_OTHER;
    return n;
}

/* Where the lexer stands in a file's text, its splices removed. */
typedef struct clc_lexer {
    char *text;
    size_t length, pos;
    size_t *splices; /* where each removed splice was, in `text`      */
    size_t splice_count, next_splice;
    unsigned line;
    uint16_t file;
    clc_arena *arena;
} clc_lexer;

static int clc_is_splice(const char *source, size_t length, size_t i)
{
    return source[i] == '\\' && i + 1 < length &&
           (source[i + 1] == '\n' ||
            (source[i + 1] == '\r' && i + 2 < length && source[i + 2] == '\n'));
}

/* Phase 2 first: splices go, and where each one was is remembered so
 * that lines keep their physical numbers.  NUL bytes become spaces. */
static void clc_lex_splice(clc_lexer *lx, const char *source, size_t length)
{
    lx->text = clc_arena_alloc(lx->arena, length + 1);
    size_t splice_count = 0;
    for (size_t i = 0; i + 1 < length; ++i)
        if (clc_is_splice(source, length, i))
            ++splice_count;
    lx->splices = clc_arena_alloc(lx->arena, (splice_count ? splice_count : 1) *
                                                 sizeof *lx->splices);
    size_t n = 0, s = 0;
    for (size_t i = 0; i < length; ++i) {
        char c = source[i];
        if (clc_is_splice(source, length, i)) {
            i += source[i + 1] == '\r' ? 2 : 1;
            if (s < splice_count)
                lx->splices[s++] = n;
            continue;
        }
        lx->text[n++] = c == '\0' ? ' ' : c;
    }
    lx->text[n] = '\0';
    lx->length = n;
    lx->splice_count = s;
}

/* Counts the lines of the splices the cursor has passed. */
static void clc_lex_lines(clc_lexer *lx)
{
    while (lx->next_splice < lx->splice_count &&
           lx->splices[lx->next_splice] <= lx->pos) {
        ++lx->line;
        ++lx->next_splice;
    }
}

/* Past the end of a block comment whose opening is at the cursor. */
static void clc_lex_block_comment(clc_lexer *lx)
{
    unsigned start_line = lx->line;
    const char *text = lx->text;
    lx->pos += 2;
    for (;;) {
        clc_lex_lines(lx);
        if (lx->pos >= lx->length)
            clc_fail(lx->arena->failure, lx->file, start_line,
                     "unterminated /* comment");
        if (text[lx->pos] == '*' && lx->pos + 1 < lx->length &&
            text[lx->pos + 1] == '/') {
            lx->pos += 2;
            return;
        }
        if (text[lx->pos] == '\n')
            ++lx->line;
        ++lx->pos;
    }
}

/* Skips one stretch of white space or one comment at the cursor,
 * noting it in *flags; returns 0 at a token. */
static int clc_lex_skip(clc_lexer *lx, uint8_t *flags)
{
    const char *text = lx->text;
    size_t n = lx->length;
    char c = text[lx->pos];
    if (c == '\n') {
        ++lx->line;
        ++lx->pos;
        *flags = CLC_TF_BOL | CLC_TF_SPACE;
        return 1;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
        ++lx->pos;
        *flags |= CLC_TF_SPACE;
        return 1;
    }
    if (c == '/' && lx->pos + 1 < n && text[lx->pos + 1] == '/') {
        while (lx->pos < n && text[lx->pos] != '\n')
            ++lx->pos;
        *flags |= CLC_TF_SPACE;
        return 1;
    }
    if (c == '/' && lx->pos + 1 < n && text[lx->pos + 1] == '*') {
        clc_lex_block_comment(lx);
        *flags |= CLC_TF_SPACE;
        return 1;
    }
    return 0;
}

/* The token at the cursor, pushed onto `out`. */
static void clc_lex_token(clc_lexer *lx, uint8_t flags, clc_interner *interner,
                          clc_token_array *out)
{
    clc_token token;
    clc_punct punct;
    token.length = 0;
    size_t token_length = clc_scan_token(lx->text + lx->pos,
                                         lx->length - lx->pos, &token.kind,
                                         &punct);
    if (token_length > UINT32_MAX)
        clc_fail(lx->arena->failure, lx->file, lx->line, "token too long");
    token.text = lx->text + lx->pos;
    token.length = (uint32_t)token_length;
    token.line = lx->line;
    token.file = lx->file;
    token.flags = flags;
    token.punct = (uint8_t)punct;
    token.ident = -1;
    if (token.kind == CLC_TOK_PUNCT)
        token.text = clc_punct_spellings[punct]; /* digraphs spelt plainly */
    else if (token.kind == CLC_TOK_IDENT)
        token.ident = clc_intern(interner, token.text, token.length);
    if (token.kind == CLC_TOK_PUNCT)
        token.length = (uint32_t)strlen(token.text);
    clc_tokens_push(out, lx->arena, &token);
    lx->pos += token_length;
}

void clc_lex(const char *source, size_t length, uint16_t file,
             unsigned first_line, clc_arena *arena, clc_interner *interner,
             clc_token_array *out)
{
    clc_lexer lx = {.line = first_line, .file = file, .arena = arena};
    clc_lex_splice(&lx, source, length);
    uint8_t flags = CLC_TF_BOL | CLC_TF_SPACE;
    for (;;) {
        clc_lex_lines(&lx);
        if (lx.pos >= lx.length)
            break;
        if (clc_lex_skip(&lx, &flags))
            continue;
        clc_lex_token(&lx, flags, interner, out);
        flags = 0;
    }
    clc_token eof;
    memset(&eof, 0, sizeof eof);
    eof.kind = CLC_TOK_EOF;
    eof.text = "";
    eof.line = lx.line;
    eof.file = file;
    eof.ident = -1;
    eof.flags = CLC_TF_BOL;
    clc_tokens_push(out, arena, &eof);
}

int clc_lex_single(const char *text, size_t length, clc_arena *arena,
                   clc_interner *interner, clc_token *token)
{
    if (length == 0)
        return 0;
    char *copy = clc_arena_strndup(arena, text, length);
    clc_punct punct;
    uint8_t kind;
    size_t n = clc_scan_token(copy, length, &kind, &punct);
    if (n != length || kind == CLC_TOK_OTHER)
        return 0;
    memset(token, 0, sizeof *token);
    token->kind = kind;
    token->punct = (uint8_t)punct;
    token->text = kind == CLC_TOK_PUNCT ? clc_punct_spellings[punct] : copy;
    token->length = (uint32_t)strlen(token->text);
    token->ident = kind == CLC_TOK_IDENT ? clc_intern(interner, copy, length)
                                         : -1;
    return 1;
}

/* ---- a translation's run -------------------------------------------------- */

void clc_run_begin(clc_run *run)
{
    memset(run, 0, sizeof *run);
    clc_arena_init(&run->arena, &run->failure, CLC_MAX_ARENA_BYTES);
}

int clc_run_failed(clc_run *run, char **error, int *error_line,
                   int *unsupported)
{
    int result = -2;
    if (!run->failure.out_of_memory && run->failure.message != NULL) {
        *error = run->failure.message;
        *error_line = (int)run->failure.line;
        *unsupported = run->unsupported;
        result = -1;
    } else {
        free(run->failure.message);
    }
    clc_run_end(run);
    return result;
}

void clc_run_end(clc_run *run)
{
    clc_interner_free(&run->interner);
    clc_arena_free(&run->arena);
}
