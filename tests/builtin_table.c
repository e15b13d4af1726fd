/*
 * The runner of the built-in tables (builtin_table.h).
 */
#include "builtin_table.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values per row: the specials, then random ones. */
#define ROW_VALUES 2048
#define BLOCK 128
/* Mismatches reported per row. */
#define SHOWN 4

/* ---- special values ------------------------------------------------------ */

static const float specials_f32[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 3.5f,
    0.49999997f, 0.1f, 1e-3f, 100.7f, -100.7f, 3.14159265f, -1.5707964f,
    1e10f, -1e10f, 8388609.0f, 16777216.0f,
    NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN,
    2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
    4294967040.0f, 4294967296.0f, 9223371487098961920.0f,
    9223372036854775808.0f, -9223372036854775808.0f, -9223373136366403584.0f,
    18446742974197923840.0f, 18446744073709551616.0f, -3.0e9f,
};

static const double specials_f64[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5,
    0.49999999999999994, 0.1, 1e-3, 100.7, -100.7, 3.141592653589793,
    1e10, -1e10, 4503599627370497.0,
    NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN,
    2147483647.0, 2147483647.5, 2147483648.0, -2147483648.0,
    -2147483648.5, -2147483649.0, 4294967295.5, 4294967296.0,
    9223372036854774784.0, 9223372036854775808.0, -9223372036854775808.0,
    -9223372036854777856.0, 18446744073709549568.0, 18446744073709551616.0,
    -3.0e9,
};

static const int32_t specials_i32[] = {
    0, 1, -1, 2, -2, 3, 7, 31, 32, 255, 256, 0x7fffff, 0x800000, -0x800000,
    -0x800001, 0xffffff, 0x1000000, 12345678, -12345678, 0x55555555,
    INT32_MAX, INT32_MAX - 1, INT32_MIN, INT32_MIN + 1,
};

static const uint32_t specials_u32[] = {
    0u, 1u, 2u, 3u, 31u, 32u, 255u, 256u, 0xffffffu, 0x1000000u, 0x800000u,
    0x7fffffffu, 0x80000000u, 0xff000000u, 0xfffffffeu, 0xffffffffu,
    0x12345678u, 0xdeadbeefu, 0x55555555u, 0xaaaaaaaau,
};

static const int64_t specials_i64[] = {
    0, 1, -1, 2, 63, 64, INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX,
    (int64_t)1 << 32, -((int64_t)1 << 32), INT64_MAX, INT64_MAX - 1,
    INT64_MIN, INT64_MIN + 1, (int64_t)0x123456789abcdefLL,
    -(int64_t)0x123456789abcdefLL, (int64_t)1 << 53, ((int64_t)1 << 53) + 1,
};

static const uint64_t specials_u64[] = {
    0, 1, 2, 63, 64, UINT32_MAX, (uint64_t)1 << 32, (uint64_t)INT64_MAX,
    (uint64_t)1 << 63, UINT64_MAX, UINT64_MAX - 1, 0x123456789abcdefULL,
    0xfedcba9876543210ULL, ((uint64_t)1 << 53) + 1,
};

#define COUNT(array) (sizeof array / sizeof array[0])

static size_t special_count(builtin_type type)
{
    switch (type) {
    case BT_F32: return COUNT(specials_f32);
    case BT_F64: return COUNT(specials_f64);
    case BT_I32: return COUNT(specials_i32);
    case BT_U32: return COUNT(specials_u32);
    case BT_I64: return COUNT(specials_i64);
    case BT_U64: return COUNT(specials_u64);
    default: return 0;
    }
}

static builtin_value special(builtin_type type, size_t k)
{
    builtin_value v;
    memset(&v, 0, sizeof v);
    switch (type) {
    case BT_F32: v.f = specials_f32[k]; break;
    case BT_F64: v.d = specials_f64[k]; break;
    case BT_I32: v.i = specials_i32[k]; break;
    case BT_U32: v.u = specials_u32[k]; break;
    case BT_I64: v.l = specials_i64[k]; break;
    case BT_U64: v.ul = specials_u64[k]; break;
    default: break;
    }
    return v;
}

static double unit(void)
{
    return (double)(test_random_u64() >> 11) / 9007199254740992.0;
}

