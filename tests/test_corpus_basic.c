/*
 * Conformance corpus, basic language: elementwise kernels, macros, the
 * work-item functions in 3-D, structs, qualifiers, narrow and 64-bit
 * integers, integer division, __constant memory, printf,
 * reqd_work_group_size and double precision.  Each test builds
 * tests/kernels/corpus/<name>.cl, runs it on random data and compares with
 * a CPU reference; the tolerance is stated in each test.
 */
#include "test_corpus_common.h"

#include <inttypes.h>
#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- elementwise ------------------------------------------------------------- */

/* saxpy: one rounding of the product and one of the sum (or a single one
 * when fused): |error| <= 2^-23 (|alpha x| + |y|).  leaky_relu: two
 * roundings: 2 ulp.  int_combine: exact. */
static void elementwise(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 10007, BLOCK = 128 };
    float *x = CORPUS_ARRAY(float, N), *y = CORPUS_ARRAY(float, N);
    float *result = CORPUS_ARRAY(float, N);
    double *expected = CORPUS_ARRAY(double, N);
    int32_t *a = CORPUS_ARRAY(int32_t, N), *b = CORPUS_ARRAY(int32_t, N);
    int32_t *ints = CORPUS_ARRAY(int32_t, N), *ints_expected = CORPUS_ARRAY(int32_t, N);
    test_random_floats(x, N, -10, 10);
    test_random_floats(y, N, -10, 10);
    corpus_random_i32(a, N, -1000000, 1000000);
    corpus_random_i32(b, N, -1000000, 1000000);
    float alpha = test_random_float(-3, 3);

    kiln_program *program = corpus_build(context, "elementwise", NULL);
    kiln_kernel *saxpy = test_kernel(program, "saxpy");
    kiln_kernel *relu = test_kernel(program, "leaky_relu");
    kiln_kernel *combine = test_kernel(program, "int_combine");
    kiln_buffer *x_buffer = test_buffer_from(context, x, N * sizeof *x);
    kiln_buffer *y_buffer = test_buffer_from(context, y, N * sizeof *y);
    kiln_buffer *out = corpus_poisoned_buffer(context, N * sizeof(float));
    kiln_buffer *a_buffer = test_buffer_from(context, a, N * sizeof *a);
    kiln_buffer *b_buffer = test_buffer_from(context, b, N * sizeof *b);
    kiln_buffer *int_out = corpus_poisoned_buffer(context, N * sizeof(int32_t));

    CORPUS_LAUNCH(saxpy, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_FLOAT(alpha), KILN_ARG_BUFFER(x_buffer),
                  KILN_ARG_BUFFER(y_buffer), KILN_ARG_UINT(N));
    corpus_read(y_buffer, result, N * sizeof *result);
    for (size_t i = 0; i < N; ++i) {
        double product = (double)alpha * x[i];
        corpus_expect_f32_bound("saxpy", i, result[i], product + y[i],
                                0x1p-23 * (fabs(product) + fabs(y[i])));
    }

    float slope = test_random_float(0.01f, 0.5f), scale = test_random_float(0.5f, 2);
    CORPUS_LAUNCH(relu, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(out),
                  KILN_ARG_FLOAT(slope), KILN_ARG_FLOAT(scale), KILN_ARG_INT(N));
    corpus_read(out, result, N * sizeof *result);
    for (size_t i = 0; i < N; ++i)
        expected[i] = (x[i] > 0 ? x[i] : (double)slope * x[i]) * scale;
    corpus_expect_f32_ulps("leaky_relu", result, expected, N, 2);

    CORPUS_LAUNCH(combine, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(a_buffer), KILN_ARG_BUFFER(b_buffer),
                  KILN_ARG_BUFFER(int_out), KILN_ARG_INT(N));
    corpus_read(int_out, ints, N * sizeof *ints);
    for (size_t i = 0; i < N; ++i)
        ints_expected[i] = ((a[i] * 3 - b[i]) ^ (a[i] >> 2)) | (b[i] & 0xF0);
    corpus_expect_i32("int_combine", ints, ints_expected, N);

    kiln_buffer *buffers[] = {x_buffer, y_buffer, out, a_buffer, b_buffer, int_out};
    corpus_release_buffers(buffers, 6);
    kiln_kernel_release(saxpy);
    kiln_kernel_release(relu);
    kiln_kernel_release(combine);
    kiln_program_release(program);
    free(x), free(y), free(result), free(expected), free(a), free(b);
    free(ints), free(ints_expected);
}

/* ---- macros ----------------------------------------------------------------- */

/* FACTOR comes from kiln_build_options.defines, OFFSET from -D in the
 * option string.  Integers exact; floats: three roundings,
 * |error| <= 2^-22 (3|x| + 7 + x^2). */
