/*
 * The plugin loader and the environment: each case runs tests/kiln-probe
 * in a child process with a chosen environment (the registry loads each
 * backend once per process) and checks the status and the message.
 */
#include "harness.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct probe_result {
    char status[64];
    char backend[32];
    char message[8192];
    char errors[16384]; /* the child's stderr */
} probe_result;

static void read_all(int fd, char *out, size_t size)
{
    size_t length = 0;
    ssize_t got;
    while ((got = read(fd, out + length, size - 1 - length)) > 0) {
        length += (size_t)got;
        if (length == size - 1) {
            char discard[4096];
            while (read(fd, discard, sizeof discard) > 0) {
            }
            break;
        }
    }
    out[length] = '\0';
}

static void field(const char *output, const char *name, char *out,
                  size_t size)
{
    out[0] = '\0';
    size_t name_length = strlen(name);
    for (const char *line = output; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        if (length > name_length && strncmp(line, name, name_length) == 0 &&
            line[name_length] == '=') {
            size_t value = length - name_length - 1;
            if (value >= size)
                value = size - 1;
            memcpy(out, line + name_length + 1, value);
            out[value] = '\0';
            return;
        }
        line = end ? end + 1 : NULL;
    }
}

/* Runs the probe with the parent's environment minus every KILN_*
 * variable, plus `settings` (NULL-terminated "NAME=value" strings). */
static probe_result run_probe(const char *backend, const char *const *settings)
{
    char **environment = test_alloc(1024 * sizeof *environment);
    size_t n = 0;
    for (char **e = environ; *e && n < 1000; ++e)
        if (strncmp(*e, "KILN_", 5) != 0 ||
            strncmp(*e, "KILN_TEST_", 10) == 0 ||
            strncmp(*e, "KILN_CACHE_DIR=", 15) == 0)
            environment[n++] = *e;
    for (const char *const *s = settings; s && *s && n < 1020; ++s)
        environment[n++] = (char *)*s;
    environment[n] = NULL;

    char probe[4096];
    snprintf(probe, sizeof probe, "%s/tests/kiln-probe", test_builddir());
    char *argv[] = {probe, (char *)backend, NULL};
    if (backend == NULL)
        argv[1] = NULL;

    int out_pipe[2], err_pipe[2];
    assert_int_equal(pipe(out_pipe), 0);
    assert_int_equal(pipe(err_pipe), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
    pid_t pid;
    int spawned = posix_spawn(&pid, probe, &actions, NULL, argv, environment);
    posix_spawn_file_actions_destroy(&actions);
    close(out_pipe[1]);
    close(err_pipe[1]);
    free(environment);
    if (spawned != 0)
        fail_msg("cannot run %s: %s", probe, strerror(spawned));

    static char output[16384];
    probe_result result;
    /* Read stdout fully, then stderr: the probe writes little to either. */
    read_all(out_pipe[0], output, sizeof output);
    read_all(err_pipe[0], result.errors, sizeof result.errors);
    close(out_pipe[0]);
    close(err_pipe[0]);
    int wait_status;
    waitpid(pid, &wait_status, 0);
    if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0)
        fail_msg("kiln-probe did not exit cleanly (status 0x%x): %s",
                 wait_status, result.errors);
    field(output, "status", result.status, sizeof result.status);
    field(output, "backend", result.backend, sizeof result.backend);
    field(output, "message", result.message, sizeof result.message);
    /* cmocka's print buffer is short: a longer line loses its newline and
     * swallows the next TAP line. */
    print_message("# probe: %s %s: %.600s%s\n", result.status,
                  result.backend, result.message,
                  strlen(result.message) > 600 ? "..." : "");
    return result;
}

static void expect(const probe_result *result, const char *status,
                   const char *mention)
{
    if (strcmp(result->status, status) != 0)
        fail_msg("status %s, expected %s (%s)", result->status, status,
                 result->message);
    if (mention != NULL && strstr(result->message, mention) == NULL)
        fail_msg("the message does not mention '%s': %s", mention,
                 result->message);
}

