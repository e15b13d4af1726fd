/*
 * Arrays of kiln_array.h: creation (empty, zeros, ones, full, arange,
 * linspace, from the host), views (reshape, slice), astype, and random
 * numbers from Philox4x32-10 checked bit for bit against a CPU
 * implementation of the generator, on every backend.
 */
#include "config.h"

#include "array_test.h"

#include <stdio.h>

static void zeros_ones_full_of_every_dtype(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {3, 5, 2};
    for (int t = KILN_DTYPE_INT8; t <= KILN_DTYPE_FLOAT64; ++t) {
        kiln_dtype dtype = (kiln_dtype)t;
        /* a value every dtype holds exactly, different each run */
        double value = (double)(test_random_u64() % 100) + 1;
        kiln_array *arrays[3] = {NULL, NULL, NULL};
        TEST_OK(kiln_array_zeros(context, dtype, 3, shape, NULL, &arrays[0]));
        TEST_OK(kiln_array_ones(context, dtype, 3, shape, NULL, &arrays[1]));
        TEST_OK(kiln_array_full(context, dtype, 3, shape, value, NULL,
                                &arrays[2]));
        const double expected[3] = {0, 1, value};
        for (int k = 0; k < 3; ++k) {
            array_test_shape(arrays[k], 3, shape);
            double *v = array_test_read(arrays[k], dtype);
            for (size_t i = 0; i < 30; ++i)
                if (v[i] != expected[k])
                    fail_msg("%s: element %zu is %g, expected %g",
                             kiln_dtype_name(dtype), i, v[i], expected[k]);
            free(v);
            TEST_OK(kiln_array_release(arrays[k]));
        }
    }
    /* 0-d and empty arrays */
    kiln_array *scalar = NULL, *empty = NULL;
    TEST_OK(kiln_array_full(context, KILN_DTYPE_INT32, 0, NULL, -7, NULL,
                            &scalar));
    double *v = array_test_read(scalar, KILN_DTYPE_INT32);
    assert_true(v[0] == -7);
    free(v);
    const size_t none[] = {4, 0};
    TEST_OK(kiln_array_empty(context, KILN_DTYPE_FLOAT32, 2, none, &empty));
    size_t size = 9;
    TEST_OK(kiln_array_get_size(empty, &size));
    assert_int_equal(size, 0);
    TEST_OK(kiln_array_to_host(empty, NULL, 0, NULL));
    kiln_array_release(scalar);
    kiln_array_release(empty);
}

static void arange_and_linspace(void **state)
{
    kiln_context *context = test_context(state);
    double start = (double)(test_random_u64() % 20) - 10;
    kiln_array *a = NULL;
    TEST_OK(kiln_array_arange(context, KILN_DTYPE_FLOAT32, start, start + 50,
                              0.5, NULL, &a));
    const size_t shape[] = {100};
    array_test_shape(a, 1, shape);
    double *v = array_test_read(a, KILN_DTYPE_FLOAT32);
    for (size_t i = 0; i < 100; ++i)
        if (v[i] != start + 0.5 * (double)i)
            fail_msg("arange[%zu] = %g", i, v[i]);
    free(v);
    kiln_array_release(a);
    /* integers, a negative step */
    TEST_OK(kiln_array_arange(context, KILN_DTYPE_INT64, 10, -3, -3, NULL,
                              &a));
    const size_t five[] = {5};
    array_test_shape(a, 1, five);
    v = array_test_read(a, KILN_DTYPE_INT64);
    const double ints[] = {10, 7, 4, 1, -2};
    array_test_near(v, ints, 5, 0, "arange int64");
    free(v);
    kiln_array_release(a);

    TEST_OK(kiln_array_linspace(context, KILN_DTYPE_FLOAT64, start, 3.0, 7,
                                NULL, &a));
    v = array_test_read(a, KILN_DTYPE_FLOAT64);
    for (size_t i = 0; i < 7; ++i) {
        double expected = start + (3.0 - start) / 6 * (double)i;
        if (fabs(v[i] - expected) > 1e-12)
            fail_msg("linspace[%zu] = %.17g, expected %.17g", i, v[i],
                     expected);
    }
    assert_true(v[6] == 3.0); /* the end point exactly */
    free(v);
    kiln_array_release(a);
}

