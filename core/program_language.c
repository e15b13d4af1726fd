/*
 * Language detection: a program built without an options struct is CUDA C
 * when it spells CUDA's kernel qualifier and not OpenCL C's.
 */
#include "internal.h"

#include "translate.h" /* translate_text_spells */

#include <ctype.h>
#include <string.h>

/* Where a CUDA C token that OpenCL C never has starts: `__global__` (the
 * kernel qualifier every CUDA kernel carries).  -1 when there is none, or
 * when OpenCL C's kernel qualifier is there too.  Comments and literals
 * are skipped; sets *line to the token's line. */
long kiln_language_cuda_marker(const char *text, size_t length,
                                unsigned *line)
{
    /* Most sources never spell it: a fast search decides for them (the
     * scan below cost the array layer's sources ~8k instructions on every
     * build, a program-cache hit included, and so does glibc's memmem). */
    if (!translate_text_spells(text, length, "__global__", 5)) /* its 'b', the
                                                          letter OpenCL C
                                                          spells least */
        return -1;
    long found = -1;
    unsigned current = 1;
    for (size_t i = 0; i < length; ++i) {
        char c = text[i];
        if (c == '\n') {
            ++current;
        } else if (c == '/' && i + 1 < length && text[i + 1] == '/') {
            while (i + 1 < length && text[i + 1] != '\n')
                ++i;
        } else if (c == '/' && i + 1 < length && text[i + 1] == '*') {
            for (i += 2; i + 1 < length && !(text[i] == '*' && text[i + 1] == '/');
                 ++i)
                current += text[i] == '\n';
            ++i;
        } else if (c == '"' || c == '\'') {
            for (++i; i < length && text[i] != c && text[i] != '\n'; ++i)
                i += text[i] == '\\';
        } else if (isalpha((unsigned char)c) || c == '_') {
            size_t start = i;
            while (i + 1 < length &&
                   (isalnum((unsigned char)text[i + 1]) || text[i + 1] == '_'))
                ++i;
            size_t n = i - start + 1;
            if (n == 10 && memcmp(text + start, "__global__", 10) == 0 &&
                found < 0) {
                found = (long)start;
                *line = current;
            } else if ((n == 8 && memcmp(text + start, "__kernel", 8) == 0) ||
                       (n == 6 && memcmp(text + start, "kernel", 6) == 0)) {
                return -1;
            }
        }
    }
    return found;
}

/* A word of C source: where it starts and how long it is, or, for any
 * other character, length 0 and that character.  Comments and literals
 * are skipped. */
typedef struct source_token {
    const char *start;
    size_t length;
    char punctuation;
} source_token;

static bool next_token(const char *text, size_t length, size_t *position,
                       source_token *token)
{
    size_t i = *position;
    while (i < length) {
        char c = text[i];
        if (isspace((unsigned char)c)) {
            ++i;
        } else if (c == '/' && i + 1 < length && text[i + 1] == '/') {
            while (i < length && text[i] != '\n')
                ++i;
        } else if (c == '/' && i + 1 < length && text[i + 1] == '*') {
            for (i += 2; i + 1 < length && !(text[i] == '*' && text[i + 1] == '/');
                 ++i)
                ;
            i += 2;
        } else if (c == '"' || c == '\'') {
            for (++i; i < length && text[i] != c && text[i] != '\n'; ++i)
                i += text[i] == '\\';
            ++i;
        } else if (isalpha((unsigned char)c) || c == '_') {
            size_t start = i;
            while (i < length && (isalnum((unsigned char)text[i]) || text[i] == '_'))
                ++i;
            *token = (source_token){text + start, i - start, 0};
            *position = i;
            return true;
        } else {
            *token = (source_token){text + i, 0, c};
            *position = i + 1;
            return true;
        }
    }
    *position = length;
    return false;
}

static bool token_is(const source_token *token, const char *word)
{
    size_t n = strlen(word);
    return token->length == n && memcmp(token->start, word, n) == 0;
}

/* Words that may stand between a kernel qualifier and the kernel's name,
 * some with a parenthesised argument of their own. */
static bool before_kernel_name(const source_token *token)
{
    static const char *const words[] = {
        "void",       "__attribute__",   "__launch_bounds__", "__noinline__",
        "__forceinline__", "inline",     "static",            "extern",
        "__kernel",   "kernel",          "__global__",        "__host__",
        "__device__", "__declspec",      "__cluster_dims__",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i)
        if (token_is(token, words[i]))
            return true;
    return false;
}

bool kiln_first_kernel_name(const char *text, size_t length, char *name,
                            size_t size)
{
    size_t i = 0;
    source_token token;
    while (next_token(text, length, &i, &token)) {
        if (!(token_is(&token, "__kernel") || token_is(&token, "kernel") ||
              token_is(&token, "__global__")))
            continue;
        /* The first word after the qualifier that is none of the above
         * and is followed by '(' names the kernel. */
        source_token word = {0};
        int depth = 0;
        while (next_token(text, length, &i, &token)) {
            if (token.punctuation == '(') {
                if (depth == 0 && word.length > 0 && !before_kernel_name(&word)) {
                    /* Cut to `size` here: "%.*s" takes an int. */
                    size_t n = word.length < size ? word.length : size - 1;
                    memcpy(name, word.start, n);
                    name[n] = '\0';
                    return true;
                }
                ++depth;
            } else if (token.punctuation == ')') {
                depth -= depth > 0;
            } else if (token.punctuation == ';' || token.punctuation == '{') {
                break;
            }
            word = token.length > 0 ? token : (source_token){0};
        }
    }
    return false;
}