static const char *plugin_dir(const char *variant)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/tests/plugins/%s/.libs", test_builddir(),
             variant);
    return path;
}

static char *setting(const char *name, const char *value)
{
    static char storage[8][4200];
    static int next;
    char *slot = storage[next++ % 8];
    snprintf(slot, sizeof storage[0], "%s=%s", name, value);
    return slot;
}

static void unknown_backend_lists_the_known_ones(void **state)
{
    (void)state;
    const char *settings[] = {"KILN_BACKEND=vulkan", NULL};
    probe_result result = run_probe(NULL, settings);
    expect(&result, "KILN_ERR_BACKEND_UNKNOWN", "vulkan");
    expect(&result, "KILN_ERR_BACKEND_UNKNOWN", "cuda, opencl");
    result = run_probe("metal", NULL);
    expect(&result, "KILN_ERR_BACKEND_UNKNOWN", "known backends: cuda, opencl");
}

static void wrong_abi_plugin_is_refused(void **state)
{
    (void)state;
    const char *settings[] = {"KILN_BACKEND=opencl",
                              setting("KILN_PLUGIN_PATH", plugin_dir("abi")),
                              NULL};
    probe_result result = run_probe(NULL, settings);
    expect(&result, "KILN_ERR_BACKEND_ABI", "ABI 99.0");
    expect(&result, "KILN_ERR_BACKEND_ABI", plugin_dir("abi"));
}

static void plugin_returning_null_is_refused(void **state)
{
    (void)state;
    const char *settings[] = {setting("KILN_PLUGIN_PATH", plugin_dir("null")),
                              NULL};
    probe_result result = run_probe("opencl", settings);
    expect(&result, "KILN_ERR_BACKEND_LOAD", "returned NULL");
}

static void plugin_without_entry_point_is_refused(void **state)
{
    (void)state;
    const char *settings[] = {
        setting("KILN_PLUGIN_PATH", plugin_dir("nosymbol")), NULL};
    probe_result result = run_probe("opencl", settings);
    expect(&result, "KILN_ERR_BACKEND_LOAD", "no symbol kiln_backend_entry");
}

static void unavailable_driver_reason_is_passed_on(void **state)
{
    (void)state;
    const char *settings[] = {
        setting("KILN_PLUGIN_PATH", plugin_dir("unavailable")), NULL};
    probe_result result = run_probe("opencl", settings);
    expect(&result, "KILN_ERR_BACKEND_UNAVAILABLE", "fake driver: no device");
}

/* A table of the major's first minor (every op of ABI 3.0, the smallest
 * table: a later minor only appends) loads: the core gets as far as its
 * initialize.  A shorter table does not. */
static void first_minor_abi_plugin_is_accepted(void **state)
{
    (void)state;
    const char *settings[] = {
        setting("KILN_PLUGIN_PATH", plugin_dir("abi30")), NULL};
    probe_result result = run_probe("opencl", settings);
    expect(&result, "KILN_ERR_BACKEND_UNAVAILABLE", "fake driver: no device");
    const char *short_settings[] = {
        setting("KILN_PLUGIN_PATH", plugin_dir("short")), NULL};
    result = run_probe("opencl", short_settings);
    expect(&result, "KILN_ERR_BACKEND_ABI", "needs at least");
}

static void non_elf_plugin_gives_the_loader_error(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/notelf", test_scratch_dir());
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/kiln-opencl.so", dir);
    FILE *file = fopen(path, "w");
    assert_non_null(file);
    fputs("this is not a shared object\n", file);
    fclose(file);
    const char *settings[] = {setting("KILN_PLUGIN_PATH", dir),
                              "KILN_PLUGIN_SYSTEM_PATH=", NULL};
    probe_result result = run_probe("opencl", settings);
    expect(&result, "KILN_ERR_BACKEND_LOAD", path);
    /* dlerror's own text, not a generic "file not found". */
    if (strstr(result.message, "invalid ELF header") == NULL &&
        strstr(result.message, "file too short") == NULL)
        fail_msg("no dlopen reason in: %s", result.message);
}

