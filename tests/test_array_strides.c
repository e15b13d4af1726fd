/*
 * Arrays in any layout and the bool dtype: strided views (NumPy's
 * x[::-1, ::2], x.T, x[:, 3], broadcast rows) read back, computed on,
 * reduced and multiplied; assignment and filling through views (x[1:, ::2]
 * = y, overlapping x[1:] = x[:-1]); bools from comparisons with NumPy's
 * arithmetic on them; triu, tril and eye.  Each result is checked against
 * the same computation on the CPU, with random inputs, on every backend.
 */
#include "config.h"

#include "array_test.h"

#include <stdio.h>

/* The buffer element of flat index `flat` (C order) of a view. */
static int64_t view_element(size_t flat, int64_t offset, size_t ndim,
                            const size_t *shape, const int64_t *strides)
{
    int64_t at = offset;
    for (size_t d = ndim; d-- > 0;) {
        at += (int64_t)(flat % shape[d]) * strides[d];
        flat /= shape[d];
    }
    return at;
}

static size_t count_of(size_t ndim, const size_t *shape)
{
    size_t n = 1;
    for (size_t d = 0; d < ndim; ++d)
        n *= shape[d];
    return n;
}

/* Views of a (6, 8) float32 matrix, each read back, added to itself,
 * summed along axis 0 and reshaped to one axis, against the CPU. */
static void views_in_any_layout(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {6, 8};
    double *v = NULL;
    kiln_array *a =
        array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape, -4, 4, &v);
    static const struct {
        const char *what;
        int64_t offset;
        size_t ndim, shape[2];
        int64_t strides[2];
    } views[] = {
        {"x[::-1, ::2]", 40, 2, {6, 4}, {-8, 2}},
        {"x.T", 0, 2, {8, 6}, {1, 8}},
        {"x[:, 3]", 3, 1, {6, 0}, {8, 0}},
        {"x[2] broadcast to (5, 8)", 16, 2, {5, 8}, {0, 1}},
        {"x[1:5:3, ::-3]", 15, 2, {2, 3}, {24, -3}},
    };
    for (size_t k = 0; k < sizeof views / sizeof *views; ++k) {
        kiln_array *view = NULL;
        TEST_OK(kiln_array_view(a, views[k].offset, views[k].ndim,
                                views[k].shape, views[k].strides, &view));
        size_t n = count_of(views[k].ndim, views[k].shape);
        double *expected = test_alloc(n * sizeof *expected);
        for (size_t i = 0; i < n; ++i)
            expected[i] = v[view_element(i, views[k].offset, views[k].ndim,
                                         views[k].shape, views[k].strides)];
        int64_t strides[KILN_ARRAY_MAX_DIMS];
        TEST_OK(kiln_array_get_strides(view, strides));
        for (size_t d = 0; d < views[k].ndim; ++d)
            assert_int_equal(strides[d], views[k].strides[d]);
        double *got = array_test_read(view, KILN_DTYPE_FLOAT32);
        array_test_near(got, expected, n, 0, views[k].what);
        free(got);

        kiln_array *sum = NULL;
        TEST_OK(kiln_array_binary(KILN_OP_ADD, view, view, NULL, &sum));
        array_test_shape(sum, views[k].ndim, views[k].shape);
        got = array_test_read(sum, KILN_DTYPE_FLOAT32);
        for (size_t i = 0; i < n; ++i)
            expected[i] *= 2;
        array_test_near(got, expected, n, 0, "view + view");
        free(got);
        kiln_array_release(sum);

        /* a column sum over the view, in double on the CPU */
        size_t rows = views[k].shape[0], cols = n / rows;
        TEST_OK(kiln_array_reduce_axis(KILN_REDUCE_SUM, view, 0, NULL, &sum));
        got = array_test_read(sum, KILN_DTYPE_FLOAT32);
        double *columns = test_alloc(cols * sizeof *columns);
        for (size_t c = 0; c < cols; ++c) {
            columns[c] = 0;
            for (size_t r = 0; r < rows; ++r)
                columns[c] += expected[r * cols + c] / 2;
        }
        array_test_near(got, columns, cols, 1e-5, "view.sum(axis=0)");
        free(got);
        free(columns);
        kiln_array_release(sum);

        /* reshaping a view that is not C-contiguous copies it */
        kiln_array *flat = NULL;
        const size_t flat_shape[] = {n};
        TEST_OK(kiln_array_reshape(view, 1, flat_shape, &flat));
        got = array_test_read(flat, KILN_DTYPE_FLOAT32);
        for (size_t i = 0; i < n; ++i)
            expected[i] /= 2;
        array_test_near(got, expected, n, 0, "view.reshape(-1)");
        free(got);
        kiln_array_release(flat);
        free(expected);
        kiln_array_release(view);
    }

    /* x.T @ x, the transpose a view */
    kiln_array *t = NULL, *product = NULL;
    const size_t t_shape[] = {8, 6};
    const int64_t t_strides[] = {1, 8};
    TEST_OK(kiln_array_view(a, 0, 2, t_shape, t_strides, &t));
    TEST_OK(kiln_array_matmul(t, a, NULL, &product));
    double *got = array_test_read(product, KILN_DTYPE_FLOAT32);
    double expected[64];
    for (size_t i = 0; i < 8; ++i)
        for (size_t j = 0; j < 8; ++j) {
            expected[i * 8 + j] = 0;
            for (size_t r = 0; r < 6; ++r)
                expected[i * 8 + j] += v[r * 8 + i] * v[r * 8 + j];
        }
    array_test_near(got, expected, 64, 1e-5, "x.T @ x");
    free(got);
    kiln_array_release(product);
    kiln_array_release(t);

    /* views that reach outside the buffer are refused */
    kiln_array *bad = NULL;
    const size_t row[] = {8}, tall[] = {7, 8};
    const int64_t one[] = {1}, c_strides[] = {8, 1}, huge[] = {INT64_MAX / 2};
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_array_view(a, -1, 1, row, one, &bad));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_array_view(a, 0, 2, tall, c_strides, &bad));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_array_view(a, 41, 1, row, one, &bad));
    const size_t two[] = {2};
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_array_view(a, 0, 1, two, huge, &bad));
    kiln_array_release(a);
    free(v);
}

