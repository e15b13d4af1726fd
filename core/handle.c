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
