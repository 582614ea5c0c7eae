/*
 * The network and cost model: LogGP-flavoured alpha-beta per connection type, read from the
 * text model file that docs/model.md describes. `retrace pipeline` and the built-in replay
 * simulator both use it. Times are integer picoseconds so that sums are exact and runs
 * deterministic; bandwidths are whole bytes per second.
 */
#ifndef RT_NET_H
#define RT_NET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_coll.h"
#include "rt_error.h"
#include "rt_event.h"

/* How long one message keeps its sender from injecting the next (the simulator's one-port
 * rule). MESSAGE: o + wire, until the last byte is at the receiver, the alpha-beta model of the
 * collective cost formulas (a rank sends one message at a time). BYTES: o + n/B (at least
 * the gap g): LogGP, where latency overlaps the next injection. */
enum { RT_NET_INJECT_MESSAGE = 0, RT_NET_INJECT_BYTES = 1 };

/* One connection type's parameters ([loop], [shm], [net], [gw] in the file). */
typedef struct rt_net_link {
    uint64_t latency_ps;      /* L: first byte from sender to receiver */
    uint64_t overhead_ps;     /* o: CPU time to inject or take out one message (each side) */
    uint64_t gap_ps;          /* g: minimum time between two injections by one rank */
    uint64_t bandwidth;       /* B: bytes per second, > 0 */
    uint64_t eager;           /* messages of up to this many bytes are eager, larger rendezvous */
    uint64_t eager_bandwidth; /* bytes per second of eager messages; 0: bandwidth */
    uint64_t rendezvous_ps;   /* extra wire time of a rendezvous message (handshake work the
                               * request and answer latencies leave out); 0 by default */
} rt_net_link;

/* The CPU time one MPI function costs its caller beyond what the messages it sends cost
 * ([calls] in the file): the software path of the library (argument checks, request set-up,
 * local copies, the bookkeeping of a collective or an RMA epoch). Charged to the calling rank
 * when it enters the call, as time in MPI: fixed_ps + n / bandwidth, n being the call's
 * bytes (its first operation's: the message of a send or receive, what a collective sends
 * from this rank, what an RMA call moves; 0 for a call with none). Zero by default. */
typedef struct rt_net_call {
    uint64_t fixed_ps;
    uint64_t bandwidth; /* bytes per second of the per-byte part; 0: none */
} rt_net_call;

/* link[RT_CT_NONE] is always a copy of link[RT_CT_NET]: an unknown connection type costs
 * what a network message costs. The functions below map RT_CT_NONE (and any out-of-range
 * type) to RT_CT_NET themselves. */
/* The default timeslice: 4 ms, a Linux scheduler tick at HZ=250 (Debian's kernels), which is
 * how long a rank polling beside another on one core runs before it is switched out. */
#define RT_NET_TIMESLICE_DEFAULT 4000000000ULL

/* What a rank that waits in a call does with its core when ranks share cores (model key
 * `waiting`): YIELD gives it to a rank of its group that wants to run, as Open MPI does when
 * oversubscribed (mpi_yield_when_idle, which mpirun sets then); POLL keeps it for its whole
 * turn (fixed round-robin turns), as MPICH's polling does; AUTO (the default) yields for a
 * trace recorded with Open MPI and polls for any other. */
enum { RT_NET_WAIT_AUTO, RT_NET_WAIT_YIELD, RT_NET_WAIT_POLL };

/* The most gateways a model file may name: gateways are nodes, and no replay has more nodes
 * than ranks (RT_MAX_RANKS). A message between world ranks a and b crosses gateway
 * (a + b) mod gateways. */
#define RT_NET_MAX_GATEWAYS RT_MAX_RANKS

typedef struct rt_net_model {
    rt_net_link link[RT_CT_COUNT];
    uint32_t gateways;             /* gateway nodes between modules (simulator: contention) */
    uint64_t gw_mtu;               /* gateway forwarding chunk, bytes, > 0 */
    uint64_t reduce_bandwidth;     /* bytes per second combined by a reduction, > 0 */
    int contention;                /* rank ejection and gateway contention in the simulator */
    int injection;                 /* RT_NET_INJECT_*: how long a send occupies its rank */
    uint32_t cores;                /* cores per node for the ranks; 0: one per rank (no sharing) */
    uint64_t timeslice_ps;         /* a core runs one of its ranks this long, then the next */
    int waiting;                   /* RT_NET_WAIT_*: a waiting rank's core (with cores) */
    uint64_t reduce_element_ps;    /* a reduction's time per element combined, on top of bytes */
    rt_net_call call[RT_FN_COUNT]; /* [calls], by function id */
    /* [calls] keys MPI_Allreduce/ring: the cost of a blocking collective run under one
     * algorithm, in place of its function's cost (rt_net_alg_call_ps); alg_set says which are
     * set (0ns is a cost too). None by default. */
    rt_net_call alg_call[RT_COLL_COUNT][RT_ALG_COUNT];
    uint8_t alg_set[RT_COLL_COUNT][RT_ALG_COUNT];
    char source[256]; /* "built-in defaults" or the file path */
} rt_net_model;

/* The built-in defaults (docs/model.md): a modern cluster with a 100 Gbit/s network. */
void rt_net_model_default(rt_net_model *m);

/* The defaults, then every key the file sets. On failure m is unchanged and err holds one
 * line "FILE:LINE: problem"; returns -RT_E_INVAL (content), -RT_E_NOTFOUND or -RT_E_IO. */
int rt_net_model_load(rt_net_model *m, const char *path, rt_err *err);

