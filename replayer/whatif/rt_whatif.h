/*
 * rt_whatif: the what-if configurations of a replay (`retrace replay`, docs/replay.md). A
 * configuration is what the command line, or one `--compare ALT` on top of it, says about
 * the machine and the MPI library: a model file, collective algorithms, a placement, an
 * eager threshold, contention, a computation scale, a machine shape. This part reads the
 * ALT grammar, checks a configuration before the (possibly long) load of the trace, turns
 * it with the trace into the built-in engine's settings (rt_sim_config with a placement),
 * and makes the tables of replays: the per-rank table and the comparison rows.
 *
 * The values stay text until they are checked, so that a message can name where each came
 * from as the user typed it: "--eager: ..." for an option, "--compare: 'ALT': eager: ..."
 * for an alternative. Errors are -RT_E_USAGE when the command line is at fault (the
 * message says which option), or the code of the input that failed (a model file that
 * cannot be read, a mapping file, memory).
 */
#ifndef RT_WHATIF_H
#define RT_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "rt_coll.h"
#include "rt_error.h"
#include "rt_map.h"
#include "rt_report.h"
#include "rt_sim.h"

#define RT_WHATIF_MAX_ALTS 16 /* --compare alternatives at most */

/* One configuration as given (NULL or 0: not given, the trace's or the model's own). */
typedef struct rt_whatif_conf {
    const char *label; /* how tables and messages name it */
    const char *model, *coll, *map, *eager, *contention, *compute_scale;
    uint32_t nodes, modules, rpn; /* machine shape; rpn: ranks per node */
    int free_wild;                /* match wildcard receives freely */
    int alt;                      /* from --compare: label is its KEY:VALUE text */
} rt_whatif_conf;

/* The label of the configuration the options give: "baseline" when they change anything,
 * else "recorded". */
const char *rt_whatif_base_label(const rt_whatif_conf *base);

/* ---- reading values (whatif_conf.c) ---------------------------------------------------------- */

/* A whole number from 1 to RT_MAX_RANKS (a machine shape). -RT_E_USAGE "WHAT: bad value
 * 'V' (expected a whole number from 1 to N)"; what names the option (or "--compare: 'ALT':
 * KEY"). */
int rt_whatif_parse_count(const char *what, const char *v, uint32_t *out, rt_err *err);

/* A computation scale F, a decimal from 0 to 1000000 with at most 6 decimals, in millionths
 * (exactly: "0.5" is 500000). -RT_E_INVAL for anything else; the caller names the option,
 * with RT_WHATIF_SCALE_EXPECTED. */
int rt_whatif_parse_scale(const char *v, uint64_t *ppm);
#define RT_WHATIF_SCALE_EXPECTED "a number from 0 to 1000000 with at most 6 decimals"

/* ALT, KEY:VALUE[+KEY:VALUE...] with KEY one of coll, map, model, eager, contention,
 * compute-scale, nodes, modules, ranks-per-node, on top of the configuration already in *c
 * (a copy of the base): c->label becomes label and c->alt 1. text (a copy of label) is cut
 * up: c points into it. -RT_E_USAGE for a malformed item, an unknown key or a bad count;
 * the other values are checked by rt_whatif_check. */
int rt_whatif_parse_alt(char *text, const char *label, rt_whatif_conf *c, rt_err *err);

/* Checks the values of c that need no trace: the model file (read), coll, compute-scale,
 * map, eager, contention. alg receives the collective choice (entries not named are left
 * as they are) and *scale_ppm the scale when given. -RT_E_USAGE naming the option or the
 * ALT and key ("--compare: 'coll:all=x': coll: ..."), or the model loader's error. */
int rt_whatif_check(const rt_whatif_conf *c, uint8_t alg[RT_COLL_COUNT], uint64_t *scale_ppm,
                    rt_err *err);

/* Every configuration of a replay: the base (conf[0], labelled by rt_whatif_base_label),
 * then one per alternative, in order. */
