/*
 * Elementwise operations on arrays: every binary operator with NumPy's
 * broadcasting, type promotion, weak scalars, comparisons, where and the
 * math functions, each against the same computation on the CPU, on every
 * backend.
 */
#include "config.h"

#include "array_test.h"

#include <stdio.h>

static double apply(kiln_array_op op, double a, double b)
{
    switch (op) {
    case KILN_OP_ADD: return a + b;
    case KILN_OP_SUBTRACT: return a - b;
    case KILN_OP_MULTIPLY: return a * b;
    case KILN_OP_DIVIDE: return a / b;
    case KILN_OP_POWER: return pow(a, b);
    case KILN_OP_MAXIMUM: return a > b ? a : b;
    case KILN_OP_MINIMUM: return a < b ? a : b;
    case KILN_OP_EQUAL: return a == b;
    case KILN_OP_NOT_EQUAL: return a != b;
    case KILN_OP_LESS: return a < b;
    case KILN_OP_LESS_EQUAL: return a <= b;
    case KILN_OP_GREATER: return a > b;
    case KILN_OP_GREATER_EQUAL: return a >= b;
    }
    return NAN;
}

/* Every operator on a (3, 1, 5) array against a (4, 1) one: both are
 * broadcast, to (3, 4, 5).  Comparisons on values drawn from a few
 * integers, so that equality happens. */
static void every_operator_broadcasts(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape_a[] = {3, 1, 5}, shape_b[] = {4, 1};
    const size_t out_shape[] = {3, 4, 5};
    double *va = NULL, *vb = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT32, 3, shape_a,
                                      0.5, 4, &va);
    kiln_array *b = array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape_b,
                                      0.5, 4, &vb);
    for (int o = KILN_OP_ADD; o <= KILN_OP_GREATER_EQUAL; ++o) {
        kiln_array_op op = (kiln_array_op)o;
        bool comparison = op >= KILN_OP_EQUAL;
        kiln_array *x = a, *y = b;
        double *vx = va, *vy = vb;
        double small_a[15], small_b[4];
        if (comparison) {
            for (size_t i = 0; i < 15; ++i)
                small_a[i] = (double)(test_random_u64() % 3);
            for (size_t i = 0; i < 4; ++i)
                small_b[i] = (double)(test_random_u64() % 3);
            float fa[15], fb[4];
            for (size_t i = 0; i < 15; ++i)
                fa[i] = (float)small_a[i];
            for (size_t i = 0; i < 4; ++i)
                fb[i] = (float)small_b[i];
            TEST_OK(kiln_array_from_host(context, KILN_DTYPE_FLOAT32, 3,
                                         shape_a, fa, sizeof fa, NULL, &x));
            TEST_OK(kiln_array_from_host(context, KILN_DTYPE_FLOAT32, 2,
                                         shape_b, fb, sizeof fb, NULL, &y));
            vx = small_a;
            vy = small_b;
        }
        kiln_array *result = NULL;
        TEST_OK(kiln_array_binary(op, x, y, NULL, &result));
        array_test_shape(result, 3, out_shape);
        double *got = array_test_read(
            result, comparison ? KILN_DTYPE_BOOL : KILN_DTYPE_FLOAT32);
        double expected[60];
        for (size_t i = 0; i < 60; ++i) {
            double p = vx[array_test_broadcast_index(i, 3, out_shape, 3,
                                                     shape_a)];
            double q = vy[array_test_broadcast_index(i, 3, out_shape, 2,
                                                     shape_b)];
            expected[i] = apply(op, p, q);
            if (!comparison)
                expected[i] = (float)expected[i];
        }
        char what[32];
        snprintf(what, sizeof what, "operator %d", o);
        array_test_near(got, expected, 60, 1e-6, what);
        free(got);
        kiln_array_release(result);
        if (comparison) {
            kiln_array_release(x);
            kiln_array_release(y);
        }
    }
    kiln_array_release(a);
    kiln_array_release(b);
    free(va);
    free(vb);
}

/* NumPy's promotion: int8 + uint8 is int16, int32 + float32 float64,
 * int64 + uint64 float64, integer division float64; same shapes (the
 * contiguous path). */
