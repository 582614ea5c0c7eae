/* A network model file (docs/model.md), read by pipeline and replay. */
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("m.conf", data, size);
    fz_run("pipeline", FZ_TEMPLATE, "--model", "m.conf", NULL);
    fz_run("replay", FZ_TEMPLATE, "--model", "m.conf", NULL);
    fz_run("replay", FZ_TEMPLATE, "--compare", "model:m.conf", "--map", "cyclic", NULL);
    return 0;
}
