/*
 * p2p: every point-to-point call family of docs/tracer.md on 4 ranks, deterministically.
 *
 * Phases are separated by barriers so that wildcard receives can only match the one message
 * meant for them. Every wait is on requests known to complete (a message sent before a "go"
 * reply), so the order of completions is fixed; only the number of idle Test/Iprobe/Improbe
 * calls in a polling loop varies (the harness drops those, trace_dump --drop-idle-polls).
 * The expected trace, derived by hand, is expected/p2p.dump: read the two side by side.
 */
#include <string.h>

#include "mpitest.h"

#define W MPI_COMM_WORLD

static int rank;

static void fill(int *b, int n, int base)
{
    for (int i = 0; i < n; i++)
        b[i] = base + i;
}

static int is_filled(const int *b, int n, int base)
{
    for (int i = 0; i < n; i++)
        if (b[i] != base + i)
            return 0;
    return 1;
}

static int count_of(MPI_Status *st, MPI_Datatype type)
{
    int n;
    MPI_Get_count(st, type, &n);
    return n;
}

/* A: Send, Bsend, Ssend, Rsend; Recv with a source and tag, and with wildcards. */
static void blocking_sends(void)
{
    int a[100];
    double d[3];
    char c;
    MPI_Request rq;
    MPI_Status st;
    if (rank == 3) /* the ready send needs its receive posted before the barrier */
        MPI_Irecv(a, 2, MPI_INT, 0, 4, W, &rq);
    MPI_Barrier(W);
    if (rank == 0) {
        fill(a, 10, 100);
        MPI_Send(a, 10, MPI_INT, 1, 1, W);
        d[0] = 1.5, d[1] = 2.5, d[2] = 3.5;
        MPI_Bsend(d, 3, MPI_DOUBLE, 1, 2, W);
        c = 'x';
        MPI_Ssend(&c, 1, MPI_CHAR, 2, 3, W);
        fill(a, 2, 400);
        MPI_Rsend(a, 2, MPI_INT, 3, 4, W);
    } else if (rank == 1) {
        MPI_Recv(a, 100, MPI_INT, 0, 1, W, &st);
        MT_CHECK(count_of(&st, MPI_INT) == 10 && is_filled(a, 10, 100));
        MPI_Recv(d, 3, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, W, MPI_STATUS_IGNORE);
        MT_CHECK(d[0] == 1.5 && d[2] == 3.5);
    } else if (rank == 2) {
        MPI_Recv(&c, 1, MPI_CHAR, 0, 3, W, MPI_STATUS_IGNORE);
        MT_CHECK(c == 'x');
    } else {
        MPI_Wait(&rq, &st);
        MT_CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 4 && is_filled(a, 2, 400));
    }
    MPI_Barrier(W);
}

/* B: Isend, Ibsend, Issend, Irsend from 1 to 0; Irecv and Waitall, Wait. */
static void nonblocking_sends(void)
{
    int r10[4], r11[5], r12, r13, s10[4], s11[1], s12 = 12, s13 = 13;
    MPI_Request q[4], r13q;
    MPI_Status sts[3];
    if (rank == 0)
        MPI_Irecv(&r13, 1, MPI_INT, 1, 13, W, &r13q);
    MPI_Barrier(W);
    if (rank == 1) {
        fill(s10, 4, 10);
        MPI_Isend(s10, 4, MPI_INT, 0, 10, W, &q[0]);
        MPI_Ibsend(s11, 0, MPI_INT, 0, 11, W, &q[1]);
        MPI_Issend(&s12, 1, MPI_INT, 0, 12, W, &q[2]);
        MPI_Irsend(&s13, 1, MPI_INT, 0, 13, W, &q[3]);
        MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    } else if (rank == 0) {
        MPI_Irecv(r10, 4, MPI_INT, 1, 10, W, &q[0]);
        MPI_Irecv(r11, 5, MPI_INT, 1, 11, W, &q[1]);
        MPI_Irecv(&r12, 1, MPI_INT, 1, 12, W, &q[2]);
        MPI_Waitall(3, q, sts);
        MT_CHECK(is_filled(r10, 4, 10) && count_of(&sts[1], MPI_INT) == 0 && r12 == 12);
        MPI_Wait(&r13q, MPI_STATUS_IGNORE);
        MT_CHECK(r13 == 13);
    }
    MPI_Barrier(W);
}

