/*
 * Device buffers (cl_mem) and page-locked host memory.
 *
 * OpenCL has no call that returns pinned host memory; the portable way
 * (NVIDIA's and AMD's guides both describe it) is a CL_MEM_ALLOC_HOST_PTR
 * buffer mapped once: the driver backs it with memory the device can reach
 * directly, and the mapped pointer serves as the host side of transfers.
 */
#include "opencl_private.h"

#include <stdlib.h>

kiln_status opencl_memory_alloc(kiln_backend_context *context, size_t size,
                                kiln_backend_memory **memory)
{
    kiln_backend_memory *result = malloc(sizeof *result);
    if (result == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    cl_int error = CL_SUCCESS;
    result->buffer =
        clCreateBuffer(context->context, CL_MEM_READ_WRITE, size, NULL, &error);
    result->size = size;
    if (result->buffer == NULL || error != CL_SUCCESS) {
        free(result);
        /* Past the device's largest allocation the size itself is wrong;
         * any other failure is the device being full. */
        return opencl_fail(error,
                           error == CL_INVALID_BUFFER_SIZE
                               ? KILN_ERR_INVALID_SIZE
                               : KILN_ERR_OUT_OF_DEVICE_MEMORY,
                           "clCreateBuffer(%zu bytes)", size);
    }
    *memory = result;
    return KILN_OK;
}

kiln_status opencl_memory_view(kiln_backend_context *context,
                               kiln_backend_memory *memory, size_t offset,
                               size_t size, kiln_backend_memory **view)
{
    cl_uint align_bits = 0;
    cl_int error = clGetDeviceInfo(context->device->device,
                                   CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                                   sizeof align_bits, &align_bits, NULL);
    size_t align = error == CL_SUCCESS && align_bits >= 8 ? align_bits / 8 : 1;
    if (offset % align != 0)
        return opencl_host->error(
            KILN_ERR_UNSUPPORTED,
            "OpenCL cannot start a buffer at byte %zu of another: sub-buffers "
            "start at multiples of %zu bytes on %s "
            "(CL_DEVICE_MEM_BASE_ADDR_ALIGN); CUDA C kernels take any "
            "offset, OpenCL C kernels need the offset as an argument of "
            "their own",
            offset, align, context->device->info.name);
    kiln_backend_memory *result = malloc(sizeof *result);
    if (result == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    /* A sub-buffer cannot have sub-buffers: a view of one (the checked
     * mode's guarded buffers are) is made from its parent. */
    cl_mem whole = memory->buffer, parent = NULL;
    size_t parent_offset = 0;
    if (clGetMemObjectInfo(whole, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent,
                           &parent, NULL) == CL_SUCCESS &&
        parent != NULL &&
        clGetMemObjectInfo(whole, CL_MEM_OFFSET, sizeof parent_offset,
                           &parent_offset, NULL) == CL_SUCCESS) {
        whole = parent;
        offset += parent_offset;
    }
    cl_buffer_region region = {.origin = offset, .size = size};
    error = CL_SUCCESS;
    result->buffer =
        clCreateSubBuffer(whole, CL_MEM_READ_WRITE,
                          CL_BUFFER_CREATE_TYPE_REGION, &region, &error);
    result->size = size;
    if (result->buffer == NULL || error != CL_SUCCESS) {
        free(result);
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clCreateSubBuffer(%zu bytes at %zu)", size,
                           offset);
    }
    *view = result;
    return KILN_OK;
}

void opencl_memory_free(kiln_backend_context *context,
                        kiln_backend_memory *memory)
{
    (void)context;
    /* Commands already queued on it keep it alive until they finish. */
    clReleaseMemObject(memory->buffer);
    free(memory);
}

kiln_status opencl_memory_write(kiln_backend_context *context,
                                kiln_backend_stream *stream,
                                kiln_backend_memory *memory, size_t offset,
                                const void *host, size_t size, int blocking)
{
    cl_int error = clEnqueueWriteBuffer(
        opencl_stream_resolve(context, stream)->queue, memory->buffer,
        blocking ? CL_TRUE : CL_FALSE, offset, size, host, 0, NULL, NULL);
    if (error == CL_SUCCESS)
        return KILN_OK;
    if (blocking)
        return opencl_fail_wait(error, "clEnqueueWriteBuffer(%zu bytes at %zu)",
                                size, offset);
    return opencl_fail(error, KILN_ERR_BACKEND,
                       "clEnqueueWriteBuffer(%zu bytes at %zu)", size, offset);
}

kiln_status opencl_memory_read(kiln_backend_context *context,
                               kiln_backend_stream *stream,
                               kiln_backend_memory *memory, size_t offset,
                               void *host, size_t size, int blocking)
{
    cl_int error = clEnqueueReadBuffer(
        opencl_stream_resolve(context, stream)->queue, memory->buffer,
        blocking ? CL_TRUE : CL_FALSE, offset, size, host, 0, NULL, NULL);
    if (error == CL_SUCCESS)
        return KILN_OK;
    if (blocking)
        return opencl_fail_wait(error, "clEnqueueReadBuffer(%zu bytes at %zu)",
                                size, offset);
    return opencl_fail(error, KILN_ERR_BACKEND,
                       "clEnqueueReadBuffer(%zu bytes at %zu)", size, offset);
}

/* Waits for the command behind `event` (when `blocking`) and releases it. */
static kiln_status command_finish(cl_event event, int blocking,
                                  const char *call)
{
    if (event == NULL)
        return KILN_OK;
    kiln_status status = KILN_OK;
    if (blocking) {
        cl_int error = clWaitForEvents(1, &event);
        if (error != CL_SUCCESS)
            status = opencl_fail_wait(error, "clWaitForEvents(%s)", call);
    }
    clReleaseEvent(event);
    return status;
}

kiln_status opencl_memory_copy(kiln_backend_context *context,
                               kiln_backend_stream *stream,
                               kiln_backend_memory *destination,
                               size_t destination_offset,
                               kiln_backend_memory *source,
                               size_t source_offset, size_t size, int blocking)
{
    cl_event event = NULL;
    cl_int error = clEnqueueCopyBuffer(
        opencl_stream_resolve(context, stream)->queue, source->buffer,
        destination->buffer, source_offset, destination_offset, size, 0, NULL,
        blocking ? &event : NULL);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clEnqueueCopyBuffer(%zu bytes)", size);
    return command_finish(event, blocking, "clEnqueueCopyBuffer");
}

kiln_status opencl_memory_fill(kiln_backend_context *context,
                               kiln_backend_stream *stream,
                               kiln_backend_memory *memory, size_t offset,
                               size_t size, const void *pattern,
                               size_t pattern_size, int blocking)
{
    cl_event event = NULL;
    cl_int error = clEnqueueFillBuffer(
        opencl_stream_resolve(context, stream)->queue, memory->buffer, pattern,
        pattern_size, offset, size, 0, NULL, blocking ? &event : NULL);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clEnqueueFillBuffer(%zu bytes, pattern of %zu)",
                           size, pattern_size);
    return command_finish(event, blocking, "clEnqueueFillBuffer");
}

