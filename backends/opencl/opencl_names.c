/* The kernel names an OpenCL C text declares, read before any driver sees
 * the text: some drivers fail on long names in ways no status reports
 * (PoCL 3.1 aborts the process when it links a kernel of 253 characters;
 * NVIDIA's OpenCL compiler, driver 580, corrupted the process's heap while
 * building one of 300, and a program of three whose names reach 184), so a name past the backend's limit is refused
 * before clBuildProgram.  The scan skips comments, string and character
 * literals and attributes; a name made by the preprocessor is not seen
 * here, and is still checked after the build (opencl_program.c). */
#include "opencl_private.h"

#include <ctype.h>
#include <string.h>

typedef struct name_scan {
    const char *at, *end;
} name_scan;

static int is_identifier_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int is_identifier_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Past white space, comments and line continuations. */
static void skip_blank(name_scan *scan)
{
    while (scan->at < scan->end) {
        const char *p = scan->at;
        if (isspace((unsigned char)*p)) {
            scan->at++;
        } else if (*p == '\\' && p + 1 < scan->end && p[1] == '\n') {
            scan->at += 2;
        } else if (*p == '/' && p + 1 < scan->end && p[1] == '/') {
            while (scan->at < scan->end && *scan->at != '\n')
                scan->at++;
        } else if (*p == '/' && p + 1 < scan->end && p[1] == '*') {
            scan->at += 2;
            while (scan->at + 1 < scan->end &&
                   !(scan->at[0] == '*' && scan->at[1] == '/'))
                scan->at++;
            scan->at = scan->at + 2 <= scan->end ? scan->at + 2 : scan->end;
        } else {
            return;
        }
    }
}

/* The identifier at the cursor (length 0 if none), the cursor past it. */
static size_t take_identifier(name_scan *scan, const char **start)
{
    *start = scan->at;
    if (scan->at >= scan->end || !is_identifier_start(*scan->at))
        return 0;
    while (scan->at < scan->end && is_identifier_char(*scan->at))
        scan->at++;
    return (size_t)(scan->at - *start);
}

static int spells(const char *word, size_t length, const char *keyword)
{
    return strlen(keyword) == length && memcmp(word, keyword, length) == 0;
}

/* Past __attribute__((...)) groups, if any, and the blanks around them. */
static void skip_attributes(name_scan *scan)
{
    for (;;) {
        skip_blank(scan);
        name_scan probe = *scan;
        const char *word;
        size_t length = take_identifier(&probe, &word);
        if (!spells(word, length, "__attribute__") &&
            !spells(word, length, "__attribute"))
            return;
        *scan = probe;
        skip_blank(scan);
        if (scan->at >= scan->end || *scan->at != '(')
            return;
        int depth = 0;
        do {
            if (*scan->at == '(')
                depth++;
            else if (*scan->at == ')')
                depth--;
            scan->at++;
        } while (depth > 0 && scan->at < scan->end);
    }
}

/* Past a string or character literal that starts at the cursor. */
static void skip_literal(name_scan *scan)
{
    char quote = *scan->at++;
    while (scan->at < scan->end && *scan->at != quote && *scan->at != '\n') {
        if (*scan->at == '\\' && scan->at + 1 < scan->end)
            scan->at++;
        scan->at++;
    }
    if (scan->at < scan->end)
        scan->at++;
}

size_t opencl_longest_kernel_name(const char *text, size_t length,
                                  const char **name)
{
    name_scan scan = {text, text + length};
    size_t longest = 0;
    *name = NULL;
    while (scan.at < scan.end) {
        skip_blank(&scan);
        if (scan.at >= scan.end)
            break;
        if (*scan.at == '"' || *scan.at == '\'') {
            skip_literal(&scan);
            continue;
        }
        const char *word;
        size_t word_length = take_identifier(&scan, &word);
        if (word_length == 0) {
            scan.at++;
            continue;
        }
        if (!spells(word, word_length, "kernel") &&
            !spells(word, word_length, "__kernel"))
            continue;
        skip_attributes(&scan);
        const char *type;
        size_t type_length = take_identifier(&scan, &type);
        if (!spells(type, type_length, "void"))
            continue;
        skip_attributes(&scan);
        const char *kernel;
        size_t kernel_length = take_identifier(&scan, &kernel);
        if (kernel_length > longest) {
            longest = kernel_length;
            *name = kernel;
        }
    }
    return longest;
}
