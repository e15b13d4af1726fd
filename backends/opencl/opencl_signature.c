/*
 * Kernel signatures: each parameter's kind, size, name and type, read with
 * clGetKernelArgInfo (the program is built with -cl-kernel-arg-info), so
 * that the core can check a launch's arguments before anything is queued.
 */
#include "opencl_private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sizes of OpenCL C types --------------------------------------------- */

typedef struct opencl_scalar {
    const char *name;
    size_t size;        /* 0: the size of the device's pointers             */
    kiln_backend_scalar scalar;
} opencl_scalar;

/* Scalar types a kernel parameter may have, with OpenCL's sizes (which do
 * not depend on the host: long is 8 bytes everywhere). */
static const opencl_scalar opencl_scalars[] = {
    {"char", 1, KILN_BACKEND_SCALAR_SIGNED},
    {"uchar", 1, KILN_BACKEND_SCALAR_UNSIGNED},
    {"bool", 1, KILN_BACKEND_SCALAR_BOOL},
    {"short", 2, KILN_BACKEND_SCALAR_SIGNED},
    {"ushort", 2, KILN_BACKEND_SCALAR_UNSIGNED},
    {"half", 2, KILN_BACKEND_SCALAR_FLOAT},
    {"int", 4, KILN_BACKEND_SCALAR_SIGNED},
    {"uint", 4, KILN_BACKEND_SCALAR_UNSIGNED},
    {"float", 4, KILN_BACKEND_SCALAR_FLOAT},
    {"long", 8, KILN_BACKEND_SCALAR_SIGNED},
    {"ulong", 8, KILN_BACKEND_SCALAR_UNSIGNED},
    {"double", 8, KILN_BACKEND_SCALAR_FLOAT},
    {"size_t", 0, KILN_BACKEND_SCALAR_UNSIGNED},
    {"ptrdiff_t", 0, KILN_BACKEND_SCALAR_SIGNED},
    {"intptr_t", 0, KILN_BACKEND_SCALAR_SIGNED},
    {"uintptr_t", 0, KILN_BACKEND_SCALAR_UNSIGNED},
};

/* The spec has drivers write unsigned types as uchar, ushort, ...; some
 * keep the long spelling, with or without its space. */
static const char *const opencl_unsigned_spellings[][2] = {
    {"unsigned char", "uchar"},  {"unsignedchar", "uchar"},
    {"unsigned short", "ushort"}, {"unsignedshort", "ushort"},
    {"unsigned int", "uint"},    {"unsignedint", "uint"},
    {"unsigned long", "ulong"},  {"unsignedlong", "ulong"},
    {"unsigned", "uint"},
};

static int starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

void opencl_type_describe(const char *type, cl_uint address_bits,
                          kiln_backend_param *param)
{
    param->size = 0;
    param->scalar = KILN_BACKEND_SCALAR_UNKNOWN;
    param->scalar_bytes = 0;
    param->vector_length = 0;
    size_t pointer = address_bits / 8;
    /* Qualifiers come separately (CL_KERNEL_ARG_TYPE_QUALIFIER), but a
     * driver that leaves one in the name must not make the size unknown. */
    for (;;) {
        if (starts_with(type, "const "))
            type += 6;
        else if (starts_with(type, "volatile "))
            type += 9;
        else
            break;
    }
    char base[32];
    size_t count = sizeof opencl_unsigned_spellings /
                   sizeof opencl_unsigned_spellings[0];
    for (size_t i = 0; i < count; ++i)
        if (strcmp(type, opencl_unsigned_spellings[i][0]) == 0) {
            type = opencl_unsigned_spellings[i][1];
            break;
        }
    /* "float4" = "float" and 4 lanes; a 3-vector is laid out as 4. */
    size_t letters = strcspn(type, "0123456789");
    if (letters == 0 || letters >= sizeof base)
        return;
    memcpy(base, type, letters);
    base[letters] = '\0';
    size_t lanes = 1, laid_out = 1;
    const char *digits = type + letters;
    if (*digits != '\0') {
        if (strcmp(digits, "2") == 0) {
            lanes = laid_out = 2;
        } else if (strcmp(digits, "3") == 0) {
            lanes = 3;
            laid_out = 4;
        } else if (strcmp(digits, "4") == 0) {
            lanes = laid_out = 4;
        } else if (strcmp(digits, "8") == 0) {
            lanes = laid_out = 8;
        } else if (strcmp(digits, "16") == 0) {
            lanes = laid_out = 16;
        } else {
            return;
        }
    }
    count = sizeof opencl_scalars / sizeof opencl_scalars[0];
    for (size_t i = 0; i < count; ++i) {
        if (strcmp(base, opencl_scalars[i].name) != 0)
            continue;
        size_t size = opencl_scalars[i].size ? opencl_scalars[i].size
                                             : pointer;
        /* size_t4 is no type; neither is bool2. */
        if (lanes > 1 && (opencl_scalars[i].size == 0 ||
                          strcmp(base, "bool") == 0))
            return;
        param->size = size * laid_out;
        param->scalar = opencl_scalars[i].scalar;
        param->scalar_bytes = (uint32_t)size;
        param->vector_length = (uint32_t)lanes;
        return;
    }
}

