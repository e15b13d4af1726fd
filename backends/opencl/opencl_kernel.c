/*
 * Kernels: a cl_kernel by name, with what the core needs to check a launch
 * (the parameters, the work-group limits of this kernel on its device).
 */
#include "opencl_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "no kernel 'x' in program; kernels: a, b": the likely typo is in view.
 * The names come from the driver, which also knows kernels whose
 * signature could not be read. */
static kiln_status kernel_not_found(const kiln_backend_program *program,
                                    const char *name)
{
    cl_int error = CL_SUCCESS;
    char *list = opencl_kernel_names(program->program, ", ", &error);
    kiln_status status = opencl_host->error(
        KILN_ERR_KERNEL_NOT_FOUND,
        "no kernel '%s' in program; kernels: %s (clCreateKernel: "
        "CL_INVALID_KERNEL_NAME)",
        name, list != NULL && list[0] != '\0' ? list : "none");
    free(list);
    return status;
}

static kiln_status kernel_limits(kiln_backend_context *context,
                                 kiln_backend_kernel *kernel,
                                 kiln_backend_kernel_info *info)
{
    cl_device_id device = context->device->device;
    size_t group = 0, required[3] = {0, 0, 0};
    cl_ulong local = 0;
    cl_int error = clGetKernelWorkGroupInfo(kernel->kernel, device,
                                            CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof group, &group, NULL);
    if (error != CL_SUCCESS)
        return opencl_fail(
            error, KILN_ERR_BACKEND,
            "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    error = clGetKernelWorkGroupInfo(kernel->kernel, device,
                                     CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                     sizeof required, required, NULL);
    if (error != CL_SUCCESS)
        return opencl_fail(
            error, KILN_ERR_BACKEND,
            "clGetKernelWorkGroupInfo(CL_KERNEL_COMPILE_WORK_GROUP_SIZE)");
    error = clGetKernelWorkGroupInfo(kernel->kernel, device,
                                     CL_KERNEL_LOCAL_MEM_SIZE, sizeof local,
                                     &local, NULL);
    if (error != CL_SUCCESS)
        return opencl_fail(
            error, KILN_ERR_BACKEND,
            "clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)");
    info->max_threads_per_block = group;
    /* "0 0 0 if none", as the spec answers without the attribute. */
    if (required[0] == 0 || required[1] == 0 || required[2] == 0)
        required[0] = required[1] = required[2] = 0;
    memcpy(info->required_block, required, sizeof required);
    /* Queried before any argument is set: only what the kernel declares. */
    info->static_local_memory = (size_t)local;
    return KILN_OK;
}

kiln_status opencl_kernel_create(kiln_backend_context *context,
                                 kiln_backend_program *program,
                                 const char *name, kiln_backend_kernel **kernel,
                                 kiln_backend_kernel_info *info)
{
    cl_int error = CL_SUCCESS;
    cl_kernel handle = clCreateKernel(program->program, name, &error);
    if (handle == NULL || error != CL_SUCCESS) {
        if (error == CL_INVALID_KERNEL_NAME)
            return kernel_not_found(program, name);
        return opencl_fail(error, KILN_ERR_BACKEND, "clCreateKernel('%s')",
                           name);
    }
    kiln_backend_kernel *result = calloc(1, sizeof *result);
    if (result == NULL || pthread_mutex_init(&result->lock, NULL) != 0) {
        free(result);
        clReleaseKernel(handle);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    }
    result->kernel = handle;
    const opencl_signature *known = NULL;
    for (size_t i = 0; i < program->kernel_count && known == NULL; ++i)
        if (strcmp(program->kernels[i].name, name) == 0)
            known = &program->kernels[i];
    /* A kernel the program's list lacks would be a driver oddity, and one
     * listed without parameters had no argument info at the build: the
     * driver is asked again (and says why it cannot answer). */
    kiln_status status =
        known != NULL && known->params_known
            ? opencl_signature_copy(known, &result->signature)
            : opencl_signature_query(handle, context->device->address_bits,
                                     &result->signature);
    if (status == KILN_OK)
        status = kernel_limits(context, result, info);
    if (status != KILN_OK) {
        opencl_signature_free(&result->signature);
        pthread_mutex_destroy(&result->lock);
        clReleaseKernel(handle);
        free(result);
        return status;
    }
    info->param_count = result->signature.param_count;
    info->params = result->signature.params;
    *kernel = result;
    return KILN_OK;
}

void opencl_kernel_destroy(kiln_backend_context *context,
                           kiln_backend_kernel *kernel)
{
    (void)context;
    clReleaseKernel(kernel->kernel);
    opencl_signature_free(&kernel->signature);
    pthread_mutex_destroy(&kernel->lock);
    free(kernel);
}