static void types_promote_as_in_numpy(void **state)
{
    kiln_context *context = test_context(state);
    static const struct {
        kiln_dtype a, b;
        kiln_array_op op;
        kiln_dtype result;
    } cases[] = {
        {KILN_DTYPE_INT8, KILN_DTYPE_UINT8, KILN_OP_ADD, KILN_DTYPE_INT16},
        {KILN_DTYPE_INT32, KILN_DTYPE_FLOAT32, KILN_OP_MULTIPLY,
         KILN_DTYPE_FLOAT64},
        {KILN_DTYPE_INT64, KILN_DTYPE_UINT64, KILN_OP_SUBTRACT,
         KILN_DTYPE_FLOAT64},
        {KILN_DTYPE_UINT16, KILN_DTYPE_INT32, KILN_OP_DIVIDE,
         KILN_DTYPE_FLOAT64},
        {KILN_DTYPE_UINT8, KILN_DTYPE_UINT32, KILN_OP_MAXIMUM,
         KILN_DTYPE_UINT32},
    };
    const size_t shape[] = {50};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        double *va = NULL, *vb = NULL;
        kiln_array *a = array_test_random(context, cases[c].a, 1, shape, 1,
                                          100, &va);
        kiln_array *b = array_test_random(context, cases[c].b, 1, shape, 1,
                                          100, &vb);
        kiln_array *result = NULL;
        TEST_OK(kiln_array_binary(cases[c].op, a, b, NULL, &result));
        double *got = array_test_read(result, cases[c].result);
        double expected[50];
        for (size_t i = 0; i < 50; ++i)
            expected[i] = apply(cases[c].op, va[i], vb[i]);
        array_test_near(got, expected, 50, 1e-12, "promotion");
        free(got);
        free(va);
        free(vb);
        kiln_array_release(a);
        kiln_array_release(b);
        kiln_array_release(result);
    }
}

/* A weak scalar keeps the array's dtype; a fraction makes integers
 * float64; the scalar on either side. */
static void scalars_on_either_side(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {2, 33};
    double *v = NULL;
    kiln_array *f = array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape,
                                      1, 9, &v);
    kiln_array *r = NULL;
    const double s = 2.5;
    TEST_OK(kiln_array_scalar_binary(KILN_OP_SUBTRACT, s, f, NULL, &r));
    array_test_shape(r, 2, shape);
    double *got = array_test_read(r, KILN_DTYPE_FLOAT32);
    double expected[66];
    for (size_t i = 0; i < 66; ++i)
        expected[i] = (float)(s - v[i]);
    array_test_near(got, expected, 66, 1e-6, "2.5 - x");
    free(got);
    kiln_array_release(r);
    free(v);

    kiln_array *i16 = array_test_random(context, KILN_DTYPE_INT16, 2, shape,
                                        -300, 300, &v);
    TEST_OK(kiln_array_binary_scalar(KILN_OP_MULTIPLY, i16, 3, NULL, &r));
    got = array_test_read(r, KILN_DTYPE_INT16);
    for (size_t i = 0; i < 66; ++i)
        expected[i] = v[i] * 3;
    array_test_near(got, expected, 66, 0, "int16 * 3");
    free(got);
    kiln_array_release(r);
    TEST_OK(kiln_array_binary_scalar(KILN_OP_ADD, i16, 0.25, NULL, &r));
    got = array_test_read(r, KILN_DTYPE_FLOAT64);
    for (size_t i = 0; i < 66; ++i)
        expected[i] = v[i] + 0.25;
    array_test_near(got, expected, 66, 0, "int16 + 0.25");
    free(got);
    kiln_array_release(r);
    kiln_array_release(i16);
    kiln_array_release(f);
    free(v);
}

