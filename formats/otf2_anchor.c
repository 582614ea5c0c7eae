/*
 * The OTF2 anchor file: found (rt__otf2r_find_anchor), and checked before the OTF2 library
 * sees it.
 *
 * OTF2 3.0's OTF2_Reader_Open trusts the anchor file: on a damaged one it writes past a
 * zero-length allocation, frees twice, loops, or sizes its buffers from a chunk size of
 * gigabytes. The file is small and its layout fixed (OTF2_AnchorFile_Load, OTF2_Buffer.h), so
 * it is read here first, completely, and every field the library acts on is checked:
 *
 *   u8  3 (a chunk header)        u8  byte order: 0x42 little, 0x23 big endian
 *   "OTF2\0"                      u8  anchor format (1..3 known; later ones are read as 3)
 *   u8  trace format              u8 x3 OTF2 version
 *   u64 event chunk size          u64 definition chunk size (both 256 KiB .. 16 MiB)
 *   u8  substrate (1 POSIX, 2 SIONlib, 3 none)   u8 compression (1 none, 2 zlib)
 *   u64 locations                 u64 global definitions
 *   string machine, creator, description
 *   format >= 2: u32 properties, then a name and a value string each; u64 trace id
 *   format >= 3: u32 snapshots, u32 thumbnails, u8 2 (end of file)
 *
 * Counts are bounded by what the archive holds: every location and every global definition
 * is a record of at least two bytes in the global definition file.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt__otf2r.h"

#define ANCHOR_MAX (1u << 20) /* OTF2's own are ~100 bytes; Score-P's a few KiB */
#define ENDIAN_LITTLE 0x42
#define ENDIAN_BIG 0x23

typedef struct anchor_in {
    const uint8_t *p, *end;
    int big;
    const char *path;
    rt_err *err;
} anchor_in;

static int bad(anchor_in *a, const char *what)
{
    return rt_err_set(a->err, RT_E_FORMAT, "%s: damaged OTF2 anchor file: %s", a->path, what);
}

static int take(anchor_in *a, size_t n, uint64_t *v, const char *what)
{
    if ((size_t)(a->end - a->p) < n)
        return bad(a, what);
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x |= (uint64_t)a->p[a->big ? n - 1 - i : i] << (8 * i);
    a->p += n;
    *v = x;
    return 0;
}

static int take_string(anchor_in *a, const char *what)
{
    const uint8_t *nul = memchr(a->p, 0, (size_t)(a->end - a->p));
    if (!nul)
        return bad(a, what);
    a->p = nul + 1;
    return 0;
}

/* Byte order, magic, format; the fixed fields up to the global definition count. */
static int check_head(anchor_in *a, uint64_t *format, uint64_t *locations, uint64_t *defs)
{
    uint64_t chunk[2] = {0, 0}, substrate = 0, compression = 0;
    if (a->end - a->p < 8)
        return bad(a, "empty or cut short");
    if (a->p[0] != 3)
        return bad(a, "not an OTF2 anchor file (no chunk header)");
    if (a->p[1] != ENDIAN_LITTLE && a->p[1] != ENDIAN_BIG)
        return bad(a, "not an OTF2 anchor file (bad byte-order mark)");
    a->big = a->p[1] == ENDIAN_BIG;
    if (memcmp(a->p + 2, "OTF2", 5))
        return bad(a, "not an OTF2 anchor file (no OTF2 magic)");
    a->p += 7;
    take(a, 1, format, "");
    if (*format == 0)
        return bad(a, "anchor format 0");
    if (a->end - a->p < 38)
        return bad(a, "cut short");
    a->p += 4; /* trace format and OTF2 version: information only */
    take(a, 8, &chunk[0], "");
    take(a, 8, &chunk[1], "");
    take(a, 1, &substrate, "");
    take(a, 1, &compression, "");
    take(a, 8, locations, "");
    take(a, 8, defs, "");
    for (int i = 0; i < 2; i++)
        if (chunk[i] < OTF2_CHUNK_SIZE_MIN || chunk[i] > OTF2_CHUNK_SIZE_MAX) {
            char why[128];
            snprintf(why, sizeof why, "%s chunk size %llu outside OTF2's 256 KiB to 16 MiB",
                     i ? "definition" : "event", (unsigned long long)chunk[i]);
            return bad(a, why);
        }
    if (substrate < OTF2_SUBSTRATE_POSIX || substrate > OTF2_SUBSTRATE_NONE)
        return bad(a, "unknown file substrate");
    if (compression != OTF2_COMPRESSION_NONE && compression != 2 /* zlib */)
        return bad(a, "unknown compression");
    return 0;
}

