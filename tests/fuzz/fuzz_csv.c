/* A retrace CSV trace, read by every analysis, replayed and converted. */
#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("t.csv", data, size);
    fz_analyse_all("t.csv");
    return 0;
}
