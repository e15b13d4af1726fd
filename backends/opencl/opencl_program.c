/*
 * Programs: OpenCL C built by the driver; its binary for the core's kernel
 * cache, and a program made again from that binary and the kernel
 * information the core saved beside it.
 */
#include "opencl_private.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest kernel name the OpenCL backend builds (program_check_names). */
#define OPENCL_MAX_KERNEL_NAME 150

/* The build log of `program` (malloc'ed), or NULL when it says nothing:
 * drivers often leave a lone newline after a clean build. */
static char *program_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                              &size) != CL_SUCCESS ||
        size == 0)
        return NULL;
    char *log = calloc(size + 1, 1);
    if (log == NULL)
        return NULL;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size,
                              log, NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    log[size] = '\0';
    size_t length = strlen(log);
    while (length > 0 && isspace((unsigned char)log[length - 1]))
        log[--length] = '\0';
    if (length == 0) {
        free(log);
        return NULL;
    }
    return log;
}

/* Whether the build log of `program` contains `text`. */
static int log_mentions(cl_program program, cl_device_id device,
                        const char *text)
{
    char *log = program_log(program, device);
    int found = log != NULL && strstr(log, text) != NULL;
    free(log);
    return found;
}

/* ---- build logs that ignore #line ------------------------------------------ */

/* The user's file and line of line `wanted` (1-based) of the text the
 * driver compiled (`parts` concatenated), following its #line directives. */
static int logical_line(const char *const *parts, const size_t *lengths,
                        int part_count, unsigned long wanted, char *file,
                        size_t file_size, unsigned long *line)
{
    unsigned long physical = 1, logical = 1;
    int at_line_start = 1;
    file[0] = '\0';
    for (int part = 0; part < part_count; ++part) {
        const char *p = parts[part], *end = parts[part] + lengths[part];
        while (p < end) {
            if (physical == wanted && at_line_start) {
                *line = logical;
                return file[0] != '\0';
            }
            if (at_line_start) {
                const char *q = p;
                while (q < end && (*q == ' ' || *q == '\t'))
                    ++q;
                if (end - q > 6 && memcmp(q, "#line ", 6) == 0) {
                    char *after = NULL;
                    unsigned long number = strtoul(q + 6, &after, 10);
                    const char *quote = memchr(after, '"', (size_t)(end - after));
                    const char *newline = memchr(q, '\n', (size_t)(end - q));
                    if (number > 0 && quote && (!newline || quote < newline)) {
                        const char *close = memchr(quote + 1, '"',
                                                   (size_t)(end - quote - 1));
                        if (close && (size_t)(close - quote - 1) < file_size) {
                            memcpy(file, quote + 1, (size_t)(close - quote - 1));
                            file[close - quote - 1] = '\0';
                        }
                        /* the line after the directive is `number` */
                        logical = number - 1;
                    }
                }
            }
            at_line_start = *p == '\n';
            if (*p == '\n') {
                ++physical;
                ++logical;
            }
            ++p;
        }
    }
    if (physical == wanted) {
        *line = logical;
        return file[0] != '\0';
    }
    return 0;
}

/* Some drivers (NVIDIA's) ignore #line and report "<kernel>:N:C:" against
 * the text they were given; rewrite those to the user's "file:line:C:". */
static char *map_log_lines(char *log, const char *const *parts,
                           const size_t *lengths, int part_count)
{
    static const char tag[] = "<kernel>:";
    if (log == NULL || strstr(log, tag) == NULL)
        return log;
    size_t capacity = strlen(log) * 2 + 256, used = 0;
    char *out = malloc(capacity);
    if (out == NULL)
        return log;
    for (const char *p = log; *p;) {
        const char *hit = strstr(p, tag);
        size_t plain = hit ? (size_t)(hit - p) : strlen(p);
        char file[512];
        unsigned long line = 0;
        char *after = NULL;
        unsigned long number = hit ? strtoul(hit + sizeof tag - 1, &after, 10)
                                   : 0;
        int mapped = hit && number > 0 && after && *after == ':' &&
                     logical_line(parts, lengths, part_count, number, file,
                                  sizeof file, &line);
        size_t need = plain + (mapped ? strlen(file) + 32 : sizeof tag) + 1;
        if (used + need >= capacity) {
            capacity = (used + need) * 2;
            char *grown = realloc(out, capacity);
            if (grown == NULL) {
                free(out);
                return log;
            }
            out = grown;
        }
        memcpy(out + used, p, plain);
        used += plain;
        if (hit == NULL)
            break;
        if (mapped) {
            used += (size_t)snprintf(out + used, capacity - used, "%s:%lu",
                                     file, line);
            p = after;
        } else {
            memcpy(out + used, tag, sizeof tag - 1);
            used += sizeof tag - 1;
            p = hit + sizeof tag - 1;
        }
    }
    out[used] = '\0';
    free(log);
    return out;
}

