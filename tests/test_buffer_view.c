/*
 * Buffer views (kiln_buffer_create_view): transfers at random offsets,
 * views of views, lifetimes (the base released first), bounds, and views
 * as kernel arguments — a CUDA C kernel at any offset on every backend
 * (PyCUDA's `int(a_gpu) + 4` and `a_gpu[1:]`), an OpenCL C kernel at
 * aligned offsets everywhere and at any offset on CUDA, with a clear
 * refusal on OpenCL otherwise.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PyCUDA's test_simple_kernel kernel, as written there. */
static const char multiply_cuda[] =
    "__global__ void multiply_them(float *dest, float *a, float *b)\n"
    "{\n"
    "  const int i = threadIdx.x;\n"
    "  dest[i] = a[i] * b[i];\n"
    "}\n";

static const char multiply_opencl[] =
    "__kernel void multiply_them(__global float *dest, __global const float *a,\n"
    "                            __global const float *b)\n"
    "{\n"
    "  const int i = get_global_id(0);\n"
    "  dest[i] = a[i] * b[i];\n"
    "}\n";

static bool on_cuda(void **state)
{
    return strcmp(test_backend(state), "cuda") == 0;
}

/* ---- transfers ----------------------------------------------------------- */

static void transfers_through_views_land_at_their_offset(void **state)
{
    kiln_context *context = test_context(state);
    enum { SIZE = 4096 };
    unsigned char *mirror = test_temp_alloc(SIZE);
    test_random_bytes(mirror, SIZE);
    kiln_buffer *buffer = test_temp_buffer_from(context, mirror, SIZE);
    for (int round = 0; round < 20; ++round) {
        size_t offset = (size_t)(test_random_u64() % (SIZE - 1));
        size_t size = 1 + (size_t)(test_random_u64() % (SIZE - offset));
        kiln_buffer *view = NULL;
        TEST_OK(kiln_buffer_create_view(buffer, offset, size, &view));
        size_t reported = 0;
        TEST_OK(kiln_buffer_get_size(view, &reported));
        assert_int_equal(reported, size);

        /* read through the view, then write new bytes through it */
        unsigned char *back = test_alloc(size);
        TEST_OK(kiln_buffer_read(view, 0, back, size));
        assert_memory_equal(back, mirror + offset, size);
        test_random_bytes(back, size);
        TEST_OK(kiln_buffer_write(view, 0, back, size));
        memcpy(mirror + offset, back, size);
        /* fill a part of the view through it */
        size_t fill_at = (size_t)(test_random_u64() % size);
        unsigned char pattern = (unsigned char)(1 + test_random_u64() % 255);
        TEST_OK(kiln_buffer_fill(view, fill_at, size - fill_at, &pattern, 1));
        memset(mirror + offset + fill_at, pattern, size - fill_at);
        free(back);
        TEST_OK(kiln_buffer_release(view));

        unsigned char *whole = test_alloc(SIZE);
        TEST_OK(kiln_buffer_read(buffer, 0, whole, SIZE));
        assert_memory_equal(whole, mirror, SIZE);
        free(whole);
    }
}

static void copies_between_views_of_one_buffer(void **state)
{
    kiln_context *context = test_context(state);
    enum { SIZE = 1000 };
    unsigned char mirror[SIZE];
    test_random_bytes(mirror, SIZE);
    kiln_buffer *buffer = test_temp_buffer_from(context, mirror, SIZE);
    kiln_buffer *low = NULL, *high = NULL, *other = NULL;
    TEST_OK(kiln_buffer_create_view(buffer, 3, 400, &low));
    TEST_OK(kiln_buffer_create_view(buffer, 501, 499, &high));
    /* copy 397 bytes from byte 1 of `low` (buffer byte 4) to byte 5 of
     * `high` (buffer byte 506) */
    TEST_OK(kiln_buffer_copy(high, 5, low, 1, 397));
    memmove(mirror + 506, mirror + 4, 397);
    unsigned char back[SIZE];
    TEST_OK(kiln_buffer_read(buffer, 0, back, SIZE));
    assert_memory_equal(back, mirror, SIZE);

    /* ranges of two views that overlap in their buffer are refused */
    TEST_OK(kiln_buffer_create_view(buffer, 200, 400, &other));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_buffer_copy(other, 0, low, 0, 300));
    /* a copy into another buffer, from a view */
    kiln_buffer *target = test_temp_buffer(context, 64);
    TEST_OK(kiln_buffer_copy(target, 0, high, 10, 64));
    unsigned char small[64];
    TEST_OK(kiln_buffer_read(target, 0, small, 64));
    assert_memory_equal(small, mirror + 511, 64);
    TEST_OK(kiln_buffer_release(low));
    TEST_OK(kiln_buffer_release(high));
    TEST_OK(kiln_buffer_release(other));
}

