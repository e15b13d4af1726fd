/**
 * @file kiln_array.h
 * @brief Arrays and kernel generators on top of kiln.h: what CuPy and
 * PyCUDA's gpuarray give, in C, on every backend.
 *
 * This layer (libkiln-array) is built from the public API of kiln.h alone,
 * as pyopencl.array is built on pyopencl: every kernel it runs is OpenCL C
 * that it generates, built through kiln_program_build (so it is cached like
 * any other program) and launched through kiln_launch (so its arguments are
 * checked like any other launch).
 *
 * Link with libkiln-array (`pkg-config --libs kiln` gives it).
 *
 * Conventions, as in kiln.h:
 *  - Every function returns a kiln_status; on anything but KILN_OK,
 *    kiln_last_error() holds the detail and no out-parameter was written.
 *  - A NULL handle is KILN_ERR_INVALID_HANDLE, a NULL out-pointer or bad
 *    string KILN_ERR_INVALID_ARGUMENT.
 *  - Objects are reference counted: `*_create` and every function that
 *    makes an array return one reference the caller owns; `*_release`
 *    drops it.
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
/** @defgroup generators Kernel generators
 * Elementwise, reduction and scan kernels made from an argument list and
 * C expressions, as PyCUDA's and PyOpenCL's ElementwiseKernel,
 * ReductionKernel and GenericScanKernel make them.
 *
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
 * @{ */

/** An elementwise kernel (kiln_elementwise_create): PyCUDA's
 * ElementwiseKernel. */
typedef struct kiln_elementwise kiln_elementwise;
/** Makes an elementwise kernel: `operation` is one or more C statements
 * run for each index `i` (a long) from 0 to n-1.
 * For example "y[i] = a * x[i] + y[i]" with the `arguments`
 * "float a, global const float *x, global float *y" (PyCUDA's
 * ElementwiseKernel); see kiln_array.h's generators for `arguments`,
 * `name` and `preamble`.
 * @retval KILN_ERR_BUILD the generated source does not compile: the
 * compiler's log and the numbered source are in the message.
 * @retval KILN_ERR_INVALID_ARGUMENT an argument list that does not parse,
 * or a pointer without its address space. */
kiln_status kiln_elementwise_create(kiln_context *context,
                                    const char *arguments,
                                    const char *operation, const char *name,
                                    const char *preamble,
                                    kiln_elementwise **kernel);
/** Adds a reference to `kernel`. */
kiln_status kiln_elementwise_retain(kiln_elementwise *kernel);
/** Drops a reference to `kernel`, which goes with its last one. */
kiln_status kiln_elementwise_release(kiln_elementwise *kernel);
/** Runs the operation for i in [0, n) with `args` (one per parameter of the
 * argument list) on `stream`, without waiting.  n == 0 does nothing.
 * A buffer given for a pointer parameter may be a view at any offset
 * (kiln_buffer_create_view), on every backend: the generated kernel takes
 * each pointer as its base buffer and a byte offset.  The same holds for
 * reductions and scans, their results and outputs included.
 * @retval KILN_ERR_ARGUMENT_COUNT, KILN_ERR_ARGUMENT_KIND,
 * KILN_ERR_ARGUMENT_SIZE, KILN_ERR_ARGUMENT_TYPE `args` do not fit the
 * argument list (the generator's parameter is named). */
kiln_status kiln_elementwise_launch(kiln_elementwise *kernel, size_t n,
                                    size_t arg_count, const kiln_arg *args,
                                    kiln_stream *stream);
/** kiln_elementwise_launch for `count` indices i = start, start + step,
 * ... (step may be negative: PyCUDA's ElementwiseKernel with range= or
 * slice=).
 * @retval KILN_ERR_INVALID_ARGUMENT step is 0, or an index falls outside
 * [0, 2^63).
 * @retval KILN_ERR_ARGUMENT_COUNT, KILN_ERR_ARGUMENT_KIND,
 * KILN_ERR_ARGUMENT_SIZE, KILN_ERR_ARGUMENT_TYPE as
 * kiln_elementwise_launch. */
kiln_status kiln_elementwise_launch_range(kiln_elementwise *kernel,
                                          int64_t start, int64_t step,
                                          size_t count, size_t arg_count,
                                          const kiln_arg *args,
                                          kiln_stream *stream);

/** A reduction kernel (kiln_reduction_create): PyOpenCL's and PyCUDA's
 * ReductionKernel. */
