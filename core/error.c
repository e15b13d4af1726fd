/*
 * Status names and the per-thread last error.
 *
 * The message buffer is per thread (a process-global error is what made
 * libgpuarray unusable from threads) and grows to hold a whole build log.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct error_buffer {
    char *text;
    size_t capacity;
} error_buffer;

static pthread_key_t error_key;
static pthread_once_t error_key_once = PTHREAD_ONCE_INIT;

static void error_buffer_destroy(void *pointer)
{
    error_buffer *buffer = pointer;
    if (buffer != NULL) {
        free(buffer->text);
        free(buffer);
    }
}

static void error_key_create(void)
{
    (void)pthread_key_create(&error_key, error_buffer_destroy);
}

/* NULL only when even the small bookkeeping allocation fails. */
static error_buffer *error_buffer_get(void)
{
    (void)pthread_once(&error_key_once, error_key_create);
    error_buffer *buffer = pthread_getspecific(error_key);
    if (buffer == NULL) {
        buffer = calloc(1, sizeof *buffer);
        if (buffer == NULL)
            return NULL;
        if (pthread_setspecific(error_key, buffer) != 0) {
            free(buffer);
            return NULL;
        }
    }
    return buffer;
}

static bool error_buffer_reserve(error_buffer *buffer, size_t size)
{
    if (buffer->capacity >= size)
        return true;
    size_t capacity = buffer->capacity ? buffer->capacity : 256;
    while (capacity < size)
        capacity *= 2;
    char *text = realloc(buffer->text, capacity);
    if (text == NULL)
        return false;
    buffer->text = text;
    buffer->capacity = capacity;
    return true;
}

/* Used when the message itself cannot be stored. */
static const char out_of_memory_message[] =
    "out of host memory while recording an error";

kiln_status kiln_error_v(kiln_status status, const char *format, va_list args)
{
    error_buffer *buffer = error_buffer_get();
    if (buffer == NULL)
        return status;
    va_list copy;
    va_copy(copy, args);
    int needed = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (needed < 0)
        needed = 0;
    /* Formatted aside first: an argument may be kiln_last_error() itself
     * (a layer prefixing Kiln's message), which the buffer's growth would
     * move and the formatting overwrite. */
    char *text = malloc((size_t)needed + 1);
    if (text == NULL || !error_buffer_reserve(buffer, (size_t)needed + 1)) {
        free(text);
        if (buffer->capacity > 0)
            snprintf(buffer->text, buffer->capacity, "%s",
                     out_of_memory_message);
        return status;
    }
    vsnprintf(text, (size_t)needed + 1, format, args);
    memcpy(buffer->text, text, (size_t)needed + 1);
    free(text);
    return status;
}

kiln_status kiln_error(kiln_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    kiln_status result = kiln_error_v(status, format, args);
    va_end(args);
    return result;
}

kiln_status kiln_error_prefix(kiln_status status, const char *format, ...)
{
    error_buffer *buffer = error_buffer_get();
    if (buffer == NULL)
        return status;
    char prefix[512];
    va_list args;
    va_start(args, format);
    vsnprintf(prefix, sizeof prefix, format, args);
    va_end(args);
    size_t prefix_length = strlen(prefix);
    size_t old_length = buffer->text ? strlen(buffer->text) : 0;
    if (!error_buffer_reserve(buffer, prefix_length + 2 + old_length + 1))
        return status;
    memmove(buffer->text + prefix_length + 2, buffer->text ? buffer->text : "",
            old_length + 1);
    memcpy(buffer->text, prefix, prefix_length);
    memcpy(buffer->text + prefix_length, ": ", 2);
    return status;
}

kiln_status kiln_error_set(kiln_status status, const char *format, ...)
{
    if (status == KILN_OK || format == NULL) {
        kiln_error_clear();
        return status;
    }
    va_list args;
    va_start(args, format);
    kiln_status result = kiln_error_v(status, format, args);
    va_end(args);
    return result;
}

void kiln_error_clear(void)
{
    (void)pthread_once(&error_key_once, error_key_create);
    error_buffer *buffer = pthread_getspecific(error_key);
    if (buffer != NULL && buffer->text != NULL)
        buffer->text[0] = '\0';
}

const char *kiln_last_error(void)
{
    (void)pthread_once(&error_key_once, error_key_create);
    error_buffer *buffer = pthread_getspecific(error_key);
    if (buffer == NULL || buffer->text == NULL)
        return "";
    return buffer->text;
}

const char *kiln_status_name(kiln_status status)
{
    switch (status) {
#define NAME(s) \
    case s:     \
        return #s;
        NAME(KILN_OK)
        NAME(KILN_ERR_INVALID_ARGUMENT)
        NAME(KILN_ERR_INVALID_HANDLE)
        NAME(KILN_ERR_INVALID_SIZE)
        NAME(KILN_ERR_OUT_OF_BOUNDS)
        NAME(KILN_ERR_OUT_OF_HOST_MEMORY)
        NAME(KILN_ERR_OUT_OF_DEVICE_MEMORY)
        NAME(KILN_ERR_BACKEND_UNKNOWN)
        NAME(KILN_ERR_BACKEND_NOT_FOUND)
        NAME(KILN_ERR_BACKEND_LOAD)
        NAME(KILN_ERR_BACKEND_ABI)
        NAME(KILN_ERR_BACKEND_UNAVAILABLE)
        NAME(KILN_ERR_NO_DEVICE)
        NAME(KILN_ERR_CONTEXT_MISMATCH)
        NAME(KILN_ERR_BUILD)
        NAME(KILN_ERR_TRANSLATION)
        NAME(KILN_ERR_KERNEL_NOT_FOUND)
        NAME(KILN_ERR_ARGUMENT_COUNT)
        NAME(KILN_ERR_ARGUMENT_KIND)
        NAME(KILN_ERR_ARGUMENT_SIZE)
        NAME(KILN_ERR_INVALID_LAUNCH)
        NAME(KILN_ERR_KERNEL_FAULT)
        NAME(KILN_ERR_NOT_READY)
        NAME(KILN_ERR_UNSUPPORTED)
        NAME(KILN_ERR_IO)
        NAME(KILN_ERR_BACKEND)
        NAME(KILN_ERR_SHAPE)
        NAME(KILN_ERR_DTYPE)
        NAME(KILN_ERR_ARGUMENT_TYPE)
#undef NAME
    }
    return "KILN_ERR_UNKNOWN_STATUS";
}

const char *kiln_version(void)
{
    return PACKAGE_VERSION;
}