/* C: Sendrecv, Sendrecv_replace, and MPI_PROC_NULL in every position. */
static void sendrecv(void)
{
    int s[4], r[10];
    double x[3];
    MPI_Status st;
    MPI_Request q[2];
    if (rank == 2) {
        fill(s, 4, 20);
        MPI_Sendrecv(s, 4, MPI_INT, 3, 20, r, 10, MPI_INT, 3, 21, W, &st);
        MT_CHECK(count_of(&st, MPI_INT) == 2 && is_filled(r, 2, 21));
        x[0] = x[1] = x[2] = 2.0;
        MPI_Sendrecv_replace(x, 3, MPI_DOUBLE, 3, 22, 3, 22, W, MPI_STATUS_IGNORE);
        MT_CHECK(x[0] == 3.0 && x[2] == 3.0);
    } else if (rank == 3) {
        fill(s, 2, 21);
        MPI_Sendrecv(s, 2, MPI_INT, 2, 21, r, 4, MPI_INT, 2, 20, W, MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(r, 4, 20));
        x[0] = x[1] = x[2] = 3.0;
        MPI_Sendrecv_replace(x, 3, MPI_DOUBLE, 2, 22, 2, 22, W, MPI_STATUS_IGNORE);
        MT_CHECK(x[0] == 2.0 && x[2] == 2.0);
    } else if (rank == 0) {
        s[0] = 23;
        MPI_Send(s, 1, MPI_INT, MPI_PROC_NULL, 5, W);
        MPI_Recv(r, 1, MPI_INT, MPI_PROC_NULL, 5, W, &st);
        MT_CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
        MPI_Sendrecv(s, 1, MPI_INT, 1, 23, r, 1, MPI_INT, MPI_PROC_NULL, 23, W, MPI_STATUS_IGNORE);
    } else {
        s[0] = 24; /* sent to MPI_PROC_NULL, but never read uninitialised */
        MPI_Isend(s, 1, MPI_INT, MPI_PROC_NULL, 6, W, &q[0]);
        MPI_Irecv(r, 1, MPI_INT, MPI_PROC_NULL, 6, W, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        MPI_Sendrecv(s, 1, MPI_INT, MPI_PROC_NULL, 23, r, 1, MPI_INT, 0, 23, W, MPI_STATUS_IGNORE);
        MT_CHECK(r[0] == 23);
    }
    MPI_Barrier(W);
}

/* D: Probe, Iprobe, Mprobe + Mrecv, Improbe + Imrecv: rank 2 sends tags 30..33 to 0. */
static void probes(void)
{
    int a[100], flag = 0;
    MPI_Status st;
    MPI_Message m;
    MPI_Request rq;
    if (rank == 2) {
        for (int t = 30; t <= 33; t++) {
            fill(a, t - 25, t);
            MPI_Send(a, t - 25, MPI_INT, 0, t, W);
        }
    } else if (rank == 0) {
        MPI_Probe(2, 30, W, &st);
        MT_CHECK(count_of(&st, MPI_INT) == 5);
        MPI_Recv(a, 100, MPI_INT, 2, 30, W, MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(a, 5, 30));
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 31, W, &flag, &st);
        MT_CHECK(st.MPI_SOURCE == 2);
        MPI_Recv(a, 100, MPI_INT, MPI_ANY_SOURCE, 31, W, MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(a, 6, 31));
        MPI_Mprobe(2, MPI_ANY_TAG, W, &m, &st);
        MT_CHECK(st.MPI_TAG == 32);
        MPI_Mrecv(a, 100, MPI_INT, &m, MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(a, 7, 32));
        for (flag = 0; !flag;)
            MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, W, &flag, &m, &st);
        MT_CHECK(st.MPI_TAG == 33);
        MPI_Imrecv(a, 100, MPI_INT, &m, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(a, 8, 33));
    }
    MPI_Barrier(W);
}

