/*
 * kiln-clc: runs one of Kiln's translations on a file and prints what the
 * compiler gets, or the reason the translation refuses it.  A debugging
 * aid for kernel authors.
 *   OpenCL C -> CUDA C++ (the CUDA backend; FILE.cl): the text NVRTC
 *     compiles after the prelude.
 *   CUDA C -> OpenCL C (the OpenCL backend; FILE.cu, FILE.cuh or --cuda):
 *     the text the OpenCL driver compiles after the prelude.
 *
 *   kiln-clc [-s] [-p] [-P] [--cuda | --opencl] [OPTIONS...] FILE
 *     -s         print the kernels' signatures instead of the text
 *     -p         print the prelude and exit
 *     -P         print the part of the prelude FILE.cl uses (what NVRTC
 *                reads; OpenCL C only)
 *     --cuda     FILE is CUDA C, whatever its name
 *     --opencl   FILE is OpenCL C, whatever its name
 *   other arguments starting with '-' are build options (-DN=4, -I DIR
 *   or -IDIR ...).  FILE's #include files are inlined as the library
 *   inlines them (translate_include_search): beside the including file,
 *   then the -I directories.
 */
#include "config.h"

#include "translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_options.h"

static const char *kind_name(const translate_param *param)
{
    switch (param->space) {
    case TRANSLATE_SPACE_GLOBAL: return "global";
    case TRANSLATE_SPACE_CONSTANT: return "constant";
    case TRANSLATE_SPACE_LOCAL: return "local";
    case TRANSLATE_SPACE_PRIVATE: return "value";
    }
    return "?";
}

/* FILE as the library reads it: a regular file of at most 64 MiB (a FIFO
 * or /dev/zero is refused, not waited on or read forever); NULL with a
 * message on stderr. */
static char *read_file(const char *path, size_t *length)
{
    char *text = NULL, *error = NULL;
    if (translate_file_read(path, TRANSLATE_MAX_FILE_BYTES, &text, length,
                            &error) != 0) {
        fprintf(stderr, "kiln-clc: %s\n", error ? error : "out of memory");
        free(error);
        return NULL;
    }
    return text;
}

/* Whether `path` names a CUDA C file (.cu, .cuh). */
static int cuda_file(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot != NULL && (strcmp(dot, ".cu") == 0 || strcmp(dot, ".cuh") == 0);
}

/* name(kind type name [bytes], ...), then what a launch adds after them. */
static void print_signature(const translate_program *program,
                            const translate_kernel *kernel)
{
    if (kernel->refusal != NULL) {
        printf("%s: refused: %s\n", kernel->name, kernel->refusal);
        return;
    }
    printf("%s(", kernel->name);
    for (size_t p = 0; p < kernel->param_count; ++p)
        printf("%s%s %s %s [%zu]", p ? ", " : "", kind_name(&kernel->params[p]),
               kernel->params[p].type_name, kernel->params[p].name,
               kernel->params[p].size);
    printf(")");
    if (kernel->required_block[0])
        printf(" reqd_work_group_size(%u, %u, %u)", kernel->required_block[0],
               kernel->required_block[1], kernel->required_block[2]);
    for (size_t h = 0; h < kernel->hidden_count; ++h) {
        const translate_hidden *hidden = &kernel->hidden[h];
        if (hidden->kind == TRANSLATE_HIDDEN_POINTER_OFFSET)
            continue; /* every pointer's: nothing to tell */
        if (hidden->kind == TRANSLATE_HIDDEN_DYNAMIC_LOCAL)
            printf(" + extern __shared__");
        else if (hidden->kind == TRANSLATE_HIDDEN_WORK_DIM)
            printf(" + work_dim");
        else
            printf(" + %s", program->variables[hidden->variable].name);
    }
    printf("\n");
}

/* What the translation made of the file: its text, its kernels'
 * signatures (-s) or the part of the prelude it uses (-P). */
static void print_translation(const translate_program *program,
                              translate_language from, int signatures,
                              int used_prelude)
{
    if (signatures) {
        for (size_t k = 0; k < program->kernel_count; ++k)
            print_signature(program, &program->kernels[k]);
        for (size_t v = 0; v < program->variable_count; ++v)
            printf("%s %s%s\n",
                   program->variables[v].is_constant ? "__constant__"
                                                     : "__device__",
                   program->variables[v].name,
                   program->variables[v].has_initializer ? " (initialised)"
                                                         : "");
    } else if (used_prelude && from == TRANSLATE_OPENCL_C) {
        fputs(program->headers[0].text, stdout);
    } else if (from == TRANSLATE_CUDA_C) {
        /* the prelude is the same for every file: -p shows it */
        size_t prelude = strlen(translate_prelude_opencl());
        printf("/* after Kiln's OpenCL C prelude (kiln-clc -p --cuda) */\n%s",
               program->text + prelude);
    } else {
        fputs(program->text, stdout);
    }
}

/* Translates `source` of `language` as the core would for the other
 * backend; returns main's status. */
