/*
 * kiln-compare: differential testing of an OpenCL C file (or a CUDA C
 * file: FILE.cu, natively on CUDA and translated to OpenCL C on OpenCL)
 * on two backends or devices.  Every kernel (or those named with -k) is launched on side a
 * and on side b with identical, seeded random inputs; every buffer is read
 * back from both and compared element by element, by type.  The point is
 * to show that a kernel computes the same on CUDA (through Kiln's
 * translation) as on OpenCL.
 *
 *   kiln-compare [-a BACKEND[:DEVICE]] [-b BACKEND[:DEVICE]] [-k KERNEL]...
 *                [-g GLOBAL] [-l LOCAL] [-s SEED] [-t REL_TOLERANCE]
 *                [-D NAME[=VALUE]]... [-I DIR]... [-A OPTION]... [-B OPTION]...
 *                [-v] FILE.cl
 *
 * What each kernel gets (1-D launches only):
 *  - global size -g (default 4096, rounded up to a multiple of the local
 *    size); local size -l, else the kernel's one allowed size when both
 *    sides' kiln_kernel_get_max_block_size agree and are below their devices'
 *    maximum (a reqd_work_group_size), else 64 (or the smaller of the two
 *    limits when that is below 64);
 *  - a __global / __constant pointer: a buffer of global * 16 elements of
 *    the pointee type: floating-point values uniform in [-1, 1] (half: of
 *    magnitude below 1), integers uniform in [0, 256) ([0, 128) for char)
 *    so that values used as indices stay in range; a pointee type it does
 *    not know (a struct, a typedef) gets global * 256 random bytes;
 *  - a __local pointer: local * 256 bytes (16 elements of up to 16 bytes
 *    per work-item);
 *  - a value: an integer scalar is the global size (the usual 'n'),
 *    clamped to its type; a float, double or half scalar, and each
 *    component of such a vector, is random in [0.5, 2]; each component of
 *    an integer vector is random in [0, 256); anything else is random
 *    bytes.
 * The data depend only on the seed (-s, default 1), the kernel's name and
 * its parameters, so -k selects a kernel without changing its inputs.
 *
 * Comparison: integers and unknown types exactly; float, double and half
 * with |a - b| <= max(t * max(|a|, |b|), 1e-6), t from -t (default 1e-4),
 * NaN equal to NaN whatever its payload; the unused fourth lane of a
 * 3-component vector is not compared.
 *
 * Exit status: 0 when every kernel matched; 1 on any mismatch, build or
 * launch failure; 2 on a usage error or an unreadable file; 3 when a side's
 * backend or device cannot be used (the message says why).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kiln.h"
#include "tool_options.h"

#define ELEMENTS_PER_ITEM 16    /* buffer elements per work-item          */
#define UNKNOWN_BYTES_PER_ITEM 256
#define LOCAL_BYTES_PER_ITEM 256 /* 16 elements of up to 16 bytes         */
#define DEFAULT_GLOBAL 4096
#define DEFAULT_LOCAL 64
#define DEFAULT_TOLERANCE 1e-4
#define ABSOLUTE_FLOOR 1e-6
#define SHOWN_DIFFERENCES 3
#define SHOWN_DIFFERENCES_VERBOSE 64
#define LOG_LINES 12

#define EXIT_MISMATCH 1
#define EXIT_USAGE 2
#define EXIT_UNAVAILABLE 3

/* ---- options ------------------------------------------------------------ */

typedef struct side {
    char label;              /* 'a' or 'b'                                 */
    char backend[32];
    int device;
    char *options;           /* build options: common ones, then its own   */
    kiln_context *context;
    kiln_program *program;
    size_t max_threads;      /* the device's threads per block             */
    uint64_t local_memory;   /* the device's local memory per block        */
} side;

typedef struct settings {
    size_t global;
    size_t local;            /* 0: chosen per kernel                       */
    uint64_t seed;
    double tolerance;
    bool verbose;
    const char **kernels;    /* -k, in order                               */
    size_t kernel_count;
    const char *path;
} settings;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kiln-compare [-a BACKEND[:DEVICE]] [-b BACKEND[:DEVICE]] "
            "[-k KERNEL]...\n"
            "                    [-g GLOBAL] [-l LOCAL] [-s SEED] "
            "[-t REL_TOLERANCE]\n"
            "                    [-D NAME[=VALUE]]... [-I DIR]... "
            "[-A OPTION]... [-B OPTION]... [-v] FILE.cl|FILE.cu\n"
            "       kiln-compare -h|--help | -V|--version\n"
            "Runs the kernels of FILE.cl on two backends (default a = cuda, "
            "b = opencl,\ndevice 0 each) with identical random inputs and "
            "compares every buffer.\n"
            "  -k KERNEL   only this kernel (repeatable; default: every "
            "kernel)\n"
            "  -g GLOBAL   1-D global size (default %d)\n"
            "  -l LOCAL    work-group size (default %d, or the kernel's "
            "required size)\n"
            "  -s SEED     random seed (default 1)\n"
            "  -t TOL      relative tolerance for floating point (default "
            "%g; absolute floor %g)\n"
            "  -D, -I      build options for both sides\n"
            "  -A, -B      a build option for side a or b only (-B "
            "-DBREAK=1)\n"
            "  -v          show sizes and arguments, and up to 64 differences "
            "per buffer\n"
            "Exit status: 0 all match, 1 a mismatch or failure, 2 usage, "
            "3 a backend cannot be used.\n",
            DEFAULT_GLOBAL, DEFAULT_LOCAL, DEFAULT_TOLERANCE, ABSOLUTE_FLOOR);
}

