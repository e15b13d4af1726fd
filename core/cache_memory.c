/*
 * The memory cache: built programs kept per context, shared by every
 * kiln_program of the same key there.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define MEMORY_CACHE_MAX_ENTRIES 256

/* An entry holds one reference to its built program, so a hit in the same
 * context hands out the program the backend already has: no blob, no
 * second load.  Entries are newest first; past MEMORY_CACHE_MAX_ENTRIES the
 * oldest are dropped (programs built from them keep their own references). */
struct kiln_memory_cache_entry {
    char *key;
    size_t key_length;
    char hex[33];
    kiln_built_program *built;
    kiln_memory_cache_entry *next;
};

/* The entry for `key` (context lock held). */
static kiln_memory_cache_entry *memory_entry_find(kiln_context *context,
                                                  const kiln_cache_key *key)
{
    for (kiln_memory_cache_entry *entry = context->memory_cache;
         entry != NULL; entry = entry->next)
        if (entry->key_length == key->length &&
            memcmp(entry->hex, key->hex, sizeof entry->hex) == 0 &&
            memcmp(entry->key, key->text, key->length) == 0)
            return entry;
    return NULL;
}

kiln_built_program *kiln_memory_cache_find(kiln_context *context,
                                           const kiln_cache_key *key)
{
    pthread_mutex_lock(&context->lock);
    kiln_memory_cache_entry *entry = memory_entry_find(context, key);
    kiln_built_program *built = NULL;
    if (entry != NULL) {
        /* Under the lock: an eviction cannot drop the entry's reference
         * before this one is taken. */
        built = entry->built;
        kiln_built_program_retain(built);
    }
    pthread_mutex_unlock(&context->lock);
    return built;
}

/* Frees a list of entries unlinked from the cache (context lock not held:
 * the last reference destroys a backend program). */
static void memory_entries_free(kiln_context *context,
                                kiln_memory_cache_entry *entry)
{
    while (entry != NULL) {
        kiln_memory_cache_entry *next = entry->next;
        kiln_built_program_release(context, entry->built);
        free(entry->key);
        free(entry);
        entry = next;
    }
}

void kiln_memory_cache_store(kiln_context *context, const kiln_cache_key *key,
                             kiln_built_program *built)
{
    kiln_memory_cache_entry *entry = calloc(1, sizeof *entry);
    if (entry == NULL)
        return;
    entry->key = kiln_strndup(key->text, key->length);
    if (entry->key == NULL) {
        free(entry);
        return;
    }
    entry->key_length = key->length;
    memcpy(entry->hex, key->hex, sizeof entry->hex);
    kiln_built_program_retain(built);
    entry->built = built;
    kiln_memory_cache_entry *dropped = NULL;
    pthread_mutex_lock(&context->lock);
    if (memory_entry_find(context, key) != NULL) {
        /* Threads that missed at once each built the program; the first
         * to store it stays, later ones are used by their builder only. */
        dropped = entry;
    } else {
        entry->next = context->memory_cache;
        context->memory_cache = entry;
        /* Bound the cache: drop the oldest entries past the limit. */
        size_t count = 0;
        for (kiln_memory_cache_entry **link = &context->memory_cache;
             *link != NULL; link = &(*link)->next) {
            if (++count == MEMORY_CACHE_MAX_ENTRIES) {
                dropped = (*link)->next;
                (*link)->next = NULL;
                break;
            }
        }
    }
    pthread_mutex_unlock(&context->lock);
    memory_entries_free(context, dropped);
}

void kiln_memory_cache_clear(kiln_context *context)
{
    pthread_mutex_lock(&context->lock);
    kiln_memory_cache_entry *entry = context->memory_cache;
    context->memory_cache = NULL;
    pthread_mutex_unlock(&context->lock);
    memory_entries_free(context, entry);
}

