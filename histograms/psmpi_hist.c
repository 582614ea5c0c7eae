/*
 * Histogram configuration (environment and command line), binning set-up, merging and the
 * psmpi text report. The per-message path lives inline in rt_hist.h.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt_event.h"
#include "rt_hist.h"
#include "rt_parse.h"

void rt_hist_config_default(rt_hist_config *c)
{
    memset(c, 0, sizeof *c);
    c->min = RT_HIST_DEFAULT_MIN;
    c->max = RT_HIST_DEFAULT_MAX;
    c->shift = RT_HIST_DEFAULT_SHIFT;
    c->contype = -1;
}

/* ---- validation ----------------------------------------------------------------------------- */

int rt_hist_config_check(const rt_hist_config *c, rt_err *err)
{
    if (c->min < 1)
        return rt_err_set(err, RT_E_INVAL, "histogram minimum must be at least 1");
    if (c->max > RT_HIST_LIMIT_CAP)
        return rt_err_set(err, RT_E_INVAL, "histogram maximum %" PRIu64 " is above %" PRIu64,
                          c->max, RT_HIST_LIMIT_CAP);
    if (c->max < c->min)
        return rt_err_set(err, RT_E_INVAL,
                          "histogram maximum %" PRIu64 " is less than the minimum %" PRIu64, c->max,
                          c->min);
    if (c->shift < 1 || c->shift > RT_HIST_MAX_SHIFT)
        return rt_err_set(err, RT_E_INVAL, "histogram shift %u is not between 1 and %u", c->shift,
                          RT_HIST_MAX_SHIFT);
    if (c->contype >= RT_CT_COUNT || c->contype < -1 || c->contype == RT_CT_NONE)
        return rt_err_set(err, RT_E_INVAL, "histogram connection type %d is not valid", c->contype);
    return 0;
}

/* ---- environment flavour ------------------------------------------------------------------ */

typedef struct warn_buf {
    char *buf;
    size_t len, used;
    int n;
    const char *prefix;
} warn_buf;

/* Appends one warning line "<prefix>_<var>=<value>: <reason>\n". The value is cut and its
 * control characters escaped (rt_escape) so that one warning stays one line in the tracer's
 * output. */
