/*
 * OTF2 reader: global definitions into rt_defs (otf2_rdefs.c), then each rank's events, one
 * rank after the other (memory: one event chunk). Reads our own archives losslessly and
 * Score-P's MPI records as far as the event model goes; records outside the model are
 * skipped.
 */
#include <errno.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt__otf2r.h"

/* The path of a file next to the anchor: <archive>/<name>. */
char *rt__otf2r_archive_file(const otf2r *o, const char *name)
{
    size_t n = strlen(o->anchor);
    const char *base = strrchr(o->anchor, '/');
    size_t dir = base ? (size_t)(base - o->anchor) + 1 : 0;
    size_t stem = n - dir; /* without ".otf2", when the anchor's name ends so */
    if (stem >= 5 && !strcmp(o->anchor + n - 5, ".otf2"))
        stem -= 5;
    size_t len = dir + stem + strlen(name) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%.*s%.*s%s", (int)dir, o->anchor, (int)stem, o->anchor + dir, name);
    return p;
}

/* An event reader for location loc (of rank o->cur), with our callbacks. */
static int attach_reader(rt_reader *r, otf2r *o, uint64_t loc, rt_err *err)
{
    o->er = OTF2_Reader_GetEvtReader(o->reader, loc);
    if (!o->er)
        return rt__otf2_fail(err, RT_E_FORMAT, r->path, "damaged OTF2 archive: events unreadable",
                             OTF2_ERROR_INVALID);
    OTF2_EvtReaderCallbacks *cb = rt__otf2r_event_callbacks();
    OTF2_ErrorCode ec = cb ? OTF2_Reader_RegisterEvtCallbacks(o->reader, o->er, cb, o)
                           : OTF2_ERROR_MEM_ALLOC_FAILED;
    OTF2_EvtReaderCallbacks_Delete(cb);
    if (ec != OTF2_SUCCESS)
        return rt__otf2_fail(err, RT_E_OTF2, r->path, "cannot read events", ec);
    o->position = 0;
    o->depth = 0;
    return 0;
}

/* Appends the events of the location o->er reads, until it stops (*ec: how), to *out (*n of
 * them, room for *cap), a block's worth of records a call. */
static int read_all(rt_reader *r, otf2r *o, OTF2_Reader *rd, rt_event **out, size_t *n, size_t *cap,
                    OTF2_ErrorCode *ec, rt_err *err)
{
    for (;;) {
        o->nblk = 0;
        uint64_t got = 0;
        *ec = OTF2_Reader_ReadLocalEvents(rd, o->er, RT__OTF2R_BLOCK, &got);
        /* a time stamp past: neither its record's events nor any after it */
        size_t k = o->time_past ? o->last : o->nblk;
        if (RT_VEC_RESERVE(*out, *cap, (uint64_t)*n + k, 256) < 0)
            return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
        if (k) /* *out is still NULL when nothing came yet */
            memcpy(*out + *n, o->blk, k * sizeof **out);
        *n += k;
        if (o->time_past) {
            *ec = OTF2_SUCCESS; /* the records up to it were read cleanly */
            return 0;
        }
        if (*ec == OTF2_ERROR_INTERRUPTED_BY_CALLBACK && o->nblk >= RT__OTF2R_BLOCK)
            continue; /* the block is full */
        if (*ec != OTF2_SUCCESS || got < RT__OTF2R_BLOCK)
            return 0;
    }
}

/* The events OTF2 gives for rank o->cur when reading the archive behind anchor (a
 * temporary one, see read_cut_rank), until it stops. */
static int read_rank_from(rt_reader *r, otf2r *o, const char *anchor, rt_event **out, size_t *n,
                          rt_err *err)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return rt_err_set(err, RT_E_IO, "%s: cannot read a copy of rank %u's events", r->path,
                          (unsigned)o->cur);
    OTF2_Reader *keep = o->reader;
    o->reader = rd;
    uint64_t defs;
    OTF2_GlobalDefReader *gdr = NULL;
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    int ok = gcb && OTF2_Reader_SetSerialCollectiveCallbacks(rd) == OTF2_SUCCESS &&
             (gdr = OTF2_Reader_GetGlobalDefReader(rd)) &&
             OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, NULL) == OTF2_SUCCESS &&
             OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &defs) == OTF2_SUCCESS &&
             OTF2_Reader_SelectLocation(rd, o->rank_loc[o->cur]) == OTF2_SUCCESS &&
             OTF2_Reader_OpenEvtFiles(rd) == OTF2_SUCCESS;
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    int rc = ok ? attach_reader(r, o, o->rank_loc[o->cur], err)
                : rt_err_set(err, RT_E_IO, "%s: cannot read a copy of rank %u's events", r->path,
                             (unsigned)o->cur);
    OTF2_ErrorCode ec;
    if (!rc)
        rc = read_all(r, o, rd, out, n, &cap, &ec, err);
    o->er = NULL;
    OTF2_Reader_Close(rd);
    o->reader = keep;
    return rc;
}

