/*
 * wild: receives posted with and without MPI_ANY_SOURCE and MPI_ANY_TAG on 3 ranks, in every
 * receive family of docs/tracer.md, so that the trace shows each receive's wildcards (the op
 * of its RECV or IRECV event) exactly where the program used them: expected/wild.wildcards,
 * one line per receive event, read side by side with this file.
 *
 * Steps are separated by barriers, and within a step every wildcard receive can match only
 * the message meant for it (the matching order MPI guarantees: messages from one sender
 * in order, receives matched in the order they were posted), so what each receive gets is
 * checked too. The harness compares only the ops: MPICH 4.0.2 completes an Isendrecv with a
 * status that is not the receive's (docs/tracer.md), so the source, tag and size of those
 * receives are not the program's to promise.
 */
#include "mpitest.h"

#define W MPI_COMM_WORLD

/*
 * Under an MPI-3 library (Open MPI 4.1) the MPI-4 calls become what they stand for: the
 * large-count receives their base forms, an Isendrecv an Irecv and a Send completed by the
 * same Wait. The receives keep their wildcards and completing calls; only MPI_Recv_c's line
 * of the expected wildcards reads MPI_Recv (expected/wild_mpi3.wildcards).
 */
#if MPI_VERSION >= 4
#define RECV_C MPI_Recv_c
#define IRECV_C MPI_Irecv_c
#define ISENDRECV MPI_Isendrecv
#define ISENDRECV_REPLACE MPI_Isendrecv_replace
#define REPLACE_DONE(buf) ((void)0)
#else
#define RECV_C MPI_Recv
#define IRECV_C MPI_Irecv
#define ISENDRECV isendrecv_mpi3
#define ISENDRECV_REPLACE isendrecv_replace_mpi3
#define REPLACE_DONE(buf) (*(buf) = replaced)
static int isendrecv_mpi3(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                          void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                          MPI_Comm comm, MPI_Request *request)
{
    MPI_Irecv(rbuf, rcount, rtype, source, rtag, comm, request);
    return MPI_Send(sbuf, scount, stype, dest, stag, comm);
}

/* The message is 1 int here: the reply is received aside and copied once the Wait returns. */
static int replaced;
static int isendrecv_replace_mpi3(void *buf, int count, MPI_Datatype type, int dest, int stag,
                                  int source, int rtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_Irecv(&replaced, count, type, source, rtag, comm, request);
    return MPI_Send(buf, count, type, dest, stag, comm);
}
#endif

static int rank;

/* A: Recv with each combination of wildcards, Recv_c, and matched probes. */
static void blocking(void)
{
    int v = 0;
    MPI_Status st;
    MPI_Message m;
    MPI_Request rq;
    if (rank == 1) {
        for (int tag = 1; tag <= 5; tag += 2) { /* tags 1, 3, 5 */
            v = tag;
            MPI_Send(&v, 1, MPI_INT, 0, tag, W);
        }
    } else if (rank == 2) {
        for (int tag = 2; tag <= 7; tag++) { /* tags 2, 4, 6, 7 */
            if (tag == 3 || tag == 5)
                continue;
            v = tag;
            MPI_Send(&v, 1, MPI_INT, 0, tag, W);
        }
    } else {
        MPI_Recv(&v, 1, MPI_INT, 1, 1, W, &st); /* none */
        MT_CHECK(v == 1);
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, W, &st); /* any_source: only 2 sends tag 2 */
        MT_CHECK(v == 2 && st.MPI_SOURCE == 2);
        MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, W, &st); /* any_tag: 1's next is tag 3 */
        MT_CHECK(v == 3 && st.MPI_TAG == 3);
        MPI_Recv(&v, 1, MPI_INT, 2, 4, W, MPI_STATUS_IGNORE); /* none */
        MT_CHECK(v == 4);
        /* left: 1's tag 5, 2's tags 6 and 7 */
        RECV_C(&v, 1, MPI_INT, 1, MPI_ANY_TAG, W, &st); /* any_tag, large-count form */
        MT_CHECK(v == 5);
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, W, &m, &st); /* 2's tag 6 */
        MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE);    /* none: the probe chose */
        MT_CHECK(v == 6);
        MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, W, &m, &st); /* 2's tag 7 */
        MPI_Imrecv(&v, 1, MPI_INT, &m, &rq);                 /* none */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(v == 7);
    }
    MPI_Barrier(W);
    /* both wildcards, blocking: one message in flight */
    if (rank == 2) {
        v = 8;
        MPI_Send(&v, 1, MPI_INT, 0, 8, W);
    } else if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &st); /* any_source|any_tag */
        MT_CHECK(v == 8 && st.MPI_SOURCE == 2 && st.MPI_TAG == 8);
    }
    MPI_Barrier(W);
}