typedef struct rt_whatif_set {
    unsigned n; /* configurations: 1 + alternatives */
    rt_whatif_conf conf[RT_WHATIF_MAX_ALTS + 1];
    char *text[RT_WHATIF_MAX_ALTS]; /* the alternatives' cut-up copies */
} rt_whatif_set;

/* Makes and checks the set: the base first, then each alternative (read, then checked),
 * stopping at the first error (rt_whatif_parse_alt's or rt_whatif_check's). nalts is at most
 * RT_WHATIF_MAX_ALTS. The set is to be freed whatever this returns. */
int rt_whatif_set_make(rt_whatif_set *s, const rt_whatif_conf *base, const char *const *alts,
                       unsigned nalts, rt_err *err);
void rt_whatif_set_free(rt_whatif_set *s);

/* ---- a configuration on a trace (whatif_setup.c) ----------------------------------------- */

/* The engine's settings for c that need no trace: the default configuration with c's model
 * (its eager threshold and contention changed as c says), algorithms, compute scale and
 * wildcard matching; the recorded placement. c must have passed rt_whatif_check (else its
 * error). base: the algorithms where c names none (RT_ALG_MPICH or RT_ALG_OMPI: the choice of
 * the MPI library the prediction stands beside). */
int rt_whatif_sim_config(const rt_whatif_conf *c, unsigned base, rt_sim_config *cfg, rt_err *err);

/* The traffic that a placement by spec needs from the trace: the edges of t for --map auto
 * (rt_sim_trace_traffic; free() them), none (NULL, 0) for the others. */
int rt_whatif_traffic(const rt_map_spec *spec, const rt_sim_trace *t, rt_map_edge **edges,
                      size_t *nedges, rt_err *err);

/* Everything a replay of one configuration needs. */
typedef struct rt_whatif_setup {
    rt_sim_config cfg;                   /* node and module: NULL (recorded) or the arrays below */
    rt_map_shape shape;                  /* the machine: the recorded shape, completed by c's */
    char map_name[RT_MAP_PATH_MAX + 16]; /* the placement as the user would type it */
    uint32_t *node, *module;             /* per world rank, when not the recorded placement */
} rt_whatif_setup;

/* Sets up c for a replay of t: rt_whatif_sim_config (but with the choice of algorithms of
 * the MPI that recorded t as the default, rt_coll_library_choice), then the machine shape (the
 * recorded one with c's nodes, modules and ranks per node; -RT_E_USAGE when it cannot hold the
 * trace, prefixed "--compare: 'ALT': " for an alternative) and the placement (c's map, else
 * the recorded one, or block on another shape). su is to be freed whatever this returns. */
int rt_whatif_setup_make(const rt_whatif_conf *c, const rt_sim_trace *t, rt_whatif_setup *su,
                         rt_err *err);
void rt_whatif_setup_free(rt_whatif_setup *su);

/* ---- tables (whatif_tables.c) -------------------------------------------------------------- */

/* "ranks", per rank (times in microseconds): rank, end_us, mpi_us, compute_us, mpi_pct; every
 * rank when all or up to 64 ranks, else the 16 that end last, latest first. NULL: out of
 * memory. */
rt_table *rt_whatif_rank_table(const rt_sim_result *res, int all);

/* "compare", what if (times in microseconds): configuration, predicted_us, mpi_us_per_rank,
 * messages, bytes, gw_crossings, speedup; a row per replay (rt_whatif_compare_row). */
rt_table *rt_whatif_compare_table(void);
/* The row of one replay; base_ps is the first configuration's predicted time (the speedup is
 * base_ps over this one's). A replay that did not complete shows "deadlock" and "-" for its
 * times. 0 or -RT_E_NOMEM. */
int rt_whatif_compare_row(rt_table *tb, const char *label, const rt_sim_result *r,
                          uint64_t base_ps);

#endif /* RT_WHATIF_H */
