/*
 * Reductions (sum, prod, mean, min, max, argmin, argmax over everything
 * and along each axis), matrix products (the generated kernel, and CLBlast
 * or cuBLAS where installed), transposes, and operations queued on a
 * stream of their own, each against the CPU on every backend.
 */
#include "config.h"

#include "array_test.h"

#include <stdio.h>

static const char *const op_names[] = {"sum",    "prod",   "mean",  "min",
                                       "max",    "argmin", "argmax"};

/* The reduction of n values v[first], v[first + step], ... */
static double reduce_cpu(kiln_array_reduce_op op, const double *v,
                         size_t first, size_t n, size_t step)
{
    double acc = op == KILN_REDUCE_PROD ? 1 : 0;
    double best = v[first];
    size_t best_index = 0;
    for (size_t j = 0; j < n; ++j) {
        double x = v[first + j * step];
        switch (op) {
        case KILN_REDUCE_SUM:
        case KILN_REDUCE_MEAN:
            acc += x;
            break;
        case KILN_REDUCE_PROD:
            acc *= x;
            break;
        case KILN_REDUCE_MIN:
        case KILN_REDUCE_ARGMIN:
            if (x < best) {
                best = x;
                best_index = j;
            }
            break;
        default:
            if (x > best) {
                best = x;
                best_index = j;
            }
            break;
        }
    }
    switch (op) {
    case KILN_REDUCE_SUM:
    case KILN_REDUCE_PROD:
        return acc;
    case KILN_REDUCE_MEAN:
        return acc / (double)n;
    case KILN_REDUCE_MIN:
    case KILN_REDUCE_MAX:
        return best;
    default:
        return (double)best_index;
    }
}

static kiln_dtype result_dtype(kiln_array_reduce_op op, kiln_dtype input)
{
    bool is_float = input == KILN_DTYPE_FLOAT32 || input == KILN_DTYPE_FLOAT64;
    switch (op) {
    case KILN_REDUCE_SUM:
    case KILN_REDUCE_PROD:
        if (is_float)
            return input;
        return input == KILN_DTYPE_UINT8 || input == KILN_DTYPE_UINT16 ||
                       input == KILN_DTYPE_UINT32 || input == KILN_DTYPE_UINT64
                   ? KILN_DTYPE_UINT64
                   : KILN_DTYPE_INT64;
    case KILN_REDUCE_MEAN:
        return input == KILN_DTYPE_FLOAT32 ? input : KILN_DTYPE_FLOAT64;
    case KILN_REDUCE_MIN:
    case KILN_REDUCE_MAX:
        return input;
    default:
        return KILN_DTYPE_INT64;
    }
}

/* Every reduction of `a` (values v, shape `shape`) over everything and
 * along every axis. */
static void check_reductions(kiln_array *a, kiln_dtype dtype, const double *v,
                             size_t ndim, const size_t *shape,
                             const kiln_array_reduce_op *ops, size_t op_count,
                             double tolerance)
{
    size_t n = 1;
    for (size_t d = 0; d < ndim; ++d)
        n *= shape[d];
    double *expected = test_alloc(n * sizeof *expected);
    for (size_t o = 0; o < op_count; ++o) {
        kiln_array_reduce_op op = ops[o];
        kiln_dtype out = result_dtype(op, dtype);
        kiln_array *r = NULL;
        TEST_OK(kiln_array_reduce(op, a, NULL, &r));
        array_test_shape(r, 0, NULL);
        double *got = array_test_read(r, out);
        expected[0] = reduce_cpu(op, v, 0, n, 1);
        char what[64];
        snprintf(what, sizeof what, "%s of everything", op_names[op]);
        array_test_near(got, expected, 1, tolerance, what);
        free(got);
        kiln_array_release(r);
        for (size_t axis = 0; axis < ndim; ++axis) {
            size_t outer = 1, inner = 1, kept[KILN_ARRAY_MAX_DIMS], k = 0;
            for (size_t d = 0; d < ndim; ++d) {
                if (d < axis)
                    outer *= shape[d];
                if (d > axis)
                    inner *= shape[d];
                if (d != axis)
                    kept[k++] = shape[d];
            }
            /* axis counted from the end for the last one */
            int axis_argument = axis == ndim - 1 ? -1 : (int)axis;
            TEST_OK(kiln_array_reduce_axis(op, a, axis_argument, NULL, &r));
            array_test_shape(r, ndim - 1, kept);
            got = array_test_read(r, out);
            for (size_t p = 0; p < outer; ++p)
                for (size_t q = 0; q < inner; ++q)
                    expected[p * inner + q] = reduce_cpu(
                        op, v, p * shape[axis] * inner + q, shape[axis],
                        inner);
            snprintf(what, sizeof what, "%s along axis %zu", op_names[op],
                     axis);
            array_test_near(got, expected, outer * inner, tolerance, what);
            free(got);
            kiln_array_release(r);
        }
    }
    free(expected);
}

