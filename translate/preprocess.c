/*
 * The C preprocessor of the OpenCL C translation pass (see
 * preprocess.h).
 *
 * Macro expansion follows Prosser's algorithm (the one the C standard's
 * rescanning rules describe): every token carries a hide set, the names of
 * the macros whose expansion produced it, and a name in its own hide set
 * never expands again.  Expansion is bounded in depth and in the tokens it
 * may produce, so no input makes it run away.
 */
#include "preprocess_state.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- driving --------------------------------------------------------------- */

static void pp_run_file(pp_state *st, const char *text, size_t length,
                        uint16_t file)
{
    clc_token_array tokens = {NULL, 0, 0};
    clc_lex(text, length, file, 1, st->arena, st->interner, &tokens);
    const clc_token *saved_tokens = st->file_tokens;
    size_t saved_pos = st->file_pos;
    st->file_tokens = tokens.tokens;
    st->file_pos = 0;
    st->line_delta = 0;
    st->file = file;
    for (;;) {
        pp_tok *tok = pp_read(st);
        if (tok == &st->eof)
            break;
        if (tok->t.kind == CLC_TOK_IDENT) {
            if (tok->t.ident == W__Pragma) {
                pp_pragma_operator(st, tok);
                continue;
            }
            if (pp_try_expand(st, tok))
                continue;
        }
        tok->t.flags &= (uint8_t)~CLC_TF_NOEXPAND;
        pp_emit(st, &tok->t);
    }
    st->file_tokens = saved_tokens;
    st->file_pos = saved_pos;
}

/* OpenCL C 1.2's predefined macros (6.10, and the macros of its headers
 * that programs test with #ifdef or use in constant expressions). */
