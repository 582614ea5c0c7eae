/* retrace replay: what its two engines (cmd_replay.c, cmd_replay_mpi.c) share. The
 * configurations themselves are rt_whatif's (replayer/whatif). */
#ifndef RT_CLI_REPLAY_H
#define RT_CLI_REPLAY_H

#include "cli.h"
#include "rt_whatif.h"

/* --no-fast and --check-fast, for both engines (with --engine mpi they apply to the
 * built-in engine's predictions): the collective fast path off, or every replay checked
 * against one without it (rt_sim_check_fast). */
typedef struct replay_fast {
    int off, check;
} replay_fast;
/* 1 when argv[a->i] is one of the two flags (f updated), else 0. */
int replay_fast_option(cli_args *a, replay_fast *f);
/* After the options: CLI_OK, or the usage error when both were given. */
int replay_fast_finish(const replay_fast *f);

/* An rt_whatif error as the user sees it: a usage error (-RT_E_USAGE, the message names the
 * option) or an error. Returns CLI_BAD. */
int replay_error(int rc, const rt_err *err);

/* "retrace: note[ for LABEL]: LINE" on stderr for each line of notes (NULL: none). */
void replay_print_notes(const char *label, const char *notes);

/* Prints the report of a built-in replay that did not complete (or its warnings), and for
 * a run cut short (some rank did not reach MPI_Finalize) whose replay completes, a line that
 * says so. Returns 1 when the replay did not complete. label: the configuration (NULL:
 * the only one); what: "replay", or "prediction" (--engine mpi). */
int replay_report_failure(const char *what, const char *label, const rt_sim_result *r,
                          const rt_sim_trace_end *e);

/* retrace replay --engine mpi (cmd_replay_mpi.c). */
int replay_mpi_run(int argc, char **argv);

#endif /* RT_CLI_REPLAY_H */
