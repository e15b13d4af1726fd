/*
 * bench_copy — does a copy through Kiln move data as fast as the raw vendor
 * API's copy of the same bytes?
 *
 * Host to device and device to host from pageable (malloc) and page-locked
 * memory (kiln_host_alloc for Kiln; cuMemHostAlloc, or a mapped
 * CL_MEM_ALLOC_HOST_PTR buffer, for the raw side), and device to device;
 * sizes from 4 KiB by powers of 4 up to 1 GiB, capped at a quarter of the
 * device's memory and at what the host can spare (256 MiB on CPU devices,
 * KILN_BENCH_COPY_MAX_MB overrides).  Every copy is the synchronous kind:
 * kiln_buffer_write/read/copy against cuMemcpyHtoD/DtoH and cuMemcpyDtoD +
 * cuStreamSynchronize, or blocking clEnqueueWrite/ReadBuffer and
 * clEnqueueCopyBuffer + clFinish.  Both sides copy between the same device
 * buffers (the raw side uses Kiln's buffers' native handles).  Host clock.
 */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum copy_kind {
    COPY_H2D_PAGEABLE,
    COPY_D2H_PAGEABLE,
    COPY_H2D_PINNED,
    COPY_D2H_PINNED,
    COPY_D2D,
    COPY_KINDS
} copy_kind;

static const char *const copy_names[COPY_KINDS] = {
    "host → device, pageable",
    "device → host, pageable",
    "host → device, page-locked",
    "device → host, page-locked",
    "device → device",
};

typedef struct copy_state {
    bench_env *env;
    copy_kind kind;
    size_t size;
    kiln_buffer *first, *second;      /* device buffers of `capacity` bytes */
    unsigned char *pageable_in;       /* the data */
    unsigned char *pageable_out;
    unsigned char *kiln_pinned;       /* kiln_host_alloc */
    unsigned char *raw_pinned;        /* the raw API's page-locked memory */
#ifdef KILN_BENCH_CUDA
    CUdeviceptr first_pointer, second_pointer;
#endif
#ifdef KILN_BENCH_OPENCL
    cl_mem first_memory, second_memory, raw_pinned_memory;
#endif
} copy_state;

/* ---- one copy each way ------------------------------------------------------ */

static void kiln_copy(const copy_state *s, copy_kind kind, void *host)
{
    switch (kind) {
    case COPY_H2D_PAGEABLE:
    case COPY_H2D_PINNED:
        BENCH_CHECK(kiln_buffer_write(s->first, 0, host, s->size));
        break;
    case COPY_D2H_PAGEABLE:
    case COPY_D2H_PINNED:
        BENCH_CHECK(kiln_buffer_read(s->first, 0, host, s->size));
        break;
    default:
        BENCH_CHECK(kiln_buffer_copy(s->second, 0, s->first, 0, s->size));
        break;
    }
}

