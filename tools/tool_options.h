/*
 * tool_options.h — the options every Kiln tool answers the same way:
 * -h/--help prints the usage and -V/--version "TOOL (Kiln VERSION)", both
 * on stdout with exit status 0; an unknown option prints a message and the
 * usage on stderr with exit status 2.
 */
#ifndef KILN_TOOL_OPTIONS_H
#define KILN_TOOL_OPTIONS_H

#include <stdio.h>
#include <string.h>

/* Exit status of a usage error, in every tool. */
#define TOOL_EXIT_USAGE 2

/* Answers --help and --version anywhere before a "--": returns the exit
 * status (0) when one was given, -1 otherwise. */
static inline int tool_standard_options(int argc, char **argv,
                                        const char *tool, const char *version,
                                        void (*usage)(FILE *))
{
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
            printf("%s (Kiln %s)\n", tool, version);
            return 0;
        }
    }
    return -1;
}

#endif /* KILN_TOOL_OPTIONS_H */
