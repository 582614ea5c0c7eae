/*
 * The auto placement: greedy graph growing on the traffic graph, first into modules (to cut
 * gateway bytes), then into the nodes of each module (to cut inter-node bytes).
 *
 * A group (a module, then a node) is filled to its capacity starting from the unplaced rank
 * with the most traffic, then always taking the unplaced rank with the most traffic to the
 * ranks already in the group; when no unplaced rank talks to the group, the one with the most
 * traffic overall starts again. Ties go to the lowest rank, so the result depends on the
 * traffic only, not on the order of the edges.
 *
 * Greedy growing can do worse than a plain placement (a heavy pair split to follow a slightly
 * heavier one), so the result is compared by rt_map_cost with block and, when the shape is
 * the recorded one, with the recorded placement, and the best is kept.
 *
 * Cost: O(E + P log P) to build and order, O(E log P) to grow; memory O(E + P). Groups are
 * filled in order and hold at least one rank each, so at most P modules and P nodes are
 * visited whatever --nodes and --modules say.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "rt__map.h"
#include "rt_checked.h"

#define UNSET UINT32_MAX

/* ---- the traffic graph: CSR with duplicate pairs merged and self edges dropped ------------ */

typedef struct graph {
    uint32_t n;
    uint64_t *off;   /* n + 1 row starts */
    uint32_t *col;   /* neighbours */
    uint64_t *w;     /* bytes, > 0 */
    uint64_t *total; /* a rank's bytes to all others */
} graph;

static void graph_free(graph *g)
{
    free(g->off);
    free(g->col);
    free(g->w);
    free(g->total);
}

static int graph_build(graph *g, uint32_t n, const rt_map_edge *e, size_t ne, rt_err *err)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    for (size_t i = 0; i < ne; i++)
        if (e[i].a >= n || e[i].b >= n)
            return rt_err_set(err, RT_E_INVAL,
                              "traffic edge %zu: rank %u is out of range (the trace has %u ranks)",
                              i, e[i].a >= n ? e[i].a : e[i].b, n);
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    g->total = calloc(n, sizeof *g->total);
    if (!g->off || !g->total)
        goto nomem;
    for (size_t i = 0; i < ne; i++)
        if (e[i].a != e[i].b && e[i].bytes) {
            g->off[e[i].a + 1]++;
            g->off[e[i].b + 1]++;
        }
    for (uint32_t v = 0; v < n; v++)
        g->off[v + 1] += g->off[v];
    uint64_t nnz = g->off[n];
    g->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *g->col);
    g->w = malloc((size_t)(nnz ? nnz : 1) * sizeof *g->w);
    if (!g->col || !g->w)
        goto nomem;
    /* Fill each row from its start, leaving off[v] at the start of row v + 1... */
    for (size_t i = 0; i < ne; i++)
        if (e[i].a != e[i].b && e[i].bytes) {
            uint64_t p = g->off[e[i].a]++, q = g->off[e[i].b]++;
            g->col[p] = e[i].b;
            g->w[p] = e[i].bytes;
            g->col[q] = e[i].a;
            g->w[q] = e[i].bytes;
        }
    /* ...then merge repeated neighbours row by row, compacting in place (a merged row is
     * never longer than the rows before it left room for). seen[u] = v + 1 when u is already
     * in row v, at offset at[u] from the row's start; no sort, so O(E). */
    uint32_t *seen = calloc(n, sizeof *seen), *at = malloc(((size_t)n + 1) * sizeof *at);
    if (!seen || !at) {
        free(seen);
        free(at);
        goto nomem;
    }
    uint64_t rd = 0, wr = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint64_t end = g->off[v], row = wr;
        g->off[v] = row;
        for (; rd < end; rd++) {
            uint32_t u = g->col[rd];
            g->total[v] = rt_add_sat(g->total[v], g->w[rd]);
            if (seen[u] == v + 1) {
                g->w[row + at[u]] = rt_add_sat(g->w[row + at[u]], g->w[rd]);
                continue;
            }
            seen[u] = v + 1;
            at[u] = (uint32_t)(wr - row);
            g->col[wr] = u;
            g->w[wr++] = g->w[rd];
        }
    }
    g->off[n] = wr;
    free(seen);
    free(at);
    return 0;
nomem:
    graph_free(g);
    return rt_err_set(err, RT_E_NOMEM, "mapping 'auto': out of memory");
}

/* ---- an indexed max-heap of ranks by (gain, then lowest rank) ----------------------------- */