typedef struct kiln_reduction kiln_reduction;
/** Makes a reduction kernel: map each index, then combine the values.
 * The result, of the OpenCL C type `type` ("float", "double", "int", "ulong"...), is
 * reduce(...reduce(reduce(neutral, map(0)), map(1))..., map(n-1)) in some
 * order: `reduce_expression` combines two values named a and b and must be
 * associative and commutative ("a + b", "max(a, b)"); `map_expression`
 * computes the value of index i from the arguments ("x[i] * x[i]"); NULL
 * or "" reduces the first pointer argument's elements.  `neutral` is the
 * identity of the reduction ("0", "-INFINITY").
 *
 * The kernels are those of kiln_array_reduce (one template serves both):
 * as many work-groups as keep the device busy each reduce a stretch of
 * the input, map and reduce fused, through local memory with a barrier at
 * every step, and when there is more than one, a second launch reduces
 * their partial results (what OpenCL 1.2 guarantees between work-groups:
 * no launch relies on one group seeing another's writes).  The kernels
 * are named `name`_rows, _columns and _finish.  Each run has its own
 * memory for the partials, so runs on different streams may overlap.
 * @retval KILN_ERR_BUILD the generated source does not compile: the
 * compiler's log and the numbered source are in the message.
 * @retval KILN_ERR_INVALID_ARGUMENT an argument list that does not parse,
 * or a pointer without its address space. */
kiln_status kiln_reduction_create(kiln_context *context, const char *type,
                                  const char *neutral,
                                  const char *reduce_expression,
                                  const char *map_expression,
                                  const char *arguments, const char *name,
                                  const char *preamble,
                                  kiln_reduction **reduction);
/** Adds a reference to `reduction`. */
kiln_status kiln_reduction_retain(kiln_reduction *reduction);
/** Drops a reference to `reduction`, which goes with its last one. */
kiln_status kiln_reduction_release(kiln_reduction *reduction);
/** Reduces i in [0, n) into a buffer, without waiting.
 * Writes the one result (sizeof its type bytes) to `result` at byte
 * `result_offset`, on `stream`.  n == 0 writes the neutral element.
 * @retval KILN_ERR_OUT_OF_BOUNDS the result does not fit in `result`.
 * @retval KILN_ERR_ARGUMENT_COUNT, KILN_ERR_ARGUMENT_KIND,
 * KILN_ERR_ARGUMENT_SIZE, KILN_ERR_ARGUMENT_TYPE `args` do not fit the
 * argument list (the generator's parameter is named). */
kiln_status kiln_reduction_run(kiln_reduction *reduction, size_t n,
                               size_t arg_count, const kiln_arg *args,
                               kiln_buffer *result, size_t result_offset,
                               kiln_stream *stream);
/** Reduces i in [0, n) and copies the result to `host`, waiting for it.
 * `host` has room for one value of the reduction's type (`size` bytes,
 * checked).
 * @retval KILN_ERR_INVALID_SIZE `size` is not the size of the reduction's
 * type.
 * @retval KILN_ERR_ARGUMENT_COUNT, KILN_ERR_ARGUMENT_KIND,
 * KILN_ERR_ARGUMENT_SIZE, KILN_ERR_ARGUMENT_TYPE `args` do not fit the
 * argument list (the generator's parameter is named). */
kiln_status kiln_reduction_run_to_host(kiln_reduction *reduction, size_t n,
                                       size_t arg_count, const kiln_arg *args,
                                       void *host, size_t size,
                                       kiln_stream *stream);

/** Whether a scan's element j includes input j (kiln_scan_create). */
typedef enum kiln_scan_kind {
    KILN_SCAN_INCLUSIVE = 0, /**< out[j] includes input(j)                 */
    KILN_SCAN_EXCLUSIVE      /**< out[j] stops at input(j-1); out[0] is the
                                  neutral element                        */
} kiln_scan_kind;
/** A scan kernel (kiln_scan_create): PyOpenCL's GenericScanKernel in
 * short. */
typedef struct kiln_scan kiln_scan;
/** Makes a scan kernel: prefix sums and their kin.
 * out[j] = input(0) op input(1) op ... op input(j) (inclusive) or the same
 * up to input(j-1), neutral for j = 0 (exclusive), where op is
 * `scan_expression` of a and b (associative) and input(i) is
 * `input_expression` of i and the arguments (NULL: the first pointer
 * argument's element i).  The output is `type` elements written to a
 * buffer given at run time.
 * @retval KILN_ERR_BUILD the generated source does not compile: the
 * compiler's log and the numbered source are in the message.
 * @retval KILN_ERR_INVALID_ARGUMENT an argument list that does not parse,
 * or a pointer without its address space. */
kiln_status kiln_scan_create(kiln_context *context, const char *type,
                             const char *neutral, const char *scan_expression,
                             const char *input_expression,
                             const char *arguments, kiln_scan_kind kind,
                             const char *name, const char *preamble,
                             kiln_scan **scan);
/** Adds a reference to `scan`. */
kiln_status kiln_scan_retain(kiln_scan *scan);
/** Drops a reference to `scan`, which goes with its last one. */
kiln_status kiln_scan_release(kiln_scan *scan);
/** Scans i in [0, n) into `output` from byte `output_offset`, on `stream`,
 * without waiting.
 * n values of the scan's type are written.  Temporary buffers of n / 1024
 * values are allocated from the context's pool.
 * @retval KILN_ERR_OUT_OF_BOUNDS the values do not fit in `output`.
 * @retval KILN_ERR_ARGUMENT_COUNT, KILN_ERR_ARGUMENT_KIND,
 * KILN_ERR_ARGUMENT_SIZE, KILN_ERR_ARGUMENT_TYPE `args` do not fit the
 * argument list (the generator's parameter is named). */
