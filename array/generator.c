/*
 * Kernel generators: elementwise, reduction and scan kernels made from a
 * C argument list and a few expressions, in the model PyOpenCL, PyCUDA and
 * CuPy share.  Each template is the only place its algorithm lives (the
 * reduction's is in reduction.c, shared with the array reductions);
 * the source it produces goes through kiln_program_build and so through
 * Kiln's program cache, and every launch through kiln_launch, which checks
 * the arguments against the generated kernel.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GENERATOR_MAGIC 0x6b47656e65726174ull /* "kGenerat" */

/* Elementwise kernels run one work-item per element, like a hand-written
 * kernel: the grid covers n (2^31 - 1 groups, CUDA's limit, is 5e11
 * elements). */
#define MAX_ELEMENTWISE_GROUPS (((size_t)1 << 31) - 1)

/* Scan: values per work-group (ARRAY_GROUP_SIZE work-items, SCAN_ITEMS
 * consecutive values each). */
#define SCAN_ITEMS 4
#define SCAN_BLOCK (ARRAY_GROUP_SIZE * SCAN_ITEMS)

/* ---- argument lists --------------------------------------------------------- */

void array_params_free(array_params *params)
{
    for (size_t k = 0; k < params->count; ++k) {
        free(params->items[k].name);
        free(params->items[k].declaration);
    }
    free(params->items);
    *params = (array_params){0};
}

static bool has_word(const char *text, size_t length, const char *word)
{
    size_t word_length = strlen(word);
    for (size_t k = 0; k + word_length <= length; ++k) {
        if (memcmp(text + k, word, word_length) != 0)
            continue;
        bool starts = k == 0 || !(isalnum((unsigned char)text[k - 1]) ||
                                  text[k - 1] == '_');
        bool ends = k + word_length == length ||
                    !(isalnum((unsigned char)text[k + word_length]) ||
                      text[k + word_length] == '_');
        if (starts && ends)
            return true;
    }
    return false;
}

/* One parameter, text[0..length): its name is the last identifier. */
static kiln_status parse_param(const char *what, const char *text,
                               size_t length, array_param *param)
{
    while (length > 0 && isspace((unsigned char)*text))
        ++text, --length;
    while (length > 0 && isspace((unsigned char)text[length - 1]))
        --length;
    if (length == 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: the argument list has an empty parameter",
                           what);
    size_t end = length;
    while (end > 0 && (isalnum((unsigned char)text[end - 1]) ||
                       text[end - 1] == '_'))
        --end;
    size_t name_length = length - end;
    if (name_length == 0 || isdigit((unsigned char)text[end]) || end == 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: parameter '%.*s' needs a type and a name",
                           what, (int)length, text);
    param->pointer = memchr(text, '*', end) != NULL;
    if (param->pointer &&
        !has_word(text, end, "global") && !has_word(text, end, "__global") &&
        !has_word(text, end, "constant") &&
        !has_word(text, end, "__constant"))
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: pointer parameter '%.*s' must say global or "
                           "constant",
                           what, (int)length, text);
    param->constant = param->pointer && (has_word(text, end, "constant") ||
                                         has_word(text, end, "__constant"));
    param->name = malloc(name_length + 1);
    param->declaration = malloc(end + 1);
    if (param->name == NULL || param->declaration == NULL) {
        free(param->name);
        free(param->declaration);
        param->name = param->declaration = NULL;
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    memcpy(param->name, text + end, name_length);
    param->name[name_length] = '\0';
    memcpy(param->declaration, text, end);
    param->declaration[end] = '\0';
    return KILN_OK;
}

