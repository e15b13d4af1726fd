/*
 * The kiln-opencl plugin: its entry point, its ops table, and starting.
 *
 * The plugin links the OpenCL ICD loader (libOpenCL.so.1), which finds the
 * installed drivers (PoCL, NVIDIA, ...) through /etc/OpenCL/vendors or
 * OCL_ICD_VENDORS.  It never links libkiln: what it needs of the core comes
 * through the kiln_host_api given to initialize.
 */
#include "opencl_private.h"

const kiln_host_api *opencl_host;

/* Guards initialisation; what it writes is only read afterwards. */
static pthread_mutex_t opencl_backend_lock = PTHREAD_MUTEX_INITIALIZER;
static int opencl_backend_ready;

kiln_status opencl_backend_initialize(const kiln_host_api *host)
{
    pthread_mutex_lock(&opencl_backend_lock);
    opencl_host = host;
    kiln_status status = KILN_OK;
    if (!opencl_backend_ready) {
        status = opencl_devices_init();
        opencl_backend_ready = status == KILN_OK;
    }
    pthread_mutex_unlock(&opencl_backend_lock);
    return status;
}

const char *opencl_backend_version(void)
{
    return opencl_devices_version();
}

/* ---- the ops table ------------------------------------------------------- */

/* What the plugin reads through host->setting: the platform a user picks,
 * and the ICD loader's variables as they were before it started (for
 * messages: "no OpenCL platform: OCL_ICD_VENDORS=..."). */
static const char *const opencl_settings[] = {
    "KILN_OPENCL_PLATFORM", "OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", NULL};

static kiln_backend_ops opencl_ops;
static pthread_once_t opencl_ops_once = PTHREAD_ONCE_INIT;

static void opencl_ops_fill(void)
{
    kiln_backend_ops *ops = &opencl_ops;
    ops->abi_major = KILN_BACKEND_ABI_MAJOR;
    ops->abi_minor = KILN_BACKEND_ABI_MINOR;
    ops->struct_size = sizeof *ops;
    ops->name = "opencl";
    ops->native_language = KILN_LANGUAGE_OPENCL_C;
    ops->settings = opencl_settings;
    ops->initialize = opencl_backend_initialize;
    ops->version = opencl_backend_version;
    ops->device_count = opencl_device_count;
    ops->device_info = opencl_device_info;
    ops->context_create = opencl_context_create;
    ops->context_destroy = opencl_context_destroy;
    ops->context_synchronize = opencl_context_synchronize;
    ops->cache_identity = opencl_context_cache_identity;
    ops->memory_alloc = opencl_memory_alloc;
    ops->memory_free = opencl_memory_free;
    ops->memory_view = opencl_memory_view;
    ops->memory_write = opencl_memory_write;
    ops->memory_read = opencl_memory_read;
    ops->memory_copy = opencl_memory_copy;
    ops->memory_fill = opencl_memory_fill;
    ops->host_alloc = opencl_host_alloc;
    ops->host_free = opencl_host_free;
    ops->stream_create = opencl_stream_create;
    ops->stream_destroy = opencl_stream_destroy;
    ops->stream_synchronize = opencl_stream_synchronize;
    ops->stream_wait_event = opencl_stream_wait_event;
    ops->event_create = opencl_event_create;
    ops->event_destroy = opencl_event_destroy;
    ops->event_record = opencl_event_record;
    ops->event_synchronize = opencl_event_synchronize;
    ops->event_query = opencl_event_query;
    ops->event_elapsed = opencl_event_elapsed;
    ops->program_build = opencl_program_build;
    ops->program_destroy = opencl_program_destroy;
    ops->kernel_create = opencl_kernel_create;
    ops->kernel_destroy = opencl_kernel_destroy;
    ops->launch = opencl_kernel_launch;
    ops->native_handle = opencl_context_native_handle;
    ops->program_kernels = opencl_program_kernels;
    ops->program_image = opencl_program_image;
    ops->program_load_image = opencl_program_load_image;
}

/* The plugin's one exported symbol (KILN_BACKEND_ENTRY_SYMBOL). */
__attribute__((visibility("default"))) const kiln_backend_ops *
kiln_backend_entry(void);

const kiln_backend_ops *kiln_backend_entry(void)
{
    pthread_once(&opencl_ops_once, opencl_ops_fill);
    return &opencl_ops;
}