/* ---- page-locked host memory --------------------------------------------- */

kiln_status opencl_host_alloc(kiln_backend_context *context, size_t size,
                              void **host)
{
    opencl_host_block *block = calloc(1, sizeof *block);
    if (block == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    cl_int error = CL_SUCCESS;
    block->buffer =
        clCreateBuffer(context->context,
                       CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL,
                       &error);
    if (block->buffer == NULL || error != CL_SUCCESS) {
        free(block);
        return opencl_fail(error,
                           error == CL_INVALID_BUFFER_SIZE
                               ? KILN_ERR_INVALID_SIZE
                               : KILN_ERR_OUT_OF_HOST_MEMORY,
                           "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR, %zu bytes)",
                           size);
    }
    block->pointer = clEnqueueMapBuffer(
        context->default_stream.queue, block->buffer, CL_TRUE,
        CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, &error);
    if (block->pointer == NULL || error != CL_SUCCESS) {
        clReleaseMemObject(block->buffer);
        free(block);
        /* Drivers allocate a buffer at its first use, here the map: a
         * failure to allocate is the host's memory running out. */
        if (error == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
            error == CL_OUT_OF_RESOURCES)
            return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                      "clEnqueueMapBuffer(%zu bytes): %s (%d)",
                                      size, opencl_error_name(error),
                                      (int)error);
        return opencl_fail(error, KILN_ERR_OUT_OF_HOST_MEMORY,
                           "clEnqueueMapBuffer(%zu bytes)", size);
    }
    pthread_mutex_lock(&context->lock);
    block->next = context->host_blocks;
    context->host_blocks = block;
    pthread_mutex_unlock(&context->lock);
    *host = block->pointer;
    return KILN_OK;
}

static void host_block_release(kiln_backend_context *context,
                               opencl_host_block *block)
{
    /* Unmapping is a command: it must be done before the buffer goes.  A
     * failure here leaves nothing to report to (free cannot fail). */
    cl_event event = NULL;
    if (clEnqueueUnmapMemObject(context->default_stream.queue, block->buffer,
                                block->pointer, 0, NULL, &event) ==
            CL_SUCCESS &&
        event != NULL) {
        clWaitForEvents(1, &event);
        clReleaseEvent(event);
    }
    clReleaseMemObject(block->buffer);
    free(block);
}

void opencl_host_free(kiln_backend_context *context, void *host)
{
    pthread_mutex_lock(&context->lock);
    opencl_host_block **link = &context->host_blocks;
    while (*link != NULL && (*link)->pointer != host)
        link = &(*link)->next;
    opencl_host_block *block = *link;
    if (block != NULL)
        *link = block->next;
    pthread_mutex_unlock(&context->lock);
    /* The core only frees what it allocated here, so block is found. */
    if (block != NULL)
        host_block_release(context, block);
}

void opencl_host_free_all(kiln_backend_context *context)
{
    pthread_mutex_lock(&context->lock);
    opencl_host_block *block = context->host_blocks;
    context->host_blocks = NULL;
    pthread_mutex_unlock(&context->lock);
    while (block != NULL) {
        opencl_host_block *next = block->next;
        host_block_release(context, block);
        block = next;
    }
}
