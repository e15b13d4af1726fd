/*
 * The kernel cache, through the public API: where a program comes from
 * (kiln_program_get_origin), what makes two builds share an entry, what
 * happens to corrupt entries, what a saved program keeps (kernels,
 * parameters, required blocks, CUDA C's variables) and which saved
 * programs are refused, unusable directories, processes racing on
 * one key, a process without HOME, KILN_CACHE=0, the size limit and its
 * least-recently-used eviction, and kiln_cache_clear.
 *
 * Every test points KILN_CACHE_DIR at a fresh directory of its own (the
 * cache reads the environment at each build), so entries left by other
 * tests or earlier runs never decide an origin.  The memory cache belongs
 * to a context: a "new context" is what makes a build look at the disk.
 *
 * Child processes (the race and the HOME-less environment) re-execute this
 * program with CHILD_FLAG: a fresh process is the only portable way to use
 * a backend after fork() (CUDA refuses it, PoCL's threads do not survive).
 */
#include "config.h" /* _GNU_SOURCE: POSIX and GNU functions under -std=c11 */

#include "harness.h"
#include "translate.h" /* translate_digest */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY /* XXH3_INITSTATE */
#include <xxhash.h>

extern char **environ;

/* The ICD loaders' variables as this program started: an older OpenCL ICD
 * loader cuts OCL_ICD_FILENAMES short in `environ` when the OpenCL backend
 * starts it, and children given that would lose every driver but the
 * first (NVIDIA's OpenCL, on the GPU machine).  Kiln does not write the
 * environment back; a program that starts children passes the values it
 * started with, as this one does. */
static const char *const icd_variables[] = {"OCL_ICD_FILENAMES=",
                                            "OCL_ICD_VENDORS="};
#define ICD_VARIABLE_COUNT (sizeof icd_variables / sizeof icd_variables[0])
static char *icd_at_start[ICD_VARIABLE_COUNT];

static void icd_variables_remember(void)
{
    for (char **v = environ; *v; ++v)
        for (size_t i = 0; i < ICD_VARIABLE_COUNT; ++i)
            if (strncmp(*v, icd_variables[i], strlen(icd_variables[i])) == 0)
                icd_at_start[i] = strdup(*v);
}

static bool is_icd_variable(const char *entry)
{
    for (size_t i = 0; i < ICD_VARIABLE_COUNT; ++i)
        if (strncmp(entry, icd_variables[i], strlen(icd_variables[i])) == 0)
            return true;
    return false;
}

/* The environment for a child: this one's, with the ICD loaders'
 * variables as they were at the start, and room for `extra` more. */
static char **child_environment(size_t extra, size_t *count)
{
    size_t total = 0;
    while (environ[total] != NULL)
        ++total;
    char **environment =
        test_alloc((total + ICD_VARIABLE_COUNT + extra + 1) *
                   sizeof *environment);
    size_t n = 0;
    for (char **v = environ; *v; ++v)
        if (!is_icd_variable(*v))
            environment[n++] = *v;
    for (size_t i = 0; i < ICD_VARIABLE_COUNT; ++i)
        if (icd_at_start[i] != NULL)
            environment[n++] = icd_at_start[i];
    environment[n] = NULL;
    *count = n;
    return environment;
}

#define CHILD_FLAG "--kiln-cache-child"
#define ELEMENTS 1000
#define RACE_CHILDREN 4

/* ---- helpers ---------------------------------------------------------------- */

/* The kernel every test builds: x = x * scale + offset, with the constants
 * in the source so that each (scale, offset) pair is another source. */
static char *affine_source(int scale, int offset, size_t padding)
{
    size_t size = padding + 1024;
    char *source = test_alloc(size);
    size_t length = 0;
    char use[128] = "";
    if (padding > 0) {
        /* A table the kernel can reach (n is never negative, but the
         * compiler cannot know): an entry of a chosen size.  (The cache
         * keeps a digest of the source, not a copy: a long comment would
         * not do.) */
        length = (size_t)snprintf(source, size,
                                  "constant char padding[%zu] = \"", padding + 1);
        for (size_t i = 0; i < padding; ++i)
            source[length++] = (char)('a' + (i * 7 + (size_t)scale) % 26);
        memcpy(source + length, "\";\n", 3);
        length += 3;
        snprintf(use, sizeof use,
                 "    if (n < 0)\n        x[0] = padding[(uint)(-n) %% %zuu];\n",
                 padding);
    }
    snprintf(source + length, size - length,
             "kernel void affine(global float *x, int n)\n"
             "{\n"
             "    int i = get_global_id(0);\n"
             "%s"
             "    if (i < n)\n"
             "        x[i] = x[i] * %d.0f + %d.0f;\n"
             "}\n",
             use, scale, offset);
    return source;
}

/* The same kernel with its constants as macros, for option tests. */
static const char affine_macro_source[] =
    "#ifndef OFFSET\n"
    "#define OFFSET 0.0f\n"
    "#endif\n"
    "kernel void affine(global float *x, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        x[i] = x[i] * SCALE + OFFSET;\n"
    "}\n";

/* Runs `affine` on random data and compares with the CPU. */
static void check_affine(kiln_context *context, kiln_program *program,
                         float scale, float offset)
{
    float *data = test_alloc(ELEMENTS * sizeof *data);
    float *expected = test_alloc(ELEMENTS * sizeof *expected);
    test_random_floats(data, ELEMENTS, -10.0f, 10.0f);
    for (size_t i = 0; i < ELEMENTS; ++i)
        expected[i] = data[i] * scale + offset;
    kiln_kernel *kernel = test_kernel(program, "affine");
    kiln_buffer *buffer = test_buffer_from(context, data, ELEMENTS * sizeof *data);
    kiln_launch_config config = test_config_1d(ELEMENTS, 64);
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT(ELEMENTS)};
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    TEST_OK(kiln_buffer_read(buffer, 0, data, ELEMENTS * sizeof *data));
    test_assert_floats_near(data, expected, ELEMENTS, 1e-5);
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_kernel_release(kernel));
    free(data);
    free(expected);
}

static kiln_program_origin origin_of(const kiln_program *program)
{
    kiln_program_origin origin = (kiln_program_origin)-1;
    TEST_OK(kiln_program_get_origin(program, &origin));
    return origin;
}

static const char *origin_name(kiln_program_origin origin)
{
    switch (origin) {
    case KILN_PROGRAM_COMPILED:
        return "compiled";
    case KILN_PROGRAM_FROM_MEMORY_CACHE:
        return "memory cache";
    case KILN_PROGRAM_FROM_DISK_CACHE:
        return "disk cache";
    }
    return "?";
}

