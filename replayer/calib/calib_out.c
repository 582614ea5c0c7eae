/*
 * The calibration's outputs (rt_calib.h): the model file, whose comments say what was
 * measured, how, and what was not; and the verbose per-size report of the fit.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt__calib.h"

void calib_note_add(calib_note *n, const char *fmt, ...)
{
    if (n->len >= sizeof n->s - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(n->s + n->len, sizeof n->s - n->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        n->len = n->len + (size_t)k < sizeof n->s ? n->len + (size_t)k : sizeof n->s - 1;
}

/* Sizes for people: "4 MiB", "16 KiB", "8193 B". */
static void size_text(uint64_t n, char *buf, size_t len)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        snprintf(buf, len, "%" PRIu64 " MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, len, "%" PRIu64 " KiB", n >> 10);
    else
        snprintf(buf, len, "%" PRIu64 " B", n);
}

static const char *why_absent(unsigned ct)
{
    switch (ct) {
    case RT_CT_SHM:
        return "no two ranks on one node";
    case RT_CT_NET:
        return "no two ranks on different nodes of one module";
    default:
        return "no two ranks in different modules";
    }
}

static void link_note(const rt_calib_result *res, unsigned ct, calib_note *n)
{
    const rt_calib_link *l = &res->link[ct];
    char a[32], b[32], c[32];
    if (!l->measured) {
        calib_note_add(n, "not measured: %s; values from %s", why_absent(ct), res->base);
        return;
    }
    uint64_t largest = l->npts ? l->pts[0].bytes : 0;
    for (uint32_t i = 0; i < l->npts; i++)
        if (l->pts[i].bytes > largest)
            largest = l->pts[i].bytes;
    size_text(largest, a, sizeof a);
    if (ct == RT_CT_LOOP)
        calib_note_add(n, "measured on rank %u with itself (MPI_Isend, MPI_Recv, MPI_Wait)",
                       (unsigned)l->a);
    else
        calib_note_add(n, "measured between ranks %u and %u (nodes %u and %u, modules %u and %u)",
                       (unsigned)l->a, (unsigned)l->b, (unsigned)l->node[0], (unsigned)l->node[1],
                       (unsigned)l->module[0], (unsigned)l->module[1]);
    calib_note_add(n,
                   ": one-way times of 0 B and powers of two to %s, best of %u batches per size\n",
                   a, (unsigned)l->batches);
    double med, max;
    uint64_t at;
    if (rt_calib_spread(l->pts, l->npts, &med, &max, &at))
        calib_note_add(n,
                       "spread: the median batch %.1f%% above the best in the median over sizes, "
                       "%.1f%% at most (at %" PRIu64 " bytes)%s\n",
                       100 * med, 100 * max, at,
                       med > RT_CALIB_NOISY ? ": too noisy, the model is faster than what "
                                              "applications see here"
                                            : "");
    if (l->disturbed)
        calib_note_add(n,
                       "warning: at %u sizes every batch was disturbed by other processes (a rank "
                       "was switched out): left out of the fit; rerun on a quieter machine\n",
                       (unsigned)l->disturbed);
    rt_net_format_time(l->o_send_ps, a, sizeof a);
    rt_net_format_time(l->o_recv_ps, b, sizeof b);
    calib_note_add(
        n,
        "overhead: mean of an 8-byte send call (%s) and of a receive call whose message had "
        "arrived (%s), medians\n",
        a, b);
    if (ct == RT_CT_LOOP)
        calib_note_add(n, "gap: not measurable (sender and receiver are one process)\n");
    else
        calib_note_add(n, "gap: per-message time of a stream of 8-byte sends\n");
    if (l->switched && l->eager_hi)
        calib_note_add(n,
                       "eager: a send of %" PRIu64
                       " bytes finishes before a late receive is posted, "
                       "one of %" PRIu64 " bytes waits for it\n",
                       l->eager_lo, l->eager_hi);
    else if (l->switched)
        calib_note_add(
            n, "eager: even an empty send waits for a late receive: everything is rendezvous\n");
    else
        calib_note_add(n,
                       "eager: no send up to the largest size (%" PRIu64
                       " bytes) waited for a late "
                       "receive\n",
                       l->eager_lo);
    if (l->fit.overhead_fitted)
        calib_note_add(
            n, "overhead: the measured one exceeds what the smallest one-way times allow, so "
               "latency is 0 and o is fitted to the curve\n");
    size_text(l->fit.err_max_at, c, sizeof c);
    calib_note_add(
        n,
        "latency, bandwidth, eager_bandwidth, rendezvous: least squares on the relative "
        "error of the model's\n  one-way time, %s;\n  error median %.1f%%, max %.1f%% (at %s)",
        ct == RT_CT_GW ? "eager o + wire + o, rendezvous 3o + 2L + wire (wire: two chunked hops, "
                         "plus rendezvous)"
                       : "eager o + L + n/eager_bandwidth + o, rendezvous 3o + 3L + rendezvous "
                         "+ n/bandwidth",
        100 * l->fit.err_median, 100 * l->fit.err_max, c);
}

