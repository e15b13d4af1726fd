/*
 * Kernels: finding a kernel by its C name, and what it takes.
 *
 * Kernels are found by their C name whether or not they are
 * extern "C".  The name is first looked up as a symbol (extern "C", or a
 * mangled name given as is); failing that, the module's kernels are
 * enumerated (cuModuleEnumerateFunctions, cuFuncGetName) and the one whose
 * Itanium-mangled name is that C name at global scope — _Z<length><name>,
 * or _ZL... for a static kernel, followed by its parameter types — is
 * taken.  This works for any loaded module, a cached one included, without
 * scanning the source for __global__ functions (which macros, templates
 * and #if defeat).  Overloads or several template instantiations of one
 * name are ambiguous: the error lists their mangled names, which can then
 * be asked for directly.  Kernel template instances and kernels inside a
 * namespace the core names (NVRTC name expressions, kiln_backend_source's
 * kernel_names) are listed under those names, with the symbol NVRTC
 * lowered each to, which the core asks for; others must be asked for by
 * their mangled name.  Parameters are the driver's: count and sizes only
 * (cuFuncGetParamInfo); the core adds what its front end read of them.
 */
#include "cuda_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Far beyond the 32 KiB of parameter space; stops a misbehaving driver. */
#define CUDA_MAX_PARAMS 32768

/* The driver's parameter sizes: cuFuncGetParamInfo answers
 * CUDA_ERROR_INVALID_VALUE for the first index past the last parameter. */
static kiln_status cuda_kernel_param_sizes(kiln_backend_context *context,
                                           CUfunction function,
                                           const char *name, size_t **sizes,
                                           size_t *count)
{
    size_t capacity = 8, n = 0;
    size_t *list = malloc(capacity * sizeof *list);
    if (list == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    for (;;) {
        size_t offset = 0, size = 0;
        CUresult result = cuFuncGetParamInfo(function, n, &offset, &size);
        if (result == CUDA_ERROR_INVALID_VALUE || n == CUDA_MAX_PARAMS)
            break;
        if (result != CUDA_SUCCESS) {
            free(list);
            return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                             "cuFuncGetParamInfo('%s', %zu)", name, n);
        }
        if (n == capacity) {
            size_t *grown = realloc(list, 2 * capacity * sizeof *grown);
            if (grown == NULL) {
                free(list);
                return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                        "out of host memory");
            }
            list = grown;
            capacity *= 2;
        }
        list[n++] = size;
    }
    *sizes = list;
    *count = n;
    return KILN_OK;
}

/* The C name of a function at global scope in its Itanium mangling,
 * "_Z" ["L"] <decimal length> <name> <parameter types>: its start and
 * length in `symbol`; 0 when `symbol` is no such mangling. */
static int cuda_mangled_global_name(const char *symbol, const char **name,
                                    size_t *length)
{
    if (strncmp(symbol, "_Z", 2) != 0)
        return 0;
    const char *p = symbol + 2;
    if (*p == 'L')
        ++p;
    if (*p < '1' || *p > '9')
        return 0;
    size_t n = 0;
    while (*p >= '0' && *p <= '9') {
        n = n * 10 + (size_t)(*p - '0');
        if (n > 4096)
            return 0;
        ++p;
    }
    if (strnlen(p, n + 1) <= n) /* the name and at least one type follow */
        return 0;
    *name = p;
    *length = n;
    return 1;
}

/* Whether `symbol` is the Itanium mangling of a function `name` at global
 * scope.  A template's instance ("I" and its arguments after the name) is
 * not: CUDA finds one only by the name expression that made it, so a
 * plain name does not pick an instance here either (the translation for
 * OpenCL devices answers the same). */
static int cuda_mangled_name_matches(const char *symbol, const char *name)
{
    const char *base;
    size_t length;
    return cuda_mangled_global_name(symbol, &base, &length) &&
           length == strlen(name) && strncmp(base, name, length) == 0 &&
           base[length] != 'I';
}

