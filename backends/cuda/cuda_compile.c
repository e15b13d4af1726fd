/*
 * NVRTC: choosing the target, mapping build options, compiling.
 *
 * This file calls NVRTC and the OpenCL C translator but never the CUDA
 * driver, so that compilation can be exercised on machines without a GPU.
 */
#include "cuda_compile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nvrtc.h>

double cuda_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* ---- target --------------------------------------------------------------- */

void cuda_nvrtc_version(int *major, int *minor)
{
    if (nvrtcVersion(major, minor) != NVRTC_SUCCESS) {
        *major = 0;
        *minor = 0;
    }
}

void cuda_target_choose(int major, int minor, cuda_target *target)
{
    int device_sm = major * 10 + minor;
    target->device_sm = device_sm;
    target->compile_sm = 0;
    target->is_ptx = 0;

    int count = 0;
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) {
        /* NVRTC cannot say: try the exact architecture and let NVRTC's own
         * error name the problem if it does not know it. */
        target->compile_sm = device_sm;
        return;
    }
    int *archs = malloc((size_t)count * sizeof *archs);
    if (archs == NULL || nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS) {
        free(archs);
        target->compile_sm = device_sm;
        return;
    }
    int best = 0;
    for (int i = 0; i < count; ++i) {
        if (archs[i] == device_sm) {
            best = device_sm;
            break;
        }
        if (archs[i] < device_sm && archs[i] > best)
            best = archs[i];
    }
    free(archs);
    target->compile_sm = best;
    /* A device newer than this NVRTC: PTX of an older virtual architecture
     * runs on it once the driver has JIT-compiled it (a CUBIN would not). */
    target->is_ptx = best != 0 && best != device_sm;
}

void cuda_target_name(const cuda_target *target, char *buffer, size_t size)
{
    if (target->compile_sm == 0)
        snprintf(buffer, size, "none");
    else
        snprintf(buffer, size, "%s_%d", target->is_ptx ? "compute" : "sm",
                 target->compile_sm);
}

/* ---- options ---------------------------------------------------------------- */

/*
 * OpenCL build options have no meaning to NVRTC (which rejects what it does
 * not know, -cl-std included), so each is mapped to what gives the same
 * semantics, or dropped when CUDA already behaves that way or cannot be
 * told.  Options not in this table and not -cl-* reach NVRTC as they are,
 * so NVRTC options (--maxrregcount=32, -lineinfo, --extra-device-
 * vectorization, ...) work, and a misspelt option fails the build with
 * NVRTC's "unrecognized option" message.
 */
typedef struct cuda_option_rule {
    const char *option;
    int is_prefix;        /* matches every option starting with `option` */
    const char *nvrtc[2]; /* replacements; none: dropped                 */
} cuda_option_rule;

