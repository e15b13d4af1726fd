/*
 * Launches: the grid and block are checked against the device and the
 * kernel, the arguments against the kernel's real parameters, host In/Out
 * arguments are staged through pooled device memory, and only then does
 * the backend see the launch.  This is the hot path: no allocation for up
 * to STACK_ARGS arguments.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_ARGS 32

static const char *param_kind_word(kiln_param_kind kind)
{
    switch (kind) {
    case KILN_PARAM_BUFFER:
        return "a buffer";
    case KILN_PARAM_LOCAL:
        return "a local-memory size";
    case KILN_PARAM_VALUE:
        return "a value";
    case KILN_PARAM_POINTER_OR_VALUE:
        return "a buffer or a value";
    }
    return "an argument";
}

static const char *arg_kind_word(kiln_arg_kind kind)
{
    switch (kind) {
    case KILN_ARG_KIND_BUFFER:
        return "a buffer";
    case KILN_ARG_KIND_VALUE:
        return "a value";
    case KILN_ARG_KIND_LOCAL:
        return "a local-memory size";
    case KILN_ARG_KIND_IN:
        return "a host In array";
    case KILN_ARG_KIND_OUT:
        return "a host Out array";
    case KILN_ARG_KIND_INOUT:
        return "a host InOut array";
    }
    return "an unknown kind";
}

/* "(float* a, int n)" for messages. */
static void kernel_signature(const kiln_kernel *kernel, kiln_string *text)
{
    kiln_string_append(text, "(", 1);
    for (size_t i = 0; i < kernel->info.param_count; ++i) {
        const kiln_param_info *param = &kernel->info.params[i];
        const char *type = param->type_name && param->type_name[0]
                               ? param->type_name
                               : "?";
        const char *name = param->name ? param->name : "";
        kiln_string_appendf(text, "%s%s%s%s", i ? ", " : "", type,
                            name[0] ? " " : "", name);
    }
    kiln_string_append(text, ")", 1);
}

static kiln_status check_geometry(const kiln_kernel *kernel,
                                  const kiln_launch_config *config)
{
    const kiln_context *context = kernel->program->context;
    const kiln_device_info *device = &context->device;
    const size_t grid[3] = {config->grid.x, config->grid.y, config->grid.z};
    const size_t block[3] = {config->block.x, config->block.y,
                             config->block.z};
    static const char axis[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; ++i) {
        if (grid[i] == 0 || block[i] == 0)
            return kiln_error(KILN_ERR_INVALID_LAUNCH,
                              "launch of '%s': %s.%c is 0; every dimension "
                              "must be at least 1",
                              kernel->name, grid[i] == 0 ? "grid" : "block",
                              axis[i]);
    }
    /* First, as the most specific reason: a kernel compiled for one block
     * shape (the CUDA backend also turns it into the kernel's thread
     * limit, which would otherwise be reported instead). */
    const size_t *required = kernel->info.required_block;
    if (required[0] != 0 &&
        (required[0] != block[0] || required[1] != block[1] ||
         required[2] != block[2]))
        return kiln_error(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s': the kernel requires a block of "
                          "%zux%zux%zu (reqd_work_group_size), got "
                          "%zux%zux%zu",
                          kernel->name, required[0], required[1], required[2],
                          block[0], block[1], block[2]);
    size_t threads = block[0];
    if (block[1] > SIZE_MAX / threads ||
        (threads *= block[1], block[2] > SIZE_MAX / threads))
        return kiln_error(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s': block %zux%zux%zu overflows",
                          kernel->name, block[0], block[1], block[2]);
    threads *= block[2];
    size_t limit = device->max_threads_per_block;
    if (kernel->info.max_threads_per_block != 0 &&
        (limit == 0 || kernel->info.max_threads_per_block < limit))
        limit = kernel->info.max_threads_per_block;
    if (limit != 0 && threads > limit)
        return kiln_error(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s': a block of %zu threads "
                          "(%zux%zux%zu) is more than the %zu this kernel "
                          "allows on %s",
                          kernel->name, threads, block[0], block[1], block[2],
                          limit, device->name);
    for (int i = 0; i < 3; ++i) {
        if (device->max_block[i] != 0 && block[i] > device->max_block[i])
            return kiln_error(KILN_ERR_INVALID_LAUNCH,
                              "launch of '%s': block.%c = %zu is more than "
                              "the device's %zu",
                              kernel->name, axis[i], block[i],
                              device->max_block[i]);
        if (device->max_grid[i] != 0 && grid[i] > device->max_grid[i])
            return kiln_error(KILN_ERR_INVALID_LAUNCH,
                              "launch of '%s': grid.%c = %zu is more than "
                              "the device's %zu",
                              kernel->name, axis[i], grid[i],
                              device->max_grid[i]);
        if (grid[i] > SIZE_MAX / block[i])
            return kiln_error(KILN_ERR_INVALID_LAUNCH,
                              "launch of '%s': grid.%c x block.%c overflows",
                              kernel->name, axis[i], axis[i]);
    }
    if (config->local_memory != 0 &&
        kernel->program->language != KILN_LANGUAGE_CUDA_C)
        return kiln_error(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s': config.local_memory is for CUDA C "
                          "kernels; give OpenCL C kernels their local memory "
                          "as KILN_ARG_LOCAL arguments",
                          kernel->name);
    return KILN_OK;
}

