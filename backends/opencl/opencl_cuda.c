/*
 * CUDA C on the OpenCL backend: the source is translated to OpenCL C by
 * the front end (translate/cuda_to_opencl.c) and built like any OpenCL C
 * program; this file holds what the translation asks of the backend.
 *
 *  - Signatures: the driver's argument info describes the translated
 *    kernel; the user sees the CUDA C one (names and types as written,
 *    without the parameters the translation added).
 *  - Hidden parameters: extern __shared__ becomes a __local argument of
 *    the launch's local_memory bytes; each __device__ / __constant__
 *    variable is a buffer of the program's, passed to the kernels that
 *    use it (set once, when the kernel is created).  The pointer
 *    parameters' byte offsets come first and are the core's to pass.
 *  - Variables: their buffers are made when the program is built or
 *    loaded from the cache, sized and initialised by the translation's
 *    own two kernels, zero-filled otherwise as CUDA's are.
 */
#include "opencl_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kiln_status opencl_cuda_translate(const kiln_backend_source *source,
                                  cuda_translation *translation)
{
    clc_options options = clc_options_of(source);
    int result = cuda_translate(source->text, source->length, source->name,
                                &options, translation);
    if (result == -2)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory translating "
                                  "CUDA C");
    if (result != 0)
        return opencl_host->error(translation->unsupported
                                      ? KILN_ERR_TRANSLATION
                                      : KILN_ERR_BUILD,
                                  "%s", translation->error);
    return KILN_OK;
}

static char *text_copy(const char *text)
{
    size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (copy != NULL)
        memcpy(copy, text, length + 1);
    return copy;
}

static kiln_status out_of_memory(void)
{
    return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "opencl: out of host memory");
}

/* The CUDA C view of one translated kernel's signature. */
static kiln_status adopt_signature(opencl_signature *signature,
                                   const cuda_kernel *kernel)
{
    const clc_kernel_signature *cuda = &kernel->signature;
    if (signature->param_count != cuda->param_count + kernel->hidden_count)
        return opencl_host->error(
            KILN_ERR_BACKEND,
            "opencl: kernel '%s' has %zu parameters after translation, %zu "
            "expected (translator and backend disagree)",
            signature->name, signature->param_count,
            cuda->param_count + kernel->hidden_count);
    for (size_t p = 0; p < cuda->param_count; ++p) {
        kiln_backend_param *param = &signature->params[p];
        char *name = text_copy(cuda->params[p].name);
        char *type = text_copy(cuda->params[p].type_name);
        if (name == NULL || type == NULL) {
            free(name);
            free(type);
            return out_of_memory();
        }
        free((char *)param->name);
        free((char *)param->type_name);
        param->name = name;
        param->type_name = type;
        /* The driver's size (or the probe's, for a struct: float3 is one
         * of the prelude's, 12 bytes) must be CUDA's. */
        size_t cuda_size = cuda->params[p].size;
        if (param->kind == KILN_PARAM_VALUE && param->size == 0)
            param->size = cuda_size;
        else if (param->kind == KILN_PARAM_VALUE && cuda_size != 0 &&
                 cuda_size != param->size)
            return opencl_host->error(
                KILN_ERR_BACKEND,
                "opencl: kernel '%s' parameter %zu (%s) takes %zu bytes "
                "after translation, %zu in CUDA (translator and backend "
                "disagree)",
                signature->name, p, type, param->size, cuda_size);
    }
    for (size_t p = cuda->param_count; p < signature->param_count; ++p) {
        free((char *)signature->params[p].name);
        free((char *)signature->params[p].type_name);
    }
    signature->param_count = cuda->param_count;
    signature->hidden = calloc(kernel->hidden_count ? kernel->hidden_count : 1,
                               sizeof *signature->hidden);
    if (signature->hidden == NULL)
        return out_of_memory();
    if (kernel->hidden_count > 0)
        memcpy(signature->hidden, kernel->hidden,
               kernel->hidden_count * sizeof *signature->hidden);
    signature->hidden_count = kernel->hidden_count;
    return KILN_OK;
}

