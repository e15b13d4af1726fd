/*
 * Argument lists built up one argument at a time (kiln_args), then
 * launched with kiln_launch_args.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct args_entry {
    kiln_arg_kind kind;
    kiln_scalar_type type;   /* a typed value keeps its type */
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

/* Far above what any device passes by value (OpenCL guarantees 1 KiB of
 * parameters, CUDA allows 32 KiB): a larger value is a mistake, and the
 * list's growth below never nears SIZE_MAX. */
#define ARGS_MAX_VALUE_BYTES 65536u

static kiln_status args_push(kiln_args *args, kiln_arg_kind kind,
                             kiln_scalar_type type, const void *value,
                             size_t size, kiln_buffer *buffer, void *host)
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
    entry->type = type;
    entry->size = size;
    entry->buffer = buffer;
    entry->host = host;
    entry->value_offset = 0;
    if (value != NULL) {
        /* 16-byte alignment keeps every OpenCL type naturally aligned. */
        size_t offset = (args->values_length + 15) & ~(size_t)15;
        if (size > ARGS_MAX_VALUE_BYTES || offset > SIZE_MAX / 4)
            return kiln_error(KILN_ERR_INVALID_SIZE, "value too large");
        if (offset + size > args->values_capacity) {
            size_t capacity = args->values_capacity ? args->values_capacity : 256;
            while (capacity < offset + size) /* no overflow: bounded above */
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
    return args_push(args, KILN_ARG_KIND_BUFFER, KILN_SCALAR_NONE, NULL, 0,
                     buffer, NULL);
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
    if (size > ARGS_MAX_VALUE_BYTES)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_args_add_value: %zu bytes is more than any "
                          "kernel parameter takes by value (at most %u)",
                          size, ARGS_MAX_VALUE_BYTES);
    return args_push(args, KILN_ARG_KIND_VALUE, KILN_SCALAR_NONE, value, size,
                     NULL, NULL);
}

kiln_status kiln_args_add_local(kiln_args *args, size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    if (size == 0)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_args_add_local: size is 0");
    return args_push(args, KILN_ARG_KIND_LOCAL, KILN_SCALAR_NONE, NULL, size,
                     NULL, NULL);
}

kiln_status kiln_args_add_host(kiln_args *args, kiln_arg_kind kind, void *host,
                               size_t size)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    KILN_CHECK_OUT(host, "host");
    if (!kiln_arg_kind_is_host(kind))
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_args_add_host: kind must be KILN_ARG_KIND_IN, "
                          "_OUT or _INOUT");
    if (size == 0)
        return kiln_error(KILN_ERR_INVALID_SIZE,
                          "kiln_args_add_host: size is 0");
    return args_push(args, kind, KILN_SCALAR_NONE, NULL, size, NULL, host);
}

#define ARGS_ADD_TYPED(function, ctype, scalar_type)                    \
    kiln_status function(kiln_args *args, ctype value)                  \
    {                                                                   \
        kiln_error_clear();                                             \
        KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");               \
        return args_push(args, KILN_ARG_KIND_VALUE, scalar_type, &value, \
                         sizeof value, NULL, NULL);                     \
    }
ARGS_ADD_TYPED(kiln_args_add_int, int32_t, KILN_SCALAR_INT)
ARGS_ADD_TYPED(kiln_args_add_uint, uint32_t, KILN_SCALAR_UINT)
ARGS_ADD_TYPED(kiln_args_add_long, int64_t, KILN_SCALAR_LONG)
ARGS_ADD_TYPED(kiln_args_add_ulong, uint64_t, KILN_SCALAR_ULONG)
ARGS_ADD_TYPED(kiln_args_add_float, float, KILN_SCALAR_FLOAT)
ARGS_ADD_TYPED(kiln_args_add_double, double, KILN_SCALAR_DOUBLE)
#undef ARGS_ADD_TYPED

kiln_status kiln_args_add(kiln_args *args, kiln_arg arg)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(args, KILN_MAGIC_ARGS, "args");
    switch (arg.kind) {
    case KILN_ARG_KIND_BUFFER:
        KILN_CHECK_HANDLE(arg.buffer, KILN_MAGIC_BUFFER, "buffer");
        return args_push(args, arg.kind, KILN_SCALAR_NONE, NULL, 0, arg.buffer,
                         NULL);
    case KILN_ARG_KIND_VALUE:
        if (arg.type != KILN_SCALAR_NONE) {
            if (kiln_scalar_type_char(arg.type) == 0 || arg.size == 0 ||
                arg.size > sizeof arg.scalar)
                return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                                  "kiln_args_add: not a typed value a "
                                  "KILN_ARG_* constructor makes");
            return args_push(args, arg.kind, arg.type, &arg.scalar, arg.size,
                             NULL, NULL);
        }
        return kiln_args_add_value(args, arg.value, arg.size);
    case KILN_ARG_KIND_LOCAL:
        return kiln_args_add_local(args, arg.size);
    case KILN_ARG_KIND_IN:
    case KILN_ARG_KIND_OUT:
    case KILN_ARG_KIND_INOUT:
        return kiln_args_add_host(args, arg.kind, arg.host, arg.size);
    }
    return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                      "kiln_args_add: unknown argument kind %d", (int)arg.kind);
}

kiln_status kiln_args_get_count(const kiln_args *args, size_t *count)
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
    kiln_arg stack[KILN_STACK_ARGS];
    kiln_arg *list = stack;
    if (args->count > KILN_STACK_ARGS &&
        (list = malloc(args->count * sizeof *list)) == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t i = 0; i < args->count; ++i) {
        const args_entry *entry = &args->entries[i];
        bool typed = entry->type != KILN_SCALAR_NONE;
        list[i] = (kiln_arg){
            .kind = entry->kind,
            .size = entry->size,
            .value = entry->kind == KILN_ARG_KIND_VALUE && !typed
                         ? args->values + entry->value_offset
                         : NULL,
            .buffer = entry->buffer,
            .host = entry->host,
            .type = entry->type,
        };
        if (typed)
            memcpy(&list[i].scalar, args->values + entry->value_offset,
                   entry->size);
    }
    kiln_status status = kiln_launch_checked(kernel, config, args->count,
                                             args->count ? list : NULL);
    if (list != stack)
        free(list);
    return status;
}
