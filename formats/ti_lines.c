/*
 * TI action files as lines of fields, and fields as checked numbers. The grammar of a line
 * is that of SimGrid 3.32's src/xbt/xbt_replay.cpp (trimmed, split at runs of blanks and
 * tabs); numbers are read as src/smpi/internals/smpi_replay.cpp reads them.
 *
 * Files are read with read() in blocks of a MiB into one buffer that every file reuses,
 * lines are found with memchr and split in place: reading a trace costs no allocation per
 * line, which is what makes it fast (docs/benchmarks.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "rt__ti_read.h"

#define CHUNK ((size_t)1 << 20) /* bytes per read(); the buffer grows for longer lines */
/* Bytes allocated past the buffer's capacity, zeroed: plain_line reads 16 bytes at a time and
 * may read up to 15 past the data. */
#define SLACK 16

/* ---- files and lines ---------------------------------------------------------------------- */

int rt__ti_lines_open(rt__ti_lines *l, char *path, rt_err *err)
{
    rt__ti_lines_close(l);
    free(l->path);
    l->path = path;
    l->pos = l->len = l->base = l->size = 0;
    l->nul = SIZE_MAX;
    l->eof = 0;
    l->lineno = 0;
    l->ntok = 0;
    if (!l->buf) {
        if (!(l->buf = calloc(1, CHUNK + 1 + SLACK)))
            return rt_err_set(err, RT_E_NOMEM, "%s: out of memory", path);
        l->cap = CHUNK + 1;
    }
    if ((l->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return rt_err_set(err, RT_E_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(l->fd, &st) == 0 && st.st_size > 0)
        l->size = (uint64_t)st.st_size;
    return 0;
}

int rt__ti_lines_rewind(rt__ti_lines *l, rt_err *err)
{
    if (lseek(l->fd, 0, SEEK_SET) != 0)
        return rt_err_set(err, RT_E_IO, "%s: cannot go back to the start: %s", l->path,
                          strerror(errno));
    l->pos = l->len = l->base = 0;
    l->nul = SIZE_MAX;
    l->eof = 0;
    l->lineno = 0;
    l->ntok = 0;
    return 0;
}

void rt__ti_lines_close(rt__ti_lines *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
}

void rt__ti_lines_free(rt__ti_lines *l)
{
    rt__ti_lines_close(l);
    free(l->path);
    free(l->buf);
    free(l->tok);
    memset(l, 0, sizeof *l);
    l->fd = -1;
}

/* The buffer's allocator (rt_vec.h): SLACK bytes past the room, what is new zeroed (defined
 * bytes for plain_line). */
static void *buf_realloc(void *p, size_t old, size_t bytes)
{
    char *q = bytes <= SIZE_MAX - SLACK ? realloc(p, bytes + SLACK) : NULL;
    if (q)
        memset(q + old, 0, bytes - old + SLACK);
    return q;
}

/* Reads on behind what is left in the buffer: the rest moves to the front, and the buffer
 * doubles when one line fills it. */
static int fill(rt__ti_lines *l, rt_err *err)
{
    size_t rest = l->len - l->pos;
    if (l->pos) {
        memmove(l->buf, l->buf + l->pos, rest);
        l->base += l->pos;
        if (l->nul != SIZE_MAX)
            l->nul -= l->pos;
        l->pos = 0;
        l->len = rest;
    }
    if (RT_VEC_RESERVE_WITH(l->buf, l->cap, (uint64_t)l->len + 2, 0, buf_realloc) < 0)
        return rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory (a line of %zu bytes)", l->path,
                          l->lineno + 1, l->len);
    ssize_t got;
    do
        got = read(l->fd, l->buf + l->len, l->cap - 1 - l->len);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return rt_err_set(err, errno == ENOMEM ? RT_E_NOMEM : RT_E_IO, "%s: read failed: %s",
                          l->path, strerror(errno));
    if (got == 0) {
        l->eof = 1;
        return 0;
    }
    if (l->nul == SIZE_MAX) {
        const char *z = memchr(l->buf + l->len, '\0', (size_t)got);
        if (z)
            l->nul = (size_t)(z - l->buf);
    }
    l->len += (size_t)got;
    return 0;
}

/* The blanks SimGrid trims off a line: " \t\n\v\f\r". */
static int space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static int add_tok(rt__ti_lines *l, char *s, rt_err *err)
{
    if (RT_VEC_RESERVE(l->tok, l->tokcap, (uint64_t)l->ntok + 1, 16) < 0)
        return rt_err_set(err, RT_E_NOMEM, "%s:%lu: out of memory", l->path, l->lineno);
    l->tok[l->ntok++] = s;
    return 0;
}

#ifdef __SSE2__
/* Bits of the 16 bytes at p that are blanks or tabs, and that are any byte up to ' ' (the
 * blanks, every control character, NUL). */
static inline void classify16(const char *p, unsigned *sep, unsigned *low)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i sp =
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\t')));
    __m128i le = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(' ')), x);
    *sep = (unsigned)_mm_movemask_epi8(sp);
    *low = (unsigned)_mm_movemask_epi8(le);
}

