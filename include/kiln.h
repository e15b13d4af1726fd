/**
 * @file kiln.h
 * @brief The Kiln user API: GPU kernels written once, run on CUDA, OpenCL
 * and PoCL.
 *
 * Kiln runs GPU kernels written once in OpenCL C on NVIDIA GPUs (CUDA
 * backend) and on any OpenCL device, PoCL on a plain CPU included; kernels
 * in CUDA C run natively on CUDA and translated to OpenCL C elsewhere.
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
 *  - Getters are spelled `kiln_<object>_get_<property>` and never add a
 *    reference: a handle they return (kiln_buffer_get_context,
 *    kiln_context_get_default_stream) stays valid while the object it was
 *    read from lives; retain it to keep it longer.
 *  - Strings: every const char * Kiln returns is owned by Kiln (never free
 *    it) and stays valid while the object it was read from lives (a
 *    kernel's names until the kernel's last release, a program's build log
 *    until the program's).  Strings not read from an object (status names,
 *    the version, backend descriptions, backend names) live as long as the
 *    process.  The one exception is kiln_last_error(), read from the calling
 *    thread's error state: valid until that thread's next Kiln call.
 *  - Structs that Kiln fills (kiln_device_info, kiln_param_info, ...) are
 *    filled through macros that pass the caller's sizeof, so a program
 *    compiled against this header keeps working with a later libkiln whose
 *    structs have grown (new members are only ever appended).  Structs the
 *    caller fills (kiln_launch_config, kiln_build_options) start with
 *    struct_size: 0 reads the 1.0 members only; set it to sizeof the struct
 *    to use members a later version appends.
 *
 * Thread safety: every function may be called from any thread.  Objects may
 * be shared between threads; calls on one object are serialised where the
 * vendor API needs it (an OpenCL kernel's arguments are set and enqueued
 * under one lock).  The last error is per thread.  What is not safe: using an
 * object in one thread while another thread drops its last reference.
 *
 * Environment (read with secure_getenv: a setuid program ignores it):
 *  - KILN_BACKEND: `cuda` or `opencl`, the backend used when a program
 *    names none; KILN_DEVICE: the device index within it;
 *    KILN_OPENCL_PLATFORM: only OpenCL platforms whose name contains it.
 *  - KILN_PLUGIN_PATH: directories searched first for the backend plugins
 *    (kiln-NAME.so); KILN_PLUGIN_SYSTEM_PATH replaces the installed
 *    plugin directory in the search.
 *  - KILN_LOG: `error`, `warn`, `info` (each program build, named, with its
 *    time and origin) or `debug`, on stderr (kiln_log_set_level).
 *  - KILN_CACHE=0 turns the on-disk kernel cache off; KILN_CACHE_DIR is its
 *    directory (default $XDG_CACHE_HOME/kiln, else ~/.cache/kiln);
 *    KILN_CACHE_MAX_MB its size limit (1024).
 *  - KILN_POOL=0 turns the device memory pool off.
 *  - KILN_CHECK=bounds: the checked mode for every new context
 *    (kiln_context_set_checks).
 *  - KILN_ARRAY_BLAS: `generated` or `library`, the matrix product of
 *    kiln_array_matmul.
 *
 * The README and docs/ of the source distribution (ERRORS.md, API-1.0.md,
 * COMING-FROM-PYCUDA.md) say more; kiln-info(1) lists what the library
 * finds on a machine.
 */
#ifndef KILN_H
#define KILN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The major version of this header: 1 (kiln_version() is the library's). */
#define KILN_VERSION_MAJOR 1
/** The minor version of this header. */
#define KILN_VERSION_MINOR 0
/** The patch version of this header. */
#define KILN_VERSION_PATCH 0

/** @cond internal */
/* Marks the 0.1 names kept for one release (see docs/API-1.0.md). */
#if defined(__cplusplus) && __cplusplus >= 201402L
#define KILN_DEPRECATED(message) [[deprecated(message)]]
#elif defined(__GNUC__)
#define KILN_DEPRECATED(message) __attribute__((deprecated(message)))
#elif defined(_MSC_VER)
#define KILN_DEPRECATED(message) __declspec(deprecated(message))
#else
#define KILN_DEPRECATED(message)
#endif
/** @endcond */

/* ------------------------------------------------------------------------ */
/* Status and errors                                                        */
/* ------------------------------------------------------------------------ */
/** @defgroup errors Status and errors
 * Every function returns a kiln_status; the detail of a failure is in
 * kiln_last_error(), per thread.  docs/ERRORS.md lists every class of bad
 * input and the status it gets.
 * @{ */

/** The result of every Kiln call: KILN_OK (0), or what went wrong, with
 * the detail in kiln_last_error(). */
typedef enum kiln_status {
    KILN_OK = 0,                  /**< success                              */
    KILN_ERR_INVALID_ARGUMENT,    /**< a NULL out-pointer, bad flag or string */
    KILN_ERR_INVALID_HANDLE,      /**< NULL, released or foreign handle     */
    KILN_ERR_INVALID_SIZE,        /**< zero size, or a size that cannot exist */
    KILN_ERR_OUT_OF_BOUNDS,       /**< offset + size past the end of a buffer */
    KILN_ERR_OUT_OF_HOST_MEMORY,  /**< a host allocation failed             */
    KILN_ERR_OUT_OF_DEVICE_MEMORY, /**< the device has not enough memory left */
    KILN_ERR_BACKEND_UNKNOWN,     /**< a backend name Kiln does not know    */
    KILN_ERR_BACKEND_NOT_FOUND,   /**< its plugin file is not on the path   */
    KILN_ERR_BACKEND_LOAD,        /**< the plugin exists but will not load  */
    KILN_ERR_BACKEND_ABI,         /**< the plugin was built for another ABI */
    KILN_ERR_BACKEND_UNAVAILABLE, /**< loaded, but no driver or no platform */
    KILN_ERR_NO_DEVICE,           /**< no device, or the index is past the end */
    KILN_ERR_CONTEXT_MISMATCH,    /**< objects from two different contexts  */
    KILN_ERR_BUILD,               /**< the compiler rejected the source; the
                                       log is in kiln_last_error()          */
    KILN_ERR_TRANSLATION,         /**< OpenCL C the CUDA backend, or CUDA C
                                       the OpenCL backend, cannot translate;
                                       the construct and line are named in
                                       kiln_last_error()                    */
    KILN_ERR_KERNEL_NOT_FOUND,    /**< no kernel of that name in the program */
    KILN_ERR_ARGUMENT_COUNT,      /**< launch with the wrong number of args */
    KILN_ERR_ARGUMENT_KIND,       /**< e.g. a value where a buffer is needed  */
    KILN_ERR_ARGUMENT_SIZE,       /**< a value of the wrong size            */
    KILN_ERR_INVALID_LAUNCH,      /**< grid/block zero or over the device's
                                       limits, too much local memory        */
    KILN_ERR_KERNEL_FAULT,        /**< a kernel faulted (illegal address…);
                                       reported by the next synchronizing call */
    KILN_ERR_NOT_READY,           /**< kiln_event_query: not complete yet   */
    KILN_ERR_UNSUPPORTED,         /**< valid, but not on this backend       */
    KILN_ERR_IO,                  /**< a file could not be read             */
    KILN_ERR_BACKEND,             /**< any other vendor error: its name and
                                       text are in kiln_last_error()        */
    KILN_ERR_SHAPE,               /**< array shapes that do not match or
                                       broadcast (kiln_array.h)             */
    KILN_ERR_DTYPE,               /**< an element type the operation does not
                                       take (kiln_array.h)                  */
    KILN_ERR_ARGUMENT_TYPE        /**< a typed scalar (KILN_ARG_INT, 'i') for
                                       a parameter of another type (float) */
} kiln_status;

/** The enumerator's name as text ("KILN_ERR_BUILD").
 * @return the name, a static string; "KILN_ERR_UNKNOWN_STATUS" for a value
 * outside the enumeration, never NULL. */
const char *kiln_status_name(kiln_status status);

/** The detail of the last failed call made on this thread.
 * It names what was wrong: the vendor's error name, the build log, the
 * limit that was exceeded, the plugin file and dlerror()'s reason.  Not a
 * status-returning function: it cannot fail.
 * @return the message, "" when the last call succeeded; valid until this
 * thread's next Kiln call. */
const char *kiln_last_error(void);

/** Sets this thread's last error to a formatted message.
 * For layers and bindings built on Kiln (kiln_array.h is one) that report
 * their errors the way Kiln does:
 * `return kiln_error_set(KILN_ERR_SHAPE, "shapes %s and %s", a, b);`.
 * KILN_OK clears the message.  It cannot fail: a message too large for
 * the host's memory is replaced by a note saying so.
 * @return `status`, unchanged. */
