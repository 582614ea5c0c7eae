/*
 * The network and cost model: built-in defaults, the model file reader and the costs of one
 * message. The file format is docs/model.md; numbers with units and the writer are in
 * net_text.c. Every time is integer picoseconds computed with 128-bit intermediates, so the
 * simulator can add them up exactly and two runs never disagree.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_net.h"
#include "rt_parse.h"

typedef unsigned __int128 u128;

#define PS_PER_S 1000000000000ULL
#define MAX_LINE 4095

/* ---- defaults ----------------------------------------------------------------------------- */

/* A modern cluster: a 100 Gbit/s network, shared memory within a node, a gateway hop that
 * costs about twice a network hop. docs/model.md gives the reasons. */
static const rt_net_link default_link[RT_CT_COUNT] = {
    /*             latency  overhead gap bandwidth         eager */
    [RT_CT_LOOP] = {50000, 100000, 0, 20000000000, 65536},
    [RT_CT_SHM] = {300000, 100000, 0, 10000000000, 65536},
    [RT_CT_NET] = {1500000, 100000, 0, 12500000000, 65536},
    [RT_CT_GW] = {3000000, 100000, 0, 10000000000, 65536},
};

void rt_net_model_default(rt_net_model *m)
{
    memset(m, 0, sizeof *m);
    memcpy(m->link, default_link, sizeof m->link);
    m->link[RT_CT_NONE] = m->link[RT_CT_NET];
    m->gateways = 1;
    m->gw_mtu = 32768;
    m->reduce_bandwidth = 5000000000;
    m->contention = 0;
    m->cores = 0;
    m->timeslice_ps = RT_NET_TIMESLICE_DEFAULT;
    snprintf(m->source, sizeof m->source, "%s", "built-in defaults");
}

/* ---- the model file ----------------------------------------------------------------------- */

enum { K_LATENCY, K_BANDWIDTH, K_OVERHEAD, K_GAP, K_EAGER, K_EAGER_BW, K_RENDEZVOUS, K_NLINK };
static const char *const link_key[K_NLINK] = {"latency", "bandwidth",       "overhead",  "gap",
                                              "eager",   "eager_bandwidth", "rendezvous"};

enum {
    G_GATEWAYS,
    G_GW_MTU,
    G_REDUCE_BANDWIDTH,
    G_CONTENTION,
    G_INJECTION,
    G_CORES,
    G_TIMESLICE,
    G_WAITING,
    G_REDUCE_ELEMENT,
    G_N
};
static const char *const global_key[G_N] = {"gateways",   "gw_mtu",    "reduce_bandwidth",
                                            "contention", "injection", "cores",
                                            "timeslice",  "waiting",   "reduce_element"};

#define SECTION_GLOBAL RT_CT_NONE /* section index 0 is [global]; then the contypes */
#define SECTION_CALLS RT_CT_COUNT /* [calls] */

typedef struct loader {
    rt_net_model m;
    const char *path;
    rt_err *err;
    unsigned line;
    unsigned section;
    unsigned seen[RT_CT_COUNT][(int)K_NLINK > (int)G_N ? (int)K_NLINK : (int)G_N]; /* line, or 0 */
    unsigned seen_call[RT_FN_COUNT];
    unsigned seen_alg[RT_COLL_COUNT][RT_ALG_COUNT];
} loader;