#define assert_origin(program, expected)                                      \
    do {                                                                      \
        kiln_program_origin origin_ = origin_of(program);                     \
        if (origin_ != (expected))                                            \
            fail_msg("%s: the program came from the %s, expected the %s",     \
                     #program, origin_name(origin_), origin_name(expected));   \
    } while (0)

static kiln_context *new_context(void **state)
{
    kiln_context *context = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    return context;
}

/* Builds `source` (NUL-terminated) with `options`. */
static kiln_program *build(kiln_context *context, const char *source,
                           const char *options)
{
    return test_build(context, source, options);
}

/* Builds on a brand-new context, checks the result and the origin, and
 * releases everything. */
static void build_fresh_and_check(void **state, const char *source,
                                  const char *options, float scale,
                                  float offset, kiln_program_origin expected)
{
    kiln_context *context = new_context(state);
    kiln_program *program = build(context, source, options);
    assert_origin(program, expected);
    check_affine(context, program, scale, offset);
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
}

static kiln_cache_info cache_info(void)
{
    kiln_cache_info info;
    TEST_OK(kiln_cache_get_info(&info));
    return info;
}

static uint64_t cache_entries(void)
{
    kiln_cache_info info = cache_info();
    if (!info.enabled)
        fail_msg("the cache is disabled (directory '%s')", info.directory);
    return info.entries;
}

#define assert_entries(expected)                                              \
    do {                                                                      \
        uint64_t entries_ = cache_entries();                                  \
        if (entries_ != (uint64_t)(expected))                                 \
            fail_msg("the cache holds %llu entries, expected %llu",           \
                     (unsigned long long)entries_,                            \
                     (unsigned long long)(expected));                         \
    } while (0)

/* A new, empty cache directory for this test: KILN_CACHE_DIR points at it
 * and every other cache variable is back to its default. */
static void fresh_cache(char *dir, size_t size, const char *label)
{
    static unsigned counter;
    snprintf(dir, size, "%s/cache-%s-%u", test_scratch_dir(), label,
             counter++);
    unsetenv("KILN_CACHE");
    unsetenv("KILN_CACHE_MAX_MB");
    setenv("KILN_CACHE_DIR", dir, 1);
}

/* Files in `dir` whose name ends with `suffix` (or starts with it, when
 * `prefix` is true). */
static size_t count_files(const char *dir, const char *affix, bool prefix)
{
    DIR *handle = opendir(dir);
    if (handle == NULL)
        return 0;
    size_t count = 0, affix_length = strlen(affix);
    struct dirent *item;
    while ((item = readdir(handle)) != NULL) {
        size_t length = strlen(item->d_name);
        if (length < affix_length)
            continue;
        if (prefix ? strncmp(item->d_name, affix, affix_length) == 0
                   : strcmp(item->d_name + length - affix_length, affix) == 0)
            ++count;
    }
    closedir(handle);
    return count;
}

/* The path of the single entry in `dir`. */
static void only_entry(const char *dir, char *path, size_t size)
{
    DIR *handle = opendir(dir);
    if (handle == NULL)
        fail_msg("cannot open %s: %s", dir, strerror(errno));
    size_t found = 0;
    struct dirent *item;
    while ((item = readdir(handle)) != NULL) {
        size_t length = strlen(item->d_name);
        if (length > 5 && strcmp(item->d_name + length - 5, ".kbin") == 0) {
            snprintf(path, size, "%s/%s", dir, item->d_name);
            ++found;
        }
    }
    closedir(handle);
    if (found != 1)
        fail_msg("%s holds %zu entries, expected 1", dir, found);
}

static off_t file_size(const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0)
        fail_msg("cannot stat %s: %s", path, strerror(errno));
    return info.st_size;
}

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    if (file == NULL)
        fail_msg("cannot create %s: %s", path, strerror(errno));
    fputs(text, file);
    if (fclose(file) != 0)
        fail_msg("cannot write %s: %s", path, strerror(errno));
}

/* The path of this program's binary: re-executed for child processes.
 * (Resolved here, not "/proc/self/exe" at exec time, which under valgrind
 * would name valgrind itself.) */
static void self_path(char *path, size_t size)
{
    ssize_t length = readlink("/proc/self/exe", path, size - 1);
    if (length <= 0)
        fail_msg("cannot find this program: %s", strerror(errno));
    path[length] = '\0';
}

/* Starts this program in child mode with `arguments` (after CHILD_FLAG),
 * environment `environment`, stdout to /dev/null (the TAP stream is ours)
 * and `close_fd` closed in the child. */
static pid_t spawn_child(const char *const *arguments, char *const *environment,
                         int close_fd)
{
    char self[4096];
    self_path(self, sizeof self);
    char *argv[16];
    size_t n = 0;
    argv[n++] = self;
    argv[n++] = (char *)CHILD_FLAG;
    for (const char *const *a = arguments; *a != NULL && n < 15; ++a)
        argv[n++] = (char *)*a;
    argv[n] = NULL;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null",
                                     O_WRONLY, 0);
    if (close_fd >= 0)
        posix_spawn_file_actions_addclose(&actions, close_fd);
    pid_t pid;
    int error = posix_spawn(&pid, self, &actions, NULL, argv, environment);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0)
        fail_msg("cannot start %s: %s", self, strerror(error));
    return pid;
}

