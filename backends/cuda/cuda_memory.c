/*
 * Device memory, transfers, fills and page-locked host memory.
 *
 * Blocking transfers on the default stream use the driver's synchronous
 * copies, which are ordered after all work already queued on the legacy
 * default stream (and so, through its implicit synchronisation, after work
 * on Kiln's blocking streams) and return once the host memory may be
 * reused (a write from pageable memory may still be landing then: see
 * "Writes still landing" below).  Blocking transfers on a Kiln stream are
 * the asynchronous copy followed by a wait for that stream.
 * Device-to-device copies and memsets are asynchronous even in their
 * "synchronous" driver forms, so blocking ones always wait for their
 * stream.
 */
#include "cuda_private.h"

#include <stdlib.h>
#include <string.h>

kiln_status cuda_memory_alloc(kiln_backend_context *context, size_t size,
                              kiln_backend_memory **memory)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    kiln_backend_memory *result = malloc(sizeof *result);
    if (result == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    CUresult failed = cuMemAlloc(&result->pointer, size);
    if (failed != CUDA_SUCCESS) {
        free(result);
        return cuda_fail(context->device, failed, KILN_ERR_BACKEND,
                         "cuMemAlloc(%zu bytes)", size);
    }
    result->size = size;
    result->is_view = false;
    result->ipc_base = 0;
    *memory = result;
    return KILN_OK;
}

kiln_status cuda_memory_view(kiln_backend_context *context,
                             kiln_backend_memory *memory, size_t offset,
                             size_t size, kiln_backend_memory **view)
{
    (void)context;
    kiln_backend_memory *result = malloc(sizeof *result);
    if (result == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    result->pointer = memory->pointer + offset;
    result->size = size;
    result->is_view = true;
    result->ipc_base = 0;
    *view = result;
    return KILN_OK;
}

void cuda_memory_free(kiln_backend_context *context,
                      kiln_backend_memory *memory)
{
    if (memory->ipc_base != 0) {
        /* Another process's memory: work queued here on it must end
         * before the mapping goes. */
        (void)cuda_context_bind(context);
        (void)cuCtxSynchronize();
        (void)cuIpcCloseMemHandle(memory->ipc_base);
    } else if (!memory->is_view) {
        /* Frees must go on after a fault too: errors change nothing. */
        (void)cuda_context_bind(context);
        (void)cuMemFree(memory->pointer);
    }
    free(memory);
}

/* What crosses to the other process: the allocation's handle and where
 * the buffer starts in it (a pool block or a checked buffer's view need
 * not start at its allocation's base, which is what the handle names). */
typedef struct cuda_ipc_payload {
    CUipcMemHandle handle;
    uint64_t offset;
} cuda_ipc_payload;

kiln_status cuda_memory_ipc_export(kiln_backend_context *context,
                                   kiln_backend_memory *memory, void *handle,
                                   size_t *size)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    if (*size < sizeof(cuda_ipc_payload))
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "an IPC handle needs %zu bytes, %zu given",
                                sizeof(cuda_ipc_payload), *size);
    cuda_ipc_payload payload;
    memset(&payload, 0, sizeof payload);
    CUdeviceptr base = 0;
    size_t extent = 0;
    const char *call = "cuMemGetAddressRange";
    CUresult result = cuMemGetAddressRange(&base, &extent, memory->pointer);
    if (result == CUDA_SUCCESS) {
        call = "cuIpcGetMemHandle";
        result = cuIpcGetMemHandle(&payload.handle, base);
    }
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "%s(device %d)", call, context->device->ordinal);
    payload.offset = (uint64_t)(memory->pointer - base);
    memcpy(handle, &payload, sizeof payload);
    *size = sizeof payload;
    return KILN_OK;
}

