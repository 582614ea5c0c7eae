/*
 * Rank placement: the mapping spec as text, machine shapes, the fixed placements (recorded,
 * block, cyclic, random, file) and the cost that auto minimises. The auto placement is in
 * map_auto.c.
 *
 * Nothing here allocates per node or per module: --nodes can be far larger than the trace's
 * rank count, so every table is sized by ranks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__map.h"
#include "rt_checked.h"
#include "rt_parse.h"
#include "rt_vec.h"

static const char *const kind_names[RT_MAP_KIND_COUNT] = {
#define X(id, name) [RT_MAP_##id] = name,
    RT_MAP_KINDS(X)
#undef X
};

/* ---- the spec as text --------------------------------------------------------------------- */

int rt_map_parse(const char *text, rt_map_spec *spec, rt_err *err)
{
    rt_map_spec s;
    memset(&s, 0, sizeof s);
    const char *colon = strchr(text, ':');
    size_t klen = colon ? (size_t)(colon - text) : strlen(text);
    const char *arg = colon ? colon + 1 : NULL;
    int kind = -RT_E_NOTFOUND; /* the lookup below */
    for (int k = 0; k < RT_MAP_KIND_COUNT; k++)
        if (strlen(kind_names[k]) == klen && !memcmp(text, kind_names[k], klen))
            kind = k;
    if (kind < 0)
        return rt_err_set(err, RT_E_INVAL,
                          "bad mapping '%s': expected recorded, block, cyclic, random:SEED, "
                          "file:FILE or auto",
                          text);
    s.kind = (rt_map_kind)kind;
    if (s.kind == RT_MAP_RANDOM) {
        rt_parse_why why;
        if (!arg)
            return rt_err_set(err, RT_E_INVAL,
                              "bad mapping '%s': random needs a seed (random:SEED)", text);
        if (rt_parse_uint(arg, 0, UINT64_MAX, &s.seed, &why) < 0)
            return rt_err_set(err, RT_E_INVAL, "bad mapping '%s': SEED must be %s", text,
                              why == RT_PARSE_LARGE ? "at most 18446744073709551615"
                                                    : "a decimal number");
    } else if (s.kind == RT_MAP_FILE) {
        if (!arg || !*arg)
            return rt_err_set(err, RT_E_INVAL, "bad mapping '%s': file needs a path (file:FILE)",
                              text);
        if (strlen(arg) >= RT_MAP_PATH_MAX)
            return rt_err_set(err, RT_E_INVAL,
                              "bad mapping 'file:%.40s...': FILE is longer than %d bytes", arg,
                              RT_MAP_PATH_MAX - 1);
        strcpy(s.path, arg);
    } else if (arg) {
        return rt_err_set(err, RT_E_INVAL, "bad mapping '%s': %s takes no argument", text,
                          kind_names[kind]);
    }
    *spec = s;
    return 0;
}

void rt_map_format(const rt_map_spec *spec, char *buf, size_t len)
{
    const char *name = (unsigned)spec->kind < RT_MAP_KIND_COUNT ? kind_names[spec->kind] : "?";
    if (spec->kind == RT_MAP_RANDOM)
        snprintf(buf, len, "%s:%llu", name, (unsigned long long)spec->seed);
    else if (spec->kind == RT_MAP_FILE)
        snprintf(buf, len, "%s:%s", name, spec->path);
    else
        snprintf(buf, len, "%s", name);
}

/* ---- shapes ------------------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Distinct values of v[0..n) (sorted in place) and the longest run of one value. */
static uint32_t distinct(uint32_t *v, uint32_t n, uint32_t *longest)
{
    qsort(v, n, sizeof *v, cmp_u32);
    uint32_t count = 0, run = 0;
    *longest = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || v[i] != v[i - 1]) {
            count++;
            run = 0;
        }
        if (++run > *longest)
            *longest = run;
    }
    return count;
}

void rt_map_shape_recorded(const rt_defs *defs, rt_map_shape *shape)
{
    uint32_t n = defs->nranks, longest;
    memset(shape, 0, sizeof *shape);
    /* Ids are whatever the trace says (a node's first world rank, PSP_SMP_NODE_ID, ...), so
     * they are counted by sorting rather than by indexing. Out of memory leaves the shape all
     * zero, which rt_map_shape_complete and rt_map_place refuse. */
    uint32_t *v = malloc(((size_t)n + 1) * sizeof *v);
    if (!v)
        return;
    memcpy(v, defs->node, (size_t)n * sizeof *v);
    shape->nodes = distinct(v, n, &shape->ranks_per_node);
    memcpy(v, defs->module, (size_t)n * sizeof *v);
    shape->modules = distinct(v, n, &longest);
    free(v);
}

