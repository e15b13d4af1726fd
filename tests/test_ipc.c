/*
 * Buffers shared between processes (kiln_buffer_get_ipc_handle,
 * kiln_buffer_open_ipc_handle).  On a backend without IPC (OpenCL) both
 * refuse with KILN_ERR_UNSUPPORTED and say to stage through host memory.
 * Where it works (CUDA) the test runs itself again as a second process
 * (on the second GPU when there is one): the child opens the parent's
 * buffer, checks the parent's random bytes, writes its own, and the parent
 * checks those.  Bytes that are not a handle are refused everywhere, as are
 * a view's handle and a handle opened by the process that exported it.
 */
#include "config.h"

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_VARIABLE "KILN_TEST_IPC_CHILD"
#define SHARED_BYTES (((size_t)3 << 20) + 44)

/* Both processes make the same bytes from a seed. */
static void seeded_bytes(unsigned char *out, size_t size, uint64_t seed)
{
    uint64_t x = seed;
    for (size_t i = 0; i < size; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        out[i] = (unsigned char)(x >> 56);
    }
}

static void to_hex(const unsigned char *bytes, size_t size, char *out)
{
    for (size_t i = 0; i < size; ++i)
        sprintf(out + 2 * i, "%02x", bytes[i]);
}

static bool from_hex(const char *text, unsigned char *bytes, size_t size)
{
    if (strlen(text) != 2 * size)
        return false;
    for (size_t i = 0; i < size; ++i) {
        unsigned value = 0;
        if (sscanf(text + 2 * i, "%2x", &value) != 1)
            return false;
        bytes[i] = (unsigned char)value;
    }
    return true;
}

/* The second process: KILN_TEST_IPC_CHILD="BACKEND DEVICE SEED HEX".
 * Exit status 0 when every step worked; the reason on stderr otherwise. */
static int ipc_child(const char *request)
{
    char backend[16], hex[2 * KILN_IPC_HANDLE_SIZE + 1];
    int device = 0;
    unsigned long long seed = 0;
    kiln_ipc_handle handle;
    if (sscanf(request, "%15s %d %llu %256s", backend, &device, &seed, hex) !=
            4 ||
        !from_hex(hex, handle.bytes, sizeof handle.bytes)) {
        fprintf(stderr, "child: bad request '%s'\n", request);
        return 2;
    }
    kiln_context *context = NULL;
    kiln_buffer *shared = NULL;
    unsigned char *expected = malloc(SHARED_BYTES);
    unsigned char *back = malloc(SHARED_BYTES);
    int code = 0;
    kiln_status status = kiln_context_create(backend, device, &context);
    if (status == KILN_OK)
        status = kiln_buffer_open_ipc_handle(context, &handle, &shared);
    size_t size = 0;
    if (status == KILN_OK)
        status = kiln_buffer_get_size(shared, &size);
    if (status == KILN_OK && size != SHARED_BYTES) {
        fprintf(stderr, "child: the opened buffer has %zu bytes\n", size);
        code = 3;
    }
    if (status == KILN_OK && code == 0)
        status = kiln_buffer_read(shared, 0, back, SHARED_BYTES);
    if (status == KILN_OK && code == 0) {
        seeded_bytes(expected, SHARED_BYTES, seed);
        if (memcmp(back, expected, SHARED_BYTES) != 0) {
            fprintf(stderr, "child: the parent's bytes differ\n");
            code = 4;
        }
    }
    /* Reopening it here is not re-exporting: refused. */
    kiln_ipc_handle again;
    if (status == KILN_OK && code == 0 &&
        kiln_buffer_get_ipc_handle(shared, &again) !=
            KILN_ERR_INVALID_ARGUMENT) {
        fprintf(stderr, "child: an opened buffer gave a handle\n");
        code = 5;
    }
    if (status == KILN_OK && code == 0) {
        seeded_bytes(expected, SHARED_BYTES, seed + 1);
        status = kiln_buffer_write(shared, 0, expected, SHARED_BYTES);
    }
    if (status == KILN_OK && code == 0)
        status = kiln_context_synchronize(context);
    if (status != KILN_OK) {
        fprintf(stderr, "child: %s: %s\n", kiln_status_name(status),
                kiln_last_error());
        code = 1;
    }
    if (shared != NULL && kiln_buffer_release(shared) != KILN_OK && code == 0)
        code = 6;
    if (context != NULL && kiln_context_release(context) != KILN_OK &&
        code == 0)
        code = 7;
    free(expected);
    free(back);
    return code;
}