/* Indexed with raise-key rather than lazy duplicate entries: memory stays one slot per rank
 * however many edges raise a rank's gain. */
typedef struct heap {
    uint32_t *h;   /* ranks */
    uint32_t *pos; /* index + 1 in h, 0 when absent */
    uint32_t n;
    const uint64_t *key; /* gains */
} heap;

static int before(const heap *q, uint32_t a, uint32_t b)
{
    return q->key[a] > q->key[b] || (q->key[a] == q->key[b] && a < b);
}

static void heap_set(heap *q, uint32_t i, uint32_t v)
{
    q->h[i] = v;
    q->pos[v] = i + 1;
}

static void heap_up(heap *q, uint32_t i)
{
    uint32_t v = q->h[i];
    while (i && before(q, v, q->h[(i - 1) / 2])) {
        heap_set(q, i, q->h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(q, i, v);
}

static void heap_down(heap *q, uint32_t i)
{
    uint32_t v = q->h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && before(q, q->h[c + 1], q->h[c]))
            c++;
        if (!before(q, q->h[c], v))
            break;
        heap_set(q, i, q->h[c]);
        i = c;
    }
    heap_set(q, i, v);
}

/* Inserts v, or moves it up after its gain grew (gains only grow within a group). */
static void heap_raise(heap *q, uint32_t v)
{
    if (q->pos[v]) {
        heap_up(q, q->pos[v] - 1);
        return;
    }
    q->h[q->n] = v;
    heap_up(q, q->n++);
}

static uint32_t heap_pop(heap *q)
{
    uint32_t top = q->h[0];
    q->pos[top] = 0;
    if (--q->n) {
        q->h[0] = q->h[q->n];
        heap_down(q, 0);
    }
    return top;
}

static void heap_clear(heap *q)
{
    for (uint32_t i = 0; i < q->n; i++)
        q->pos[q->h[i]] = 0;
    q->n = 0;
}

/* ---- growing groups ----------------------------------------------------------------------- */

typedef struct grower {
    const graph *g;
    uint64_t *gain;    /* bytes to the current group; 0 outside it */
    uint32_t *touched; /* ranks whose gain is not 0 */
    uint32_t ntouched;
    heap q;
} grower;

/* Puts list[0..count) (ranks in seed order: most traffic first, then lowest rank) into
 * consecutive groups labelled first, first + 1, ...: modules (by_module) or nodes. A group
 * holds its nodes times ranks_per_node ranks, or the ranks left if fewer, as block fills
 * them. A rank can join when out[] has no label for it yet and, when part is not NULL, it is
 * in part pid (the module whose nodes are being filled). */
static void grow(grower *G, const uint32_t *list, uint32_t count, const uint32_t *part,
                 uint32_t pid, const rt_map_shape *s, int by_module, uint32_t first, uint32_t *out)
{
    const graph *g = G->g;
    uint32_t left = count, seed = 0;
    for (uint32_t label = first; left; label++) {
        uint64_t units = 1;
        if (by_module) /* module m has nodes ceil(m * nodes / modules) up to the next one's */
            units = (((uint64_t)label + 1) * s->nodes + s->modules - 1) / s->modules -
                    ((uint64_t)label * s->nodes + s->modules - 1) / s->modules;
        uint64_t cap = units * s->ranks_per_node;
        if (cap > left)
            cap = left;
        for (uint64_t k = 0; k < cap; k++) {
            uint32_t v;
            if (G->q.n) {
                v = heap_pop(&G->q);
            } else {
                while (out[list[seed]] != UNSET)
                    seed++;
                v = list[seed];
            }
            out[v] = label;
            for (uint64_t i = g->off[v]; i < g->off[v + 1]; i++) {
                uint32_t u = g->col[i];
                if (out[u] != UNSET || (part && part[u] != pid))
                    continue;
                if (!G->gain[u])
                    G->touched[G->ntouched++] = u;
                G->gain[u] = rt_add_sat(G->gain[u], g->w[i]);
                heap_raise(&G->q, u);
            }
        }
        left -= (uint32_t)cap;
        heap_clear(&G->q);
        for (uint32_t i = 0; i < G->ntouched; i++)
            G->gain[G->touched[i]] = 0;
        G->ntouched = 0;
    }
}