static const cuda_option_rule cuda_option_rules[] = {
    /* Fast math: approximate division, square root and transcendentals,
     * denormals flushed, contraction: NVRTC's --use_fast_math. */
    {"-cl-fast-relaxed-math", 0, {"--use_fast_math", NULL}},
    {"-cl-unsafe-math-optimizations", 0, {"--use_fast_math", NULL}},
    /* a*b+c may be contracted: NVRTC's default, made explicit. */
    {"-cl-mad-enable", 0, {"--fmad=true", NULL}},
    /* NVRTC cannot turn optimisation off without -G (debug code, several
     * times slower).  What disabling optimisation changes in a result is
     * contraction into FMA, so that is what is turned off. */
    {"-cl-opt-disable", 0, {"--fmad=false", NULL}},
    {"-cl-denorms-are-zero", 0, {"--ftz=true", NULL}},
    /* NVRTC's defaults, made explicit. */
    {"-cl-fp32-correctly-rounded-divide-sqrt", 0,
     {"--prec-div=true", "--prec-sqrt=true"}},
    /* Permissions to the optimiser that NVRTC has no switch for: without
     * them the results are the exact IEEE ones, which OpenCL allows. */
    {"-cl-finite-math-only", 0, {NULL, NULL}},
    {"-cl-no-signed-zeros", 0, {NULL, NULL}},
    {"-cl-strict-aliasing", 0, {NULL, NULL}},
    /* Double constants stay double: results can only be more precise than
     * with the option (NVRTC has no equivalent). */
    {"-cl-single-precision-constant", 0, {NULL, NULL}},
    /* The dialect is the translator's business. */
    {"-cl-std=", 1, {NULL, NULL}},
    /* Parameter names and types always come from the translation. */
    {"-cl-kernel-arg-info", 0, {NULL, NULL}},
    /* CUDA grids are always whole blocks. */
    {"-cl-uniform-work-group-size", 0, {NULL, NULL}},
    {"-cl-no-subgroup-ifp", 0, {NULL, NULL}},
    /* NVRTC optimises fully by default and has no -O levels. */
    {"-O", 0, {NULL, NULL}},
    {"-O0", 0, {NULL, NULL}},
    {"-O1", 0, {NULL, NULL}},
    {"-O2", 0, {NULL, NULL}},
    {"-O3", 0, {NULL, NULL}},
    {"-Os", 0, {NULL, NULL}},
    /* Source-level debug info without -G's unoptimised code. */
    {"-g", 0, {"-lineinfo", NULL}},
    {"-w", 0, {"-w", NULL}},
    /* Any other OpenCL option: nothing NVRTC could do with it. */
    {"-cl-", 1, {NULL, NULL}},
};

/* Options every translated OpenCL C program needs: helper functions
 * without qualifiers are device functions, and the prelude is C++17. */
static const char *const cuda_clc_nvrtc_options[] = {
    "-default-device",
    "-std=c++17",
    /* C allows narrowing in brace initialisers (`float a[2] = {i, j}`);
     * C++ warns about every one. */
    "--diag-suppress=2361",
};

typedef struct cuda_option_list {
    char **items;
    size_t count;
    size_t capacity;
} cuda_option_list;

static int cuda_option_list_add(cuda_option_list *list, const char *prefix,
                                const char *text, size_t length)
{
    if (list->count + 2 > list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 16;
        char **grown = realloc(list->items, capacity * sizeof *grown);
        if (grown == NULL)
            return -1;
        list->items = grown;
        list->capacity = capacity;
    }
    size_t prefix_length = strlen(prefix);
    char *item = malloc(prefix_length + length + 1);
    if (item == NULL)
        return -1;
    memcpy(item, prefix, prefix_length);
    memcpy(item + prefix_length, text, length);
    item[prefix_length + length] = '\0';
    list->items[list->count++] = item;
    list->items[list->count] = NULL;
    return 0;
}

/* -DNAME=VALUE or -UNAME, as one NVRTC argument. */
static int cuda_option_list_add_define(cuda_option_list *list,
                                       const kiln_backend_define *define)
{
    size_t size = strlen(define->name) + 1 +
                  (define->value ? strlen(define->value) + 1 : 0);
    char *text = malloc(size);
    if (text == NULL)
        return -1;
    if (define->value != NULL)
        snprintf(text, size, "%s=%s", define->name, define->value);
    else
        snprintf(text, size, "%s", define->name);
    int result = cuda_option_list_add(list, define->value ? "-D" : "-U", text,
                                      size - 1);
    free(text);
    return result;
}

void cuda_options_free(char **nvrtc_options, size_t count)
{
    if (nvrtc_options == NULL)
        return;
    for (size_t i = 0; i < count; ++i)
        free(nvrtc_options[i]);
    free(nvrtc_options);
}

/* Adds `item` to the end of a list cuda_options_map made. */
static int cuda_options_append(char ***options, size_t *count,
                               const char *item)
{
    char **grown = realloc(*options, (*count + 2) * sizeof *grown);
    if (grown == NULL)
        return -1;
    *options = grown;
    grown[*count] = malloc(strlen(item) + 1);
    if (grown[*count] == NULL)
        return -1;
    strcpy(grown[*count], item);
    grown[++*count] = NULL;
    return 0;
}

