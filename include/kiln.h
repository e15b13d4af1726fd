/*
 * kiln.h — the Kiln user API.
 *
 * Kiln runs GPU kernels written once in OpenCL C on NVIDIA GPUs (CUDA
 * backend) and on any OpenCL device, PoCL on a plain CPU included.
 *
 * Conventions that hold for every function below unless its comment says
 * otherwise:
 *  - It returns a kiln_status; KILN_OK is 0.  On any other status,
 *    kiln_last_error() holds a message with the detail (the vendor's error
 *    name, the build log, the limit that was exceeded) and no out-parameter
 *    has been written.
 *  - A NULL handle, a released handle (where it can still be detected) or a
 *    NULL out-pointer is KILN_ERR_INVALID_HANDLE / KILN_ERR_INVALID_ARGUMENT.
 *  - Objects are reference counted.  *_create returns an object with one
 *    reference that the caller owns; *_retain adds one, *_release drops one.
 *    A child holds a reference to its parent (buffer, program, stream and
 *    event -> context; kernel -> program; a buffer's queued work -> its
 *    stream), so objects may be released in any order: memory is freed when
 *    the last reference goes.  Children's references are not the caller's:
 *    a release beyond the caller's own (create + retains) is
 *    KILN_ERR_INVALID_HANDLE and changes nothing.  Getters that return a
 *    handle lend it without a reference.
 *
 * Thread safety: every function may be called from any thread.  Objects may
 * be shared between threads; calls on one object are serialised where the
 * vendor API needs it (an OpenCL kernel's arguments are set and enqueued
 * under one lock).  The last error is per thread.  What is not safe: using an
 * object in one thread while another thread drops its last reference.
 */
#ifndef KILN_H
#define KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_VERSION_MAJOR 0
#define KILN_VERSION_MINOR 1
#define KILN_VERSION_PATCH 0

/* ------------------------------------------------------------------------ */
/* Status and errors                                                        */
/* ------------------------------------------------------------------------ */

typedef enum kiln_status {
    KILN_OK = 0,
    KILN_ERR_INVALID_ARGUMENT,    /* a NULL out-pointer, bad flag or string */
    KILN_ERR_INVALID_HANDLE,      /* NULL, released or foreign handle       */
    KILN_ERR_INVALID_SIZE,        /* zero size, or a size that cannot exist */
    KILN_ERR_OUT_OF_BOUNDS,       /* offset + size past the end of a buffer */
    KILN_ERR_OUT_OF_HOST_MEMORY,
    KILN_ERR_OUT_OF_DEVICE_MEMORY,
    KILN_ERR_BACKEND_UNKNOWN,     /* a backend name Kiln does not know      */
    KILN_ERR_BACKEND_NOT_FOUND,   /* its plugin file is not on the path     */
    KILN_ERR_BACKEND_LOAD,        /* the plugin exists but will not load    */
    KILN_ERR_BACKEND_ABI,         /* the plugin was built for another ABI   */
    KILN_ERR_BACKEND_UNAVAILABLE, /* loaded, but no driver or no platform   */
    KILN_ERR_NO_DEVICE,           /* no device, or the index is past the end */
    KILN_ERR_CONTEXT_MISMATCH,    /* objects from two different contexts    */
    KILN_ERR_BUILD,               /* the compiler rejected the source; the
                                     log is in kiln_last_error()            */
    KILN_ERR_TRANSLATION,         /* OpenCL C the CUDA backend cannot
                                     translate; the construct and line are
                                     named in kiln_last_error()             */
    KILN_ERR_KERNEL_NOT_FOUND,
    KILN_ERR_ARGUMENT_COUNT,      /* launch with the wrong number of args   */
    KILN_ERR_ARGUMENT_KIND,       /* e.g. a value where a buffer is needed  */
    KILN_ERR_ARGUMENT_SIZE,       /* a value of the wrong size              */
    KILN_ERR_INVALID_LAUNCH,      /* grid/block zero or over the device's
                                     limits, too much local memory          */
    KILN_ERR_KERNEL_FAULT,        /* a kernel faulted (illegal address…);
                                     reported by the next synchronizing call */
    KILN_ERR_NOT_READY,           /* kiln_event_query: not complete yet     */
    KILN_ERR_UNSUPPORTED,         /* valid, but not on this backend         */
    KILN_ERR_IO,                  /* a file could not be read               */
    KILN_ERR_BACKEND,             /* any other vendor error: its name and
                                     text are in kiln_last_error()          */
    KILN_ERR_SHAPE,               /* array shapes that do not match or
                                     broadcast (kiln_array.h)               */
    KILN_ERR_DTYPE                /* an element type the operation does not
                                     take (kiln_array.h)                    */
} kiln_status;

