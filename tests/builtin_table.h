/*
 * Table-driven tests of a kernel language's built-in functions against a
 * CPU model of their documented meaning (issue 29): CUDA's intrinsics and
 * math library (tests/test_cuda_intrinsics.c), OpenCL C's built-ins
 * (tests/test_opencl_builtins.c).  Each row is a statement computing `r`
 * from the inputs a[i], b[i], c[i]; the runner gathers the rows into one
 * program (a kernel per signature, a switch on the row), runs it on every
 * backend with the same inputs (the row's special values, then random
 * ones from its domain) and compares each result with the model: integers
 * exactly, floating point within the row's error bound, NaN for NaN.
 */
#ifndef KILN_TEST_BUILTIN_TABLE_H
#define KILN_TEST_BUILTIN_TABLE_H

#include "harness.h"

#include <stdint.h>

typedef enum builtin_type {
    BT_NONE = 0,
    BT_F32,
    BT_F64,
    BT_I32,
    BT_U32,
    BT_I64,
    BT_U64
} builtin_type;

typedef union builtin_value {
    float f;
    double d;
    int32_t i;
    uint32_t u;
    int64_t l;
    uint64_t ul;
} builtin_value;

/* Random inputs: uniform in [low, high] (integers: whole numbers of the
 * type; BT_F32/F64 with `log_scale`: magnitudes spread over the decades
 * between low and high, either sign when low < 0). */
typedef struct builtin_domain {
    double low, high;
    int log_scale;
} builtin_domain;

typedef void (*builtin_model)(const builtin_value *in, builtin_value *out);

typedef struct builtin_case {
    const char *name;        /* the function checked, for messages       */
    const char *body;        /* sets r from a[i], b[i], c[i] (i: int)    */
    builtin_type out;
    builtin_type in[3];      /* BT_NONE past the last input               */
    builtin_domain domain[3];
    builtin_model model;
    /* floating-point results: the largest error, in units in the last
     * place of the model's result, and an absolute bound that also
     * passes (0: none); 0 and 0: exact */
    double ulps;
    double absolute;
    /* the inputs the model's bound holds for (the fast intrinsics' error
     * is documented on [-pi, pi] only): inputs outside are not compared */
    double valid_low, valid_high;
} builtin_case;

typedef enum builtin_language {
    BUILTIN_CUDA_C,
    BUILTIN_OPENCL_C
} builtin_language;

/* Runs every case on the backend under test; fails the test listing the
 * first mismatches of each failing row.  `preamble` goes before the
 * kernels (helpers, pragmas). */
void builtin_table_run(void **state, builtin_language language,
                       const char *preamble, const builtin_case *cases,
                       size_t count);

/* The distance in units in the last place between two floats/doubles
 * (0 for equal values, both NaN, or both zero). */
double builtin_ulps_f32(float got, float want);
double builtin_ulps_f64(double got, double want);

#endif
