/* Algorithm choices as text: "allreduce=ring,bcast=msa" (rt_coll.h). */
#include <stdio.h>
#include <string.h>

#include "rt__coll.h"

/* Collective op names are those of the event model (COLL_END's op field). */
static int coll_op_lookup(const char *name, size_t len)
{
    char buf[64];
    if (len >= sizeof buf)
        return -RT_E_NOTFOUND;
    memcpy(buf, name, len);
    buf[len] = 0;
    return rt_event_op_lookup(RT_EV_COLL_END, buf);
}

static const char *coll_op_name(unsigned op)
{
    return rt_event_op_name(RT_EV_COLL_END, op);
}

int rt_coll_parse_algs(const char *spec, uint8_t alg[RT_COLL_COUNT], rt_err *err)
{
    uint8_t out[RT_COLL_COUNT];
    memcpy(out, alg, sizeof out);
    const char *p = spec;
    if (!*p)
        return rt_err_set(err, RT_E_INVAL, "--coll: empty choice (expected OP=ALG[,OP=ALG...])");
    while (*p) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p || eq + 1 == p + len)
            return rt_err_set(err, RT_E_INVAL, "--coll: '%.*s' is not OP=ALG", (int)len, p);
        /* the op first: "bogus=x" is an unknown op, whatever x is */
        size_t olen = (size_t)(eq - p);
        int all = olen == 3 && !strncmp(p, "all", 3);
        int op = 0;
        if (!all && (op = coll_op_lookup(p, olen)) < 0)
            return rt_err_set(err, RT_E_INVAL, "--coll: unknown collective '%.*s'", (int)olen, p);
        char name[64];
        size_t alen = (size_t)(p + len - eq - 1);
        snprintf(name, sizeof name, "%.*s", (int)(alen < sizeof name ? alen : sizeof name - 1),
                 eq + 1);
        int a = rt_coll_alg_lookup(name);
        if (a < 0)
            return rt_err_set(err, RT_E_INVAL, "--coll: unknown algorithm '%.*s'", (int)alen,
                              eq + 1);
        if (all) {
            int any = 0;
            for (unsigned o = 0; o < RT_COLL_COUNT; o++)
                if (rt_coll_alg_valid(o, (unsigned)a)) {
                    out[o] = (uint8_t)a;
                    any = 1;
                }
            if (!any)
                return rt_err_set(err, RT_E_INVAL, "--coll: no collective has algorithm '%s'",
                                  name);
        } else {
            if (!rt_coll_alg_valid((unsigned)op, (unsigned)a)) {
                char list[512];
                rt_coll_alg_list((unsigned)op, list, sizeof list);
                return rt_err_set(err, RT_E_INVAL, "--coll: %s has no algorithm '%s' (it has: %s)",
                                  coll_op_name((unsigned)op), name, list);
            }
            out[op] = (uint8_t)a;
        }
        p += len;
        if (*p == ',' && !*++p)
            return rt_err_set(err, RT_E_INVAL, "--coll: '%s' ends with a comma", spec);
    }
    memcpy(alg, out, sizeof out);
    return 0;
}

/* The choice the entries are told against: ompi when no op with a schedule has mpich and
 * some have ompi (the default on a trace Open MPI recorded), else mpich. */
static unsigned algs_base(const uint8_t alg[RT_COLL_COUNT])
{
    int ompi = 0;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        if (!rt_coll_alg_valid(op, RT_ALG_MPICH))
            continue;
        if (alg[op] == RT_ALG_MPICH)
            return RT_ALG_MPICH;
        ompi |= alg[op] == RT_ALG_OMPI;
    }
    return ompi ? RT_ALG_OMPI : RT_ALG_MPICH;
}

void rt_coll_algs_name(const uint8_t alg[RT_COLL_COUNT], char *buf, size_t len)
{
    if (!len)
        return;
    unsigned base = algs_base(alg);
    size_t n = 0;
    buf[0] = 0;
    if (base == RT_ALG_OMPI)
        n = (size_t)snprintf(buf, len, "all=ompi");
    size_t head = n;
    for (unsigned op = 0; op < RT_COLL_COUNT && n < len; op++)
        if (alg[op] != base && rt_coll_alg_valid(op, RT_ALG_MPICH)) /* ops with a schedule */
            n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? "," : "", coll_op_name(op),
                                  rt_coll_alg_name(alg[op]));
    if (n == head) /* nothing differs from the base */
        snprintf(buf, len, "%s", rt_coll_alg_name(base));
}

rt_coll_alg rt_coll_library_choice(const char *library)
{
    static const char ompi[] = "Open MPI";
    return library && !strncmp(library, ompi, sizeof ompi - 1) ? RT_ALG_OMPI : RT_ALG_MPICH;
}