static void macros(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 3001, ROWS = 300, COLS = 77, BLOCK = 64 };
    const char *defines[] = {"FACTOR=3"};
    kiln_build_options options = {.options = "-DOFFSET=7",
                                  .defines = defines,
                                  .define_count = 1};
    kiln_program *program = corpus_build(context, "macros", &options);
    kiln_kernel *float_kernel = test_kernel(program, "affine_square_float");
    kiln_kernel *int_kernel = test_kernel(program, "affine_square_int");
    kiln_kernel *uint_kernel = test_kernel(program, "affine_square_uint");
    kiln_kernel *row_sums = test_kernel(program, "row_sums");

    float *f = CORPUS_ARRAY(float, N), *f_out = CORPUS_ARRAY(float, N);
    int32_t *k = CORPUS_ARRAY(int32_t, N), *k_out = CORPUS_ARRAY(int32_t, N);
    int32_t *k_expected = CORPUS_ARRAY(int32_t, N);
    uint32_t *u = CORPUS_ARRAY(uint32_t, N), *u_out = CORPUS_ARRAY(uint32_t, N);
    uint32_t *u_expected = CORPUS_ARRAY(uint32_t, N);
    test_random_floats(f, N, -100, 100);
    corpus_random_i32(k, N, -30000, 30000);
    corpus_random_u32(u, N);
    kiln_buffer *in = test_buffer(context, N * 4);
    kiln_buffer *out = corpus_poisoned_buffer(context, N * 4);
    kiln_launch_config config = test_config_1d(N, BLOCK);

    TEST_OK(kiln_buffer_write(in, 0, f, N * 4));
    kiln_arg args[] = {KILN_ARG_BUFFER(in), KILN_ARG_BUFFER(out), KILN_ARG_INT(N)};
    TEST_OK(kiln_launch(float_kernel, &config, 3, args));
    corpus_read(out, f_out, N * 4);
    for (size_t i = 0; i < N; ++i) {
        double v = f[i];
        corpus_expect_f32_bound("affine_square_float", i, f_out[i],
                                3 * v + 7 + v * v,
                                0x1p-22 * (3 * fabs(v) + 7 + v * v));
    }

    TEST_OK(kiln_buffer_write(in, 0, k, N * 4));
    TEST_OK(kiln_launch(int_kernel, &config, 3, args));
    corpus_read(out, k_out, N * 4);
    for (size_t i = 0; i < N; ++i)
        k_expected[i] = 3 * k[i] + 7 + k[i] * k[i];
    corpus_expect_i32("affine_square_int", k_out, k_expected, N);

    TEST_OK(kiln_buffer_write(in, 0, u, N * 4));
    TEST_OK(kiln_launch(uint_kernel, &config, 3, args));
    corpus_read(out, u_out, N * 4);
    for (size_t i = 0; i < N; ++i)
        u_expected[i] = 3u * u[i] + 7u + u[i] * u[i]; /* wraps */
    corpus_expect_u32("affine_square_uint", u_out, u_expected, N);

    int32_t *matrix = CORPUS_ARRAY(int32_t, ROWS * COLS);
    int32_t sums[ROWS], sums_expected[ROWS];
    corpus_random_i32(matrix, ROWS * COLS, -1000, 1000);
    kiln_buffer *matrix_buffer = test_buffer_from(context, matrix, ROWS * COLS * 4);
    kiln_buffer *sums_buffer = corpus_poisoned_buffer(context, sizeof sums);
    CORPUS_LAUNCH(row_sums, KILN_DIM1(corpus_blocks(ROWS, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(matrix_buffer), KILN_ARG_BUFFER(sums_buffer),
                  KILN_ARG_INT(ROWS), KILN_ARG_INT(COLS));
    corpus_read(sums_buffer, sums, sizeof sums);
    for (int r = 0; r < ROWS; ++r) {
        sums_expected[r] = 0;
        for (int c = 0; c < COLS; ++c)
            sums_expected[r] += matrix[r * COLS + c] * 3; /* FACTOR > 1 */
    }
    corpus_expect_i32("row_sums", sums, sums_expected, ROWS);

    kiln_buffer *buffers[] = {in, out, matrix_buffer, sums_buffer};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(float_kernel);
    kiln_kernel_release(int_kernel);
    kiln_kernel_release(uint_kernel);
    kiln_kernel_release(row_sums);
    kiln_program_release(program);
    free(f), free(f_out), free(k), free(k_out), free(k_expected);
    free(u), free(u_out), free(u_expected), free(matrix);
}

/* ---- work-item functions in 3-D ------------------------------------------------ */

/* Exact: every id, size and count of every work-item of a random 3-D
 * geometry (each dimension of the block > 1 in z, so work_dim is 3). */
static void work_items_3d(void **state)
{
    kiln_context *context = test_context(state);
    enum { FIELDS = 19 };
    size_t grid[3] = {1 + test_random_u64() % 4, 1 + test_random_u64() % 3,
                      1 + test_random_u64() % 3};
    size_t block[3] = {1 + test_random_u64() % 8, 1 + test_random_u64() % 4,
                       2 + test_random_u64() % 2};
    size_t global[3], items = 1;
    for (int d = 0; d < 3; ++d) {
        global[d] = grid[d] * block[d];
        items *= global[d];
    }
    kiln_program *program = corpus_build(context, "work_items_3d", NULL);
    kiln_kernel *kernel = test_kernel(program, "work_item_ids");
    size_t bytes = items * FIELDS * sizeof(uint32_t);
    kiln_buffer *out = corpus_poisoned_buffer(context, bytes);
    CORPUS_LAUNCH(kernel, KILN_DIM3(grid[0], grid[1], grid[2]),
                  KILN_DIM3(block[0], block[1], block[2]), KILN_ARG_BUFFER(out));
    uint32_t *records = test_alloc(bytes);
    corpus_read(out, records, bytes);
    for (size_t z = 0; z < global[2]; ++z)
        for (size_t y = 0; y < global[1]; ++y)
            for (size_t x = 0; x < global[0]; ++x) {
                size_t id[3] = {x, y, z};
                size_t linear = x + global[0] * (y + global[1] * z);
                uint32_t expected[FIELDS];
                for (int d = 0; d < 3; ++d) {
                    expected[0 + d] = (uint32_t)id[d];
                    expected[3 + d] = (uint32_t)(id[d] % block[d]);
                    expected[6 + d] = (uint32_t)(id[d] / block[d]);
                    expected[9 + d] = (uint32_t)grid[d];
                    expected[12 + d] = (uint32_t)global[d];
                    expected[15 + d] = (uint32_t)block[d];
                }
                expected[18] = 3;
                char what[160];
                snprintf(what, sizeof what,
                         "work-item (%zu,%zu,%zu): fields (gid lid group "
                         "groups gsize lsize dim)",
                         x, y, z);
                corpus_expect_u32(what, records + linear * FIELDS, expected,
                                  FIELDS);
            }
    TEST_OK(kiln_buffer_release(out));
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(records);
}

/* ---- structs ------------------------------------------------------------------- */

/* The host's mirror of the kernel's structs: float4 is 16-byte aligned. */
typedef struct transform_params {
    int32_t count;
    float scale;
    alignas(16) float offset[4];
} transform_params;

struct particle {
    alignas(16) float position[4];
    float velocity[4];
    float mass;
    int32_t id;
};

/* Layout: exact.  apply_transform: one product and one sum (maybe fused):
 * 2^-23 (|in scale| + |offset|); vectors past `count` stay untouched.
 * particle_step: a few float operations on values of magnitude <= 20:
 * 1e-5 absolute + 1e-5 relative; ids and masses exact. */
static void struct_args(void **state)
{
    kiln_context *context = test_context(state);
    enum { VECTORS = 1000, PARTICLES = 500, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "struct_args", NULL);
    kiln_kernel *layout = test_kernel(program, "struct_layout");
    kiln_kernel *transform = test_kernel(program, "apply_transform");
    kiln_kernel *step = test_kernel(program, "particle_step");

    int32_t sizes[7];
    kiln_buffer *sizes_buffer = corpus_poisoned_buffer(context, sizeof sizes);
    CORPUS_LAUNCH(layout, KILN_DIM1(1), KILN_DIM1(1), KILN_ARG_BUFFER(sizes_buffer));
    corpus_read(sizes_buffer, sizes, sizeof sizes);
    const int32_t expected_sizes[7] = {
        (int32_t)sizeof(transform_params),
        (int32_t)offsetof(transform_params, scale),
        (int32_t)offsetof(transform_params, offset),
        (int32_t)sizeof(struct particle),
        (int32_t)offsetof(struct particle, velocity),
        (int32_t)offsetof(struct particle, mass),
        (int32_t)offsetof(struct particle, id)};
    corpus_expect_i32("struct layout (size, offsets...)", sizes, expected_sizes, 7);

    /* A backend that knows the struct's size must agree with the host. */
    kiln_param_info info;
    TEST_OK(kiln_kernel_get_param_info(transform, 2, &info));
    assert_int_equal(info.kind, KILN_PARAM_VALUE);
    if (info.size != 0)
        assert_int_equal(info.size, sizeof(transform_params));

    transform_params params = {.count = VECTORS - 223,
                               .scale = test_random_float(-2, 2)};
    test_random_floats(params.offset, 4, -5, 5);
    float *in = CORPUS_ARRAY(float, 4 * VECTORS), *out = CORPUS_ARRAY(float, 4 * VECTORS);
    test_random_floats(in, 4 * VECTORS, -10, 10);
    kiln_buffer *in_buffer = test_buffer_from(context, in, 16 * VECTORS);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, 16 * VECTORS);
    CORPUS_LAUNCH(transform, KILN_DIM1(corpus_blocks(VECTORS, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer),
                  KILN_ARG_VALUE(&params, sizeof params));
    corpus_read(out_buffer, out, 16 * VECTORS);
    for (size_t i = 0; i < 4 * (size_t)params.count; ++i) {
        double product = (double)in[i] * params.scale;
        corpus_expect_f32_bound("apply_transform", i, out[i],
                                product + params.offset[i % 4],
                                0x1p-23 * (fabs(product) + fabs(params.offset[i % 4])));
    }
    for (size_t i = 4 * (size_t)params.count; i < 4 * VECTORS; ++i) {
        uint32_t bits;
        memcpy(&bits, &out[i], 4);
        if (bits != 0xA5A5A5A5u)
            fail_msg("apply_transform wrote past params.count: float %zu", i);
    }

    struct particle *particles = test_alloc(PARTICLES * sizeof *particles);
    struct particle *moved = test_alloc(PARTICLES * sizeof *moved);
    for (int i = 0; i < PARTICLES; ++i) {
        test_random_floats(particles[i].position, 4, -10, 10);
        test_random_floats(particles[i].velocity, 4, -5, 5);
        particles[i].mass = test_random_float(0.5f, 2);
        particles[i].id = (int32_t)(test_random_u64() % 100000);
    }
    const float dt = 0.01f;
    kiln_buffer *particle_buffer =
        test_buffer_from(context, particles, PARTICLES * sizeof *particles);
    CORPUS_LAUNCH(step, KILN_DIM1(corpus_blocks(PARTICLES, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(particle_buffer), KILN_ARG_FLOAT(dt),
                  KILN_ARG_INT(PARTICLES));
    corpus_read(particle_buffer, moved, PARTICLES * sizeof *moved);
    for (int i = 0; i < PARTICLES; ++i) {
        const struct particle *p = &particles[i];
        const double gravity[4] = {0, -9.75, 0, 0};
        for (int c = 0; c < 4; ++c) {
            double velocity = p->velocity[c] + gravity[c] / p->mass * dt;
            double position = p->position[c] + velocity * dt;
            corpus_expect_f32_near("particle velocity", &moved[i].velocity[c],
                                   &velocity, 1, 1e-5, 1e-5);
            corpus_expect_f32_near("particle position", &moved[i].position[c],
                                   &position, 1, 1e-5, 1e-5);
        }
        if (moved[i].id != p->id * 2 + 1 || moved[i].mass != p->mass + 1.0f)
            fail_msg("particle %d: id %d mass %g, expected %d and %g", i,
                     moved[i].id, (double)moved[i].mass, p->id * 2 + 1,
                     (double)(p->mass + 1.0f));
    }

    kiln_buffer *buffers[] = {sizes_buffer, in_buffer, out_buffer, particle_buffer};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(layout);
    kiln_kernel_release(transform);
    kiln_kernel_release(step);
    kiln_program_release(program);
    free(in), free(out), free(particles), free(moved);
}

/* ---- qualifiers ---------------------------------------------------------------- */

/* All exact: one IEEE product (correctly rounded everywhere), integer
 * sums. */
static void qualifiers(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 64 * 20, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "qualifiers", NULL);
    kiln_kernel *scale = test_kernel(program, "scale_restrict");
    kiln_kernel *neighbours = test_kernel(program, "volatile_neighbours");
    kiln_kernel *weights = test_kernel(program, "const_locals");
    kiln_kernel *vectors = test_kernel(program, "volatile_vectors");

    float *f = CORPUS_ARRAY(float, N), *f_out = CORPUS_ARRAY(float, N);
    float *f_expected = CORPUS_ARRAY(float, N);
    test_random_floats(f, N, -10, 10);
    float factor = test_random_float(-4, 4);
    kiln_buffer *f_in = test_buffer_from(context, f, N * 4);
    kiln_buffer *f_buffer = corpus_poisoned_buffer(context, N * 4);
    CORPUS_LAUNCH(scale, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK), KILN_ARG_BUFFER(f_in),
                  KILN_ARG_BUFFER(f_buffer), KILN_ARG_FLOAT(factor), KILN_ARG_INT(N));
    corpus_read(f_buffer, f_out, N * 4);
    for (size_t i = 0; i < N; ++i)
        f_expected[i] = f[i] * factor;
    corpus_expect_f32_bits("scale_restrict", f_out, f_expected, N);

    int32_t *k = CORPUS_ARRAY(int32_t, N), *k_out = CORPUS_ARRAY(int32_t, N);
    int32_t *k_expected = CORPUS_ARRAY(int32_t, N);
    corpus_random_i32(k, N, -1000000, 1000000);
    kiln_buffer *k_in = test_buffer_from(context, k, N * 4);
    kiln_buffer *k_buffer = corpus_poisoned_buffer(context, N * 4);
    CORPUS_LAUNCH(neighbours, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(k_in), KILN_ARG_BUFFER(k_buffer),
                  KILN_ARG_LOCAL(BLOCK * sizeof(int32_t)));
    corpus_read(k_buffer, k_out, N * 4);
    for (size_t i = 0; i < N; ++i) {
        size_t base = i - i % BLOCK, lid = i % BLOCK;
        k_expected[i] = k[i] + k[base + (lid + 1) % BLOCK] +
                        k[base + (lid + BLOCK - 1) % BLOCK];
    }
    corpus_expect_i32("volatile_neighbours", k_out, k_expected, N);

    CORPUS_LAUNCH(weights, KILN_DIM1(N / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(k_in), KILN_ARG_BUFFER(k_buffer));
    corpus_read(k_buffer, k_out, N * 4);
    const int32_t w[4] = {1, -2, 3, -4};
    for (size_t i = 0; i < N; ++i) {
        k_expected[i] = 0;
        for (int j = 0; j < 4; ++j)
            k_expected[i] += w[j] * (k[i] + j);
    }
    corpus_expect_i32("const_locals", k_out, k_expected, N);

    CORPUS_LAUNCH(vectors, KILN_DIM1(N / 4 / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(k_in), KILN_ARG_BUFFER(k_buffer));
    corpus_read(k_buffer, k_out, N * 4);
    for (size_t i = 0; i < N; i += 4)
        for (size_t c = 0; c < 4; ++c)
            k_expected[i + c] = k[i + 3 - c] + (int32_t)c + 1;
    corpus_expect_i32("volatile_vectors", k_out, k_expected, N);

    kiln_buffer *buffers[] = {f_in, f_buffer, k_in, k_buffer};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(scale);
    kiln_kernel_release(neighbours);
    kiln_kernel_release(weights);
    kiln_kernel_release(vectors);
    kiln_program_release(program);
    free(f), free(f_out), free(f_expected), free(k), free(k_out), free(k_expected);
}

/* ---- C idioms C++ rejects ------------------------------------------------------- */

static int c_idioms_apply(int op, int a, int b)
{
    return op == 0 ? a + b : op == 5 ? a - b : a ^ b;
}

/* Exact: integer results, and floats only doubled and moved. */
static void c_idioms(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 1000, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "c_idioms", NULL);
    kiln_kernel *kernel = test_kernel(program, "c_idioms");
    static const int ops[3] = {0, 5, 6};
    int op = ops[test_random_u64() % 3];

    int32_t *in = CORPUS_ARRAY(int32_t, N), *out = CORPUS_ARRAY(int32_t, 2 * N);
    int32_t *expected = CORPUS_ARRAY(int32_t, 2 * N);
    float *vectors = CORPUS_ARRAY(float, 4 * N), *moved = CORPUS_ARRAY(float, 4 * N);
    float *moved_expected = CORPUS_ARRAY(float, 4 * N);
    corpus_random_i32(in, N, INT32_MIN, INT32_MAX);
    test_random_floats(vectors, 4 * N, -1000, 1000);
    kiln_buffer *in_buffer = test_buffer_from(context, in, 4 * N);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, 8 * N);
    kiln_buffer *vector_buffer = test_buffer_from(context, vectors, 16 * N);
    int32_t zero = 0, odd = 0;
    kiln_buffer *odd_buffer = test_buffer_from(context, &zero, 4);
    CORPUS_LAUNCH(kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer),
                  KILN_ARG_BUFFER(vector_buffer), KILN_ARG_INT(op),
                  KILN_ARG_BUFFER(odd_buffer), KILN_ARG_INT(N));
    corpus_read(out_buffer, out, 8 * N);
    corpus_read(vector_buffer, moved, 16 * N);
    corpus_read(odd_buffer, &odd, 4);
    int32_t odd_expected = 0;
    for (int i = 0; i < N; ++i) {
        int v = in[i];
        expected[2 * i] = c_idioms_apply(op, v & 0xffff, v >> 16);
        expected[2 * i + 1] = __builtin_popcount((uint32_t)v);
        const float *x = vectors + 4 * i;
        float e[4] = {2 * x[0], 2 * x[3], 2 * x[1], 2 * x[2]};
        memcpy(moved_expected + 4 * i, e, sizeof e);
        odd_expected += v & 1;
    }
    corpus_expect_i32("split/apply_op through an enum, popcount through uint *",
                      out, expected, 2 * N);
    corpus_expect_f32_bits("float4 * as float *, void *, make_float2, astype",
                           moved, moved_expected, 4 * N);
    corpus_expect_i32("user-defined atomicAdd", &odd, &odd_expected, 1);

    kiln_buffer *buffers[] = {in_buffer, out_buffer, vector_buffer, odd_buffer};
    corpus_release_buffers(buffers, 4);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(in), free(out), free(expected), free(vectors), free(moved),
        free(moved_expected);
}

