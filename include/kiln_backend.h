/*
 * kiln_backend.h — the plugin ABI, for backend authors.
 *
 * A backend is a shared module (libtool -module) named kiln-<name>.so that
 * exports one symbol, KILN_BACKEND_ENTRY_SYMBOL, a function returning a
 * pointer to a constant kiln_backend_ops table.  The core checks the
 * table's ABI major version and size before using it.
 *
 * Division of labour: the core checks every user argument once (handles,
 * sizes, bounds, argument lists against kernel parameters, grid and block
 * against device limits), owns object lifetimes, the memory pool and the
 * kernel cache.  A backend trusts what it is handed and translates each op
 * to its vendor API.  Backends never print and never call user code; they
 * report failures by returning a status and describing it with
 * host->error().
 *
 * Threads: every op may be called from several threads at once, also on
 * the same object; a backend whose vendor API is not safe for that (an
 * OpenCL kernel keeps its arguments: set + enqueue must be one locked step)
 * locks inside the backend.
 *
 * Streams: wherever an op takes a kiln_backend_stream *, NULL means the
 * backend context's default stream.  Ops whose `blocking` is non-zero
 * return only when the work is done (and the host memory may be reused).
 */
#ifndef KILN_BACKEND_H
#define KILN_BACKEND_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A different major version is refused; a newer minor may only append ops
 * at the end of the table.  The core accepts a table of an older minor of
 * the same major (struct_size tells how many ops it has): the ops that
 * minor lacks are treated as absent, and the public calls that need them
 * answer KILN_ERR_UNSUPPORTED.
 *   1.0  every op up to native_handle (all required)
 *   1.1  program_kernel_names (optional)
 *   1.2  memory_copy_peer, stream_wait_event_peer (optional)
 *   2.0  the host API hands over the settings the core read from the
 *        environment (kiln_backend_settings) instead of a getenv: plugins
 *        read no environment.  The ops table is 1.2's: every op up to
 *        native_handle required, the later ones optional.
 *   2.1  memory_view (optional)
 *   2.2  kiln_backend_launch.dimensions (an older plugin infers them)
 *   2.3  program_global (optional)
 *   2.4  kiln_backend_source carries the build options as lists (defines,
 *        include directories, other flags), split once by the core; a
 *        plugin reads those instead of splitting `options` (an older one
 *        still reads `options`)
 *   2.5  program_kernels, program_image, program_load_image (optional):
 *        the core keeps saved programs in a format of its own and asks a
 *        plugin only for its vendor image; kernel information crosses as
 *        structs.  They replace program_kernel_names, program_serialize
 *        and program_load, which the core no longer calls (a plugin may
 *        leave them NULL): a plugin of an older minor still loads and runs,
 *        but its programs are not kept in the disk cache and listing its
 *        kernels answers KILN_ERR_UNSUPPORTED.
 *   2.6  event_create_untimed (optional)
 *   2.7  KILN_BACKEND_HIDDEN_POINTER_OFFSET, set by the core; memory_view
 *        at any offset, failing with a reason where the vendor cannot
 * The structs below are the plugin ABI's own: the public ones of kiln.h
 * may grow without changing it. */
#define KILN_BACKEND_ABI_MAJOR 2
#define KILN_BACKEND_ABI_MINOR 7
#define KILN_BACKEND_ENTRY_SYMBOL "kiln_backend_entry"

/* Each backend defines these structs privately. */
typedef struct kiln_backend_context kiln_backend_context;
typedef struct kiln_backend_memory kiln_backend_memory;
typedef struct kiln_backend_stream kiln_backend_stream;
typedef struct kiln_backend_event kiln_backend_event;
typedef struct kiln_backend_program kiln_backend_program;
typedef struct kiln_backend_kernel kiln_backend_kernel;

#if defined(__GNUC__)
#define KILN_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define KILN_PRINTF_LIKE(f, a)
#endif

/* The settings the core read from the environment (all of it in one file
 * of the core, once) for the plugins; NULL where unset. */
typedef struct kiln_backend_settings {
    size_t struct_size;            /* sizeof(kiln_backend_settings)        */
    /* KILN_OPENCL_PLATFORM: use only the OpenCL platforms whose name
     * contains it (ignoring case). */
    const char *opencl_platform;
    /* The ICD loaders' OCL_ICD_VENDORS and OCL_ICD_FILENAMES, as they were
     * before any plugin started, for messages ("no OpenCL platform:
     * OCL_ICD_VENDORS=..."). */
    const char *icd_vendors;
    const char *icd_filenames;
} kiln_backend_settings;

