/*
 * Platforms and devices: found once by initialize, then only read.
 *
 * Kiln's device index is the position in one flat list of every device of
 * every platform, in the ICD loader's platform order.  KILN_OPENCL_PLATFORM
 * keeps only the platforms whose name contains its text (any case), so that
 * a user with PoCL and NVIDIA's OpenCL installed can choose.
 */
#include "opencl_private.h"

#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Vendor queries of registered extensions (cl_nv_device_attribute_query,
 * cl_amd_device_attribute_query); spelled out so that the plugin builds with
 * any cl_ext.h. */
#define OPENCL_DEVICE_WARP_SIZE_NV 0x4003
#define OPENCL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043

/* Written by opencl_devices_init, which runs once under the backend's lock
 * (opencl_backend.c) before any other op; read-only afterwards. */
static opencl_device *opencl_devices;
static int opencl_device_total;
static char opencl_version_text[1024];

/* ---- queries ------------------------------------------------------------- */

/* A malloc'ed info string ("" when the query fails), trimmed of the spaces
 * some drivers pad with; zeroed first, as a driver may answer success and
 * write nothing. */
static char *info_text(cl_int (*query)(void *, cl_uint, size_t, void *,
                                       size_t *),
                       void *object, cl_uint param)
{
    size_t size = 0;
    char *text = NULL;
    if (query(object, param, 0, NULL, &size) == CL_SUCCESS && size > 0 &&
        (text = calloc(size + 1, 1)) != NULL &&
        query(object, param, size, text, NULL) == CL_SUCCESS) {
        text[size] = '\0';
    } else {
        free(text);
        text = malloc(1);
        if (text == NULL)
            return NULL;
        text[0] = '\0';
    }
    size_t length = strlen(text);
    while (length > 0 && isspace((unsigned char)text[length - 1]))
        text[--length] = '\0';
    size_t start = 0;
    while (isspace((unsigned char)text[start]))
        ++start;
    memmove(text, text + start, length - start + 1);
    return text;
}

/* clGetPlatformInfo and clGetDeviceInfo through one signature. */
static cl_int platform_query(void *object, cl_uint param, size_t size,
                             void *value, size_t *returned)
{
    return clGetPlatformInfo((cl_platform_id)object, param, size, value,
                             returned);
}

static cl_int device_query(void *object, cl_uint param, size_t size,
                           void *value, size_t *returned)
{
    return clGetDeviceInfo((cl_device_id)object, param, size, value, returned);
}

static char *platform_text(cl_platform_id platform, cl_platform_info param)
{
    return info_text(platform_query, (void *)platform, param);
}

static char *device_text(cl_device_id device, cl_device_info param)
{
    return info_text(device_query, (void *)device, param);
}

/* A fixed-size device value; traced and left zero when the driver has no
 * answer, so one odd query does not hide the device. */
static void device_value(cl_device_id device, cl_device_info param,
                         const char *what, void *value, size_t size)
{
    cl_int error = clGetDeviceInfo(device, param, size, value, NULL);
    if (error != CL_SUCCESS) {
        memset(value, 0, size);
        opencl_host->trace("opencl: clGetDeviceInfo(%s): %s (%d)", what,
                           opencl_error_name(error), (int)error);
    }
}

