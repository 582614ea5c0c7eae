/*
 * The calibration's fit: from measured one-way ping-pong times to the model's latency,
 * bandwidth and eager threshold (rt_calib.h). No MPI here, so the unit tests can feed it
 * curves the model itself produced and check that the fit gives the parameters back.
 *
 * Measurements are doubles (they are noisy anyway); the model's parameters are integers
 * again before any model time is computed, so the errors reported are those of the model
 * file that is written, not of an idealised fit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt__calib.h"

typedef unsigned __int128 u128;

static const rt_net_link *link_of(const rt_net_model *m, unsigned ct)
{
    return &m->link[ct == RT_CT_NONE || ct >= RT_CT_COUNT ? RT_CT_NET : ct];
}

uint64_t rt_calib_model_oneway(const rt_net_model *m, unsigned ct, uint64_t n)
{
    const rt_net_link *l = link_of(m, ct);
    u128 t = (u128)2 * l->overhead_ps + rt_net_wire_ps(m, ct, n, 0);
    if (n > l->eager)
        t += (u128)l->overhead_ps + 2 * (u128)l->latency_ps;
    return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

/* The fitted parameters: the fixed cost F (L, or o when the overheads are fitted with
 * L = 0), ps per byte of eager and of rendezvous data, and the rendezvous's extra time. */
enum { P_FIXED, P_XE, P_R, P_XR, NP };

/* The model time of n bytes as c + sum a[j] p[j], from the same rules as
 * rt_calib_model_oneway; exact up to the model's rounding of each transfer to whole ps. */
static void design(const rt_net_model *m, unsigned ct, uint64_t n, int fit_o, double *c,
                   double a[NP])
{
    const rt_net_link *l = link_of(m, ct);
    int rndv = n > l->eager;
    double al, b; /* the wire time is al L + b x */
    if (ct == RT_CT_GW && n > m->gw_mtu && m->gw_mtu) {
        uint64_t mtu = m->gw_mtu, k = n / mtu + (n % mtu != 0), last = n - (k - 1) * mtu;
        al = (double)(k + 1);
        b = (double)k * (double)mtu + (double)last;
    } else if (ct == RT_CT_GW) {
        al = 2;
        b = 2 * (double)n;
    } else {
        al = 1;
        b = (double)n;
    }
    memset(a, 0, NP * sizeof *a);
    if (fit_o) { /* L = 0: the overheads are the whole fixed cost, 2 or 3 of them */
        *c = 0;
        a[P_FIXED] = rndv ? 3 : 2;
    } else { /* eager o + L + o; rendezvous o + L (request) + L (answer) + o + L + o */
        *c = (rndv ? 3 : 2) * (double)l->overhead_ps;
        a[P_FIXED] = al + (rndv ? 2 : 0);
    }
    a[rndv ? P_XR : P_XE] = b;
    a[P_R] = rndv;
}

