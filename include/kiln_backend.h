/*
 * kiln_backend.h — the plugin ABI, for backend authors.
 *
 * A backend is a shared module (libtool -module) named kiln-<name>.so that
 * exports one symbol, KILN_BACKEND_ENTRY_SYMBOL: a function returning a
 * pointer to its constant kiln_backend_ops table, filled in one function,
 * one op a line (backends/opencl/opencl_backend.c is an example).
 *
 * Division of labour.  The core checks every user argument once (handles,
 * sizes, bounds, argument lists against kernel parameters, grid and block
 * against device limits), owns object lifetimes, the memory pool and the
 * kernel cache, and runs the kernel-language front end (translate/): it
 * inlines a program's #include files, translates a program written in the
 * other language, and appends at launch the arguments a translation
 * added.  A backend builds one language, its native_language, trusts what
 * it is handed and translates each op to its vendor API.  It never sees
 * the other language, never prints and never calls user code; it reports a
 * failure by returning a status and describing it with host->error().
 *
 * Versions: the policy is SQLite's for sqlite3_vfs.
 *  - KILN_BACKEND_ABI_MAJOR changes when a member changes its meaning or
 *    its place.  The core refuses a plugin of another major, with an error
 *    that names both versions.
 *  - A minor version only appends: members at the end of a struct, ops at
 *    the end of the table, values at the end of an enum.  Nothing is ever
 *    removed within a major, and no member is kept that nothing reads.
 *  - Every struct handed over on its own starts with `struct_size`, the
 *    size its writer compiled it with.  A reader uses a member only when
 *    struct_size covers it, and takes a missing one as 0 or NULL; for the
 *    ops table, a missing op is an absent optional op.  The core accepts a
 *    table of any minor of its major; a plugin reads host->abi_minor (or
 *    struct_size) before it uses what a later minor added to the host's
 *    structs.
 *  - The structs that travel in arrays (kiln_backend_param,
 *    kiln_backend_kernel_entry, kiln_backend_define, kiln_backend_header,
 *    kiln_backend_arg) never change within a major: growing one would move
 *    every element after the first.  A minor that needs more says it in
 *    the containing struct.
 *  - Required ops are non-NULL in every table; optional ones (marked so
 *    below) may be NULL, and the public calls that need them answer
 *    KILN_ERR_UNSUPPORTED, or the core does the work another way where
 *    the op's comment says so.
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

#define KILN_BACKEND_ABI_MAJOR 3
#define KILN_BACKEND_ABI_MINOR 1
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

/* What the core offers a backend; valid for the life of the process. */
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
    /* The value of a setting the ops table names in `settings` (NULL when
     * unset or not named there): backends read no environment, the core
     * reads it for them, in one place, before their initialize. */
    const char *(*setting)(const char *name);
} kiln_host_api;

/* What a backend tells of a device.  The core zeroes it and sets
 * struct_size before device_info fills it. */
typedef struct kiln_backend_device_info {
    size_t struct_size;
    char backend[16];
    int index;
    kiln_device_type type;
    char name[256];
    char vendor[128];
    char driver_version[128];
    char platform[128];
    char language_version[64];     /* "OpenCL C 1.2", "sm_90"              */
    int compute_capability_major;  /* CUDA                                 */
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
    /* The facts a translation for this device needs: the highest version
     * of its native language it compiles (OpenCL C 1.2: 1 2; 3 0 for an
     * OpenCL 3.0 device that lists C 3.0 among its versions, though it
     * names 1.2 in language_version; CUDA: the compute capability)
     * and of the compiler that builds it (NVRTC 12.4: 12040; 0 unknown). */
    int language_major;
    int language_minor;
    unsigned compiler_version;
} kiln_backend_device_info;

/* The kind of a value's elements, or a pointer's pointee. */
typedef enum kiln_backend_scalar {
    KILN_BACKEND_SCALAR_UNKNOWN = 0, /* a struct, a type not seen through */
    KILN_BACKEND_SCALAR_SIGNED,
    KILN_BACKEND_SCALAR_UNSIGNED,
    KILN_BACKEND_SCALAR_FLOAT,
    KILN_BACKEND_SCALAR_BOOL
} kiln_backend_scalar;

typedef enum kiln_backend_space {
    KILN_BACKEND_SPACE_PRIVATE = 0,  /* a value                            */
    KILN_BACKEND_SPACE_GLOBAL,
    KILN_BACKEND_SPACE_CONSTANT,
    KILN_BACKEND_SPACE_LOCAL,
    KILN_BACKEND_SPACE_UNKNOWN       /* the driver tells only a size       */
} kiln_backend_space;