/* "FILE:LINE: problem", always -RT_E_INVAL: every problem inside a file is its content's. */
static int line_err(loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int line_err(loader *ld, const char *fmt, ...)
{
    char text[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return rt_err_set(ld->err, RT_E_INVAL, "%s:%u: %s", ld->path, ld->line, text);
}

static const char *clip(const char *text, char *buf, size_t len)
{
    if (strlen(text) < len)
        return text;
    snprintf(buf, len, "%.*s...", (int)(len - 4), text);
    return buf;
}

static int find_key(const char *const *keys, unsigned n, const char *key)
{
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(keys[i], key))
            return (int)i;
    return -RT_E_NOTFOUND;
}

/* A whole number from min to max (at most UINT32_MAX): 0, or -RT_E_INVAL. */
static int parse_count(const char *v, unsigned long long min, unsigned long long max, uint32_t *out)
{
    uint64_t x;
    if (rt_parse_uint(v, min, max, &x, NULL) < 0)
        return -RT_E_INVAL;
    *out = (uint32_t)x;
    return 0;
}

static int set_global(loader *ld, int k, const char *v)
{
    char shown[72];
    rt_err e = {0};
    int rc = 0;
    switch (k) {
    case G_GATEWAYS:
        if (parse_count(v, 1, RT_NET_MAX_GATEWAYS, &ld->m.gateways) < 0)
            return line_err(ld, "gateways: bad value '%s' (expected a whole number from 1 to %u)",
                            clip(v, shown, sizeof shown), (unsigned)RT_NET_MAX_GATEWAYS);
        break;
    case G_GW_MTU:
        rc = rt_net_parse_size(v, &ld->m.gw_mtu, &e);
        if (!rc && !ld->m.gw_mtu)
            rc = rt_err_set(&e, RT_E_INVAL, "bad value '%s': must be greater than zero",
                            clip(v, shown, sizeof shown));
        break;
    case G_REDUCE_BANDWIDTH:
        rc = rt_net_parse_bandwidth(v, &ld->m.reduce_bandwidth, &e);
        break;
    case G_CONTENTION:
        if (strcmp(v, "on") && strcmp(v, "off"))
            return line_err(ld, "contention: bad value '%s' (expected on or off)",
                            clip(v, shown, sizeof shown));
        ld->m.contention = !strcmp(v, "on");
        break;
    case G_INJECTION:
        if (strcmp(v, "message") && strcmp(v, "bytes"))
            return line_err(ld, "injection: bad value '%s' (expected message or bytes)",
                            clip(v, shown, sizeof shown));
        ld->m.injection = !strcmp(v, "bytes") ? RT_NET_INJECT_BYTES : RT_NET_INJECT_MESSAGE;
        break;
    case G_CORES:
        if (parse_count(v, 0, UINT32_MAX, &ld->m.cores) < 0)
            return line_err(ld, "cores: bad value '%s' (expected a whole number from 0 to %u)",
                            clip(v, shown, sizeof shown), (unsigned)UINT32_MAX);
        break;
    case G_TIMESLICE:
        rc = rt_net_parse_time(v, &ld->m.timeslice_ps, &e);
        if (!rc && !ld->m.timeslice_ps)
            rc = rt_err_set(&e, RT_E_INVAL, "bad value '%s': must be greater than zero",
                            clip(v, shown, sizeof shown));
        break;
    case G_WAITING:
        if (strcmp(v, "auto") && strcmp(v, "yield") && strcmp(v, "poll"))
            return line_err(ld, "waiting: bad value '%s' (expected auto, yield or poll)",
                            clip(v, shown, sizeof shown));
        ld->m.waiting = !strcmp(v, "poll")    ? RT_NET_WAIT_POLL
                        : !strcmp(v, "yield") ? RT_NET_WAIT_YIELD
                                              : RT_NET_WAIT_AUTO;
        break;
    case G_REDUCE_ELEMENT:
        rc = rt_net_parse_time(v, &ld->m.reduce_element_ps, &e);
        break;
    }
    return rc < 0 ? line_err(ld, "%s: %s", global_key[k], e.msg) : 0;
}

static int set_link(loader *ld, int k, const char *v)
{
    rt_net_link *l = &ld->m.link[ld->section];
    rt_err e = {0};
    int rc = 0;
    switch (k) {
    case K_LATENCY:
        rc = rt_net_parse_time(v, &l->latency_ps, &e);
        break;
    case K_BANDWIDTH:
        rc = rt_net_parse_bandwidth(v, &l->bandwidth, &e);
        break;
    case K_OVERHEAD:
        rc = rt_net_parse_time(v, &l->overhead_ps, &e);
        break;
    case K_GAP:
        rc = rt_net_parse_time(v, &l->gap_ps, &e);
        break;
    case K_EAGER:
        rc = rt_net_parse_size(v, &l->eager, &e);
        break;
    case K_EAGER_BW:
        rc = rt_net_parse_bandwidth(v, &l->eager_bandwidth, &e);
        break;
    case K_RENDEZVOUS:
        rc = rt_net_parse_time(v, &l->rendezvous_ps, &e);
        break;
    }
    return rc < 0 ? line_err(ld, "[%s] %s: %s", rt_contype_name(ld->section), link_key[k], e.msg)
                  : 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

static int section_line(loader *ld, char *s)
{
    char shown[72];
    size_t n = strlen(s);
    if (s[n - 1] != ']')
        return line_err(ld, "bad section header '%s' (expected [name])",
                        clip(s, shown, sizeof shown));
    s[n - 1] = '\0';
    char *name = trim(s + 1);
    if (!strcmp(name, "global")) {
        ld->section = SECTION_GLOBAL;
        return 0;
    }
    if (!strcmp(name, "calls")) {
        ld->section = SECTION_CALLS;
        return 0;
    }
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++)
        if (!strcmp(name, rt_contype_name(ct))) {
            ld->section = ct;
            return 0;
        }
    return line_err(
        ld, "unknown section [%s] (expected [global], [loop], [shm], [net], [gw] or [calls])",
        clip(name, shown, sizeof shown));
}

/* The blocking function of op: the function whose name is the op's, "MPI_" and capitalised
 * ("reduce_scatter_block": MPI_Reduce_scatter_block). */
unsigned rt_net_coll_func(unsigned op)
{
    const char *name = op < RT_COLL_COUNT ? rt_event_op_name(RT_EV_COLL_END, op) : NULL;
    char fn[64];
    if (!name || strlen(name) + 1 > sizeof fn || !*name)
        return RT_FN_NONE;
    snprintf(fn, sizeof fn, "%c%s", name[0] - 'a' + 'A', name + 1);
    return rt_func_lookup(fn);
}

/* The op whose blocking function fn is; RT_COLL_COUNT for any other function. */
static unsigned coll_of_func(unsigned fn)
{
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        if (fn != RT_FN_NONE && rt_net_coll_func(op) == fn)
            return op;
    return RT_COLL_COUNT;
}

/* "ring, rabenseifner" for op: its algorithms, without the selections mpich and ompi. */
static void alg_names(unsigned op, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (unsigned a = RT_ALG_OMPI + 1; a < RT_ALG_COUNT && at < len; a++)
        if (rt_coll_alg_valid(op, a)) {
            int w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", rt_coll_alg_name(a));
            at = w < 0 ? len : at + (size_t)w;
        }
}
/* "TIME" or "TIME + n / BANDWIDTH", the value of a [calls] key (shown in messages). */
static int call_value(loader *ld, const char *key, char *v, rt_net_call *out)
{
    char shown[72];
    if (!*v)
        return line_err(ld, "[calls] %s: missing value", key);
    rt_net_call c = {0};
    rt_err e = {0};
    char *plus = strchr(v, '+');
    if (plus)
        *plus = '\0';
    int rc = rt_net_parse_time(v, &c.fixed_ps, &e);
    if (rc == 0 && plus) {
        char *p = trim(plus + 1);
        if (*p != 'n')
            return line_err(ld,
                            "[calls] %s: bad per-byte part '%s' (expected n / BANDWIDTH, "
                            "such as n / 5GB/s)",
                            key, clip(p, shown, sizeof shown));
        p = trim(p + 1);
        if (*p != '/')
            return line_err(ld,
                            "[calls] %s: bad per-byte part 'n %s' (expected n / BANDWIDTH, "
                            "such as n / 5GB/s)",
                            key, clip(p, shown, sizeof shown));
        rc = rt_net_parse_bandwidth(p + 1, &c.bandwidth, &e);
    }
    if (rc < 0)
        return line_err(ld, "[calls] %s: %s", key, e.msg);
    *out = c;
    return 0;
}

/* "MPI_Allreduce/ring = COST": a blocking collective under one of its algorithms. */
static int alg_line(loader *ld, const char *func, unsigned fn, const char *alg, char *v)
{
    char shown[72], list[512], key[128];
    /* "MPI_Allreduce/ring" for messages (func is a known name: short) */
    snprintf(key, sizeof key, "%s/%s", func, clip(alg, shown, sizeof shown - 24));
    unsigned op = coll_of_func(fn);
    if (op == RT_COLL_COUNT)
        return line_err(ld,
                        "[calls] %s: algorithm costs are for blocking collectives (such as "
                        "MPI_Allreduce/ring)",
                        key);
    int a = rt_coll_alg_lookup(alg);
    if (a <= (int)RT_ALG_OMPI || !rt_coll_alg_valid(op, (unsigned)a)) {
        alg_names(op, list, sizeof list);
        return line_err(ld, "[calls] %s: no algorithm '%s' for %s (expected %s)", key,
                        clip(alg, shown, sizeof shown), rt_event_op_name(RT_EV_COLL_END, op),
                        *list ? list : "none: it has no schedule");
    }
    unsigned *seen = &ld->seen_alg[op][a];
    if (*seen)
        return line_err(ld, "[calls] %s: duplicate key (first set on line %u)", key, *seen);
    *seen = ld->line;
    int rc = call_value(ld, key, v, &ld->m.alg_call[op][a]);
    if (rc == 0)
        ld->m.alg_set[op][a] = 1;
    return rc;
}

/* "MPI_Name = TIME" or "MPI_Name = TIME + n / BANDWIDTH" in [calls]; "MPI_Name/alg = ..." for
 * a blocking collective under one algorithm. */
static int call_line(loader *ld, char *key, char *v)
{
    char shown[72];
    char *alg = strchr(key, '/');
    if (alg) {
        *alg++ = '\0';
        key = trim(key);
    }
    rt_func fn = rt_func_lookup(key);
    if (fn == RT_FN_NONE || strncmp(key, "MPI_", 4))
        return line_err(ld,
                        "[calls] unknown MPI function '%s' (expected a name such as "
                        "MPI_Allreduce)",
                        clip(key, shown, sizeof shown));
    if (alg)
        return alg_line(ld, key, fn, trim(alg), v);
    unsigned *seen = &ld->seen_call[fn];
    if (*seen)
        return line_err(ld, "[calls] %s: duplicate key (first set on line %u)", key, *seen);
    *seen = ld->line;
    return call_value(ld, key, v, &ld->m.call[fn]);
}

static int key_line(loader *ld, char *s)
{
    char shown[72];
    char *eq = strchr(s, '=');
    if (!eq)
        return line_err(ld, "missing '=' in '%s' (expected key = value)",
                        clip(s, shown, sizeof shown));
    *eq = '\0';
    char *key = trim(s), *v = trim(eq + 1);
    if (!*key)
        return line_err(ld, "missing key before '='");
    if (ld->section == SECTION_CALLS)
        return call_line(ld, key, v);
    int global = ld->section == SECTION_GLOBAL;
    const char *sec = global ? "" : rt_contype_name(ld->section);
    int k = find_key(global ? global_key : link_key, global ? G_N : K_NLINK, key);
    if (k < 0) {
        const char *what = clip(key, shown, sizeof shown);
        if (global && find_key(link_key, K_NLINK, key) >= 0)
            return line_err(ld,
                            "%s is a per-connection-type key (put it in a [loop], [shm], [net] "
                            "or [gw] section)",
                            what);
        if (global)
            return line_err(ld,
                            "unknown key '%s' (expected gateways, gw_mtu, reduce_bandwidth, "
                            "contention, injection, cores, timeslice, waiting or reduce_element)",
                            what);
        if (find_key(global_key, G_N, key) >= 0)
            return line_err(ld,
                            "[%s] %s is a global key (put it before the first section or "
                            "in [global])",
                            sec, what);
        return line_err(ld,
                        "[%s] unknown key '%s' (expected latency, bandwidth, overhead, gap, "
                        "eager, eager_bandwidth or rendezvous)",
                        sec, what);
    }
    unsigned *seen = &ld->seen[ld->section][k];
    if (*seen)
        return line_err(ld, "%s%s%s%s: duplicate key (first set on line %u)", global ? "" : "[",
                        sec, global ? "" : "] ", key, *seen);
    *seen = ld->line;
    if (!*v)
        return line_err(ld, "%s%s%s%s: missing value", global ? "" : "[", sec, global ? "" : "] ",
                        key);
    return global ? set_global(ld, k, v) : set_link(ld, k, v);
}

static int load_line(loader *ld, char *s, size_t len)
{
    if (len > MAX_LINE)
        return line_err(ld, "line longer than %d bytes", MAX_LINE);
    if (strlen(s) != len)
        return line_err(ld, "line contains a NUL byte");
    if (ld->line == 1 && !memcmp(s, "\xef\xbb\xbf", 3)) /* a UTF-8 byte order mark */
        s += 3;
    /* '#' starts a comment at the start of a line or after a blank, so values may hold '#'
     * nowhere: no value of the format needs one. */
    for (char *p = s; *p; p++)
        if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
            *p = '\0';
            break;
        }
    s = trim(s);
    if (!*s)
        return 0;
    return *s == '[' ? section_line(ld, s) : key_line(ld, s);
}

