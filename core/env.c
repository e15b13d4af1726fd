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

/* ---- what the plugins are told ------------------------------------------- */

static kiln_backend_settings backend_settings;
static pthread_once_t backend_settings_once = PTHREAD_ONCE_INIT;

/* Copies: the environment may change later (and an ICD loader cuts
 * OCL_ICD_FILENAMES in place when it starts). */
static const char *env_copy(const char *name)
{
    const char *value = env_nonempty(name);
    return value != NULL ? kiln_strdup(value) : NULL;
}

static void backend_settings_read(void)
{
    backend_settings.struct_size = sizeof backend_settings;
    backend_settings.opencl_platform = env_copy("KILN_OPENCL_PLATFORM");
    backend_settings.icd_vendors = env_copy("OCL_ICD_VENDORS");
    backend_settings.icd_filenames = env_copy("OCL_ICD_FILENAMES");
}

const kiln_backend_settings *kiln_env_backend_settings(void)
{
    pthread_once(&backend_settings_once, backend_settings_read);
    return &backend_settings;
}

/* Older ICD loaders (the Khronos loader before its 2026 releases) split
 * OCL_ICD_FILENAMES at ':' in place, inside the process environment, when
 * they start: child processes started afterwards inherit only the first
 * driver.  Kiln does not write the environment back (setenv would race
 * with getenv in other threads); it says what happened. */
void kiln_env_check_icd_variables(void)
{
    const kiln_backend_settings *settings = kiln_env_backend_settings();
    const char *now = env_nonempty("OCL_ICD_FILENAMES");
    if (settings->icd_filenames != NULL &&
        (now == NULL || strcmp(now, settings->icd_filenames) != 0))
        kiln_trace("the OpenCL ICD loader cut OCL_ICD_FILENAMES in this "
                   "process's environment ('%s' is now '%s'): child "
                   "processes inherit the shorter list; start them with the "
                   "environment from before, or name the drivers with "
                   "OCL_ICD_VENDORS (a directory of .icd files)",
                   settings->icd_filenames, now ? now : "");
}

/* Not Kiln's own variables, but read here so that all environment access
 * goes through one place. */
const char *kiln_env_xdg_cache_home(void) { return env_nonempty("XDG_CACHE_HOME"); }
const char *kiln_env_home(void) { return env_nonempty("HOME"); }
