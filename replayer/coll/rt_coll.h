/*
 * rt_coll: one MPI collective call, as seen by ONE rank, expanded into the point-to-point
 * steps that rank performs under a chosen algorithm.
 *
 * The analyzer streams one rank's collective event at a time through it to count wire
 * messages (size histograms, gateway crossings); the simulator executes the same schedules.
 * Schedules are therefore globally consistent: over all ranks of a call, every SEND
 * (src -> dst, bytes) has exactly one RECV on dst with the same bytes, sends and receives of
 * one pair come in the same order (MPI non-overtaking), and the schedule cannot deadlock when
 * every rank executes its rounds in order: post every SEND and RECV of the round, wait for
 * all of them (a send may wait for its receive: rendezvous), do the round's REDUCE steps,
 * go on to the next round.
 *
 * Input sizes are the recorded ones (docs/tracer.md, "Collectives"): bytes = data this rank
 * supplies, rbytes = data it receives. From them each op derives the sizes every rank must
 * agree on: bcast n = bytes at the root, else rbytes; reduce, allreduce, scan, exscan n =
 * bytes; gather block = bytes; scatter block = rbytes; allgather block = bytes (= rbytes/p);
 * alltoall block = bytes/p; reduce_scatter total = bytes (the sum of all recvcounts);
 * reduce_scatter_block block = rbytes. Where a block of n bytes is cut into k pieces, piece i
 * has n/k bytes plus one for i < n%k, so the pieces sum to n and every rank cuts alike.
 *
 * Zero-byte messages: where every rank computes the same sizes (all ops but gatherv,
 * scatterv, alltoallv and alltoallw), a message or reduction whose size is 0 is left out on
 * both sides, as MPICH does (so a 0-byte bcast has no steps at all). Barrier messages are 0
 * bytes by nature and are kept.
 *
 * REDUCE steps: one after each received contribution that is combined, bytes = the bytes
 * combined. MPICH's recursive-doubling scan combines a lower partner's value twice (into
 * the running partial and into the result), so it has two there.
 *
 * v-variants (gatherv, scatterv, allgatherv, alltoallv, alltoallw, reduce_scatter with
 * unequal recvcounts) with their per-peer counts (sblk, rblk: the trace's COLL_PEER rows) use
 * them: alltoallv and alltoallw direct and pairwise send block dst to dst and receive block
 * src from src; gatherv and scatterv linear move block k to or from rank k at the root;
 * allgatherv and reduce_scatter cut their total by the blocks, which every rank's array
 * gives whole, under every algorithm; the neighbourhood forms move block k to out[k] and
 * from in[k]. Where a rank would forward blocks it has no counts of (binomial gatherv and
 * scatterv at inner nodes, Bruck's alltoallv), it still assumes equal blocks (*approx = 1).
 * Without rows one rank's event does not know the other ranks' counts:
 *  - What a rank knows is used as is: a gatherv leaf sends exactly `bytes`, a scatterv leaf
 *    receives exactly `rbytes`, an alltoallv rank sends `bytes` and receives `rbytes` in all.
 *  - Where other ranks' blocks are needed, blocks are assumed equal: a known total is cut
 *    into p pieces (above); a rank that knows only its own block assumes everyone's is the
 *    same; alltoallv/w cut the per-pair sizes by ring distance (piece (dst - src) mod p of
 *    the rank's total, piece 0 being the data a rank keeps), so both sides agree when all
 *    ranks' totals are equal. *approx is then set to 1.
 *  - allgatherv and reduce_scatter cut a total that every rank knows (sum of the counts),
 *    so their schedules stay consistent whatever the real counts; gatherv, scatterv and
 *    alltoallv/w keep the same shape (which pairs, how many messages, 0-byte ones included)
 *    whatever the counts, so a simulator only ever sees sizes that differ, never a missing
 *    partner.
 *
 * Reductions are assumed commutative (MPI's built-in ops); element counts are not recorded,
 * so MPICH's "count < pof2" rules use count = n / e with e the largest of 8, 4, 2, 1 that
 * divides n.
 *
 * Neighbourhood collectives (neighbor_allgather, neighbor_alltoall and their v and w forms)
 * run on the calling rank's neighbour lists (rt_coll_call.nbrs, rt_nbr_def): one round, a
 * SEND of block k to destination k for every k, then a RECV of block k from source k, in
 * list order (how MPICH posts them); an MPI_PROC_NULL slot has its block and no message.
 * Degrees count those slots, as the recorded sizes do: neighbor_allgather and
 * neighbor_alltoall send bytes/outdegree to each destination and receive rbytes/indegree
 * from each source; neighbor_allgatherv sends bytes/outdegree (its one send block) and cuts
 * rbytes into indegree pieces; neighbor_alltoallv and w cut bytes into outdegree pieces and
 * rbytes into indegree pieces (*approx = 1 when a total is cut in more than one piece). All
 * messages are kept, 0-byte ones too, as MPICH sends them. A neighbour named twice (a
 * periodic Cartesian dimension of size 1 or 2, a multigraph) gets two messages; the k-th
 * message from a to b pairs with the k-th receive on b from a (non-overtaking), so the
 * schedules of all ranks are consistent whenever the lists are (b appears in a's
 * destinations as often as a in b's sources: rt_defs_nbrs_check), and in the exact forms
 * every block on a pair has the same size, whichever slot it lands in (MPI 4.0 has the block
 * sent in the -1 direction of a periodic dimension of size 1 or 2 arrive in the receiver's
 * +1 slot).
 */
