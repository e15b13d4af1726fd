/*
 * The front end's public face (translate.h): a program preprocessed once,
 * then translated into its target's language or read for its signatures,
 * with what the passes give (opencl_to_cuda.c, cuda_to_opencl.c) turned
 * into the one description the core uses for both directions.
 */
#include "translate.h"

#include "cuda_to_opencl.h"
#include "lexer.h"
#include "opencl_to_cuda.h"
#include "preprocess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct translate_unit {
    const translate_input *input;
    /* Translated, or read (CUDA C in its own language: the driver tells
     * only parameter sizes), rather than only expanded. */
    int translating;
    int reading;
    /* The unit's arena, interner and failure record: the preprocessing
     * and the pass share them (the pass reads the preprocessor's tokens). */
    clc_run run;
    int run_started;
    int preprocessed;             /* pp holds the program's tokens        */
    clc_pp_output pp;
    /* The text a build compiles and the cache key covers. */
    const char *text;
    size_t length;
    char *expanded;               /* malloc'ed by clc_expand_includes     */
    /* The first #include left to the compiler (translate_left); in the
     * run's arena, or `left_owned`. */
    const char *left;
    char *left_owned;
    /* Reading: why the preprocessing failed (the text is then only
     * expanded, and translate_read reports this). */
    translate_error read_failure;
    /* What a pass gives, here rather than in a frame a failure unwinds. */
    opencl_to_cuda_result from_opencl;
    cuda_to_opencl_result from_cuda;
    /* Translating CUDA C: the caller's reader, with cuComplex.h and
     * math_constants.h given their text for OpenCL (cuda_headers.c). */
    translate_include_reader cuda_headers;
};

static const char default_name[] = "<kiln program>";

static const char *unit_name(const translate_unit *unit)
{
    return unit->input->name ? unit->input->name : default_name;
}

/* The failure the run recorded, as the caller's error; the run stays
 * usable for translate_close (its arena holds the unit's text).  -1, or
 * -2 when memory ran out. */
static int unit_failed(translate_unit *unit, translate_error *error)
{
    clc_failure *failure = &unit->run.failure;
    int result = -2;
    if (!failure->out_of_memory && failure->message != NULL) {
        error->message = failure->message;
        error->line = failure->line;
        error->unsupported = unit->run.unsupported;
        result = -1;
    } else {
        free(failure->message);
    }
    failure->message = NULL;
    failure->out_of_memory = 0;
    unit->run.unsupported = 0;
    return result;
}

/* The one pass of the preprocessor for a program to translate or read:
 * its files inlined (the flattened text replaces the source as the unit's
 * text when it included any) and its macros expanded. */
static void unit_preprocess(translate_unit *unit)
{
    const translate_input *input = unit->input;
    const char *text = input->text ? input->text : "";
    translate_options options = {0};
    if (input->options != NULL)
        options = *input->options;
    int target_cuda = 0;
    if (input->language == TRANSLATE_CUDA_C) {
        if (unit->translating)
            text = cuda_to_opencl_filter(&unit->run, text, input->length,
                                         unit_name(unit));
        options = cuda_to_opencl_defines(&unit->run, input->options);
    } else {
        target_cuda = unit->translating;
    }
    const translate_include_reader *reader = input->reader;
    if (input->language == TRANSLATE_CUDA_C && unit->translating &&
        reader != NULL) {
        unit->cuda_headers.read = cuda_headers_read;
        unit->cuda_headers.context = (void *)reader;
        reader = &unit->cuda_headers;
    }
    clc_buffer flat;
    clc_buffer_init(&flat, &unit->run.arena);
    clc_preprocess_program(text, input->length, unit_name(unit), &options,
                           target_cuda, reader, unit->reading,
                           &unit->run.arena, &unit->run.interner, &unit->pp,
                           &flat);
    unit->preprocessed = 1;
    unit->left = unit->pp.left;
    if (unit->pp.included_files > 0) {
        unit->text = clc_buffer_text(&flat);
        unit->length = flat.length;
    }
}

/* The program's #include files inlined without expanding its macros: a
 * program its target compiles as it is. */
