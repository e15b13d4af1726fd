/*
 * The test harness: runs each test once per backend (opencl, cuda) through
 * cmocka, reporting TAP.  A backend that is not available makes its tests
 * SKIP with the reason, unless KILN_TEST_REQUIRE names it (CI sets
 * KILN_TEST_REQUIRE=opencl; the GPU machine KILN_TEST_REQUIRE=cuda), in
 * which case they fail.  KILN_BACKEND, when set, selects one backend and
 * the others skip.
 *
 * Random inputs come from a generator seeded by KILN_TEST_SEED or the
 * clock; the seed is printed so a failure can be replayed.
 */
#ifndef KILN_TEST_HARNESS_H
#define KILN_TEST_HARNESS_H

/* cmocka needs these first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>

#include "kiln.h"

typedef struct kiln_test {
    const char *name;
    void (*function)(void **state);
} kiln_test;

#define KILN_TEST(function) {#function, function}

/* Runs every test on every backend; returns main's exit status. */
int kiln_test_main(const char *suite, const kiln_test *tests, size_t count);

/* Tests that have nothing to do with backends run once, unprefixed. */
int kiln_test_main_plain(const char *suite, const kiln_test *tests,
                         size_t count);

/* The context of the backend under test; skips the test (or fails it, per
 * KILN_TEST_REQUIRE) when the backend is not available. */
kiln_context *test_context(void **state);
/* The backend under test, "opencl" or "cuda". */
const char *test_backend(void **state);
/* Whether the backend under test is OpenCL on NVIDIA's platform, whose
 * driver bugs some tests report instead of failing on. */
bool test_on_nvidia_opencl(void **state);

/* Fails the test with kiln_last_error() unless `call` returns KILN_OK. */
#define TEST_OK(call)                                                          \
    do {                                                                       \
        kiln_status test_status_ = (call);                                     \
        if (test_status_ != KILN_OK)                                           \
            fail_msg("%s -> %s: %s", #call, kiln_status_name(test_status_),    \
                     kiln_last_error());                                       \
    } while (0)

/* Asserts `call` fails with `expected` and leaves a message behind. */
#define TEST_FAILS(expected, call)                                             \
    do {                                                                       \
        kiln_status test_status_ = (call);                                     \
        if (test_status_ != (expected))                                        \
            fail_msg("%s -> %s, expected %s (%s)", #call,                      \
                     kiln_status_name(test_status_),                           \
                     kiln_status_name(expected), kiln_last_error());           \
        if (kiln_last_error()[0] == '\0')                                      \
            fail_msg("%s -> %s with no message", #call,                        \
                     kiln_status_name(test_status_));                          \
    } while (0)

/* Asserts the last error contains `text`. */
#define TEST_ERROR_MENTIONS(text)                                              \
    do {                                                                       \
        if (strstr(kiln_last_error(), (text)) == NULL)                         \
            fail_msg("the error does not mention '%s': %s", (text),            \
                     kiln_last_error());                                       \
    } while (0)

/* Builds OpenCL C source (failing the test with the log on error). */
kiln_program *test_build(kiln_context *context, const char *source,
                         const char *options);
/* The same for native CUDA C (the caller checks the backend first). */
kiln_program *test_build_cuda(kiln_context *context, const char *source,
                              const char *options);
/* CUDA C `source`, named "refused.cu", that the translation must refuse:
 * KILN_ERR_TRANSLATION naming `mentions` at `line` ("refused.cu:5:");
 * `which` numbers the case in the failure's message. */
void test_expect_refused(kiln_context *context, const char *source,
                         const char *mentions, const char *line, size_t which);
kiln_kernel *test_kernel(kiln_program *program, const char *name);
kiln_buffer *test_buffer(kiln_context *context, size_t size);
kiln_buffer *test_buffer_from(kiln_context *context, const void *host,
                              size_t size);

/* A 1-D launch config of `n` threads rounded up to blocks of `block`. */
kiln_launch_config test_config_1d(size_t n, size_t block);
/* The blocks of `block` threads that cover `n`. */
size_t test_blocks(size_t n, size_t block);

/* Launches `kernel` on a grid of `grid_dims` blocks of `block_dims` with
 * `local_bytes` of dynamic local memory and the kiln_arg values that
 * follow, failing the test with kiln_last_error() when it does not. */
#define TEST_LAUNCH(kernel, grid_dims, block_dims, local_bytes, ...)           \
    do {                                                                       \
        kiln_launch_config test_config_ = {.grid = grid_dims,                  \
                                           .block = block_dims,                \
                                           .local_memory = (local_bytes)};     \
        kiln_arg test_args_[] = {__VA_ARGS__};                                 \
        TEST_OK(kiln_launch(kernel, &test_config_,                             \
                            sizeof test_args_ / sizeof test_args_[0],          \
                            test_args_));                                      \
    } while (0)

/* Reads the first `size` bytes of `buffer` (failing the test on error). */
void test_read(kiln_buffer *buffer, void *host, size_t size);

/* ---- objects that live until the test ends ---------------------------------- */

/* As test_build etc., but the harness releases what these return (and
 * frees test_temp_alloc's memory) when the test ends, passed, failed or
 * skipped, before the test's context: a test that takes its objects this
 * way has no release calls to forget, and a failing one leaks nothing. */
kiln_program *test_temp_program_file(kiln_context *context,
                                     const char *path_in_srcdir,
                                     kiln_language language);
kiln_kernel *test_temp_kernel(kiln_program *program, const char *name);
kiln_buffer *test_temp_buffer(kiln_context *context, size_t size);
kiln_buffer *test_temp_buffer_from(kiln_context *context, const void *host,
                                   size_t size);
void *test_temp_alloc(size_t size);

/* Random inputs: never all zeros. */
uint64_t test_random_u64(void);
float test_random_float(float low, float high);
void test_random_floats(float *out, size_t count, float low, float high);
void test_random_doubles(double *out, size_t count, double low, double high);
void test_random_ints(int32_t *out, size_t count, int32_t low, int32_t high);
void test_random_bytes(void *out, size_t count);

/* Compares arrays: |a-b| <= tolerance * max(1, |b|) per element; reports
 * the first mismatch. */
void test_assert_floats_near(const float *actual, const float *expected,
                             size_t count, double tolerance);
void test_assert_doubles_near(const double *actual, const double *expected,
                              size_t count, double tolerance);

/* Scratch directory under the build tree for this test program, removed
 * with all it holds when the program exits. */
const char *test_scratch_dir(void);
/* KILN_TEST_SRCDIR / KILN_TEST_BUILDDIR, or "." */
const char *test_srcdir(void);
const char *test_builddir(void);

/* malloc that fails the test instead of returning NULL. */
void *test_alloc(size_t size);

#endif