/* A kernel parameter, described once by whoever reads the signature (the
 * driver, or the core's front end); never re-parsed at a launch. */
typedef struct kiln_backend_param {
    kiln_param_kind kind;        /* what a launch passes (kiln.h)          */
    kiln_backend_space space;
    kiln_backend_scalar scalar;
    uint32_t scalar_bytes;       /* 1, 2, 4 or 8; 0 unknown                */
    uint32_t vector_length;      /* 1 for a scalar; 0 unknown              */
    size_t size;                 /* bytes passed; 0 unknown                */
    const char *name;            /* "" when unknown                        */
    const char *type_name;       /* for messages: "float*"; "" unknown     */
} kiln_backend_param;

/* One -D or -U of the build options: -D NAME=VALUE, -D NAME (value "1",
 * as C compilers define it) or -U NAME (value NULL).  A function-like
 * macro's name holds its parameter list: -D'F(x)=x*2' is "F(x)", "x*2". */
typedef struct kiln_backend_define {
    const char *name;
    const char *value;
} kiln_backend_define;

/* A header the program's text #includes by name, given beside it. */
typedef struct kiln_backend_header {
    const char *name;
    const char *text;
    size_t length;
} kiln_backend_header;

/* A program in the plugin's native language, as the core hands it over:
 * #include files already inlined (with #line markers), a translation
 * already made, and the options as the native compiler takes them, split
 * once by the core into lists, each in the order given. */
typedef struct kiln_backend_source {
    size_t struct_size;
    kiln_language language;             /* always ops->native_language   */
    const char *text;
    size_t length;
    const char *name;        /* for messages: "<kiln program>" or a path  */
    const kiln_backend_define *defines; /* every -D and -U               */
    size_t define_count;
    /* Where the core looked for the #include files it inlined; an
     * #include it did not find is the compiler's. */
    const char *const *include_dirs;
    size_t include_dir_count;
    const char *const *flags;           /* every other word              */
    size_t flag_count;
    /* Headers the text includes by name (a translation's prelude); a
     * compiler that cannot take headers answers KILN_ERR_UNSUPPORTED when
     * there are any. */
    const kiln_backend_header *headers;
    size_t header_count;
    /* Minor 1.  Kernel template instances and kernels in namespaces the
     * host names (NVRTC's name expressions: "sgemm<64, 8>", "ns::k"),
     * each spelled once, as the core normalised it.  A compiler that
     * mangles names instantiates each and lists it under that name in
     * program_kernels (with its symbol in native_names); a translated
     * program's kernels are already instantiated and listed. */
    const char *const *kernel_names;
    size_t kernel_name_count;
} kiln_backend_source;

/* What a backend knows of a kernel; the core zeroes it and sets
 * struct_size before kernel_create fills it.  Storage the backend points
 * to is the backend kernel's, valid until kernel_destroy. */
typedef struct kiln_backend_kernel_info {
    size_t struct_size;
    size_t param_count;
    const kiln_backend_param *params;
    size_t max_threads_per_block;  /* for this kernel on its device        */
    size_t required_block[3];      /* reqd_work_group_size; 0 0 0 if none  */
    size_t static_local_memory;    /* bytes the kernel declares itself     */
} kiln_backend_kernel_info;

/* One kernel of a program: its name (as kernel_create takes it) and what
 * kernel_create needs to know of it after the program was loaded from
 * its image. */
typedef struct kiln_backend_kernel_entry {
    const char *name;
    /* 0: the backend could not read the parameters (kernel_create asks
     * the driver, or reports why it cannot); params is then empty. */
    int params_known;
    size_t param_count;
    const kiln_backend_param *params;
    size_t required_block[3];      /* reqd_work_group_size; 0 0 0 if none  */
} kiln_backend_kernel_entry;

/* What a program holds besides its vendor image. */
typedef struct kiln_backend_program_info {
    size_t struct_size;
    size_t kernel_count;
    const kiln_backend_kernel_entry *kernels;
    /* Minor 1.  Per kernel, the name kernel_create takes for it when that
     * is not its listed name (a name expression's mangled symbol); NULL,
     * or a NULL entry: the listed name.  The core keeps these with the
     * program, also in the disk cache. */
    const char *const *native_names;
} kiln_backend_program_info;