#ifndef RT_COLL_H
#define RT_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "rt_checked.h"
#include "rt_error.h"
#include "rt_event.h"

/* Algorithms: RT_ALG_MPICH, MPICH 4.0's default selection resolved per call, RT_ALG_OMPI,
 * Open MPI 4.1's, then one per row of rt_coll_algs.def, which says for each algorithm its
 * message pattern and the ops it exists for. */
// clang-format off
typedef enum rt_coll_alg {
    RT_ALG_MPICH,
    RT_ALG_OMPI,
#define RT_COLL_ALG(id, name, cells) RT_ALG_##id,
#include "rt_coll_algs.def"
#undef RT_COLL_ALG
    RT_ALG_COUNT
} rt_coll_alg;
// clang-format on

/* "binomial" for RT_ALG_BINOMIAL; NULL when out of range. */
const char *rt_coll_alg_name(unsigned alg);
/* The algorithm named name (any case), also the aliases "rdb" and "rd" (recursive_doubling)
 * and "rh" (recursive_halving); -RT_E_NOTFOUND when unknown. */
int rt_coll_alg_lookup(const char *name);
/* 1 when the algorithm exists for the op (mpich and ompi exist for every op that has a
 * schedule). */
int rt_coll_alg_valid(unsigned op, unsigned alg);
/* Writes into buf the names of the algorithms valid for op, ", " separated, "mpich" first
 * ("" for ops without a schedule); always NUL-terminated when len > 0, cut short if needed. */
void rt_coll_alg_list(unsigned op, char *buf, size_t len);
/* MPICH's name for the algorithm among the choices of MPIR_CVAR_<OP>_INTRA_ALGORITHM
 * ("scatter_recursive_doubling_allgather" for bcast, scatter_rdb); NULL when MPICH has no
 * such choice for the op (and for mpich itself). */
const char *rt_coll_mpich_name(unsigned op, unsigned alg);
/* Open MPI 4.1's number for the algorithm among the values of coll_tuned_<op>_algorithm (what
 * forces it: 6 for bcast, bmtree); 0 when Open MPI's tuned component has no such algorithm
 * for the op or does not decide the op (and for mpich and ompi themselves). */
int rt_coll_ompi_id(unsigned op, unsigned alg);
/*
 * Parses an algorithm choice "OP=ALG[,OP=ALG...]" into alg (which keeps its other entries).
 * OP is a collective op name ("allreduce") or "all" (every op the algorithm exists for).
 * Returns 0 or -RT_E_INVAL with the reason in err.
 */
int rt_coll_parse_algs(const char *spec, uint8_t alg[RT_COLL_COUNT], rt_err *err);
/* The default choice on a trace recorded by library (rt_defs.library, rt_library_name: "Open
 * MPI 4.1.4"): RT_ALG_OMPI when it names Open MPI, else RT_ALG_MPICH (MPICH, another MPI, or
 * "" for unknown). */
rt_coll_alg rt_coll_library_choice(const char *library);
/* "bcast=msa,reduce=msa" for the entries that differ from mpich ("mpich" when none); when
 * the entries are ompi's rather than mpich's (no op with a schedule has mpich, some have
 * ompi), "ompi" when all are, else "all=ompi," and the entries that differ. */
void rt_coll_algs_name(const uint8_t alg[RT_COLL_COUNT], char *buf, size_t len);

