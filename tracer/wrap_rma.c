/* One-sided communication: the RMA rows of wrappers.def. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define RT__CLASS_RMA RT__WRAP
#include "rt__wrap.h"

/* What the rows of the "_all" calls pass rma_lock as the target: no rank, and no MPI's
 * MPI_PROC_NULL either (Open MPI's is -2, which is RT_PEER_ALL), so that a lock, unlock or flush of
 * MPI_PROC_NULL is told apart from one of every target. */
#define RT__ALL_TARGETS INT_MIN

/* s cut to at most most bytes, its last three "..." (RT_WIN_CUT) when it was longer. */
static size_t cut(char *s, size_t most)
{
    size_t n = strlen(s);
    if (n <= most)
        return n;
    memcpy(s + most - (sizeof RT_WIN_CUT - 1), RT_WIN_CUT, sizeof RT_WIN_CUT);
    return most;
}

/* One info key of window w, its strings cut to rt_win_def's limits, '=' in the key made '_' (a DEF
 * record, rt_raw.h). */
static void rma_info_key(const rt__win *w, char *key, char *value)
{
    for (char *eq = strchr(key, '='); eq; eq = strchr(eq, '='))
        *eq = '_'; /* a trace keeps keys without (rt_defs_add_win_info) */
    unsigned char buf[sizeof(rt_raw_def_win_info) + RT_WIN_INFO_KEY_LEN + RT_WIN_INFO_VALUE_LEN];
    rt_raw_def_win_info d = {.id = w->id};
    d.klen = (uint16_t)cut(key, RT_WIN_INFO_KEY_LEN);
    d.vlen = (uint16_t)cut(value, RT_WIN_INFO_VALUE_LEN);
    memcpy(buf, &d, sizeof d);
    memcpy(buf + sizeof d, key, d.klen);
    memcpy(buf + sizeof d + d.klen, value, d.vlen);
    rt__def_write(RT_RAW_DEF_WIN_INFO, buf, sizeof d + d.klen + d.vlen);
}

/* The info keys window w was created with: the first RT_WIN_INFO_MAX, or, when there are more,
 * the first RT_WIN_INFO_MAX - 1 and the key "..." with the number left out (rt_win_def). */
static void rma_info(const rt__win *w, MPI_Info info)
{
    int n, flag;
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1] = "", value[MPI_MAX_INFO_VAL + 1] = "";
        if (i == RT_WIN_INFO_MAX - 1 && n > RT_WIN_INFO_MAX) {
            snprintf(key, sizeof key, RT_WIN_CUT);
            snprintf(value, sizeof value, "%d", n - i);
            rma_info_key(w, key, value);
            return;
        }
        if (PMPI_Info_get_nthkey(info, i, key) == MPI_SUCCESS && key[0] &&
            PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag)
            rma_info_key(w, key, value);
    }
}

/* MPI_Win_set_name: the window's name, cut to RT_WIN_NAME_LEN (a DEF record, rt_raw.h). */
static void rma_name(const rt__call *c, MPI_Win win, const char *name)
{
    rt__win *w;
    if (c->rc != MPI_SUCCESS || !name || !(w = rt__win_get(win)))
        return;
    char s[RT_WIN_NAME_LEN + 2]; /* a byte more than is kept: enough to see a longer name */
    snprintf(s, sizeof s, "%s", name);
    unsigned char buf[sizeof(rt_raw_def_win_name) + RT_WIN_NAME_LEN];
    rt_raw_def_win_name d = {.id = w->id, .len = (uint32_t)cut(s, RT_WIN_NAME_LEN)};
    memcpy(buf, &d, sizeof d);
    memcpy(buf + sizeof d, s, d.len);
    rt__def_write(RT_RAW_DEF_WIN_NAME, buf, sizeof d + d.len);
}

/* disp_unit: the creating call's (1 for a dynamic window), kept in the window's definition
 * because the origin of a transfer knows only its own and the target's counts in the target's
 * (rt_raw.h). */
