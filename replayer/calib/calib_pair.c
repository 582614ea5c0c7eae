/*
 * Measuring one pair of ranks (rt_calib.h): the initiator drives, the responder serves.
 *
 * What is measured, and why it is what the model means (docs/calibrate.md):
 * - the ping-pong curve: one-way time (half a round trip) of blocking messages of 0 bytes
 *   and of every power of two up to the largest size, in batches of round trips. The best
 *   batch's mean counts, because another process on these shared cores can only make a
 *   batch slower, never faster; and of the batches only those during which neither rank
 *   was switched out (getrusage's involuntary context switches), when there are any: on a
 *   busy machine a ping-pong whose ranks take turns on a core measures the scheduler.
 *   This is the simulator's o + wire + o (eager) or 3o + 2L + wire (rendezvous), which
 *   the fit matches.
 * - o: the model charges one overhead per message and side, so it is the mean of the
 *   median time of a blocking 8-byte send call (returning once the message is buffered)
 *   and of a receive call whose message has already arrived (MPI_Iprobe said so).
 * - g: the per-message time of a stream of 8-byte blocking sends (the slope between two
 *   stream lengths, so the stream's start and end cancel out): what one rank's port is
 *   busy for per message under the model's injection = bytes rule, max(g, o + n/B).
 * - the eager switch, from what the model means by it: a rendezvous send cannot finish
 *   before its receive is posted, an eager one can. The responder posts its receive a
 *   delay D late (D = 20 us + 4 one-way times of the size); a blocking send that takes
 *   at least D/2 waited for it. Sizes of the grid are tried upwards until one waits, then
 *   bisection between it and the size below down to one byte. (The ping-pong curve need
 *   not jump at the switch: here UCX's rendezvous copies once instead of twice, so with
 *   separate send and receive buffers it is no slower than eager.)
 * Loop (a rank with itself) has no partner: its "ping-pong" is MPI_Isend to itself, the
 * matching MPI_Recv, and the wait; its protocol test is whether the MPI_Isend completes
 * before the receive is posted; it has no gap (sender and receiver are one process).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "rt__calib.h"

enum { CMD_PINGPONG = 1, CMD_SEND_OVH, CMD_RECV_OVH, CMD_STREAM, CMD_LATE, CMD_DONE };

typedef struct calib_cmd {
    uint64_t op, bytes, count, reps;
} calib_cmd;

#define SMALL 8        /* bytes of the overhead and gap messages */
#define STREAM_SHORT 8 /* the two stream lengths of the gap measurement */
#define STREAM_LONG 40
#define MAX_BATCHES 256 /* batches of one ping-pong measurement (--batches) */

typedef struct pair {
    MPI_Comm c;
    int peer, loop;
    const calib_bufs *b;
    double tick_ps; /* cost of reading the clock, taken off single-call times */
} pair;

