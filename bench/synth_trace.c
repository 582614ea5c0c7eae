/*
 * synth_trace: writes a synthetic trace of a halo exchange with an allreduce per iteration,
 * for benchmarks (retrace hist, gateways, replay) on traces far larger than a test run.
 * Every rank, every iteration: two Irecv, two Isend (to its ring neighbours, message sizes
 * cycling through 64 B .. 1 MiB), a Waitall completing the four, and an allreduce of 8 bytes
 * on MPI_COMM_WORLD: 22 events. Ranks are placed block-wise on nodes and nodes on modules.
 * usage: synth_trace OUT EVENTS [RANKS [NODES [MODULES]]]   (OUT ending in .csv: CSV, else OTF2)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt_parse.h"
#include "rt_trace.h"

#define EVENTS_PER_ITER 22u

static uint32_t nranks, nodes, modules;

static uint32_t node_of(uint32_t r)
{
    uint64_t per = (nranks + nodes - 1) / nodes;
    return (uint32_t)(r / per);
}

static uint32_t module_of_node(uint32_t n)
{
    uint64_t per = (nodes + modules - 1) / modules;
    return (uint32_t)(n / per);
}

static unsigned contype(uint32_t a, uint32_t b)
{
    if (a == b)
        return RT_CT_LOOP;
    uint32_t na = node_of(a), nb = node_of(b);
    if (module_of_node(na) != module_of_node(nb))
        return RT_CT_GW;
    return na == nb ? RT_CT_SHM : RT_CT_NET;
}

static int put(rt_writer *w, rt_event *ev, uint64_t *t, unsigned kind, unsigned call)
{
    rt_err err;
    *t += 100;
    ev->time = *t;
    ev->kind = (uint8_t)kind;
    ev->call = (uint16_t)call;
    if (rt_writer_write(w, ev, &err) < 0) {
        fprintf(stderr, "synth_trace: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int iteration(rt_writer *w, uint32_t r, uint64_t it, uint64_t *t)
{
    uint32_t left = (r + nranks - 1) % nranks, right = (r + 1) % nranks;
    uint64_t bytes = UINT64_C(64) << (it % 15); /* 64 B .. 1 MiB */
    uint64_t req = it * 4;
    rt_event ev = {.rank = r, .comm = RT_COMM_WORLD};
    *t += 5000; /* computation */
    uint32_t peers[2] = {left, right};
    for (int i = 0; i < 2; i++) {
        ev = (rt_event){.rank = r, .req = req + (uint64_t)i};
        if (put(w, &ev, t, RT_EV_ENTER, RT_FN_Irecv) ||
            put(w, &ev, t, RT_EV_IRECV_REQUEST, RT_FN_Irecv) ||
            put(w, &ev, t, RT_EV_LEAVE, RT_FN_Irecv))
            return -1;
    }
    for (int i = 0; i < 2; i++) {
        ev = (rt_event){.rank = r,
                        .comm = RT_COMM_WORLD,
                        .peer = (int32_t)peers[i],
                        .tag = i,
                        .bytes = bytes,
                        .contype = (uint8_t)contype(r, peers[i]),
                        .req = req + 2 + (uint64_t)i};
        if (put(w, &ev, t, RT_EV_ENTER, RT_FN_Isend) || put(w, &ev, t, RT_EV_ISEND, RT_FN_Isend) ||
            put(w, &ev, t, RT_EV_LEAVE, RT_FN_Isend))
            return -1;
    }
    ev = (rt_event){.rank = r};
    if (put(w, &ev, t, RT_EV_ENTER, RT_FN_Waitall))
        return -1;
    for (int i = 0; i < 2; i++) {
        /* The message from the left neighbour was sent to its right (tag 1), and back. */
        ev = (rt_event){.rank = r,
                        .comm = RT_COMM_WORLD,
                        .peer = (int32_t)peers[i],
                        .tag = 1 - i,
                        .bytes = bytes,
                        .contype = (uint8_t)contype(r, peers[i]),
                        .req = req + (uint64_t)i};
        if (put(w, &ev, t, RT_EV_IRECV, RT_FN_Waitall))
            return -1;
    }
    for (int i = 0; i < 2; i++) {
        ev = (rt_event){.rank = r, .req = req + 2 + (uint64_t)i};
        if (put(w, &ev, t, RT_EV_ISEND_COMPLETE, RT_FN_Waitall))
            return -1;
    }
    ev = (rt_event){.rank = r};
    if (put(w, &ev, t, RT_EV_LEAVE, RT_FN_Waitall))
        return -1;
    *t += 2000;
    ev = (rt_event){.rank = r,
                    .comm = RT_COMM_WORLD,
                    .peer = RT_PEER_NONE,
                    .bytes = 8,
                    .rbytes = 8,
                    .op = RT_COLL_ALLREDUCE};
    if (put(w, &ev, t, RT_EV_ENTER, RT_FN_Allreduce) ||
        put(w, &ev, t, RT_EV_COLL_BEGIN, RT_FN_Allreduce) ||
        put(w, &ev, t, RT_EV_COLL_END, RT_FN_Allreduce) ||
        put(w, &ev, t, RT_EV_LEAVE, RT_FN_Allreduce))
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 6) {
        fprintf(stderr, "usage: synth_trace OUT EVENTS [RANKS [NODES [MODULES]]]\n");
        return 2;
    }
    uint64_t events = 0, nr = 64, nn = 0, nm = 2;
    if (rt_parse_uint(argv[2], 0, UINT64_MAX, &events, NULL) < 0 ||
        (argc > 3 && rt_parse_uint(argv[3], 0, UINT32_MAX, &nr, NULL) < 0) ||
        (argc > 4 && rt_parse_uint(argv[4], 0, UINT32_MAX, &nn, NULL) < 0) ||
        (argc > 5 && rt_parse_uint(argv[5], 0, UINT32_MAX, &nm, NULL) < 0)) {
        fprintf(stderr, "synth_trace: EVENTS, RANKS, NODES and MODULES are whole numbers\n");
        return 2;
    }
    nranks = (uint32_t)nr;
    nodes = argc > 4 ? (uint32_t)nn : (nranks + 7) / 8;
    modules = (uint32_t)nm;
    if (nranks < 2 || nodes < 1 || nodes > nranks || modules < 1 || modules > nodes) {
        fprintf(stderr, "synth_trace: need RANKS >= 2, 1 <= MODULES <= NODES <= RANKS\n");
        return 2;
    }
    rt_defs defs;
    rt_err err;
    if (rt_defs_init(&defs, nranks, &err) < 0) {
        fprintf(stderr, "synth_trace: %s\n", err.msg);
        return 1;
    }
    for (uint32_t r = 0; r < nranks; r++) {
        defs.node[r] = node_of(r);
        defs.module[r] = module_of_node(node_of(r));
    }
    rt_writer *w;
    if (rt_writer_open(argv[1], RT_FMT_AUTO, &defs, &w, &err) < 0) {
        fprintf(stderr, "synth_trace: %s\n", err.msg);
        return 1;
    }
    uint64_t iters =
        (events + (uint64_t)EVENTS_PER_ITER * nranks - 1) / ((uint64_t)EVENTS_PER_ITER * nranks);
    uint64_t *t = calloc(nranks, sizeof *t);
    for (uint64_t it = 0; it < iters; it++)
        for (uint32_t r = 0; r < nranks; r++)
            if (iteration(w, r, it, &t[r]) < 0) {
                rt_writer_abort(w);
                return 1;
            }
    free(t);
    rt_defs_free(&defs);
    if (rt_writer_close(w, &err) < 0) {
        fprintf(stderr, "synth_trace: %s\n", err.msg);
        return 1;
    }
    printf("%" PRIu64 " events, %" PRIu32 " ranks, %" PRIu32 " nodes, %" PRIu32 " modules\n",
           iters * EVENTS_PER_ITER * nranks, nranks, nodes, modules);
    return 0;
}
