/*
 * A program's description: its kernels as the user names them (with
 * their parameters, required block and hidden arguments) and its
 * variables, owned by the core.  Made from the front end's translation or
 * reading (translate.h), from the plugin's list (program_kernels), or
 * from both for native CUDA C; freed with the built program; saved with
 * its image (saved_program.c).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void param_from_front_end(const translate_param *from,
                                 kiln_backend_param *to, const char *name,
                                 const char *type_name)
{
    static const kiln_param_kind kinds[] = {
        [TRANSLATE_PARAM_BUFFER] = KILN_PARAM_BUFFER,
        [TRANSLATE_PARAM_LOCAL] = KILN_PARAM_LOCAL,
        [TRANSLATE_PARAM_VALUE] = KILN_PARAM_VALUE,
    };
    to->kind = kinds[from->kind];
    to->space = (kiln_backend_space)from->space;
    to->scalar = (kiln_backend_scalar)from->scalar;
    to->scalar_bytes = from->scalar_bytes;
    to->vector_length = from->vector_length;
    to->size = from->size;
    to->name = name;
    to->type_name = type_name;
}

/* Copies `text` into the storage at *next. */
static const char *store_text(char **next, const char *text)
{
    size_t length = strlen(text) + 1;
    char *copy = *next;
    memcpy(copy, text, length);
    *next += length;
    return copy;
}

kiln_status kiln_description_from_front_end(
    const translate_program *program, kiln_description_origin origin,
    kiln_program_description *description)
{
    memset(description, 0, sizeof *description);
    description->origin = origin;
    description->local_offsets = program->local_params_are_offsets != 0;
    size_t params = 0, hidden = 0, text = 1;
    for (size_t k = 0; k < program->kernel_count; ++k) {
        const translate_kernel *kernel = &program->kernels[k];
        params += kernel->param_count;
        hidden += kernel->hidden_count;
        text += strlen(kernel->name) + strlen(kernel->native_name) + 2;
        if (kernel->refusal != NULL)
            text += strlen(kernel->refusal) + 1;
        for (size_t p = 0; p < kernel->param_count; ++p)
            text += strlen(kernel->params[p].name) +
                    strlen(kernel->params[p].type_name) + 2;
    }
    for (size_t v = 0; v < program->variable_count; ++v)
        text += strlen(program->variables[v].name) + 1;
    description->kernels = calloc(program->kernel_count ? program->kernel_count
                                                        : 1,
                                  sizeof *description->kernels);
    description->variables = calloc(
        program->variable_count ? program->variable_count : 1,
        sizeof *description->variables);
    description->param_storage = calloc(params ? params : 1,
                                        sizeof *description->param_storage);
    description->hidden_storage = calloc(hidden ? hidden : 1,
                                         sizeof *description->hidden_storage);
    description->text_storage = malloc(text);
    if (description->kernels == NULL || description->variables == NULL ||
        description->param_storage == NULL ||
        description->hidden_storage == NULL ||
        description->text_storage == NULL) {
        kiln_description_free(description);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    char *next = description->text_storage;
    kiln_backend_param *param = description->param_storage;
    kiln_hidden_arg *argument = description->hidden_storage;
    for (size_t k = 0; k < program->kernel_count; ++k) {
        const translate_kernel *from = &program->kernels[k];
        kiln_kernel_entry *to = &description->kernels[k];
        to->name = store_text(&next, from->name);
        to->native_name = store_text(&next, from->native_name);
        to->refusal = from->refusal != NULL ? store_text(&next, from->refusal)
                                            : NULL;
        to->params_known = true;
        to->param_count = from->param_count;
        to->params = param;
        for (size_t p = 0; p < from->param_count; ++p) {
            const char *name = store_text(&next, from->params[p].name);
            const char *type = store_text(&next, from->params[p].type_name);
            param_from_front_end(&from->params[p], param++, name, type);
        }
        for (int d = 0; d < 3; ++d)
            to->required_block[d] = from->required_block[d];
        to->hidden_count = from->hidden_count;
        to->hidden = argument;
        for (size_t h = 0; h < from->hidden_count; ++h) {
            argument->kind =
                from->hidden[h].kind == TRANSLATE_HIDDEN_DYNAMIC_LOCAL
                    ? KILN_HIDDEN_DYNAMIC_LOCAL
                : from->hidden[h].kind == TRANSLATE_HIDDEN_VARIABLE
                    ? KILN_HIDDEN_VARIABLE
                : from->hidden[h].kind == TRANSLATE_HIDDEN_POINTER_OFFSET
                    ? KILN_HIDDEN_POINTER_OFFSET
                    : KILN_HIDDEN_WORK_DIM;
            argument->variable = from->hidden[h].variable;
            ++argument;
        }
    }
    description->kernel_count = program->kernel_count;
    for (size_t v = 0; v < program->variable_count; ++v) {
        kiln_variable_entry *to = &description->variables[v];
        to->name = store_text(&next, program->variables[v].name);
        to->is_constant = program->variables[v].is_constant != 0;
        to->has_initializer = program->variables[v].has_initializer != 0;
    }
    description->variable_count = program->variable_count;
    return KILN_OK;
}

/* The name kernel_create takes for the plugin's kernel k: its symbol
 * where the plugin gives one (a name expression's, ABI minor 1). */
static const char *plugin_native_name(const kiln_backend_program_info *info,
                                      size_t k)
{
    bool has_native = info->struct_size >=
                      offsetof(kiln_backend_program_info, native_names) +
                          sizeof info->native_names;
    if (has_native && info->native_names != NULL &&
        info->native_names[k] != NULL && info->native_names[k][0] != '\0')
        return info->native_names[k];
    return info->kernels[k].name;
}

kiln_status kiln_description_from_plugin(const kiln_backend_program_info *info,
                                         kiln_program_description *description)
{
    memset(description, 0, sizeof *description);
    description->origin = KILN_DESCRIBED_BY_PLUGIN;
    size_t params = 0, text = 1;
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_entry *kernel = &info->kernels[k];
        if (kernel->name == NULL || kernel->name[0] == '\0' ||
            (kernel->params_known && kernel->param_count > 0 &&
             kernel->params == NULL))
            return kiln_error(KILN_ERR_BACKEND,
                              "the plugin lists a kernel without a name or "
                              "parameters");
        text += strlen(kernel->name) + 1 +
                strlen(plugin_native_name(info, k)) + 1;
        if (!kernel->params_known)
            continue;
        params += kernel->param_count;
        for (size_t p = 0; p < kernel->param_count; ++p)
            text += strlen(kernel->params[p].name ? kernel->params[p].name
                                                  : "") +
                    strlen(kernel->params[p].type_name
                               ? kernel->params[p].type_name
                               : "") +
                    2;
    }
    description->kernels = calloc(info->kernel_count ? info->kernel_count : 1,
                                  sizeof *description->kernels);
    description->variables = calloc(1, sizeof *description->variables);
    description->param_storage = calloc(params ? params : 1,
                                        sizeof *description->param_storage);
    description->hidden_storage = calloc(1, sizeof *description->hidden_storage);
    description->text_storage = malloc(text);
    if (description->kernels == NULL || description->variables == NULL ||
        description->param_storage == NULL ||
        description->hidden_storage == NULL ||
        description->text_storage == NULL) {
        kiln_description_free(description);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    char *next = description->text_storage;
    kiln_backend_param *param = description->param_storage;
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_entry *from = &info->kernels[k];
        kiln_kernel_entry *to = &description->kernels[k];
        to->name = store_text(&next, from->name);
        to->native_name = store_text(&next, plugin_native_name(info, k));
        to->params_known = from->params_known != 0;
        to->params = param;
        to->hidden = description->hidden_storage;
        for (int d = 0; d < 3; ++d)
            to->required_block[d] = from->required_block[d];
        if (!from->params_known)
            continue;
        to->param_count = from->param_count;
        for (size_t p = 0; p < from->param_count; ++p) {
            *param = from->params[p];
            param->name = store_text(&next, from->params[p].name
                                                ? from->params[p].name
                                                : "");
            param->type_name = store_text(&next,
                                          from->params[p].type_name
                                              ? from->params[p].type_name
                                              : "");
            ++param;
        }
    }
    description->kernel_count = info->kernel_count;
    return KILN_OK;
}

