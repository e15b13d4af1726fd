/*
 * What the files of the array layer share.  The layer sees only kiln.h and
 * kiln_array.h (array.mk keeps core/ off its include path), so everything
 * here is built from the public API.
 */
#ifndef KILN_ARRAY_INTERNAL_H
#define KILN_ARRAY_INTERNAL_H

#include "config.h" /* _GNU_SOURCE: strdup, dlopen under -std=c11 */

#include "kiln.h"
#include "kiln_array.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define ARRAY_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define ARRAY_INTERNAL __attribute__((visibility("hidden")))
#else
#define ARRAY_PRINTF_LIKE(f, a)
#define ARRAY_INTERNAL
#endif

/* Threads per work-group of every generated kernel: a size every backend
 * and device Kiln supports, and the size the local arrays are made for. */
#define ARRAY_GROUP_SIZE 256

/* ---- errors (util.c) ---------------------------------------------------- */

/* Sets the thread's last error (through kiln_error_set) and returns
 * `status`. */
ARRAY_INTERNAL kiln_status array_error(kiln_status status, const char *format,
                                       ...) ARRAY_PRINTF_LIKE(2, 3);
/* Prepends "text: " to the last error and returns `status`: for failures
 * of Kiln calls the layer makes, so the message says what the layer was
 * doing. */
ARRAY_INTERNAL kiln_status array_error_prefix(kiln_status status,
                                              const char *format, ...)
    ARRAY_PRINTF_LIKE(2, 3);

/* KILN_ERR_INVALID_SIZE unless `n` elements fit the long index of a
 * generated kernel (a larger n turned negative there: no work, KILN_OK and
 * the neutral element). */
ARRAY_INTERNAL kiln_status array_check_count(const char *function,
                                             const char *what, size_t n);

/* Releases that keep the thread's last error: cleanup after a failure
 * must not erase the message of the failure (a successful Kiln call
 * clears it). */
ARRAY_INTERNAL void array_release_buffer(kiln_buffer *buffer);
ARRAY_INTERNAL void array_release_kernel(kiln_kernel *kernel);
ARRAY_INTERNAL void array_release_program(kiln_program *program);
ARRAY_INTERNAL void array_release_array(kiln_array *array);
/* ---- streams (util.c) ---------------------------------------------------- */

/* Waits for `stream`, or for the default stream of `context` when NULL. */
ARRAY_INTERNAL kiln_status array_stream_synchronize(kiln_context *context,
                                                   kiln_stream *stream);

/* ---- growing text (util.c) ----------------------------------------------- */

typedef struct array_text {
    char *data;
    size_t length, capacity;
    bool failed; /* an allocation failed: the text is incomplete */
} array_text;

ARRAY_INTERNAL void array_text_add(array_text *text, const char *format, ...)
    ARRAY_PRINTF_LIKE(2, 3);
ARRAY_INTERNAL void array_text_free(array_text *text);

/* ---- generated kernels (util.c) ------------------------------------------ */

/* Builds `source` (through Kiln's program cache) and creates its kernel
 * `name`.  A build failure is KILN_ERR_BUILD with the compiler's log, then
 * the generated source with line numbers. */
ARRAY_INTERNAL kiln_status array_kernel_build(kiln_context *context,
                                              const char *source,
                                              const char *name,
                                              kiln_kernel **kernel);
/* array_kernel_build of a generated text, which is freed; an incomplete
 * text (an allocation failed) is KILN_ERR_OUT_OF_HOST_MEMORY. */
ARRAY_INTERNAL kiln_status array_kernel_build_text(kiln_context *context,
                                                   array_text *source,
                                                   const char *name,
                                                   kiln_kernel **kernel);
/* The same for a program with several kernels. */
ARRAY_INTERNAL kiln_status array_program_build(kiln_context *context,
                                               const char *source,
                                               kiln_program **program);