kiln_status kiln_scan_run(kiln_scan *scan, size_t n, size_t arg_count,
                          const kiln_arg *args, kiln_buffer *output,
                          size_t output_offset, kiln_stream *stream);

/** @} */

/* ------------------------------------------------------------------------ */
/* Arrays                                                                   */
/* ------------------------------------------------------------------------ */
/** @defgroup arrays Arrays
 * Typed n-dimensional arrays in device memory: creation and transfer,
 * views, NumPy-style arithmetic with broadcasting, reductions, matrix
 * products and random numbers.
 * @{ */

/** The element type of an array. */
typedef enum kiln_dtype {
    KILN_DTYPE_INT8 = 0, /**< int8_t (OpenCL char)                        */
    KILN_DTYPE_UINT8,    /**< uint8_t (uchar)                             */
    KILN_DTYPE_INT16,    /**< int16_t (short)                             */
    KILN_DTYPE_UINT16,   /**< uint16_t (ushort)                           */
    KILN_DTYPE_INT32,    /**< int32_t (int)                               */
    KILN_DTYPE_UINT32,   /**< uint32_t (uint)                             */
    KILN_DTYPE_INT64,    /**< int64_t (long)                              */
    KILN_DTYPE_UINT64,   /**< uint64_t (ulong)                            */
    KILN_DTYPE_FLOAT32,  /**< float                                       */
    KILN_DTYPE_FLOAT64,  /**< double                                      */
    KILN_DTYPE_BOOL      /**< bool: one byte, 0 or 1 (NumPy's bool_, OpenCL
                              uchar); comparisons give it               */
} kiln_dtype;

/** The bytes of one element of `dtype`.
 * @return the size, 0 for a value that is no dtype. */
size_t kiln_dtype_size(kiln_dtype dtype);
/** The name of `dtype`, as NumPy spells it.
 * @return "float32", "int8"...; "unknown" for a value that is no dtype. */
const char *kiln_dtype_name(kiln_dtype dtype);

/** The most dimensions an array has. */
#define KILN_ARRAY_MAX_DIMS 8

/** An n-dimensional array of one dtype in device memory.
 * It has 0 to KILN_ARRAY_MAX_DIMS dimensions; 0 dimensions is a scalar of
 * one element.  Element (i0, i1, ...) is at element offset + i0 * stride0 +
 * i1 * stride1 + ... of its buffer (kiln_array_get_buffer,
 * kiln_array_get_strides).  Arrays the layer makes are C-contiguous;
 * views (reshape, slice, kiln_array_view) share the memory of the array
 * they come from and may step through it in any order, or repeat elements
 * (stride 0).  Every operation takes arrays of any strides; everything
 * but a view makes a new C-contiguous array.  An array holds a reference
 * to its context and its buffer. */
typedef struct kiln_array kiln_array;

/** Adds a reference to `array`. */
kiln_status kiln_array_retain(kiln_array *array);
/** Drops a reference to `array`; its memory goes with the last reference
 * to it and to its views. */
kiln_status kiln_array_release(kiln_array *array);

/** A new array of `ndim` dimensions of sizes `shape`, contents undefined.
 * `shape` has `ndim` sizes (NULL when ndim is 0); a zero size is allowed
 * (an empty array).  The other creators (kiln_array_zeros, _ones, _full)
 * take their shapes the same way.
 * @retval KILN_ERR_SHAPE more than KILN_ARRAY_MAX_DIMS dimensions.
 * @retval KILN_ERR_DTYPE `dtype` is not a kiln_dtype. */
kiln_status kiln_array_empty(kiln_context *context, kiln_dtype dtype,
                             size_t ndim, const size_t *shape,
                             kiln_array **array);
/** A new array of zeros (see kiln_array_empty for `ndim` and `shape`).
 * @retval KILN_ERR_SHAPE more than KILN_ARRAY_MAX_DIMS dimensions.
 * @retval KILN_ERR_DTYPE `dtype` is not a kiln_dtype. */
kiln_status kiln_array_zeros(kiln_context *context, kiln_dtype dtype,
                             size_t ndim, const size_t *shape,
                             kiln_stream *stream, kiln_array **array);
/** A new array of ones (see kiln_array_empty for `ndim` and `shape`).
 * @retval KILN_ERR_SHAPE more than KILN_ARRAY_MAX_DIMS dimensions.
 * @retval KILN_ERR_DTYPE `dtype` is not a kiln_dtype. */
kiln_status kiln_array_ones(kiln_context *context, kiln_dtype dtype,
                            size_t ndim, const size_t *shape,
                            kiln_stream *stream, kiln_array **array);
