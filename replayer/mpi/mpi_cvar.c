/*
 * Forcing MPICH's collective algorithms at run time. MPICH reads MPIR_CVAR_<OP>_INTRA_
 * ALGORITHM at every blocking collective call, so writing it through the MPI tool interface
 * (MPI_T_cvar_write) switches algorithms between two replays of one job. Two more variables
 * make the choice stick: MPIR_CVAR_DEVICE_COLLECTIVES=none keeps the ch4 device from
 * overriding the MPIR-level algorithm, and MPIR_CVAR_COLLECTIVE_FALLBACK=error makes MPICH
 * refuse, with an error instead of silently running its own choice, an algorithm that does
 * not apply to a call (e.g. recursive doubling allgather on 3 ranks); the replay then runs
 * retrace's schedule of that algorithm for the call.
 *
 * MPICH 4.0 exposes these variables as plain integers without an MPI_T enumeration: the
 * value of a choice is its position in the list the variable's description gives
 * ("auto - ...binomial - ...nb - ..."), which is also the order of MPICH's generated enum.
 * tests/mpi/cvar_check.sh checks this against the values MPICH itself reads from the
 * environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt__mpirun.h"

/* "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM" for the op. */
static void cvar_name(unsigned op, char *buf, size_t len)
{
    static const char *const upper[RT_COLL_COUNT] = {
#define X(id, name) #id,
        RT_COLL_OPS(X)
#undef X
    };
    snprintf(buf, len, "MPIR_CVAR_%s_INTRA_ALGORITHM", op < RT_COLL_COUNT ? upper[op] : "");
}

int mr_cvar_find(const char *name, MPI_Datatype *dt, MPI_T_enum *et, char *desc, int desc_len)
{
    int n;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        return -RT_E_NOTFOUND;
    for (int i = 0; i < n; i++) {
        char nm[256];
        int nl = sizeof nm, dl = desc_len, verb, bind, scope;
        MPI_Datatype t;
        MPI_T_enum e;
        if (MPI_T_cvar_get_info(i, nm, &nl, &verb, &t, &e, desc, desc ? &dl : NULL, &bind,
                                &scope) != MPI_SUCCESS ||
            strcmp(nm, name))
            continue;
        if (dt)
            *dt = t;
        if (et)
            *et = e;
        return i;
    }
    return -RT_E_NOTFOUND;
}

int mr_cvar_write(int index, int value, mr_saved *s)
{
    int count;
    if (MPI_T_cvar_handle_alloc(index, NULL, &s->h, &count) != MPI_SUCCESS)
        return -RT_E_MPI;
    if (count != 1 || MPI_T_cvar_read(s->h, &s->old) != MPI_SUCCESS ||
        MPI_T_cvar_write(s->h, &value) != MPI_SUCCESS) {
        MPI_T_cvar_handle_free(&s->h);
        return -RT_E_MPI;
    }
    return 0;
}

void mr_cvar_restore_all(mr_saved *s, unsigned n)
{
    while (n) {
        mr_saved *x = &s[--n];
        MPI_T_cvar_write(x->h, &x->old);
        MPI_T_cvar_handle_free(&x->h);
    }
}

/* The index of the integer control variable called name, or -RT_E_NOTFOUND. */
static int cvar_find(const char *name, char *desc, int desc_len)
{
    MPI_Datatype dt;
    int i = mr_cvar_find(name, &dt, NULL, desc, desc_len);
    return i >= 0 && dt != MPI_INT ? -RT_E_NOTFOUND : i;
}

static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* The position of choice in a description "... auto - text name2   - text ...": entries
 * end in blanks and "- "; the choice's value is the number of entries before it.
 * -RT_E_NOTFOUND when the description does not list it. */
static int choice_value(const char *desc, const char *choice)
{
    size_t len = strlen(choice);
    const char *best = NULL;
    for (const char *p = strstr(desc, choice); p; p = strstr(p + 1, choice)) {
        const char *q = p + len;
        if (*q != ' ')
            continue;
        while (*q == ' ')
            q++;
        if (q[0] != '-' || q[1] != ' ')
            continue;
        if (p == desc || !is_word(p[-1])) { /* a clean start beats a glued one */
            best = p;
            break;
        }
        if (!best)
            best = p;
    }
    if (!best)
        return -RT_E_NOTFOUND;
    int value = 0;
    for (const char *p = desc; p < best; p++)
        if (p[0] == ' ' && p[1] == '-' && p[2] == ' ')
            value++;
    return value;
}

int mr_cvar_choice(unsigned op, const char *mpich, int *index)
{
    char name[96], desc[4096];
    cvar_name(op, name, sizeof name);
    desc[0] = '\0';
    *index = cvar_find(name, desc, (int)sizeof desc);
    if (*index < 0 || choice_value(desc, "auto") != 0)
        return -RT_E_NOTFOUND;
    return choice_value(desc, mpich);
}