kiln_status cuda_memory_ipc_open(kiln_backend_context *context,
                                 const void *handle, size_t handle_size,
                                 size_t size, kiln_backend_memory **memory)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    if (handle_size != sizeof(cuda_ipc_payload))
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "the handle holds %zu bytes of CUDA data; a "
                                "CUDA IPC handle is %zu",
                                handle_size, sizeof(cuda_ipc_payload));
    cuda_ipc_payload payload;
    memcpy(&payload, handle, sizeof payload);
    kiln_backend_memory *result = calloc(1, sizeof *result);
    if (result == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    /* Lazy peer access: a GPU other than the exporter's maps the memory
     * over NVLink or PCIe; without peer access the open fails. */
    CUdeviceptr base = 0;
    CUresult result_code = cuIpcOpenMemHandle(
        &base, payload.handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (result_code != CUDA_SUCCESS) {
        free(result);
        return cuda_fail(context->device, result_code, KILN_ERR_BACKEND,
                         "cuIpcOpenMemHandle(on device %d)",
                         context->device->ordinal);
    }
    /* The exporter's buffer must hold what the handle says it does. */
    CUdeviceptr range_base = 0;
    size_t extent = 0;
    result_code = cuMemGetAddressRange(&range_base, &extent, base);
    if (result_code == CUDA_SUCCESS &&
        (payload.offset > extent || size > extent - payload.offset)) {
        (void)cuIpcCloseMemHandle(base);
        free(result);
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "the handle names %zu bytes at offset %llu of "
                                "an allocation of %zu bytes",
                                size, (unsigned long long)payload.offset,
                                extent);
    }
    result->ipc_base = base;
    result->pointer = base + payload.offset;
    result->size = size;
    *memory = result;
    return KILN_OK;
}

/* Waits for `stream` when the op is blocking and the copy was queued. */
static CUresult cuda_memory_finish(CUresult result, CUstream stream,
                                   int blocking, const char **call)
{
    if (result != CUDA_SUCCESS || !blocking)
        return result;
    *call = "cuStreamSynchronize";
    return cuStreamSynchronize(stream);
}

kiln_status cuda_memory_write(kiln_backend_context *context,
                              kiln_backend_stream *stream,
                              kiln_backend_memory *memory, size_t offset,
                              const void *host, size_t size, int blocking)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUdeviceptr destination = memory->pointer + offset;
    CUresult result;
    const char *call;
    if (blocking && stream == NULL) {
        /* From pageable memory cuMemcpyHtoD returns once the bytes are
         * staged, with the last DMA still running: this context's later
         * work is ordered after it; a copy another context queues waits
         * for the writes counted here (landing_order). */
        call = "cuMemcpyHtoD";
        result = cuMemcpyHtoD(destination, host, size);
        if (result == CUDA_SUCCESS)
            atomic_fetch_add(&context->device->writes_queued, 1);
    } else {
        CUstream queue = cuda_stream_of(stream);
        call = "cuMemcpyHtoDAsync";
        result = cuda_memory_finish(
            cuMemcpyHtoDAsync(destination, host, size, queue), queue, blocking,
            &call);
    }
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "%s(%zu bytes at offset %zu)", call, size, offset);
    return KILN_OK;
}

kiln_status cuda_memory_read(kiln_backend_context *context,
                             kiln_backend_stream *stream,
                             kiln_backend_memory *memory, size_t offset,
                             void *host, size_t size, int blocking)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUdeviceptr source = memory->pointer + offset;
    CUresult result;
    const char *call;
    if (blocking && stream == NULL) {
        call = "cuMemcpyDtoH";
        result = cuMemcpyDtoH(host, source, size);
    } else {
        CUstream queue = cuda_stream_of(stream);
        call = "cuMemcpyDtoHAsync";
        result = cuda_memory_finish(
            cuMemcpyDtoHAsync(host, source, size, queue), queue, blocking,
            &call);
    }
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "%s(%zu bytes at offset %zu)", call, size, offset);
    return KILN_OK;
}

kiln_status cuda_memory_copy(kiln_backend_context *context,
                             kiln_backend_stream *stream,
                             kiln_backend_memory *destination,
                             size_t destination_offset,
                             kiln_backend_memory *source,
                             size_t source_offset, size_t size, int blocking)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUstream queue = cuda_stream_of(stream);
    const char *call = "cuMemcpyDtoDAsync";
    CUresult result = cuda_memory_finish(
        cuMemcpyDtoDAsync(destination->pointer + destination_offset,
                          source->pointer + source_offset, size, queue),
        queue, blocking, &call);
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "%s(%zu bytes)", call, size);
    return KILN_OK;
}

/*
 * Copies between two Kiln contexts.  On one GPU they share its primary
 * context, so this is an ordinary device copy.  Between two GPUs it is
 * cuMemcpyPeer: direct over NVLink or PCIe once peer access is enabled
 * (where cuDeviceCanAccessPeer allows it), else staged by the driver.
 */

