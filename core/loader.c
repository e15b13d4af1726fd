/*
 * The backend registry: each plugin found (plugin_path.c gives the
 * directories, in order), loaded and checked against the plugin ABI.
 *
 * The first file found is the backend, opened with plain dlopen() as the
 * OpenCL ICD loaders open drivers: if it fails to load, that failure is
 * reported (naming the file and dlerror()'s reason) and no other file is
 * tried behind the user's back.  Each backend is loaded at most once per
 * process and its outcome, good or bad, is kept (registry_lock).
 */
#include "internal.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct kiln_backend_slot {
    const char *name;
    bool attempted;
    kiln_status status;
    const kiln_backend_ops *ops; /* &table once loaded                   */
    /* The plugin's table copied: the ops of this libkiln's minor, which
     * every table of its major has (optional ones may be NULL); a later
     * minor's are not read. */
    kiln_backend_ops table;
    void *handle;
    int device_count;
    char *path;                  /* the file loaded or last tried; NULL: none */
    char *reason;                /* why it is not usable; NULL: it is        */
    char version[256];
};

/* The order is the automatic choice's order. */
static kiln_backend_slot slots[] = {
    {.name = "cuda"},
    {.name = "opencl"},
};
#define SLOT_COUNT (sizeof slots / sizeof slots[0])

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- host services offered to plugins ---------------------------------- */

static kiln_status host_error(kiln_status status, const char *format, ...)
    KILN_PRINTF_LIKE(2, 3);
static kiln_status host_error(kiln_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    kiln_status result = kiln_error_v(status, format, args);
    va_end(args);
    return result;
}

