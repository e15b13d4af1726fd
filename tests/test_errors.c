/*
 * The bad-input catalogue: every public function of kiln.h with NULL
 * handles and NULL out-pointers (each must fail with its status and a
 * message, write nothing and not crash), handles used after their last
 * release and handles of the wrong type, the name of every status, and the
 * last error being "" after every kind of successful call.
 */
#include "config.h" /* _GNU_SOURCE: POSIX functions under -std=c11 */

#include "harness.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The message names the public function that was called (the text of
 * `call` up to its parenthesis), never an internal helper; a launch's
 * argument errors name the kernel instead. */
static void assert_error_names_function(const char *call)
{
    char name[64];
    size_t length = strcspn(call, "(");
    if (length >= sizeof name)
        length = sizeof name - 1;
    memcpy(name, call, length);
    name[length] = '\0';
    /* The whole name: "kiln_buffer_create" is not "kiln_buffer_create_from". */
    const char *found = strstr(kiln_last_error(), name);
    bool named = found != NULL && !isalnum((unsigned char)found[length]) &&
                 found[length] != '_';
    if (strncmp(name, "kiln_launch", 11) == 0 &&
        strncmp(kiln_last_error(), "launch of '", 11) == 0)
        named = true;
    if (!named)
        fail_msg("%s: the error does not name %s: %s", call, name,
                 kiln_last_error());
}

