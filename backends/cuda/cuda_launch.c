/*
 * Launches: the hot path.  The core has checked the arguments against the
 * kernel and the geometry against the device; this only lays the
 * arguments out for cuLaunchKernel, on the stack for up to
 * CUDA_STACK_ARGS of them, and raises the kernel's dynamic shared memory
 * limit the first time a launch needs more than it allows.
 *
 * Argument layout (cuLaunchKernel's kernelParams: one pointer per
 * parameter, to its value):
 *   buffer  a pointer to the CUdeviceptr inside the memory object;
 *   value   the caller's bytes, as they are.
 * CUDA C has no local parameters; the dynamic shared memory (extern
 * __shared__) is launch->local_memory.
 */
#include "cuda_private.h"

#include <limits.h>
#include <stdlib.h>

#define CUDA_STACK_ARGS 32

/* Raising the limit is rare (once per kernel and size), so one lock for
 * all kernels is enough. */
static pthread_mutex_t cuda_kernel_attribute_lock = PTHREAD_MUTEX_INITIALIZER;

static kiln_status cuda_kernel_allow_shared(kiln_backend_context *context,
                                            kiln_backend_kernel *kernel,
                                            size_t bytes)
{
    if (bytes > INT_MAX || bytes > context->shared_optin)
        return cuda_host->error(KILN_ERR_INVALID_LAUNCH,
                                "%zu bytes of dynamic shared memory is more "
                                "than the %zu a block may have",
                                bytes, context->shared_optin);
    kiln_status status = KILN_OK;
    pthread_mutex_lock(&cuda_kernel_attribute_lock);
    /* Kiln kernels created twice from one program share their CUfunction,
     * so the driver's current value is read first: one kernel must never
     * lower the limit another has raised. */
    int current = 0;
    CUresult result = cuFuncGetAttribute(
        &current, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        kernel->function);
    if (result == CUDA_SUCCESS && (size_t)current >= bytes) {
        atomic_store(&kernel->dynamic_shared_limit, (size_t)current);
    } else if (result == CUDA_SUCCESS) {
        /* The value needed, not the device's maximum: the limit only
         * permits, and asking for no more than needed keeps the driver's
         * choice of the shared memory carveout free for other launches. */
        result = cuFuncSetAttribute(
            kernel->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            (int)bytes);
        if (result == CUDA_SUCCESS)
            atomic_store(&kernel->dynamic_shared_limit, bytes);
    }
    if (result != CUDA_SUCCESS)
        status = cuda_fail(context->device, result,
                           result == CUDA_ERROR_INVALID_VALUE
                               ? KILN_ERR_INVALID_LAUNCH
                               : KILN_ERR_BACKEND,
                           "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_"
                           "SHARED_SIZE_BYTES, %zu) (static and dynamic shared "
                           "memory together may not exceed %zu bytes)",
                           bytes, context->shared_optin);
    pthread_mutex_unlock(&cuda_kernel_attribute_lock);
    return status;
}

kiln_status cuda_kernel_launch(kiln_backend_context *context,
                               kiln_backend_kernel *kernel,
                               const kiln_backend_launch *launch)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;

    size_t count = launch->arg_count;
    void *stack_params[CUDA_STACK_ARGS];
    void **params = stack_params;
    if (count > CUDA_STACK_ARGS) {
        params = malloc(count * sizeof *params);
        if (params == NULL)
            return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                    "out of host memory");
    }
    for (size_t i = 0; i < count; ++i) {
        const kiln_backend_arg *arg = &launch->args[i];
        params[i] = arg->kind == KILN_ARG_KIND_BUFFER
                        ? (void *)&arg->memory->pointer
                        : (void *)arg->value; /* the driver only reads it */
    }
    size_t shared = launch->local_memory;
    CUstream stream = cuda_stream_of(launch->stream);

    if (status == KILN_OK &&
        shared > atomic_load_explicit(&kernel->dynamic_shared_limit,
                                      memory_order_relaxed))
        status = cuda_kernel_allow_shared(context, kernel, shared);
    if (status == KILN_OK) {
        CUresult result = cuLaunchKernel(
            kernel->function, (unsigned int)launch->grid[0],
            (unsigned int)launch->grid[1], (unsigned int)launch->grid[2],
            (unsigned int)launch->block[0], (unsigned int)launch->block[1],
            (unsigned int)launch->block[2], (unsigned int)shared,
            stream, params, NULL);
        if (result != CUDA_SUCCESS)
            status = cuda_fail(context->device, result,
                               result == CUDA_ERROR_INVALID_VALUE
                                   ? KILN_ERR_INVALID_LAUNCH
                                   : KILN_ERR_BACKEND,
                               "cuLaunchKernel(grid %zux%zux%zu, block "
                               "%zux%zux%zu, %zu bytes of dynamic shared "
                               "memory)",
                               launch->grid[0], launch->grid[1],
                               launch->grid[2], launch->block[0],
                               launch->block[1], launch->block[2], shared);
    }
    if (params != stack_params)
        free(params);
    return status;
}