/* Appends " word" to a malloc'ed option string. */
static bool options_add(char **options, const char *prefix, const char *word)
{
    size_t old = *options ? strlen(*options) : 0;
    size_t need = old + 1 + strlen(prefix) + strlen(word) + 1;
    char *grown = realloc(*options, need);
    if (grown == NULL)
        return false;
    snprintf(grown + old, need - old, "%s%s%s", old ? " " : "", prefix, word);
    *options = grown;
    return true;
}

static bool parse_side(const char *text, side *out)
{
    const char *colon = strchr(text, ':');
    size_t length = colon ? (size_t)(colon - text) : strlen(text);
    if (length == 0 || length >= sizeof out->backend)
        return false;
    memcpy(out->backend, text, length);
    out->backend[length] = '\0';
    out->device = 0;
    if (colon != NULL) {
        char *end = NULL;
        long device = strtol(colon + 1, &end, 10);
        if (colon[1] == '\0' || *end != '\0' || device < 0 || device > 1000000)
            return false;
        out->device = (int)device;
    }
    return true;
}

static bool parse_size(const char *text, size_t *value)
{
    char *end = NULL;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || parsed == 0 ||
        parsed > (1ull << 32))
        return false;
    *value = (size_t)parsed;
    return true;
}

/* ---- seeded random data --------------------------------------------------- */

static uint64_t random_next(uint64_t *state)
{
    /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [low, high). */
static double random_real(uint64_t *state, double low, double high)
{
    return low + (high - low) * (double)(random_next(state) >> 11) *
                     (1.0 / 9007199254740992.0);
}

static uint64_t seed_for(uint64_t seed, const char *kernel)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (const char *p = kernel; *p; ++p)
        hash = (hash ^ (unsigned char)*p) * 0x100000001b3ull;
    return seed ^ hash;
}

/* ---- element types ------------------------------------------------------- */

typedef enum element_class {
    ELEMENT_SIGNED,
    ELEMENT_UNSIGNED,
    ELEMENT_FLOAT,           /* float or double, by scalar_size           */
    ELEMENT_HALF,
    ELEMENT_BYTES            /* a type this tool does not know            */
} element_class;

typedef struct element_type {
    element_class kind;
    size_t scalar_size;      /* bytes of one component                    */
    size_t lanes;            /* components stored (3-vectors: 4)          */
    size_t used_lanes;       /* components compared (3-vectors: 3)        */
} element_type;

static const struct {
    const char *name;
    element_class kind;
    size_t size;
} scalar_types[] = {
    {"char", ELEMENT_SIGNED, 1},    {"uchar", ELEMENT_UNSIGNED, 1},
    {"short", ELEMENT_SIGNED, 2},   {"ushort", ELEMENT_UNSIGNED, 2},
    {"int", ELEMENT_SIGNED, 4},     {"uint", ELEMENT_UNSIGNED, 4},
    {"long", ELEMENT_SIGNED, 8},    {"ulong", ELEMENT_UNSIGNED, 8},
    {"float", ELEMENT_FLOAT, 4},    {"double", ELEMENT_FLOAT, 8},
    {"half", ELEMENT_HALF, 2},
};

static const element_type bytes_type = {ELEMENT_BYTES, 1, 1, 1};

/* CUDA C (FILE.cu, FILE.cuh): its type names and CUDA's layout of
 * 3-component vectors (12-byte float3), and each launch gets dynamic shared
 * memory for extern __shared__. */
static bool cuda_source;

/* The type of an OpenCL type name ("const float*" pointing at floats with
 * `pointer`, "uint4", "unsigned int"); ELEMENT_BYTES when unknown. */
