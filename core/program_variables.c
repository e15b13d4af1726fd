/*
 * The __device__ and __constant__ variables of a CUDA C program translated
 * to OpenCL C: one buffer each, made when the program is built or loaded
 * from the cache.  OpenCL C 1.2 has no program-scope variables a host can
 * reach, so the translation passes each to the kernels that use it as a
 * hidden argument (core/launch.c appends it), and gives the program two
 * kernels of its own (translate.h): one that writes each variable's size,
 * one that writes the initial values of those that have one.  The others
 * start zero-filled, as CUDA's do.  Everything here goes through the
 * plugin's ordinary ops.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Runs the program's kernel `name` as one work-item with `count` buffers
 * as its arguments, on the default stream. */
static kiln_status run_single(kiln_context *context,
                              kiln_built_program *built, const char *name,
                              size_t count, kiln_backend_memory *const *buffers)
{
    const kiln_backend_ops *ops = context->ops;
    kiln_backend_kernel *kernel = NULL;
    kiln_backend_kernel_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    kiln_status status =
        ops->kernel_create(context->backend, built->backend, name, &kernel,
                           &info);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "the program's variables");
    kiln_backend_arg *args = calloc(count ? count : 1, sizeof *args);
    if (args == NULL) {
        ops->kernel_destroy(context->backend, kernel);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    for (size_t i = 0; i < count; ++i)
        args[i] = (kiln_backend_arg){.kind = KILN_ARG_KIND_BUFFER,
                                     .memory = buffers[i]};
    const kiln_backend_launch launch = {
        .struct_size = sizeof launch,
        .grid = {1, 1, 1},
        .block = {1, 1, 1},
        .dimensions = 1,
        .arg_count = count,
        .args = args,
    };
    status = ops->launch(context->backend, kernel, &launch);
    free(args);
    ops->kernel_destroy(context->backend, kernel);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "running '%s' for the program's "
                                         "variables",
                                 name);
    return KILN_OK;
}

/* Each variable's size in bytes, as the translated program's own kernel
 * writes them. */
static kiln_status variable_sizes(kiln_context *context,
                                  kiln_built_program *built, uint64_t *sizes)
{
    size_t count = built->description.variable_count;
    kiln_backend_memory *memory = NULL;
    kiln_status status = context->ops->memory_alloc(
        context->backend, count * sizeof *sizes, &memory);
    if (status != KILN_OK)
        return status;
    status = run_single(context, built, TRANSLATE_KERNEL_VARIABLE_SIZES, 1,
                        &memory);
    if (status == KILN_OK)
        status = context->ops->memory_read(context->backend, NULL, memory, 0,
                                           sizes, count * sizeof *sizes, 1);
    context->ops->memory_free(context->backend, memory);
    return status;
}

kiln_status kiln_program_variables_create(kiln_context *context,
                                          kiln_built_program *built)
{
    const kiln_program_description *description = &built->description;
    size_t count = description->variable_count;
    if (description->origin != KILN_DESCRIBED_BY_TRANSLATION || count == 0)
        return KILN_OK;
    built->variables = calloc(count, sizeof *built->variables);
    uint64_t *sizes = calloc(count, sizeof *sizes);
    kiln_backend_memory **initialised = calloc(count, sizeof *initialised);
    kiln_status status = KILN_OK;
    if (built->variables == NULL || sizes == NULL || initialised == NULL)
        status = kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    if (status == KILN_OK)
        status = variable_sizes(context, built, sizes);
    size_t initialised_count = 0;
    static const unsigned char zero = 0;
    for (size_t v = 0; v < count && status == KILN_OK; ++v) {
        kiln_program_variable *variable = &built->variables[v];
        variable->size = (size_t)sizes[v];
        size_t bytes = variable->size ? variable->size : 1;
        status = context->ops->memory_alloc(context->backend, bytes,
                                            &variable->memory);
        if (status != KILN_OK) {
            variable->memory = NULL;
            kiln_error_prefix(status, "variable '%s'",
                              description->variables[v].name);
            break;
        }
        status = context->ops->memory_fill(context->backend, NULL,
                                           variable->memory, 0, bytes, &zero,
                                           1, 0);
        if (description->variables[v].has_initializer)
            initialised[initialised_count++] = variable->memory;
    }
    if (status == KILN_OK && initialised_count > 0)
        status = run_single(context, built, TRANSLATE_KERNEL_VARIABLE_INIT,
                            initialised_count, initialised);
    if (status == KILN_OK)
        status = context->ops->stream_synchronize(context->backend, NULL);
    free(initialised);
    free(sizes);
    return status;
}

void kiln_program_variables_free(kiln_context *context,
                                 kiln_built_program *built)
{
    if (built->variables == NULL)
        return;
    for (size_t v = 0; v < built->description.variable_count; ++v)
        if (built->variables[v].memory != NULL)
            context->ops->memory_free(context->backend,
                                      built->variables[v].memory);
    free(built->variables);
    built->variables = NULL;
}
