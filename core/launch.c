/*
 * Launches: checked (launch_check.c), host In/Out arguments staged
 * (launch_stage.c), and only then handed to the backend.  This is the hot
 * path: no allocation for up to KILN_STACK_ARGS arguments.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver refused a launch the core let through: says so, with the
 * kernel's own limit when the block is over it. */
static void launch_refused(const kiln_kernel *kernel,
                           const kiln_launch_config *config)
{
    size_t threads = config->block.x * config->block.y * config->block.z;
    size_t advised = kernel->info.max_threads_per_block;
    if (advised != 0 && threads > advised)
        kiln_error_prefix(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s' with a block of %zux%zux%zu (%zu "
                          "threads; the kernel reports at most %zu) refused "
                          "by the driver",
                          kernel->name, config->block.x, config->block.y,
                          config->block.z, threads, advised);
    else
        kiln_error_prefix(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s' with a block of %zux%zux%zu "
                          "refused by the driver",
                          kernel->name, config->block.x, config->block.y,
                          config->block.z);
}

static kiln_status argument_error(const kiln_kernel *kernel, kiln_status status,
                                  size_t index, const char *format, ...)
    KILN_PRINTF_LIKE(4, 5);
static kiln_status argument_error(const kiln_kernel *kernel, kiln_status status,
                                  size_t index, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    kiln_launch_argument_error_v(kernel, status, index, format, args);
    va_end(args);
    return status;
}

/* Whether parameter `index` has a hidden byte offset, so that a view is
 * passed as its base's memory and its offset. */
static bool has_offset_slot(const kiln_kernel *kernel, size_t index)
{
    for (size_t j = 0; j < kernel->offset_count; ++j)
        if (kernel->offset_slots[j].variable == index)
            return true;
    return false;
}

/* A view at an offset for a parameter without a hidden offset: memory of
 * its own, where the backend can make it. */
static kiln_status view_memory(const kiln_kernel *kernel, size_t index,
                               kiln_buffer *view, kiln_backend_memory **memory)
{
    kiln_status status = kiln_buffer_first_byte(view, memory);
    if (status == KILN_OK)
        return KILN_OK;
    char reason[512];
    snprintf(reason, sizeof reason, "%s", kiln_last_error());
    return argument_error(kernel, status, index,
                          "a view at byte %zu of its buffer: %s", view->offset,
                          reason);
}