typedef struct rt_coll_call {
    unsigned op;            /* rt_coll_op */
    uint32_t size;          /* p, communicator size (intra-communicators only) */
    uint32_t me;            /* this rank's rank in the communicator */
    int32_t root;           /* root's rank; ignored for rootless ops (RT_PEER_NONE there) */
    uint64_t bytes, rbytes; /* as recorded (docs/tracer.md table) */
    const uint32_t *module; /* per communicator rank: module id; NULL = all in one module */
    const uint32_t *node;   /* per communicator rank: node id; NULL = all on one node */
    const rt_nbr_def *nbrs; /* neighbourhood collectives: this rank's neighbour lists on the
                             * communicator (rt_defs_nbrs); NULL when not recorded */
    /* The blocks of the call's count arrays, from the trace's COLL_PEER rows (rt_event.h, "The
     * per-peer counts"): sblk the send side, rblk the receive side, each indexed by block
     * (communicator rank, or neighbour slot), size (or nout, nin) long; NULL when the trace
     * has no rows for the call (its blocks are equal, or the trace does not say). */
    const uint64_t *sblk, *rblk;
    /* 1 when sblk and rblk are NULL because this rank's blocks are equal (the trace records
     * per-peer counts, RT_DEFS_COLL_PEERS, and has none for the call), not unknown: the
     * totals cut into equal blocks are then exact here. */
    int equal_blocks;
    /* Per op, the algorithm the caller was told to run for that op (a replay's --coll), or
     * NULL: Open MPI's composed algorithms (a reduce then a bcast, ...) run their parts by it
     * where it names a row of the part's op, as Open MPI runs a forced algorithm for its own
     * inner calls too, and by Open MPI's own choice where it is NULL, mpich or ompi. */
    const uint8_t *forced;
    /* The element size of the call's data in bytes (a reduction's datatype; the send side's
     * else): the trace's (rt_event.esize, RT_DEFS_ELEM_SIZES), 0 when it does not say, and then
     * rt_coll_elem_size guesses. MPICH's and Open MPI's count-dependent choices and piece cuts
     * count elements of this size. */
    uint32_t esize;
} rt_coll_call;

typedef enum rt_coll_step_kind { RT_STEP_SEND, RT_STEP_RECV, RT_STEP_REDUCE } rt_coll_step_kind;

typedef struct rt_coll_step {
    uint32_t round; /* steps of one round are posted together */
    uint8_t kind;   /* rt_coll_step_kind */
    int32_t peer;   /* communicator rank; RT_PEER_NONE for REDUCE */
    uint64_t bytes; /* message length, or bytes combined by a REDUCE */
} rt_coll_step;

typedef int (*rt_coll_emit_fn)(void *ctx, const rt_coll_step *step); /* non-zero stops */

/*
 * The algorithm MPICH 4.0 would pick for this call (never RT_ALG_MPICH): the flat
 * intra-communicator choice of MPICH 4.0.2's built-in selection table (coll_selection.json,
 * "auto"), with n the op's size as above:
 *   barrier dissemination; gather, scatter binomial; gatherv, scatterv linear;
 *   scan, exscan recursive_doubling; alltoallv, alltoallw direct;
 *   bcast: p < 8 or n <= 12288 binomial; else p a power of two and n <= 524288
 *     scatter_rdb; else scatter_ring;
 *   reduce: n <= 2048 or count < pof2 binomial; else rabenseifner;
 *   allreduce: n <= 8 or count < pof2 recursive_doubling; else rabenseifner;
 *   allgather, allgatherv (total = rbytes): p a power of two: total < 524288
 *     recursive_doubling, else ring; otherwise total < 81920 bruck, else ring;
 *   alltoall (block = bytes/p): p < 8: block <= 32768 direct, else pairwise; p >= 8:
 *     block <= 256 bruck, <= 32768 direct, else pairwise;
 *   reduce_scatter, reduce_scatter_block (total = bytes): total < 524288
 *     recursive_halving, else pairwise;
 *   neighbourhood collectives linear (MPICH 4.0 has no other).
 * Not modelled: MPICH's node-aware (SMP) variants used when a communicator spans several
 * nodes, and in-place alltoall (pairwise sendrecv_replace). RT_ALG_COUNT for ops without a
 * schedule.
 */
rt_coll_alg rt_coll_select_mpich(const rt_coll_call *c);

/*
 * The algorithm Open MPI 4.1 would pick for this call (never RT_ALG_MPICH or RT_ALG_OMPI):
 * the fixed decision rules of its coll/tuned component
 * (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, ompi_coll_tuned_<op>_intra_dec_fixed,
 * by communicator size and the op's size as tuned computes it), the algorithm number they
 * give mapped to the row of rt_coll_algs.def with that number (rt_coll_ompi_id), and
 * where Open MPI's algorithm itself falls back (Open MPI's ring allreduce with fewer
 * elements than ranks, its Rabenseifner with fewer than pof2, its recursive-doubling
 * allgather on a non-power of two, its scatter_allgather bcasts with fewer elements than
 * ranks, its split binary tree bcast with fewer than two) that fallback. Reductions are taken as
 * commutative (MPI's built-in ops) and element counts as rt_coll_elem_size says. Ops tuned does not
 * decide run coll/basic's linear algorithms: gatherv, scatterv, scan, exscan linear;
 * alltoallw direct; the neighbourhood collectives linear. Some numbers run another row
 * exactly: with the fixed rules' segment size 0 and fanout 0, bcast and reduce chain are
 * pipeline and allreduce segmented_ring is ompi_ring; alltoall linear_sync is direct and
 * two_proc pairwise, allgather and allgatherv two_proc ring, barrier two_proc
 * ompi_recursive_doubling, scatter linear_nb ompi_linear (the same messages); every other
 * number has a row of its own (docs/analyzer.md, "Open MPI's choice").
 * RT_ALG_COUNT for ops without a schedule.
 */
