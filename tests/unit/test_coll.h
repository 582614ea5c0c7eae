/* Helpers shared by the unit tests of rt_coll (test_coll.c, test_coll_nbr.c): every rank's
 * schedule of one call (a world), the pairing of its sends and receives, and a round-by-round
 * executor. Include it after cmocka.h. */
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

/* rt_coll_emit_fn appending to a steps (ctx). */
int push(void *ctx, const rt_coll_step *st);
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
