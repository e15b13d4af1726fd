/*
 * Streams (in-order command queues with profiling on) and events
 * (timestamps enqueued in a queue, timed with clGetEventProfilingInfo).
 */
#include "opencl_private.h"

#include <stdlib.h>

/* ---- streams ------------------------------------------------------------- */

kiln_backend_stream *opencl_stream_resolve(kiln_backend_context *context,
                                           kiln_backend_stream *stream)
{
    return stream != NULL ? stream : &context->default_stream;
}

kiln_status opencl_stream_open(kiln_backend_context *context,
                               kiln_backend_stream *stream)
{
    cl_int error = CL_SUCCESS;
    stream->queue =
        clCreateCommandQueue(context->context, context->device->device,
                             CL_QUEUE_PROFILING_ENABLE, &error);
    if (stream->queue == NULL || error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND, "clCreateCommandQueue");
    if (atomic_load(&context->device->timing) == OPENCL_TIMING_FILL) {
        stream->timer = clCreateBuffer(context->context, CL_MEM_READ_WRITE,
                                       sizeof(cl_uint), NULL, &error);
        if (stream->timer == NULL || error != CL_SUCCESS) {
            clReleaseCommandQueue(stream->queue);
            stream->queue = NULL;
            return opencl_fail(error, KILN_ERR_OUT_OF_DEVICE_MEMORY,
                               "clCreateBuffer(event timer)");
        }
    }
    return KILN_OK;
}

void opencl_stream_close(kiln_backend_stream *stream)
{
    /* A queue released with work in it still runs that work (the spec's
     * implicit flush), as a CUDA stream destroyed while busy does. */
    if (stream->timer != NULL)
        clReleaseMemObject(stream->timer);
    if (stream->queue != NULL)
        clReleaseCommandQueue(stream->queue);
    stream->timer = NULL;
    stream->queue = NULL;
}

kiln_status opencl_timing_probe(kiln_backend_context *context)
{
    opencl_device *device = context->device;
    if (atomic_load(&device->timing) != OPENCL_TIMING_UNKNOWN)
        return KILN_OK;
    cl_int error = CL_SUCCESS;
    cl_command_queue queue = clCreateCommandQueue(
        context->context, device->device, CL_QUEUE_PROFILING_ENABLE, &error);
    if (queue == NULL || error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND, "clCreateCommandQueue");
    cl_event marker = NULL;
    cl_ulong end = 0;
    error = clEnqueueMarkerWithWaitList(queue, 0, NULL, &marker);
    if (error == CL_SUCCESS)
        error = clWaitForEvents(1, &marker);
    if (error == CL_SUCCESS)
        error = clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END,
                                        sizeof end, &end, NULL);
    if (marker != NULL)
        clReleaseEvent(marker);
    clReleaseCommandQueue(queue);
    /* Two contexts may probe at once; they find the same answer. */
    int markers = error == CL_SUCCESS && end != 0;
    atomic_store(&device->timing,
                 markers ? OPENCL_TIMING_MARKER : OPENCL_TIMING_FILL);
    opencl_host->trace("opencl: %s: events are %s (marker profiling: %s)",
                       device->info.name,
                       markers ? "markers" : "4-byte fills",
                       error != CL_SUCCESS ? opencl_error_name(error)
                       : end == 0          ? "a zero timestamp"
                                           : "ok");
    return KILN_OK;
}

