/*
 * Internal: what the two halves of the OTF2 reader share. otf2_rdefs.c reads the global
 * definitions and turns them into rt_defs; otf2_reader.c streams each rank's events.
 */
#ifndef RT__OTF2R_H
#define RT__OTF2R_H

#include <stdlib.h>

#include "rt__otf2.h"

#define CALL_STACK 8          /* as in the writer */
#define RT__OTF2R_BLOCK 256   /* events per block handed out (rt__reader_ops.next_block) */
#define RT__OTF2R_ATTR_TAB 32 /* attribute refs below it are found in otf2r.attr_tab */

typedef struct dgroup {
    uint32_t ref, type, flags, n;
    uint64_t *members;
    int used; /* by a communicator */
} dgroup;

typedef struct dcomm {
    uint32_t ref, name, group, group_b, parent;
} dcomm;

typedef struct dtree {
    uint32_t ref, name, cls, parent;
} dtree;

typedef struct dlocgroup {
    uint32_t ref, type, tree;
    int64_t node, module; /* from our properties; -1 if absent */
    uint32_t host, cpus;  /* string refs of the host properties, OTF2_UNDEFINED_STRING if absent */
    uint32_t online, ncpus; /* 0 if absent */
} dlocgroup;

typedef struct dloc {
    uint64_t ref, nevents;
    uint32_t group, type;
} dloc;

typedef struct dwin {
    uint32_t ref, comm;
    uint32_t name; /* string ref */
} dwin;

/* A growable array of T (count n, capacity cap). */
/* A neighbour-list property of a location group (RT__OTF2_PROP_SOURCES / _DESTS). */
typedef struct dnbrs {
    uint32_t locgroup, comm, group;
    int dest;
} dnbrs;

#define VEC(T)         \
    struct {           \
        T *v;          \
        size_t n, cap; \
    }
#define VEC_PUSH(vec, x)                                                \
    (RT_VEC_RESERVE((vec).v, (vec).cap, (uint64_t)(vec).n + 1, 16) == 0 \
         ? ((vec).v[(vec).n++] = (x), 0)                                \
         : -RT_E_NOMEM)

typedef struct otf2r {
    OTF2_Reader *reader;
    char *anchor;
    /* definitions as read */
    /* Definitions are found by their refs, which the input chooses (any 32-bit number): maps,
     * never tables indexed by a ref, so that memory follows the definitions the file holds. */
    VEC(char *) strings; /* in definition order */
    rt_hmap string_at;   /* string ref -> position in strings */
    rt_hmap regions;     /* region ref -> rt_func */
    /* After the definitions: the regions as a table by ref when their refs are dense, as
     * every writer makes them (enter and leave look one up); else region_sparse and the map. */
    uint16_t *region_fn;
    uint32_t nregion_fn;
    int region_sparse;
    VEC(dgroup) groups;
    VEC(dcomm) comms;
    VEC(dtree) tree;
    VEC(dlocgroup) locgroups;
    VEC(dloc) locs;
    VEC(dwin) wins;
    VEC(dnbrs) nbrs;
    uint64_t resolution, offset;
    uint64_t evt_chunk, def_chunk; /* the chunk sizes of the anchor file (checked) */
    uint32_t attr_ref[RT__ATTR_COUNT];
    /* Which of our attributes (bits of RT__ATTR_*) an attribute ref below RT__OTF2R_ATTR_TAB
     * is, kept with attr_ref by def_attribute: a record's attribute list is read in one pass. */
    uint16_t attr_tab[RT__OTF2R_ATTR_TAB];
    uint32_t param_pending; /* ref of the parameter RT__OTF2_PARAM_PENDING, if defined */
    uint32_t param_peer;    /* ref of the parameter RT__OTF2_PARAM_PEER, if defined */
    uint32_t param_error;   /* ref of the parameter RT__OTF2_PARAM_ERROR, if defined */
    /* ... of REQUEST_FREE (RT__OTF2_PARAM_REQUEST_FREE and the others) and HANDLE, per op */
    uint32_t param_reqh[RT_REQH_COUNT];
    uint32_t param_handle[RT_HANDLE_COUNT];
    uint32_t param_wattach[RT_WATTACH_COUNT];
    uint32_t param_buffer[RT_BUF_COUNT];
    uint32_t row_comm; /* comm and op of the last collective end: its rows' */
    uint8_t row_op;
    uint32_t prop_node, prop_module;
    int ours;  /* written by retrace: the per-location event counts are exact */
    int sizes; /* the archive records element sizes (RT__ELEM_SIZES_PROPERTY) */
    /* The attributes of the record being read (begin): attr_have, the bits of RT__ATTR_* it
     * carries with their type (the first of a ref, as OTF2's typed getters find it), and
     * their values. */
    uint32_t attr_have;
    OTF2_AttributeValue attr_val[RT__ATTR_COUNT];
    int failed;
    /* ranks */
    uint64_t *rank_loc;     /* location ref of each rank's master thread */
    uint64_t *rank_nevents; /* records announced per rank (its master thread's location) */
    /* The ranks' other locations (their threads), NULL when every rank has one: rank r's
     * are xloc[xfirst[r]] to xloc[xfirst[r + 1] - 1], in ref order (threads 1, 2, ...; group
     * holds the rank). */
    dloc *xloc;
    size_t *xfirst;
    rt_hmap group_id; /* OTF2 group ref -> our group id, for the groups PSCW names */
    /* reading */
    uint32_t cur;
    OTF2_EvtReader *er;
    uint64_t position; /* records of the current rank seen so far */
    rt_event *cut_ev;  /* the events of a rank whose file was cut short */
    size_t ncut, next_cut;
    uint32_t depth;
    uint16_t stack[CALL_STACK];
    /* The block being filled (blk, RT__OTF2R_BLOCK events and room for the last record's two):
     * the callbacks append a record's event at blk[nblk] (last: its index), and an RMA
     * transfer's RMA_TARGET, which its record carries, right after it; OTF2 reads a block's
     * worth of records a call. pos: each event's record position (for messages). One record of
     * lookahead: the events of the last record read (from last) go out only once the record
     * after it was read cleanly, so a rank whose file ends badly loses the one event that may
     * have been read from past the end. out: the events at the front that went out in the
     * last block (moved away at the next call). */
    rt_event *blk;
    uint64_t *pos;
    size_t nblk, last, out;
    int pending; /* a record of the rank began an event */
    /* the rank of the block that went out, and a check that failed after its events (stop,
     * stop_err): returned at the next call */
    uint32_t out_rank;
    int stop;
    rt_err stop_err;
    /* next_block reads ranks below read_end: the number of ranks, 0 once a time stamp is past
     * what rt_event.time holds (2^64 - 1 ns; time_past, its ticks and record): that one is
     * an error, and neither it nor anything after it goes out */
    uint32_t read_end;
    int time_past;
    uint64_t time_past_ticks, time_past_pos;
} otf2r;