/* The [calls] comment on the algorithm costs: how, and per algorithm its spread and the sizes
 * MPICH refused it for; under Open MPI why there are none. */
static void alg_note(const rt_calib_result *res, calib_note *cn)
{
    if (res->algs_unforced) {
        calib_note_add(cn, "\nalgorithm costs (MPI_Allreduce/ring) not measured: Open MPI takes "
                           "a forced algorithm only into communicators made after it is set, "
                           "and calibrate forces them at run time as the MPICH replay does");
        return;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < res->ncalls; i++) {
        const rt_calib_call *cc = &res->calls[i];
        if (cc->alg == RT_ALG_MPICH)
            continue;
        if (!n++)
            calib_note_add(cn, "\nMPI_Name/alg: the same with MPICH's algorithm forced "
                               "(MPIR_CVAR_<OP>_INTRA_ALGORITHM, as replay --engine mpi forces "
                               "it), the median batch, the engine running that algorithm; the "
                               "median batch's time over the best's, less one, per size:");
        calib_note_add(cn, "\n  %s/%s:", rt_func_name(cc->fn), rt_coll_alg_name(cc->alg));
        for (unsigned s = 0; s < cc->npts; s++)
            calib_note_add(cn, " %llu B +%.0f%%", (unsigned long long)cc->size[s],
                           cc->best_ps[s]
                               ? 100.0 * ((double)cc->measured_ps[s] / (double)cc->best_ps[s] - 1)
                               : 0.0);
        if (cc->refused)
            calib_note_add(cn, "%s refused by MPICH at %s", cc->npts ? ";" : "",
                           cc->refused == 3  ? "both sizes (no cost)"
                           : cc->refused & 1 ? "the small size"
                                             : "the large size");
    }
}

