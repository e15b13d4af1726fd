/*
 * From a program's text to a built program: the memory cache (by the text
 * as given, then by the front end's text), the disk cache, and on a miss
 * the front end and the plugin's compile.  program.c is the public API
 * around it.
 */
#include "internal.h"
#include "saved_program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool program_savable(const kiln_context *context)
{
    return context->ops->program_image != NULL &&
           context->ops->program_load_image != NULL;
}

/* Loads a saved program; false (and no error left behind) when it is not
 * one of `language` in the current format or the plugin refuses its image,
 * so the caller compiles instead. */
static bool program_from_saved(kiln_context *context, kiln_language language,
                               const void *bytes, size_t size,
                               kiln_backend_program **backend,
                               kiln_program_description *description)
{
    if (!program_savable(context))
        return false;
    kiln_saved_program saved;
    kiln_status status = kiln_saved_program_read(bytes, size, language, &saved);
    if (status == KILN_OK) {
        status = context->ops->program_load_image(
            context->backend, saved.image, saved.image_size, &saved.info,
            backend);
        if (status == KILN_OK) {
            *description = saved.description;
            memset(&saved.description, 0, sizeof saved.description);
        }
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

/* Saves a program just built in the disk cache; when the plugin gives no
 * image, says why in the trace. */
static void program_save(kiln_context *context, kiln_language language,
                         const kiln_cache_key *key,
                         kiln_backend_program *backend,
                         const kiln_program_description *description)
{
    if (!program_savable(context)) {
        kiln_trace("program not cacheable: the %s plugin gives no program "
                   "image",
                   context->ops->name);
        return;
    }
    /* The plugin's list too: program_load_image gets it back (a driver
     * may describe no kernel of a program made from a binary). */
    const kiln_backend_program_info *info = NULL;
    if (context->ops->program_kernels(context->backend, backend, &info) !=
        KILN_OK) {
        info = NULL;
        kiln_error_clear();
    }
    void *image = NULL, *bytes = NULL;
    size_t image_size = 0, size = 0;
    kiln_status status = context->ops->program_image(
        context->backend, backend, &image, &image_size);
    if (status == KILN_OK)
        status = kiln_saved_program_write(language, info, description, image,
                                          image_size, &bytes, &size);
    free(image);
    if (status != KILN_OK) {
        kiln_trace("program not cacheable: %s", kiln_last_error());
        return;
    }
    kiln_disk_cache_store(key, bytes, size);
    free(bytes);
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* KILN_LOG=info: one line per build, with where the binary came from. */
static void log_build(const kiln_context *context, const char *name,
                      kiln_program_origin origin, double started)
{
    if (!kiln_log_enabled(KILN_LOG_INFO))
        return;
    static const char *const origins[] = {
        [KILN_PROGRAM_COMPILED] = "compiled",
        [KILN_PROGRAM_FROM_MEMORY_CACHE] = "memory cache",
        [KILN_PROGRAM_FROM_DISK_CACHE] = "disk cache",
    };
    kiln_log(KILN_LOG_INFO, "built %s on %s:%d (%s) in %.2f ms: %s", name,
             context->ops->name, context->device.index, context->device.name,
             (seconds_now() - started) * 1e3, origins[origin]);
}

/* The native program's description from the plugin's list, with what the
 * front end read of native CUDA C. */
static kiln_status program_describe(kiln_context *context,
                                    kiln_backend_program *backend,
                                    const kiln_native_source *native,
                                    kiln_program_description *description)
{
    const kiln_backend_program_info *info = NULL;
    kiln_status status = context->ops->program_kernels(context->backend,
                                                       backend, &info);
    if (status == KILN_ERR_OUT_OF_HOST_MEMORY)
        return status;
    if (status != KILN_OK || info == NULL) {
        /* Listing never fails a build: the kernels the front end read,
         * if any (kernel_create still finds the others by name). */
        kiln_trace("the %s plugin cannot list the kernels (%s); listing the "
                   "kernels Kiln read in the source",
                   context->ops->name,
                   status != KILN_OK ? kiln_last_error() : "no list");
        kiln_error_clear();
        info = NULL;
        if (!native->read) {
            static const kiln_backend_program_info none = {
                .struct_size = sizeof none};
            info = &none;
        }
    }
    return kiln_description_native(info, native->read ? &native->program
                                                      : NULL,
                                   description);
}

/* Compiles a program the caches did not have. */
static kiln_status program_compile(kiln_context *context,
                                   kiln_front_end *front,
                                   const char *log_name,
                                   kiln_backend_program **backend,
                                   kiln_program_description *description,
                                   char **log)
{
    kiln_native_source native;
    kiln_status status = kiln_front_end_native(front, &native);
    if (status == KILN_OK) {
        /* Said when it starts: a compile can take seconds (PoCL), and a
         * cold start of many kernels shows which one is compiling. */
        kiln_log(KILN_LOG_INFO, "compiling %s (%zu bytes) on %s:%d (%s)",
                 log_name, native.source.length, context->ops->name,
                 context->device.index, context->device.name);
        status = context->ops->program_build(context->backend, &native.source,
                                             backend, log);
    }
    if (status == KILN_ERR_BUILD && kiln_front_end_whole_headers(&native) ==
                                        KILN_OK) {
        /* The parts of the prelude the translation seemed to use did not
         * do: a misjudged selection costs a second compile, never a failed
         * build (and a wrong program is reported as the whole prelude
         * reports it). */
        kiln_trace("%s does not compile with the parts of the prelude it "
                   "uses; again with all of it",
                   native.source.name);
        free(*log);
        *log = NULL;
        status = context->ops->program_build(context->backend, &native.source,
                                             backend, log);
    }
    if (status == KILN_ERR_BUILD && native.instrumented != NULL) {
        /* A valid program the instrumentation broke (a kernel called as a
         * function, a construct it misread) is built as it is: the checked
         * mode never costs a working build; its guard zones still check
         * writes.  A wrong program fails again, in the user's own text. */
        kiln_log(KILN_LOG_WARN,
                 "%s does not compile with instrumented accesses "
                 "(KILN_CHECK=bounds); built without them, so its reads are "
                 "not checked: %.400s",
                 native.source.name, kiln_last_error());
        free(*log);
        *log = NULL;
        native.source.text = native.plain_text;
        native.source.length = native.plain_length;
        status = context->ops->program_build(context->backend, &native.source,
                                             backend, log);
    }
    if (status == KILN_OK &&
        native.description.origin == KILN_DESCRIBED_BY_TRANSLATION) {
        *description = native.description;
        memset(&native.description, 0, sizeof native.description);
    } else if (status == KILN_OK) {
        status = program_describe(context, *backend, &native, description);
        if (status != KILN_OK)
            context->ops->program_destroy(context->backend, *backend);
    }
    if (kiln_front_end_translates(front)) {
        /* The compiler's words about the translation, in the user's
         * names. */
        if (status != KILN_OK)
            kiln_front_end_user_names(status);
        if (*log != NULL) {
            char *renamed = translate_user_names(*log);
            if (renamed != NULL) {
                free(*log);
                *log = renamed;
            }
        }
    }
    kiln_native_source_free(&native);
    return status;
}

/* The built program for the front end's text: shared from the memory
 * cache, loaded from the disk cache, or compiled. */
static kiln_status program_find_or_build(kiln_context *context,
                                         kiln_front_end *front,
                                         const kiln_program_options *options,
                                         const char *name,
                                         kiln_built_program **result,
                                         kiln_program_origin *result_origin,
                                         char **result_log)
{
    double started = kiln_log_enabled(KILN_LOG_INFO) ? seconds_now() : 0;
    size_t length = 0;
    const char *text = kiln_front_end_text(front, &length);
    char target_choices[256];
    kiln_front_end_target_choices(front, target_choices,
                                  sizeof target_choices);
    kiln_cache_key key;
    kiln_status status = kiln_cache_key_make(
        context, front->language, &options->lists.options,
        options->include_dirs, options->include_dir_count, text, length,
        kiln_front_end_file_digests(front),
        kiln_front_end_translates(front) || kiln_front_end_reads(front),
        target_choices, (const char *const *)options->kernel_names,
        options->kernel_name_count, &key);
    if (status != KILN_OK)
        return status;
    /* An #include the compiler resolves alone (Kiln did not find its
     * file: the compiler's own search, such as PoCL's current directory)
     * reads a file no key covers: such a program is compiled every time,
     * never cached, so it is never stale. */
    const char *left = kiln_front_end_left(front);
    bool uncached = left != NULL;
    if (uncached)
        kiln_log(KILN_LOG_INFO,
                 "%s is not cached: its #include %s is left to the compiler "
                 "(Kiln's include search did not find the file), so the "
                 "cache key cannot cover it",
                 name, left);

    /* A hit in this context's memory cache shares the backend program
     * built earlier: nothing is copied or loaded again. */
    kiln_built_program *built =
        uncached ? NULL : kiln_memory_cache_find(context, &key);
    if (built != NULL) {
        kiln_cache_key_free(&key);
        *result = built;
        *result_origin = KILN_PROGRAM_FROM_MEMORY_CACHE;
        log_build(context, name, KILN_PROGRAM_FROM_MEMORY_CACHE, started);
        return KILN_OK;
    }

    kiln_backend_program *backend = NULL;
    kiln_program_description description;
    memset(&description, 0, sizeof description);
    kiln_program_origin origin = KILN_PROGRAM_COMPILED;
    void *saved = NULL;
    size_t saved_size = 0;
    if (!uncached && kiln_disk_cache_find(&key, &saved, &saved_size)) {
        if (program_from_saved(context, front->language, saved, saved_size,
                               &backend, &description))
            origin = KILN_PROGRAM_FROM_DISK_CACHE;
        free(saved);
    }
    char *log = NULL;
    if (backend == NULL) {
        status = program_compile(context, front, name, &backend,
                                 &description, &log);
        if (status != KILN_OK) {
            /* The backend's message already carries the log. */
            free(log);
            kiln_cache_key_free(&key);
            return status;
        }
        if (!uncached)
            program_save(context, front->language, &key, backend,
                         &description);
    }
    status = kiln_built_program_create(context, backend, &description, &built);
    if (status != KILN_OK) {
        free(log);
        kiln_cache_key_free(&key);
        return status;
    }
    if (!uncached)
        kiln_memory_cache_store(context, &key, built);
    kiln_cache_key_free(&key);
    kiln_error_clear();
    *result = built;
    *result_origin = origin;
    *result_log = log;
    log_build(context, name, origin, started);
    return KILN_OK;
}

/* The memory cache's key of a text as given, before its front end: what
 * the front end's result depends on besides files (the language, the
 * options, the kernel names, the checked mode), marked apart from the
 * keys of front ends' texts. */
static kiln_status raw_key_make(kiln_context *context, kiln_language language,
                                const kiln_program_options *parsed,
                                const char *name, const char *text,
                                size_t length, kiln_cache_key *key)
{
    /* the source's name too: the front end writes it into #line */
    size_t size = strlen(name) + 64;
    char *choices = malloc(size);
    if (choices == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    snprintf(choices, size, "the text as given; checks %u; name %s",
             atomic_load(&context->checks), name);
    kiln_status status = kiln_cache_key_make(
        context, language, &parsed->lists.options, parsed->include_dirs,
        parsed->include_dir_count, text, length, NULL, false, choices,
        (const char *const *)parsed->kernel_names, parsed->kernel_name_count,
        key);
    free(choices);
    return status;
}

kiln_status kiln_program_build_text(kiln_context *context, const char *text,
                                    size_t length, const char *name,
                                    const char *log_name,
                                    kiln_language language,
                                    const kiln_program_options *parsed,
                                    kiln_built_program **built,
                                    kiln_program_origin *origin, char **log)
{
    *built = NULL;
    *log = NULL;
    /* A text built before in this context whose front end read no file
     * is found by the text itself, before the front end runs again:
     * generated kernels (libkiln-array's, kiln.cupy's) are built at every
     * call, and the front end costs a macro-heavy text hundreds of
     * microseconds where this lookup costs one digest. */
    kiln_cache_key raw;
    bool have_raw = raw_key_make(context, language, parsed, name, text,
                                 length, &raw) == KILN_OK;
    kiln_error_clear();
    if (have_raw) {
        double started = kiln_log_enabled(KILN_LOG_INFO) ? seconds_now() : 0;
        *built = kiln_memory_cache_find(context, &raw);
        if (*built != NULL) {
            kiln_cache_key_free(&raw);
            *origin = KILN_PROGRAM_FROM_MEMORY_CACHE;
            log_build(context, log_name, KILN_PROGRAM_FROM_MEMORY_CACHE,
                      started);
            return KILN_OK;
        }
    }
    kiln_front_end front;
    kiln_status status = kiln_front_end_open(context, text, length, name,
                                             language, parsed, &front);
    if (status == KILN_OK)
        status = program_find_or_build(context, &front, parsed, log_name,
                                       built, origin, log);
    /* only a text that is the whole program: no file read, none left to
     * the compiler */
    const char *files = status == KILN_OK ? kiln_front_end_file_digests(&front)
                                          : NULL;
    if (status == KILN_OK && have_raw && (files == NULL || files[0] == '\0') &&
        kiln_front_end_left(&front) == NULL)
        kiln_memory_cache_store(context, &raw, *built);
    if (have_raw)
        kiln_cache_key_free(&raw);
    kiln_front_end_close(&front);
    return status;
}
