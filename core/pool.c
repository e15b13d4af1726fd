/*
 * The device memory pool.  Released buffers keep their device memory in a
 * free list of their size class and later allocations of that class take it
 * back, so loops that allocate and free do not pay the driver each time.
 *
 * A block that asynchronous work may still touch is handed out again only
 * after an event recorded behind that work: whoever takes the block waits
 * for the event first, so reuse never races with the previous owner's work.
 * Blocks released with work pending on the default stream get their event
 * late, only when an allocation of their size finds no idle block, or when
 * POOL_PENDING_LIMIT - 1 of them wait: one event recorded then covers every
 * such block released since (work queued later only makes it
 * conservative).  A driver record per release cost NVIDIA's OpenCL about
 * 10 us of host time (an event on a profiling queue), CUDA about 2.
 */
#include "internal.h"

#include <stdlib.h>

/* An event behind the pending work of the blocks that share it. */
typedef struct pool_fence {
    kiln_backend_event *event;
    size_t blocks; /* cached blocks still pointing here */
    bool passed;   /* a query saw it complete: no more driver calls */
} pool_fence;

struct kiln_pool_block {
    kiln_backend_memory *memory;
    size_t capacity;
    pool_fence *fence; /* NULL: no event (idle, unless `deferred`) */
    bool deferred;     /* work pending on the default stream, no event yet */
    kiln_pool_block *next;
};

void kiln_pool_init(kiln_pool *pool)
{
    pool->enabled = kiln_env_pool_enabled();
    pool->free_blocks = NULL;
    pool->deferred_count = 0;
    pool->spare_event_count = 0;
}

/* A spare event, or a new one; NULL when none can be made. */
static kiln_backend_event *pool_event_take(kiln_context *context)
{
    kiln_backend_event *event = NULL;
    pthread_mutex_lock(&context->lock);
    if (context->pool.spare_event_count > 0)
        event = context->pool.spare_events[--context->pool.spare_event_count];
    pthread_mutex_unlock(&context->lock);
    if (event == NULL && kiln_untimed_event_create(context, &event) != KILN_OK)
        event = NULL;
    return event;
}

/* Keeps a completed event for later fences, or destroys it (context lock
 * held). */
static void keep_event_locked(kiln_context *context, kiln_backend_event *event)
{
    if (context->pool.spare_event_count < KILN_POOL_SPARE_EVENTS)
        context->pool.spare_events[context->pool.spare_event_count++] = event;
    else
        context->ops->event_destroy(context->backend, event);
}

/* One block less on `fence`; the last one frees it, keeping its event when
 * it completed without error (context lock held). */
static void fence_drop_locked(kiln_context *context, pool_fence *fence,
                              bool completed)
{
    if (--fence->blocks > 0)
        return;
    if (completed)
        keep_event_locked(context, fence->event);
    else
        context->ops->event_destroy(context->backend, fence->event);
    free(fence);
}

/* A fence of no block yet: `event` recorded on `stream` (NULL: the
 * default).  NULL on failure, `event` left to the caller. */
static pool_fence *fence_record(kiln_context *context,
                                kiln_backend_event *event,
                                kiln_backend_stream *stream)
{
    pool_fence *fence = malloc(sizeof *fence);
    if (fence == NULL)
        return NULL;
    if (context->ops->event_record(context->backend, event, stream) !=
        KILN_OK) {
        free(fence);
        return NULL;
    }
    *fence = (pool_fence){.event = event};
    return fence;
}

/* Records `*event` on the default stream as the fence of every deferred
 * block, and takes it (*event = NULL); leaves it on failure, when the
 * blocks stay deferred (context lock held: the record does not block). */
static void fence_deferred_locked(kiln_context *context,
                                  kiln_backend_event **event)
{
    pool_fence *fence = fence_record(context, *event, NULL);
    if (fence == NULL) {
        kiln_error_clear();
        return;
    }
    *event = NULL;
    for (kiln_pool_block *block = context->pool.free_blocks; block != NULL;
         block = block->next) {
        if (!block->deferred)
            continue;
        block->deferred = false;
        block->fence = fence;
        ++fence->blocks;
    }
    context->pool.deferred_count = 0;
    if (fence->blocks == 0) { /* none after all: the count was off */
        fence->blocks = 1;
        fence_drop_locked(context, fence, true);
    }
}

/* Sizes round up to 512 bytes, and above 1 MiB to an eighth of their power
 * of two, so a block wastes at most 12.5% and similar sizes share blocks.
 * A class never passes the device's largest allocation (`limit`, 0: none),
 * which need not be a power of two (NVIDIA's OpenCL: a quarter of the
 * memory): the sizes just below it share one block of exactly the limit. */
static size_t pool_size_class(size_t size, uint64_t limit)
{
    size_t step = 512;
    if (size > ((size_t)1 << 20)) {
        size_t power = (size_t)1 << 20;
        while (power <= size / 2)
            power *= 2;
        step = power / 8;
    }
    if (size > SIZE_MAX - (step - 1))
        return size;
    size_t rounded = (size + step - 1) / step * step;
    if (limit != 0 && size <= limit && rounded > limit)
        return (size_t)limit;
    return rounded;
}

