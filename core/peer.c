/*
 * Work between two contexts: copies between their buffers, and streams
 * that wait for another context's events.  The core chooses the path:
 *
 *  - two contexts of one backend whose plugin has a direct path
 *    (memory_copy_peer; CUDA: cuMemcpyPeer, GPU to GPU where the devices
 *    allow peer access, else staged by the driver) use it, queued on the
 *    stream the caller gave;
 *  - every other pair (two OpenCL contexts, CUDA <-> OpenCL) is staged
 *    through page-locked host memory by the host: the copy is cut into
 *    chunks, reads of the next chunks from the source run while earlier
 *    chunks are written to the destination, and the call returns when the
 *    last chunk has arrived (its async form too: the host does the work).
 *
 * Waits for another context's event use the backend's own cross-context
 * wait where it has one (CUDA: cuStreamWaitEvent takes an event of any
 * context), else the host waits for the event before returning, so work
 * queued afterwards is ordered after it.
 */
#include "internal.h"

#include <string.h>

/* A staged copy moves chunks of this size through KILN_STAGING_SLOTS
 * buffers: 4 x 4 MiB keeps both directions busy (a chunk takes about
 * 80 us at 50 GB/s, well above the per-chunk cost of queueing and
 * waiting) without holding much page-locked memory. */
#define KILN_STAGING_CHUNK ((size_t)4 << 20)
#define KILN_STAGING_SLOTS 4
#define KILN_STAGING_BYTES (KILN_STAGING_CHUNK * KILN_STAGING_SLOTS)

void kiln_peer_context_init(kiln_context *context)
{
    pthread_mutex_init(&context->staging_lock, NULL);
    context->staging = NULL;
}

void kiln_peer_context_free(kiln_context *context)
{
    if (context->staging != NULL)
        context->ops->host_free(context->backend, context->staging);
    context->staging = NULL;
    pthread_mutex_destroy(&context->staging_lock);
}

/* One side of a staged copy: a context, the stream its commands go on, and
 * an event per staging slot marking the last command that used the slot. */
typedef struct staged_side {
    kiln_context *context;
    kiln_backend_stream *stream;
    kiln_backend_event *done[KILN_STAGING_SLOTS];
    bool pending[KILN_STAGING_SLOTS];
} staged_side;

static kiln_status side_open(staged_side *side, kiln_context *context,
                             kiln_backend_stream *stream)
{
    memset(side, 0, sizeof *side);
    side->context = context;
    side->stream = stream;
    for (int slot = 0; slot < KILN_STAGING_SLOTS; ++slot) {
        kiln_status status =
            kiln_untimed_event_create(context, &side->done[slot]);
        if (status != KILN_OK)
            return status;
    }
    return KILN_OK;
}

/* Waits for the slot's last command on this side (if any). */
static kiln_status side_wait(staged_side *side, int slot)
{
    if (!side->pending[slot])
        return KILN_OK;
    side->pending[slot] = false;
    return side->context->ops->event_synchronize(side->context->backend,
                                                 side->done[slot]);
}

static kiln_status side_mark(staged_side *side, int slot)
{
    kiln_status status = side->context->ops->event_record(
        side->context->backend, side->done[slot], side->stream);
    if (status == KILN_OK)
        side->pending[slot] = true;
    return status;
}

/* Waits for everything still in flight (also after a failure: the staging
 * memory must be idle before anyone reuses it) and frees the events. */
static void side_close(staged_side *side)
{
    for (int slot = 0; slot < KILN_STAGING_SLOTS; ++slot) {
        if (side->done[slot] == NULL)
            continue;
        if (side->pending[slot])
            (void)side->context->ops->event_synchronize(
                side->context->backend, side->done[slot]);
        side->context->ops->event_destroy(side->context->backend,
                                          side->done[slot]);
    }
    /* Commands queued after a failed record have no event: wait for the
     * whole stream too. */
    (void)side->context->ops->stream_synchronize(side->context->backend,
                                                 side->stream);
}

/* The context whose page-locked memory stages the copy: a discrete device's
 * (its DMA engines need page-locked memory to run asynchronously; a CPU
 * device reads any host memory at the same speed), else the
 * destination's. */
static kiln_context *staging_owner(kiln_context *destination,
                                   kiln_context *source)
{
    if (destination->device.unified_memory && !source->device.unified_memory)
        return source;
    return destination;
}

/* The chunk loop: read chunk k into slot k % SLOTS on the source side,
 * write it from there on the destination side.  Reads run up to SLOTS
 * chunks ahead of the writes; a slot is read into again only after the
 * write that used it has finished. */