#define EXPECT_NULL_HANDLE(call)                                               \
    do {                                                                       \
        TEST_FAILS(KILN_ERR_INVALID_HANDLE, call);                             \
        TEST_ERROR_MENTIONS("NULL");                                           \
        assert_error_names_function(#call);                                    \
    } while (0)

#define EXPECT_NULL_ARGUMENT(call)                                             \
    do {                                                                       \
        TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, call);                           \
        TEST_ERROR_MENTIONS("NULL");                                           \
        assert_error_names_function(#call);                                    \
    } while (0)

/* A handle whose last reference is gone: refused while Kiln still keeps
 * its memory (the graveyard), with a message that says so. */
#define EXPECT_RELEASED(call)                                                  \
    do {                                                                       \
        TEST_FAILS(KILN_ERR_INVALID_HANDLE, call);                             \
        TEST_ERROR_MENTIONS("released");                                       \
        assert_error_names_function(#call);                                    \
    } while (0)

static const char tiny_source[] =
    "__kernel void tiny(__global int *a, int v) { a[get_global_id(0)] = v; }\n";

/* One live object of every kind, to pair with NULL out-pointers. */
typedef struct objects {
    kiln_context *context;
    kiln_buffer *buffer;
    kiln_stream *stream;
    kiln_event *event;
    kiln_program *program;
    kiln_kernel *kernel;
    kiln_args *args;
} objects;

static objects objects_create(void **state)
{
    objects o;
    o.context = test_context(state);
    o.buffer = test_buffer(o.context, 256);
    TEST_OK(kiln_stream_create(o.context, &o.stream));
    TEST_OK(kiln_event_create(o.context, &o.event));
    TEST_OK(kiln_event_record(o.event, o.stream));
    o.program = test_build(o.context, tiny_source, NULL);
    o.kernel = test_kernel(o.program, "tiny");
    TEST_OK(kiln_args_create(&o.args));
    return o;
}

static void objects_release(objects *o)
{
    TEST_OK(kiln_args_release(o->args));
    TEST_OK(kiln_kernel_release(o->kernel));
    TEST_OK(kiln_program_release(o->program));
    TEST_OK(kiln_event_release(o->event));
    TEST_OK(kiln_stream_release(o->stream));
    TEST_OK(kiln_buffer_release(o->buffer));
}

/* ---- statuses ----------------------------------------------------------------------- */

static void every_status_has_its_name(void **state)
{
    (void)state;
    static const struct {
        kiln_status status;
        const char *name;
    } names[] = {
        {KILN_OK, "KILN_OK"},
        {KILN_ERR_INVALID_ARGUMENT, "KILN_ERR_INVALID_ARGUMENT"},
        {KILN_ERR_INVALID_HANDLE, "KILN_ERR_INVALID_HANDLE"},
        {KILN_ERR_INVALID_SIZE, "KILN_ERR_INVALID_SIZE"},
        {KILN_ERR_OUT_OF_BOUNDS, "KILN_ERR_OUT_OF_BOUNDS"},
        {KILN_ERR_OUT_OF_HOST_MEMORY, "KILN_ERR_OUT_OF_HOST_MEMORY"},
        {KILN_ERR_OUT_OF_DEVICE_MEMORY, "KILN_ERR_OUT_OF_DEVICE_MEMORY"},
        {KILN_ERR_BACKEND_UNKNOWN, "KILN_ERR_BACKEND_UNKNOWN"},
        {KILN_ERR_BACKEND_NOT_FOUND, "KILN_ERR_BACKEND_NOT_FOUND"},
        {KILN_ERR_BACKEND_LOAD, "KILN_ERR_BACKEND_LOAD"},
        {KILN_ERR_BACKEND_ABI, "KILN_ERR_BACKEND_ABI"},
        {KILN_ERR_BACKEND_UNAVAILABLE, "KILN_ERR_BACKEND_UNAVAILABLE"},
        {KILN_ERR_NO_DEVICE, "KILN_ERR_NO_DEVICE"},
        {KILN_ERR_CONTEXT_MISMATCH, "KILN_ERR_CONTEXT_MISMATCH"},
        {KILN_ERR_BUILD, "KILN_ERR_BUILD"},
        {KILN_ERR_TRANSLATION, "KILN_ERR_TRANSLATION"},
        {KILN_ERR_KERNEL_NOT_FOUND, "KILN_ERR_KERNEL_NOT_FOUND"},
        {KILN_ERR_ARGUMENT_COUNT, "KILN_ERR_ARGUMENT_COUNT"},
        {KILN_ERR_ARGUMENT_KIND, "KILN_ERR_ARGUMENT_KIND"},
        {KILN_ERR_ARGUMENT_SIZE, "KILN_ERR_ARGUMENT_SIZE"},
        {KILN_ERR_INVALID_LAUNCH, "KILN_ERR_INVALID_LAUNCH"},
        {KILN_ERR_KERNEL_FAULT, "KILN_ERR_KERNEL_FAULT"},
        {KILN_ERR_NOT_READY, "KILN_ERR_NOT_READY"},
        {KILN_ERR_UNSUPPORTED, "KILN_ERR_UNSUPPORTED"},
        {KILN_ERR_IO, "KILN_ERR_IO"},
        {KILN_ERR_BACKEND, "KILN_ERR_BACKEND"},
        {KILN_ERR_SHAPE, "KILN_ERR_SHAPE"},
        {KILN_ERR_DTYPE, "KILN_ERR_DTYPE"},
        {KILN_ERR_ARGUMENT_TYPE, "KILN_ERR_ARGUMENT_TYPE"},
    };
    const size_t count = sizeof names / sizeof *names;
    /* The enumerators are dense from 0: a status added to kiln.h without a
     * name here makes this count wrong. */
    assert_int_equal(count, (size_t)KILN_ERR_ARGUMENT_TYPE + 1);
    for (size_t i = 0; i < count; ++i) {
        assert_int_equal((int)names[i].status, (int)i);
        const char *name = kiln_status_name(names[i].status);
        assert_non_null(name);
        assert_string_equal(name, names[i].name);
        /* kiln_status_name is not a status-returning call: it keeps the
         * last error. */
    }
    const int unknown[] = {-1, (int)count, 1000, 0x7fffffff};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; ++i)
        assert_string_equal(kiln_status_name((kiln_status)unknown[i]),
                            "KILN_ERR_UNKNOWN_STATUS");

    char version[64];
    snprintf(version, sizeof version, "%d.%d.%d", KILN_VERSION_MAJOR,
             KILN_VERSION_MINOR, KILN_VERSION_PATCH);
    assert_string_equal(kiln_version(), version);
}

/* ---- NULL handles ------------------------------------------------------------------- */

static void null_handles_are_refused_everywhere(void **state)
{
    objects o = objects_create(state);
    const char *name = "untouched";
    size_t size = 777;
    kiln_context *context = (kiln_context *)&size;
    kiln_device_info device;
    memset(&device, 0x11, sizeof device);
    const kiln_device_info device_before = device;
    kiln_pool_stats stats = {1, 2, 3, 4};
    float milliseconds = 5.0f;
    unsigned char native[16];
    memset(native, 0x99, sizeof native);
    unsigned char bytes[16] = {0};
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    kiln_buffer *buffer = NULL;
    kiln_stream *stream = NULL;
    kiln_event *event = NULL;
    kiln_program *program = NULL;
    kiln_kernel *kernel = NULL;
    void *host = NULL;
    kiln_param_info param;
    memset(&param, 0x22, sizeof param);
    const kiln_param_info param_before = param;
    kiln_program_origin origin = (kiln_program_origin)99;

    /* Contexts. */
    EXPECT_NULL_HANDLE(kiln_context_retain(NULL));
    EXPECT_NULL_HANDLE(kiln_context_release(NULL));
    EXPECT_NULL_HANDLE(kiln_context_get_backend(NULL, &name));
    EXPECT_NULL_HANDLE(kiln_context_get_device_info(NULL, &device));
    EXPECT_NULL_HANDLE(kiln_context_synchronize(NULL));
    EXPECT_NULL_HANDLE(kiln_context_get_native(NULL, native, sizeof(void *)));
    EXPECT_NULL_HANDLE(kiln_context_get_native_device(NULL, native, sizeof(void *)));

    /* Streams and events. */
    EXPECT_NULL_HANDLE(kiln_stream_create(NULL, &stream));
    EXPECT_NULL_HANDLE(kiln_stream_retain(NULL));
    EXPECT_NULL_HANDLE(kiln_stream_release(NULL));
    EXPECT_NULL_HANDLE(kiln_stream_synchronize(NULL));
    EXPECT_NULL_HANDLE(kiln_stream_wait_event(NULL, o.event));
    EXPECT_NULL_HANDLE(kiln_stream_wait_event(o.stream, NULL));
    EXPECT_NULL_HANDLE(kiln_stream_get_native(NULL, native, sizeof(void *)));
    EXPECT_NULL_HANDLE(kiln_context_get_default_stream(NULL, &stream));
    EXPECT_NULL_HANDLE(kiln_stream_get_context(NULL, &context));
    EXPECT_NULL_HANDLE(kiln_event_create(NULL, &event));
    EXPECT_NULL_HANDLE(kiln_event_retain(NULL));
    EXPECT_NULL_HANDLE(kiln_event_release(NULL));
    EXPECT_NULL_HANDLE(kiln_event_record(NULL, o.stream));
    EXPECT_NULL_HANDLE(kiln_event_synchronize(NULL));
    EXPECT_NULL_HANDLE(kiln_event_query(NULL));
    EXPECT_NULL_HANDLE(kiln_event_elapsed(NULL, o.event, &milliseconds));
    EXPECT_NULL_HANDLE(kiln_event_elapsed(o.event, NULL, &milliseconds));
    EXPECT_NULL_HANDLE(kiln_event_get_native(NULL, native, sizeof(void *)));

    /* Buffers and host memory. */
    EXPECT_NULL_HANDLE(kiln_buffer_create(NULL, 16, &buffer));
    EXPECT_NULL_HANDLE(kiln_buffer_create_from(NULL, bytes, 16, &buffer));
    EXPECT_NULL_HANDLE(kiln_buffer_retain(NULL));
    EXPECT_NULL_HANDLE(kiln_buffer_release(NULL));
    EXPECT_NULL_HANDLE(kiln_buffer_get_size(NULL, &size));
    EXPECT_NULL_HANDLE(kiln_buffer_get_context(NULL, &context));
    EXPECT_NULL_HANDLE(kiln_buffer_write(NULL, 0, bytes, 16));
    EXPECT_NULL_HANDLE(kiln_buffer_read(NULL, 0, bytes, 16));
    EXPECT_NULL_HANDLE(kiln_buffer_copy(NULL, 0, o.buffer, 0, 16));
    EXPECT_NULL_HANDLE(kiln_buffer_copy(o.buffer, 0, NULL, 0, 16));
    EXPECT_NULL_HANDLE(kiln_buffer_fill(NULL, 0, 16, bytes, 4));
    EXPECT_NULL_HANDLE(kiln_buffer_write_async(NULL, 0, bytes, 16, NULL));
    EXPECT_NULL_HANDLE(kiln_buffer_read_async(NULL, 0, bytes, 16, NULL));
    EXPECT_NULL_HANDLE(kiln_buffer_copy_async(NULL, 0, o.buffer, 0, 16, NULL));
    EXPECT_NULL_HANDLE(kiln_buffer_copy_async(o.buffer, 0, NULL, 0, 16, NULL));
    EXPECT_NULL_HANDLE(kiln_buffer_fill_async(NULL, 0, 16, bytes, 4, NULL));
    EXPECT_NULL_HANDLE(kiln_buffer_get_native(NULL, native, sizeof(void *)));
    EXPECT_NULL_HANDLE(kiln_host_alloc(NULL, 64, &host));
    EXPECT_NULL_HANDLE(kiln_host_free(NULL, bytes));
    EXPECT_NULL_HANDLE(kiln_pool_set_enabled(NULL, 1));
    EXPECT_NULL_HANDLE(kiln_pool_get_stats(NULL, &stats));
    EXPECT_NULL_HANDLE(kiln_pool_trim(NULL));

    /* Programs and kernels. */
    EXPECT_NULL_HANDLE(kiln_program_build(NULL, tiny_source, NULL, &program));
    EXPECT_NULL_HANDLE(
        kiln_program_build_with(NULL, tiny_source, 0, NULL, &program));
    EXPECT_NULL_HANDLE(
        kiln_program_build_file(NULL, "/nonexistent.cl", NULL, &program));
    EXPECT_NULL_HANDLE(kiln_program_retain(NULL));
    EXPECT_NULL_HANDLE(kiln_program_release(NULL));
    EXPECT_NULL_HANDLE(kiln_program_get_build_log(NULL, &name));
    EXPECT_NULL_HANDLE(kiln_program_get_origin(NULL, &origin));
    EXPECT_NULL_HANDLE(kiln_program_get_kernel_count(NULL, &size));
    EXPECT_NULL_HANDLE(kiln_program_get_kernel_name(NULL, 0, &name));
    EXPECT_NULL_HANDLE(kiln_kernel_create(NULL, "tiny", &kernel));
    EXPECT_NULL_HANDLE(kiln_kernel_retain(NULL));
    EXPECT_NULL_HANDLE(kiln_kernel_release(NULL));
    EXPECT_NULL_HANDLE(kiln_kernel_get_name(NULL, &name));
    EXPECT_NULL_HANDLE(kiln_kernel_get_param_count(NULL, &size));
    EXPECT_NULL_HANDLE(kiln_kernel_get_param_info(NULL, 0, &param));
    EXPECT_NULL_HANDLE(kiln_kernel_get_max_block_size(NULL, &size));
    EXPECT_NULL_HANDLE(kiln_kernel_get_native(NULL, native, sizeof(void *)));

    /* Launching. */
    kiln_arg args[] = {KILN_ARG_BUFFER(o.buffer), KILN_ARG_INT(1)};
    EXPECT_NULL_HANDLE(kiln_launch(NULL, &config, 2, args));
    EXPECT_NULL_HANDLE(kiln_launch_prepared(NULL, &config, "Pi", o.buffer, 1));
    EXPECT_NULL_HANDLE(kiln_launch_args(NULL, &config, o.args));
    EXPECT_NULL_HANDLE(kiln_kernel_prepare(NULL, "Pi"));
    EXPECT_NULL_HANDLE(kiln_launch_prepared_call(NULL, &config, o.buffer, 1));
    EXPECT_NULL_HANDLE(kiln_args_add(NULL, args[0]));
    EXPECT_NULL_HANDLE(kiln_args_add(o.args, KILN_ARG_BUFFER(NULL)));
    EXPECT_NULL_HANDLE(kiln_launch_args(o.kernel, &config, NULL));
    EXPECT_NULL_HANDLE(kiln_args_release(NULL));
    EXPECT_NULL_HANDLE(kiln_args_clear(NULL));
    EXPECT_NULL_HANDLE(kiln_args_add_buffer(NULL, o.buffer));
    EXPECT_NULL_HANDLE(kiln_args_add_buffer(o.args, NULL));
    EXPECT_NULL_HANDLE(kiln_args_add_value(NULL, bytes, 4));
    EXPECT_NULL_HANDLE(kiln_args_add_local(NULL, 4));
    EXPECT_NULL_HANDLE(kiln_args_add_host(NULL, KILN_ARG_KIND_IN, bytes, 4));
    EXPECT_NULL_HANDLE(kiln_args_add_int(NULL, 1));
    EXPECT_NULL_HANDLE(kiln_args_add_uint(NULL, 1));
    EXPECT_NULL_HANDLE(kiln_args_add_long(NULL, 1));
    EXPECT_NULL_HANDLE(kiln_args_add_ulong(NULL, 1));
    EXPECT_NULL_HANDLE(kiln_args_add_float(NULL, 1));
    EXPECT_NULL_HANDLE(kiln_args_add_double(NULL, 1));
    EXPECT_NULL_HANDLE(kiln_args_get_count(NULL, &size));

    /* No out-parameter was written by any of those. */
    assert_string_equal(name, "untouched");
    assert_int_equal(size, 777);
    assert_ptr_equal(context, (kiln_context *)&size);
    assert_memory_equal(&device, &device_before, sizeof device);
    assert_true(stats.bytes_in_use == 1 && stats.reuses == 4);
    assert_true(milliseconds == 5.0f);
    for (size_t i = 0; i < sizeof native; ++i)
        assert_int_equal(native[i], 0x99);
    assert_null(buffer);
    assert_null(stream);
    assert_null(event);
    assert_null(program);
    assert_null(kernel);
    assert_null(host);
    assert_memory_equal(&param, &param_before, sizeof param);
    assert_int_equal(origin, 99);

    /* Nothing was queued on the live objects either. */
    size_t count = 5;
    TEST_OK(kiln_args_get_count(o.args, &count));
    assert_int_equal(count, 0);
    objects_release(&o);
}

/* ---- NULL out-pointers and NULL inputs ------------------------------------------------ */

static void null_out_pointers_are_refused_everywhere(void **state)
{
    objects o = objects_create(state);
    const char *backend = test_backend(state);
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    unsigned char bytes[16] = {0};
    kiln_backend_info backend_info;
    kiln_program *program = NULL;

    /* Backends and devices. */
    EXPECT_NULL_ARGUMENT(kiln_backend_get_count(NULL));
    EXPECT_NULL_ARGUMENT(kiln_backend_get_info(0, NULL));
    EXPECT_NULL_ARGUMENT(kiln_backend_find(NULL, &backend_info));
    EXPECT_NULL_ARGUMENT(kiln_backend_find(backend, NULL));
    EXPECT_NULL_ARGUMENT(kiln_backend_get_default(NULL));
    EXPECT_NULL_ARGUMENT(kiln_device_get_count(backend, NULL));
    EXPECT_NULL_ARGUMENT(kiln_device_get_info(backend, 0, NULL));
    EXPECT_NULL_ARGUMENT(kiln_context_create(backend, -1, NULL));

    /* Contexts. */
    EXPECT_NULL_ARGUMENT(kiln_context_get_backend(o.context, NULL));
    EXPECT_NULL_ARGUMENT(kiln_context_get_device_info(o.context, NULL));
    EXPECT_NULL_ARGUMENT(kiln_context_get_native(o.context, NULL, sizeof(void *)));
    EXPECT_NULL_ARGUMENT(kiln_context_get_native_device(o.context, NULL, sizeof(void *)));

    /* Streams and events. */
    EXPECT_NULL_ARGUMENT(kiln_stream_create(o.context, NULL));
    EXPECT_NULL_ARGUMENT(
        kiln_stream_get_native(o.stream, NULL, sizeof(void *)));
    EXPECT_NULL_ARGUMENT(kiln_context_get_default_stream(o.context, NULL));
    EXPECT_NULL_ARGUMENT(kiln_event_create(o.context, NULL));
    EXPECT_NULL_ARGUMENT(kiln_event_elapsed(o.event, o.event, NULL));
    EXPECT_NULL_ARGUMENT(kiln_event_get_native(o.event, NULL, sizeof(void *)));

    /* Buffers and host memory. */
    EXPECT_NULL_ARGUMENT(kiln_buffer_create(o.context, 16, NULL));
    EXPECT_NULL_ARGUMENT(kiln_buffer_create_from(o.context, bytes, 16, NULL));
    EXPECT_NULL_ARGUMENT(kiln_buffer_create_from(o.context, NULL, 16,
                                                 &o.buffer));
    EXPECT_NULL_ARGUMENT(kiln_buffer_get_size(o.buffer, NULL));
    EXPECT_NULL_ARGUMENT(kiln_buffer_get_context(o.buffer, NULL));
    EXPECT_NULL_ARGUMENT(kiln_buffer_write(o.buffer, 0, NULL, 16));
    EXPECT_NULL_ARGUMENT(kiln_buffer_read(o.buffer, 0, NULL, 16));
    EXPECT_NULL_ARGUMENT(kiln_buffer_fill(o.buffer, 0, 16, NULL, 4));
    EXPECT_NULL_ARGUMENT(kiln_buffer_write_async(o.buffer, 0, NULL, 16, NULL));
    EXPECT_NULL_ARGUMENT(kiln_buffer_read_async(o.buffer, 0, NULL, 16, NULL));
    EXPECT_NULL_ARGUMENT(kiln_buffer_fill_async(o.buffer, 0, 16, NULL, 4,
                                                o.stream));
    EXPECT_NULL_ARGUMENT(kiln_buffer_get_native(o.buffer, NULL, sizeof(void *)));
    EXPECT_NULL_ARGUMENT(kiln_host_alloc(o.context, 64, NULL));
    EXPECT_NULL_ARGUMENT(kiln_host_free(o.context, NULL));
    EXPECT_NULL_ARGUMENT(kiln_pool_get_stats(o.context, NULL));

    /* Programs and kernels. */
    EXPECT_NULL_ARGUMENT(kiln_program_build(o.context, NULL, NULL, &program));
    EXPECT_NULL_ARGUMENT(
        kiln_program_build(o.context, tiny_source, NULL, NULL));
    EXPECT_NULL_ARGUMENT(
        kiln_program_build_with(o.context, NULL, 0, NULL, &program));
    EXPECT_NULL_ARGUMENT(
        kiln_program_build_with(o.context, tiny_source, 0, NULL, NULL));
    EXPECT_NULL_ARGUMENT(kiln_program_build_file(o.context, NULL, NULL,
                                                 &program));
    EXPECT_NULL_ARGUMENT(
        kiln_program_build_file(o.context, "/nonexistent.cl", NULL, NULL));
    EXPECT_NULL_ARGUMENT(kiln_program_get_build_log(o.program, NULL));
    EXPECT_NULL_ARGUMENT(kiln_program_get_origin(o.program, NULL));
    EXPECT_NULL_ARGUMENT(kiln_program_get_kernel_count(o.program, NULL));
    EXPECT_NULL_ARGUMENT(kiln_program_get_kernel_name(o.program, 0, NULL));
    EXPECT_NULL_ARGUMENT(kiln_kernel_create(o.program, NULL, &o.kernel));
    EXPECT_NULL_ARGUMENT(kiln_kernel_create(o.program, "tiny", NULL));
    EXPECT_NULL_ARGUMENT(kiln_kernel_get_name(o.kernel, NULL));
    EXPECT_NULL_ARGUMENT(kiln_kernel_get_param_count(o.kernel, NULL));
    EXPECT_NULL_ARGUMENT(kiln_kernel_get_param_info(o.kernel, 0, NULL));
    EXPECT_NULL_ARGUMENT(kiln_kernel_get_max_block_size(o.kernel, NULL));
    EXPECT_NULL_ARGUMENT(kiln_kernel_get_native(o.kernel, NULL, sizeof(void *)));
    assert_null(program);

    /* Launching. */
    kiln_arg args[] = {KILN_ARG_BUFFER(o.buffer), KILN_ARG_INT(1)};
    EXPECT_NULL_ARGUMENT(kiln_launch(o.kernel, NULL, 2, args));
    EXPECT_NULL_ARGUMENT(kiln_launch(o.kernel, &config, 2, NULL));
    EXPECT_NULL_ARGUMENT(kiln_launch_prepared(o.kernel, &config, NULL));
    EXPECT_NULL_ARGUMENT(kiln_launch_prepared_call(o.kernel, NULL, 1));
    EXPECT_NULL_ARGUMENT(kiln_kernel_prepare(o.kernel, NULL));
    EXPECT_NULL_ARGUMENT(kiln_stream_get_context(o.stream, NULL));
    EXPECT_NULL_ARGUMENT(
        kiln_launch_prepared(o.kernel, NULL, "Pi", o.buffer, 1));
    EXPECT_NULL_ARGUMENT(kiln_launch_args(o.kernel, NULL, o.args));
    EXPECT_NULL_ARGUMENT(kiln_args_create(NULL));
    EXPECT_NULL_ARGUMENT(kiln_args_add_value(o.args, NULL, 4));
    EXPECT_NULL_ARGUMENT(kiln_args_add_host(o.args, KILN_ARG_KIND_OUT, NULL,
                                            4));
    EXPECT_NULL_ARGUMENT(kiln_args_get_count(o.args, NULL));

    /* The cache. */
    EXPECT_NULL_ARGUMENT(kiln_cache_get_info(NULL));

    /* The buffer still holds nothing we wrote: no call above reached the
     * device. */
    size_t count = 9;
    TEST_OK(kiln_args_get_count(o.args, &count));
    assert_int_equal(count, 0);
    objects_release(&o);
}

/* ---- released and foreign handles ------------------------------------------------- */

static void released_handles_are_refused(void **state)
{
    kiln_context *fixture = test_context(state);
    size_t size;
    const char *name;

    kiln_buffer *buffer = test_buffer(fixture, 64);
    TEST_OK(kiln_buffer_release(buffer));
    EXPECT_RELEASED(kiln_buffer_get_size(buffer, &size));
    EXPECT_RELEASED(kiln_buffer_release(buffer)); /* a double release */
    EXPECT_RELEASED(kiln_buffer_write(buffer, 0, &size, sizeof size));

    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(fixture, &stream));
    TEST_OK(kiln_stream_release(stream));
    EXPECT_RELEASED(kiln_stream_synchronize(stream));
    EXPECT_RELEASED(kiln_stream_release(stream));
    int32_t data[4] = {1, 2, 3, 4};
    kiln_buffer *live = test_buffer_from(fixture, data, sizeof data);
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_buffer_write_async(live, 0, data, sizeof data, stream));
    TEST_ERROR_MENTIONS("released");

    kiln_event *event = NULL;
    TEST_OK(kiln_event_create(fixture, &event));
    TEST_OK(kiln_event_release(event));
    EXPECT_RELEASED(kiln_event_query(event));
    EXPECT_RELEASED(kiln_event_record(event, NULL));
    EXPECT_RELEASED(kiln_event_release(event));

    kiln_program *program = test_build(fixture, tiny_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "tiny");
    TEST_OK(kiln_program_release(program));
    /* The kernel holds the program's last reference: releasing the kernel
     * ends both. */
    TEST_OK(kiln_kernel_release(kernel));
    EXPECT_RELEASED(kiln_kernel_get_name(kernel, &name));
    EXPECT_RELEASED(kiln_program_get_build_log(program, &name));
    EXPECT_RELEASED(kiln_program_get_kernel_count(program, &size));
    EXPECT_RELEASED(kiln_program_get_kernel_name(program, 0, &name));
    EXPECT_RELEASED(kiln_kernel_create(program, "tiny", &kernel));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    kiln_arg args[] = {KILN_ARG_BUFFER(live), KILN_ARG_INT(9)};
    EXPECT_RELEASED(kiln_launch(kernel, &config, 2, args));
    EXPECT_RELEASED(kiln_kernel_release(kernel));

    kiln_args *list = NULL;
    TEST_OK(kiln_args_create(&list));
    TEST_OK(kiln_args_add_int(list, 3));
    TEST_OK(kiln_args_release(list));
    EXPECT_RELEASED(kiln_args_get_count(list, &size));
    EXPECT_RELEASED(kiln_args_release(list));

    kiln_context *context = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    TEST_OK(kiln_context_release(context));
    EXPECT_RELEASED(kiln_context_get_backend(context, &name));
    EXPECT_RELEASED(kiln_context_release(context));
    EXPECT_RELEASED(kiln_buffer_create(context, 16, &buffer));

    /* The live buffer was never touched by the refused calls. */
    int32_t back[4];
    TEST_OK(kiln_buffer_read(live, 0, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    TEST_OK(kiln_buffer_release(live));
}

static void handles_of_the_wrong_type_are_refused(void **state)
{
    objects o = objects_create(state);
    size_t size;
    const char *name;
    float milliseconds;
    /* Every handle starts with a word naming its type; a handle of another
     * type (or memory that is no Kiln object at all) is refused. */
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_buffer_get_size((kiln_buffer *)o.stream, &size));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_context_get_backend((kiln_context *)o.buffer, &name));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_event_query((kiln_event *)o.stream));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_stream_synchronize((kiln_stream *)o.event));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_kernel_get_name((kiln_kernel *)o.program, &name));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_program_retain((kiln_program *)o.kernel));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_args_clear((kiln_args *)o.buffer));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_event_elapsed(o.event, (kiln_event *)o.context,
                                  &milliseconds));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1),
                                 .stream = (kiln_stream *)o.event};
    kiln_arg args[] = {KILN_ARG_BUFFER(o.buffer), KILN_ARG_INT(1)};
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_launch(o.kernel, &config, 2, args));
    config.stream = NULL;
    kiln_arg wrong_buffer[] = {KILN_ARG_BUFFER((kiln_buffer *)o.stream),
                               KILN_ARG_INT(1)};
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_launch(o.kernel, &config, 2, wrong_buffer));

    uint32_t *zeros = calloc(64, sizeof *zeros);
    assert_non_null(zeros);
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_buffer_release((kiln_buffer *)zeros));
    TEST_ERROR_MENTIONS("not a Kiln object");
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_context_synchronize((kiln_context *)zeros));
    free(zeros);

    /* The objects themselves are unharmed. */
    TEST_OK(kiln_buffer_get_size(o.buffer, &size));
    assert_int_equal(size, 256);
    TEST_OK(kiln_stream_synchronize(o.stream));
    objects_release(&o);
}