/* Copies from to to, then END_OF_FILE bytes up to a whole chunk. */
static int copy_padded(const char *from, const char *to, uint64_t chunk)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    int ok = in && out;
    char buf[65536];
    uint64_t size = 0;
    size_t got;
    while (ok && (got = fread(buf, 1, sizeof buf, in)) > 0) {
        ok = fwrite(buf, 1, got, out) == got;
        size += got;
    }
    memset(buf, 1, sizeof buf); /* END_OF_FILE: OTF2 stops there cleanly */
    for (uint64_t left = chunk - size % chunk; ok && left > 0;) {
        size_t k = left < sizeof buf ? (size_t)left : sizeof buf;
        ok = fwrite(buf, 1, k, out) == k;
        left -= k;
    }
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -RT_E_IO;
}

/*
 * A rank whose event file was cut short. OTF2 reads the last, partial chunk without
 * bounding it by the file's size, so the bytes past the cut would be whatever its buffer
 * held. We read the rank from a copy padded with END_OF_FILE bytes, in a temporary archive
 * that links to the original definitions: OTF2 then stops at the first padding byte where
 * a record would begin. Only the last record read can run past the cut (completed from
 * the padding), and nothing tells a whole last record from a cut one, so the last event
 * read is dropped: never an invented event, at most one real one lost.
 */
static int read_cut_rank(rt_reader *r, otf2r *o, const char *evt, rt_err *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/retrace-cut-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return rt_err_set(err, RT_E_IO, "%s: cannot make a temporary folder: %s", r->path,
                          strerror(errno));
    const char *base = strrchr(o->anchor, '/');
    base = base ? base + 1 : o->anchor;
    size_t stem = strlen(base) - 5;
    char anchor[4300], defs[4300], sub[4300], copy[4400],
        *orig_defs = rt__otf2r_archive_file(o, ".def");
    char *real_defs = orig_defs ? realpath(orig_defs, NULL) : NULL;
    snprintf(anchor, sizeof anchor, "%s/%s", dir, base);
    snprintf(defs, sizeof defs, "%s/%.*s.def", dir, (int)stem, base);
    snprintf(sub, sizeof sub, "%s/%.*s", dir, (int)stem, base);
    snprintf(copy, sizeof copy, "%s/%llu.evt", sub, (unsigned long long)o->rank_loc[o->cur]);
    rt_event *ev = NULL;
    size_t n = 0;
    int rc = real_defs && copy_padded(o->anchor, anchor, 1) == 0 && symlink(real_defs, defs) == 0 &&
                     mkdir(sub, 0700) == 0 && copy_padded(evt, copy, o->evt_chunk) == 0
                 ? 0
                 : rt_err_set(err, RT_E_IO, "%s: cannot copy rank %u's events to %s", r->path,
                              (unsigned)o->cur, dir);
    if (!rc)
        rc = read_rank_from(r, o, anchor, &ev, &n, err);
    unlink(copy);
    rmdir(sub);
    unlink(defs);
    unlink(anchor);
    rmdir(dir);
    free(orig_defs);
    free(real_defs);
    if (rc) {
        free(ev);
        return rc;
    }
    o->cut_ev = ev;
    o->ncut = n ? n - 1 : 0;
    if (o->ncut && ev[o->ncut].kind == RT_EV_RMA_TARGET) /* its record is its transfer's */
        o->ncut--;
    o->next_cut = 0;
    rt__reader_set_truncated(r,
                             "%s: trace cut short: rank %u's events end early, after %zu "
                             "complete events",
                             r->path, (unsigned)o->cur, o->ncut);
    return 0;
}

