/*
 * Arrays you can look at: kiln_array_format against the text NumPy 1.24.2
 * prints for the same arrays (str(a), default print options; each
 * expected string below is NumPy's output, pasted), random arrays whose
 * text reads back as their elements, a 0-d or one-element array read as a
 * host scalar, and integer indexing as a view, on every backend.
 */
#include "config.h"

#include "array_test.h"

#include <stdio.h>

/* The array's text, in a buffer sized by a first call with size 0. */
static char *format(const kiln_array *array)
{
    size_t length = 0;
    TEST_OK(kiln_array_format(array, NULL, 0, &length, NULL));
    char *text = test_alloc(length + 1);
    size_t again = 0;
    TEST_OK(kiln_array_format(array, text, length + 1, &again, NULL));
    assert_int_equal(again, length);
    assert_int_equal(strlen(text), length);
    return text;
}

static void assert_text(const kiln_array *array, const char *expected)
{
    char *text = format(array);
    if (strcmp(text, expected) != 0)
        fail_msg("formatted as\n%s\nNumPy prints\n%s", text, expected);
    free(text);
}

static kiln_array *from(kiln_context *context, kiln_dtype dtype, size_t ndim,
                        const size_t *shape, const void *host)
{
    size_t n = 1;
    for (size_t d = 0; d < ndim; ++d)
        n *= shape[d];
    kiln_array *array = NULL;
    TEST_OK(kiln_array_from_host(context, dtype, ndim, shape, host,
                                 n * kiln_dtype_size(dtype), NULL, &array));
    return array;
}

static kiln_array *arange(kiln_context *context, kiln_dtype dtype, double n,
                          size_t ndim, const size_t *shape)
{
    kiln_array *flat = NULL, *shaped = NULL;
    TEST_OK(kiln_array_arange(context, dtype, 0, n, 1, NULL, &flat));
    TEST_OK(kiln_array_reshape(flat, ndim, shape, &shaped));
    kiln_array_release(flat);
    return shaped;
}

static void numpy_prints_these(void **state)
{
    kiln_context *context = test_context(state);
    const size_t s23[] = {2, 3}, s234[] = {2, 3, 4}, s100[] = {100, 100},
                 s24400[] = {2, 4, 400}, s2000[] = {2000}, s40[] = {40};
    kiln_array *a = arange(context, KILN_DTYPE_FLOAT32, 6, 2, s23);
    assert_text(a, "[[0. 1. 2.]\n [3. 4. 5.]]");
    kiln_array_release(a);
    a = arange(context, KILN_DTYPE_INT64, 24, 3, s234);
    assert_text(a, "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n"
                   " [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]");
    kiln_array_release(a);
    a = arange(context, KILN_DTYPE_INT32, 2000, 1, s2000);
    assert_text(a, "[   0    1    2 ... 1997 1998 1999]");
    kiln_array_release(a);
    a = arange(context, KILN_DTYPE_INT16, 40, 1, s40);
    assert_text(a, "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 "
                   "19 20 21 22 23\n 24 25 26 27 28 29 30 31 32 33 34 35 36 "
                   "37 38 39]");
    kiln_array_release(a);
    a = arange(context, KILN_DTYPE_INT64, 10000, 2, s100);
    assert_text(a, "[[   0    1    2 ...   97   98   99]\n"
                   " [ 100  101  102 ...  197  198  199]\n"
                   " [ 200  201  202 ...  297  298  299]\n"
                   " ...\n"
                   " [9700 9701 9702 ... 9797 9798 9799]\n"
                   " [9800 9801 9802 ... 9897 9898 9899]\n"
                   " [9900 9901 9902 ... 9997 9998 9999]]");
    kiln_array_release(a);
    a = arange(context, KILN_DTYPE_UINT32, 3200, 3, s24400);
    assert_text(a, "[[[   0    1    2 ...  397  398  399]\n"
                   "  [ 400  401  402 ...  797  798  799]\n"
                   "  [ 800  801  802 ... 1197 1198 1199]\n"
                   "  [1200 1201 1202 ... 1597 1598 1599]]\n\n"
                   " [[1600 1601 1602 ... 1997 1998 1999]\n"
                   "  [2000 2001 2002 ... 2397 2398 2399]\n"
                   "  [2400 2401 2402 ... 2797 2798 2799]\n"
                   "  [2800 2801 2802 ... 3197 3198 3199]]]");
    kiln_array_release(a);

    const size_t s3[] = {3}, s2[] = {2};
    const double mixed[] = {0.1, 0.25, 0.125};
    a = from(context, KILN_DTYPE_FLOAT64, 1, s3, mixed);
    assert_text(a, "[0.1   0.25  0.125]");
    kiln_array_release(a);
    const double wide[] = {1e-5, 1234.5};
    a = from(context, KILN_DTYPE_FLOAT64, 1, s2, wide);
    assert_text(a, "[1.0000e-05 1.2345e+03]");
    kiln_array_release(a);
    const double special[] = {NAN, 1.5, -INFINITY};
    a = from(context, KILN_DTYPE_FLOAT64, 1, s3, special);
    assert_text(a, "[ nan  1.5 -inf]");
    kiln_array_release(a);
    const float big[] = {1e8f, 1.0f};
    a = from(context, KILN_DTYPE_FLOAT32, 1, s2, big);
    assert_text(a, "[1.e+08 1.e+00]");
    kiln_array_release(a);
    const double signed_zero[] = {-0.0, 3.25};
    a = from(context, KILN_DTYPE_FLOAT64, 1, s2, signed_zero);
    assert_text(a, "[-0.    3.25]");
    kiln_array_release(a);
    const float tenths[] = {0.1f * 3, 0.2f * 3, 0.3f * 3};
    a = from(context, KILN_DTYPE_FLOAT32, 1, s3, tenths);
    assert_text(a, "[0.3        0.6        0.90000004]");
    kiln_array_release(a);
    const double thirds[] = {1.0 / 3, 2.0 / 3};
    a = from(context, KILN_DTYPE_FLOAT64, 1, s2, thirds);
    assert_text(a, "[0.33333333 0.66666667]");
    kiln_array_release(a);
    const int8_t small[] = {-5, 100, 7};
    a = from(context, KILN_DTYPE_INT8, 1, s3, small);
    assert_text(a, "[ -5 100   7]");
    kiln_array_release(a);

    /* 0-d: the value alone; empty: [] */
    TEST_OK(kiln_array_full(context, KILN_DTYPE_FLOAT32, 0, NULL, 2.5, NULL,
                            &a));
    assert_text(a, "2.5");
    kiln_array_release(a);
    const size_t s20[] = {2, 0};
    TEST_OK(kiln_array_empty(context, KILN_DTYPE_FLOAT64, 2, s20, &a));
    assert_text(a, "[]");
    kiln_array_release(a);
}

