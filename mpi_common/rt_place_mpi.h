/*
 * The MPI half of rt_place.h: what MPI itself says about where this process runs. Header
 * only, for the parts built with MPI (the tracer, retrace calibrate). It calls PMPI_
 * functions, so that a tracer around us does not record them and the tracer does not
 * record itself.
 */
#ifndef RT_PLACE_MPI_H
#define RT_PLACE_MPI_H

#include <mpi.h>

#include "rt_place.h"

/* The node as MPI_COMM_TYPE_SHARED tells: the rank in ranks_of of the first process of the
 * shared-memory group, which every member knows without a message. Collective over comm.
 * 1 with *node set, or 0 when MPI cannot tell. */
static inline int rt_place_shared_node(MPI_Comm comm, MPI_Comm ranks_of, uint32_t *node)
{
    MPI_Comm shared = MPI_COMM_NULL;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared) !=
            MPI_SUCCESS ||
        shared == MPI_COMM_NULL)
        return 0;
    MPI_Group g, wg;
    int zero = 0, first = MPI_UNDEFINED;
    PMPI_Comm_group(shared, &g);
    PMPI_Comm_group(ranks_of, &wg);
    PMPI_Group_translate_ranks(g, 1, &zero, wg, &first);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    PMPI_Comm_free(&shared);
    if (first == MPI_UNDEFINED || first < 0)
        return 0;
    *node = (uint32_t)first;
    return 1;
}

/* msa_module_id in MPI_INFO_ENV (ParaStation MPI's module id): 1 with *module set, or 0. */
static inline int rt_place_info_module(uint32_t *module)
{
    char value[64];
    int flag = 0;
    return MPI_INFO_ENV != MPI_INFO_NULL &&
           PMPI_Info_get(MPI_INFO_ENV, "msa_module_id", (int)sizeof value - 1, value, &flag) ==
               MPI_SUCCESS &&
           flag && rt_place_parse_id(value, module) == 0;
}

#endif /* RT_PLACE_MPI_H */