/** A new array with every element `value`, converted to the dtype as C
 * converts (see kiln_array_empty for `ndim` and `shape`).
 * @retval KILN_ERR_SHAPE more than KILN_ARRAY_MAX_DIMS dimensions.
 * @retval KILN_ERR_DTYPE `dtype` is not a kiln_dtype. */
kiln_status kiln_array_full(kiln_context *context, kiln_dtype dtype,
                            size_t ndim, const size_t *shape, double value,
                            kiln_stream *stream, kiln_array **array);
/** A new 1-D array start, start + step, ... while below `stop` (above, for
 * a negative step), as numpy.arange.
 * @retval KILN_ERR_INVALID_ARGUMENT `step` is 0. */
kiln_status kiln_array_arange(kiln_context *context, kiln_dtype dtype,
                              double start, double stop, double step,
                              kiln_stream *stream, kiln_array **array);
/** A new 1-D array of `count` evenly spaced values from start to stop,
 * stop included (numpy.linspace with endpoint=True). */
kiln_status kiln_array_linspace(kiln_context *context, kiln_dtype dtype,
                                double start, double stop, size_t count,
                                kiln_stream *stream, kiln_array **array);
/** A new (rows, cols) array with ones on diagonal `k` and zeros elsewhere
 * (numpy.eye; k > 0 above the main diagonal, k < 0 below). */
kiln_status kiln_array_eye(kiln_context *context, kiln_dtype dtype,
                           size_t rows, size_t cols, int64_t k,
                           kiln_stream *stream, kiln_array **array);
/** A new array holding a copy of `host`: CuPy's cupy.array.
 * @retval KILN_ERR_INVALID_SIZE `size` is not the array's size in bytes.
 * @retval KILN_ERR_SHAPE more than KILN_ARRAY_MAX_DIMS dimensions. */
kiln_status kiln_array_from_host(kiln_context *context, kiln_dtype dtype,
                                 size_t ndim, const size_t *shape,
                                 const void *host, size_t size,
                                 kiln_stream *stream, kiln_array **array);
/** Copies the array to `host` and waits for it: cupy.asnumpy /
 * gpuarray.get().
 * @retval KILN_ERR_INVALID_SIZE `size` is not exactly the array's size in
 * bytes. */
kiln_status kiln_array_to_host(const kiln_array *array, void *host,
                               size_t size, kiln_stream *stream);
/** Copies the one element of a 0-d or one-element array to `value`, in
 * the array's dtype, and waits for it: NumPy's a.item(), CuPy's
 * float(x.sum()).
 * For example the result of kiln_array_reduce, or kiln_array_matmul of
 * two vectors.
 * @retval KILN_ERR_SHAPE the array has no element or more than one.
 * @retval KILN_ERR_INVALID_SIZE `size` is not the size of one element of
 * the array's dtype. */
kiln_status kiln_array_to_scalar(const kiln_array *array, void *value,
                                 size_t size, kiln_stream *stream);
/** Reads the one element of a 0-d or one-element array as a double, and
 * waits for it: Python's float(a).
 * Integers beyond 2^53 become the nearest double.
 * @retval KILN_ERR_SHAPE the array has no element or more than one. */
kiln_status kiln_array_to_double(const kiln_array *array, double *value,
                                 kiln_stream *stream);
/** Writes the array as NumPy prints it (str(a)) into `text`, and waits for
 * the copy from the device.
 * Like snprintf: at most `size` bytes are written, the text cut to fit and
 * ended by a NUL, and the whole text's length (without the NUL) goes to
 * `*length` (when not NULL), so a call with `size` 0 (and `text` NULL)
 * sizes the buffer.  NumPy's default print options: an array of more than
 * 1000 elements is summarised, 3 items at each end of every axis longer
 * than 6 with "..." between (only those are copied from the device);
 * lines are wrapped before 75 columns; floating point has at most 8 digits
 * after the point, each value the fewest that read back equal, in
 * scientific notation when the largest magnitude is 1e8 or more, the
 * smallest below 1e-4 or their ratio above 1000.  A 0-d array is its
 * value alone ("2.5").
 * @code
 * char text[1024];
 * kiln_array_format(a, text, sizeof text, NULL, NULL);
 * puts(text);                                    // [[0. 1. 2.]
 *                                                //  [3. 4. 5.]]
 * @endcode
 * @retval KILN_ERR_INVALID_ARGUMENT `text` is NULL with a `size` above 0. */
kiln_status kiln_array_format(const kiln_array *array, char *text, size_t size,
                              size_t *length, kiln_stream *stream);

/** The array's element type.  Getters cannot fail on a valid array. */
kiln_status kiln_array_get_dtype(const kiln_array *array, kiln_dtype *dtype);
/** The array's shape: writes its number of dimensions to `*ndim`, and the
 * sizes into `shape` when it is not NULL (room for KILN_ARRAY_MAX_DIMS). */
