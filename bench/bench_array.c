/*
 * bench_array — the array layer and its generators against hand-written
 * kernels and the device's own bandwidth (issue 13's budgets, H100):
 *   sum of squares of 16 M floats through the reduction generator, map
 *     and reduce fused: >= 85% of the device-copy bandwidth (bytes read
 *     per second against copy's bytes read + written per second); the
 *     hand-written one-pass kernel of bench_kernels beside it;
 *   SAXPY over 16 M floats through the elementwise generator: within 3%
 *     of the hand-written kernel;
 *   matmul of 2048 x 2048 float32 (cuBLAS / CLBlast / the generated
 *     kernel, as kiln_array_blas_name says): >= 90% of cupy.matmul, which
 *     bench/cupy_compare.py measures; the hand-written SGEMM beside it;
 *   uniform random numbers, 64 M floats: >= 70% of the write bandwidth
 *     (kiln_buffer_fill of the same bytes);
 *   sum along each axis of a 4096 x 4096 float32 matrix: >= 70% of the
 *     copy bandwidth;
 *   the host's time per call of an add, an axis sum and a random fill of
 *     a 1-element array, and of sums along each axis of a 2048 x 2 array
 *     (the axis paths of the 4096 x 4096 sums) (no budget: a regression
 *     watch, since each call
 *     generates its source and builds it through the program cache; at
 *     b07fe76 every cache hit ran the preprocessor, ten times the cost).
 * Every result is checked against the CPU first.  Times: device events
 * around `iterations` back-to-back runs after one untimed run (so the
 * start event does not wait for the host), the median of the samples.
 * CPU devices (PoCL) and KILN_BENCH_QUICK=1 get smaller sizes.
 */
#include "bench_util.h"

#include "bench_kernels_source.h"
#include "kiln_array.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job job;
typedef kiln_status (*run_fn)(job *j);

struct job {
    bench_env *env;
    run_fn run;
    size_t iterations;
    kiln_event *start, *end;
    /* the work's data */
    size_t n;
    float a;
    kiln_buffer *x, *y, *copy_target, *partial, *done, *result;
    kiln_reduction *sumsq;
    kiln_elementwise *saxpy;
    kiln_kernel *hand_sumsq, *hand_saxpy, *hand_sgemm;
    unsigned groups;
    kiln_array *matrix_a, *matrix_b, *product, *square;
    kiln_random random;
    int axis;
    size_t dim;
    kiln_array *tiny, *tiny_square; /* 1 element; 1 x 1 */
    kiln_array *narrow; /* 2048 x 2: axis 0 splits (two launches), axis 1 not */
    const kiln_array *summed; /* run_axis_sum's array */
};

static double sample(void *state)
{
    job *j = state;
    BENCH_CHECK(j->run(j)); /* keeps the device busy past the start event */
    BENCH_CHECK(kiln_event_record(j->start, NULL));
    for (size_t i = 0; i < j->iterations; ++i)
        BENCH_CHECK(j->run(j));
    BENCH_CHECK(kiln_event_record(j->end, NULL));
    float ms = 0;
    BENCH_CHECK(kiln_event_elapsed(j->start, j->end, &ms));
    return (double)ms * 1e-3 / (double)j->iterations;
}

static bench_stats measure(job *j, run_fn run, size_t iterations)
{
    j->run = run;
    j->iterations = iterations;
    bench_variant variant = {.name = "", .run = sample, .state = j};
    bench_measure(&variant, 1, 1, 5, 50, bench_budget(1.0));
    bench_stats stats = bench_stats_of(&variant.samples);
    bench_samples_free(&variant.samples);
    return stats;
}

/* ---- the work ------------------------------------------------------------------- */

static kiln_status run_copy(job *j)
{
    return kiln_buffer_copy_async(j->copy_target, 0, j->x, 0,
                                  j->n * sizeof(float), NULL);
}

