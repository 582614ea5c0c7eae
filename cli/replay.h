/* retrace replay: what its two engines (cmd_replay.c, cmd_replay_mpi.c) share. The
 * configurations themselves are rt_whatif's (replayer/whatif). */
#ifndef RT_CLI_REPLAY_H
#define RT_CLI_REPLAY_H

#include "cli.h"
#include "rt_whatif.h"

/* An rt_whatif error as the user sees it: a usage error (-RT_E_USAGE, the message names the
 * option) or an error. Returns CLI_BAD. */
int replay_error(int rc, const rt_err *err);

/* "retrace: note[ for LABEL]: LINE" on stderr for each line of notes (NULL: none). */
void replay_print_notes(const char *label, const char *notes);

/* retrace replay --engine mpi (cmd_replay_mpi.c). */
int replay_mpi_run(int argc, char **argv);

#endif /* RT_CLI_REPLAY_H */