static void raw_copy(const copy_state *s, copy_kind kind, void *host)
{
    const bench_env *env = s->env;
    (void)env;
    (void)kind;
    (void)host;
#ifdef KILN_BENCH_CUDA
    if (env->cuda) {
        switch (kind) {
        case COPY_H2D_PAGEABLE:
        case COPY_H2D_PINNED:
            CU_CHECK(cu.cuMemcpyHtoD(s->first_pointer, host, s->size));
            break;
        case COPY_D2H_PAGEABLE:
        case COPY_D2H_PINNED:
            CU_CHECK(cu.cuMemcpyDtoH(host, s->first_pointer, s->size));
            break;
        default:
            /* Device-to-device copies return before they finish. */
            CU_CHECK(cu.cuMemcpyDtoD(s->second_pointer, s->first_pointer,
                                     s->size));
            CU_CHECK(cu.cuStreamSynchronize(NULL));
            break;
        }
        return;
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (env->opencl) {
        switch (kind) {
        case COPY_H2D_PAGEABLE:
        case COPY_H2D_PINNED:
            CL_CHECK(clEnqueueWriteBuffer(env->cl_queue, s->first_memory,
                                          CL_TRUE, 0, s->size, host, 0, NULL,
                                          NULL));
            break;
        case COPY_D2H_PAGEABLE:
        case COPY_D2H_PINNED:
            CL_CHECK(clEnqueueReadBuffer(env->cl_queue, s->first_memory,
                                         CL_TRUE, 0, s->size, host, 0, NULL,
                                         NULL));
            break;
        default:
            CL_CHECK(clEnqueueCopyBuffer(env->cl_queue, s->first_memory,
                                         s->second_memory, 0, 0, s->size, 0,
                                         NULL, NULL));
            CL_CHECK(clFinish(env->cl_queue));
            break;
        }
        return;
    }
#endif
    bench_fail("no raw copy for backend %s", env->backend);
}

/* The host memory each side uses for a kind of copy. */
static void *kiln_host(const copy_state *s, copy_kind kind)
{
    switch (kind) {
    case COPY_H2D_PAGEABLE:
        return s->pageable_in;
    case COPY_D2H_PAGEABLE:
        return s->pageable_out;
    case COPY_H2D_PINNED:
    case COPY_D2H_PINNED:
        return s->kiln_pinned;
    default:
        return NULL;
    }
}

static void *raw_host(const copy_state *s, copy_kind kind)
{
    switch (kind) {
    case COPY_H2D_PINNED:
    case COPY_D2H_PINNED:
        return s->raw_pinned;
    default:
        return kiln_host(s, kind);
    }
}

static double sample_kiln(void *state)
{
    copy_state *s = state;
    void *host = kiln_host(s, s->kind);
    double start = bench_now();
    kiln_copy(s, s->kind, host);
    return bench_now() - start;
}

static double sample_raw(void *state)
{
    copy_state *s = state;
    void *host = raw_host(s, s->kind);
    double start = bench_now();
    raw_copy(s, s->kind, host);
    return bench_now() - start;
}

/* ---- correctness ------------------------------------------------------------- */

static void poison_device(kiln_buffer *buffer, size_t size)
{
    const uint32_t poison = 0xDEADBEEFu;
    BENCH_CHECK(kiln_buffer_fill(buffer, 0, size, &poison, sizeof poison));
}

static void expect_data(const char *what, const unsigned char *got,
                        const unsigned char *expected, size_t size)
{
    if (memcmp(got, expected, size) != 0) {
        size_t at = 0;
        while (got[at] == expected[at])
            ++at;
        bench_fail("%s: %zu bytes arrived wrong (first difference at byte "
                   "%zu)",
                   what, size, at);
    }
}

/* Each way of copying delivers the bytes, checked through the other side
 * (or through Kiln alone without a raw side), with poisoned destinations. */
static void check_copies(copy_state *s)
{
    size_t size = s->size;
    bool raw = s->env->raw;
    unsigned char *out = s->pageable_out;
    for (int pinned = 0; pinned < 2; ++pinned) {
        copy_kind h2d = pinned ? COPY_H2D_PINNED : COPY_H2D_PAGEABLE;
        copy_kind d2h = pinned ? COPY_D2H_PINNED : COPY_D2H_PAGEABLE;
        unsigned char *kiln_in = pinned ? s->kiln_pinned : s->pageable_in;
        unsigned char *kiln_out = pinned ? s->kiln_pinned : out;
        unsigned char *raw_in = pinned ? s->raw_pinned : s->pageable_in;
        unsigned char *raw_out = pinned ? s->raw_pinned : out;
        if (pinned) {
            memcpy(s->kiln_pinned, s->pageable_in, size);
            if (raw)
                memcpy(s->raw_pinned, s->pageable_in, size);
        }
        /* Kiln in, raw (or Kiln) out. */
        poison_device(s->first, size);
        kiln_copy(s, h2d, kiln_in);
        unsigned char *check_out = raw ? raw_out : kiln_out;
        memset(check_out, 0xA5, size);
        if (raw)
            raw_copy(s, d2h, raw_out);
        else
            kiln_copy(s, d2h, kiln_out);
        expect_data(pinned ? "kiln_buffer_write (page-locked)"
                           : "kiln_buffer_write",
                    check_out, s->pageable_in, size);
        if (!raw)
            continue;
        /* Raw in, Kiln out. */
        if (pinned)
            memcpy(s->raw_pinned, s->pageable_in, size);
        poison_device(s->first, size);
        raw_copy(s, h2d, raw_in);
        memset(kiln_out, 0xA5, size);
        kiln_copy(s, d2h, kiln_out);
        expect_data(pinned ? "kiln_buffer_read (page-locked)"
                           : "kiln_buffer_read",
                    kiln_out, s->pageable_in, size);
    }
    /* Device to device, each side, read back through Kiln. */
    BENCH_CHECK(kiln_buffer_write(s->first, 0, s->pageable_in, size));
    for (int side = 0; side < (raw ? 2 : 1); ++side) {
        poison_device(s->second, size);
        if (side == 0)
            kiln_copy(s, COPY_D2D, NULL);
        else
            raw_copy(s, COPY_D2D, NULL);
        memset(out, 0xA5, size);
        BENCH_CHECK(kiln_buffer_read(s->second, 0, out, size));
        expect_data(side == 0 ? "kiln_buffer_copy" : "raw device copy", out,
                    s->pageable_in, size);
    }
}

/* ---- set-up ---------------------------------------------------------------- */

static size_t copy_capacity(const bench_env *env)
{
    uint64_t cap = UINT64_C(1) << 30;
    const char *text = getenv("KILN_BENCH_COPY_MAX_MB");
    if (text != NULL && text[0] != '\0') {
        cap = strtoull(text, NULL, 10) << 20;
    } else {
        /* A CPU device's copies are memcpy on two or so cores: 256 MiB
         * already shows the plateau. */
        if (env->device.type == KILN_DEVICE_CPU)
            cap = UINT64_C(256) << 20;
        if (bench_quick())
            cap = UINT64_C(16) << 20;
    }
    /* Two device buffers: a quarter of the device's memory each at most. */
    while (cap > 4096 && cap > env->device.global_memory / 4)
        cap /= 4;
    while (cap > 4096 && env->device.max_allocation != 0 &&
           cap > env->device.max_allocation)
        cap /= 4;
    /* Four host buffers of `cap` bytes in half the host's memory, six
     * where the device's memory is the host's too. */
    uint64_t copies = env->device.type == KILN_DEVICE_CPU ||
                              env->device.unified_memory
                          ? 6
                          : 4;
    while (cap > 4096 && copies * cap > bench_host_memory() / 2)
        cap /= 4;
    if (cap < 4096)
        cap = 4096;
    return (size_t)cap;
}

static void raw_open(copy_state *s, size_t capacity)
{
    bench_env *env = s->env;
    (void)capacity;
    if (!env->raw)
        return;
#ifdef KILN_BENCH_CUDA
    if (env->cuda) {
        s->first_pointer = bench_cuda_pointer(s->first);
        s->second_pointer = bench_cuda_pointer(s->second);
        CU_CHECK(cu.cuMemHostAlloc((void **)&s->raw_pinned, capacity, 0));
    }
#endif
#ifdef KILN_BENCH_OPENCL
    if (env->opencl) {
        s->first_memory = bench_cl_mem(s->first);
        s->second_memory = bench_cl_mem(s->second);
        cl_int error = CL_SUCCESS;
        s->raw_pinned_memory =
            clCreateBuffer(env->cl_context,
                           CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, capacity,
                           NULL, &error);
        CL_CHECK(error);
        s->raw_pinned = clEnqueueMapBuffer(
            env->cl_queue, s->raw_pinned_memory, CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE, 0, capacity, 0, NULL, NULL, &error);
        CL_CHECK(error);
    }
#endif
}

static void raw_close(copy_state *s)
{
    bench_env *env = s->env;
    (void)env;
    if (!env->raw)
        return;
#ifdef KILN_BENCH_CUDA
    if (env->cuda)
        CU_CHECK(cu.cuMemFreeHost(s->raw_pinned));
#endif
#ifdef KILN_BENCH_OPENCL
    if (env->opencl) {
        CL_CHECK(clEnqueueUnmapMemObject(env->cl_queue, s->raw_pinned_memory,
                                         s->raw_pinned, 0, NULL, NULL));
        CL_CHECK(clFinish(env->cl_queue));
        CL_CHECK(clReleaseMemObject(s->raw_pinned_memory));
    }
#endif
}

int main(int argc, char **argv)
{
    bench_env env;
    bench_open(&env, "bench_copy: copy bandwidth", argc, argv);
    size_t capacity = copy_capacity(&env);

    copy_state s = {.env = &env};
    bench_progress("allocating 2 x %zu MiB on the device, 4 x on the host",
                   capacity >> 20);
    BENCH_CHECK(kiln_buffer_create(env.context, capacity, &s.first));
    BENCH_CHECK(kiln_buffer_create(env.context, capacity, &s.second));
    s.pageable_in = bench_malloc(capacity);
    s.pageable_out = bench_malloc(capacity);
    BENCH_CHECK(kiln_host_alloc(env.context, capacity, (void **)&s.kiln_pinned));
    raw_open(&s, capacity);
    /* Random bytes (never zeros), and every page touched before timing. */
    bench_rng rng = {UINT64_C(0xC0B1)};
    for (size_t i = 0; i + 8 <= capacity; i += 8) {
        uint64_t word = bench_rng_next(&rng);
        memcpy(s.pageable_in + i, &word, 8);
    }
    memset(s.pageable_out, 0x5A, capacity);
    memset(s.kiln_pinned, 0x5A, capacity);
    if (env.raw)
        memset(s.raw_pinned, 0x5A, capacity);

    size_t sizes[16];
    size_t size_count = 0;
    for (size_t size = 4096; size <= capacity && size_count < 16; size *= 4)
        sizes[size_count++] = size;

    for (size_t i = 0; i < size_count; ++i) {
        s.size = sizes[i];
        check_copies(&s);
    }
    bench_progress("all copies checked at every size");

    char raw_name[96];
    snprintf(raw_name, sizeof raw_name, "%s",
             !env.raw ? "unavailable"
             : env.cuda ? "cuMemcpy*, cuMemHostAlloc"
                        : "clEnqueue*Buffer, mapped ALLOC_HOST_PTR");
    bench_table_begin("Copy bandwidth (GB/s = 10^9 bytes/s of data copied)",
                      raw_name);
    size_t unmet = 0, rows = 0;
    for (int kind = 0; kind < COPY_KINDS; ++kind) {
        for (size_t i = 0; i < size_count; ++i) {
            s.kind = (copy_kind)kind;
            s.size = sizes[i];
            bench_variant variants[] = {
                {.name = "kiln", .run = sample_kiln, .state = &s},
                {.name = "raw", .run = sample_raw, .state = &s},
            };
            char size_text[32];
            bench_format_bytes(size_text, sizeof size_text, s.size);
            bench_progress("%s, %s", copy_names[kind], size_text);
            bench_measure(variants, env.raw ? 2 : 1, 2, 5, 400,
                          bench_budget(0.4));
            bench_stats k = bench_stats_of(&variants[0].samples);
            bench_stats r = bench_stats_of(&variants[1].samples);
            double gigabytes = (double)s.size / 1e9;
            char kiln_text[96], raw_text[96], compare[32] = "—";
            bench_format_rate(kiln_text, sizeof kiln_text, &k, gigabytes,
                              "GB/s");
            bench_format_rate(raw_text, sizeof raw_text, &r, gigabytes,
                              "GB/s");
            bool known = r.count > 0;
            /* Bandwidth ratio: raw time over Kiln time. */
            double ratio = known ? r.median / k.median : 0.0;
            if (known)
                snprintf(compare, sizeof compare, "%.3f×", ratio);
            /* At least 95% of raw's bandwidth: at most raw's time / 0.95. */
            const char *verdict =
                known ? bench_judge(&k, &r, 1.0 / 0.95, 0.0) : "—";
            bench_table_row(copy_names[kind], size_text, kiln_text, raw_text,
                            compare, "≥ 0.95× raw", verdict);
            rows += known;
            unmet += strcmp(verdict, "**NO**") == 0;
            bench_samples_free(&variants[0].samples);
            bench_samples_free(&variants[1].samples);
        }
    }
    bench_table_end();
    bench_note("Host clock around each synchronous copy; \"Kiln vs raw\" is "
               "Kiln's bandwidth over raw's (medians). Device → device counts "
               "the bytes copied once (twice that crosses the memory bus). "
               "%zu of %zu rows miss the budget by more than the noise.",
               unmet, rows);

    raw_close(&s);
    BENCH_CHECK(kiln_host_free(env.context, s.kiln_pinned));
    BENCH_CHECK(kiln_buffer_release(s.first));
    BENCH_CHECK(kiln_buffer_release(s.second));
    free(s.pageable_in);
    free(s.pageable_out);
    bench_close(&env);
    return EXIT_SUCCESS;
}
