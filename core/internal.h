/*
 * Private declarations shared by the files of libkiln.
 */
#ifndef KILN_INTERNAL_H
#define KILN_INTERNAL_H

#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "kiln.h"
#include "kiln_backend.h"
#include "translate.h" /* translate_option_lists */

#if defined(__GNUC__)
#define KILN_INTERNAL __attribute__((visibility("hidden")))
#else
#define KILN_INTERNAL
#endif

/* ---- error.c ------------------------------------------------------------ */

/* Sets this thread's last error and returns `status`. */
KILN_INTERNAL kiln_status kiln_error(kiln_status status, const char *format, ...)
    KILN_PRINTF_LIKE(2, 3);
KILN_INTERNAL kiln_status kiln_error_v(kiln_status status, const char *format,
                                       va_list args) KILN_PRINTF_LIKE(2, 0);
/* Every public entry point starts with this: a success leaves "" behind. */
KILN_INTERNAL void kiln_error_clear(void);
/* Prepends "what: " to the current message (keeps the status). */
KILN_INTERNAL kiln_status kiln_error_prefix(kiln_status status,
                                            const char *format, ...)
    KILN_PRINTF_LIKE(2, 3);

/* ---- trace.c ------------------------------------------------------------ */

/* A line at `level` to stderr or the program's callback, when KILN_LOG or
 * kiln_log_set_level lets that level through. */
KILN_INTERNAL void kiln_log(kiln_log_level level, const char *format, ...)
    KILN_PRINTF_LIKE(2, 3);
KILN_INTERNAL void kiln_log_v(kiln_log_level level, const char *format,
                              va_list args) KILN_PRINTF_LIKE(2, 0);
KILN_INTERNAL bool kiln_log_enabled(kiln_log_level level);
/* kiln_log at KILN_LOG_DEBUG. */
KILN_INTERNAL void kiln_trace(const char *format, ...) KILN_PRINTF_LIKE(1, 2);
KILN_INTERNAL bool kiln_trace_enabled(void);

/* ---- env.c: every KILN_* variable is read here -------------------------- */

KILN_INTERNAL const char *kiln_env_backend(void);     /* KILN_BACKEND or NULL */
KILN_INTERNAL const char *kiln_env_plugin_path(void); /* KILN_PLUGIN_PATH     */
/* KILN_PLUGIN_SYSTEM_PATH: NULL when unset; when set (even empty) it
 * replaces the installed plugin directory and the build tree. */
KILN_INTERNAL const char *kiln_env_plugin_system_path(void);
/* KILN_DEVICE: -1 when unset; KILN_ERR_INVALID_ARGUMENT when malformed. */
KILN_INTERNAL kiln_status kiln_env_device(int *device);
KILN_INTERNAL bool kiln_env_cache_enabled(void);      /* KILN_CACHE != 0      */
KILN_INTERNAL const char *kiln_env_cache_dir(void);   /* KILN_CACHE_DIR       */
KILN_INTERNAL uint64_t kiln_env_cache_max_bytes(void); /* KILN_CACHE_MAX_MB   */
KILN_INTERNAL bool kiln_env_pool_enabled(void);       /* KILN_POOL != 0       */
KILN_INTERNAL unsigned kiln_env_checks(void);          /* KILN_CHECK: KILN_CHECK_* */
KILN_INTERNAL const char *kiln_env_log(void);         /* KILN_LOG             */
KILN_INTERNAL const char *kiln_env_xdg_cache_home(void);
/* Reads the settings a plugin names (its ops table's NULL-terminated
 * `settings`: environment variables) that no plugin named before, and
 * keeps them for the life of the process: host->setting answers from
 * them. */
KILN_INTERNAL void kiln_env_settings_capture(const char *const *names);
KILN_INTERNAL const char *kiln_env_setting(const char *name);
/* Traces (KILN_LOG=debug) a setting that changed in the environment while
 * `backend`'s plugin started (an ICD loader cuts OCL_ICD_FILENAMES). */
KILN_INTERNAL void kiln_env_settings_check(const char *const *names,
                                           const char *backend);
KILN_INTERNAL const char *kiln_env_home(void);
/* Parses a whole decimal number in [0, max]; false on anything else. */
KILN_INTERNAL bool kiln_parse_uint(const char *text, uint64_t max,
                                   uint64_t *value);

/* ---- loader.c: the backend registry ------------------------------------- */

typedef struct kiln_backend_slot kiln_backend_slot;

/* Finds the named backend ("cuda", "opencl"), loading it on first use.
 * Errors name the file tried and the reason. */
KILN_INTERNAL kiln_status kiln_backend_acquire(const char *name,
                                               const kiln_backend_ops **ops);
/* Chooses as documented: KILN_BACKEND, else cuda with a device, else opencl. */
KILN_INTERNAL kiln_status kiln_backend_choose(const char **name);
KILN_INTERNAL size_t kiln_backend_known_count(void);
KILN_INTERNAL const char *kiln_backend_known_name(size_t index);
/* Loads and describes slot `index`. */
KILN_INTERNAL void kiln_backend_describe(size_t index, kiln_backend_info *info);
/* ---- plugin_path.c ------------------------------------------------------ */

/* The directories searched for backend `name`, in order. */
typedef struct kiln_search_dir {
    char *path;         /* malloc'ed                                         */
    const char *origin; /* "KILN_PLUGIN_PATH", "build tree", "install dir"   */
} kiln_search_dir;
typedef struct kiln_search_list {
    kiln_search_dir *dirs;
    size_t count, capacity;
    /* Entries not searched, for the not-found message:
     * "'dir' (KILN_PLUGIN_PATH: not an absolute directory), ..." */
    char *ignored;
} kiln_search_list;
/* False when out of host memory (the list is then empty). */
KILN_INTERNAL bool kiln_plugin_search_dirs(const char *backend,
                                           kiln_search_list *list);
KILN_INTERNAL void kiln_search_list_free(kiln_search_list *list);

/* ---- device.c ----------------------------------------------------------- */

/* The public description of a device from the plugin's. */
KILN_INTERNAL void kiln_device_info_from_backend(
    const kiln_backend_device_info *device, kiln_device_info *info);

/* ---- handle.c: what every handle shares --------------------------------- */

/* Every handle starts with a magic word naming its type; released objects
 * get KILN_MAGIC_DEAD before their memory is freed, so a stale handle is
 * caught while the memory has not been reused. */
