/* The 2D halo exchange that halo2d.c and stencil.c share: the ranks form a periodic grid
 * (MPI_Dims_create, MPI_Cart_create); an exchange posts a receive from each of the four
 * neighbours and sends -s bytes to each (MPI_Irecv, MPI_Isend, MPI_Waitall). On a grid one
 * rank wide the neighbours on that axis are the rank itself. */
#ifndef HALO_H
#define HALO_H

#include "patterns.h"

static MPI_Comm halo_grid;
static int halo_nbr[4]; /* -x, +x, -y, +y */
static char *halo_buf[4];

static void halo_setup(const pattern *p)
{
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(p->size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &halo_grid);
    MPI_Cart_shift(halo_grid, 0, 1, &halo_nbr[0], &halo_nbr[1]);
    MPI_Cart_shift(halo_grid, 1, 1, &halo_nbr[2], &halo_nbr[3]);
    for (int d = 0; d < 4; d++) {
        halo_buf[d] = calloc(1, p->bytes ? p->bytes : 1);
        if (!halo_buf[d])
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void halo_exchange(pattern *p)
{
    int n = (int)p->bytes;
    MPI_Request q[8];
    for (int d = 0; d < 4; d++)
        MPI_Irecv(halo_buf[d], n, MPI_BYTE, halo_nbr[d], d, halo_grid, &q[d]);
    /* What goes to the -x neighbour arrives there as from its +x side: tag d ^ 1. */
    for (int d = 0; d < 4; d++)
        MPI_Isend(p->sbuf, n, MPI_BYTE, halo_nbr[d], d ^ 1, halo_grid, &q[4 + d]);
    MPI_Status st[8]; /* not MPI_STATUSES_IGNORE: GCC 12 takes it for an 8-entry array */
    MPI_Waitall(8, q, st);
}

static void halo_teardown(void)
{
    for (int d = 0; d < 4; d++)
        free(halo_buf[d]);
    MPI_Comm_free(&halo_grid);
}

#endif /* HALO_H */
