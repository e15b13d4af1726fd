/*
 * What the third outside attack (issue 29) broke in the array layer:
 * scalars outside an integer dtype, argmin/argmax and NaN, empty shapes
 * accepted or refused by the order of their sizes, generator counts past a
 * long, a scan's long name, random numbers that reached `high` or took
 * parameters no distribution has, and generator strings that carried
 * preprocessor lines (an #include of /etc/passwd put it in the message).  Each good call is checked against
 * the CPU on every backend; each bad one for its status and message.
 */
#include "config.h" /* _GNU_SOURCE: mkdtemp */

#include "array_test.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* ---- C7: scalars outside an integer array's dtype ------------------------ */

static void scalars_outside_an_integer_dtype(void **state)
{
    kiln_context *context = test_context(state);
    enum { n = 500 };
    uint8_t host[n];
    test_random_bytes(host, n);
    host[0] = 0;
    host[1] = 255;
    kiln_array *a = NULL;
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_UINT8, 1,
                                 (size_t[]){n}, host, n, NULL, &a));
    /* comparisons have one answer for every element (bools) */
    static const struct {
        kiln_array_op op;
        double scalar;
        int scalar_first;
        int expected;
    } comparisons[] = {
        {KILN_OP_LESS, 300, 0, 1},         {KILN_OP_LESS_EQUAL, 256, 0, 1},
        {KILN_OP_GREATER, 300, 0, 0},      {KILN_OP_GREATER_EQUAL, 1e30, 0, 0},
        {KILN_OP_EQUAL, 300, 0, 0},        {KILN_OP_NOT_EQUAL, 300, 0, 1},
        {KILN_OP_LESS, -1, 0, 0},          {KILN_OP_GREATER, -1, 0, 1},
        {KILN_OP_GREATER_EQUAL, -1e30, 0, 1}, {KILN_OP_EQUAL, -1, 0, 0},
        {KILN_OP_LESS, 300, 1, 0},         {KILN_OP_GREATER, 300, 1, 1},
        {KILN_OP_LESS_EQUAL, -5, 1, 1},    {KILN_OP_NOT_EQUAL, -5, 1, 1},
    };
    for (size_t c = 0; c < sizeof comparisons / sizeof comparisons[0]; ++c) {
        kiln_array *r = NULL;
        if (comparisons[c].scalar_first)
            TEST_OK(kiln_array_scalar_binary(comparisons[c].op,
                                             comparisons[c].scalar, a, NULL,
                                             &r));
        else
            TEST_OK(kiln_array_binary_scalar(comparisons[c].op, a,
                                             comparisons[c].scalar, NULL, &r));
        double *values = array_test_read(r, KILN_DTYPE_BOOL);
        array_test_shape(r, 1, (size_t[]){n});
        for (size_t i = 0; i < n; ++i)
            if (values[i] != comparisons[c].expected)
                fail_msg("comparison %zu with %g: element %zu (%u) gives %g, "
                         "expected %d",
                         c, comparisons[c].scalar, i, host[i], values[i],
                         comparisons[c].expected);
        free(values);
        kiln_array_release(r);
    }
    /* arithmetic with such a scalar would wrap: refused, as NumPy 2 does */
    const kiln_array_op arithmetic[] = {KILN_OP_ADD, KILN_OP_SUBTRACT,
                                        KILN_OP_MULTIPLY, KILN_OP_DIVIDE,
                                        KILN_OP_MAXIMUM, KILN_OP_MINIMUM};
    const double outside[] = {300, 256, -1, 1e30, -9.3e18, 18446744073709551616.0};
    for (size_t o = 0; o < sizeof arithmetic / sizeof arithmetic[0]; ++o)
        for (size_t s = 0; s < sizeof outside / sizeof outside[0]; ++s) {
            kiln_array *r = (kiln_array *)(uintptr_t)0x1;
            TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
                       kiln_array_binary_scalar(arithmetic[o], a, outside[s],
                                                NULL, &r));
            TEST_ERROR_MENTIONS("is not a value of uint8");
            assert_ptr_equal(r, (kiln_array *)(uintptr_t)0x1);
        }
    /* in range: the dtype's arithmetic (wrapping, as NumPy's) */
    kiln_array *sum = NULL;
    TEST_OK(kiln_array_binary_scalar(KILN_OP_ADD, a, 255, NULL, &sum));
    double *values = array_test_read(sum, KILN_DTYPE_UINT8);
    for (size_t i = 0; i < n; ++i)
        if (values[i] != (uint8_t)(host[i] + 255))
            fail_msg("element %zu: %u + 255 gave %g", i, host[i], values[i]);
    free(values);
    kiln_array_release(sum);
    /* infinities and NaN are not integers: float64, as a fraction is */
    kiln_array *lt = NULL;
    TEST_OK(kiln_array_binary_scalar(KILN_OP_ADD, a, INFINITY, NULL, &lt));
    values = array_test_read(lt, KILN_DTYPE_FLOAT64);
    assert_true(isinf(values[0]) && values[0] > 0);
    free(values);
    kiln_array_release(lt);
    /* kiln_array_full of a value the dtype does not hold */
    kiln_array *full = (kiln_array *)(uintptr_t)0x1;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_full(context, KILN_DTYPE_INT8, 1, (size_t[]){4}, 128,
                               NULL, &full));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_full(context, KILN_DTYPE_INT64, 1, (size_t[]){4},
                               9223372036854775808.0, NULL, &full));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_full(context, KILN_DTYPE_UINT32, 1, (size_t[]){4},
                               NAN, NULL, &full));
    assert_ptr_equal(full, (kiln_array *)(uintptr_t)0x1);
    kiln_array_release(a);
}

