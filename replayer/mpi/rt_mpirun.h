/*
 * rt_mpirun: replay a trace on a real MPI library (`retrace replay --engine mpi`).
 *
 * Every MPI process plays one trace rank: it re-issues that rank's recorded communication
 * with real MPI calls (same sizes, peers, tags, communicators, nonblocking structure and RMA
 * epochs) and spends each recorded gap between two MPI calls as busy time. All functions
 * here are collective over the communicator given to rt_mpirun_open and must be called by
 * every process with the same arguments (except where noted). They never call MPI_Abort or
 * exit: a failure is returned, and the caller decides (docs/replay.md, "Real MPI").
 *
 * The replay runs on private duplicates of the communicators: its traffic cannot meet the
 * caller's. MPI must be initialised; MPI_T (for the collective algorithm variables) is
 * initialised and finalised here.
 */
#ifndef RT_MPIRUN_H
#define RT_MPIRUN_H

#include <mpi.h>
#include <stdint.h>

#include "rt_coll.h"
#include "rt_error.h"
#include "rt_event.h"
#include "rt_map.h"

/* Where this process runs: its node and module id, as the tracer finds them (rt_place.h,
 * "Connection types": RETRACE_NODE_ID or PSP_SMP_NODE_ID, else the lowest world rank of its
 * MPI_COMM_TYPE_SHARED group; RETRACE_MODULE_ID or PSP_MSA_MODULE_ID, else 0). Collective;
 * fills node[] and module[] for every process of comm (arrays of its size). */
int rt_mpirun_locate(MPI_Comm comm, uint32_t *node, uint32_t *module, rt_err *err);

/* The processes' machine: nodes as dense indexes 0 .. nodes-1 in order of first appearance. */
typedef struct rt_mpirun_machine {
    uint32_t n, nodes, modules, most; /* processes, nodes, modules, most processes on a node */
    uint32_t *node, *module;          /* per process: dense node index, module id */
} rt_mpirun_machine;

/* The machine of n processes from each one's node and module id (as rt_mpirun_locate gives
 * them). No MPI. mc is to be freed when this returns 0. */
int rt_mpirun_machine_make(rt_mpirun_machine *mc, uint32_t n, const uint32_t *node_id,
                           const uint32_t *module_id, rt_err *err);
/* The machine comm's processes run on: rt_mpirun_locate, then rt_mpirun_machine_make.
 * Collective; the result is the same on every process. */
int rt_mpirun_machine_locate(MPI_Comm comm, rt_mpirun_machine *mc, rt_err *err);
void rt_mpirun_machine_free(rt_mpirun_machine *mc);

/* Which trace rank each process plays, and where each trace rank runs then. */
typedef struct rt_mpirun_placement {
    uint32_t n;              /* processes, and trace ranks */
    uint32_t *play;          /* per process: the trace rank it plays */
    uint32_t *node, *module; /* per trace rank: the machine's dense node index, module id */
    char map_name[RT_MAP_PATH_MAX + 16]; /* the placement as the user would type it */
} rt_mpirun_placement;

/* Arrays for n processes (contents undefined until rt_mpirun_place). */
int rt_mpirun_placement_init(rt_mpirun_placement *pl, uint32_t n, rt_err *err);
void rt_mpirun_placement_free(rt_mpirun_placement *pl);

/*
 * Places the trace's ranks (defs->nranks, as many as the machine has processes) on the
 * machine by spec. recorded: process p plays trace rank p. Any other spec places the ranks
 * on the machine's shape (its nodes, modules and most processes on a node; rt_map_place,
 * with the traffic edges for auto), then the ranks placed on node k go to node k's
 * processes, both in rank order: -RT_E_INVAL "--map SPEC: node K gets more ranks than it
 * has processes" when a node has fewer processes than the spec gives it ranks. No MPI. On
 * failure pl is unchanged.
 */
int rt_mpirun_place(const rt_map_spec *spec, const rt_defs *defs, const rt_map_edge *edges,
                    size_t nedges, const rt_mpirun_machine *mc, rt_mpirun_placement *pl,
                    rt_err *err);

/* Before MPI_Init: what the MPI library must be told at start for algorithms to be forced
 * (Open MPI: OMPI_MCA_coll_tuned_use_dynamic_rules=1 in the environment, unless it is set;
 * MPICH: nothing). */
void rt_mpirun_prepare(void);

typedef struct rt_mpirun rt_mpirun;

/* Opens the trace at path for a replay on the processes of comm (as many as the trace has
 * ranks). Every process reads the trace's definitions and the facts a replay needs from all
 * ranks (v-collective counts, window sizes); its own events are read by rt_mpirun_run.
 * The error, if any, is the same on every process. */
