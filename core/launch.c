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

/* What the core passes by value for a translated kernel: a LOCAL
 * argument's offset or the work dimensions (a uint), a pointer's byte
 * offset (a ulong). */
typedef union hidden_value {
    unsigned uint_value;
    uint64_t ulong_value;
} hidden_value;

/* What a translation's kernel takes besides the user's arguments, and how
 * it takes them (the front end's contract, translate.h): LOCAL arguments
 * become offsets into the dynamic shared memory (OpenCL C on CUDA), and
 * the hidden arguments follow the user's.  Returns the launch's dynamic
 * local memory for the plugin. */
static size_t translated_args(const kiln_kernel *kernel,
                              const kiln_launch_config *config,
                              unsigned dimensions, size_t arg_count,
                              const kiln_arg *user_args, kiln_backend_arg *args,
                              hidden_value *values)
{
    const kiln_built_program *built = kernel->built;
    size_t shared = 0;
    if (kernel->local_offsets) {
        for (size_t i = 0; i < arg_count; ++i) {
            if (args[i].kind != KILN_ARG_KIND_LOCAL)
                continue;
            shared = (shared + TRANSLATE_LOCAL_ALIGN - 1) /
                     TRANSLATE_LOCAL_ALIGN * TRANSLATE_LOCAL_ALIGN;
            /* Fits: the core bounds local memory by the device's. */
            values[i].uint_value = (unsigned)shared;
            shared += args[i].size;
            args[i] = (kiln_backend_arg){.kind = KILN_ARG_KIND_VALUE,
                                         .size = sizeof(unsigned),
                                         .value = &values[i].uint_value};
        }
    }
    for (size_t h = 0; h < kernel->hidden_count; ++h) {
        kiln_backend_arg *out = &args[arg_count + h];
        const kiln_hidden_arg *hidden = &kernel->hidden[h];
        switch (hidden->kind) {
        case KILN_HIDDEN_DYNAMIC_LOCAL:
            /* CUDA C's extern __shared__; OpenCL refuses a __local size 0 */
            *out = (kiln_backend_arg){
                .kind = KILN_ARG_KIND_LOCAL,
                .size = config->local_memory ? config->local_memory : 16};
            break;
        case KILN_HIDDEN_VARIABLE:
            *out = (kiln_backend_arg){
                .kind = KILN_ARG_KIND_BUFFER,
                .memory = built->variables[hidden->variable].memory};
            break;
        case KILN_HIDDEN_WORK_DIM:
            values[arg_count + h].uint_value = dimensions;
            *out = (kiln_backend_arg){
                .kind = KILN_ARG_KIND_VALUE,
                .size = sizeof(unsigned),
                .value = &values[arg_count + h].uint_value};
            break;
        case KILN_HIDDEN_POINTER_OFFSET: {
            /* a view's byte offset in its base, which the argument is */
            const kiln_arg *arg = &user_args[hidden->variable];
            values[arg_count + h].ulong_value =
                arg->kind == KILN_ARG_KIND_BUFFER ? arg->buffer->offset : 0;
            *out = (kiln_backend_arg){
                .kind = KILN_ARG_KIND_VALUE,
                .size = sizeof(uint64_t),
                .value = &values[arg_count + h].ulong_value};
            break;
        }
        }
    }
    return kernel->local_offsets ? shared : config->local_memory;
}

/* The backend (its driver, or a limit of its own such as OpenCL's count
 * of work-groups) refused a launch the core let through: says so, with
 * the kernel's own limit when the block is over it. */
static void launch_refused(const kiln_kernel *kernel,
                           const kiln_launch_config *config)
{
    size_t threads = config->block.x * config->block.y * config->block.z;
    size_t advised = kernel->info.max_threads_per_block;
    if (advised != 0 && threads > advised)
        kiln_error_prefix(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s' with a block of %zux%zux%zu (%zu "
                          "threads; the kernel reports at most %zu) refused "
                          "by the backend",
                          kernel->name, config->block.x, config->block.y,
                          config->block.z, threads, advised);
    else
        kiln_error_prefix(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s' on a grid of %zux%zux%zu blocks of "
                          "%zux%zux%zu refused by the backend",
                          kernel->name, config->grid.x, config->grid.y,
                          config->grid.z, config->block.x, config->block.y,
                          config->block.z);
}

bool kiln_launch_has_offset_slot(const kiln_kernel *kernel, size_t index)
{
    for (size_t h = 0; h < kernel->hidden_count; ++h)
        if (kernel->hidden[h].kind == KILN_HIDDEN_POINTER_OFFSET &&
            kernel->hidden[h].variable == index)
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
    return kiln_launch_argument_error(kernel, status, index,
                          "a view at byte %zu of its buffer: %s", view->offset,
                          reason);
}

/* How a launch's host arrays were staged. */
typedef struct staging {
    staged_host_arg *staged; /* per argument                            */
    bool has_host_args;      /* some argument is a host array           */
    bool copies_back;        /* ... that is Out or InOut                */
    bool checked;            /* the context checks bounds               */
} staging;

/* The user's arguments as the plugin takes them: a buffer's memory (a
 * view's own where no offset is hidden for it), host arrays staged
 * through pooled device memory. */
static kiln_status user_args(const kiln_kernel *kernel,
                             const kiln_launch_config *config,
                             kiln_backend_stream *backend_stream,
                             size_t arg_count, const kiln_arg *args,
                             kiln_backend_arg *backend_args, staging *stage)
{
    kiln_context *context = kernel->program->context;
    kiln_status status = KILN_OK;
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
            if (arg->buffer->offset == 0 || kiln_launch_has_offset_slot(kernel, i))
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
            stage->has_host_args = true;
            stage->copies_back =
                stage->copies_back || arg->kind != KILN_ARG_KIND_IN;
            out->kind = KILN_ARG_KIND_BUFFER;
            status = kiln_stage_host_arg(context, backend_stream, arg,
                                         stage->checked, &stage->staged[i]);
            out->memory = stage->staged[i].memory;
            break;
        }
    }
    return status;
}

