/*
 * Events: recorded on a stream, waited on, and timed.
 */
#include "internal.h"

#include <stdlib.h>

kiln_status kiln_untimed_event_create(kiln_context *context,
                                      kiln_backend_event **event)
{
    return context->ops->event_create(context->backend, 0, event);
}

/* The two public creators check their arguments (their names go in the
 * messages) and make the event here. */
static kiln_status event_create(const char *function, kiln_context *context,
                                kiln_event **event, bool timed)
{
    kiln_event *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "%s: out of host memory", function);
    kiln_status status = context->ops->event_create(
        context->backend, timed ? KILN_BACKEND_EVENT_TIMED : 0,
        &result->backend);
    if (status != KILN_OK) {
        free(result);
        return status;
    }
    result->context = context;
    atomic_init(&result->recorded, false);
    result->timed = timed;
    kiln_handle_init(result, KILN_MAGIC_EVENT, &context->references);
    *event = result;
    return KILN_OK;
}

kiln_status kiln_event_create(kiln_context *context, kiln_event **event)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(event, "event");
    return event_create(__func__, context, event, true);
}

kiln_status kiln_event_create_untimed(kiln_context *context,
                                      kiln_event **event)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(event, "event");
    return event_create(__func__, context, event, false);
}

kiln_status kiln_event_retain(kiln_event *event)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(event, KILN_MAGIC_EVENT, "event");
    kiln_refcount_retain(&event->references);
    return KILN_OK;
}

kiln_status kiln_event_release(kiln_event *event)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(event, KILN_MAGIC_EVENT, "event");
    bool last = false;
    kiln_status status = kiln_refcount_release(
        &event->references, __func__, "event", NULL, &last);
    if (last) {
        kiln_context *context = event->context;
        context->ops->event_destroy(context->backend, event->backend);
        kiln_handle_bury(event);
        kiln_context_release_internal(context);
    }
    return status;
}

kiln_status kiln_event_record(kiln_event *event, kiln_stream *stream)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(event, KILN_MAGIC_EVENT, "event");
    kiln_context *context = event->context;
    kiln_backend_stream *backend_stream = NULL;
    kiln_status status = kiln_stream_resolve(context, stream, &backend_stream);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "kiln_event_record");
    status = context->ops->event_record(context->backend, event->backend,
                                        backend_stream);
    if (status == KILN_OK)
        atomic_store(&event->recorded, true);
    return status;
}

static kiln_status event_check_recorded(const kiln_event *event,
                                        const char *function)
{
    if (!atomic_load(&event->recorded))
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: the event was never recorded", function);
    return KILN_OK;
}

kiln_status kiln_event_synchronize(kiln_event *event)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(event, KILN_MAGIC_EVENT, "event");
    kiln_status status = event_check_recorded(event, __func__);
    if (status != KILN_OK)
        return status;
    return event->context->ops->event_synchronize(event->context->backend,
                                                  event->backend);
}

kiln_status kiln_event_query(kiln_event *event)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(event, KILN_MAGIC_EVENT, "event");
    kiln_status status = event_check_recorded(event, __func__);
    if (status != KILN_OK)
        return status;
    return event->context->ops->event_query(event->context->backend,
                                            event->backend);
}

kiln_status kiln_event_elapsed(kiln_event *start, kiln_event *end,
                               float *milliseconds)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(start, KILN_MAGIC_EVENT, "start event");
    KILN_CHECK_HANDLE(end, KILN_MAGIC_EVENT, "end event");
    KILN_CHECK_OUT(milliseconds, "milliseconds");
    if (start->context != end->context)
        return kiln_error(KILN_ERR_CONTEXT_MISMATCH,
                          "kiln_event_elapsed: the events belong to different "
                          "contexts");
    if (!start->timed || !end->timed)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_event_elapsed: the %s event is untimed "
                          "(kiln_event_create_untimed): time with events "
                          "from kiln_event_create",
                          start->timed ? "end" : "start");
    kiln_status status = event_check_recorded(start, __func__);
    if (status == KILN_OK)
        status = event_check_recorded(end, __func__);
    if (status != KILN_OK)
        return status;
    kiln_context *context = start->context;
    return context->ops->event_elapsed(context->backend, start->backend,
                                       end->backend, milliseconds);
}

kiln_status kiln_event_get_native(const kiln_event *event, void *out,
                                  size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(event, KILN_MAGIC_EVENT, "event");
    KILN_CHECK_OUT(out, "out");
    return event->context->ops->native_handle(
        event->context->backend, KILN_NATIVE_EVENT, event->backend, out, size);
}
