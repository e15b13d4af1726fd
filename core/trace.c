/*
 * Logging: KILN_LOG (error, warn, info, debug) or kiln_log_set_level picks
 * how much, and lines go to stderr or to the program's callback.  The
 * library is otherwise silent: this file is the only place that writes to
 * stderr.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static atomic_int log_level;      /* a kiln_log_level */
static char log_unknown[64];      /* an unknown KILN_LOG, reported once */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static kiln_log_callback log_callback; /* NULL: stderr; under log_lock */
static void *log_user_data;

static const char *const level_names[] = {
    [KILN_LOG_OFF] = "off",     [KILN_LOG_ERROR] = "error",
    [KILN_LOG_WARN] = "warn",   [KILN_LOG_INFO] = "info",
    [KILN_LOG_DEBUG] = "debug",
};

static void log_read_setting(void)
{
    const char *value = kiln_env_log();
    kiln_log_level level = KILN_LOG_OFF;
    if (value != NULL) {
        bool known = false;
        for (int i = KILN_LOG_OFF; i <= KILN_LOG_DEBUG; ++i)
            if (strcmp(value, level_names[i]) == 0) {
                level = (kiln_log_level)i;
                known = true;
            }
        /* The spellings of earlier versions and of other tools. */
        if (strcmp(value, "trace") == 0 || strcmp(value, "1") == 0) {
            level = KILN_LOG_DEBUG;
            known = true;
        } else if (strcmp(value, "warning") == 0) {
            level = KILN_LOG_WARN;
            known = true;
        } else if (strcmp(value, "0") == 0 || strcmp(value, "none") == 0) {
            known = true;
        }
        if (!known)
            snprintf(log_unknown, sizeof log_unknown, "%s", value);
    }
    atomic_store(&log_level, (int)level);
}

static void log_write(kiln_log_level level, const char *line)
{
    pthread_mutex_lock(&log_lock);
    kiln_log_callback callback = log_callback;
    void *user_data = log_user_data;
    pthread_mutex_unlock(&log_lock);
    if (callback != NULL)
        callback(level, line, user_data);
    else /* one fprintf per line keeps lines from different threads whole */
        fprintf(stderr, "kiln: %s\n", line);
}

/* The level, KILN_LOG read on first use; an unknown value is said once. */
static kiln_log_level log_level_now(void)
{
    (void)pthread_once(&log_once, log_read_setting);
    if (log_unknown[0] != '\0') {
        static atomic_flag reported = ATOMIC_FLAG_INIT;
        if (!atomic_flag_test_and_set(&reported)) {
            char line[160];
            snprintf(line, sizeof line,
                     "KILN_LOG=%s is not a level: use error, warn, info or "
                     "debug (logging stays off)",
                     log_unknown);
            log_write(KILN_LOG_WARN, line);
        }
    }
    return (kiln_log_level)atomic_load_explicit(&log_level,
                                                memory_order_relaxed);
}

bool kiln_log_enabled(kiln_log_level level)
{
    return level != KILN_LOG_OFF && level <= log_level_now();
}

void kiln_log_v(kiln_log_level level, const char *format, va_list args)
{
    if (!kiln_log_enabled(level))
        return;
    char line[2048];
    vsnprintf(line, sizeof line, format, args);
    log_write(level, line);
}

void kiln_log(kiln_log_level level, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    kiln_log_v(level, format, args);
    va_end(args);
}

bool kiln_trace_enabled(void)
{
    return kiln_log_enabled(KILN_LOG_DEBUG);
}

void kiln_trace(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    kiln_log_v(KILN_LOG_DEBUG, format, args);
    va_end(args);
}

kiln_status kiln_log_set_level(kiln_log_level level)
{
    kiln_error_clear();
    if ((int)level < KILN_LOG_OFF || level > KILN_LOG_DEBUG)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_log_set_level: %d is not a kiln_log_level",
                          (int)level);
    (void)log_level_now(); /* KILN_LOG read first, so it cannot undo this */
    atomic_store(&log_level, (int)level);
    return KILN_OK;
}

kiln_status kiln_log_get_level(kiln_log_level *level)
{
    kiln_error_clear();
    KILN_CHECK_OUT(level, "level");
    *level = log_level_now();
    return KILN_OK;
}

kiln_status kiln_log_set_callback(kiln_log_callback callback, void *user_data)
{
    kiln_error_clear();
    pthread_mutex_lock(&log_lock);
    log_callback = callback;
    log_user_data = callback != NULL ? user_data : NULL;
    pthread_mutex_unlock(&log_lock);
    return KILN_OK;
}