static int unit_expand(translate_unit *unit, translate_error *error)
{
    const translate_input *input = unit->input;
    clc_expansion expansion;
    int result = clc_expand_includes(input->text, input->length,
                                     unit_name(unit), input->options, 0,
                                     input->reader, &expansion);
    if (result == -1) {
        error->message = expansion.error;
        expansion.error = NULL;
    }
    if (result == 0) {
        unit->left = unit->left_owned = expansion.left;
        expansion.left = NULL;
    }
    if (result == 0 && expansion.text != NULL) {
        unit->expanded = expansion.text;
        unit->text = expansion.text;
        unit->length = expansion.length;
        expansion.text = NULL;
    }
    clc_expansion_free(&expansion);
    return result;
}

int translate_open(const translate_input *input, translate_unit **out,
                   translate_error *error)
{
    memset(error, 0, sizeof *error);
    *out = NULL;
    translate_unit *unit = calloc(1, sizeof *unit);
    if (unit == NULL)
        return -2;
    unit->input = input;
    unit->text = input->text ? input->text : "";
    unit->length = input->length;
    const translate_target *target = input->target;
    unit->translating = target != NULL && target->language != input->language;
    unit->reading = !unit->translating && input->language == TRANSLATE_CUDA_C;
    volatile int result = 0;
    if (!unit->translating && !unit->reading) {
        result = unit_expand(unit, error);
    } else if (clc_may_include(unit->text, unit->length)) {
        /* Only a program that may include something is preprocessed
         * now: the others are, when a pass needs them (a cache hit needs
         * only the text). */
        clc_run_begin(&unit->run);
        unit->run_started = 1;
        if (setjmp(unit->run.failure.unwind) == 0) {
            clc_interner_init(&unit->run.interner, &unit->run.arena);
            unit_preprocess(unit);
        } else if (unit->reading) {
            /* The native compiler may know what this preprocessor does
             * not (an #error it never reaches, its own headers): the text
             * is only expanded, and reading the signatures fails. */
            result = unit_failed(unit, &unit->read_failure);
            if (result == -1)
                result = unit_expand(unit, error);
        } else {
            result = unit_failed(unit, error);
        }
    }
    if (result != 0) {
        translate_close(unit);
        return result;
    }
    *out = unit;
    return 0;
}

const char *translate_text(const translate_unit *unit, size_t *length)
{
    *length = unit->length;
    return unit->text;
}

const char *translate_left(const translate_unit *unit)
{
    return unit->left;
}

int translate_needs_translation(const translate_unit *unit)
{
    return unit->translating;
}

void translate_close(translate_unit *unit)
{
    if (unit == NULL)
        return;
    if (unit->run_started)
        clc_run_end(&unit->run);
    free(unit->expanded);
    free(unit->left_owned);
    translate_error_free(&unit->read_failure);
    free(unit);
}

/* ---- parameters ------------------------------------------------------------ */

typedef struct scalar_name {
    const char *name;
    translate_scalar scalar;
    unsigned bytes;
} scalar_name;

/* The scalar spellings of OpenCL C and CUDA C (long is 8 bytes in both on
 * every host Kiln runs on). */
static const scalar_name scalar_names[] = {
    {"char", TRANSLATE_SCALAR_SIGNED, 1},
    {"schar", TRANSLATE_SCALAR_SIGNED, 1},
    {"uchar", TRANSLATE_SCALAR_UNSIGNED, 1},
    {"short", TRANSLATE_SCALAR_SIGNED, 2},
    {"ushort", TRANSLATE_SCALAR_UNSIGNED, 2},
    {"int", TRANSLATE_SCALAR_SIGNED, 4},
    {"uint", TRANSLATE_SCALAR_UNSIGNED, 4},
    {"long", TRANSLATE_SCALAR_SIGNED, 8},
    {"ulong", TRANSLATE_SCALAR_UNSIGNED, 8},
    {"longlong", TRANSLATE_SCALAR_SIGNED, 8},
    {"ulonglong", TRANSLATE_SCALAR_UNSIGNED, 8},
    {"size_t", TRANSLATE_SCALAR_UNSIGNED, 8},
    {"ptrdiff_t", TRANSLATE_SCALAR_SIGNED, 8},
    {"intptr_t", TRANSLATE_SCALAR_SIGNED, 8},
    {"uintptr_t", TRANSLATE_SCALAR_UNSIGNED, 8},
    {"int8_t", TRANSLATE_SCALAR_SIGNED, 1},
    {"uint8_t", TRANSLATE_SCALAR_UNSIGNED, 1},
    {"int16_t", TRANSLATE_SCALAR_SIGNED, 2},
    {"uint16_t", TRANSLATE_SCALAR_UNSIGNED, 2},
    {"int32_t", TRANSLATE_SCALAR_SIGNED, 4},
    {"uint32_t", TRANSLATE_SCALAR_UNSIGNED, 4},
    {"int64_t", TRANSLATE_SCALAR_SIGNED, 8},
    {"uint64_t", TRANSLATE_SCALAR_UNSIGNED, 8},
    {"bool", TRANSLATE_SCALAR_BOOL, 1},
    {"_Bool", TRANSLATE_SCALAR_BOOL, 1},
    {"half", TRANSLATE_SCALAR_FLOAT, 2},
    {"float", TRANSLATE_SCALAR_FLOAT, 4},
    {"double", TRANSLATE_SCALAR_FLOAT, 8},
};

