/*
 * Prepared launches (a type string and C varargs, PyCUDA's prepared_call)
 * and kiln_args argument lists: every type character and every add_*
 * arrives in the kernel bit for bit; every mismatch is refused before
 * anything is queued, with its own status and a message that names the
 * argument; more arguments than the core keeps on its stack.
 */
#include "config.h" /* _GNU_SOURCE: POSIX functions under -std=c11 */

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 64
#define GROUPS 4
#define ITEMS (BLOCK * GROUPS)
#define OUT_SLOTS 10

/* One kernel taking every kind of argument; item 0 writes each scalar into
 * `out`, and every item uses the local scratch and the three arrays. */
static const char every_type_source[] =
    "kernel void every_type(global long *out, char c, uchar uc, short s,\n"
    "                       ushort us, int i, uint ui, long l, ulong ul,\n"
    "                       ulong z, float f, local int *scratch,\n"
    "                       global const int *in, global int *doubled,\n"
    "                       global int *inout)\n"
    "{\n"
    "    size_t g = get_global_id(0), lid = get_local_id(0);\n"
    "    scratch[lid] = in[g];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    /* a neighbour's value: only right if scratch is shared */\n"
    "    doubled[g] = 2 * scratch[(lid + 1) % get_local_size(0)];\n"
    "    inout[g] += (int)lid + 1;\n"
    "    if (g == 0) {\n"
    "        out[0] = c;  out[1] = uc; out[2] = s; out[3] = us;\n"
    "        out[4] = i;  out[5] = ui; out[6] = l; out[7] = (long)ul;\n"
    "        out[8] = (long)z; out[9] = (long)as_uint(f);\n"
    "    }\n"
    "}\n"
    "\n"
    "kernel void sizes(global int *out, int a, long b, float c, char d)\n"
    "{\n"
    "    out[0] = a + (int)b + (int)c + d;\n"
    "}\n"
    "\n"
    "kernel void with_local(global int *out, local float *scratch)\n"
    "{\n"
    "    scratch[get_local_id(0)] = 1.0f;\n"
    "    out[get_global_id(0)] = (int)scratch[get_local_id(0)];\n"
    "}\n";

