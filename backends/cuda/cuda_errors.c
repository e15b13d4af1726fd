/*
 * Driver errors: every one is reported with the failing call, the error's
 * name (CUDA_ERROR_ILLEGAL_ADDRESS) and the driver's text, and mapped to
 * the Kiln status that tells the caller what to do about it.
 */
#include "cuda_private.h"

#include <stdio.h>

const char *cuda_result_name(CUresult result)
{
    const char *name = NULL;
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS || name == NULL)
        return "CUDA_ERROR_UNKNOWN_CODE";
    return name;
}

const char *cuda_result_text(CUresult result)
{
    const char *text = NULL;
    if (cuGetErrorString(result, &text) != CUDA_SUCCESS || text == NULL)
        return "unrecognized error code";
    return text;
}

int cuda_result_is_sticky(CUresult result)
{
    /* The errors whose documentation says the context (or the process)
     * is left in an inconsistent state: every later call fails with them. */
    switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_EXTERNAL_DEVICE:
        return 1;
    default:
        return 0;
    }
}

/* What a fault means for the caller.  Seen on driver 580 (CUDA 13.0):
 * after a sticky error the driver refuses every new context in the
 * process, primary or not, even once the faulted one is destroyed or reset
 * (cuDevicePrimaryCtxRetain and cuCtxCreate answer with the same error) —
 * as CUDA's documentation of these errors says, the process must be
 * restarted.  Kiln still releases and resets what it holds, so that a
 * driver that does allow a new context gets one. */
static const char cuda_fault_advice[] =
    "release every Kiln object of this context; the NVIDIA driver may "
    "refuse CUDA work for the rest of this process (CUDA 12 and 13 drivers "
    "do: restart the process to use the GPU again)";

kiln_status cuda_fail(cuda_device *device, CUresult result,
                      kiln_status otherwise, const char *format, ...)
{
    char call[256];
    va_list args;
    va_start(args, format);
    vsnprintf(call, sizeof call, format, args);
    va_end(args);

    kiln_status status = otherwise;
    const char *advice = NULL;
    if (cuda_result_is_sticky(result)) {
        status = KILN_ERR_KERNEL_FAULT;
        if (device != NULL) {
            int expected = 0;
            /* The first fault is the one worth naming later. */
            atomic_compare_exchange_strong(&device->fault, &expected,
                                           (int)result);
        }
    } else if (result == CUDA_ERROR_OUT_OF_MEMORY) {
        status = KILN_ERR_OUT_OF_DEVICE_MEMORY;
    } else if (result == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) {
        status = KILN_ERR_INVALID_LAUNCH;
        advice = "the block needs more registers than a multiprocessor has: "
                 "launch smaller blocks";
    } else if (result == CUDA_ERROR_NO_DEVICE ||
               result == CUDA_ERROR_INVALID_DEVICE) {
        status = KILN_ERR_NO_DEVICE;
    }
    if (status == KILN_ERR_KERNEL_FAULT)
        return cuda_host->error(status,
                                "%s: %s: %s (a kernel faulted; the device's "
                                "CUDA context is unusable now: %s)",
                                call, cuda_result_name(result),
                                cuda_result_text(result), cuda_fault_advice);
    return cuda_host->error(status, "%s: %s: %s%s%s%s", call,
                            cuda_result_name(result), cuda_result_text(result),
                            advice ? " (" : "", advice ? advice : "",
                            advice ? ")" : "");
}

kiln_status cuda_fault_report(cuda_device *device)
{
    CUresult fault = (CUresult)atomic_load(&device->fault);
    return cuda_host->error(KILN_ERR_KERNEL_FAULT,
                            "CUDA device %d: an earlier kernel fault (%s: %s) "
                            "left its context unusable: %s",
                            device->ordinal, cuda_result_name(fault),
                            cuda_result_text(fault), cuda_fault_advice);
}
