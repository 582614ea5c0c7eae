/*
 * The network model as text: numbers with units (times in picoseconds, bandwidths in bytes
 * per second, sizes in bytes), read and written exactly, and the model file writer. Parsing
 * is exact decimal arithmetic (no double anywhere), so "1.5us" is 1500000 ps, and a value
 * that is not a whole number of units is refused rather than rounded: a model file means
 * what it says. The reader of model files is in net_model.c.
 */
#include <stdio.h>
#include <string.h>

#include "rt_net.h"
#include "rt_parse.h"

typedef unsigned __int128 u128;

#define MANT_LIMIT ((u128)1000000000000ULL * 1000000000000ULL) /* 10^24 */
#define MAX_FRAC 36                                            /* 10^36 < 2^127 / 8 */

typedef struct net_unit {
    const char *name;
    uint64_t mul, div; /* value = number * mul / div */
} net_unit;

// clang-format off
static const net_unit time_units[] = {
    {"ps", 1, 1},
    {"ns", 1000, 1},
    {"us", 1000000, 1},
    {"\xc2\xb5s", 1000000, 1}, /* µs */
    {"ms", 1000000000, 1},
    {"s", 1000000000000, 1},
    {NULL, 0, 0},
};

static const net_unit bw_units[] = {
    {"B/s", 1, 1},
    {"KB/s", 1000, 1},
    {"MB/s", 1000000, 1},
    {"GB/s", 1000000000, 1},
    {"KiB/s", 1 << 10, 1},
    {"MiB/s", 1 << 20, 1},
    {"GiB/s", 1 << 30, 1},
    {"Mbit/s", 1000000, 8},
    {"Gbit/s", 1000000000, 8},
    {NULL, 0, 0},
};

// clang-format on

typedef struct quantity {
    const net_unit *units;
    const char *expected; /* "(expected ...)" for a value that does not parse */
    const char *needs;    /* the unit list when a unit is missing; NULL: none needed */
    const char *whole;    /* "not a whole number of ..." */
    int positive;         /* zero is refused */
} quantity;

static const quantity q_time = {time_units, "a number and a unit such as 1.5us",
                                "ps, ns, us, ms or s", "picoseconds", 0};
static const quantity q_bw = {bw_units, "a number and a unit such as 10GB/s",
                              "B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, Mbit/s or Gbit/s",
                              "bytes per second", 1};

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

static u128 pow10_u128(unsigned e)
{
    u128 r = 1;
    for (; e; e--)
        r *= 10;
    return r;
}

/* Long values are cut in messages so that a message stays readable. */
static const char *clip(const char *text, char *buf, size_t len)
{
    size_t n = strlen(text);
    if (n < len)
        return text;
    snprintf(buf, len, "%.*s...", (int)(len - 4), text);
    return buf;
}

static int parse_quantity(const char *text, const quantity *q, uint64_t *out, rt_err *err)
{
    char shown[72];
    const char *v = clip(text, shown, sizeof shown);
    const char *p = text;
    while (blank(*p))
        p++;

    /* Mantissa m and number of fraction digits d: the number is m / 10^d. Trailing zeros of
     * the fraction are dropped so that "2.000000000000000000000000000ms" stays small. */
    u128 m = 0;
    unsigned d = 0, zeros = 0;
    int digits = 0, frac = 0;
    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            digits++;
            if (frac && *p == '0') {
                zeros++;
                continue;
            }
            for (; zeros; zeros--, d++) {
                if (m >= MANT_LIMIT || d >= MAX_FRAC)
                    return rt_err_set(err, RT_E_INVAL, "bad value '%s': too many digits", v);
                m *= 10;
            }
            if (m >= MANT_LIMIT || d >= MAX_FRAC)
                return rt_err_set(err, RT_E_INVAL, "bad value '%s': %s", v,
                                  frac ? "too many digits" : "too large");
            m = m * 10 + (unsigned)(*p - '0');
            d += frac;
        } else if (*p == '.' && !frac) {
            frac = 1;
        } else {
            break;
        }
    }
    if (!digits)
        return rt_err_set(err, RT_E_INVAL, "bad value '%s' (expected %s)", v, q->expected);
    while (blank(*p))
        p++;
    size_t ulen = strlen(p);
    while (ulen && blank(p[ulen - 1]))
        ulen--;
    if (!ulen && q->needs)
        return rt_err_set(err, RT_E_INVAL, "bad value '%s': needs a unit (%s)", v, q->needs);
    const net_unit *u = q->units;
    while (u->name && !(strlen(u->name) == ulen && !memcmp(u->name, p, ulen)))
        u++;
    if (!u->name)
        return rt_err_set(err, RT_E_INVAL, "bad value '%s' (expected %s)", v, q->expected);

    /* m < 10^24 and mul <= 10^12: the product fits; 10^d * div <= 10^36 * 8 fits. */
    u128 num = m * u->mul, den = pow10_u128(d) * u->div;
    if (num % den)
        return rt_err_set(err, RT_E_INVAL, "bad value '%s': not a whole number of %s", v, q->whole);
    num /= den;
    if (num > UINT64_MAX)
        return rt_err_set(err, RT_E_INVAL, "bad value '%s': too large", v);
    if (!num && q->positive)
        return rt_err_set(err, RT_E_INVAL, "bad value '%s': must be greater than zero", v);
    *out = (uint64_t)num;
    return 0;
}