static const char pp_predefined[] =
    "#define __OPENCL_VERSION__ 120\n"
    "#define CL_VERSION_1_0 100\n"
    "#define CL_VERSION_1_1 110\n"
    "#define CL_VERSION_1_2 120\n"
    "#define CL_VERSION_2_0 200\n"
    "#define CL_VERSION_3_0 300\n"
    "#define __ENDIAN_LITTLE__ 1\n"
    "#define __EMBEDDED_PROFILE__ 0\n"
    "#undef __EMBEDDED_PROFILE__\n"
    "#define __kernel_exec(X, typen) __kernel "
    "__attribute__((work_group_size_hint(X, 1, 1))) "
    "__attribute__((vec_type_hint(typen)))\n"
    "#define kernel_exec(X, typen) __kernel "
    "__attribute__((work_group_size_hint(X, 1, 1))) "
    "__attribute__((vec_type_hint(typen)))\n"
    "#define FP_FAST_FMA 1\n"
    "#define FP_FAST_FMAF 1\n"
    "#define cl_khr_fp64 1\n"
    "#define cl_khr_int64_base_atomics 1\n"
    "#define cl_khr_int64_extended_atomics 1\n"
    "#define cl_khr_global_int32_base_atomics 1\n"
    "#define cl_khr_global_int32_extended_atomics 1\n"
    "#define cl_khr_local_int32_base_atomics 1\n"
    "#define cl_khr_local_int32_extended_atomics 1\n"
    "#define cl_khr_byte_addressable_store 1\n"
    "#define __STDC__ 1\n"
    "#define __STDC_VERSION__ 199901L\n"
    "#define __DATE__ \"Jan  1 1970\"\n"
    "#define __TIME__ \"00:00:00\"\n"
    "#define NULL 0\n"
    "#define CHAR_BIT 8\n"
    "#define SCHAR_MAX 127\n"
    "#define SCHAR_MIN (-127-1)\n"
    "#define CHAR_MAX SCHAR_MAX\n"
    "#define CHAR_MIN SCHAR_MIN\n"
    "#define UCHAR_MAX 255\n"
    "#define SHRT_MAX 32767\n"
    "#define SHRT_MIN (-32767-1)\n"
    "#define USHRT_MAX 65535\n"
    "#define INT_MAX 2147483647\n"
    "#define INT_MIN (-2147483647-1)\n"
    "#define UINT_MAX 0xffffffffU\n"
    "#define LONG_MAX 0x7fffffffffffffffL\n"
    "#define LONG_MIN (-0x7fffffffffffffffL-1)\n"
    "#define ULONG_MAX 0xffffffffffffffffUL\n"
    "#define FLT_DIG 6\n"
    "#define FLT_MANT_DIG 24\n"
    "#define FLT_MAX_10_EXP 38\n"
    "#define FLT_MAX_EXP 128\n"
    "#define FLT_MIN_10_EXP (-37)\n"
    "#define FLT_MIN_EXP (-125)\n"
    "#define FLT_RADIX 2\n"
    "#define FLT_MAX 0x1.fffffep127f\n"
    "#define FLT_MIN 0x1.0p-126f\n"
    "#define FLT_EPSILON 0x1.0p-23f\n"
    "#define DBL_DIG 15\n"
    "#define DBL_MANT_DIG 53\n"
    "#define DBL_MAX_10_EXP 308\n"
    "#define DBL_MAX_EXP 1024\n"
    "#define DBL_MIN_10_EXP (-307)\n"
    "#define DBL_MIN_EXP (-1021)\n"
    "#define DBL_MAX 0x1.fffffffffffffp1023\n"
    "#define DBL_MIN 0x1.0p-1022\n"
    "#define DBL_EPSILON 0x1.0p-52\n"
    "#define MAXFLOAT 0x1.fffffep127f\n"
    "#define HUGE_VALF __kiln_huge_valf\n"
    "#define HUGE_VAL __kiln_huge_val\n"
    "#define INFINITY __kiln_huge_valf\n"
    "#define NAN __kiln_nanf\n"
    "#define FP_ILOGB0 (-2147483647-1)\n"
    "#define FP_ILOGBNAN 2147483647\n"
    "#define M_E 2.718281828459045090796\n"
    "#define M_LOG2E 1.442695040888963387005\n"
    "#define M_LOG10E 0.434294481903251816668\n"
    "#define M_LN2 0.693147180559945286227\n"
    "#define M_LN10 2.302585092994045901094\n"
    "#define M_PI 3.141592653589793115998\n"
    "#define M_PI_2 1.570796326794896557999\n"
    "#define M_PI_4 0.785398163397448278999\n"
    "#define M_1_PI 0.318309886183790691216\n"
    "#define M_2_PI 0.636619772367581382433\n"
    "#define M_2_SQRTPI 1.128379167095512558561\n"
    "#define M_SQRT2 1.414213562373095145475\n"
    "#define M_SQRT1_2 0.707106781186547572737\n"
    "#define M_E_F 2.71828174591f\n"
    "#define M_LOG2E_F 1.44269502163f\n"
    "#define M_LOG10E_F 0.43429449201f\n"
    "#define M_LN2_F 0.69314718056f\n"
    "#define M_LN10_F 2.30258512497f\n"
    "#define M_PI_F 3.14159274101f\n"
    "#define M_PI_2_F 1.57079637051f\n"
    "#define M_PI_4_F 0.78539818525f\n"
    "#define M_1_PI_F 0.31830987334f\n"
    "#define M_2_PI_F 0.63661974668f\n"
    "#define M_2_SQRTPI_F 1.12837922573f\n"
    "#define M_SQRT2_F 1.41421353817f\n"
    "#define M_SQRT1_2_F 0.70710676908f\n"
    "#define CLK_LOCAL_MEM_FENCE 1\n"
    "#define CLK_GLOBAL_MEM_FENCE 2\n";

/* -D NAME=VALUE -> "#define NAME VALUE" (the value up to a newline);
 * -U NAME -> "#undef NAME". */
static void pp_option_define(clc_buffer *script,
                             const translate_define *define)
{
    if (define->value == NULL) {
        clc_buffer_printf(script, "#undef %s\n", define->name);
        return;
    }
    clc_buffer_puts(script, "#define ");
    clc_buffer_puts(script, define->name);
    clc_buffer_append(script, " ", 1);
    clc_buffer_append(script, define->value, strcspn(define->value, "\r\n"));
    clc_buffer_append(script, "\n", 1);
}

