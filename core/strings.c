/*
 * Small helpers used across the core: strings, and the sized copies of
 * public structs.
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
    /* Formatted once into the room there is (at least 256 bytes), again
     * only when it did not fit: a cache key is formatted on every build,
     * memory-cache hits included. */
    if (!string_reserve(string, 256))
        return false;
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    size_t room = string->capacity - string->length;
    int needed = vsnprintf(string->data + string->length, room, format, copy);
    va_end(copy);
    bool ok = needed >= 0;
    if (ok && (size_t)needed >= room) {
        ok = string_reserve(string, (size_t)needed);
        if (ok)
            vsnprintf(string->data + string->length, (size_t)needed + 1,
                      format, args);
    }
    va_end(args);
    if (ok)
        string->length += (size_t)needed;
    else if (string->data != NULL)
        string->data[string->length] = '\0'; /* what a failed try wrote */
    return ok;
}

void kiln_string_free(kiln_string *string)
{
    free(string->data);
    string->data = NULL;
    string->length = string->capacity = 0;
}

kiln_status kiln_struct_out(void *out, size_t out_size, const void *full,
                            size_t full_size, size_t minimum, const char *what)
{
    if (out_size < minimum)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: the caller's struct is %zu bytes, less than "
                          "the %zu of Kiln 1.0 (pass sizeof the struct)",
                          what, out_size, minimum);
    memcpy(out, full, out_size < full_size ? out_size : full_size);
    /* A caller built against a newer header: what this library does not
     * know reads as zero. */
    if (out_size > full_size)
        memset((char *)out + full_size, 0, out_size - full_size);
    return KILN_OK;
}

kiln_status kiln_struct_in(void *full, size_t full_size, const void *in,
                           size_t minimum, const char *what)
{
    size_t size;
    memcpy(&size, in, sizeof size);
    if (size == 0)
        size = minimum;
    if (size < minimum || size > full_size)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: struct_size is %zu; it must be 0 or sizeof the "
                          "struct (%zu in Kiln %s)",
                          what, size, full_size, kiln_version());
    memset(full, 0, full_size);
    memcpy(full, in, size);
    return KILN_OK;
}
