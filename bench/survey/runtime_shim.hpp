/*
 * runtime_shim.hpp: the part of the CUDA runtime a benchmark's host code
 * uses, over kiln.h, so that tools/cuda-survey can run a repository's own
 * program (its inputs, its CPU reference, its comparison) with the kernels
 * built by Kiln on the OpenCL backend.  Force-included (g++ -include) into
 * the benchmark's .cu compiled as C++, after cuda-survey rewrote each
 * `k<<<grid, block>>>(args)` into `kiln_shim::launch("k", grid, block)(args)`.
 *
 * The kernels' own source stays in the file and is compiled by g++ as dead
 * code (`__global__` becomes `static inline`): threadIdx and friends are
 * declared so that it parses, never run.  The device code Kiln builds is
 * the survey's unit for the file, named by KILN_SHIM_SOURCE.
 *
 * Device pointers are addresses in a range no host memory uses; each
 * cudaMalloc gets its own stretch, so pointer arithmetic and lookups work.
 * Anything the shim cannot do faithfully stops the program with a message
 * (exit status 3), never a wrong result.
 */
#ifndef KILN_RUNTIME_SHIM_HPP
#define KILN_RUNTIME_SHIM_HPP

#include <kiln.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

/* ---- what device code needs to parse on the host ---- */
#define __global__ static inline
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(...)

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1)
        : x(vx), y(vy), z(vz) {}
    dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const uint3 threadIdx, blockIdx;
extern const dim3 blockDim, gridDim;
static inline void __syncthreads() {}

/* ---- runtime types ---- */
typedef int cudaError_t;
enum {
    cudaSuccess = 0,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9
};
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};
struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int major, minor, multiProcessorCount, maxThreadsPerBlock;
};
typedef struct kiln_stream *cudaStream_t;

namespace kiln_shim {

[[noreturn]] inline void fail(const char *what, kiln_status status)
{
    std::fprintf(stderr, "kiln-shim: %s: %s: %s\n", what,
                 kiln_status_name(status), kiln_last_error());
    std::exit(3);
}

[[noreturn]] inline void unsupported(const char *what)
{
    std::fprintf(stderr, "kiln-shim: unsupported: %s\n", what);
    std::exit(3);
}

struct allocation {
    kiln_buffer *buffer;
    size_t size;
};

struct state {
    kiln_context *context = nullptr;
    kiln_program *program = nullptr;
    std::map<std::string, kiln_kernel *> kernels;
    cudaError_t last_error = cudaSuccess;          /* cudaGetLastError's */
    std::map<uintptr_t, allocation> allocations; /* by device address */
    uintptr_t next = (uintptr_t)1 << 44;         /* no host memory here */

    state()
    {
        kiln_status s = kiln_context_create("opencl", -1, &context);
        if (s != KILN_OK)
            fail("context", s);
        const char *path = std::getenv("KILN_SHIM_SOURCE");
        if (path == nullptr)
            unsupported("KILN_SHIM_SOURCE is not set");
        kiln_build_options options = {};
        options.struct_size = sizeof options;
        options.language = KILN_LANGUAGE_CUDA_C;
        s = kiln_program_build_file(context, path, &options, &program);
        if (s != KILN_OK)
            fail("build", s);
    }
};

inline state &the()
{
    static state s;
    return s;
}

/* The buffer and offset of a device address. */
inline allocation *find(const void *address, size_t *offset)
{
    uintptr_t a = (uintptr_t)address;
    auto &all = the().allocations;
    auto it = all.upper_bound(a);
    if (it == all.begin())
        return nullptr;
    --it;
    if (a >= it->first + it->second.size + (it->second.size == 0))
        return nullptr;
    *offset = a - it->first;
    return &it->second;
}

inline kiln_kernel *kernel(const char *name)
{
    state &s = the();
    auto it = s.kernels.find(name);
    if (it != s.kernels.end())
        return it->second;
    kiln_kernel *k = nullptr;
    kiln_status status = kiln_kernel_create(s.program, name, &k);
    if (status != KILN_OK)
        fail(name, status);
    s.kernels[name] = k;
    return k;
}

/* One argument as Kiln takes it, by its C++ type. */
template <typename T> kiln_arg arg(T value)
{
    if constexpr (std::is_pointer<T>::value) {
        size_t offset = 0;
        allocation *a = find((const void *)value, &offset);
        if (a == nullptr)
            unsupported("a kernel argument that is not a cudaMalloc address");
        if (offset != 0)
            unsupported("a kernel argument inside an allocation");
        return KILN_ARG_BUFFER(a->buffer);
    } else if constexpr (std::is_same<T, float>::value) {
        return KILN_ARG_FLOAT(value);
    } else if constexpr (std::is_same<T, double>::value) {
        return KILN_ARG_DOUBLE(value);
    } else if constexpr (std::is_integral<T>::value && sizeof(T) == 4) {
        return std::is_signed<T>::value ? KILN_ARG_INT((int32_t)value)
                                        : KILN_ARG_UINT((uint32_t)value);
    } else if constexpr (std::is_integral<T>::value && sizeof(T) == 8) {
        return std::is_signed<T>::value ? KILN_ARG_LONG((int64_t)value)
                                        : KILN_ARG_ULONG((uint64_t)value);
    } else {
        unsupported("a kernel argument of this type");
    }
}

struct launcher {
    const char *name;
    dim3 grid, block;
    size_t shared;