/* Reports a failed clBuildProgram; *log gets the compiler's log. */
static kiln_status build_failure(cl_int error, cl_program program,
                                 cl_device_id device, const char *options,
                                 char **log)
{
    *log = program_log(program, device);
    const char *text = *log ? *log : "(the compiler left no log)";
    switch (error) {
    case CL_BUILD_PROGRAM_FAILURE:
        return opencl_host->error(
            KILN_ERR_BUILD, "clBuildProgram: CL_BUILD_PROGRAM_FAILURE\n%s",
            text);
    case CL_INVALID_BUILD_OPTIONS:
        return opencl_host->error(KILN_ERR_BUILD,
                                  "clBuildProgram: CL_INVALID_BUILD_OPTIONS: "
                                  "the OpenCL compiler rejects the options "
                                  "'%s'\n%s",
                                  options, text);
    case CL_COMPILER_NOT_AVAILABLE:
        return opencl_host->error(KILN_ERR_UNSUPPORTED,
                                  "clBuildProgram: CL_COMPILER_NOT_AVAILABLE: "
                                  "this device has no OpenCL C compiler");
    case CL_INVALID_BINARY:
        return opencl_host->error(KILN_ERR_BUILD,
                                  "clBuildProgram: CL_INVALID_BINARY: the "
                                  "binary is not for this device\n%s",
                                  text);
    default:
        return opencl_fail(error, KILN_ERR_BACKEND, "clBuildProgram");
    }
}

static void program_free(kiln_backend_program *program)
{
    for (size_t i = 0; i < program->kernel_count; ++i)
        opencl_signature_free(&program->kernels[i]);
    free(program->kernels);
    free(program->info_kernels);
    if (program->program != NULL)
        clReleaseProgram(program->program);
    free(program);
}

/* Fills program->info, the view of its kernels that program_kernels
 * gives, once the program is complete. */
static kiln_status program_describe(kiln_backend_program *program)
{
    size_t kernel_count = program->kernel_count;
    program->info_kernels = calloc(kernel_count ? kernel_count : 1,
                                   sizeof *program->info_kernels);
    if (program->info_kernels == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    for (size_t k = 0; k < kernel_count; ++k) {
        const opencl_signature *from = &program->kernels[k];
        kiln_backend_kernel_entry *to = &program->info_kernels[k];
        to->name = from->name;
        to->params_known = from->params_known;
        to->param_count = from->param_count;
        to->params = from->params;
        /* The driver checks reqd_work_group_size itself; kernel_create
         * reads it there, after a load as after a build. */
    }
    program->info.struct_size = sizeof program->info;
    program->info.kernel_count = kernel_count;
    program->info.kernels = program->info_kernels;
    return KILN_OK;
}

static char *text_copy(const char *text)
{
    size_t length = strlen(text) + 1;
    char *copy = malloc(length);
    if (copy != NULL)
        memcpy(copy, text, length);
    return copy;
}

/* Takes the kernels of a saved program (the core's copy, checked by its
 * reader) into `program`. */
static kiln_status program_adopt_info(kiln_backend_program *program,
                                      const kiln_backend_program_info *info)
{
    program->kernels = calloc(info->kernel_count ? info->kernel_count : 1,
                              sizeof *program->kernels);
    if (program->kernels == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    for (size_t k = 0; k < info->kernel_count; ++k) {
        const kiln_backend_kernel_entry *from = &info->kernels[k];
        opencl_signature *to = &program->kernels[k];
        program->kernel_count = k + 1;
        to->name = text_copy(from->name);
        to->params_known = from->params_known;
        to->params = calloc(from->param_count ? from->param_count : 1,
                            sizeof *to->params);
        if (to->name == NULL || to->params == NULL)
            return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                      "opencl: out of host memory");
        for (size_t p = 0; p < from->param_count; ++p) {
            kiln_backend_param *param = &to->params[p];
            to->param_count = p + 1;
            *param = from->params[p];
            param->name = text_copy(from->params[p].name);
            param->type_name = text_copy(from->params[p].type_name);
            if (param->name == NULL || param->type_name == NULL)
                return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                          "opencl: out of host memory");
        }
    }
    return KILN_OK;
}

