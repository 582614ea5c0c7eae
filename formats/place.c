/* Node and module ids from the environment (rt_place.h). */
#include <stdlib.h>
#include <string.h>

#include "rt_parse.h"
#include "rt_place.h"

int rt_place_parse_id(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!s || rt_parse_uint(s, 0, UINT32_MAX, &v, NULL) < 0)
        return -RT_E_INVAL;
    *out = (uint32_t)v;
    return 0;
}

int rt_place_env_id(const char *a, const char *b, uint32_t *id, const char **bad)
{
    const char *names[2] = {a, b};
    if (bad)
        *bad = NULL;
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        if (!v || !*v)
            continue;
        if (rt_place_parse_id(v, id) == 0)
            return 1;
        if (bad && !*bad)
            *bad = names[i];
    }
    return 0;
}

int rt_place_parse_emulate(const char *v, uint32_t *nodes, uint32_t *modules)
{
    char buf[128];
    if (strlen(v) >= sizeof buf)
        return -RT_E_INVAL;
    strcpy(buf, v);
    *nodes = 0;
    *modules = 1;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return -RT_E_INVAL;
        *eq = 0;
        uint32_t *dst = !strcmp(tok, "nodes") ? nodes : !strcmp(tok, "modules") ? modules : NULL;
        if (!dst || rt_place_parse_id(eq + 1, dst) < 0 || *dst == 0)
            return -RT_E_INVAL;
    }
    return *nodes ? 0 : -RT_E_INVAL;
}

void rt_place_emulated(uint32_t rank, uint32_t nranks, uint32_t nodes, uint32_t modules,
                       uint32_t *node, uint32_t *module)
{
    uint32_t per_node = (uint32_t)(((uint64_t)nranks + nodes - 1) / nodes);
    uint32_t per_module = (uint32_t)(((uint64_t)nodes + modules - 1) / modules);
    *node = rank / (per_node ? per_node : 1);
    *module = *node / (per_module ? per_module : 1);
}

/* How many of n groups of ceil(items / n) items each hold one at least. */
static uint32_t groups_used(uint32_t items, uint32_t n, uint32_t *per)
{
    *per = (uint32_t)(((uint64_t)items + n - 1) / n);
    return *per ? (uint32_t)(((uint64_t)items + *per - 1) / *per) : 0;
}

int rt_place_check_emulated(uint32_t nranks, uint32_t nodes, uint32_t modules, rt_err *err)
{
    uint32_t per, used;
    if (nranks && (used = groups_used(nranks, nodes, &per)) < nodes)
        return rt_err_set(err, RT_E_INVAL,
                          "%u nodes for %u rank%s leave %u node%s without a rank (ranks go "
                          "block-wise, %u per node)",
                          (unsigned)nodes, (unsigned)nranks, nranks == 1 ? "" : "s",
                          (unsigned)(nodes - used), nodes - used == 1 ? "" : "s", (unsigned)per);
    if ((used = groups_used(nodes, modules, &per)) < modules)
        return rt_err_set(err, RT_E_INVAL,
                          "%u modules for %u node%s leave %u module%s without a node (nodes go "
                          "block-wise, %u per module)",
                          (unsigned)modules, (unsigned)nodes, nodes == 1 ? "" : "s",
                          (unsigned)(modules - used), modules - used == 1 ? "" : "s",
                          (unsigned)per);
    return 0;
}
