/*
 * Internal: the three parts of the TI reader. ti_lines.c turns an action file into lines of
 * fields and fields into checked numbers, as SimGrid 3.32's xbt_replay.cpp and
 * smpi_replay.cpp read them; ti_actions.c turns each action into the events the tracer
 * would have recorded (docs/ti.md); ti_reader.c is the pass over the index, the files and
 * the ranks that hands those events out in blocks.
 */
#ifndef RT__TI_READ_H
#define RT__TI_READ_H

#include <stdio.h>

#include "rt__ti.h"

/* One action file, read in large blocks (no stdio, no allocation per line). */
typedef struct rt__ti_lines {
    char *path; /* of the open file, for messages (owned) */
    int fd;     /* -1 when no file is open */
    char *buf;  /* [pos, len): read and not taken yet; buf[len] is always writable */
    size_t cap, pos, len;
    size_t nul;           /* index in buf of the first NUL byte at or after pos; SIZE_MAX: none */
    int eof;              /* read() said the file ends at len */
    uint64_t base, size;  /* file offset of buf[0]; size of the file (0: unknown) */
    unsigned long lineno; /* of the line last taken */
    char **tok;           /* its fields, each NUL-terminated inside buf */
    size_t ntok, tokcap;
    size_t namelen; /* of tok[1], the action name */
} rt__ti_lines;

/* Opens path (taking the string over) for reading from its first line; the buffer of an
 * earlier file is reused. */
int rt__ti_lines_open(rt__ti_lines *l, char *path, rt_err *err);
int rt__ti_lines_rewind(rt__ti_lines *l, rt_err *err);
void rt__ti_lines_close(rt__ti_lines *l); /* the file; keeps the buffers */
void rt__ti_lines_free(rt__ti_lines *l);
/* The next action line, trimmed and split at blanks into l->tok (at least RANK and ACTION).
 * Skips empty lines and # comments (a "# truncated: NOTE" comment becomes r's truncation
 * note). 1: a line; 0: the end of the file; < 0: error. */
int rt__ti_lines_next(rt__ti_lines *l, rt_reader *r, rt_err *err);
/* Fraction of the open file taken so far (0 when its size is unknown). */
double rt__ti_lines_progress(const rt__ti_lines *l);