#define DEVICE_VALUE(device, param, value) \
    device_value((device), (param), #param, (value), sizeof *(value))

/* "OpenCL 1.2 ..." / "OpenCL C 1.2 ..." -> 102; 0 when unreadable. */
static int version_number(const char *text, const char *prefix)
{
    size_t length = strlen(prefix);
    int major = 0, minor = 0;
    if (strncmp(text, prefix, length) != 0 ||
        sscanf(text + length, "%d.%d", &major, &minor) != 2)
        return 0;
    return major * 100 + minor;
}

/* Whether the space-separated `list` has the word `name`. */
static int has_word(const char *list, const char *name)
{
    size_t length = strlen(name);
    for (const char *at = list; (at = strstr(at, name)) != NULL; at += length)
        if ((at == list || at[-1] == ' ') &&
            (at[length] == '\0' || at[length] == ' '))
            return 1;
    return 0;
}

static int contains_ignoring_case(const char *text, const char *part)
{
    size_t length = strlen(part);
    for (; *text != '\0'; ++text) {
        size_t i = 0;
        while (i < length && text[i] != '\0' &&
               tolower((unsigned char)text[i]) ==
                   tolower((unsigned char)part[i]))
            ++i;
        if (i == length)
            return 1;
    }
    return length == 0;
}

/* ---- the reason there is no platform ------------------------------------- */

/* "has pocl.icd (libpocl.so.2), nvidia.icd (libnvidia-opencl.so.1)": what
 * an ICD directory offers, so a user can see a missing or mistyped entry. */
static void describe_icd_path(const char *path, char *out, size_t size)
{
    DIR *directory = opendir(path);
    if (directory == NULL) {
        FILE *file = fopen(path, "r");
        if (file != NULL)
            fclose(file);
        snprintf(out, size, "%s",
                 file != NULL ? "is a file"
                              : "does not exist or cannot be read");
        return;
    }
    size_t used = (size_t)snprintf(out, size, "has ");
    int listed = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL && used < size) {
        size_t length = strlen(entry->d_name);
        if (length < 5 || strcmp(entry->d_name + length - 4, ".icd") != 0)
            continue;
        char file_path[4096], library[256] = "";
        snprintf(file_path, sizeof file_path, "%s/%s", path, entry->d_name);
        FILE *file = fopen(file_path, "r");
        if (file != NULL) {
            if (fgets(library, sizeof library, file) == NULL)
                library[0] = '\0';
            fclose(file);
        }
        library[strcspn(library, "\r\n")] = '\0';
        used += (size_t)snprintf(out + used, size - used, "%s%s (%s)",
                                 listed ? ", " : "", entry->d_name,
                                 library[0] ? library : "empty");
        ++listed;
    }
    closedir(directory);
    if (listed == 0 && used < size)
        snprintf(out + used, size - used, "no .icd files");
}

/* The loaders (ocl-icd, Khronos) read the drivers' .icd files from
 * /etc/OpenCL/vendors, or from OCL_ICD_VENDORS when set; the reason names
 * both and what they hold. */
static kiln_status no_platform(cl_int error)
{
    const char *vendors = opencl_host->setting("OCL_ICD_VENDORS");
    const char *filenames = opencl_host->setting("OCL_ICD_FILENAMES");
    char system[1024], custom[1024] = "";
    describe_icd_path("/etc/OpenCL/vendors", system, sizeof system);
    if (vendors != NULL && vendors[0] != '\0') {
        char described[1000];
        describe_icd_path(vendors, described, sizeof described);
        snprintf(custom, sizeof custom, " (%s)", described);
    }
    return opencl_host->error(
        KILN_ERR_BACKEND_UNAVAILABLE,
        "no OpenCL platform (clGetPlatformIDs: %s): is an ICD installed? "
        "OCL_ICD_VENDORS=%s%s%s%s, /etc/OpenCL/vendors %s",
        error == CL_SUCCESS ? "0 platforms" : opencl_error_name(error),
        vendors ? vendors : "unset", custom,
        filenames ? ", OCL_ICD_FILENAMES=" : "", filenames ? filenames : "",
        system);
}

/* ---- one device ---------------------------------------------------------- */

/* The warp width Kiln reports, without compiling anything: PoCL needs
 * seconds for a first build, too much for initialize.  NVIDIA and AMD name
 * it through their registered attribute queries; an OpenCL 3.0 device
 * gives its preferred work-group size multiple; anything else gets 1. */
