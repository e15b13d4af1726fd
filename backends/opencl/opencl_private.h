/*
 * The OpenCL backend's private declarations: the objects behind the ABI's
 * opaque handles, and the functions its files share.  Every op is one
 * opencl_<noun>_<verb> function; opencl_backend.c puts them in the ops
 * table.
 */
#ifndef KILN_OPENCL_PRIVATE_H
#define KILN_OPENCL_PRIVATE_H

#ifdef HAVE_CONFIG_H
#include "config.h" /* _GNU_SOURCE, from AC_USE_SYSTEM_EXTENSIONS */
#elif !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* pthreads, dirent, strdup outside Automake */
#endif

/* The 3.0 headers for their query names (CL_DEVICE_PREFERRED_WORK_GROUP_
 * SIZE_MULTIPLE), but only OpenCL 1.2 calls, so that every conformant 1.2+
 * driver can serve the plugin; clCreateCommandQueue is the one call 2.0
 * deprecated, and the only one a 1.2 driver has. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "kiln_backend.h"

#if defined(__GNUC__)
#define OPENCL_INTERNAL __attribute__((visibility("hidden")))
#else
#define OPENCL_INTERNAL
#endif

/* The core's services: written by initialize, before any other op (the
 * ABI's contract), and only read afterwards. */
extern OPENCL_INTERNAL const kiln_host_api *opencl_host;

/* How event_record puts a timestamp in a queue.  Markers are the natural
 * choice, but the OpenCL spec let drivers before 3.0 leave them without
 * profiling data (some report CL_PROFILING_INFO_NOT_AVAILABLE, some 0), so
 * the first context on a device tries one; where it fails, records enqueue
 * a 4-byte clEnqueueFillBuffer on a per-queue scratch buffer instead, a
 * real command that every driver times. */
typedef enum opencl_timing {
    OPENCL_TIMING_UNKNOWN = 0,
    OPENCL_TIMING_MARKER,
    OPENCL_TIMING_FILL
} opencl_timing;

/* One device of one platform; the table is built once by initialize and
 * read-only afterwards, except `timing`. */
typedef struct opencl_device {
    cl_platform_id platform;
    cl_device_id device;
    kiln_backend_device_info info;
    cl_uint address_bits;        /* the device's size_t and pointers     */
    char identity[1024];         /* cache_identity                        */
    atomic_int timing;           /* opencl_timing, found by a context     */
} opencl_device;

/* A command queue: a Kiln stream, or the context's default one. */
struct kiln_backend_stream {
    cl_command_queue queue;
    cl_mem timer;                /* OPENCL_TIMING_FILL: 4 scratch bytes   */
    /* The context's list of its streams (guarded by the context's lock),
     * for context_synchronize. */
    struct kiln_backend_stream *previous, *next;
};

/* Page-locked host memory: a CL_MEM_ALLOC_HOST_PTR buffer kept mapped. */
typedef struct opencl_host_block {
    void *pointer;
    cl_mem buffer;
    struct opencl_host_block *next;
} opencl_host_block;

struct kiln_backend_context {
    opencl_device *device;
    cl_context context;
    kiln_backend_stream default_stream;
    pthread_mutex_t lock;        /* guards `streams` and `host_blocks`     */
    kiln_backend_stream *streams;
    opencl_host_block *host_blocks;
};

struct kiln_backend_memory {
    cl_mem buffer;
    size_t size;
};

struct kiln_backend_event {
    pthread_mutex_t lock;        /* record may race with a waiter          */
    cl_event event;              /* NULL until the first record            */
    bool untimed;                /* a marker, never a timing fill          */
};

/* What a program knows of one of its kernels.  Kept with the program
 * because clGetKernelArgInfo is not available for programs created from
 * binaries on every driver: the core saves it beside the binary. */
typedef struct opencl_signature {
    char *name;
    /* 0: the driver gave no argument info (kernel_create asks again and
     * reports why); params is then empty */
    int params_known;
    size_t param_count;
    kiln_backend_param *params;  /* name and type_name malloc'ed           */
} opencl_signature;