/* Waits for `pid`; its exit status, or -1 if it did not exit. */
static int child_status(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            fail_msg("waitpid: %s", strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- child mode ---------------------------------------------------------------- */

enum child_exit {
    CHILD_OK = 0,
    CHILD_KILN_ERROR = 10,
    CHILD_WRONG_RESULT = 11,
    CHILD_BAD_CACHE_DIRECTORY = 12,
    CHILD_USAGE = 13,
    CHILD_NOT_FROM_DISK = 14
};

#define CHILD_CHECK(call)                                                      \
    do {                                                                       \
        kiln_status child_status_ = (call);                                    \
        if (child_status_ != KILN_OK) {                                        \
            fprintf(stderr, "cache child: %s -> %s: %s\n", #call,              \
                    kiln_status_name(child_status_), kiln_last_error());       \
            return CHILD_KILN_ERROR;                                           \
        }                                                                      \
    } while (0)

/* Builds the affine kernel of (scale, offset) and checks it on fixed data.
 * Reports the origin in `origin`. */
static int child_build_and_run(const char *backend, int scale, int offset,
                               kiln_program_origin *origin)
{
    char *source = affine_source(scale, offset, 0);
    kiln_context *context = NULL;
    kiln_program *program = NULL;
    kiln_kernel *kernel = NULL;
    kiln_buffer *buffer = NULL;
    float data[256];
    for (int i = 0; i < 256; ++i)
        data[i] = (float)i * 0.5f - 17.0f;
    CHILD_CHECK(kiln_context_create(backend, -1, &context));
    CHILD_CHECK(kiln_program_build(context, source, NULL, &program));
    free(source);
    CHILD_CHECK(kiln_program_get_origin(program, origin));
    CHILD_CHECK(kiln_kernel_create(program, "affine", &kernel));
    CHILD_CHECK(kiln_buffer_create_from(context, data, sizeof data, &buffer));
    kiln_launch_config config = {.grid = KILN_DIM1(4), .block = KILN_DIM1(64)};
    CHILD_CHECK(kiln_launch_prepared(kernel, &config, "Pi", buffer, 256));
    CHILD_CHECK(kiln_buffer_read(buffer, 0, data, sizeof data));
    int result = CHILD_OK;
    for (int i = 0; i < 256; ++i) {
        float expected = ((float)i * 0.5f - 17.0f) * (float)scale + (float)offset;
        /* A contracted multiply-add may round once where the CPU rounds
         * twice. */
        float tolerance = 1e-6f * (expected < 0 ? -expected : expected) + 1e-6f;
        if (!(data[i] - expected <= tolerance && expected - data[i] <= tolerance)) {
            fprintf(stderr, "cache child: element %d is %.9g, expected %.9g\n",
                    i, (double)data[i], (double)expected);
            result = CHILD_WRONG_RESULT;
            break;
        }
    }
    kiln_buffer_release(buffer);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    kiln_context_release(context);
    return result;
}

/*   race BACKEND FD SCALE OFFSET: waits until FD reaches end of file (all
 *       racers started), then builds and runs.
 *   reload BACKEND SCALE OFFSET: builds and runs, and fails unless the
 *       program came from the disk cache.
 *   nohome BACKEND SCALE OFFSET: builds and runs, then checks the cache
 *       directory Kiln chose is absolute and not under "/". */
static int child_main(int argc, char **argv)
{
    if (argc >= 7 && strcmp(argv[2], "race") == 0) {
        /* PoCL's own kernel cache is not safe when processes fill it at
         * once (PoCL 3.1 and 5.0 abort in pocl_binary_get_kernels_metadata
         * under load); the race under test is Kiln's, so each racer gets a
         * PoCL cache of its own. */
        const char *pocl = getenv("POCL_CACHE_DIR");
        char own[4096];
        snprintf(own, sizeof own, "%s/racer-%ld", pocl ? pocl : "/tmp",
                 (long)getpid());
        if (mkdir(own, 0700) == 0 || errno == EEXIST)
            setenv("POCL_CACHE_DIR", own, 1);
        int fd = atoi(argv[4]);
        char byte;
        while (read(fd, &byte, 1) > 0) {
        }
        close(fd);
        kiln_program_origin origin;
        return child_build_and_run(argv[3], atoi(argv[5]), atoi(argv[6]),
                                   &origin);
    }
    if (argc >= 6 && strcmp(argv[2], "reload") == 0) {
        kiln_program_origin origin;
        int result =
            child_build_and_run(argv[3], atoi(argv[4]), atoi(argv[5]), &origin);
        if (result == CHILD_OK && origin != KILN_PROGRAM_FROM_DISK_CACHE) {
            fprintf(stderr, "cache child: origin %d, not the disk cache\n",
                    (int)origin);
            result = CHILD_NOT_FROM_DISK;
        }
        return result;
    }
    if (argc >= 6 && strcmp(argv[2], "nohome") == 0) {
        kiln_program_origin origin;
        int result =
            child_build_and_run(argv[3], atoi(argv[4]), atoi(argv[5]), &origin);
        if (result != CHILD_OK)
            return result;
        kiln_cache_info info;
        CHILD_CHECK(kiln_cache_get_info(&info));
        if (info.enabled &&
            (info.directory[0] != '/' ||
             strncmp(info.directory, "/.cache", 7) == 0 ||
             strstr(info.directory, "relative") != NULL)) {
            fprintf(stderr, "cache child: cache directory '%s'\n",
                    info.directory);
            return CHILD_BAD_CACHE_DIRECTORY;
        }
        return CHILD_OK;
    }
    fprintf(stderr, "cache child: bad arguments\n");
    return CHILD_USAGE;
}

/* ---- (1) a hit after a miss ------------------------------------------------------ */

static void test_hit_after_miss(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    fresh_cache(dir, sizeof dir, "hit");
    char *source = affine_source(3, 1, 0);

    kiln_program *first = build(context, source, NULL);
    assert_origin(first, KILN_PROGRAM_COMPILED);
    check_affine(context, first, 3.0f, 1.0f);
    assert_entries(1);

    kiln_program *second = build(context, source, NULL);
    assert_origin(second, KILN_PROGRAM_FROM_MEMORY_CACHE);
    check_affine(context, second, 3.0f, 1.0f);

    build_fresh_and_check(state, source, NULL, 3.0f, 1.0f,
                          KILN_PROGRAM_FROM_DISK_CACHE);
    assert_entries(1);

    /* The created directory is private. */
    struct stat info;
    if (stat(dir, &info) != 0)
        fail_msg("the cache directory %s was not created", dir);
    if ((info.st_mode & 0777) != 0700)
        fail_msg("%s has mode %03o, expected 0700", dir,
                 (unsigned)(info.st_mode & 0777));

    TEST_OK(kiln_program_release(first));
    TEST_OK(kiln_program_release(second));
    free(source);
}

/* ---- (2) what makes a different entry ---------------------------------------------- */

static void test_key_covers_options_source_and_headers(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    fresh_cache(dir, sizeof dir, "key");

    kiln_program *program = build(context, affine_macro_source, "-DSCALE=2.0f");
    check_affine(context, program, 2.0f, 0.0f);
    TEST_OK(kiln_program_release(program));
    assert_entries(1);

    /* The same source and options again: no new entry. */
    build_fresh_and_check(state, affine_macro_source, "-DSCALE=2.0f", 2.0f,
                          0.0f, KILN_PROGRAM_FROM_DISK_CACHE);
    assert_entries(1);

    /* Other options. */
    program = build(context, affine_macro_source, "-DSCALE=5.0f");
    assert_origin(program, KILN_PROGRAM_COMPILED);
    check_affine(context, program, 5.0f, 0.0f);
    TEST_OK(kiln_program_release(program));
    assert_entries(2);

    /* The same value through the defines array is another option string. */
    const char *defines[] = {"SCALE=2.0f", "OFFSET=1.5f"};
    kiln_build_options with_defines = {.defines = defines, .define_count = 2};
    TEST_OK(kiln_program_build_with(context, affine_macro_source, 0,
                                    &with_defines, &program));
    assert_origin(program, KILN_PROGRAM_COMPILED);
    check_affine(context, program, 2.0f, 1.5f);
    TEST_OK(kiln_program_release(program));
    assert_entries(3);

    /* Other source: one character differs. */
    char *source_a = affine_source(4, 1, 0);
    char *source_b = affine_source(4, 2, 0);
    program = build(context, source_a, NULL);
    check_affine(context, program, 4.0f, 1.0f);
    TEST_OK(kiln_program_release(program));
    program = build(context, source_b, NULL);
    assert_origin(program, KILN_PROGRAM_COMPILED);
    check_affine(context, program, 4.0f, 2.0f);
    TEST_OK(kiln_program_release(program));
    assert_entries(5);
    free(source_a);
    free(source_b);

    /* The content of an included header. */
    char include_dir[4200], header[4300];
    snprintf(include_dir, sizeof include_dir, "%s/include", dir);
    if (mkdir(include_dir, 0700) != 0 && errno != EEXIST)
        fail_msg("mkdir %s: %s", include_dir, strerror(errno));
    snprintf(header, sizeof header, "%s/offset.h", include_dir);
    write_file(header, "#define OFFSET 1.0f\n");
    static const char including[] = "#include \"offset.h\"\n"
                                    "#define SCALE 3.0f\n"
                                    "kernel void affine(global float *x, int n)\n"
                                    "{\n"
                                    "    int i = get_global_id(0);\n"
                                    "    if (i < n)\n"
                                    "        x[i] = x[i] * SCALE + OFFSET;\n"
                                    "}\n";
    const char *dirs[] = {include_dir};
    kiln_build_options with_dirs = {.include_dirs = dirs,
                                    .include_dir_count = 1};
    TEST_OK(kiln_program_build_with(context, including, 0, &with_dirs,
                                    &program));
    check_affine(context, program, 3.0f, 1.0f);
    TEST_OK(kiln_program_release(program));
    assert_entries(6);
    write_file(header, "#define OFFSET 4.0f\n");
    /* Same context, same source text, same options: only the header
     * differs, and neither cache may return the old binary. */
    TEST_OK(kiln_program_build_with(context, including, 0, &with_dirs,
                                    &program));
    assert_origin(program, KILN_PROGRAM_COMPILED);
    check_affine(context, program, 3.0f, 4.0f);
    TEST_OK(kiln_program_release(program));
    assert_entries(7);

    /* Every kind of option is in the key: a flag, the order of repeated
     * defines, a value with spaces, an include directory; the same lists
     * spelt another way are the same entry. */
    static const struct {
        const char *options;
        float scale;
        bool compiled;
    } more[] = {
        {"-DSCALE=2.0f -cl-mad-enable", 2.0f, true},
        {"-DSCALE=2.0f -DSCALE=6.0f", 6.0f, true},
        {"-DSCALE=6.0f -DSCALE=2.0f", 2.0f, true},
        {"-D'SCALE=(2.0f + 1.0f)'", 3.0f, true},
        {"-D \"SCALE=(2.0f + 1.0f)\"", 3.0f, false},
        {"-DSCALE=(2.0f\\ +\\ 1.0f)", 3.0f, false},
        {"-DSCALE=2.0f -I/no-such-kiln-dir", 2.0f, true},
    };
    size_t entries = 7;
    for (size_t i = 0; i < sizeof more / sizeof more[0]; ++i) {
        program = build(context, affine_macro_source, more[i].options);
        assert_origin(program, more[i].compiled
                                   ? KILN_PROGRAM_COMPILED
                                   : KILN_PROGRAM_FROM_MEMORY_CACHE);
        check_affine(context, program, more[i].scale, 0.0f);
        TEST_OK(kiln_program_release(program));
        entries += more[i].compiled;
        assert_entries(entries);
    }
}

/* ---- (3) corrupt entries -------------------------------------------------------------- */

typedef enum corruption_kind {
    TRUNCATE,       /* to `at` sixteenths of the size */
    TRUNCATE_INSIDE_HEADER,
    FLIP_BYTE,      /* at `at` sixteenths of the size (16: the last byte) */
    APPEND_BYTE,
    REPLACE_WITH_SYMLINK
} corruption_kind;

typedef struct corruption {
    corruption_kind kind;
    int at;
    const char *name;
} corruption;

/* A flipped byte deep in a binary may be one the backend's own loader
 * does not notice: only the cache's checksum can catch every one, so
 * bytes are flipped all over the entry. */
static const corruption corruptions[] = {
    {TRUNCATE, 8, "truncated to half"},
    {TRUNCATE, 0, "emptied"},
    {TRUNCATE_INSIDE_HEADER, 0, "truncated inside the header"},
    {FLIP_BYTE, 0, "the first byte (magic) flipped"},
    {FLIP_BYTE, 1, "a byte flipped at 1/16"},
    {FLIP_BYTE, 3, "a byte flipped at 3/16"},
    {FLIP_BYTE, 5, "a byte flipped at 5/16"},
    {FLIP_BYTE, 8, "a byte flipped in the middle"},
    {FLIP_BYTE, 11, "a byte flipped at 11/16"},
    {FLIP_BYTE, 13, "a byte flipped at 13/16"},
    {FLIP_BYTE, 15, "a byte flipped at 15/16"},
    {FLIP_BYTE, 16, "the last byte flipped"},
    {APPEND_BYTE, 0, "one byte appended"},
    {REPLACE_WITH_SYMLINK, 0, "replaced by a symbolic link to a valid copy"},
};

static void flip_byte(const char *path, off_t offset)
{
    int fd = open(path, O_RDWR);
    if (fd < 0)
        fail_msg("open %s: %s", path, strerror(errno));
    unsigned char byte;
    if (pread(fd, &byte, 1, offset) != 1)
        fail_msg("read %s: %s", path, strerror(errno));
    byte ^= 0x5a;
    if (pwrite(fd, &byte, 1, offset) != 1)
        fail_msg("write %s: %s", path, strerror(errno));
    close(fd);
}

static void corrupt(const char *path, const corruption *how, const char *spare)
{
    off_t size = file_size(path);
    switch (how->kind) {
    case TRUNCATE:
        if (truncate(path, size * how->at / 16) != 0)
            fail_msg("truncate: %s", strerror(errno));
        break;
    case TRUNCATE_INSIDE_HEADER:
        if (truncate(path, 10) != 0)
            fail_msg("truncate: %s", strerror(errno));
        break;
    case FLIP_BYTE:
        flip_byte(path, how->at == 16 ? size - 1 : size * how->at / 16);
        break;
    case APPEND_BYTE: {
        int fd = open(path, O_WRONLY | O_APPEND);
        if (fd < 0 || write(fd, "x", 1) != 1)
            fail_msg("append to %s: %s", path, strerror(errno));
        close(fd);
        break;
    }
    case REPLACE_WITH_SYMLINK:
        /* A valid entry, but reached through a link: not trusted. */
        if (rename(path, spare) != 0 || symlink(spare, path) != 0)
            fail_msg("symlink %s: %s", path, strerror(errno));
        break;
    }
}

static void test_corrupt_entries_are_rebuilt(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096], entry[4400], spare[4400];
    fresh_cache(dir, sizeof dir, "corrupt");
    snprintf(spare, sizeof spare, "%s-spare", dir);
    char *source = affine_source(6, 5, 0);
    kiln_program *program = build(context, source, NULL);
    assert_origin(program, KILN_PROGRAM_COMPILED);
    TEST_OK(kiln_program_release(program));
    only_entry(dir, entry, sizeof entry);
    off_t valid_size = file_size(entry);

    for (size_t c = 0; c < sizeof corruptions / sizeof corruptions[0]; ++c) {
        const corruption *how = &corruptions[c];
        print_message("# entry %s\n", how->name);
        corrupt(entry, how, spare);
        /* Ignored and rebuilt, and the result is right... */
        build_fresh_and_check(state, source, NULL, 6.0f, 5.0f,
                              KILN_PROGRAM_COMPILED);
        /* ...and the rebuilt entry is whole again. */
        struct stat info;
        if (lstat(entry, &info) != 0 || !S_ISREG(info.st_mode))
            fail_msg("after '%s' the entry was not rewritten as a file",
                     how->name);
        if (info.st_size < valid_size / 2)
            fail_msg("after '%s' the rewritten entry has %lld bytes, "
                     "the first one had %lld",
                     how->name, (long long)info.st_size,
                     (long long)valid_size);
        build_fresh_and_check(state, source, NULL, 6.0f, 5.0f,
                              KILN_PROGRAM_FROM_DISK_CACHE);
        assert_entries(1);
    }
    unlink(spare);
    free(source);
}

/* ---- (3b) what a saved program keeps ------------------------------------------------- */

/* Two kernels: a required block size, a __local parameter, a vector by
 * value.  What a program loaded from the disk cache says of them must be
 * what the compiled one said. */
static const char two_kernels_source[] =
    "__attribute__((reqd_work_group_size(64, 1, 1)))\n"
    "kernel void block_sums(global const float *in, global float *out,\n"
    "                       local float *scratch, int n)\n"
    "{\n"
    "    int l = get_local_id(0), i = get_global_id(0);\n"
    "    scratch[l] = i < n ? in[i] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int s = 32; s > 0; s >>= 1) {\n"
    "        if (l < s)\n"
    "            scratch[l] += scratch[l + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (l == 0)\n"
    "        out[get_group_id(0)] = scratch[0];\n"
    "}\n"
    "kernel void scale_by(global float *x, float4 factors, int n)\n"
    "{\n"
    "    int i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        x[i] *= factors.x + factors.w;\n"
    "}\n";

enum { SUM_BLOCKS = 37, SUM_BLOCK = 64 };

/* Runs both kernels on random data and checks them against the CPU. */
static void check_two_kernels(kiln_context *context, kiln_program *program)
{
    enum { N = SUM_BLOCKS * SUM_BLOCK - 5 };
    float *in = test_alloc(N * sizeof *in);
    float sums[SUM_BLOCKS], expected[SUM_BLOCKS];
    test_random_floats(in, N, -4.0f, 4.0f);
    for (int b = 0; b < SUM_BLOCKS; ++b) {
        double sum = 0;
        for (int i = b * SUM_BLOCK; i < (b + 1) * SUM_BLOCK && i < N; ++i)
            sum += in[i];
        expected[b] = (float)sum;
    }
    kiln_kernel *sums_kernel = test_kernel(program, "block_sums");
    kiln_buffer *bin = test_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bout = test_buffer(context, sizeof sums);
    kiln_launch_config config = test_config_1d(SUM_BLOCKS * SUM_BLOCK,
                                               SUM_BLOCK);
    kiln_arg sum_args[] = {KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout),
                           KILN_ARG_LOCAL(SUM_BLOCK * sizeof(float)),
                           KILN_ARG_INT(N)};
    TEST_OK(kiln_launch(sums_kernel, &config, 4, sum_args));
    TEST_OK(kiln_buffer_read(bout, 0, sums, sizeof sums));
    test_assert_floats_near(sums, expected, SUM_BLOCKS, 1e-4);

    float factors[4] = {test_random_float(0.5f, 2.0f), 7.0f, 9.0f,
                        test_random_float(-1.0f, 1.0f)};
    kiln_kernel *scale = test_kernel(program, "scale_by");
    kiln_arg scale_args[] = {KILN_ARG_BUFFER(bin),
                             KILN_ARG_VALUE(factors, sizeof factors),
                             KILN_ARG_INT(N)};
    config = test_config_1d(N, 128);
    TEST_OK(kiln_launch(scale, &config, 3, scale_args));
    float *scaled = test_alloc(N * sizeof *scaled);
    float *want = test_alloc(N * sizeof *want);
    TEST_OK(kiln_buffer_read(bin, 0, scaled, N * sizeof *scaled));
    for (int i = 0; i < N; ++i)
        want[i] = in[i] * (factors[0] + factors[3]);
    test_assert_floats_near(scaled, want, N, 1e-5);
    TEST_OK(kiln_buffer_release(bin));
    TEST_OK(kiln_buffer_release(bout));
    TEST_OK(kiln_kernel_release(sums_kernel));
    TEST_OK(kiln_kernel_release(scale));
    free(in);
    free(scaled);
    free(want);
}

