/*
 * Boolean masks (NumPy's a[mask], a[mask] = values, a[mask] = value, with
 * masks of the whole shape or of the first axes, on views too) and
 * reductions of a OP b without the intermediate array ((x * x).sum(),
 * (x > t).sum(), (x - y).max(axis=1)), each against the CPU with random
 * inputs on every backend.
 */
#include "config.h"

#include "array_test.h"

#include <stdio.h>

/* A random bool array of `shape` (about half true) and its values. */
static kiln_array *random_mask(kiln_context *context, size_t ndim,
                               const size_t *shape, double **values)
{
    return array_test_random(context, KILN_DTYPE_BOOL, ndim, shape, 0, 1,
                             values);
}

static void selecting_with_masks(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {30, 7}, rows_shape[] = {30};
    double *v = NULL, *m = NULL, *mr = NULL;
    kiln_array *a =
        array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape, -1, 1, &v);
    kiln_array *mask = random_mask(context, 2, shape, &m);
    kiln_array *rows = random_mask(context, 1, rows_shape, &mr);
    double *expected = test_alloc(210 * sizeof *expected);

    /* a[mask]: the selected elements in C order */
    kiln_array *r = NULL;
    TEST_OK(kiln_array_mask_select(a, mask, NULL, &r));
    size_t count = 0;
    for (size_t i = 0; i < 210; ++i)
        if (m[i] != 0)
            expected[count++] = v[i];
    const size_t flat[] = {count};
    array_test_shape(r, 1, flat);
    double *got = array_test_read(r, KILN_DTYPE_FLOAT32);
    array_test_near(got, expected, count, 0, "a[mask]");
    free(got);
    kiln_array_release(r);

    /* a[rows]: whole rows */
    TEST_OK(kiln_array_mask_select(a, rows, NULL, &r));
    count = 0;
    for (size_t i = 0; i < 30; ++i)
        if (mr[i] != 0) {
            for (size_t j = 0; j < 7; ++j)
                expected[count * 7 + j] = v[i * 7 + j];
            ++count;
        }
    const size_t selected[] = {count, 7};
    array_test_shape(r, 2, selected);
    got = array_test_read(r, KILN_DTYPE_FLOAT32);
    array_test_near(got, expected, count * 7, 0, "a[rows]");
    free(got);
    kiln_array_release(r);

    /* a.T[mask.T]: a mask and an array that are views */
    kiln_array *at = NULL, *mt = NULL;
    const size_t t_shape[] = {7, 30};
    const int64_t t_strides[] = {1, 7};
    TEST_OK(kiln_array_view(a, 0, 2, t_shape, t_strides, &at));
    TEST_OK(kiln_array_view(mask, 0, 2, t_shape, t_strides, &mt));
    TEST_OK(kiln_array_mask_select(at, mt, NULL, &r));
    count = 0;
    for (size_t j = 0; j < 7; ++j)
        for (size_t i = 0; i < 30; ++i)
            if (m[i * 7 + j] != 0)
                expected[count++] = v[i * 7 + j];
    got = array_test_read(r, KILN_DTYPE_FLOAT32);
    array_test_near(got, expected, count, 0, "a.T[mask.T]");
    free(got);
    kiln_array_release(r);

    /* nothing selected: an empty result */
    kiln_array *none = NULL;
    TEST_OK(kiln_array_zeros(context, KILN_DTYPE_BOOL, 2, shape, NULL, &none));
    TEST_OK(kiln_array_mask_select(a, none, NULL, &r));
    const size_t empty[] = {0};
    array_test_shape(r, 1, empty);
    kiln_array_release(r);
    kiln_array_release(none);

    /* an integer mask, or one of another shape, is refused */
    kiln_array *ints = NULL;
    TEST_OK(kiln_array_astype(mask, KILN_DTYPE_INT32, NULL, &ints));
    TEST_FAILS(KILN_ERR_DTYPE, kiln_array_mask_select(a, ints, NULL, &r));
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_mask_select(at, mask, NULL, &r));
    kiln_array_release(ints);
    kiln_array_release(at);
    kiln_array_release(mt);
    kiln_array_release(a);
    kiln_array_release(mask);
    kiln_array_release(rows);
    free(expected);
    free(v);
    free(m);
    free(mr);
}

