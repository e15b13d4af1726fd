/*
 * Matrix products on the vendors' libraries when they are installed:
 * cuBLAS on the CUDA backend, CLBlast on the OpenCL backend.  Both are
 * opened at run time with dlopen, so libkiln-array links neither and runs
 * where they are missing (matmul then uses the generated kernel).  The
 * layer hands them Kiln's native handles (kiln_buffer_get_native,
 * kiln_stream_get_native, kiln_context_get_native): the products run on the
 * caller's stream like every other operation.
 *
 * The libraries are used on GPUs and accelerators.  On a CPU device (PoCL)
 * CLBlast would first compile its kernels, some 20 s of CPU time, for no
 * gain over the generated kernel, so matmul uses the generated one there.
 * KILN_ARRAY_BLAS=generated makes matmul use the generated kernel on every
 * device (to compare the two); KILN_ARRAY_BLAS=library uses the library on
 * every device where it loads.
 */
#include "blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- CLBlast ------------------------------------------------------------------- */

enum { CLBLAST_ROW_MAJOR = 101, CLBLAST_NO_TRANSPOSE = 111 };

typedef int (*clblast_sgemm_fn)(int, int, int, size_t, size_t, size_t, float,
                                void *, size_t, size_t, void *, size_t, size_t,
                                float, void *, size_t, size_t, void **,
                                void **);
typedef int (*clblast_dgemm_fn)(int, int, int, size_t, size_t, size_t, double,
                                void *, size_t, size_t, void *, size_t, size_t,
                                double, void *, size_t, size_t, void **,
                                void **);

/* ---- cuBLAS and the driver call it needs --------------------------------------- */

typedef int (*cublas_create_fn)(void **handle);
typedef int (*cublas_set_stream_fn)(void *handle, void *stream);
typedef int (*cublas_sgemm_fn)(void *, int, int, int, int, int, const float *,
                               const void *, int, const void *, int,
                               const float *, void *, int);
typedef int (*cublas_dgemm_fn)(void *, int, int, int, int, int,
                               const double *, const void *, int,
                               const void *, int, const double *, void *, int);
typedef int (*cu_ctx_set_current_fn)(void *context);

static struct {
    pthread_once_t once;
    void *clblast;
    clblast_sgemm_fn clblast_sgemm;
    clblast_dgemm_fn clblast_dgemm;
    void *cublas, *cuda;
    cublas_create_fn cublas_create;
    cublas_set_stream_fn cublas_set_stream;
    cublas_sgemm_fn cublas_sgemm;
    cublas_dgemm_fn cublas_dgemm;
    cu_ctx_set_current_fn cu_ctx_set_current;
    /* one cuBLAS handle per CUDA context, kept for the process's life
     * (Kiln's CUDA contexts are the devices' primary contexts) */
    pthread_mutex_t lock;
    struct {
        void *context, *handle;
    } handles[16];
    size_t handle_count;
} libraries = {.once = PTHREAD_ONCE_INIT,
               .lock = PTHREAD_MUTEX_INITIALIZER};

static void *open_first(const char *const *names)
{
    for (size_t k = 0; names[k] != NULL; ++k) {
        void *library = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
        if (library != NULL)
            return library;
    }
    return NULL;
}

/* Object pointers from dlsym: POSIX guarantees the conversion. */
#define LOAD(library, type, name) ((type)(uintptr_t)dlsym((library), (name)))

static void libraries_open(void)
{
    static const char *const clblast_names[] = {"libclblast.so.1",
                                                "libclblast.so", NULL};
    libraries.clblast = open_first(clblast_names);
    if (libraries.clblast != NULL) {
        libraries.clblast_sgemm =
            LOAD(libraries.clblast, clblast_sgemm_fn, "CLBlastSgemm");
        libraries.clblast_dgemm =
            LOAD(libraries.clblast, clblast_dgemm_fn, "CLBlastDgemm");
    }
    static const char *const cublas_names[] = {
        "libcublas.so", "libcublas.so.13", "libcublas.so.12",
        "libcublas.so.11", NULL};
    static const char *const cuda_names[] = {"libcuda.so.1", "libcuda.so",
                                             NULL};
    libraries.cuda = open_first(cuda_names);
    if (libraries.cuda != NULL)
        libraries.cublas = open_first(cublas_names);
    if (libraries.cublas != NULL) {
        libraries.cublas_create =
            LOAD(libraries.cublas, cublas_create_fn, "cublasCreate_v2");
        libraries.cublas_set_stream =
            LOAD(libraries.cublas, cublas_set_stream_fn, "cublasSetStream_v2");
        libraries.cublas_sgemm =
            LOAD(libraries.cublas, cublas_sgemm_fn, "cublasSgemm_v2");
        libraries.cublas_dgemm =
            LOAD(libraries.cublas, cublas_dgemm_fn, "cublasDgemm_v2");
        libraries.cu_ctx_set_current =
            LOAD(libraries.cuda, cu_ctx_set_current_fn, "cuCtxSetCurrent");
    }
}

static bool blas_choice_is(const char *choice)
{
    const char *value = getenv("KILN_ARRAY_BLAS");
    return value != NULL && strcmp(value, choice) == 0;
}

