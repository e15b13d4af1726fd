/*
 * kiln_array.h — arrays and kernel generators on top of kiln.h: what CuPy
 * and PyCUDA's gpuarray give, in C, on every backend.
 *
 * This layer (libkiln-array) is built from the public API of kiln.h alone,
 * as pyopencl.array is built on pyopencl: every kernel it runs is OpenCL C
 * that it generates, built through kiln_program_build (so it is cached like
 * any other program) and launched through kiln_launch (so its arguments are
 * checked like any other launch).
 *
 * Conventions, as in kiln.h:
 *  - Every function returns a kiln_status; on anything but KILN_OK,
 *    kiln_last_error() holds the detail and no out-parameter was written.
 *  - A NULL handle is KILN_ERR_INVALID_HANDLE, a NULL out-pointer or bad
 *    string KILN_ERR_INVALID_ARGUMENT.
 *  - Objects are reference counted: *_create and every function that makes
 *    an array return one reference the caller owns; *_release drops it.
 *    An array holds a reference to its context and its buffer.
 *  - `stream` arguments: NULL is the context's default stream.  Work is
 *    queued on that stream and the call returns without waiting (except
 *    where the comment says it waits: copies to the host).  An array used
 *    on two streams needs the caller's ordering (kiln_stream_wait_event),
 *    as in CUDA.
 *
 * Errors particular to this layer: shapes that do not match or broadcast
 * are KILN_ERR_SHAPE; an element type an operation does not take is
 * KILN_ERR_DTYPE; arrays of two contexts are KILN_ERR_CONTEXT_MISMATCH; a
 * generator expression that does not compile is KILN_ERR_BUILD with the
 * generated source's build log.
 */
#ifndef KILN_ARRAY_H
#define KILN_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "kiln.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Kernel generators                                                        */
/* ------------------------------------------------------------------------ */

/*
 * The arguments of a generator are a C parameter list in OpenCL C, e.g.
 * "float a, global const float *x, global float *y".  Pointers must name
 * their address space (global or constant).  The generated kernel takes
 * these parameters first, in this order, then the generator's own; at a
 * launch they are passed as kiln_arg (KILN_ARG_BUFFER for pointers,
 * KILN_ARG_FLOAT etc. for values) and checked against the list: a wrong
 * count is KILN_ERR_ARGUMENT_COUNT, a wrong kind or size
 * KILN_ERR_ARGUMENT_KIND / _SIZE, all naming the generator's parameter.
 *
 * `preamble` (may be NULL) is OpenCL C placed before the kernel: helper
 * functions and macros the expressions use.  `name` (may be NULL) names
 * the kernel, for messages and profilers.  A source that does not compile
 * is KILN_ERR_BUILD with the compiler's log and the generated source.
 */

/* Elementwise: `operation` is one or more C statements run for each index
 * `i` (a long) from 0 to n-1, e.g. "y[i] = a * x[i] + y[i]"
 * (PyCUDA's ElementwiseKernel). */
typedef struct kiln_elementwise kiln_elementwise;
kiln_status kiln_elementwise_create(kiln_context *context,
                                    const char *arguments,
                                    const char *operation, const char *name,
                                    const char *preamble,
                                    kiln_elementwise **kernel);
kiln_status kiln_elementwise_retain(kiln_elementwise *kernel);
kiln_status kiln_elementwise_release(kiln_elementwise *kernel);
/* Runs the operation for i in [0, n) with `args` (one per parameter of the
 * argument list) on `stream`.  n == 0 does nothing. */
kiln_status kiln_elementwise_launch(kiln_elementwise *kernel, size_t n,
                                    size_t arg_count, const kiln_arg *args,
                                    kiln_stream *stream);

