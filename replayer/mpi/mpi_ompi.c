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
 * The variables are enumerations whose item names are Open MPI's algorithm names; the small
 * table below says which of retrace's algorithms (rt_coll_algs.def) has an Open MPI
 * algorithm of the same message pattern, and when Open MPI would silently run another
 * instead (recursive doubling allgather on a size that is not a power of two becomes
 * Bruck's; ring allreduce of fewer elements than processes becomes recursive doubling).
 * Such a call runs retrace's schedule of the algorithm, as one MPICH refuses does.
 */
#include <mpi.h>

#ifdef OPEN_MPI

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"

enum { ANY_SIZE, POWER_OF_TWO, ELEMENTS_AT_LEAST_P };

/* retrace's algorithm for op -> Open MPI 4.1's coll_tuned item name, and when it applies */
static const struct {
    uint8_t op, alg, when;
    const char *ompi;
} table[] = {
    {RT_COLL_BCAST, RT_ALG_LINEAR, ANY_SIZE, "basic_linear"},
    {RT_COLL_BCAST, RT_ALG_BINOMIAL, ANY_SIZE, "binomial"},
    {RT_COLL_REDUCE, RT_ALG_LINEAR, ANY_SIZE, "linear"},
    {RT_COLL_REDUCE, RT_ALG_BINOMIAL, ANY_SIZE, "binomial"},
    {RT_COLL_GATHER, RT_ALG_LINEAR, ANY_SIZE, "basic_linear"},
    {RT_COLL_GATHER, RT_ALG_BINOMIAL, ANY_SIZE, "binomial"},
    {RT_COLL_SCATTER, RT_ALG_LINEAR, ANY_SIZE, "basic_linear"},
    {RT_COLL_SCATTER, RT_ALG_BINOMIAL, ANY_SIZE, "binomial"},
    {RT_COLL_ALLGATHER, RT_ALG_RDB, POWER_OF_TWO, "recursive_doubling"},
    {RT_COLL_ALLGATHER, RT_ALG_RING, ANY_SIZE, "ring"},
    {RT_COLL_ALLGATHER, RT_ALG_BRUCK, ANY_SIZE, "bruck"},
    {RT_COLL_ALLREDUCE, RT_ALG_RDB, ANY_SIZE, "recursive_doubling"},
    {RT_COLL_ALLREDUCE, RT_ALG_RING, ELEMENTS_AT_LEAST_P, "ring"},
};
#define NTABLE (sizeof table / sizeof *table)

/* The row for alg on op; -1 when Open MPI has no such algorithm here. */
static int row_of(unsigned op, unsigned alg)
{
    for (size_t i = 0; i < NTABLE; i++)
        if (table[i].op == op && table[i].alg == alg)
            return (int)i;
    return -1;
}

void rt_mpirun_prepare(void)
{
    /* an explicit setting of the user's stays: then nothing is forced (mr_cvars_set) */
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
}

int mr_cvars_early(void)
{
    return 1;
}

/* The index and MPI_T enumeration of the control variable called name; -1 when none. */
static int cvar_find(const char *name, MPI_T_enum *et, MPI_Datatype *dt)
{
    int n;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < n; i++) {
        char nm[256];
        int nl = sizeof nm, verb, bind, scope;
        if (MPI_T_cvar_get_info(i, nm, &nl, &verb, dt, et, NULL, NULL, &bind, &scope) ==
                MPI_SUCCESS &&
            !strcmp(nm, name))
            return i;
    }
    return -1;
}

/* The value of item in enumeration et; -1 when it has none of that name. */
static int enum_value(MPI_T_enum et, const char *item)
{
    int n = 0;
    char name[128];
    int len = sizeof name;
    if (et == MPI_T_ENUM_NULL || MPI_T_enum_get_info(et, &n, name, &len) != MPI_SUCCESS)
        return -1;
    for (int k = 0; k < n; k++) {
        int value;
        len = sizeof name;
        if (MPI_T_enum_get_item(et, k, &value, name, &len) == MPI_SUCCESS && !strcmp(name, item))
            return value;
    }
    return -1;
}

/* Is coll_tuned_use_dynamic_rules on? Without it the algorithm variables are not read. */
static int dynamic_rules(void)
{
    MPI_T_enum et;
    MPI_Datatype dt;
    int index = cvar_find("coll_tuned_use_dynamic_rules", &et, &dt), count;
    MPI_T_cvar_handle h;
    if (index < 0 || MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS)
        return 0;
    /* a bool: read into room for any integer, zeroed, so that its bytes alone decide */
    long long v = 0;
    int ok = count == 1 && MPI_T_cvar_read(h, &v) == MPI_SUCCESS;
    MPI_T_cvar_handle_free(&h);
    return ok && v != 0;
}

typedef struct saved {
    MPI_T_cvar_handle h;
    int old;
} saved;

struct mr_cvars {
    saved s[RT_COLL_COUNT];
    unsigned n;
    int8_t row[RT_COLL_COUNT]; /* per op: the table row forced, -1 for none */
};

/* Writes the row's algorithm into coll_tuned_<op>_algorithm, keeping the old value. */
static int force(mr_cvars *cv, unsigned op, int row)
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
    int index = cvar_find(name, &et, &dt), value, count, old;
    if (index < 0 || dt != MPI_INT || (value = enum_value(et, table[row].ompi)) < 0)
        return -1;
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS)
        return -1;
    if (count != 1 || MPI_T_cvar_read(h, &old) != MPI_SUCCESS ||
        MPI_T_cvar_write(h, &value) != MPI_SUCCESS) {
        MPI_T_cvar_handle_free(&h);
        return -1;
    }
    cv->s[cv->n++] = (saved){h, old};
    cv->row[op] = (int8_t)row;
    return 0;
}

int mr_cvars_set(mr_cvars **out, const uint8_t *alg, rt_err *err)
{
    mr_cvars *cv = calloc(1, sizeof *cv);
    if (!cv)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    memset(cv->row, -1, sizeof cv->row);
    int rules = -1; /* asked once, when an algorithm is chosen */
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        int row = alg[op] == RT_ALG_MPICH ? -1 : row_of(op, alg[op]);
        if (row < 0)
            continue;
        if (rules < 0)
            rules = dynamic_rules();
        if (rules)
            force(cv, op, row); /* refused: the calls run retrace's schedule */
    }
    *out = cv;
    return 0;
}

int mr_cvars_forced(const mr_cvars *cv, unsigned op)
{
    return cv && op < RT_COLL_COUNT && cv->row[op] >= 0;
}

int mr_cvars_applies(const mr_cvars *cv, unsigned op, int p, uint64_t bytes)
{
    if (!mr_cvars_forced(cv, op))
        return 0;
    switch (table[cv->row[op]].when) {
    case POWER_OF_TWO:
        return p > 0 && (p & (p - 1)) == 0;
    case ELEMENTS_AT_LEAST_P:
        return bytes / rt_coll_elem_size(bytes) >= (uint64_t)p;
    default:
        return 1;
    }
}

void mr_cvars_restore(mr_cvars *cv)
{
    if (!cv)
        return;
    while (cv->n) {
        saved *s = &cv->s[--cv->n];
        MPI_T_cvar_write(s->h, &s->old);
        MPI_T_cvar_handle_free(&s->h);
    }
    free(cv);
}

#endif /* OPEN_MPI */
