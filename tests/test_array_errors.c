/*
 * Bad input to the array layer: each gets its own status and a message
 * that says what was wrong, and writes no out-parameter.  Shapes that do
 * not match or broadcast, dtypes an operation does not take, arrays of
 * two contexts, axes and ranges out of bounds, wrong host sizes, NULLs.
 */
#include "config.h"

#include "array_test.h"

#include <stdio.h>

/* What an out-parameter holds when nothing may have written it. */
#define UNTOUCHED ((kiln_array *)(uintptr_t)0x5a5a)

static void shapes_that_do_not_fit(void **state)
{
    kiln_context *context = test_context(state);
    const size_t s34[] = {3, 4}, s5[] = {5}, s43[] = {4, 3};
    kiln_array *a = NULL, *b = NULL, *c = NULL, *r = UNTOUCHED;
    TEST_OK(kiln_array_ones(context, KILN_DTYPE_FLOAT32, 2, s34, NULL, &a));
    TEST_OK(kiln_array_ones(context, KILN_DTYPE_FLOAT32, 1, s5, NULL, &b));
    TEST_OK(kiln_array_ones(context, KILN_DTYPE_FLOAT32, 2, s34, NULL, &c));

    TEST_FAILS(KILN_ERR_SHAPE,
               kiln_array_binary(KILN_OP_ADD, a, b, NULL, &r));
    TEST_ERROR_MENTIONS("(3, 4) and (5,)");
    TEST_ERROR_MENTIONS("do not broadcast");
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_where(a, a, b, NULL, &r));
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_matmul(a, c, NULL, &r));
    TEST_ERROR_MENTIONS("inner sizes 4 and 3");
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_reshape(a, 1, s43 + 1, &r));
    TEST_ERROR_MENTIONS("12 elements");
    TEST_FAILS(KILN_ERR_SHAPE,
               kiln_array_reduce_axis(KILN_REDUCE_SUM, a, 2, NULL, &r));
    TEST_ERROR_MENTIONS("axis 2");
    TEST_FAILS(KILN_ERR_SHAPE,
               kiln_array_reduce_axis(KILN_REDUCE_SUM, a, -3, NULL, &r));
    const size_t not_a_permutation[] = {0, 0};
    TEST_FAILS(KILN_ERR_SHAPE,
               kiln_array_transpose(a, not_a_permutation, NULL, &r));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS, kiln_array_slice(a, 2, 4, &r));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS, kiln_array_slice(a, 2, 1, &r));
    const size_t too_many[KILN_ARRAY_MAX_DIMS + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    TEST_FAILS(KILN_ERR_SHAPE,
               kiln_array_empty(context, KILN_DTYPE_INT8,
                                KILN_ARRAY_MAX_DIMS + 1, too_many, &r));
    kiln_array *scalar = NULL;
    TEST_OK(kiln_array_full(context, KILN_DTYPE_FLOAT32, 0, NULL, 2, NULL,
                            &scalar));
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_slice(scalar, 0, 0, &r));
    TEST_FAILS(KILN_ERR_SHAPE, kiln_array_matmul(scalar, a, NULL, &r));
    assert_ptr_equal(r, UNTOUCHED);

    /* host copies of the wrong size */
    float host[12];
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_array_to_host(a, host, sizeof host - 4, NULL));
    TEST_ERROR_MENTIONS("48 bytes");
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_array_from_host(context, KILN_DTYPE_FLOAT64, 2, s34, host,
                                    sizeof host, NULL, &r));
    assert_ptr_equal(r, UNTOUCHED);
    kiln_array_release(a);
    kiln_array_release(b);
    kiln_array_release(c);
    kiln_array_release(scalar);
}

