/*
 * The kernel cache: built programs kept in memory per context (shared by
 * every kiln_program of the same key there) and compiled binaries on disk
 * per user.
 *
 * Key: Kiln's version, the backend, the backend's cache identity (compiler
 * and driver versions, device architecture, the translator's source
 * digest; never a device index), the language, the options and the full source after
 * includes were inlined.  The file name is a digest of the key; the entry
 * stores the whole key too and a hit requires an exact match.
 *
 * Disk entries are written to a temporary file and renamed into place, so
 * readers see a whole entry or none, and processes building the same
 * program at once both succeed.  Every load checks magic, sizes, checksum
 * and key; anything wrong is a miss and the entry is rebuilt.  The
 * checksum covers the plugin's blob too, so a hit checksums its bytes
 * once: the plugin's reader checks their structure only.  The cache
 * never fails a build: every problem here degrades to "no cache".
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
#define MEMORY_CACHE_MAX_ENTRIES 256
#define STALE_TEMP_SECONDS 3600

typedef struct entry_header {
    char magic[8];
    uint32_t format;
    uint32_t reserved;
    uint64_t key_length;
    uint64_t blob_length;
    uint64_t checksum; /* over key then blob */
} entry_header;

/* ---- keys ------------------------------------------------------------------ */

kiln_status kiln_cache_key_make(kiln_context *context,
                                const kiln_backend_source *source,
                                kiln_cache_key *key)
{
    kiln_string text = {0};
    bool ok = kiln_string_appendf(&text,
                                  "kiln %s\nbackend %s\nidentity %s\n"
                                  "language %d\noptions %s\nsource %zu\n",
                                  PACKAGE_VERSION, context->ops->name,
                                  context->cache_identity,
                                  (int)source->language, source->options,
                                  source->length) &&
              kiln_string_append(&text, source->text, source->length);
    if (!ok) {
        kiln_string_free(&text);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                          "out of host memory making a cache key");
    }
    key->text = text.data;
    key->length = text.length;
    kiln_digest_hex(key->text, key->length, key->hex);
    return KILN_OK;
}

void kiln_cache_key_free(kiln_cache_key *key)
{
    free(key->text);
    key->text = NULL;
    key->length = 0;
}

/* ---- memory cache --------------------------------------------------------- */

/* An entry holds one reference to its built program, so a hit in the same
 * context hands out the program the backend already has: no blob, no
 * second load.  Entries are newest first; past MEMORY_CACHE_MAX_ENTRIES the
 * oldest are dropped (programs built from them keep their own references). */
struct kiln_memory_cache_entry {
    char *key;
    size_t key_length;
    char hex[33];
    kiln_built_program *built;
    kiln_memory_cache_entry *next;
};

/* The entry for `key` (context lock held). */
static kiln_memory_cache_entry *memory_entry_find(kiln_context *context,
                                                  const kiln_cache_key *key)
{
    for (kiln_memory_cache_entry *entry = context->memory_cache;
         entry != NULL; entry = entry->next)
        if (entry->key_length == key->length &&
            memcmp(entry->hex, key->hex, sizeof entry->hex) == 0 &&
            memcmp(entry->key, key->text, key->length) == 0)
            return entry;
    return NULL;
}

kiln_built_program *kiln_memory_cache_find(kiln_context *context,
                                           const kiln_cache_key *key)
{
    pthread_mutex_lock(&context->lock);
    kiln_memory_cache_entry *entry = memory_entry_find(context, key);
    kiln_built_program *built = NULL;
    if (entry != NULL) {
        /* Under the lock: an eviction cannot drop the entry's reference
         * before this one is taken. */
        built = entry->built;
        kiln_built_program_retain(built);
    }
    pthread_mutex_unlock(&context->lock);
    return built;
}

/* Frees a list of entries unlinked from the cache (context lock not held:
 * the last reference destroys a backend program). */
static void memory_entries_free(kiln_context *context,
                                kiln_memory_cache_entry *entry)
{
    while (entry != NULL) {
        kiln_memory_cache_entry *next = entry->next;
        kiln_built_program_release(context, entry->built);
        free(entry->key);
        free(entry);
        entry = next;
    }
}

