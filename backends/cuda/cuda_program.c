/*
 * Programs: compiled with NVRTC (cuda_compile.c), loaded as a CUDA module,
 * and kept as an image so that the core can save them; loaded again from
 * that image and the kernel information the core saved beside it.
 */
#include "cuda_private.h"
#include "cuda_to_opencl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Room for the driver's JIT diagnostics when PTX does not load. */
#define CUDA_JIT_LOG_BYTES 8192

/* Loads `binary` into the context and takes it over (it is left empty).
 * A module that will not load is KILN_ERR_BUILD: the image was refused
 * for this device. */
static kiln_status cuda_program_instantiate(kiln_backend_context *context,
                                           cuda_binary *binary,
                                           kiln_backend_program **program)
{
    kiln_backend_program *result = calloc(1, sizeof *result);
    char *jit_log = binary->is_ptx ? calloc(1, CUDA_JIT_LOG_BYTES) : NULL;
    if (result == NULL || (binary->is_ptx && jit_log == NULL)) {
        free(result);
        free(jit_log);
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    }
    CUresult loaded;
    if (binary->is_ptx) {
        CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *values[] = {jit_log, (void *)(uintptr_t)CUDA_JIT_LOG_BYTES};
        loaded = cuModuleLoadDataEx(&result->module, binary->image, 2, options,
                                    values);
    } else {
        loaded = cuModuleLoadData(&result->module, binary->image);
    }
    if (loaded != CUDA_SUCCESS) {
        kiln_status status;
        if (loaded == CUDA_ERROR_OUT_OF_MEMORY ||
            cuda_result_is_sticky(loaded))
            status = cuda_fail(context->device, loaded, KILN_ERR_BUILD,
                               "cuModuleLoadData");
        else
            status = cuda_fail(
                context->device, loaded, KILN_ERR_BUILD,
                "cuModuleLoadData%s(%s for %s_%d%s%s)",
                binary->is_ptx ? "Ex" : "", binary->is_ptx ? "PTX" : "CUBIN",
                binary->is_ptx ? "compute" : "sm", binary->sm,
                jit_log != NULL && jit_log[0] ? ": " : "",
                jit_log != NULL ? jit_log : "");
        free(jit_log);
        free(result);
        return status;
    }
    free(jit_log);
    result->binary = *binary;
    memset(binary, 0, sizeof *binary);
    *program = result;
    return KILN_OK;
}

/* Native CUDA C: the kernels' parameters as Kiln reads them (names,
 * types, pointer or value), so that launches are checked as strictly as
 * for OpenCL C.  CUDA C the reading cannot follow (templates, classes)
 * keeps the driver's sizes only. */
static kiln_status cuda_program_signatures(const kiln_backend_source *source,
                                           cuda_binary *binary)
{
    cuda_translation reading;
    clc_options options = clc_options_of(source);
    if (cuda_translate(source->text, source->length, source->name, &options,
                       &reading) != 0) {
        cuda_host->trace("cuda: no parameter names for %s: %s", source->name,
                         reading.error ? reading.error : "out of memory");
        cuda_translation_free(&reading);
        return KILN_OK;
    }
    binary->kernels = calloc(reading.kernel_count ? reading.kernel_count : 1,
                             sizeof *binary->kernels);
    kiln_status status = KILN_OK;
    if (binary->kernels == NULL)
        status = cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "out of host memory");
    for (size_t k = 0; k < reading.kernel_count && status == KILN_OK; ++k) {
        const clc_kernel_signature *from = &reading.kernels[k].signature;
        clc_kernel_signature *to = &binary->kernels[k];
        *to = *from;
        to->params = calloc(from->param_count ? from->param_count : 1,
                            sizeof *to->params);
        if (to->params == NULL) {
            status = cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                      "out of host memory");
            break;
        }
        if (from->param_count > 0)
            memcpy(to->params, from->params,
                   from->param_count * sizeof *to->params);
        binary->kernel_count = k + 1;
    }
    cuda_translation_free(&reading);
    return status;
}