int rt_net_parse_time(const char *text, uint64_t *ps, rt_err *err)
{
    return parse_quantity(text, &q_time, ps, err);
}

int rt_net_parse_bandwidth(const char *text, uint64_t *bytes_per_s, rt_err *err)
{
    return parse_quantity(text, &q_bw, bytes_per_s, err);
}

/* Sizes are the one size grammar of retrace (rt_parse.h), in this file's words. */
int rt_net_parse_size(const char *text, uint64_t *bytes, rt_err *err)
{
    char shown[72];
    rt_parse_why why;
    if (!rt_parse_size(text, bytes, &why))
        return 0;
    const char *v = clip(text, shown, sizeof shown);
    if (why == RT_PARSE_FRACTION)
        return rt_err_set(err, RT_E_INVAL, "bad value '%s': not a whole number of bytes", v);
    if (why == RT_PARSE_LARGE)
        return rt_err_set(err, RT_E_INVAL, "bad value '%s': too large", v);
    return rt_err_set(err, RT_E_INVAL,
                      "bad value '%s' (expected a number of bytes such as 65536, 64K or 64KiB)", v);
}

/* ---- formatting ------------------------------------------------------------------------- */

static unsigned ndigits(u128 v)
{
    unsigned n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* v / unit written exactly in decimal with at least mindec fraction digits: "12.5", "2.000". */
static void write_decimal(u128 v, uint64_t unit, unsigned mindec, const char *suffix, char *buf,
                          size_t len)
{
    char frac[24] = "";
    uint64_t rest = (uint64_t)(v % unit);
    if (rest || mindec) {
        unsigned w = ndigits(unit) - 1; /* unit is a power of ten */
        snprintf(frac, sizeof frac, ".%0*llu", (int)w, (unsigned long long)rest);
        size_t n = strlen(frac);
        while (n > 1 + mindec && frac[n - 1] == '0')
            frac[--n] = '\0';
        if (n == 1)
            frac[0] = '\0';
    }
    snprintf(buf, len, "%llu%s%s", (unsigned long long)(v / unit), frac, suffix);
}

void rt_net_format_time(uint64_t ps, char *buf, size_t len)
{
    static const struct {
        uint64_t ps;
        const char *name;
    } units[] = {{1000000000000, " s"}, {1000000000, " ms"}, {1000000, " us"}, {1000, " ns"}};
    if (!buf || !len)
        return;
    /* Round to four significant digits (half up); the rounded value picks the unit, so that
     * 999.96 ns prints as "1.000 us", not "1000.0 ns". */
    u128 r = ps;
    unsigned nd = ndigits(r);
    if (nd > 4) {
        u128 p = pow10_u128(nd - 4);
        r = (r + p / 2) / p * p;
    }
    uint64_t unit = 1;
    const char *name = " ps";
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (r >= units[i].ps) {
            unit = units[i].ps;
            name = units[i].name;
            break;
        }
    unsigned id = ndigits(r / unit);
    unsigned mindec = (r != ps && id < 4) ? 4 - id : 0;
    write_decimal(r, unit, mindec, name, buf, len);
}

/* ---- the model file writer -------------------------------------------------------------- */

/* Exact values in the largest unit that is not larger than the value: "1.5us", "12.5GB/s". */
static void exact_time(uint64_t ps, char *buf, size_t len)
{
    static const uint64_t units[] = {1000000000000, 1000000000, 1000000, 1000, 1};
    static const char *const names[] = {"s", "ms", "us", "ns", "ps"};
    size_t i = 0;
    while (i < 4 && ps < units[i])
        i++;
    if (!ps)
        i = 3; /* "0ns" */
    write_decimal(ps, units[i], 0, names[i], buf, len);
}

static void exact_bandwidth(uint64_t bps, char *buf, size_t len)
{
    static const uint64_t units[] = {1000000000, 1000000, 1000, 1};
    static const char *const names[] = {"GB/s", "MB/s", "KB/s", "B/s"};
    size_t i = 0;
    while (i < 3 && bps < units[i])
        i++;
    write_decimal(bps, units[i], 0, names[i], buf, len);
}

static void exact_size(uint64_t n, char *buf, size_t len)
{
    static const char *const names[] = {"GiB", "MiB", "KiB"};
    for (unsigned i = 0; i < 3; i++) {
        uint64_t u = UINT64_C(1) << (30 - 10 * i);
        if (n && n % u == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(n / u), names[i]);
            return;
        }
    }
    snprintf(buf, len, "%llu", (unsigned long long)n);
}

