/*
 * Matrix products and transposes.  matmul runs on cuBLAS or CLBlast where
 * blas.c finds them, else on the tiled kernel below.
 */
#include "blas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generated product: each 16 x 16 work-group computes a 64 x 64 tile of
 * C, each work-item 4 x 4 of it (rows ty + 16 i, columns tx + 16 j, so that
 * neighbouring work-items touch neighbouring columns), stepping along K 16
 * at a time through local memory.  Edges are padded with zeros.  ACC is
 * the sums' type and MULADD, STORE how they are made and written
 * (generated_gemm defines them for floating point and for integers). */
static const char matmul_source[] =
    "#define TILE 64\n"
    "#define STEP 16\n"
    "__kernel void kiln_matmul(__global const REAL *a, long a_offset,\n"
    "                          __global const REAL *b, long b_offset,\n"
    "                          __global REAL *c, long c_offset,\n"
    "                          int m, int n, int k)\n"
    "{\n"
    "    __local REAL a_tile[STEP][TILE + 1];\n"
    "    __local REAL b_tile[STEP][TILE + 1];\n"
    "    const int tx = get_local_id(0), ty = get_local_id(1);\n"
    "    const int flat = ty * 16 + tx;\n"
    "    const int row0 = get_group_id(1) * TILE, col0 = get_group_id(0) * TILE;\n"
    "    ACC sum[4][4];\n"
    "    for (int i = 0; i < 4; ++i)\n"
    "        for (int j = 0; j < 4; ++j)\n"
    "            sum[i][j] = (ACC)0;\n"
    "    for (int k0 = 0; k0 < k; k0 += STEP) {\n"
    "        for (int l = 0; l < 4; ++l) {\n"
    "            const int index = flat + l * 256;\n"
    "            const int ar = index / STEP, ac = index % STEP;\n"
    "            const int row = row0 + ar, col = k0 + ac;\n"
    "            a_tile[ac][ar] = row < m && col < k\n"
    "                ? a[a_offset + (long)row * k + col] : (REAL)0;\n"
    "            const int br = index / TILE, bc = index % TILE;\n"
    "            const int brow = k0 + br, bcol = col0 + bc;\n"
    "            b_tile[br][bc] = brow < k && bcol < n\n"
    "                ? b[b_offset + (long)brow * n + bcol] : (REAL)0;\n"
    "        }\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        for (int kk = 0; kk < STEP; ++kk) {\n"
    "            REAL av[4], bv[4];\n"
    "            for (int i = 0; i < 4; ++i)\n"
    "                av[i] = a_tile[kk][ty + 16 * i];\n"
    "            for (int j = 0; j < 4; ++j)\n"
    "                bv[j] = b_tile[kk][tx + 16 * j];\n"
    "            for (int i = 0; i < 4; ++i)\n"
    "                for (int j = 0; j < 4; ++j)\n"
    "                    sum[i][j] = MULADD(av[i], bv[j], sum[i][j]);\n"
    "        }\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    for (int i = 0; i < 4; ++i)\n"
    "        for (int j = 0; j < 4; ++j) {\n"
    "            const int row = row0 + ty + 16 * i, col = col0 + tx + 16 * j;\n"
    "            if (row < m && col < n)\n"
    "                c[c_offset + (long)row * n + col] = STORE(sum[i][j]);\n"
    "        }\n"
    "}\n";