/* ---- other bad inputs to the core API --------------------------------------------- */

static void other_bad_inputs(void **state)
{
    objects o = objects_create(state);
    void *host = NULL;
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_host_alloc(o.context, 0, &host));
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_args_add_value(o.args, &host, 0));
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_args_add_local(o.args, 0));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_args_add_host(o.args, KILN_ARG_KIND_BUFFER, &host, 8));
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_IO,
               kiln_program_build_file(o.context, "/nonexistent/kiln/x.cl",
                                       NULL, &program));
    TEST_ERROR_MENTIONS("/nonexistent/kiln/x.cl");
    assert_null(program);
    /* Another context's default stream with this context's buffer. */
    kiln_context *other = NULL;
    kiln_stream *other_default = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &other));
    TEST_OK(kiln_context_get_default_stream(other, &other_default));
    int32_t value = 0;
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_buffer_read_async(o.buffer, 0, &value, sizeof value,
                                      other_default));
    TEST_OK(kiln_context_release(other));
    TEST_OK(kiln_stream_synchronize(o.stream));
    objects_release(&o);
}

/* ---- a cache directory of another user ----------------------------------------------- */

static size_t entries_in(const char *dir)
{
    DIR *handle = opendir(dir);
    if (handle == NULL)
        fail_msg("cannot open %s: %s", dir, strerror(errno));
    size_t count = 0;
    struct dirent *item;
    while ((item = readdir(handle)) != NULL)
        if (strcmp(item->d_name, ".") != 0 && strcmp(item->d_name, "..") != 0)
            ++count;
    closedir(handle);
    return count;
}

