/*
 * NVRTC: choosing the target, the build options as NVRTC's arguments,
 * compiling.
 *
 * This file calls NVRTC but never the CUDA driver, so that compilation can
 * be exercised on machines without a GPU.
 */
#include "cuda_compile.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

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

/* Options reach NVRTC as the core gives them (already NVRTC's: the core
 * maps the OpenCL-style ones), so NVRTC options (--maxrregcount=32,
 * -lineinfo, ...) work and a misspelt option fails the build with NVRTC's
 * "unrecognized option" message.  Only -Werror is this backend's own. */
typedef struct cuda_option_list {
    char **items;
    size_t count;
    size_t capacity;
    int failed;
} cuda_option_list;

/* Appends prefix + text + (value: "=" + value) as one argument. */
static void cuda_option_add(cuda_option_list *list, const char *prefix,
                            const char *text, const char *value)
{
    if (list->failed)
        return;
    if (list->count + 2 > list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 16;
        char **grown = realloc(list->items, capacity * sizeof *grown);
        if (grown == NULL) {
            list->failed = 1;
            return;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    size_t size = strlen(prefix) + strlen(text) +
                  (value ? strlen(value) + 1 : 0) + 1;
    char *item = malloc(size);
    if (item == NULL) {
        list->failed = 1;
        return;
    }
    snprintf(item, size, "%s%s%s%s", prefix, text, value ? "=" : "",
             value ? value : "");
    list->items[list->count++] = item;
    list->items[list->count] = NULL;
}

void cuda_options_free(char **nvrtc_options, size_t count)
{
    if (nvrtc_options == NULL)
        return;
    for (size_t i = 0; i < count; ++i)
        free(nvrtc_options[i]);
    free(nvrtc_options);
}

/* The toolkit's include directory, where NVRTC finds CUDA's own device
 * headers (cuda_fp16.h, cuda_bf16.h, cooperative_groups.h,
 * cuda_runtime.h: NVRTC has no search path of its own): $CUDA_PATH's or
 * $CUDA_HOME's, else the toolkit configure built against; NULL when none
 * holds cuda_fp16.h. */
static const char *cuda_toolkit_include(char *path, size_t size)
{
    const char *roots[] = {getenv("CUDA_PATH"), getenv("CUDA_HOME"),
#ifdef KILN_CUDA_DIR
                           KILN_CUDA_DIR,
#endif
                           "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; ++i) {
        if (roots[i] == NULL || roots[i][0] == '\0')
            continue;
        char probe[PATH_MAX];
        int n = snprintf(probe, sizeof probe, "%s/include/cuda_fp16.h", roots[i]);
        if (n < 0 || (size_t)n >= sizeof probe || access(probe, R_OK) != 0)
            continue;
        n = snprintf(path, size, "%s/include", roots[i]);
        if (n > 0 && (size_t)n < size)
            return path;
    }
    return NULL;
}

kiln_status cuda_options_map(const kiln_host_api *host,
                             const kiln_backend_source *source,
                             const cuda_target *target, char ***nvrtc_options,
                             size_t *count, int *werror)
{
    cuda_option_list list = {0};
    *werror = 0;
    char architecture[32];
    cuda_target_name(target, architecture, sizeof architecture);
    cuda_option_add(&list, "--gpu-architecture=", architecture, NULL);
    /* NVRTC takes each option as one argument: nothing is quoted. */
    for (size_t i = 0; i < source->define_count; ++i) {
        const kiln_backend_define *define = &source->defines[i];
        cuda_option_add(&list, define->value ? "-D" : "-U", define->name,
                        define->value);
    }
    for (size_t i = 0; i < source->include_dir_count; ++i)
        cuda_option_add(&list, "-I", source->include_dirs[i], NULL);
    for (size_t i = 0; i < source->flag_count; ++i) {
        if (strcmp(source->flags[i], "-Werror") == 0) {
            /* NVRTC has no -Werror: warnings are checked in its log. */
            *werror = 1;
            continue;
        }
        cuda_option_add(&list, "", source->flags[i], NULL);
    }
    /* last: searched after the user's directories */
    char toolkit[PATH_MAX];
    if (cuda_toolkit_include(toolkit, sizeof toolkit) != NULL) {
        cuda_option_add(&list, "-I", toolkit, NULL);
        /* CUDA 13 keeps libcu++ (<cuda/std/...>, which cooperative_groups.h
         * and cuda_fp16.h include) in include/cccl, where nvcc looks on its
         * own and NVRTC does not. */
        char cccl[PATH_MAX + 8];
        char probe[PATH_MAX + 32];
        int n = snprintf(cccl, sizeof cccl, "%s/cccl", toolkit);
        int m = snprintf(probe, sizeof probe, "%s/cuda/std/type_traits", cccl);
        if (n > 0 && (size_t)n < sizeof cccl && m > 0 &&
            (size_t)m < sizeof probe && access(probe, R_OK) == 0)
            cuda_option_add(&list, "-I", cccl, NULL);
    }
    if (list.failed) {
        cuda_options_free(list.items, list.count);
        return host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                           "out of host memory mapping build options");
    }
    *nvrtc_options = list.items;
    *count = list.count;
    return KILN_OK;
}

/* ---- compiling -------------------------------------------------------------------- */

/* NVRTC's log without trailing white space; NULL when empty. */
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

/* NUL-terminated copies of the source's headers, for NVRTC. */
static kiln_status cuda_headers_copy(const kiln_host_api *host,
                                     const kiln_backend_source *source,
                                     char **texts, const char **names)
{
    for (size_t i = 0; i < source->header_count; ++i) {
        texts[i] = cuda_text_copy(source->headers[i].text,
                                  source->headers[i].length);
        names[i] = source->headers[i].name;
        if (texts[i] == NULL)
            return host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                               "out of host memory");
    }
    return KILN_OK;
}