enum {
    KILN_MAGIC_CONTEXT = 0x4b435458u,
    KILN_MAGIC_BUFFER = 0x4b425546u,
    KILN_MAGIC_STREAM = 0x4b535452u,
    KILN_MAGIC_EVENT = 0x4b45564eu,
    KILN_MAGIC_PROGRAM = 0x4b50524fu,
    KILN_MAGIC_KERNEL = 0x4b4b524eu,
    KILN_MAGIC_ARGS = 0x4b415247u,
    KILN_MAGIC_DEAD = 0xdeadbeefu
};

/* A handle's references in two counts.  `owned` counts the caller's:
 * one from *_create, one per *_retain.  `total` also counts those that
 * children hold (a buffer, stream, event or program on its context, a
 * kernel on its program, a buffer's pending work on its stream).  The
 * object lives while `total` is above zero; a public *_release needs an
 * owned reference, so a release the caller does not own is refused and
 * changes nothing, instead of destroying what children still use. */
typedef struct kiln_refcount {
    atomic_int owned;
    atomic_int total;
} kiln_refcount;

/* One owned reference: the creator's. */
KILN_INTERNAL void kiln_refcount_init(kiln_refcount *count);

/* Every handle's start, in one place (libuv's uv__handle_init): one owned
 * reference (the creator's), a child's reference on `parent` (the parent's
 * kiln_refcount; NULL for a context), and the type's magic word last, so
 * that the handle passes KILN_CHECK_HANDLE only once it is whole.  The
 * object must start with `uint32_t magic; kiln_refcount references;`. */
#define kiln_handle_init(object, type_magic, parent)                          \
    kiln_handle_start(&(object)->magic, &(object)->references, (type_magic), \
                      (parent))
KILN_INTERNAL void kiln_handle_start(uint32_t *magic,
                                     kiln_refcount *references,
                                     uint32_t type_magic,
                                     kiln_refcount *parent);
/* The caller's *_retain. */
KILN_INTERNAL void kiln_refcount_retain(kiln_refcount *count);
/* A child's reference. */
KILN_INTERNAL void kiln_refcount_hold(kiln_refcount *count);
/* Drops a child's reference; true when it was the last of all. */
KILN_INTERNAL bool kiln_refcount_drop(kiln_refcount *count);
/* The caller's *_release: KILN_ERR_INVALID_HANDLE (naming `function` and
 * the `holders` that keep a `what` alive, NULL for types nothing holds)
 * when no owned reference is left; else drops one and sets *last when it
 * was the last of all. */
KILN_INTERNAL kiln_status kiln_refcount_release(kiln_refcount *count,
                                                const char *function,
                                                const char *what,
                                                const char *holders,
                                                bool *last);

typedef struct kiln_pool_block kiln_pool_block;

/* Events of blocks handed out again, for the next block returned with
 * work pending: making and destroying one per block costs the host two
 * driver calls on every buffer an operation allocates. */
#define KILN_POOL_SPARE_EVENTS 8

typedef struct kiln_pool {
    bool enabled;
    kiln_pool_block *free_blocks;  /* singly linked, newest first */
    size_t deferred_count; /* blocks waiting for a default-stream fence */
    kiln_pool_stats stats;
    kiln_backend_event *spare_events[KILN_POOL_SPARE_EVENTS];
    size_t spare_event_count;
} kiln_pool;

typedef struct kiln_host_allocation {
    void *pointer;
    size_t size;
    struct kiln_host_allocation *next;
} kiln_host_allocation;

typedef struct kiln_memory_cache_entry kiln_memory_cache_entry;

struct kiln_stream {
    uint32_t magic;
    kiln_refcount references;
    kiln_context *context;
    kiln_backend_stream *backend;
    /* The context's default stream: embedded in the context, no reference
     * of its own (retain and release act on the context). */
    bool is_default;
    kiln_stream_priority priority; /* the one the backend gave */
};

struct kiln_context {
    uint32_t magic;
    kiln_refcount references;
    const kiln_backend_ops *ops;
    kiln_backend_context *backend;
    kiln_backend_device_info device;
    kiln_stream default_stream;    /* backend NULL: the backend's default */
    char cache_identity[1024];
    pthread_mutex_t lock;          /* guards pool, host list, memory cache */
    kiln_pool pool;
    kiln_host_allocation *host_allocations;
    kiln_memory_cache_entry *memory_cache;
    /* Page-locked memory that stages copies to and from other contexts
     * (core/peer.c): allocated at the first one, used by one at a time. */
    pthread_mutex_t staging_lock;
    void *staging;
    atomic_uint checks;            /* KILN_CHECK_* of the checked mode     */
};

struct kiln_buffer {
    uint32_t magic;
    kiln_refcount references;
    kiln_context *context;
    kiln_backend_memory *memory;   /* a view inside `guarded`, if any    */
    size_t size;                   /* what the user asked for            */
    size_t capacity;               /* the pool's size class              */
    /* Checked mode: the block with the guard zones around `memory`
     * (core/guard.c); NULL for a buffer made without checks. */
    kiln_backend_memory *guarded;
    /* The stream of the last asynchronous use (NULL: default), so a pooled
     * block is reused only after that work is done. */
    _Atomic(struct kiln_stream *) last_stream;
    atomic_bool used_async;
    /* Used asynchronously on more than one stream: one event cannot tell
     * when all of that work is done, so the block is not pooled. */
    atomic_bool used_on_several_streams;
    /* A program's variable (kiln_program_get_global): the memory is the
     * program's, never the pool's. */
    struct kiln_program *owner;
    /* A view (kiln_buffer_create_view): the buffer that owns the memory
     * (held, never itself a view) and this view's byte offset in it;
     * `memory` is the base's.  NULL and 0 for any other buffer. */
    struct kiln_buffer *base;
    size_t offset;
    /* A view's own backend memory for kernel arguments that cannot take
     * the base and an offset (memory_view), made at its first such use. */
    _Atomic(kiln_backend_memory *) view_memory;
    /* Opened from another process's handle (core/ipc.c): the memory is
     * that process's, unmapped by memory_free, never pooled. */
    bool opened_ipc;
};

struct kiln_event {
    uint32_t magic;
    kiln_refcount references;
    kiln_context *context;
    kiln_backend_event *backend;
    atomic_bool recorded;
    bool timed; /* kiln_event_create's; kiln_event_create_untimed's not */
};

/* ---- program_description.c: what the core knows of a program ---------- */

/* An argument a translation added after the user's, which each launch
 * appends (core/launch.c): the front end says which (translate.h). */