static kiln_status staged_pipeline(staged_side *source, staged_side *target,
                                   unsigned char *staging,
                                   kiln_buffer *destination,
                                   size_t destination_offset,
                                   kiln_buffer *from, size_t source_offset,
                                   size_t size)
{
    const kiln_backend_ops *source_ops = source->context->ops;
    const kiln_backend_ops *target_ops = target->context->ops;
    size_t chunks = (size + KILN_STAGING_CHUNK - 1) / KILN_STAGING_CHUNK;
    size_t issued = 0;
    kiln_status status = KILN_OK;
    for (size_t chunk = 0; chunk < chunks && status == KILN_OK; ++chunk) {
        while (status == KILN_OK && issued < chunks &&
               issued < chunk + KILN_STAGING_SLOTS) {
            int slot = (int)(issued % KILN_STAGING_SLOTS);
            size_t at = issued * KILN_STAGING_CHUNK;
            size_t length = size - at < KILN_STAGING_CHUNK
                                ? size - at
                                : KILN_STAGING_CHUNK;
            status = side_wait(target, slot);
            if (status == KILN_OK)
                status = source_ops->memory_read(
                    source->context->backend, source->stream, from->memory,
                    source_offset + at,
                    staging + (size_t)slot * KILN_STAGING_CHUNK, length, 0);
            if (status == KILN_OK)
                status = side_mark(source, slot);
            ++issued;
        }
        if (status != KILN_OK)
            break;
        int slot = (int)(chunk % KILN_STAGING_SLOTS);
        size_t at = chunk * KILN_STAGING_CHUNK;
        size_t length =
            size - at < KILN_STAGING_CHUNK ? size - at : KILN_STAGING_CHUNK;
        status = side_wait(source, slot);
        if (status == KILN_OK)
            status = target_ops->memory_write(
                target->context->backend, target->stream, destination->memory,
                destination_offset + at,
                staging + (size_t)slot * KILN_STAGING_CHUNK, length, 0);
        if (status == KILN_OK)
            status = side_mark(target, slot);
    }
    for (int slot = 0; slot < KILN_STAGING_SLOTS && status == KILN_OK; ++slot)
        status = side_wait(target, slot);
    return status;
}

static kiln_status staged_copy(const char *function, kiln_buffer *destination,
                               size_t destination_offset, kiln_buffer *source,
                               size_t source_offset, size_t size,
                               kiln_context *stream_context,
                               kiln_backend_stream *stream)
{
    kiln_context *owner = staging_owner(destination->context, source->context);
    pthread_mutex_lock(&owner->staging_lock);
    kiln_status status = KILN_OK;
    if (owner->staging == NULL) {
        status = owner->ops->host_alloc(owner->backend, KILN_STAGING_BYTES,
                                        &owner->staging);
        if (status != KILN_OK) {
            owner->staging = NULL;
            pthread_mutex_unlock(&owner->staging_lock);
            return kiln_error_prefix(status,
                                     "%s: page-locked staging memory (%zu "
                                     "bytes) on %s",
                                     function, (size_t)KILN_STAGING_BYTES,
                                     owner->device.name);
        }
    }
    /* The caller's stream serves its own context's side; the other side
     * uses its default stream. */
    staged_side reader, writer;
    status = side_open(&reader, source->context,
                       stream_context == source->context ? stream : NULL);
    kiln_status writer_status =
        side_open(&writer, destination->context,
                  stream_context == destination->context ? stream : NULL);
    if (status == KILN_OK)
        status = writer_status;
    if (status == KILN_OK)
        status = staged_pipeline(&reader, &writer, owner->staging, destination,
                                 destination_offset, source, source_offset,
                                 size);
    side_close(&reader);
    side_close(&writer);
    pthread_mutex_unlock(&owner->staging_lock);
    if (status == KILN_OK)
        kiln_error_clear(); /* what closing the sides may have left */
    else
        return kiln_error_prefix(status,
                                 "%s: staged copy of %zu bytes from %s (%s) "
                                 "to %s (%s)",
                                 function, size, source->context->device.name,
                                 source->context->ops->name,
                                 destination->context->device.name,
                                 destination->context->ops->name);
    kiln_trace("%s: %zu bytes staged through host memory, %s %s -> %s %s",
               function, size, source->context->ops->name,
               source->context->device.name, destination->context->ops->name,
               destination->context->device.name);
    return KILN_OK;
}

/* After an asynchronous direct copy queued on a stream of one context, the
 * other context's default stream waits for it too: the buffer there is
 * then known busy until that stream passes the copy, which is what its
 * context's memory pool checks before reusing the memory. */
