/*
 * The saved-program format: what the disk cache keeps for a built program.
 * The core owns it: the plugin's vendor image (program_image) and kernel
 * list (program_kernels), which program_load_image gets back, and the
 * core's description of the program (its kernels as the user names them,
 * with the front end's parameters and hidden arguments, and its
 * variables).  Layout and the rules of reading are in saved_program.c.
 */
#ifndef KILN_SAVED_PROGRAM_H
#define KILN_SAVED_PROGRAM_H

#include <stddef.h>

#include "internal.h"

/* Bumped whenever the layout or what it holds changes: an entry of
 * another version is a cache miss.  2: value parameters of struct types
 * carry their size (version 1 left them 0, which launches now refuse).
 * 3: the core's description of the program beside the plugin's list. */
#define KILN_SAVED_PROGRAM_VERSION 4u

/* A saved program read back.  `info`, `image` and the description's
 * strings point into the bytes read and the arrays below; the description
 * is the caller's to take (moved out, then zeroed) or to free with the
 * rest. */
typedef struct kiln_saved_program {
    kiln_language language;
    kiln_backend_program_info info;
    kiln_program_description description;
    const void *image;
    size_t image_size;
    /* storage for info, malloc'ed */
    kiln_backend_kernel_entry *kernels;
    kiln_backend_param *params;
} kiln_saved_program;

/* Writes a program of `language`: the plugin's `info` (NULL: none), the
 * core's `description` and `image` (a malloc'ed block in *data).
 * KILN_ERR_BACKEND when the plugin's info cannot be saved (a NULL or empty
 * name, counts past 2^32), KILN_ERR_OUT_OF_HOST_MEMORY; the message says
 * which. */
KILN_INTERNAL kiln_status kiln_saved_program_write(
    kiln_language language, const kiln_backend_program_info *info,
    const kiln_program_description *description, const void *image,
    size_t image_size, void **data, size_t *size);

/* Reads `size` bytes as a saved program of `language`.  Never reads past
 * the end, allocates at most in proportion to `size`, and refuses
 * (KILN_ERR_INVALID_ARGUMENT, "saved program: bad <field>") anything it
 * did not write: another magic or version, another language, truncated,
 * padded or inconsistent bytes.  On failure *saved holds nothing to free. */
KILN_INTERNAL kiln_status kiln_saved_program_read(
    const void *data, size_t size, kiln_language language,
    kiln_saved_program *saved);

KILN_INTERNAL void kiln_saved_program_free(kiln_saved_program *saved);

#endif /* KILN_SAVED_PROGRAM_H */
