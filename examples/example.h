/*
 * example.h — the few helpers every Kiln example shares: stop on a Kiln
 * error with its message, random inputs from a printed seed, a clock, and
 * a comparison against the CPU's answer.  Not part of Kiln's API; copy what
 * you need.
 *
 * Include it before any other header: it asks for POSIX's clock_gettime.
 */
#ifndef KILN_EXAMPLE_H
#define KILN_EXAMPLE_H

#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kiln.h"

/* Every Kiln call returns a status; on anything but KILN_OK the detail (the
 * build log, the vendor's error name, the limit exceeded) is in
 * kiln_last_error().  An example has nothing better to do with an error
 * than to print both and stop, so that is what this does; the operating
 * system reclaims what the program held. */
#define EXAMPLE_CHECK(call) example_check((call), #call, __FILE__, __LINE__)

static inline void example_check(kiln_status status, const char *call,
                                 const char *file, int line)
{
    if (status == KILN_OK)
        return;
    /* Fetch the message first: it belongs to the last Kiln call.  Flush
     * what was printed so far so that it comes before the error. */
    const char *detail = kiln_last_error();
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s\n  failed with %s: %s\n", file, line, call,
            kiln_status_name(status), detail);
    exit(EXIT_FAILURE);
}

/* The seed of the random inputs: the first argument if given (to repeat a
 * run), else the time.  It is printed so that any failure can be
 * reproduced. */
static inline uint64_t example_seed(int argc, char **argv)
{
    uint64_t seed =
        argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    printf("seed %" PRIu64 " (give it as the argument to repeat this run)\n",
           seed);
    return seed;
}

/* SplitMix64: small, fast and the same on every platform, unlike rand(). */
typedef struct example_rng {
    uint64_t state;
} example_rng;

static inline uint64_t example_random_next(example_rng *rng)
{
    uint64_t z = (rng->state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* `count` floats uniformly in (low, high).  The 24 random bits are centred
 * in their interval (k + 0.5), so neither end is ever returned and, for a
 * range around 0, neither is 0 itself: a kernel that forgets to write its
 * output cannot pass by luck on zeros. */
static inline void example_random_floats(example_rng *rng, float *out,
                                         size_t count, float low, float high)
{
    for (size_t i = 0; i < count; ++i) {
        double unit = ((double)(example_random_next(rng) >> 40) + 0.5) /
                      16777216.0; /* 2^24 */
        out[i] = (float)(low + (high - low) * unit);
    }
}

/* Milliseconds on a monotonic clock, for timing work on the host. */
static inline double example_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

/* Prints which backend and device the context runs on: the same program
 * runs on CUDA or OpenCL, chosen by KILN_BACKEND (and KILN_DEVICE). */
static inline void example_print_device(const kiln_context *context)
{
    const char *backend = NULL;
    kiln_device_info device;
    EXAMPLE_CHECK(kiln_context_get_backend(context, &backend));
    EXAMPLE_CHECK(kiln_context_get_device_info(context, &device));
    printf("backend %s, device %d: %s (%s)\n", backend, device.index,
           device.name, device.language_version);
}

/* Compares `count` results with the CPU's: each must be within `tolerance`
 * of the expected value, relative to it (0: exactly equal).  Prints the
 * first few differences and a summary; returns the number that differ. */
static inline size_t example_compare(const char *what, const float *got,
                                     const float *expected, size_t count,
                                     double tolerance)
{
    size_t wrong = 0;
    for (size_t i = 0; i < count; ++i) {
        double difference = fabs((double)got[i] - (double)expected[i]);
        /* Written so that a NaN result counts as wrong. */
        if (!(difference <= tolerance * fabs((double)expected[i]))) {
            if (wrong == 0)
                fflush(stdout); /* keep stdout and stderr in order */
            if (wrong < 5)
                fprintf(stderr, "  %s[%zu] = %.9g, expected %.9g\n", what, i,
                        (double)got[i], (double)expected[i]);
            ++wrong;
        }
    }
    if (wrong == 0)
        printf("%s: all %zu values match the CPU\n", what, count);
    else
        fprintf(stderr, "%s: %zu of %zu values differ from the CPU\n", what,
                wrong, count);
    return wrong;
}

#endif /* KILN_EXAMPLE_H */
