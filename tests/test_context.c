/*
 * Contexts and devices: creation and reference counting, the backend's
 * name, the device description (every field sane and equal to what
 * enumeration says), synchronisation, native handles and their sizes, and
 * device enumeration including indices past the end.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The native device handle: CUdevice is an int, cl_device_id a pointer. */
static size_t device_handle_size(void **state)
{
    return strcmp(test_backend(state), "cuda") == 0 ? sizeof(int)
                                                    : sizeof(void *);
}

static void context_reports_its_backend(void **state)
{
    kiln_context *context = test_context(state);
    const char *name = NULL;
    TEST_OK(kiln_context_get_backend(context, &name));
    assert_non_null(name);
    assert_string_equal(name, test_backend(state));
    assert_string_equal(kiln_last_error(), "");
}

static void retained_context_survives_one_release(void **state)
{
    (void)test_context(state); /* skips when the backend is unavailable */
    kiln_context *context = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    TEST_OK(kiln_context_retain(context));
    TEST_OK(kiln_context_release(context));

    /* One reference is left: the context must still work, end to end. */
    float data[64], back[64];
    test_random_floats(data, 64, -5, 5);
    kiln_buffer *buffer = test_buffer_from(context, data, sizeof data);
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    test_assert_floats_near(back, data, 64, 0);
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_context_synchronize(context));
    TEST_OK(kiln_context_release(context));
}

static void device_info_is_sane(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info info;
    memset(&info, 0x5a, sizeof info);
    TEST_OK(kiln_context_get_device_info(context, &info));
    print_message("# %s device %d: %s (%s, %s, %s)\n", info.backend,
                  info.index, info.name, info.vendor, info.platform,
                  info.language_version);

    assert_string_equal(info.backend, test_backend(state));
    assert_true(info.index >= 0);
    assert_true(info.type >= KILN_DEVICE_GPU && info.type <= KILN_DEVICE_OTHER);
    /* Strings are terminated within their arrays and not empty. */
    assert_true(memchr(info.name, '\0', sizeof info.name) != NULL);
    assert_true(memchr(info.vendor, '\0', sizeof info.vendor) != NULL);
    assert_true(memchr(info.driver_version, '\0', sizeof info.driver_version));
    assert_true(memchr(info.platform, '\0', sizeof info.platform) != NULL);
    assert_true(memchr(info.language_version, '\0',
                       sizeof info.language_version) != NULL);
    assert_true(strlen(info.name) > 0);
    assert_true(strlen(info.vendor) > 0);
    assert_true(strlen(info.driver_version) > 0);
    assert_true(strlen(info.platform) > 0);
    assert_true(strlen(info.language_version) > 0);
    /* OpenCL names its extensions (every OpenCL 1.2 device has at least
     * cl_khr_byte_addressable_store or a cl_khr_ atomics one); CUDA has
     * none. */
    assert_true(memchr(info.extensions, '\0', sizeof info.extensions) != NULL);
    if (strcmp(info.backend, "opencl") == 0) {
        if (strstr(info.extensions, "cl_khr_") == NULL)
            fail_msg("OpenCL device '%s' lists no cl_khr_ extension: '%s'",
                     info.name, info.extensions);
    } else {
        assert_string_equal(info.extensions, "");
    }

    assert_true(info.global_memory > 0);
    assert_true(info.local_memory > 0);
    assert_true(info.constant_memory > 0);
    assert_true(info.max_allocation > 0);
    assert_true(info.max_allocation <= info.global_memory);
    assert_true(info.compute_units >= 1);
    assert_true(info.clock_mhz >= 0);
    assert_true(info.max_threads_per_block >= 1);
    for (int i = 0; i < 3; ++i) {
        assert_true(info.max_block[i] >= 1);
        assert_true(info.max_block[i] <= info.max_threads_per_block);
        assert_true(info.max_grid[i] >= 1);
    }
    assert_true(info.warp_size >= 1);
    assert_true(info.supports_double == 0 || info.supports_double == 1);
    assert_true(info.unified_memory == 0 || info.unified_memory == 1);

    if (strcmp(test_backend(state), "cuda") == 0) {
        assert_true(info.compute_capability_major >= 3);
        assert_true(info.compute_capability_minor >= 0);
        assert_string_equal(info.platform, "CUDA");
        assert_true(info.supports_double);
        assert_int_equal(info.type, KILN_DEVICE_GPU);
    } else {
        assert_int_equal(info.compute_capability_major, 0);
        assert_int_equal(info.compute_capability_minor, 0);
        assert_non_null(strstr(info.language_version, "OpenCL"));
    }
}