/* Work-groups that keep the device busy (8 per compute unit). */
ARRAY_INTERNAL size_t array_busy_groups(kiln_context *context);
/* Whether the context's device has double precision. */
ARRAY_INTERNAL bool array_has_double(kiln_context *context);
/* One launch of `kernel` over n work-items in groups of ARRAY_GROUP_SIZE
 * (at most `max_groups` groups: the kernel loops over the rest). */
ARRAY_INTERNAL kiln_status array_launch_1d(kiln_kernel *kernel, size_t n,
                                           size_t max_groups,
                                           kiln_stream *stream, size_t count,
                                           const kiln_arg *args);

/* Enables double precision where the device has it: the first line of
 * every generated source. */
#define ARRAY_SOURCE_HEADER                                                  \
    "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"    \
    "#endif\n"

/* ---- parsed argument lists (generator.c) --------------------------------- */

typedef struct array_param {
    char *name;
    bool pointer;
    bool constant;     /* a pointer into __constant memory              */
    char *declaration; /* the text before the name ("global float *")   */
} array_param;

typedef struct array_params {
    array_param *items;
    size_t count;
} array_params;

/* What a generator's strings may hold (generator.c): `texts[k]` (named
 * `fields[k]`; NULL: absent) are expressions, types or argument lists, one
 * line of code without '#' in any spelling, _Pragma, splice or comment;
 * `preamble` may hold #define and #undef and comments and literals that
 * end in it.  KILN_ERR_INVALID_ARGUMENT naming `function` and the field. */
ARRAY_INTERNAL kiln_status array_generator_texts_check(
    const char *function, const char *const *fields, const char *const *texts,
    size_t count, const char *preamble);

/* Splits "float a, global const float *x" into its parameters; a
 * parameter without a name, a pointer without an address space, an empty
 * list or one with unbalanced brackets is KILN_ERR_INVALID_ARGUMENT naming
 * `what` and the parameter. */
ARRAY_INTERNAL kiln_status array_params_parse(const char *what,
                                              const char *arguments,
                                              array_params *params);
ARRAY_INTERNAL void array_params_free(array_params *params);
/* The parameters of a generated kernel for `params`: each pointer `x`
 * as its buffer's base `kiln_base_x` and byte offset `kiln_offset_x`,
 * each followed by ", " (generator.c). */
ARRAY_INTERNAL void array_params_add(array_text *text,
                                     const array_params *params);
/* #define KILN_ARGUMENT_VIEWS: the statements, at the top of a kernel's
 * body, that declare each pointer `x` as written (generator.c). */
ARRAY_INTERNAL void array_params_add_views(array_text *text,
                                           const array_params *params);
/* The user's arguments as array_params_add's parameters (a view as its
 * base and offset) followed by room for `extra` more; *first is where
 * those go.  NULL when out of memory (generator.c). */
ARRAY_INTERNAL kiln_arg *array_params_args(const array_params *params,
                                           size_t arg_count,
                                           const kiln_arg *args, size_t extra,
                                           size_t *first);

/* ---- the elementwise template (generator.c) ------------------------------ */

/* The source of kiln_elementwise_create's kernel `name`: `operation` for
 * each index i of a launch, the arguments `params`. */
ARRAY_INTERNAL void array_elementwise_source(array_text *source,
                                             const char *preamble,
                                             const array_params *params,
                                             const char *operation,
                                             const char *name);
/* array_elementwise_source of `arguments` (as kiln_elementwise_create
 * takes them), built. */
ARRAY_INTERNAL kiln_status array_elementwise_build(kiln_context *context,
                                                   const char *preamble,
                                                   const char *arguments,
                                                   const char *operation,
                                                   const char *name,
                                                   kiln_kernel **kernel);
/* Runs such a kernel for i = start + k * step, k in [0, n): `args` are
 * `count` arguments as array_params_args makes them, with room for 3
 * more. */
ARRAY_INTERNAL kiln_status array_elementwise_launch(kiln_kernel *kernel,
                                                    size_t n, int64_t start,
                                                    int64_t step, size_t count,
                                                    kiln_arg *args,
                                                    kiln_stream *stream);

/* ---- the reduction template (reduction.c) -------------------------------- */