static void pp_options(pp_state *st, const translate_options *options,
                       clc_buffer *script, int *c_version, int *fast_math)
{
    static const translate_options none;
    if (options == NULL)
        options = &none;
    *c_version = 120;
    *fast_math = 0;
    for (size_t i = 0; i < options->define_count; ++i)
        pp_option_define(script, &options->defines[i]);
    for (size_t i = 0; i < options->flag_count; ++i) {
        const char *w = options->flags[i];
        if (strncmp(w, "-cl-std=", 8) == 0) {
            const char *v = w + 8;
            if (strcmp(v, "CL1.0") == 0)
                *c_version = 100;
            else if (strcmp(v, "CL1.1") == 0)
                *c_version = 110;
            else if (strcmp(v, "CL1.2") == 0)
                *c_version = 120;
            else if (strcmp(v, "CL3.0") == 0)
                *c_version = 300;
            else if (strcmp(v, "CL2.0") == 0)
                clc_fail(st->failure, -1, 0,
                         "build options: -cl-std=CL2.0: OpenCL C 2.0 is not "
                         "supported by the CUDA backend (use CL1.2 or CL3.0)");
            else
                clc_fail(st->failure, -1, 0,
                         "build options: unknown OpenCL C version in '%s'", w);
            continue;
        }
        if (strcmp(w, "-cl-fast-relaxed-math") == 0)
            *fast_math = 1;
    }
}

/* A preprocessor with the predefined macros and the build options'
 * defines in place, ready for the program (file 0, `name`). */
static pp_state *pp_start(const char *name, const translate_options *options,
                          int target_cuda, clc_arena *arena,
                          clc_interner *interner, int *fast_math)
{
    pp_state *st = clc_arena_alloc(arena, sizeof *st);
    st->arena = arena;
    st->interner = interner;
    st->failure = arena->failure;
    st->failure->file_count = &st->file_count;
    const char *main_name = name ? name : "<kiln program>";
    pp_file_id(st, main_name, strlen(main_name));   /* file 0 */
    uint16_t builtin_file = pp_file_id(st, "<built-in>", 10);
    uint16_t command_line = pp_file_id(st, "<command line>", 14);

    static const struct {
        const char *name;
        pp_builtin kind;
    } dynamic[] = {{"__LINE__", PP_LINE}, {"__FILE__", PP_FILE},
                   {"__COUNTER__", PP_COUNTER}};
    for (size_t i = 0; i < sizeof dynamic / sizeof dynamic[0]; ++i) {
        pp_macro *macro = clc_arena_alloc(arena, sizeof *macro);
        macro->name = clc_intern(interner, dynamic[i].name, strlen(dynamic[i].name));
        macro->builtin = (uint8_t)dynamic[i].kind;
        pp_macro_set(st, macro->name, macro);
    }

    clc_buffer script;
    clc_buffer_init(&script, arena);
    clc_buffer_puts(&script, pp_predefined);
    if (target_cuda)
        clc_buffer_puts(&script, "#define __KILN_CUDA__ 1\n");
    int c_version;
    clc_buffer command;
    clc_buffer_init(&command, arena);
    pp_options(st, options, &command, &c_version, fast_math);
    clc_buffer_printf(&script, "#define __OPENCL_C_VERSION__ %d\n", c_version);
    if (*fast_math)
        clc_buffer_puts(&script, "#define __FAST_RELAXED_MATH__ 1\n");
    pp_run_file(st, clc_buffer_text(&script), script.length, builtin_file);
    if (command.length > 0)
        pp_run_file(st, clc_buffer_text(&command), command.length, command_line);
    /* Neither may leave tokens behind; the program starts from here. */
    st->out.count = 0;
    return st;
}

void clc_preprocess(const char *source, size_t length, const char *name,
                    const translate_options *options, clc_arena *arena,
                    clc_interner *interner, clc_pp_output *out)
{
    int fast_math;
    pp_state *st = pp_start(name, options, 1, arena, interner, &fast_math);
    pp_run_file(st, source, length, 0);

    clc_token eof;
    memset(&eof, 0, sizeof eof);
    eof.kind = CLC_TOK_EOF;
    eof.text = "";
    eof.ident = -1;
    eof.file = st->file;
    eof.line = st->out.count ? st->out.tokens[st->out.count - 1].line : 1;
    pp_emit(st, &eof);

    out->tokens = st->out.tokens;
    out->count = st->out.count;
    out->file_names = st->file_names;
    out->file_count = st->file_count;
    out->fp_contract_off = st->fp_contract_off;
    out->ndebug = pp_macro_get(st, clc_intern(interner, "NDEBUG", 6)) != NULL;
    out->fast_relaxed_math = fast_math;
    out->included_files = 0;
    out->left = NULL;
}

