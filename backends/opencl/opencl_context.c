/*
 * Contexts: one cl_context on one device, with a default in-order queue
 * that has profiling on (events are timed from it), and the native handles.
 */
#include "opencl_private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kiln_status opencl_context_create(int index, kiln_backend_context **context)
{
    opencl_device *device = opencl_device_get(index);
    if (device == NULL)
        return opencl_host->error(KILN_ERR_NO_DEVICE, "opencl: no device %d",
                                  index);
    kiln_backend_context *result = calloc(1, sizeof *result);
    if (result == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    result->device = device;
    if (pthread_mutex_init(&result->lock, NULL) != 0) {
        free(result);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: pthread_mutex_init failed");
    }
    cl_context_properties properties[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)device->platform, 0};
    cl_int error = CL_SUCCESS;
    result->context =
        clCreateContext(properties, 1, &device->device, NULL, NULL, &error);
    if (result->context == NULL || error != CL_SUCCESS) {
        pthread_mutex_destroy(&result->lock);
        free(result);
        return opencl_fail(error, KILN_ERR_BACKEND, "clCreateContext(%s)",
                           device->info.name);
    }
    kiln_status status = opencl_timing_probe(result);
    if (status == KILN_OK)
        status = opencl_stream_open(result, &result->default_stream);
    if (status != KILN_OK) {
        clReleaseContext(result->context);
        pthread_mutex_destroy(&result->lock);
        free(result);
        return status;
    }
    *context = result;
    return KILN_OK;
}

void opencl_context_destroy(kiln_backend_context *context)
{
    /* The core releases every child first; what work is still queued on
     * the default queue must end before the context goes. */
    clFinish(context->default_stream.queue);
    opencl_host_free_all(context);
    opencl_stream_close(&context->default_stream);
    clReleaseContext(context->context);
    pthread_mutex_destroy(&context->lock);
    free(context);
}

kiln_status opencl_context_synchronize(kiln_backend_context *context)
{
    /* The queues are retained under the lock, then waited for without it,
     * so that a stream destroyed meanwhile stays valid until finished. */
    pthread_mutex_lock(&context->lock);
    size_t count = 1;
    for (kiln_backend_stream *s = context->streams; s != NULL; s = s->next)
        ++count;
    cl_command_queue stack[16];
    cl_command_queue *queues =
        count <= 16 ? stack : malloc(count * sizeof *queues);
    if (queues == NULL) {
        pthread_mutex_unlock(&context->lock);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    }
    size_t n = 0;
    queues[n++] = context->default_stream.queue;
    for (kiln_backend_stream *s = context->streams; s != NULL; s = s->next)
        queues[n++] = s->queue;
    for (size_t i = 0; i < n; ++i)
        clRetainCommandQueue(queues[i]);
    pthread_mutex_unlock(&context->lock);

    kiln_status status = KILN_OK;
    for (size_t i = 0; i < n; ++i) {
        cl_int error = clFinish(queues[i]);
        if (error != CL_SUCCESS && status == KILN_OK)
            status = opencl_fail_wait(error, "clFinish");
        clReleaseCommandQueue(queues[i]);
    }
    if (queues != stack)
        free(queues);
    return status;
}

kiln_status opencl_context_cache_identity(kiln_backend_context *context,
                                          char *buffer, size_t size)
{
    const char *identity = context->device->identity;
    if (strlen(identity) >= size)
        return opencl_host->error(KILN_ERR_INVALID_SIZE,
                                  "opencl: the cache identity needs %zu bytes, "
                                  "%zu given",
                                  strlen(identity) + 1, size);
    memcpy(buffer, identity, strlen(identity) + 1);
    return KILN_OK;
}

kiln_status opencl_context_native_handle(kiln_backend_context *context,
                                         kiln_native_kind kind,
                                         const void *object, void *out,
                                         size_t size)
{
    /* Every OpenCL handle is a pointer to an opaque struct; the object
     * pointer is only needed for the objects Kiln creates below a context. */
    const void *handle = NULL;
    const char *what = NULL;
    switch (kind) {
    case KILN_NATIVE_CONTEXT:
        handle = context->context;
        what = "cl_context";
        break;
    case KILN_NATIVE_DEVICE:
        handle = context->device->device;
        what = "cl_device_id";
        break;
    case KILN_NATIVE_STREAM:
        handle = opencl_stream_resolve(
                     context, (kiln_backend_stream *)(uintptr_t)object)
                     ->queue;
        what = "cl_command_queue";
        break;
    case KILN_NATIVE_MEMORY:
        if (object != NULL)
            handle = ((const kiln_backend_memory *)object)->buffer;
        what = "cl_mem";
        break;
    case KILN_NATIVE_EVENT:
        if (object != NULL)
            handle = opencl_event_handle(
                (kiln_backend_event *)(uintptr_t)object);
        what = "cl_event";
        break;
    case KILN_NATIVE_KERNEL:
        if (object != NULL)
            handle = ((const kiln_backend_kernel *)object)->kernel;
        what = "cl_kernel";
        break;
    default:
        return opencl_host->error(KILN_ERR_INVALID_ARGUMENT,
                                  "opencl: unknown native handle kind %d",
                                  (int)kind);
    }
    if (object == NULL && (kind == KILN_NATIVE_MEMORY ||
                           kind == KILN_NATIVE_EVENT ||
                           kind == KILN_NATIVE_KERNEL))
        return opencl_host->error(KILN_ERR_INVALID_ARGUMENT,
                                  "opencl: a %s needs its object", what);
    /* cl_context, cl_mem, ... are all pointers to structs. */
    if (size != sizeof(cl_context))
        return opencl_host->error(KILN_ERR_INVALID_ARGUMENT,
                                  "opencl: a %s is %zu bytes, not %zu", what,
                                  sizeof(cl_context), size);
    memcpy(out, &handle, sizeof handle);
    return KILN_OK;
}