struct kiln_backend_program {
    cl_program program;
    size_t kernel_count;
    opencl_signature *kernels;
    /* program_kernels' answer: a view of `kernels` */
    kiln_backend_program_info info;
    kiln_backend_kernel_entry *info_kernels;
};

struct kiln_backend_kernel {
    cl_kernel kernel;
    /* An OpenCL kernel holds its arguments: setting them and enqueueing
     * must be one step when threads share the kernel. */
    pthread_mutex_t lock;
    opencl_signature signature;  /* a copy: the info the core reads        */
};

/* ---- opencl_errors.c ----------------------------------------------------- */

/* "CL_INVALID_WORK_GROUP_SIZE"; "CL_UNKNOWN_ERROR" for a code no spec or
 * registered extension defines (callers print the number too). */
OPENCL_INTERNAL const char *opencl_error_name(cl_int code);
/* The Kiln status for `code` where one is certain (host or device memory,
 * a failed command in a wait list, a queue the driver declared dead after
 * a kernel fault); `otherwise` for the rest, which the call site knows
 * best. */
OPENCL_INTERNAL kiln_status opencl_error_status(cl_int code,
                                                kiln_status otherwise);
/* Reports `code` from the call that `format` describes, as
 * "<call>: CL_NAME (<code>)", with the status opencl_error_status gives. */
OPENCL_INTERNAL kiln_status opencl_fail(cl_int code, kiln_status otherwise,
                                        const char *format, ...)
    KILN_PRINTF_LIKE(3, 4);
/* The same for a call that waited for earlier work (clFinish,
 * clWaitForEvents, a blocking transfer): there, drivers report a kernel
 * that faulted (NVIDIA: CL_OUT_OF_RESOURCES or -9999), so those become
 * KILN_ERR_KERNEL_FAULT. */
OPENCL_INTERNAL kiln_status opencl_fail_wait(cl_int code, const char *format,
                                             ...) KILN_PRINTF_LIKE(2, 3);

/* ---- opencl_device.c ----------------------------------------------------- */

/* Finds the platforms and devices (once, under the backend's lock). */
OPENCL_INTERNAL kiln_status opencl_devices_init(void);
OPENCL_INTERNAL opencl_device *opencl_device_get(int index);
OPENCL_INTERNAL const char *opencl_devices_version(void);
OPENCL_INTERNAL kiln_status opencl_device_count(int *count);
OPENCL_INTERNAL kiln_status opencl_device_info(int index,
                                               kiln_backend_device_info *info);

/* ---- opencl_context.c ---------------------------------------------------- */

OPENCL_INTERNAL kiln_status opencl_context_create(
    int device, kiln_backend_context **context);
OPENCL_INTERNAL void opencl_context_destroy(kiln_backend_context *context);
OPENCL_INTERNAL kiln_status opencl_context_synchronize(
    kiln_backend_context *context);
OPENCL_INTERNAL kiln_status opencl_context_cache_identity(
    kiln_backend_context *context, char *buffer, size_t size);
OPENCL_INTERNAL kiln_status opencl_context_native_handle(
    kiln_backend_context *context, kiln_native_kind kind, const void *object,
    void *out, size_t size);

/* ---- opencl_memory.c ----------------------------------------------------- */

OPENCL_INTERNAL kiln_status opencl_memory_alloc(kiln_backend_context *context,
                                                size_t size,
                                                kiln_backend_memory **memory);
OPENCL_INTERNAL void opencl_memory_free(kiln_backend_context *context,
                                        kiln_backend_memory *memory);
OPENCL_INTERNAL kiln_status opencl_memory_view(kiln_backend_context *context,
                                               kiln_backend_memory *memory,
                                               size_t offset, size_t size,
                                               kiln_backend_memory **view);
OPENCL_INTERNAL kiln_status opencl_memory_write(
    kiln_backend_context *context, kiln_backend_stream *stream,
    kiln_backend_memory *memory, size_t offset, const void *host, size_t size,
    int blocking);
