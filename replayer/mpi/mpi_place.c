/*
 * Where the replay's processes run and which trace rank each plays (rt_mpirun.h). Only
 * rt_mpirun_locate and rt_mpirun_machine_locate talk to MPI; the machine and the placement
 * are worked out from plain arrays, so the unit tests need no MPI.
 */
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"
#include "rt_place_mpi.h"

int rt_mpirun_locate(MPI_Comm comm, uint32_t *node, uint32_t *module, rt_err *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* the tracer's rules (formats/rt_place.h), RETRACE_EMULATE included */
    uint32_t mine[2] = {(uint32_t)rank, 0}, en = 0, em = 0, shared = (uint32_t)rank;
    const char *bad = NULL, *bad2 = NULL, *emu = getenv(RT_PLACE_EMULATE_VAR);
    int emulate = emu && *emu && rt_place_parse_emulate(emu, &en, &em) == 0;
    int have_shared = rt_place_shared_node(comm, comm, &shared); /* collective: always */
    if (emulate)
        rt_place_emulated((uint32_t)rank, (uint32_t)size, en, em, &mine[0], &mine[1]);
    else {
        if (!rt_place_env_id(RT_PLACE_NODE_VARS, &mine[0], &bad) && have_shared)
            mine[0] = shared;
        if (!rt_place_env_id(RT_PLACE_MODULE_VARS, &mine[1], &bad2))
            rt_place_info_module(&mine[1]);
    }
    int good = !bad && !bad2 && (!emu || !*emu || emulate), all_good;
    uint32_t *both = malloc((size_t)size * 2 * sizeof *both);
    int ok = both != NULL, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&good, &all_good, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok || !all_good) {
        free(both);
        return all_ok ? rt_err_set(err, RT_E_INVAL,
                                   "RETRACE_NODE_ID, PSP_SMP_NODE_ID, RETRACE_MODULE_ID, "
                                   "PSP_MSA_MODULE_ID or RETRACE_EMULATE has a bad value on "
                                   "some process")
                      : rt_err_set(err, RT_E_NOMEM, "out of memory");
    }
    MPI_Allgather(mine, 2, MPI_UINT32_T, both, 2, MPI_UINT32_T, comm);
    for (int i = 0; i < size; i++) {
        node[i] = both[2 * i];
        module[i] = both[2 * i + 1];
    }
    free(both);
    return 0;
}

/* ---- the machine ------------------------------------------------------------------------- */

int rt_mpirun_machine_make(rt_mpirun_machine *mc, uint32_t n, const uint32_t *node_id,
                           const uint32_t *module_id, rt_err *err)
{
    memset(mc, 0, sizeof *mc);
    mc->n = n;
    size_t size = n ? n : 1;
    mc->node = malloc(size * sizeof *mc->node);
    mc->module = malloc(size * sizeof *mc->module);
    uint32_t *ids = malloc(size * sizeof *ids), *count = calloc(size, sizeof *count);
    int rc =
        mc->node && mc->module && ids && count ? 0 : rt_err_set(err, RT_E_NOMEM, "out of memory");
    for (uint32_t p = 0; rc == 0 && p < n; p++) { /* dense node indexes */
        uint32_t k = 0;
        while (k < mc->nodes && ids[k] != node_id[p])
            k++;
        if (k == mc->nodes)
            ids[mc->nodes++] = node_id[p];
        mc->node[p] = k;
        mc->module[p] = module_id[p];
        if (++count[k] > mc->most)
            mc->most = count[k];
    }
    for (uint32_t p = 0; rc == 0 && p < n; p++) { /* distinct module ids */
        uint32_t q = 0;
        while (q < p && module_id[q] != module_id[p])
            q++;
        mc->modules += q == p;
    }
    free(ids);
    free(count);
    if (rc < 0)
        rt_mpirun_machine_free(mc);
    return rc;
}