int rt_calib_write(const rt_calib_result *res, const rt_net_model *m, FILE *out)
{
    calib_note notes[RT_CT_COUNT + 1];
    const char *text[RT_CT_COUNT + 1] = {0};
    memset(notes, 0, sizeof notes);
    calib_note *g = &notes[RT_CT_NONE];
    calib_note_add(g,
                   "measured by retrace calibrate with %u rank%s on %u node%s in %u module%s (%s), "
                   "in %.2f s\n",
                   (unsigned)res->nranks, res->nranks == 1 ? "" : "s", (unsigned)res->nnodes,
                   res->nnodes == 1 ? "" : "s", (unsigned)res->nmodules,
                   res->nmodules == 1 ? "" : "s", res->placement, res->seconds);
    calib_note_add(g, "MPI: %s\n", res->library);
    calib_note_add(g, "measured:");
    const char *sep = " ";
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++)
        if (res->link[ct].measured) {
            calib_note_add(g, "%s%s", sep, rt_contype_name(ct));
            sep = ", ";
        }
    calib_note_add(g, "; kept from %s:", res->base);
    sep = " ";
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++)
        if (!res->link[ct].measured) {
            calib_note_add(g, "%s%s", sep, rt_contype_name(ct));
            sep = ", ";
        }
    calib_note_add(g, "%sgateways, gw_mtu, contention\n", sep);
    /* docs/calibrate.md: a cost per element needs reductions of two element sizes */
    if (res->reduce_bandwidth && res->reduce_fit == 1)
        calib_note_add(g,
                       "reduce_bandwidth, reduce_element: MPI_Reduce_local (MPI_SUM) on doubles "
                       "and on floats, 128 to 128 Ki elements (%u sizes each), rank 0: the time "
                       "per byte is what a double costs more than a float, the rest a cost per "
                       "element\n",
                       (unsigned)res->reduce_pts);
    else if (res->reduce_bandwidth)
        calib_note_add(g,
                       "reduce_bandwidth: MPI_Reduce_local (MPI_SUM) on doubles, 1 KiB to 1 MiB "
                       "(%u sizes), rank 0, fitted rate; reduce_element: 0, as floats cost no "
                       "less than doubles a byte or more than them an element (a cost per "
                       "byte alone)\n",
                       (unsigned)res->reduce_pts);
    else
        calib_note_add(g, "reduce_element: not measured (kept from %s)\n", res->base);
    if (res->cores)
        calib_note_add(
            g,
            "cores: the CPUs the ranks of a node may run on (the union of their affinity masks%s), "
            "on the node with the fewest\n",
            res->cores_bound ? "; the online CPUs on a node whose ranks are bound to one each"
                             : "");
    if (res->timeslice_ps)
        calib_note_add(
            g,
            "timeslice: the median of %u pauses of rank 0 reading the clock while a second "
            "thread spins on its CPU\n",
            res->timeslice_pauses);
    else
        calib_note_add(
            g,
            "timeslice: not measured (%u pauses of rank 0 beside a spinning thread, fewer "
            "than 3); kept from %s\n",
            res->timeslice_pauses, res->base);
    calib_note_add(g,
                   "injection = bytes: a sender is busy o + n/B per message (at least g), latency "
                   "overlaps the next message");
    text[RT_CT_NONE] = g->s;
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++) {
        link_note(res, ct, &notes[ct]);
        text[ct] = notes[ct].s;
    }
    calib_note *cn = &notes[RT_CT_COUNT];
    if (res->ncalls) {
        calib_note_add(
            cn,
            "CPU time of a call beyond its messages, fixed + n / rate (n: the call's bytes), "
            "measured by ranks 0 and 1 alone (%s):\n"
            "  Isend, Irecv: rank 0's time of one call (an Isend to a posted receive), median of "
            "32, best batch;\n"
            "  collectives and Win_fence: rank 0's time per call of 32 back-to-back calls, best "
            "batch, less the engine's time for the same calls;\n"
            "  Put: the same for epochs of a Put to the next rank and a fence, the engine with "
            "Win_fence's cost;\n"
            "  two sizes give the fixed part and the rate (one size, or no growth: fixed only)",
            rt_contype_name(res->calls_ct));
        alg_note(res, cn);
        if (res->calls_engine_failed)
            calib_note_add(
                cn, "\nwarning: some engine replays failed: those costs are the whole measured "
                    "time");
        text[RT_CT_COUNT] = cn->s;
    }
    return rt_net_model_write_notes(m, text, out);
}

