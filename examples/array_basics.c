/*
 * array_basics: CuPy's first tutorial steps, in C, with kiln_array.h.
 *
 *   x = cp.array([1, 2, 3]); cp.zeros((2, 3)); cp.ones((3,))
 *   y = cp.arange(6, dtype=cp.float32).reshape(2, 3)
 *   y * 2 + 1; cp.sqrt(y); y.sum(); y.mean(); y.sum(axis=0)
 *   cp.dot(y, x)                       (a matrix times a vector)
 *   column (3, 1) + row (3,) -> (3, 3) broadcasting
 *   cp.random.rand(1000); cp.random.normal(5, 2, 100000)
 *   cp.asnumpy(...)                    (kiln_array_to_host)
 *   print(y); float(y.sum())           (kiln_array_format, _to_double)
 *
 * Every result is copied back and checked against the same computation
 * on the CPU; the program exits non-zero on any difference.
 */
#include "example.h"

#include "kiln_array.h"

static int wrong = 0;

/* Copies a float32 array back (cp.asnumpy) and compares it with the CPU's
 * values. */
static void check(const char *what, const kiln_array *array,
                  const float *expected, size_t count, double tolerance)
{
    float got[64];
    EXAMPLE_CHECK(kiln_array_to_host(array, got, count * sizeof(float), NULL));
    wrong += example_compare(what, got, expected, count, tolerance) != 0;
}

/* print(array), as NumPy and CuPy print it. */
static void print_array(const char *name, const kiln_array *array)
{
    char text[1024];
    EXAMPLE_CHECK(kiln_array_format(array, text, sizeof text, NULL, NULL));
    printf("%s =\n%s\n", name, text);
}