kiln_status array_params_parse(const char *what, const char *arguments,
                               array_params *params)
{
    *params = (array_params){0};
    if (arguments == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: the argument list is NULL", what);
    size_t capacity = 1;
    for (const char *p = arguments; *p; ++p)
        capacity += *p == ',';
    params->items = calloc(capacity, sizeof *params->items);
    if (params->items == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    int depth = 0;
    const char *start = arguments;
    for (const char *p = arguments;; ++p) {
        if (*p == '(' || *p == '[')
            ++depth;
        else if (*p == ')' || *p == ']')
            --depth;
        if (depth < 0)
            break;
        if ((*p == ',' && depth == 0) || *p == '\0') {
            kiln_status status =
                parse_param(what, start, (size_t)(p - start),
                            &params->items[params->count]);
            if (status != KILN_OK) {
                array_params_free(params);
                return status;
            }
            ++params->count;
            start = p + 1;
            if (*p == '\0')
                break;
        }
    }
    if (depth != 0) {
        array_params_free(params);
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: unbalanced brackets in the argument list '%s'",
                           what, arguments);
    }
    return KILN_OK;
}

kiln_status array_params_check(const char *what, const array_params *params,
                               size_t arg_count, const kiln_arg *args)
{
    if (arg_count != params->count)
        return array_error(KILN_ERR_ARGUMENT_COUNT,
                           "%s: %zu argument(s) given, the argument list "
                           "has %zu",
                           what, arg_count, params->count);
    if (arg_count > 0 && args == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: args is NULL",
                           what);
    for (size_t k = 0; k < arg_count; ++k) {
        bool is_buffer = args[k].kind == KILN_ARG_KIND_BUFFER;
        if (params->items[k].pointer && !is_buffer)
            return array_error(KILN_ERR_ARGUMENT_KIND,
                               "%s: argument %zu (%s) is a pointer "
                               "parameter: pass a buffer (KILN_ARG_BUFFER)",
                               what, k, params->items[k].name);
        if (!params->items[k].pointer && is_buffer)
            return array_error(KILN_ERR_ARGUMENT_KIND,
                               "%s: argument %zu (%s) is a value parameter: "
                               "pass a value, not a buffer",
                               what, k, params->items[k].name);
    }
    return KILN_OK;
}

/* The user's parameters, each followed by ", ", for templates that add
 * their own after them.  A buffer given for a pointer parameter may be a
 * view at any offset (kiln_buffer_create_view), which an OpenCL C kernel
 * cannot take as a sub-buffer at every offset: each pointer `x` becomes
 * the buffer's base `kiln_base_x` and its byte offset `kiln_offset_x`,
 * and KILN_ARGUMENT_VIEWS (see add_views), at the top of the kernel's
 * body, declares `x` as the user wrote it. */
void array_params_add(array_text *text, const array_params *params)
{
    for (size_t k = 0; k < params->count; ++k) {
        const array_param *param = &params->items[k];
        if (param->pointer)
            array_text_add(text, "%s kiln_base_%s, ulong kiln_offset_%s, ",
                           param->declaration, param->name, param->name);
        else
            array_text_add(text, "%s %s, ", param->declaration, param->name);
    }
}

/* #define KILN_ARGUMENT_VIEWS: the user's pointers, each its base plus
 * its offset (see add_params). */
void array_params_add_views(array_text *text, const array_params *params)
{
    array_text_add(text, "#undef KILN_ARGUMENT_VIEWS\n"
                         "#define KILN_ARGUMENT_VIEWS");
    for (size_t k = 0; params != NULL && k < params->count; ++k) {
        const array_param *param = &params->items[k];
        if (param->pointer)
            array_text_add(text,
                           " %1$s %2$s = (%1$s)((%3$s uchar *)kiln_base_%2$s "
                           "+ kiln_offset_%2$s);",
                           param->declaration, param->name,
                           param->constant ? "__constant" : "__global");
    }
    array_text_add(text, "\n");
}

/* The user's arguments as add_params's parameters (a view as its base and
 * offset) followed by room for `extra` of the generator's own; *first is
 * where those go.  NULL when out of memory. */
kiln_arg *array_params_args(const array_params *params, size_t arg_count,
                            const kiln_arg *args, size_t extra,
                            size_t *first)
{
    size_t pointers = 0;
    for (size_t k = 0; k < arg_count; ++k)
        pointers += params->items[k].pointer;
    kiln_arg *all = calloc(arg_count + pointers + extra, sizeof *all);
    if (all == NULL)
        return NULL;
    size_t used = 0;
    for (size_t k = 0; k < arg_count; ++k) {
        if (!params->items[k].pointer) {
            all[used++] = args[k];
            continue;
        }
        kiln_buffer *base = args[k].buffer;
        size_t offset = 0;
        if (kiln_buffer_get_base(args[k].buffer, &base, &offset) != KILN_OK)
            base = args[k].buffer; /* the launch names the bad handle */
        all[used++] = KILN_ARG_BUFFER(base);
        all[used++] = KILN_ARG_ULONG((uint64_t)offset);
    }
    *first = used;
    return all;
}

/* ---- what generator strings may hold --------------------------------- */

/* A C preprocessor's '#' in its three spellings: # itself, the digraph %:
 * and the trigraph ??= (OpenCL compilers read C99's trigraphs). */
static size_t hash_at(const char *p)
{
    if (p[0] == '#')
        return 1;
    if (p[0] == '%' && p[1] == ':')
        return 2;
    if (p[0] == '?' && p[1] == '?' && p[2] == '=')
        return 3;
    return 0;
}

/* A line splice: a backslash (or its trigraph ??/) before a line's end,
 * or at the end of the string, where it would splice the generated text
 * after it. */
static bool splice_at(const char *p)
{
    size_t length = p[0] == '\\' ? 1 : (p[0] == '?' && p[1] == '?' &&
                                          p[2] == '/') ? 3 : 0;
    if (length == 0)
        return false;
    p += length;
    return *p == '\n' || *p == '\r' || *p == '\0';
}

/* C99's _Pragma operator, as a word of its own at `p` in `text`: a
 * #pragma without the '#'. */
static bool pragma_operator_at(const char *text, const char *p)
{
    static const char word[] = "_Pragma";
    if (strncmp(p, word, sizeof word - 1) != 0)
        return false;
    bool starts = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    char next = p[sizeof word - 1];
    return starts && !(isalnum((unsigned char)next) || next == '_');
}

static kiln_status text_refused(const char *function, const char *field,
                                const char *why)
{
    return array_error(KILN_ERR_INVALID_ARGUMENT,
                       "%s: %s %s: generator strings are pieces of one "
                       "OpenCL C source and may carry no preprocessor line, "
                       "file or comment across it",
                       function, field, why);
}

/* An expression, a type, an argument list: one line of code, no '#' in
 * any spelling, no splice, no comment (which could hide or join the
 * generated code around it). */
static kiln_status check_code_text(const char *function, const char *field,
                                   const char *text)
{
    if (text == NULL)
        return KILN_OK;
    for (const char *p = text; *p != '\0'; ++p) {
        if (hash_at(p))
            return text_refused(function, field,
                                "holds a preprocessor '#' (or %: or ?\?=)");
        if (splice_at(p))
            return text_refused(function, field, "splices lines");
        if (pragma_operator_at(text, p))
            return text_refused(function, field,
                                "holds the _Pragma operator");
        if (*p == '\n' || *p == '\r')
            return text_refused(function, field, "holds a line break");
        if ((p[0] == '/' && (p[1] == '*' || p[1] == '/')) ||
            (p[0] == '*' && p[1] == '/'))
            return text_refused(function, field, "holds a comment");
    }
    return KILN_OK;
}

/* A preamble: helper code, whose only directives may be #define and
 * #undef; comments and literals end within it; no splice.  A comment
 * leaves a line's start a line's start (C replaces it by a space before
 * it looks for directives: `/ * x * / #include` is one). */
static kiln_status check_preamble(const char *function, const char *text)
{
    if (text == NULL)
        return KILN_OK;
    static const char field[] = "preamble";
    bool line_start = true;
    for (const char *p = text; *p != '\0';) {
        if (splice_at(p))
            return text_refused(function, field, "splices lines");
        if (pragma_operator_at(text, p))
            return text_refused(function, field,
                                "holds the _Pragma operator");
        if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            if (end == NULL)
                return text_refused(function, field,
                                    "opens a comment it does not close");
            p = end + 2;
            continue;
        }
        if (p[0] == '/' && p[1] == '/') {
            while (*p != '\0' && *p != '\n')
                ++p;
            continue;
        }
        size_t hash = hash_at(p);
        if (hash && line_start) {
            const char *word = p + hash;
            while (*word == ' ' || *word == '\t')
                ++word;
            size_t length = 0;
            while (isalnum((unsigned char)word[length]) || word[length] == '_')
                ++length;
            bool allowed = (length == 6 && strncmp(word, "define", 6) == 0) ||
                           (length == 5 && strncmp(word, "undef", 5) == 0);
            if (!allowed)
                return text_refused(function, field,
                                    "holds a directive other than #define "
                                    "and #undef");
        }
        if (*p == '\n') {
            line_start = true;
            ++p;
            continue;
        }
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\f' &&
            *p != '\v')
            line_start = false;
        if (*p == '"' || *p == '\'') {
            char quote = *p++;
            while (*p != '\0' && *p != quote && *p != '\n') {
                if (*p == '\\' && p[1] != '\0')
                    ++p;
                ++p;
            }
            if (*p != quote)
                return text_refused(function, field,
                                    "opens a literal it does not close");
            ++p;
            continue;
        }
        ++p;
    }
    return KILN_OK;
}