/* ---- uchar / ushort ---------------------------------------------------------------- */

/* Exact: C's promotion rules on the host are OpenCL C's. */
static void small_types(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 3001, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "small_types", NULL);
    kiln_kernel *arithmetic = test_kernel(program, "narrow_arithmetic");
    kiln_kernel *increment = test_kernel(program, "byte_increment");

    uint8_t *a = CORPUS_ARRAY(uint8_t, N), *b = CORPUS_ARRAY(uint8_t, N);
    uint16_t *c = CORPUS_ARRAY(uint16_t, N);
    test_random_bytes(a, N);
    test_random_bytes(b, N);
    test_random_bytes(c, N * 2);
    a[0] = 255, b[0] = 255, c[0] = 65535; /* the extremes, every run */

    kiln_buffer *in[3] = {test_buffer_from(context, a, N),
                          test_buffer_from(context, b, N),
                          test_buffer_from(context, c, 2 * N)};
    static const size_t out_sizes[8] = {2, 1, 4, 4, 4, 4, 2, 2};
    kiln_buffer *outs[8];
    for (int o = 0; o < 8; ++o)
        outs[o] = corpus_poisoned_buffer(context, out_sizes[o] * N);
    CORPUS_LAUNCH(arithmetic, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in[0]), KILN_ARG_BUFFER(in[1]), KILN_ARG_BUFFER(in[2]),
                  KILN_ARG_BUFFER(outs[0]), KILN_ARG_BUFFER(outs[1]),
                  KILN_ARG_BUFFER(outs[2]), KILN_ARG_BUFFER(outs[3]),
                  KILN_ARG_BUFFER(outs[4]), KILN_ARG_BUFFER(outs[5]),
                  KILN_ARG_BUFFER(outs[6]), KILN_ARG_BUFFER(outs[7]), KILN_ARG_INT(N));

    uint16_t *products = CORPUS_ARRAY(uint16_t, N), *products_expected = CORPUS_ARRAY(uint16_t, N);
    uint8_t *sums = CORPUS_ARRAY(uint8_t, N), *sums_expected = CORPUS_ARRAY(uint8_t, N);
    int32_t *ints = CORPUS_ARRAY(int32_t, N), *ints_expected = CORPUS_ARRAY(int32_t, N);
    uint32_t *wide = CORPUS_ARRAY(uint32_t, N), *wide_expected = CORPUS_ARRAY(uint32_t, N);
    uint16_t *halves = CORPUS_ARRAY(uint16_t, N), *halves_expected = CORPUS_ARRAY(uint16_t, N);

    corpus_read(outs[0], products, 2 * N);
    for (size_t i = 0; i < N; ++i)
        products_expected[i] = (uint16_t)(a[i] * b[i]);
    corpus_expect_u16("uchar * uchar (promoted)", products, products_expected, N);
    corpus_read(outs[1], sums, N);
    for (size_t i = 0; i < N; ++i)
        sums_expected[i] = (uint8_t)(a[i] + b[i]);
    corpus_expect_u8("uchar + uchar stored as uchar", sums, sums_expected, N);
    corpus_read(outs[2], ints, 4 * N);
    for (size_t i = 0; i < N; ++i)
        ints_expected[i] = a[i] - b[i];
    corpus_expect_i32("uchar - uchar (promoted)", ints, ints_expected, N);
    corpus_read(outs[3], ints, 4 * N);
    for (size_t i = 0; i < N; ++i)
        ints_expected[i] = (a[i] << 4) >> 4;
    corpus_expect_i32("(uchar << 4) >> 4", ints, ints_expected, N);
    corpus_read(outs[4], wide, 4 * N);
    for (size_t i = 0; i < N; ++i)
        wide_expected[i] = (uint32_t)c[i] * c[i];
    corpus_expect_u32("(uint)ushort * ushort", wide, wide_expected, N);
    corpus_read(outs[5], ints, 4 * N);
    for (size_t i = 0; i < N; ++i)
        ints_expected[i] = (uint8_t)(a[i] + b[i]) < a[i];
    corpus_expect_i32("uchar wrap flag", ints, ints_expected, N);
    corpus_read(outs[6], halves, 2 * N);
    for (size_t i = 0; i < N; ++i)
        halves_expected[i] = (uint16_t)(int16_t)(int8_t)a[i];
    corpus_expect_u16("(char)uchar sign-extended", halves, halves_expected, N);
    corpus_read(outs[7], halves, 2 * N);
    for (size_t i = 0; i < N; ++i)
        halves_expected[i] = (uint16_t)(c[i] + (uint16_t)(b[i] * 200));
    corpus_expect_u16("ushort + ushort stored as ushort", halves, halves_expected, N);

    /* Byte stores next to each other: an odd count, every byte written by
     * a different work-item. */
    enum { BYTES = 1001 };
    uint8_t bytes[BYTES], bytes_out[BYTES], bytes_expected[BYTES];
    uint16_t shorts[BYTES], shorts_out[BYTES], shorts_expected[BYTES];
    test_random_bytes(bytes, sizeof bytes);
    test_random_bytes(shorts, sizeof shorts);
    kiln_buffer *byte_buffer = test_buffer_from(context, bytes, sizeof bytes);
    kiln_buffer *short_buffer = test_buffer_from(context, shorts, sizeof shorts);
    CORPUS_LAUNCH(increment, KILN_DIM1(corpus_blocks(BYTES, 7)), KILN_DIM1(7),
                  KILN_ARG_BUFFER(byte_buffer), KILN_ARG_BUFFER(short_buffer),
                  KILN_ARG_INT(BYTES));
    corpus_read(byte_buffer, bytes_out, sizeof bytes_out);
    corpus_read(short_buffer, shorts_out, sizeof shorts_out);
    for (size_t i = 0; i < BYTES; ++i) {
        bytes_expected[i] = (uint8_t)(bytes[i] + 1);
        shorts_expected[i] = (uint16_t)(shorts[i] * 3);
    }
    corpus_expect_u8("byte_increment", bytes_out, bytes_expected, BYTES);
    corpus_expect_u16("ushort * 3", shorts_out, shorts_expected, BYTES);

    corpus_release_buffers(in, 3);
    corpus_release_buffers(outs, 8);
    kiln_buffer *more[] = {byte_buffer, short_buffer};
    corpus_release_buffers(more, 2);
    kiln_kernel_release(arithmetic);
    kiln_kernel_release(increment);
    kiln_program_release(program);
    free(a), free(b), free(c), free(products), free(products_expected);
    free(sums), free(sums_expected), free(ints), free(ints_expected);
    free(wide), free(wide_expected), free(halves), free(halves_expected);
}

