/* Internal: what the raw reader's three files share. raw_files.c knows the files on disk (names,
 * headers, reading in blocks, errors naming an offset); raw_reader.c assembles the ranks and
 * streams their events; raw_defs.c reads the definitions and gives rank-local ids global ones. */
#ifndef RT__RAW_H
#define RT__RAW_H

#include "rt__trace.h"
#include "rt_raw.h"

#define RT__RAW_HDR ((size_t)sizeof(rt_raw_header))

/* A file read in large blocks. buf[pos, len) is read and not yet consumed; what a caller
 * still needs starts at pos, so a refill moves it to the front and reads behind it. */
typedef struct rt__rfile {
    int fd; /* -1 when closed */
    unsigned char *buf;
    size_t cap, len, pos;
    uint64_t base; /* file offset of buf[0] */
    int eof;
} rt__rfile;

/* Opens path with a buffer of at least cap bytes (kept from an earlier use if big enough).
 * 0, or -RT_E_NOTFOUND, -RT_E_IO or -RT_E_NOMEM (errno says more). */
int rt__rf_open(rt__rfile *f, const char *path, size_t cap);
/* Makes buf[pos, pos + n) file data (pointers into buf go stale). 1: done; 0: the file
 * ends first; -RT_E_IO: read error, -RT_E_NOMEM (errno says more). */
int rt__rf_need(rt__rfile *f, size_t n);
void rt__rf_close(rt__rfile *f); /* keeps the buffer */

/* An RT_E_FORMAT error at a record: "PATH: offset N: what". */
int rt__raw_fail_at(rt_err *err, const char *path, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An I/O error (or out of memory) from errno, naming path. */
int rt__raw_read_failed(rt_err *err, const char *path);

/* One raw file of a trace directory: a rank's thread file, or its definitions file (thread
 * RT_RAW_THREAD_DEFS). */
typedef struct rt__raw_file {
    uint32_t rank, thread;
} rt__raw_file;

/* The path of a rank's thread file (or definitions file) in dir. */
void rt__raw_path(const char *dir, uint32_t rank, uint32_t thread, char *buf, size_t len);
/* Every raw file of the directory, defs files included (thread RT_RAW_THREAD_DEFS, which
 * sorts after a rank's thread files), sorted, appended to *files (*nfiles of them). */
int rt__raw_list(const char *dir, rt__raw_file **files, size_t *nfiles, rt_err *err);
/*
 * Checks the header h (n bytes of it read, at p) of the file path against what its name says
 * (rank, thread) and the ranks the trace has (*nranks, 0 while unknown, then set; nranks_from
 * names the file that said so). 1: fine; 0: no header yet (an empty or all-zero start: the
 * writer died before it wrote one); < 0: error.
 */
int rt__raw_check_header(const char *path, const unsigned char *p, size_t n, uint32_t rank,
                         uint32_t thread, uint32_t *nranks, const char *nranks_from,
                         rt_raw_header *h, rt_err *err);
/* How a rank's record times become nanoseconds: its files' version and, for version 2, its
 * CLOCK definition (rt_raw_def_clock). */
typedef struct rt__raw_clock {
    uint32_t version; /* RT_RAW_VERSION (times in ns) or RT_RAW_VERSION_TICKS */
    int have;         /* version 2: the CLOCK definition was read */
    uint64_t ticks, ns;
} rt__raw_clock;

/* Takes a CLOCK definition: 0, or -1 with why (len bytes) saying what is wrong with it. */
int rt__raw_clock_set(rt__raw_clock *c, const rt_raw_def_clock *d, char *why, size_t len);
/* A record time t in nanoseconds: 0, or -1 when it does not fit 64 bits. */
int rt__raw_clock_ns(const rt__raw_clock *c, uint64_t t, uint64_t *ns);

/* The trace's directory: the path itself, or the directory of a .rtr file; NULL when out of
 * memory. */
char *rt__raw_trace_dir(const char *path);

/* Kinds of rank-local ids. */
enum { RT__RAW_COMM = 1, RT__RAW_GROUP, RT__RAW_WIN };

/* Rank-local ids and their global ids; while definitions are read, also what unifies them. */
typedef struct rt__raw_ids rt__raw_ids;

rt__raw_ids *rt__raw_ids_new(void);
/*
 * Reads the definitions file path of world rank (its header checked already) into defs and
 * ids. Call it for the ranks in order: a new communicator, group or window gets the next
 * global id. A file cut in the middle of a record is read up to that record, whose offset
 * goes to *cut_at (else UINT64_MAX). clock->version is the file's (from its header); a version 2
 * file's CLOCK definition goes to clock, and one without it is an error.
 */
int rt__raw_read_defs(rt__raw_ids *ids, rt_defs *defs, uint32_t rank, const char *path,
                      rt__raw_clock *clock, uint64_t *cut_at, rt_err *err);
/* After the last rank: frees what only reading the definitions needs. */
void rt__raw_defs_done(rt__raw_ids *ids);
/* Global id of a rank-local id of a kind: 0, or -RT_E_NOTFOUND when the rank never defined it.
 * Communicators 0 and 1 are the same on every rank. */
int rt__raw_global(const rt__raw_ids *ids, unsigned kind, uint32_t rank, uint32_t id,
                   uint32_t *out);
/* The disp_unit world rank gave when it created global window win (rt_raw_def_win); 0 when its
 * definitions did not say. */
uint32_t rt__raw_disp_unit(const rt__raw_ids *ids, uint32_t win, uint32_t rank);
void rt__raw_ids_free(rt__raw_ids *ids);

#endif /* RT__RAW_H */
