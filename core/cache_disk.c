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

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_MAGIC "KILNBIN3" /* 3: XXH3 digests and checksum */
#define ENTRY_FORMAT 1u
#define MAX_ENTRY_BYTES ((uint64_t)1 << 30)

typedef struct entry_header {
    char magic[8];
    uint32_t format;
    uint32_t reserved;
    uint64_t key_length;
    uint64_t blob_length;
    uint64_t checksum; /* over key then blob */
} entry_header;

/* An entry's file name: the key's digest and the suffix. */
typedef struct entry_name {
    char text[sizeof(((kiln_cache_key *)0)->hex) + sizeof KILN_CACHE_ENTRY_SUFFIX];
} entry_name;

static entry_name entry_name_of(const char *hex)
{
    entry_name name;
    snprintf(name.text, sizeof name.text, "%s" KILN_CACHE_ENTRY_SUFFIX, hex);
    return name;
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
    kiln_cache_dir dir;
    if (!kiln_cache_dir_open_traced(&dir))
        return false;
    entry_name name = entry_name_of(key->hex);
    /* O_NONBLOCK: a FIFO at the entry's path must not wait for a writer
     * before fstat can see that it is no regular file.  (Reads of a
     * regular file ignore the flag.) */
    int fd = openat(dir.fd, name.text,
                    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        kiln_trace("disk cache: miss %s", key->hex);
        kiln_cache_dir_close(&dir);
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
        kiln_cache_dir_close(&dir);
        return false;
    }
    /* Keep the blob, drop the key in front of it. */
    memmove(data, data + header.key_length, header.blob_length);
    *blob = data;
    *size = header.blob_length;
    /* The modification time orders entries for eviction: a hit is a use. */
    (void)utimensat(dir.fd, name.text, NULL, 0);
    kiln_trace("disk cache: hit %s/%s", dir.path, name.text);
    kiln_cache_dir_close(&dir);
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

static int entry_older_first(const void *a, const void *b)
{
    const kiln_cache_entry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Deletes least recently used entries until the cache fits its limit. */
static void cache_evict(const kiln_cache_dir *dir, uint64_t limit)
{
    size_t count;
    uint64_t total;
    kiln_cache_entry *list = kiln_cache_entries(dir, &count, &total);
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
    kiln_cache_dir dir;
    if (size == 0 || size > MAX_ENTRY_BYTES || !kiln_cache_dir_open_traced(&dir))
        return;
    entry_name name = entry_name_of(key->hex);
    char temp[sizeof KILN_CACHE_TEMP_PREFIX + sizeof key->hex + 16];
    int fd = kiln_cache_temp_create(&dir, key->hex, temp, sizeof temp);
    if (fd < 0) {
        kiln_log(KILN_LOG_WARN, "disk cache: cannot write in %s: %s",
                 dir.path, strerror(errno));
        kiln_cache_dir_close(&dir);
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
        kiln_cache_dir_close(&dir);
        return;
    }
    kiln_trace("disk cache: stored %s/%s (%zu bytes)", dir.path, name.text,
               size);
    cache_evict(&dir, kiln_env_cache_max_bytes());
    kiln_cache_dir_close(&dir);
}

