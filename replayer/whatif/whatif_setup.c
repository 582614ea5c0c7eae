/* A what-if configuration on a trace: the engine's settings, the machine shape and the
 * placement (rt_whatif.h). */
#include <stdlib.h>
#include <string.h>

#include "rt_whatif.h"

/* base: the algorithm every collective runs unless c's coll says otherwise. */
static int sim_config(const rt_whatif_conf *c, unsigned base, rt_sim_config *cfg, rt_err *err)
{
    rt_sim_config_default(cfg);
    for (unsigned op = 0; op < RT_COLL_COUNT; op++)
        cfg->alg[op] = (uint8_t)base;
    int rc = rt_whatif_check(c, cfg->alg, &cfg->compute_scale_ppm, err);
    if (rc < 0)
        return rc;
    if (c->model && (rc = rt_net_model_load(&cfg->model, c->model, err)) < 0)
        return rc;
    uint64_t e;
    if (c->eager && rt_net_parse_size(c->eager, &e, err) == 0) /* checked above */
        for (unsigned ct = 0; ct < RT_CT_COUNT; ct++)
            cfg->model.link[ct].eager = e;
    if (c->contention)
        cfg->model.contention = !strcmp(c->contention, "on");
    cfg->free_wildcards = c->free_wild;
    return 0;
}

int rt_whatif_sim_config(const rt_whatif_conf *c, unsigned base, rt_sim_config *cfg, rt_err *err)
{
    return sim_config(c, base, cfg, err);
}

int rt_whatif_traffic(const rt_map_spec *spec, const rt_sim_trace *t, rt_map_edge **edges,
                      size_t *nedges, rt_err *err)
{
    *edges = NULL;
    *nedges = 0;
    return spec->kind == RT_MAP_AUTO ? rt_sim_trace_traffic(t, edges, nedges, err) : 0;
}

int rt_whatif_setup_make(const rt_whatif_conf *c, const rt_sim_trace *t, rt_whatif_setup *su,
                         rt_err *err)
{
    const rt_defs *defs = rt_sim_trace_defs(t);
    memset(su, 0, sizeof *su);
    /* the MPI that recorded the trace chooses by default (rt_coll_library_choice) */
    int rc = sim_config(c, rt_coll_library_choice(defs->library), &su->cfg, err);
    if (rc < 0)
        return rc;
    rt_err why;
    rt_map_shape rec, given = {c->nodes, c->modules, c->rpn};
    rt_map_shape_recorded(defs, &rec);
    if (rt_map_shape_complete(&given, &rec, defs->nranks, &su->shape, &why) < 0)
        return c->alt ? rt_err_set(err, RT_E_USAGE, "--compare: '%s': %s", c->label, why.msg)
                      : rt_err_set(err, RT_E_USAGE, "%s", why.msg);
    /* another shape than the recorded one: block unless c says otherwise */
    int reshaped = memcmp(&su->shape, &rec, sizeof rec) != 0;
    rt_map_spec spec = {.kind = reshaped ? RT_MAP_BLOCK : RT_MAP_RECORDED};
    if (c->map && (rc = rt_map_parse(c->map, &spec, err)) < 0)
        return rc;
    rt_map_format(&spec, su->map_name, sizeof su->map_name);
    if (spec.kind == RT_MAP_RECORDED && !reshaped)
        return 0; /* the engine uses the trace's own placement */
    rt_map_edge *edges;
    size_t nedges;
    if ((rc = rt_whatif_traffic(&spec, t, &edges, &nedges, err)) < 0)
        return rc;
    size_t n = defs->nranks ? defs->nranks : 1;
    su->node = malloc(n * sizeof *su->node);
    su->module = malloc(n * sizeof *su->module);
    if (!su->node || !su->module)
        rc = rt_err_set(err, RT_E_NOMEM, "out of memory");
    else
        rc = rt_map_place(&spec, &su->shape, defs, edges, nedges, su->node, su->module, err);
    free(edges);
    if (rc < 0)
        return rc;
    su->cfg.node = su->node;
    su->cfg.module = su->module;
    return 0;
}

void rt_whatif_setup_free(rt_whatif_setup *su)
{
    free(su->node);
    free(su->module);
    su->node = su->module = NULL;
    su->cfg.node = su->cfg.module = NULL;
}