static element_type parse_type(const char *type_name, bool pointer)
{
    char text[128];
    size_t length = strlen(type_name);
    if (length == 0 || length >= sizeof text)
        return bytes_type;
    memcpy(text, type_name, length + 1);
    /* The pointer's own star; a second one is a pointer to pointers. */
    char *star = strchr(text, '*');
    if (pointer != (star != NULL))
        return bytes_type;
    if (star != NULL) {
        *star = ' ';
        if (strchr(star, '*') != NULL)
            return bytes_type;
    }
    static const char *const ignored[] = {
        "const",    "volatile", "restrict", "__restrict", "__global",
        "global",   "__constant", "constant", "__private", "private",
        "signed",   NULL};
    bool is_unsigned = false;
    const char *base = NULL;
    char *save = NULL;
    for (char *word = strtok_r(text, " \t", &save); word != NULL;
         word = strtok_r(NULL, " \t", &save)) {
        bool skip = false;
        for (size_t i = 0; ignored[i] != NULL; ++i)
            skip = skip || strcmp(word, ignored[i]) == 0;
        if (skip)
            continue;
        if (strcmp(word, "unsigned") == 0) {
            is_unsigned = true;
            continue;
        }
        if (base != NULL && strcmp(base, "long") == 0 &&
            strcmp(word, "long") == 0)
            continue; /* CUDA's long long is OpenCL's long */
        if (base != NULL) /* "struct foo": not ours */
            return bytes_type;
        base = word;
    }
    if (base != NULL && (strcmp(base, "size_t") == 0 ||
                         strcmp(base, "uintptr_t") == 0))
        base = "ulong";
    else if (base != NULL && (strcmp(base, "ptrdiff_t") == 0 ||
                              strcmp(base, "intptr_t") == 0))
        base = "long";
    if (base == NULL)
        base = is_unsigned ? "int" : "";
    char name[32];
    size_t base_length = strlen(base);
    size_t digits = 0;
    while (digits < base_length && base[base_length - 1 - digits] >= '0' &&
           base[base_length - 1 - digits] <= '9')
        ++digits;
    size_t lanes = 1;
    if (digits > 0) {
        lanes = (size_t)strtoul(base + base_length - digits, NULL, 10);
        if (lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 &&
            lanes != 16)
            return bytes_type;
    }
    if (base_length - digits + 2 >= sizeof name)
        return bytes_type;
    snprintf(name, sizeof name, "%s%.*s", is_unsigned ? "u" : "",
             (int)(base_length - digits), base);
    for (size_t i = 0; i < sizeof scalar_types / sizeof *scalar_types; ++i) {
        if (strcmp(name, scalar_types[i].name) != 0)
            continue;
        element_type type = {scalar_types[i].kind, scalar_types[i].size,
                             lanes == 3 && !cuda_source ? 4 : lanes, lanes};
        return type;
    }
    return bytes_type;
}

static uint16_t half_random(uint64_t *state)
{
    /* Sign, an exponent of 2^-14 .. 2^-1 and any mantissa: |x| < 1. */
    uint64_t r = random_next(state);
    uint16_t sign = (uint16_t)((r & 1) << 15);
    uint16_t exponent = (uint16_t)(1 + (r >> 1) % 14);
    uint16_t mantissa = (uint16_t)((r >> 8) & 0x3ff);
    return (uint16_t)(sign | exponent << 10 | mantissa);
}

static uint16_t half_from(double value)
{
    /* For values in [0.5, 2]: normal, exponent -1 .. 1. */
    int exponent = 0;
    double fraction = frexp(value, &exponent); /* value = f * 2^e, f in [0.5, 1) */
    unsigned mantissa = (unsigned)((fraction * 2.0 - 1.0) * 1024.0);
    return (uint16_t)((unsigned)(exponent - 1 + 15) << 10 | (mantissa & 0x3ff));
}

static double half_value(uint16_t bits)
{
    int exponent = (bits >> 10) & 0x1f;
    int mantissa = bits & 0x3ff;
    double sign = (bits & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0x1f)
        return mantissa ? NAN : sign * INFINITY;
    if (exponent == 0)
        return sign * ldexp(mantissa, -24);
    return sign * ldexp(1024 + mantissa, exponent - 25);
}

static void store_scalar(unsigned char *to, const element_type *type,
                         uint64_t integer, double real)
{
    switch (type->kind) {
    case ELEMENT_FLOAT:
        if (type->scalar_size == 4) {
            float value = (float)real;
            memcpy(to, &value, sizeof value);
        } else {
            memcpy(to, &real, sizeof real);
        }
        return;
    case ELEMENT_HALF: {
        uint16_t bits = half_from(real);
        memcpy(to, &bits, sizeof bits);
        return;
    }
    default:
        /* Little-endian hosts and devices: Kiln's backends all are. */
        memcpy(to, &integer, type->scalar_size);
        return;
    }
}

/* A buffer's contents: floating point in [-1, 1], integers in [0, 256)
 * ([0, 128) for char), unknown bytes random; never all zero. */
static void fill_buffer(unsigned char *data, size_t bytes,
                        const element_type *type, uint64_t *state)
{
    size_t scalar = type->scalar_size;
    for (size_t at = 0; at + scalar <= bytes; at += scalar) {
        if (type->kind == ELEMENT_HALF) {
            uint16_t bits = half_random(state);
            memcpy(data + at, &bits, sizeof bits);
        } else if (type->kind == ELEMENT_FLOAT) {
            store_scalar(data + at, type, 0, random_real(state, -1.0, 1.0));
        } else {
            uint64_t limit = type->kind == ELEMENT_SIGNED && scalar == 1 ? 128
                                                                         : 256;
            store_scalar(data + at, type, random_next(state) % limit, 0.0);
        }
    }
    bool all_zero = true;
    for (size_t i = 0; all_zero && i < bytes; ++i)
        all_zero = data[i] == 0;
    if (all_zero && bytes >= scalar)
        store_scalar(data, type, 1, 0.5);
}