int rt_mpirun_mpich_alg(unsigned op, unsigned alg, char *buf, size_t len)
{
    const char *mpich = rt_coll_mpich_name(op, alg);
    int index;
    if (!mpich || mr_cvar_choice(op, mpich, &index) < 0)
        return -RT_E_NOTFOUND;
    snprintf(buf, len, "%s", mpich);
    return 0;
}

struct rt_mpirun_forced {
    mr_cvars *cv;
};

int rt_mpirun_force(unsigned op, unsigned alg, rt_mpirun_forced **out, rt_err *err)
{
    if (op >= RT_COLL_COUNT || mr_cvars_early())
        return -RT_E_NOTFOUND;
    int prov;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS)
        return rt_err_set(err, RT_E_MPI, "MPI_T_init_thread failed");
    rt_mpirun_forced *f = calloc(1, sizeof *f);
    uint8_t a[RT_COLL_COUNT] = {0}; /* RT_ALG_MPICH: the library's own choice */
    a[op] = (uint8_t)alg;
    int rc = f ? mr_cvars_set(&f->cv, a, err) : rt_err_set(err, RT_E_NOMEM, "out of memory");
    if (rc == 0 && !mr_cvars_forced(f->cv, op)) {
        mr_cvars_restore(f->cv);
        rc = -RT_E_NOTFOUND;
    }
    if (rc < 0) {
        free(f);
        MPI_T_finalize();
        return rc;
    }
    *out = f;
    return 0;
}

void rt_mpirun_unforce(rt_mpirun_forced *f)
{
    if (!f)
        return;
    mr_cvars_restore(f->cv);
    free(f);
    MPI_T_finalize();
}

/* ---- setting and restoring (MPICH; Open MPI's: mpi_ompi.c) ------------------------------ */

#ifndef OPEN_MPI

void rt_mpirun_prepare(void)
{
}

int mr_cvars_early(void)
{
    return 0;
}

/* MPICH refuses, with an error, an algorithm that does not apply to a call */
int mr_cvars_applies(const mr_cvars *cv, unsigned op, int p, uint64_t bytes, uint32_t esize)
{
    (void)p;
    (void)bytes;
    (void)esize;
    return mr_cvars_forced(cv, op);
}

struct mr_cvars {
    mr_saved s[RT_COLL_COUNT + 2];
    unsigned n;
    uint8_t forced[RT_COLL_COUNT];
};

/* Writes value into the variable at index, keeping the old value for mr_cvars_restore. 0, or
 * -RT_E_MPI when MPI_T refuses (not a single int, or not writable now). */
static int write_cvar(mr_cvars *cv, int index, int value)
{
    int rc = mr_cvar_write(index, value, &cv->s[cv->n]);
    if (rc == 0)
        cv->n++;
    return rc;
}

static int write_named(mr_cvars *cv, const char *name, const char *choice)
{
    char desc[4096];
    desc[0] = '\0';
    int index = cvar_find(name, desc, (int)sizeof desc);
    if (index < 0)
        return index;
    int value = choice_value(desc, choice);
    return value < 0 ? value : write_cvar(cv, index, value);
}

int mr_cvars_set(mr_cvars **out, const uint8_t *alg, rt_err *err)
{
    mr_cvars *cv = calloc(1, sizeof *cv);
    if (!cv)
        return rt_err_set(err, RT_E_NOMEM, "out of memory");
    int any = 0;
    for (unsigned op = 0; op < RT_COLL_COUNT; op++) {
        if (alg[op] == RT_ALG_MPICH)
            continue;
        const char *mpich = rt_coll_mpich_name(op, alg[op]); /* rt_coll_algs.def */
        if (!mpich)
            continue;
        int index, value = mr_cvar_choice(op, mpich, &index);
        if (value >= 0 && write_cvar(cv, index, value) == 0) {
            cv->forced[op] = 1;
            any = 1;
        }
    }
    /* without these two, a forced algorithm could be overridden or silently replaced */
    if (any && (write_named(cv, "MPIR_CVAR_DEVICE_COLLECTIVES", "none") < 0 ||
                write_named(cv, "MPIR_CVAR_COLLECTIVE_FALLBACK", "error") < 0)) {
        mr_cvars_restore(cv);
        return rt_err_set(err, RT_E_INVAL,
                          "this MPI library does not let MPIR_CVAR_DEVICE_COLLECTIVES and "
                          "MPIR_CVAR_COLLECTIVE_FALLBACK be set at run time");
    }
    *out = cv;
    return 0;
}

int mr_cvars_forced(const mr_cvars *cv, unsigned op)
{
    return cv && op < RT_COLL_COUNT && cv->forced[op];
}

void mr_cvars_restore(mr_cvars *cv)
{
    if (!cv)
        return;
    mr_cvar_restore_all(cv->s, cv->n);
    free(cv);
}

#endif /* OPEN_MPI */