static int by_traffic(const void *a, const void *b, void *ctx)
{
    const uint64_t *total = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (total[x] != total[y])
        return total[x] > total[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* The greedy placement into node and module (each n entries). */
static int greedy(const graph *g, const rt_map_shape *s, uint32_t *node, uint32_t *module)
{
    uint32_t n = g->n;
    grower G = {g, NULL, NULL, 0, {NULL, NULL, 0, NULL}};
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    uint32_t *bylist = malloc(((size_t)n + 1) * sizeof *bylist);
    uint32_t *start = calloc((size_t)n + 2, sizeof *start);
    G.gain = calloc(n, sizeof *G.gain);
    G.touched = malloc(((size_t)n + 1) * sizeof *G.touched);
    G.q.h = malloc(((size_t)n + 1) * sizeof *G.q.h);
    G.q.pos = calloc(n, sizeof *G.q.pos);
    G.q.key = G.gain;
    int rc = -RT_E_NOMEM;
    if (!order || !bylist || !start || !G.gain || !G.touched || !G.q.h || !G.q.pos)
        goto out;
    for (uint32_t r = 0; r < n; r++) {
        order[r] = r;
        module[r] = node[r] = UNSET;
    }
    qsort_r(order, n, sizeof *order, by_traffic, g->total);

    grow(&G, order, n, NULL, 0, s, 1, 0, module);

    /* The members of each module in seed order (a stable bucket sort of order). Modules
     * are filled in order, so the used ones are 0 .. used - 1 with used <= n. */
    uint32_t used = 0;
    for (uint32_t r = 0; r < n; r++) {
        start[module[r] + 1]++;
        if (module[r] + 1 > used)
            used = module[r] + 1;
    }
    for (uint32_t m = 0; m < used; m++)
        start[m + 1] += start[m];
    for (uint32_t i = 0; i < n; i++)
        bylist[start[module[order[i]]]++] = order[i];
    for (uint32_t m = used; m > 0; m--) /* start[m - 1] is now the end of module m - 1 */
        start[m] = start[m - 1];
    start[0] = 0;

    for (uint32_t m = 0; m < used; m++) {
        uint32_t first = (uint32_t)(((uint64_t)m * s->nodes + s->modules - 1) / s->modules);
        grow(&G, bylist + start[m], start[m + 1] - start[m], module, m, s, 0, first, node);
    }
    rc = 0;
out:
    free(order);
    free(bylist);
    free(start);
    free(G.gain);
    free(G.touched);
    free(G.q.h);
    free(G.q.pos);
    return rc;
}

/* ---- choosing ----------------------------------------------------------------------------- */

int rt__map_auto(const rt_map_shape *s, const rt_defs *defs, const rt_map_edge *edges,
                 size_t nedges, uint32_t *node, uint32_t *module, rt_err *err)
{
    uint32_t n = defs->nranks;
    graph g;
    int rc = graph_build(&g, n, edges, nedges, err);
    if (rc < 0)
        return rc;
    size_t sz = ((size_t)n + 1) * sizeof(uint32_t);
    uint32_t *gnode = malloc(sz), *gmod = malloc(sz), *bnode = malloc(sz), *bmod = malloc(sz);
    rc = gnode && gmod && bnode && bmod ? greedy(&g, s, gnode, gmod) : -RT_E_NOMEM;
    graph_free(&g);
    if (rc < 0) {
        rt_err_set(err, RT_E_NOMEM, "mapping 'auto': out of memory");
        goto out;
    }
    /* Candidates in order of preference on equal cost: recorded, block, greedy. */
    const uint32_t *cand_node[3], *cand_mod[3];
    int ncand = 0;
    rt_map_shape rec;
    rt_map_shape_recorded(defs, &rec);
    if (s->nodes == rec.nodes && s->modules == rec.modules &&
        s->ranks_per_node == rec.ranks_per_node) {
        cand_node[ncand] = defs->node;
        cand_mod[ncand++] = defs->module;
    }
    rt__map_block(s, n, bnode, bmod);
    cand_node[ncand] = bnode;
    cand_mod[ncand++] = bmod;
    cand_node[ncand] = gnode;
    cand_mod[ncand++] = gmod;
    int best = 0;
    uint64_t best_gw = 0, best_net = 0;
    for (int c = 0; c < ncand; c++) {
        uint64_t gw, net;
        rt_map_cost(edges, nedges, cand_node[c], cand_mod[c], &gw, &net);
        if (c == 0 || gw < best_gw || (gw == best_gw && net < best_net)) {
            best = c;
            best_gw = gw;
            best_net = net;
        }
    }
    memcpy(node, cand_node[best], (size_t)n * sizeof *node);
    memcpy(module, cand_mod[best], (size_t)n * sizeof *module);
out:
    free(gnode);
    free(gmod);
    free(bnode);
    free(bmod);
    return rc;
}