/* A value argument: see the file's comment. */
static void fill_value(unsigned char *data, size_t size,
                       const element_type *type, size_t global,
                       uint64_t *state)
{
    if (type->kind == ELEMENT_BYTES ||
        type->scalar_size * type->lanes != size) {
        for (size_t i = 0; i < size; ++i)
            data[i] = (unsigned char)random_next(state);
        return;
    }
    memset(data, 0, size);
    for (size_t lane = 0; lane < type->used_lanes; ++lane) {
        unsigned char *to = data + lane * type->scalar_size;
        if (type->kind == ELEMENT_FLOAT || type->kind == ELEMENT_HALF) {
            store_scalar(to, type, 0, random_real(state, 0.5, 2.0));
        } else if (type->lanes > 1) {
            store_scalar(to, type, random_next(state) % 256, 0.0);
        } else {
            unsigned bits = (unsigned)type->scalar_size * 8;
            uint64_t max = type->kind == ELEMENT_SIGNED
                               ? (UINT64_C(1) << (bits - 1)) - 1
                               : bits == 64 ? UINT64_MAX
                                            : (UINT64_C(1) << bits) - 1;
            store_scalar(to, type, global < max ? global : max, 0.0);
        }
    }
}

/* ---- comparing ------------------------------------------------------------ */

static double component_real(const unsigned char *at, const element_type *type)
{
    if (type->kind == ELEMENT_HALF) {
        uint16_t bits;
        memcpy(&bits, at, sizeof bits);
        return half_value(bits);
    }
    if (type->scalar_size == 4) {
        float value;
        memcpy(&value, at, sizeof value);
        return value;
    }
    double value;
    memcpy(&value, at, sizeof value);
    return value;
}

static bool components_equal(const unsigned char *a, const unsigned char *b,
                             const element_type *type, double tolerance)
{
    if (type->kind != ELEMENT_FLOAT && type->kind != ELEMENT_HALF)
        return memcmp(a, b, type->scalar_size) == 0;
    double x = component_real(a, type), y = component_real(b, type);
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y);
    if (x == y)
        return true;
    if (isinf(x) || isinf(y))
        return false;
    double bound = tolerance * fmax(fabs(x), fabs(y));
    return fabs(x - y) <= fmax(bound, ABSOLUTE_FLOOR);
}

static void format_component(char *out, size_t size, const unsigned char *at,
                             const element_type *type)
{
    uint64_t raw = 0;
    switch (type->kind) {
    case ELEMENT_FLOAT:
    case ELEMENT_HALF:
        snprintf(out, size, "%.*g",
                 type->scalar_size == 8 ? 17 : type->scalar_size == 4 ? 9 : 5,
                 component_real(at, type));
        return;
    case ELEMENT_SIGNED: {
        memcpy(&raw, at, type->scalar_size);
        unsigned bits = (unsigned)type->scalar_size * 8;
        int64_t value = (int64_t)raw;
        if (bits < 64 && (raw >> (bits - 1)) & 1)
            value = (int64_t)(raw | ~((UINT64_C(1) << bits) - 1));
        snprintf(out, size, "%" PRId64, value);
        return;
    }
    case ELEMENT_UNSIGNED:
        memcpy(&raw, at, type->scalar_size);
        snprintf(out, size, "%" PRIu64, raw);
        return;
    case ELEMENT_BYTES:
        snprintf(out, size, "0x%02x", at[0]);
        return;
    }
}

/* ---- one kernel --------------------------------------------------------- */

typedef struct argument {
    kiln_param_info info;      /* side a's                                 */
    element_type type;
    size_t bytes;              /* buffer or value bytes; local bytes       */
    unsigned char *host;       /* inputs (buffer or value)                 */
    unsigned char *back[2];    /* read back from a and b                   */
    kiln_buffer *buffer[2];
} argument;

typedef struct run {
    const char *name;
    kiln_kernel *kernel[2];
    size_t count;
    argument *args;
    kiln_arg *launch_args[2];
} run;

static void run_free(run *r)
{
    for (int s = 0; s < 2; ++s) {
        if (r->kernel[s] != NULL)
            kiln_kernel_release(r->kernel[s]);
        free(r->launch_args[s]);
    }
    for (size_t i = 0; r->args != NULL && i < r->count; ++i) {
        argument *arg = &r->args[i];
        free(arg->host);
        for (int s = 0; s < 2; ++s) {
            free(arg->back[s]);
            if (arg->buffer[s] != NULL)
                kiln_buffer_release(arg->buffer[s]);
        }
    }
    free(r->args);
}

/* "launch failed on opencl:0 (b): KILN_ERR_...: message" */
static void print_side_error(const char *kernel, const char *what,
                             const side *on, kiln_status status)
{
    printf("kernel %s: %s on %s:%d (%c): %s: %s\n", kernel, what, on->backend,
           on->device, on->label, kiln_status_name(status),
           kiln_last_error());
}