OPENCL_INTERNAL kiln_status opencl_memory_read(
    kiln_backend_context *context, kiln_backend_stream *stream,
    kiln_backend_memory *memory, size_t offset, void *host, size_t size,
    int blocking);
OPENCL_INTERNAL kiln_status opencl_memory_copy(
    kiln_backend_context *context, kiln_backend_stream *stream,
    kiln_backend_memory *destination, size_t destination_offset,
    kiln_backend_memory *source, size_t source_offset, size_t size,
    int blocking);
OPENCL_INTERNAL kiln_status opencl_memory_fill(
    kiln_backend_context *context, kiln_backend_stream *stream,
    kiln_backend_memory *memory, size_t offset, size_t size,
    const void *pattern, size_t pattern_size, int blocking);
OPENCL_INTERNAL kiln_status opencl_host_alloc(kiln_backend_context *context,
                                              size_t size, void **host);
OPENCL_INTERNAL void opencl_host_free(kiln_backend_context *context,
                                      void *host);
/* Unmaps and releases what host_free was never called for. */
OPENCL_INTERNAL void opencl_host_free_all(kiln_backend_context *context);

/* ---- opencl_stream.c ----------------------------------------------------- */

/* The stream an op runs on: `stream`, or the context's default one. */
OPENCL_INTERNAL kiln_backend_stream *opencl_stream_resolve(
    kiln_backend_context *context, kiln_backend_stream *stream);
/* Creates `stream`'s queue (and its timer where the device needs one). */
OPENCL_INTERNAL kiln_status opencl_stream_open(kiln_backend_context *context,
                                               kiln_backend_stream *stream);
OPENCL_INTERNAL void opencl_stream_close(kiln_backend_stream *stream);
/* Finds how events are timed on the context's device, once per device. */
OPENCL_INTERNAL kiln_status opencl_timing_probe(kiln_backend_context *context);

OPENCL_INTERNAL kiln_status opencl_stream_create(kiln_backend_context *context,
                                                 unsigned flags,
                                                 kiln_backend_stream **stream);
OPENCL_INTERNAL void opencl_stream_destroy(kiln_backend_context *context,
                                           kiln_backend_stream *stream);
OPENCL_INTERNAL kiln_status opencl_stream_synchronize(
    kiln_backend_context *context, kiln_backend_stream *stream);
OPENCL_INTERNAL kiln_status opencl_stream_wait_event(
    kiln_backend_context *context, kiln_backend_stream *stream,
    kiln_backend_event *event);
OPENCL_INTERNAL kiln_status opencl_event_create(kiln_backend_context *context,
                                                unsigned flags,
                                                kiln_backend_event **event);
OPENCL_INTERNAL void opencl_event_destroy(kiln_backend_context *context,
                                          kiln_backend_event *event);
OPENCL_INTERNAL kiln_status opencl_event_record(kiln_backend_context *context,
                                                kiln_backend_event *event,
                                                kiln_backend_stream *stream);
OPENCL_INTERNAL kiln_status opencl_event_synchronize(
    kiln_backend_context *context, kiln_backend_event *event);
OPENCL_INTERNAL kiln_status opencl_event_query(kiln_backend_context *context,
                                               kiln_backend_event *event);
OPENCL_INTERNAL kiln_status opencl_event_elapsed(kiln_backend_context *context,
                                                 kiln_backend_event *start,
                                                 kiln_backend_event *end,
                                                 float *milliseconds);
/* The event's current cl_event (NULL before the first record). */
OPENCL_INTERNAL cl_event opencl_event_handle(kiln_backend_event *event);

/* ---- opencl_program.c ---------------------------------------------------- */

OPENCL_INTERNAL kiln_status opencl_program_build(
    kiln_backend_context *context, const kiln_backend_source *source,
    kiln_backend_program **program, char **log);
/* The program binary for this device (CL_PROGRAM_BINARIES). */
OPENCL_INTERNAL kiln_status opencl_program_image(kiln_backend_context *context,
                                                 kiln_backend_program *program,
                                                 void **data, size_t *size);