static kiln_status run_fill(job *j)
{
    const float zero = 0;
    return kiln_buffer_fill_async(j->copy_target, 0, j->n * sizeof(float),
                                  &zero, sizeof zero, NULL);
}

static kiln_status run_sumsq_generator(job *j)
{
    const kiln_arg args[] = {KILN_ARG_BUFFER(j->x)};
    return kiln_reduction_run(j->sumsq, j->n, 1, args, j->result, 0, NULL);
}

static kiln_status run_sumsq_hand(job *j)
{
    const kiln_launch_config config = {.grid = KILN_DIM1(j->groups),
                                       .block = KILN_DIM1(BENCH_REDUCE_THREADS)};
    const kiln_arg args[] = {KILN_ARG_BUFFER(j->x),
                             KILN_ARG_UINT((uint32_t)(j->n / 4)),
                             KILN_ARG_BUFFER(j->partial),
                             KILN_ARG_BUFFER(j->done),
                             KILN_ARG_BUFFER(j->result)};
    return kiln_launch(j->hand_sumsq, &config, 5, args);
}

static kiln_status run_saxpy_generator(job *j)
{
    const kiln_arg args[] = {KILN_ARG_FLOAT(j->a), KILN_ARG_BUFFER(j->x),
                             KILN_ARG_BUFFER(j->y)};
    return kiln_elementwise_launch(j->saxpy, j->n, 3, args, NULL);
}

static kiln_status run_saxpy_hand(job *j)
{
    const kiln_launch_config config = {.grid = KILN_DIM1(j->n / 256),
                                       .block = KILN_DIM1(256)};
    const kiln_arg args[] = {KILN_ARG_UINT((uint32_t)j->n),
                             KILN_ARG_FLOAT(j->a), KILN_ARG_BUFFER(j->x),
                             KILN_ARG_BUFFER(j->y)};
    return kiln_launch(j->hand_saxpy, &config, 4, args);
}

static kiln_status run_matmul(job *j)
{
    kiln_array *c = NULL;
    kiln_status status = kiln_array_matmul(j->matrix_a, j->matrix_b, NULL, &c);
    if (status == KILN_OK)
        kiln_array_release(c);
    return status;
}

static kiln_status run_sgemm_hand(job *j)
{
    kiln_buffer *a, *b, *c;
    size_t offset;
    kiln_array_get_buffer(j->matrix_a, &a, &offset);
    kiln_array_get_buffer(j->matrix_b, &b, &offset);
    kiln_array_get_buffer(j->product, &c, &offset);
    size_t blocks = j->dim / BENCH_SGEMM_TILE;
    const kiln_launch_config config = {
        .grid = KILN_DIM2(blocks, blocks),
        .block = KILN_DIM2(BENCH_SGEMM_BLOCK, BENCH_SGEMM_BLOCK)};
    const kiln_arg args[] = {KILN_ARG_UINT((uint32_t)j->dim),
                             KILN_ARG_UINT((uint32_t)j->dim),
                             KILN_ARG_BUFFER(a), KILN_ARG_BUFFER(b),
                             KILN_ARG_BUFFER(c)};
    return kiln_launch(j->hand_sgemm, &config, 5, args);
}

static kiln_status run_random(job *j)
{
    kiln_array *r = NULL;
    const size_t shape[] = {j->n};
    kiln_status status = kiln_array_random_uniform(
        &j->random, j->env->context, KILN_DTYPE_FLOAT32, 1, shape, 0, 1, NULL,
        &r);
    if (status == KILN_OK)
        kiln_array_release(r);
    return status;
}

/* the sum of j->summed along j->axis */
static kiln_status run_axis_sum(job *j)
{
    kiln_array *r = NULL;
    kiln_status status =
        kiln_array_reduce_axis(KILN_REDUCE_SUM, j->summed, j->axis, NULL, &r);
    if (status == KILN_OK)
        kiln_array_release(r);
    return status;
}