/* ---- integer division ------------------------------------------------------------- */

/* Exact: C99's truncating division and remainder are OpenCL C's. */
static void int_division(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 4000, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "int_division", NULL);
    kiln_kernel *div_int = test_kernel(program, "divide_int");
    kiln_kernel *div_long = test_kernel(program, "divide_long");
    kiln_kernel *div_uint = test_kernel(program, "divide_uint");

    int32_t *a = CORPUS_ARRAY(int32_t, N), *b = CORPUS_ARRAY(int32_t, N);
    for (size_t i = 0; i < N; ++i) {
        a[i] = (int32_t)(uint32_t)test_random_u64();
        /* small divisors of both signs mostly, some large ones */
        do {
            b[i] = i % 4 == 3 ? (int32_t)(uint32_t)test_random_u64()
                              : (int32_t)(test_random_u64() % 2001) - 1000;
        } while (b[i] == 0 || (b[i] == -1 && a[i] == INT32_MIN));
    }
    a[0] = INT32_MIN, b[0] = 7;
    a[1] = -7, b[1] = 2;
    a[2] = 7, b[2] = -2;
    a[3] = -7, b[3] = -2;

    kiln_buffer *a_buffer = test_buffer_from(context, a, N * 4);
    kiln_buffer *b_buffer = test_buffer_from(context, b, N * 4);
    kiln_buffer *q_buffer = corpus_poisoned_buffer(context, N * 8);
    kiln_buffer *r_buffer = corpus_poisoned_buffer(context, N * 8);
    kiln_buffer *c_buffer = corpus_poisoned_buffer(context, N * 6 * 4);
    CORPUS_LAUNCH(div_int, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(a_buffer), KILN_ARG_BUFFER(b_buffer),
                  KILN_ARG_BUFFER(q_buffer), KILN_ARG_BUFFER(r_buffer),
                  KILN_ARG_BUFFER(c_buffer), KILN_ARG_INT(N));
    int32_t *q = CORPUS_ARRAY(int32_t, N), *r = CORPUS_ARRAY(int32_t, N);
    int32_t *c = CORPUS_ARRAY(int32_t, 6 * N);
    int32_t *expected = CORPUS_ARRAY(int32_t, 6 * N);
    corpus_read(q_buffer, q, N * 4);
    corpus_read(r_buffer, r, N * 4);
    TEST_OK(kiln_buffer_read(c_buffer, 0, c, 6 * N * 4));
    for (size_t i = 0; i < N; ++i)
        expected[i] = a[i] / b[i];
    corpus_expect_i32("int /", q, expected, N);
    for (size_t i = 0; i < N; ++i)
        expected[i] = a[i] % b[i];
    corpus_expect_i32("int %", r, expected, N);
    for (size_t i = 0; i < N; ++i) {
        int32_t *e = expected + 6 * i;
        e[0] = a[i] / -7, e[1] = a[i] % -7, e[2] = a[i] / 8, e[3] = a[i] % 8;
        e[4] = a[i] >> 3, e[5] = a[i] / 1000000;
    }
    corpus_expect_i32("int by constants (/-7 %-7 /8 %8 >>3 /1e6)", c, expected, 6 * N);

    int64_t *la = CORPUS_ARRAY(int64_t, N), *lb = CORPUS_ARRAY(int64_t, N);
    int64_t *lq = CORPUS_ARRAY(int64_t, N), *lr = CORPUS_ARRAY(int64_t, N);
    int64_t *lexpected = CORPUS_ARRAY(int64_t, N);
    for (size_t i = 0; i < N; ++i) {
        la[i] = (int64_t)test_random_u64();
        do {
            unsigned shift = (unsigned)(test_random_u64() % 63);
            lb[i] = (int64_t)test_random_u64() >> shift; /* all magnitudes */
        } while (lb[i] == 0 || (lb[i] == -1 && la[i] == INT64_MIN));
    }
    kiln_buffer *la_buffer = test_buffer_from(context, la, N * 8);
    kiln_buffer *lb_buffer = test_buffer_from(context, lb, N * 8);
    CORPUS_LAUNCH(div_long, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(la_buffer), KILN_ARG_BUFFER(lb_buffer),
                  KILN_ARG_BUFFER(q_buffer), KILN_ARG_BUFFER(r_buffer),
                  KILN_ARG_INT(N));
    corpus_read(q_buffer, lq, N * 8);
    corpus_read(r_buffer, lr, N * 8);
    for (size_t i = 0; i < N; ++i)
        lexpected[i] = la[i] / lb[i];
    corpus_expect_i64("long /", lq, lexpected, N);
    for (size_t i = 0; i < N; ++i)
        lexpected[i] = la[i] % lb[i];
    corpus_expect_i64("long %", lr, lexpected, N);

    uint32_t *ua = (uint32_t *)a, *ub = (uint32_t *)b;
    uint32_t *uq = (uint32_t *)q, *ur = (uint32_t *)r, *uexpected = (uint32_t *)expected;
    /* the same bits as unsigned: b is never 0 */
    CORPUS_LAUNCH(div_uint, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(a_buffer), KILN_ARG_BUFFER(b_buffer),
                  KILN_ARG_BUFFER(q_buffer), KILN_ARG_BUFFER(r_buffer),
                  KILN_ARG_INT(N));
    corpus_read(q_buffer, uq, N * 4);
    corpus_read(r_buffer, ur, N * 4);
    for (size_t i = 0; i < N; ++i)
        uexpected[i] = ua[i] / ub[i];
    corpus_expect_u32("uint /", uq, uexpected, N);
    for (size_t i = 0; i < N; ++i)
        uexpected[i] = ua[i] % ub[i];
    corpus_expect_u32("uint %", ur, uexpected, N);

    kiln_buffer *buffers[] = {a_buffer, b_buffer, q_buffer, r_buffer,
                              c_buffer, la_buffer, lb_buffer};
    corpus_release_buffers(buffers, 7);
    kiln_kernel_release(div_int);
    kiln_kernel_release(div_long);
    kiln_kernel_release(div_uint);
    kiln_program_release(program);
    free(a), free(b), free(q), free(r), free(c), free(expected);
    free(la), free(lb), free(lq), free(lr), free(lexpected);
}