/* Random arrays of every dtype: the text has one number per element (or
 * the summary's), each reading back as the element (floating point to
 * NumPy's 8 digits after the point); a buffer too small gets the start of
 * the text, cut, and the full length. */
static void random_arrays_read_back(void **state)
{
    kiln_context *context = test_context(state);
    for (int t = KILN_DTYPE_INT8; t <= KILN_DTYPE_FLOAT64; ++t) {
        kiln_dtype dtype = (kiln_dtype)t;
        const size_t shape[] = {1 + test_random_u64() % 7,
                                1 + test_random_u64() % 9};
        double *values = NULL;
        kiln_array *a = array_test_random(context, dtype, 2, shape,
                                          dtype == KILN_DTYPE_UINT8 ? 1 : -100,
                                          100, &values);
        char *text = format(a);
        size_t n = shape[0] * shape[1], read = 0;
        const char *p = text;
        while (*p != '\0') {
            if (*p == '[' || *p == ']' || *p == ' ' || *p == '\n') {
                ++p;
                continue;
            }
            char *end = NULL;
            double v = strtod(p, &end);
            if (end == p)
                fail_msg("%s: unexpected text at '%.20s' in\n%s",
                         kiln_dtype_name(dtype), p, text);
            assert_true(read < n);
            double tolerance = dtype == KILN_DTYPE_FLOAT32 || dtype == KILN_DTYPE_FLOAT64 ? 5e-9 : 0;
            if (fabs(v - values[read]) > tolerance * fmax(1, fabs(values[read])) &&
                !(dtype == KILN_DTYPE_FLOAT32 &&
                  (float)v == (float)values[read]))
                fail_msg("%s: element %zu printed as %.12g, is %.12g",
                         kiln_dtype_name(dtype), read, v, values[read]);
            ++read;
            p = end;
        }
        assert_int_equal(read, n);
        char cut[8];
        size_t length = 0;
        TEST_OK(kiln_array_format(a, cut, sizeof cut, &length, NULL));
        assert_int_equal(length, strlen(text));
        /* a 1x1 array prints in fewer than 8 bytes ("[[42]]"): all of it */
        size_t kept = strlen(text) < sizeof cut ? strlen(text) : sizeof cut - 1;
        assert_int_equal(strlen(cut), kept);
        assert_memory_equal(cut, text, kept);
        free(text);
        free(values);
        kiln_array_release(a);
    }
}

/* A reduction's 0-d result and a one-element array, read as host scalars
 * of their dtype and as doubles; more elements or none are refused. */
