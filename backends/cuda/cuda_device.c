/*
 * Devices: their properties, and the primary context each Kiln context
 * uses.
 *
 * Why the primary context: it is the one the CUDA runtime (and cuBLAS,
 * cuFFT, CuPy, PyTorch...) uses, so device pointers and streams pass freely
 * between Kiln and such code in one process.  Kiln retains it once per Kiln
 * context and releases it when the context goes; the driver destroys it
 * when nobody holds it any more.
 *
 * Kernel faults: an illegal address (or any other sticky error) poisons the
 * whole primary context, for every Kiln context on the device and for any
 * other user of it.  From then on every op reports the fault, and no new
 * Kiln context is given the poisoned one.  When the last Kiln context on
 * the device is destroyed (which waits for the device first, so that a
 * fault no call has reported yet is seen too), the primary context is reset
 * (cuDevicePrimaryCtxReset) before Kiln's reference is released: a plain
 * release would leave it alive — and poisoned — if the runtime or another
 * library also holds it, while a reset destroys it whoever holds it, which
 * cannot hurt them more than the fault already did (their memory and
 * modules were lost with it).  The next Kiln context then gets a fresh
 * primary context — where the driver allows it: drivers of CUDA 12 and
 * 13 refuse any new context in a process after a fault (seen with driver
 * 580: cuDevicePrimaryCtxRetain, even after the reset, and cuCtxCreate
 * answer CUDA_ERROR_ILLEGAL_ADDRESS), so there the next Kiln context
 * fails with KILN_ERR_KERNEL_FAULT and a message saying to restart the
 * process.  A context that never faulted is only released, never reset, so
 * other users of the device keep their work.
 */
#include "cuda_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Guards the per-device reference counts and primary context handles;
 * cuda_devices and cuda_device_total are written once by initialize. */
static pthread_mutex_t cuda_devices_lock = PTHREAD_MUTEX_INITIALIZER;
static cuda_device *cuda_devices;
static int cuda_device_total;

