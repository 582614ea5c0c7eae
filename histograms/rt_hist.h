/*
 * Message-length histograms with ParaStation MPI's semantics (DESIGN.md, "psmpi histogram").
 *
 * Limits L_i = min << (i * shift) for i = 0, 1, ... while L_i <= max; k limits give k + 1
 * bins. Bin 0 counts len <= L_0 (0-byte messages included), bin i counts L_{i-1} < len <= L_i,
 * the last bin counts len > L_{k-1}.
 *
 * Used by the tracer's live histogram (rt_hist_count once per sent message: no allocation,
 * no locks, no loop, no division; one histogram per thread, merged at the end) and by the
 * analyzer. Everything here is a plain value struct.
 */
#ifndef RT_HIST_H
#define RT_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"

#define RT_HIST_DEFAULT_MIN UINT64_C(64)
#define RT_HIST_DEFAULT_MAX UINT64_C(67108864) /* 64 MiB */
#define RT_HIST_DEFAULT_SHIFT 1u

/* Largest accepted min and max. Keeps every limit, and limit << shift, clear of uint64
 * overflow, and bounds the limit count: min = 1, shift = 1 gives 2^0 .. 2^62. */
#define RT_HIST_LIMIT_CAP (UINT64_C(1) << 62)
#define RT_HIST_MAX_SHIFT 63u
#define RT_HIST_MAX_LIMITS 63u
#define RT_HIST_MAX_BINS (RT_HIST_MAX_LIMITS + 1u)

typedef struct rt_hist_config {
    uint64_t min, max;
    unsigned shift;
    int contype;           /* rt_contype to count, or -1 for every message */
    char contype_name[16]; /* the filter's name as the user typed it ("gateway"), for the
                            * report header; "" when there is no filter */
} rt_hist_config;

/* min 64, max 64 MiB, shift 1, no filter. */
void rt_hist_config_default(rt_hist_config *c);

/*
 * Configuration from environment values (psmpi's PSP_HISTOGRAM_MIN, _MAX, _SHIFT, _CONTYPE
 * or our RETRACE_HISTOGRAM_*). Each string may be NULL or "" for unset. Numbers are plain
 * decimal integers (digits only, no sign, no spaces, no suffix). A bad value never fails:
 * it costs one warning line naming "<prefix>_<NAME>=<value>" and that parameter keeps its
 * default. Bad means: not a number, negative, min = 0, shift = 0, shift > 63, min or max
 * above 2^62 (RT_HIST_LIMIT_CAP; rejected rather than capped so that a typo is reported),
 * max < min (the value the user set falls back; if both were set and even the default max
 * is below min, both fall back), an unknown CONTYPE (no filter).
 * The result is always a valid config. Nothing is printed: the warnings, each ending in
 * '\n', go to warnings (truncated to len, always terminated; may be NULL when len is 0).
 * prefix NULL means "PSP_HISTOGRAM". Returns the number of warnings.
 */
int rt_hist_config_from_env(rt_hist_config *c, const char *prefix, const char *min, const char *max,
                            const char *shift, const char *contype, char *warnings, size_t len);

/*
 * Configuration from command-line values (retrace hist --min --max --shift --contype);
 * NULL means the default. Sizes and the shift are read with rt_parse.h (one grammar for
 * every option: 4K, 64M, 1T ...). Unlike the environment flavour, a bad value is an error
 * (-RT_E_INVAL, err names the option) and c is left untouched.
 */
int rt_hist_config_from_args(rt_hist_config *c, const char *min, const char *max, const char *shift,
                             const char *contype, rt_err *err);

/* 0 when c can be given to rt_hist_init, else -RT_E_INVAL with the reason in err. */
int rt_hist_config_check(const rt_hist_config *c, rt_err *err);

typedef struct rt_hist {
    rt_hist_config cfg;
    unsigned nlimits;                       /* k */
    uint64_t limit[RT_HIST_MAX_LIMITS + 1]; /* L_0 .. L_{k-1}, then UINT64_MAX */
    uint8_t bin_of_bits[65];                /* bin of 2^(b-1), by bit length b of len */
    uint64_t count[RT_HIST_MAX_BINS];       /* k + 1 used, the rest stay 0 */
} rt_hist;

/* Limits from c and all counts zero. Returns 0, or -RT_E_INVAL (h untouched) when c fails
 * rt_hist_config_check. */
int rt_hist_init(rt_hist *h, const rt_hist_config *c);

static inline unsigned rt_hist_nbins(const rt_hist *h)
{
    return h->nlimits + 1;
}

/*
 * The bin of a message of len bytes. Limits grow at least twofold, so among the lengths of
 * one bit length there is at most one limit: the bin of the smallest such length, plus one
 * when len is above that bin's limit. The sentinel limit[k] = UINT64_MAX ends the last bin.
 * len | 1 puts 0 with 1, which is right because L_0 >= 1.
 */
static inline unsigned rt_hist_bin(const rt_hist *h, uint64_t len)
{
    unsigned bits = 64u - (unsigned)__builtin_clzll(len | 1u);
    unsigned i = h->bin_of_bits[bits];
    return i + (len > h->limit[i]);
}

/* Hot path: count one message of len bytes and connection type contype (an rt_contype),
 * unless the filter excludes it. Branch-free: a filtered message adds 0. */
static inline void rt_hist_count(rt_hist *h, uint64_t len, int contype)
{
    uint64_t take = (h->cfg.contype < 0) | (contype == h->cfg.contype);
    h->count[rt_hist_bin(h, len)] += take;
}

/* dst += src. Both must have the same limits; otherwise -RT_E_INVAL and dst untouched. */
int rt_hist_merge(rt_hist *dst, const rt_hist *src);

/* The report rank 0 prints at MPI_Finalize, in psmpi's exact layout. 0, -RT_E_IO, or
 * -RT_E_INVAL when h was not set up by rt_hist_init. */
int rt_hist_write_text(const rt_hist *h, FILE *out);

#endif /* RT_HIST_H */