/* A rank's events from its locations, one per thread, read whole (ev[j], n[j] of location j),
 * merged by time into o->cut_ev as next_events hands out a cut rank's: a thread's events stay
 * in their order and, on a tie, the lower thread's go first, as the raw reader merges a rank's
 * thread files. Memory follows the events of such a rank; a rank of one thread is streamed. */
static int merge_threads(rt_reader *r, otf2r *o, rt_event **ev, const size_t *n, size_t k,
                         rt_err *err)
{
    size_t total = 0;
    for (size_t j = 0; j < k; j++)
        total += n[j]; /* no overflow: each array is in memory */
    size_t *at = calloc(k, sizeof *at);
    rt_event *out = malloc((total ? total : 1) * sizeof *out);
    if (!at || !out) {
        free(at);
        free(out);
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    }
    for (size_t i = 0; i < total; i++) {
        size_t best = k;
        for (size_t j = 0; j < k; j++)
            if (at[j] < n[j] && (best == k || ev[j][at[j]].time < ev[best][at[best]].time))
                best = j;
        out[i] = ev[best][at[best]++];
    }
    free(at);
    o->cut_ev = out;
    o->ncut = total;
    o->next_cut = 0;
    return 0;
}

/* Rank o->cur when it has locations of more than one thread: each location read whole (one
 * whose file was cut short is left out, and said so), its events given its thread. */
static int read_threads(rt_reader *r, otf2r *o, rt_err *err)
{
    size_t first = o->xfirst[o->cur], k = o->xfirst[o->cur + 1] - first + 1;
    rt_event **ev = calloc(k, sizeof *ev);
    size_t *n = calloc(k, sizeof *n);
    int rc = ev && n ? 0 : rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    for (size_t j = 0; j < k && !rc && !o->time_past; j++) {
        uint64_t loc = j ? o->xloc[first + j - 1].ref : o->rank_loc[o->cur];
        uint64_t announced = j ? o->xloc[first + j - 1].nevents : o->rank_nevents[o->cur];
        unsigned thread = j < RT_THREAD_MAX ? (unsigned)j : RT_THREAD_MAX;
        char name[48];
        snprintf(name, sizeof name, "/%llu.evt", (unsigned long long)loc);
        char *evt = rt__otf2r_archive_file(o, name);
        if (!evt) {
            rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
            break;
        }
        int whole = rt__otf2r_file_complete(evt, o->evt_chunk);
        free(evt);
        if (!whole) {
            rt__reader_set_truncated(r,
                                     "%s: trace cut short: the events of rank %u's thread %u "
                                     "end early and are left out",
                                     r->path, (unsigned)o->cur, thread);
            continue;
        }
        if ((rc = attach_reader(r, o, loc, err)))
            break;
        size_t cap = 0;
        OTF2_ErrorCode ec = OTF2_SUCCESS;
        rc = read_all(r, o, o->reader, &ev[j], &n[j], &cap, &ec, err);
        uint64_t seen = o->position;
        OTF2_Reader_CloseEvtReader(o->reader, o->er);
        o->er = NULL;
        if (!rc && (ec != OTF2_SUCCESS || (o->ours && seen < announced)))
            rt__reader_set_truncated(r,
                                     "%s: trace cut short: rank %u's thread %u's events end "
                                     "early, after %llu records%s%s",
                                     r->path, (unsigned)o->cur, thread, (unsigned long long)seen,
                                     ec != OTF2_SUCCESS ? ": " : "",
                                     ec != OTF2_SUCCESS ? OTF2_Error_GetDescription(ec) : "");
        for (size_t i = 0; i < n[j]; i++)
            ev[j][i].thread = (uint8_t)thread;
    }
    if (!rc)
        rc = merge_threads(r, o, ev, n, k, err);
    for (size_t j = 0; ev && j < k; j++)
        free(ev[j]);
    free(ev);
    free(n);
    return rc;
}

/* Prepares rank o->cur: a reader over its event file, or its events read already when
 * the file was cut short. */
