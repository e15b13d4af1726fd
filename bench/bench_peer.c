/*
 * bench_peer — how fast does kiln_buffer_copy move data between buffers of
 * two contexts?
 *
 * Every ordered pair of the devices named on the command line (default:
 * every device kiln_device_list gives), one context each, synchronous
 * kiln_buffer_copy from a buffer of one to a buffer of the other, host
 * clock.  The reference ("raw") is what the same bytes cost without Kiln:
 * a host memcpy between two malloc'ed buffers for a pair Kiln stages
 * through host memory (two backends, two OpenCL contexts), and cuMemcpyPeer
 * + cuCtxSynchronize between the same two buffers for two CUDA devices.
 * The copied bytes are checked once per pair and size.
 *
 *   bench_peer [BACKEND:INDEX ...]       e.g. bench_peer cuda:0 opencl:1
 *
 * Sizes: 4 MiB, 64 MiB and 256 MiB (KILN_BENCH_QUICK=1: 1 and 16 MiB),
 * capped at a quarter of the smaller device's largest allocation.
 */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 16

typedef struct peer_device {
    kiln_device_info info;
    kiln_context *context;
} peer_device;

typedef struct peer_state {
    peer_device *from, *to;
    kiln_buffer *source, *destination;
    size_t size;
    unsigned char *host_source, *host_destination; /* the memcpy reference */
#ifdef KILN_BENCH_CUDA
    CUdeviceptr source_pointer, destination_pointer;
    CUcontext source_context, destination_context;
#endif
} peer_state;

static double run_kiln(void *state)
{
    peer_state *s = state;
    double start = bench_now();
    BENCH_CHECK(kiln_buffer_copy(s->destination, 0, s->source, 0, s->size));
    return bench_now() - start;
}

static double run_memcpy(void *state)
{
    peer_state *s = state;
    double start = bench_now();
    memcpy(s->host_destination, s->host_source, s->size);
    return bench_now() - start;
}

#ifdef KILN_BENCH_CUDA
static double run_cuda_peer(void *state)
{
    peer_state *s = state;
    double start = bench_now();
    CU_CHECK(cu.cuCtxSetCurrent(s->destination_context));
    CU_CHECK(cu.cuMemcpyPeer(s->destination_pointer, s->destination_context,
                             s->source_pointer, s->source_context, s->size));
    CU_CHECK(cu.cuCtxSynchronize());
    return bench_now() - start;
}
#endif

static void open_device(peer_device *device, const char *backend, int index)
{
    BENCH_CHECK(kiln_device_get_info(backend, index, &device->info));
    BENCH_CHECK(kiln_context_create(backend, index, &device->context));
}

#ifdef KILN_BENCH_CUDA
static bool both_cuda(const peer_state *s)
{
    return strcmp(s->from->info.backend, "cuda") == 0 &&
           strcmp(s->to->info.backend, "cuda") == 0 &&
           s->from->info.index != s->to->info.index;
}
#endif

static void measure_pair(peer_device *from, peer_device *to, size_t size)
{
    peer_state s = {.from = from, .to = to, .size = size};
    BENCH_CHECK(kiln_buffer_create(from->context, size, &s.source));
    BENCH_CHECK(kiln_buffer_create(to->context, size, &s.destination));
    s.host_source = bench_malloc(size);
    s.host_destination = bench_malloc(size);
    bench_rng rng = {size ^ 0x5eedu};
    for (size_t i = 0; i < size; i += 8) {
        uint64_t word = bench_rng_next(&rng);
        memcpy(s.host_source + i, &word, size - i < 8 ? size - i : 8);
    }
    memset(s.host_destination, 0, size);
    BENCH_CHECK(kiln_buffer_write(s.source, 0, s.host_source, size));

    /* Correct first: the copy, read back, equals what was written. */
    BENCH_CHECK(kiln_buffer_copy(s.destination, 0, s.source, 0, size));
    BENCH_CHECK(kiln_buffer_read(s.destination, 0, s.host_destination, size));
    if (memcmp(s.host_destination, s.host_source, size) != 0)
        bench_fail("%s %d -> %s %d: the copied bytes differ", from->info.backend,
                   from->info.index, to->info.backend, to->info.index);

    bench_variant variants[2] = {{.name = "kiln", .run = run_kiln, .state = &s},
                                 {.name = "raw", .run = run_memcpy, .state = &s}};
    const char *raw_name = "host memcpy";
#ifdef KILN_BENCH_CUDA
    if (both_cuda(&s)) {
        s.source_pointer = bench_cuda_pointer(s.source);
        s.destination_pointer = bench_cuda_pointer(s.destination);
        BENCH_CHECK(kiln_context_get_native(from->context, &s.source_context,
                                        sizeof s.source_context));
        BENCH_CHECK(kiln_context_get_native(to->context, &s.destination_context,
                                        sizeof s.destination_context));
        variants[1].run = run_cuda_peer;
        raw_name = "cuMemcpyPeer";
    }
#endif
    bench_measure(variants, 2, 1, 3, 50, bench_budget(0.5));
    bench_stats kiln = bench_stats_of(&variants[0].samples);
    bench_stats raw = bench_stats_of(&variants[1].samples);
    char what[256], bytes[32], kiln_text[64], raw_text[64], compare[64];
    snprintf(what, sizeof what, "%.15s %d → %.15s %d (vs %.20s)", from->info.backend,
             from->info.index, to->info.backend, to->info.index, raw_name);
    bench_format_bytes(bytes, sizeof bytes, size);
    bench_format_rate(kiln_text, sizeof kiln_text, &kiln, (double)size / 1e9,
                      "GB/s");
    bench_format_rate(raw_text, sizeof raw_text, &raw, (double)size / 1e9,
                      "GB/s");
    snprintf(compare, sizeof compare, "%.0f%%",
             100.0 * raw.median / kiln.median);
    bench_table_row(what, bytes, kiln_text, raw_text, compare, "—",
                    bench_verdict(false, false));
    bench_samples_free(&variants[0].samples);
    bench_samples_free(&variants[1].samples);
    BENCH_CHECK(kiln_buffer_release(s.source));
    BENCH_CHECK(kiln_buffer_release(s.destination));
    free(s.host_source);
    free(s.host_destination);
}

