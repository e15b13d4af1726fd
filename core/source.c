/*
 * Program sources: #include "..." is inlined here, before any backend sees
 * the text.  Both backends then compile one self-contained text (NVRTC has
 * no file system access of its own), and the cache key, made from that
 * text, changes whenever an included file does.
 *
 * An #include that is not found in the search path is left in place for
 * the compiler to resolve or reject (it may sit in a branch of #if that is
 * never taken).
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_INCLUDE_DEPTH 32
#define MAX_INCLUDE_FILE_BYTES (64u << 20)

typedef struct expand_state {
    const char *const *dirs;
    size_t dir_count;
    kiln_string output;
    /* Files carrying #pragma once that were already inlined. */
    char **once_paths;
    size_t once_count;
    /* The files being expanded, outermost first: a cycle returns to one. */
    const char *stack[MAX_INCLUDE_DEPTH + 1];
    size_t stack_depth;
} expand_state;

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

/* Parses an include directive on one line: true with the name's bounds
 * and whether it was written with quotes. */
static bool parse_include(const char *line, const char *end,
                          const char **name, size_t *name_length, bool *quoted)
{
    const char *p = line;
    while (p < end && (*p == ' ' || *p == '\t'))
        ++p;
    if (p >= end || *p != '#')
        return false;
    ++p;
    while (p < end && (*p == ' ' || *p == '\t'))
        ++p;
    static const char keyword[] = "include";
    if ((size_t)(end - p) < sizeof keyword - 1 ||
        memcmp(p, keyword, sizeof keyword - 1) != 0)
        return false;
    p += sizeof keyword - 1;
    while (p < end && (*p == ' ' || *p == '\t'))
        ++p;
    if (p >= end || (*p != '"' && *p != '<'))
        return false;
    char close = *p == '"' ? '"' : '>';
    *quoted = *p == '"';
    const char *start = ++p;
    while (p < end && *p != close)
        ++p;
    if (p >= end || p == start)
        return false;
    *name = start;
    *name_length = (size_t)(p - start);
    return true;
}

static bool has_pragma_once(const char *text, size_t length)
{
    const char *p = text;
    const char *end = text + length;
    while (p < end) {
        const char *line_end = memchr(p, '\n', (size_t)(end - p));
        if (line_end == NULL)
            line_end = end;
        const char *q = p;
        while (q < line_end && (*q == ' ' || *q == '\t'))
            ++q;
        if (line_end - q >= 7 && *q == '#') {
            ++q;
            while (q < line_end && (*q == ' ' || *q == '\t'))
                ++q;
            if (line_end - q >= 11 && memcmp(q, "pragma", 6) == 0) {
                q += 6;
                while (q < line_end && (*q == ' ' || *q == '\t'))
                    ++q;
                if (line_end - q >= 4 && memcmp(q, "once", 4) == 0)
                    return true;
            }
        }
        p = line_end + 1;
    }
    return false;
}

/* The next line that is not blank or only a comment, from *cursor; false
 * at the end.  Good enough for the head of a header, which is all the
 * include-guard check reads. */
static bool next_code_line(const char **cursor, const char *end,
                           const char **line, const char **line_end)
{
    bool in_comment = false;
    while (*cursor < end) {
        const char *start = *cursor;
        const char *stop = memchr(start, '\n', (size_t)(end - start));
        if (stop == NULL)
            stop = end;
        *cursor = stop < end ? stop + 1 : end;
        const char *p = start;
        for (;;) {
            while (p < stop && (*p == ' ' || *p == '\t' || *p == '\r'))
                ++p;
            if (in_comment) {
                while (p + 1 < stop && !(p[0] == '*' && p[1] == '/'))
                    ++p;
                if (p + 1 >= stop)
                    break;
                p += 2;
                in_comment = false;
                continue;
            }
            if (p + 1 < stop && p[0] == '/' && p[1] == '*') {
                in_comment = true;
                p += 2;
                continue;
            }
            break;
        }
        if (in_comment || p >= stop || (p + 1 < stop && p[0] == '/' && p[1] == '/'))
            continue;
        *line = p;
        *line_end = stop;
        return true;
    }
    return false;
}

