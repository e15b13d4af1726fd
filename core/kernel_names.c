/*
 * Kernel template instances named by the host, as NVRTC's name expressions
 * and CuPy's name_expressions name them ("sgemm<64, 8>"): names normalised
 * to one spelling, kept sorted in the build options (and so in the cache
 * key), and a program built again when kiln_kernel_create asks for an
 * instance its build does not have.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static bool name_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

/* What a C++ expression naming a kernel may hold besides words and white
 * space: no ';', braces, quotes or '#', which would let a name reach the
 * compiler as more than an expression. */
static bool name_punct_char(char c)
{
    return c != '\0' && strchr("<>(),:*&+-/%[]~!|^=?.", c) != NULL;
}

static bool name_space_char(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
}

/* The end of the word starting at `p`: a number's exponent sign ("1e+3")
 * and point belong to it. */
static const char *word_end(const char *p)
{
    bool number = *p >= '0' && *p <= '9';
    for (;;) {
        if (name_word_char(*p) || (number && *p == '.'))
            ++p;
        else if (number && (*p == '+' || *p == '-') &&
                 (p[-1] == 'e' || p[-1] == 'E' || p[-1] == 'p' ||
                  p[-1] == 'P'))
            ++p;
        else
            return p;
    }
}

static kiln_status name_refused(const char *name, const char *why)
{
    return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                      "kernel name '%.200s' is not a kernel's name or a "
                      "kernel template's instance: %s",
                      name, why);
}