static void host_trace(const char *format, ...) KILN_PRINTF_LIKE(1, 2);
static void host_trace(const char *format, ...)
{
    if (!kiln_trace_enabled())
        return;
    char line[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    kiln_trace("%s", line);
}

static const kiln_host_api host_services = {
    .abi_major = KILN_BACKEND_ABI_MAJOR,
    .abi_minor = KILN_BACKEND_ABI_MINOR,
    .struct_size = sizeof(kiln_host_api),
    .error = host_error,
    .trace = host_trace,
    .setting = kiln_env_setting,
};

static bool is_regular_file(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

/* ---- loading one backend (registry_lock held) --------------------------- */

static const char *slot_reason(const kiln_backend_slot *slot)
{
    if (slot->status == KILN_OK)
        return "";
    return slot->reason ? slot->reason : "out of host memory";
}

static void slot_fail(kiln_backend_slot *slot, kiln_status status,
                      const char *format, ...) KILN_PRINTF_LIKE(3, 4);
static void slot_fail(kiln_backend_slot *slot, kiln_status status,
                      const char *format, ...)
{
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    int length = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    free(slot->reason);
    slot->reason = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (slot->reason != NULL)
        vsnprintf(slot->reason, (size_t)length + 1, format, args);
    va_end(args);
    slot->status = status;
    kiln_trace("backend %s: %s", slot->name, slot_reason(slot));
}

/* A table with a NULL op would crash later; refuse it now. */
static const char *ops_first_missing(const kiln_backend_ops *ops)
{
#define REQUIRE(op)          \
    if (ops->op == NULL)     \
        return #op;
    REQUIRE(initialize)
    REQUIRE(version)
    REQUIRE(device_count)
    REQUIRE(device_info)
    REQUIRE(context_create)
    REQUIRE(context_destroy)
    REQUIRE(context_synchronize)
    REQUIRE(cache_identity)
    REQUIRE(memory_alloc)
    REQUIRE(memory_free)
    REQUIRE(memory_write)
    REQUIRE(memory_read)
    REQUIRE(memory_copy)
    REQUIRE(memory_fill)
    REQUIRE(host_alloc)
    REQUIRE(host_free)
    REQUIRE(stream_create)
    REQUIRE(stream_destroy)
    REQUIRE(stream_synchronize)
    REQUIRE(stream_wait_event)
    REQUIRE(event_create)
    REQUIRE(event_destroy)
    REQUIRE(event_record)
    REQUIRE(event_synchronize)
    REQUIRE(event_query)
    REQUIRE(event_elapsed)
    REQUIRE(program_build)
    REQUIRE(program_destroy)
    REQUIRE(program_kernels)
    REQUIRE(kernel_create)
    REQUIRE(kernel_destroy)
    REQUIRE(launch)
    REQUIRE(native_handle)
#undef REQUIRE
    return NULL;
}

/* Why configure left a backend out (config.h), NULL when it was built:
 * a plugin not found is then no surprise, and the reason is configure's. */
static const char *backend_not_built(const char *name)
{
#ifdef KILN_CUDA_NOT_BUILT
    if (strcmp(name, "cuda") == 0)
        return KILN_CUDA_NOT_BUILT;
#endif
#ifdef KILN_OPENCL_NOT_BUILT
    if (strcmp(name, "opencl") == 0)
        return KILN_OPENCL_NOT_BUILT;
#endif
    (void)name;
    return NULL;
}

/* The first kiln-<name>.so in the search list, as slot->path. */
static kiln_status slot_find_file(kiln_backend_slot *slot)
{
    kiln_search_list list;
    if (!kiln_plugin_search_dirs(slot->name, &list))
        return KILN_ERR_OUT_OF_HOST_MEMORY;
    for (size_t i = 0; i < list.count; ++i) {
        kiln_trace("backend %s: looking in %s (%s)", slot->name,
                   list.dirs[i].path, list.dirs[i].origin);
        kiln_string path = {0};
        if (!kiln_string_appendf(&path, "%s/kiln-%s.so", list.dirs[i].path,
                                 slot->name)) {
            kiln_search_list_free(&list);
            return KILN_ERR_OUT_OF_HOST_MEMORY;
        }
        if (is_regular_file(path.data)) {
            slot->path = path.data;
            kiln_search_list_free(&list);
            return KILN_OK;
        }
        kiln_string_free(&path);
    }
    kiln_string searched = {0};
    for (size_t i = 0; i < list.count; ++i)
        kiln_string_appendf(&searched, "%s%s (%s)", i ? ", " : "",
                            list.dirs[i].path, list.dirs[i].origin);
    const char *why_not_built = backend_not_built(slot->name);
    if (why_not_built != NULL)
        slot_fail(slot, KILN_ERR_BACKEND_NOT_FOUND,
                  "not built: this Kiln was configured without the %s "
                  "backend (%s); no kiln-%s.so found either, searched %s%s%s",
                  slot->name, why_not_built, slot->name,
                  searched.data ? searched.data : "nothing",
                  list.ignored ? "; ignored " : "",
                  list.ignored ? list.ignored : "");
    else
        slot_fail(slot, KILN_ERR_BACKEND_NOT_FOUND,
                  "plugin kiln-%s.so not found; searched %s%s%s", slot->name,
                  searched.data ? searched.data : "nothing",
                  list.ignored ? "; ignored " : "",
                  list.ignored ? list.ignored : "");
    kiln_string_free(&searched);
    kiln_search_list_free(&list);
    return KILN_ERR_BACKEND_NOT_FOUND;
}

/* Stops dl_iterate_phdr at the first object: the program itself. */
static int program_has_interpreter(struct dl_phdr_info *info, size_t size,
                                   void *result)
{
    (void)size;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_INTERP)
            *(bool *)result = true;
    return 1;
}

/* A program linked with -static (or -static-pie) has no dynamic loader:
 * its own copy of the C library cannot host a plugin that needs the shared
 * one (every vendor library does), and dlopen() then crashes inside the
 * driver instead of failing.  A program run through ld.so by hand still has
 * the interpreter in its headers, so it is not mistaken for one. */
static bool program_is_static(void)
{
    bool dynamic = false;
    dl_iterate_phdr(program_has_interpreter, &dynamic);
    return !dynamic;
}

static void slot_load(kiln_backend_slot *slot)
{
    slot->attempted = true;
    kiln_status status = slot_find_file(slot);
    if (status == KILN_ERR_OUT_OF_HOST_MEMORY)
        slot_fail(slot, status, "out of host memory searching for the plugin");
    if (status != KILN_OK)
        return;

    if (program_is_static()) {
        slot_fail(slot, KILN_ERR_BACKEND_LOAD,
                  "cannot load %s: this program is linked statically "
                  "(-static), and a static program cannot load shared "
                  "libraries such as Kiln's plugins and the drivers they "
                  "open; link libkiln statically and the C library "
                  "dynamically (README: linking statically)",
                  slot->path);
        return;
    }
    kiln_trace("backend %s: loading %s", slot->name, slot->path);
    /* Local: two plugins must not see each other's symbols.  No delete:
     * vendor libraries do not like being unloaded. */
    slot->handle = dlopen(slot->path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (slot->handle == NULL) {
        const char *reason = dlerror();
        slot_fail(slot, KILN_ERR_BACKEND_LOAD, "cannot load %s: %s",
                  slot->path, reason ? reason : "unknown reason");
        return;
    }

    kiln_backend_entry_fn entry;
    void *symbol = dlsym(slot->handle, KILN_BACKEND_ENTRY_SYMBOL);
    if (symbol == NULL) {
        slot_fail(slot, KILN_ERR_BACKEND_LOAD,
                  "%s is not a Kiln plugin: no symbol %s", slot->path,
                  KILN_BACKEND_ENTRY_SYMBOL);
        return;
    }
    /* POSIX guarantees data and function pointers convert via dlsym. */
    memcpy(&entry, &symbol, sizeof entry);
    const kiln_backend_ops *ops = entry();
    if (ops == NULL) {
        slot_fail(slot, KILN_ERR_BACKEND_LOAD, "%s: %s() returned NULL",
                  slot->path, KILN_BACKEND_ENTRY_SYMBOL);
        return;
    }
    if (ops->abi_major != KILN_BACKEND_ABI_MAJOR) {
        slot_fail(slot, KILN_ERR_BACKEND_ABI,
                  "%s was built for plugin ABI %u.%u; this libkiln %s needs "
                  "ABI %d.x: rebuild the plugin",
                  slot->path, (unsigned)ops->abi_major,
                  (unsigned)ops->abi_minor, PACKAGE_VERSION,
                  KILN_BACKEND_ABI_MAJOR);
        return;
    }
    if (ops->struct_size < KILN_BACKEND_OPS_SIZE_3_0) {
        slot_fail(slot, KILN_ERR_BACKEND_ABI,
                  "%s: ops table is %zu bytes, ABI %d.0 needs at least %zu",
                  slot->path, ops->struct_size, KILN_BACKEND_ABI_MAJOR,
                  (size_t)KILN_BACKEND_OPS_SIZE_3_0);
        return;
    }
    if (ops->name == NULL || strcmp(ops->name, slot->name) != 0) {
        slot_fail(slot, KILN_ERR_BACKEND_LOAD,
                  "%s calls itself '%s', expected '%s'", slot->path,
                  ops->name ? ops->name : "(null)", slot->name);
        return;
    }
    if (ops->native_language != KILN_LANGUAGE_OPENCL_C &&
        ops->native_language != KILN_LANGUAGE_CUDA_C) {
        slot_fail(slot, KILN_ERR_BACKEND_ABI,
                  "%s builds an unknown kernel language (%d)", slot->path,
                  (int)ops->native_language);
        return;
    }
    const char *missing = ops_first_missing(ops);
    if (missing != NULL) {
        slot_fail(slot, KILN_ERR_BACKEND_ABI, "%s: ops table lacks %s",
                  slot->path, missing);
        return;
    }

    /* The ops this libkiln knows; a plugin of a later minor may have
     * more, and every table of this major has these. */
    memcpy(&slot->table, ops, sizeof slot->table);
    slot->table.struct_size = sizeof slot->table;
    ops = &slot->table;

    kiln_error_clear();
    kiln_env_settings_capture(ops->settings);
    status = ops->initialize(&host_services);
    kiln_env_settings_check(ops->settings, slot->name);
    if (status != KILN_OK) {
        slot_fail(slot, KILN_ERR_BACKEND_UNAVAILABLE, "%s", kiln_last_error());
        return;
    }
    int count = 0;
    status = ops->device_count(&count);
    if (status != KILN_OK) {
        slot_fail(slot, KILN_ERR_BACKEND_UNAVAILABLE, "%s", kiln_last_error());
        return;
    }
    const char *version = ops->version();
    snprintf(slot->version, sizeof slot->version, "%s", version ? version : "");
    slot->ops = ops;
    slot->device_count = count;
    slot->status = KILN_OK;
    free(slot->reason);
    slot->reason = NULL;
    kiln_trace("backend %s: loaded %s (%s), %d device(s)", slot->name,
               slot->path, slot->version, count);
}

/* ---- registry ------------------------------------------------------------ */

static kiln_backend_slot *slot_find(const char *name)
{
    for (size_t i = 0; i < SLOT_COUNT; ++i)
        if (strcmp(slots[i].name, name) == 0)
            return &slots[i];
    return NULL;
}

static void slot_ensure_loaded(kiln_backend_slot *slot)
{
    pthread_mutex_lock(&registry_lock);
    if (!slot->attempted)
        slot_load(slot);
    pthread_mutex_unlock(&registry_lock);
}

static kiln_status unknown_backend(const char *name, const char *where)
{
    kiln_string known = {0};
    for (size_t i = 0; i < SLOT_COUNT; ++i)
        kiln_string_appendf(&known, "%s%s", i ? ", " : "", slots[i].name);
    kiln_status status =
        kiln_error(KILN_ERR_BACKEND_UNKNOWN,
                   "unknown backend '%.64s'%s; known backends: %s", name, where,
                   known.data ? known.data : "");
    kiln_string_free(&known);
    return status;
}

kiln_status kiln_backend_acquire(const char *name, const kiln_backend_ops **ops)
{
    kiln_backend_slot *slot = slot_find(name);
    if (slot == NULL)
        return unknown_backend(name, "");
    slot_ensure_loaded(slot);
    /* After loading the slot is read-only, so no lock is needed here. */
    if (slot->status != KILN_OK)
        return kiln_error(slot->status, "backend %s: %s", slot->name,
                          slot_reason(slot));
    *ops = slot->ops;
    return KILN_OK;
}

kiln_status kiln_backend_choose(const char **name)
{
    const char *wanted = kiln_env_backend();
    if (wanted != NULL) {
        kiln_backend_slot *slot = slot_find(wanted);
        if (slot == NULL)
            return unknown_backend(wanted, " in KILN_BACKEND");
        *name = slot->name;
        return KILN_OK;
    }
    kiln_string reasons = {0};
    for (size_t i = 0; i < SLOT_COUNT; ++i) {
        slot_ensure_loaded(&slots[i]);
        if (slots[i].status == KILN_OK && slots[i].device_count > 0) {
            kiln_string_free(&reasons);
            kiln_error_clear(); /* an earlier candidate's failure is moot */
            kiln_trace("automatic choice: %s", slots[i].name);
            *name = slots[i].name;
            return KILN_OK;
        }
        kiln_string_appendf(&reasons, "\n  %s: %s", slots[i].name,
                            slots[i].status == KILN_OK ? "no device"
                                                       : slot_reason(&slots[i]));
    }
    kiln_status status = kiln_error(KILN_ERR_BACKEND_UNAVAILABLE,
                                    "no usable backend:%s",
                                    reasons.data ? reasons.data : "");
    kiln_string_free(&reasons);
    return status;
}

size_t kiln_backend_known_count(void)
{
    return SLOT_COUNT;
}

const char *kiln_backend_known_name(size_t index)
{
    return index < SLOT_COUNT ? slots[index].name : NULL;
}

void kiln_backend_describe(size_t index, kiln_backend_info *info)
{
    kiln_backend_slot *slot = &slots[index];
    slot_ensure_loaded(slot);
    info->name = slot->name;
    info->status = slot->status;
    info->reason = slot_reason(slot);
    info->path = slot->path ? slot->path : "";
    info->version = slot->version;
    info->device_count = slot->status == KILN_OK ? slot->device_count : 0;
}
