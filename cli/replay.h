/* retrace replay: what its two engines (cmd_replay.c, cmd_replay_mpi.c) share. */
#ifndef RT_CLI_REPLAY_H
#define RT_CLI_REPLAY_H

#include <stdint.h>

#include "rt_coll.h"

#define REPLAY_MAX_ALTS 16

/* One configuration: what the command line or an ALT says (NULL/0 = not given). */
typedef struct replay_conf {
    const char *label;
    const char *model, *coll, *map, *eager, *contention, *compute_scale;
    uint32_t nodes, modules, rpn;
    int free_wild;
    int alt; /* from --compare (its values are KEY:VALUE items of the label) */
} replay_conf;

/* A whole number from 1 to RT_MAX_RANKS; a bad value is a usage error (CLI_BAD) that names
 * what (an option, or "--compare: 'ALT': KEY"). */
int replay_parse_count(const char *what, const char *v, uint32_t *out);
/* A computation scale F (a decimal from 0 to 1000000, at most 6 decimals) in millionths:
 * 0, or -1 for a bad value (the caller reports it, with REPLAY_SCALE_EXPECTED). */
int replay_parse_scale(const char *v, uint64_t *ppm);
#define REPLAY_SCALE_EXPECTED "a number from 0 to 1000000 with at most 6 decimals"
/* ALT: KEY:VALUE[+KEY:VALUE...] on top of the base configuration in *c; text is cut up.
 * Usage errors are reported (CLI_BAD). */
int replay_parse_alt(char *text, const char *label, replay_conf *c);
/* The values of c that need no trace (coll, compute-scale, map, eager, contention), checked
 * before the trace is loaded; alg and scale_ppm receive the choice and the scale. A bad
 * value is a usage error naming its option, or the ALT and key it came from (CLI_BAD). */
int replay_check_conf(const replay_conf *c, uint8_t alg[RT_COLL_COUNT], uint64_t *scale_ppm);
/* The usage error for c's value of key: "--KEY: MESSAGE" or "--compare: 'ALT': KEY: MESSAGE". */
int replay_conf_error(const replay_conf *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "retrace: note[ for LABEL]: LINE" on stderr for each line of notes (NULL: none). */
void replay_print_notes(const char *label, const char *notes);

/* retrace replay --engine mpi (cmd_replay_mpi.c). */
int replay_mpi_run(int argc, char **argv);

#endif /* RT_CLI_REPLAY_H */
