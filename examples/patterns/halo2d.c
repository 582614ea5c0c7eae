/* 2D halo exchange (halo.h): every iteration exchanges -s bytes with each of the four
 * neighbours on a periodic grid of ranks, then computes -c us. Defaults: 2000 iterations of
 * 8 KiB faces. */
#include "halo.h"

static void iteration(pattern *p, long i)
{
    (void)i;
    halo_exchange(p);
    pattern_compute(p);
}

int main(int argc, char **argv)
{
    pattern p;
    int rc = pattern_init(&p, "halo2d", 2000, 8192, &argc, &argv);
    if (rc)
        return rc;
    halo_setup(&p);
    pattern_run(&p, iteration);
    halo_teardown();
    return pattern_finish(&p);
}
