/*
 * Prepared launches in the spirit of PyCUDA's prepare/prepared_call: a
 * short type string (one character per argument, each carrying its type)
 * and the values as varargs, parsed at every launch or once by
 * kiln_kernel_prepare.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREPARED_MAX_ARGS 64

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

/* The argument kind and scalar type a type character stands for. */
static void prepared_shape(char kind, kiln_arg_kind *arg_kind,
                           kiln_scalar_type *type)
{
    *arg_kind = KILN_ARG_KIND_VALUE;
    *type = KILN_SCALAR_NONE;
    switch (kind) {
    case 'P': *arg_kind = KILN_ARG_KIND_BUFFER; break;
    case 'S': *arg_kind = KILN_ARG_KIND_LOCAL; break;
    case '<': *arg_kind = KILN_ARG_KIND_IN; break;
    case '>': *arg_kind = KILN_ARG_KIND_OUT; break;
    case '=': *arg_kind = KILN_ARG_KIND_INOUT; break;
    default:
        for (int t = KILN_SCALAR_CHAR; t <= KILN_SCALAR_DOUBLE; ++t)
            if (kiln_scalar_type_char((kiln_scalar_type)t) == kind)
                *type = (kiln_scalar_type)t;
    }
}

/* Reads one value per type character into `args`, typed scalars into the
 * argument itself.  The va_list travels by pointer so that the caller's
 * stays usable (C11 7.16). */
static void prepared_read(const char *kinds, size_t count, va_list *values,
                          kiln_arg *args)
{
    for (size_t i = 0; i < count; ++i) {
        kiln_arg *arg = &args[i];
        memset(arg, 0, sizeof *arg);
        prepared_shape(kinds[i], &arg->kind, &arg->type);
        switch (kinds[i]) {
        case 'P':
            arg->buffer = va_arg(*values, kiln_buffer *);
            break;
        case 'c':
            arg->scalar.i8 = (int8_t)va_arg(*values, int);
            arg->size = 1;
            break;
        case 'C':
            arg->scalar.u8 = (uint8_t)va_arg(*values, int);
            arg->size = 1;
            break;
        case 'h':
            arg->scalar.i16 = (int16_t)va_arg(*values, int);
            arg->size = 2;
            break;
        case 'H':
            arg->scalar.u16 = (uint16_t)va_arg(*values, int);
            arg->size = 2;
            break;
        case 'i':
            arg->scalar.i32 = va_arg(*values, int32_t);
            arg->size = 4;
            break;
        case 'I':
            arg->scalar.u32 = va_arg(*values, uint32_t);
            arg->size = 4;
            break;
        case 'l':
            arg->scalar.i64 = va_arg(*values, int64_t);
            arg->size = 8;
            break;
        case 'L':
            arg->scalar.u64 = va_arg(*values, uint64_t);
            arg->size = 8;
            break;
        case 'z':
            arg->scalar.z = va_arg(*values, size_t);
            arg->size = sizeof(size_t);
            break;
        case 'f':
            arg->scalar.f = (float)va_arg(*values, double);
            arg->size = 4;
            break;
        case 'd':
            arg->scalar.d = va_arg(*values, double);
            arg->size = 8;
            break;
        case 'S':
            arg->size = va_arg(*values, size_t);
            break;
        default: /* '<' '>' '=' */
            arg->host = va_arg(*values, void *);
            arg->size = va_arg(*values, size_t);
            break;
        }
    }
}

/* The C type (kiln.h's KILN_C_TYPE_ letters, after C's argument
 * promotions) each value of a type character must have for va_arg to read
 * it: an integer of 4 bytes or less ('i'), one of 8 ('l'), a double
 * ('d'), a buffer or NULL ('B' 'v'), or for a host pointer any pointer
 * ('v' 'B' '?'). */
static const char *prepared_c_types(char kind, int second)
{
    switch (kind) {
    case 'P': return "Bv";
    case 'c': case 'C': case 'h': case 'H': case 'i': case 'I': return "i";
    case 'l': case 'L': case 'z': case 'S': return "l";
    case 'f': case 'd': return "d";
    default: return second ? "l" : "vB?"; /* '<' '>' '=': pointer, bytes */
    }
}