kiln_status cuda_program_build(kiln_backend_context *context,
                               const kiln_backend_source *source,
                               kiln_backend_program **program, char **log)
{
    *log = NULL;
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    cuda_binary binary;
    cuda_build_times times;
    status = cuda_binary_compile(cuda_host, &context->target, source, &binary,
                                 log, &times);
    if (status != KILN_OK)
        return status;
    if (source->language == KILN_LANGUAGE_CUDA_C)
        status = cuda_program_signatures(source, &binary);
    double load_start = cuda_seconds();
    if (status == KILN_OK)
        status = cuda_program_instantiate(context, &binary, program);
    double loading = cuda_seconds() - load_start;
    cuda_binary_free(&binary);
    if (status == KILN_OK) {
        status = cuda_program_describe(context, *program, NULL, 0);
        if (status != KILN_OK)
            cuda_program_destroy(context, *program);
    }
    if (status == KILN_OK && cuda_host->trace != NULL)
        cuda_host->trace("cuda: built %s in %.1f ms: translation %.1f ms, "
                         "NVRTC %.1f ms, loading %.1f ms",
                         source->name,
                         (times.translation + times.compilation + loading) *
                             1e3,
                         times.translation * 1e3, times.compilation * 1e3,
                         loading * 1e3);
    return status;
}

kiln_status cuda_program_image(kiln_backend_context *context,
                               kiln_backend_program *program, void **data,
                               size_t *size)
{
    (void)context;
    const cuda_binary *binary = &program->binary;
    void *copy = malloc(binary->image_size);
    if (copy == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory for a %zu-byte image",
                                binary->image_size);
    memcpy(copy, binary->image, binary->image_size);
    *data = copy;
    *size = binary->image_size;
    return KILN_OK;
}

/* A saved kernel's signature in the form the translation gives: the
 * core's reader checked the strings, these the sizes this backend keeps. */
static kiln_status cuda_signature_from_saved(
    const kiln_backend_kernel_signature *saved, clc_kernel_signature *out)
{
    size_t name_length = strlen(saved->name);
    if (name_length >= sizeof out->name || saved->hidden_count != 0)
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "saved kernel '%.64s' is not one this "
                                "backend wrote",
                                saved->name);
    memcpy(out->name, saved->name, name_length + 1);
    for (int d = 0; d < 3; ++d) {
        if (saved->required_block[d] > 65535)
            return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                    "saved kernel '%s': required block out "
                                    "of range",
                                    out->name);
        out->reqd_work_group[d] = (unsigned)saved->required_block[d];
    }
    out->params = calloc(saved->param_count ? saved->param_count : 1,
                         sizeof *out->params);
    if (out->params == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    out->param_count = saved->param_count;
    for (size_t p = 0; p < saved->param_count; ++p) {
        const kiln_backend_param *from = &saved->params[p];
        clc_param *to = &out->params[p];
        size_t name = strlen(from->name), type = strlen(from->type_name);
        if (name >= sizeof to->name || type >= sizeof to->type_name ||
            from->kind == KILN_PARAM_POINTER_OR_VALUE)
            return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                    "saved kernel '%s': parameter %zu is not "
                                    "one this backend wrote",
                                    out->name, p);
        to->kind = from->kind == KILN_PARAM_BUFFER  ? CLC_PARAM_GLOBAL
                   : from->kind == KILN_PARAM_LOCAL ? CLC_PARAM_LOCAL
                                                    : CLC_PARAM_VALUE;
        to->size = from->size;
        memcpy(to->name, from->name, name + 1);
        memcpy(to->type_name, from->type_name, type + 1);
    }
    return KILN_OK;
}

/* The binary of a saved program: the image as this device's target makes
 * it (the cache identity names the target), and the saved signatures. */
