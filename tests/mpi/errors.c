/*
 * Calls that fail under MPI_ERRORS_RETURN (2 ranks). errors [MODE]:
 *   all (default)  each rank sends to rank 99, with a count of -1 and with a tag of -5, posts an
 *                  MPI_Isend to rank 99 and calls MPI_Bcast with root 7
 *   rank, count, root
 *                  only the send to rank 99, the send of -1 ints, or the bcast with root 7
 *   ok             the look-alike: the same handler, and the same calls with valid arguments
 *                  (a send to the other rank of 1 int with tag 0, received; a bcast from root 0)
 *   noarchive      as ok, after rank 0 put a file where the tracer's archive goes (RETRACE_OUT):
 *                  MPI_Finalize cannot write the archive, the raw trace stays; the file goes
 *                  after MPI_Finalize, so that `retrace record` can assemble it then (the test
 *                  of what record says, tests/mpi/noarchive_check.sh)
 * Each call's result is printed by rank 0, by its error class (MPI_SUCCESS for none), rank 0's
 * lines first. Then rank 0 sends rank 1 four bytes. A failed call is in the trace as a call that
 * did nothing but return its error (docs/tracer.md, "Calls that fail"); retrace check reports each
 * as invalid-param (docs/check.md).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static const char *const class_names[] = {"MPI_SUCCESS", "MPI_ERR_RANK", "MPI_ERR_COUNT",
                                          "MPI_ERR_TAG", "MPI_ERR_ROOT", "another class"};

/* The index of a code's class in class_names. */
static int class_of(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    const int classes[] = {MPI_SUCCESS, MPI_ERR_RANK, MPI_ERR_COUNT, MPI_ERR_TAG, MPI_ERR_ROOT};
    for (int i = 0; i < 5; i++)
        if (c == classes[i])
            return i;
    return 5;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *mode = argc > 1 ? argv[1] : "all";
    int me, x = 1, all = !strcmp(mode, "all"), ok = !strcmp(mode, "ok");
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *blocked = NULL;
    if (!strcmp(mode, "noarchive")) {
        const char *out = getenv("RETRACE_OUT");
        if (me == 0 && out) {
            blocked = out;
            rmdir(out); /* the tracer's empty archive directory, if it made one */
            int fd = open(out, O_CREAT | O_WRONLY, 0644);
            if (fd >= 0)
                close(fd);
        }
        ok = 1;
    }
    int other = 1 - me;
    MPI_Request q = MPI_REQUEST_NULL;
    const char *what[5];
    int rc[5], n = 0;
    if (ok) {
        for (int r = 0; r < 2; r++) { /* rank 0 sends first, then rank 1 */
            if (r == me)
                rc[n] = MPI_Send(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD);
            else
                MPI_Recv(&x, 1, MPI_INT, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        what[n++] = "MPI_Send to the other rank";
        rc[n] = MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        what[n++] = "MPI_Bcast with root 0";
    }
    if (all || !strcmp(mode, "rank")) {
        rc[n] = MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        what[n++] = "MPI_Send to rank 99";
    }
    if (all || !strcmp(mode, "count")) {
        rc[n] = MPI_Send(&x, -1, MPI_INT, other, 0, MPI_COMM_WORLD);
        what[n++] = "MPI_Send of -1 ints";
    }
    if (all) {
        rc[n] = MPI_Send(&x, 1, MPI_INT, other, -5, MPI_COMM_WORLD);
        what[n++] = "MPI_Send with tag -5";
        rc[n] = MPI_Isend(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD, &q);
        what[n++] = "MPI_Isend to rank 99";
    }
    if (all || !strcmp(mode, "root")) {
        rc[n] = MPI_Bcast(&x, 1, MPI_INT, 7, MPI_COMM_WORLD);
        what[n++] = "MPI_Bcast with root 7";
    }
    if (!n) {
        if (!me)
            fprintf(stderr, "errors: unknown mode '%s' (all, rank, count, root, ok, noarchive)\n",
                    mode);
        MPI_Finalize();
        return 2;
    }
    int mine[5], both[10]; /* rank 0 prints both ranks' results: one stream, in order */
    for (int i = 0; i < n; i++)
        mine[i] = class_of(rc[i]);
    MPI_Gather(mine, n, MPI_INT, both, n, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; r < 2 && me == 0; r++)
        for (int i = 0; i < n; i++)
            printf("rank %d: %s: %s\n", r, what[i], class_names[both[r * n + i]]);
    if (me == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    else
        MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    if (me == 0 && blocked) /* the archive could not be written: a retry may */
        unlink(blocked);
    return 0;
}