static const char *c_type_name(char c_type)
{
    switch (c_type) {
    case 'i': return "an integer of 4 bytes or less (int)";
    case 'l': return "an integer of 8 bytes";
    case 'd': return "a float or double";
    case 'D': return "a long double";
    case 'B': return "a kiln_buffer *";
    case 'v': return "a void pointer";
    default: return "a pointer or another type";
    }
}

static const char *expected_name(char kind, int second)
{
    switch (kind) {
    case 'P': return "a kiln_buffer *";
    case 'c': case 'C': case 'h': case 'H': case 'i': case 'I':
        return "an int (or a narrower integer)";
    case 'l': case 'L': return "a 64-bit integer (int64_t, uint64_t)";
    case 'z': case 'S': return "a size_t";
    case 'f': return "a float or double (2.0, not 2)";
    case 'd': return "a double";
    default: return second ? "a size_t (the bytes)" : "a host pointer";
    }
}

/* The values' C types as the caller's compiler saw them (`c_types`, one
 * letter per value, from kiln.h's macros; NULL when the caller used the
 * plain function) against what each type character makes va_arg read: a
 * value of another type would be read as bytes that were never passed
 * (an int for 'f' read a double of 0), and a count other than the type
 * string's would read past the values. */
static kiln_status prepared_check_c_types(const kiln_kernel *kernel,
                                          const char *types,
                                          const char *kinds, size_t count,
                                          const char *c_types)
{
    if (c_types == NULL)
        return KILN_OK;
    size_t expected = 0;
    for (size_t i = 0; i < count; ++i)
        expected += strchr("<>=", kinds[i]) != NULL ? 2 : 1;
    size_t given = strlen(c_types);
    if (given != expected)
        return kiln_error(KILN_ERR_ARGUMENT_COUNT,
                          "kernel '%s': type string '%.80s' takes %zu "
                          "value(s) (a host array two: pointer and bytes), "
                          "%zu were passed",
                          kernel->name, types, expected, given);
    size_t value = 0;
    for (size_t i = 0; i < count; ++i) {
        int pair = strchr("<>=", kinds[i]) != NULL;
        for (int second = 0; second <= pair; ++second, ++value) {
            char c_type = c_types[value];
            if (strchr(prepared_c_types(kinds[i], second), c_type) != NULL)
                continue;
            return kiln_error(KILN_ERR_ARGUMENT_TYPE,
                              "kernel '%s': type string '%.80s': argument %zu "
                              "('%c') takes %s, and value %zu is %s",
                              kernel->name, types, i, kinds[i],
                              expected_name(kinds[i], second), value + 1,
                              c_type_name(c_type));
        }
    }
    return KILN_OK;
}

/* The arguments have been checked by the public function (so that the
 * messages name the one the user called). */
static kiln_status launch_prepared_list(kiln_kernel *kernel,
                                        const kiln_launch_config *config,
                                        const char *c_types,
                                        const char *types, va_list values)
{
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
    if ((status = prepared_check_c_types(kernel, types, kinds, count,
                                         c_types)) != KILN_OK)
        return status;
    kiln_arg args[PREPARED_MAX_ARGS];
    va_list copy;
    va_copy(copy, values);
    prepared_read(kinds, count, &copy, args);
    va_end(copy);
    return kiln_launch_checked(kernel, config, count, args);
}

kiln_status kiln_launch_prepared_v(kiln_kernel *kernel,
                                   const kiln_launch_config *config,
                                   const char *types, va_list values)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    KILN_CHECK_OUT(types, "types");
    return launch_prepared_list(kernel, config, NULL, types, values);
}

/* The name in parentheses: in C11 kiln.h makes it a macro that calls
 * kiln_launch_prepared_checked. */
kiln_status(kiln_launch_prepared)(kiln_kernel *kernel,
                                  const kiln_launch_config *config,
                                  const char *types, ...)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    KILN_CHECK_OUT(types, "types");
    va_list values;
    va_start(values, types);
    kiln_status status =
        launch_prepared_list(kernel, config, NULL, types, values);
    va_end(values);
    return status;
}