rt_coll_alg rt_coll_select_ompi(const rt_coll_call *c);
/* Open MPI 4.1's algorithm number for the call (what rt_coll_select_ompi maps), 0 for ops
 * tuned does not decide. */
int rt_coll_ompi_pick(const rt_coll_call *c);
/* The algorithm Open MPI 4.1 runs when its algorithm number id is forced for a call of op on p
 * ranks of bytes (the call's size as rt_coll_call.bytes has it) and element size esize
 * (rt_coll_call.esize, 0 unknown): id, or the one Open MPI's
 * algorithm hands over to (its ring allreduce with fewer elements than ranks runs recursive
 * doubling, ...: what rt_coll_select_ompi follows too). */
int rt_coll_ompi_runs(unsigned op, uint32_t p, uint64_t bytes, uint32_t esize, int id);

/* The element size n bytes are taken to have when the trace does not say (rt_coll_call.esize
 * 0: traces of tracers before sizes, other tools', derived types rt_esize_code cannot hold):
 * the largest of 8, 4, 2 and 1 bytes that divides n. */
unsigned rt_coll_elem_size(uint64_t n);
/* The element size of n bytes: known (recorded, non-zero), else rt_coll_elem_size's guess. */
static inline uint64_t rt_coll_esize(uint64_t known, uint64_t n)
{
    return known ? known : rt_coll_elem_size(n);
}
/* The element size of a collective event (COLL_END, NBC_COMPLETE): its recorded size of the
 * reduction's data or the send side, else the receive side's; 0 when the trace has none. */
static inline uint32_t rt_coll_event_esize(unsigned esize, unsigned resize)
{
    uint64_t e = rt_esize_of(esize ? esize : resize);
    return e <= UINT32_MAX ? (uint32_t)e : 0;
}

/*
 * Emits rank c->me's steps in order, rounds non-decreasing (a rank may skip round numbers).
 * alg may be RT_ALG_MPICH. *approx (may be NULL) is set to 1 when per-peer sizes had to be
 * guessed (v-variants, above), else 0.
 * Returns 0, the non-zero value of emit, -RT_E_INVAL (err says why: algorithm not valid for
 * the op, op without a schedule (handle and allocation pseudo-ops), a neighbourhood
 * collective without neighbour lists or with a neighbour out of range, size 0 or above
 * RT_MAX_RANKS, me or root out of range, bytes and rbytes inconsistent for the op) or
 * -RT_E_NOMEM (msa, msa2).
 *
 * MSA-aware algorithms (msa: modules; msa2: modules, then nodes within a module, like
 * psmpi's PSP_MSA_AWARE_COLLOPS=2). Ranks are grouped by module; a group's leader is its
 * lowest rank, except that the root leads its own group in rooted ops. At each level:
 *   bcast      binomial among the leaders from the root's leader, then the same one level
 *              down inside each group from its leader (binomial at the last level);
 *   reduce     the reverse: inside each group to its leader, then binomial among leaders;
 *   allreduce  reduce inside each group to its leader (one level down), recursive-doubling
 *              allreduce among the leaders, bcast inside each group;
 *   barrier    0-byte fan-in inside each group, dissemination among leaders, fan-out;
 *   scan, exscan  groups are the maximal runs of consecutive ranks with the same id (a
 *              prefix needs groups contiguous in rank order; with block placement these are
 *              the modules): the scan inside each run (one level down; recursive doubling
 *              at the last level), a recursive-doubling exscan of the run totals among the
 *              runs' last ranks, and a bcast of that offset from each run's last rank
 *              (runs after the first), which every member folds into its own result.
 * A level whose ranks all share one id is skipped, so with module (or node) NULL or all
 * equal msa is exactly the flat binomial, recursive_doubling or dissemination algorithm.
 */
int rt_coll_schedule(unsigned alg, const rt_coll_call *c, rt_coll_emit_fn emit, void *ctx,
                     int *approx, rt_err *err);

/* This rank's totals over a whole schedule: a convenience for counting passes and tests. */
typedef struct rt_coll_totals {
    uint64_t sends, recvs, reduces;
    rt_u128 send_bytes, recv_bytes, reduce_bytes; /* may pass 2^64 (a ring moves about 2n) */
    uint32_t rounds;                              /* distinct rounds with at least one step */
} rt_coll_totals;

int rt_coll_totals_of(unsigned alg, const rt_coll_call *c, rt_coll_totals *t, int *approx,
                      rt_err *err);

#endif /* RT_COLL_H */