/* ---- C8: argmin and argmax of NaN ---------------------------------------- */

static void argmin_and_argmax_see_nan_first(void **state)
{
    kiln_context *context = test_context(state);
    /* NumPy's and CuPy's answers: the first NaN wins */
    static const struct {
        float values[6];
        size_t count;
        int64_t argmin, argmax;
    } cases[] = {
        {{1, NAN, 0, 5}, 4, 1, 1},
        {{NAN, NAN, NAN}, 3, 0, 0},
        {{2, 7, -3, NAN, 7, NAN}, 6, 3, 3},
        {{INFINITY, INFINITY}, 2, 0, 0},
        {{-INFINITY, 4, NAN}, 3, 2, 2},
        {{3, -1, 8, -1, 8}, 5, 1, 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (int dtype_index = 0; dtype_index < 2; ++dtype_index) {
            kiln_dtype dtype =
                dtype_index ? KILN_DTYPE_FLOAT64 : KILN_DTYPE_FLOAT32;
            kiln_device_info device;
            TEST_OK(kiln_context_get_device_info(context, &device));
            if (dtype == KILN_DTYPE_FLOAT64 && !device.supports_double)
                continue;
            double doubles[6];
            for (size_t i = 0; i < cases[c].count; ++i)
                doubles[i] = cases[c].values[i];
            kiln_array *a = NULL;
            TEST_OK(kiln_array_from_host(
                context, dtype, 1, (size_t[]){cases[c].count},
                dtype_index ? (const void *)doubles
                            : (const void *)cases[c].values,
                cases[c].count * kiln_dtype_size(dtype), NULL, &a));
            const kiln_array_reduce_op ops[2] = {KILN_REDUCE_ARGMIN,
                                                 KILN_REDUCE_ARGMAX};
            for (int o = 0; o < 2; ++o) {
                kiln_array *r = NULL;
                TEST_OK(kiln_array_reduce(ops[o], a, NULL, &r));
                int64_t index = -1;
                TEST_OK(kiln_array_to_host(r, &index, sizeof index, NULL));
                int64_t expected = o ? cases[c].argmax : cases[c].argmin;
                if (index != expected)
                    fail_msg("case %zu (%s): %s is %lld, expected %lld", c,
                             kiln_dtype_name(dtype), o ? "argmax" : "argmin",
                             (long long)index, (long long)expected);
                kiln_array_release(r);
            }
            kiln_array_release(a);
        }
    }
    /* along an axis, and split over many work-groups: one NaN far in */
    enum { rows = 3, columns = 70000 };
    float *host = test_alloc(sizeof(float) * rows * columns);
    test_random_floats(host, rows * columns, -1, 1);
    host[0 * columns + 65432] = NAN;
    host[2 * columns + 3] = NAN;
    host[2 * columns + 60000] = NAN;
    kiln_array *a = NULL;
    TEST_OK(kiln_array_from_host(context, KILN_DTYPE_FLOAT32, 2,
                                 (size_t[]){rows, columns}, host,
                                 sizeof(float) * rows * columns, NULL, &a));
    kiln_array *r = NULL;
    TEST_OK(kiln_array_reduce_axis(KILN_REDUCE_ARGMIN, a, 1, NULL, &r));
    int64_t index[rows];
    TEST_OK(kiln_array_to_host(r, index, sizeof index, NULL));
    size_t best = 0;
    for (size_t j = 1; j < columns; ++j)
        if (host[1 * columns + j] < host[1 * columns + best])
            best = j;
    assert_int_equal(index[0], 65432);
    assert_int_equal(index[1], best);
    assert_int_equal(index[2], 3);
    kiln_array_release(r);
    TEST_OK(kiln_array_reduce(KILN_REDUCE_ARGMAX, a, NULL, &r));
    int64_t flat = -1;
    TEST_OK(kiln_array_to_host(r, &flat, sizeof flat, NULL));
    assert_int_equal(flat, 65432);
    kiln_array_release(r);
    kiln_array_release(a);
    free(host);
}

/* ---- L2: empty shapes ------------------------------------------------------ */

static void empty_shapes_do_not_depend_on_order(void **state)
{
    kiln_context *context = test_context(state);
    const size_t big = (size_t)1 << 63;
    const size_t shapes[][3] = {
        {0, big, big}, {big, big, 0}, {big, 0, big}, {0, SIZE_MAX, 2},
        {2, SIZE_MAX, 0}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        kiln_array *a = (kiln_array *)(uintptr_t)0x1;
        TEST_FAILS(KILN_ERR_INVALID_SIZE,
                   kiln_array_empty(context, KILN_DTYPE_FLOAT32, 3, shapes[s],
                                    &a));
        assert_ptr_equal(a, (kiln_array *)(uintptr_t)0x1);
    }
    /* what fits is empty in any order */
    const size_t fine[][3] = {{0, 1000, 1000}, {1000, 1000, 0},
                              {1000, 0, 1000}};
    for (size_t s = 0; s < sizeof fine / sizeof fine[0]; ++s) {
        kiln_array *a = NULL;
        TEST_OK(kiln_array_empty(context, KILN_DTYPE_FLOAT32, 3, fine[s], &a));
        size_t size = 99;
        TEST_OK(kiln_array_get_size(a, &size));
        assert_int_equal(size, 0);
        kiln_array *sum = NULL;
        TEST_OK(kiln_array_reduce(KILN_REDUCE_SUM, a, NULL, &sum));
        float total = 1;
        TEST_OK(kiln_array_to_host(sum, &total, sizeof total, NULL));
        assert_true(total == 0);
        kiln_array_release(sum);
        kiln_array_release(a);
    }
}

/* ---- M1 and M2: generator counts and names ------------------------------- */

static void generator_counts_past_a_long_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    enum { n = 1000 };
    float x[n];
    test_random_floats(x, n, -1, 1);
    kiln_buffer *buffer = test_buffer_from(context, x, sizeof x);
    kiln_elementwise *twice = NULL;
    TEST_OK(kiln_elementwise_create(context, "global float *x", "x[i] *= 2",
                                    "twice", NULL, &twice));
    kiln_reduction *sum = NULL;
    TEST_OK(kiln_reduction_create(context, "float", "0", "a + b", "x[i]",
                                  "global const float *x", "total", NULL,
                                  &sum));
    kiln_scan *scan = NULL;
    TEST_OK(kiln_scan_create(context, "float", "0", "a + b", "x[i]",
                             "global const float *x", KILN_SCAN_INCLUSIVE,
                             "prefix", NULL, &scan));
    kiln_buffer *out = test_buffer(context, sizeof x);
    kiln_arg args[] = {KILN_ARG_BUFFER(buffer)};
    const size_t huge[] = {(size_t)1 << 63, SIZE_MAX, SIZE_MAX - 254};
    for (size_t h = 0; h < sizeof huge / sizeof huge[0]; ++h) {
        TEST_FAILS(KILN_ERR_INVALID_SIZE,
                   kiln_elementwise_launch(twice, huge[h], 1, args, NULL));
        TEST_ERROR_MENTIONS("elements a generated kernel indexes");
        float total = 42;
        TEST_FAILS(KILN_ERR_INVALID_SIZE,
                   kiln_reduction_run_to_host(sum, huge[h], 1, args, &total,
                                              sizeof total, NULL));
        assert_true(total == 42);
        TEST_FAILS(KILN_ERR_INVALID_SIZE,
                   kiln_scan_run(scan, huge[h], 1, args, out, 0, NULL));
    }
    /* nothing ran: the data is as it was, and n works */
    float back[n];
    test_read(buffer, back, sizeof back);
    assert_memory_equal(back, x, sizeof x);
    float total = 0;
    TEST_OK(kiln_reduction_run_to_host(sum, n, 1, args, &total, sizeof total,
                                       NULL));
    double expected = 0;
    for (int i = 0; i < n; ++i)
        expected += x[i];
    assert_true(fabs(total - expected) < 1e-3);
    kiln_scan_release(scan);
    kiln_reduction_release(sum);
    kiln_elementwise_release(twice);
    kiln_buffer_release(out);
    kiln_buffer_release(buffer);
}