/* NVRTC's verdict on a compile, as the status and message. */
static kiln_status cuda_nvrtc_verdict(const kiln_host_api *host,
                                      nvrtcResult result,
                                      const kiln_backend_source *source,
                                      const cuda_target *target,
                                      const char *nvrtc_log, int werror)
{
    int nvrtc_major = 0, nvrtc_minor = 0;
    cuda_nvrtc_version(&nvrtc_major, &nvrtc_minor);
    char target_name[32];
    cuda_target_name(target, target_name, sizeof target_name);
    if (result == NVRTC_ERROR_COMPILATION ||
        result == NVRTC_ERROR_INVALID_OPTION)
        return host->error(
            KILN_ERR_BUILD, "NVRTC %d.%d could not compile '%s' for %s:\n%s",
            nvrtc_major, nvrtc_minor, source->name, target_name,
            nvrtc_log ? nvrtc_log : nvrtcGetErrorString(result));
    if (result != NVRTC_SUCCESS)
        return host->error(result == NVRTC_ERROR_OUT_OF_MEMORY
                               ? KILN_ERR_OUT_OF_HOST_MEMORY
                               : KILN_ERR_BACKEND,
                           "nvrtcCompileProgram('%s'): %s%s%s", source->name,
                           nvrtcGetErrorString(result), nvrtc_log ? "\n" : "",
                           nvrtc_log ? nvrtc_log : "");
    if (werror && cuda_log_has_warning(nvrtc_log))
        return host->error(KILN_ERR_BUILD,
                           "NVRTC %d.%d compiled '%s' for %s with warnings, "
                           "which -Werror makes errors:\n%s",
                           nvrtc_major, nvrtc_minor, source->name,
                           target_name, nvrtc_log);
    return KILN_OK;
}

/* The source's kernel names (ABI minor 1; none from an older core). */
static size_t cuda_name_count(const kiln_backend_source *source)
{
    size_t end = offsetof(kiln_backend_source, kernel_name_count) +
                 sizeof source->kernel_name_count;
    if (source->struct_size < end || source->kernel_names == NULL)
        return 0;
    return source->kernel_name_count;
}

/* Each kernel name as an NVRTC name expression: the template instance is
 * then compiled, and its symbol can be asked for. */
static kiln_status cuda_names_add(const kiln_host_api *host,
                                  nvrtcProgram program,
                                  const kiln_backend_source *source)
{
    for (size_t i = 0; i < cuda_name_count(source); ++i) {
        nvrtcResult result =
            nvrtcAddNameExpression(program, source->kernel_names[i]);
        if (result != NVRTC_SUCCESS)
            return host->error(KILN_ERR_BACKEND,
                               "nvrtcAddNameExpression('%s'): %s",
                               source->kernel_names[i],
                               nvrtcGetErrorString(result));
    }
    return KILN_OK;
}

/* The symbol NVRTC gave each name expression, kept in the binary. */
static kiln_status cuda_names_lowered(const kiln_host_api *host,
                                      nvrtcProgram program,
                                      const kiln_backend_source *source,
                                      cuda_binary *binary)
{
    size_t count = cuda_name_count(source);
    if (count == 0)
        return KILN_OK;
    binary->names = calloc(count, sizeof *binary->names);
    binary->lowered = calloc(count, sizeof *binary->lowered);
    if (binary->names == NULL || binary->lowered == NULL)
        return host->error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    binary->name_count = count;
    for (size_t i = 0; i < count; ++i) {
        const char *lowered = NULL;
        nvrtcResult result = nvrtcGetLoweredName(
            program, source->kernel_names[i], &lowered);
        if (result != NVRTC_SUCCESS || lowered == NULL)
            return host->error(KILN_ERR_BUILD,
                               "NVRTC has no kernel for the name expression "
                               "'%s' (nvrtcGetLoweredName: %s)",
                               source->kernel_names[i],
                               nvrtcGetErrorString(result));
        binary->names[i] = cuda_text_copy(source->kernel_names[i],
                                          strlen(source->kernel_names[i]));
        binary->lowered[i] = cuda_text_copy(lowered, strlen(lowered));
        if (binary->names[i] == NULL || binary->lowered[i] == NULL)
            return host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                               "out of host memory");
    }
    return KILN_OK;
}