/* Every string a generator takes, before any of it is put together. */
kiln_status array_generator_texts_check(const char *function,
                                        const char *const *fields,
                                        const char *const *texts,
                                        size_t count, const char *preamble)
{
    for (size_t k = 0; k < count; ++k) {
        kiln_status status = check_code_text(function, fields[k], texts[k]);
        if (status != KILN_OK)
            return status;
    }
    return check_preamble(function, preamble);
}

static kiln_status check_identifier(const char *what, const char *name)
{
    if (name[0] == '\0' || isdigit((unsigned char)name[0]))
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: kernel name '%s' is not a C identifier",
                           what, name);
    for (const char *p = name; *p; ++p)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return array_error(KILN_ERR_INVALID_ARGUMENT,
                               "%s: kernel name '%s' is not a C identifier",
                               what, name);
    return KILN_OK;
}

/* Bytes of an OpenCL C scalar or vector type name ("float", "uint4"); 0
 * when it is not one. */
static size_t type_size(const char *type)
{
    static const struct {
        const char *name;
        size_t size;
    } scalars[] = {{"char", 1},  {"uchar", 1},  {"short", 2}, {"ushort", 2},
                   {"int", 4},   {"uint", 4},   {"float", 4}, {"long", 8},
                   {"ulong", 8}, {"double", 8}};
    for (size_t k = 0; k < sizeof scalars / sizeof *scalars; ++k) {
        size_t length = strlen(scalars[k].name);
        if (strncmp(type, scalars[k].name, length) != 0)
            continue;
        const char *rest = type + length;
        if (*rest == '\0')
            return scalars[k].size;
        /* 3-vectors take the space of 4 */
        if (strcmp(rest, "2") == 0)
            return 2 * scalars[k].size;
        if (strcmp(rest, "3") == 0 || strcmp(rest, "4") == 0)
            return 4 * scalars[k].size;
        if (strcmp(rest, "8") == 0)
            return 8 * scalars[k].size;
        if (strcmp(rest, "16") == 0)
            return 16 * scalars[k].size;
    }
    return 0;
}

/* The first pointer parameter's name: the default input of reductions and
 * scans. */
static const char *first_pointer(const array_params *params)
{
    for (size_t k = 0; k < params->count; ++k)
        if (params->items[k].pointer)
            return params->items[k].name;
    return NULL;
}

static bool blank(const char *text)
{
    if (text == NULL)
        return true;
    while (isspace((unsigned char)*text))
        ++text;
    return *text == '\0';
}

/* What the reduction and scan generators check and parse alike: the
 * value type, the kernel name (`default_name` when NULL), the argument
 * list (into *params, messages naming `what`, which is set to "`noun`
 * 'name'") and, without an `expression` of the index, a pointer
 * argument whose elements the generator `verb`s (*input).  Frees nothing
 * on failure: *params is empty then. */
static kiln_status generator_prepare(const char *function, const char *type,
                                     const char *name,
                                     const char *default_name,
                                     const char *noun, const char *verb,
                                     const char *arguments,
                                     const char *expression,
                                     const char *expression_role,
                                     char *what, size_t what_size,
                                     size_t *value_size, array_params *params,
                                     const char **input)
{
    *value_size = type_size(type);
    if (*value_size == 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: type '%s' is not an OpenCL C scalar or vector "
                           "type",
                           function, type);
    if (name == NULL)
        name = default_name;
    kiln_status status = check_identifier(function, name);
    if (status != KILN_OK)
        return status;
    snprintf(what, what_size, "%s '%s'", noun, name);
    status = array_params_parse(what, arguments, params);
    if (status != KILN_OK)
        return status;
    *input = first_pointer(params);
    if (blank(expression) && *input == NULL) {
        array_params_free(params);
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: no %s and no pointer argument to %s",
                           function, expression_role, verb);
    }
    return KILN_OK;
}

/* The opening of a reduction's or scan's source: the preamble, the
 * combining macro `combine`(a, b) and the element macro `element`(i):
 * `expression` of i, or else the input pointer's element i. */
static void add_generator_head(array_text *source, const char *preamble,
                               const char *combine,
                               const char *combine_expression,
                               const char *element, const char *expression,
                               const char *input)
{
    array_text_add(source, ARRAY_SOURCE_HEADER "%s\n",
                   preamble ? preamble : "");
    array_text_add(source, "#define %s(a, b) (%s)\n", combine,
                   combine_expression);
    if (blank(expression))
        array_text_add(source, "#define %s(i) (%s[i])\n", element, input);
    else
        array_text_add(source, "#define %s(i) (%s)\n", element, expression);
}