kiln_status opencl_stream_create(kiln_backend_context *context,
                                 unsigned flags, kiln_backend_stream **stream)
{
    if (flags & KILN_BACKEND_STREAM_HIGH_PRIORITY)
        return KILN_ERR_UNSUPPORTED; /* OpenCL 1.2 queues have none */
    kiln_backend_stream *result = calloc(1, sizeof *result);
    if (result == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    kiln_status status = opencl_stream_open(context, result);
    if (status != KILN_OK) {
        free(result);
        return status;
    }
    pthread_mutex_lock(&context->lock);
    result->next = context->streams;
    if (context->streams != NULL)
        context->streams->previous = result;
    context->streams = result;
    pthread_mutex_unlock(&context->lock);
    *stream = result;
    return KILN_OK;
}

void opencl_stream_destroy(kiln_backend_context *context,
                           kiln_backend_stream *stream)
{
    pthread_mutex_lock(&context->lock);
    if (stream->previous != NULL)
        stream->previous->next = stream->next;
    else
        context->streams = stream->next;
    if (stream->next != NULL)
        stream->next->previous = stream->previous;
    pthread_mutex_unlock(&context->lock);
    opencl_stream_close(stream);
    free(stream);
}

kiln_status opencl_stream_synchronize(kiln_backend_context *context,
                                      kiln_backend_stream *stream)
{
    cl_int error = clFinish(opencl_stream_resolve(context, stream)->queue);
    if (error != CL_SUCCESS)
        return opencl_fail_wait(error, "clFinish");
    return KILN_OK;
}

/* ---- events -------------------------------------------------------------- */

/* The event's cl_event, retained for the caller (NULL if never recorded):
 * a record in another thread may release the old one meanwhile. */
static cl_event event_take(kiln_backend_event *event)
{
    pthread_mutex_lock(&event->lock);
    cl_event handle = event->event;
    if (handle != NULL)
        clRetainEvent(handle);
    pthread_mutex_unlock(&event->lock);
    return handle;
}

cl_event opencl_event_handle(kiln_backend_event *event)
{
    pthread_mutex_lock(&event->lock);
    cl_event handle = event->event;
    pthread_mutex_unlock(&event->lock);
    return handle;
}

kiln_status opencl_stream_wait_event(kiln_backend_context *context,
                                     kiln_backend_stream *stream,
                                     kiln_backend_event *event)
{
    cl_event handle = event_take(event);
    if (handle == NULL)
        return KILN_OK;
    cl_int error = clEnqueueBarrierWithWaitList(
        opencl_stream_resolve(context, stream)->queue, 1, &handle, NULL);
    clReleaseEvent(handle);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clEnqueueBarrierWithWaitList");
    return KILN_OK;
}

kiln_status opencl_event_create(kiln_backend_context *context,
                                unsigned flags, kiln_backend_event **event)
{
    (void)context;
    kiln_backend_event *result = calloc(1, sizeof *result);
    if (result == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    if (pthread_mutex_init(&result->lock, NULL) != 0) {
        free(result);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: pthread_mutex_init failed");
    }
    result->untimed = (flags & KILN_BACKEND_EVENT_TIMED) == 0;
    *event = result;
    return KILN_OK;
}

void opencl_event_destroy(kiln_backend_context *context,
                          kiln_backend_event *event)
{
    (void)context;
    if (event->event != NULL)
        clReleaseEvent(event->event);
    pthread_mutex_destroy(&event->lock);
    free(event);
}

kiln_status opencl_event_record(kiln_backend_context *context,
                                kiln_backend_event *event,
                                kiln_backend_stream *stream)
{
    kiln_backend_stream *target = opencl_stream_resolve(context, stream);
    cl_event handle = NULL;
    cl_int error;
    if (target->timer != NULL && !event->untimed) {
        static const cl_uint zero = 0;
        error = clEnqueueFillBuffer(target->queue, target->timer, &zero,
                                    sizeof zero, 0, sizeof zero, 0, NULL,
                                    &handle);
        if (error != CL_SUCCESS)
            return opencl_fail(error, KILN_ERR_BACKEND,
                               "clEnqueueFillBuffer(event timestamp)");
    } else {
        error = clEnqueueMarkerWithWaitList(target->queue, 0, NULL, &handle);
        if (error != CL_SUCCESS)
            return opencl_fail(error, KILN_ERR_BACKEND,
                               "clEnqueueMarkerWithWaitList");
    }
    /* Submitted now, so that a thread polling event_query sees progress
     * (drivers may hold commands until a flush). */
    error = clFlush(target->queue);
    pthread_mutex_lock(&event->lock);
    cl_event previous = event->event;
    event->event = handle;
    pthread_mutex_unlock(&event->lock);
    if (previous != NULL)
        clReleaseEvent(previous);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND, "clFlush");
    return KILN_OK;
}

/* KILN_ERR_KERNEL_FAULT when the command behind `handle` ended in an error
 * (its execution status is then that error code). */
static kiln_status event_failed(cl_event handle, const char *call)
{
    cl_int state = CL_COMPLETE;
    cl_int error = clGetEventInfo(handle, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof state, &state, NULL);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)");
    if (state < 0)
        return opencl_host->error(KILN_ERR_KERNEL_FAULT,
                                  "%s: the work before the event failed: %s "
                                  "(%d)",
                                  call, opencl_error_name(state), (int)state);
    return KILN_OK;
}

