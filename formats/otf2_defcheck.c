/*
 * OTF2 definition files, and the last chunk of an event file, walked before the OTF2 library
 * reads them.
 *
 * OTF2 3.0's readers trust the counts in a definition record: a Group definition claiming
 * 2^32 - 1 members makes OTF2_GlobalDefReader ask malloc for 32 GiB before it reads a single
 * member, and the members are then read without a bound on the record (only the chunk's end,
 * and not even that: OTF2_Buffer_ReadUint64 does not look). So every record that carries an
 * array is checked here first: its count must fit in the bytes left in its record (an element
 * takes at least one byte), and each element must end inside the record.
 *
 * The layout (OTF2_Buffer.c, OTF2_Buffer.h): a file is chunks of the archive's chunk size (the
 * definition chunk size for definition files, the event chunk size for event files; the last
 * chunk is as long as what is left; the files on disk are the chunks themselves: OTF2 3.0
 * deprecates its zlib compression, and the library we link has none):
 *
 *   u8 3 (chunk header)   u8 byte order: 0x42 little, 0x23 big endian   u64 x2 event numbers
 *   records ...
 *   u8 0 (end of chunk: the rest is padding)   or, in the last chunk,
 *   u8 2 (end of file)  u8 1 (end of buffer)
 *
 * A definition record is its type (u8), its length (u8, or 0xff and a u64 from 255 bytes on),
 * and that many bytes; OTF2 wants one more byte of the chunk after it. Integers are compressed:
 * a size byte, 0 for the value 0, 0xff for the all-ones value, else 1..4 (u32) or 1..8 (u64)
 * bytes of value follow, in the chunk's byte order. Unknown record types are skipped by their
 * length, as OTF2 does. In an event file a record may follow a time stamp (u8 5, a u64) and an
 * attribute list (u8 6, a length, that many bytes); an event is a type, a length and that many
 * bytes, except the ten of singleton_event: a type and one compressed integer.
 *
 * The records that carry an array (OTF2_GlobalDefReader_inc.c, OTF2_DefReader_inc.c,
 * otf2_id_map.c; the callbacks of OTF2_GlobalDefReaderCallbacks.h and OTF2_DefReaderCallbacks.h
 * that take a pointer): in the global definitions IoParadigm, Group, MetricClass, CartTopology
 * and CartCoordinate; in a location's local definitions MappingTable (an id map), Group,
 * MetricClass, CartTopology and CartCoordinate. Every other record type of OTF2 3.0 (String,
 * Region, Comm, InterComm, Location, the property records ...) is a fixed list of integers,
 * strings (read up to their NUL, bounded by the chunk) and single attribute values: nothing in
 * them sizes an allocation.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt__otf2r.h"

#define END_OF_CHUNK 0
#define END_OF_BUFFER 1
#define END_OF_FILE 2
#define CHUNK_HEADER 3
#define TIMESTAMP 5 /* events: a u64 time stamp, uncompressed */
#define HEADER_SIZE 18
#define ENDIAN_LITTLE 0x42
#define ENDIAN_BIG 0x23

/* How a field is stored. F_PROP: an IoParadigm property (u8 property, u8 type, a value of
 * that type): at least 3 bytes. F_MAP: an id map's u8 mode, then u64 entries, one per mapping
 * (dense) or two (sparse). */
enum { F_U8, F_U32, F_U64, F_PROP, F_MAP };

/* Results of taking a field. */
enum { TAKE_OK, TAKE_PAST, TAKE_BAD };

enum { IN_GLOBAL = 1, IN_LOCAL = 2, IN_BOTH = 3 };

/* A record type that carries an array: the fields before its count, the count, the elements. */
typedef struct array_def {
    uint8_t type, files;
    const char *name, *elements;
    uint8_t nfields, fields[5], count, elem;
} array_def;

static const array_def array_defs[] = {
    {8, IN_GLOBAL, "IoParadigm", "properties", 5, {F_U8, F_U32, F_U32, F_U8, F_U32}, F_U8, F_PROP},
    {18, IN_BOTH, "Group", "members", 3, {F_U32, F_U32, F_U8}, F_U32, F_U64},
    {20, IN_BOTH, "MetricClass", "metric members", 1, {F_U32}, F_U8, F_U32},
    {31, IN_BOTH, "CartTopology", "dimensions", 3, {F_U32, F_U32, F_U32}, F_U8, F_U32},
    {32, IN_BOTH, "CartCoordinate", "coordinates", 2, {F_U32, F_U32}, F_U8, F_U32},
    {5, IN_LOCAL, "MappingTable", "mappings", 1, {F_U8}, F_U64, F_MAP},
};

