/*
 * The core's one call into the kernel-language front end (translate/): a
 * program is preprocessed once (its #include files read through
 * core/source.c), keyed by the text that gives, and on a cache miss
 * translated into the plugin's native language or read for its kernels'
 * signatures.  What the front end says becomes the program's description
 * (the kernels as the user names them, their parameters and hidden
 * arguments, its variables) and the source program_build receives.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static const char default_name[] = "<kiln program>";

/* "OpenCL C 1.2" is 120; CUDA devices have no OpenCL C version. */
static unsigned opencl_c_version(const kiln_backend_device_info *device)
{
    if (device->language_major > 0)
        return (unsigned)(device->language_major * 100 +
                          device->language_minor * 10);
    return 120;
}

kiln_status kiln_front_end_open(kiln_context *context, const char *text,
                                size_t length, const char *name,
                                kiln_language language,
                                const kiln_program_options *options,
                                kiln_front_end *front)
{
    memset(front, 0, sizeof *front);
    const kiln_backend_device_info *device = &context->device;
    front->language = language;
    front->native_language = context->ops->native_language;
    front->target = (translate_target){
        .language = (translate_language)context->ops->native_language,
        .opencl_c_version = opencl_c_version(device),
        .extensions = device->extensions,
        .vendor = device->vendor,
        .compute_capability =
            (unsigned)(device->compute_capability_major * 10 +
                       device->compute_capability_minor),
        .compiler_version = device->compiler_version,
    };
    front->options = options->lists.options;
    front->options.include_dirs = options->include_dirs;
    front->options.include_dir_count = options->include_dir_count;
    kiln_status status = kiln_include_reader_init(
        &front->reader, name, options->include_dirs,
        options->include_dir_count);
    if (status != KILN_OK)
        return status;
    front->input = (translate_input){
        .text = text,
        .length = length,
        .name = name ? name : default_name,
        .language = (translate_language)language,
        .options = &front->options,
        .reader = &front->reader.reader,
        .target = &front->target,
    };
    translate_error error;
    int result = translate_open(&front->input, &front->unit, &error);
    if (result == -2)
        status = kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                            "out of host memory preprocessing %s",
                            front->input.name);
    else if (result != 0)
        status = kiln_front_end_failed(front, &error);
    translate_error_free(&error);
    if (status != KILN_OK)
        kiln_front_end_close(front);
    return status;
}

kiln_status kiln_front_end_failed(const kiln_front_end *front,
                                  const translate_error *error)
{
    const char *why = error->message ? error->message
                                     : "the front end gave no reason";
    /* Wrong source is a build error on every backend, as any compiler
     * would say; only a valid program that the target's language cannot
     * express is a translation error. */
    if (!kiln_front_end_translates(front))
        return kiln_error(KILN_ERR_BUILD, "%s", why);
    bool from_opencl = front->language == KILN_LANGUAGE_OPENCL_C;
    if (error->unsupported && from_opencl)
        return kiln_error(KILN_ERR_TRANSLATION,
                          "cannot translate '%s' from OpenCL C for the CUDA "
                          "backend: %s",
                          front->input.name, why);
    if (error->unsupported)
        return kiln_error(KILN_ERR_TRANSLATION, "%s", why);
    if (from_opencl)
        return kiln_error(KILN_ERR_BUILD,
                          "cannot compile '%s' (OpenCL C, CUDA backend):\n%s",
                          front->input.name, why);
    return kiln_error(KILN_ERR_BUILD, "%s", why);
}

const char *kiln_front_end_text(const kiln_front_end *front, size_t *length)
{
    return translate_text(front->unit, length);
}

bool kiln_front_end_translates(const kiln_front_end *front)
{
    return front->language != front->native_language;
}

bool kiln_front_end_reads(const kiln_front_end *front)
{
    return !kiln_front_end_translates(front) &&
           front->language == KILN_LANGUAGE_CUDA_C;
}

/* ---- the description ----------------------------------------------------- */

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
        text += 2 * (strlen(kernel->name) + 1);
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
        to->native_name = store_text(&next, from->name);
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

/* ---- the native source ---------------------------------------------------- */