int main(int argc, char **argv)
{
    uint64_t seed = example_seed(argc, argv);
    kiln_context *context = NULL;
    EXAMPLE_CHECK(kiln_context_create(NULL, -1, &context));
    example_print_device(context);

    /* x = cp.array([1, 2, 3], dtype=cp.float32) */
    const float x_host[3] = {1, 2, 3};
    const size_t three[] = {3};
    kiln_array *x = NULL;
    EXAMPLE_CHECK(kiln_array_from_host(context, KILN_DTYPE_FLOAT32, 1, three,
                                       x_host, sizeof x_host, NULL, &x));
    print_array("x", x);

    /* cp.zeros((2, 3)) and cp.ones((3,)) */
    const size_t two_by_three[] = {2, 3};
    kiln_array *zeros = NULL, *ones = NULL;
    EXAMPLE_CHECK(kiln_array_zeros(context, KILN_DTYPE_FLOAT32, 2,
                                   two_by_three, NULL, &zeros));
    EXAMPLE_CHECK(kiln_array_ones(context, KILN_DTYPE_FLOAT32, 1, three, NULL,
                                  &ones));
    const float zero6[6] = {0}, one3[3] = {1, 1, 1};
    check("zeros((2, 3))", zeros, zero6, 6, 0);
    check("ones(3)", ones, one3, 3, 0);

    /* y = cp.arange(6).reshape(2, 3): [[0, 1, 2], [3, 4, 5]] */
    kiln_array *range = NULL, *y = NULL;
    EXAMPLE_CHECK(kiln_array_arange(context, KILN_DTYPE_FLOAT32, 0, 6, 1, NULL,
                                    &range));
    EXAMPLE_CHECK(kiln_array_reshape(range, 2, two_by_three, &y));
    float y_host[6];
    for (int i = 0; i < 6; ++i)
        y_host[i] = (float)i;
    check("arange(6).reshape(2, 3)", y, y_host, 6, 0);
    print_array("y", y);

    /* y * 2 + 1: one new array per operation, as in CuPy */
    kiln_array *twice = NULL, *affine = NULL;
    EXAMPLE_CHECK(kiln_array_binary_scalar(KILN_OP_MULTIPLY, y, 2, NULL,
                                           &twice));
    EXAMPLE_CHECK(kiln_array_binary_scalar(KILN_OP_ADD, twice, 1, NULL,
                                           &affine));
    float expected[64];
    for (int i = 0; i < 6; ++i)
        expected[i] = y_host[i] * 2 + 1;
    check("y * 2 + 1", affine, expected, 6, 0);

    /* cp.sqrt(y) */
    kiln_array *root = NULL;
    EXAMPLE_CHECK(kiln_array_math(KILN_FN_SQRT, y, NULL, &root));
    for (int i = 0; i < 6; ++i)
        expected[i] = sqrtf(y_host[i]);
    check("sqrt(y)", root, expected, 6, 1e-6);

    /* y.sum(), y.mean(), y.sum(axis=0) */
    kiln_array *total = NULL, *mean = NULL, *columns = NULL;
    EXAMPLE_CHECK(kiln_array_reduce(KILN_REDUCE_SUM, y, NULL, &total));
    EXAMPLE_CHECK(kiln_array_reduce(KILN_REDUCE_MEAN, y, NULL, &mean));
    EXAMPLE_CHECK(kiln_array_reduce_axis(KILN_REDUCE_SUM, y, 0, NULL,
                                         &columns));
    const float fifteen = 15, two_and_a_half = 2.5f;
    const float column_sums[3] = {3, 5, 7};
    check("y.sum()", total, &fifteen, 1, 0);
    /* float(y.sum()): a 0-d result read as a host number */
    double total_value = 0;
    EXAMPLE_CHECK(kiln_array_to_double(total, &total_value, NULL));
    printf("float(y.sum()) = %g\n", total_value);
    wrong += total_value != 15;
    check("y.mean()", mean, &two_and_a_half, 1, 0);
    check("y.sum(axis=0)", columns, column_sums, 3, 0);

    /* cp.dot(y, x): (2, 3) times (3,) is (2,) */
    kiln_array *product = NULL;
    EXAMPLE_CHECK(kiln_array_dot(y, x, NULL, &product));
    for (int r = 0; r < 2; ++r)
        expected[r] = y_host[3 * r] * x_host[0] + y_host[3 * r + 1] * x_host[1] +
                      y_host[3 * r + 2] * x_host[2];
    check("dot(y, x)", product, expected, 2, 1e-6);
    const char *blas = NULL;
    EXAMPLE_CHECK(kiln_array_blas_name(context, &blas));
    printf("  (matrix products run on: %s)\n", blas);

    /* Broadcasting: a (3, 1) column plus the (3,) row x gives (3, 3):
     * column[i] + x[j] */
    const float column_host[3] = {10, 20, 30};
    const size_t three_by_one[] = {3, 1};
    kiln_array *column = NULL, *grid = NULL;
    EXAMPLE_CHECK(kiln_array_from_host(context, KILN_DTYPE_FLOAT32, 2,
                                       three_by_one, column_host,
                                       sizeof column_host, NULL, &column));
    EXAMPLE_CHECK(kiln_array_binary(KILN_OP_ADD, column, x, NULL, &grid));
    size_t ndim = 0, shape[KILN_ARRAY_MAX_DIMS];
    EXAMPLE_CHECK(kiln_array_get_shape(grid, &ndim, shape));
    printf("  (3, 1) + (3,) has shape (%zu, %zu)\n", shape[0], shape[1]);
    if (ndim != 2 || shape[0] != 3 || shape[1] != 3) {
        fprintf(stderr, "broadcast shape is wrong\n");
        ++wrong;
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            expected[3 * i + j] = column_host[i] + x_host[j];
    check("column + row", grid, expected, 9, 0);

    /* x * x elementwise, then x * y broadcast over the rows of y */
    kiln_array *squares = NULL, *scaled = NULL;
    EXAMPLE_CHECK(kiln_array_binary(KILN_OP_MULTIPLY, x, x, NULL, &squares));
    EXAMPLE_CHECK(kiln_array_binary(KILN_OP_MULTIPLY, y, x, NULL, &scaled));
    for (int i = 0; i < 3; ++i)
        expected[i] = x_host[i] * x_host[i];
    check("x * x", squares, expected, 3, 0);
    for (int i = 0; i < 6; ++i)
        expected[i] = y_host[i] * x_host[i % 3];
    check("y * x", scaled, expected, 6, 0);

    /* cp.random.seed(seed); cp.random.rand(1000); its mean is near 0.5, and
     * the same seed gives the same numbers on every device */
    kiln_random random = {seed, 0};
    const size_t thousand[] = {1000}, many[] = {100000};
    kiln_array *uniform = NULL, *normal = NULL, *uniform_mean = NULL,
               *normal_mean = NULL, *normal_sq = NULL, *normal_sq_mean = NULL;
    EXAMPLE_CHECK(kiln_array_random_uniform(&random, context,
                                            KILN_DTYPE_FLOAT32, 1, thousand,
                                            0, 1, NULL, &uniform));
    EXAMPLE_CHECK(kiln_array_reduce(KILN_REDUCE_MEAN, uniform, NULL,
                                    &uniform_mean));
    float u_mean = 0;
    EXAMPLE_CHECK(kiln_array_to_host(uniform_mean, &u_mean, sizeof u_mean,
                                     NULL));
    float *u = malloc(1000 * sizeof *u);
    EXAMPLE_CHECK(kiln_array_to_host(uniform, u, 1000 * sizeof *u, NULL));
    double cpu_mean = 0;
    int in_range = 1;
    for (int i = 0; i < 1000; ++i) {
        cpu_mean += u[i];
        in_range &= u[i] >= 0 && u[i] < 1;
    }
    cpu_mean /= 1000;
    printf("rand(1000): mean %.4f (CPU: %.4f)\n", (double)u_mean, cpu_mean);
    if (!in_range || fabs(u_mean - cpu_mean) > 1e-5 ||
        fabs(cpu_mean - 0.5) > 0.05) {
        fprintf(stderr, "rand(1000) is off\n");
        ++wrong;
    }
    free(u);

    /* cp.random.normal(5, 2, 100000): mean and standard deviation */
    EXAMPLE_CHECK(kiln_array_random_normal(&random, context,
                                           KILN_DTYPE_FLOAT32, 1, many, 5, 2,
                                           NULL, &normal));
    EXAMPLE_CHECK(kiln_array_reduce(KILN_REDUCE_MEAN, normal, NULL,
                                    &normal_mean));
    EXAMPLE_CHECK(kiln_array_binary(KILN_OP_MULTIPLY, normal, normal, NULL,
                                    &normal_sq));
    EXAMPLE_CHECK(kiln_array_reduce(KILN_REDUCE_MEAN, normal_sq, NULL,
                                    &normal_sq_mean));
    float m = 0, m2 = 0;
    EXAMPLE_CHECK(kiln_array_to_host(normal_mean, &m, sizeof m, NULL));
    EXAMPLE_CHECK(kiln_array_to_host(normal_sq_mean, &m2, sizeof m2, NULL));
    double sd = sqrt((double)m2 - (double)m * m);
    printf("normal(5, 2, 100000): mean %.4f, standard deviation %.4f\n",
           (double)m, sd);
    if (fabs(m - 5) > 0.05 || fabs(sd - 2) > 0.05) {
        fprintf(stderr, "normal(5, 2) is off\n");
        ++wrong;
    }

    kiln_array *arrays[] = {x,       zeros,   ones,         range,
                            y,       twice,   affine,       root,
                            total,   mean,    columns,      product,
                            column,  grid,    squares,      scaled,
                            uniform, normal,  uniform_mean, normal_mean,
                            normal_sq, normal_sq_mean};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; ++i)
        EXAMPLE_CHECK(kiln_array_release(arrays[i]));
    EXAMPLE_CHECK(kiln_context_release(context));
    printf("%s\n", wrong ? "WRONG results" : "all results match the CPU");
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
