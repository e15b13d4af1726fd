/*
 * What an adversarial test of the public API broke (issue 18), each case
 * answered with its own status and a clear message: no crash, no hang, no
 * leak, no stale result.  Calls that used to hang run under an alarm, so a
 * regression fails the test instead of stalling the suite.
 */
#include "config.h" /* _GNU_SOURCE: setenv, mkdtemp under -std=c11 */

#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A call that used to hang must come back within this many seconds. */
#define HANG_LIMIT_SECONDS 60

static void hang_alarm(int signal_number)
{
    (void)signal_number;
    static const char message[] =
        "test_hostile: a call did not return (it hangs)\n";
    (void)!write(2, message, sizeof message - 1);
    _exit(1);
}

static void hang_guard_start(void)
{
    signal(SIGALRM, hang_alarm);
    alarm(HANG_LIMIT_SECONDS);
}

static void hang_guard_stop(void)
{
    alarm(0);
}

/* Sets an environment variable for one test; env_restore puts it back. */
typedef struct saved_env {
    const char *name;
    char *value;
} saved_env;

static saved_env env_set(const char *name, const char *value)
{
    const char *old = getenv(name);
    saved_env saved = {name, old ? strdup(old) : NULL};
    if (value != NULL)
        setenv(name, value, 1);
    else
        unsetenv(name);
    return saved;
}

static void env_restore(saved_env *saved)
{
    if (saved->value != NULL)
        setenv(saved->name, saved->value, 1);
    else
        unsetenv(saved->name);
    free(saved->value);
    saved->value = NULL;
}

static kiln_cache_info cache_info(void)
{
    kiln_cache_info info;
    memset(&info, 0x55, sizeof info);
    TEST_OK(kiln_cache_get_info(&info));
    return info;
}

/* A fresh private directory under the scratch directory. */
static void fresh_dir(char *dir, size_t size, const char *label)
{
    static unsigned counter;
    snprintf(dir, size, "%s/hostile-%s-%u", test_scratch_dir(), label,
             counter++);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        fail_msg("cannot create %s: %s", dir, strerror(errno));
    /* KILN_CACHE_DIR takes absolute paths only. */
    char *absolute = realpath(dir, NULL);
    if (absolute == NULL)
        fail_msg("realpath %s: %s", dir, strerror(errno));
    snprintf(dir, size, "%s", absolute);
    free(absolute);
}

/* A source no other test (or earlier run) has built. */
static void unique_source(char *source, size_t size)
{
    snprintf(source, size,
             "__kernel void scale(__global float *x) {\n"
             "    x[get_global_id(0)] *= %u.0f; /* %llu */\n"
             "}\n",
             (unsigned)(test_random_u64() % 1000 + 2),
             (unsigned long long)test_random_u64());
}

/* ---- the cache directory ------------------------------------------------------ */

/* An entry's path taken by a FIFO (or anything but a regular file) is a
 * miss, at once: the open must not wait for a writer. */
static void fifo_at_an_entry_path_is_a_miss(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096], source[512];
    fresh_dir(dir, sizeof dir, "fifo");
    saved_env cache_dir = env_set("KILN_CACHE_DIR", dir);
    saved_env cache = env_set("KILN_CACHE", NULL);
    unique_source(source, sizeof source);
    kiln_program *program = test_build(context, source, NULL);
    TEST_OK(kiln_program_release(program));

    /* The entry just written becomes a FIFO. */
    DIR *listing = opendir(dir);
    assert_non_null(listing);
    char entry[4400] = "";
    struct dirent *item;
    while ((item = readdir(listing)) != NULL)
        if (strstr(item->d_name, ".kbin") != NULL)
            snprintf(entry, sizeof entry, "%s/%s", dir, item->d_name);
    closedir(listing);
    if (entry[0] == '\0')
        fail_msg("the build stored no entry in %s", dir);
    assert_int_equal(unlink(entry), 0);
    if (mkfifo(entry, 0600) != 0)
        fail_msg("mkfifo %s: %s", entry, strerror(errno));

    /* A second context has an empty memory cache: it goes to the disk. */
    kiln_context *second = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &second));
    hang_guard_start();
    program = test_build(second, source, NULL);
    hang_guard_stop();
    kiln_program_origin origin;
    TEST_OK(kiln_program_get_origin(program, &origin));
    assert_int_equal(origin, KILN_PROGRAM_COMPILED);
    kiln_kernel *kernel = test_kernel(program, "scale");
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
    TEST_OK(kiln_context_release(second));
    env_restore(&cache);
    env_restore(&cache_dir);
}

