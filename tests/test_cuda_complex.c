/*
 * cuComplex.h and math_constants.h (tests/kernels/cuda/complex.cu) on
 * every backend: natively on CUDA (the toolkit's headers), through the
 * translator's own (translate/cuda_headers.c) on OpenCL.  The reference
 * computes CUDA's formulas in the same precision: the scaled division and
 * modulus on operands scaled far past where the naive formulas overflow
 * (1e30 for float, 1e300 for double) or underflow, so a device that used
 * them would give infinities, zeros or NaN.  Random inputs, never zero.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY(type, count) \
    ((type *)test_temp_alloc((size_t)(count) * sizeof(type)))

/* ---- CUDA's formulas, as cuComplex.h computes them ------------------------------ */

static void div_f(float xr, float xi, float yr, float yi, float *re, float *im)
{
    float scale = 1.0f / (fabsf(yr) + fabsf(yi));
    float ar = xr * scale, ai = xi * scale, br = yr * scale, bi = yi * scale;
    float inverse = 1.0f / (br * br + bi * bi);
    *re = (ar * br + ai * bi) * inverse;
    *im = (ai * br - ar * bi) * inverse;
}

static float abs_f(float re, float im)
{
    float a = fabsf(re), b = fabsf(im);
    float large = a > b ? a : b, small = a > b ? b : a;
    float t = small / large;
    float r = large * sqrtf(1.0f + t * t);
    if (large == 0.0f || large > 3.402823466e38f || small > 3.402823466e38f)
        r = large + small;
    return r;
}

static void div_d(double xr, double xi, double yr, double yi, double *re,
                  double *im)
{
    double scale = 1.0 / (fabs(yr) + fabs(yi));
    double ar = xr * scale, ai = xi * scale, br = yr * scale, bi = yi * scale;
    double inverse = 1.0 / (br * br + bi * bi);
    *re = (ar * br + ai * bi) * inverse;
    *im = (ai * br - ar * bi) * inverse;
}

static double abs_d(double re, double im)
{
    double a = fabs(re), b = fabs(im);
    double large = a > b ? a : b, small = a > b ? b : a;
    double t = small / large;
    double r = large * sqrt(1.0 + t * t);
    if (large == 0.0 || large > 1.79769313486231570e+308 ||
        small > 1.79769313486231570e+308)
        r = large + small;
    return r;
}

/* |actual - expected| within `relative` of `scale` (the operands' size:
 * a sum of products may cancel, a device may fuse a multiply-add). */
static void expect_near(const char *what, size_t i, double actual,
                        double expected, double scale, double relative)
{
    if (!(fabs(actual - expected) <= relative * scale + 1e-300))
        fail_msg("%s[%zu] = %.17g, expected %.17g", what, i, actual, expected);
}

/* ---- float ------------------------------------------------------------------------- */

/* The scale of element i: 1, huge or tiny, so that |s y|^2 overflows or
 * underflows in float. */
static float scale_f(int i)
{
    return i % 3 == 0 ? 1.0f : i % 3 == 1 ? 1e30f : 1e-30f;
}