static kiln_status argument_error(const kiln_kernel *kernel, kiln_status status,
                                  size_t index, const char *format, ...)
    KILN_PRINTF_LIKE(4, 5);
static kiln_status argument_error(const kiln_kernel *kernel, kiln_status status,
                                  size_t index, const char *format, ...)
{
    char detail[512];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    const kiln_param_info *param = &kernel->info.params[index];
    kiln_string signature = {0};
    kernel_signature(kernel, &signature);
    kiln_error(status, "launch of '%s'%s: argument %zu (%s%s%s): %s",
               kernel->name, signature.data ? signature.data : "", index,
               param->type_name && param->type_name[0] ? param->type_name
                                                       : "?",
               param->name && param->name[0] ? " " : "",
               param->name ? param->name : "", detail);
    kiln_string_free(&signature);
    return status;
}

static bool arg_is_host(kiln_arg_kind kind)
{
    return kind == KILN_ARG_KIND_IN || kind == KILN_ARG_KIND_OUT ||
           kind == KILN_ARG_KIND_INOUT;
}

static kiln_status check_args(const kiln_kernel *kernel, size_t arg_count,
                              const kiln_arg *args, size_t local_memory)
{
    const kiln_context *context = kernel->program->context;
    if (arg_count != kernel->info.param_count) {
        kiln_string signature = {0};
        kernel_signature(kernel, &signature);
        kiln_error(KILN_ERR_ARGUMENT_COUNT,
                   "launch of '%s'%s: the kernel takes %zu argument%s, %zu "
                   "given",
                   kernel->name, signature.data ? signature.data : "",
                   kernel->info.param_count,
                   kernel->info.param_count == 1 ? "" : "s", arg_count);
        kiln_string_free(&signature);
        return KILN_ERR_ARGUMENT_COUNT;
    }
    if (arg_count > 0 && args == NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "launch of '%s': args is NULL", kernel->name);
    size_t local_total = kernel->info.static_local_memory + local_memory;
    for (size_t i = 0; i < arg_count; ++i) {
        const kiln_param_info *param = &kernel->info.params[i];
        const kiln_arg *arg = &args[i];
        bool host = arg_is_host(arg->kind);
        bool pointer_sized = param->size == sizeof(void *) || param->size == 0;
        bool accepted;
        switch (param->kind) {
        case KILN_PARAM_BUFFER:
            accepted = arg->kind == KILN_ARG_KIND_BUFFER || host;
            break;
        case KILN_PARAM_LOCAL:
            accepted = arg->kind == KILN_ARG_KIND_LOCAL;
            break;
        case KILN_PARAM_VALUE:
            accepted = arg->kind == KILN_ARG_KIND_VALUE;
            break;
        case KILN_PARAM_POINTER_OR_VALUE:
            accepted = arg->kind == KILN_ARG_KIND_VALUE ||
                       ((arg->kind == KILN_ARG_KIND_BUFFER || host) &&
                        pointer_sized);
            break;
        default:
            accepted = false;
        }
        if (!accepted)
            return argument_error(kernel, KILN_ERR_ARGUMENT_KIND, i,
                                  "takes %s, got %s",
                                  param_kind_word(param->kind),
                                  arg_kind_word(arg->kind));
        switch (arg->kind) {
        case KILN_ARG_KIND_BUFFER:
            if (arg->buffer == NULL ||
                arg->buffer->magic != KILN_MAGIC_BUFFER)
                return argument_error(kernel, KILN_ERR_INVALID_HANDLE, i,
                                      "the buffer is %s",
                                      arg->buffer ? "not a live buffer"
                                                  : "NULL");
            if (arg->buffer->context != context)
                return argument_error(kernel, KILN_ERR_CONTEXT_MISMATCH, i,
                                      "the buffer belongs to another context");
            break;
        case KILN_ARG_KIND_VALUE:
            if (arg->value == NULL)
                return argument_error(kernel, KILN_ERR_INVALID_ARGUMENT, i,
                                      "the value pointer is NULL");
            if (param->size != 0 && arg->size != param->size)
                return argument_error(kernel, KILN_ERR_ARGUMENT_SIZE, i,
                                      "%zu bytes given, the parameter takes "
                                      "%zu",
                                      arg->size, param->size);
            if (arg->size == 0)
                return argument_error(kernel, KILN_ERR_ARGUMENT_SIZE, i,
                                      "a value of 0 bytes");
            break;
        case KILN_ARG_KIND_LOCAL:
            if (arg->size == 0)
                return argument_error(kernel, KILN_ERR_INVALID_SIZE, i,
                                      "0 bytes of local memory");
            if (arg->size > SIZE_MAX - local_total)
                local_total = SIZE_MAX;
            else
                local_total += arg->size;
            break;
        default: /* host arrays */
            if (arg->host == NULL)
                return argument_error(kernel, KILN_ERR_INVALID_ARGUMENT, i,
                                      "the host pointer is NULL");
            if (arg->size == 0)
                return argument_error(kernel, KILN_ERR_INVALID_SIZE, i,
                                      "a host array of 0 bytes");
            break;
        }
    }
    if (context->device.local_memory != 0 &&
        local_total > context->device.local_memory)
        return kiln_error(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s': %zu bytes of local memory is more "
                          "than the %llu bytes a block may have on %s",
                          kernel->name, local_total,
                          (unsigned long long)context->device.local_memory,
                          context->device.name);
    return KILN_OK;
}

