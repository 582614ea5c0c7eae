/*
 * The definition records of retrace's CSV trace form (csv_reader.c): ranks, proc, comm,
 * group, win, win_name, win_info, neighbors and host, each a line before the first event, checked
 * field by field and added to the reader's definitions.
 */
#include <stdlib.h>
#include <string.h>

#include "rt__csv.h"

/* ---- values ---------------------------------------------------------------------------------- */

static size_t count_list(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == ' ';
    return n;
}

/* World ranks separated by single spaces; the field is split in place. */
static int parse_list(char *s, const char *what, uint32_t *dst, rt_err *e)
{
    if (!*s)
        return rt_err_set(e, RT_E_FORMAT, "field %s is empty", what);
    for (;;) {
        char *sp = strchr(s, ' ');
        if (sp)
            *sp = '\0';
        uint64_t v;
        int rc = rt__csv_get_u(s, UINT32_MAX, what, &v, e);
        if (rc)
            return rc;
        *dst++ = (uint32_t)v;
        if (!sp)
            return 0;
        s = sp + 1;
    }
}

/* The member lists of a comm or group record from field i on: MEMBERS, then REMOTE when
 * nlists is 2. n[k] is each list's length; *m is a new array of both. */
static int parse_members(rt__csv_reader *cr, int i, int nlists, uint32_t **m, size_t n[2],
                         rt_err *e)
{
    static const char *const what[2] = {"MEMBERS", "REMOTE"};
    n[0] = n[1] = 0;
    for (int k = 0; k < nlists; k++)
        n[k] = *rt__csv_fld(cr, i + k) ? count_list(rt__csv_fld(cr, i + k)) : 0;
    if (n[0] + n[1] > UINT32_MAX)
        return rt_err_set(e, RT_E_INVAL, "too many members");
    if (!(*m = malloc((n[0] + n[1] + 1) * sizeof **m)))
        return rt_err_set(e, RT_E_NOMEM, "out of memory for %zu members", n[0] + n[1]);
    int rc = 0;
    for (int k = 0; k < nlists && !rc; k++)
        rc = parse_list(rt__csv_fld(cr, i + k), what[k], *m + (k ? n[0] : 0), e);
    if (rc) {
        free(*m);
        *m = NULL;
    }
    return rc;
}

/* ---- records --------------------------------------------------------------------------------- */

/* Definition records get their leading numeric fields parsed into v[] before they run. */
static int def_ranks(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    if (cr->have_ranks)
        return rt_err_set(e, RT_E_FORMAT, "ranks given twice");
    int rc = rt_defs_init(&r->defs, v[0], e);
    cr->have_ranks = !rc;
    return rc;
}

/* "mpi_library,NAME": the MPI library that recorded the trace (rt_library_name). */
static int def_library(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    (void)v;
    char sb[RT__CSV_SHOW_LEN];
    const char *name = rt__csv_fld(cr, 1);
    if (!cr->have_ranks)
        return rt_err_set(e, RT_E_FORMAT, "mpi_library before ranks");
    if (r->defs.library[0])
        return rt_err_set(e, RT_E_FORMAT, "mpi_library given twice");
    if (!*name || !rt_library_valid(name, sizeof r->defs.library))
        return rt_err_set(e, RT_E_INVAL,
                          "mpi_library: '%s' is not a library's name (at most %zu letters, digits, "
                          "blanks and ._+-)",
                          rt__csv_show(sb, name), sizeof r->defs.library - 1);
    memcpy(r->defs.library, name, strlen(name) + 1);
    return 0;
}

