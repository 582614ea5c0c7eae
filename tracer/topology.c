/*
 * Process topologies: this rank's neighbour lists on a communicator, asked from MPI (local
 * calls, no messages) at its first neighbourhood collective there, kept for the byte counts
 * of every later one, and written once as a DEF record (rt_raw.h, rt_nbr_def).
 *
 * Why at the first neighbourhood collective rather than at Cart_create, Cart_sub,
 * Graph_create and Dist_graph_create(_adjacent): most codes with a Cartesian communicator
 * never call a neighbourhood collective (they shift with Cart_shift and Sendrecv), and they
 * would pay a definition per rank and communicator for nothing; and topologies travel to
 * the duplicates Comm_dup, Comm_idup and Comm_dup_with_info make, which creation hooks
 * would have to follow. The first collective sees every communicator a neighbourhood
 * collective uses, whatever made it, and the cost is once per communicator and rank.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt__tracer.h"

/* Serialises the first look at a communicator's topology, so that two threads starting
 * neighbourhood collectives on it at once write one definition. */
static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;

static int32_t peer_of(int r)
{
    return r == MPI_PROC_NULL || r < 0 ? RT_PEER_NONE : (int32_t)r;
}

/* The lists in MPI's neighbour order (MPI 4.0 section 8.6) into a new array: nin sources,
 * then nout destinations. 0, or -RT_E_MPI or -RT_E_NOMEM (*lists NULL). */
static int neighbours(MPI_Comm comm, int kind, int *nin, int *nout, int32_t **lists)
{
    int ok = 1, n = 0, me = 0, weighted = 0;
    int *v = NULL, *w = NULL;
    *lists = NULL;
    *nin = *nout = 0;
    if (kind == MPI_CART) {
        ok = PMPI_Cartdim_get(comm, &n) == MPI_SUCCESS && n >= 0;
        *nin = *nout = 2 * n;
    } else if (kind == MPI_GRAPH) {
        ok = PMPI_Comm_rank(comm, &me) == MPI_SUCCESS &&
             PMPI_Graph_neighbors_count(comm, me, &n) == MPI_SUCCESS && n >= 0;
        *nin = *nout = n;
    } else {
        ok = PMPI_Dist_graph_neighbors_count(comm, nin, nout, &weighted) == MPI_SUCCESS &&
             *nin >= 0 && *nout >= 0;
    }
    size_t total = ok ? (size_t)*nin + (size_t)*nout : 0;
    int32_t *out = ok ? malloc((total + 1) * sizeof *out) : NULL;
    if (ok && out) {
        v = malloc((total + 1) * sizeof *v);
        w = malloc((total + 1) * sizeof *w); /* dist graph weights: asked for, not kept */
    }
    int mem_ok = !ok || (out && v && w);
    ok = ok && mem_ok;
    if (ok && kind == MPI_CART) {
        for (int d = 0; ok && d < n; d++) /* the -1 then the +1 neighbour of dimension d */
            ok = PMPI_Cart_shift(comm, d, 1, &v[2 * d], &v[2 * d + 1]) == MPI_SUCCESS;
        memcpy(v + *nin, v, (size_t)*nin * sizeof *v);
    } else if (ok && kind == MPI_GRAPH) {
        ok = PMPI_Graph_neighbors(comm, me, n, v) == MPI_SUCCESS;
        memcpy(v + *nin, v, (size_t)*nin * sizeof *v);
    } else if (ok) {
        ok = PMPI_Dist_graph_neighbors(comm, *nin, v, w, *nout, v + *nin, w + *nin) == MPI_SUCCESS;
    }
    for (size_t i = 0; ok && i < total; i++)
        out[i] = peer_of(v[i]);
    free(v);
    free(w);
    if (!ok) {
        free(out);
        return mem_ok ? -RT_E_MPI : -RT_E_NOMEM;
    }
    *lists = out;
    return 0;
}

/* The lists as a DEF record: rt_raw_def_nbrs, then the lists. */
static void write_lists(const rt__comm *cm, uint32_t nin, uint32_t nout, const int32_t *lists)
{
    if (nin > RT_MAX_DEGREE || nout > RT_MAX_DEGREE) {
        rt__warn("rank %d: a process topology with %u sources and %u destinations is more "
                 "than a trace holds (%u); its neighbourhood collectives are recorded without "
                 "their neighbours",
                 rt__g.rank, (unsigned)nin, (unsigned)nout, (unsigned)RT_MAX_DEGREE);
        return;
    }
    size_t len = sizeof(rt_raw_def_nbrs) + ((size_t)nin + nout) * sizeof *lists;
    uint8_t *payload = malloc(len);
    if (!payload) {
        rt__fail("rank %d: out of memory for neighbour lists", rt__g.rank);
        return;
    }
    rt_raw_def_nbrs d = {.comm = cm->id, .nin = nin, .nout = nout};
    memcpy(payload, &d, sizeof d);
    memcpy(payload + sizeof d, lists, ((size_t)nin + nout) * sizeof *lists);
    rt__def_write(RT_RAW_DEF_NBRS, payload, len);
    free(payload);
}

void rt__comm_degrees(MPI_Comm comm, rt__comm *cm, uint64_t *in, uint64_t *out)
{
    if (!atomic_load_explicit(&cm->topo_ready, memory_order_acquire)) {
        pthread_mutex_lock(&topo_lock);
        if (!atomic_load_explicit(&cm->topo_ready, memory_order_relaxed)) {
            int kind = MPI_UNDEFINED, nin = 0, nout = 0;
            int32_t *lists = NULL;
            PMPI_Topo_test(comm, &kind);
            int topo = kind == MPI_CART || kind == MPI_GRAPH || kind == MPI_DIST_GRAPH;
            if (topo && neighbours(comm, kind, &nin, &nout, &lists) == 0)
                write_lists(cm, (uint32_t)nin, (uint32_t)nout, lists);
            else if (topo)
                rt__warn("rank %d: cannot tell the neighbours of a process topology; its "
                         "neighbourhood collectives are recorded without them",
                         rt__g.rank);
            free(lists);
            cm->topo_indeg = (uint32_t)nin;
            cm->topo_outdeg = (uint32_t)nout;
            atomic_store_explicit(&cm->topo_ready, 1, memory_order_release);
        }
        pthread_mutex_unlock(&topo_lock);
    }
    *in = cm->topo_indeg;
    *out = cm->topo_outdeg;
}