static const char *kind_text(kiln_param_kind kind)
{
    switch (kind) {
    case KILN_PARAM_BUFFER:
        return "buffer";
    case KILN_PARAM_LOCAL:
        return "local";
    case KILN_PARAM_VALUE:
        return "value";
    case KILN_PARAM_POINTER_OR_VALUE:
        return "pointer-or-value";
    }
    return "?";
}

/* Both sides take the same parameters (kinds, and sizes of values). */
static bool same_parameters(run *r, side *sides)
{
    size_t counts[2];
    for (int s = 0; s < 2; ++s)
        if (kiln_kernel_get_param_count(r->kernel[s], &counts[s]) != KILN_OK) {
            print_side_error(r->name, "parameters unknown", &sides[s],
                             KILN_ERR_BACKEND);
            return false;
        }
    if (counts[0] != counts[1]) {
        printf("kernel %s: MISMATCH: %zu parameters on a, %zu on b\n",
               r->name, counts[0], counts[1]);
        return false;
    }
    r->count = counts[0];
    r->args = calloc(r->count ? r->count : 1, sizeof *r->args);
    if (r->args == NULL) {
        printf("kernel %s: out of host memory\n", r->name);
        return false;
    }
    for (size_t i = 0; i < r->count; ++i) {
        kiln_param_info info[2];
        for (int s = 0; s < 2; ++s)
            if (kiln_kernel_get_param_info(r->kernel[s], i, &info[s]) != KILN_OK) {
                print_side_error(r->name, "parameters unknown", &sides[s],
                                 KILN_ERR_BACKEND);
                return false;
            }
        /* A backend that cannot tell a value's size (OpenCL's struct
         * parameters) says 0: the other side's size stands. */
        for (int s = 0; s < 2; ++s)
            if (info[s].kind == KILN_PARAM_VALUE && info[s].size == 0 &&
                info[1 - s].kind == KILN_PARAM_VALUE)
                info[s].size = info[1 - s].size;
        if (info[0].kind != info[1].kind ||
            (info[0].kind == KILN_PARAM_VALUE && info[0].size != info[1].size)) {
            printf("kernel %s: MISMATCH param %zu (%s): %s of %zu bytes on a, "
                   "%s of %zu bytes on b\n",
                   r->name, i, info[0].name, kind_text(info[0].kind),
                   info[0].size, kind_text(info[1].kind), info[1].size);
            return false;
        }
        if (info[0].kind != KILN_PARAM_BUFFER &&
            info[0].kind != KILN_PARAM_LOCAL &&
            info[0].kind != KILN_PARAM_VALUE) {
            printf("kernel %s: param %zu (%s): a %s parameter (native CUDA "
                   "C?) cannot be filled: kiln-compare takes OpenCL C\n",
                   r->name, i, info[0].name, kind_text(info[0].kind));
            return false;
        }
        r->args[i].info = info[0];
    }
    return true;
}

/* The work-group size: see the file's comment. */
static size_t choose_local(const run *r, const side *sides)
{
    size_t limit[2];
    for (int s = 0; s < 2; ++s)
        if (kiln_kernel_get_max_block_size(r->kernel[s], &limit[s]) != KILN_OK ||
            limit[s] == 0)
            limit[s] = DEFAULT_LOCAL;
    if (limit[0] == limit[1] && limit[0] < sides[0].max_threads &&
        limit[1] < sides[1].max_threads)
        return limit[0]; /* one fixed size: reqd_work_group_size */
    size_t smaller = limit[0] < limit[1] ? limit[0] : limit[1];
    return smaller < DEFAULT_LOCAL ? smaller : DEFAULT_LOCAL;
}