/* The enumerator's name as text ("KILN_ERR_BUILD"); never NULL. */
const char *kiln_status_name(kiln_status status);

/* The detail of the last failed call made on this thread, "" when the last
 * call succeeded.  The text stays valid until this thread's next Kiln call.
 * (Not a status-returning function: it cannot fail.) */
const char *kiln_last_error(void);

/* Sets this thread's last error to the formatted message and returns
 * `status`, for layers and bindings built on Kiln (kiln_array.h is one)
 * that report their errors the way Kiln does:
 * `return kiln_error_set(KILN_ERR_SHAPE, "shapes %s and %s", a, b);`.
 * KILN_OK clears the message.  (It cannot fail: a message too large for
 * the host's memory is replaced by a note saying so.) */
kiln_status kiln_error_set(kiln_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The library's version: "0.1.0".  Never NULL. */
const char *kiln_version(void);

/* ------------------------------------------------------------------------ */
/* Backends and devices                                                     */
/* ------------------------------------------------------------------------ */

/* What Kiln knows of one backend.  Strings stay valid for the life of the
 * process. */
typedef struct kiln_backend_info {
    const char *name;      /* "cuda", "opencl"                              */
    kiln_status status;    /* KILN_OK when loaded and usable                 */
    const char *reason;    /* why not usable (the file tried, dlerror(), no
                              driver, no device); "" when usable             */
    const char *path;      /* the plugin file loaded or last tried; "" if none */
    const char *version;   /* backend and vendor versions, "" if not loaded  */
    int device_count;      /* 0 unless usable                                */
} kiln_backend_info;

/* The number of backends Kiln knows (loaded or not). */
kiln_status kiln_backend_count(size_t *count);

/* Loads (once) and describes backend `index` < kiln_backend_count().  A
 * backend that fails to load is still described, with status and reason:
 * only bad arguments make this call fail. */
kiln_status kiln_backend_get_info(size_t index, kiln_backend_info *info);

/* The same, by name.  An unknown name is KILN_ERR_BACKEND_UNKNOWN. */
kiln_status kiln_backend_find(const char *name, kiln_backend_info *info);

/* The backend Kiln chooses when none is named: KILN_BACKEND if set, else
 * the first usable of cuda (with a device), opencl.  Writes its name (a
 * static string).  Fails with the reason when nothing is usable. */
kiln_status kiln_backend_default(const char **name);

typedef enum kiln_device_type {
    KILN_DEVICE_GPU = 1,
    KILN_DEVICE_CPU,
    KILN_DEVICE_ACCELERATOR,
    KILN_DEVICE_OTHER
} kiln_device_type;

/* Device properties.  Sizes in bytes. */
typedef struct kiln_device_info {
    char backend[16];
    int index;                        /* within its backend                  */
    kiln_device_type type;
    char name[256];
    char vendor[128];
    char driver_version[128];         /* CUDA: "13.0"; OpenCL: driver string */
    char platform[128];               /* OpenCL platform name; CUDA: "CUDA"  */
    char language_version[64];        /* "OpenCL C 1.2", "sm_90"             */
    int compute_capability_major;     /* CUDA; 0 on OpenCL                   */
    int compute_capability_minor;
    uint64_t global_memory;
    uint64_t local_memory;            /* per block / work-group              */
    uint64_t constant_memory;
    uint64_t max_allocation;          /* largest single buffer               */
    int compute_units;                /* SMs / OpenCL compute units          */
    int clock_mhz;
    size_t max_threads_per_block;
    size_t max_block[3];
    size_t max_grid[3];               /* in blocks                           */
    int warp_size;                    /* warp / preferred sub-group width    */
    int supports_double;
    int unified_memory;               /* host and device share memory        */
} kiln_device_info;

/* Devices of the named backend (NULL: the default backend). */
kiln_status kiln_device_count(const char *backend, int *count);
kiln_status kiln_device_get_info(const char *backend, int index,
                                 kiln_device_info *info);

/* Every device of every usable backend in one list, for programs that use
 * several devices at once: backends in kiln_backend_get_info's order,
 * each one's devices by index.  Writes at most `capacity` entries to
 * `devices` (NULL allowed when capacity is 0) and the number that exist to
 * *count, so a first call with capacity 0 sizes the array.  Each entry's
 * `backend` and `index` open it: kiln_context_create(d.backend, d.index,
 * &context).  One GPU may be listed twice, under CUDA and under its
 * vendor's OpenCL.  Backends that cannot be used are left out
 * (kiln_backend_get_info says why): none usable is a count of 0, not an
 * error.  KILN_BACKEND does not narrow the list. */
kiln_status kiln_device_list(kiln_device_info *devices, size_t capacity,
                             size_t *count);

/* The device one process of a multi-process job (MPI: one rank per GPU)
 * should open: `local_rank` modulo the backend's device count, so ranks
 * spread over their node's devices, and share them when there are more
 * ranks than devices.  `local_rank` is the process's rank among those on
 * its node, which MPI gives as the rank in
 *     MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
 *                         MPI_INFO_NULL, &node_comm);
 * (Open MPI also sets OMPI_COMM_WORLD_LOCAL_RANK, Slurm SLURM_LOCALID).
 * Pass the result to kiln_context_create(backend, device, ...).  Where the
 * launcher already gives each rank one GPU (srun --gpus-per-task=1 sets
 * CUDA_VISIBLE_DEVICES per rank), the backend sees one device and every
 * rank gets 0.  `backend` NULL: the default backend.  Errors: a negative
 * `local_rank` is KILN_ERR_INVALID_ARGUMENT; a backend without devices
 * KILN_ERR_NO_DEVICE; KILN_ERR_BACKEND_* as kiln_device_count. */
kiln_status kiln_device_for_rank(const char *backend, int local_rank,
                                 int *device);

/* ------------------------------------------------------------------------ */
/* Contexts                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct kiln_context kiln_context;

/* Creates a context on one device.  `backend` NULL chooses as
 * kiln_backend_default() does; a named backend that cannot be used is an
 * error with the reason, never a fallback to another.  `device` < 0 takes
 * KILN_DEVICE (default 0).  Several contexts may be open at once, on one
 * device or many (kiln_device_list); with MPI, one rank per device, take
 * `device` from kiln_device_for_rank.  Errors: KILN_ERR_BACKEND_* (with the
 * plugin path and the reason), KILN_ERR_NO_DEVICE, KILN_ERR_BACKEND. */
kiln_status kiln_context_create(const char *backend, int device,
                                kiln_context **context);
kiln_status kiln_context_retain(kiln_context *context);
kiln_status kiln_context_release(kiln_context *context);

/* The backend's name ("cuda", "opencl"); static storage. */
kiln_status kiln_context_backend(const kiln_context *context,
                                 const char **name);
kiln_status kiln_context_device_info(const kiln_context *context,
                                     kiln_device_info *info);

/* Waits for all work on all of the context's streams.  Reports a kernel
 * fault raised since the last synchronizing call (KILN_ERR_KERNEL_FAULT). */
kiln_status kiln_context_synchronize(kiln_context *context);

/* The checked mode, for finding kernels that write out of bounds (off by
 * default; KILN_CHECK=bounds turns it on for every context created after).
 * With KILN_CHECK_BOUNDS, buffers created from then on (and host In/Out
 * arrays) get guard zones: 4 KiB of a pattern before and after them.  Each
 * launch then waits for its kernel and checks the zones of its buffer
 * arguments: a write past either end is KILN_ERR_KERNEL_FAULT naming the
 * kernel, the argument, the buffer and the bytes overwritten, and the
 * zones are restored.  Launches become synchronous (see
 * docs/PERFORMANCE.md for the cost); writes more than 4 KiB away, reads,
 * and buffers created before the switch are not checked.  `checks` is 0 or
 * KILN_CHECK_BOUNDS; other bits are KILN_ERR_INVALID_ARGUMENT, and a
 * plugin without guard support KILN_ERR_UNSUPPORTED. */
typedef enum kiln_check {
    KILN_CHECK_BOUNDS = 1
} kiln_check;
kiln_status kiln_context_set_checks(kiln_context *context, unsigned checks);
kiln_status kiln_context_get_checks(const kiln_context *context,
                                    unsigned *checks);

/* ------------------------------------------------------------------------ */
/* Streams and events                                                       */
/* ------------------------------------------------------------------------ */

typedef struct kiln_stream kiln_stream;
typedef struct kiln_event kiln_event;

/* An in-order queue of work (CUDA stream, OpenCL command queue).  Wherever
 * a function takes a stream, NULL means the context's default stream. */
kiln_status kiln_stream_create(kiln_context *context, kiln_stream **stream);
kiln_status kiln_stream_retain(kiln_stream *stream);
kiln_status kiln_stream_release(kiln_stream *stream);
/* Waits for everything queued on `stream` (NULL: the default stream of
 * `context`; exactly one of the two is used: pass the stream, or NULL and
 * the context). */
kiln_status kiln_stream_synchronize(kiln_context *context, kiln_stream *stream);
/* Work queued on `stream` after this waits for `event`.  The event may
 * belong to another context: two CUDA contexts wait on the device (the
 * host goes on); any other pair (OpenCL contexts, two backends) waits on
 * the host: the call returns once the event has completed, so what is
 * queued next is ordered after it.  An event never recorded is
 * KILN_ERR_INVALID_ARGUMENT. */
kiln_status kiln_stream_wait_event(kiln_stream *stream, kiln_event *event);

/* Events mark a point in a stream; two recorded events give the device time
 * between them. */
kiln_status kiln_event_create(kiln_context *context, kiln_event **event);
kiln_status kiln_event_retain(kiln_event *event);
kiln_status kiln_event_release(kiln_event *event);
/* Records the event at the current end of `stream` (NULL: default). */
kiln_status kiln_event_record(kiln_event *event, kiln_stream *stream);
kiln_status kiln_event_synchronize(kiln_event *event);
/* KILN_OK when the work before the event is done, KILN_ERR_NOT_READY if not
 * (kiln_last_error() is left empty for that). */
kiln_status kiln_event_query(kiln_event *event);
/* Milliseconds of device time from `start` to `end`, both recorded and
 * complete (this waits for `end`). */
kiln_status kiln_event_elapsed(kiln_event *start, kiln_event *end,
                               float *milliseconds);

/* ------------------------------------------------------------------------ */
/* Buffers (device memory) and page-locked host memory                      */
/* ------------------------------------------------------------------------ */

typedef struct kiln_buffer kiln_buffer;

/* Allocates `size` bytes of device memory, contents undefined.  Zero is
 * KILN_ERR_INVALID_SIZE; more than the device can give is
 * KILN_ERR_OUT_OF_DEVICE_MEMORY (or KILN_ERR_INVALID_SIZE past the device's
 * largest allocation).  Freed blocks may be kept in the context's pool and
 * reused (see kiln_pool_*). */
kiln_status kiln_buffer_create(kiln_context *context, size_t size,
                               kiln_buffer **buffer);
/* Allocates and fills from `host` (`size` bytes): PyCUDA's to_device. */
kiln_status kiln_buffer_create_from(kiln_context *context, const void *host,
                                    size_t size, kiln_buffer **buffer);
kiln_status kiln_buffer_retain(kiln_buffer *buffer);
kiln_status kiln_buffer_release(kiln_buffer *buffer);
kiln_status kiln_buffer_size(const kiln_buffer *buffer, size_t *size);
/* The buffer's context, lent without a reference: it stays valid while the
 * buffer lives.  To keep it longer, kiln_context_retain it (and release
 * that reference later); releasing it without such a retain, once the
 * caller's own references are gone, is KILN_ERR_INVALID_HANDLE. */
kiln_status kiln_buffer_context(const kiln_buffer *buffer,
                                kiln_context **context);

/* Synchronous copies: they run after all work already queued on the default
 * stream and return when the data has arrived.  Every range is checked:
 * offset + size past the end is KILN_ERR_OUT_OF_BOUNDS; size 0 is
 * KILN_ERR_INVALID_SIZE. */
kiln_status kiln_buffer_write(kiln_buffer *buffer, size_t offset,
                              const void *host, size_t size);
kiln_status kiln_buffer_read(kiln_buffer *buffer, size_t offset, void *host,
                             size_t size);
/* Device to device; the ranges may be in the same buffer but must not
 * overlap (KILN_ERR_INVALID_ARGUMENT).
 *
 * The two buffers may belong to different contexts: two devices, two
 * contexts on one device, or two backends.  Between two contexts of the
 * CUDA backend the copy is direct (cuMemcpyPeer: GPU to GPU over NVLink or
 * PCIe where the GPUs allow peer access, else staged by the driver); any
 * other pair (two OpenCL contexts, CUDA <-> OpenCL) is staged by the host
 * through page-locked memory in chunks, reading the next chunks while the
 * earlier ones are written.  The synchronous copy runs after the work
 * already queued on the default streams of both contexts.  The async form
 * takes a stream of either buffer's context (NULL: the destination's
 * default stream; a stream of a third context is
 * KILN_ERR_CONTEXT_MISMATCH) and is ordered after that stream's earlier
 * work only: order it after the other context's work with
 * kiln_stream_wait_event.  A direct async copy also makes the other
 * context's default stream wait for it; a staged one is done by the host
 * and has arrived when the call returns.  See docs/MULTI-DEVICE.md. */
kiln_status kiln_buffer_copy(kiln_buffer *destination,
                             size_t destination_offset, kiln_buffer *source,
                             size_t source_offset, size_t size);
/* Repeats a pattern of 1, 2, 4, 8 or 16 bytes over [offset, offset+size);
 * offset and size must be multiples of the pattern size. */
kiln_status kiln_buffer_fill(kiln_buffer *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size);

/* Asynchronous versions, queued on `stream` (NULL: default).  The host
 * memory must stay valid and unchanged until the stream has passed the
 * copy; it needs to be page-locked (kiln_host_alloc) for the copy to
 * overlap with other work. */
kiln_status kiln_buffer_write_async(kiln_buffer *buffer, size_t offset,
                                    const void *host, size_t size,
                                    kiln_stream *stream);
kiln_status kiln_buffer_read_async(kiln_buffer *buffer, size_t offset,
                                   void *host, size_t size,
                                   kiln_stream *stream);
kiln_status kiln_buffer_copy_async(kiln_buffer *destination,
                                   size_t destination_offset,
                                   kiln_buffer *source, size_t source_offset,
                                   size_t size, kiln_stream *stream);
kiln_status kiln_buffer_fill_async(kiln_buffer *buffer, size_t offset,
                                   size_t size, const void *pattern,
                                   size_t pattern_size, kiln_stream *stream);

/* Page-locked host memory of `size` bytes for fast and asynchronous
 * transfers.  Free it with kiln_host_free on the same context before the
 * context's last release (the context frees what is left then). */
kiln_status kiln_host_alloc(kiln_context *context, size_t size, void **host);
kiln_status kiln_host_free(kiln_context *context, void *host);

/* The device memory pool.  Released buffers go back to the context's pool
 * and are reused by later allocations of the same size class instead of
 * returning to the driver (as in CuPy).  On by default; KILN_POOL=0
 * disables it.  When the device is full the pool is emptied and the
 * allocation tried again. */
typedef struct kiln_pool_stats {
    uint64_t bytes_in_use;   /* held by live buffers                        */
    uint64_t bytes_cached;   /* freed and kept for reuse                    */
    uint64_t allocations;    /* requests served                             */
    uint64_t reuses;         /* of which served from the pool               */
} kiln_pool_stats;
kiln_status kiln_pool_set_enabled(kiln_context *context, int enabled);
kiln_status kiln_pool_get_stats(kiln_context *context, kiln_pool_stats *stats);
/* Returns every cached block to the driver. */
kiln_status kiln_pool_trim(kiln_context *context);

/* ------------------------------------------------------------------------ */
/* Programs and kernels                                                     */
/* ------------------------------------------------------------------------ */

typedef struct kiln_program kiln_program;
typedef struct kiln_kernel kiln_kernel;

typedef enum kiln_language {
    KILN_LANGUAGE_OPENCL_C = 0, /* portable: every backend                  */
    KILN_LANGUAGE_CUDA_C        /* native CUDA C: CUDA backend only         */
} kiln_language;

/* Options for kiln_program_build_with().  Zero-initialise and set what you
 * need: {0} is OpenCL C with no options. */
typedef struct kiln_build_options {
    kiln_language language;
    const char *options;               /* "-DN=4 -O3 -cl-fast-relaxed-math";
                                          -cl-* options are mapped or
                                          dropped on the CUDA backend      */
    const char *const *defines;        /* "NAME" or "NAME=VALUE" each      */
    size_t define_count;
    const char *const *include_dirs;   /* searched for #include "..."      */
    size_t include_dir_count;
    const char *source_name;           /* for messages; the file name when
                                          built from a file                */
} kiln_build_options;

/* Compiles OpenCL C `source` (NUL-terminated) with `options` (may be NULL).
 * Compiled binaries are cached in memory and on disk (see README: the
 * kernel cache).  A compile error is KILN_ERR_BUILD with the compiler's log
 * in kiln_last_error(). */
kiln_status kiln_program_build(kiln_context *context, const char *source,
                               const char *options, kiln_program **program);
/* The same with every option; `length` 0 means NUL-terminated. */
kiln_status kiln_program_build_with(kiln_context *context, const char *source,
                                    size_t length,
                                    const kiln_build_options *options,
                                    kiln_program **program);
/* Reads the source from `path`; its directory is searched first for
 * #include "..." (then options->include_dirs).  KILN_ERR_IO if unreadable. */
kiln_status kiln_program_build_file(kiln_context *context, const char *path,
                                    const kiln_build_options *options,
                                    kiln_program **program);
kiln_status kiln_program_retain(kiln_program *program);
kiln_status kiln_program_release(kiln_program *program);
/* The compiler's log of a successful build (warnings), "" if none.  Valid
 * while the program lives. */
kiln_status kiln_program_build_log(const kiln_program *program,
                                   const char **log);
/* Where the binary came from: 0 compiled now, 1 memory cache, 2 disk cache. */
typedef enum kiln_program_origin {
    KILN_PROGRAM_COMPILED = 0,
    KILN_PROGRAM_FROM_MEMORY_CACHE,
    KILN_PROGRAM_FROM_DISK_CACHE
} kiln_program_origin;
kiln_status kiln_program_origin_get(const kiln_program *program,
                                    kiln_program_origin *origin);

/* The program's kernels, as PyOpenCL's program.all_kernels() and OpenCL's
 * CL_PROGRAM_KERNEL_NAMES list them: `count` kernels, each name one that
 * kiln_kernel_create accepts.  The order is the backend's (OpenCL: the
 * driver's; CUDA, OpenCL C: the source's; CUDA, native CUDA C: the
 * module's) and stays the same for the life of the program.  Native CUDA
 * C kernels are listed by their C name when that names exactly one kernel
 * of the module, else by their mangled name (overloads, templates,
 * namespaces).  Names stay valid while the program lives.  Errors: an
 * `index` >= count is KILN_ERR_INVALID_ARGUMENT; KILN_ERR_UNSUPPORTED when
 * the backend cannot list kernels (a plugin built for an older plugin ABI;
 * for native CUDA C, a CUDA driver without cuModuleEnumerateFunctions). */
kiln_status kiln_program_kernel_count(const kiln_program *program,
                                      size_t *count);
kiln_status kiln_program_kernel_name(const kiln_program *program,
                                     size_t index, const char **name);

/* A kernel of `program` by its name (the C name; CUDA C kernels are found
 * with or without extern "C").  KILN_ERR_KERNEL_NOT_FOUND otherwise. */
kiln_status kiln_kernel_create(kiln_program *program, const char *name,
                               kiln_kernel **kernel);
kiln_status kiln_kernel_retain(kiln_kernel *kernel);
kiln_status kiln_kernel_release(kiln_kernel *kernel);
kiln_status kiln_kernel_name(const kiln_kernel *kernel, const char **name);

typedef enum kiln_param_kind {
    KILN_PARAM_BUFFER = 1, /* __global / __constant pointer: pass a buffer   */
    KILN_PARAM_LOCAL,      /* __local pointer: pass a local-memory size      */
    KILN_PARAM_VALUE,      /* by value: pass bytes of the parameter's size   */
    KILN_PARAM_POINTER_OR_VALUE /* native CUDA C: the driver tells only the
                              size; a buffer is accepted for 8-byte ones    */
} kiln_param_kind;

typedef struct kiln_param_info {
    kiln_param_kind kind;
    size_t size;           /* bytes passed by value; 0 when unknown        */
    const char *name;      /* "" when unknown                              */
    const char *type_name; /* "float*", "uint4"; "" when unknown           */
} kiln_param_info;

kiln_status kiln_kernel_param_count(const kiln_kernel *kernel, size_t *count);
/* Strings stay valid while the kernel lives. */
kiln_status kiln_kernel_param_info(const kiln_kernel *kernel, size_t index,
                                   kiln_param_info *info);
/* The most threads per block this kernel can be launched with on its
 * device (registers and reqd_work_group_size considered). */
kiln_status kiln_kernel_max_block_size(const kiln_kernel *kernel,
                                       size_t *threads);

/* ------------------------------------------------------------------------ */
/* Launching                                                                */
/* ------------------------------------------------------------------------ */

/* Kernel arguments, checked against the kernel's parameters. */
typedef enum kiln_arg_kind {
    KILN_ARG_KIND_BUFFER = 1, /* .buffer                                    */
    KILN_ARG_KIND_VALUE,      /* .value points at .size bytes               */
    KILN_ARG_KIND_LOCAL,      /* .size bytes of local (shared) memory       */
    KILN_ARG_KIND_IN,         /* host .host of .size bytes copied in before */
    KILN_ARG_KIND_OUT,        /* ... copied out after the launch            */
    KILN_ARG_KIND_INOUT       /* ... both                                   */
} kiln_arg_kind;

typedef struct kiln_arg {
    kiln_arg_kind kind;
    size_t size;
    const void *value;
    kiln_buffer *buffer;
    void *host;
} kiln_arg;

/* Argument constructors (compound literals: the value's storage lives to
 * the end of the enclosing block). */
#define KILN_ARG_BUFFER(b) \
    ((kiln_arg){.kind = KILN_ARG_KIND_BUFFER, .buffer = (b)})
#define KILN_ARG_VALUE(pointer, bytes) \
    ((kiln_arg){.kind = KILN_ARG_KIND_VALUE, .size = (bytes), .value = (pointer)})
#define KILN_ARG_LOCAL(bytes) \
    ((kiln_arg){.kind = KILN_ARG_KIND_LOCAL, .size = (bytes)})
#define KILN_ARG_INT(x) KILN_ARG_VALUE(&(int32_t){(x)}, sizeof(int32_t))
#define KILN_ARG_UINT(x) KILN_ARG_VALUE(&(uint32_t){(x)}, sizeof(uint32_t))
#define KILN_ARG_LONG(x) KILN_ARG_VALUE(&(int64_t){(x)}, sizeof(int64_t))
#define KILN_ARG_ULONG(x) KILN_ARG_VALUE(&(uint64_t){(x)}, sizeof(uint64_t))
#define KILN_ARG_FLOAT(x) KILN_ARG_VALUE(&(float){(x)}, sizeof(float))
#define KILN_ARG_DOUBLE(x) KILN_ARG_VALUE(&(double){(x)}, sizeof(double))
#define KILN_ARG_IN(pointer, bytes) \
    ((kiln_arg){.kind = KILN_ARG_KIND_IN, .size = (bytes), .host = (void *)(pointer)})
#define KILN_ARG_OUT(pointer, bytes) \
    ((kiln_arg){.kind = KILN_ARG_KIND_OUT, .size = (bytes), .host = (pointer)})
#define KILN_ARG_INOUT(pointer, bytes) \
    ((kiln_arg){.kind = KILN_ARG_KIND_INOUT, .size = (bytes), .host = (pointer)})

/* Grid (blocks) and block (threads per block) sizes.  Every component must
 * be at least 1: use 1 for unused dimensions. */
typedef struct kiln_dim3 {
    size_t x, y, z;
} kiln_dim3;
#define KILN_DIM1(x) ((kiln_dim3){(x), 1, 1})
#define KILN_DIM2(x, y) ((kiln_dim3){(x), (y), 1})
#define KILN_DIM3(x, y, z) ((kiln_dim3){(x), (y), (z)})

typedef struct kiln_launch_config {
    kiln_dim3 grid;          /* blocks; OpenCL global size = grid * block  */
    kiln_dim3 block;         /* threads per block (work-group size)       */
    size_t local_memory;     /* dynamic shared memory for native CUDA C
                                kernels (extern __shared__); OpenCL C
                                kernels take KILN_ARG_LOCAL arguments     */
    kiln_stream *stream;     /* NULL: the context's default stream        */
    float *time_ms;          /* non-NULL: time the kernel with events,
                                wait for it, and store its device time    */
} kiln_launch_config;

/* Launches `kernel` with `arg_count` arguments.  Asynchronous unless the
 * config asks for timing or an argument is KILN_ARG_OUT/INOUT (the copy
 * back waits).  The argument list is checked against the kernel's
 * parameters before anything is queued: KILN_ERR_ARGUMENT_COUNT/KIND/SIZE;
 * grid and block against the device and kernel limits:
 * KILN_ERR_INVALID_LAUNCH.  Faults inside the kernel surface at the next
 * synchronizing call as KILN_ERR_KERNEL_FAULT. */
kiln_status kiln_launch(kiln_kernel *kernel, const kiln_launch_config *config,
                        size_t arg_count, const kiln_arg *args);

/* Launch with a type string and C varargs, in the spirit of PyCUDA's
 * prepared_call.  One character per argument:
 *   P  kiln_buffer *
 *   c C  int8_t / uint8_t     (passed as int)
 *   h H  int16_t / uint16_t   (passed as int)
 *   i I  int32_t / uint32_t
 *   l L  int64_t / uint64_t   (OpenCL long / ulong)
 *   z    size_t
 *   f    float (passed as double by C's varargs rules)
 *   d    double
 *   S    size_t: bytes of local memory for a __local parameter
 *   <    In:    const void *host, size_t bytes
 *   >    Out:   void *host, size_t bytes
 *   =    InOut: void *host, size_t bytes
 * Spaces are ignored.  An unknown character is KILN_ERR_INVALID_ARGUMENT
 * naming its position; then as kiln_launch. */
kiln_status kiln_launch_prepared(kiln_kernel *kernel,
                                 const kiln_launch_config *config,
                                 const char *types, ...);

/* An argument list built up step by step, for programs that assemble
 * arguments in loops.  Values are copied into the list. */
typedef struct kiln_args kiln_args;
kiln_status kiln_args_create(kiln_args **args);
kiln_status kiln_args_release(kiln_args *args);
kiln_status kiln_args_clear(kiln_args *args);
kiln_status kiln_args_add_buffer(kiln_args *args, kiln_buffer *buffer);
kiln_status kiln_args_add_value(kiln_args *args, const void *value,
                                size_t size);
kiln_status kiln_args_add_local(kiln_args *args, size_t size);
kiln_status kiln_args_add_host(kiln_args *args, kiln_arg_kind kind,
                               void *host, size_t size);
kiln_status kiln_args_add_int(kiln_args *args, int32_t value);
kiln_status kiln_args_add_uint(kiln_args *args, uint32_t value);
kiln_status kiln_args_add_long(kiln_args *args, int64_t value);
kiln_status kiln_args_add_ulong(kiln_args *args, uint64_t value);
kiln_status kiln_args_add_float(kiln_args *args, float value);
kiln_status kiln_args_add_double(kiln_args *args, double value);
kiln_status kiln_args_count(const kiln_args *args, size_t *count);
kiln_status kiln_launch_args(kiln_kernel *kernel,
                             const kiln_launch_config *config,
                             const kiln_args *args);

/* ------------------------------------------------------------------------ */
/* The kernel cache                                                         */
/* ------------------------------------------------------------------------ */

typedef struct kiln_cache_info {
    int enabled;              /* KILN_CACHE != 0 and a usable directory    */
    char directory[4096];     /* "" when none could be chosen               */
    uint64_t entries;
    uint64_t bytes;
    uint64_t limit_bytes;     /* KILN_CACHE_MAX_MB                          */
} kiln_cache_info;

/* Where the on-disk kernel cache is and what it holds. */
kiln_status kiln_cache_get_info(kiln_cache_info *info);
/* Deletes every entry of the on-disk cache. */
kiln_status kiln_cache_clear(void);

/* ------------------------------------------------------------------------ */
/* Native handles, for interoperation with code that uses the vendor API    */
/* ------------------------------------------------------------------------ */

/* Each writes the native handle into `out`, which must be `size` bytes
 * (the handle's own size, else KILN_ERR_INVALID_ARGUMENT):
 *   context: CUcontext (the device's primary context) / cl_context
 *   device:  CUdevice / cl_device_id
 *   stream:  CUstream / cl_command_queue (NULL stream: the default one)
 *   buffer:  CUdeviceptr / cl_mem
 *   event:   CUevent / cl_event (NULL until recorded on OpenCL)
 *   kernel:  CUfunction / cl_kernel
 * The handles stay owned by Kiln. */
kiln_status kiln_context_native(const kiln_context *context, void *out,
                                size_t size);
kiln_status kiln_device_native(const kiln_context *context, void *out,
                               size_t size);
kiln_status kiln_stream_native(kiln_context *context, kiln_stream *stream,
                               void *out, size_t size);
kiln_status kiln_buffer_native(const kiln_buffer *buffer, void *out,
                               size_t size);
kiln_status kiln_event_native(const kiln_event *event, void *out, size_t size);
kiln_status kiln_kernel_native(const kiln_kernel *kernel, void *out,
                               size_t size);

#ifdef __cplusplus
}
#endif

#endif /* KILN_H */
