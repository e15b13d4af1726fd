/*
 * Programs: source in, compiled binary out, through the kernel cache.
 */
#include "internal.h"
#include "saved_program.h"

#include "translate.h" /* clc_options */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char default_source_name[] = "<kiln program>";

/* Takes over one reference to `built` (dropped on failure) and `log`. */
static kiln_status program_wrap(kiln_context *context,
                                kiln_built_program *built,
                                kiln_language language,
                                kiln_program_origin origin, char *log,
                                kiln_program **program)
{
    kiln_program *result = calloc(1, sizeof *result);
    if (result == NULL) {
        kiln_built_program_release(context, built);
        free(log);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    result->context = context;
    result->built = built;
    result->backend = built->backend;
    result->language = language;
    result->origin = origin;
    result->build_log = log;
    kiln_handle_init(result, KILN_MAGIC_PROGRAM, &context->references);
    *program = result;
    return KILN_OK;
}

/* Whether the plugin can save and load programs (ABI 2.5). */
static bool program_savable(const kiln_context *context)
{
    return context->ops->program_kernels != NULL &&
           context->ops->program_image != NULL &&
           context->ops->program_load_image != NULL;
}

/* Loads a saved program; false (and no error left behind) when it is not
 * one of `language` in the current format or the plugin refuses its image,
 * so the caller compiles instead. */
static bool program_from_saved(kiln_context *context, kiln_language language,
                               const void *bytes, size_t size,
                               kiln_backend_program **backend)
{
    if (!program_savable(context))
        return false;
    kiln_saved_program saved;
    kiln_status status = kiln_saved_program_read(bytes, size, language, &saved);
    if (status == KILN_OK) {
        status = context->ops->program_load_image(
            context->backend, language, saved.image, saved.image_size,
            &saved.info, backend);
        kiln_saved_program_free(&saved);
    }
    if (status != KILN_OK) {
        kiln_trace("saved program refused (%s): %s", kiln_status_name(status),
                   kiln_last_error());
        kiln_error_clear();
        return false;
    }
    return true;
}

/* The saved form of a program just built (malloc'ed); false, with the
 * reason traced, when the plugin cannot give it. */
static bool program_to_saved(kiln_context *context, kiln_language language,
                             kiln_backend_program *backend, void **bytes,
                             size_t *size)
{
    if (!program_savable(context)) {
        kiln_trace("program not cacheable: the %s plugin gives no program "
                   "image (plugin ABI before 2.5)",
                   context->ops->name);
        return false;
    }
    const kiln_backend_program_info *info = NULL;
    void *image = NULL;
    size_t image_size = 0;
    kiln_status status =
        context->ops->program_kernels(context->backend, backend, &info);
    if (status == KILN_OK)
        status = context->ops->program_image(context->backend, backend, &image,
                                             &image_size);
    if (status == KILN_OK)
        status = kiln_saved_program_write(language, info, image, image_size,
                                          bytes, size);
    free(image);
    if (status != KILN_OK) {
        kiln_trace("program not cacheable: %s", kiln_last_error());
        return false;
    }
    return true;
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* KILN_LOG=info: one line per build, with where the binary came from. */
static void log_build(const kiln_context *context,
                      const kiln_backend_source *source,
                      kiln_program_origin origin, double started)
{
    if (!kiln_log_enabled(KILN_LOG_INFO))
        return;
    static const char *const origins[] = {
        [KILN_PROGRAM_COMPILED] = "compiled",
        [KILN_PROGRAM_FROM_MEMORY_CACHE] = "memory cache",
        [KILN_PROGRAM_FROM_DISK_CACHE] = "disk cache",
    };
    kiln_log(KILN_LOG_INFO, "built %s on %s:%d (%s) in %.2f ms: %s",
             source->name, context->ops->name, context->device.index,
             context->device.name, (seconds_now() - started) * 1e3,
             origins[origin]);
}

static kiln_status program_build_source(kiln_context *context,
                                        const kiln_backend_source *source,
                                        kiln_program **program)
{
    double started = kiln_log_enabled(KILN_LOG_INFO) ? seconds_now() : 0;
    kiln_cache_key key;
    kiln_status status = kiln_cache_key_make(context, source, &key);
    if (status != KILN_OK)
        return status;

    /* A hit in this context's memory cache shares the backend program
     * built earlier: nothing is copied or loaded again. */
    kiln_built_program *built = kiln_memory_cache_find(context, &key);
    if (built != NULL) {
        kiln_cache_key_free(&key);
        status = program_wrap(context, built, source->language,
                              KILN_PROGRAM_FROM_MEMORY_CACHE, NULL, program);
        if (status == KILN_OK)
            log_build(context, source, KILN_PROGRAM_FROM_MEMORY_CACHE,
                      started);
        return status;
    }

    kiln_backend_program *backend = NULL;
    kiln_program_origin origin = KILN_PROGRAM_COMPILED;
    void *saved = NULL;
    size_t saved_size = 0;
    bool cacheable = false;
    if (kiln_disk_cache_find(&key, &saved, &saved_size)) {
        if (program_from_saved(context, source->language, saved, saved_size,
                               &backend)) {
            origin = KILN_PROGRAM_FROM_DISK_CACHE;
            cacheable = true;
        }
        free(saved);
    }
    char *log = NULL;
    if (backend == NULL) {
        kiln_trace("compiling %s (%zu bytes) on %s", source->name,
                   source->length, context->ops->name);
        status = context->ops->program_build(context->backend, source,
                                             &backend, &log);
        if (status != KILN_OK) {
            /* The backend's message already carries the log. */
            free(log);
            kiln_cache_key_free(&key);
            return status;
        }
        if (program_to_saved(context, source->language, backend, &saved,
                             &saved_size)) {
            kiln_disk_cache_store(&key, saved, saved_size);
            free(saved);
            cacheable = true;
        }
    }
    status = kiln_built_program_create(context, backend, &built);
    if (status != KILN_OK) {
        free(log);
        kiln_cache_key_free(&key);
        return status;
    }
    if (cacheable)
        kiln_memory_cache_store(context, &key, built);
    kiln_cache_key_free(&key);
    kiln_error_clear();
    status = program_wrap(context, built, source->language, origin, log,
                          program);
    if (status == KILN_OK)
        log_build(context, source, origin, started);
    return status;
}

/* `options` has been read by kiln_build_options_read; `language_given`
 * is false when the caller gave no options struct, and the language is
 * then the source's (kiln_language_cuda_marker). */
static kiln_status program_build_common(kiln_context *context,
                                        const char *text, size_t length,
                                        const kiln_build_options *given,
                                        bool language_given,
                                        kiln_program **program)
{
    kiln_build_options chosen = *given;
    const kiln_build_options *options = &chosen;
    unsigned marker_line = 0;
    long marker = kiln_language_cuda_marker(text, length, &marker_line);
    if (!language_given && marker >= 0) {
        chosen.language = KILN_LANGUAGE_CUDA_C;
        kiln_trace("%s: __global__ at line %u: built as CUDA C",
                   chosen.source_name ? chosen.source_name : "<kiln program>",
                   marker_line);
    }
    if (options->language != KILN_LANGUAGE_OPENCL_C &&
        options->language != KILN_LANGUAGE_CUDA_C)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "unknown source language %d", (int)options->language);
    if ((options->define_count > 0 && options->defines == NULL) ||
        (options->include_dir_count > 0 && options->include_dirs == NULL))
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "a define or include-dir count without its array");
    if (length == 0)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT, "the source is empty");
    if (memchr(text, '\0', length) != NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "the source contains a NUL byte before its end");

    kiln_program_options parsed;
    kiln_status status = kiln_program_options_make(options, &parsed);
    if (status != KILN_OK)
        return status;
    const clc_options *lists = &parsed.lists.options;
    const char *name =
        options->source_name ? options->source_name : default_source_name;
    kiln_backend_source source = {
        .language = options->language,
        .text = text,
        .length = length,
        .options = parsed.composed,
        .name = name,
        .defines = lists->defines,
        .define_count = lists->define_count,
        .include_dirs = parsed.include_dirs,
        .include_dir_count =
            options->include_dir_count + lists->include_dir_count,
        .flags = lists->flags,
        .flag_count = lists->flag_count,
    };
    char *expanded = NULL;
    size_t expanded_length = 0;
    status = kiln_source_expand(&source, strcmp(context->ops->name, "cuda") == 0,
                                &expanded, &expanded_length);
    if (status == KILN_OK) {
        if (expanded != NULL) {
            source.text = expanded;
            source.length = expanded_length;
        }
        status = program_build_source(context, &source, program);
        if (status == KILN_ERR_BUILD && marker >= 0 &&
            options->language == KILN_LANGUAGE_OPENCL_C)
            kiln_error_prefix(status,
                              "%s was built as OpenCL C, the language its "
                              "kiln_build_options give, but looks like CUDA C "
                              "(__global__ at line %u): build it with "
                              ".language = KILN_LANGUAGE_CUDA_C",
                              name, marker_line);
    }
    free(expanded);
    kiln_program_options_free(&parsed);
    return status;
}

