/*
 * Where plugins are searched.  A backend is the shared object
 * kiln-<name>.so, searched in order in KILN_PLUGIN_PATH, then, when
 * libkiln itself runs from a libtool build tree, that tree's
 * backends/<name>/.libs/, then the installed plugin directory.
 * KILN_PLUGIN_SYSTEM_PATH, when set, replaces the last two.  Only
 * absolute directories are searched; the others are noted for the
 * not-found message.
 */
#include "internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#ifndef KILN_PLUGIN_DIR
#error "KILN_PLUGIN_DIR must be defined by the build"
#endif

/* The build tree's top directory (malloc'ed) when libkiln is the
 * libtool-built library in <top>/.libs/; NULL otherwise. */
static char *build_tree_top(void)
{
    Dl_info info;
    if (dladdr((void *)&kiln_backend_acquire, &info) == 0 ||
        info.dli_fname == NULL)
        return NULL;
    const char *file = info.dli_fname;
    const char *slash = strrchr(file, '/');
    if (slash == NULL)
        return NULL;
    size_t dir_length = (size_t)(slash - file);
    static const char libs[] = "/.libs";
    if (dir_length < sizeof libs - 1 ||
        memcmp(file + dir_length - (sizeof libs - 1), libs, sizeof libs - 1) != 0)
        return NULL;
    size_t top_length = dir_length - (sizeof libs - 1);
    if (top_length == 0)
        return NULL;
    return kiln_strndup(file, top_length);
}

static bool search_list_add(kiln_search_list *list, char *path,
                            const char *origin)
{
    if (path == NULL)
        return false;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 8;
        kiln_search_dir *grown =
            realloc(list->dirs, capacity * sizeof *grown);
        if (grown == NULL) {
            free(path);
            return false;
        }
        list->dirs = grown;
        list->capacity = capacity;
    }
    list->dirs[list->count++] = (kiln_search_dir){path, origin};
    return true;
}

/* Notes an entry that is not searched, so the not-found message can name
 * it (a trace alone left users with "searched nothing"). */
static bool search_list_ignore(kiln_search_list *list, const char *entry,
                               size_t length, const char *origin,
                               const char *why)
{
    size_t used = list->ignored ? strlen(list->ignored) : 0;
    kiln_string text = {list->ignored, used, list->ignored ? used + 1 : 0};
    bool ok = kiln_string_appendf(&text, "%s'%.*s' (%s: %s)", used ? ", " : "",
                                  length > INT32_MAX ? INT32_MAX : (int)length,
                                  entry, origin, why);
    list->ignored = text.data;
    return ok;
}

/* Appends the colon-separated directories of `text`. */
static bool search_list_append(kiln_search_list *list, const char *text,
                               const char *origin)
{
    for (const char *start = text;;) {
        const char *end = strchr(start, ':');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        /* Only absolute directories: a relative one would make the plugin
         * depend on the current directory. */
        if (length > 0 && start[0] != '/') {
            kiln_trace("%s: ignoring relative directory '%.*s'", origin,
                       length > INT32_MAX ? INT32_MAX : (int)length, start);
            if (!search_list_ignore(list, start, length, origin,
                                    "not an absolute directory"))
                return false;
        } else if (length > 0 &&
                 !search_list_add(list, kiln_strndup(start, length), origin))
            return false;
        if (end == NULL)
            return true;
        start = end + 1;
    }
}

void kiln_search_list_free(kiln_search_list *list)
{
    for (size_t i = 0; i < list->count; ++i)
        free(list->dirs[i].path);
    free(list->dirs);
    free(list->ignored);
    *list = (kiln_search_list){0};
}

bool kiln_plugin_search_dirs(const char *backend, kiln_search_list *list)
{
    *list = (kiln_search_list){0};
    const char *plugin_path = kiln_env_plugin_path();
    bool ok = plugin_path == NULL ||
              search_list_append(list, plugin_path, "KILN_PLUGIN_PATH");
    const char *system_path = kiln_env_plugin_system_path();
    if (ok && system_path != NULL) {
        ok = search_list_append(list, system_path, "KILN_PLUGIN_SYSTEM_PATH");
    } else if (ok) {
        /* A libkiln running from its build tree tests that tree's plugins,
         * even where an older Kiln is installed. */
        char *top = build_tree_top();
        if (top != NULL) {
            kiln_string dir = {0};
            ok = kiln_string_appendf(&dir, "%s/backends/%s/.libs", top,
                                     backend) &&
                 search_list_add(list, dir.data, "build tree");
            free(top);
        }
        ok = ok && search_list_add(list, kiln_strdup(KILN_PLUGIN_DIR),
                                   "install dir");
    }
    if (!ok)
        kiln_search_list_free(list);
    return ok;
}
