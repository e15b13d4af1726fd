/*
 * Build option strings, split into words once, the same way everywhere:
 * the core (its -I directories), the preprocessor (-D, -U, -cl-std) and
 * the CUDA backend (what reaches NVRTC) all call clc_option_next_word.
 */
#include "translate.h"

int clc_option_next_word(const char **cursor, char *word, size_t *length)
{
    const char *p = *cursor;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        ++p;
    if (*p == '\0') {
        *cursor = p;
        return 0;
    }
    size_t n = 0;
    char quote = '\0';
    for (; *p != '\0'; ++p) {
        char c = *p;
        if (quote == '\0' &&
            (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
            break;
        if (quote == '\0' && (c == '\'' || c == '"')) {
            quote = c;
        } else if (quote != '\0' && c == quote) {
            quote = '\0';
        } else if (c == '\\' && quote != '\'' && p[1] != '\0' &&
                   (quote == '\0' || p[1] == '"' || p[1] == '\\')) {
            word[n++] = *++p;
        } else {
            word[n++] = c;
        }
    }
    *cursor = p;
    word[n] = '\0';
    *length = n;
    return quote == '\0' ? 1 : -1;
}
