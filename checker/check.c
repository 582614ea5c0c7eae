/*
 * retrace check: the classes, the findings table and the order of the passes (rt_check.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__check.h"
#include "rt_net.h"
#include "rt_vec.h"

static const char *const class_names[RT_CHK_COUNT] = {
#define X(id, name, sev) [RT_CHK_##id] = name,
    RT_CHECK_CLASSES(X)
#undef X
};

static const uint8_t class_sev[RT_CHK_COUNT] = {
#define X(id, name, sev) [RT_CHK_##id] = RT_CHK_##sev,
    RT_CHECK_CLASSES(X)
#undef X
};

const char *rt_check_class_name(unsigned cls)
{
    return cls < RT_CHK_COUNT ? class_names[cls] : NULL;
}

int rt_check_class_lookup(const char *name)
{
    for (unsigned i = 0; i < RT_CHK_COUNT; i++)
        if (!strcmp(name, class_names[i]))
            return (int)i;
    return -RT_E_NOTFOUND;
}

rt_check_severity rt_check_class_severity(unsigned cls)
{
    return cls < RT_CHK_COUNT ? (rt_check_severity)class_sev[cls] : RT_CHK_ERROR;
}

const char *rt_check_severity_name(unsigned sev)
{
    return sev == RT_CHK_WARNING ? "warning" : "error";
}

/* ---- text ------------------------------------------------------------------------------------ */

void chk_add(chk_text *t, const char *fmt, ...)
{
    if (t->len >= sizeof t->s - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->len, sizeof t->s - t->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof t->s - t->len) {
        t->len += (size_t)n;
        return;
    }
    t->len = sizeof t->s - 1; /* cut: say so */
    memcpy(t->s + t->len - 3, "...", 3);
}

void chk_add_time(chk_text *t, uint64_t ns)
{
    char b[32];
    rt_net_format_time(ns <= UINT64_MAX / 1000 ? ns * 1000 : UINT64_MAX, b, sizeof b);
    chk_add(t, "%s", b);
}

void chk_add_comm(chk_text *t, uint32_t comm)
{
    if (comm == RT_COMM_WORLD)
        chk_add(t, "comm world");
    else if (comm == RT_COMM_SELF)
        chk_add(t, "comm self");
    else
        chk_add(t, "comm %" PRIu32, comm);
}

/* The parameters of ev that a finding shows, each after sep. */
static void add_params(chk_text *t, const rt_event *ev)
{
    const char *sep = "";
    unsigned m = rt_event_kind_mask(ev->kind);
    /* the op, unless the call names it already (a receive's wildcards show as "any") */
    int named = ev->call && (ev->kind == RT_EV_RMA_GROUP_SYNC || ev->kind == RT_EV_RMA_SYNC ||
                             ev->kind == RT_EV_RMA_COLL_END || ev->kind == RT_EV_WIN_ATTACH);
    if ((m & RT_FIELD_OP) && !named && ev->kind != RT_EV_RECV && ev->kind != RT_EV_IRECV &&
        ev->kind != RT_EV_ISEND && /* (partitioned: the call, Pready, says) */
        ev->kind != RT_EV_COLL_END && ev->kind != RT_EV_NBC_COMPLETE &&
        ev->kind != RT_EV_COMM_HANDLE && ev->kind != RT_EV_HANDLE && /* (the call says) */
        ev->kind != RT_EV_REQUEST_FREE) { /* (the finding's sentence says what it was) */
        chk_add(t, "%s", rt_event_op_name(ev->kind, ev->op));
        sep = ", ";
    }
    if (ev->kind == RT_EV_RMA_GROUP_SYNC) { /* its peer is a group */
        chk_add(t, "%sgroup %" PRId32, sep, ev->peer);
        sep = ", ";
    } else if (m & RT_FIELD_PEER) {
        const char *what = rt_event_is_coll(ev->kind)                          ? "root"
                           : rt_event_is_rma(ev->kind)                         ? "target"
                           : ev->kind == RT_EV_SEND || ev->kind == RT_EV_ISEND ? "dest"
                                                                               : "source";
        int any =
            (ev->kind == RT_EV_RECV || ev->kind == RT_EV_IRECV) && (ev->op & RT_RECV_ANY_SOURCE);
        if (ev->peer == RT_PEER_ALL)
            chk_add(t, "%s%s all", sep, what);
        else if (any && ev->peer >= 0)
            chk_add(t, "%s%s any (got %" PRId32 ")", sep, what, ev->peer);
        else if (ev->peer >= 0)
            chk_add(t, "%s%s %" PRId32, sep, what, ev->peer);
        else if (!rt_event_is_coll(ev->kind))
            chk_add(t, "%s%s any", sep, what);
        sep = ev->peer == RT_PEER_NONE && rt_event_is_coll(ev->kind) ? sep : ", ";
    }
    if ((m & RT_FIELD_TAG) && (ev->kind == RT_EV_RECV || ev->kind == RT_EV_IRECV) &&
        (ev->op & RT_RECV_ANY_TAG)) {
        if (ev->tag >= 0)
            chk_add(t, "%stag any (got %" PRId32 ")", sep, ev->tag);
        else
            chk_add(t, "%stag any", sep); /* a pending receive: nothing came */
        sep = ", ";
    } else if ((m & RT_FIELD_TAG) && rt_event_is_rma(ev->kind)) { /* the assert, if any */
        char a[64];
        if (ev->tag) {
            chk_add(t, "%sassert %s", sep, rt_rma_assert_name((unsigned)ev->tag, a, sizeof a));
            sep = ", ";
        }
    } else if (m & RT_FIELD_TAG) {
        chk_add(t, "%stag %" PRId32, sep, ev->tag);
        sep = ", ";
    }
    if ((m & RT_FIELD_COMM) && !rt_event_is_rma(ev->kind)) {
        chk_add(t, "%s", sep);
        chk_add_comm(t, ev->comm);
        sep = ", ";
    } else if (m & RT_FIELD_COMM) {
        chk_add(t, "%swindow %" PRIu32, sep, ev->comm);
        sep = ", ";
    }
    if (ev->kind == RT_EV_WIN_ATTACH && ev->op == RT_WATTACH_DETACH)
        m &= ~(unsigned)RT_FIELD_BYTES; /* a detach names no size */
    if ((m & RT_FIELD_BYTES) && (m & RT_FIELD_RBYTES))
        chk_add(t, "%s%" PRIu64 " bytes out, %" PRIu64 " in", sep, ev->bytes, ev->rbytes);
    else if (m & RT_FIELD_BYTES)
        chk_add(t, "%s%" PRIu64 " bytes", sep, ev->bytes);
    else if (m & RT_FIELD_RBYTES)
        chk_add(t, "%s%" PRIu64 " bytes", sep, ev->rbytes);
}