/* Checks that `count` values of `value_size` bytes fit in `buffer` from
 * byte `offset`, which must be a multiple of the value's size. */
static kiln_status check_values_fit(const char *function, const char *role,
                                    kiln_buffer *buffer, size_t offset,
                                    size_t count, size_t value_size)
{
    size_t buffer_size = 0;
    kiln_status status = kiln_buffer_get_size(buffer, &buffer_size);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    if (offset % value_size != 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: %s offset %zu is not a multiple of the "
                           "value's %zu bytes",
                           function, role, offset, value_size);
    if (offset > buffer_size || (buffer_size - offset) / value_size < count)
        return array_error(KILN_ERR_OUT_OF_BOUNDS,
                           "%s: %zu value%s of %zu bytes at offset %zu do%s "
                           "not fit in the %zu-byte %s buffer",
                           function, count, count == 1 ? "" : "s", value_size,
                           offset, count == 1 ? "es" : "", buffer_size, role);
    return KILN_OK;
}

/* The buffer that owns `buffer`'s memory and the index there of the value
 * at byte `offset` of `buffer` (a view's offset added), which must fall
 * on a multiple of the value's size: generated kernels index an output
 * by values, so that a view at any offset is an output too. */
kiln_status array_buffer_base(const char *function, const char *role,
                              kiln_buffer *buffer, size_t offset,
                              size_t value_size, kiln_buffer **base,
                              size_t *index)
{
    size_t view_offset = 0;
    kiln_status status = kiln_buffer_get_base(buffer, base, &view_offset);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    if ((view_offset + offset) % value_size != 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: the %s starts at byte %zu of its buffer, not "
                           "a multiple of the value's %zu bytes",
                           function, role, view_offset + offset, value_size);
    *index = (view_offset + offset) / value_size;
    return KILN_OK;
}

/* ---- elementwise -------------------------------------------------------------- */

/* The elementwise template, which the array layer's elementwise
 * operations are instances of too: `operation` for each index
 * i = kiln_start + k * kiln_step, k in [0, kiln_n), one work-item each. */
void array_elementwise_source(array_text *source, const char *preamble,
                              const array_params *params,
                              const char *operation, const char *name)
{
    array_text_add(source, ARRAY_SOURCE_HEADER "%s\n",
                   preamble ? preamble : "");
    array_params_add_views(source, params);
    array_text_add(source, "__kernel void %s(", name);
    array_params_add(source, params);
    array_text_add(source,
                   "long kiln_n, long kiln_start, long kiln_step)\n{\n"
                   "    KILN_ARGUMENT_VIEWS\n"
                   "    const long kiln_k = get_global_id(0);\n"
                   "    if (kiln_k < kiln_n) {\n"
                   "        const long i = kiln_start + kiln_k * kiln_step;\n"
                   "        %s;\n"
                   "    }\n}\n",
                   operation);
}

kiln_status array_elementwise_launch(kiln_kernel *kernel, size_t n,
                                     int64_t start, int64_t step,
                                     size_t count, kiln_arg *args,
                                     kiln_stream *stream)
{
    args[count] = KILN_ARG_LONG((int64_t)n);
    args[count + 1] = KILN_ARG_LONG(start);
    args[count + 2] = KILN_ARG_LONG(step);
    return array_launch_1d(kernel, n, MAX_ELEMENTWISE_GROUPS, stream,
                           count + 3, args);
}

kiln_status array_elementwise_build(kiln_context *context,
                                    const char *preamble,
                                    const char *arguments,
                                    const char *operation, const char *name,
                                    kiln_kernel **kernel)
{
    char what[96];
    snprintf(what, sizeof what, "elementwise kernel '%s'", name);
    array_params params = {0};
    kiln_status status = array_params_parse(what, arguments, &params);
    if (status != KILN_OK)
        return status;
    array_text source = {0};
    array_elementwise_source(&source, preamble, &params, operation, name);
    array_params_free(&params);
    return array_kernel_build_text(context, &source, name, kernel);
}

struct kiln_elementwise {
    uint64_t magic;
    atomic_int references;
    kiln_kernel *kernel;
    array_params params;
    char what[96];
};

kiln_status kiln_elementwise_create(kiln_context *context,
                                    const char *arguments,
                                    const char *operation, const char *name,
                                    const char *preamble,
                                    kiln_elementwise **kernel)
{
    static const char function[] = "kiln_elementwise_create";
    if (context == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: context is NULL",
                           function);
    if (kernel == NULL || arguments == NULL || blank(operation))
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: %s is NULL or empty", function,
                           kernel == NULL      ? "kernel"
                           : arguments == NULL ? "arguments"
                                               : "operation");
    if (name == NULL)
        name = "kiln_elementwise";
    kiln_status status = check_identifier(function, name);
    const char *const fields[] = {"arguments", "operation"};
    const char *const texts[] = {arguments, operation};
    if (status == KILN_OK)
        status = array_generator_texts_check(function, fields, texts, 2,
                                             preamble);
    if (status != KILN_OK)
        return status;

    kiln_elementwise *made = calloc(1, sizeof *made);
    if (made == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    snprintf(made->what, sizeof made->what, "elementwise kernel '%s'", name);
    status = array_params_parse(made->what, arguments, &made->params);
    if (status != KILN_OK) {
        free(made);
        return status;
    }

    array_text source = {0};
    array_elementwise_source(&source, preamble, &made->params, operation,
                             name);
    status = array_kernel_build_text(context, &source, name, &made->kernel);
    if (status != KILN_OK) {
        array_error_prefix(status, "%s: %s", function, made->what);
        array_params_free(&made->params);
        free(made);
        return status;
    }
    made->magic = GENERATOR_MAGIC;
    atomic_init(&made->references, 1);
    *kernel = made;
    return KILN_OK;
}