/* Another user could plant binaries there: Kiln must neither read nor
 * write it, and a build must still work.  (test_cache_files checks what
 * kiln_cache_get_info says of it and of the other refused modes;
 * test_cache builds under a directory writable by others.) */
static void cache_directory_of_another_user_is_not_used(void **state)
{
    kiln_context *context = test_context(state);
    if (geteuid() != 0) {
        print_message("# not root: cannot make a directory owned by another "
                      "user\n");
        skip();
    }
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/cache-of-uid-65534", test_scratch_dir());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        fail_msg("mkdir %s: %s", dir, strerror(errno));
    if (chown(dir, 65534, 65534) != 0)
        fail_msg("chown %s: %s", dir, strerror(errno));
    const char *previous = getenv("KILN_CACHE_DIR");
    char *saved = previous ? strdup(previous) : NULL;
    setenv("KILN_CACHE_DIR", dir, 1);

    kiln_cache_info info;
    kiln_status info_status = kiln_cache_get_info(&info);
    /* A text no cache holds: it must be compiled, and nothing stored. */
    char source[256];
    snprintf(source, sizeof source,
             "__kernel void tiny(__global int *a, int v)\n"
             "{ a[get_global_id(0)] = v + %d; }\n",
             (int)(test_random_u64() % 1000000));
    kiln_program *program = NULL;
    kiln_status build_status =
        kiln_program_build(context, source, NULL, &program);
    size_t entries = entries_in(dir);

    if (saved != NULL)
        setenv("KILN_CACHE_DIR", saved, 1);
    else
        unsetenv("KILN_CACHE_DIR");
    free(saved);
    if (chown(dir, getuid(), getgid()) != 0)
        fail_msg("chown back %s: %s", dir, strerror(errno));

    assert_int_equal(info_status, KILN_OK);
    if (info.enabled)
        fail_msg("a cache directory owned by uid 65534 is reported enabled");
    if (build_status != KILN_OK)
        fail_msg("build: %s: %s", kiln_status_name(build_status),
                 kiln_last_error());
    kiln_program_origin origin;
    TEST_OK(kiln_program_get_origin(program, &origin));
    assert_int_equal(origin, KILN_PROGRAM_COMPILED);
    assert_int_equal(entries, 0);

    kiln_kernel *kernel = test_kernel(program, "tiny");
    int32_t value = (int32_t)(test_random_u64() % 1000) + 1, back[32];
    kiln_buffer *buffer = test_buffer(context, sizeof back);
    kiln_launch_config config = test_config_1d(32, 32);
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT(value)};
    TEST_OK(kiln_launch(kernel, &config, 2, args));
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    int offset = atoi(strstr(source, "v + ") + 4);
    for (int i = 0; i < 32; ++i)
        assert_int_equal(back[i], value + offset);
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* ---- the last error after successes ----------------------------------------------- */