    template <typename... Args> void operator()(Args... args) const
    {
        if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 ||
            block.y == 0 || block.z == 0 ||
            (size_t)block.x * block.y * block.z > 1024) {
            /* CUDA launches nothing and reports it to cudaGetLastError */
            the().last_error = cudaErrorInvalidConfiguration;
            return;
        }
        std::vector<kiln_arg> list = {arg(args)...};
        kiln_launch_config config = {};
        config.struct_size = sizeof config;
        config.grid = KILN_DIM3(grid.x, grid.y, grid.z);
        config.block = KILN_DIM3(block.x, block.y, block.z);
        config.local_memory = shared;
        kiln_status s = kiln_launch(kernel(name), &config, list.size(),
                                    list.data());
        if (s != KILN_OK)
            fail(name, s);
    }
};

inline launcher launch(const char *name, dim3 grid, dim3 block,
                       size_t shared = 0, cudaStream_t stream = nullptr)
{
    if (stream != nullptr)
        unsupported("launches on streams");
    return launcher{name, grid, block, shared};
}

} // namespace kiln_shim

/* ---- the runtime calls ---- */
inline cudaError_t cudaMalloc(void **pointer, size_t size)
{
    kiln_shim::state &s = kiln_shim::the();
    kiln_buffer *buffer = nullptr;
    kiln_status status = kiln_buffer_create(s.context, size ? size : 1,
                                            &buffer);
    if (status != KILN_OK)
        kiln_shim::fail("cudaMalloc", status);
    uintptr_t address = s.next;
    s.next += (size + 4096 + 4095) & ~(uintptr_t)4095;
    s.allocations[address] = kiln_shim::allocation{buffer, size};
    *pointer = (void *)address;
    return cudaSuccess;
}
template <typename T> inline cudaError_t cudaMalloc(T **pointer, size_t size)
{
    return cudaMalloc((void **)pointer, size);
}

inline cudaError_t cudaFree(void *pointer)
{
    size_t offset = 0;
    kiln_shim::allocation *a = kiln_shim::find(pointer, &offset);
    if (a == nullptr || offset != 0)
        kiln_shim::unsupported("cudaFree of an address cudaMalloc did not give");
    kiln_buffer_release(a->buffer);
    kiln_shim::the().allocations.erase((uintptr_t)pointer);
    return cudaSuccess;
}

inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t size,
                              cudaMemcpyKind kind)
{
    size_t d_off = 0, s_off = 0;
    kiln_shim::allocation *d = kiln_shim::find(dst, &d_off);
    kiln_shim::allocation *s = kiln_shim::find(src, &s_off);
    kiln_status status = KILN_OK;
    if (d != nullptr && s != nullptr)
        status = kiln_buffer_copy(d->buffer, d_off, s->buffer, s_off, size);
    else if (d != nullptr)
        status = kiln_buffer_write(d->buffer, d_off, src, size);
    else if (s != nullptr)
        status = kiln_buffer_read(s->buffer, s_off, dst, size);
    else if (kind == cudaMemcpyHostToHost || kind == cudaMemcpyDefault)
        std::memmove(dst, src, size);
    else
        kiln_shim::unsupported("cudaMemcpy between unknown addresses");
    if (status != KILN_OK)
        kiln_shim::fail("cudaMemcpy", status);
    return cudaSuccess;
}

inline cudaError_t cudaMemset(void *dst, int value, size_t size)
{
    size_t off = 0;
    kiln_shim::allocation *d = kiln_shim::find(dst, &off);
    if (d == nullptr)
        kiln_shim::unsupported("cudaMemset of an unknown address");
    unsigned char byte = (unsigned char)value;
    kiln_status status = kiln_buffer_fill(d->buffer, off, size, &byte, 1);
    if (status != KILN_OK)
        kiln_shim::fail("cudaMemset", status);
    return cudaSuccess;
}

inline cudaError_t cudaDeviceSynchronize()
{
    kiln_status status = kiln_context_synchronize(kiln_shim::the().context);
    if (status != KILN_OK)
        kiln_shim::fail("synchronize", status);
    return cudaSuccess;
}
inline cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}
inline cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int)
{
    std::memset(prop, 0, sizeof *prop);
    std::snprintf(prop->name, sizeof prop->name, "Kiln (OpenCL)");
    prop->major = 6;
    prop->maxThreadsPerBlock = 1024;
    return cudaSuccess;
}
inline cudaError_t cudaGetLastError()
{
    cudaError_t e = kiln_shim::the().last_error;
    kiln_shim::the().last_error = cudaSuccess;
    return e;
}
inline cudaError_t cudaPeekAtLastError() { return kiln_shim::the().last_error; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaThreadExit() { return cudaSuccess; }
inline const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error"
           : e == cudaErrorInvalidConfiguration ? "invalid configuration argument"
                                                : "error";
}

#endif /* KILN_RUNTIME_SHIM_HPP */
