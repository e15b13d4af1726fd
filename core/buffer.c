/*
 * Buffers (device memory).  Every range is checked here, once, so backends
 * can trust offsets and sizes.  Page-locked host memory is in host_memory.c.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

kiln_status kiln_buffer_create(kiln_context *context, size_t size,
                               kiln_buffer **buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(buffer, "buffer");
    if (size == 0)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_buffer_create: size is 0");
    if (context->device.max_allocation != 0 &&
        size > context->device.max_allocation)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_buffer_create: %zu bytes is more than the "
                          "largest allocation of %s (%llu bytes)",
                          size, context->device.name,
                          (unsigned long long)context->device.max_allocation);
    kiln_buffer *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "kiln_buffer_create: out of host memory");
    kiln_status status;
    if ((atomic_load(&context->checks) & KILN_CHECK_BOUNDS) &&
        kiln_guard_possible(context, size)) {
        status = kiln_guard_allocate(context, size, &result->guarded,
                                     &result->capacity, &result->memory);
    } else {
        if (atomic_load(&context->checks) & KILN_CHECK_BOUNDS)
            kiln_trace("checked mode: a buffer of %zu bytes is too close to "
                       "the largest allocation for guard zones",
                       size);
        status = kiln_pool_allocate(context, size, &result->memory,
                                    &result->capacity);
    }
    if (status != KILN_OK) {
        free(result);
        return kiln_error_prefix(status, "kiln_buffer_create(%zu bytes)",
                                 size);
    }
    result->context = context;
    result->size = size;
    atomic_init(&result->last_stream, NULL);
    atomic_init(&result->used_async, false);
    atomic_init(&result->used_on_several_streams, false);
    kiln_handle_init(result, KILN_MAGIC_BUFFER, &context->references);
    *buffer = result;
    return KILN_OK;
}

kiln_status kiln_buffer_create_from(kiln_context *context, const void *host,
                                    size_t size, kiln_buffer **buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(host, "host");
    KILN_CHECK_OUT(buffer, "buffer");
    kiln_buffer *result;
    kiln_status status = kiln_buffer_create(context, size, &result);
    if (status != KILN_OK)
        return status;
    status = kiln_buffer_write(result, 0, host, size);
    if (status != KILN_OK) {
        kiln_buffer_release(result);
        return status;
    }
    *buffer = result;
    return KILN_OK;
}

kiln_status kiln_buffer_retain(kiln_buffer *buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    kiln_refcount_retain(&buffer->references);
    return KILN_OK;
}

/* Frees a buffer whose last reference went: a view gives back its hold
 * on its base (which may free that too), a program's variable its hold on
 * the program, a buffer opened from another process unmaps its memory, any
 * other buffer gives its memory to the pool. */
static void buffer_destroy(kiln_buffer *buffer)
{
    kiln_context *context = buffer->context;
    kiln_stream *stream = atomic_load(&buffer->last_stream);
    if (buffer->base != NULL) {
        kiln_buffer *base = buffer->base;
        kiln_backend_memory *view = atomic_load(&buffer->view_memory);
        if (view != NULL)
            context->ops->memory_free(context->backend, view);
        kiln_handle_bury(buffer);
        kiln_context_release_internal(context);
        if (kiln_refcount_drop(&base->references))
            buffer_destroy(base);
        return;
    }
    if (buffer->owner != NULL) {
        if (stream != NULL)
            kiln_stream_release_internal(stream);
        kiln_program_release_internal(buffer->owner);
        kiln_handle_bury(buffer);
        kiln_context_release_internal(context);
        return;
    }
    if (buffer->opened_ipc) {
        /* memory_free waits for this context's work on it, then unmaps. */
        context->ops->memory_free(context->backend, buffer->memory);
        if (stream != NULL)
            kiln_stream_release_internal(stream);
        kiln_handle_bury(buffer);
        kiln_context_release_internal(context);
        return;
    }
    kiln_pending_work pending =
        atomic_load(&buffer->used_on_several_streams) ? KILN_PENDING_SEVERAL_STREAMS
        : atomic_load(&buffer->used_async)            ? KILN_PENDING_ONE_STREAM
                                                      : KILN_PENDING_NONE;
    if (buffer->guarded != NULL)
        kiln_guard_free(context, buffer->guarded, buffer->capacity,
                        buffer->memory, stream, pending);
    else
        kiln_pool_return(context, buffer->memory, buffer->capacity, stream,
                         pending);
    if (stream != NULL)
        kiln_stream_release_internal(stream);
    kiln_handle_bury(buffer);
    kiln_context_release_internal(context);
}