static void missing_plugin_names_every_place_searched(void **state)
{
    (void)state;
    char empty[4096];
    snprintf(empty, sizeof empty, "%s/empty", test_scratch_dir());
    mkdir(empty, 0700);
    const char *settings[] = {"KILN_BACKEND=cuda",
                              setting("KILN_PLUGIN_PATH", empty),
                              "KILN_PLUGIN_SYSTEM_PATH=/nonexistent/kiln", NULL};
    probe_result result = run_probe(NULL, settings);
    expect(&result, "KILN_ERR_BACKEND_NOT_FOUND", "kiln-cuda.so not found");
    expect(&result, "KILN_ERR_BACKEND_NOT_FOUND", empty);
    expect(&result, "KILN_ERR_BACKEND_NOT_FOUND", "/nonexistent/kiln");
}

/* Entries of KILN_PLUGIN_PATH that are not used (relative ones) are named
 * in the error, not dropped silently; long entries and many entries are
 * all searched and named. */
static void ignored_plugin_path_entries_are_reported(void **state)
{
    (void)state;
    static char path[40000]; /* "KILN_PLUGIN_PATH=...": too long for setting() */
    size_t used = (size_t)snprintf(path, sizeof path,
                                   "KILN_PLUGIN_PATH=relative/plugins:./here:"
                                   "/nonexistent/a");
    /* 40 more entries, the last one over 4096 characters. */
    for (int i = 0; i < 40; ++i)
        used += (size_t)snprintf(path + used, sizeof path - used,
                                 ":/nonexistent/entry%d", i);
    used += (size_t)snprintf(path + used, sizeof path - used, ":/");
    for (int i = 0; i < 4200 && used + 2 < sizeof path; ++i)
        path[used++] = 'x';
    path[used] = '\0';
    const char *settings[] = {"KILN_BACKEND=cuda", path,
                              "KILN_PLUGIN_SYSTEM_PATH=/nonexistent/kiln",
                              NULL};
    probe_result result = run_probe(NULL, settings);
    expect(&result, "KILN_ERR_BACKEND_NOT_FOUND", "kiln-cuda.so not found");
    expect(&result, "KILN_ERR_BACKEND_NOT_FOUND",
           "ignored 'relative/plugins' (KILN_PLUGIN_PATH: not an absolute "
           "directory)");
    expect(&result, "KILN_ERR_BACKEND_NOT_FOUND", "'./here'");
    expect(&result, "KILN_ERR_BACKEND_NOT_FOUND", "/nonexistent/entry39");
    expect(&result, "KILN_ERR_BACKEND_NOT_FOUND", "xxxxxxxxxxxxxxxx");
}

static void named_backend_never_falls_back(void **state)
{
    (void)state;
    /* cuda is asked for by name; whatever happens, opencl must not be
     * chosen instead. */
    const char *settings[] = {"KILN_BACKEND=cuda", NULL};
    probe_result result = run_probe(NULL, settings);
    assert_string_not_equal(result.backend, "opencl");
    if (strcmp(result.status, "KILN_OK") != 0) {
        assert_string_equal(result.backend, "-");
        assert_true(strlen(result.message) > 10);
        assert_non_null(strstr(result.message, "cuda"));
    }
}

static void device_index_is_checked(void **state)
{
    (void)state;
    const char *settings[] = {"KILN_DEVICE=4096", NULL};
    probe_result result = run_probe(NULL, settings);
    if (strcmp(result.status, "KILN_ERR_BACKEND_UNAVAILABLE") == 0)
        skip(); /* no backend at all here */
    expect(&result, "KILN_ERR_NO_DEVICE", "KILN_DEVICE=4096");
    const char *bad[] = {"KILN_DEVICE=first", NULL};
    result = run_probe(NULL, bad);
    expect(&result, "KILN_ERR_INVALID_ARGUMENT", "KILN_DEVICE='first'");
    const char *negative[] = {"KILN_DEVICE=-1", NULL};
    result = run_probe(NULL, negative);
    expect(&result, "KILN_ERR_INVALID_ARGUMENT", "KILN_DEVICE='-1'");
}