static int open_rank(rt_reader *r, otf2r *o, rt_err *err)
{
    if (o->xfirst && o->xfirst[o->cur + 1] > o->xfirst[o->cur])
        return read_threads(r, o, err);
    char name[48];
    snprintf(name, sizeof name, "/%llu.evt", (unsigned long long)o->rank_loc[o->cur]);
    char *evt = rt__otf2r_archive_file(o, name);
    int rc = evt && !rt__otf2r_file_complete(evt, o->evt_chunk)
                 ? read_cut_rank(r, o, evt, err)
                 : attach_reader(r, o, o->rank_loc[o->cur], err);
    free(evt);
    return rc;
}

/* A failed check of the events at ev (*ok of them passed) of rank o->out_rank: "PATH: rank R,
 * record P: what", P from pos (a live rank's record positions) or, for a cut rank's events
 * (pos NULL), first plus the event's index. */
static int check_events(rt_reader *r, otf2r *o, rt_event *ev, size_t n, const uint64_t *pos,
                        uint64_t first, size_t *ok, rt_err *err)
{
    rt_err e;
    int rc = rt__reader_check_block(r, ev, n, ok, &e);
    if (!rc)
        return 0;
    uint64_t at = pos ? pos[*ok] : first + *ok;
    return rt_err_set(err, e.code, "%s: rank %u, record %llu: %s", r->path, (unsigned)o->out_rank,
                      (unsigned long long)at, e.msg);
}

/* The end of rank o->cur's event file: a note when it ended early or badly, and the events
 * that go out: all of them after a clean end, else all but the last record's. */
static size_t end_rank(rt_reader *r, otf2r *o, OTF2_ErrorCode ec)
{
    int short_count = o->ours && o->position < o->rank_nevents[o->cur];
    int clean = ec == OTF2_SUCCESS && !short_count;
    if (!clean)
        rt__reader_set_truncated(
            r,
            "%s: trace cut short: rank %u's events end early, after %llu of %llu "
            "records%s%s",
            r->path, (unsigned)o->cur, (unsigned long long)(o->position - o->pending),
            (unsigned long long)o->rank_nevents[o->cur], ec != OTF2_SUCCESS ? ": " : "",
            ec != OTF2_SUCCESS ? OTF2_Error_GetDescription(ec) : "");
    OTF2_Reader_CloseEvtReader(o->reader, o->er);
    o->er = NULL;
    o->cur++;
    size_t ready = o->pending && !clean ? o->last : o->nblk;
    o->pending = 0;
    return ready;
}

/* Reads rank o->cur's records into the block until it is full or the rank ends, a block's
 * worth of records in one call (the callbacks stop OTF2 once the block is full); the events
 * ready to go out: those before the last record's (the lookahead), all of them at a clean
 * end. 0 when none are (the rank ended, or a time stamp was past what an event holds). */
static size_t fill_block(rt_reader *r, otf2r *o)
{
    if (o->out) { /* the lookahead of the last block to the front */
        memmove(o->blk, o->blk + o->out, (o->nblk - o->out) * sizeof *o->blk);
        memmove(o->pos, o->pos + o->out, (o->nblk - o->out) * sizeof *o->pos);
        o->nblk -= o->out;
        o->last -= o->out;
        o->out = 0;
    }
    o->out_rank = o->cur;
    for (;;) {
        uint64_t want = RT__OTF2R_BLOCK - o->nblk, got = 0; /* a record: one event or none */
        OTF2_ErrorCode ec = OTF2_Reader_ReadLocalEvents(o->reader, o->er, want, &got);
        if (o->time_past || o->nblk >= RT__OTF2R_BLOCK)
            return o->last; /* a time stamp past: neither it nor anything after goes out */
        if (ec == OTF2_SUCCESS && got == want)
            continue; /* records outside the event model, or RMA targets, left room */
        return end_rank(r, o, ec);
    }
}

/* The next events to check, of one rank: *n at ev, with their record positions (pos; NULL for
 * a cut rank's, numbered from *first). 1, or 0 at the end, or < 0 on error. */