/* The option lists as the plugin's struct takes them. */
static kiln_status native_options(kiln_native_source *native,
                                  const translate_options *lists)
{
    size_t count = lists->define_count;
    native->defines = calloc(count ? count : 1, sizeof *native->defines);
    if (native->defines == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t i = 0; i < count; ++i) {
        native->defines[i].name = lists->defines[i].name;
        native->defines[i].value = lists->defines[i].value;
    }
    kiln_backend_source *source = &native->source;
    source->defines = native->defines;
    source->define_count = count;
    source->include_dirs = lists->include_dirs;
    source->include_dir_count = lists->include_dir_count;
    source->flags = lists->flags;
    source->flag_count = lists->flag_count;
    return KILN_OK;
}

static kiln_status native_headers(kiln_native_source *native,
                                  const translate_header *headers,
                                  size_t count)
{
    free(native->headers);
    native->headers = calloc(count ? count : 1, sizeof *native->headers);
    if (native->headers == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t i = 0; i < count; ++i)
        native->headers[i] = (kiln_backend_header){
            headers[i].name, headers[i].text, headers[i].length};
    native->source.headers = native->headers;
    native->source.header_count = count;
    return KILN_OK;
}

/* The program in the plugin's language, its description from the
 * translation. */
static kiln_status native_translated(kiln_front_end *front,
                                     kiln_native_source *native)
{
    translate_error error;
    int result = translate_to_target(front->unit, &native->program, &error);
    kiln_status status = KILN_OK;
    if (result == -2)
        status = kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                            "out of host memory translating '%s'",
                            front->input.name);
    else if (result != 0)
        status = kiln_front_end_failed(front, &error);
    translate_error_free(&error);
    if (status != KILN_OK)
        return status;
    const translate_program *program = &native->program;
    native->source.text = program->text;
    native->source.length = program->length;
    status = native_options(native, &program->options.options);
    if (status == KILN_OK)
        status = native_headers(native, program->headers,
                                program->header_count);
    if (status == KILN_OK)
        status = kiln_description_from_front_end(
            program, KILN_DESCRIBED_BY_TRANSLATION, &native->description);
    return status;
}

kiln_status kiln_front_end_native(kiln_front_end *front,
                                  kiln_native_source *native)
{
    memset(native, 0, sizeof *native);
    native->source.struct_size = sizeof native->source;
    native->source.language = front->native_language;
    native->source.name = front->input.name;
    if (kiln_front_end_translates(front))
        return native_translated(front, native);

    /* Native: the text as preprocessed, the options as its compiler takes
     * them (NVRTC maps the OpenCL-style ones). */
    native->source.text = kiln_front_end_text(front, &native->source.length);
    int mapped = translate_native_options(&front->input,
                                          &native->native_options);
    if (mapped < 0)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    kiln_status status = native_options(
        native, mapped ? &native->native_options.options : &front->options);
    if (status != KILN_OK || !kiln_front_end_reads(front))
        return status;
    /* Native CUDA C: the signatures as declared, which the driver cannot
     * tell (only sizes); a program the reading cannot follow (templates,
     * classes) keeps the driver's sizes. */
    translate_error error;
    int result = translate_read(front->unit, &native->program, &error);
    if (result == -2)
        status = kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    else if (result != 0)
        kiln_trace("no parameter names for %s: %s", front->input.name,
                   error.message ? error.message : "not read");
    else
        native->read = true;
    translate_error_free(&error);
    return status;
}

kiln_status kiln_front_end_whole_headers(kiln_native_source *native)
{
    const translate_program *program = &native->program;
    if (program->whole_headers == NULL)
        return KILN_ERR_UNSUPPORTED;
    return native_headers(native, program->whole_headers,
                          program->header_count);
}

void kiln_native_source_free(kiln_native_source *native)
{
    translate_program_free(&native->program);
    translate_option_lists_free(&native->native_options);
    kiln_description_free(&native->description);
    free(native->defines);
    free(native->headers);
    memset(native, 0, sizeof *native);
}

void kiln_front_end_user_names(kiln_status status)
{
    char *message = translate_user_names(kiln_last_error());
    if (message != NULL)
        kiln_error(status, "%s", message);
    free(message);
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
    kiln_backend_program_info merged = {sizeof merged, info->kernel_count,
                                        entries};
    status = kiln_description_from_plugin(&merged, description);
    description->origin = KILN_DESCRIBED_BY_READING;
    free(entries);
    kiln_description_free(&read);
    return status;
}

void kiln_front_end_close(kiln_front_end *front)
{
    translate_close(front->unit);
    kiln_include_reader_free(&front->reader);
    front->unit = NULL;
}