#define PLAIN_FIELDS 16 /* a line of more fields takes the general path */

/* The next line, when it is plain: it starts with a field that is not a comment, its fields
 * are separated by blanks and tabs, and it ends in a newline, with no other control
 * character (a field may hold one, and the trim at the ends takes \r, \v and \f off: those
 * lines take the general path, as do NUL bytes, errors and the last line of a file). Nearly
 * every line of a trace is plain; this finds its newline and its fields 16 bytes at a time
 * instead of a byte at a time, with the same result. 1: l->tok holds the line's fields;
 * 0: not plain, or not whole in the buffer (nothing of l was changed but l->tok). */
static int plain_line(rt__ti_lines *l)
{
    char *s = l->buf + l->pos;
    size_t avail = l->len - l->pos;
    if (!avail || (unsigned char)*s <= ' ' || *s == '#')
        return 0;
    char **tok = l->tok, *ends[PLAIN_FIELDS];
    size_t ntok = 0, nends = 0, namelen = 0;
    unsigned in_field = 0; /* 1: the byte before the chunk is a field's */
    for (size_t at = 0; at < avail; at += 16) {
        unsigned sep, low;
        classify16(s + at, &sep, &low); /* reads up to 15 bytes past len: see SLACK */
        unsigned other = low & ~sep;    /* a newline, another control character, NUL */
        if (avail - at < 16) {          /* bytes from len on are not the line's */
            unsigned in = (1u << (avail - at)) - 1;
            sep &= in;
            other &= in;
        }
        unsigned end = other ? (unsigned)__builtin_ctz(other) : 16;
        if (end < 16 && s[at + end] != '\n')
            return 0;
        unsigned keep = (1u << end) - 1; /* the line's bytes of the chunk (end <= 16) */
        sep &= keep;
        unsigned fld = ~sep & keep;
        unsigned starts = fld & (sep << 1 | (in_field ^ 1));
        unsigned stops = sep & (fld << 1 | in_field);
        /* starts and stops alternate (a field starts, stops at a blank, the next one
         * starts), so each list is taken in order on its own */
        for (; starts; starts &= starts - 1) {
            if (ntok == PLAIN_FIELDS)
                return 0;
            tok[ntok++] = s + at + __builtin_ctz(starts);
        }
        for (; stops; stops &= stops - 1)
            ends[nends++] = s + at + __builtin_ctz(stops);
        unsigned last = end ? fld >> (end - 1) & 1 : in_field; /* the line's last byte */
        if (end == 16) {
            in_field = last;
            continue;
        }
        char *nl = s + at + end;
        if (last) /* the last field runs up to the newline */
            ends[nends++] = nl;
        if (ntok < 2)
            return 0;
        for (size_t i = 0; i < nends; i++)
            *ends[i] = '\0';
        *nl = '\0';
        namelen = (size_t)(ends[1] - tok[1]);
        l->namelen = namelen;
        l->ntok = ntok;
        l->pos += at + end + 1;
        l->lineno++;
        return 1;
    }
    return 0;
}
#endif

