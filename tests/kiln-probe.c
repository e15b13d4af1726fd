/*
 * kiln-probe [BACKEND]: creates a context as a user program would (BACKEND
 * or NULL: the environment decides) and prints what happened, for the
 * loader tests, which run it under chosen environments:
 *   status=<KILN_... name>
 *   backend=<chosen backend or ->
 *   message=<kiln_last_error(), newlines as \n>
 */
#include <stdio.h>

#include "kiln.h"

int main(int argc, char **argv)
{
    const char *wanted = argc > 1 ? argv[1] : NULL;
    kiln_context *context = NULL;
    kiln_status status = kiln_context_create(wanted, -1, &context);
    const char *backend = "-";
    if (status == KILN_OK)
        kiln_context_backend(context, &backend);
    printf("status=%s\nbackend=%s\nmessage=", kiln_status_name(status),
           backend);
    for (const char *p = kiln_last_error(); *p; ++p) {
        if (*p == '\n')
            fputs("\\n", stdout);
        else
            putchar(*p);
    }
    putchar('\n');
    if (context != NULL)
        kiln_context_release(context);
    return 0;
}
