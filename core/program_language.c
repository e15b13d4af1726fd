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