kiln_status kiln_buffer_release(kiln_buffer *buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    bool last = false;
    kiln_status status = kiln_refcount_release(
        &buffer->references, __func__, "buffer", "its views", &last);
    if (!last)
        return status;
    buffer_destroy(buffer);
    kiln_error_clear();
    return KILN_OK;
}

kiln_status kiln_buffer_get_size(const kiln_buffer *buffer, size_t *size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    KILN_CHECK_OUT(size, "size");
    *size = buffer->size;
    return KILN_OK;
}

kiln_status kiln_buffer_get_context(const kiln_buffer *buffer,
                                    kiln_context **context)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    KILN_CHECK_OUT(context, "context");
    *context = buffer->context;
    return KILN_OK;
}

static kiln_status check_range(const char *function, const kiln_buffer *buffer,
                               size_t offset, size_t size);

kiln_status kiln_buffer_create_view(kiln_buffer *buffer, size_t offset,
                                    size_t size, kiln_buffer **view)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    KILN_CHECK_OUT(view, "view");
    kiln_status status = check_range(__func__, buffer, offset, size);
    if (status != KILN_OK)
        return status;
    kiln_buffer *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "kiln_buffer_create_view: out of host memory");
    kiln_buffer *base = kiln_buffer_owner(buffer);
    kiln_refcount_hold(&base->references);
    result->context = buffer->context;
    result->memory = base->memory;
    result->size = size;
    result->base = base;
    result->offset = buffer->offset + offset;
    atomic_init(&result->view_memory, NULL);
    atomic_init(&result->last_stream, NULL);
    atomic_init(&result->used_async, false);
    atomic_init(&result->used_on_several_streams, false);
    kiln_handle_init(result, KILN_MAGIC_BUFFER, &buffer->context->references);
    *view = result;
    return KILN_OK;
}

kiln_status kiln_buffer_get_base(const kiln_buffer *buffer, kiln_buffer **base,
                                 size_t *offset)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    KILN_CHECK_OUT(base, "base");
    KILN_CHECK_OUT(offset, "offset");
    *base = kiln_buffer_owner((kiln_buffer *)buffer);
    *offset = buffer->offset;
    return KILN_OK;
}

kiln_status kiln_buffer_first_byte(kiln_buffer *buffer,
                                   kiln_backend_memory **memory)
{
    if (buffer->offset == 0) {
        *memory = buffer->memory;
        return KILN_OK;
    }
    kiln_backend_memory *view = atomic_load(&buffer->view_memory);
    if (view != NULL) {
        *memory = view;
        return KILN_OK;
    }
    kiln_context *context = buffer->context;
    if (context->ops->memory_view == NULL)
        return kiln_error(KILN_ERR_UNSUPPORTED,
                          "a view at byte %zu: the %s plugin predates views "
                          "(plugin ABI 2.1)",
                          buffer->offset, context->ops->name);
    kiln_status status = context->ops->memory_view(
        context->backend, buffer->memory, buffer->offset, buffer->size, &view);
    if (status != KILN_OK)
        return status;
    kiln_backend_memory *expected = NULL;
    if (!atomic_compare_exchange_strong(&buffer->view_memory, &expected,
                                        view)) {
        /* another thread made one first */
        context->ops->memory_free(context->backend, view);
        view = expected;
    }
    *memory = view;
    return KILN_OK;
}

static kiln_status check_range(const char *function, const kiln_buffer *buffer,
                               size_t offset, size_t size)
{
    if (size == 0)
        return kiln_error(KILN_ERR_INVALID_SIZE, "%s: size is 0", function);
    if (offset > buffer->size || size > buffer->size - offset)
        return kiln_error(KILN_ERR_OUT_OF_BOUNDS,
                          "%s: bytes [%zu, %zu%s) are outside the buffer of "
                          "%zu bytes",
                          function, offset,
                          size > SIZE_MAX - offset ? SIZE_MAX : offset + size,
                          size > SIZE_MAX - offset ? "+" : "", buffer->size);
    return KILN_OK;
}

