/*
 * Kernels: finding a kernel by its C name, and what it takes.
 *
 * OpenCL C kernels are extern "C" after translation: their name is their
 * symbol, and their parameters come from the translated signature (the
 * driver cannot tell a __local offset from an int).  The driver's own
 * parameter list (cuFuncGetParamInfo) is checked against it, so that a
 * disagreement between the translator and this backend is an error at
 * kernel creation, never a launch with arguments of the wrong size.
 *
 * Native CUDA C kernels are found by their C name whether or not they are
 * extern "C".  The name is first looked up as a symbol (extern "C", or a
 * mangled name given as is); failing that, the module's kernels are
 * enumerated (cuModuleEnumerateFunctions, cuFuncGetName) and the one whose
 * Itanium-mangled name is that C name at global scope — _Z<length><name>,
 * or _ZL... for a static kernel, followed by its parameter types — is
 * taken.  This works for any loaded module, a cached one included, without
 * scanning the source for __global__ functions (which macros, templates
 * and #if defeat).  Overloads or several template instantiations of one
 * name are ambiguous: the error lists their mangled names, which can then
 * be asked for directly.  Kernels inside a namespace must be asked for by
 * their mangled name.  Parameters are the driver's: count and sizes only.
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
 * scope. */
static int cuda_mangled_name_matches(const char *symbol, const char *name)
{
    const char *base;
    size_t length;
    return cuda_mangled_global_name(symbol, &base, &length) &&
           length == strlen(name) && strncmp(base, name, length) == 0;
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
    if (!cuda_mangled_global_name(symbol, &base, &base_length))
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
 * a malloc'ed block (*count names): OpenCL C by its translated signatures;
 * native CUDA C by the loaded module's kernels (cuda_listed_name), or by
 * Kiln's reading of the source where the driver cannot enumerate a module
 * (before CUDA 12.4). */
static kiln_status cuda_program_names(kiln_backend_context *context,
                                      kiln_backend_program *program,
                                      char **text, size_t *count)
{
    const cuda_binary *binary = &program->binary;
    const char **symbols = NULL;
    unsigned int symbol_count = 0;
    if (binary->language != KILN_LANGUAGE_OPENCL_C) {
        kiln_status status = cuda_module_symbols(context, program->module,
                                                 &symbols, &symbol_count);
        if (status == KILN_ERR_OUT_OF_HOST_MEMORY)
            return status;
        if (status != KILN_OK) {
            /* Listing never fails a build or a load. */
            cuda_host->trace("cuda: the driver cannot enumerate the module; "
                             "listing the kernels Kiln read in the source");
            symbols = NULL;
        }
    }
    size_t listed = symbols == NULL ? binary->kernel_count : symbol_count;
    size_t total = 1;
    for (size_t i = 0; i < listed; ++i)
        total += strlen(symbols == NULL ? binary->kernels[i].name
                                        : symbols[i]) + 1;
    char *names = malloc(total);
    if (names == NULL) {
        free(symbols);
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    }
    size_t used = 0;
    for (size_t i = 0; i < listed; ++i) {
        const char *name;
        size_t length;
        if (symbols == NULL) {
            name = binary->kernels[i].name;
            length = strlen(name);
        } else {
            cuda_listed_name(symbols, symbol_count, (unsigned int)i, &name,
                             &length);
        }
        memcpy(names + used, name, length);
        used += length;
        names[used++] = '\0';
    }
    free(symbols);
    *text = names;
    *count = listed;
    return KILN_OK;
}

static const clc_kernel_signature *
cuda_signature_find(const cuda_binary *binary, const char *name)
{
    for (size_t i = 0; i < binary->kernel_count; ++i)
        if (strcmp(binary->kernels[i].name, name) == 0)
            return &binary->kernels[i];
    return NULL;
}

/* A translated parameter as the core sees it. */
static kiln_param_kind cuda_param_kind(clc_param_kind kind)
{
    switch (kind) {
    case CLC_PARAM_GLOBAL:
    case CLC_PARAM_CONSTANT:
        return KILN_PARAM_BUFFER;
    case CLC_PARAM_LOCAL:
        return KILN_PARAM_LOCAL;
    case CLC_PARAM_VALUE:
        break;
    }
    return KILN_PARAM_VALUE;
}

kiln_status cuda_program_describe(kiln_backend_context *context,
                                  kiln_backend_program *program,
                                  const char *names, size_t count)
{
    char *own = NULL;
    if (names == NULL) {
        kiln_status status = cuda_program_names(context, program, &own,
                                                &count);
        if (status != KILN_OK)
            return status;
        names = own;
    }
    const cuda_binary *binary = &program->binary;
    size_t param_total = 0, length = 0;
    for (size_t i = 0; i < count; ++i) {
        const clc_kernel_signature *signature =
            cuda_signature_find(binary, names + length);
        if (signature != NULL)
            param_total += signature->param_count;
        length += strlen(names + length) + 1;
    }
    program->listed_names = malloc(length ? length : 1);
    program->listed = calloc(count ? count : 1, sizeof *program->listed);
    program->listed_params = calloc(param_total ? param_total : 1,
                                    sizeof *program->listed_params);
    if (program->listed_names == NULL || program->listed == NULL ||
        program->listed_params == NULL) {
        free(own);
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    }
    if (length > 0)
        memcpy(program->listed_names, names, length);
    free(own);
    size_t at = 0, params_used = 0;
    for (size_t i = 0; i < count; ++i) {
        kiln_backend_kernel_signature *kernel = &program->listed[i];
        kernel->name = program->listed_names + at;
        at += strlen(kernel->name) + 1;
        const clc_kernel_signature *signature =
            cuda_signature_find(binary, kernel->name);
        if (signature == NULL)
            continue;
        kernel->params_known = 1;
        kernel->param_count = signature->param_count;
        kernel->params = program->listed_params + params_used;
        for (size_t p = 0; p < signature->param_count; ++p) {
            const clc_param *from = &signature->params[p];
            kiln_backend_param *to = &program->listed_params[params_used++];
            to->kind = cuda_param_kind(from->kind);
            to->size = from->size;
            to->name = from->name;
            to->type_name = from->type_name;
        }
        for (int d = 0; d < 3; ++d)
            kernel->required_block[d] = signature->reqd_work_group[d];
    }
    program->info.kernel_count = count;
    program->info.kernels = program->listed;
    return KILN_OK;
}

kiln_status cuda_program_kernels(kiln_backend_context *context,
                                 kiln_backend_program *program,
                                 const kiln_backend_program_info **info)
{
    (void)context;
    *info = &program->info;
    return KILN_OK;
}

static kiln_status cuda_kernel_not_found(const cuda_binary *binary,
                                         const char *name)
{
    char all[1024] = "";
    for (size_t i = 0; i < binary->kernel_count; ++i)
        cuda_name_list_add(all, sizeof all, binary->kernels[i].name);
    return cuda_host->error(KILN_ERR_KERNEL_NOT_FOUND,
                            "no __kernel '%s' in this program; its kernels "
                            "are: %s",
                            name, all[0] ? all : "(none)");
}

/* The driver's size a translated parameter must have. */
static size_t cuda_translated_size(const clc_param *param)
{
    switch (param->kind) {
    case CLC_PARAM_GLOBAL:
    case CLC_PARAM_CONSTANT:
        return sizeof(CUdeviceptr);
    case CLC_PARAM_LOCAL:
        return sizeof(unsigned int); /* the slice's offset */
    case CLC_PARAM_VALUE:
        break;
    }
    return param->size;
}

/* Whether Kiln's reading of a CUDA C kernel agrees with the driver's
 * parameter sizes (a driver that lists none cannot disagree). */
static int cuda_signature_matches(const clc_kernel_signature *signature,
                                  const size_t *sizes, size_t count)
{
    if (count == 0)
        return 1;
    if (count != signature->param_count)
        return 0;
    for (size_t i = 0; i < count; ++i) {
        size_t expected = signature->params[i].kind == CLC_PARAM_VALUE
                              ? signature->params[i].size
                              : sizeof(CUdeviceptr);
        if (expected != 0 && expected != sizes[i])
            return 0;
    }
    return 1;
}

/* Fills the kernel's parameter list from the signature (OpenCL C, and CUDA
 * C as Kiln reads it) or the driver's sizes alone. */
static kiln_status cuda_kernel_params(kiln_backend_kernel *kernel,
                                      const char *name,
                                      const clc_kernel_signature *signature,
                                      const size_t *sizes, size_t count)
{
    /* 0 when the driver listed none (a driver that cannot tell says 0):
     * then there is nothing to check against. */
    size_t driver_count = count;
    if (signature != NULL) {
        if (count != 0 && count != signature->param_count)
            return cuda_host->error(
                KILN_ERR_BACKEND,
                "kernel '%s': the translation has %zu parameters but the "
                "OpenCL C signature %zu (translator and backend disagree)",
                name, count, signature->param_count);
        count = signature->param_count;
        kernel->signature = calloc(count ? count : 1,
                                   sizeof *kernel->signature);
        if (kernel->signature == NULL)
            return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                    "out of host memory");
        if (count > 0)
            memcpy(kernel->signature, signature->params,
                   count * sizeof *kernel->signature);
    }
    kernel->params = calloc(count ? count : 1, sizeof *kernel->params);
    if (kernel->params == NULL)
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    kernel->param_count = count;
    for (size_t i = 0; i < count; ++i) {
        kiln_backend_param *info = &kernel->params[i];
        if (signature == NULL) {
            info->kind = KILN_PARAM_POINTER_OR_VALUE;
            info->size = sizes[i];
            info->name = "";
            info->type_name = "";
            continue;
        }
        const clc_param *param = &kernel->signature[i];
        size_t driver_size = driver_count != 0 ? sizes[i] : 0;
        size_t expected = cuda_translated_size(param);
        if (driver_size != 0 && expected != 0 && driver_size != expected)
            return cuda_host->error(
                KILN_ERR_BACKEND,
                "kernel '%s': parameter %zu (%s %s) takes %zu bytes after "
                "translation, %zu expected (translator and backend disagree)",
                name, i, param->type_name, param->name, driver_size, expected);
        info->name = param->name;
        info->type_name = param->type_name;
        switch (param->kind) {
        case CLC_PARAM_GLOBAL:
        case CLC_PARAM_CONSTANT:
            info->kind = KILN_PARAM_BUFFER;
            info->size = sizeof(CUdeviceptr);
            break;
        case CLC_PARAM_LOCAL:
            /* The launch takes a size of local memory, not a value. */
            info->kind = KILN_PARAM_LOCAL;
            info->size = 0;
            break;
        case CLC_PARAM_VALUE:
        default:
            info->kind = KILN_PARAM_VALUE;
            /* A struct or typedef the translator cannot size: the driver's
             * size of the translated parameter is the one that counts. */
            info->size = param->size != 0 ? param->size : driver_size;
            break;
        }
    }
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
    free(kernel->signature);
    free(kernel);
}