static int device_warp_size(cl_device_id device, const char *extensions,
                            int device_version)
{
    cl_uint width = 0;
    if (has_word(extensions, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(device, OPENCL_DEVICE_WARP_SIZE_NV, sizeof width,
                        &width, NULL) == CL_SUCCESS &&
        width > 0)
        return (int)width;
    if (has_word(extensions, "cl_amd_device_attribute_query") &&
        clGetDeviceInfo(device, OPENCL_DEVICE_WAVEFRONT_WIDTH_AMD,
                        sizeof width, &width, NULL) == CL_SUCCESS &&
        width > 0)
        return (int)width;
    size_t multiple = 0;
    if (device_version >= 300 &&
        clGetDeviceInfo(device, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                        sizeof multiple, &multiple, NULL) == CL_SUCCESS &&
        multiple > 0 && multiple <= INT32_MAX)
        return (int)multiple;
    return 1;
}

/* The highest OpenCL C version the device compiles (102 for 1.2): an
 * OpenCL 3.0 device lists them (CL_DEVICE_OPENCL_C_ALL_VERSIONS) and
 * names 1.2 as CL_DEVICE_OPENCL_C_VERSION (the newest version all of whose
 * features it has); others name one. */
static int opencl_c_version(cl_device_id device, const char *language,
                            int device_version)
{
    int best = version_number(language, "OpenCL C ");
    size_t size = 0;
    if (device_version < 300 ||
        clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL,
                        &size) != CL_SUCCESS ||
        size < sizeof(cl_name_version))
        return best;
    cl_name_version *all = malloc(size);
    if (all != NULL &&
        clGetDeviceInfo(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, all,
                        NULL) == CL_SUCCESS)
        for (size_t k = 0; k < size / sizeof *all; ++k) {
            int number = (int)CL_VERSION_MAJOR(all[k].version) * 100 +
                         (int)CL_VERSION_MINOR(all[k].version);
            if (number > best)
                best = number;
        }
    free(all);
    return best;
}

static void text_copy(char *out, size_t size, const char *text)
{
    snprintf(out, size, "%s", text ? text : "");
}

/* A space-separated list cut after its last whole word that fits. */
static void words_copy(char *out, size_t size, const char *text)
{
    text_copy(out, size, text);
    size_t length = strlen(text ? text : "");
    if (length < size)
        return;
    char *last_space = strrchr(out, ' ');
    if (last_space != NULL)
        *last_space = '\0';
}

/* "OpenCL C 1.2 PoCL" -> "OpenCL C 1.2": the language, not the vendor. */
static void language_copy(char *out, size_t size, const char *text)
{
    int number = version_number(text, "OpenCL C ");
    if (number == 0)
        text_copy(out, size, text);
    else
        snprintf(out, size, "OpenCL C %d.%d", number / 100, number % 100);
}