static void writing_with_masks(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {25, 4}, rows_shape[] = {25}, row_shape[] = {4};
    double *v = NULL, *m = NULL, *mr = NULL, *w = NULL;
    kiln_array *a =
        array_test_random(context, KILN_DTYPE_INT32, 2, shape, -99, 99, &v);
    kiln_array *mask = random_mask(context, 2, shape, &m);
    kiln_array *rows = random_mask(context, 1, rows_shape, &mr);

    /* a[mask] = -5 */
    TEST_OK(kiln_array_mask_fill(a, mask, -5, NULL));
    for (size_t i = 0; i < 100; ++i)
        if (m[i] != 0)
            v[i] = -5;
    double *got = array_test_read(a, KILN_DTYPE_INT32);
    array_test_near(got, v, 100, 0, "a[mask] = -5");
    free(got);

    /* a[mask] = values, float64 converted to int32 */
    size_t count = 0;
    for (size_t i = 0; i < 100; ++i)
        count += m[i] != 0;
    const size_t values_shape[] = {count};
    kiln_array *values = array_test_random(context, KILN_DTYPE_FLOAT64, 1,
                                           values_shape, -500, 500, &w);
    TEST_OK(kiln_array_mask_assign(a, mask, values, NULL));
    for (size_t i = 0, k = 0; i < 100; ++i)
        if (m[i] != 0)
            v[i] = trunc(w[k++]);
    got = array_test_read(a, KILN_DTYPE_INT32);
    array_test_near(got, v, 100, 0, "a[mask] = values");
    free(got);
    kiln_array_release(values);
    free(w);

    /* a[rows] = row (broadcast: no count) */
    kiln_array *row = array_test_random(context, KILN_DTYPE_INT32, 1,
                                        row_shape, 100, 200, &w);
    TEST_OK(kiln_array_mask_assign(a, rows, row, NULL));
    for (size_t i = 0; i < 25; ++i)
        if (mr[i] != 0)
            for (size_t j = 0; j < 4; ++j)
                v[i * 4 + j] = w[j];
    got = array_test_read(a, KILN_DTYPE_INT32);
    array_test_near(got, v, 100, 0, "a[rows] = row");
    free(got);
    kiln_array_release(row);
    free(w);

    /* a[rows] = one row for each selected row */
    count = 0;
    for (size_t i = 0; i < 25; ++i)
        count += mr[i] != 0;
    const size_t rows_values_shape[] = {count, 4};
    kiln_array *rows_values = array_test_random(
        context, KILN_DTYPE_INT32, 2, rows_values_shape, 300, 400, &w);
    TEST_OK(kiln_array_mask_assign(a, rows, rows_values, NULL));
    for (size_t i = 0, k = 0; i < 25; ++i)
        if (mr[i] != 0) {
            for (size_t j = 0; j < 4; ++j)
                v[i * 4 + j] = w[k * 4 + j];
            ++k;
        }
    got = array_test_read(a, KILN_DTYPE_INT32);
    array_test_near(got, v, 100, 0, "a[rows] = rows");
    free(got);
    kiln_array *at = NULL, *mt = NULL;
    const size_t t_shape[] = {4, 25};
    const int64_t t_strides[] = {1, 4};
    TEST_OK(kiln_array_view(a, 0, 2, t_shape, t_strides, &at));
    /* 25 rows selected from a.T's 4: refused */
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_mask_assign(at, rows, rows_values,
                                                      NULL));
    /* a.T[mask.T] = 1: writing through a view */
    TEST_OK(kiln_array_view(mask, 0, 2, t_shape, t_strides, &mt));
    TEST_OK(kiln_array_mask_fill(at, mt, 1, NULL));
    for (size_t i = 0; i < 100; ++i)
        if (m[i] != 0)
            v[i] = 1;
    got = array_test_read(a, KILN_DTYPE_INT32);
    array_test_near(got, v, 100, 0, "a.T[mask.T] = 1");
    free(got);
    /* too few values */
    const size_t short_shape[] = {count - 1, 4};
    kiln_array *too_few = NULL;
    TEST_OK(kiln_array_zeros(context, KILN_DTYPE_INT32, 2, short_shape, NULL,
                             &too_few));
    TEST_FAILS(KILN_ERR_SHAPE,
               kiln_array_mask_assign(a, rows, too_few, NULL));
    kiln_array_release(too_few);
    kiln_array_release(rows_values);
    kiln_array_release(at);
    kiln_array_release(mt);
    kiln_array_release(a);
    kiln_array_release(mask);
    kiln_array_release(rows);
    free(v);
    free(m);
    free(mr);
    free(w);
}

