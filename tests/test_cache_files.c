/*
 * The kernel cache's directory, without any backend: which directory is
 * chosen from KILN_CACHE_DIR, XDG_CACHE_HOME and HOME, its mode, the ones
 * refused (a file, writable by others, another user's), the KILN_CACHE and
 * KILN_CACHE_MAX_MB settings, what kiln_cache_get_info counts and what
 * kiln_cache_clear deletes.  Program builds against these directories are
 * in test_cache, on every backend.
 */
#include "config.h" /* _GNU_SOURCE: POSIX and GNU functions under -std=c11 */

#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static char *original_home;
static char *original_xdg;

static char *copy_env(const char *name)
{
    const char *value = getenv(name);
    return value ? strdup(value) : NULL;
}

static void restore_env(const char *name, const char *value)
{
    if (value != NULL)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* Every cache variable back to the default, HOME and XDG_CACHE_HOME as the
 * program found them, and a fresh path (not created) in `dir`. */
static void reset_environment(char *dir, size_t size, const char *label)
{
    static unsigned counter;
    unsetenv("KILN_CACHE");
    unsetenv("KILN_CACHE_MAX_MB");
    unsetenv("KILN_CACHE_DIR");
    restore_env("HOME", original_home);
    restore_env("XDG_CACHE_HOME", original_xdg);
    snprintf(dir, size, "%s/files-%s-%u", test_scratch_dir(), label, counter++);
}

static kiln_cache_info cache_info(void)
{
    kiln_cache_info info;
    memset(&info, 0x55, sizeof info);
    TEST_OK(kiln_cache_get_info(&info));
    return info;
}

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    if (file == NULL)
        fail_msg("cannot create %s: %s", path, strerror(errno));
    fputs(text, file);
    if (fclose(file) != 0)
        fail_msg("cannot write %s: %s", path, strerror(errno));
}

static unsigned mode_of(const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0)
        fail_msg("%s does not exist: %s", path, strerror(errno));
    return (unsigned)(info.st_mode & 07777);
}

static void assert_directory(const kiln_cache_info *info, const char *expected)
{
    if (!info->enabled)
        fail_msg("the cache is disabled; expected it in %s", expected);
    if (strcmp(info->directory, expected) != 0)
        fail_msg("the cache is in '%s', expected '%s'", info->directory,
                 expected);
}

static void assert_refused(const kiln_cache_info *info, const char *what)
{
    if (info->enabled || info->directory[0] != '\0' || info->entries != 0)
        fail_msg("%s: enabled %d, directory '%s', %llu entries; expected the "
                 "cache disabled",
                 what, info->enabled, info->directory,
                 (unsigned long long)info->entries);
}

/* ---- the directory chosen --------------------------------------------------------------- */

static void test_created_private_and_nested(void **state)
{
    (void)state;
    char dir[4096], nested[4200], with_slashes[4300];
    reset_environment(dir, sizeof dir, "nested");
    snprintf(nested, sizeof nested, "%s/a/b/c", dir);
    snprintf(with_slashes, sizeof with_slashes, "%s//", nested);
    setenv("KILN_CACHE_DIR", with_slashes, 1);
    kiln_cache_info info = cache_info();
    assert_directory(&info, nested);
    if (info.entries != 0 || info.bytes != 0)
        fail_msg("a new cache holds %llu entries",
                 (unsigned long long)info.entries);
    /* Every component Kiln created is private. */
    char component[4200];
    snprintf(component, sizeof component, "%s/a/b/c", dir);
    for (int depth = 0; depth < 4; ++depth) {
        unsigned mode = mode_of(component);
        if (mode != 0700)
            fail_msg("%s was created with mode %04o, expected 0700", component,
                     mode);
        *strrchr(component, '/') = '\0';
    }
    if (strcmp(component, test_scratch_dir()) != 0)
        fail_msg("walked up to %s", component);
}

static void test_created_private_under_permissive_umask(void **state)
{
    (void)state;
    char dir[4096];
    reset_environment(dir, sizeof dir, "umask");
    setenv("KILN_CACHE_DIR", dir, 1);
    mode_t old_mask = umask(0);
    kiln_cache_info info = cache_info();
    umask(old_mask);
    assert_directory(&info, dir);
    if (mode_of(dir) != 0700)
        fail_msg("with umask 0 the directory got mode %04o", mode_of(dir));
}