/* Reads every kernel's signature while the driver still has the argument
 * info of the source build. */
static kiln_status program_signatures(kiln_backend_context *context,
                                      kiln_backend_program *program)
{
    cl_uint count = 0;
    cl_int error = clCreateKernelsInProgram(program->program, 0, NULL, &count);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND, "clCreateKernelsInProgram");
    cl_kernel *kernels = calloc(count ? count : 1, sizeof *kernels);
    program->kernels = calloc(count ? count : 1, sizeof *program->kernels);
    if (kernels == NULL || program->kernels == NULL) {
        free(kernels);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    }
    if (count > 0) {
        error = clCreateKernelsInProgram(program->program, count, kernels,
                                         &count);
        if (error != CL_SUCCESS) {
            free(kernels);
            return opencl_fail(error, KILN_ERR_BACKEND,
                               "clCreateKernelsInProgram");
        }
    }
    kiln_status status = KILN_OK;
    for (cl_uint i = 0; i < count; ++i) {
        if (status == KILN_OK) {
            opencl_signature *signature =
                &program->kernels[program->kernel_count];
            status = opencl_signature_query(
                kernels[i], context->device->address_bits, signature);
            if (status == KILN_OK) {
                program->kernel_count++;
            } else if (status == KILN_ERR_UNSUPPORTED) {
                /* Listed without parameters: kernel_create asks the
                 * driver again and gives the reason then. */
                char *name = opencl_kernel_name(kernels[i]);
                opencl_host->trace("opencl: kernel '%s' has no argument "
                                   "info",
                                   name ? name : "?");
                status = KILN_OK;
                if (name != NULL) {
                    signature->name = name;
                    program->kernel_count++;
                }
            }
        }
        clReleaseKernel(kernels[i]);
    }
    free(kernels);
    return status;
}

/* The refusal of a kernel name past the backend's limit.  PoCL builds a
 * program without looking at its kernel names, then names a file after
 * each kernel when it links one (at its first launch, or when the
 * program's binary is read for the cache) and aborts the process when that
 * name is past NAME_MAX (a kernel of 253 characters, PoCL 3.1); NVIDIA's
 * OpenCL compiler (driver 580) corrupted the heap building a kernel of 300
 * characters, and a scan generator's program whose kernels' names reach
 * 184 (174 built).  150 is under both, and over the 127 of a translated
 * CUDA C kernel's name plus the translation's 14-character prefix. */
static kiln_status name_refusal(const char *name, size_t length)
{
    /* The name as the OpenCL C program spells it: a translated CUDA C
     * kernel's carries the translation's prefix. */
    return opencl_host->error(
        KILN_ERR_UNSUPPORTED,
        "kernel '%.40s...' has a name of %zu characters in the OpenCL C "
        "program: the OpenCL backend takes at most %d (PoCL aborts the "
        "process past 252, NVIDIA's compiler corrupted memory from 184); "
        "give it a shorter name",
        name, length, OPENCL_MAX_KERNEL_NAME);
}

/* Names the text declares, before any driver sees them. */
static kiln_status source_check_names(const kiln_backend_source *source)
{
    const char *name = NULL;
    size_t length =
        opencl_longest_kernel_name(source->text, source->length, &name);
    return length > OPENCL_MAX_KERNEL_NAME ? name_refusal(name, length)
                                           : KILN_OK;
}

/* Names as the driver lists them, after the build: those the
 * preprocessor made, which the scan of the text cannot see. */
static kiln_status program_check_names(const kiln_backend_program *program)
{
    for (size_t k = 0; k < program->kernel_count; ++k) {
        const char *name = program->kernels[k].name;
        size_t length = strlen(name);
        if (length > OPENCL_MAX_KERNEL_NAME)
            return name_refusal(name, length);
    }
    return KILN_OK;
}

/* `#line 1 "name"` with the name escaped as a C string literal; "" when
 * it does not fit. */