int main(int argc, char **argv)
{
    peer_device devices[MAX_DEVICES];
    size_t count = 0;
    if (argc > 1) {
        for (int i = 1; i < argc && count < MAX_DEVICES; ++i) {
            char backend[32];
            int index = 0;
            if (sscanf(argv[i], "%31[a-z]:%d", backend, &index) != 2)
                bench_fail("'%s': name a device as BACKEND:INDEX (cuda:0)",
                           argv[i]);
            open_device(&devices[count++], backend, index);
        }
    } else {
        kiln_device_info listed[MAX_DEVICES];
        size_t total = 0;
        BENCH_CHECK(kiln_device_list(listed, MAX_DEVICES, &total));
        for (size_t i = 0; i < total && i < MAX_DEVICES; ++i)
            open_device(&devices[count++], listed[i].backend, listed[i].index);
    }
    printf("## bench_peer: copies between contexts\n\n");
    for (size_t i = 0; i < count; ++i)
        printf("- %s %d: %s\n", devices[i].info.backend, devices[i].info.index,
               devices[i].info.name);
    if (count < 2) {
        printf("\nskipped: one device only (POCL_DEVICES=\"pthread pthread\" "
               "gives PoCL two)\n");
        return BENCH_EXIT_SKIPPED;
    }
#ifdef KILN_BENCH_CUDA
    bool any_cuda_pair = false;
    for (size_t i = 0; i < count; ++i)
        for (size_t j = 0; j < count; ++j)
            any_cuda_pair |= i != j &&
                             strcmp(devices[i].info.backend, "cuda") == 0 &&
                             strcmp(devices[j].info.backend, "cuda") == 0 &&
                             devices[i].info.index != devices[j].info.index;
    char why[256];
    if (any_cuda_pair && !bench_cuda_api_open(why, sizeof why))
        bench_fail("the raw CUDA side: %s", why);
#endif

    size_t sizes[3] = {(size_t)4 << 20, (size_t)64 << 20, (size_t)256 << 20};
    size_t size_count = 3;
    if (bench_quick()) {
        sizes[0] = (size_t)1 << 20;
        sizes[1] = (size_t)16 << 20;
        size_count = 2;
    }
    bench_table_begin("kiln_buffer_copy between two contexts, synchronous",
                      "host memcpy or cuMemcpyPeer");
    for (size_t i = 0; i < count; ++i)
        for (size_t j = 0; j < count; ++j) {
            if (i == j)
                continue;
            uint64_t cap = devices[i].info.max_allocation;
            if (devices[j].info.max_allocation < cap)
                cap = devices[j].info.max_allocation;
            for (size_t k = 0; k < size_count; ++k)
                if (cap == 0 || sizes[k] <= cap / 4)
                    measure_pair(&devices[i], &devices[j], sizes[k]);
        }
    bench_table_end();
    bench_note("Pairs of two backends, or of two OpenCL contexts, are staged "
               "by the host through page-locked memory in 4 MiB chunks; the "
               "memcpy column is the host copying the same bytes once, "
               "between two pageable buffers (100%% would be a copy as fast "
               "as memcpy).  Two CUDA devices copy directly (peer access) or "
               "through the driver's staging.");
    for (size_t i = 0; i < count; ++i)
        BENCH_CHECK(kiln_context_release(devices[i].context));
    return 0;
}
