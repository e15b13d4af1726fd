/*
 * Launching: Kiln's grid of blocks becomes an NDRange whose global size is
 * grid x block and whose local size is block.
 */
#include "opencl_private.h"

#include <stdint.h>

/* The most work-groups one launch may have (see opencl_kernel_launch). */
#define OPENCL_MAX_GROUPS ((size_t)UINT32_MAX)

/* The Kiln status of a clSetKernelArg error. */
static kiln_status argument_status(cl_int error)
{
    switch (error) {
    case CL_INVALID_ARG_SIZE:
        return KILN_ERR_ARGUMENT_SIZE;
    case CL_INVALID_ARG_VALUE:
    case CL_INVALID_MEM_OBJECT:
    case CL_INVALID_SAMPLER:
        return KILN_ERR_ARGUMENT_KIND;
    case CL_INVALID_ARG_INDEX:
        return KILN_ERR_ARGUMENT_COUNT;
    default:
        return KILN_ERR_BACKEND;
    }
}

/* The Kiln status of a clEnqueueNDRangeKernel error. */
static kiln_status enqueue_status(cl_int error)
{
    switch (error) {
    case CL_INVALID_WORK_GROUP_SIZE:
    case CL_INVALID_WORK_ITEM_SIZE:
    case CL_INVALID_GLOBAL_WORK_SIZE:
    case CL_INVALID_GLOBAL_OFFSET:
    case CL_INVALID_WORK_DIMENSION:
    case CL_OUT_OF_RESOURCES:
        return KILN_ERR_INVALID_LAUNCH;
    case CL_INVALID_KERNEL_ARGS:
        return KILN_ERR_ARGUMENT_COUNT;
    default:
        return KILN_ERR_BACKEND;
    }
}

static cl_int argument_set(cl_kernel kernel, cl_uint index,
                           const kiln_backend_arg *arg)
{
    switch (arg->kind) {
    case KILN_ARG_KIND_BUFFER:
        return clSetKernelArg(kernel, index, sizeof(cl_mem),
                              &arg->memory->buffer);
    case KILN_ARG_KIND_LOCAL:
        return clSetKernelArg(kernel, index, arg->size, NULL);
    default:
        return clSetKernelArg(kernel, index, arg->size, arg->value);
    }
}

kiln_status opencl_kernel_launch(kiln_backend_context *context,
                                 kiln_backend_kernel *kernel,
                                 const kiln_backend_launch *launch)
{
    const size_t *grid = launch->grid, *block = launch->block;
    /* What get_work_dim() returns: the core passes config.dimensions, or
     * the fewest that hold the launch (drivers pick work-group shapes and
     * fast paths by work_dim). */
    cl_uint dimensions = launch->dimensions >= 1 && launch->dimensions <= 3
                             ? launch->dimensions
                             : 1;
    size_t global[3];
    for (int i = 0; i < 3; ++i)
        global[i] = grid[i] * block[i]; /* the core checked the product */
    /* Each axis may be within the device's limits and the whole not:
     * PoCL's scheduler counts a launch's work-groups in 32 bits, so 2^32
     * of them wrap to 0 and it divides by zero (PoCL 3.1: SIGFPE/SIGILL).
     * No OpenCL driver promises more, and no launch that fits in memory
     * needs more (2^32 groups of one work-item are 4 G work-items). */
    size_t groups = grid[0] * grid[1] * grid[2]; /* the core checked it */
    if (groups > OPENCL_MAX_GROUPS)
        return opencl_host->error(
            KILN_ERR_INVALID_LAUNCH,
            "opencl: a grid of %zu work-groups (%zux%zux%zu) is more than "
            "the %llu an OpenCL launch may have (PoCL counts them in 32 "
            "bits)",
            groups, grid[0], grid[1], grid[2],
            (unsigned long long)OPENCL_MAX_GROUPS);
    cl_command_queue queue =
        opencl_stream_resolve(context, launch->stream)->queue;
    const opencl_signature *signature = &kernel->signature;

    /* Arguments live in the cl_kernel until the enqueue copies them: the
     * two steps must not interleave with another thread's. */
    pthread_mutex_lock(&kernel->lock);
    for (size_t i = 0; i < launch->arg_count; ++i) {
        cl_int error = argument_set(kernel->kernel, (cl_uint)i,
                                    &launch->args[i]);
        if (error != CL_SUCCESS) {
            pthread_mutex_unlock(&kernel->lock);
            const char *name = i < signature->param_count
                                   ? signature->params[i].name
                                   : "";
            return opencl_fail(error, argument_status(error),
                               "clSetKernelArg('%s', argument %zu%s%s, %zu "
                               "bytes)",
                               signature->name, i, name[0] ? " " : "", name,
                               launch->args[i].kind == KILN_ARG_KIND_BUFFER
                                   ? sizeof(cl_mem)
                                   : launch->args[i].size);
        }
    }
    cl_int error = clEnqueueNDRangeKernel(queue, kernel->kernel, dimensions,
                                          NULL, global, block, 0, NULL, NULL);
    pthread_mutex_unlock(&kernel->lock);
    if (error == CL_OUT_OF_RESOURCES)
        return opencl_host->error(
            KILN_ERR_INVALID_LAUNCH,
            "clEnqueueNDRangeKernel('%s', global %zux%zux%zu, local "
            "%zux%zux%zu): CL_OUT_OF_RESOURCES (%d): the block needs more "
            "registers or local memory than the device has, or an earlier "
            "kernel faulted",
            signature->name, global[0], global[1], global[2], block[0],
            block[1], block[2], (int)error);
    if (error != CL_SUCCESS)
        return opencl_fail(error, enqueue_status(error),
                           "clEnqueueNDRangeKernel('%s', global %zux%zux%zu, "
                           "local %zux%zux%zu)",
                           signature->name, global[0], global[1], global[2],
                           block[0], block[1], block[2]);
    return KILN_OK;
}