void kiln_memory_cache_store(kiln_context *context, const kiln_cache_key *key,
                             kiln_built_program *built)
{
    kiln_memory_cache_entry *entry = calloc(1, sizeof *entry);
    if (entry == NULL)
        return;
    entry->key = kiln_strndup(key->text, key->length);
    if (entry->key == NULL) {
        free(entry);
        return;
    }
    entry->key_length = key->length;
    memcpy(entry->hex, key->hex, sizeof entry->hex);
    kiln_built_program_retain(built);
    entry->built = built;
    kiln_memory_cache_entry *dropped = NULL;
    pthread_mutex_lock(&context->lock);
    if (memory_entry_find(context, key) != NULL) {
        /* Threads that missed at once each built the program; the first
         * to store it stays, later ones are used by their builder only. */
        dropped = entry;
    } else {
        entry->next = context->memory_cache;
        context->memory_cache = entry;
        /* Bound the cache: drop the oldest entries past the limit. */
        size_t count = 0;
        for (kiln_memory_cache_entry **link = &context->memory_cache;
             *link != NULL; link = &(*link)->next) {
            if (++count == MEMORY_CACHE_MAX_ENTRIES) {
                dropped = (*link)->next;
                (*link)->next = NULL;
                break;
            }
        }
    }
    pthread_mutex_unlock(&context->lock);
    memory_entries_free(context, dropped);
}

void kiln_memory_cache_clear(kiln_context *context)
{
    pthread_mutex_lock(&context->lock);
    kiln_memory_cache_entry *entry = context->memory_cache;
    context->memory_cache = NULL;
    pthread_mutex_unlock(&context->lock);
    memory_entries_free(context, entry);
}

/* ---- the cache directory ---------------------------------------------------- */

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

/* Chooses the directory: KILN_CACHE_DIR, $XDG_CACHE_HOME/kiln,
 * $HOME/.cache/kiln, then the password database's home.  Creates it and
 * refuses one that another user owns or others may write.  On false,
 * `why` says why there is no disk cache. */
static bool cache_directory(char *dir, size_t size, char *why,
                            size_t why_size)
{
    if (!kiln_env_cache_enabled()) {
        snprintf(why, why_size, "disabled by KILN_CACHE");
        return false;
    }
    const char *chosen = kiln_env_cache_dir();
    const char *xdg = kiln_env_xdg_cache_home();
    const char *home = kiln_env_home();
    int written = -1;
    if (chosen != NULL && chosen[0] != '/') {
        /* Relative to whatever the current directory is at each build:
         * refused, as KILN_PLUGIN_PATH's relative entries are. */
        snprintf(why, why_size,
                 "KILN_CACHE_DIR='%.256s' is relative: give an absolute "
                 "path",
                 chosen);
        return false;
    } else if (chosen != NULL) {
        written = snprintf(dir, size, "%s", chosen);
    } else if (xdg != NULL && xdg[0] == '/') {
        written = snprintf(dir, size, "%s/kiln", xdg);
    } else if (home != NULL && home[0] == '/' && home[1] != '\0') {
        written = snprintf(dir, size, "%s/.cache/kiln", home);
    } else {
        struct passwd entry, *found = NULL;
        char buffer[4096];
        if (getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &found) == 0 &&
            found != NULL && found->pw_dir != NULL && found->pw_dir[0] == '/' &&
            found->pw_dir[1] != '\0')
            written = snprintf(dir, size, "%s/.cache/kiln", found->pw_dir);
    }
    if (written < 0) {
        snprintf(why, why_size,
                 "no cache directory: set KILN_CACHE_DIR, XDG_CACHE_HOME or "
                 "HOME");
        return false;
    }
    if ((size_t)written >= size) {
        snprintf(why, why_size, "cache directory path too long");
        return false;
    }
    /* Strip trailing slashes so names join cleanly. */
    size_t length = strlen(dir);
    while (length > 1 && dir[length - 1] == '/')
        dir[--length] = '\0';
    if (!make_directories(dir)) {
        snprintf(why, why_size, "cannot create %s: %s", dir, strerror(errno));
        return false;
    }
    struct stat info;
    if (stat(dir, &info) != 0) {
        snprintf(why, why_size, "cannot use %s: %s", dir, strerror(errno));
        return false;
    }
    if (!S_ISDIR(info.st_mode)) {
        snprintf(why, why_size, "%s is not a directory", dir);
        return false;
    }
    if (info.st_uid != geteuid()) {
        snprintf(why, why_size,
                 "%s belongs to another user (uid %u): not used", dir,
                 (unsigned)info.st_uid);
        return false;
    }
    if ((info.st_mode & 0022) != 0) {
        snprintf(why, why_size,
                 "%s is writable by others (mode %03o): not used", dir,
                 (unsigned)(info.st_mode & 0777));
        return false;
    }
    return true;
}