/* Every message over a connection type costs at least o + L + o (o + 2 L + o across a
 * gateway: two hops): when even that does not fit in 64-bit picoseconds, no message of a
 * replay or an analysis could be timed, so the file is refused at the key that made it so
 * (the one too large on its own, else the later of latency and overhead in the section). */
static int check_links(loader *ld)
{
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++) {
        const rt_net_link *l = &ld->m.link[ct];
        u128 least = (u128)l->overhead_ps * 2 + (u128)l->latency_ps * (ct == RT_CT_GW ? 2 : 1);
        if (least < UINT64_MAX)
            continue;
        /* the key that does not fit on its own, else the later one */
        unsigned lat = ld->seen[ct][K_LATENCY], ovh = ld->seen[ct][K_OVERHEAD];
        int by_lat = (u128)l->overhead_ps * 2 >= UINT64_MAX                         ? 0
                     : (u128)l->latency_ps * (ct == RT_CT_GW ? 2 : 1) >= UINT64_MAX ? 1
                                                                                    : lat > ovh;
        ld->line = by_lat ? lat : ovh;
        return line_err(ld,
                        "[%s] %s: a message takes at least overhead + %slatency + overhead, "
                        "which does not fit in 64-bit picoseconds (about 213 days)",
                        rt_contype_name(ct), by_lat ? "latency" : "overhead",
                        ct == RT_CT_GW ? "2 x " : "");
    }
    return 0;
}