kiln_status cuda_kernel_create(kiln_backend_context *context,
                               kiln_backend_program *program, const char *name,
                               kiln_backend_kernel **kernel,
                               kiln_backend_kernel_info *info)
{
    kiln_status status = cuda_context_enter(context);
    if (status != KILN_OK)
        return status;
    const cuda_binary *binary = &program->binary;
    const clc_kernel_signature *signature = NULL;
    CUfunction function = NULL;
    if (binary->language == KILN_LANGUAGE_OPENCL_C) {
        signature = cuda_signature_find(binary, name);
        if (signature == NULL)
            return cuda_kernel_not_found(binary, name);
        CUresult result = cuModuleGetFunction(&function, program->module, name);
        if (result != CUDA_SUCCESS)
            return cuda_fail(context->device, result, KILN_ERR_BACKEND,
                             "cuModuleGetFunction('%s') of a translated "
                             "__kernel",
                             name);
    } else {
        /* Kiln's reading of the source, when it has one of this name */
        signature = cuda_signature_find(binary, name);
        CUresult result = cuModuleGetFunction(&function, program->module, name);
        if (result == CUDA_ERROR_NOT_FOUND)
            status = cuda_kernel_find_mangled(context, program->module, name,
                                              &function);
        else if (result != CUDA_SUCCESS)
            status = cuda_fail(context->device, result, KILN_ERR_BACKEND,
                               "cuModuleGetFunction('%s')", name);
        if (status != KILN_OK)
            return status;
    }

    size_t *sizes = NULL;
    size_t count = 0;
    status = cuda_kernel_param_sizes(context, function, name, &sizes, &count);
    if (status != KILN_OK)
        return status;
    kiln_backend_kernel *result = calloc(1, sizeof *result);
    if (result == NULL) {
        free(sizes);
        return cuda_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory");
    }
    result->function = function;
    result->opencl = binary->language == KILN_LANGUAGE_OPENCL_C;
    if (result->opencl) {
        /* Only a program that calls get_work_dim() keeps the variable. */
        size_t bytes = 0;
        if (cuModuleGetGlobal(&result->work_dim_override, &bytes,
                              program->module,
                              "kl_work_dim_override") != CUDA_SUCCESS ||
            bytes != sizeof(unsigned))
            result->work_dim_override = 0;
    }
    if (!result->opencl && signature != NULL &&
        !cuda_signature_matches(signature, sizes, count))
        signature = NULL; /* the driver's sizes, rather than a misreading */
    status = cuda_kernel_params(result, name, signature, sizes, count);
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
        cuda_kernel_destroy(context, result);
        return status;
    }
    atomic_init(&result->dynamic_shared_limit, (size_t)dynamic_limit);

    memset(info, 0, sizeof *info);
    info->param_count = result->param_count;
    info->params = result->params;
    info->max_threads_per_block = (size_t)max_threads;
    info->static_local_memory = (size_t)static_shared;
    if (signature != NULL)
        for (int i = 0; i < 3; ++i)
            info->required_block[i] = signature->reqd_work_group[i];
    *kernel = result;
    return KILN_OK;
}
