/*
 * The CUDA backend's private declarations: the objects behind the ABI's
 * opaque handles, and the functions its files share.  Every op is one
 * cuda_<noun>_<verb> function; cuda_backend.c puts them in the ops table.
 */
#ifndef KILN_CUDA_PRIVATE_H
#define KILN_CUDA_PRIVATE_H

#include "cuda_compile.h" /* first: it sets the feature macros */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <cuda.h>

/* The core's services: written once by initialize, before any other op
 * (the ABI's contract), and only read afterwards. */
extern CUDA_INTERNAL const kiln_host_api *cuda_host;

/* One GPU.  All Kiln contexts on it share its primary context, so that
 * they share memory and streams with the CUDA runtime and its libraries. */
typedef struct cuda_device {
    CUdevice handle;
    int ordinal;
    /* Guarded by cuda_devices_lock (cuda_device.c): */
    int contexts;        /* live Kiln contexts on the device             */
    CUcontext primary;   /* retained while contexts > 0                   */
    /* The CUresult of the first sticky error (a kernel fault) seen on the
     * primary context, 0 if none: every op then reports the fault, and the
     * primary context is reset when the last Kiln context goes. */
    atomic_int fault;
    /* Guarded by cuda_devices_lock: bit i set when this primary context
     * may reach device i's memory directly (cuCtxEnablePeerAccess done);
     * cleared when either primary context is released.  `peers_refused`:
     * bit i when the pair allows no peer access (a property of the
     * hardware: kept). */
    uint64_t peers_enabled;
    uint64_t peers_refused;
    /* Blocking writes on the legacy stream, whose last DMA may still be
     * landing when they return (cuda_memory.c): how many were queued, and
     * under landing_lock, how many of them `landing` was recorded after,
     * whether that record has completed, and the event itself (of the
     * primary context; NULL until needed, destroyed with the context). */
    atomic_uint_fast64_t writes_queued;
    pthread_mutex_t landing_lock;
    uint64_t writes_covered;
    bool landing_complete;
    CUevent landing;
} cuda_device;

struct kiln_backend_context {
    cuda_device *device;
    CUcontext context;       /* the device's primary context              */
    cuda_target target;      /* what NVRTC builds for this device         */
    size_t shared_optin;     /* most shared memory a block may opt in to  */
};

struct kiln_backend_memory {
    CUdeviceptr pointer;     /* launch arguments point here directly      */
    size_t size;
    bool is_view;            /* inside another allocation: not freed      */
    /* Opened from another process (cuIpcOpenMemHandle): the mapping's
     * base, which cuIpcCloseMemHandle takes; 0 otherwise. */
    CUdeviceptr ipc_base;
};

struct kiln_backend_stream {
    CUstream stream;
};

struct kiln_backend_event {
    CUevent event;
};

/* A module variable handed out as memory (kiln_program_get_global). */
typedef struct cuda_global {
    struct kiln_backend_memory memory;
    struct cuda_global *next;
} cuda_global;

struct kiln_backend_program {
    CUmodule module;
    cuda_binary binary;      /* the image, for program_image              */
    /* program_kernels' answer, filled when built or loaded */
    kiln_backend_program_info info;
    kiln_backend_kernel_entry *listed;
    char *listed_names;      /* the listed names, each ended by its NUL    */
    const char **native_names; /* info.native_names: binary.lowered's      */
    /* Why the module's kernels cannot be listed; "" when they can. */
    char listing_error[160];
    _Atomic(cuda_global *) globals; /* freed with the program              */
};

struct kiln_backend_kernel {
    CUfunction function;
    /* The function's current CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
     * raised (never lowered) under cuda_kernel_attribute_lock. */
    atomic_size_t dynamic_shared_limit;
    size_t param_count;
    kiln_backend_param *params;
};

/* ---- cuda_errors.c ---------------------------------------------------------- */

/* Errors after which the CUDA context is unusable ("sticky"). */
CUDA_INTERNAL int cuda_result_is_sticky(CUresult result);
/* Reports `result` from the call described by `format`: "call: NAME: text".
 * Maps out of memory, kernel faults (recording them on `device`, which may
 * be NULL) and launch resource errors; any other error becomes `otherwise`
 * (KILN_ERR_BACKEND unless the call site knows better). */
CUDA_INTERNAL kiln_status cuda_fail(cuda_device *device, CUresult result,
                                    kiln_status otherwise, const char *format,
                                    ...) KILN_PRINTF_LIKE(4, 5);
/* The error every op reports once the device's context has faulted. */
CUDA_INTERNAL kiln_status cuda_fault_report(cuda_device *device);
/* cuGetErrorName / cuGetErrorString, never NULL. */
CUDA_INTERNAL const char *cuda_result_name(CUresult result);
CUDA_INTERNAL const char *cuda_result_text(CUresult result);

/* ---- cuda_device.c ------------------------------------------------------------ */

