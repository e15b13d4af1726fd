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
 *   value   the caller's bytes, as they are;
 *   local   (OpenCL C) the translator's contract: an unsigned int byte
 *           offset of the argument's slice of dynamic shared memory; the
 *           slices follow one another in parameter order, each aligned to
 *           CLC_LOCAL_ARG_ALIGN, and the launch's dynamic shared memory is
 *           the end of the last one.
 * Native CUDA C kernels have no local parameters; their dynamic shared
 * memory (extern __shared__) is launch->local_memory.
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
    unsigned int stack_offsets[CUDA_STACK_ARGS];
    void **params = stack_params;
    unsigned int *offsets = stack_offsets;
    if (count > CUDA_STACK_ARGS) {
        params = malloc(count * sizeof *params);
        offsets = malloc(count * sizeof *offsets);
        if (params == NULL || offsets == NULL) {
            free(params);
            free(offsets);
            return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                    "out of host memory");
        }
    }

    size_t shared = 0;
    for (size_t i = 0; i < count; ++i) {
        const kiln_backend_arg *arg = &launch->args[i];
        switch (arg->kind) {
        case KILN_ARG_KIND_BUFFER:
            params[i] = &arg->memory->pointer;
            break;
        case KILN_ARG_KIND_LOCAL:
            shared = (shared + CLC_LOCAL_ARG_ALIGN - 1) /
                     CLC_LOCAL_ARG_ALIGN * CLC_LOCAL_ARG_ALIGN;
            /* Fits: the core bounds local memory by the device's. */
            offsets[i] = (unsigned int)shared;
            params[i] = &offsets[i];
            shared += arg->size;
            break;
        default: /* KILN_ARG_KIND_VALUE; the driver only reads it */
            params[i] = (void *)arg->value;
            break;
        }
    }
    shared += launch->local_memory;

    /* get_work_dim() sees what the grid and block show unless the launch
     * says more (a 2-D launch of N x 1): then the module's override is set
     * around the launch, on its stream.  Launches of one program with such
     * dimensions on several streams at once may see each other's. */
    static const unsigned work_dims[4] = {0, 1, 2, 3};
    const size_t *grid = launch->grid, *block = launch->block;
    unsigned shown = grid[2] > 1 || block[2] > 1   ? 3
                     : grid[1] > 1 || block[1] > 1 ? 2
                                                   : 1;
    unsigned wanted = launch->dimensions <= 3 ? launch->dimensions : 0;
    int override = kernel->work_dim_override != 0 && wanted > shown;
    CUstream stream = cuda_stream_of(launch->stream);
    if (override) {
        CUresult result = cuMemcpyHtoDAsync(kernel->work_dim_override,
                                            &work_dims[wanted],
                                            sizeof(unsigned), stream);
        if (result != CUDA_SUCCESS)
            status = cuda_fail(context->device, result, KILN_ERR_BACKEND,
                               "cuMemcpyHtoDAsync(kl_work_dim_override)");
    }

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
    if (override) {
        CUresult result = cuMemcpyHtoDAsync(kernel->work_dim_override,
                                            &work_dims[0], sizeof(unsigned),
                                            stream);
        if (result != CUDA_SUCCESS && status == KILN_OK)
            status = cuda_fail(context->device, result, KILN_ERR_BACKEND,
                               "cuMemcpyHtoDAsync(kl_work_dim_override)");
    }
    if (params != stack_params) {
        free(params);
        free(offsets);
    }
    return status;
}
