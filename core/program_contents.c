/*
 * What a program holds: its kernels, listed by name, and the variables of
 * a CUDA C program as buffers.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* The program's kernels as its plugin describes them (the plugin's
 * storage, fixed when the program was built or loaded). */
static kiln_status program_kernel_list(const kiln_program *program,
                                       const char *caller,
                                       const kiln_backend_program_info **out)
{
    kiln_context *context = program->context;
    if (context->ops->program_kernels == NULL)
        return kiln_error(KILN_ERR_UNSUPPORTED,
                          "%s: the %s plugin cannot list a program's kernels "
                          "(it leaves out the optional program_kernels op)",
                          caller, context->ops->name);
    const kiln_backend_program_info *info = NULL;
    kiln_status status = context->ops->program_kernels(
        context->backend, program->backend, &info);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "%s", caller);
    if (info == NULL || (info->kernel_count > 0 && info->kernels == NULL))
        return kiln_error(KILN_ERR_BACKEND,
                          "%s: backend %s gave no kernel list", caller,
                          context->ops->name);
    *out = info;
    return KILN_OK;
}

kiln_status kiln_program_get_kernel_count(const kiln_program *program,
                                      size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(count, "count");
    const kiln_backend_program_info *info;
    kiln_status status = program_kernel_list(program, __func__, &info);
    if (status != KILN_OK)
        return status;
    *count = info->kernel_count;
    return KILN_OK;
}

kiln_status kiln_program_get_kernel_name(const kiln_program *program, size_t index,
                                     const char **name)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(name, "name");
    const kiln_backend_program_info *info;
    kiln_status status = program_kernel_list(program, __func__, &info);
    if (status != KILN_OK)
        return status;
    if (index >= info->kernel_count)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: the program has %zu kernel%s; there is no "
                          "kernel %zu",
                          __func__, info->kernel_count,
                          info->kernel_count == 1 ? "" : "s", index);
    if (info->kernels[index].name == NULL)
        return kiln_error(KILN_ERR_BACKEND,
                          "%s: backend %s gave kernel %zu no name", __func__,
                          program->context->ops->name, index);
    *name = info->kernels[index].name;
    return KILN_OK;
}

/* ---- the variables of a CUDA C program ----------------------------------- */

kiln_status kiln_program_get_global(kiln_program *program, const char *name,
                                    kiln_buffer **buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(name, "name");
    KILN_CHECK_OUT(buffer, "buffer");
    kiln_context *context = program->context;
    if (context->ops->program_global == NULL)
        return kiln_error(KILN_ERR_UNSUPPORTED,
                          "%s: the %s plugin cannot reach a program's "
                          "variables (it was built for an older plugin ABI "
                          "than 2.3: rebuild it)",
                          __func__, context->ops->name);
    if (program->language != KILN_LANGUAGE_CUDA_C)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s('%s'): only CUDA C programs have __device__ "
                          "and __constant__ variables",
                          __func__, name);
    kiln_buffer *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "%s: out of host memory", __func__);
    size_t size = 0;
    kiln_status status = context->ops->program_global(
        context->backend, program->backend, name, &result->memory, &size);
    if (status == KILN_OK && size == 0)
        status = kiln_error(KILN_ERR_BACKEND, "%s('%s'): the variable has no "
                                              "size",
                            __func__, name);
    if (status != KILN_OK) {
        free(result);
        return kiln_error_prefix(status, "%s", __func__);
    }
    kiln_refcount_hold(&program->references);
    result->owner = program;
    result->context = context;
    result->size = size;
    result->capacity = size;
    atomic_init(&result->last_stream, NULL);
    atomic_init(&result->used_async, false);
    atomic_init(&result->used_on_several_streams, false);
    kiln_handle_init(result, KILN_MAGIC_BUFFER, &context->references);
    *buffer = result;
    return KILN_OK;
}
