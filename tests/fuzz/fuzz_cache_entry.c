/*
 * Fuzz target: cache entry files.  A valid entry is written once; each
 * input truncates it and overwrites bytes at chosen offsets, then the
 * loader reads it.  It must never crash and must accept an entry only when
 * it is byte-for-byte the valid one.
 */
#include "internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char directory[128];
static char entry_path[512];
static unsigned char *valid;
static size_t valid_size;
static kiln_cache_key key;
static const char blob[] = "compiled program bytes: 0123456789abcdef";

static void prepare(void)
{
    snprintf(directory, sizeof directory, "/tmp/kiln-fuzz-cache-%ld",
             (long)getpid());
    setenv("KILN_CACHE_DIR", directory, 1);
    unsetenv("KILN_CACHE");
    static char text[] = "kiln fuzz\nbackend none\nsource 3\nabc";
    key.text = text;
    key.length = strlen(text);
    kiln_digest_hex(key.text, key.length, key.hex);
    kiln_disk_cache_store(&key, blob, sizeof blob);
    snprintf(entry_path, sizeof entry_path, "%s/%s.kbin", directory, key.hex);
    FILE *file = fopen(entry_path, "rb");
    if (file == NULL)
        abort();
    valid = malloc(1 << 16);
    valid_size = fread(valid, 1, 1 << 16, file);
    fclose(file);
    if (valid_size == 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (valid == NULL)
        prepare();
    unsigned char entry[1 << 16];
    size_t length = valid_size;
    memcpy(entry, valid, valid_size);
    if (size >= 2) {
        /* The first two bytes choose the length (up to twice the valid
         * one, the tail padded with input bytes). */
        size_t wanted = ((size_t)data[0] << 8 | data[1]) % (2 * valid_size + 1);
        for (size_t i = valid_size; i < wanted; ++i)
            entry[i] = data[i % size];
        length = wanted;
        data += 2;
        size -= 2;
    }
    /* Then (offset, value) pairs. */
    for (size_t i = 0; i + 1 < size; i += 2)
        if (length > 0)
            entry[data[i] % length] = data[i + 1];
    int fd = open(entry_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        abort();
    if (length > 0 && write(fd, entry, length) != (ssize_t)length)
        abort();
    close(fd);
    void *loaded = NULL;
    size_t loaded_size = 0;
    bool hit = kiln_disk_cache_find(&key, &loaded, &loaded_size);
    bool intact = length == valid_size && memcmp(entry, valid, length) == 0;
    /* A changed entry may only be accepted if its checksum still holds,
     * which a handful of byte writes cannot arrange except by restoring
     * the original bytes. */
    if (hit && !intact &&
        !(loaded_size == sizeof blob && memcmp(loaded, blob, sizeof blob) == 0))
        abort();
    if (intact && !hit)
        abort();
    free(loaded);
    return 0;
}
