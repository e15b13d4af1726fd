/*
 * Host arrays around a launch (PyCUDA's In, Out and InOut): each is staged
 * through pooled device memory (guarded in the checked mode), copied in
 * before the kernel and back after it, and returned to the pool.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

kiln_status kiln_stage_host_arg(kiln_context *context,
                                kiln_backend_stream *stream,
                                const kiln_arg *arg, bool checked,
                                staged_host_arg *staged)
{
    kiln_status status;
    if (checked && kiln_guard_possible(context, arg->size))
        status = kiln_guard_allocate(context, arg->size, &staged->guarded,
                                     &staged->capacity, &staged->memory);
    else
        status = kiln_pool_allocate(context, arg->size, &staged->memory,
                                    &staged->capacity);
    if (status != KILN_OK) {
        staged->memory = NULL;
        return status;
    }
    if (arg->kind == KILN_ARG_KIND_OUT)
        return KILN_OK;
    return context->ops->memory_write(context->backend, stream,
                                      staged->memory, 0, arg->host, arg->size,
                                      1);
}

kiln_status kiln_stage_copy_back(kiln_context *context,
                                 kiln_backend_stream *stream, size_t arg_count,
                                 const kiln_arg *args,
                                 const staged_host_arg *staged)
{
    kiln_status status = KILN_OK;
    for (size_t i = 0; i < arg_count && status == KILN_OK; ++i)
        if (args[i].kind == KILN_ARG_KIND_OUT ||
            args[i].kind == KILN_ARG_KIND_INOUT)
            status = context->ops->memory_read(context->backend, stream,
                                               staged[i].memory, 0,
                                               args[i].host, args[i].size, 1);
    return status;
}

void kiln_stage_release(kiln_context *context, size_t arg_count,
                        const kiln_arg *args, staged_host_arg *staged,
                        kiln_stream *stream, bool finished)
{
    kiln_pending_work pending =
        finished ? KILN_PENDING_NONE : KILN_PENDING_ONE_STREAM;
    for (size_t i = 0; i < arg_count; ++i) {
        if (!kiln_arg_kind_is_host(args[i].kind) || staged[i].memory == NULL)
            continue;
        if (staged[i].guarded != NULL)
            kiln_guard_free(context, staged[i].guarded, staged[i].capacity,
                            staged[i].memory, stream, pending);
        else
            kiln_pool_return(context, staged[i].memory, staged[i].capacity,
                             stream, pending);
    }
}

kiln_status kiln_stage_check_guards(const kiln_kernel *kernel,
                                    kiln_backend_stream *stream,
                                    size_t arg_count, const kiln_arg *args,
                                    const staged_host_arg *staged)
{
    kiln_context *context = kernel->program->context;
    kiln_status result = KILN_OK;
    /* With several guarded arguments, a write far past one of them can
     * land in another's zone: a change away from a buffer's edge is then
     * reported as what it is, not as that buffer's overrun. */
    size_t guarded_count = 0;
    for (size_t i = 0; i < arg_count; ++i)
        guarded_count += (args[i].kind == KILN_ARG_KIND_BUFFER &&
                          kiln_buffer_owner(args[i].buffer)->guarded) ||
                         (kiln_arg_kind_is_host(args[i].kind) &&
                          staged[i].guarded);
    for (size_t i = 0; i < arg_count; ++i) {
        const kiln_arg *arg = &args[i];
        kiln_backend_memory *guarded = NULL;
        const void *address = NULL;
        if (arg->kind == KILN_ARG_KIND_BUFFER) {
            guarded = kiln_buffer_owner(arg->buffer)->guarded;
            address = arg->buffer;
        } else if (kiln_arg_kind_is_host(arg->kind)) {
            guarded = staged[i].guarded;
            address = arg->host;
        }
        if (guarded == NULL)
            continue;
        size_t size = arg->kind == KILN_ARG_KIND_BUFFER
                          ? kiln_buffer_owner(arg->buffer)->size
                          : arg->size;
        kiln_string report = {0};
        bool at_edge = true;
        kiln_status status = kiln_guard_check(context, stream, guarded, size,
                                              &report, &at_edge);
        const char *what = arg->kind == KILN_ARG_KIND_BUFFER
                               ? "the buffer"
                               : kiln_arg_kind_word(arg->kind);
        const char *staged_note = arg->kind == KILN_ARG_KIND_BUFFER
                                      ? ""
                                      : " (staged on the device)";
        if (status == KILN_OK && report.length > 0 && result == KILN_OK &&
            (at_edge || guarded_count < 2))
            status = kiln_launch_argument_error(
                kernel, KILN_ERR_KERNEL_FAULT, i,
                "the kernel wrote outside %s %p of %zu bytes%s: %s were "
                "overwritten (checked mode)",
                what, address, size, staged_note, report.data);
        else if (status == KILN_OK && report.length > 0 && result == KILN_OK)
            status = kiln_launch_argument_error(
                kernel, KILN_ERR_KERNEL_FAULT, i,
                "the kernel wrote into the guard zone of %s %p of %zu "
                "bytes%s, away from the buffer: %s were overwritten "
                "(checked mode).  Not a run over this buffer's end: an "
                "index that skipped past it, or a write far past another "
                "of the launch's guarded arguments (%zu in all) that landed "
                "there",
                what, address, size, staged_note, report.data,
                guarded_count);
        kiln_string_free(&report);
        if (result == KILN_OK)
            result = status;
    }
    return result;
}