/* Appends `text` to a bounded, comma-separated list for messages. */
static void cuda_name_list_add(char *list, size_t size, const char *text)
{
    size_t used = strlen(list);
    if (used + 8 >= size)
        return;
    snprintf(list + used, size - used, "%s%s", used ? ", " : "", text);
    if (strlen(list) + 5 >= size)
        snprintf(list + size - 5, 5, "...");
}

static kiln_status cuda_kernel_find_mangled(kiln_backend_context *context,
                                            CUmodule module, const char *name,
                                            CUfunction *function)
{
    unsigned int count = 0;
    CUresult result = cuModuleGetFunctionCount(&count, module);
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuModuleGetFunctionCount");
    CUfunction *functions = calloc(count ? count : 1, sizeof *functions);
    if (functions == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    result = cuModuleEnumerateFunctions(functions, count, module);
    if (result != CUDA_SUCCESS) {
        free(functions);
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuModuleEnumerateFunctions");
    }
    char all[1024] = "";
    char matching[1024] = "";
    const char *match = NULL;
    size_t matches = 0;
    for (unsigned int i = 0; i < count; ++i) {
        const char *symbol = NULL;
        if (cuFuncGetName(&symbol, functions[i]) != CUDA_SUCCESS ||
            symbol == NULL)
            continue;
        cuda_name_list_add(all, sizeof all, symbol);
        if (cuda_mangled_name_matches(symbol, name)) {
            cuda_name_list_add(matching, sizeof matching, symbol);
            match = symbol;
            ++matches;
        }
    }
    kiln_status status;
    if (matches == 1) {
        /* By name again: the handle the driver gives for lookups, fully
         * loaded, rather than an enumerated (possibly lazy) one. */
        result = cuModuleGetFunction(function, module, match);
        status = result == CUDA_SUCCESS
                     ? KILN_OK
                     : cuda_fail(context->device, result, KILN_ERR_BACKEND,
                                 "cuModuleGetFunction('%s')", match);
    } else if (matches > 1) {
        status = cuda_host->error(
            KILN_ERR_KERNEL_NOT_FOUND,
            "'%s' names %zu kernels of this program (%s): declare the one "
            "you want extern \"C\", or ask for it by its mangled name",
            name, matches, matching);
    } else {
        status = cuda_host->error(KILN_ERR_KERNEL_NOT_FOUND,
                                  "no kernel '%s' in this program; its "
                                  "kernels are: %s",
                                  name, all[0] ? all : "(none)");
    }
    free(functions);
    return status;
}

/* The symbols of the module's kernels (the driver's strings, valid while
 * the module is loaded) in a malloc'ed array.  Drivers before CUDA 12.4
 * cannot enumerate a module: KILN_ERR_UNSUPPORTED saying so. */
static kiln_status cuda_module_symbols(kiln_backend_context *context,
                                       CUmodule module, const char ***symbols,
                                       unsigned int *count)
{
    int driver = cuda_backend_driver_version();
    if (driver < 12040)
        return cuda_host->error(
            KILN_ERR_UNSUPPORTED,
            "the CUDA driver (%d.%d) cannot list a module's kernels: "
            "cuModuleEnumerateFunctions needs CUDA 12.4 or later",
            driver / 1000, driver % 1000 / 10);
    unsigned int n = 0;
    CUresult result = cuModuleGetFunctionCount(&n, module);
    if (result == CUDA_ERROR_NOT_SUPPORTED)
        return cuda_host->error(KILN_ERR_UNSUPPORTED,
                                "cuModuleGetFunctionCount: %s: the CUDA "
                                "driver cannot list a module's kernels",
                                cuda_result_name(result));
    if (result != CUDA_SUCCESS)
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuModuleGetFunctionCount");
    CUfunction *functions = calloc(n ? n : 1, sizeof *functions);
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (functions == NULL || names == NULL) {
        free(functions);
        free(names);
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    }
    result = n > 0 ? cuModuleEnumerateFunctions(functions, n, module)
                   : CUDA_SUCCESS;
    for (unsigned int i = 0; result == CUDA_SUCCESS && i < n; ++i) {
        result = cuFuncGetName(&names[i], functions[i]);
        if (result == CUDA_SUCCESS && names[i] == NULL)
            result = CUDA_ERROR_INVALID_VALUE;
    }
    free(functions);
    if (result != CUDA_SUCCESS) {
        free(names);
        return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                         "cuModuleEnumerateFunctions/cuFuncGetName");
    }
    *symbols = names;
    *count = n;
    return KILN_OK;
}