static kiln_status cuda_binary_from_saved(kiln_backend_context *context,
                                          kiln_language language,
                                          const unsigned char *image,
                                          size_t size,
                                          const kiln_backend_program_info *info,
                                          cuda_binary *binary)
{
    memset(binary, 0, sizeof *binary);
    const cuda_target *target = &context->target;
    /* Only well-formed images reach the driver: a CUBIN is an ELF file,
     * PTX is text ending in its NUL. */
    int well_formed = target->is_ptx
                          ? size > 0 && image[size - 1] == '\0'
                          : size >= 4 && memcmp(image, "\177ELF", 4) == 0;
    if (!well_formed || info->variable_count != 0) {
        char name[32];
        cuda_target_name(target, name, sizeof name);
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "saved program: not a %s image for %s "
                                "(%zu bytes)",
                                target->is_ptx ? "PTX" : "CUBIN", name, size);
    }
    binary->language = language;
    binary->is_ptx = target->is_ptx;
    binary->sm = target->compile_sm;
    binary->image = malloc(size);
    size_t known = 0;
    for (size_t k = 0; k < info->kernel_count; ++k)
        known += info->kernels[k].params_known != 0;
    binary->kernels = calloc(known ? known : 1, sizeof *binary->kernels);
    if (binary->image == NULL || binary->kernels == NULL) {
        cuda_binary_free(binary);
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    }
    memcpy(binary->image, image, size);
    binary->image_size = size;
    kiln_status status = KILN_OK;
    for (size_t k = 0; k < info->kernel_count && status == KILN_OK; ++k) {
        if (!info->kernels[k].params_known)
            continue;
        status = cuda_signature_from_saved(
            &info->kernels[k], &binary->kernels[binary->kernel_count++]);
    }
    if (status != KILN_OK)
        cuda_binary_free(binary);
    return status;
}

kiln_status cuda_program_load_image(kiln_backend_context *context,
                                    kiln_language language, const void *data,
                                    size_t size,
                                    const kiln_backend_program_info *info,
                                    kiln_backend_program **program)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    /* The listed names, each ended by its NUL, as describe takes them. */
    size_t length = 0;
    for (size_t k = 0; k < info->kernel_count; ++k)
        length += strlen(info->kernels[k].name) + 1;
    char *names = malloc(length ? length : 1);
    if (names == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    length = 0;
    for (size_t k = 0; k < info->kernel_count; ++k) {
        size_t bytes = strlen(info->kernels[k].name) + 1;
        memcpy(names + length, info->kernels[k].name, bytes);
        length += bytes;
    }
    cuda_binary binary;
    status = cuda_binary_from_saved(context, language, data, size, info,
                                    &binary);
    if (status == KILN_OK) {
        double load_start = cuda_seconds();
        status = cuda_program_instantiate(context, &binary, program);
        if (status == KILN_OK && cuda_host->trace != NULL)
            cuda_host->trace("cuda: loaded a cached program in %.1f ms",
                             (cuda_seconds() - load_start) * 1e3);
        cuda_binary_free(&binary);
    }
    if (status == KILN_OK) {
        status = cuda_program_describe(context, *program, names,
                                       info->kernel_count);
        if (status != KILN_OK)
            cuda_program_destroy(context, *program);
    }
    free(names);
    return status;
}

void cuda_program_destroy(kiln_backend_context *context,
                          kiln_backend_program *program)
{
    (void)cuda_context_bind(context);
    (void)cuModuleUnload(program->module);
    cuda_binary_free(&program->binary);
    free(program->listed);
    free(program->listed_params);
    free(program->listed_names);
    for (cuda_global *global = atomic_load(&program->globals); global;) {
        cuda_global *next = global->next;
        free(global);
        global = next;
    }
    free(program);
}

kiln_status cuda_program_global(kiln_backend_context *context,
                                kiln_backend_program *program,
                                const char *name, kiln_backend_memory **memory,
                                size_t *size)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUdeviceptr pointer = 0;
    size_t bytes = 0;
    CUresult result = cuModuleGetGlobal(&pointer, &bytes, program->module,
                                        name);
    if (result == CUDA_ERROR_NOT_FOUND)
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "no __device__ or __constant__ variable '%s' "
                                "in this program (cuModuleGetGlobal: "
                                "CUDA_ERROR_NOT_FOUND)",
                                name);
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuModuleGetGlobal('%s')", name);
    cuda_global *global = calloc(1, sizeof *global);
    if (global == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    global->memory.pointer = pointer;
    global->memory.size = bytes;
    cuda_global *head = atomic_load(&program->globals);
    do
        global->next = head;
    while (!atomic_compare_exchange_weak(&program->globals, &head, global));
    *memory = &global->memory;
    *size = bytes;
    return KILN_OK;
}