/* A relative KILN_CACHE_DIR would follow the current directory around:
 * refused, as KILN_PLUGIN_PATH's relative entries are, and nothing is
 * created.  Builds still work. */
static void relative_cache_directory_is_refused(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096], here[4096], source[512];
    fresh_dir(dir, sizeof dir, "relative");
    assert_non_null(getcwd(here, sizeof here));
    assert_int_equal(chdir(dir), 0);
    saved_env cache_dir = env_set("KILN_CACHE_DIR", "kiln-cache");
    saved_env cache = env_set("KILN_CACHE", NULL);
    kiln_cache_info info = cache_info();
    if (info.enabled || info.directory[0] != '\0')
        fail_msg("KILN_CACHE_DIR=kiln-cache: enabled %d in '%s'; expected "
                 "the cache refused",
                 info.enabled, info.directory);
    unique_source(source, sizeof source);
    kiln_program *program = test_build(context, source, NULL);
    TEST_OK(kiln_program_release(program));
    struct stat unused;
    if (stat("kiln-cache", &unused) == 0)
        fail_msg("a relative KILN_CACHE_DIR was created in %s", dir);
    env_restore(&cache);
    env_restore(&cache_dir);
    assert_int_equal(chdir(here), 0);
}

/* A directory that exists and is the user's but where no file can be
 * made (/proc/self) is not a cache. */
static void directory_where_nothing_can_be_stored_is_not_enabled(void **state)
{
    (void)state;
    saved_env cache_dir = env_set("KILN_CACHE_DIR", "/proc/self");
    saved_env cache = env_set("KILN_CACHE", NULL);
    kiln_cache_info info = cache_info();
    if (info.enabled)
        fail_msg("KILN_CACHE_DIR=/proc/self is reported enabled ('%s')",
                 info.directory);
    env_restore(&cache);
    env_restore(&cache_dir);
}

/* ---- launches and argument lists -------------------------------------------- */

static const char axpy_source[] =
    "__kernel void axpy(__global float *y, __global const float *x,\n"
    "                   float a) {\n"
    "    size_t i = get_global_id(0);\n"
    "    y[i] += a * x[i];\n"
    "}\n";

/* A type string longer than the kernel's parameter list: refused by its
 * count before any vararg is read (ASan saw a stack-buffer-underflow). */
static void prepared_type_string_longer_than_the_kernel(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, axpy_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "axpy");
    kiln_buffer *y = test_buffer(context, 64 * sizeof(float));
    kiln_launch_config config = test_config_1d(64, 64);
    /* Three arguments passed, fourteen announced. */
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_launch_prepared(kernel, &config, "PPf<<<<<<<<<<<", y, y,
                                    2.0));
    TEST_ERROR_MENTIONS("axpy");
    TEST_ERROR_MENTIONS("takes 3 arguments");
    TEST_ERROR_MENTIONS("14");
    TEST_OK(kiln_buffer_release(y));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* A control character in a type string is named as itself. */
static void prepared_tab_is_reported_as_a_tab(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, axpy_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "axpy");
    kiln_buffer *y = test_buffer(context, 64 * sizeof(float));
    kiln_launch_config config = test_config_1d(64, 64);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared(kernel, &config, "P\tPf", y, y, 2.0));
    TEST_ERROR_MENTIONS("position 2");
    TEST_ERROR_MENTIONS("'\\t'");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared(kernel, &config, "PP\x01", y, y));
    TEST_ERROR_MENTIONS("'\\x01'");
    TEST_OK(kiln_buffer_release(y));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* A value near 2^63 bytes is no kernel parameter: refused at once (the
 * list's capacity doubling used to overflow to 0 and loop forever). */
static void huge_argument_values_are_refused(void **state)
{
    (void)state;
    kiln_args *args = NULL;
    TEST_OK(kiln_args_create(&args));
    int32_t small = 7;
    TEST_OK(kiln_args_add_value(args, &small, sizeof small));
    const size_t sizes[] = {(size_t)1 << 63, ((size_t)1 << 63) + 1,
                            SIZE_MAX, SIZE_MAX - 15, (size_t)1 << 40};
    hang_guard_start();
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        TEST_FAILS(KILN_ERR_INVALID_SIZE,
                   kiln_args_add_value(args, &small, sizes[i]));
        TEST_ERROR_MENTIONS("kiln_args_add_value");
    }
    hang_guard_stop();
    size_t count = 0;
    TEST_OK(kiln_args_get_count(args, &count));
    assert_int_equal(count, 1);
    TEST_OK(kiln_args_release(args));
}

