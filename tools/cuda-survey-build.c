/*
 * cuda-survey-build: the Kiln half of tools/cuda-survey.  It builds CUDA C
 * files through the public API as a user would (kiln_program_build_with,
 * KILN_LANGUAGE_CUDA_C, then kiln_kernel_create for each kernel) and prints
 * what each call returned, for the survey script to classify.
 *
 * Jobs come one a line on stdin, "FILE<TAB>KERNEL<TAB>KERNEL...", so that
 * one process (one context: PoCL starts once) builds many files.  A KERNEL
 * with a '<' is a template instance ("sgemm<64, 8>"): it is given to the
 * build as a name expression (kiln_build_options.kernel_names), as NVRTC's
 * nvrtcAddNameExpression and CuPy's name_expressions take it; the
 * script kills and restarts it when a build passes its time limit.  For
 * each job it prints
 *   build<TAB>STATUS<TAB>MESSAGE
 *   kernel<TAB>NAME<TAB>STATUS<TAB>MESSAGE     (each kernel; none when the
 *                                               build failed)
 *   end
 * with tabs, newlines and backslashes of the message escaped (\t \n \\).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln.h"
#include "tool_options.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cuda-survey-build [-b BACKEND] < JOBS\n"
            "Builds each job's CUDA C file with Kiln and creates its kernels.\n"
            "A job is one line: FILE, then the kernel names, tab-separated.\n"
            "  -b BACKEND   the backend (default opencl)\n"
            "  -h, --help   show this and exit\n"
            "  -V, --version   show the version and exit\n"
            "Exit status: 0 done, 1 no context, 2 usage.\n");
}

/* The message on one line: the script splits on tabs and newlines. */
static void print_escaped(const char *text)
{
    for (const char *p = text; *p != '\0'; ++p) {
        if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p == '\t')
            fputs("\\t", stdout);
        else if (*p == '\\')
            fputs("\\\\", stdout);
        else
            putchar(*p);
    }
}

static void print_result(kiln_status status)
{
    printf("%s\t", kiln_status_name(status));
    print_escaped(status == KILN_OK ? "" : kiln_last_error());
    putchar('\n');
}

static char *read_file(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    size_t capacity = 1 << 16, used = 0;
    char *text = malloc(capacity);
    while (text != NULL) {
        used += fread(text + used, 1, capacity - used, file);
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
    fclose(file);
    if (text != NULL)
        *length = used;
    return text;
}

static void run_job(kiln_context *context, char *line)
{
    char *path = strtok(line, "\t\n");
    if (path == NULL)
        return;
    /* the kernel names, and among them the template instances */
    size_t count = 0, instance_count = 0, capacity = 16;
    char **names = malloc(capacity * sizeof *names);
    const char **instances = malloc(capacity * sizeof *instances);
    for (char *name = strtok(NULL, "\t\n"); name != NULL && names != NULL &&
         instances != NULL; name = strtok(NULL, "\t\n")) {
        if (count == capacity) {
            capacity *= 2;
            char **more = realloc(names, capacity * sizeof *names);
            if (more != NULL)
                names = more;
            const char **more_instances =
                realloc(instances, capacity * sizeof *instances);
            if (more_instances != NULL)
                instances = more_instances;
            if (more == NULL || more_instances == NULL)
                break;
        }
        names[count++] = name;
        if (strchr(name, '<') != NULL)
            instances[instance_count++] = name;
    }
    size_t length = 0;
    char *source = names != NULL && instances != NULL ?
                   read_file(path, &length) : NULL;
    if (source == NULL) {
        printf("build\tio\tcannot read %s\nend\n", path);
        free(names);
        free(instances);
        fflush(stdout);
        return;
    }
    kiln_build_options options = {.struct_size = sizeof options,
                                  .language = KILN_LANGUAGE_CUDA_C,
                                  .source_name = path,
                                  .kernel_names = instance_count ?
                                                  instances : NULL,
                                  .kernel_name_count = instance_count};
    kiln_program *program = NULL;
    kiln_status status = kiln_program_build_with(context, source, length,
                                                 &options, &program);
    free(source);
    fputs("build\t", stdout);
    print_result(status);
    for (size_t i = 0; status == KILN_OK && i < count; ++i) {
        kiln_kernel *kernel = NULL;
        kiln_status made = kiln_kernel_create(program, names[i], &kernel);
        printf("kernel\t%s\t", names[i]);
        print_result(made);
        if (kernel != NULL)
            kiln_kernel_release(kernel);
    }
    if (program != NULL)
        kiln_program_release(program);
    free(names);
    free(instances);
    puts("end");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int done = tool_standard_options(argc, argv, "cuda-survey-build",
                                     PACKAGE_VERSION, usage);
    if (done >= 0)
        return done;
    const char *backend = "opencl";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-b") == 0 && i + 1 < argc) {
            backend = argv[++i];
        } else {
            fprintf(stderr, "cuda-survey-build: unknown argument '%s'\n",
                    argv[i]);
            usage(stderr);
            return TOOL_EXIT_USAGE;
        }
    }
    kiln_context *context = NULL;
    kiln_status status = kiln_context_create(backend, 0, &context);
    if (status != KILN_OK) {
        fprintf(stderr, "cuda-survey-build: %s: %s\n",
                kiln_status_name(status), kiln_last_error());
        return 1;
    }
    /* a job line: a path and kernel names; long ones are rare but legal */
    size_t capacity = 1 << 16;
    char *line = malloc(capacity);
    while (line != NULL && fgets(line, (int)capacity, stdin) != NULL) {
        while (strchr(line, '\n') == NULL && !feof(stdin)) {
            size_t used = strlen(line);
            char *grown = realloc(line, capacity * 2);
            if (grown == NULL)
                break;
            line = grown;
            capacity *= 2;
            if (fgets(line + used, (int)(capacity - used), stdin) == NULL)
                break;
        }
        run_job(context, line);
    }
    free(line);
    kiln_context_release(context);
    return 0;
}
