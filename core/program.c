/*
 * Programs: the public API (kiln_program_build, _with, _file, retain,
 * release, the build log and origin).  Options are read here; the text
 * becomes a built program in program_build.c.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    atomic_init(&result->built, built);
    pthread_mutex_init(&result->rebuild_lock, NULL);
    result->language = language;
    result->origin = origin;
    result->build_log = log;
    kiln_handle_init(result, KILN_MAGIC_PROGRAM, &context->references);
    *program = result;
    return KILN_OK;
}

/* Whether the plugin can save and load programs. */
/* What KILN_LOG's lines call a build: the options' name, else the source
 * file, else the first kernel's name (a program that builds many
 * generated kernels can then tell which one is compiling). */
static const char *build_log_name(const kiln_build_options *options,
                                  const char *text, size_t length,
                                  char *buffer, size_t size)
{
    if (options->name != NULL && options->name[0] != '\0')
        return options->name;
    if (options->source_name != NULL)
        return options->source_name;
    if (kiln_first_kernel_name(text, length, buffer, size))
        return buffer;
    return default_source_name;
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
    if (options->kernel_name_count > 0 &&
        options->language != KILN_LANGUAGE_CUDA_C)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kernel_names name CUDA C kernel template "
                          "instances; this program is OpenCL C");
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
    const char *name =
        options->source_name ? options->source_name : default_source_name;
    char kernel_name[128];
    const char *log_name =
        kiln_log_enabled(KILN_LOG_INFO)
            ? build_log_name(options, text, length, kernel_name,
                             sizeof kernel_name)
            : name;
    kiln_built_program *built = NULL;
    kiln_program_origin origin = KILN_PROGRAM_COMPILED;
    char *log = NULL;
    status = kiln_program_build_text(context, text, length, name, log_name,
                                     options->language, &parsed, &built,
                                     &origin, &log);
    if (status == KILN_OK)
        status = program_wrap(context, built, options->language, origin, log,
                              program);
    if (status == KILN_OK) {
        status = kiln_program_recipe_keep(*program, text, length, options,
                                          parsed.composed, &parsed, log_name);
        if (status != KILN_OK) {
            kiln_program_release_internal(*program);
            *program = NULL;
        }
    }
    if (status == KILN_ERR_BUILD && marker >= 0 &&
        options->language == KILN_LANGUAGE_OPENCL_C)
        kiln_error_prefix(status,
                          "%s was built as OpenCL C, the language its "
                          "kiln_build_options give, but looks like CUDA C "
                          "(__global__ at line %u): build it with "
                          ".language = KILN_LANGUAGE_CUDA_C",
                          name, marker_line);
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
    kiln_built_program_release(context, kiln_program_built(program));
    for (size_t i = 0; i < program->replaced_count; ++i)
        kiln_built_program_release(context, program->replaced[i]);
    free(program->replaced);
    kiln_program_recipe_free(program->recipe);
    pthread_mutex_destroy(&program->rebuild_lock);
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