static void automatic_choice_picks_a_usable_backend(void **state)
{
    (void)state;
    probe_result result = run_probe(NULL, NULL);
    if (strcmp(result.status, "KILN_OK") != 0) {
        /* Nothing usable: the message must say why for each backend. */
        expect(&result, "KILN_ERR_BACKEND_UNAVAILABLE", "cuda:");
        expect(&result, "KILN_ERR_BACKEND_UNAVAILABLE", "opencl:");
        return;
    }
    assert_true(strcmp(result.backend, "cuda") == 0 ||
                strcmp(result.backend, "opencl") == 0);
}

static void debug_log_traces_the_search(void **state)
{
    (void)state;
    const char *settings[] = {"KILN_LOG=debug", "KILN_BACKEND=opencl", NULL};
    probe_result result = run_probe(NULL, settings);
    if (strstr(result.errors, "kiln: backend opencl: looking in") == NULL)
        fail_msg("no search trace on stderr: %s", result.errors);
    /* Without KILN_LOG the library is silent. */
    const char *quiet[] = {"KILN_BACKEND=opencl", NULL};
    result = run_probe(NULL, quiet);
    assert_string_equal(result.errors, "");
}

/* Reads the DT_NEEDED entries of an ELF64 shared object. */
static void elf_needed(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *data = test_alloc((size_t)length);
    assert_int_equal(fread(data, 1, (size_t)length, file), (size_t)length);
    fclose(file);
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)data;
    assert_memory_equal(header->e_ident, ELFMAG, SELFMAG);
    assert_int_equal(header->e_ident[EI_CLASS], ELFCLASS64);
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(data + header->e_shoff);
    for (int i = 0; i < header->e_shnum; ++i) {
        if (sections[i].sh_type != SHT_DYNAMIC)
            continue;
        const Elf64_Shdr *strings = &sections[sections[i].sh_link];
        const char *names = (const char *)(data + strings->sh_offset);
        const Elf64_Dyn *dynamic =
            (const Elf64_Dyn *)(data + sections[i].sh_offset);
        for (size_t d = 0; d < sections[i].sh_size / sizeof *dynamic; ++d) {
            if (dynamic[d].d_tag != DT_NEEDED)
                continue;
            size_t used = strlen(out);
            snprintf(out + used, size - used, "%s ",
                     names + dynamic[d].d_un.d_val);
        }
    }
    free(data);
}

static void core_links_neither_opencl_nor_cuda(void **state)
{
    (void)state;
    char path[4096], needed[4096];
    snprintf(path, sizeof path, "%s/.libs/libkiln.so", test_builddir());
    elf_needed(path, needed, sizeof needed);
    print_message("# libkiln.so needs: %s\n", needed);
    assert_null(strstr(needed, "OpenCL"));
    assert_null(strstr(needed, "libcuda"));
    assert_null(strstr(needed, "nvrtc"));
    assert_null(strstr(needed, "cudart"));
}

/* A libkiln running from its build tree loads that tree's plugins, before
 * any installed ones (issue 16: after a make install, make check tested
 * the installed plugins). */
static void build_tree_plugins_come_first(void **state)
{
    (void)state;
    static const char *const backends[] = {"opencl", "cuda"};
    int checked = 0;
    for (size_t i = 0; i < 2; ++i) {
        char plugin[4096], setting_text[64], loading[4200];
        snprintf(plugin, sizeof plugin, "%s/backends/%s/.libs/kiln-%s.so",
                 test_builddir(), backends[i], backends[i]);
        struct stat info;
        if (stat(plugin, &info) != 0)
            continue; /* that backend is not built here */
        snprintf(setting_text, sizeof setting_text, "KILN_BACKEND=%s",
                 backends[i]);
        const char *settings[] = {"KILN_LOG=debug", setting_text, NULL};
        probe_result result = run_probe(NULL, settings);
        snprintf(loading, sizeof loading, "kiln: backend %s: loading %s\n",
                 backends[i], plugin);
        if (strstr(result.errors, loading) == NULL)
            fail_msg("%s not loaded from the build tree: %s", backends[i],
                     result.errors);
        /* The build tree is searched before the installed directory. */
        char looking[4200];
        snprintf(looking, sizeof looking,
                 "kiln: backend %s: looking in %s/backends/%s/.libs (build "
                 "tree)\n",
                 backends[i], test_builddir(), backends[i]);
        const char *first = strstr(result.errors, "looking in");
        if (first == NULL || strstr(result.errors, looking) == NULL ||
            strstr(first, "(install dir)") != NULL)
            fail_msg("%s: the install dir was searched first or at all: %s",
                     backends[i], result.errors);
        ++checked;
    }
    if (checked == 0)
        skip();
}

