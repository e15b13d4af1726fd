/*
 * The part of the CUDA prelude one translation needs.
 *
 * NVRTC reads every line of the header it is given, for every program, and
 * most kernels use a small part of the prelude (the work-item functions;
 * no vector type, no atomic).  The prelude is cut into sections by lines
 * "/" "* @section NAME *" "/"; the text before the first and after the line
 * "/" "* @end *" "/" is always kept.
 *
 * Which section a name belongs to is read off the prelude itself, so that
 * nothing here has to be kept in step with it: a section owns the prelude
 * names (kl_*, KL_*, __kiln_*) whose first appearance in code (comments and
 * strings skipped) is in it, and as prefixes the names ending in '_' that
 * macros paste onto (KL_ATOMICS(kl_atomic_) defines kl_atomic_add).  A
 * section needs the sections owning the names its code mentions; a
 * translation needs the sections owning the names it mentions, with what
 * those need.  A kl_ name no section owns takes the whole prelude: a name
 * this cannot place costs compile time, never a failed build.
 *
 * Two kinds of section are chosen by what the translation does rather than
 * by the names it mentions.  The sections "vecN" hold the vector types of
 * width N: a program gets the widths it names (kl_float4 is in vec4), the
 * widths of its loads and stores (kl_vload<N>, kl_vstore_half<N, M>), and,
 * when it has a swizzle, every width up to its widest (.lo of a float8 is
 * a float4 it never names).  The section "volatile" holds volatile
 * vectors' members: a program gets it when it says volatile and has
 * vectors.
 */
#include "opencl_to_cuda.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SECTION_MAX 64

typedef struct prelude_section {
    size_t begin, end; /* the section's text in the prelude */
    uint64_t needs;    /* the other sections its code mentions names of */
    int width;         /* N for the section "vecN" of width-N vectors, else 0 */
    int is_volatile;   /* the section "volatile": volatile vectors' members */
} prelude_section;

typedef struct owned_name {
    const char *text;  /* in the prelude; NULL: an empty slot */
    size_t length;
    int section;
} owned_name;

typedef struct prelude_map {
    const char *prelude;
    prelude_section sections[SECTION_MAX];
    int count;             /* sections, the always-kept ones included */
    size_t kept_end;       /* the prologue: [0, kept_end) */
    size_t epilogue;       /* [epilogue, end of prelude) */
    owned_name *names;     /* open addressing, `capacity` a power of 2 */
    size_t capacity, used;
    owned_name *prefixes;  /* owned names ending in '_' */
    size_t prefix_count, prefix_capacity;
} prelude_map;

static int is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* kl_*, KL_* and __kiln_*: the prelude's own names. */
static int is_prelude_name(const char *text, size_t length)
{
    return (length > 3 && (strncmp(text, "kl_", 3) == 0 ||
                           strncmp(text, "KL_", 3) == 0)) ||
           (length > 7 && strncmp(text, "__kiln_", 7) == 0);
}

/* The next identifier in [*cursor, end), skipping numbers and, when
 * `code_only`, comments and string and character literals.  Returns 0 at
 * the end. */
static int next_ident(const char **cursor, const char *end, int code_only,
                      const char **text, size_t *length)
{
    const char *p = *cursor;
    while (p < end) {
        if (code_only && p + 1 < end && p[0] == '/' && p[1] == '*') {
            const char *close = p + 2;
            while (close + 1 < end && !(close[0] == '*' && close[1] == '/'))
                ++close;
            p = close + 2 < end ? close + 2 : end;
        } else if (code_only && p + 1 < end && p[0] == '/' && p[1] == '/') {
            while (p < end && *p != '\n')
                ++p;
        } else if (code_only && (*p == '"' || *p == '\'')) {
            char quote = *p++;
            while (p < end && *p != quote && *p != '\n')
                p += (*p == '\\' && p + 1 < end) ? 2 : 1;
            if (p < end)
                ++p;
        } else if (*p >= '0' && *p <= '9') {
            /* a number, with its suffixes and hexadecimal digits */
            while (p < end && (is_ident_char(*p) || *p == '.'))
                ++p;
        } else if (is_ident_start(*p)) {
            const char *start = p;
            while (p < end && is_ident_char(*p))
                ++p;
            *text = start;
            *length = (size_t)(p - start);
            *cursor = p;
            return 1;
        } else {
            ++p;
        }
    }
    *cursor = end;
    return 0;
}