static kiln_status generated_gemm(kiln_context *context, kiln_dtype dtype,
                                  size_t m, size_t n, size_t k,
                                  const kiln_array *a, const kiln_array *b,
                                  kiln_array *c, kiln_stream *stream)
{
    array_text source = {0};
    const char *real = array_dtype_ctype(dtype);
    if (array_dtype_is_float(dtype)) {
        array_text_add(&source,
                       ARRAY_SOURCE_HEADER "#define REAL %1$s\n"
                       "#define ACC %1$s\n"
                       "#define MULADD(a, b, c) mad(a, b, c)\n"
                       "#define STORE(x) (x)\n%2$s",
                       real, matmul_source);
    } else {
        /* NumPy's integer products wrap.  Signed overflow is undefined in
         * OpenCL C as in C, so the sums are unsigned (uint for 8 to 32
         * bits: the low bits of a sum do not depend on the bits above),
         * and the result keeps their low bits, reinterpreted. */
        bool wide = kiln_dtype_size(dtype) == 8;
        const char *unsigned_type = real[0] == 'u' ? real : NULL;
        char unsigned_name[16];
        if (unsigned_type == NULL) {
            snprintf(unsigned_name, sizeof unsigned_name, "u%s", real);
            unsigned_type = unsigned_name;
        }
        array_text_add(&source,
                       ARRAY_SOURCE_HEADER "#define REAL %s\n"
                       "#define ACC %s\n"
                       "#define MULADD(a, b, c) ((c) + (ACC)(a) * (ACC)(b))\n",
                       real, wide ? "ulong" : "uint");
        if (array_dtype_is_signed(dtype))
            array_text_add(&source, "#define STORE(x) as_%s((%s)(x))\n%s",
                           real, unsigned_type, matmul_source);
        else
            array_text_add(&source, "#define STORE(x) ((REAL)(x))\n%s",
                           matmul_source);
    }
    kiln_kernel *kernel = NULL;
    kiln_status status =
        array_kernel_build_text(context, &source, "kiln_matmul", &kernel);
    if (status != KILN_OK)
        return status;
    const kiln_arg args[] = {
        KILN_ARG_BUFFER(a->buffer), KILN_ARG_LONG((int64_t)a->offset),
        KILN_ARG_BUFFER(b->buffer), KILN_ARG_LONG((int64_t)b->offset),
        KILN_ARG_BUFFER(c->buffer), KILN_ARG_LONG((int64_t)c->offset),
        KILN_ARG_INT((int32_t)m),   KILN_ARG_INT((int32_t)n),
        KILN_ARG_INT((int32_t)k),
    };
    kiln_launch_config config = {
        .grid = KILN_DIM2((n + 63) / 64, (m + 63) / 64),
        .block = KILN_DIM2(16, 16),
        .stream = stream,
    };
    status = kiln_launch(kernel, &config, 9, args);
    array_release_kernel(kernel);
    return status;
}

kiln_status kiln_array_blas_name(kiln_context *context, const char **name)
{
    if (context == NULL)
        return array_error(KILN_ERR_INVALID_HANDLE,
                           "kiln_array_blas_name: context is NULL");
    if (name == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "kiln_array_blas_name: name is NULL");
    *name = blas_library_name(blas_library_for(context));
    return kiln_error_set(KILN_OK, NULL);
}

/* `array` as C-contiguous `dtype` (a new reference: the array itself
 * when it already is). */
static kiln_status as_dtype(const kiln_array *array, kiln_dtype dtype,
                            kiln_stream *stream, kiln_array **result)
{
    if (array->dtype == dtype && array_is_contiguous(array)) {
        *result = (kiln_array *)array;
        return kiln_array_retain(*result);
    }
    return kiln_array_astype(array, dtype, stream, result);
}