static const cuda_option_rule *cuda_option_rule_find(const char *word)
{
    size_t count = sizeof cuda_option_rules / sizeof cuda_option_rules[0];
    for (size_t i = 0; i < count; ++i) {
        const cuda_option_rule *rule = &cuda_option_rules[i];
        if (rule->is_prefix ? strncmp(word, rule->option,
                                      strlen(rule->option)) == 0
                            : strcmp(word, rule->option) == 0)
            return rule;
    }
    return NULL;
}

kiln_status cuda_options_map(const kiln_host_api *host,
                             kiln_language language,
                             const clc_options *options,
                             const cuda_target *target, char ***nvrtc_options,
                             size_t *count, int *werror)
{
    cuda_option_list list = {0};
    int failed = 0;
    *werror = 0;

    char architecture[32];
    snprintf(architecture, sizeof architecture, "--gpu-architecture=");
    cuda_target_name(target, architecture + strlen(architecture),
                     sizeof architecture - strlen(architecture));
    failed |= cuda_option_list_add(&list, "", architecture,
                                   strlen(architecture));
    if (language == KILN_LANGUAGE_OPENCL_C) {
        size_t n = sizeof cuda_clc_nvrtc_options /
                   sizeof cuda_clc_nvrtc_options[0];
        for (size_t i = 0; i < n; ++i)
            failed |= cuda_option_list_add(&list, "", cuda_clc_nvrtc_options[i],
                                           strlen(cuda_clc_nvrtc_options[i]));
        /* NVRTC 12.4 and later can leave out the CUDA runtime's
         * declarations (textures, cudaMalloc, device-side launches), which
         * a translation never uses: about 7 ms less per build, the same
         * PTX. */
        int nvrtc_major = 0, nvrtc_minor = 0;
        cuda_nvrtc_version(&nvrtc_major, &nvrtc_minor);
        if (nvrtc_major > 12 || (nvrtc_major == 12 && nvrtc_minor >= 4))
            failed |= cuda_option_list_add(&list, "", "-minimal",
                                           strlen("-minimal"));
    }

    /* The translator has already applied -D and -U to OpenCL C (its
     * preprocessor runs before the translation), and the core has already
     * inlined the includes: NVRTC must not see user macros again, where
     * they could clash with the prelude's identifiers.  NVRTC takes each
     * option as one argument: nothing is quoted. */
    if (language == KILN_LANGUAGE_CUDA_C) {
        for (size_t i = 0; i < options->define_count; ++i)
            failed |= cuda_option_list_add_define(&list, &options->defines[i]);
        for (size_t i = 0; i < options->include_dir_count; ++i)
            failed |= cuda_option_list_add(&list, "-I",
                                           options->include_dirs[i],
                                           strlen(options->include_dirs[i]));
    }
    for (size_t i = 0; !failed && i < options->flag_count; ++i) {
        const char *word = options->flags[i];
        if (strcmp(word, "-Werror") == 0) {
            /* NVRTC has no -Werror: warnings are checked in its log. */
            *werror = 1;
            continue;
        }
        const cuda_option_rule *rule = cuda_option_rule_find(word);
        if (rule == NULL) {
            failed |= cuda_option_list_add(&list, "", word, strlen(word));
            continue;
        }
        if (rule->nvrtc[0] == NULL && host != NULL && host->trace != NULL)
            host->trace("cuda: build option %s has no NVRTC equivalent and is "
                        "dropped",
                        word);
        for (int r = 0; r < 2 && rule->nvrtc[r] != NULL; ++r)
            failed |= cuda_option_list_add(&list, "", rule->nvrtc[r],
                                           strlen(rule->nvrtc[r]));
    }
    if (failed) {
        cuda_options_free(list.items, list.count);
        return host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                           "out of host memory mapping build options");
    }
    *nvrtc_options = list.items;
    *count = list.count;
    return KILN_OK;
}

/* ---- compiling -------------------------------------------------------------------- */