/* One instance of the reduction template: kiln_reduction_create's
 * arguments, and what array reductions add. */
typedef struct array_reduction_spec {
    const char *type;              /* the accumulator's OpenCL C type     */
    const char *neutral;           /* its identity                        */
    const char *reduce_expression; /* of a and b                          */
    const char *map_expression;    /* of i; NULL: the input's element i   */
    const char *preamble;          /* may be NULL                         */
    const char *name;              /* kernels name_rows, _columns, _finish */
    /* What array reductions add (NULL in kiln_reduction_create): */
    const char *output_type;       /* NULL: `type`                        */
    const char *final_expression;  /* of acc, index, count; NULL: acc     */
    /* argmin / argmax: whether (vb, ib) wins over (va, ia); indices then
     * travel with the values and `index` is the reduced element's. */
    const char *better_expression;
} array_reduction_spec;

/* The source of an instance taking `params` (whose first pointer,
 * `input`, is read when the spec has no map expression). */
ARRAY_INTERNAL kiln_status array_reduction_source(
    const array_reduction_spec *spec, const array_params *params,
    const char *input, array_text *source);

/* One run of an instance: the input seen as (outer, length, inner), the
 * reduced axis in the middle; one result per (outer, inner). */
typedef struct array_reduction_run {
    kiln_context *context;
    const char *name;       /* the spec's */
    size_t outer, length, inner;
    size_t acc_size;        /* bytes of the spec's type */
    bool indices;           /* the spec has a better_expression */
    size_t arg_count;       /* the instance's, as array_params_args made */
    const kiln_arg *args;
    kiln_buffer *out;       /* results from value index out_index */
    size_t out_index;
    kiln_stream *stream;
} array_reduction_run;

/* Launches `program` (array_reduction_source's) once or twice. */
ARRAY_INTERNAL kiln_status array_reduction_launch(
    kiln_program *program, const array_reduction_run *run);

/* The buffer owning `buffer`'s memory and the value index there of byte
 * `offset` of `buffer` (generator.c). */
ARRAY_INTERNAL kiln_status array_buffer_base(const char *function,
                                             const char *role,
                                             kiln_buffer *buffer,
                                             size_t offset, size_t value_size,
                                             kiln_buffer **base,
                                             size_t *index);
/* Checks a launch's arguments against the list: the count, and a buffer
 * for each pointer and a value for every other parameter. */
ARRAY_INTERNAL kiln_status array_params_check(const char *what,
                                              const array_params *params,
                                              size_t arg_count,
                                              const kiln_arg *args);

/* ---- arrays (array.c) --------------------------------------------------- */

#define ARRAY_MAGIC 0x6b41727261795f31ull /* "kArray_1" */

struct kiln_array {
    uint64_t magic;
    atomic_int references;
    kiln_context *context;  /* one reference */
    kiln_buffer *buffer;    /* one reference; NULL for an empty array */
    size_t offset;          /* of element (0, 0...), in elements from the
                               start of the buffer */
    kiln_dtype dtype;
    size_t ndim;
    size_t shape[KILN_ARRAY_MAX_DIMS];
    int64_t strides[KILN_ARRAY_MAX_DIMS]; /* in elements, either sign */
    size_t size;            /* elements */
};

/* Checks an array handle; `function` and `name` go into the message. */
ARRAY_INTERNAL kiln_status array_check(const kiln_array *array,
                                       const char *function, const char *name);
ARRAY_INTERNAL kiln_status array_check_dtype(kiln_dtype dtype,
                                             const char *function);
/* `ndim` dimensions of `shape`: at most KILN_ARRAY_MAX_DIMS, and the
 * sizes other than 0 multiply within size_t whatever their order; *size
 * their product (0 with any 0).  KILN_ERR_SHAPE, KILN_ERR_INVALID_SIZE or
 * KILN_ERR_INVALID_ARGUMENT naming `function`. */
ARRAY_INTERNAL kiln_status array_shape_check(size_t ndim, const size_t *shape,
                                             const char *function,
                                             size_t *size);