static void test_complex_float(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_temp_program_file(
        context, "tests/kernels/cuda/complex.cu", KILN_LANGUAGE_CUDA_C);
    kiln_kernel *kernel = test_temp_kernel(program, "complex_float");
    enum { N = 311 };
    float *a = ARRAY(float, 2 * N), *b = ARRAY(float, 2 * N), *s = ARRAY(float, N);
    float *out = ARRAY(float, 12 * N), *mag = ARRAY(float, 2 * N);
    test_random_floats(a, 2 * N, -4.0f, 4.0f);
    test_random_floats(b, 2 * N, -4.0f, 4.0f);
    for (int i = 0; i < N; ++i)
        s[i] = scale_f(i);
    kiln_buffer *a_b = test_temp_buffer_from(context, a, 2 * N * sizeof *a);
    kiln_buffer *b_b = test_temp_buffer_from(context, b, 2 * N * sizeof *b);
    kiln_buffer *s_b = test_temp_buffer_from(context, s, N * sizeof *s);
    kiln_buffer *out_b = test_temp_buffer(context, 12 * N * sizeof *out);
    kiln_buffer *mag_b = test_temp_buffer(context, 2 * N * sizeof *mag);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(a_b), KILN_ARG_BUFFER(b_b), KILN_ARG_BUFFER(s_b),
                KILN_ARG_BUFFER(out_b), KILN_ARG_BUFFER(mag_b), KILN_ARG_INT(N));
    test_read(out_b, out, 12 * N * sizeof *out);
    test_read(mag_b, mag, 2 * N * sizeof *mag);
    for (int i = 0; i < N; ++i) {
        float xr = a[2 * i], xi = a[2 * i + 1], yr = b[2 * i], yi = b[2 * i + 1];
        const float *o = out + 12 * i;
        double size = fabs(xr) + fabs(xi) + fabs(yr) + fabs(yi);
        double product = size * size;
        expect_near("cuCaddf", i, o[0], xr + yr, size, 1e-6);
        expect_near("cuCaddf.y", i, o[1], xi + yi, size, 1e-6);
        expect_near("cuCsubf(conj)", i, o[2], xr - yr, size, 1e-6);
        expect_near("cuCsubf(conj).y", i, o[3], xi + yi, size, 1e-6);
        expect_near("cuCmulf", i, o[4], xr * yr - xi * yi, product, 1e-6);
        expect_near("cuCmulf.y", i, o[5], xr * yi + xi * yr, product, 1e-6);
        float qr, qi;
        div_f(s[i] * xr, s[i] * xi, s[i] * yr, s[i] * yi, &qr, &qi);
        /* as exact a quotient as double gives: the scaling kept it */
        double dd = (double)yr * yr + (double)yi * yi;
        double er = ((double)xr * yr + (double)xi * yi) / dd;
        double ei = ((double)xi * yr - (double)xr * yi) / dd;
        double qsize = sqrt(((double)xr * xr + (double)xi * xi) / dd);
        expect_near("cuCdivf", i, o[6], qr, qsize, 4e-6);
        expect_near("cuCdivf.y", i, o[7], qi, qsize, 4e-6);
        expect_near("cuCdivf (exact)", i, o[6], er, qsize, 1e-4);
        expect_near("cuCdivf.y (exact)", i, o[7], ei, qsize, 1e-4);
        expect_near("cuCfmaf", i, o[8], xr * yr + xr - xi * yi, product + size, 1e-6);
        expect_near("cuCfmaf.y", i, o[9], xr * yi + 1.0f + xi * yr, product + size, 1e-6);
        double angle = -2.0 * 3.14159265358979 * i / N;
        expect_near("twiddle", i, o[10], xr * cos(angle) - xi * sin(angle), size, 2e-6);
        expect_near("twiddle.y", i, o[11], xr * sin(angle) + xi * cos(angle), size, 2e-6);
        float m = abs_f(s[i] * xr, s[i] * xi);
        expect_near("cuCabsf", i, mag[2 * i], m, m, 4e-7); /* a fused 1 + t * t */
        expect_near("cuCabsf (exact)", i, mag[2 * i],
                    (double)s[i] * sqrt((double)xr * xr + (double)xi * xi), m, 1e-6);
        if (mag[2 * i + 1] != 1.0f)
            fail_msg("cuCabsf(0) + (cuCabsf(inf, y) == CUDART_INF_F) = %g, "
                     "expected 1",
                     (double)mag[2 * i + 1]);
    }
}

/* ---- double ------------------------------------------------------------------------ */

