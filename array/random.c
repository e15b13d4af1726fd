/*
 * Random arrays from Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel
 * random numbers: as easy as 1, 2, 3", SC'11).  Block b of four 32-bit
 * numbers is the Philox bijection of the counter (counter + b) under the
 * key `seed`: a pure function, so each work-item computes its own block
 * and every device computes the same numbers.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Philox4x32's multipliers and Weyl key increments, and ten rounds. */
static const char philox_source[] =
    "#define KILN_PHILOX_M0 0xD2511F53u\n"
    "#define KILN_PHILOX_M1 0xCD9E8D57u\n"
    "#define KILN_PHILOX_W0 0x9E3779B9u\n"
    "#define KILN_PHILOX_W1 0xBB67AE85u\n"
    "/* round r: the key is the seed plus r Weyl increments */\n"
    "#define KILN_PHILOX_ROUND(r) {                                          \\\n"
    "        uint hi0 = mul_hi(KILN_PHILOX_M0, c.x), lo0 = KILN_PHILOX_M0 * c.x; \\\n"
    "        uint hi1 = mul_hi(KILN_PHILOX_M1, c.z), lo1 = KILN_PHILOX_M1 * c.z; \\\n"
    "        c = (uint4)(hi1 ^ c.y ^ (k.x + (r) * KILN_PHILOX_W0), lo1,      \\\n"
    "                    hi0 ^ c.w ^ (k.y + (r) * KILN_PHILOX_W1), lo0); }\n"
    "uint4 kiln_philox(uint4 c, uint2 k)\n"
    "{\n"
    "    KILN_PHILOX_ROUND(0u) KILN_PHILOX_ROUND(1u) KILN_PHILOX_ROUND(2u)\n"
    "    KILN_PHILOX_ROUND(3u) KILN_PHILOX_ROUND(4u) KILN_PHILOX_ROUND(5u)\n"
    "    KILN_PHILOX_ROUND(6u) KILN_PHILOX_ROUND(7u) KILN_PHILOX_ROUND(8u)\n"
    "    KILN_PHILOX_ROUND(9u)\n"
    "    return c;\n"
    "}\n";

/* Work-item `block` turns its block into PER_BLOCK values: four floats of 24
 * random bits, or two doubles of 53.  Normal values come in Box-Muller
 * pairs from two uniform ones (the first moved to (0, 1] for the log). */
static const char random_kernel_source[] =
    "/* [a, b): a + (b - a) u rounds to b for u near 1 (1 + (1 - 2^-24) is\n"
    " * 2.0f); such a value becomes the largest below b */\n"
    "REAL kiln_below(REAL v, REAL a, REAL b)\n"
    "{\n"
    "    return v < b ? v : (b > a ? nextafter(b, a) : a);\n"
    "}\n"
    "__kernel void kiln_random(__global REAL *out, long offset, long n,\n"
    "                          ulong seed, ulong counter, REAL a, REAL b)\n"
    "{\n"
    "    const uint2 key = (uint2)((uint)seed, (uint)(seed >> 32));\n"
    "    const long blocks = (n + PER_BLOCK - 1) / PER_BLOCK;\n"
    "    const long block = get_global_id(0);\n"
    "    if (block < blocks) {\n"
    "        const ulong c = counter + (ulong)block;\n"
    "        uint4 r = kiln_philox((uint4)((uint)c, (uint)(c >> 32), 0u, 0u), key);\n"
    "        REAL u[PER_BLOCK];\n"
    "#if PER_BLOCK == 4\n"
    "        u[0] = (REAL)(r.x >> 8) * 0x1.0p-24f;\n"
    "        u[1] = (REAL)(r.y >> 8) * 0x1.0p-24f;\n"
    "        u[2] = (REAL)(r.z >> 8) * 0x1.0p-24f;\n"
    "        u[3] = (REAL)(r.w >> 8) * 0x1.0p-24f;\n"
    "#else\n"
    "        u[0] = (REAL)(((ulong)(r.x >> 5) << 26) | (r.y >> 6)) * 0x1.0p-53;\n"
    "        u[1] = (REAL)(((ulong)(r.z >> 5) << 26) | (r.w >> 6)) * 0x1.0p-53;\n"
    "#endif\n"
    "        REAL v[PER_BLOCK];\n"
    "        for (int k = 0; k < PER_BLOCK; k += 2) {\n"
    "#if NORMAL\n"
    "            REAL radius = sqrt((REAL)-2 * log((REAL)1 - u[k]));\n"
    "            REAL angle = (REAL)6.283185307179586 * u[k + 1];\n"
    "            v[k] = a + b * radius * cos(angle);\n"
    "            v[k + 1] = a + b * radius * sin(angle);\n"
    "#else\n"
    "            v[k] = kiln_below(a + (b - a) * u[k], a, b);\n"
    "            v[k + 1] = kiln_below(a + (b - a) * u[k + 1], a, b);\n"
    "#endif\n"
    "        }\n"
    "        const long first = block * PER_BLOCK;\n"
    "        if (first + PER_BLOCK <= n) {\n"
    "            /* one 16-byte store: the array is new, so aligned */\n"
    "#if PER_BLOCK == 4\n"
    "            vstore4((REAL4)(v[0], v[1], v[2], v[3]), block, out + offset);\n"
    "#else\n"
    "            vstore2((REAL2)(v[0], v[1]), block, out + offset);\n"
    "#endif\n"
    "        } else {\n"
    "            for (int k = 0; first + k < n; ++k)\n"
    "                out[offset + first + k] = v[k];\n"
    "        }\n"
    "    }\n"
    "}\n";