/* What the core offers a backend. */
typedef struct kiln_host_api {
    uint32_t abi_major;
    uint32_t abi_minor;
    size_t struct_size;
    /* Sets this thread's last error to the formatted message and returns
     * `status`, so a backend can write `return host->error(...)`. */
    kiln_status (*error)(kiln_status status, const char *format, ...)
        KILN_PRINTF_LIKE(2, 3);
    /* A line of KILN_LOG=debug tracing (dropped unless enabled). */
    void (*trace)(const char *format, ...) KILN_PRINTF_LIKE(1, 2);
    /* Valid for the life of the process. */
    const kiln_backend_settings *settings;
} kiln_host_api;

/* What a backend tells of a device (the layout of Kiln 0.1's public
 * kiln_device_info, which the core copies into the public struct). */
typedef struct kiln_backend_device_info {
    char backend[16];
    int index;
    kiln_device_type type;
    char name[256];
    char vendor[128];
    char driver_version[128];
    char platform[128];
    char language_version[64];
    int compute_capability_major;
    int compute_capability_minor;
    uint64_t global_memory;
    uint64_t local_memory;
    uint64_t constant_memory;
    uint64_t max_allocation;
    int compute_units;
    int clock_mhz;
    size_t max_threads_per_block;
    size_t max_block[3];
    size_t max_grid[3];
    int warp_size;
    int supports_double;
    int unified_memory;
    char extensions[4096];     /* OpenCL's CL_DEVICE_EXTENSIONS; "" on CUDA */
} kiln_backend_device_info;

/* What a backend tells of a kernel parameter (see kiln_param_info). */
typedef struct kiln_backend_param {
    kiln_param_kind kind;
    size_t size;
    const char *name;
    const char *type_name;
} kiln_backend_param;

/* One -D or -U of the build options: -D NAME=VALUE, -D NAME (value "1",
 * as C compilers define it) or -U NAME (value NULL).  A function-like
 * macro's name holds its parameter list: -D'F(x)=x*2' is "F(x)", "x*2". */
typedef struct kiln_backend_define {
    const char *name;
    const char *value;       /* NULL: -U NAME                             */
} kiln_backend_define;

/* A program's source as the core hands it over: #include "..." already
 * inlined (with #line markers).  The build options come split into words
 * once, by the core (each word as the user meant it, quotes removed), and
 * sorted into lists, each in the order given. */
typedef struct kiln_backend_source {
    kiln_language language;
    const char *text;
    size_t length;
    /* The options as one string, kiln_build_options.defines appended as
     * -D words: for messages, and for plugins older than ABI 2.4, which
     * split it themselves.  Never NULL. */
    const char *options;
    const char *name;        /* for messages: "<kiln program>" or a path  */
    /* ---- ABI 2.4 ---- */
    const kiln_backend_define *defines;   /* every -D and -U             */
    size_t define_count;
    /* kiln_build_options.include_dirs, then every -I: where the core
     * looked for the #include files it inlined. */
    const char *const *include_dirs;
    size_t include_dir_count;
    const char *const *flags;   /* every other word ("-cl-mad-enable")  */
    size_t flag_count;
} kiln_backend_source;

/* What a backend knows of a kernel; storage owned by the backend kernel and
 * valid until kernel_destroy. */
typedef struct kiln_backend_kernel_info {
    size_t param_count;
    const kiln_backend_param *params;
    size_t max_threads_per_block;  /* for this kernel on its device        */
    size_t required_block[3];      /* reqd_work_group_size; 0 0 0 if none  */
    size_t static_local_memory;    /* bytes the kernel declares itself     */
} kiln_backend_kernel_info;

/* ---- ABI 2.5: what a program holds, listed and saved by the core ---- */

/* A parameter that a CUDA C translation added after the user's.  The
 * backend sets DYNAMIC_SHARED and VARIABLE itself.  POINTER_OFFSET (ABI
 * 2.7) is the byte offset (a ulong) at which the pointer parameter
 * `variable` (an index into the user's parameters) starts in the buffer
 * passed for it; these come first among a kernel's hidden parameters, and
 * the core passes them as VALUE arguments appended after the user's (so
 * launch.arg_count counts them), giving the buffer argument the memory of
 * a view's base. */
