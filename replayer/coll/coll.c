/*
 * rt_coll entry points: algorithm names (which ops have which algorithms: coll_ops.c), the
 * checks every call shares, and the step and piece helpers all algorithm files use.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rt__coll.h"

static const char *const alg_names[RT_ALG_COUNT] = {
    [RT_ALG_MPICH] = "mpich",
    [RT_ALG_OMPI] = "ompi",
#define RT_COLL_ALG(id, name, cells) [RT_ALG_##id] = name,
#include "rt_coll_algs.def"
#undef RT_COLL_ALG
};

const char *rt_coll_alg_name(unsigned alg)
{
    return alg < RT_ALG_COUNT ? alg_names[alg] : NULL;
}

static int same_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z')
            x += 'a' - 'A';
        if (x != y)
            return 0;
    }
    return *a == *b;
}

int rt_coll_alg_lookup(const char *name)
{
    static const struct {
        const char *alias;
        rt_coll_alg alg;
    } aliases[] = {{"rdb", RT_ALG_RDB}, {"rd", RT_ALG_RDB}, {"rh", RT_ALG_RECURSIVE_HALVING}};
    if (!name)
        return -RT_E_NOTFOUND;
    for (unsigned i = 0; i < RT_ALG_COUNT; i++)
        if (same_nocase(name, alg_names[i]))
            return (int)i;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (same_nocase(name, aliases[i].alias))
            return (int)aliases[i].alg;
    return -RT_E_NOTFOUND;
}

void rt_coll_alg_list(unsigned op, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    buf[0] = '\0';
    size_t at = 0;
    for (unsigned a = 0; a < RT_ALG_COUNT; a++) {
        if (!rt_coll_alg_valid(op, a))
            continue;
        int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", alg_names[a]);
        if (w < 0 || (size_t)w >= len - at)
            return; /* cut short; snprintf has terminated it */
        at += (size_t)w;
    }
}

int rt__rooted(unsigned op)
{
    switch (op) {
    case RT_COLL_BCAST:
    case RT_COLL_GATHER:
    case RT_COLL_GATHERV:
    case RT_COLL_SCATTER:
    case RT_COLL_SCATTERV:
    case RT_COLL_REDUCE:
        return 1;
    default:
        return 0;
    }
}

/* ---- steps and pieces ----------------------------------------------------------------- */

void rt__emit(rt__sched *s, rt_coll_step_kind kind, int32_t peer, uint64_t bytes)
{
    if (s->rc)
        return;
    rt_coll_step st = {.round = s->round, .kind = (uint8_t)kind, .peer = peer, .bytes = bytes};
    s->used = 1;
    s->rc = s->emit(s->ctx, &st);
}

void rt__next(rt__sched *s)
{
    if (s->used) {
        s->round++;
        s->used = 0;
    }
}

/* Pieces [a, e) of n cut into parts, no wrap. */
static uint64_t span_flat(uint64_t n, uint32_t parts, uint32_t a, uint32_t e)
{
    uint64_t q = n / parts, r = n % parts;
    uint64_t ra = a < r ? a : r, re = e < r ? e : r;
    return (uint64_t)(e - a) * q + (re - ra);
}

uint64_t rt__span(const rt__blocks *b, uint32_t i, uint32_t len)
{
    if (!len)
        return 0;
    uint32_t a = (uint32_t)(((uint64_t)i + b->rot) % b->parts);
    if (b->v) { /* the per-peer counts: a sum of len of them */
        uint64_t sum = 0;
        for (uint32_t k = 0, j = a; k < len; k++, j = j + 1 == b->parts ? 0 : j + 1)
            sum += b->v[j];
        return sum;
    }
    if ((uint64_t)a + len <= b->parts)
        return span_flat(b->n, b->parts, a, a + len);
    return span_flat(b->n, b->parts, a, b->parts) +
           span_flat(b->n, b->parts, 0, a + len - b->parts);
}

/* ---- entry points ----------------------------------------------------------------------- */

