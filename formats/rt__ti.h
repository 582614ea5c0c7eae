/*
 * Internal: what the SimGrid time-independent (TI) reader and writer share. The format is
 * the one SimGrid 3.32's SMPI writes (smpirun -trace-ti) and replays (smpirun -replay);
 * docs/ti.md describes it and how retrace maps it onto events.
 */
#ifndef RT__TI_H
#define RT__TI_H

#include "rt__trace.h"

/* Flop rate (flop/s) that turns `compute F` into time and back. */
#define RT__TI_FLOPS_ENV "RETRACE_TI_FLOPS"
#define RT__TI_DEFAULT_FLOPS 1e9

/* The rate from RETRACE_TI_FLOPS (a positive number), else the default. */
int rt__ti_flop_rate(double *rate, rt_err *err);

/* Bytes of the SimGrid 3.32 datatype with this id as the TI tracer writes it ("0" MPI_DOUBLE
 * ... "59" MPI_COUNT; "-1", what it writes for derived types, is MPI_DATATYPE_NULL: 0 bytes,
 * as SimGrid replays it). -RT_E_NOTFOUND when the id is unknown. */
int rt__ti_type_size(const char *id);
#define RT__TI_TYPE_BYTE "6" /* MPI_BYTE */
/* The id the writer gives elements of size bytes: MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE,
 * MPI_LONG_DOUBLE or MPI_C_LONG_DOUBLE_COMPLEX for 1, 2, 4, 8, 16 or 32 (any id of that size
 * would do: SimGrid replays only the bytes); NULL for any other size. */
const char *rt__ti_type_id(uint64_t size);

/* The file an index line names: as is when absolute, else next to the index, else relative
 * to the working directory (SimGrid's own rule). A new string; NULL when it does not exist
 * (errno says why) or memory runs out. */
char *rt__ti_resolve(const char *index, const char *line);

/* 1 when path looks like a TI index: its first line names a readable file whose first
 * action line starts with a rank and an action name. Reads at most a few KiB. */
int rt__ti_detect(const char *path);

/* Removes the rank files (rank-N.txt) of the TI trace whose index is index, in index_files,
 * and that directory: 1 when it was removed, 0 when there was none, or an error when it holds
 * anything else (then left with that). For rt_trace_remove. */
int rt__ti_remove_files(const char *index, rt_err *err);

#endif /* RT__TI_H */
