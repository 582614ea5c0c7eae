/*
 * The raw trace's files on disk, as the raw reader's other files need them: their names
 * (rR.defs.rtr, rR.tT.rtr) and the directory that holds them, the header every one starts
 * with and its checks, a file read in large blocks, and the error messages that name a file
 * and an offset in it. Nothing here knows what the records mean (raw_reader.c, raw_defs.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt__raw.h"
#include "rt_checked.h"

/* ---- files ---------------------------------------------------------------------------------- */

int rt__rf_need(rt__rfile *f, size_t n)
{
    while (f->len - f->pos < n) {
        if (f->eof)
            return 0;
        if (f->pos) {
            memmove(f->buf, f->buf + f->pos, f->len - f->pos);
            f->base += f->pos;
            f->len -= f->pos;
            f->pos = 0;
        }
        if (RT_VEC_RESERVE(f->buf, f->cap, f->len + 1 > n ? (uint64_t)f->len + 1 : n, 0) < 0) {
            errno = ENOMEM;
            return -RT_E_NOMEM;
        }
        ssize_t got = read(f->fd, f->buf + f->len, f->cap - f->len);
        if (got < 0 && errno != EINTR)
            return -RT_E_IO;
        if (got == 0)
            f->eof = 1;
        if (got > 0)
            f->len += (size_t)got;
    }
    return 1;
}

int rt__rf_open(rt__rfile *f, const char *path, size_t cap)
{
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0)
        return errno == ENOENT ? -RT_E_NOTFOUND : -RT_E_IO;
    posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    f->len = f->pos = 0;
    f->base = 0;
    f->eof = 0;
    if (f->cap < cap) {
        free(f->buf);
        f->cap = 0;
        if (!(f->buf = malloc(cap))) {
            close(f->fd);
            f->fd = -RT_E_INVAL;
            errno = ENOMEM;
            return -RT_E_NOMEM;
        }
        f->cap = cap;
    }
    return 0;
}

void rt__rf_close(rt__rfile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -RT_E_INVAL;
}