/* The first kiln_backend_get_info (which loads every plugin and starts
 * the vendor libraries) on a thread with musl's default 128 KiB stack. */
static void loading_fits_a_small_stack(void **state)
{
    (void)state;
    /* AddressSanitizer's own thread bookkeeping fails on a thread this
     * small ("unable to unmap" when it exits): the plain build checks it. */
    if (getenv("KILN_TEST_SANITIZERS") != NULL)
        skip();
    const char *settings[] = {"KILN_TEST_PROBE_SMALL_STACK=1", NULL};
    probe_result result = run_probe(NULL, settings);
    if (strcmp(result.status, "small-stack-ok") != 0)
        fail_msg("kiln_backend_get_info on a 128 KiB stack: %s %s",
                 result.status, result.message);
}

static void backend_enumeration_describes_every_backend(void **state)
{
    (void)state;
    size_t count = 0;
    TEST_OK(kiln_backend_get_count(&count));
    assert_int_equal(count, 2);
    for (size_t i = 0; i < count; ++i) {
        kiln_backend_info info;
        TEST_OK(kiln_backend_get_info(i, &info));
        assert_non_null(info.name);
        if (info.status == KILN_OK) {
            assert_string_equal(info.reason, "");
            assert_true(info.path[0] != '\0');
        } else {
            assert_true(strlen(info.reason) > 10);
            assert_int_equal(info.device_count, 0);
        }
        kiln_backend_info by_name;
        TEST_OK(kiln_backend_find(info.name, &by_name));
        assert_string_equal(by_name.name, info.name);
        assert_int_equal(by_name.status, info.status);
    }
    kiln_backend_info info;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_backend_get_info(count, &info));
    TEST_FAILS(KILN_ERR_BACKEND_UNKNOWN, kiln_backend_find("directx", &info));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_backend_get_count(NULL));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_backend_find(NULL, &info));
    assert_string_equal(kiln_status_name(KILN_ERR_BUILD), "KILN_ERR_BUILD");
    assert_string_equal(kiln_status_name((kiln_status)9999),
                        "KILN_ERR_UNKNOWN_STATUS");
    assert_non_null(strstr(kiln_version(), "."));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(unknown_backend_lists_the_known_ones),
        KILN_TEST(wrong_abi_plugin_is_refused),
        KILN_TEST(plugin_returning_null_is_refused),
        KILN_TEST(plugin_without_entry_point_is_refused),
        KILN_TEST(unavailable_driver_reason_is_passed_on),
        KILN_TEST(first_minor_abi_plugin_is_accepted),
        KILN_TEST(non_elf_plugin_gives_the_loader_error),
        KILN_TEST(missing_plugin_names_every_place_searched),
        KILN_TEST(ignored_plugin_path_entries_are_reported),
        KILN_TEST(named_backend_never_falls_back),
        KILN_TEST(device_index_is_checked),
        KILN_TEST(automatic_choice_picks_a_usable_backend),
        KILN_TEST(debug_log_traces_the_search),
        KILN_TEST(core_links_neither_opencl_nor_cuda),
        KILN_TEST(build_tree_plugins_come_first),
        KILN_TEST(loading_fits_a_small_stack),
        KILN_TEST(backend_enumeration_describes_every_backend),
    };
    return kiln_test_main_plain("loader", tests, sizeof tests / sizeof *tests);
}