static void scans_with_long_names_are_found(void **state)
{
    kiln_context *context = test_context(state);
    /* 110 characters: its three kernels' names (the longest 124) are
     * under every backend's limit (127 on CUDA, 150 on OpenCL); a
     * 160-byte buffer cut them before.
     * 170 (names up to 184, which NVIDIA's OpenCL compiler corrupted
     * memory on) is refused, not built. */
    char name[171];
    for (size_t i = 0; i < 170; ++i)
        name[i] = (char)('a' + i % 26);
    name[170] = '\0';
    kiln_scan *refused = NULL;
    kiln_status status = kiln_scan_create(
        context, "int", "0", "a + b", "x[i]", "global const int *x",
        KILN_SCAN_EXCLUSIVE, name, NULL, &refused);
    if (status == KILN_OK)
        fail_msg("a scan named by 170 characters was built");
    assert_null(refused);
    name[110] = '\0';
    kiln_scan *scan = NULL;
    TEST_OK(kiln_scan_create(context, "int", "0", "a + b", "x[i]",
                             "global const int *x", KILN_SCAN_EXCLUSIVE, name,
                             NULL, &scan));
    enum { n = 5000 };
    int32_t x[n], got[n];
    test_random_ints(x, n, -1000, 1000);
    kiln_buffer *in = test_buffer_from(context, x, sizeof x);
    kiln_buffer *out = test_buffer(context, sizeof got);
    kiln_arg args[] = {KILN_ARG_BUFFER(in)};
    TEST_OK(kiln_scan_run(scan, n, 1, args, out, 0, NULL));
    test_read(out, got, sizeof got);
    int32_t running = 0;
    for (int i = 0; i < n; ++i) {
        if (got[i] != running)
            fail_msg("element %d: %d, expected %d", i, got[i], running);
        running += x[i];
    }
    kiln_buffer_release(in);
    kiln_buffer_release(out);
    kiln_scan_release(scan);
}

