/*
 * The saved-program format: what the disk cache keeps for a built program.
 * The core owns it; a plugin gives only its vendor image (program_image)
 * and the kernel information of program_kernels, and gets both back in
 * program_load_image.  Layout and the rules of reading are in
 * saved_program.c.
 */
#ifndef KILN_SAVED_PROGRAM_H
#define KILN_SAVED_PROGRAM_H

#include <stddef.h>

#include "kiln.h"
#include "kiln_backend.h"

#if defined(__GNUC__)
#define KILN_SAVED_INTERNAL __attribute__((visibility("hidden")))
#else
#define KILN_SAVED_INTERNAL
#endif

/* Bumped whenever the layout or what it holds changes: an entry of
 * another version is a cache miss.  2: value parameters of struct types
 * carry their size (version 1 left them 0, which launches now refuse). */
#define KILN_SAVED_PROGRAM_VERSION 2u

/* A saved program read back.  `info` and `image` point into the bytes
 * read (strings included) and into the arrays below: valid while both
 * live. */
typedef struct kiln_saved_program {
    kiln_language language;
    kiln_backend_program_info info;
    const void *image;
    size_t image_size;
    /* storage for info, malloc'ed */
    kiln_backend_kernel_signature *kernels;
    kiln_backend_param *params;           /* every kernel's, in order     */
    kiln_backend_hidden_param *hidden;    /* likewise                     */
    kiln_backend_variable *variables;
} kiln_saved_program;

/* Writes `info` and `image` of a program of `language` (a malloc'ed block
 * in *data).  KILN_ERR_BACKEND when the plugin's info cannot be saved
 * (a NULL or empty name, a hidden variable out of range, counts past
 * 2^32), KILN_ERR_OUT_OF_HOST_MEMORY; the message says which. */
KILN_SAVED_INTERNAL kiln_status kiln_saved_program_write(
    kiln_language language, const kiln_backend_program_info *info,
    const void *image, size_t image_size, void **data, size_t *size);

/* Reads `size` bytes as a saved program of `language`.  Never reads past
 * the end, allocates at most in proportion to `size`, and refuses
 * (KILN_ERR_INVALID_ARGUMENT, "saved program: bad <field>") anything it
 * did not write: another magic or version, another language, truncated,
 * padded or inconsistent bytes.  On failure *saved holds nothing to free. */
KILN_SAVED_INTERNAL kiln_status kiln_saved_program_read(
    const void *data, size_t size, kiln_language language,
    kiln_saved_program *saved);

KILN_SAVED_INTERNAL void kiln_saved_program_free(kiln_saved_program *saved);

#endif /* KILN_SAVED_PROGRAM_H */