static void float_reductions_over_every_axis(void **state)
{
    kiln_context *context = test_context(state);
    /* axis 0 and 1 are column reductions (inner > 1), axis 2 rows */
    const size_t shape[] = {5, 37, 19};
    double *v = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT32, 3, shape,
                                      0.5, 1.5, &v);
    /* the others share these templates: integer_reductions_are_exact
     * takes prod, max and argmin */
    const kiln_array_reduce_op ops[] = {KILN_REDUCE_SUM, KILN_REDUCE_MEAN,
                                        KILN_REDUCE_MIN, KILN_REDUCE_ARGMAX};
    check_reductions(a, KILN_DTYPE_FLOAT32, v, 3, shape, ops,
                     sizeof ops / sizeof *ops, 2e-5);
    kiln_array_release(a);
    free(v);
}

/* Integers, exact: sums widen to int64, products; ties in argmin (few
 * distinct values: many) go to the first index. */
static void integer_reductions_are_exact(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {6, 7};
    double *v = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_INT8, 2, shape, -3,
                                      4, &v);
    const kiln_array_reduce_op ops[] = {KILN_REDUCE_SUM, KILN_REDUCE_PROD,
                                        KILN_REDUCE_MAX, KILN_REDUCE_ARGMIN};
    check_reductions(a, KILN_DTYPE_INT8, v, 2, shape, ops,
                     sizeof ops / sizeof *ops, 0);
    kiln_array_release(a);
    free(v);
}

/* Large enough that the reduced axis is split over work-groups and a
 * second launch combines them: everything, the last axis of few rows, the
 * first axis of few columns. */
static void split_reductions(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {3, 70001};
    double *v = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT64, 2, shape,
                                      -1, 1, &v);
    const kiln_array_reduce_op ops[] = {KILN_REDUCE_SUM, KILN_REDUCE_ARGMIN};
    /* 70001 doubles summed in another order than the CPU's: about n eps
     * times the partial sums apart */
    check_reductions(a, KILN_DTYPE_FLOAT64, v, 2, shape, ops, 2, 1e-9);
    kiln_array *t = NULL;
    TEST_OK(kiln_array_transpose(a, NULL, NULL, &t));
    double *vt = test_alloc(3 * 70001 * sizeof *vt);
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 70001; ++j)
            vt[j * 3 + i] = v[i * 70001 + j];
    const size_t shape_t[] = {70001, 3};
    check_reductions(t, KILN_DTYPE_FLOAT64, vt, 2, shape_t, ops, 2, 1e-9);
    kiln_array_release(t);
    kiln_array_release(a);
    free(v);
    free(vt);

    /* Few columns over a long axis: split into hundreds of stretches,
     * whose partials combine in trees; small integers tie often, and the
     * first index of the extreme must win across stretches too. */
    const size_t tall[] = {9001, 3};
    kiln_array *b = array_test_random(context, KILN_DTYPE_INT8, 2, tall, -3,
                                      3, &v);
    const kiln_array_reduce_op exact[] = {KILN_REDUCE_SUM, KILN_REDUCE_MIN,
                                          KILN_REDUCE_ARGMIN,
                                          KILN_REDUCE_ARGMAX};
    check_reductions(b, KILN_DTYPE_INT8, v, 2, tall, exact,
                     sizeof exact / sizeof *exact, 0);
    kiln_array_release(b);
    free(v);
}

/* Shapes for the axis paths' corners: a long middle axis over a partial
 * column tile (split, then one work-item per output combines), many short
 * rows, and a long first axis over few columns; odd sizes throughout. */
