/*
 * Digests for the kernel cache, from xxHash's XXH3: the 128-bit digest of
 * a key names its entry file, and a 64-bit checksum over each entry (key
 * then blob) catches torn or flipped bytes.  Neither needs to resist an
 * attacker: every entry also stores its full key, compared on load, and
 * only the user's own files are read.
 */
#include "internal.h"

/* For XXH3_state_t on the stack (its layout is stable since xxHash 0.8). */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

void kiln_digest_hex(const void *data, size_t size, char hex[33])
{
    XXH128_hash_t digest = XXH3_128bits(data, size);
    /* What "%016llx%016llx" writes, without snprintf (half the cost of a
     * program-cache hit's key went to formatting these two digests). */
    static const char digits[] = "0123456789abcdef";
    const uint64_t halves[2] = {digest.high64, digest.low64};
    for (int h = 0; h < 2; ++h)
        for (int d = 0; d < 16; ++d)
            hex[h * 16 + d] = digits[(halves[h] >> (60 - 4 * d)) & 0xf];
    hex[32] = '\0';
}

uint64_t kiln_checksum64(const void *data, size_t size)
{
    return XXH3_64bits(data, size);
}

uint64_t kiln_checksum64_pair(const void *first, size_t first_size,
                              const void *second, size_t second_size)
{
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, first, first_size);
    XXH3_64bits_update(&state, second, second_size);
    return XXH3_64bits_digest(&state);
}