/*
 * Writes still landing.  From pageable memory cuMemcpyHtoD returns once the
 * bytes are staged, with the last DMA still running on the legacy stream:
 * this context's later work is ordered after it, a copy that another
 * context queues is not, and read the old bytes (issue 28).  So blocking
 * writes are counted per device, and a copy between contexts waits, on the
 * device, for an event recorded on the other device's legacy stream after
 * the writes it has not yet covered; once that event has completed, copies
 * go on without a wait until the next write.  Not an event for every
 * copy: one recorded on the legacy stream also waits for every kernel
 * queued on the context's blocking streams, so each halo copy of a stencil
 * (examples/multi_device_jacobi) would wait for the other GPU's interior
 * kernel, and the halo exchange would no longer overlap it.
 */
void cuda_memory_landing_forget(cuda_device *device)
{
    pthread_mutex_lock(&device->landing_lock);
    if (device->landing != NULL)
        (void)cuEventDestroy(device->landing);
    device->landing = NULL;
    device->writes_covered = atomic_load(&device->writes_queued);
    device->landing_complete = true;
    pthread_mutex_unlock(&device->landing_lock);
}

/* Makes `queue` (of `stream_context`, current) wait for the blocking
 * writes queued on `writer`'s device that may still be landing; leaves
 * `stream_context` current. */
static CUresult landing_order(kiln_backend_context *writer,
                              kiln_backend_context *stream_context,
                              CUstream queue, const char **call)
{
    cuda_device *device = writer->device;
    CUresult result = CUDA_SUCCESS;
    pthread_mutex_lock(&device->landing_lock);
    uint64_t queued = atomic_load(&device->writes_queued);
    if (queued != device->writes_covered || !device->landing_complete) {
        *call = "cuCtxSetCurrent";
        result = cuCtxSetCurrent(writer->context);
        if (result == CUDA_SUCCESS && queued != device->writes_covered) {
            if (device->landing == NULL) {
                *call = "cuEventCreate";
                result =
                    cuEventCreate(&device->landing, CU_EVENT_DISABLE_TIMING);
                if (result != CUDA_SUCCESS)
                    device->landing = NULL;
            }
            if (result == CUDA_SUCCESS) {
                *call = "cuEventRecord";
                result = cuEventRecord(device->landing, NULL);
            }
            if (result == CUDA_SUCCESS) {
                device->writes_covered = queued;
                device->landing_complete = false;
            }
        } else if (result == CUDA_SUCCESS) {
            /* No new write: has the last record completed meanwhile? */
            *call = "cuEventQuery";
            result = cuEventQuery(device->landing);
            if (result == CUDA_SUCCESS)
                device->landing_complete = true;
            else if (result == CUDA_ERROR_NOT_READY)
                result = CUDA_SUCCESS;
        }
        CUresult back = cuCtxSetCurrent(stream_context->context);
        if (result == CUDA_SUCCESS && back != CUDA_SUCCESS) {
            *call = "cuCtxSetCurrent";
            result = back;
        }
        if (result == CUDA_SUCCESS && !device->landing_complete) {
            *call = "cuStreamWaitEvent";
            result = cuStreamWaitEvent(queue, device->landing, 0);
        }
    }
    pthread_mutex_unlock(&device->landing_lock);
    return result;
}

kiln_status cuda_memory_copy_peer(
    kiln_backend_context *stream_context, kiln_backend_stream *stream,
    kiln_backend_context *destination_context,
    kiln_backend_memory *destination, size_t destination_offset,
    kiln_backend_context *source_context, kiln_backend_memory *source,
    size_t source_offset, size_t size, int blocking)
{
    if (destination_context->context == source_context->context)
        return cuda_memory_copy(stream_context, stream, destination,
                                destination_offset, source, source_offset,
                                size, blocking);
    /* A fault on either GPU is reported before anything is queued. */
    kiln_status status = cuda_context_enter(source_context);
    if (status == KILN_OK)
        status = cuda_context_enter(destination_context);
    int direct = 0;
    if (status == KILN_OK)
        status = cuda_device_peer_access(destination_context->device,
                                         source_context->device, &direct);
    if (status == KILN_OK)
        status = cuda_device_peer_access(source_context->device,
                                         destination_context->device, &direct);
    if (status == KILN_OK)
        status = cuda_context_bind(stream_context);
    if (status != KILN_OK)
        return status;
    CUdeviceptr to = destination->pointer + destination_offset;
    CUdeviceptr from = source->pointer + source_offset;
    CUresult result;
    const char *call;
    if (blocking && stream == NULL) {
        /* cuMemcpyPeer is ordered after all work already queued in both
         * contexts (the ABI's promise for this case) but returns before
         * the copy is done: wait for the context then. */
        call = "cuMemcpyPeer";
        result = cuMemcpyPeer(to, destination_context->context, from,
                              source_context->context, size);
        if (result == CUDA_SUCCESS) {
            call = "cuCtxSynchronize";
            result = cuCtxSynchronize();
        }
    } else {
        CUstream queue = cuda_stream_of(stream);
        kiln_backend_context *other = stream_context == destination_context
                                          ? source_context
                                          : destination_context;
        result = landing_order(other, stream_context, queue, &call);
        if (result == CUDA_SUCCESS) {
            call = "cuMemcpyPeerAsync";
            result = cuda_memory_finish(
                cuMemcpyPeerAsync(to, destination_context->context, from,
                                  source_context->context, size, queue),
                queue, blocking, &call);
        }
    }
    if (result != CUDA_SUCCESS)
        return cuda_fail(stream_context->device, result, KILN_ERR_BACKEND,
                         "%s(%zu bytes, device %d -> device %d, %s)", call,
                         size, source_context->device->ordinal,
                         destination_context->device->ordinal,
                         direct ? "peer access" : "staged by the driver");
    return KILN_OK;
}