int rt__map_check(const rt_map_shape *s, uint32_t nranks, rt_err *err)
{
    if (!s->nodes)
        return rt_err_set(err, RT_E_INVAL, "--nodes must be at least 1");
    if (!s->ranks_per_node)
        return rt_err_set(err, RT_E_INVAL, "--ranks-per-node must be at least 1");
    if (!s->modules)
        return rt_err_set(err, RT_E_INVAL, "--modules must be at least 1");
    uint64_t room = (uint64_t)s->nodes * s->ranks_per_node;
    if (room < nranks)
        return rt_err_set(err, RT_E_INVAL,
                          "--nodes %u --ranks-per-node %u hold %llu ranks; the trace has %u",
                          s->nodes, s->ranks_per_node, (unsigned long long)room, nranks);
    if (s->modules > s->nodes)
        return rt_err_set(err, RT_E_INVAL, "--modules %u exceeds --nodes %u", s->modules, s->nodes);
    return 0;
}

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a + b - 1) / b);
}

int rt_map_shape_complete(const rt_map_shape *given, const rt_map_shape *recorded, uint32_t nranks,
                          rt_map_shape *out, rt_err *err)
{
    rt_map_shape s;
    if (given->nodes)
        s.nodes = given->nodes;
    else if (given->ranks_per_node)
        s.nodes = ceil_div(nranks, given->ranks_per_node);
    else
        s.nodes = recorded->nodes;
    if (given->ranks_per_node)
        s.ranks_per_node = given->ranks_per_node;
    else if (given->nodes)
        s.ranks_per_node = ceil_div(nranks, given->nodes);
    else
        s.ranks_per_node = recorded->ranks_per_node;
    if (given->modules)
        s.modules = given->modules;
    else
        s.modules = recorded->modules < s.nodes ? recorded->modules : s.nodes;
    int rc = rt__map_check(&s, nranks, err);
    if (rc == 0)
        *out = s;
    return rc;
}

/* ---- fixed placements --------------------------------------------------------------------- */

static void modules_of(const rt_map_shape *s, uint32_t nranks, const uint32_t *node,
                       uint32_t *module)
{
    for (uint32_t r = 0; r < nranks; r++)
        module[r] = rt__map_module_of(s, node[r]);
}

void rt__map_block(const rt_map_shape *s, uint32_t nranks, uint32_t *node, uint32_t *module)
{
    for (uint32_t r = 0; r < nranks; r++)
        node[r] = r / s->ranks_per_node;
    modules_of(s, nranks, node, module);
}

/* splitmix64 (Steele, Lea, Flood 2014): 64-bit state, no platform dependence. */
RT_WRAPS static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound): draws below 2^64 mod bound are rejected, so there is no modulo bias
 * and the result is the same on every machine. */
RT_WRAPS static uint64_t uniform(uint64_t *x, uint64_t bound) /* 0 - bound: 2^64 - bound */
{
    uint64_t floor = (0 - bound) % bound;
    for (;;) {
        uint64_t r = splitmix64(x);
        if (r >= floor)
            return r % bound;
    }
}

/* The block slots shuffled (Fisher-Yates from the top), so node loads equal block's. */
static void place_random(uint64_t seed, const rt_map_shape *s, uint32_t nranks, uint32_t *node,
                         uint32_t *module)
{
    uint64_t x = seed;
    for (uint32_t r = 0; r < nranks; r++)
        node[r] = r / s->ranks_per_node;
    for (uint32_t i = nranks; i-- > 1;) {
        uint32_t j = (uint32_t)uniform(&x, (uint64_t)i + 1), t = node[i];
        node[i] = node[j];
        node[j] = t;
    }
    modules_of(s, nranks, node, module);
}

static int same_shape(const rt_map_shape *a, const rt_map_shape *b)
{
    return a->nodes == b->nodes && a->modules == b->modules &&
           a->ranks_per_node == b->ranks_per_node;
}