void rt_calib_report(const rt_calib_result *res, FILE *out)
{
    for (unsigned ct = RT_CT_NONE + 1; ct < RT_CT_COUNT; ct++) {
        const rt_calib_link *l = &res->link[ct];
        if (!l->measured)
            continue;
        const rt_net_link *f = &l->fitted;
        char o[32], g[32], lat[32], s[32], r[32];
        rt_net_format_time(f->overhead_ps, o, sizeof o);
        rt_net_format_time(f->gap_ps, g, sizeof g);
        rt_net_format_time(f->latency_ps, lat, sizeof lat);
        rt_net_format_time(l->o_send_ps, s, sizeof s);
        rt_net_format_time(l->o_recv_ps, r, sizeof r);
        char rv[32];
        rt_net_format_time(f->rendezvous_ps, rv, sizeof rv);
        fprintf(out,
                "[%s] ranks %u and %u: send %s, receive %s -> overhead %s; gap %s; eager "
                "%" PRIu64 "; latency %s, bandwidth %.4g GB/s, eager_bandwidth %.4g GB/s, "
                "rendezvous %s\n",
                rt_contype_name(ct), (unsigned)l->a, (unsigned)l->b, s, r, o, g, f->eager, lat,
                (double)f->bandwidth / 1e9,
                (double)(f->eager_bandwidth ? f->eager_bandwidth : f->bandwidth) / 1e9, rv);
        fprintf(out, "%12s %12s %12s %12s %8s\n", "bytes", "best", "median", "model", "error");
        for (uint32_t i = 0; i < l->npts; i++) {
            const rt_calib_point *p = &l->pts[i];
            char b[32], md[32], mo[32];
            rt_net_format_time(p->time_ps, b, sizeof b);
            rt_net_format_time(p->median_ps, md, sizeof md);
            rt_net_format_time(p->model_ps, mo, sizeof mo);
            double e = p->time_ps
                           ? 100.0 * ((double)p->model_ps - (double)p->time_ps) / (double)p->time_ps
                           : 0;
            fprintf(out, "%12" PRIu64 " %12s %12s %12s %+7.1f%%%s\n", p->bytes, b, md, mo, e,
                    p->disturbed ? "  (disturbed: not fitted)" : "");
        }
        if (l->error[0])
            fprintf(out, "fit failed: %s\n\n", l->error);
        else
            fprintf(out, "fit error: median %.1f%%, max %.1f%% at %" PRIu64 " bytes\n\n",
                    100 * l->fit.err_median, 100 * l->fit.err_max, l->fit.err_max_at);
    }
    if (res->reduce_bandwidth) {
        char e[32];
        rt_net_format_time(res->reduce_element_ps, e, sizeof e);
        fprintf(out, "reduce_bandwidth %.4g GB/s, reduce_element %s (MPI_Reduce_local, %s)\n",
                (double)res->reduce_bandwidth / 1e9, e,
                res->reduce_fit == 1 ? "doubles against floats" : "doubles; no cost per element");
    } else {
        fprintf(out, "reduce_element not measured (kept from %s)\n", res->base);
    }
    if (res->ncalls)
        fprintf(out, "%-16s %10s %12s %12s %12s  %s\n", "call", "bytes", "measured", "engine",
                "cost", "fitted");
    for (unsigned i = 0; i < res->ncalls; i++) {
        const rt_calib_call *cc = &res->calls[i];
        char fitted[96], bw[32] = "";
        char fx[32];
        rt_net_format_time(cc->cost.fixed_ps, fx, sizeof fx);
        if (cc->cost.bandwidth)
            snprintf(bw, sizeof bw, " + n / %.4g GB/s", (double)cc->cost.bandwidth / 1e9);
        snprintf(fitted, sizeof fitted, "%s%s", fx, bw);
        char name[64];
        snprintf(name, sizeof name, "%s%s%s", rt_func_name(cc->fn), cc->alg ? "/" : "",
                 cc->alg ? rt_coll_alg_name(cc->alg) : "");
        if (!cc->npts)
            fprintf(out, "%-16s %10s %12s %12s %12s  not measured\n", name, "-", "-", "-", "-");
        for (unsigned s = 0; s < cc->npts; s++) {
            char me[32], en[32], co[32];
            rt_net_format_time(cc->measured_ps[s], me, sizeof me);
            rt_net_format_time(cc->engine_ps[s], en, sizeof en);
            double d = (double)cc->measured_ps[s] - (double)cc->engine_ps[s];
            if (d < 0)
                snprintf(co, sizeof co, "(below)");
            else
                rt_net_format_time(rt_u64_of_double(d), co, sizeof co);
            fprintf(out, "%-16s %10llu %12s %12s %12s  %s\n", name, (unsigned long long)cc->size[s],
                    me, en, co, s ? "" : fitted);
        }
    }
}
