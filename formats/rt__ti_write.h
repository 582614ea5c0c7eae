/*
 * Internal: the three parts of the TI writer. ti_writer.c turns each call's events into
 * actions and keeps the requests; ti_writer_coll.c writes the collective actions;
 * ti_writer_text.c buffers each rank's lines and appends them to its file.
 */
#ifndef RT__TI_WRITE_H
#define RT__TI_WRITE_H

#include <stdio.h>

#include "rt__ti.h"

enum { RT__TIW_HOLD_OPEN, RT__TIW_HOLD_DONE, RT__TIW_HOLD_DROP };

/* An Irecv line waiting for its completion. */
typedef struct rt__tiw_hold {
    size_t off; /* where in the rank's text it goes */
    uint64_t bytes;
    int32_t peer, tag;
    int state;
} rt__tiw_hold;

/* A request the rank has open. */
typedef struct rt__tiw_req {
    uint64_t id;
    uint64_t hold;     /* Irecv: the sequence number of its hold */
    int32_t peer, tag; /* Isend: destination and tag */
    int recv;
} rt__tiw_req;

typedef struct rt__tiw_rank {
    char *buf; /* text not yet in the file */
    size_t len, cap;
    rt__tiw_hold *holds;
    size_t nholds, holdcap;
    uint64_t hold_base; /* sequence number of holds[0] */
    rt__tiw_req *reqs;
    size_t nreqs, reqcap;
    rt_event *call; /* the events of the call in progress */
    size_t ncall, callcap;
    uint64_t last_leave, idle_ns; /* compute time not yet written */
    uint32_t depth;
    uint16_t fn;
    uint8_t started, created, left;
} rt__tiw_rank;

typedef struct rt__ti_writer {
    double flops;
    FILE *index;
    char *dir;                /* PATH_files */
    char *name;               /* its last component, for the index lines */
    int dir_made, index_made; /* what abort removes */
    rt__tiw_rank *ranks;
    size_t buffered, budget;
    uint64_t *blk; /* the blocks of a v collective's COLL_PEER rows, one per rank */
} rt__ti_writer;

/* ---- the text (ti_writer_text.c) --------------------------------------------------------- */

/* "PATH: rank R at T ns: KIND in CALL: problem". */
int rt__tiw_refuse(const rt_writer *w, const rt_event *ev, rt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int rt__tiw_no_memory(const rt_writer *w, rt_err *err);
/* A count SimGrid reads as an int. */
int rt__tiw_int_count(const rt_writer *w, const rt_event *ev, uint64_t v, rt_err *err);

/* The file of rank r's actions: a new string, NULL when memory runs out. */
char *rt__tiw_rank_file(const rt__ti_writer *tw, uint32_t r);
/* Appends the rank's text to its file, up to the first Irecv line still open. */
int rt__tiw_flush_rank(rt_writer *w, uint32_t r, rt_err *err);
/* After text was added: write out what has grown large. */
int rt__tiw_text_added(rt_writer *w, uint32_t r, rt_err *err);
/* Appends formatted text to rank k's; -RT_E_NOMEM when memory runs out. */
int rt__tiw_append(rt_writer *w, rt__tiw_rank *k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Writes the compute time before the next action line of rank r. */
int rt__tiw_idle(rt_writer *w, uint32_t r, rt_err *err);
/* Starts an action line of rank r, after the compute time that precedes it. */
int rt__tiw_line(rt_writer *w, uint32_t r, rt_err *err);
/* A whole (short) action line "R TEXT". */
int rt__tiw_action(rt_writer *w, uint32_t r, rt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A reduction's counts in elements of the size the trace records for it (code,
 * rt_esize_code), when that size has a datatype (rt__ti_type_id) and divides each of its n
 * counts; else in bytes, MPI_BYTE. size: what each count is divided by; id: the datatype,
 * NULL for bytes, which the line leaves out (MPI_BYTE is the default). */
typedef struct rt__tiw_type {
    uint64_t size;
    const char *id;
} rt__tiw_type;
rt__tiw_type rt__tiw_type_of(unsigned code, const uint64_t *counts, size_t n);
/* Every file starts with a bare init: sizes are then in MPI_BYTE. */
int rt__tiw_start_rank(rt_writer *w, uint32_t r, rt_err *err);

/* ---- the collectives (ti_writer_coll.c) -------------------------------------------------- */

/* The action of a blocking collective (its COLL_END), or the refusal of one TI lacks. */
/* rows, nrows: the COLL_PEER rows after a v or w collective's COLL_END (its per-peer counts,
 * rt_event.h), none when its blocks are equal or the trace does not have them. */
int rt__tiw_coll_action(rt_writer *w, const rt_event *ev, const rt_event *rows, size_t nrows,
                        rt_err *err);

#endif /* RT__TI_WRITE_H */
