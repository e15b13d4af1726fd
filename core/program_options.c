/*
 * Build options: the caller's struct read, defines checked, the option
 * string composed (the user's options, then -D for each define) and split
 * into lists once (translate_options_parse, the only splitter), with the
 * include directories to search.  The plugins and the front end read
 * these lists.
 */
#include "internal.h"

#include "translate.h" /* translate_options_parse */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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

static kiln_status options_parse(const char *composed,
                                 const kiln_build_options *options,
                                 kiln_program_options *parsed)
{
    parsed->include_dirs = NULL;
    int result = translate_options_parse(composed, &parsed->lists);
    if (result == -2)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    /* An unclosed quote is a malformed argument; an option without its
     * value is reported as the compilers report it, a build error. */
    if (result != 0)
        return kiln_error(result == -1 ? KILN_ERR_INVALID_ARGUMENT
                                       : KILN_ERR_BUILD,
                          "%s", parsed->lists.error);
    const translate_options *lists = &parsed->lists.options;
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
    parsed->include_dir_count = count;
    return KILN_OK;
}

void kiln_program_options_free(kiln_program_options *parsed)
{
    translate_option_lists_free(&parsed->lists);
    free(parsed->include_dirs);
    free(parsed->composed);
    kiln_kernel_names_free(parsed->kernel_names, parsed->kernel_name_count);
    parsed->include_dirs = NULL;
    parsed->composed = NULL;
    parsed->kernel_names = NULL;
    parsed->kernel_name_count = 0;
}

kiln_status kiln_program_options_make(const kiln_build_options *options,
                                      kiln_program_options *parsed)
{
    memset(parsed, 0, sizeof *parsed);
    parsed->no_files = (options->flags & KILN_BUILD_NO_INCLUDE) != 0;
    kiln_status status = compose_options(options, &parsed->composed);
    if (status == KILN_OK)
        status = options_parse(parsed->composed, options, parsed);
    if (status == KILN_OK)
        status = kiln_kernel_names_make(options->kernel_names,
                                        options->kernel_name_count,
                                        &parsed->kernel_names,
                                        &parsed->kernel_name_count);
    if (status != KILN_OK)
        kiln_program_options_free(parsed);
    return status;
}

/* The caller's options (NULL: none) as this library's struct. */
kiln_status kiln_build_options_read(const kiln_build_options *user,
                                   kiln_build_options *options)
{
    if (user == NULL) {
        memset(options, 0, sizeof *options);
        return KILN_OK;
    }
    kiln_status status =
        kiln_struct_in(options, sizeof *options, user,
                       KILN_BUILD_OPTIONS_SIZE_1_0, "kiln_build_options");
    if (status == KILN_OK && (options->flags & ~KILN_BUILD_NO_INCLUDE) != 0)
        status = kiln_error(KILN_ERR_INVALID_ARGUMENT,
                            "kiln_build_options: unknown flags 0x%x (known: "
                            "KILN_BUILD_NO_INCLUDE)",
                            options->flags & ~KILN_BUILD_NO_INCLUDE);
    return status;
}