/* Removes every `prefix` from `text` in place. */
static void cuda_text_strip(char *text, const char *prefix)
{
    size_t length = strlen(prefix);
    char *found;
    while ((found = strstr(text, prefix)) != NULL)
        memmove(found, found + length, strlen(found + length) + 1);
}

/* NVRTC's log without trailing white space, in the user's names: the
 * translator renames an OpenCL C identifier that is a CUDA keyword
 * (threadIdx -> kl_kw_threadIdx) and a __local pointer parameter p to the
 * offset kl_local_offset_p, and the log says what the user wrote.  NULL
 * when empty. */
static char *cuda_nvrtc_log(nvrtcProgram program)
{
    size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
        return NULL;
    char *log = malloc(size);
    if (log == NULL)
        return NULL;
    if (nvrtcGetProgramLog(program, log) != NVRTC_SUCCESS) {
        free(log);
        return NULL;
    }
    log[size - 1] = '\0';
    cuda_text_strip(log, "kl_kw_");
    cuda_text_strip(log, "kl_local_offset_");
    size_t length = strlen(log);
    while (length > 0 && (log[length - 1] == '\n' || log[length - 1] == ' ' ||
                          log[length - 1] == '\r' || log[length - 1] == '\t'))
        log[--length] = '\0';
    if (length == 0) {
        free(log);
        return NULL;
    }
    return log;
}

static char *cuda_text_copy(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

/* NVRTC's warnings read "name(12): warning #177-D: ...". */
static int cuda_log_has_warning(const char *log)
{
    return log != NULL && strstr(log, ": warning") != NULL;
}

static kiln_status cuda_nvrtc_image(const kiln_host_api *host,
                                    nvrtcProgram program,
                                    const cuda_target *target,
                                    cuda_binary *binary)
{
    size_t size = 0;
    nvrtcResult result = target->is_ptx ? nvrtcGetPTXSize(program, &size)
                                        : nvrtcGetCUBINSize(program, &size);
    if (result != NVRTC_SUCCESS || size == 0)
        return host->error(KILN_ERR_BACKEND, "%s: %s",
                           target->is_ptx ? "nvrtcGetPTXSize"
                                          : "nvrtcGetCUBINSize",
                           result != NVRTC_SUCCESS
                               ? nvrtcGetErrorString(result)
                               : "NVRTC produced an empty image");
    binary->image = malloc(size);
    if (binary->image == NULL)
        return host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                           "out of host memory (a %zu-byte image)", size);
    result = target->is_ptx ? nvrtcGetPTX(program, (char *)binary->image)
                            : nvrtcGetCUBIN(program, (char *)binary->image);
    if (result != NVRTC_SUCCESS)
        return host->error(KILN_ERR_BACKEND, "%s: %s",
                           target->is_ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN",
                           nvrtcGetErrorString(result));
    binary->image_size = size;
    if (target->is_ptx)
        binary->image[size - 1] = '\0';
    return KILN_OK;
}