/* ---- M8: random numbers --------------------------------------------------- */

static void uniform_numbers_stay_below_high(void **state)
{
    kiln_context *context = test_context(state);
    /* 2^20 float32 values in [1, 2): before, one in 2^24 was 2 */
    const size_t n = (size_t)1 << 20;
    kiln_random random = {test_random_u64(), 0};
    kiln_array *a = NULL;
    TEST_OK(kiln_array_random_uniform(&random, context, KILN_DTYPE_FLOAT32, 1,
                                      &n, 1, 2, NULL, &a));
    float *host = test_alloc(n * sizeof *host);
    TEST_OK(kiln_array_to_host(a, host, n * sizeof *host, NULL));
    size_t below_half = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!(host[i] >= 1.0f && host[i] < 2.0f))
            fail_msg("element %zu is %.9g, outside [1, 2)", i,
                     (double)host[i]);
        below_half += host[i] < 1.5f;
    }
    /* still uniform: half below the middle, within 6 sigma */
    assert_true(fabs((double)below_half - n / 2.0) < 6 * sqrt(n / 4.0));
    free(host);
    kiln_array_release(a);
    /* the largest float below high, never high itself, for any span: a
     * span of a few ulps rounded a few percent of the values to high */
    const double spans[][2] = {
        {-1, 1}, {0, 1e-30}, {1e6, 1e6 + 1}, {1, 1 + 0x1p-20}};
    for (size_t s = 0; s < sizeof spans / sizeof spans[0]; ++s) {
        size_t m = 1 << 20;
        TEST_OK(kiln_array_random_uniform(&random, context,
                                          KILN_DTYPE_FLOAT32, 1, &m,
                                          spans[s][0], spans[s][1], NULL,
                                          &a));
        double *v = array_test_read(a, KILN_DTYPE_FLOAT32);
        for (size_t i = 0; i < m; ++i)
            if (!(v[i] >= (float)spans[s][0] && v[i] < (float)spans[s][1]))
                fail_msg("[%g, %g): element %zu is %.9g", spans[s][0],
                         spans[s][1], i, v[i]);
        free(v);
        kiln_array_release(a);
    }
}

