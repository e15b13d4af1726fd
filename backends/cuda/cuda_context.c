/*
 * Contexts: a device's primary context (see cuda_device.c), what NVRTC
 * builds for it, and the native handles Kiln hands out for interop.
 */
#include "cuda_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kiln_status cuda_context_create(int index, kiln_backend_context **context)
{
    cuda_device *device = cuda_device_get(index);
    kiln_backend_context *result = calloc(1, sizeof *result);
    if (result == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    result->device = device;
    kiln_status status = cuda_device_acquire(device, &result->context);
    if (status != KILN_OK) {
        free(result);
        return status;
    }
    status = cuda_context_bind(result);
    int major = 0, minor = 0, optin = 0;
    CUresult failed = CUDA_SUCCESS;
    if (status == KILN_OK &&
        ((failed = cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
              device->handle)) != CUDA_SUCCESS ||
         (failed = cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
              device->handle)) != CUDA_SUCCESS ||
         (failed = cuDeviceGetAttribute(
              &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              device->handle)) != CUDA_SUCCESS))
        status = cuda_fail(device, failed, KILN_ERR_BACKEND,
                           "cuDeviceGetAttribute(device %d)", index);
    if (status != KILN_OK) {
        cuda_device_release(device);
        free(result);
        return status;
    }
    cuda_target_choose(major, minor, &result->target);
    result->shared_optin = (size_t)optin;
    if (cuda_host->trace != NULL) {
        char target[32];
        cuda_target_name(&result->target, target, sizeof target);
        cuda_host->trace("cuda: device %d is sm_%d%d; NVRTC builds %s%s",
                         index, major, minor, target,
                         result->target.is_ptx
                             ? " (PTX, JIT-compiled by the driver)"
                             : "");
    }
    *context = result;
    return KILN_OK;
}

void cuda_context_destroy(kiln_backend_context *context)
{
    cuda_device_release(context->device);
    free(context);
}

kiln_status cuda_context_synchronize(kiln_backend_context *context)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUresult result = cuCtxSynchronize();
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuCtxSynchronize");
    return KILN_OK;
}

kiln_status cuda_context_cache_identity(kiln_backend_context *context,
                                        char *buffer, size_t size)
{
    /* The driver's version matters to PTX (JIT-compiled by it) and to the
     * CUBINs it accepts; NVRTC's to the code; the target to the image's
     * form (program_load_image checks it). */
    int driver = cuda_backend_driver_version();
    int nvrtc_major = 0, nvrtc_minor = 0;
    cuda_nvrtc_version(&nvrtc_major, &nvrtc_minor);
    char target[32];
    cuda_target_name(&context->target, target, sizeof target);
    int written = snprintf(buffer, size,
                           "cuda driver %d nvrtc %d.%d sm_%d target %s",
                           driver, nvrtc_major, nvrtc_minor,
                           context->target.device_sm, target);
    if (written < 0 || (size_t)written >= size)
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "cache identity needs %d bytes, %zu given",
                                written + 1, size);
    return KILN_OK;
}

static kiln_status cuda_handle_write(const char *type, const void *handle,
                                     size_t handle_size, void *out,
                                     size_t size)
{
    if (size != handle_size)
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "a %s is %zu bytes; the output is %zu bytes",
                                type, handle_size, size);
    memcpy(out, handle, handle_size);
    return KILN_OK;
}

kiln_status cuda_context_native_handle(kiln_backend_context *context,
                                       kiln_native_kind kind,
                                       const void *object, void *out,
                                       size_t size)
{
    switch (kind) {
    case KILN_NATIVE_CONTEXT:
        return cuda_handle_write("CUcontext", &context->context,
                                 sizeof context->context, out, size);
    case KILN_NATIVE_DEVICE:
        return cuda_handle_write("CUdevice", &context->device->handle,
                                 sizeof context->device->handle, out, size);
    case KILN_NATIVE_STREAM: {
        /* NULL: the legacy default stream, whose handle is 0. */
        CUstream stream = cuda_stream_of(object);
        return cuda_handle_write("CUstream", &stream, sizeof stream, out,
                                 size);
    }
    case KILN_NATIVE_MEMORY: {
        const kiln_backend_memory *memory = object;
        if (memory == NULL)
            break;
        return cuda_handle_write("CUdeviceptr", &memory->pointer,
                                 sizeof memory->pointer, out, size);
    }
    case KILN_NATIVE_EVENT: {
        const kiln_backend_event *event = object;
        if (event == NULL)
            break;
        return cuda_handle_write("CUevent", &event->event, sizeof event->event,
                                 out, size);
    }
    case KILN_NATIVE_KERNEL: {
        const kiln_backend_kernel *kernel = object;
        if (kernel == NULL)
            break;
        return cuda_handle_write("CUfunction", &kernel->function,
                                 sizeof kernel->function, out, size);
    }
    }
    return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                            "no native handle of kind %d for this object",
                            (int)kind);
}