kiln_status kiln_elementwise_retain(kiln_elementwise *kernel)
{
    if (kernel == NULL || kernel->magic != GENERATOR_MAGIC)
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "kiln_elementwise_retain: kernel is NULL or not "
                           "an elementwise kernel");
    atomic_fetch_add(&kernel->references, 1);
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_elementwise_release(kiln_elementwise *kernel)
{
    if (kernel == NULL || kernel->magic != GENERATOR_MAGIC)
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "kiln_elementwise_release: kernel is NULL or not "
                           "an elementwise kernel");
    if (atomic_fetch_sub(&kernel->references, 1) == 1) {
        kernel->magic = 0;
        array_release_kernel(kernel->kernel);
        array_params_free(&kernel->params);
        free(kernel);
    }
    return kiln_error_set(KILN_OK, NULL);
}

static kiln_status elementwise_run(const char *function,
                                   kiln_elementwise *kernel, int64_t start,
                                   int64_t step, size_t n, size_t arg_count,
                                   const kiln_arg *args, kiln_stream *stream)
{
    if (kernel == NULL || kernel->magic != GENERATOR_MAGIC)
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "%s: kernel is NULL or not an elementwise kernel",
                           function);
    kiln_status status =
        array_params_check(kernel->what, &kernel->params, arg_count, args);
    if (status == KILN_OK)
        status = array_check_count("kiln_elementwise_launch", kernel->what, n);
    if (status != KILN_OK)
        return status;
    if (n == 0)
        return kiln_error_set(KILN_OK, NULL);
    size_t first = 0;
    kiln_arg *all =
        array_params_args(&kernel->params, arg_count, args, 3, &first);
    if (all == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    status = array_elementwise_launch(kernel->kernel, n, start, step, first,
                                      all, stream);
    free(all);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s: %s", function, kernel->what);
    return KILN_OK;
}

kiln_status kiln_elementwise_launch(kiln_elementwise *kernel, size_t n,
                                    size_t arg_count, const kiln_arg *args,
                                    kiln_stream *stream)
{
    return elementwise_run(__func__, kernel, 0, 1, n, arg_count, args, stream);
}

kiln_status kiln_elementwise_launch_range(kiln_elementwise *kernel,
                                          int64_t start, int64_t step,
                                          size_t count, size_t arg_count,
                                          const kiln_arg *args,
                                          kiln_stream *stream)
{
    if (step == 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "kiln_elementwise_launch_range: step is 0");
    if (count > 0) {
        /* every index, the last included, in [0, INT64_MAX]; start is
         * checked first, so that INT64_MAX - start cannot overflow */
        uint64_t room = start < 0 ? 0
                        : step > 0 ? (uint64_t)(INT64_MAX - start)
                                   : (uint64_t)start;
        uint64_t stride = step > 0 ? (uint64_t)step : 0 - (uint64_t)step;
        if (start < 0 || (uint64_t)(count - 1) > room / stride)
            return array_error(KILN_ERR_INVALID_ARGUMENT,
                               "kiln_elementwise_launch_range: indices from "
                               "%lld by %lld (%zu of them) leave [0, 2^63)",
                               (long long)start, (long long)step, count);
    }
    return elementwise_run(__func__, kernel, start, step, count, arg_count,
                           args, stream);
}

/* ---- reduction ------------------------------------------------------------------- */

/* An instance of the reduction template (reduction.c), which array
 * reductions are instances of too: the source and launches are theirs. */
struct kiln_reduction {
    uint64_t magic;
    atomic_int references;
    kiln_context *context; /* kept alive by the program */
    kiln_program *program;
    array_params params;
    size_t value_size;
    char *name; /* the kernels' stem */
    char what[96];
};

