/* The real hosts of the ranks (rt_host_def, rt_rank_host in rt_event.h): set, checked,
 * copied and freed with the rest of the definitions (defs.c), and the CPUs a host's ranks
 * shared, for the replay's time sharing. */
#include <stdlib.h>
#include <string.h>

#include "rt__trace.h"
#include "rt_hash.h"

int rt_host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_';
}

int rt_host_name_valid(const char *s)
{
    size_t n = strnlen(s, RT_HOST_NAME_LEN + 1);
    if (n == 0 || n > RT_HOST_NAME_LEN)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!rt_host_char(s[i]))
            return 0;
    return 1;
}

/* One number of a CPU list: digits below RT_CPU_MAX. */
static const char *cpu_number(const char *s, uint32_t *v)
{
    uint32_t x = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9' && p - s < 6; p++)
        x = x * 10 + (uint32_t)(*p - '0');
    if (p == s || x >= RT_CPU_MAX || (*p >= '0' && *p <= '9'))
        return NULL;
    *v = x;
    return p;
}

int rt_cpu_list_parse(const char *s, uint32_t *count, uint64_t *set)
{
    uint32_t n = 0, last = 0;
    int any = 0;
    if (strnlen(s, RT_CPU_LIST_LEN + 1) > RT_CPU_LIST_LEN)
        return -RT_E_RANGE;
    while (*s) {
        uint32_t a, b;
        s = cpu_number(s, &a);
        if (s && *s == '-')
            s = cpu_number(s + 1, &b);
        else
            b = a;
        /* Ascending and disjoint, as Linux writes lists: each CPU is counted once. */
        if (!s || b < a || (any && a <= last) || (*s && (*s != ',' || !s[1])))
            return -RT_E_FORMAT;
        for (uint32_t c = a; set && c <= b; c++)
            set[c / 64] |= 1ull << (c % 64);
        n += b - a + 1;
        last = b;
        any = 1;
        s += *s == ',';
    }
    if (!any)
        return -RT_E_FORMAT;
    *count = n;
    return 0;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* Index of host name in defs->hosts, added with online CPUs when new; -1 out of memory. */
static int64_t host_index(rt_defs *defs, const char *name, uint32_t online)
{
    rt_hmap *by_name = defs->host_index;
    if (!by_name && !(by_name = defs->host_index = calloc(1, sizeof *by_name)))
        return -1;
    /* Keyed by a collision count and the name's hash: names that share a hash get the keys
     * (0, h), (1, h), ... and are told apart by comparing them. */
    uint64_t h = name_hash(name), k = 0;
    for (uint64_t *at; (at = rt_hmap_get(by_name, k, h)); k++) {
        rt_host_def *x = &defs->hosts[*at];
        if (!strcmp(x->name, name)) {
            x->online = online > x->online ? online : x->online; /* a CPU brought online */
            return (int64_t)*at;
        }
    }
    rt_host_def *grown = realloc(defs->hosts, ((size_t)defs->nhosts + 1) * sizeof *grown);
    if (!grown)
        return -1;
    defs->hosts = grown;
    char *copy = strdup(name);
    uint64_t *slot = copy ? rt_hmap_put(by_name, k, h, NULL) : NULL;
    if (!slot) {
        free(copy);
        return -1;
    }
    *slot = defs->nhosts;
    grown[defs->nhosts] = (rt_host_def){.name = copy, .online = online};
    return defs->nhosts++;
}

int rt_defs_set_host(rt_defs *defs, uint32_t rank, const char *name, uint32_t online,
                     uint32_t ncpus, const char *cpus, rt_err *err)
{
    uint32_t n = 0;
    if (rank >= defs->nranks)
        return rt_err_set(err, RT_E_INVAL, "host of rank %u: no such rank", (unsigned)rank);
    if (!rt_host_name_valid(name))
        return rt_err_set(err, RT_E_FORMAT,
                          "host of rank %u: not a host name (1 to %u letters, digits, '-', '.' "
                          "and '_')",
                          (unsigned)rank, RT_HOST_NAME_LEN);
    if (cpus && rt_cpu_list_parse(cpus, &n, NULL) < 0)
        return rt_err_set(err, RT_E_FORMAT,
                          "host of rank %u: '%.32s' is not a CPU list (ascending numbers and "
                          "ranges below %u, such as 0-3,8, at most %u bytes)",
                          (unsigned)rank, cpus, RT_CPU_MAX, RT_CPU_LIST_LEN);
    if (online == 0 || online > RT_CPU_MAX || ncpus == 0 || ncpus > RT_CPU_MAX)
        return rt_err_set(err, RT_E_RANGE,
                          "host of rank %u: %u online CPUs and %u allowed (expected 1 to %u each)",
                          (unsigned)rank, (unsigned)online, (unsigned)ncpus, RT_CPU_MAX);
    if (cpus && n != ncpus)
        return rt_err_set(err, RT_E_FORMAT,
                          "host of rank %u: %u CPUs allowed, but its list %s has %u",
                          (unsigned)rank, (unsigned)ncpus, cpus, (unsigned)n);
    if (!defs->rank_host) {
        defs->rank_host = malloc((size_t)defs->nranks * sizeof *defs->rank_host);
        if (!defs->rank_host)
            return rt_err_set(err, RT_E_NOMEM, "out of memory for the hosts of %u ranks",
                              (unsigned)defs->nranks);
        for (uint32_t r = 0; r < defs->nranks; r++)
            defs->rank_host[r] = (rt_rank_host){.host = RT_ID_NONE};
    }
    rt_rank_host *rh = &defs->rank_host[rank];
    if (rh->host != RT_ID_NONE)
        return rt_err_set(err, RT_E_FORMAT, "host of rank %u given twice", (unsigned)rank);
    char *list = cpus ? strdup(cpus) : NULL;
    int64_t h = !cpus || list ? host_index(defs, name, online) : -1;
    if (h < 0) {
        free(list);
        return rt_err_set(err, RT_E_NOMEM, "out of memory for the host of rank %u", (unsigned)rank);
    }
    *rh = (rt_rank_host){.host = (uint32_t)h, .ncpus = ncpus, .cpus = list};
    return 0;
}

void rt__defs_free_hosts(rt_defs *defs)
{
    for (uint32_t r = 0; defs->rank_host && r < defs->nranks; r++)
        free(defs->rank_host[r].cpus);
    for (uint32_t h = 0; h < defs->nhosts; h++)
        free(defs->hosts[h].name);
    if (defs->host_index)
        rt_hmap_free(defs->host_index);
    free(defs->host_index);
    free(defs->rank_host);
    free(defs->hosts);
    defs->host_index = NULL;
    defs->rank_host = NULL;
    defs->hosts = NULL;
    defs->nhosts = 0;
}

int rt__defs_copy_hosts(rt_defs *dst, const rt_defs *src, rt_err *err)
{
    int rc = 0;
    for (uint32_t r = 0; src->rank_host && r < src->nranks && !rc; r++) {
        const rt_rank_host *rh = &src->rank_host[r];
        if (rh->host != RT_ID_NONE)
            rc = rt_defs_set_host(dst, r, src->hosts[rh->host].name, src->hosts[rh->host].online,
                                  rh->ncpus, rh->cpus, err);
    }
    return rc;
}

int rt_defs_host_cpus(const rt_defs *defs, uint32_t *cpus)
{
    if (!defs->nhosts)
        return 0;
    memset(cpus, 0, (size_t)defs->nhosts * sizeof *cpus);
    /* (host << 32 | rank) sorted: each host's ranks together, one CPU set at a time. */
    uint64_t *order = malloc((size_t)defs->nranks * sizeof *order);
    uint64_t *set = malloc(RT_CPU_MAX / 8);
    if (!order || !set) {
        free(order);
        free(set);
        return -RT_E_NOMEM;
    }
    size_t n = 0;
    for (uint32_t r = 0; r < defs->nranks; r++)
        if (defs->rank_host[r].host != RT_ID_NONE)
            order[n++] = (uint64_t)defs->rank_host[r].host << 32 | r;
    qsort(order, n, sizeof *order, rt_cmp_u64);
    for (size_t i = 0, j; i < n; i = j) {
        uint32_t h = (uint32_t)(order[i] >> 32), most = 0, count;
        int lists = 1;
        memset(set, 0, RT_CPU_MAX / 8);
        for (j = i; j < n && order[j] >> 32 == h; j++) {
            const rt_rank_host *rh = &defs->rank_host[(uint32_t)order[j]];
            most = rh->ncpus > most ? rh->ncpus : most;
            lists = lists && rh->cpus && rt_cpu_list_parse(rh->cpus, &count, set) == 0;
        }
        count = 0;
        for (size_t w = 0; lists && w < RT_CPU_MAX / 64; w++)
            count += (uint32_t)__builtin_popcountll(set[w]);
        /* Without every list, the widest mask is all that is known. */
        cpus[h] = lists ? count : most;
    }
    free(order);
    free(set);
    return 0;
}