static kiln_status run_tiny_add(job *j)
{
    kiln_array *r = NULL;
    kiln_status status =
        kiln_array_binary(KILN_OP_ADD, j->tiny, j->tiny, NULL, &r);
    if (status == KILN_OK)
        kiln_array_release(r);
    return status;
}

static kiln_status run_tiny_random(job *j)
{
    kiln_array *r = NULL;
    const size_t shape[] = {1};
    kiln_status status = kiln_array_random_uniform(
        &j->random, j->env->context, KILN_DTYPE_FLOAT32, 1, shape, 0, 1, NULL,
        &r);
    if (status == KILN_OK)
        kiln_array_release(r);
    return status;
}

/* Host seconds per call over a batch of calls that do not wait (the
 * device work of each is a few microseconds), then one wait outside the
 * time. */
enum { TINY_CALLS = 200 };
static double sample_host(void *state)
{
    job *j = state;
    double started = bench_now();
    for (size_t i = 0; i < TINY_CALLS; ++i)
        BENCH_CHECK(j->run(j));
    double per_call = (bench_now() - started) / TINY_CALLS;
    kiln_stream *stream = NULL;
    BENCH_CHECK(kiln_context_get_default_stream(j->env->context, &stream));
    BENCH_CHECK(kiln_stream_synchronize(stream));
    return per_call;
}

static bench_stats measure_host(job *j, run_fn run)
{
    j->run = run;
    bench_variant variant = {.name = "", .run = sample_host, .state = j};
    bench_measure(&variant, 1, 1, 5, 30, bench_budget(0.5));
    bench_stats stats = bench_stats_of(&variant.samples);
    bench_samples_free(&variant.samples);
    return stats;
}

/* ---- checks ---------------------------------------------------------------------- */

static void check_near(const char *what, double got, double expected,
                       double tolerance)
{
    if (!(fabs(got - expected) <= tolerance * fabs(expected)))
        bench_fail("%s: %.9g, the CPU says %.9g", what, got, expected);
}

static void format_rate_cell(char *out, size_t size, const bench_stats *s,
                             double units, const char *unit)
{
    char time[64], rate[64];
    bench_format_time(time, sizeof time, s);
    bench_format_rate(rate, sizeof rate, s, units, unit);
    snprintf(out, size, "%s, %s", time, rate);
}