/* How a native CUDA C kernel is listed: by its C name when kernel_create
 * finds exactly this kernel by that name (no other kernel of the module
 * has the same C name, extern "C" or mangled), else by its symbol. */
static void cuda_listed_name(const char *const *symbols, unsigned int count,
                             unsigned int index, const char **name,
                             size_t *length)
{
    const char *symbol = symbols[index];
    *name = symbol;
    *length = strlen(symbol);
    const char *base;
    size_t base_length;
    if (!cuda_mangled_global_name(symbol, &base, &base_length) ||
        base[base_length] == 'I') /* a template's instance */
        return;
    for (unsigned int i = 0; i < count; ++i) {
        if (i == index)
            continue;
        const char *other;
        size_t other_length;
        if (!cuda_mangled_global_name(symbols[i], &other, &other_length)) {
            other = symbols[i];
            other_length = strlen(other);
        }
        if (other_length == base_length &&
            memcmp(other, base, base_length) == 0)
            return;
    }
    *name = base;
    *length = base_length;
}

/* The names a program lists, one after another, each ended by its NUL, in
 * a malloc'ed block (*count names): the loaded module's kernels
 * (cuda_listed_name).  KILN_ERR_UNSUPPORTED where the driver cannot
 * enumerate a module (before CUDA 12.4). */
static kiln_status cuda_program_names(kiln_backend_context *context,
                                      kiln_backend_program *program,
                                      char **text, size_t *count)
{
    const char **symbols = NULL;
    unsigned int listed = 0;
    kiln_status status = cuda_module_symbols(context, program->module,
                                             &symbols, &listed);
    if (status != KILN_OK)
        return status;
    size_t total = 1;
    for (unsigned int i = 0; i < listed; ++i)
        total += strlen(symbols[i]) + 1;
    char *names = malloc(total);
    if (names == NULL) {
        free(symbols);
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    }
    size_t used = 0;
    for (unsigned int i = 0; i < listed; ++i) {
        const char *name;
        size_t length;
        cuda_listed_name(symbols, listed, i, &name, &length);
        memcpy(names + used, name, length);
        used += length;
        names[used++] = '\0';
    }
    free(symbols);
    *text = names;
    *count = listed;
    return KILN_OK;
}

