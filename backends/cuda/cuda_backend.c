/*
 * The kiln-cuda plugin: its entry point, its ops table, and starting the
 * driver.
 *
 * The plugin links libcuda.so.1 (the toolkit's stub at build time) and
 * NVRTC directly: on a machine without the NVIDIA driver the plugin does
 * not load, and the core reports the loader's reason ("libcuda.so.1:
 * cannot open shared object file").  It never links libkiln; what it needs
 * of the core comes through the kiln_host_api given to initialize.
 */
#include "cuda_private.h"

#include <stdio.h>

const kiln_host_api *cuda_host;

/* Guards initialisation; what it writes is only read afterwards. */
static pthread_mutex_t cuda_backend_lock = PTHREAD_MUTEX_INITIALIZER;
static int cuda_backend_ready;
static int cuda_driver_version;
static char cuda_version_text[160];

int cuda_backend_driver_version(void)
{
    return cuda_driver_version;
}

static kiln_status cuda_backend_start(const kiln_host_api *host)
{
    CUresult result = cuInit(0);
    if (result != CUDA_SUCCESS)
        return host->error(KILN_ERR_BACKEND_UNAVAILABLE, "cuInit: %s: %s",
                           cuda_result_name(result), cuda_result_text(result));
    int driver = 0;
    result = cuDriverGetVersion(&driver);
    if (result != CUDA_SUCCESS)
        return host->error(KILN_ERR_BACKEND_UNAVAILABLE,
                           "cuDriverGetVersion: %s: %s",
                           cuda_result_name(result), cuda_result_text(result));
    /* CUDA's compatibility promise holds within a major version only, and
     * this plugin calls driver functions of CUDA_VERSION's major version
     * (cuFuncGetParamInfo, cuModuleEnumerateFunctions...); an older driver
     * would lack them and would not load NVRTC's newer images. */
    if (driver / 1000 < CUDA_VERSION / 1000)
        return host->error(KILN_ERR_BACKEND_UNAVAILABLE,
                           "the NVIDIA driver supports CUDA %d.%d, older than "
                           "CUDA %d.%d which kiln-cuda was built with: update "
                           "the driver",
                           driver / 1000, driver % 1000 / 10,
                           CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    cuda_driver_version = driver;
    kiln_status status = cuda_devices_init();
    if (status != KILN_OK)
        return status;
    int nvrtc_major = 0, nvrtc_minor = 0;
    cuda_nvrtc_version(&nvrtc_major, &nvrtc_minor);
    snprintf(cuda_version_text, sizeof cuda_version_text,
             "CUDA driver %d.%d, NVRTC %d.%d (built with CUDA %d.%d)",
             driver / 1000, driver % 1000 / 10, nvrtc_major, nvrtc_minor,
             CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
    return KILN_OK;
}

kiln_status cuda_backend_initialize(const kiln_host_api *host)
{
    pthread_mutex_lock(&cuda_backend_lock);
    cuda_host = host;
    kiln_status status = KILN_OK;
    if (!cuda_backend_ready) {
        status = cuda_backend_start(host);
        cuda_backend_ready = status == KILN_OK;
    }
    pthread_mutex_unlock(&cuda_backend_lock);
    return status;
}

const char *cuda_backend_version(void)
{
    return cuda_version_text;
}

/* ---- the ops table ------------------------------------------------------------- */

static kiln_backend_ops cuda_ops;
static pthread_once_t cuda_ops_once = PTHREAD_ONCE_INIT;

static void cuda_ops_fill(void)
{
    kiln_backend_ops *ops = &cuda_ops;
    ops->abi_major = KILN_BACKEND_ABI_MAJOR;
    ops->abi_minor = KILN_BACKEND_ABI_MINOR;
    ops->struct_size = sizeof *ops;
    ops->name = "cuda";
    ops->native_language = KILN_LANGUAGE_CUDA_C;
    ops->settings = NULL; /* it reads none */
    ops->initialize = cuda_backend_initialize;
    ops->version = cuda_backend_version;
    ops->device_count = cuda_device_count;
    ops->device_info = cuda_device_info;
    ops->context_create = cuda_context_create;
    ops->context_destroy = cuda_context_destroy;
    ops->context_synchronize = cuda_context_synchronize;
    ops->cache_identity = cuda_context_cache_identity;
    ops->memory_alloc = cuda_memory_alloc;
    ops->memory_free = cuda_memory_free;
    ops->memory_view = cuda_memory_view;
    ops->memory_write = cuda_memory_write;
    ops->memory_read = cuda_memory_read;
    ops->memory_copy = cuda_memory_copy;
    ops->memory_fill = cuda_memory_fill;
    ops->host_alloc = cuda_host_alloc;
    ops->host_free = cuda_host_free;
    ops->stream_create = cuda_stream_create;
    ops->stream_destroy = cuda_stream_destroy;
    ops->stream_synchronize = cuda_stream_synchronize;
    ops->stream_wait_event = cuda_stream_wait_event;
    ops->event_create = cuda_event_create;
    ops->event_destroy = cuda_event_destroy;
    ops->event_record = cuda_event_record;
    ops->event_synchronize = cuda_event_synchronize;
    ops->event_query = cuda_event_query;
    ops->event_elapsed = cuda_event_elapsed;
    ops->program_build = cuda_program_build;
    ops->program_destroy = cuda_program_destroy;
    ops->kernel_create = cuda_kernel_create;
    ops->kernel_destroy = cuda_kernel_destroy;
    ops->launch = cuda_kernel_launch;
    ops->native_handle = cuda_context_native_handle;
    ops->memory_copy_peer = cuda_memory_copy_peer;
    ops->stream_wait_event_peer = cuda_stream_wait_event_peer;
    ops->program_variable = cuda_program_variable;
    ops->program_kernels = cuda_program_kernels;
    ops->program_image = cuda_program_image;
    ops->program_load_image = cuda_program_load_image;
    ops->memory_ipc_export = cuda_memory_ipc_export;
    ops->memory_ipc_open = cuda_memory_ipc_open;
}

/* The plugin's one exported symbol (KILN_BACKEND_ENTRY_SYMBOL). */
__attribute__((visibility("default"))) const kiln_backend_ops *
kiln_backend_entry(void);

const kiln_backend_ops *kiln_backend_entry(void)
{
    pthread_once(&cuda_ops_once, cuda_ops_fill);
    return &cuda_ops;
}