/* ---- signatures ---------------------------------------------------------- */

void opencl_signature_free(opencl_signature *signature)
{
    for (size_t i = 0; i < signature->param_count; ++i) {
        free((char *)(uintptr_t)signature->params[i].name);
        free((char *)(uintptr_t)signature->params[i].type_name);
    }
    free(signature->params);
    free(signature->name);
    signature->params = NULL;
    signature->name = NULL;
    signature->param_count = 0;
}

static char *text_copy(const char *text)
{
    size_t length = strlen(text);
    char *copy = malloc(length + 1);
    if (copy != NULL)
        memcpy(copy, text, length + 1);
    return copy;
}

kiln_status opencl_signature_copy(const opencl_signature *source,
                                  opencl_signature *copy)
{
    memset(copy, 0, sizeof *copy);
    copy->params_known = source->params_known;
    copy->name = text_copy(source->name);
    copy->params = calloc(source->param_count ? source->param_count : 1,
                          sizeof *copy->params);
    if (copy->name == NULL || copy->params == NULL) {
        opencl_signature_free(copy);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    }
    for (size_t i = 0; i < source->param_count; ++i) {
        kiln_backend_param *param = &copy->params[i];
        *param = source->params[i];
        param->name = text_copy(source->params[i].name);
        param->type_name = text_copy(source->params[i].type_name);
        copy->param_count = i + 1;
        if (param->name == NULL || param->type_name == NULL) {
            opencl_signature_free(copy);
            return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                      "opencl: out of host memory");
        }
    }
    return KILN_OK;
}

