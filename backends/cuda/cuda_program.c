/*
 * Programs: CUDA C compiled with NVRTC (cuda_compile.c), loaded as a CUDA
 * module, and kept as an image so that the core can save them; loaded
 * again from that image.
 */
#include "cuda_private.h"

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

kiln_status cuda_program_build(kiln_backend_context *context,
                               const kiln_backend_source *source,
                               kiln_backend_program **program, char **log)
{
    *log = NULL;
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    cuda_binary binary;
    double compiling = 0;
    status = cuda_binary_compile(cuda_host, &context->target, source, &binary,
                                 log, &compiling);
    if (status != KILN_OK)
        return status;
    double load_start = cuda_seconds();
    if (status == KILN_OK)
        status = cuda_program_instantiate(context, &binary, program);
    double loading = cuda_seconds() - load_start;
    cuda_binary_free(&binary);
    if (status == KILN_OK) {
        status = cuda_program_describe(context, *program);
        if (status != KILN_OK)
            cuda_program_destroy(context, *program);
    }
    if (status == KILN_OK && cuda_host->trace != NULL)
        cuda_host->trace("cuda: built %s in %.1f ms: NVRTC %.1f ms, loading "
                         "%.1f ms",
                         source->name, (compiling + loading) * 1e3,
                         compiling * 1e3, loading * 1e3);
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

/* The binary of a saved image, as this device's target makes it (the
 * cache identity names the target). */
static kiln_status cuda_binary_from_saved(kiln_backend_context *context,
                                          const unsigned char *image,
                                          size_t size, cuda_binary *binary)
{
    memset(binary, 0, sizeof *binary);
    const cuda_target *target = &context->target;
    /* Only well-formed images reach the driver: a CUBIN is an ELF file,
     * PTX is text ending in its NUL. */
    int well_formed = target->is_ptx
                          ? size > 0 && image[size - 1] == '\0'
                          : size >= 4 && memcmp(image, "\177ELF", 4) == 0;
    if (!well_formed) {
        char name[32];
        cuda_target_name(target, name, sizeof name);
        return cuda_host->error(KILN_ERR_INVALID_ARGUMENT,
                                "saved program: not a %s image for %s "
                                "(%zu bytes)",
                                target->is_ptx ? "PTX" : "CUBIN", name, size);
    }
    binary->is_ptx = target->is_ptx;
    binary->sm = target->compile_sm;
    binary->image = malloc(size);
    if (binary->image == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    memcpy(binary->image, image, size);
    binary->image_size = size;
    return KILN_OK;
}

kiln_status cuda_program_load_image(kiln_backend_context *context,
                                    const void *data, size_t size,
                                    const kiln_backend_program_info *info,
                                    kiln_backend_program **program)
{
    (void)info; /* the module lists its kernels itself */
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    cuda_binary binary;
    status = cuda_binary_from_saved(context, data, size, &binary);
    if (status == KILN_OK) {
        double load_start = cuda_seconds();
        status = cuda_program_instantiate(context, &binary, program);
        if (status == KILN_OK && cuda_host->trace != NULL)
            cuda_host->trace("cuda: loaded a cached program in %.1f ms",
                             (cuda_seconds() - load_start) * 1e3);
        cuda_binary_free(&binary);
    }
    if (status == KILN_OK) {
        status = cuda_program_describe(context, *program);
        if (status != KILN_OK)
            cuda_program_destroy(context, *program);
    }
    return status;
}

void cuda_program_destroy(kiln_backend_context *context,
                          kiln_backend_program *program)
{
    (void)cuda_context_bind(context);
    (void)cuModuleUnload(program->module);
    cuda_binary_free(&program->binary);
    free(program->listed);
    free(program->listed_names);
    free(program->native_names);
    for (cuda_global *global = atomic_load(&program->globals); global;) {
        cuda_global *next = global->next;
        free(global);
        global = next;
    }
    free(program);
}

kiln_status cuda_program_variable(kiln_backend_context *context,
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