/* Each line of text as a comment line ("# ..."; blank lines stay "#"). */
static void write_note(const char *text, FILE *out)
{
    while (text && *text) {
        size_t n = strcspn(text, "\n");
        fprintf(out, n ? "# %.*s\n" : "#\n", (int)n, text);
        text += n + (text[n] == '\n');
    }
}

/* A [calls] value and its line end: "420ns + n / 12GB/s\n". */
static void write_cost(const rt_net_call *c, FILE *out)
{
    char a[64], b[64];
    exact_time(c->fixed_ps, a, sizeof a);
    fputs(a, out);
    if (c->bandwidth) {
        exact_bandwidth(c->bandwidth, b, sizeof b);
        fprintf(out, " + n / %s", b);
    }
    fputc('\n', out);
}

int rt_net_model_write_notes(const rt_net_model *m, const char *const *notes, FILE *out)
{
    char a[64], b[64];
    fputs("# retrace network model (docs/model.md), from ", out);
    for (const char *s = m->source; *s; s++)
        fputc(*s == '\n' || *s == '\r' ? '?' : *s, out);
    fputc('\n', out);
    if (notes)
        write_note(notes[RT_CT_NONE], out);
    exact_size(m->gw_mtu, a, sizeof a);
    exact_bandwidth(m->reduce_bandwidth, b, sizeof b);
    fprintf(out,
            "gateways = %u\ngw_mtu = %s\nreduce_bandwidth = %s\ncontention = %s\n"
            "injection = %s\n",
            (unsigned)m->gateways, a, b, m->contention ? "on" : "off",
            m->injection == RT_NET_INJECT_BYTES ? "bytes" : "message");
    if (m->cores) /* written when set, so that models without time sharing read as before */
        fprintf(out, "cores = %u\n", (unsigned)m->cores);
    if (m->cores || m->timeslice_ps != RT_NET_TIMESLICE_DEFAULT) {
        exact_time(m->timeslice_ps, a, sizeof a);
        fprintf(out, "timeslice = %s\n", a);
    }
    if (m->waiting != RT_NET_WAIT_AUTO) /* written when not the default */
        fprintf(out, "waiting = %s\n", m->waiting == RT_NET_WAIT_POLL ? "poll" : "yield");
    if (m->reduce_element_ps) { /* written when set: models without it read as before */
        exact_time(m->reduce_element_ps, a, sizeof a);
        fprintf(out, "reduce_element = %s\n", a);
    }
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++) {
        const rt_net_link *l = &m->link[ct];
        fprintf(out, "\n[%s]\n", rt_contype_name(ct));
        if (notes)
            write_note(notes[ct], out);
        exact_time(l->latency_ps, a, sizeof a);
        exact_bandwidth(l->bandwidth, b, sizeof b);
        fprintf(out, "latency = %s\nbandwidth = %s\n", a, b);
        exact_time(l->overhead_ps, a, sizeof a);
        exact_time(l->gap_ps, b, sizeof b);
        fprintf(out, "overhead = %s\ngap = %s\n", a, b);
        exact_size(l->eager, a, sizeof a);
        fprintf(out, "eager = %s\n", a);
        if (l->eager_bandwidth) {
            exact_bandwidth(l->eager_bandwidth, b, sizeof b);
            fprintf(out, "eager_bandwidth = %s\n", b);
        }
        if (l->rendezvous_ps) {
            exact_time(l->rendezvous_ps, a, sizeof a);
            fprintf(out, "rendezvous = %s\n", a);
        }
    }
    int calls = 0;
    for (unsigned fn = 0; fn < RT_FN_COUNT; fn++) {
        /* a large-count form is written when it differs from what loading gives it: its base
         * function's cost when that is set, else none */
        const rt_net_call *c = &m->call[fn], zero = {0};
        unsigned base = rt_net_call_base(fn);
        const rt_net_call *implied = &zero;
        if (base != RT_FN_NONE && (m->call[base].fixed_ps || m->call[base].bandwidth))
            implied = &m->call[base];
        if (c->fixed_ps == implied->fixed_ps && c->bandwidth == implied->bandwidth)
            continue;
        if (!calls++) {
            fputs("\n[calls]\n", out);
            if (notes)
                write_note(notes[RT_CT_COUNT], out);
        }
        fprintf(out, "%s = ", rt_func_name(fn));
        write_cost(c, out);
    }
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) /* MPI_Allreduce/ring: set ones only */
        for (unsigned alg = 0; alg < RT_ALG_COUNT; alg++) {
            if (!m->alg_set[op][alg])
                continue;
            if (!calls++) {
                fputs("\n[calls]\n", out);
                if (notes)
                    write_note(notes[RT_CT_COUNT], out);
            }
            fprintf(out, "%s/%s = ", rt_func_name(rt_net_coll_func(op)), rt_coll_alg_name(alg));
            write_cost(&m->alg_call[op][alg], out);
        }
    return ferror(out) ? -RT_E_IO : 0;
}

int rt_net_model_write(const rt_net_model *m, FILE *out)
{
    return rt_net_model_write_notes(m, NULL, out);
}