/* B: Sendrecv and Sendrecv_replace: the flags are those of source and recvtag. */
static void sendrecv(void)
{
    int s = 0, r = 0;
    if (rank == 0) {
        s = 10;
        MPI_Sendrecv(&s, 1, MPI_INT, 1, 10, &r, 1, MPI_INT, MPI_ANY_SOURCE, 11, W,
                     MPI_STATUS_IGNORE); /* any_source */
        MT_CHECK(r == 11);
        s = 12;
        MPI_Sendrecv_replace(&s, 1, MPI_INT, 2, 12, MPI_ANY_SOURCE, MPI_ANY_TAG, W,
                             MPI_STATUS_IGNORE); /* any_source|any_tag: only 2 sends now */
        MT_CHECK(s == 13);
    } else if (rank == 1) {
        s = 11;
        MPI_Sendrecv(&s, 1, MPI_INT, 0, 11, &r, 1, MPI_INT, 0, MPI_ANY_TAG, W,
                     MPI_STATUS_IGNORE); /* any_tag */
        MT_CHECK(r == 10);
    } else {
        s = 13;
        MPI_Sendrecv_replace(&s, 1, MPI_INT, 0, 13, 0, 12, W, MPI_STATUS_IGNORE); /* none */
        MT_CHECK(s == 12);
    }
    MPI_Barrier(W);
}

/* C: Irecv and Irecv_c: the flags wait in the request until the completing call. */
static void nonblocking(void)
{
    int x[4] = {0}, v;
    MPI_Request q[3];
    if (rank == 0) {
        MPI_Irecv(&x[0], 1, MPI_INT, MPI_ANY_SOURCE, 20, W, &q[0]); /* any_source */
        MPI_Irecv(&x[1], 1, MPI_INT, 2, MPI_ANY_TAG, W, &q[1]);     /* any_tag */
        MPI_Irecv(&x[2], 1, MPI_INT, 1, 22, W, &q[2]);              /* none */
        MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
        MT_CHECK(x[0] == 20 && x[1] == 21 && x[2] == 22);
        IRECV_C(&x[3], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &q[0]); /* both */
        v = 0;
        MPI_Send(&v, 0, MPI_INT, 2, 24, W); /* go: 2 sends tag 23 only now */
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MT_CHECK(x[3] == 23);
    } else if (rank == 1) {
        v = 20;
        MPI_Send(&v, 1, MPI_INT, 0, 20, W);
        v = 22;
        MPI_Send(&v, 1, MPI_INT, 0, 22, W);
    } else {
        v = 21;
        MPI_Send(&v, 1, MPI_INT, 0, 21, W);
        MPI_Recv(&v, 0, MPI_INT, 0, 24, W, MPI_STATUS_IGNORE); /* none */
        v = 23;
        MPI_Send(&v, 1, MPI_INT, 0, 23, W);
    }
    MPI_Barrier(W);
}

/* D: Recv_init: every activation (Startall, Start) records the flags of the init. */
static void persistent(void)
{
    int x[3] = {0}, v;
    MPI_Request p[3];
    if (rank == 0) {
        MPI_Recv_init(&x[0], 1, MPI_INT, MPI_ANY_SOURCE, 30, W, &p[0]); /* any_source */
        MPI_Recv_init(&x[1], 1, MPI_INT, 1, MPI_ANY_TAG, W, &p[1]);     /* any_tag */
        MPI_Recv_init(&x[2], 1, MPI_INT, 2, 32, W, &p[2]);              /* none */
        MPI_Startall(3, p);
        MPI_Waitall(3, p, MPI_STATUSES_IGNORE);
        MT_CHECK(x[0] == 30 && x[1] == 31 && x[2] == 32);
    } else if (rank == 1) {
        v = 30;
        MPI_Send(&v, 1, MPI_INT, 0, 30, W); /* before 31: p[0] is posted before p[1] */
        v = 31;
        MPI_Send(&v, 1, MPI_INT, 0, 31, W);
    } else {
        v = 32;
        MPI_Send(&v, 1, MPI_INT, 0, 32, W);
    }
    MPI_Barrier(W);
    if (rank == 0) {
        MPI_Start(&p[0]); /* a second activation: any_source again */
        MPI_Wait(&p[0], MPI_STATUS_IGNORE);
        MT_CHECK(x[0] == 33);
        for (int i = 0; i < 3; i++)
            MPI_Request_free(&p[i]);
    } else if (rank == 2) {
        v = 33;
        MPI_Send(&v, 1, MPI_INT, 0, 30, W);
    }
    MPI_Barrier(W);
}

/* E: Isendrecv and Isendrecv_replace between 1 and 2. */
static void isendrecv(void)
{
    int s = 0, r = 0;
    MPI_Request rq;
    if (rank == 1) {
        s = 40;
        ISENDRECV(&s, 1, MPI_INT, 2, 40, &r, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W,
                  &rq); /* any_source|any_tag */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(r == 41);
        s = 42;
        ISENDRECV_REPLACE(&s, 1, MPI_INT, 2, 42, 2, MPI_ANY_TAG, W, &rq); /* any_tag */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        REPLACE_DONE(&s);
        MT_CHECK(s == 43);
    } else if (rank == 2) {
        s = 41;
        ISENDRECV(&s, 1, MPI_INT, 1, 41, &r, 1, MPI_INT, 1, 40, W, &rq); /* none */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(r == 40);
        s = 43;
        ISENDRECV_REPLACE(&s, 1, MPI_INT, 1, 43, MPI_ANY_SOURCE, 42, W, &rq); /* any_source */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        REPLACE_DONE(&s);
        MT_CHECK(s == 42);
    }
    MPI_Barrier(W);
}

int main(int argc, char **argv)
{
    rank = mt_init(&argc, &argv, "wild", 3, MT_NO_THREADS);
    blocking();
    sendrecv();
    nonblocking();
    persistent();
    isendrecv();
    mt_finish("wild");
    MPI_Finalize();
    return 0;
}