/* ---- unsigned and 64-bit ---------------------------------------------------------- */

static uint64_t rotate_left_u64(uint64_t x, unsigned s)
{
    s &= 63;
    return s == 0 ? x : (x << s) | (x >> (64 - s));
}

/* Exact. */
static void unsigned_64bit(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 2000, BLOCK = 64, RESULTS = 12 };
    kiln_program *program = corpus_build(context, "unsigned_64bit", NULL);
    kiln_kernel *ulong_ops = test_kernel(program, "ulong_ops");
    kiln_kernel *uint_wrap = test_kernel(program, "uint_wrap");

    uint64_t *a = CORPUS_ARRAY(uint64_t, N), *b = CORPUS_ARRAY(uint64_t, N);
    uint32_t *shifts = CORPUS_ARRAY(uint32_t, N);
    corpus_random_u64(a, N);
    corpus_random_u64(b, N);
    corpus_random_u32(shifts, N); /* the kernel uses the low 6 bits */
    for (size_t i = 0; i < N; i += 5)
        a[i] >>= test_random_u64() % 64; /* small values too (clz) */
    a[1] = 0, b[1] = UINT64_MAX;
    a[2] = UINT64_MAX, b[2] = UINT64_MAX;
    a[3] = 1ull << 63, b[3] = 2;

    kiln_buffer *a_buffer = test_buffer_from(context, a, N * 8);
    kiln_buffer *b_buffer = test_buffer_from(context, b, N * 8);
    kiln_buffer *s_buffer = test_buffer_from(context, shifts, N * 4);
    kiln_buffer *out = corpus_poisoned_buffer(context, N * RESULTS * 8);
    CORPUS_LAUNCH(ulong_ops, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(a_buffer), KILN_ARG_BUFFER(b_buffer),
                  KILN_ARG_BUFFER(s_buffer), KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    uint64_t *results = CORPUS_ARRAY(uint64_t, N * RESULTS);
    corpus_read(out, results, N * RESULTS * 8);
    static const char *const names[RESULTS] = {
        "x + y", "x - y", "x * y", "x << s", "x >> s", "(long)x >> s",
        "mul_hi(x, y)", "popcount(x)", "clz(x)", "(uint)x * (uint)y",
        "(ulong)(uint)x * (uint)y", "rotate(x, s)"};
    for (size_t i = 0; i < N; ++i) {
        uint64_t x = a[i], y = b[i];
        unsigned s = shifts[i] & 63;
        uint64_t e[RESULTS] = {
            x + y, x - y, x * y, x << s, x >> s, (uint64_t)((int64_t)x >> s),
            (uint64_t)(((unsigned __int128)x * y) >> 64),
            (uint64_t)__builtin_popcountll(x),
            x == 0 ? 64 : (uint64_t)__builtin_clzll(x),
            (uint64_t)((uint32_t)x * (uint32_t)y),
            (uint64_t)(uint32_t)x * (uint32_t)y, rotate_left_u64(x, s)};
        for (int k = 0; k < RESULTS; ++k)
            if (results[i * RESULTS + k] != e[k])
                fail_msg("%s with x=0x%016" PRIx64 " y=0x%016" PRIx64
                         " s=%u: got 0x%016" PRIx64 ", expected 0x%016" PRIx64,
                         names[k], x, y, s, results[i * RESULTS + k], e[k]);
    }

    uint32_t *ua = CORPUS_ARRAY(uint32_t, N), *ub = CORPUS_ARRAY(uint32_t, N);
    uint32_t *u_out = CORPUS_ARRAY(uint32_t, 4 * N), *u_expected = CORPUS_ARRAY(uint32_t, 4 * N);
    corpus_random_u32(ua, N);
    corpus_random_u32(ub, N);
    kiln_buffer *ua_buffer = test_buffer_from(context, ua, N * 4);
    kiln_buffer *ub_buffer = test_buffer_from(context, ub, N * 4);
    CORPUS_LAUNCH(uint_wrap, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(ua_buffer), KILN_ARG_BUFFER(ub_buffer),
                  KILN_ARG_BUFFER(out), KILN_ARG_INT(N));
    TEST_OK(kiln_buffer_read(out, 0, u_out, 4 * N * 4));
    for (size_t i = 0; i < N; ++i) {
        u_expected[4 * i] = ua[i] + ub[i];
        u_expected[4 * i + 1] = ua[i] - ub[i];
        u_expected[4 * i + 2] = ua[i] * ub[i];
        u_expected[4 * i + 3] = ua[i] > ub[i] ? ua[i] - ub[i] : ub[i] - ua[i];
    }
    corpus_expect_u32("uint wraparound (+ - * |-|)", u_out, u_expected, 4 * N);

    kiln_buffer *buffers[] = {a_buffer, b_buffer, s_buffer, out, ua_buffer, ub_buffer};
    corpus_release_buffers(buffers, 6);
    kiln_kernel_release(ulong_ops);
    kiln_kernel_release(uint_wrap);
    kiln_program_release(program);
    free(a), free(b), free(shifts), free(results), free(ua), free(ub);
    free(u_out), free(u_expected);
}