static bool prepare_arguments(run *r, side *sides, size_t global,
                              size_t local, uint64_t seed, bool verbose)
{
    uint64_t state = seed_for(seed, r->name);
    for (int s = 0; s < 2; ++s) {
        r->launch_args[s] = calloc(r->count ? r->count : 1,
                                   sizeof *r->launch_args[s]);
        if (r->launch_args[s] == NULL) {
            printf("kernel %s: out of host memory\n", r->name);
            return false;
        }
    }
    for (size_t i = 0; i < r->count; ++i) {
        argument *arg = &r->args[i];
        const kiln_param_info *info = &arg->info;
        if (info->kind == KILN_PARAM_LOCAL) {
            arg->bytes = local * LOCAL_BYTES_PER_ITEM;
            for (int s = 0; s < 2; ++s)
                r->launch_args[s][i] = KILN_ARG_LOCAL(arg->bytes);
            if (verbose)
                printf("  param %zu (%s %s): local, %zu bytes\n", i,
                       info->type_name, info->name, arg->bytes);
            continue;
        }
        bool is_buffer = info->kind == KILN_PARAM_BUFFER;
        arg->type = parse_type(info->type_name, is_buffer);
        if (is_buffer)
            arg->bytes = arg->type.kind == ELEMENT_BYTES
                             ? global * UNKNOWN_BYTES_PER_ITEM
                             : global * ELEMENTS_PER_ITEM *
                                   arg->type.scalar_size * arg->type.lanes;
        else
            arg->bytes = info->size;
        if (arg->bytes == 0) {
            printf("kernel %s: param %zu (%s): the backend gives no size for "
                   "this value\n",
                   r->name, i, info->name);
            return false;
        }
        arg->host = malloc(arg->bytes);
        if (arg->host == NULL) {
            printf("kernel %s: out of host memory for %zu bytes\n", r->name,
                   arg->bytes);
            return false;
        }
        if (is_buffer)
            fill_buffer(arg->host, arg->bytes, &arg->type, &state);
        else
            fill_value(arg->host, arg->bytes, &arg->type, global, &state);
        if (verbose) {
            char first[64] = "";
            if (arg->type.kind != ELEMENT_BYTES || !is_buffer)
                format_component(first, sizeof first, arg->host, &arg->type);
            printf("  param %zu (%s %s): %s, %zu bytes%s%s%s\n", i,
                   info->type_name, info->name, is_buffer ? "buffer" : "value",
                   arg->bytes,
                   arg->type.kind == ELEMENT_BYTES ? " (raw bytes)" : "",
                   first[0] ? ", first " : "", first);
        }
        for (int s = 0; s < 2; ++s) {
            if (!is_buffer) {
                r->launch_args[s][i] = KILN_ARG_VALUE(arg->host, arg->bytes);
                continue;
            }
            kiln_status status = kiln_buffer_create_from(
                sides[s].context, arg->host, arg->bytes, &arg->buffer[s]);
            if (status != KILN_OK) {
                print_side_error(r->name, "buffer failed", &sides[s], status);
                return false;
            }
            arg->back[s] = malloc(arg->bytes);
            if (arg->back[s] == NULL) {
                printf("kernel %s: out of host memory\n", r->name);
                return false;
            }
            r->launch_args[s][i] = KILN_ARG_BUFFER(arg->buffer[s]);
        }
    }
    return true;
}

/* Compares one buffer; prints the first differences and their count. */
static bool compare_buffer(const run *r, size_t index, double tolerance,
                           bool verbose)
{
    const argument *arg = &r->args[index];
    const element_type *type = &arg->type;
    size_t element = type->scalar_size * type->lanes;
    size_t elements = arg->bytes / element;
    size_t differ = 0;
    for (size_t e = 0; e < elements; ++e) {
        for (size_t lane = 0; lane < type->used_lanes; ++lane) {
            size_t at = e * element + lane * type->scalar_size;
            if (components_equal(arg->back[0] + at, arg->back[1] + at, type,
                                 tolerance))
                continue;
            if (differ++ < (verbose ? SHOWN_DIFFERENCES_VERBOSE
                                    : SHOWN_DIFFERENCES)) {
                char a[64], b[64], lane_text[16] = "";
                format_component(a, sizeof a, arg->back[0] + at, type);
                format_component(b, sizeof b, arg->back[1] + at, type);
                if (type->used_lanes > 1)
                    snprintf(lane_text, sizeof lane_text, ".s%c",
                             "0123456789abcdef"[lane & 15]);
                printf("kernel %s: MISMATCH param %zu (%s) element %zu%s: "
                       "a=%s b=%s\n",
                       r->name, index, arg->info.name, e, lane_text, a, b);
            }
        }
    }
    if (differ > 0)
        printf("kernel %s: MISMATCH param %zu (%s): %zu of %zu %s differ\n",
               r->name, index, arg->info.name, differ,
               elements * type->used_lanes,
               type->kind == ELEMENT_BYTES ? "bytes" : "values");
    return differ == 0;
}

/* Runs one kernel on both sides; true when every buffer matched. */
static bool compare_kernel(const char *name, side *sides,
                           const settings *config)
{
    run r = {.name = name};
    bool ok = false;
    for (int s = 0; s < 2; ++s) {
        kiln_status status =
            kiln_kernel_create(sides[s].program, name, &r.kernel[s]);
        if (status != KILN_OK) {
            print_side_error(name, "not found", &sides[s], status);
            goto done;
        }
    }
    if (!same_parameters(&r, sides))
        goto done;
    size_t local = config->local ? config->local : choose_local(&r, sides);
    /* __local arguments of LOCAL_BYTES_PER_ITEM per work-item must fit in
     * half of the smaller device's local memory (the kernel may have
     * __local arrays of its own): a smaller work-group when they do not. */
    size_t local_params = 0;
    for (size_t i = 0; i < r.count; ++i)
        local_params += r.args[i].info.kind == KILN_PARAM_LOCAL;
    uint64_t room = sides[0].local_memory < sides[1].local_memory
                        ? sides[0].local_memory
                        : sides[1].local_memory;
    while (!config->local && local_params > 0 && local > 1 &&
           (uint64_t)local_params * local * LOCAL_BYTES_PER_ITEM > room / 2)
        local /= 2;
    size_t global = (config->global + local - 1) / local * local;
    if (config->verbose)
        printf("kernel %s: global %zu, local %zu, seed %" PRIu64 "\n", name,
               global, local, config->seed);
    if (!prepare_arguments(&r, sides, global, local, config->seed,
                           config->verbose))
        goto done;
    kiln_launch_config launch = {.grid = KILN_DIM1(global / local),
                                 .block = KILN_DIM1(local)};
    if (cuda_source) /* extern __shared__: 16 bytes per thread */
        launch.local_memory = local * 16;
    for (int s = 0; s < 2; ++s) {
        kiln_status status =
            kiln_launch(r.kernel[s], &launch, r.count, r.launch_args[s]);
        if (status == KILN_OK)
            status = kiln_context_synchronize(sides[s].context);
        if (status != KILN_OK) {
            print_side_error(name, "launch failed", &sides[s], status);
            goto done;
        }
    }
    size_t buffers = 0, bytes = 0;
    for (size_t i = 0; i < r.count; ++i) {
        argument *arg = &r.args[i];
        if (arg->info.kind != KILN_PARAM_BUFFER)
            continue;
        for (int s = 0; s < 2; ++s) {
            kiln_status status =
                kiln_buffer_read(arg->buffer[s], 0, arg->back[s], arg->bytes);
            if (status != KILN_OK) {
                print_side_error(name, "reading back failed", &sides[s],
                                 status);
                goto done;
            }
        }
        ++buffers;
        bytes += arg->bytes;
    }
    ok = true;
    for (size_t i = 0; i < r.count; ++i)
        if (r.args[i].info.kind == KILN_PARAM_BUFFER &&
            !compare_buffer(&r, i, config->tolerance, config->verbose))
            ok = false;
    if (ok)
        printf("kernel %s: match (%zu buffer%s, %zu bytes)\n", name, buffers,
               buffers == 1 ? "" : "s", bytes);
done:
    run_free(&r);
    return ok;
}