static void rma_created(rt__call *c, MPI_Comm comm, const MPI_Win *win, MPI_Aint disp_unit,
                        MPI_Info info)
{
    rt__comm *cm = rt__comm_get(comm);
    if (!cm)
        return;
    /* Window creation is collective over comm: it takes a place in comm's creation order
     * whether or not it succeeds here, as it does on the other members. */
    uint32_t seq = atomic_fetch_add(&cm->seq, 1);
    if (c->rc != MPI_SUCCESS)
        return;
    uint32_t unit = disp_unit > 0 && disp_unit <= UINT32_MAX ? (uint32_t)disp_unit : 0;
    rt__win *w = rt__win_new(*win, cm, seq, unit);
    if (!w)
        return;
    rma_info(w, info);
    rt__rec_req(c, 1, RT_EV_WIN_CREATE, w->id, 0);
}

static void rma_free(rt__call *c, MPI_Win win)
{
    rt__win *w = rt__win_get(win);
    if (!w)
        return;
    rt__rec_req(c, 0, RT_EV_WIN_FREE, w->id, 0);
    rt__win_forget(win);
}

/* The window of a successful call with a real target, its event started (kind, op, window,
 * peer); NULL when there is nothing to record. */
static rt__win *rma_event(const rt__call *c, MPI_Win win, int target, unsigned kind, unsigned op,
                          rt_event *ev)
{
    rt__win *w;
    if (c->rc != MPI_SUCCESS || !rt__g.tracing || !(w = rt__win_get(win)))
        return NULL;
    memset(ev, 0, sizeof *ev);
    ev->kind = (uint8_t)kind;
    ev->op = (uint8_t)op;
    ev->comm = w->id;
    ev->peer = target;
    return w;
}

/* MPI_Win_attach (op attach, size) and MPI_Win_detach (op detach) that succeeded: the memory's
 * address as MPI_Get_address gives it, the displacement RMA calls name it by (WIN_ATTACH,
 * rt_event.h). */
static void rma_attach(rt__call *c, MPI_Win win, const void *base, MPI_Aint size, unsigned op)
{
    rt_event ev;
    MPI_Aint a;
    if (!rma_event(c, win, 0, RT_EV_WIN_ATTACH, op, &ev))
        return;
    ev.req = PMPI_Get_address(base, &a) == MPI_SUCCESS ? (uint64_t)a : (uint64_t)(uintptr_t)base;
    ev.bytes = size > 0 ? (uint64_t)size : 0;
    rt__rec_event(c, 1, &ev);
}

/* The reduction of an atomic (rt_reduce_op): NONE for MPI_OP_NULL and for what RMA does not take.
 */
static unsigned reduce_op(MPI_Op op)
{
    if (op == MPI_OP_NULL) /* a put, a get, a compare-and-swap: no search */
        return RT_REDOP_NONE;
    static const struct {
        MPI_Op op;
        unsigned id;
    } ops[] = {
        {MPI_SUM, RT_REDOP_SUM},         {MPI_PROD, RT_REDOP_PROD},
        {MPI_MAX, RT_REDOP_MAX},         {MPI_MIN, RT_REDOP_MIN},
        {MPI_LAND, RT_REDOP_LAND},       {MPI_BAND, RT_REDOP_BAND},
        {MPI_LOR, RT_REDOP_LOR},         {MPI_BOR, RT_REDOP_BOR},
        {MPI_LXOR, RT_REDOP_LXOR},       {MPI_BXOR, RT_REDOP_BXOR},
        {MPI_MAXLOC, RT_REDOP_MAXLOC},   {MPI_MINLOC, RT_REDOP_MINLOC},
        {MPI_REPLACE, RT_REDOP_REPLACE}, {MPI_NO_OP, RT_REDOP_NO_OP},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].op == op)
            return ops[i].id;
    return RT_REDOP_NONE;
}

/* A transfer to target at target_disp (in the target's disp_unit), with the reduction redop (an
 * MPI_Op; MPI_OP_NULL for none). */
