/*
 * The test harness (see harness.h).
 */
#include "config.h" /* _GNU_SOURCE: nftw under -std=c11 */

#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct backend_fixture {
    const char *name;
    kiln_context *context; /* per test: created in setup */
} backend_fixture;

static const char *const backend_names[] = {"opencl", "cuda"};
#define BACKEND_COUNT (sizeof backend_names / sizeof backend_names[0])

static backend_fixture fixtures[BACKEND_COUNT];
static uint64_t random_state;

/* ---- random numbers: splitmix64 ------------------------------------------- */

uint64_t test_random_u64(void)
{
    uint64_t z = (random_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float test_random_float(float low, float high)
{
    double unit = (double)(test_random_u64() >> 11) / 9007199254740992.0;
    return (float)(low + (high - low) * unit);
}

void test_random_floats(float *out, size_t count, float low, float high)
{
    for (size_t i = 0; i < count; ++i)
        out[i] = test_random_float(low, high);
}

void test_random_doubles(double *out, size_t count, double low, double high)
{
    for (size_t i = 0; i < count; ++i) {
        double unit = (double)(test_random_u64() >> 11) / 9007199254740992.0;
        out[i] = low + (high - low) * unit;
    }
}

void test_random_ints(int32_t *out, size_t count, int32_t low, int32_t high)
{
    uint64_t span = (uint64_t)((int64_t)high - (int64_t)low) + 1;
    for (size_t i = 0; i < count; ++i)
        out[i] = (int32_t)((int64_t)low + (int64_t)(test_random_u64() % span));
}

void test_random_bytes(void *out, size_t count)
{
    unsigned char *bytes = out;
    for (size_t i = 0; i < count; ++i)
        bytes[i] = (unsigned char)(test_random_u64() >> 56);
}

static void seed_random(void)
{
    const char *text = getenv("KILN_TEST_SEED");
    uint64_t seed = text ? strtoull(text, NULL, 0)
                         : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    random_state = seed;
    printf("# random seed %llu (set KILN_TEST_SEED to replay)\n",
           (unsigned long long)seed);
}

/* ---- comparisons ------------------------------------------------------------ */

void test_assert_floats_near(const float *actual, const float *expected,
                             size_t count, double tolerance)
{
    for (size_t i = 0; i < count; ++i) {
        double scale = fabs((double)expected[i]) > 1 ? fabs(expected[i]) : 1;
        if (!(fabs((double)actual[i] - (double)expected[i]) <=
              tolerance * scale))
            fail_msg("element %zu: got %.9g, expected %.9g (tolerance %g)", i,
                     (double)actual[i], (double)expected[i], tolerance);
    }
}

void test_assert_doubles_near(const double *actual, const double *expected,
                              size_t count, double tolerance)
{
    for (size_t i = 0; i < count; ++i) {
        double scale = fabs(expected[i]) > 1 ? fabs(expected[i]) : 1;
        if (!(fabs(actual[i] - expected[i]) <= tolerance * scale))
            fail_msg("element %zu: got %.17g, expected %.17g (tolerance %g)",
                     i, actual[i], expected[i], tolerance);
    }
}

/* ---- helpers ------------------------------------------------------------------ */

void *test_alloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        fail_msg("out of host memory (%zu bytes)", size);
    return p;
}

static kiln_program *build(kiln_context *context, const char *source,
                           const char *options, kiln_language language)
{
    kiln_build_options build_options = {.language = language,
                                        .options = options};
    kiln_program *program = NULL;
    kiln_status status =
        kiln_program_build_with(context, source, 0, &build_options, &program);
    if (status != KILN_OK)
        fail_msg("build failed: %s: %s", kiln_status_name(status),
                 kiln_last_error());
    return program;
}

kiln_program *test_build(kiln_context *context, const char *source,
                         const char *options)
{
    return build(context, source, options, KILN_LANGUAGE_OPENCL_C);
}

kiln_program *test_build_cuda(kiln_context *context, const char *source,
                              const char *options)
{
    return build(context, source, options, KILN_LANGUAGE_CUDA_C);
}

void test_expect_refused(kiln_context *context, const char *source,
                         const char *mentions, const char *line, size_t which)
{
    kiln_build_options options = {.language = KILN_LANGUAGE_CUDA_C,
                                  .source_name = "refused.cu"};
    kiln_program *program = NULL;
    kiln_status status =
        kiln_program_build_with(context, source, 0, &options, &program);
    if (status == KILN_OK)
        kiln_program_release(program);
    if (status != KILN_ERR_TRANSLATION)
        fail_msg("case %zu: %s, expected KILN_ERR_TRANSLATION (%s)", which,
                 kiln_status_name(status), kiln_last_error());
    if (strstr(kiln_last_error(), mentions) == NULL ||
        strstr(kiln_last_error(), line) == NULL)
        fail_msg("case %zu: the error does not name '%s' at '%s': %s", which,
                 mentions, line, kiln_last_error());
}

kiln_kernel *test_kernel(kiln_program *program, const char *name)
{
    kiln_kernel *kernel = NULL;
    TEST_OK(kiln_kernel_create(program, name, &kernel));
    return kernel;
}

kiln_buffer *test_buffer(kiln_context *context, size_t size)
{
    kiln_buffer *buffer = NULL;
    TEST_OK(kiln_buffer_create(context, size, &buffer));
    return buffer;
}

kiln_buffer *test_buffer_from(kiln_context *context, const void *host,
                              size_t size)
{
    kiln_buffer *buffer = NULL;
    TEST_OK(kiln_buffer_create_from(context, host, size, &buffer));
    return buffer;
}

size_t test_blocks(size_t n, size_t block)
{
    return (n + block - 1) / block;
}

kiln_launch_config test_config_1d(size_t n, size_t block)
{
    kiln_launch_config config = {
        .grid = KILN_DIM1(test_blocks(n, block)),
        .block = KILN_DIM1(block),
    };
    return config;
}

void test_read(kiln_buffer *buffer, void *host, size_t size)
{
    TEST_OK(kiln_buffer_read(buffer, 0, host, size));
}

/* ---- objects that live until the test ends ------------------------------------ */

typedef enum temp_kind { TEMP_PROGRAM, TEMP_KERNEL, TEMP_BUFFER, TEMP_MEMORY } temp_kind;

typedef struct temp_object {
    temp_kind kind;
    void *object;
} temp_object;

/* What the running test took with test_temp_*; one test runs at a time. */
static temp_object *temps;
static size_t temp_count, temp_capacity;

static void *temp_keep(temp_kind kind, void *object)
{
    if (temp_count == temp_capacity) {
        size_t capacity = temp_capacity ? 2 * temp_capacity : 32;
        temp_object *grown = realloc(temps, capacity * sizeof *grown);
        if (grown == NULL)
            fail_msg("out of host memory");
        temps = grown;
        temp_capacity = capacity;
    }
    temps[temp_count++] = (temp_object){kind, object};
    return object;
}

/* Newest first, so a kernel goes before its program. */
static void temps_release(void)
{
    while (temp_count > 0) {
        temp_object *temp = &temps[--temp_count];
        switch (temp->kind) {
        case TEMP_PROGRAM:
            kiln_program_release(temp->object);
            break;
        case TEMP_KERNEL:
            kiln_kernel_release(temp->object);
            break;
        case TEMP_BUFFER:
            kiln_buffer_release(temp->object);
            break;
        case TEMP_MEMORY:
            free(temp->object);
            break;
        }
    }
    free(temps);
    temps = NULL;
    temp_capacity = 0;
}

kiln_program *test_temp_program_file(kiln_context *context,
                                     const char *path_in_srcdir,
                                     kiln_language language)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", test_srcdir(), path_in_srcdir);
    kiln_build_options options = {.language = language};
    kiln_program *program = NULL;
    TEST_OK(kiln_program_build_file(context, path, &options, &program));
    return temp_keep(TEMP_PROGRAM, program);
}