static builtin_value random_value(builtin_type type,
                                  const builtin_domain *domain)
{
    builtin_value v;
    memset(&v, 0, sizeof v);
    double low = domain->low, high = domain->high;
    if (low == 0 && high == 0) {
        /* no domain given: the whole range of integers, [-100, 100] of
         * floating point */
        low = -100;
        high = 100;
    }
    double x;
    if (domain->log_scale && low < high) {
        double top = fabs(high) > fabs(low) ? fabs(high) : fabs(low);
        double bottom = low > 0 ? low : top * 1e-12;
        x = bottom * pow(top / bottom, unit());
        if (low < 0 && (test_random_u64() & 1))
            x = -x;
    } else {
        x = low + (high - low) * unit();
    }
    uint64_t bits = test_random_u64();
    /* integers: any bits, unless a linear domain is given */
    int whole = (domain->low == 0 && domain->high == 0) || domain->log_scale;
    switch (type) {
    case BT_F32: v.f = (float)x; break;
    case BT_F64: v.d = x; break;
    case BT_I32: v.i = whole ? (int32_t)(uint32_t)bits : (int32_t)floor(x); break;
    case BT_U32: v.u = whole ? (uint32_t)bits : (uint32_t)floor(x); break;
    case BT_I64: v.l = whole ? (int64_t)bits : (int64_t)floor(x); break;
    case BT_U64: v.ul = whole ? bits : (uint64_t)floor(x); break;
    default: break;
    }
    return v;
}

/* ---- comparisons ---------------------------------------------------------- */

static int64_t ordered_f32(float x)
{
    int32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits < 0 ? -(int64_t)(bits & 0x7fffffff) : (int64_t)bits;
}

static int64_t ordered_f64(double x)
{
    int64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits < 0 ? -(bits & INT64_MAX) : bits;
}

double builtin_ulps_f32(float got, float want)
{
    if (isnan(got) && isnan(want))
        return 0;
    if (isnan(got) || isnan(want))
        return INFINITY;
    return fabs((double)(ordered_f32(got) - ordered_f32(want)));
}

double builtin_ulps_f64(double got, double want)
{
    if (isnan(got) && isnan(want))
        return 0;
    if (isnan(got) || isnan(want))
        return INFINITY;
    int64_t a = ordered_f64(got), b = ordered_f64(want);
    /* no overflow: both are within +-2^63 */
    return a > b ? (double)((uint64_t)a - (uint64_t)b)
                 : (double)((uint64_t)b - (uint64_t)a);
}

static int in_valid_range(const builtin_case *row, const builtin_value *in)
{
    if (row->valid_low == 0 && row->valid_high == 0)
        return 1;
    for (int k = 0; k < 3 && row->in[k] != BT_NONE; ++k) {
        double x = row->in[k] == BT_F32   ? in[k].f
                   : row->in[k] == BT_F64 ? in[k].d
                                          : 0;
        if (!(x >= row->valid_low && x <= row->valid_high))
            return 0;
    }
    return 1;
}

static int value_matches(const builtin_case *row, builtin_value got,
                         builtin_value want)
{
    switch (row->out) {
    case BT_F32:
        if (isinf(want.f) || isnan(want.f) || isnan(got.f))
            return builtin_ulps_f32(got.f, want.f) == 0;
        return builtin_ulps_f32(got.f, want.f) <= row->ulps ||
               fabs((double)got.f - (double)want.f) <= row->absolute;
    case BT_F64:
        if (isinf(want.d) || isnan(want.d) || isnan(got.d))
            return builtin_ulps_f64(got.d, want.d) == 0;
        return builtin_ulps_f64(got.d, want.d) <= row->ulps ||
               fabs(got.d - want.d) <= row->absolute;
    case BT_I32:
    case BT_U32:
        return got.u == want.u;
    default:
        return got.ul == want.ul;
    }
}

static void format_value(builtin_type type, builtin_value v, char *text,
                         size_t size)
{
    switch (type) {
    case BT_F32: snprintf(text, size, "%.9g (%a)", (double)v.f, (double)v.f); break;
    case BT_F64: snprintf(text, size, "%.17g (%a)", v.d, v.d); break;
    case BT_I32: snprintf(text, size, "%d", v.i); break;
    case BT_U32: snprintf(text, size, "%u (0x%x)", v.u, v.u); break;
    case BT_I64: snprintf(text, size, "%lld", (long long)v.l); break;
    case BT_U64: snprintf(text, size, "%llu (0x%llx)", (unsigned long long)v.ul, (unsigned long long)v.ul); break;
    default: snprintf(text, size, "-"); break;
    }
}

