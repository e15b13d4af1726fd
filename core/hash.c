/*
 * Digests for the kernel cache: file names and entry checksums.  These only
 * need to spread keys and catch torn or flipped bytes (every entry also
 * stores its full key, compared on load), so FNV-1a is enough and keeps
 * the core free of a crypto dependency.
 */
#include "internal.h"

#include <stdio.h>

#define FNV64_PRIME 0x100000001b3ull
#define FNV64_OFFSET 0xcbf29ce484222325ull

static uint64_t fnv1a64(const void *data, size_t size, uint64_t state)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; ++i) {
        state ^= bytes[i];
        state *= FNV64_PRIME;
    }
    return state;
}

uint64_t kiln_checksum64(const void *data, size_t size)
{
    return kiln_checksum64_of(data, size);
}

uint64_t kiln_checksum64_update(uint64_t checksum, const void *data,
                                size_t size)
{
    return kiln_checksum64_seeded(data, size, checksum);
}

void kiln_digest_hex(const void *data, size_t size, char hex[33])
{
    /* Two lanes with different seeds, the second also over the length, so
     * the 128-bit name does not collide where one lane does. */
    uint64_t first = fnv1a64(data, size, FNV64_OFFSET);
    uint64_t second = fnv1a64(data, size, 0x84222325cbf29ce4ull ^ size);
    snprintf(hex, 33, "%016llx%016llx", (unsigned long long)first,
             (unsigned long long)second);
}