kiln_status kiln_array_get_shape(const kiln_array *array, size_t *ndim,
                             size_t *shape);
/** The number of elements (the product of the shape). */
kiln_status kiln_array_get_size(const kiln_array *array, size_t *size);
/** The array's context, lent without a reference. */
kiln_status kiln_array_get_context(const kiln_array *array,
                               kiln_context **context);
/** The buffer behind the array and the byte offset of its first element.
 * For launching one's own kernels on it: a borrowed reference, retain it
 * to keep it past the array. */
kiln_status kiln_array_get_buffer(const kiln_array *array, kiln_buffer **buffer,
                              size_t *offset);

/** The same elements in another shape of the same size, in C order.
 * A view sharing the array's memory when the array is C-contiguous; else
 * (a transposed or stepped view) a C-contiguous copy, as numpy.reshape.
 * @retval KILN_ERR_SHAPE the new shape holds another number of
 * elements. */
kiln_status kiln_array_reshape(kiln_array *array, size_t ndim,
                               const size_t *shape, kiln_array **view);
/** A view of rows [start, stop) along the first axis.
 * @retval KILN_ERR_OUT_OF_BOUNDS `stop` is past the first size, or `start`
 * is after `stop`.
 * @retval KILN_ERR_SHAPE the array is 0-d: it has no rows. */
kiln_status kiln_array_slice(kiln_array *array, size_t start, size_t stop,
                             kiln_array **view);
/** A view of row `index` along the first axis, with that axis dropped:
 * NumPy's z[1] (a row of a matrix, a 0-d element of a vector).
 * A negative index counts from the end, as in NumPy: -1 is the last row.
 * The view shares the array's memory.
 * @retval KILN_ERR_OUT_OF_BOUNDS `index` is not below the first size, or
 * a negative one past its start.
 * @retval KILN_ERR_SHAPE the array is 0-d: it has no rows. */
kiln_status kiln_array_index(kiln_array *array, int64_t index,
                             kiln_array **view);

/** An array over memory that exists: `ndim`/`shape` elements of `dtype`
 * from byte `offset` of `buffer` (which may be a view), sharing it.
 * PyCUDA's gpuarray.GPUArray(shape, dtype, gpudata=...).  The array holds
 * a reference to the buffer that owns the memory.
 * @retval KILN_ERR_OUT_OF_BOUNDS the elements do not fit in `buffer`.
 * @retval KILN_ERR_INVALID_ARGUMENT they would start at a byte of the
 * memory that is not a multiple of the element size.
 * @retval KILN_ERR_DTYPE, KILN_ERR_SHAPE a bad dtype, more than
 * KILN_ARRAY_MAX_DIMS dimensions. */
kiln_status kiln_array_from_buffer(kiln_buffer *buffer, size_t offset,
                                   kiln_dtype dtype, size_t ndim,
                                   const size_t *shape, kiln_array **array);

/** The array's strides: how many elements apart consecutive indices of
 * each axis are (negative for a reversed axis, 0 for a repeated one), as
 * DLPack counts them; into `strides`, which has room for
 * KILN_ARRAY_MAX_DIMS (a C-contiguous (3, 4) array has strides (4, 1)). */
kiln_status kiln_array_get_strides(const kiln_array *array, int64_t *strides);
/** A view of `array`'s memory in any layout: NumPy's as_strided, checked.
 * Element (i0, i1, ...) of the view is element `offset` + i0 * strides[0] +
 * i1 * strides[1] + ... counted from `array`'s first element (offset and
 * strides in elements, either sign).  Slices with steps (`x[::-2, 1:]`),
 * integer indices (`x[:, 3]`), new axes, transposes (`x.T`) and
 * broadcasting (stride 0) are all views of this kind.  The view shares
 * the memory and keeps it alive.
 * @retval KILN_ERR_OUT_OF_BOUNDS an element of the view lies outside the
 * array's buffer.
 * @retval KILN_ERR_SHAPE more than KILN_ARRAY_MAX_DIMS dimensions. */
kiln_status kiln_array_view(kiln_array *array, int64_t offset, size_t ndim,
                            const size_t *shape, const int64_t *strides,
                            kiln_array **view);
/** dest[...] = src: copies src's elements into dest's, converted to dest's
 * dtype, src broadcast to dest's shape; dest is any array or view (NumPy's
 * `x[1:, ::2] = y`, numpy.copyto).  Overlapping memory is handled as
 * NumPy does: src is read whole before dest is written.
 * @retval KILN_ERR_SHAPE src does not broadcast to dest's shape.
 * @retval KILN_ERR_CONTEXT_MISMATCH the arrays belong to two contexts. */
kiln_status kiln_array_assign(kiln_array *dest, const kiln_array *src,
                              kiln_stream *stream);
/** Sets every element of `dest` (any array or view) to `value`, converted
 * to its dtype as kiln_array_full converts: NumPy's `x[:, 0] = 5`. */