/* What the API tells of a program's kernels, as one comparable text. */
static void describe_kernels(kiln_program *program, char *text, size_t size)
{
    size_t used = 0, count = 0;
    TEST_OK(kiln_program_get_kernel_count(program, &count));
    used += (size_t)snprintf(text + used, size - used, "%zu kernels", count);
    for (size_t k = 0; k < count && used < size; ++k) {
        const char *name = NULL;
        TEST_OK(kiln_program_get_kernel_name(program, k, &name));
        kiln_kernel *kernel = test_kernel(program, name);
        size_t params = 0, max_block = 0;
        TEST_OK(kiln_kernel_get_param_count(kernel, &params));
        TEST_OK(kiln_kernel_get_max_block_size(kernel, &max_block));
        used += (size_t)snprintf(text + used, size - used,
                                 "; %s (max block %zu):", name, max_block);
        for (size_t p = 0; p < params && used < size; ++p) {
            kiln_param_info info;
            TEST_OK(kiln_kernel_get_param_info(kernel, p, &info));
            used += (size_t)snprintf(text + used, size - used,
                                     " %d/%zu/%s/%s", (int)info.kind,
                                     info.size, info.name, info.type_name);
        }
        TEST_OK(kiln_kernel_release(kernel));
    }
}

static void test_saved_program_keeps_kernel_information(void **state)
{
    (void)test_context(state); /* skips a backend that is not here */
    char dir[4096];
    fresh_cache(dir, sizeof dir, "kernels");
    char compiled[4096], loaded[4096];
    kiln_context *context = new_context(state);
    kiln_program *program = build(context, two_kernels_source, NULL);
    assert_origin(program, KILN_PROGRAM_COMPILED);
    describe_kernels(program, compiled, sizeof compiled);
    check_two_kernels(context, program);
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));

    context = new_context(state);
    program = build(context, two_kernels_source, NULL);
    assert_origin(program, KILN_PROGRAM_FROM_DISK_CACHE);
    describe_kernels(program, loaded, sizeof loaded);
    if (strcmp(compiled, loaded) != 0)
        fail_msg("compiled: %s\nloaded:   %s", compiled, loaded);
    if (strstr(loaded, "2 kernels; block_sums (max block 64)") == NULL ||
        strstr(loaded, "/in/") == NULL || strstr(loaded, "/factors/") == NULL)
        fail_msg("unexpected description: %s", loaded);
    check_two_kernels(context, program);
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
}