typedef enum kiln_backend_hidden_kind {
    KILN_BACKEND_HIDDEN_DYNAMIC_SHARED = 1, /* extern __shared__: a __local
                                               argument of local_memory bytes */
    KILN_BACKEND_HIDDEN_VARIABLE,           /* the buffer of variables[variable] */
    KILN_BACKEND_HIDDEN_POINTER_OFFSET      /* set by the core: see above   */
} kiln_backend_hidden_kind;

typedef struct kiln_backend_hidden_param {
    kiln_backend_hidden_kind kind;
    size_t variable;
} kiln_backend_hidden_param;

/* One kernel of a program: its name (as listed, and as kernel_create
 * takes it) and what kernel_create needs to know of it after a program
 * was loaded from an image. */
typedef struct kiln_backend_kernel_signature {
    const char *name;
    /* 0: the backend could not read the parameters (kernel_create asks
     * the driver, or reports why it cannot); params is then empty. */
    int params_known;
    size_t param_count;
    const kiln_backend_param *params;
    size_t required_block[3];      /* reqd_work_group_size; 0 0 0 if none  */
    size_t hidden_count;           /* after the params                     */
    const kiln_backend_hidden_param *hidden;
} kiln_backend_kernel_signature;

/* A __device__ or __constant__ variable of a CUDA C program that the
 * backend keeps as a buffer of its own (the OpenCL backend's translation;
 * a CUDA module holds its own). */
typedef struct kiln_backend_variable {
    const char *name;
    int is_constant;               /* __constant__, else __device__        */
    int has_initializer;
} kiln_backend_variable;

/* What a program holds besides its vendor image. */
typedef struct kiln_backend_program_info {
    size_t kernel_count;
    const kiln_backend_kernel_signature *kernels;
    size_t variable_count;
    const kiln_backend_variable *variables;
} kiln_backend_program_info;

/* One checked launch argument. */
typedef struct kiln_backend_arg {
    kiln_arg_kind kind;            /* BUFFER, VALUE or LOCAL only          */
    size_t size;                   /* VALUE: bytes; LOCAL: bytes requested */
    const void *value;             /* VALUE                                */
    kiln_backend_memory *memory;   /* BUFFER                               */
} kiln_backend_arg;

typedef struct kiln_backend_launch {
    size_t grid[3];
    size_t block[3];
    size_t local_memory;           /* dynamic shared memory (CUDA C)       */
    kiln_backend_stream *stream;
    size_t arg_count;
    const kiln_backend_arg *args;
    /* ---- ABI 2.2 ---- */
    unsigned dimensions;           /* 1, 2 or 3: what get_work_dim() sees;
                                      grid and block are 1 past them      */
} kiln_backend_launch;

typedef enum kiln_native_kind {
    KILN_NATIVE_CONTEXT = 1,
    KILN_NATIVE_DEVICE,
    KILN_NATIVE_STREAM,
    KILN_NATIVE_MEMORY,
    KILN_NATIVE_EVENT,
    KILN_NATIVE_KERNEL
} kiln_native_kind;