/* Reads "#<keyword> NAME" on one line; writes NAME. */
static bool directive_name(const char *p, const char *end, const char *keyword,
                           char *name, size_t size)
{
    if (p >= end || *p != '#')
        return false;
    ++p;
    while (p < end && (*p == ' ' || *p == '\t'))
        ++p;
    size_t keyword_length = strlen(keyword);
    if ((size_t)(end - p) <= keyword_length ||
        memcmp(p, keyword, keyword_length) != 0 ||
        (p[keyword_length] != ' ' && p[keyword_length] != '\t'))
        return false;
    p += keyword_length;
    while (p < end && (*p == ' ' || *p == '\t'))
        ++p;
    size_t n = 0;
    while (p < end && n + 1 < size &&
           ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || *p == '_'))
        name[n++] = *p++;
    name[n] = '\0';
    return n > 0;
}

/* True when the file opens with the guard idiom "#ifndef X" + "#define X",
 * so including it again while it is being expanded adds nothing. */
static bool has_include_guard(const char *text, size_t length)
{
    const char *cursor = text, *end = text + length, *line, *line_end;
    char guard[128], defined[128];
    return next_code_line(&cursor, end, &line, &line_end) &&
           directive_name(line, line_end, "ifndef", guard, sizeof guard) &&
           next_code_line(&cursor, end, &line, &line_end) &&
           directive_name(line, line_end, "define", defined,
                          sizeof defined) &&
           strcmp(guard, defined) == 0;
}

/* The directory part of `path` ("" for a bare file name). */
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

/* `name` joined to `dir` ("" or NULL: `name` alone), malloc'ed, when that
 * file exists. */
static char *existing_file(const char *dir, const char *name)
{
    kiln_string path = {0};
    bool ok = dir != NULL && dir[0] != '\0'
                  ? kiln_string_appendf(&path, "%s/%s", dir, name)
                  : kiln_string_appendf(&path, "%s", name);
    if (ok && file_exists(path.data))
        return path.data;
    kiln_string_free(&path);
    return NULL;
}

/* The file an #include names (malloc'ed), or NULL when none is found. */
static char *resolve_include(const expand_state *state, const char *current_dir,
                             const char *name, bool quoted)
{
    if (name[0] == '/')
        return existing_file(NULL, name);
    /* Quoted names look beside the including file first, as cpp does. */
    if (quoted && current_dir != NULL && current_dir[0] != '\0') {
        char *path = existing_file(current_dir, name);
        if (path != NULL)
            return path;
    }
    for (size_t i = 0; i < state->dir_count; ++i) {
        if (state->dirs[i] == NULL || state->dirs[i][0] == '\0')
            continue;
        char *path = existing_file(state->dirs[i], name);
        if (path != NULL)
            return path;
    }
    return NULL;
}

/* Appends `#line N "name"`, the name escaped as a C string. */
static bool append_line_marker(kiln_string *output, unsigned line,
                               const char *name)
{
    bool ok = kiln_string_appendf(output, "#line %u \"", line);
    for (const char *p = name; ok && *p != '\0'; ++p) {
        unsigned char byte = (unsigned char)*p;
        /* A raw newline would end the directive mid-name. */
        if (byte < 0x20 || byte == 0x7f) {
            ok = kiln_string_appendf(output, "\\%03o", byte);
            continue;
        }
        if (*p == '"' || *p == '\\')
            ok = kiln_string_append(output, "\\", 1);
        ok = ok && kiln_string_append(output, p, 1);
    }
    return ok && kiln_string_append(output, "\"\n", 2);
}

static bool once_seen(const expand_state *state, const char *path)
{
    for (size_t i = 0; i < state->once_count; ++i)
        if (strcmp(state->once_paths[i], path) == 0)
            return true;
    return false;
}

static kiln_status expand_text(expand_state *state, const char *text,
                               size_t length, const char *name,
                               const char *current_dir, int depth);