/* The event records OTF2 writes without a length: a type and one compressed integer
 * (OTF2_EvtReader.c, otf2_evt_reader_skip: Enter, Leave, MpiIsendComplete, MpiIrecvRequest,
 * MpiRequestTest, MpiRequestCancelled, OmpFork, OmpTaskCreate, OmpTaskSwitch,
 * OmpTaskComplete). */
static int singleton_event(unsigned type)
{
    return type == 12 || type == 13 || type == 16 || type == 17 || type == 20 || type == 21 ||
           type == 24 || (type >= 28 && type <= 30);
}

/* n bytes at p as an unsigned number in the chunk's byte order. */
static uint64_t number(const uint8_t *p, unsigned n, int big)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < n; i++)
        x |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
    return x;
}

/* A field of kind F_U8, F_U32 or F_U64 at *p (before end) into *v; *p moves past it. */
static int take(const uint8_t **p, const uint8_t *end, int big, int kind, uint64_t *v)
{
    if (*p >= end)
        return TAKE_PAST;
    unsigned size = *(*p)++;
    if (kind == F_U8) {
        *v = size;
        return TAKE_OK;
    }
    if (size == 0 || size == 0xff) {
        *v = size == 0 ? 0 : kind == F_U32 ? UINT32_MAX : UINT64_MAX;
        return TAKE_OK;
    }
    if (size > (kind == F_U32 ? 4u : 8u))
        return TAKE_BAD;
    if ((size_t)(end - *p) < size)
        return TAKE_PAST;
    *v = number(*p, size, big);
    *p += size;
    return TAKE_OK;
}

/* A record's length (u8, or 0xff and a u64) into *len; TAKE_PAST when the record, and the one
 * byte OTF2 wants after it, do not fit before end. */
static int take_record(const uint8_t **p, const uint8_t *end, int big, uint64_t *len)
{
    if (*p >= end)
        return TAKE_PAST;
    *len = *(*p)++;
    if (*len == 0xff) {
        if (end - *p < 8)
            return TAKE_PAST;
        *len = number(*p, 8, big);
        *p += 8;
    }
    return *len < (uint64_t)(end - *p) ? TAKE_OK : TAKE_PAST;
}

/* The chunk header at *p: TAKE_OK (byte order in *big), TAKE_PAST or TAKE_BAD. */
static int take_header(const uint8_t **p, const uint8_t *end, int *big)
{
    const uint8_t *h = *p;
    if (h >= end)
        return TAKE_PAST;
    if (h[0] != CHUNK_HEADER || (end - h >= 2 && h[1] != ENDIAN_LITTLE && h[1] != ENDIAN_BIG))
        return TAKE_BAD;
    if (end - h < HEADER_SIZE)
        return TAKE_PAST;
    *big = h[1] == ENDIAN_BIG;
    *p = h + HEADER_SIZE;
    return TAKE_OK;
}

/* ---- definition files ----------------------------------------------------------------------- */

typedef struct defcheck {
    const char *trace, *name; /* for messages: the trace as given, the file in the archive */
    unsigned files;           /* IN_GLOBAL or IN_LOCAL */
    int big;
    uint64_t records; /* walked so far */
    rt_err *err;
} defcheck;