static int skip_word(const char **text, const char *word)
{
    size_t length = strlen(word);
    if (strncmp(*text, word, length) != 0 ||
        ((*text)[length] != ' ' && (*text)[length] != '\0'))
        return 0;
    *text += length;
    while (**text == ' ')
        ++*text;
    return 1;
}

/* Fills the descriptor of a value of type `type_name` ("uint", "unsigned
 * int", "const float", "float4", "long long"): a vector keeps its
 * element's kind and its length, anything else (a struct, a typedef) is
 * unknown. */
static void describe_value(const char *type_name, translate_param *param)
{
    param->scalar = TRANSLATE_SCALAR_UNKNOWN;
    param->scalar_bytes = 0;
    param->vector_length = 0;
    const char *text = type_name;
    int is_unsigned = 0, is_signed = 0, longs = 0, shorts = 0;
    for (;;) {
        if (skip_word(&text, "const") || skip_word(&text, "volatile") ||
            skip_word(&text, "__private") || skip_word(&text, "private"))
            continue;
        if (skip_word(&text, "unsigned")) {
            is_unsigned = 1;
            continue;
        }
        if (skip_word(&text, "signed")) {
            is_signed = 1;
            continue;
        }
        if (skip_word(&text, "long")) {
            ++longs;
            continue;
        }
        if (skip_word(&text, "short")) {
            ++shorts;
            continue;
        }
        break;
    }
    char word[32];
    size_t length = strcspn(text, " ");
    if (length >= sizeof word)
        return;
    memcpy(word, text, length);
    word[length] = '\0';
    const char *rest = text + length;
    while (*rest == ' ')
        ++rest;
    while (skip_word(&rest, "const") || skip_word(&rest, "int") ||
           skip_word(&rest, "long"))
        ++longs; /* "int const", "long int": only "long" counts below */
    if (*rest != '\0')
        return;
    if (word[0] == '\0' || strcmp(word, "int") == 0)
        strcpy(word, longs ? "long" : shorts ? "short" : "int");
    else if (strcmp(word, "char") == 0 && is_signed)
        strcpy(word, "schar");
    /* "float4": the element and the lanes */
    unsigned lanes = 1;
    size_t letters = strcspn(word, "0123456789");
    if (word[letters] != '\0') {
        lanes = (unsigned)strtoul(word + letters, NULL, 10);
        if (lanes != 1 && lanes != 2 && lanes != 3 && lanes != 4 &&
            lanes != 8 && lanes != 16)
            return;
        if (strcmp(word, "int8_t") == 0 || strcmp(word, "int16_t") == 0 ||
            strcmp(word, "int32_t") == 0 || strcmp(word, "int64_t") == 0 ||
            strcmp(word, "uint8_t") == 0 || strcmp(word, "uint16_t") == 0 ||
            strcmp(word, "uint32_t") == 0 || strcmp(word, "uint64_t") == 0)
            lanes = 1; /* the digits are the width, not the lanes */
        else
            word[letters] = '\0';
    }
    for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0];
         ++i) {
        if (strcmp(word, scalar_names[i].name) != 0)
            continue;
        param->scalar = scalar_names[i].scalar;
        param->scalar_bytes = scalar_names[i].bytes;
        if (is_unsigned && param->scalar == TRANSLATE_SCALAR_SIGNED)
            param->scalar = TRANSLATE_SCALAR_UNSIGNED;
        param->vector_length = lanes;
        return;
    }
}