int rt_mpirun_open(MPI_Comm comm, const char *path, rt_mpirun **out, rt_err *err);
const rt_defs *rt_mpirun_defs(const rt_mpirun *m);
void rt_mpirun_close(rt_mpirun *m);
/* The point-to-point messages (sends) the trace holds, and their bytes. */
void rt_mpirun_recorded(const rt_mpirun *m, uint64_t *messages, uint64_t *bytes);

typedef struct rt_mpirun_config {
    uint8_t alg[RT_COLL_COUNT]; /* blocking collectives: rt_coll_alg per op (RT_ALG_MPICH:
                                 * MPICH's own choice, as in the recorded run) */
    const uint32_t *play;       /* per process of comm: the trace rank it plays; NULL:
                                 * process i plays rank i */
    const uint32_t *node;       /* per trace rank: node id where it runs (for the MSA-aware
                                 * schedules); NULL: all on one node */
    const uint32_t *module;     /* per trace rank: module id; NULL: all in one module */
    int free_wildcards;         /* post recorded wildcard receives with their wildcards */
    double compute_scale;       /* recorded gaps are spent times this (1: as recorded) */
} rt_mpirun_config;

void rt_mpirun_config_default(rt_mpirun_config *c);

/* How the collective calls of a run were executed (each process's calls, summed). */
typedef struct rt_mpirun_colls {
    uint64_t mpich;       /* by MPICH with its own selection */
    uint64_t nonblocking; /* of those, nonblocking ones (no algorithm is forced for them) */
    uint64_t forced;      /* by MPICH with the chosen algorithm forced (MPIR_CVAR_*_ALGORITHM) */
    uint64_t schedule;    /* as retrace's point-to-point schedule over MPI (MPICH lacks the
                           * algorithm, or refused it for the call) */
    uint64_t skipped;     /* not replayed (see the notes) */
} rt_mpirun_colls;

typedef struct rt_mpirun_result {
    double time_s;     /* run time: the latest end minus the common start (a barrier) */
    double mpi_s;      /* time inside MPI calls, summed over processes */
    double compute_s;  /* busy time spent for the recorded gaps, summed over processes */
    uint64_t messages; /* point-to-point messages sent, summed over processes */
    uint64_t bytes;    /* their bytes */
    uint64_t rma_ops;  /* put, get, accumulate and atomic operations issued */
    rt_mpirun_colls colls;
    uint32_t nranks;
    double *end_s;      /* per trace rank: when it left its last call (root only) */
    double *rank_mpi_s; /* per trace rank: time inside MPI calls (root only) */
    char *notes;        /* what was approximated or left out; NULL if nothing (root only) */
    int stuck; /* after a failure: 1 when this process failed alone in the middle of the replay
                * (an MPI call failed, or memory ran out); the others may then wait for it
                * forever, so the caller should end the job (MPI_Abort) */
} rt_mpirun_result;

/* Replays the trace once under c; the result's totals are on every process, the per-rank
 * arrays and notes on rank 0 of comm only. Returns 0, or a negative RT_E code: either one
 * that every process returns alike (nothing was replayed; res->stuck 0), or this process's
 * failure in the middle of the replay (res->stuck 1; err names the process, the trace rank
 * and the event: -RT_E_MPI for a failed MPI call, with MPI's text, -RT_E_NOMEM when memory
 * ran out). */
int rt_mpirun_run(rt_mpirun *m, const rt_mpirun_config *c, rt_mpirun_result *res, rt_err *err);
void rt_mpirun_result_free(rt_mpirun_result *res);

/* The MPICH algorithm (the value of MPIR_CVAR_<OP>_INTRA_ALGORITHM) that runs alg for op in
 * this MPI library, written into buf; 0 when there is one, -RT_E_NOTFOUND when the library has
 * none (the replay then runs retrace's own schedule). Needs MPI and MPI_T initialised (as after
 * rt_mpirun_open). */
int rt_mpirun_mpich_alg(unsigned op, unsigned alg, char *buf, size_t len);

/* MPICH's own algorithm for op forced in this process, the way the replay forces it
 * (MPIR_CVAR_<OP>_INTRA_ALGORITHM through MPI_T, with MPIR_CVAR_DEVICE_COLLECTIVES=none and
 * MPIR_CVAR_COLLECTIVE_FALLBACK=error: a call it does not apply to fails with an MPI error,
 * which a communicator with MPI_ERRORS_RETURN returns), for the blocking collectives of every
 * communicator from now on, until rt_mpirun_unforce puts the variables back. Every process
 * that calls op must force alike. 0 with *out set; -RT_E_NOTFOUND when the library has no such
 * algorithm to force at run time (MPICH has no name for alg, or this is Open MPI, whose
 * communicators take their algorithm when they are made); another negative code with err set. */
typedef struct rt_mpirun_forced rt_mpirun_forced;
int rt_mpirun_force(unsigned op, unsigned alg, rt_mpirun_forced **out, rt_err *err);
void rt_mpirun_unforce(rt_mpirun_forced *f);

#endif /* RT_MPIRUN_H */
