/*
 * The checked mode's guard zones (KILN_CHECK=bounds, kiln_context_set_checks).
 *
 * A guarded allocation is KILN_GUARD_BYTES of a known pattern, the user's
 * bytes, and KILN_GUARD_BYTES of pattern again, in one pooled block; the
 * kernel and every transfer see only a view of the middle (the plugin's
 * memory_view: an OpenCL sub-buffer, a CUDA pointer inside the block).  A
 * kernel that writes a few elements past either end of a buffer then
 * writes into a zone instead of into a neighbour, and the check after the
 * launch reads both zones back and names the bytes that changed.
 *
 * The pattern depends on the position in the zone, so a kernel that stores
 * one constant over the end changes it wherever it writes (only a value
 * equal to the pattern at that very byte can go unseen).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static unsigned char guard_byte(size_t position)
{
    return (unsigned char)(0xa5u ^ (position * 0x3bu) ^ (position >> 7));
}

static void guard_pattern(unsigned char *zone)
{
    for (size_t i = 0; i < KILN_GUARD_BYTES; ++i)
        zone[i] = guard_byte(i);
}

bool kiln_guard_possible(const kiln_context *context, size_t size)
{
    uint64_t limit = context->device.max_allocation;
    return context->ops->memory_view != NULL &&
           size <= SIZE_MAX - 2 * KILN_GUARD_BYTES &&
           (limit == 0 || size + 2 * KILN_GUARD_BYTES <= limit);
}

/* Writes both zones around `size` bytes (blocking, default stream). */
static kiln_status guard_write(kiln_context *context,
                               kiln_backend_stream *stream,
                               kiln_backend_memory *whole, size_t size)
{
    unsigned char zone[KILN_GUARD_BYTES];
    guard_pattern(zone);
    kiln_status status = context->ops->memory_write(
        context->backend, stream, whole, 0, zone, sizeof zone, 1);
    if (status == KILN_OK)
        status = context->ops->memory_write(context->backend, stream, whole,
                                            KILN_GUARD_BYTES + size, zone,
                                            sizeof zone, 1);
    return status;
}

kiln_status kiln_guard_allocate(kiln_context *context, size_t size,
                                kiln_backend_memory **whole, size_t *capacity,
                                kiln_backend_memory **view)
{
    kiln_status status = kiln_pool_allocate(
        context, size + 2 * KILN_GUARD_BYTES, whole, capacity);
    if (status != KILN_OK)
        return status;
    status = guard_write(context, NULL, *whole, size);
    if (status == KILN_OK)
        status = context->ops->memory_view(context->backend, *whole,
                                           KILN_GUARD_BYTES, size, view);
    if (status != KILN_OK) {
        kiln_pool_return(context, *whole, *capacity, NULL,
                         KILN_PENDING_NONE);
        *whole = NULL;
    }
    return status;
}

void kiln_guard_free(kiln_context *context, kiln_backend_memory *whole,
                     size_t capacity, kiln_backend_memory *view,
                     kiln_stream *stream, kiln_pending_work pending)
{
    context->ops->memory_free(context->backend, view);
    kiln_pool_return(context, whole, capacity, stream, pending);
}

/* Appends "bytes [a, b) before its start" for the changed bytes of a
 * zone; `base` is the zone's first byte relative to the user's byte 0.
 * True when something changed; *edge false when the changes do not reach
 * the zone's byte next to the buffer (`edge_byte`). */
static bool guard_compare(const unsigned char *zone, long long base,
                          const char *where, size_t edge_byte,
                          kiln_string *report, bool *edge)
{
    size_t first = KILN_GUARD_BYTES, last = 0;
    for (size_t i = 0; i < KILN_GUARD_BYTES; ++i)
        if (zone[i] != guard_byte(i)) {
            if (first == KILN_GUARD_BYTES)
                first = i;
            last = i;
        }
    if (first == KILN_GUARD_BYTES)
        return false;
    if (first > edge_byte || last < edge_byte)
        *edge = false;
    kiln_string_appendf(report, "%sbytes [%lld, %lld) %s",
                        report->length ? " and " : "",
                        base + (long long)first, base + (long long)last + 1,
                        where);
    return true;
}

kiln_status kiln_guard_check(kiln_context *context,
                             kiln_backend_stream *stream,
                             kiln_backend_memory *whole, size_t size,
                             kiln_string *report, bool *at_edge)
{
    *at_edge = true;
    unsigned char head[KILN_GUARD_BYTES], tail[KILN_GUARD_BYTES];
    /* Blocking reads on the launch's stream: they wait for the kernel. */
    kiln_status status = context->ops->memory_read(
        context->backend, stream, whole, 0, head, sizeof head, 1);
    if (status == KILN_OK)
        status = context->ops->memory_read(context->backend, stream, whole,
                                           KILN_GUARD_BYTES + size, tail,
                                           sizeof tail, 1);
    if (status != KILN_OK)
        return status;
    bool changed =
        guard_compare(head, -(long long)KILN_GUARD_BYTES, "before its start",
                      KILN_GUARD_BYTES - 1, report, at_edge);
    changed = guard_compare(tail, (long long)size, "past its end", 0, report,
                            at_edge) ||
              changed;
    /* Whole again for the next launch. */
    if (changed)
        status = guard_write(context, stream, whole, size);
    return status;
}

kiln_status kiln_context_set_checks(kiln_context *context, unsigned checks)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    if ((checks & ~(unsigned)KILN_CHECK_BOUNDS) != 0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_context_set_checks: unknown checks 0x%x "
                          "(known: KILN_CHECK_BOUNDS)",
                          checks & ~(unsigned)KILN_CHECK_BOUNDS);
    if ((checks & KILN_CHECK_BOUNDS) && context->ops->memory_view == NULL)
        return kiln_error(KILN_ERR_UNSUPPORTED,
                          "kiln_context_set_checks: the %s plugin leaves out "
                          "the optional memory_view op: no guard zones",
                          context->ops->name);
    atomic_store(&context->checks, checks);
    return KILN_OK;
}

kiln_status kiln_context_get_checks(const kiln_context *context,
                                    unsigned *checks)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(checks, "checks");
    *checks = atomic_load(&context->checks);
    return KILN_OK;
}
