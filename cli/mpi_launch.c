/*
 * Which retrace runs under which launcher. retrace is linked with MPICH, retrace-openmpi
 * (built beside it from the same sources, where Open MPI is installed) with Open MPI. An MPI
 * library cannot join a job that another MPI's launcher started: under Open MPI's mpirun,
 * every MPICH process would start alone, a job of one. So retrace, started by Open MPI's
 * launcher, runs retrace-openmpi in its place before MPI starts, and users type the same
 * command under either launcher (docs/replay.md, "Real MPI").
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "cli.h"
#include "mpi_launch.h"

#ifdef OPEN_MPI /* Open MPI's mpi.h says so: this is retrace-openmpi */

const char *const cli_mpi_name = "Open MPI";
const unsigned cli_mpi_choice = RT_ALG_OMPI;

int cli_mpi_launch(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

#else

const char *const cli_mpi_name = "MPICH";
const unsigned cli_mpi_choice = RT_ALG_MPICH;

#define TWIN "retrace-openmpi"

/* Open MPI's launcher gives every process OMPI_COMM_WORLD_SIZE; MPICH's (hydra) gives
 * PMI_RANK, and where both are set (hydra started inside an Open MPI job, its environment
 * passed on) hydra is the nearer one. */
static int under_openmpi(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");
    return size && *size && !getenv("PMI_RANK");
}

/* This executable's directory joined to TWIN; -1 when /proc cannot tell or it is too long. */
static int twin_path(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return (size_t)snprintf(out, len, "%s/%s", self, TWIN) < len ? 0 : -1;
}

int cli_mpi_launch(int argc, char **argv)
{
    if (!under_openmpi())
        return 0;
    char path[PATH_MAX] = TWIN;
    int e = ENAMETOOLONG;
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) {
        e = ENOMEM;
    } else if (twin_path(path, sizeof path) == 0) {
        args[0] = path;
        memcpy(args + 1, argv, (size_t)argc * sizeof *argv);
        execv(path, args);
        e = errno;
    }
    free(args);
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank || !strcmp(rank, "0")) { /* one line, not one per process */
        fprintf(stderr,
                "retrace: started by Open MPI's mpirun, but this retrace uses MPICH and %s "
                "cannot be run (%s): build retrace where Open MPI's development files are "
                "installed, or run it under mpiexec.mpich\n",
                path, strerror(e));
        fflush(stderr);
    } else {
        /* mpirun ends the job when the first process fails: the others wait a little, so
         * that it is not rank 0 before it said why */
        struct timespec pause = {0, 300000000};
        nanosleep(&pause, NULL);
    }
    return CLI_FAIL;
}

#endif