static void scalars_to_the_host(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {37};
    double *values = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT64, 1, shape,
                                      -10, 10, &values);
    kiln_array *sum = NULL;
    TEST_OK(kiln_array_reduce(KILN_REDUCE_SUM, a, NULL, &sum));
    double expected = 0;
    for (size_t i = 0; i < 37; ++i)
        expected += values[i];
    double got = NAN, as_double = NAN;
    TEST_OK(kiln_array_to_scalar(sum, &got, sizeof got, NULL));
    TEST_OK(kiln_array_to_double(sum, &as_double, NULL));
    assert_true(fabs(got - expected) <= 1e-12 * fmax(1, fabs(expected)));
    assert_true(got == as_double);
    /* an int64 sum beyond 2^53 through to_scalar, exactly */
    const int64_t big[] = {(int64_t)1 << 60, 1 + (int64_t)(test_random_u64() % 1000)};
    const size_t s2[] = {2};
    kiln_array *ints = NULL, *int_sum = NULL;
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_INT64, 1, s2, big,
                                 sizeof big, NULL, &ints));
    TEST_OK(kiln_array_reduce(KILN_REDUCE_SUM, ints, NULL, &int_sum));
    int64_t exact = 0;
    TEST_OK(kiln_array_to_scalar(int_sum, &exact, sizeof exact, NULL));
    assert_true(exact == big[0] + big[1]);
    int32_t wrong_size;
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_array_to_scalar(int_sum, &wrong_size, sizeof wrong_size,
                                    NULL));
    /* one element of any shape: a (1, 1) slice of a matrix */
    const size_t s1[] = {1};
    kiln_array *one = NULL;
    TEST_OK(kiln_array_slice(a, 5, 6, &one));
    array_test_shape(one, 1, s1);
    TEST_OK(kiln_array_to_double(one, &got, NULL));
    assert_true(got == values[5]);
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_to_double(a, &got, NULL));
    TEST_ERROR_MENTIONS("37 elements");
    kiln_array *none = NULL;
    TEST_OK(kiln_array_slice(a, 3, 3, &none));
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_to_double(none, &got, NULL));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_array_to_double(sum, NULL, NULL));
    free(values);
    kiln_array_release(a);
    kiln_array_release(sum);
    kiln_array_release(ints);
    kiln_array_release(int_sum);
    kiln_array_release(one);
    kiln_array_release(none);
}

/* z[1], z[-1], z[i][j] as views: the same memory, NumPy's shapes. */
static void integer_indexing_is_a_view(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {4, 5, 3};
    double *values = NULL;
    kiln_array *z = array_test_random(context, KILN_DTYPE_FLOAT32, 3, shape,
                                      -1, 1, &values);
    int64_t i = (int64_t)(test_random_u64() % 4);
    kiln_array *row = NULL, *last = NULL, *element = NULL, *cell = NULL;
    TEST_OK(kiln_array_index(z, i, &row));
    const size_t s53[] = {5, 3};
    array_test_shape(row, 2, s53);
    double *got = array_test_read(row, KILN_DTYPE_FLOAT32);
    array_test_near(got, values + i * 15, 15, 0, "z[i]");
    free(got);
    TEST_OK(kiln_array_index(z, -1, &last));
    got = array_test_read(last, KILN_DTYPE_FLOAT32);
    array_test_near(got, values + 3 * 15, 15, 0, "z[-1]");
    free(got);
    TEST_OK(kiln_array_index(row, 2, &cell));
    TEST_OK(kiln_array_index(cell, -3, &element));
    array_test_shape(element, 0, NULL);
    float value = NAN;
    TEST_OK(kiln_array_to_scalar(element, &value, sizeof value, NULL));
    assert_true(value == (float)values[i * 15 + 2 * 3]);
    /* a view: writing through the array shows in it */
    kiln_buffer *buffer = NULL, *row_buffer = NULL;
    size_t offset = 0, row_offset = 0;
    TEST_OK(kiln_array_get_buffer(z, &buffer, &offset));
    TEST_OK(kiln_array_get_buffer(row, &row_buffer, &row_offset));
    assert_ptr_equal(buffer, row_buffer);
    assert_int_equal(row_offset, offset + (size_t)i * 15 * sizeof(float));
    kiln_array *view = NULL;
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS, kiln_array_index(z, 4, &view));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS, kiln_array_index(z, -5, &view));
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_index(element, 0, &view));
    assert_null(view);
    free(values);
    kiln_array_release(z);
    kiln_array_release(row);
    kiln_array_release(last);
    kiln_array_release(cell);
    kiln_array_release(element);
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(numpy_prints_these),
        KILN_TEST(random_arrays_read_back),
        KILN_TEST(scalars_to_the_host),
        KILN_TEST(integer_indexing_is_a_view),
    };
    return kiln_test_main("array_format", tests, sizeof tests / sizeof tests[0]);
}
