/*
 * mpi_example.h — what the MPI examples share on top of example.h: stopping
 * the whole job on an error, choosing this rank's device from its rank on
 * the node, asking whether the MPI library takes CUDA device pointers, and
 * inputs that every rank can compute for its own part (element i of the
 * global array is the same number in whichever rank makes it).
 */
#ifndef KILN_MPI_EXAMPLE_H
#define KILN_MPI_EXAMPLE_H

#include "example.h"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Query_cuda_support */
#endif

#include <string.h>

/* A Kiln error on one rank ends every rank: MPI_Abort, not exit, or the
 * others would wait for it forever in their next collective. */
#define MPI_EXAMPLE_CHECK(call) \
    mpi_example_check((call), #call, __FILE__, __LINE__)

static inline void mpi_example_check(kiln_status status, const char *call,
                                     const char *file, int line)
{
    if (status == KILN_OK)
        return;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fflush(stdout);
    fprintf(stderr, "rank %d: %s:%d: %s\n  failed with %s: %s\n", rank, file,
            line, call, kiln_status_name(status), kiln_last_error());
    MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
}

/* This rank's context: one rank per device, chosen by the rank among the
 * processes of this node (MPI_COMM_TYPE_SHARED groups the processes that
 * share memory: one node), wrapping around when there are more ranks than
 * devices.  The backend is Kiln's default (KILN_BACKEND, else CUDA, else
 * OpenCL). */
static inline kiln_context *mpi_example_context(int *local_rank)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, local_rank);
    MPI_Comm_free(&node);
    int device = 0;
    MPI_EXAMPLE_CHECK(kiln_device_for_rank(NULL, *local_rank, &device));
    kiln_context *context = NULL;
    MPI_EXAMPLE_CHECK(kiln_context_create(NULL, device, &context));
    return context;
}

/* Whether MPI may be handed CUDA device pointers, asked at run time: the
 * library a program runs with may differ from the one it was built with
 * (Debian's Open MPI is built without CUDA: its MPIX_CUDA_AWARE_SUPPORT is
 * 0 and the query answers 0).  Open MPI declares MPIX_Query_cuda_support
 * in mpi-ext.h where its cuda extension is built; any other MPI is taken
 * as not CUDA-aware, which is always safe: the data is then staged. */
static inline int mpi_example_cuda_aware(void)
{
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

/* Element `index` of the global input: SplitMix64 of the seed and the
 * index, as a float in (low, high), so any rank can make any element. */
static inline float mpi_example_element(uint64_t seed, uint64_t index,
                                        float low, float high)
{
    example_rng rng = {seed + index * UINT64_C(0x9E3779B97F4A7C15)};
    double unit =
        ((double)(example_random_next(&rng) >> 40) + 0.5) / 16777216.0;
    return (float)(low + (high - low) * unit);
}

/* The part [first, first + count) of `total` items that rank `rank` of
 * `size` owns: as equal as whole items allow. */
static inline void mpi_example_share(uint64_t total, int rank, int size,
                                     uint64_t *first, uint64_t *count)
{
    uint64_t base = total / (uint64_t)size, extra = total % (uint64_t)size;
    uint64_t r = (uint64_t)rank;
    *count = base + (r < extra ? 1 : 0);
    *first = r * base + (r < extra ? r : extra);
}

#endif /* KILN_MPI_EXAMPLE_H */