/* Every axis within the device's limits, the product past size_t: a
 * launch no device finishes, refused instead of queued. */
static void grid_whose_size_overflows_is_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, axpy_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "axpy");
    kiln_buffer *y = test_buffer(context, 64 * sizeof(float));
    kiln_launch_config config = {
        .grid = KILN_DIM3(2147483647, 2147483647, 2147483647),
        .block = KILN_DIM1(1),
    };
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    for (int axis = 0; axis < 3; ++axis)
        if (info.max_grid[axis] != 0 && info.max_grid[axis] < 2147483647) {
            /* Within this device's limits, still overflowing. */
            size_t limit = info.max_grid[axis];
            if (axis == 0)
                config.grid.x = limit;
            else if (axis == 1)
                config.grid.y = limit;
            else
                config.grid.z = limit;
        }
    if ((double)config.grid.x * (double)config.grid.y *
            (double)config.grid.z <=
        (double)SIZE_MAX) {
        /* CUDA's limits (2^31-1 x 65535 x 65535) cannot overflow: such a
         * launch is legal there, only endless, so it is not made. */
        printf("# grid limits %zux%zux%zu cannot overflow size_t here\n",
               config.grid.x, config.grid.y, config.grid.z);
        TEST_OK(kiln_buffer_release(y));
        TEST_OK(kiln_kernel_release(kernel));
        TEST_OK(kiln_program_release(program));
        return;
    }
    hang_guard_start();
    kiln_status status = kiln_launch(
        kernel, &config, 3,
        (kiln_arg[]){KILN_ARG_BUFFER(y), KILN_ARG_BUFFER(y),
                     KILN_ARG_FLOAT(1.0f)});
    {
        if (status != KILN_ERR_INVALID_LAUNCH)
            fail_msg("a grid of %zux%zux%zu blocks -> %s (%s); expected "
                     "KILN_ERR_INVALID_LAUNCH",
                     config.grid.x, config.grid.y, config.grid.z,
                     kiln_status_name(status), kiln_last_error());
        TEST_ERROR_MENTIONS("axpy");
        TEST_ERROR_MENTIONS("overflows");
    }
    TEST_OK(kiln_context_synchronize(context));
    hang_guard_stop();
    TEST_OK(kiln_buffer_release(y));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* A host In/Out array larger than the device's largest allocation is
 * refused with the other argument checks, naming the kernel and the
 * argument; nothing is read from the (much smaller) host array. */
static void host_array_larger_than_any_allocation_is_named(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, axpy_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "axpy");
    kiln_buffer *x = test_buffer(context, 64 * sizeof(float));
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    size_t too_big = info.max_allocation != 0 &&
                             info.max_allocation < SIZE_MAX
                         ? (size_t)info.max_allocation + 1
                         : SIZE_MAX;
    float host[64];
    test_random_floats(host, 64, -1, 1);
    kiln_launch_config config = test_config_1d(64, 64);
    const kiln_arg_kind kinds[] = {KILN_ARG_KIND_IN, KILN_ARG_KIND_OUT,
                                   KILN_ARG_KIND_INOUT};
    for (size_t k = 0; k < 3; ++k) {
        kiln_arg args[] = {
            {.kind = kinds[k], .size = too_big, .host = host},
            KILN_ARG_BUFFER(x),
            KILN_ARG_FLOAT(2.0f),
        };
        TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_launch(kernel, &config, 3, args));
        TEST_ERROR_MENTIONS("axpy");
        TEST_ERROR_MENTIONS("argument 0");
        TEST_ERROR_MENTIONS("largest allocation");
    }
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_launch_prepared(kernel, &config, "<Pf", host, SIZE_MAX,
                                    x, 2.0));
    TEST_ERROR_MENTIONS("argument 0");
    TEST_OK(kiln_buffer_release(x));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* ---- references the caller does not own -------------------------------------- */

/* Writes random floats and reads them back through `buffer`. */
static void assert_buffer_works(kiln_buffer *buffer, size_t count)
{
    float *data = test_alloc(count * sizeof *data);
    float *back = test_alloc(count * sizeof *back);
    test_random_floats(data, count, -100, 100);
    TEST_OK(kiln_buffer_write(buffer, 0, data, count * sizeof *data));
    TEST_OK(kiln_buffer_read(buffer, 0, back, count * sizeof *back));
    test_assert_floats_near(back, data, count, 0);
    free(data);
    free(back);
}