static void where_selects_with_broadcasting(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape_c[] = {4, 6}, shape_a[] = {6}, shape_b[] = {4, 1};
    double *vc = NULL, *va = NULL, *vb = NULL;
    kiln_array *c = array_test_random(context, KILN_DTYPE_INT32, 2, shape_c,
                                      0, 2, &vc);
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT32, 1, shape_a,
                                      -5, 5, &va);
    kiln_array *b = array_test_random(context, KILN_DTYPE_INT8, 2, shape_b,
                                      -5, 5, &vb);
    kiln_array *r = NULL;
    TEST_OK(kiln_array_where(c, a, b, NULL, &r));
    array_test_shape(r, 2, shape_c);
    double *got = array_test_read(r, KILN_DTYPE_FLOAT32);
    double expected[24];
    for (size_t i = 0; i < 24; ++i)
        expected[i] = vc[i] != 0 ? va[i % 6] : vb[i / 6];
    array_test_near(got, expected, 24, 0, "where");
    free(got);
    kiln_array_release(r);
    kiln_array_release(a);
    kiln_array_release(b);
    kiln_array_release(c);
    free(va);
    free(vb);
    free(vc);
}

static double reference(kiln_array_function f, double x)
{
    switch (f) {
    case KILN_FN_NEGATIVE: return -x;
    case KILN_FN_ABS: return fabs(x);
    case KILN_FN_SQUARE: return x * x;
    case KILN_FN_SQRT: return sqrt(x);
    case KILN_FN_EXP: return exp(x);
    case KILN_FN_LOG: return log(x);
    case KILN_FN_LOG10: return log10(x);
    case KILN_FN_SIN: return sin(x);
    case KILN_FN_COS: return cos(x);
    case KILN_FN_TAN: return tan(x);
    case KILN_FN_TANH: return tanh(x);
    case KILN_FN_FLOOR: return floor(x);
    case KILN_FN_CEIL: return ceil(x);
    }
    return NAN;
}

static void math_functions(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {200};
    double *v = NULL;
    kiln_array *x = array_test_random(context, KILN_DTYPE_FLOAT32, 1, shape,
                                      0.1, 3, &v);
    for (int f = KILN_FN_NEGATIVE; f <= KILN_FN_CEIL; ++f) {
        kiln_array *r = NULL;
        TEST_OK(kiln_array_math((kiln_array_function)f, x, NULL, &r));
        double *got = array_test_read(r, KILN_DTYPE_FLOAT32);
        double expected[200];
        for (size_t i = 0; i < 200; ++i)
            expected[i] = reference((kiln_array_function)f, v[i]);
        char what[32];
        snprintf(what, sizeof what, "function %d", f);
        /* OpenCL's float functions are within a few ulp */
        array_test_near(got, expected, 200, 4e-6, what);
        free(got);
        kiln_array_release(r);
    }
    kiln_array_release(x);
    free(v);
    /* integers: sqrt of int32 is float64, abs of int8 stays int8 */
    x = array_test_random(context, KILN_DTYPE_INT32, 1, shape, 0, 100000, &v);
    kiln_array *r = NULL;
    TEST_OK(kiln_array_math(KILN_FN_SQRT, x, NULL, &r));
    double *got = array_test_read(r, KILN_DTYPE_FLOAT64);
    double expected[200];
    for (size_t i = 0; i < 200; ++i)
        expected[i] = sqrt(v[i]);
    array_test_near(got, expected, 200, 1e-14, "sqrt int32");
    free(got);
    kiln_array_release(r);
    kiln_array_release(x);
    free(v);
    x = array_test_random(context, KILN_DTYPE_INT8, 1, shape, -120, 120, &v);
    TEST_OK(kiln_array_math(KILN_FN_ABS, x, NULL, &r));
    got = array_test_read(r, KILN_DTYPE_INT8);
    for (size_t i = 0; i < 200; ++i)
        expected[i] = fabs(v[i]);
    array_test_near(got, expected, 200, 0, "abs int8");
    free(got);
    kiln_array_release(r);
    kiln_array_release(x);
    free(v);
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(every_operator_broadcasts),
        KILN_TEST(types_promote_as_in_numpy),
        KILN_TEST(scalars_on_either_side),
        KILN_TEST(where_selects_with_broadcasting),
        KILN_TEST(math_functions),
    };
    return kiln_test_main("array_ops", tests, sizeof tests / sizeof tests[0]);
}