/* x[1:, ::2] = y (broadcast, int32 into float64), x[:, 2] = 7.5, and the
 * overlapping x[1:] = x[:-1]. */
static void assignment_through_views(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {5, 6}, row_shape[] = {3};
    double *v = NULL, *r = NULL;
    kiln_array *x =
        array_test_random(context, KILN_DTYPE_FLOAT64, 2, shape, -9, 9, &v);
    kiln_array *y =
        array_test_random(context, KILN_DTYPE_INT32, 1, row_shape, -50, 50, &r);
    kiln_array *view = NULL;
    const size_t view_shape[] = {4, 3};
    const int64_t view_strides[] = {6, 2};
    TEST_OK(kiln_array_view(x, 6, 2, view_shape, view_strides, &view));
    TEST_OK(kiln_array_assign(view, y, NULL));
    for (size_t i = 1; i < 5; ++i)
        for (size_t j = 0; j < 6; j += 2)
            v[i * 6 + j] = r[j / 2];
    double *got = array_test_read(x, KILN_DTYPE_FLOAT64);
    array_test_near(got, v, 30, 0, "x[1:, ::2] = y");
    free(got);
    const size_t wrong_shape[] = {4};
    kiln_array *wrong = NULL;
    TEST_OK(kiln_array_zeros(context, KILN_DTYPE_FLOAT64, 1, wrong_shape, NULL,
                             &wrong));
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_assign(view, wrong, NULL));
    kiln_array_release(wrong);
    kiln_array_release(view);

    /* a column filled */
    const size_t column_shape[] = {5};
    const int64_t column_stride[] = {6};
    TEST_OK(kiln_array_view(x, 2, 1, column_shape, column_stride, &view));
    TEST_OK(kiln_array_fill(view, 7.5, NULL));
    for (size_t i = 0; i < 5; ++i)
        v[i * 6 + 2] = 7.5;
    got = array_test_read(x, KILN_DTYPE_FLOAT64);
    array_test_near(got, v, 30, 0, "x[:, 2] = 7.5");
    free(got);
    kiln_array_release(view);

    /* x[1:] = x[:-1] on the flat 30 elements: every element moves up one,
     * as NumPy does it (the source read whole first) */
    kiln_array *flat = NULL, *from = NULL, *to = NULL;
    const size_t flat_shape[] = {30}, part[] = {29};
    const int64_t unit[] = {1};
    TEST_OK(kiln_array_reshape(x, 1, flat_shape, &flat));
    TEST_OK(kiln_array_view(flat, 0, 1, part, unit, &from));
    TEST_OK(kiln_array_view(flat, 1, 1, part, unit, &to));
    TEST_OK(kiln_array_assign(to, from, NULL));
    for (size_t i = 29; i > 0; --i)
        v[i] = v[i - 1];
    got = array_test_read(x, KILN_DTYPE_FLOAT64);
    array_test_near(got, v, 30, 0, "x[1:] = x[:-1]");
    free(got);
    kiln_array_release(from);
    kiln_array_release(to);
    kiln_array_release(flat);
    kiln_array_release(x);
    kiln_array_release(y);
    free(v);
    free(r);
}