int rt_net_model_load(rt_net_model *m, const char *path, rt_err *err)
{
    loader l = {0}, *ld = &l;
    rt_net_model_default(&ld->m);
    ld->path = path;
    ld->err = err;
    ld->section = SECTION_GLOBAL;
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        return rt_err_set(err, e == ENOENT || e == ENOTDIR ? RT_E_NOTFOUND : RT_E_IO,
                          "%s: cannot open model file: %s", path, strerror(e));
    }
    char *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        ld->line++;
        errno = 0;
        ssize_t got = getline(&buf, &cap, f);
        if (got < 0) {
            if (ferror(f) || !feof(f)) { /* a directory, a failing disk, no memory */
                int e = errno ? errno : EIO;
                rc = rt_err_set(err, e == ENOMEM ? RT_E_NOMEM : RT_E_IO, "%s:%u: read error: %s",
                                path, ld->line, strerror(e));
            }
            break;
        }
        size_t len = (size_t)got;
        if (len && buf[len - 1] == '\n')
            buf[--len] = '\0';
        if (len && buf[len - 1] == '\r')
            buf[--len] = '\0';
        if ((rc = load_line(ld, buf, len)) < 0)
            break;
    }
    free(buf);
    fclose(f);
    if (rc == 0)
        rc = check_links(ld);
    if (rc == 0) {
        /* MPI_Send's cost is also MPI_Send_c's (the large-count form) unless set apart */
        for (unsigned fn = 0; fn < RT_FN_COUNT; fn++) {
            unsigned b = rt_net_call_base(fn);
            if (b != RT_FN_NONE && !ld->seen_call[fn] && ld->seen_call[b])
                ld->m.call[fn] = ld->m.call[b];
        }
        ld->m.link[RT_CT_NONE] = ld->m.link[RT_CT_NET];
        snprintf(ld->m.source, sizeof ld->m.source, "%s", path);
        *m = ld->m;
    }
    return rc;
}