void clc_preprocess_program(const char *source, size_t length,
                            const char *name, const translate_options *options,
                            int target_cuda,
                            const translate_include_reader *reader,
                            int leave_unfound, clc_arena *arena,
                            clc_interner *interner, clc_pp_output *out,
                            clc_buffer *flat)
{
    int fast_math;
    pp_state *st = pp_start(name, options, target_cuda, arena, interner,
                            &fast_math);
    st->reader = reader;
    st->leave_unfound = leave_unfound;
    st->flat = flat;
    st->flat_line = 1;
    clc_token_array tokens = {NULL, 0, 0};
    clc_lex(source ? source : "", length, 0, 1, arena, interner, &tokens);
    st->file_tokens = tokens.tokens;
    st->file_pos = 0;
    st->line_delta = 0;
    st->file = 0;
    st->path = NULL;
    st->raw_cursor = 0;
    /* pp_run_file's loop, on the program's own tokens: the flattened text
     * takes what is left of them before they are let go. */
    for (;;) {
        pp_tok *tok = pp_read(st);
        if (tok == &st->eof)
            break;
        if (tok->t.kind == CLC_TOK_IDENT) {
            if (tok->t.ident == W__Pragma) {
                pp_pragma_operator(st, tok);
                continue;
            }
            if (pp_try_expand(st, tok))
                continue;
        }
        tok->t.flags &= (uint8_t)~CLC_TF_NOEXPAND;
        pp_emit(st, &tok->t);
    }
    pp_flat_copy(st, st->file_pos);
    if (flat != NULL && flat->length > 0 &&
        flat->data[flat->length - 1] != '\n')
        clc_buffer_append(flat, "\n", 1);
    out->included_files = st->known_count;
    out->left = st->left;

    clc_token eof;
    memset(&eof, 0, sizeof eof);
    eof.kind = CLC_TOK_EOF;
    eof.text = "";
    eof.ident = -1;
    eof.file = st->file;
    eof.line = st->out.count ? st->out.tokens[st->out.count - 1].line : 1;
    pp_emit(st, &eof);

    out->tokens = st->out.tokens;
    out->count = st->out.count;
    out->file_names = st->file_names;
    out->file_count = st->file_count;
    out->fp_contract_off = st->fp_contract_off;
    out->ndebug = pp_macro_get(st, clc_intern(interner, "NDEBUG", 6)) != NULL;
    out->fast_relaxed_math = fast_math;
}

void clc_expansion_free(clc_expansion *expansion)
{
    free(expansion->text);
    for (size_t i = 0; i < expansion->file_count; ++i)
        free(expansion->files[i]);
    free(expansion->files);
    free(expansion->error);
    free(expansion->left);
    memset(expansion, 0, sizeof *expansion);
}