/* OpenCL C uses only the low log2(width) bits of a shift count.  Exact. */
static void shift_count_masked(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 1000, BLOCK = 64 };
    kiln_program *program = corpus_build(context, "unsigned_64bit", NULL);
    kiln_kernel *kernel = test_kernel(program, "shift_count_masked");
    uint32_t *a = CORPUS_ARRAY(uint32_t, N), *counts = CORPUS_ARRAY(uint32_t, N);
    uint64_t *b = CORPUS_ARRAY(uint64_t, N);
    corpus_random_u32(a, N);
    corpus_random_u64(b, N);
    for (size_t i = 0; i < N; ++i)
        counts[i] = (uint32_t)(test_random_u64() % 128);
    kiln_buffer *a_buffer = test_buffer_from(context, a, N * 4);
    kiln_buffer *b_buffer = test_buffer_from(context, b, N * 8);
    kiln_buffer *c_buffer = test_buffer_from(context, counts, N * 4);
    kiln_buffer *narrow = corpus_poisoned_buffer(context, 2 * N * 4);
    kiln_buffer *wide = corpus_poisoned_buffer(context, 2 * N * 8);
    CORPUS_LAUNCH(kernel, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(a_buffer), KILN_ARG_BUFFER(b_buffer),
                  KILN_ARG_BUFFER(c_buffer), KILN_ARG_BUFFER(narrow),
                  KILN_ARG_BUFFER(wide), KILN_ARG_INT(N));
    uint32_t *narrow_out = CORPUS_ARRAY(uint32_t, 2 * N);
    uint64_t *wide_out = CORPUS_ARRAY(uint64_t, 2 * N);
    corpus_read(narrow, narrow_out, 2 * N * 4);
    corpus_read(wide, wide_out, 2 * N * 8);
    for (size_t i = 0; i < N; ++i) {
        unsigned c = counts[i];
        uint32_t e32[2] = {a[i] << (c & 31), a[i] >> (c & 31)};
        uint64_t e64[2] = {b[i] << (c & 63), b[i] >> (c & 63)};
        for (int k = 0; k < 2; ++k) {
            if (narrow_out[2 * i + k] != e32[k])
                fail_msg("uint 0x%08" PRIx32 " %s %u: got 0x%08" PRIx32
                         ", expected 0x%08" PRIx32 " (count modulo 32)",
                         a[i], k ? ">>" : "<<", c, narrow_out[2 * i + k], e32[k]);
            if (wide_out[2 * i + k] != e64[k])
                fail_msg("ulong 0x%016" PRIx64 " %s %u: got 0x%016" PRIx64
                         ", expected 0x%016" PRIx64 " (count modulo 64)",
                         b[i], k ? ">>" : "<<", c, wide_out[2 * i + k], e64[k]);
        }
    }
    kiln_buffer *buffers[] = {a_buffer, b_buffer, c_buffer, narrow, wide};
    corpus_release_buffers(buffers, 5);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
    free(a), free(counts), free(b), free(narrow_out), free(wide_out);
}

/* ---- __constant memory ------------------------------------------------------------- */

/* polynomial: Horner, 5 products and sums (maybe fused):
 * 2^-21 sum |c_k x^k|.  palette: exact (dyadic values).  convolve: 7
 * taps: 2^-21 sum |tap signal|. */
