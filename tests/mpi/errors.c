/*
 * Calls that fail under MPI_ERRORS_RETURN, then one message that goes (2 ranks): each rank
 * sends to rank 99, with a count of -1 and with a tag of -5, posts an MPI_Isend to rank 99 and
 * calls MPI_Bcast with root 7; each call returns an error, which the program prints by its
 * class. Then rank 0 sends rank 1 four bytes. The trace holds the failed calls as calls that
 * did nothing (their ENTER and LEAVE) and the one message (docs/tracer.md, "Calls that fail").
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

static const char *class_name(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    if (c == MPI_SUCCESS)
        return "MPI_SUCCESS";
    if (c == MPI_ERR_RANK)
        return "MPI_ERR_RANK";
    if (c == MPI_ERR_COUNT)
        return "MPI_ERR_COUNT";
    if (c == MPI_ERR_TAG)
        return "MPI_ERR_TAG";
    if (c == MPI_ERR_ROOT)
        return "MPI_ERR_ROOT";
    return "another class";
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int me, x = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Request q = MPI_REQUEST_NULL;
    const char *what[5] = {"MPI_Send to rank 99", "MPI_Send of -1 ints", "MPI_Send with tag -5",
                           "MPI_Isend to rank 99", "MPI_Bcast with root 7"};
    int rc[5];
    rc[0] = MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    rc[1] = MPI_Send(&x, -1, MPI_INT, 1 - me, 0, MPI_COMM_WORLD);
    rc[2] = MPI_Send(&x, 1, MPI_INT, 1 - me, -5, MPI_COMM_WORLD);
    rc[3] = MPI_Isend(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD, &q);
    rc[4] = MPI_Bcast(&x, 1, MPI_INT, 7, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < 2; r++) { /* rank 0's lines, then rank 1's */
        if (r == me)
            for (int i = 0; i < 5; i++)
                printf("rank %d: %s: %s\n", me, what[i], class_name(rc[i]));
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (me == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    else
        MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