kiln_status kiln_launch_prepared_checked(kiln_kernel *kernel,
                                         const kiln_launch_config *config,
                                         const char *c_types,
                                         const char *types, ...)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    KILN_CHECK_OUT(c_types, "c_types");
    KILN_CHECK_OUT(types, "types");
    va_list values;
    va_start(values, types);
    /* c_types[0] is the type string's own */
    kiln_status status = launch_prepared_list(
        kernel, config, c_types[0] != '\0' ? c_types + 1 : c_types, types,
        values);
    va_end(values);
    return status;
}

/* ---- kiln_kernel_prepare: the type string parsed and checked once ---------- */

void kiln_prepared_types_free(kiln_prepared_types *types)
{
    while (types != NULL) {
        kiln_prepared_types *previous = types->previous;
        free(types);
        types = previous;
    }
}

kiln_status kiln_kernel_prepare(kiln_kernel *kernel, const char *types)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(types, "types");
    char kinds[PREPARED_MAX_ARGS];
    size_t count = 0;
    kiln_status status =
        kiln_prepared_parse(types, kinds, PREPARED_MAX_ARGS, &count);
    if (status == KILN_OK)
        status = kiln_launch_check_count(kernel, count);
    for (size_t i = 0; i < count && status == KILN_OK; ++i) {
        kiln_arg_kind kind;
        kiln_scalar_type type;
        prepared_shape(kinds[i], &kind, &type);
        status = kiln_launch_check_arg_shape(kernel, i, kind, type);
    }
    if (status != KILN_OK)
        return kiln_error_prefix(status, "kiln_kernel_prepare('%.80s')",
                                 types);
    kiln_prepared_types *prepared = malloc(sizeof *prepared + count + 1);
    if (prepared == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    prepared->count = count;
    memcpy(prepared->kinds, kinds, count);
    prepared->kinds[count] = '\0';
    prepared->previous = atomic_load(&kernel->prepared);
    while (!atomic_compare_exchange_weak(&kernel->prepared,
                                         &prepared->previous, prepared))
        ;
    return KILN_OK;
}

static kiln_status launch_prepared_call(kiln_kernel *kernel,
                                       const kiln_launch_config *config,
                                       const char *c_types, va_list values)
{
    const kiln_prepared_types *prepared = atomic_load(&kernel->prepared);
    if (prepared == NULL)
        return kiln_error(KILN_ERR_INVALID_ARGUMENT,
                          "kiln_launch_prepared_call('%s'): the kernel was "
                          "not prepared (kiln_kernel_prepare)",
                          kernel->name);
    kiln_status status = prepared_check_c_types(
        kernel, prepared->kinds, prepared->kinds, prepared->count, c_types);
    if (status != KILN_OK)
        return status;
    kiln_arg args[PREPARED_MAX_ARGS];
    va_list copy;
    va_copy(copy, values);
    prepared_read(prepared->kinds, prepared->count, &copy, args);
    va_end(copy);
    return kiln_launch_checked(kernel, config, prepared->count, args);
}

kiln_status kiln_launch_prepared_call_v(kiln_kernel *kernel,
                                        const kiln_launch_config *config,
                                        va_list values)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    return launch_prepared_call(kernel, config, NULL, values);
}

kiln_status(kiln_launch_prepared_call)(kiln_kernel *kernel,
                                       const kiln_launch_config *config, ...)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(config, "config");
    va_list values;
    va_start(values, config);
    kiln_status status = launch_prepared_call(kernel, config, NULL, values);
    va_end(values);
    return status;
}

kiln_status kiln_launch_prepared_call_checked(kiln_kernel *kernel,
                                              const char *c_types,
                                              const kiln_launch_config *config,
                                              ...)
{
    kiln_error_clear();
    KILN_CHECK_HANDLE(kernel, KILN_MAGIC_KERNEL, "kernel");
    KILN_CHECK_OUT(c_types, "c_types");
    KILN_CHECK_OUT(config, "config");
    va_list values;
    va_start(values, config);
    /* c_types[0] is the config's own */
    kiln_status status = launch_prepared_call(
        kernel, config, c_types[0] != '\0' ? c_types + 1 : c_types, values);
    va_end(values);
    return status;
}
