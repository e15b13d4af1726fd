/*
 * The kernel cache is never stale (issue 29, H1): a program whose
 * #include Kiln leaves to the compiler (the compiler finds the file where
 * Kiln's search does not: PoCL in its current directory) was compiled with
 * the header's contents but cached under a key without them, so after the
 * header changed a new process got the old binary.  Such a program is now
 * never cached; and a header named in a group Kiln's preprocessor does not
 * take (which the compiler, with its own predefined macros, may take) is
 * digested into the key.  Each case runs in fresh processes, through
 * this program run as a probe, and again in one process.  And every
 * build preprocesses (H2): a chain of function-like macros costs time in
 * proportion to its length, cache hits included.
 */
#include "config.h" /* _GNU_SOURCE: setenv, mkdtemp */

#include "harness.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A program that reads its value from a header Kiln's search does not
 * find (built from a string: no directory of its own, no -I). */
static const char left_source[] =
    "#include \"kiln_h1_value.h\"\n"
    "__kernel void k(__global int *o) { o[0] = KILN_H1_VALUE; }\n";

/* A header named in a group Kiln's OpenCL C 1.2 preprocessor does not take
 * and an OpenCL C 2.0+ compiler (PoCL builds as 3.0) does; found through
 * -I DIR. */
static const char skipped_source[] =
    "#if __OPENCL_VERSION__ >= 200\n"
    "#include \"kiln_h1_new.h\"\n"
    "#else\n"
    "#define KILN_H1_VALUE 7\n"
    "#endif\n"
    "__kernel void k(__global int *o) { o[0] = KILN_H1_VALUE; }\n";

/* Builds `which` ("left" or "skipped") in `context`, with `dir` as its
 * include directory for "skipped", runs it and gives its value. */
static kiln_status build_value(kiln_context *context, const char *which,
                               const char *dir, int *value)
{
    bool left = strcmp(which, "left") == 0;
    const char *dirs[] = {dir};
    kiln_build_options options = {.include_dirs = dirs,
                                  .include_dir_count = left ? 0 : 1};
    kiln_program *program = NULL;
    kiln_status status = kiln_program_build_with(
        context, left ? left_source : skipped_source, 0, &options, &program);
    if (status != KILN_OK)
        return status;
    kiln_kernel *kernel = NULL;
    kiln_buffer *out = NULL;
    status = kiln_kernel_create(program, "k", &kernel);
    if (status == KILN_OK)
        status = kiln_buffer_create(context, sizeof(int), &out);
    if (status == KILN_OK) {
        kiln_launch_config config = {.grid = KILN_DIM1(1),
                                     .block = KILN_DIM1(1)};
        kiln_arg args[] = {KILN_ARG_BUFFER(out)};
        status = kiln_launch(kernel, &config, 1, args);
    }
    if (status == KILN_OK)
        status = kiln_buffer_read(out, 0, value, sizeof *value);
    if (out != NULL)
        kiln_buffer_release(out);
    if (kernel != NULL)
        kiln_kernel_release(kernel);
    kiln_program_release(program);
    return status;
}

/* The probe (this program with --probe DIR BACKEND WHICH): one build in a
 * fresh process, from DIR; prints "value N" or "build STATUS: message". */
static int probe(const char *dir, const char *backend, const char *which)
{
    if (chdir(dir) != 0) {
        printf("chdir %s: %s\n", dir, strerror(errno));
        return 1;
    }
    kiln_context *context = NULL;
    kiln_status status = kiln_context_create(backend, 0, &context);
    if (status != KILN_OK) {
        printf("context %s: %s\n", kiln_status_name(status),
               kiln_last_error());
        return 1;
    }
    int value = -1;
    status = build_value(context, which, dir, &value);
    if (status == KILN_OK)
        printf("value %d\n", value);
    else
        printf("build %s: %s\n", kiln_status_name(status), kiln_last_error());
    kiln_context_release(context);
    return 0;
}

/* ---- the tests ------------------------------------------------------------------ */

static void write_header(const char *dir, const char *name, int value)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "w");
    if (file == NULL)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    fprintf(file, "#define KILN_H1_VALUE %d\n", value);
    fclose(file);
}

