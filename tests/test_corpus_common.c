/*
 * Shared host code of the conformance corpus (see test_corpus_common.h).
 */
#include "test_corpus_common.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kiln_program *corpus_build(kiln_context *context, const char *name,
                           const kiln_build_options *options)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/kernels/corpus/%s.cl",
             test_srcdir(), name);
    kiln_program *program = NULL;
    kiln_status status =
        kiln_program_build_file(context, path, options, &program);
    if (status != KILN_OK)
        fail_msg("building %s: %s: %s", path, kiln_status_name(status),
                 kiln_last_error());
    return program;
}

kiln_program *corpus_build_with(kiln_context *context, const char *name,
                                const char *options)
{
    kiln_build_options build_options = {.options = options};
    return corpus_build(context, name, &build_options);
}

kiln_device_info corpus_device(kiln_context *context)
{
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    return info;
}

size_t corpus_blocks(size_t n, size_t block)
{
    return (n + block - 1) / block;
}

kiln_buffer *corpus_poisoned_buffer(kiln_context *context, size_t size)
{
    kiln_buffer *buffer = test_buffer(context, size);
    const uint8_t poison = 0xA5;
    TEST_OK(kiln_buffer_fill(buffer, 0, size, &poison, 1));
    return buffer;
}

void corpus_read(kiln_buffer *buffer, void *host, size_t size)
{
    TEST_OK(kiln_buffer_read(buffer, 0, host, size));
}

void corpus_release_buffers(kiln_buffer **buffers, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (buffers[i] != NULL)
            TEST_OK(kiln_buffer_release(buffers[i]));
}

/* ---- exact comparisons ------------------------------------------------------ */

#define DEFINE_EXPECT(suffix, type, format, cast)                              \
    void corpus_expect_##suffix(const char *what, const type *actual,          \
                                const type *expected, size_t count)            \
    {                                                                          \
        for (size_t i = 0; i < count; ++i)                                     \
            if (actual[i] != expected[i])                                      \
                fail_msg("%s[%zu]: got " format ", expected " format, what,    \
                         i, (cast)actual[i], (cast)expected[i]);               \
    }

DEFINE_EXPECT(i32, int32_t, "%" PRId32, int32_t)
DEFINE_EXPECT(u32, uint32_t, "%" PRIu32 , uint32_t)
DEFINE_EXPECT(i64, int64_t, "%" PRId64, int64_t)
DEFINE_EXPECT(u64, uint64_t, "%" PRIu64, uint64_t)
DEFINE_EXPECT(u8, uint8_t, "%u", unsigned)
DEFINE_EXPECT(u16, uint16_t, "%u", unsigned)

static uint32_t float_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

void corpus_expect_f32_bits(const char *what, const float *actual,
                            const float *expected, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        bool both_nan = isnan(actual[i]) && isnan(expected[i]);
        if (!both_nan && float_bits(actual[i]) != float_bits(expected[i]))
            fail_msg("%s[%zu]: got %.9g (0x%08" PRIx32 "), expected %.9g "
                     "(0x%08" PRIx32 ")",
                     what, i, (double)actual[i], float_bits(actual[i]),
                     (double)expected[i], float_bits(expected[i]));
    }
}

/* ---- floating-point comparisons -------------------------------------------- */

double corpus_float_ulp(double value)
{
    double magnitude = fabs(value);
    if (magnitude < 0x1p-126)
        return 0x1p-149;
    if (magnitude > 0x1.fffffep127)
        magnitude = 0x1.fffffep127;
    int exponent;
    frexp(magnitude, &exponent); /* magnitude = m * 2^exponent, m in [0.5,1) */
    return ldexp(1.0, exponent - 24);
}

double corpus_ulp_error(float actual, double expected)
{
    return fabs((double)actual - expected) / corpus_float_ulp(expected);
}

/* NaN and infinity must match the reference exactly; true when they did
 * (and there is nothing more to compare). */
static bool special_values_match(const char *what, size_t index, float actual,
                                 double expected)
{
    if (isnan(expected) || isinf(expected) || isnan(actual) ||
        isinf(actual)) {
        bool same = (isnan(expected) && isnan(actual)) ||
                    (isinf(expected) && isinf(actual) &&
                     (expected > 0) == (actual > 0));
        if (!same)
            fail_msg("%s[%zu]: got %.9g, expected %.17g", what, index,
                     (double)actual, expected);
        return true;
    }
    return false;
}

void corpus_expect_f32_ulps(const char *what, const float *actual,
                            const double *expected, size_t count, double ulps)
{
    for (size_t i = 0; i < count; ++i) {
        if (special_values_match(what, i, actual[i], expected[i]))
            continue;
        double error = corpus_ulp_error(actual[i], expected[i]);
        if (!(error <= ulps))
            fail_msg("%s[%zu]: got %.9g, expected %.17g: %.2f ulp, "
                     "allowed %.2f",
                     what, i, (double)actual[i], expected[i], error, ulps);
    }
}

void corpus_expect_f32_near(const char *what, const float *actual,
                            const double *expected, size_t count,
                            double absolute, double relative)
{
    for (size_t i = 0; i < count; ++i) {
        if (special_values_match(what, i, actual[i], expected[i]))
            continue;
        corpus_expect_f32_bound(what, i, actual[i], expected[i],
                                absolute + relative * fabs(expected[i]));
    }
}

void corpus_expect_f32_bound(const char *what, size_t index, float actual,
                             double expected, double bound)
{
    double error = fabs((double)actual - expected);
    if (!(error <= bound))
        fail_msg("%s[%zu]: got %.9g, expected %.17g: error %.3g, allowed "
                 "%.3g",
                 what, index, (double)actual, expected, error, bound);
}

/* ---- permutations ------------------------------------------------------------- */

void corpus_expect_permutation(const char *what, const int64_t *values,
                               size_t count, int64_t first)
{
    uint8_t *seen = test_alloc(count);
    memset(seen, 0, count);
    for (size_t i = 0; i < count; ++i) {
        int64_t offset = values[i] - first;
        if (offset < 0 || (uint64_t)offset >= count)
            fail_msg("%s[%zu] = %" PRId64 " is outside %" PRId64 "..%" PRId64,
                     what, i, values[i], first, first + (int64_t)count - 1);
        if (seen[offset])
            fail_msg("%s[%zu] = %" PRId64 " was returned twice", what, i,
                     values[i]);
        seen[offset] = 1;
    }
    free(seen);
}

/* ---- random data ----------------------------------------------------------------- */

void corpus_random_u32(uint32_t *out, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        out[i] = (uint32_t)(test_random_u64() >> 32);
}

void corpus_random_u64(uint64_t *out, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        out[i] = test_random_u64();
}

void corpus_random_i32(int32_t *out, size_t count, int32_t low, int32_t high)
{
    test_random_ints(out, count, low, high);
}