static kiln_status expand_file(expand_state *state, const char *path,
                               int depth)
{
    if (once_seen(state, path))
        return KILN_OK;
    char *text;
    size_t length;
    kiln_status status = kiln_file_read(path, &text, &length);
    if (status != KILN_OK)
        return status;
    for (size_t i = 0; i < state->stack_depth; ++i) {
        if (strcmp(state->stack[i], path) != 0)
            continue;
        /* Back at a file that is still being expanded: legal only when its
         * guard makes the inner inclusion empty. */
        bool guarded = has_include_guard(text, length);
        free(text);
        if (guarded)
            return KILN_OK;
        kiln_string cycle = {0};
        for (size_t j = i; j < state->stack_depth; ++j)
            kiln_string_appendf(&cycle, "%s -> ", state->stack[j]);
        status = kiln_error(KILN_ERR_BUILD,
                            "#include cycle without an include guard: %s%s",
                            cycle.data ? cycle.data : "", path);
        kiln_string_free(&cycle);
        return status;
    }
    if (has_pragma_once(text, length)) {
        char **grown = realloc(state->once_paths,
                               (state->once_count + 1) * sizeof *grown);
        char *copy = kiln_strdup(path);
        if (grown == NULL || copy == NULL) {
            free(copy);
            if (grown != NULL)
                state->once_paths = grown;
            free(text);
            return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "out of host memory");
        }
        state->once_paths = grown;
        state->once_paths[state->once_count++] = copy;
    }
    char *dir = directory_of(path);
    if (dir == NULL) {
        free(text);
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    bool pushed =
        state->stack_depth < sizeof state->stack / sizeof state->stack[0];
    if (pushed)
        state->stack[state->stack_depth++] = path;
    status = expand_text(state, text, length, path, dir, depth);
    if (pushed)
        state->stack_depth--;
    free(dir);
    free(text);
    return status;
}

static kiln_status expand_text(expand_state *state, const char *text,
                               size_t length, const char *name,
                               const char *current_dir, int depth)
{
    if (depth > MAX_INCLUDE_DEPTH)
        return kiln_error(KILN_ERR_BUILD,
                          "%s: #include nested more than %d deep (a cycle?)",
                          name, MAX_INCLUDE_DEPTH);
    const char *p = text;
    const char *end = text + length;
    unsigned line_number = 1;
    bool in_comment = false;
    while (p < end) {
        const char *line_end = memchr(p, '\n', (size_t)(end - p));
        const char *next = line_end ? line_end + 1 : end;
        if (line_end == NULL)
            line_end = end;
        const char *include_name;
        size_t include_length;
        bool quoted;
        bool inlined = false;
        if (!in_comment && parse_include(p, line_end, &include_name,
                                         &include_length, &quoted)) {
            char *wanted = kiln_strndup(include_name, include_length);
            char *path = wanted ? resolve_include(state, current_dir, wanted,
                                                  quoted)
                                : NULL;
            free(wanted);
            if (path != NULL) {
                kiln_trace("inlining #include \"%s\" from %s", path, name);
                kiln_status status =
                    append_line_marker(&state->output, 1, path)
                        ? expand_file(state, path, depth + 1)
                        : KILN_ERR_OUT_OF_HOST_MEMORY;
                if (status == KILN_OK &&
                    (!kiln_string_append(&state->output, "\n", 1) ||
                     !append_line_marker(&state->output, line_number + 1,
                                         name)))
                    status = KILN_ERR_OUT_OF_HOST_MEMORY;
                free(path);
                if (status == KILN_ERR_OUT_OF_HOST_MEMORY)
                    return kiln_error(status, "out of host memory");
                if (status != KILN_OK)
                    return status;
                inlined = true;
            }
        }
        if (!inlined &&
            !kiln_string_append(&state->output, p, (size_t)(next - p)))
            return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY,
                              "out of host memory");
        /* Track block comments so a commented-out #include stays put. */
        for (const char *q = p; q + 1 < line_end; ++q) {
            if (!in_comment && q[0] == '/' && q[1] == '/')
                break;
            if (!in_comment && q[0] == '/' && q[1] == '*') {
                in_comment = true;
                ++q;
            } else if (in_comment && q[0] == '*' && q[1] == '/') {
                in_comment = false;
                ++q;
            }
        }
        p = next;
        ++line_number;
    }
    return KILN_OK;
}

kiln_status kiln_source_expand(const char *source, size_t length,
                               const char *source_name,
                               const char *const *include_dirs,
                               size_t include_dir_count, char **expanded,
                               size_t *expanded_length)
{
    expand_state state = {.dirs = include_dirs, .dir_count = include_dir_count};
    char *dir = source_name != NULL && source_name[0] != '<'
                    ? directory_of(source_name)
                    : kiln_strdup("");
    if (dir == NULL)
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    kiln_status status =
        expand_text(&state, source, length,
                    source_name ? source_name : "<kiln program>", dir, 0);
    free(dir);
    for (size_t i = 0; i < state.once_count; ++i)
        free(state.once_paths[i]);
    free(state.once_paths);
    if (status != KILN_OK) {
        kiln_string_free(&state.output);
        return status;
    }
    if (state.output.data == NULL && !kiln_string_append(&state.output, "", 0))
        return kiln_error(KILN_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    *expanded = state.output.data;
    *expanded_length = state.output.length;
    return KILN_OK;
}