/* Reduction (PyOpenCL's and PyCUDA's ReductionKernel): the result, of the
 * OpenCL C type `type` ("float", "double", "int", "ulong"...), is
 * reduce(...reduce(reduce(neutral, map(0)), map(1))..., map(n-1)) in some
 * order: `reduce_expression` combines two values named a and b and must be
 * associative and commutative ("a + b", "max(a, b)"); `map_expression`
 * computes the value of index i from the arguments ("x[i] * x[i]"); NULL
 * or "" reduces the first pointer argument's elements.  `neutral` is the
 * identity of the reduction ("0", "-INFINITY").
 *
 * The whole reduction is one launch: as many work-groups as keep the
 * device busy each reduce a slice of the input, map and reduce fused,
 * through local memory with a barrier at every step; each writes its
 * partial result, and the last group to finish (counted with one atomic)
 * reduces the partials.  Each stream a reduction runs on gets its own
 * scratch memory for the partials (kept, with a reference to the stream,
 * until the reduction is released), so runs on different streams may
 * overlap. */
typedef struct kiln_reduction kiln_reduction;
kiln_status kiln_reduction_create(kiln_context *context, const char *type,
                                  const char *neutral,
                                  const char *reduce_expression,
                                  const char *map_expression,
                                  const char *arguments, const char *name,
                                  const char *preamble,
                                  kiln_reduction **reduction);
kiln_status kiln_reduction_retain(kiln_reduction *reduction);
kiln_status kiln_reduction_release(kiln_reduction *reduction);
/* Reduces i in [0, n) and writes the one result (sizeof its type bytes) to
 * `result` at byte `result_offset`, on `stream`, without waiting.  n == 0
 * writes the neutral element.  KILN_ERR_OUT_OF_BOUNDS when the result does
 * not fit in `result`. */
kiln_status kiln_reduction_run(kiln_reduction *reduction, size_t n,
                               size_t arg_count, const kiln_arg *args,
                               kiln_buffer *result, size_t result_offset,
                               kiln_stream *stream);
/* The same, and waits for the result and copies it to `host`, which has
 * room for one value of the reduction's type (`size` bytes, checked). */
kiln_status kiln_reduction_run_to_host(kiln_reduction *reduction, size_t n,
                                       size_t arg_count, const kiln_arg *args,
                                       void *host, size_t size,
                                       kiln_stream *stream);

/* Scan (prefix sums and their kin, PyOpenCL's GenericScanKernel in short):
 * out[j] = input(0) op input(1) op ... op input(j) (inclusive) or the same
 * up to input(j-1), neutral for j = 0 (exclusive), where op is
 * `scan_expression` of a and b (associative) and input(i) is
 * `input_expression` of i and the arguments (NULL: the first pointer
 * argument's element i).  The output is `type` elements written to a
 * buffer given at run time. */
typedef enum kiln_scan_kind {
    KILN_SCAN_INCLUSIVE = 0,
    KILN_SCAN_EXCLUSIVE
} kiln_scan_kind;
typedef struct kiln_scan kiln_scan;
kiln_status kiln_scan_create(kiln_context *context, const char *type,
                             const char *neutral, const char *scan_expression,
                             const char *input_expression,
                             const char *arguments, kiln_scan_kind kind,
                             const char *name, const char *preamble,
                             kiln_scan **scan);
kiln_status kiln_scan_retain(kiln_scan *scan);
kiln_status kiln_scan_release(kiln_scan *scan);
/* Scans i in [0, n) into `output` from byte `output_offset` (n values of
 * the scan's type; KILN_ERR_OUT_OF_BOUNDS if they do not fit), on
 * `stream`, without waiting.  Temporary buffers of n / 1024 values are
 * allocated from the context's pool. */
kiln_status kiln_scan_run(kiln_scan *scan, size_t n, size_t arg_count,
                          const kiln_arg *args, kiln_buffer *output,
                          size_t output_offset, kiln_stream *stream);

/* ------------------------------------------------------------------------ */
/* Arrays                                                                   */
/* ------------------------------------------------------------------------ */

typedef enum kiln_dtype {
    KILN_DTYPE_INT8 = 0,
    KILN_DTYPE_UINT8,
    KILN_DTYPE_INT16,
    KILN_DTYPE_UINT16,
    KILN_DTYPE_INT32,
    KILN_DTYPE_UINT32,
    KILN_DTYPE_INT64,
    KILN_DTYPE_UINT64,
    KILN_DTYPE_FLOAT32,
    KILN_DTYPE_FLOAT64
} kiln_dtype;