OPENCL_INTERNAL kiln_status opencl_program_load_image(
    kiln_backend_context *context, const void *data, size_t size,
    const kiln_backend_program_info *info, kiln_backend_program **program);
OPENCL_INTERNAL void opencl_program_destroy(kiln_backend_context *context,
                                            kiln_backend_program *program);
/* The kernels in the driver's order, as kiln_program_get_kernel_name
 * lists them. */
OPENCL_INTERNAL kiln_status opencl_program_kernels(
    kiln_backend_context *context, kiln_backend_program *program,
    const kiln_backend_program_info **info);

/* ---- opencl_signature.c -------------------------------------------------- */

/* Reads the parameters of `kernel` with clGetKernelArgInfo;
 * KILN_ERR_UNSUPPORTED, with the reason, when the driver has no argument
 * info for it. */
OPENCL_INTERNAL kiln_status opencl_signature_query(cl_kernel kernel,
                                                   cl_uint address_bits,
                                                   opencl_signature *signature);
/* The kernel's name (malloc'ed), NULL if the driver has none. */
OPENCL_INTERNAL char *opencl_kernel_name(cl_kernel kernel);

/* The longest kernel name an OpenCL C text declares (`kernel void NAME`),
 * *name pointing at it in the text; 0 and NULL when it declares none. */
OPENCL_INTERNAL size_t opencl_longest_kernel_name(const char *text,
                                                  size_t length,
                                                  const char **name);
/* The names of a program's kernels joined by `separator` (malloc'ed; "" for
 * none), read from the kernels themselves: NVIDIA's OpenCL crashes on
 * CL_PROGRAM_KERNEL_NAMES for a program without kernels, and PoCL answers
 * it without writing anything.  NULL with *error set when OpenCL fails
 * (CL_OUT_OF_HOST_MEMORY when memory does). */
OPENCL_INTERNAL char *opencl_kernel_names(cl_program program,
                                          const char *separator,
                                          cl_int *error);
OPENCL_INTERNAL kiln_status opencl_signature_copy(
    const opencl_signature *source, opencl_signature *copy);
OPENCL_INTERNAL void opencl_signature_free(opencl_signature *signature);
/* Describes a value of OpenCL C type `type` ("float4": 16 bytes of four
 * 4-byte floats, "int3": 16); a type it does not know (a struct or a
 * typedef) gets size 0 and an unknown scalar. */
OPENCL_INTERNAL void opencl_type_describe(const char *type,
                                          cl_uint address_bits,
                                          kiln_backend_param *param);

/* Sizes the driver's argument info leaves out (a struct or typedef passed
 * by value, CUDA's 12-byte float3 after translation): the program's text
 * (`count` parts) is built once more with a kernel that writes sizeof each
 * such type, and run.  A type the probe cannot size keeps size 0, which the
 * core refuses at launch rather than pass a value of unchecked size. */
OPENCL_INTERNAL kiln_status opencl_signature_probe_sizes(
    kiln_backend_context *context, opencl_signature *kernels,
    size_t kernel_count, cl_uint count, const char *const *texts,
    const size_t *lengths, const char *options);

/* ---- opencl_kernel.c ----------------------------------------------------- */

OPENCL_INTERNAL kiln_status opencl_kernel_create(
    kiln_backend_context *context, kiln_backend_program *program,
    const char *name, kiln_backend_kernel **kernel,
    kiln_backend_kernel_info *info);
OPENCL_INTERNAL void opencl_kernel_destroy(kiln_backend_context *context,
                                           kiln_backend_kernel *kernel);

/* ---- opencl_launch.c ----------------------------------------------------- */

OPENCL_INTERNAL kiln_status opencl_kernel_launch(
    kiln_backend_context *context, kiln_backend_kernel *kernel,
    const kiln_backend_launch *launch);

/* ---- opencl_backend.c ---------------------------------------------------- */

OPENCL_INTERNAL kiln_status opencl_backend_initialize(
    const kiln_host_api *host);
OPENCL_INTERNAL const char *opencl_backend_version(void);

#endif /* KILN_OPENCL_PRIVATE_H */
