/*
 * Build options for NVRTC: the OpenCL-style options a Kiln program may be
 * built with, as NVRTC takes them.  Every program built for the CUDA
 * backend goes through here, whatever its language, so that one option
 * string serves every backend.
 */
#include "opencl_to_cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * OpenCL build options have no meaning to NVRTC (which rejects what it does
 * not know, -cl-std included), so each is mapped to what gives the same
 * semantics, or dropped when CUDA already behaves that way or cannot be
 * told.  Options not in this table and not -cl-* reach NVRTC as they are,
 * so NVRTC options (--maxrregcount=32, -lineinfo, --extra-device-
 * vectorization, ...) work, and a misspelt option fails the build with
 * NVRTC's "unrecognized option" message.
 */
typedef struct option_rule {
    const char *option;
    int is_prefix;        /* matches every option starting with `option` */
    const char *nvrtc[2]; /* replacements; none: dropped                 */
} option_rule;

static const option_rule option_rules[] = {
    /* Fast math: approximate division, square root and transcendentals,
     * denormals flushed, contraction: NVRTC's --use_fast_math. */
    {"-cl-fast-relaxed-math", 0, {"--use_fast_math", NULL}},
    {"-cl-unsafe-math-optimizations", 0, {"--use_fast_math", NULL}},
    /* a*b+c may be contracted: NVRTC's default, made explicit. */
    {"-cl-mad-enable", 0, {"--fmad=true", NULL}},
    /* NVRTC cannot turn optimisation off without -G (debug code, several
     * times slower).  What disabling optimisation changes in a result is
     * contraction into FMA, so that is what is turned off. */
    {"-cl-opt-disable", 0, {"--fmad=false", NULL}},
    {"-cl-denorms-are-zero", 0, {"--ftz=true", NULL}},
    /* NVRTC's defaults, made explicit. */
    {"-cl-fp32-correctly-rounded-divide-sqrt", 0,
     {"--prec-div=true", "--prec-sqrt=true"}},
    /* Permissions to the optimiser that NVRTC has no switch for: without
     * them the results are the exact IEEE ones, which OpenCL allows. */
    {"-cl-finite-math-only", 0, {NULL, NULL}},
    {"-cl-no-signed-zeros", 0, {NULL, NULL}},
    {"-cl-strict-aliasing", 0, {NULL, NULL}},
    /* Double constants stay double: results can only be more precise than
     * with the option (NVRTC has no equivalent). */
    {"-cl-single-precision-constant", 0, {NULL, NULL}},
    /* The dialect is the translator's business. */
    {"-cl-std=", 1, {NULL, NULL}},
    /* Parameter names and types always come from the translation. */
    {"-cl-kernel-arg-info", 0, {NULL, NULL}},
    /* CUDA grids are always whole blocks. */
    {"-cl-uniform-work-group-size", 0, {NULL, NULL}},
    {"-cl-no-subgroup-ifp", 0, {NULL, NULL}},
    /* NVRTC optimises fully by default and has no -O levels. */
    {"-O", 0, {NULL, NULL}},
    {"-O0", 0, {NULL, NULL}},
    {"-O1", 0, {NULL, NULL}},
    {"-O2", 0, {NULL, NULL}},
    {"-O3", 0, {NULL, NULL}},
    {"-Os", 0, {NULL, NULL}},
    /* Source-level debug info without -G's unoptimised code. */
    {"-g", 0, {"-lineinfo", NULL}},
    {"-w", 0, {"-w", NULL}},
    /* Any other OpenCL option: nothing NVRTC could do with it. */
    {"-cl-", 1, {NULL, NULL}},
};

/* Options every translated OpenCL C program needs: helper functions
 * without qualifiers are device functions, and the prelude is C++17. */
static const char *const translated_options[] = {
    "-default-device",
    "-std=c++17",
    /* C allows narrowing in brace initialisers (`float a[2] = {i, j}`);
     * C++ warns about every one. */
    "--diag-suppress=2361",
};

/* A growing list of option words, each malloc'ed. */
typedef struct word_list {
    char **words;
    size_t count, capacity;
    int failed;
} word_list;

static void word_add(word_list *list, const char *prefix, const char *text,
                     const char *separator, const char *value)
{
    if (list->failed)
        return;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 16;
        char **grown = realloc(list->words, capacity * sizeof *grown);
        if (grown == NULL) {
            list->failed = 1;
            return;
        }
        list->words = grown;
        list->capacity = capacity;
    }
    size_t size = strlen(prefix) + strlen(text) + strlen(separator) +
                  (value ? strlen(value) : 0) + 1;
    char *word = malloc(size);
    if (word == NULL) {
        list->failed = 1;
        return;
    }
    snprintf(word, size, "%s%s%s%s", prefix, text, separator,
             value ? value : "");
    list->words[list->count++] = word;
}

static const option_rule *option_rule_find(const char *word)
{
    size_t count = sizeof option_rules / sizeof option_rules[0];
    for (size_t i = 0; i < count; ++i) {
        const option_rule *rule = &option_rules[i];
        if (rule->is_prefix ? strncmp(word, rule->option,
                                      strlen(rule->option)) == 0
                            : strcmp(word, rule->option) == 0)
            return rule;
    }
    return NULL;
}

int opencl_to_cuda_options(const translate_options *user,
                           translate_language source_language,
                           int fp_contract_off, unsigned compiler_version,
                           translate_option_lists *out)
{
    static const translate_options none;
    if (user == NULL)
        user = &none;
    word_list list = {NULL, 0, 0, 0};
    if (source_language == TRANSLATE_OPENCL_C) {
        size_t n = sizeof translated_options / sizeof translated_options[0];
        for (size_t i = 0; i < n; ++i)
            word_add(&list, "", translated_options[i], "", NULL);
        /* NVRTC 12.4 and later can leave out the CUDA runtime's
         * declarations (textures, cudaMalloc, device-side launches), which
         * a translation never uses: about 7 ms less per build, the same
         * PTX. */
        if (compiler_version >= 12040)
            word_add(&list, "", "-minimal", "", NULL);
    } else {
        /* The translator has already applied -D and -U to OpenCL C (its
         * preprocessor runs before the translation): NVRTC must not see
         * user macros again, where they could clash with the prelude's
         * identifiers.  CUDA C is NVRTC's own to preprocess. */
        for (size_t i = 0; i < user->define_count; ++i) {
            const translate_define *define = &user->defines[i];
            word_add(&list, define->value ? "-D" : "-U", define->name,
                     define->value ? "=" : "", define->value);
        }
        for (size_t i = 0; i < user->include_dir_count; ++i)
            word_add(&list, "-I", user->include_dirs[i], "", NULL);
    }
    for (size_t i = 0; i < user->flag_count; ++i) {
        const char *word = user->flags[i];
        const option_rule *rule = option_rule_find(word);
        if (rule == NULL) {
            word_add(&list, "", word, "", NULL);
            continue;
        }
        for (int r = 0; r < 2 && rule->nvrtc[r] != NULL; ++r)
            word_add(&list, "", rule->nvrtc[r], "", NULL);
    }
    /* Last, so that it wins over -cl-mad-enable and fast math. */
    if (fp_contract_off)
        word_add(&list, "", "--fmad=false", "", NULL);
    int result = list.failed ? -2
                             : translate_options_parse_words(
                                   (const char *const *)list.words,
                                   list.count, out);
    for (size_t i = 0; i < list.count; ++i)
        free(list.words[i]);
    free(list.words);
    return result == 0 ? 0 : -2;
}
