/*
 * Threads (issue 6): eight threads x 1000 iterations, on one shared context
 * and on a context each, every iteration creating buffers of a random size,
 * building a program (four different texts, each with two -D values, plus
 * one text per thread that no cache holds), launching it, reading back and
 * checking every element against the CPU; on the shared context each
 * iteration also launches one kernel object shared by all threads.  So that
 * 16000 builds stay fast on PoCL, repeated builds must come from the
 * memory cache: each thread may miss it at most once per (text, options).
 * Also: reference counts changed from many threads, and the last error
 * being per thread.
 *
 * Workers never call cmocka (its asserts jump out of the calling thread):
 * they record their first failure, and the main thread reports it.
 */
#define _POSIX_C_SOURCE 200809L /* pthread barriers under -std=c11 */

#include "harness.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    THREADS = 8,
    VARIANTS = 4, /* distinct kernel texts */
    SALTS = 2,    /* -DSALT values: each text is built two ways */
    /* Builds in one context that may miss the memory cache: every
     * (text, salt) pair once per thread (threads may miss the same pair at
     * the same moment) plus the thread's own text. */
    MISSES_PER_THREAD = VARIANTS * SALTS + 1,
};

/* The kernels differ in their text, not only in options, so that several
 * programs are in the caches at once.  NONCE is 0 in the shared texts and
 * unique in each thread's own text, which no cache can hold. */
static const char *const variant_bodies[VARIANTS] = {
    "y[i] = y[i] * a + x[i] + SALT + NONCE;",
    "y[i] = (y[i] ^ x[i]) * a + SALT + NONCE;",
    "y[i] = y[i] - x[i] * a + SALT + NONCE;",
    "y[i] = rotate(y[i], x[i] & 31u) + a + SALT + NONCE;",
};

static void mix_source(char *out, size_t size, int variant, uint32_t nonce)
{
    snprintf(out, size,
             "#define NONCE %#xu\n"
             "__kernel void mix_values(__global const uint *x,\n"
             "                         __global uint *y, uint a, int n)\n"
             "{\n"
             "    int i = get_global_id(0);\n"
             "    if (i < n)\n"
             "        %s\n"
             "}\n",
             (unsigned)nonce, variant_bodies[variant]);
}

/* The CPU's version of each variant. */
static uint32_t mix_reference(int variant, uint32_t salt, uint32_t nonce,
                              uint32_t x, uint32_t y, uint32_t a)
{
    uint32_t r = x & 31u;
    switch (variant) {
    case 0:
        return y * a + x + salt + nonce;
    case 1:
        return (y ^ x) * a + salt + nonce;
    case 2:
        return y - x * a + salt + nonce;
    default:
        return (r ? (y << r) | (y >> (32 - r)) : y) + a + salt + nonce;
    }
}

static char shared_sources[VARIANTS][1024];

typedef struct worker {
    pthread_t thread;
    int index;
    const char *backend;
    kiln_context *context;      /* shared; NULL: the worker makes its own */
    kiln_kernel *shared_kernel; /* variant 0, SALT 0, shared by all workers */
    int iterations;
    uint32_t nonce;             /* of this thread's own text, never 0 */
    uint64_t random_state;
    int launches;
    int builds;
    int origins[3];             /* builds by kiln_program_origin */
    char failure[1024];         /* the first failure, "" if none */
} worker;

