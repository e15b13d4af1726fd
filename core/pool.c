/*
 * The device memory pool.  Released buffers keep their device memory in a
 * free list of their size class and later allocations of that class take it
 * back, so loops that allocate and free do not pay the driver each time.
 *
 * A block that asynchronous work may still touch carries an event recorded
 * on the last stream that used it; whoever takes the block waits for that
 * event first, so reuse never races with the previous owner's work.
 */
#include "internal.h"

#include <stdlib.h>

struct kiln_pool_block {
    kiln_backend_memory *memory;
    size_t capacity;
    kiln_backend_event *ready; /* NULL: nothing pending */
    kiln_pool_block *next;
};

void kiln_pool_init(kiln_pool *pool)
{
    pool->enabled = kiln_env_pool_enabled();
    pool->free_blocks = NULL;
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

/* Keeps a completed event for pool_event_take, or destroys it. */
static void pool_event_keep(kiln_context *context, kiln_backend_event *event)
{
    pthread_mutex_lock(&context->lock);
    bool kept = context->pool.spare_event_count < KILN_POOL_SPARE_EVENTS;
    if (kept)
        context->pool.spare_events[context->pool.spare_event_count++] = event;
    pthread_mutex_unlock(&context->lock);
    if (!kept)
        context->ops->event_destroy(context->backend, event);
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

static void block_free(kiln_context *context, kiln_pool_block *block)
{
    if (block->ready != NULL) {
        (void)context->ops->event_synchronize(context->backend, block->ready);
        context->ops->event_destroy(context->backend, block->ready);
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
    while (context->pool.spare_event_count > 0)
        context->ops->event_destroy(
            context->backend,
            context->pool.spare_events[--context->pool.spare_event_count]);
}

/* Blocks of one size class that may still be pending before an
 * allocation waits for the oldest instead of asking the driver for more. */
#define POOL_PENDING_LIMIT 4

/* Whether the block's previous owner's work is done (or failed: the
 * caller's wait then reports it).  Called with the context's lock held:
 * the query does not block. */
static bool block_idle(kiln_context *context, const kiln_pool_block *block)
{
    return block->ready == NULL ||
           context->ops->event_query(context->backend, block->ready) !=
               KILN_ERR_NOT_READY;
}

/* Takes a cached block of exactly `capacity` bytes, or NULL.  A block
 * whose previous owner's work is done comes first: taking a pending one
 * makes the host wait for the device, so a loop that allocates, launches
 * and releases would keep the device idle during all its host work.
 * While fewer than POOL_PENDING_LIMIT blocks of the class are pending,
 * NULL (a new allocation) is the answer instead; past it, the oldest. */
static kiln_pool_block *pool_take(kiln_context *context, size_t capacity)
{
    kiln_pool_block **link = &context->pool.free_blocks;
    kiln_pool_block **oldest = NULL;
    size_t pending = 0;
    for (; *link != NULL; link = &(*link)->next) {
        kiln_pool_block *block = *link;
        if (block->capacity != capacity)
            continue;
        if (block_idle(context, block)) {
            oldest = link;
            break;
        }
        oldest = link; /* the list is newest first */
        ++pending;
    }
    if (oldest == NULL ||
        (pending > 0 && *link == NULL && pending < POOL_PENDING_LIMIT))
        return NULL;
    kiln_pool_block *block = *oldest;
    *oldest = block->next;
    context->pool.stats.bytes_cached -= capacity;
    return block;
}

kiln_status kiln_pool_allocate(kiln_context *context, size_t size,
                               kiln_backend_memory **memory, size_t *capacity)
{
    pthread_mutex_lock(&context->lock);
    bool pooled = context->pool.enabled;
    size_t wanted =
        pooled ? pool_size_class(size, context->device.max_allocation) : size;
    kiln_pool_block *block = pooled ? pool_take(context, wanted) : NULL;
    context->pool.stats.allocations++;
    if (block != NULL)
        context->pool.stats.reuses++;
    pthread_mutex_unlock(&context->lock);

    if (block != NULL) {
        kiln_status status = KILN_OK;
        if (block->ready != NULL) {
            status = context->ops->event_synchronize(context->backend,
                                                     block->ready);
            if (status == KILN_OK)
                pool_event_keep(context, block->ready);
            else
                context->ops->event_destroy(context->backend, block->ready);
            block->ready = NULL;
        }
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
        kiln_backend_stream *backend_stream = stream ? stream->backend : NULL;
        block->ready = pool_event_take(context);
        if (block->ready != NULL &&
            context->ops->event_record(context->backend, block->ready,
                                       backend_stream) != KILN_OK) {
            context->ops->event_destroy(context->backend, block->ready);
            block->ready = NULL;
        }
        if (block->ready == NULL) {
            /* Cannot track the pending work: let the driver free it, which
             * is safe with work in flight. */
            free(block);
            block = NULL;
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