/* Bytes of one element (0 for a value that is no dtype). */
size_t kiln_dtype_size(kiln_dtype dtype);
/* "float32", "int8"...; "unknown" for a value that is no dtype. */
const char *kiln_dtype_name(kiln_dtype dtype);

#define KILN_ARRAY_MAX_DIMS 8

/* A C-contiguous n-dimensional array of one dtype in device memory (0 to
 * KILN_ARRAY_MAX_DIMS dimensions; 0 dimensions is a scalar of one
 * element).  Views (reshape, slice) share the memory of the array they
 * come from; everything else makes a new array. */
typedef struct kiln_array kiln_array;

kiln_status kiln_array_retain(kiln_array *array);
kiln_status kiln_array_release(kiln_array *array);

/* Creation.  `shape` has `ndim` sizes (NULL when ndim is 0); a zero size
 * is allowed (an empty array); more than KILN_ARRAY_MAX_DIMS dimensions is
 * KILN_ERR_SHAPE; a bad dtype KILN_ERR_DTYPE.  empty leaves the contents
 * undefined; full converts `value` to the dtype as C does. */
kiln_status kiln_array_empty(kiln_context *context, kiln_dtype dtype,
                             size_t ndim, const size_t *shape,
                             kiln_array **array);
kiln_status kiln_array_zeros(kiln_context *context, kiln_dtype dtype,
                             size_t ndim, const size_t *shape,
                             kiln_stream *stream, kiln_array **array);
kiln_status kiln_array_ones(kiln_context *context, kiln_dtype dtype,
                            size_t ndim, const size_t *shape,
                            kiln_stream *stream, kiln_array **array);
kiln_status kiln_array_full(kiln_context *context, kiln_dtype dtype,
                            size_t ndim, const size_t *shape, double value,
                            kiln_stream *stream, kiln_array **array);
/* 1-D: start, start + step, ... while below `stop` (above, for a negative
 * step), as numpy.arange.  step 0 is KILN_ERR_INVALID_ARGUMENT. */
kiln_status kiln_array_arange(kiln_context *context, kiln_dtype dtype,
                              double start, double stop, double step,
                              kiln_stream *stream, kiln_array **array);
/* 1-D: `count` evenly spaced values from start to stop, stop included
 * (numpy.linspace with endpoint=True). */
kiln_status kiln_array_linspace(kiln_context *context, kiln_dtype dtype,
                                double start, double stop, size_t count,
                                kiln_stream *stream, kiln_array **array);
/* A new array holding a copy of `host` (`size` bytes, which must be the
 * array's: KILN_ERR_INVALID_SIZE otherwise): CuPy's cupy.array. */
kiln_status kiln_array_from_host(kiln_context *context, kiln_dtype dtype,
                                 size_t ndim, const size_t *shape,
                                 const void *host, size_t size,
                                 kiln_stream *stream, kiln_array **array);
/* Copies the array to `host` (`size` bytes, exactly the array's) and
 * waits for it: cupy.asnumpy / gpuarray.get(). */
kiln_status kiln_array_to_host(const kiln_array *array, void *host,
                               size_t size, kiln_stream *stream);

/* What an array is.  Getters cannot fail on a valid array. */
kiln_status kiln_array_get_dtype(const kiln_array *array, kiln_dtype *dtype);
/* Writes ndim, and the sizes into `shape` when it is not NULL (room for
 * KILN_ARRAY_MAX_DIMS). */
kiln_status kiln_array_get_shape(const kiln_array *array, size_t *ndim,
                             size_t *shape);
/* The number of elements (the product of the shape). */
kiln_status kiln_array_get_size(const kiln_array *array, size_t *size);
kiln_status kiln_array_get_context(const kiln_array *array,
                               kiln_context **context);
/* The buffer behind the array and the byte offset of its first element,
 * for launching one's own kernels on it (a borrowed reference: retain it
 * to keep it past the array). */
kiln_status kiln_array_get_buffer(const kiln_array *array, kiln_buffer **buffer,
                              size_t *offset);