/* Comparisons give bools; NumPy's rules for arithmetic on them. */
static void bools_as_numpy_has_them(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {40};
    double *va = NULL, *vb = NULL;
    kiln_array *a =
        array_test_random(context, KILN_DTYPE_FLOAT32, 1, shape, -1, 1, &va);
    kiln_array *b =
        array_test_random(context, KILN_DTYPE_FLOAT32, 1, shape, -1, 1, &vb);
    kiln_array *ma = NULL, *mb = NULL, *r = NULL;
    TEST_OK(kiln_array_binary_scalar(KILN_OP_GREATER, a, 0, NULL, &ma));
    TEST_OK(kiln_array_binary_scalar(KILN_OP_GREATER, b, 0, NULL, &mb));
    double ea[40], eb[40], expected[40];
    size_t trues = 0;
    for (size_t i = 0; i < 40; ++i) {
        ea[i] = va[i] > 0;
        eb[i] = vb[i] > 0;
        trues += va[i] > 0;
    }
    double *got = array_test_read(ma, KILN_DTYPE_BOOL);
    array_test_near(got, ea, 40, 0, "a > 0");
    free(got);

    static const struct {
        kiln_array_op op;
        kiln_dtype dtype;
    } cases[] = {{KILN_OP_ADD, KILN_DTYPE_BOOL},
                 {KILN_OP_MULTIPLY, KILN_DTYPE_BOOL},
                 {KILN_OP_MAXIMUM, KILN_DTYPE_BOOL},
                 {KILN_OP_POWER, KILN_DTYPE_INT8},
                 {KILN_OP_LESS, KILN_DTYPE_BOOL}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        TEST_OK(kiln_array_binary(cases[c].op, ma, mb, NULL, &r));
        for (size_t i = 0; i < 40; ++i)
            expected[i] = cases[c].op == KILN_OP_ADD        ? (ea[i] || eb[i])
                          : cases[c].op == KILN_OP_MULTIPLY ? (ea[i] && eb[i])
                          : cases[c].op == KILN_OP_MAXIMUM  ? (ea[i] || eb[i])
                          : cases[c].op == KILN_OP_POWER
                              ? pow(ea[i], eb[i])
                              : ea[i] < eb[i];
        got = array_test_read(r, cases[c].dtype);
        array_test_near(got, expected, 40, 0, "bool OP bool");
        free(got);
        kiln_array_release(r);
    }
    TEST_FAILS(KILN_ERR_DTYPE,
               kiln_array_binary(KILN_OP_SUBTRACT, ma, mb, NULL, &r));
    TEST_FAILS(KILN_ERR_DTYPE, kiln_array_math(KILN_FN_NEGATIVE, ma, NULL, &r));
    /* a number against bools: NumPy's default integer */
    TEST_OK(kiln_array_binary_scalar(KILN_OP_ADD, ma, 3, NULL, &r));
    for (size_t i = 0; i < 40; ++i)
        expected[i] = ea[i] + 3;
    got = array_test_read(r, KILN_DTYPE_INT64);
    array_test_near(got, expected, 40, 0, "bools + 3");
    free(got);
    kiln_array_release(r);
    TEST_OK(kiln_array_math(KILN_FN_SQUARE, ma, NULL, &r));
    got = array_test_read(r, KILN_DTYPE_INT8);
    array_test_near(got, ea, 40, 0, "square(bools)");
    free(got);
    kiln_array_release(r);

    /* reductions: a count, a fraction, any */
    TEST_OK(kiln_array_reduce(KILN_REDUCE_SUM, ma, NULL, &r));
    got = array_test_read(r, KILN_DTYPE_INT64);
    double count = (double)trues;
    array_test_near(got, &count, 1, 0, "(a > 0).sum()");
    free(got);
    kiln_array_release(r);
    TEST_OK(kiln_array_reduce(KILN_REDUCE_MEAN, ma, NULL, &r));
    got = array_test_read(r, KILN_DTYPE_FLOAT64);
    double fraction = count / 40;
    array_test_near(got, &fraction, 1, 1e-15, "(a > 0).mean()");
    free(got);
    kiln_array_release(r);
    TEST_OK(kiln_array_reduce(KILN_REDUCE_MAX, ma, NULL, &r));
    got = array_test_read(r, KILN_DTYPE_BOOL);
    double any = trues > 0;
    array_test_near(got, &any, 1, 0, "(a > 0).max()");
    free(got);
    kiln_array_release(r);

    /* to bool: nonzero is true, a fraction and NaN too */
    const float values[] = {0.0f, 0.25f, -3.0f, NAN, -0.0f, 1e-30f};
    const double truth[] = {0, 1, 1, 1, 0, 1};
    const size_t six[] = {6};
    kiln_array *f = NULL;
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_FLOAT32, 1, six, values,
                                 sizeof values, NULL, &f));
    TEST_OK(kiln_array_astype(f, KILN_DTYPE_BOOL, NULL, &r));
    got = array_test_read(r, KILN_DTYPE_BOOL);
    array_test_near(got, truth, 6, 0, "astype(bool)");
    free(got);
    kiln_array_release(r);
    kiln_array_release(f);
    kiln_array_release(ma);
    kiln_array_release(mb);
    kiln_array_release(a);
    kiln_array_release(b);
    free(va);
    free(vb);
}

