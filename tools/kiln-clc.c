/*
 * kiln-clc: runs the CUDA backend's OpenCL C translation on a file and
 * prints the CUDA C++ that NVRTC would compile (after the prelude), or the
 * reason the translation refuses it.  A debugging aid for kernel authors.
 *
 *   kiln-clc [-s] [-p] [-P] [OPTIONS...] FILE.cl
 *     -s   print the kernels' signatures instead of the text
 *     -p   print the prelude and exit
 *     -P   print the part of the prelude FILE.cl uses (what NVRTC reads)
 *   other arguments starting with '-' are build options (-DN=4 ...).
 */
#include "translate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(clc_param_kind kind)
{
    switch (kind) {
    case CLC_PARAM_GLOBAL: return "global";
    case CLC_PARAM_CONSTANT: return "constant";
    case CLC_PARAM_LOCAL: return "local";
    case CLC_PARAM_VALUE: return "value";
    }
    return "?";
}

static char *read_file(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    size_t capacity = 65536, used = 0;
    char *text = malloc(capacity);
    while (text != NULL) {
        size_t n = fread(text + used, 1, capacity - used, file);
        used += n;
        if (used < capacity)
            break;
        char *grown = realloc(text, capacity * 2);
        if (grown == NULL) {
            free(text);
            text = NULL;
            break;
        }
        text = grown;
        capacity *= 2;
    }
    int failed = ferror(file);
    fclose(file);
    if (failed) {
        free(text);
        return NULL;
    }
    *length = used;
    return text;
}

int main(int argc, char **argv)
{
    int signatures = 0, used_prelude = 0;
    const char *path = NULL;
    size_t options_size = 1;
    for (int i = 1; i < argc; ++i)
        options_size += strlen(argv[i]) + 1;
    char *options = calloc(1, options_size);
    if (options == NULL)
        return 2;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-s") == 0) {
            signatures = 1;
        } else if (strcmp(argv[i], "-P") == 0) {
            used_prelude = 1;
        } else if (strcmp(argv[i], "-p") == 0) {
            fputs(clc_prelude_source(), stdout);
            free(options);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            strcat(options, argv[i]);
            strcat(options, " ");
        } else {
            path = argv[i];
        }
    }
    if (path == NULL) {
        fprintf(stderr, "usage: kiln-clc [-s] [-p] [-P] [-DNAME=VALUE...] FILE.cl\n");
        free(options);
        return 2;
    }
    size_t length = 0;
    char *source = read_file(path, &length);
    if (source == NULL) {
        fprintf(stderr, "kiln-clc: cannot read %s: %s\n", path,
                strerror(errno));
        free(options);
        return 2;
    }
    clc_translation translation;
    int result = clc_translate(source, length, path, options, &translation);
    int status = 0;
    if (result != 0) {
        fprintf(stderr, "kiln-clc: %s\n",
                translation.error ? translation.error : "out of memory");
        status = 1;
    } else if (signatures) {
        for (size_t k = 0; k < translation.kernel_count; ++k) {
            const clc_kernel_signature *kernel = &translation.kernels[k];
            printf("%s(", kernel->name);
            for (size_t p = 0; p < kernel->param_count; ++p)
                printf("%s%s %s %s [%zu]", p ? ", " : "",
                       kind_name(kernel->params[p].kind),
                       kernel->params[p].type_name, kernel->params[p].name,
                       kernel->params[p].size);
            printf(")");
            if (kernel->reqd_work_group[0])
                printf(" reqd_work_group_size(%u, %u, %u)",
                       kernel->reqd_work_group[0], kernel->reqd_work_group[1],
                       kernel->reqd_work_group[2]);
            printf("\n");
        }
    } else if (used_prelude) {
        char *prelude = clc_prelude_select(clc_prelude_source(),
                                           translation.source, NULL);
        if (prelude == NULL) {
            fprintf(stderr, "kiln-clc: out of memory\n");
            status = 2;
        } else {
            fputs(prelude, stdout);
            free(prelude);
        }
    } else {
        fputs(translation.source, stdout);
    }
    clc_translation_free(&translation);
    free(source);
    free(options);
    return status;
}