/* ---- the program ------------------------------------------------------------ */

static size_t type_size(builtin_type type)
{
    switch (type) {
    case BT_F32: case BT_I32: case BT_U32: return 4;
    case BT_F64: case BT_I64: case BT_U64: return 8;
    default: return 4;
    }
}

static const char *type_name(builtin_type type, builtin_language language)
{
    int cuda = language == BUILTIN_CUDA_C;
    switch (type) {
    case BT_F32: return "float";
    case BT_F64: return "double";
    case BT_I32: return "int";
    case BT_U32: return cuda ? "unsigned int" : "uint";
    case BT_I64: return cuda ? "long long" : "long";
    case BT_U64: return cuda ? "unsigned long long" : "ulong";
    default: return "int"; /* an unused input */
    }
}

static int uses_double(const builtin_case *row)
{
    if (row->out == BT_F64)
        return 1;
    for (int k = 0; k < 3; ++k)
        if (row->in[k] == BT_F64)
            return 1;
    return strstr(row->body, "double") != NULL;
}

static int same_signature(const builtin_case *a, const builtin_case *b)
{
    return a->out == b->out && a->in[0] == b->in[0] && a->in[1] == b->in[1] &&
           a->in[2] == b->in[2];
}

typedef struct text {
    char *data;
    size_t length, capacity;
} text;

