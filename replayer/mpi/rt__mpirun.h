/* rt_mpirun internals, shared by the replayer/mpi_*.c files. */
#ifndef RT__MPIRUN_H
#define RT__MPIRUN_H

#include "rt_mpirun.h"
#include "rt_trace.h"
#include "rt_util.h"

#define MR_SKIP 255 /* an event kind of our own: not replayed (see the notes) */

/* One rank's part of one v-collective call (gatherv, scatterv, allgatherv, alltoallv,
 * alltoallw, reduce_scatter): what every member recorded, for the counts MPI wants. */
typedef struct mr_vpart {
    uint32_t comm, seq, pos; /* communicator, its seq-th collective, member position */
    uint64_t bytes, rbytes;
} mr_vpart;

/* The events of the trace rank this process plays, prepared for replay: an IRECV_REQUEST
 * and an NBC_REQUEST carry what their completion recorded, request ids are slot numbers,
 * and a collective keeps its sequence number on its communicator in `tag`. */
typedef struct mr_events {
    uint32_t rank; /* the trace rank; UINT32_MAX when none is loaded */
    rt_event *ev;
    uint64_t n, cap;
    uint32_t nslots;           /* requests open at once, at most */
    uint64_t max_bytes;        /* the largest buffer a call needs */
    uint64_t skipped_requests; /* receives or collectives that never completed, cancelled */
    uint64_t pending_cut;      /* 1: cut before its pending call (never returned when recorded) */
    /* A nonblocking v collective whose completion has COLL_PEER rows after it (rt_event.h):
     * its post's index -> the completion's index + 1 (a blocking one has them right after) */
    rt_hmap rows;
} mr_events;

struct rt_mpirun {
    MPI_Comm comm;  /* the caller's */
    int size, rank; /* in comm */
    char *path;
    rt_defs defs;
    mr_vpart *vparts; /* sorted by (comm, seq, pos) */
    uint64_t nvparts;
    uint64_t *win_bytes;  /* per window (defs.wins order): the largest transfer into it */
    uint64_t inter_colls; /* collectives on inter-communicators in the trace */
    uint64_t rec_messages, rec_bytes; /* point-to-point sends in the trace */
    mr_events own;
};

/* mpi_load.c */
int mr_prepass(rt_mpirun *m, rt_err *err);
int mr_load_rank(rt_mpirun *m, uint32_t rank, rt_err *err);
/* The parts of call seq on comm, in member order: n of them, NULL when unknown. */
const mr_vpart *mr_vparts_find(const rt_mpirun *m, uint32_t comm, uint32_t seq, uint32_t *n);
int mr_is_vcoll(unsigned op);

/* mpi_cvar.c: MPICH's collective algorithm variables through MPI_T; mpi_ompi.c: Open MPI's
 * (the same functions, in the Open MPI build). */
typedef struct mr_cvars mr_cvars;
int mr_cvars_set(mr_cvars **out, const uint8_t *alg, rt_err *err); /* alg per op */
/* 1 when the variables must be set before the run's communicators are made (Open MPI: a
 * communicator takes them when it is made), 0 after (MPICH reads them at every call, and
 * its communicator setup must not meet a forced algorithm). */
int mr_cvars_early(void);
/* 1 when the run forces the library's own algorithm for op. */
int mr_cvars_forced(const mr_cvars *cv, unsigned op);
/* 1 when it is forced and the library runs it for a call of bytes on p processes (Open MPI
 * silently runs another where it does not apply; MPICH refuses with an error instead). */
int mr_cvars_applies(const mr_cvars *cv, unsigned op, int p, uint64_t bytes, uint32_t esize);
void mr_cvars_restore(mr_cvars *cv); /* puts every variable back and frees cv */
/* Shared by both (mpi_cvar.c): the index of the MPI_T control variable called name, its type
 * and enumeration (either may be NULL) and description (desc may be NULL), or -RT_E_NOTFOUND
 * (none, or MPI_T cannot list them). */