static void host_round_trip_views_and_astype(void **state)
{
    kiln_context *context = test_context(state);
    const size_t shape[] = {6, 4};
    double *values = NULL;
    kiln_array *a = array_test_random(context, KILN_DTYPE_FLOAT32, 2, shape,
                                      -100, 100, &values);
    double *back = array_test_read(a, KILN_DTYPE_FLOAT32);
    array_test_near(back, values, 24, 0, "round trip");
    free(back);

    /* reshape: the same memory */
    const size_t flat_shape[] = {3, 8};
    kiln_array *flat = NULL;
    TEST_OK(kiln_array_reshape(a, 2, flat_shape, &flat));
    array_test_shape(flat, 2, flat_shape);
    back = array_test_read(flat, KILN_DTYPE_FLOAT32);
    array_test_near(back, values, 24, 0, "reshape");
    free(back);
    kiln_buffer *buffer_a = NULL, *buffer_flat = NULL;
    size_t offset_a = 1, offset_flat = 1;
    TEST_OK(kiln_array_get_buffer(a, &buffer_a, &offset_a));
    TEST_OK(kiln_array_get_buffer(flat, &buffer_flat, &offset_flat));
    assert_ptr_equal(buffer_a, buffer_flat);
    assert_int_equal(offset_a, 0);

    /* slice rows 2..5: a view at an offset; operations read it there */
    kiln_array *rows = NULL;
    TEST_OK(kiln_array_slice(a, 2, 5, &rows));
    const size_t rows_shape[] = {3, 4};
    array_test_shape(rows, 2, rows_shape);
    size_t offset_rows = 0;
    TEST_OK(kiln_array_get_buffer(rows, &buffer_a, &offset_rows));
    assert_int_equal(offset_rows, 8 * sizeof(float));
    back = array_test_read(rows, KILN_DTYPE_FLOAT32);
    array_test_near(back, values + 8, 12, 0, "slice");
    free(back);

    /* astype of the view: C's conversions (toward zero for integers) */
    kiln_array *ints = NULL, *doubles = NULL;
    TEST_OK(kiln_array_astype(rows, KILN_DTYPE_INT16, NULL, &ints));
    TEST_OK(kiln_array_astype(rows, KILN_DTYPE_FLOAT64, NULL, &doubles));
    back = array_test_read(ints, KILN_DTYPE_INT16);
    for (size_t i = 0; i < 12; ++i)
        if (back[i] != trunc(values[8 + i]))
            fail_msg("astype int16 [%zu] = %g of %g", i, back[i],
                     values[8 + i]);
    free(back);
    back = array_test_read(doubles, KILN_DTYPE_FLOAT64);
    array_test_near(back, values + 8, 12, 0, "astype float64");
    free(back);

    /* the views outlive the array they came from */
    kiln_array_release(a);
    back = array_test_read(rows, KILN_DTYPE_FLOAT32);
    array_test_near(back, values + 8, 12, 0, "slice after release");
    free(back);
    kiln_array_release(rows);
    kiln_array_release(flat);
    kiln_array_release(ints);
    kiln_array_release(doubles);
    free(values);
}

/* ---- Philox4x32-10 on the CPU, as Salmon et al. define it ---------------- */

static void philox(uint32_t counter[4], uint32_t key0, uint32_t key1)
{
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            key0 += 0x9E3779B9u;
            key1 += 0xBB67AE85u;
        }
        uint64_t p0 = (uint64_t)0xD2511F53u * counter[0];
        uint64_t p1 = (uint64_t)0xCD9E8D57u * counter[2];
        uint32_t next[4] = {(uint32_t)(p1 >> 32) ^ counter[1] ^ key0,
                            (uint32_t)p1,
                            (uint32_t)(p0 >> 32) ^ counter[3] ^ key1,
                            (uint32_t)p0};
        memcpy(counter, next, sizeof next);
    }
}

static void philox_block(uint64_t seed, uint64_t block, uint32_t out[4])
{
    out[0] = (uint32_t)block;
    out[1] = (uint32_t)(block >> 32);
    out[2] = out[3] = 0;
    philox(out, (uint32_t)seed, (uint32_t)(seed >> 32));
}

static void philox_known_answer(void **state)
{
    (void)state;
    /* Random123's known-answer test for philox4x32_10: counter and key
     * zero give 6627e8d5 e169c58d bc57ac4c 9b00dbd8. */
    uint32_t c[4] = {0, 0, 0, 0};
    philox(c, 0, 0);
    assert_true(c[0] == 0x6627e8d5u && c[1] == 0xe169c58du &&
                c[2] == 0xbc57ac4cu && c[3] == 0x9b00dbd8u);
}