typedef enum kiln_hidden_kind {
    /* CUDA C's extern __shared__ on OpenCL: a LOCAL argument of the
     * launch's local_memory bytes. */
    KILN_HIDDEN_DYNAMIC_LOCAL = 1,
    /* CUDA C's __device__ or __constant__ variable on OpenCL: the buffer
     * of the built program's variables[variable]. */
    KILN_HIDDEN_VARIABLE,
    /* OpenCL C's get_work_dim() on CUDA: a uint, the launch's work
     * dimensions. */
    KILN_HIDDEN_WORK_DIM,
    /* CUDA C's pointer parameter `variable` on OpenCL: a ulong, the byte
     * offset of the buffer view passed for it, whose base the parameter
     * gets (kiln_buffer_create_view). */
    KILN_HIDDEN_POINTER_OFFSET
} kiln_hidden_kind;

typedef struct kiln_hidden_arg {
    kiln_hidden_kind kind;
    size_t variable;
} kiln_hidden_arg;

/* One kernel of a program as the core lists it and creates it. */
typedef struct kiln_kernel_entry {
    const char *name;              /* the user's                           */
    const char *native_name;       /* the plugin's (a translation's)       */
    /* Why the translation refused it (construct and line), while it
     * translated the program's other kernels; NULL for the others. */
    const char *refusal;
    bool params_known;
    size_t param_count;
    kiln_backend_param *params;    /* the user's parameters                */
    size_t required_block[3];
    size_t hidden_count;
    kiln_hidden_arg *hidden;       /* after the params, in this order      */
} kiln_kernel_entry;

typedef struct kiln_variable_entry {
    const char *name;
    bool is_constant;
    bool has_initializer;
} kiln_variable_entry;

/* Where a program's kernel list came from. */
typedef enum kiln_description_origin {
    KILN_DESCRIBED_BY_PLUGIN = 0,  /* its program_kernels, as it gave them  */
    /* The front end's translation: names, parameters and hidden arguments
     * are the translation's, and the driver must agree. */
    KILN_DESCRIBED_BY_TRANSLATION,
    /* The front end's reading of native CUDA C: typed parameters where the
     * driver's sizes agree, the driver's sizes otherwise. */
    KILN_DESCRIBED_BY_READING
} kiln_description_origin;

/* A program's kernels and variables, owned by the core: built once with
 * the program (or read back with it from the disk cache) and saved with
 * its image (core/saved_program.c). */
typedef struct kiln_program_description {
    kiln_description_origin origin;
    /* OpenCL C on CUDA: each LOCAL parameter is passed as a uint, the
     * offset of its slice of the dynamic shared memory (translate.h). */
    bool local_offsets;
    size_t kernel_count;
    kiln_kernel_entry *kernels;
    size_t variable_count;
    kiln_variable_entry *variables;
    /* storage: every string, param and hidden entry above */
    kiln_backend_param *param_storage;
    kiln_hidden_arg *hidden_storage;
    char *text_storage;
} kiln_program_description;

/* The description of a native program: the plugin's list (NULL: none),
 * with the signatures the front end read (NULL: none). */
KILN_INTERNAL kiln_status kiln_description_native(
    const kiln_backend_program_info *info, const translate_program *reading,
    kiln_program_description *description);
/* Descriptions from the front end's program or from the plugin's list. */
KILN_INTERNAL kiln_status kiln_description_from_front_end(
    const translate_program *program, kiln_description_origin origin,
    kiln_program_description *description);
KILN_INTERNAL kiln_status kiln_description_from_plugin(
    const kiln_backend_program_info *info,
    kiln_program_description *description);
KILN_INTERNAL void kiln_description_free(kiln_program_description *description);
/* The entry for the kernel the user calls `name`, or NULL. */
KILN_INTERNAL const kiln_kernel_entry *
kiln_description_find(const kiln_program_description *description,
                      const char *name);

/* A backend kernel whose kiln_kernel was released, kept for the next
 * kiln_kernel_create of its name: making one asks the driver a dozen
 * questions (NVIDIA's clCreateKernel, CUDA's parameter and attribute
 * queries), as much host time as a launch, and the array layer makes
 * its kernels on every operation.  Each backend kernel still serves one
 * kiln_kernel at a time. */
typedef struct kiln_spare_kernel {
    struct kiln_spare_kernel *next;
    char *name;
    kiln_backend_kernel *backend;
    kiln_backend_kernel_info info;
    kiln_backend_param *params;   /* the kernel's own copy, or NULL */
    bool bounds_report;
} kiln_spare_kernel;

/* A CUDA C variable of a program translated to OpenCL C: a buffer the
 * core made (core/program_variables.c). */
typedef struct kiln_program_variable {
    kiln_backend_memory *memory;
    size_t size;
} kiln_program_variable;

/* A backend program as built or loaded once, shared by every kiln_program
 * that a build of the same key in the same context returned and by the
 * memory cache entry of that key.  Not a handle: no magic.  It holds no
 * context reference; each holder guarantees the context outlives it (a
 * program holds one, the memory cache is emptied before the backend
 * context is destroyed). */
typedef struct kiln_built_program {
    atomic_int references;
    kiln_backend_program *backend;
    kiln_program_description description;
    kiln_program_variable *variables;  /* description.variable_count   */
    pthread_mutex_t spare_lock;
    kiln_spare_kernel *spares; /* newest first, at most KILN_SPARE_KERNELS */
    size_t spare_count;
} kiln_built_program;

#define KILN_SPARE_KERNELS 16

/* The spare backend kernel named `name`, taken off the list, or NULL. */
KILN_INTERNAL kiln_spare_kernel *
kiln_built_program_take_spare(kiln_built_program *built, const char *name);
/* Keeps a released kernel's backend kernel (and takes over `name`, a
 * malloc'ed copy, and `params`, malloc'ed or NULL); false when the list is
 * full: the caller destroys and frees them. */
KILN_INTERNAL bool kiln_built_program_keep_spare(kiln_built_program *built,
                                                 char *name,
                                                 kiln_backend_kernel *backend,
                                                 const kiln_backend_kernel_info *info,
                                                 kiln_backend_param *params,
                                                 bool bounds_report);

/* What a CUDA C program with templates was built from, kept so that a
 * kernel template instance named later (kiln_kernel_create) builds it
 * again with that name added (core/kernel_names.c). */
typedef struct kiln_program_recipe {
    char *text;
    size_t length;
    char *source_name;       /* NULL: "<kiln program>"                    */
    char *log_name;
    char *options;           /* the composed option string                */
    char **include_dirs;
    size_t include_dir_count;
    unsigned flags;          /* kiln_build_options.flags                  */
    char **kernel_names;     /* normalised, sorted, each once             */
    size_t kernel_name_count;
} kiln_program_recipe;

