/*
 * Built programs: what a backend compiled or loaded, with the core's
 * description of its kernels and the buffers of its variables, shared by
 * every kiln_program of the same cache key in a context (core/
 * cache_memory.c keeps one reference), with the backend kernels of
 * released kiln_kernels kept for the next kiln_kernel_create of their
 * name.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

kiln_status kiln_built_program_create(kiln_context *context,
                                     kiln_backend_program *backend,
                                     kiln_program_description *description,
                                     kiln_built_program **built)
{
    kiln_built_program *result = calloc(1, sizeof *result);
    if (result == NULL) {
        context->ops->program_destroy(context->backend, backend);
        kiln_description_free(description);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    atomic_init(&result->references, 1);
    result->backend = backend;
    result->description = *description;
    memset(description, 0, sizeof *description);
    pthread_mutex_init(&result->spare_lock, NULL);
    kiln_status status = kiln_program_variables_create(context, result);
    if (status != KILN_OK) {
        kiln_built_program_release(context, result);
        return status;
    }
    *built = result;
    return KILN_OK;
}

kiln_spare_kernel *kiln_built_program_take_spare(kiln_built_program *built,
                                                 const char *name)
{
    pthread_mutex_lock(&built->spare_lock);
    kiln_spare_kernel **link = &built->spares;
    while (*link != NULL && strcmp((*link)->name, name) != 0)
        link = &(*link)->next;
    kiln_spare_kernel *spare = *link;
    if (spare != NULL) {
        *link = spare->next;
        built->spare_count--;
    }
    pthread_mutex_unlock(&built->spare_lock);
    return spare;
}

bool kiln_built_program_keep_spare(kiln_built_program *built, char *name,
                                   kiln_backend_kernel *backend,
                                   const kiln_backend_kernel_info *info,
                                   kiln_backend_param *params,
                                   bool bounds_report)
{
    kiln_spare_kernel *spare = malloc(sizeof *spare);
    if (spare == NULL)
        return false;
    pthread_mutex_lock(&built->spare_lock);
    bool kept = built->spare_count < KILN_SPARE_KERNELS;
    if (kept) {
        spare->name = name;
        spare->backend = backend;
        spare->info = *info;
        spare->params = params;
        spare->bounds_report = bounds_report;
        spare->next = built->spares;
        built->spares = spare;
        built->spare_count++;
    }
    pthread_mutex_unlock(&built->spare_lock);
    if (!kept)
        free(spare);
    return kept;
}

void kiln_built_program_retain(kiln_built_program *built)
{
    atomic_fetch_add_explicit(&built->references, 1, memory_order_relaxed);
}

void kiln_built_program_release(kiln_context *context,
                                kiln_built_program *built)
{
    if (!kiln_reference_drop(&built->references))
        return;
    for (kiln_spare_kernel *spare = built->spares; spare != NULL;) {
        kiln_spare_kernel *next = spare->next;
        context->ops->kernel_destroy(context->backend, spare->backend);
        free(spare->name);
        free(spare->params);
        free(spare);
        spare = next;
    }
    pthread_mutex_destroy(&built->spare_lock);
    kiln_program_variables_free(context, built);
    context->ops->program_destroy(context->backend, built->backend);
    kiln_description_free(&built->description);
    free(built);
}