typedef struct staged_host_arg {
    kiln_backend_memory *memory;
    size_t capacity;
} staged_host_arg;

/* Returns the staging memory of the host arguments to the pool. */
static void release_staging(kiln_context *context, size_t arg_count,
                            const kiln_arg *args, staged_host_arg *staged,
                            kiln_stream *stream)
{
    for (size_t i = 0; i < arg_count; ++i)
        if (arg_is_host(args[i].kind) && staged[i].memory != NULL)
            kiln_pool_return(context, staged[i].memory, staged[i].capacity,
                             stream, KILN_PENDING_ONE_STREAM);
}

kiln_status kiln_launch_checked(kiln_kernel *kernel,
                                const kiln_launch_config *config,
                                size_t arg_count, const kiln_arg *args)
{
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    kiln_context *context = kernel->program->context;
    kiln_backend_stream *backend_stream = NULL;
    kiln_status status =
        kiln_stream_resolve(context, config->stream, &backend_stream);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "launch of '%s'", kernel->name);
    if ((status = check_geometry(kernel, config)) != KILN_OK)
        return status;
    if ((status = check_args(kernel, arg_count, args, config->local_memory)) !=
        KILN_OK)
        return status;

    kiln_backend_arg stack_args[STACK_ARGS];
    staged_host_arg stack_staged[STACK_ARGS];
    kiln_backend_arg *backend_args = stack_args;
    staged_host_arg *staged = stack_staged;
    if (arg_count > STACK_ARGS) {
        backend_args = malloc(arg_count * sizeof *backend_args);
        staged = calloc(arg_count, sizeof *staged);
        if (backend_args == NULL || staged == NULL) {
            free(backend_args);
            free(staged);
            return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "out of host memory");
        }
    } else {
        memset(stack_staged, 0, arg_count * sizeof *staged);
    }

    bool has_host_args = false, copies_back = false;
    for (size_t i = 0; i < arg_count && status == KILN_OK; ++i) {
        const kiln_arg *arg = &args[i];
        kiln_backend_arg *out = &backend_args[i];
        out->size = arg->size;
        out->value = arg->value;
        out->memory = NULL;
        switch (arg->kind) {
        case KILN_ARG_KIND_BUFFER:
            out->kind = KILN_ARG_KIND_BUFFER;
            out->memory = arg->buffer->memory;
            kiln_buffer_note_async_use(arg->buffer, config->stream);
            break;
        case KILN_ARG_KIND_VALUE:
        case KILN_ARG_KIND_LOCAL:
            out->kind = arg->kind;
            break;
        default: /* host arrays: stage through pooled device memory */
            has_host_args = true;
            out->kind = KILN_ARG_KIND_BUFFER;
            status = kiln_pool_allocate(context, arg->size, &staged[i].memory,
                                        &staged[i].capacity);
            if (status != KILN_OK) {
                staged[i].memory = NULL;
                break;
            }
            out->memory = staged[i].memory;
            if (arg->kind != KILN_ARG_KIND_OUT)
                status = context->ops->memory_write(
                    context->backend, backend_stream, staged[i].memory, 0,
                    arg->host, arg->size, 1);
            else
                copies_back = true;
            if (arg->kind == KILN_ARG_KIND_INOUT)
                copies_back = true;
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
            .arg_count = arg_count,
            .args = backend_args,
        };
        status = context->ops->launch(context->backend, kernel->backend,
                                      &launch);
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

    if (status == KILN_OK && copies_back) {
        for (size_t i = 0; i < arg_count && status == KILN_OK; ++i)
            if (args[i].kind == KILN_ARG_KIND_OUT ||
                args[i].kind == KILN_ARG_KIND_INOUT)
                status = context->ops->memory_read(
                    context->backend, backend_stream, staged[i].memory, 0,
                    args[i].host, args[i].size, 1);
    }
    if (has_host_args) {
        /* Keep the first failure's message through the clean-up. */
        release_staging(context, arg_count, args, staged, config->stream);
    }
    if (backend_args != stack_args) {
        free(backend_args);
        free(staged);
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

/* ---- prepared launches ------------------------------------------------------ */

#define PREPARED_MAX_ARGS 64

typedef union prepared_value {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    size_t z;
    float f;
    double d;
} prepared_value;

/* Checks a type string and writes one type character per argument into
 * `kinds` (spaces dropped).  Separate from the va_arg walk so the parser
 * can be tested and fuzzed on its own. */
kiln_status kiln_prepared_parse(const char *types, char *kinds, size_t capacity,
                                size_t *count)
{
    static const char accepted[] = "PcChHiIlLzfdS<>=";
    size_t n = 0;
    for (size_t position = 0; types[position] != '\0'; ++position) {
        char type = types[position];
        if (type == ' ')
            continue;
        if (strchr(accepted, type) == NULL)
            return kiln_error(
                KILN_ERR_INVALID_ARGUMENT,
                "type string '%.80s': position %zu: unknown type '%c' (use "
                "P c C h H i I l L z f d S < > =)",
                types, position + 1,
                (type >= 32 && type < 127) ? type : '?');
        if (n == capacity)
            return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                              "type string '%.80s': more than %zu arguments",
                              types, capacity);
        kinds[n++] = type;
    }
    *count = n;
    return KILN_OK;
}

kiln_status kiln_launch_prepared(kiln_kernel *kernel,
                                 const kiln_launch_config *config,
                                 const char *types, ...)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    KILN_CHECK_OUT(types, "types");
    char kinds[PREPARED_MAX_ARGS];
    size_t count = 0;
    kiln_status status =
        kiln_prepared_parse(types, kinds, PREPARED_MAX_ARGS, &count);
    if (status != KILN_OK)
        return status;
    kiln_arg args[PREPARED_MAX_ARGS];
    prepared_value values[PREPARED_MAX_ARGS];
    va_list list;
    va_start(list, types);
    for (size_t i = 0; i < count; ++i) {
        kiln_arg *arg = &args[i];
        prepared_value *value = &values[i];
        memset(arg, 0, sizeof *arg);
        arg->kind = KILN_ARG_KIND_VALUE;
        arg->value = value;
        switch (kinds[i]) {
        case 'P':
            arg->kind = KILN_ARG_KIND_BUFFER;
            arg->value = NULL;
            arg->buffer = va_arg(list, kiln_buffer *);
            break;
        case 'c':
            value->i8 = (int8_t)va_arg(list, int);
            arg->size = 1;
            break;
        case 'C':
            value->u8 = (uint8_t)va_arg(list, int);
            arg->size = 1;
            break;
        case 'h':
            value->i16 = (int16_t)va_arg(list, int);
            arg->size = 2;
            break;
        case 'H':
            value->u16 = (uint16_t)va_arg(list, int);
            arg->size = 2;
            break;
        case 'i':
            value->i32 = va_arg(list, int32_t);
            arg->size = 4;
            break;
        case 'I':
            value->u32 = va_arg(list, uint32_t);
            arg->size = 4;
            break;
        case 'l':
            value->i64 = va_arg(list, int64_t);
            arg->size = 8;
            break;
        case 'L':
            value->u64 = va_arg(list, uint64_t);
            arg->size = 8;
            break;
        case 'z':
            value->z = va_arg(list, size_t);
            arg->size = sizeof(size_t);
            break;
        case 'f':
            value->f = (float)va_arg(list, double);
            arg->size = 4;
            break;
        case 'd':
            value->d = va_arg(list, double);
            arg->size = 8;
            break;
        case 'S':
            arg->kind = KILN_ARG_KIND_LOCAL;
            arg->value = NULL;
            arg->size = va_arg(list, size_t);
            break;
        default: /* '<' '>' '=' */
            arg->kind = kinds[i] == '<'   ? KILN_ARG_KIND_IN
                        : kinds[i] == '>' ? KILN_ARG_KIND_OUT
                                          : KILN_ARG_KIND_INOUT;
            arg->value = NULL;
            arg->host = va_arg(list, void *);
            arg->size = va_arg(list, size_t);
            break;
        }
    }
    va_end(list);
    return kiln_launch_checked(kernel, config, count, args);
}