/* CUDA C: an initialised __device__ array, a __constant__ the host writes,
 * extern __shared__ memory.  The OpenCL backend translates them into hidden
 * parameters and buffers of its own, which a saved program must bring
 * back; CUDA keeps them in the module. */
static const char cuda_globals_source[] =
    "__device__ float offsets[4] = {0.5f, -1.0f, 2.0f, 4.0f};\n"
    "__constant__ float gain;\n"
    "extern __shared__ float tile[];\n"
    "__global__ void shift(const float *in, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    tile[threadIdx.x] = i < n ? in[i] : 0.0f;\n"
    "    __syncthreads();\n"
    "    int j = blockDim.x - 1 - threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = tile[j] * gain + offsets[i & 3];\n"
    "}\n";

/* Runs `shift` with a random gain written through kiln_program_get_global
 * and checks it against the CPU. */
static void check_cuda_globals(kiln_context *context, kiln_program *program)
{
    enum { N = 1000, B = 128 };
    float *in = test_alloc(N * sizeof *in), *out = test_alloc(N * sizeof *out);
    float *want = test_alloc(N * sizeof *want);
    test_random_floats(in, N, -3.0f, 3.0f);
    float gain = test_random_float(0.5f, 2.0f);
    kiln_buffer *gain_buffer = NULL, *offsets = NULL;
    TEST_OK(kiln_program_get_global(program, "gain", &gain_buffer));
    TEST_OK(kiln_buffer_write(gain_buffer, 0, &gain, sizeof gain));
    TEST_OK(kiln_program_get_global(program, "offsets", &offsets));
    size_t size = 0;
    TEST_OK(kiln_buffer_get_size(offsets, &size));
    if (size != 4 * sizeof(float))
        fail_msg("offsets has %zu bytes, expected %zu", size,
                 4 * sizeof(float));
    kiln_kernel *kernel = test_kernel(program, "shift");
    kiln_buffer *bin = test_buffer_from(context, in, N * sizeof *in);
    kiln_buffer *bout = test_buffer(context, N * sizeof *out);
    kiln_launch_config config = test_config_1d(N, B);
    config.local_memory = B * sizeof(float);
    kiln_arg args[] = {KILN_ARG_BUFFER(bin), KILN_ARG_BUFFER(bout),
                       KILN_ARG_INT(N)};
    TEST_OK(kiln_launch(kernel, &config, 3, args));
    TEST_OK(kiln_buffer_read(bout, 0, out, N * sizeof *out));
    static const float offset_values[4] = {0.5f, -1.0f, 2.0f, 4.0f};
    for (int i = 0; i < N; ++i) {
        int block = i / B, j = B - 1 - i % B, source = block * B + j;
        float value = source < N ? in[source] : 0.0f;
        want[i] = value * gain + offset_values[i & 3];
    }
    test_assert_floats_near(out, want, N, 1e-5);
    TEST_OK(kiln_buffer_release(gain_buffer));
    TEST_OK(kiln_buffer_release(offsets));
    TEST_OK(kiln_buffer_release(bin));
    TEST_OK(kiln_buffer_release(bout));
    TEST_OK(kiln_kernel_release(kernel));
    free(in);
    free(out);
    free(want);
}

static void test_saved_cuda_c_keeps_its_variables(void **state)
{
    (void)test_context(state); /* skips a backend that is not here */
    char dir[4096];
    fresh_cache(dir, sizeof dir, "cudac");
    char compiled[4096], loaded[4096];
    kiln_context *context = new_context(state);
    kiln_program *program = test_build_cuda(context, cuda_globals_source,
                                            NULL);
    assert_origin(program, KILN_PROGRAM_COMPILED);
    describe_kernels(program, compiled, sizeof compiled);
    check_cuda_globals(context, program);
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));

    for (int round = 0; round < 2; ++round) {
        /* twice: a loaded program's variables start from their initial
         * values, not from what the last one wrote */
        context = new_context(state);
        program = test_build_cuda(context, cuda_globals_source, NULL);
        assert_origin(program, KILN_PROGRAM_FROM_DISK_CACHE);
        describe_kernels(program, loaded, sizeof loaded);
        if (strcmp(compiled, loaded) != 0)
            fail_msg("compiled: %s\nloaded:   %s", compiled, loaded);
        check_cuda_globals(context, program);
        TEST_OK(kiln_program_release(program));
        TEST_OK(kiln_context_release(context));
    }
}

/* ---- (3c) saved programs that pass the checksum but not the reader -------------------- */

/* The entry layout of core/cache_disk.c (its own test is the fuzz target and
 * the corruption test above): a header, the key, the saved program. */
typedef struct entry_header {
    char magic[8];
    uint32_t format;
    uint32_t reserved;
    uint64_t key_length;
    uint64_t saved_length;
    uint64_t checksum;
} entry_header;

static unsigned char *read_whole(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    size_t capacity = (size_t)file_size(path);
    unsigned char *data = test_alloc(capacity ? capacity : 1);
    *size = fread(data, 1, capacity, file);
    fclose(file);
    return data;
}

/* Writes an entry of `key` holding `saved`, with a checksum that holds. */
static void write_entry(const char *path, const entry_header *model,
                        const unsigned char *key, const unsigned char *saved,
                        size_t saved_length)
{
    entry_header header = *model;
    header.saved_length = saved_length;
    XXH3_state_t checksum;
    XXH3_INITSTATE(&checksum);
    XXH3_64bits_reset(&checksum);
    XXH3_64bits_update(&checksum, key, header.key_length);
    XXH3_64bits_update(&checksum, saved, saved_length);
    header.checksum = XXH3_64bits_digest(&checksum);
    FILE *file = fopen(path, "wb");
    if (file == NULL ||
        fwrite(&header, sizeof header, 1, file) != 1 ||
        fwrite(key, 1, header.key_length, file) != header.key_length ||
        (saved_length > 0 &&
         fwrite(saved, 1, saved_length, file) != saved_length) ||
        fclose(file) != 0)
        fail_msg("cannot write %s", path);
}

static void put_u32(unsigned char *at, uint32_t value)
{
    for (int i = 0; i < 4; ++i)
        at[i] = (unsigned char)(value >> (8 * i));
}

