/*
 * Kernels: a named entry point of a program and what it takes.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* The hidden pointer offsets of `kernel`, read from the program's list of
 * its kernels (plugins before ABI 2.5 have none). */
static void find_offset_slots(kiln_program *program, kiln_kernel *kernel)
{
    kiln_context *context = program->context;
    const kiln_backend_program_info *info = NULL;
    if (context->ops->program_kernels == NULL ||
        context->ops->program_kernels(context->backend, program->backend,
                                      &info) != KILN_OK ||
        info == NULL) {
        kiln_error_clear();
        return;
    }
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_signature *signature = &info->kernels[k];
        if (signature->name == NULL || strcmp(signature->name, kernel->name))
            continue;
        size_t count = 0;
        while (count < signature->hidden_count &&
               signature->hidden[count].kind ==
                   KILN_BACKEND_HIDDEN_POINTER_OFFSET &&
               signature->hidden[count].variable < kernel->info.param_count)
            ++count;
        kernel->offset_slots = count > 0 ? signature->hidden : NULL;
        kernel->offset_count = count;
        return;
    }
}

kiln_status kiln_kernel_create(kiln_program *program, const char *name,
                               kiln_kernel **kernel)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(name, "name");
    KILN_CHECK_OUT(kernel, "kernel");
    if (name[0] == '\0')
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_kernel_create: the kernel name is empty");
    kiln_kernel *result = calloc(1, sizeof *result);
    if (result == NULL || (result->name = kiln_strdup(name)) == NULL) {
        free(result);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    kiln_context *context = program->context;
    kiln_spare_kernel *spare =
        kiln_built_program_take_spare(program->built, name);
    if (spare != NULL) {
        result->backend = spare->backend;
        result->info = spare->info;
        atomic_store(&result->param_classes, spare->param_classes);
        free(spare->name);
        free(spare);
    } else {
        kiln_status status = context->ops->kernel_create(
            context->backend, program->backend, name, &result->backend,
            &result->info);
        if (status != KILN_OK) {
            free(result->name);
            free(result);
            return status;
        }
    }
    if (result->info.param_count > 0 && result->info.params == NULL) {
        context->ops->kernel_destroy(context->backend, result->backend);
        free(atomic_load(&result->param_classes));
        free(result->name);
        free(result);
        return kiln_error(KILN_ERR_BACKEND,
                          "backend %s gave no parameter list for '%s'",
                          context->ops->name, name);
    }
    find_offset_slots(program, result);
    /* The kernel keeps its program (and so the context) alive. */
    result->program = program;
    kiln_handle_init(result, KILN_MAGIC_KERNEL, &program->references);
    *kernel = result;
    return KILN_OK;
}

kiln_status kiln_kernel_retain(kiln_kernel *kernel)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    kiln_refcount_retain(&kernel->references);
    return KILN_OK;
}

kiln_status kiln_kernel_release(kiln_kernel *kernel)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    bool last = false;
    kiln_status status = kiln_refcount_release(
        &kernel->references, __func__, "kernel", NULL, &last);
    if (last) {
        kiln_program *program = kernel->program;
        kiln_context *context = program->context;
        /* The backend kernel waits for the next kiln_kernel_create of its
         * name (the name goes with it). */
        unsigned char *classes = atomic_load(&kernel->param_classes);
        if (!kiln_built_program_keep_spare(program->built, kernel->name,
                                           kernel->backend, &kernel->info,
                                           classes)) {
            context->ops->kernel_destroy(context->backend, kernel->backend);
            free(kernel->name);
            free(classes);
        }
        kernel->name = NULL;
        atomic_store(&kernel->param_classes, NULL);
        kiln_prepared_types_free(atomic_load(&kernel->prepared));
        kiln_handle_bury(kernel);
        kiln_program_release_internal(program);
    }
    return status;
}

kiln_status kiln_kernel_get_name(const kiln_kernel *kernel, const char **name)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(name, "name");
    *name = kernel->name;
    return KILN_OK;
}

kiln_status kiln_kernel_get_param_count(const kiln_kernel *kernel,
                                        size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(count, "count");
    *count = kernel->info.param_count;
    return KILN_OK;
}

kiln_status kiln_kernel_get_param_info_sized(const kiln_kernel *kernel,
                                             size_t index,
                                             kiln_param_info *info,
                                             size_t info_size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(info, "info");
    if (index >= kernel->info.param_count)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kernel '%s' has %zu parameter%s; there is no "
                          "parameter %zu",
                          kernel->name, kernel->info.param_count,
                          kernel->info.param_count == 1 ? "" : "s", index);
    const kiln_backend_param *param = &kernel->info.params[index];
    kiln_param_info result = {
        .kind = param->kind,
        .size = param->size,
        .name = param->name ? param->name : "",
        .type_name = param->type_name ? param->type_name : "",
    };
    return kiln_struct_out(info, info_size, &result, sizeof result,
                           sizeof(kiln_param_info),
                           "kiln_kernel_get_param_info");
}

kiln_status kiln_kernel_get_max_block_size(const kiln_kernel *kernel,
                                           size_t *threads)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(threads, "threads");
    size_t limit = kernel->program->context->device.max_threads_per_block;
    if (kernel->info.max_threads_per_block != 0 &&
        (limit == 0 || kernel->info.max_threads_per_block < limit))
        limit = kernel->info.max_threads_per_block;
    /* reqd_work_group_size allows exactly one block shape (backends such
     * as OpenCL report the device's limit for such kernels). */
    const size_t *required = kernel->info.required_block;
    if (required[0] != 0) {
        size_t fixed = required[0] * required[1] * required[2];
        if (limit == 0 || fixed < limit)
            limit = fixed;
    }
    *threads = limit;
    return KILN_OK;
}

kiln_status kiln_kernel_get_native(const kiln_kernel *kernel, void *out,
                                   size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(out, "out");
    kiln_context *context = kernel->program->context;
    return context->ops->native_handle(context->backend, KILN_NATIVE_KERNEL,
                                       kernel->backend, out, size);
}
