/*
 * Launch checks: the grid and block against the device and the kernel, the
 * arguments against the kernel's real parameters, all before anything is
 * queued.  The launch itself is in launch.c; the host arrays it stages, in
 * launch_stage.c.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *kiln_arg_kind_word(kiln_arg_kind kind)
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

/* ---- scalar types ------------------------------------------------------------ */

typedef enum scalar_class {
    SCALAR_UNKNOWN = 0, /* a type Kiln cannot name: checked by size only */
    SCALAR_INTEGER,
    SCALAR_FLOATING
} scalar_class;

static const struct {
    const char *name;   /* as a typed constructor shows it */
    const char *macro;
    char type_char;
    scalar_class class_;
} scalar_types[] = {
    [KILN_SCALAR_NONE] = {"raw bytes", "KILN_ARG_VALUE", '?', SCALAR_UNKNOWN},
    [KILN_SCALAR_CHAR] = {"char", "KILN_ARG_CHAR", 'c', SCALAR_INTEGER},
    [KILN_SCALAR_UCHAR] = {"uchar", "KILN_ARG_UCHAR", 'C', SCALAR_INTEGER},
    [KILN_SCALAR_SHORT] = {"short", "KILN_ARG_SHORT", 'h', SCALAR_INTEGER},
    [KILN_SCALAR_USHORT] = {"ushort", "KILN_ARG_USHORT", 'H', SCALAR_INTEGER},
    [KILN_SCALAR_INT] = {"int", "KILN_ARG_INT", 'i', SCALAR_INTEGER},
    [KILN_SCALAR_UINT] = {"uint", "KILN_ARG_UINT", 'I', SCALAR_INTEGER},
    [KILN_SCALAR_LONG] = {"long", "KILN_ARG_LONG", 'l', SCALAR_INTEGER},
    [KILN_SCALAR_ULONG] = {"ulong", "KILN_ARG_ULONG", 'L', SCALAR_INTEGER},
    [KILN_SCALAR_SIZE] = {"size_t", "KILN_ARG_SIZE", 'z', SCALAR_INTEGER},
    [KILN_SCALAR_FLOAT] = {"float", "KILN_ARG_FLOAT", 'f', SCALAR_FLOATING},
    [KILN_SCALAR_DOUBLE] = {"double", "KILN_ARG_DOUBLE", 'd', SCALAR_FLOATING},
};

static bool scalar_type_valid(kiln_scalar_type type)
{
    return (unsigned)type < sizeof scalar_types / sizeof scalar_types[0];
}

char kiln_scalar_type_char(kiln_scalar_type type)
{
    return scalar_type_valid(type) && type != KILN_SCALAR_NONE
               ? scalar_types[type].type_char
               : 0;
}

/* What kind of scalar a value parameter is, from its descriptor (the
 * plugin's or the front end's, made once per program): vectors, structs
 * and types not seen through are unknown, and checked by size only. */
static scalar_class param_class(const kiln_backend_param *param)
{
    if (param->vector_length != 1)
        return SCALAR_UNKNOWN;
    switch (param->scalar) {
    case KILN_BACKEND_SCALAR_SIGNED:
    case KILN_BACKEND_SCALAR_UNSIGNED:
    case KILN_BACKEND_SCALAR_BOOL:
        return SCALAR_INTEGER;
    case KILN_BACKEND_SCALAR_FLOAT:
        return SCALAR_FLOATING;
    default:
        return SCALAR_UNKNOWN;
    }
}

/* "(float* a, int n)" for messages. */
static void kernel_signature(const kiln_kernel *kernel, kiln_string *text)
{
    kiln_string_append(text, "(", 1);
    for (size_t i = 0; i < kernel->info.param_count; ++i) {
        const kiln_backend_param *param = &kernel->info.params[i];
        const char *type = param->type_name && param->type_name[0]
                               ? param->type_name
                               : "?";
        const char *name = param->name ? param->name : "";
        kiln_string_appendf(text, "%s%s%s%s", i ? ", " : "", type,
                            name[0] ? " " : "", name);
    }
    kiln_string_append(text, ")", 1);
}

/* The work dimensions of a launch: config->dimensions, or the fewest that
 * hold the grid and block. */
static kiln_status launch_dimensions(const kiln_kernel *kernel,
                                     const kiln_launch_config *config,
                                     unsigned *dimensions)
{
    const size_t grid[3] = {config->grid.x, config->grid.y, config->grid.z};
    const size_t block[3] = {config->block.x, config->block.y,
                             config->block.z};
    static const char axis[3] = {'x', 'y', 'z'};
    unsigned wanted = config->dimensions;
    if (wanted > 3)
        return kiln_error(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s': config.dimensions is %u; it must "
                          "be 1, 2, 3, or 0 to take the fewest that hold the "
                          "launch",
                          kernel->name, wanted);
    unsigned needed = grid[2] > 1 || block[2] > 1   ? 3
                      : grid[1] > 1 || block[1] > 1 ? 2
                                                    : 1;
    if (wanted == 0) {
        *dimensions = needed;
        return KILN_OK;
    }
    if (needed > wanted) {
        int i = (int)needed - 1;
        return kiln_error(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s': config.dimensions is %u but "
                          "grid.%c = %zu, block.%c = %zu (dimensions past "
                          "the last must be 1)",
                          kernel->name, wanted, axis[i], grid[i], axis[i],
                          block[i]);
    }
    *dimensions = wanted;
    return KILN_OK;
}