/* triu and tril of a stack of (5, 4) matrices and of a vector, for
 * diagonals below, on and above the main one; eye. */
static void triangles_and_diagonals(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {3, 5, 4}, vector_shape[] = {5};
    double *v = NULL, *w = NULL;
    kiln_array *a =
        array_test_random(context, KILN_DTYPE_FLOAT32, 3, shape, 1, 9, &v);
    kiln_array *vector = array_test_random(context, KILN_DTYPE_INT32, 1,
                                           vector_shape, 1, 99, &w);
    const int64_t diagonals[] = {-1, 0, 2};
    double expected[60];
    for (size_t k = 0; k < 3; ++k) {
        for (int upper = 0; upper <= 1; ++upper) {
            kiln_array *r = NULL;
            TEST_OK((upper ? kiln_array_triu : kiln_array_tril)(
                a, diagonals[k], NULL, &r));
            array_test_shape(r, 3, shape);
            for (size_t i = 0; i < 60; ++i) {
                int64_t row = (int64_t)(i / 4 % 5), col = (int64_t)(i % 4);
                bool keep = upper ? col - row >= diagonals[k]
                                  : col - row <= diagonals[k];
                expected[i] = keep ? v[i] : 0;
            }
            double *got = array_test_read(r, KILN_DTYPE_FLOAT32);
            array_test_near(got, expected, 60, 0, upper ? "triu" : "tril");
            free(got);
            kiln_array_release(r);
        }
        kiln_array *r = NULL;
        TEST_OK(kiln_array_triu(vector, diagonals[k], NULL, &r));
        const size_t square[] = {5, 5};
        array_test_shape(r, 2, square);
        for (size_t i = 0; i < 25; ++i)
            expected[i] = (int64_t)(i % 5) - (int64_t)(i / 5) >= diagonals[k]
                              ? w[i % 5]
                              : 0;
        double *got = array_test_read(r, KILN_DTYPE_INT32);
        array_test_near(got, expected, 25, 0, "triu(vector)");
        free(got);
        kiln_array_release(r);
    }
    kiln_array *scalar = NULL, *r = NULL;
    TEST_OK(kiln_array_full(context, KILN_DTYPE_FLOAT32, 0, NULL, 2, NULL,
                            &scalar));
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_triu(scalar, 0, NULL, &r));
    kiln_array_release(scalar);

    static const struct {
        size_t rows, cols;
        int64_t k;
    } eyes[] = {{4, 6, 1}, {5, 3, -2}, {3, 3, 0}};
    for (size_t e = 0; e < 3; ++e) {
        TEST_OK(kiln_array_eye(context, KILN_DTYPE_INT32, eyes[e].rows,
                               eyes[e].cols, eyes[e].k, NULL, &r));
        size_t n = eyes[e].rows * eyes[e].cols;
        for (size_t i = 0; i < n; ++i)
            expected[i] = (int64_t)(i % eyes[e].cols) -
                                  (int64_t)(i / eyes[e].cols) ==
                              eyes[e].k;
        double *got = array_test_read(r, KILN_DTYPE_INT32);
        array_test_near(got, expected, n, 0, "eye");
        free(got);
        kiln_array_release(r);
    }
    kiln_array_release(a);
    kiln_array_release(vector);
    free(v);
    free(w);
}