/*
 * Fills.  A pattern made of two equal halves is the half repeated, so it
 * is first reduced to its shortest period (a zero double is a zero byte):
 * 1, 2 and 4 bytes are one cuMemsetD8/D16/D32.  What remains of 8- and
 * 16-byte patterns (complex numbers, double2) is written one 32-bit word
 * of the pattern at a time: cuMemsetD2D32 treats the range as rows of one
 * word with a pitch of the pattern's size, so 2 or 4 memsets cover it with
 * no kernel of our own to compile or load.
 */
static CUresult cuda_fill_queue(CUdeviceptr destination, size_t size,
                                const unsigned char *pattern,
                                size_t pattern_size, CUstream queue)
{
    while (pattern_size > 1 &&
           memcmp(pattern, pattern + pattern_size / 2, pattern_size / 2) == 0)
        pattern_size /= 2;
    switch (pattern_size) {
    case 1:
        return cuMemsetD8Async(destination, pattern[0], size, queue);
    case 2: {
        unsigned short value;
        memcpy(&value, pattern, sizeof value);
        return cuMemsetD16Async(destination, value, size / 2, queue);
    }
    case 4: {
        unsigned int value;
        memcpy(&value, pattern, sizeof value);
        return cuMemsetD32Async(destination, value, size / 4, queue);
    }
    default: {
        size_t rows = size / pattern_size;
        for (size_t word = 0; word < pattern_size / 4; ++word) {
            unsigned int value;
            memcpy(&value, pattern + 4 * word, sizeof value);
            CUresult result = cuMemsetD2D32Async(destination + 4 * word,
                                                 pattern_size, value, 1, rows,
                                                 queue);
            if (result != CUDA_SUCCESS)
                return result;
        }
        return CUDA_SUCCESS;
    }
    }
}

kiln_status cuda_memory_fill(kiln_backend_context *context,
                             kiln_backend_stream *stream,
                             kiln_backend_memory *memory, size_t offset,
                             size_t size, const void *pattern,
                             size_t pattern_size, int blocking)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUstream queue = cuda_stream_of(stream);
    const char *call = "cuMemsetD*Async";
    CUresult result =
        cuda_memory_finish(cuda_fill_queue(memory->pointer + offset, size,
                                           pattern, pattern_size, queue),
                           queue, blocking, &call);
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "%s(%zu bytes, %zu-byte pattern)", call, size,
                         pattern_size);
    return KILN_OK;
}

kiln_status cuda_host_alloc(kiln_backend_context *context, size_t size,
                            void **host)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    /* Portable: pinned for every context, as a process-wide buffer. */
    CUresult result = cuMemHostAlloc(host, size, CU_MEMHOSTALLOC_PORTABLE);
    if (result == CUDA_ERROR_OUT_OF_MEMORY)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "cuMemHostAlloc(%zu bytes): %s: %s", size,
                                cuda_result_name(result),
                                cuda_result_text(result));
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuMemHostAlloc(%zu bytes)", size);
    return KILN_OK;
}

void cuda_host_free(kiln_backend_context *context, void *host)
{
    (void)cuda_context_bind(context);
    (void)cuMemFreeHost(host);
}
