/*
 * A stand-in for the core's host API, for plugin code run without the
 * core (test_cuda_compile): error() keeps the message in last_error (a
 * test checks that a refusal says why), trace() does nothing.  Included
 * once, by one program's only source file.
 */
#ifndef KILN_FUZZ_HOST_H
#define KILN_FUZZ_HOST_H

#include "kiln_backend.h"

#include <stdarg.h>
#include <stdio.h>

static char last_error[512];

static kiln_status fuzz_error(kiln_status status, const char *format, ...)
    KILN_PRINTF_LIKE(2, 3);
static kiln_status fuzz_error(kiln_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
    return status;
}

static void fuzz_trace(const char *format, ...) KILN_PRINTF_LIKE(1, 2);
static void fuzz_trace(const char *format, ...) { (void)format; }

/* No setting is set. */
static const char *fuzz_setting(const char *name)
{
    (void)name;
    return NULL;
}

static const kiln_host_api fuzz_host = {
    .abi_major = KILN_BACKEND_ABI_MAJOR,
    .abi_minor = KILN_BACKEND_ABI_MINOR,
    .struct_size = sizeof(kiln_host_api),
    .error = fuzz_error,
    .trace = fuzz_trace,
    .setting = fuzz_setting,
};

#endif