static void append(text *t, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void append(text *t, const char *format, ...)
{
    for (;;) {
        va_list args;
        va_start(args, format);
        size_t room = t->capacity - t->length;
        int n = vsnprintf(t->data ? t->data + t->length : NULL,
                          t->data ? room : 0, format, args);
        va_end(args);
        if (n < 0)
            fail_msg("vsnprintf failed");
        if (t->data != NULL && (size_t)n < room) {
            t->length += (size_t)n;
            return;
        }
        size_t grown = (t->capacity + (size_t)n + 1) * 2;
        char *data = realloc(t->data, grown);
        if (data == NULL)
            fail_msg("out of host memory");
        t->data = data;
        t->capacity = grown;
    }
}

/* The kernel of signature group `group` (rows whose `group_of` is it). */
static void append_kernel(text *source, builtin_language language,
                          const builtin_case *cases, const size_t *group_of,
                          const int *enabled, size_t count, size_t group)
{
    const builtin_case *first = NULL;
    for (size_t r = 0; r < count && first == NULL; ++r)
        if (group_of[r] == group && enabled[r])
            first = &cases[r];
    if (first == NULL)
        return;
    int cuda = language == BUILTIN_CUDA_C;
    const char *out = type_name(first->out, language);
    const char *in[3];
    for (int k = 0; k < 3; ++k)
        in[k] = type_name(first->in[k], language);
    if (cuda)
        append(source,
               "extern \"C\" __global__ void t_%zu(%s *out, const %s *a, "
               "const %s *b, const %s *c, int n, int which)\n{\n"
               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n",
               group, out, in[0], in[1], in[2]);
    else
        append(source,
               "kernel void t_%zu(global %s *out, global const %s *a, "
               "global const %s *b, global const %s *c, int n, int which)\n"
               "{\n    int i = get_global_id(0);\n",
               group, out, in[0], in[1], in[2]);
    append(source, "    if (i >= n) return;\n    %s r = 0;\n"
                   "    switch (which) {\n", out);
    for (size_t r = 0; r < count; ++r)
        if (group_of[r] == group && enabled[r])
            append(source, "    case %zu: { %s } break;\n", r, cases[r].body);
    append(source, "    }\n    out[i] = r;\n}\n\n");
}

/* ---- running ------------------------------------------------------------------ */

typedef struct row_data {
    builtin_value in[3][ROW_VALUES];
    builtin_value out[ROW_VALUES];
} row_data;

static void fill_inputs(const builtin_case *row, row_data *data)
{
    size_t specials[3] = {0, 0, 0};
    int inputs = 0;
    while (inputs < 3 && row->in[inputs] != BT_NONE) {
        specials[inputs] = special_count(row->in[inputs]);
        ++inputs;
    }
    /* every combination of the specials that fits, then random values */
    size_t combinations = inputs ? 1 : 0;
    for (int k = 0; k < inputs; ++k)
        combinations *= specials[k];
    if (combinations > ROW_VALUES / 2)
        combinations = ROW_VALUES / 2;
    for (size_t j = 0; j < ROW_VALUES; ++j) {
        size_t rest = j;
        for (int k = 0; k < 3; ++k) {
            builtin_value *v = &data->in[k][j];
            if (k >= inputs) {
                memset(v, 0, sizeof *v);
            } else if (j < combinations) {
                *v = special(row->in[k], rest % specials[k]);
                rest /= specials[k];
            } else if (j < combinations + specials[k] && k > 0) {
                /* each special of a later input beside random earlier ones */
                *v = special(row->in[k], j - combinations);
            } else {
                *v = random_value(row->in[k], &row->domain[k]);
            }
        }
    }
}

static void pack(builtin_type type, const builtin_value *values, void *out)
{
    for (size_t j = 0; j < ROW_VALUES; ++j) {
        if (type_size(type) == 4) {
            memcpy((char *)out + 4 * j, &values[j], 4);
        } else {
            memcpy((char *)out + 8 * j, &values[j], 8);
        }
    }
}

static void unpack(builtin_type type, const void *in, builtin_value *values)
{
    for (size_t j = 0; j < ROW_VALUES; ++j) {
        memset(&values[j], 0, sizeof values[j]);
        memcpy(&values[j], (const char *)in + type_size(type) * j,
               type_size(type));
    }
}

static kiln_program *build_all(kiln_context *context, builtin_language language,
                               const char *preamble,
                               const builtin_case *cases,
                               const size_t *group_of, const int *enabled,
                               size_t count, size_t groups)
{
    text source = {0};
    append(&source, "%s\n", preamble ? preamble : "");
    for (size_t g = 0; g < groups; ++g)
        append_kernel(&source, language, cases, group_of, enabled, count, g);
    kiln_build_options options = {
        .language = language == BUILTIN_CUDA_C ? KILN_LANGUAGE_CUDA_C
                                               : KILN_LANGUAGE_OPENCL_C};
    kiln_program *program = NULL;
    kiln_status status = kiln_program_build_with(context, source.data, 0,
                                                 &options, &program);
    if (status == KILN_OK) {
        free(source.data);
        return program;
    }
    /* Find the rows that do not build, one program each. */
    char failed[4096] = "";
    int *one = test_alloc(count * sizeof *one);
    for (size_t r = 0; r < count; ++r) {
        if (!enabled[r])
            continue;
        for (size_t k = 0; k < count; ++k)
            one[k] = k == r;
        text single = {0};
        append(&single, "%s\n", preamble ? preamble : "");
        append_kernel(&single, language, cases, group_of, one, count,
                      group_of[r]);
        kiln_program *alone = NULL;
        if (kiln_program_build_with(context, single.data, 0, &options,
                                    &alone) == KILN_OK) {
            kiln_program_release(alone);
        } else {
            print_message("# %s does not build: %.600s\n", cases[r].name,
                          kiln_last_error());
            size_t used = strlen(failed);
            snprintf(failed + used, sizeof failed - used, "%s%s",
                     used ? ", " : "", cases[r].name);
        }
        free(single.data);
    }
    free(one);
    free(source.data);
    fail_msg("the table's program does not build (%s): rows %s",
             kiln_status_name(status), failed[0] ? failed : "(each alone builds)");
    return NULL;
}

void builtin_table_run(void **state, builtin_language language,
                       const char *preamble, const builtin_case *cases,
                       size_t count)
{
    kiln_context *context = test_context(state);
    kiln_device_info device;
    TEST_OK(kiln_context_get_device_info(context, &device));
    size_t *group_of = test_alloc(count * sizeof *group_of);
    int *enabled = test_alloc(count * sizeof *enabled);
    size_t groups = 0, skipped = 0;
    for (size_t r = 0; r < count; ++r) {
        enabled[r] = device.supports_double || !uses_double(&cases[r]);
        skipped += !enabled[r];
        size_t g = 0;
        while (g < r && !same_signature(&cases[g], &cases[r]))
            ++g;
        group_of[r] = g < r ? group_of[g] : groups++;
    }
    if (skipped > 0)
        print_message("# %zu rows need double precision, which %s lacks\n",
                      skipped, device.name);
    kiln_program *program = build_all(context, language, preamble, cases,
                                      group_of, enabled, count, groups);
    kiln_kernel **kernels = test_alloc(groups * sizeof *kernels);
    for (size_t g = 0; g < groups; ++g) {
        char name[32];
        snprintf(name, sizeof name, "t_%zu", g);
        kernels[g] = NULL;
        for (size_t r = 0; r < count; ++r)
            if (group_of[r] == g && enabled[r]) {
                kernels[g] = test_kernel(program, name);
                break;
            }
    }
    row_data *data = test_alloc(sizeof *data);
    void *host = test_alloc(ROW_VALUES * 8);
    kiln_buffer *in[3], *out = test_buffer(context, ROW_VALUES * 8);
    for (int k = 0; k < 3; ++k)
        in[k] = test_buffer(context, ROW_VALUES * 8);
    size_t failures = 0, checked = 0;
    char failed_rows[2048] = "";
    for (size_t r = 0; r < count; ++r) {
        const builtin_case *row = &cases[r];
        if (!enabled[r])
            continue;
        fill_inputs(row, data);
        for (int k = 0; k < 3; ++k) {
            pack(row->in[k], data->in[k], host);
            TEST_OK(kiln_buffer_write(in[k], 0, host, ROW_VALUES * 8));
        }
        int n = ROW_VALUES, which = (int)r;
        kiln_launch_config config = {
            .grid = KILN_DIM1((ROW_VALUES + BLOCK - 1) / BLOCK),
            .block = KILN_DIM1(BLOCK)};
        kiln_arg args[] = {KILN_ARG_BUFFER(out),   KILN_ARG_BUFFER(in[0]),
                           KILN_ARG_BUFFER(in[1]), KILN_ARG_BUFFER(in[2]),
                           KILN_ARG_INT(n),        KILN_ARG_INT(which)};
        TEST_OK(kiln_launch(kernels[group_of[r]], &config, 6, args));
        TEST_OK(kiln_buffer_read(out, 0, host, ROW_VALUES * type_size(row->out)));
        unpack(row->out, host, data->out);
        size_t wrong = 0;
        for (size_t j = 0; j < ROW_VALUES; ++j) {
            builtin_value inputs[3] = {data->in[0][j], data->in[1][j],
                                       data->in[2][j]};
            if (!in_valid_range(row, inputs))
                continue;
            builtin_value want;
            memset(&want, 0, sizeof want);
            row->model(inputs, &want);
            ++checked;
            if (value_matches(row, data->out[j], want))
                continue;
            if (wrong++ < SHOWN) {
                char got_text[64], want_text[64], in_text[3][64];
                format_value(row->out, data->out[j], got_text, sizeof got_text);
                format_value(row->out, want, want_text, sizeof want_text);
                for (int k = 0; k < 3; ++k)
                    format_value(row->in[k], inputs[k], in_text[k],
                                 sizeof in_text[k]);
                print_message("# %s(%s%s%s%s%s): got %s, expected %s\n",
                              row->name, in_text[0],
                              row->in[1] ? ", " : "",
                              row->in[1] ? in_text[1] : "",
                              row->in[2] ? ", " : "",
                              row->in[2] ? in_text[2] : "", got_text,
                              want_text);
            }
        }
        if (wrong > 0) {
            print_message("# %s: %zu of %d values wrong\n", row->name, wrong,
                          ROW_VALUES);
            size_t used = strlen(failed_rows);
            if (used + strlen(row->name) + 8 < sizeof failed_rows)
                snprintf(failed_rows + used, sizeof failed_rows - used,
                         "%s%s", used ? ", " : "", row->name);
            ++failures;
        }
    }
    for (int k = 0; k < 3; ++k)
        kiln_buffer_release(in[k]);
    kiln_buffer_release(out);
    for (size_t g = 0; g < groups; ++g)
        if (kernels[g] != NULL)
            kiln_kernel_release(kernels[g]);
    kiln_program_release(program);
    free(kernels);
    free(host);
    free(data);
    free(group_of);
    free(enabled);
    print_message("# %zu rows, %zu values compared on %s\n", count - skipped,
                  checked, device.name);
    if (failures > 0)
        fail_msg("%zu of %zu rows differ from the model: %s", failures,
                 count - skipped, failed_rows);
}
