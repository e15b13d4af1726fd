/*
 * Logging: the levels KILN_LOG and kiln_log_set_level choose, the info line
 * of each build (time and origin: compiled, memory cache, disk cache), an
 * unknown KILN_LOG reported once, and lines going to the program's
 * callback instead of stderr.
 */
#include "config.h" /* _GNU_SOURCE: setenv under -std=c11 */

#include "harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* Nothing below info. */
    assert_int_equal(count_lines(from, "", KILN_LOG_DEBUG), 0);
    /* debug adds the trace of a compile; off silences everything. */
    TEST_OK(kiln_log_set_level(KILN_LOG_DEBUG));
    snprintf(source, sizeof source,
             "kernel void k(global int *x) { x[1] = %llu; }\n",
             (unsigned long long)(test_random_u64() >> 2));
    kiln_program *third = NULL;
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &third));
    assert_true(count_lines(from, "compiling log_probe.cl", KILN_LOG_DEBUG) >=
                1);
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
    };
    return kiln_test_main("log", tests, sizeof tests / sizeof tests[0]);
}
