/*
 * kiln-info: what Kiln can use on this machine.
 *
 *   kiln-info            every backend (loaded or not, with the reason) and
 *                        its devices, one line each, like `clinfo -l`
 *   kiln-info -v         every property of every device
 *   kiln-info --cache    where the kernel cache is, its entries and size
 *   kiln-info --clear-cache   empty the kernel cache
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kiln.h"
#include "tool_options.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kiln-info [-v|--verbose] [--cache] [--clear-cache]\n"
            "       kiln-info -h|--help | -V|--version\n"
            "Lists Kiln's backends, why any cannot be used, and their "
            "devices.\n"
            "  -v, --verbose   show every device property\n"
            "  --cache         show the kernel cache's place and size\n"
            "  --clear-cache   delete every kernel cache entry\n"
            "  -h, --help      show this and exit\n"
            "  -V, --version   show the version and exit\n"
            "Exit status: 0 done, 1 a Kiln call failed, 2 usage.\n");
}

static const char *device_type_name(kiln_device_type type)
{
    switch (type) {
    case KILN_DEVICE_GPU:
        return "GPU";
    case KILN_DEVICE_CPU:
        return "CPU";
    case KILN_DEVICE_ACCELERATOR:
        return "accelerator";
    case KILN_DEVICE_OTHER:
        break;
    }
    return "other";
}

static void print_bytes(const char *label, uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = (double)bytes;
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    printf("      %-26s %" PRIu64 " (%.1f %s)\n", label, bytes, value,
           units[unit]);
}

static void print_device_detail(const kiln_device_info *device)
{
    printf("      %-26s %s\n", "type", device_type_name(device->type));
    printf("      %-26s %s\n", "vendor", device->vendor);
    printf("      %-26s %s\n", "platform", device->platform);
    printf("      %-26s %s\n", "driver version", device->driver_version);
    printf("      %-26s %s\n", "language", device->language_version);
    if (device->extensions[0] != '\0')
        printf("      %-26s %s\n", "extensions", device->extensions);
    if (device->compute_capability_major != 0)
        printf("      %-26s %d.%d\n", "compute capability",
               device->compute_capability_major,
               device->compute_capability_minor);
    print_bytes("global memory", device->global_memory);
    print_bytes("largest allocation", device->max_allocation);
    print_bytes("local memory per block", device->local_memory);
    print_bytes("constant memory", device->constant_memory);
    printf("      %-26s %d\n", "compute units", device->compute_units);
    printf("      %-26s %d MHz\n", "clock", device->clock_mhz);
    printf("      %-26s %zu\n", "max threads per block",
           device->max_threads_per_block);
    printf("      %-26s %zu x %zu x %zu\n", "max block", device->max_block[0],
           device->max_block[1], device->max_block[2]);
    printf("      %-26s %zu x %zu x %zu\n", "max grid (blocks)",
           device->max_grid[0], device->max_grid[1], device->max_grid[2]);
    printf("      %-26s %d\n", "warp / sub-group width", device->warp_size);
    printf("      %-26s %s\n", "double precision",
           device->supports_double ? "yes" : "no");
    printf("      %-26s %s\n", "unified memory",
           device->unified_memory ? "yes" : "no");
}

static int list_backends(int verbose)
{
    size_t count = 0;
    if (kiln_backend_get_count(&count) != KILN_OK) {
        fprintf(stderr, "kiln-info: %s\n", kiln_last_error());
        return 1;
    }
    const char *chosen = NULL;
    char default_reason[2048] = "";
    if (kiln_backend_get_default(&chosen) != KILN_OK)
        snprintf(default_reason, sizeof default_reason, "%s",
                 kiln_last_error());
    int usable = 0;
    printf("Kiln %s\n", kiln_version());
    for (size_t i = 0; i < count; ++i) {
        kiln_backend_info info;
        if (kiln_backend_get_info(i, &info) != KILN_OK) {
            fprintf(stderr, "kiln-info: %s\n", kiln_last_error());
            return 1;
        }
        if (info.status != KILN_OK) {
            printf("Backend %s: not available (%s)\n  %s\n", info.name,
                   kiln_status_name(info.status), info.reason);
            continue;
        }
        ++usable;
        printf("Backend %s: %d device%s%s\n  plugin %s\n  %s\n", info.name,
               info.device_count, info.device_count == 1 ? "" : "s",
               chosen && strcmp(chosen, info.name) == 0 ? " (default)" : "",
               info.path, info.version);
        for (int d = 0; d < info.device_count; ++d) {
            kiln_device_info device;
            if (kiln_device_get_info(info.name, d, &device) != KILN_OK) {
                printf("  `-- Device #%d: %s\n", d, kiln_last_error());
                continue;
            }
            printf("  `-- Device #%d: %s (%s, %d compute units, %.1f GiB)\n",
                   d, device.name, device_type_name(device.type),
                   device.compute_units,
                   (double)device.global_memory / (1024.0 * 1024 * 1024));
            if (verbose)
                print_device_detail(&device);
        }
    }
    if (chosen == NULL)
        printf("No default backend: %s\n", default_reason);
    return usable > 0 ? 0 : 1;
}

static int show_cache(void)
{
    kiln_cache_info info;
    if (kiln_cache_get_info(&info) != KILN_OK) {
        fprintf(stderr, "kiln-info: %s\n", kiln_last_error());
        return 1;
    }
    if (!info.enabled) {
        printf("Kernel cache on disk: off (KILN_LOG=debug says why)\n");
        return 0;
    }
    printf("Kernel cache: %s\n  %" PRIu64 " entries, %" PRIu64
           " bytes (limit %" PRIu64 " MiB)\n",
           info.directory, info.entries, info.bytes, info.limit_bytes >> 20);
    return 0;
}

int main(int argc, char **argv)
{
    int verbose = 0, cache = 0, clear = 0;
    int answered = tool_standard_options(argc, argv, "kiln-info",
                                         PACKAGE_VERSION, usage);
    if (answered >= 0)
        return answered;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "--cache") == 0) {
            cache = 1;
        } else if (strcmp(argv[i], "--clear-cache") == 0) {
            clear = 1;
        } else {
            fprintf(stderr, "kiln-info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return TOOL_EXIT_USAGE;
        }
    }
    if (clear) {
        if (kiln_cache_clear() != KILN_OK) {
            fprintf(stderr, "kiln-info: %s\n", kiln_last_error());
            return 1;
        }
        printf("Kernel cache cleared.\n");
        return show_cache();
    }
    if (cache)
        return show_cache();
    return list_backends(verbose);
}
