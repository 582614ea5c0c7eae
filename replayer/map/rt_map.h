/*
 * rt_map: where each world rank runs in a replay. A machine shape (nodes, modules, ranks per
 * node) and a mapping spec (block, cyclic, random:SEED, file:FILE, auto, or the recorded
 * placement) give every world rank a node id and a module id; the simulator derives each
 * message's connection type from them (same rank loop, same node shm, same module net,
 * else gw).
 *
 * Nodes are numbered 0 .. nodes-1 and go block-wise onto modules: node n is in module
 * floor(n * modules / nodes). Every module gets floor or ceil(nodes / modules) nodes and none
 * is left empty; when nodes is a multiple of modules this is n / (nodes / modules), as
 * RETRACE_EMULATE does (docs/tracer.md). (RETRACE_EMULATE's n / ceil(nodes / modules) can
 * leave modules empty, e.g. 4 nodes on 3 modules: 0,0,1,1; here they are 0,0,1,2.)
 */
#ifndef RT_MAP_H
#define RT_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_event.h"

typedef struct rt_map_shape {
    uint32_t nodes;          /* >= 1 */
    uint32_t modules;        /* 1 .. nodes */
    uint32_t ranks_per_node; /* >= 1; nodes * ranks_per_node >= ranks */
} rt_map_shape;

#define RT_MAP_KINDS(X)     \
    X(RECORDED, "recorded") \
    X(BLOCK, "block")       \
    X(CYCLIC, "cyclic")     \
    X(RANDOM, "random")     \
    X(FILE, "file")         \
    X(AUTO, "auto")

// clang-format off
typedef enum rt_map_kind {
#define X(id, name) RT_MAP_##id,
    RT_MAP_KINDS(X)
#undef X
    RT_MAP_KIND_COUNT
} rt_map_kind;
// clang-format on

#define RT_MAP_PATH_MAX 4096

typedef struct rt_map_spec {
    rt_map_kind kind;
    uint64_t seed;              /* random:SEED */
    char path[RT_MAP_PATH_MAX]; /* file:FILE */
} rt_map_spec;

/* "recorded", "block", "cyclic", "random:SEED" (SEED a decimal uint64), "file:FILE", "auto".
 * -RT_E_INVAL with "bad mapping 'TEXT': ..." in err. */
int rt_map_parse(const char *text, rt_map_spec *spec, rt_err *err);
/* The spec as the user would type it ("random:7", "file:map.txt"). */
void rt_map_format(const rt_map_spec *spec, char *buf, size_t len);

/* The recorded shape: distinct node ids, distinct module ids, most ranks on one node. */
void rt_map_shape_recorded(const rt_defs *defs, rt_map_shape *shape);

/*
 * Completes a shape the user gave in part (0 = not given) for nranks ranks, from the
 * recorded one: nodes from ranks_per_node (ceil(nranks / K)) or the recorded count;
 * ranks_per_node from nodes (ceil(nranks / nodes)) or the recorded count; modules
 * min(recorded modules, nodes). Then checks it: -RT_E_INVAL with a one-line reason
 * ("--nodes 2 --ranks-per-node 3 hold 6 ranks; the trace has 8", "--modules 4 exceeds
 * --nodes 2") when the shape cannot hold the ranks or is inconsistent.
 */
int rt_map_shape_complete(const rt_map_shape *given, const rt_map_shape *recorded, uint32_t nranks,
                          rt_map_shape *out, rt_err *err);

/* Traffic between two world ranks (either order; pairs may repeat, bytes add up). */
typedef struct rt_map_edge {
    uint32_t a, b;
    uint64_t bytes;
} rt_map_edge;

/*
 * Places defs->nranks ranks on shape: node[r] and module[r] for every world rank r.
 *   recorded  the trace's node and module ids (defs); refused with -RT_E_INVAL if shape is
 *             not the recorded one.
 *   block     rank r on node r / ranks_per_node.
 *   cyclic    rank r on node r % nodes.
 *   random    a permutation of the block slots drawn from SEED (splitmix64, the same on
 *             every machine).
 *   file      one line per world rank, "RANK NODE": every rank exactly once, node <
 *             nodes, at most ranks_per_node ranks per node; '#' starts a comment; errors
 *             name FILE:LINE.
 *   auto      reorders ranks from the traffic edges to cut gateway bytes first, then
 *             inter-node bytes (greedy graph growing, module by module, then node by node
 *             inside each module); the result is never worse by that order than block (or
 *             than the recorded placement when the shape is the recorded one). On a tie
 *             the recorded placement is kept, then block. Edges naming a rank outside
 *             the trace are refused.
 * Returns 0, -RT_E_INVAL, -RT_E_NOTFOUND, -RT_E_IO or -RT_E_NOMEM.
 */
int rt_map_place(const rt_map_spec *spec, const rt_map_shape *shape, const rt_defs *defs,
                 const rt_map_edge *edges, size_t nedges, uint32_t *node, uint32_t *module,
                 rt_err *err);

/* Bytes of the edges that cross modules (gw) and that cross nodes within a module (net)
 * under a placement: what auto minimises, and what tests check by hand. Saturating at
 * 2^64 - 1, as the weights auto works with. */
void rt_map_cost(const rt_map_edge *edges, size_t nedges, const uint32_t *node,
                 const uint32_t *module, uint64_t *gw_bytes, uint64_t *net_bytes);

#endif /* RT_MAP_H */
