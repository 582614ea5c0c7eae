/*
 * comm_groups: the MPI-4 communicator constructors on 4 ranks, a ring of messages on each new
 * communicator (rank k sends 4 * (k + 1) bytes to rank k + 1, tag 10 + the test):
 *  1. MPI_Comm_idup_with_info of MPI_COMM_WORLD, completed by MPI_Wait;
 *  2. MPI_Comm_create_from_group of world ranks 3, 1 and 0 (in that order; rank 2 stays out),
 *     their group from MPI_Comm_group of MPI_COMM_WORLD, string tag "retrace/group";
 *  3. MPI_Comm_create_from_group of a session's "mpi://WORLD" group (MPI_Session_init,
 *     MPI_Group_from_session_pset), string tag "retrace/session";
 *  4. MPI_Intercomm_create_from_groups of the even ranks (0, 2) and the odd ones (3, 1: in
 *     that order), leaders their first, string tag "retrace/inter": local rank k sends to
 *     remote rank k.
 * Then the session-made communicator is freed before the session is finalized. The expected
 * trace, derived by hand, is expected/comm_groups.dump: each message on its communicator
 * (members as world ranks).
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD
#define P 4

static int rank;

/* A ring on comm: rank k sends k + 1 ints to k + 1 and receives k ints (k + 1 - 1 of the
 * left neighbour) from k - 1; the data says who sent it. */
static void ring(MPI_Comm comm, int tag)
{
    int me, n, buf[8], got[8];
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i <= me; i++)
        buf[i] = 100 * tag + me;
    MPI_Status st;
    MPI_Sendrecv(buf, me + 1, MPI_INT, right, tag, got, 8, MPI_INT, left, tag, comm, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    MT_CHECK(count == left + 1 && got[0] == 100 * tag + left && got[left] == 100 * tag + left);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "comm_groups", P, MT_NO_THREADS);
    MPI_Group world;
    MPI_Comm_group(W, &world);

    /* 1 */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm dup;
    MPI_Request req;
    MPI_Comm_idup_with_info(W, info, &dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Info_free(&info);
    ring(dup, 11);

    /* 2 */
    static const int three[3] = {3, 1, 0};
    MPI_Group g3;
    MPI_Group_incl(world, 3, three, &g3);
    MPI_Comm c3 = MPI_COMM_NULL;
    if (rank != 2) {
        MPI_Comm_create_from_group(g3, "retrace/group", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c3);
        int me;
        MPI_Comm_rank(c3, &me);
        MT_CHECK(me == (rank == 3 ? 0 : rank == 1 ? 1 : 2));
        ring(c3, 12);
    }

    /* 3 */
    MPI_Session session;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &session);
    MPI_Group sg;
    MPI_Group_from_session_pset(session, "mpi://WORLD", &sg);
    MPI_Comm sc;
    MPI_Comm_create_from_group(sg, "retrace/session", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &sc);
    int me;
    MPI_Comm_rank(sc, &me);
    MT_CHECK(me == rank);
    ring(sc, 13);

    /* 4 */
    static const int even[2] = {0, 2}, odd[2] = {3, 1};
    MPI_Group ge, go;
    MPI_Group_incl(world, 2, even, &ge);
    MPI_Group_incl(world, 2, odd, &go);
    MPI_Comm inter;
    if (rank % 2 == 0)
        MPI_Intercomm_create_from_groups(ge, 0, go, 0, "retrace/inter", MPI_INFO_NULL,
                                         MPI_ERRORS_ARE_FATAL, &inter);
    else
        MPI_Intercomm_create_from_groups(go, 0, ge, 0, "retrace/inter", MPI_INFO_NULL,
                                         MPI_ERRORS_ARE_FATAL, &inter);
    int k, remote, flag;
    MPI_Comm_rank(inter, &k);
    MPI_Comm_remote_size(inter, &remote);
    MPI_Comm_test_inter(inter, &flag);
    MT_CHECK(flag && remote == 2);
    int out = 100 * 14 + rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, k, 14, &in, 1, MPI_INT, k, 14, inter, MPI_STATUS_IGNORE);
    /* my partner: local rank k of the other group */
    int partner = rank % 2 == 0 ? odd[k] : even[k];
    MT_CHECK(in == 100 * 14 + partner);

    MPI_Comm_free(&inter);
    MPI_Group_free(&ge);
    MPI_Group_free(&go);
    MPI_Comm_free(&sc);
    MPI_Group_free(&sg);
    MPI_Session_finalize(&session);
    if (c3 != MPI_COMM_NULL)
        MPI_Comm_free(&c3);
    MPI_Group_free(&g3);
    MPI_Comm_free(&dup);
    MPI_Group_free(&world);
    mt_finish("comm_groups");
    MPI_Finalize();
    return 0;
}