/* kiln_array_index and kiln_array_format of views in other layouts read
 * the view's elements (x.T[2] is column 2; print(x.T) is NumPy's), and
 * bools print as NumPy prints them. */
static void index_and_format_of_views(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {3, 4};
    double *v = NULL;
    kiln_array *a =
        array_test_random(context, KILN_DTYPE_INT32, 2, shape, -50, 50, &v);
    kiln_array *t = NULL, *row = NULL;
    TEST_OK(kiln_array_view(a, 0, 2, (size_t[]){4, 3}, (int64_t[]){1, 4},
                            &t));
    TEST_OK(kiln_array_index(t, -2, &row)); /* x.T[2]: column 2 of x */
    double *got = array_test_read(row, KILN_DTYPE_INT32);
    array_test_shape(row, 1, (size_t[]){3});
    for (size_t i = 0; i < 3; ++i)
        if (got[i] != v[i * 4 + 2])
            fail_msg("x.T[2][%zu] = %g, expected %g", i, got[i], v[i * 4 + 2]);
    free(got);
    char text[256], expected[256], *at = expected;
    TEST_OK(kiln_array_format(t, text, sizeof text, NULL, NULL));
    /* NumPy's text of x.T, each number padded to the widest */
    int width = 0;
    for (size_t i = 0; i < 12; ++i) {
        int w = snprintf(NULL, 0, "%d", (int)v[i]);
        width = w > width ? w : width;
    }
    for (size_t r = 0; r < 4; ++r) {
        at += sprintf(at, "%s[", r == 0 ? "[" : " ");
        for (size_t c = 0; c < 3; ++c)
            at += sprintf(at, "%s%*d", c ? " " : "", width, (int)v[c * 4 + r]);
        at += sprintf(at, "]%s", r == 3 ? "]" : "\n");
    }
    assert_string_equal(text, expected);
    kiln_array *mask = NULL;
    TEST_OK(kiln_array_binary_scalar(KILN_OP_GREATER, row, v[2 * 4 + 2] - 1,
                                     NULL, &mask));
    TEST_OK(kiln_array_format(mask, text, sizeof text, NULL, NULL));
    at = expected;
    at += sprintf(at, "[");
    for (size_t i = 0; i < 3; ++i)
        at += sprintf(at, "%s%5s", i ? " " : "",
                      v[i * 4 + 2] > v[2 * 4 + 2] - 1 ? "True" : "False");
    sprintf(at, "]");
    assert_string_equal(text, expected);
    kiln_array_release(mask);
    kiln_array_release(row);
    kiln_array_release(t);
    kiln_array_release(a);
    free(v);
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(views_in_any_layout),
        KILN_TEST(assignment_through_views),
        KILN_TEST(bools_as_numpy_has_them),
        KILN_TEST(triangles_and_diagonals),
        KILN_TEST(index_and_format_of_views),
    };
    return kiln_test_main("array_strides", tests,
                          sizeof tests / sizeof tests[0]);
}