static void opencl_line_marker(const char *name, char *out, size_t size)
{
    size_t n = 0;
    const char prefix[] = "#line 1 \"";
    if (size < sizeof prefix + 3)
        return;
    memcpy(out, prefix, sizeof prefix - 1);
    n = sizeof prefix - 1;
    for (const char *p = name; *p != '\0'; ++p) {
        if (n + 7 >= size) {
            out[0] = '\0';
            return;
        }
        unsigned char byte = (unsigned char)*p;
        if (byte < 0x20 || byte == 0x7f) {
            /* A raw newline would end the directive mid-name. */
            n += (size_t)snprintf(out + n, size - n, "\\%03o", byte);
            continue;
        }
        if (*p == '"' || *p == '\\')
            out[n++] = '\\';
        out[n++] = *p;
    }
    out[n++] = '"';
    out[n++] = '\n';
    out[n] = '\0';
}

/* Appends `word` to `text` (grown as needed) as one word of an OpenCL
 * option string: quoted with "..." when it holds white space, a quote or a
 * backslash, the way OpenCL compilers split options (PoCL keeps the
 * option's prefix out of the quotes: -D "NAME=a b"). */
static int options_append(char **text, size_t *length, size_t *capacity,
                          const char *prefix, const char *word)
{
    size_t need = *length + 1 + strlen(prefix) + 1 + 2 * strlen(word) + 3;
    if (need > *capacity) {
        size_t grown_size = need * 2;
        char *grown = realloc(*text, grown_size);
        if (grown == NULL)
            return -1;
        *text = grown;
        *capacity = grown_size;
    }
    char *out = *text + *length;
    if (*length > 0)
        *out++ = ' ';
    out += sprintf(out, "%s", prefix);
    if (word[strcspn(word, " \t\r\n\v\f\"'\\")] == '\0') {
        out += sprintf(out, "%s", word);
    } else {
        if (prefix[0] != '\0')
            *out++ = ' ';
        *out++ = '"';
        for (const char *p = word; *p != '\0'; ++p) {
            if (*p == '"' || *p == '\\')
                *out++ = '\\';
            *out++ = *p;
        }
        *out++ = '"';
    }
    *out = '\0';
    *length = (size_t)(out - *text);
    return 0;
}

/* The clBuildProgram option string of `source`'s option lists (the core
 * split the user's string once), then `extra` (NULL: none); malloc'ed,
 * NULL when memory runs out. */
static char *options_text(const kiln_backend_source *source,
                          const char *extra)
{
    size_t length = 0, capacity = 64;
    char *text = malloc(capacity);
    if (text == NULL)
        return NULL;
    text[0] = '\0';
    int failed = 0;
    for (size_t i = 0; !failed && i < source->define_count; ++i) {
        const kiln_backend_define *define = &source->defines[i];
        if (define->value == NULL) {
            failed = options_append(&text, &length, &capacity, "-U",
                                    define->name);
            continue;
        }
        size_t size = strlen(define->name) + strlen(define->value) + 2;
        char *word = malloc(size);
        failed = word == NULL;
        if (word != NULL) {
            snprintf(word, size, "%s=%s", define->name, define->value);
            failed = options_append(&text, &length, &capacity, "-D", word);
        }
        free(word);
    }
    for (size_t i = 0; !failed && i < source->include_dir_count; ++i)
        failed = options_append(&text, &length, &capacity, "-I",
                                source->include_dirs[i]);
    for (size_t i = 0; !failed && i < source->flag_count; ++i)
        failed = options_append(&text, &length, &capacity, "",
                                source->flags[i]);
    if (!failed && extra != NULL)
        failed = options_append(&text, &length, &capacity, "", extra);
    if (failed) {
        free(text);
        return NULL;
    }
    return text;
}

