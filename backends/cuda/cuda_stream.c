/*
 * Streams and events.
 *
 * Kiln streams are blocking CUDA streams (CU_STREAM_DEFAULT, not
 * CU_STREAM_NON_BLOCKING): work on them is ordered after work queued
 * earlier on the legacy default stream, and the reverse.  The core's
 * memory pool relies on that when it hands a block freed on one stream to
 * work on another.  A high-priority stream is the same with the context's
 * greatest priority.  Events keep timing enabled: they time launches.
 */
#include "cuda_private.h"

#include <stdlib.h>

/* A blocking stream of the given priority (0: the default, the lowest). */
static kiln_status stream_create_prioritized(kiln_backend_context *context,
                                             int priority,
                                             kiln_backend_stream **stream)
{
    kiln_backend_stream *result = malloc(sizeof *result);
    if (result == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    CUresult failed = cuStreamCreateWithPriority(&result->stream,
                                                 CU_STREAM_DEFAULT, priority);
    if (failed != CUDA_SUCCESS) {
        free(result);
        return cuda_fail(context->device, failed, KILN_ERR_BACKEND,
                         "cuStreamCreateWithPriority(%d)", priority);
    }
    *stream = result;
    return KILN_OK;
}

kiln_status cuda_stream_create(kiln_backend_context *context, unsigned flags,
                               kiln_backend_stream **stream)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    if (!(flags & KILN_BACKEND_STREAM_HIGH_PRIORITY))
        return stream_create_prioritized(context, 0, stream);
    /* Lower numbers are higher priorities; equal bounds: none. */
    int least = 0, greatest = 0;
    CUresult failed = cuCtxGetStreamPriorityRange(&least, &greatest);
    if (failed != CUDA_SUCCESS)
        return cuda_fail(context->device, failed, KILN_ERR_BACKEND,
                         "cuCtxGetStreamPriorityRange");
    if (greatest == least)
        return KILN_ERR_UNSUPPORTED;
    return stream_create_prioritized(context, greatest, stream);
}

void cuda_stream_destroy(kiln_backend_context *context,
                         kiln_backend_stream *stream)
{
    /* Work still queued completes; the driver frees the stream after. */
    (void)cuda_context_bind(context);
    (void)cuStreamDestroy(stream->stream);
    free(stream);
}

kiln_status cuda_stream_synchronize(kiln_backend_context *context,
                                    kiln_backend_stream *stream)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUresult result = cuStreamSynchronize(cuda_stream_of(stream));
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuStreamSynchronize");
    return KILN_OK;
}

kiln_status cuda_stream_wait_event(kiln_backend_context *context,
                                   kiln_backend_stream *stream,
                                   kiln_backend_event *event)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUresult result =
        cuStreamWaitEvent(cuda_stream_of(stream), event->event, 0);
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuStreamWaitEvent");
    return KILN_OK;
}

kiln_status cuda_stream_wait_event_peer(kiln_backend_context *context,
                                        kiln_backend_stream *stream,
                                        kiln_backend_context *event_context,
                                        kiln_backend_event *event)
{
    /* cuStreamWaitEvent takes an event of any context, on any GPU: the
     * wait happens on the device, the host goes on. */
    (void)event_context;
    return cuda_stream_wait_event(context, stream, event);
}

kiln_status cuda_event_create(kiln_backend_context *context, unsigned flags,
                              kiln_backend_event **event)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    kiln_backend_event *result = malloc(sizeof *result);
    if (result == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    CUresult failed = cuEventCreate(&result->event,
                                    flags & KILN_BACKEND_EVENT_TIMED
                                        ? CU_EVENT_DEFAULT
                                        : CU_EVENT_DISABLE_TIMING);
    if (failed != CUDA_SUCCESS) {
        free(result);
        return cuda_fail(context->device, failed, KILN_ERR_BACKEND,
                         "cuEventCreate");
    }
    *event = result;
    return KILN_OK;
}

void cuda_event_destroy(kiln_backend_context *context,
                        kiln_backend_event *event)
{
    (void)cuda_context_bind(context);
    (void)cuEventDestroy(event->event);
    free(event);
}

kiln_status cuda_event_record(kiln_backend_context *context,
                              kiln_backend_event *event,
                              kiln_backend_stream *stream)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUresult result = cuEventRecord(event->event, cuda_stream_of(stream));
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuEventRecord");
    return KILN_OK;
}

kiln_status cuda_event_synchronize(kiln_backend_context *context,
                                   kiln_backend_event *event)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUresult result = cuEventSynchronize(event->event);
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuEventSynchronize");
    return KILN_OK;
}

kiln_status cuda_event_query(kiln_backend_context *context,
                             kiln_backend_event *event)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUresult result = cuEventQuery(event->event);
    if (result == CUDA_ERROR_NOT_READY)
        return KILN_ERR_NOT_READY; /* not an error: no message */
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuEventQuery");
    return KILN_OK;
}

kiln_status cuda_event_elapsed(kiln_backend_context *context,
                               kiln_backend_event *start,
                               kiln_backend_event *end, float *milliseconds)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    /* cuEventElapsedTime answers CUDA_ERROR_NOT_READY until both events
     * have completed: wait for them (start first; it may be on another
     * stream than end). */
    const char *call = "cuEventSynchronize";
    CUresult result = cuEventSynchronize(start->event);
    if (result == CUDA_SUCCESS)
        result = cuEventSynchronize(end->event);
    if (result == CUDA_SUCCESS) {
        call = "cuEventElapsedTime";
        result = cuEventElapsedTime(milliseconds, start->event, end->event);
    }
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND, "%s",
                         call);
    return KILN_OK;
}