/* Finds the devices (after cuInit). */
CUDA_INTERNAL kiln_status cuda_devices_init(void);
CUDA_INTERNAL cuda_device *cuda_device_get(int index);
CUDA_INTERNAL kiln_status cuda_device_count(int *count);
CUDA_INTERNAL kiln_status cuda_device_info(int index, kiln_backend_device_info *info);
/* Retains the primary context for one more Kiln context. */
CUDA_INTERNAL kiln_status cuda_device_acquire(cuda_device *device,
                                              CUcontext *context);
/* The reverse; the last one releases the primary context (resetting it
 * first if it faulted). */
CUDA_INTERNAL void cuda_device_release(cuda_device *device);
/* Lets `from`'s primary context read and write `to`'s memory directly when
 * the two GPUs allow peer access (NVLink or PCIe), once per pair while both
 * primary contexts live; *direct says whether they do.  Without it the
 * driver still copies between them, staged through host memory.  Both
 * devices must hold a Kiln context; leaves `from`'s context current. */
CUDA_INTERNAL kiln_status cuda_device_peer_access(cuda_device *from,
                                                  cuda_device *to,
                                                  int *direct);

/* ---- cuda_backend.c ----------------------------------------------------------- */

CUDA_INTERNAL kiln_status cuda_backend_initialize(const kiln_host_api *host);
CUDA_INTERNAL const char *cuda_backend_version(void);
/* The driver's version as cuDriverGetVersion gives it (13000). */
CUDA_INTERNAL int cuda_backend_driver_version(void);

/* ---- cuda_context.c ----------------------------------------------------------- */

CUDA_INTERNAL kiln_status cuda_context_create(int device,
                                              kiln_backend_context **context);
CUDA_INTERNAL void cuda_context_destroy(kiln_backend_context *context);
CUDA_INTERNAL kiln_status
cuda_context_synchronize(kiln_backend_context *context);
CUDA_INTERNAL kiln_status cuda_context_cache_identity(
    kiln_backend_context *context, char *buffer, size_t size);
CUDA_INTERNAL kiln_status cuda_context_native_handle(
    kiln_backend_context *context, kiln_native_kind kind, const void *object,
    void *out, size_t size);

/* Makes the context current on the calling thread (ops may come from any
 * thread); cheap when it already is. */
static inline kiln_status cuda_context_bind(kiln_backend_context *context)
{
    CUcontext current = NULL;
    if (cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
        current == context->context)
        return KILN_OK;
    CUresult result = cuCtxSetCurrent(context->context);
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuCtxSetCurrent");
    return KILN_OK;
}

/* The start of every op that queues or waits for work: a faulted context
 * reports the fault; otherwise the context is made current. */
static inline kiln_status cuda_context_enter(kiln_backend_context *context)
{
    if (atomic_load_explicit(&context->device->fault, memory_order_relaxed) !=
        0)
        return cuda_fault_report(context->device);
    return cuda_context_bind(context);
}

/* The legacy default stream for NULL, as the ABI's default stream. */
static inline CUstream cuda_stream_of(const kiln_backend_stream *stream)
{
    return stream != NULL ? stream->stream : NULL;
}

/* ---- cuda_memory.c -------------------------------------------------------------- */

CUDA_INTERNAL kiln_status cuda_memory_alloc(kiln_backend_context *context,
                                            size_t size,
                                            kiln_backend_memory **memory);
CUDA_INTERNAL kiln_status cuda_memory_view(kiln_backend_context *context,
                                           kiln_backend_memory *memory,
                                           size_t offset, size_t size,
                                           kiln_backend_memory **view);
CUDA_INTERNAL void cuda_memory_free(kiln_backend_context *context,
                                    kiln_backend_memory *memory);
CUDA_INTERNAL kiln_status cuda_memory_ipc_export(kiln_backend_context *context,
                                                 kiln_backend_memory *memory,
                                                 void *handle, size_t *size);
CUDA_INTERNAL kiln_status cuda_memory_ipc_open(kiln_backend_context *context,
                                               const void *handle,
                                               size_t handle_size, size_t size,
                                               kiln_backend_memory **memory);
CUDA_INTERNAL kiln_status cuda_memory_write(kiln_backend_context *context,
                                            kiln_backend_stream *stream,
                                            kiln_backend_memory *memory,
                                            size_t offset, const void *host,
                                            size_t size, int blocking);
CUDA_INTERNAL kiln_status cuda_memory_read(kiln_backend_context *context,
                                           kiln_backend_stream *stream,
                                           kiln_backend_memory *memory,
                                           size_t offset, void *host,
                                           size_t size, int blocking);
CUDA_INTERNAL kiln_status cuda_memory_copy(
    kiln_backend_context *context, kiln_backend_stream *stream,
    kiln_backend_memory *destination, size_t destination_offset,
    kiln_backend_memory *source, size_t source_offset, size_t size,
    int blocking);
CUDA_INTERNAL kiln_status cuda_memory_fill(kiln_backend_context *context,
                                           kiln_backend_stream *stream,
                                           kiln_backend_memory *memory,
                                           size_t offset, size_t size,
                                           const void *pattern,
                                           size_t pattern_size, int blocking);