static void context_info_matches_enumeration(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info from_context, enumerated;
    TEST_OK(kiln_context_get_device_info(context, &from_context));
    TEST_OK(kiln_device_get_info(test_backend(state), from_context.index,
                                 &enumerated));
    assert_string_equal(enumerated.backend, from_context.backend);
    assert_int_equal(enumerated.index, from_context.index);
    assert_string_equal(enumerated.name, from_context.name);
    assert_string_equal(enumerated.vendor, from_context.vendor);
    assert_string_equal(enumerated.driver_version, from_context.driver_version);
    assert_true(enumerated.global_memory == from_context.global_memory);
    assert_true(enumerated.local_memory == from_context.local_memory);
    assert_true(enumerated.max_allocation == from_context.max_allocation);
    assert_int_equal(enumerated.compute_units, from_context.compute_units);
    assert_int_equal(enumerated.max_threads_per_block,
                     from_context.max_threads_per_block);
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(enumerated.max_block[i], from_context.max_block[i]);
        assert_int_equal(enumerated.max_grid[i], from_context.max_grid[i]);
    }
}

static void device_enumeration_stops_at_the_end(void **state)
{
    (void)test_context(state);
    const char *backend = test_backend(state);
    int count = -1;
    TEST_OK(kiln_device_get_count(backend, &count));
    assert_true(count >= 1);
    for (int i = 0; i < count; ++i) {
        kiln_device_info info;
        TEST_OK(kiln_device_get_info(backend, i, &info));
        assert_int_equal(info.index, i);
        assert_string_equal(info.backend, backend);
        assert_true(strlen(info.name) > 0);
    }
    kiln_device_info info;
    memset(&info, 0x77, sizeof info);
    kiln_device_info untouched = info;
    TEST_FAILS(KILN_ERR_NO_DEVICE, kiln_device_get_info(backend, count, &info));
    char index_text[32];
    snprintf(index_text, sizeof index_text, "%d", count);
    TEST_ERROR_MENTIONS(index_text);
    TEST_ERROR_MENTIONS(backend);
    /* No out-parameter is written on failure. */
    assert_memory_equal(&info, &untouched, sizeof info);
    TEST_FAILS(KILN_ERR_NO_DEVICE, kiln_device_get_info(backend, -1, &info));
    TEST_FAILS(KILN_ERR_NO_DEVICE,
               kiln_device_get_info(backend, count + 1000, &info));

    kiln_context *context = (kiln_context *)&untouched; /* must stay as is */
    TEST_FAILS(KILN_ERR_NO_DEVICE,
               kiln_context_create(backend, count, &context));
    TEST_ERROR_MENTIONS(backend);
    assert_ptr_equal(context, (kiln_context *)&untouched);
}

static void unknown_backend_is_named_in_the_error(void **state)
{
    (void)test_context(state);
    int count = 0;
    TEST_FAILS(KILN_ERR_BACKEND_UNKNOWN, kiln_device_get_count("glide", &count));
    TEST_ERROR_MENTIONS("glide");
    kiln_device_info info;
    TEST_FAILS(KILN_ERR_BACKEND_UNKNOWN,
               kiln_device_get_info("glide", 0, &info));
    TEST_ERROR_MENTIONS("glide");
    kiln_context *context = NULL;
    TEST_FAILS(KILN_ERR_BACKEND_UNKNOWN,
               kiln_context_create("glide", -1, &context));
    assert_null(context);
}

static void backend_description_of_a_usable_backend(void **state)
{
    (void)test_context(state);
    kiln_backend_info info;
    TEST_OK(kiln_backend_find(test_backend(state), &info));
    assert_string_equal(info.name, test_backend(state));
    assert_int_equal(info.status, KILN_OK);
    assert_string_equal(info.reason, "");
    assert_true(strlen(info.path) > 0);
    assert_true(strlen(info.version) > 0);
    int count = 0;
    TEST_OK(kiln_device_get_count(test_backend(state), &count));
    assert_int_equal(info.device_count, count);

    /* The default backend is one Kiln knows and can use. */
    const char *chosen = NULL;
    TEST_OK(kiln_backend_get_default(&chosen));
    assert_non_null(chosen);
    kiln_backend_info default_info;
    TEST_OK(kiln_backend_find(chosen, &default_info));
    assert_int_equal(default_info.status, KILN_OK);
    int default_count = -1;
    TEST_OK(kiln_device_get_count(NULL, &default_count));
    assert_int_equal(default_count, default_info.device_count);
}

static void two_contexts_on_one_device_are_independent(void **state)
{
    kiln_context *first = test_context(state);
    kiln_context *second = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &second));
    assert_ptr_not_equal(first, second);

    int32_t a[256], b[256], back[256];
    test_random_ints(a, 256, -1000000, 1000000);
    test_random_ints(b, 256, -1000000, 1000000);
    kiln_buffer *in_first = test_buffer_from(first, a, sizeof a);
    kiln_buffer *in_second = test_buffer_from(second, b, sizeof b);
    kiln_context *owner = NULL;
    TEST_OK(kiln_buffer_get_context(in_second, &owner));
    assert_ptr_equal(owner, second);

    /* Releasing the second context (its buffer keeps it alive) does not
     * disturb the first. */
    TEST_OK(kiln_context_release(second));
    TEST_OK(kiln_buffer_read(in_second, 0, back, sizeof back));
    assert_memory_equal(back, b, sizeof b);
    TEST_OK(kiln_buffer_release(in_second));
    TEST_OK(kiln_buffer_read(in_first, 0, back, sizeof back));
    assert_memory_equal(back, a, sizeof a);
    TEST_OK(kiln_buffer_release(in_first));
}