static size_t name_hash(const char *text, size_t length)
{
    size_t hash = 2166136261u;
    for (size_t i = 0; i < length; ++i)
        hash = (hash ^ (unsigned char)text[i]) * 16777619u;
    return hash;
}

static owned_name *name_slot(prelude_map *map, const char *text,
                             size_t length)
{
    size_t mask = map->capacity - 1;
    for (size_t i = name_hash(text, length) & mask;; i = (i + 1) & mask) {
        owned_name *slot = &map->names[i];
        if (slot->text == NULL || (slot->length == length &&
                                   memcmp(slot->text, text, length) == 0))
            return slot;
    }
}

/* The section owning `text` by its longest owned prefix; -1 when none. */
static int prefix_owner(const prelude_map *map, const char *text,
                        size_t length)
{
    int owner = -1;
    size_t best = 0;
    for (size_t i = 0; i < map->prefix_count; ++i) {
        const owned_name *p = &map->prefixes[i];
        if (p->length < length && p->length > best &&
            memcmp(p->text, text, p->length) == 0) {
            owner = p->section;
            best = p->length;
        }
    }
    return owner;
}

static int name_owner(const prelude_map *map, const char *text, size_t length)
{
    const owned_name *slot = name_slot((prelude_map *)map, text, length);
    return slot->text != NULL ? slot->section
                              : prefix_owner(map, text, length);
}

/* Records the names of section `s`: -1 when memory runs out. */
static int section_scan(prelude_map *map, int s)
{
    prelude_section *section = &map->sections[s];
    const char *cursor = map->prelude + section->begin;
    const char *end = map->prelude + section->end;
    const char *text;
    size_t length;
    while (next_ident(&cursor, end, 1, &text, &length)) {
        if (!is_prelude_name(text, length))
            continue;
        if (2 * (map->used + 1) > map->capacity) {
            /* grow: rehash into twice the room */
            owned_name *old = map->names;
            size_t old_capacity = map->capacity;
            map->capacity = old_capacity ? 2 * old_capacity : 1024;
            map->names = calloc(map->capacity, sizeof *map->names);
            if (map->names == NULL) {
                map->names = old;
                map->capacity = old_capacity;
                return -1;
            }
            for (size_t i = 0; i < old_capacity; ++i)
                if (old[i].text != NULL)
                    *name_slot(map, old[i].text, old[i].length) = old[i];
            free(old);
        }
        owned_name *slot = name_slot(map, text, length);
        if (slot->text == NULL) {
            /* A name first met here belongs here, unless a macro of an
             * earlier section pasted it together (kl_native_ + cos). */
            int owner = prefix_owner(map, text, length);
            *slot = (owned_name){text, length, owner >= 0 ? owner : s};
            ++map->used;
            if (text[length - 1] == '_') {
                if (map->prefix_count == map->prefix_capacity) {
                    size_t capacity = map->prefix_capacity
                                          ? 2 * map->prefix_capacity
                                          : 64;
                    owned_name *grown = realloc(
                        map->prefixes, capacity * sizeof *grown);
                    if (grown == NULL)
                        return -1;
                    map->prefixes = grown;
                    map->prefix_capacity = capacity;
                }
                map->prefixes[map->prefix_count++] = *slot;
            }
        }
        if (slot->section != s)
            section->needs |= (uint64_t)1 << slot->section;
    }
    return 0;
}

/* N when the section named at `name` is "vecN" (the vector types of
 * width N), else 0. */
