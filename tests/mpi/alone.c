/*
 * alone MODE: one rank that ends without MPI_Finalize, right after its last call (cases
 * alone and alone_term):
 *
 *   exit   it returns from main: the tracer's exit handler writes its records; mpiexec
 *          exits 0, and `retrace record` then exits 1 (the run did not finish)
 *   term   it sends itself SIGTERM: the tracer's handler writes its records, then the
 *          handler the program installed before MPI_Init prints a line and ends the
 *          process with _exit(6), as it would without the tracer
 *
 * One rank, so that mpiexec's exit status does not depend on which process it sees end
 * first. The trace must hold the barrier and the MPI_Iprobe (expected/alone.dump).
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

static void on_term(int sig)
{
    static const char line[] = "alone: cleaning up after SIGTERM\n";
    (void)sig;
    if (write(STDOUT_FILENO, line, sizeof line - 1) < 0)
        _exit(7);
    _exit(6);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int term = !strcmp(mode, "term");
    if (term)
        signal(SIGTERM, on_term);
    mt_init(&argc, &argv, "alone", 1, MT_NO_THREADS);
    if (!term && strcmp(mode, "exit")) {
        fprintf(stderr, "alone: unknown mode '%s'\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    printf("alone: started\n");
    fflush(stdout);
    int flag;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (term)
        raise(SIGTERM);
    return 0; /* without MPI_Finalize */
}