blas_library blas_library_for(kiln_context *context)
{
    if (blas_choice_is("generated"))
        return BLAS_GENERATED;
    const char *backend = NULL;
    kiln_device_info info;
    if (kiln_context_get_backend(context, &backend) != KILN_OK ||
        kiln_context_get_device_info(context, &info) != KILN_OK)
        return BLAS_GENERATED;
    if (info.type == KILN_DEVICE_CPU && !blas_choice_is("library"))
        return BLAS_GENERATED;
    pthread_once(&libraries.once, libraries_open);
    if (strcmp(backend, "opencl") == 0 && libraries.clblast_sgemm != NULL &&
        libraries.clblast_dgemm != NULL)
        return BLAS_CLBLAST;
    if (strcmp(backend, "cuda") == 0 && libraries.cublas_create != NULL &&
        libraries.cublas_set_stream != NULL &&
        libraries.cublas_sgemm != NULL && libraries.cublas_dgemm != NULL &&
        libraries.cu_ctx_set_current != NULL)
        return BLAS_CUBLAS;
    return BLAS_GENERATED;
}

const char *blas_library_name(blas_library library)
{
    switch (library) {
    case BLAS_CUBLAS:
        return "cublas";
    case BLAS_CLBLAST:
        return "clblast";
    default:
        return "generated";
    }
}

static kiln_status cublas_handle(kiln_context *context, void **handle)
{
    void *native = NULL;
    kiln_status status = kiln_context_get_native(context, &native, sizeof native);
    if (status != KILN_OK)
        return status;
    if (libraries.cu_ctx_set_current(native) != 0)
        return array_error(KILN_ERR_BACKEND,
                           "cuCtxSetCurrent failed before cuBLAS");
    pthread_mutex_lock(&libraries.lock);
    for (size_t k = 0; k < libraries.handle_count; ++k)
        if (libraries.handles[k].context == native) {
            *handle = libraries.handles[k].handle;
            pthread_mutex_unlock(&libraries.lock);
            return KILN_OK;
        }
    int code = -1;
    if (libraries.handle_count <
        sizeof libraries.handles / sizeof *libraries.handles) {
        code = libraries.cublas_create(handle);
        if (code == 0) {
            libraries.handles[libraries.handle_count].context = native;
            libraries.handles[libraries.handle_count].handle = *handle;
            ++libraries.handle_count;
        }
    }
    pthread_mutex_unlock(&libraries.lock);
    if (code != 0)
        return array_error(KILN_ERR_BACKEND, "cublasCreate failed (status %d)",
                           code);
    return KILN_OK;
}

kiln_status blas_gemm(blas_library library, kiln_context *context,
                      kiln_dtype dtype, size_t m, size_t n, size_t k,
                      const kiln_array *a, const kiln_array *b,
                      kiln_array *c, kiln_stream *stream)
{
    void *a_native = NULL, *b_native = NULL, *c_native = NULL,
         *queue = NULL;
    kiln_status status =
        kiln_buffer_get_native(a->buffer, &a_native, sizeof a_native);
    if (status == KILN_OK)
        status = kiln_buffer_get_native(b->buffer, &b_native, sizeof b_native);
    if (status == KILN_OK)
        status = kiln_buffer_get_native(c->buffer, &c_native, sizeof c_native);
    if (status == KILN_OK)
        status = stream ? KILN_OK
                        : kiln_context_get_default_stream(context, &stream);
    if (status == KILN_OK)
        status = kiln_stream_get_native(stream, &queue, sizeof queue);
    if (status != KILN_OK)
        return status;

    if (library == BLAS_CLBLAST) {
        int code;
        if (dtype == KILN_DTYPE_FLOAT32)
            code = libraries.clblast_sgemm(
                CLBLAST_ROW_MAJOR, CLBLAST_NO_TRANSPOSE, CLBLAST_NO_TRANSPOSE,
                m, n, k, 1.0f, a_native, a->offset, k, b_native, b->offset, n,
                0.0f, c_native, c->offset, n, &queue, NULL);
        else
            code = libraries.clblast_dgemm(
                CLBLAST_ROW_MAJOR, CLBLAST_NO_TRANSPOSE, CLBLAST_NO_TRANSPOSE,
                m, n, k, 1.0, a_native, a->offset, k, b_native, b->offset, n,
                0.0, c_native, c->offset, n, &queue, NULL);
        if (code != 0)
            return array_error(KILN_ERR_BACKEND,
                               "CLBlast %cgemm failed (status %d)",
                               dtype == KILN_DTYPE_FLOAT32 ? 'S' : 'D', code);
        return KILN_OK;
    }

    /* cuBLAS is column-major: row-major C = A B is column-major
     * C^T = B^T A^T, the same memory with the operands swapped. */
    void *handle = NULL;
    status = cublas_handle(context, &handle);
    if (status != KILN_OK)
        return status;
    int code = libraries.cublas_set_stream(handle, queue);
    size_t element = kiln_dtype_size(dtype);
    char *a_pointer = (char *)(uintptr_t)a_native + a->offset * element;
    char *b_pointer = (char *)(uintptr_t)b_native + b->offset * element;
    char *c_pointer = (char *)(uintptr_t)c_native + c->offset * element;
    if (code == 0) {
        if (dtype == KILN_DTYPE_FLOAT32) {
            const float one = 1.0f, zero = 0.0f;
            code = libraries.cublas_sgemm(handle, 0, 0, (int)n, (int)m, (int)k,
                                          &one, b_pointer, (int)n, a_pointer,
                                          (int)k, &zero, c_pointer, (int)n);
        } else {
            const double one = 1.0, zero = 0.0;
            code = libraries.cublas_dgemm(handle, 0, 0, (int)n, (int)m, (int)k,
                                          &one, b_pointer, (int)n, a_pointer,
                                          (int)k, &zero, c_pointer, (int)n);
        }
    }
    if (code != 0)
        return array_error(KILN_ERR_BACKEND, "cuBLAS %cgemm failed (status %d)",
                           dtype == KILN_DTYPE_FLOAT32 ? 'S' : 'D', code);
    return KILN_OK;
}