kiln_status opencl_program_build(kiln_backend_context *context,
                                 const kiln_backend_source *source,
                                 kiln_backend_program **program, char **log)
{
    *log = NULL;
    if (source->header_count > 0)
        return opencl_host->error(KILN_ERR_UNSUPPORTED,
                                  "opencl: %s includes %zu header%s by name "
                                  "(%s), which clBuildProgram cannot take",
                                  source->name, source->header_count,
                                  source->header_count == 1 ? "" : "s",
                                  source->headers[0].name);
    kiln_status checked = source_check_names(source);
    if (checked != KILN_OK)
        return checked;
    /* The options the user gave, as the OpenCL compiler reads them, and
     * the same with kernel argument info, which lets the core check
     * launches. */
    char *user_options = options_text(source, NULL);
    char *options = options_text(source, "-cl-kernel-arg-info");
    kiln_backend_program *result = calloc(1, sizeof *result);
    if (result == NULL || options == NULL || user_options == NULL) {
        free(result);
        free(options);
        free(user_options);
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    }

    /* A #line in front makes the compiler's messages name the user's file
     * (or "<kiln program>" for a string) instead of the driver's temporary
     * one (PoCL: ~/.cache/pocl/kcache/tempfile_7Uf8ki.cl). */
    char line_marker[600] = "";
    opencl_line_marker(source->name, line_marker, sizeof line_marker);
    cl_int error = CL_SUCCESS;
    const char *texts[2] = {line_marker, source->text};
    size_t lengths[2] = {strlen(line_marker), source->length};
    result->program = clCreateProgramWithSource(context->context, 2, texts,
                                                lengths, &error);
    kiln_status status = KILN_OK;
    if (result->program == NULL || error != CL_SUCCESS) {
        status = opencl_fail(error, KILN_ERR_BACKEND,
                             "clCreateProgramWithSource(%s)", source->name);
    } else {
        cl_device_id device = context->device->device;
        error = clBuildProgram(result->program, 1, &device, options, NULL,
                               NULL);
        if (error == CL_BUILD_PROGRAM_FAILURE &&
            log_mentions(result->program, device, "ptxas")) {
            /* NVIDIA's OpenCL (driver 580, CUDA 13) emits PTX that its own
             * ptxas rejects for any kernel without parameters when built
             * with -cl-kernel-arg-info.  A source error never gets as far
             * as ptxas, so the program is built once more without the
             * option; its kernels with parameters then have no argument
             * info, which kernel_create reports. */
            cl_int again = clBuildProgram(result->program, 1, &device,
                                          user_options, NULL, NULL);
            opencl_host->trace("opencl: build with -cl-kernel-arg-info "
                               "failed in ptxas; without it: %s",
                               opencl_error_name(again));
            if (again == CL_SUCCESS)
                error = CL_SUCCESS;
        }
        if (error != CL_SUCCESS)
            status = build_failure(error, result->program, device,
                                   user_options, log);
        else
            *log = program_log(result->program, device);
        if (*log != NULL && strstr(*log, "<kernel>:") != NULL) {
            *log = map_log_lines(*log, texts, lengths, 2);
            if (error == CL_BUILD_PROGRAM_FAILURE && *log != NULL)
                opencl_host->error(KILN_ERR_BUILD,
                                   "clBuildProgram: CL_BUILD_PROGRAM_FAILURE"
                                   "\n%s", *log);
        }
    }
    free(options);
    if (status == KILN_OK)
        status = program_signatures(context, result);
    if (status == KILN_OK)
        status = program_check_names(result);
    /* Under the driver's type names, which the program's text spells. */
    if (status == KILN_OK)
        status = opencl_signature_probe_sizes(context, result->kernels,
                                              result->kernel_count, 2, texts,
                                              lengths, user_options);
    free(user_options);
    if (status == KILN_OK)
        status = program_describe(result);
    if (status != KILN_OK) {
        /* A failed build keeps its log for the core; anything later is
         * not the compiler's fault and needs none. */
        if (status != KILN_ERR_BUILD) {
            free(*log);
            *log = NULL;
        }
        program_free(result);
        return status;
    }
    *program = result;
    return KILN_OK;
}

