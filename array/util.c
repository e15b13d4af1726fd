/*
 * The array layer's plumbing: errors through kiln_error_set, growing text
 * for generated sources, and building and launching generated kernels.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *format_v(const char *format, va_list args)
    ARRAY_PRINTF_LIKE(1, 0);
static char *format_v(const char *format, va_list args)
{
    va_list copy;
    va_copy(copy, args);
    int needed = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (needed < 0)
        return NULL;
    char *text = malloc((size_t)needed + 1);
    if (text != NULL)
        vsnprintf(text, (size_t)needed + 1, format, args);
    return text;
}

kiln_status array_error(kiln_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *text = format_v(format, args);
    va_end(args);
    if (text == NULL)
        return kiln_error_set(status, "out of host memory while recording "
                                      "an error");
    kiln_error_set(status, "%s", text);
    free(text);
    return status;
}

kiln_status array_stream_synchronize(kiln_context *context,
                                     kiln_stream *stream)
{
    kiln_status status = KILN_OK;
    if (stream == NULL)
        status = kiln_context_get_default_stream(context, &stream);
    return status == KILN_OK ? kiln_stream_synchronize(stream) : status;
}

kiln_status array_error_prefix(kiln_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *prefix = format_v(format, args);
    va_end(args);
    /* a copy: kiln_error_set rewrites the buffer kiln_last_error() shows */
    char *old = strdup(kiln_last_error());
    if (prefix != NULL && old != NULL)
        kiln_error_set(status, "%s: %s", prefix, old);
    free(prefix);
    free(old);
    return status;
}

static char *error_save(void)
{
    const char *text = kiln_last_error();
    return text[0] != '\0' ? strdup(text) : NULL;
}

static void error_restore(char *text)
{
    if (text != NULL) {
        /* the status is not stored with the message: any will do */
        kiln_error_set(KILN_ERR_BACKEND, "%s", text);
        free(text);
    }
}

void array_release_buffer(kiln_buffer *buffer)
{
    char *saved = error_save();
    kiln_buffer_release(buffer);
    error_restore(saved);
}

void array_release_kernel(kiln_kernel *kernel)
{
    char *saved = error_save();
    kiln_kernel_release(kernel);
    error_restore(saved);
}

void array_release_program(kiln_program *program)
{
    char *saved = error_save();
    kiln_program_release(program);
    error_restore(saved);
}

void array_release_array(kiln_array *array)
{
    char *saved = error_save();
    kiln_array_release(array);
    error_restore(saved);
}

/* Room for `extra` more characters and the NUL. */
static bool text_reserve(array_text *text, size_t extra)
{
    size_t want = text->length + extra + 1;
    if (want <= text->capacity)
        return true;
    size_t capacity = text->capacity ? text->capacity : 4096;
    while (capacity < want)
        capacity *= 2;
    char *data = realloc(text->data, capacity);
    if (data == NULL) {
        text->failed = true;
        return false;
    }
    text->data = data;
    text->capacity = capacity;
    return true;
}

void array_text_add(array_text *text, const char *format, ...)
{
    if (text->failed || !text_reserve(text, 0))
        return;
    /* Formatted once into the room there is (the sources are generated
     * on every operation: measuring first would format everything twice),
     * again only when it did not fit. */
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    size_t room = text->capacity - text->length;
    int needed = vsnprintf(text->data + text->length, room, format, copy);
    va_end(copy);
    if (needed >= 0 && (size_t)needed >= room) {
        if (text_reserve(text, (size_t)needed))
            vsnprintf(text->data + text->length, (size_t)needed + 1, format,
                      args);
        else
            needed = -1;
    }
    va_end(args);
    if (needed < 0) {
        text->failed = true;
        return;
    }
    text->length += (size_t)needed;
}

void array_text_free(array_text *text)
{
    free(text->data);
    *text = (array_text){0};
}

/* The compiler's log is not enough to find a mistake in an expression the
 * user wrote: the message also shows the generated source, numbered as
 * the log numbers it. */
static kiln_status add_source_to_error(kiln_status status, const char *source)
{
    array_text text = {0};
    array_text_add(&text, "%s\n--- generated source ---\n", kiln_last_error());
    int line = 1;
    for (const char *p = source; *p != '\0';) {
        const char *end = strchr(p, '\n');
        size_t length = end ? (size_t)(end - p) : strlen(p);
        array_text_add(&text, "%4d  %.*s\n", line++, (int)length, p);
        p += length + (end != NULL);
    }
    if (!text.failed)
        kiln_error_set(status, "%s", text.data);
    array_text_free(&text);
    return status;
}

kiln_status array_program_build(kiln_context *context, const char *source,
                                kiln_program **program)
{
    /* Self-contained, whatever the generator's strings hold: no file is
     * read for generated code (KILN_BUILD_NO_INCLUDE). */
    kiln_build_options options = {.struct_size = sizeof options,
                                  .language = KILN_LANGUAGE_OPENCL_C,
                                  .flags = KILN_BUILD_NO_INCLUDE};
    kiln_status status =
        kiln_program_build_with(context, source, 0, &options, program);
    if (status == KILN_ERR_BUILD || status == KILN_ERR_TRANSLATION)
        return add_source_to_error(status, source);
    return status;
}

kiln_status array_kernel_build(kiln_context *context, const char *source,
                               const char *name, kiln_kernel **kernel)
{
    kiln_program *program = NULL;
    kiln_status status = array_program_build(context, source, &program);
    if (status != KILN_OK)
        return status;
    status = kiln_kernel_create(program, name, kernel);
    array_release_program(program); /* the kernel keeps it */
    return status;
}

kiln_status array_kernel_build_text(kiln_context *context, array_text *source,
                                    const char *name, kiln_kernel **kernel)
{
    kiln_status status =
        source->failed ? array_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                     "out of host memory")
                       : array_kernel_build(context, source->data, name,
                                            kernel);
    array_text_free(source);
    return status;
}

size_t array_busy_groups(kiln_context *context)
{
    kiln_device_info info;
    if (kiln_context_get_device_info(context, &info) != KILN_OK ||
        info.compute_units <= 0)
        return 64;
    return (size_t)info.compute_units * 8;
}

bool array_has_double(kiln_context *context)
{
    kiln_device_info info;
    return kiln_context_get_device_info(context, &info) == KILN_OK &&
           info.supports_double;
}

kiln_status array_launch_1d(kiln_kernel *kernel, size_t n, size_t max_groups,
                            kiln_stream *stream, size_t count,
                            const kiln_arg *args)
{
    size_t groups = n / ARRAY_GROUP_SIZE + (n % ARRAY_GROUP_SIZE != 0);
    if (groups > max_groups)
        groups = max_groups;
    if (groups == 0)
        groups = 1;
    kiln_launch_config config = {
        .grid = KILN_DIM1(groups),
        .block = KILN_DIM1(ARRAY_GROUP_SIZE),
        .stream = stream,
    };
    return kiln_launch(kernel, &config, count, args);
}

kiln_status array_check_count(const char *function, const char *what,
                              size_t n)
{
    if (n <= (size_t)INT64_MAX)
        return KILN_OK;
    return array_error(KILN_ERR_INVALID_SIZE,
                       "%s: %s: n = %zu is more than the %lld elements a "
                       "generated kernel indexes (its index is a long)",
                       function, what, n, (long long)INT64_MAX);
}