static const char double_source[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "kernel void doubles(global ulong *out, double d, double e)\n"
    "{\n"
    "    out[0] = as_ulong(d);\n"
    "    out[1] = as_ulong(e);\n"
    "    out[2] = as_ulong(d * e);\n"
    "}\n";

/* The scalar arguments of every_type, drawn at random (all bits used). */
typedef struct scalars {
    int8_t c;
    uint8_t uc;
    int16_t s;
    uint16_t us;
    int32_t i;
    uint32_t ui;
    int64_t l;
    uint64_t ul;
    size_t z;
    float f;
} scalars;

static scalars random_scalars(void)
{
    scalars v;
    v.c = (int8_t)(test_random_u64() >> 56);
    v.uc = (uint8_t)(test_random_u64() >> 56);
    v.s = (int16_t)(test_random_u64() >> 48);
    v.us = (uint16_t)(test_random_u64() >> 48);
    v.i = (int32_t)(test_random_u64() >> 32);
    v.ui = (uint32_t)(test_random_u64() >> 32) | 0x80000000u;
    v.l = (int64_t)test_random_u64();
    v.ul = test_random_u64() | ((uint64_t)1 << 63);
    v.z = (size_t)test_random_u64();
    v.f = test_random_float(-1e6f, 1e6f);
    return v;
}

/* The host arrays of every_type and what the kernel should make of them. */
typedef struct arrays {
    int32_t in[ITEMS];
    int32_t doubled[ITEMS];
    int32_t inout[ITEMS];
    int32_t inout_before[ITEMS];
} arrays;

static void random_arrays(arrays *a)
{
    test_random_ints(a->in, ITEMS, -1000000, 1000000);
    test_random_ints(a->inout, ITEMS, -1000000, 1000000);
    memcpy(a->inout_before, a->inout, sizeof a->inout);
    for (size_t k = 0; k < ITEMS; ++k)
        a->doubled[k] = 0x7eadbeef;
}

static void check_arrays(const arrays *a)
{
    for (size_t g = 0; g < ITEMS; ++g) {
        size_t lid = g % BLOCK;
        size_t neighbour = g - lid + (lid + 1) % BLOCK;
        if (a->doubled[g] != 2 * a->in[neighbour])
            fail_msg("doubled[%zu] = %d, expected %d (local memory)", g,
                     a->doubled[g], 2 * a->in[neighbour]);
        if (a->inout[g] != a->inout_before[g] + (int32_t)lid + 1)
            fail_msg("inout[%zu] = %d, expected %d", g, a->inout[g],
                     a->inout_before[g] + (int32_t)lid + 1);
    }
}

static void check_scalars(kiln_buffer *out, const scalars *v)
{
    int64_t got[OUT_SLOTS];
    TEST_OK(kiln_buffer_read(out, 0, got, sizeof got));
    uint32_t float_bits;
    memcpy(&float_bits, &v->f, 4);
    const int64_t expected[OUT_SLOTS] = {
        v->c, v->uc, v->s, v->us, v->i, v->ui, v->l, (int64_t)v->ul,
        (int64_t)v->z, (int64_t)float_bits};
    static const char *const names[OUT_SLOTS] = {
        "char (c)",  "uchar (C)", "short (h)", "ushort (H)", "int (i)",
        "uint (I)",  "long (l)",  "ulong (L)", "size_t (z)", "float (f)"};
    for (int k = 0; k < OUT_SLOTS; ++k)
        if (got[k] != expected[k])
            fail_msg("%s arrived as %lld (0x%llx), expected %lld (0x%llx)",
                     names[k], (long long)got[k], (unsigned long long)got[k],
                     (long long)expected[k], (unsigned long long)expected[k]);
}

static kiln_launch_config block_config(void)
{
    kiln_launch_config config = {.grid = KILN_DIM1(GROUPS),
                                 .block = KILN_DIM1(BLOCK)};
    return config;
}

static void fill_sentinel(kiln_buffer *out)
{
    static const int64_t sentinel = 0x5eed5eed5eed5eedll;
    TEST_OK(kiln_buffer_fill(out, 0, OUT_SLOTS * sizeof(int64_t), &sentinel,
                             sizeof sentinel));
}

/* ---- prepared launches ----------------------------------------------------------- */

static void test_prepared_every_type(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, every_type_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "every_type");
    kiln_buffer *out = test_buffer(context, OUT_SLOTS * sizeof(int64_t));
    kiln_launch_config config = block_config();
    arrays *a = test_alloc(sizeof *a);
    for (int round = 0; round < 3; ++round) {
        scalars v = random_scalars();
        random_arrays(a);
        fill_sentinel(out);
        /* Spaces are ignored; every value passed with its exact C type. */
        TEST_OK(kiln_launch_prepared(
            kernel, &config, "P c C h H i I l L z f S < > =", out, (int)v.c,
            (int)v.uc, (int)v.s, (int)v.us, (int32_t)v.i, (uint32_t)v.ui,
            (int64_t)v.l, (uint64_t)v.ul, (size_t)v.z, (double)v.f,
            (size_t)(BLOCK * sizeof(int32_t)), (const void *)a->in,
            sizeof a->in, (void *)a->doubled, sizeof a->doubled,
            (void *)a->inout, sizeof a->inout));
        /* Out and InOut make the launch synchronous: no synchronize. */
        check_arrays(a);
        check_scalars(out, &v);
    }
    free(a);
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void test_prepared_narrow_types_truncate(void **state)
{
    /* c C h H take an int and keep its low bits, like a C conversion. */
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, every_type_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "every_type");
    kiln_buffer *out = test_buffer(context, OUT_SLOTS * sizeof(int64_t));
    kiln_launch_config config = block_config();
    arrays *a = test_alloc(sizeof *a);
    random_arrays(a);
    scalars v = random_scalars();
    TEST_OK(kiln_launch_prepared(
        kernel, &config, "PcChHiIlLzfS<>=", out, 0x17f, 0x1ab, 0x2fffe,
        0x3abcd, (int32_t)v.i, (uint32_t)v.ui, (int64_t)v.l, (uint64_t)v.ul,
        (size_t)v.z, (double)v.f, (size_t)(BLOCK * sizeof(int32_t)),
        (const void *)a->in, sizeof a->in, (void *)a->doubled,
        sizeof a->doubled, (void *)a->inout, sizeof a->inout));
    v.c = 0x7f;
    v.uc = 0xab;
    v.s = -2;
    v.us = 0xabcd;
    check_scalars(out, &v);
    check_arrays(a);
    free(a);
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void test_prepared_double(void **state)
{
    kiln_context *context = test_context(state);
    kiln_device_info device;
    TEST_OK(kiln_context_get_device_info(context, &device));
    if (!device.supports_double) {
        print_message("# %s has no double precision\n", device.name);
        skip();
    }
    kiln_program *program = test_build(context, double_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "doubles");
    kiln_buffer *out = test_buffer(context, 3 * sizeof(uint64_t));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    double d, e;
    test_random_doubles(&d, 1, -1e300, 1e300);
    test_random_doubles(&e, 1, -1e-300, 1e-300);
    TEST_OK(kiln_launch_prepared(kernel, &config, "Pdd", out, d, e));
    uint64_t got[3], expected[3];
    double product = d * e;
    memcpy(&expected[0], &d, 8);
    memcpy(&expected[1], &e, 8);
    memcpy(&expected[2], &product, 8);
    TEST_OK(kiln_buffer_read(out, 0, got, sizeof got));
    for (int k = 0; k < 3; ++k)
        if (got[k] != expected[k])
            fail_msg("double %d arrived as 0x%016llx, expected 0x%016llx", k,
                     (unsigned long long)got[k],
                     (unsigned long long)expected[k]);

    /* kiln_args_add_double: the same bits. */
    kiln_args *args;
    TEST_OK(kiln_args_create(&args));
    TEST_OK(kiln_args_add_buffer(args, out));
    TEST_OK(kiln_args_add_double(args, e));
    TEST_OK(kiln_args_add_double(args, d));
    TEST_OK(kiln_launch_args(kernel, &config, args));
    TEST_OK(kiln_buffer_read(out, 0, got, sizeof got));
    if (got[0] != expected[1] || got[1] != expected[0])
        fail_msg("kiln_args_add_double: 0x%016llx 0x%016llx",
                 (unsigned long long)got[0], (unsigned long long)got[1]);
    TEST_OK(kiln_args_release(args));
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void test_prepared_errors(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, every_type_source, NULL);
    kiln_kernel *sizes = test_kernel(program, "sizes");
    kiln_kernel *with_local = test_kernel(program, "with_local");
    kiln_buffer *out = test_buffer(context, OUT_SLOTS * sizeof(int64_t));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    int32_t host[4] = {1, 2, 3, 4};
    fill_sentinel(out);

    /* An unknown character, named with its position (spaces count). */
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared(sizes, &config, "P i x", out, 1, 2));
    TEST_ERROR_MENTIONS("position 5");
    TEST_ERROR_MENTIONS("'x'");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared(sizes, &config, "u", 1));
    TEST_ERROR_MENTIONS("position 1");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared(sizes, &config, "Pi\tlfc", out, 1));
    TEST_ERROR_MENTIONS("position 3");
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared(sizes, &config, NULL));

    /* The wrong number of arguments. */
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_launch_prepared(sizes, &config, "Pil", out, 1, (int64_t)2));
    TEST_ERROR_MENTIONS("5 arguments, 3 given");
    TEST_ERROR_MENTIONS("sizes");
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_launch_prepared(sizes, &config, "Pilfci", out, 1,
                                    (int64_t)2, 3.0, 4, 5));
    TEST_ERROR_MENTIONS("6 given");
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_launch_prepared(sizes, &config, ""));

    /* A value of the wrong type, named by its position and both types. */
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "Pllfc", out, (int64_t)1,
                                    (int64_t)2, 3.0, 4));
    TEST_ERROR_MENTIONS("argument 1");
    TEST_ERROR_MENTIONS("a long");
    TEST_ERROR_MENTIONS("of type int");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "Piifc", out, 1, 2, 3.0,
                                    4));
    TEST_ERROR_MENTIONS("argument 2");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "Pildc", out, 1,
                                    (int64_t)2, 3.0, 4));
    TEST_ERROR_MENTIONS("argument 3");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "Pilfh", out, 1,
                                    (int64_t)2, 3.0, 4));
    TEST_ERROR_MENTIONS("argument 4");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "PCHfc", out, 1, 2, 3.0,
                                    4));

    /* A buffer where a value is expected, and the other way round. */
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_launch_prepared(sizes, &config, "PPlfc", out, out,
                                    (int64_t)2, 3.0, 4));
    TEST_ERROR_MENTIONS("argument 1");
    TEST_ERROR_MENTIONS("takes a value");
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_launch_prepared(sizes, &config, "lilfc", (int64_t)1, 1,
                                    (int64_t)2, 3.0, 4));
    TEST_ERROR_MENTIONS("argument 0");
    TEST_ERROR_MENTIONS("takes a buffer");
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_launch_prepared(sizes, &config, "Pilf<", out, 1,
                                    (int64_t)2, 3.0, (const void *)host,
                                    sizeof host));
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_launch_prepared(sizes, &config, "PSlfc", out, (size_t)16,
                                    (int64_t)2, 3.0, 4));
    /* Local memory: S and nothing else. */
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_launch_prepared(with_local, &config, "PP", out, out));
    TEST_ERROR_MENTIONS("local-memory size");
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND,
               kiln_launch_prepared(with_local, &config, "Pz", out,
                                    (size_t)64));
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_launch_prepared(with_local, &config, "PS", out,
                                    (size_t)0));
    /* NULL for a buffer. */
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_launch_prepared(sizes, &config, "Pilfc",
                                    (kiln_buffer *)NULL, 1, (int64_t)2, 3.0,
                                    4));
    /* More than a prepared launch can take. */
    char too_many[80];
    memset(too_many, 'i', 70);
    too_many[70] = '\0';
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_launch_prepared(sizes, &config, too_many, 1, 2, 3));
    TEST_ERROR_MENTIONS("more than");

    /* Values whose C type is not the one their character reads (issue 29):
     * an int for 'f' returned KILN_OK and the kernel read a float of 0, as
     * va_arg read a double that was never passed. */
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "Pilfc", out, 40,
                                    (int64_t)-7, 2, -3));
    TEST_ERROR_MENTIONS("argument 3 ('f')");
    TEST_ERROR_MENTIONS("2.0, not 2");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "Pilfc", out, 40, -7, 2.0,
                                    -3));
    TEST_ERROR_MENTIONS("64-bit integer");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "Pilfc", out, 40.0,
                                    (int64_t)-7, 2.0, -3));
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(sizes, &config, "Pilfc", host, 40,
                                    (int64_t)-7, 2.0, -3));
    TEST_ERROR_MENTIONS("kiln_buffer *");
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared(with_local, &config, "PS", out, 16));
    TEST_ERROR_MENTIONS("size_t");
    /* fewer or more values than the string takes: va_arg read past them */
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_launch_prepared(sizes, &config, "Pilfc", out, 40,
                                    (int64_t)-7, 2.0));
    TEST_ERROR_MENTIONS("takes 5 value(s)");
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_launch_prepared(sizes, &config, "Pilfc", out, 40,
                                    (int64_t)-7, 2.0, -3, 9));
    /* the same through a prepared call */
    TEST_OK(kiln_kernel_prepare(sizes, "Pilfc"));
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE,
               kiln_launch_prepared_call(sizes, &config, out, 40, (int64_t)-7,
                                         2, -3));
    TEST_ERROR_MENTIONS("argument 3 ('f')");
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT,
               kiln_launch_prepared_call(sizes, &config, out, 40));

    /* Nothing was queued by any of these. */
    int64_t got[OUT_SLOTS];
    TEST_OK(kiln_buffer_read(out, 0, got, sizeof got));
    for (int k = 0; k < OUT_SLOTS; ++k)
        if (got[k] != 0x5eed5eed5eed5eedll)
            fail_msg("a refused launch wrote into the buffer (slot %d)", k);

    /* And the right string works. */
    TEST_OK(kiln_launch_prepared(sizes, &config, "Pilfc", out, 40,
                                 (int64_t)-7, 2.0, -3));
    int32_t sum;
    TEST_OK(kiln_buffer_read(out, 0, &sum, sizeof sum));
    assert_int_equal(sum, 40 - 7 + 2 - 3);
    /* ... also prepared, and through the plain functions (C++ and
     * KILN_NO_PREPARED_CHECK callers), which cannot check the C types */
    TEST_OK(kiln_launch_prepared_call(sizes, &config, out, 41, (int64_t)-7,
                                      2.0, -3));
    TEST_OK(kiln_buffer_read(out, 0, &sum, sizeof sum));
    assert_int_equal(sum, 41 - 7 + 2 - 3);
    TEST_OK((kiln_launch_prepared)(sizes, &config, "Pilfc", out, 42,
                                   (int64_t)-7, 2.0, -3));
    TEST_OK(kiln_buffer_read(out, 0, &sum, sizeof sum));
    assert_int_equal(sum, 42 - 7 + 2 - 3);
    TEST_OK(kiln_launch_prepared(with_local, &config, "PS", out,
                                 (size_t)sizeof(float)));
    TEST_OK(kiln_buffer_read(out, 0, &sum, sizeof sum));
    assert_int_equal(sum, 1);

    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(sizes));
    TEST_OK(kiln_kernel_release(with_local));
    TEST_OK(kiln_program_release(program));
}

