/*
 * kiln-probe [BACKEND]: creates a context as a user program would (BACKEND
 * or NULL: the environment decides) and prints what happened, for the
 * loader tests, which run it under chosen environments:
 *   status=<KILN_... name>
 *   backend=<chosen backend or ->
 *   message=<kiln_last_error(), newlines as \n>
 * With KILN_TEST_PROBE_SMALL_STACK set it instead describes every backend
 * (the first call loads the plugins) from a thread with a 128 KiB stack,
 * musl's default, and prints status=small-stack-ok when that returns.  (In
 * a sanitizer build, KILN_TEST_SANITIZERS, 512 KiB: redzones make every
 * frame, the vendor libraries' too, several times larger.)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "kiln.h"

static void *describe_backends(void *unused)
{
    (void)unused;
    size_t count = 0;
    kiln_status status = kiln_backend_get_count(&count);
    for (size_t i = 0; i < count && status == KILN_OK; ++i) {
        kiln_backend_info info;
        status = kiln_backend_get_info(i, &info);
    }
    printf("status=%s\nbackend=-\nmessage=%s\n",
           status == KILN_OK ? "small-stack-ok" : kiln_status_name(status),
           kiln_last_error());
    return NULL;
}

static int probe_on_small_stack(void)
{
    pthread_attr_t attributes;
    pthread_t thread;
    if (pthread_attr_init(&attributes) != 0 ||
        pthread_attr_setstacksize(&attributes,
                                  getenv("KILN_TEST_SANITIZERS") != NULL
                                      ? 512 * 1024
                                      : 128 * 1024) != 0 ||
        pthread_create(&thread, &attributes, describe_backends, NULL) != 0) {
        printf("status=cannot-start-thread\nbackend=-\nmessage=\n");
        return 0;
    }
    pthread_join(thread, NULL);
    pthread_attr_destroy(&attributes);
    return 0;
}

int main(int argc, char **argv)
{
    if (getenv("KILN_TEST_PROBE_SMALL_STACK") != NULL)
        return probe_on_small_stack();
    const char *wanted = argc > 1 ? argv[1] : NULL;
    kiln_context *context = NULL;
    kiln_status status = kiln_context_create(wanted, -1, &context);
    const char *backend = "-";
    if (status == KILN_OK)
        kiln_context_get_backend(context, &backend);
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
