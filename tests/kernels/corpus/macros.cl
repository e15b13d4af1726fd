/*
 * Kernels built by the preprocessor: a function-like macro instantiates one
 * kernel per type with token pasting, object-like macros come from the
 * build options (-D in the option string and kiln_build_options.defines),
 * and #if selects code.
 */

#ifndef FACTOR
#error "FACTOR must be defined by the build (kiln_build_options.defines)"
#endif
#ifndef OFFSET
#define OFFSET 0
#endif

#define SQUARE(x) ((x) * (x))
#define AT(base, row, col, width) ((base)[(row) * (width) + (col)])

/* y[i] = FACTOR * x[i] + OFFSET + x[i]^2, for several element types. */
#define DEFINE_AFFINE_SQUARE(T)                                              \
    __kernel void affine_square_##T(__global const T *x, __global T *y,     \
                                    int n)                                  \
    {                                                                        \
        int i = (int)get_global_id(0);                                       \
        if (i < n)                                                           \
            y[i] = (T)FACTOR * x[i] + (T)OFFSET + SQUARE(x[i]);              \
    }

DEFINE_AFFINE_SQUARE(float)
DEFINE_AFFINE_SQUARE(int)
DEFINE_AFFINE_SQUARE(uint)

/* A 2-D index macro and conditional compilation. */
__kernel void row_sums(__global const int *matrix, __global int *sums,
                       int rows, int cols)
{
    int r = (int)get_global_id(0);
    if (r >= rows)
        return;
    int total = 0;
    for (int c = 0; c < cols; ++c)
#if FACTOR > 1
        total += AT(matrix, r, c, cols) * FACTOR;
#else
        total += AT(matrix, r, c, cols);
#endif
    sums[r] = total;
}
