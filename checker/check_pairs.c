/*
 * The blocks of a v or w collective, pair by pair (docs/check.md, "collective"): what a member
 * sends to another must be what that one receives from it. A trace from retrace's tracer says
 * so (RT_DEFS_COLL_PEERS): a call with COLL_PEER rows has those blocks, one without has equal
 * blocks (its total over the communicator's size). A trace without the flag (another tool's,
 * or one from before the rows) has only totals, and only those are compared (check_coll.c).
 *
 * Which blocks each op's count arrays give (rt_coll_count_sides) and what they must match:
 *   alltoallv, alltoallw   send block k of member i = receive block i of member k
 *   gatherv                receive block k of the root = member k's send total
 *   scatterv               send block k of the root = member k's receive total
 *   allgatherv             receive block k of every member = member k's send total
 *   reduce_scatter         send block k of every member = member k's receive total
 */
#include <inttypes.h>
#include <stdio.h>

#include "rt__check.h"

/* Block k of one side (RT_SIDE_SEND or RT_SIDE_RECV) of a member's call: its row for k (0 when
 * it has rows but none for k), else its total over p. */
static uint64_t block(const chk_colls *cs, uint32_t rank, const chk_call *k, unsigned side,
                      uint32_t blk, uint32_t p)
{
    uint64_t total = side == RT_SIDE_SEND ? k->ev.bytes : k->ev.rbytes;
    if (!k->nrows)
        return p ? total / p : 0;
    const chk_row *rows = cs->rows[rank] + k->row0;
    uint32_t lo = 0, hi = k->nrows; /* rows come in increasing block order */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((uint32_t)rows[mid].peer < blk)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < k->nrows && (uint32_t)rows[lo].peer == blk)
        return side == RT_SIDE_SEND ? rows[lo].bytes : rows[lo].rbytes;
    return 0;
}

/* The call of member m (its chk_call: rt_event is its first member). */
static const chk_call *call_of(const chk_pairs *pp, uint32_t m)
{
    return (const chk_call *)pp->ev[m];
}

/* Member a's block b of one side against want, what member b has for it: a finding, "VERB
 * HAVE bytes TO want", when they differ. */
static int pair(const chk_pairs *pp, uint32_t a, unsigned aside, uint32_t b, uint64_t want,
                const char *verb, const char *to)
{
    uint32_t ra = pp->cd->members[a];
    uint64_t have = block(pp->cs, ra, call_of(pp, a), aside, b, pp->p);
    if (have == want)
        return 0;
    char text[256];
    snprintf(text, sizeof text,
             "%s %" PRIu64 " bytes %s %" PRIu64
             " bytes (the counts or the datatypes' sizes disagree)",
             verb, have, to, want);
    return pp->report(pp->ctx, a, b, text);
}

int chk_pairs_compare(const chk_pairs *pp, unsigned op, uint32_t root)
{
    uint32_t p = pp->p;
    if (p > CHK_PAIRS_MAX)
        return 0; /* p^2 blocks: the totals stand for them (check_coll.c) */
    for (uint32_t i = 0; i < p; i++) {
        for (uint32_t k = 0; k < p; k++) {
            const chk_call *ck = call_of(pp, k);
            uint32_t rk = pp->cd->members[k];
            int rc = 0;
            switch (op) {
            case RT_COLL_ALLTOALLV:
            case RT_COLL_ALLTOALLW:
                rc = pair(pp, i, RT_SIDE_SEND, k, block(pp->cs, rk, ck, RT_SIDE_RECV, i, p),
                          "sends", "to a member, which receives");
                break;
            case RT_COLL_GATHERV:
                if (i == root)
                    rc = pair(pp, i, RT_SIDE_RECV, k, ck->ev.bytes, "the root receives",
                              "from a member, which sends");
                break;
            case RT_COLL_SCATTERV:
                if (i == root)
                    rc = pair(pp, i, RT_SIDE_SEND, k, ck->ev.rbytes, "the root sends",
                              "to a member, which receives");
                break;
            case RT_COLL_ALLGATHERV:
                rc = pair(pp, i, RT_SIDE_RECV, k, ck->ev.bytes, "receives",
                          "from a member, which sends");
                break;
            case RT_COLL_REDUCE_SCATTER:
                rc = pair(pp, i, RT_SIDE_SEND, k, ck->ev.rbytes, "gives",
                          "of the result to a member, which receives");
                break;
            default:
                return 0;
            }
            if (rc)
                return rc;
        }
    }
    return 0;
}