static int vector_width_of(const char *name, const char *end)
{
    if (end - name < 4 || memcmp(name, "vec", 3) != 0)
        return 0;
    int width = 0;
    for (name += 3; name < end && *name >= '0' && *name <= '9'; ++name)
        width = width * 10 + (*name - '0');
    return name < end && *name == ' ' && width > 0 && width <= 16 ? width : 0;
}

/* The vector widths (bit N for width N) a translation makes vectors of
 * without naming their types: kl_vload<N> and the other loads and stores
 * give width N; a swizzle kl_swc<...> makes a width it lists (code 100+k:
 * k components) or, for lo/hi/even/odd, half of its base's, so it sets
 * SWIZZLE_BIT and the caller adds every width up to the widest present. */
#define SWIZZLE_BIT 1u
static unsigned unnamed_vector_widths(const char *translation,
                                      int *says_volatile)
{
    unsigned widths = 0;
    const char *cursor = translation;
    const char *end = translation + strlen(translation);
    const char *text;
    size_t n;
    *says_volatile = 0;
    while (next_ident(&cursor, end, 0, &text, &n)) {
        if (n == 8 && memcmp(text, "volatile", 8) == 0)
            *says_volatile = 1;
        int swizzle = n == 6 && memcmp(text, "kl_swc", 6) == 0;
        if (!swizzle && !((n >= 8 && memcmp(text, "kl_vload", 8) == 0) ||
                          (n >= 9 && memcmp(text, "kl_vstore", 9) == 0)))
            continue;
        if (cursor >= end || *cursor != '<')
            continue;
        if (swizzle)
            widths |= SWIZZLE_BIT;
        /* the template arguments: numbers, possibly negative */
        const char *p = cursor + 1;
        int listed = 0; /* components still to skip after a 100+k code */
        while (p < end && *p != '>') {
            while (p < end && (*p == ' ' || *p == ','))
                ++p;
            int negative = p < end && *p == '-';
            if (negative)
                ++p;
            int value = 0;
            if (p >= end || *p < '0' || *p > '9')
                break;
            while (p < end && *p >= '0' && *p <= '9' && value < 1000)
                value = value * 10 + (*p++ - '0');
            if (!swizzle) {
                if (value >= 2 && value <= 16)
                    widths |= 1u << value;
                break; /* the width is the first argument */
            }
            if (listed > 0) {
                --listed;
            } else if (!negative && value > 101 && value <= 116) {
                widths |= 1u << (value - 100);
                listed = value - 100;
            }
        }
    }
    return widths;
}

static int line_is(const char *line, const char *end, const char *prefix)
{
    size_t n = strlen(prefix);
    return (size_t)(end - line) >= n && memcmp(line, prefix, n) == 0;
}

/* Cuts the prelude at its marker lines: 0, 1 when it has none (or too
 * many sections: then it is kept whole), -1 when memory runs out. */
static int map_build(prelude_map *map, const char *prelude)
{
    memset(map, 0, sizeof *map);
    map->prelude = prelude;
    size_t size = strlen(prelude);
    map->epilogue = size;
    const char *p = prelude, *end = prelude + size;
    int in_sections = 0;
    while (p < end) {
        const char *line_end = memchr(p, '\n', (size_t)(end - p));
        const char *next = line_end ? line_end + 1 : end;
        line_end = line_end ? line_end : end;
        size_t at = (size_t)(p - prelude);
        if (line_is(p, line_end, "/* @section ")) {
            if (!in_sections)
                map->kept_end = at;
            else
                map->sections[map->count - 1].end = at;
            if (map->count == SECTION_MAX)
                return 1;
            const char *name = p + strlen("/* @section ");
            map->sections[map->count++] = (prelude_section){
                (size_t)(next - prelude), size, 0,
                vector_width_of(name, line_end),
                line_is(name, line_end, "volatile ")};
            in_sections = 1;
        } else if (line_is(p, line_end, "/* @end */") && in_sections) {
            map->sections[map->count - 1].end = at;
            map->epilogue = at;
            break;
        }
        p = next;
    }
    if (map->count == 0)
        return 1;
    /* The prologue's names belong to no section (it is always kept): scan
     * it as a pseudo-section past the real ones. */
    int prologue = map->count;
    if (prologue == SECTION_MAX)
        return 1;
    map->sections[prologue] = (prelude_section){0, map->kept_end, 0, 0, 0};
    if (section_scan(map, prologue) != 0)
        return -1;
    for (int s = 0; s < map->count; ++s)
        if (section_scan(map, s) != 0)
            return -1;
    return 0;
}

