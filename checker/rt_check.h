/*
 * checker/: MPI usage errors found in a trace, with no rerun of the application (retrace
 * check, docs/check.md). A streaming pass over the events checks what each rank did on its own
 * (requests, RMA epochs) and gathers each rank's collective calls, which are then compared
 * between the members of each communicator; the built-in engine replays the trace to tell a
 * recorded hang (deadlock) and a run that completed only because MPI buffered its sends.
 *
 * Each finding is a row of the "findings" table: class, severity, ranks, where (a
 * communicator or window), the calls with their parameters and recorded times, and one
 * sentence saying what is wrong.
 */
#ifndef RT_CHECK_H
#define RT_CHECK_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_report.h"

/* X(id, name, severity): the classes checked, in the order the summary lists them. */
#define RT_CHECK_CLASSES(X)                \
    X(DEADLOCK, "deadlock", ERROR)         \
    X(BUFFERING, "buffering", WARNING)     \
    X(COLLECTIVE, "collective", ERROR)     \
    X(REQUEST, "request", ERROR)           \
    X(LEAK, "leak", WARNING)               \
    X(RMA_EPOCH, "rma-epoch", ERROR)       \
    X(RMA_CONFLICT, "rma-conflict", ERROR) \
    X(RACE, "race", WARNING)               \
    X(INVALID_PARAM, "invalid-param", ERROR)

// clang-format off
typedef enum rt_check_class {
#define X(id, name, sev) RT_CHK_##id,
    RT_CHECK_CLASSES(X)
#undef X
    RT_CHK_COUNT
} rt_check_class;
// clang-format on

/* error: the program is erroneous under the MPI standard; warning: it works only by luck or
 * by an implementation's choice. */
typedef enum rt_check_severity { RT_CHK_ERROR, RT_CHK_WARNING } rt_check_severity;

const char *rt_check_class_name(unsigned cls); /* NULL when out of range */
int rt_check_class_lookup(const char *name);   /* -RT_E_NOTFOUND when unknown */
rt_check_severity rt_check_class_severity(unsigned cls);
const char *rt_check_severity_name(unsigned sev); /* "error", "warning" */

typedef struct rt_check_opts {
    uint32_t classes; /* a bit per rt_check_class: the classes checked */
    uint64_t max;     /* findings kept per class (the rest are counted) */
} rt_check_opts;

typedef struct rt_check_result {
    uint64_t found[RT_CHK_COUNT]; /* findings per class, also those beyond max */
    uint64_t events;              /* events read */
    uint32_t nranks;
    /* the trace records buffers (RT_DEFS_BUFFERS): the checks of memory ran */
    int buffers;
    /* lines that say how far the check could go ("the run failed: ...") */
    char *notes;
    /* tables: findings (class, severity, ranks, where, calls, explanation), summary */
    rt_report report;
} rt_check_result;

/* Checks the trace at path. 0 when the check ran (whatever it found), else a negative code
 * with err naming the trace and the problem. res is freed with rt_check_result_free either
 * way. */
int rt_check(const char *path, const rt_check_opts *o, rt_check_result *res, rt_err *err);
void rt_check_result_free(rt_check_result *res);

#endif /* RT_CHECK_H */