static void warn(warn_buf *w, const char *var, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void warn(warn_buf *w, const char *var, const char *value, const char *fmt, ...)
{
    char cut[65], shown[4 * sizeof cut];
    size_t n = strlen(value) < sizeof cut - 1 ? strlen(value) : sizeof cut - 1;
    memcpy(cut, value, n);
    cut[n] = '\0';
    rt_escape(shown, sizeof shown, cut);
    w->n++;
    /* Every write checks the room left: once snprintf has truncated, used is past the end and
     * nothing more is written, so the buffer stays as snprintf left it, terminated. */
    if (w->used + 1 >= w->len)
        return;
    int r = snprintf(w->buf + w->used, w->len - w->used, "%s_%s=%s%s: ", w->prefix, var, shown,
                     value[n] ? "..." : "");
    if (r > 0)
        w->used += (size_t)r;
    if (w->used + 1 < w->len) {
        va_list ap;
        va_start(ap, fmt);
        r = vsnprintf(w->buf + w->used, w->len - w->used, fmt, ap);
        va_end(ap);
        if (r > 0)
            w->used += (size_t)r;
    }
    if (w->used + 1 < w->len) {
        w->buf[w->used++] = '\n';
        w->buf[w->used] = '\0';
    }
}

static int is_set(const char *s)
{
    return s && *s;
}

/* A size variable: 1 when text holds a usable value in *out, else 0 after one warning. Plain
 * numbers only, as psmpi reads them. */
static int env_size(warn_buf *w, const char *var, const char *text, uint64_t deflt, uint64_t *out)
{
    rt_parse_why why;
    if (!rt_parse_uint(text, 1, RT_HIST_LIMIT_CAP, out, &why))
        return 1;
    if (why == RT_PARSE_BAD)
        warn(w, var, text, "not a number of bytes; using the default %" PRIu64, deflt);
    else if (why == RT_PARSE_NEGATIVE)
        warn(w, var, text, "must not be negative; using the default %" PRIu64, deflt);
    else if (why == RT_PARSE_SMALL)
        warn(w, var, text, "must be at least 1; using the default %" PRIu64, deflt);
    else
        warn(w, var, text, "must be at most %" PRIu64 "; using the default %" PRIu64,
             RT_HIST_LIMIT_CAP, deflt);
    return 0;
}

int rt_hist_config_from_env(rt_hist_config *c, const char *prefix, const char *min, const char *max,
                            const char *shift, const char *contype, char *warnings, size_t len)
{
    warn_buf w = {warnings, warnings ? len : 0, 0, 0, prefix ? prefix : "PSP_HISTOGRAM"};
    if (warnings && len)
        warnings[0] = '\0';
    rt_hist_config_default(c);

    int min_set = is_set(min) && env_size(&w, "MIN", min, RT_HIST_DEFAULT_MIN, &c->min);
    int max_set = is_set(max) && env_size(&w, "MAX", max, RT_HIST_DEFAULT_MAX, &c->max);

    /* The value the user set gives way to the default; when both were set and the default
     * max is still below min, neither can stay. One warning in every case. */
    if (c->max < c->min) {
        if (max_set && (!min_set || c->min <= RT_HIST_DEFAULT_MAX)) {
            warn(&w, "MAX", max, "less than the minimum %" PRIu64 "; using the default %" PRIu64,
                 c->min, RT_HIST_DEFAULT_MAX);
            c->max = RT_HIST_DEFAULT_MAX;
        } else if (max_set) {
            warn(&w, "MAX", max,
                 "less than %s_MIN=%" PRIu64 ", which is above the default maximum; using the "
                 "defaults MIN=%" PRIu64 " and MAX=%" PRIu64,
                 w.prefix, c->min, RT_HIST_DEFAULT_MIN, RT_HIST_DEFAULT_MAX);
            c->min = RT_HIST_DEFAULT_MIN;
            c->max = RT_HIST_DEFAULT_MAX;
        } else {
            warn(&w, "MIN", min, "more than the maximum %" PRIu64 "; using the default %" PRIu64,
                 c->max, RT_HIST_DEFAULT_MIN);
            c->min = RT_HIST_DEFAULT_MIN;
        }
    }

    if (is_set(shift)) {
        uint64_t v = 0;
        rt_parse_why why;
        if (!rt_parse_uint(shift, 1, RT_HIST_MAX_SHIFT, &v, &why))
            c->shift = (unsigned)v;
        else if (why == RT_PARSE_BAD)
            warn(&w, "SHIFT", shift, "not a number; using the default %u", RT_HIST_DEFAULT_SHIFT);
        else if (why == RT_PARSE_NEGATIVE)
            warn(&w, "SHIFT", shift, "must not be negative; using the default %u",
                 RT_HIST_DEFAULT_SHIFT);
        else if (why == RT_PARSE_SMALL)
            warn(&w, "SHIFT", shift, "must be at least 1; using the default %u",
                 RT_HIST_DEFAULT_SHIFT);
        else
            warn(&w, "SHIFT", shift, "must be at most %u; using the default %u", RT_HIST_MAX_SHIFT,
                 RT_HIST_DEFAULT_SHIFT);
    }

    if (is_set(contype)) {
        int ct = rt_contype_lookup(contype);
        if (ct < 0 || strlen(contype) >= sizeof c->contype_name) {
            warn(&w, "CONTYPE", contype,
                 "unknown connection type (expected loop, shm, net, gw, gateway or a psmpi "
                 "network such as openib); counting all messages");
        } else {
            c->contype = ct;
            strcpy(c->contype_name, contype);
        }
    }
    return w.n;
}

/* ---- command-line flavour ----------------------------------------------------------------- */

int rt_hist_config_from_args(rt_hist_config *c, const char *min, const char *max, const char *shift,
                             const char *contype, rt_err *err)
{
    rt_hist_config nc;
    int rc;
    rt_hist_config_default(&nc);
    if (min && (rc = rt_parse_size_opt("--min", min, &nc.min, err)) < 0)
        return rc;
    if (max && (rc = rt_parse_size_opt("--max", max, &nc.max, err)) < 0)
        return rc;
    if (nc.min < 1)
        return rt_err_set(err, RT_E_INVAL, "--min: must be at least 1 (got '%s')", min);
    if (nc.min > RT_HIST_LIMIT_CAP)
        return rt_err_set(err, RT_E_INVAL, "--min: '%s' is too large (at most %" PRIu64 ")", min,
                          RT_HIST_LIMIT_CAP);
    if (nc.max > RT_HIST_LIMIT_CAP)
        return rt_err_set(err, RT_E_INVAL, "--max: '%s' is too large (at most %" PRIu64 ")", max,
                          RT_HIST_LIMIT_CAP);
    if (nc.max < nc.min && max)
        return rt_err_set(err, RT_E_INVAL, "--max (%" PRIu64 ") is less than %s (%" PRIu64 ")",
                          nc.max, min ? "--min" : "the default minimum", nc.min);
    if (nc.max < nc.min)
        return rt_err_set(err, RT_E_INVAL,
                          "--min (%" PRIu64 ") is more than the default maximum (%" PRIu64 ")",
                          nc.min, nc.max);
    if (shift) {
        uint64_t v = 0;
        if (rt_parse_uint(shift, 1, RT_HIST_MAX_SHIFT, &v, NULL) < 0)
            return rt_err_set(err, RT_E_INVAL,
                              "--shift: bad value '%s' (expected an integer from 1 to %u)", shift,
                              RT_HIST_MAX_SHIFT);
        nc.shift = (unsigned)v;
    }
    if (contype) {
        int ct = rt_contype_lookup(contype);
        if (ct < 0 || strlen(contype) >= sizeof nc.contype_name)
            return rt_err_set(err, RT_E_INVAL,
                              "--contype: unknown connection type '%s' (expected loop, shm, "
                              "net, gw, gateway or a psmpi network such as openib)",
                              contype);
        nc.contype = ct;
        strcpy(nc.contype_name, contype);
    }
    *c = nc;
    return 0;
}

/* ---- binning ------------------------------------------------------------------------------ */

int rt_hist_init(rt_hist *h, const rt_hist_config *c)
{
    int rc = rt_hist_config_check(c, NULL);
    if (rc < 0)
        return rc;
    memset(h, 0, sizeof *h);
    h->cfg = *c;
    h->cfg.contype_name[sizeof h->cfg.contype_name - 1] = '\0';

    /* L_{i+1} = L_i << shift <= max  <=>  L_i <= max >> shift, so no shift ever overflows.
     * max <= 2^62 and min >= 1 bound k by 63. */
    unsigned k = 0;
    uint64_t l = c->min;
    for (;;) {
        h->limit[k++] = l;
        if (l > c->max >> c->shift)
            break;
        l <<= c->shift;
    }
    h->nlimits = k;
    h->limit[k] = UINT64_MAX;

    /* bin_of_bits[b] = bin of 2^(b-1), the smallest length of bit length b (b = 0 is only
     * reached by nothing, since rt_hist_bin looks at len | 1). */
    unsigned bin = 0;
    for (unsigned b = 1; b <= 64; b++) {
        uint64_t lo = UINT64_C(1) << (b - 1);
        while (lo > h->limit[bin])
            bin++;
        h->bin_of_bits[b] = (uint8_t)bin;
    }
    return 0;
}

int rt_hist_merge(rt_hist *dst, const rt_hist *src)
{
    if (dst->nlimits != src->nlimits || dst->cfg.contype != src->cfg.contype ||
        memcmp(dst->limit, src->limit, (dst->nlimits + 1) * sizeof *dst->limit))
        return -RT_E_INVAL;
    for (unsigned i = 0; i <= dst->nlimits; i++)
        dst->count[i] += src->count[i];
    return 0;
}

/* ---- report ------------------------------------------------------------------------------- */

static int decimal_digits(uint64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

int rt_hist_write_text(const rt_hist *h, FILE *out)
{
    unsigned k = h->nlimits;
    if (k < 1 || k > RT_HIST_MAX_LIMITS)
        return -RT_E_INVAL; /* not set up by rt_hist_init */
    int d = decimal_digits(h->limit[k - 1]);
    int r;
    if (h->cfg.contype >= 0) {
        /* The name as typed; a config built by hand may not carry one. */
        const char *name = h->cfg.contype_name[0] ? h->cfg.contype_name
                                                  : rt_contype_name((unsigned)h->cfg.contype);
        r = fprintf(out, " %*s  freq (%s)\n", d, "bin", name);
    } else {
        r = fprintf(out, " %*s  freq\n", d, "bin");
    }
    for (unsigned i = 0; r >= 0 && i < k; i++)
        r = fprintf(out, " %*" PRIu64 "  %" PRIu64 "\n", d, h->limit[i], h->count[i]);
    if (r >= 0)
        r = fprintf(out, ">%*" PRIu64 "  %" PRIu64 "\n", d, h->limit[k - 1], h->count[k]);
    return r < 0 || ferror(out) ? -RT_E_IO : 0;
}