/* ---- argument lists ------------------------------------------------------------------- */

/* Adds every_type's arguments one by one. */
static void add_every_type(kiln_args *args, kiln_buffer *out, const scalars *v,
                           arrays *a)
{
    TEST_OK(kiln_args_add_buffer(args, out));
    TEST_OK(kiln_args_add_value(args, &v->c, 1));
    TEST_OK(kiln_args_add_value(args, &v->uc, 1));
    TEST_OK(kiln_args_add_value(args, &v->s, 2));
    TEST_OK(kiln_args_add_value(args, &v->us, 2));
    TEST_OK(kiln_args_add_int(args, v->i));
    TEST_OK(kiln_args_add_uint(args, v->ui));
    TEST_OK(kiln_args_add_long(args, v->l));
    TEST_OK(kiln_args_add_ulong(args, v->ul));
    TEST_OK(kiln_args_add_value(args, &v->z, sizeof v->z));
    TEST_OK(kiln_args_add_float(args, v->f));
    TEST_OK(kiln_args_add_local(args, BLOCK * sizeof(int32_t)));
    TEST_OK(kiln_args_add_host(args, KILN_ARG_KIND_IN, a->in, sizeof a->in));
    TEST_OK(kiln_args_add_host(args, KILN_ARG_KIND_OUT, a->doubled,
                               sizeof a->doubled));
    TEST_OK(kiln_args_add_host(args, KILN_ARG_KIND_INOUT, a->inout,
                               sizeof a->inout));
}