static double now_ps(void)
{
    return MPI_Wtime() * 1e12;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double calib_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t ps_of(double v)
{
    return rt_u64_of_double(v);
}

static void command(const pair *p, uint64_t op, uint64_t bytes, uint64_t count, uint64_t reps)
{
    calib_cmd cmd = {op, bytes, count, reps};
    MPI_Send(&cmd, (int)sizeof cmd, MPI_BYTE, p->peer, CALIB_TAG_CTRL, p->c);
}

/* Involuntary context switches of this process so far: a batch during which neither
 * rank of the pair was switched out ran with both on a core all along, undisturbed. */
static long preemptions(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_nivcsw : 0;
}

/* One ping-pong measurement: the best undisturbed batch, the best and the median of all. */
typedef struct batch_stats {
    double best_clean, best, median; /* one-way ps; best_clean 0: no batch undisturbed */
} batch_stats;

/* reps batches of k round trips of n bytes. The responder tells, per batch, whether it was
 * switched out; the initiator knows it of itself. */
static void pingpong(const pair *p, uint64_t n, uint64_t k, unsigned reps, batch_stats *st)
{
    double t[MAX_BATCHES];
    unsigned char hit[MAX_BATCHES];
    if (reps > MAX_BATCHES)
        reps = MAX_BATCHES;
    char *s = p->b->s, *r = p->b->r;
    int cnt = (int)n;
    if (!p->loop)
        command(p, CMD_PINGPONG, n, k, reps);
    for (unsigned b = 0; b < reps; b++) {
        long pre = preemptions();
        double t0 = now_ps();
        if (p->loop) {
            for (uint64_t i = 0; i < k; i++) {
                MPI_Request q;
                MPI_Isend(s, cnt, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c, &q);
                MPI_Recv(r, cnt, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c, MPI_STATUS_IGNORE);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
            t[b] = (now_ps() - t0) / (double)k;
        } else {
            for (uint64_t i = 0; i < k; i++) {
                MPI_Send(s, cnt, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c);
                MPI_Recv(r, cnt, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c, MPI_STATUS_IGNORE);
            }
            t[b] = (now_ps() - t0) / (2.0 * (double)k);
        }
        hit[b] = preemptions() != pre;
    }
    if (!p->loop) {
        unsigned char theirs[MAX_BATCHES];
        MPI_Recv(theirs, (int)reps, MPI_BYTE, p->peer, CALIB_TAG_RESULT, p->c, MPI_STATUS_IGNORE);
        for (unsigned b = 0; b < reps; b++)
            hit[b] |= theirs[b];
    }
    st->best_clean = 0;
    for (unsigned b = 0; b < reps; b++)
        if (!hit[b] && (st->best_clean == 0 || t[b] < st->best_clean))
            st->best_clean = t[b];
    st->median = calib_median(t, reps); /* sorts t */
    st->best = t[0];
}

/* Round trips per batch so that a batch lasts about batch_ps. */
static uint64_t batch_len(const rt_calib_opts *o, double oneway_ps)
{
    double k = (double)o->batch_ps / (2 * (oneway_ps > 1 ? oneway_ps : 1));
    return k < 1 ? 1 : k > 100000 ? 100000 : (uint64_t)k;
}

/* The curve: 0 bytes and every power of two up to the largest size. A size none of whose
 * batches ran undisturbed is measured again, for up to half a second; if none ever does,
 * the size counts as disturbed and the fit leaves it out. */
static void curve(const pair *p, const rt_calib_opts *o, rt_calib_link *out)
{
    const double patience = 0.5e12; /* ps */
    batch_stats st;
    pingpong(p, 0, 64, 2, &st); /* warm-up */
    double guess = st.best;
    uint32_t i = 0;
    for (uint64_t n = 0; n <= o->max_bytes && i < RT_CALIB_MAX_POINTS; n = n ? 2 * n : 1, i++) {
        double best = 0, start = now_ps();
        for (unsigned t = 0;; t++) {
            pingpong(p, n, batch_len(o, guess), o->batches, &st);
            if (!t || st.best < best)
                best = st.best;
            if (st.best_clean > 0 || now_ps() - start > patience)
                break;
        }
        rt_calib_point *pt = &out->pts[i];
        pt->bytes = n;
        pt->time_ps = ps_of(st.best_clean > 0 ? st.best_clean : best);
        pt->median_ps = ps_of(st.median);
        pt->disturbed = st.best_clean == 0;
        out->disturbed += (uint32_t)pt->disturbed;
        guess = (double)pt->time_ps;
    }
    out->npts = i;
}

double calib_clock_cost(void)
{
    double t[101];
    for (int i = 0; i < 101; i++) {
        double a = MPI_Wtime(), b = MPI_Wtime();
        t[i] = (b - a) * 1e12;
    }
    return calib_median(t, 101);
}

/* o_send and o_recv: median single-call times of 8-byte messages. */
static void overheads(const pair *p, unsigned reps, rt_calib_link *out)
{
    double *ts = malloc(2 * reps * sizeof *ts), *tr = ts ? ts + reps : NULL;
    char *s = p->b->s, *r = p->b->r;
    if (!ts)
        return;
    if (p->loop) {
        for (unsigned i = 0; i < reps; i++) {
            MPI_Request q;
            double t0 = now_ps();
            MPI_Isend(s, SMALL, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c, &q);
            double t1 = now_ps();
            MPI_Recv(r, SMALL, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c, MPI_STATUS_IGNORE);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            double t2 = now_ps();
            ts[i] = t1 - t0 - p->tick_ps;
            tr[i] = t2 - t1 - p->tick_ps;
        }
        out->o_send_ps = ps_of(calib_median(ts, reps));
        out->o_recv_ps = ps_of(calib_median(tr, reps));
        free(ts);
        return;
    }
    command(p, CMD_SEND_OVH, SMALL, reps, 1);
    for (unsigned i = 0; i < reps; i++) {
        double t0 = now_ps();
        MPI_Send(s, SMALL, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c);
        ts[i] = now_ps() - t0 - p->tick_ps;
        MPI_Recv(r, 0, MPI_BYTE, p->peer, CALIB_TAG_ACK, p->c, MPI_STATUS_IGNORE);
    }
    out->o_send_ps = ps_of(calib_median(ts, reps));
    command(p, CMD_RECV_OVH, SMALL, reps, 1);
    for (unsigned i = 0; i < reps; i++) {
        MPI_Send(s, SMALL, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c);
        MPI_Recv(r, 0, MPI_BYTE, p->peer, CALIB_TAG_ACK, p->c, MPI_STATUS_IGNORE);
    }
    uint64_t o_recv;
    MPI_Recv(&o_recv, 1, MPI_UINT64_T, p->peer, CALIB_TAG_RESULT, p->c, MPI_STATUS_IGNORE);
    out->o_recv_ps = o_recv;
    free(ts);
}

/* The best time of reps streams of len 8-byte sends, each closed by an acknowledgement. */
static double stream(const pair *p, uint64_t len, unsigned reps)
{
    double best = 0;
    command(p, CMD_STREAM, SMALL, len, reps);
    for (unsigned b = 0; b < reps; b++) {
        double t0 = now_ps();
        for (uint64_t i = 0; i < len; i++)
            MPI_Send(p->b->s, SMALL, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c);
        MPI_Recv(p->b->r, 0, MPI_BYTE, p->peer, CALIB_TAG_ACK, p->c, MPI_STATUS_IGNORE);
        double t = now_ps() - t0;
        if (!b || t < best)
            best = t;
    }
    return best;
}

/* Does a send of n bytes wait for its receive (rendezvous)? The best of reps tries. */
static int waits(const pair *p, uint64_t n, double oneway_ps, unsigned reps)
{
    double delay = 20e6 + 4 * oneway_ps, best = 0;
    int cnt = (int)n;
    if (p->loop) { /* does the Isend complete before the receive is posted? */
        int done = 0;
        MPI_Request q;
        MPI_Isend(p->b->s, cnt, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c, &q);
        double t0 = now_ps();
        while (!done && now_ps() - t0 < delay)
            MPI_Test(&q, &done, MPI_STATUS_IGNORE);
        MPI_Recv(p->b->r, cnt, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c, MPI_STATUS_IGNORE);
        if (!done)
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        return !done;
    }
    command(p, CMD_LATE, n, ps_of(delay), reps);
    for (unsigned r = 0; r < reps; r++) {
        MPI_Send(NULL, 0, MPI_BYTE, p->peer, CALIB_TAG_ACK, p->c); /* the responder's clock */
        double t0 = now_ps();
        MPI_Send(p->b->s, cnt, MPI_BYTE, p->peer, CALIB_TAG_DATA, p->c);
        double t = now_ps() - t0;
        MPI_Recv(p->b->r, 0, MPI_BYTE, p->peer, CALIB_TAG_ACK, p->c, MPI_STATUS_IGNORE);
        if (!r || t < best)
            best = t;
    }
    return best >= delay / 2;
}

/* The eager threshold: grid sizes upwards until one waits, then bisection. */
static void find_switch(const pair *p, rt_calib_link *out)
{
    unsigned reps = 3;
    uint32_t ngrid = out->npts;
    uint64_t lo = 0, hi = 0;
    double t_hi = 0;
    int found = 0;
    for (uint32_t i = 0; i < ngrid && !found; i++) {
        if (waits(p, out->pts[i].bytes, (double)out->pts[i].time_ps, reps)) {
            found = 1;
            hi = out->pts[i].bytes;
            t_hi = (double)out->pts[i].time_ps;
        } else {
            lo = out->pts[i].bytes;
        }
    }
    out->switched = found;
    if (!found) {
        out->eager_lo = lo;
        return;
    }
    if (hi == 0) { /* even empty messages wait: everything is rendezvous */
        out->eager_lo = 0;
        out->eager_hi = 0;
        return;
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (waits(p, mid, t_hi, reps))
            hi = mid;
        else
            lo = mid;
    }
    out->eager_lo = lo;
    out->eager_hi = hi;
}

/* Measurements of a link's curve at most, while no model fits it. */
#define CALIB_CURVE_ATTEMPTS 3

static uint64_t whole_ns(uint64_t ps)
{
    return rt_add_sat(ps / 1000 * 1000, ps % 1000 >= 500 ? 1000 : 0);
}

void calib_initiate(MPI_Comm c, int peer, unsigned ct, const rt_calib_opts *o,
                    const rt_net_model *base, const calib_bufs *b, rt_calib_link *out)
{
    int me;
    MPI_Comm_rank(c, &me);
    pair p = {c, peer, peer == me, b, calib_clock_cost()};
    unsigned reps = o->quick ? 41 : 201;
    out->batches = o->batches;

    overheads(&p, reps, out);
    if (!p.loop) {
        unsigned sr = o->quick ? 5 : 15;
        double shortest = stream(&p, STREAM_SHORT, sr), longest = stream(&p, STREAM_LONG, sr);
        double g = (longest - shortest) / (STREAM_LONG - STREAM_SHORT);
        out->gap_ps = whole_ns(ps_of(g));
    }

    /* A curve no model fits is one the machine disturbed (a burst of other work): it is
     * measured again, three times in all, before the link is given up. */
    rt_net_model m = *base;
    rt_err err = {0};
    int rc = -1;
    for (unsigned attempt = 0; attempt < CALIB_CURVE_ATTEMPTS && rc < 0; attempt++) {
        out->disturbed = 0;
        curve(&p, o, out);
        find_switch(&p, out);
        m = *base;
        rt_net_link *l = &m.link[ct];
        l->overhead_ps = whole_ns((out->o_send_ps + out->o_recv_ps) / 2);
        l->gap_ps = out->gap_ps;
        l->eager = out->eager_lo;
        err = (rt_err){0};
        rc = rt_calib_fit_link(&m, ct, out->pts, out->npts, &out->fit, &err);
    }
    if (!p.loop)
        command(&p, CMD_DONE, 0, 0, 0);
    if (rc < 0)
        snprintf(out->error, sizeof out->error, "%.*s (was the machine busy?)",
                 (int)sizeof out->error - 32, err.msg);
    out->fitted = m.link[ct];
}

void calib_respond(MPI_Comm c, int initiator, const calib_bufs *b)
{
    double tick = calib_clock_cost();
    for (;;) {
        calib_cmd cmd;
        MPI_Recv(&cmd, (int)sizeof cmd, MPI_BYTE, initiator, CALIB_TAG_CTRL, c, MPI_STATUS_IGNORE);
        int n = (int)cmd.bytes;
        switch (cmd.op) {
        case CMD_PINGPONG: {
            unsigned char hit[MAX_BATCHES];
            for (uint64_t r = 0; r < cmd.reps; r++) {
                long pre = preemptions();
                for (uint64_t i = 0; i < cmd.count; i++) {
                    MPI_Recv(b->r, n, MPI_BYTE, initiator, CALIB_TAG_DATA, c, MPI_STATUS_IGNORE);
                    MPI_Send(b->s, n, MPI_BYTE, initiator, CALIB_TAG_DATA, c);
                }
                hit[r] = preemptions() != pre;
            }
            MPI_Send(hit, (int)cmd.reps, MPI_BYTE, initiator, CALIB_TAG_RESULT, c);
            break;
        }
        case CMD_SEND_OVH:
            for (uint64_t i = 0; i < cmd.count; i++) {
                MPI_Recv(b->r, n, MPI_BYTE, initiator, CALIB_TAG_DATA, c, MPI_STATUS_IGNORE);
                MPI_Send(b->s, 0, MPI_BYTE, initiator, CALIB_TAG_ACK, c);
            }
            break;
        case CMD_RECV_OVH: {
            double *t = malloc(cmd.count * sizeof *t);
            for (uint64_t i = 0; i < cmd.count; i++) {
                int flag = 0;
                while (!flag)
                    MPI_Iprobe(initiator, CALIB_TAG_DATA, c, &flag, MPI_STATUS_IGNORE);
                double t0 = now_ps();
                MPI_Recv(b->r, n, MPI_BYTE, initiator, CALIB_TAG_DATA, c, MPI_STATUS_IGNORE);
                double dt = now_ps() - t0 - tick;
                if (t)
                    t[i] = dt;
                MPI_Send(b->s, 0, MPI_BYTE, initiator, CALIB_TAG_ACK, c);
            }
            uint64_t o_recv = t && cmd.count ? ps_of(calib_median(t, cmd.count)) : 0;
            free(t);
            MPI_Send(&o_recv, 1, MPI_UINT64_T, initiator, CALIB_TAG_RESULT, c);
            break;
        }
        case CMD_LATE: /* receive a delay late, by the clock, without entering MPI */
            for (uint64_t r = 0; r < cmd.reps; r++) {
                MPI_Recv(NULL, 0, MPI_BYTE, initiator, CALIB_TAG_ACK, c, MPI_STATUS_IGNORE);
                double t0 = now_ps();
                while (now_ps() - t0 < (double)cmd.count)
                    ;
                MPI_Recv(b->r, n, MPI_BYTE, initiator, CALIB_TAG_DATA, c, MPI_STATUS_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, initiator, CALIB_TAG_ACK, c);
            }
            break;
        case CMD_STREAM:
            for (uint64_t r = 0; r < cmd.reps; r++) {
                for (uint64_t i = 0; i < cmd.count; i++)
                    MPI_Recv(b->r, n, MPI_BYTE, initiator, CALIB_TAG_DATA, c, MPI_STATUS_IGNORE);
                MPI_Send(b->s, 0, MPI_BYTE, initiator, CALIB_TAG_ACK, c);
            }
            break;
        default: /* CMD_DONE */
            return;
        }
    }
}

/* The best of the batches of k MPI_Reduce_local (MPI_SUM) of cnt elements of type (MPI_DOUBLE
 * or MPI_FLOAT), in ps. The buffers hold ones and zeros of that type first: the other type's
 * bits could read as subnormal numbers, which some CPUs combine many times slower. */
static double reduce_best(const rt_calib_opts *o, const calib_bufs *b, size_t cnt,
                          MPI_Datatype type, uint64_t k)
{
    if (type == MPI_FLOAT) {
        float *x = (void *)b->x, *y = (void *)b->y;
        for (size_t i = 0; i < cnt; i++) {
            x[i] = 1.0f;
            y[i] = 0.0f;
        }
    } else {
        for (size_t i = 0; i < cnt; i++) {
            b->x[i] = 1.0;
            b->y[i] = 0.0;
        }
    }
    double best = 0;
    for (unsigned r = 0; r < o->batches; r++) {
        double t0 = now_ps();
        for (uint64_t i = 0; i < k; i++)
            MPI_Reduce_local(b->x, b->y, (int)cnt, type, MPI_SUM);
        double t = (now_ps() - t0) / (double)k;
        if (!r || t < best)
            best = t;
    }
    return best;
}

void calib_reduce(const rt_calib_opts *o, const calib_bufs *b, rt_calib_result *res)
{
    uint64_t cnt[32], d[32], f[32];
    size_t n = 0;
    double guess = 1e6; /* 1 us for the first size */
    for (size_t c = 128; c <= b->nx && n < 32; c *= 2) {
        uint64_t k = batch_len(o, guess / 2);
        double best = reduce_best(o, b, c, MPI_DOUBLE, k); /* floats: the same bytes as buffer */
        cnt[n] = c;
        d[n] = ps_of(best);
        f[n++] = ps_of(reduce_best(o, b, c, MPI_FLOAT, k));
        guess = 2 * best;
    }
    res->reduce_pts = n;
    res->reduce_fit =
        rt_calib_fit_reduce(cnt, d, f, n, &res->reduce_bandwidth, &res->reduce_element_ps);
}
