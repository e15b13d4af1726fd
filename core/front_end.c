/*
 * The core's one call into the kernel-language front end (translate/): a
 * program is preprocessed once (its #include files read through
 * core/source.c), keyed by the text that gives, and on a cache miss
 * translated into the plugin's native language or read for its kernels'
 * signatures.  What the front end says becomes the source program_build
 * receives and the program's description (program_description.c).
 */
#include "internal.h"

#include <stdio.h>
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
        .platform = device->platform,
        .compute_capability =
            (unsigned)(device->compute_capability_major * 10 +
                       device->compute_capability_minor),
        .compiler_version = device->compiler_version,
    };
    /* Only the OpenCL plugin builds the instrumented text (OpenCL C);
     * the CUDA plugin's programs keep their guard zones alone. */
    front->bounds =
        (atomic_load(&context->checks) & KILN_CHECK_BOUNDS) != 0 &&
        context->ops->native_language == KILN_LANGUAGE_OPENCL_C;
    front->options = options->lists.options;
    front->options.include_dirs = options->include_dirs;
    front->options.include_dir_count = options->include_dir_count;
    kiln_status status = kiln_include_reader_init(
        &front->reader, name, options->include_dirs,
        options->include_dir_count, options->no_files);
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
        .kernel_names = (const char *const *)options->kernel_names,
        .kernel_name_count = options->kernel_name_count,
    };
    translate_error error;
    int result = translate_open(&front->input, &front->unit, &error);
    if (result == -2)
        status = kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                            "out of host memory preprocessing %s",
                            front->input.name);
    else if (result != 0)
        status = kiln_front_end_failed(front, &error);
    if (status == KILN_OK && options->no_files &&
        translate_left(front->unit) != NULL)
        /* #include_next, #import: the compiler would read a file */
        status = kiln_error(KILN_ERR_BUILD,
                            "%s: cannot include %s: this program is built "
                            "without files (KILN_BUILD_NO_INCLUDE)",
                            front->input.name, translate_left(front->unit));
    if (status == KILN_OK && front->reader.failed)
        status = kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                            "out of host memory reading the #include files "
                            "of %s",
                            front->input.name);
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

const char *kiln_front_end_file_digests(const kiln_front_end *front)
{
    return front->reader.digests.data;
}

const char *kiln_front_end_left(const kiln_front_end *front)
{
    return front->unit != NULL ? translate_left(front->unit) : NULL;
}

bool kiln_front_end_translates(const kiln_front_end *front)
{
    return front->language != front->native_language;
}

void kiln_front_end_target_choices(const kiln_front_end *front, char *out,
                                   size_t size)
{
    if (kiln_front_end_translates(front))
        translate_target_choices(front->input.language, &front->target, out,
                                 size);
    else if (size > 0)
        out[0] = '\0';
    /* The instrumented text is another program, made by the front end. */
    if (front->bounds && size > 0) {
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%sbounds-checked %s",
                 used ? " " : "", translate_digest());
    }
}

/* The checked mode's text in place of `native`'s (its description, made
 * from the text before, still holds: the report parameter is recognised
 * by its name when each kernel is made, core/kernel.c). */
static kiln_status native_instrument(const kiln_front_end *front,
                                     kiln_native_source *native)
{
    if (!front->bounds)
        return KILN_OK;
    size_t length = 0;
    int result = translate_bounds_instrument(native->source.text,
                                             native->source.length,
                                             &native->instrumented, &length);
    if (result == -2)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    if (result != 0) {
        kiln_trace("%s is not instrumented for KILN_CHECK=bounds: its "
                   "brackets do not balance (the compiler says why)",
                   front->input.name);
        return KILN_OK;
    }
    native->plain_text = native->source.text;
    native->plain_length = native->source.length;
    native->source.text = native->instrumented;
    native->source.length = length;
    return KILN_OK;
}

bool kiln_front_end_reads(const kiln_front_end *front)
{
    return !kiln_front_end_translates(front) &&
           front->language == KILN_LANGUAGE_CUDA_C;
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
    if (status == KILN_OK)
        status = native_instrument(front, native);
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
        /* the translation instantiated and listed them */
        return native_translated(front, native);

    /* Native: the text as preprocessed, the options as its compiler takes
     * them (NVRTC maps the OpenCL-style ones). */
    native->source.text = kiln_front_end_text(front, &native->source.length);
    native->source.kernel_names = front->input.kernel_names;
    native->source.kernel_name_count = front->input.kernel_name_count;
    /* the options of the text as compiled: its files inlined */
    translate_input compiled = front->input;
    compiled.text = native->source.text;
    compiled.length = native->source.length;
    int mapped = translate_native_options(&compiled, &native->native_options);
    if (mapped < 0)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    kiln_status status = native_options(
        native, mapped ? &native->native_options.options : &front->options);
    if (status == KILN_OK)
        status = native_instrument(front, native);
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
    free(native->instrumented);
    memset(native, 0, sizeof *native);
}

void kiln_front_end_user_names(kiln_status status)
{
    char *message = translate_user_names(kiln_last_error());
    if (message != NULL)
        kiln_error(status, "%s", message);
    free(message);
}

void kiln_front_end_close(kiln_front_end *front)
{
    translate_close(front->unit);
    kiln_include_reader_free(&front->reader);
    front->unit = NULL;
}
