/*
 * The kernel cache's key: Kiln's version, the backend, the backend's cache
 * identity (compiler and driver versions, device architecture; never a
 * device index), the language, the options (as the lists the core split:
 * defines, include directories, flags, each in order), the translator's
 * source digest when the front end translated or read the program, what a
 * translation made of the device's facts (its float atomics), the length
 * and 128-bit digest of the source after includes were inlined, and the
 * digest of every file the include search read (also those named by
 * #include in groups Kiln's preprocessor does not take, which the compiler
 * may take), and the kernel template instances the host asked for by
 * name (kiln_build_options.kernel_names, normalised and sorted).  The
 * memory cache (cache_memory.c) and the disk cache (cache_disk.c) both
 * look programs up by it: a hit requires the whole key to match, not only
 * its digest.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* `value` in decimal, as "%zu" writes it: keys are made on every build, a
 * program-cache hit included, and formatting was most of their cost. */
static bool key_append_size(kiln_string *key, size_t value)
{
    char digits[24];
    size_t at = sizeof digits;
    do {
        digits[--at] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    return kiln_string_append(key, digits + at, sizeof digits - at);
}

static bool key_append_word(kiln_string *key, const char *text)
{
    return kiln_string_append(key, text, strlen(text));
}

/* " <length>:<text>": a list entry no text can be confused with. */
static bool key_append_text(kiln_string *key, const char *text)
{
    size_t length = strlen(text);
    return kiln_string_append(key, " ", 1) && key_append_size(key, length) &&
           kiln_string_append(key, ":", 1) &&
           kiln_string_append(key, text, length);
}

/* The option lists, one line per entry. */
static bool key_append_options(kiln_string *key,
                               const translate_options *options,
                               const char *const *include_dirs,
                               size_t include_dir_count)
{
    bool ok = key_append_word(key, "options ") &&
              key_append_size(key, options->define_count) &&
              kiln_string_append(key, " ", 1) &&
              key_append_size(key, include_dir_count) &&
              kiln_string_append(key, " ", 1) &&
              key_append_size(key, options->flag_count) &&
              kiln_string_append(key, "\n", 1);
    for (size_t i = 0; ok && i < options->define_count; ++i) {
        const translate_define *define = &options->defines[i];
        ok = (define->value ? kiln_string_append(key, "define", 6)
                            : kiln_string_append(key, "undef", 5)) &&
             key_append_text(key, define->name) &&
             (define->value == NULL || key_append_text(key, define->value)) &&
             kiln_string_append(key, "\n", 1);
    }
    for (size_t i = 0; ok && i < include_dir_count; ++i)
        ok = kiln_string_append(key, "include", 7) &&
             key_append_text(key, include_dirs[i]) &&
             kiln_string_append(key, "\n", 1);
    for (size_t i = 0; ok && i < options->flag_count; ++i)
        ok = kiln_string_append(key, "flag", 4) &&
             key_append_text(key, options->flags[i]) &&
             kiln_string_append(key, "\n", 1);
    return ok;
}

kiln_status kiln_cache_key_make(kiln_context *context,
                                kiln_language source_language,
                                const translate_options *options,
                                const char *const *include_dirs,
                                size_t include_dir_count,
                                const char *source, size_t length,
                                const char *file_digests, bool translated,
                                const char *target_choices,
                                const char *const *kernel_names,
                                size_t kernel_name_count,
                                kiln_cache_key *key)
{
    /* The source by its 128-bit digest, not a copy: an entry stays the
     * size of its binary however large the program (the key is compared
     * whole on every hit, so a copy would also be read back each time). */
    char source_digest[33];
    kiln_digest_hex(source, length, source_digest);
    kiln_string text = {0};
    /* The text "kiln %s\nbackend %s\nidentity %s\nlanguage %d\n", the
     * options, "translator %s\n" (a translated or read program), "target
     * %s\n" (a translation that chose by the device's facts), then
     * "source %zu %s\n" and "files <length>:<digests>\n", appended piece
     * by piece. */
    int language = (int)source_language;
    bool ok = key_append_word(&text, "kiln " PACKAGE_VERSION "\nbackend ") &&
              key_append_word(&text, context->ops->name) &&
              key_append_word(&text, "\nidentity ") &&
              key_append_word(&text, context->cache_identity) &&
              key_append_word(&text, "\nlanguage ") &&
              (language >= 0 || kiln_string_append(&text, "-", 1)) &&
              key_append_size(&text, (size_t)(language >= 0 ? language
                                                            : -(long)language)) &&
              kiln_string_append(&text, "\n", 1) &&
              key_append_options(&text, options, include_dirs,
                                 include_dir_count) &&
              (!translated ||
               (key_append_word(&text, "translator ") &&
                key_append_word(&text, translate_digest()) &&
                kiln_string_append(&text, "\n", 1))) &&
              (target_choices == NULL || target_choices[0] == '\0' ||
               (key_append_word(&text, "target ") &&
                key_append_word(&text, target_choices) &&
                kiln_string_append(&text, "\n", 1))) &&
              key_append_word(&text, "source ") &&
              key_append_size(&text, length) &&
              kiln_string_append(&text, " ", 1) &&
              kiln_string_append(&text, source_digest, 32) &&
              kiln_string_append(&text, "\n", 1) &&
              (file_digests == NULL ||
               (key_append_word(&text, "files") &&
                key_append_text(&text, file_digests) &&
                kiln_string_append(&text, "\n", 1)));
    /* The kernel template instances asked for: another set of names is
     * another binary. */
    if (ok && kernel_name_count > 0) {
        ok = key_append_word(&text, "names ") &&
             key_append_size(&text, kernel_name_count);
        for (size_t i = 0; ok && i < kernel_name_count; ++i)
            ok = key_append_text(&text, kernel_names[i]);
        ok = ok && kiln_string_append(&text, "\n", 1);
    }
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