/* "FILE:LINE: ACTION: problem" (without ACTION before the line has one). */
int rt__ti_bad(const rt__ti_lines *l, rt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the fields of the current line (field i: l->tok[i]; arguments start at 2) ---------- */

/* The count of arguments after RANK ACTION must be in [min, max]. */
int rt__ti_arity_slow(const rt__ti_lines *l, size_t min, size_t max, const char *usage,
                      rt_err *err);
/* An integer as SimGrid reads it with std::stoi (ranks, tags, roots, count vectors), but
 * strict: the whole field, in [lo, hi]. */
int rt__ti_int_slow(const rt__ti_lines *l, size_t i, const char *what, int64_t lo, int64_t hi,
                    int64_t *out, rt_err *err);
/* A number as SimGrid's parse_double reads it (flops, seconds): >= 0 and finite. */
int rt__ti_double_slow(const rt__ti_lines *l, size_t i, const char *what, double *out, rt_err *err);
/* An element count as SimGrid's parse_integer reads it: a number (1e6 is allowed), the
 * fraction cut off. */
int rt__ti_count_slow(const rt__ti_lines *l, size_t i, const char *what, uint64_t *out,
                      rt_err *err);
/* The size of the datatype in field i, or dflt when the line stops short of it. */
int rt__ti_type(const rt__ti_lines *l, size_t i, uint32_t dflt, uint32_t *size, rt_err *err);
/* A world rank below nranks. */
int rt__ti_rank_slow(const rt__ti_lines *l, size_t i, const char *what, uint32_t nranks,
                     int32_t *out, rt_err *err);
int rt__ti_tag_slow(const rt__ti_lines *l, size_t i, int32_t *out, rt_err *err);
/* Sum of the n counts from field first on (std::stoi integers >= 0). With mine set, *mine
 * is the count at position at. */
int rt__ti_counts(const rt__ti_lines *l, size_t first, uint32_t n, const char *what, uint64_t *sum,
                  uint32_t at, uint64_t *mine, rt_err *err);
/* n * size bytes, refusing overflow. */
int rt__ti_mul_slow(const rt__ti_lines *l, uint64_t n, uint32_t size, uint64_t *out, rt_err *err);
/* The RANK field as SimGrid writes it ("0", "17"; not "017"). */
int rt__ti_who_slow(const rt__ti_lines *l, uint64_t *who, rt_err *err);

/* ---- the same, inline for what nearly every field is ------------------------------------ */

/* Each of these reads a field of 1 to 15 decimal digits itself (the same value the checked
 * parser gives: below 2^53, so exact as a double too) and leaves anything else, and every
 * error, to the function above. The reader calls them for every field of the trace. */
static inline int64_t rt__ti_digits(const char *s)
{
    uint64_t v = 0;
    size_t n = 0;
    while (n < 16 && (unsigned)(s[n] - '0') < 10)
        v = v * 10 + (uint64_t)(s[n++] - '0');
    return n && n < 16 && !s[n] ? (int64_t)v : -RT_E_INVAL; /* not this simple form */
}

static inline int rt__ti_arity(const rt__ti_lines *l, size_t min, size_t max, const char *usage,
                               rt_err *err)
{
    size_t n = l->ntok - 2;
    return n >= min && n <= max ? 0 : rt__ti_arity_slow(l, min, max, usage, err);
}

static inline int rt__ti_int(const rt__ti_lines *l, size_t i, const char *what, int64_t lo,
                             int64_t hi, int64_t *out, rt_err *err)
{
    int64_t v = rt__ti_digits(l->tok[i]);
    if (v >= 0 && v >= lo && v <= hi) {
        *out = v;
        return 0;
    }
    return rt__ti_int_slow(l, i, what, lo, hi, out, err);
}

static inline int rt__ti_double(const rt__ti_lines *l, size_t i, const char *what, double *out,
                                rt_err *err)
{
    int64_t v = rt__ti_digits(l->tok[i]);
    if (v >= 0) {
        *out = (double)v;
        return 0;
    }
    return rt__ti_double_slow(l, i, what, out, err);
}

static inline int rt__ti_count(const rt__ti_lines *l, size_t i, const char *what, uint64_t *out,
                               rt_err *err)
{
    int64_t v = rt__ti_digits(l->tok[i]);
    if (v >= 0) {
        *out = (uint64_t)v;
        return 0;
    }
    return rt__ti_count_slow(l, i, what, out, err);
}

static inline int rt__ti_rank(const rt__ti_lines *l, size_t i, const char *what, uint32_t nranks,
                              int32_t *out, rt_err *err)
{
    int64_t v = rt__ti_digits(l->tok[i]);
    if (v >= 0 && v < (int64_t)nranks) {
        *out = (int32_t)v;
        return 0;
    }
    return rt__ti_rank_slow(l, i, what, nranks, out, err);
}

static inline int rt__ti_tag(const rt__ti_lines *l, size_t i, int32_t *out, rt_err *err)
{
    int64_t v = rt__ti_digits(l->tok[i]);
    if (v >= 0 && v <= INT32_MAX) {
        *out = (int32_t)v;
        return 0;
    }
    return rt__ti_tag_slow(l, i, out, err);
}

static inline int rt__ti_mul(const rt__ti_lines *l, uint64_t n, uint32_t size, uint64_t *out,
                             rt_err *err)
{
    if (!__builtin_mul_overflow(n, (uint64_t)size, out))
        return 0;
    return rt__ti_mul_slow(l, n, size, out, err);
}

static inline int rt__ti_who(const rt__ti_lines *l, uint64_t *who, rt_err *err)
{
    const char *s = l->tok[0];
    int64_t v = rt__ti_digits(s);
    if (v >= 0 && !(s[0] == '0' && s[1])) {
        *who = (uint64_t)v;
        return 0;
    }
    return rt__ti_who_slow(l, who, err);
}

/* ---- the reader's state (ti_reader.c), which the actions (ti_actions.c) fill in ---------- */

/* Events per block handed out (about 230 KB, which stays in cache on its way to the
 * loader); a block ends earlier where the next line is of another rank. */
#define RT__TI_BLOCK 4096

/* A nonblocking request a rank has open, under SimGrid's key for wait and test. */
typedef struct rt__ti_req {
    uint64_t id; /* 0: the mark a completing test leaves (SimGrid's null request) */
    uint64_t bytes;
    int32_t src, dst, tag; /* world ranks of sender and receiver, and the tag */
    uint8_t recv;
    uint8_t esize; /* of a receive: the element size its datatype says (rt_esize_code) */
} rt__ti_req;

typedef struct rt__ti_rank_state {
    double clock; /* ns: the sum of compute and sleep so far (exact, rounded when used) */
    uint64_t next_req;
    uint32_t type_size; /* of the default datatype: MPI_BYTE, or MPI_DOUBLE after "init X" */
    int done;           /* its end (the implicit completion of open requests) is queued */
    rt__ti_req *reqs;   /* open, in posting order */
    size_t nreqs, reqcap;
} rt__ti_rank_state;

typedef struct rt__ti_reader {
    double flops; /* flop/s */
    FILE *index;  /* per-rank files: the index, read on as ranks follow each other */
    unsigned long index_line;
    char *iline; /* the index line last read */
    size_t iline_cap;
    int shared;               /* one file for all ranks */
    uint32_t cur;             /* per-rank files: the rank whose file is open */
    rt__ti_rank_state *ranks; /* shared: one per rank; else one, reused */
    rt__ti_lines in;
    int held;          /* in holds a line of another rank than the block's: the next block's */
    uint32_t end_rank; /* shared file at its end: the next rank to complete requests of */
    rt_event *q;       /* the block: events of one rank */
    size_t qn, qcap;
    int done;    /* 1: at the end; -1: failed, fail says why */
    rt_err fail; /* replayed by later calls */
} rt__ti_reader;

/* The action on the current line of t->in, of rank me, whose state is k. */
typedef struct rt__ti_ctx {
    rt_reader *r;
    rt__ti_reader *t;
    rt__ti_rank_state *k;
    uint32_t me, p; /* the rank, and the world size */
} rt__ti_ctx;

/* The actions (ti_actions.c), each for the names ti_reader.c's find_action gives it: the
 * actions SimGrid 3.32's replay registers (smpi_replay_init), and nothing else. */
int rt__ti_act_init(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_finalize(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_comm(rt__ti_ctx *c, rt_err *err); /* comm_size, comm_split, comm_dup */
int rt__ti_act_location(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_compute(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_sleep(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_p2p(rt__ti_ctx *c, rt_err *err);  /* send, isend, recv, irecv */
int rt__ti_act_wait(rt__ti_ctx *c, rt_err *err); /* wait, test */
int rt__ti_act_waitall(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_sendrecv(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_barrier(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_bcast(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_reduce(rt__ti_ctx *c, rt_err *err);  /* reduce, allreduce, scan, exscan */
int rt__ti_act_fixed(rt__ti_ctx *c, rt_err *err);   /* alltoall, allgather, gather, scatter */
int rt__ti_act_gatherv(rt__ti_ctx *c, rt_err *err); /* gatherv, allgatherv */
int rt__ti_act_scatterv(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_reducescatter(rt__ti_ctx *c, rt_err *err);
int rt__ti_act_alltoallv(rt__ti_ctx *c, rt_err *err);

/* Queues a Waitall completing every open request of rank me (state k). */
int rt__ti_wait_all(rt__ti_reader *t, rt__ti_rank_state *k, uint32_t me, rt_err *err);

#endif /* RT__TI_READ_H */