/* Strings, properties, trace id, snapshot and thumbnail counts, end mark. */
static int check_tail(anchor_in *a, uint64_t format)
{
    uint64_t nprops = 0, v = 0;
    int rc = take_string(a, "machine name not terminated");
    if (!rc)
        rc = take_string(a, "creator not terminated");
    if (!rc)
        rc = take_string(a, "description not terminated");
    if (!rc && format >= 2 && (rc = take(a, 4, &nprops, "cut short in the properties")) == 0 &&
        nprops > (uint64_t)(a->end - a->p) / 2)
        return bad(a, "more properties than the file holds");
    for (uint64_t i = 0; !rc && i < 2 * nprops; i++)
        rc = take_string(a, "property not terminated");
    if (!rc && format >= 2)
        rc = take(a, 8, &v, "cut short before the trace id");
    if (!rc && format >= 3)
        rc = take(a, 4, &v, "cut short before the snapshot count");
    if (!rc && format >= 3)
        rc = take(a, 4, &v, "cut short before the thumbnail count");
    if (!rc && format == 3 && ((rc = take(a, 1, &v, "no end-of-file mark")) == 0 && v != 2))
        return bad(a, "no end-of-file mark");
    return rc;
}

/* Every location and every global definition is a record of at least two bytes in the
 * global definition file: counts beyond that are damage, not a large trace. */
static int check_counts(anchor_in *a, uint64_t locations, uint64_t defs, const char *global_defs)
{
    struct stat st;
    if (stat(global_defs, &st) < 0)
        return rt_err_set(a->err, RT_E_FORMAT,
                          "%s: damaged OTF2 archive: no global definitions (%s)", global_defs,
                          strerror(errno));
    char why[160];
    if (locations == 0)
        return bad(a, "no locations");
    if (locations > defs) {
        snprintf(why, sizeof why, "%llu locations but %llu global definitions",
                 (unsigned long long)locations, (unsigned long long)defs);
        return bad(a, why);
    }
    if (defs > (uint64_t)st.st_size / 2)
        return rt_err_set(a->err, RT_E_FORMAT,
                          "%s: damaged OTF2 archive: cut short (%lld bytes cannot hold the %llu "
                          "global definitions the anchor file counts)",
                          global_defs, (long long)st.st_size, (unsigned long long)defs);
    return 0;
}

/* The whole file into *buf (malloc'd, size *n): at most ANCHOR_MAX bytes, a regular file. */
static int read_anchor(anchor_in *a, uint8_t **buf, size_t *n)
{
    FILE *f = fopen(a->path, "rb");
    struct stat st;
    if (!f)
        return rt_err_set(a->err, RT_E_IO, "%s: cannot open: %s", a->path, strerror(errno));
    int rc = 0;
    *buf = NULL;
    if (fstat(fileno(f), &st) < 0)
        rc = rt_err_set(a->err, RT_E_IO, "%s: cannot read: %s", a->path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = bad(a, "not a regular file");
    else if (st.st_size > ANCHOR_MAX)
        rc = bad(a, "larger than 1 MiB (OTF2 anchor files are small)");
    else if (!(*buf = malloc((size_t)st.st_size + 1)))
        rc = rt_err_set(a->err, RT_E_NOMEM, "%s: out of memory", a->path);
    else if ((*n = fread(*buf, 1, (size_t)st.st_size, f)) < (size_t)st.st_size && ferror(f))
        rc = rt_err_set(a->err, RT_E_IO, "%s: cannot read", a->path);
    fclose(f);
    if (rc) {
        free(*buf);
        *buf = NULL;
    }
    return rc;
}

int rt__otf2_check_anchor(const char *anchor, const char *global_defs, rt_err *err)
{
    anchor_in a = {.path = anchor, .err = err};
    uint8_t *buf = NULL;
    size_t n = 0;
    int rc = read_anchor(&a, &buf, &n);
    if (rc)
        return rc;
    a.p = buf;
    a.end = buf + n;
    uint64_t format = 0, locations = 0, defs = 0;
    rc = check_head(&a, &format, &locations, &defs);
    if (!rc)
        rc = check_tail(&a, format);
    if (!rc)
        rc = check_counts(&a, locations, defs, global_defs);
    free(buf);
    return rc;
}

/* The anchor file: the path itself, or the one .otf2 file in the directory (traces.otf2
 * when there are several). */
char *rt__otf2r_find_anchor(const char *path, rt_err *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        /* The archive's other files are named after the anchor's stem (NAME.def, NAME/). */
        const char *base = strrchr(path, '/');
        size_t n = strlen(base ? base + 1 : path);
        if (n <= 5 || strcmp(path + strlen(path) - 5, ".otf2")) {
            rt_err_set(err, RT_E_FORMAT, "%s: not a trace (an OTF2 anchor file is named NAME.otf2)",
                       path);
            return NULL;
        }
        char *copy = strdup(path);
        if (!copy)
            rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
        return copy;
    }
    DIR *d = opendir(path);
    if (!d) {
        rt_err_set(err, RT_E_IO, "%s: cannot open directory", path);
        return NULL;
    }
    char *found = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".otf2"))
            continue;
        if (found && strcmp(e->d_name, RT__OTF2_ARCHIVE_NAME ".otf2"))
            continue;
        free(found);
        size_t len = strlen(path) + n + 2;
        found = malloc(len);
        if (found)
            snprintf(found, len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (!found)
        rt_err_set(err, RT_E_FORMAT, "%s: not a trace (a directory without an OTF2 anchor file)",
                   path);
    return found;
}