void chk_add_call(chk_text *t, const rt_event *ev)
{
    chk_add(t, "rank %" PRIu32 " %s(", ev->rank,
            ev->call ? rt_func_name(ev->call) : rt_event_kind_name(ev->kind));
    add_params(t, ev);
    chk_add(t, ") at ");
    chk_add_time(t, ev->time);
}

/* ---- findings ----------------------------------------------------------------------------------
 */

int chk_find(chk *c, unsigned cls, const char *ranks, const char *where, const char *calls,
             const char *why)
{
    if (c->res->found[cls]++ >= c->o->max)
        return 0;
    rt_table *f = c->findings;
    if (rt_table_row(f) || rt_table_cell(f, "%s", class_names[cls]) ||
        rt_table_cell(f, "%s", rt_check_severity_name(class_sev[cls])) ||
        rt_table_cell(f, "%s", ranks) || rt_table_cell(f, "%s", where) ||
        rt_table_cell(f, "%s", calls) || rt_table_cell(f, "%s", why)) {
        c->nomem = 1;
        return -RT_E_NOMEM;
    }
    return 0;
}

size_t chk_entry(rt_hmap *at, void *items, size_t *n, size_t *room, size_t size, uint64_t k1,
                 uint64_t k2, int *created)
{
    int fresh;
    uint64_t *v = rt_hmap_put(at, k1, k2, &fresh);
    if (created)
        *created = fresh;
    if (!v)
        return SIZE_MAX;
    if (fresh) {
        if (*n + 1 > *room &&
            rt_vec_grow_heap_(items, room, sizeof *room, (uint64_t)*n + 1, size, 16)) {
            rt_hmap_del(at, k1, k2);
            return SIZE_MAX;
        }
        char *p;
        memcpy(&p, items, sizeof p);
        memset(p + *n * size, 0, size);
        *v = (*n)++;
    }
    return (size_t)*v;
}

int chk_note(chk *c, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t old = c->res->notes ? strlen(c->res->notes) : 0, add = strlen(line);
    char *n = realloc(c->res->notes, old + add + 2);
    if (!n) {
        c->nomem = 1;
        return -RT_E_NOMEM;
    }
    memcpy(n + old, line, add);
    n[old + add] = '\n';
    n[old + add + 1] = '\0';
    c->res->notes = n;
    return 0;
}

/* ---- the check ------------------------------------------------------------------------------ */

static int summary(chk *c, rt_err *err)
{
    static const char *const cols[] = {"class", "severity", "findings"};
    rt_table *t = rt_table_new("summary", NULL, 3, cols, "llr");
    if (!t)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    int bad = 0;
    for (unsigned i = 0; i < RT_CHK_COUNT && !bad; i++) {
        if (!chk_on(c, i))
            continue;
        bad = rt_table_row(t) || rt_table_cell(t, "%s", class_names[i]) ||
              rt_table_cell(t, "%s", rt_check_severity_name(class_sev[i])) ||
              rt_table_cell_u64(t, c->res->found[i]);
    }
    if (bad || rt_tables_add(&c->res->report.tables, t)) {
        if (bad)
            rt_table_free(t);
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    return 0;
}

int rt_check(const char *path, const rt_check_opts *o, rt_check_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    static const char *const cols[] = {"class", "severity", "ranks",
                                       "where", "calls",    "explanation"};
    chk c = {.o = o, .res = res, .threaded = UINT32_MAX};
    c.findings = rt_table_new("findings", NULL, 6, cols, "llllll");
    if (!c.findings || rt_tables_add(&res->report.tables, c.findings))
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    int rc = chk_stream(&c, path, err);
    if (rc == 0 && chk_on(&c, RT_CHK_RACE) && c.wildcards)
        rc = chk_race(&c, path, err);
    if (rc == 0 && (chk_on(&c, RT_CHK_DEADLOCK) || chk_on(&c, RT_CHK_BUFFERING)))
        rc = chk_replay(&c, path, err);
    if (rc == 0 && c.nomem)
        rc = -RT_E_NOMEM;
    if (rc == -RT_E_NOMEM)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    if (rc < 0)
        return rc;
    return summary(&c, err);
}

void rt_check_result_free(rt_check_result *res)
{
    free(res->notes);
    rt_report_free(&res->report);
    memset(res, 0, sizeof *res);
}
