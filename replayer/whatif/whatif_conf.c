/* What-if configurations as text: the ALT grammar, counts, scales, and the checks that need
 * no trace (rt_whatif.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_parse.h"
#include "rt_whatif.h"

const char *rt_whatif_base_label(const rt_whatif_conf *b)
{
    int changed = b->model || b->coll || b->map || b->eager || b->contention || b->compute_scale ||
                  b->nodes || b->modules || b->rpn || b->free_wild;
    return changed ? "baseline" : "recorded";
}

int rt_whatif_parse_count(const char *what, const char *v, uint32_t *out, rt_err *err)
{
    uint64_t n;
    if (rt_parse_uint(v, 1, RT_MAX_RANKS, &n, NULL) < 0)
        return rt_err_set(err, RT_E_USAGE,
                          "%s: bad value '%s' (expected a whole number from 1 to %u)", what, v,
                          (unsigned)RT_MAX_RANKS);
    *out = (uint32_t)n;
    return 0;
}

int rt_whatif_parse_scale(const char *v, uint64_t *ppm)
{
    uint64_t whole = 0, frac = 0;
    unsigned digits = 0, fdigits = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9' && digits < 8; p++, digits++)
        whole = whole * 10 + (uint64_t)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9' && fdigits < 6; p++, fdigits++)
            frac = frac * 10 + (uint64_t)(*p - '0');
    for (unsigned i = fdigits; i < 6; i++)
        frac *= 10;
    if (*p || (!digits && !fdigits) || whole > 1000000 || (whole == 1000000 && frac))
        return -RT_E_INVAL;
    *ppm = whole * 1000000 + frac;
    return 0;
}

/* The usage error for c's value of key: "--KEY: MESSAGE" or "--compare: 'ALT': KEY: MESSAGE". */
static int conf_error(const rt_whatif_conf *c, const char *key, rt_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int conf_error(const rt_whatif_conf *c, const char *key, rt_err *err, const char *fmt, ...)
{
    char msg[RT_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->alt)
        return rt_err_set(err, RT_E_USAGE, "--compare: '%s': %s: %s", c->label, key, msg);
    return rt_err_set(err, RT_E_USAGE, "--%s: %s", key, msg);
}

/* One KEY:VALUE item of an ALT (item cut at the colon: v is the value). */
static int alt_item(rt_whatif_conf *c, const char *item, const char *v, rt_err *err)
{
    const char **text = !strcmp(item, "coll")            ? &c->coll
                        : !strcmp(item, "map")           ? &c->map
                        : !strcmp(item, "model")         ? &c->model
                        : !strcmp(item, "eager")         ? &c->eager
                        : !strcmp(item, "contention")    ? &c->contention
                        : !strcmp(item, "compute-scale") ? &c->compute_scale
                                                         : NULL;
    uint32_t *count = !strcmp(item, "nodes")            ? &c->nodes
                      : !strcmp(item, "modules")        ? &c->modules
                      : !strcmp(item, "ranks-per-node") ? &c->rpn
                                                        : NULL;
    if (text) {
        *text = v;
        return 0;
    }
    if (!count)
        return rt_err_set(err, RT_E_USAGE,
                          "--compare: '%s': unknown key '%s' (expected coll, map, model, eager, "
                          "contention, compute-scale, nodes, modules or ranks-per-node)",
                          c->label, item);
    char what[512];
    snprintf(what, sizeof what, "--compare: '%s': %s", c->label, item);
    return rt_whatif_parse_count(what, v, count, err);
}

int rt_whatif_parse_alt(char *text, const char *label, rt_whatif_conf *c, rt_err *err)
{
    c->label = label;
    c->alt = 1;
    for (char *item = text, *next; item; item = next) {
        next = strchr(item, '+');
        if (next)
            *next++ = '\0';
        char *v = strchr(item, ':');
        if (!v || v == item || !v[1])
            return rt_err_set(err, RT_E_USAGE,
                              "--compare: '%s': bad item '%s' (expected KEY:VALUE)", label, item);
        *v++ = '\0';
        int rc = alt_item(c, item, v, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int rt_whatif_check(const rt_whatif_conf *c, uint8_t alg[RT_COLL_COUNT], uint64_t *scale_ppm,
                    rt_err *err)
{
    rt_err why;
    rt_net_model model;
    rt_net_model_default(&model);
    int rc;
    if (c->model && (rc = rt_net_model_load(&model, c->model, &why)) < 0)
        return rt_err_set(err, -rc, "%s", why.msg);
    if (c->coll && rt_coll_parse_algs(c->coll, alg, &why) < 0) {
        const char *m = why.msg;
        if (!strncmp(m, "--coll: ", 8)) /* the option is named by conf_error */
            m += 8;
        return conf_error(c, "coll", err, "%s", m);
    }
    if (c->compute_scale && rt_whatif_parse_scale(c->compute_scale, scale_ppm) < 0)
        return conf_error(c, "compute-scale", err, "bad value '%s' (expected %s)", c->compute_scale,
                          RT_WHATIF_SCALE_EXPECTED);
    rt_map_spec spec;
    if (c->map && rt_map_parse(c->map, &spec, &why) < 0)
        return conf_error(c, "map", err, "%s", why.msg);
    uint64_t e;
    if (c->eager && rt_net_parse_size(c->eager, &e, &why) < 0)
        return conf_error(c, "eager", err, "%s", why.msg);
    if (c->contention && strcmp(c->contention, "on") && strcmp(c->contention, "off"))
        return conf_error(c, "contention", err, "bad value '%s' (expected on or off)",
                          c->contention);
    return 0;
}

int rt_whatif_set_make(rt_whatif_set *s, const rt_whatif_conf *base, const char *const *alts,
                       unsigned nalts, rt_err *err)
{
    memset(s, 0, sizeof *s);
    if (nalts > RT_WHATIF_MAX_ALTS)
        return rt_err_set(err, RT_E_USAGE, "--compare: at most %d alternatives",
                          RT_WHATIF_MAX_ALTS);
    s->conf[0] = *base;
    s->conf[0].label = rt_whatif_base_label(base);
    s->n = 1;
    uint8_t alg[RT_COLL_COUNT];
    uint64_t ppm;
    int rc = rt_whatif_check(&s->conf[0], alg, &ppm, err);
    for (unsigned i = 0; i < nalts && rc == 0; i++) {
        rt_whatif_conf *c = &s->conf[s->n++];
        *c = *base;
        if (!(s->text[i] = strdup(alts[i])))
            return rt_err_set(err, RT_E_NOMEM, "out of memory");
        if ((rc = rt_whatif_parse_alt(s->text[i], alts[i], c, err)) == 0)
            rc = rt_whatif_check(c, alg, &ppm, err);
    }
    return rc;
}

void rt_whatif_set_free(rt_whatif_set *s)
{
    for (unsigned i = 0; i < RT_WHATIF_MAX_ALTS; i++)
        free(s->text[i]);
    memset(s, 0, sizeof *s);
}