static void device_describe(opencl_device *record, cl_platform_id platform,
                            const char *platform_name,
                            const char *platform_version, cl_device_id device,
                            int device_version)
{
    kiln_backend_device_info *info = &record->info;
    memset(record, 0, sizeof *record);
    record->platform = platform;
    record->device = device;
    atomic_init(&record->timing, OPENCL_TIMING_UNKNOWN);

    char *name = device_text(device, CL_DEVICE_NAME);
    char *vendor = device_text(device, CL_DEVICE_VENDOR);
    char *driver = device_text(device, CL_DRIVER_VERSION);
    char *version = device_text(device, CL_DEVICE_VERSION);
    char *language = device_text(device, CL_DEVICE_OPENCL_C_VERSION);
    char *extensions = device_text(device, CL_DEVICE_EXTENSIONS);

    snprintf(info->backend, sizeof info->backend, "opencl");
    text_copy(info->name, sizeof info->name, name);
    text_copy(info->vendor, sizeof info->vendor, vendor);
    text_copy(info->driver_version, sizeof info->driver_version, driver);
    text_copy(info->platform, sizeof info->platform, platform_name);
    language_copy(info->language_version, sizeof info->language_version,
                  language ? language : "");
    int language_number =
        opencl_c_version(device, language ? language : "", device_version);
    info->language_major = language_number / 100;
    info->language_minor = language_number % 100;
    words_copy(info->extensions, sizeof info->extensions, extensions);

    cl_device_type type = 0;
    DEVICE_VALUE(device, CL_DEVICE_TYPE, &type);
    info->type = (type & CL_DEVICE_TYPE_GPU)           ? KILN_DEVICE_GPU
                 : (type & CL_DEVICE_TYPE_CPU)         ? KILN_DEVICE_CPU
                 : (type & CL_DEVICE_TYPE_ACCELERATOR) ? KILN_DEVICE_ACCELERATOR
                                                       : KILN_DEVICE_OTHER;

    cl_ulong global = 0, local = 0, constant = 0, allocation = 0;
    DEVICE_VALUE(device, CL_DEVICE_GLOBAL_MEM_SIZE, &global);
    DEVICE_VALUE(device, CL_DEVICE_LOCAL_MEM_SIZE, &local);
    DEVICE_VALUE(device, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, &constant);
    DEVICE_VALUE(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, &allocation);
    info->global_memory = global;
    info->local_memory = local;
    info->constant_memory = constant;
    info->max_allocation = allocation;

    cl_uint units = 0, clock = 0, dimensions = 0;
    DEVICE_VALUE(device, CL_DEVICE_MAX_COMPUTE_UNITS, &units);
    DEVICE_VALUE(device, CL_DEVICE_MAX_CLOCK_FREQUENCY, &clock);
    DEVICE_VALUE(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, &dimensions);
    DEVICE_VALUE(device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                 &info->max_threads_per_block);
    info->compute_units = units > INT32_MAX ? INT32_MAX : (int)units;
    info->clock_mhz = clock > INT32_MAX ? INT32_MAX : (int)clock;

    DEVICE_VALUE(device, CL_DEVICE_ADDRESS_BITS, &record->address_bits);
    if (record->address_bits != 32 && record->address_bits != 64)
        record->address_bits = 64;
    /* The global size (grid x block) must fit the device's size_t; past
     * 2^31-1 blocks, int-indexed kernels and CUDA's own limit agree. */
    size_t size_limit =
        record->address_bits == 32 ? (size_t)UINT32_MAX : SIZE_MAX;
    size_t sizes[3] = {1, 1, 1};
    if (dimensions >= 1) {
        size_t *all = calloc(dimensions, sizeof *all);
        if (all != NULL) {
            device_value(device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                         "CL_DEVICE_MAX_WORK_ITEM_SIZES", all,
                         dimensions * sizeof *all);
            for (cl_uint i = 0; i < dimensions && i < 3; ++i)
                sizes[i] = all[i];
            free(all);
        }
    }
    for (int i = 0; i < 3; ++i) {
        info->max_block[i] = sizes[i];
        size_t grid = sizes[i] ? size_limit / sizes[i] : size_limit;
        info->max_grid[i] = grid > INT32_MAX ? INT32_MAX : grid;
    }

    info->warp_size =
        device_warp_size(device, extensions ? extensions : "", device_version);

    cl_device_fp_config doubles = 0;
    DEVICE_VALUE(device, CL_DEVICE_DOUBLE_FP_CONFIG, &doubles);
    info->supports_double =
        doubles != 0 || has_word(extensions ? extensions : "", "cl_khr_fp64");

    /* Deprecated by 2.0, still answered by the drivers that matter; where
     * not, a CPU device is the host. */
    cl_bool unified = CL_FALSE;
    if (clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                        &unified, NULL) != CL_SUCCESS)
        unified = info->type == KILN_DEVICE_CPU;
    info->unified_memory = unified != CL_FALSE;

    cl_uint vendor_id = 0;
    DEVICE_VALUE(device, CL_DEVICE_VENDOR_ID, &vendor_id);
    snprintf(record->identity, sizeof record->identity,
             "opencl; platform %s (%s); device %s (vendor 0x%x, %u-bit); "
             "device version %s; driver %s; %s",
             platform_name, platform_version, info->name, (unsigned)vendor_id,
             (unsigned)record->address_bits, version ? version : "",
             info->driver_version, language ? language : "");

    free(name);
    free(vendor);
    free(driver);
    free(version);
    free(language);
    free(extensions);
}

