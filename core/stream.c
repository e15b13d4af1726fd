/*
 * Streams (in-order queues).  Events are in event.c.
 */
#include "internal.h"

#include <stdlib.h>

kiln_status kiln_stream_resolve(kiln_context *context, kiln_stream *stream,
                                kiln_backend_stream **backend)
{
    if (stream == NULL) {
        *backend = NULL;
        return KILN_OK;
    }
    if (stream->magic != KILN_MAGIC_STREAM)
        return kiln_error(KILN_ERR_INVALID_HANDLE,
                          "stream is not a live stream (released or not a "
                          "Kiln object)");
    if (stream->context != context)
        return kiln_error(KILN_ERR_CONTEXT_MISMATCH,
                          "the stream belongs to another context");
    *backend = stream->backend;
    return KILN_OK;
}

static void stream_destroy(kiln_stream *stream)
{
    kiln_context *context = stream->context;
    context->ops->stream_destroy(context->backend, stream->backend);
    kiln_handle_bury(stream);
    kiln_context_release_internal(context);
}

void kiln_stream_release_internal(kiln_stream *stream)
{
    if (stream->is_default)
        kiln_context_release_internal(stream->context);
    else if (kiln_refcount_drop(&stream->references))
        stream_destroy(stream);
}

void kiln_default_stream_init(kiln_context *context)
{
    kiln_stream *stream = &context->default_stream;
    stream->context = context;
    stream->backend = NULL;
    stream->is_default = true;
    stream->priority = KILN_STREAM_PRIORITY_NORMAL;
    stream->magic = KILN_MAGIC_STREAM;
}

kiln_status kiln_context_get_default_stream(kiln_context *context,
                                            kiln_stream **stream)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(stream, "stream");
    *stream = &context->default_stream;
    return KILN_OK;
}

kiln_status kiln_stream_get_context(const kiln_stream *stream,
                                    kiln_context **context)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(stream, KILN_MAGIC_STREAM, "stream");
    KILN_CHECK_OUT(context, "context");
    *context = stream->context;
    return KILN_OK;
}

void kiln_buffer_note_async_use(kiln_buffer *buffer, kiln_stream *stream)
{
    buffer = kiln_buffer_owner(buffer); /* a view's work is its base's */
    stream = kiln_stream_canonical(stream);
    bool used_before = atomic_exchange_explicit(&buffer->used_async, true,
                                                memory_order_relaxed);
    if (atomic_load_explicit(&buffer->last_stream, memory_order_relaxed) ==
        stream)
        return;
    if (used_before)
        atomic_store_explicit(&buffer->used_on_several_streams, true,
                              memory_order_relaxed);
    if (stream != NULL)
        kiln_refcount_hold(&stream->references);
    kiln_stream *previous = atomic_exchange(&buffer->last_stream, stream);
    if (previous != NULL)
        kiln_stream_release_internal(previous);
}

/* The two public creators check their arguments and make the stream
 * here; a high priority the backend cannot give makes an ordinary stream. */
static kiln_status stream_create(const char *function, kiln_context *context,
                                 kiln_stream_priority priority,
                                 kiln_stream **stream)
{
    kiln_stream *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "%s: out of host memory", function);
    const kiln_backend_ops *ops = context->ops;
    kiln_status status = KILN_ERR_UNSUPPORTED;
    if (priority == KILN_STREAM_PRIORITY_HIGH) {
        status = ops->stream_create(context->backend,
                                    KILN_BACKEND_STREAM_HIGH_PRIORITY,
                                    &result->backend);
        if (status == KILN_OK)
            result->priority = KILN_STREAM_PRIORITY_HIGH;
        else if (status == KILN_ERR_UNSUPPORTED)
            kiln_trace("%s: %s (%s) has no stream priorities: an ordinary "
                       "stream",
                       function, context->device.name, ops->name);
    }
    if (status == KILN_ERR_UNSUPPORTED) {
        kiln_error_clear();
        status = ops->stream_create(context->backend, 0, &result->backend);
    }
    if (status != KILN_OK) {
        free(result);
        return status;
    }
    result->context = context;
    kiln_handle_init(result, KILN_MAGIC_STREAM, &context->references);
    *stream = result;
    return KILN_OK;
}

kiln_status kiln_stream_create(kiln_context *context, kiln_stream **stream)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(stream, "stream");
    return stream_create(__func__, context, KILN_STREAM_PRIORITY_NORMAL,
                         stream);
}

kiln_status kiln_stream_create_with_priority(kiln_context *context,
                                             kiln_stream_priority priority,
                                             kiln_stream **stream)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(stream, "stream");
    if (priority != KILN_STREAM_PRIORITY_NORMAL &&
        priority != KILN_STREAM_PRIORITY_HIGH)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_stream_create_with_priority: priority %d is "
                          "neither KILN_STREAM_PRIORITY_NORMAL nor "
                          "KILN_STREAM_PRIORITY_HIGH",
                          (int)priority);
    return stream_create(__func__, context, priority, stream);
}

kiln_status kiln_stream_get_priority(const kiln_stream *stream,
                                     kiln_stream_priority *priority)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(stream, KILN_MAGIC_STREAM, "stream");
    KILN_CHECK_OUT(priority, "priority");
    *priority = stream->priority;
    return KILN_OK;
}

kiln_status kiln_stream_retain(kiln_stream *stream)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(stream, KILN_MAGIC_STREAM, "stream");
    /* The default stream's references are its context's. */
    if (stream->is_default)
        return kiln_context_retain(stream->context);
    kiln_refcount_retain(&stream->references);
    return KILN_OK;
}

kiln_status kiln_stream_release(kiln_stream *stream)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(stream, KILN_MAGIC_STREAM, "stream");
    if (stream->is_default)
        return kiln_context_release(stream->context);
    bool last = false;
    kiln_status status = kiln_refcount_release(
        &stream->references, __func__, "stream",
        "buffers with work queued on it", &last);
    if (last)
        stream_destroy(stream);
    return status;
}

/* The header's macro of the same name picks between this and the 0.1
 * two-argument form. */
kiln_status(kiln_stream_synchronize)(kiln_stream *stream)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(stream, KILN_MAGIC_STREAM, "stream");
    kiln_context *context = stream->context;
    return context->ops->stream_synchronize(context->backend, stream->backend);
}

kiln_status kiln_stream_wait_event(kiln_stream *stream, kiln_event *event)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(stream, KILN_MAGIC_STREAM, "stream");
    KILN_CHECK_HANDLE(event, KILN_MAGIC_EVENT, "event");
    if (!atomic_load(&event->recorded))
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_stream_wait_event: the event was never "
                          "recorded");
    if (event->context != stream->context)
        return kiln_peer_wait(stream, event);
    kiln_context *context = stream->context;
    return context->ops->stream_wait_event(context->backend, stream->backend,
                                           event->backend);
}

kiln_status kiln_stream_get_native(const kiln_stream *stream, void *out,
                                   size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(stream, KILN_MAGIC_STREAM, "stream");
    KILN_CHECK_OUT(out, "out");
    kiln_context *context = stream->context;
    return context->ops->native_handle(context->backend, KILN_NATIVE_STREAM,
                                       stream->backend, out, size);
}
