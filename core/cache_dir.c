/*
 * The disk cache's directory: chosen (KILN_CACHE_DIR, XDG_CACHE_HOME,
 * HOME, the password database), created, opened once per use and checked
 * on its descriptor; temporary files made in it; its entries listed (and
 * temporary files a crashed writer left behind long ago removed); and the
 * public calls that describe or clear it.  The entries' format, lookups,
 * stores and eviction are cache_disk.c's.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define STALE_TEMP_SECONDS 3600

void kiln_cache_dir_close(kiln_cache_dir *dir)
{
    if (dir->fd >= 0)
        close(dir->fd);
    free(dir->path);
    dir->fd = -1;
    dir->path = NULL;
}

/* Creates every missing component of `path` with mode 0700. */
static bool make_directories(char *path)
{
    for (char *p = path + 1; *p != '\0'; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        bool ok = mkdir(path, 0700) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return false;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/* The password database's home directory (malloc'ed), or NULL. */
static char *password_home(void)
{
    long suggested = sysconf(_SC_GETPW_R_SIZE_MAX);
    size_t size = suggested > 0 ? (size_t)suggested : 1024;
    char *home = NULL;
    for (int attempt = 0; attempt < 8 && home == NULL; ++attempt, size *= 2) {
        char *buffer = malloc(size);
        if (buffer == NULL)
            return NULL;
        struct passwd entry, *found = NULL;
        int error = getpwuid_r(geteuid(), &entry, buffer, size, &found);
        if (error == 0 && found != NULL && found->pw_dir != NULL &&
            found->pw_dir[0] == '/' && found->pw_dir[1] != '\0')
            home = kiln_strdup(found->pw_dir);
        free(buffer);
        if (error != ERANGE)
            break;
    }
    return home;
}

/* Chooses the directory: KILN_CACHE_DIR, $XDG_CACHE_HOME/kiln,
 * $HOME/.cache/kiln, then the password database's home.  Creates it, opens
 * it and refuses one that another user owns or others may write.  On
 * false, `why` says why there is no disk cache. */
bool kiln_cache_dir_open(kiln_cache_dir *dir, kiln_string *why)
{
    dir->fd = -1;
    dir->path = NULL;
    if (!kiln_env_cache_enabled()) {
        kiln_string_appendf(why, "disabled by KILN_CACHE");
        return false;
    }
    const char *chosen = kiln_env_cache_dir();
    const char *xdg = kiln_env_xdg_cache_home();
    const char *home = kiln_env_home();
    kiln_string path = {0};
    bool chose = true;
    if (chosen != NULL && chosen[0] != '/') {
        /* Relative to whatever the current directory is at each build:
         * refused, as KILN_PLUGIN_PATH's relative entries are. */
        kiln_string_appendf(why,
                            "KILN_CACHE_DIR='%.256s' is relative: give an "
                            "absolute path",
                            chosen);
        return false;
    } else if (chosen != NULL) {
        chose = kiln_string_appendf(&path, "%s", chosen);
    } else if (xdg != NULL && xdg[0] == '/') {
        chose = kiln_string_appendf(&path, "%s/kiln", xdg);
    } else if (home != NULL && home[0] == '/' && home[1] != '\0') {
        chose = kiln_string_appendf(&path, "%s/.cache/kiln", home);
    } else {
        char *found = password_home();
        if (found != NULL)
            chose = kiln_string_appendf(&path, "%s/.cache/kiln", found);
        free(found);
    }
    if (!chose) {
        kiln_string_free(&path);
        kiln_string_appendf(why, "out of host memory");
        return false;
    }
    if (path.data == NULL) {
        kiln_string_appendf(why, "no cache directory: set KILN_CACHE_DIR, "
                                 "XDG_CACHE_HOME or HOME");
        return false;
    }
    /* Strip trailing slashes so names join cleanly in messages. */
    while (path.length > 1 && path.data[path.length - 1] == '/')
        path.data[--path.length] = '\0';
    dir->path = path.data;
    if (!make_directories(dir->path)) {
        kiln_string_appendf(why, "cannot create %s: %s", dir->path,
                            strerror(errno));
        kiln_cache_dir_close(dir);
        return false;
    }
    dir->fd = open(dir->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat info;
    const char *problem = NULL;
    if (dir->fd < 0 && errno == ENOTDIR)
        problem = "is not a directory";
    else if (dir->fd < 0 || fstat(dir->fd, &info) != 0)
        kiln_string_appendf(why, "cannot use %s: %s", dir->path,
                            strerror(errno));
    else if (!S_ISDIR(info.st_mode))
        problem = "is not a directory";
    else if (info.st_uid != geteuid())
        kiln_string_appendf(why,
                            "%s belongs to another user (uid %u): not used",
                            dir->path, (unsigned)info.st_uid);
    else if ((info.st_mode & 0022) != 0)
        kiln_string_appendf(why,
                            "%s is writable by others (mode %03o): not used",
                            dir->path, (unsigned)(info.st_mode & 0777));
    else
        return true;
    if (problem != NULL)
        kiln_string_appendf(why, "%s %s", dir->path, problem);
    kiln_cache_dir_close(dir);
    return false;
}

/* The last reason the disk cache was off that was said at warn level:
 * said once, not at every build. */
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static char *warned_reason;

/* Whether `why` was not the last reason warned of (and is now). */
static bool warn_once(const char *why)
{
    pthread_mutex_lock(&warned_lock);
    bool fresh = warned_reason == NULL || strcmp(warned_reason, why) != 0;
    if (fresh) {
        char *copy = kiln_strdup(why);
        if (copy != NULL) {
            free(warned_reason);
            warned_reason = copy;
        }
    }
    pthread_mutex_unlock(&warned_lock);
    return fresh;
}

/* Opens the cache directory or says why there is none: a directory
 * refused (another user's, writable by others, relative, not one, not
 * made) turns the cache off where the user asked for it, so it is a
 * warning, once per reason; KILN_CACHE=0 only a trace. */
bool kiln_cache_dir_open_traced(kiln_cache_dir *dir)
{
    kiln_string why = {0};
    bool ok = kiln_cache_dir_open(dir, &why);
    const char *reason = why.data ? why.data : "out of memory";
    if (!ok && !kiln_env_cache_enabled())
        kiln_trace("disk cache: %s", reason);
    else if (!ok && warn_once(reason))
        kiln_log(KILN_LOG_WARN, "the disk cache is off: %s", reason);
    else if (!ok)
        kiln_trace("disk cache: %s", reason);
    kiln_string_free(&why);
    return ok;
}

/* Creates a new temporary file in the directory (mode 0600), named
 * KILN_CACHE_TEMP_PREFIX + `tag` + a unique ending, like mkstemp but relative to the
 * directory's descriptor. */
int kiln_cache_temp_create(const kiln_cache_dir *dir, const char *tag,
                            char *name, size_t size)
{
    static atomic_uint counter;
    for (int attempt = 0; attempt < 64; ++attempt) {
        struct {
            pid_t process;
            unsigned serial;
            struct timespec now;
        } seed;
        memset(&seed, 0, sizeof seed);
        seed.process = getpid();
        seed.serial = atomic_fetch_add(&counter, 1);
        clock_gettime(CLOCK_REALTIME, &seed.now);
        int written =
            snprintf(name, size, KILN_CACHE_TEMP_PREFIX "%s-%012llx", tag,
                     (unsigned long long)(kiln_checksum64(&seed, sizeof seed) &
                                          0xffffffffffffull));
        if (written < 0 || (size_t)written >= size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = openat(dir->fd, name,
                        O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                        0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* ---- listing ------------------------------------------------------------ */

static bool has_suffix(const char *name, const char *suffix)
{
    size_t length = strlen(name), suffix_length = strlen(suffix);
    return length > suffix_length &&
           strcmp(name + length - suffix_length, suffix) == 0;
}

/* Lists the entries of `dir` (and removes temporary files that a crashed
 * writer left behind long ago). */
kiln_cache_entry *kiln_cache_entries(const kiln_cache_dir *dir, size_t *count,
                                uint64_t *total)
{
    *count = 0;
    *total = 0;
    /* A descriptor of its own for the listing (closedir closes it); the
     * copy shares the offset, hence the rewind. */
    int listing = dup(dir->fd);
    DIR *handle = listing >= 0 ? fdopendir(listing) : NULL;
    if (handle == NULL) {
        if (listing >= 0)
            close(listing);
        return NULL;
    }
    rewinddir(handle);
    kiln_cache_entry *list = NULL;
    size_t capacity = 0;
    struct dirent *item;
    time_t now = time(NULL);
    while ((item = readdir(handle)) != NULL) {
        struct stat info;
        if (strncmp(item->d_name, KILN_CACHE_TEMP_PREFIX, strlen(KILN_CACHE_TEMP_PREFIX)) == 0) {
            if (fstatat(dir->fd, item->d_name, &info, AT_SYMLINK_NOFOLLOW) ==
                    0 &&
                now - info.st_mtime > STALE_TEMP_SECONDS)
                (void)unlinkat(dir->fd, item->d_name, 0);
            continue;
        }
        if (!has_suffix(item->d_name, KILN_CACHE_ENTRY_SUFFIX) ||
            strlen(item->d_name) >= sizeof list[0].name)
            continue;
        if (fstatat(dir->fd, item->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(info.st_mode))
            continue;
        if (*count == capacity) {
            size_t grown_capacity = capacity ? capacity * 2 : 64;
            kiln_cache_entry *grown = realloc(list, grown_capacity * sizeof *grown);
            if (grown == NULL)
                break;
            list = grown;
            capacity = grown_capacity;
        }
        snprintf(list[*count].name, sizeof list[*count].name, "%s",
                 item->d_name);
        list[*count].bytes = (uint64_t)info.st_size;
        list[*count].used = info.st_mtim;
        *total += (uint64_t)info.st_size;
        ++*count;
    }
    closedir(handle);
    return list;
}

/* ---- public ------------------------------------------------------------------ */

static void cache_describe(kiln_cache_info *info)
{
    memset(info, 0, sizeof *info);
    info->limit_bytes = kiln_env_cache_max_bytes();
    kiln_cache_dir dir;
    if (!kiln_cache_dir_open_traced(&dir))
        return;
    if (strlen(dir.path) >= sizeof info->directory) {
        kiln_trace("disk cache: %s: path too long to report", dir.path);
        kiln_cache_dir_close(&dir);
        return;
    }
    /* The user's own directory may still hold no files (/proc/self):
     * only one where a file can be made is reported as a cache. */
    char probe[sizeof KILN_CACHE_TEMP_PREFIX + 32];
    int fd = kiln_cache_temp_create(&dir, "probe", probe, sizeof probe);
    if (fd < 0) {
        kiln_trace("disk cache: nothing can be stored in %s: %s", dir.path,
                   strerror(errno));
        kiln_cache_dir_close(&dir);
        return;
    }
    close(fd);
    (void)unlinkat(dir.fd, probe, 0);
    snprintf(info->directory, sizeof info->directory, "%s", dir.path);
    info->enabled = 1;
    size_t count;
    uint64_t total;
    free(kiln_cache_entries(&dir, &count, &total));
    info->entries = count;
    info->bytes = total;
    kiln_cache_dir_close(&dir);
}

kiln_status kiln_cache_get_info_sized(kiln_cache_info *info, size_t info_size)
{
    kiln_error_clear();
    KILN_CHECK_OUT(info, "info");
    kiln_cache_info result;
    cache_describe(&result);
    return kiln_struct_out(info, info_size, &result, sizeof result,
                           sizeof(kiln_cache_info), "kiln_cache_get_info");
}

kiln_status kiln_cache_clear(void)
{
    kiln_error_clear();
    kiln_cache_dir dir;
    kiln_string why = {0};
    bool opened = kiln_cache_dir_open(&dir, &why);
    kiln_string_free(&why);
    if (!opened)
        return KILN_OK; /* nothing to clear */
    size_t count;
    uint64_t total;
    kiln_cache_entry *list = kiln_cache_entries(&dir, &count, &total);
    kiln_status status = KILN_OK;
    for (size_t i = 0; i < count; ++i)
        if (unlinkat(dir.fd, list[i].name, 0) != 0 && errno != ENOENT)
            status = kiln_error(KILN_ERR_IO, "kiln_cache_clear: %s/%s: %s",
                                dir.path, list[i].name, strerror(errno));
    free(list);
    kiln_cache_dir_close(&dir);
    return status;
}