/* Runs this program again with the request in the environment. */
static int run_child(const char *request)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv(CHILD_VARIABLE, request, 1);
        execl("/proc/self/exe", "test_ipc", (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void bytes_that_are_not_a_handle_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    kiln_ipc_handle handle;
    kiln_buffer *opened = NULL;
    memset(&handle, 0, sizeof handle);
    kiln_status expected_status = KILN_ERR_INVALID_ARGUMENT;
    TEST_FAILS(expected_status,
               kiln_buffer_open_ipc_handle(context, &handle, &opened));
    TEST_ERROR_MENTIONS("not a handle");
    test_random_bytes(handle.bytes, sizeof handle.bytes);
    TEST_FAILS(expected_status,
               kiln_buffer_open_ipc_handle(context, &handle, &opened));
    assert_null(opened);
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_buffer_open_ipc_handle(NULL, &handle, &opened));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_open_ipc_handle(context, NULL, &opened));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_open_ipc_handle(context, &handle, NULL));

    kiln_buffer *buffer = test_buffer(context, 1024);
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_get_ipc_handle(buffer, NULL));
    /* A view shares memory it does not start: its base is what to share. */
    kiln_buffer *view = NULL;
    TEST_OK(kiln_buffer_create_view(buffer, 256, 512, &view));
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_get_ipc_handle(view, &handle));
    TEST_ERROR_MENTIONS("view");
    TEST_OK(kiln_buffer_release(view));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_buffer_get_ipc_handle(NULL, &handle));
    TEST_OK(kiln_buffer_release(buffer));
    TEST_FAILS(KILN_ERR_INVALID_HANDLE,
               kiln_buffer_get_ipc_handle(buffer, &handle));
}

static void buffers_are_shared_with_another_process(void **state)
{
    kiln_context *context = test_context(state);
    const char *backend = test_backend(state);
    uint64_t seed = test_random_u64() >> 1;
    unsigned char *data = test_alloc(SHARED_BYTES);
    seeded_bytes(data, SHARED_BYTES, seed);
    kiln_buffer *buffer = test_buffer_from(context, data, SHARED_BYTES);
    kiln_ipc_handle handle;
    kiln_status status = kiln_buffer_get_ipc_handle(buffer, &handle);
    if (status == KILN_ERR_UNSUPPORTED) {
        /* No IPC on this backend: the refusal says what to do instead,
         * and a handle cannot be opened either. */
        TEST_ERROR_MENTIONS(backend);
        TEST_ERROR_MENTIONS("host memory");
        memset(&handle, 0, sizeof handle);
        kiln_buffer *opened = NULL;
        TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
                   kiln_buffer_open_ipc_handle(context, &handle, &opened));
        print_message("# %s: no IPC handles (staged instead)\n", backend);
        TEST_OK(kiln_buffer_release(buffer));
        free(data);
        return;
    }
    TEST_OK(status);

    /* Another process sees only what has landed: a blocking write from
     * pageable memory may still be on its way (kiln.h). */
    TEST_OK(kiln_context_synchronize(context));

    /* Not in the process that exported it. */
    kiln_buffer *mine = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_open_ipc_handle(context, &handle, &mine));
    TEST_ERROR_MENTIONS("this process exported");

    int count = 0;
    TEST_OK(kiln_device_get_count(backend, &count));
    int device = count > 1 ? 1 : 0;
    char hex[2 * KILN_IPC_HANDLE_SIZE + 1];
    to_hex(handle.bytes, sizeof handle.bytes, hex);
    char request[64 + sizeof hex];
    snprintf(request, sizeof request, "%s %d %llu %s", backend, device,
             (unsigned long long)seed, hex);
    print_message("# a second process opens it on %s device %d\n", backend,
                  device);
    assert_int_equal(run_child(request), 0);

    /* The child's bytes, written through its mapping. */
    unsigned char *expected = test_alloc(SHARED_BYTES);
    unsigned char *back = test_alloc(SHARED_BYTES);
    seeded_bytes(expected, SHARED_BYTES, seed + 1);
    TEST_OK(kiln_buffer_read(buffer, 0, back, SHARED_BYTES));
    assert_memory_equal(back, expected, SHARED_BYTES);

    TEST_OK(kiln_buffer_release(buffer));
    free(expected);
    free(back);
    free(data);
}

/* A handle opened in a context of another backend is refused by name. */
static void handles_of_another_backend_are_refused(void **state)
{
    kiln_context *context = test_context(state);
    const char *backend = test_backend(state);
    kiln_buffer *buffer = test_buffer(context, 4096);
    kiln_ipc_handle handle;
    kiln_status status = kiln_buffer_get_ipc_handle(buffer, &handle);
    if (status == KILN_ERR_UNSUPPORTED) {
        TEST_OK(kiln_buffer_release(buffer));
        skip();
    }
    TEST_OK(status);
    const char *other = strcmp(backend, "cuda") == 0 ? "opencl" : "cuda";
    kiln_context *foreign = NULL;
    if (kiln_context_create(other, 0, &foreign) != KILN_OK) {
        TEST_OK(kiln_buffer_release(buffer));
        skip();
    }
    kiln_buffer *opened = NULL;
    TEST_FAILS(KILN_ERR_INVALID_ARGUMENT,
               kiln_buffer_open_ipc_handle(foreign, &handle, &opened));
    TEST_ERROR_MENTIONS(backend);
    TEST_OK(kiln_context_release(foreign));
    TEST_OK(kiln_buffer_release(buffer));
}

int main(void)
{
    const char *request = getenv(CHILD_VARIABLE);
    if (request != NULL)
        return ipc_child(request);
    const kiln_test tests[] = {
        KILN_TEST(bytes_that_are_not_a_handle_are_refused),
        KILN_TEST(buffers_are_shared_with_another_process),
        KILN_TEST(handles_of_another_backend_are_refused),
    };
    return kiln_test_main("ipc", tests, sizeof tests / sizeof tests[0]);
}