/* strlen, but at most `limit`. */
static size_t text_length(const char *text, size_t limit)
{
    size_t length = 0;
    while (length < limit && text[length] != '\0')
        ++length;
    return length;
}

/* A parameter as a pass gave it, described. */
static void param_convert(const clc_param *from, translate_param *to)
{
    memset(to, 0, sizeof *to);
    memcpy(to->name, from->name, sizeof to->name);
    to->name[sizeof to->name - 1] = '\0';
    size_t type_length = text_length(from->type_name, sizeof to->type_name - 1);
    memcpy(to->type_name, from->type_name, type_length);
    to->size = from->size;
    switch (from->kind) {
    case CLC_PARAM_GLOBAL:
        to->kind = TRANSLATE_PARAM_BUFFER;
        to->space = TRANSLATE_SPACE_GLOBAL;
        break;
    case CLC_PARAM_CONSTANT:
        to->kind = TRANSLATE_PARAM_BUFFER;
        to->space = TRANSLATE_SPACE_CONSTANT;
        break;
    case CLC_PARAM_LOCAL:
        to->kind = TRANSLATE_PARAM_LOCAL;
        to->space = TRANSLATE_SPACE_LOCAL;
        break;
    case CLC_PARAM_VALUE:
    default:
        to->kind = TRANSLATE_PARAM_VALUE;
        to->space = TRANSLATE_SPACE_PRIVATE;
        break;
    }
    if (to->kind == TRANSLATE_PARAM_VALUE) {
        describe_value(to->type_name, to);
        return;
    }
    /* a pointer: its pointee, "float*" -> "float" */
    char pointee[sizeof to->type_name];
    memcpy(pointee, to->type_name, sizeof pointee);
    char *star = strrchr(pointee, '*');
    if (star != NULL)
        *star = '\0';
    size_t length = strlen(pointee);
    while (length > 0 && pointee[length - 1] == ' ')
        pointee[--length] = '\0';
    translate_param described;
    describe_value(pointee, &described);
    to->scalar = described.scalar;
    to->scalar_bytes = described.scalar_bytes;
    to->vector_length = described.vector_length;
}

static int kernel_convert(const clc_kernel_signature *from,
                          const char *native_name, translate_kernel *to)
{
    memcpy(to->name, from->name, sizeof to->name);
    to->name[sizeof to->name - 1] = '\0';
    size_t length = text_length(native_name, sizeof to->native_name - 1);
    memcpy(to->native_name, native_name, length);
    to->native_name[length] = '\0';
    memcpy(to->required_block, from->reqd_work_group,
           sizeof to->required_block);
    to->params = calloc(from->param_count ? from->param_count : 1,
                        sizeof *to->params);
    if (to->params == NULL)
        return -2;
    to->param_count = from->param_count;
    for (size_t p = 0; p < from->param_count; ++p)
        param_convert(&from->params[p], &to->params[p]);
    return 0;
}

/* ---- the passes' results, described ----------------------------------------- */