int mr_cvar_find(const char *name, MPI_Datatype *dt, MPI_T_enum *et, char *desc, int desc_len);
/* A variable written, and the value it had. */
typedef struct mr_saved {
    MPI_T_cvar_handle h;
    int old;
} mr_saved;
/* Writes value into the int variable at index, its handle and old value into *s: 0, or
 * -RT_E_MPI when MPI_T refuses (not a single int, or not writable now). */
int mr_cvar_write(int index, int value, mr_saved *s);
/* Puts back the n variables of s, last written first, and frees their handles. */
void mr_cvar_restore_all(mr_saved *s, unsigned n);
/* The value of MPIR_CVAR_<OP>_INTRA_ALGORITHM that selects MPICH's algorithm mpich, read
 * off the variable's description; -RT_E_NOTFOUND when there is none. *index: the variable's
 * index. */
int mr_cvar_choice(unsigned op, const char *mpich, int *index);

/* ---- one run (mpi_run.c, mpi_coll.c) ---------------------------------------------------- */

typedef struct mr_run {
    rt_mpirun *m;
    const rt_mpirun_config *cfg;
    uint32_t me;     /* the trace rank played */
    MPI_Comm world;  /* private duplicate of m->comm */
    MPI_Comm *comms; /* per defs.comms entry: the replayed communicator or MPI_COMM_NULL */
    MPI_Comm *sched; /* per defs.comms entry: a duplicate for retrace's own schedules */
    MPI_Comm *topo;  /* per defs.comms entry: the recorded neighbour graph, where the
                      * trace has neighbour lists on it (else MPI_COMM_NULL) */
    MPI_Win *wins;   /* per defs.wins entry */
    char **win_mem;
    MPI_Group *groups; /* per defs.groups entry, built on first use (MPI_GROUP_NULL) */
    MPI_Request *reqs; /* per request slot */
    char *sbuf, *rbuf; /* scratch buffers of max_bytes (the contents do not matter) */
    uint64_t buf_bytes;
    int *counts, *displs, *rcounts, *rdispls; /* per peer, for v-collectives */
    mr_cvars *cvars;
    rt_mpirun_colls colls;
    uint64_t messages, bytes, rma_ops;
    uint64_t neighbor_colls, inter_skipped, fallbacks;
    int ready; /* mr_setup_local succeeded */
} mr_run;

/* mpi_coll.c: a blocking collective (req NULL) or a nonblocking one. 0, or a negative RT_E
 * code with err set (a failed MPI call is -RT_E_MPI with MPI's text). A call the replay
 * leaves out (r->colls.skipped says how many, and why) is 0: the same on every member. */
int mr_coll(mr_run *r, const rt_event *ev, MPI_Request *req, rt_err *err);
/* The communicator entry index of a trace communicator id; -RT_E_NOTFOUND when unknown. */
int mr_comm_index(const mr_run *r, uint32_t id);

/* mpi_run.c */
/* An MPI call's result as a retrace code: 0 for MPI_SUCCESS, else -RT_E_MPI with err saying
 * "WHAT: MPI's text for the code" (MPI_Error_string). */
int mr_mpi(int mpi_rc, const char *what, rt_err *err);
/* Every process learns the first failing process's error (rc != 0 there), prefixed with
 * that process's rank unless same_everywhere; returns its code, or 0 when none failed. */
int mr_agree(MPI_Comm comm, int rc, rt_err *err, int same_everywhere);
int mr_setup_local(mr_run *r, rt_err *err); /* memory: 0 or -RT_E_NOMEM */
int mr_setup_comms(mr_run *r, rt_err *err); /* collective: 0 or -RT_E_MPI */
/* One RMA event: 0, or a negative RT_E code with err set. */
int mr_rma(mr_run *r, const rt_event *ev, rt_err *err);
void mr_teardown(mr_run *r);

#endif /* RT__MPIRUN_H */