static void views_of_views_add_their_offsets(void **state)
{
    kiln_context *context = test_context(state);
    enum { SIZE = 512 };
    unsigned char mirror[SIZE];
    test_random_bytes(mirror, SIZE);
    kiln_buffer *buffer = test_temp_buffer_from(context, mirror, SIZE);
    kiln_buffer *outer = NULL, *inner = NULL, *base = NULL;
    size_t offset = 0;
    TEST_OK(kiln_buffer_create_view(buffer, 100, 300, &outer));
    TEST_OK(kiln_buffer_create_view(outer, 7, 50, &inner));
    TEST_OK(kiln_buffer_get_base(inner, &base, &offset));
    assert_ptr_equal(base, buffer);
    assert_int_equal(offset, 107);
    TEST_OK(kiln_buffer_get_base(buffer, &base, &offset));
    assert_ptr_equal(base, buffer);
    assert_int_equal(offset, 0);
    unsigned char back[50];
    TEST_OK(kiln_buffer_read(inner, 0, back, 50));
    assert_memory_equal(back, mirror + 107, 50);
    /* past the end of the outer view, although inside the buffer */
    kiln_buffer *refused = (kiln_buffer *)&offset;
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_buffer_create_view(outer, 251, 50, &refused));
    assert_ptr_equal(refused, (kiln_buffer *)&offset);
    TEST_OK(kiln_buffer_release(outer));
    TEST_OK(kiln_buffer_read(inner, 0, back, 50)); /* still alive */
    assert_memory_equal(back, mirror + 107, 50);
    TEST_OK(kiln_buffer_release(inner));
}

static void bad_views_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_buffer *buffer = test_temp_buffer(context, 256);
    kiln_buffer *view = NULL;
    TEST_FAILS(KILN_ERR_INVALID_SIZE, kiln_buffer_create_view(buffer, 0, 0, &view));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_buffer_create_view(buffer, 200, 57, &view));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_buffer_create_view(buffer, 257, 1, &view));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS,
               kiln_buffer_create_view(buffer, SIZE_MAX, 2, &view));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_buffer_create_view(NULL, 0, 1, &view));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT, kiln_buffer_create_view(buffer, 0, 1, NULL));
    assert_null(view);
    /* transfers are checked against the view, not its buffer */
    TEST_OK(kiln_buffer_create_view(buffer, 16, 32, &view));
    unsigned char bytes[64] = {1};
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS, kiln_buffer_write(view, 0, bytes, 33));
    TEST_FAILS(KILN_ERR_OUT_OF_BOUNDS, kiln_buffer_read(view, 30, bytes, 3));
    TEST_OK(kiln_buffer_release(view));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_buffer_release(view));
}

static void the_base_outlives_its_views(void **state)
{
    kiln_context *context = test_context(state);
    enum { N = 300 };
    float data[N];
    test_random_floats(data, N, -10, 10);
    kiln_buffer *buffer = NULL, *view = NULL;
    TEST_OK(kiln_buffer_create_from(context, data, sizeof data, &buffer));
    TEST_OK(kiln_buffer_create_view(buffer, 40, 200, &view));
    TEST_OK(kiln_buffer_release(buffer)); /* the view keeps the memory */
    /* The base's memory must not return to the pool: a new buffer of the
     * same size class gets other memory. */
    float other[N];
    test_random_floats(other, N, 20, 30);
    kiln_buffer *fresh = test_temp_buffer_from(context, other, sizeof other);
    (void)fresh;
    float back[50];
    TEST_OK(kiln_buffer_read(view, 0, back, sizeof back));
    assert_memory_equal(back, data + 10, sizeof back);
    TEST_OK(kiln_buffer_release(view));
}

/* ---- kernel arguments ----------------------------------------------------- */

/* dest = a * b over `n` floats with `a` a view starting `shift` floats
 * into its buffer, as PyCUDA's test_simple_kernel_2 does with
 * np.intp(a_gpu) + a.itemsize. */
static void check_multiply_with_view(void **state, kiln_kernel *kernel,
                                     size_t shift, bool expect_refusal)
{
    kiln_context *context = test_context(state);
    enum { N = 400 };
    float a[N], b[N], dest[N], expected[N];
    test_random_floats(a, N, -4, 4);
    test_random_floats(b, N, -4, 4);
    kiln_buffer *a_buffer = test_temp_buffer_from(context, a, sizeof a);
    kiln_buffer *b_buffer = test_temp_buffer_from(context, b, sizeof b);
    kiln_buffer *d_buffer = test_temp_buffer(context, sizeof dest);
    size_t n = N - shift;
    kiln_buffer *a_view = NULL;
    TEST_OK(kiln_buffer_create_view(a_buffer, shift * sizeof(float),
                                    n * sizeof(float), &a_view));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(n)};
    kiln_arg args[] = {KILN_ARG_BUFFER(d_buffer), KILN_ARG_BUFFER(a_view),
                       KILN_ARG_BUFFER(b_buffer)};
    kiln_status status = kiln_launch(kernel, &config, 3, args);
    if (expect_refusal) {
        TEST_FAILS(KILN_ERR_UNSUPPORTED, status);
        TEST_ERROR_MENTIONS("argument 1");
        TEST_ERROR_MENTIONS("CL_DEVICE_MEM_BASE_ADDR_ALIGN");
        TEST_OK(kiln_buffer_release(a_view));
        return;
    }
    TEST_OK(status);
    TEST_OK(kiln_buffer_read(d_buffer, 0, dest, n * sizeof(float)));
    for (size_t i = 0; i < n; ++i)
        expected[i] = a[i + shift] * b[i];
    test_assert_floats_near(dest, expected, n, 0);
    TEST_OK(kiln_buffer_release(a_view));
}