static int check_call(const rt_coll_call *c, rt_err *err)
{
    const char *name = rt_event_op_name(RT_EV_COLL_END, c->op);
    if (c->op >= RT_COLL_COUNT)
        return rt_err_set(err, RT_E_INVAL, "collective op %u is out of range", c->op);
    if (!rt_coll_alg_valid(c->op, RT_ALG_MPICH))
        return rt_err_set(err, RT_E_INVAL,
                          "%s: not a data-moving collective (handle or allocation pseudo-op)",
                          name);
    if (c->size == 0 || c->size > RT_MAX_RANKS)
        return rt_err_set(err, RT_E_INVAL, "%s: communicator size %" PRIu32 " is not in 1..%u",
                          name, c->size, (unsigned)RT_MAX_RANKS);
    if (c->me >= c->size)
        return rt_err_set(err, RT_E_INVAL,
                          "%s: rank %" PRIu32 " is not in a communicator of %" PRIu32, name, c->me,
                          c->size);
    if (rt__rooted(c->op) && (c->root < 0 || (uint32_t)c->root >= c->size))
        return rt_err_set(err, RT_E_INVAL,
                          "%s: root %" PRId32 " is not in a communicator of %" PRIu32, name,
                          c->root, c->size);
    return 0;
}

int rt_coll_schedule(unsigned alg, const rt_coll_call *c, rt_coll_emit_fn emit, void *ctx,
                     int *approx, rt_err *err)
{
    if (approx)
        *approx = 0;
    if (!c || !emit)
        return rt_err_set(err, RT_E_INVAL, "rt_coll_schedule: no call or no emit function");
    int rc = check_call(c, err);
    if (rc)
        return rc;
    const char *name = rt_event_op_name(RT_EV_COLL_END, c->op);
    if (alg >= RT_ALG_COUNT)
        return rt_err_set(err, RT_E_INVAL, "%s: algorithm number %u is out of range", name, alg);
    if (alg == RT_ALG_MPICH) {
        alg = rt_coll_select_mpich(c);
    } else if (alg == RT_ALG_OMPI) {
        alg = rt_coll_select_ompi(c);
    } else if (!rt_coll_alg_valid(c->op, alg)) {
        char list[256];
        rt_coll_alg_list(c->op, list, sizeof list);
        return rt_err_set(err, RT_E_INVAL, "%s: no algorithm '%s' (valid: %s)", name,
                          alg_names[alg], list);
    }
    rt__sched s = {.emit = emit, .ctx = ctx};
    rc = rt__expand(&s, alg, c, err);
    if (rc == -RT_E_NOMEM)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory grouping %" PRIu32 " ranks", name,
                          c->size);
    if (rc < 0)
        return rc; /* bytes inconsistent: nothing was emitted */
    if (approx)
        *approx = s.approx;
    return s.rc;
}

static int count_step(void *ctx, const rt_coll_step *st)
{
    rt_coll_totals *t = ctx;
    switch (st->kind) {
    case RT_STEP_SEND:
        t->sends++;
        t->send_bytes += st->bytes;
        break;
    case RT_STEP_RECV:
        t->recvs++;
        t->recv_bytes += st->bytes;
        break;
    default:
        t->reduces++;
        t->reduce_bytes += st->bytes;
        break;
    }
    return 0;
}

typedef struct totals_ctx {
    rt_coll_totals *t;
    int64_t last_round;
} totals_ctx;

static int count_totals(void *ctx, const rt_coll_step *st)
{
    totals_ctx *tc = ctx;
    if ((int64_t)st->round != tc->last_round) {
        tc->t->rounds++;
        tc->last_round = st->round;
    }
    return count_step(tc->t, st);
}

int rt_coll_totals_of(unsigned alg, const rt_coll_call *c, rt_coll_totals *t, int *approx,
                      rt_err *err)
{
    rt_coll_totals zero = {0};
    *t = zero;
    totals_ctx tc = {t, -1};
    int rc = rt_coll_schedule(alg, c, count_totals, &tc, approx, err);
    if (rc)
        *t = zero;
    return rc;
}