kiln_status cuda_binary_compile(const kiln_host_api *host,
                                const cuda_target *target,
                                const kiln_backend_source *source,
                                cuda_binary *binary, char **log,
                                cuda_build_times *times)
{
    memset(binary, 0, sizeof *binary);
    *log = NULL;
    cuda_build_times spent = {0.0, 0.0};
    int nvrtc_major = 0, nvrtc_minor = 0;
    cuda_nvrtc_version(&nvrtc_major, &nvrtc_minor);
    if (target->compile_sm == 0)
        return host->error(KILN_ERR_UNSUPPORTED,
                           "NVRTC %d.%d cannot compile for sm_%d: every "
                           "architecture it knows is newer than this device",
                           nvrtc_major, nvrtc_minor, target->device_sm);

    char **options = NULL;
    size_t option_count = 0;
    int werror = 0;
    clc_options lists = clc_options_of(source);
    kiln_status status =
        cuda_options_map(host, source->language, &lists, target, &options,
                         &option_count, &werror);
    if (status != KILN_OK)
        return status;
    if (option_count >= INT_MAX) {
        cuda_options_free(options, option_count);
        return host->error(KILN_ERR_INVALID_ARGUMENT, "too many build options");
    }

    clc_translation translation;
    memset(&translation, 0, sizeof translation);
    char *text = NULL;
    char *prelude = NULL;
    const char *headers[1] = {NULL};
    const char *header_names[1] = {NULL};
    int header_count = 0;
    if (source->language == KILN_LANGUAGE_OPENCL_C) {
        double start = cuda_seconds();
        int translated = clc_translate(source->text, source->length,
                                       source->name, &lists, &translation);
        spent.translation = cuda_seconds() - start;
        if (translated == -2) {
            status = host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                 "out of host memory translating '%s'",
                                 source->name);
        } else if (translated != 0 || translation.source == NULL) {
            const char *why = translation.error ? translation.error
                                                : "the translator gave no "
                                                  "reason";
            *log = cuda_text_copy(why, strlen(why));
            /* Wrong source is a build error on every backend; only valid
             * OpenCL C that CUDA cannot run is a translation error. */
            if (translation.unsupported)
                status = host->error(KILN_ERR_TRANSLATION,
                                     "cannot translate '%s' from OpenCL C for "
                                     "the CUDA backend: %s",
                                     source->name, why);
            else
                status = host->error(KILN_ERR_BUILD,
                                     "cannot compile '%s' (OpenCL C, CUDA "
                                     "backend):\n%s",
                                     source->name, why);
        } else {
            /* Last, so that it wins over -cl-mad-enable and fast math. */
            if (translation.fp_contract_off &&
                cuda_options_append(&options, &option_count, "--fmad=false") != 0)
                status = host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                     "out of host memory");
            text = translation.source;
            /* Only the parts of the prelude the program uses: NVRTC's
             * time grows with every line it reads. */
            prelude = clc_prelude_select(clc_prelude_source(),
                                         translation.source, NULL);
            if (prelude == NULL)
                status = host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                     "out of host memory");
            headers[0] = prelude;
            header_names[0] = CLC_PRELUDE_HEADER_NAME;
            header_count = 1;
        }
    } else {
        /* NVRTC wants a NUL-terminated text; the core gives a length. */
        text = cuda_text_copy(source->text, source->length);
        if (text == NULL)
            status = host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                 "out of host memory");
    }

    nvrtcProgram program = NULL;
    char *nvrtc_log = NULL;
    char target_name[32];
    cuda_target_name(target, target_name, sizeof target_name);
    double compile_start = cuda_seconds();
    /* With the parts of the prelude the program uses; when that does not
     * compile, again with the whole prelude, so that a program the
     * selection misjudges costs a second compile, never a failed build
     * (and a wrong program is reported as the whole prelude reports it). */
    nvrtcResult result = NVRTC_SUCCESS;
    for (int attempt = 0; status == KILN_OK && attempt < 2; ++attempt) {
        if (attempt == 1) {
            if (header_count == 0 || result != NVRTC_ERROR_COMPILATION ||
                strcmp(headers[0], clc_prelude_source()) == 0)
                break;
            if (host->trace != NULL)
                host->trace("cuda: %s does not compile with the parts of the "
                            "prelude it uses; again with all of it",
                            source->name);
            nvrtcDestroyProgram(&program);
            free(nvrtc_log);
            nvrtc_log = NULL;
            headers[0] = clc_prelude_source();
        }
        result = nvrtcCreateProgram(&program, text, source->name,
                                    header_count, headers, header_names);
        if (result != NVRTC_SUCCESS) {
            program = NULL;
            status = host->error(result == NVRTC_ERROR_OUT_OF_MEMORY
                                     ? KILN_ERR_OUT_OF_HOST_MEMORY
                                     : KILN_ERR_BACKEND,
                                 "nvrtcCreateProgram: %s",
                                 nvrtcGetErrorString(result));
            break;
        }
        result = nvrtcCompileProgram(program, (int)option_count,
                                     (const char *const *)options);
        nvrtc_log = cuda_nvrtc_log(program);
    }
    if (status == KILN_OK) {
        if (result == NVRTC_ERROR_COMPILATION ||
            result == NVRTC_ERROR_INVALID_OPTION) {
            status = host->error(
                KILN_ERR_BUILD, "NVRTC %d.%d could not compile '%s' for %s:\n%s",
                nvrtc_major, nvrtc_minor, source->name, target_name,
                nvrtc_log ? nvrtc_log : nvrtcGetErrorString(result));
        } else if (result != NVRTC_SUCCESS) {
            status = host->error(result == NVRTC_ERROR_OUT_OF_MEMORY
                                     ? KILN_ERR_OUT_OF_HOST_MEMORY
                                     : KILN_ERR_BACKEND,
                                 "nvrtcCompileProgram('%s'): %s%s%s",
                                 source->name, nvrtcGetErrorString(result),
                                 nvrtc_log ? "\n" : "",
                                 nvrtc_log ? nvrtc_log : "");
        } else if (werror && cuda_log_has_warning(nvrtc_log)) {
            status = host->error(KILN_ERR_BUILD,
                                 "NVRTC %d.%d compiled '%s' for %s with "
                                 "warnings, which -Werror makes errors:\n%s",
                                 nvrtc_major, nvrtc_minor, source->name,
                                 target_name, nvrtc_log);
        }
    }
    if (status == KILN_OK)
        status = cuda_nvrtc_image(host, program, target, binary);
    spent.compilation = cuda_seconds() - compile_start;
    if (times != NULL)
        *times = spent;
    if (status == KILN_OK) {
        binary->language = source->language;
        binary->is_ptx = target->is_ptx;
        binary->sm = target->compile_sm;
        if (source->language == KILN_LANGUAGE_OPENCL_C) {
            binary->kernels = cuda_signatures_copy(translation.kernels,
                                                   translation.kernel_count);
            if (binary->kernels == NULL)
                status = host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                     "out of host memory");
            else
                binary->kernel_count = translation.kernel_count;
        }
    }

    if (nvrtc_log != NULL) {
        if (*log == NULL)
            *log = nvrtc_log;
        else
            free(nvrtc_log);
    }
    if (program != NULL)
        nvrtcDestroyProgram(&program);
    free(prelude);
    if (source->language == KILN_LANGUAGE_OPENCL_C)
        clc_translation_free(&translation);
    else
        free(text);
    cuda_options_free(options, option_count);
    if (status != KILN_OK)
        cuda_binary_free(binary);
    return status;
}

