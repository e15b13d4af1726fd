/*
 * assert in CUDA C translated to OpenCL C: the translation gives such a
 * program a variable TRANSLATE_ASSERT_VARIABLE (translate.h) in which the
 * first thread whose assert fails records the site (file, line,
 * condition), its block and its thread, and passes it to each kernel that
 * may assert.  A launch of such a kernel waits for it and reads the
 * variable: a failure is KILN_ERR_KERNEL_FAULT naming them, as CUDA
 * reports cudaErrorAssert, here from the launch itself.  Kernels that do
 * not assert (and programs built with NDEBUG) launch asynchronously as
 * before; on the CUDA plugin the driver reports native asserts
 * (CUDA_ERROR_ASSERT) at the next synchronising call.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The assert variable among the kernel's hidden arguments, or NULL. */
static kiln_backend_memory *assert_memory(const kiln_kernel *kernel)
{
    const kiln_built_program *built = kernel->built;
    for (size_t h = 0; h < kernel->hidden_count; ++h) {
        const kiln_hidden_arg *hidden = &kernel->hidden[h];
        if (hidden->kind != KILN_HIDDEN_VARIABLE ||
            hidden->variable >= built->description.variable_count)
            continue;
        if (strcmp(built->description.variables[hidden->variable].name,
                   TRANSLATE_ASSERT_VARIABLE) == 0 &&
            built->variables[hidden->variable].size >= TRANSLATE_ASSERT_BYTES)
            return built->variables[hidden->variable].memory;
    }
    return NULL;
}

kiln_status kiln_launch_check_assert(kiln_kernel *kernel,
                                     kiln_backend_stream *stream)
{
    if (kernel->hidden_count == 0)
        return KILN_OK;
    kiln_backend_memory *memory = assert_memory(kernel);
    if (memory == NULL)
        return KILN_OK;
    kiln_context *context = kernel->program->context;
    uint32_t state[TRANSLATE_ASSERT_BYTES / sizeof(uint32_t)];
    kiln_status status = context->ops->memory_read(
        context->backend, stream, memory, 0, state, sizeof state, 1);
    if (status != KILN_OK || state[0] == 0)
        return status;
    char site[TRANSLATE_ASSERT_BYTES - 32 + 1];
    memcpy(site, (const char *)state + 32, sizeof site - 1);
    site[sizeof site - 1] = '\0';
    /* the next launch starts clean */
    static const uint32_t zero = 0;
    context->ops->memory_write(context->backend, stream, memory, 0, &zero,
                               sizeof zero, 1);
    return kiln_error(KILN_ERR_KERNEL_FAULT,
                      "kernel '%s': device-side assert failed: %s (block "
                      "[%u,%u,%u], thread [%u,%u,%u]; the kernel ran to its "
                      "end, as OpenCL cannot stop it: do not use its results)",
                      kernel->name, site, (unsigned)state[1],
                      (unsigned)state[2], (unsigned)state[3],
                      (unsigned)state[4], (unsigned)state[5],
                      (unsigned)state[6]);
}
