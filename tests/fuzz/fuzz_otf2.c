/*
 * One file of an OTF2 archive (FZ_OTF2_FILE: the anchor, the global definitions, a
 * location's local definitions or its events) replaced by the input; the rest of the archive
 * is what `retrace convert` writes for the trace FZ_TEMPLATE, made once per process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    static int made;
    if (!made) {
        fz_remove("t");
        if (fz_run("convert", FZ_TEMPLATE, "--to", "otf2", "t", NULL) != 0 ||
            access("t/" FZ_OTF2_FILE, F_OK) != 0) {
            dprintf(2, "fuzz harness: cannot make t/%s from %s\n", FZ_OTF2_FILE, FZ_TEMPLATE);
            _exit(70);
        }
        made = 1;
    }
    fz_write("t/" FZ_OTF2_FILE, data, size);
    fz_analyse_all("t");
    return 0;
}
