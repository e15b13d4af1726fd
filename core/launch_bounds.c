/*
 * The checked mode's report of instrumented accesses (KILN_CHECK=bounds,
 * OpenCL): a kernel built in the checked mode takes, as its last
 * parameter, a buffer with the byte range of each buffer argument; its
 * first access outside one is recorded there (translate.h,
 * translate/bounds_check.c) and read back here after the launch.  Unlike
 * the guard zones (guard.c), this sees reads, and blames the argument the
 * access went through, however far it went.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void put_u64(uint32_t *words, uint64_t value)
{
    words[0] = (uint32_t)value;
    words[1] = (uint32_t)(value >> 32);
}

kiln_status kiln_bounds_report_prepare(const kiln_kernel *kernel,
                                       kiln_backend_stream *stream,
                                       size_t arg_count, const kiln_arg *args,
                                       kiln_bounds_report *report,
                                       kiln_backend_arg *out)
{
    kiln_context *context = kernel->program->context;
    size_t positions = arg_count + kernel->hidden_count;
    size_t words = TRANSLATE_BOUNDS_REPORT_WORDS(positions);
    uint32_t *ranges = calloc(words, sizeof *ranges);
    if (ranges == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t p = 0; p < positions; ++p) {
        uint32_t *range = ranges + TRANSLATE_BOUNDS_REPORT_WORDS(p);
        uint64_t start = 0, bytes = UINT64_MAX; /* not checked */
        if (p < arg_count && args[p].kind == KILN_ARG_KIND_BUFFER) {
            start = kiln_launch_has_offset_slot(kernel, p) ? args[p].buffer->offset : 0;
            bytes = args[p].buffer->size;
        } else if (p < arg_count && kiln_arg_kind_is_host(args[p].kind)) {
            bytes = args[p].size;
        }
        put_u64(range, start);
        put_u64(range + 2, bytes);
    }
    report->bytes = words * sizeof *ranges;
    kiln_status status = kiln_pool_allocate(context, report->bytes,
                                            &report->memory,
                                            &report->capacity);
    if (status == KILN_OK) {
        status = context->ops->memory_write(context->backend, stream,
                                            report->memory, 0, ranges,
                                            report->bytes, 1);
        if (status != KILN_OK) {
            kiln_pool_return(context, report->memory, report->capacity, NULL,
                             KILN_PENDING_NONE);
            report->memory = NULL;
        }
    } else {
        report->memory = NULL;
    }
    free(ranges);
    if (status == KILN_OK)
        *out = (kiln_backend_arg){.kind = KILN_ARG_KIND_BUFFER,
                                  .memory = report->memory};
    return status;
}

kiln_status kiln_bounds_report_check(const kiln_kernel *kernel,
                                     kiln_backend_stream *stream,
                                     size_t arg_count, const kiln_arg *args,
                                     const kiln_bounds_report *report)
{
    kiln_context *context = kernel->program->context;
    uint32_t head[8];
    /* A blocking read on the launch's stream: it waits for the kernel. */
    kiln_status status = context->ops->memory_read(
        context->backend, stream, report->memory, 0, head, sizeof head, 1);
    if (status != KILN_OK || head[0] == 0)
        return status;
    size_t index = head[1];
    const char *verb = head[2] ? "wrote" : "read";
    int64_t offset = (int64_t)((uint64_t)head[3] | (uint64_t)head[4] << 32);
    unsigned access = head[5];
    if (index >= arg_count)
        return kiln_error(KILN_ERR_KERNEL_FAULT,
                          "launch of '%s': the kernel %s %u byte%s at byte "
                          "offset %lld of its hidden argument %zu (checked "
                          "mode)",
                          kernel->name, verb, access, access == 1 ? "" : "s",
                          (long long)offset, index);
    const kiln_arg *arg = &args[index];
    bool buffer = arg->kind == KILN_ARG_KIND_BUFFER;
    size_t size = buffer ? arg->buffer->size : arg->size;
    const void *address = buffer ? (const void *)arg->buffer : arg->host;
    const char *what = buffer ? "the buffer" : kiln_arg_kind_word(arg->kind);
    const char *where = offset < 0 ? "before its start" : "past its end";
    return kiln_launch_argument_error(kernel, KILN_ERR_KERNEL_FAULT, index,
                          "the kernel %s %u byte%s at byte offset %lld of %s "
                          "%p of %zu bytes, %s (checked mode: an instrumented "
                          "access; it was not carried out)",
                          verb, access, access == 1 ? "" : "s",
                          (long long)offset, what, address, size, where);
}

void kiln_bounds_report_release(kiln_context *context,
                                kiln_bounds_report *report,
                                kiln_stream *stream, bool finished)
{
    if (report->memory == NULL)
        return;
    kiln_pool_return(context, report->memory, report->capacity, stream,
                     finished ? KILN_PENDING_NONE : KILN_PENDING_ONE_STREAM);
    report->memory = NULL;
}