/* v rounded to 4 significant digits (whole numbers below 10000 stay as they are). */
uint64_t calib_round_sig4(double v)
{
    if (!(v >= 1))
        return v > 0 ? 1 : 0;
    if (v >= 1.8e19)
        return UINT64_MAX;
    uint64_t scale = 1;
    while (v / (double)scale >= 10000)
        scale *= 10;
    return (uint64_t)llround(v / (double)scale) * scale;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Model times of every point and the errors of those fitted (not disturbed). */
static void evaluate(const rt_net_model *m, unsigned ct, rt_calib_point *pts, size_t n,
                     rt_calib_fit *fit)
{
    double errs[RT_CALIB_MAX_POINTS];
    size_t ne = 0;
    fit->cost = 0;
    fit->err_max = 0;
    fit->err_max_at = 0;
    for (size_t i = 0; i < n; i++) {
        pts[i].model_ps = rt_calib_model_oneway(m, ct, pts[i].bytes);
        if (!pts[i].time_ps || pts[i].disturbed || ne == RT_CALIB_MAX_POINTS)
            continue;
        double e = ((double)pts[i].model_ps - (double)pts[i].time_ps) / (double)pts[i].time_ps;
        fit->cost += e * e;
        e = fabs(e);
        errs[ne++] = e;
        if (e > fit->err_max) {
            fit->err_max = e;
            fit->err_max_at = pts[i].bytes;
        }
    }
    qsort(errs, ne, sizeof *errs, cmp_double);
    fit->err_median = !ne ? 0 : ne % 2 ? errs[ne / 2] : (errs[ne / 2 - 1] + errs[ne / 2]) / 2;
}

/* Solves the k x k system g x = r (Gaussian elimination, partial pivoting). 0, or
 * -RT_E_INVAL when it is singular. */
static int solve(double g[NP][NP], double r[NP], int k, double *x)
{
    for (int i = 0; i < k; i++) {
        int piv = i;
        for (int j = i + 1; j < k; j++)
            if (fabs(g[j][i]) > fabs(g[piv][i]))
                piv = j;
        if (!(fabs(g[piv][i]) > 1e-300))
            return -RT_E_INVAL;
        for (int j = 0; j < k; j++) {
            double t = g[i][j];
            g[i][j] = g[piv][j];
            g[piv][j] = t;
        }
        double t = r[i];
        r[i] = r[piv];
        r[piv] = t;
        for (int j = i + 1; j < k; j++) {
            double f = g[j][i] / g[i][i];
            for (int q = i; q < k; q++)
                g[j][q] -= f * g[i][q];
            r[j] -= f * r[i];
        }
    }
    for (int i = k - 1; i >= 0; i--) {
        double v = r[i];
        for (int j = i + 1; j < k; j++)
            v -= g[i][j] * x[j];
        x[i] = v / g[i][i];
    }
    return 0;
}

/*
 * Weighted least squares of sum w (c + sum a[j] p[j] - t)^2 with w = 1/t^2 (relative errors)
 * over the points. Parameters no point depends on (no rendezvous size measured: P_R, P_XR)
 * stay 0 and unused (used[j] = 0). The fixed cost and the rendezvous time cannot be below 0:
 * one that comes out so is held at 0 and the rest fitted again (*held = 1 when the fixed
 * cost was). 0, or -RT_E_INVAL with fewer than two points or a singular system.
 */
static int lsq(const rt_net_model *m, unsigned ct, const rt_calib_point *pts, size_t n, int fit_o,
               double p[NP], int used[NP], int *held)
{
    double a[NP], c;
    size_t npts = 0;
    memset(used, 0, NP * sizeof *used);
    for (size_t i = 0; i < n; i++) {
        if (!pts[i].time_ps || pts[i].disturbed)
            continue;
        design(m, ct, pts[i].bytes, fit_o, &c, a);
        for (int j = 0; j < NP; j++)
            used[j] |= a[j] != 0;
        npts++;
    }
    if (npts < 2)
        return -RT_E_INVAL;
    *held = 0;
    for (;;) {
        int idx[NP], k = 0;
        for (int j = 0; j < NP; j++)
            if (used[j])
                idx[k++] = j;
        double g[NP][NP] = {{0}}, r[NP] = {0}, x[NP] = {0};
        for (size_t i = 0; i < n; i++) {
            if (!pts[i].time_ps || pts[i].disturbed)
                continue;
            double t = (double)pts[i].time_ps, w = 1 / (t * t);
            design(m, ct, pts[i].bytes, fit_o, &c, a);
            for (int u = 0; u < k; u++) {
                r[u] += w * a[idx[u]] * (t - c);
                for (int v = 0; v < k; v++)
                    g[u][v] += w * a[idx[u]] * a[idx[v]];
            }
        }
        if (solve(g, r, k, x) < 0)
            return -RT_E_INVAL;
        memset(p, 0, NP * sizeof *p);
        for (int u = 0; u < k; u++)
            p[idx[u]] = x[u];
        if (used[P_FIXED] && p[P_FIXED] < 0) {
            used[P_FIXED] = 0; /* below zero means none */
            *held = 1;
        } else if (used[P_R] && p[P_R] < 0) {
            used[P_R] = 0;
        } else {
            return 0;
        }
    }
}

int rt_calib_fit_link(rt_net_model *m, unsigned ct, rt_calib_point *pts, size_t n,
                      rt_calib_fit *fit, rt_err *err)
{
    double p[NP];
    int used[NP];
    int held, fit_o = 0;
    if (lsq(m, ct, pts, n, 0, p, used, &held) < 0)
        return rt_err_set(err, RT_E_INVAL,
                          "[%s] fewer than two sizes measured undisturbed: nothing to fit",
                          rt_contype_name(ct));
    if (held) {
        /* The measured overheads alone exceed the smallest one-way times: they cannot all
         * be per-message CPU time. Latency 0 then, and o fitted to the curve instead. */
        fit_o = 1;
        if (lsq(m, ct, pts, n, 1, p, used, &held) < 0)
            return rt_err_set(err, RT_E_INVAL, "[%s] the measured times fit no model",
                              rt_contype_name(ct));
    }
    /* Without rendezvous sizes the one rate is the bandwidth; without eager sizes, too. */
    double xr = used[P_XR] ? p[P_XR] : p[P_XE], xe = used[P_XE] ? p[P_XE] : xr;
    if (!(xr > 0) || !(xe > 0) || 1e12 / xr < 1 || 1e12 / xe < 1)
        return rt_err_set(err, RT_E_INVAL,
                          "[%s] no bandwidth fits: the measured times do not grow with the "
                          "message size",
                          rt_contype_name(ct));
    rt_net_link *l = &m->link[ct];
    /* whole ns; a fitted value below zero is none, one past 2^64 ps saturates (and is
     * refused where the model is used) */
    uint64_t fixed = rt_mul_sat(rt_u64_of_double(p[P_FIXED] / 1000), 1000);
    if (fit_o) {
        l->latency_ps = 0;
        l->overhead_ps = fixed;
    } else {
        l->latency_ps = fixed;
    }
    l->bandwidth = calib_round_sig4(1e12 / xr);
    l->eager_bandwidth = calib_round_sig4(1e12 / xe);
    if (l->eager_bandwidth == l->bandwidth)
        l->eager_bandwidth = 0; /* the same rate: no key of its own */
    l->rendezvous_ps = used[P_R] ? rt_mul_sat(rt_u64_of_double(p[P_R] / 1000), 1000) : 0;
    if (ct == RT_CT_NET)
        m->link[RT_CT_NONE] = *l;
    evaluate(m, ct, pts, n, fit);
    fit->latency_ps = l->latency_ps;
    fit->bandwidth = l->bandwidth;
    fit->overhead_fitted = fit_o;
    return 0;
}

/* The rate of rt_calib_fit_rate in bytes per ps, not rounded; 0 when no point is usable. */
static double fit_rate(const uint64_t *bytes, const uint64_t *ps, size_t n)
{
    /* t = n x with r = n/t: sum ((n x - t) / t)^2 = sum (r x - 1)^2, least for
     * x = sum(r) / sum(r^2). */
    double s1 = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        if (!bytes[i] || !ps[i])
            continue;
        double r = (double)bytes[i] / (double)ps[i];
        s1 += r;
        s2 += r * r;
    }
    return s1 > 0 ? s2 / s1 : 0; /* x = s1 / s2 ps per byte */
}

