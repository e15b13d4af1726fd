/*
 * Programs: source in, compiled binary out, through the kernel cache.
 */
#include "internal.h"
#include "saved_program.h"

#include "translate.h" /* clc_options_parse, clc_text_spells */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char default_source_name[] = "<kiln program>";

/* A define must stay one option word on every backend's option parser. */
static kiln_status check_define(const char *define)
{
    if (define == NULL || define[0] == '\0' || define[0] == '=')
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "define '%s' has no name",
                          define ? define : "(null)");
    for (const char *p = define; *p != '\0'; ++p)
        if (isspace((unsigned char)*p) || *p == '"' || *p == '\'' ||
            *p == '\\')
            return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                              "define '%.64s' contains white space, a quote "
                              "or a backslash, which OpenCL option strings "
                              "cannot carry portably",
                              define);
    return KILN_OK;
}

/* The option string the backend sees: the user's options, then -D for
 * each define. */
static kiln_status compose_options(const kiln_build_options *options,
                                   char **composed)
{
    kiln_string text = {0};
    bool ok = kiln_string_append(&text, "", 0);
    if (options->options != NULL)
        ok = ok && kiln_string_appendf(&text, "%s", options->options);
    for (size_t i = 0; ok && i < options->define_count; ++i) {
        kiln_status status = check_define(options->defines[i]);
        if (status != KILN_OK) {
            kiln_string_free(&text);
            return status;
        }
        ok = kiln_string_appendf(&text, "%s-D%s", text.length ? " " : "",
                                 options->defines[i]);
    }
    if (!ok) {
        kiln_string_free(&text);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    *composed = text.data;
    return KILN_OK;
}

/* The option string split into lists, once (clc_options_parse: the only
 * splitter), and the include directories to search: the struct's, then
 * the -I ones.  The plugins and the front end read these lists. */
typedef struct parsed_options {
    clc_option_lists lists;
    const char **include_dirs;
} parsed_options;

static kiln_status options_parse(const char *composed,
                                 const kiln_build_options *options,
                                 parsed_options *parsed)
{
    parsed->include_dirs = NULL;
    int result = clc_options_parse(composed, &parsed->lists);
    if (result == -2)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    /* An unclosed quote is a malformed argument; an option without its
     * value is reported as the compilers report it, a build error. */
    if (result != 0)
        return kiln_error(result == -1 ? KILN_ERR_INVALID_ARGUMENT
                                       : KILN_ERR_BUILD,
                          "%s", parsed->lists.error);
    const clc_options *lists = &parsed->lists.options;
    size_t count = options->include_dir_count + lists->include_dir_count;
    parsed->include_dirs = calloc(count ? count : 1,
                                  sizeof *parsed->include_dirs);
    if (parsed->include_dirs == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t i = 0; i < options->include_dir_count; ++i)
        parsed->include_dirs[i] = options->include_dirs[i];
    for (size_t i = 0; i < lists->include_dir_count; ++i)
        parsed->include_dirs[options->include_dir_count + i] =
            lists->include_dirs[i];
    return KILN_OK;
}

static void options_free(parsed_options *parsed)
{
    clc_option_lists_free(&parsed->lists);
    free(parsed->include_dirs);
}

kiln_status kiln_built_program_create(kiln_context *context,
                                     kiln_backend_program *backend,
                                     kiln_built_program **built)
{
    kiln_built_program *result = malloc(sizeof *result);
    if (result == NULL) {
        context->ops->program_destroy(context->backend, backend);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    atomic_init(&result->references, 1);
    result->backend = backend;
    pthread_mutex_init(&result->spare_lock, NULL);
    result->spares = NULL;
    result->spare_count = 0;
    *built = result;
    return KILN_OK;
}

kiln_spare_kernel *kiln_built_program_take_spare(kiln_built_program *built,
                                                 const char *name)
{
    pthread_mutex_lock(&built->spare_lock);
    kiln_spare_kernel **link = &built->spares;
    while (*link != NULL && strcmp((*link)->name, name) != 0)
        link = &(*link)->next;
    kiln_spare_kernel *spare = *link;
    if (spare != NULL) {
        *link = spare->next;
        built->spare_count--;
    }
    pthread_mutex_unlock(&built->spare_lock);
    return spare;
}

bool kiln_built_program_keep_spare(kiln_built_program *built, char *name,
                                   kiln_backend_kernel *backend,
                                   const kiln_backend_kernel_info *info,
                                   unsigned char *param_classes)
{
    kiln_spare_kernel *spare = malloc(sizeof *spare);
    if (spare == NULL)
        return false;
    pthread_mutex_lock(&built->spare_lock);
    bool kept = built->spare_count < KILN_SPARE_KERNELS;
    if (kept) {
        spare->name = name;
        spare->backend = backend;
        spare->info = *info;
        spare->param_classes = param_classes;
        spare->next = built->spares;
        built->spares = spare;
        built->spare_count++;
    }
    pthread_mutex_unlock(&built->spare_lock);
    if (!kept)
        free(spare);
    return kept;
}

void kiln_built_program_retain(kiln_built_program *built)
{
    atomic_fetch_add_explicit(&built->references, 1, memory_order_relaxed);
}

void kiln_built_program_release(kiln_context *context,
                                kiln_built_program *built)
{
    if (!kiln_reference_drop(&built->references))
        return;
    for (kiln_spare_kernel *spare = built->spares; spare != NULL;) {
        kiln_spare_kernel *next = spare->next;
        context->ops->kernel_destroy(context->backend, spare->backend);
        free(spare->name);
        free(spare->param_classes);
        free(spare);
        spare = next;
    }
    pthread_mutex_destroy(&built->spare_lock);
    context->ops->program_destroy(context->backend, built->backend);
    free(built);
}

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
    kiln_refcount_hold(&context->references);
    result->context = context;
    result->built = built;
    result->backend = built->backend;
    result->language = language;
    result->origin = origin;
    result->build_log = log;
    kiln_refcount_init(&result->references);
    result->magic = KILN_MAGIC_PROGRAM;
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

/* Where a CUDA C token that OpenCL C never has starts: `__global__` (the
 * kernel qualifier every CUDA kernel carries).  -1 when there is none, or
 * when OpenCL C's kernel qualifier is there too.  Comments and literals
 * are skipped; sets *line to the token's line. */
static long cuda_c_marker(const char *text, size_t length, unsigned *line)
{
    /* Most sources never spell it: a fast search decides for them (the
     * scan below cost the array layer's sources ~8k instructions on every
     * build, a program-cache hit included, and so does glibc's memmem). */
    if (!clc_text_spells(text, length, "__global__", 5)) /* its 'b', the
                                                          letter OpenCL C
                                                          spells least */
        return -1;
    long found = -1;
    unsigned current = 1;
    for (size_t i = 0; i < length; ++i) {
        char c = text[i];
        if (c == '\n') {
            ++current;
        } else if (c == '/' && i + 1 < length && text[i + 1] == '/') {
            while (i + 1 < length && text[i + 1] != '\n')
                ++i;
        } else if (c == '/' && i + 1 < length && text[i + 1] == '*') {
            for (i += 2; i + 1 < length && !(text[i] == '*' && text[i + 1] == '/');
                 ++i)
                current += text[i] == '\n';
            ++i;
        } else if (c == '"' || c == '\'') {
            for (++i; i < length && text[i] != c && text[i] != '\n'; ++i)
                i += text[i] == '\\';
        } else if (isalpha((unsigned char)c) || c == '_') {
            size_t start = i;
            while (i + 1 < length &&
                   (isalnum((unsigned char)text[i + 1]) || text[i + 1] == '_'))
                ++i;
            size_t n = i - start + 1;
            if (n == 10 && memcmp(text + start, "__global__", 10) == 0 &&
                found < 0) {
                found = (long)start;
                *line = current;
            } else if ((n == 8 && memcmp(text + start, "__kernel", 8) == 0) ||
                       (n == 6 && memcmp(text + start, "kernel", 6) == 0)) {
                return -1;
            }
        }
    }
    return found;
}

/* The caller's options (NULL: none) as this library's struct. */
static kiln_status build_options_read(const kiln_build_options *user,
                                      kiln_build_options *options)
{
    if (user == NULL) {
        memset(options, 0, sizeof *options);
        return KILN_OK;
    }
    return kiln_struct_in(options, sizeof *options, user,
                          sizeof(kiln_build_options), "kiln_build_options");
}

/* `options` has been read by build_options_read; `language_given` is
 * false when the caller gave no options struct, and the language is then
 * the source's (cuda_c_marker). */
static kiln_status program_build_common(kiln_context *context,
                                        const char *text, size_t length,
                                        const kiln_build_options *given,
                                        bool language_given,
                                        kiln_program **program)
{
    kiln_build_options chosen = *given;
    const kiln_build_options *options = &chosen;
    unsigned marker_line = 0;
    long marker = cuda_c_marker(text, length, &marker_line);
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

    char *composed = NULL;
    kiln_status status = compose_options(options, &composed);
    if (status != KILN_OK)
        return status;
    parsed_options parsed;
    status = options_parse(composed, options, &parsed);
    if (status != KILN_OK) {
        options_free(&parsed);
        free(composed);
        return status;
    }
    const clc_options *lists = &parsed.lists.options;
    const char *name =
        options->source_name ? options->source_name : default_source_name;
    kiln_backend_source source = {
        .language = options->language,
        .text = text,
        .length = length,
        .options = composed,
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
    options_free(&parsed);
    free(composed);
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
    kiln_status status = build_options_read(options, &read);
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
    kiln_status status = build_options_read(options, &with_name);
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

/* ---- the kernels of a program ------------------------------------------- */

/* The program's kernels as its plugin describes them (the plugin's
 * storage, fixed when the program was built or loaded). */
static kiln_status program_kernel_list(const kiln_program *program,
                                       const char *caller,
                                       const kiln_backend_program_info **out)
{
    kiln_context *context = program->context;
    if (context->ops->program_kernels == NULL)
        return kiln_error(KILN_ERR_UNSUPPORTED,
                          "%s: the %s plugin cannot list a program's kernels "
                          "(it leaves out the optional program_kernels op)",
                          caller, context->ops->name);
    const kiln_backend_program_info *info = NULL;
    kiln_status status = context->ops->program_kernels(
        context->backend, program->backend, &info);
    if (status != KILN_OK)
        return kiln_error_prefix(status, "%s", caller);
    if (info == NULL || (info->kernel_count > 0 && info->kernels == NULL))
        return kiln_error(KILN_ERR_BACKEND,
                          "%s: backend %s gave no kernel list", caller,
                          context->ops->name);
    *out = info;
    return KILN_OK;
}

kiln_status kiln_program_get_kernel_count(const kiln_program *program,
                                      size_t *count)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(count, "count");
    const kiln_backend_program_info *info;
    kiln_status status = program_kernel_list(program, __func__, &info);
    if (status != KILN_OK)
        return status;
    *count = info->kernel_count;
    return KILN_OK;
}

kiln_status kiln_program_get_kernel_name(const kiln_program *program, size_t index,
                                     const char **name)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(name, "name");
    const kiln_backend_program_info *info;
    kiln_status status = program_kernel_list(program, __func__, &info);
    if (status != KILN_OK)
        return status;
    if (index >= info->kernel_count)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s: the program has %zu kernel%s; there is no "
                          "kernel %zu",
                          __func__, info->kernel_count,
                          info->kernel_count == 1 ? "" : "s", index);
    if (info->kernels[index].name == NULL)
        return kiln_error(KILN_ERR_BACKEND,
                          "%s: backend %s gave kernel %zu no name", __func__,
                          program->context->ops->name, index);
    *name = info->kernels[index].name;
    return KILN_OK;
}

/* ---- the variables of a CUDA C program ----------------------------------- */

kiln_status kiln_program_get_global(kiln_program *program, const char *name,
                                    kiln_buffer **buffer)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(program, KILN_MAGIC_PROGRAM, "program");
    KILN_CHECK_OUT(name, "name");
    KILN_CHECK_OUT(buffer, "buffer");
    kiln_context *context = program->context;
    if (context->ops->program_global == NULL)
        return kiln_error(KILN_ERR_UNSUPPORTED,
                          "%s: the %s plugin cannot reach a program's "
                          "variables (it was built for an older plugin ABI "
                          "than 2.3: rebuild it)",
                          __func__, context->ops->name);
    if (program->language != KILN_LANGUAGE_CUDA_C)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "%s('%s'): only CUDA C programs have __device__ "
                          "and __constant__ variables",
                          __func__, name);
    kiln_buffer *result = calloc(1, sizeof *result);
    if (result == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "%s: out of host memory", __func__);
    size_t size = 0;
    kiln_status status = context->ops->program_global(
        context->backend, program->backend, name, &result->memory, &size);
    if (status == KILN_OK && size == 0)
        status = kiln_error(KILN_ERR_BACKEND, "%s('%s'): the variable has no "
                                              "size",
                            __func__, name);
    if (status != KILN_OK) {
        free(result);
        return kiln_error_prefix(status, "%s", __func__);
    }
    kiln_refcount_hold(&program->references);
    kiln_refcount_hold(&context->references);
    result->owner = program;
    result->context = context;
    result->size = size;
    result->capacity = size;
    kiln_refcount_init(&result->references);
    atomic_init(&result->last_stream, NULL);
    atomic_init(&result->used_async, false);
    atomic_init(&result->used_on_several_streams, false);
    result->magic = KILN_MAGIC_BUFFER;
    *buffer = result;
    return KILN_OK;
}