static void synchronize_waits_for_queued_work(void **state)
{
    kiln_context *context = test_context(state);
    enum { COUNT = 4096 };
    float *data = test_alloc(COUNT * sizeof *data);
    float *back = test_alloc(COUNT * sizeof *back);
    test_random_floats(data, COUNT, -100, 100);
    kiln_buffer *buffer = test_buffer(context, COUNT * sizeof *data);
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    TEST_OK(kiln_buffer_write_async(buffer, 0, data, COUNT * sizeof *data,
                                    stream));
    TEST_OK(kiln_buffer_read_async(buffer, 0, back, COUNT * sizeof *back,
                                   stream));
    /* The context's synchronize covers every stream, not only the default
     * one. */
    TEST_OK(kiln_context_synchronize(context));
    test_assert_floats_near(back, data, COUNT, 0);
    TEST_OK(kiln_stream_release(stream));
    TEST_OK(kiln_buffer_release(buffer));
    free(data);
    free(back);
}

static void native_context_and_device_handles(void **state)
{
    kiln_context *context = test_context(state);
    void *handle = NULL;
    TEST_OK(kiln_context_get_native(context, &handle, sizeof handle));
    assert_non_null(handle);

    /* A second call gives the same handle: it is owned by Kiln. */
    void *again = NULL;
    TEST_OK(kiln_context_get_native(context, &again, sizeof again));
    assert_ptr_equal(handle, again);

    unsigned char device[sizeof(void *)];
    memset(device, 0, sizeof device);
    size_t device_size = device_handle_size(state);
    TEST_OK(kiln_context_get_native_device(context, device, device_size));
    if (strcmp(test_backend(state), "opencl") == 0) {
        void *id = NULL;
        memcpy(&id, device, sizeof id);
        assert_non_null(id);
    }

    /* Any other size is refused and writes nothing. */
    unsigned char wide[2 * sizeof(void *)];
    memset(wide, 0xab, sizeof wide);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_context_get_native(context, wide, sizeof(void *) + 1));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_context_get_native(context, wide, 4));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_context_get_native(context, wide, 0));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_context_get_native_device(context, wide, device_size + 1));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_context_get_native_device(context, wide, 2));
    for (size_t i = 0; i < sizeof wide; ++i)
        assert_int_equal(wide[i], 0xab);
}

static void native_stream_handles(void **state)
{
    kiln_context *context = test_context(state);
    kiln_stream *first = NULL, *second = NULL;
    TEST_OK(kiln_stream_create(context, &first));
    TEST_OK(kiln_stream_create(context, &second));
    void *a = NULL, *b = NULL, *from_context = NULL;
    TEST_OK(kiln_stream_get_native(first, &a, sizeof a));
    TEST_OK(kiln_stream_get_native(second, &b, sizeof b));
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    TEST_OK(kiln_stream_get_native(second, &from_context,
                                   sizeof from_context));
    assert_ptr_equal(from_context, b);

    /* The default stream: a queue on OpenCL, CUDA's legacy stream 0. */
    kiln_stream *default_handle = NULL;
    TEST_OK(kiln_context_get_default_stream(context, &default_handle));
    kiln_context *owner = NULL;
    TEST_OK(kiln_stream_get_context(default_handle, &owner));
    assert_ptr_equal(owner, context);
    void *default_stream = (void *)&a;
    TEST_OK(kiln_stream_get_native(default_handle, &default_stream,
                                   sizeof default_stream));
    if (strcmp(test_backend(state), "opencl") == 0) {
        assert_non_null(default_stream);
        assert_ptr_not_equal(default_stream, a);
    }
    unsigned char small[4];
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_stream_get_native(first, small, sizeof small));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_stream_get_native(default_handle, small, sizeof small));
    TEST_OK(kiln_stream_release(first));
    TEST_OK(kiln_stream_release(second));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(context_reports_its_backend),
        KILN_TEST(retained_context_survives_one_release),
        KILN_TEST(device_info_is_sane),
        KILN_TEST(context_info_matches_enumeration),
        KILN_TEST(device_enumeration_stops_at_the_end),
        KILN_TEST(unknown_backend_is_named_in_the_error),
        KILN_TEST(backend_description_of_a_usable_backend),
        KILN_TEST(two_contexts_on_one_device_are_independent),
        KILN_TEST(synchronize_waits_for_queued_work),
        KILN_TEST(native_context_and_device_handles),
        KILN_TEST(native_stream_handles),
    };
    return kiln_test_main("context", tests, sizeof tests / sizeof *tests);
}