/* Every key, in the file format, exact: loading the output gives an equal model (source
 * aside). eager_bandwidth and rendezvous are written only when set (not 0). Returns 0 or
 * -RT_E_IO. */
int rt_net_model_write(const rt_net_model *m, FILE *out);

/* The same with comments: notes[RT_CT_NONE] after the first line (before the global keys),
 * notes[ct] after the [ct] section header, notes[RT_CT_COUNT] after [calls] (written when some
 * call has a cost: notes then has RT_CT_COUNT + 1 entries); each line of a note becomes
 * "# line". notes may be NULL, and so may each note. */
int rt_net_model_write_notes(const rt_net_model *m, const char *const *notes, FILE *out);

/* Wire time of one message of n bytes over connection type ct, from the start of injection to
 * the last byte at the receiver, excluding overheads: L + n/B rounded up to whole ps, B being
 * eager_bandwidth (when set) for an eager message (n <= eager) and bandwidth otherwise; a
 * rendezvous message (n > eager) adds rendezvous_ps. For RT_CT_GW: two hops through a
 * gateway that forwards chunks of mtu bytes (0 means m->gw_mtu) store-and-forward; with
 * k = ceil(n/mtu) chunks (k = 1 when n = 0), h = L + mtu/B the hop time of a full chunk and
 * h' = L + last/B that of the last chunk,
 *     wire = 2 h'         when k = 1,
 *     wire = k h + h'     when k > 1        (= (k+1) h when n is a multiple of mtu),
 * plus rendezvous_ps once for a rendezvous message. Results that do not fit saturate at
 * UINT64_MAX. */
uint64_t rt_net_wire_ps(const rt_net_model *m, unsigned ct, uint64_t n, uint64_t mtu);

/* The rate of a message of n bytes over ct, by its protocol: eager_bandwidth (when set) for
 * an eager one (n <= eager), bandwidth for a rendezvous one. */
uint64_t rt_net_bandwidth(const rt_net_model *m, unsigned ct, uint64_t n);

/* End-to-end time of one message: o (send) + wire + o (receive). */
uint64_t rt_net_msg_ps(const rt_net_model *m, unsigned ct, uint64_t n);

/* n bytes at bandwidth bytes per second: n / bandwidth in ps, rounded up (saturating). */
uint64_t rt_net_xfer_ps(uint64_t n, uint64_t bandwidth);

/* Time to combine n bytes of elems elements in a reduction: n / reduce_bandwidth in ps,
 * rounded up, plus elems * reduce_element_ps (docs/model.md). */
uint64_t rt_net_reduce_ps(const rt_net_model *m, uint64_t n, uint64_t elems);

/* The CPU cost of one call of function fn with n bytes ([calls]): fixed + n / bandwidth in ps,
 * rounded up (saturating); 0 for a function without a cost or out of range. */
uint64_t rt_net_call_ps(const rt_net_model *m, unsigned fn, uint64_t n);

/* The function whose cost a large-count form (MPI_Send_c) takes when the file does not set its
 * own: MPI_Send; RT_FN_NONE for any other function. */
unsigned rt_net_call_base(unsigned fn);

/* The cost of a blocking collective of op run under algorithm alg (a row of rt_coll_algs.def,
 * not mpich or ompi) with n bytes, as rt_net_call_ps: 1 with *ps set when the model has a
 * cost for that algorithm ([calls] MPI_Allreduce/ring), else 0 (the function's own cost
 * applies). */
int rt_net_alg_call_ps(const rt_net_model *m, unsigned op, unsigned alg, uint64_t n, uint64_t *ps);

/* The blocking function of a collective op (RT_FN_Allreduce for RT_COLL_ALLREDUCE), whose
 * name keys its algorithm costs; RT_FN_NONE for an op without one. */
unsigned rt_net_coll_func(unsigned op);

/* Best gateway chunk size for a message of n bytes: minimises rt_net_wire_ps(RT_CT_GW) over
 * the powers of two from 1 KiB to the first power of two >= n (ties go to the larger chunk);
 * writes that time to *time_ps when time_ps is not NULL. */
uint64_t rt_net_best_gw_mtu(const rt_net_model *m, uint64_t n, uint64_t *time_ps);

/* Parsers, also for command lines; each returns 0 or -RT_E_INVAL with a one-line message
 * "bad value 'TEXT' ..." in err. Numbers are decimal ("1.5", ".5"), no sign, no exponent;
 * blanks are allowed between number and unit (and, for times and bandwidths, around the value).
 *   time:      ps, ns, us (or µs), ms, s; a unit is required; the result must be whole ps.
 *   bandwidth: B/s, KB/s, MB/s, GB/s (10^3 steps), KiB/s, MiB/s, GiB/s (2^10 steps), Mbit/s,
 *              Gbit/s; a unit is required; the result must be whole bytes/s and > 0.
 *   size:      the size grammar of every option (rt_parse.h): no unit or B, K, M, G, T, P, E
 *              (2^10 steps), also as KiB ..., any case; whole bytes. */
int rt_net_parse_time(const char *text, uint64_t *ps, rt_err *err);
int rt_net_parse_bandwidth(const char *text, uint64_t *bytes_per_s, rt_err *err);
int rt_net_parse_size(const char *text, uint64_t *bytes, rt_err *err);

/* A time for people: "1.5 us", "250 ns", "2.000 ms". Four significant digits, unit chosen by
 * magnitude (ps, ns, us, ms, s); exact values drop trailing zeros ("2 ms"), rounded ones keep
 * all four digits ("2.000 ms" is 2 ms give or take half a microsecond). */
void rt_net_format_time(uint64_t ps, char *buf, size_t len);

#endif /* RT_NET_H */