kiln_status kiln_kernel_name_normalise(const char *name, char **normalised)
{
    *normalised = NULL;
    kiln_string out = {0};
    const char *p = name;
    while (name_space_char(*p))
        ++p;
    if (*p == '&') /* the address NVRTC's expressions may take */
        ++p;
    int depth = 0;
    bool spaced = false, ok = true;
    char previous = '\0'; /* the last character written */
    while (ok && *p != '\0') {
        if (name_space_char(*p)) {
            spaced = true;
            ++p;
            continue;
        }
        const char *end;
        bool word = name_word_char(*p);
        if (word) {
            end = word_end(p);
        } else if (name_punct_char(*p)) {
            end = p + 1;
            depth += *p == '(' || *p == '[';
            depth -= *p == ')' || *p == ']';
        } else {
            kiln_string_free(&out);
            return name_refused(name, "it holds a character no C++ name "
                                      "or template argument list has");
        }
        if (depth < 0)
            break;
        bool space = out.length > 0 &&
                     (previous == ',' ||
                      (word && name_word_char(previous)) ||
                      (!word && !name_word_char(previous) && spaced));
        ok = (!space || kiln_string_append(&out, " ", 1)) &&
             kiln_string_append(&out, p, (size_t)(end - p));
        previous = end[-1];
        spaced = false;
        p = end;
    }
    if (!ok) {
        kiln_string_free(&out);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    const char *why = NULL;
    if (out.length == 0)
        why = "it is empty";
    else if (depth != 0)
        why = "its brackets are unbalanced";
    else if (!name_word_char(out.data[0]) && out.data[0] != ':')
        why = "it does not start with a name";
    else if (out.length > KILN_KERNEL_NAME_MAX)
        why = "it is longer than 127 bytes";
    if (why != NULL) {
        kiln_string_free(&out);
        return name_refused(name, why);
    }
    *normalised = out.data;
    return KILN_OK;
}

bool kiln_kernel_name_needs_request(const char *normalised)
{
    return strchr(normalised, '<') != NULL ||
           strstr(normalised, "::") != NULL;
}

void kiln_kernel_names_free(char **names, size_t count)
{
    for (size_t i = 0; names != NULL && i < count; ++i)
        free(names[i]);
    free(names);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

kiln_status kiln_kernel_names_make(const char *const *names, size_t count,
                                   char ***out, size_t *out_count)
{
    *out = NULL;
    *out_count = 0;
    if (count == 0)
        return KILN_OK;
    if (names == NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kernel_name_count is %zu but kernel_names is NULL",
                          count);
    char **list = calloc(count, sizeof *list);
    if (list == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t i = 0; i < count; ++i) {
        kiln_status status =
            names[i] == NULL
                ? kiln_error(KILN_ERR_INVALID_ARGUMENT,
                             "kernel_names[%zu] is NULL", i)
                : kiln_kernel_name_normalise(names[i], &list[i]);
        if (status != KILN_OK) {
            kiln_kernel_names_free(list, i);
            return status;
        }
    }
    qsort(list, count, sizeof *list, compare_names);
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
        if (kept > 0 && strcmp(list[kept - 1], list[i]) == 0)
            free(list[i]);
        else
            list[kept++] = list[i];
    }
    *out = list;
    *out_count = kept;
    return KILN_OK;
}

/* ---- building again with a name added ------------------------------------ */

void kiln_program_recipe_free(kiln_program_recipe *recipe)
{
    if (recipe == NULL)
        return;
    free(recipe->text);
    free(recipe->source_name);
    free(recipe->log_name);
    free(recipe->options);
    kiln_kernel_names_free(recipe->include_dirs, recipe->include_dir_count);
    kiln_kernel_names_free(recipe->kernel_names, recipe->kernel_name_count);
    free(recipe);
}

static char *copy_or_null(const char *text, bool *ok)
{
    if (text == NULL)
        return NULL;
    char *copy = kiln_strdup(text);
    *ok = *ok && copy != NULL;
    return copy;
}

kiln_status kiln_program_recipe_keep(kiln_program *program, const char *text,
                                     size_t length,
                                     const kiln_build_options *options,
                                     const char *composed,
                                     const kiln_program_options *parsed,
                                     const char *log_name)
{
    /* Only CUDA C has templates and namespaces; most programs have
     * neither, and keep no copy. */
    if (program->language != KILN_LANGUAGE_CUDA_C ||
        (!translate_text_spells(text, length, "template", 4) &&
         !translate_text_spells(text, length, "namespace", 4)))
        return KILN_OK;
    kiln_program_recipe *recipe = calloc(1, sizeof *recipe);
    bool ok = recipe != NULL;
    if (ok) {
        recipe->text = malloc(length + 1);
        ok = recipe->text != NULL;
        if (ok) {
            memcpy(recipe->text, text, length);
            recipe->text[length] = '\0';
        }
        recipe->length = length;
        recipe->source_name = copy_or_null(options->source_name, &ok);
        recipe->log_name = copy_or_null(log_name, &ok);
        recipe->options = copy_or_null(composed, &ok);
        recipe->flags = options->flags;
        recipe->include_dirs =
            calloc(options->include_dir_count + 1, sizeof(char *));
        ok = ok && recipe->include_dirs != NULL;
        for (size_t i = 0; ok && i < options->include_dir_count; ++i) {
            recipe->include_dirs[i] =
                copy_or_null(options->include_dirs[i], &ok);
            recipe->include_dir_count = i + 1;
        }
        recipe->kernel_names =
            calloc(parsed->kernel_name_count + 1, sizeof(char *));
        ok = ok && recipe->kernel_names != NULL;
        for (size_t i = 0; ok && i < parsed->kernel_name_count; ++i) {
            recipe->kernel_names[i] =
                copy_or_null(parsed->kernel_names[i], &ok);
            recipe->kernel_name_count = i + 1;
        }
    }
    if (!ok) {
        kiln_program_recipe_free(recipe);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    program->recipe = recipe;
    return KILN_OK;
}

/* The recipe's names with `name` added (normalised, sorted, once). */
static kiln_status names_with(const kiln_program_recipe *recipe,
                              const char *name, char ***names, size_t *count)
{
    const char **all =
        calloc(recipe->kernel_name_count + 1, sizeof *all);
    if (all == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    for (size_t i = 0; i < recipe->kernel_name_count; ++i)
        all[i] = recipe->kernel_names[i];
    all[recipe->kernel_name_count] = name;
    kiln_status status = kiln_kernel_names_make(
        all, recipe->kernel_name_count + 1, names, count);
    free(all);
    return status;
}

/* Makes `built` the program's build, keeping the one it replaces. */
static kiln_status program_replace_build(kiln_program *program,
                                         kiln_built_program *built)
{
    kiln_built_program **grown =
        realloc(program->replaced,
                (program->replaced_count + 1) * sizeof *grown);
    if (grown == NULL) {
        kiln_built_program_release(program->context, built);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    program->replaced = grown;
    program->replaced[program->replaced_count++] = kiln_program_built(program);
    atomic_store(&program->built, built);
    return KILN_OK;
}

/* The build with `names`; a failure that is the program's (no such
 * template, arguments that do not fit) is KILN_ERR_KERNEL_NOT_FOUND
 * naming `name`. */
static kiln_status build_with_names(kiln_program *program, const char *name,
                                    char **names, size_t count,
                                    kiln_built_program **built)
{
    const kiln_program_recipe *recipe = program->recipe;
    kiln_build_options options = {
        .struct_size = sizeof options,
        .language = program->language,
        .options = recipe->options,
        .include_dirs = (const char *const *)recipe->include_dirs,
        .include_dir_count = recipe->include_dir_count,
        .source_name = recipe->source_name,
        .flags = recipe->flags,
        .kernel_names = (const char *const *)names,
        .kernel_name_count = count,
    };
    kiln_program_options parsed;
    kiln_status status = kiln_program_options_make(&options, &parsed);
    if (status != KILN_OK)
        return status;
    kiln_program_origin origin;
    char *log = NULL;
    status = kiln_program_build_text(
        program->context, recipe->text, recipe->length,
        recipe->source_name ? recipe->source_name : "<kiln program>",
        recipe->log_name ? recipe->log_name : name, program->language,
        &parsed, built, &origin, &log);
    free(log);
    kiln_program_options_free(&parsed);
    if (status == KILN_ERR_BUILD || status == KILN_ERR_TRANSLATION) {
        char *why = kiln_strdup(kiln_last_error());
        status = kiln_error(KILN_ERR_KERNEL_NOT_FOUND,
                            "no kernel '%s' in this program: building it "
                            "as a kernel template's instance failed (%s): "
                            "%s",
                            name, kiln_status_name(status),
                            why ? why : "out of host memory");
        free(why);
    }
    return status;
}

kiln_status kiln_program_add_kernel_name(kiln_program *program,
                                         const char *name)
{
    pthread_mutex_lock(&program->rebuild_lock);
    kiln_program_recipe *recipe = program->recipe;
    /* Another thread may have added it while this one waited. */
    if (kiln_description_find(&kiln_program_built(program)->description,
                              name) != NULL) {
        pthread_mutex_unlock(&program->rebuild_lock);
        return KILN_OK;
    }
    char **names = NULL;
    size_t count = 0;
    kiln_status status = names_with(recipe, name, &names, &count);
    kiln_built_program *built = NULL;
    if (status == KILN_OK)
        status = build_with_names(program, name, names, count, &built);
    if (status == KILN_OK &&
        kiln_description_find(&built->description, name) == NULL) {
        kiln_built_program_release(program->context, built);
        status = kiln_error(KILN_ERR_KERNEL_NOT_FOUND,
                            "no kernel '%s' in this program: built with it "
                            "as a name expression, the program still does "
                            "not list it",
                            name);
    }
    if (status == KILN_OK)
        status = program_replace_build(program, built);
    if (status == KILN_OK) {
        kiln_kernel_names_free(recipe->kernel_names,
                               recipe->kernel_name_count);
        recipe->kernel_names = names;
        recipe->kernel_name_count = count;
        names = NULL;
        kiln_trace("built the program again for kernel '%s' (%zu kernel "
                   "name%s)",
                   name, count, count == 1 ? "" : "s");
    }
    kiln_kernel_names_free(names, count);
    pthread_mutex_unlock(&program->rebuild_lock);
    return status;
}