static int from_opencl(translate_unit *unit, opencl_to_cuda_result *result,
                       translate_program *out)
{
    out->language = TRANSLATE_CUDA_C;
    out->text = result->source;
    out->length = strlen(result->source);
    result->source = NULL;
    out->uses_double = result->uses_double;
    out->uses_printf = result->uses_printf;
    out->local_params_are_offsets = 1;
    const translate_target *target = unit->input->target;
    if (opencl_to_cuda_options(unit->input->options, TRANSLATE_OPENCL_C,
                               result->fp_contract_off,
                               target->compiler_version, &out->options) != 0)
        return -2;
    /* The prelude's parts the program uses: NVRTC's time grows with every
     * line it reads. */
    size_t selected_length = 0;
    out->storage = prelude_cuda_select(translate_prelude_cuda(), out->text,
                                       &selected_length);
    out->headers = calloc(2, sizeof *out->headers);
    if (out->storage == NULL || out->headers == NULL)
        return -2;
    out->header_count = 1;
    out->headers[0] = (translate_header){TRANSLATE_PRELUDE_CUDA_HEADER,
                                         out->storage, selected_length};
    if (strcmp(out->storage, translate_prelude_cuda()) != 0) {
        out->whole_headers = &out->headers[1];
        out->headers[1] = (translate_header){
            TRANSLATE_PRELUDE_CUDA_HEADER, translate_prelude_cuda(),
            strlen(translate_prelude_cuda())};
    }
    out->kernels = calloc(result->kernel_count ? result->kernel_count : 1,
                          sizeof *out->kernels);
    if (out->kernels == NULL)
        return -2;
    for (size_t k = 0; k < result->kernel_count; ++k) {
        const clc_kernel_signature *kernel = &result->kernels[k];
        translate_kernel *to = &out->kernels[k];
        out->kernel_count = k + 1;
        if (kernel_convert(kernel, kernel->name, to) != 0)
            return -2;
        if (!result->uses_work_dim)
            continue;
        to->hidden = calloc(1, sizeof *to->hidden);
        if (to->hidden == NULL)
            return -2;
        to->hidden[0].kind = TRANSLATE_HIDDEN_WORK_DIM;
        to->hidden_count = 1;
    }
    return 0;
}

/* The names a translated kernel is listed under: its function's, or the
 * host's names of it (a kernel template's instance, a kernel in a
 * namespace: cuda_kernel_name). */
static size_t kernel_aliases(const cuda_to_opencl_result *result,
                             const cuda_kernel *kernel, const char **names,
                             size_t room)
{
    size_t count = 0;
    for (size_t a = 0; a < result->kernel_name_count && count < room; ++a)
        if (strcmp(result->kernel_names[a].function,
                   kernel->signature.name) == 0)
            names[count++] = result->kernel_names[a].expression;
    if (count == 0)
        names[count++] = kernel->signature.name;
    return count;
}

static int hidden_convert(const cuda_kernel *kernel, translate_kernel *to)
{
    to->hidden = calloc(kernel->hidden_count ? kernel->hidden_count : 1,
                        sizeof *to->hidden);
    if (to->hidden == NULL)
        return -2;
    for (size_t h = 0; h < kernel->hidden_count; ++h) {
        to->hidden[h].kind =
            kernel->hidden[h].kind == CUDA_HIDDEN_DYNAMIC_SHARED
                ? TRANSLATE_HIDDEN_DYNAMIC_LOCAL
            : kernel->hidden[h].kind == CUDA_HIDDEN_POINTER_OFFSET
                ? TRANSLATE_HIDDEN_POINTER_OFFSET
                : TRANSLATE_HIDDEN_VARIABLE;
        to->hidden[h].variable = kernel->hidden[h].variable;
    }
    to->hidden_count = kernel->hidden_count;
    return 0;
}

static int from_cuda(const cuda_to_opencl_result *result, int translated,
                     translate_program *out)
{
    size_t listed = result->kernel_count + result->kernel_name_count +
                    result->refused_count;
    out->kernels = calloc(listed ? listed : 1, sizeof *out->kernels);
    out->variables = calloc(result->variable_count ? result->variable_count
                                                   : 1,
                            sizeof *out->variables);
    const char **names = calloc(listed + 1, sizeof *names);
    int status = out->kernels == NULL || out->variables == NULL ||
                         names == NULL ? -2 : 0;
    for (size_t k = 0; status == 0 && k < result->kernel_count; ++k) {
        const cuda_kernel *kernel = &result->kernels[k];
        size_t count = kernel_aliases(result, kernel, names, listed + 1);
        for (size_t a = 0; status == 0 && a < count; ++a) {
            translate_kernel *to = &out->kernels[out->kernel_count++];
            cuda_kernel renamed = *kernel;
            snprintf(renamed.signature.name, sizeof renamed.signature.name,
                     "%s", names[a]);
            status = kernel_convert(&renamed.signature,
                                    translated ? kernel->native_name
                                               : kernel->signature.name,
                                    to);
            if (status == 0)
                status = hidden_convert(kernel, to);
        }
    }
    free(names);
    for (size_t r = 0; status == 0 && r < result->refused_count; ++r) {
        /* under the host's names of it too (a kernel template's instance
         * asked for by name), so that asking gets the refusal */
        const char *aliases[64];
        size_t count = 0;
        for (size_t a = 0; a < result->kernel_name_count && count < 64; ++a)
            if (strcmp(result->kernel_names[a].function,
                       result->refused[r].name) == 0)
                aliases[count++] = result->kernel_names[a].expression;
        if (count == 0)
            aliases[count++] = result->refused[r].name;
        for (size_t a = 0; status == 0 && a < count; ++a) {
            translate_kernel *to = &out->kernels[out->kernel_count++];
            snprintf(to->name, sizeof to->name, "%s", aliases[a]);
            snprintf(to->native_name, sizeof to->native_name, "%s", to->name);
            size_t length = strlen(result->refused[r].message);
            to->refusal = malloc(length + 1);
            if (to->refusal == NULL)
                status = -2;
            else
                memcpy(to->refusal, result->refused[r].message, length + 1);
        }
    }
    if (status != 0)
        return status;
    for (size_t v = 0; v < result->variable_count; ++v) {
        translate_variable *to = &out->variables[v];
        memcpy(to->name, result->variables[v].name, sizeof to->name);
        to->name[sizeof to->name - 1] = '\0';
        to->is_constant = result->variables[v].is_constant;
        to->has_initializer = result->variables[v].has_initializer;
    }
    out->variable_count = result->variable_count;
    return 0;
}