static int translate_file(const char *source, size_t length, const char *path,
                          translate_language language,
                          const translate_options *options, int signatures,
                          int used_prelude)
{
    translate_target target = {.language = language == TRANSLATE_CUDA_C
                                                ? TRANSLATE_OPENCL_C
                                                : TRANSLATE_CUDA_C,
                               .opencl_c_version = 120,
                               .extensions = "",
                               .vendor = "",
                               .platform = ""};
    /* The library's include search, from FILE's directory. */
    char *dir = translate_directory_of(path);
    if (dir == NULL) {
        fprintf(stderr, "kiln-clc: out of memory\n");
        return 2;
    }
    translate_include_search search = {.dirs = options->include_dirs,
                                       .dir_count = options->include_dir_count,
                                       .program_dir = dir};
    translate_include_reader reader = {translate_include_search_read, &search};
    translate_input input = {.text = source,
                             .length = length,
                             .name = path,
                             .language = language,
                             .options = options,
                             .reader = &reader,
                             .target = &target};
    translate_unit *unit = NULL;
    translate_program program;
    translate_error error;
    memset(&program, 0, sizeof program);
    int result = translate_open(&input, &unit, &error);
    if (result == 0)
        result = translate_to_target(unit, &program, &error);
    if (result == 0)
        print_translation(&program, language, signatures, used_prelude);
    else
        fprintf(stderr, "kiln-clc: %s\n",
                error.message ? error.message : "out of memory");
    translate_error_free(&error);
    translate_program_free(&program);
    translate_close(unit);
    free(dir);
    return result == 0 ? 0 : result == -2 ? 2 : 1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kiln-clc [-s] [-p] [-P] [--cuda | --opencl] "
            "[-DNAME=VALUE...] FILE\n"
            "       kiln-clc -h|--help | -V|--version\n"
            "Shows what Kiln's translation makes of FILE: OpenCL C (FILE.cl) "
            "as the CUDA C++\nthat NVRTC compiles, CUDA C (FILE.cu) as the "
            "OpenCL C an OpenCL driver compiles,\nor the construct and line "
            "it refuses.\n"
            "  -s         the kernels' signatures instead of the text\n"
            "  -p         the prelude\n"
            "  -P         the part of the prelude FILE.cl uses\n"
            "  --cuda     FILE is CUDA C, whatever its name\n"
            "  --opencl   FILE is OpenCL C, whatever its name\n"
            "  -h, --help      show this and exit\n"
            "  -V, --version   show the version and exit\n"
            "Other arguments starting with '-' are build options.  Exit "
            "status: 0 translated,\n1 refused, 2 usage or an unreadable "
            "file.\n");
}

int main(int argc, char **argv)
{
    int answered = tool_standard_options(argc, argv, "kiln-clc",
                                         PACKAGE_VERSION, usage);
    if (answered >= 0)
        return answered;
    int signatures = 0, used_prelude = 0, whole_prelude = 0;
    int language = 0; /* 1 CUDA C, 2 OpenCL C */
    const char *path = NULL;
    /* Every other word that starts with '-' is a build option, each
     * argument one word as the shell split it. */
    const char **words = calloc((size_t)argc, sizeof *words);
    if (words == NULL)
        return 2;
    size_t word_count = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-s") == 0) {
            signatures = 1;
        } else if (strcmp(argv[i], "-P") == 0) {
            used_prelude = 1;
        } else if (strcmp(argv[i], "-p") == 0) {
            whole_prelude = 1;
        } else if (strcmp(argv[i], "--cuda") == 0) {
            language = 1;
        } else if (strcmp(argv[i], "--opencl") == 0) {
            language = 2;
        } else if ((strcmp(argv[i], "-I") == 0 || strcmp(argv[i], "-D") == 0 ||
                    strcmp(argv[i], "-U") == 0) &&
                   i + 1 < argc) {
            /* -I DIR, -D NAME=VALUE: the value is the next word */
            words[word_count++] = argv[i];
            words[word_count++] = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            words[word_count++] = argv[i];
        } else {
            path = argv[i];
        }
    }
    translate_option_lists lists;
    int parsed = translate_options_parse_words(words, word_count, &lists);
    free(words);
    if (parsed != 0) {
        fprintf(stderr, "kiln-clc: %s\n",
                lists.error ? lists.error : "out of memory");
        translate_option_lists_free(&lists);
        return parsed == -2 ? 2 : 1;
    }
    const translate_options *options = &lists.options;
    if (language == 0 && path != NULL)
        language = cuda_file(path) ? 1 : 2;
    if (whole_prelude) {
        fputs(language == 1 ? translate_prelude_opencl() : translate_prelude_cuda(),
              stdout);
        translate_option_lists_free(&lists);
        return 0;
    }
    if (path == NULL) {
        usage(stderr);
        translate_option_lists_free(&lists);
        return TOOL_EXIT_USAGE;
    }
    size_t length = 0;
    char *source = read_file(path, &length);
    if (source == NULL) {
        translate_option_lists_free(&lists);
        return 2;
    }
    int status = translate_file(source, length, path,
                                language == 1 ? TRANSLATE_CUDA_C
                                              : TRANSLATE_OPENCL_C,
                                options, signatures, used_prelude);
    free(source);
    translate_option_lists_free(&lists);
    return status;
}