static void constant_memory(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 2500, BLOCK = 64, TAPS = 7 };
    static const double coefficients[6] = {0.5, -1.25, 2.0, 0.75, -0.125, 0.0625};
    static const float palette[4][4] = {
        {1, 0, 0, 1}, {0, 1, 0, 0.5f}, {0, 0, 1, 0.25f}, {0.5f, 0.5f, 0.5f, 0}};
    static const int32_t lookup[3][4] = {
        {2, 3, 5, 7}, {11, 13, 17, 19}, {23, 29, 31, 37}};
    kiln_program *program = corpus_build(context, "constant_memory", NULL);
    kiln_kernel *polynomial = test_kernel(program, "polynomial");
    kiln_kernel *palette_lookup = test_kernel(program, "palette_lookup");
    kiln_kernel *convolve = test_kernel(program, "convolve");

    float *x = CORPUS_ARRAY(float, N), *y = CORPUS_ARRAY(float, N);
    test_random_floats(x, N, -2, 2);
    kiln_buffer *x_buffer = test_buffer_from(context, x, N * 4);
    kiln_buffer *y_buffer = corpus_poisoned_buffer(context, N * 4);
    CORPUS_LAUNCH(polynomial, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(y_buffer), KILN_ARG_INT(N));
    corpus_read(y_buffer, y, N * 4);
    for (size_t i = 0; i < N; ++i) {
        double value = 0, magnitude = 0, power = 1;
        for (int k = 0; k < 6; ++k) {
            value += coefficients[k] * power;
            magnitude += fabs(coefficients[k] * power);
            power *= x[i];
        }
        corpus_expect_f32_bound("polynomial (constant table)", i, y[i], value,
                                0x1p-21 * magnitude);
    }

    int32_t *index = CORPUS_ARRAY(int32_t, N), *primes = CORPUS_ARRAY(int32_t, N);
    int32_t *primes_expected = CORPUS_ARRAY(int32_t, N);
    float *colours = CORPUS_ARRAY(float, 4 * N), *colours_expected = CORPUS_ARRAY(float, 4 * N);
    corpus_random_i32(index, N, 0, 1000);
    kiln_buffer *index_buffer = test_buffer_from(context, index, N * 4);
    kiln_buffer *colour_buffer = corpus_poisoned_buffer(context, N * 16);
    kiln_buffer *prime_buffer = corpus_poisoned_buffer(context, N * 4);
    CORPUS_LAUNCH(palette_lookup, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(index_buffer), KILN_ARG_BUFFER(colour_buffer),
                  KILN_ARG_BUFFER(prime_buffer), KILN_ARG_INT(N));
    corpus_read(colour_buffer, colours, N * 16);
    corpus_read(prime_buffer, primes, N * 4);
    for (size_t i = 0; i < N; ++i) {
        int32_t k = index[i];
        for (int c = 0; c < 4; ++c)
            colours_expected[4 * i + c] =
                palette[k & 3][c] * 0.5f + palette[(k >> 2) & 3][c];
        primes_expected[i] = lookup[k % 3][(k / 3) % 4];
    }
    corpus_expect_f32_bits("palette (constant float4 table)", colours,
                           colours_expected, 4 * N);
    corpus_expect_i32("lookup (constant 2-D table)", primes, primes_expected, N);

    float taps[TAPS];
    test_random_floats(taps, TAPS, -1, 1);
    kiln_buffer *taps_buffer = test_buffer_from(context, taps, sizeof taps);
    CORPUS_LAUNCH(convolve, KILN_DIM1(corpus_blocks(N, BLOCK)), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(taps_buffer),
                  KILN_ARG_INT(TAPS), KILN_ARG_BUFFER(y_buffer), KILN_ARG_INT(N));
    corpus_read(y_buffer, y, N * 4);
    for (int i = 0; i < N; ++i) {
        double value = 0, magnitude = 0;
        for (int t = 0; t < TAPS; ++t) {
            int j = i + t - TAPS / 2;
            if (j >= 0 && j < N) {
                value += (double)taps[t] * x[j];
                magnitude += fabs((double)taps[t] * x[j]);
            }
        }
        corpus_expect_f32_bound("convolve (constant pointer)", (size_t)i, y[i],
                                value, 0x1p-21 * magnitude);
    }

    kiln_buffer *buffers[] = {x_buffer, y_buffer, index_buffer, colour_buffer,
                              prime_buffer, taps_buffer};
    corpus_release_buffers(buffers, 6);
    kiln_kernel_release(polynomial);
    kiln_kernel_release(palette_lookup);
    kiln_kernel_release(convolve);
    kiln_program_release(program);
    free(x), free(y), free(index), free(primes), free(primes_expected);
    free(colours), free(colours_expected);
}

/* ---- printf -------------------------------------------------------------------------- */

/* The output is not captured; the kernel must run and its results (exact)
 * must be right. */
static void printf_kernel(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 64 };
    int32_t in[N], out[N], expected[N];
    corpus_random_i32(in, N, -1000, 1000);
    kiln_program *program = corpus_build(context, "printf", NULL);
    kiln_kernel *kernel = test_kernel(program, "print_values");
    fflush(stdout); /* keep the TAP stream in order around the device's output */
    CORPUS_LAUNCH(kernel, KILN_DIM1(2), KILN_DIM1(32), KILN_ARG_IN(in, sizeof in),
                  KILN_ARG_OUT(out, sizeof out), KILN_ARG_INT(N));
    TEST_OK(kiln_context_synchronize(context));
    fflush(stdout);
    for (int i = 0; i < N; ++i)
        expected[i] = in[i] + 1;
    corpus_expect_i32("print_values", out, expected, N);
    kiln_kernel_release(kernel);
    kiln_program_release(program);
}

/* ---- reqd_work_group_size ----------------------------------------------------------- */

/* Exact; launches with another block shape are KILN_ERR_INVALID_LAUNCH,
 * the 2-D one even with the same number of work-items. */
static void reqd_work_group_size(void **state)
{
    kiln_context *context = test_context(state);
    enum { BLOCK = 64, GROUPS = 50, N = BLOCK * GROUPS };
    kiln_program *program = corpus_build(context, "reqd_work_group_size", NULL);
    kiln_kernel *reverse = test_kernel(program, "block_reverse");
    kiln_kernel *ids = test_kernel(program, "block_ids_2d");

    size_t max_block = 0;
    TEST_OK(kiln_kernel_get_max_block_size(reverse, &max_block));
    assert_int_equal(max_block, BLOCK);

    float *in = CORPUS_ARRAY(float, N), *out = CORPUS_ARRAY(float, N);
    float *expected = CORPUS_ARRAY(float, N);
    test_random_floats(in, N, -100, 100);
    kiln_buffer *in_buffer = test_buffer_from(context, in, N * 4);
    kiln_buffer *out_buffer = corpus_poisoned_buffer(context, N * 4);
    CORPUS_LAUNCH(reverse, KILN_DIM1(GROUPS), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer));
    corpus_read(out_buffer, out, N * 4);
    for (size_t i = 0; i < N; ++i)
        expected[i] = in[i - i % BLOCK + (BLOCK - 1 - i % BLOCK)];
    corpus_expect_f32_bits("block_reverse", out, expected, N);

    kiln_launch_config wrong = {.grid = KILN_DIM1(2 * GROUPS), .block = KILN_DIM1(BLOCK / 2)};
    kiln_arg args[] = {KILN_ARG_BUFFER(in_buffer), KILN_ARG_BUFFER(out_buffer)};
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH, kiln_launch(reverse, &wrong, 2, args));
    TEST_ERROR_MENTIONS("reqd_work_group_size");

    enum { W = 8 * 5, H = 4 * 3 };
    int32_t id_out[W * H], id_expected[W * H];
    kiln_buffer *id_buffer = corpus_poisoned_buffer(context, sizeof id_out);
    CORPUS_LAUNCH(ids, KILN_DIM2(5, 3), KILN_DIM2(8, 4), KILN_ARG_BUFFER(id_buffer));
    corpus_read(id_buffer, id_out, sizeof id_out);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            id_expected[y * W + x] = (y % 4) * 8 + x % 8;
    corpus_expect_i32("block_ids_2d", id_out, id_expected, W * H);
    kiln_launch_config transposed = {.grid = KILN_DIM2(10, 1), .block = KILN_DIM2(4, 8)};
    kiln_arg id_args[] = {KILN_ARG_BUFFER(id_buffer)};
    TEST_FAILS(KILN_ERR_INVALID_LAUNCH, kiln_launch(ids, &transposed, 1, id_args));
    TEST_ERROR_MENTIONS("8x4x1");

    kiln_buffer *buffers[] = {in_buffer, out_buffer, id_buffer};
    corpus_release_buffers(buffers, 3);
    kiln_kernel_release(reverse);
    kiln_kernel_release(ids);
    kiln_program_release(program);
    free(in), free(out), free(expected);
}