kiln_status cuda_program_describe(kiln_backend_context *context,
                                  kiln_backend_program *program)
{
    char *names = NULL;
    size_t count = 0;
    kiln_status status = cuda_program_names(context, program, &names, &count);
    if (status == KILN_ERR_UNSUPPORTED) {
        /* Listing never fails a build or a load: program_kernels says
         * why, and the core lists what its front end read. */
        snprintf(program->listing_error, sizeof program->listing_error, "%s",
                 "the CUDA driver cannot list a module's kernels "
                 "(cuModuleEnumerateFunctions needs CUDA 12.4 or later)");
        return KILN_OK;
    }
    if (status != KILN_OK)
        return status;
    program->listed_names = names;
    /* The module's kernels, then one entry for each name expression,
     * listed under it, with the symbol NVRTC lowered it to. */
    const cuda_binary *binary = &program->binary;
    size_t total = count + binary->name_count;
    program->listed = calloc(total ? total : 1, sizeof *program->listed);
    program->native_names =
        calloc(total ? total : 1, sizeof *program->native_names);
    if (program->listed == NULL || program->native_names == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    size_t at = 0;
    for (size_t i = 0; i < count; ++i) {
        /* The parameters: the driver's sizes, at kernel_create. */
        program->listed[i].name = names + at;
        at += strlen(names + at) + 1;
    }
    for (size_t i = 0; i < binary->name_count; ++i) {
        program->listed[count + i].name = binary->names[i];
        program->native_names[count + i] = binary->lowered[i];
    }
    program->info.struct_size = sizeof program->info;
    program->info.kernel_count = total;
    program->info.kernels = program->listed;
    program->info.native_names = program->native_names;
    return KILN_OK;
}

kiln_status cuda_program_kernels(kiln_backend_context *context,
                                 kiln_backend_program *program,
                                 const kiln_backend_program_info **info)
{
    (void)context;
    if (program->listing_error[0] != '\0')
        return cuda_host->error(KILN_ERR_UNSUPPORTED, "%s",
                                program->listing_error);
    *info = &program->info;
    return KILN_OK;
}

static int cuda_function_attribute(CUfunction function,
                                   CUfunction_attribute attribute,
                                   CUresult *failed)
{
    int value = 0;
    CUresult result = cuFuncGetAttribute(&value, attribute, function);
    if (result != CUDA_SUCCESS && *failed == CUDA_SUCCESS)
        *failed = result;
    return value;
}

void cuda_kernel_destroy(kiln_backend_context *context,
                         kiln_backend_kernel *kernel)
{
    (void)context;
    free(kernel->params);
    free(kernel);
}

/* The kernel's parameters as the driver has them: sizes only (a pointer
 * and an 8-byte value look the same). */
static kiln_status cuda_kernel_params(kiln_backend_kernel *kernel,
                                      const size_t *sizes, size_t count)
{
    kernel->params = calloc(count ? count : 1, sizeof *kernel->params);
    if (kernel->params == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    kernel->param_count = count;
    for (size_t i = 0; i < count; ++i)
        kernel->params[i] = (kiln_backend_param){
            .kind = KILN_PARAM_POINTER_OR_VALUE,
            .space = KILN_BACKEND_SPACE_UNKNOWN,
            .size = sizes[i],
            .name = "",
            .type_name = "",
        };
    return KILN_OK;
}

kiln_status cuda_kernel_create(kiln_backend_context *context,
                               kiln_backend_program *program, const char *name,
                               kiln_backend_kernel **kernel,
                               kiln_backend_kernel_info *info)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    CUfunction function = NULL;
    CUresult result = cuModuleGetFunction(&function, program->module, name);
    if (result == CUDA_ERROR_NOT_FOUND)
        status = cuda_kernel_find_mangled(context, program->module, name,
                                          &function);
    else if (result != CUDA_SUCCESS)
        status = cuda_fail(context->device, result, KILN_ERR_BACKEND,
                           "cuModuleGetFunction('%s')", name);
    if (status != KILN_OK)
        return status;

    size_t *sizes = NULL;
    size_t count = 0;
    status = cuda_kernel_param_sizes(context, function, name, &sizes, &count);
    if (status != KILN_OK)
        return status;
    kiln_backend_kernel *created = calloc(1, sizeof *created);
    if (created == NULL) {
        free(sizes);
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    }
    created->function = function;
    status = cuda_kernel_params(created, sizes, count);
    free(sizes);

    CUresult failed = CUDA_SUCCESS;
    int max_threads = cuda_function_attribute(
        function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &failed);
    int static_shared = cuda_function_attribute(
        function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &failed);
    int dynamic_limit = cuda_function_attribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, &failed);
    if (status == KILN_OK && failed != CUDA_SUCCESS)
        status = cuda_fail(context->device, failed, KILN_ERR_BACKEND,
                           "cuFuncGetAttribute('%s')", name);
    if (status != KILN_OK) {
        cuda_kernel_destroy(context, created);
        return status;
    }
    atomic_init(&created->dynamic_shared_limit, (size_t)dynamic_limit);

    info->param_count = created->param_count;
    info->params = created->params;
    info->max_threads_per_block = (size_t)max_threads;
    info->static_local_memory = (size_t)static_shared;
    *kernel = created;
    return KILN_OK;
}