kiln_status cuda_devices_init(void)
{
    int count = 0;
    CUresult result = cuDeviceGetCount(&count);
    if (result != CUDA_SUCCESS)
        return cuda_fail(NULL, result, KILN_ERR_BACKEND_UNAVAILABLE,
                         "cuDeviceGetCount");
    cuda_device *devices = calloc(count > 0 ? (size_t)count : 1,
                                  sizeof *devices);
    if (devices == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    for (int i = 0; i < count; ++i) {
        result = cuDeviceGet(&devices[i].handle, i);
        if (result != CUDA_SUCCESS) {
            free(devices);
            return cuda_fail(NULL, result, KILN_ERR_BACKEND_UNAVAILABLE,
                             "cuDeviceGet(%d)", i);
        }
        devices[i].ordinal = i;
        atomic_init(&devices[i].fault, 0);
        atomic_init(&devices[i].writes_queued, 0);
        pthread_mutex_init(&devices[i].landing_lock, NULL);
        devices[i].landing_complete = true;
    }
    pthread_mutex_lock(&cuda_devices_lock);
    free(cuda_devices);
    cuda_devices = devices;
    cuda_device_total = count;
    pthread_mutex_unlock(&cuda_devices_lock);
    return KILN_OK;
}

cuda_device *cuda_device_get(int index)
{
    /* The core checks the index against device_count. */
    return &cuda_devices[index];
}

kiln_status cuda_device_count(int *count)
{
    *count = cuda_device_total;
    return KILN_OK;
}

/* One device attribute; *failed keeps the first error. */
static int cuda_attribute(CUdevice device, CUdevice_attribute attribute,
                          const char *what, CUresult *failed,
                          const char **failed_what)
{
    int value = 0;
    CUresult result = cuDeviceGetAttribute(&value, attribute, device);
    if (result != CUDA_SUCCESS && *failed == CUDA_SUCCESS) {
        *failed = result;
        *failed_what = what;
    }
    return value;
}

#define CUDA_ATTRIBUTE(name)                                                   \
    cuda_attribute(device->handle, CU_DEVICE_ATTRIBUTE_##name, #name, &failed, \
                   &failed_what)

static kiln_status cuda_device_describe(int index,
                                        kiln_backend_device_info *info)
{
    cuda_device *device = cuda_device_get(index);
    CUresult failed = CUDA_SUCCESS;
    const char *failed_what = "";
    memset(info, 0, sizeof *info);
    info->struct_size = sizeof *info;
    snprintf(info->backend, sizeof info->backend, "cuda");
    info->index = index;
    info->type = KILN_DEVICE_GPU;
    CUresult result =
        cuDeviceGetName(info->name, (int)sizeof info->name, device->handle);
    if (result != CUDA_SUCCESS)
        return cuda_fail(NULL, result, KILN_ERR_BACKEND, "cuDeviceGetName(%d)",
                         index);
    info->name[sizeof info->name - 1] = '\0';
    size_t total = 0;
    result = cuDeviceTotalMem(&total, device->handle);
    if (result != CUDA_SUCCESS)
        return cuda_fail(NULL, result, KILN_ERR_BACKEND,
                         "cuDeviceTotalMem(%d)", index);
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA Corporation");
    int driver = cuda_backend_driver_version();
    snprintf(info->driver_version, sizeof info->driver_version, "%d.%d",
             driver / 1000, driver % 1000 / 10);
    snprintf(info->platform, sizeof info->platform, "CUDA");

    info->compute_capability_major = CUDA_ATTRIBUTE(COMPUTE_CAPABILITY_MAJOR);
    info->compute_capability_minor = CUDA_ATTRIBUTE(COMPUTE_CAPABILITY_MINOR);
    snprintf(info->language_version, sizeof info->language_version, "sm_%d%d",
             info->compute_capability_major, info->compute_capability_minor);
    info->language_major = info->compute_capability_major;
    info->language_minor = info->compute_capability_minor;
    int nvrtc_major = 0, nvrtc_minor = 0;
    cuda_nvrtc_version(&nvrtc_major, &nvrtc_minor);
    info->compiler_version = (unsigned)(nvrtc_major * 1000 + nvrtc_minor * 10);
    info->global_memory = total;
    /* What a block can have once it opts in (launches raise the function's
     * limit when they need more than the default 48 KiB). */
    info->local_memory =
        (uint64_t)CUDA_ATTRIBUTE(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    info->constant_memory = (uint64_t)CUDA_ATTRIBUTE(TOTAL_CONSTANT_MEMORY);
    /* CUDA has no per-allocation limit below the device's memory. */
    info->max_allocation = total;
    info->compute_units = CUDA_ATTRIBUTE(MULTIPROCESSOR_COUNT);
    info->max_threads_per_block =
        (size_t)CUDA_ATTRIBUTE(MAX_THREADS_PER_BLOCK);
    info->max_block[0] = (size_t)CUDA_ATTRIBUTE(MAX_BLOCK_DIM_X);
    info->max_block[1] = (size_t)CUDA_ATTRIBUTE(MAX_BLOCK_DIM_Y);
    info->max_block[2] = (size_t)CUDA_ATTRIBUTE(MAX_BLOCK_DIM_Z);
    info->max_grid[0] = (size_t)CUDA_ATTRIBUTE(MAX_GRID_DIM_X);
    info->max_grid[1] = (size_t)CUDA_ATTRIBUTE(MAX_GRID_DIM_Y);
    info->max_grid[2] = (size_t)CUDA_ATTRIBUTE(MAX_GRID_DIM_Z);
    info->warp_size = CUDA_ATTRIBUTE(WARP_SIZE);
    info->unified_memory = CUDA_ATTRIBUTE(INTEGRATED) != 0;
    /* Every architecture NVRTC can build for has doubles. */
    info->supports_double = 1;
    if (failed != CUDA_SUCCESS)
        return cuda_fail(NULL, failed, KILN_ERR_BACKEND,
                         "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_%s, %d)",
                         failed_what, index);
    /* The clock is informative only: newer drivers may stop reporting it. */
    int clock_khz = 0;
    if (cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE,
                             device->handle) == CUDA_SUCCESS)
        info->clock_mhz = clock_khz / 1000;
    return KILN_OK;
}

kiln_status cuda_device_info(int index, kiln_backend_device_info *info)
{
    kiln_backend_device_info full;
    kiln_status status = cuda_device_describe(index, &full);
    if (status != KILN_OK)
        return status;
    /* The caller's struct_size says how much of the struct it has. */
    size_t size = info->struct_size < sizeof full ? info->struct_size
                                                  : sizeof full;
    memcpy(info, &full, size);
    info->struct_size = size;
    return KILN_OK;
}

#undef CUDA_ATTRIBUTE

kiln_status cuda_device_acquire(cuda_device *device, CUcontext *context)
{
    pthread_mutex_lock(&cuda_devices_lock);
    if (device->contexts > 0 && atomic_load(&device->fault) != 0) {
        CUresult fault = (CUresult)atomic_load(&device->fault);
        pthread_mutex_unlock(&cuda_devices_lock);
        /* Handing out the poisoned context would only fail later. */
        return cuda_host->error(
            KILN_ERR_KERNEL_FAULT,
            "CUDA device %d: a kernel fault (%s: %s) left its context "
            "unusable, and Kiln contexts created before it are still alive: "
            "release every object of those contexts first (the NVIDIA "
            "driver may refuse new contexts in this process even then: "
            "restart the process to use the GPU again)",
            device->ordinal, cuda_result_name(fault), cuda_result_text(fault));
    }
    if (device->contexts == 0) {
        CUcontext primary = NULL;
        CUresult result = cuDevicePrimaryCtxRetain(&primary, device->handle);
        if (result != CUDA_SUCCESS) {
            pthread_mutex_unlock(&cuda_devices_lock);
            if (cuda_result_is_sticky(result))
                return cuda_host->error(
                    KILN_ERR_KERNEL_FAULT,
                    "cuDevicePrimaryCtxRetain(device %d): %s: %s (an earlier "
                    "kernel fault left CUDA unusable in this process: the "
                    "NVIDIA driver refuses new contexts after one; restart "
                    "the process to use the GPU again)",
                    device->ordinal, cuda_result_name(result),
                    cuda_result_text(result));
            return cuda_fail(NULL, result, KILN_ERR_BACKEND,
                             "cuDevicePrimaryCtxRetain(device %d)",
                             device->ordinal);
        }
        device->primary = primary;
        atomic_store(&device->fault, 0);
    }
    device->contexts++;
    *context = device->primary;
    pthread_mutex_unlock(&cuda_devices_lock);
    return KILN_OK;
}

void cuda_device_release(cuda_device *device)
{
    pthread_mutex_lock(&cuda_devices_lock);
    if (--device->contexts == 0) {
        /* A fault nobody has reported yet (the last launch was never
         * waited for) must still lead to the reset below. */
        CUcontext current = NULL;
        int bound = cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
                    current == device->primary;
        if (!bound)
            bound = cuCtxSetCurrent(device->primary) == CUDA_SUCCESS;
        if (bound && atomic_load(&device->fault) == 0) {
            CUresult result = cuCtxSynchronize();
            if (cuda_result_is_sticky(result))
                atomic_store(&device->fault, (int)result);
        }
        cuda_memory_landing_forget(device);
        if (atomic_load(&device->fault) != 0) {
            /* See the top of this file.  Reset does not drop our
             * reference; the release after it does. */
            (void)cuDevicePrimaryCtxReset(device->handle);
            atomic_store(&device->fault, 0);
        }
        (void)cuDevicePrimaryCtxRelease(device->handle);
        device->primary = NULL;
        /* A later primary context starts without peer access, and others'
         * access to this one went with it. */
        device->peers_enabled = 0;
        if (device->ordinal < 64)
            for (int i = 0; i < cuda_device_total; ++i)
                cuda_devices[i].peers_enabled &=
                    ~((uint64_t)1 << device->ordinal);
    }
    pthread_mutex_unlock(&cuda_devices_lock);
}

kiln_status cuda_device_peer_access(cuda_device *from, cuda_device *to,
                                    int *direct)
{
    *direct = 0;
    /* Past 64 GPUs the masks end: the driver's staging serves the rest. */
    if (to->ordinal >= 64)
        return KILN_OK;
    const uint64_t bit = (uint64_t)1 << to->ordinal;
    pthread_mutex_lock(&cuda_devices_lock);
    if (from->peers_enabled & bit) {
        pthread_mutex_unlock(&cuda_devices_lock);
        *direct = 1;
        return KILN_OK;
    }
    if (from->peers_refused & bit) {
        pthread_mutex_unlock(&cuda_devices_lock);
        return KILN_OK;
    }
    int can = 0;
    const char *call = "cuDeviceCanAccessPeer";
    CUresult result = cuDeviceCanAccessPeer(&can, from->handle, to->handle);
    if (result == CUDA_SUCCESS && can) {
        call = "cuCtxSetCurrent";
        result = cuCtxSetCurrent(from->primary);
        if (result == CUDA_SUCCESS) {
            call = "cuCtxEnablePeerAccess";
            result = cuCtxEnablePeerAccess(to->primary, 0);
            /* The runtime or another library may have enabled it. */
            if (result == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
                result = CUDA_SUCCESS;
        }
    }
    if (result == CUDA_SUCCESS && can)
        from->peers_enabled |= bit;
    else
        from->peers_refused |= bit;
    pthread_mutex_unlock(&cuda_devices_lock);
    if (result != CUDA_SUCCESS && cuda_result_is_sticky(result))
        return cuda_fail(from, result, KILN_ERR_BACKEND,
                         "%s(device %d -> device %d)", call, from->ordinal,
                         to->ordinal);
    cuda_host->trace("cuda: device %d -> device %d: %s", from->ordinal,
                     to->ordinal,
                     result != CUDA_SUCCESS
                         ? cuda_result_name(result)
                     : can ? "peer access enabled"
                           : "no peer access (the driver stages copies)");
    *direct = result == CUDA_SUCCESS && can;
    return KILN_OK;
}