kiln_kernel *test_temp_kernel(kiln_program *program, const char *name)
{
    return temp_keep(TEMP_KERNEL, test_kernel(program, name));
}

kiln_buffer *test_temp_buffer(kiln_context *context, size_t size)
{
    return temp_keep(TEMP_BUFFER, test_buffer(context, size));
}

kiln_buffer *test_temp_buffer_from(kiln_context *context, const void *host,
                                   size_t size)
{
    return temp_keep(TEMP_BUFFER, test_buffer_from(context, host, size));
}

void *test_temp_alloc(size_t size)
{
    return temp_keep(TEMP_MEMORY, test_alloc(size));
}

const char *test_srcdir(void)
{
    const char *dir = getenv("KILN_TEST_SRCDIR");
    return dir && dir[0] ? dir : ".";
}

const char *test_builddir(void)
{
    const char *dir = getenv("KILN_TEST_BUILDDIR");
    return dir && dir[0] ? dir : ".";
}

static char scratch_path[4096 + 32];
static char scratch_parent[4096];
static pid_t scratch_owner;

/* Tests make directories read-only; a pass before the removal lets every
 * one of them be emptied. */
static int scratch_open_up(const char *path, const struct stat *info,
                           int type, struct FTW *where)
{
    (void)info;
    (void)where;
    if (type == FTW_D || type == FTW_DNR)
        chmod(path, 0700);
    return 0;
}