static void long_axes_over_few_columns(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {2, 5003, 67};
    double *v = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT32, 3, shape,
                                      0.5, 1.5, &v);
    const kiln_array_reduce_op ops[] = {KILN_REDUCE_SUM, KILN_REDUCE_MEAN,
                                        KILN_REDUCE_MAX, KILN_REDUCE_ARGMIN};
    /* float32 sums of 5003 terms in another order than the CPU's */
    check_reductions(a, KILN_DTYPE_FLOAT32, v, 3, shape, ops,
                     sizeof ops / sizeof *ops, 1e-4);
    kiln_array_release(a);
    free(v);

    const size_t columns[] = {4099, 33};
    kiln_array *b = array_test_random(context, KILN_DTYPE_INT16, 2, columns,
                                      -1000, 1000, &v);
    const kiln_array_reduce_op exact[] = {KILN_REDUCE_SUM, KILN_REDUCE_MIN,
                                          KILN_REDUCE_ARGMAX};
    check_reductions(b, KILN_DTYPE_INT16, v, 2, columns, exact,
                     sizeof exact / sizeof *exact, 0);
    kiln_array_release(b);
    free(v);
}

static void empty_reductions(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {3, 0};
    kiln_array *a = NULL, *r = NULL;
    TEST_OK(kiln_array_empty(context, KILN_DTYPE_FLOAT32, 2, shape, &a));
    TEST_OK(kiln_array_reduce_axis(KILN_REDUCE_SUM, a, 1, NULL, &r));
    double *got = array_test_read(r, KILN_DTYPE_FLOAT32);
    const double zeros[3] = {0, 0, 0};
    array_test_near(got, zeros, 3, 0, "sum of nothing");
    free(got);
    kiln_array_release(r);
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_reduce(KILN_REDUCE_MAX, a, NULL, &r));
    TEST_ERROR_MENTIONS("empty");
    kiln_array_release(a);
}

/* A NaN wins min and max wherever it stands (NumPy's rule), along a
 * split axis 0 (both finish paths' combines) and over everything;
 * columns without one keep their extreme. */
static void nan_wins_min_and_max(void **state)
{
    kiln_context *context = test_context(state);
    const size_t rows = 2003, columns = 5;
    const size_t shape[] = {rows, columns};
    float *host = test_alloc(rows * columns * sizeof *host);
    for (size_t i = 0; i < rows * columns; ++i)
        host[i] = (float)((i * 7919) % 1000) - 500.0f;
    host[1500 * columns + 1] = NAN; /* column 1, late */
    host[0 * columns + 3] = NAN;    /* column 3, first row */
    kiln_array *a = NULL;
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_FLOAT32, 2, shape, host,
                                 rows * columns * sizeof *host, NULL, &a));
    for (int op = KILN_REDUCE_MIN; op <= KILN_REDUCE_MAX; ++op) {
        kiln_array *r = NULL;
        TEST_OK(kiln_array_reduce_axis((kiln_array_reduce_op)op, a, 0, NULL,
                                       &r));
        double *got = array_test_read(r, KILN_DTYPE_FLOAT32);
        for (size_t c = 0; c < columns; ++c) {
            double want = host[c];
            for (size_t i = 1; i < rows; ++i) {
                double v = host[i * columns + c];
                want = op == KILN_REDUCE_MIN ? (v < want ? v : want)
                                             : (v > want ? v : want);
            }
            if (c == 1 || c == 3)
                assert_true(isnan(got[c]));
            else
                assert_true(got[c] == want);
        }
        free(got);
        kiln_array_release(r);
        TEST_OK(kiln_array_reduce((kiln_array_reduce_op)op, a, NULL, &r));
        got = array_test_read(r, KILN_DTYPE_FLOAT32);
        assert_true(isnan(got[0]));
        free(got);
        kiln_array_release(r);
    }
    kiln_array_release(a);
    free(host);
}

/* C = A B through the generated kernel (sizes not multiples of its
 * tiles), both float types, a view as an operand, 1-D operands. */