/* The plugin's launch, between two timed events when config->time_ms
 * asks for the kernel's time. */
static kiln_status launch_timed(const kiln_kernel *kernel,
                                const kiln_launch_config *config,
                                const kiln_backend_launch *launch)
{
    kiln_context *context = kernel->program->context;
    const kiln_backend_ops *ops = context->ops;
    kiln_backend_event *start = NULL, *end = NULL;
    kiln_status status = KILN_OK;
    if (config->time_ms != NULL) {
        status = ops->event_create(context->backend, KILN_BACKEND_EVENT_TIMED,
                                   &start);
        if (status == KILN_OK &&
            (status = ops->event_create(context->backend,
                                        KILN_BACKEND_EVENT_TIMED, &end)) ==
                KILN_OK)
            status = ops->event_record(context->backend, start,
                                       launch->stream);
    }
    if (status == KILN_OK) {
        status = ops->launch(context->backend, kernel->backend, launch);
        if (status == KILN_ERR_INVALID_LAUNCH)
            launch_refused(kernel, config);
    }
    if (status == KILN_OK && config->time_ms != NULL) {
        status = ops->event_record(context->backend, end, launch->stream);
        if (status == KILN_OK)
            status = ops->event_synchronize(context->backend, end);
        float milliseconds = 0;
        if (status == KILN_OK)
            status = ops->event_elapsed(context->backend, start, end,
                                        &milliseconds);
        if (status == KILN_OK)
            *config->time_ms = milliseconds;
    }
    if (start != NULL)
        ops->event_destroy(context->backend, start);
    if (end != NULL)
        ops->event_destroy(context->backend, end);
    return status;
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

    /* The user's arguments, then the hidden ones; `values` holds what the
     * core passes by value for them (offsets, the work dimensions). */
    size_t total = arg_count + kernel->hidden_count +
                   (kernel->bounds_report ? 1 : 0);
    kiln_backend_arg stack_args[KILN_STACK_ARGS];
    staged_host_arg stack_staged[KILN_STACK_ARGS];
    hidden_value stack_values[KILN_STACK_ARGS];
    kiln_backend_arg *backend_args = stack_args;
    hidden_value *values = stack_values;
    staging stage = {
        .staged = stack_staged,
        .checked = (atomic_load(&context->checks) & KILN_CHECK_BOUNDS) != 0,
    };
    if (total > KILN_STACK_ARGS) {
        backend_args = malloc(total * sizeof *backend_args);
        stage.staged = calloc(total, sizeof *stage.staged);
        values = calloc(total, sizeof *values);
        if (backend_args == NULL || stage.staged == NULL || values == NULL) {
            free(backend_args);
            free(stage.staged);
            free(values);
            return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "out of host memory");
        }
    } else {
        memset(stack_staged, 0, arg_count * sizeof *stage.staged);
    }

    status = user_args(kernel, config, backend_stream, arg_count, args,
                       backend_args, &stage);
    size_t local_memory = config->local_memory;
    if (status == KILN_OK &&
        (kernel->hidden_count > 0 || kernel->local_offsets))
        local_memory = translated_args(kernel, config, dimensions, arg_count,
                                       args, backend_args, values);
    /* Only a language that sizes dynamic local memory at launch (CUDA's)
     * has it; OpenCL's takes it as arguments. */
    if (context->ops->native_language != KILN_LANGUAGE_CUDA_C)
        local_memory = 0;
    kiln_bounds_report report = {0};
    if (status == KILN_OK && kernel->bounds_report)
        status = kiln_bounds_report_prepare(kernel, backend_stream, arg_count,
                                            args, &report,
                                            &backend_args[total - 1]);
    if (status == KILN_OK) {
        const kiln_backend_launch launch = {
            .struct_size = sizeof launch,
            .grid = {config->grid.x, config->grid.y, config->grid.z},
            .block = {config->block.x, config->block.y, config->block.z},
            .dimensions = dimensions,
            .local_memory = local_memory,
            .stream = backend_stream,
            .arg_count = total,
            .args = backend_args,
        };
        status = launch_timed(kernel, config, &launch);
    }

    if (status == KILN_OK && stage.copies_back)
        status = kiln_stage_copy_back(context, backend_stream, arg_count, args,
                                      stage.staged);
    /* The instrumented accesses first: they name the argument an access
     * went through, where a guard zone only shows what changed. */
    if (status == KILN_OK && report.memory != NULL)
        status = kiln_bounds_report_check(kernel, backend_stream, arg_count,
                                          args, &report);
    if (status == KILN_OK && stage.checked)
        status = kiln_stage_check_guards(kernel, backend_stream, arg_count,
                                         args, stage.staged);
    /* The read of the report waited for the kernel where it ran. */
    if (report.memory != NULL)
        kiln_bounds_report_release(context, &report, config->stream,
                                   status == KILN_OK);
    if (status == KILN_OK)
        status = kiln_launch_check_assert(kernel, backend_stream);
    if (stage.has_host_args) {
        /* Keep the first failure's message through the clean-up. */
        kiln_stage_release(context, arg_count, args, stage.staged,
                           config->stream, status == KILN_OK &&
                                               stage.copies_back);
    }
    if (backend_args != stack_args) {
        free(backend_args);
        free(stage.staged);
        free(values);
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