kiln_status kiln_reduction_create(kiln_context *context, const char *type,
                                  const char *neutral,
                                  const char *reduce_expression,
                                  const char *map_expression,
                                  const char *arguments, const char *name,
                                  const char *preamble,
                                  kiln_reduction **reduction)
{
    static const char function[] = "kiln_reduction_create";
    if (context == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: context is NULL",
                           function);
    if (reduction == NULL || blank(type) || blank(neutral) ||
        blank(reduce_expression) || arguments == NULL)
        return array_error(
            KILN_ERR_INVALID_ARGUMENT, "%s: %s is NULL or empty", function,
            reduction == NULL          ? "reduction"
            : blank(type)              ? "type"
            : blank(neutral)           ? "neutral"
            : blank(reduce_expression) ? "reduce_expression"
                                       : "arguments");
    const char *const fields[] = {"type", "neutral", "reduce_expression",
                                  "map_expression", "arguments"};
    const char *const texts[] = {type, neutral, reduce_expression,
                                 map_expression, arguments};
    kiln_status checked =
        array_generator_texts_check(function, fields, texts, 5, preamble);
    if (checked != KILN_OK)
        return checked;
    kiln_reduction *made = calloc(1, sizeof *made);
    if (made == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    const char *input = NULL;
    kiln_status status = generator_prepare(
        function, type, name, "kiln_reduction", "reduction", "reduce",
        arguments, map_expression, "map expression", made->what,
        sizeof made->what, &made->value_size, &made->params, &input);
    if (status != KILN_OK) {
        free(made);
        return status;
    }
    if (name == NULL)
        name = "kiln_reduction";
    made->name = strdup(name);
    if (made->name == NULL) {
        array_params_free(&made->params);
        free(made);
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }

    const array_reduction_spec spec = {
        .type = type,
        .neutral = neutral,
        .reduce_expression = reduce_expression,
        .map_expression = blank(map_expression) ? NULL : map_expression,
        .preamble = preamble,
        .name = name,
    };
    array_text source = {0};
    status = array_reduction_source(&spec, &made->params, input, &source);
    if (status == KILN_OK)
        status = array_program_build(context, source.data, &made->program);
    array_text_free(&source);
    if (status != KILN_OK) {
        array_error_prefix(status, "%s: %s", function, made->what);
        array_params_free(&made->params);
        free(made->name);
        free(made);
        return status;
    }
    made->context = context;
    made->magic = GENERATOR_MAGIC + 1;
    atomic_init(&made->references, 1);
    *reduction = made;
    return KILN_OK;
}

static bool is_reduction(const kiln_reduction *reduction)
{
    return reduction != NULL && reduction->magic == GENERATOR_MAGIC + 1;
}

kiln_status kiln_reduction_retain(kiln_reduction *reduction)
{
    if (!is_reduction(reduction))
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "kiln_reduction_retain: reduction is NULL or not "
                           "a reduction");
    atomic_fetch_add(&reduction->references, 1);
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_reduction_release(kiln_reduction *reduction)
{
    if (!is_reduction(reduction))
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "kiln_reduction_release: reduction is NULL or not "
                           "a reduction");
    if (atomic_fetch_sub(&reduction->references, 1) == 1) {
        reduction->magic = 0;
        array_release_program(reduction->program);
        array_params_free(&reduction->params);
        free(reduction->name);
        free(reduction);
    }
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_reduction_run(kiln_reduction *reduction, size_t n,
                               size_t arg_count, const kiln_arg *args,
                               kiln_buffer *result, size_t result_offset,
                               kiln_stream *stream)
{
    static const char function[] = "kiln_reduction_run";
    if (!is_reduction(reduction) || result == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: %s is NULL%s",
                           function, result ? "reduction" : "result",
                           result ? " or not a reduction" : "");
    kiln_status status = array_params_check(reduction->what,
                                            &reduction->params, arg_count,
                                            args);
    if (status == KILN_OK)
        status = array_check_count(function, reduction->what, n);
    if (status != KILN_OK)
        return status;
    status = check_values_fit(function, "result", result, result_offset, 1,
                              reduction->value_size);
    if (status != KILN_OK)
        return status;
    kiln_buffer *result_base = NULL;
    size_t result_at = 0;
    status = array_buffer_base(function, "result", result, result_offset,
                               reduction->value_size, &result_base,
                               &result_at);
    if (status != KILN_OK)
        return status;
    size_t count = 0;
    kiln_arg *all =
        array_params_args(&reduction->params, arg_count, args, 0, &count);
    if (all == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    /* n indices are one row of the template's (outer, length, inner) */
    const array_reduction_run run = {
        .context = reduction->context,
        .name = reduction->name,
        .outer = 1,
        .length = n,
        .inner = 1,
        .acc_size = reduction->value_size,
        .arg_count = count,
        .args = all,
        .out = result_base,
        .out_index = result_at,
        .stream = stream,
    };
    status = array_reduction_launch(reduction->program, &run);
    free(all);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s: %s", function, reduction->what);
    return KILN_OK;
}

kiln_status kiln_reduction_run_to_host(kiln_reduction *reduction, size_t n,
                                       size_t arg_count, const kiln_arg *args,
                                       void *host, size_t size,
                                       kiln_stream *stream)
{
    static const char function[] = "kiln_reduction_run_to_host";
    if (!is_reduction(reduction))
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "%s: reduction is NULL or not a reduction",
                           function);
    if (host == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: host is NULL",
                           function);
    if (size != reduction->value_size)
        return array_error(KILN_ERR_INVALID_SIZE,
                           "%s: the result is %zu bytes, not %zu", function,
                           reduction->value_size, size);
    kiln_buffer *result = NULL;
    kiln_status status =
        kiln_buffer_create(reduction->context, reduction->value_size, &result);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s", function);
    status = kiln_reduction_run(reduction, n, arg_count, args, result, 0,
                                stream);
    if (status == KILN_OK)
        status = kiln_buffer_read_async(result, 0, host, size, stream);
    if (status == KILN_OK)
        status = array_stream_synchronize(reduction->context, stream);
    array_release_buffer(result);
    if (status != KILN_OK)
        return status;
    return kiln_error_set(KILN_OK, NULL);
}

/* ---- scan --------------------------------------------------------------------------- */

struct kiln_scan {
    uint64_t magic;
    atomic_int references;
    kiln_context *context;
    kiln_kernel *blocks, *blocks_buffer, *add;
    array_params params;
    size_t value_size;
    kiln_scan_kind kind;
    char what[96];
};

/* Loads one block of values, scans it in local memory and stores it; the
 * block's total goes to kiln_totals.  Each work-item scans SCAN_ITEMS
 * consecutive values, then the work-items' totals are scanned
 * Hillis-Steele style with a barrier at every step. */
static void add_scan_block_kernel(array_text *source, const char *head,
                                  const char *type, const char *neutral)
{
    array_text_add(
        source,
        "%2$s long kiln_n, __global %1$s *kiln_out, long kiln_out_index,\n"
        "    __global %1$s *kiln_totals, int kiln_exclusive)\n"
        "{\n"
        "    KILN_ARGUMENT_VIEWS\n"
        "    __local %1$s kiln_values[%4$d * %5$d];\n"
        "    __local %1$s kiln_sums[%4$d];\n"
        "    const uint kiln_lid = get_local_id(0);\n"
        "    const long kiln_base = (long)get_group_id(0) * (%4$d * %5$d);\n"
        "    for (uint kiln_k = 0; kiln_k < %5$d; ++kiln_k) {\n"
        "        const long i = kiln_base + kiln_lid + kiln_k * %4$d;\n"
        "        kiln_values[kiln_lid + kiln_k * %4$d] =\n"
        "            i < kiln_n ? (%1$s)(KILN_INPUT(i)) : (%1$s)(%3$s);\n"
        "    }\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    const uint kiln_first = kiln_lid * %5$d;\n"
        "    %1$s kiln_run = kiln_values[kiln_first];\n"
        "    for (uint kiln_k = 1; kiln_k < %5$d; ++kiln_k)\n"
        "        kiln_run = KILN_SCAN(kiln_run, kiln_values[kiln_first + kiln_k]);\n"
        "    kiln_sums[kiln_lid] = kiln_run;\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (uint kiln_step = 1; kiln_step < %4$d; kiln_step *= 2) {\n"
        "        %1$s kiln_before = kiln_lid >= kiln_step\n"
        "            ? kiln_sums[kiln_lid - kiln_step] : (%1$s)(%3$s);\n"
        "        barrier(CLK_LOCAL_MEM_FENCE);\n"
        "        if (kiln_lid >= kiln_step)\n"
        "            kiln_sums[kiln_lid] = KILN_SCAN(kiln_before, kiln_sums[kiln_lid]);\n"
        "        barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    }\n"
        "    %1$s kiln_acc = kiln_lid > 0 ? kiln_sums[kiln_lid - 1] : (%1$s)(%3$s);\n"
        "    for (uint kiln_k = 0; kiln_k < %5$d; ++kiln_k) {\n"
        "        %1$s kiln_value = kiln_values[kiln_first + kiln_k];\n"
        "        if (kiln_exclusive) {\n"
        "            kiln_values[kiln_first + kiln_k] = kiln_acc;\n"
        "            kiln_acc = KILN_SCAN(kiln_acc, kiln_value);\n"
        "        } else {\n"
        "            kiln_acc = KILN_SCAN(kiln_acc, kiln_value);\n"
        "            kiln_values[kiln_first + kiln_k] = kiln_acc;\n"
        "        }\n"
        "    }\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (uint kiln_k = 0; kiln_k < %5$d; ++kiln_k) {\n"
        "        const long i = kiln_base + kiln_lid + kiln_k * %4$d;\n"
        "        if (i < kiln_n)\n"
        "            kiln_out[kiln_out_index + i] = kiln_values[kiln_lid + kiln_k * %4$d];\n"
        "    }\n"
        "    if (kiln_lid == 0)\n"
        "        kiln_totals[get_group_id(0)] = kiln_sums[%4$d - 1];\n"
        "}\n",
        type, head, neutral, ARRAY_GROUP_SIZE, SCAN_ITEMS);
}

kiln_status kiln_scan_create(kiln_context *context, const char *type,
                             const char *neutral, const char *scan_expression,
                             const char *input_expression,
                             const char *arguments, kiln_scan_kind kind,
                             const char *name, const char *preamble,
                             kiln_scan **scan)
{
    static const char function[] = "kiln_scan_create";
    if (context == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: context is NULL",
                           function);
    if (scan == NULL || blank(type) || blank(neutral) ||
        blank(scan_expression) || arguments == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: %s is NULL or empty", function,
                           scan == NULL              ? "scan"
                           : blank(type)             ? "type"
                           : blank(neutral)          ? "neutral"
                           : blank(scan_expression)  ? "scan_expression"
                                                     : "arguments");
    if (kind != KILN_SCAN_INCLUSIVE && kind != KILN_SCAN_EXCLUSIVE)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: kind %d is neither KILN_SCAN_INCLUSIVE nor "
                           "KILN_SCAN_EXCLUSIVE",
                           function, (int)kind);
    const char *const fields[] = {"type", "neutral", "scan_expression",
                                  "input_expression", "arguments"};
    const char *const texts[] = {type, neutral, scan_expression,
                                 input_expression, arguments};
    kiln_status checked =
        array_generator_texts_check(function, fields, texts, 5, preamble);
    if (checked != KILN_OK)
        return checked;
    kiln_scan *made = calloc(1, sizeof *made);
    if (made == NULL)
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    made->kind = kind;
    const char *input = NULL;
    kiln_status status = generator_prepare(
        function, type, name, "kiln_scan", "scan", "scan", arguments,
        input_expression, "input expression", made->what, sizeof made->what,
        &made->value_size, &made->params, &input);
    if (status != KILN_OK) {
        free(made);
        return status;
    }
    if (name == NULL)
        name = "kiln_scan";

    array_text source = {0};
    add_generator_head(&source, preamble, "KILN_SCAN", scan_expression,
                       "KILN_INPUT", input_expression, input);
    array_text head = {0};
    array_text_add(&head, "__kernel void %s_blocks(", name);
    array_params_add(&head, &made->params);
    array_params_add_views(&source, &made->params);
    add_scan_block_kernel(&source, head.failed ? "" : head.data, type,
                          neutral);
    array_text_free(&head);
    array_params_add_views(&source, NULL);
    array_text_add(&source,
                   "#undef KILN_INPUT\n#define KILN_INPUT(i) (kiln_in[i])\n");
    array_text_add(&head, "__kernel void %s_blocks_buffer("
                          "__global const %s *kiln_in, ", name, type);
    add_scan_block_kernel(&source, head.failed ? "" : head.data, type,
                          neutral);
    array_text_free(&head);
    /* Blocks after the first combine their values with the scanned totals
     * of the blocks before them. */
    array_text_add(
        &source,
        "__kernel void %1$s_add(__global %2$s *kiln_out, long kiln_out_index,\n"
        "    long kiln_n, __global const %2$s *kiln_carries)\n"
        "{\n"
        "    const long kiln_block = (long)get_group_id(0) + 1;\n"
        "    const %2$s kiln_carry = kiln_carries[kiln_block];\n"
        "    for (uint kiln_k = 0; kiln_k < %4$d; ++kiln_k) {\n"
        "        const long i = kiln_block * (%3$d * %4$d) + get_local_id(0)\n"
        "            + kiln_k * %3$d;\n"
        "        if (i < kiln_n)\n"
        "            kiln_out[kiln_out_index + i] =\n"
        "                KILN_SCAN(kiln_carry, kiln_out[kiln_out_index + i]);\n"
        "    }\n"
        "}\n",
        name, type, ARRAY_GROUP_SIZE, SCAN_ITEMS);

    kiln_program *program = NULL;
    if (source.failed || head.failed)
        status = array_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                             "out of host memory");
    else
        status = array_program_build(context, source.data, &program);
    array_text_free(&source);
    const char *suffixes[] = {"_blocks", "_blocks_buffer", "_add"};
    kiln_kernel **kernels[] = {&made->blocks, &made->blocks_buffer,
                               &made->add};
    for (size_t k = 0; k < 3 && status == KILN_OK; ++k) {
        /* as long as the name: a fixed buffer cut long ones short */
        size_t size = strlen(name) + strlen(suffixes[k]) + 1;
        char *kernel_name = malloc(size);
        if (kernel_name == NULL) {
            status = array_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                 "out of host memory");
            break;
        }
        snprintf(kernel_name, size, "%s%s", name, suffixes[k]);
        status = kiln_kernel_create(program, kernel_name, kernels[k]);
        free(kernel_name);
    }
    if (program != NULL)
        array_release_program(program);
    if (status != KILN_OK) {
        array_error_prefix(status, "%s: %s", function, made->what);
        for (size_t k = 0; k < 3; ++k)
            if (*kernels[k] != NULL)
                array_release_kernel(*kernels[k]);
        array_params_free(&made->params);
        free(made);
        return status;
    }
    made->context = context;
    made->magic = GENERATOR_MAGIC + 2;
    atomic_init(&made->references, 1);
    *scan = made;
    return KILN_OK;
}

