/*
 * Kernels: a named entry point of a program and what it takes.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* "no kernel 'x' in program; its kernels are: a, b": the likely typo is in
 * view. */
static kiln_status kernel_not_found(const kiln_program_description *description,
                                    const char *name)
{
    kiln_string list = {0};
    for (size_t k = 0; k < description->kernel_count; ++k)
        kiln_string_appendf(&list, "%s%s", k ? ", " : "",
                            description->kernels[k].name);
    kiln_status status = kiln_error(
        KILN_ERR_KERNEL_NOT_FOUND,
        "no kernel '%s' in this program; its kernels are: %s", name,
        list.data != NULL ? list.data : "(none)");
    kiln_string_free(&list);
    return status;
}

/* The size a parameter takes in the driver's eyes; 0 when it cannot be
 * told here. */
static size_t native_size(const kiln_backend_param *param, bool local_offsets)
{
    switch (param->kind) {
    case KILN_PARAM_LOCAL:
        return local_offsets ? sizeof(unsigned int) : 0; /* the offset */
    case KILN_PARAM_BUFFER:
        return 0; /* the device's pointers: the driver knows */
    default:
        return param->size;
    }
}

/* Whether the driver's parameters (`info`) are the ones `entry` describes
 * followed by its hidden arguments; a driver that lists none cannot
 * disagree.  *why says where they part. */
static bool entry_matches(const kiln_kernel_entry *entry,
                          const kiln_backend_kernel_info *info,
                          bool local_offsets, kiln_string *why)
{
    if (info->param_count == 0 || info->params == NULL)
        return true;
    size_t expected = entry->param_count + entry->hidden_count;
    if (info->param_count != expected) {
        kiln_string_appendf(why, "has %zu parameters after translation, "
                                 "%zu expected",
                            info->param_count, expected);
        return false;
    }
    for (size_t p = 0; p < entry->param_count; ++p) {
        size_t wanted = native_size(&entry->params[p], local_offsets);
        size_t given = info->params[p].size;
        if (wanted != 0 && given != 0 && wanted != given) {
            kiln_string_appendf(why, "parameter %zu (%s %s) takes %zu bytes "
                                     "after translation, %zu expected",
                                p, entry->params[p].type_name,
                                entry->params[p].name, given, wanted);
            return false;
        }
    }
    return true;
}

/* The kernel's parameters from the program's description where the front
 * end made or read them: the user's names, types and kinds, the driver's
 * sizes where the description has none.  A translation the driver
 * disagrees with is an error; a reading, a misreading (the driver's
 * sizes stand). */
static kiln_status kernel_describe(kiln_kernel *kernel,
                                   const kiln_program_description *description,
                                   const kiln_kernel_entry *entry)
{
    if (entry == NULL || !entry->params_known ||
        description->origin == KILN_DESCRIBED_BY_PLUGIN)
        return KILN_OK;
    kiln_backend_kernel_info *info = &kernel->info;
    kiln_string why = {0};
    if (!entry_matches(entry, info, description->local_offsets, &why)) {
        kiln_status status = KILN_OK;
        if (description->origin == KILN_DESCRIBED_BY_TRANSLATION)
            status = kiln_error(KILN_ERR_BACKEND,
                                "kernel '%s' %s (translator and backend "
                                "disagree)",
                                kernel->name, why.data ? why.data : "");
        kiln_string_free(&why);
        return status;
    }
    kiln_string_free(&why);
    bool driver_listed = info->param_count != 0 && info->params != NULL;
    kiln_backend_param *params =
        calloc(entry->param_count ? entry->param_count : 1, sizeof *params);
    if (params == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t p = 0; p < entry->param_count; ++p) {
        params[p] = entry->params[p];
        size_t driver = driver_listed ? info->params[p].size : 0;
        if (params[p].kind == KILN_PARAM_LOCAL && description->local_offsets)
            params[p].size = 0; /* a launch gives a size, not a value */
        else if (params[p].kind == KILN_PARAM_BUFFER)
            params[p].size = driver ? driver : sizeof(void *);
        else if (params[p].size == 0)
            params[p].size = driver; /* a struct the reader cannot size */
    }
    kernel->params = params;
    info->params = params;
    info->param_count = entry->param_count;
    if (info->required_block[0] == 0)
        for (int d = 0; d < 3; ++d)
            info->required_block[d] = entry->required_block[d];
    return KILN_OK;
}

/* A kernel built in the checked mode on OpenCL has the report of its
 * instrumented accesses as its last parameter (translate.h): the launch
 * gives it, the user never sees it. */