static int next_events(rt_reader *r, otf2r *o, rt_event **ev, size_t *n, const uint64_t **pos,
                       uint64_t *first, rt_err *err)
{
    while (o->cur < o->read_end) {
        if (!o->er && !o->cut_ev) {
            int rc = open_rank(r, o, err);
            if (rc)
                return rc;
            o->pending = 0;
            o->nblk = o->out = 0;
            if (o->time_past) /* among the events of a cut rank, read already */
                break;
        }
        if (o->cut_ev) {
            if (o->next_cut < o->ncut) {
                size_t k = o->ncut - o->next_cut;
                *n = k < RT__OTF2R_BLOCK ? k : RT__OTF2R_BLOCK;
                *ev = o->cut_ev + o->next_cut;
                *pos = NULL;
                *first = o->next_cut + 1;
                o->out_rank = o->cur;
                o->next_cut += *n;
                return 1;
            }
            free(o->cut_ev);
            o->cut_ev = NULL;
            o->cur++;
            continue;
        }
        size_t ready = fill_block(r, o);
        if (ready) {
            *ev = o->blk;
            *n = o->out = ready;
            *pos = o->pos;
            return 1;
        }
    }
    if (o->time_past)
        return rt_err_set(err, RT_E_RANGE,
                          "%s: rank %u, record %llu: time stamp %llu ticks after the clock's "
                          "offset at %llu ticks a second is past 2^64 ns (584 years)",
                          r->path, (unsigned)o->cur, (unsigned long long)o->time_past_pos,
                          (unsigned long long)o->time_past_ticks,
                          (unsigned long long)o->resolution);
    return rt__reader_end(r, err);
}

/* Blocks of one rank's events, checked and normalised in one loop over each block
 * (rt__reader_check_block); a check that fails ends the block before its event, and its
 * error comes at the next call. */
static int r_next_block(rt_reader *r, const rt_event **out, size_t *n, rt_err *err)
{
    otf2r *o = r->impl;
    if (o->stop) {
        if (err)
            *err = o->stop_err;
        return o->stop;
    }
    rt_event *ev = NULL;
    const uint64_t *pos = NULL;
    uint64_t first = 0;
    int rc = next_events(r, o, &ev, n, &pos, &first, err);
    if (rc <= 0)
        return rc;
    size_t ok;
    rc = check_events(r, o, ev, *n, pos, first, &ok, &o->stop_err);
    if (rc < 0) {
        o->stop = rc;
        if (!ok) {
            if (err)
                *err = o->stop_err;
            return rc;
        }
        *n = ok;
    }
    *out = ev;
    return 1;
}

static void otf2r_free(otf2r *o)
{
    if (o->reader)
        OTF2_Reader_Close(o->reader);
    for (size_t i = 0; i < o->strings.n; i++)
        free(o->strings.v[i]);
    for (size_t i = 0; i < o->groups.n; i++)
        free(o->groups.v[i].members);
    free(o->strings.v);
    rt_hmap_free(&o->string_at);
    rt_hmap_free(&o->regions);
    free(o->region_fn);
    free(o->groups.v);
    free(o->comms.v);
    free(o->tree.v);
    free(o->locgroups.v);
    free(o->locs.v);
    free(o->wins.v);
    free(o->nbrs.v);
    free(o->rank_loc);
    free(o->xloc);
    free(o->xfirst);
    free(o->rank_nevents);
    rt_hmap_free(&o->group_id);
    free(o->cut_ev);
    free(o->blk);
    free(o->pos);
    free(o->anchor);
    free(o);
}

static void r_close(rt_reader *r)
{
    otf2r_free(r->impl);
    r->impl = NULL;
}

/* Ranks are read one after the other: whole ranks done, plus the current one's share (of a
 * part's ranks, for a part). */
static double r_progress(const rt_reader *r)
{
    const otf2r *o = r->impl;
    uint32_t lo = r->part ? r->rank_lo : 0, n = r->part ? r->rank_hi - lo : r->defs.nranks;
    if (!o || !n)
        return -1.0;
    double part = 0;
    if (o->cur < lo + n && o->rank_nevents && o->rank_nevents[o->cur])
        part = (double)o->position / (double)o->rank_nevents[o->cur];
    double f = ((double)(o->cur - lo) + (part < 1 ? part : 1)) / n;
    return f < 1 ? f : 1;
}

/* The records rank's locations announce: what reading it costs (a damaged count may claim
 * anything: the sum saturates). */
static uint64_t r_rank_size(const rt_reader *r, uint32_t rank)
{
    const otf2r *o = r->impl;
    uint64_t n = o->rank_nevents ? o->rank_nevents[rank] : 0;
    for (size_t i = o->xfirst ? o->xfirst[rank] : 0; o->xfirst && i < o->xfirst[rank + 1]; i++)
        n = n > UINT64_MAX - o->xloc[i].nevents ? UINT64_MAX : n + o->xloc[i].nevents;
    return n;
}