kiln_status kiln_launch_checked(kiln_kernel *kernel,
                                const kiln_launch_config *user_config,
                                size_t arg_count, const kiln_arg *args)
{
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(user_config, "config");
    kiln_launch_config config_read;
    kiln_status status =
        kiln_struct_in(&config_read, sizeof config_read, user_config,
                       sizeof(kiln_launch_config), "kiln_launch_config");
    if (status != KILN_OK)
        return status;
    const kiln_launch_config *config = &config_read;
    kiln_context *context = kernel->program->context;
    kiln_backend_stream *backend_stream = NULL;
    status = kiln_stream_resolve(context, config->stream, &backend_stream);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "launch of '%s'", kernel->name);
    unsigned dimensions = 1;
    if ((status = kiln_launch_check_geometry(kernel, config, &dimensions)) !=
            KILN_OK ||
        (status = kiln_launch_check_args(kernel, arg_count, args,
                                         config->local_memory)) != KILN_OK)
        return status;

    /* A translated CUDA C kernel's pointer offsets follow the user's
     * arguments (kiln_backend.h: KILN_BACKEND_HIDDEN_POINTER_OFFSET). */
    size_t offset_count = kernel->offset_count;
    size_t backend_count = arg_count + offset_count;
    kiln_backend_arg stack_args[KILN_STACK_ARGS];
    staged_host_arg stack_staged[KILN_STACK_ARGS];
    uint64_t stack_offsets[KILN_STACK_ARGS];
    kiln_backend_arg *backend_args = stack_args;
    staged_host_arg *staged = stack_staged;
    uint64_t *offsets = stack_offsets;
    if (backend_count > KILN_STACK_ARGS) {
        backend_args = malloc(backend_count * sizeof *backend_args);
        staged = calloc(arg_count ? arg_count : 1, sizeof *staged);
        offsets = malloc((offset_count ? offset_count : 1) * sizeof *offsets);
        if (backend_args == NULL || staged == NULL || offsets == NULL) {
            free(backend_args);
            free(staged);
            free(offsets);
            return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "out of host memory");
        }
    } else {
        memset(stack_staged, 0, arg_count * sizeof *staged);
    }
    for (size_t j = 0; j < offset_count; ++j) {
        size_t param = kernel->offset_slots[j].variable;
        const kiln_arg *arg = param < arg_count ? &args[param] : NULL;
        offsets[j] = arg != NULL && arg->kind == KILN_ARG_KIND_BUFFER
                         ? (uint64_t)arg->buffer->offset
                         : 0;
        backend_args[arg_count + j] = (kiln_backend_arg){
            .kind = KILN_ARG_KIND_VALUE,
            .size = sizeof offsets[j],
            .value = &offsets[j],
        };
    }

    bool has_host_args = false, copies_back = false;
    bool checked = (atomic_load(&context->checks) & KILN_CHECK_BOUNDS) != 0;
    for (size_t i = 0; i < arg_count && status == KILN_OK; ++i) {
        const kiln_arg *arg = &args[i];
        kiln_backend_arg *out = &backend_args[i];
        out->size = arg->size;
        out->value = arg->kind == KILN_ARG_KIND_VALUE ? kiln_arg_value(arg)
                                                      : NULL;
        out->memory = NULL;
        switch (arg->kind) {
        case KILN_ARG_KIND_BUFFER:
            out->kind = KILN_ARG_KIND_BUFFER;
            if (arg->buffer->offset == 0 || has_offset_slot(kernel, i))
                out->memory = arg->buffer->memory; /* the base's */
            else
                status = view_memory(kernel, i, arg->buffer, &out->memory);
            kiln_buffer_note_async_use(arg->buffer, config->stream);
            break;
        case KILN_ARG_KIND_VALUE:
        case KILN_ARG_KIND_LOCAL:
            out->kind = arg->kind;
            break;
        default: /* host arrays: stage through pooled device memory */
            has_host_args = true;
            copies_back = copies_back || arg->kind != KILN_ARG_KIND_IN;
            out->kind = KILN_ARG_KIND_BUFFER;
            status = kiln_stage_host_arg(context, backend_stream, arg, checked,
                                         &staged[i]);
            out->memory = staged[i].memory;
            break;
        }
    }

    kiln_backend_event *start = NULL, *end = NULL;
    if (status == KILN_OK && config->time_ms != NULL) {
        status = context->ops->event_create(context->backend, &start);
        if (status == KILN_OK &&
            (status = context->ops->event_create(context->backend, &end)) ==
                KILN_OK)
            status = context->ops->event_record(context->backend, start,
                                                backend_stream);
    }
    if (status == KILN_OK) {
        const kiln_backend_launch launch = {
            .grid = {config->grid.x, config->grid.y, config->grid.z},
            .block = {config->block.x, config->block.y, config->block.z},
            .local_memory = config->local_memory,
            .stream = backend_stream,
            .arg_count = backend_count,
            .args = backend_args,
            .dimensions = dimensions,
        };
        status = context->ops->launch(context->backend, kernel->backend,
                                      &launch);
        if (status == KILN_ERR_INVALID_LAUNCH)
            launch_refused(kernel, config);
    }
    if (status == KILN_OK && config->time_ms != NULL) {
        status = context->ops->event_record(context->backend, end,
                                            backend_stream);
        if (status == KILN_OK)
            status = context->ops->event_synchronize(context->backend, end);
        float milliseconds = 0;
        if (status == KILN_OK)
            status = context->ops->event_elapsed(context->backend, start, end,
                                                 &milliseconds);
        if (status == KILN_OK)
            *config->time_ms = milliseconds;
    }
    if (start != NULL)
        context->ops->event_destroy(context->backend, start);
    if (end != NULL)
        context->ops->event_destroy(context->backend, end);

    if (status == KILN_OK && copies_back)
        status = kiln_stage_copy_back(context, backend_stream, arg_count, args,
                                      staged);
    if (status == KILN_OK && checked)
        status = kiln_stage_check_guards(kernel, backend_stream, arg_count,
                                         args, staged);
    if (has_host_args) {
        /* Keep the first failure's message through the clean-up. */
        kiln_stage_release(context, arg_count, args, staged, config->stream,
                           status == KILN_OK && copies_back);
    }
    if (backend_args != stack_args) {
        free(backend_args);
        free(staged);
        free(offsets);
    }
    return status;
}

kiln_status kiln_launch(kiln_kernel *kernel, const kiln_launch_config *config,
                        size_t arg_count, const kiln_arg *args)
{
    kiln_error_clear();
    /* Checked here too, so that the message names kiln_launch. */
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    return kiln_launch_checked(kernel, config, arg_count, args);
}
