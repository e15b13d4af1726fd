/*
 * The disk cache: compiled programs (core/saved_program.c's format) kept
 * per user, one file per key (core/cache_key.c).  The file name is a
 * digest of the key; the entry stores the whole key too and a hit requires
 * an exact match.
 *
 * Disk entries are written to a temporary file and renamed into place, so
 * readers see a whole entry or none, and processes building the same
 * program at once both succeed.  Every load checks magic, sizes, checksum
 * and key; anything wrong is a miss and the entry is rebuilt.  The
 * checksum covers the saved program too (core/saved_program.c), so a hit
 * checksums its bytes once: that reader checks their structure only.  The
 * cache never fails a build: every problem here degrades to "no cache".
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_MAGIC "KILNBIN3" /* 3: XXH3 digests and checksum */
#define ENTRY_FORMAT 1u
#define ENTRY_SUFFIX ".kbin"
#define TEMP_PREFIX ".tmp-"
#define MAX_ENTRY_BYTES ((uint64_t)1 << 30)
#define STALE_TEMP_SECONDS 3600

typedef struct entry_header {
    char magic[8];
    uint32_t format;
    uint32_t reserved;
    uint64_t key_length;
    uint64_t blob_length;
    uint64_t checksum; /* over key then blob */
} entry_header;

/* ---- the cache directory ---------------------------------------------------- */

/* The cache directory, opened once for each lookup, store or listing: its
 * owner and mode are checked on the open descriptor, and every entry is
 * reached relative to it (openat and friends), so the directory checked is
 * the directory used, whatever happens to its path in between. */
typedef struct cache_dir {
    int fd;
    char *path; /* for messages */
} cache_dir;

static void cache_dir_close(cache_dir *dir)
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
static bool cache_dir_open(cache_dir *dir, kiln_string *why)
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
        cache_dir_close(dir);
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
    cache_dir_close(dir);
    return false;
}

/* Opens the cache directory or traces why there is none. */
static bool cache_dir_open_traced(cache_dir *dir)
{
    kiln_string why = {0};
    bool ok = cache_dir_open(dir, &why);
    if (!ok)
        kiln_trace("disk cache: %s", why.data ? why.data : "out of memory");
    kiln_string_free(&why);
    return ok;
}

/* An entry's file name: the key's digest and the suffix. */
typedef struct entry_name {
    char text[sizeof(((kiln_cache_key *)0)->hex) + sizeof ENTRY_SUFFIX];
} entry_name;

static entry_name entry_name_of(const char *hex)
{
    entry_name name;
    snprintf(name.text, sizeof name.text, "%s" ENTRY_SUFFIX, hex);
    return name;
}

/* Creates a new temporary file in the directory (mode 0600), named
 * TEMP_PREFIX + `tag` + a unique ending, like mkstemp but relative to the
 * directory's descriptor. */