/* A malloc'ed kernel or argument info string; *error set on failure. */
static char *kernel_text(cl_kernel kernel, cl_int index, cl_uint param,
                         cl_int *error)
{
    size_t size = 0;
    *error = index < 0
                 ? clGetKernelInfo(kernel, param, 0, NULL, &size)
                 : clGetKernelArgInfo(kernel, (cl_uint)index, param, 0, NULL,
                                      &size);
    if (*error != CL_SUCCESS)
        return NULL;
    char *text = calloc(size + 1, 1);
    if (text == NULL) {
        *error = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    *error = index < 0 ? clGetKernelInfo(kernel, param, size, text, NULL)
                       : clGetKernelArgInfo(kernel, (cl_uint)index, param,
                                            size, text, NULL);
    if (*error != CL_SUCCESS) {
        free(text);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

char *opencl_kernel_name(cl_kernel kernel)
{
    cl_int error = CL_SUCCESS;
    return kernel_text(kernel, -1, CL_KERNEL_FUNCTION_NAME, &error);
}

char *opencl_kernel_names(cl_program program, const char *separator,
                          cl_int *error)
{
    cl_uint count = 0;
    *error = clCreateKernelsInProgram(program, 0, NULL, &count);
    if (*error != CL_SUCCESS)
        return NULL;
    cl_kernel *kernels = calloc(count ? count : 1, sizeof *kernels);
    if (kernels == NULL) {
        *error = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    if (count > 0 &&
        (*error = clCreateKernelsInProgram(program, count, kernels, &count)) !=
            CL_SUCCESS) {
        free(kernels);
        return NULL;
    }
    char *text = calloc(1, 1);
    size_t used = 0;
    for (cl_uint i = 0; i < count; ++i) {
        /* a kernel the driver has no name for is left out */
        char *name = text != NULL ? opencl_kernel_name(kernels[i]) : NULL;
        if (name != NULL) {
            char *grown =
                realloc(text, used + strlen(name) + strlen(separator) + 1);
            if (grown == NULL) {
                free(text);
                text = NULL;
            } else {
                text = grown;
                used += (size_t)sprintf(text + used, "%s%s",
                                        used ? separator : "", name);
            }
        }
        free(name);
        clReleaseKernel(kernels[i]);
    }
    free(kernels);
    if (text == NULL)
        *error = CL_OUT_OF_HOST_MEMORY;
    return text;
}

kiln_status opencl_signature_query(cl_kernel kernel, cl_uint address_bits,
                                   opencl_signature *signature)
{
    memset(signature, 0, sizeof *signature);
    cl_int error = CL_SUCCESS;
    signature->name = kernel_text(kernel, -1, CL_KERNEL_FUNCTION_NAME, &error);
    if (signature->name == NULL)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)");
    cl_uint count = 0;
    error = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count,
                            NULL);
    if (error != CL_SUCCESS) {
        opencl_signature_free(signature);
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clGetKernelInfo(CL_KERNEL_NUM_ARGS)");
    }
    signature->params = calloc(count ? count : 1, sizeof *signature->params);
    if (signature->params == NULL) {
        opencl_signature_free(signature);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    }
    for (cl_uint i = 0; i < count; ++i) {
        kiln_backend_param *param = &signature->params[i];
        signature->param_count = i + 1;
        cl_kernel_arg_address_qualifier address = 0;
        error = clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                   sizeof address, &address, NULL);
        char *type = NULL, *name = NULL;
        if (error == CL_SUCCESS)
            type = kernel_text(kernel, (cl_int)i, CL_KERNEL_ARG_TYPE_NAME,
                               &error);
        if (error == CL_SUCCESS)
            name = kernel_text(kernel, (cl_int)i, CL_KERNEL_ARG_NAME, &error);
        param->type_name = type;
        param->name = name;
        if (error == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) {
            kiln_status status = opencl_host->error(
                KILN_ERR_UNSUPPORTED,
                "kernel '%s': the driver gives no argument info "
                "(clGetKernelArgInfo: CL_KERNEL_ARG_INFO_NOT_AVAILABLE), so "
                "launches of it cannot be checked.  NVIDIA's OpenCL fails to "
                "build a program with -cl-kernel-arg-info when one of its "
                "kernels has no parameters, and Kiln built this one without "
                "it: give that kernel a parameter, or build it in a program "
                "of its own",
                signature->name);
            opencl_signature_free(signature);
            return status;
        }
        if (error != CL_SUCCESS) {
            kiln_status status = opencl_fail(
                error, KILN_ERR_BACKEND,
                "clGetKernelArgInfo(kernel '%s', argument %u)",
                signature->name, (unsigned)i);
            opencl_signature_free(signature);
            return status;
        }
        /* An image is a __global object too; passing it a buffer fails at
         * clSetKernelArg with a named error, as it should. */
        switch (address) {
        case CL_KERNEL_ARG_ADDRESS_GLOBAL:
        case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        case CL_KERNEL_ARG_ADDRESS_LOCAL: {
            /* a pointer: the pointee's type ("float*" -> "float") */
            char pointee[64];
            size_t length = strcspn(type, "*");
            if (length >= sizeof pointee)
                length = 0;
            memcpy(pointee, type, length);
            pointee[length] = '\0';
            opencl_type_describe(pointee, address_bits, param);
            param->kind = address == CL_KERNEL_ARG_ADDRESS_LOCAL
                              ? KILN_PARAM_LOCAL
                              : KILN_PARAM_BUFFER;
            param->space = address == CL_KERNEL_ARG_ADDRESS_LOCAL
                               ? KILN_BACKEND_SPACE_LOCAL
                           : address == CL_KERNEL_ARG_ADDRESS_CONSTANT
                               ? KILN_BACKEND_SPACE_CONSTANT
                               : KILN_BACKEND_SPACE_GLOBAL;
            param->size = address_bits / 8;
            break;
        }
        default:
            opencl_type_describe(type, address_bits, param);
            param->kind = KILN_PARAM_VALUE;
            param->space = KILN_BACKEND_SPACE_PRIVATE;
            break;
        }
    }
    signature->params_known = 1;
    return KILN_OK;
}

/* ---- sizes the driver does not report ------------------------------------ */

#define PROBE_KERNEL "__kiln_param_sizes"

/* The distinct type names of value parameters without a size, in order,
 * into types[] (room for every parameter); their count. */
static size_t unsized_types(const opencl_signature *kernels,
                            size_t kernel_count, const char **types)
{
    size_t count = 0;
    for (size_t k = 0; k < kernel_count; ++k)
        for (size_t p = 0; p < kernels[k].param_count; ++p) {
            const kiln_backend_param *param = &kernels[k].params[p];
            if (param->kind != KILN_PARAM_VALUE || param->size != 0 ||
                param->type_name == NULL || param->type_name[0] == '\0')
                continue;
            size_t seen = 0;
            while (seen < count && strcmp(types[seen], param->type_name) != 0)
                ++seen;
            if (seen == count)
                types[count++] = param->type_name;
        }
    return count;
}

/* The probe kernel's text: sizeof each type into its slot (malloc'ed). */
static char *probe_source(const char *const *types, size_t count)
{
    size_t length = 128;
    for (size_t t = 0; t < count; ++t)
        length += strlen(types[t]) + 48;
    char *text = malloc(length);
    if (text == NULL)
        return NULL;
    size_t used = (size_t)snprintf(text, length,
                                   "\n__kernel void " PROBE_KERNEL
                                   "(__global ulong *kiln_sizes)\n{\n");
    for (size_t t = 0; t < count; ++t)
        used += (size_t)snprintf(text + used, length - used,
                                 "    kiln_sizes[%zu] = sizeof(%s);\n", t,
                                 types[t]);
    snprintf(text + used, length - used, "}\n");
    return text;
}

/* Builds and runs the probe; sizes[] filled on KILN_OK.  A probe the
 * compiler refuses (a type name the driver reports but the language
 * cannot spell) is KILN_ERR_UNSUPPORTED, traced, with no error set. */
static kiln_status run_probe(kiln_backend_context *context, cl_uint count,
                             const char *const *texts, const size_t *lengths,
                             const char *probe, const char *options,
                             size_t type_count, cl_ulong *sizes)
{
    const char **all = calloc(count + 1, sizeof *all);
    size_t *all_lengths = calloc(count + 1, sizeof *all_lengths);
    if (all == NULL || all_lengths == NULL) {
        free(all);
        free(all_lengths);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    }
    for (cl_uint i = 0; i < count; ++i) {
        all[i] = texts[i];
        all_lengths[i] = lengths[i];
    }
    all[count] = probe;
    all_lengths[count] = strlen(probe);
    cl_int error = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(
        context->context, count + 1, all, all_lengths, &error);
    free(all);
    free(all_lengths);
    if (program == NULL || error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clCreateProgramWithSource (parameter sizes)");
    cl_device_id device = context->device->device;
    kiln_status status = KILN_OK;
    cl_kernel kernel = NULL;
    cl_mem buffer = NULL;
    error = clBuildProgram(program, 1, &device, options, NULL, NULL);
    if (error != CL_SUCCESS) {
        opencl_host->trace("opencl: the probe of parameter sizes does not "
                           "build (%s)",
                           opencl_error_name(error));
        status = KILN_ERR_UNSUPPORTED;
    }
    if (status == KILN_OK) {
        kernel = clCreateKernel(program, PROBE_KERNEL, &error);
        buffer = error == CL_SUCCESS
                     ? clCreateBuffer(context->context, CL_MEM_READ_WRITE,
                                      type_count * sizeof(cl_ulong), NULL,
                                      &error)
                     : NULL;
        if (error == CL_SUCCESS)
            error = clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
        size_t one = 1;
        cl_command_queue queue = context->default_stream.queue;
        if (error == CL_SUCCESS)
            error = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one,
                                           0, NULL, NULL);
        if (error == CL_SUCCESS)
            error = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0,
                                        type_count * sizeof(cl_ulong), sizes,
                                        0, NULL, NULL);
        if (error != CL_SUCCESS)
            status = opencl_fail(error, KILN_ERR_BACKEND,
                                 "opencl: running the probe of parameter "
                                 "sizes");
    }
    if (buffer != NULL)
        clReleaseMemObject(buffer);
    if (kernel != NULL)
        clReleaseKernel(kernel);
    clReleaseProgram(program);
    return status;
}