struct kiln_program {
    uint32_t magic;
    kiln_refcount references;
    kiln_context *context;
    /* One reference.  A build with a kernel name added replaces it (under
     * rebuild_lock); the one it replaced stays in `replaced` until the
     * program is destroyed, since kernels created from it use it. */
    _Atomic(kiln_built_program *) built;
    kiln_language language;
    kiln_program_origin origin;
    char *build_log;
    kiln_program_recipe *recipe;   /* NULL: names cannot be added        */
    pthread_mutex_t rebuild_lock;
    kiln_built_program **replaced;
    size_t replaced_count;
};

/* The program's current build. */
static inline kiln_built_program *kiln_program_built(const kiln_program *program)
{
    return atomic_load(&((kiln_program *)program)->built);
}

/* A type string parsed by kiln_kernel_prepare.  Replaced ones stay on the
 * kernel's list until it is destroyed: a prepared call in another thread
 * may still be reading one. */
typedef struct kiln_prepared_types {
    struct kiln_prepared_types *previous;
    size_t count;
    char kinds[];                  /* one type character per argument    */
} kiln_prepared_types;

struct kiln_kernel {
    uint32_t magic;
    kiln_refcount references;
    kiln_program *program;
    /* The build it was created from (the program keeps it alive). */
    kiln_built_program *built;
    kiln_backend_kernel *backend;
    /* The user's parameters (info.params: the backend's, or `params`). */
    kiln_backend_kernel_info info;
    kiln_backend_param *params;    /* the core's own list, or NULL         */
    /* What each launch appends (the program's description, which lives
     * as long as the program): hidden arguments, and whether LOCAL
     * arguments go as offsets. */
    size_t hidden_count;
    const kiln_hidden_arg *hidden;
    bool local_offsets;
    /* Built in the checked mode on OpenCL: its last parameter (not among
     * info.params) takes the report of its instrumented accesses. */
    bool bounds_report;
    char *name;
    _Atomic(kiln_prepared_types *) prepared;
};

/* Ends a handle's life: marks it dead and frees it later.  Released
 * handles wait in a bounded queue before their memory goes back to malloc,
 * so a handle used again soon after its release is read safely (also under
 * AddressSanitizer and valgrind) and refused as dead.  The object must start
 * with its uint32_t magic word. */
KILN_INTERNAL void kiln_handle_bury(void *object);

/* The length of a function's name as the user calls it: the public
 * macros of the struct-filling getters call kiln_..._sized, those of the
 * prepared launches kiln_..._checked. */
static inline int kiln_public_name_length(const char *function)
{
    size_t length = strlen(function);
    if (length > 6 && memcmp(function + length - 6, "_sized", 6) == 0)
        length -= 6;
    else if (length > 8 && memcmp(function + length - 8, "_checked", 8) == 0)
        length -= 8;
    return (int)length;
}

/* Validates a handle of the given type; sets the error on failure. */
#define KILN_CHECK_HANDLE(object, type_magic, what)                           \
    do {                                                                      \
        if ((object) == NULL)                                                 \
            return kiln_error(KILN_ERR_INVALID_HANDLE, "%.*s: %s is NULL",    \
                              kiln_public_name_length(__func__), __func__,    \
                              what);                                          \
        if ((object)->magic != (type_magic))                                  \
            return kiln_error(KILN_ERR_INVALID_HANDLE,                        \
                              "%.*s: %s is not a live %s (released or not a " \
                              "Kiln object)",                                 \
                              kiln_public_name_length(__func__), __func__,    \
                              what, what);                                    \
    } while (0)

#define KILN_CHECK_OUT(pointer, what)                                         \
    do {                                                                      \
        if ((pointer) == NULL)                                                \
            return kiln_error(KILN_ERR_INVALID_ARGUMENT, "%.*s: %s is NULL",  \
                              kiln_public_name_length(__func__), __func__,    \
                              what);                                          \
    } while (0)

/* Drops one reference; true when it was the last one.  A count that is
 * already zero (a double release caught before reuse) is an error. */
KILN_INTERNAL bool kiln_reference_drop(atomic_int *references);

/* ---- program_options.c --------------------------------------------------- */

/* The caller's options (NULL: none) as this library's struct. */
KILN_INTERNAL kiln_status kiln_build_options_read(
    const kiln_build_options *user, kiln_build_options *options);

/* A program's options, composed once into the string backends are shown
 * (the user's options, then -D for each define) and split once into
 * lists; include_dirs holds the struct's directories, then the -I ones. */
typedef struct kiln_program_options {
    char *composed;
    translate_option_lists lists;
    const char **include_dirs;
    size_t include_dir_count;
    bool no_files;           /* KILN_BUILD_NO_INCLUDE                    */
    /* kiln_build_options.kernel_names normalised (kernel_names.c), sorted,
     * each once: in the cache key and handed to the front end and the
     * plugin. */
    char **kernel_names;
    size_t kernel_name_count;
} kiln_program_options;

KILN_INTERNAL kiln_status kiln_program_options_make(
    const kiln_build_options *options, kiln_program_options *parsed);
KILN_INTERNAL void kiln_program_options_free(kiln_program_options *parsed);

/* ---- kernel_names.c: kernel template instances named by the host ------ */

/* The most bytes of a normalised kernel name (a translation lists names
 * in 128-byte fields). */
#define KILN_KERNEL_NAME_MAX 127

/* `name` as one spelling (malloc'ed into *normalised): NVRTC's name
 * expressions are C++ expressions, so white space between tokens does not
 * matter and a leading '&' takes the same kernel's address ("&sgemm<64,8>"
 * and "sgemm< 64, 8 >" are "sgemm<64, 8>": no space but one after each
 * comma and one between two words).  KILN_ERR_INVALID_ARGUMENT for what is
 * no name expression (empty, unbalanced brackets, characters such as ';',
 * '{' or quotes, longer than KILN_KERNEL_NAME_MAX). */
KILN_INTERNAL kiln_status kiln_kernel_name_normalise(const char *name,
                                                     char **normalised);
/* Whether a normalised name names a template instance or a kernel in a
 * namespace: what a build must be asked for by name. */
KILN_INTERNAL bool kiln_kernel_name_needs_request(const char *normalised);
/* Normalises, sorts and deduplicates `count` names into *out (malloc'ed
 * strings in a malloc'ed array; *out_count of them). */
KILN_INTERNAL kiln_status kiln_kernel_names_make(const char *const *names,
                                                 size_t count, char ***out,
                                                 size_t *out_count);
KILN_INTERNAL void kiln_kernel_names_free(char **names, size_t count);
/* Keeps what `program` was built from when it may be asked for template
 * instances later (CUDA C that spells "template"); a no-op otherwise. */
KILN_INTERNAL kiln_status kiln_program_recipe_keep(
    kiln_program *program, const char *text, size_t length,
    const kiln_build_options *options, const char *composed,
    const kiln_program_options *parsed, const char *log_name);
