/*
 * retrace itself does not link an MPI library: loading MPICH costs every start about 2.5 ms of
 * CPU (docs/benchmarks.md, "retrace against SimGrid"), more than a small analysis or replay
 * takes. The two commands that start MPI, calibrate and replay --engine mpi, are in
 * retrace-mpich (built beside retrace from the same sources, with MPICH), which retrace runs
 * in its place with the same arguments; under Open MPI's launcher retrace-mpich runs
 * retrace-openmpi in turn (mpi_launch.c). The user's command line stays the same.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "replay.h"

#define MPI_TWIN "retrace-mpich"

/* Runs retrace-mpich from this executable's directory with args (args[0] a command name);
 * returns only when it cannot, after one line saying why. */
static int run_twin(char *const *args, int nargs)
{
    char path[PATH_MAX] = MPI_TWIN, self[PATH_MAX];
    int e = ENAMETOOLONG;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0)
        self[n] = '\0';
    char *slash = n > 0 ? strrchr(self, '/') : NULL;
    char **argv = calloc((size_t)nargs + 2, sizeof *argv);
    if (!argv) {
        e = ENOMEM;
    } else if (slash) {
        *slash = '\0';
        if ((size_t)snprintf(path, sizeof path, "%s/%s", self, MPI_TWIN) < sizeof path) {
            argv[0] = path;
            memcpy(argv + 1, args, (size_t)nargs * sizeof *args);
            fflush(NULL);
            execv(path, argv);
            e = errno;
        }
    }
    free(argv);
    const char *rank = getenv("PMI_RANK"), *ompi = getenv("OMPI_COMM_WORLD_RANK");
    if ((rank && strcmp(rank, "0")) || (ompi && strcmp(ompi, "0")))
        return CLI_FAIL; /* under a launcher: one line, rank 0's, not one per process */
    cli_error("%s: needs %s, which cannot be run (%s): build retrace again", args[0], path,
              strerror(e));
    return CLI_FAIL;
}

int replay_mpi_run(int argc, char **argv)
{
    return run_twin(argv, argc);
}

static int calibrate_run(int argc, char **argv)
{
    return run_twin(argv, argc);
}

/* retrace help calibrate: retrace-mpich's text. */
static void calibrate_usage(FILE *out)
{
    (void)out; /* stdout: the only stream help is written to */
    static char help[] = "help", calibrate[] = "calibrate";
    char *args[] = {help, calibrate};
    run_twin(args, 2);
}

const cli_command cli_cmd_calibrate = {"calibrate", "measure MPI and write a network model",
                                       calibrate_run, calibrate_usage};