kiln_status kiln_error_set(kiln_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** The library's version: "1.0.0".
 * @return a static string, never NULL; KILN_VERSION_MAJOR, _MINOR and
 * _PATCH are the header's. */
const char *kiln_version(void);

/** @} */

/* ------------------------------------------------------------------------ */
/* Logging                                                                  */
/* ------------------------------------------------------------------------ */
/** @defgroup logging Logging
 * Kiln is silent unless asked: KILN_LOG or kiln_log_set_level picks what it
 * writes, to stderr or to a callback.
 * @{ */

/** The most detailed kind of line Kiln writes.
 * KILN_LOG=error|warn|info|debug sets it (read once, at the first line
 * Kiln could log; an unknown value is reported once, as a warning), or
 * kiln_log_set_level does. */
typedef enum kiln_log_level {
    KILN_LOG_OFF = 0, /**< nothing (the default)                          */
    KILN_LOG_ERROR,   /**< errors Kiln cannot return to a caller            */
    KILN_LOG_WARN,    /**< what Kiln worked around (a kernel cache that
                           cannot be written)                             */
    KILN_LOG_INFO,    /**< each program build: its name (the build
                           options' name, else the source file, else the
                           first kernel's), backend, time and origin
                           (compiled, memory cache, disk cache); a compile
                           also when it starts                            */
    KILN_LOG_DEBUG    /**< also the plugin search, backend choice, compiles
                           and cache entries                              */
} kiln_log_level;

/** A function that receives each log line instead of stderr.
 * The line has no newline and is valid during the call.  It may be called
 * from any thread, also at once from several, and must not call Kiln. */
typedef void (*kiln_log_callback)(kiln_log_level level, const char *message,
                                  void *user_data);

/** Replaces KILN_LOG's level for the rest of the process.
 * @retval KILN_ERR_INVALID_ARGUMENT `level` is not a kiln_log_level. */
kiln_status kiln_log_set_level(kiln_log_level level);
/** The level in force: KILN_LOG's, or the last kiln_log_set_level's. */
kiln_status kiln_log_get_level(kiln_log_level *level);
/** Installs `callback` to receive the log lines, with `user_data`.
 * NULL goes back to stderr, with "kiln: " before each line. */
kiln_status kiln_log_set_callback(kiln_log_callback callback,
                                  void *user_data);

/** @} */

/* ------------------------------------------------------------------------ */
/* Backends and devices                                                     */
/* ------------------------------------------------------------------------ */
/** @defgroup devices Backends and devices
 * The backends Kiln knows (loaded or not, and why not), their devices and
 * the devices' properties.
 * @{ */

/** What Kiln knows of one backend.
 * Filled by kiln_backend_get_info and kiln_backend_find.  Strings stay
 * valid for the life of the process. */
typedef struct kiln_backend_info {
    const char *name;      /**< "cuda", "opencl"                            */
    kiln_status status;    /**< KILN_OK when loaded and usable               */
    const char *reason;    /**< why not usable (the file tried, dlerror(), no
                                driver, no device); "" when usable           */
    const char *path;      /**< the plugin file loaded or last tried; "" if none */
    const char *version;   /**< backend and vendor versions, "" if not loaded  */
    int device_count;      /**< 0 unless usable                              */
} kiln_backend_info;

/** The number of backends Kiln knows, loaded or not (`cuda`, `opencl`). */
kiln_status kiln_backend_get_count(size_t *count);

/** The function behind kiln_backend_get_info: `info_size` is sizeof the
 * caller's struct, which the macro passes.
 * @retval KILN_ERR_INVALID_ARGUMENT `info_size` is smaller than the 1.0
 * struct. */
kiln_status kiln_backend_get_info_sized(size_t index, kiln_backend_info *info,
                                        size_t info_size);
/** Loads backend `index` (once) and describes it.
 * @code
 * kiln_status kiln_backend_get_info(size_t index, kiln_backend_info *info);
 * @endcode
 * A backend that fails to load is still described, with its status and
 * reason: only bad arguments make this call fail.
 * @retval KILN_ERR_INVALID_ARGUMENT `index` is not below
 * kiln_backend_get_count(). */
#define kiln_backend_get_info(index, info) \
    kiln_backend_get_info_sized((index), (info), sizeof *(info))

/** The function behind kiln_backend_find: `info_size` is sizeof the
 * caller's struct, which the macro passes. */
kiln_status kiln_backend_find_sized(const char *name, kiln_backend_info *info,
                                    size_t info_size);
/** Loads the backend called `name` (once) and describes it.
 * @code
 * kiln_status kiln_backend_find(const char *name, kiln_backend_info *info);
 * @endcode
 * As kiln_backend_get_info, by name.
 * @retval KILN_ERR_BACKEND_UNKNOWN Kiln knows no backend of that name. */
#define kiln_backend_find(name, info) \
    kiln_backend_find_sized((name), (info), sizeof *(info))

/** The backend Kiln chooses when none is named.
 * KILN_BACKEND if set, else the first usable of cuda (with a device),
 * opencl.  Writes its name (a static string) to `*name`.
 * @retval KILN_ERR_BACKEND_NOT_FOUND, KILN_ERR_BACKEND_LOAD,
 * KILN_ERR_BACKEND_UNAVAILABLE the chosen backend cannot be used, or none
 * can: the message has each one's reason.
 * @retval KILN_ERR_BACKEND_UNKNOWN KILN_BACKEND names no backend Kiln
 * knows. */
kiln_status kiln_backend_get_default(const char **name);

/** What kind of device a kiln_device_info describes. */
typedef enum kiln_device_type {
    KILN_DEVICE_GPU = 1,     /**< a GPU                                     */
    KILN_DEVICE_CPU,         /**< a CPU (PoCL)                              */
    KILN_DEVICE_ACCELERATOR, /**< another accelerator                       */
    KILN_DEVICE_OTHER        /**< anything else                             */
} kiln_device_type;

/** A device's properties.
 * Filled by kiln_device_get_info, kiln_context_get_device_info and
 * kiln_device_list.  Sizes are in bytes. */
typedef struct kiln_device_info {
    char backend[16];                 /**< "cuda", "opencl"                  */
    int index;                        /**< within its backend                */
    kiln_device_type type;            /**< GPU, CPU...                       */
    char name[256];                   /**< the vendor's name for it          */
    char vendor[128];                 /**< its maker                         */
    char driver_version[128];         /**< CUDA: "13.0"; OpenCL: driver string */
    char platform[128];               /**< OpenCL platform name; CUDA: "CUDA"  */
    char language_version[64];        /**< "OpenCL C 1.2", "sm_90"           */
    int compute_capability_major;     /**< CUDA; 0 on OpenCL                 */
    int compute_capability_minor;     /**< CUDA; 0 on OpenCL                 */
    uint64_t global_memory;           /**< device memory                     */
    uint64_t local_memory;            /**< per block / work-group            */
    uint64_t constant_memory;         /**< for constant/__constant__ data    */
    uint64_t max_allocation;          /**< largest single buffer             */
    int compute_units;                /**< SMs / OpenCL compute units        */
    int clock_mhz;                    /**< the highest clock, in MHz         */
    size_t max_threads_per_block;     /**< work-items per work-group         */
    size_t max_block[3];              /**< per dimension, in threads         */
    size_t max_grid[3];               /**< in blocks                         */
    int warp_size;                    /**< warp / preferred sub-group width  */
    int supports_double;              /**< 1 when double precision works     */
    int unified_memory;               /**< host and device share memory      */
    /** Added after the 1.0 layout (read only by callers whose struct has
     * it: the _sized getters copy what the caller's size holds). */
    char extensions[4096];            /**< OpenCL: CL_DEVICE_EXTENSIONS, space
                                           separated (cut at a word if longer);
                                           CUDA: ""                        */
} kiln_device_info;

/** The size of kiln_device_info in Kiln 1.0, the least the getters take.
 * @hideinitializer */
#define KILN_DEVICE_INFO_SIZE_1_0 offsetof(kiln_device_info, extensions)

/** The number of devices of the named backend (NULL: the default one).
 * @retval KILN_ERR_BACKEND_UNKNOWN, KILN_ERR_BACKEND_NOT_FOUND,
 * KILN_ERR_BACKEND_LOAD, KILN_ERR_BACKEND_UNAVAILABLE the backend cannot
 * be used: the message says why. */
kiln_status kiln_device_get_count(const char *backend, int *count);
/** The function behind kiln_device_get_info: `info_size` is sizeof the
 * caller's struct, which the macro passes. */
kiln_status kiln_device_get_info_sized(const char *backend, int index,
                                       kiln_device_info *info,
                                       size_t info_size);
/** Describes device `index` of the named backend (NULL: the default one).
 * @code
 * kiln_status kiln_device_get_info(const char *backend, int index,
 *                                  kiln_device_info *info);
 * @endcode
 * @retval KILN_ERR_NO_DEVICE `index` is negative or past the backend's
 * devices.
 * @retval KILN_ERR_BACKEND_UNKNOWN, KILN_ERR_BACKEND_NOT_FOUND,
 * KILN_ERR_BACKEND_LOAD, KILN_ERR_BACKEND_UNAVAILABLE the backend cannot
 * be used: the message says why. */
#define kiln_device_get_info(backend, index, info) \
    kiln_device_get_info_sized((backend), (index), (info), sizeof *(info))

/** The function behind kiln_device_list: `element_size` is sizeof one
 * kiln_device_info, which the macro passes. */
kiln_status kiln_device_list_sized(kiln_device_info *devices, size_t capacity,
                                   size_t element_size, size_t *count);
/** Every device of every usable backend in one list.
 * @code
 * kiln_status kiln_device_list(kiln_device_info *devices, size_t capacity,
 *                              size_t *count);
 * @endcode
 * For programs that use several devices at once: backends in
 * kiln_backend_get_info's order, each one's devices by index.  Writes at most `capacity` entries to
 * `devices` (NULL allowed when capacity is 0) and the number that exist to
 * *count, so a first call with capacity 0 sizes the array.  Each entry's
 * `backend` and `index` open it: kiln_context_create(d.backend, d.index,
 * &context).  One GPU may be listed twice, under CUDA and under its
 * vendor's OpenCL.  Backends that cannot be used are left out
 * (kiln_backend_get_info says why): none usable is a count of 0, not an
 * error.  KILN_BACKEND does not narrow the list.
 * @retval KILN_ERR_INVALID_ARGUMENT `devices` is NULL with a `capacity`
 * above 0. */
#define kiln_device_list(devices, capacity, count) \
    kiln_device_list_sized((devices), (capacity), sizeof(kiln_device_info), \
                           (count))

/** The device one process of a multi-process job should open.
 * For MPI with one rank per GPU: `local_rank` modulo the backend's device count, so ranks
 * spread over their node's devices, and share them when there are more
 * ranks than devices.  `local_rank` is the process's rank among those on
 * its node, which MPI gives as the rank in
 * @code
 * MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
 *                     MPI_INFO_NULL, &node_comm);
 * @endcode
 * (Open MPI also sets OMPI_COMM_WORLD_LOCAL_RANK, Slurm SLURM_LOCALID).
 * Pass the result to kiln_context_create(backend, device, ...).  Where the
 * launcher already gives each rank one GPU (`srun --gpus-per-task=1` sets
 * CUDA_VISIBLE_DEVICES per rank), the backend sees one device and every
 * rank gets 0.  `backend` NULL: the default backend.
 * @retval KILN_ERR_INVALID_ARGUMENT `local_rank` is negative.
 * @retval KILN_ERR_NO_DEVICE the backend has no device.
 * @retval KILN_ERR_BACKEND_UNKNOWN, KILN_ERR_BACKEND_NOT_FOUND,
 * KILN_ERR_BACKEND_LOAD, KILN_ERR_BACKEND_UNAVAILABLE the backend cannot
 * be used, as for kiln_device_get_count. */
kiln_status kiln_device_for_rank(const char *backend, int local_rank,
                                 int *device);

/** @} */

/* ------------------------------------------------------------------------ */
/* Contexts                                                                 */
/* ------------------------------------------------------------------------ */
/** @defgroup contexts Contexts
 * A context is one device opened through one backend; every other object
 * belongs to a context.
 * @{ */

/** A device opened through one backend (kiln_context_create).
 * Buffers, programs, streams and events belong to it and keep it alive. */
typedef struct kiln_context kiln_context;

/** Creates a context on one device.
 * `backend` NULL chooses as
 * kiln_backend_default() does; a named backend that cannot be used is an
 * error with the reason, never a fallback to another.  `device` < 0 takes
 * KILN_DEVICE (default 0).  Several contexts may be open at once, on one
 * device or many (kiln_device_list); with MPI, one rank per device, take
 * `device` from kiln_device_for_rank.
 * @retval KILN_ERR_BACKEND_UNKNOWN, KILN_ERR_BACKEND_NOT_FOUND,
 * KILN_ERR_BACKEND_LOAD, KILN_ERR_BACKEND_ABI, KILN_ERR_BACKEND_UNAVAILABLE
 * the backend cannot be used: the message names the plugin file and the
 * reason.
 * @retval KILN_ERR_NO_DEVICE the device index is past the backend's
 * devices.
 * @retval KILN_ERR_BACKEND the vendor API failed to open the device (its
 * error name is in the message). */
kiln_status kiln_context_create(const char *backend, int device,
                                kiln_context **context);
/** Adds a reference to `context`: one more kiln_context_release before it goes. */
kiln_status kiln_context_retain(kiln_context *context);
/** Drops a reference to `context`, which goes with its last reference (and those of its buffers, programs, streams
 * and events).
 * @retval KILN_ERR_INVALID_HANDLE a release beyond the caller's own
 * references (create + retains), which changes nothing. */
kiln_status kiln_context_release(kiln_context *context);

/** The context's backend: writes its name ("cuda", "opencl", static
 * storage) to `*name`. */
kiln_status kiln_context_get_backend(const kiln_context *context,
                                     const char **name);
/** The function behind kiln_context_get_device_info: `info_size` is sizeof
 * the caller's struct, which the macro passes. */
kiln_status kiln_context_get_device_info_sized(const kiln_context *context,
                                               kiln_device_info *info,
                                               size_t info_size);
/** Describes the context's device.
 * @code
 * kiln_status kiln_context_get_device_info(const kiln_context *context,
 *                                          kiln_device_info *info);
 * @endcode */
#define kiln_context_get_device_info(context, info) \
    kiln_context_get_device_info_sized((context), (info), sizeof *(info))

/** Waits for all work on all of the context's streams.
 * @retval KILN_ERR_KERNEL_FAULT a kernel faulted since the last
 * synchronizing call (the vendor's error, such as
 * CUDA_ERROR_ILLEGAL_ADDRESS, is in the message). */
kiln_status kiln_context_synchronize(kiln_context *context);

/** The checks kiln_context_set_checks turns on. */
typedef enum kiln_check {
    KILN_CHECK_BOUNDS = 1 /**< guard zones around buffers, checked at every
                               launch                                     */
} kiln_check;
/** Turns the checked mode on or off, for finding kernels that write out of
 * bounds.
 * It is off by default; KILN_CHECK=bounds turns it on for every context
 * created after.  With KILN_CHECK_BOUNDS, buffers created from then on (and host In/Out
 * arrays) get guard zones: 4 KiB of a pattern before and after them.  Each
 * launch then waits for its kernel and checks the zones of its buffer
 * arguments: a write past either end is KILN_ERR_KERNEL_FAULT naming the
 * kernel, the argument, the buffer and the bytes overwritten, and the
 * zones are restored.  Launches become synchronous (see
 * docs/PERFORMANCE.md for the cost); writes more than 4 KiB away, reads,
 * and buffers created before the switch are not checked.  `checks` is 0 or
 * KILN_CHECK_BOUNDS.
 * @retval KILN_ERR_INVALID_ARGUMENT `checks` has other bits.
 * @retval KILN_ERR_UNSUPPORTED the backend's plugin has no guard support. */
kiln_status kiln_context_set_checks(kiln_context *context, unsigned checks);
/** The checks in force on `context`: 0 or KILN_CHECK_BOUNDS. */
kiln_status kiln_context_get_checks(const kiln_context *context,
                                    unsigned *checks);

/** @} */

/* ------------------------------------------------------------------------ */
/* Streams and events                                                       */
/* ------------------------------------------------------------------------ */
/** @defgroup streams Streams and events
 * Streams order work on a device; events mark points in a stream, for
 * waiting and for timing.
 * @{ */

/** An in-order queue of work (CUDA stream, OpenCL command queue).
 * Wherever a function takes a stream together with an object of a context
 * (a buffer, a kernel's launch config, an event), NULL means that
 * context's default stream. */
typedef struct kiln_stream kiln_stream;
/** A point in a stream (kiln_event_record): something to wait for, and
 * with a second event, the device time between them. */
typedef struct kiln_event kiln_event;

/** Creates a stream on `context`: an in-order queue of its own, whose work
 * may overlap that of the context's other streams. */
kiln_status kiln_stream_create(kiln_context *context, kiln_stream **stream);
/** The priority of a stream (kiln_stream_create_with_priority). */
typedef enum kiln_stream_priority {
    KILN_STREAM_PRIORITY_NORMAL = 0, /**< as kiln_stream_create's          */
    KILN_STREAM_PRIORITY_HIGH = 1    /**< the context's greatest CUDA
                                          priority                        */
} kiln_stream_priority;
/** Creates a stream whose kernels and copies the device starts ahead of
 * the pending work of ordinary streams (CUDA stream priorities).
 * For short work on a critical path beside a long kernel, such as a
 * stencil's edge rows and halo copies while its interior runs.  Work on
 * the stream keeps its order either way; only the sharing of the device
 * differs, so a backend without priorities (OpenCL) makes an ordinary
 * stream, and kiln_stream_get_priority says which one the stream got.
 * @retval KILN_ERR_INVALID_ARGUMENT a priority other than the two. */
kiln_status kiln_stream_create_with_priority(kiln_context *context,
                                             kiln_stream_priority priority,
                                             kiln_stream **stream);
/** The priority the stream got: KILN_STREAM_PRIORITY_HIGH only where the
 * backend has priorities. */
kiln_status kiln_stream_get_priority(const kiln_stream *stream,
                                     kiln_stream_priority *priority);
/** The context's default stream as a handle.
 * For the calls that take a stream alone.  No reference is added (it lives
 * as long as the context);
 * retaining it retains the context, and releasing it drops that again. */
kiln_status kiln_context_get_default_stream(kiln_context *context,
                                            kiln_stream **stream);
/** Adds a reference to `stream`: one more kiln_stream_release before it goes. */
kiln_status kiln_stream_retain(kiln_stream *stream);
/** Drops a reference to `stream`, which goes with its last reference (work queued on it holds one).
 * @retval KILN_ERR_INVALID_HANDLE a release beyond the caller's own
 * references (create + retains), which changes nothing. */
kiln_status kiln_stream_release(kiln_stream *stream);
/** The stream's context (no reference added). */
kiln_status kiln_stream_get_context(const kiln_stream *stream,
                                    kiln_context **context);
/** Waits for everything queued on `stream`.
 * @retval KILN_ERR_KERNEL_FAULT a kernel on it faulted. */
kiln_status kiln_stream_synchronize(kiln_stream *stream);
/** Work queued on `stream` after this waits for `event`.
 * The event may
 * belong to another context: two CUDA contexts wait on the device (the
 * host goes on); any other pair (OpenCL contexts, two backends) waits on
 * the host: the call returns once the event has completed, so what is
 * queued next is ordered after it.
 * @retval KILN_ERR_INVALID_ARGUMENT the event was never recorded. */
kiln_status kiln_stream_wait_event(kiln_stream *stream, kiln_event *event);

/** Creates an event on `context`, not yet recorded.
 * Events mark a point in a stream; two recorded events give the device
 * time between them (kiln_event_elapsed). */
kiln_status kiln_event_create(kiln_context *context, kiln_event **event);
/** Creates an event for ordering only: recorded, waited for and queried,
 * never timed.
 * A timed CUDA event writes a timestamp once the work before it is done,
 * which costs device time between kernels (1.7-2 us each on an H100);
 * this one does not.  kiln_event_elapsed refuses it with
 * KILN_ERR_INVALID_ARGUMENT. */
kiln_status kiln_event_create_untimed(kiln_context *context,
                                      kiln_event **event);
/** Adds a reference to `event`: one more kiln_event_release before it goes. */
kiln_status kiln_event_retain(kiln_event *event);
/** Drops a reference to `event`, which goes with its last reference (its context).
 * @retval KILN_ERR_INVALID_HANDLE a release beyond the caller's own
 * references (create + retains), which changes nothing. */
kiln_status kiln_event_release(kiln_event *event);
/** Records the event at the current end of `stream` (NULL: the default
 * stream of the event's context).
 * @retval KILN_ERR_CONTEXT_MISMATCH the stream belongs to another context. */
kiln_status kiln_event_record(kiln_event *event, kiln_stream *stream);
/** Waits until the work before the event's last record is done.
 * @retval KILN_ERR_INVALID_ARGUMENT the event was never recorded.
 * @retval KILN_ERR_KERNEL_FAULT a kernel before it faulted. */
kiln_status kiln_event_synchronize(kiln_event *event);
/** Whether the work before the event is done, without waiting.
 * @retval KILN_ERR_NOT_READY not yet (kiln_last_error() is left empty for
 * that: it is an answer, not a failure). */
kiln_status kiln_event_query(kiln_event *event);
/** The device time between two events, in milliseconds.
 * `start` and `end` must both be recorded and complete (this waits for
 * `end`).
 * @retval KILN_ERR_INVALID_ARGUMENT an event was never recorded.
 * @retval KILN_ERR_CONTEXT_MISMATCH the events belong to two contexts. */
kiln_status kiln_event_elapsed(kiln_event *start, kiln_event *end,
                               float *milliseconds);

/** @} */

/* ------------------------------------------------------------------------ */
/* Buffers (device memory) and page-locked host memory                      */
/* ------------------------------------------------------------------------ */
/** @defgroup buffers Buffers (device memory) and page-locked host memory
 * Device memory, the copies to, from and between it, page-locked host
 * memory for fast transfers, and the pool that keeps freed device memory
 * for reuse.
 * @{ */

/** A range of device memory of one context (kiln_buffer_create). */
typedef struct kiln_buffer kiln_buffer;

/** Allocates `size` bytes of device memory, contents undefined.
 * Freed blocks may be kept in the context's pool and reused (see
 * kiln_pool_set_enabled).
 * @retval KILN_ERR_INVALID_SIZE `size` is 0, or more than the device's
 * largest allocation.
 * @retval KILN_ERR_OUT_OF_DEVICE_MEMORY more than the device can give. */
kiln_status kiln_buffer_create(kiln_context *context, size_t size,
                               kiln_buffer **buffer);
/** Allocates `size` bytes of device memory and fills them from `host`:
 * PyCUDA's to_device.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0, or more than the device's
 * largest allocation.
 * @retval KILN_ERR_OUT_OF_DEVICE_MEMORY more than the device can give. */
kiln_status kiln_buffer_create_from(kiln_context *context, const void *host,
                                    size_t size, kiln_buffer **buffer);
/** Adds a reference to `buffer`: one more kiln_buffer_release before it goes. */
kiln_status kiln_buffer_retain(kiln_buffer *buffer);
/** Drops a reference to `buffer`, which goes with its last reference (queued work that uses it holds one).
 * @retval KILN_ERR_INVALID_HANDLE a release beyond the caller's own
 * references (create + retains), which changes nothing. */
kiln_status kiln_buffer_release(kiln_buffer *buffer);
/** The buffer's size in bytes. */
kiln_status kiln_buffer_get_size(const kiln_buffer *buffer, size_t *size);
/** The buffer's context, lent without a reference.
 * It stays valid while the buffer lives.  To keep it longer,
 * kiln_context_retain it (and release that reference later); releasing it
 * without such a retain, once the caller's own references are gone, is
 * KILN_ERR_INVALID_HANDLE. */
kiln_status kiln_buffer_get_context(const kiln_buffer *buffer,
                                    kiln_context **context);

/** A view: bytes [offset, offset + size) of `buffer` as a buffer handle
 * of its own, sharing the memory.
 * PyCUDA's `int(a_gpu) + 4`, a slice `a_gpu[1:]`.  The view holds a
 * reference to the buffer that owns the memory, so either may be released
 * first; a view of a view is a view of that same buffer, at the sum of the
 * offsets.  Release the view with kiln_buffer_release.
 *
 * Transfers, copies and fills take views at any offset on every backend,
 * their ranges checked against the view.  As a kernel argument a view
 * is the pointer to its first byte:
 *  - on CUDA at any offset;
 *  - on OpenCL, CUDA C kernels (translated by Kiln) take it at any offset
 *    (each pointer parameter gets a hidden byte offset that the launch
 *    fills); OpenCL C kernels take it when `offset` is a multiple of the
 *    device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (a sub-buffer), and a view at
 *    any other offset is KILN_ERR_UNSUPPORTED at the launch, naming the
 *    argument and the alignment (pass the offset as an argument of your
 *    own instead, as kiln_array.h's generators do).
 *
 * A view's native handle (kiln_buffer_get_native) follows the same rules.
 * @retval KILN_ERR_OUT_OF_BOUNDS `offset` + `size` is past the end of
 * `buffer`.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0. */
kiln_status kiln_buffer_create_view(kiln_buffer *buffer, size_t offset,
                                    size_t size, kiln_buffer **view);
/** The buffer that owns the memory of `buffer`, and the byte offset of
 * `buffer` in it.
 * For a view, the buffer it was made from (through any views of views)
 * and its offset; for any other buffer, itself and 0.  The base is lent
 * without a reference, valid while `buffer` lives. */
kiln_status kiln_buffer_get_base(const kiln_buffer *buffer, kiln_buffer **base,
                                 size_t *offset);

/** Copies `size` bytes from `host` to the buffer at byte `offset`.
 * It runs after all work already queued on the default stream and returns
 * once `host` may be reused.  Whatever Kiln queues afterwards sees the
 * data, in this context and in any other (a copy between contexts waits
 * for it on the device).  Code outside Kiln may not yet: on CUDA a write
 * from pageable memory returns as cuMemcpyHtoD does, with its last bytes
 * still landing.  Before another process reads the buffer (through
 * kiln_buffer_get_ipc_handle) or work queued with the vendor's API does,
 * call kiln_context_synchronize, kiln_stream_synchronize of the default
 * stream, or kiln_event_synchronize of an event recorded after the write.
 * @retval KILN_ERR_OUT_OF_BOUNDS `offset` + `size` is past the end of the
 * buffer.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0. */
kiln_status kiln_buffer_write(kiln_buffer *buffer, size_t offset,
                              const void *host, size_t size);
/** Copies `size` bytes from the buffer at byte `offset` to `host`.
 * It runs after all work already queued on the default stream and returns
 * when the data has arrived.
 * @retval KILN_ERR_OUT_OF_BOUNDS `offset` + `size` is past the end of the
 * buffer.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0.
 * @retval KILN_ERR_KERNEL_FAULT a kernel queued before it faulted. */
kiln_status kiln_buffer_read(kiln_buffer *buffer, size_t offset, void *host,
                             size_t size);
/** Copies `size` bytes from one buffer to another (device to device).
 * The ranges may be in the same buffer but must not overlap.
 *
 * The two buffers may belong to different contexts: two devices, two
 * contexts on one device, or two backends.  Between two contexts of the
 * CUDA backend the copy is direct (cuMemcpyPeer: GPU to GPU over NVLink or
 * PCIe where the GPUs allow peer access, else staged by the driver); any
 * other pair (two OpenCL contexts, CUDA <-> OpenCL) is staged by the host
 * through page-locked memory in chunks, reading the next chunks while the
 * earlier ones are written.  The synchronous copy runs after the work
 * already queued on the default streams of both contexts.  Either form
 * sees what a synchronous kiln_buffer_write to either buffer wrote before
 * it, even where that write was still landing (CUDA).  The async form
 * takes a stream of either buffer's context (NULL: the destination's
 * default stream; a stream of a third context is
 * KILN_ERR_CONTEXT_MISMATCH) and is ordered after that stream's earlier
 * work only: order it after the other context's work with
 * kiln_stream_wait_event.  A direct async copy also makes the other
 * context's default stream wait for it; a staged one is done by the host
 * and has arrived when the call returns.  See docs/MULTI-DEVICE.md.
 * @retval KILN_ERR_OUT_OF_BOUNDS a range is past the end of its buffer.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0.
 * @retval KILN_ERR_INVALID_ARGUMENT the ranges overlap in one buffer. */
kiln_status kiln_buffer_copy(kiln_buffer *destination,
                             size_t destination_offset, kiln_buffer *source,
                             size_t source_offset, size_t size);
/** Repeats a pattern of 1, 2, 4, 8 or 16 bytes over [offset, offset+size).
 * `offset` and `size` must be multiples of the pattern size.
 * @retval KILN_ERR_INVALID_ARGUMENT another pattern size, or an offset or
 * size that is not a multiple of it.
 * @retval KILN_ERR_OUT_OF_BOUNDS the range is past the end of the buffer.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0. */
kiln_status kiln_buffer_fill(kiln_buffer *buffer, size_t offset, size_t size,
                             const void *pattern, size_t pattern_size);

/** kiln_buffer_write, queued on `stream` (NULL: the default stream).
 * The host memory must stay valid and unchanged until the stream has
 * passed the copy; it needs to be page-locked (kiln_host_alloc) for the
 * copy to overlap with other work.
 * @retval KILN_ERR_OUT_OF_BOUNDS `offset` + `size` is past the end of the
 * buffer.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0.
 * @retval KILN_ERR_CONTEXT_MISMATCH the stream belongs to another context. */
kiln_status kiln_buffer_write_async(kiln_buffer *buffer, size_t offset,
                                    const void *host, size_t size,
                                    kiln_stream *stream);
/** kiln_buffer_read, queued on `stream` (NULL: the default stream).
 * The host memory must stay valid until the stream has passed the copy
 * (kiln_stream_synchronize, an event); it needs to be page-locked
 * (kiln_host_alloc) for the copy to overlap with other work.
 * @retval KILN_ERR_OUT_OF_BOUNDS `offset` + `size` is past the end of the
 * buffer.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0.
 * @retval KILN_ERR_CONTEXT_MISMATCH the stream belongs to another context. */
kiln_status kiln_buffer_read_async(kiln_buffer *buffer, size_t offset,
                                   void *host, size_t size,
                                   kiln_stream *stream);
/** kiln_buffer_copy, queued on `stream`: see kiln_buffer_copy for the
 * stream of a copy between two contexts.
 * @retval KILN_ERR_OUT_OF_BOUNDS a range is past the end of its buffer.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0.
 * @retval KILN_ERR_INVALID_ARGUMENT the ranges overlap in one buffer.
 * @retval KILN_ERR_CONTEXT_MISMATCH the stream belongs to neither buffer's
 * context. */
kiln_status kiln_buffer_copy_async(kiln_buffer *destination,
                                   size_t destination_offset,
                                   kiln_buffer *source, size_t source_offset,
                                   size_t size, kiln_stream *stream);
/** kiln_buffer_fill, queued on `stream` (NULL: the default stream).
 * @retval KILN_ERR_INVALID_ARGUMENT a pattern size other than 1, 2, 4, 8
 * or 16, or an offset or size that is not a multiple of it.
 * @retval KILN_ERR_OUT_OF_BOUNDS the range is past the end of the buffer.
 * @retval KILN_ERR_INVALID_SIZE `size` is 0.
 * @retval KILN_ERR_CONTEXT_MISMATCH the stream belongs to another context. */
kiln_status kiln_buffer_fill_async(kiln_buffer *buffer, size_t offset,
                                   size_t size, const void *pattern,
                                   size_t pattern_size, kiln_stream *stream);

/** Allocates `size` bytes of page-locked host memory, for fast and
 * asynchronous transfers.
 * Free it with kiln_host_free on the same context before the context's
 * last release (the context frees what is left then).
 * @retval KILN_ERR_INVALID_SIZE `size` is 0 or more than an address space
 * holds. */
kiln_status kiln_host_alloc(kiln_context *context, size_t size, void **host);
/** Frees memory from kiln_host_alloc of the same context.
 * @retval KILN_ERR_INVALID_ARGUMENT `host` is NULL, did not come from
 * kiln_host_alloc on this context, or was freed already. */
kiln_status kiln_host_free(kiln_context *context, void *host);

/** What the device memory pool holds and has done (kiln_pool_get_stats). */
typedef struct kiln_pool_stats {
    uint64_t bytes_in_use;   /**< held by live buffers                      */
    uint64_t bytes_cached;   /**< freed and kept for reuse                  */
    uint64_t allocations;    /**< requests served                           */
    uint64_t reuses;         /**< of which served from the pool             */
} kiln_pool_stats;
/** Turns the context's device memory pool on (`enabled` 1) or off (0).
 * Released buffers go back to the context's pool and are reused by later
 * allocations of the same size class instead of returning to the driver
 * (as in CuPy).  On by default; KILN_POOL=0 disables it.  When the device
 * is full the pool is emptied and the allocation tried again.  Turning it
 * off returns the cached blocks to the driver. */
kiln_status kiln_pool_set_enabled(kiln_context *context, int enabled);
/** The function behind kiln_pool_get_stats: `stats_size` is sizeof the
 * caller's struct, which the macro passes. */
kiln_status kiln_pool_get_stats_sized(kiln_context *context,
                                      kiln_pool_stats *stats,
                                      size_t stats_size);
/** What the context's device memory pool holds and has done.
 * @code
 * kiln_status kiln_pool_get_stats(kiln_context *context,
 *                                 kiln_pool_stats *stats);
 * @endcode */
#define kiln_pool_get_stats(context, stats) \
    kiln_pool_get_stats_sized((context), (stats), sizeof *(stats))
/** Returns every block the pool keeps to the driver. */
kiln_status kiln_pool_trim(kiln_context *context);

/** @} */

/* ------------------------------------------------------------------------ */
/* Buffers shared between processes                                         */
/* ------------------------------------------------------------------------ */
/** @defgroup ipc Buffers shared between processes
 * Device memory one process exports and another of the same machine opens
 * (CUDA IPC).
 * @{ */

/** The size of a kiln_ipc_handle's bytes. */
#define KILN_IPC_HANDLE_SIZE 128
/** What another process of the same machine needs to open a buffer: bytes
 * to send it (MPI, a pipe, a file).
 * Opaque; bytes that are not a handle, or a handle of another backend, are
 * refused, never misread. */
typedef struct kiln_ipc_handle {
    unsigned char bytes[KILN_IPC_HANDLE_SIZE]; /**< opaque               */
} kiln_ipc_handle;

/** The handle of `buffer`'s device memory, for kiln_buffer_open_ipc_handle
 * in another process (CUDA: cuIpcGetMemHandle).
 * The memory stays this
 * buffer's: keep the buffer until every process that opened it has
 * released its own (a released buffer's memory goes back to the pool and
 * may hold another buffer's data).  A view (kiln_buffer_create_view) is
 * KILN_ERR_INVALID_ARGUMENT: share its base and send the offset.  A
 * backend that cannot share device memory between processes (OpenCL has
 * no such handles) answers
 * KILN_ERR_UNSUPPORTED: stage the data through host memory instead
 * (kiln_buffer_read, MPI, kiln_buffer_write).
 *
 * Kiln sees no work of the other process, nor the other process Kiln's:
 * before telling it that the data is there, wait for what wrote it
 * (kiln_context_synchronize, or kiln_event_synchronize of an event
 * recorded after the work), a kiln_buffer_write included, which on CUDA
 * may return before its last bytes have landed.  The same holds the other
 * way for what the other process writes into the memory.
 * @retval KILN_ERR_INVALID_ARGUMENT `buffer` is a view.
 * @retval KILN_ERR_UNSUPPORTED the backend cannot share device memory
 * between processes (OpenCL). */
kiln_status kiln_buffer_get_ipc_handle(kiln_buffer *buffer,
                                       kiln_ipc_handle *handle);
/** Opens, in `context`, a buffer another process exported.
 * A buffer of the exporter's size whose memory is the exporter's (CUDA:
 * cuIpcOpenMemHandle; peer access is enabled where the two processes'
 * GPUs differ).  It serves as any buffer of `context` (copies, kernel
 * arguments); kiln_buffer_release unmaps it.  Kiln sees no work of the
 * other process: order the two sides yourself (each waits for its own
 * work on the memory, then sends a message; see
 * kiln_buffer_get_ipc_handle).
 * @retval KILN_ERR_INVALID_ARGUMENT bytes that are not a handle, a handle
 * of another backend, or one this process exported (use the buffer
 * itself).
 * @retval KILN_ERR_UNSUPPORTED a backend without such handles.
 * @retval KILN_ERR_BACKEND the driver's reason (CUDA: GPUs without peer
 * access to each other). */
kiln_status kiln_buffer_open_ipc_handle(kiln_context *context,
                                        const kiln_ipc_handle *handle,
                                        kiln_buffer **buffer);

/** @} */

/* ------------------------------------------------------------------------ */
/* Programs and kernels                                                     */
/* ------------------------------------------------------------------------ */
/** @defgroup programs Programs and kernels
 * Source (OpenCL C or CUDA C) compiled at run time for a context's device,
 * through the kernel cache, and the kernels it holds.
 * @{ */

/** Compiled source: one or more kernels, for one context's device
 * (kiln_program_build). */
typedef struct kiln_program kiln_program;
/** One kernel of a program, to launch (kiln_kernel_create). */
typedef struct kiln_kernel kiln_kernel;

/** The language of a program's source (kiln_build_options). */
typedef enum kiln_language {
    KILN_LANGUAGE_OPENCL_C = 0, /**< portable: every backend                */
    KILN_LANGUAGE_CUDA_C        /**< CUDA C: natively on the CUDA backend,
                                     translated to OpenCL C on OpenCL      */
} kiln_language;

/** Options for kiln_program_build_with().  Zero-initialise and set what you
 * need: {0} is OpenCL C with no options. */
typedef struct kiln_build_options {
    size_t struct_size;                /**< 0 or sizeof(kiln_build_options):
                                            see the conventions at the top  */
    kiln_language language;            /**< the source's language          */
    const char *options;               /**< "-DN=4 -O3 -cl-fast-relaxed-math";
                                            -cl-* options are mapped or
                                            dropped on the CUDA backend    */
    const char *const *defines;        /**< "NAME" or "NAME=VALUE" each    */
    size_t define_count;               /**< entries in defines             */
    const char *const *include_dirs;   /**< searched for `#include "..."`  */
    size_t include_dir_count;          /**< entries in include_dirs        */
    const char *source_name;           /**< for messages; the file name when
                                            built from a file              */
    /* Added after 1.0: read only when struct_size says the caller's
     * struct has them. */
    unsigned flags;                    /**< KILN_BUILD_* bits; 0: none     */
    const char *name;                  /**< names the build in KILN_LOG's
                                            lines; NULL: the source file,
                                            else the first kernel's name   */
    /* Added after 1.0, like flags and name. */
    const char *const *kernel_names;   /**< CUDA C: kernel template
                                            instances to build, as NVRTC's
                                            name expressions and CuPy's
                                            name_expressions:
                                            "sgemm<64, 8>" (see
                                            kiln_kernel_create)            */
    size_t kernel_name_count;          /**< entries in kernel_names        */
} kiln_build_options;

/** The size of kiln_build_options in Kiln 1.0: what struct_size 0 reads. */
#define KILN_BUILD_OPTIONS_SIZE_1_0 offsetof(kiln_build_options, flags)
/** kiln_build_options.flags: the source is self-contained.  No file is read
 * for it, and an `\#include` in it is KILN_ERR_BUILD naming its line: what
 * the array layer's generators build, whatever their strings hold. */
#define KILN_BUILD_NO_INCLUDE 1u

/** Compiles `source` (NUL-terminated) with `options` (may be NULL).
 * The language is the source's: CUDA C when it has the token __global__ (every
 * CUDA kernel's qualifier, never OpenCL C) and neither __kernel nor kernel,
 * as a PyCUDA SourceModule string; else OpenCL C.  The same holds for
 * kiln_program_build_with and _file given NULL options; an options struct's
 * language always wins (and a CUDA-looking source that then fails as OpenCL
 * C says so).  Messages name a string source "<kiln program>" (or
 * options->source_name).  Compiled binaries are cached in memory and on
 * disk (see README: the kernel cache).
 * @retval KILN_ERR_BUILD the compiler rejected the source: its log is in
 * kiln_last_error(), pointing at the user's file and line.
 * @retval KILN_ERR_TRANSLATION the source uses what the backend's language
 * cannot express faithfully: the construct and line are named.
 * @retval KILN_ERR_INVALID_ARGUMENT a malformed option string (an unclosed
 * quote) or define. */
kiln_status kiln_program_build(kiln_context *context, const char *source,
                               const char *options, kiln_program **program);
/** Compiles `length` bytes of `source` with every option (kiln_program_build
 * for the rest); `length` 0 means NUL-terminated.
 * @retval KILN_ERR_BUILD the compiler rejected the source: its log is in
 * kiln_last_error().
 * @retval KILN_ERR_TRANSLATION the source uses what the backend's language
 * cannot express faithfully: the construct and line are named.
 * @retval KILN_ERR_INVALID_ARGUMENT a malformed option string or define, or
 * `options->struct_size` neither 0 nor a size Kiln knows. */
kiln_status kiln_program_build_with(kiln_context *context, const char *source,
                                    size_t length,
                                    const kiln_build_options *options,
                                    kiln_program **program);
/** Compiles the source file at `path` (kiln_program_build for the rest).
 * Its directory is searched first for `#include "..."` (then
 * options->include_dirs), and messages name the file.
 * @retval KILN_ERR_IO the file cannot be read.
 * @retval KILN_ERR_BUILD the compiler rejected the source: its log is in
 * kiln_last_error().
 * @retval KILN_ERR_TRANSLATION the source uses what the backend's language
 * cannot express faithfully: the construct and line are named. */
kiln_status kiln_program_build_file(kiln_context *context, const char *path,
                                    const kiln_build_options *options,
                                    kiln_program **program);
/** Adds a reference to `program`: one more kiln_program_release before it goes. */
kiln_status kiln_program_retain(kiln_program *program);
/** Drops a reference to `program`, which goes with its last reference (its kernels hold one).
 * @retval KILN_ERR_INVALID_HANDLE a release beyond the caller's own
 * references (create + retains), which changes nothing. */
kiln_status kiln_program_release(kiln_program *program);
/** The compiler's log of a successful build (its warnings), "" if none.
 * Valid while the program lives. */
kiln_status kiln_program_get_build_log(const kiln_program *program,
                                       const char **log);
/** Where a program's binary came from (kiln_program_get_origin). */
typedef enum kiln_program_origin {
    KILN_PROGRAM_COMPILED = 0,      /**< compiled by this build             */
    KILN_PROGRAM_FROM_MEMORY_CACHE, /**< shared with an earlier build of the
                                         same source in this context      */
    KILN_PROGRAM_FROM_DISK_CACHE    /**< loaded from the kernel cache      */
} kiln_program_origin;
/** Where the program's binary came from: compiled now, the memory cache or
 * the disk cache. */
kiln_status kiln_program_get_origin(const kiln_program *program,
                                    kiln_program_origin *origin);

/** The number of kernels in the program (see
 * kiln_program_get_kernel_name). */
kiln_status kiln_program_get_kernel_count(const kiln_program *program,
                                          size_t *count);
/** The name of the program's kernel `index`.
 * As PyOpenCL's program.all_kernels() and OpenCL's
 * CL_PROGRAM_KERNEL_NAMES list them: kiln_program_get_kernel_count()
 * kernels, each name one that kiln_kernel_create accepts.  The order is
 * the driver's for a program in the backend's own language (OpenCL C on
 * OpenCL, CUDA C's module on CUDA) and the source's for a translated one,
 * and stays the same for the life of the program.  Native CUDA C kernels
 * are listed by their C name when that names exactly one kernel of the
 * module, else by their mangled name (overloads, templates, namespaces);
 * where the CUDA driver cannot list a module's kernels (before CUDA 12.4,
 * without cuModuleEnumerateFunctions), those Kiln read in the source.
 * Names stay valid while the program lives.
 * @retval KILN_ERR_INVALID_ARGUMENT `index` is not below the count. */
kiln_status kiln_program_get_kernel_name(const kiln_program *program,
                                         size_t index, const char **name);

/** A __device__ or __constant__ variable of a CUDA C program, as a buffer.
 * As PyCUDA's module.get_global and cudaMemcpyToSymbol use it: what is
 * written to the buffer is what the program's kernels read (launches
 * queued after the write see it), and what they write can be read back.
 * On the CUDA backend the buffer is the module's own memory
 * (cuModuleGetGlobal); on OpenCL, the translation made the variable a
 * buffer of the program's that its kernels are given.  *buffer is a new
 * handle the caller releases; kiln_buffer_get_size gives the variable's
 * size.
 * The memory stays the program's: releasing the buffer does not free it,
 * and the buffer keeps the program alive.  Programs built from the same
 * source and options in one context share one build, and so its
 * variables (as CUDA shares a loaded module's).
 * @retval KILN_ERR_INVALID_ARGUMENT the program has no such variable (an
 * OpenCL C program has none).
 * @retval KILN_ERR_UNSUPPORTED the backend's plugin leaves out the
 * optional program_variable op. */
kiln_status kiln_program_get_global(kiln_program *program, const char *name,
                                    kiln_buffer **buffer);

/** A kernel of `program`, by its name.
 * The C name: CUDA C kernels are found with or without extern "C".  The
 * kernel holds a reference to its program.
 * A CUDA C kernel template's instance is named as NVRTC's name expressions
 * and CuPy's name_expressions name it: "sgemm<64, 8>", "scale<float>",
 * "ns::k".  White space does not matter ("sgemm<64,8>" is the same
 * kernel), and a leading '&' may be given.  An instance the program was
 * not built with (kiln_build_options.kernel_names gives them up front)
 * builds the program again with it added, through the kernel cache; the
 * kernels created before keep their build, and the program's
 * __device__ variables are the new build's from then on.
 * @retval KILN_ERR_KERNEL_NOT_FOUND the program has no kernel of that name
 * (the message lists those it has), or no template that the arguments
 * instantiate (the message gives the compiler's or translator's reason). */
kiln_status kiln_kernel_create(kiln_program *program, const char *name,
                               kiln_kernel **kernel);
/** Adds a reference to `kernel`: one more kiln_kernel_release before it goes. */
kiln_status kiln_kernel_retain(kiln_kernel *kernel);
/** Drops a reference to `kernel`, which goes with its last reference (a prepared launch keeps none).
 * @retval KILN_ERR_INVALID_HANDLE a release beyond the caller's own
 * references (create + retains), which changes nothing. */
kiln_status kiln_kernel_release(kiln_kernel *kernel);
/** The kernel's name, valid while the kernel lives. */
kiln_status kiln_kernel_get_name(const kiln_kernel *kernel, const char **name);

/** What a kernel parameter takes (kiln_param_info). */
typedef enum kiln_param_kind {
    KILN_PARAM_BUFFER = 1, /**< __global / __constant pointer: pass a buffer */
    KILN_PARAM_LOCAL,      /**< __local pointer: pass a local-memory size    */
    KILN_PARAM_VALUE,      /**< by value: pass bytes of the parameter's size */
    KILN_PARAM_POINTER_OR_VALUE /**< native CUDA C: the driver tells only the
                                size; a buffer is accepted for 8-byte ones  */
} kiln_param_kind;

/** One parameter of a kernel, as the launch checks it
 * (kiln_kernel_get_param_info). */
typedef struct kiln_param_info {
    kiln_param_kind kind;  /**< what it takes                          */
    size_t size;           /**< bytes passed by value; 0 when unknown      */
    const char *name;      /**< "" when unknown                            */
    const char *type_name; /**< "float*", "uint4"; "" when unknown         */
} kiln_param_info;

/** The number of the kernel's parameters. */
kiln_status kiln_kernel_get_param_count(const kiln_kernel *kernel,
                                        size_t *count);
/** The function behind kiln_kernel_get_param_info: `info_size` is sizeof
 * the caller's struct, which the macro passes. */
kiln_status kiln_kernel_get_param_info_sized(const kiln_kernel *kernel,
                                             size_t index,
                                             kiln_param_info *info,
                                             size_t info_size);
/** Describes the kernel's parameter `index`: kind, size, name and type.
 * @code
 * kiln_status kiln_kernel_get_param_info(const kiln_kernel *kernel,
 *                                        size_t index, kiln_param_info *info);
 * @endcode
 * Strings stay valid while the kernel lives.
 * @retval KILN_ERR_INVALID_ARGUMENT `index` is not below the parameter
 * count. */
#define kiln_kernel_get_param_info(kernel, index, info) \
    kiln_kernel_get_param_info_sized((kernel), (index), (info), sizeof *(info))
/** The most threads per block this kernel can be launched with on its
 * device, its registers and reqd_work_group_size considered. */
kiln_status kiln_kernel_get_max_block_size(const kiln_kernel *kernel,
                                           size_t *threads);

/** @} */

/* ------------------------------------------------------------------------ */
/* Launching                                                                */
/* ------------------------------------------------------------------------ */
/** @defgroup launching Launching
 * Launches on a grid of blocks, with arguments that carry their type and
 * are checked against the kernel's parameters before anything is queued.
 * @{ */

/** What a kernel argument (kiln_arg) carries. */
typedef enum kiln_arg_kind {
    KILN_ARG_KIND_BUFFER = 1, /**< .buffer                                  */
    KILN_ARG_KIND_VALUE,      /**< a typed scalar, or .size raw bytes at .value */
    KILN_ARG_KIND_LOCAL,      /**< .size bytes of local (shared) memory     */
    KILN_ARG_KIND_IN,         /**< host .host of .size bytes copied in before */
    KILN_ARG_KIND_OUT,        /**< ... copied out after the launch          */
    KILN_ARG_KIND_INOUT       /**< ... both                                 */
} kiln_arg_kind;

/** The C type a value argument carries.  A typed value must match the
 * kernel's parameter: an integer for an integer type, floating point for
 * float / double (signedness is not compared), of the parameter's size;
 * otherwise the launch is KILN_ERR_ARGUMENT_TYPE naming the parameter and
 * both types.  Raw bytes (KILN_ARG_VALUE) are checked by size only, as are
 * parameters whose type Kiln cannot name (native CUDA C, typedefs). */
typedef enum kiln_scalar_type {
    KILN_SCALAR_NONE = 0, /**< raw bytes                                    */
    KILN_SCALAR_CHAR,     /**< int8_t   'c'                                 */
    KILN_SCALAR_UCHAR,    /**< uint8_t  'C'                                 */
    KILN_SCALAR_SHORT,    /**< int16_t  'h'                                 */
    KILN_SCALAR_USHORT,   /**< uint16_t 'H'                                 */
    KILN_SCALAR_INT,      /**< int32_t  'i'                                 */
    KILN_SCALAR_UINT,     /**< uint32_t 'I'                                 */
    KILN_SCALAR_LONG,     /**< int64_t  'l'                                 */
    KILN_SCALAR_ULONG,    /**< uint64_t 'L'                                 */
    KILN_SCALAR_SIZE,     /**< size_t   'z'                                 */
    KILN_SCALAR_FLOAT,    /**< float    'f'                                 */
    KILN_SCALAR_DOUBLE    /**< double   'd'                                 */
} kiln_scalar_type;

/** One launch argument.  Build it with the KILN_ARG_* constructors below (C
 * and C++); its layout is fixed for 1.x, as arrays of it are passed. */
typedef struct kiln_arg {
    kiln_arg_kind kind;      /**< what it carries                         */
    size_t size;             /**< bytes: value, local memory or host array */
    const void *value;       /**< raw VALUE bytes; NULL for typed scalars */
    kiln_buffer *buffer;     /**< BUFFER                                  */
    void *host;              /**< IN, OUT, INOUT: the host array          */
    kiln_scalar_type type;   /**< VALUE: KILN_SCALAR_NONE for raw bytes   */
    /** VALUE: a typed scalar, stored in the argument. */
    union {
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        size_t z;
        float f;
        double d;
    } scalar;
} kiln_arg;

/* Argument constructors (documented on the C definitions below, which
 * Doxygen reads).  Typed scalars keep their value inside the
 * kiln_arg, so they need no storage of their own; KILN_ARG_VALUE points at
 * the caller's bytes, which must live until the launch call returns.  In C
 * they are compound literals (usable in static initialisers too); in C++
 * inline functions. */
#ifdef __cplusplus
static inline kiln_arg kiln_arg_make_(kiln_arg_kind kind, size_t size,
                                      const void *value, kiln_buffer *buffer,
                                      void *host, kiln_scalar_type type)
{
    kiln_arg arg = {kind, size, value, buffer, host, type, {0}};
    return arg;
}
#define KILN_ARG_SCALAR_(member, ctype, scalar_type)                          \
    static inline kiln_arg kiln_arg_##member##_(ctype x)                      \
    {                                                                         \
        kiln_arg arg = kiln_arg_make_(KILN_ARG_KIND_VALUE, sizeof(ctype),     \
                                      NULL, NULL, NULL, scalar_type);         \
        arg.scalar.member = x;                                                \
        return arg;                                                           \
    }
KILN_ARG_SCALAR_(i8, int8_t, KILN_SCALAR_CHAR)
KILN_ARG_SCALAR_(u8, uint8_t, KILN_SCALAR_UCHAR)
KILN_ARG_SCALAR_(i16, int16_t, KILN_SCALAR_SHORT)
KILN_ARG_SCALAR_(u16, uint16_t, KILN_SCALAR_USHORT)
KILN_ARG_SCALAR_(i32, int32_t, KILN_SCALAR_INT)
KILN_ARG_SCALAR_(u32, uint32_t, KILN_SCALAR_UINT)
KILN_ARG_SCALAR_(i64, int64_t, KILN_SCALAR_LONG)
KILN_ARG_SCALAR_(u64, uint64_t, KILN_SCALAR_ULONG)
KILN_ARG_SCALAR_(z, size_t, KILN_SCALAR_SIZE)
KILN_ARG_SCALAR_(f, float, KILN_SCALAR_FLOAT)
KILN_ARG_SCALAR_(d, double, KILN_SCALAR_DOUBLE)
#undef KILN_ARG_SCALAR_
#define KILN_ARG_BUFFER(b) \
    kiln_arg_make_(KILN_ARG_KIND_BUFFER, 0, NULL, (b), NULL, KILN_SCALAR_NONE)
#define KILN_ARG_VALUE(pointer, bytes)                                       \
    kiln_arg_make_(KILN_ARG_KIND_VALUE, (bytes), (pointer), NULL, NULL,      \
                   KILN_SCALAR_NONE)
#define KILN_ARG_LOCAL(bytes) \
    kiln_arg_make_(KILN_ARG_KIND_LOCAL, (bytes), NULL, NULL, NULL, KILN_SCALAR_NONE)
#define KILN_ARG_HOST_(kind, pointer, bytes)                                 \
    kiln_arg_make_(kind, (bytes), NULL, NULL,                                \
                   const_cast<void *>(static_cast<const void *>(pointer)),   \
                   KILN_SCALAR_NONE)
#else
/** A buffer argument, for a __global or __constant pointer parameter.
 * @code
 * kiln_arg KILN_ARG_BUFFER(kiln_buffer *buffer);
 * @endcode */
#define KILN_ARG_BUFFER(b) \
    ((kiln_arg){.kind = KILN_ARG_KIND_BUFFER, .buffer = (b)})
/** Raw bytes by value (a struct, a vector), checked by size only.
 * @code
 * kiln_arg KILN_ARG_VALUE(const void *pointer, size_t bytes);
 * @endcode
 * The bytes are the caller's and must live until the launch call
 * returns. */
#define KILN_ARG_VALUE(pointer, bytes) \
    ((kiln_arg){.kind = KILN_ARG_KIND_VALUE, .size = (bytes), .value = (pointer)})
/** `bytes` of local (shared) memory, for a __local pointer parameter.
 * @code
 * kiln_arg KILN_ARG_LOCAL(size_t bytes);
 * @endcode */
#define KILN_ARG_LOCAL(bytes) \
    ((kiln_arg){.kind = KILN_ARG_KIND_LOCAL, .size = (bytes)})
/** @cond internal */
#define KILN_ARG_HOST_(arg_kind, pointer, bytes) \
    ((kiln_arg){.kind = (arg_kind), .size = (bytes), .host = (void *)(pointer)})
#define KILN_ARG_SCALAR_(member, ctype, scalar_type, x)                     \
    ((kiln_arg){.kind = KILN_ARG_KIND_VALUE, .size = sizeof(ctype),         \
                .type = (scalar_type), .scalar = {.member = (x)}})
/** @endcond */
#endif
#ifdef __cplusplus
#define KILN_ARG_CHAR(x) kiln_arg_i8_(x)
#define KILN_ARG_UCHAR(x) kiln_arg_u8_(x)
#define KILN_ARG_SHORT(x) kiln_arg_i16_(x)
#define KILN_ARG_USHORT(x) kiln_arg_u16_(x)
#define KILN_ARG_INT(x) kiln_arg_i32_(x)
#define KILN_ARG_UINT(x) kiln_arg_u32_(x)
#define KILN_ARG_LONG(x) kiln_arg_i64_(x)
#define KILN_ARG_ULONG(x) kiln_arg_u64_(x)
#define KILN_ARG_SIZE(x) kiln_arg_z_(x)
#define KILN_ARG_FLOAT(x) kiln_arg_f_(x)
#define KILN_ARG_DOUBLE(x) kiln_arg_d_(x)
#else
/** An int8_t value, for a char parameter.
 * @code
 * kiln_arg KILN_ARG_CHAR(int8_t x);
 * @endcode */
#define KILN_ARG_CHAR(x) KILN_ARG_SCALAR_(i8, int8_t, KILN_SCALAR_CHAR, x)
/** A uint8_t value, for a uchar / unsigned char parameter.
 * @code
 * kiln_arg KILN_ARG_UCHAR(uint8_t x);
 * @endcode */
#define KILN_ARG_UCHAR(x) KILN_ARG_SCALAR_(u8, uint8_t, KILN_SCALAR_UCHAR, x)
/** An int16_t value, for a short parameter.
 * @code
 * kiln_arg KILN_ARG_SHORT(int16_t x);
 * @endcode */
#define KILN_ARG_SHORT(x) KILN_ARG_SCALAR_(i16, int16_t, KILN_SCALAR_SHORT, x)
/** A uint16_t value, for a ushort / unsigned short parameter.
 * @code
 * kiln_arg KILN_ARG_USHORT(uint16_t x);
 * @endcode */
#define KILN_ARG_USHORT(x) KILN_ARG_SCALAR_(u16, uint16_t, KILN_SCALAR_USHORT, x)
/** An int32_t value, for an int parameter.
 * @code
 * kiln_arg KILN_ARG_INT(int32_t x);
 * @endcode */
#define KILN_ARG_INT(x) KILN_ARG_SCALAR_(i32, int32_t, KILN_SCALAR_INT, x)
/** A uint32_t value, for a uint / unsigned int parameter.
 * @code
 * kiln_arg KILN_ARG_UINT(uint32_t x);
 * @endcode */
#define KILN_ARG_UINT(x) KILN_ARG_SCALAR_(u32, uint32_t, KILN_SCALAR_UINT, x)
/** An int64_t value, for an OpenCL long or CUDA long long parameter.
 * @code
 * kiln_arg KILN_ARG_LONG(int64_t x);
 * @endcode */
#define KILN_ARG_LONG(x) KILN_ARG_SCALAR_(i64, int64_t, KILN_SCALAR_LONG, x)
/** A uint64_t value, for an OpenCL ulong or CUDA unsigned long long parameter.
 * @code
 * kiln_arg KILN_ARG_ULONG(uint64_t x);
 * @endcode */
#define KILN_ARG_ULONG(x) KILN_ARG_SCALAR_(u64, uint64_t, KILN_SCALAR_ULONG, x)
/** A size_t value, for a size_t parameter.
 * @code
 * kiln_arg KILN_ARG_SIZE(size_t x);
 * @endcode */
#define KILN_ARG_SIZE(x) KILN_ARG_SCALAR_(z, size_t, KILN_SCALAR_SIZE, x)
/** A float value, for a float parameter.
 * @code
 * kiln_arg KILN_ARG_FLOAT(float x);
 * @endcode */
#define KILN_ARG_FLOAT(x) KILN_ARG_SCALAR_(f, float, KILN_SCALAR_FLOAT, x)
/** A double value, for a double parameter.
 * @code
 * kiln_arg KILN_ARG_DOUBLE(double x);
 * @endcode */
#define KILN_ARG_DOUBLE(x) KILN_ARG_SCALAR_(d, double, KILN_SCALAR_DOUBLE, x)
#endif
/** A host array copied to a device buffer before the launch (PyCUDA's In).
 * @code
 * kiln_arg KILN_ARG_IN(const void *host, size_t bytes);
 * @endcode */
#define KILN_ARG_IN(pointer, bytes) KILN_ARG_HOST_(KILN_ARG_KIND_IN, pointer, bytes)
/** A host array that receives a device buffer after the launch (PyCUDA's
 * Out): the launch waits for the kernel.
 * @code
 * kiln_arg KILN_ARG_OUT(void *host, size_t bytes);
 * @endcode */
#define KILN_ARG_OUT(pointer, bytes) KILN_ARG_HOST_(KILN_ARG_KIND_OUT, pointer, bytes)
/** A host array copied in before the launch and out after it (PyCUDA's
 * InOut): the launch waits for the kernel.
 * @code
 * kiln_arg KILN_ARG_INOUT(void *host, size_t bytes);
 * @endcode */
#define KILN_ARG_INOUT(pointer, bytes) \
    KILN_ARG_HOST_(KILN_ARG_KIND_INOUT, pointer, bytes)

/** Grid (blocks) and block (threads per block) sizes.  Every component must
 * be at least 1: use 1 for unused dimensions. */
typedef struct kiln_dim3 {
    size_t x; /**< first dimension                                        */
    size_t y; /**< second dimension; 1 when unused                         */
    size_t z; /**< third dimension; 1 when unused                          */
} kiln_dim3;
#ifdef __cplusplus
static inline kiln_dim3 kiln_dim3_make_(size_t x, size_t y, size_t z)
{
    kiln_dim3 dim = {x, y, z};
    return dim;
}
#define KILN_DIM3(x, y, z) kiln_dim3_make_((x), (y), (z))
#else
/** A three-dimensional size.
 * @code
 * kiln_dim3 KILN_DIM3(size_t x, size_t y, size_t z);
 * @endcode */
#define KILN_DIM3(x, y, z) ((kiln_dim3){(x), (y), (z)})
#endif
/** A one-dimensional size: KILN_DIM3(x, 1, 1).
 * @code
 * kiln_dim3 KILN_DIM1(size_t x);
 * @endcode */
#define KILN_DIM1(x) KILN_DIM3((x), 1, 1)
/** A two-dimensional size: KILN_DIM3(x, y, 1).
 * @code
 * kiln_dim3 KILN_DIM2(size_t x, size_t y);
 * @endcode */
#define KILN_DIM2(x, y) KILN_DIM3((x), (y), 1)

/** How to launch a kernel: grid, block, dynamic shared memory, stream.
 * Zero-initialise it and set what you need. */
typedef struct kiln_launch_config {
    size_t struct_size;      /**< 0 or sizeof(kiln_launch_config): see the
                                  conventions at the top                  */
    kiln_dim3 grid;          /**< blocks; OpenCL global size = grid * block  */
    kiln_dim3 block;         /**< threads per block (work-group size)     */
    size_t local_memory;     /**< dynamic shared memory of CUDA C kernels
                                  (extern __shared__), on every backend;
                                  OpenCL C kernels take KILN_ARG_LOCAL
                                  arguments                               */
    kiln_stream *stream;     /**< NULL: the context's default stream      */
    float *time_ms;          /**< non-NULL: time the kernel with events,
                                  wait for it, and store its device time  */
    unsigned dimensions;     /**< work dimensions the kernel sees
                                  (get_work_dim()): 1, 2 or 3, the grid and
                                  block being 1 past them; 0: the fewest that
                                  hold the launch (a 2-D launch of N x 1
                                  needs 2 here)                            */
} kiln_launch_config;

/** Launches `kernel` with `arg_count` arguments.
 * Asynchronous unless the config asks for timing or an argument is
 * KILN_ARG_OUT/INOUT (the copy back waits).  The argument list is checked
 * against the kernel's parameters, and grid and block against the device
 * and kernel limits, before anything is queued.  Faults inside the kernel
 * surface at the next synchronizing call as KILN_ERR_KERNEL_FAULT.
 * @retval KILN_ERR_ARGUMENT_COUNT the kernel takes another number of
 * arguments.
 * @retval KILN_ERR_ARGUMENT_KIND a buffer where a value is needed, or the
 * like (the parameter is named).
 * @retval KILN_ERR_ARGUMENT_SIZE a value of another size than its
 * parameter's.
 * @retval KILN_ERR_ARGUMENT_TYPE a typed scalar for a parameter of another
 * type (KILN_ARG_INT for a float).
 * @retval KILN_ERR_INVALID_LAUNCH a grid or block dimension of 0 or over
 * the device's or kernel's limits, or too much local memory.
 * @retval KILN_ERR_CONTEXT_MISMATCH a buffer or the stream of another
 * context.
 * @retval KILN_ERR_KERNEL_FAULT with KILN_CHECK_BOUNDS, the kernel wrote
 * past a buffer (kernel, argument and bytes named); or a timed or copying
 * launch whose kernel faulted. */
kiln_status kiln_launch(kiln_kernel *kernel, const kiln_launch_config *config,
                        size_t arg_count, const kiln_arg *args);

/** Launches with a type string and C varargs, in the spirit of PyCUDA's
 * prepared_call.
 * One character per argument:
 * @code
 *   P    kiln_buffer *
 *   c C  int8_t / uint8_t     (passed as int)
 *   h H  int16_t / uint16_t   (passed as int)
 *   i I  int32_t / uint32_t
 *   l L  int64_t / uint64_t   (OpenCL long / ulong)
 *   z    size_t
 *   f    float (passed as double by C's varargs rules: write 2.0, not 2)
 *   d    double
 *   S    size_t: bytes of local memory for a __local parameter
 *   <    In:    const void *host, size_t bytes
 *   >    Out:   void *host, size_t bytes
 *   =    InOut: void *host, size_t bytes
 * @endcode
 * Spaces are ignored.  The characters carry their type, checked as typed
 * constructors are; then as kiln_launch.
 * @retval KILN_ERR_INVALID_ARGUMENT an unknown character (its position is
 * named).
 * @retval KILN_ERR_ARGUMENT_TYPE a character for a parameter of another
 * type.
 * @retval KILN_ERR_ARGUMENT_COUNT, KILN_ERR_ARGUMENT_KIND,
 * KILN_ERR_ARGUMENT_SIZE, KILN_ERR_INVALID_LAUNCH as for kiln_launch. */
kiln_status kiln_launch_prepared(kiln_kernel *kernel,
                                 const kiln_launch_config *config,
                                 const char *types, ...);
/** kiln_launch_prepared with a va_list, for wrappers of their own. */
kiln_status kiln_launch_prepared_v(kiln_kernel *kernel,
                                   const kiln_launch_config *config,
                                   const char *types, va_list values);

/** Parses a type string once and checks it against the kernel's
 * parameters: PyCUDA's prepare.
 * Count, kinds and types are checked now, so that
 * kiln_launch_prepared_call only reads the values.  Preparing again
 * replaces the types.  The characters are kiln_launch_prepared's.
 * @retval KILN_ERR_INVALID_ARGUMENT an unknown character.
 * @retval KILN_ERR_ARGUMENT_COUNT, KILN_ERR_ARGUMENT_KIND,
 * KILN_ERR_ARGUMENT_SIZE, KILN_ERR_ARGUMENT_TYPE the string does not fit
 * the kernel's parameters. */
kiln_status kiln_kernel_prepare(kiln_kernel *kernel, const char *types);
/** Launches a prepared kernel with the values of its prepared types, in
 * order: PyCUDA's prepared_call.
 * @retval KILN_ERR_INVALID_ARGUMENT the kernel was never prepared
 * (kiln_kernel_prepare).
 * @retval KILN_ERR_INVALID_LAUNCH as for kiln_launch. */
kiln_status kiln_launch_prepared_call(kiln_kernel *kernel,
                                      const kiln_launch_config *config, ...);
/** kiln_launch_prepared_call with a va_list. */
kiln_status kiln_launch_prepared_call_v(kiln_kernel *kernel,
                                        const kiln_launch_config *config,
                                        va_list values);

/** kiln_launch_prepared with the C types of the values as the caller's
 * compiler saw them: what the kiln_launch_prepared macro calls in C11.
 * `c_types` holds one letter per argument after `config` (the type
 * string's own first): 'i' an integer of 4 bytes or less, 'l' one of 8,
 * 'd' a float or double, 'D' a long double, 'B' a kiln_buffer pointer,
 * 'v' a void pointer, '?' anything else.
 * @retval KILN_ERR_ARGUMENT_TYPE a value whose C type is not the one its
 * character reads (an int for 'f', an int for the bytes of '<').
 * @retval KILN_ERR_ARGUMENT_COUNT more or fewer values than the type
 * string takes.
 * Otherwise as kiln_launch_prepared. */
kiln_status kiln_launch_prepared_checked(kiln_kernel *kernel,
                                         const kiln_launch_config *config,
                                         const char *c_types,
                                         const char *types, ...);
/** kiln_launch_prepared_call with the C types of `config` and the values
 * (kiln_launch_prepared_checked's letters): what the
 * kiln_launch_prepared_call macro calls in C11. */
kiln_status kiln_launch_prepared_call_checked(kiln_kernel *kernel,
                                              const char *c_types,
                                              const kiln_launch_config *config,
                                              ...);

/* ---- the C types of a prepared launch's values (C11, not C++) ---------
 * kiln_launch_prepared and kiln_launch_prepared_call are macros in C11 that
 * pass, with the values, one character per value saying its C type after
 * C's argument promotions (_Generic, which evaluates nothing): 'i' an
 * integer of 4 bytes or less, 'l' one of 8, 'd' float or double, 'D' long
 * double, 'B' a kiln_buffer pointer, 'v' a void pointer, '?' anything
 * else.  The library then refuses a value that does not have the type its
 * character reads (an int for "f": C's va_arg would read a double that
 * was never passed) with KILN_ERR_ARGUMENT_TYPE, and a count of values
 * the type string does not take with KILN_ERR_ARGUMENT_COUNT.  Define
 * KILN_NO_PREPARED_CHECK for the plain functions. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    !defined(__cplusplus) && !defined(KILN_NO_PREPARED_CHECK)
#define KILN_C_TYPE_(x)                                                        \
    _Generic((x), _Bool: 'i', char: 'i', signed char: 'i',                    \
             unsigned char: 'i', short: 'i', unsigned short: 'i', int: 'i',  \
             unsigned int: 'i', long: (sizeof(long) == 8 ? 'l' : 'i'),      \
             unsigned long: (sizeof(long) == 8 ? 'l' : 'i'),                \
             long long: 'l', unsigned long long: 'l', float: 'd',           \
             double: 'd', long double: 'D', kiln_buffer *: 'B',              \
             void *: 'v', const void *: 'v', default: '?')
#define KILN_COUNT_N_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \
    _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, \
    _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, \
    _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, \
    _59, _60, _61, _62, _63, _64, _65, N, ...) N
#define KILN_COUNT_(...) KILN_COUNT_N_(__VA_ARGS__, 65, 64, 63, 62, 61, 60, 59, 58, 57, \
    56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, \
    39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, \
    22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, \
    3, 2, 1, 0)
#define KILN_CAT_(a, b) a##b
#define KILN_CAT2_(a, b) KILN_CAT_(a, b)
#define KILN_C_TYPES_1(a) KILN_C_TYPE_(a)
#define KILN_C_TYPES_2(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_1(__VA_ARGS__)
#define KILN_C_TYPES_3(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_2(__VA_ARGS__)
#define KILN_C_TYPES_4(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_3(__VA_ARGS__)
#define KILN_C_TYPES_5(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_4(__VA_ARGS__)
#define KILN_C_TYPES_6(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_5(__VA_ARGS__)
#define KILN_C_TYPES_7(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_6(__VA_ARGS__)
#define KILN_C_TYPES_8(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_7(__VA_ARGS__)
#define KILN_C_TYPES_9(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_8(__VA_ARGS__)
#define KILN_C_TYPES_10(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_9(__VA_ARGS__)
#define KILN_C_TYPES_11(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_10(__VA_ARGS__)
#define KILN_C_TYPES_12(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_11(__VA_ARGS__)
#define KILN_C_TYPES_13(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_12(__VA_ARGS__)
#define KILN_C_TYPES_14(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_13(__VA_ARGS__)
#define KILN_C_TYPES_15(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_14(__VA_ARGS__)
#define KILN_C_TYPES_16(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_15(__VA_ARGS__)
#define KILN_C_TYPES_17(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_16(__VA_ARGS__)
#define KILN_C_TYPES_18(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_17(__VA_ARGS__)
#define KILN_C_TYPES_19(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_18(__VA_ARGS__)
#define KILN_C_TYPES_20(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_19(__VA_ARGS__)
#define KILN_C_TYPES_21(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_20(__VA_ARGS__)
#define KILN_C_TYPES_22(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_21(__VA_ARGS__)
#define KILN_C_TYPES_23(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_22(__VA_ARGS__)
#define KILN_C_TYPES_24(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_23(__VA_ARGS__)
#define KILN_C_TYPES_25(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_24(__VA_ARGS__)
#define KILN_C_TYPES_26(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_25(__VA_ARGS__)
#define KILN_C_TYPES_27(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_26(__VA_ARGS__)
#define KILN_C_TYPES_28(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_27(__VA_ARGS__)
#define KILN_C_TYPES_29(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_28(__VA_ARGS__)
#define KILN_C_TYPES_30(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_29(__VA_ARGS__)
#define KILN_C_TYPES_31(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_30(__VA_ARGS__)
#define KILN_C_TYPES_32(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_31(__VA_ARGS__)
#define KILN_C_TYPES_33(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_32(__VA_ARGS__)
#define KILN_C_TYPES_34(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_33(__VA_ARGS__)
#define KILN_C_TYPES_35(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_34(__VA_ARGS__)
#define KILN_C_TYPES_36(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_35(__VA_ARGS__)
#define KILN_C_TYPES_37(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_36(__VA_ARGS__)
#define KILN_C_TYPES_38(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_37(__VA_ARGS__)
#define KILN_C_TYPES_39(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_38(__VA_ARGS__)
#define KILN_C_TYPES_40(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_39(__VA_ARGS__)
#define KILN_C_TYPES_41(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_40(__VA_ARGS__)
#define KILN_C_TYPES_42(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_41(__VA_ARGS__)
#define KILN_C_TYPES_43(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_42(__VA_ARGS__)
#define KILN_C_TYPES_44(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_43(__VA_ARGS__)
#define KILN_C_TYPES_45(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_44(__VA_ARGS__)
#define KILN_C_TYPES_46(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_45(__VA_ARGS__)
#define KILN_C_TYPES_47(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_46(__VA_ARGS__)
#define KILN_C_TYPES_48(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_47(__VA_ARGS__)
#define KILN_C_TYPES_49(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_48(__VA_ARGS__)
#define KILN_C_TYPES_50(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_49(__VA_ARGS__)
#define KILN_C_TYPES_51(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_50(__VA_ARGS__)
#define KILN_C_TYPES_52(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_51(__VA_ARGS__)
#define KILN_C_TYPES_53(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_52(__VA_ARGS__)
#define KILN_C_TYPES_54(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_53(__VA_ARGS__)
#define KILN_C_TYPES_55(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_54(__VA_ARGS__)
#define KILN_C_TYPES_56(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_55(__VA_ARGS__)
#define KILN_C_TYPES_57(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_56(__VA_ARGS__)
#define KILN_C_TYPES_58(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_57(__VA_ARGS__)
#define KILN_C_TYPES_59(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_58(__VA_ARGS__)
#define KILN_C_TYPES_60(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_59(__VA_ARGS__)
#define KILN_C_TYPES_61(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_60(__VA_ARGS__)
#define KILN_C_TYPES_62(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_61(__VA_ARGS__)
#define KILN_C_TYPES_63(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_62(__VA_ARGS__)
#define KILN_C_TYPES_64(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_63(__VA_ARGS__)
#define KILN_C_TYPES_65(a, ...) KILN_C_TYPE_(a), KILN_C_TYPES_64(__VA_ARGS__)
#define KILN_C_TYPES_(...)                                                    \
    ((const char[]){KILN_CAT2_(KILN_C_TYPES_,                       \
                               KILN_COUNT_(__VA_ARGS__))(__VA_ARGS__),   \
                    '\0'})
#define kiln_launch_prepared(kernel, config, ...)                             \
    kiln_launch_prepared_checked((kernel), (config),                          \
                                 KILN_C_TYPES_(__VA_ARGS__), __VA_ARGS__)
#define kiln_launch_prepared_call(kernel, ...)                                \
    kiln_launch_prepared_call_checked((kernel), KILN_C_TYPES_(__VA_ARGS__),   \
                                      __VA_ARGS__)
#endif


/** An argument list built up step by step, for programs that assemble
 * arguments in loops (kiln_args_create).  Values are copied into the
 * list. */
typedef struct kiln_args kiln_args;
/** Creates an empty argument list. */
kiln_status kiln_args_create(kiln_args **args);
/** Frees an argument list (it holds no references to buffers). */
kiln_status kiln_args_release(kiln_args *args);
/** Empties the list, to fill it again. */
kiln_status kiln_args_clear(kiln_args *args);
/** Appends a copy of `arg` (any KILN_ARG_* constructor's value). */
kiln_status kiln_args_add(kiln_args *args, kiln_arg arg);
/** Appends a buffer argument, as KILN_ARG_BUFFER. */
kiln_status kiln_args_add_buffer(kiln_args *args, kiln_buffer *buffer);
/** Appends a copy of `size` raw bytes by value, as KILN_ARG_VALUE. */
kiln_status kiln_args_add_value(kiln_args *args, const void *value,
                                size_t size);
/** Appends `size` bytes of local memory, as KILN_ARG_LOCAL. */
kiln_status kiln_args_add_local(kiln_args *args, size_t size);
/** Appends a host array: `kind` is KILN_ARG_KIND_IN, _OUT or _INOUT.
 * @retval KILN_ERR_INVALID_ARGUMENT another kind. */
kiln_status kiln_args_add_host(kiln_args *args, kiln_arg_kind kind,
                               void *host, size_t size);
/** Appends an int32_t, as KILN_ARG_INT. */
kiln_status kiln_args_add_int(kiln_args *args, int32_t value);
/** Appends a uint32_t, as KILN_ARG_UINT. */
kiln_status kiln_args_add_uint(kiln_args *args, uint32_t value);
/** Appends an int64_t, as KILN_ARG_LONG. */
kiln_status kiln_args_add_long(kiln_args *args, int64_t value);
/** Appends a uint64_t, as KILN_ARG_ULONG. */
kiln_status kiln_args_add_ulong(kiln_args *args, uint64_t value);
/** Appends a float, as KILN_ARG_FLOAT. */
kiln_status kiln_args_add_float(kiln_args *args, float value);
/** Appends a double, as KILN_ARG_DOUBLE. */
kiln_status kiln_args_add_double(kiln_args *args, double value);
/** The number of arguments in the list. */
kiln_status kiln_args_get_count(const kiln_args *args, size_t *count);
/** Launches `kernel` with the list's arguments, as kiln_launch.
 * @retval KILN_ERR_ARGUMENT_COUNT, KILN_ERR_ARGUMENT_KIND,
 * KILN_ERR_ARGUMENT_SIZE, KILN_ERR_ARGUMENT_TYPE, KILN_ERR_INVALID_LAUNCH
 * as for kiln_launch. */
kiln_status kiln_launch_args(kiln_kernel *kernel,
                             const kiln_launch_config *config,
                             const kiln_args *args);

/** @} */

/* ------------------------------------------------------------------------ */
/* The kernel cache                                                         */
/* ------------------------------------------------------------------------ */
/** @defgroup cache The kernel cache
 * Compiled programs are kept on disk (and in memory per context): a build
 * of the same source, options and device loads its binary instead of
 * compiling again.
 * @{ */

/** Where the on-disk kernel cache is and what it holds
 * (kiln_cache_get_info). */
typedef struct kiln_cache_info {
    int enabled;              /**< KILN_CACHE != 0 and a usable directory  */
    char directory[4096];     /**< "" when none could be chosen             */
    uint64_t entries;         /**< compiled programs kept                   */
    uint64_t bytes;           /**< their size on disk                       */
    uint64_t limit_bytes;     /**< KILN_CACHE_MAX_MB                        */
} kiln_cache_info;

/** The function behind kiln_cache_get_info: `info_size` is sizeof the
 * caller's struct, which the macro passes. */
kiln_status kiln_cache_get_info_sized(kiln_cache_info *info, size_t info_size);
/** Where the on-disk kernel cache is and what it holds.
 * @code
 * kiln_status kiln_cache_get_info(kiln_cache_info *info);
 * @endcode */
#define kiln_cache_get_info(info) \
    kiln_cache_get_info_sized((info), sizeof *(info))
/** Deletes every entry of the on-disk kernel cache (`kiln-info
 * --clear-cache`). */
kiln_status kiln_cache_clear(void);

/** @} */

/* ------------------------------------------------------------------------ */
/* Native handles, for interoperation with code that uses the vendor API    */
/* ------------------------------------------------------------------------ */
/** @defgroup native Native handles, for code that uses the vendor API
 * The CUDA or OpenCL handles behind Kiln's objects.
 * @{ */

/** Writes the context's native handle into `out`, which must be `size`
 * bytes, the handle's own size.
 * Each of these getters writes one native handle:
 * @code
 *   context: CUcontext (the device's primary context) / cl_context
 *   device:  CUdevice / cl_device_id
 *   stream:  CUstream / cl_command_queue
 *   buffer:  CUdeviceptr / cl_mem
 *   event:   CUevent / cl_event (NULL until recorded on OpenCL)
 *   kernel:  CUfunction / cl_kernel
 * @endcode
 * The handles stay owned by Kiln.
 * @retval KILN_ERR_INVALID_ARGUMENT `size` is not the handle's size. */
kiln_status kiln_context_get_native(const kiln_context *context, void *out,
                                    size_t size);
/** Writes the context's device as a native handle into `out` (`size`
 * bytes): CUdevice or cl_device_id.
 * The handle stays owned by Kiln.  See kiln_context_get_native for the
 * types.
 * @retval KILN_ERR_INVALID_ARGUMENT `size` is not the handle's size. */
kiln_status kiln_context_get_native_device(const kiln_context *context,
                                           void *out, size_t size);
/** Writes the stream's native handle into `out` (`size` bytes): CUstream
 * or cl_command_queue.
 * The handle stays owned by Kiln.  See kiln_context_get_native for the
 * types.
 * @retval KILN_ERR_INVALID_ARGUMENT `size` is not the handle's size. */
kiln_status kiln_stream_get_native(const kiln_stream *stream, void *out,
                                   size_t size);
/** Writes the buffer's native handle into `out` (`size` bytes):
 * CUdeviceptr or cl_mem.
 * The handle stays owned by Kiln.  See kiln_context_get_native for the
 * types.
 * @retval KILN_ERR_INVALID_ARGUMENT `size` is not the handle's size. */
kiln_status kiln_buffer_get_native(const kiln_buffer *buffer, void *out,
                                   size_t size);
/** Writes the event's native handle into `out` (`size` bytes): CUevent or
 * cl_event (NULL until recorded on OpenCL).
 * The handle stays owned by Kiln.  See kiln_context_get_native for the
 * types.
 * @retval KILN_ERR_INVALID_ARGUMENT `size` is not the handle's size. */
kiln_status kiln_event_get_native(const kiln_event *event, void *out,
                                  size_t size);
/** Writes the kernel's native handle into `out` (`size` bytes):
 * CUfunction or cl_kernel.
 * The handle stays owned by Kiln.  See kiln_context_get_native for the
 * types.
 * @retval KILN_ERR_INVALID_ARGUMENT `size` is not the handle's size. */
kiln_status kiln_kernel_get_native(const kiln_kernel *kernel, void *out,
                                   size_t size);

/** @} */

/* ------------------------------------------------------------------------ */
/* The 0.1 names, kept for one release (docs/API-1.0.md has the table)      */
/* ------------------------------------------------------------------------ */

#ifndef KILN_NO_DEPRECATED
#define KILN_RENAMED_(old, new_name, result, params, args)                    \
    KILN_DEPRECATED("renamed to " #new_name " in Kiln 1.0")                   \
    static inline result old params { return new_name args; }
KILN_RENAMED_(kiln_backend_count, kiln_backend_get_count, kiln_status,
              (size_t *count), (count))
KILN_RENAMED_(kiln_backend_default, kiln_backend_get_default, kiln_status,
              (const char **name), (name))
KILN_RENAMED_(kiln_device_count, kiln_device_get_count, kiln_status,
              (const char *backend, int *count), (backend, count))
KILN_RENAMED_(kiln_context_backend, kiln_context_get_backend, kiln_status,
              (const kiln_context *context, const char **name),
              (context, name))
KILN_RENAMED_(kiln_context_device_info, kiln_context_get_device_info,
              kiln_status,
              (const kiln_context *context, kiln_device_info *info),
              (context, info))
KILN_RENAMED_(kiln_buffer_size, kiln_buffer_get_size, kiln_status,
              (const kiln_buffer *buffer, size_t *size), (buffer, size))
KILN_RENAMED_(kiln_buffer_context, kiln_buffer_get_context, kiln_status,
              (const kiln_buffer *buffer, kiln_context **context),
              (buffer, context))
KILN_RENAMED_(kiln_program_build_log, kiln_program_get_build_log, kiln_status,
              (const kiln_program *program, const char **log), (program, log))
KILN_RENAMED_(kiln_program_origin_get, kiln_program_get_origin, kiln_status,
              (const kiln_program *program, kiln_program_origin *origin),
              (program, origin))
KILN_RENAMED_(kiln_program_kernel_count, kiln_program_get_kernel_count,
              kiln_status, (const kiln_program *program, size_t *count),
              (program, count))
KILN_RENAMED_(kiln_program_kernel_name, kiln_program_get_kernel_name,
              kiln_status,
              (const kiln_program *program, size_t index, const char **name),
              (program, index, name))
KILN_RENAMED_(kiln_kernel_name, kiln_kernel_get_name, kiln_status,
              (const kiln_kernel *kernel, const char **name), (kernel, name))
KILN_RENAMED_(kiln_kernel_param_count, kiln_kernel_get_param_count,
              kiln_status, (const kiln_kernel *kernel, size_t *count),
              (kernel, count))
KILN_RENAMED_(kiln_kernel_param_info, kiln_kernel_get_param_info, kiln_status,
              (const kiln_kernel *kernel, size_t index, kiln_param_info *info),
              (kernel, index, info))
KILN_RENAMED_(kiln_kernel_max_block_size, kiln_kernel_get_max_block_size,
              kiln_status, (const kiln_kernel *kernel, size_t *threads),
              (kernel, threads))
KILN_RENAMED_(kiln_args_count, kiln_args_get_count, kiln_status,
              (const kiln_args *args, size_t *count), (args, count))
KILN_RENAMED_(kiln_context_native, kiln_context_get_native, kiln_status,
              (const kiln_context *context, void *out, size_t size),
              (context, out, size))
KILN_RENAMED_(kiln_device_native, kiln_context_get_native_device,
              kiln_status,
              (const kiln_context *context, void *out, size_t size),
              (context, out, size))
KILN_RENAMED_(kiln_buffer_native, kiln_buffer_get_native, kiln_status,
              (const kiln_buffer *buffer, void *out, size_t size),
              (buffer, out, size))
KILN_RENAMED_(kiln_event_native, kiln_event_get_native, kiln_status,
              (const kiln_event *event, void *out, size_t size),
              (event, out, size))
KILN_RENAMED_(kiln_kernel_native, kiln_kernel_get_native, kiln_status,
              (const kiln_kernel *kernel, void *out, size_t size),
              (kernel, out, size))
#undef KILN_RENAMED_

/** 0.1's (context, stream) pairs: the stream, or NULL and the context. */
KILN_DEPRECATED("renamed to kiln_stream_get_native(stream, out, size) in "
                "Kiln 1.0")
static inline kiln_status kiln_stream_native(kiln_context *context,
                                             kiln_stream *stream, void *out,
                                             size_t size)
{
    if (stream == NULL && context != NULL) {
        kiln_status status = kiln_context_get_default_stream(context, &stream);
        if (status != KILN_OK)
            return status;
    }
    return kiln_stream_get_native(stream, out, size);
}
KILN_DEPRECATED("kiln_stream_synchronize takes the stream alone since Kiln "
                "1.0 (kiln_context_get_default_stream for the default one)")
static inline kiln_status kiln_stream_synchronize_0_1_(kiln_context *context,
                                                       kiln_stream *stream)
{
    if (stream == NULL && context != NULL) {
        kiln_status status = kiln_context_get_default_stream(context, &stream);
        if (status != KILN_OK)
            return status;
    }
    return (kiln_stream_synchronize)(stream);
}
/* kiln_stream_synchronize(stream) calls the function; the 0.1 form
 * kiln_stream_synchronize(context, stream) the deprecated wrapper. */
#define KILN_PICK_THIRD_(a, b, chosen, ...) chosen
#define kiln_stream_synchronize(...)                                          \
    KILN_PICK_THIRD_(__VA_ARGS__, kiln_stream_synchronize_0_1_,               \
                     (kiln_stream_synchronize), unused)(__VA_ARGS__)
#endif /* KILN_NO_DEPRECATED */

#ifdef __cplusplus
}
#endif

#endif /* KILN_H */