kiln_status kiln_array_fill(kiln_array *dest, double value,
                            kiln_stream *stream);

/** A new array with a copy of the elements, converted to `dtype` as C
 * converts: numpy's astype (with the same dtype, a plain copy). */
kiln_status kiln_array_astype(const kiln_array *array, kiln_dtype dtype,
                              kiln_stream *stream, kiln_array **result);

/* ---- elementwise arithmetic, comparisons, math -------------------------- */

/** A binary operation of kiln_array_binary.  The comparisons give bool
 * arrays (KILN_DTYPE_BOOL).  On two bool arrays, add is logical or,
 * multiply logical and, maximum and minimum stay bool, power gives int8
 * and subtract is refused, as in NumPy. */
typedef enum kiln_array_op {
    KILN_OP_ADD = 0,       /**< a + b                                    */
    KILN_OP_SUBTRACT,      /**< a - b                                    */
    KILN_OP_MULTIPLY,      /**< a * b                                    */
    KILN_OP_DIVIDE,        /**< true division: integers give float64     */
    KILN_OP_POWER,         /**< a to the power b                         */
    KILN_OP_MAXIMUM,       /**< the larger of a and b                    */
    KILN_OP_MINIMUM,       /**< the smaller of a and b                   */
    KILN_OP_EQUAL,         /**< a == b                                   */
    KILN_OP_NOT_EQUAL,     /**< a != b                                   */
    KILN_OP_LESS,          /**< a < b                                    */
    KILN_OP_LESS_EQUAL,    /**< a <= b                                   */
    KILN_OP_GREATER,       /**< a > b                                    */
    KILN_OP_GREATER_EQUAL  /**< a >= b                                   */
} kiln_array_op;

/** a OP b elementwise, with NumPy's broadcasting (shapes aligned at the
 * last axis; sizes equal or 1) and type promotion (int8 + uint8 is int16,
 * int32 + float32 float64, ...).
 * @retval KILN_ERR_SHAPE the shapes do not broadcast (both are named).
 * @retval KILN_ERR_CONTEXT_MISMATCH the arrays belong to two contexts. */
kiln_status kiln_array_binary(kiln_array_op op, const kiln_array *a,
                              const kiln_array *b, kiln_stream *stream,
                              kiln_array **result);
/** a OP scalar elementwise.
 * The scalar is weak, as in NumPy 2: the result keeps a's dtype, except
 * that a scalar with a fraction given to an integer array makes a float64
 * result. */
kiln_status kiln_array_binary_scalar(kiln_array_op op, const kiln_array *a,
                                     double scalar, kiln_stream *stream,
                                     kiln_array **result);
/** scalar OP a elementwise (`2 * a`, `1 / a`): the scalar is weak, as for
 * kiln_array_binary_scalar. */
kiln_status kiln_array_scalar_binary(kiln_array_op op, double scalar,
                                     const kiln_array *a, kiln_stream *stream,
                                     kiln_array **result);

/** A function of kiln_array_math. */
typedef enum kiln_array_function {
    KILN_FN_NEGATIVE = 0, /**< -a                                         */
    KILN_FN_ABS,          /**< |a|                                        */
    KILN_FN_SQUARE,       /**< a * a                                      */
    KILN_FN_SQRT,         /**< square root                                */
    KILN_FN_EXP,          /**< e to the a                                 */
    KILN_FN_LOG,          /**< natural logarithm                          */
    KILN_FN_LOG10,        /**< logarithm base 10                          */
    KILN_FN_SIN,          /**< sine                                       */
    KILN_FN_COS,          /**< cosine                                     */
    KILN_FN_TAN,          /**< tangent                                    */
    KILN_FN_TANH,         /**< hyperbolic tangent                         */
    KILN_FN_FLOOR,        /**< the largest integer not above a            */
    KILN_FN_CEIL          /**< the smallest integer not below a           */
} kiln_array_function;

/** f(a) elementwise.  negative, abs, square, floor and ceil keep the dtype;
 * the others give float32 for float32 and 8- and 16-bit integers, float64
 * otherwise. */
kiln_status kiln_array_math(kiln_array_function function, const kiln_array *a,
                            kiln_stream *stream, kiln_array **result);

/** condition ? a : b elementwise (numpy.where).
 * The three broadcast together; `condition` is of any dtype (nonzero is
 * true); the result's dtype is that of a and b promoted.
 * @retval KILN_ERR_SHAPE the shapes do not broadcast. */
kiln_status kiln_array_where(const kiln_array *condition, const kiln_array *a,
                             const kiln_array *b, kiln_stream *stream,
                             kiln_array **result);