static void random_parameters_no_distribution_has_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    size_t n = 16;
    kiln_random random = {7, 0};
    const double uniform[][2] = {
        {2, 1},        {NAN, 1},           {0, NAN},  {-INFINITY, 0},
        {0, INFINITY}, {-FLT_MAX, FLT_MAX}, {0, 1e39},
    };
    for (size_t u = 0; u < sizeof uniform / sizeof uniform[0]; ++u) {
        kiln_array *a = (kiln_array *)(uintptr_t)0x1;
        TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
                   kiln_array_random_uniform(&random, context,
                                             KILN_DTYPE_FLOAT32, 1, &n,
                                             uniform[u][0], uniform[u][1],
                                             NULL, &a));
        assert_ptr_equal(a, (kiln_array *)(uintptr_t)0x1);
    }
    const double normal[][2] = {{0, -1}, {NAN, 1}, {0, NAN}, {INFINITY, 1},
                                {0, INFINITY}};
    for (size_t k = 0; k < sizeof normal / sizeof normal[0]; ++k) {
        kiln_array *a = (kiln_array *)(uintptr_t)0x1;
        TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
                   kiln_array_random_normal(&random, context,
                                            KILN_DTYPE_FLOAT32, 1, &n,
                                            normal[k][0], normal[k][1], NULL,
                                            &a));
        assert_ptr_equal(a, (kiln_array *)(uintptr_t)0x1);
    }
    /* nothing above moved the counter */
    assert_int_equal(random.counter, 0);
    /* a counter that would wrap */
    random.counter = UINT64_MAX - 2;
    kiln_array *a = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_array_random_uniform(&random, context, KILN_DTYPE_FLOAT32,
                                         1, &n, 0, 1, NULL, &a));
    TEST_ERROR_MENTIONS("wrap");
    assert_true(random.counter == UINT64_MAX - 2);
    /* the last blocks before the end are fine; stddev 0 gives the mean */
    random.counter = UINT64_MAX - 4;
    TEST_OK(kiln_array_random_normal(&random, context, KILN_DTYPE_FLOAT32, 1,
                                     &n, 3.5, 0, NULL, &a));
    double *v = array_test_read(a, KILN_DTYPE_FLOAT32);
    for (size_t i = 0; i < n; ++i)
        assert_true(v[i] == 3.5);
    assert_true(random.counter == UINT64_MAX);
    free(v);
    kiln_array_release(a);
}

/* ---- M7: nothing a generator is given reaches the preprocessor ---------- */