kiln_status opencl_event_synchronize(kiln_backend_context *context,
                                     kiln_backend_event *event)
{
    (void)context;
    cl_event handle = event_take(event);
    if (handle == NULL)
        return KILN_OK;
    cl_int error = clWaitForEvents(1, &handle);
    kiln_status status = error == CL_SUCCESS
                             ? event_failed(handle, "clWaitForEvents")
                             : opencl_fail_wait(error, "clWaitForEvents");
    clReleaseEvent(handle);
    return status;
}

kiln_status opencl_event_query(kiln_backend_context *context,
                               kiln_backend_event *event)
{
    (void)context;
    cl_event handle = event_take(event);
    if (handle == NULL)
        return KILN_OK;
    cl_int state = CL_COMPLETE;
    cl_int error = clGetEventInfo(handle, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof state, &state, NULL);
    clReleaseEvent(handle);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)");
    if (state < 0)
        return opencl_host->error(KILN_ERR_KERNEL_FAULT,
                                  "clGetEventInfo: the work before the event "
                                  "failed: %s (%d)",
                                  opencl_error_name(state), (int)state);
    /* Not ready is an answer, not an error: no message. */
    return state == CL_COMPLETE ? KILN_OK : KILN_ERR_NOT_READY;
}

static kiln_status event_time(cl_event handle, cl_ulong *nanoseconds)
{
    cl_int error = clGetEventProfilingInfo(handle, CL_PROFILING_COMMAND_END,
                                           sizeof *nanoseconds, nanoseconds,
                                           NULL);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)");
    return KILN_OK;
}

kiln_status opencl_event_elapsed(kiln_backend_context *context,
                                 kiln_backend_event *start,
                                 kiln_backend_event *end, float *milliseconds)
{
    (void)context;
    cl_event handles[2] = {event_take(start), event_take(end)};
    kiln_status status = KILN_OK;
    if (handles[0] == NULL || handles[1] == NULL)
        status = opencl_host->error(KILN_ERR_INVALID_ARGUMENT,
                                    "opencl: an event was never recorded");
    if (status == KILN_OK) {
        cl_int error = clWaitForEvents(2, handles);
        if (error != CL_SUCCESS)
            status = opencl_fail_wait(error, "clWaitForEvents");
    }
    cl_ulong times[2] = {0, 0};
    for (int i = 0; i < 2 && status == KILN_OK; ++i)
        status = event_time(handles[i], &times[i]);
    if (status == KILN_OK) {
        /* Either order: an end recorded before the start is negative. */
        double nanoseconds = times[1] >= times[0]
                                 ? (double)(times[1] - times[0])
                                 : -(double)(times[0] - times[1]);
        *milliseconds = (float)(nanoseconds / 1e6);
    }
    for (int i = 0; i < 2; ++i)
        if (handles[i] != NULL)
            clReleaseEvent(handles[i]);
    return status;
}
