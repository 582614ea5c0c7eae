/* A mapping file (lines 'RANK NODE'), read by replay --map file:FILE. */
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("p.map", data, size);
    fz_run("replay", FZ_TEMPLATE, "--map", "file:p.map", NULL);
    fz_run("replay", FZ_TEMPLATE, "--compare", "map:file:p.map", "--modules", "2", NULL);
    return 0;
}