int rt__ti_lines_next(rt__ti_lines *l, rt_reader *r, rt_err *err)
{
#ifdef __SSE2__
    if (l->tokcap >= 16 && plain_line(l))
        return 1;
#endif
    for (;;) {
        char *s = l->buf + l->pos;
        char *nl = memchr(s, '\n', l->len - l->pos);
        if (!nl) {
            int rc;
            if (!l->eof) {
                if ((rc = fill(l, err)))
                    return rc;
                continue;
            }
            if (l->pos == l->len)
                return 0;
            nl = l->buf + l->len; /* a last line without a newline */
        }
        int newline = nl < l->buf + l->len;
        size_t end = (size_t)(nl - l->buf);
        l->pos = end + (size_t)newline;
        l->lineno++;
        l->ntok = 0;
        if (l->nul < end)
            return rt__ti_bad(l, err, "NUL byte in line");
        char *e = nl;
        while (s < e && space(*s))
            s++;
        while (e > s && space(e[-1]))
            e--;
        *e = '\0';
        if (s == e)
            continue;
        if (*s == '#') {
            size_t c = strlen(RT__TRUNCATED_COMMENT);
            if (!strncmp(s, RT__TRUNCATED_COMMENT, c) && s[c])
                rt__reader_set_truncated(r, "%s", s + c);
            continue;
        }
        /* SimGrid stops at the end of file before acting on a line it ends: say so rather
         * than replay what SimGrid would not. */
        if (!newline)
            return rt__ti_bad(l, err,
                              "no newline at the end of the file (SimGrid's replay ignores "
                              "this last line)");
        /* Fields end at a blank or a tab. *e is the only NUL left in the line (one before is
         * an error above) and the line ends with a field: the scans need no other bound.
         * Other control characters (\r, \v, \f inside a line) belong to a field. */
        for (;;) {
            int rc = add_tok(l, s, err);
            if (rc)
                return rc;
            char *f = s;
            for (;;) {
                while ((unsigned char)*s > ' ')
                    s++;
                if (*s == ' ' || *s == '\t' || !*s)
                    break;
                s++;
            }
            if (l->ntok == 2)
                l->namelen = (size_t)(s - f);
            if (!*s)
                break;
            *s++ = '\0';
            while (*s == ' ' || *s == '\t')
                s++;
        }
        if (l->ntok < 2)
            return rt__ti_bad(l, err, "expected RANK ACTION [ARGUMENTS]");
        return 1;
    }
}

double rt__ti_lines_progress(const rt__ti_lines *l)
{
    if (l->fd < 0 || !l->size)
        return 0;
    double f = (double)(l->base + l->pos) / (double)l->size;
    return f < 1 ? f : 1;
}

/* ---- errors and fields -------------------------------------------------------------------- */

int rt__ti_bad(const rt__ti_lines *l, rt_err *err, const char *fmt, ...)
{
    char msg[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (l->ntok > 1)
        return rt_err_set(err, RT_E_FORMAT, "%s:%lu: %.40s: %s", l->path, l->lineno, l->tok[1],
                          msg);
    return rt_err_set(err, RT_E_FORMAT, "%s:%lu: %s", l->path, l->lineno, msg);
}

int rt__ti_arity_slow(const rt__ti_lines *l, size_t min, size_t max, const char *usage, rt_err *err)
{
    size_t n = l->ntok - 2;
    if (n >= min && n <= max)
        return 0;
    if (min == max)
        return rt__ti_bad(l, err, "expected %zu argument%s (%s), got %zu", min, min == 1 ? "" : "s",
                          usage, n);
    return rt__ti_bad(l, err, "expected %zu to %zu arguments (%s), got %zu", min, max, usage, n);
}

int rt__ti_int_slow(const rt__ti_lines *l, size_t i, const char *what, int64_t lo, int64_t hi,
                    int64_t *out, rt_err *err)
{
    if (rt_parse_i64(l->tok[i], out))
        return rt__ti_bad(l, err, "bad %s '%.40s' (expected an integer)", what, l->tok[i]);
    if (*out < lo || *out > hi)
        return rt__ti_bad(l, err, "%s %s out of range (%lld to %lld)", what, l->tok[i],
                          (long long)lo, (long long)hi);
    return 0;
}

int rt__ti_double_slow(const rt__ti_lines *l, size_t i, const char *what, double *out, rt_err *err)
{
    /* Nearly every number in a trace is a plain integer: up to 15 digits it is exactly
     * what strtod would give (below 2^53), without strtod's cost. */
    const char *s = l->tok[i];
    uint64_t v = 0;
    size_t n = 0;
    while (n < 16 && s[n] >= '0' && s[n] <= '9')
        v = v * 10 + (uint64_t)(s[n++] - '0');
    if (n && n < 16 && !s[n]) {
        *out = (double)v;
        return 0;
    }
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(d) || d < 0)
        return rt__ti_bad(l, err, "bad %s '%.40s' (expected a number >= 0)", what, s);
    *out = d;
    return 0;
}