/* A context released twice while a buffer holds it: the second release is
 * not the caller's to make.  It is refused and changes nothing (it used to
 * destroy the context under the buffer: a use after free). */
static void second_release_of_a_held_context_is_refused(void **state)
{
    kiln_context *context = NULL;
    (void)test_context(state); /* skips an unavailable backend */
    TEST_OK(kiln_context_create(test_backend(state), -1, &context));
    kiln_buffer *buffer = test_buffer(context, 256 * sizeof(float));
    TEST_OK(kiln_context_release(context)); /* the caller's one reference */
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_context_release(context));
    TEST_ERROR_MENTIONS("kiln_context_release");
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_context_release(context));
    assert_buffer_works(buffer, 256);

    /* The getter lends the context without a reference: usable while the
     * buffer lives, releasable only after a retain of the caller's. */
    kiln_context *owner = NULL;
    TEST_OK(kiln_buffer_get_context(buffer, &owner));
    assert_ptr_equal(owner, context);
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_context_release(owner));
    TEST_OK(kiln_context_retain(owner));
    kiln_buffer *second = test_buffer(owner, 64 * sizeof(float));
    TEST_OK(kiln_context_release(owner));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_context_release(owner));
    assert_buffer_works(second, 64);
    TEST_OK(kiln_buffer_release(second));
    assert_buffer_works(buffer, 256);
    TEST_OK(kiln_buffer_release(buffer)); /* the last holder frees it */
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_context_release(context));
}

/* A stream a buffer used asynchronously: the pool records an event on it
 * when the buffer goes, so the stream must outlive the caller's
 * references, and a release beyond them is refused. */
static void second_release_of_a_stream_the_pool_holds_is_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    kiln_buffer *buffer = test_buffer(context, 1024 * sizeof(float));
    float data[1024];
    test_random_floats(data, 1024, -1, 1);
    TEST_OK(kiln_buffer_write_async(buffer, 0, data, sizeof data, stream));
    TEST_OK(kiln_stream_synchronize(stream));
    TEST_OK(kiln_stream_release(stream));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_stream_release(stream));
    TEST_ERROR_MENTIONS("kiln_stream_release");
    TEST_OK(kiln_buffer_release(buffer)); /* records on the stream */
    /* The block comes back from the pool after the stream's work. */
    kiln_buffer *again = test_buffer(context, 1024 * sizeof(float));
    assert_buffer_works(again, 1024);
    TEST_OK(kiln_buffer_release(again));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_stream_release(stream));
}

/* A program released twice while a kernel holds it: refused, and the
 * kernel still launches and computes the right result. */
static void second_release_of_a_held_program_is_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, axpy_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "axpy");
    TEST_OK(kiln_program_release(program));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_program_release(program));
    TEST_ERROR_MENTIONS("kiln_program_release");
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_program_release(program));
    enum { N = 512 };
    float y[N], x[N], expected[N];
    test_random_floats(y, N, -10, 10);
    test_random_floats(x, N, -10, 10);
    float a = test_random_float(0.5f, 2.0f);
    for (size_t i = 0; i < N; ++i)
        expected[i] = y[i] + a * x[i];
    kiln_launch_config config = test_config_1d(N, 64);
    TEST_OK(kiln_launch_prepared(kernel, &config, "=<f", y, sizeof y, x,
                                 sizeof x, (double)a));
    test_assert_floats_near(y, expected, N, 1e-5);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_kernel_release(kernel));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_program_release(program));
}

/* ---- program files -------------------------------------------------------------- */

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    if (file == NULL)
        fail_msg("cannot create %s: %s", path, strerror(errno));
    fputs(text, file);
    if (fclose(file) != 0)
        fail_msg("cannot write %s: %s", path, strerror(errno));
}

/* Builds `program`, runs its kernel 'k' on one int and returns it. */
static int32_t run_single_int(kiln_context *context, kiln_program *program)
{
    kiln_kernel *kernel = test_kernel(program, "k");
    kiln_buffer *out = test_buffer(context, sizeof(int32_t));
    kiln_launch_config config = test_config_1d(1, 1);
    TEST_OK(kiln_launch(kernel, &config, 1,
                        (kiln_arg[]){KILN_ARG_BUFFER(out)}));
    int32_t value = 0;
    TEST_OK(kiln_buffer_read(out, 0, &value, sizeof value));
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    return value;
}