KILN_INTERNAL void kiln_program_recipe_free(kiln_program_recipe *recipe);
/* Builds `program` again with the normalised `name` added to its kernel
 * names, and makes that build the program's; KILN_ERR_KERNEL_NOT_FOUND
 * (with the compiler's or translator's reason) when the program has no
 * such template or the arguments do not fit. */
KILN_INTERNAL kiln_status kiln_program_add_kernel_name(kiln_program *program,
                                                       const char *name);

/* ---- program.c ---------------------------------------------------------- */

/* Builds `text` (through the caches) into *built; *origin and *log (the
 * compiler's, malloc'ed or NULL) say how.  `parsed` holds the options and
 * kernel names. */
KILN_INTERNAL kiln_status kiln_program_build_text(
    kiln_context *context, const char *text, size_t length, const char *name,
    const char *log_name, kiln_language language,
    const kiln_program_options *parsed, kiln_built_program **built,
    kiln_program_origin *origin, char **log);

/* ---- program_language.c ------------------------------------------------- */

/* Where a CUDA C token that OpenCL C never has starts: `__global__` (the
 * kernel qualifier every CUDA kernel carries).  -1 when there is none, or
 * when OpenCL C's kernel qualifier is there too.  Comments and literals
 * are skipped; sets *line to the token's line. */
KILN_INTERNAL long kiln_language_cuda_marker(const char *text, size_t length,
                                             unsigned *line);
/* The name of the first kernel `text` defines or declares (after
 * __kernel, kernel or __global__), into `name` (at most `size` - 1 bytes
 * and a NUL; `size` > 0): false when there is none.  For messages only:
 * comments and literals are skipped, macros are not expanded. */
KILN_INTERNAL bool kiln_first_kernel_name(const char *text, size_t length,
                                          char *name, size_t size);

KILN_INTERNAL void kiln_context_release_internal(kiln_context *context);
KILN_INTERNAL void kiln_stream_release_internal(kiln_stream *stream);
KILN_INTERNAL void kiln_program_release_internal(kiln_program *program);
/* Takes over `backend` and `description` (both freed on failure), and
 * makes the buffers of a translation's variables. */
KILN_INTERNAL kiln_status kiln_built_program_create(
    kiln_context *context, kiln_backend_program *backend,
    kiln_program_description *description, kiln_built_program **built);
/* program_variables.c: the buffers of the CUDA C variables of a program
 * translated to OpenCL C, sized and initialised by the translation's own
 * kernels, zero-filled otherwise (as CUDA's are). */
KILN_INTERNAL kiln_status kiln_program_variables_create(
    kiln_context *context, kiln_built_program *built);
KILN_INTERNAL void kiln_program_variables_free(kiln_context *context,
                                               kiln_built_program *built);
KILN_INTERNAL void kiln_built_program_retain(kiln_built_program *built);
/* Drops one reference; the last one destroys the backend program, so
 * `context` must still be alive. */
KILN_INTERNAL void kiln_built_program_release(kiln_context *context,
                                              kiln_built_program *built);

/* ---- pool.c ------------------------------------------------------------- */

KILN_INTERNAL void kiln_pool_init(kiln_pool *pool);
/* Allocates device memory of at least `size`, reusing a pooled block of the
 * same size class.  Writes the block's capacity. */
KILN_INTERNAL kiln_status kiln_pool_allocate(kiln_context *context,
                                             size_t size,
                                             kiln_backend_memory **memory,
                                             size_t *capacity);
/* What asynchronous work may still touch a block being returned. */
typedef enum kiln_pending_work {
    KILN_PENDING_NONE,           /* nothing: reusable at once            */
    KILN_PENDING_ONE_STREAM,     /* work on `stream` (NULL: the default) */
    KILN_PENDING_SEVERAL_STREAMS /* work on streams not tracked: freed   */
} kiln_pending_work;
/* Returns a block to the pool (or to the driver, whose free is safe with
 * work in flight, when the pool is off or the pending work untracked). */
KILN_INTERNAL void kiln_pool_return(kiln_context *context,
                                    kiln_backend_memory *memory,
                                    size_t capacity, kiln_stream *stream,
                                    kiln_pending_work pending);
/* Frees every cached block (context lock held by the caller). */
KILN_INTERNAL void kiln_pool_trim_locked(kiln_context *context);

/* ---- guard.c: the checked mode's guard zones ---------------------------- */

#define KILN_GUARD_BYTES ((size_t)4096)

struct kiln_string; /* strings.c, below */

/* Whether `size` bytes can get guard zones on this context's device. */
KILN_INTERNAL bool kiln_guard_possible(const kiln_context *context,
                                       size_t size);
/* A pooled block of size + 2 guard zones, the zones written, and a view of
 * the `size` bytes between them. */
KILN_INTERNAL kiln_status kiln_guard_allocate(kiln_context *context,
                                              size_t size,
                                              kiln_backend_memory **whole,
                                              size_t *capacity,
                                              kiln_backend_memory **view);
/* Frees the view and returns the block to the pool. */
KILN_INTERNAL void kiln_guard_free(kiln_context *context,
                                   kiln_backend_memory *whole, size_t capacity,
                                   kiln_backend_memory *view,
                                   kiln_stream *stream,
                                   kiln_pending_work pending);
/* Waits for `stream`, reads both zones and appends to `report` the byte
 * ranges (relative to the user's byte 0) that changed, restoring them.
 * An empty report: nothing changed.  *at_edge: every changed range
 * reaches the byte next to the buffer (a run over its end or start);
 * false when one lies away from it, where a write far past another
 * allocation may land.  Errors: the reads' own. */
KILN_INTERNAL kiln_status kiln_guard_check(kiln_context *context,
                                           kiln_backend_stream *stream,
                                           kiln_backend_memory *whole,
                                           size_t size,
                                           struct kiln_string *report,
                                           bool *at_edge);

/* ---- stream.c ----------------------------------------------------------- */

/* The stream as the core tracks it: NULL for the default stream, whether
 * passed as NULL or as the context's default-stream handle. */
static inline kiln_stream *kiln_stream_canonical(kiln_stream *stream)
{
    return stream != NULL && stream->is_default ? NULL : stream;
}
/* Sets up the context's embedded default-stream handle. */
KILN_INTERNAL void kiln_default_stream_init(kiln_context *context);

/* The backend stream for a user stream (NULL: default); checks that the
 * stream is live and belongs to `context`. */
KILN_INTERNAL kiln_status kiln_stream_resolve(kiln_context *context,
                                              kiln_stream *stream,
                                              kiln_backend_stream **backend);