/* Views.  reshape: the same elements in another shape of the same size
 * (KILN_ERR_SHAPE otherwise).  slice: rows [start, stop) along the first
 * axis, a contiguous range (stop past the first size or start > stop is
 * KILN_ERR_OUT_OF_BOUNDS; a 0-d array has no rows: KILN_ERR_SHAPE). */
kiln_status kiln_array_reshape(kiln_array *array, size_t ndim,
                               const size_t *shape, kiln_array **view);
kiln_status kiln_array_slice(kiln_array *array, size_t start, size_t stop,
                             kiln_array **view);

/* A new array with a copy of the elements, converted to `dtype` as C
 * converts (astype with the same dtype is a plain copy). */
kiln_status kiln_array_astype(const kiln_array *array, kiln_dtype dtype,
                              kiln_stream *stream, kiln_array **result);

/* ---- elementwise arithmetic, comparisons, math -------------------------- */

typedef enum kiln_array_op {
    KILN_OP_ADD = 0,
    KILN_OP_SUBTRACT,
    KILN_OP_MULTIPLY,
    KILN_OP_DIVIDE,        /* true division: integers give float64       */
    KILN_OP_POWER,
    KILN_OP_MAXIMUM,
    KILN_OP_MINIMUM,
    /* comparisons: uint8 arrays of 0 and 1 */
    KILN_OP_EQUAL,
    KILN_OP_NOT_EQUAL,
    KILN_OP_LESS,
    KILN_OP_LESS_EQUAL,
    KILN_OP_GREATER,
    KILN_OP_GREATER_EQUAL
} kiln_array_op;

/* a OP b elementwise, with NumPy's broadcasting (shapes aligned at the
 * last axis; sizes equal or 1) and type promotion (int8 + uint8 is int16,
 * int32 + float32 float64, ...).  Shapes that do not broadcast are
 * KILN_ERR_SHAPE naming both shapes. */
kiln_status kiln_array_binary(kiln_array_op op, const kiln_array *a,
                              const kiln_array *b, kiln_stream *stream,
                              kiln_array **result);
/* a OP scalar, and scalar OP a.  The scalar is weak, as in NumPy 2: the
 * result keeps a's dtype, except that a scalar with a fraction given to
 * an integer array makes a float64 result. */
kiln_status kiln_array_binary_scalar(kiln_array_op op, const kiln_array *a,
                                     double scalar, kiln_stream *stream,
                                     kiln_array **result);
kiln_status kiln_array_scalar_binary(kiln_array_op op, double scalar,
                                     const kiln_array *a, kiln_stream *stream,
                                     kiln_array **result);

typedef enum kiln_array_function {
    KILN_FN_NEGATIVE = 0,
    KILN_FN_ABS,
    KILN_FN_SQUARE,
    KILN_FN_SQRT,
    KILN_FN_EXP,
    KILN_FN_LOG,
    KILN_FN_LOG10,
    KILN_FN_SIN,
    KILN_FN_COS,
    KILN_FN_TAN,
    KILN_FN_TANH,
    KILN_FN_FLOOR,
    KILN_FN_CEIL
} kiln_array_function;

/* f(a) elementwise.  negative, abs, square, floor and ceil keep the dtype;
 * the others give float32 for float32 and 8- and 16-bit integers, float64
 * otherwise. */
kiln_status kiln_array_math(kiln_array_function function, const kiln_array *a,
                            kiln_stream *stream, kiln_array **result);

/* condition ? a : b elementwise (numpy.where), the three broadcast
 * together; `condition` of any dtype (nonzero is true); the result's dtype
 * is that of a and b promoted. */
kiln_status kiln_array_where(const kiln_array *condition, const kiln_array *a,
                             const kiln_array *b, kiln_stream *stream,
                             kiln_array **result);

/* ---- reductions ------------------------------------------------------ */

typedef enum kiln_array_reduce_op {
    KILN_REDUCE_SUM = 0, /* integers: int64 (signed) or uint64 (unsigned) */
    KILN_REDUCE_PROD,    /* likewise                                       */
    KILN_REDUCE_MEAN,    /* float32 for float32, else float64              */
    KILN_REDUCE_MIN,     /* the dtype of the input                         */
    KILN_REDUCE_MAX,
    KILN_REDUCE_ARGMIN,  /* int64: the first index of the minimum          */
    KILN_REDUCE_ARGMAX   /* (of the flattened array, or along the axis)    */
} kiln_array_reduce_op;

