/*
 * Contexts: one device of one backend, and the owner of the memory pool,
 * the host allocations and the in-memory kernel cache.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device index: the argument, else KILN_DEVICE, else 0. */
static kiln_status context_device_index(const kiln_backend_ops *ops, int wanted,
                                        int *index)
{
    const char *origin = "device";
    if (wanted < 0) {
        kiln_status status = kiln_env_device(&wanted);
        if (status != KILN_OK)
            return status;
        origin = "KILN_DEVICE=";
        if (wanted < 0) {
            wanted = 0;
            origin = "device";
        }
    }
    int count = 0;
    kiln_status status = ops->device_count(&count);
    if (status != KILN_OK)
        return status;
    if (count == 0)
        return kiln_error(KILN_ERR_NO_DEVICE, "backend %s found no device",
                          ops->name);
    if (wanted >= count)
        return kiln_error(KILN_ERR_NO_DEVICE,
                          "%s%s%d: backend %s has %d device%s (0..%d)", origin,
                          origin[strlen(origin) - 1] == '=' ? "" : " ", wanted,
                          ops->name, count, count == 1 ? "" : "s", count - 1);
    *index = wanted;
    return KILN_OK;
}

kiln_status kiln_context_create(const char *backend, int device,
                                kiln_context **context)
{
    kiln_error_clear();
    KILN_CHECK_OUT(context, "context");
    const char *name = backend;
    kiln_status status;
    if (name == NULL && (status = kiln_backend_choose(&name)) != KILN_OK)
        return status;
    const kiln_backend_ops *ops;
    if ((status = kiln_backend_acquire(name, &ops)) != KILN_OK)
        return status;
    int index = 0;
    if ((status = context_device_index(ops, device, &index)) != KILN_OK)
        return status;

    kiln_context *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "kiln_context_create: out of host memory");
    result->ops = ops;
    result->device.struct_size = sizeof result->device;
    if ((status = ops->device_info(index, &result->device)) != KILN_OK) {
        free(result);
        return status;
    }
    snprintf(result->device.backend, sizeof result->device.backend, "%s",
             ops->name);
    result->device.index = index;
    if ((status = ops->context_create(index, &result->backend)) != KILN_OK) {
        free(result);
        return status;
    }
    if ((status = ops->cache_identity(result->backend, result->cache_identity,
                                      sizeof result->cache_identity)) !=
        KILN_OK) {
        ops->context_destroy(result->backend);
        free(result);
        return status;
    }
    pthread_mutex_init(&result->lock, NULL);
    kiln_peer_context_init(result);
    kiln_pool_init(&result->pool);
    unsigned checks = kiln_env_checks();
    if ((checks & KILN_CHECK_BOUNDS) && ops->memory_view == NULL) {
        kiln_trace("KILN_CHECK=bounds: backend %s has no guard zones "
                   "(it leaves out the optional memory_view op): not "
                   "checked",
                   ops->name);
        checks &= ~(unsigned)KILN_CHECK_BOUNDS;
    }
    atomic_init(&result->checks, checks);
    kiln_handle_init(result, KILN_MAGIC_CONTEXT, NULL);
    kiln_default_stream_init(result);
    kiln_trace("context on %s device %d (%s)", ops->name, index,
               result->device.name);
    *context = result;
    return KILN_OK;
}

kiln_status kiln_context_retain(kiln_context *context)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    kiln_refcount_retain(&context->references);
    return KILN_OK;
}

static void context_destroy(kiln_context *context)
{
    kiln_memory_cache_clear(context);
    pthread_mutex_lock(&context->lock);
    kiln_pool_trim_locked(context);
    kiln_host_allocation *host = context->host_allocations;
    while (host != NULL) {
        kiln_host_allocation *next = host->next;
        context->ops->host_free(context->backend, host->pointer);
        free(host);
        host = next;
    }
    context->host_allocations = NULL;
    pthread_mutex_unlock(&context->lock);
    kiln_peer_context_free(context);
    context->ops->context_destroy(context->backend);
    pthread_mutex_destroy(&context->lock);
    context->default_stream.magic = KILN_MAGIC_DEAD;
    kiln_handle_bury(context);
}

void kiln_context_release_internal(kiln_context *context)
{
    if (kiln_refcount_drop(&context->references))
        context_destroy(context);
}

kiln_status kiln_context_release(kiln_context *context)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    bool last = false;
    kiln_status status = kiln_refcount_release(
        &context->references, __func__, "context",
        "its buffers, streams, events and programs", &last);
    if (last)
        context_destroy(context);
    return status;
}

kiln_status kiln_context_get_backend(const kiln_context *context,
                                     const char **name)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(name, "name");
    *name = context->ops->name;
    return KILN_OK;
}

kiln_status kiln_context_get_device_info_sized(const kiln_context *context,
                                               kiln_device_info *info,
                                               size_t info_size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(info, "info");
    kiln_device_info result;
    kiln_device_info_from_backend(&context->device, &result);
    return kiln_struct_out(info, info_size, &result, sizeof result,
                           KILN_DEVICE_INFO_SIZE_1_0,
                           "kiln_context_get_device_info");
}

kiln_status kiln_context_synchronize(kiln_context *context)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    return context->ops->context_synchronize(context->backend);
}

/* The caller has checked the handle and `out` (so that messages name it). */
static kiln_status context_native(const kiln_context *context,
                                  kiln_native_kind kind, void *out, size_t size)
{
    return context->ops->native_handle(context->backend, kind, NULL, out, size);
}

kiln_status kiln_context_get_native(const kiln_context *context, void *out,
                                    size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(out, "out");
    return context_native(context, KILN_NATIVE_CONTEXT, out, size);
}

kiln_status kiln_context_get_native_device(const kiln_context *context,
                                           void *out, size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(out, "out");
    return context_native(context, KILN_NATIVE_DEVICE, out, size);
}