/* The MPI function of a region ref (RT_FN_NONE: none, or a region that is no MPI call). */
static inline unsigned rt__otf2r_region_fn(const otf2r *o, uint32_t region)
{
    if (region < o->nregion_fn)
        return o->region_fn[region];
    const uint64_t *fn = o->region_sparse ? rt_hmap_get1(&o->regions, region) : NULL;
    return fn ? (unsigned)*fn : RT_FN_NONE;
}

/* otf2_rdefs.c: the global definitions, read (read_global_defs) and turned into r->defs
 * (build_defs). */
int rt__otf2r_read_global_defs(rt_reader *r, otf2r *o, rt_err *err);
int rt__otf2r_build_defs(rt_reader *r, otf2r *o, rt_err *err);
/* otf2_wins.c: window ref with its name (unless the writer's default) and info properties. */
int rt__otf2r_build_win(rt_reader *r, otf2r *o, uint32_t ref, uint32_t comm, const char *name,
                        rt_err *err);

/* otf2_defcheck.c */
/* 0 when the definition file <archive>SUFFIX (".def": the global definitions; "/LOC.def":
 * a location's local definitions, which may be missing) can be given to the OTF2 library:
 * whole chunks and records, every array inside its record. Else -RT_E_FORMAT naming the
 * trace, the file and the record ("T: damaged OTF2 archive: traces.def: Group definition at
 * byte N claims C members in a record of L bytes"), or -RT_E_IO. *records (unless NULL) gets
 * the records the file holds (0 for a missing file). */
int rt__otf2r_check_defs(const rt_reader *r, const otf2r *o, const char *suffix, int local,
                         uint64_t *records, rt_err *err);
/* 1 when the last chunk of the OTF2 event file at path (chunks of chunk bytes) walks record by
 * record to the end-of-file mark that ends a complete file; 0 when it was cut short or is
 * damaged (OTF2 would read its last chunk past the end of the file). */
int rt__otf2r_file_complete(const char *path, uint64_t chunk);

/* otf2_reader.c */
/* The path of a file next to the anchor: <archive>/<name>; NULL when out of memory. */
char *rt__otf2r_archive_file(const otf2r *o, const char *name);
/* The event callbacks (otf2_revents.c): each turns a record into an event appended to o->blk,
 * or updates o's call stack; NULL when out of memory. Delete with
 * OTF2_EvtReaderCallbacks_Delete. */
OTF2_EvtReaderCallbacks *rt__otf2r_event_callbacks(void);

/* The anchor file of the archive at path: path itself, or the one .otf2 file in the directory
 * path (traces.otf2 when there are several). A new string; NULL with err set when there is
 * none (or memory runs out). */
char *rt__otf2r_find_anchor(const char *path, rt_err *err);

/* 0 when the anchor file is one the OTF2 library can be given safely (formats/otf2_anchor.c),
 * else -RT_E_FORMAT (or -RT_E_IO) naming the file and what is wrong. global_defs is the
 * archive's global definition file, whose size bounds the counts the anchor claims. */
int rt__otf2_check_anchor(const char *anchor, const char *global_defs, rt_err *err);

#endif /* RT__OTF2R_H */