static void rma_op(rt__call *c, unsigned kind, unsigned op, MPI_Win win, int target,
                   MPI_Aint target_disp, MPI_Op redop, uint64_t bytes, uint64_t rbytes,
                   const MPI_Request *request)
{
    rt_event ev;
    if (target == MPI_PROC_NULL)
        return;
    rt__win *w = rma_event(c, win, target, kind, op, &ev);
    if (!w)
        return;
    ev.contype = rt__contype(w->comm, target);
    ev.bytes = bytes;
    ev.rbytes = rbytes;
    ev.req = rt__req_next_id();
    rt_raw_event *r = rt__rec_event(c, 0, &ev);
    if (r) { /* the target (rt_raw.h): the same record, nothing more written */
        r->disp = (uint64_t)target_disp;
        r->redop = (uint8_t)reduce_op(redop);
    }
    if (request) {
        rt__req q = {.id = ev.req, .comm = w->id, .kind = RT__RQ_RMA};
        rt__req_put(*request, &q);
    }
}

/* The assert argument of a fence, post or start in retrace's bits (rt_rma_assert), kept to those
 * the call takes (allowed): MPI's MPI_MODE_* values differ between implementations. */
static unsigned rma_assert(int assert, unsigned allowed)
{
    static const struct {
        int mpi;
        unsigned bit;
    } bits[] = {
        {MPI_MODE_NOCHECK, RT_ASSERT_NOCHECK},     {MPI_MODE_NOSTORE, RT_ASSERT_NOSTORE},
        {MPI_MODE_NOPUT, RT_ASSERT_NOPUT},         {MPI_MODE_NOPRECEDE, RT_ASSERT_NOPRECEDE},
        {MPI_MODE_NOSUCCEED, RT_ASSERT_NOSUCCEED},
    };
    unsigned a = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (assert & bits[i].mpi)
            a |= bits[i].bit;
    return a & allowed;
}

static void rma_fence(rt__call *c, MPI_Win win, int assert)
{
    rt__win *w;
    rt_raw_coll *r;
    if (c->rc == MPI_SUCCESS && (w = rt__win_get(win)) &&
        (r = rt__rec_coll(c, RT_EV_RMA_COLL_END, RT_COLL_BARRIER, w->id, RT_PEER_NONE, 0, 0)))
        r->pad = rma_assert(assert, RT_ASSERT_FENCE); /* rt_raw.h */
}

/* General active target synchronisation: post and start name their group and an assert,
 * complete and wait refer to the group of the epoch they end. */
static void rma_pscw(rt__call *c, MPI_Win win, unsigned op, MPI_Group group, int assert)
{
    rt_event ev;
    rt__win *w = rma_event(c, win, 0, RT_EV_RMA_GROUP_SYNC, op, &ev);
    if (!w)
        return;
    uint32_t gid;
    if (op == RT_PSCW_POST)
        gid = w->post_group = rt__group_id(group);
    else if (op == RT_PSCW_START)
        gid = w->start_group = rt__group_id(group);
    else
        gid = op == RT_PSCW_COMPLETE ? w->start_group : w->post_group;
    if (gid == RT_ID_NONE)
        return;
    ev.peer = (int32_t)gid;
    ev.tag = (int32_t)rma_assert(assert, rt_rma_asserts_allowed(RT_EV_RMA_GROUP_SYNC, op));
    rt__rec_event(c, 1, &ev);
}

/* Lock, unlock (op: lock type) and flush/sync (op: rt_sync_op). A lock's id is derived from
 * window and target: a rank holds at most one lock per target and window at a time. */
static void rma_lock(rt__call *c, MPI_Win win, unsigned kind, int target, unsigned op)
{
    rt_event ev;
    if (target == RT__ALL_TARGETS)
        target = RT_PEER_ALL;
    else if (target == MPI_PROC_NULL)
        return;
    rt__win *w = rma_event(c, win, target, kind, kind == RT_EV_RMA_UNLOCK ? 0 : op, &ev);
    if (!w)
        return;
    ev.req = ((uint64_t)w->id << 32) | (uint32_t)(target - RT_PEER_ALL);
    rt__rec_event(c, 1, &ev);
}