/* ---- argument lists ---------------------------------------------------------- */

typedef struct args_entry {
    kiln_arg_kind kind;
    size_t size;
    size_t value_offset; /* into values: offsets survive realloc */
    kiln_buffer *buffer;
    void *host;
} args_entry;

struct kiln_args {
    uint32_t magic;
    args_entry *entries;
    size_t count, capacity;
    unsigned char *values;
    size_t values_length, values_capacity;
};

kiln_status kiln_args_create(kiln_args **args)
{
    kiln_error_clear();
    KILN_CHECK_OUT(args, "args");
    kiln_args *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    result->magic = KILN_MAGIC_ARGS;
    *args = result;
    return KILN_OK;
}

kiln_status kiln_args_release(kiln_args *args)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    free(args->entries);
    free(args->values);
    kiln_handle_bury(args);
    return KILN_OK;
}

kiln_status kiln_args_clear(kiln_args *args)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    args->count = 0;
    args->values_length = 0;
    return KILN_OK;
}

static kiln_status args_push(kiln_args *args, kiln_arg_kind kind,
                             const void *value, size_t size,
                             kiln_buffer *buffer, void *host)
{
    if (args->count == args->capacity) {
        size_t capacity = args->capacity ? args->capacity * 2 : 8;
        args_entry *grown = realloc(args->entries, capacity * sizeof *grown);
        if (grown == NULL)
            return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "out of host memory");
        args->entries = grown;
        args->capacity = capacity;
    }
    args_entry *entry = &args->entries[args->count];
    entry->kind = kind;
    entry->size = size;
    entry->buffer = buffer;
    entry->host = host;
    entry->value_offset = 0;
    if (value != NULL) {
        /* 16-byte alignment keeps every OpenCL type naturally aligned. */
        size_t offset = (args->values_length + 15) & ~(size_t)15;
        if (size > SIZE_MAX - offset - 16)
            return kiln_error(KILN_ERR_INVALID_SIZE, "value too large");
        if (offset + size > args->values_capacity) {
            size_t capacity = args->values_capacity ? args->values_capacity : 256;
            while (capacity < offset + size)
                capacity *= 2;
            unsigned char *grown = realloc(args->values, capacity);
            if (grown == NULL)
                return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "out of host memory");
            args->values = grown;
            args->values_capacity = capacity;
        }
        memcpy(args->values + offset, value, size);
        entry->value_offset = offset;
        args->values_length = offset + size;
    }
    args->count++;
    return KILN_OK;
}