int main(int argc, char **argv)
{
    bench_env env;
    bench_open(&env, "bench_array: arrays and kernel generators", argc, argv);
    const bool small = bench_quick() || env.device.type == KILN_DEVICE_CPU;
    job j = {.env = &env, .a = 1.5f};
    j.n = small ? (size_t)1 << 20 : (size_t)16 << 20;
    const size_t random_n = small ? (size_t)4 << 20 : (size_t)64 << 20;
    j.dim = small ? 256 : 2048;
    const size_t square_dim = small ? 1024 : 4096;
    const size_t iterations = small ? 2 : 20;
    BENCH_CHECK(kiln_event_create(env.context, &j.start));
    BENCH_CHECK(kiln_event_create(env.context, &j.end));

    /* inputs */
    bench_rng rng = {20261124};
    size_t big = random_n > square_dim * square_dim ? random_n
                                                    : square_dim * square_dim;
    float *host = bench_malloc(big * sizeof(float));
    bench_random_floats(&rng, host, j.n, -1, 1);
    BENCH_CHECK(kiln_buffer_create_from(env.context, host, j.n * sizeof(float),
                                        &j.x));
    BENCH_CHECK(kiln_buffer_create(env.context, big * sizeof(float),
                                   &j.copy_target));
    BENCH_CHECK(kiln_buffer_create(env.context, j.n * sizeof(float), &j.y));
    BENCH_CHECK(kiln_buffer_create(env.context, sizeof(float), &j.result));
    j.groups = (unsigned)(env.device.compute_units > 0
                              ? env.device.compute_units * 4
                              : 64);
    BENCH_CHECK(kiln_buffer_create(env.context, j.groups * sizeof(float),
                                   &j.partial));
    const uint32_t zero = 0;
    BENCH_CHECK(kiln_buffer_create_from(env.context, &zero, sizeof zero,
                                        &j.done));

    /* the generators and the hand-written kernels */
    BENCH_CHECK(kiln_reduction_create(env.context, "float", "0", "a + b",
                                      "x[i] * x[i]", "global const float *x",
                                      "sum_of_squares", NULL, &j.sumsq));
    BENCH_CHECK(kiln_elementwise_create(
        env.context, "float a, global const float *x, global float *y",
        "y[i] = a * x[i] + y[i]", "saxpy_generated", NULL, &j.saxpy));
    kiln_program *program = NULL;
    BENCH_CHECK(kiln_program_build(env.context, bench_opencl_source, NULL,
                                   &program));
    BENCH_CHECK(kiln_kernel_create(program, "sumsq", &j.hand_sumsq));
    BENCH_CHECK(kiln_kernel_create(program, "saxpy", &j.hand_saxpy));
    BENCH_CHECK(kiln_kernel_create(program, "sgemm", &j.hand_sgemm));

    /* checks against the CPU */
    double expected = 0;
    for (size_t i = 0; i < j.n; ++i)
        expected += (double)host[i] * host[i];
    float got = 0;
    BENCH_CHECK(run_sumsq_generator(&j));
    BENCH_CHECK(kiln_buffer_read(j.result, 0, &got, sizeof got));
    check_near("sum of squares (generator)", got, expected, 1e-4);
    BENCH_CHECK(run_sumsq_hand(&j));
    BENCH_CHECK(kiln_buffer_read(j.result, 0, &got, sizeof got));
    check_near("sum of squares (hand-written)", got, expected, 1e-4);
    BENCH_CHECK(kiln_buffer_fill(j.y, 0, j.n * sizeof(float), &zero,
                                 sizeof zero));
    BENCH_CHECK(run_saxpy_generator(&j));
    BENCH_CHECK(kiln_buffer_read(j.y, 0, &got, sizeof got));
    check_near("saxpy (generator)", got, 1.5 * host[0], 1e-6);

    bench_progress("device copy and write bandwidth");
    bench_stats copy = measure(&j, run_copy, iterations);
    const double copy_bandwidth = 2.0 * (double)(j.n * sizeof(float)) /
                                  copy.median;
    bench_stats sumsq_gen = measure(&j, run_sumsq_generator, iterations);
    bench_stats sumsq_hand = measure(&j, run_sumsq_hand, iterations);
    bench_stats saxpy_gen = measure(&j, run_saxpy_generator, iterations);
    bench_stats saxpy_hand = measure(&j, run_saxpy_hand, iterations);

    char size[64], kiln[160], raw[160], compare[64];
    bench_table_begin("Generators (sum of squares, SAXPY)", "hand-written");
    double bytes = (double)(j.n * sizeof(float));
    bench_format_bytes(size, sizeof size, (uint64_t)(2 * bytes));
    format_rate_cell(kiln, sizeof kiln, &copy, 2 * bytes / 1e9, "GB/s");
    bench_table_row("device copy (bytes read + written)", size, kiln, "—",
                    "—", "the reference", "—");
    snprintf(size, sizeof size, "%zu M floats", j.n >> 20);
    format_rate_cell(kiln, sizeof kiln, &sumsq_gen, bytes / 1e9, "GB/s");
    format_rate_cell(raw, sizeof raw, &sumsq_hand, bytes / 1e9, "GB/s");
    double fraction = bytes / sumsq_gen.median / copy_bandwidth;
    snprintf(compare, sizeof compare, "%.0f%% of copy (hand: %.0f%%)",
             100 * fraction, 100 * bytes / sumsq_hand.median / copy_bandwidth);
    bench_table_row("sum(x*x), reduction generator, map+reduce fused", size,
                    kiln, raw, compare, ">= 85% of copy",
                    bench_verdict(true, fraction >= 0.85));
    format_rate_cell(kiln, sizeof kiln, &saxpy_gen, 3 * bytes / 1e9, "GB/s");
    format_rate_cell(raw, sizeof raw, &saxpy_hand, 3 * bytes / 1e9, "GB/s");
    snprintf(compare, sizeof compare, "%.3fx", saxpy_gen.median /
                                                   saxpy_hand.median);
    bench_table_row("SAXPY, elementwise generator", size, kiln, raw, compare,
                    "within 3% of hand-written",
                    bench_judge(&saxpy_gen, &saxpy_hand, 1.03, 0));
    bench_table_end();

    /* matmul */
    bench_progress("matmul");
    const size_t shape[] = {j.dim, j.dim};
    kiln_random inputs = {7, 0};
    BENCH_CHECK(kiln_array_random_uniform(&inputs, env.context,
                                          KILN_DTYPE_FLOAT32, 2, shape, -1, 1,
                                          NULL, &j.matrix_a));
    BENCH_CHECK(kiln_array_random_uniform(&inputs, env.context,
                                          KILN_DTYPE_FLOAT32, 2, shape, -1, 1,
                                          NULL, &j.matrix_b));
    BENCH_CHECK(kiln_array_empty(env.context, KILN_DTYPE_FLOAT32, 2, shape,
                                 &j.product));
    {
        /* one row of the product against the CPU */
        float *a = bench_malloc(j.dim * j.dim * sizeof(float));
        float *b = bench_malloc(j.dim * j.dim * sizeof(float));
        float *c = bench_malloc(j.dim * j.dim * sizeof(float));
        kiln_array *product = NULL;
        BENCH_CHECK(kiln_array_matmul(j.matrix_a, j.matrix_b, NULL, &product));
        size_t bytes_matrix = j.dim * j.dim * sizeof(float);
        BENCH_CHECK(kiln_array_to_host(j.matrix_a, a, bytes_matrix, NULL));
        BENCH_CHECK(kiln_array_to_host(j.matrix_b, b, bytes_matrix, NULL));
        BENCH_CHECK(kiln_array_to_host(product, c, bytes_matrix, NULL));
        size_t row = j.dim / 3;
        for (size_t col = 0; col < j.dim; col += 7) {
            double s = 0;
            for (size_t k = 0; k < j.dim; ++k)
                s += (double)a[row * j.dim + k] * b[k * j.dim + col];
            if (fabs(c[row * j.dim + col] - s) > 1e-3 * (1 + fabs(s)))
                bench_fail("matmul: C[%zu][%zu] = %g, the CPU says %g", row,
                           col, (double)c[row * j.dim + col], s);
        }
        kiln_array_release(product);
        free(a);
        free(b);
        free(c);
    }
    const char *blas = NULL;
    BENCH_CHECK(kiln_array_blas_name(env.context, &blas));
    bench_stats matmul = measure(&j, run_matmul, small ? 1 : 10);
    bench_stats sgemm_hand = measure(&j, run_sgemm_hand, small ? 1 : 10);
    double flops = 2.0 * (double)j.dim * (double)j.dim * (double)j.dim;

    /* random numbers */
    bench_progress("random numbers");
    j.random = (kiln_random){20261124, 0};
    size_t saved_n = j.n;
    j.n = random_n;
    bench_stats fill = measure(&j, run_fill, iterations);
    bench_stats random = measure(&j, run_random, iterations);
    j.n = saved_n;
    double random_bytes = (double)(random_n * sizeof(float));

    /* reductions along an axis */
    bench_progress("axis reductions");
    const size_t square_shape[] = {square_dim, square_dim};
    BENCH_CHECK(kiln_array_random_uniform(&inputs, env.context,
                                          KILN_DTYPE_FLOAT32, 2, square_shape,
                                          0, 1, NULL, &j.square));
    {
        float *m = host;
        BENCH_CHECK(kiln_array_to_host(j.square, m,
                                       square_dim * square_dim * sizeof(float),
                                       NULL));
        float *sums = bench_malloc(square_dim * sizeof(float));
        for (int axis = 0; axis < 2; ++axis) {
            kiln_array *r = NULL;
            BENCH_CHECK(kiln_array_reduce_axis(KILN_REDUCE_SUM, j.square, axis,
                                               NULL, &r));
            BENCH_CHECK(kiln_array_to_host(r, sums, square_dim * sizeof(float),
                                           NULL));
            for (size_t k = 0; k < square_dim; k += 17) {
                double s = 0;
                for (size_t l = 0; l < square_dim; ++l)
                    s += axis ? m[k * square_dim + l] : m[l * square_dim + k];
                check_near(axis ? "sum along axis 1" : "sum along axis 0",
                           sums[k], s, 1e-4);
            }
            kiln_array_release(r);
        }
        free(sums);
    }
    j.summed = j.square;
    j.axis = 0;
    bench_stats axis0 = measure(&j, run_axis_sum, iterations);
    j.axis = 1;
    bench_stats axis1 = measure(&j, run_axis_sum, iterations);
    double square_bytes = (double)(square_dim * square_dim * sizeof(float));

    bench_table_begin("Arrays (matmul, random, axis reductions)",
                      "hand-written or bandwidth");
    snprintf(size, sizeof size, "%zu x %zu", j.dim, j.dim);
    char what[96];
    snprintf(what, sizeof what, "matmul float32 (%s)", blas);
    format_rate_cell(kiln, sizeof kiln, &matmul, flops / 1e9, "GFLOP/s");
    format_rate_cell(raw, sizeof raw, &sgemm_hand, flops / 1e9, "GFLOP/s");
    snprintf(compare, sizeof compare, "%.2fx", sgemm_hand.median /
                                                  matmul.median);
    bench_table_row(what, size, kiln, raw, compare,
                    ">= 90% of cupy.matmul (cupy_compare)", "see cupy_compare");
    snprintf(size, sizeof size, "%zu M floats", random_n >> 20);
    format_rate_cell(kiln, sizeof kiln, &random, random_bytes / 1e9, "GB/s");
    format_rate_cell(raw, sizeof raw, &fill, random_bytes / 1e9, "GB/s");
    snprintf(compare, sizeof compare, "%.0f%% of write",
             100 * fill.median / random.median);
    bench_table_row("random uniform, Philox4x32-10", size, kiln, raw, compare,
                    ">= 70% of write (fill)",
                    bench_verdict(true, fill.median / random.median >= 0.70));
    snprintf(size, sizeof size, "%zu x %zu", square_dim, square_dim);
    const bench_stats *axes[2] = {&axis0, &axis1};
    for (int axis = 0; axis < 2; ++axis) {
        format_rate_cell(kiln, sizeof kiln, axes[axis], square_bytes / 1e9,
                         "GB/s");
        format_rate_cell(raw, sizeof raw, &copy, 2 * bytes / 1e9, "GB/s");
        double share = square_bytes / axes[axis]->median / copy_bandwidth;
        snprintf(compare, sizeof compare, "%.0f%% of copy", 100 * share);
        snprintf(what, sizeof what, "sum along axis %d", axis);
        bench_table_row(what, size, kiln, raw, compare, ">= 70% of copy",
                        bench_verdict(true, share >= 0.70));
    }
    bench_table_end();
    bench_note("matmul ran on %s; the hand-written SGEMM is bench_kernels'",
               blas);

    /* the host's cost of a call */
    bench_progress("host time per call");
    const size_t one[] = {1}, one_by_one[] = {1, 1};
    BENCH_CHECK(kiln_array_ones(env.context, KILN_DTYPE_FLOAT32, 1, one, NULL,
                                &j.tiny));
    BENCH_CHECK(kiln_array_ones(env.context, KILN_DTYPE_FLOAT32, 2,
                                one_by_one, NULL, &j.tiny_square));
    bench_stats tiny_add = measure_host(&j, run_tiny_add);
    j.summed = j.tiny_square;
    j.axis = 0;
    bench_stats tiny_axis = measure_host(&j, run_axis_sum);
    bench_stats tiny_random = measure_host(&j, run_tiny_random);
    /* The two paths of the 4096 x 4096 axis sums, on 2048 x 2 floats so
     * that the host, not the device, sets the pace: along axis 0 the
     * column kernel with the axis split (two launches and a partials
     * buffer), along axis 1 the row kernel in one launch (rows enough to
     * fill the device: 64 on a CPU, where 2048 take milliseconds). */
    const size_t narrow_shape[] = {small ? 64 : 2048, 2};
    char narrow_size[32];
    snprintf(narrow_size, sizeof narrow_size, "%zu x 2", narrow_shape[0]);
    BENCH_CHECK(kiln_array_ones(env.context, KILN_DTYPE_FLOAT32, 2,
                                narrow_shape, NULL, &j.narrow));
    j.summed = j.narrow;
    j.axis = 0;
    bench_stats narrow_axis0 = measure_host(&j, run_axis_sum);
    j.axis = 1;
    bench_stats narrow_axis1 = measure_host(&j, run_axis_sum);
    bench_table_begin("Host time per call (small arrays)", "none");
    const struct {
        const char *what, *shape;
        const bench_stats *stats;
    } tiny_rows[] = {
        {"kiln_array_binary(KILN_OP_ADD)", "1", &tiny_add},
        {"kiln_array_reduce_axis(KILN_REDUCE_SUM)", "1 x 1", &tiny_axis},
        {"kiln_array_reduce_axis(KILN_REDUCE_SUM), axis 0 (split: two "
         "launches)", narrow_size, &narrow_axis0},
        {"kiln_array_reduce_axis(KILN_REDUCE_SUM), axis 1 (one launch)",
         narrow_size, &narrow_axis1},
        {"kiln_array_random_uniform", "1", &tiny_random},
    };
    for (size_t i = 0; i < sizeof tiny_rows / sizeof tiny_rows[0]; ++i) {
        bench_format_time(kiln, sizeof kiln, tiny_rows[i].stats);
        snprintf(size, sizeof size, "%s, %d calls", tiny_rows[i].shape,
                 TINY_CALLS);
        bench_table_row(tiny_rows[i].what, size, kiln, "—", "—",
                        "watch (no budget)", "—");
    }
    bench_table_end();
    bench_note("host clock from the first call to the return of the last, "
               "none waiting; each generates its kernel source and builds it "
               "through the program cache (a memory-cache hit)");
    if (small)
        bench_note("on a CPU device the axis-1 row is the device's time: "
                   "the host waits for the pool's blocks, each row being a "
                   "work-group of %d work-items", 256);
    kiln_array_release(j.tiny);
    kiln_array_release(j.tiny_square);
    kiln_array_release(j.narrow);

    kiln_array_release(j.matrix_a);
    kiln_array_release(j.matrix_b);
    kiln_array_release(j.product);
    kiln_array_release(j.square);
    kiln_reduction_release(j.sumsq);
    kiln_elementwise_release(j.saxpy);
    kiln_kernel_release(j.hand_sumsq);
    kiln_kernel_release(j.hand_saxpy);
    kiln_kernel_release(j.hand_sgemm);
    kiln_program_release(program);
    kiln_buffer_release(j.x);
    kiln_buffer_release(j.y);
    kiln_buffer_release(j.copy_target);
    kiln_buffer_release(j.partial);
    kiln_buffer_release(j.done);
    kiln_buffer_release(j.result);
    kiln_event_release(j.start);
    kiln_event_release(j.end);
    free(host);
    bench_close(&env);
    return EXIT_SUCCESS;
}