static int def_proc(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    uint32_t rank = v[0];
    if (rank >= r->defs.nranks)
        return rt_err_set(e, RT_E_INVAL, "proc: rank %u is not a world rank (0 to %u)",
                          (unsigned)rank, (unsigned)r->defs.nranks - 1);
    if (!cr->proc_seen && !(cr->proc_seen = calloc(r->defs.nranks / 8 + 1, 1)))
        return rt_err_set(e, RT_E_NOMEM, "out of memory");
    unsigned char bit = (unsigned char)(1u << (rank % 8));
    if (cr->proc_seen[rank / 8] & bit)
        return rt_err_set(e, RT_E_INVAL, "proc: rank %u given twice", (unsigned)rank);
    cr->proc_seen[rank / 8] |= bit;
    r->defs.node[rank] = v[1];
    r->defs.module[rank] = v[2];
    return 0;
}

static int def_comm(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    if (v[0] == RT_COMM_WORLD || v[0] == RT_COMM_SELF)
        return rt_err_set(e, RT_E_INVAL, "communicator %u is predefined", (unsigned)v[0]);
    int inter = cr->nfields == 6;
    uint32_t *m;
    size_t n[2];
    int rc = parse_members(cr, 4, inter ? 2 : 1, &m, n, e);
    if (rc)
        return rc;
    rc = rt_defs_add_comm(&r->defs, v[0], v[1], inter ? RT_COMM_IS_INTER : 0, (uint32_t)n[0],
                          (uint32_t)n[1], m, rt__csv_fld(cr, 3), e);
    free(m);
    return rc;
}

static int def_group(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    uint32_t *m;
    size_t n[2];
    int rc = parse_members(cr, 2, 1, &m, n, e);
    if (rc)
        return rc;
    rc = rt_defs_add_group(&r->defs, v[0], (uint32_t)n[0], m, e);
    free(m);
    return rc;
}

static int def_win(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    (void)cr;
    return rt_defs_add_win(&r->defs, v[0], v[1], e);
}

/* A window's name, one of its info keys (rt_win_def: the limits). */
static int def_win_name(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    return rt_defs_set_win_name(&r->defs, v[0], rt__csv_fld(cr, 2), e);
}

static int def_win_info(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    return rt_defs_add_win_info(&r->defs, v[0], rt__csv_fld(cr, 2), rt__csv_fld(cr, 3), e);
}

/* The real host of a rank: host,R,ONLINE,NCPUS,NAME[,CPUS] (rt_defs_set_host). */
static int def_host(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    const char *cpus = cr->nfields > 5 ? rt__csv_fld(cr, 5) : NULL;
    return rt_defs_set_host(&r->defs, v[0], rt__csv_fld(cr, 4), v[1], v[2], cpus, e);
}

/* A neighbour list: communicator ranks or "none" (MPI_PROC_NULL), single spaces between
 * them; an empty field is an empty list. *v is a new array (n entries). */
static int parse_nbr_list(char *s, const char *what, int32_t **v, uint32_t *n, rt_err *e)
{
    size_t len = *s ? count_list(s) : 0;
    *n = 0;
    if (len > RT_MAX_DEGREE)
        return rt_err_set(e, RT_E_INVAL, "field %s has %zu entries, more than %u", what, len,
                          (unsigned)RT_MAX_DEGREE);
    if (!(*v = malloc((len + 1) * sizeof **v)))
        return rt_err_set(e, RT_E_NOMEM, "out of memory for %zu neighbours", len);
    for (size_t i = 0; i < len; i++) {
        char *sp = strchr(s, ' ');
        if (sp)
            *sp = '\0';
        uint64_t x;
        int rc = 0;
        if (!strcmp(s, "none"))
            (*v)[i] = RT_PEER_NONE;
        else if ((rc = rt__csv_get_u(s, INT32_MAX, what, &x, e)) == 0)
            (*v)[i] = (int32_t)x;
        if (rc) {
            free(*v);
            *v = NULL;
            return rc;
        }
        s = sp ? sp + 1 : s + strlen(s);
    }
    *n = (uint32_t)len;
    return 0;
}

