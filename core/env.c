/*
 * The environment: every KILN_* variable is read in this file, always with
 * secure_getenv, so a setuid program never takes paths from its caller.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env_get(const char *name)
{
#ifdef HAVE_SECURE_GETENV
    const char *value = secure_getenv(name);
#else
    /* Without secure_getenv, the same rule by hand: a process running
     * with other ids than its caller's reads no environment. */
    if (getuid() != geteuid() || getgid() != getegid())
        return NULL;
    const char *value = getenv(name);
#endif
    return value;
}

/* NULL for unset and for set-but-empty, which mean the same here. */
static const char *env_nonempty(const char *name)
{
    const char *value = env_get(name);
    return value != NULL && value[0] != '\0' ? value : NULL;
}

bool kiln_parse_uint(const char *text, uint64_t max, uint64_t *value)
{
    if (text == NULL || *text < '0' || *text > '9')
        return false;
    uint64_t result = 0;
    for (const char *p = text; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned digit = (unsigned)(*p - '0');
        if (result > (max - digit) / 10)
            return false;
        result = result * 10 + digit;
    }
    *value = result;
    return true;
}

const char *kiln_env_backend(void) { return env_nonempty("KILN_BACKEND"); }
const char *kiln_env_plugin_path(void) { return env_nonempty("KILN_PLUGIN_PATH"); }

/* Unset: NULL (use the defaults).  Set, even empty: replaces them. */
const char *kiln_env_plugin_system_path(void)
{
    return env_get("KILN_PLUGIN_SYSTEM_PATH");
}
const char *kiln_env_log(void) { return env_nonempty("KILN_LOG"); }
const char *kiln_env_cache_dir(void) { return env_nonempty("KILN_CACHE_DIR"); }

kiln_status kiln_env_device(int *device)
{
    const char *text = env_nonempty("KILN_DEVICE");
    if (text == NULL) {
        *device = -1;
        return KILN_OK;
    }
    uint64_t value;
    if (!kiln_parse_uint(text, 65535, &value))
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "KILN_DEVICE='%.64s' is not a device index (a whole "
                          "number from 0)",
                          text);
    *device = (int)value;
    return KILN_OK;
}

/* "0", "no", "off", "false" turn a switch off; anything else leaves it on. */
static bool env_switch(const char *name)
{
    const char *text = env_nonempty(name);
    if (text == NULL)
        return true;
    return !(strcmp(text, "0") == 0 || strcmp(text, "no") == 0 ||
             strcmp(text, "off") == 0 || strcmp(text, "false") == 0);
}

bool kiln_env_cache_enabled(void) { return env_switch("KILN_CACHE"); }

unsigned kiln_env_checks(void)
{
    const char *text = env_nonempty("KILN_CHECK");
    if (text == NULL)
        return 0;
    /* Comma-separated words; "bounds" is the one check there is. */
    unsigned checks = 0;
    const char *word = text;
    while (*word != '\0') {
        size_t length = strcspn(word, ",");
        if (length == 6 && strncmp(word, "bounds", 6) == 0)
            checks |= KILN_CHECK_BOUNDS;
        else if (length > 0)
            kiln_trace("ignoring '%.*s' in KILN_CHECK='%.64s' (known: bounds)",
                       (int)(length > 64 ? 64 : length), word, text);
        word += length;
        if (*word == ',')
            ++word;
    }
    return checks;
}
bool kiln_env_pool_enabled(void) { return env_switch("KILN_POOL"); }

/* 1 GiB by default: a few hundred real programs' binaries. */
#define DEFAULT_CACHE_MAX_MB 1024

uint64_t kiln_env_cache_max_bytes(void)
{
    const char *text = env_nonempty("KILN_CACHE_MAX_MB");
    uint64_t megabytes = DEFAULT_CACHE_MAX_MB;
    if (text != NULL && !kiln_parse_uint(text, UINT64_MAX >> 20, &megabytes)) {
        kiln_trace("ignoring KILN_CACHE_MAX_MB='%.64s': not a whole number",
                   text);
        megabytes = DEFAULT_CACHE_MAX_MB;
    }
    return megabytes << 20;
}

/* ---- the plugins' settings ------------------------------------------------ */

/* Every setting a plugin named, read once, before any plugin that names it
 * starts, and kept for the life of the process: the environment may change
 * later (an ICD loader cuts OCL_ICD_FILENAMES in place when it starts). */
#define SETTINGS_MAX 64

typedef struct setting {
    char *name;
    char *value;                /* NULL: unset                            */
} setting;

static pthread_mutex_t settings_lock = PTHREAD_MUTEX_INITIALIZER;
static setting settings[SETTINGS_MAX];
static size_t setting_count;

/* The setting named `name` (settings_lock held), or NULL. */
static setting *setting_find(const char *name)
{
    for (size_t i = 0; i < setting_count; ++i)
        if (strcmp(settings[i].name, name) == 0)
            return &settings[i];
    return NULL;
}

void kiln_env_settings_capture(const char *const *names)
{
    pthread_mutex_lock(&settings_lock);
    for (size_t i = 0; names != NULL && names[i] != NULL; ++i) {
        if (setting_find(names[i]) != NULL)
            continue;
        if (setting_count == SETTINGS_MAX) {
            kiln_trace("more than %d plugin settings: %s is not read",
                       SETTINGS_MAX, names[i]);
            continue;
        }
        char *name = kiln_strdup(names[i]);
        const char *value = env_nonempty(names[i]);
        char *copy = value != NULL ? kiln_strdup(value) : NULL;
        if (name == NULL || (value != NULL && copy == NULL)) {
            free(name);
            free(copy);
            continue;
        }
        settings[setting_count++] = (setting){name, copy};
    }
    pthread_mutex_unlock(&settings_lock);
}

const char *kiln_env_setting(const char *name)
{
    pthread_mutex_lock(&settings_lock);
    setting *found = name != NULL ? setting_find(name) : NULL;
    const char *value = found != NULL ? found->value : NULL;
    pthread_mutex_unlock(&settings_lock);
    return value;
}

/* Kiln does not write the environment back (setenv would race with getenv
 * in other threads); it says what happened.  (Older ICD loaders, the
 * Khronos loader before its 2026 releases, split OCL_ICD_FILENAMES at ':'
 * in place when they start: child processes started afterwards inherit
 * only the first driver.) */
void kiln_env_settings_check(const char *const *names, const char *backend)
{
    for (size_t i = 0; names != NULL && names[i] != NULL; ++i) {
        const char *before = kiln_env_setting(names[i]);
        const char *now = env_nonempty(names[i]);
        if (before != NULL && (now == NULL || strcmp(now, before) != 0))
            kiln_trace("the %s plugin's vendor library changed %s in this "
                       "process's environment ('%s' is now '%s'): child "
                       "processes inherit the new value; start them with "
                       "the environment from before",
                       backend, names[i], before, now ? now : "");
    }
}

/* Not Kiln's own variables, but read here so that all environment access
 * goes through one place. */
const char *kiln_env_xdg_cache_home(void) { return env_nonempty("XDG_CACHE_HOME"); }
const char *kiln_env_home(void) { return env_nonempty("HOME"); }
