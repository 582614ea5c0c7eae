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

#include "rt_calib.h"

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

/* The model time of n bytes as c + a L + b x (x in ps per byte), from the same rules as
 * rt_calib_model_oneway; exact up to the model's rounding of each transfer to whole ps. */
static void coeffs(const rt_net_model *m, unsigned ct, uint64_t n, double *c, double *a, double *b)
{
    const rt_net_link *l = link_of(m, ct);
    if (ct == RT_CT_GW && n > m->gw_mtu && m->gw_mtu) {
        uint64_t mtu = m->gw_mtu, k = n / mtu + (n % mtu != 0), last = n - (k - 1) * mtu;
        *a = (double)(k + 1);
        *b = (double)k * (double)mtu + (double)last;
    } else if (ct == RT_CT_GW) {
        *a = 2;
        *b = 2 * (double)n;
    } else {
        *a = 1;
        *b = (double)n;
    }
    *c = 2 * (double)l->overhead_ps;
    if (n > l->eager) {
        *c += (double)l->overhead_ps;
        *a += 2;
    }
}

/* v rounded to 4 significant digits (whole numbers below 10000 stay as they are). */
static uint64_t round_sig4(double v)
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

/* Model times of every point and their errors. */
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
        if (!pts[i].time_ps || ne == RT_CALIB_MAX_POINTS)
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

/* Weighted least squares of sum w (c + a p + b x - t)^2, w = 1/t^2 (relative errors), over
 * the points; p is L (fit_o == 0: o as m holds it) or o (fit_o == 1: L = 0). p < 0
 * is not a model: then p = 0 and x is fitted alone. Returns 1 when p was clamped so, 0
 * when not, -1 with fewer than two points. */
static int lsq(const rt_net_model *m, unsigned ct, const rt_calib_point *pts, size_t n, int fit_o,
               double *p, double *x)
{
    double saa = 0, sab = 0, sbb = 0, say = 0, sby = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pts[i].time_ps)
            continue;
        double c, a, b, t = (double)pts[i].time_ps, w = 1 / (t * t);
        coeffs(m, ct, pts[i].bytes, &c, &a, &b);
        if (fit_o) { /* L = 0: the overheads are the whole fixed cost, 2 or 3 of them */
            a = pts[i].bytes > link_of(m, ct)->eager ? 3 : 2;
            c = 0;
        }
        double y = t - c;
        saa += w * a * a;
        sab += w * a * b;
        sbb += w * b * b;
        say += w * a * y;
        sby += w * b * y;
        used++;
    }
    if (used < 2)
        return -1;
    double det = saa * sbb - sab * sab;
    *p = -1;
    if (det > 1e-12 * saa * sbb) {
        *p = (say * sbb - sab * sby) / det;
        *x = (saa * sby - sab * say) / det;
    }
    if (*p >= 0)
        return 0;
    *p = 0;
    *x = sbb > 0 ? sby / sbb : 0;
    return 1;
}

int rt_calib_fit_link(rt_net_model *m, unsigned ct, rt_calib_point *pts, size_t n,
                      rt_calib_fit *fit, rt_err *err)
{
    double p, x;
    int r = lsq(m, ct, pts, n, 0, &p, &x), fit_o = 0;
    if (r < 0)
        return rt_err_set(err, RT_E_INVAL, "[%s] fewer than two sizes measured: nothing to fit",
                          rt_contype_name(ct));
    if (r == 1) {
        /* The measured overheads alone exceed the smallest one-way times: they cannot all
         * be per-message CPU time. Latency 0 then, and o fitted to the curve instead. */
        fit_o = 1;
        lsq(m, ct, pts, n, 1, &p, &x);
    }
    if (!(x > 0) || 1e12 / x < 1)
        return rt_err_set(err, RT_E_INVAL,
                          "[%s] no bandwidth fits: the measured times do not grow with the "
                          "message size",
                          rt_contype_name(ct));
    rt_net_link *l = &m->link[ct];
    uint64_t whole_ns = (uint64_t)llround(p / 1000) * 1000;
    if (fit_o) {
        l->latency_ps = 0;
        l->overhead_ps = whole_ns;
    } else {
        l->latency_ps = whole_ns;
    }
    l->bandwidth = round_sig4(1e12 / x);
    if (ct == RT_CT_NET)
        m->link[RT_CT_NONE] = *l;
    evaluate(m, ct, pts, n, fit);
    fit->latency_ps = l->latency_ps;
    fit->bandwidth = l->bandwidth;
    fit->overhead_fitted = fit_o;
    return 0;
}

uint64_t rt_calib_fit_rate(const uint64_t *bytes, const uint64_t *ps, size_t n)
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
    if (!(s1 > 0))
        return 0;
    return round_sig4(1e12 * s2 / s1); /* x = s1 / s2 ps per byte; rate = 10^12 / x */
}
