/*
 * A raw trace as the tracer writes it (formats/rt_raw.h): the parts of the input, separated
 * by FZ_SEP, are the files named below, in this order.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "fz.h"

static const char *const names[] = {
    "raw/r0.defs.rtr", "raw/r0.t0.rtr",   "raw/r1.defs.rtr", "raw/r1.t0.rtr",
    "raw/r0.t1.rtr",   "raw/r2.defs.rtr", "raw/r2.t0.rtr",   "raw/r1.t1.rtr",
};
#define NNAMES (sizeof names / sizeof *names)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_part parts[NNAMES];
    size_t n = fz_split(data, size, parts, NNAMES);
    fz_remove("raw");
    mkdir("raw", 0755);
    for (size_t i = 0; i < n; i++)
        fz_write(names[i], parts[i].data, parts[i].size);
    fz_analyse_all("raw");
    return 0;
}