/* Over every element: a 0-d array.  min, max, argmin and argmax of an
 * empty array are KILN_ERR_SHAPE; its sum is 0, prod 1, mean NaN. */
kiln_status kiln_array_reduce(kiln_array_reduce_op op, const kiln_array *a,
                              kiln_stream *stream, kiln_array **result);
/* Along `axis` (negative counts from the end: -1 is the last): the shape
 * without that axis.  An axis out of range is KILN_ERR_SHAPE. */
kiln_status kiln_array_reduce_axis(kiln_array_reduce_op op,
                                   const kiln_array *a, int axis,
                                   kiln_stream *stream, kiln_array **result);

/* ---- linear algebra and layout --------------------------------------- */

/* Matrix product of float32 or float64 arrays (numpy.matmul for 1-D and
 * 2-D: (m,k)@(k,n) is (m,n); a 1-D operand is a row (left) or a column
 * (right) and its dimension is dropped from the result; 1-D@1-D is the
 * inner product, a 0-d array).  Mixed float32 and float64 compute in
 * float64.  Inner sizes that differ are KILN_ERR_SHAPE; integer arrays
 * KILN_ERR_DTYPE; more than 2 dimensions KILN_ERR_UNSUPPORTED.  Runs on
 * cuBLAS (CUDA) or CLBlast (OpenCL) on a GPU when the library can be
 * loaded at run time, else on a generated tiled kernel
 * (kiln_array_blas_name tells which; KILN_ARRAY_BLAS=generated forces the
 * kernel, KILN_ARRAY_BLAS=library the library on CPU devices too). */
kiln_status kiln_array_matmul(const kiln_array *a, const kiln_array *b,
                              kiln_stream *stream, kiln_array **result);
/* numpy.dot for 1-D and 2-D arrays: the same as matmul. */
kiln_status kiln_array_dot(const kiln_array *a, const kiln_array *b,
                           kiln_stream *stream, kiln_array **result);
/* The library matmul uses on this context: "cublas", "clblast" or
 * "generated" (static storage). */
kiln_status kiln_array_blas_name(kiln_context *context, const char **name);

/* A new array with the axes permuted: axis k of the result is axis
 * axes[k] of `a` (NULL: reversed, numpy's .T).  `axes` must be a
 * permutation of 0..ndim-1 (KILN_ERR_SHAPE otherwise). */
kiln_status kiln_array_transpose(const kiln_array *a, const size_t *axes,
                                 kiln_stream *stream, kiln_array **result);

/* ---- random numbers -------------------------------------------------- */

/* A counter-based generator (Philox4x32-10, Salmon et al., SC'11): each
 * block of four 32-bit numbers is a pure function of (seed, counter), so
 * the same seed gives the same numbers on every backend and device.  Each
 * call advances `counter` past the blocks it used: successive calls give
 * fresh numbers, as cupy.random does.  Initialise with {seed, 0}. */
typedef struct kiln_random {
    uint64_t seed;
    uint64_t counter;
} kiln_random;

/* Uniform in [low, high) (float32 or float64; else KILN_ERR_DTYPE).  The
 * values in [0, 1) are exact multiples of 2^-24 (float32) or 2^-53 and the
 * same on every device. */
kiln_status kiln_array_random_uniform(kiln_random *random,
                                      kiln_context *context, kiln_dtype dtype,
                                      size_t ndim, const size_t *shape,
                                      double low, double high,
                                      kiln_stream *stream, kiln_array **array);
/* Normal with `mean` and standard deviation `stddev` (Box-Muller on the
 * same uniform numbers: equal on every device up to the last bits of
 * log, sqrt, sin and cos). */
kiln_status kiln_array_random_normal(kiln_random *random,
                                     kiln_context *context, kiln_dtype dtype,
                                     size_t ndim, const size_t *shape,
                                     double mean, double stddev,
                                     kiln_stream *stream, kiln_array **array);

#ifdef __cplusplus
}
#endif

#endif /* KILN_ARRAY_H */
