/* retrace record: which MPI library the recorded program uses (cli/record_mpi.c). */
#ifndef RT_RECORD_MPI_H
#define RT_RECORD_MPI_H

#include <stddef.h>

typedef enum record_mpi { RECORD_MPI_UNKNOWN, RECORD_MPI_MPICH, RECORD_MPI_OPENMPI } record_mpi;

/* What record_mpi_of found, and how. */
typedef struct record_mpi_guess {
    record_mpi mpi;
    const char *program; /* the program the launcher starts (or the command), in command */
    char library[64];    /* the MPI library that told (libmpi.so.40), or "" */
    char launcher[64];   /* the launcher that told (orterun), when the program did not, or "" */
    char why[160];       /* RECORD_MPI_UNKNOWN: why not, for the warning */
} record_mpi_guess;

/*
 * The MPI of a command as record runs it (COMMAND... after --): when command[0] is an MPI
 * launcher (mpiexec, mpirun and their .mpich, .openmpi, .hydra forms, orterun, prterun), the
 * program is the first of its arguments that is not an option or an option's value and is an
 * executable file; else command[0] is the program. The program tells by the MPI library it
 * resolves to (ldd: MPICH's libmpich.so.12 or libmpi.so.12, Open MPI's libmpi.so.40, also
 * through another library, as lammps' liblammps); a program that links none (a script, a
 * static program) leaves the launcher to tell, by the program its name resolves to (Debian:
 * mpirun.openmpi is orterun, mpiexec.mpich is mpiexec.hydra). Never fails: g->mpi is
 * RECORD_MPI_UNKNOWN with g->why when nothing tells.
 */
void record_mpi_of(char **command, record_mpi_guess *g);

/*
 * Open MPI's mpirun passes its own environment on to the ranks it starts on its node, but to
 * ranks on other nodes only the variables named by -x or by its MCA variable
 * mca_base_env_list, and refuses a run that uses both. When command[0] is Open MPI's launcher
 * this names the tracer's variables (LD_PRELOAD and every RETRACE_* and PSP_* set): in
 * OMPI_MCA_mca_base_env_list when that is set already, else as "-x NAME" after the launcher.
 * Returns command, or a new vector (one block: free() it) when it added -x options; NULL
 * when out of memory.
 */
char **record_mpi_forward(char **command);

/* "MPICH", "Open MPI" or "an unknown MPI". */
const char *record_mpi_name(record_mpi mpi);

#endif /* RT_RECORD_MPI_H */