/* KILN_CHECK_HANDLE for the helpers below, which serve several public
 * functions: the message names the one the caller called. */
static kiln_status check_buffer_handle(const char *function,
                                       const kiln_buffer *buffer,
                                       const char *what)
{
    if (buffer == NULL)
        return kiln_error(KILN_ERR_INVALID_HANDLE, "%s: %s is NULL", function,
                          what);
    if (buffer->magic != KILN_MAGIC_BUFFER)
        return kiln_error(KILN_ERR_INVALID_HANDLE,
                          "%s: %s is not a live buffer (released or not a "
                          "Kiln object)",
                          function, what);
    return KILN_OK;
}

/* The checks shared by write and read, sync and async. */
static kiln_status transfer_check(const char *function, kiln_buffer *buffer,
                                  size_t offset, const void *host, size_t size,
                                  kiln_stream *stream,
                                  kiln_backend_stream **backend_stream)
{
    kiln_status status = check_buffer_handle(function, buffer, "buffer");
    if (status != KILN_OK)
        return status;
    if (host == NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT, "%s: host pointer is NULL",
                          function);
    status = check_range(function, buffer, offset, size);
    if (status != KILN_OK)
        return status;
    status = kiln_stream_resolve(buffer->context, stream, backend_stream);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "%s", function);
    return KILN_OK;
}

static kiln_status buffer_write(const char *function, kiln_buffer *buffer,
                                size_t offset, const void *host, size_t size,
                                kiln_stream *stream, int blocking)
{
    kiln_backend_stream *backend_stream = NULL;
    kiln_status status = transfer_check(function, buffer, offset, host, size,
                                        stream, &backend_stream);
    if (status != KILN_OK)
        return status;
    kiln_context *context = buffer->context;
    if (!blocking)
        kiln_buffer_note_async_use(buffer, stream);
    return context->ops->memory_write(context->backend, backend_stream,
                                      buffer->memory, buffer->offset + offset,
                                      host, size, blocking);
}

static kiln_status buffer_read(const char *function, kiln_buffer *buffer,
                               size_t offset, void *host, size_t size,
                               kiln_stream *stream, int blocking)
{
    kiln_backend_stream *backend_stream = NULL;
    kiln_status status = transfer_check(function, buffer, offset, host, size,
                                        stream, &backend_stream);
    if (status != KILN_OK)
        return status;
    kiln_context *context = buffer->context;
    if (!blocking)
        kiln_buffer_note_async_use(buffer, stream);
    return context->ops->memory_read(context->backend, backend_stream,
                                     buffer->memory, buffer->offset + offset,
                                     host, size, blocking);
}

static kiln_status buffer_copy(const char *function, kiln_buffer *destination,
                               size_t destination_offset, kiln_buffer *source,
                               size_t source_offset, size_t size,
                               kiln_stream *stream, int blocking)
{
    kiln_status status =
        check_buffer_handle(function, destination, "destination buffer");
    if (status == KILN_OK)
        status = check_buffer_handle(function, source, "source buffer");
    if (status != KILN_OK)
        return status;
    status = check_range(function, destination, destination_offset, size);
    if (status == KILN_OK)
        status = check_range(function, source, source_offset, size);
    if (status != KILN_OK)
        return status;
    /* From here on, offsets are in the memory of each buffer's base. */
    destination_offset += destination->offset;
    source_offset += source->offset;
    if (destination->context != source->context)
        return kiln_peer_copy(function, destination, destination_offset,
                              source, source_offset, size, stream, blocking);
    if (kiln_buffer_owner(destination) == kiln_buffer_owner(source) &&
        destination_offset < source_offset + size &&
        source_offset < destination_offset + size)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: source [%zu, %zu) and destination [%zu, %zu) "
                          "overlap",
                          function, source_offset, source_offset + size,
                          destination_offset, destination_offset + size);
    kiln_backend_stream *backend_stream = NULL;
    kiln_context *context = destination->context;
    status = kiln_stream_resolve(context, stream, &backend_stream);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "%s", function);
    if (!blocking) {
        kiln_buffer_note_async_use(destination, stream);
        kiln_buffer_note_async_use(source, stream);
    }
    return context->ops->memory_copy(context->backend, backend_stream,
                                     destination->memory, destination_offset,
                                     source->memory, source_offset, size,
                                     blocking);
}

