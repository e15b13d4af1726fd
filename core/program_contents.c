/*
 * What a program holds: its kernels, listed by name, and the variables of
 * a CUDA C program as buffers.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

kiln_status kiln_program_get_kernel_count(const kiln_program *program,
                                          size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(count, "count");
    *count = kiln_program_built(program)->description.kernel_count;
    return KILN_OK;
}

kiln_status kiln_program_get_kernel_name(const kiln_program *program,
                                         size_t index, const char **name)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(name, "name");
    const kiln_program_description *description =
        &kiln_program_built(program)->description;
    if (index >= description->kernel_count)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: the program has %zu kernel%s; there is no "
                          "kernel %zu",
                          __func__, description->kernel_count,
                          description->kernel_count == 1 ? "" : "s", index);
    *name = description->kernels[index].name;
    return KILN_OK;
}

/* ---- the variables of a CUDA C program ----------------------------------- */

/* The memory of variable `name`: the core's buffer where the program was
 * translated, the plugin's where it is native. */
static kiln_status program_variable(kiln_program *program, const char *name,
                                    kiln_backend_memory **memory,
                                    size_t *size)
{
    kiln_context *context = program->context;
    const kiln_built_program *built = kiln_program_built(program);
    if (built->description.origin == KILN_DESCRIBED_BY_TRANSLATION) {
        for (size_t v = 0; v < built->description.variable_count; ++v)
            if (strcmp(built->description.variables[v].name, name) == 0) {
                *memory = built->variables[v].memory;
                *size = built->variables[v].size;
                return KILN_OK;
            }
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "no __device__ or __constant__ variable '%s' in "
                          "this program",
                          name);
    }
    if (context->ops->program_variable == NULL)
        return kiln_error(KILN_ERR_UNSUPPORTED,
                          "the %s plugin cannot reach a program's variables "
                          "(it leaves out the optional program_variable op)",
                          context->ops->name);
    return context->ops->program_variable(context->backend,
                                          kiln_program_built(program)->backend,
                                          name, memory, size);
}

kiln_status kiln_program_get_global(kiln_program *program, const char *name,
                                    kiln_buffer **buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(name, "name");
    KILN_CHECK_OUT(buffer, "buffer");
    kiln_context *context = program->context;
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
    kiln_status status = program_variable(program, name, &result->memory,
                                          &size);
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
