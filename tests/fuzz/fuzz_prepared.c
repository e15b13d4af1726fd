/*
 * Fuzz target: the prepared-launch type string parser.  It must accept
 * exactly the documented characters, never read past the string and never
 * write past `kinds`.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *types = kiln_strndup((const char *)data, size);
    if (types == NULL)
        return 0;
    char kinds[8];
    size_t count = 0;
    kiln_status status = kiln_prepared_parse(types, kinds, sizeof kinds, &count);
    if (status == KILN_OK) {
        if (count > sizeof kinds)
            abort();
        for (size_t i = 0; i < count; ++i)
            if (strchr("PcChHiIlLzfdS<>=", kinds[i]) == NULL)
                abort();
    } else if (kiln_last_error()[0] == '\0') {
        abort(); /* every failure explains itself */
    }
    free(types);
    return 0;
}