#include "wrappers.def"
#include "rt__f08.h"    /* the mpi_f08 wrappers of these rows (rt__f08.h says why) */
#include "rt__ompi_f.h" /* Open MPI's Fortran wrappers of these rows (rt__ompi_f.h says why) */

#if RT__F08
/*
 * mpi_f08's MPI_Win_set_name calls PMPI directly (rt__f08.h), and its CHARACTER argument has a
 * hidden length that gfortran passes after ierror, which f08.def's rows cannot say: so it is
 * written out here. Fortran pads the name with blanks, which MPI ignores at its end.
 */
void pmpir_win_set_name_f08_(const MPI_Win *win, const char *name, MPI_Fint *ierror, size_t len)
    __attribute__((weak));
RT__EXPORT void mpi_win_set_name_f08_(const MPI_Win *win, const char *name, MPI_Fint *ierror,
                                      size_t len);
RT__EXPORT void mpi_win_set_name_f08_(const MPI_Win *win, const char *name, MPI_Fint *ierror,
                                      size_t len)
{
    rt__call c_;
    rt__call *const c = &c_;
    MPI_Fint rc = MPI_SUCCESS;
    rt__begin(c, RT_FN_Win_set_name);
    pmpir_win_set_name_f08_(win, name, &rc, len);
    c->rc = rc;
    if (c->on) {
        while (len && name[len - 1] == ' ')
            len--;
        char s[RT_WIN_NAME_LEN + 2];
        snprintf(s, sizeof s, "%.*s", (int)(len < sizeof s ? len : sizeof s - 1), name);
        rma_name(c, *win, s);
        rt__end(c);
    }
    if (ierror)
        *ierror = rc;
}
#endif

#if RT__OMPI_F
/*
 * Open MPI's Fortran MPI_Win_set_name (rt__ompi_f.h), written out for the same reason: the
 * name's hidden length comes after ierror (an int by value in Open MPI's body, which its
 * mpi_f08 binding passes too).
 */
void pmpi_win_set_name__(MPI_Fint *win, char *name, MPI_Fint *ierror, int len)
    __attribute__((weak));
RT__EXPORT void ompi_win_set_name_f(MPI_Fint *win, char *name, MPI_Fint *ierror, int len);
RT__EXPORT void ompi_win_set_name_f(MPI_Fint *win, char *name, MPI_Fint *ierror, int len)
{
    rt__call c_;
    rt__call *const c = &c_;
    MPI_Fint rc = MPI_SUCCESS;
    rt__begin(c, RT_FN_Win_set_name);
    pmpi_win_set_name__(win, name, &rc, len);
    c->rc = rc;
    if (c->on) {
        while (len > 0 && name[len - 1] == ' ')
            len--;
        char s[RT_WIN_NAME_LEN + 2];
        snprintf(s, sizeof s, "%.*s", len < (int)sizeof s ? len : (int)sizeof s - 1, name);
        rma_name(c, PMPI_Win_f2c(*win), s);
        rt__end(c);
    }
    if (ierror)
        *ierror = rc;
}
RT__OF_ALIAS(win_set_name, mpi_win_set_name_)(MPI_Fint *win, char *name, MPI_Fint *ierror, int len);
RT__OF_ALIAS(win_set_name, mpi_win_set_name__)
(MPI_Fint *win, char *name, MPI_Fint *ierror, int len);
RT__OF_ALIAS(win_set_name, mpi_win_set_name)(MPI_Fint *win, char *name, MPI_Fint *ierror, int len);
RT__OF_ALIAS(win_set_name, pmpi_win_set_name_)
(MPI_Fint *win, char *name, MPI_Fint *ierror, int len);
#endif
