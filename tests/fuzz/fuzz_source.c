/*
 * Fuzz target: the #include expansion of program sources (the front
 * end's preprocessor, reading files through core/source.c).  A scratch
 * include directory holds a few headers (one including itself, one with
 * #pragma once); the input is a program text that may include them.  It
 * must never crash, hang or recurse without bound.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char directory[128];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    FILE *file = fopen(path, "w");
    if (file == NULL)
        abort();
    fputs(text, file);
    fclose(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (directory[0] == '\0') {
        snprintf(directory, sizeof directory, "/tmp/kiln-fuzz-source-%ld",
                 (long)getpid());
        mkdir(directory, 0700);
        write_file("a.h", "#define A 1\n#include \"b.h\"\n");
        write_file("b.h", "#pragma once\nint b;\n#include \"a.h\"\n");
        write_file("self.h", "#include \"self.h\"\n");
        write_file("once.h", "  #  pragma   once\nint once;\n");
    }
    const char *dirs[] = {directory};
    static const kiln_backend_define fuzz_define[] = {{"FUZZ", "1"}};
    kiln_backend_source source = {.text = (const char *)data,
                                  .length = size,
                                  .options = "-DFUZZ=1",
                                  .name = "fuzz.cl",
                                  .defines = fuzz_define,
                                  .define_count = 1,
                                  .include_dirs = dirs,
                                  .include_dir_count = 1};
    char *expanded = NULL;
    size_t length = 0;
    kiln_status status =
        kiln_source_expand(&source, size % 2 == 0, &expanded, &length);
    if (status == KILN_OK) {
        /* NULL: the program includes nothing and stays as it is. */
        if (expanded != NULL && expanded[length] != '\0')
            abort();
    } else if (kiln_last_error()[0] == '\0') {
        abort();
    }
    free(expanded);
    return 0;
}
