/*
 * CUDA's device headers that are plain C (cuComplex.h, math_constants.h),
 * written for the OpenCL translation in the CUDA C it translates: an
 * #include of one reads this text (cuda_headers_read), so its types and
 * functions are the program's own and go through the pass like them.
 * Only when translating: a program built by NVRTC includes the toolkit's.
 *
 * cuComplex.h: a complex number is CUDA's float2 (double2), its real part
 * x.  Every function computes with the same operations in the same order
 * as CUDA's, so the results are CUDA's: division scales both operands by
 * 1 / (|re| + |im|) of the divisor first; the modulus divides the smaller
 * magnitude by the larger and takes the larger times sqrt(1 + t * t),
 * with their sum for 0, infinities and NaN; cuCfma adds the four products
 * in CUDA's order.
 */
#include "cuda_to_opencl.h"

#include <stdlib.h>
#include <string.h>

static const char cu_complex_h[] =
    "#ifndef __KILN_CUCOMPLEX_H\n"
    "#define __KILN_CUCOMPLEX_H\n"
    "typedef float2 cuFloatComplex;\n"
    "typedef double2 cuDoubleComplex;\n"
    "typedef cuFloatComplex cuComplex;\n"
    /* single precision */
    "static __device__ __forceinline__ float cuCrealf(cuFloatComplex z) { return z.x; }\n"
    "static __device__ __forceinline__ float cuCimagf(cuFloatComplex z) { return z.y; }\n"
    "static __device__ __forceinline__ cuFloatComplex make_cuFloatComplex(float re, float im)\n"
    "{ cuFloatComplex z; z.x = re; z.y = im; return z; }\n"
    "static __device__ __forceinline__ cuComplex make_cuComplex(float re, float im)\n"
    "{ return make_cuFloatComplex(re, im); }\n"
    "static __device__ __forceinline__ cuFloatComplex cuConjf(cuFloatComplex z)\n"
    "{ return make_cuFloatComplex(z.x, -z.y); }\n"
    "static __device__ __forceinline__ cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b)\n"
    "{ return make_cuFloatComplex(a.x + b.x, a.y + b.y); }\n"
    "static __device__ __forceinline__ cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b)\n"
    "{ return make_cuFloatComplex(a.x - b.x, a.y - b.y); }\n"
    "static __device__ __forceinline__ cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b)\n"
    "{ return make_cuFloatComplex((a.x * b.x) - (a.y * b.y), (a.x * b.y) + (a.y * b.x)); }\n"
    "static __device__ __forceinline__ cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b)\n"
    "{\n"
    "    float scale = 1.0f / (fabsf(b.x) + fabsf(b.y));\n"
    "    float ar = a.x * scale, ai = a.y * scale;\n"
    "    float br = b.x * scale, bi = b.y * scale;\n"
    "    float inverse = 1.0f / ((br * br) + (bi * bi));\n"
    "    return make_cuFloatComplex(((ar * br) + (ai * bi)) * inverse,\n"
    "                               ((ai * br) - (ar * bi)) * inverse);\n"
    "}\n"
    "static __device__ __forceinline__ float cuCabsf(cuFloatComplex z)\n"
    "{\n"
    "    float re = fabsf(z.x), im = fabsf(z.y);\n"
    "    float large = re > im ? re : im, small = re > im ? im : re;\n"
    "    float t = small / large;\n"
    "    float r = large * sqrtf(1.0f + t * t);\n"
    "    if (large == 0.0f || large > 3.402823466e38f || small > 3.402823466e38f)\n"
    "        r = large + small;\n"
    "    return r;\n"
    "}\n"
    "static __device__ __forceinline__ cuFloatComplex cuCfmaf(cuFloatComplex a, cuFloatComplex b,\n"
    "                                                        cuFloatComplex d)\n"
    "{\n"
    "    float re = (a.x * b.x) + d.x, im = (a.x * b.y) + d.y;\n"
    "    re = -(a.y * b.y) + re;\n"
    "    im = (a.y * b.x) + im;\n"
    "    return make_cuFloatComplex(re, im);\n"
    "}\n"
    /* double precision */
    "static __device__ __forceinline__ double cuCreal(cuDoubleComplex z) { return z.x; }\n"
    "static __device__ __forceinline__ double cuCimag(cuDoubleComplex z) { return z.y; }\n"
    "static __device__ __forceinline__ cuDoubleComplex make_cuDoubleComplex(double re, double im)\n"
    "{ cuDoubleComplex z; z.x = re; z.y = im; return z; }\n"
    "static __device__ __forceinline__ cuDoubleComplex cuConj(cuDoubleComplex z)\n"
    "{ return make_cuDoubleComplex(z.x, -z.y); }\n"
    "static __device__ __forceinline__ cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b)\n"
    "{ return make_cuDoubleComplex(a.x + b.x, a.y + b.y); }\n"
    "static __device__ __forceinline__ cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b)\n"
    "{ return make_cuDoubleComplex(a.x - b.x, a.y - b.y); }\n"
    "static __device__ __forceinline__ cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b)\n"
    "{ return make_cuDoubleComplex((a.x * b.x) - (a.y * b.y), (a.x * b.y) + (a.y * b.x)); }\n"
    "static __device__ __forceinline__ cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b)\n"
    "{\n"
    "    double scale = 1.0 / (fabs(b.x) + fabs(b.y));\n"
    "    double ar = a.x * scale, ai = a.y * scale;\n"
    "    double br = b.x * scale, bi = b.y * scale;\n"
    "    double inverse = 1.0 / ((br * br) + (bi * bi));\n"
    "    return make_cuDoubleComplex(((ar * br) + (ai * bi)) * inverse,\n"
    "                                ((ai * br) - (ar * bi)) * inverse);\n"
    "}\n"
    "static __device__ __forceinline__ double cuCabs(cuDoubleComplex z)\n"
    "{\n"
    "    double re = fabs(z.x), im = fabs(z.y);\n"
    "    double large = re > im ? re : im, small = re > im ? im : re;\n"
    "    double t = small / large;\n"
    "    double r = large * sqrt(1.0 + t * t);\n"
    "    if (large == 0.0 || large > 1.79769313486231570e+308 ||\n"
    "        small > 1.79769313486231570e+308)\n"
    "        r = large + small;\n"
    "    return r;\n"
    "}\n"
    "static __device__ __forceinline__ cuDoubleComplex cuCfma(cuDoubleComplex a, cuDoubleComplex b,\n"
    "                                                        cuDoubleComplex d)\n"
    "{\n"
    "    double re = (a.x * b.x) + d.x, im = (a.x * b.y) + d.y;\n"
    "    re = -(a.y * b.y) + re;\n"
    "    im = (a.y * b.x) + im;\n"
    "    return make_cuDoubleComplex(re, im);\n"
    "}\n"
    "static __device__ __forceinline__ cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z)\n"
    "{ return make_cuDoubleComplex((double)z.x, (double)z.y); }\n"
    "static __device__ __forceinline__ cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z)\n"
    "{ return make_cuFloatComplex((float)z.x, (float)z.y); }\n"
    "#endif\n";

