/*
 * Checks retrace's reading of MPICH's collective algorithm variables (replayer/mpi/mpi_cvar.c)
 * against MPICH itself (tests/mpi/cvar_check.sh):
 *   cvar_check list        every algorithm retrace forces: "VARIABLE NAME VALUE", VALUE being
 *                          what retrace writes for NAME
 *   cvar_check read VAR    the value MPICH holds for VAR (set from the environment at init)
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "rt__mpirun.h"

int main(int argc, char **argv)
{
    int prov, rc = 0;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &prov);
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (unsigned op = 0; op < RT_COLL_COUNT; op++)
            for (unsigned alg = 0; alg < RT_ALG_COUNT; alg++) {
                char name[64];
                int index;
                if (rt_mpirun_mpich_alg(op, alg, name, sizeof name) < 0)
                    continue;
                int value = mr_cvar_choice(op, name, &index);
                char var[256], desc[16];
                int nl = sizeof var, dl = sizeof desc, verb, bind, scope;
                MPI_Datatype dt;
                MPI_T_enum et;
                MPI_T_cvar_get_info(index, var, &nl, &verb, &dt, &et, desc, &dl, &bind, &scope);
                printf("%s %s %d\n", var, name, value);
            }
    } else if (argc == 3 && !strcmp(argv[1], "read")) {
        int n, found = 0;
        MPI_T_cvar_get_num(&n);
        for (int i = 0; i < n && !found; i++) {
            char var[256], desc[16];
            int nl = sizeof var, dl = sizeof desc, verb, bind, scope, count, value;
            MPI_Datatype dt;
            MPI_T_enum et;
            MPI_T_cvar_handle h;
            MPI_T_cvar_get_info(i, var, &nl, &verb, &dt, &et, desc, &dl, &bind, &scope);
            if (strcmp(var, argv[2]))
                continue;
            found = 1;
            MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
            MPI_T_cvar_read(h, &value);
            MPI_T_cvar_handle_free(&h);
            printf("%d\n", value);
        }
        rc = !found;
    } else {
        fprintf(stderr, "usage: cvar_check list | read VARIABLE\n");
        rc = 2;
    }
    MPI_T_finalize();
    MPI_Finalize();
    return rc;
}