static void matmul_generated_kernel(void **state)
{
    kiln_context *context = test_context(state);
    setenv("KILN_ARRAY_BLAS", "generated", 1);
    const char *name = NULL;
    TEST_OK(kiln_array_blas_name(context, &name));
    assert_string_equal(name, "generated");
    const size_t m = 67, k = 45, n = 93;
    for (int t = 0; t < 2; ++t) {
        kiln_dtype dtype = t ? KILN_DTYPE_FLOAT64 : KILN_DTYPE_FLOAT32;
        const size_t shape_a[] = {m + 2, k}, shape_b[] = {k, n};
        double *va = NULL, *vb = NULL;
        kiln_array *a_all = array_test_random(context, dtype, 2, shape_a, -1,
                                              1, &va);
        kiln_array *b = array_test_random(context, dtype, 2, shape_b, -1, 1,
                                          &vb);
        kiln_array *a = NULL, *c = NULL;
        TEST_OK(kiln_array_slice(a_all, 2, m + 2, &a)); /* rows 2.. */
        TEST_OK(kiln_array_matmul(a, b, NULL, &c));
        const size_t shape_c[] = {m, n};
        array_test_shape(c, 2, shape_c);
        double *got = array_test_read(c, dtype);
        double *expected = test_alloc(m * n * sizeof *expected);
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j) {
                double s = 0;
                for (size_t l = 0; l < k; ++l)
                    s += va[(i + 2) * k + l] * vb[l * n + j];
                expected[i * n + j] = s;
            }
        array_test_near(got, expected, m * n, t ? 1e-12 : 1e-5, "matmul");
        free(got);
        /* matrix @ vector: row 0 of b as a vector of length n? no: a
         * column of length k */
        kiln_array *vector = NULL, *mv = NULL;
        const size_t shape_v[] = {k};
        double *vv = NULL;
        vector = array_test_random(context, dtype, 1, shape_v, -1, 1, &vv);
        TEST_OK(kiln_array_dot(a, vector, NULL, &mv));
        const size_t shape_mv[] = {m};
        array_test_shape(mv, 1, shape_mv);
        got = array_test_read(mv, dtype);
        for (size_t i = 0; i < m; ++i) {
            double s = 0;
            for (size_t l = 0; l < k; ++l)
                s += va[(i + 2) * k + l] * vv[l];
            expected[i] = s;
        }
        array_test_near(got, expected, m, t ? 1e-12 : 1e-5, "matrix @ vector");
        free(got);
        kiln_array *inner = NULL;
        TEST_OK(kiln_array_dot(vector, vector, NULL, &inner));
        array_test_shape(inner, 0, NULL);
        got = array_test_read(inner, dtype);
        double s = 0;
        for (size_t l = 0; l < k; ++l)
            s += vv[l] * vv[l];
        array_test_near(got, &s, 1, t ? 1e-12 : 1e-5, "inner product");
        free(got);
        free(expected);
        free(va);
        free(vb);
        free(vv);
        kiln_array_release(a_all);
        kiln_array_release(a);
        kiln_array_release(b);
        kiln_array_release(c);
        kiln_array_release(vector);
        kiln_array_release(mv);
        kiln_array_release(inner);
    }
    unsetenv("KILN_ARRAY_BLAS");
}

/* The library's product where one is installed (CLBlast on OpenCL,
 * cuBLAS on CUDA), else the generated one again: the same answer. */
static void matmul_through_the_library(void **state)
{
    kiln_context *context = test_context(state);
    const char *name = NULL;
    TEST_OK(kiln_array_blas_name(context, &name));
    print_message("# matmul on %s uses %s\n", test_backend(state), name);
    const size_t m = 40, k = 24, n = 33;
    const size_t shape_a[] = {m, k}, shape_b[] = {k, n};
    double *va = NULL, *vb = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape_a,
                                      -1, 1, &va);
    kiln_array *b = array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape_b,
                                      -1, 1, &vb);
    kiln_array *c = NULL;
    TEST_OK(kiln_array_matmul(a, b, NULL, &c));
    double *got = array_test_read(c, KILN_DTYPE_FLOAT32);
    double expected[40 * 33];
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < n; ++j) {
            double s = 0;
            for (size_t l = 0; l < k; ++l)
                s += va[i * k + l] * vb[l * n + j];
            expected[i * n + j] = s;
        }
    array_test_near(got, expected, m * n, 1e-5, "library matmul");
    free(got);
    free(va);
    free(vb);
    kiln_array_release(a);
    kiln_array_release(b);
    kiln_array_release(c);
}

/* Integer products as NumPy computes them: the dtype kept, every sum
 * wrapped (int8 sums of 29 products of up to 127 * 127 wrap many times;
 * int32 and uint64 take the whole range), a 1-D @ 1-D product a 0-d
 * array of the dtype, and int32 with float32 in float64. */
