/*
 * Where a process runs: its node and module ids from the environment (DESIGN.md, "Connection
 * types"). The tracer and `retrace calibrate` both place ranks this way, so a calibration
 * sees the same connection types as the traces it is meant for. The MPI calls (the shared
 * memory split, MPI_INFO_ENV) stay with the callers: this part knows no MPI.
 */
#ifndef RT_PLACE_H
#define RT_PLACE_H

#include <stdint.h>

#include "rt_error.h"

/* Environment variables, in order of precedence. */
#define RT_PLACE_NODE_VARS "RETRACE_NODE_ID", "PSP_SMP_NODE_ID"
#define RT_PLACE_MODULE_VARS "RETRACE_MODULE_ID", "PSP_MSA_MODULE_ID"
#define RT_PLACE_EMULATE_VAR "RETRACE_EMULATE"

/* A decimal id from 0 to 2^32-1, digits only. 0 or -RT_E_INVAL. */
int rt_place_parse_id(const char *text, uint32_t *id);

/* The first of the two variables that is set (and not empty) with a valid id: returns 1 and
 * sets *id. Returns 0 when none is usable; *bad (when not NULL) then names the first
 * variable that was set but not a number (NULL if none), for the caller's warning. */
int rt_place_env_id(const char *a, const char *b, uint32_t *id, const char **bad);

/* "nodes=N,modules=M" (either order; modules defaults to 1; N, M >= 1). 0 or -RT_E_INVAL. */
int rt_place_parse_emulate(const char *text, uint32_t *nodes, uint32_t *modules);

/* Emulated placement: world ranks block-wise onto nodes (ceil(P/N) per node), nodes
 * block-wise onto modules (ceil(N/M) per module). */
void rt_place_emulated(uint32_t rank, uint32_t nranks, uint32_t nodes, uint32_t modules,
                       uint32_t *node, uint32_t *module);

/* Whether that placement gives every one of the nodes a rank and every one of the modules a
 * node (else a trace would show fewer than asked for): 0, or -RT_E_INVAL with why
 * ("4 nodes for 2 ranks leave 2 nodes without a rank (...)"). nranks 0: not known yet, only
 * the modules are checked. */
int rt_place_check_emulated(uint32_t nranks, uint32_t nodes, uint32_t modules, rt_err *err);

#endif /* RT_PLACE_H */