/* A new array with uninitialised contents. */
ARRAY_INTERNAL kiln_status array_new(kiln_context *context, kiln_dtype dtype,
                                     size_t ndim, const size_t *shape,
                                     const char *function,
                                     kiln_array **array);
/* Sets C-contiguous strides for the array's shape. */
ARRAY_INTERNAL void array_set_c_strides(kiln_array *array);
/* Whether the elements are laid out in C order from `offset` on (axes of
 * one element may have any stride). */
ARRAY_INTERNAL bool array_is_contiguous(const kiln_array *array);
/* `array` C-contiguous: a new reference to it when it is, else a
 * C-contiguous copy made on `stream`.  For the operations whose kernels
 * read memory in C order (reductions, matmul, host copies). */
ARRAY_INTERNAL kiln_status array_contiguous(const kiln_array *array,
                                            kiln_stream *stream,
                                            const char *function,
                                            kiln_array **contiguous);
/* "(3, 4)" into `out`. */
ARRAY_INTERNAL void array_shape_text(const kiln_array *array, char *out,
                                     size_t size);
/* The OpenCL C type of a dtype ("float", "uchar"...). */
ARRAY_INTERNAL const char *array_dtype_ctype(kiln_dtype dtype);
ARRAY_INTERNAL bool array_dtype_is_float(kiln_dtype dtype);
ARRAY_INTERNAL bool array_dtype_is_signed(kiln_dtype dtype);
/* NumPy's promotion of two dtypes. */
ARRAY_INTERNAL kiln_dtype array_promote(kiln_dtype a, kiln_dtype b);
/* Checks that the arrays share a context (KILN_ERR_CONTEXT_MISMATCH). */
ARRAY_INTERNAL kiln_status array_same_context(const char *function,
                                              const kiln_array *a,
                                              const kiln_array *b);
/* Fails with KILN_ERR_DTYPE when the device lacks double precision and
 * `dtype` is float64. */
ARRAY_INTERNAL kiln_status array_check_device_dtype(kiln_context *context,
                                                    kiln_dtype dtype,
                                                    const char *function);
/* A kernel argument of `value` converted to `dtype` (storage in *slot). */
typedef union array_scalar {
    int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32;
    uint32_t u32; int64_t i64; uint64_t u64; float f32; double f64;
} array_scalar;
ARRAY_INTERNAL kiln_arg array_scalar_arg(kiln_dtype dtype, double value,
                                         array_scalar *slot);
/* Whether `value` is a number an integer dtype holds: whole and within
 * its range (a fraction of an integer dtype's range does not fit either:
 * see array_scalar_check).  Every value fits a floating dtype. */
ARRAY_INTERNAL bool array_scalar_fits(kiln_dtype dtype, double value);
/* Whether `value` is a whole, finite number an integer dtype (bool not
 * included) cannot hold: 300 against uint8.  Arithmetic with it is
 * refused, comparisons are answered without it. */
ARRAY_INTERNAL bool array_scalar_out_of_range(kiln_dtype dtype, double value);
/* KILN_ERR_INVALID_ARGUMENT, naming `function`, the value and the dtype's
 * range, unless `value` converts to `dtype` exactly or, with
 * `fractions`, by dropping its fraction (C's conversion is undefined
 * past the range, and for NaN and infinities). */
ARRAY_INTERNAL kiln_status array_scalar_check(kiln_dtype dtype, double value,
                                              bool fractions,
                                              const char *function);

/* ---- the elementwise engine (elementwise.c) ------------------------------- */

/* One operand of a generated elementwise operation. */
typedef struct array_operand {
    const kiln_array *array; /* NULL: a scalar */
    double scalar;
    kiln_dtype dtype;        /* the type the expression sees it as */
} array_operand;

#define ARRAY_MAX_OPERANDS 3
/* the destination's place in a layout, after the operands */
#define ARRAY_LAYOUT_DEST ARRAY_MAX_OPERANDS

/* How an elementwise kernel walks its operands and its destination: the
 * result's shape with the axes merged where every one of them steps
 * across them as across one axis, and the strides in elements of each
 * (0 along broadcast axes). */