/* Runs the probe in a new process; its output line in `line`. */
static void run_probe(const char *dir, const char *backend, const char *which,
                      char *line, size_t size)
{
    char program[4096];
    snprintf(program, sizeof program, "%s/tests/test_hostile_cache",
             test_builddir());
    char *argv[] = {program, (char *)"--probe", (char *)dir,
                    (char *)backend, (char *)which, NULL};
    int pipe_fds[2];
    assert_int_equal(pipe(pipe_fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    pid_t pid;
    int spawned = posix_spawn(&pid, program, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (spawned != 0)
        fail_msg("cannot run %s: %s", program, strerror(spawned));
    size_t used = 0;
    ssize_t got;
    while (used + 1 < size &&
           (got = read(pipe_fds[0], line + used, size - 1 - used)) > 0)
        used += (size_t)got;
    line[used] = '\0';
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the probe failed (status 0x%x): %s", status, line);
    line[strcspn(line, "\n")] = '\0';
}

/* A fresh directory for the headers (and the probes' current directory),
 * and a cache directory of its own, so that earlier runs do not count. */
static void fresh_dirs(char *dir, size_t size, const char *label)
{
    snprintf(dir, size, "%s/h1-%s-XXXXXX", test_scratch_dir(), label);
    if (mkdtemp(dir) == NULL)
        fail_msg("mkdtemp %s: %s", dir, strerror(errno));
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    if (mkdir(cache, 0700) != 0)
        fail_msg("mkdir %s: %s", cache, strerror(errno));
    setenv("KILN_CACHE_DIR", cache, 1);
}

static void remove_dir(const char *dir)
{
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    if (system(command) != 0)
        print_message("# could not remove %s\n", dir);
}

/* Two new processes with the header changed between them; then one
 * process building before and after the change. */
static void check_header_change(void **state, const char *which,
                                const char *header)
{
    kiln_context *context = test_context(state);
    const char *backend = test_backend(state);
    char *saved_cache = getenv("KILN_CACHE_DIR")
                            ? strdup(getenv("KILN_CACHE_DIR"))
                            : NULL;
    char dir[4096];
    fresh_dirs(dir, sizeof dir, which);
    int first = (int)(test_random_u64() % 100000) + 100;
    int second = first + 1 + (int)(test_random_u64() % 1000);
    write_header(dir, header, first);
    char line[4096];
    run_probe(dir, backend, which, line, sizeof line);
    int value = 0;
    if (sscanf(line, "value %d", &value) != 1) {
        /* The compiler does not find the header either (NVRTC does not
         * search the current directory): nothing can be stale. */
        if (strncmp(line, "build ", 6) != 0)
            fail_msg("probe: %s", line);
        print_message("# %s: the compiler does not find %s either: %s\n",
                      backend, header, line);
        remove_dir(dir);
        goto done;
    }
    /* the group not taken by Kiln may be taken by the compiler or not */
    bool compiler_reads_it = value == first;
    if (!compiler_reads_it && value != 7)
        fail_msg("first probe: %s", line);
    write_header(dir, header, second);
    run_probe(dir, backend, which, line, sizeof line);
    int expected = compiler_reads_it ? second : 7;
    if (sscanf(line, "value %d", &value) != 1 || value != expected)
        fail_msg("after the header changed to %d, a new process got '%s' "
                 "(expected value %d: a stale cache entry?)",
                 second, line, expected);
    /* in one process: the memory cache must not be stale either */
    char here[4096];
    if (getcwd(here, sizeof here) == NULL || chdir(dir) != 0)
        fail_msg("cannot enter %s", dir);
    TEST_OK(build_value(context, which, dir, &value));
    assert_int_equal(value, expected);
    write_header(dir, header, first);
    TEST_OK(build_value(context, which, dir, &value));
    assert_int_equal(value, compiler_reads_it ? first : 7);
    if (chdir(here) != 0)
        fail_msg("cannot go back to %s", here);
    remove_dir(dir);
done:
    if (saved_cache != NULL)
        setenv("KILN_CACHE_DIR", saved_cache, 1);
    else
        unsetenv("KILN_CACHE_DIR");
    free(saved_cache);
}

static void header_left_to_the_compiler_is_never_stale(void **state)
{
    check_header_change(state, "left", "kiln_h1_value.h");
}

static void header_of_a_group_not_taken_is_in_the_key(void **state)
{
    check_header_change(state, "skipped", "kiln_h1_new.h");
}

/* ---- H2: chains of function-like macros -------------------------------- */

static double seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* A chain of `depth` function-like macros, F<n>(x) -> F<n-1>(x), used in
 * an #if (which every build of a program that includes a file
 * preprocesses, cache hits included) and in the kernel. */
static char *macro_chain(int depth, int cuda, int value)
{
    size_t size = (size_t)depth * 48 + 512;
    char *source = test_alloc(size);
    size_t used = (size_t)snprintf(source, size, "#define F0(x) (x)\n");
    for (int i = 1; i < depth; ++i)
        used += (size_t)snprintf(source + used, size - used,
                                 "#define F%d(x) F%d(x)\n", i, i - 1);
    snprintf(source + used, size - used,
             "#include \"kiln_h2.h\"\n"
             "#if F%d(1)\n#define VALUE (%d + KILN_H2_ZERO)\n#endif\n"
             "%s void k(%s int *o) { o[0] = F%d(VALUE); }\n",
             depth - 1, value, cuda ? "__global__" : "__kernel",
             cuda ? "" : "__global", depth - 1);
    return source;
}

static void macro_chains_preprocess_in_linear_time(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/h2-XXXXXX", test_scratch_dir());
    if (mkdtemp(dir) == NULL)
        fail_msg("mkdtemp %s: %s", dir, strerror(errno));
    char header[4200];
    snprintf(header, sizeof header, "%s/kiln_h2.h", dir);
    FILE *file = fopen(header, "w");
    if (file == NULL)
        fail_msg("cannot write %s", header);
    fputs("#define KILN_H2_ZERO 0\n", file);
    fclose(file);
    const char *dirs[] = {dir};
    for (int cuda = 0; cuda < 2; ++cuda) {
        int value = (int)(test_random_u64() % 100000) + 1;
        char *source = macro_chain(3000, cuda, value);
        kiln_build_options options = {
            .language = cuda ? KILN_LANGUAGE_CUDA_C : KILN_LANGUAGE_OPENCL_C,
            .include_dirs = dirs,
            .include_dir_count = 1};
        kiln_program *program = NULL;
        TEST_OK(kiln_program_build_with(context, source, 0, &options,
                                        &program));
        kiln_kernel *kernel = test_kernel(program, "k");
        kiln_buffer *out = test_buffer(context, sizeof(int));
        TEST_LAUNCH(kernel, KILN_DIM1(1), KILN_DIM1(1), 0,
                    KILN_ARG_BUFFER(out));
        int got = 0;
        test_read(out, &got, sizeof got);
        assert_int_equal(got, value);
        kiln_buffer_release(out);
        kiln_kernel_release(kernel);
        kiln_program_release(program);
        /* Builds from the cache still preprocess the #if: the chain of
         * 3000 took minutes there (the hide sets made it cubic). */
        double started = seconds();
        for (int again = 0; again < 2; ++again) {
            TEST_OK(kiln_program_build_with(context, source, 0, &options,
                                            &program));
            kiln_program_release(program);
        }
        double elapsed = seconds() - started;
        print_message("# %s: two builds from the cache of a 3000-deep "
                      "macro chain in %.3f s\n",
                      cuda ? "CUDA C" : "OpenCL C", elapsed);
        if (elapsed > 5.0)
            fail_msg("two cached builds took %.1f s", elapsed);
        free(source);
    }
    remove_dir(dir);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--probe") == 0)
        return probe(argv[2], argv[3], argv[4]);
    static const kiln_test tests[] = {
        KILN_TEST(header_left_to_the_compiler_is_never_stale),
        KILN_TEST(header_of_a_group_not_taken_is_in_the_key),
        KILN_TEST(macro_chains_preprocess_in_linear_time),
    };
    return kiln_test_main("hostile_cache", tests,
                          sizeof tests / sizeof tests[0]);
}