static int scratch_remove(const char *path, const struct stat *info,
                          int type, struct FTW *where)
{
    (void)info;
    (void)where;
    if (type == FTW_DP || type == FTW_D || type == FTW_DNR)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

/* At exit: the program's scratch directory goes, and tests/scratch with it
 * when no other test program is using it.  Only in the process that made
 * it: a test's forked children exit too. */
static void scratch_cleanup(void)
{
    if (scratch_path[0] == '\0' || getpid() != scratch_owner)
        return;
    nftw(scratch_path, scratch_open_up, 16, FTW_PHYS);
    nftw(scratch_path, scratch_remove, 16, FTW_PHYS | FTW_DEPTH);
    rmdir(scratch_parent);
}

/* The scratch directories of test programs that ended without their
 * exit handler (interrupted, killed by a timeout, crashed): named by a
 * pid no process has now.  Left there, they piled up, and a later run
 * could read their files (a scratch .cl, an #include the compiler finds
 * in the current directory's tree).  A live program's is never touched. */
static void scratch_sweep(void)
{
    char parent[4096];
    snprintf(parent, sizeof parent, "%s/tests/scratch", test_builddir());
    DIR *dir = opendir(parent);
    if (dir == NULL)
        return;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        char *end = NULL;
        errno = 0;
        long pid = strtol(entry->d_name, &end, 10);
        if (entry->d_name[0] == '\0' || *end != '\0' || errno != 0 ||
            pid <= 0 || pid == (long)getpid())
            continue;
        if (pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
            continue; /* alive, or not ours to ask about */
        char path[4096 + 256];
        snprintf(path, sizeof path, "%s/%s", parent, entry->d_name);
        nftw(path, scratch_open_up, 16, FTW_PHYS);
        nftw(path, scratch_remove, 16, FTW_PHYS | FTW_DEPTH);
    }
    closedir(dir);
}

const char *test_scratch_dir(void)
{
    if (scratch_path[0] == '\0') {
        snprintf(scratch_parent, sizeof scratch_parent, "%s/tests/scratch",
                 test_builddir());
        mkdir(scratch_parent, 0700);
        snprintf(scratch_path, sizeof scratch_path, "%s/%ld", scratch_parent,
                 (long)getpid());
        if (mkdir(scratch_path, 0700) != 0 && errno != EEXIST)
            fail_msg("cannot create %s: %s", scratch_path, strerror(errno));
        scratch_owner = getpid();
        atexit(scratch_cleanup);
    }
    return scratch_path;
}

/* ---- fixtures ----------------------------------------------------------------- */

static bool backend_selected(const char *name)
{
    const char *wanted = getenv("KILN_BACKEND");
    return wanted == NULL || wanted[0] == '\0' || strcmp(wanted, name) == 0;
}

static bool backend_required(const char *name)
{
    const char *required = getenv("KILN_TEST_REQUIRE");
    if (required == NULL)
        return false;
    size_t length = strlen(name);
    for (const char *p = required; (p = strstr(p, name)) != NULL; p += length)
        if ((p == required || p[-1] == ',' || p[-1] == ' ') &&
            (p[length] == '\0' || p[length] == ',' || p[length] == ' '))
            return true;
    return false;
}

static int fixture_setup(void **state)
{
    backend_fixture *fixture = *state;
    fixture->context = NULL;
    if (!backend_selected(fixture->name))
        return 0;
    if (kiln_context_create(fixture->name, -1, &fixture->context) != KILN_OK)
        fixture->context = NULL;
    return 0;
}

static int fixture_teardown(void **state)
{
    backend_fixture *fixture = *state;
    temps_release();
    if (fixture->context != NULL)
        kiln_context_release(fixture->context);
    fixture->context = NULL;
    return 0;
}

/* Under make check (KILN_TEST_BUILDDIR set, KILN_PLUGIN_PATH not), the
 * plugin a test uses must be the one of the tree being tested, never an
 * installed one. */
static void check_plugin_file(const char *backend)
{
    const char *builddir = getenv("KILN_TEST_BUILDDIR");
    const char *plugin_path = getenv("KILN_PLUGIN_PATH");
    if (builddir == NULL || builddir[0] == '\0' ||
        (plugin_path != NULL && plugin_path[0] != '\0'))
        return;
    kiln_backend_info info;
    if (kiln_backend_find(backend, &info) != KILN_OK)
        fail_msg("kiln_backend_find(%s): %s", backend, kiln_last_error());
    char expected[4096];
    snprintf(expected, sizeof expected, "%s/backends/%s/.libs/kiln-%s.so",
             builddir, backend, backend);
    if (strcmp(info.path, expected) != 0)
        fail_msg("the %s plugin loaded is %s, not the build tree's %s",
                 backend, info.path, expected);
}

kiln_context *test_context(void **state)
{
    backend_fixture *fixture = *state;
    if (fixture->context != NULL) {
        check_plugin_file(fixture->name);
        return fixture->context;
    }
    if (!backend_selected(fixture->name)) {
        printf("# %s: not selected by KILN_BACKEND\n", fixture->name);
        skip();
    }
    /* Find out why, for the log. */
    kiln_context *context = NULL;
    kiln_status status = kiln_context_create(fixture->name, -1, &context);
    if (status == KILN_OK) {
        fixture->context = context;
        check_plugin_file(fixture->name);
        return context;
    }
    if (backend_required(fixture->name))
        fail_msg("%s is required (KILN_TEST_REQUIRE) but unavailable: %s: %s",
                 fixture->name, kiln_status_name(status), kiln_last_error());
    char reason[400];
    snprintf(reason, sizeof reason, "%s", kiln_last_error());
    for (char *p = reason; *p; ++p)
        if (*p == '\n')
            *p = ' ';
    printf("# %s unavailable: %s\n", fixture->name, reason);
    skip();
    return NULL;
}

const char *test_backend(void **state)
{
    const backend_fixture *fixture = *state;
    return fixture->name;
}

bool test_on_nvidia_opencl(void **state)
{
    kiln_device_info device;
    return strcmp(test_backend(state), "opencl") == 0 &&
           kiln_context_get_device_info(test_context(state), &device) == KILN_OK &&
           strstr(device.platform, "NVIDIA") != NULL;
}

static int harness_run(const char *suite, struct CMUnitTest *tests, size_t count)
{
    cmocka_set_message_output(CM_OUTPUT_TAP);
    seed_random();
    scratch_sweep();
    int failures = _cmocka_run_group_tests(suite, tests, count, NULL, NULL);
    return failures == 0 ? 0 : 1;
}

int kiln_test_main(const char *suite, const kiln_test *tests, size_t count)
{
    size_t total = count * BACKEND_COUNT;
    struct CMUnitTest *cases = calloc(total, sizeof *cases);
    char **names = calloc(total, sizeof *names);
    if (cases == NULL || names == NULL)
        return 99;
    size_t n = 0;
    for (size_t b = 0; b < BACKEND_COUNT; ++b) {
        fixtures[b].name = backend_names[b];
        for (size_t t = 0; t < count; ++t, ++n) {
            size_t length = strlen(backend_names[b]) + strlen(tests[t].name) + 3;
            names[n] = malloc(length);
            if (names[n] == NULL)
                return 99;
            snprintf(names[n], length, "%s: %s", backend_names[b],
                     tests[t].name);
            cases[n].name = names[n];
            cases[n].test_func = tests[t].function;
            cases[n].setup_func = fixture_setup;
            cases[n].teardown_func = fixture_teardown;
            cases[n].initial_state = &fixtures[b];
        }
    }
    int result = harness_run(suite, cases, total);
    for (size_t i = 0; i < total; ++i)
        free(names[i]);
    free(names);
    free(cases);
    return result;
}

static int plain_teardown(void **state)
{
    (void)state;
    temps_release();
    return 0;
}

int kiln_test_main_plain(const char *suite, const kiln_test *tests,
                         size_t count)
{
    struct CMUnitTest *cases = calloc(count ? count : 1, sizeof *cases);
    if (cases == NULL)
        return 99;
    for (size_t t = 0; t < count; ++t) {
        cases[t].name = tests[t].name;
        cases[t].test_func = tests[t].function;
        cases[t].teardown_func = plain_teardown;
    }
    int result = harness_run(suite, cases, count);
    free(cases);
    return result;
}