typedef struct kiln_backend_ops {
    uint32_t abi_major;            /* KILN_BACKEND_ABI_MAJOR               */
    uint32_t abi_minor;
    size_t struct_size;            /* sizeof(kiln_backend_ops)             */
    const char *name;              /* "cuda", "opencl"                     */

    /* Once, before anything else.  Loads the vendor library and finds the
     * devices; fails with KILN_ERR_BACKEND_UNAVAILABLE and the reason ("no
     * CUDA driver: libcuda.so.1: cannot open shared object file") when it
     * cannot be used.  Zero devices is a success with device_count 0. */
    kiln_status (*initialize)(const kiln_host_api *host);
    /* Backend and vendor versions, for kiln-info ("CUDA driver 13.0"). */
    const char *(*version)(void);

    kiln_status (*device_count)(int *count);
    kiln_status (*device_info)(int index, kiln_backend_device_info *info);

    kiln_status (*context_create)(int device, kiln_backend_context **context);
    void (*context_destroy)(kiln_backend_context *context);
    kiln_status (*context_synchronize)(kiln_backend_context *context);
    /* Everything that makes a compiled binary valid for this device:
     * compiler and driver versions, architecture (OpenCL: platform, device
     * name, driver version — never an index). Part of the cache key. */
    kiln_status (*cache_identity)(kiln_backend_context *context, char *buffer,
                                  size_t size);

    kiln_status (*memory_alloc)(kiln_backend_context *context, size_t size,
                                kiln_backend_memory **memory);
    void (*memory_free)(kiln_backend_context *context,
                        kiln_backend_memory *memory);
    /* A blocking write has landed when it returns: other contexts and
     * other processes may read the bytes at once, not only this context's
     * later work. */
    kiln_status (*memory_write)(kiln_backend_context *context,
                                kiln_backend_stream *stream,
                                kiln_backend_memory *memory, size_t offset,
                                const void *host, size_t size, int blocking);
    kiln_status (*memory_read)(kiln_backend_context *context,
                               kiln_backend_stream *stream,
                               kiln_backend_memory *memory, size_t offset,
                               void *host, size_t size, int blocking);
    kiln_status (*memory_copy)(kiln_backend_context *context,
                               kiln_backend_stream *stream,
                               kiln_backend_memory *destination,
                               size_t destination_offset,
                               kiln_backend_memory *source,
                               size_t source_offset, size_t size,
                               int blocking);
    /* pattern_size is 1, 2, 4, 8 or 16; offset and size are multiples. */
    kiln_status (*memory_fill)(kiln_backend_context *context,
                               kiln_backend_stream *stream,
                               kiln_backend_memory *memory, size_t offset,
                               size_t size, const void *pattern,
                               size_t pattern_size, int blocking);
    kiln_status (*host_alloc)(kiln_backend_context *context, size_t size,
                              void **host);
    void (*host_free)(kiln_backend_context *context, void *host);

    kiln_status (*stream_create)(kiln_backend_context *context,
                                 kiln_backend_stream **stream);
    void (*stream_destroy)(kiln_backend_context *context,
                           kiln_backend_stream *stream);
    kiln_status (*stream_synchronize)(kiln_backend_context *context,
                                      kiln_backend_stream *stream);
    kiln_status (*stream_wait_event)(kiln_backend_context *context,
                                     kiln_backend_stream *stream,
                                     kiln_backend_event *event);

    kiln_status (*event_create)(kiln_backend_context *context,
                                kiln_backend_event **event);
    void (*event_destroy)(kiln_backend_context *context,
                          kiln_backend_event *event);
    kiln_status (*event_record)(kiln_backend_context *context,
                                kiln_backend_event *event,
                                kiln_backend_stream *stream);
    kiln_status (*event_synchronize)(kiln_backend_context *context,
                                     kiln_backend_event *event);
    /* KILN_OK when complete, KILN_ERR_NOT_READY (without an error message)
     * when not yet. */
    kiln_status (*event_query)(kiln_backend_context *context,
                               kiln_backend_event *event);
    kiln_status (*event_elapsed)(kiln_backend_context *context,
                                 kiln_backend_event *start,
                                 kiln_backend_event *end,
                                 float *milliseconds);

    /* Compiles.  On KILN_ERR_BUILD / KILN_ERR_TRANSLATION, *log receives
     * the compiler's log (malloc'ed; the core frees it) and the error
     * message says what failed.  On success *log may hold warnings. */
    kiln_status (*program_build)(kiln_backend_context *context,
                                 const kiln_backend_source *source,
                                 kiln_backend_program **program, char **log);
    /* Before 2.5: a self-contained blob (malloc'ed) from which
     * program_load recreated the program.  No longer called (see 2.5's
     * program_image); may be NULL. */
    kiln_status (*program_serialize)(kiln_backend_context *context,
                                     kiln_backend_program *program,
                                     void **data, size_t *size);
    /* Before 2.5; no longer called, may be NULL. */
    kiln_status (*program_load)(kiln_backend_context *context,
                                const void *data, size_t size,
                                kiln_backend_program **program);
    void (*program_destroy)(kiln_backend_context *context,
                            kiln_backend_program *program);

    /* KILN_ERR_KERNEL_NOT_FOUND when `name` is not a kernel of program. */
    kiln_status (*kernel_create)(kiln_backend_context *context,
                                 kiln_backend_program *program,
                                 const char *name,
                                 kiln_backend_kernel **kernel,
                                 kiln_backend_kernel_info *info);
    void (*kernel_destroy)(kiln_backend_context *context,
                           kiln_backend_kernel *kernel);
    /* Arguments, grid and block have been checked by the core against the
     * kernel info and the device limits. */
    kiln_status (*launch)(kiln_backend_context *context,
                          kiln_backend_kernel *kernel,
                          const kiln_backend_launch *launch);

    /* Writes the native handle of `object` (of `kind`; NULL object: the
     * context's own context/device/default stream) into `out`, which is
     * `size` bytes: KILN_ERR_INVALID_ARGUMENT if that is not the handle's
     * size. */
    kiln_status (*native_handle)(kiln_backend_context *context,
                                 kiln_native_kind kind, const void *object,
                                 void *out, size_t size);

    /* ---- ABI 1.1 ---- */

    /* Before 2.5: the kernels' names joined by ';'.  No longer called
     * (see program_kernels); may be NULL. */
    kiln_status (*program_kernel_names)(kiln_backend_context *context,
                                        kiln_backend_program *program,
                                        char **names);

    /* ---- ABI 1.2: work between two contexts of this backend ---- */

    /* Copies `size` bytes from `source` (of `source_context`) to
     * `destination` (of `destination_context`, another context of this
     * backend), queued on `stream` of `stream_context`, which is one of the
     * two (NULL: that context's default stream).  Ordered after earlier
     * work on that stream only; `blocking` returns when the data has
     * arrived, and a blocking copy on a NULL stream is also ordered after
     * work already queued on both contexts.  Ranges are checked by the
     * core.  KILN_ERR_UNSUPPORTED, with the reason, when the backend has no
     * path between the two contexts that beats the core's own staging
     * through host memory.  Optional: NULL means the core always stages. */
    kiln_status (*memory_copy_peer)(kiln_backend_context *stream_context,
                                    kiln_backend_stream *stream,
                                    kiln_backend_context *destination_context,
                                    kiln_backend_memory *destination,
                                    size_t destination_offset,
                                    kiln_backend_context *source_context,
                                    kiln_backend_memory *source,
                                    size_t source_offset, size_t size,
                                    int blocking);
    /* Makes work queued on `stream` of `context` after this wait for
     * `event` (recorded, of `event_context`, another context of this
     * backend) without blocking the host.  KILN_ERR_UNSUPPORTED when the
     * vendor API cannot (an OpenCL wait list takes events of its own
     * cl_context only).  Optional: NULL (or UNSUPPORTED) makes the core
     * wait for the event on the host instead. */
    kiln_status (*stream_wait_event_peer)(kiln_backend_context *context,
                                          kiln_backend_stream *stream,
                                          kiln_backend_context *event_context,
                                          kiln_backend_event *event);

    /* ---- ABI 2.1 ---- */

    /* A view of bytes [offset, offset + size) of `memory`: memory that
     * every op accepts (kernel arguments, transfers, native_handle), whose
     * byte 0 is byte `offset` of `memory`.  The core frees it with
     * memory_free, before `memory`.  The checked mode puts guard zones
     * around buffers this way (`offset` a multiple of 4096), and a buffer
     * view (kiln_buffer_create_view) at any other offset becomes a kernel
     * argument this way: a plugin that cannot view memory at `offset` (an
     * OpenCL sub-buffer must start at a multiple of
     * CL_DEVICE_MEM_BASE_ADDR_ALIGN) fails with KILN_ERR_UNSUPPORTED and
     * says why.  Optional: NULL makes kiln_context_set_checks answer
     * KILN_ERR_UNSUPPORTED, and views at an offset other than 0 too. */
    kiln_status (*memory_view)(kiln_backend_context *context,
                               kiln_backend_memory *memory, size_t offset,
                               size_t size, kiln_backend_memory **view);

    /* ---- ABI 2.3: variables of CUDA C programs ---- */

    /* The memory of the __device__ or __constant__ variable `name` of
     * `program` and its size in bytes.  The memory belongs to the program
     * (the core never passes it to memory_free) and lives as long as the
     * program; it may be used wherever a buffer's memory is.
     * KILN_ERR_INVALID_ARGUMENT, with the reason, when the program has no
     * such variable.  Optional: NULL makes kiln_program_get_global answer
     * KILN_ERR_UNSUPPORTED. */
    kiln_status (*program_global)(kiln_backend_context *context,
                                  kiln_backend_program *program,
                                  const char *name,
                                  kiln_backend_memory **memory, size_t *size);

    /* ---- ABI 2.5: saved programs ---- */

    /* What `program` holds besides its image, filled when it was built or
     * loaded: its kernels in the order kiln_program_get_kernel_name lists
     * them, each with its parameters where known, and its variables.  The
     * storage is the program's, valid until program_destroy.  Optional:
     * NULL makes kiln_program_get_kernel_count answer KILN_ERR_UNSUPPORTED
     * and leaves programs out of the disk cache. */
    kiln_status (*program_kernels)(kiln_backend_context *context,
                                   kiln_backend_program *program,
                                   const kiln_backend_program_info **info);
    /* The vendor image of `program` alone (malloc'ed; the core frees it):
     * a CUBIN or PTX for CUDA, the program binary for OpenCL.  The core
     * saves it with program_kernels' info in a format of its own.
     * KILN_ERR_UNSUPPORTED, with the reason, when the driver gives none.
     * Optional, with program_load_image: NULL keeps programs out of the
     * disk cache. */
    kiln_status (*program_image)(kiln_backend_context *context,
                                 kiln_backend_program *program, void **data,
                                 size_t *size);
    /* Recreates a program of `language` from an image that program_image
     * gave on a device of the same cache_identity, and `info` as
     * program_kernels gave it then (the core's copy, valid during the call
     * only; names checked: terminated, non-empty, hidden variables in
     * range).  The core checksums what it saved, so the bytes are the ones
     * written; any error status makes the core compile instead. */
    kiln_status (*program_load_image)(kiln_backend_context *context,
                                      kiln_language language,
                                      const void *data, size_t size,
                                      const kiln_backend_program_info *info,
                                      kiln_backend_program **program);

    /* ---- ABI 2.6 ---- */

    /* An event like event_create's that is only recorded, waited for and
     * queried, never asked for event_elapsed: the core's own events (the
     * memory pool's, staged copies') are these.  A vendor may then skip
     * the timestamp, which a timed event writes only once all earlier work
     * on the stream is done (on the H100 each timed CUDA event recorded
     * between two kernels cost 1.7-2 us of device time; an untimed one,
     * none).  Optional: NULL makes the core use event_create. */
    kiln_status (*event_create_untimed)(kiln_backend_context *context,
                                        kiln_backend_event **event);

    /* ---- ABI 2.7: device memory shared between processes ---- */

    /* Writes into `handle` (room for `*size` bytes; `*size` becomes the
     * bytes written) what another process of this machine needs to map
     * `memory` with memory_ipc_open.  Optional: NULL, or
     * KILN_ERR_UNSUPPORTED with the reason, makes the core refuse
     * kiln_buffer_get_ipc_handle with KILN_ERR_UNSUPPORTED. */
    kiln_status (*memory_ipc_export)(kiln_backend_context *context,
                                     kiln_backend_memory *memory,
                                     void *handle, size_t *size);
    /* Maps `size` bytes of the memory that `handle` (`handle_size` bytes,
     * as memory_ipc_export wrote them in another process) names.  The core
     * frees the result with memory_free, which unmaps it and leaves the
     * memory to its owner.  Optional with memory_ipc_export. */
    kiln_status (*memory_ipc_open)(kiln_backend_context *context,
                                   const void *handle, size_t handle_size,
                                   size_t size, kiln_backend_memory **memory);

    /* A stream as stream_create's whose work the device starts ahead of
     * the pending work of stream_create's streams.  KILN_ERR_UNSUPPORTED
     * when the device has no priorities; optional: NULL, or UNSUPPORTED,
     * makes the core create an ordinary stream and report it. */
    kiln_status (*stream_create_high_priority)(kiln_backend_context *context,
                                               kiln_backend_stream **stream);
} kiln_backend_ops;

/* The size of a table of the required ops: the smallest the core
 * accepts. */
#define KILN_BACKEND_OPS_SIZE_2_0 \
    offsetof(kiln_backend_ops, program_kernel_names)

typedef const kiln_backend_ops *(*kiln_backend_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_BACKEND_H */