/* Remembers the last stream that used a buffer asynchronously (a view's
 * use is its base's). */
KILN_INTERNAL void kiln_buffer_note_async_use(kiln_buffer *buffer,
                                              kiln_stream *stream);

/* The buffer that owns `buffer`'s memory: its base if it is a view. */
static inline kiln_buffer *kiln_buffer_owner(kiln_buffer *buffer)
{
    return buffer->base != NULL ? buffer->base : buffer;
}
/* Backend memory whose first byte is `buffer`'s first byte: the memory
 * itself for a buffer that is no view (or a view at offset 0), else the
 * view's own, made by the plugin's memory_view at the first call.  Fails
 * (KILN_ERR_UNSUPPORTED, with the plugin's reason) where the backend
 * cannot view memory at that offset. */
KILN_INTERNAL kiln_status kiln_buffer_first_byte(kiln_buffer *buffer,
                                                 kiln_backend_memory **memory);

/* ---- peer.c: work between two contexts ---------------------------------- */

KILN_INTERNAL void kiln_peer_context_init(kiln_context *context);
/* Frees the staging memory (the context's last release). */
KILN_INTERNAL void kiln_peer_context_free(kiln_context *context);
/* A copy between buffers of two different contexts, ranges checked by the
 * caller: the backend's direct path where it has one, else staged through
 * page-locked host memory.  `stream` (NULL: the destination's default)
 * must belong to one of the two contexts. */
KILN_INTERNAL kiln_status kiln_peer_copy(const char *function,
                                         kiln_buffer *destination,
                                         size_t destination_offset,
                                         kiln_buffer *source,
                                         size_t source_offset, size_t size,
                                         kiln_stream *stream, int blocking);
/* kiln_stream_wait_event for an event of another context (both handles
 * checked, the event recorded). */
KILN_INTERNAL kiln_status kiln_peer_wait(kiln_stream *stream,
                                         kiln_event *event);

/* ---- event.c ------------------------------------------------------------ */

/* A backend event for the core's own ordering and waiting, never timed:
 * event_create without KILN_BACKEND_EVENT_TIMED. */
KILN_INTERNAL kiln_status kiln_untimed_event_create(kiln_context *context,
                                                    kiln_backend_event **event);

/* ---- strings.c: small helpers ------------------------------------------- */

KILN_INTERNAL char *kiln_strdup(const char *text);
KILN_INTERNAL char *kiln_strndup(const char *text, size_t length);
/* A growable string: append never fails silently (returns false on OOM). */
typedef struct kiln_string {
    char *data;
    size_t length;
    size_t capacity;
} kiln_string;
KILN_INTERNAL bool kiln_string_append(kiln_string *string, const char *text,
                                      size_t length);
KILN_INTERNAL bool kiln_string_appendf(kiln_string *string, const char *format,
                                       ...) KILN_PRINTF_LIKE(2, 3);
KILN_INTERNAL void kiln_string_free(kiln_string *string);

/* Copies a struct Kiln fills into the caller's, whose size the header's
 * macro passed: at least `minimum` (the 1.0 size) and at most what this
 * library knows; the members past the caller's size are left out. */
KILN_INTERNAL kiln_status kiln_struct_out(void *out, size_t out_size,
                                          const void *full, size_t full_size,
                                          size_t minimum, const char *what);
/* Reads a struct the caller fills (struct_size first): 0 is the 1.0
 * layout; the members the caller's struct lacks are zero in *full. */
KILN_INTERNAL kiln_status kiln_struct_in(void *full, size_t full_size,
                                         const void *in, size_t minimum,
                                         const char *what);

/* ---- cache_key.c, cache_memory.c, cache_disk.c: the kernel cache -------- */

typedef struct kiln_cache_key {
    char *text;          /* everything that selects the binary            */
    size_t length;
    char hex[33];        /* 128-bit digest: the file name                  */
} kiln_cache_key;

/* The key of a program (`source`: its text with the #include files
 * inlined; `file_digests`: every file the include search read, NULL for
 * none); `translated`: the front end translated or read it, so the key
 * names the translator (translate_digest); `target_choices`: what the
 * translation made of the device's facts (kiln_front_end_target_choices;
 * "" none). */
KILN_INTERNAL kiln_status kiln_cache_key_make(
    kiln_context *context, kiln_language source_language,
    const translate_options *options, const char *const *include_dirs,
    size_t include_dir_count, const char *source, size_t length,
    const char *file_digests, bool translated, const char *target_choices,
    const char *const *kernel_names, size_t kernel_name_count,
    kiln_cache_key *key);
KILN_INTERNAL void kiln_cache_key_free(kiln_cache_key *key);
/* Memory cache: the built program of an earlier build in this context.
 * find returns it with a reference added for the caller; store adds the
 * cache's own reference (and keeps an entry already there for the key). */
KILN_INTERNAL kiln_built_program *
kiln_memory_cache_find(kiln_context *context, const kiln_cache_key *key);
KILN_INTERNAL void kiln_memory_cache_store(kiln_context *context,
                                           const kiln_cache_key *key,
                                           kiln_built_program *built);
KILN_INTERNAL void kiln_memory_cache_clear(kiln_context *context);
/* Disk cache: never fails a build; a bad entry is a miss. */
KILN_INTERNAL bool kiln_disk_cache_find(const kiln_cache_key *key,
                                        void **blob, size_t *size);
KILN_INTERNAL void kiln_disk_cache_store(const kiln_cache_key *key,
                                         const void *blob, size_t size);

/* ---- hash.c: XXH3 ------------------------------------------------------ */

/* 128-bit digest of a cache key, as 32 hex characters: its file name. */
KILN_INTERNAL void kiln_digest_hex(const void *data, size_t size,
                                   char hex[33]);
KILN_INTERNAL uint64_t kiln_checksum64(const void *data, size_t size);
/* The checksum of `first` then `second`, as if they were one block. */
KILN_INTERNAL uint64_t kiln_checksum64_pair(const void *first,
                                            size_t first_size,
                                            const void *second,
                                            size_t second_size);

/* ---- source.c: the files a program names --------------------------------- */

/* The reader the front end asks for each #include: translate's search
 * (translate_include_search: quoted names beside the including file first,
 * as cpp does, then the include directories in order; <names> only
 * there), recording what it reads. */
typedef struct kiln_include_reader {
    translate_include_reader reader;
    translate_include_search search;
    char *program_dir;       /* NULL: the program is not a file           */
    /* "path digest\n" of every file read, for the cache key: also those an
     * #include in a group the preprocessor does not take names (the
     * compiler's own macros may take it) */
    kiln_string digests;
    bool failed;             /* out of memory recording them             */
} kiln_include_reader;

