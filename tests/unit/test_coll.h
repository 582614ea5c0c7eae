/* Helpers shared by the unit tests of rt_coll (test_coll*.c; defined in test_coll_world.c):
 * every rank's schedule of one call (a world), the pairing of its sends and receives, and a
 * round-by-round executor. Include it after cmocka.h. */
#ifndef TEST_COLL_H
#define TEST_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "rt_coll.h"

#define MAXP 64

typedef struct steps {
    rt_coll_step *v;
    size_t n, cap;
} steps;

typedef struct world {
    uint32_t p;
    steps r[MAXP];
    int approx[MAXP];
} world;

typedef struct pairing {
    size_t base[MAXP + 1]; /* global step id = base[rank] + index */
    size_t *partner;       /* matching step of a SEND or RECV */
    uint32_t *owner;
    uint32_t *ridx; /* index of the step's round among its rank's rounds */
    uint32_t nrounds[MAXP];
} pairing;

/* One call of every rank of a world. */
typedef struct setup {
    unsigned op, alg;
    uint32_t p;
    int32_t root;
    uint64_t b; /* per-rank block (bcast, reduce, allreduce, scan: the whole message) */
    const uint32_t *module, *node;
} setup;

/* A world's totals: messages and bytes sent, bytes reduced. */
typedef struct sums {
    uint64_t msgs, bytes, reduced;
} sums;

/* rt_coll_emit_fn appending to a steps (ctx). */
int push(void *ctx, const rt_coll_step *st);
/* The op has a root; it has a schedule (neighbourhood ones included). */
int rooted(unsigned op);
int has_schedule(unsigned op);
/* Rank me's call in su, with the bytes it records (docs/tracer.md). */
rt_coll_call call_of(const setup *su, uint32_t me);
/* Field by field: the structs have padding. */
void assert_same_steps(const steps *a, const steps *b);
/* Every rank's steps; also checks the per-rank rules (rounds non-decreasing, peers). */
void gen(world *w, const setup *su);
/* Generate, match, execute, and check the data flow when every piece is non-empty. */
void check_all(const setup *su, world *w);
sums sum_world(const world *w);
void world_free(world *w);
/* Pairs the k-th SEND src->dst with the k-th RECV on dst from src, asserting equal bytes
 * and equal numbers on both sides. */
void match(const world *w, pairing *f, const char *what);
/* Runs all ranks round by round (rendezvous: a round ends when the partner of each of its
 * steps is posted); fails on deadlock. know[r] gets the bits of the ranks whose data reached
 * r. */
void execute(const world *w, const pairing *f, uint64_t *know, const char *what);
void flat_free(pairing *f);
/* rt_coll_emit_fn counting steps into an int (ctx). */
int count_only(void *ctx, const rt_coll_step *st);
/* The call is refused with RT_E_INVAL, nothing emitted, and the error mentions needle. */
void expect_inval(unsigned alg, rt_coll_call c, const char *needle);

/* test_coll_nbr.c */
void test_nbr_steps(void **state);
void test_nbr_consistency(void **state);
void test_nbr_bad_input(void **state);

#endif /* TEST_COLL_H */
