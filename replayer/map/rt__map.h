/*
 * Internals of rt_map shared by its files (not installed): the node-to-module rule and the
 * checked placements that map_auto.c compares its own result with.
 */
#ifndef RT__MAP_H
#define RT__MAP_H

#include <stdint.h>

#include "rt_map.h"

/* The module of node n (rt_map.h): floor(n * modules / nodes), in 64 bits so that no shape
 * overflows. */
static inline uint32_t rt__map_module_of(const rt_map_shape *s, uint32_t n)
{
    return (uint32_t)((uint64_t)n * s->modules / s->nodes);
}

/* Checks that shape can hold nranks ranks (rt_map_shape_complete's texts). */
int rt__map_check(const rt_map_shape *s, uint32_t nranks, rt_err *err);

/* The block placement; shape already checked. */
void rt__map_block(const rt_map_shape *s, uint32_t nranks, uint32_t *node, uint32_t *module);

/* rt_map_place for auto: shape checked, node and module written only on success. */
int rt__map_auto(const rt_map_shape *s, const rt_defs *defs, const rt_map_edge *edges,
                 size_t nedges, uint32_t *node, uint32_t *module, rt_err *err);

#endif /* RT__MAP_H */