/** a[mask]: the elements of `a` where the bool array `mask` is true, in
 * C order, as a new array; waits for the count.
 * `mask` has the shape of `a`'s first mask-ndim axes: the result is
 * (count, the rest of a's shape), as NumPy's boolean indexing (a mask of
 * a's whole shape gives a 1-D array).
 * @retval KILN_ERR_DTYPE `mask` is not a bool array (an integer array
 * would be NumPy's integer indexing, which this is not).
 * @retval KILN_ERR_SHAPE `mask`'s shape is not the start of `a`'s. */
kiln_status kiln_array_mask_select(const kiln_array *a,
                                   const kiln_array *mask,
                                   kiln_stream *stream, kiln_array **result);
/** a[mask] = values: writes `values` into the elements of `a` (any array
 * or view) where `mask` is true, in C order.
 * `values` broadcasts to (count, the rest of a's shape) as in NumPy: one
 * value, or a row for every selected element (`x[x > 0] = y[x > 0]`),
 * converted to a's dtype.  Counting the selected elements waits for the
 * device unless `values` broadcasts without the count.
 * @retval KILN_ERR_DTYPE `mask` is not a bool array.
 * @retval KILN_ERR_SHAPE `mask`'s shape is not the start of `a`'s, or
 * `values` does not broadcast. */
kiln_status kiln_array_mask_assign(kiln_array *a, const kiln_array *mask,
                                   const kiln_array *values,
                                   kiln_stream *stream);
/** a[mask] = value: sets the elements of `a` (any array or view) where
 * `mask` is true to `value`, converted as kiln_array_fill converts.
 * @retval KILN_ERR_DTYPE `mask` is not a bool array.
 * @retval KILN_ERR_SHAPE `mask`'s shape is not the start of `a`'s. */
kiln_status kiln_array_mask_fill(kiln_array *a, const kiln_array *mask,
                                 double value, kiln_stream *stream);

/* ---- reductions ------------------------------------------------------ */

/** A reduction of kiln_array_reduce and kiln_array_reduce_axis, with the
 * dtype of its result. */
typedef enum kiln_array_reduce_op {
    KILN_REDUCE_SUM = 0, /**< integers: int64 (signed, and bool) or uint64
                              (unsigned)                                 */
    KILN_REDUCE_PROD,    /**< likewise                                     */
    KILN_REDUCE_MEAN,    /**< float32 for float32, else float64            */
    KILN_REDUCE_MIN,     /**< the dtype of the input                       */
    KILN_REDUCE_MAX,     /**< likewise                                     */
    KILN_REDUCE_ARGMIN,  /**< int64: the first index of the minimum        */
    KILN_REDUCE_ARGMAX   /**< int64: the first index of the maximum (of the
                              flattened array, or along the axis)       */
} kiln_array_reduce_op;

/** Reduces every element of `a` to a 0-d array.
 * The sum of an empty array is 0, its product 1, its mean NaN.
 * @retval KILN_ERR_SHAPE min, max, argmin or argmax of an empty array. */
kiln_status kiln_array_reduce(kiln_array_reduce_op op, const kiln_array *a,
                              kiln_stream *stream, kiln_array **result);
/** Reduces `a` along `axis`: the result has the shape without that axis.
 * A negative axis counts from the end: -1 is the last.
 * @retval KILN_ERR_SHAPE the axis is out of range. */
kiln_status kiln_array_reduce_axis(kiln_array_reduce_op op,
                                   const kiln_array *a, int axis,
                                   kiln_stream *stream, kiln_array **result);

/** reduce_binary's and reduce_binary_scalar's `axis` for a reduction of
 * every element (to a 0-d array). */
#define KILN_AXIS_ALL (-0x7fffffff - 1)
/** Reduces a OP b without making it: `(x * x).sum()`, `(x > 0).sum()`,
 * `(x - y).max(axis=1)` in one pass over a and b.
 * The same as kiln_array_binary then kiln_array_reduce (axis
 * KILN_AXIS_ALL) or kiln_array_reduce_axis, with the same dtypes: a OP b
 * is computed in NumPy's promoted dtype and converted to the operation's
 * result dtype before it is reduced; only the intermediate array is never
 * written when a and b have one shape (other shapes that broadcast are
 * computed, then reduced).
 * @retval KILN_ERR_SHAPE the shapes do not broadcast, the axis is out of
 * range, or min/max/argmin/argmax of an empty set. */
kiln_status kiln_array_reduce_binary(kiln_array_reduce_op reduce,
                                     kiln_array_op op, const kiln_array *a,
                                     const kiln_array *b, int axis,
                                     kiln_stream *stream,
                                     kiln_array **result);
/** Reduces a OP scalar without making it (`(x ** 2).sum()`): the scalar is
 * weak, as in kiln_array_binary_scalar; otherwise kiln_array_reduce_binary.
 * @retval KILN_ERR_SHAPE the axis is out of range, or min/max/argmin/argmax
 * of an empty set. */
kiln_status kiln_array_reduce_binary_scalar(kiln_array_reduce_op reduce,
                                            kiln_array_op op,
                                            const kiln_array *a,
                                            double scalar, int axis,
                                            kiln_stream *stream,
                                            kiln_array **result);

