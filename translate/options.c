/*
 * Build options, split into words and sorted into lists once: the core
 * calls translate_options_parse on the user's string and hands the lists
 * to the front end and, translated for their compiler, to the plugins;
 * nothing else splits an option string.
 */
#include "lexer.h" /* CLC_PRINTF */
#include "translate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits the next word off `*cursor` (the rules are in translate.h), written
 * unquoted into `word`, which holds strlen(*cursor) + 1 bytes.  Returns 1
 * with a word, 0 at the end, -1 on an unterminated quote. */
static int option_next_word(const char **cursor, char *word, size_t *length)
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

static int lists_fail(translate_option_lists *out, int result, const char *format,
                      ...) CLC_PRINTF(3, 4);
static int lists_fail(translate_option_lists *out, int result, const char *format,
                      ...)
{
    va_list args;
    va_start(args, format);
    int size = vsnprintf(NULL, 0, format, args);
    va_end(args);
    out->error = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (out->error == NULL)
        return -2;
    va_start(args, format);
    vsnprintf(out->error, (size_t)size + 1, format, args);
    va_end(args);
    return result;
}

/* Copies `text` to the next free byte of out->storage. */
static char *lists_copy(char **next, const char *text, size_t length)
{
    char *copy = *next;
    memcpy(copy, text, length);
    copy[length] = '\0';
    *next += length + 1;
    return copy;
}

int translate_options_parse_words(const char *const *words, size_t count,
                            translate_option_lists *out)
{
    memset(out, 0, sizeof *out);
    size_t bytes = 1;
    for (size_t i = 0; i < count; ++i)
        bytes += strlen(words[i]) + 1;
    size_t slots = count ? count : 1;
    out->storage = malloc(bytes);
    out->defines = calloc(slots, sizeof *out->defines);
    out->include_dirs = calloc(slots, sizeof *out->include_dirs);
    out->flags = calloc(slots, sizeof *out->flags);
    if (out->storage == NULL || out->defines == NULL ||
        out->include_dirs == NULL || out->flags == NULL)
        return -2;
    char *next = out->storage;
    translate_options *lists = &out->options;
    lists->defines = out->defines;
    lists->include_dirs = (const char *const *)out->include_dirs;
    lists->flags = (const char *const *)out->flags;
    for (size_t i = 0; i < count; ++i) {
        const char *word = words[i];
        if (word[0] != '-' ||
            (word[1] != 'D' && word[1] != 'U' && word[1] != 'I')) {
            out->flags[lists->flag_count++] =
                lists_copy(&next, word, strlen(word));
            continue;
        }
        /* -D, -U and -I take their value in the same word or the next. */
        char flag = word[1];
        const char *value = word + 2;
        if (*value == '\0') {
            if (i + 1 == count)
                return lists_fail(out, -3, "build options: -%c needs a value",
                                  flag);
            value = words[++i];
        }
        if (flag == 'I') {
            out->include_dirs[lists->include_dir_count++] =
                lists_copy(&next, value, strlen(value));
            continue;
        }
        translate_define *define = &out->defines[lists->define_count++];
        if (flag == 'U') {
            define->name = lists_copy(&next, value, strlen(value));
            continue;
        }
        if (*value == '=' || *value == '\0')
            return lists_fail(out, -3, "build options: -D needs a macro name");
        const char *equals = strchr(value, '=');
        if (equals == NULL) {
            define->name = lists_copy(&next, value, strlen(value));
            define->value = "1"; /* as C compilers define it */
        } else {
            char *name = lists_copy(&next, value, strlen(value));
            name[equals - value] = '\0';
            define->name = name;
            define->value = name + (equals - value) + 1;
        }
    }
    return 0;
}

int translate_options_parse(const char *text, translate_option_lists *out)
{
    memset(out, 0, sizeof *out);
    const char *cursor = text ? text : "";
    /* Each word unquoted is no longer than its text: one buffer of the
     * string's size holds them all, one after another. */
    size_t size = strlen(cursor) + 1;
    char *buffer = malloc(size * 2);
    const char **words = calloc(size / 2 + 1, sizeof *words);
    if (buffer == NULL || words == NULL) {
        free(buffer);
        free(words);
        return -2;
    }
    size_t count = 0, length;
    char *word = buffer;
    int got;
    while ((got = option_next_word(&cursor, word, &length)) > 0) {
        words[count++] = word;
        word += length + 1;
    }
    int result = got < 0 ? lists_fail(out, -1,
                                       "build options: unterminated quote in "
                                       "'%s'",
                                       text)
                         : translate_options_parse_words(words, count, out);
    free(buffer);
    free(words);
    return result;
}

void translate_option_lists_free(translate_option_lists *lists)
{
    free(lists->defines);
    free(lists->include_dirs);
    free(lists->flags);
    free(lists->storage);
    free(lists->error);
    memset(lists, 0, sizeof *lists);
}