/* The parameters a distribution takes, in the dtype it is drawn in:
 * uniform, finite low <= high whose span the dtype holds; normal, a
 * finite mean and a finite standard deviation of 0 or more. */
static kiln_status check_parameters(const char *function, kiln_dtype dtype,
                                    double a, double b, bool normal)
{
    double largest = dtype == KILN_DTYPE_FLOAT32 ? FLT_MAX : DBL_MAX;
    const char *names[2] = {normal ? "mean" : "low",
                            normal ? "stddev" : "high"};
    const double values[2] = {a, b};
    for (int k = 0; k < 2; ++k)
        if (!(fabs(values[k]) <= largest))
            return array_error(KILN_ERR_INVALID_ARGUMENT,
                               "%s: %s = %g is not a finite %s", function,
                               names[k], values[k], kiln_dtype_name(dtype));
    if (normal && b < 0)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: stddev = %g is negative", function, b);
    if (!normal && a > b)
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: low = %g is more than high = %g", function, a,
                           b);
    if (!normal && !(b - a <= largest))
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: high - low = %g is more than a %s holds",
                           function, b - a, kiln_dtype_name(dtype));
    return KILN_OK;
}

static kiln_status random_array(const char *function, kiln_random *random,
                                kiln_context *context, kiln_dtype dtype,
                                size_t ndim, const size_t *shape, double a,
                                double b, bool normal, kiln_stream *stream,
                                kiln_array **array)
{
    if (random == NULL || array == NULL)
        return array_error(KILN_ERR_INVALID_ARGUMENT, "%s: %s is NULL",
                           function, random ? "array" : "random");
    if (dtype != KILN_DTYPE_FLOAT32 && dtype != KILN_DTYPE_FLOAT64)
        return array_error(KILN_ERR_DTYPE,
                           "%s: random numbers are float32 or float64, not "
                           "%s",
                           function, kiln_dtype_name(dtype));
    kiln_status status = check_parameters(function, dtype, a, b, normal);
    if (status != KILN_OK)
        return status;
    kiln_array *made = NULL;
    status = array_new(context, dtype, ndim, shape, function, &made);
    if (status != KILN_OK)
        return status;
    const int per_block = dtype == KILN_DTYPE_FLOAT32 ? 4 : 2;
    size_t blocks = made->size / (size_t)per_block +
                    (made->size % (size_t)per_block != 0);
    /* Philox's counter is 64 bits here: past its end the numbers would
     * start again from block 0 */
    if (blocks > UINT64_MAX - random->counter) {
        array_release_array(made);
        return array_error(KILN_ERR_INVALID_ARGUMENT,
                           "%s: %zu blocks from counter %llu would wrap the "
                           "generator's 64-bit counter and repeat its "
                           "numbers; start from another seed or counter",
                           function, blocks,
                           (unsigned long long)random->counter);
    }
    if (blocks > 0) {
        array_text source = {0};
        array_text_add(&source,
                       ARRAY_SOURCE_HEADER
                       "#define REAL %1$s\n#define REAL2 %1$s2\n"
                       "#define REAL4 %1$s4\n#define PER_BLOCK %2$d\n"
                       "#define NORMAL %3$d\n%4$s%5$s",
                       array_dtype_ctype(dtype), per_block, normal ? 1 : 0,
                       philox_source, random_kernel_source);
        kiln_kernel *kernel = NULL;
        status =
            array_kernel_build_text(context, &source, "kiln_random", &kernel);
        if (status == KILN_OK) {
            array_scalar slots[2];
            const kiln_arg args[] = {
                KILN_ARG_BUFFER(made->buffer),
                KILN_ARG_LONG(0),
                KILN_ARG_LONG((int64_t)made->size),
                KILN_ARG_ULONG(random->seed),
                KILN_ARG_ULONG(random->counter),
                array_scalar_arg(dtype, a, &slots[0]),
                array_scalar_arg(dtype, b, &slots[1]),
            };
            /* one work-item per block */
            status = array_launch_1d(kernel, blocks, ((size_t)1 << 31) - 1,
                                     stream, 7, args);
            array_release_kernel(kernel);
        }
        if (status != KILN_OK) {
            array_release_array(made);
            return array_error_prefix(status, "%s", function);
        }
    }
    random->counter += blocks;
    *array = made;
    return kiln_error_set(KILN_OK, NULL);
}

kiln_status kiln_array_random_uniform(kiln_random *random,
                                      kiln_context *context, kiln_dtype dtype,
                                      size_t ndim, const size_t *shape,
                                      double low, double high,
                                      kiln_stream *stream, kiln_array **array)
{
    return random_array("kiln_array_random_uniform", random, context, dtype,
                        ndim, shape, low, high, false, stream, array);
}

kiln_status kiln_array_random_normal(kiln_random *random,
                                     kiln_context *context, kiln_dtype dtype,
                                     size_t ndim, const size_t *shape,
                                     double mean, double stddev,
                                     kiln_stream *stream, kiln_array **array)
{
    return random_array("kiln_array_random_normal", random, context, dtype,
                        ndim, shape, mean, stddev, true, stream, array);
}