static int def_fail(const defcheck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int def_fail(const defcheck *c, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_err_set(c->err, RT_E_FORMAT, "%s: damaged OTF2 archive: %s: %s", c->trace, c->name,
                      what);
}

/* The array of a record of type d (its len bytes at rec; at: its type byte's offset in the
 * file): its count within the bytes left, every element inside the record. */
static int check_array(const defcheck *c, const array_def *d, const uint8_t *rec, uint64_t len,
                       uint64_t at)
{
    const uint8_t *p = rec, *end = rec + len;
    uint64_t v = 0, count = 0, per = 1;
    int rc = TAKE_OK;
    for (unsigned i = 0; i < d->nfields && rc == TAKE_OK; i++)
        rc = take(&p, end, c->big, d->fields[i], &v);
    if (rc == TAKE_OK)
        rc = take(&p, end, c->big, d->count, &count);
    if (rc == TAKE_OK && d->elem == F_MAP && (rc = take(&p, end, c->big, F_U8, &v)) == TAKE_OK) {
        if (v > 1)
            return def_fail(c, "%s definition at byte %llu: unknown id map mode %llu", d->name,
                            (unsigned long long)at, (unsigned long long)v);
        per = v + 1; /* sparse maps hold a pair for each mapping */
    }
    if (rc == TAKE_BAD)
        return def_fail(c, "%s definition at byte %llu: an integer of invalid size", d->name,
                        (unsigned long long)at);
    if (rc == TAKE_PAST)
        return def_fail(c,
                        "%s definition at byte %llu: its fields run past the end of its "
                        "record of %llu bytes",
                        d->name, (unsigned long long)at, (unsigned long long)len);
    uint64_t left = (uint64_t)(end - p), least = d->elem == F_PROP ? 3 : 1;
    if (count > left / least / per)
        return def_fail(c, "%s definition at byte %llu claims %llu %s in a record of %llu bytes",
                        d->name, (unsigned long long)at, (unsigned long long)count, d->elements,
                        (unsigned long long)len);
    int kind = d->elem == F_MAP ? F_U64 : d->elem;
    /* A property's value has the size of its type: only its least size is checked above. */
    for (uint64_t i = 0; kind != F_PROP && i < count * per && rc == TAKE_OK; i++)
        rc = take(&p, end, c->big, kind, &v);
    if (rc != TAKE_OK)
        return def_fail(c, "%s definition at byte %llu: its %s %s", d->name, (unsigned long long)at,
                        d->elements,
                        rc == TAKE_BAD ? "hold an integer of invalid size"
                                       : "run past the end of their record");
    return 0;
}

static const array_def *array_def_of(unsigned type, unsigned files)
{
    for (size_t i = 0; i < sizeof array_defs / sizeof *array_defs; i++)
        if (array_defs[i].type == type && (array_defs[i].files & files))
            return &array_defs[i];
    return NULL;
}

/* The records of one chunk: its n bytes at buf, at offset at of the file, last when the file
 * ends with it. 1 at the end-of-file mark, 0 at the end-of-chunk mark, else -RT_E_FORMAT. */
static int walk_def_chunk(defcheck *c, const uint8_t *buf, size_t n, uint64_t at, int last)
{
    const uint8_t *p = buf, *end = buf + n;
    int rc = take_header(&p, end, &c->big);
    if (rc == TAKE_BAD)
        return def_fail(c, "the chunk at byte %llu is no OTF2 chunk (no chunk header)",
                        (unsigned long long)at);
    if (rc == TAKE_PAST)
        return def_fail(c, "cut short in the chunk header at byte %llu", (unsigned long long)at);
    while (p < end) {
        uint64_t rec_at = at + (uint64_t)(p - buf), len;
        unsigned type = *p++;
        if (type == END_OF_FILE)
            return 1;
        if (type == END_OF_CHUNK && !last)
            return 0;
        if (type == END_OF_CHUNK)
            break;
        if (take_record(&p, end, c->big, &len) != TAKE_OK)
            return def_fail(c,
                            last ? "cut short: the record at byte %llu runs past the end of "
                                   "the file"
                                 : "the record at byte %llu runs past the end of its chunk",
                            (unsigned long long)rec_at);
        c->records++;
        const array_def *d = array_def_of(type, c->files);
        if (d && (rc = check_array(c, d, p, len, rec_at)) != 0)
            return rc;
        p += len;
    }
    if (!last)
        return def_fail(c, "the chunk at byte %llu has no end mark", (unsigned long long)at);
    return def_fail(c, "cut short (no end-of-file mark in its %llu bytes)",
                    (unsigned long long)(at + n));
}

/* Walks every chunk of the open file f (size bytes) with a buffer of one chunk. */
static int walk_def_file(defcheck *c, FILE *f, uint64_t size, uint64_t chunk)
{
    size_t cap = (size_t)(size < chunk ? size : chunk);
    uint8_t *buf = malloc(cap);
    if (!buf)
        return rt_err_set(c->err, RT_E_NOMEM, "%s: out of memory", c->trace);
    int rc = 0;
    for (uint64_t at = 0; rc == 0 && at < size; at += chunk) {
        size_t n = (size_t)(size - at < chunk ? size - at : chunk);
        if (fread(buf, 1, n, f) != n)
            rc = rt_err_set(c->err, RT_E_IO, "%s: cannot read %s", c->trace, c->name);
        else
            rc = walk_def_chunk(c, buf, n, at, at + n == size);
    }
    free(buf);
    return rc < 0 ? rc : 0;
}

int rt__otf2r_check_defs(const rt_reader *r, const otf2r *o, const char *suffix, int local,
                         uint64_t *records, rt_err *err)
{
    char *path = rt__otf2r_archive_file(o, suffix);
    if (!path)
        return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", r->path);
    const char *slash = strrchr(o->anchor, '/');
    defcheck c = {.trace = r->path,
                  .name = path + (slash ? slash - o->anchor + 1 : 0),
                  .files = local ? IN_LOCAL : IN_GLOBAL,
                  .err = err};
    int rc = 0;
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f && !(local && errno == ENOENT)) /* a location may have no local definitions */
        rc = rt_err_set(err, RT_E_IO, "%s: cannot open %s: %s", r->path, c.name, strerror(errno));
    else if (f && (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)))
        rc = def_fail(&c, "not a regular file");
    else if (f && st.st_size == 0)
        rc = def_fail(&c, "empty");
    else if (f)
        rc = walk_def_file(&c, f, (uint64_t)st.st_size, o->def_chunk);
    if (f)
        fclose(f);
    free(path);
    if (records)
        *records = c.records;
    return rc;
}

