// cuComplex.h and math_constants.h as signal-processing code uses them
// (tests/test_cuda_complex.c): CUDA's complex float2/double2 arithmetic,
// its scaled division and modulus (operands scaled by `s` far past where
// the naive formulas overflow or underflow), fused multiply-add, and a
// twiddle factor from CUDART_PI_F.
#include <cuComplex.h>
#include <math_constants.h>

extern "C" __global__ void complex_float(const cuFloatComplex *a,
                                         const cuFloatComplex *b,
                                         const float *s, cuFloatComplex *out,
                                         float *mag, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    cuFloatComplex x = a[i], y = b[i];
    cuComplex d = make_cuComplex(cuCrealf(x), 1.0f);
    out[6 * i + 0] = cuCaddf(x, y);
    out[6 * i + 1] = cuCsubf(x, cuConjf(y));
    out[6 * i + 2] = cuCmulf(x, y);
    out[6 * i + 3] = cuCdivf(make_cuFloatComplex(s[i] * x.x, s[i] * x.y),
                             make_cuFloatComplex(s[i] * y.x, s[i] * y.y));
    out[6 * i + 4] = cuCfmaf(x, y, d);
    float angle = -2.0f * CUDART_PI_F * (float)i / (float)n;
    out[6 * i + 5] = cuCmulf(x, make_cuFloatComplex(cosf(angle), sinf(angle)));
    mag[2 * i] = cuCabsf(make_cuFloatComplex(s[i] * x.x, s[i] * x.y));
    mag[2 * i + 1] = cuCabsf(make_cuFloatComplex(0.0f, 0.0f)) +
                     (cuCabsf(make_cuFloatComplex(CUDART_INF_F, y.y)) ==
                      CUDART_INF_F ? 1.0f : 0.0f);
}

extern "C" __global__ void complex_double(const cuDoubleComplex *a,
                                          const cuDoubleComplex *b,
                                          const double *s,
                                          cuDoubleComplex *out, double *mag,
                                          int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    cuDoubleComplex x = a[i], y = b[i];
    out[5 * i + 0] = cuCadd(x, cuConj(y));
    out[5 * i + 1] = cuCsub(cuCmul(x, y), y);
    out[5 * i + 2] = cuCdiv(make_cuDoubleComplex(s[i] * cuCreal(x), s[i] * cuCimag(x)),
                            make_cuDoubleComplex(s[i] * cuCreal(y), s[i] * cuCimag(y)));
    out[5 * i + 3] = cuCfma(x, y, cuComplexFloatToDouble(make_cuFloatComplex(0.5f, -0.25f)));
    cuFloatComplex narrow = cuComplexDoubleToFloat(x);
    out[5 * i + 4] = make_cuDoubleComplex(cuCrealf(narrow), CUDART_PI * cuCimagf(narrow));
    mag[i] = cuCabs(make_cuDoubleComplex(s[i] * cuCreal(x), s[i] * cuCimag(x)));
}