/* The options of CUDA C translated to OpenCL C: NVRTC's mean nothing to an
 * OpenCL compiler (-D and -U were applied by the translation), but fast
 * math asked for is fast math: -cl-fast-relaxed-math, or with --fmad=false
 * as well its parts but the permission to contract (it implies
 * -cl-mad-enable). */
static int cuda_options_for_opencl(const cuda_to_opencl_result *result,
                                   translate_option_lists *out)
{
    const char *words[4];
    size_t count = 0;
    if (result->fast_math && result->fp_contract_off) {
        words[count++] = "-cl-finite-math-only";
        words[count++] = "-cl-no-signed-zeros";
    } else if (result->fast_math) {
        words[count++] = "-cl-fast-relaxed-math";
    }
    /* CUDA divides and takes square roots correctly rounded unless fast
     * math is asked for (-prec-div and -prec-sqrt default to true);
     * OpenCL allows 2.5 and 3 ulp unless told (NVIDIA's OpenCL on an H200
     * gave 4 of 2048 sqrtf and __fdiv_rn results one ulp off without it). */
    if (!result->fast_math)
        words[count++] = "-cl-fp32-correctly-rounded-divide-sqrt";
    /* the dialect the device's float atomics need */
    char cl_std[32];
    if (result->cl_std != NULL) {
        snprintf(cl_std, sizeof cl_std, "-cl-std=%s", result->cl_std);
        words[count++] = cl_std;
    }
    return translate_options_parse_words(words, count, out);
}

int translate_to_target(translate_unit *unit, translate_program *out,
                        translate_error *error)
{
    memset(out, 0, sizeof *out);
    memset(error, 0, sizeof *error);
    if (!unit->translating)
        return -1;
    opencl_to_cuda_result *from_cl = &unit->from_opencl;
    cuda_to_opencl_result *from_cu = &unit->from_cuda;
    cuda_kernel_request request = {unit->input->kernel_names,
                                   unit->input->kernel_name_count};
    if (!unit->run_started) {
        clc_run_begin(&unit->run);
        unit->run_started = 1;
        clc_interner_init(&unit->run.interner, &unit->run.arena);
    }
    volatile int result = 0;
    if (setjmp(unit->run.failure.unwind) != 0) {
        result = unit_failed(unit, error);
    } else {
        if (!unit->preprocessed)
            unit_preprocess(unit);
        if (unit->input->language == TRANSLATE_OPENCL_C) {
            opencl_to_cuda_run(&unit->run, &unit->pp, from_cl);
            result = from_opencl(unit, from_cl, out);
        } else {
            cuda_to_opencl_run(&unit->run, &unit->pp, unit->input->options,
                               unit->input->target, &request, from_cu);
            out->language = TRANSLATE_OPENCL_C;
            out->text = from_cu->source;
            out->length = strlen(from_cu->source);
            from_cu->source = NULL;
            out->uses_double = from_cu->uses_double;
            result = from_cuda(from_cu, 1, out);
            if (result == 0)
                result = cuda_options_for_opencl(from_cu, &out->options);
        }
    }
    opencl_to_cuda_result_free(from_cl);
    cuda_to_opencl_result_free(from_cu);
    if (result != 0)
        translate_program_free(out);
    return result;
}

