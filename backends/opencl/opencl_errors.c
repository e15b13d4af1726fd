/*
 * OpenCL error codes: their names, and the Kiln status each becomes.
 *
 * Every vendor error reaches the user as "<call>: CL_NAME (<code>)", so the
 * table covers every code of OpenCL 1.2, 2.x and 3.0 and of the registered
 * extensions a driver may return from the calls this plugin makes.  Codes
 * are written as numbers, not the headers' macros, so that the table is the
 * same whichever header version the plugin is built against.
 */
#include "opencl_private.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct opencl_error_entry {
    cl_int code;
    const char *name;
} opencl_error_entry;

static const opencl_error_entry opencl_error_table[] = {
    /* OpenCL 1.0 - 3.0 */
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"},
    {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"},
    {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    /* Registered extensions (cl_khr_*, cl_ext_*, vendor) */
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    {-1002, "CL_INVALID_D3D10_DEVICE_KHR"},
    {-1003, "CL_INVALID_D3D10_RESOURCE_KHR"},
    {-1004, "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1005, "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1006, "CL_INVALID_D3D11_DEVICE_KHR"},
    {-1007, "CL_INVALID_D3D11_RESOURCE_KHR"},
    {-1008, "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1009, "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1010, "CL_INVALID_DX9_MEDIA_ADAPTER_KHR"},
    {-1011, "CL_INVALID_DX9_MEDIA_SURFACE_KHR"},
    {-1012, "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR"},
    {-1013, "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR"},
    {-1057, "CL_DEVICE_PARTITION_FAILED_EXT"},
    {-1058, "CL_INVALID_PARTITION_COUNT_EXT"},
    {-1059, "CL_INVALID_PARTITION_NAME_EXT"},
    {-1092, "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1093, "CL_INVALID_EGL_OBJECT_KHR"},
    {-1094, "CL_INVALID_ACCELERATOR_INTEL"},
    {-1095, "CL_INVALID_ACCELERATOR_TYPE_INTEL"},
    {-1096, "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL"},
    {-1097, "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL"},
    {-1098, "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL"},
    {-1099, "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL"},
    {-1100, "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL"},
    {-1101, "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL"},
    {-1108, "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM"},
    {-1121, "CL_CONTEXT_TERMINATED_KHR"},
    {-1138, "CL_INVALID_COMMAND_BUFFER_KHR"},
    {-1139, "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR"},
    {-1140, "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR"},
    {-1141, "CL_INVALID_MUTABLE_COMMAND_KHR"},
    {-1142, "CL_INVALID_SEMAPHORE_KHR"},
    /* Not in any header: NVIDIA's OpenCL returns it from the wait after a
     * kernel read or wrote outside a buffer. */
    {-9999, "NVIDIA_ILLEGAL_BUFFER_ACCESS"},
};

const char *opencl_error_name(cl_int code)
{
    size_t count = sizeof opencl_error_table / sizeof opencl_error_table[0];
    for (size_t i = 0; i < count; ++i)
        if (opencl_error_table[i].code == code)
            return opencl_error_table[i].name;
    return "CL_UNKNOWN_ERROR";
}

kiln_status opencl_error_status(cl_int code, kiln_status otherwise)
{
    switch (code) {
    case CL_SUCCESS:
        return KILN_OK;
    case CL_OUT_OF_HOST_MEMORY:
        return KILN_ERR_OUT_OF_HOST_MEMORY;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return KILN_ERR_OUT_OF_DEVICE_MEMORY;
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
    case -9999:
        return KILN_ERR_KERNEL_FAULT;
    case CL_INVALID_COMMAND_QUEUE:
        /* The plugin only passes queues it owns and keeps alive; NVIDIA's
         * OpenCL answers this for every call on a queue after one of its
         * kernels faulted. */
        return KILN_ERR_KERNEL_FAULT;
    default:
        return otherwise;
    }
}

static kiln_status opencl_fail_v(cl_int code, kiln_status status,
                                 const char *format, va_list args)
    KILN_PRINTF_LIKE(3, 0);
static kiln_status opencl_fail_v(cl_int code, kiln_status status,
                                 const char *format, va_list args)
{
    char call[512];
    vsnprintf(call, sizeof call, format, args);
    return opencl_host->error(status, "%s: %s (%d)%s", call,
                              opencl_error_name(code), (int)code,
                              status == KILN_ERR_KERNEL_FAULT
                                  ? ": a kernel faulted (an access outside "
                                    "a buffer?)"
                                  : "");
}

kiln_status opencl_fail(cl_int code, kiln_status otherwise, const char *format,
                        ...)
{
    va_list args;
    va_start(args, format);
    kiln_status status =
        opencl_fail_v(code, opencl_error_status(code, otherwise), format, args);
    va_end(args);
    return status;
}

kiln_status opencl_fail_wait(cl_int code, const char *format, ...)
{
    kiln_status status = opencl_error_status(code, KILN_ERR_BACKEND);
    if (code == CL_OUT_OF_RESOURCES)
        status = KILN_ERR_KERNEL_FAULT;
    va_list args;
    va_start(args, format);
    status = opencl_fail_v(code, status, format, args);
    va_end(args);
    return status;
}
