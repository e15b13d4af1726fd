/*
 * The plugin search and the backend registry.
 *
 * A backend is the module kiln-<name> (.la or .so), searched in order in
 * KILN_PLUGIN_PATH, the installed plugin directory, and, when libkiln
 * itself runs from a libtool build tree, that tree's backends/<name>/.
 * KILN_PLUGIN_SYSTEM_PATH, when set, replaces the last two.
 * The first file found is the backend: if it fails to load, that failure
 * is reported (naming the file and the reason) and no other file is tried
 * behind the user's back.  Each backend is loaded at most once per process
 * and its outcome, good or bad, is kept.
 *
 * libltdl is not thread-safe, so every lt_* call happens under
 * registry_lock.
 */
#include "internal.h"

#include <dlfcn.h>
#include <ltdl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef KILN_PLUGIN_DIR
#error "KILN_PLUGIN_DIR must be defined by the build"
#endif

struct kiln_backend_slot {
    const char *name;
    bool attempted;
    kiln_status status;
    const kiln_backend_ops *ops; /* &table once loaded                   */
    /* The plugin's table copied, ops of a newer ABI minor than the
     * plugin's left NULL, so the rest of the core tests for NULL alone and
     * never reads past the end of an older plugin's smaller table. */
    kiln_backend_ops table;
    lt_dlhandle handle;
    int device_count;
    char path[4096];
    char reason[4096];
    char version[256];
};

/* The order is the automatic choice's order. */
static kiln_backend_slot slots[] = {
    {.name = "cuda"},
    {.name = "opencl"},
};
#define SLOT_COUNT (sizeof slots / sizeof slots[0])

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static bool ltdl_ready; /* guarded by registry_lock */

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
    .getenv = kiln_env_get,
};

const kiln_host_api *kiln_host_services(void)
{
    return &host_services;
}

/* ---- the search path ----------------------------------------------------- */


/* The build tree's top directory when libkiln is the libtool-built library
 * in <top>/.libs/; "" otherwise. */
static void build_tree_top(char *top, size_t size)
{
    top[0] = '\0';
    Dl_info info;
    if (dladdr((void *)&kiln_backend_acquire, &info) == 0 ||
        info.dli_fname == NULL)
        return;
    const char *file = info.dli_fname;
    const char *slash = strrchr(file, '/');
    if (slash == NULL)
        return;
    size_t dir_length = (size_t)(slash - file);
    static const char libs[] = "/.libs";
    if (dir_length < sizeof libs - 1 ||
        memcmp(file + dir_length - (sizeof libs - 1), libs, sizeof libs - 1) != 0)
        return;
    size_t top_length = dir_length - (sizeof libs - 1);
    if (top_length == 0 || top_length >= size)
        return;
    memcpy(top, file, top_length);
    top[top_length] = '\0';
}

/* Appends the colon-separated directories of `list`. */
static size_t search_dirs_append(kiln_search_dir *dirs, size_t count,
                                 const char *list, const char *origin)
{
    const char *start = list;
    while (count < KILN_MAX_SEARCH_DIRS - 2) {
        const char *end = strchr(start, ':');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        /* Only absolute directories: a relative one would make the plugin
         * depend on the current directory. */
        if (length > 0 && start[0] != '/')
            kiln_trace("%s: ignoring relative directory '%.*s'", origin,
                       (int)length, start);
        else if (length > 0 && length < sizeof dirs[count].path) {
            memcpy(dirs[count].path, start, length);
            dirs[count].path[length] = '\0';
            dirs[count].origin = origin;
            ++count;
        }
        if (end == NULL)
            break;
        start = end + 1;
    }
    return count;
}

