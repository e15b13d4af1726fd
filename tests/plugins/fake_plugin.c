/*
 * Deliberately broken plugins for the loader tests, one per -D switch:
 * FAKE_WRONG_ABI     an ops table of ABI major 99
 * FAKE_RETURNS_NULL  an entry point that returns NULL
 * FAKE_NO_SYMBOL     no entry point at all
 * FAKE_UNAVAILABLE   a good table whose initialize reports no driver
 *   with FAKE_ABI_3_0   a table of ABI 3.0 (the smallest the core takes)
 *   with FAKE_SHORT     a table one op shorter than that
 */
#include "kiln_backend.h"

#include <stddef.h>

const kiln_backend_ops *kiln_backend_entry(void);
int kiln_fake_plugin_marker(void);

int kiln_fake_plugin_marker(void)
{
    return 1;
}

#if !defined(FAKE_NO_SYMBOL)

#if defined(FAKE_UNAVAILABLE)
static kiln_status fake_initialize(const kiln_host_api *host)
{
    return host->error(KILN_ERR_BACKEND_UNAVAILABLE,
                       "fake driver: no device here (test plugin)");
}
#endif

const kiln_backend_ops *kiln_backend_entry(void)
{
#if defined(FAKE_RETURNS_NULL)
    return NULL;
#else
    static kiln_backend_ops ops = {
#if defined(FAKE_WRONG_ABI)
        .abi_major = 99,
#else
        .abi_major = KILN_BACKEND_ABI_MAJOR,
#endif
        .abi_minor = 0,
#if defined(FAKE_ABI_3_0)
        .struct_size = KILN_BACKEND_OPS_SIZE_3_0,
#elif defined(FAKE_SHORT)
        .struct_size = KILN_BACKEND_OPS_SIZE_3_0 - sizeof(void (*)(void)),
#else
        .struct_size = sizeof(kiln_backend_ops),
#endif
        .name = "opencl",
        .native_language = KILN_LANGUAGE_OPENCL_C,
    };
#if defined(FAKE_UNAVAILABLE)
    /* Every op must be present for the core to call initialize; the rest
     * are never reached, so they can share one harmless function. */
    void (**slot)(void) = (void (**)(void))&ops.initialize;
    void (**last)(void) = (void (**)(void))&ops.launch;
    for (; slot <= last; ++slot)
        *slot = (void (*)(void))kiln_fake_plugin_marker;
    ops.initialize = fake_initialize;
#endif
    return &ops;
#endif
}

#endif