kiln_status opencl_signature_probe_sizes(kiln_backend_context *context,
                                         opencl_signature *kernels,
                                         size_t kernel_count, cl_uint count,
                                         const char *const *texts,
                                         const size_t *lengths,
                                         const char *options)
{
    size_t param_total = 0;
    for (size_t k = 0; k < kernel_count; ++k)
        param_total += kernels[k].param_count;
    const char **types = calloc(param_total ? param_total : 1, sizeof *types);
    if (types == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    size_t type_count = unsized_types(kernels, kernel_count, types);
    if (type_count == 0) {
        free(types);
        return KILN_OK;
    }
    cl_ulong *sizes = calloc(type_count, sizeof *sizes);
    char *probe = sizes != NULL ? probe_source(types, type_count) : NULL;
    if (probe == NULL) {
        free(types);
        free(sizes);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    }
    kiln_status status = run_probe(context, count, texts, lengths, probe,
                                   options, type_count, sizes);
    if (status == KILN_ERR_UNSUPPORTED) {
        /* The launch check refuses these parameters, naming them. */
        opencl_host->trace("opencl: value parameters of types such as "
                           "'%s' keep an unknown size",
                           types[0]);
        status = KILN_OK;
    } else if (status == KILN_OK) {
        for (size_t k = 0; k < kernel_count; ++k)
            for (size_t p = 0; p < kernels[k].param_count; ++p) {
                kiln_backend_param *param = &kernels[k].params[p];
                if (param->kind != KILN_PARAM_VALUE || param->size != 0 ||
                    param->type_name == NULL)
                    continue;
                for (size_t t = 0; t < type_count; ++t)
                    if (strcmp(types[t], param->type_name) == 0)
                        param->size = (size_t)sizes[t];
            }
    }
    free(probe);
    free(types);
    free(sizes);
    return status;
}