static kiln_status buffer_fill(const char *function, kiln_buffer *buffer,
                               size_t offset, size_t size, const void *pattern,
                               size_t pattern_size, kiln_stream *stream,
                               int blocking)
{
    kiln_status status = check_buffer_handle(function, buffer, "buffer");
    if (status != KILN_OK)
        return status;
    if (pattern == NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT, "%s: pattern is NULL",
                          function);
    if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 &&
        pattern_size != 8 && pattern_size != 16)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: pattern_size %zu is not 1, 2, 4, 8 or 16",
                          function, pattern_size);
    status = check_range(function, buffer, offset, size);
    if (status != KILN_OK)
        return status;
    if (offset % pattern_size != 0 || size % pattern_size != 0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: offset %zu and size %zu must be multiples of "
                          "the pattern size %zu",
                          function, offset, size, pattern_size);
    kiln_backend_stream *backend_stream = NULL;
    kiln_context *context = buffer->context;
    status = kiln_stream_resolve(context, stream, &backend_stream);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "%s", function);
    if (!blocking)
        kiln_buffer_note_async_use(buffer, stream);
    return context->ops->memory_fill(context->backend, backend_stream,
                                     buffer->memory, buffer->offset + offset,
                                     size, pattern, pattern_size, blocking);
}

kiln_status kiln_buffer_write(kiln_buffer *buffer, size_t offset,
                              const void *host, size_t size)
{
    kiln_error_clear();
    return buffer_write(__func__, buffer, offset, host, size, NULL, 1);
}

kiln_status kiln_buffer_read(kiln_buffer *buffer, size_t offset, void *host,
                             size_t size)
{
    kiln_error_clear();
    return buffer_read(__func__, buffer, offset, host, size, NULL, 1);
}

kiln_status kiln_buffer_copy(kiln_buffer *destination,
                             size_t destination_offset, kiln_buffer *source,
                             size_t source_offset, size_t size)
{
    kiln_error_clear();
    return buffer_copy(__func__, destination, destination_offset, source,
                       source_offset, size, NULL, 1);
}

kiln_status kiln_buffer_fill(kiln_buffer *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size)
{
    kiln_error_clear();
    return buffer_fill(__func__, buffer, offset, size, pattern, pattern_size,
                       NULL, 1);
}

kiln_status kiln_buffer_write_async(kiln_buffer *buffer, size_t offset,
                                    const void *host, size_t size,
                                    kiln_stream *stream)
{
    kiln_error_clear();
    return buffer_write(__func__, buffer, offset, host, size, stream, 0);
}

kiln_status kiln_buffer_read_async(kiln_buffer *buffer, size_t offset,
                                   void *host, size_t size,
                                   kiln_stream *stream)
{
    kiln_error_clear();
    return buffer_read(__func__, buffer, offset, host, size, stream, 0);
}

kiln_status kiln_buffer_copy_async(kiln_buffer *destination,
                                   size_t destination_offset,
                                   kiln_buffer *source, size_t source_offset,
                                   size_t size, kiln_stream *stream)
{
    kiln_error_clear();
    return buffer_copy(__func__, destination, destination_offset, source,
                       source_offset, size, stream, 0);
}

kiln_status kiln_buffer_fill_async(kiln_buffer *buffer, size_t offset,
                                   size_t size, const void *pattern,
                                   size_t pattern_size, kiln_stream *stream)
{
    kiln_error_clear();
    return buffer_fill(__func__, buffer, offset, size, pattern, pattern_size,
                       stream, 0);
}

kiln_status kiln_buffer_get_native(const kiln_buffer *buffer, void *out,
                                   size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    KILN_CHECK_OUT(out, "out");
    kiln_context *context = buffer->context;
    kiln_backend_memory *memory = NULL;
    kiln_status status = kiln_buffer_first_byte((kiln_buffer *)buffer, &memory);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "%s", __func__);
    return context->ops->native_handle(context->backend, KILN_NATIVE_MEMORY,
                                       memory, out, size);
}