static char *pp_strdup(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

int translate_text_spells(const char *text, size_t length, const char *word,
                    size_t anchor)
{
    size_t word_length = strlen(word);
    if (length < word_length)
        return 0;
    const char *end = text + length;
    for (const char *at = text + anchor;
         at < end && (at = memchr(at, word[anchor], (size_t)(end - at))) != NULL;
         ++at)
        if ((size_t)(end - at) >= word_length - anchor &&
            memcmp(at - anchor, word, word_length) == 0)
            return 1;
    return 0;
}

/* Whether `text` spells the word "include" once its line splices are
 * gone (the front end's translation phase 2: backslash, then \n or \r\n).
 * Every #include, %:include and splice-cut #inc\<newline>lude does; a
 * source that does not can have nothing to inline. */
int clc_may_include(const char *text, size_t length)
{
    static const char word[] = "include";
    const size_t word_length = sizeof word - 1;
    const char *end = text + length;
    if (length < word_length)
        return 0;
    /* Without a backslash there is no splice: a plain search does (the
     * array layer's generated sources, built on every call, take this). */
    if (memchr(text, '\\', length) == NULL)
        return translate_text_spells(text, length, word, 5); /* its 'd', rarer in
                                                           kernels than 'i' */
    for (const char *at = text;
         (at = memchr(at, 'i', (size_t)(end - at))) != NULL; ++at) {
        size_t i = (size_t)(at - text), matched = 0;
        while (matched < word_length && i < length) {
            if (text[i] == '\\' && i + 1 < length && text[i + 1] == '\n') {
                i += 2;
            } else if (text[i] == '\\' && i + 2 < length &&
                       text[i + 1] == '\r' && text[i + 2] == '\n') {
                i += 3;
            } else if (text[i] == word[matched]) {
                ++matched;
                ++i;
            } else {
                break;
            }
        }
        if (matched == word_length)
            return 1;
    }
    return 0;
}

int clc_expand_includes(const char *source, size_t length, const char *name,
                        const translate_options *options, int target_cuda,
                        const translate_include_reader *reader, clc_expansion *out)
{
    memset(out, 0, sizeof *out);
    /* Every program build runs through here, memory-cache hits included
     * (the core's key is made from the expanded text): a source without
     * the word include is left as it is, without lexing it, so a hit costs
     * a digest and not a pass of the preprocessor.  The result is the same
     * either way: such a source includes nothing. */
    if (source == NULL || !clc_may_include(source, length))
        return 0;
    clc_failure failure;
    memset(&failure, 0, sizeof failure);
    clc_arena arena;
    clc_arena_init(&arena, &failure, CLC_MAX_ARENA_BYTES);
    clc_interner interner;
    memset(&interner, 0, sizeof interner);
    if (setjmp(failure.unwind) != 0) {
        clc_expansion_free(out);
        int result = -2;
        if (!failure.out_of_memory && failure.message != NULL) {
            out->error = failure.message;
            result = -1;
        } else {
            free(failure.message);
        }
        clc_interner_free(&interner);
        clc_arena_free(&arena);
        return result;
    }
    clc_interner_init(&interner, &arena);
    int fast_math;
    pp_state *st = pp_start(name, options, target_cuda, &arena, &interner,
                            &fast_math);
    clc_buffer flat;
    clc_buffer_init(&flat, &arena);
    st->reader = reader;
    st->expand_only = 1;
    st->flat = &flat;
    st->flat_line = 1;

    clc_token_array tokens = {NULL, 0, 0};
    clc_lex(source ? source : "", length, 0, 1, &arena, &interner, &tokens);
    st->file_tokens = tokens.tokens;
    st->file_pos = 0;
    st->line_delta = 0;
    st->file = 0;
    st->path = NULL;
    st->raw_cursor = 0;
    /* Only directives matter: the rest is read past without expansion. */
    for (;;) {
        const clc_token *raw = &st->file_tokens[st->file_pos];
        if (raw->kind == CLC_TOK_EOF) {
            if (pp_leave_file(st))
                continue;
            break;
        }
        if ((raw->flags & CLC_TF_BOL) && pp_is_punct(raw, P_HASH)) {
            clc_token hash = pp_file_token(st, st->file_pos);
            st->file_pos++;
            pp_directive(st, &hash);
            continue;
        }
        st->file_pos++;
    }
    pp_flat_copy(st, st->file_pos);
    if (flat.length > 0 && flat.data[flat.length - 1] != '\n')
        clc_buffer_append(&flat, "\n", 1);

    int failed = 0;
    if (st->left != NULL) {
        out->left = pp_strdup(st->left, strlen(st->left));
        failed = out->left == NULL;
    }
    if (!failed && st->known_count > 0) {
        out->text = pp_strdup(flat.data, flat.length);
        out->length = flat.length;
        out->files = calloc(st->known_count, sizeof *out->files);
        failed = out->text == NULL || out->files == NULL;
        for (size_t i = 0; !failed && i < st->known_count; ++i) {
            out->files[i] = pp_strdup(st->known[i].path,
                                      strlen(st->known[i].path));
            failed = out->files[i] == NULL;
            out->file_count = i + 1;
        }
    }
    clc_interner_free(&interner);
    clc_arena_free(&arena);
    if (failed) {
        clc_expansion_free(out);
        return -2;
    }
    return 0;
}