kiln_status kiln_args_add_buffer(kiln_args *args, kiln_buffer *buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    KILN_CHECK_HANDLE(buffer, KILN_MAGIC_BUFFER, "buffer");
    return args_push(args, KILN_ARG_KIND_BUFFER, NULL, 0, buffer, NULL);
}

kiln_status kiln_args_add_value(kiln_args *args, const void *value,
                                size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    KILN_CHECK_OUT(value, "value");
    if (size == 0)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_args_add_value: size is 0");
    return args_push(args, KILN_ARG_KIND_VALUE, value, size, NULL, NULL);
}

kiln_status kiln_args_add_local(kiln_args *args, size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    if (size == 0)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_args_add_local: size is 0");
    return args_push(args, KILN_ARG_KIND_LOCAL, NULL, size, NULL, NULL);
}

kiln_status kiln_args_add_host(kiln_args *args, kiln_arg_kind kind, void *host,
                               size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    KILN_CHECK_OUT(host, "host");
    if (!arg_is_host(kind))
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_args_add_host: kind must be KILN_ARG_KIND_IN, "
                          "_OUT or _INOUT");
    if (size == 0)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_args_add_host: size is 0");
    return args_push(args, kind, NULL, size, NULL, host);
}

#define ARGS_ADD_TYPED(function, type)                                  \
    kiln_status function(kiln_args *args, type value)                   \
    {                                                                   \
        kiln_error_clear();                                             \
        KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");               \
        return args_push(args, KILN_ARG_KIND_VALUE, &value, sizeof value, \
                         NULL, NULL);                                   \
    }
ARGS_ADD_TYPED(kiln_args_add_int, int32_t)
ARGS_ADD_TYPED(kiln_args_add_uint, uint32_t)
ARGS_ADD_TYPED(kiln_args_add_long, int64_t)
ARGS_ADD_TYPED(kiln_args_add_ulong, uint64_t)
ARGS_ADD_TYPED(kiln_args_add_float, float)
ARGS_ADD_TYPED(kiln_args_add_double, double)
#undef ARGS_ADD_TYPED

kiln_status kiln_args_count(const kiln_args *args, size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    KILN_CHECK_OUT(count, "count");
    *count = args->count;
    return KILN_OK;
}

kiln_status kiln_launch_args(kiln_kernel *kernel,
                             const kiln_launch_config *config,
                             const kiln_args *args)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    kiln_arg stack[STACK_ARGS];
    kiln_arg *list = stack;
    if (args->count > STACK_ARGS &&
        (list = malloc(args->count * sizeof *list)) == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t i = 0; i < args->count; ++i) {
        const args_entry *entry = &args->entries[i];
        list[i] = (kiln_arg){
            .kind = entry->kind,
            .size = entry->size,
            .value = entry->kind == KILN_ARG_KIND_VALUE
                         ? args->values + entry->value_offset
                         : NULL,
            .buffer = entry->buffer,
            .host = entry->host,
        };
    }
    kiln_status status = kiln_launch_checked(kernel, config, args->count,
                                             args->count ? list : NULL);
    if (list != stack)
        free(list);
    return status;
}