static void test_xdg_then_home(void **state)
{
    (void)state;
    char dir[4096], xdg[4200], home[4200], expected[4400];
    reset_environment(dir, sizeof dir, "xdg");
    snprintf(xdg, sizeof xdg, "%s/xdg", dir);
    snprintf(home, sizeof home, "%s/home", dir);
    mkdir(dir, 0700);

    setenv("XDG_CACHE_HOME", xdg, 1);
    setenv("HOME", home, 1);
    kiln_cache_info info = cache_info();
    snprintf(expected, sizeof expected, "%s/kiln", xdg);
    assert_directory(&info, expected);

    /* KILN_CACHE_DIR wins over both. */
    char chosen[4200];
    snprintf(chosen, sizeof chosen, "%s/chosen", dir);
    setenv("KILN_CACHE_DIR", chosen, 1);
    info = cache_info();
    assert_directory(&info, chosen);
    unsetenv("KILN_CACHE_DIR");

    /* A relative or empty XDG_CACHE_HOME is ignored, as the XDG
     * specification says: then HOME. */
    static const char *const ignored[] = {"relative/xdg", ""};
    snprintf(expected, sizeof expected, "%s/.cache/kiln", home);
    for (size_t i = 0; i < 2; ++i) {
        setenv("XDG_CACHE_HOME", ignored[i], 1);
        info = cache_info();
        assert_directory(&info, expected);
    }
    unsetenv("XDG_CACHE_HOME");
    info = cache_info();
    assert_directory(&info, expected);
    if (access("relative", F_OK) == 0 || access("relative/xdg", F_OK) == 0)
        fail_msg("a relative XDG_CACHE_HOME was created in the working "
                 "directory");
}

static void test_no_home_never_uses_root(void **state)
{
    (void)state;
    char dir[4096];
    /* Without HOME Kiln falls back to the password database's home and
     * creates its cache there: remove what this test created. */
    char fallback[3][4200] = {"", "", ""};
    bool existed[3] = {true, true, true};
    struct passwd *user = getpwuid(geteuid());
    if (user != NULL && user->pw_dir != NULL && user->pw_dir[0] == '/') {
        snprintf(fallback[0], sizeof fallback[0], "%s", user->pw_dir);
        snprintf(fallback[1], sizeof fallback[1], "%s/.cache", user->pw_dir);
        snprintf(fallback[2], sizeof fallback[2], "%s/.cache/kiln",
                 user->pw_dir);
        for (int i = 0; i < 3; ++i)
            existed[i] = access(fallback[i], F_OK) == 0;
    }
    static const char *const homes[] = {NULL, "", "/", "relative-home"};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; ++i) {
        reset_environment(dir, sizeof dir, "nohome");
        unsetenv("XDG_CACHE_HOME");
        restore_env("HOME", homes[i]);
        /* Creates the fallback directory in the user's real home when it
         * is missing: removed again just below. */
        kiln_cache_info info = cache_info();
        for (int c = 2; c >= 0; --c)
            if (!existed[c])
                rmdir(fallback[c]); /* only if still empty */
        if (!info.enabled)
            continue; /* no usable home at all: fine */
        if (info.directory[0] != '/' ||
            strncmp(info.directory, "/.cache", 7) == 0 ||
            strstr(info.directory, "relative-home") != NULL)
            fail_msg("HOME=%s: the cache directory is '%s'",
                     homes[i] ? homes[i] : "(unset)", info.directory);
    }
}

/* ---- directories refused ------------------------------------------------------------------ */