static int def_nbrs(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e)
{
    int32_t *in = NULL, *out = NULL;
    uint32_t nin, nout;
    int rc = parse_nbr_list(rt__csv_fld(cr, 3), "SOURCES", &in, &nin, e);
    if (!rc)
        rc = parse_nbr_list(rt__csv_fld(cr, 4), "DESTINATIONS", &out, &nout, e);
    if (!rc)
        rc = rt_defs_add_nbrs(&r->defs, v[0], v[1], nin, in, nout, out, e);
    free(in);
    free(out);
    return rc;
}

static const struct def_record {
    const char *name;
    size_t lo, hi;      /* number of fields */
    const char *num[3]; /* the uint32 fields from the second on; PARENT may be empty (none) */
    int (*add)(rt_reader *r, rt__csv_reader *cr, const uint32_t *v, rt_err *e);
    uint32_t flag; /* add NULL: a line of one word that sets this rt_defs flag */
} def_records[] = {
    {"ranks", 2, 2, {"N"}, def_ranks, 0},
    {"proc", 4, 4, {"R", "NODE", "MODULE"}, def_proc, 0},
    {"comm", 5, 6, {"ID", "PARENT"}, def_comm, 0},
    {"group", 3, 3, {"ID"}, def_group, 0},
    {"win", 3, 3, {"ID", "COMM"}, def_win, 0},
    {"win_name", 3, 3, {"ID"}, def_win_name, 0},
    {"win_info", 4, 4, {"ID"}, def_win_info, 0},
    {"neighbors", 5, 5, {"COMM", "RANK"}, def_nbrs, 0},
    {"host", 5, 6, {"R", "ONLINE", "NCPUS"}, def_host, 0},
    /* the trace records per-peer counts, element sizes */
    {"peer_counts", 1, 1, {NULL}, NULL, RT_DEFS_COLL_PEERS},
    {"elem_sizes", 1, 1, {NULL}, NULL, RT_DEFS_ELEM_SIZES},
    {"mpi_library", 2, 2, {NULL}, def_library, 0},
    {"buffers", 1, 1, {NULL}, NULL, RT_DEFS_BUFFERS}, /* buffers and window memory */
};

static int definition(rt_reader *r, rt__csv_reader *cr, const struct def_record *d, rt_err *e)
{
    if (cr->in_events)
        return rt_err_set(e, RT_E_FORMAT, "definition after the first event");
    if (cr->nfields < d->lo || cr->nfields > d->hi)
        return d->lo == d->hi ? rt_err_set(e, RT_E_FORMAT, "%s has %zu fields, expected %zu",
                                           d->name, cr->nfields, d->lo)
                              : rt_err_set(e, RT_E_FORMAT, "%s has %zu fields, expected %zu or %zu",
                                           d->name, cr->nfields, d->lo, d->hi);
    uint32_t v[3] = {0, 0, 0};
    for (int i = 0; i < 3 && d->num[i]; i++) {
        uint64_t x = RT_ID_NONE;
        int rc = 0;
        if (*rt__csv_fld(cr, i + 1) || strcmp(d->num[i], "PARENT"))
            rc = rt__csv_get_u(rt__csv_fld(cr, i + 1), UINT32_MAX, d->num[i], &x, e);
        if (rc)
            return rc;
        v[i] = (uint32_t)x;
    }
    if (!d->add) {
        r->defs.flags |= d->flag;
        return 0;
    }
    return d->add(r, cr, v, e);
}

int rt__csv_definition(rt_reader *r, rt__csv_reader *cr, rt_err *e)
{
    char sb[RT__CSV_SHOW_LEN];
    const char *first = rt__csv_fld(cr, 0);
    for (size_t i = 0; i < sizeof def_records / sizeof *def_records; i++)
        if (!strcmp(first, def_records[i].name)) {
            int rc = definition(r, cr, &def_records[i], e);
            return rc ? rc : 2;
        }
    return rt_err_set(e, RT_E_FORMAT, "unknown record '%s'", rt__csv_show(sb, first));
}