/* `no_files` (KILN_BUILD_NO_INCLUDE): a reader that reads nothing, and
 * answers every #include with an error. */
KILN_INTERNAL kiln_status kiln_include_reader_init(kiln_include_reader *reader,
                                                   const char *program_name,
                                                   const char *const *dirs,
                                                   size_t dir_count,
                                                   bool no_files);
KILN_INTERNAL void kiln_include_reader_free(kiln_include_reader *reader);

/* Reads a whole file (at most 64 MiB) into a NUL-terminated malloc'ed text. */
KILN_INTERNAL kiln_status kiln_file_read(const char *path, char **text,
                                         size_t *length);

/* ---- front_end.c: the core's one call into translate/ ------------------- */

typedef struct kiln_front_end {
    kiln_language language;          /* the program's                    */
    kiln_language native_language;   /* the plugin's                     */
    translate_target target;         /* the context's device             */
    translate_options options;       /* the user's, include dirs merged  */
    kiln_include_reader reader;
    translate_input input;
    translate_unit *unit;
    /* KILN_CHECK=bounds on an OpenCL device: the kernels' accesses are
     * instrumented (translate_bounds_instrument), a cache entry of its
     * own */
    bool bounds;
} kiln_front_end;

/* Preprocesses a program once for `context`'s plugin: its #include files
 * inlined, and its macros expanded too where it will be translated or
 * read.  KILN_ERR_BUILD (or KILN_ERR_TRANSLATION) with the front end's
 * message.  Call kiln_front_end_close after, whatever the status. */
KILN_INTERNAL kiln_status kiln_front_end_open(
    kiln_context *context, const char *text, size_t length, const char *name,
    kiln_language language, const kiln_program_options *options,
    kiln_front_end *front);
/* The text a cache key covers: the program with its files inlined. */
KILN_INTERNAL const char *kiln_front_end_text(const kiln_front_end *front,
                                              size_t *length);
/* What the key covers besides: the digest of every file the include
 * search read ("path digest" lines; NULL: none). */
KILN_INTERNAL const char *kiln_front_end_file_digests(
    const kiln_front_end *front);
/* The first #include left to the compiler (translate_left): the file it
 * reads is in no key, so the program is never cached; NULL: none. */
KILN_INTERNAL const char *kiln_front_end_left(const kiln_front_end *front);
/* Whether the program is translated into the plugin's language, or read
 * for its signatures (native CUDA C): then its key names the translator. */
KILN_INTERNAL bool kiln_front_end_translates(const kiln_front_end *front);
KILN_INTERNAL bool kiln_front_end_reads(const kiln_front_end *front);
/* What the translation makes of the device's facts, in words (""
 * when it is not translated or uses none): part of the cache key. */
KILN_INTERNAL void kiln_front_end_target_choices(const kiln_front_end *front,
                                                 char *out, size_t size);
/* The status and message of a front-end failure. */
KILN_INTERNAL kiln_status kiln_front_end_failed(const kiln_front_end *front,
                                                const translate_error *error);
KILN_INTERNAL void kiln_front_end_close(kiln_front_end *front);

/* What program_build receives, and what the core knows of the program. */
typedef struct kiln_native_source {
    kiln_backend_source source;
    /* A translation's description (origin TRANSLATION); empty otherwise */
    kiln_program_description description;
    /* Native CUDA C read by the front end: `program` holds its kernels. */
    bool read;
    translate_program program;
    translate_option_lists native_options;
    kiln_backend_define *defines;
    kiln_backend_header *headers;
    char *instrumented;   /* the checked mode's text, or NULL */
    const char *plain_text; /* the text before it                      */
    size_t plain_length;
} kiln_native_source;

/* On a cache miss: the program in the plugin's language (translated, or
 * as it is with its options as its compiler takes them, and its kernels
 * read where the driver cannot describe them). */
KILN_INTERNAL kiln_status kiln_front_end_native(kiln_front_end *front,
                                                kiln_native_source *native);
/* The whole prelude instead of the parts the translation seemed to use;
 * KILN_ERR_UNSUPPORTED when there is no other choice. */
KILN_INTERNAL kiln_status kiln_front_end_whole_headers(
    kiln_native_source *native);
KILN_INTERNAL void kiln_native_source_free(kiln_native_source *native);

/* Puts the last error's compiler message about a translation in the
 * user's names (translate_user_names), keeping `status`. */
KILN_INTERNAL void kiln_front_end_user_names(kiln_status status);

/* ---- cache_dir.c: the disk cache's directory ---------------------------- */

#define KILN_CACHE_ENTRY_SUFFIX ".kbin"
#define KILN_CACHE_TEMP_PREFIX ".tmp-"

/* The cache directory, opened once for each lookup, store or listing: its
 * owner and mode are checked on the open descriptor, and every entry is
 * reached relative to it (openat and friends), so the directory checked is
 * the directory used, whatever happens to its path in between. */
typedef struct kiln_cache_dir {
    int fd;
    char *path; /* for messages */
} kiln_cache_dir;

/* Opens the directory (created if need be); on false, `why` says why
 * there is no disk cache. */
KILN_INTERNAL bool kiln_cache_dir_open(kiln_cache_dir *dir, kiln_string *why);
/* Opens the cache directory or traces why there is none. */
KILN_INTERNAL bool kiln_cache_dir_open_traced(kiln_cache_dir *dir);
KILN_INTERNAL void kiln_cache_dir_close(kiln_cache_dir *dir);
/* A new temporary file in the directory, as mkstemp: -1 and errno on
 * failure. */
KILN_INTERNAL int kiln_cache_temp_create(const kiln_cache_dir *dir,
                                         const char *tag, char *name,
                                         size_t size);
/* An entry of the directory, for eviction and listing. */
typedef struct kiln_cache_entry {
    char name[64];
    uint64_t bytes;
    struct timespec used;
} kiln_cache_entry;
/* The entries of `dir` (malloc'ed; NULL when none or out of memory). */
KILN_INTERNAL kiln_cache_entry *kiln_cache_entries(const kiln_cache_dir *dir,
                                                   size_t *count,
                                                   uint64_t *total);

/* ---- launch.c ----------------------------------------------------------- */

/* Launches take up to this many arguments without allocating. */
#define KILN_STACK_ARGS 32

/* In/Out/InOut: host arrays staged through device memory around a launch. */
static inline bool kiln_arg_kind_is_host(kiln_arg_kind kind)
{
    return kind == KILN_ARG_KIND_IN || kind == KILN_ARG_KIND_OUT ||
           kind == KILN_ARG_KIND_INOUT;
}

