/*
 * A plugin that stands in for a device with an awkward allocation limit:
 * it forwards every op to the build tree's real plugin of the same backend
 * but reports a largest allocation that is not a power of two (as NVIDIA's
 * OpenCL does: a quarter of the memory) and refuses, as such a driver
 * does, any allocation above it.  LIMITS_BACKEND names the backend;
 * LIMITS_PLUGIN_DIR (set by the test) is the build tree's backends/.
 */
#include "config.h"

#include "kiln_backend.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef LIMITS_BACKEND
#error "LIMITS_BACKEND must name the wrapped backend"
#endif

const kiln_backend_ops *kiln_backend_entry(void);

/* 100 MiB and a bit: no size class of the pool ends there. */
#define LIMITS_MAX_ALLOCATION ((uint64_t)100 * 1048576 + 12345)

static const kiln_backend_ops *real;
static kiln_backend_ops wrapped;
static const kiln_host_api *host;

static kiln_status limits_initialize(const kiln_host_api *api)
{
    host = api;
    return real->initialize(api);
}

static kiln_status limits_device_info(int index, kiln_backend_device_info *info)
{
    kiln_status status = real->device_info(index, info);
    if (status == KILN_OK && (info->max_allocation == 0 ||
                              info->max_allocation > LIMITS_MAX_ALLOCATION))
        info->max_allocation = LIMITS_MAX_ALLOCATION;
    return status;
}

static kiln_status limits_memory_alloc(kiln_backend_context *context,
                                       size_t size,
                                       kiln_backend_memory **memory)
{
    if (size > LIMITS_MAX_ALLOCATION)
        return host->error(KILN_ERR_INVALID_SIZE,
                           "limits plugin: %zu bytes is more than the %llu "
                           "this device allocates",
                           size, (unsigned long long)LIMITS_MAX_ALLOCATION);
    return real->memory_alloc(context, size, memory);
}

const kiln_backend_ops *kiln_backend_entry(void)
{
    if (real != NULL)
        return &wrapped;
    const char *dir = getenv("LIMITS_PLUGIN_DIR");
    if (dir == NULL)
        return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/.libs/kiln-%s.so", dir, LIMITS_BACKEND,
             LIMITS_BACKEND);
    void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (module == NULL)
        return NULL;
    kiln_backend_entry_fn entry =
        (kiln_backend_entry_fn)dlsym(module, KILN_BACKEND_ENTRY_SYMBOL);
    if (entry == NULL || (real = entry()) == NULL)
        return NULL;
    wrapped = *real;
    wrapped.initialize = limits_initialize;
    wrapped.device_info = limits_device_info;
    wrapped.memory_alloc = limits_memory_alloc;
    return &wrapped;
}