static kiln_status make_generator(kiln_context *context, int which,
                                  const char *const *texts,
                                  const char *preamble)
{
    kiln_status status;
    if (which == 0) {
        kiln_elementwise *made = NULL;
        status = kiln_elementwise_create(context, texts[4], texts[2], "g",
                                         preamble, &made);
        if (status == KILN_OK)
            kiln_elementwise_release(made);
    } else if (which == 1) {
        kiln_reduction *made = NULL;
        status = kiln_reduction_create(context, texts[0], texts[1], texts[2],
                                       texts[3], texts[4], "g", preamble,
                                       &made);
        if (status == KILN_OK)
            kiln_reduction_release(made);
    } else {
        kiln_scan *made = NULL;
        status = kiln_scan_create(context, texts[0], texts[1], texts[2],
                                  texts[3], texts[4], KILN_SCAN_INCLUSIVE,
                                  "g", preamble, &made);
        if (status == KILN_OK)
            kiln_scan_release(made);
    }
    return status;
}

static void generator_strings_reach_no_file(void **state)
{
    kiln_context *context = test_context(state);
    static const char *const generators[] = {"kiln_elementwise_create",
                                             "kiln_reduction_create",
                                             "kiln_scan_create"};
    static const char *const fields[] = {"type", "neutral", "expression",
                                         "second expression", "arguments"};
    /* valid strings for each generator: type, neutral, the expression
     * (operation / reduce / scan), the second one (map / input),
     * arguments */
    static const char *const valid[3][5] = {
        {NULL, NULL, "y[i] = 2 * x[i]", NULL,
         "global float *y, global const float *x"},
        {"float", "0", "a + b", "x[i]", "global const float *x"},
        {"float", "0", "a + b", "x[i]", "global const float *x"},
    };
    static const char *const payloads[] = {
        " #include \"/etc/passwd\"",
        "\n#include \"/etc/passwd\"\n",
        " %:include \"/etc/passwd\"",
        " ?\?=include \"/etc/passwd\"",
        "\n#pragma once\n",
        "\n#error boom\n",
        "\n#line 1 \"/etc/passwd\"\n",
        " \\\n#include \"/etc/passwd\"",
        " ?\?/\n",
        "\\",
        " /* ",
        " */",
        " // the rest of the line",
        "\n",
        " + 0 _Pragma(\"OPENCL EXTENSION all : enable\")",
    };
    for (int g = 0; g < 3; ++g)
        for (int f = 0; f < 5; ++f) {
            if (valid[g][f] == NULL)
                continue;
            for (size_t p = 0; p < sizeof payloads / sizeof *payloads; ++p) {
                char text[256];
                snprintf(text, sizeof text, "%s%s", valid[g][f], payloads[p]);
                const char *texts[5];
                for (int k = 0; k < 5; ++k)
                    texts[k] = k == f ? text : valid[g][k];
                kiln_status status = make_generator(context, g, texts, NULL);
                if (status != KILN_ERR_INVALID_ARGUMENT)
                    fail_msg("%s with %s '%s' -> %s (%s), expected "
                             "KILN_ERR_INVALID_ARGUMENT",
                             generators[g], fields[f], text,
                             kiln_status_name(status), kiln_last_error());
                if (strstr(kiln_last_error(), "root:") != NULL)
                    fail_msg("a file's contents reached the message: %s",
                             kiln_last_error());
                TEST_ERROR_MENTIONS("generator strings");
            }
        }
    static const char *const preambles[] = {
        "#include \"/etc/passwd\"\n",
        "  #  include \"/etc/passwd\"\n",
        "%:include \"/etc/passwd\"\n",
        "float f(void) { return 1; }\n#pragma OPENCL EXTENSION all : enable\n",
        "#error nothing\n",
        "#line 7 \"/etc/passwd\"\n",
        "#define A 1 \\\n#include \"/etc/passwd\"\n",
        "/* a comment that never ends",
        "float f(void) { return 1; } // a comment to the end",
        "constant char c[] = \"a literal that never ends;\n",
        "#if 1\n#endif\n",
        "_Pragma(\"OPENCL FP_CONTRACT ON\") float f(void) { return 1; }\n",
        /* a comment is a space: the # is still the line's first token */
        "/* before */ #include \"/etc/passwd\"\n",
        "int x;\n/* two\nlines */ # include \"/etc/passwd\"\n",
    };
    for (int g = 0; g < 3; ++g)
        for (size_t p = 0; p < sizeof preambles / sizeof *preambles; ++p) {
            kiln_status status =
                make_generator(context, g, valid[g], preambles[p]);
            /* a // comment may end the preamble: a line break follows */
            kiln_status expected = p == 8 ? KILN_OK : KILN_ERR_INVALID_ARGUMENT;
            if (status != expected)
                fail_msg("%s with preamble '%s' -> %s (%s)", generators[g],
                         preambles[p], kiln_status_name(status),
                         kiln_last_error());
            if (strstr(kiln_last_error(), "root:") != NULL)
                fail_msg("a file's contents reached the message: %s",
                         kiln_last_error());
        }
    /* what a preamble may hold: #define, #undef, comments with a # */
    kiln_elementwise *twice = NULL;
    TEST_OK(kiln_elementwise_create(
        context, "global float *y, global const float *x", "y[i] = twice(x[i])",
        "doubled", "#define SCALE 2.0f\n/* a # in a comment, and %: */\n"
        "  # define UNUSED 1\n#undef UNUSED\n"
        "float twice(float v) { return SCALE * v; } // done\n",
        &twice));
    enum { n = 300 };
    float x[n], y[n];
    test_random_floats(x, n, -10, 10);
    kiln_buffer *in = test_buffer_from(context, x, sizeof x);
    kiln_buffer *out = test_buffer(context, sizeof y);
    kiln_arg args[] = {KILN_ARG_BUFFER(out), KILN_ARG_BUFFER(in)};
    TEST_OK(kiln_elementwise_launch(twice, n, 2, args, NULL));
    test_read(out, y, sizeof y);
    for (int i = 0; i < n; ++i)
        assert_true(y[i] == 2.0f * x[i]);
    kiln_elementwise_release(twice);
    kiln_buffer_release(in);
    kiln_buffer_release(out);

    /* the public flag generated code is built with */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/m7-XXXXXX", test_scratch_dir());
    if (mkdtemp(dir) == NULL)
        fail_msg("mkdtemp %s", dir);
    char header[4200];
    snprintf(header, sizeof header, "%s/m7.h", dir);
    FILE *file = fopen(header, "w");
    assert_non_null(file);
    fputs("#define M7 1\n", file);
    fclose(file);
    const char *dirs[] = {dir};
    kiln_build_options options = {.struct_size = sizeof options,
                                  .include_dirs = dirs,
                                  .include_dir_count = 1,
                                  .flags = KILN_BUILD_NO_INCLUDE};
    kiln_program *program = NULL;
    TEST_FAILS(KILN_ERR_BUILD,
               kiln_program_build_with(context,
                                       "#include \"m7.h\"\n__kernel void "
                                       "k(__global int *o) { o[0] = M7; }\n",
                                       0, &options, &program));
    TEST_ERROR_MENTIONS("KILN_BUILD_NO_INCLUDE");
    options.flags = 0x80;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_program_build_with(context,
                                       "__kernel void k(__global int *o) "
                                       "{ o[0] = 1; }\n",
                                       0, &options, &program));
    TEST_ERROR_MENTIONS("unknown flags");
    remove(header);
    rmdir(dir);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(scalars_outside_an_integer_dtype),
        KILN_TEST(argmin_and_argmax_see_nan_first),
        KILN_TEST(empty_shapes_do_not_depend_on_order),
        KILN_TEST(generator_counts_past_a_long_are_refused),
        KILN_TEST(scans_with_long_names_are_found),
        KILN_TEST(uniform_numbers_stay_below_high),
        KILN_TEST(random_parameters_no_distribution_has_are_refused),
        KILN_TEST(generator_strings_reach_no_file),
    };
    return kiln_test_main("array_hostile", tests,
                          sizeof tests / sizeof tests[0]);
}