kiln_status cuda_binary_compile(const kiln_host_api *host,
                                const cuda_target *target,
                                const kiln_backend_source *source,
                                cuda_binary *binary, char **log,
                                double *seconds)
{
    memset(binary, 0, sizeof *binary);
    *log = NULL;
    if (target->compile_sm == 0) {
        int nvrtc_major = 0, nvrtc_minor = 0;
        cuda_nvrtc_version(&nvrtc_major, &nvrtc_minor);
        return host->error(KILN_ERR_UNSUPPORTED,
                           "NVRTC %d.%d cannot compile for sm_%d: every "
                           "architecture it knows is newer than this device",
                           nvrtc_major, nvrtc_minor, target->device_sm);
    }
    char **options = NULL;
    size_t option_count = 0;
    int werror = 0;
    kiln_status status = cuda_options_map(host, source, target, &options,
                                          &option_count, &werror);
    if (status != KILN_OK)
        return status;
    if (option_count >= INT_MAX || source->header_count >= INT_MAX - 2) {
        cuda_options_free(options, option_count);
        return host->error(KILN_ERR_INVALID_ARGUMENT,
                           "too many build options or headers");
    }
    /* NVRTC wants NUL-terminated texts; the core gives lengths. */
    size_t headers = source->header_count;
    char *text = cuda_text_copy(source->text, source->length);
    /* Device code includes <stdio.h> for printf and <string.h> for
     * memcpy and memset, which NVRTC declares itself but has no such
     * headers for (PyCUDA's test_large_smem, llm.c's Packed128, nvcc's
     * habit): empty ones stand in, unless the program brings its own. */
    static const char *const stand_ins[] = {"stdio.h", "string.h"};
    enum { STAND_INS = sizeof stand_ins / sizeof stand_ins[0] };
    char **header_texts = calloc(headers + STAND_INS, sizeof *header_texts);
    const char **header_names =
        calloc(headers + STAND_INS, sizeof *header_names);
    if (text == NULL || header_texts == NULL || header_names == NULL)
        status = host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                             "out of host memory");
    if (status == KILN_OK)
        status = cuda_headers_copy(host, source, header_texts, header_names);
    size_t given = headers;
    for (size_t k = 0; k < STAND_INS && status == KILN_OK; ++k) {
        int brought = 0;
        for (size_t i = 0; i < given; ++i)
            brought |= strcmp(header_names[i] ? header_names[i] : "",
                              stand_ins[k]) == 0;
        if (brought)
            continue;
        header_texts[headers] = cuda_text_copy("", 0);
        header_names[headers] = stand_ins[k];
        if (header_texts[headers] == NULL)
            status = host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                 "out of host memory");
        else
            headers++;
    }

    nvrtcProgram program = NULL;
    char *nvrtc_log = NULL;
    double compile_start = cuda_seconds();
    if (status == KILN_OK) {
        nvrtcResult result = nvrtcCreateProgram(
            &program, text, source->name, (int)headers,
            (const char *const *)header_texts, header_names);
        if (result != NVRTC_SUCCESS) {
            program = NULL;
            status = host->error(result == NVRTC_ERROR_OUT_OF_MEMORY
                                     ? KILN_ERR_OUT_OF_HOST_MEMORY
                                     : KILN_ERR_BACKEND,
                                 "nvrtcCreateProgram: %s",
                                 nvrtcGetErrorString(result));
        } else {
            status = cuda_names_add(host, program, source);
            if (status == KILN_OK) {
                result = nvrtcCompileProgram(program, (int)option_count,
                                             (const char *const *)options);
                nvrtc_log = cuda_nvrtc_log(program);
                status = cuda_nvrtc_verdict(host, result, source, target,
                                            nvrtc_log, werror);
            }
        }
    }
    if (status == KILN_OK)
        status = cuda_nvrtc_image(host, program, target, binary);
    if (status == KILN_OK)
        status = cuda_names_lowered(host, program, source, binary);
    if (seconds != NULL)
        *seconds = cuda_seconds() - compile_start;
    if (status == KILN_OK) {
        binary->is_ptx = target->is_ptx;
        binary->sm = target->compile_sm;
    }
    *log = nvrtc_log;
    if (program != NULL)
        nvrtcDestroyProgram(&program);
    for (size_t i = 0; header_texts != NULL && i < headers; ++i)
        free(header_texts[i]);
    free(header_texts);
    free(header_names);
    free(text);
    cuda_options_free(options, option_count);
    if (status != KILN_OK)
        cuda_binary_free(binary);
    return status;
}

/* ---- the binary in memory ---------------------------------------------------- */

void cuda_binary_free(cuda_binary *binary)
{
    for (size_t i = 0; i < binary->name_count; ++i) {
        free(binary->names[i]);
        free(binary->lowered[i]);
    }
    free(binary->names);
    free(binary->lowered);
    free(binary->image);
    memset(binary, 0, sizeof *binary);
}