/* Frees a cached block, waiting for its fence first (context lock held).
 * A deferred block goes to the driver at once: its free is safe with work
 * in flight. */
static void block_free(kiln_context *context, kiln_pool_block *block)
{
    pool_fence *fence = block->fence;
    if (fence != NULL) {
        bool completed =
            fence->passed ||
            context->ops->event_synchronize(context->backend, fence->event) ==
                KILN_OK;
        fence->passed = completed;
        fence_drop_locked(context, fence, completed);
    }
    context->ops->memory_free(context->backend, block->memory);
    free(block);
}

void kiln_pool_trim_locked(kiln_context *context)
{
    kiln_pool_block *block = context->pool.free_blocks;
    while (block != NULL) {
        kiln_pool_block *next = block->next;
        context->pool.stats.bytes_cached -= block->capacity;
        block_free(context, block);
        block = next;
    }
    context->pool.free_blocks = NULL;
    context->pool.deferred_count = 0;
    while (context->pool.spare_event_count > 0)
        context->ops->event_destroy(
            context->backend,
            context->pool.spare_events[--context->pool.spare_event_count]);
}

/* Blocks of one size class that may still be pending before an
 * allocation waits for the oldest instead of asking the driver for more. */
#define POOL_PENDING_LIMIT 4

/* Whether the block's previous owner's work is done (or failed: the
 * taker's wait then reports it).  `*busy` is a fence this walk already
 * found pending, not asked again.  Context lock held: the query does not
 * block. */
static bool block_idle(kiln_context *context, const kiln_pool_block *block,
                       const pool_fence *busy)
{
    if (block->deferred)
        return false;
    pool_fence *fence = block->fence;
    if (fence == NULL || fence->passed)
        return true;
    if (fence == busy)
        return false;
    kiln_status status =
        context->ops->event_query(context->backend, fence->event);
    if (status == KILN_OK)
        fence->passed = true;
    return status != KILN_ERR_NOT_READY;
}

/* Takes a cached block of exactly `capacity` bytes, or NULL.  A block
 * whose previous owner's work is done comes first: taking a pending one
 * makes the host wait for the device, so a loop that allocates, launches
 * and releases would keep the device idle during all its host work.
 * While fewer than POOL_PENDING_LIMIT blocks of the class are pending,
 * NULL (a new allocation) is the answer instead; past it, the oldest.
 * Context lock held. */
static kiln_pool_block *pool_take(kiln_context *context, size_t capacity,
                                  bool *deferred_wanted)
{
    kiln_pool_block **link = &context->pool.free_blocks;
    kiln_pool_block **oldest = NULL;
    const pool_fence *busy = NULL;
    size_t pending = 0;
    bool saw_deferred = false;
    for (; *link != NULL; link = &(*link)->next) {
        kiln_pool_block *block = *link;
        if (block->capacity != capacity)
            continue;
        if (block_idle(context, block, busy)) {
            oldest = link;
            break;
        }
        if (block->deferred)
            saw_deferred = true;
        else
            busy = block->fence;
        oldest = link; /* the list is newest first */
        ++pending;
    }
    /* No idle block of the size, and some wait for an event. */
    *deferred_wanted = *link == NULL && saw_deferred;
    if (oldest == NULL ||
        (pending > 0 && *link == NULL && pending < POOL_PENDING_LIMIT))
        return NULL;
    kiln_pool_block *block = *oldest;
    *oldest = block->next;
    context->pool.stats.bytes_cached -= capacity;
    if (block->deferred)
        --context->pool.deferred_count;
    return block;
}

/* Records one event behind every deferred block (context lock held; it is
 * let go while the event is taken). */
static void fence_deferred(kiln_context *context)
{
    pthread_mutex_unlock(&context->lock);
    kiln_backend_event *event = pool_event_take(context);
    if (event == NULL)
        kiln_error_clear();
    pthread_mutex_lock(&context->lock);
    if (event != NULL && context->pool.deferred_count > 0)
        fence_deferred_locked(context, &event);
    if (event != NULL)
        keep_event_locked(context, event);
}

/* Makes the taken block's previous work done: waits for its fence (or, for
 * a block that never got one, the default stream) and lets go of it. */
static kiln_status block_settle(kiln_context *context, kiln_pool_block *block,
                                bool must_wait)
{
    kiln_status status = KILN_OK;
    pool_fence *fence = block->fence;
    if (block->deferred)
        status = context->ops->stream_synchronize(context->backend, NULL);
    else if (fence != NULL && must_wait)
        status = context->ops->event_synchronize(context->backend,
                                                 fence->event);
    if (fence != NULL) {
        /* other blocks may share the fence: let go of it under the lock */
        pthread_mutex_lock(&context->lock);
        if (status == KILN_OK)
            fence->passed = true;
        fence_drop_locked(context, fence, status == KILN_OK);
        pthread_mutex_unlock(&context->lock);
        block->fence = NULL;
    }
    return status;
}