static void test_refused_directories(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    reset_environment(dir, sizeof dir, "refused");
    mkdir(dir, 0700);

    snprintf(path, sizeof path, "%s/a-file", dir);
    write_file(path, "x\n");
    setenv("KILN_CACHE_DIR", path, 1);
    kiln_cache_info info = cache_info();
    assert_refused(&info, "a regular file");

    snprintf(path, sizeof path, "%s/a-file/below", dir);
    setenv("KILN_CACHE_DIR", path, 1);
    info = cache_info();
    assert_refused(&info, "a path below a regular file");

    /* Writable by others or by the group: another user could plant
     * binaries that this user would then run. */
    static const unsigned refused_modes[] = {0777, 0770, 0702, 01777};
    for (size_t i = 0; i < sizeof refused_modes / sizeof refused_modes[0];
         ++i) {
        snprintf(path, sizeof path, "%s/mode-%o", dir, refused_modes[i]);
        mkdir(path, 0700);
        chmod(path, refused_modes[i]);
        setenv("KILN_CACHE_DIR", path, 1);
        info = cache_info();
        chmod(path, 0700);
        char what[64];
        snprintf(what, sizeof what, "a directory of mode %04o",
                 refused_modes[i]);
        assert_refused(&info, what);
    }
    /* Readable by others is not a risk. */
    snprintf(path, sizeof path, "%s/mode-755", dir);
    mkdir(path, 0700);
    chmod(path, 0755);
    setenv("KILN_CACHE_DIR", path, 1);
    info = cache_info();
    assert_directory(&info, path);

    /* Another user's directory (only root can make one). */
    if (geteuid() == 0) {
        snprintf(path, sizeof path, "%s/other-user", dir);
        mkdir(path, 0700);
        if (chown(path, 65534, 65534) != 0)
            fail_msg("chown: %s", strerror(errno));
        setenv("KILN_CACHE_DIR", path, 1);
        info = cache_info();
        if (chown(path, 0, 0) != 0)
            fail_msg("chown back: %s", strerror(errno));
        assert_refused(&info, "a directory owned by uid 65534");
    }
}

static void test_get_info_rejects_null(void **state)
{
    (void)state;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_cache_get_info(NULL));
}

/* ---- settings ---------------------------------------------------------------------------------- */