CUDA_INTERNAL kiln_status cuda_memory_copy_peer(
    kiln_backend_context *stream_context, kiln_backend_stream *stream,
    kiln_backend_context *destination_context,
    kiln_backend_memory *destination, size_t destination_offset,
    kiln_backend_context *source_context, kiln_backend_memory *source,
    size_t source_offset, size_t size, int blocking);
CUDA_INTERNAL kiln_status cuda_host_alloc(kiln_backend_context *context,
                                          size_t size, void **host);
CUDA_INTERNAL void cuda_host_free(kiln_backend_context *context, void *host);
/* Forgets what cuda_memory_copy_peer knew of the device's landing writes,
 * before its primary context goes (which must be current). */
CUDA_INTERNAL void cuda_memory_landing_forget(cuda_device *device);

/* ---- cuda_stream.c -------------------------------------------------------------- */

CUDA_INTERNAL kiln_status cuda_stream_create(kiln_backend_context *context,
                                             unsigned flags,
                                             kiln_backend_stream **stream);
CUDA_INTERNAL void cuda_stream_destroy(kiln_backend_context *context,
                                       kiln_backend_stream *stream);
CUDA_INTERNAL kiln_status cuda_stream_synchronize(kiln_backend_context *context,
                                                  kiln_backend_stream *stream);
CUDA_INTERNAL kiln_status cuda_stream_wait_event(kiln_backend_context *context,
                                                 kiln_backend_stream *stream,
                                                 kiln_backend_event *event);
CUDA_INTERNAL kiln_status cuda_stream_wait_event_peer(
    kiln_backend_context *context, kiln_backend_stream *stream,
    kiln_backend_context *event_context, kiln_backend_event *event);
CUDA_INTERNAL kiln_status cuda_event_create(kiln_backend_context *context,
                                            unsigned flags,
                                            kiln_backend_event **event);
CUDA_INTERNAL void cuda_event_destroy(kiln_backend_context *context,
                                      kiln_backend_event *event);
CUDA_INTERNAL kiln_status cuda_event_record(kiln_backend_context *context,
                                            kiln_backend_event *event,
                                            kiln_backend_stream *stream);
CUDA_INTERNAL kiln_status cuda_event_synchronize(kiln_backend_context *context,
                                                 kiln_backend_event *event);
CUDA_INTERNAL kiln_status cuda_event_query(kiln_backend_context *context,
                                           kiln_backend_event *event);
CUDA_INTERNAL kiln_status cuda_event_elapsed(kiln_backend_context *context,
                                             kiln_backend_event *start,
                                             kiln_backend_event *end,
                                             float *milliseconds);

/* ---- cuda_program.c ------------------------------------------------------------- */

CUDA_INTERNAL kiln_status cuda_program_build(kiln_backend_context *context,
                                             const kiln_backend_source *source,
                                             kiln_backend_program **program,
                                             char **log);
/* The program_image op: the CUBIN or PTX the module was loaded from. */
CUDA_INTERNAL kiln_status cuda_program_image(kiln_backend_context *context,
                                             kiln_backend_program *program,
                                             void **data, size_t *size);
CUDA_INTERNAL kiln_status cuda_program_load_image(
    kiln_backend_context *context, const void *data, size_t size,
    const kiln_backend_program_info *info, kiln_backend_program **program);
CUDA_INTERNAL void cuda_program_destroy(kiln_backend_context *context,
                                        kiln_backend_program *program);

/* ---- cuda_kernel.c -------------------------------------------------------------- */

CUDA_INTERNAL kiln_status cuda_kernel_create(kiln_backend_context *context,
                                             kiln_backend_program *program,
                                             const char *name,
                                             kiln_backend_kernel **kernel,
                                             kiln_backend_kernel_info *info);
CUDA_INTERNAL void cuda_kernel_destroy(kiln_backend_context *context,
                                       kiln_backend_kernel *kernel);
/* The program_variable op: a module variable (cuModuleGetGlobal). */
CUDA_INTERNAL kiln_status cuda_program_variable(kiln_backend_context *context,
                                                kiln_backend_program *program,
                                                const char *name,
                                                kiln_backend_memory **memory,
                                                size_t *size);
/* Fills program->info with the module's kernels (names; the parameters
 * come with kernel_create), or program->listing_error where the driver
 * cannot enumerate a module. */
CUDA_INTERNAL kiln_status cuda_program_describe(kiln_backend_context *context,
                                                kiln_backend_program *program);
/* The program_kernels op. */
CUDA_INTERNAL kiln_status cuda_program_kernels(
    kiln_backend_context *context, kiln_backend_program *program,
    const kiln_backend_program_info **info);

/* ---- cuda_launch.c -------------------------------------------------------------- */

CUDA_INTERNAL kiln_status cuda_kernel_launch(kiln_backend_context *context,
                                             kiln_backend_kernel *kernel,
                                             const kiln_backend_launch *launch);

#endif /* KILN_CUDA_PRIVATE_H */
