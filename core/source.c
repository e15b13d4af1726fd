/*
 * The files a program names: the source of kiln_program_build_file, and
 * each #include the front end's preprocessor carries out (translate/
 * asks this reader), so that every backend compiles one self-contained
 * text (NVRTC has no file system access of its own) and the cache key,
 * made from that text, changes whenever an included file does.
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

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_INCLUDE_FILE_BYTES (64u << 20)

kiln_status kiln_file_read(const char *path, char **text, size_t *length)
{
    /* O_NONBLOCK: a FIFO must not wait for a writer before fstat shows it
     * is no regular file; a device (/dev/zero) would be read forever. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return kiln_error(KILN_ERR_IO, "cannot open '%s': %s", path,
                          strerror(errno));
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        close(fd);
        return kiln_error(KILN_ERR_IO, "'%s' is not a regular file", path);
    }
    FILE *file = fdopen(fd, "rb");
    if (file == NULL) {
        close(fd);
        return kiln_error(KILN_ERR_IO, "cannot open '%s': %s", path,
                          strerror(errno));
    }
    kiln_string content = {0};
    char chunk[65536];
    size_t got;
    kiln_status status = KILN_OK;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0) {
        if (content.length + got > MAX_INCLUDE_FILE_BYTES) {
            status = kiln_error(KILN_ERR_IO, "'%s' is larger than %u MiB",
                                path, MAX_INCLUDE_FILE_BYTES >> 20);
            break;
        }
        if (!kiln_string_append(&content, chunk, got)) {
            status = kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                "out of host memory reading '%s'", path);
            break;
        }
    }
    if (status == KILN_OK && ferror(file))
        status = kiln_error(KILN_ERR_IO, "cannot read '%s': %s", path,
                            strerror(errno));
    fclose(file);
    if (status != KILN_OK) {
        kiln_string_free(&content);
        return status;
    }
    if (content.data == NULL && !kiln_string_append(&content, "", 0))
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    *text = content.data;
    *length = content.length;
    return KILN_OK;
}

/* A directory is passed over, as cpp does; anything else that exists is
 * the file named, and kiln_file_read refuses what is not a regular one. */
static bool file_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 && !S_ISDIR(info.st_mode);
}

/* The directory part of `path` ("" for none), malloc'ed; NULL when out of
 * memory. */
static char *directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t length = slash ? (size_t)(slash - path) : 0;
    if (slash == path)
        length = 1; /* "/x.cl" lives in "/" */
    return kiln_strndup(path, length);
}

/* `name` joined to `dir` ("" or NULL: `name` alone, so a program built from
 * "main.cl" finds "val.h" beside it in the current directory), malloc'ed,
 * when that file exists. */
static char *existing_file(const char *dir, const char *name)
{
    kiln_string path = {0};
    bool ok = dir != NULL && dir[0] != '\0'
                  ? kiln_string_appendf(&path, "%s%s%s", dir,
                                        strcmp(dir, "/") == 0 ? "" : "/", name)
                  : kiln_string_appendf(&path, "%s", name);
    if (ok && file_exists(path.data))
        return path.data;
    kiln_string_free(&path);
    return NULL;
}

/* The reader (internal.h says in what order it looks). */
static int read_include(void *context, const char *name, int quoted,
                        const char *includer, char **path_out, char **text,
                        size_t *length, char **error)
{
    kiln_include_reader *search = context;
    char *path = NULL;
    if (name[0] == '/') {
        path = existing_file(NULL, name);
    } else {
        if (quoted && includer != NULL) {
            char *dir = directory_of(includer);
            if (dir != NULL)
                path = existing_file(dir, name);
            free(dir);
        } else if (quoted && search->program_dir != NULL) {
            path = existing_file(search->program_dir, name);
        }
        for (size_t i = 0; path == NULL && i < search->dir_count; ++i)
            if (search->dirs[i] != NULL && search->dirs[i][0] != '\0')
                path = existing_file(search->dirs[i], name);
    }
    if (path == NULL)
        return 0;
    kiln_trace("reading #include \"%s\" from %s", path,
               includer ? includer : "the program");
    if (kiln_file_read(path, text, length) != KILN_OK) {
        *error = kiln_strdup(kiln_last_error());
        kiln_error_clear();
        free(path);
        return -1;
    }
    char digest[33];
    kiln_digest_hex(*text, *length, digest);
    if (!kiln_string_appendf(&search->digests, "%s %s\n", path, digest))
        search->failed = true;
    *path_out = path;
    return 1;
}

kiln_status kiln_include_reader_init(kiln_include_reader *reader,
                                     const char *program_name,
                                     const char *const *dirs,
                                     size_t dir_count)
{
    memset(reader, 0, sizeof *reader);
    reader->reader.read = read_include;
    reader->reader.context = reader;
    reader->dirs = dirs;
    reader->dir_count = dir_count;
    if (program_name != NULL && program_name[0] != '<') {
        reader->program_dir = directory_of(program_name);
        if (reader->program_dir == NULL)
            return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "out of host memory");
    }
    return KILN_OK;
}

void kiln_include_reader_free(kiln_include_reader *reader)
{
    free(reader->program_dir);
    reader->program_dir = NULL;
    kiln_string_free(&reader->digests);
}
