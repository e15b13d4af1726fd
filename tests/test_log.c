/*
 * Logging: the levels KILN_LOG and kiln_log_set_level choose, the info line
 * of each build (time and origin: compiled, memory cache, disk cache), an
 * unknown KILN_LOG reported once, and lines going to the program's
 * callback instead of stderr.
 */
#include "config.h" /* _GNU_SOURCE: setenv under -std=c11 */

#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every line of the process: both backends' tests run in one process,
 * so a test counts the lines after those it found (never clears them). */
#define CAPTURED_LINES 4096

typedef struct captured {
    pthread_mutex_t lock;
    char lines[CAPTURED_LINES][512];
    kiln_log_level levels[CAPTURED_LINES];
    int count;
    bool overflowed;
} captured;

static captured seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void capture(kiln_log_level level, const char *message, void *user)
{
    captured *into = user;
    pthread_mutex_lock(&into->lock);
    if (into->count < CAPTURED_LINES) {
        snprintf(into->lines[into->count], sizeof into->lines[0], "%s",
                 message);
        into->levels[into->count] = level;
        into->count++;
    } else {
        into->overflowed = true;
    }
    pthread_mutex_unlock(&into->lock);
}

/* How many captured lines from line `first` on contain `text` (at
 * `level`, or any if OFF). */
static int count_lines(int first, const char *text, kiln_log_level level)
{
    if (seen.overflowed)
        fail_msg("more than %d log lines: the capture lost some",
                 CAPTURED_LINES);
    int found = 0;
    for (int i = first; i < seen.count; ++i)
        if (strstr(seen.lines[i], text) != NULL &&
            (level == KILN_LOG_OFF || seen.levels[i] == level))
            ++found;
    return found;
}

static void unknown_value_is_reported_once(void **state)
{
    (void)state;
    /* main() set KILN_LOG=chatty before any Kiln call, and read the level
     * (off: the value is not a level). */
    kiln_context *context = test_context(state);
    (void)context;
    kiln_log_level level;
    assert_int_equal(count_lines(0, "KILN_LOG=chatty is not a level",
                                 KILN_LOG_WARN),
                     1);
    TEST_OK(kiln_log_get_level(&level));
    assert_int_equal(count_lines(0, "KILN_LOG=chatty", KILN_LOG_OFF), 1);
}

static void builds_are_reported_at_info(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_log_set_level(KILN_LOG_INFO));
    char source[160];
    /* A source no earlier run compiled: the first build compiles. */
    snprintf(source, sizeof source,
             "kernel void k(global int *x) { x[0] = %llu; }\n",
             (unsigned long long)(test_random_u64() >> 2));
    int from = seen.count;
    kiln_build_options options = {.source_name = "log_probe.cl"};
    kiln_program *first = NULL, *second = NULL;
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &first));
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &second));
    assert_int_equal(count_lines(from, "built log_probe.cl", KILN_LOG_INFO),
                     2);
    assert_int_equal(count_lines(from, ": compiled", KILN_LOG_INFO), 1);
    assert_int_equal(count_lines(from, ": memory cache", KILN_LOG_INFO), 1);
    assert_int_equal(count_lines(from, " ms: ", KILN_LOG_INFO), 2);
    /* The compile is told when it starts, before its result; the memory
     * cache's hit is not a compile. */
    assert_int_equal(
        count_lines(from, "compiling log_probe.cl", KILN_LOG_INFO), 1);
    assert_true(strncmp(seen.lines[from], "compiling log_probe.cl", 22) == 0);
    /* Nothing below info. */
    assert_int_equal(count_lines(from, "", KILN_LOG_DEBUG), 0);
    /* debug adds the search and cache traces; off silences everything. */
    TEST_OK(kiln_log_set_level(KILN_LOG_DEBUG));
    snprintf(source, sizeof source,
             "kernel void k(global int *x) { x[1] = %llu; }\n",
             (unsigned long long)(test_random_u64() >> 2));
    kiln_program *third = NULL;
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &third));
    assert_int_equal(
        count_lines(from, "compiling log_probe.cl", KILN_LOG_INFO), 2);
    assert_true(count_lines(from, "", KILN_LOG_DEBUG) >= 1);
    TEST_OK(kiln_log_set_level(KILN_LOG_OFF));
    int before = seen.count;
    kiln_program *fourth = NULL;
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &fourth));
    assert_int_equal(seen.count, before);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_log_set_level((kiln_log_level)9));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_log_get_level(NULL));
    TEST_OK(kiln_program_release(first));
    TEST_OK(kiln_program_release(second));
    TEST_OK(kiln_program_release(third));
    TEST_OK(kiln_program_release(fourth));
}

/* A KILN_CACHE_DIR refused for safety turns the disk cache off where the
 * user asked for it: a warning, once per reason (issue 29, L1: it was a
 * line at debug only).  Each build still compiles and runs. */