/* ---- double precision ---------------------------------------------------------------- */

static void expect_double_ulps(const char *what, size_t index, double actual,
                               double expected, double ulps)
{
    int exponent;
    frexp(expected, &exponent);
    double ulp = ldexp(1.0, exponent - 53);
    if (!(fabs(actual - expected) <= ulps * ulp))
        fail_msg("%s[%zu]: got %.17g, expected %.17g (allowed %.1f ulp)", what,
                 index, actual, expected, ulps);
}

/* daxpy: 2^-52 (|alpha x| + |y|).  Math: OpenCL's double ulp bounds
 * (sqrt and division correctly rounded, exp/log 3, sin 4, pow 16, fma 0).
 * Conversions exact.  Block sums: 128 terms, 2^-46 sum |x|. */
static void double_precision(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info device = corpus_device(context);
    if (!device.supports_double) {
        printf("# %s has no double precision: skipped\n", device.name);
        skip();
    }
    enum { N = 2000, BLOCK = 128, PAIRS = BLOCK * 40, RESULTS = 8 };
    kiln_program *program = corpus_build(context, "double_precision", NULL);
    kiln_kernel *daxpy = test_kernel(program, "daxpy");
    kiln_kernel *math = test_kernel(program, "double_math");
    kiln_kernel *block_sum = test_kernel(program, "double_block_sum");

    double *x = CORPUS_ARRAY(double, N), *y = CORPUS_ARRAY(double, N);
    double *result = CORPUS_ARRAY(double, N * RESULTS);
    test_random_doubles(x, N, 0.5, 100);
    test_random_doubles(y, N, -100, 100);
    double alpha = test_random_float(-3, 3) + 1e-9; /* not a float */
    kiln_buffer *x_buffer = test_buffer_from(context, x, N * 8);
    kiln_buffer *y_buffer = test_buffer_from(context, y, N * 8);
    CORPUS_LAUNCH(daxpy, KILN_DIM1(corpus_blocks(N, 64)), KILN_DIM1(64),
                  KILN_ARG_DOUBLE(alpha), KILN_ARG_BUFFER(x_buffer),
                  KILN_ARG_BUFFER(y_buffer), KILN_ARG_INT(N));
    corpus_read(y_buffer, result, N * 8);
    for (size_t i = 0; i < N; ++i) {
        double product = alpha * x[i];
        if (!(fabs(result[i] - (product + y[i])) <=
              0x1p-52 * (fabs(product) + fabs(y[i]))))
            fail_msg("daxpy[%zu]: got %.17g, expected %.17g", i, result[i],
                     product + y[i]);
    }

    kiln_buffer *out = corpus_poisoned_buffer(context, N * RESULTS * 8);
    kiln_buffer *narrowed = corpus_poisoned_buffer(context, N * 4);
    kiln_buffer *truncated = corpus_poisoned_buffer(context, N * 8);
    CORPUS_LAUNCH(math, KILN_DIM1(corpus_blocks(N, 64)), KILN_DIM1(64),
                  KILN_ARG_BUFFER(x_buffer), KILN_ARG_BUFFER(out),
                  KILN_ARG_BUFFER(narrowed), KILN_ARG_BUFFER(truncated),
                  KILN_ARG_INT(N));
    corpus_read(out, result, N * RESULTS * 8);
    float *floats = CORPUS_ARRAY(float, N), *floats_expected = CORPUS_ARRAY(float, N);
    int64_t *longs = CORPUS_ARRAY(int64_t, N), *longs_expected = CORPUS_ARRAY(int64_t, N);
    corpus_read(narrowed, floats, N * 4);
    corpus_read(truncated, longs, N * 8);
    static const char *const names[RESULTS] = {"sqrt", "exp", "log", "sin",
                                               "pow", "fma", "1/x", "float rounding"};
    static const double ulps[RESULTS] = {0, 3, 3, 4, 16, 0, 0, 0};
    for (size_t i = 0; i < N; ++i) {
        double v = x[i];
        double e[RESULTS] = {sqrt(v), exp(v / 16), log(v), sin(v), pow(v, 1.5),
                             fma(v, v, -1), 1 / v, (double)(float)v - v};
        for (int k = 0; k < RESULTS; ++k) {
            if (k == 7) {
                if (result[i * RESULTS + k] != e[k])
                    fail_msg("double float rounding[%zu]: got %.17g, expected %.17g",
                             i, result[i * RESULTS + k], e[k]);
                continue;
            }
            expect_double_ulps(names[k], i, result[i * RESULTS + k], e[k], ulps[k]);
        }
        floats_expected[i] = (float)(v * 1.0e10);
        longs_expected[i] = (int64_t)(v * 1.0e12);
    }
    corpus_expect_f32_bits("convert_float(double)", floats, floats_expected, N);
    corpus_expect_i64("convert_long(double)", longs, longs_expected, N);

    double *pairs = CORPUS_ARRAY(double, 2 * PAIRS);
    test_random_doubles(pairs, 2 * PAIRS, -1, 1);
    kiln_buffer *pair_buffer = test_buffer_from(context, pairs, 2 * PAIRS * 8);
    kiln_buffer *sum_buffer = corpus_poisoned_buffer(context, PAIRS / BLOCK * 8);
    CORPUS_LAUNCH(block_sum, KILN_DIM1(PAIRS / BLOCK), KILN_DIM1(BLOCK),
                  KILN_ARG_BUFFER(pair_buffer), KILN_ARG_BUFFER(sum_buffer),
                  KILN_ARG_LOCAL(BLOCK * sizeof(double)));
    double sums[PAIRS / BLOCK];
    corpus_read(sum_buffer, sums, sizeof sums);
    for (size_t g = 0; g < PAIRS / BLOCK; ++g) {
        double exact = 0, magnitude = 0;
        for (size_t k = 2 * g * BLOCK; k < 2 * (g + 1) * BLOCK; ++k) {
            exact += pairs[k];
            magnitude += fabs(pairs[k]);
        }
        if (!(fabs(sums[g] - exact) <= 0x1p-46 * magnitude))
            fail_msg("double_block_sum[%zu]: got %.17g, expected %.17g", g,
                     sums[g], exact);
    }

    kiln_buffer *buffers[] = {x_buffer, y_buffer, out, narrowed, truncated,
                              pair_buffer, sum_buffer};
    corpus_release_buffers(buffers, 7);
    kiln_kernel_release(daxpy);
    kiln_kernel_release(math);
    kiln_kernel_release(block_sum);
    kiln_program_release(program);
    free(x), free(y), free(result), free(floats), free(floats_expected);
    free(longs), free(longs_expected), free(pairs);
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(elementwise),
        KILN_TEST(macros),
        KILN_TEST(work_items_3d),
        KILN_TEST(struct_args),
        KILN_TEST(qualifiers),
        KILN_TEST(c_idioms),
        KILN_TEST(small_types),
        KILN_TEST(int_division),
        KILN_TEST(unsigned_64bit),
        KILN_TEST(shift_count_masked),
        KILN_TEST(constant_memory),
        {"printf", printf_kernel},
        KILN_TEST(reqd_work_group_size),
        KILN_TEST(double_precision),
    };
    return kiln_test_main("corpus_basic", tests, sizeof tests / sizeof tests[0]);
}