/* ---- the program on both sides ---------------------------------------- */

/* The first LOG_LINES lines of the last error, indented. */
static void print_log_head(const char *text)
{
    int line = 0;
    const char *p = text;
    while (*p != '\0' && line < LOG_LINES) {
        const char *end = strchr(p, '\n');
        size_t length = end ? (size_t)(end - p) : strlen(p);
        printf("%s%.*s\n", line ? "    " : "", (int)length, p);
        ++line;
        p = end ? end + 1 : p + length;
    }
    if (*p != '\0')
        printf("    ...\n");
}

static int open_side(side *on, const char *path)
{
    kiln_status status =
        kiln_context_create(on->backend, on->device, &on->context);
    if (status != KILN_OK) {
        printf("cannot use %s:%d (%c): %s: %s\n", on->backend, on->device,
               on->label, kiln_status_name(status), kiln_last_error());
        on->context = NULL;
        return EXIT_UNAVAILABLE;
    }
    kiln_device_info info;
    bool known = kiln_context_get_device_info(on->context, &info) == KILN_OK;
    on->max_threads = known ? info.max_threads_per_block : 0;
    on->local_memory = known ? info.local_memory : 0;
    kiln_build_options options = {.options = on->options};
    if (cuda_source)
        options.language = KILN_LANGUAGE_CUDA_C;
    status = kiln_program_build_file(on->context, path, &options,
                                     &on->program);
    if (status == KILN_ERR_IO) {
        printf("cannot read %s: %s\n", path, kiln_last_error());
        return EXIT_USAGE;
    }
    if (status != KILN_OK) {
        printf("build failed on %s:%d (%c): %s: ", on->backend, on->device,
               on->label, kiln_status_name(status));
        print_log_head(kiln_last_error());
        on->program = NULL;
        return EXIT_MISMATCH;
    }
    return 0;
}