uint64_t rt_calib_fit_rate(const uint64_t *bytes, const uint64_t *ps, size_t n)
{
    double r = fit_rate(bytes, ps, n);
    return r > 0 ? calib_round_sig4(1e12 * r) : 0;
}

int rt_calib_fit_reduce(const uint64_t *cnt, const uint64_t *d, const uint64_t *f, size_t n,
                        uint64_t *bandwidth, uint64_t *element_ps)
{
    uint64_t bytes[RT_CALIB_MAX_POINTS];
    *bandwidth = *element_ps = 0;
    if (n > RT_CALIB_MAX_POINTS)
        n = RT_CALIB_MAX_POINTS;
    for (size_t i = 0; i < n; i++)
        bytes[i] = cnt[i] > UINT64_MAX / 8 ? 0 : cnt[i] * 8;
    double rd = fit_rate(cnt, d, n), rf = fit_rate(cnt, f, n); /* elements a ps */
    if (!(rd > 0))
        return -1;
    double ed = 1 / rd, ef = rf > 0 ? 1 / rf : ed; /* ps an element */
    double per_byte = (ed - ef) / 4, per_elem = ef - 4 * per_byte;
    /* a difference under 5% of a double's time is noise, not a cost per byte */
    if (!(ed - ef >= 0.05 * ed) || !(per_elem >= 0.5)) { /* per byte alone, or noise */
        *bandwidth = rt_calib_fit_rate(bytes, d, n);
        return 0;
    }
    *bandwidth = calib_round_sig4(1e12 / per_byte);
    *element_ps = calib_round_sig4(per_elem);
    return 1;
}

size_t rt_calib_spread(const rt_calib_point *pts, size_t n, double *median, double *max,
                       uint64_t *max_at)
{
    double v[RT_CALIB_MAX_POINTS];
    size_t k = 0;
    *median = *max = 0;
    *max_at = 0;
    for (size_t i = 0; i < n && k < RT_CALIB_MAX_POINTS; i++) {
        const rt_calib_point *p = &pts[i];
        if (p->disturbed || !p->time_ps)
            continue;
        double s = p->median_ps > p->time_ps
                       ? (double)(p->median_ps - p->time_ps) / (double)p->time_ps
                       : 0;
        if (!k || s > *max) {
            *max = s;
            *max_at = p->bytes;
        }
        v[k++] = s;
    }
    if (k) {
        qsort(v, k, sizeof *v, cmp_double);
        *median = v[(k - 1) / 2];
    }
    return k;
}
