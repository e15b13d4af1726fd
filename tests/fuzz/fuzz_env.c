/*
 * Fuzz target: the environment.  The input is split at NUL bytes into the
 * values of KILN_BACKEND, KILN_DEVICE, KILN_PLUGIN_PATH, KILN_CACHE_MAX_MB,
 * KILN_CACHE and KILN_CACHE_DIR; then everything that reads them runs.
 * KILN_CACHE_DIR is kept under a scratch root (the cache creates it).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
    "KILN_BACKEND", "KILN_DEVICE", "KILN_PLUGIN_PATH",
    "KILN_CACHE_MAX_MB", "KILN_CACHE", "KILN_CACHE_DIR",
};
#define NAME_COUNT (sizeof names / sizeof names[0])

static char scratch_root[64];

static void set_cache_dir(const char *value)
{
    /* Letters, digits and a few separators only, no "..": the fuzzer must
     * not create directories outside its scratch root. */
    char clean[256];
    size_t n = 0;
    for (const char *p = value; *p && n + 1 < sizeof clean; ++p) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '/';
        clean[n++] = ok ? c : '_';
    }
    clean[n] = '\0';
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", scratch_root, clean);
    setenv("KILN_CACHE_DIR", dir, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (scratch_root[0] == '\0') {
        snprintf(scratch_root, sizeof scratch_root, "/tmp/kiln-fuzz-env-%ld",
                 (long)getpid());
    }
    char *copy = malloc(size + 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    const char *field = copy;
    const char *end = copy + size;
    for (size_t i = 0; i < NAME_COUNT; ++i) {
        if (field <= end) {
            if (i == NAME_COUNT - 1)
                set_cache_dir(field);
            else
                setenv(names[i], field, 1);
            field += strlen(field) + 1;
        } else {
            unsetenv(names[i]);
        }
    }

    int device;
    kiln_status status = kiln_env_device(&device);
    if (status == KILN_OK && (device < -1 || device > 65535))
        abort();
    if (status != KILN_OK && kiln_last_error()[0] == '\0')
        abort();
    const char *backend = kiln_env_backend();
    if (backend != NULL) {
        /* With KILN_BACKEND set, choosing only validates the name. */
        const char *chosen = NULL;
        status = kiln_backend_choose(&chosen);
        if (status == KILN_OK && strcmp(chosen, backend) != 0)
            abort();
    }
    kiln_search_list list;
    if (kiln_plugin_search_dirs("opencl", &list)) {
        for (size_t i = 0; i < list.count; ++i)
            if (list.dirs[i].path[0] != '/')
                abort();
        kiln_search_list_free(&list);
    }
    (void)kiln_env_cache_max_bytes();
    kiln_cache_info info;
    if (kiln_cache_get_info(&info) != KILN_OK)
        abort();
    free(copy);
    return 0;
}