static void test_unreadable_saved_programs_are_rebuilt(void **state)
{
    (void)test_context(state); /* skips a backend that is not here */
    char dir[4096], entry[4400];
    fresh_cache(dir, sizeof dir, "saved");
    char *source = affine_source(2, 9, 0);
    build_fresh_and_check(state, source, NULL, 2.0f, 9.0f,
                          KILN_PROGRAM_COMPILED);
    only_entry(dir, entry, sizeof entry);
    size_t size = 0;
    unsigned char *valid = read_whole(entry, &size);
    entry_header header;
    memcpy(&header, valid, sizeof header);
    if (header.key_length + header.saved_length + sizeof header != size ||
        header.saved_length < 32 ||
        memcmp(valid + sizeof header + header.key_length, "KILNPROG", 8) != 0)
        fail_msg("the entry does not hold a saved program where expected");
    const unsigned char *key = valid + sizeof header;
    const unsigned char *saved = key + header.key_length;
    size_t saved_length = (size_t)header.saved_length;
    unsigned char *bad = test_alloc(saved_length + 64);

    enum { BAD_OLD_OPENCL, BAD_OLD_CUDA, BAD_VERSION, BAD_LANGUAGE,
           BAD_KERNELS, BAD_IMAGE_SIZE, BAD_TRUNCATED, BAD_PADDED, BAD_NAME,
           BAD_EMPTY, BAD_CASES };
    static const char *const names[BAD_CASES] = {
        "an OpenCL plugin blob of the last format",
        "a CUDA plugin blob of the last format",
        "another format version", "the other language",
        "a kernel count past the bytes", "an image size past the bytes",
        "a byte cut from the kernel list", "a byte added to the kernel list",
        "a kernel name that is not terminated", "nothing at all"};
    for (int c = 0; c < BAD_CASES; ++c) {
        print_message("# saved program: %s\n", names[c]);
        size_t length = saved_length;
        memcpy(bad, saved, saved_length);
        switch (c) {
        case BAD_OLD_OPENCL:
            /* what the OpenCL plugin once saved itself: magic, version 4,
             * flags, size */
            memcpy(bad, "KILN-OCL\4\0\0\0\0\0\0\0", 16);
            break;
        case BAD_OLD_CUDA:
            memcpy(bad, "KILNCUBN\4\0\0\0\0\0\0\0", 16);
            break;
        case BAD_VERSION:
            put_u32(bad + 8, 0);
            break;
        case BAD_LANGUAGE:
            put_u32(bad + 12, 1);
            break;
        case BAD_KERNELS:
            put_u32(bad + 16, 0x7fffffffu);
            break;
        case BAD_IMAGE_SIZE:
            put_u32(bad + 24, (uint32_t)saved_length);
            break;
        case BAD_TRUNCATED:
            /* one byte out of the first kernel's name */
            memmove(bad + 37, bad + 38, saved_length - 38);
            length = saved_length - 1;
            break;
        case BAD_PADDED:
            memmove(bad + 33, bad + 32, saved_length - 32);
            length = saved_length + 1;
            break;
        case BAD_NAME:
            /* the first kernel's name ("affine\0") loses its NUL */
            bad[32 + 4 + 6] = 'x';
            break;
        case BAD_EMPTY:
            length = 0;
            break;
        }
        write_entry(entry, &header, key, bad, length);
        /* A miss: compiled, right, and the entry written again... */
        build_fresh_and_check(state, source, NULL, 2.0f, 9.0f,
                              KILN_PROGRAM_COMPILED);
        /* ...so the next new context finds it on disk. */
        build_fresh_and_check(state, source, NULL, 2.0f, 9.0f,
                              KILN_PROGRAM_FROM_DISK_CACHE);
        assert_entries(1);
    }
    free(bad);
    free(valid);
    free(source);
}

/* An entry holds the binary and a digest of the source, not a copy of it
 * (issue 18.4: a 200 MB source made a 210 MB entry). */
static void test_entry_does_not_copy_the_source(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096], entry[4400];
    fresh_cache(dir, sizeof dir, "copy");
    enum { COMMENT = 4 << 20 };
    char *kernel = affine_source(5, 3, 0);
    size_t kernel_length = strlen(kernel);
    char *source = test_alloc(COMMENT + kernel_length + 8);
    memcpy(source, "/*", 2);
    for (size_t i = 2; i < COMMENT; ++i)
        source[i] = (char)('a' + i % 26);
    memcpy(source + COMMENT, "*/\n", 3);
    memcpy(source + COMMENT + 3, kernel, kernel_length + 1);
    kiln_program *program = build(context, source, NULL);
    check_affine(context, program, 5.0f, 3.0f);
    TEST_OK(kiln_program_release(program));
    only_entry(dir, entry, sizeof entry);
    off_t size = file_size(entry);
    if (size > COMMENT / 4)
        fail_msg("a %d-byte source made a %lld-byte entry", COMMENT,
                 (long long)size);
    build_fresh_and_check(state, source, NULL, 5.0f, 3.0f,
                          KILN_PROGRAM_FROM_DISK_CACHE);
    free(source);
    free(kernel);
}

/* Whether the only entry in `dir` names the translator in its key. */
static bool entry_names_translator(const char *dir)
{
    char entry[4400];
    only_entry(dir, entry, sizeof entry);
    FILE *file = fopen(entry, "rb");
    if (file == NULL)
        fail_msg("cannot open %s: %s", entry, strerror(errno));
    size_t size = (size_t)file_size(entry);
    char *bytes = test_alloc(size + 1);
    assert_int_equal(fread(bytes, 1, size, file), size);
    fclose(file);
    char wanted[64];
    /* The digest has a fixed length, so no longer digest can match. */
    snprintf(wanted, sizeof wanted, "translator %s", translate_digest());
    bool found = memmem(bytes, size, wanted, strlen(wanted)) != NULL;
    free(bytes);
    return found;
}

/* A program the front end translated (OpenCL C on CUDA, CUDA C on OpenCL)
 * or read (CUDA C on CUDA: its signatures) is keyed by the translator:
 * the entry's key holds the build's digest of the front end (test_clc
 * checks that the digest follows every edit of translate/), so after
 * Kiln's translator or prelude changes, old binaries miss.  An OpenCL C
 * program on OpenCL is the driver's alone: its key does not. */
static void test_key_names_the_translator(void **state)
{
    kiln_context *context = test_context(state);
    bool cuda = strcmp(test_backend(state), "cuda") == 0;
    char dir[4096];
    fresh_cache(dir, sizeof dir, "translator");
    char *source = affine_source(7, 2, 0);
    kiln_program *program = build(context, source, NULL);
    TEST_OK(kiln_program_release(program));
    if (entry_names_translator(dir) != cuda)
        fail_msg("the key of an OpenCL C program on %s %s the translator",
                 test_backend(state), cuda ? "does not name" : "names");
    free(source);

    fresh_cache(dir, sizeof dir, "translator-cuda");
    program = test_build_cuda(context, cuda_globals_source, NULL);
    TEST_OK(kiln_program_release(program));
    if (!entry_names_translator(dir))
        fail_msg("the key of a CUDA C program on %s does not name the "
                 "translator",
                 test_backend(state));
}

/* ---- (4) directories the cache cannot or must not use ------------------------------------ */

static void test_read_only_directory_still_builds(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    fresh_cache(dir, sizeof dir, "readonly");
    if (mkdir(dir, 0700) != 0)
        fail_msg("mkdir %s: %s", dir, strerror(errno));
    chmod(dir, 0500);
    /* root writes anyway: then only "the build works" can be checked. */
    bool enforced = access(dir, W_OK) != 0;
    char *source = affine_source(7, 3, 0);
    kiln_program *program = NULL;
    kiln_status status = kiln_program_build(context, source, NULL, &program);
    char message[512];
    snprintf(message, sizeof message, "%s", kiln_last_error());
    size_t entries = count_files(dir, ".kbin", false);
    size_t temporaries = count_files(dir, ".tmp-", true);
    chmod(dir, 0700);
    if (status != KILN_OK)
        fail_msg("build with a read-only cache: %s: %s",
                 kiln_status_name(status), message);
    if (message[0] != '\0')
        fail_msg("a successful build left an error behind: %s", message);
    assert_origin(program, KILN_PROGRAM_COMPILED);
    check_affine(context, program, 7.0f, 3.0f);
    TEST_OK(kiln_program_release(program));
    if (enforced && (entries != 0 || temporaries != 0))
        fail_msg("a read-only directory received %zu entries and %zu "
                 "temporary files",
                 entries, temporaries);
    if (!enforced)
        print_message("# running as root: 0500 does not stop writes\n");
    free(source);
}