static void matmul_of_integers(void **state)
{
    kiln_context *context = test_context(state);
    const size_t m = 37, k = 29, n = 41;
    const size_t shape_a[] = {m, k}, shape_b[] = {k, n};
    const kiln_dtype dtypes[] = {KILN_DTYPE_INT8, KILN_DTYPE_UINT16,
                                 KILN_DTYPE_INT32, KILN_DTYPE_UINT64};
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; ++t) {
        kiln_dtype dtype = dtypes[t];
        size_t bytes = kiln_dtype_size(dtype);
        uint64_t mask = bytes == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * bytes)) - 1;
        unsigned char *ha = test_alloc(m * k * bytes), *hb = test_alloc(k * n * bytes);
        for (size_t i = 0; i < m * k * bytes; ++i)
            ha[i] = (unsigned char)test_random_u64();
        for (size_t i = 0; i < k * n * bytes; ++i)
            hb[i] = (unsigned char)test_random_u64();
        kiln_array *a = NULL, *b = NULL, *c = NULL;
        TEST_OK(kiln_array_from_host(context, dtype, 2, shape_a, ha,
                                     m * k * bytes, NULL, &a));
        TEST_OK(kiln_array_from_host(context, dtype, 2, shape_b, hb,
                                     k * n * bytes, NULL, &b));
        TEST_OK(kiln_array_matmul(a, b, NULL, &c));
        const size_t shape_c[] = {m, n};
        array_test_shape(c, 2, shape_c);
        kiln_dtype got_dtype;
        TEST_OK(kiln_array_get_dtype(c, &got_dtype));
        assert_int_equal(got_dtype, dtype);
        unsigned char *hc = test_alloc(m * n * bytes);
        TEST_OK(kiln_array_to_host(c, hc, m * n * bytes, NULL));
        /* The reference: the operands' two's complement bits (sign
         * extended for the signed types), summed in uint64 and cut to the
         * dtype: the low bits of the true sum. */
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j) {
                uint64_t sum = 0;
                for (size_t l = 0; l < k; ++l) {
                    uint64_t x = 0, y = 0;
                    memcpy(&x, ha + (i * k + l) * bytes, bytes);
                    memcpy(&y, hb + (l * n + j) * bytes, bytes);
                    if (dtype == KILN_DTYPE_INT8 || dtype == KILN_DTYPE_INT32) {
                        uint64_t sign = (uint64_t)1 << (8 * bytes - 1);
                        x = (x ^ sign) - sign;
                        y = (y ^ sign) - sign;
                    }
                    sum += x * y;
                }
                uint64_t got = 0;
                memcpy(&got, hc + (i * n + j) * bytes, bytes);
                if (got != (sum & mask))
                    fail_msg("%s: c[%zu][%zu] is %#llx, expected %#llx",
                             kiln_dtype_name(dtype), i, j,
                             (unsigned long long)got,
                             (unsigned long long)(sum & mask));
            }
        free(ha);
        free(hb);
        free(hc);
        kiln_array_release(a);
        kiln_array_release(b);
        kiln_array_release(c);
    }

    /* 1-D @ 1-D: a 0-d int32, wrapped */
    const size_t s[] = {1000};
    int32_t hv[1000], hw[1000];
    uint32_t sum = 0;
    for (size_t i = 0; i < 1000; ++i) {
        hv[i] = (int32_t)(uint32_t)test_random_u64();
        hw[i] = (int32_t)(uint32_t)test_random_u64();
        sum += (uint32_t)hv[i] * (uint32_t)hw[i];
    }
    kiln_array *v = NULL, *w = NULL, *inner = NULL;
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_INT32, 1, s, hv,
                                 sizeof hv, NULL, &v));
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_INT32, 1, s, hw,
                                 sizeof hw, NULL, &w));
    TEST_OK(kiln_array_dot(v, w, NULL, &inner));
    array_test_shape(inner, 0, NULL);
    int32_t got = 0;
    TEST_OK(kiln_array_to_scalar(inner, &got, sizeof got, NULL));
    assert_true((uint32_t)got == sum);

    /* int32 @ float32: float64, as NumPy promotes */
    const size_t s23[] = {2, 3}, s32[] = {3, 2};
    double *vf = NULL;
    int32_t hi[6];
    for (size_t i = 0; i < 6; ++i)
        hi[i] = (int32_t)(test_random_u64() % 2001) - 1000;
    kiln_array *ai = NULL, *bf = NULL, *cf = NULL;
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_INT32, 2, s23, hi,
                                 sizeof hi, NULL, &ai));
    bf = array_test_random(context, KILN_DTYPE_FLOAT32, 2, s32, -1, 1, &vf);
    TEST_OK(kiln_array_matmul(ai, bf, NULL, &cf));
    double *gotf = array_test_read(cf, KILN_DTYPE_FLOAT64);
    double expected[4];
    for (size_t i = 0; i < 2; ++i)
        for (size_t j = 0; j < 2; ++j) {
            expected[i * 2 + j] = 0;
            for (size_t l = 0; l < 3; ++l)
                expected[i * 2 + j] += hi[i * 3 + l] * vf[l * 2 + j];
        }
    array_test_near(gotf, expected, 4, 1e-12, "int32 @ float32");
    free(gotf);
    free(vf);
    kiln_array_release(v);
    kiln_array_release(w);
    kiln_array_release(inner);
    kiln_array_release(ai);
    kiln_array_release(bf);
    kiln_array_release(cf);
}

