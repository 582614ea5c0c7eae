/*
 * Unit tests of the built-in engine's one-sided communication (replayer/sim/sim_rma.c):
 * fences, post-start-complete-wait, exclusive locks and flushes, with replay times worked
 * out by hand under the models of test_sim.h. Times in comments are in microseconds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rt_test_main.h"

#include "test_sim.h"

/* ---- RMA ------------------------------------------------------------------------------------- */

static void fence(st_text *t, unsigned r, uint64_t ns)
{
    st_call(t, r, ns, "MPI_Win_fence", "rma_coll_begin,MPI_Win_fence,,,,,,,,",
            "rma_coll_end,MPI_Win_fence,0,,,,,,,barrier");
}

/* Fence, rank 0 puts 1000 bytes into rank 1, fence; 4 ranks, alpha-beta model. The first
 * fence is a dissemination barrier (2 alpha); the put is in at 2 + alpha + n/beta = 4; rank
 * 0's second fence starts then and the barrier ends 2 alpha later for everyone (the others
 * entered at 2 and wait for rank 0's messages). */
static void test_fence_put(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,4\nwin,0,0\n");
    for (unsigned r = 0; r < 4; r++) {
        fence(&t, r, 0);
        if (r == 0)
            st_call(&t, 0, 0, "MPI_Put", "put,MPI_Put,0,1,,1000,,shm,5,", NULL);
        fence(&t, r, 0);
    }
    rt_sim_config c;
    st_alpha_beta(&c);
    c.alg[RT_COLL_BARRIER] = RT_ALG_DISSEMINATION;
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    uint64_t put_in = 2 * US + US + 1000 * 1000;
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    for (unsigned r = 0; r < 4; r++)
        assert_int_equal(res.ranks[r].end_ps, put_in + 2 * US);
    assert_int_equal(res.messages, 2 * 4 * 2 + 1); /* two barriers of 4 x log p, the put */
    assert_int_equal(res.bytes, 1000);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Post/start/complete/wait, alpha-beta: rank 1 posts at 0 (notice in at 1), rank 0's start
 * returns at 1, its put is in at 3, complete sends its notice at 3 (in at 4); rank 1's wait
 * returns at 4. */
static void test_pscw(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\ngroup,0,0\ngroup,1,1\nwin,0,0\n");
    st_call(&t, 0, 0, "MPI_Win_start", "group_sync,MPI_Win_start,0,1,,,,,,start", NULL);
    st_call(&t, 0, 0, "MPI_Put", "put,MPI_Put,0,1,,1000,,shm,5,", NULL);
    st_call(&t, 0, 0, "MPI_Win_complete", "group_sync,MPI_Win_complete,0,1,,,,,,complete", NULL);
    st_call(&t, 1, 0, "MPI_Win_post", "group_sync,MPI_Win_post,0,0,,,,,,post", NULL);
    st_call(&t, 1, 0, "MPI_Win_wait", "group_sync,MPI_Win_wait,0,0,,,,,,wait", NULL);
    rt_sim_config c;
    st_alpha_beta(&c);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    assert_int_equal(res.ranks[0].end_ps, 4 * US);
    assert_int_equal(res.ranks[1].end_ps, 4 * US);
    assert_int_equal(res.ranks[1].mpi_ps, 4 * US);
    assert_int_equal(res.messages, 3);
    assert_int_equal(res.bytes, 1000);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* Ranks 0 and 1 each lock rank 2 exclusively, put 1000 bytes, unlock; rank 1 asks at 0.5.
 * Rank 0: request in at 1, grant back at 2, put in at 4, release in at 5, ack back at 6.
 * Rank 1's request (in at 1.5) waits for the release (5): grant back at 6, put in at 8,
 * release in at 9, ack back at 10. */
static void test_lock_exclusive(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,3\nwin,0,0\n");
    for (unsigned r = 0; r < 2; r++) {
        uint64_t ns = r ? 500 : 0;
        st_call(&t, r, ns, "MPI_Win_lock", "lock,MPI_Win_lock,0,2,,,,,7,exclusive", NULL);
        st_call(&t, r, ns, "MPI_Put", "put,MPI_Put,0,2,,1000,,shm,8,", NULL);
        st_call(&t, r, ns, "MPI_Win_unlock", "unlock,MPI_Win_unlock,0,2,,,,,7,", NULL);
    }
    st_init(&t, 2);
    rt_sim_config c;
    st_alpha_beta(&c);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_null(res.report);
    assert_int_equal(res.ranks[0].end_ps, 6 * US);
    assert_int_equal(res.ranks[1].end_ps, 10 * US);
    assert_int_equal(res.ranks[1].mpi_ps, 10 * US - 500 * NS);
    rt_sim_result_free(&res);
    st_free(&t);
}

/* lock_all, put 1000 bytes to rank 1 (in at 2), flush(1) waits for it; 1 us computation;
 * put 2000 bytes (in at 3 + 3 = 6), flush_all waits for it, unlock_all has nothing left. */
static void test_flush(void **state)
{
    (void)state;
    st_text t = {0};
    st_add(&t, "ranks,2\nwin,0,0\n");
    st_call(&t, 0, 0, "MPI_Win_lock_all", "lock,MPI_Win_lock_all,0,all,,,,,9,shared", NULL);
    st_call(&t, 0, 0, "MPI_Put", "put,MPI_Put,0,1,,1000,,shm,5,", NULL);
    st_call(&t, 0, 0, "MPI_Win_flush", "sync,MPI_Win_flush,0,1,,,,,,flush", NULL);
    st_call(&t, 0, 1000, "MPI_Put", "put,MPI_Put,0,1,,2000,,shm,6,", NULL);
    st_call(&t, 0, 1000, "MPI_Win_flush_all", "sync,MPI_Win_flush_all,0,all,,,,,,flush", NULL);
    st_call(&t, 0, 1000, "MPI_Win_unlock_all", "unlock,MPI_Win_unlock_all,0,all,,,,,9,", NULL);
    st_init(&t, 1);
    rt_sim_config c;
    st_alpha_beta(&c);
    rt_sim_result res;
    st_replay(t.s, &c, &res);
    assert_int_equal(res.completed, 1);
    assert_int_equal(res.ranks[0].end_ps, 6 * US);
    assert_int_equal(res.ranks[0].mpi_ps, 5 * US);
    assert_int_equal(res.ranks[0].compute_ps, 1 * US);
    rt_sim_result_free(&res);
    st_free(&t);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fence_put),
        cmocka_unit_test(test_pscw),
        cmocka_unit_test(test_lock_exclusive),
        cmocka_unit_test(test_flush),
    };
    return rt_test_main("sim_rma", tests, argc, argv);
}