static void test_cache_dir_that_is_a_file(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    fresh_cache(dir, sizeof dir, "file");
    write_file(dir, "not a directory\n");
    char *source = affine_source(2, 9, 0);
    kiln_program *program = build(context, source, NULL);
    assert_origin(program, KILN_PROGRAM_COMPILED);
    check_affine(context, program, 2.0f, 9.0f);
    TEST_OK(kiln_program_release(program));
    kiln_cache_info info = cache_info();
    if (info.enabled || info.directory[0] != '\0')
        fail_msg("a file as KILN_CACHE_DIR: enabled %d, directory '%s'",
                 info.enabled, info.directory);
    /* Nothing can be cached: a new context compiles again. */
    build_fresh_and_check(state, source, NULL, 2.0f, 9.0f,
                          KILN_PROGRAM_COMPILED);
    /* And the file is untouched. */
    if (file_size(dir) != (off_t)strlen("not a directory\n"))
        fail_msg("the file named by KILN_CACHE_DIR was modified");

    /* A path below a file cannot be created either. */
    char below[4200];
    snprintf(below, sizeof below, "%s/sub", dir);
    setenv("KILN_CACHE_DIR", below, 1);
    build_fresh_and_check(state, source, NULL, 2.0f, 9.0f,
                          KILN_PROGRAM_COMPILED);
    info = cache_info();
    if (info.enabled)
        fail_msg("KILN_CACHE_DIR below a file is reported enabled");
    free(source);
}

static void test_cache_dir_writable_by_others(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    fresh_cache(dir, sizeof dir, "shared");
    char *source = affine_source(8, 1, 0);
    /* A valid entry first, so that "not used" also means "not read". */
    kiln_program *program = build(context, source, NULL);
    TEST_OK(kiln_program_release(program));
    assert_entries(1);
    if (chmod(dir, 0777) != 0)
        fail_msg("chmod %s: %s", dir, strerror(errno));
    kiln_cache_info info = cache_info();
    build_fresh_and_check(state, source, NULL, 8.0f, 1.0f,
                          KILN_PROGRAM_COMPILED);
    char *other = affine_source(8, 2, 0);
    build_fresh_and_check(state, other, NULL, 8.0f, 2.0f,
                          KILN_PROGRAM_COMPILED);
    size_t entries = count_files(dir, ".kbin", false);
    chmod(dir, 0700);
    if (info.enabled)
        fail_msg("a directory of mode 0777 is reported enabled");
    if (entries != 1)
        fail_msg("a directory of mode 0777 received entries (%zu, expected "
                 "the 1 from before)",
                 entries);
    free(source);
    free(other);
}

/* ---- (5) processes racing on one key ------------------------------------------------------------ */

static void test_processes_racing_on_one_key(void **state)
{
    (void)test_context(state); /* skips when the backend is missing */
    char dir[4096];
    fresh_cache(dir, sizeof dir, "race");
    /* A source no cache has seen, PoCL's included, so every racer really
     * compiles and they finish close together. */
    int scale = 2 + (int)(test_random_u64() % 1000000);
    int offset = (int)(test_random_u64() % 1000);
    char scale_text[32], offset_text[32];
    snprintf(scale_text, sizeof scale_text, "%d", scale);
    snprintf(offset_text, sizeof offset_text, "%d", offset);

    int barrier[2];
    if (pipe(barrier) != 0)
        fail_msg("pipe: %s", strerror(errno));
    char fd_text[32];
    snprintf(fd_text, sizeof fd_text, "%d", barrier[0]);
    const char *arguments[] = {"race",    test_backend(state), fd_text,
                               scale_text, offset_text,        NULL};
    pid_t children[RACE_CHILDREN];
    size_t variables;
    char **environment = child_environment(0, &variables);
    for (int i = 0; i < RACE_CHILDREN; ++i)
        children[i] = spawn_child(arguments, environment, barrier[1]);
    close(barrier[0]);
    close(barrier[1]); /* all start now */
    int failures = 0;
    for (int i = 0; i < RACE_CHILDREN; ++i) {
        int status = child_status(children[i]);
        if (status != CHILD_OK) {
            print_message("# racer %d exited with %d\n", i, status);
            ++failures;
        }
    }
    if (failures != 0)
        fail_msg("%d of %d racing processes failed (see the log)", failures,
                 RACE_CHILDREN);

    assert_entries(1);
    if (count_files(dir, ".tmp-", true) != 0)
        fail_msg("temporary files were left in %s", dir);
    /* The entry loads in another process like the racers.  (Not in this
     * one: under valgrind PoCL sees another CPU, hence another key.) */
    const char *reload[] = {"reload", test_backend(state), scale_text,
                            offset_text, NULL};
    int status = child_status(spawn_child(reload, environment, -1));
    free(environment);
    if (status != CHILD_OK)
        fail_msg("a process after the race did not load the entry from the "
                 "disk cache (exit %d, see the log)",
                 status);
}

/* ---- (6) no HOME, no XDG_CACHE_HOME, no KILN_CACHE_DIR ----------------------------------------------- */

/* Where Kiln falls back to: the password database's home. */
typedef struct fallback_snapshot {
    char paths[3][4200]; /* home, home/.cache, home/.cache/kiln */
    bool existed[3];
    char (*entries)[256];
    size_t entry_count;
} fallback_snapshot;

static void fallback_take(fallback_snapshot *snapshot)
{
    memset(snapshot, 0, sizeof *snapshot);
    struct passwd *user = getpwuid(geteuid());
    if (user == NULL || user->pw_dir == NULL || user->pw_dir[0] != '/')
        return;
    snprintf(snapshot->paths[0], sizeof snapshot->paths[0], "%s", user->pw_dir);
    snprintf(snapshot->paths[1], sizeof snapshot->paths[1], "%s/.cache",
             user->pw_dir);
    snprintf(snapshot->paths[2], sizeof snapshot->paths[2], "%s/.cache/kiln",
             user->pw_dir);
    for (int i = 0; i < 3; ++i)
        snapshot->existed[i] = access(snapshot->paths[i], F_OK) == 0;
    DIR *handle = opendir(snapshot->paths[2]);
    if (handle == NULL)
        return;
    struct dirent *item;
    while ((item = readdir(handle)) != NULL) {
        snapshot->entries = realloc(snapshot->entries,
                                    (snapshot->entry_count + 1) * 256);
        if (snapshot->entries == NULL)
            fail_msg("out of memory");
        snprintf(snapshot->entries[snapshot->entry_count++], 256, "%s",
                 item->d_name);
    }
    closedir(handle);
}

/* Removes what the children added to the user's real cache. */
static void fallback_restore(fallback_snapshot *snapshot)
{
    if (snapshot->paths[2][0] == '\0')
        return;
    DIR *handle = opendir(snapshot->paths[2]);
    if (handle != NULL) {
        struct dirent *item;
        while ((item = readdir(handle)) != NULL) {
            if (strcmp(item->d_name, ".") == 0 ||
                strcmp(item->d_name, "..") == 0)
                continue;
            bool old = false;
            for (size_t i = 0; i < snapshot->entry_count && !old; ++i)
                old = strcmp(snapshot->entries[i], item->d_name) == 0;
            if (!old) {
                char path[4600];
                snprintf(path, sizeof path, "%s/%s", snapshot->paths[2],
                         item->d_name);
                unlink(path);
            }
        }
        closedir(handle);
    }
    for (int i = 2; i >= 0; --i)
        if (!snapshot->existed[i])
            rmdir(snapshot->paths[i]);
    free(snapshot->entries);
    snapshot->entries = NULL;
}

static void test_no_home_directory(void **state)
{
    (void)test_context(state);
    /* Environments: each with HOME, XDG_CACHE_HOME and KILN_CACHE_DIR
     * removed, then the extra settings. */
    static const char *const extras[][2] = {
        {NULL, NULL},
        {"HOME=/", NULL},
        {"HOME=", NULL},
        {"XDG_CACHE_HOME=relative/cache", "HOME=relative-home"},
    };
    fallback_snapshot snapshot;
    fallback_take(&snapshot);
    int scale = 11, offset = 4;
    char scale_text[32], offset_text[32];
    snprintf(scale_text, sizeof scale_text, "%d", scale);
    snprintf(offset_text, sizeof offset_text, "%d", offset);
    const char *arguments[] = {"nohome", test_backend(state), scale_text,
                               offset_text, NULL};
    int failures = 0;
    for (size_t e = 0; e < sizeof extras / sizeof extras[0]; ++e) {
        size_t count = 0;
        char **environment = child_environment(2, &count);
        size_t n = 0;
        for (size_t v = 0; v < count; ++v)
            if (strncmp(environment[v], "HOME=", 5) != 0 &&
                strncmp(environment[v], "XDG_CACHE_HOME=", 15) != 0 &&
                strncmp(environment[v], "KILN_CACHE_DIR=", 15) != 0)
                environment[n++] = environment[v];
        for (int x = 0; x < 2; ++x)
            if (extras[e][x] != NULL)
                environment[n++] = (char *)extras[e][x];
        environment[n] = NULL;
        int status = child_status(spawn_child(arguments, environment, -1));
        free(environment);
        if (status != CHILD_OK) {
            print_message("# environment %zu (%s %s): child exited with %d\n",
                          e, extras[e][0] ? extras[e][0] : "nothing set",
                          extras[e][1] ? extras[e][1] : "", status);
            ++failures;
        }
    }
    fallback_restore(&snapshot);
    if (failures != 0)
        fail_msg("%d environments without a home failed (see the log)",
                 failures);
}

