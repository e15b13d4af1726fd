/*
 * Program files and the #include search: the one place the front end
 * touches the file system, shared by the core (kiln_program_build_file and
 * the files a program includes) and kiln-clc, so both read the same files
 * with the same limits.
 *
 * A file is read only when it is a regular file (a FIFO is refused at
 * once instead of waiting for a writer; /dev/zero instead of being read
 * forever) and only up to a limit.  Quoted names are looked for beside the
 * including file (or the program's own file), then in the include
 * directories in order; <names> only in the directories; absolute names
 * as they are.  A directory of the name is passed over, as cpp does.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "translate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *text_printf(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
static char *text_printf(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (length < 0)
        return NULL;
    char *text = malloc((size_t)length + 1);
    if (text == NULL)
        return NULL;
    va_start(args, format);
    vsnprintf(text, (size_t)length + 1, format, args);
    va_end(args);
    return text;
}

int translate_file_read(const char *path, size_t limit, char **text, size_t *length,
                  char **error)
{
    *text = NULL;
    *length = 0;
    *error = NULL;
    /* O_NONBLOCK: a FIFO must not wait for a writer before fstat shows
     * it is no regular file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *error = text_printf("cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        close(fd);
        *error = text_printf("'%s' is not a regular file", path);
        return -1;
    }
    size_t capacity = info.st_size > 0 && (uintmax_t)info.st_size < limit
                          ? (size_t)info.st_size + 1
                          : 65536;
    char *data = malloc(capacity);
    size_t used = 0;
    int failed = data == NULL;
    while (!failed) {
        if (used == capacity) {
            size_t grown_size = capacity * 2;
            char *grown = realloc(data, grown_size);
            if (grown == NULL) {
                failed = 1;
                break;
            }
            data = grown;
            capacity = grown_size;
        }
        ssize_t got = read(fd, data + used, capacity - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *error = text_printf("cannot read '%s': %s", path,
                                 strerror(errno));
            failed = 1;
            break;
        }
        if (got == 0)
            break;
        used += (size_t)got;
        if (used > limit) {
            *error = text_printf("'%s' is larger than %zu MiB", path,
                                 limit >> 20);
            failed = 1;
            break;
        }
    }
    close(fd);
    if (failed) {
        free(data);
        if (*error == NULL)
            *error = text_printf("out of memory reading '%s'", path);
        return -1;
    }
    /* NUL-terminated: room is left unless the file filled the buffer */
    if (used == capacity) {
        char *grown = realloc(data, capacity + 1);
        if (grown == NULL) {
            free(data);
            *error = text_printf("out of memory reading '%s'", path);
            return -1;
        }
        data = grown;
    }
    data[used] = '\0';
    *text = data;
    *length = used;
    return 0;
}

/* A directory is passed over, as cpp does; anything else that exists is
 * the file named, and translate_file_read refuses what is not a regular one. */
static int file_exists(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 && !S_ISDIR(info.st_mode);
}

/* `name` joined to `dir` ("" or NULL: `name` alone), malloc'ed, when that
 * file exists; NULL otherwise. */
static char *existing_file(const char *dir, const char *name)
{
    char *path = dir != NULL && dir[0] != '\0'
                     ? text_printf("%s%s%s", dir,
                                   strcmp(dir, "/") == 0 ? "" : "/", name)
                     : text_printf("%s", name);
    if (path != NULL && file_exists(path))
        return path;
    free(path);
    return NULL;
}

char *translate_directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t length = slash ? (size_t)(slash - path) : 0;
    if (slash == path)
        length = 1; /* "/x.cl" lives in "/" */
    char *dir = malloc(length + 1);
    if (dir != NULL) {
        memcpy(dir, path, length);
        dir[length] = '\0';
    }
    return dir;
}

int translate_include_search_read(void *context, const char *name, int quoted,
                            const char *includer, char **path_out,
                            char **text, size_t *length, char **error)
{
    const translate_include_search *search = context;
    char *path = NULL;
    if (name[0] == '/') {
        path = existing_file(NULL, name);
    } else {
        if (quoted && includer != NULL) {
            char *dir = translate_directory_of(includer);
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
    if (translate_file_read(path, TRANSLATE_MAX_FILE_BYTES, text, length, error) != 0) {
        free(path);
        return -1;
    }
    if (search->on_read != NULL)
        search->on_read(search->on_read_context, path, includer, *text,
                        *length);
    *path_out = path;
    return 1;
}