/* E: persistent requests between 1 and 3: every *_init, Start, Startall, Request_free. */
static void persistent(void)
{
    int b40[4], b41[2], b42[1], b43[8], b44[3];
    MPI_Request p[5];
    MPI_Status sts[4];
    if (rank == 1) {
        fill(b40, 4, 40), fill(b41, 2, 41), fill(b42, 1, 42), fill(b44, 3, 44);
        MPI_Send_init(b40, 4, MPI_INT, 3, 40, W, &p[0]);
        MPI_Bsend_init(b41, 2, MPI_INT, 3, 41, W, &p[1]);
        MPI_Ssend_init(b42, 1, MPI_INT, 3, 42, W, &p[2]);
        MPI_Recv_init(b43, 8, MPI_INT, 3, 43, W, &p[3]);
        MPI_Rsend_init(b44, 3, MPI_INT, 3, 44, W, &p[4]);
        MPI_Startall(4, p);
        MPI_Waitall(4, p, sts);
        MT_CHECK(count_of(&sts[3], MPI_INT) == 8 && is_filled(b43, 8, 43));
        /* 3 posted its receive for tag 44 before it sent tag 43 */
        MPI_Start(&p[4]);
        MPI_Wait(&p[4], MPI_STATUS_IGNORE);
        MPI_Start(&p[0]); /* a second activation of the same request */
        MPI_Wait(&p[0], MPI_STATUS_IGNORE);
    } else if (rank == 3) {
        fill(b43, 8, 43);
        MPI_Recv_init(b40, 4, MPI_INT, 1, 40, W, &p[0]);
        MPI_Recv_init(b41, 2, MPI_INT, 1, 41, W, &p[1]);
        MPI_Recv_init(b42, 1, MPI_INT, 1, 42, W, &p[2]);
        MPI_Send_init(b43, 8, MPI_INT, 1, 43, W, &p[3]);
        MPI_Recv_init(b44, 3, MPI_INT, 1, 44, W, &p[4]);
        MPI_Start(&p[4]);
        MPI_Startall(4, p);
        MPI_Waitall(4, p, MPI_STATUSES_IGNORE);
        MT_CHECK(is_filled(b40, 4, 40) && is_filled(b41, 2, 41) && is_filled(b42, 1, 42));
        MPI_Wait(&p[4], MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(b44, 3, 44));
        b40[0] = 0;
        MPI_Start(&p[0]);
        MPI_Wait(&p[0], MPI_STATUS_IGNORE);
        MT_CHECK(is_filled(b40, 4, 40));
    }
    if (rank == 1 || rank == 3)
        for (int i = 0; i < 5; i++)
            MPI_Request_free(&p[i]);
    MPI_Barrier(W);
}

/* F: Waitany, Waitsome, Test, Testany, Testsome, Testall on receives from 1 to 0. Rank 1
 * sends a message only after rank 0's "go" (an empty message) where the order matters. */