/* math_constants.h: CUDA's names for constants, with CUDA's values
 * (the special values by their bits, as CUDA writes them). */
static const char cu_math_constants_h[] =
    "#ifndef __KILN_MATH_CONSTANTS_H\n"
    "#define __KILN_MATH_CONSTANTS_H\n"
    "#define CUDART_INF_F __int_as_float(0x7f800000U)\n"
    "#define CUDART_NAN_F __int_as_float(0x7fffffffU)\n"
    "#define CUDART_MIN_DENORM_F __int_as_float(0x00000001U)\n"
    "#define CUDART_MAX_NORMAL_F __int_as_float(0x7f7fffffU)\n"
    "#define CUDART_NEG_ZERO_F __int_as_float(0x80000000U)\n"
    "#define CUDART_ZERO_F 0.0F\n"
    "#define CUDART_ONE_F 1.0F\n"
    "#define CUDART_SQRT_HALF_F 0.707106781F\n"
    "#define CUDART_SQRT_TWO_F 1.414213562F\n"
    "#define CUDART_THIRD_F 0.333333333F\n"
    "#define CUDART_PIO4_F 0.785398163F\n"
    "#define CUDART_PIO2_F 1.570796327F\n"
    "#define CUDART_3PIO4_F 2.356194490F\n"
    "#define CUDART_2_OVER_PI_F 0.636619772F\n"
    "#define CUDART_PI_F 3.141592654F\n"
    "#define CUDART_L2E_F 1.442695041F\n"
    "#define CUDART_L2T_F 3.321928094F\n"
    "#define CUDART_LG2_F 0.301029996F\n"
    "#define CUDART_LGE_F 0.434294482F\n"
    "#define CUDART_LN2_F 0.693147181F\n"
    "#define CUDART_LNT_F 2.302585093F\n"
    "#define CUDART_LNPI_F 1.144729886F\n"
    "#define CUDART_TWO_TO_M126_F 1.175494351e-38F\n"
    "#define CUDART_TWO_TO_126_F 8.507059173e37F\n"
    "#define CUDART_TWO_TO_23_F 8388608.0F\n"
    "#define CUDART_TWO_TO_24_F 16777216.0F\n"
    "#define CUDART_TWO_TO_31_F 2147483648.0F\n"
    "#define CUDART_TWO_TO_32_F 4294967296.0F\n"
    "#define CUDART_INF __longlong_as_double(0x7ff0000000000000ULL)\n"
    "#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)\n"
    "#define CUDART_NEG_ZERO __longlong_as_double(0x8000000000000000ULL)\n"
    "#define CUDART_MIN_DENORM __longlong_as_double(0x0000000000000001ULL)\n"
    "#define CUDART_ZERO 0.0\n"
    "#define CUDART_ONE 1.0\n"
    "#define CUDART_SQRT_TWO 1.4142135623730951e+0\n"
    "#define CUDART_SQRT_HALF 7.0710678118654757e-1\n"
    "#define CUDART_THIRD 3.3333333333333333e-1\n"
    "#define CUDART_TWOTHIRD 6.6666666666666667e-1\n"
    "#define CUDART_PIO4 7.8539816339744828e-1\n"
    "#define CUDART_PIO2 1.5707963267948966e+0\n"
    "#define CUDART_3PIO4 2.3561944901923448e+0\n"
    "#define CUDART_2_OVER_PI 6.3661977236758138e-1\n"
    "#define CUDART_PI 3.1415926535897931e+0\n"
    "#define CUDART_2PI 6.2831853071795862e+0\n"
    "#define CUDART_L2E 1.4426950408889634e+0\n"
    "#define CUDART_L2T 3.3219280948873622e+0\n"
    "#define CUDART_LG2 3.0102999566398120e-1\n"
    "#define CUDART_LGE 4.3429448190325182e-1\n"
    "#define CUDART_LN2 6.9314718055994529e-1\n"
    "#define CUDART_LNT 2.3025850929940459e+0\n"
    "#define CUDART_LNPI 1.1447298858494002e+0\n"
    "#define CUDART_TWO_TO_23 8388608.0\n"
    "#define CUDART_TWO_TO_52 4503599627370496.0\n"
    "#define CUDART_TWO_TO_53 9007199254740992.0\n"
    "#define CUDART_TWO_TO_54 18014398509481984.0\n"
    "#endif\n";