static int place_recorded(const rt_map_shape *s, const rt_defs *defs, uint32_t *node,
                          uint32_t *module, rt_err *err)
{
    rt_map_shape rec;
    rt_map_shape_recorded(defs, &rec);
    if (!rec.nodes)
        return rt_err_set(err, RT_E_NOMEM, "mapping 'recorded': out of memory");
    if (!same_shape(s, &rec))
        return rt_err_set(err, RT_E_INVAL,
                          "mapping 'recorded' needs the recorded shape (--nodes %u --modules %u "
                          "--ranks-per-node %u), not --nodes %u --modules %u --ranks-per-node %u",
                          rec.nodes, rec.modules, rec.ranks_per_node, s->nodes, s->modules,
                          s->ranks_per_node);
    memcpy(node, defs->node, (size_t)defs->nranks * sizeof *node);
    memcpy(module, defs->module, (size_t)defs->nranks * sizeof *module);
    return 0;
}

/* ---- file:FILE ---------------------------------------------------------------------------- */

typedef struct map_file {
    const char *path;
    const rt_map_shape *s;
    uint32_t nranks;
    uint32_t *node;    /* result, complete only when the file is */
    uint32_t *line_of; /* line that placed each rank, 0 = not yet */
    rt_err *err;
} map_file;

/* The next whitespace-separated token of a line: start and length. */
static size_t token(const char **p, const char **start)
{
    while (**p == ' ' || **p == '\t' || **p == '\r')
        (*p)++;
    *start = *p;
    while (**p && **p != ' ' && **p != '\t' && **p != '\r')
        (*p)++;
    return (size_t)(*p - *start);
}

/* A token of decimal digits, saturating: too large is out of range, not malformed. */
static int token_u64(const char *t, size_t n, uint64_t *v)
{
    const char *end;
    int rc = rt_parse_digits(t, &end, v);
    if (!n || end != t + n)
        return -RT_E_INVAL;
    if (rc < 0)
        *v = UINT64_MAX;
    return 0;
}

static int file_line(map_file *f, char *buf, uint32_t line)
{
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = '\0';
    const char *p = buf, *t[3];
    size_t n[3];
    for (int i = 0; i < 3; i++)
        n[i] = token(&p, &t[i]);
    if (!n[0])
        return 0; /* blank or comment only */
    uint64_t rank, nd;
    if (!n[1] || n[2] || token_u64(t[0], n[0], &rank) < 0 || token_u64(t[1], n[1], &nd) < 0)
        return rt_err_set(f->err, RT_E_INVAL, "%s:%u: expected 'RANK NODE'", f->path, line);
    if (rank >= f->nranks)
        return rt_err_set(f->err, RT_E_INVAL,
                          "%s:%u: rank %.*s is out of range (the trace has %u ranks)", f->path,
                          line, (int)(n[0] > 40 ? 40 : n[0]), t[0], f->nranks);
    if (nd >= f->s->nodes)
        return rt_err_set(f->err, RT_E_INVAL, "%s:%u: node %.*s is out of range (--nodes %u)",
                          f->path, line, (int)(n[1] > 40 ? 40 : n[1]), t[1], f->s->nodes);
    if (f->line_of[rank])
        return rt_err_set(f->err, RT_E_INVAL, "%s:%u: rank %llu appears twice (also on line %u)",
                          f->path, line, (unsigned long long)rank, f->line_of[rank]);
    f->line_of[rank] = line;
    f->node[rank] = (uint32_t)nd;
    return 0;
}

/* The first line at which a node gets more than ranks_per_node ranks. Found by sorting
 * (node, line) pairs rather than counting per node, which could need --nodes counters. */
static int file_capacity(map_file *f)
{
    uint64_t *key = malloc((size_t)f->nranks * sizeof *key);
    if (!key)
        return rt_err_set(f->err, RT_E_NOMEM, "%s: out of memory", f->path);
    uint32_t n = 0;
    for (uint32_t r = 0; r < f->nranks; r++)
        if (f->line_of[r]) /* missing ranks are reported after this */
            key[n++] = (uint64_t)f->node[r] << 32 | f->line_of[r];
    qsort(key, n, sizeof *key, rt_cmp_u64);
    uint32_t run = 0, k = f->s->ranks_per_node, bad_line = 0, bad_node = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nd = (uint32_t)(key[i] >> 32), line = (uint32_t)key[i];
        run = i && nd == (uint32_t)(key[i - 1] >> 32) ? run + 1 : 1;
        if (run == (uint64_t)k + 1 && (!bad_line || line < bad_line)) {
            bad_line = line;
            bad_node = nd;
        }
    }
    free(key);
    if (!bad_line)
        return 0;
    return rt_err_set(f->err, RT_E_INVAL,
                      "%s:%u: node %u holds more than --ranks-per-node %u ranks", f->path, bad_line,
                      bad_node, k);
}