static bool entry_path(char *path, size_t size, const char *dir,
                       const char *hex)
{
    int written = snprintf(path, size, "%s/%s" ENTRY_SUFFIX, dir, hex);
    return written > 0 && (size_t)written < size;
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
    char dir[4096], why[4200], path[4400];
    if (!cache_directory(dir, sizeof dir, why, sizeof why)) {
        kiln_trace("disk cache: %s", why);
        return false;
    }
    if (!entry_path(path, sizeof path, dir, key->hex))
        return false;
    /* O_NONBLOCK: a FIFO at the entry's path must not wait for a writer
     * before fstat can see that it is no regular file.  (Reads of a
     * regular file ignore the flag.) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        kiln_trace("disk cache: miss %s", key->hex);
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
        kiln_trace("disk cache: ignoring %s: %s", path, problem);
        free(data);
        return false;
    }
    /* Keep the blob, drop the key in front of it. */
    memmove(data, data + header.key_length, header.blob_length);
    *blob = data;
    *size = header.blob_length;
    /* The modification time orders entries for eviction: a hit is a use. */
    (void)utimensat(AT_FDCWD, path, NULL, 0);
    kiln_trace("disk cache: hit %s", path);
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
static entry_stat *entries_list(const char *dir, size_t *count,
                                uint64_t *total)
{
    *count = 0;
    *total = 0;
    DIR *handle = opendir(dir);
    if (handle == NULL)
        return NULL;
    entry_stat *list = NULL;
    size_t capacity = 0;
    struct dirent *item;
    time_t now = time(NULL);
    while ((item = readdir(handle)) != NULL) {
        char path[4400];
        struct stat info;
        if (snprintf(path, sizeof path, "%s/%s", dir, item->d_name) >=
            (int)sizeof path)
            continue;
        if (strncmp(item->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0) {
            if (lstat(path, &info) == 0 &&
                now - info.st_mtime > STALE_TEMP_SECONDS)
                (void)unlink(path);
            continue;
        }
        if (!has_suffix(item->d_name, ENTRY_SUFFIX) ||
            strlen(item->d_name) >= sizeof list[0].name)
            continue;
        if (lstat(path, &info) != 0 || !S_ISREG(info.st_mode))
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
static void cache_evict(const char *dir, uint64_t limit)
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
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, list[i].name);
        if (unlink(path) == 0 || errno == ENOENT) {
            total -= list[i].bytes;
            kiln_trace("disk cache: evicted %s", path);
        }
    }
    free(list);
}

void kiln_disk_cache_store(const kiln_cache_key *key, const void *blob,
                           size_t size)
{
    char dir[4096], why[4200], path[4400], temp[4400];
    if (size == 0 || size > MAX_ENTRY_BYTES ||
        !cache_directory(dir, sizeof dir, why, sizeof why) ||
        !entry_path(path, sizeof path, dir, key->hex))
        return;
    if (snprintf(temp, sizeof temp, "%s/" TEMP_PREFIX "%s-XXXXXX", dir,
                 key->hex) >= (int)sizeof temp)
        return;
    int fd = mkstemp(temp);
    if (fd < 0) {
        kiln_trace("disk cache: cannot write in %s: %s", dir, strerror(errno));
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
    if (!ok || rename(temp, path) != 0) {
        kiln_trace("disk cache: cannot store %s: %s", path, strerror(errno));
        (void)unlink(temp);
        return;
    }
    kiln_trace("disk cache: stored %s (%zu bytes)", path, size);
    cache_evict(dir, kiln_env_cache_max_bytes());
}

/* ---- public ------------------------------------------------------------------ */

kiln_status kiln_cache_get_info(kiln_cache_info *info)
{
    kiln_error_clear();
    KILN_CHECK_OUT(info, "info");
    memset(info, 0, sizeof *info);
    info->limit_bytes = kiln_env_cache_max_bytes();
    char why[4200];
    if (!cache_directory(info->directory, sizeof info->directory, why,
                         sizeof why)) {
        info->directory[0] = '\0';
        kiln_trace("disk cache: %s", why);
        return KILN_OK;
    }
    /* The user's own directory may still hold no files (/proc/self):
     * only one where a file can be made is reported as a cache. */
    char probe[4400];
    snprintf(probe, sizeof probe, "%s/" TEMP_PREFIX "probe-XXXXXX",
             info->directory);
    int fd = mkstemp(probe);
    if (fd < 0) {
        kiln_trace("disk cache: nothing can be stored in %s: %s",
                   info->directory, strerror(errno));
        info->directory[0] = '\0';
        return KILN_OK;
    }
    close(fd);
    (void)unlink(probe);
    info->enabled = 1;
    size_t count;
    uint64_t total;
    free(entries_list(info->directory, &count, &total));
    info->entries = count;
    info->bytes = total;
    return KILN_OK;
}

kiln_status kiln_cache_clear(void)
{
    kiln_error_clear();
    char dir[4096], why[4200];
    if (!cache_directory(dir, sizeof dir, why, sizeof why))
        return KILN_OK; /* nothing to clear */
    size_t count;
    uint64_t total;
    entry_stat *list = entries_list(dir, &count, &total);
    kiln_status status = KILN_OK;
    for (size_t i = 0; i < count; ++i) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, list[i].name);
        if (unlink(path) != 0 && errno != ENOENT)
            status = kiln_error(KILN_ERR_IO, "kiln_cache_clear: %s: %s", path,
                                strerror(errno));
    }
    free(list);
    return status;
}