kiln_status kiln_array_matmul(const kiln_array *a, const kiln_array *b,
                              kiln_stream *stream, kiln_array **result)
{
    static const char function[] = "kiln_array_matmul";
    kiln_status status = array_check(a, function, "a");
    if (status == KILN_OK)
        status = array_check(b, function, "b");
    if (status != KILN_OK)
        return status;
    if (result == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: result is NULL",
                           function);
    status = array_same_context(function, a, b);
    if (status != KILN_OK)
        return status;
    for (int k = 0; k < 2; ++k) {
        const kiln_array *x = k ? b : a;
        status = array_check_dtype(x->dtype, function);
        if (status != KILN_OK)
            return status;
        if (x->ndim == 0 || x->ndim > 2)
            return array_error(x->ndim == 0 ? KILN_ERR_SHAPE
                                            : KILN_ERR_UNSUPPORTED,
                               "%s: %s has %zu dimensions; matmul takes 1-D "
                               "and 2-D arrays (no batches)",
                               function, k ? "b" : "a", x->ndim);
    }
    /* (m, k) @ (k, n); a 1-D a is a row, a 1-D b a column */
    size_t m = a->ndim == 2 ? a->shape[0] : 1;
    size_t inner_a = a->shape[a->ndim - 1];
    size_t inner_b = b->shape[0];
    size_t n = b->ndim == 2 ? b->shape[1] : 1;
    if (inner_a != inner_b) {
        char sa[160], sb[160];
        array_shape_text(a, sa, sizeof sa);
        array_shape_text(b, sb, sizeof sb);
        return array_error(KILN_ERR_SHAPE,
                           "%s: shapes %s and %s: the inner sizes %zu and %zu "
                           "differ",
                           function, sa, sb, inner_a, inner_b);
    }
    kiln_dtype dtype = array_promote(a->dtype, b->dtype);
    size_t shape[2], ndim = 0;
    if (a->ndim == 2)
        shape[ndim++] = m;
    if (b->ndim == 2)
        shape[ndim++] = n;

    if (a->ndim == 1 && b->ndim == 1 && array_dtype_is_float(dtype)) {
        /* the inner product: multiply, then sum (integers go through the
         * product below, which keeps their dtype and wraps as NumPy's) */
        kiln_array *product = NULL;
        status = kiln_array_binary(KILN_OP_MULTIPLY, a, b, stream, &product);
        if (status != KILN_OK)
            return array_error_prefix(status, "%s", function);
        status = kiln_array_reduce(KILN_REDUCE_SUM, product, stream, result);
        array_release_array(product);
        return status;
    }

    kiln_array *made = NULL;
    status = array_new(a->context, dtype, ndim, shape, function, &made);
    if (status != KILN_OK)
        return status;
    if (made->size == 0) {
        *result = made;
        return kiln_error_set(KILN_OK, NULL);
    }
    if (inner_a == 0) {
        /* an empty sum: zeros */
        array_release_array(made);
        return kiln_array_zeros(a->context, dtype, ndim, shape, stream,
                                result);
    }
    kiln_array *a_typed = NULL, *b_typed = NULL;
    status = as_dtype(a, dtype, stream, &a_typed);
    if (status == KILN_OK)
        status = as_dtype(b, dtype, stream, &b_typed);
    if (status == KILN_OK) {
        /* cuBLAS and CLBlast multiply floating point only. */
        blas_library library = array_dtype_is_float(dtype)
                                   ? blas_library_for(a->context)
                                   : BLAS_GENERATED;
        if (library == BLAS_GENERATED)
            status = generated_gemm(a->context, dtype, m, n, inner_a, a_typed,
                                    b_typed, made, stream);
        else
            status = blas_gemm(library, a->context, dtype, m, n, inner_a,
                               a_typed, b_typed, made, stream);
    }
    if (a_typed != NULL)
        array_release_array(a_typed);
    if (b_typed != NULL)
        array_release_array(b_typed);
    if (status != KILN_OK) {
        array_release_array(made);
        return array_error_prefix(status, "%s", function);
    }
    *result = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_dot(const kiln_array *a, const kiln_array *b,
                           kiln_stream *stream, kiln_array **result)
{
    return kiln_array_matmul(a, b, stream, result);
}

/* ---- transpose ------------------------------------------------------------------- */

/* 2-D: 32 x 32 tiles through local memory (a padded column, so that the
 * transposed reads do not meet in one bank), 32 x 8 work-items each moving
 * four rows: both the reads and the writes coalesce. */
static const char transpose_source[] =
    "__kernel void kiln_transpose(__global const ELEMENT *in, long in_offset,\n"
    "                             __global ELEMENT *out, long out_offset,\n"
    "                             long rows, long cols)\n"
    "{\n"
    "    __local ELEMENT tile[32][33];\n"
    "    const long tiles_x = (cols + 31) / 32;\n"
    "    const long col0 = (get_group_id(0) % tiles_x) * 32;\n"
    "    const long row0 = (get_group_id(0) / tiles_x) * 32;\n"
    "    const int tx = get_local_id(0), ty = get_local_id(1);\n"
    "    for (int r = ty; r < 32; r += 8) {\n"
    "        const long row = row0 + r, col = col0 + tx;\n"
    "        if (row < rows && col < cols)\n"
    "            tile[r][tx] = in[in_offset + row * cols + col];\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int r = ty; r < 32; r += 8) {\n"
    "        const long out_row = col0 + r, out_col = row0 + tx;\n"
    "        if (out_row < cols && out_col < rows)\n"
    "            out[out_offset + out_row * rows + out_col] = tile[tx][r];\n"
    "    }\n"
    "}\n";

static kiln_status transpose_2d(const kiln_array *a, kiln_array *out,
                                kiln_stream *stream)
{
    array_text source = {0};
    array_text_add(&source, ARRAY_SOURCE_HEADER "#define ELEMENT %s\n%s",
                   array_dtype_ctype(a->dtype), transpose_source);
    kiln_kernel *kernel = NULL;
    kiln_status status = array_kernel_build_text(
        a->context, &source, "kiln_transpose", &kernel);
    if (status != KILN_OK)
        return status;
    size_t rows = a->shape[0], cols = a->shape[1];
    const kiln_arg args[] = {
        KILN_ARG_BUFFER(a->buffer),      KILN_ARG_LONG((int64_t)a->offset),
        KILN_ARG_BUFFER(out->buffer),    KILN_ARG_LONG((int64_t)out->offset),
        KILN_ARG_LONG((int64_t)rows),    KILN_ARG_LONG((int64_t)cols),
    };
    kiln_launch_config config = {
        .grid = KILN_DIM1(((rows + 31) / 32) * ((cols + 31) / 32)),
        .block = KILN_DIM2(32, 8),
        .stream = stream,
    };
    status = kiln_launch(kernel, &config, 6, args);
    array_release_kernel(kernel);
    return status;
}

/* n-D: each output element gathers its input element; the permuted
 * strides and the output's sizes are arguments. */
static kiln_status transpose_gather(const kiln_array *a, const size_t *axes,
                                    kiln_array *out, kiln_stream *stream)
{
    size_t ndim = a->ndim;
    size_t strides[KILN_ARRAY_MAX_DIMS], stride = 1;
    for (size_t d = ndim; d-- > 0;) {
        strides[d] = stride;
        stride *= a->shape[d];
    }
    array_text source = {0};
    array_text_add(&source,
                   ARRAY_SOURCE_HEADER
                   "__kernel void kiln_permute(__global const %1$s *in, "
                   "long in_offset, __global %1$s *out, long out_offset, "
                   "long n",
                   array_dtype_ctype(a->dtype));
    kiln_arg args[5 + 2 * KILN_ARRAY_MAX_DIMS];
    int64_t values[2 * KILN_ARRAY_MAX_DIMS];
    size_t count = 0;
    args[count++] = KILN_ARG_BUFFER(a->buffer);
    args[count++] = KILN_ARG_LONG((int64_t)a->offset);
    args[count++] = KILN_ARG_BUFFER(out->buffer);
    args[count++] = KILN_ARG_LONG((int64_t)out->offset);
    args[count++] = KILN_ARG_LONG((int64_t)out->size);
    for (size_t d = 0; d < ndim; ++d) {
        array_text_add(&source, ", long size%zu, long stride%zu", d, d);
        values[2 * d] = (int64_t)out->shape[d];
        values[2 * d + 1] = (int64_t)strides[axes[d]];
        args[count++] = KILN_ARG_VALUE(&values[2 * d], 8);
        args[count++] = KILN_ARG_VALUE(&values[2 * d + 1], 8);
    }
    array_text_add(&source,
                   ")\n{\n"
                   "    for (long i = get_global_id(0); i < n; i += "
                   "get_global_size(0)) {\n"
                   "        long rest = i, index = in_offset;\n");
    for (size_t d = ndim; d-- > 0;)
        array_text_add(&source,
                       "        index += (rest %% size%zu) * stride%zu;\n"
                       "        rest /= size%zu;\n",
                       d, d, d);
    array_text_add(&source, "        out[out_offset + i] = in[index];\n"
                            "    }\n}\n");
    kiln_kernel *kernel = NULL;
    kiln_status status =
        array_kernel_build_text(a->context, &source, "kiln_permute", &kernel);
    if (status != KILN_OK)
        return status;
    status = array_launch_1d(kernel, out->size, (size_t)1 << 16, stream,
                             count, args);
    array_release_kernel(kernel);
    return status;
}

kiln_status kiln_array_transpose(const kiln_array *a, const size_t *axes,
                                 kiln_stream *stream, kiln_array **result)
{
    static const char function[] = "kiln_array_transpose";
    kiln_status status = array_check(a, function, "a");
    if (status != KILN_OK)
        return status;
    if (result == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: result is NULL",
                           function);
    size_t order[KILN_ARRAY_MAX_DIMS];
    bool seen[KILN_ARRAY_MAX_DIMS] = {false};
    for (size_t d = 0; d < a->ndim; ++d) {
        order[d] = axes ? axes[d] : a->ndim - 1 - d;
        if (order[d] >= a->ndim || seen[order[d]])
            return array_error(KILN_ERR_SHAPE,
                               "%s: axes is not a permutation of 0..%zu "
                               "(axes[%zu] = %zu)",
                               function, a->ndim - 1, d, order[d]);
        seen[order[d]] = true;
    }
    size_t shape[KILN_ARRAY_MAX_DIMS];
    for (size_t d = 0; d < a->ndim; ++d)
        shape[d] = a->shape[order[d]];
    kiln_array *made = NULL, *source = NULL;
    status = array_new(a->context, a->dtype, a->ndim, shape, function, &made);
    if (status != KILN_OK)
        return status;
    if (made->size > 0) {
        /* the kernels read a in C order */
        status = array_contiguous(a, stream, function, &source);
        if (status == KILN_OK && a->ndim == 2 && order[0] == 1)
            status = transpose_2d(source, made, stream);
        else if (status == KILN_OK)
            status = transpose_gather(source, order, made, stream);
        if (source != NULL)
            array_release_array(source);
    }
    if (status != KILN_OK) {
        array_release_array(made);
        return array_error_prefix(status, "%s", function);
    }
    *result = made;
    return kiln_error_set(KILN_OK, NULL);
}