static bool is_scan(const kiln_scan *scan)
{
    return scan != NULL && scan->magic == GENERATOR_MAGIC + 2;
}

kiln_status kiln_scan_retain(kiln_scan *scan)
{
    if (!is_scan(scan))
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "kiln_scan_retain: scan is NULL or not a scan");
    atomic_fetch_add(&scan->references, 1);
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_scan_release(kiln_scan *scan)
{
    if (!is_scan(scan))
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "kiln_scan_release: scan is NULL or not a scan");
    if (atomic_fetch_sub(&scan->references, 1) == 1) {
        scan->magic = 0;
        array_release_kernel(scan->blocks);
        array_release_kernel(scan->blocks_buffer);
        array_release_kernel(scan->add);
        array_params_free(&scan->params);
        free(scan);
    }
    return kiln_error_set(KILN_OK, NULL);
}

/* Scans n values into output[index...]: the block kernel (the user's input,
 * or `input` when it is not NULL), then, for several blocks, an exclusive
 * scan of the block totals (the same procedure, recursively) and the
 * carries added to every block after the first. */
static kiln_status scan_level(kiln_scan *scan, size_t n, size_t arg_count,
                              const kiln_arg *args, kiln_buffer *input,
                              kiln_buffer *output, size_t index,
                              bool exclusive, kiln_stream *stream)
{
    size_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
    kiln_buffer *totals = NULL;
    kiln_status status =
        kiln_buffer_create(scan->context, blocks * scan->value_size, &totals);
    if (status != KILN_OK)
        return status;
    size_t first = 0;
    kiln_arg *all =
        array_params_args(&scan->params, input ? 0 : arg_count, args, 6,
                          &first);
    if (all == NULL) {
        array_release_buffer(totals);
        return array_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    if (input != NULL)
        all[first++] = KILN_ARG_BUFFER(input);
    all[first] = KILN_ARG_LONG((int64_t)n);
    all[first + 1] = KILN_ARG_BUFFER(output);
    all[first + 2] = KILN_ARG_LONG((int64_t)index);
    all[first + 3] = KILN_ARG_BUFFER(totals);
    all[first + 4] = KILN_ARG_INT(exclusive ? 1 : 0);
    kiln_launch_config config = {.grid = KILN_DIM1(blocks),
                                 .block = KILN_DIM1(ARRAY_GROUP_SIZE),
                                 .stream = stream};
    status = kiln_launch(input ? scan->blocks_buffer : scan->blocks, &config,
                         first + 5, all);
    free(all);
    if (status == KILN_OK && blocks > 1) {
        kiln_buffer *carries = NULL;
        status = kiln_buffer_create(scan->context, blocks * scan->value_size,
                                    &carries);
        if (status == KILN_OK)
            status = scan_level(scan, blocks, 0, NULL, totals, carries, 0,
                                true, stream);
        if (status == KILN_OK) {
            config.grid = KILN_DIM1(blocks - 1);
            const kiln_arg add_args[] = {
                KILN_ARG_BUFFER(output), KILN_ARG_LONG((int64_t)index),
                KILN_ARG_LONG((int64_t)n), KILN_ARG_BUFFER(carries)};
            status = kiln_launch(scan->add, &config, 4, add_args);
        }
        if (carries != NULL)
            array_release_buffer(carries);
    }
    array_release_buffer(totals);
    return status;
}

kiln_status kiln_scan_run(kiln_scan *scan, size_t n, size_t arg_count,
                          const kiln_arg *args, kiln_buffer *output,
                          size_t output_offset, kiln_stream *stream)
{
    static const char function[] = "kiln_scan_run";
    if (!is_scan(scan) || output == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE, "%s: %s is NULL%s",
                           function, output ? "scan" : "output",
                           output ? " or not a scan" : "");
    kiln_status status =
        array_params_check(scan->what, &scan->params, arg_count, args);
    if (status == KILN_OK)
        status = array_check_count(function, scan->what, n);
    if (status != KILN_OK)
        return status;
    status = check_values_fit(function, "output", output, output_offset, n,
                              scan->value_size);
    if (status != KILN_OK)
        return status;
    if (n == 0)
        return kiln_error_set(KILN_OK, NULL);
    kiln_buffer *output_base = NULL;
    size_t output_at = 0;
    status = array_buffer_base(function, "output", output, output_offset,
                               scan->value_size, &output_base, &output_at);
    if (status != KILN_OK)
        return status;
    status = scan_level(scan, n, arg_count, args, NULL, output_base,
                        output_at, scan->kind == KILN_SCAN_EXCLUSIVE, stream);
    if (status != KILN_OK)
        return array_error_prefix(status, "%s: %s", function, scan->what);
    return kiln_error_set(KILN_OK, NULL);
}
