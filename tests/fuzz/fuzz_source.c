/*
 * Fuzz target: the #include expansion of program sources (the front
 * end's preprocessor, translate_open, reading files through
 * core/source.c's reader).  A scratch
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
    static const translate_define fuzz_define[] = {{"FUZZ", "1"}};
    const translate_options options = {.defines = fuzz_define,
                                       .define_count = 1,
                                       .include_dirs = dirs,
                                       .include_dir_count = 1};
    /* Even sizes are translated (macros expanded too), odd ones only
     * expanded for the OpenCL compiler. */
    const translate_target target = {
        .language = size % 2 == 0 ? TRANSLATE_CUDA_C : TRANSLATE_OPENCL_C};
    kiln_include_reader reader;
    if (kiln_include_reader_init(&reader, "fuzz.cl", dirs, 1, false) != KILN_OK)
        abort();
    const translate_input input = {.text = (const char *)data,
                                   .length = size,
                                   .name = "fuzz.cl",
                                   .language = TRANSLATE_OPENCL_C,
                                   .options = &options,
                                   .reader = &reader.reader,
                                   .target = &target};
    translate_unit *unit = NULL;
    translate_error error;
    int result = translate_open(&input, &unit, &error);
    if (result == 0) {
        size_t length = 0;
        const char *text = translate_text(unit, &length);
        /* The input itself when it includes nothing, else the expansion,
         * terminated. */
        if (text == (const char *)data ? length != size
                                       : text == NULL || text[length] != '\0')
            abort();
    } else if (result == -1 && error.message == NULL) {
        abort(); /* every refusal explains itself */
    }
    translate_error_free(&error);
    translate_close(unit);
    kiln_include_reader_free(&reader);
    return 0;
}
