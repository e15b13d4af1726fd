/*
 * KILN_LOG=debug tracing.  The library is otherwise silent: this file is
 * the only place that writes to stderr.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static bool trace_on; /* written once under trace_once, then read-only */

static void trace_read_setting(void)
{
    const char *level = kiln_env_log();
    trace_on = level != NULL &&
               (strcmp(level, "debug") == 0 || strcmp(level, "trace") == 0 ||
                strcmp(level, "1") == 0);
}

bool kiln_trace_enabled(void)
{
    (void)pthread_once(&trace_once, trace_read_setting);
    return trace_on;
}

void kiln_trace(const char *format, ...)
{
    if (!kiln_trace_enabled())
        return;
    char line[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    /* One fprintf per line keeps lines from different threads whole. */
    fprintf(stderr, "kiln: %s\n", line);
}