static void transposes(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {33, 70};
    double *v = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_INT32, 2, shape,
                                      -1000, 1000, &v);
    kiln_array *t = NULL;
    TEST_OK(kiln_array_transpose(a, NULL, NULL, &t));
    const size_t shape_t[] = {70, 33};
    array_test_shape(t, 2, shape_t);
    double *got = array_test_read(t, KILN_DTYPE_INT32);
    for (size_t i = 0; i < 33; ++i)
        for (size_t j = 0; j < 70; ++j)
            if (got[j * 33 + i] != v[i * 70 + j])
                fail_msg("t[%zu][%zu] = %g, expected %g", j, i,
                         got[j * 33 + i], v[i * 70 + j]);
    free(got);
    kiln_array_release(t);
    kiln_array_release(a);
    free(v);

    /* 3-D with axes (1, 2, 0) */
    const size_t shape3[] = {3, 4, 5}, axes[] = {1, 2, 0};
    a = array_test_random(context, KILN_DTYPE_FLOAT32, 3, shape3, -1, 1, &v);
    TEST_OK(kiln_array_transpose(a, axes, NULL, &t));
    const size_t shape3_t[] = {4, 5, 3};
    array_test_shape(t, 3, shape3_t);
    got = array_test_read(t, KILN_DTYPE_FLOAT32);
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 4; ++j)
            for (size_t l = 0; l < 5; ++l)
                if (got[(j * 5 + l) * 3 + i] != v[(i * 4 + j) * 5 + l])
                    fail_msg("3-D transpose differs at (%zu, %zu, %zu)", i, j,
                             l);
    free(got);
    kiln_array_release(t);
    kiln_array_release(a);
    free(v);
}

/* A chain of operations queued on one stream, read back on it. */
static void operations_on_a_stream(void **state)
{
    kiln_context *context = test_context(state);
    kiln_stream *stream = NULL;
    TEST_OK(kiln_stream_create(context, &stream));
    const size_t shape[] = {300};
    float host[300];
    test_random_floats(host, 300, 1, 2);
    kiln_array *x = NULL, *y = NULL, *z = NULL, *s = NULL;
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_FLOAT32, 1, shape, host,
                                 sizeof host, stream, &x));
    TEST_OK(kiln_array_math(KILN_FN_SQRT, x, stream, &y));
    TEST_OK(kiln_array_binary(KILN_OP_MULTIPLY, x, y, stream, &z));
    TEST_OK(kiln_array_reduce(KILN_REDUCE_SUM, z, stream, &s));
    float total = 0;
    TEST_OK(kiln_array_to_host(s, &total, sizeof total, stream));
    double expected = 0;
    for (size_t i = 0; i < 300; ++i)
        expected += (double)host[i] * sqrt((double)host[i]);
    assert_true(fabs(total - expected) < 1e-5 * expected);
    kiln_array_release(x);
    kiln_array_release(y);
    kiln_array_release(z);
    kiln_array_release(s);
    kiln_stream_release(stream);
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(float_reductions_over_every_axis),
        KILN_TEST(integer_reductions_are_exact),
        KILN_TEST(split_reductions),
        KILN_TEST(long_axes_over_few_columns),
        KILN_TEST(empty_reductions),
        KILN_TEST(nan_wins_min_and_max),
        KILN_TEST(matmul_generated_kernel),
        KILN_TEST(matmul_through_the_library),
        KILN_TEST(matmul_of_integers),
        KILN_TEST(transposes),
        KILN_TEST(operations_on_a_stream),
    };
    return kiln_test_main("array_reduce", tests,
                          sizeof tests / sizeof tests[0]);
}