static void test_args_builder_every_kind(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, every_type_source, NULL);
    kiln_kernel *kernel = test_kernel(program, "every_type");
    kiln_buffer *out = test_buffer(context, OUT_SLOTS * sizeof(int64_t));
    kiln_launch_config config = block_config();
    arrays *a = test_alloc(sizeof *a);
    kiln_args *args;
    TEST_OK(kiln_args_create(&args));
    size_t count = 99;
    TEST_OK(kiln_args_get_count(args, &count));
    assert_int_equal(count, 0);
    /* Cleared and refilled with new values: nothing of the last round
     * may leak into the next. */
    for (int round = 0; round < 4; ++round) {
        scalars v = random_scalars();
        random_arrays(a);
        fill_sentinel(out);
        TEST_OK(kiln_args_clear(args));
        TEST_OK(kiln_args_get_count(args, &count));
        assert_int_equal(count, 0);
        add_every_type(args, out, &v, a);
        TEST_OK(kiln_args_get_count(args, &count));
        assert_int_equal(count, 15);
        TEST_OK(kiln_launch_args(kernel, &config, args));
        check_arrays(a);
        check_scalars(out, &v);
    }
    /* The list keeps copies of the values: changing the variables after
     * adding them changes nothing. */
    TEST_OK(kiln_args_clear(args));
    scalars v = random_scalars(), kept = v;
    random_arrays(a);
    add_every_type(args, out, &v, a);
    v = random_scalars();
    TEST_OK(kiln_launch_args(kernel, &config, args));
    check_scalars(out, &kept);
    /* The same list launched twice: InOut increments twice. */
    random_arrays(a);
    TEST_OK(kiln_launch_args(kernel, &config, args));
    TEST_OK(kiln_launch_args(kernel, &config, args));
    for (size_t g = 0; g < ITEMS; ++g)
        if (a->inout[g] != a->inout_before[g] + 2 * ((int32_t)(g % BLOCK) + 1))
            fail_msg("two launches of one list: inout[%zu] = %d", g,
                     a->inout[g]);
    free(a);
    TEST_OK(kiln_args_release(args));
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void test_args_builder_errors(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, every_type_source, NULL);
    kiln_kernel *sizes = test_kernel(program, "sizes");
    kiln_buffer *out = test_buffer(context, 16);
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    int32_t host[4] = {0};
    size_t count;
    kiln_args *args;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_args_create(NULL));
    TEST_OK(kiln_args_create(&args));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_args_add_value(args, NULL, 4));
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_args_add_value(args, host, 0));
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_args_add_local(args, 0));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_args_add_host(args, KILN_ARG_KIND_VALUE, host, sizeof host));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_args_add_host(args, KILN_ARG_KIND_BUFFER, host, sizeof host));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_args_add_host(args, KILN_ARG_KIND_IN, NULL, 16));
    TEST_FAILS(KILN_ERR_INVALID_SIZE,
               kiln_args_add_host(args, KILN_ARG_KIND_OUT, host, 0));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_args_add_buffer(args, NULL));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_args_add_int(NULL, 1));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_args_get_count(args, NULL));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_args_get_count(NULL, &count));
    /* Refused additions added nothing. */
    TEST_OK(kiln_args_get_count(args, &count));
    assert_int_equal(count, 0);

    /* Launch checks as kiln_launch: count, size, kind. */
    TEST_OK(kiln_args_add_buffer(args, out));
    TEST_OK(kiln_args_add_int(args, 1));
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT, kiln_launch_args(sizes, &config, args));
    TEST_ERROR_MENTIONS("2 given");
    TEST_OK(kiln_args_add_int(args, 2)); /* a long parameter */
    TEST_OK(kiln_args_add_float(args, 3.0f));
    TEST_OK(kiln_args_add_value(args, "c", 1));
    TEST_FAILS(KILN_ERR_ARGUMENT_TYPE, kiln_launch_args(sizes, &config, args));
    TEST_ERROR_MENTIONS("argument 2");
    TEST_OK(kiln_args_clear(args));
    const int32_t four_bytes = 2;
    TEST_OK(kiln_args_add_buffer(args, out));
    TEST_OK(kiln_args_add_int(args, 1));
    TEST_OK(kiln_args_add_value(args, &four_bytes, sizeof four_bytes));
    TEST_OK(kiln_args_add_float(args, 3.0f));
    TEST_OK(kiln_args_add_value(args, "c", 1));
    /* Raw bytes are checked by size. */
    TEST_FAILS(KILN_ERR_ARGUMENT_SIZE, kiln_launch_args(sizes, &config, args));
    TEST_ERROR_MENTIONS("argument 2");
    TEST_OK(kiln_args_clear(args));
    TEST_OK(kiln_args_add_buffer(args, out));
    TEST_OK(kiln_args_add_buffer(args, out));
    TEST_OK(kiln_args_add_long(args, 2));
    TEST_OK(kiln_args_add_float(args, 3.0f));
    TEST_OK(kiln_args_add_value(args, "c", 1));
    TEST_FAILS(KILN_ERR_ARGUMENT_KIND, kiln_launch_args(sizes, &config, args));
    TEST_ERROR_MENTIONS("argument 1");
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_launch_args(sizes, &config, NULL));
    /* An empty list for a kernel with parameters. */
    TEST_OK(kiln_args_clear(args));
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT, kiln_launch_args(sizes, &config, args));

    TEST_OK(kiln_args_release(args));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_args_release(NULL));
    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(sizes));
    TEST_OK(kiln_program_release(program));
}