typedef struct array_layout {
    size_t ndim;
    size_t shape[KILN_ARRAY_MAX_DIMS];
    int64_t strides[ARRAY_MAX_OPERANDS + 1][KILN_ARRAY_MAX_DIMS];
} array_layout;

/* The broadcast shape of the operands' arrays (scalars: none), or
 * KILN_ERR_SHAPE naming them and `function`. */
ARRAY_INTERNAL kiln_status array_broadcast_shape(const char *function,
                                                 const array_operand *operands,
                                                 size_t count, size_t *ndim,
                                                 size_t *shape);
/* The layout of `operands` (count at most ARRAY_MAX_OPERANDS) against
 * `dest`, whose shape is their broadcast shape.  Only shapes and strides
 * are read: no device (the fuzz target calls it too). */
ARRAY_INTERNAL void array_make_layout(const array_operand *operands,
                                      size_t count, const kiln_array *dest,
                                      array_layout *out);
/* Whether the layout's operand (or destination) `k` is read at the
 * result's own index in C order. */
ARRAY_INTERNAL bool array_layout_contiguous(const array_layout *layout,
                                            size_t k);

/* Up to ARRAY_MAP_PARAMS long values a map statement reads as kiln_p0,
 * kiln_p1...: sizes and offsets that change between calls without
 * changing the program (triu's diagonal). */
#define ARRAY_MAP_PARAMS 4
typedef struct array_map_params {
    size_t count;
    int64_t values[ARRAY_MAP_PARAMS];
} array_map_params;

/* result = `statement` elementwise over up to three operands named a, b,
 * c (each converted to its operand's dtype), with NumPy broadcasting; the
 * statement sets kiln_r (of the result's dtype) and may read kiln_choice,
 * an int argument given `choice`: one program serves a family of
 * operations (every arithmetic operator, every math function), chosen at
 * run time, so that few programs are compiled.  `preamble` (may be NULL)
 * goes before the kernel.  `function` names the public function for
 * messages. */
ARRAY_INTERNAL kiln_status array_map(const char *function,
                                     const char *preamble,
                                     const char *statement, int choice,
                                     kiln_dtype result_dtype,
                                     const array_operand *operands,
                                     size_t count, kiln_stream *stream,
                                     kiln_array **result);
/* array_map into an array that exists (any strides): the operands
 * broadcast to its shape; `params` (may be NULL) are kiln_p0... and the
 * statement may read the flat index i of the element in C order. */
ARRAY_INTERNAL kiln_status array_map_into(const char *function,
                                          const char *preamble,
                                          const char *statement, int choice,
                                          kiln_array *dest,
                                          const array_operand *operands,
                                          size_t count,
                                          const array_map_params *params,
                                          kiln_stream *stream);
/* The dtype `op` computes in and its result's dtype for an array of dtype
 * `a` and an array of dtype *b, or (b NULL) the weak scalar `scalar`:
 * NumPy's promotion; KILN_ERR_DTYPE for what NumPy refuses (bool - bool). */
ARRAY_INTERNAL kiln_status array_binary_types(const char *function,
                                              kiln_array_op op, kiln_dtype a,
                                              const kiln_dtype *b,
                                              double scalar,
                                              kiln_dtype *compute,
                                              kiln_dtype *result);
/* The OpenCL C expression of `op` on a and b of dtype `compute`. */
ARRAY_INTERNAL const char *array_op_expression(kiln_array_op op,
                                               kiln_dtype compute);
/* The helpers array_op_expression's integer power needs (kiln_ipow), for
 * an integer `compute` dtype. */
ARRAY_INTERNAL void array_add_ipow(array_text *preamble, kiln_dtype compute);
/* Writes `expression` of the flat index i into every element of `array`. */
ARRAY_INTERNAL kiln_status array_fill_expression(kiln_array *array,
                                                 const char *expression,
                                                 size_t value_count,
                                                 const double *values,
                                                 kiln_stream *stream);

#endif
