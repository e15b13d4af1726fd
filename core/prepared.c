/*
 * Prepared launches in the spirit of PyCUDA's prepared_call: a short type
 * string (one character per argument) and the values as varargs.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PREPARED_MAX_ARGS 64

typedef union prepared_value {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    size_t z;
    float f;
    double d;
} prepared_value;

/* Checks a type string and writes one type character per argument into
 * `kinds` (spaces dropped).  Separate from the va_arg walk so the parser
 * can be tested and fuzzed on its own. */
kiln_status kiln_prepared_parse(const char *types, char *kinds, size_t capacity,
                                size_t *count)
{
    static const char accepted[] = "PcChHiIlLzfdS<>=";
    size_t n = 0;
    for (size_t position = 0; types[position] != '\0'; ++position) {
        char type = types[position];
        if (type == ' ')
            continue;
        if (strchr(accepted, type) == NULL) {
            /* Control characters and bytes past ASCII as C escapes, so a
             * tab reads as '\t' and not as a guess. */
            char shown[8];
            unsigned char byte = (unsigned char)type;
            if (type == '\t')
                snprintf(shown, sizeof shown, "\\t");
            else if (type == '\n')
                snprintf(shown, sizeof shown, "\\n");
            else if (type == '\r')
                snprintf(shown, sizeof shown, "\\r");
            else if (byte < 32 || byte >= 127)
                snprintf(shown, sizeof shown, "\\x%02x", byte);
            else
                snprintf(shown, sizeof shown, "%c", type);
            return kiln_error(
                KILN_ERR_INVALID_ARGUMENT,
                "type string '%.80s': position %zu: unknown type '%s' (use "
                "P c C h H i I l L z f d S < > =)",
                types, position + 1, shown);
        }
        if (n == capacity)
            return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                              "type string '%.80s': more than %zu arguments",
                              types, capacity);
        kinds[n++] = type;
    }
    *count = n;
    return KILN_OK;
}

kiln_status kiln_launch_prepared(kiln_kernel *kernel,
                                 const kiln_launch_config *config,
                                 const char *types, ...)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    KILN_CHECK_OUT(types, "types");
    char kinds[PREPARED_MAX_ARGS];
    size_t count = 0;
    kiln_status status =
        kiln_prepared_parse(types, kinds, PREPARED_MAX_ARGS, &count);
    if (status != KILN_OK)
        return status;
    /* Before any va_arg: a type string longer than the parameter list
     * would walk past the arguments the caller passed. */
    if ((status = kiln_launch_check_count(kernel, count)) != KILN_OK)
        return status;
    kiln_arg args[PREPARED_MAX_ARGS];
    prepared_value values[PREPARED_MAX_ARGS];
    va_list list;
    va_start(list, types);
    for (size_t i = 0; i < count; ++i) {
        kiln_arg *arg = &args[i];
        prepared_value *value = &values[i];
        memset(arg, 0, sizeof *arg);
        arg->kind = KILN_ARG_KIND_VALUE;
        arg->value = value;
        switch (kinds[i]) {
        case 'P':
            arg->kind = KILN_ARG_KIND_BUFFER;
            arg->value = NULL;
            arg->buffer = va_arg(list, kiln_buffer *);
            break;
        case 'c':
            value->i8 = (int8_t)va_arg(list, int);
            arg->size = 1;
            break;
        case 'C':
            value->u8 = (uint8_t)va_arg(list, int);
            arg->size = 1;
            break;
        case 'h':
            value->i16 = (int16_t)va_arg(list, int);
            arg->size = 2;
            break;
        case 'H':
            value->u16 = (uint16_t)va_arg(list, int);
            arg->size = 2;
            break;
        case 'i':
            value->i32 = va_arg(list, int32_t);
            arg->size = 4;
            break;
        case 'I':
            value->u32 = va_arg(list, uint32_t);
            arg->size = 4;
            break;
        case 'l':
            value->i64 = va_arg(list, int64_t);
            arg->size = 8;
            break;
        case 'L':
            value->u64 = va_arg(list, uint64_t);
            arg->size = 8;
            break;
        case 'z':
            value->z = va_arg(list, size_t);
            arg->size = sizeof(size_t);
            break;
        case 'f':
            value->f = (float)va_arg(list, double);
            arg->size = 4;
            break;
        case 'd':
            value->d = va_arg(list, double);
            arg->size = 8;
            break;
        case 'S':
            arg->kind = KILN_ARG_KIND_LOCAL;
            arg->value = NULL;
            arg->size = va_arg(list, size_t);
            break;
        default: /* '<' '>' '=' */
            arg->kind = kinds[i] == '<'   ? KILN_ARG_KIND_IN
                        : kinds[i] == '>' ? KILN_ARG_KIND_OUT
                                          : KILN_ARG_KIND_INOUT;
            arg->value = NULL;
            arg->host = va_arg(list, void *);
            arg->size = va_arg(list, size_t);
            break;
        }
    }
    va_end(list);
    return kiln_launch_checked(kernel, config, count, args);
}