static void dtypes_an_operation_does_not_take(void **state)
{
    kiln_context *context = test_context(state);
    const size_t s22[] = {2, 2};
    kiln_array *i = NULL, *f = NULL, *r = UNTOUCHED;
    TEST_OK(kiln_array_ones(context, KILN_DTYPE_INT32, 2, s22, NULL, &i));
    TEST_OK(kiln_array_ones(context, KILN_DTYPE_FLOAT32, 2, s22, NULL, &f));
    kiln_random random = {1, 0};
    TEST_FAILS(KILN_ERR_DTYPE,
               kiln_array_random_uniform(&random, context, KILN_DTYPE_INT32,
                                         2, s22, 0, 1, NULL, &r));
    assert_true(random.counter == 0);
    TEST_FAILS(KILN_ERR_DTYPE,
               kiln_array_zeros(context, (kiln_dtype)42, 2, s22, NULL, &r));
    TEST_FAILS(KILN_ERR_DTYPE, kiln_array_astype(f, (kiln_dtype)-1, NULL, &r));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_binary((kiln_array_op)99, f, f, NULL, &r));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_math((kiln_array_function)99, f, NULL, &r));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_reduce((kiln_array_reduce_op)99, f, NULL, &r));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_arange(context, KILN_DTYPE_FLOAT32, 0, 1, 0, NULL,
                                 &r));
    assert_ptr_equal(r, UNTOUCHED);
    assert_string_equal(kiln_dtype_name((kiln_dtype)42), "unknown");
    assert_int_equal(kiln_dtype_size((kiln_dtype)42), 0);
    kiln_array_release(i);
    kiln_array_release(f);
}

static void arrays_of_two_contexts(void **state)
{
    kiln_context *context = test_context(state);
    kiln_context *other = NULL;
    TEST_OK(kiln_context_create(test_backend(state), -1, &other));
    const size_t s[] = {8};
    kiln_array *a = NULL, *b = NULL, *r = UNTOUCHED;
    TEST_OK(kiln_array_ones(context, KILN_DTYPE_FLOAT32, 1, s, NULL, &a));
    TEST_OK(kiln_array_ones(other, KILN_DTYPE_FLOAT32, 1, s, NULL, &b));
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH,
               kiln_array_binary(KILN_OP_ADD, a, b, NULL, &r));
    TEST_ERROR_MENTIONS("two different contexts");
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH, kiln_array_where(a, a, b, NULL, &r));
    TEST_FAILS(KILN_ERR_CONTEXT_MISMATCH, kiln_array_matmul(a, b, NULL, &r));
    assert_ptr_equal(r, UNTOUCHED);
    kiln_array_release(a);
    kiln_array_release(b);
    kiln_context_release(other);
}

static void null_and_released_handles(void **state)
{
    kiln_context *context = test_context(state);
    const size_t s[] = {4};
    kiln_array *a = NULL, *r = UNTOUCHED;
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_array_zeros(NULL, KILN_DTYPE_FLOAT32, 1, s, NULL, &r));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_zeros(context, KILN_DTYPE_FLOAT32, 1, s, NULL, NULL));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_zeros(context, KILN_DTYPE_FLOAT32, 1, NULL, NULL,
                                &r));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_array_binary(KILN_OP_ADD, NULL, NULL, NULL, &r));
    TEST_ERROR_MENTIONS("kiln_array_binary: a is NULL");
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_array_math(KILN_FN_ABS, NULL,
                                                        NULL, &r));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_array_release(NULL));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_random_normal(NULL, context, KILN_DTYPE_FLOAT32, 1,
                                        s, 0, 1, NULL, &r));
    assert_ptr_equal(r, UNTOUCHED);
    TEST_OK(kiln_array_zeros(context, KILN_DTYPE_FLOAT32, 1, s, NULL, &a));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_binary(KILN_OP_ADD, a, a, NULL, NULL));
    size_t ndim = 0;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_array_get_shape(a, NULL, NULL));
    TEST_OK(kiln_array_get_shape(a, &ndim, NULL));
    assert_int_equal(ndim, 1);
    /* a success leaves no message behind */
    assert_string_equal(kiln_last_error(), "");
    TEST_OK(kiln_array_release(a));
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(shapes_that_do_not_fit),
        KILN_TEST(dtypes_an_operation_does_not_take),
        KILN_TEST(arrays_of_two_contexts),
        KILN_TEST(null_and_released_handles),
    };
    return kiln_test_main("array_errors", tests,
                          sizeof tests / sizeof tests[0]);
}