size_t kiln_plugin_search_dirs(const char *backend, kiln_search_dir *dirs)
{
    size_t count = 0;
    const char *plugin_path = kiln_env_plugin_path();
    if (plugin_path != NULL)
        count = search_dirs_append(dirs, count, plugin_path,
                                   "KILN_PLUGIN_PATH");
    const char *system_path = kiln_env_plugin_system_path();
    if (system_path != NULL)
        return search_dirs_append(dirs, count, system_path,
                                  "KILN_PLUGIN_SYSTEM_PATH");
    snprintf(dirs[count].path, sizeof dirs[count].path, "%s", KILN_PLUGIN_DIR);
    dirs[count++].origin = "install dir";
    char top[4096];
    build_tree_top(top, sizeof top);
    if (top[0] != '\0') {
        int written = snprintf(dirs[count].path, sizeof dirs[count].path,
                               "%s/backends/%s", top, backend);
        if (written > 0 && (size_t)written < sizeof dirs[count].path)
            dirs[count++].origin = "build tree";
    }
    return count;
}

static bool is_regular_file(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

/* The plugin file in `dir`: the libtool archive when present (it knows
 * where the real object lives), else the shared object. */
static bool plugin_file_find(const char *dir, const char *backend, char *path,
                             size_t size)
{
    static const char *const extensions[] = {".la", ".so"};
    for (size_t i = 0; i < 2; ++i) {
        int written = snprintf(path, size, "%s/kiln-%s%s", dir, backend,
                               extensions[i]);
        if (written > 0 && (size_t)written < size && is_regular_file(path))
            return true;
    }
    return false;
}

/* libltdl reports most dlopen failures as "file not found"; the real reason
 * (a missing dependency such as libcuda.so.1, a bad ELF header) comes from
 * dlopen itself.  Resolves the shared object behind `path` (a libtool .la
 * names it in dlname=) and asks dlopen why it will not load. */
static void load_failure_reason(const char *path, char *reason, size_t size)
{
    char object[4096];
    snprintf(object, sizeof object, "%s", path);
    size_t length = strlen(path);
    if (length > 3 && strcmp(path + length - 3, ".la") == 0) {
        FILE *archive = fopen(path, "r");
        char line[1024], dlname[512] = "";
        while (archive != NULL && fgets(line, sizeof line, archive) != NULL)
            if (sscanf(line, "dlname='%511[^']'", dlname) == 1)
                break;
        if (archive != NULL)
            fclose(archive);
        const char *slash = strrchr(path, '/');
        int dir_length = slash ? (int)(slash - path) : 1;
        const char *dir = slash ? path : ".";
        /* Uninstalled archives keep the object in .libs/ beside them. */
        snprintf(object, sizeof object, "%.*s/.libs/%s", dir_length, dir,
                 dlname);
        if (dlname[0] != '\0' && !is_regular_file(object))
            snprintf(object, sizeof object, "%.*s/%s", dir_length, dir,
                     dlname);
    }
    void *handle = dlopen(object, RTLD_NOW | RTLD_LOCAL);
    if (handle != NULL) {
        dlclose(handle);
        reason[0] = '\0';
        return;
    }
    const char *why = dlerror();
    snprintf(reason, size, "%s", why ? why : "");
}

/* ---- loading one backend (registry_lock held) --------------------------- */

static void slot_fail(kiln_backend_slot *slot, kiln_status status,
                      const char *format, ...) KILN_PRINTF_LIKE(3, 4);
static void slot_fail(kiln_backend_slot *slot, kiln_status status,
                      const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(slot->reason, sizeof slot->reason, format, args);
    va_end(args);
    slot->status = status;
    kiln_trace("backend %s: %s", slot->name, slot->reason);
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
    REQUIRE(program_serialize)
    REQUIRE(program_load)
    REQUIRE(program_destroy)
    REQUIRE(kernel_create)
    REQUIRE(kernel_destroy)
    REQUIRE(launch)
    REQUIRE(native_handle)
#undef REQUIRE
    return NULL;
}

static void slot_load(kiln_backend_slot *slot)
{
    slot->attempted = true;
    if (!ltdl_ready) {
        if (lt_dlinit() != 0) {
            slot_fail(slot, KILN_ERR_BACKEND_LOAD, "lt_dlinit failed: %s",
                      lt_dlerror());
            return;
        }
        ltdl_ready = true;
    }

    kiln_search_dir dirs[KILN_MAX_SEARCH_DIRS];
    size_t dir_count = kiln_plugin_search_dirs(slot->name, dirs);
    bool found = false;
    for (size_t i = 0; i < dir_count && !found; ++i) {
        kiln_trace("backend %s: looking in %s (%s)", slot->name, dirs[i].path,
                   dirs[i].origin);
        found = plugin_file_find(dirs[i].path, slot->name, slot->path,
                                 sizeof slot->path);
    }
    if (!found) {
        kiln_string searched = {0};
        for (size_t i = 0; i < dir_count; ++i)
            kiln_string_appendf(&searched, "%s%s (%s)", i ? ", " : "",
                                dirs[i].path, dirs[i].origin);
        slot->path[0] = '\0';
        slot_fail(slot, KILN_ERR_BACKEND_NOT_FOUND,
                  "plugin kiln-%s.so not found; searched %s", slot->name,
                  searched.data ? searched.data : "nothing");
        kiln_string_free(&searched);
        return;
    }

    kiln_trace("backend %s: loading %s", slot->name, slot->path);
    lt_dladvise advise;
    if (lt_dladvise_init(&advise) != 0) {
        slot_fail(slot, KILN_ERR_BACKEND_LOAD, "%s: lt_dladvise_init: %s",
                  slot->path, lt_dlerror());
        return;
    }
    /* Local: two plugins must not see each other's symbols.  Resident:
     * vendor libraries do not like being unloaded. */
    lt_dladvise_local(&advise);
    lt_dladvise_resident(&advise);
    slot->handle = lt_dlopenadvise(slot->path, advise);
    lt_dladvise_destroy(&advise);
    if (slot->handle == NULL) {
        const char *ltdl_reason = lt_dlerror();
        char reason[2048];
        load_failure_reason(slot->path, reason, sizeof reason);
        slot_fail(slot, KILN_ERR_BACKEND_LOAD, "cannot load %s: %s",
                  slot->path,
                  reason[0]       ? reason
                  : ltdl_reason ? ltdl_reason
                                  : "unknown reason");
        return;
    }

    kiln_backend_entry_fn entry;
    void *symbol = lt_dlsym(slot->handle, KILN_BACKEND_ENTRY_SYMBOL);
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
    if (ops->struct_size < KILN_BACKEND_OPS_SIZE_1_0) {
        slot_fail(slot, KILN_ERR_BACKEND_ABI,
                  "%s: ops table is %zu bytes, ABI %d.0 needs at least %zu",
                  slot->path, ops->struct_size, KILN_BACKEND_ABI_MAJOR,
                  (size_t)KILN_BACKEND_OPS_SIZE_1_0);
        return;
    }
    if (ops->name == NULL || strcmp(ops->name, slot->name) != 0) {
        slot_fail(slot, KILN_ERR_BACKEND_LOAD,
                  "%s calls itself '%s', expected '%s'", slot->path,
                  ops->name ? ops->name : "(null)", slot->name);
        return;
    }
    const char *missing = ops_first_missing(ops);
    if (missing != NULL) {
        slot_fail(slot, KILN_ERR_BACKEND_ABI, "%s: ops table lacks %s",
                  slot->path, missing);
        return;
    }

    /* Whole ops only: a size that ends inside an op leaves that op out. */
    size_t copied = sizeof slot->table;
    if (ops->struct_size < copied)
        copied = ops->struct_size - (ops->struct_size -
                                     KILN_BACKEND_OPS_SIZE_1_0) %
                                        sizeof(void (*)(void));
    memset(&slot->table, 0, sizeof slot->table);
    memcpy(&slot->table, ops, copied);
    slot->table.struct_size = sizeof slot->table;
    ops = &slot->table;

    kiln_error_clear();
    kiln_status status = ops->initialize(&host_services);
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
    slot->reason[0] = '\0';
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
                          slot->reason);
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
                                                       : slots[i].reason);
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
    info->reason = slot->reason;
    info->path = slot->path;
    info->version = slot->version;
    info->device_count = slot->status == KILN_OK ? slot->device_count : 0;
}