static void test_cache_switch(void **state)
{
    (void)state;
    char dir[4096];
    reset_environment(dir, sizeof dir, "switch");
    setenv("KILN_CACHE_DIR", dir, 1);
    static const struct {
        const char *value;
        int enabled;
    } cases[] = {{"0", 0},   {"off", 0}, {"no", 0},  {"false", 0},
                 {"1", 1},   {"on", 1},  {"yes", 1}, {"", 1},
                 {NULL, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        restore_env("KILN_CACHE", cases[i].value);
        kiln_cache_info info = cache_info();
        if (info.enabled != cases[i].enabled)
            fail_msg("KILN_CACHE=%s: enabled %d, expected %d",
                     cases[i].value ? cases[i].value : "(unset)", info.enabled,
                     cases[i].enabled);
        if (!info.enabled && info.directory[0] != '\0')
            fail_msg("KILN_CACHE=%s: disabled but directory '%s'",
                     cases[i].value, info.directory);
    }
}

static void test_size_limit_setting(void **state)
{
    (void)state;
    char dir[4096];
    reset_environment(dir, sizeof dir, "limit");
    setenv("KILN_CACHE_DIR", dir, 1);
    const uint64_t mib = (uint64_t)1 << 20;
    static const struct {
        const char *value;
        uint64_t megabytes;
    } cases[] = {
        {NULL, 1024}, {"", 1024},    {"1", 1},       {"4096", 4096},
        {"abc", 1024}, {"12abc", 1024}, {"-5", 1024}, {"99999999999999999999", 1024},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        restore_env("KILN_CACHE_MAX_MB", cases[i].value);
        kiln_cache_info info = cache_info();
        if (info.limit_bytes != cases[i].megabytes * mib)
            fail_msg("KILN_CACHE_MAX_MB=%s: limit %llu bytes, expected %llu",
                     cases[i].value ? cases[i].value : "(unset)",
                     (unsigned long long)info.limit_bytes,
                     (unsigned long long)(cases[i].megabytes * mib));
    }
    /* Disabled or not, the limit is reported. */
    setenv("KILN_CACHE", "0", 1);
    setenv("KILN_CACHE_MAX_MB", "7", 1);
    kiln_cache_info info = cache_info();
    if (info.limit_bytes != 7 * mib)
        fail_msg("a disabled cache reports a limit of %llu",
                 (unsigned long long)info.limit_bytes);
}

/* ---- what is counted and cleared -------------------------------------------------------------------------- */

static void set_age(const char *path, long seconds)
{
    struct timeval times[2];
    gettimeofday(&times[0], NULL);
    times[0].tv_sec -= seconds;
    times[1] = times[0];
    if (utimes(path, times) != 0)
        fail_msg("utimes %s: %s", path, strerror(errno));
}

static void test_counts_and_clears_only_entries(void **state)
{
    (void)state;
    char dir[4096], path[4300];
    reset_environment(dir, sizeof dir, "count");
    setenv("KILN_CACHE_DIR", dir, 1);
    kiln_cache_info info = cache_info(); /* creates it */
    assert_directory(&info, dir);

    /* Two entries (their content is not looked at by counting), a file
     * that is not an entry, a directory and a link named like entries, and
     * two temporary files: one a writer may still be renaming, one an hour
     * older than any write takes. */
    snprintf(path, sizeof path, "%s/0123.kbin", dir);
    write_file(path, "12345");
    snprintf(path, sizeof path, "%s/4567.kbin", dir);
    write_file(path, "1234567");
    snprintf(path, sizeof path, "%s/README", dir);
    write_file(path, "not an entry\n");
    snprintf(path, sizeof path, "%s/dir.kbin", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/link.kbin", dir);
    if (symlink("0123.kbin", path) != 0)
        fail_msg("symlink: %s", strerror(errno));
    snprintf(path, sizeof path, "%s/.tmp-fresh", dir);
    write_file(path, "being written");
    snprintf(path, sizeof path, "%s/.tmp-stale", dir);
    write_file(path, "left by a crash");
    set_age(path, 2 * 3600);

    info = cache_info();
    if (info.entries != 2 || info.bytes != 12)
        fail_msg("counted %llu entries of %llu bytes, expected 2 of 12",
                 (unsigned long long)info.entries,
                 (unsigned long long)info.bytes);
    snprintf(path, sizeof path, "%s/.tmp-stale", dir);
    if (access(path, F_OK) == 0)
        fail_msg("a temporary file two hours old was kept");
    snprintf(path, sizeof path, "%s/.tmp-fresh", dir);
    if (access(path, F_OK) != 0)
        fail_msg("a fresh temporary file (a writer at work) was deleted");

    TEST_OK(kiln_cache_clear());
    info = cache_info();
    if (info.entries != 0 || info.bytes != 0)
        fail_msg("after clearing: %llu entries",
                 (unsigned long long)info.entries);
    static const char *const kept[] = {"README", "dir.kbin", ".tmp-fresh"};
    for (size_t i = 0; i < 3; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, kept[i]);
        if (access(path, F_OK) != 0)
            fail_msg("kiln_cache_clear deleted %s, which is not an entry",
                     kept[i]);
    }
    snprintf(path, sizeof path, "%s/0123.kbin", dir);
    if (access(path, F_OK) == 0)
        fail_msg("kiln_cache_clear kept an entry");
}

static void test_clear_without_directory(void **state)
{
    (void)state;
    char dir[4096];
    reset_environment(dir, sizeof dir, "noclear");
    setenv("KILN_CACHE", "0", 1);
    setenv("KILN_CACHE_DIR", dir, 1);
    TEST_OK(kiln_cache_clear());
    if (access(dir, F_OK) == 0)
        fail_msg("a disabled cache created its directory");
}

int main(void)
{
    original_home = copy_env("HOME");
    original_xdg = copy_env("XDG_CACHE_HOME");
    static const kiln_test tests[] = {
        KILN_TEST(test_created_private_and_nested),
        KILN_TEST(test_created_private_under_permissive_umask),
        KILN_TEST(test_xdg_then_home),
        KILN_TEST(test_no_home_never_uses_root),
        KILN_TEST(test_refused_directories),
        KILN_TEST(test_get_info_rejects_null),
        KILN_TEST(test_cache_switch),
        KILN_TEST(test_size_limit_setting),
        KILN_TEST(test_counts_and_clears_only_entries),
        KILN_TEST(test_clear_without_directory),
    };
    int result = kiln_test_main_plain("cache files", tests,
                                      sizeof tests / sizeof tests[0]);
    free(original_home);
    free(original_xdg);
    return result;
}