static int read_file(map_file *f, FILE *in)
{
    char *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    for (uint32_t line = 1;; line++) {
        errno = 0;
        ssize_t got = getline(&buf, &cap, in);
        if (got < 0) {
            if (ferror(in) || !feof(in)) { /* a directory, a failing disk, no memory */
                int e = errno ? errno : EIO;
                rc = rt_err_set(f->err, e == ENOMEM ? RT_E_NOMEM : RT_E_IO, "%s:%u: read error: %s",
                                f->path, line, strerror(e));
            }
            break;
        }
        if (got && buf[got - 1] == '\n')
            buf[got - 1] = '\0';
        if ((rc = file_line(f, buf, line)) < 0)
            break;
    }
    free(buf);
    return rc;
}

static int place_file(const char *path, const rt_map_shape *s, uint32_t nranks, uint32_t *node,
                      uint32_t *module, rt_err *err)
{
    map_file f = {path, s, nranks, NULL, NULL, err};
    FILE *in = fopen(path, "r");
    if (!in) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return rt_err_set(err, RT_E_NOTFOUND, "%s: no such file", path);
        return rt_err_set(err, RT_E_IO, "%s: %s", path, strerror(e));
    }
    f.node = malloc((size_t)nranks * sizeof *f.node);
    f.line_of = calloc(nranks, sizeof *f.line_of);
    int rc = f.node && f.line_of ? read_file(&f, in)
                                 : rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
    fclose(in);
    if (rc == 0)
        rc = file_capacity(&f);
    for (uint32_t r = 0; rc == 0 && r < nranks; r++)
        if (!f.line_of[r])
            rc = rt_err_set(err, RT_E_INVAL, "%s: rank %u is missing", path, r);
    if (rc == 0) {
        memcpy(node, f.node, (size_t)nranks * sizeof *node);
        modules_of(s, nranks, node, module);
    }
    free(f.node);
    free(f.line_of);
    return rc;
}

/* ---- placement and cost ------------------------------------------------------------------- */

int rt_map_place(const rt_map_spec *spec, const rt_map_shape *shape, const rt_defs *defs,
                 const rt_map_edge *edges, size_t nedges, uint32_t *node, uint32_t *module,
                 rt_err *err)
{
    uint32_t n = defs->nranks;
    if (spec->kind == RT_MAP_RECORDED)
        return place_recorded(shape, defs, node, module, err);
    /* rt_map_shape_complete has checked the shape already; checked again because a shape
     * too small would make every placement below write past the node range. */
    int rc = rt__map_check(shape, n, err);
    if (rc < 0)
        return rc;
    switch (spec->kind) {
    case RT_MAP_BLOCK:
        rt__map_block(shape, n, node, module);
        return 0;
    case RT_MAP_CYCLIC:
        for (uint32_t r = 0; r < n; r++)
            node[r] = r % shape->nodes;
        modules_of(shape, n, node, module);
        return 0;
    case RT_MAP_RANDOM:
        place_random(spec->seed, shape, n, node, module);
        return 0;
    case RT_MAP_FILE:
        return place_file(spec->path, shape, n, node, module, err);
    case RT_MAP_AUTO:
        return rt__map_auto(shape, defs, edges, nedges, node, module, err);
    default:
        return rt_err_set(err, RT_E_INVAL, "mapping kind %d unknown", (int)spec->kind);
    }
}

void rt_map_cost(const rt_map_edge *edges, size_t nedges, const uint32_t *node,
                 const uint32_t *module, uint64_t *gw_bytes, uint64_t *net_bytes)
{
    uint64_t gw = 0, net = 0;
    for (size_t i = 0; i < nedges; i++) {
        uint32_t a = edges[i].a, b = edges[i].b;
        if (module[a] != module[b])
            gw = rt_add_sat(gw, edges[i].bytes);
        else if (node[a] != node[b])
            net = rt_add_sat(net, edges[i].bytes);
    }
    *gw_bytes = gw;
    *net_bytes = net;
}