static const rt__reader_ops otf2_reader_ops = {
    .rank_size = r_rank_size,
    .next_block = r_next_block,
    .close = r_close,
    .progress = r_progress,
};

/* The locations of rank i: its master thread's, then its other threads' (o->xloc). */
static size_t nlocs(const otf2r *o, uint32_t i)
{
    return 1 + (o->xfirst ? o->xfirst[i + 1] - o->xfirst[i] : 0);
}

static uint64_t loc_of(const otf2r *o, uint32_t i, size_t j)
{
    return j ? o->xloc[o->xfirst[i] + j - 1].ref : o->rank_loc[i];
}

/* Selects every rank's location, opens the event files and applies the local definitions
 * (Score-P's mapping tables); local definition files are optional, but one that is there is
 * checked before OTF2 reads it (otf2_defcheck.c). */
static int open_events(rt_reader *r, otf2r *o, rt_err *err)
{
    OTF2_ErrorCode ec = OTF2_SUCCESS;
    for (uint32_t i = o->cur; i < o->read_end && ec == OTF2_SUCCESS; i++)
        for (size_t j = 0; j < nlocs(o, i) && ec == OTF2_SUCCESS; j++)
            ec = OTF2_Reader_SelectLocation(o->reader, loc_of(o, i, j));
    if (ec == OTF2_SUCCESS)
        ec = OTF2_Reader_OpenEvtFiles(o->reader);
    if (ec != OTF2_SUCCESS)
        return rt__otf2_fail(err, RT_E_FORMAT, r->path,
                             "damaged OTF2 archive: event files unreadable", ec);
    int rc = 0;
    if (OTF2_Reader_OpenDefFiles(o->reader) == OTF2_SUCCESS) {
        for (uint64_t i = o->cur, j = 0; i < o->read_end && !rc;
             j + 1 < nlocs(o, (uint32_t)i) ? j++ : (j = 0, i++)) {
            uint64_t loc = loc_of(o, (uint32_t)i, j);
            char name[48];
            snprintf(name, sizeof name, "/%llu.def", (unsigned long long)loc);
            uint64_t records = 0;
            rc = rt__otf2r_check_defs(r, o, name, 1, &records, err);
            /* A def reader costs a zeroed buffer of a definition chunk (4 MiB in our archives,
             * whose local definition files hold no record): only for records to read. */
            OTF2_DefReader *dr = rc || !records ? NULL : OTF2_Reader_GetDefReader(o->reader, loc);
            if (dr) {
                uint64_t n;
                OTF2_Reader_ReadAllLocalDefinitions(o->reader, dr, &n);
                OTF2_Reader_CloseDefReader(o->reader, dr);
            }
        }
        OTF2_Reader_CloseDefFiles(o->reader);
    }
    rt__otf2_quiet();
    return rc;
}

