/*
 * A SimGrid time-independent trace: the index file, then the action files it may name, which
 * are written as r0.txt, r1.txt ... (parts separated by FZ_SEP).
 */
#include <stdio.h>

#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_part parts[FZ_MAX_PARTS];
    size_t n = fz_split(data, size, parts, FZ_MAX_PARTS);
    char name[32];
    for (size_t i = 1; i < FZ_MAX_PARTS; i++) {
        snprintf(name, sizeof name, "r%zu.txt", i - 1);
        if (i < n)
            fz_write(name, parts[i].data, parts[i].size);
        else
            fz_remove(name);
    }
    fz_write("t.ti", parts[0].data, parts[0].size);
    fz_analyse_all("t.ti");
    return 0;
}
