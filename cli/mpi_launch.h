/* The commands that start MPI (replay --engine mpi, calibrate): which build of retrace runs
 * under which MPI's launcher (mpi_launch.c). */
#ifndef CLI_MPI_LAUNCH_H
#define CLI_MPI_LAUNCH_H

/* The MPI this build of retrace is linked with: "MPICH" or "Open MPI". */
extern const char *const cli_mpi_name;
/* ... and its own choice of collective algorithms as retrace models it (rt_coll.h):
 * RT_ALG_MPICH or RT_ALG_OMPI. */
extern const unsigned cli_mpi_choice;

/* Before MPI starts, with the subcommand's own argc and argv (argv[0] its name): when this
 * retrace is linked with MPICH and Open MPI's launcher started it, runs retrace-openmpi from
 * the same directory in its place with the same arguments, and does not return unless that
 * fails; then the first process says why in one line and CLI_FAIL is returned. 0: this
 * retrace is the one to run. */
int cli_mpi_launch(int argc, char **argv);

#endif /* CLI_MPI_LAUNCH_H */