int rt__otf2_open(rt_reader *r, rt_err *err)
{
    rt__otf2_quiet();
    otf2r *o = calloc(1, sizeof *o);
    if (o && (!(o->blk = malloc((RT__OTF2R_BLOCK + 2) * sizeof *o->blk)) ||
              !(o->pos = malloc((RT__OTF2R_BLOCK + 2) * sizeof *o->pos)))) {
        free(o->blk);
        free(o);
        o = NULL;
    }
    if (!o)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    for (unsigned i = 0; i < RT__ATTR_COUNT; i++)
        o->attr_ref[i] = OTF2_UNDEFINED_ATTRIBUTE;
    o->param_pending = OTF2_UNDEFINED_PARAMETER;
    o->param_peer = OTF2_UNDEFINED_PARAMETER;
    o->param_error = OTF2_UNDEFINED_PARAMETER;
    for (unsigned i = 0; i < RT_REQH_COUNT; i++)
        o->param_reqh[i] = OTF2_UNDEFINED_PARAMETER;
    for (unsigned i = 0; i < RT_HANDLE_COUNT; i++)
        o->param_handle[i] = OTF2_UNDEFINED_PARAMETER;
    for (unsigned i = 0; i < RT_WATTACH_COUNT; i++)
        o->param_wattach[i] = OTF2_UNDEFINED_PARAMETER;
    for (unsigned i = 0; i < RT_BUF_COUNT; i++)
        o->param_buffer[i] = OTF2_UNDEFINED_PARAMETER;
    int rc = 0;
    o->anchor = rt__otf2r_find_anchor(r->path, err);
    if (!o->anchor)
        rc = err ? -err->code : -RT_E_FORMAT;
    if (!rc) {
        char *defs = rt__otf2r_archive_file(o, ".def");
        rc = defs ? rt__otf2_check_anchor(o->anchor, defs, err)
                  : rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
        free(defs);
    }
    if (!rc) {
        o->reader = OTF2_Reader_Open(o->anchor);
        if (!o->reader)
            rc = rt__otf2_fail(err, RT_E_FORMAT, r->path,
                               "not a trace or damaged OTF2 archive: anchor file unreadable",
                               OTF2_ERROR_INVALID);
    }
    if (!rc && (OTF2_Reader_SetSerialCollectiveCallbacks(o->reader) != OTF2_SUCCESS ||
                OTF2_Reader_GetChunkSize(o->reader, &o->evt_chunk, &o->def_chunk) != OTF2_SUCCESS))
        rc = rt_err_set(err, RT_E_OTF2, "%s: cannot set up the OTF2 reader", r->path);
    if (!rc) {
        char *creator = NULL;
        if (OTF2_Reader_GetCreator(o->reader, &creator) == OTF2_SUCCESS && creator) {
            o->ours = !strcmp(creator, "retrace");
            free(creator);
        }
        rc = rt__otf2r_read_global_defs(r, o, err);
    }
    char *note = NULL;
    if (!rc && OTF2_Reader_GetProperty(o->reader, RT__TRUNCATED_PROPERTY, &note) == OTF2_SUCCESS &&
        note) {
        rt__reader_set_truncated(r, "%s", note);
        free(note);
    }
    if (!rc)
        rc = rt__otf2r_build_defs(r, o, err);
    char *peers = NULL;
    if (!rc &&
        OTF2_Reader_GetProperty(o->reader, RT__PEER_COUNTS_PROPERTY, &peers) == OTF2_SUCCESS &&
        peers) {
        if (!strcmp(peers, "1"))
            r->defs.flags |= RT_DEFS_COLL_PEERS;
        free(peers);
    }
    char *sizes = NULL;
    if (!rc &&
        OTF2_Reader_GetProperty(o->reader, RT__ELEM_SIZES_PROPERTY, &sizes) == OTF2_SUCCESS &&
        sizes) {
        if (!strcmp(sizes, "1")) {
            r->defs.flags |= RT_DEFS_ELEM_SIZES;
            o->sizes = 1;
        }
        free(sizes);
    }
    char *bufs = NULL;
    if (!rc && OTF2_Reader_GetProperty(o->reader, RT__BUFFERS_PROPERTY, &bufs) == OTF2_SUCCESS &&
        bufs) {
        if (!strcmp(bufs, "1"))
            r->defs.flags |= RT_DEFS_BUFFERS;
        free(bufs);
    }
    char *lib = NULL;
    if (!rc && OTF2_Reader_GetProperty(o->reader, RT__MPI_LIBRARY_PROPERTY, &lib) == OTF2_SUCCESS &&
        lib) {
        if (rt_library_valid(lib, sizeof r->defs.library))
            memcpy(r->defs.library, lib, strlen(lib) + 1);
        else
            rc = rt_err_set(err, RT_E_FORMAT,
                            "%s: damaged OTF2 archive: property %s is not an MPI library's name",
                            r->path, RT__MPI_LIBRARY_PROPERTY);
        free(lib);
    }
    /* A part (rt_reader_open_ranks) reads its ranks only: trace.c refuses a range past the
     * ranks once this returns. */
    o->read_end = r->defs.nranks;
    if (r->part) {
        o->read_end = r->rank_hi < o->read_end ? r->rank_hi : o->read_end;
        o->cur = r->rank_lo < o->read_end ? r->rank_lo : o->read_end;
    }
    if (!rc)
        rc = open_events(r, o, err);
    if (rc) {
        otf2r_free(o);
        return rc;
    }
    r->impl = o;
    r->ops = &otf2_reader_ops;
    r->by_rank = 1; /* r_next_block reads one rank after the other */
    return 0;
}