static void random_uniform_is_philox_bit_for_bit(void **state)
{
    kiln_context *context = test_context(state);
    kiln_random random = {test_random_u64(), test_random_u64() >> 20};
    const uint64_t first_counter = random.counter;
    const size_t shape[] = {1001};
    kiln_array *a = NULL, *b = NULL;
    TEST_OK(kiln_array_random_uniform(&random, context, KILN_DTYPE_FLOAT32, 1,
                                      shape, 0, 1, NULL, &a));
    /* 1001 floats, 4 a block: 251 blocks used */
    assert_true(random.counter == first_counter + 251);
    TEST_OK(kiln_array_random_uniform(&random, context, KILN_DTYPE_FLOAT64, 1,
                                      shape, -2, 6, NULL, &b));
    assert_true(random.counter == first_counter + 251 + 501);
    double *fa = array_test_read(a, KILN_DTYPE_FLOAT32);
    double *fb = array_test_read(b, KILN_DTYPE_FLOAT64);
    for (size_t i = 0; i < 1001; ++i) {
        uint32_t r[4];
        philox_block(random.seed, first_counter + i / 4, r);
        double expected = (double)(r[i % 4] >> 8) * 0x1.0p-24;
        if (fa[i] != expected)
            fail_msg("float32 [%zu] = %.9g, Philox says %.9g", i, fa[i],
                     expected);
        philox_block(random.seed, first_counter + 251 + i / 2, r);
        uint64_t bits = ((uint64_t)(r[2 * (i % 2)] >> 5) << 26) |
                        (r[2 * (i % 2) + 1] >> 6);
        double u = (double)bits * 0x1.0p-53;
        if (fabs(fb[i] - (-2 + 8 * u)) > 1e-15)
            fail_msg("float64 [%zu] = %.17g, Philox says %.17g", i, fb[i],
                     -2 + 8 * u);
    }
    free(fa);
    free(fb);
    kiln_array_release(a);
    kiln_array_release(b);

    /* the same seed and counter: the same numbers, in any shape */
    const size_t square[] = {7, 11};
    kiln_random again = {random.seed, first_counter};
    TEST_OK(kiln_array_random_uniform(&again, context, KILN_DTYPE_FLOAT32, 2,
                                      square, 0, 1, NULL, &a));
    fa = array_test_read(a, KILN_DTYPE_FLOAT32);
    for (size_t i = 0; i < 77; ++i) {
        uint32_t r[4];
        philox_block(random.seed, first_counter + i / 4, r);
        assert_true(fa[i] == (double)(r[i % 4] >> 8) * 0x1.0p-24);
    }
    free(fa);
    kiln_array_release(a);
}

static void random_normal_follows_box_muller(void **state)
{
    kiln_context *context = test_context(state);
    kiln_random random = {test_random_u64(), 0};
    const size_t shape[] = {40000};
    const double mean = 3, stddev = 2;
    kiln_array *a = NULL;
    TEST_OK(kiln_array_random_normal(&random, context, KILN_DTYPE_FLOAT32, 1,
                                     shape, mean, stddev, NULL, &a));
    double *v = array_test_read(a, KILN_DTYPE_FLOAT32);
    double sum = 0, squares = 0;
    for (size_t i = 0; i < 40000; ++i) {
        sum += v[i];
        squares += (v[i] - mean) * (v[i] - mean);
        if (i < 256) {
            /* each pair from two uniforms of one block */
            uint32_t r[4];
            philox_block(random.seed, i / 4, r);
            size_t pair = (i % 4) / 2 * 2;
            double u1 = (double)(r[pair] >> 8) * 0x1.0p-24;
            double u2 = (double)(r[pair + 1] >> 8) * 0x1.0p-24;
            double radius = sqrt(-2 * log(1 - u1));
            double z = i % 2 ? radius * sin(6.283185307179586 * u2)
                             : radius * cos(6.283185307179586 * u2);
            if (fabs(v[i] - (mean + stddev * z)) > 1e-4 * (1 + fabs(z)))
                fail_msg("normal[%zu] = %.9g, Box-Muller gives %.9g", i, v[i],
                         mean + stddev * z);
        }
    }
    /* and as a distribution: mean and deviation within 5 standard errors */
    double sample_mean = sum / 40000, sample_sd = sqrt(squares / 40000);
    assert_true(fabs(sample_mean - mean) < 5 * stddev / 200);
    assert_true(fabs(sample_sd - stddev) < 0.05);
    free(v);
    kiln_array_release(a);
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(zeros_ones_full_of_every_dtype),
        KILN_TEST(arange_and_linspace),
        KILN_TEST(host_round_trip_views_and_astype),
        KILN_TEST(philox_known_answer),
        KILN_TEST(random_uniform_is_philox_bit_for_bit),
        KILN_TEST(random_normal_follows_box_muller),
    };
    return kiln_test_main("array", tests, sizeof tests / sizeof tests[0]);
}