static void cuda_c_kernels_take_views_at_any_offset(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build_cuda(context, multiply_cuda, NULL);
    kiln_kernel *kernel = test_kernel(program, "multiply_them");
    size_t shifts[] = {1, 3, 32, 0, 1 + (size_t)(test_random_u64() % 200)};
    for (size_t k = 0; k < sizeof shifts / sizeof shifts[0]; ++k)
        check_multiply_with_view(state, kernel, shifts[k], false);
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void opencl_c_kernels_take_aligned_views(void **state)
{
    kiln_context *context = test_context(state);
    kiln_program *program = test_build(context, multiply_opencl, NULL);
    kiln_kernel *kernel = test_kernel(program, "multiply_them");
    /* 256 floats, 1024 bytes: a multiple of the base address alignment of
     * the OpenCL devices Kiln runs on (PoCL 128 bytes, NVIDIA 512) */
    check_multiply_with_view(state, kernel, 256, false);
    check_multiply_with_view(state, kernel, 1, !on_cuda(state));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* A view passed with the prepared launch ('P') and a view as the output. */
static void prepared_launches_take_views(void **state)
{
    kiln_context *context = test_context(state);
    /* PyCUDA's doublify (test_prepared_invocation), as written there */
    static const char doublify[] =
        "__global__ void doublify(float *a)\n"
        "{\n"
        "  int idx = threadIdx.x + threadIdx.y*blockDim.x;\n"
        "  a[idx] *= 2;\n"
        "}\n";
    kiln_program *program = test_build_cuda(context, doublify, NULL);
    kiln_kernel *kernel = test_kernel(program, "doublify");
    float a[16], back[16];
    test_random_floats(a, 16, -8, 8);
    kiln_buffer *buffer = test_temp_buffer_from(context, a, sizeof a);
    kiln_buffer *view = NULL;
    TEST_OK(kiln_buffer_create_view(buffer, sizeof(float), 15 * sizeof(float),
                                    &view));
    TEST_OK(kiln_kernel_prepare(kernel, "P"));
    kiln_launch_config config = {.grid = KILN_DIM1(1), .block = KILN_DIM1(15)};
    TEST_OK(kiln_launch_prepared_call(kernel, &config, view));
    TEST_OK(kiln_launch_prepared_call(kernel, &config, view));
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    assert_true(back[0] == a[0]);
    for (int i = 1; i < 16; ++i)
        if (back[i] != 4 * a[i])
            fail_msg("element %d: %g, expected %g", i, back[i], 4 * a[i]);
    TEST_OK(kiln_buffer_release(view));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

/* The native handle of a view points at its first byte (CUDA), or is a
 * sub-buffer when OpenCL can make one. */
static void native_handles_of_views(void **state)
{
    kiln_context *context = test_context(state);
    kiln_buffer *buffer = test_temp_buffer(context, 8192);
    kiln_buffer *aligned = NULL, *odd = NULL;
    TEST_OK(kiln_buffer_create_view(buffer, 4096, 1024, &aligned));
    TEST_OK(kiln_buffer_create_view(buffer, 4, 1024, &odd));
    uint64_t base = 0, view = 0;
    void *handle = NULL;
    if (on_cuda(state)) {
        TEST_OK(kiln_buffer_get_native(buffer, &base, sizeof base));
        TEST_OK(kiln_buffer_get_native(odd, &view, sizeof view));
        assert_int_equal(view, base + 4);
    } else {
        TEST_OK(kiln_buffer_get_native(aligned, &handle, sizeof handle));
        assert_non_null(handle);
        TEST_FAILS(KILN_ERR_UNSUPPORTED,
                   kiln_buffer_get_native(odd, &handle, sizeof handle));
    }
    TEST_OK(kiln_buffer_release(aligned));
    TEST_OK(kiln_buffer_release(odd));
}

int main(void)
{
    const kiln_test tests[] = {
        KILN_TEST(transfers_through_views_land_at_their_offset),
        KILN_TEST(copies_between_views_of_one_buffer),
        KILN_TEST(views_of_views_add_their_offsets),
        KILN_TEST(bad_views_are_refused),
        KILN_TEST(the_base_outlives_its_views),
        KILN_TEST(cuda_c_kernels_take_views_at_any_offset),
        KILN_TEST(opencl_c_kernels_take_aligned_views),
        KILN_TEST(prepared_launches_take_views),
        KILN_TEST(native_handles_of_views),
    };
    return kiln_test_main("buffer_view", tests, sizeof tests / sizeof tests[0]);
}