/* ---- the binary in memory ---------------------------------------------------- */

void cuda_signatures_free(clc_kernel_signature *kernels, size_t count)
{
    if (kernels == NULL)
        return;
    for (size_t i = 0; i < count; ++i)
        free(kernels[i].params);
    free(kernels);
}

clc_kernel_signature *cuda_signatures_copy(const clc_kernel_signature *kernels,
                                           size_t count)
{
    clc_kernel_signature *copy = calloc(count ? count : 1, sizeof *copy);
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i < count; ++i) {
        copy[i] = kernels[i];
        copy[i].params = NULL;
        size_t params = kernels[i].param_count;
        copy[i].params = calloc(params ? params : 1, sizeof *copy[i].params);
        if (copy[i].params == NULL) {
            cuda_signatures_free(copy, i);
            return NULL;
        }
        if (params > 0)
            memcpy(copy[i].params, kernels[i].params,
                   params * sizeof *copy[i].params);
        /* Fixed-size strings from outside: keep them terminated. */
        copy[i].name[sizeof copy[i].name - 1] = '\0';
        for (size_t j = 0; j < params; ++j) {
            clc_param *param = &copy[i].params[j];
            param->name[sizeof param->name - 1] = '\0';
            param->type_name[sizeof param->type_name - 1] = '\0';
        }
    }
    return copy;
}

void cuda_binary_free(cuda_binary *binary)
{
    free(binary->image);
    cuda_signatures_free(binary->kernels, binary->kernel_count);
    memset(binary, 0, sizeof *binary);
}
