/*
 * Shared host code of the conformance corpus (tests/test_corpus_*.c): each
 * kernel lives in tests/kernels/corpus/NAME.cl so that it stays readable on
 * its own, and is built from the source tree with kiln_program_build_file.  The
 * helpers fail the running test (cmocka) with a message naming what was
 * compared, the element and both values.
 */
#ifndef KILN_TEST_CORPUS_COMMON_H
#define KILN_TEST_CORPUS_COMMON_H

#include "harness.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Builds tests/kernels/corpus/<name>.cl (under KILN_TEST_SRCDIR) with
 * `options` (may be NULL); fails the test with the build log on error. */
kiln_program *corpus_build(kiln_context *context, const char *name,
                           const kiln_build_options *options);

/* The same, with a plain option string such as "-DTILE=16". */
kiln_program *corpus_build_with(kiln_context *context, const char *name,
                                const char *options);

/* The device under test. */
kiln_device_info corpus_device(kiln_context *context);

/* Launches `kernel` on grid x block with the arguments listed after them,
 * failing the test on any error. */
#define CORPUS_LAUNCH(kernel, grid_dims, block_dims, ...)                      \
    do {                                                                       \
        kiln_launch_config corpus_config_ = {.grid = grid_dims,                \
                                             .block = block_dims};             \
        kiln_arg corpus_args_[] = {__VA_ARGS__};                               \
        TEST_OK(kiln_launch(kernel, &corpus_config_,                           \
                            sizeof corpus_args_ / sizeof corpus_args_[0],      \
                            corpus_args_));                                    \
    } while (0)

/* ceil(n / block): blocks that cover n items. */
size_t corpus_blocks(size_t n, size_t block);

/* A device buffer of `size` bytes filled with the byte pattern 0xA5, so
 * that unwritten output is recognisable and never accidentally right. */
kiln_buffer *corpus_poisoned_buffer(kiln_context *context, size_t size);

/* Reads a whole buffer back (synchronising with the kernels before it). */
void corpus_read(kiln_buffer *buffer, void *host, size_t size);

/* Releases every non-NULL buffer of the list. */
void corpus_release_buffers(kiln_buffer **buffers, size_t count);

/* Exact comparisons. */
void corpus_expect_i32(const char *what, const int32_t *actual,
                       const int32_t *expected, size_t count);
void corpus_expect_u32(const char *what, const uint32_t *actual,
                       const uint32_t *expected, size_t count);
void corpus_expect_i64(const char *what, const int64_t *actual,
                       const int64_t *expected, size_t count);
void corpus_expect_u64(const char *what, const uint64_t *actual,
                       const uint64_t *expected, size_t count);
void corpus_expect_u8(const char *what, const uint8_t *actual,
                      const uint8_t *expected, size_t count);
void corpus_expect_u16(const char *what, const uint16_t *actual,
                       const uint16_t *expected, size_t count);
/* Bit-exact floats (NaN matches NaN, -0 does not match +0). */
void corpus_expect_f32_bits(const char *what, const float *actual,
                            const float *expected, size_t count);

/* The size of one unit in the last place of a float near `value` (the
 * spacing of floats at that magnitude; subnormal spacing near zero). */
double corpus_float_ulp(double value);
/* |actual - expected| in units of the float ulp at `expected`. */
double corpus_ulp_error(float actual, double expected);

/* Float results against a double reference: each within `ulps` float ulps
 * of the reference (NaN and infinities must match exactly). */
void corpus_expect_f32_ulps(const char *what, const float *actual,
                            const double *expected, size_t count, double ulps);
/* Float results against a double reference within an absolute bound
 * `absolute` plus `relative` * |reference|. */
void corpus_expect_f32_near(const char *what, const float *actual,
                            const double *expected, size_t count,
                            double absolute, double relative);
/* One value within an explicit error bound. */
void corpus_expect_f32_bound(const char *what, size_t index, float actual,
                             double expected, double bound);

/* `values` (count entries) are exactly first, first+1, ... first+count-1 in
 * some order. */
void corpus_expect_permutation(const char *what, const int64_t *values,
                               size_t count, int64_t first);

/* Random data. */
void corpus_random_u32(uint32_t *out, size_t count);
void corpus_random_u64(uint64_t *out, size_t count);
void corpus_random_i32(int32_t *out, size_t count, int32_t low, int32_t high);

/* Heap arrays that fail the test instead of returning NULL. */
#define CORPUS_ARRAY(type, count) ((type *)test_alloc((count) * sizeof(type)))

#endif
