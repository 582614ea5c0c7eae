/*
 * fort3_c: the MPI-4 calls whose `use mpi_f08` entry points call PMPI directly and that the
 * tracer records, on 4 ranks: a persistent barrier started twice, MPI_Comm_idup_with_info,
 * MPI_Comm_create_from_group (world ranks 3, 1, 0) and MPI_Intercomm_create_from_groups (the
 * even ranks and the odd ones), a message on each new communicator. fort3_f08.f90 makes the
 * same calls through `use mpi_f08`, one for one and in the same order: the same output and
 * the same trace (expected/fort3.dump). Keep the two in step. MPICH only: Open MPI 4.1 has
 * none of these.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

static int rank;

/* One int to the next rank of comm, one from the previous: the sender's world rank. */
static void ring(MPI_Comm comm, int tag, int from)
{
    int me, n, got = -1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Sendrecv(&rank, 1, MPI_INT, (me + 1) % n, tag, &got, 1, MPI_INT, (me + n - 1) % n, tag,
                 comm, MPI_STATUS_IGNORE);
    MT_CHECK(got == from);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "fort3", 4, MPI_THREAD_SINGLE);
    MPI_Request req;
    MPI_Barrier_init(W, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);

    MPI_Comm dup;
    MPI_Comm_idup_with_info(W, MPI_INFO_NULL, &dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ring(dup, 21, (rank + 3) % 4);

    static const int three[3] = {3, 1, 0}, even[2] = {0, 2}, odd[2] = {3, 1};
    MPI_Group world, g3, ge, go;
    MPI_Comm_group(W, &world);
    MPI_Group_incl(world, 3, three, &g3);
    MPI_Comm c3 = MPI_COMM_NULL;
    if (rank != 2) {
        MPI_Comm_create_from_group(g3, "retrace/fort3", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c3);
        ring(c3, 22, rank == 3 ? 0 : rank == 1 ? 3 : 1);
    }
    MPI_Group_incl(world, 2, even, &ge);
    MPI_Group_incl(world, 2, odd, &go);
    MPI_Comm inter;
    MPI_Intercomm_create_from_groups(rank % 2 ? go : ge, 0, rank % 2 ? ge : go, 0, "retrace/inter",
                                     MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &inter);
    int k, got = -1;
    MPI_Comm_rank(inter, &k);
    MPI_Sendrecv(&rank, 1, MPI_INT, k, 23, &got, 1, MPI_INT, k, 23, inter, MPI_STATUS_IGNORE);
    MT_CHECK(got == (rank % 2 ? even[k] : odd[k]));

    MPI_Comm_free(&inter);
    MPI_Group_free(&go);
    MPI_Group_free(&ge);
    if (c3 != MPI_COMM_NULL)
        MPI_Comm_free(&c3);
    MPI_Group_free(&g3);
    MPI_Group_free(&world);
    MPI_Comm_free(&dup);
    mt_finish("fort3");
    MPI_Finalize();
    return 0;
}