/* A file name with a newline (and a quote, a backslash, a tab) goes into
 * the #line markers escaped: the program builds and its header counts. */
static void file_name_with_a_newline_builds(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096], path[4400], header[4400], text[256];
    fresh_dir(dir, sizeof dir, "newline");
    snprintf(path, sizeof path, "%s/two\nlines \"q\" \\ \t.cl", dir);
    snprintf(header, sizeof header, "%s/value.h", dir);
    int32_t expected = (int32_t)(test_random_u64() % 100000) + 1;
    snprintf(text, sizeof text, "#define VALUE %d\n", (int)expected);
    write_text(header, text);
    write_text(path, "#include \"value.h\"\n"
                     "__kernel void k(__global int *o) { o[0] = VALUE; }\n");
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_file(context, path, NULL, &program));
    assert_int_equal(run_single_int(context, program), expected);
    TEST_OK(kiln_program_release(program));
    /* The same name given as source_name, the header from include_dirs. */
    const char *dirs[] = {dir};
    kiln_build_options options = {.include_dirs = dirs,
                                  .include_dir_count = 1,
                                  .source_name = "in\nmemory.cl"};
    static const char source[] =
        "#include \"value.h\"\n"
        "__kernel void k(__global int *o) { o[0] = VALUE + 1; }\n";
    TEST_OK(kiln_program_build_with(context, source, 0, &options, &program));
    assert_int_equal(run_single_int(context, program), expected + 1);
    TEST_OK(kiln_program_release(program));
}

/* Only regular files are read: a device (#include "/dev/zero", read
 * forever until the size limit) or a FIFO (open waits for a writer) is
 * refused at once, naming it. */
static void only_regular_files_are_read(void **state)
{
    kiln_context *context = test_context(state);
    char dir[4096], fifo[4400];
    fresh_dir(dir, sizeof dir, "special");
    snprintf(fifo, sizeof fifo, "%s/pipe.cl", dir);
    if (mkfifo(fifo, 0600) != 0)
        fail_msg("mkfifo %s: %s", fifo, strerror(errno));
    kiln_program *program = NULL;
    hang_guard_start();
    TEST_FAILS(KILN_ERR_IO,
               kiln_program_build_file(context, fifo, NULL, &program));
    TEST_ERROR_MENTIONS("not a regular file");
    TEST_ERROR_MENTIONS("pipe.cl");
    TEST_FAILS(KILN_ERR_IO, kiln_program_build_file(context, "/dev/zero",
                                                    NULL, &program));
    TEST_ERROR_MENTIONS("not a regular file");
    static const char *const sources[] = {
        "#include \"/dev/zero\"\n__kernel void k(__global int *o) {}\n",
        "#include \"pipe.cl\"\n__kernel void k(__global int *o) {}\n",
    };
    const char *dirs[] = {dir};
    kiln_build_options options = {.include_dirs = dirs,
                                  .include_dir_count = 1};
    for (size_t i = 0; i < 2; ++i) {
        kiln_status status = kiln_program_build_with(context, sources[i], 0,
                                                     &options, &program);
        if (status != KILN_ERR_IO && status != KILN_ERR_BUILD)
            fail_msg("%s-> %s (%s); expected the include refused", sources[i],
                     kiln_status_name(status), kiln_last_error());
        TEST_ERROR_MENTIONS("not a regular file");
    }
    hang_guard_stop();
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(fifo_at_an_entry_path_is_a_miss),
        KILN_TEST(relative_cache_directory_is_refused),
        KILN_TEST(directory_where_nothing_can_be_stored_is_not_enabled),
        KILN_TEST(prepared_type_string_longer_than_the_kernel),
        KILN_TEST(prepared_tab_is_reported_as_a_tab),
        KILN_TEST(huge_argument_values_are_refused),
        KILN_TEST(grid_whose_size_overflows_is_refused),
        KILN_TEST(host_array_larger_than_any_allocation_is_named),
        KILN_TEST(second_release_of_a_held_context_is_refused),
        KILN_TEST(second_release_of_a_stream_the_pool_holds_is_refused),
        KILN_TEST(second_release_of_a_held_program_is_refused),
        KILN_TEST(file_name_with_a_newline_builds),
        KILN_TEST(only_regular_files_are_read),
    };
    return kiln_test_main("hostile", tests, sizeof tests / sizeof tests[0]);
}