static void completions(void)
{
    int x[7] = {0}, v, idx, out, idxs[2], flag, none = 0;
    MPI_Request q[2];
    MPI_Status st, sts[2];
    if (rank == 0) {
        MPI_Irecv(&x[0], 1, MPI_INT, 1, 50, W, &q[0]);
        MPI_Irecv(&x[1], 1, MPI_INT, 1, 51, W, &q[1]);
        MPI_Waitany(2, q, &idx, &st); /* only tag 51 has been sent */
        MT_CHECK(idx == 1 && st.MPI_TAG == 51 && x[1] == 51);
        MPI_Send(&none, 0, MPI_INT, 1, 52, W);
        MPI_Waitsome(2, q, &out, idxs, sts);
        MT_CHECK(out == 1 && idxs[0] == 0 && x[0] == 50);

        MPI_Irecv(&x[2], 1, MPI_INT, 1, 53, W, &q[0]);
        MPI_Send(&none, 0, MPI_INT, 1, 54, W);
        for (flag = 0; !flag;)
            MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
        MPI_Irecv(&x[3], 1, MPI_INT, 1, 55, W, &q[0]);
        MPI_Send(&none, 0, MPI_INT, 1, 56, W);
        for (flag = 0; !flag;)
            MPI_Testany(1, q, &idx, &flag, MPI_STATUS_IGNORE);
        MPI_Irecv(&x[4], 1, MPI_INT, 1, 57, W, &q[0]);
        MPI_Send(&none, 0, MPI_INT, 1, 58, W);
        for (out = 0; out == 0;)
            MPI_Testsome(1, q, &out, idxs, MPI_STATUSES_IGNORE);
        MPI_Irecv(&x[5], 1, MPI_INT, 1, 59, W, &q[0]);
        MPI_Irecv(&x[6], 1, MPI_INT, 1, 60, W, &q[1]);
        MPI_Send(&none, 0, MPI_INT, 1, 61, W);
        for (flag = 0; !flag;)
            MPI_Testall(2, q, &flag, MPI_STATUSES_IGNORE);
        MT_CHECK(x[2] == 53 && x[3] == 55 && x[4] == 57 && x[5] == 59 && x[6] == 60);
    } else if (rank == 1) {
        static const int go_then_send[][2] = {{52, 50}, {54, 53}, {56, 55}, {58, 57}, {61, 59}};
        v = 51;
        MPI_Send(&v, 1, MPI_INT, 0, 51, W);
        for (int i = 0; i < 5; i++) {
            MPI_Recv(&none, 0, MPI_INT, 0, go_then_send[i][0], W, MPI_STATUS_IGNORE);
            v = go_then_send[i][1];
            MPI_Send(&v, 1, MPI_INT, 0, v, W);
        }
        v = 60;
        MPI_Send(&v, 1, MPI_INT, 0, 60, W);
    }
    MPI_Barrier(W);
}

/* G: Cancel, derived datatypes counted by packed size, wildcard Irecv, a message to self. */
static void odds_and_ends(void)
{
    int a[1], v[8], w16[16], dst[24], src[12], self[2] = {7, 8}, got[2];
    char s6[6] = "hello", r6[100];
    MPI_Request rq;
    MPI_Status st;
    MPI_Datatype vec;
    int flag;
    if (rank == 2) {
        MPI_Irecv(a, 1, MPI_INT, 3, 99, W, &rq); /* nobody sends tag 99 */
        MPI_Cancel(&rq);
        MPI_Wait(&rq, &st);
        MPI_Test_cancelled(&st, &flag);
        MT_CHECK(flag);
        MPI_Recv(v, 8, MPI_INT, 3, 70, W, MPI_STATUS_IGNORE);
        MT_CHECK(v[0] == 0 && v[1] == 1 && v[2] == 3 && v[7] == 10);
        fill(w16, 16, 100);
        MPI_Isend(w16, 16, MPI_INT, 3, 71, W, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (rank == 3) {
        MPI_Type_vector(4, 2, 3, MPI_INT, &vec); /* 8 ints spread over 11: 32 bytes packed */
        MPI_Type_commit(&vec);
        fill(src, 12, 0);
        MPI_Send(src, 1, vec, 2, 70, W);
        MPI_Recv(dst, 2, vec, 2, 71, W, &st);
        MT_CHECK(count_of(&st, vec) == 2 && dst[0] == 100 && dst[3] == 102 && dst[21] == 115);
        MPI_Type_free(&vec);
        MPI_Send(s6, 6, MPI_CHAR, 0, 80, W);
    } else if (rank == 0) {
        MPI_Irecv(r6, 100, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(!strcmp(r6, "hello"));
    } else {
        MPI_Isend(self, 2, MPI_INT, 1, 90, W, &rq);
        MPI_Recv(got, 2, MPI_INT, 1, 90, W, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MT_CHECK(got[0] == 7 && got[1] == 8);
    }
}

int main(int argc, char **argv)
{
    static char bsend_buffer[8192];
    int size;
    void *detached;
    rank = mt_init(&argc, &argv, "p2p", 4, MT_NO_THREADS);
    MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
    blocking_sends();
    nonblocking_sends();
    sendrecv();
    probes();
    persistent();
    completions();
    odds_and_ends();
    MPI_Buffer_detach(&detached, &size);
    mt_finish("p2p");
    MPI_Finalize();
    return 0;
}