/* reduce(a OP b) against the CPU: x * x summed, x - y's row maxima,
 * argmin of x + y down the columns, a count of x > 0.25, the column means
 * of x ** 2, int8 products wrapping before they are summed, and a row
 * broadcast (made, then reduced). */
static void reductions_of_operations(void **state)
{
    kiln_context *context = test_context(state);
    enum { ROWS = 64, COLS = 100, N = ROWS * COLS };
    const size_t shape[] = {ROWS, COLS}, row_shape[] = {COLS};
    double *x = NULL, *y = NULL, *w = NULL;
    kiln_array *a =
        array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape, -1, 1, &x);
    kiln_array *b =
        array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape, -1, 1, &y);
    kiln_array *row =
        array_test_random(context, KILN_DTYPE_FLOAT32, 1, row_shape, -1, 1, &w);
    kiln_array *r = NULL;
    double expected[COLS];

    TEST_OK(kiln_array_reduce_binary(KILN_REDUCE_SUM, KILN_OP_MULTIPLY, a, a,
                                     KILN_AXIS_ALL, NULL, &r));
    expected[0] = 0;
    for (size_t i = 0; i < N; ++i)
        expected[0] += (float)(x[i] * x[i]);
    double *got = array_test_read(r, KILN_DTYPE_FLOAT32);
    array_test_near(got, expected, 1, 1e-5, "(x * x).sum()");
    free(got);
    kiln_array_release(r);

    TEST_OK(kiln_array_reduce_binary(KILN_REDUCE_MAX, KILN_OP_SUBTRACT, a, b, 1,
                                     NULL, &r));
    for (size_t i = 0; i < ROWS; ++i) {
        expected[i] = -INFINITY;
        for (size_t j = 0; j < COLS; ++j)
            expected[i] = fmax(expected[i],
                               (float)(x[i * COLS + j] - y[i * COLS + j]));
    }
    got = array_test_read(r, KILN_DTYPE_FLOAT32);
    array_test_near(got, expected, ROWS, 0, "(x - y).max(axis=1)");
    free(got);
    kiln_array_release(r);

    TEST_OK(kiln_array_reduce_binary(KILN_REDUCE_ARGMIN, KILN_OP_ADD, a, b, 0,
                                     NULL, &r));
    for (size_t j = 0; j < COLS; ++j) {
        float best = INFINITY;
        for (size_t i = 0; i < ROWS; ++i) {
            float s = (float)(x[i * COLS + j] + y[i * COLS + j]);
            if (s < best) {
                best = s;
                expected[j] = (double)i;
            }
        }
    }
    got = array_test_read(r, KILN_DTYPE_INT64);
    array_test_near(got, expected, COLS, 0, "(x + y).argmin(axis=0)");
    free(got);
    kiln_array_release(r);

    TEST_OK(kiln_array_reduce_binary_scalar(KILN_REDUCE_SUM, KILN_OP_GREATER,
                                            a, 0.25, KILN_AXIS_ALL, NULL, &r));
    expected[0] = 0;
    for (size_t i = 0; i < N; ++i)
        expected[0] += (float)x[i] > 0.25f;
    got = array_test_read(r, KILN_DTYPE_INT64);
    array_test_near(got, expected, 1, 0, "(x > 0.25).sum()");
    free(got);
    kiln_array_release(r);

    TEST_OK(kiln_array_reduce_binary_scalar(KILN_REDUCE_MEAN, KILN_OP_POWER,
                                            a, 2, 0, NULL, &r));
    for (size_t j = 0; j < COLS; ++j) {
        expected[j] = 0;
        for (size_t i = 0; i < ROWS; ++i)
            expected[j] += x[i * COLS + j] * x[i * COLS + j];
        expected[j] /= ROWS;
    }
    got = array_test_read(r, KILN_DTYPE_FLOAT32);
    array_test_near(got, expected, COLS, 1e-5, "(x ** 2).mean(axis=0)");
    free(got);
    kiln_array_release(r);

    /* int8 * int8 stays int8 (wrapping) before the sum, as in NumPy */
    const size_t bytes_shape[] = {1000};
    double *c = NULL;
    kiln_array *small = array_test_random(context, KILN_DTYPE_INT8, 1,
                                          bytes_shape, -100, 100, &c);
    TEST_OK(kiln_array_reduce_binary(KILN_REDUCE_SUM, KILN_OP_MULTIPLY, small,
                                     small, KILN_AXIS_ALL, NULL, &r));
    expected[0] = 0;
    for (size_t i = 0; i < 1000; ++i)
        expected[0] += (int8_t)(uint8_t)((int)c[i] * (int)c[i]);
    got = array_test_read(r, KILN_DTYPE_INT64);
    array_test_near(got, expected, 1, 0, "(int8 * int8).sum()");
    free(got);
    kiln_array_release(r);
    kiln_array_release(small);
    free(c);

    /* a weak scalar decides the operation's dtype: (n * 3).sum() of
     * int32 computes in int32, (n * 0.5).sum() in float64, each with its
     * own kernel whichever comes first */
    double *m = NULL;
    kiln_array *ints = array_test_random(context, KILN_DTYPE_INT32, 1,
                                         bytes_shape, -1000, 1000, &m);
    const double factors[] = {3, 0.5, 3};
    for (size_t f = 0; f < 3; ++f) {
        TEST_OK(kiln_array_reduce_binary_scalar(KILN_REDUCE_SUM,
                                                KILN_OP_MULTIPLY, ints,
                                                factors[f], KILN_AXIS_ALL,
                                                NULL, &r));
        expected[0] = 0;
        for (size_t i = 0; i < 1000; ++i)
            expected[0] += m[i] * factors[f];
        kiln_dtype dtype = KILN_DTYPE_BOOL;
        TEST_OK(kiln_array_get_dtype(r, &dtype));
        assert_int_equal(dtype, factors[f] == 3 ? KILN_DTYPE_INT64
                                                : KILN_DTYPE_FLOAT64);
        got = array_test_read(r, dtype);
        array_test_near(got, expected, 1, 1e-12, "(n * k).sum()");
        free(got);
        kiln_array_release(r);
    }
    kiln_array_release(ints);
    free(m);

    /* a row broadcast against the matrix */
    TEST_OK(kiln_array_reduce_binary(KILN_REDUCE_SUM, KILN_OP_ADD, a, row, 0,
                                     NULL, &r));
    for (size_t j = 0; j < COLS; ++j) {
        expected[j] = 0;
        for (size_t i = 0; i < ROWS; ++i)
            expected[j] += (float)(x[i * COLS + j] + w[j]);
    }
    got = array_test_read(r, KILN_DTYPE_FLOAT32);
    array_test_near(got, expected, COLS, 1e-5, "(x + row).sum(axis=0)");
    free(got);
    kiln_array_release(r);

    kiln_array *ma = NULL;
    TEST_OK(kiln_array_binary_scalar(KILN_OP_GREATER, a, 0, NULL, &ma));
    TEST_FAILS(KILN_ERR_DTYPE,
               kiln_array_reduce_binary(KILN_REDUCE_SUM, KILN_OP_SUBTRACT, ma,
                                        ma, KILN_AXIS_ALL, NULL, &r));
    TEST_FAILS(KILN_ERR_SHAPE,
               kiln_array_reduce_binary(KILN_REDUCE_SUM, KILN_OP_ADD, a, b, 2,
                                        NULL, &r));
    kiln_array_release(ma);
    kiln_array_release(a);
    kiln_array_release(b);
    kiln_array_release(row);
    free(x);
    free(y);
    free(w);
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(selecting_with_masks),
        KILN_TEST(writing_with_masks),
        KILN_TEST(reductions_of_operations),
    };
    return kiln_test_main("array_masks", tests, sizeof tests / sizeof tests[0]);
}