static void map_free(prelude_map *map)
{
    free(map->names);
    free(map->prefixes);
}

char *prelude_cuda_select(const char *prelude, const char *translation,
                         size_t *length)
{
    prelude_map map;
    int built = map_build(&map, prelude);
    if (built < 0) {
        map_free(&map);
        return NULL;
    }
    uint64_t all = map.count >= 64 ? ~(uint64_t)0
                                   : ((uint64_t)1 << map.count) - 1;
    uint64_t needed = 0;
    if (built != 0) {
        needed = all;
    } else {
        const char *cursor = translation;
        const char *end = translation + strlen(translation);
        const char *text;
        size_t n;
        while (needed != all && next_ident(&cursor, end, 0, &text, &n)) {
            if (!is_prelude_name(text, n) ||
                (n > 6 && strncmp(text, "kl_kw_", 6) == 0) ||
                (n > 16 && strncmp(text, "kl_local_offset_", 16) == 0))
                continue; /* user names the translator made */
            int owner = name_owner(&map, text, n);
            if (owner < 0)
                needed = all;
            else if (owner < map.count)
                needed |= (uint64_t)1 << owner;
        }
        /* the widths of vectors made without naming their type; with a
         * swizzle, every width up to the widest the program has */
        int says_volatile = 0;
        unsigned widths = unnamed_vector_widths(translation, &says_volatile);
        for (int s = 0; s < map.count; ++s)
            if (needed & ((uint64_t)1 << s) && map.sections[s].width > 0)
                widths |= 1u << map.sections[s].width;
        if (widths & SWIZZLE_BIT) {
            unsigned widest = widths & ~SWIZZLE_BIT;
            while (widest & (widest - 1))
                widest &= widest - 1;
            widths |= widest - 1;
        }
        for (int s = 0; s < map.count; ++s)
            if (map.sections[s].width > 0 &&
                (widths & (1u << map.sections[s].width)))
                needed |= (uint64_t)1 << s;
        /* volatile vectors' members, for programs with vectors that say
         * volatile (most say it of scalars, for atomics) */
        for (int s = 0; s < map.count; ++s)
            if (map.sections[s].is_volatile && says_volatile &&
                (widths & ~SWIZZLE_BIT) != 0)
                needed |= (uint64_t)1 << s;
        /* what the needed sections need, until nothing is added */
        for (uint64_t before = 0; before != needed;) {
            before = needed;
            for (int s = 0; s < map.count; ++s)
                if (needed & ((uint64_t)1 << s))
                    needed |= map.sections[s].needs & all;
        }
    }

    size_t size = strlen(prelude);
    char *out = malloc(size + 1);
    if (out == NULL) {
        map_free(&map);
        return NULL;
    }
    size_t used = 0;
    if (built != 0 || needed == all) {
        memcpy(out, prelude, size);
        used = size;
    } else {
        memcpy(out, prelude, map.kept_end);
        used = map.kept_end;
        for (int s = 0; s < map.count; ++s) {
            if (!(needed & ((uint64_t)1 << s)))
                continue;
            size_t n = map.sections[s].end - map.sections[s].begin;
            memcpy(out + used, prelude + map.sections[s].begin, n);
            used += n;
        }
        memcpy(out + used, prelude + map.epilogue, size - map.epilogue);
        used += size - map.epilogue;
    }
    out[used] = '\0';
    if (length != NULL)
        *length = used;
    map_free(&map);
    return out;
}