int translate_read(translate_unit *unit, translate_program *out,
                   translate_error *error)
{
    memset(out, 0, sizeof *out);
    memset(error, 0, sizeof *error);
    if (unit->read_failure.message != NULL) {
        error->message = malloc(strlen(unit->read_failure.message) + 1);
        if (error->message == NULL)
            return -2;
        strcpy(error->message, unit->read_failure.message);
        error->line = unit->read_failure.line;
        return -1;
    }
    if (unit->input->language != TRANSLATE_CUDA_C || unit->translating)
        return -1;
    cuda_to_opencl_result *from_cu = &unit->from_cuda;
    cuda_kernel_request request = {unit->input->kernel_names,
                                   unit->input->kernel_name_count};
    if (!unit->run_started) {
        clc_run_begin(&unit->run);
        unit->run_started = 1;
        clc_interner_init(&unit->run.interner, &unit->run.arena);
    }
    volatile int result = 0;
    if (setjmp(unit->run.failure.unwind) != 0) {
        result = unit_failed(unit, error);
    } else {
        if (!unit->preprocessed)
            unit_preprocess(unit);
        cuda_to_opencl_read(&unit->run, &unit->pp, &request, from_cu);
        out->language = TRANSLATE_CUDA_C;
        result = from_cuda(from_cu, 0, out);
    }
    cuda_to_opencl_result_free(from_cu);
    if (result != 0)
        translate_program_free(out);
    return result;
}

void translate_target_choices(translate_language language,
                              const translate_target *target, char *out,
                              size_t size)
{
    static const char *const atomics[] = {"cas", "ptx",
                                          "cl_ext_float_atomics"};
    if (size == 0)
        return;
    out[0] = '\0';
    if (language == TRANSLATE_CUDA_C && target != NULL &&
        target->language == TRANSLATE_OPENCL_C)
        snprintf(out, size, "float atomics %s%s%s",
                 atomics[cuda_to_opencl_float_atomics(target, NULL)],
                 cuda_to_opencl_drops_unroll_hints(target)
                     ? "; unroll hints dropped"
                     : "",
                 cuda_to_opencl_lacks_fp64(target) ? "; no fp64" : "");
}

int translate_native_options(const translate_input *input,
                             translate_option_lists *out)
{
    memset(out, 0, sizeof *out);
    const translate_target *target = input->target;
    /* OpenCL compilers take the options as they are. */
    if (target == NULL || target->language != TRANSLATE_CUDA_C)
        return 0;
    /* NVRTC ignores #pragma OPENCL FP_CONTRACT OFF: --fmad=false says it */
    int fp_contract_off =
        input->language == TRANSLATE_CUDA_C &&
        cuda_fp_contract_pragma(input->text, input->length, input->options);
    if (opencl_to_cuda_options(input->options, input->language,
                               fp_contract_off, target->compiler_version,
                               out) != 0)
        return -2;
    return 1;
}

char *translate_user_names(const char *text)
{
    static const char *const prefixes[] = {"kl_kw_", "kl_local_offset_"};
    char *copy = malloc(strlen(text) + 1);
    if (copy == NULL)
        return NULL;
    strcpy(copy, text);
    for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; ++p) {
        size_t length = strlen(prefixes[p]);
        char *found;
        while ((found = strstr(copy, prefixes[p])) != NULL)
            memmove(found, found + length, strlen(found + length) + 1);
    }
    return copy;
}

void translate_program_free(translate_program *program)
{
    if (program == NULL)
        return;
    free(program->text);
    translate_option_lists_free(&program->options);
    free(program->headers);
    free(program->storage);
    for (size_t k = 0; k < program->kernel_count; ++k) {
        free(program->kernels[k].params);
        free(program->kernels[k].hidden);
        free(program->kernels[k].refusal);
    }
    free(program->kernels);
    free(program->variables);
    memset(program, 0, sizeof *program);
}

void translate_error_free(translate_error *error)
{
    free(error->message);
    memset(error, 0, sizeof *error);
}