static kiln_status check_geometry(const kiln_kernel *kernel,
                                  const kiln_launch_config *config)
{
    const kiln_context *context = kernel->program->context;
    const kiln_backend_device_info *device = &context->device;
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
    /* Only the device's limit is certain.  The kernel's own (OpenCL's
     * CL_KERNEL_WORK_GROUP_SIZE) is advice that drivers do not always
     * enforce: NVIDIA's OpenCL reports 256 for a 32x32 tiled transpose and
     * runs it with 1024 threads.  The driver decides, and its refusal is
     * reported with the kernel's figure (launch_refused below). */
    size_t limit = device->max_threads_per_block;
    if (limit != 0 && threads > limit)
        return kiln_error(KILN_ERR_INVALID_LAUNCH,
                          "launch of '%s': a block of %zu threads "
                          "(%zux%zux%zu) is more than the %zu the device "
                          "allows (%s)",
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
    /* Each axis may be within its limit and the whole still past size_t
     * (2^31-1 cubed): drivers then wrap around and never finish. */
    size_t total = threads;
    for (int i = 0; i < 3; ++i) {
        if (grid[i] > SIZE_MAX / total)
            return kiln_error(KILN_ERR_INVALID_LAUNCH,
                              "launch of '%s': a grid of %zux%zux%zu blocks "
                              "of %zu thread%s overflows the %zu-bit count "
                              "of threads",
                              kernel->name, grid[0], grid[1], grid[2], threads,
                              threads == 1 ? "" : "s", sizeof(size_t) * 8);
        total *= grid[i];
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

kiln_status kiln_launch_check_geometry(const kiln_kernel *kernel,
                                       const kiln_launch_config *config,
                                       unsigned *dimensions)
{
    kiln_status status = check_geometry(kernel, config);
    if (status != KILN_OK)
        return status;
    return launch_dimensions(kernel, config, dimensions);
}

kiln_status kiln_launch_argument_error(const kiln_kernel *kernel,
                                      kiln_status status, size_t index,
                                      const char *format, ...)
{
    char detail[512];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    const kiln_backend_param *param = &kernel->info.params[index];
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

kiln_status kiln_launch_check_count(const kiln_kernel *kernel,
                                    size_t arg_count)
{
    if (arg_count == kernel->info.param_count)
        return KILN_OK;
    kiln_string signature = {0};
    kernel_signature(kernel, &signature);
    kiln_error(KILN_ERR_ARGUMENT_COUNT,
               "launch of '%s'%s: the kernel takes %zu argument%s, %zu given",
               kernel->name, signature.data ? signature.data : "",
               kernel->info.param_count,
               kernel->info.param_count == 1 ? "" : "s", arg_count);
    kiln_string_free(&signature);
    return KILN_ERR_ARGUMENT_COUNT;
}

/* What an argument of this kind and type may be given for parameter
 * `index`: the checks that need no value, shared by launches and
 * kiln_kernel_prepare. */
kiln_status kiln_launch_check_arg_shape(const kiln_kernel *kernel,
                                        size_t index, kiln_arg_kind kind,
                                        kiln_scalar_type type)
{
    const kiln_backend_param *param = &kernel->info.params[index];
    bool host = kiln_arg_kind_is_host(kind);
    bool pointer_sized = param->size == sizeof(void *);
    bool accepted;
    switch (param->kind) {
    case KILN_PARAM_BUFFER:
        accepted = kind == KILN_ARG_KIND_BUFFER || host;
        break;
    case KILN_PARAM_LOCAL:
        accepted = kind == KILN_ARG_KIND_LOCAL;
        break;
    case KILN_PARAM_VALUE:
        accepted = kind == KILN_ARG_KIND_VALUE;
        break;
    case KILN_PARAM_POINTER_OR_VALUE:
        accepted = kind == KILN_ARG_KIND_VALUE ||
                   ((kind == KILN_ARG_KIND_BUFFER || host) && pointer_sized);
        break;
    default:
        accepted = false;
    }
    if (!accepted)
        return kiln_launch_argument_error(kernel, KILN_ERR_ARGUMENT_KIND, index,
                              "takes %s, got %s", param_kind_word(param->kind),
                              kiln_arg_kind_word(kind));
    if (kind != KILN_ARG_KIND_VALUE || type == KILN_SCALAR_NONE)
        return KILN_OK;
    if (!scalar_type_valid(type))
        return kiln_launch_argument_error(kernel, KILN_ERR_INVALID_ARGUMENT, index,
                              "unknown scalar type %d (build arguments with "
                              "the KILN_ARG_* constructors)",
                              (int)type);
    static const size_t sizes[] = {
        [KILN_SCALAR_CHAR] = 1,  [KILN_SCALAR_UCHAR] = 1,
        [KILN_SCALAR_SHORT] = 2, [KILN_SCALAR_USHORT] = 2,
        [KILN_SCALAR_INT] = 4,   [KILN_SCALAR_UINT] = 4,
        [KILN_SCALAR_LONG] = 8,  [KILN_SCALAR_ULONG] = 8,
        [KILN_SCALAR_SIZE] = sizeof(size_t),
        [KILN_SCALAR_FLOAT] = 4, [KILN_SCALAR_DOUBLE] = 8,
    };
    scalar_class declared = param->kind == KILN_PARAM_VALUE
                                ? param_class(param)
                                : SCALAR_UNKNOWN;
    if (declared == SCALAR_UNKNOWN)
        return KILN_OK; /* the size check of the value decides */
    if (declared != scalar_types[type].class_ ||
        (param->size != 0 && param->size != sizes[type]))
        return kiln_launch_argument_error(kernel, KILN_ERR_ARGUMENT_TYPE, index,
                              "%s %s (%s, '%c', %zu bytes) given for a "
                              "parameter of type %s",
                              scalar_types[type].name[0] == 'i' ? "an" : "a",
                              scalar_types[type].name, scalar_types[type].macro,
                              scalar_types[type].type_char, sizes[type],
                              param->type_name);
    return KILN_OK;
}

/* Where a value argument's bytes are: in the argument for typed scalars. */kiln_status kiln_launch_check_args(const kiln_kernel *kernel,
                                   size_t arg_count, const kiln_arg *args,
                                   size_t local_memory)
{
    const kiln_context *context = kernel->program->context;
    kiln_status status = kiln_launch_check_count(kernel, arg_count);
    if (status != KILN_OK)
        return status;
    if (arg_count > 0 && args == NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "launch of '%s': args is NULL", kernel->name);
    size_t local_total = kernel->info.static_local_memory + local_memory;
    for (size_t i = 0; i < arg_count; ++i) {
        const kiln_backend_param *param = &kernel->info.params[i];
        const kiln_arg *arg = &args[i];
        status = kiln_launch_check_arg_shape(kernel, i, arg->kind, arg->type);
        if (status != KILN_OK)
            return status;
        switch (arg->kind) {
        case KILN_ARG_KIND_BUFFER:
            if (arg->buffer == NULL ||
                arg->buffer->magic != KILN_MAGIC_BUFFER)
                return kiln_launch_argument_error(kernel, KILN_ERR_INVALID_HANDLE, i,
                                      "the buffer is %s",
                                      arg->buffer ? "not a live buffer"
                                                  : "NULL");
            if (arg->buffer->context != context)
                return kiln_launch_argument_error(kernel, KILN_ERR_CONTEXT_MISMATCH, i,
                                      "the buffer belongs to another context");
            break;
        case KILN_ARG_KIND_VALUE:
            if (kiln_arg_value(arg) == NULL)
                return kiln_launch_argument_error(kernel, KILN_ERR_INVALID_ARGUMENT, i,
                                      "the value pointer is NULL");
            /* A size the backend could not tell is never a licence to
             * pass any: the kernel would read past a short value. */
            if (param->size == 0)
                return kiln_launch_argument_error(
                    kernel, KILN_ERR_UNSUPPORTED, i,
                    "the backend cannot tell how many bytes this parameter "
                    "takes, so the launch cannot be checked (a struct or "
                    "typedef the driver does not size: docs/ERRORS.md)");
            if (arg->size != param->size)
                return kiln_launch_argument_error(kernel, KILN_ERR_ARGUMENT_SIZE, i,
                                      "%zu bytes given, the parameter takes "
                                      "%zu",
                                      arg->size, param->size);
            break;
        case KILN_ARG_KIND_LOCAL:
            if (arg->size == 0)
                return kiln_launch_argument_error(kernel, KILN_ERR_INVALID_SIZE, i,
                                      "0 bytes of local memory");
            if (arg->size > SIZE_MAX - local_total)
                local_total = SIZE_MAX;
            else
                local_total += arg->size;
            break;
        default: /* host arrays */
            if (arg->host == NULL)
                return kiln_launch_argument_error(kernel, KILN_ERR_INVALID_ARGUMENT, i,
                                      "the host pointer is NULL");
            if (arg->size == 0)
                return kiln_launch_argument_error(kernel, KILN_ERR_INVALID_SIZE, i,
                                      "a host array of 0 bytes");
            /* Staged through one device allocation: found here, with the
             * kernel and the argument, not later by the driver. */
            if (context->device.max_allocation != 0 &&
                arg->size > context->device.max_allocation)
                return kiln_launch_argument_error(
                    kernel, KILN_ERR_INVALID_SIZE, i,
                    "%s of %zu bytes is more than the largest allocation of "
                    "%s (%llu bytes)",
                    kiln_arg_kind_word(arg->kind), arg->size, context->device.name,
                    (unsigned long long)context->device.max_allocation);
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
