/*
 * Small string helpers used across the core.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *kiln_strndup(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

char *kiln_strdup(const char *text)
{
    return kiln_strndup(text, strlen(text));
}

static bool string_reserve(kiln_string *string, size_t extra)
{
    if (extra > SIZE_MAX - string->length - 1)
        return false;
    size_t needed = string->length + extra + 1;
    if (needed <= string->capacity)
        return true;
    size_t capacity = string->capacity ? string->capacity : 64;
    while (capacity < needed)
        capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
    char *data = realloc(string->data, capacity);
    if (data == NULL)
        return false;
    string->data = data;
    string->capacity = capacity;
    return true;
}

bool kiln_string_append(kiln_string *string, const char *text, size_t length)
{
    if (!string_reserve(string, length))
        return false;
    memcpy(string->data + string->length, text, length);
    string->length += length;
    string->data[string->length] = '\0';
    return true;
}

bool kiln_string_appendf(kiln_string *string, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    int needed = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    bool ok = needed >= 0 && string_reserve(string, (size_t)needed);
    if (ok) {
        vsnprintf(string->data + string->length, (size_t)needed + 1, format,
                  args);
        string->length += (size_t)needed;
    }
    va_end(args);
    return ok;
}

void kiln_string_free(kiln_string *string)
{
    free(string->data);
    string->data = NULL;
    string->length = string->capacity = 0;
}