static void test_complex_double(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info info;
    TEST_OK(kiln_context_get_device_info(context, &info));
    if (!info.supports_double)
        skip();
    kiln_program *program = test_temp_program_file(
        context, "tests/kernels/cuda/complex.cu", KILN_LANGUAGE_CUDA_C);
    kiln_kernel *kernel = test_temp_kernel(program, "complex_double");
    enum { N = 263 };
    double *a = ARRAY(double, 2 * N), *b = ARRAY(double, 2 * N),
           *s = ARRAY(double, N);
    double *out = ARRAY(double, 10 * N), *mag = ARRAY(double, N);
    test_random_doubles(a, 2 * N, -4.0, 4.0);
    test_random_doubles(b, 2 * N, -4.0, 4.0);
    for (int i = 0; i < N; ++i)
        s[i] = i % 3 == 0 ? 1.0 : i % 3 == 1 ? 1e300 : 1e-300;
    kiln_buffer *a_b = test_temp_buffer_from(context, a, 2 * N * sizeof *a);
    kiln_buffer *b_b = test_temp_buffer_from(context, b, 2 * N * sizeof *b);
    kiln_buffer *s_b = test_temp_buffer_from(context, s, N * sizeof *s);
    kiln_buffer *out_b = test_temp_buffer(context, 10 * N * sizeof *out);
    kiln_buffer *mag_b = test_temp_buffer(context, N * sizeof *mag);
    TEST_LAUNCH(kernel, KILN_DIM1(test_blocks(N, 64)), KILN_DIM1(64), 0,
                KILN_ARG_BUFFER(a_b), KILN_ARG_BUFFER(b_b), KILN_ARG_BUFFER(s_b),
                KILN_ARG_BUFFER(out_b), KILN_ARG_BUFFER(mag_b), KILN_ARG_INT(N));
    test_read(out_b, out, 10 * N * sizeof *out);
    test_read(mag_b, mag, N * sizeof *mag);
    for (int i = 0; i < N; ++i) {
        double xr = a[2 * i], xi = a[2 * i + 1], yr = b[2 * i], yi = b[2 * i + 1];
        const double *o = out + 10 * i;
        double size = fabs(xr) + fabs(xi) + fabs(yr) + fabs(yi);
        double product = size * size + size;
        expect_near("cuCadd(conj)", i, o[0], xr + yr, size, 1e-15);
        expect_near("cuCadd(conj).y", i, o[1], xi - yi, size, 1e-15);
        expect_near("cuCmul - y", i, o[2], xr * yr - xi * yi - yr, product, 1e-15);
        expect_near("cuCmul - y (.y)", i, o[3], xr * yi + xi * yr - yi, product, 1e-15);
        double qr, qi;
        div_d(s[i] * xr, s[i] * xi, s[i] * yr, s[i] * yi, &qr, &qi);
        double qsize = sqrt((xr * xr + xi * xi) / (yr * yr + yi * yi));
        expect_near("cuCdiv", i, o[4], qr, qsize, 1e-14);
        expect_near("cuCdiv.y", i, o[5], qi, qsize, 1e-14);
        expect_near("cuCfma", i, o[6], xr * yr + 0.5 - xi * yi, product, 1e-15);
        expect_near("cuCfma.y", i, o[7], xr * yi - 0.25 + xi * yr, product, 1e-15);
        float nr = (float)xr, ni = (float)xi;
        if (o[8] != (double)nr || o[9] != 3.1415926535897931 * (double)ni)
            fail_msg("cuComplexDoubleToFloat[%d] = (%.17g, %.17g), expected "
                     "(%.17g, %.17g)",
                     i, o[8], o[9], (double)nr, 3.1415926535897931 * (double)ni);
        double m = abs_d(s[i] * xr, s[i] * xi);
        expect_near("cuCabs", i, mag[i], m, m, 2e-15);
        if (!(mag[i] > 0.0 && mag[i] < INFINITY))
            fail_msg("cuCabs[%d] = %g: the scaling did not hold", i, mag[i]);
    }
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_complex_float),
        KILN_TEST(test_complex_double),
    };
    return kiln_test_main("cuda_complex", tests, sizeof tests / sizeof tests[0]);
}