kiln_status kiln_pool_allocate(kiln_context *context, size_t size,
                               kiln_backend_memory **memory, size_t *capacity)
{
    pthread_mutex_lock(&context->lock);
    bool pooled = context->pool.enabled;
    size_t wanted =
        pooled ? pool_size_class(size, context->device.max_allocation) : size;
    /* Deferred blocks are the newest of the list: with fewer of them than
     * POOL_PENDING_LIMIT, the oldest pending block of a size, the one
     * pool_take waits for, always has its event. */
    if (pooled && context->pool.deferred_count >= POOL_PENDING_LIMIT - 1)
        fence_deferred(context);
    bool deferred_wanted = false;
    kiln_pool_block *block =
        pooled ? pool_take(context, wanted, &deferred_wanted) : NULL;
    bool must_wait = block != NULL && block->fence != NULL &&
                     !block->fence->passed;
    if (deferred_wanted)
        fence_deferred(context); /* for the next allocation of the size */
    context->pool.stats.allocations++;
    if (block != NULL)
        context->pool.stats.reuses++;
    pthread_mutex_unlock(&context->lock);

    if (block != NULL) {
        kiln_status status = block_settle(context, block, must_wait);
        if (status != KILN_OK) {
            /* The previous owner's work faulted: do not hand out memory in
             * an unknown state. */
            context->ops->memory_free(context->backend, block->memory);
            free(block);
            return status;
        }
        *memory = block->memory;
        *capacity = block->capacity;
        free(block);
    } else {
        kiln_status status =
            context->ops->memory_alloc(context->backend, wanted, memory);
        if (status == KILN_ERR_OUT_OF_DEVICE_MEMORY && pooled) {
            /* Cached blocks may be what fills the device. */
            pthread_mutex_lock(&context->lock);
            bool had_cache = context->pool.free_blocks != NULL;
            kiln_pool_trim_locked(context);
            pthread_mutex_unlock(&context->lock);
            if (had_cache) {
                kiln_error_clear();
                status = context->ops->memory_alloc(context->backend, wanted,
                                                    memory);
            }
        }
        if (status != KILN_OK)
            return status;
        *capacity = wanted;
    }
    pthread_mutex_lock(&context->lock);
    context->pool.stats.bytes_in_use += *capacity;
    pthread_mutex_unlock(&context->lock);
    return KILN_OK;
}

void kiln_pool_return(kiln_context *context, kiln_backend_memory *memory,
                      size_t capacity, kiln_stream *stream,
                      kiln_pending_work pending)
{
    stream = kiln_stream_canonical(stream);
    pthread_mutex_lock(&context->lock);
    context->pool.stats.bytes_in_use -= capacity;
    bool pooled = context->pool.enabled &&
                  pending != KILN_PENDING_SEVERAL_STREAMS;
    pthread_mutex_unlock(&context->lock);

    kiln_pool_block *block = pooled ? calloc(1, sizeof *block) : NULL;
    if (block != NULL && pending == KILN_PENDING_ONE_STREAM) {
        if (stream == NULL) {
            block->deferred = true; /* its fence comes with the next take */
        } else {
            kiln_backend_event *event = pool_event_take(context);
            pool_fence *fence =
                event != NULL ? fence_record(context, event, stream->backend)
                              : NULL;
            if (fence == NULL) {
                /* Cannot track the pending work: let the driver free it,
                 * which is safe with work in flight. */
                if (event != NULL)
                    context->ops->event_destroy(context->backend, event);
                free(block);
                block = NULL;
            } else {
                fence->blocks = 1;
                block->fence = fence;
            }
        }
    }
    if (block == NULL) {
        context->ops->memory_free(context->backend, memory);
        kiln_error_clear();
        return;
    }
    block->memory = memory;
    block->capacity = capacity;
    pthread_mutex_lock(&context->lock);
    block->next = context->pool.free_blocks;
    context->pool.free_blocks = block;
    context->pool.stats.bytes_cached += capacity;
    if (block->deferred)
        ++context->pool.deferred_count;
    pthread_mutex_unlock(&context->lock);
}

kiln_status kiln_pool_set_enabled(kiln_context *context, int enabled)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    pthread_mutex_lock(&context->lock);
    context->pool.enabled = enabled != 0;
    if (!context->pool.enabled)
        kiln_pool_trim_locked(context);
    pthread_mutex_unlock(&context->lock);
    return KILN_OK;
}

kiln_status kiln_pool_get_stats_sized(kiln_context *context,
                                      kiln_pool_stats *stats, size_t stats_size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(stats, "stats");
    pthread_mutex_lock(&context->lock);
    kiln_pool_stats result = context->pool.stats;
    pthread_mutex_unlock(&context->lock);
    return kiln_struct_out(stats, stats_size, &result, sizeof result,
                           sizeof(kiln_pool_stats), "kiln_pool_get_stats");
}

kiln_status kiln_pool_trim(kiln_context *context)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    pthread_mutex_lock(&context->lock);
    kiln_pool_trim_locked(context);
    pthread_mutex_unlock(&context->lock);
    return KILN_OK;
}