/* kiln_launch after its handle checks (also kiln_launch_args and the
 * prepared calls). */
KILN_INTERNAL kiln_status kiln_launch_checked(kiln_kernel *kernel,
                                              const kiln_launch_config *config,
                                              size_t arg_count,
                                              const kiln_arg *args);

/* Where a value argument's bytes are: in the argument for typed scalars. */
static inline const void *kiln_arg_value(const kiln_arg *arg)
{
    return arg->type != KILN_SCALAR_NONE ? (const void *)&arg->scalar
                                         : arg->value;
}

/* ---- launch_check.c ------------------------------------------------------ */

/* The grid and block against the device and the kernel; *dimensions is
 * config->dimensions, or the fewest that hold the launch. */
KILN_INTERNAL kiln_status kiln_launch_check_geometry(
    const kiln_kernel *kernel, const kiln_launch_config *config,
    unsigned *dimensions);
/* Every argument against the kernel's parameters, and the local memory
 * they and `local_memory` add up to against the device's. */
KILN_INTERNAL kiln_status kiln_launch_check_args(const kiln_kernel *kernel,
                                                 size_t arg_count,
                                                 const kiln_arg *args,
                                                 size_t local_memory);
/* Sets the error "launch of 'k'(signature): argument i (type name): ..."
 * and returns `status`. */
KILN_INTERNAL kiln_status kiln_launch_argument_error(
    const kiln_kernel *kernel, kiln_status status, size_t index,
    const char *format, ...) KILN_PRINTF_LIKE(4, 5);
/* Whether parameter `index` has a hidden byte offset, so that a view is
 * passed as its base's memory and its offset (launch.c). */
KILN_INTERNAL bool kiln_launch_has_offset_slot(const kiln_kernel *kernel,
                                               size_t index);
/* "a buffer", "a host In array": an argument kind in messages. */
KILN_INTERNAL const char *kiln_arg_kind_word(kiln_arg_kind kind);
/* KILN_ERR_ARGUMENT_COUNT, with the kernel's signature, unless the kernel
 * takes `arg_count` arguments. */
KILN_INTERNAL kiln_status kiln_launch_check_count(const kiln_kernel *kernel,
                                                  size_t arg_count);
/* The checks of one argument that need no value (its kind against the
 * parameter's, a typed scalar against the declared type), shared by
 * launches and kiln_kernel_prepare. */
KILN_INTERNAL kiln_status kiln_launch_check_arg_shape(const kiln_kernel *kernel,
                                                      size_t index,
                                                      kiln_arg_kind kind,
                                                      kiln_scalar_type type);
/* The prepared type character of a typed scalar ('i' for KILN_SCALAR_INT);
 * 0 for an unknown type. */
KILN_INTERNAL char kiln_scalar_type_char(kiln_scalar_type type);

/* ---- launch_stage.c: host In/Out arrays --------------------------------- */

typedef struct staged_host_arg {
    kiln_backend_memory *memory;
    size_t capacity;
    kiln_backend_memory *guarded; /* checked mode: the block around it */
} staged_host_arg;

/* Stages host argument `arg` (In, Out or InOut) in pooled device memory
 * (guarded when `checked`), copying it in unless it is Out. */
KILN_INTERNAL kiln_status kiln_stage_host_arg(kiln_context *context,
                                              kiln_backend_stream *stream,
                                              const kiln_arg *arg,
                                              bool checked,
                                              staged_host_arg *staged);
/* Copies every Out and InOut argument back, waiting for the stream. */
KILN_INTERNAL kiln_status kiln_stage_copy_back(kiln_context *context,
                                               kiln_backend_stream *stream,
                                               size_t arg_count,
                                               const kiln_arg *args,
                                               const staged_host_arg *staged);
/* Returns the staging memory of the host arguments to the pool;
 * `finished`: the launch's stream was waited for (a blocking copy back
 * came after the kernel), so the blocks are reusable at once. */
KILN_INTERNAL void kiln_stage_release(kiln_context *context, size_t arg_count,
                                      const kiln_arg *args,
                                      staged_host_arg *staged,
                                      kiln_stream *stream, bool finished);
/* After a launch of a kernel that may assert (CUDA C translated to OpenCL
 * C: it has the program's TRANSLATE_ASSERT_VARIABLE among its hidden
 * arguments): waits for it, and a failed assert is KILN_ERR_KERNEL_FAULT
 * with the site (core/launch_assert.c).  KILN_OK at once for others. */
KILN_INTERNAL kiln_status kiln_launch_check_assert(kiln_kernel *kernel,
                                                   kiln_backend_stream *stream);
/* ---- launch_bounds.c: the checked mode's instrumented accesses --------- */

typedef struct kiln_bounds_report {
    kiln_backend_memory *memory;  /* pooled; NULL when none              */
    size_t capacity;
    size_t bytes;
} kiln_bounds_report;

/* For a kernel with `bounds_report`: the report buffer with the byte range
 * of each buffer argument (translate.h), as the launch's last argument
 * `out`. */
KILN_INTERNAL kiln_status kiln_bounds_report_prepare(
    const kiln_kernel *kernel, kiln_backend_stream *stream, size_t arg_count,
    const kiln_arg *args, kiln_bounds_report *report, kiln_backend_arg *out);
/* After the launch (waits for it): an access outside its argument is
 * KILN_ERR_KERNEL_FAULT naming the kernel, the argument and the offset. */
KILN_INTERNAL kiln_status kiln_bounds_report_check(
    const kiln_kernel *kernel, kiln_backend_stream *stream, size_t arg_count,
    const kiln_arg *args, const kiln_bounds_report *report);
KILN_INTERNAL void kiln_bounds_report_release(kiln_context *context,
                                              kiln_bounds_report *report,
                                              kiln_stream *stream,
                                              bool finished);
/* Checked mode, after the launch: the guard zones of every guarded buffer
 * and staged host array.  The first argument whose zones changed is
 * KILN_ERR_KERNEL_FAULT; every zone is checked (and restored) anyway. */
KILN_INTERNAL kiln_status kiln_stage_check_guards(
    const kiln_kernel *kernel, kiln_backend_stream *stream, size_t arg_count,
    const kiln_arg *args, const staged_host_arg *staged);

/* ---- prepared.c --------------------------------------------------------- */

/* The prepared-launch type string: one character per argument. */
KILN_INTERNAL kiln_status kiln_prepared_parse(const char *types, char *kinds,
                                              size_t capacity, size_t *count);
/* Frees a kernel's prepared type strings. */
KILN_INTERNAL void kiln_prepared_types_free(kiln_prepared_types *types);

#endif /* KILN_INTERNAL_H */