int rt__raw_fail_at(rt_err *err, const char *path, uint64_t off, const char *fmt, ...)
{
    char msg[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rt_err_set(err, RT_E_FORMAT, "%s: offset %llu: %s", path, (unsigned long long)off, msg);
}

int rt__raw_read_failed(rt_err *err, const char *path)
{
    int e = errno ? errno : EIO;
    return rt_err_set(err, e == ENOMEM ? RT_E_NOMEM : RT_E_IO, "%s: %s", path, strerror(e));
}

/* ---- the directory and the headers --------------------------------------------------------- */

void rt__raw_path(const char *dir, uint32_t rank, uint32_t thread, char *buf, size_t len)
{
    if (thread == RT_RAW_THREAD_DEFS)
        snprintf(buf, len, "%s/" RT_RAW_DEFS_NAME, dir, (unsigned)rank);
    else
        snprintf(buf, len, "%s/" RT_RAW_THREAD_NAME, dir, (unsigned)rank, (unsigned)thread);
}

/* A rank or thread number: decimal, no sign, no leading zero. */
static int parse_num(const char **s, uint32_t *out)
{
    const char *p = *s;
    uint64_t v;
    if (p[0] == '0' && p[1] >= '0' && p[1] <= '9')
        return -RT_E_INVAL;
    if (rt_parse_digits(p, &p, &v) < 0 || v > UINT32_MAX)
        return -RT_E_INVAL;
    *s = p;
    *out = (uint32_t)v;
    return 0;
}

/* "rR.defs.rtr" (thread RT_RAW_THREAD_DEFS) or "rR.tT.rtr"; -RT_E_INVAL for other names. */
static int parse_name(const char *name, uint32_t *rank, uint32_t *thread)
{
    if (*name++ != 'r' || parse_num(&name, rank))
        return -RT_E_INVAL;
    if (!strcmp(name, ".defs.rtr")) {
        *thread = RT_RAW_THREAD_DEFS;
        return 0;
    }
    if (strncmp(name, ".t", 2))
        return -RT_E_INVAL;
    name += 2;
    if (parse_num(&name, thread) || *thread == RT_RAW_THREAD_DEFS || strcmp(name, ".rtr"))
        return -RT_E_INVAL;
    return 0;
}

static int cmp_file(const void *a, const void *b)
{
    const rt__raw_file *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

int rt__raw_list(const char *dir, rt__raw_file **files, size_t *nfiles, rt_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return rt_err_set(err, errno == ENOENT ? RT_E_NOTFOUND : RT_E_IO, "%s: %s", dir,
                          strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        rt__raw_file t;
        if (parse_name(e->d_name, &t.rank, &t.thread))
            continue;
        if (RT_VEC_RESERVE(*files, cap, (uint64_t)*nfiles + 1, 64) < 0) {
            rc = rt_err_set(err, RT_E_NOMEM, "%s: out of memory", dir);
            break;
        }
        (*files)[(*nfiles)++] = t;
    }
    closedir(d);
    if (!rc)
        qsort(*files, *nfiles, sizeof **files, cmp_file);
    return rc;
}

int rt__raw_check_header(const char *path, const unsigned char *p, size_t n, uint32_t rank,
                         uint32_t thread, uint32_t *nranks, const char *nranks_from,
                         rt_raw_header *h, rt_err *err)
{
    static const unsigned char zero[8];
    size_t m = n < 8 ? n : 8;
    if (!memcmp(p, zero, m))
        return 0;
    if (memcmp(p, RT_RAW_MAGIC, m))
        return rt_err_set(err, RT_E_FORMAT, "%s: not a retrace raw file", path);
    if (n < RT__RAW_HDR)
        return 0;
    memcpy(h, p, RT__RAW_HDR);
    if (h->version == __builtin_bswap32(RT_RAW_VERSION) ||
        h->version == __builtin_bswap32(RT_RAW_VERSION_TICKS))
        return rt_err_set(err, RT_E_FORMAT,
                          "%s: written on a machine of the other byte order (not supported)", path);
    if (h->version != RT_RAW_VERSION && h->version != RT_RAW_VERSION_TICKS)
        return rt_err_set(err, RT_E_FORMAT,
                          "%s: raw format version %u (this reader reads %u and %u)", path,
                          (unsigned)h->version, RT_RAW_VERSION, RT_RAW_VERSION_TICKS);
    if (h->rank != rank || h->thread != thread) {
        char whose[48];
        if (h->thread == RT_RAW_THREAD_DEFS)
            snprintf(whose, sizeof whose, "the definitions");
        else
            snprintf(whose, sizeof whose, "thread %u", (unsigned)h->thread);
        return rt_err_set(err, RT_E_FORMAT, "%s: the header is that of rank %u, %s", path,
                          (unsigned)h->rank, whose);
    }
    if (h->nranks == 0 || h->nranks > RT_MAX_RANKS)
        return rt_err_set(err, RT_E_FORMAT, "%s: number of ranks %u out of range (1 to %u)", path,
                          (unsigned)h->nranks, RT_MAX_RANKS);
    if (*nranks && h->nranks != *nranks)
        return rt_err_set(err, RT_E_FORMAT, "%s: the header says %u ranks, %s says %u", path,
                          (unsigned)h->nranks, nranks_from, (unsigned)*nranks);
    if (rank >= h->nranks)
        return rt_err_set(err, RT_E_FORMAT, "%s: rank %u, but the trace has %u ranks", path,
                          (unsigned)rank, (unsigned)h->nranks);
    *nranks = h->nranks;
    return 1;
}

char *rt__raw_trace_dir(const char *path)
{
    struct stat st;
    int is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    const char *slash = strrchr(path, '/');
    size_t n = strlen(path);
    if (!is_dir)
        n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    return n ? strndup(path, n) : strdup(".");
}

void rt_raw_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096 + 300];
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == 'r' && n > 4 && !strcmp(e->d_name + n - 4, ".rtr") &&
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
            unlink(path);
    }
    closedir(d);
    rmdir(dir); /* only when nothing else is left in it */
}

/* ---- the clock ----------------------------------------------------------------------------- */

int rt__raw_clock_set(rt__raw_clock *c, const rt_raw_def_clock *d, char *why, size_t len)
{
    if (!d->ticks || !d->ns) {
        snprintf(why, len, "a clock calibration of %llu ticks in %llu ns",
                 (unsigned long long)d->ticks, (unsigned long long)d->ns);
        return -1;
    }
    /* ticks per second, in 128 bits: ticks * 10^9 passes 2^64 from 18 s at 1 GHz on */
    rt_u128 hz = (rt_u128)d->ticks * 1000000000u / d->ns;
    if (hz < RT_RAW_CLOCK_MIN_HZ || hz > RT_RAW_CLOCK_MAX_HZ) {
        char rate[RT_U128_LEN];
        snprintf(why, len, "a clock of %s Hz (%llu ticks in %llu ns; 1 MHz to 100 GHz expected)",
                 rt_u128_str(hz, rate, sizeof rate), (unsigned long long)d->ticks,
                 (unsigned long long)d->ns);
        return -1;
    }
    c->ticks = d->ticks;
    c->ns = d->ns;
    c->have = 1;
    return 0;
}

int rt__raw_clock_ns(const rt__raw_clock *c, uint64_t t, uint64_t *ns)
{
    if (c->version != RT_RAW_VERSION_TICKS) {
        *ns = t;
        return 0;
    }
    /* t and ns are below 2^64: t * ns + ticks / 2 is below 2^128 */
    rt_u128 v = ((rt_u128)t * c->ns + c->ticks / 2) / c->ticks;
    if (v > UINT64_MAX)
        return -1;
    *ns = (uint64_t)v;
    return 0;
}
