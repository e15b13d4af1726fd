/*
 * Buffers shared between processes of one machine: a buffer's handle, and
 * a buffer opened from another process's handle.  The core owns the
 * handle's frame (what it is, which backend, the size, who exported it);
 * the plugin fills the rest with what its driver needs (CUDA: a
 * CUipcMemHandle and the buffer's place in its allocation).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IPC_MAGIC "KilnIPC1"

/* The layout of kiln_ipc_handle's bytes.  Fixed-width fields, written and
 * read on one machine (one byte order). */
typedef struct ipc_frame {
    char magic[8];
    char backend[16];     /* ops->name, NUL-padded                       */
    uint64_t size;        /* the exported buffer's size in bytes         */
    uint64_t process;     /* the exporter's process id                   */
    uint32_t payload_size;
    uint32_t reserved;    /* 0                                            */
    unsigned char payload[KILN_IPC_HANDLE_SIZE - 48];
} ipc_frame;

_Static_assert(sizeof(ipc_frame) == KILN_IPC_HANDLE_SIZE,
               "the frame fills kiln_ipc_handle exactly");

static kiln_status ipc_unsupported(const char *function,
                                   const kiln_context *context)
{
    return kiln_error(KILN_ERR_UNSUPPORTED,
                      "%s: the %s backend cannot share device memory between "
                      "processes (%s has no IPC handles): stage the data "
                      "through host memory (kiln_buffer_read, send, "
                      "kiln_buffer_write)",
                      function, context->ops->name,
                      strcmp(context->ops->name, "opencl") == 0
                          ? "OpenCL"
                          : "its plugin");
}

kiln_status kiln_buffer_get_ipc_handle(kiln_buffer *buffer,
                                       kiln_ipc_handle *handle)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    KILN_CHECK_OUT(handle, "handle");
    kiln_context *context = buffer->context;
    if (buffer->owner != NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_buffer_get_ipc_handle: the buffer is a "
                          "program's variable (kiln_program_get_global), "
                          "which the driver cannot share: copy it into a "
                          "buffer of its own");
    if (buffer->base != NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_buffer_get_ipc_handle: the buffer is a view "
                          "(kiln_buffer_create_view): share its base buffer "
                          "and send the view's offset along");
    if (buffer->opened_ipc)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_buffer_get_ipc_handle: the buffer was "
                          "opened from another process's handle: pass that "
                          "handle on instead");
    if (context->ops->memory_ipc_export == NULL)
        return ipc_unsupported(__func__, context);
    ipc_frame frame;
    memset(&frame, 0, sizeof frame);
    memcpy(frame.magic, IPC_MAGIC, sizeof frame.magic);
    strncpy(frame.backend, context->ops->name, sizeof frame.backend - 1);
    frame.size = buffer->size;
    frame.process = (uint64_t)getpid();
    size_t payload_size = sizeof frame.payload;
    kiln_status status = context->ops->memory_ipc_export(
        context->backend, buffer->memory, frame.payload, &payload_size);
    if (status == KILN_ERR_UNSUPPORTED && kiln_last_error()[0] == '\0')
        return ipc_unsupported(__func__, context);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "kiln_buffer_get_ipc_handle");
    if (payload_size > sizeof frame.payload)
        return kiln_error(KILN_ERR_BACKEND,
                          "kiln_buffer_get_ipc_handle: the %s plugin wrote "
                          "%zu bytes into room for %zu",
                          context->ops->name, payload_size,
                          sizeof frame.payload);
    frame.payload_size = (uint32_t)payload_size;
    memcpy(handle->bytes, &frame, sizeof frame);
    kiln_trace("kiln_buffer_get_ipc_handle: %zu bytes on %s (%s)",
               buffer->size, context->device.name, context->ops->name);
    return KILN_OK;
}

/* Checks the frame of a handle to open in `context`. */
static kiln_status frame_check(const ipc_frame *frame,
                               const kiln_context *context)
{
    const char *function = "kiln_buffer_open_ipc_handle";
    if (memcmp(frame->magic, IPC_MAGIC, sizeof frame->magic) != 0 ||
        memchr(frame->backend, '\0', sizeof frame->backend) == NULL ||
        frame->reserved != 0 || frame->payload_size == 0 ||
        frame->payload_size > sizeof frame->payload)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: the bytes are not a handle from "
                          "kiln_buffer_get_ipc_handle (sent whole, %d "
                          "bytes?)",
                          function, KILN_IPC_HANDLE_SIZE);
    if (strcmp(frame->backend, context->ops->name) != 0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: the handle is of a %s buffer; the context is "
                          "on the %s backend",
                          function, frame->backend, context->ops->name);
    if (frame->process == (uint64_t)getpid())
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: this process exported the handle: use the "
                          "buffer itself (kiln_buffer_copy reaches another "
                          "context's buffers)",
                          function);
    if (frame->size == 0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: the handle names a buffer of %llu bytes",
                          function, (unsigned long long)frame->size);
    return KILN_OK;
}

kiln_status kiln_buffer_open_ipc_handle(kiln_context *context,
                                        const kiln_ipc_handle *handle,
                                        kiln_buffer **buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(handle, "handle");
    KILN_CHECK_OUT(buffer, "buffer");
    ipc_frame frame;
    memcpy(&frame, handle->bytes, sizeof frame);
    kiln_status status = frame_check(&frame, context);
    if (status != KILN_OK)
        return status;
    if (context->ops->memory_ipc_open == NULL)
        return ipc_unsupported(__func__, context);
    kiln_buffer *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "kiln_buffer_open_ipc_handle: out of host memory");
    status = context->ops->memory_ipc_open(context->backend, frame.payload,
                                           frame.payload_size,
                                           (size_t)frame.size,
                                           &result->memory);
    if (status != KILN_OK) {
        free(result);
        return kiln_error_prefix(status,
                                 "kiln_buffer_open_ipc_handle(a buffer of "
                                 "%llu bytes of process %llu, on %s)",
                                 (unsigned long long)frame.size,
                                 (unsigned long long)frame.process,
                                 context->device.name);
    }
    result->context = context;
    result->size = (size_t)frame.size;
    result->capacity = (size_t)frame.size;
    result->opened_ipc = true;
    atomic_init(&result->last_stream, NULL);
    atomic_init(&result->used_async, false);
    atomic_init(&result->used_on_several_streams, false);
    kiln_handle_init(result, KILN_MAGIC_BUFFER, &context->references);
    *buffer = result;
    kiln_trace("kiln_buffer_open_ipc_handle: %llu bytes of process %llu on "
               "%s (%s)",
               (unsigned long long)frame.size,
               (unsigned long long)frame.process, context->device.name,
               context->ops->name);
    return KILN_OK;
}