static void refused_cache_directory_is_a_warning(void **state)
{
    kiln_context *context = test_context(state);
    char open_dir[4200];
    snprintf(open_dir, sizeof open_dir, "%s/cache-for-everyone-%s",
             test_scratch_dir(), test_backend(state));
    if (mkdir(open_dir, 0700) != 0 && errno != EEXIST)
        fail_msg("mkdir %s: %s", open_dir, strerror(errno));
    if (chmod(open_dir, 0777) != 0)
        fail_msg("chmod %s: %s", open_dir, strerror(errno));
    /* absolute, or it would be refused as relative */
    char absolute[PATH_MAX];
    if (realpath(open_dir, absolute) == NULL)
        fail_msg("realpath %s: %s", open_dir, strerror(errno));
    const char *previous = getenv("KILN_CACHE_DIR");
    char *saved = previous ? strdup(previous) : NULL;
    TEST_OK(kiln_log_set_level(KILN_LOG_WARN));
    int from = seen.count;
    const char *dirs[] = {absolute, "relative/kiln-cache"};
    const char *reasons[] = {"is writable by others", "is relative"};
    for (int d = 0; d < 2; ++d) {
        setenv("KILN_CACHE_DIR", dirs[d], 1);
        for (int build = 0; build < 2; ++build) {
            char source[256];
            int value = (int)(test_random_u64() % 1000000);
            snprintf(source, sizeof source,
                     "kernel void warned(global int *x) { x[0] = %d; }\n",
                     value);
            kiln_program *program = NULL;
            kiln_status status =
                kiln_program_build(context, source, NULL, &program);
            if (status != KILN_OK)
                fail_msg("build with KILN_CACHE_DIR=%s: %s", dirs[d],
                         kiln_last_error());
            kiln_kernel *kernel = test_kernel(program, "warned");
            kiln_buffer *buffer = test_buffer(context, sizeof(int32_t));
            kiln_launch_config config = test_config_1d(1, 1);
            kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
            TEST_OK(kiln_launch(kernel, &config, 1, args));
            int32_t back = 0;
            test_read(buffer, &back, sizeof back);
            assert_int_equal(back, value);
            kiln_buffer_release(buffer);
            kiln_kernel_release(kernel);
            kiln_program_release(program);
        }
        /* two builds, one line at warn naming the directory's fault */
        if (count_lines(from, reasons[d], KILN_LOG_WARN) != 1)
            fail_msg("KILN_CACHE_DIR=%s: %d warn lines that say '%s'",
                     dirs[d], count_lines(from, reasons[d], KILN_LOG_WARN),
                     reasons[d]);
        assert_int_equal(count_lines(from, "the disk cache is off",
                                     KILN_LOG_WARN),
                         d + 1);
    }
    if (saved != NULL)
        setenv("KILN_CACHE_DIR", saved, 1);
    else
        unsetenv("KILN_CACHE_DIR");
    free(saved);
    TEST_OK(kiln_log_set_level(KILN_LOG_OFF));
    rmdir(open_dir);
}

/* Builds a fresh source, `before` and `after` around a number no earlier
 * run used, with `options` and returns how many info lines name the build
 * `expected`. */
static int lines_naming(kiln_context *context, const char *before,
                        const char *after, const kiln_build_options *options,
                        const char *expected)
{
    char source[512];
    snprintf(source, sizeof source, "%s%llu%s", before,
             (unsigned long long)(test_random_u64() >> 2), after);
    int from = seen.count;
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_with(context, source, 0, options, &program));
    TEST_OK(kiln_program_release(program));
    char compiling[160], built[160];
    snprintf(compiling, sizeof compiling, "compiling %s (", expected);
    snprintf(built, sizeof built, "built %s on ", expected);
    return count_lines(from, compiling, KILN_LOG_INFO) +
           count_lines(from, built, KILN_LOG_INFO);
}

static void builds_are_named(void **state)
{
    kiln_context *context = test_context(state);
    TEST_OK(kiln_log_set_level(KILN_LOG_INFO));
    /* The options' name first (read when struct_size covers it). */
    kiln_build_options named = {.struct_size = sizeof named,
                                .source_name = "named.cl",
                                .name = "sum of squares, step 2"};
    assert_int_equal(lines_naming(context,
                                  "kernel void k(global long *x) { x[0] = ",
                                  "; }\n", &named, "sum of squares, step 2"),
                     2);
    /* A 1.0 struct (struct_size 0) has no name: the source file's. */
    kiln_build_options old = {.source_name = "old.cl", .name = "not read"};
    assert_int_equal(lines_naming(context,
                                  "kernel void k(global long *x) { x[1] = ",
                                  "; }\n", &old, "old.cl"),
                     2);
    /* Neither: the first kernel's name, past comments, attributes and
     * CUDA's qualifiers. */
    assert_int_equal(lines_naming(context,
                                  "/* kernel void not_this(void) */\n"
                                  "__kernel __attribute__((reqd_work_group_size"
                                  "(1, 1, 1))) void first_one(global long *x)"
                                  " { x[2] = ",
                                  "; }\nkernel void second(global int *y) "
                                  "{ }\n",
                                  NULL, "first_one"),
                     2);
    assert_int_equal(lines_naming(context,
                                  "extern \"C\" __global__ void "
                                  "__launch_bounds__(64) doublify(float *a) "
                                  "{ a[threadIdx.x] *= 2.0f + ",
                                  "; }\n", NULL, "doublify"),
                     2);
    TEST_OK(kiln_log_set_level(KILN_LOG_OFF));
}

int main(void)
{
    setenv("KILN_LOG", "chatty", 1);
    kiln_log_set_callback(capture, &seen);
    kiln_log_level level = KILN_LOG_DEBUG;
    if (kiln_log_get_level(&level) != KILN_OK || level != KILN_LOG_OFF) {
        fprintf(stderr, "KILN_LOG=chatty gave level %d, not off\n", (int)level);
        return 1;
    }
    static const kiln_test tests[] = {
        KILN_TEST(unknown_value_is_reported_once),
        KILN_TEST(builds_are_reported_at_info),
        KILN_TEST(refused_cache_directory_is_a_warning),
        KILN_TEST(builds_are_named),
    };
    return kiln_test_main("log", tests, sizeof tests / sizeof tests[0]);
}
