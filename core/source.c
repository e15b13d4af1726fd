/*
 * The files a program names: the source of kiln_program_build_file, and
 * each #include the front end's preprocessor carries out (translate/
 * asks this reader), so that every backend compiles one self-contained
 * text (NVRTC has no file system access of its own) and the cache key,
 * made from that text, changes whenever an included file does.  Files are
 * read and searched by translate/include_files.c, which kiln-clc shares:
 * both read the same files with the same limits.
 *
 * An #include that is not found in the search path, or that sits in a
 * group of #if the preprocessor does not take, is left in place for the
 * compiler to resolve or reject.  So that the cache is never stale, every
 * file the search reads (also one a not-taken group names: the compiler's
 * own macros may take the group) is digested into the cache key, and a
 * program with an #include the compiler must resolve alone is not cached
 * (program.c).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

kiln_status kiln_file_read(const char *path, char **text, size_t *length)
{
    char *error = NULL;
    if (translate_file_read(path, TRANSLATE_MAX_FILE_BYTES, text, length,
                            &error) == 0)
        return KILN_OK;
    kiln_status status =
        error != NULL && strncmp(error, "out of memory", 13) == 0
            ? kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "%s", error)
            : kiln_error(KILN_ERR_IO, "%s", error ? error : path);
    free(error);
    return status;
}

/* Every file the search read, for the cache key: "path digest" lines. */
static void record_read(void *context, const char *path, const char *includer,
                        const char *text, size_t length)
{
    kiln_include_reader *reader = context;
    kiln_trace("reading #include \"%s\" from %s", path,
               includer ? includer : "the program");
    char digest[33];
    kiln_digest_hex(text, length, digest);
    if (!kiln_string_appendf(&reader->digests, "%s %s\n", path, digest))
        reader->failed = true;
}

/* The reader of a self-contained program (KILN_BUILD_NO_INCLUDE): no
 * file is read, whatever an #include names. */
static int refuse_include(void *context, const char *name, int quoted,
                          const char *includer, char **path, char **text,
                          size_t *length, char **error)
{
    (void)context, (void)name, (void)quoted, (void)includer, (void)path;
    (void)text, (void)length;
    *error = kiln_strdup("this program is built without files "
                         "(KILN_BUILD_NO_INCLUDE): it may not #include");
    return -1;
}

kiln_status kiln_include_reader_init(kiln_include_reader *reader,
                                     const char *program_name,
                                     const char *const *dirs,
                                     size_t dir_count, bool no_files)
{
    memset(reader, 0, sizeof *reader);
    if (no_files) {
        reader->reader.read = refuse_include;
        return KILN_OK;
    }
    reader->search = (translate_include_search){
        .dirs = dirs,
        .dir_count = dir_count,
        .on_read = record_read,
        .on_read_context = reader,
    };
    reader->reader.read = translate_include_search_read;
    reader->reader.context = &reader->search;
    if (program_name != NULL && program_name[0] != '<') {
        reader->program_dir = translate_directory_of(program_name);
        if (reader->program_dir == NULL)
            return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "out of host memory");
        reader->search.program_dir = reader->program_dir;
    }
    return KILN_OK;
}

void kiln_include_reader_free(kiln_include_reader *reader)
{
    free(reader->program_dir);
    reader->program_dir = NULL;
    kiln_string_free(&reader->digests);
}
