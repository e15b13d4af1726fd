/*
 * Backend and device enumeration: the public face of the registry.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

kiln_status kiln_backend_get_count(size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_OUT(count, "count");
    *count = kiln_backend_known_count();
    return KILN_OK;
}

static kiln_status backend_describe_out(size_t index, kiln_backend_info *info,
                                        size_t info_size, const char *what)
{
    kiln_backend_info full;
    memset(&full, 0, sizeof full);
    kiln_backend_describe(index, &full);
    kiln_error_clear();
    return kiln_struct_out(info, info_size, &full, sizeof full,
                           sizeof(kiln_backend_info), what);
}

kiln_status kiln_backend_get_info_sized(size_t index, kiln_backend_info *info,
                                        size_t info_size)
{
    kiln_error_clear();
    KILN_CHECK_OUT(info, "info");
    if (index >= kiln_backend_known_count())
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_backend_get_info: index %zu past the %zu "
                          "known backends",
                          index, kiln_backend_known_count());
    return backend_describe_out(index, info, info_size,
                                "kiln_backend_get_info");
}

kiln_status kiln_backend_find_sized(const char *name, kiln_backend_info *info,
                                    size_t info_size)
{
    kiln_error_clear();
    KILN_CHECK_OUT(name, "name");
    KILN_CHECK_OUT(info, "info");
    for (size_t i = 0; i < kiln_backend_known_count(); ++i) {
        if (strcmp(kiln_backend_known_name(i), name) == 0)
            return backend_describe_out(i, info, info_size,
                                        "kiln_backend_find");
    }
    const kiln_backend_ops *unused;
    return kiln_backend_acquire(name, &unused); /* the "unknown" message */
}

kiln_status kiln_backend_get_default(const char **name)
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

kiln_status kiln_device_get_count(const char *backend, int *count)
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

void kiln_device_info_from_backend(const kiln_backend_device_info *device,
                                   kiln_device_info *info)
{
    memset(info, 0, sizeof *info);
    memcpy(info->backend, device->backend, sizeof info->backend);
    info->index = device->index;
    info->type = device->type;
    memcpy(info->name, device->name, sizeof info->name);
    memcpy(info->vendor, device->vendor, sizeof info->vendor);
    memcpy(info->driver_version, device->driver_version,
           sizeof info->driver_version);
    memcpy(info->platform, device->platform, sizeof info->platform);
    memcpy(info->language_version, device->language_version,
           sizeof info->language_version);
    info->compute_capability_major = device->compute_capability_major;
    info->compute_capability_minor = device->compute_capability_minor;
    info->global_memory = device->global_memory;
    info->local_memory = device->local_memory;
    info->constant_memory = device->constant_memory;
    info->max_allocation = device->max_allocation;
    info->compute_units = device->compute_units;
    info->clock_mhz = device->clock_mhz;
    info->max_threads_per_block = device->max_threads_per_block;
    for (int i = 0; i < 3; ++i) {
        info->max_block[i] = device->max_block[i];
        info->max_grid[i] = device->max_grid[i];
    }
    info->warp_size = device->warp_size;
    info->supports_double = device->supports_double;
    info->unified_memory = device->unified_memory;
    memcpy(info->extensions, device->extensions, sizeof info->extensions);
    info->extensions[sizeof info->extensions - 1] = '\0';
}

kiln_status kiln_device_get_info_sized(const char *backend, int index,
                                       kiln_device_info *info,
                                       size_t info_size)
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
    kiln_backend_device_info device;
    memset(&device, 0, sizeof device);
    device.struct_size = sizeof device;
    status = ops->device_info(index, &device);
    if (status != KILN_OK)
        return status;
    snprintf(device.backend, sizeof device.backend, "%s", ops->name);
    device.index = index;
    kiln_device_info result;
    kiln_device_info_from_backend(&device, &result);
    return kiln_struct_out(info, info_size, &result, sizeof result,
                           KILN_DEVICE_INFO_SIZE_1_0, "kiln_device_get_info");
}

kiln_status kiln_device_list_sized(kiln_device_info *devices, size_t capacity,
                                   size_t element_size, size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_OUT(count, "count");
    if (devices == NULL && capacity > 0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_device_list: devices is NULL with a capacity "
                          "of %zu",
                          capacity);
    if (element_size < KILN_DEVICE_INFO_SIZE_1_0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_device_list: the caller's kiln_device_info is "
                          "%zu bytes, less than the %zu of Kiln 1.0",
                          element_size, (size_t)KILN_DEVICE_INFO_SIZE_1_0);
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
            kiln_backend_device_info device;
            memset(&device, 0, sizeof device);
            device.struct_size = sizeof device;
            kiln_status status = ops->device_info(index, &device);
            if (status != KILN_OK)
                return kiln_error_prefix(status,
                                         "kiln_device_list: device %d of %s",
                                         index, ops->name);
            snprintf(device.backend, sizeof device.backend, "%s", ops->name);
            device.index = index;
            kiln_device_info entry;
            kiln_device_info_from_backend(&device, &entry);
            /* The caller's array has its own stride: a newer header's
             * struct may be larger. */
            kiln_struct_out((char *)devices + found * element_size,
                            element_size, &entry, sizeof entry,
                            KILN_DEVICE_INFO_SIZE_1_0, "kiln_device_list");
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