/* One checked launch argument. */
typedef struct kiln_backend_arg {
    kiln_arg_kind kind;            /* BUFFER, VALUE or LOCAL only          */
    size_t size;                   /* VALUE: bytes; LOCAL: bytes requested */
    const void *value;             /* VALUE                                */
    kiln_backend_memory *memory;   /* BUFFER                               */
} kiln_backend_arg;

typedef struct kiln_backend_launch {
    size_t struct_size;
    size_t grid[3];
    size_t block[3];
    /* 1, 2 or 3: the work dimensions OpenCL's get_work_dim() reports (the
     * grid and block are 1 past them). */
    unsigned dimensions;
    /* Dynamic shared memory of the launch, for a language that sizes it
     * at launch (CUDA C's extern __shared__); 0 for the others. */
    size_t local_memory;
    kiln_backend_stream *stream;
    size_t arg_count;              /* the kernel's parameters, all of them */
    const kiln_backend_arg *args;
} kiln_backend_launch;

typedef enum kiln_native_kind {
    KILN_NATIVE_CONTEXT = 1,
    KILN_NATIVE_DEVICE,
    KILN_NATIVE_STREAM,
    KILN_NATIVE_MEMORY,
    KILN_NATIVE_EVENT,
    KILN_NATIVE_KERNEL
} kiln_native_kind;

/* event_create's flags. */
enum {
    /* The event is asked for event_elapsed.  Without it the event is only
     * recorded, waited for and queried (the core's own events: the memory
     * pool's, staged copies'), and a vendor may skip the timestamp, which
     * a timed event writes only once all earlier work on the stream is
     * done (on the H100 each timed CUDA event recorded between two kernels
     * cost 1.7-2 us of device time; an untimed one, none). */
    KILN_BACKEND_EVENT_TIMED = 1
};

/* stream_create's flags. */
enum {
    /* The device starts the stream's work ahead of the pending work of
     * ordinary streams.  A device without priorities answers
     * KILN_ERR_UNSUPPORTED (no message needed): the core then makes an
     * ordinary stream and says so in its trace. */
    KILN_BACKEND_STREAM_HIGH_PRIORITY = 1
};

