/*
 * Forcing Open MPI's collective algorithms (the counterpart of mpi_cvar.c, compiled into the
 * Open MPI build of rt_mpirun only). Open MPI's `tuned` collective component runs the
 * algorithm coll_tuned_<op>_algorithm names when coll_tuned_use_dynamic_rules is on. That
 * switch is read-only once MPI runs, so retrace asks for it in the environment before
 * MPI_Init (rt_mpirun_prepare); the algorithm variables can be written through MPI_T at run
 * time, and each communicator takes their values when it is made. So they are written
 * before a run's communicators are made (mr_cvars_early), one algorithm per operation per
 * run, and put back after it.
 *
 * The variables are enumerations of Open MPI's algorithm numbers. Which of retrace's
 * algorithms is which Open MPI algorithm, of the same message pattern, is the ompi column of
 * rt_coll_algs.def (rt_coll_ompi_id; an algorithm without a number is not forced and runs
 * retrace's schedule). Where Open MPI would silently run another algorithm for a call
 * (rt_coll_ompi_runs: its ring allreduce of fewer elements than processes runs recursive
 * doubling, its recursive doubling allgather on a size that is not a power of two Bruck's,
 * ...), the call runs retrace's schedule of the chosen one, as one MPICH refuses does.
 */
#include <mpi.h>

#ifdef OPEN_MPI

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"

void rt_mpirun_prepare(void)
{
    /* an explicit setting of the user's stays: then nothing is forced (mr_cvars_set) */
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
}

int mr_cvars_early(void)
{
    return 1;
}

/* 1 when enumeration et has an item of that value (the Open MPI build knows the algorithm). */
static int enum_has(MPI_T_enum et, int value)
{
    int n = 0;
    char name[128];
    int len = sizeof name;
    if (et == MPI_T_ENUM_NULL || MPI_T_enum_get_info(et, &n, name, &len) != MPI_SUCCESS)
        return 0;
    for (int k = 0; k < n; k++) {
        int v;
        len = sizeof name;
        if (MPI_T_enum_get_item(et, k, &v, name, &len) == MPI_SUCCESS && v == value)
            return 1;
    }
    return 0;
}

/* Is coll_tuned_use_dynamic_rules on? Without it the algorithm variables are not read. */
static int dynamic_rules(void)
{
    MPI_T_enum et;
    MPI_Datatype dt;
    int index = mr_cvar_find("coll_tuned_use_dynamic_rules", &dt, &et, NULL, 0), count;
    MPI_T_cvar_handle h;
    if (index < 0 || MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS)
        return 0;
    /* a bool: read into room for any integer, zeroed, so that its bytes alone decide */
    long long v = 0;
    int ok = count == 1 && MPI_T_cvar_read(h, &v) == MPI_SUCCESS;
    MPI_T_cvar_handle_free(&h);
    return ok && v != 0;
}

struct mr_cvars {
    mr_saved s[RT_COLL_COUNT];
    unsigned n;
    int8_t id[RT_COLL_COUNT]; /* per op: Open MPI's algorithm number forced, 0 for none */
};

/* Writes Open MPI's algorithm number id into coll_tuned_<op>_algorithm, keeping the old value. */
static int force(mr_cvars *cv, unsigned op, int id)
{
    char name[96];
    MPI_T_enum et;
    MPI_Datatype dt;
    static const char *const lower[RT_COLL_COUNT] = {
#define X(id, text) text,
        RT_COLL_OPS(X)
#undef X
    };
    snprintf(name, sizeof name, "coll_tuned_%s_algorithm", lower[op]);
    int index = mr_cvar_find(name, &dt, &et, NULL, 0);
    if (index < 0 || dt != MPI_INT || !enum_has(et, id) ||
        mr_cvar_write(index, id, &cv->s[cv->n]) < 0)
        return -1;
    cv->n++;
    cv->id[op] = (int8_t)id;
    return 0;
}

int mr_cvars_set(mr_cvars **out, const uint8_t *alg, rt_err *err)
{
    mr_cvars *cv = calloc(1, sizeof *cv);
    if (!cv)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    int rules = -1; /* asked once, when an algorithm is chosen */
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        int id = alg[op] == RT_ALG_MPICH ? 0 : rt_coll_ompi_id(op, alg[op]);
        if (id <= 0)
            continue;
        if (rules < 0)
            rules = dynamic_rules();
        if (rules)
            force(cv, op, id); /* refused: the calls run retrace's schedule */
    }
    *out = cv;
    return 0;
}

int mr_cvars_forced(const mr_cvars *cv, unsigned op)
{
    return cv && op < RT_COLL_COUNT && cv->id[op] > 0;
}

int mr_cvars_applies(const mr_cvars *cv, unsigned op, int p, uint64_t bytes, uint32_t esize)
{
    if (!mr_cvars_forced(cv, op) || p <= 0)
        return 0;
    return rt_coll_ompi_runs(op, (uint32_t)p, bytes, esize, cv->id[op]) == cv->id[op];
}

void mr_cvars_restore(mr_cvars *cv)
{
    if (!cv)
        return;
    mr_cvar_restore_all(cv->s, cv->n);
    free(cv);
}

#endif /* OPEN_MPI */