/* ---- linear algebra and layout --------------------------------------- */

/** The matrix product of two arrays (numpy.matmul for 1-D and 2-D).
 * For 1-D and 2-D: (m,k)@(k,n) is (m,n); a 1-D operand is a row (left) or a column
 * (right) and its dimension is dropped from the result; 1-D@1-D is the
 * inner product, a 0-d array.  The result's dtype is NumPy's promotion of
 * the two (int32 and float32 compute in float64).  Integer products keep
 * their dtype and wrap on overflow, as NumPy's do, on the generated
 * kernel.  Floating-point products run on
 * cuBLAS (CUDA) or CLBlast (OpenCL) on a GPU when the library can be
 * loaded at run time, else on a generated tiled kernel
 * (kiln_array_blas_name tells which; KILN_ARRAY_BLAS=generated forces the
 * kernel, KILN_ARRAY_BLAS=library the library on CPU devices too).
 * @retval KILN_ERR_SHAPE the inner sizes differ, or an array is 0-d.
 * @retval KILN_ERR_DTYPE float64 on a device without double precision.
 * @retval KILN_ERR_UNSUPPORTED more than 2 dimensions. */
kiln_status kiln_array_matmul(const kiln_array *a, const kiln_array *b,
                              kiln_stream *stream, kiln_array **result);
/** numpy.dot for 1-D and 2-D arrays: the same as kiln_array_matmul.
 * @retval KILN_ERR_SHAPE the inner sizes differ, or an array is 0-d.
 * @retval KILN_ERR_DTYPE float64 on a device without double precision.
 * @retval KILN_ERR_UNSUPPORTED more than 2 dimensions. */
kiln_status kiln_array_dot(const kiln_array *a, const kiln_array *b,
                           kiln_stream *stream, kiln_array **result);
/** The library kiln_array_matmul uses on this context: "cublas",
 * "clblast" or "generated" (static storage). */
kiln_status kiln_array_blas_name(kiln_context *context, const char **name);

/** A new array with the axes permuted: axis k of the result is axis
 * axes[k] of `a` (NULL: reversed, numpy's .T).
 * @retval KILN_ERR_SHAPE `axes` is not a permutation of 0..ndim-1. */
kiln_status kiln_array_transpose(const kiln_array *a, const size_t *axes,
                                 kiln_stream *stream, kiln_array **result);

/** The upper triangle of the last two axes of `a` (numpy.triu): elements
 * below diagonal `k` set to 0 (k = 0 the main diagonal, k > 0 above it,
 * k < 0 below).  A 1-D array of n elements is taken as n copies of itself,
 * an (n, n) result, as NumPy takes it.
 * @retval KILN_ERR_SHAPE a 0-d array. */
kiln_status kiln_array_triu(const kiln_array *a, int64_t k,
                            kiln_stream *stream, kiln_array **result);
/** The lower triangle (numpy.tril): elements above diagonal `k` set to 0;
 * otherwise kiln_array_triu.
 * @retval KILN_ERR_SHAPE a 0-d array. */
kiln_status kiln_array_tril(const kiln_array *a, int64_t k,
                            kiln_stream *stream, kiln_array **result);

/* ---- random numbers -------------------------------------------------- */

/** A counter-based random number generator (Philox4x32-10).
 * After Salmon et al., SC'11: each
 * block of four 32-bit numbers is a pure function of (seed, counter), so
 * the same seed gives the same numbers on every backend and device.  Each
 * call advances `counter` past the blocks it used: successive calls give
 * fresh numbers, as cupy.random does.  Initialise with {seed, 0}. */
typedef struct kiln_random {
    uint64_t seed;    /**< chooses the stream of numbers                  */
    uint64_t counter; /**< the next block to use; 0 to start              */
} kiln_random;

/** A new array of random numbers uniform in [low, high).
 * The values in [0, 1) are exact multiples of 2^-24 (float32) or 2^-53
 * and the same on every device.
 * @retval KILN_ERR_DTYPE `dtype` is neither float32 nor float64. */
kiln_status kiln_array_random_uniform(kiln_random *random,
                                      kiln_context *context, kiln_dtype dtype,
                                      size_t ndim, const size_t *shape,
                                      double low, double high,
                                      kiln_stream *stream, kiln_array **array);
/** A new array of normally distributed random numbers, of `mean` and
 * standard deviation `stddev`.
 * Box-Muller on the same uniform numbers: equal on every device up to the
 * last bits of log, sqrt, sin and cos.
 * @retval KILN_ERR_DTYPE `dtype` is neither float32 nor float64. */
kiln_status kiln_array_random_normal(kiln_random *random,
                                     kiln_context *context, kiln_dtype dtype,
                                     size_t ndim, const size_t *shape,
                                     double mean, double stddev,
                                     kiln_stream *stream, kiln_array **array);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* KILN_ARRAY_H */
