/*
 * What every handle shares: reference counting, and the graveyard of
 * released handles (see kiln_handle_bury in internal.h).
 *
 * A use after release is a programming error that C cannot prevent; what
 * Kiln can do is make the common case — a handle used again shortly after
 * its last release — fail with KILN_ERR_INVALID_HANDLE instead of reading
 * freed memory.  The last GRAVEYARD_SIZE released objects stay allocated
 * with a dead magic word; older ones are freed.
 */
#include "internal.h"

#include <stdlib.h>

#define GRAVEYARD_SIZE 512

static pthread_mutex_t graveyard_lock = PTHREAD_MUTEX_INITIALIZER;
static void *graveyard[GRAVEYARD_SIZE]; /* ring, guarded by graveyard_lock */
static size_t graveyard_next;

void kiln_handle_bury(void *object)
{
    *(uint32_t *)object = KILN_MAGIC_DEAD;
    pthread_mutex_lock(&graveyard_lock);
    void *oldest = graveyard[graveyard_next];
    graveyard[graveyard_next] = object;
    graveyard_next = (graveyard_next + 1) % GRAVEYARD_SIZE;
    pthread_mutex_unlock(&graveyard_lock);
    free(oldest);
}

bool kiln_reference_drop(atomic_int *references)
{
    return atomic_fetch_sub_explicit(references, 1, memory_order_acq_rel) == 1;
}

void kiln_handle_start(uint32_t *magic, kiln_refcount *references,
                       uint32_t type_magic, kiln_refcount *parent)
{
    if (parent != NULL)
        kiln_refcount_hold(parent);
    kiln_refcount_init(references);
    *magic = type_magic;
}

void kiln_refcount_init(kiln_refcount *count)
{
    atomic_init(&count->owned, 1);
    atomic_init(&count->total, 1);
}

void kiln_refcount_retain(kiln_refcount *count)
{
    /* total first: owned never exceeds it, even for a moment. */
    atomic_fetch_add_explicit(&count->total, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&count->owned, 1, memory_order_relaxed);
}

void kiln_refcount_hold(kiln_refcount *count)
{
    atomic_fetch_add_explicit(&count->total, 1, memory_order_relaxed);
}

bool kiln_refcount_drop(kiln_refcount *count)
{
    return kiln_reference_drop(&count->total);
}

kiln_status kiln_refcount_release(kiln_refcount *count, const char *function,
                                  const char *what, const char *holders,
                                  bool *last)
{
    int owned = atomic_load_explicit(&count->owned, memory_order_relaxed);
    do {
        if (owned <= 0)
            return kiln_error(KILN_ERR_INVALID_HANDLE,
                              "%s: the caller holds no reference to this %s: "
                              "it was released as often as it was created "
                              "and retained%s%s%s",
                              function, what,
                              holders ? " (" : "", holders ? holders : "",
                              holders ? " keep it alive until they go)" : "");
    } while (!atomic_compare_exchange_weak_explicit(
        &count->owned, &owned, owned - 1, memory_order_relaxed,
        memory_order_relaxed));
    *last = kiln_refcount_drop(count);
    return KILN_OK;
}
