/*
 * Page-locked (pinned) host memory for fast transfers.  The context keeps
 * a list of what it handed out, so kiln_host_free refuses a pointer it did
 * not allocate.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>

kiln_status kiln_host_alloc(kiln_context *context, size_t size, void **host)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(host, "host");
    if (size == 0)
        return kiln_error(KILN_ERR_INVALID_SIZE, "kiln_host_alloc: size is 0");
    /* Checked here so that every backend gives the same status: CUDA would
     * call this out of host memory, OpenCL an invalid size. */
    if (size > PTRDIFF_MAX)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_host_alloc: %zu bytes is more than any "
                          "address space holds",
                          size);
    kiln_host_allocation *record = calloc(1, sizeof *record);
    if (record == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "kiln_host_alloc: out of host memory");
    kiln_status status =
        context->ops->host_alloc(context->backend, size, &record->pointer);
    if (status != KILN_OK) {
        free(record);
        return kiln_error_prefix(status, "kiln_host_alloc(%zu bytes)", size);
    }
    record->size = size;
    pthread_mutex_lock(&context->lock);
    record->next = context->host_allocations;
    context->host_allocations = record;
    pthread_mutex_unlock(&context->lock);
    *host = record->pointer;
    return KILN_OK;
}

kiln_status kiln_host_free(kiln_context *context, void *host)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    if (host == NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_host_free: host pointer is NULL");
    pthread_mutex_lock(&context->lock);
    kiln_host_allocation **link = &context->host_allocations;
    while (*link != NULL && (*link)->pointer != host)
        link = &(*link)->next;
    kiln_host_allocation *record = *link;
    if (record != NULL)
        *link = record->next;
    pthread_mutex_unlock(&context->lock);
    if (record == NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_host_free: %p was not allocated by "
                          "kiln_host_alloc on this context (or was freed)",
                          host);
    context->ops->host_free(context->backend, record->pointer);
    free(record);
    return KILN_OK;
}