typedef struct kiln_backend_ops {
    uint32_t abi_major;            /* KILN_BACKEND_ABI_MAJOR               */
    uint32_t abi_minor;
    size_t struct_size;            /* sizeof(kiln_backend_ops)             */
    const char *name;              /* "cuda", "opencl"                     */
    /* The one kernel language program_build compiles. */
    kiln_language native_language;
    /* The settings the backend reads through host->setting (environment
     * variables: "KILN_OPENCL_PLATFORM", an ICD loader's
     * "OCL_ICD_VENDORS"), NULL-terminated; NULL for none. */
    const char *const *settings;

    /* ---- the backend and its devices ---- */

    /* Once, before anything else.  Loads the vendor library and finds the
     * devices; fails with KILN_ERR_BACKEND_UNAVAILABLE and the reason ("no
     * CUDA driver: libcuda.so.1: cannot open shared object file") when it
     * cannot be used.  Zero devices is a success with device_count 0. */
    kiln_status (*initialize)(const kiln_host_api *host);
    /* Backend and vendor versions, for kiln-info ("CUDA driver 13.0"). */
    const char *(*version)(void);
    kiln_status (*device_count)(int *count);
    kiln_status (*device_info)(int index, kiln_backend_device_info *info);

    /* ---- contexts ---- */

    kiln_status (*context_create)(int device, kiln_backend_context **context);
    void (*context_destroy)(kiln_backend_context *context);
    kiln_status (*context_synchronize)(kiln_backend_context *context);
    /* Everything that makes a compiled binary valid for this device:
     * compiler and driver versions, architecture (OpenCL: platform, device
     * name, driver version — never an index). Part of the cache key. */
    kiln_status (*cache_identity)(kiln_backend_context *context, char *buffer,
                                  size_t size);
    /* Writes the native handle of `object` (of `kind`; NULL object: the
     * context's own context/device/default stream) into `out`, which is
     * `size` bytes: KILN_ERR_INVALID_ARGUMENT if that is not the handle's
     * size. */
    kiln_status (*native_handle)(kiln_backend_context *context,
                                 kiln_native_kind kind, const void *object,
                                 void *out, size_t size);

    /* ---- memory ---- */

    kiln_status (*memory_alloc)(kiln_backend_context *context, size_t size,
                                kiln_backend_memory **memory);
    void (*memory_free)(kiln_backend_context *context,
                        kiln_backend_memory *memory);
    /* Optional.  A view of bytes [offset, offset + size) of `memory`:
     * memory that every op accepts (kernel arguments, transfers,
     * native_handle), whose byte 0 is byte `offset` of `memory`.  The core
     * frees it with memory_free, before `memory`.  The checked mode puts
     * guard zones around buffers this way (`offset` a multiple of 4096),
     * and a buffer view (kiln_buffer_create_view) at any other offset
     * becomes a kernel argument this way: a plugin that cannot view memory
     * at `offset` (an OpenCL sub-buffer starts at a multiple of
     * CL_DEVICE_MEM_BASE_ADDR_ALIGN) fails with KILN_ERR_UNSUPPORTED and
     * says why.  NULL makes kiln_context_set_checks answer
     * KILN_ERR_UNSUPPORTED, and views at an offset other than 0 too. */
    kiln_status (*memory_view)(kiln_backend_context *context,
                               kiln_backend_memory *memory, size_t offset,
                               size_t size, kiln_backend_memory **view);
    /* A blocking write returns once the host memory may be reused; this
     * context's later work sees the data.  A backend whose write may
     * still be landing then (CUDA, from pageable memory) orders its
     * memory_copy_peer after it. */
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
    /* Optional.  Copies `size` bytes from `source` (of `source_context`)
     * to `destination` (of `destination_context`, another context of this
     * backend), queued on `stream` of `stream_context`, which is one of
     * the two (NULL: that context's default stream).  Ordered after
     * earlier work on that stream only; `blocking` returns when the data
     * has arrived, and a blocking copy on a NULL stream is also ordered
     * after work already queued on both contexts.  Ranges are checked by
     * the core.  KILN_ERR_UNSUPPORTED, with the reason, when the backend
     * has no path between the two contexts that beats the core's own
     * staging through host memory; NULL: the core always stages. */
    kiln_status (*memory_copy_peer)(kiln_backend_context *stream_context,
                                    kiln_backend_stream *stream,
                                    kiln_backend_context *destination_context,
                                    kiln_backend_memory *destination,
                                    size_t destination_offset,
                                    kiln_backend_context *source_context,
                                    kiln_backend_memory *source,
                                    size_t source_offset, size_t size,
                                    int blocking);
    /* Optional.  Writes into `handle` (room for `*size` bytes; `*size`
     * becomes the bytes written) what another process of this machine
     * needs to map `memory` with memory_ipc_open.  NULL, or
     * KILN_ERR_UNSUPPORTED with the reason, makes the core refuse
     * kiln_buffer_get_ipc_handle with KILN_ERR_UNSUPPORTED. */
    kiln_status (*memory_ipc_export)(kiln_backend_context *context,
                                     kiln_backend_memory *memory,
                                     void *handle, size_t *size);
    /* Optional, with memory_ipc_export.  Maps `size` bytes of the memory
     * that `handle` (`handle_size` bytes, as memory_ipc_export wrote them
     * in another process) names.  The core frees the result with
     * memory_free, which unmaps it and leaves the memory to its owner. */
    kiln_status (*memory_ipc_open)(kiln_backend_context *context,
                                   const void *handle, size_t handle_size,
                                   size_t size, kiln_backend_memory **memory);
    kiln_status (*host_alloc)(kiln_backend_context *context, size_t size,
                              void **host);
    void (*host_free)(kiln_backend_context *context, void *host);

    /* ---- streams and events ---- */

    /* `flags`: KILN_BACKEND_STREAM_HIGH_PRIORITY or 0. */
    kiln_status (*stream_create)(kiln_backend_context *context, unsigned flags,
                                 kiln_backend_stream **stream);
    void (*stream_destroy)(kiln_backend_context *context,
                           kiln_backend_stream *stream);
    kiln_status (*stream_synchronize)(kiln_backend_context *context,
                                      kiln_backend_stream *stream);
    kiln_status (*stream_wait_event)(kiln_backend_context *context,
                                     kiln_backend_stream *stream,
                                     kiln_backend_event *event);
    /* Optional.  Makes work queued on `stream` of `context` after this
     * wait for `event` (recorded, of `event_context`, another context of
     * this backend) without blocking the host.  KILN_ERR_UNSUPPORTED when
     * the vendor API cannot (an OpenCL wait list takes events of its own
     * cl_context only); NULL (or UNSUPPORTED) makes the core wait for the
     * event on the host instead. */
    kiln_status (*stream_wait_event_peer)(kiln_backend_context *context,
                                          kiln_backend_stream *stream,
                                          kiln_backend_context *event_context,
                                          kiln_backend_event *event);
    /* `flags`: KILN_BACKEND_EVENT_TIMED or 0. */
    kiln_status (*event_create)(kiln_backend_context *context, unsigned flags,
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
    /* Both events made with KILN_BACKEND_EVENT_TIMED. */
    kiln_status (*event_elapsed)(kiln_backend_context *context,
                                 kiln_backend_event *start,
                                 kiln_backend_event *end,
                                 float *milliseconds);

    /* ---- programs ---- */

    /* Compiles native source.  On KILN_ERR_BUILD, *log receives the
     * compiler's log (malloc'ed; the core frees it) and the error message
     * says what failed.  On success *log may hold warnings. */
    kiln_status (*program_build)(kiln_backend_context *context,
                                 const kiln_backend_source *source,
                                 kiln_backend_program **program, char **log);
    void (*program_destroy)(kiln_backend_context *context,
                            kiln_backend_program *program);
    /* The program's kernels in the order kiln_program_get_kernel_name
     * lists them, each with its parameters where known; the storage is the
     * program's, valid until program_destroy.  KILN_ERR_UNSUPPORTED, with
     * the reason, when the driver cannot list them (the core then lists
     * the kernels its front end read). */
    kiln_status (*program_kernels)(kiln_backend_context *context,
                                   kiln_backend_program *program,
                                   const kiln_backend_program_info **info);
    /* Optional, with program_load_image.  The vendor image of `program`
     * alone (malloc'ed; the core frees it): a CUBIN or PTX for CUDA, the
     * program binary for OpenCL.  The core saves it with program_kernels'
     * info in a format of its own (core/saved_program.c).
     * KILN_ERR_UNSUPPORTED, with the reason, when the driver gives none;
     * NULL keeps programs out of the disk cache. */
    kiln_status (*program_image)(kiln_backend_context *context,
                                 kiln_backend_program *program, void **data,
                                 size_t *size);
    /* Optional, with program_image.  Recreates a program from an image
     * that program_image gave on a device of the same cache_identity, and
     * `info` as program_kernels gave it then (the core's copy, valid
     * during the call only; names checked: terminated, non-empty).  The
     * core checksums what it saved, so the bytes are the ones written; any
     * error status makes the core compile instead. */
    kiln_status (*program_load_image)(kiln_backend_context *context,
                                      const void *data, size_t size,
                                      const kiln_backend_program_info *info,
                                      kiln_backend_program **program);
    /* Optional.  The memory of the program-scope variable `name` that the
     * native language declares (CUDA C's __device__ and __constant__
     * variables) and its size in bytes.  The memory belongs to the
     * program (the core never passes it to memory_free) and lives as long
     * as it; it may be used wherever a buffer's memory is.
     * KILN_ERR_INVALID_ARGUMENT, with the reason, when there is no such
     * variable; NULL makes kiln_program_get_global answer
     * KILN_ERR_UNSUPPORTED for native programs. */
    kiln_status (*program_variable)(kiln_backend_context *context,
                                    kiln_backend_program *program,
                                    const char *name,
                                    kiln_backend_memory **memory,
                                    size_t *size);

    /* ---- kernels ---- */

    /* KILN_ERR_KERNEL_NOT_FOUND when `name` is not a kernel of program.
     * `info` gets every parameter of the kernel as the driver has it. */
    kiln_status (*kernel_create)(kiln_backend_context *context,
                                 kiln_backend_program *program,
                                 const char *name,
                                 kiln_backend_kernel **kernel,
                                 kiln_backend_kernel_info *info);
    void (*kernel_destroy)(kiln_backend_context *context,
                           kiln_backend_kernel *kernel);
    /* Arguments, grid and block have been checked by the core against the
     * kernel info and the device limits; the arguments are one for each of
     * the kernel's parameters, in kinds the native language has (a LOCAL
     * argument only where the kernel declares a local pointer). */
    kiln_status (*launch)(kiln_backend_context *context,
                          kiln_backend_kernel *kernel,
                          const kiln_backend_launch *launch);
} kiln_backend_ops;

/* The smallest table the core accepts: 3.0's, whose last op is launch. */
#define KILN_BACKEND_OPS_SIZE_3_0 \
    (offsetof(kiln_backend_ops, launch) + sizeof(void (*)(void)))

typedef const kiln_backend_ops *(*kiln_backend_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_BACKEND_H */