void kiln_description_free(kiln_program_description *description)
{
    free(description->kernels);
    free(description->variables);
    free(description->param_storage);
    free(description->hidden_storage);
    free(description->text_storage);
    memset(description, 0, sizeof *description);
}

const kiln_kernel_entry *
kiln_description_find(const kiln_program_description *description,
                      const char *name)
{
    for (size_t k = 0; k < description->kernel_count; ++k)
        if (strcmp(description->kernels[k].name, name) == 0)
            return &description->kernels[k];
    return NULL;
}

/* The native program's description: the plugin's list (NULL when it has
 * none), each kernel with the signature the front end read (`reading`,
 * NULL: none) where it read one of that name. */
kiln_status kiln_description_native(const kiln_backend_program_info *info,
                                    const translate_program *reading,
                                    kiln_program_description *description)
{
    if (reading == NULL)
        return kiln_description_from_plugin(info, description);
    kiln_program_description read;
    kiln_status status = kiln_description_from_front_end(
        reading, KILN_DESCRIBED_BY_READING, &read);
    if (status != KILN_OK || info == NULL) {
        *description = read;
        return status;
    }
    kiln_backend_kernel_entry *entries =
        calloc(info->kernel_count ? info->kernel_count : 1, sizeof *entries);
    if (entries == NULL) {
        kiln_description_free(&read);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    for (size_t k = 0; k < info->kernel_count; ++k) {
        entries[k] = info->kernels[k];
        const kiln_kernel_entry *found =
            info->kernels[k].name ? kiln_description_find(&read,
                                                          info->kernels[k].name)
                                  : NULL;
        if (found == NULL)
            continue;
        entries[k].params_known = 1;
        entries[k].param_count = found->param_count;
        entries[k].params = found->params;
    }
    bool has_native = info->struct_size >=
                      offsetof(kiln_backend_program_info, native_names) +
                          sizeof info->native_names;
    kiln_backend_program_info merged = {
        sizeof merged, info->kernel_count, entries,
        has_native ? info->native_names : NULL};
    status = kiln_description_from_plugin(&merged, description);
    description->origin = KILN_DESCRIBED_BY_READING;
    free(entries);
    kiln_description_free(&read);
    return status;
}