static kiln_status peer_hold_other(kiln_context *stream_context,
                                   kiln_backend_stream *stream,
                                   kiln_context *other)
{
    kiln_backend_event *event = NULL;
    kiln_status status = kiln_untimed_event_create(stream_context, &event);
    if (status != KILN_OK)
        return status;
    status = stream_context->ops->event_record(stream_context->backend, event,
                                               stream);
    if (status == KILN_OK)
        status = other->ops->stream_wait_event_peer(
            other->backend, NULL, stream_context->backend, event);
    /* Destroying a recorded event does not cancel a wait queued on it. */
    stream_context->ops->event_destroy(stream_context->backend, event);
    return status;
}

kiln_status kiln_peer_copy(const char *function, kiln_buffer *destination,
                           size_t destination_offset, kiln_buffer *source,
                           size_t source_offset, size_t size,
                           kiln_stream *stream, int blocking)
{
    kiln_context *destination_context = destination->context;
    kiln_context *source_context = source->context;
    /* The stream may belong to either context; NULL is the destination's
     * default stream. */
    kiln_context *stream_context = destination_context;
    kiln_backend_stream *backend_stream = NULL;
    if (stream != NULL) {
        if (stream->magic != KILN_MAGIC_STREAM)
            return kiln_error(KILN_ERR_INVALID_HANDLE,
                              "%s: stream is not a live stream (released or "
                              "not a Kiln object)",
                              function);
        if (stream->context != destination_context &&
            stream->context != source_context)
            return kiln_error(KILN_ERR_CONTEXT_MISMATCH,
                              "%s: the buffers belong to two contexts and the "
                              "stream to a third: queue a copy between "
                              "contexts on a stream of either buffer's "
                              "context",
                              function);
        stream_context = stream->context;
        backend_stream = stream->backend;
    }

    const kiln_backend_ops *ops = destination_context->ops;
    if (ops == source_context->ops && ops->memory_copy_peer != NULL) {
        /* Without a cross-context wait the other buffer's pool could not
         * know when the copy is done: then the copy is made blocking. */
        bool async = !blocking && ops->stream_wait_event_peer != NULL;
        kiln_status status = ops->memory_copy_peer(
            stream_context->backend, backend_stream,
            destination_context->backend, destination->memory,
            destination_offset, source_context->backend, source->memory,
            source_offset, size, async ? 0 : 1);
        if (status == KILN_OK && async) {
            kiln_context *other = stream_context == destination_context
                                      ? source_context
                                      : destination_context;
            kiln_buffer *own =
                stream_context == destination_context ? destination : source;
            kiln_buffer *foreign = own == destination ? source : destination;
            status = peer_hold_other(stream_context, backend_stream, other);
            if (status != KILN_OK)
                return kiln_error_prefix(status, "%s", function);
            kiln_buffer_note_async_use(own, stream);
            kiln_buffer_note_async_use(foreign, NULL);
        }
        if (status != KILN_ERR_UNSUPPORTED)
            return status == KILN_OK ? KILN_OK
                                     : kiln_error_prefix(status, "%s",
                                                         function);
        kiln_trace("%s: no direct path (%s): staging through host memory",
                   function, kiln_last_error());
        kiln_error_clear();
    }
    return staged_copy(function, destination, destination_offset, source,
                       source_offset, size, stream_context, backend_stream);
}

kiln_status kiln_peer_wait(kiln_stream *stream, kiln_event *event)
{
    kiln_context *context = stream->context;
    kiln_context *event_context = event->context;
    const kiln_backend_ops *ops = context->ops;
    if (ops == event_context->ops && ops->stream_wait_event_peer != NULL) {
        kiln_status status = ops->stream_wait_event_peer(
            context->backend, stream->backend, event_context->backend,
            event->backend);
        if (status != KILN_ERR_UNSUPPORTED)
            return status == KILN_OK
                       ? KILN_OK
                       : kiln_error_prefix(status, "kiln_stream_wait_event");
        kiln_error_clear();
    }
    /* On the host: once the event has completed, whatever the caller
     * queues on `stream` next is ordered after it. */
    kiln_status status = event_context->ops->event_synchronize(
        event_context->backend, event->backend);
    if (status != KILN_OK)
        return kiln_error_prefix(status,
                                 "kiln_stream_wait_event: waiting on the host "
                                 "for an event of %s (%s)",
                                 event_context->device.name,
                                 event_context->ops->name);
    return KILN_OK;
}