/* ---- (7) KILN_CACHE=0 ------------------------------------------------------------------------------ */

static void test_cache_disabled(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    fresh_cache(dir, sizeof dir, "off");
    char *source = affine_source(9, 9, 0);
    char *other = affine_source(9, 8, 0);
    kiln_program *program = build(context, source, NULL);
    TEST_OK(kiln_program_release(program));
    assert_entries(1);

    static const char *const off_values[] = {"0", "off", "no", "false"};
    for (size_t v = 0; v < sizeof off_values / sizeof off_values[0]; ++v) {
        setenv("KILN_CACHE", off_values[v], 1);
        kiln_cache_info info = cache_info();
        if (info.enabled)
            fail_msg("KILN_CACHE=%s: the cache is reported enabled",
                     off_values[v]);
        /* An entry is there, but must not be read... */
        build_fresh_and_check(state, source, NULL, 9.0f, 9.0f,
                              KILN_PROGRAM_COMPILED);
        /* ...nor a new one written. */
        build_fresh_and_check(state, other, NULL, 9.0f, 8.0f,
                              KILN_PROGRAM_COMPILED);
    }
    unsetenv("KILN_CACHE");
    assert_entries(1);
    build_fresh_and_check(state, source, NULL, 9.0f, 9.0f,
                          KILN_PROGRAM_FROM_DISK_CACHE);
    free(source);
    free(other);
}

/* ---- (8) the size limit and least-recently-used eviction --------------------------------------------------- */

/* Padding that makes an entry about 50 KiB: under the 64 KiB of constant
 * memory NVIDIA devices have (a larger table does not build there). */
#define EVICTION_PADDING (48u << 10)
#define EVICTION_MAX_ENTRIES 40

/* File times advance in ticks of the kernel's clock (4 ms here); the
 * order of uses only shows in them when the uses are a few ticks apart. */
static void let_file_times_advance(void)
{
    struct timespec pause = {0, 30 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

static bool present_on_disk(void **state, int scale)
{
    let_file_times_advance();
    char *source = affine_source(scale, 0, EVICTION_PADDING);
    kiln_context *context = new_context(state);
    kiln_program *program = build(context, source, NULL);
    kiln_program_origin origin = origin_of(program);
    check_affine(context, program, (float)scale, 0.0f);
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(context));
    free(source);
    return origin == KILN_PROGRAM_FROM_DISK_CACHE;
}

static void assert_within_limit(uint64_t limit)
{
    kiln_cache_info info = cache_info();
    if (info.bytes > limit)
        fail_msg("the cache holds %llu bytes, over its limit of %llu",
                 (unsigned long long)info.bytes, (unsigned long long)limit);
}

static void test_eviction_least_recently_used(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    fresh_cache(dir, sizeof dir, "evict");
    setenv("KILN_CACHE_MAX_MB", "1", 1);
    const uint64_t limit = (uint64_t)1 << 20;
    kiln_cache_info info = cache_info();
    if (info.limit_bytes != limit)
        fail_msg("KILN_CACHE_MAX_MB=1 gives a limit of %llu bytes",
                 (unsigned long long)info.limit_bytes);

    /* Fill the cache while the entries still fit: scale 1, 2, ... */
    int built = 0;
    uint64_t entry_bytes = 0;
    for (;;) {
        char *source = affine_source(built + 1, 0, EVICTION_PADDING);
        let_file_times_advance();
        kiln_program *program = build(context, source, NULL);
        free(source);
        TEST_OK(kiln_program_release(program));
        ++built;
        info = cache_info();
        if (info.entries != (uint64_t)built)
            fail_msg("an entry was evicted while %llu of %llu bytes were "
                     "used",
                     (unsigned long long)info.bytes,
                     (unsigned long long)limit);
        if (built == 1)
            entry_bytes = info.bytes;
        if (info.bytes + entry_bytes + entry_bytes / 20 > limit)
            break;
    }
    if (built < 2)
        fail_msg("an entry takes %llu bytes: too big to test eviction "
                 "under 1 MiB (lower EVICTION_PADDING)",
                 (unsigned long long)entry_bytes);

    /* Use the oldest entry: it becomes the most recent. */
    if (!present_on_disk(state, 1))
        fail_msg("entry 1 is not on disk before any eviction");

    /* Add entries until something is evicted. */
    int distinct = built;
    do {
        if (distinct >= EVICTION_MAX_ENTRIES)
            fail_msg("%d entries of %llu bytes and no eviction under a "
                     "limit of 1 MiB",
                     distinct, (unsigned long long)entry_bytes);
        char *source = affine_source(++distinct, 0, EVICTION_PADDING);
        let_file_times_advance();
        kiln_program *program = build(context, source, NULL);
        free(source);
        TEST_OK(kiln_program_release(program));
        assert_within_limit(limit);
        info = cache_info();
    } while (info.entries == (uint64_t)distinct);

    /* Entry 2 was the least recently used; entry 1 was touched after it
     * and the newest entry was just stored. */
    if (!present_on_disk(state, 1))
        fail_msg("entry 1, used after entry 2, was evicted first");
    if (!present_on_disk(state, distinct))
        fail_msg("the newest entry was evicted");
    assert_within_limit(limit);
    if (present_on_disk(state, 2))
        fail_msg("entry 2, the least recently used, survived eviction");
    assert_within_limit(limit);
}

/* ---- (9) clearing --------------------------------------------------------------------------------------------- */

static void test_clear(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096];
    fresh_cache(dir, sizeof dir, "clear");
    char *source_a = affine_source(12, 1, 0);
    char *source_b = affine_source(12, 2, 0);
    kiln_program *program = build(context, source_a, NULL);
    TEST_OK(kiln_program_release(program));
    program = build(context, source_b, NULL);
    TEST_OK(kiln_program_release(program));
    assert_entries(2);
    kiln_cache_info before = cache_info();
    if (before.bytes == 0)
        fail_msg("two entries of 0 bytes");

    TEST_OK(kiln_cache_clear());
    kiln_cache_info after = cache_info();
    if (after.entries != 0 || after.bytes != 0)
        fail_msg("after kiln_cache_clear: %llu entries, %llu bytes",
                 (unsigned long long)after.entries,
                 (unsigned long long)after.bytes);
    if (count_files(dir, ".kbin", false) != 0)
        fail_msg("entry files remain in %s", dir);
    build_fresh_and_check(state, source_a, NULL, 12.0f, 1.0f,
                          KILN_PROGRAM_COMPILED);
    /* Clearing an empty cache, twice, is fine. */
    TEST_OK(kiln_cache_clear());
    TEST_OK(kiln_cache_clear());
    assert_entries(0);
    free(source_a);
    free(source_b);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], CHILD_FLAG) == 0)
        return child_main(argc, argv);
    icd_variables_remember();
    static const kiln_test tests[] = {
        KILN_TEST(test_hit_after_miss),
        KILN_TEST(test_key_covers_options_source_and_headers),
        KILN_TEST(test_corrupt_entries_are_rebuilt),
        KILN_TEST(test_saved_program_keeps_kernel_information),
        KILN_TEST(test_saved_cuda_c_keeps_its_variables),
        KILN_TEST(test_unreadable_saved_programs_are_rebuilt),
        KILN_TEST(test_key_names_the_translator),
        KILN_TEST(test_entry_does_not_copy_the_source),
        KILN_TEST(test_read_only_directory_still_builds),
        KILN_TEST(test_cache_dir_that_is_a_file),
        KILN_TEST(test_cache_dir_writable_by_others),
        KILN_TEST(test_processes_racing_on_one_key),
        KILN_TEST(test_no_home_directory),
        KILN_TEST(test_cache_disabled),
        KILN_TEST(test_eviction_least_recently_used),
        KILN_TEST(test_clear),
    };
    return kiln_test_main("cache", tests, sizeof tests / sizeof tests[0]);
}