/* ---- the last chunk of an event file -------------------------------------------------------- */

/* What an event chunk's byte means where a record begins. */
enum { EV_RECORD, EV_SINGLETON, EV_TIMESTAMP, EV_END_OF_FILE, EV_STOP };

/* The kind of each record type, for the walk of last_chunk_complete, and the bytes a
 * singleton's compressed integer takes after its type byte by its size byte (its size and
 * the value; 0: no such size): tables, as that walk runs over up to a chunk of every rank's
 * events and a switch costs twice as much. Filled once (pthread_once): a trace's ranks may
 * be read in threads (analyzer/pass.c). */
static uint8_t event_kind[256], singleton_step[256];
static pthread_once_t event_kind_once = PTHREAD_ONCE_INIT;

static void fill_event_kinds(void)
{
    for (unsigned t = 0; t < 256; t++) {
        event_kind[t] = singleton_event(t) ? EV_SINGLETON : EV_RECORD;
        singleton_step[t] = (uint8_t)(t <= 8 ? t + 1 : t == 0xff ? 1 : 0);
    }
    event_kind[TIMESTAMP] = EV_TIMESTAMP;
    event_kind[END_OF_FILE] = EV_END_OF_FILE;
    /* the file goes on past its last chunk, or stops without its marks */
    event_kind[END_OF_BUFFER] = event_kind[CHUNK_HEADER] = EV_STOP;
    event_kind[END_OF_CHUNK] = EV_STOP;
}

/* 1 when the chunk of n bytes at p walks to the end-of-file and end-of-buffer marks that end
 * the file. Every record is looked at once, in the order the writers put them most (a time
 * stamp, then an event); take_record's test inline. */
static int last_chunk_complete(const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n;
    int big = 0;
    if (take_header(&p, end, &big) != TAKE_OK)
        return 0;
    pthread_once(&event_kind_once, fill_event_kinds);
    while (p < end) {
        unsigned kind = event_kind[*p++];
        if (kind == EV_TIMESTAMP) {
            if (end - p < 8)
                return 0;
            p += 8;
        } else if (kind == EV_SINGLETON) { /* a compressed integer: its size byte, then the value */
            size_t step = p < end ? singleton_step[*p] : 0;
            if (!step || step > (size_t)(end - p))
                return 0;
            p += step;
        } else if (kind == EV_RECORD) { /* an event, an attribute list, or a type unknown */
            if (p >= end)
                return 0;
            uint64_t len = *p++;
            if (len == 0xff) {
                if (end - p < 8)
                    return 0;
                len = number(p, 8, big);
                p += 8;
            }
            if (len >= (uint64_t)(end - p)) /* the record, and the byte OTF2 wants after it */
                return 0;
            p += len;
        } else {
            return kind == EV_END_OF_FILE && end - p == 1 && *p == END_OF_BUFFER;
        }
    }
    return 0;
}

int rt__otf2r_file_complete(const char *path, uint64_t chunk)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    struct stat st;
    int ok = 0;
    if (chunk && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        uint64_t size = (uint64_t)st.st_size, at = (size - 1) / chunk * chunk;
        size_t n = (size_t)(size - at);
        uint8_t *buf = malloc(n);
        ok = buf && fseek(f, (long)at, SEEK_SET) == 0 && fread(buf, 1, n, f) == n &&
             last_chunk_complete(buf, n);
        free(buf);
    }
    fclose(f);
    return ok;
}