int rt__ti_count_slow(const rt__ti_lines *l, size_t i, const char *what, uint64_t *out, rt_err *err)
{
    double v = 0;
    if (l->tok[i][0] == '-' && strcmp(l->tok[i], "-0"))
        return rt__ti_bad(l, err, "negative %s '%.40s'%s", what, l->tok[i],
                          !strcmp(what, "size") ? " (a receive of the sender's size, which "
                                                  "retrace cannot know)"
                                                : "");
    if (rt__ti_double(l, i, what, &v, err))
        return -RT_E_FORMAT;
    if (v >= 9223372036854775808.0)
        return rt__ti_bad(l, err, "%s %s too large", what, l->tok[i]);
    *out = (uint64_t)v;
    return 0;
}

int rt__ti_type(const rt__ti_lines *l, size_t i, uint32_t dflt, uint32_t *size, rt_err *err)
{
    if (i >= l->ntok) {
        *size = dflt;
        return 0;
    }
    int s = rt__ti_type_size(l->tok[i]);
    if (s < 0)
        return rt__ti_bad(l, err, "unknown datatype id '%.40s' (SimGrid 3.32 knows -1 to 59)",
                          l->tok[i]);
    *size = (uint32_t)s;
    return 0;
}

int rt__ti_rank_slow(const rt__ti_lines *l, size_t i, const char *what, uint32_t nranks,
                     int32_t *out, rt_err *err)
{
    int64_t v = 0;
    if (rt_parse_i64(l->tok[i], &v))
        return rt__ti_bad(l, err, "bad %s '%.40s' (expected a rank)", what, l->tok[i]);
    if (v < 0 || v >= nranks)
        return rt__ti_bad(l, err, "%s %s is not a rank (0 to %u)%s", what, l->tok[i],
                          (unsigned)nranks - 1,
                          v == -555 ? ": MPI_ANY_SOURCE is not supported" : "");
    *out = (int32_t)v;
    return 0;
}

int rt__ti_tag_slow(const rt__ti_lines *l, size_t i, int32_t *out, rt_err *err)
{
    int64_t v = 0;
    if (rt_parse_i64(l->tok[i], &v))
        return rt__ti_bad(l, err, "bad tag '%.40s' (expected an integer)", l->tok[i]);
    if (v < 0 || v > INT32_MAX)
        return rt__ti_bad(l, err, "tag %s out of range%s", l->tok[i],
                          v == -444 ? ": MPI_ANY_TAG is not supported" : " (0 to 2147483647)");
    *out = (int32_t)v;
    return 0;
}

int rt__ti_counts(const rt__ti_lines *l, size_t first, uint32_t n, const char *what, uint64_t *sum,
                  uint32_t at, uint64_t *mine, rt_err *err)
{
    *sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t v;
        int rc = rt__ti_int(l, first + i, what, 0, INT_MAX, &v, err);
        if (rc)
            return rc;
        *sum += (uint64_t)v; /* at most 2^24 counts of at most 2^31 */
        if (mine && i == at)
            *mine = (uint64_t)v;
    }
    return 0;
}

int rt__ti_mul_slow(const rt__ti_lines *l, uint64_t n, uint32_t size, uint64_t *out, rt_err *err)
{
    if (__builtin_mul_overflow(n, (uint64_t)size, out))
        return rt__ti_bad(l, err, "byte count overflows");
    return 0;
}

int rt__ti_who_slow(const rt__ti_lines *l, uint64_t *who, rt_err *err)
{
    const char *s = l->tok[0];
    if (rt_parse_u64(s, who) || (s[0] == '0' && s[1]))
        return rt__ti_bad(l, err, "bad rank '%.40s' (expected a rank number)", s);
    return 0;
}