static const struct {
    const char *name;
    const char *text;
    size_t length;
} cu_headers[] = {
    {"cuComplex.h", cu_complex_h, sizeof cu_complex_h - 1},
    {"math_constants.h", cu_math_constants_h, sizeof cu_math_constants_h - 1},
};

const char *cuda_header_text(const char *name, size_t *length)
{
    for (size_t k = 0; k < sizeof cu_headers / sizeof cu_headers[0]; ++k)
        if (strcmp(name, cu_headers[k].name) == 0) {
            *length = cu_headers[k].length;
            return cu_headers[k].text;
        }
    return NULL;
}

int cuda_headers_read(void *context, const char *name, int quoted,
                      const char *includer, char **path, char **text,
                      size_t *length, char **error)
{
    const translate_include_reader *inner = context;
    /* "cuComplex.h" as well as <cuComplex.h>; a path with a directory
     * (the toolkit's, a project's own) is the reader's */
    const char *builtin = cuda_header_text(name, length);
    if (builtin == NULL)
        return inner->read(inner->context, name, quoted, includer, path, text,
                           length, error);
    *path = malloc(strlen(name) + 1);
    *text = malloc(*length + 1);
    if (*path == NULL || *text == NULL) {
        free(*path);
        free(*text);
        *path = *text = NULL;
        *error = NULL;
        return -1;
    }
    strcpy(*path, name);
    memcpy(*text, builtin, *length + 1);
    return 1;
}