static int temp_file_create(const cache_dir *dir, const char *tag,
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
            snprintf(name, size, TEMP_PREFIX "%s-%012llx", tag,
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

/* ---- loading ---------------------------------------------------------------- */

static bool read_exactly(int fd, void *data, size_t size)
{
    unsigned char *p = data;
    while (size > 0) {
        ssize_t got = read(fd, p, size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        p += got;
        size -= (size_t)got;
    }
    return true;
}

bool kiln_disk_cache_find(const kiln_cache_key *key, void **blob, size_t *size)
{
    cache_dir dir;
    if (!cache_dir_open_traced(&dir))
        return false;
    entry_name name = entry_name_of(key->hex);
    /* O_NONBLOCK: a FIFO at the entry's path must not wait for a writer
     * before fstat can see that it is no regular file.  (Reads of a
     * regular file ignore the flag.) */
    int fd = openat(dir.fd, name.text,
                    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        kiln_trace("disk cache: miss %s", key->hex);
        cache_dir_close(&dir);
        return false;
    }
    const char *problem = NULL;
    unsigned char *data = NULL;
    struct stat info;
    entry_header header;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        problem = "not a regular file";
    } else if (info.st_uid != geteuid()) {
        /* The binary in an entry is code the driver loads (PoCL: a
         * shared object): only the user's own files are trusted. */
        problem = "owned by another user";
    } else if ((uint64_t)info.st_size < sizeof header ||
               (uint64_t)info.st_size > MAX_ENTRY_BYTES) {
        problem = "size out of range";
    } else if (!read_exactly(fd, &header, sizeof header)) {
        problem = "truncated header";
    } else if (memcmp(header.magic, ENTRY_MAGIC, 8) != 0 ||
               header.format != ENTRY_FORMAT) {
        problem = "not a Kiln cache entry of this format";
    } else if (header.key_length != key->length ||
               header.blob_length == 0 ||
               header.blob_length > MAX_ENTRY_BYTES ||
               sizeof header + header.key_length + header.blob_length !=
                   (uint64_t)info.st_size) {
        problem = "sizes do not match the file or the key";
    } else if ((data = malloc(header.key_length + header.blob_length)) ==
               NULL) {
        problem = "out of host memory";
    } else if (!read_exactly(fd, data,
                             header.key_length + header.blob_length)) {
        problem = "truncated";
    } else if (kiln_checksum64(data, header.key_length +
                                          header.blob_length) !=
               header.checksum) {
        problem = "checksum mismatch";
    } else if (memcmp(data, key->text, key->length) != 0) {
        problem = "a different key (digest collision)";
    }
    close(fd);
    if (problem != NULL) {
        kiln_trace("disk cache: ignoring %s/%s: %s", dir.path, name.text,
                   problem);
        free(data);
        cache_dir_close(&dir);
        return false;
    }
    /* Keep the blob, drop the key in front of it. */
    memmove(data, data + header.key_length, header.blob_length);
    *blob = data;
    *size = header.blob_length;
    /* The modification time orders entries for eviction: a hit is a use. */
    (void)utimensat(dir.fd, name.text, NULL, 0);
    kiln_trace("disk cache: hit %s/%s", dir.path, name.text);
    cache_dir_close(&dir);
    return true;
}

/* ---- storing and eviction ---------------------------------------------------- */

static bool write_exactly(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size > 0) {
        ssize_t put = write(fd, p, size);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return false;
        p += put;
        size -= (size_t)put;
    }
    return true;
}

typedef struct entry_stat {
    char name[64];
    uint64_t bytes;
    struct timespec used;
} entry_stat;

static bool has_suffix(const char *name, const char *suffix)
{
    size_t length = strlen(name), suffix_length = strlen(suffix);
    return length > suffix_length &&
           strcmp(name + length - suffix_length, suffix) == 0;
}

/* Lists the entries of `dir` (and removes temporary files that a crashed
 * writer left behind long ago). */
static entry_stat *entries_list(const cache_dir *dir, size_t *count,
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
    entry_stat *list = NULL;
    size_t capacity = 0;
    struct dirent *item;
    time_t now = time(NULL);
    while ((item = readdir(handle)) != NULL) {
        struct stat info;
        if (strncmp(item->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0) {
            if (fstatat(dir->fd, item->d_name, &info, AT_SYMLINK_NOFOLLOW) ==
                    0 &&
                now - info.st_mtime > STALE_TEMP_SECONDS)
                (void)unlinkat(dir->fd, item->d_name, 0);
            continue;
        }
        if (!has_suffix(item->d_name, ENTRY_SUFFIX) ||
            strlen(item->d_name) >= sizeof list[0].name)
            continue;
        if (fstatat(dir->fd, item->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(info.st_mode))
            continue;
        if (*count == capacity) {
            size_t grown_capacity = capacity ? capacity * 2 : 64;
            entry_stat *grown = realloc(list, grown_capacity * sizeof *grown);
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

static int entry_older_first(const void *a, const void *b)
{
    const entry_stat *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Deletes least recently used entries until the cache fits its limit. */
static void cache_evict(const cache_dir *dir, uint64_t limit)
{
    size_t count;
    uint64_t total;
    entry_stat *list = entries_list(dir, &count, &total);
    if (list == NULL || total <= limit) {
        free(list);
        return;
    }
    qsort(list, count, sizeof *list, entry_older_first);
    for (size_t i = 0; i < count && total > limit; ++i) {
        if (unlinkat(dir->fd, list[i].name, 0) == 0 || errno == ENOENT) {
            total -= list[i].bytes;
            kiln_trace("disk cache: evicted %s/%s", dir->path, list[i].name);
        }
    }
    free(list);
}

void kiln_disk_cache_store(const kiln_cache_key *key, const void *blob,
                           size_t size)
{
    cache_dir dir;
    if (size == 0 || size > MAX_ENTRY_BYTES || !cache_dir_open_traced(&dir))
        return;
    entry_name name = entry_name_of(key->hex);
    char temp[sizeof TEMP_PREFIX + sizeof key->hex + 16];
    int fd = temp_file_create(&dir, key->hex, temp, sizeof temp);
    if (fd < 0) {
        kiln_log(KILN_LOG_WARN, "disk cache: cannot write in %s: %s",
                 dir.path, strerror(errno));
        cache_dir_close(&dir);
        return;
    }
    entry_header header;
    memset(&header, 0, sizeof header);
    memcpy(header.magic, ENTRY_MAGIC, 8);
    header.format = ENTRY_FORMAT;
    header.key_length = key->length;
    header.blob_length = size;
    /* The same checksum the loader computes over key then blob. */
    header.checksum =
        kiln_checksum64_pair(key->text, key->length, blob, size);
    bool ok = write_exactly(fd, &header, sizeof header) &&
              write_exactly(fd, key->text, key->length) &&
              write_exactly(fd, blob, size);
    ok = (close(fd) == 0) && ok;
    if (!ok || renameat(dir.fd, temp, dir.fd, name.text) != 0) {
        kiln_log(KILN_LOG_WARN, "disk cache: cannot store %s/%s: %s",
                 dir.path, name.text, strerror(errno));
        (void)unlinkat(dir.fd, temp, 0);
        cache_dir_close(&dir);
        return;
    }
    kiln_trace("disk cache: stored %s/%s (%zu bytes)", dir.path, name.text,
               size);
    cache_evict(&dir, kiln_env_cache_max_bytes());
    cache_dir_close(&dir);
}

/* ---- public ------------------------------------------------------------------ */

static void cache_describe(kiln_cache_info *info)
{
    memset(info, 0, sizeof *info);
    info->limit_bytes = kiln_env_cache_max_bytes();
    cache_dir dir;
    if (!cache_dir_open_traced(&dir))
        return;
    if (strlen(dir.path) >= sizeof info->directory) {
        kiln_trace("disk cache: %s: path too long to report", dir.path);
        cache_dir_close(&dir);
        return;
    }
    /* The user's own directory may still hold no files (/proc/self):
     * only one where a file can be made is reported as a cache. */
    char probe[sizeof TEMP_PREFIX + 32];
    int fd = temp_file_create(&dir, "probe", probe, sizeof probe);
    if (fd < 0) {
        kiln_trace("disk cache: nothing can be stored in %s: %s", dir.path,
                   strerror(errno));
        cache_dir_close(&dir);
        return;
    }
    close(fd);
    (void)unlinkat(dir.fd, probe, 0);
    snprintf(info->directory, sizeof info->directory, "%s", dir.path);
    info->enabled = 1;
    size_t count;
    uint64_t total;
    free(entries_list(&dir, &count, &total));
    info->entries = count;
    info->bytes = total;
    cache_dir_close(&dir);
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
    cache_dir dir;
    kiln_string why = {0};
    bool opened = cache_dir_open(&dir, &why);
    kiln_string_free(&why);
    if (!opened)
        return KILN_OK; /* nothing to clear */
    size_t count;
    uint64_t total;
    entry_stat *list = entries_list(&dir, &count, &total);
    kiln_status status = KILN_OK;
    for (size_t i = 0; i < count; ++i)
        if (unlinkat(dir.fd, list[i].name, 0) != 0 && errno != ENOENT)
            status = kiln_error(KILN_ERR_IO, "kiln_cache_clear: %s/%s: %s",
                                dir.path, list[i].name, strerror(errno));
    free(list);
    cache_dir_close(&dir);
    return status;
}