kiln_status opencl_program_image(kiln_backend_context *context,
                                 kiln_backend_program *program, void **data,
                                 size_t *size)
{
    cl_uint count = 0;
    cl_int error = clGetProgramInfo(program->program, CL_PROGRAM_NUM_DEVICES,
                                    sizeof count, &count, NULL);
    if (error != CL_SUCCESS)
        return opencl_fail(error, KILN_ERR_BACKEND,
                           "clGetProgramInfo(CL_PROGRAM_NUM_DEVICES)");
    cl_device_id *devices = calloc(count ? count : 1, sizeof *devices);
    size_t *sizes = calloc(count ? count : 1, sizeof *sizes);
    unsigned char **binaries = calloc(count ? count : 1, sizeof *binaries);
    kiln_status status = KILN_OK;
    if (devices == NULL || sizes == NULL || binaries == NULL)
        status = opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                    "opencl: out of host memory");
    if (status == KILN_OK &&
        (error = clGetProgramInfo(program->program, CL_PROGRAM_DEVICES,
                                  count * sizeof *devices, devices, NULL)) !=
            CL_SUCCESS)
        status = opencl_fail(error, KILN_ERR_BACKEND,
                             "clGetProgramInfo(CL_PROGRAM_DEVICES)");
    if (status == KILN_OK &&
        (error = clGetProgramInfo(program->program, CL_PROGRAM_BINARY_SIZES,
                                  count * sizeof *sizes, sizes, NULL)) !=
            CL_SUCCESS)
        status = opencl_fail(error, KILN_ERR_BACKEND,
                             "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
    cl_uint index = 0;
    while (status == KILN_OK && index < count &&
           devices[index] != context->device->device)
        ++index;
    if (status == KILN_OK && (index == count || sizes[index] == 0))
        status = opencl_host->error(KILN_ERR_UNSUPPORTED,
                                    "opencl: the driver gives no binary of "
                                    "this program for %s",
                                    context->device->info.name);
    /* Entries left NULL are skipped by the driver: only ours is copied. */
    if (status == KILN_OK && (binaries[index] = malloc(sizes[index])) == NULL)
        status = opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                    "opencl: out of host memory for a "
                                    "%zu-byte binary",
                                    sizes[index]);
    if (status == KILN_OK &&
        (error = clGetProgramInfo(program->program, CL_PROGRAM_BINARIES,
                                  count * sizeof *binaries, binaries, NULL)) !=
            CL_SUCCESS)
        status = opencl_fail(error, KILN_ERR_BACKEND,
                             "clGetProgramInfo(CL_PROGRAM_BINARIES)");
    if (status == KILN_OK) {
        /* The caller frees it: taken out of the list freed below. */
        *data = binaries[index];
        *size = sizes[index];
        binaries[index] = NULL;
    }
    if (binaries != NULL)
        for (cl_uint i = 0; i < count; ++i)
            free(binaries[i]);
    free(binaries);
    free(sizes);
    free(devices);
    return status;
}

kiln_status opencl_program_load_image(kiln_backend_context *context,
                                      const void *data, size_t size,
                                      const kiln_backend_program_info *info,
                                      kiln_backend_program **program)
{
    kiln_backend_program *result = calloc(1, sizeof *result);
    if (result == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    kiln_status status = program_adopt_info(result, info);
    /* a binary cached before the limit was lowered holds the same names */
    if (status == KILN_OK)
        status = program_check_names(result);
    if (status != KILN_OK) {
        program_free(result);
        return status;
    }
    const unsigned char *binary = data;
    size_t binary_size = size;
    cl_device_id device = context->device->device;
    cl_int binary_status = CL_SUCCESS, error = CL_SUCCESS;
    result->program =
        clCreateProgramWithBinary(context->context, 1, &device, &binary_size,
                                  &binary, &binary_status, &error);
    if (result->program == NULL || error != CL_SUCCESS ||
        binary_status != CL_SUCCESS) {
        program_free(result);
        return opencl_fail(error != CL_SUCCESS ? error : binary_status,
                           KILN_ERR_INVALID_ARGUMENT,
                           "clCreateProgramWithBinary(%zu bytes)",
                           binary_size);
    }
    error = clBuildProgram(result->program, 1, &device, "", NULL, NULL);
    if (error != CL_SUCCESS) {
        char *log = NULL;
        status = build_failure(error, result->program, device, "", &log);
        free(log);
        program_free(result);
        return status;
    }
    status = program_describe(result);
    if (status != KILN_OK) {
        program_free(result);
        return status;
    }
    *program = result;
    return KILN_OK;
}

void opencl_program_destroy(kiln_backend_context *context,
                            kiln_backend_program *program)
{
    (void)context;
    program_free(program);
}

kiln_status opencl_program_kernels(kiln_backend_context *context,
                                   kiln_backend_program *program,
                                   const kiln_backend_program_info **info)
{
    (void)context;
    *info = &program->info;
    return KILN_OK;
}