static uint64_t worker_random(worker *w)
{
    uint64_t z = (w->random_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool worker_fail(worker *w, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static bool worker_fail(worker *w, const char *format, ...)
{
    if (w->failure[0] == '\0') {
        int length = snprintf(w->failure, sizeof w->failure, "thread %d: ",
                              w->index);
        va_list args;
        va_start(args, format);
        vsnprintf(w->failure + length, sizeof w->failure - (size_t)length,
                  format, args);
        va_end(args);
    }
    return false;
}

#define WORKER_OK(w, call)                                                     \
    do {                                                                       \
        kiln_status worker_status_ = (call);                                   \
        if (worker_status_ != KILN_OK)                                         \
            return worker_fail(w, "%s -> %s: %s", #call,                       \
                               kiln_status_name(worker_status_),               \
                               kiln_last_error());                             \
    } while (0)

/* What a mix_values kernel computes. */
typedef struct mix_kind {
    int variant;
    uint32_t salt, nonce;
} mix_kind;

/* One launch of `kernel` on fresh buffers of random data and size,
 * checked element by element. */
static bool worker_run_mix(worker *w, kiln_context *context,
                           kiln_kernel *kernel, mix_kind kind,
                           kiln_stream *stream)
{
    const int n = 200 + (int)(worker_random(w) % 1800);
    const size_t bytes = (size_t)n * sizeof(uint32_t);
    uint32_t *x = malloc(bytes), *y = malloc(bytes), *back = malloc(bytes);
    if (x == NULL || y == NULL || back == NULL) {
        free(x);
        free(y);
        free(back);
        return worker_fail(w, "out of host memory");
    }
    for (int i = 0; i < n; ++i) {
        x[i] = (uint32_t)worker_random(w);
        y[i] = (uint32_t)worker_random(w);
    }
    const uint32_t a = (uint32_t)worker_random(w) | 1;
    kiln_buffer *x_buffer = NULL, *y_buffer = NULL;
    bool ok = false;
    kiln_status status = kiln_buffer_create_from(context, x, bytes, &x_buffer);
    if (status == KILN_OK)
        status = kiln_buffer_create(context, bytes, &y_buffer);
    if (status == KILN_OK)
        status = kiln_buffer_write_async(y_buffer, 0, y, bytes, stream);
    if (status == KILN_OK) {
        kiln_launch_config config = {
            .grid = KILN_DIM1(((size_t)n + 63) / 64),
            .block = KILN_DIM1(64),
            .stream = stream,
        };
        kiln_arg args[] = {KILN_ARG_BUFFER(x_buffer),
                           KILN_ARG_BUFFER(y_buffer), KILN_ARG_UINT(a),
                           KILN_ARG_INT(n)};
        status = kiln_launch(kernel, &config, 4, args);
    }
    if (status == KILN_OK) {
        if (stream != NULL) {
            status = kiln_buffer_read_async(y_buffer, 0, back, bytes, stream);
            if (status == KILN_OK)
                status = kiln_stream_synchronize(stream);
        } else {
            status = kiln_buffer_read(y_buffer, 0, back, bytes);
        }
    }
    if (status != KILN_OK) {
        worker_fail(w, "mix_values (variant %d, salt %u, n %d): %s: %s",
                    kind.variant, kind.salt, n, kiln_status_name(status),
                    kiln_last_error());
    } else {
        ok = true;
        for (int i = 0; i < n && ok; ++i) {
            uint32_t expected = mix_reference(kind.variant, kind.salt,
                                              kind.nonce, x[i], y[i], a);
            if (back[i] != expected)
                ok = worker_fail(w, "mix_values (variant %d, salt %u, nonce "
                                 "%#x): element %d of %d: got %u, expected %u",
                                 kind.variant, kind.salt, kind.nonce, i, n,
                                 back[i], expected);
        }
        w->launches++;
    }
    if (x_buffer != NULL)
        kiln_buffer_release(x_buffer);
    if (y_buffer != NULL)
        kiln_buffer_release(y_buffer);
    free(x);
    free(y);
    free(back);
    return ok;
}

/* Builds `source` with `kind.salt` in `context`, runs it once on `stream`,
 * releases it. */
static bool worker_build_and_run(worker *w, kiln_context *context,
                                 const char *source, mix_kind kind,
                                 kiln_stream *stream)
{
    char options[32];
    snprintf(options, sizeof options, "-DSALT=%uu", kind.salt);
    kiln_program *program = NULL;
    kiln_kernel *kernel = NULL;
    WORKER_OK(w, kiln_program_build(context, source, options, &program));
    kiln_program_origin origin = (kiln_program_origin)-1;
    kiln_status status = kiln_program_get_origin(program, &origin);
    if (status == KILN_OK && (int)origin >= 0 && (int)origin < 3)
        w->origins[origin]++;
    else
        worker_fail(w, "kiln_program_get_origin: %s, origin %d",
                    kiln_status_name(status), (int)origin);
    w->builds++;
    if (status == KILN_OK)
        status = kiln_kernel_create(program, "mix_values", &kernel);
    /* The kernel keeps the program: release it at once. */
    kiln_program_release(program);
    if (status != KILN_OK)
        return worker_fail(w, "kiln_kernel_create: %s: %s",
                           kiln_status_name(status), kiln_last_error());
    bool ok = worker_run_mix(w, context, kernel, kind, stream);
    kiln_kernel_release(kernel);
    return ok;
}

static bool worker_iteration(worker *w, kiln_context *context,
                             kiln_stream *stream, int iteration)
{
    /* Alternate between the default stream and the thread's own. */
    kiln_stream *on = iteration % 2 ? stream : NULL;
    if (iteration == 0) {
        /* A real compile, at the same time as the other threads'. */
        char source[1024];
        mix_source(source, sizeof source, 0, w->nonce);
        mix_kind kind = {0, 1, w->nonce};
        return worker_build_and_run(w, context, source, kind, on);
    }
    mix_kind kind = {(int)(worker_random(w) % VARIANTS),
                     (uint32_t)(worker_random(w) % SALTS), 0};
    if (!worker_build_and_run(w, context, shared_sources[kind.variant], kind,
                              on))
        return false;
    if (w->shared_kernel != NULL) {
        /* The same kernel object from every thread at once. */
        mix_kind shared = {0, 0, 0};
        if (!worker_run_mix(w, context, w->shared_kernel, shared,
                            iteration % 2 ? NULL : stream))
            return false;
        WORKER_OK(w, kiln_kernel_retain(w->shared_kernel));
        WORKER_OK(w, kiln_kernel_release(w->shared_kernel));
    }
    if (iteration % 200 == 100 + w->index) {
        /* Return pooled memory while the other threads allocate. */
        WORKER_OK(w, kiln_pool_trim(context));
    }
    return true;
}

static bool worker_body(worker *w)
{
    kiln_context *context = w->context;
    if (context == NULL)
        WORKER_OK(w, kiln_context_create(w->backend, -1, &context));
    kiln_stream *stream = NULL;
    kiln_status status = kiln_stream_create(context, &stream);
    if (status != KILN_OK)
        worker_fail(w, "kiln_stream_create: %s: %s", kiln_status_name(status),
                    kiln_last_error());
    bool ok = status == KILN_OK;
    for (int iteration = 0; ok && iteration < w->iterations; ++iteration)
        ok = worker_iteration(w, context, stream, iteration);
    if (stream != NULL)
        kiln_stream_release(stream);
    if (w->context == NULL)
        kiln_context_release(context);
    return ok;
}

static void *worker_main(void *argument)
{
    worker *w = argument;
    (void)worker_body(w);
    return NULL;
}

/* 1000 iterations per thread (issue 6); KILN_TEST_THREAD_ITERATIONS
 * changes that, and valgrind runs (20 times slower) take 20. */
static int stress_iterations(void)
{
    const char *text = getenv("KILN_TEST_THREAD_ITERATIONS");
    if (text != NULL && atoi(text) > 0)
        return atoi(text);
    const char *valgrind = getenv("KILN_TEST_VALGRIND");
    return valgrind != NULL && strcmp(valgrind, "1") == 0 ? 20 : 1000;
}

static void workers_init(void **state, worker *workers, kiln_context *context,
                         kiln_kernel *shared_kernel)
{
    memset(workers, 0, THREADS * sizeof *workers);
    for (int v = 0; v < VARIANTS; ++v)
        mix_source(shared_sources[v], sizeof shared_sources[v], v, 0);
    /* Each run's own texts are new to the disk cache too. */
    uint32_t nonce_base = (uint32_t)test_random_u64() | 1u;
    for (int i = 0; i < THREADS; ++i) {
        workers[i].index = i;
        workers[i].backend = test_backend(state);
        workers[i].context = context;
        workers[i].shared_kernel = shared_kernel;
        workers[i].iterations = stress_iterations();
        workers[i].nonce = nonce_base + 2u * (uint32_t)i;
        workers[i].random_state = test_random_u64();
    }
}

/* Runs the workers, then checks every one finished with every launch
 * checked and that repeated builds came from the memory cache. */
static void run_workers(worker *workers)
{
    for (int i = 0; i < THREADS; ++i)
        if (pthread_create(&workers[i].thread, NULL, worker_main,
                           &workers[i]) != 0)
            fail_msg("cannot start thread %d", i);
    for (int i = 0; i < THREADS; ++i)
        pthread_join(workers[i].thread, NULL);
    int launches = 0, builds = 0, origins[3] = {0, 0, 0};
    for (int i = 0; i < THREADS; ++i) {
        const worker *w = &workers[i];
        if (w->failure[0] != '\0')
            fail_msg("%s", w->failure);
        int expected_launches = w->iterations * (w->shared_kernel ? 2 : 1) -
                                (w->shared_kernel ? 1 : 0);
        if (w->launches != expected_launches || w->builds != w->iterations)
            fail_msg("thread %d: %d launches and %d builds, expected %d and %d",
                     i, w->launches, w->builds, expected_launches,
                     w->iterations);
        int misses = w->origins[KILN_PROGRAM_COMPILED] +
                     w->origins[KILN_PROGRAM_FROM_DISK_CACHE];
        if (misses > MISSES_PER_THREAD)
            fail_msg("thread %d: %d of %d builds missed the memory cache "
                     "(at most %d expected)",
                     i, misses, w->builds, MISSES_PER_THREAD);
        launches += w->launches;
        builds += w->builds;
        for (int o = 0; o < 3; ++o)
            origins[o] += w->origins[o];
    }
    print_message("# %d threads: %d checked launches, %d builds (%d compiled, "
                  "%d from memory, %d from disk)\n",
                  THREADS, launches, builds, origins[0], origins[1],
                  origins[2]);
}

static void many_threads_share_one_context(void **state)
{
    kiln_context *context = test_context(state);
    char source[1024];
    mix_source(source, sizeof source, 0, 0);
    kiln_program *program = test_build(context, source, "-DSALT=0u");
    kiln_kernel *kernel = test_kernel(program, "mix_values");
    worker workers[THREADS];
    workers_init(state, workers, context, kernel);
    run_workers(workers);
    TEST_OK(kiln_context_synchronize(context));
    TEST_OK(kiln_kernel_release(kernel));
    TEST_OK(kiln_program_release(program));
}

static void threads_with_a_context_each(void **state)
{
    (void)test_context(state);
    worker workers[THREADS];
    workers_init(state, workers, NULL, NULL);
    run_workers(workers);
}

/* ---- reference counts from many threads ------------------------------------------ */

typedef struct sharer {
    pthread_t thread;
    kiln_buffer *buffer;
    const uint32_t *expected;
    size_t count;
    char failure[512];
} sharer;

static void *sharer_main(void *argument)
{
    sharer *s = argument;
    uint32_t *back = malloc(s->count * sizeof *back);
    if (back == NULL) {
        snprintf(s->failure, sizeof s->failure, "out of host memory");
        return NULL;
    }
    for (int i = 0; i < 2000 && s->failure[0] == '\0'; ++i) {
        if (kiln_buffer_retain(s->buffer) != KILN_OK)
            snprintf(s->failure, sizeof s->failure, "retain: %s",
                     kiln_last_error());
        if (i % 250 == 0) {
            if (kiln_buffer_read(s->buffer, 0, back,
                                 s->count * sizeof *back) != KILN_OK)
                snprintf(s->failure, sizeof s->failure, "read: %s",
                         kiln_last_error());
            else if (memcmp(back, s->expected, s->count * sizeof *back) != 0)
                snprintf(s->failure, sizeof s->failure, "read wrong data");
        }
        if (kiln_buffer_release(s->buffer) != KILN_OK)
            snprintf(s->failure, sizeof s->failure, "release: %s",
                     kiln_last_error());
    }
    free(back);
    return NULL;
}

static void reference_counts_survive_many_threads(void **state)
{
    kiln_context *context = test_context(state);
    enum { COUNT = 1024 };
    uint32_t data[COUNT];
    test_random_bytes(data, sizeof data);
    kiln_buffer *buffer = test_buffer_from(context, data, sizeof data);
    sharer sharers[THREADS];
    memset(sharers, 0, sizeof sharers);
    for (int i = 0; i < THREADS; ++i) {
        sharers[i].buffer = buffer;
        sharers[i].expected = data;
        sharers[i].count = COUNT;
        if (pthread_create(&sharers[i].thread, NULL, sharer_main,
                           &sharers[i]) != 0)
            fail_msg("cannot start thread %d", i);
    }
    for (int i = 0; i < THREADS; ++i)
        pthread_join(sharers[i].thread, NULL);
    for (int i = 0; i < THREADS; ++i)
        if (sharers[i].failure[0] != '\0')
            fail_msg("thread %d: %s", i, sharers[i].failure);
    /* Exactly our reference is left: the buffer works, and one release
     * frees it (valgrind would see a leak or a double free otherwise). */
    uint32_t back[COUNT];
    TEST_OK(kiln_buffer_read(buffer, 0, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    kiln_pool_stats before, after;
    TEST_OK(kiln_pool_get_stats(context, &before));
    TEST_OK(kiln_buffer_release(buffer));
    TEST_OK(kiln_pool_get_stats(context, &after));
    assert_true(after.bytes_in_use < before.bytes_in_use);
}

/* ---- the last error is per thread --------------------------------------------------- */

typedef struct error_pair {
    kiln_context *context;
    kiln_buffer *buffer;
    pthread_barrier_t failed;   /* the first thread has its error        */
    pthread_barrier_t checked;  /* the second thread has done its calls  */
    char first_message[512];
    char first_after[512];
    char second_after_success[512];
    char second_message[512];
    kiln_status first_status, second_status;
} error_pair;

static void *first_thread(void *argument)
{
    error_pair *pair = argument;
    kiln_buffer *buffer = NULL;
    pair->first_status = kiln_buffer_create(pair->context, 0, &buffer);
    snprintf(pair->first_message, sizeof pair->first_message, "%s",
             kiln_last_error());
    pthread_barrier_wait(&pair->failed);
    pthread_barrier_wait(&pair->checked);
    /* The other thread's failures and successes did not touch ours. */
    snprintf(pair->first_after, sizeof pair->first_after, "%s",
             kiln_last_error());
    return NULL;
}

static void *second_thread(void *argument)
{
    error_pair *pair = argument;
    pthread_barrier_wait(&pair->failed);
    size_t size = 0;
    if (kiln_buffer_get_size(pair->buffer, &size) == KILN_OK)
        snprintf(pair->second_after_success,
                 sizeof pair->second_after_success, "%s", kiln_last_error());
    else
        snprintf(pair->second_after_success,
                 sizeof pair->second_after_success, "kiln_buffer_get_size failed");
    unsigned char byte = 0;
    pair->second_status = kiln_buffer_read(pair->buffer, size + 5, &byte, 1);
    snprintf(pair->second_message, sizeof pair->second_message, "%s",
             kiln_last_error());
    pthread_barrier_wait(&pair->checked);
    return NULL;
}

static void last_error_is_per_thread(void **state)
{
    kiln_context *context = test_context(state);
    /* The main thread's own error must survive the threads too. */
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_stream_release(NULL));
    char main_message[512];
    snprintf(main_message, sizeof main_message, "%s", kiln_last_error());

    error_pair pair;
    memset(&pair, 0, sizeof pair);
    pair.context = context;
    TEST_OK(kiln_buffer_create(context, 100, &pair.buffer));
    /* test_buffer would clear the main thread's error: make it again. */
    TEST_FAILS(KILN_ERR_INVALID_HANDLE, kiln_stream_release(NULL));
    assert_string_equal(kiln_last_error(), main_message);

    pthread_barrier_init(&pair.failed, NULL, 2);
    pthread_barrier_init(&pair.checked, NULL, 2);
    pthread_t first, second;
    assert_int_equal(pthread_create(&first, NULL, first_thread, &pair), 0);
    assert_int_equal(pthread_create(&second, NULL, second_thread, &pair), 0);
    pthread_join(first, NULL);
    pthread_join(second, NULL);
    pthread_barrier_destroy(&pair.failed);
    pthread_barrier_destroy(&pair.checked);

    assert_string_equal(kiln_last_error(), main_message);
    assert_int_equal(pair.first_status, KILN_ERR_INVALID_SIZE);
    assert_true(strlen(pair.first_message) > 0);
    assert_string_equal(pair.first_after, pair.first_message);
    assert_string_equal(pair.second_after_success, "");
    assert_int_equal(pair.second_status, KILN_ERR_OUT_OF_BOUNDS);
    assert_true(strlen(pair.second_message) > 0);
    assert_string_not_equal(pair.second_message, pair.first_message);
    TEST_OK(kiln_buffer_release(pair.buffer));
}

int main(void)
{
    static const kiln_test tests[] = {
        KILN_TEST(many_threads_share_one_context),
        KILN_TEST(threads_with_a_context_each),
        KILN_TEST(reference_counts_survive_many_threads),
        KILN_TEST(last_error_is_per_thread),
    };
    return kiln_test_main("threads", tests, sizeof tests / sizeof *tests);
}