/* ---- costs -------------------------------------------------------------------------------- */

static const rt_net_link *link_of(const rt_net_model *m, unsigned ct)
{
    return &m->link[ct == RT_CT_NONE || ct >= RT_CT_COUNT ? RT_CT_NET : ct];
}

static uint64_t sat(u128 v)
{
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* n bytes at bw bytes per second, in ps rounded up; n * 10^12 < 2^104 fits. */
static u128 xfer(uint64_t n, uint64_t bw)
{
    if (!bw)
        return n ? UINT64_MAX : 0;
    return ((u128)n * PS_PER_S + bw - 1) / bw;
}

/*
 * The gateway pipeline. Chunks c_1..c_k (all mtu bytes but the last); hop time of chunk i is
 * h_i = L + ceil(c_i * 10^12 / B) on either hop. The sender puts chunks on the first hop back
 * to back, so chunk i has fully arrived at the gateway at A_i = h_1 + ... + h_i. The gateway
 * starts forwarding chunk i when it has fully arrived and the previous chunk has fully
 * arrived at the receiver (the outgoing link is free): D_i = max(A_i, D_{i-1}) + h_i, D_0 = 0.
 * The wire time is D_k. With h = h_1 = ... = h_{k-1} >= h_k = h':
 *   k = 1: D_1 = 2 h'
 *   k > 1: D_i = (i + 1) h for i < k, and A_k = (k - 1) h + h' <= k h = D_{k-1},
 *          so D_k = k h + h'.
 */
uint64_t rt_net_wire_ps(const rt_net_model *m, unsigned ct, uint64_t n, uint64_t mtu)
{
    const rt_net_link *l = link_of(m, ct);
    /* The protocol is the message's, also for each gateway chunk: eager data may move at
     * another rate (copied through a buffer) than rendezvous data, which pays the
     * handshake's extra work once. */
    uint64_t bw = rt_net_bandwidth(m, ct, n);
    u128 extra = n <= l->eager ? 0 : l->rendezvous_ps;
    if (ct != RT_CT_GW)
        return sat(l->latency_ps + xfer(n, bw) + extra);
    if (!mtu)
        mtu = m->gw_mtu;
    if (!mtu || n <= mtu)
        return sat(2 * (l->latency_ps + xfer(n, bw)) + extra);
    uint64_t k = n / mtu + (n % mtu != 0), last = n - (k - 1) * mtu;
    uint64_t h = sat(l->latency_ps + xfer(mtu, bw));
    uint64_t h_last = sat(l->latency_ps + xfer(last, bw));
    u128 t = (u128)k * h; /* < 2^128: both factors < 2^64 */
    return t > UINT64_MAX ? UINT64_MAX : sat(t + h_last + extra);
}

uint64_t rt_net_bandwidth(const rt_net_model *m, unsigned ct, uint64_t n)
{
    const rt_net_link *l = link_of(m, ct);
    return n <= l->eager && l->eager_bandwidth ? l->eager_bandwidth : l->bandwidth;
}

uint64_t rt_net_msg_ps(const rt_net_model *m, unsigned ct, uint64_t n)
{
    const rt_net_link *l = link_of(m, ct);
    return sat((u128)l->overhead_ps + rt_net_wire_ps(m, ct, n, 0) + l->overhead_ps);
}

uint64_t rt_net_reduce_ps(const rt_net_model *m, uint64_t n, uint64_t elems)
{
    return sat((u128)sat(xfer(n, m->reduce_bandwidth)) + sat((u128)elems * m->reduce_element_ps));
}

uint64_t rt_net_xfer_ps(uint64_t n, uint64_t bandwidth)
{
    return sat(xfer(n, bandwidth));
}

uint64_t rt_net_best_gw_mtu(const rt_net_model *m, uint64_t n, uint64_t *time_ps)
{
    uint64_t best = 0, best_t = UINT64_MAX;
    for (uint64_t c = 1024;; c <<= 1) {
        uint64_t t = rt_net_wire_ps(m, RT_CT_GW, n, c);
        if (t <= best_t) { /* chunks grow: "<=" sends ties to the larger one */
            best = c;
            best_t = t;
        }
        if (c >= n || c == UINT64_C(1) << 63)
            break;
    }
    if (time_ps)
        *time_ps = best_t;
    return best;
}

uint64_t rt_net_call_ps(const rt_net_model *m, unsigned fn, uint64_t n)
{
    if (fn >= RT_FN_COUNT)
        return 0;
    const rt_net_call *c = &m->call[fn];
    return sat(c->fixed_ps + (c->bandwidth ? xfer(n, c->bandwidth) : 0));
}

unsigned rt_net_call_base(unsigned fn)
{
    const char *name = rt_func_name(fn);
    size_t n = name ? strlen(name) : 0;
    char base[64];
    if (n < 3 || n >= sizeof base || strcmp(name + n - 2, "_c"))
        return RT_FN_NONE;
    memcpy(base, name, n - 2);
    base[n - 2] = '\0';
    return rt_func_lookup(base);
}

int rt_net_alg_call_ps(const rt_net_model *m, unsigned op, unsigned alg, uint64_t n, uint64_t *ps)
{
    if (op >= RT_COLL_COUNT || alg >= RT_ALG_COUNT || !m->alg_set[op][alg])
        return 0;
    const rt_net_call *c = &m->alg_call[op][alg];
    *ps = sat(c->fixed_ps + (c->bandwidth ? xfer(n, c->bandwidth) : 0));
    return 1;
}