static bool name_listed(const char *const *names, size_t count,
                        const char *name)
{
    for (size_t i = 0; i < count; ++i)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* The kernels to compare: -k, else every kernel of side a (a kernel only
 * one side has is a mismatch). */
static int kernel_list(side *sides, const settings *config,
                       const char ***names, size_t *count)
{
    if (config->kernel_count > 0) {
        *names = config->kernels;
        *count = config->kernel_count;
        return 0;
    }
    size_t counts[2];
    const char **lists[2] = {NULL, NULL};
    int result = 0;
    for (int s = 0; s < 2 && result == 0; ++s) {
        kiln_status status =
            kiln_program_get_kernel_count(sides[s].program, &counts[s]);
        if (status == KILN_OK) {
            lists[s] = calloc(counts[s] ? counts[s] : 1, sizeof *lists[s]);
            if (lists[s] == NULL)
                status = KILN_ERR_OUT_OF_HOST_MEMORY;
        }
        for (size_t i = 0; status == KILN_OK && i < counts[s]; ++i)
            status = kiln_program_get_kernel_name(sides[s].program, i,
                                              &lists[s][i]);
        if (status != KILN_OK) {
            printf("cannot list the kernels on %s:%d (%c): %s: %s\n",
                   sides[s].backend, sides[s].device, sides[s].label,
                   kiln_status_name(status), kiln_last_error());
            result = EXIT_MISMATCH;
        }
    }
    for (int s = 0; s < 2 && result == 0; ++s)
        for (size_t i = 0; i < counts[s]; ++i)
            if (!name_listed(lists[1 - s], counts[1 - s], lists[s][i])) {
                printf("kernel %s: MISMATCH: only %c (%s:%d) has it\n",
                       lists[s][i], sides[s].label, sides[s].backend,
                       sides[s].device);
                result = EXIT_MISMATCH;
            }
    if (result == 0 && counts[0] == 0) {
        printf("%s has no kernels\n", config->path);
        result = EXIT_MISMATCH;
    }
    free(lists[1]);
    if (result != 0) {
        free(lists[0]);
        return result;
    }
    *names = lists[0];
    *count = counts[0];
    return 0;
}

int main(int argc, char **argv)
{
    side sides[2] = {{.label = 'a', .backend = "cuda"},
                     {.label = 'b', .backend = "opencl"}};
    settings config = {.global = DEFAULT_GLOBAL,
                       .seed = 1,
                       .tolerance = DEFAULT_TOLERANCE};
    char *common = NULL;
    char *own[2] = {NULL, NULL};
    int exit_code = 0;
    bool out_of_memory = false;
    int answered = tool_standard_options(argc, argv, "kiln-compare",
                                         kiln_version(), usage);
    if (answered >= 0)
        return answered;
    int option;
    while ((option = getopt(argc, argv, "a:b:k:g:l:s:t:D:I:A:B:vh")) != -1) {
        bool ok = true;
        char *end = NULL;
        switch (option) {
        case 'a':
        case 'b':
            ok = parse_side(optarg, &sides[option - 'a']);
            break;
        case 'k': {
            const char **grown = realloc(
                config.kernels, (config.kernel_count + 1) * sizeof *grown);
            if (grown == NULL) {
                out_of_memory = true;
                break;
            }
            config.kernels = grown;
            config.kernels[config.kernel_count++] = optarg;
            break;
        }
        case 'g':
            ok = parse_size(optarg, &config.global);
            break;
        case 'l':
            ok = parse_size(optarg, &config.local);
            break;
        case 's':
            config.seed = strtoull(optarg, &end, 0);
            ok = optarg[0] != '\0' && *end == '\0';
            break;
        case 't':
            config.tolerance = strtod(optarg, &end);
            ok = optarg[0] != '\0' && *end == '\0' && config.tolerance >= 0;
            break;
        case 'D':
        case 'I':
            out_of_memory = !options_add(&common, option == 'D' ? "-D" : "-I",
                                         optarg);
            break;
        case 'A':
        case 'B':
            out_of_memory = !options_add(&own[option - 'A'], "", optarg);
            break;
        case 'v':
            config.verbose = true;
            break;
        case 'h':
            usage(stdout);
            exit_code = -1;
            break;
        default:
            ok = false;
            break;
        }
        if (out_of_memory) {
            fprintf(stderr, "kiln-compare: out of memory\n");
            exit_code = EXIT_USAGE;
            break;
        }
        if (!ok) {
            if (option != '?')
                fprintf(stderr, "kiln-compare: bad value '%s' for -%c\n",
                        optarg, option);
            usage(stderr);
            exit_code = EXIT_USAGE;
            break;
        }
        if (exit_code != 0)
            break;
    }
    if (exit_code == 0 && optind != argc - 1) {
        usage(stderr);
        exit_code = EXIT_USAGE;
    }
    if (exit_code == 0) {
        config.path = argv[optind];
        const char *dot = strrchr(config.path, '.');
        cuda_source = dot != NULL &&
                      (strcmp(dot, ".cu") == 0 || strcmp(dot, ".cuh") == 0);
        for (int s = 0; s < 2 && exit_code == 0; ++s) {
            if ((common && !options_add(&sides[s].options, "", common)) ||
                (own[s] && !options_add(&sides[s].options, "", own[s]))) {
                fprintf(stderr, "kiln-compare: out of memory\n");
                exit_code = EXIT_USAGE;
            }
        }
    }
    /* Both sides are opened even when one fails, so that every reason is
     * shown (but an unreadable file once); an unreadable file outranks an
     * unusable backend, which outranks a failed build. */
    for (int s = 0; s < 2 && exit_code != EXIT_USAGE && exit_code >= 0; ++s) {
        int opened = open_side(&sides[s], config.path);
        if (opened == EXIT_USAGE || opened == EXIT_UNAVAILABLE ||
            (opened != 0 && exit_code == 0))
            exit_code = opened;
    }
    if (exit_code == 0) {
        const char **names = NULL;
        size_t count = 0;
        exit_code = kernel_list(sides, &config, &names, &count);
        for (size_t i = 0; exit_code != EXIT_USAGE && i < count; ++i)
            if (!compare_kernel(names[i], sides, &config))
                exit_code = EXIT_MISMATCH;
        if (names != config.kernels)
            free(names);
    }
    for (int s = 0; s < 2; ++s) {
        if (sides[s].program != NULL)
            kiln_program_release(sides[s].program);
        if (sides[s].context != NULL)
            kiln_context_release(sides[s].context);
        free(sides[s].options);
        free(own[s]);
    }
    free(common);
    free(config.kernels);
    return exit_code < 0 ? 0 : exit_code;
}