/* ---- the list ------------------------------------------------------------ */

/* Appends the usable devices of `platform` to the list. */
static kiln_status platform_add_devices(cl_platform_id platform,
                                        const char *name, const char *version,
                                        size_t *capacity)
{
    cl_uint count = 0;
    cl_int error =
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &count);
    if (error == CL_DEVICE_NOT_FOUND || (error == CL_SUCCESS && count == 0))
        return KILN_OK;
    if (error != CL_SUCCESS) {
        /* One broken platform must not hide the others. */
        opencl_host->trace("opencl: platform '%s' skipped: clGetDeviceIDs: "
                           "%s (%d)",
                           name, opencl_error_name(error), (int)error);
        return KILN_OK;
    }
    cl_device_id *ids = calloc(count, sizeof *ids);
    if (ids == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory listing devices");
    error = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids, &count);
    if (error != CL_SUCCESS) {
        free(ids);
        opencl_host->trace("opencl: platform '%s' skipped: clGetDeviceIDs: "
                           "%s (%d)",
                           name, opencl_error_name(error), (int)error);
        return KILN_OK;
    }
    for (cl_uint i = 0; i < count; ++i) {
        char *device_version = device_text(ids[i], CL_DEVICE_VERSION);
        int number = version_number(device_version ? device_version : "",
                                    "OpenCL ");
        free(device_version);
        if (number < 102) {
            /* The plugin calls 1.2 functions (clEnqueueFillBuffer,
             * markers, kernel argument info). */
            opencl_host->trace("opencl: a device of '%s' skipped: OpenCL "
                               "%d.%d, 1.2 is needed",
                               name, number / 100, number % 100);
            continue;
        }
        if ((size_t)opencl_device_total == *capacity) {
            size_t grown = *capacity ? *capacity * 2 : 4;
            opencl_device *list =
                realloc(opencl_devices, grown * sizeof *list);
            if (list == NULL) {
                free(ids);
                return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                          "opencl: out of host memory "
                                          "listing devices");
            }
            opencl_devices = list;
            *capacity = grown;
        }
        opencl_device *record = &opencl_devices[opencl_device_total];
        device_describe(record, platform, name, version, ids[i], number);
        record->info.index = opencl_device_total++;
    }
    free(ids);
    return KILN_OK;
}

/* "OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, ..." -> the part
 * before the build details, for the version line. */
static void version_short(const char *version, char *out, size_t size)
{
    size_t length = strcspn(version, ",");
    const char *gap = strstr(version, "  ");
    if (gap != NULL && (size_t)(gap - version) < length)
        length = (size_t)(gap - version);
    snprintf(out, size, "%.*s", (int)length, version);
}

static void devices_reset(void)
{
    free(opencl_devices);
    opencl_devices = NULL;
    opencl_device_total = 0;
}