kiln_status opencl_cuda_adopt(kiln_backend_program *program,
                              const cuda_translation *translation)
{
    program->from_cuda = 1;
    size_t kept = 0;
    for (size_t k = 0; k < program->kernel_count; ++k) {
        opencl_signature *signature = &program->kernels[k];
        if (opencl_cuda_internal_kernel(signature->name)) {
            opencl_signature_free(signature);
            continue;
        }
        /* a kernel renamed for OpenCL goes by its CUDA name */
        const char *prefix = CUDA_KERNEL_RENAMED_PREFIX;
        if (strncmp(signature->name, prefix, strlen(prefix)) == 0) {
            char *name = text_copy(signature->name + strlen(prefix));
            if (name == NULL)
                return out_of_memory();
            free(signature->name);
            signature->name = name;
        }
        const cuda_kernel *kernel = NULL;
        for (size_t c = 0; c < translation->kernel_count && kernel == NULL; ++c)
            if (strcmp(translation->kernels[c].signature.name,
                       signature->name) == 0)
                kernel = &translation->kernels[c];
        if (kernel != NULL && signature->params_known) {
            kiln_status status = adopt_signature(signature, kernel);
            if (status != KILN_OK)
                return status;
        }
        if (kept != k)
            program->kernels[kept] = *signature;
        ++kept;
    }
    program->kernel_count = kept;
    program->variables = calloc(translation->variable_count
                                    ? translation->variable_count
                                    : 1,
                                sizeof *program->variables);
    if (program->variables == NULL)
        return out_of_memory();
    for (size_t v = 0; v < translation->variable_count; ++v) {
        opencl_variable *variable = &program->variables[v];
        variable->name = text_copy(translation->variables[v].name);
        if (variable->name == NULL)
            return out_of_memory();
        variable->is_constant = translation->variables[v].is_constant;
        variable->has_initializer = translation->variables[v].has_initializer;
        program->variable_count = v + 1;
    }
    return KILN_OK;
}

void opencl_cuda_variables_free(kiln_backend_program *program)
{
    for (size_t v = 0; v < program->variable_count; ++v) {
        if (program->variables[v].memory.buffer != NULL)
            clReleaseMemObject(program->variables[v].memory.buffer);
        free(program->variables[v].name);
    }
    free(program->variables);
    program->variables = NULL;
    program->variable_count = 0;
}

/* Runs one of the translation's own kernels as a single work-item. */
static kiln_status run_internal(kiln_backend_context *context,
                                kiln_backend_program *program,
                                const char *name, size_t count,
                                const cl_mem *buffers)
{
    cl_int error = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program->program, name, &error);
    if (kernel == NULL || error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND, "clCreateKernel('%s')",
                           name);
    for (size_t i = 0; i < count && error == CL_SUCCESS; ++i)
        error = clSetKernelArg(kernel, (cl_uint)i, sizeof(cl_mem), &buffers[i]);
    size_t one = 1;
    cl_command_queue queue = context->default_stream.queue;
    if (error == CL_SUCCESS)
        error = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0,
                                       NULL, NULL);
    if (error == CL_SUCCESS)
        error = clFinish(queue);
    clReleaseKernel(kernel);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "opencl: running '%s' for the program's "
                           "variables",
                           name);
    return KILN_OK;
}

kiln_status opencl_cuda_variables_create(kiln_backend_context *context,
                                         kiln_backend_program *program)
{
    size_t count = program->variable_count;
    if (count == 0)
        return KILN_OK;
    cl_int error = CL_SUCCESS;
    cl_mem sizes = clCreateBuffer(context->context, CL_MEM_READ_WRITE,
                                  count * sizeof(cl_ulong), NULL, &error);
    if (sizes == NULL || error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_OUT_OF_DEVICE_MEMORY,
                           "clCreateBuffer(%zu bytes)", count * sizeof(cl_ulong));
    kiln_status status = run_internal(context, program,
                                      CUDA_KERNEL_VARIABLE_SIZES, 1, &sizes);
    cl_ulong *values = calloc(count, sizeof *values);
    if (status == KILN_OK && values == NULL)
        status = out_of_memory();
    if (status == KILN_OK &&
        (error = clEnqueueReadBuffer(context->default_stream.queue, sizes,
                                     CL_TRUE, 0, count * sizeof *values,
                                     values, 0, NULL, NULL)) != CL_SUCCESS)
        status = opencl_fail(error, KILN_ERR_BACKEND, "clEnqueueReadBuffer");
    clReleaseMemObject(sizes);
    cl_mem *initialised = calloc(count, sizeof *initialised);
    if (status == KILN_OK && initialised == NULL)
        status = out_of_memory();
    size_t initialised_count = 0;
    for (size_t v = 0; v < count && status == KILN_OK; ++v) {
        opencl_variable *variable = &program->variables[v];
        size_t size = (size_t)values[v];
        variable->memory.size = size;
        variable->memory.buffer =
            clCreateBuffer(context->context, CL_MEM_READ_WRITE,
                           size ? size : 1, NULL, &error);
        if (variable->memory.buffer == NULL || error != CL_SUCCESS) {
            variable->memory.buffer = NULL;
            status = opencl_fail(error, KILN_ERR_OUT_OF_DEVICE_MEMORY,
                                 "clCreateBuffer(%zu bytes) for '%s'", size,
                                 variable->name);
            break;
        }
        cl_uchar zero = 0;
        error = clEnqueueFillBuffer(context->default_stream.queue,
                                    variable->memory.buffer, &zero, 1, 0,
                                    size ? size : 1, 0, NULL, NULL);
        if (error != CL_SUCCESS)
            status = opencl_fail(error, KILN_ERR_BACKEND,
                                 "clEnqueueFillBuffer for '%s'",
                                 variable->name);
        if (variable->has_initializer)
            initialised[initialised_count++] = variable->memory.buffer;
    }
    if (status == KILN_OK && initialised_count > 0)
        status = run_internal(context, program, CUDA_KERNEL_VARIABLE_INIT,
                              initialised_count, initialised);
    if (status == KILN_OK &&
        (error = clFinish(context->default_stream.queue)) != CL_SUCCESS)
        status = opencl_fail_wait(error, "clFinish");
    free(initialised);
    free(values);
    return status;
}