static void bounds_report_param(kiln_kernel *kernel)
{
    kiln_backend_kernel_info *info = &kernel->info;
    if (info->param_count == 0 || info->params == NULL)
        return;
    const char *name = info->params[info->param_count - 1].name;
    if (name != NULL && strcmp(name, TRANSLATE_BOUNDS_REPORT_PARAM) == 0) {
        kernel->bounds_report = true;
        info->param_count--;
    }
}

static kiln_status kernel_create_from(kiln_program *program,
                                      kiln_built_program *built,
                                      const kiln_kernel_entry *entry,
                                      const char *name, kiln_kernel **kernel);

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
    kiln_built_program *built = kiln_program_built(program);
    const kiln_kernel_entry *entry =
        kiln_description_find(&built->description, name);
    char *normalised = NULL;
    if (entry == NULL) {
        /* A kernel template's instance, in any spelling NVRTC takes; one
         * the build does not have builds the program again with it. */
        kiln_status status = kiln_kernel_name_normalise(name, &normalised);
        if (status == KILN_ERR_OUT_OF_HOST_MEMORY)
            return status;
        /* no name expression: not found, as any other name */
        kiln_error_clear();
        entry = normalised != NULL
                    ? kiln_description_find(&built->description, normalised)
                    : NULL;
        if (entry == NULL && normalised != NULL && program->recipe != NULL &&
            kiln_kernel_name_needs_request(normalised)) {
            status = kiln_program_add_kernel_name(program, normalised);
            if (status != KILN_OK) {
                free(normalised);
                return status;
            }
            built = kiln_program_built(program);
            entry = kiln_description_find(&built->description, normalised);
        }
        if (entry != NULL)
            name = normalised;
    }
    kiln_status status = kernel_create_from(program, built, entry, name,
                                            kernel);
    free(normalised);
    return status;
}

/* The kernel `name` (`entry` in its description, NULL when the program's
 * description does not list it) of `built`, a build of `program`. */
static kiln_status kernel_create_from(kiln_program *program,
                                      kiln_built_program *built,
                                      const kiln_kernel_entry *entry,
                                      const char *name, kiln_kernel **kernel)
{
    const kiln_program_description *description = &built->description;
    /* A translation's kernels are all known: its own are not the user's. */
    if (entry == NULL &&
        description->origin == KILN_DESCRIBED_BY_TRANSLATION)
        return kernel_not_found(description, name);
    /* refused while the program's other kernels were translated */
    if (entry != NULL && entry->refusal != NULL)
        return kiln_error(KILN_ERR_TRANSLATION,
                          "kernel '%s' was not translated: %s", name,
                          entry->refusal);
    kiln_kernel *result = calloc(1, sizeof *result);
    if (result == NULL || (result->name = kiln_strdup(name)) == NULL) {
        free(result);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    kiln_context *context = program->context;
    kiln_spare_kernel *spare = kiln_built_program_take_spare(built, name);
    kiln_status status = KILN_OK;
    if (spare != NULL) {
        result->backend = spare->backend;
        result->info = spare->info;
        result->params = spare->params;
        result->bounds_report = spare->bounds_report;
        free(spare->name);
        free(spare);
    } else {
        result->info.struct_size = sizeof result->info;
        status = context->ops->kernel_create(
            context->backend, built->backend,
            entry != NULL ? entry->native_name : name, &result->backend,
            &result->info);
        if (status != KILN_OK) {
            free(result->name);
            free(result);
            return status;
        }
        bounds_report_param(result);
        status = kernel_describe(result, description, entry);
    }
    if (status == KILN_OK && entry != NULL &&
        description->origin == KILN_DESCRIBED_BY_TRANSLATION) {
        /* A spare's too: they live in the description. */
        result->hidden = entry->hidden;
        result->hidden_count = entry->hidden_count;
        result->local_offsets = description->local_offsets;
    }
    if (status == KILN_OK && result->info.param_count > 0 &&
        result->info.params == NULL)
        status = kiln_error(KILN_ERR_BACKEND,
                            "backend %s gave no parameter list for '%s'",
                            context->ops->name, name);
    if (status != KILN_OK) {
        context->ops->kernel_destroy(context->backend, result->backend);
        free(result->params);
        free(result->name);
        free(result);
        return status;
    }
    /* The kernel keeps its program (and so the context and its build)
     * alive. */
    result->program = program;
    result->built = built;
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
        if (!kiln_built_program_keep_spare(kernel->built, kernel->name,
                                           kernel->backend, &kernel->info,
                                           kernel->params,
                                           kernel->bounds_report)) {
            context->ops->kernel_destroy(context->backend, kernel->backend);
            free(kernel->name);
            free(kernel->params);
        }
        kernel->name = NULL;
        kernel->params = NULL;
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