int rt_mpirun_machine_locate(MPI_Comm comm, rt_mpirun_machine *mc, rt_err *err)
{
    int size;
    MPI_Comm_size(comm, &size);
    memset(mc, 0, sizeof *mc);
    uint32_t *node = malloc((size_t)size * sizeof *node);
    uint32_t *module = malloc((size_t)size * sizeof *module);
    int ok = node && module, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    int rc = all_ok ? rt_mpirun_locate(comm, node, module, err)
                    : rt_err_set(err, RT_E_NOMEM, "out of memory");
    if (rc == 0) {
        rc = rt_mpirun_machine_make(mc, (uint32_t)size, node, module, err);
        rc = mr_agree(comm, rc, err, 0);
    }
    free(node);
    free(module);
    if (rc < 0)
        rt_mpirun_machine_free(mc);
    return rc;
}

void rt_mpirun_machine_free(rt_mpirun_machine *mc)
{
    free(mc->node);
    free(mc->module);
    memset(mc, 0, sizeof *mc);
}

/* ---- the placement of trace ranks on processes ------------------------------------------- */

int rt_mpirun_placement_init(rt_mpirun_placement *pl, uint32_t n, rt_err *err)
{
    memset(pl, 0, sizeof *pl);
    size_t size = n ? n : 1;
    pl->n = n;
    pl->play = malloc(size * sizeof *pl->play);
    pl->node = malloc(size * sizeof *pl->node);
    pl->module = malloc(size * sizeof *pl->module);
    if (pl->play && pl->node && pl->module)
        return 0;
    rt_mpirun_placement_free(pl);
    return rt_err_set(err, RT_E_NOMEM, "out of memory");
}

void rt_mpirun_placement_free(rt_mpirun_placement *pl)
{
    free(pl->play);
    free(pl->node);
    free(pl->module);
    memset(pl, 0, sizeof *pl);
}

/* play[p] for every process p: the trace ranks the placement puts on node k go to node k's
 * processes, both in rank order. */
static int assign(const rt_mpirun_machine *mc, const uint32_t *node_of, const char *map_name,
                  uint32_t *play, rt_err *err)
{
    uint32_t n = mc->n, *next = calloc(mc->nodes ? mc->nodes : 1, sizeof *next);
    if (!next)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    int rc = 0;
    for (uint32_t r = 0; rc == 0 && r < n; r++) {
        uint32_t k = node_of[r], seen = 0, p = 0;
        for (; k < mc->nodes && p < n; p++)
            if (mc->node[p] == k && seen++ == next[k])
                break;
        if (k >= mc->nodes || p == n)
            rc = rt_err_set(err, RT_E_INVAL,
                            "--map %s: node %u gets more ranks than it has processes", map_name,
                            (unsigned)k);
        else {
            next[k]++;
            play[p] = r;
        }
    }
    free(next);
    return rc;
}

int rt_mpirun_place(const rt_map_spec *spec, const rt_defs *defs, const rt_map_edge *edges,
                    size_t nedges, const rt_mpirun_machine *mc, rt_mpirun_placement *pl,
                    rt_err *err)
{
    uint32_t n = mc->n;
    if (pl->n != n || defs->nranks != n)
        return rt_err_set(err, RT_E_INVAL, "%u processes for a trace of %u ranks", (unsigned)n,
                          (unsigned)defs->nranks);
    char name[sizeof pl->map_name];
    rt_map_format(spec, name, sizeof name);
    size_t size = n ? n : 1;
    uint32_t *play = malloc(size * sizeof *play);
    uint32_t *tn = malloc(size * sizeof *tn), *tm = malloc(size * sizeof *tm);
    int rc = play && tn && tm ? 0 : rt_err_set(err, RT_E_NOMEM, "out of memory");
    for (uint32_t p = 0; rc == 0 && p < n; p++)
        play[p] = p;
    if (rc == 0 && spec->kind != RT_MAP_RECORDED) {
        rt_map_shape shape = {mc->nodes, mc->modules, mc->most};
        rc = rt_map_place(spec, &shape, defs, edges, nedges, tn, tm, err);
        if (rc == 0)
            rc = assign(mc, tn, name, play, err);
    }
    if (rc == 0) { /* done: into pl */
        memcpy(pl->play, play, n * sizeof *play);
        for (uint32_t p = 0; p < n; p++) {
            pl->node[play[p]] = mc->node[p];
            pl->module[play[p]] = mc->module[p];
        }
        memcpy(pl->map_name, name, sizeof name);
    }
    free(play);
    free(tn);
    free(tm);
    return rc;
}