/* Leaves an error behind, then checks `call` succeeds and clears it. */
#define CLEARS_THE_LAST_ERROR(call)                                            \
    do {                                                                       \
        (void)kiln_buffer_get_size(NULL, NULL);                                    \
        assert_true(kiln_last_error()[0] != '\0');                             \
        TEST_OK(call);                                                         \
        if (kiln_last_error()[0] != '\0')                                      \
            fail_msg("%s succeeded but left '%s'", #call, kiln_last_error());  \
    } while (0)

static void successes_leave_no_error(void **state)
{
    kiln_context *context = test_context(state);
    const char *backend = test_backend(state);
    size_t size;
    int count;
    const char *name;
    kiln_backend_info backend_info;
    kiln_device_info device;
    kiln_pool_stats stats;
    kiln_cache_info cache;
    float milliseconds;
    int32_t data[64], back[64];
    test_random_ints(data, 64, -100, 100);

    CLEARS_THE_LAST_ERROR(kiln_backend_get_count(&size));
    CLEARS_THE_LAST_ERROR(kiln_backend_get_info(0, &backend_info));
    CLEARS_THE_LAST_ERROR(kiln_backend_find("cuda", &backend_info));
    CLEARS_THE_LAST_ERROR(kiln_backend_find("opencl", &backend_info));
    CLEARS_THE_LAST_ERROR(kiln_backend_get_default(&name));
    CLEARS_THE_LAST_ERROR(kiln_device_get_count(backend, &count));
    CLEARS_THE_LAST_ERROR(kiln_device_get_info(backend, 0, &device));
    CLEARS_THE_LAST_ERROR(kiln_context_get_backend(context, &name));
    CLEARS_THE_LAST_ERROR(kiln_context_get_device_info(context, &device));
    CLEARS_THE_LAST_ERROR(kiln_context_synchronize(context));
    CLEARS_THE_LAST_ERROR(kiln_cache_get_info(&cache));

    kiln_buffer *buffer = NULL;
    CLEARS_THE_LAST_ERROR(kiln_buffer_create(context, sizeof data, &buffer));
    CLEARS_THE_LAST_ERROR(kiln_buffer_write(buffer, 0, data, sizeof data));
    CLEARS_THE_LAST_ERROR(kiln_buffer_get_size(buffer, &size));
    CLEARS_THE_LAST_ERROR(kiln_buffer_retain(buffer));
    CLEARS_THE_LAST_ERROR(kiln_buffer_release(buffer));
    CLEARS_THE_LAST_ERROR(kiln_pool_get_stats(context, &stats));

    kiln_stream *stream = NULL;
    kiln_event *start = NULL, *end = NULL;
    CLEARS_THE_LAST_ERROR(kiln_stream_create(context, &stream));
    CLEARS_THE_LAST_ERROR(kiln_event_create(context, &start));
    CLEARS_THE_LAST_ERROR(kiln_event_create(context, &end));
    CLEARS_THE_LAST_ERROR(kiln_event_record(start, stream));

    kiln_program *program = NULL;
    kiln_kernel *kernel = NULL;
    CLEARS_THE_LAST_ERROR(
        kiln_program_build(context, tiny_source, NULL, &program));
    /* Again: from the memory cache. */
    kiln_program *cached = NULL;
    CLEARS_THE_LAST_ERROR(
        kiln_program_build(context, tiny_source, NULL, &cached));
    CLEARS_THE_LAST_ERROR(kiln_program_get_kernel_count(cached, &size));
    CLEARS_THE_LAST_ERROR(kiln_program_get_kernel_name(cached, 0, &name));
    CLEARS_THE_LAST_ERROR(kiln_kernel_create(cached, "tiny", &kernel));
    CLEARS_THE_LAST_ERROR(kiln_program_release(cached));
    CLEARS_THE_LAST_ERROR(kiln_kernel_get_name(kernel, &name));
    CLEARS_THE_LAST_ERROR(kiln_kernel_get_param_count(kernel, &size));
    kiln_launch_config config = test_config_1d(64, 16);
    config.stream = stream;
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer), KILN_ARG_INT(42)};
    CLEARS_THE_LAST_ERROR(kiln_launch(kernel, &config, 2, args));
    CLEARS_THE_LAST_ERROR(kiln_event_record(end, stream));
    CLEARS_THE_LAST_ERROR(kiln_event_elapsed(start, end, &milliseconds));
    CLEARS_THE_LAST_ERROR(kiln_event_query(end));
    CLEARS_THE_LAST_ERROR(kiln_stream_wait_event(stream, end));
    CLEARS_THE_LAST_ERROR(
        kiln_buffer_read_async(buffer, 0, back, sizeof back, stream));
    CLEARS_THE_LAST_ERROR(kiln_stream_synchronize(stream));
    for (int i = 0; i < 64; ++i)
        assert_int_equal(back[i], 42);

    CLEARS_THE_LAST_ERROR(kiln_event_release(start));
    CLEARS_THE_LAST_ERROR(kiln_event_release(end));
    CLEARS_THE_LAST_ERROR(kiln_stream_release(stream));
    CLEARS_THE_LAST_ERROR(kiln_kernel_release(kernel));
    CLEARS_THE_LAST_ERROR(kiln_program_release(program));
    CLEARS_THE_LAST_ERROR(kiln_buffer_release(buffer));
    CLEARS_THE_LAST_ERROR(kiln_pool_trim(context));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(every_status_has_its_name),
        KILN_TEST(null_handles_are_refused_everywhere),
        KILN_TEST(null_out_pointers_are_refused_everywhere),
        KILN_TEST(released_handles_are_refused),
        KILN_TEST(handles_of_the_wrong_type_are_refused),
        KILN_TEST(other_bad_inputs),
        KILN_TEST(cache_directory_of_another_user_is_not_used),
        KILN_TEST(successes_leave_no_error),
    };
    return kiln_test_main("errors", tests, sizeof tests / sizeof *tests);
}