kiln_status kiln_program_build(kiln_context *context, const char *source,
                               const char *options, kiln_program **program)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(source, "source");
    KILN_CHECK_OUT(program, "program");
    kiln_build_options build_options = {.struct_size = sizeof build_options,
                                        .options = options};
    return program_build_common(context, source, strlen(source),
                                &build_options, false, program);
}

kiln_status kiln_program_build_with(kiln_context *context, const char *source,
                                    size_t length,
                                    const kiln_build_options *options,
                                    kiln_program **program)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(source, "source");
    KILN_CHECK_OUT(program, "program");
    if (length == 0)
        length = strlen(source);
    kiln_build_options read;
    kiln_status status = kiln_build_options_read(options, &read);
    if (status != KILN_OK)
        return status;
    return program_build_common(context, source, length, &read,
                                options != NULL, program);
}

kiln_status kiln_program_build_file(kiln_context *context, const char *path,
                                    const kiln_build_options *options,
                                    kiln_program **program)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(context, KILN_MAGIC_CONTEXT, "context");
    KILN_CHECK_OUT(path, "path");
    KILN_CHECK_OUT(program, "program");
    kiln_build_options with_name;
    kiln_status status = kiln_build_options_read(options, &with_name);
    if (status != KILN_OK)
        return status;
    char *text;
    size_t length;
    status = kiln_file_read(path, &text, &length);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "kiln_program_build_file");
    if (with_name.source_name == NULL)
        with_name.source_name = path;
    status = program_build_common(context, text, length, &with_name,
                                  options != NULL, program);
    free(text);
    return status;
}

kiln_status kiln_program_retain(kiln_program *program)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    kiln_refcount_retain(&program->references);
    return KILN_OK;
}

static void program_destroy(kiln_program *program)
{
    kiln_context *context = program->context;
    /* The context lives until this program's reference is dropped below. */
    kiln_built_program_release(context, program->built);
    free(program->build_log);
    kiln_handle_bury(program);
    kiln_context_release_internal(context);
}

void kiln_program_release_internal(kiln_program *program)
{
    if (kiln_refcount_drop(&program->references))
        program_destroy(program);
}

kiln_status kiln_program_release(kiln_program *program)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    bool last = false;
    kiln_status status = kiln_refcount_release(
        &program->references, __func__, "program",
        "its kernels and variables' buffers", &last);
    if (last)
        program_destroy(program);
    return status;
}

kiln_status kiln_program_get_build_log(const kiln_program *program,
                                       const char **log)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(log, "log");
    *log = program->build_log ? program->build_log : "";
    return KILN_OK;
}

kiln_status kiln_program_get_origin(const kiln_program *program,
                                    kiln_program_origin *origin)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(origin, "origin");
    *origin = program->origin;
    return KILN_OK;
}