kiln_backend_hidden_kind opencl_hidden_kind_to_backend(cuda_hidden_kind kind)
{
    switch (kind) {
    case CUDA_HIDDEN_VARIABLE:
        return KILN_BACKEND_HIDDEN_VARIABLE;
    case CUDA_HIDDEN_POINTER_OFFSET:
        return KILN_BACKEND_HIDDEN_POINTER_OFFSET;
    case CUDA_HIDDEN_DYNAMIC_SHARED:
        break;
    }
    return KILN_BACKEND_HIDDEN_DYNAMIC_SHARED;
}

cuda_hidden_kind opencl_hidden_kind_from_backend(kiln_backend_hidden_kind kind)
{
    switch (kind) {
    case KILN_BACKEND_HIDDEN_VARIABLE:
        return CUDA_HIDDEN_VARIABLE;
    case KILN_BACKEND_HIDDEN_POINTER_OFFSET:
        return CUDA_HIDDEN_POINTER_OFFSET;
    case KILN_BACKEND_HIDDEN_DYNAMIC_SHARED:
        break;
    }
    return CUDA_HIDDEN_DYNAMIC_SHARED;
}

kiln_status opencl_cuda_kernel_bind(kiln_backend_program *program,
                                    kiln_backend_kernel *kernel)
{
    const opencl_signature *signature = &kernel->signature;
    kernel->dynamic_shared_index = -1;
    for (size_t h = 0; h < signature->hidden_count; ++h) {
        cl_uint index = (cl_uint)(signature->param_count + h);
        const cuda_hidden_param *hidden = &signature->hidden[h];
        if (hidden->kind == CUDA_HIDDEN_DYNAMIC_SHARED) {
            kernel->dynamic_shared_index = (cl_int)index;
            continue;
        }
        if (hidden->kind == CUDA_HIDDEN_POINTER_OFFSET)
            continue; /* the core passes these with the launch's args */
        if (hidden->variable >= program->variable_count)
            return opencl_host->error(KILN_ERR_BACKEND,
                                      "opencl: kernel '%s' uses variable %zu "
                                      "of %zu",
                                      signature->name, hidden->variable,
                                      program->variable_count);
        cl_mem buffer = program->variables[hidden->variable].memory.buffer;
        cl_int error = clSetKernelArg(kernel->kernel, index, sizeof buffer,
                                      &buffer);
        if (error != CL_SUCCESS)
            return opencl_fail(error, KILN_ERR_BACKEND,
                               "clSetKernelArg('%s', variable '%s')",
                               signature->name,
                               program->variables[hidden->variable].name);
    }
    return KILN_OK;
}

kiln_status opencl_program_global(kiln_backend_context *context,
                                  kiln_backend_program *program,
                                  const char *name,
                                  kiln_backend_memory **memory, size_t *size)
{
    (void)context;
    for (size_t v = 0; v < program->variable_count; ++v)
        if (strcmp(program->variables[v].name, name) == 0) {
            *memory = &program->variables[v].memory;
            *size = program->variables[v].memory.size;
            return KILN_OK;
        }
    return opencl_host->error(KILN_ERR_INVALID_ARGUMENT,
                              "no __device__ or __constant__ variable '%s' "
                              "in this program",
                              name);
}
