/*
 * The pool on a device whose largest allocation is not a power of two
 * (NVIDIA's OpenCL reports a quarter of the memory): rounding a request up
 * to its size class must never ask the driver for more than that limit.
 * The backends are loaded through tests/plugins/limits_plugin.c, which
 * forwards to the real plugins and reports such a limit.
 */
#include "config.h" /* _GNU_SOURCE: setenv under -std=c11 */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_round_trip(kiln_buffer *buffer, size_t offset, size_t size)
{
    unsigned char *data = test_alloc(size), *back = test_alloc(size);
    test_random_bytes(data, size);
    TEST_OK(kiln_buffer_write(buffer, offset, data, size));
    TEST_OK(kiln_buffer_read(buffer, offset, back, size));
    if (memcmp(data, back, size) != 0)
        fail_msg("the buffer did not keep %zu bytes at %zu", size, offset);
    free(data);
    free(back);
}

static void largest_allocation_fits_its_size_class(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    /* The plugin's limit is 100 MiB + 12345 bytes. */
    assert_true(info.max_allocation % 4096 != 0);
    size_t largest = (size_t)info.max_allocation;
    kiln_pool_stats before, after;
    TEST_OK(kiln_pool_get_stats(context, &before));
    /* Exactly the limit, and sizes just below it whose class would end
     * past it. */
    const size_t sizes[] = {largest, largest - 1, largest - 4096,
                            largest - (1u << 20) + 1};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        kiln_buffer *buffer = NULL;
        TEST_OK(kiln_buffer_create(context, sizes[i], &buffer));
        TEST_OK(kiln_pool_get_stats(context, &after));
        uint64_t held = after.bytes_in_use - before.bytes_in_use;
        if (held < sizes[i] || held > info.max_allocation)
            fail_msg("a buffer of %zu bytes holds a block of %llu bytes; "
                     "the device's largest is %llu",
                     sizes[i], (unsigned long long)held,
                     (unsigned long long)info.max_allocation);
        check_round_trip(buffer, sizes[i] - 4096, 4096);
        TEST_OK(kiln_buffer_release(buffer));
    }
    /* The capped block is reused for the same request. */
    kiln_buffer *again = NULL;
    TEST_OK(kiln_pool_get_stats(context, &before));
    TEST_OK(kiln_buffer_create(context, largest, &again));
    TEST_OK(kiln_pool_get_stats(context, &after));
    assert_int_equal(after.reuses, before.reuses + 1);
    TEST_OK(kiln_buffer_release(again));
    /* One byte more is still refused by the core, naming the limit. */
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_buffer_create(context, largest + 1, &again));
    TEST_ERROR_MENTIONS("largest allocation");
}

int main(void)
{
    /* KILN_PLUGIN_PATH takes absolute directories only. */
    char *builddir = realpath(test_builddir(), NULL);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/plugins/limits/.libs",
             builddir ? builddir : ".");
    setenv("KILN_PLUGIN_PATH", dir, 1);
    snprintf(dir, sizeof dir, "%s/backends", builddir ? builddir : ".");
    setenv("LIMITS_PLUGIN_DIR", dir, 1);
    free(builddir);
    static const kiln_test tests[] = {
        KILN_TEST(largest_allocation_fits_its_size_class),
    };
    return kiln_test_main("pool_limit", tests, sizeof tests / sizeof tests[0]);
}