kiln_status opencl_devices_init(void)
{
    devices_reset();
    cl_uint count = 0;
    cl_int error = clGetPlatformIDs(0, NULL, &count);
    if (error != CL_SUCCESS || count == 0)
        return error == CL_SUCCESS || error == -1001 /* ..._NOT_FOUND_KHR */
                   ? no_platform(error)
                   : opencl_fail(error, KILN_ERR_BACKEND_UNAVAILABLE,
                                 "clGetPlatformIDs");
    cl_platform_id *platforms = calloc(count, sizeof *platforms);
    if (platforms == NULL)
        return opencl_host->error(KILN_ERR_OUT_OF_HOST_MEMORY,
                                  "opencl: out of host memory");
    error = clGetPlatformIDs(count, platforms, &count);
    if (error != CL_SUCCESS) {
        free(platforms);
        return opencl_fail(error, KILN_ERR_BACKEND_UNAVAILABLE,
                           "clGetPlatformIDs");
    }

    const char *wanted = opencl_host->setting("KILN_OPENCL_PLATFORM");
    char used[768] = "", skipped[512] = "";
    size_t used_length = 0, skipped_length = 0, capacity = 0;
    int kept = 0;
    kiln_status status = KILN_OK;
    for (cl_uint i = 0; i < count && status == KILN_OK; ++i) {
        char *name = platform_text(platforms[i], CL_PLATFORM_NAME);
        char *version = platform_text(platforms[i], CL_PLATFORM_VERSION);
        const char *platform_name = name ? name : "";
        const char *platform_version = version ? version : "";
        if (wanted != NULL && !contains_ignoring_case(platform_name, wanted)) {
            if (skipped_length < sizeof skipped)
                skipped_length += (size_t)snprintf(
                    skipped + skipped_length, sizeof skipped - skipped_length,
                    "%s'%s'", skipped_length ? ", " : "", platform_name);
        } else if (version_number(platform_version, "OpenCL ") < 102) {
            opencl_host->trace("opencl: platform '%s' skipped: '%s', 1.2 is "
                               "needed",
                               platform_name, platform_version);
        } else {
            ++kept;
            char brief[128];
            version_short(platform_version, brief, sizeof brief);
            if (used_length < sizeof used)
                used_length += (size_t)snprintf(
                    used + used_length, sizeof used - used_length,
                    "%s%s (%s)", used_length ? ", " : "", platform_name,
                    brief);
            status = platform_add_devices(platforms[i], platform_name,
                                          platform_version, &capacity);
        }
        free(name);
        free(version);
    }
    free(platforms);
    if (status != KILN_OK) {
        devices_reset();
        return status;
    }
    if (wanted != NULL && kept == 0) {
        devices_reset();
        return opencl_host->error(KILN_ERR_BACKEND_UNAVAILABLE,
                                  "KILN_OPENCL_PLATFORM='%s' matches none of "
                                  "the OpenCL platforms: %s",
                                  wanted, skipped);
    }
    snprintf(opencl_version_text, sizeof opencl_version_text,
             "OpenCL backend %d.%d.%d (ICD loader; platforms: %s%s%s)",
             KILN_VERSION_MAJOR, KILN_VERSION_MINOR, KILN_VERSION_PATCH,
             used[0] ? used : "none usable",
             wanted ? "; KILN_OPENCL_PLATFORM=" : "", wanted ? wanted : "");
    opencl_host->trace("opencl: %d device(s) on %s", opencl_device_total,
                       used[0] ? used : "no usable platform");
    return KILN_OK;
}

opencl_device *opencl_device_get(int index)
{
    if (index < 0 || index >= opencl_device_total)
        return NULL;
    return &opencl_devices[index];
}

const char *opencl_devices_version(void)
{
    return opencl_version_text;
}

kiln_status opencl_device_count(int *count)
{
    *count = opencl_device_total;
    return KILN_OK;
}

kiln_status opencl_device_info(int index, kiln_backend_device_info *info)
{
    const opencl_device *device = opencl_device_get(index);
    if (device == NULL)
        return opencl_host->error(KILN_ERR_NO_DEVICE,
                                  "opencl: no device %d (there are %d)", index,
                                  opencl_device_total);
    /* The caller's struct_size says how much of the struct it has. */
    size_t size = info->struct_size < sizeof *info ? info->struct_size
                                                   : sizeof *info;
    memcpy(info, &device->info, size);
    info->struct_size = size;
    return KILN_OK;
}