/* ---- more arguments than the core keeps on its stack (32) ----------------------------- */

#define MANY 40

static char *many_source(void)
{
    size_t size = 256 + MANY * 64;
    char *source = test_alloc(size);
    size_t length = (size_t)snprintf(source, size,
                                     "kernel void many(global int *out");
    for (int k = 0; k < MANY; ++k)
        length += (size_t)snprintf(source + length, size - length, ", int a%d",
                                   k);
    length += (size_t)snprintf(source + length, size - length, ")\n{\n");
    for (int k = 0; k < MANY; ++k)
        length += (size_t)snprintf(source + length, size - length,
                                   "    out[%d] = a%d;\n", k, k);
    snprintf(source + length, size - length, "}\n");
    return source;
}

static void check_many(kiln_buffer *out, const int32_t *values,
                       const char *how)
{
    int32_t got[MANY];
    TEST_OK(kiln_buffer_read(out, 0, got, sizeof got));
    for (int k = 0; k < MANY; ++k)
        if (got[k] != values[k])
            fail_msg("%s: argument %d arrived as %d, expected %d", how, k + 1,
                     got[k], values[k]);
}

static void test_more_arguments_than_the_stack(void **state)
{
    kiln_context *context = test_context(state);
    char *source = many_source();
    kiln_program *program = test_build(context, source, NULL);
    free(source);
    kiln_kernel *kernel = test_kernel(program, "many");
    size_t params = 0;
    TEST_OK(kiln_kernel_get_param_count(kernel, &params));
    assert_int_equal(params, MANY + 1);
    kiln_buffer *out = test_buffer(context, MANY * sizeof(int32_t));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(1)};
    int32_t v[MANY];

    /* kiln_launch with an array. */
    test_random_ints(v, MANY, INT32_MIN, INT32_MAX);
    kiln_arg args[MANY + 1];
    args[0] = KILN_ARG_BUFFER(out);
    for (int k = 0; k < MANY; ++k)
        args[k + 1] = KILN_ARG_VALUE(&v[k], sizeof v[k]);
    TEST_OK(kiln_launch(kernel, &config, MANY + 1, args));
    check_many(out, v, "kiln_launch");

    /* A mistake far down the list is still found and named. */
    int64_t wide = 1;
    args[36] = KILN_ARG_VALUE(&wide, sizeof wide);
    TEST_FAILS(KILN_ERR_ARGUMENT_SIZE, kiln_launch(kernel, &config, MANY + 1, args));
    TEST_ERROR_MENTIONS("argument 36");
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT, kiln_launch(kernel, &config, MANY, args));
    TEST_ERROR_MENTIONS("41 arguments, 40 given");

    /* kiln_args, in a loop. */
    test_random_ints(v, MANY, INT32_MIN, INT32_MAX);
    kiln_args *list;
    TEST_OK(kiln_args_create(&list));
    TEST_OK(kiln_args_add_buffer(list, out));
    for (int k = 0; k < MANY; ++k)
        TEST_OK(kiln_args_add_int(list, v[k]));
    TEST_OK(kiln_launch_args(kernel, &config, list));
    check_many(out, v, "kiln_launch_args");
    TEST_OK(kiln_args_add_int(list, 0));
    TEST_FAILS(KILN_ERR_ARGUMENT_COUNT, kiln_launch_args(kernel, &config, list));
    TEST_OK(kiln_args_release(list));

    /* A prepared launch. */
    test_random_ints(v, MANY, INT32_MIN, INT32_MAX);
    char types[MANY + 2];
    types[0] = 'P';
    memset(types + 1, 'i', MANY);
    types[MANY + 1] = '\0';
    TEST_OK(kiln_launch_prepared(
        kernel, &config, types, out, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
        v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15], v[16],
        v[17], v[18], v[19], v[20], v[21], v[22], v[23], v[24], v[25], v[26],
        v[27], v[28], v[29], v[30], v[31], v[32], v[33], v[34], v[35], v[36],
        v[37], v[38], v[39]));
    check_many(out, v, "kiln_launch_prepared");

    TEST_OK(kiln_buffer_release(out));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(test_prepared_every_type),
        KILN_TEST(test_prepared_narrow_types_truncate),
        KILN_TEST(test_prepared_double),
        KILN_TEST(test_prepared_errors),
        KILN_TEST(test_args_builder_every_kind),
        KILN_TEST(test_args_builder_errors),
        KILN_TEST(test_more_arguments_than_the_stack),
    };
    return kiln_test_main("prepared", tests, sizeof tests / sizeof tests[0]);
}
