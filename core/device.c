/*
 * Backend and device enumeration: the public face of the registry.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

kiln_status kiln_backend_count(size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_OUT(count, "count");
    *count = kiln_backend_known_count();
    return KILN_OK;
}

kiln_status kiln_backend_get_info(size_t index, kiln_backend_info *info)
{
    kiln_error_clear();
    KILN_CHECK_OUT(info, "info");
    if (index >= kiln_backend_known_count())
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_backend_get_info: index %zu past the %zu "
                          "known backends",
                          index, kiln_backend_known_count());
    kiln_backend_describe(index, info);
    kiln_error_clear();
    return KILN_OK;
}

kiln_status kiln_backend_find(const char *name, kiln_backend_info *info)
{
    kiln_error_clear();
    KILN_CHECK_OUT(name, "name");
    KILN_CHECK_OUT(info, "info");
    for (size_t i = 0; i < kiln_backend_known_count(); ++i) {
        if (strcmp(kiln_backend_known_name(i), name) == 0) {
            kiln_backend_describe(i, info);
            kiln_error_clear();
            return KILN_OK;
        }
    }
    const kiln_backend_ops *unused;
    return kiln_backend_acquire(name, &unused); /* the "unknown" message */
}

kiln_status kiln_backend_default(const char **name)
{
    kiln_error_clear();
    KILN_CHECK_OUT(name, "name");
    const char *chosen;
    kiln_status status = kiln_backend_choose(&chosen);
    if (status != KILN_OK)
        return status;
    const kiln_backend_ops *ops;
    status = kiln_backend_acquire(chosen, &ops);
    if (status != KILN_OK)
        return status;
    *name = chosen;
    return KILN_OK;
}

/* The ops of `backend`, or of the default backend when NULL. */
static kiln_status ops_for(const char *backend, const kiln_backend_ops **ops)
{
    if (backend == NULL) {
        kiln_status status = kiln_backend_choose(&backend);
        if (status != KILN_OK)
            return status;
    }
    return kiln_backend_acquire(backend, ops);
}

kiln_status kiln_device_count(const char *backend, int *count)
{
    kiln_error_clear();
    KILN_CHECK_OUT(count, "count");
    const kiln_backend_ops *ops;
    kiln_status status = ops_for(backend, &ops);
    if (status != KILN_OK)
        return status;
    int devices = 0;
    status = ops->device_count(&devices);
    if (status != KILN_OK)
        return status;
    *count = devices;
    return KILN_OK;
}

kiln_status kiln_device_get_info(const char *backend, int index,
                                 kiln_device_info *info)
{
    kiln_error_clear();
    KILN_CHECK_OUT(info, "info");
    const kiln_backend_ops *ops;
    kiln_status status = ops_for(backend, &ops);
    if (status != KILN_OK)
        return status;
    int devices = 0;
    status = ops->device_count(&devices);
    if (status != KILN_OK)
        return status;
    if (index < 0 || index >= devices)
        return kiln_error(KILN_ERR_NO_DEVICE,
                          "device %d of backend %s does not exist (%d "
                          "device%s)",
                          index, ops->name, devices, devices == 1 ? "" : "s");
    kiln_device_info result;
    memset(&result, 0, sizeof result);
    status = ops->device_info(index, &result);
    if (status != KILN_OK)
        return status;
    snprintf(result.backend, sizeof result.backend, "%s", ops->name);
    result.index = index;
    *info = result;
    return KILN_OK;
}

kiln_status kiln_device_list(kiln_device_info *devices, size_t capacity,
                             size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_OUT(count, "count");
    if (devices == NULL && capacity > 0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_device_list: devices is NULL with a capacity "
                          "of %zu",
                          capacity);
    size_t found = 0;
    for (size_t backend = 0; backend < kiln_backend_known_count(); ++backend) {
        kiln_backend_info info;
        kiln_backend_describe(backend, &info);
        if (info.status != KILN_OK)
            continue;
        const kiln_backend_ops *ops;
        if (kiln_backend_acquire(info.name, &ops) != KILN_OK)
            continue;
        int devices_here = 0;
        if (ops->device_count(&devices_here) != KILN_OK)
            continue;
        for (int index = 0; index < devices_here; ++index, ++found) {
            if (found >= capacity)
                continue;
            kiln_device_info *entry = &devices[found];
            memset(entry, 0, sizeof *entry);
            kiln_status status = ops->device_info(index, entry);
            if (status != KILN_OK)
                return kiln_error_prefix(status,
                                         "kiln_device_list: device %d of %s",
                                         index, ops->name);
            snprintf(entry->backend, sizeof entry->backend, "%s", ops->name);
            entry->index = index;
        }
    }
    /* What describing unusable backends left behind is not this call's. */
    kiln_error_clear();
    *count = found;
    return KILN_OK;
}

kiln_status kiln_device_for_rank(const char *backend, int local_rank,
                                 int *device)
{
    kiln_error_clear();
    KILN_CHECK_OUT(device, "device");
    if (local_rank < 0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_device_for_rank: local_rank %d is negative",
                          local_rank);
    const kiln_backend_ops *ops;
    kiln_status status = ops_for(backend, &ops);
    if (status != KILN_OK)
        return status;
    int devices = 0;
    status = ops->device_count(&devices);
    if (status != KILN_OK)
        return status;
    if (devices == 0)
        return kiln_error(KILN_ERR_NO_DEVICE,
                          "kiln_device_for_rank: backend %s found no device",
                          ops->name);
    *device = local_rank % devices;
    return KILN_OK;
}
